# Facts from JuliaDiff/ChainRules.jl test/rulesets/Base/fastmath_able.jl (ported for Zyla's conformance suite).
# Upstream writes its tests once and runs them twice: as written (testset "fastmath_able Base
# functions") and with every FastMath-able function replaced by its Base.FastMath `*_fast`
# variant (testset "fastmath_able FastMath functions"). Here both copies are written out;
# their inner testsets are top-level, named "<outer>: <inner>" (a `@testset ... for` split per
# iteration where the iterations differ). In the FastMath copy the functions under test are the
# `_fast` ones; the arithmetic that only draws inputs is left plain. Random inputs are drawn
# after a fixed seed. Facts upstream reads off `rrule(f, xs...)[2](dy)` are asked of Zygote's
# `pullback(f, xs...)[2](dy)` (the same cotangents, without f's own), and those read off
# `frule((_, dxs...), f, xs...)` of Zyla's forward mode (`frule_jvp` below); facts about
# ChainRules' own API (a ZeroTangent result) call `rrule`/`frule` as upstream does.
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

# frule((_, dxs...), f, xs...) through Zyla's forward mode: (f(xs...), its tangent along dxs)
frule_jvp(dxs, f, xs...) = jvp(t -> f(t...), xs, dxs[2:end])
# Zygote's `nothing` is its zero cotangent (upstream's ZeroTangent, which test_approx takes as 0)
approx_zero(g) = g === nothing || isapprox(g, 0)

# upstream's complex_jacobian_test(f, z): the 2×2 real Jacobian of f, seen as a map of
# (real(z), imag(z)) to (real(f), imag(f)), from the rules agrees with finite differences
# (once for the frule, once for the rrule); here each row is a gradient check
function complex_jacobian_ok(f, z)
    a, b = float(real(z)), float(imag(z))
    return gradcheck((u, v) -> real(f(complex(u, v))), a, b) &&
           gradcheck((u, v) -> imag(f(complex(u, v))), a, b)
end
function complex_jacobian_test(f, z)
    @test complex_jacobian_ok(f, z)  # upstream: against frule
    @test complex_jacobian_ok(f, z)  # upstream: against rrule
end

function binary_type_checks(f, T, with_int_cases)
    x, dx, xbar = 10rand(T, 3)
    y, dy, ybar = rand(T, 3)
    @assert T == typeof(f(x, y))
    dz = randn(typeof(f(x, y)))
    @test frule_jvp((ZeroTangent(), dx, dy), f, x, y) isa Tuple{T, T}
    gx, gy = pullback(f, x, y)[2](dz)
    @test (gx, gy) isa Tuple{T, T}
    if with_int_cases  # all but hypot (ChainRules issue #233)
        @test frule_jvp((ZeroTangent(), dx, dy), f, x, 2) isa Tuple{T, T}
        gx, gy = pullback(f, x, 2)[2](dz)
        @test (gx, gy) isa Tuple{T, Float64}
        @test frule_jvp((ZeroTangent(), dx, dy), f, 2, y) isa Tuple{T, T}
        gx, gy = pullback(f, 2, y)[2](dz)
        @test (gx, gy) isa Tuple{Float64, T}
    end
end

# ==== fastmath_able Base functions ==========================================

function trig_basics_base(z)
    @test check_scalar(sin, z)
    @test check_scalar(cos, z)
    @test check_scalar(tan, z)
end
function trig_hyperbolic_base(z)
    @test check_scalar(sinh, z)
    @test check_scalar(cosh, z)
    @test check_scalar(tanh, z)
end
function trig_inverses_base(z)
    @test check_scalar(asin, z)
    @test check_scalar(acos, z)
    @test check_scalar(atan, z)
end
function pow_grads_base(cases)
    @testset "$a ^ $q" for ((a, q), (da, dq)) in cases
        if a isa Integer && q isa Integer && q < 0
            @test_throws DomainError (^(a, q))
            continue
        end
        y = ^(a, q)
        # forward
        @test isequal(y, frule_jvp((1, 1, 1), ^, a, q)[1])
        da_fwd = frule_jvp((0, 1, 0), ^, a, q)[2]
        dq_fwd = frule_jvp((0, 0, 1), ^, a, q)[2]
        @test isequal(da, da_fwd)
        if a === 0.0 && q === 0.5
            @test_broken isequal(dq, dq_fwd)
        else
            @test isequal(dq, dq_fwd)
        end
        da_fwd = frule_jvp((0, 1, ZeroTangent()), ^, a, q)[2]  # a strong zero for q
        @test isequal(da, da_fwd)
        # reverse
        @test isequal(y, pullback(^, a, q)[1])
        da_rev, dq_rev = pullback(^, a, q)[2](1)
        @test isequal(da, da_rev)
        @test isequal(dq, dq_rev)
    end
