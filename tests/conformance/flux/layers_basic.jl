# Facts from FluxML/Flux.jl test/layers/basic.jl (ported for Zyla's conformance suite).
# Upstream wraps most of the file in one `@testset "basic"`; its children are ported here
# as top-level testsets named "basic: <child>" so that one failure does not hide the rest.
using Flux, Test
using Flux: OneHotArray, OneHotMatrix, OneHotVector, onehotbatch, withgradient, pullback
using Functors: fmap
using Statistics
using Zygote: Zygote
using GradCheck

# upstream's `test_gradients(model, x)` compares Zygote with finite differences of the
# f64 model on the loss `mean(model(x))`; here that is GradCheck's finite-difference check.
fd_agrees(model, xs...) = gradcheck((m, a...) -> mean(m(a...)), f64(model), xs...)

# set-up for "basic: Parallel" / "Input domain" (upstream defines these inside the testset)
struct WrappedInput
  x
end

struct MulLayer
  x
end
(l::MulLayer)(x) = l.x * x
# Upstream extends `Base.:*(a::AbstractArray, b::Input) = a * b.x`; Zyla's parser rejects
# the `Base.:*` form (a ParseError would void the whole file), so the layer unwraps instead.
(l::MulLayer)(x::WrappedInput) = l.x * x.x

@testset "basic: helpers" begin
  @testset "activations" begin
    toy = Chain(v -> v .^ 2, v -> v .- 3, v -> tan.(v))
    inp = randn(10)
    @test Flux.activations(toy, inp)[1] == inp .^ 2
    @test Flux.activations(toy, inp)[2] == (inp .^ 2 .- 3)
    @test Flux.activations(toy, inp)[3] == tan.(inp .^ 2 .- 3)

    @test Flux.activations(Chain(), inp) == ()
    @test Flux.activations(Chain(identity, v -> :foo), inp)[2] == :foo
  end
end

@testset "basic: Chain" begin
  @test_nowarn Chain(Dense(10 => 5, σ), Dense(5 => 2))(randn32(10))
  @test_throws DimensionMismatch Chain(Dense(10 => 5, σ), Dense(2 => 1))(randn32(10))

  @test_nowarn Chain(first = Dense(10 => 5, σ), second = Dense(5 => 2))(randn32(10))
  named = Chain(first = Dense(10 => 5, σ), second = Dense(5 => 2))
  @test named[:first] == named[1]
  @test named[1:2] == named
  @test named == named
  @test named == fmap(identity, named)

  # `layers` is a reserved name
  @test_throws ArgumentError Chain(layers = Dense(10 => 10), two = identity)

  @test_nowarn Chain([Dense(10 => 5, σ), Dense(5 => 2)])(randn(Float32, 10))

  three = Chain(Dense(10 => 5, σ), Dense(5 => 2), Dense(2 => 1, relu))
  @test three[1] == three[begin]
  @test three[3] == three[end]

  # several arguments are passed on as a tuple
  @test Chain(identity)(1, 2, 3) == (1, 2, 3)
end

@testset "basic: Activations" begin
  net = Chain(Dense(3 => 5, relu), Dense(5 => 1, relu))
  X = Float32.([1.0; 1.0; 1.0])
  @test_nowarn gradient(c -> Flux.activations(c, X)[2][1], net)

  named = Chain(enc = net[1], dec = net[2])
  @test Flux.activations(net, X) == Flux.activations(named, X)
  @test_nowarn gradient(c -> Flux.activations(c, X)[2][1], named)
end

