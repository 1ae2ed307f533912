# Base.Math functions written over Zyla's primitives (so gradients come for free), and
# Base.FastMath. The bit-level ones (nextfloat, frexp, ldexp, exponent, ...) are host
# primitives in lang/core/primitives_math.py.

# --- degrees ------------------------------------------------------------------------------

# sind/cosd reduce the angle exactly (rem by 360 is exact) and use the symmetry of the
# circle, so multiples of 90 give exact zeros and ones and ±30/±150 give exactly ±0.5,
# as Julia's (which evaluates in extended precision) does.
function _sind_reduced(rx)
    arx = abs(rx)
    if rx == 0
        return rx
    elseif arx == 30
        return copysign(oftype(rx, 0.5), rx)
    elseif arx < 45
        return sin(deg2rad(rx))
    elseif arx <= 135
        return copysign(_cosd_first(90 - arx), rx)
    elseif arx == 180
        return copysign(zero(rx), rx)
    elseif arx == 150
        return copysign(oftype(rx, 0.5), rx)
    elseif arx < 225
        return _sind_first((180 - arx) * sign(rx))
    elseif arx <= 315
        return -copysign(_cosd_first(270 - arx), rx)
    else
        return _sind_first(rx - copysign(oftype(rx, 360), rx))
    end
end

# sine and cosine of an angle in [-45, 45] degrees
_sind_first(r) = abs(r) == 30 ? copysign(oftype(r, 0.5), r) : sin(deg2rad(r))
_cosd_first(r) = abs(r) == 60 ? oftype(r, 0.5) : cos(deg2rad(r))

function _deg_arg(x, name)
    isinf(x) && throw(DomainError(x, "$name(x) is only defined for finite x."))
    return float(rem(x, 360))
end

function sind(x::Real)
    isnan(x) && return float(x)
    rx = _deg_arg(x, "sind")
    return _sind_reduced(copysign(rx, float(x)))
end

function cosd(x::Real)
    isnan(x) && return float(x)
    rx = abs(_deg_arg(x, "cosd"))
    if rx <= 45
        return _cosd_first(rx)
    elseif rx < 135
        return _sind_first(90 - rx)
    elseif rx <= 225
        return -_cosd_first(180 - rx)
    elseif rx < 315
        return _sind_first(rx - 270)
    else
        return _cosd_first(360 - rx)
    end
end

sincosd(x::Real) = (sind(x), cosd(x))
sincosd(::Missing) = (missing, missing)
tand(x::Real) = sind(x) / cosd(x)
secd(x::Real) = inv(cosd(x))
cscd(x::Real) = inv(sind(x))
cotd(x::Real) = inv(tand(x))
asind(x::Number) = rad2deg(asin(x))
acosd(x::Number) = rad2deg(acos(x))
atand(y::Number) = rad2deg(atan(y))
atand(y::Real, x::Real) = rad2deg(atan(y, x))
asecd(x::Number) = rad2deg(acos(inv(x)))
acscd(x::Number) = rad2deg(asin(inv(x)))
acotd(x::Number) = rad2deg(atan(inv(x)))

# --- sinc, cosc, modf, literal_pow, clamp to a type ------------------------------------------

# the derivative of sinc: (cos(πx) - sinc(x)) / x, and 0 at x == 0 (a series near 0)
function cosc(x::Real)
    fx = float(x)
    if abs(fx) < oftype(fx, 1.0e-3)
        px2 = (pi * fx)^2
        return -(pi^2 * fx / 3) * (1 - px2 / 10 + px2^2 / 280)
    end
    isinf(fx) && return zero(fx)
    return (cospi(fx) - sinc(fx)) / fx
end
function cosc(z::Complex)
    fz = float(z)
    if abs(fz) < 1.0e-3
        pz2 = (pi * fz)^2
        return -(pi^2 * fz / 3) * (1 - pz2 / 10 + pz2^2 / 280)
    end
    isinf(real(fz)) && isfinite(imag(fz)) && return zero(fz)
    return (cospi(fz) - sinc(fz)) / fz
end

# (fractional part, integral part), both with x's sign
function modf(x::AbstractFloat)
    isinf(x) && return (copysign(zero(x), x), x)
    i = trunc(x)
    return (copysign(x - i, x), i)
end
modf(x::Real) = modf(float(x))

literal_pow(f, x, ::Val{p}) where {p} = f(x, p)

hypot(x::Number) = abs(float(x))

# conversion to "some float": the float type of x (Float64 for an integer)
AbstractFloat(x::Real) = float(x)

clamp(x::Integer, ::Type{T}) where {T<:Integer} = T(clamp(x, typemin(T), typemax(T)))

# subnormals: Zyla cannot switch flushing them to zero on, so set_zero_subnormals(true)
# answers false ("not done"), as Julia's does on hardware without the mode; false succeeds
get_zero_subnormals() = false
set_zero_subnormals(yes::Bool) = !yes

