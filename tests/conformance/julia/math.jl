# Facts from JuliaLang/julia test/math.jl (ported for Zyla's conformance suite).
# Upstream version: commit b589ed69c88e56f5a1dde0294e2de78af6e691e7.
# Most accuracy facts compare against BigFloat, as upstream does.
using Test
using Random
using LinearAlgebra

# true when `v` is a NaN of type T
isnan_type(::Type{T}, v) where {T} = isa(v, T) && isnan(v)

# the value before, the value itself, the value after
around(v) = (prevfloat(v), v, nextfloat(v))

# Thresholds of Base.Math's hyperbolic functions at the upstream commit
# (base/special/hyperbolic.jl); upstream imports them from Base.Math, and they only
# pick the sample points below.
small_h(::Type{Float64}) = 2.0^-28
small_h(::Type{Float32}) = 2f-12
medium_h(::Type{Float64}) = 22.0
medium_h(::Type{Float32}) = 9f0
large_h(::Type{Float64}) = 709.7822265633563
large_h(::Type{Float32}) = 88.72283f0
small_cosh(::Type{Float64}) = 2.7755602085408512e-17
small_cosh(::Type{Float32}) = 0.00024414062f0

# A Float wrapper with a non-standard real type (#25292).
struct FloatWrapper <: Real
    x::Float64
end
Base.:+(a::FloatWrapper, b::FloatWrapper) = FloatWrapper(a.x + b.x)
Base.:-(a::FloatWrapper, b::FloatWrapper) = FloatWrapper(a.x - b.x)
Base.:*(a::FloatWrapper, b::FloatWrapper) = FloatWrapper(a.x * b.x)
Base.:/(a::FloatWrapper, b::FloatWrapper) = FloatWrapper(a.x / b.x)
Base.:^(a::FloatWrapper, b::FloatWrapper) = FloatWrapper(a.x ^ b.x)
Base.sin(a::FloatWrapper) = FloatWrapper(sin(a.x))
Base.cos(a::FloatWrapper) = FloatWrapper(cos(a.x))
Base.exp(a::FloatWrapper) = FloatWrapper(exp(a.x))
Base.sinh(a::FloatWrapper) = FloatWrapper(sinh(a.x))
Base.cosh(a::FloatWrapper) = FloatWrapper(cosh(a.x))
Base.:-(a::FloatWrapper) = FloatWrapper(-a.x)
Base.isfinite(a::FloatWrapper) = isfinite(a.x)
Base.convert(::Type{FloatWrapper}, n::Int) = FloatWrapper(float(n))
Base.promote_rule(::Type{FloatWrapper}, ::Type{Int}) = FloatWrapper
Base.float(a::FloatWrapper) = a

# An AbstractFloat that only knows `^` (pr22716).
struct Float22716{T<:AbstractFloat} <: AbstractFloat
    x::T
end
Base.:^(a::Number, b::Float22716) = a^(b.x)

# Upstream's test helper Furlongs (test/testhelpers/Furlongs.jl): a quantity in
# furlongs^p, to check that functions keep units. Its `@eval` loops are written out.
struct Furlong{p,T<:Number} <: Number
    val::T
    Furlong{p,T}(v::Number) where {p,T} = new(v)
end
Furlong(v::T) where {T<:Number} = Furlong{1,T}(v)
Furlong(f::Furlong) = f
(::Type{T})(f::Furlong{0}) where {T<:Number} = T(f.val)::T
Furlong{p}(v::Number) where {p} = Furlong{p,typeof(v)}(v)
Furlong{p}(f::Furlong{q}) where {p,q} = (@assert(p == q); Furlong{p,typeof(f.val)}(f.val))
Furlong{p,T}(f::Furlong{q}) where {T,p,q} = (@assert(p == q); Furlong{p,T}(T(f.val)))
Base.promote_type(::Type{Furlong{p,T}}, ::Type{Furlong{p,S}}) where {p,T,S} =
    Furlong{p,promote_type(T, S)}
