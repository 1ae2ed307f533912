# Facts from FluxML/Zygote.jl test/gradcheck.jl (ported for Zyla's conformance suite).
# (Upstream has since split this file into test/gradcheck_p1.jl ... gradcheck_p4.jl; this
# port follows the last single-file version.)
#
# Left out, with the reason:
#   - `pmap` and "Alternative Pmap Dispatch": Distributed (worker processes);
#   - "map inference": `@inferred` on `Zygote._pullback` (inference, Zygote internals);
#   - "cholesky", the "Cholesky" part of "backsolve", "matrix exponential",
#     "eigen(...)", "eigvals(...)", "Hermitian/Symmetric power series functions",
#     "^(::Union{Symmetric,Hermitian}, p::Integer)": LinearAlgebra factorizations
#     (cholesky / eigen / qr-based inputs);
#   - "distances": Distances.jl;  "AbstractFFTs": FFTW;  "FillArrays": FillArrays.jl;
#   - "xlogx", "xlogy", "logistic", "logit", "log1pexp", "log1psq", "logaddexp",
#     "logsubexp", "logsumexp": LogExpFunctions.jl;
#   - `@test_broken` and `@test_skip` lines (upstream does not assert them).

using Test
using Random
using LinearAlgebra
using Statistics
using SparseArrays
using Zygote
using GradCheck

# Zygote's gradtest: finite differences against reverse mode for `sum(sin.(f(xs...)))`,
# which projects an array output onto a fixed nonlinear direction.
gradtest(f, xs::AbstractArray...) = gradcheck((ys...) -> sum(sin.(f(ys...))), xs...)
gradtest(f, dims...) = gradtest(f, rand.(Float64, dims)...)

# checks both the gradient and that each cotangent has its argument's type
function cat_test(f, arrs::Union{AbstractVector, AbstractMatrix}...)
  @test gradtest(f, arrs...)
  out, back = Zygote.pullback(f, arrs...)
  grads = back(randn(size(out)))
  @test all(map((a, ga) -> ga isa typeof(a), arrs, grads))
end

Random.seed!(0)

@testset "println, show, string, etc" begin
  function printing_identity(x)
    Base.show(x)
    Base.print(x)
    Base.print(stdout, x)
    Base.println(x)
    Base.println(stdout, x)
    Core.show(x)
    Core.print(x)
    Core.println(x)
    return x
  end
  println("The following printout is from testing that `print` doesn't upset gradients:")
  @test gradtest(printing_identity, [5.0])

  function stringing_identity(x)
    string(x)
    repr(x)
    return x
  end
  @test gradtest(stringing_identity, [5.0])
end