# Bool powers (Julia's power_by_squaring): true^p is true; false^p is false for p > 0, true
# for p == 0, and a DomainError for p < 0
function ^(x::Bool, p::Integer)
    p < 0 && !x && throw(DomainError(p, "Cannot raise an integer x to a negative power $p."))
    return p == 0 || x
end

# --- reciprocal trigonometric and hyperbolic functions (Julia's definitions) ------------------

sech(x::Number) = inv(cosh(x))
csch(x::Number) = inv(sinh(x))
coth(x::Number) = inv(tanh(x))
asec(x::Number) = acos(inv(x))
acsc(x::Number) = asin(inv(x))
acot(x::Number) = atan(inv(x))
asech(x::Number) = acosh(inv(x))
acsch(x::Number) = asinh(inv(x))
acoth(x::Number) = atanh(inv(x))

# the partial derivatives of y = x ^ p of real numbers, with ChainRules' values where x is
# zero: ∂x is p x^(p-1) (0 for p = 0, and +0.0 rather than -0.0 at x = -0.0), computed
# from x at x = 0 too, so that it differentiates again (the second derivative of x^2 at 0
# is 2); ∂p is y log|x| (0 at x = 0 for p > 0, NaN for p <= 0). The choices are `ifelse`s,
# not branches: compiled code differentiates them to any order (the unchosen value is
# kept finite: log is taken of 1 where x is 0).
Core.pow_grad_x(x::Real, p::Real, y) =
    ifelse(iszero(p), zero(y), Core.pow_dx(p * Core.pow_float(x)^(p - 1), x, p, y))
# (at x = 0 with p > 1, y is a zero: adding |y| turns a -0.0 into 0.0 and changes no
# derivative, and XLA cannot fold it away as it folds `+ 0.0`)
Core.pow_dx(g, x, p, y) = ifelse(iszero(x) & (p > 1), g + abs(y), g)
Core.pow_grad_p(x::Real, p::Real, y) = ifelse(iszero(x), ifelse(p > 0, zero(y), oftype(y, NaN)),
    y * log(abs(ifelse(iszero(x), one(Core.pow_float(x)), Core.pow_float(x)))))
Core.pow_grad_x(x, p, y) = p * x^(p - 1)
# float(x) in a form compiled code runs (float itself is a host function)
Core.pow_float(x) = x isa Integer ? Float64(x) : x
Core.pow_grad_p(x, p, y) = y * log(x)

# the cotangent of an argument of `+` or `-` whose size differs from the result's only in
# trailing dimensions of length 1 (`rand(3) + rand(3, 1)`); under broadcasting (`.+`, the
# same rule) the cotangent is summed down to each argument's size afterwards
# (chosen by dispatch: the common case reads nothing, which nested AD's alias check prefers)
Core.cot_like(dz, x) = dz
Core.cot_like(dz::AbstractArray{T, N}, x::AbstractArray{S, N}) where {T, S, N} = dz
Core.cot_like(dz::AbstractArray, x::AbstractArray) =
    length(dz) == length(x) ? reshape(dz, size(x)) : dz

# --- derivatives of division by a matrix ------------------------------------------------------
# X = A \ B is A⁺B, A⁺ the pseudo-inverse (A⁻¹ for a square A). For A of full rank,
# dA⁺ = -A⁺ dA A⁺ + A⁺A⁺' dA' (I - AA⁺) + (I - A⁺A) dA' A⁺'A⁺; the two last terms vanish
# for a square A. A vector a is the m×1 matrix (a \ b a number, a \ B a 1×k row).

# (the rules of `/` and `\` choose by dispatch: the scalar case reads nothing more)
Core.div_back(dz, z, x, y) = (dz ./ y, -sum(dz .* z) / y)
Core.div_back(dz, z, x, y::AbstractArray) = Core.rdiv_back(dz, z, x, y)
Core.div_fwd(dx, dy, z, x, y) = (dx - z * dy) / y
Core.div_fwd(dx, dy, z, x, y::AbstractArray) = Core.rdiv_fwd(dx, dy, z, x, y)
Core.ldiv_back(dz, z, a, b) = (-sum(dz .* z) / a, dz ./ a)