Base.one(f::Furlong{p,T}) where {p,T} = one(T)
Base.one(::Type{Furlong{p,T}}) where {p,T} = one(T)
Base.oneunit(f::Furlong{p,T}) where {p,T} = Furlong{p,T}(one(T))
Base.oneunit(::Type{Furlong{p,T}}) where {p,T} = Furlong{p,T}(one(T))
Base.zero(f::Furlong{p,T}) where {p,T} = Furlong{p,T}(zero(T))
Base.zero(::Type{Furlong{p,T}}) where {p,T} = Furlong{p,T}(zero(T))
Base.iszero(f::Furlong) = iszero(f.val)
Base.float(f::Furlong{p}) where {p} = Furlong{p}(float(f.val))
Base.eps(::Type{Furlong{p,T}}) where {p,T<:AbstractFloat} = Furlong{p}(eps(T))
Base.eps(::Furlong{p,T}) where {p,T<:AbstractFloat} = eps(Furlong{p,T})
Base.floatmin(::Type{Furlong{p,T}}) where {p,T<:AbstractFloat} = Furlong{p}(floatmin(T))
Base.floatmin(::Furlong{p,T}) where {p,T<:AbstractFloat} = floatmin(Furlong{p,T})
Base.floatmax(::Type{Furlong{p,T}}) where {p,T<:AbstractFloat} = Furlong{p}(floatmax(T))
Base.floatmax(::Furlong{p,T}) where {p,T<:AbstractFloat} = floatmax(Furlong{p,T})
Base.conj(f::Furlong{p,T}) where {p,T} = Furlong{p,T}(conj(f.val))
furlong_power(p) = isinteger(p) ? Int(p) : Rational{Int}(p)
Base.abs(f::Furlong{p}) where {p} = Furlong{p}(abs(f.val))
Base.abs2(f::Furlong{p}) where {p} = Furlong{furlong_power(2p)}(abs2(f.val))
Base.inv(f::Furlong{p}) where {p} = Furlong{furlong_power(-p)}(inv(f.val))
Base.isfinite(f::Furlong) = isfinite(f.val)
Base.isnan(f::Furlong) = isnan(f.val)
Base.isreal(f::Furlong) = isreal(f.val)
Base.isinf(f::Furlong) = isinf(f.val)
Base.real(f::Furlong{p}) where {p} = Furlong{p}(real(f.val))
Base.imag(f::Furlong{p}) where {p} = Furlong{p}(imag(f.val))
Base.complex(f::Furlong{p}) where {p} = Furlong{p}(complex(f.val))
Base.:+(f::Furlong{p}) where {p} = Furlong{p}(+(f.val))
Base.:-(f::Furlong{p}) where {p} = Furlong{p}(-(f.val))
Base.:+(f::Furlong{p}, g::Furlong{p}) where {p} = Furlong{p}(f.val + g.val)
Base.:-(f::Furlong{p}, g::Furlong{p}) where {p} = Furlong{p}(f.val - g.val)
import Base: ==, !=
==(f::Furlong{p}, g::Furlong{p}) where {p} = f.val == g.val
!=(f::Furlong{p}, g::Furlong{p}) where {p} = f.val != g.val
Base.:<(f::Furlong{p}, g::Furlong{p}) where {p} = f.val < g.val
Base.:<=(f::Furlong{p}, g::Furlong{p}) where {p} = f.val <= g.val
Base.isless(f::Furlong{p}, g::Furlong{p}) where {p} = isless(f.val, g.val)
Base.isequal(f::Furlong{p}, g::Furlong{p}) where {p} = isequal(f.val, g.val)
furlong_plus(v::T, ::Furlong{p}, ::Union{Furlong{q},Val{q}}) where {T,p,q} = Furlong{furlong_power(p + q),T}(v)
furlong_minus(v::T, ::Furlong{p}, ::Union{Furlong{q},Val{q}}) where {T,p,q} = Furlong{furlong_power(p - q),T}(v)
furlong_div(v::T, ::Furlong{p}, ::Union{Furlong{q},Val{q}}) where {T,p,q} = Furlong{furlong_power(p // q),T}(v)
Base.:*(f::Furlong{p}, g::Furlong{q}) where {p,q} = furlong_plus(f.val * g.val, f, g)
Base.:*(f::Furlong{p}, s::S) where {p,S<:Number} = f * Furlong{0,S}(s)
Base.:*(s::S, f::Furlong{p}) where {p,S<:Number} = Furlong{0,S}(s) * f
Base.:/(f::Furlong{p}, g::Furlong{q}) where {p,q} = furlong_minus(f.val / g.val, f, g)
Base.:/(f::Furlong{p}, s::S) where {p,S<:Number} = f / Furlong{0,S}(s)
Base.:/(s::S, f::Furlong{p}) where {p,S<:Number} = Furlong{0,S}(s) / f
Base.sqrt(f::Furlong) = furlong_div(sqrt(f.val), f, Val(2))

@testset "clamp" begin
    @test clamp(0, 1, 3) == 1
    @test clamp(1, 1, 3) == 1
    @test clamp(2, 1, 3) == 2
    @test clamp(3, 1, 3) == 3
    @test clamp(4, 1, 3) == 3

    @test clamp(0.0, 1, 3) == 1.0
    @test clamp(1.0, 1, 3) == 1.0
    @test clamp(2.0, 1, 3) == 2.0
    @test clamp(3.0, 1, 3) == 3.0
    @test clamp(4.0, 1, 3) == 3.0

    @test clamp.([0, 1, 2, 3, 4], 1.0, 3.0) == [1.0, 1.0, 2.0, 3.0, 3.0]
    @test clamp.([0 1; 2 3], 1.0, 3.0) == [1.0 1.0; 2.0 3.0]

    @test clamp(-200, Int8) === typemin(Int8)
    @test clamp(100, Int8) === Int8(100)
    @test clamp(200, Int8) === typemax(Int8)

    v = [0.0, 1.0, 2.0, 3.0, 4.0]
    clamp!(v, 1, 3)
    @test v == [1.0, 1.0, 2.0, 3.0, 3.0]
end

@testset "constants" begin
    @test pi != ℯ
    @test ℯ != 1//2
    @test 1//2 <= ℯ
    @test ℯ <= 15//3
    @test big(1//2) < ℯ
    @test ℯ < big(20//6)
    @test ℯ^pi == exp(pi)
    @test ℯ^2 == exp(2)
    @test ℯ^2.4 == exp(2.4)
    @test ℯ^(2//3) == exp(2//3)

    @test Float16(3.0) < pi
    @test pi < Float16(4.0)
    @test widen(pi) === pi

    @test occursin("3.14159", sprint(show, MIME"text/plain"(), π))
    @test repr(Any[pi ℯ; ℯ pi]) == "Any[π ℯ; ℯ π]"
    @test string(pi) == "π"
end

@testset "frexp,ldexp,significand,exponent" begin
    @testset "$T" for T in (Float16, Float32, Float64)
        for z in (zero(T), -zero(T))
            frexp(z) === (z, 0)
            significand(z) === z
            @test_throws DomainError exponent(z)
        end

        for (a, b) in [(T(12.8), T(0.8)),
                       (prevfloat(floatmin(T)), prevfloat(one(T), 2)),
                       (prevfloat(floatmin(T)), prevfloat(one(T), 2)),
                       (prevfloat(floatmin(T)), nextfloat(one(T), -2)),
                       (nextfloat(zero(T), 3), T(0.75)),
                       (prevfloat(zero(T), -3), T(0.75)),
                       (nextfloat(zero(T)), T(0.5))]
            n = Int(log2(a / b))
            @test frexp(a) == (b, n)
            @test ldexp(b, n) == a
            @test ldexp(a, -n) == b
            @test significand(a) == 2b
            @test exponent(a) == n - 1

            @test frexp(-a) == (-b, n)
            @test ldexp(-b, n) == -a
            @test ldexp(-a, -n) == -b
            @test significand(-a) == -2b
            @test exponent(-a) == n - 1
        end
        @test_throws DomainError exponent(convert(T, NaN))
        @test isnan_type(T, significand(convert(T, NaN)))
        fr, ex = frexp(convert(T, NaN))
        @test isnan_type(T, fr)
        @test ex == 0

        @testset "ldexp function" begin
            @test ldexp(T(0.0), 0) === T(0.0)
            @test ldexp(T(-0.0), 0) === T(-0.0)
            @test ldexp(T(Inf), 1) === T(Inf)
            @test ldexp(T(Inf), 10000) === T(Inf)
            @test ldexp(T(-Inf), 1) === T(-Inf)
            @test isnan_type(T, ldexp(T(NaN), 10))
            @test ldexp(T(1.0), 0) === T(1.0)
            @test ldexp(T(0.8), 4) === T(12.8)
            @test ldexp(T(-0.854375), 5) === T(-27.34)
            @test ldexp(T(1.0), typemax(Int)) === T(Inf)
            @test ldexp(T(1.0), typemin(Int)) === T(0.0)
            @test ldexp(prevfloat(floatmin(T)), typemax(Int)) === T(Inf)
            @test ldexp(prevfloat(floatmin(T)), typemin(Int)) === T(0.0)

            @test ldexp(T(0.0), Int128(0)) === T(0.0)
            @test ldexp(T(-0.0), Int128(0)) === T(-0.0)
            @test ldexp(T(1.0), Int128(0)) === T(1.0)
            @test ldexp(T(0.8), Int128(4)) === T(12.8)
            @test ldexp(T(-0.854375), Int128(5)) === T(-27.34)
            @test ldexp(T(1.0), typemax(Int128)) === T(Inf)
            @test ldexp(T(1.0), typemin(Int128)) === T(0.0)
            @test ldexp(prevfloat(floatmin(T)), typemax(Int128)) === T(Inf)
            @test ldexp(prevfloat(floatmin(T)), typemin(Int128)) === T(0.0)

            @test ldexp(T(0.0), BigInt(0)) === T(0.0)
            @test ldexp(T(-0.0), BigInt(0)) === T(-0.0)
            @test ldexp(T(1.0), BigInt(0)) === T(1.0)
            @test ldexp(T(0.8), BigInt(4)) === T(12.8)
            @test ldexp(T(-0.854375), BigInt(5)) === T(-27.34)
            @test ldexp(T(1.0), BigInt(typemax(Int128))) === T(Inf)
            @test ldexp(T(1.0), BigInt(typemin(Int128))) === T(0.0)
            @test ldexp(prevfloat(floatmin(T)), BigInt(typemax(Int128))) === T(Inf)
            @test ldexp(prevfloat(floatmin(T)), BigInt(typemin(Int128))) === T(0.0)

            # exactly rounded, against a BigFloat reference
            @test ldexp(floatmin(T), -1) == T(ldexp(big(floatmin(T)), -1))
            @test ldexp(floatmin(T), -2) == T(ldexp(big(floatmin(T)), -2))
            @test ldexp(floatmin(T)/2, 0) == T(ldexp(big(floatmin(T)/2), 0))
            @test ldexp(floatmin(T)/3, 0) == T(ldexp(big(floatmin(T)/3), 0))
            @test ldexp(floatmin(T)/3, -1) == T(ldexp(big(floatmin(T)/3), -1))
            @test ldexp(floatmin(T)/3, 11) == T(ldexp(big(floatmin(T)/3), 11))
            @test ldexp(floatmin(T)/11, -10) == T(ldexp(big(floatmin(T)/11), -10))
            @test ldexp(-floatmin(T)/11, -10) == T(ldexp(big(-floatmin(T)/11), -10))
        end
    end
end

@testset "basic math functions" begin
    @testset "$T" for T in (Float32, Float64)
        u = T(1//3)
        w = T(1//2)
        k = 4
        @testset "Random values" begin
            @test u^w ≈ big(u)^big(w)
            @test u^1 === u
            @test u^k ≈ big(u)^k
            @test acos(u) ≈ acos(big(u))
            @test acosh(1+u) ≈ acosh(big(1+u))
            @test asin(u) ≈ asin(big(u))
            @test asinh(u) ≈ asinh(big(u))
            @test atan(u) ≈ atan(big(u))
            @test atan(u, w) ≈ atan(big(u), big(w))
            @test atanh(u) ≈ atanh(big(u))
            @test cbrt(u) ≈ cbrt(big(u))
            @test cos(u) ≈ cos(big(u))
            @test cosh(u) ≈ cosh(big(u))
            @test exp(u) ≈ exp(big(u))
            @test exp10(u) ≈ exp10(big(u))
            @test exp2(u) ≈ exp2(big(u))
            @test expm1(u) ≈ expm1(big(u))
            @test hypot(u, w) ≈ hypot(big(u), big(w))
            @test hypot(u, u, w) ≈ hypot(hypot(big(u), big(u)), big(w))
            @test hypot(u, u, w, w) ≈ hypot(hypot(big(u), big(u)), hypot(big(w), big(w)))
            @test log(u) ≈ log(big(u))
            @test log10(u) ≈ log10(big(u))
            @test log1p(u) ≈ log1p(big(u))
            @test log2(u) ≈ log2(big(u))
            @test sin(u) ≈ sin(big(u))
            @test sinh(u) ≈ sinh(big(u))
            @test sqrt(u) ≈ sqrt(big(u))
            @test tan(u) ≈ tan(big(u))
            @test tanh(u) ≈ tanh(big(u))
            @test sec(u) ≈ sec(big(u))
            @test csc(u) ≈ csc(big(u))
            @test secd(u) ≈ secd(big(u))
            @test cscd(u) ≈ cscd(big(u))
            @test sech(u) ≈ sech(big(u))
            @test csch(u) ≈ csch(big(u))
        end
        @testset "Special values" begin
            @test isequal(T(1//4)^T(1//2), T(1//2))
            @test isequal(T(1//4)^2, T(1//16))
            @test isequal(acos(T(1)), T(0))
            @test isequal(acosh(T(1)), T(0))
            @test asin(T(1)) ≈ T(pi)/2 atol=eps(T)
            @test atan(T(1)) ≈ T(pi)/4 atol=eps(T)
            @test atan(T(1), T(1)) ≈ T(pi)/4 atol=eps(T)
            @test isequal(cbrt(T(0)), T(0))
            @test isequal(cbrt(T(1)), T(1))
            @test isequal(cbrt(T(1000000000)), T(1000))
            @test isequal(cos(T(0)), T(1))
            @test cos(T(pi)/2) ≈ T(0) atol=eps(T)
            @test isequal(cos(T(pi)), T(-1))
            @test exp(T(1)) ≈ T(ℯ) atol=10*eps(T)
            @test isequal(exp10(T(1)), T(10))
            @test isequal(exp2(T(1)), T(2))
            @test isequal(expm1(T(0)), T(0))
            @test expm1(T(1)) ≈ T(ℯ)-1 atol=10*eps(T)
            @test isequal(hypot(T(3), T(4)), T(5))
            @test isequal(hypot(floatmax(T), T(1)), floatmax(T))
            @test isequal(hypot(floatmin(T)*sqrt(eps(T)), T(0)), floatmin(T)*sqrt(eps(T)))
            @test isequal(floatmin(T)*hypot(1.368423059742933, 1.3510496552495361),
                          hypot(floatmin(T)*1.368423059742933, floatmin(T)*1.3510496552495361))
            @test isequal(log(T(1)), T(0))
            @test isequal(log(ℯ, T(1)), T(0))
            @test log(T(ℯ)) ≈ T(1) atol=eps(T)
            @test isequal(log10(T(1)), T(0))
            @test isequal(log10(T(10)), T(1))
            @test isequal(log1p(T(0)), T(0))
            @test log1p(T(ℯ)-1) ≈ T(1) atol=eps(T)
            @test isequal(log2(T(1)), T(0))
            @test isequal(log2(T(2)), T(1))
            @test isequal(sin(T(0)), T(0))
            @test isequal(sin(T(pi)/2), T(1))
            @test sin(T(pi)) ≈ T(0) atol=eps(T)
            @test isequal(sqrt(T(0)), T(0))
            @test isequal(sqrt(T(1)), T(1))
            @test isequal(sqrt(T(100000000)), T(10000))
            @test isequal(tan(T(0)), T(0))
            @test tan(T(pi)/4) ≈ T(1) atol=eps(T)
            @test isequal(sec(T(pi)), -one(T))
            @test isequal(csc(T(pi)/2), one(T))
            @test isequal(secd(T(180)), -one(T))
            @test isequal(cscd(T(90)), one(T))
            @test isequal(sech(log(one(T))), one(T))
            @test isequal(csch(zero(T)), T(Inf))
        end
        @testset "Inverses" begin
            @test acos(cos(u)) ≈ u
            @test acosh(cosh(u)) ≈ u
            @test asin(sin(u)) ≈ u
            @test cbrt(u)^3 ≈ u
            @test cbrt(u^3) ≈ u
            @test asinh(sinh(u)) ≈ u
            @test atan(tan(u)) ≈ u
            @test atan(u, w) ≈ atan(u/w)
            @test atanh(tanh(u)) ≈ u
            @test cos(acos(u)) ≈ u
            @test cosh(acosh(1+u)) ≈ 1+u
            @test exp(log(u)) ≈ u
            @test exp10(log10(u)) ≈ u
            @test exp2(log2(u)) ≈ u
            @test expm1(log1p(u)) ≈ u
            @test log(exp(u)) ≈ u
            @test log10(exp10(u)) ≈ u
            @test log1p(expm1(u)) ≈ u
            @test log2(exp2(u)) ≈ u
            @test sin(asin(u)) ≈ u
            @test sinh(asinh(u)) ≈ u
            @test sqrt(u)^2 ≈ u
            @test sqrt(u^2) ≈ u
            @test tan(atan(u)) ≈ u
            @test tanh(atanh(u)) ≈ u
        end
        @testset "Relations between functions" begin
            @test cosh(u) ≈ (exp(u)+exp(-u))/2
            @test cosh(u)^2-sinh(u)^2 ≈ 1
            @test hypot(u, w) ≈ sqrt(u^2+w^2)
            @test sin(u)^2+cos(u)^2 ≈ 1
            @test sinh(u) ≈ (exp(u)-exp(-u))/2
            @test tan(u) ≈ sin(u)/cos(u)
            @test tanh(u) ≈ sinh(u)/cosh(u)
            @test sec(u) ≈ inv(cos(u))
            @test csc(u) ≈ inv(sin(u))
            @test secd(u) ≈ inv(cosd(u))
            @test cscd(u) ≈ inv(sind(u))
            @test sech(u) ≈ inv(cosh(u))
            @test csch(u) ≈ inv(sinh(u))
        end
        @testset "Edge cases" begin
            @test isinf(log(zero(T)))
            @test isnan_type(T, log(convert(T, NaN)))
            @test_throws DomainError log(-one(T))
            @test isinf(log1p(-one(T)))
            @test isnan_type(T, log1p(convert(T, NaN)))
            @test_throws DomainError log1p(convert(T, -2.0))
            @test hypot(T(0), T(0)) === T(0)
            @test hypot(T(Inf), T(Inf)) === T(Inf)
            @test hypot(T(Inf), T(u)) === T(Inf)
            @test hypot(T(Inf), T(NaN)) === T(Inf)
            @test isnan_type(T, hypot(T(u), T(NaN)))
        end
    end
end

# The accuracy sweeps of "exp function" and "exp10 function" use the upstream ranges
# with steps 100 times coarser (upstream: 0.0002, 0.001, 0.00021, 0.0023), so that
# each testset stays well under the 60 s limit in an interpreter.
@testset "exp function" for T in (Float64, Float32)
    @testset "$T accuracy" begin
        pts = map(T, vcat(-10:0.02:10, -80:0.1:80, 2.0^-27, 2.0^-28, 2.0^-14, 2.0^-13))
        for p in pts
            got, ref = exp(p), exp(big(p))
            @test abs(got - ref) <= 1.0*eps(T(ref))
        end
    end
    @testset "$T edge cases" begin
        @test isnan_type(T, exp(T(NaN)))
        @test exp(T(-Inf)) === T(0.0)
        @test exp(T(Inf)) === T(Inf)
        @test exp(T(0.0)) === T(1.0)
        @test exp(T(5000.0)) === T(Inf)
        @test exp(T(-5000.0)) === T(0.0)
    end
end

@testset "exp10 function" begin
    @testset "accuracy" begin
        pts = map(Float64, vcat(-10:0.021:10, -35:0.23:100, -300:0.1:300))
        for p in pts
            got, ref = exp10(p), exp10(big(p))
            @test abs(got - ref) <= 1.2*eps(Float64(ref))
        end
        pts = map(Float32, vcat(-10:0.021:10, -35:0.23:35, -35:0.1:35))
        for p in pts
            got, ref = exp10(p), exp10(big(p))
            @test abs(got - ref) <= 1.2*eps(Float32(ref))
        end
    end
    @testset "$T edge cases" for T in (Float64, Float32)
        @test isnan_type(T, exp10(T(NaN)))
        @test exp10(T(-Inf)) === T(0.0)
        @test exp10(T(Inf)) === T(Inf)
        @test exp10(T(0.0)) === T(1.0)
        @test exp10(T(1.0)) === T(10.0)
        @test exp10(T(3.0)) === T(1000.0)
        @test exp10(T(5000.0)) === T(Inf)
        @test exp10(T(-5000.0)) === T(0.0)
    end
end

@testset "test abstractarray trig functions" begin
    M = rand(2, 2)
    M = (M + M')/2.
    SM = Symmetric(M)
    @test Array(atanh.(SM)) == atanh.(M)
    @test Array(asinh.(SM)) == asinh.(M)
    M .+= 1
    @test Array(acosh.(SM)) == acosh.(M)
    @test Array(acsch.(SM)) == acsch.(M)
    @test Array(acoth.(SM)) == acoth.(M)
end

@testset "check exp2(::Integer) matches exp2(::Float)" begin
    for n in -2048:2048
        want = exp2(float(n))
        @test exp2(Int16(n)) == want
        @test exp2(Int32(n)) == want
        @test exp2(Int64(n)) == want
        @test exp2(Int128(n)) == want
        if n >= 0
            @test exp2(UInt16(n)) == want
            @test exp2(UInt32(n)) == want
            @test exp2(UInt64(n)) == want
            @test exp2(UInt128(n)) == want
        end
    end
end

@testset "deg2rad/rad2deg" begin
    @testset "$T" for T in (Int, Float64, BigFloat)
        @test deg2rad(T(180)) ≈ 1pi
        @test deg2rad.(T[45, 60]) ≈ [pi/T(4), pi/T(3)]
        @test rad2deg.([pi/T(4), pi/T(3)]) ≈ [45, 60]
        @test rad2deg(T(1)*pi) ≈ 180
        @test rad2deg(T(1)) ≈ rad2deg(true)
        @test deg2rad(T(1)) ≈ deg2rad(true)
    end
    @test deg2rad(180 + 60im) ≈ pi + (pi/3)*im
    @test rad2deg(pi + (pi/3)*im) ≈ 180 + 60im
end

@testset "degree-based trig functions" begin
    @testset "$T" for T = (Float32, Float64, Rational{Int})
        fT = typeof(float(one(T)))
        fTsc = typeof((float(one(T)), float(one(T))))
        for d = -400:40:400
            @test sind(convert(T, d))::fT ≈ convert(fT, sin(pi/180*d)) atol=eps(deg2rad(convert(fT, d)))
            @test cosd(convert(T, d))::fT ≈ convert(fT, cos(pi/180*d)) atol=eps(deg2rad(convert(fT, d)))

            sv, cv = sincosd(convert(T, d))
            @test sv::fT ≈ convert(fT, sin(pi/180*d)) atol=eps(deg2rad(convert(fT, d)))
            @test cv::fT ≈ convert(fT, cos(pi/180*d)) atol=eps(deg2rad(convert(fT, d)))
        end
        @testset "sind" begin
            @test sind(convert(T, 0.0))::fT === zero(fT)
            @test sind(convert(T, 180.0))::fT === zero(fT)
            @test sind(convert(T, 360.0))::fT === zero(fT)
            T != Rational{Int} && @test sind(convert(T, -0.0))::fT === -zero(fT)
            @test sind(convert(T, -180.0))::fT === -zero(fT)
            @test sind(convert(T, -360.0))::fT === -zero(fT)
        end
        @testset "cosd" begin
            @test cosd(convert(T, 90))::fT === zero(fT)
            @test cosd(convert(T, 270))::fT === zero(fT)
            @test cosd(convert(T, -90))::fT === zero(fT)
            @test cosd(convert(T, -270))::fT === zero(fT)
        end
        @testset "sincosd" begin
            @test sincosd(convert(T, -360))::fTsc === (-zero(fT), one(fT))
            @test sincosd(convert(T, -270))::fTsc === (one(fT), zero(fT))
            @test sincosd(convert(T, -180))::fTsc === (-zero(fT), -one(fT))
            @test sincosd(convert(T, -90))::fTsc === (-one(fT), zero(fT))
            @test sincosd(convert(T, 0))::fTsc === (zero(fT), one(fT))
            @test sincosd(convert(T, 90))::fTsc === (one(fT), zero(fT))
            @test sincosd(convert(T, 180))::fTsc === (zero(fT), -one(fT))
            @test sincosd(convert(T, 270))::fTsc === (-one(fT), zero(fT))
        end
        @testset "sinpi and cospi" begin
            for r = -3:0.3:3
                @test sinpi(convert(T, r))::fT ≈ convert(fT, sin(pi*r)) atol=eps(pi*convert(fT, r))
                @test cospi(convert(T, r))::fT ≈ convert(fT, cos(pi*r)) atol=eps(pi*convert(fT, r))
            end

            @test sinpi(convert(T, 0.0))::fT === zero(fT)
            @test sinpi(convert(T, 1.0))::fT === zero(fT)
            @test sinpi(convert(T, 2.0))::fT === zero(fT)
            T != Rational{Int} && @test sinpi(convert(T, -0.0))::fT === -zero(fT)
            @test sinpi(convert(T, -1.0))::fT === -zero(fT)
            @test sinpi(convert(T, -2.0))::fT === -zero(fT)
            @test_throws DomainError sinpi(convert(T, Inf))

            @test cospi(convert(T, 0.5))::fT === zero(fT)
            @test cospi(convert(T, 1.5))::fT === zero(fT)
            @test cospi(convert(T, -0.5))::fT === zero(fT)
            @test cospi(convert(T, -1.5))::fT === zero(fT)
            @test_throws DomainError cospi(convert(T, Inf))
        end
        @testset "Check exact values" begin
            @test sind(convert(T, 30)) == 0.5
            @test cosd(convert(T, 60)) == 0.5
            @test sind(convert(T, 150)) == 0.5
            @test sinpi(one(T)/convert(T, 6)) == 0.5
            @test_throws DomainError sind(convert(T, Inf))
            @test_throws DomainError cosd(convert(T, Inf))
            T != Float32 && @test cospi(one(T)/convert(T, 3)) == 0.5
            T == Rational{Int} && @test sinpi(5//6) == 0.5
        end
    end
    sc = sincosd(missing)
    @test ismissing(sc[1])
    @test ismissing(sc[2])
end

@testset "Integer args to sinpi/cospi/sinc/cosc" begin
    @test sinpi(1) == 0
    @test sinpi(-1) == -0
    @test cospi(1) == -1
    @test cospi(2) == 1

    @test sinc(1) == 0
    @test sinc(complex(1, 0)) == 0
    @test sinc(0) == 1
    @test sinc(Inf) == 0
    @test cosc(1) == -1
    @test cosc(0) == 0
    @test cosc(complex(1, 0)) == -1
    @test cosc(Inf) == 0
end

@testset "Irrational args to sinpi/cospi/sinc/cosc" begin
    for c in (pi, ℯ, Base.MathConstants.golden)
        @test sinpi(c) ≈ Float64(sinpi(big(c)))
        @test cospi(c) ≈ Float64(cospi(big(c)))
        @test sinc(c) ≈ Float64(sinc(big(c)))
        @test cosc(c) ≈ Float64(cosc(big(c)))
        @test sinpi(complex(c, c)) ≈ Complex{Float64}(sinpi(complex(big(c), big(c))))
        @test cospi(complex(c, c)) ≈ Complex{Float64}(cospi(complex(big(c), big(c))))
        @test sinc(complex(c, c)) ≈ Complex{Float64}(sinc(complex(big(c), big(c))))
        @test cosc(complex(c, c)) ≈ Complex{Float64}(cosc(complex(big(c), big(c))))
    end
end

# (upstream "trig function type stability" checks Base.return_types, i.e. inference: left out)

@testset "subnormal flags" begin
    @test any(set_zero_subnormals(true) .== [false, true])
    @test any(get_zero_subnormals() .== [false, true])
    @test set_zero_subnormals(false)
    @test !get_zero_subnormals()
end

@testset "evalpoly" begin
    @test @evalpoly(2, 3, 4, 5, 6) == 3+2*(4+2*(5+2*6)) == @evalpoly(2+0im, 3, 4, 5, 6)
    c0 = 1
    c1 = 2
    at = 3
    @test @evalpoly(at, c0, c1) == 7
    @test @evalpoly(1, 2) == 2
end

@testset "evalpoly real" begin
    for t in -1.0:2.0, q1 in -3.0:3.0, q2 in -3.0:3.0, q3 in -3.0:3.0
        viamacro = @evalpoly(t, q1, q2, q3)
        @test evalpoly(t, (q1, q2, q3)) == viamacro
        @test evalpoly(t, [q1, q2, q3]) == viamacro
    end
end

@testset "evalpoly complex" begin
    for re in -1.0:2.0, im_ in -1.0:2.0, q1 in -3.0:3.0, q2 in -3.0:3.0, q3 in -3.0:3.0
        z = re + im * im_
        viamacro = @evalpoly(z, q1, q2, q3)
        @test evalpoly(z, (q1, q2, q3)) == viamacro
        @test evalpoly(z, [q1, q2, q3]) == viamacro
    end
    @test evalpoly(1+im, (2,)) == 2
    @test evalpoly(1+im, [2,]) == 2
end

@testset "cis" begin
    for z in (1.234, 1.234 + 5.678im)
        @test cis(z) ≈ exp(im*z)
    end
    let zs = [1.234, 5.678]
        @test cis.(zs) ≈ exp.(im*zs)
    end
end

@testset "modf" begin
    @testset "$elty" for elty in (Float16, Float32, Float64)
        @test modf(convert(elty, 1.2))[1] ≈ convert(elty, 0.2)
        @test modf(convert(elty, 1.2))[2] ≈ convert(elty, 1.0)
        @test modf(convert(elty, 1.0))[1] ≈ convert(elty, 0.0)
        @test modf(convert(elty, 1.0))[2] ≈ convert(elty, 1.0)
    end
end

@testset "frexp" begin
    @testset "$elty" for elty in (Float16, Float32, Float64)
        @test frexp(convert(elty, 0.5)) == (0.5, 0)
        @test frexp(convert(elty, 4.0)) == (0.5, 3)
        @test frexp(convert(elty, 10.5)) == (0.65625, 4)
    end
end

@testset "log/log1p" begin
    # Tang's algorithm: within 0.56 ulps
    samples = rand(100)
    for s in samples
        for n = -5:5
            sn = ldexp(s, n)
            for T in (Float32, Float64)
                st = T(s)

                got = log(st)
                ref = log(big(st))
                @test abs(got - ref) <= 0.56*eps(T(ref))

                got = log1p(st)
                ref = log1p(big(st))
                @test abs(got - ref) <= 0.56*eps(T(ref))

                if n <= 0
                    got = log1p(-st)
                    ref = log1p(big(-st))
                    @test abs(got - ref) <= 0.56*eps(T(ref))
                end
            end
        end
    end

    for n = 0:28
        @test log(2, 2^n) == n
    end
    setprecision(10_000) do
        @test log(2, big(2)^100) == 100
        @test log(2, big(2)^200) == 200
        @test log(2, big(2)^300) == 300
        @test log(2, big(2)^400) == 400
    end

    for T in (Float32, Float64)
        @test log(zero(T)) == -Inf
        @test isnan_type(T, log(T(NaN)))
        @test_throws DomainError log(-one(T))
        @test log1p(-one(T)) == -Inf
        @test isnan_type(T, log1p(T(NaN)))
        @test_throws DomainError log1p(-2*one(T))
    end
end

@testset "vectorization of 2-arg functions" begin
    twoargs = [copysign, flipsign, log, atan, hypot, max, min]
    @testset "$f" for f in twoargs
        a = b = 2
        want = [f(a, b)]
        @test f.([a], b) == want
        @test f.(a, [b]) == want
        @test f.([a], [b]) == want
    end
end

@testset "issues #3024, #12822, #24240" begin
    m2 = -2
    m3 = -3
    @test_throws DomainError 2 ^ m2
    @test 2 ^ -2 == 0.25 == (2^-1)^2
    @test_throws DomainError (-2)^(2.2)
    @test_throws DomainError (-2.0)^(2.2)
    @test_throws DomainError false ^ m2
    @test false ^ -2 == Inf
    @test 1 ^ -2 === (-1) ^ -2 == 1 ^ m2 === (-1) ^ m2 === 1
    @test (-1) ^ -1 === (-1) ^ -3 == (-1) ^ m3 === -1
    @test true ^ -2 == true ^ m2 === true
end

@testset "issue #13748" begin
    let P = [1 2; 3 4], Q = [5 6; 7 8], R = [9 10; 11 12]
        @test muladd(P, Q, R) == P*Q + R
    end
end

@testset "issue #19872" begin
    fifth(t) = t ^ 5
    tiny(t) = t ^ (-1024)
    @test 0 < tiny(2.0) < 1e-300
    @test issubnormal(2.0 ^ (-1024))
    @test issubnormal(tiny(2.0))
    @test !issubnormal(tiny(0.0))
    @test fifth(2.0) === 32.0
    @test !issubnormal(fifth(2.0))
    @test !issubnormal(0.0)
end

@testset "math.jl: cbrt of a negative through the AbstractFloat method" begin
    # no DomainError for negative values
    @test invoke(cbrt, Tuple{AbstractFloat}, -1.0) == -1.0
end

@testset "promote Float16 irrational #15359" begin
    @test typeof(Float16(.5) * pi) == Float16
end

@testset "sincos" begin
    @test sincos(1.0) === (sin(1.0), cos(1.0))
    @test sincos(1f0) === (sin(1f0), cos(1f0))
    @test sincos(Float16(1)) === (sin(Float16(1)), cos(Float16(1)))
    @test sincos(1) === (sin(1), cos(1))
    @test sincos(big(1)) == (sin(big(1)), cos(big(1)))
    @test sincos(big(1.0)) == (sin(big(1.0)), cos(big(1.0)))
    @test sincos(NaN) === (NaN, NaN)
    @test sincos(NaN32) === (NaN32, NaN32)
end

@testset "test fallback definitions" begin
    @test exp10(5) ≈ exp10(5.0)
    @test exp10(50//10) ≈ exp10(5.0)
    @test log10(exp10(ℯ)) ≈ ℯ
    @test log(ℯ) === 1
    @test exp2(Float16(2.0)) ≈ exp2(2.0)
    @test exp2(Float16(1.0)) === Float16(exp2(1.0))
    @test exp10(Float16(1.0)) === Float16(exp10(1.0))
end

@testset "math.jl: isapprox semantics (#22742)" begin
    @test !isapprox(1.0, 1.0+1e-12, atol=1e-14)
    @test isapprox(1.0, 1.0+0.5*sqrt(eps(1.0)))
    @test !isapprox(1.0, 1.0+1.5*sqrt(eps(1.0)), atol=sqrt(eps(1.0)))
end

@testset "math.jl: AbstractFloat fallbacks of exp2 and exp10 (pr22716)" begin
    let v = 2.0
        @test exp2(Float22716(v)) === 2^v
        @test exp10(Float22716(v)) === 10^v
    end
end

@testset "asin #23088" begin
    for T in (Float32, Float64)
        @test asin(zero(T)) === zero(T)
        @test asin(-zero(T)) === -zero(T)
        @test asin(nextfloat(zero(T))) === nextfloat(zero(T))
        @test asin(prevfloat(zero(T))) === prevfloat(zero(T))
        @test asin(one(T)) === T(pi)/2
        @test asin(-one(T)) === -T(pi)/2
        for s in (0.45, 0.6, 0.98)
            ref = asin(big(T(s)))
            @test T(abs(asin(T(s)) - ref))/eps(T(abs(ref))) <= 1
            refm = asin(big(T(-s)))
            @test T(abs(asin(T(-s)) - refm))/eps(T(abs(refm))) <= 1
        end
        @test_throws DomainError asin(-T(Inf))
        @test_throws DomainError asin(T(Inf))
        @test isnan_type(T, asin(T(NaN)))
    end
end

@testset "sin, cos, sincos, tan #23088" begin
    for T in (Float32, Float64)
        @test sin(zero(T)) === zero(T)
        @test sin(-zero(T)) === -zero(T)
        @test cos(zero(T)) === T(1.0)
        @test cos(-zero(T)) === T(1.0)
        @test sin(nextfloat(zero(T))) === nextfloat(zero(T))
        @test sin(prevfloat(zero(T))) === prevfloat(zero(T))
        @test cos(nextfloat(zero(T))) === T(1.0)
        @test cos(prevfloat(zero(T))) === T(1.0)
        for s in (0.1, 0.45, 0.6, 0.75, 0.79, 0.98)
            for op in (sin, cos, tan)
                ref = T(op(big(s)))
                @test abs(op(T(s)) - ref)/eps(ref) <= one(T)
                refm = T(op(big(-s)))
                @test abs(op(T(-s)) - refm)/eps(refm) <= one(T)
            end
        end
        @test_throws DomainError sin(-T(Inf))
        @test_throws DomainError sin(T(Inf))
        @test_throws DomainError cos(-T(Inf))
        @test_throws DomainError cos(T(Inf))
        @test_throws DomainError tan(-T(Inf))
        @test_throws DomainError tan(T(Inf))
        @test sin(T(NaN)) === T(NaN)
        @test cos(T(NaN)) === T(NaN)
        @test tan(T(NaN)) === T(NaN)
    end
end

# (upstream "rem_pio2 #23088" tests the internal Base.Math.rem_pio2_kernel: left out)

@testset "atan #23383" begin
    for T in (Float32, Float64)
        @test atan(T(NaN)) === T(NaN)
        @test atan(-T(Inf)) === -T(pi)/2
        @test atan(T(Inf)) === T(pi)/2
        # |x| < 7/16 needs no reduction
        @test atan(zero(T)) === zero(T)
        @test atan(prevfloat(zero(T))) === prevfloat(zero(T))
        @test atan(nextfloat(zero(T))) === nextfloat(zero(T))
        for s in (T(7/16), (T(7/16)+T(11/16))/2, T(11/16),
                  (T(11/16)+T(19/16))/2, T(19/16),
                  (T(19/16)+T(39/16))/2, T(39/16),
                  (T(39/16)+T(2)^23)/2, T(2)^23)
            # (upstream overwrites the loop value with 7/16 and its neighbours)
            s = T(7/16)
            ref = T(atan(big(s)))
            @test abs(atan(s) - ref)/eps(ref) <= one(T)
            s = prevfloat(T(7/16))
            ref = T(atan(big(s)))
            @test abs(atan(s) - ref)/eps(ref) <= one(T)
            s = nextfloat(T(7/16))
            ref = T(atan(big(s)))
            @test abs(atan(s) - ref)/eps(ref) <= one(T)
        end
        # a value that once found a bug
        @test atan(1.7581305072934137) ≈ 1.053644580517088
    end
end

@testset "atan" begin
    for T in (Float32, Float64)
        @test isnan_type(T, atan(T(NaN), T(NaN)))
        @test isnan_type(T, atan(T(NaN), T(0.1)))
        @test isnan_type(T, atan(T(0.1), T(NaN)))
        r = T(randn())
        ar = abs(r)
        # y zero
        @test atan(T(r), one(T)) === atan(T(r))
        @test atan(zero(T), ar) === zero(T)
        @test atan(-zero(T), ar) === -zero(T)
        @test atan(zero(T), -ar) === T(pi)
        @test atan(-zero(T), -ar) === -T(pi)
        # x zero, y not
        @test atan(one(T), zero(T)) === T(pi)/2
        @test atan(-one(T), zero(T)) === -T(pi)/2
        # both infinite
        @test atan(T(Inf), T(Inf)) === T(pi)/4
        @test atan(-T(Inf), T(Inf)) === -T(pi)/4
        @test atan(T(Inf), -T(Inf)) === 3*T(pi)/4
        @test atan(-T(Inf), -T(Inf)) === -3*T(pi)/4
        # x infinite, y finite
        @test atan(ar, T(Inf)) === zero(T)
        @test atan(-ar, T(Inf)) === -zero(T)
        @test atan(ar, -T(Inf)) === T(pi)
        @test atan(-ar, -T(Inf)) === -T(pi)
        # y infinite, x finite
        @test atan(T(Inf), ar) === T(pi)/2
        @test atan(-T(Inf), ar) === -T(pi)/2
        @test atan(T(Inf), -ar) === T(pi)/2
        @test atan(-T(Inf), -ar) === -T(pi)/2
        # |y/x| above the high threshold
        halfpi = T(1.5707963267948966)
        @test atan(T(2.0^61), T(1.0)) === halfpi
        @test atan(-T(2.0^61), T(1.0)) === -halfpi
        @test atan(T(2.0^61), -T(1.0)) === halfpi
        @test atan(-T(2.0^61), -T(1.0)) === -halfpi
        @test atan(-T(Inf), -ar) === -T(pi)/2
        # |y|/x between 0 and the low threshold
        @test atan(T(2.0^-61), -T(1.0)) === T(pi)
        @test atan(-T(2.0^-61), -T(1.0)) === -T(pi)
        # y/x "safe": just hit the branch
        pilo(::Type{Float32}) = -8.7422776573f-08
        pilo(::Type{Float64}) = 1.2246467991473531772E-16
        @test atan(T(5.0), T(2.5)) === atan(abs(T(5.0)/T(2.5)))
        @test atan(-T(5.0), T(2.5)) === -atan(abs(-T(5.0)/T(2.5)))
        @test atan(T(5.0), -T(2.5)) === T(pi)-(atan(abs(T(5.0)/-T(2.5)))-pilo(T))
        @test atan(-T(5.0), -T(2.5)) === -(T(pi)-atan(abs(-T(5.0)/-T(2.5)))-pilo(T))
        @test atan(T(1235.2341234), T(2.5)) === atan(abs(T(1235.2341234)/T(2.5)))
        @test atan(-T(1235.2341234), T(2.5)) === -atan(abs(-T(1235.2341234)/T(2.5)))
        @test atan(T(1235.2341234), -T(2.5)) === T(pi)-(atan(abs(T(1235.2341234)/-T(2.5)))-pilo(T))
        @test atan(-T(1235.2341234), -T(2.5)) === -(T(pi)-(atan(abs(-T(1235.2341234)/T(2.5)))-pilo(T)))
    end
end

@testset "atand" begin
    for T in (Float32, Float64)
        r = T(randn())
        ar = abs(r)

        # one argument
        @test atand(T(Inf)) === T(90.0)
        @test atand(-T(Inf)) === -T(90.0)
        @test atand(zero(T)) === T(0.0)
        @test atand(one(T)) === T(45.0)
        @test atand(-one(T)) === -T(45.0)

        # two arguments; x == 1 gives the one-argument value
        @test atand(T(r), one(T)) === atand(T(r))
        # y zero
        @test atand(zero(T), ar) === zero(T)
        @test atand(-zero(T), ar) === -zero(T)
        @test atand(zero(T), -ar) === T(180.0)
        @test atand(-zero(T), -ar) === -T(180.0)
        # x zero, y not
        @test atand(one(T), zero(T)) === T(90.0)
        @test atand(-one(T), zero(T)) === -T(90.0)
        # x and y equal in each quadrant
        @test atand(+ar, +ar) === T(45.0)
        @test atand(-ar, +ar) === -T(45.0)
        @test atand(+ar, -ar) === T(135.0)
        @test atand(-ar, -ar) === -T(135.0)
    end
end

@testset "acos #23283" begin
    for T in (Float32, Float64)
        @test acos(zero(T)) === T(pi)/2
        @test acos(-zero(T)) === T(pi)/2
        @test acos(nextfloat(zero(T))) === T(pi)/2
        @test acos(prevfloat(zero(T))) === T(pi)/2
        @test acos(one(T)) === T(0.0)
        @test acos(-one(T)) === T(pi)
        for s in (0.45, 0.6, 0.98)
            ref = acos(big(T(s)))
            @test T((acos(T(s)) - ref))/eps(abs(T(ref))) <= 1
            refm = acos(big(T(-s)))
            @test T(abs(acos(T(-s)) - refm))/eps(abs(T(refm))) <= 1
        end
        @test_throws DomainError acos(-T(Inf))
        @test_throws DomainError acos(T(Inf))
        @test isnan_type(T, acos(T(NaN)))
    end
end

@testset "sinh" begin
    for T in (Float32, Float64)
        @test sinh(zero(T)) === zero(T)
        @test sinh(-zero(T)) === -zero(T)
        @test sinh(nextfloat(zero(T))) === nextfloat(zero(T))
        @test sinh(prevfloat(zero(T))) === prevfloat(zero(T))
        @test sinh(T(1000)) === T(Inf)
        @test sinh(-T(1000)) === -T(Inf)
        @test isnan_type(T, sinh(T(NaN)))
        for s in Iterators.flatten(around.([small_h(T), medium_h(T), large_h(T)]))
            @test sinh(s) ≈ sinh(big(s)) rtol=eps(T)
            @test sinh(-s) ≈ sinh(big(-s)) rtol=eps(T)
        end
    end
end

@testset "cosh" begin
    for T in (Float32, Float64)
        @test cosh(zero(T)) === one(T)
        @test cosh(-zero(T)) === one(T)
        @test cosh(nextfloat(zero(T))) === one(T)
        @test cosh(prevfloat(zero(T))) === one(T)
        @test cosh(T(1000)) === T(Inf)
        @test cosh(-T(1000)) === T(Inf)
        @test isnan_type(T, cosh(T(NaN)))
        for s in Iterators.flatten(around.([small_cosh(T), medium_h(T), large_h(T)]))
            @test cosh(s) ≈ cosh(big(s)) rtol=eps(T)
            @test cosh(-s) ≈ cosh(big(-s)) rtol=eps(T)
        end
    end
end

@testset "tanh" begin
    for T in (Float32, Float64)
        @test tanh(zero(T)) === zero(T)
        @test tanh(-zero(T)) === -zero(T)
        @test tanh(nextfloat(zero(T))) === nextfloat(zero(T))
        @test tanh(prevfloat(zero(T))) === prevfloat(zero(T))
        @test tanh(T(1000)) === one(T)
        @test tanh(-T(1000)) === -one(T)
        @test isnan_type(T, tanh(T(NaN)))
        for s in Iterators.flatten(around.([small_h(T), T(1.0), medium_h(T)]))
            @test tanh(s) ≈ tanh(big(s)) rtol=eps(T)
            @test tanh(-s) ≈ tanh(big(-s)) rtol=eps(T)
        end
    end
end

@testset "asinh" begin
    for T in (Float32, Float64)
        @test asinh(zero(T)) === zero(T)
        @test asinh(-zero(T)) === -zero(T)
        @test asinh(nextfloat(zero(T))) === nextfloat(zero(T))
        @test asinh(prevfloat(zero(T))) === prevfloat(zero(T))
        @test isnan_type(T, asinh(T(NaN)))
        for s in Iterators.flatten(around.([T(2)^-28, T(2), T(2)^28]))
            @test asinh(s) ≈ asinh(big(s)) rtol=eps(T)
            @test asinh(-s) ≈ asinh(big(-s)) rtol=eps(T)
        end
    end
end

@testset "acosh" begin
    for T in (Float32, Float64)
        @test_throws DomainError acosh(T(0.1))
        @test acosh(one(T)) === zero(T)
        @test isnan_type(T, acosh(T(NaN)))
        for s in Iterators.flatten(around.([nextfloat(T(1.0)), T(2), T(2)^28]))
            @test acosh(s) ≈ acosh(big(s)) rtol=eps(T)
        end
    end
end

@testset "atanh" begin
    for T in (Float32, Float64)
        @test_throws DomainError atanh(T(1.1))
        @test atanh(zero(T)) === zero(T)
        @test atanh(-zero(T)) === -zero(T)
        @test atanh(one(T)) === T(Inf)
        @test atanh(-one(T)) === -T(Inf)
        @test atanh(nextfloat(zero(T))) === nextfloat(zero(T))
        @test atanh(prevfloat(zero(T))) === prevfloat(zero(T))
        @test isnan_type(T, atanh(T(NaN)))
        for s in Iterators.flatten(around.([T(2.0)^-28, T(0.5)]))
            @test atanh(s) ≈ atanh(big(s)) rtol=eps(T)
            @test atanh(-s) ≈ atanh(big(-s)) rtol=eps(T)
        end
    end
end

@testset "exp(Complex(a, b)) for a and b of non-standard real type #25292" begin
    a = FloatWrapper(3.1)
    b = FloatWrapper(4.1)
    @test sincos(a) == (sin(a), cos(a))
    z = Complex(a, b)
    @test isa(exp(z), Complex)
    @test isa(sin(z), Complex)
    @test isa(cos(z), Complex)
end

@testset "cbrt" begin
    for T in (Float32, Float64)
        @test cbrt(zero(T)) === zero(T)
        @test cbrt(-zero(T)) === -zero(T)
        @test cbrt(one(T)) === one(T)
        @test cbrt(-one(T)) === -one(T)
        @test cbrt(T(Inf)) === T(Inf)
        @test cbrt(-T(Inf)) === -T(Inf)
        @test isnan_type(T, cbrt(T(NaN)))
        for s in (around(nextfloat(nextfloat(zero(T))))...,
                  around(prevfloat(prevfloat(zero(T))))...,
                  0.45, 0.6, 0.98,
                  map(t -> t^3, 1.0:1.0:1024.0)...,
                  nextfloat(-T(Inf)), prevfloat(T(Inf)))
            ref = cbrt(big(T(s)))
            @test cbrt(T(s)) ≈ ref rtol=eps(T)
            refm = cbrt(big(T(-s)))
            @test cbrt(T(-s)) ≈ refm rtol=eps(T)
        end
    end
end

@testset "hypot" begin
    @test hypot(0, 0) == 0.0
    @test hypot(3, 4) == 5.0
    @test hypot(NaN, Inf) == Inf
    @test hypot(Inf, NaN) == Inf
    @test hypot(Inf, Inf) == Inf

    @test hypot(Furlong(0), Furlong(0)) == Furlong(0.0)
    @test hypot(Furlong(3), Furlong(4)) == Furlong(5.0)
    @test hypot(Complex(3), Complex(4)) == 5.0
end