@testset "gradcheck: rational division" begin
  @test gradient(//, 2, 3) === (1//3, -2//9)
end

@testset "power" begin
  @test gradient(x -> x^2, -2) == (-4,)
  @test gradient(x -> x^10, -1.0) == (-10,)   # literal_pow
  pw = 10
  @test gradient(x -> x^pw, -1.0) == (-pw,)
  @test gradient(p -> real(2^p), 2)[1] ≈ 4 * log(2)

  @test gradient(v -> sum(v .^ 2), [2, -1]) == ([4, -2],)
  @test gradient(v -> sum(v .^ 10), [3, -1]) == ([10 * 3^9, -10],)
  @test gradient(v -> sum(v .^ pw), [4, -1]) == ([pw * 4^9, -10],)

  @test gradient(z -> real((1 + 3im) * z^2), 5 + 7im) == (-32 - 44im,)
  @test gradient(p -> real((1 + 3im) * (5 + 7im)^p), 2)[1] ≈ real((-234 + 2im) * log(5 - 7im))
end

@testset "gradcheck: complex acosh" begin
  @test gradtest((re, im_) -> sum(reim(acosh(complex(re[1], im_[1])))), [-2.0], [1.0])
end

@testset "gradcheck: affine layers" begin
  @test gradtest((x, W, b) -> identity.(W * x .+ b), 5, (2, 5), 2)
  @test gradtest((x, W, b) -> identity.(W * x .+ b), (5, 3), (2, 5), 2)
  @test gradtest((x, W, b) -> tanh.(W * x .+ b), 5, (2, 5), 2)
  @test gradtest((x, W, b) -> tanh.(W * x .+ b), (5, 3), (2, 5), 2)
end

@testset "gradcheck: adjoint and transpose products" begin
  @test gradtest((w, v) -> w' * v, randn(10, 2), randn(10))
  @test gradtest((w, v) -> Adjoint(w) * v, randn(10, 2), randn(10))
  @test gradtest((w, v) -> transpose(w) * v, randn(5, 5), randn(5, 5))
  @test gradtest((w, v) -> Transpose(w) * v, randn(5, 5), randn(5, 5))
  @test gradtest((w, v) -> parent(w) * v, randn(5, 5)', randn(5, 5))
  @test gradtest((w, v) -> parent(w) * v, transpose(randn(5, 5)), randn(5, 5))
  @test gradtest(v -> v', rand(5))
end

@testset "sum, prod, cumsum" begin
  @test gradtest(a -> sum(a, dims = (2, 3)), (3, 4, 5))
  @test gradtest(a -> sum(abs2, a), randn(4, 3, 2))
  @test gradtest(a -> sum(abs2, a; dims = 1), randn(4, 3, 2))
  @test gradtest(a -> sum(a[k] for k in 1:length(a)), randn(10))
  @test gradtest(a -> sum(k -> a[k], 1:length(a)), randn(10))   # issue #231
  @test gradtest(a -> sum((k -> a[k]).(1:length(a))), randn(10))
  @test gradtest(A -> sum(t -> t^2, A), randn(10))
  @test gradtest(A -> sum(sum(t -> t^2, A; dims = 1)), randn(10))   # issue #681

  # sums of Booleans have no gradient
  @test gradient(sum, [true, false, true]) == (nothing,)
  @test gradient(a -> sum(a .== 0.0), [1.2, 0.2, 0.0, -1.1, 100.0]) == (nothing,)

  # issue #314
  @test gradient((s, v) -> sum(vi -> vi * s, v), 1, [1, 1]) == (2, [1, 1])
  @test gradient((s, v) -> prod(vi -> vi * s, v), 1, [1, 1]) == (2, [1, 1])
  @test gradient((s, v) -> sum(map(vi -> vi * s, v)), 1, [1, 1]) == (2, [1, 1])
  @test gradient((s, v) -> prod(map(vi -> vi * s, v)), 1, [1, 1]) == (2, [1, 1])

  @test gradtest(a -> prod(a, dims = (2, 3)), (3, 4, 5))
  @test gradtest(a -> prod(a), (3, 4))
  @test gradient(t -> prod(t), (1, 2, 3))[1] == (6, 3, 2)

  @test gradtest(a -> cumsum(a, dims = 2), (3, 4, 5))
  @test gradtest(a -> cumsum(a, dims = 1), (3,))
  @test gradtest(a -> cumsum(a), (4,))
  @test gradtest(a -> cumsum(a, dims = 3), (5,))     # trivial
  @test gradtest(a -> cumsum(a, dims = 3), (3, 4))   # trivial
end

@testset "gradcheck: det and logdet" begin
  @test gradtest(det, (4, 4))
  @test gradtest(logdet, map(m -> m * m', (rand(4, 4),))[1])
  @test gradtest(m -> logabsdet(m)[1], (4, 4))
  @test gradient(det, 2.0)[1] == 1
  @test gradient(logdet, 2.0)[1] == 0.5
end

@testset "getindex" begin
  @test gradtest(a -> a[:, 2, :], (3, 4, 5))
  @test gradtest(a -> a[1:2, 3:4], (3, 4))

  idxmat = [1 2; 3 4]
  @test gradtest(a -> a[:, idxmat], (3, 4))
  @test gradtest(a -> a[:, [1, 2, 2]], (3, 4))
  idxrep = [1 2; 2 2]
  @test gradtest(a -> a[1, idxrep], (3, 4))

  # Nabla.jl issue #139: repeated indices accumulate
  v = rand(3)
  ix = [1, 2, 3, 3]
  dotsel(v, ix) = dot(ones(4), v[ix])
  @test gradient(dotsel, v, ix) == ([1, 1, 2], nothing)

  # issue #376
  _, back = Zygote.pullback(a -> a[1] * im, randn(2))
  @test back(1.0)[1] == real([-im, 0]) == [0, 0]

  # _droplike
  @test gradient(a -> sum(inv, a[1, :]'), ones(2, 2)) == ([-1 -1; 0 0],)
  @test gradient(a -> sum(inv, a[1:1, :]'), ones(2, 2)) == ([-1 -1; 0 0],)
  @test gradient(a -> sum(inv, transpose(view(a, 1, :))), ones(2, 2)) == ([-1 -1; 0 0],)

  # issue #513
  @test gradient(p -> sum(Float32[1, 0] - p), [2, 3]) == ([-1, -1],)
  @test gradient(t -> sum(Float32[1, t] .+ t), 4) == (3.0f0,)

  # nothing cotangents, numeric element type
  _, back = Zygote.pullback(getindex, randn(4), [1])
  @test back([nothing]) === nothing

  # nothing cotangents, non-numeric element type
  _, back = Zygote.pullback(getindex, [randn(2) for _ in 1:3], [1])
  @test back([nothing]) == nothing
end

@testset "view" begin
  @test gradtest(a -> view(a, :, 2, :), (3, 4, 5))
  @test gradtest(a -> view(a, 1:2, 3:4), (3, 4))
  @test gradtest(a -> view(a, :, [1, 2, 2]), (3, 4))

  # issue #272
  firstofview(a) = view(a, 1:2)[1]
  @test gradient(firstofview, ones(3)) == ([1, 0, 0],)
end

@testset "eachcol" begin
  @test gradtest(a -> map(sum, eachcol(a)), (3, 4))
  @test gradtest(a -> map(sum, eachcol(transpose(a))), (3, 4))

  @test gradtest(a -> map(norm, eachcol(a)), (3, 4))
  @test gradtest(a -> map(norm, eachrow(a)), (3, 4))
  @test gradtest(a -> map(norm, eachslice(a, dims = 3)), (3, 4, 5))

  # some slices may get a nothing gradient
  @test gradient(a -> sum(c -> rand() > 0.5 ? 0 : first(c), eachcol(a)), rand(3, 10))[1] isa Matrix
end

@testset "collect" begin
  @test gradient(t -> sum(inv, collect(t)), (1, 2)) === ((-1.0, -1 / 4),)

  @test gradient(a -> sum(collect(view(a, 1:1))), rand(2)) == ([1, 0],)
  @test gradient(a -> sum(inv, collect(view(a', 1, :))), ones(2, 2)) == ([-1 0; -1 0],)

  @test gradient(v -> sum(inv, [t^2 for t in v]), ones(2)) == ([-2, -2],)

  # generators over arrays and over iterators
  @test gradient(p -> sum(collect(p * k for k in [1.0, 2.0, 3.0])), 2.0) == (6.0,)
  # (upstream destructures `for (k,) in zip(...)`, which Zyla cannot parse; `k[1]` is the same)
  @test gradient(p -> sum(collect(p * k[1] for k in zip([1.0, 2.0, 3.0]))), 2.0) == (6.0,)
  @test gradient(p -> sum(collect(p * k for k in Iterators.take([1.0, 2.0, 3.0], 3))), 2.0) == (6.0,)
  @test gradient(p -> sum(collect(p * k for k in Iterators.take(p * [1.0, 2.0, 3.0], 2))), 2.0) == (12.0,)

  # iterators
  @test gradient(s -> sum(collect(Iterators.take([s * k for k in 1:5], 4))), 1.0) == (10.0,)
  @test gradient(s -> sum(collect(Iterators.take([s * k for k in 1:5], 5))), 1.0) == (15.0,)
end

@testset "gradcheck: reverse" begin
  @test gradtest(v -> reverse(v), rand(17))
  @test gradtest(v -> reverse(v, 8), rand(17))
  @test gradtest(v -> reverse(v, 8, 13), rand(17))
  @test gradtest(v -> reverse(v, dims = 2), rand(17, 42))
end

@testset "gradcheck: permutedims" begin
  @test gradtest(a -> permutedims(a), rand(2))
  @test gradtest(a -> permutedims(a), rand(2, 3))
  @test gradtest(a -> permutedims(a, [3, 1, 2]), rand(4, 5, 6))
  @test gradtest(a -> PermutedDimsArray(a, (3, 1, 2)), rand(4, 5, 6))
  out, back = Zygote.pullback(permutedims, randn(3))
  @test first(back(randn(1, 3))) isa Vector
end

@testset "gradcheck: repeat" begin
  @test gradtest(v -> repeat(v; inner = 2), rand(5))
  @test gradtest(v -> repeat(v; inner = 2, outer = 3), rand(5))
  @test gradtest(v -> repeat(v; inner = (2, 2, 1), outer = (1, 1, 3)), rand(5, 4, 3))

  @test gradtest(v -> repeat(v, 3), rand(5))
  @test gradtest(v -> repeat(v, 2, 3), rand(5))
  @test gradtest(v -> repeat(v, 5), rand(5, 7))
  @test gradtest(v -> repeat(v, 3, 2), rand(5, 3))
end

@testset "gradcheck: tr" begin
  @test gradtest(tr, rand(4, 4))
end

@testset "fill" begin
  rng, n1, n2, n3 = MersenneTwister(123456), 11, 6, 5
  @test gradtest(v -> fill(first(v), n1), randn(rng, 1))
  @test gradtest(v -> fill(first(v), n1, n2), randn(rng, 1))
  @test gradtest(v -> fill(first(v), n1, n2, n3), randn(rng, 1))

  # fill of a struct (tuple, named tuple)
  @test gradient(t -> fill(t, 3)[1][1], (1, 2)) === ((1.0, nothing),)
  @test gradient(t -> fill(t, 3)[1].a, (a = 1, b = 2)) == ((a = 1.0, b = nothing),)
end

@testset "circshift" begin
  len = 5
  for nd in 1:5, rep in 1:5
    z0 = zeros(ntuple(_ -> len, nd))
    g0 = gradient(z -> z[1], z0)[1]   # gradient with no shift
    sh = ntuple(_ -> rand(-len:len), nd)
    @test gradient(z -> circshift(z, sh)[1], z0)[1] == circshift(g0, map(-, sh))
  end
end

@testset "dot" begin
  rng = MersenneTwister(123456)
  @test gradtest((a, b) -> dot(a[1], b[1]), [randn(rng)], [randn(rng)])
  @test gradtest(dot, randn(rng, 10), randn(rng, 10))
  @test gradtest(dot, randn(rng, 10, 3), randn(rng, 10, 3))
end

@testset "gradcheck: kron" begin
  @test gradtest(kron, rand(5), rand(3))
  @test gradtest(kron, rand(5), rand(3), rand(8))
  @test gradtest(kron, rand(5, 1), rand(3, 1))
  @test gradtest(kron, rand(5, 1), rand(3, 1), rand(8, 1))
  @test gradtest(kron, rand(5, 2), rand(3, 2), rand(8, 2))
  @test gradtest(kron, rand(5), rand(3, 2))
  @test gradtest(kron, rand(3, 2), rand(5))
end

# upstream runs the next four testsets for `map` and for `pmap`; `pmap` is left out
@testset "map" begin
  @test gradtest(v -> sum(map(t -> t^2, v)), rand(2, 3))
  @test gradtest((vs...) -> sum(map((ts...) -> sqrt(sum(ts .^ 2)), vs...)), [rand(5) for _ in 1:6]...)
  function mapclosure(y)
    times_y = t -> t * y
    sum(map(times_y, 1:5))
  end
  @test gradtest(mapclosure, 3)
  @test gradient(v -> sum([t for t in v]), [1.1, 2.2, 3.3]) == ([1, 1, 1],)
end

@testset "Tuple adjoint" begin
  v = randn(3)
  _, pb = Zygote.pullback(a -> map(abs2, a), v)
  dy = randn(3)
  @test first(pb((dy...,))) ≈ first(pb(dy))
end

@testset "empty tuples" begin
  out, pb = Zygote.pullback(map, -, ())
  @test pb(out) === (nothing, ())

  out, pb = Zygote.pullback(map, +, (), ())
  @test pb(()) === (nothing, (), ())

  function make_scaler(z)
    scaler(t) = t * z
    return scaler
  end
  out, pb = Zygote.pullback(map, make_scaler(5.0), ())
  @test pb(()) === (nothing, ())
end

@testset "Vector{Nothing} cotangent" begin
  dnone = Vector{Nothing}(nothing, 5)

  # unary, no state
  out, pb = Zygote.pullback(map, -, randn(5))
  @test pb(dnone)[2] isa Vector{Nothing}

  # binary, no state
  out, pb = Zygote.pullback(map, +, randn(5), randn(5))
  @test pb(dnone)[2] isa Vector{Nothing}
  @test pb(dnone)[3] isa Vector{Nothing}

  # a closure with state
  function make_scaler(z)
    scaler(t) = t * z
    return scaler
  end
  out, pb = Zygote.pullback(map, make_scaler(5.0), randn(5))
  @test pb(dnone)[2] isa Vector{Nothing}
end

@testset "map and tuples" begin
  # arrays of tuples: no ChainRules Tangent escapes
  @test gradient(v -> sum(map(first, v)), [(1, 2), (3, 4)]) == ([(1.0, nothing), (1.0, nothing)],)
  @test gradient(v -> sum(first, v), [(1, 2), (3, 4)]) == ([(1.0, nothing), (1.0, nothing)],)

  @test gradient(t -> map(+, t, (1, 2, 3))[1], (4, 5, 6)) == ((1.0, nothing, nothing),)
  @test gradient(t -> map(+, t, [1, 2, 3])[1], (4, 5, 6)) == ((1.0, 0.0, 0.0),)
  @test gradient(t -> map(+, t, (1, 2, 3))[1], [4, 5, 6]) == ([1, 0, 0],)

  # mismatched lengths zip
  @test gradient(t -> map(+, t, [1, 2, 3, 99])[1], (4, 5, 6)) == ((1.0, 0.0, 0.0),)
  @test gradient(t -> map(+, t, [1, 2, 3])[1], (4, 5, 6, 99)) == ((1.0, 0.0, 0.0, nothing),)
end

@testset "Stateful Map" begin
  acc = 0
  addacc(t) = (acc += t)
  acc = 0
  @test gradient(v -> sum(map(addacc, v)), 1:10) == (10:-1:1,)
end

@testset "vararg map" begin
  # stops at the shortest argument
  @test gradient(v -> sum(map(*, v, [1, 2, 3])), rand(5)) == ([1, 2, 3, 0, 0],)
  @test gradient(v -> sum(map(*, v, (1, 2, 3))), rand(5)) == ([1, 2, 3, 0, 0],)
  @test gradient(v -> sum(map(*, v, [1, 2, 3])), Tuple(rand(5))) == ((1.0, 2.0, 3.0, nothing, nothing),)

  # mixed shapes
  @test gradient((a, b) -> sum(map(*, a, b)), [1, 2, 3, 4], [1 2; 3 4]) == ([1, 3, 2, 4], [1 3; 2 4])
  @test gradient((a, b) -> sum(map(*, a, b)), [1, 2, 3], [1 2; 3 4]) == ([1, 3, 2], [1 3; 2 0])
  @test gradient((a, b) -> sum(map(*, a, b)), (1, 2, 3), [1 2; 3 4]) == ((1, 3, 2), [1 3; 2 0])
  @test gradient((a, b) -> sum(map(*, a, b)), [1, 2, 3, 4, 5], [1 2; 3 4]) == ([1, 3, 2, 4, 0], [1 3; 2 4])
  @test gradient((a, b) -> sum(map(*, a, b)), (1, 2, 3, 4, 5), [1 2; 3 4]) == ((1, 3, 2, 4, nothing), [1 3; 2 4])
end

struct Affine1374
  W
  b
end
(m::Affine1374)(x) = [sum(x .* r) for r in eachrow(m.W)] + m.b

@testset "map: issye 1374" begin
  model = Affine1374(zeros(3, 3), zeros(3, 1))
  xin = [1.0, 2.0, 3.0]
  yout = [-1.0, -2.0, -3.0]
  halfsq(a, b) = sum(abs2.(a - b)) / 2
  gs = gradient(m -> halfsq(yout, m(xin)), model)
  @test gs[1].W ≈ [1 2 3; 2 4 6; 3 6 9]
end

@testset "sort" begin
  @test gradtest(sort, 5)
  hot = [[2, 3, 1], [1, 2, 3], [1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 2, 1]]
  for k = 1:3
    @test gradient(v -> sort(v)[k], [3.0, 1, 2])[1][hot[1][k]] == 1
    @test gradient(v -> sort(v)[k], [1.0, 2, 3])[1][hot[2][k]] == 1
    @test gradient(v -> sort(v, by = t -> t % 10)[k], [11, 2, 99])[1][hot[3][k]] == 1
    @test gradient(v -> sort(v, by = t -> t % 10)[k], [2, 11, 99])[1][hot[4][k]] == 1
    @test gradient(v -> sort(v, rev = true)[k], [3.0, 1, 2])[1][hot[5][k]] == 1
    @test gradient(v -> sort(v, rev = true)[k], [1.0, 2, 3])[1][hot[6][k]] == 1
  end
end

@testset "filter" begin
  @test gradtest(v -> filter(t -> t > 0.5, v), 20)
  @test gradient(v -> sum(log, filter(iseven, v)), 1:10) == (map(t -> iseven(t) ? 1 / t : 0, 1:10),)
  @test gradient(v -> sum(abs2, im .+ filter(iseven, v)), 1:10) == (map(t -> iseven(t) ? 2t : 0, 1:10),)
end

@testset "mean" begin
  @test gradtest(mean, rand(2, 3))
  @test gradtest(a -> mean(a, dims = 1), rand(2, 3))
  @test gradtest(a -> mean(a, dims = 2), rand(2, 3))
  @test gradtest(a -> mean(a, dims = 3), rand(2, 3, 4))
  @test gradtest(a -> mean(a, dims = [1, 2]), rand(2, 3, 4))
end

@testset "var" begin
  @test gradtest(var, rand(2, 3))
  @test gradtest(a -> var(a, dims = 1), rand(2, 3))
  @test gradtest(a -> var(a, dims = 2), rand(2, 3))
  @test gradtest(a -> var(a, dims = 3), rand(2, 3, 4))
  @test gradtest(a -> var(a, dims = [1, 2]), rand(2, 3, 4))

  @test gradtest(a -> var(a, corrected = false), rand(2, 3))
  @test gradtest(a -> var(a, dims = 1, corrected = false), rand(2, 3))
  @test gradtest(a -> var(a, dims = 2, corrected = false), rand(2, 3))
  @test gradtest(a -> var(a, dims = 3, corrected = false), rand(2, 3, 4))
  @test gradtest(a -> var(a, dims = [1, 2], corrected = false), rand(2, 3, 4))

  @test gradtest(a -> var(a, mean = mean(a)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 1, mean = mean(a, dims = 1)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 2, mean = mean(a, dims = 2)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 3, mean = mean(a, dims = 3)), rand(2, 3, 4))
  @test gradtest(a -> var(a, dims = [1, 2], mean = mean(a, dims = [1, 2])), rand(2, 3, 4))

  @test gradtest(a -> var(a, corrected = false, mean = mean(a)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 1, corrected = false, mean = mean(a, dims = 1)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 2, corrected = false, mean = mean(a, dims = 2)), rand(2, 3))
  @test gradtest(a -> var(a, dims = 3, corrected = false, mean = mean(a, dims = 3)), rand(2, 3, 4))
  @test gradtest(a -> var(a, dims = [1, 2], corrected = false, mean = mean(a, dims = [1, 2])), rand(2, 3, 4))
end

@testset "std" begin
  @test gradtest(std, rand(2, 3))
  @test gradtest(a -> std(a, dims = 1), rand(2, 3))
  @test gradtest(a -> std(a, dims = 2), rand(2, 3))
  @test gradtest(a -> std(a, dims = 3), rand(2, 3, 4))
  @test gradtest(a -> std(a, dims = [1, 2]), rand(2, 3, 4))

  @test gradtest(a -> std(a, corrected = false), rand(2, 3))
  @test gradtest(a -> std(a, dims = 1, corrected = false), rand(2, 3))
  @test gradtest(a -> std(a, dims = 2, corrected = false), rand(2, 3))
  @test gradtest(a -> std(a, dims = 3, corrected = false), rand(2, 3, 4))
  @test gradtest(a -> std(a, dims = [1, 2], corrected = false), rand(2, 3, 4))

  @test gradtest(a -> std(a, mean = mean(a)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 1, mean = mean(a, dims = 1)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 2, mean = mean(a, dims = 2)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 3, mean = mean(a, dims = 3)), rand(2, 3, 4))
  @test gradtest(a -> std(a, dims = [1, 2], mean = mean(a, dims = [1, 2])), rand(2, 3, 4))

  @test gradtest(a -> std(a, corrected = false, mean = mean(a)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 1, corrected = false, mean = mean(a, dims = 1)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 2, corrected = false, mean = mean(a, dims = 2)), rand(2, 3))
  @test gradtest(a -> std(a, dims = 3, corrected = false, mean = mean(a, dims = 3)), rand(2, 3, 4))
  @test gradtest(a -> std(a, dims = [1, 2], corrected = false, mean = mean(a, dims = [1, 2])), rand(2, 3, 4))
end

@testset "maximum" begin
  @test gradtest(maximum, rand(2, 3))
  @test gradtest(a -> maximum(a, dims = 1), rand(2, 3))
  @test gradtest(a -> maximum(a, dims = 2), rand(2, 3))
  @test gradtest(a -> maximum(a, dims = 3), rand(2, 3, 4))
  @test gradtest(a -> maximum(a, dims = [1, 2]), rand(2, 3, 4))

  @test gradient(a -> 1 / maximum(a), [1.0, 2, 3])[1] == [0, 0, -1 / 9]

  # issue 1224: second order through maximum(dims)
  fmax(w, x) = sum(maximum((w * x) .^ 2, dims = 1))
  gmax(w, x) = sum(gradient(fmax, w, x)[2] .^ 2)
  hmax(w, x) = gradient(gmax, w, x)[2]
  @test hmax([1 2 3; 4 5 6.0], [7, 8, 9.0]) ≈ [300608, 375760, 450912]
end

@testset "minimum" begin
  @test gradtest(minimum, rand(2, 3))
  @test gradtest(a -> minimum(a, dims = 1), rand(2, 3))
  @test gradtest(a -> minimum(a, dims = 2), rand(2, 3))
  @test gradtest(a -> minimum(a, dims = 3), rand(2, 3, 4))
  @test gradtest(a -> minimum(a, dims = [1, 2]), rand(2, 3, 4))
end

@testset "dropdims" begin
  @test gradtest(a -> dropdims(a, dims = 3), rand(2, 2, 1, 2))
  @test gradtest(a -> dropdims(a, dims = (2, 3)), rand(2, 1, 1, 3))
  @test gradtest(a -> dropdims(a, dims = (1, 2, 3)), rand(1, 1, 1, 3))
end

# upstream: @testset "$f(::AbstractArray)" for f in (real, conj, imag)
@testset "real, conj, imag (::AbstractArray)" begin
  for fn in (real, conj, imag)
    rng, n = MersenneTwister(123456), 3
    eltys = (Float64, ComplexF64)
    @testset "$fn(::Array{$IT})" for IT in eltys
      A = randn(IT, n, n)
      y, back = Zygote.pullback(fn, A)
      y2, back2 = Zygote.pullback(a -> fn.(a), A)
      @test y == y2
      @testset "back(::Array{$BT})" for BT in eltys
        dy = randn(BT, n, n)
        @test back(dy)[1] == back2(dy)[1]
      end
    end
  end
end

@testset "(p)inv" begin
  rng, p, q = MersenneTwister(123456), 13, 11
  A, B, C = randn(rng, p, q), randn(rng, p, p), randn(q, p)
  @test gradtest(pinv, A)
  @test gradtest(inv, B)
  @test gradtest(pinv, C)
  @test gradient(inv, 2.0)[1] == -0.25
end

@testset "multiplication" begin
  rng, m, p, q = MersenneTwister(123456), 13, 7, 11
  @testset "matrix-matrix" begin
    @test gradtest(*, randn(rng, m, p), randn(rng, p, q))
    @test gradtest(*, randn(rng, m, p), randn(rng, p))
    @test gradtest(*, randn(rng, m, 1), randn(rng, 1, q))
    @test gradtest(*, randn(rng, m), randn(rng, 1, q))
    @test gradtest(*, randn(rng, 10)', randn(rng, 10))
    @test gradtest(*, randn(rng, 10)', randn(rng, 10))

    y, back = Zygote.pullback(*, randn(rng, m, p), randn(rng, p))
    @test last(back(randn(rng, m))) isa Vector
    y, back = Zygote.pullback(*, randn(rng, m), randn(rng, 1, p))
    @test first(back(randn(rng, m, p))) isa Vector
  end
end

@testset "backsolve" begin
  rng, m, p, q = MersenneTwister(123456), 13, 10, 9
  X, Y, y = randn(rng, p, p), randn(rng, p, q), randn(rng, p)
  A, B = randn(rng, p, m), randn(p, q)
  D = collect(Diagonal(randn(rng, p)))
  L = collect(LowerTriangular(randn(rng, p, p)))
  L[diagind(L)] .= 1 .+ 0.01 .* randn(rng, p)
  U = collect(UpperTriangular(randn(rng, p, p)))
  U[diagind(U)] .= 1 .+ 0.01 .* randn(rng, p)

  # \ with a dense square matrix
  @test gradtest(\, X, Y)
  @test gradtest(\, X, y)

  # \ with dense rectangular matrices
  @test gradtest(\, A, Y)
  @test gradtest(\, A, y)
  @test gradtest(\, B, Y)
  @test gradtest(\, B, y)

  # \ with Diagonal
  @test gradtest(\, D, Y)
  @test gradtest(\, D, y)
  @test gradtest((d, r) -> Diagonal(d) \ r, D, Y)
  @test gradtest((d, r) -> Diagonal(d) \ r, D, y)

  # \ with LowerTriangular
  @test gradtest(\, L, Y)
  @test gradtest(\, L, y)
  @test gradtest((l, r) -> LowerTriangular(l) \ r, L, Y)
  @test gradtest((l, r) -> LowerTriangular(l) \ r, L, y)

  # \ with UpperTriangular
  @test gradtest(\, U, Y)
  @test gradtest(\, U, y)
  @test gradtest((u, r) -> UpperTriangular(u) \ r, U, Y)
  @test gradtest((u, r) -> UpperTriangular(u) \ r, U, y)

  # /
  @test gradtest(/, Y', X)
  @test gradtest((r, s) -> r' / s, y, X)

  # / with rectangular matrices
  @test gradtest(/, Y', A')
  @test gradtest((r, s) -> r' / s', y, A)
  @test gradtest(/, Y', B')
  @test gradtest((r, s) -> r' / s', y, B)

  # / with Diagonal
  @test gradtest((d, r) -> r' / d, D, Y)
  @test gradtest((d, r) -> r' / d, D, y)
  @test gradtest((d, r) -> r' / Diagonal(d), D, Y)
  @test gradtest((d, r) -> r' / Diagonal(d), D, y)

  # / with LowerTriangular
  @test gradtest((l, r) -> r' / l, L, Y)
  @test gradtest((l, r) -> r' / l, L, y)
  @test gradtest((l, r) -> r' / LowerTriangular(l), L, Y)
  @test gradtest((l, r) -> r' / LowerTriangular(l), L, y)

  # / with UpperTriangular
  @test gradtest((u, r) -> r' / u, U, Y)
  @test gradtest((u, r) -> r' / u, U, y)
  @test gradtest((u, r) -> r' / UpperTriangular(u), U, Y)
  @test gradtest((u, r) -> r' / UpperTriangular(u), U, y)

  # / with UnitLowerTriangular
  @test gradtest((l, r) -> r' / l, L, Y)
  @test gradtest((l, r) -> r' / l, L, y)
  @test gradtest((l, r) -> r' / UnitLowerTriangular(l), L, Y)
  @test gradtest((l, r) -> r' / UnitLowerTriangular(l), L, y)

  # / with UnitUpperTriangular
  @test gradtest((u, r) -> r' / u, U, Y)
  @test gradtest((u, r) -> r' / u, U, y)
  @test gradtest((u, r) -> r' / UnitUpperTriangular(u), U, Y)
  @test gradtest((u, r) -> r' / UnitUpperTriangular(u), U, y)
  # (the nested "Cholesky" testset is left out: factorization)
end

@testset "Symmetric" begin
  @testset "real" begin
    rng, p = MersenneTwister(123456), 7
    A = randn(rng, p, p)
    @testset "uplo=$uplo" for uplo in (:U, :L)
      @test gradtest(a -> Symmetric(a, uplo), A)
      y, back = Zygote.pullback(Symmetric, A, uplo)
      @test y isa Symmetric

      @testset "back(::Diagonal)" begin
        dD = Diagonal(randn(rng, p))
        @test back(Diagonal(dD))[1] isa Diagonal
        @test back(Diagonal(dD))[1] ≈ back(Matrix(dD))[1]
      end

      @testset "back(::$TTri)" for TTri in (LowerTriangular, UpperTriangular)
        dT = TTri(randn(rng, p, p))
        @test back(dT)[1] isa Matrix
        @test back(dT)[2] === nothing
        @test back(dT)[1] ≈ back(Matrix(dT))[1]
      end
    end
  end

  @testset "complex" begin
    rng, p = MersenneTwister(123456), 7
    Re = randn(rng, p, p)
    Im = randn(rng, p, p)
    A = complex.(Re, Im)

    @testset "gradcheck dense" begin
      for uplo in (:U, :L)
        @test gradcheck(Re, Im) do a, b
          c = Symmetric(complex.(a, b), uplo)
          d = exp.(c)
          sum(real.(d) + imag.(d))
        end
      end
    end

    @testset "uplo=$uplo" for uplo in (:U, :L)
      y, back = Zygote.pullback(Symmetric, A, uplo)
      @test y isa Symmetric

      @testset "back(::Diagonal)" begin
        dD = Diagonal(complex.(randn(rng, p), randn(rng, p)))
        @test back(Diagonal(dD))[1] isa Diagonal
        @test back(Diagonal(dD))[1] ≈ back(Matrix(dD))[1]
      end

      @testset "back(::$TTri)" for TTri in (LowerTriangular, UpperTriangular)
        dT = TTri(complex.(randn(rng, p, p), randn(rng, p, p)))
        @test back(dT)[1] isa Matrix
        @test back(dT)[2] === nothing
        @test back(dT)[1] ≈ back(Matrix(dT))[1]
      end
    end
  end
end

@testset "Hermitian" begin
  rng, p = MersenneTwister(123456), 7
  Re = randn(rng, p, p)
  Im = randn(rng, p, p)
  A = complex.(Re, Im)

  @testset "gradcheck dense" begin
    for uplo in (:U, :L)
      @test gradcheck(Re, Im) do a, b
        c = Hermitian(complex.(a, b), uplo)
        d = exp.(c)
        sum(real.(d) + imag.(d))
      end
    end
  end

  @testset "uplo=$uplo" for uplo in (:U, :L)
    y, back = Zygote.pullback(Hermitian, A, uplo)
    _, back_sym = Zygote.pullback(Symmetric, A, uplo)
    @test y isa Hermitian

    @testset "back" begin
      dM = randn(rng, p, p)
      @test back(dM)[1] ≈ back_sym(dM)[1]
    end

    @testset "back(::Diagonal)" begin
      dD = Diagonal(complex.(randn(rng, p), randn(rng, p)))
      @test back(dD)[1] isa Diagonal
      @test back(dD)[2] === nothing
      @test back(dD)[1] ≈ back(Matrix(dD))[1]
      @test back(real(dD))[1] ≈ back_sym(real(dD))[1]
    end

    @testset "back(::$TTri)" for TTri in (LowerTriangular, UpperTriangular)
      dT = TTri(complex.(randn(rng, p, p), randn(rng, p, p)))
      @test back(dT)[1] isa Matrix
      @test back(dT)[2] === nothing
      @test back(dT)[1] ≈ back(Matrix(dT))[1]
      @test back(real(dT))[1] ≈ back_sym(real(dT))[1]
    end
  end
end

@testset "diag" begin
  rng, p = MersenneTwister(123456), 10
  A = randn(rng, p, p)
  @test gradtest(diag, A)
end

@testset "Diagonal" begin
  rng, p = MersenneTwister(123456), 10
  dv = randn(rng, p)
  @test gradtest(Diagonal, dv)
  y, back = Zygote.pullback(Diagonal, dv)
  dM = randn(rng, p, p)
  @test back(dM)[1] ≈ back(Diagonal(dM))[1]
  @test back(dM)[1] ≈ back((diag = diag(dM),))[1]
end

@testset "dense + UniformScaling" begin
  rng = MersenneTwister(123456)
  A, λ = randn(rng, 10, 10), randn(rng)
  @test gradtest(a -> a + 5I, A)
  @test gradtest(a -> 5I - a, A)
  @test gradtest(l -> A + l[1] * I, [λ])
end

# "cholesky": left out (factorization)

@testset "lyap" begin
  rng, n = MersenneTwister(6865943), 5
  for k = 1:5
    A = randn(rng, n, n)
    C = randn(rng, n, n)
    @test gradtest(lyap, A, C)
  end
  @test gradcheck(v -> lyap(v[1], v[2]), [3.1, 4.6])
end

# "matrix exponential", "eigen(...)", "eigvals(...)", "Hermitian/Symmetric power series
# functions", "^(::Union{Symmetric,Hermitian}, p::Integer)": left out (eigen/qr-based)
# "distances": left out (Distances.jl)

@testset "vcat" begin
  # scalars
  @test gradient((a, b) -> sum(vcat(a, b)), 1, 2) == (1, 1)
  @test gradient((a, b) -> sum([a; b]), 1, 2) == (1, 1)

  # scalars and vectors
  @test gradient(v -> sum(vcat(v, 1, v)), rand(3)) == ([2, 2, 2],)
  @test gradient((v, s) -> sum(vcat(v, s, s)), rand(3), 4) == ([1, 1, 1], 2)

  # vectors only
  cat_test(vcat, randn(1))
  cat_test(vcat, randn(10))
  cat_test(vcat, randn(1), randn(1))
  cat_test(vcat, randn(5), randn(1))
  cat_test(vcat, randn(1), randn(6))
  cat_test(vcat, randn(5), randn(6))

  # matrices only
  for c in [1, 2], r1 in [1, 2], r2 in [1, 2]
    cat_test(vcat, randn(r1, c))
    cat_test(vcat, randn(r1, c), randn(r2, c))
  end

  # matrix-vector, vector-matrix, vector-matrix-vector
  for r in [1, 2]
    cat_test(vcat, randn(r, 1), randn(r))
    cat_test(vcat, randn(r), randn(r, 1))
    cat_test(vcat, randn(r), randn(r, 1), randn(r))
  end
end

@testset "hcat" begin
  # scalars
  @test gradient((a, b) -> sum(hcat(a, b)), 1, 2) == (1, 1)
  @test gradient((a, b) -> sum([a b]), 1, 2) == (1, 1)
  @test gradient((a, b, c, d) -> sum(sqrt, [a b; c d]), 1, 1, 1, 4) == (0.5, 0.5, 0.5, 0.25)

  # vectors only
  for r in [1, 2]
    cat_test(hcat, randn(r))
    cat_test(hcat, randn(r), randn(r))
  end

  # matrices only
  for r in [1, 2], c1 in [1, 2], c2 in [1, 2]
    cat_test(hcat, randn(r, c1), randn(r, c2))
  end

  # matrix-vector, vector-matrix, vector-matrix-vector
  for r in [1, 2], c in [1, 2]
    cat_test(hcat, randn(r, c), randn(r))
    cat_test(hcat, randn(r), randn(r, c))
    cat_test(hcat, randn(r), randn(r, c), randn(r))
  end
end

@testset "hvcat" begin
  @test gradient(v -> hvcat((2, 2), v...)[1, 1], [1, 2, 3, 4])[1] == [1, 0, 0, 0]
  @test gradient(v -> hvcat((2, 2), v...)[2, 1], [1, 2, 3, 4])[1] == [0, 0, 1, 0]
  @test gradient(v -> hvcat((2, 2), v...)[1, 2], [1, 2, 3, 4])[1] == [0, 1, 0, 0]
  @test gradient(v -> hvcat((2, 2), v...)[2, 2], [1, 2, 3, 4])[1] == [0, 0, 0, 1]
  # issue #513
  @test gradient(s -> hvcat((2, 2), 1, 2, 3, s)[4], 4.0) == (1.0,)
end

# upstream: @testset "cat(..., dims = $dim)" for dim in 1:5
@testset "cat(..., dims = dim)" begin
  for d in 1:5
    catd = (args...) -> cat(args..., dims = d)
    @test gradtest(catd, rand(5), rand(5))
    @test gradtest(catd, rand(2, 5), rand(2, 5), rand(2, 5))
    @test gradtest(catd, rand(2, 5, 3), rand(2, 5, 3), rand(2, 5, 3))
  end
end

# upstream: @testset "cat(..., dims = Val($dim))" for dim in 1:5
@testset "cat(..., dims = Val(dim))" begin
  for d in 1:5
    catd = (args...) -> cat(args..., dims = Val(d))
    @test gradtest(catd, rand(5), rand(5))
    @test gradtest(catd, rand(2, 5), rand(2, 5), rand(2, 5))
    @test gradtest(catd, rand(2, 5, 3), rand(2, 5, 3), rand(2, 5, 3))
  end
end

@testset "cat empty" begin
  catd = (args...) -> cat(args..., dims = (1, 2))
  @test gradtest(catd, rand(0, 5, 3), rand(2, 5, 3), rand(2, 5, 3))
end

@testset "one(s) and zero(s)" begin
  @test Zygote.gradient(a -> sum(ones(size(a))), randn(5))[1] isa Nothing
  @test Zygote.gradient(a -> sum(one(a)), randn(3, 3))[1] isa Nothing
  @test Zygote.gradient(a -> sum(zeros(size(a))), randn(7))[1] isa Nothing
  @test Zygote.gradient(a -> sum(zero(a)), randn(3))[1] isa Nothing
end

@testset "fma and muladd" begin
  @test gradcheck(v -> fma(v[1], v[2], v[3]), [2.0, 3.0, 5.0])
  @test gradcheck(v -> muladd(v[1], v[2], v[3]), [2.0, 3.0, 5.0])
end

# "xlogx" ... "logsumexp": left out (LogExpFunctions.jl)

@testset "* sizing" begin
  @test size(Zygote.gradient((a, b) -> sum(a * b), randn(1, 1), randn(1, 10))[1]) == (1, 1)
  @test size(Zygote.gradient((a, b) -> sum(a * b), randn(1, 1), randn(1, 10))[2]) == (1, 10)
end

function refs_then_deref(v)
  refs = Ref.(v)
  getindex.(refs)
end

@testset "broadcast" begin
  # Zygote PR #1001: a structured (Diagonal) argument
  @test gradient(a -> sum(sin.(a)), Diagonal([0, pi / 2, pi]))[1] ≈ [1 0 0; 0 0 0; 0 0 -1]

  av = rand(3)
  bm = rand(2, 2)
  @test gradcheck(m -> sum(sum(diag.((m,) .* av))), bm)
  @test gradcheck(m -> sum(sum(diag.(Ref(m) .* av))), bm)
  @test gradcheck(m -> sum(sum(diag.([m] .* av))), bm)

  # issue #724
  m1 = rand(3, 3)
  @test gradient(a -> sum(a .== 0.5), m1)[1] === nothing
  @test gradient(a -> sum(a .* (a .== maximum(a, dims = 1))), m1)[1] == (m1 .== maximum(m1, dims = 1))

  # un-broadcasting * and / through scalar rules
  @test all(gradient((a, b) -> sum(a .* b), [1, 2], 5) .≈ ([5, 5], 3))
  @test all(gradient((a, b) -> sum(a .* b), 5, [1, 2]) .≈ (3, [5, 5]))
  @test all(gradient((a, b) -> sum(a .* b), [1, 2], [3 4 5]) .≈ ([12, 12], [3 3 3]))
  @test all(gradient((a, b) -> sum(a ./ b), [1, 2], 5) .≈ ([0.2, 0.2], -0.12))

  # PR #1171: sparse arguments
  sm = sprand(5, 5, 0.5)
  @test gradient(a -> sum(abs2, Float32.(a)), sm)[1] ≈ gradient(a -> sum(abs2, a), Matrix{Float32}(sm))[1]
  @test gradient(a -> real(sum(ComplexF32.(a) .+ 1 .+ im)), sm)[1] isa SparseMatrixCSC{Float64}

  # issue #1178
  @test gradient(sum ∘ refs_then_deref, ones(2)) == ([2.0, 2.0],)
end

function vstack5(v)
  buf = Zygote.Buffer(v, length(v), 5)
  for k = 1:5
    buf[:, k] = v
  end
  return copy(buf)
end

function buffer_of_arrays(W1, W2, x)
  b = Zygote.Buffer([])
  push!(b, W1 * x)
  push!(b, W2 * x)
  return sum(vcat(copy(b)...))
end

@testset "Buffer" begin
  @test gradient([1, 2, 3]) do v
    b = Zygote.Buffer(v)
    b[:] = v
    return sum(copy(b))
  end == ([1, 1, 1],)

  @test gradient(v -> sum(vstack5(v)), [1, 2, 3]) == ([5, 5, 5],)

  buf = Zygote.Buffer([1, 2, 3])
  buf[1] = 1
  copy(buf)
  @test_throws ErrorException buf[1] = 1
  @test eltype(buf) === Int
  @test length(buf) === 3
  @test ndims(buf) === 1
  @test size(buf) === (3,)
  @test size(buf, 2) === 1
  @test axes(buf) == (1:3,)
  @test axes(buf, 2) == 1:1
  @test eachindex(buf) == 1:3
  @test stride(buf, 2) === 3
  @test strides(buf) === (1,)
  @test collect(buf) == collect(copy(buf))

  @test gradient([1, 2, 3]) do v
    b = Zygote.Buffer(v)
    b .= v .* 2
    return sum(copy(b))
  end == ([2, 2, 2],)

  @test gradient([1, 2, 3]) do v
    b = Zygote.Buffer(v)
    b .= 2
    return sum(copy(b))
  end == (nothing,)

  @test (gradient(1.1) do p
    b = Zygote.Buffer(zeros(3))
    b .= (p * k for k in eachindex(b))
    return sum(copy(b) .* (2:4))
  end)[1] ≈ 1 * 2 + 2 * 3 + 3 * 4

  @test (gradient(1.1) do p
    b = Zygote.Buffer(zeros(3))
    copyto!(b, [p * k for k in eachindex(b)])
    return sum(copy(b) .* (2:4))
  end)[1] ≈ 1 * 2 + 2 * 3 + 3 * 4

  @test (gradient(1.1) do p
    b = Zygote.Buffer(zeros(3))
    copyto!(b, (p * k for k in eachindex(b)))
    return sum(copy(b) .* (2:4))
  end)[1] ≈ 1 * 2 + 2 * 3 + 3 * 4

  @test gradient(2) do s
    b = Zygote.Buffer([])
    push!(b, s)
    push!(b, 3)
    prod(copy(b))
  end == (3,)

  # Buffer widening in the backward pass (#1349)
  @test Zygote.hessian(1.0) do a
    bf = Zygote.Buffer([0, 0])
    bf[:] = [1, 2]
    sum(a^2 .* copy(bf))
  end == 6
  @test Zygote.hessian(1.0) do a
    bf = Zygote.Buffer([0, 0])
    bf[1] = 1
    a^2 * bf[1]
  end == 2

  # a Buffer holding arrays
  W1 = ones(3, 3)
  W2 = ones(3, 3)
  xc = ones(3, 1)
  gW1, gW2, gx = gradient((p, q, r) -> buffer_of_arrays(p, q, r), W1, W2, xc)
  @test gW1 == W1
  @test gW2 == W2
  @test gx == 6 .* xc

  # reduced example of #1352
  @test Zygote.gradient([0, 0]) do v
    bf = Zygote.Buffer(similar(v))
    bf[:] = v
    sum(copy(bf[1:2]))
  end == ([1, 1],)
end

@testset "AbstractArray Addition / Subtraction / Negation" begin
  rng, m, n, p = MersenneTwister(123567), 3, 7, 11
  A, B = randn(rng, m, n, p), randn(rng, m, n, p)
  @test gradtest(+, A, B)
  @test gradtest(-, A, B)
  @test gradtest(-, A)
end

# "AbstractFFTs": left out (FFTW);  "FillArrays": left out (FillArrays.jl)

@testset "@nograd" begin
  @test gradient(s -> eachindex([10, 20, 30])[1], 11) == (nothing,)

  # rules that ChainRules defines
  @test gradient(v -> findfirst(ismissing, v), [1, missing]) == (nothing,)
  @test gradient(v -> findlast(ismissing, v), [1, missing]) == (nothing,)
  @test gradient(v -> findall(ismissing, v)[1], [1, missing]) == (nothing,)
end

@testset "fastmath" begin
  @test gradient(t -> begin @fastmath sin(t) end, 1) == gradient(t -> sin(t), 1)
  @test gradient(t -> begin @fastmath tanh(t) end, 1) == gradient(t -> tanh(t), 1)
  @test gradient((a, b) -> begin @fastmath a * b end, 3, 2) == gradient((a, b) -> a * b, 3, 2)
  @test gradient(z -> begin @fastmath real(log(z)) end, 1 + 2im) == gradient(z -> real(log(z)), 1 + 2im)
end

@testset "UniformScaling to Matrix" begin
  @test gradient(v -> (Matrix(I, 2, 2); 1.0), [1.0]) == (nothing,)
  @test gradient(v -> (Matrix(I, (2, 2)); 1.0), [1.0]) == (nothing,)
  @test gradient(v -> (Matrix{Float64}(I, 2, 2); 1.0), [1.0]) == (nothing,)
  @test gradient(v -> (Matrix{Float64}(I, (2, 2)); 1.0), [1.0]) == (nothing,)

  @test gradient(v -> sum(Matrix(v[1] * I, 2, 2)), [1.0]) == ([2.0],)
  @test gradient(v -> sum(Matrix(v[1] * I, (2, 2))), [1.0]) == ([2.0],)
  @test gradient(v -> sum(Matrix{Float64}(v[1] * I, 2, 2)), [1.0]) == ([2.0],)
  @test gradient(v -> sum(Matrix{Float64}(v[1] * I, (2, 2))), [1.0]) == ([2.0],)

  # the forward pass is unchanged
  @test first(Zygote.pullback(s -> Matrix(s * I, 2, 2), 8.0)) == Matrix(8.0 * I, 2, 2)
end

@testset "random" begin
  @test gradient(s -> rand(), 1) == (nothing,)
  @test gradient(s -> sum(rand(4)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randn(Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randn(Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Float32, (1, 1))), 1) == (nothing,)

  @test gradient(s -> sum(rand(Random.GLOBAL_RNG, 4)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Random.GLOBAL_RNG, Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Random.GLOBAL_RNG, Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randn(Random.GLOBAL_RNG, Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randn(Random.GLOBAL_RNG, Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Random.GLOBAL_RNG, Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Random.GLOBAL_RNG, Float32, (1, 1))), 1) == (nothing,)

  @test gradient(s -> sum(rand(Random.default_rng(), 4)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Random.default_rng(), Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(rand(Random.default_rng(), Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randn(Random.default_rng(), Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randn(Random.default_rng(), Float32, (1, 1))), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Random.default_rng(), Float32, 1, 1)), 1) == (nothing,)
  @test gradient(s -> sum(randexp(Random.default_rng(), Float32, (1, 1))), 1) == (nothing,)
end

# upstream: @testset "broadcasted($op, Array, Bool)" for op in (+,-,*)
@testset "broadcasted(op, Array, Bool)" begin
  for op in (+, -, *)
    @testset "with $flag and sizes $sz" for sz in ((4,), (2, 3)), flag in (true, false)
      r = rand(Int8, sz) .+ 0.0
      z = fill(flag, sz) .+ 0.0

      @testset "Explicit" begin
        val(args...) = pullback((a, b) -> sum(op.(a, b)), args...)[1]
        grd(args...) = gradient((a, b) -> sum(op.(a, b)), args...)

        @test val(r, z) == val(r, flag)
        @test grd(r, flag) == (grd(r, z)[1], nothing)

        @test val(z, r) == val(flag, r)
        @test grd(flag, r) == (nothing, grd(z, r)[2])
      end

      @testset "Implicit" begin
        igrd(args...) = gradient(() -> sum(op.(args...)), Params(filter(a -> a isa Array, collect(args))))

        g = igrd(r, z)
        gres = igrd(r, flag)
        @test gres[r] == g[r]

        g = igrd(z, r)
        gres = igrd(flag, r)
        @test gres[r] == g[r]
      end
    end
  end
end

@testset "norm" begin
  # the element type is not promoted (issue #663)
  @test gradient(norm, randn(Float32, 2, 2)) isa Tuple{Matrix{Float32}}
  @test gradient(norm, randn(Float32, 2, 2), 3) isa Tuple{Matrix{Float32}, Float64}
  @test gradient(norm, randn(Float32, 2, 2), 3f0) isa Tuple{Matrix{Float32}, Float32}
  @test gradient(norm, randn(ComplexF32, 2, 2), 3.5f0) isa Tuple{Matrix{ComplexF32}, Float32}

  # these must not throw (issue #331)
  gradient(s -> norm(s * [1, 1]), 1.23)
  gradient(s -> norm(s * [1 1]), 1.23)
  gradient(s -> norm(s * [1im, 1]), 1.23)
  gradient(s -> norm(s * [1im 1]), 1.23)
end

@testset "zip & Iterators.product" begin
  # after issue #221
  dd = rand(7)
  @test gradient(rand(11)) do s
    total = 0
    for (a, b) in zip(s, dd)
      total += 13a + 17b
    end
    total
  end == ([13, 13, 13, 13, 13, 13, 13, 0, 0, 0, 0],)

  @test gradient([1, 2, 3, 4], [1 2; 3 4]) do u, w   # shapes differ
    total = 0
    for (a, b) in zip(u, w)
      total += a * b
    end
    total
  end == ([1, 3, 2, 4], [1 3; 2 4])

  @test gradient((1, 2, 3), [1 2; 3 4]) do u, w      # lengths differ, and a tuple
    total = 0
    for (a, b) in zip(u, w)
      total += a * b
    end
    total
  end == ((1, 3, 2), [1 3; 2 0])

  # enumerate (a NamedTuple adjoint)
  @test gradient([2, 3, 4]) do v
    total = 0
    for (k, t) in enumerate(v)
      total += t^k
    end
    total
  end == ([1, 6, 3 * 4^2],)

  # Iterators.product
  @test gradient([3, 4, 5], [6, 7, 8]) do u, w
    total = 0
    for (a, b) in Iterators.product(u, w)
      total += a^2 + 10b
    end
    total
  end == ([18, 24, 30], [30, 30, 30])

  @test gradient([3, 4], [1, 2, 3]) do u, w
    total = 0
    for pr in Iterators.product(u, w)
      total += *(pr...)
    end
    total
  end == ([6, 6], [7, 7, 7])

  @test gradient(M -> sum([M[i, j] for i in 1:3, j in 1:3]), ones(3, 3)) == (ones(3, 3),)
end

@testset "Unused comprehension" begin
  # issue #804
  # the comprehension is used
  io = IOBuffer()
  acc = 0.0
  gs = gradient([1.0, 2.0]) do v
    sum([(print(io, t); acc += t; acc * t) for t in v])
  end
  @test String(take!(io)) == "1.02.0"
  @test acc == 3.0
  @test gs == ([4.0, 5.0],)

  # the comprehension is not used
  io = IOBuffer()
  acc = 0.0
  gs = gradient([1.0, 2.0]) do v
    sum([(print(io, t); acc += t; acc * t) for t in v])
    0.0
  end
  @test String(take!(io)) == "1.02.0"
  @test acc == 3.0
  @test gs == (nothing,)

  # the comprehension is empty and not used
  io = IOBuffer()
  acc = 0.0
  gs = gradient([]) do v
    [(print(io, t); acc += t; acc * t) for t in v]
    0.0
  end
  @test String(take!(io)) == ""
  @test acc == 0.0
  @test gs == (nothing,)
end

@testset "Fix1 and Fix2" begin
  @test gradcheck(v -> prod(Base.Fix1(+, 1), v), randn(100))
  @test gradcheck(v -> prod(Base.Fix2(+, 1), v), randn(100))
end

@testset "gradcheck: broadcast rand.()" begin
  # issue #996
  v3 = rand(3)
  @test Zygote.gradient(v -> sum(v .+ rand.()), v3) == (ones(3),)
end

function example660(x, N)
  ax = axes(x)
  extra = ax[2+N:end]
  ones_at = fill(1, N)
  return x[:, ones_at..., extra...]
end

@testset "Zygote 660" begin
  y, back = pullback(example660, randn(5, 3, 4, 3), 2)
  # (upstream passes `zero(y) .= 1` inline; Zyla cannot parse `.=` as an argument)
  dy = zero(y)
  dy .= 1
  @test back(dy) isa Tuple{Array{Float64, 4}, Nothing}
end

@testset "CRC issue 440" begin
  sum_vecs(a, b) = sum(sum, [[a[k], b[k]] for k = 1:length(a)])
  sum_tups(a, b) = sum(sum, [(a[k], b[k]) for k = 1:length(a)])
  @test gradient(sum_vecs, rand(3), rand(3)) == ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
  @test gradient(sum_tups, rand(3), rand(3)) == ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
end

# set-up for "CR issue 537" (upstream defines these inside the testset; `Base.:*` is
# spelled with `import Base: *`, and the Zygote.@adjoint of the constructor is kept)
struct BV{F, T}
  A::F
  α::T
end
import Base: *
function *(c, km::BV)
  new_A = c * km.A
  other_params = getfield.([km], propertynames(km))[2:end]
  BV(new_A, other_params...)
end
function (bv::BV)(V_app, ox::Bool; kT::Real = 0.026)
  local exp_arg
  if ox
    exp_arg = (bv.α .* V_app) ./ kT
  else
    exp_arg = -((1 .- bv.α) .* V_app) ./ kT
  end
  bv.A .* exp.(exp_arg)
end
Zygote.@adjoint function BV{T, S}(A, α) where {T, S}
  BV(A, α), Δ -> begin
    (Δ.A, Δ.α)
  end
end

@testset "CR issue 537" begin
  bv = BV(1.0, 0.1)
  I_vals, V = rand(81), rand(81)

  g2 = gradient(V, bv) do V, bv
    res = fill(bv, length(V))
    r1 = map((m, v) -> m(v, true), res, V)
    r2 = map((m, v) -> m(v, false), res, V)
    sum(r1 .- r2)
  end
  @test size(g2[1]) == size(V)
  @test g2[2] isa NamedTuple
  @test g2[2].A isa Number

  g1 = gradient(bv, V) do bv, V
    res = map(t -> t * bv, V)
    sum(t -> t.A, res)
  end
  @test g1[1] isa NamedTuple
  @test g1[1].A isa Number
  @test size(g1[2]) == size(V)
end

@testset "Zygote #1162" begin
  sq2(a, b) = [a^2, b^2]
  function pick_second(as, bs)
    results = [sq2(a, b) for (a, b) in zip(as, bs)]
    return results[2][1] + results[2][2]
  end
  as = (1.0, 2.0, 3.0)
  bs = (4.0, 5.0, 6.0)
  g = Zygote.gradient(pick_second, as, bs)
  @test g == ((nothing, 2 * as[2], nothing), (nothing, 2 * bs[2], nothing))
end

@testset "Zygote #1184" begin
  n, d = 3, 2
  vs = [randn(d) for _ in 1:n]
  fsin = sin
  sums(v) = sum.((fsin,), v)
  sumsq(v) = sum(abs2, sums(v))
  @test gradient(sumsq, vs)[1] isa typeof(vs)
end

function mean_iteration(z::Float64)
  a = 1.0
  b = 1.0 + z
  while abs(a - b) > 1e-6
    b, a = (a + b) / 2, b
  end
  return b
end

@testset "Zygote #796" begin
  @test gradcheck(mean_iteration ∘ first, [0.0])
  @test gradcheck(mean_iteration ∘ first, [2.0])
  @test gradcheck(mean_iteration ∘ first, [-1e-5])
  @test gradient(mean_iteration, 1024.0)[1] ≈ 2 // 3
end

@testset "Zygote #1399" begin
  function e1(t)
    r = 5.0
    sum(@. exp(-t * r))
  end
  @test gradient(e1, [1.0, 0.2])[1] ≈ [-0.03368973499542734, -1.8393972058572117]

  e2(t) = sum(@. exp(-t * 5))
  @test gradient(e2, [1.0, 0.2])[1] ≈ [-0.03368973499542734, -1.8393972058572117]

  function e3(t)
    r = 1.0
    sum(@. exp(-t * r * 5))
  end
  @test gradient(e3, [1.0, 0.2])[1] ≈ [-0.03368973499542734, -1.8393972058572117]

  # four arguments
  function e4(t)
    r = -0.5
    sum(@. exp(t * r * 5 * 2))
  end
  @test gradient(e4, [1.0, 0.2])[1] ≈ [-0.03368973499542734, -1.8393972058572117]

  # trivial scalar broadcasts
  @test gradient(t -> @.(t * t * t), 2.0) == gradient(t -> t * (t * t), 2.0)
  @test gradient(t -> @.(3.0 * t * 2.0 * t), 2.0) == gradient(t -> 6(t^2), 2.0)
end
