# Facts from FluxML/Zygote.jl test/features.jl (ported for Zyla's conformance suite).
#
# Left out, with the reason:
#   - in "compiler error": `Zygote.@code_adjoint`, `Zygote._push!`, `Zygote.Stack`
#     (Zygote internals); in "Global Params": `Zygote.Context`, `Zygote._pullback`,
#     `Zygote.cache` (internals) -- the rest of both testsets is kept;
#   - in "accumulation": the `@allocated` bound (allocation counts);
#   - "broadcast fallbacks": only `@inferred` checks of `Base.broadcasted` with an explicit
#     `DefaultArrayStyle` (inference, broadcast internals);
#   - `@test_broken` / `@test_skip` lines (upstream does not assert them).
# Struct definitions and functions with several methods that upstream writes inside a
# testset are set-up at top level here (in Julia, structs are global either way).

using Test
using LinearAlgebra
using Zygote
using Zygote: Params, gradient, forwarddiff
using ChainRulesCore
using GradCheck

# Zygote's gradtest (projection of an array output through sum(sin.(...)))
gradtest(f, xs::AbstractArray...) = gradcheck((ys...) -> sum(sin.(f(ys...))), xs...)
gradtest(f, dims...) = gradtest(f, rand.(Float64, dims)...)

# --- set-up for "gradient checkpointing"
mutable struct CountCalls
  f
  ncalls
end
CountCalls(f = identity) = CountCalls(f, 0)
function (o::CountCalls)(x...)
  o.ncalls += 1
  o.f(x...)
end

@testset "gradient checkpointing" begin
  @testset "checkpointed does not change pullback value" begin
    for case in [
        (f = identity, args = (1.0,), dy = 1.0),
        (f = max, args = (1.0, 2, 3), dy = 1.0),
        (f = sum, args = (cos, [1.0, 2.0]), dy = 1.0),
        (f = *, args = (randn(2, 2), randn(2, 2)), dy = randn(2, 2)),
      ]
      y_ref, pb_ref = Zygote.pullback(case.f, case.args...)
      y_cp, pb_cp = Zygote.pullback(Zygote.checkpointed, case.f, case.args...)
      @test y_cp == y_ref
      @test pb_cp(case.dy) == (nothing, pb_ref(case.dy)...)
    end
  end

  c1 = CountCalls()
  c2 = CountCalls()
  c3 = CountCalls()
  y, pb = Zygote.pullback(c3 ∘ c2 ∘ c1, 4.0)
  @test y === 4.0
  @test c1.ncalls === c2.ncalls === c3.ncalls === 1
  @test pb(1.0) === (1.0,)
  @test c1.ncalls === c2.ncalls === c3.ncalls === 1

  c1 = CountCalls()
  c2 = CountCalls()
  c3 = CountCalls()
  y, pb = Zygote.pullback(Zygote.checkpointed, c3 ∘ c2 ∘ c1, 4.0)
  @test c1.ncalls === c2.ncalls === c3.ncalls === 1
  @test pb(1.0) === (nothing, 1.0)
  @test c1.ncalls === c2.ncalls === c3.ncalls === 2
  @test pb(1.0) === (nothing, 1.0)
  @test c1.ncalls === c2.ncalls === c3.ncalls === 3

  c1 = CountCalls()
  c2 = CountCalls()
  c3 = CountCalls()
  function partly_checkpointed(x)
    x2 = c1(x)
    Zygote.checkpointed(c3 ∘ c2, x2)
  end
  y, pb = Zygote.pullback(partly_checkpointed, 4.0)
  @test c1.ncalls === c2.ncalls === c3.ncalls === 1
  @test pb(1.0) === (1.0,)
  @test c2.ncalls === c3.ncalls === 2
  @test c1.ncalls === 1

  @testset "nested checkpointing" begin
    k1 = CountCalls(sin)
    k2 = CountCalls(cos)
    k3 = CountCalls(max)
    function nested_ckpt(x)
      Zygote.checkpointed() do
        a = k1(x)
        Zygote.checkpointed() do
          b = k2(a)
          Zygote.checkpointed() do
            k3(a, b)
          end
        end
      end
    end
    function nested_plain(x)
      a = k1.f(x)
      b = k2.f(a)
      k3.f(a, b)
    end
    x = randn()
    y, pb = Zygote.pullback(nested_ckpt, x)
    @test k1.ncalls == k2.ncalls == k3.ncalls
    dy = randn()
    pb(dy)
    @test k1.ncalls == 2
    @test k2.ncalls == 3
    @test k3.ncalls == 4
    y_ref, pb_ref = Zygote.pullback(nested_plain, x)
    @test y_ref === y
    @test pb_ref(dy) == pb(dy)
  end
end

