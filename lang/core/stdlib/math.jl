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
tand(x::Real) = sind(x) / cosd(x)
secd(x::Real) = inv(cosd(x))
cscd(x::Real) = inv(sind(x))
cotd(x::Real) = inv(tand(x))
asind(x::Real) = rad2deg(asin(x))
acosd(x::Real) = rad2deg(acos(x))
atand(y::Real) = rad2deg(atan(y))
atand(y::Real, x::Real) = rad2deg(atan(y, x))
asecd(x::Real) = rad2deg(acos(inv(x)))
acscd(x::Real) = rad2deg(asin(inv(x)))
acotd(x::Real) = rad2deg(atan(inv(x)))

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

# (fractional part, integral part), both with x's sign
function modf(x::AbstractFloat)
    isinf(x) && return (copysign(zero(x), x), x)
    i = trunc(x)
    return (copysign(x - i, x), i)
end
modf(x::Real) = modf(float(x))

literal_pow(f, x, ::Val{p}) where {p} = f(x, p)

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