end

@testset "fastmath_able Base functions: Trig: Basics x=π-0.01" begin
    trig_basics_base(Float64(π) - 0.01)
end
@testset "fastmath_able Base functions: Trig: Basics x=π+π/2·im" begin
    trig_basics_base(Complex(π, π / 2))
end
@testset "fastmath_able Base functions: Trig: Hyperbolic x=π-0.01" begin
    trig_hyperbolic_base(Float64(π) - 0.01)
end
@testset "fastmath_able Base functions: Trig: Hyperbolic x=π-0.01+π/2·im" begin
    trig_hyperbolic_base(Complex(π - 0.01, π / 2))
end
@testset "fastmath_able Base functions: Trig: Inverses x=0.5" begin
    trig_inverses_base(0.5)
end
@testset "fastmath_able Base functions: Trig: Inverses x=0.5+0.25im" begin
    trig_inverses_base(Complex(0.5, 0.25))
end
@testset "fastmath_able Base functions: Trig: Multivariate: sincos(x::Float64)" begin
    Random.seed!(1)
    @test check_frule(sincos, randn(Float64))
    @test check_rrule(sincos, randn(Float64))
end
@testset "fastmath_able Base functions: Trig: Multivariate: sincos(x::ComplexF64)" begin
    Random.seed!(1)
    @test check_frule(sincos, randn(ComplexF64))
    @test check_rrule(sincos, randn(ComplexF64))
end

@testset "fastmath_able Base functions: exponents" begin
    for a in (-0.1, 7.9, 0.5 + 0.25im)
        @test check_scalar(inv, a)
        @test check_scalar(exp, a)
        @test check_scalar(exp2, a)
        @test check_scalar(exp10, a)
        @test check_scalar(expm1, a)
        if a isa Real
            @test check_scalar(cbrt, a)
        end
        if a isa Complex || a >= 0
            @test check_scalar(sqrt, a)
            @test check_scalar(log, a)
            @test check_scalar(log2, a)
            @test check_scalar(log10, a)
            @test check_scalar(log1p, a)
        end
    end
end

@testset "fastmath_able Base functions: Unary complex functions" begin
    for g in (abs, abs2, conj), w in (-4.1 - 0.02im, 6.4, 3 + im)
        @testset "Unary complex functions f = $g, z = $w" begin
            complex_jacobian_test(g, w)
        end
    end
    # angle of a real number has a zero derivative (ChainRules PR #196) rather than the one
    # of the complex plane, so it is tested at complex points and separately
    for w in (-4.1 - 0.02im, 6.4 + 0im, 3 + im)
        complex_jacobian_test(angle, w)
    end
    Random.seed!(1)
    @test frule((ZeroTangent(), randn()), angle, randn())[2] === ZeroTangent()
    @test rrule(angle, randn())[2](randn())[2] === ZeroTangent()
    # a real primal with a complex tangent gets a complex tangent
    dΩ = randn(ComplexF64)
    for r in (-0.5, 2.0)
        @test isapprox(frule_jvp((ZeroTangent(), dΩ), angle, r)[2],
                       frule_jvp((ZeroTangent(), dΩ), angle, complex(r))[2])
    end
end

@testset "fastmath_able Base functions: Unary functions" begin
    for a in (-4.1, 6.4, 0.0, 0.0 + 0.0im, 0.5 + 0.25im)
        @test check_scalar(+, a)
        @test check_scalar(-, a)
        @test check_scalar(atan, a)
        @test check_scalar(*, a)
    end
end