# --- set-up for "misc" (one function with three methods, as upstream's local `f`)
struct Bar{T}
  a::T
  b::T
end
fmisc(a, b...) = +(a, b...)
fmisc(args...; a = nothing, kwargs...) = gmisc(a, args...; kwargs...)
gmisc(args...; x = 1, idx = Colon(), kwargs...) = x[idx]
fmisc(x) = throw(DimensionMismatch("fubar"))

# upstream: Zygote.@adjoint (f::typeof(grad_closure))(x) = f(x), Δ -> (1, 2)
grad_closure(x) = 2x
ChainRulesCore.rrule(::typeof(grad_closure), x) = grad_closure(x), Δ -> (1, 2)

invokable(x) = 2x
invokable(x::Integer) = 3x

@testset "misc" begin
  y, back = pullback(identity, 1)
  dx = back(2)
  @test y == 1
  @test dx == (2,)

  mul(a, b) = a * b
  y, back = pullback(mul, 2, 3)
  dx = back(4)
  @test y == 6
  @test dx == (12, 8)

  @test gradient(mul, 2, 3) == (3, 2)
  @test withgradient(mul, 2, 3) == (val = 6, grad = (3, 2))

  bool = true
  b(x) = bool ? 2x : x

  y, back = pullback(b, 3)
  dx = back(4)
  @test y == 6
  @test dx == (8,)

  fglobal = x -> 5x
  gglobal = x -> fglobal(x)
  @test gradient(gglobal, 2) == (5,)

  global bool = false

  y, back = pullback(b, 3)
  dx = back(4)
  @test y == 3
  @test getindex.(dx) == (4,)

  y, back = pullback(v -> sum(v .* v), [1, 2, 3])
  dxs = back(1)
  @test y == 14
  @test dxs == ([2, 4, 6],)

  function pow(x, n)
    r = 1
    while n > 0
      n -= 1
      r *= x
    end
    return r
  end
  @test gradient(pow, 2, 3) == (12, nothing)

  function pow_mut(x, n)
    r = Ref(one(x))
    while n > 0
      n -= 1
      r[] = r[] * x
    end
    return r[]
  end
  @test gradient(pow_mut, 2, 3) == (12, nothing)

  @test gradient(x -> 1, 2) == (nothing,)

  @test gradient(t -> t[1] * t[2], (2, 3)) == ((3, 2),)

  @test gradient(z -> z.re, 2 + 3im) === (1.0 + 0.0im,)                 # one field
  @test gradient(z -> z.re * z.im, 2 + 3im) == (3.0 + 2.0im,)           # two fields
  @test gradient(z -> z.re * z.im + z.re, 2 + 3im) == (4.0 + 2.0im,)    # accumulation

  @test gradient(z -> abs2(z * z.re), 4 + 5im) == (456.0 + 160.0im,)
  @test gradient(z -> abs2(z * real(z)), 4 + 5im) == (456.0 + 160.0im,)
  @test gradient(z -> abs2(z * getfield(z, :re)), 4 + 5im) == (456.0 + 160.0im,)

  function mul_struct(a, b)
    c = Bar(a, b)
    c.a * c.b
  end
  @test gradient(mul_struct, 2, 3) == (3, 2)

  function mul_tuple(a, b)
    c = (a, b)
    c[1] * c[2]
  end
  @test gradient(mul_tuple, 2, 3) == (3, 2)

  function mul_lambda(x, y)
    times_x = z -> x * z
    times_x(y)
  end
  @test gradient(mul_lambda, 2, 3) == (3, 2)

  @test gradient((a, b...) -> *(a, b...), 2, 3) == (3, 2)

  @test gradient((x, a...) -> x, 1) == (1,)
  @test gradient((x, a...) -> x, 1, 1) == (1, nothing)
  @test gradient((x, a...) -> x == a, 1) == (nothing,)
  @test gradient((x, a...) -> x == a, 1, 2) == (nothing, nothing)

  kwmul(; a = 1, b) = a * b
  mul_kw(a, b) = kwmul(a = a, b = b)
  @test gradient(mul_kw, 2, 3) == (3, 2)

  function myprod(xs)
    s = 1
    for x in xs
      s *= x
    end
    return s
  end
  @test gradient(myprod, [1, 2, 3])[1] == [6, 3, 2]

  function mul_vec(a, b)
    xs = [a, b]
    xs[1] * xs[2]
  end
  @test gradient(mul_vec, 2, 3) == (3, 2)

  @test gradient(2) do x
    d = Dict()
    d[:x] = x
    x * d[:x]
  end == (4,)

  @test gradient(v -> sum(fmisc(; x = v, idx = 1:1)), ones(2))[1] == [1.0, 0.0]

  pow_rec(x, n) = n == 0 ? 1 : x * pow_rec(x, n - 1)
  @test gradient(pow_rec, 2, 3) == (12, nothing)

  @test_throws DimensionMismatch gradient(fmisc, 1)

  @test (gradient(2) do x
    H = [1 x; 3 4]
    sum(H)
  end)[1] == 1

  @test (gradient(2) do x
    if x < 0
      throw("foo")
    end
    return x * 5
  end)[1] == 5

  @test gradient(v -> one(eltype(v)), rand(10))[1] === nothing

  # three-way merge of control flow
  @test (gradient(1) do x
    if x > 0
      x *= 2
    elseif x < 0
      x *= 3
    end
    x
  end)[1] == 2

  # gradient of a closure with a custom rule
  @test gradient((f, x) -> f(x), grad_closure, 5) == (1, 2)

  @test gradient(x -> invoke(invokable, Tuple{Any}, x), 5) == (2,)

  y, back = Zygote.pullback(v -> tuple(v...), [1, 2, 3])
  @test back((1, 1, 1)) == ((1, 1, 1),)