function Core.ldiv_back(dY, Y, A::AbstractMatrix, B)
    dB = A' \ dY
    size(A, 1) == size(A, 2) && return (-(dB * Y'), dB)
    dA = (A' \ Y) * (dY' - dB' * A) - dB * Y' + ((B - A * Y) * dB') / A'
    return (dA, dB)
end
function Core.ldiv_back(dy, y, a::AbstractVector, B)
    dA, dB = Core.ldiv_back(Core.as_column(dy), Core.as_column(y), reshape(a, length(a), 1), B)
    return (vec(dA), dB)
end
Core.as_column(y::Number) = [y]
Core.as_column(y) = y

Core.ldiv_fwd(dA, dB, X, A::Number, B) = (dB - dA * X) / A
function Core.ldiv_fwd(dA, dB, X, A::AbstractMatrix, B)
    size(A, 1) == size(A, 2) && return A \ (dB - dA * X)
    W = dA' * (A' \ X)
    return W + A \ (dB - dA * X + A' \ (dA' * (B - A * X)) - A * W)
end
function Core.ldiv_fwd(da, dB, x, a::AbstractVector, B)
    m = length(a)
    dX = Core.ldiv_fwd(reshape(da, m, 1), dB, Core.as_column(x), reshape(a, m, 1), B)
    return x isa Number ? dX[1] : dX
end

# Z = X / Y is (Y' \ X')'
function Core.rdiv_back(dZ, Z, X, Y)
    dYt, dXt = Core.ldiv_back(Core.as_rows(dZ), Core.as_rows(Z), Core.as_rows(Y), Core.as_rows(X))
    return (reshape(permutedims(dXt), size(X)), reshape(permutedims(dYt), size(Y)))
end
Core.rdiv_fwd(dX, dY, Z, X, Y) = permutedims(Core.ldiv_fwd(Core.as_rows(dY), Core.as_rows(dX),
    Core.as_rows(Z), Core.as_rows(Y), Core.as_rows(X)))
# the transpose of a vector or matrix as a matrix (a vector is a column)
Core.as_rows(x::AbstractVector) = reshape(x, 1, length(x))
Core.as_rows(x::AbstractMatrix) = permutedims(x)

# --- Base.FastMath: the ordinary functions (Julia's differ only in rounding) -------------------

module FastMath
add_fast(x) = x
add_fast(x, y) = x + y
add_fast(x, y, zs...) = add_fast(x + y, zs...)
sub_fast(x) = -x
sub_fast(x, y) = x - y
mul_fast(x) = x
mul_fast(x, y) = x * y
mul_fast(x, y, zs...) = mul_fast(x * y, zs...)
div_fast(x, y) = x / y
rem_fast(x, y) = rem(x, y)
pow_fast(x, y) = x^y
neg_fast(x) = -x
inv_fast(x) = inv(x)
abs_fast(x) = abs(x)
abs2_fast(x) = abs2(x)
conj_fast(x) = conj(x)
sign_fast(x) = sign(x)
angle_fast(x) = angle(x)
max_fast(x, y) = max(x, y)
min_fast(x, y) = min(x, y)
minmax_fast(x, y) = minmax(x, y)
hypot_fast(x, y) = hypot(x, y)
atan_fast(x) = atan(x)
atan_fast(y, x) = atan(y, x)
sincos_fast(x) = sincos(x)
sqrt_fast(x) = sqrt(x)
cbrt_fast(x) = cbrt(x)
exp_fast(x) = exp(x)
exp2_fast(x) = exp2(x)
exp10_fast(x) = exp10(x)
expm1_fast(x) = expm1(x)
log_fast(x) = log(x)
log2_fast(x) = log2(x)
log10_fast(x) = log10(x)
log1p_fast(x) = log1p(x)
sin_fast(x) = sin(x)
cos_fast(x) = cos(x)
tan_fast(x) = tan(x)
asin_fast(x) = asin(x)
acos_fast(x) = acos(x)
sinh_fast(x) = sinh(x)
cosh_fast(x) = cosh(x)
tanh_fast(x) = tanh(x)
asinh_fast(x) = asinh(x)
acosh_fast(x) = acosh(x)
atanh_fast(x) = atanh(x)
eq_fast(x, y) = x == y
ne_fast(x, y) = x != y
lt_fast(x, y) = x < y
le_fast(x, y) = x <= y
gt_fast(x, y) = x > y
ge_fast(x, y) = x >= y
isinf_fast(x) = isinf(x)
isnan_fast(x) = isnan(x)
isfinite_fast(x) = isfinite(x)
end

# ChainRules' rules for the angle of a real number: a zero derivative for a real
# (co)tangent (ChainRules PR #196), imag(dx)/x for a complex tangent (that of the complex
# plane); one pullback object for both functions
for f in (angle, Base.FastMath.angle_fast)
    ChainRulesCore.frule(Δ, ::typeof(f), x::Real) = (angle(x), Core.angle_real_fwd(x, Δ[2]))
    ChainRulesCore.rrule(::typeof(f), x::Real) = (angle(x), Core.angle_real_back)
end
Core.angle_real_fwd(x, dx::Complex) = imag(dx) / ifelse(iszero(x), one(x), x)
Core.angle_real_fwd(x, dx) = ZeroTangent()
Core.angle_real_back(dΩ) = (NoTangent(), ZeroTangent())