# binary functions
@testset "fastmath_able Base functions: binary functions: atan(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(atan, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(atan, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able Base functions: binary functions: rem(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(rem, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(rem, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able Base functions: binary functions: max(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(max, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(max, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able Base functions: binary functions: min(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(min, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(min, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able Base functions: binary functions: /(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(/, 10rand(T), rand(T))
    @test check_rrule(/, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: /(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(/, 10rand(T), rand(T))
    @test check_rrule(/, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: +(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(+, 10rand(T), rand(T))
    @test check_rrule(+, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: +(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(+, 10rand(T), rand(T))
    @test check_rrule(+, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: -(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(-, 10rand(T), rand(T))
    @test check_rrule(-, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: -(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(-, 10rand(T), rand(T))
    @test check_rrule(-, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: *(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(*, 10rand(T), rand(T))
    @test check_rrule(*, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: *(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(*, 10rand(T), rand(T))
    @test check_rrule(*, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: hypot(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(hypot, 10rand(T), rand(T))
    @test check_rrule(hypot, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: hypot(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(hypot, 10rand(T), rand(T))
    @test check_rrule(hypot, 10rand(T), rand(T))
end

@testset "fastmath_able Base functions: binary functions: /(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(/, Float32, true)
end

@testset "fastmath_able Base functions: binary functions: /(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(/, Float64, true)
end

@testset "fastmath_able Base functions: binary functions: +(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(+, Float32, true)
end

@testset "fastmath_able Base functions: binary functions: +(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(+, Float64, true)
end

@testset "fastmath_able Base functions: binary functions: -(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(-, Float32, true)
end

@testset "fastmath_able Base functions: binary functions: -(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(-, Float64, true)
end

@testset "fastmath_able Base functions: binary functions: \\(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks((\), Float32, true)
end

@testset "fastmath_able Base functions: binary functions: \\(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks((\), Float64, true)
end

@testset "fastmath_able Base functions: binary functions: hypot(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(hypot, Float32, false)
end

@testset "fastmath_able Base functions: binary functions: hypot(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(hypot, Float64, false)
end

@testset "fastmath_able Base functions: binary functions: ^(x::Float64, p::Float64)" begin
    Random.seed!(1)
    T, S = Float64, Float64
    @test check_frule(^, rand(T) + 3, rand(S) + 3)
    @test check_rrule(^, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(^, randn(T), rand(S))
        @test check_rrule(^, rand(T), rand(S))
    end
end

@testset "fastmath_able Base functions: binary functions: ^(x::Float64, p::ComplexF64)" begin
    Random.seed!(1)
    T, S = Float64, ComplexF64
    @test check_frule(^, rand(T) + 3, rand(S) + 3)
    @test check_rrule(^, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(^, randn(T), rand(S))
        @test check_rrule(^, rand(T), rand(S))
    end
end

@testset "fastmath_able Base functions: binary functions: ^(x::ComplexF64, p::Float64)" begin
    Random.seed!(1)
    T, S = ComplexF64, Float64
    @test check_frule(^, rand(T) + 3, rand(S) + 3)
    @test check_rrule(^, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(^, randn(T), rand(S))
        @test check_rrule(^, rand(T), rand(S))
    end
end

@testset "fastmath_able Base functions: binary functions: ^(x::ComplexF64, p::ComplexF64)" begin
    Random.seed!(1)
    T, S = ComplexF64, ComplexF64
    @test check_frule(^, rand(T) + 3, rand(S) + 3)
    @test check_rrule(^, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(^, randn(T), rand(S))
        @test check_rrule(^, rand(T), rand(S))
    end
end

@testset "fastmath_able Base functions: binary functions: x ^ p at regular points" begin
    pow_grads_base([(1.0, 2) => (2.0, 0.0), (2.0, 2) => (4.0, 2.772588722239781)])
end
@testset "fastmath_able Base functions: binary functions: x ^ p at x = ±0.0" begin
    # the x-gradients are clear here; for p what is best is less certain
    pow_grads_base([
        (0.0, 2) => (0.0, 0.0),
        (-0.0, 2) => (0.0, 0.0),  # (-0.0, 0.0) might be better
        (0.0, 1) => (1.0, 0.0),
        (-0.0, 1) => (1.0, 0.0),
        (0.0, 0) => (0.0, NaN),
        (-0.0, 0) => (0.0, NaN),
        (0.0, -1) => (-Inf, NaN),
        (-0.0, -1) => (-Inf, NaN),
        (0.0, -2) => (-Inf, NaN),
        (-0.0, -2) => (Inf, NaN),
    ])
end
@testset "fastmath_able Base functions: binary functions: x ^ p with integer x and p" begin
    # no InexactError
    pow_grads_base([
        (0, 2) => (0.0, 0.0),
        (0, 1) => (1.0, 0.0),
        (0, 0) => (0.0, NaN),
        (0, -1) => (-Inf, NaN),
        (0, -2) => (-Inf, NaN),
    ])
end
@testset "fastmath_able Base functions: binary functions: x ^ p with non-integer p" begin
    pow_grads_base([(0.0, 0.5) => (Inf, 0.0), (0.0, 3.5) => (0.0, 0.0), (0.0, -1.5) => (-Inf, NaN)])
end

@testset "fastmath_able Base functions: sign: real" begin
    @testset "at $a" for a in (-1.1, -1.1, 0.5, 100.0)
        @test check_scalar(sign, a)
    end
    @testset "ZeroTangent over the point discontinuity" begin
        # no finite differences here: the rule follows the subgradient convention
        xbar = pullback(sign, 0.0)[2](10.5)[1]
        @test approx_zero(xbar)
        ydot = frule_jvp((ZeroTangent(), 10.5), sign, 0.0)[2]
        @test approx_zero(ydot)
    end
end
@testset "fastmath_able Base functions: sign: complex" begin
    Random.seed!(1)
    @testset "at $w" for w in (-1.1 + randn() * im, 0.5 + randn() * im)
        @test check_scalar(sign, w)
        # a complex (co)tangent at a real primal gives what it gives at the complex primal
        # with zero imaginary part
        wdot, dΩ = randn(ComplexF64, 2)
        Ω, dΩfwd = frule_jvp((ZeroTangent(), wdot), sign, real(w))
        @test Ω == sign(real(w))
        @test dΩfwd ≈ frule_jvp((ZeroTangent(), wdot), sign, real(w) + 0im)[2]
        Ω, back = pullback(sign, real(w))
        @test Ω == sign(real(w))
        @test back(dΩ)[1] ≈ pullback(sign, real(w) + 0im)[2](dΩ)[1]
    end
    @testset "zero over the point discontinuity" begin
        wbar = pullback(sign, 0.0 + 0.0im)[2](randn(ComplexF64))[1]
        @test wbar == 0.0 + 0.0im
        Ωdot = frule_jvp((ZeroTangent(), randn(ComplexF64)), sign, 0.0 + 0.0im)[2]
        @test Ωdot == 0.0 + 0.0im
    end
end

# ==== fastmath_able FastMath functions ======================================

function trig_basics_fast(z)
    @test check_scalar(Base.FastMath.sin_fast, z)
    @test check_scalar(Base.FastMath.cos_fast, z)
    @test check_scalar(Base.FastMath.tan_fast, z)
end
function trig_hyperbolic_fast(z)
    @test check_scalar(Base.FastMath.sinh_fast, z)
    @test check_scalar(Base.FastMath.cosh_fast, z)
    @test check_scalar(Base.FastMath.tanh_fast, z)
end
function trig_inverses_fast(z)
    @test check_scalar(Base.FastMath.asin_fast, z)
    @test check_scalar(Base.FastMath.acos_fast, z)
    @test check_scalar(Base.FastMath.atan_fast, z)
end
function pow_grads_fast(cases)
    @testset "$a ^ $q" for ((a, q), (da, dq)) in cases
        if a isa Integer && q isa Integer && q < 0
            @test_throws DomainError (Base.FastMath.pow_fast(a, q))
            continue
        end
        y = Base.FastMath.pow_fast(a, q)
        # forward
        @test isequal(y, frule_jvp((1, 1, 1), Base.FastMath.pow_fast, a, q)[1])
        da_fwd = frule_jvp((0, 1, 0), Base.FastMath.pow_fast, a, q)[2]
        dq_fwd = frule_jvp((0, 0, 1), Base.FastMath.pow_fast, a, q)[2]
        @test isequal(da, da_fwd)
        if a === 0.0 && q === 0.5
            @test_broken isequal(dq, dq_fwd)
        else
            @test isequal(dq, dq_fwd)
        end
        da_fwd = frule_jvp((0, 1, ZeroTangent()), Base.FastMath.pow_fast, a, q)[2]  # a strong zero for q
        @test isequal(da, da_fwd)
        # reverse
        @test isequal(y, pullback(Base.FastMath.pow_fast, a, q)[1])
        da_rev, dq_rev = pullback(Base.FastMath.pow_fast, a, q)[2](1)
        @test isequal(da, da_rev)
        @test isequal(dq, dq_rev)
    end
end

@testset "fastmath_able FastMath functions: Trig: Basics x=π-0.01" begin
    trig_basics_fast(Float64(π) - 0.01)
end
@testset "fastmath_able FastMath functions: Trig: Basics x=π+π/2·im" begin
    trig_basics_fast(Complex(π, π / 2))
end
@testset "fastmath_able FastMath functions: Trig: Hyperbolic x=π-0.01" begin
    trig_hyperbolic_fast(Float64(π) - 0.01)
end
@testset "fastmath_able FastMath functions: Trig: Hyperbolic x=π-0.01+π/2·im" begin
    trig_hyperbolic_fast(Complex(π - 0.01, π / 2))
end
@testset "fastmath_able FastMath functions: Trig: Inverses x=0.5" begin
    trig_inverses_fast(0.5)
end
@testset "fastmath_able FastMath functions: Trig: Inverses x=0.5+0.25im" begin
    trig_inverses_fast(Complex(0.5, 0.25))
end
@testset "fastmath_able FastMath functions: Trig: Multivariate: sincos(x::Float64)" begin
    Random.seed!(1)
    @test check_frule(Base.FastMath.sincos_fast, randn(Float64))
    @test check_rrule(Base.FastMath.sincos_fast, randn(Float64))
end
@testset "fastmath_able FastMath functions: Trig: Multivariate: sincos(x::ComplexF64)" begin
    Random.seed!(1)
    @test check_frule(Base.FastMath.sincos_fast, randn(ComplexF64))
    @test check_rrule(Base.FastMath.sincos_fast, randn(ComplexF64))
end

@testset "fastmath_able FastMath functions: exponents" begin
    for a in (-0.1, 7.9, 0.5 + 0.25im)
        @test check_scalar(Base.FastMath.inv_fast, a)
        @test check_scalar(Base.FastMath.exp_fast, a)
        @test check_scalar(Base.FastMath.exp2_fast, a)
        @test check_scalar(Base.FastMath.exp10_fast, a)
        @test check_scalar(Base.FastMath.expm1_fast, a)
        if a isa Real
            @test check_scalar(Base.FastMath.cbrt_fast, a)
        end
        if a isa Complex || a >= 0
            @test check_scalar(Base.FastMath.sqrt_fast, a)
            @test check_scalar(Base.FastMath.log_fast, a)
            @test check_scalar(Base.FastMath.log2_fast, a)
            @test check_scalar(Base.FastMath.log10_fast, a)
            @test check_scalar(Base.FastMath.log1p_fast, a)
        end
    end
end

@testset "fastmath_able FastMath functions: Unary complex functions" begin
    for g in (Base.FastMath.abs_fast, Base.FastMath.abs2_fast, Base.FastMath.conj_fast), w in (-4.1 - 0.02im, 6.4, 3 + im)
        @testset "Unary complex functions f = $g, z = $w" begin
            complex_jacobian_test(g, w)
        end
    end
    # angle of a real number has a zero derivative (ChainRules PR #196) rather than the one
    # of the complex plane, so it is tested at complex points and separately
    for w in (-4.1 - 0.02im, 6.4 + 0im, 3 + im)
        complex_jacobian_test(Base.FastMath.angle_fast, w)
    end
    Random.seed!(1)
    @test frule((ZeroTangent(), randn()), Base.FastMath.angle_fast, randn())[2] === ZeroTangent()
    @test rrule(Base.FastMath.angle_fast, randn())[2](randn())[2] === ZeroTangent()
    # a real primal with a complex tangent gets a complex tangent
    dΩ = randn(ComplexF64)
    for r in (-0.5, 2.0)
        @test isapprox(frule_jvp((ZeroTangent(), dΩ), Base.FastMath.angle_fast, r)[2],
                       frule_jvp((ZeroTangent(), dΩ), Base.FastMath.angle_fast, complex(r))[2])
    end
end

@testset "fastmath_able FastMath functions: Unary functions" begin
    for a in (-4.1, 6.4, 0.0, 0.0 + 0.0im, 0.5 + 0.25im)
        @test check_scalar(Base.FastMath.add_fast, a)
        @test check_scalar(Base.FastMath.sub_fast, a)
        @test check_scalar(Base.FastMath.atan_fast, a)
        @test check_scalar(Base.FastMath.mul_fast, a)
    end
end

# binary functions
@testset "fastmath_able FastMath functions: binary functions: atan_fast(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(Base.FastMath.atan_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(Base.FastMath.atan_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able FastMath functions: binary functions: rem_fast(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(Base.FastMath.rem_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(Base.FastMath.rem_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able FastMath functions: binary functions: max_fast(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(Base.FastMath.max_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(Base.FastMath.max_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able FastMath functions: binary functions: min_fast(x, y)" begin
    Random.seed!(1)
    # away from the jumps of rem
    b = rand() + 1
    @test check_frule(Base.FastMath.min_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
    b = rand() + 1
    @test check_rrule(Base.FastMath.min_fast, (rand(0:10) + 0.6rand() + 0.2) * b, b)
end

@testset "fastmath_able FastMath functions: binary functions: div_fast(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(Base.FastMath.div_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.div_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: div_fast(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(Base.FastMath.div_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.div_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: add_fast(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(Base.FastMath.add_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.add_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: add_fast(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(Base.FastMath.add_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.add_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: sub_fast(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(Base.FastMath.sub_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.sub_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: sub_fast(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(Base.FastMath.sub_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.sub_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: mul_fast(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(Base.FastMath.mul_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.mul_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: mul_fast(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(Base.FastMath.mul_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.mul_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: hypot_fast(x::Float64, y::Float64)" begin
    Random.seed!(1)
    T = Float64
    @test check_frule(Base.FastMath.hypot_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.hypot_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: hypot_fast(x::ComplexF64, y::ComplexF64)" begin
    Random.seed!(1)
    T = ComplexF64
    @test check_frule(Base.FastMath.hypot_fast, 10rand(T), rand(T))
    @test check_rrule(Base.FastMath.hypot_fast, 10rand(T), rand(T))
end

@testset "fastmath_able FastMath functions: binary functions: div_fast(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.div_fast, Float32, true)
end

@testset "fastmath_able FastMath functions: binary functions: div_fast(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.div_fast, Float64, true)
end

@testset "fastmath_able FastMath functions: binary functions: add_fast(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.add_fast, Float32, true)
end

@testset "fastmath_able FastMath functions: binary functions: add_fast(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.add_fast, Float64, true)
end

@testset "fastmath_able FastMath functions: binary functions: sub_fast(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.sub_fast, Float32, true)
end

@testset "fastmath_able FastMath functions: binary functions: sub_fast(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.sub_fast, Float64, true)
end

@testset "fastmath_able FastMath functions: binary functions: \\(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks((\), Float32, true)
end

@testset "fastmath_able FastMath functions: binary functions: \\(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks((\), Float64, true)
end

@testset "fastmath_able FastMath functions: binary functions: hypot_fast(x::Float32, y::Float32) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.hypot_fast, Float32, false)
end

@testset "fastmath_able FastMath functions: binary functions: hypot_fast(x::Float64, y::Float64) type check" begin
    Random.seed!(1)
    binary_type_checks(Base.FastMath.hypot_fast, Float64, false)
end

@testset "fastmath_able FastMath functions: binary functions: pow_fast(x::Float64, p::Float64)" begin
    Random.seed!(1)
    T, S = Float64, Float64
    @test check_frule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    @test check_rrule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(Base.FastMath.pow_fast, randn(T), rand(S))
        @test check_rrule(Base.FastMath.pow_fast, rand(T), rand(S))
    end
end

@testset "fastmath_able FastMath functions: binary functions: pow_fast(x::Float64, p::ComplexF64)" begin
    Random.seed!(1)
    T, S = Float64, ComplexF64
    @test check_frule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    @test check_rrule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(Base.FastMath.pow_fast, randn(T), rand(S))
        @test check_rrule(Base.FastMath.pow_fast, rand(T), rand(S))
    end
end

@testset "fastmath_able FastMath functions: binary functions: pow_fast(x::ComplexF64, p::Float64)" begin
    Random.seed!(1)
    T, S = ComplexF64, Float64
    @test check_frule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    @test check_rrule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(Base.FastMath.pow_fast, randn(T), rand(S))
        @test check_rrule(Base.FastMath.pow_fast, rand(T), rand(S))
    end
end

@testset "fastmath_able FastMath functions: binary functions: pow_fast(x::ComplexF64, p::ComplexF64)" begin
    Random.seed!(1)
    T, S = ComplexF64, ComplexF64
    @test check_frule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    @test check_rrule(Base.FastMath.pow_fast, rand(T) + 3, rand(S) + 3)
    # both real with p not an integer: x must be positive (else a DomainError); otherwise
    # values near zero are tested too
    if !(T <: Real && S <: Real)
        @test check_frule(Base.FastMath.pow_fast, randn(T), rand(S))
        @test check_rrule(Base.FastMath.pow_fast, rand(T), rand(S))
    end
end

@testset "fastmath_able FastMath functions: binary functions: x ^ p at regular points" begin
    pow_grads_fast([(1.0, 2) => (2.0, 0.0), (2.0, 2) => (4.0, 2.772588722239781)])
end
@testset "fastmath_able FastMath functions: binary functions: x ^ p at x = ±0.0" begin
    # the x-gradients are clear here; for p what is best is less certain
    pow_grads_fast([
        (0.0, 2) => (0.0, 0.0),
        (-0.0, 2) => (0.0, 0.0),  # (-0.0, 0.0) might be better
        (0.0, 1) => (1.0, 0.0),
        (-0.0, 1) => (1.0, 0.0),
        (0.0, 0) => (0.0, NaN),
        (-0.0, 0) => (0.0, NaN),
        (0.0, -1) => (-Inf, NaN),
        (-0.0, -1) => (-Inf, NaN),
        (0.0, -2) => (-Inf, NaN),
        (-0.0, -2) => (Inf, NaN),
    ])
end
@testset "fastmath_able FastMath functions: binary functions: x ^ p with integer x and p" begin
    # no InexactError
    pow_grads_fast([
        (0, 2) => (0.0, 0.0),
        (0, 1) => (1.0, 0.0),
        (0, 0) => (0.0, NaN),
        (0, -1) => (-Inf, NaN),
        (0, -2) => (-Inf, NaN),
    ])
end
@testset "fastmath_able FastMath functions: binary functions: x ^ p with non-integer p" begin
    pow_grads_fast([(0.0, 0.5) => (Inf, 0.0), (0.0, 3.5) => (0.0, 0.0), (0.0, -1.5) => (-Inf, NaN)])
end

@testset "fastmath_able FastMath functions: sign: real" begin
    @testset "at $a" for a in (-1.1, -1.1, 0.5, 100.0)
        @test check_scalar(Base.FastMath.sign_fast, a)
    end
    @testset "ZeroTangent over the point discontinuity" begin
        # no finite differences here: the rule follows the subgradient convention
        xbar = pullback(Base.FastMath.sign_fast, 0.0)[2](10.5)[1]
        @test approx_zero(xbar)
        ydot = frule_jvp((ZeroTangent(), 10.5), Base.FastMath.sign_fast, 0.0)[2]
        @test approx_zero(ydot)
    end
end
@testset "fastmath_able FastMath functions: sign: complex" begin
    Random.seed!(1)
    @testset "at $w" for w in (-1.1 + randn() * im, 0.5 + randn() * im)
        @test check_scalar(Base.FastMath.sign_fast, w)
        # a complex (co)tangent at a real primal gives what it gives at the complex primal
        # with zero imaginary part
        wdot, dΩ = randn(ComplexF64, 2)
        Ω, dΩfwd = frule_jvp((ZeroTangent(), wdot), Base.FastMath.sign_fast, real(w))
        @test Ω == Base.FastMath.sign_fast(real(w))
        @test dΩfwd ≈ frule_jvp((ZeroTangent(), wdot), Base.FastMath.sign_fast, real(w) + 0im)[2]
        Ω, back = pullback(Base.FastMath.sign_fast, real(w))
        @test Ω == Base.FastMath.sign_fast(real(w))
        @test back(dΩ)[1] ≈ pullback(Base.FastMath.sign_fast, real(w) + 0im)[2](dΩ)[1]
    end
    @testset "zero over the point discontinuity" begin
        wbar = pullback(Base.FastMath.sign_fast, 0.0 + 0.0im)[2](randn(ComplexF64))[1]
        @test wbar == 0.0 + 0.0im
        Ωdot = frule_jvp((ZeroTangent(), randn(ComplexF64)), Base.FastMath.sign_fast, 0.0 + 0.0im)[2]
        @test Ωdot == 0.0 + 0.0im
    end
end
