# Facts from JuliaDiff/ChainRules.jl test/rulesets/Base/base.jl (ported for Zyla's conformance suite).
# Upstream wraps everything in one testset "base.jl"; its inner testsets are top-level here,
# named "base.jl: <inner name>" (a `@testset ... for` loop split per iteration where the
# iterations differ, e.g. real vs complex input). Random inputs are drawn after a fixed seed.
# Facts about gradient values that upstream reads off `rrule(f, xs...)[2](dy)` are asked of
# Zygote's `pullback(f, xs...)[2](dy)` (the same cotangents, without the one for f), and
# those read off `frule((_, dx), f, x)[2]` of `jvp(f, x, dx)[2]`; facts about ChainRules' own
# API (whether a rule exists, which pullback object) call `rrule`/`frule` as upstream does.
using GradCheck
using ChainRulesCore
using LinearAlgebra
using Random

# How ChainRulesTestUtils' checks are ported. test_rrule / test_frule / test_scalar(f, xs...)
# become: Zyla's reverse-mode gradient of a fixed linear projection of f(xs...) agrees with
# finite differences (GradCheck). Array outputs are projected with fixed weights, tuple
# outputs sum their projected parts, complex numbers (and complex arrays) are split into
# real and imaginary parts so that both are differentiated. Integers, symbols and
# functions among the arguments are held fixed, as test_rrule does. `x ⊢ dx` (a primal with
# a chosen tangent) becomes the primal x; an `output_tangent` becomes the fixed projection.
proj_weights(n) = cos.(1:n) .+ 0.25
function proj(y)
    if y isa Real
        return y
    elseif y isa Number
        return real(y) + 0.6 * imag(y)
    elseif y isa AbstractArray
        v = vec(y)
        if eltype(v) <: Real
            return sum(v .* proj_weights(length(v)))
        else
            return sum((real.(v) .+ 0.6 .* imag.(v)) .* proj_weights(length(v)))
        end
    elseif y isa Tuple
        return sum(map((t, k) -> proj(t) * (k + 0.5), y, ntuple(identity, length(y))))
    elseif y isa NamedTuple
        return proj(values(y))
    else
        error("no projection for a $(typeof(y))")
    end
end
is_cnum(x) = x isa Number && !(x isa Real)
is_carr(x) = x isa AbstractArray && eltype(x) <: Number && !(eltype(x) <: Real)
function split_c(x)
    is_cnum(x) && return (real(x), imag(x))
    is_carr(x) && return (real.(x), imag.(x))
    x isa Tuple && return map(split_c, x)
    return x
end
function join_c(p, x)
    is_cnum(x) && return complex(p[1], p[2])
    is_carr(x) && return complex.(p[1], p[2])
    x isa Tuple && return map(join_c, p, x)
    return p
end
check_rrule(f, xs...; kw...) =
    gradcheck((ps...) -> proj(f(map(join_c, ps, xs)...)), map(split_c, xs)...; kw...)
check_frule(f, xs...; kw...) = check_rrule(f, xs...; kw...)
check_scalar(f, x; kw...) = check_rrule(f, x; kw...)

mutable struct MDemo
    x::Float64
end

# from upstream's test/test_helpers.jl
struct NoRules end

struct Multiplier{T}
    x::T
end
(m::Multiplier)(y) = m.x * y
(m::Multiplier)(y, z) = (m.x * y) * z