@testset "basic: Dense" begin
  @testset "constructors" begin
    @test size(Dense(10 => 100).weight) == (100, 10)
    @test size(Dense(10 => 100).bias) == (100,)
    @test Dense(rand(100, 10), rand(100)).σ == identity
    @test Dense(rand(100, 10)).σ == identity

    @test Dense(rand(100, 10), false).σ == identity
    @test Dense(rand(100, 10), false, tanh).σ == tanh
    @test Dense(rand(100, 10), rand(100)).σ == identity
    @test Dense(rand(Float16, 100, 10), true).bias isa Vector{Float16}
    @test Dense(rand(Float16, 100, 10), rand(100)).bias isa Vector{Float16}

    @test Dense(3 => 4; init = Base.randn, bias = true).bias isa Vector{Float64}
    @test Dense(3 => 4; init = Base.randn, bias = [1, 2, 3, 4]).bias isa Vector{Float64}

    @test_throws MethodError Dense(10 => 10.5)
    @test_throws MethodError Dense(10 => 10.5, tanh)
    @test_throws DimensionMismatch Dense(3 => 4; bias = rand(5))
    @test_throws DimensionMismatch Dense(rand(4, 3), rand(5))
    @test_throws MethodError Dense(rand(5))
    @test_throws MethodError Dense(rand(5), rand(5))
    @test_throws MethodError Dense(rand(5), rand(5), tanh)
  end
  @testset "dimensions" begin
    @test length(Dense(10 => 5)(randn32(10))) == 5
    @test_throws DimensionMismatch Dense(10 => 5)(randn32(1))
    @test_throws MethodError Dense(10 => 5)(1)
    @test_throws MethodError Dense(10 => 5).(randn32(10))
    @test size(Dense(10 => 5)(randn(10))) == (5,)
    @test size(Dense(10 => 5)(randn(10, 2))) == (5, 2)
    @test size(Dense(10 => 5)(randn(10, 2, 3))) == (5, 2, 3)
    @test size(Dense(10 => 5)(randn(10, 2, 3, 4))) == (5, 2, 3, 4)
    @test_throws DimensionMismatch Dense(10 => 5)(randn(11, 2, 3))
  end
  @testset "zeros" begin
    @test Dense(10 => 1, identity, init = ones)(ones(10, 1)) == 10 * ones(1, 1)
    @test Dense(10 => 1, identity, init = ones)(ones(10, 2)) == 10 * ones(1, 2)
    @test Dense(10 => 2, identity, init = ones)(ones(10, 1)) == 10 * ones(2, 1)
    @test Dense(10 => 2, identity, init = ones)([ones(10, 1) 2 * ones(10, 1)]) == [10 20; 10 20]
    @test Dense(10 => 2, identity, init = ones, bias = false)([ones(10, 1) 2 * ones(10, 1)]) == [10 20; 10 20]
  end
  @testset "type matching" begin
    withb = Dense(2 => 3)
    nob = Dense(withb.weight, false)
    a32 = randn(Float32, 2, 4)
    @test withb(a32) ≈ nob(a32) ≈ withb.weight * a32
    a64 = Float64.(a32)
    @test withb(a64) ≈ nob(a64) ≈ withb.weight * a64
    @test withb(a64) isa Array{Float32}
    @test nob(a64) isa Array{Float32}

    aint = rand(-5:5, 2, 4)
    @test withb(aint) ≈ nob(aint) ≈ withb.weight * aint
    abool = rand(Bool, 2, 4)
    @test withb(abool) ≈ nob(abool) ≈ withb.weight * abool
    aoh = Flux.onehotbatch(rand(Bool, 5), (true, false))
    @test withb(aoh) ≈ nob(aoh) ≈ withb.weight * aoh
  end
end