end

@testset "nested AD" begin
  function grad1(f, args...)
    y, back = pullback(f, args...)
    return back(1)
  end
  D(f, x) = grad1(f, x)[1]

  @test D(x -> D(sin, x), 0.5) == -sin(0.5)
  @test D(x -> x * D(y -> x + y, 1), 1) == 1
  @test D(x -> x * D(y -> x * y, 1), 4) == 8

  @test sin''(1.0) == -sin(1.0)
  @test sin'''(1.0) == -cos(1.0)
end

@testset "compiler error" begin
  @test_throws ErrorException Zygote.gradient(1) do x
    push!([], x)
    return x
  end

  @test gradient(s -> [s][1].a, Bar(1, 1)) == ((a = 1, b = nothing),)

  @test gradient((a, b) -> Zygote.hook(-, a) * b, 2, 3) == (-3, 2)

  @test gradient(5) do x
    forwarddiff(x -> x^2, x)
  end == (10,)
end

@testset "Gradient chunking" begin
  for ct in 1:10:100
    v = [1:100;]
    @test gradient(v) do v
      Zygote.forwarddiff(w -> w' * w, v; chunk_threshold = ct)
    end == (2 * v,)
  end
end

@testset "features: empty if/elseif branches" begin
  @test gradient(1) do x
    if true
    elseif true
      nothing
    end
    x + x
  end == (2,)
end

global_param = 3
global_r = 1

@testset "Global Params" begin
  function pow_global(x, n)
    global global_r
    while n > 0
      global_r *= x
      n -= 1
    end
    return global_r
  end
  # (upstream marks this broken on Julia >= 1.12 only)
  @test gradient(pow_global, 2, 3) == (12, nothing)
end

@testset "pow" begin
  function pow_try(x)
    try
      2x
    catch e
      println("error")
    end
  end
  @test gradient(pow_try, 1) == (2,)

  function pow_simd(x, n)
    r = 1
    @simd for i = 1:n
      r *= x
    end
    return r
  end
  @test gradient(pow_simd, 2, 3) == (12, nothing)
end

@testset "tuple getindex" begin
  @test gradient(a -> size(a)[2], ones(2, 2, 2)) == (nothing,)
  @test gradient(a -> sum(size(a)[1:2]), ones(2, 2, 2)) == (nothing,)
  @test gradient(a -> sum(size(a)[1:2:3]), ones(2, 2, 2, 2)) == (nothing,)
  @test gradient(a -> sum(size(a)[[1, 2, 1]]), ones(2, 2, 2)) == (nothing,)

  @test gradient((p, q, r) -> sum((p, q, r)[1:2]), 7, 8.8, 9.9) == (1.0, 1.0, nothing)
  @test gradient((p, q, r) -> sum((p, q, r)[[1, 2, 1]]), 1, 2, 3) == (2, 1, nothing)

  @test gradient(v -> sum(t -> t[2], v), [(1, 2, 3), (4, 5, 6)]) == ([(nothing, 1.0, nothing), (nothing, 1.0, nothing)],)
  @test gradient(v -> sum(t -> prod(t[2:3]), v), [(1, 2, 3), (4, 5, 6)]) == ([(nothing, 3.0, 2.0), (nothing, 6.0, 5.0)],)
  @test gradient(v -> sum(first, v), fill((4, 3), 2)) == ([(1.0, nothing), (1.0, nothing)],)
  @test gradient(v -> sum(t -> abs2(t[1]), v), fill((4, 3), 2)) == ([(8.0, nothing), (8.0, nothing)],)
end

@testset "@timed" begin
  # (upstream: @test on Julia < 1.11, @test_broken from 1.11)
  @test gradient(x -> first(@timed x), 0) == (1,)
end

mutable struct MyMutable
  value::Float64
end

function set_value!(m::MyMutable, x)
  m.value = x
end

function through_mutable(args)
  m = MyMutable(0.0)
  set_value!(m, args...)
  m.value
end

@testset "features: mutable struct written through a splat" begin
  value, back = Zygote.pullback(through_mutable, (1.0,))
  @test back(1.0) == ((1.0,),)
end

mutable struct MWEGetter{G, U}
  idxs::G
  u::U
end

u1574 = ones(3)
idxs1574 = [1, 2]
mwe1574 = MWEGetter(idxs1574, u1574)

function fn1574(mwe)
  map(i -> mwe.u[i], mwe.idxs)
end

@testset "mutable struct, including Ref" begin
  @test gradient(m -> m.value^2 + m.value, MyMutable(3)) === ((value = 7.0,),)

  # Ref behaves the same
  @test gradient(r -> r.x^2 + r.x, Ref(3)) === ((x = 7.0,),)
  @test gradient(r -> real(r.x^2 + im * r.x), Ref(4)) === ((x = 8.0,),)

  # fields of the contents
  @test gradient(r -> abs2(r.x) + 7 * r.x.re, Ref(1 + im)) == ((x = 9.0 + 2.0im,),)
  @test gradient(r -> abs2(r[].x) + 7 * real(r[].x), Ref(Ref(1 + im))) == ((x = (x = 9.0 + 2.0im,),),)

  # arrays of mutables
  @test gradient(v -> sum(getindex.(v) .^ 2), Ref.(1:3))[1] == [(; x = 2i) for i in 1:3]
  @test gradient(v -> sum(abs2 ∘ getindex, v), Ref.(1:3))[1] == [(; x = 2i) for i in 1:3]

  @test gradient(v -> (getindex.(v) .^ 2)[1], Ref.(1:3))[1][1] == (x = 2.0,)
  @test gradient(v -> (prod.(getindex.(v)))[1], Ref.(eachcol([1 2; 3 4])))[1][1] == (x = [3.0, 1.0],)

  # broadcasting over a Ref
  @test gradient(r -> sum(sum, r .* [1, 2, 3]), Ref([4, 5])) == ((x = [6.0, 6.0],),)
  @test gradient(v -> sum(sum, Ref(v) .* [1, 2, 3]), [4, 5]) == ([6.0, 6.0],)

  # mapping over a mutable whose fields have different graphs
  @test gradient(m -> sum(fn1574(m)), mwe1574)[1] == (; idxs = [nothing, nothing], u = [1.0, 1.0, 0.0])
end

mutable struct Mut{T}; x::T; end
struct Imm{T}; x::T; end

@testset "mutable accum_param bugs" begin
  # indexing a tuple that holds a mutable struct
  t1 = (Mut(3.0),)
  t2 = (Imm(3.0),)
  t3 = (Ref(3.0),)
  @test gradient(t -> t[1].x^2, t1)[1] == ((x = 6.0,),)
  @test gradient(t -> t[1].x^2, t2)[1] == ((x = 6.0,),)
  @test gradient(t -> t[1].x^2, t3)[1] == ((x = 6.0,),)
  k = 1
  @test gradient(t -> t[k].x^2, t1)[1] == ((x = 6.0,),)
  @test gradient(t -> t[k].x^2, t2)[1] == ((x = 6.0,),)
  @test gradient(t -> t[k].x^2, t3)[1] == ((x = 6.0,),)

  @test gradient(v -> v[1][1].x^2, [t1])[1] == [((x = 6.0,),)]
  @test gradient(v -> v[1][1].x^2, [t2])[1] == [((x = 6.0,),)]
  @test gradient(v -> v[1][1].x^2, [t3])[1] == [((x = 6.0,),)]

  # getfield returning a mutable struct
  s4 = Imm(Mut(4.0))
  s5 = Mut(Mut(4.0))
  s6 = Imm(Imm(4.0))
  @test gradient(s -> s.x.x^3, s4)[1] == (x = (x = 48.0,),)
  @test gradient(s -> s.x.x^3, s5)[1] == (x = (x = 48.0,),)
  @test gradient(s -> s.x.x^3, s6)[1] == (x = (x = 48.0,),)

  @test gradient(v -> v[2].x.x^3, [s4, s4])[1] == [nothing, (x = (x = 48.0,),)]
  @test gradient(v -> v[2].x.x^3, [s4, s5])[1] == [nothing, (x = (x = 48.0,),)]
  @test gradient(v -> v[2].x.x^3, [s4, s6])[1] == [nothing, (x = (x = 48.0,),)]

  w1 = [3.0]
  w2 = (Mut(w1),)
  w3 = (Imm(w1),)
  @test gradient(t -> sum(t[1].x)^2, w3)[1] == ((x = [6.0],),)

  @test gradient(t -> sum(t[1].x .+ t[1].x)^3, w2)[1] == ((x = [216.0],),)
  @test gradient(t -> sum(t[1].x .+ t[1].x)^3, w3)[1] == ((x = [216.0],),)

  k = 1
  @test gradient(t -> sum(t[k].x .+ t[1].x)^3, w2)[1] == ((x = [216.0],),)
  @test gradient(t -> sum(t[k].x .+ t[1].x)^3, w3)[1] == ((x = [216.0],),)
end

@testset "NamedTuples" begin
  @test gradient(t -> t.a, (a = 1, b = 2)) == ((a = 1, b = nothing),)
  @test gradient(v -> v[1].a, [(a = 1, b = 2)]) == ([(a = 1, b = nothing)],)
  @test gradient(v -> v[1].a, [(a = 1, b = 2), (a = 3, b = 4)]) == ([(a = 1, b = nothing), nothing],)

  # mixed with Ref
  @test gradient(r -> r[].a, Ref((a = 1, b = 2))) == ((x = (a = 1, b = nothing),),)
  @test gradient(v -> v[1][].a, [Ref((a = 1, b = 2)), Ref((a = 3, b = 4))]) == ([(x = (a = 1, b = nothing),), nothing],)
  @test gradient(v -> v[1].a, [(a = 1, b = 2), "three"]) == ([(a = 1, b = nothing), nothing],)

  @testset "indexing kwargs" begin
    inner_lit(; kwargs...) = kwargs[:x]
    outer_lit(; kwargs...) = inner_lit(; x = kwargs[:x])

    inner_dyn(k; kwargs...) = kwargs[k]
    outer_dyn(k; kwargs...) = inner_dyn(k; x = kwargs[k])

    @test gradient(x -> outer_lit(; x), 0.0) == (1.0,)
    @test gradient((x, k) -> outer_dyn(k; x), 0.0, :x) == (1.0, nothing)
  end
end

function type_test()
  Complex{<:Real}
end

@testset "features: pullback of a function returning a type" begin
  @test pullback(type_test)[1] == Complex{<:Real}
end

@testset "Pairs" begin
  @test (x -> 10 * pairs((a = x, b = 2))[1])'(100) === 10.0
  @test (x -> 10 * pairs((a = x, b = 2))[2])'(100) === nothing
  kwonly(; kw...) = 1
  @test gradient(() -> kwonly(a = 1, b = 2.0)) === ()

  @test (x -> 10 * (x => 2)[1])'(100) === 10.0
  @test (x -> 10 * (x => 2)[2])'(100) === nothing

  @test gradient(x -> (:x => x)[2], 17) == (1,)

  dd = Dict(:x => 1.0, :y => 3.0)
  @test gradient(d -> Dict(:x => d[:x])[:x], dd) == (Dict(:x => 1),)
end

@testset "kwarg splatting, pass in object" begin
  kwprod(; kwargs...) = kwargs[:x] * kwargs[:z]
  splatin(somedata) = kwprod(; somedata...)
  @test gradient(splatin, (; x = 3.0, y = 4.0, z = 2.3)) == ((x = 2.3, y = nothing, z = 3.0),)
  @test gradient(splatin, Dict(:x => 3.0, :y => 4.0, :z => 2.3)) == ((y = nothing, z = 3.0, x = 2.3),)

  # no keyword argument gets a gradient
  no_kwarg_grad(v; kwargs...) = v[kwargs[:i]]
  @test gradient(v -> no_kwarg_grad(v; i = 1), [1]) == ([1],)
end

@testset "Iterators" begin
  # enumerate
  @test gradient(1:5) do xs
    sum([x^i for (i, x) in enumerate(xs)])
  end == ([1, 4, 27, 256, 3125],)

  @test gradient([1, 10, 100]) do xs
    sum([xs[i]^i for (i, x) in enumerate(xs)])
  end == ([1, 2 * 10^1, 3 * 100^2],)

  @test gradient([1, 10, 100]) do xs
    sum((xs[i]^i for (i, x) in enumerate(xs)))   # no collect
  end == ([1, 2 * 10^1, 3 * 100^2],)

  # zip (stops at the shorter)
  @test (gradient(10:14, 1:10) do xs, ys
    sum([x / y for (x, y) in zip(xs, ys)])
  end)[2] ≈ vcat(.-(10:14) ./ (1:5) .^ 2, zeros(5))

  bk_z = pullback((xs, ys) -> sum([abs2(x * y) for (x, y) in zip(xs, ys)]), [1, 2], [3im, 4im])[2]
  @test bk_z(1.0)[1] isa AbstractVector{<:Real}   # projection

  # Iterators.Filter
  @test gradient(2:9) do xs
    sum([x^2 for x in xs if iseven(x)])
  end == ([4, 0, 8, 0, 12, 0, 16, 0],)

  @test gradient(2:9) do xs
    sum(x^2 for x in xs if iseven(x))   # no collect
  end == ([4, 0, 8, 0, 12, 0, 16, 0],)

  # Iterators.Product
  @test gradient(1:10, 3:7) do xs, ys
    sum([x^2 + y for x in xs, y in ys])
  end == (10:10:100, fill(10, 5))

  function prod_acc(xs, ys)
    out = 0
    for xy in Iterators.product(xs, ys)
      out += xy[1]^2 + xy[2]
    end
    out
  end
  @test prod_acc(1:10, 3:7) == sum(x^2 + y for x in 1:10, y in 3:7)
  gradient(prod_acc, 1:10, 3:7)   # upstream only calls it (the result is not asserted)

  @test gradient(rand(2, 3)) do A
    sum([A[i, j] for i in 1:1, j in 1:2])
  end == ([1 1 0; 0 0 0],)

  @test gradient(ones(3, 5), 1:7) do xs, ys
    sum([x + y for x in xs, y in ys])
  end == (fill(7, 3, 5), fill(15, 7))

  bk_p = pullback((xs, ys) -> sum([x / y for x in xs, y in ys]), Diagonal([3, 4, 5]), [6, 7]')[2]
  @test bk_p(1.0)[1] isa Diagonal   # projection
  @test bk_p(1.0)[2] isa Adjoint

  # Iterators.Product with enumerate
  @test gradient([2 3; 4 5]) do xs
    sum([x^i + y for (i, x) in enumerate(xs), y in xs])
  end == ([8 112; 36 2004],)
end

# --- set-up for "Keyword Argument Passing" (ChainRules.jl issue 257)
struct Type1{VJP}
  x::VJP
end

struct Type2{compile}
  Type2(compile = false) = new{compile}()
end

@testset "Keyword Argument Passing" begin
  function loss_adjoint(θ)
    sum(fkw(sensealg = Type1(Type2(true))))
  end

  i = 1
  slots = Any[nothing, nothing]
  Zygote.@nograd gkw(x, i, sensealg) = x[i] = sensealg
  function fkw(; sensealg = nothing)
    gkw(slots, i, sensealg)
    return rand(100)
  end

  loss_adjoint([1.0])
  i = 2
  Zygote.gradient(loss_adjoint, [1.0])
  @test slots[1] == slots[2]
end

function loss1417(theta)
  v1 = vcat([theta], 5)
  v2 = vcat(v1...)
  return v2[1]
end

@testset "splats" begin
  @test gradient(v -> max(v...), [1, 2, 3])[1] == [0, 0, 1]
  @test gradient(v -> min(v...), (1, 2, 3))[1] === (1.0, 0.0, 0.0)

  @test gradient(v -> max(v...), [1 2; 3 4])[1] == [0 0; 0 1]
  @test gradient(v -> max(v...), [1, 2, 3]')[1] == [0 0 1]

  # issue #599
  @test gradient(w -> sum([w...]), [1, 1])[1] isa AbstractVector

  # issue #1417
  @test gradient(loss1417, 1.0) == (1.0,)
  @test gradient(v -> sum(vcat(v...)), [1.0, 2.0, 3.0])[1] == [1.0, 1.0, 1.0]

  # issue #866
  f866(v) = reshape(v, fill(2, 2)...)
  @test gradient(v -> sum(f866(v)), rand(4))[1] == [1, 1, 1, 1]

  # issue #1567: reshape of a non-differentiable array
  @test gradient(w -> sum(w * reshape(rand(Bool, 12), 3, 4)), rand(2, 3))[1] |> size == (2, 3)
  @test gradient(w -> sum(w * reshape(trues(6), 2, 3)), rand(4, 2))[1] |> size == (4, 2)

  # issue #1198: loop-carried variables that swap or rotate
  function swap1198(x)
    a, b = x, 2x
    for _ in 1:3
      a, b = b, a
    end
    return a
  end
  @test gradient(swap1198, 1.0) == (2.0,)

  function rotate1198(x)
    v0, v1, v2 = x, 2x, 3x
    for _ in 1:4
      v0, v1, v2 = v1, v2, v0
    end
    return v0
  end
  @test gradient(rotate1198, 1.0) == (2.0,)
end

function net905(x1)
  x2 = x1
  x3 = x1 + x2
  x4 = x1 + x2 + x3
  x5 = x1 + x2 + x3 + x4
  x6 = x1 + x2 + x3 + x4 + x5
  x7 = x1 + x2 + x3 + x4 + x5 + x6
  x8 = x1 + x2 + x3 + x4 + x5 + x6 + x7
  x9 = x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8
  x10 = x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9
end

function defensiveupdate(d, a)
  nd = deepcopy(d)
  nd[1] = d[1] * a
  return nd
end

@testset "accumulation" begin
  # issue #905
  loss905(x) = sum(abs2, net905(x))
  @test gradient(loss905, ones(10, 10))[1] == fill(131072, 10, 10)

  # issue #1233 (upstream compares with FillArrays' `Fill(5, 1)`, `Fill(1, 1)`, which are
  # `==` to `fill(5, 1)`, `fill(1, 1)`)
  d = Dict(i => ones(1) for i in 1:2)
  @test (gradient(d) do d
    nd = defensiveupdate(d, 5)
    return sum(nd[1]) + sum(nd[2])
  end)[1] == Dict(1 => fill(5, 1), 2 => fill(1, 1))

  # issue #1113: deepcopy of a Dict built inside the function
  @test gradient(x -> deepcopy(Dict(:a => x))[:a], 2.0) == (1.0,)
  @test gradient(x -> (dc = deepcopy(Dict(:a => x, :b => 2x)); dc[:a] + 3 * dc[:b]), 2.0) == (7.0,)
end

# upstream: _f(x,::Val{y}=Val(2)) where {y} = x/y  (the argument is named here)
halve_by(x, v::Val{y} = Val(2)) where {y} = x / y

@testset "tricky broadcasting" begin
  @test gradient(t -> sum(t .+ ones(2, 2)), (1, 2)) == ((2, 2),)
  @test gradient(t -> sum(t .+ ones(2, 2)), (1,)) == ((4,),)
  @test gradient(t -> sum(t .+ ones(2, 1)), (1, 2)) == ((1, 1),)

  # issue #975
  gt = gradient((v, p) -> prod(v .^ p), [3, 4], (1, 2))
  gv = gradient((v, p) -> prod(v .^ p), [3, 4], [1, 2])
  @test gt[1] == gv[1]
  @test collect(gt[2]) ≈ gv[2]

  # a closure capturing y
  @test gradient((v, y) -> sum((z -> z^2 + y[1]).(v)), [1, 2, 3], [4, 5]) == ([2, 4, 6], [3, 0])
  @test gradient((v, y) -> sum((z -> z^2 + y[1]), v), [1, 2, 3], [4, 5]) == ([2, 4, 6], [3, 0])
  @test gradient((v, y) -> sum(map((z -> z^2 + y[1]), v)), [1, 2, 3], [4, 5]) == ([2, 4, 6], [3, 0])
  @test gradient((v, y) -> mapreduce((z -> z^2 + y[1]), +, v), [1, 2, 3], [4, 5]) == ([2, 4, 6], [3, 0])

  # type-unstable
  @test gradient(v -> sum((t -> t < 2 ? false : t^2).(v)), [1, 2, 3])[1][2:3] == [4, 6]
  @test gradient(v -> sum((t -> t < 2 ? false : t^2), v), [1, 2, 3])[1][2:3] == [4, 6]
  @test gradient(v -> sum(map((t -> t < 2 ? false : t^2), v)), [1, 2, 3])[1][2:3] == [4, 6]
  @test gradient(v -> mapreduce((t -> t < 2 ? false : t^2), +, v), [1, 2, 3])[1][2:3] == [4, 6]

  # Ref, Val, Symbol arguments
  @test gradient(v -> sum(v .+ Ref(v[1])), [1, 2, 3]) == ([4, 1, 1],)
  @test gradient(v -> sum(v .+ (v[1],)), [1, 2, 3]) == ([4, 1, 1],)
  @test gradient(v -> sum((first ∘ tuple).(v, :ignore)), [1, 2, 3]) == ([1, 1, 1],)
  @test gradient(v -> sum((first ∘ tuple).(v, Symbol)), [1, 2, 3]) == ([1, 1, 1],)
  @test gradient(v -> sum(halve_by.(v, Val(2))), [1, 2, 3]) == ([0.5, 0.5, 0.5],)
  @test gradient(v -> sum(halve_by.(v)), [1, 2, 3]) == ([0.5, 0.5, 0.5],)
  @test gradient(v -> sum(map(halve_by, v)), [1, 2, 3]) == ([0.5, 0.5, 0.5],)

  # Bool
  @test gradient(v -> sum(1 .- (v .> 0)), randn(5)) == (nothing,)
  @test gradient(v -> sum((t -> 1 - t).(v .> 0)), randn(5)) == (nothing,)
  @test gradient(v -> sum(v .- (v .> 0)), randn(5)) == ([1, 1, 1, 1, 1],)

  @test gradient(v -> sum(v ./ [1, 2, 4]), [1, 2, pi]) == ([1.0, 0.5, 0.25],)
  @test gradient(v -> sum(map(/, v, [1, 2, 4])), [1, 2, pi]) == ([1.0, 0.5, 0.25],)

  # negative powers
  @test gradient((v, p) -> sum(v .^ p), [1.0, 2.0, 4.0], [1, -1, 2])[1] ≈ [1.0, -0.25, 8.0]
  @test gradient((v, p) -> sum(v .^ p), [1.0, 2.0, 4.0], -1)[1] ≈ [-1.0, -0.25, -0.0625]
  @test gradient((v, p) -> sum(z -> z^p, v), [1.0, 2.0, 4.0], -1)[1] ≈ [-1.0, -0.25, -0.0625]
  @test gradient((v, p) -> mapreduce(z -> z^p, +, v), [1.0, 2.0, 4.0], -1)[1] ≈ [-1.0, -0.25, -0.0625]

  # second order
  @test gradient(v -> sum(gradient(w -> sum(w .^ 2), v)[1]), [1, 2])[1] ≈ [2, 2]
  @test gradient(v -> sum(gradient(w -> sum(sin.(w)), v)[1]), [1, 2])[1] ≈ [-0.8414709848078965, -0.9092974268256817]
  @test gradient(v -> sum(abs, gradient(w -> sum(log.(2 .* exp.(w)) .^ 2), v)[1]), [1, 2])[1] ≈ [2, 2]

  # getproperty and tangents
  @test gradient(v -> sum((z -> z.im^2).(v)), [1 + 2im, 3])[1] == [4im, 0]
  @test gradient(v -> sum((z -> z.im^2), v), [1 + 2im, 3])[1] == [4im, 0]
  @test gradient(v -> sum(map(z -> z.im^2, v)), [1 + 2im, 3])[1] == [4im, 0]
  @test gradient(v -> mapreduce(z -> z.im^2, +, v), [1 + 2im, 3])[1] == [4im, 0]
end

# "broadcast fallbacks": left out (only @inferred of Base.broadcasted internals)

function f760(p)
  d = Dict()
  for i in 1:4
    push!(d, i => i^p)
  end
  sum(values(d))
end

@testset "Dict" begin
  # issue #717
  @test gradient(d -> (() -> d[:y])(), Dict(:y => 0.4)) == (Dict(:y => 1.0),)

  ntd = (; data = Dict("x" => rand(2)))
  @test gradient(t -> sum(t.data["x"]), ntd)[1] == (; data = Dict("x" => ones(2)))

  # issue #760
  @test gradient(f760, 3)[1] ≈ 123.93054835019153
end

@testset "withgradient" begin
  @test withgradient([1, 2, 4]) do v
    z = 1 ./ v
    sum(z), z
  end == (val = (1.75, [1.0, 0.5, 0.25]), grad = ([-1.0, -0.25, -0.0625],))

  @test withgradient(3.0, 4.0) do x, y
    (div = x / y, mul = x * y)
  end == (val = (div = 0.75, mul = 12.0), grad = (0.25, -0.1875))

  trig3(v) = sum(sin, v), sum(cos, v), sum(tan, v)
  g1 = gradient(first ∘ trig3, [1, 2, 3.0])
  y2, g2 = withgradient(first ∘ trig3, [1, 2, 3.0])
  y3, g3 = withgradient(trig3, [1, 2, 3.0])
  @test g1[1] ≈ g2[1] ≈ g3[1]
end

@testset "isdefined" begin
  function maybe(x)
    local y
    x > 0 && (y = 3x)
    @isdefined(y) ? y * 2 : 42 * x
  end
  @test gradient(maybe, 2.0)[1] == 6.0     # y defined
  @test gradient(maybe, -1.0)[1] == 42.0   # y undefined
end

@testset "logging macros" begin
  Base.CoreLogging.with_logger(Base.CoreLogging.NullLogger()) do
    warn_branch(x) = x > 0 ? x * 2 : (@warn "neg"; x)
    @test gradient(warn_branch, 1.0f0)[1] == 2.0f0    # branch not taken
    @test gradient(warn_branch, -1.0f0)[1] == 1.0f0   # branch taken

    info_branch(x) = x > 0 ? x * 2 : (@info "neg"; x)
    @test gradient(info_branch, -1.0f0)[1] == 1.0f0

    @test gradient(x -> (@warn "always"; x^2), 3.0f0)[1] == 6.0f0
    # a logging keyword that depends on the differentiated variable
    @test gradient(x -> (@info "msg" foo = x; x^2), 2.0f0)[1] == 4.0f0
  end
end