function ChainRulesCore.rrule(m::Multiplier, y)
    mult_back(dΩ) = (Tangent{typeof(m)}(; x = dΩ * y'), m.x' * dΩ)
    return m(y), mult_back
end
function ChainRulesCore.rrule(m::Multiplier, y, z)
    mult_back3(dΩ) = (Tangent{typeof(m)}(; x = dΩ * (y * z)'), m.x' * dΩ * z', (m.x * y)' * dΩ)
    return m(y, z), mult_back3
end

make_two_vec(x) = [x, x]
function ChainRulesCore.rrule(::typeof(make_two_vec), x)
    two_vec_back(ȳ) = (NoTangent(), sum(ȳ))
    return make_two_vec(x), two_vec_back
end

@testset "base.jl: zero/one" begin
    @test last(rrule(zero, 0.1)) === last(rrule(one, 0.2f0))
    for f in [zero, one]
        for x in [1.0, 1.0im, [10.0+im 11.0-im; 12.0+2im 13.0-3im]]
            @test check_frule(f, x)
            @test check_rrule(f, x)
        end
    end
    @test check_frule(zero, [1.0, 2.0, 3.0])
    @test check_rrule(zero, [1.0, 2.0, 3.0])
end

@testset "base.jl: copysign" begin
    # not too close to zero, where finite differences would jump over it
    @testset "at $s" for s in (-1.1, 0.1, 100.0)
        @testset "at $t" for t in (-1.1, -0.1, 33.0)
            @test check_frule(copysign, s, t)
            @test check_rrule(copysign, s, t)
        end
    end
end

@testset "base.jl: setfield!" begin
    @test check_frule(setfield!, MDemo(3.5), :x, 5.0)
    @test check_frule(setfield!, MDemo(3.5), 1, 5.0)
end

function trig_basics(z)
    @test check_scalar(sec, z)
    @test check_scalar(csc, z)
    @test check_scalar(cot, z)
    @test check_scalar(sinpi, z)
    @test check_scalar(cospi, z)
end
@testset "base.jl: Trig: Basics x=π-0.01" begin
    trig_basics(Float64(π) - 0.01)
end
@testset "base.jl: Trig: Basics x=π+π/2·im" begin
    trig_basics(Complex(π, π / 2))
end

function trig_hyperbolic(z)
    @test check_scalar(sech, z)
    @test check_scalar(csch, z)
    @test check_scalar(coth, z)
end
@testset "base.jl: Trig: Hyperbolic x=π-0.01" begin
    trig_hyperbolic(Float64(π) - 0.01)
end
@testset "base.jl: Trig: Hyperbolic x=π-0.01+π/2·im" begin
    trig_hyperbolic(Complex(π - 0.01, π / 2))
end

@testset "base.jl: Trig: Degrees" begin
    d = 45.0
    @test check_scalar(sind, d)
    @test check_scalar(cosd, d)
    @test check_scalar(tand, d)
    @test check_scalar(secd, d)
    @test check_scalar(cscd, d)
    @test check_scalar(cotd, d)
end

function trig_inverses(z)
    @test check_scalar(asec, 1 / z)
    @test check_scalar(acsc, 1 / z)
    @test check_scalar(acot, 1 / z)
end
@testset "base.jl: Trig: Inverses x=0.5" begin
    trig_inverses(0.5)
end
@testset "base.jl: Trig: Inverses x=0.5+0.25im" begin
    trig_inverses(Complex(0.5, 0.25))
end

function trig_inverse_hyperbolic(z)
    @test check_scalar(asinh, z)
    @test check_scalar(acosh, z + 1)  # shifted by one into acosh's real domain
    @test check_scalar(atanh, z)
    @test check_scalar(asech, z)
    @test check_scalar(acsch, z)
    @test check_scalar(acoth, z + 1)
end
@testset "base.jl: Trig: Inverse hyperbolic x=0.5" begin
    trig_inverse_hyperbolic(0.5)
end
@testset "base.jl: Trig: Inverse hyperbolic x=0.5+0.25im" begin
    trig_inverse_hyperbolic(Complex(0.5, 0.25))
end
@testset "base.jl: Trig: Inverse hyperbolic x=-2.1-3.1im" begin
    trig_inverse_hyperbolic(Complex(-2.1 - 3.1im))
end

function trig_inverse_degrees(z)
    @test check_scalar(asind, z)
    @test check_scalar(acosd, z)
    @test check_scalar(atand, z)
    @test check_scalar(asecd, 1 / z)
    @test check_scalar(acscd, 1 / z)
    @test check_scalar(acotd, 1 / z)
end
@testset "base.jl: Trig: Inverse degrees x=0.5" begin
    trig_inverse_degrees(0.5)
end
@testset "base.jl: Trig: Inverse degrees x=0.5+0.25im" begin
    trig_inverse_degrees(Complex(0.5, 0.25))
end

@testset "base.jl: Trig: sinc x=0.0" begin
    @test check_scalar(sinc, 0.0)
end
@testset "base.jl: Trig: sinc x=0.434" begin
    @test check_scalar(sinc, 0.434)
end
@testset "base.jl: Trig: sinc x=0.434+0.25im" begin
    @test check_scalar(sinc, Complex(0.434, 0.25))
end

@testset "base.jl: Trig: sincospi Float64" begin
    Random.seed!(1)
    @test check_frule(sincospi, randn(Float64))
    @test check_rrule(sincospi, randn(Float64))
end
@testset "base.jl: Trig: sincospi ComplexF64" begin
    Random.seed!(1)
    @test check_frule(sincospi, randn(ComplexF64))
    @test check_rrule(sincospi, randn(ComplexF64))
end

@testset "base.jl: Angles" begin
    for a in (-0.1, 6.4, 0.5 + 0.25im)
        @test check_scalar(deg2rad, a)
        @test check_scalar(rad2deg, a)
    end
end

@testset "base.jl: Unary complex functions" begin
    for a in (-4.1, 6.4, 0.0, 0.0 + 0.0im, 0.5 + 0.25im)
        @test check_scalar(real, a)
        @test check_scalar(imag, a)
        @test check_scalar(complex, a)
        @test check_scalar(hypot, a)
        @test check_scalar(adjoint, a)
    end
end

@testset "base.jl: Complex" begin
    Random.seed!(1)
    @test check_scalar(Complex, randn())
    @test check_scalar(Complex, randn(ComplexF64))
    @test check_frule(Complex, randn(), randn(Float32))
    @test check_rrule(Complex, randn(), randn(Float32); rtol=1.0e-7, atol=1.0e-7)
end

# "*(x, y) (scalar)": upstream's for-testsets over all 25 pairs of these points, grouped
# here by whether the pair is real or has a complex member.
# (the points are written inside the testsets: 3.7 + 2.12im, 14.2 - 7.1im, and the real ones)
const MUL_REAL = (0.0, -2.1, 3.2)
function mul_pair_checks(p, q)
    # all complex when one is, for the finite differences
    p, q = Base.promote(p, q)
    @test check_frule(*, p, q)
    @test check_rrule(*, p, q)
end
function mul_many_checks(p, q)
    p, q = Base.promote(p, q)
    @test check_rrule(*, p, q, p + q)
    @test check_rrule(*, p, q, 17p, 23q)
    @test check_rrule(*, p, q, 7p, 3q, p + q + pi)
end
@testset "base.jl: *(x, y) (scalar): real x, y" begin
    @testset "($p) * ($q)" for p in MUL_REAL, q in MUL_REAL
        mul_pair_checks(p, q)
    end
end
@testset "base.jl: *(x, y) (scalar): complex x or y" begin
    MUL_POINTS = (0.0, -2.1, 3.2, 3.7 + 2.12im, 14.2 - 7.1im)
    @testset "($p) * ($q)" for p in MUL_POINTS, q in MUL_POINTS
        (p isa Real && q isa Real) && continue
        mul_pair_checks(p, q)
    end
end
@testset "base.jl: *(x, y, ...) (scalar): real x, y" begin
    @testset "*($p, $q, ...)" for p in MUL_REAL, q in MUL_REAL
        mul_many_checks(p, q)
    end
end
@testset "base.jl: *(x, y, ...) (scalar): complex x or y" begin
    MUL_POINTS = (0.0, -2.1, 3.2, 3.7 + 2.12im, 14.2 - 7.1im)
    @testset "*($p, $q, ...)" for p in MUL_POINTS, q in MUL_POINTS
        (p isa Real && q isa Real) && continue
        mul_many_checks(p, q)
    end
end

@testset "base.jl: ldexp" begin
    Random.seed!(1)
    for k in (0, 1, 20)
        @test check_frule(ldexp, 10rand(), k)
        @test check_rrule(ldexp, 10rand(), k)
    end
end

@testset "base.jl: \\(x::Float64, y::Float64) (scalar)" begin
    Random.seed!(1)
    @test check_frule(*, randn(Float64), randn(Float64))
    @test check_rrule(*, randn(Float64), randn(Float64))
end
@testset "base.jl: \\(x::ComplexF64, y::ComplexF64) (scalar)" begin
    Random.seed!(1)
    @test check_frule(*, randn(ComplexF64), randn(ComplexF64))
    @test check_rrule(*, randn(ComplexF64), randn(ComplexF64))
end

@testset "base.jl: mod" begin
    Random.seed!(1)
    # keep away from mod's jumps
    b = rand() + 1
    @test check_frule(mod, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(mod, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

function identity_checks(T)
    @test check_frule(identity, randn(T))
    @test check_frule(identity, randn(T, 4))
    @test check_frule(identity, Tuple(randn(T, 3)))
    @test check_rrule(identity, randn(T))
    @test check_rrule(identity, randn(T, 4))
    @test check_rrule(identity, Tuple(randn(T, 3)))
end
@testset "base.jl: identity Float64" begin
    Random.seed!(1)
    identity_checks(Float64)
end
@testset "base.jl: identity ComplexF64" begin
    Random.seed!(1)
    identity_checks(ComplexF64)
end

@testset "base.jl: Constants x=-0.1" begin
    @test check_scalar(one, -0.1)
    @test check_scalar(zero, -0.1)
end
@testset "base.jl: Constants x=6.4" begin
    @test check_scalar(one, 6.4)
    @test check_scalar(zero, 6.4)
end
@testset "base.jl: Constants x=1.0+0.5im" begin
    @test check_scalar(one, 1.0 + 0.5im)
    @test check_scalar(zero, 1.0 + 0.5im)
end
@testset "base.jl: Constants x=-10.0+0im" begin
    @test check_scalar(one, -10.0 + 0im)
    @test check_scalar(zero, -10.0 + 0im)
end
@testset "base.jl: Constants x=0.0+200im" begin
    @test check_scalar(one, 0.0 + 200im)
    @test check_scalar(zero, 0.0 + 200im)
end

@testset "base.jl: muladd(x::Float64, y::Float64, z::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(muladd, 10randn(T), randn(T), randn(T))
    @test check_rrule(muladd, 10randn(T), randn(T), randn(T))
end
@testset "base.jl: muladd(x::ComplexF64, y::ComplexF64, z::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(muladd, 10randn(T), randn(T), randn(T))
    @test check_rrule(muladd, 10randn(T), randn(T), randn(T))
end

@testset "base.jl: muladd ZeroTangent" begin
    @test check_frule(muladd, 2.0, 3.0, ZeroTangent())
    @test check_frule(muladd, 2.0, ZeroTangent(), 4.0)
    @test check_frule(muladd, ZeroTangent(), 3.0, 4.0)
    @test check_rrule(muladd, 2.0, 3.0, ZeroTangent())
    @test check_rrule(muladd, 2.0, ZeroTangent(), 4.0)
    @test check_rrule(muladd, ZeroTangent(), 3.0, 4.0)
end

@testset "base.jl: fma" begin
    Random.seed!(1)
    @test check_frule(fma, 10randn(), randn(), randn())
    @test check_rrule(fma, 10randn(), randn(), randn())
end

@testset "base.jl: clamp" begin
    # below the interval
    @test check_frule(clamp, 1.0, 2.0, 3.0)
    @test check_rrule(clamp, 1.0, 2.0, 3.0)
    # inside it
    @test check_frule(clamp, 2.5, 2.0, 3.0)
    @test check_rrule(clamp, 2.5, 2.0, 3.0)
    # above it
    @test check_frule(clamp, 4.0, 2.0, 3.0)
    @test check_rrule(clamp, 4.0, 2.0, 3.0)
end

@testset "base.jl: rounding" begin
    # (upstream picks one-sided finite differences; these points are far from the jumps)
    for r in (-0.6, -0.2, 0.1, 0.6)
        @test check_scalar(round, r)
        @test check_scalar(floor, r)
        @test check_scalar(ceil, r)
    end
end

@testset "base.jl: type" begin
    @test frule((NoTangent(), NoTangent(), NoTangent()), typejoin, Array{Float32,4}, Array{Float32,3}) !== nothing
    @test rrule(typejoin, Array{Float32,4}, Array{Float32,3}) !== nothing
end

@testset "base.jl: Logging" begin
    @test frule((NoTangent(), NoTangent(), NoTangent()), Base.depwarn, "message", :f) !== nothing
    @test rrule(Base.depwarn, "message", :f) !== nothing
end

@testset "base.jl: literal_pow" begin
    @testset "literal_pow: $b^$k" for b in [-1.5, 0.0, 3.5], k in [2, 3]
        b == 0 && k < 0 && continue
        @test check_frule(Base.literal_pow, ^, b, Val(k))
        @test check_rrule(Base.literal_pow, ^, b, Val(k))
    end
end

@testset "base.jl: Float conversions" begin
    Random.seed!(1)
    for conv in (float, Float32, Float64, AbstractFloat)
        # (a larger finite-difference step: Float32 results are coarse)
        @test check_frule(conv, 1.2; rtol=1.0e-3, atol=1.0e-3, eps=1.0e-3)
        @test isapprox(jvp(conv, 1, 1.7)[2], 1.7; rtol=1.0e-3, atol=1.0e-3)
        @test check_rrule(conv, 1.2; rtol=1.0e-3, atol=1.0e-3, eps=1.0e-3)
        # an integer argument: the cotangent passes through
        n = rand(Int)
        dy = randn()
        @test pullback(conv, n)[2](dy)[1] == dy
    end
    # no rule for every DataType by accident
    @test frule(NoRules, 1.0) === nothing
    @test rrule(NoRules, 1.0) === nothing
end

@testset "base.jl: map(f, ::Tuple...)" begin
    Random.seed!(1)
    @test check_rrule(map, identity, (1.0, 2.0))
    @test check_rrule(map, +, (1.0, 2.0), (3.0, 4.0))
    @test check_rrule(map, make_two_vec, (4.0, 5.0 + 6im))
    @test check_rrule(map, Multiplier(rand() + im), Tuple(rand(3)))
    # tuples of different lengths (allowed since Julia 1.10)
    @test check_rrule(map, Multiplier(4.5), (6.7, 8.9), (0.1, 0.2, 0.3))
end

@testset "base.jl: merge NamedTuple" begin
    @test check_rrule(merge, (; a=1.0), (; b=2.0))
    @test check_rrule(merge, (; a=1.0), (; a=2.0))
end

@testset "base.jl: hypot(x, y, z, xs...)" begin
    Random.seed!(1)
    for n in (3, 4)
        for sig in Iterators.product(ntuple(_ -> (Float64, ComplexF64), n)...)
            xs = randn.(sig)
            @test check_frule(hypot, xs...)
            @test check_rrule(hypot, xs...)
        end
    end
end