@testset "basic: Scale" begin
  @test length(Flux.Scale(10)(randn(10))) == 10
  @test length(Flux.Scale(10)(randn(1))) == 10
  @test length(Flux.Scale(10; bias = false)(randn(10))) == 10
  @test length(Flux.Scale(10, tanh)(randn(10))) == 10
  @test_throws DimensionMismatch Flux.Scale(10)(randn(2))

  @test Flux.Scale(2)([1 2]) == [1 2; 1 2]
  @test Flux.Scale(2)([1, 2]) == [1, 2]
  @test Flux.Scale(2; init = randn)([1, 2]) != [1, 2]
  @test Flux.Scale(2; bias = false)([1 2; 3 4]) == [1 2; 3 4]
  @test Flux.Scale(2, abs2; bias = false, init = ones)([1 2; 3 4]) == [1 4; 9 16]

  @test Flux.Scale(2)(rand(2, 3, 4)) |> size == (2, 3, 4)
  @test Flux.Scale(2, 3;)(rand(2, 3, 4)) |> size == (2, 3, 4)
  @test Flux.Scale(2, 3, 4; bias = false)(rand(2, 3, 4)) |> size == (2, 3, 4)
  @test Flux.Scale(2, 3; bias = false)(rand(2, 1, 4)) |> size == (2, 3, 4)
  @test Flux.Scale(2, 3, tanh; bias = false, init = zeros)(rand(2, 1, 4)) == zeros(2, 3, 4)

  @test_throws MethodError Flux.Scale(1.0)
  @test_throws MethodError Flux.Scale(1.0, 2.0)
  @test_throws Exception Flux.Scale()
  @test_throws MethodError Flux.Scale(sin)
end

@testset "basic: Maxout" begin
  @testset "Constructor" begin
    layer = Maxout(() -> identity, 4)
    inp = rand(40)
    @test layer(inp) == inp
  end

  @testset "simple alternatives" begin
    layer = Maxout(v -> v, v -> 2v, v -> 0.5v)
    inp = rand(40)
    @test layer(inp) == 2 * inp
  end

  @testset "complex alternatives" begin
    layer = Maxout(v -> [0.5; 0.1] * v, v -> [0.2; 0.7] * v)
    inp = [3.0 2.0]
    want = [0.5, 0.7] .* inp
    @test layer(inp) == want
  end

  @testset "trainables" begin
    layer = Maxout(() -> Dense(32 => 64), 4)
    ps = Flux.trainables(layer)
    @test length(ps) == 8  # 4 alternatives, each a weight and a bias
  end
end

@testset "basic: SkipConnection" begin
  @testset "zero sum" begin
    inp = randn(10, 10, 10, 10)
    @test SkipConnection(v -> zeros(size(v)), (a, b) -> a + b)(inp) == inp
  end

  @testset "concat size" begin
    inp = randn(10, 2)
    @test size(SkipConnection(Dense(10 => 10), (a, b) -> cat(a, b, dims = 2))(inp)) == (10, 4)
  end
end

@testset "basic: Bilinear" begin
  @testset "SkipConnection recombinator" begin
    dn = Dense(10 => 10)
    bl = Flux.Bilinear(10, 10, 5)
    inp = randn(Float32, 10, 9)
    sk = SkipConnection(dn, bl)
    @test size(sk(inp)) == (5, 9)
  end

  @testset "Two-streams zero sum" begin
    a = zeros(Float32, 10, 9)
    b = zeros(Float32, 2, 9)
    bl = Flux.Bilinear(10, 2, 3)
    @test size(bl(a, b)) == (3, 9)
    @test sum(abs2, bl(a, b)) == 0f0
  end

  @testset "Inner interactions" begin
    inp = randn(Float32, 11, 7)
    bl = Flux.Bilinear(11, 11, 3)
    @test size(bl(inp)) == (3, 7)
    @test fd_agrees(bl, f64(inp))  # upstream: test_gradients(b, x)
  end

  @testset "constructors" begin
    first_b = Flux.Bilinear(randn(3, 4, 5))
    @test first_b.bias isa Vector{Float64}
    @test first_b.σ == identity

    nobias = Flux.Bilinear(randn(3, 4, 5), false)
    @test nobias.bias === false

    half = Flux.Bilinear(randn(Float16, 3, 4, 5), true, tanh)
    @test half.σ == tanh
    @test half.bias isa Vector{Float16}
    @test size(half(rand(4), rand(5))) == (3,)

    # upstream's `@test_skip` of Bilinear(3,3,7; bias=1:7, init=Flux.zeros32).bias isa
    # Vector{Float32} is not run by Julia either: left out.

    @test_throws ArgumentError Flux.Bilinear(rand(3))
    @test_throws ArgumentError Flux.Bilinear(rand(3, 4), false, tanh)
    @test_throws DimensionMismatch Flux.Bilinear(rand(3, 4, 5), rand(6), tanh)
  end
end

@testset "basic: Parallel" begin
  @testset "zero sum" begin
    inp = randn(10, 10, 10, 10)
    @test Parallel(+, v -> zeros(size(v)), identity)(inp) == inp
  end

  @testset "concat size" begin
    inp = randn32(10, 2)
    @test size(Parallel((a, b) -> cat(a, b; dims = 2), Dense(10 => 10), identity)(inp)) == (10, 4)
    @test size(Parallel(hcat, one = Dense(10 => 10), two = identity)(inp)) == (10, 4)
  end

  @testset "vararg input" begin
    ins = randn32(10), randn32(5), randn32(4)
    @test size(Parallel(+, Dense(10 => 2), Dense(5 => 2), Dense(4 => 2))(ins)) == (2,)
    # upstream writes `Parallel(+; a = ...)` and `Parallel(/; f = abs)`: Zyla cannot parse an
    # operator right before `;`, so the keywords follow a comma here (the same call in Julia)
    @test size(Parallel(+, a = Dense(10 => 2), b = Dense(5 => 2), c = Dense(4 => 2))(ins)) == (2,)
    @test_throws ArgumentError Parallel(+, sin, cos)(1, 2, 3)  # 3 inputs for 2 layers
    @test Parallel(+, sin, cos)(pi / 2) ≈ 1   # one input fed to all layers
    @test Parallel(/, abs)(3, -4) ≈ 3 / 4     # one layer applied to all inputs
    @test Parallel(/, abs)((3, -4)) ≈ 3 / 4
    @test Parallel(/, f = abs)(3, -4) ≈ 3 / 4
  end

  @testset "named access" begin
    par = Parallel(hcat, one = Dense(10 => 10), two = identity)
    @test par[1] == par[:one]
    @test par[1:2] == par

    @test_throws ArgumentError Parallel(hcat, layers = Dense(10 => 10), two = identity)
    @test_throws ArgumentError Parallel(hcat, connection = Dense(10 => 10), two = identity)

    @test par == fmap(identity, par)

    @test Parallel(vcat, x = log)(1) == [0]
    @test Parallel(vcat, log)(1) == [0]
  end

  @testset "trivial cases" begin
    # no inputs: always an error
    @test_throws ArgumentError Parallel(hcat)()
    @test_throws ArgumentError Parallel(hcat, inv)()
    @test_throws ArgumentError Parallel(hcat, inv, sqrt)()
    # no layers: an error too
    @test_throws ArgumentError Parallel(hcat)
  end

  @testset "connection is called once" begin
    calls = Ref(0)
    counting = (xs...) -> (calls[] += 1; +(xs...))
    Parallel(counting, sin, cos, tan)(1)
    @test calls[] == 1
    Parallel(counting, sin, cos, tan)(1, 2, 3)
    @test calls[] == 2
    Parallel(counting, sin)(1)
    @test calls[] == 3
    Parallel(counting, sin)(1, 2, 3)
    @test calls[] == 4
  end

  # Flux issue #1673
  @testset "Input domain" begin
    par = Parallel(+, MulLayer(rand(Float32, 3, 3)), MulLayer(rand(Float32, 3, 3)))
    in1 = WrappedInput(rand(Float32, 3, 3))
    in2 = WrappedInput(rand(Float32, 3, 3))

    @test par(in1) ≈ par.layers[1](in1.x) + par.layers[2](in1.x)
    @test par(in1, in2) ≈ par.layers[1](in1.x) + par.layers[2](in2.x)
    gs = gradient((p, xs...) -> sum(p(xs...)), par, in1, in2)
    gs_ref = gradient(par, in1, in2) do p, a, b
      sum(p.layers[1](a.x) + p.layers[2](b.x))
    end

    for (ga, gb) in zip(gs[1].layers, gs_ref[1].layers)
      @test ga.x ≈ gb.x
    end
    @test gs[2].x ≈ gs_ref[2].x
    @test gs[3].x ≈ gs_ref[3].x
  end
end

@testset "basic: Embedding" begin
  nvocab, nembed = 10, 4
  emb = Embedding(nvocab, nembed)
  @test size(emb.weight) == (nembed, nvocab)

  # a single index
  @test emb(1) isa Vector{Float32}
  @test emb(2) ≈ emb.weight[:, 2]
  @test emb(OneHotVector(3, nvocab)) ≈ emb.weight[:, 3]
  @test_throws DimensionMismatch emb(OneHotVector(3, 1000))
  @test emb(4) ≈ emb((1:nvocab) .== 4)

  # a batch of indices
  idx = rand(1:nvocab, 3)
  out = emb(idx)
  @test out isa Matrix{Float32}
  @test out ≈ emb.weight[:, idx]
  ohm = OneHotMatrix(idx, nvocab)
  out2 = emb(ohm)
  @test out2 isa Matrix{Float32}
  @test out2 ≈ out
  @test_throws DimensionMismatch emb(OneHotMatrix(idx, 1000))
  @test out ≈ emb(idx' .== (1:nvocab))

  # higher-dimensional index arrays
  idx3 = rand(1:nvocab, 3, 4)
  out3 = emb(idx3)
  @test out3 isa Array{Float32,3}
  @test size(out3) == (nembed, 3, 4)
  oh3 = Flux.onehotbatch(idx3, 1:1:nvocab)
  @test size(oh3) == (nvocab, 3, 4)
  out3b = emb(oh3)
  @test size(out3b) == (nembed, 3, 4)

  @testset "padding_idx" begin
    pad = 2
    pe = Embedding(nvocab => nembed, padding_idx = pad)
    @test pe.padding_idx == pad
    @test all(pe.weight[:, pad] .== 0)
    @test occursin("padding_idx=$pad", repr(pe))
    @test_throws ArgumentError Embedding(nvocab => nembed, padding_idx = 0)
    @test_throws ArgumentError Embedding(nvocab => nembed, padding_idx = nvocab + 1)

    # the padding embedding is zero whatever form the input takes
    @test all(pe(pad) .== 0)
    seq = [1, pad, 3, pad, 4]
    res = pe(seq)
    @test all(res[:, [2, 4]] .== 0)
    @test res ≈ pe(Flux.onehotbatch(seq, 1:nvocab))
    @test all(pe(OneHotVector(pad, nvocab)) .== 0)
    grid = [1 pad; 3 pad]
    @test all(pe(grid)[:, 1, 2] .== 0) && all(pe(grid)[:, 2, 2] .== 0)

    # the gradient of the padding column is masked; the other columns match an unpadded copy
    plain = Embedding(copy(pe.weight))
    keep = setdiff(1:nvocab, pad)
    for input in (seq, Flux.onehotbatch(seq, 1:nvocab))
      gp = gradient(m -> sum(m(input)), pe)[1].weight
      g0 = gradient(m -> sum(m(input)), plain)[1].weight
      @test all(gp[:, pad] .== 0)
      @test any(g0[:, pad] .!= 0)
      @test gp[:, keep] == g0[:, keep]
    end
    @test all(gradient(m -> sum(m(pad)), pe)[1].weight .== 0)

    # upstream: test_gradients(m, x) with both input forms
    @test fd_agrees(pe, seq)
    @test fd_agrees(pe, Flux.onehotbatch(seq, 1:nvocab))

    # training leaves the padding column at zero
    state = Flux.setup(Adam(0.1), pe)
    Flux.train!((m, a) -> sum(abs2, m(a) .- 1), pe, [(seq,) for _ in 1:5], state)
    @test all(pe.weight[:, pad] .== 0)
  end
end

@testset "basic: EmbeddingBag" begin
  # the internal helper _splitat
  vals = [1, 2, 3, 4, 5, 6, 7, 8, 9]
  @test Flux._splitat(vals, [1, 3, 6]) == [[1, 2], [3, 4, 5], [6, 7, 8, 9]]
  @test Flux._splitat(vals, [1, 2, 3, 4, 5, 6, 7, 8, 9]) == [[1], [2], [3], [4], [5], [6], [7], [8], [9]]
  @test Flux._splitat(vals, [1]) == [[1, 2, 3, 4, 5, 6, 7, 8, 9]]
  @test Flux._splitat(vals, [1, 9]) == [[1, 2, 3, 4, 5, 6, 7, 8], [9]]

  @test_throws ArgumentError Flux._splitat(vals, [1, 2, 2, 5])   # not strictly increasing
  @test_throws ArgumentError Flux._splitat(vals, [1, 5, 2])      # not sorted
  @test_throws ArgumentError Flux._splitat(vals, [2, 3, 5])      # does not start at 1
  @test_throws ArgumentError Flux._splitat(vals, [1, 5, 11])     # past the end

  @testset for reduction in [sum, Statistics.mean, maximum]
    nvocab, nembed = 10, 4
    bag = Flux.EmbeddingBag(nvocab => nembed, reduction)
    emb = Flux.Embedding(bag.weight)
    @test size(bag.weight) == (nembed, nvocab)
    @test_throws ErrorException bag(2)

    # one bag, given as a vector
    idx = rand(1:nvocab, 3)
    got = bag(idx)
    want = vec(reduction(emb(idx), dims = 2))
    @test got isa Vector{Float32}
    @test got ≈ want

    # PyTorch-style input with offsets
    @test bag([1, 3, 2, 4, 5, 7], [1, 3, 5]) ≈ bag([[1, 3], [2, 4], [5, 7]])
    @test bag([1, 3, 2, 4, 5, 7], [1, 3, 5]) ≈ bag([1 2 5; 3 4 7])
    @test_throws ArgumentError bag([1, 2, 3, 4, 5, 6], [2, 4])
    @test_throws ArgumentError bag([1, 2, 3, 4, 5, 6], [1, 12])

    # the docstring's example
    @test bag([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 5, 6, 8]) ≈ bag([[1, 2, 3, 4], [5], [6, 7], [8, 9, 10]])

    # several bags, as a vector of vectors
    bags = [rand(1:nvocab, 3) for _ in 1:4]
    got = bag(bags)
    want = reduce(hcat, reduction.(emb.(bags), dims = 2))
    @test got isa Matrix{Float32}
    @test got ≈ want

    # several bags, as the columns of a matrix
    mat = rand(1:nvocab, (3, 5))
    cols = collect(eachcol(mat))
    got = bag(mat)
    want = reduce(hcat, reduction.(emb.(cols), dims = 2))
    @test got ≈ bag(cols)
    @test got ≈ want

    # a one-hot matrix is one bag; a one-hot vector is not accepted
    @test_throws ErrorException bag(Flux.OneHotVector(3, nvocab))

    idx2 = rand(1:nvocab, 3)
    ohm = Flux.OneHotMatrix(idx2, nvocab)
    got2 = bag(ohm)
    ref2 = emb(idx2)
    @test got2 isa Vector{Float32}
    @test got2 ≈ vec(reduction(ref2, dims = 2))
    @test_throws DimensionMismatch bag(Flux.OneHotMatrix(1:5, 1000))
  end
end

@testset "second derivatives" begin
  net = Chain(Dense(3 => 4, tanh; bias = false), Dense(4 => 2))
  @test Zygote.hessian_dual(sum ∘ net, [1, 2, 3]) ≈ Zygote.hessian_reverse(sum ∘ net, [1, 2, 3])

  netv = Chain([net[1], net[2]])  # layers held in a Vector
  @test Zygote.hessian_dual(sum ∘ netv, [1, 2, 3]) ≈ Zygote.hessian_dual(sum ∘ net, [1, 2, 3])
  @test Zygote.hessian_dual(sum ∘ netv, [1, 2, 3]) ≈ Zygote.hessian_reverse(sum ∘ netv, [1, 2, 3])

  # NNlib's softmax gradient mutates, so forward-over-reverse is broken upstream
  smnet = Chain(Dense(3 => 4, tanh), Dense(4 => 2), softmax)
  @test_broken Zygote.hessian_dual(sum ∘ smnet, [1, 2, 3]) ≈ Zygote.hessian_reverse(sum ∘ smnet, [1, 2, 3])

  # NNlib issue #362
  convnet = Chain(Conv((3,), 2 => 3, relu), Dense(2 => 2))
  xc = cat(Float32[1 2; 3 4; 5 6; 7 8]; dims = 3)
  @test Zygote.hessian_dual(sum ∘ convnet, xc) ≈ Zygote.hessian_reverse(sum ∘ convnet, xc)
end

@testset "gradients of Chain{Vector}" begin
  tup = Chain(Dense(3 => 4, tanh; bias = false), Dense(4 => 2))
  vecc = Chain([tup[1], tup[2]])
  @test sum(length, Flux.trainables(tup)) == sum(length, Flux.trainables(vecc))

  inp = randn(Float32, 3, 5)
  @test tup(inp) ≈ vecc(inp)

  lab = rand(Bool, 2, 5)
  gt = gradient(m -> Flux.logitcrossentropy(m(inp), lab), tup)[1]
  gv = gradient(m -> Flux.logitcrossentropy(m(inp), lab), vecc)[1]
  # upstream's check_equal_leaves(g1, g1v): every numeric leaf agrees (rtol = atol = 1e-4)
  @test gt.layers[1].weight ≈ gv.layers[1].weight rtol = 1e-4 atol = 1e-4
  @test gt.layers[2].weight ≈ gv.layers[2].weight rtol = 1e-4 atol = 1e-4
  @test gt.layers[2].bias ≈ gv.layers[2].bias rtol = 1e-4 atol = 1e-4

  @test Flux.destructure(tup)[1] ≈ Flux.destructure(vecc)[1]
  flat = rand(22)
  @test Flux.destructure(tup)[2](flat)[1].weight ≈ Flux.destructure(vecc)[2](flat)[1].weight
end

@testset "PairwiseFusion" begin
  inp = (rand(1, 10), rand(30, 10))
  pf = PairwiseFusion(+, Dense(1 => 30), Dense(30 => 10))
  out = pf(inp)
  @test length(out) == 2
  @test size(out[1]) == (30, 10)
  @test size(out[2]) == (10, 10)

  inp = rand(1, 10)
  pf = PairwiseFusion(.+, Dense(1 => 10), Dense(10 => 1))
  out = pf(inp)
  @test length(out) == 2
  @test size(out[1]) == (10, 10)
  @test size(out[2]) == (1, 10)

  @test PairwiseFusion(vcat, v -> v .+ 1, v -> v .+ 2, v -> v .^ 3)(2, 10, 20) == (3, [5, 12], [125, 1728, 8000])
  @test PairwiseFusion(vcat, v -> v .+ 1, v -> v .+ 2, v -> v .^ 3)(7) == (8, [10, 9], [1000, 729, 343])
end
