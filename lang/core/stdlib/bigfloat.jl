# BigFloat: Julia's arbitrary-precision binary float. Its field holds a host number
# (lang/core/bigfloats.py, over mpmath); arithmetic and functions round to nearest at the
# precision in force (256 bits unless `setprecision` changes it). Runs on the host only.
# Not (yet) as Julia: Complex{BigFloat} math, rounding modes of arithmetic, and mixing with
# a Float64 through promote_type. (-0.0 is a host value of its own: bigfloats.NEG_ZERO.)

struct BigFloat <: AbstractFloat
    x
    BigFloat(x, ::Nothing) = new(x)
end
_bf(x) = BigFloat(x, nothing)
BigFloat(x::BigFloat) = _bf(Core.bigfloat_from(x.x))
BigFloat(x::Real) = _bf(Core.bigfloat_from(x))
BigFloat(s::AbstractString) = _bf(Core.bigfloat_from(s))
convert(::Type{BigFloat}, x::Real) = BigFloat(x)
# (an array converted at once, in one host loop)
Base.broadcast(::Type{BigFloat}, v::Array{<:Real}) = Core.bigfloats_from(BigFloat, v)
convert(::Type{BigFloat}, x::BigFloat) = x
Float64(x::BigFloat) = Core.bigfloat_float(x.x, 64)
Float32(x::BigFloat) = Core.bigfloat_float(x.x, 32)
Float16(x::BigFloat) = Core.bigfloat_float(x.x, 16)
convert(::Type{Float64}, x::BigFloat) = Float64(x)
convert(::Type{Float32}, x::BigFloat) = Float32(x)
convert(::Type{Float16}, x::BigFloat) = Float16(x)
float(x::BigFloat) = x
float(::Type{BigFloat}) = BigFloat
big(x::BigFloat) = x
# Float64 widens to BigFloat (Julia has no Float128), which widens to itself
widen(::Type{Float64}) = BigFloat
widen(::Type{BigFloat}) = BigFloat
widen(x::Union{Float64, BigFloat}) = BigFloat(x)
show(io::IO, x::BigFloat) = print(io, Core.bigfloat_string(x.x))
string(x::BigFloat) = Core.bigfloat_string(x.x)

precision(::Type{BigFloat}) = Core.bigfloat_precision()
precision(x::BigFloat) = Core.bigfloat_precision()
setprecision(n::Integer) = (Core.bigfloat_setprecision(n); n)
setprecision(::Type{BigFloat}, n::Integer) = setprecision(n)
function setprecision(f::Function, n::Integer)
    old = Core.bigfloat_setprecision(n)
    try
        return f()
    finally
        Core.bigfloat_setprecision(old)
    end
end
setprecision(f::Function, ::Type{BigFloat}, n::Integer) = setprecision(f, n)

# --- arithmetic (a real beside a BigFloat is converted to one first) ------------------------

+(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("+", a.x, b.x))
-(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("-", a.x, b.x))
*(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("*", a.x, b.x))
/(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("/", a.x, b.x))
^(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("^", a.x, b.x))
+(a::BigFloat, b::Real) = a + BigFloat(b)
-(a::BigFloat, b::Real) = a - BigFloat(b)
*(a::BigFloat, b::Real) = a * BigFloat(b)
/(a::BigFloat, b::Real) = a / BigFloat(b)
^(a::BigFloat, b::Real) = a ^ BigFloat(b)
+(a::Real, b::BigFloat) = BigFloat(a) + b
-(a::Real, b::BigFloat) = BigFloat(a) - b
*(a::Real, b::BigFloat) = BigFloat(a) * b
/(a::Real, b::BigFloat) = BigFloat(a) / b
^(a::Real, b::BigFloat) = BigFloat(a) ^ b
-(a::BigFloat) = _bf(Core.bigfloat_unary("-", a.x))
+(a::BigFloat) = a
atan(y::BigFloat, x::BigFloat) = _bf(Core.bigfloat_binary("atan", y.x, x.x))
atan(y::BigFloat, x::Real) = atan(y, BigFloat(x))
atan(y::Real, x::BigFloat) = atan(BigFloat(y), x)
hypot(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("hypot", a.x, b.x))
hypot(a::BigFloat, b::Real) = hypot(a, BigFloat(b))
hypot(a::Real, b::BigFloat) = hypot(BigFloat(a), b)
ldexp(x::BigFloat, n::Integer) = _bf(Core.bigfloat_ldexp(x.x, n))
# fma rounds once: x * y exact, then + z (numbers.jl's fma promotes to this)
Core.fma_promoted(x::BigFloat, y::BigFloat, z::BigFloat) = _bf(Core.bigfloat_fma(x.x, y.x, z.x))
# (promote leaves a BigFloat beside another real as it is: all converted here)
Core.fma_promoted(x::Real, y::Real, z::Real) = any(v -> v isa BigFloat, (x, y, z)) ?
    Core.fma_promoted(BigFloat(x), BigFloat(y), BigFloat(z)) : x * y + z

# --- comparisons -------------------------------------------------------------------------------

_bfcmp(a::BigFloat, b::BigFloat) = Core.bigfloat_compare(a.x, b.x)
==(a::BigFloat, b::BigFloat) = _bfcmp(a, b) == 0
<(a::BigFloat, b::BigFloat) = _bfcmp(a, b) == -1
<=(a::BigFloat, b::BigFloat) = (c = _bfcmp(a, b); c == -1 || c == 0)
>(a::BigFloat, b::BigFloat) = b < a
>=(a::BigFloat, b::BigFloat) = b <= a
==(a::BigFloat, b::Real) = a == BigFloat(b)
==(a::Real, b::BigFloat) = BigFloat(a) == b
<(a::BigFloat, b::Real) = a < BigFloat(b)
<(a::Real, b::BigFloat) = BigFloat(a) < b
<=(a::BigFloat, b::Real) = a <= BigFloat(b)
<=(a::Real, b::BigFloat) = BigFloat(a) <= b
>(a::BigFloat, b::Real) = BigFloat(b) < a
>(a::Real, b::BigFloat) = b < BigFloat(a)
>=(a::BigFloat, b::Real) = BigFloat(b) <= a
>=(a::Real, b::BigFloat) = b <= BigFloat(a)
# (-0.0 is isless than 0.0, and not isequal to it, as for the other floats)
isless(a::BigFloat, b::BigFloat) = isnan(b) ? !isnan(a) : a < b || (a == b && signbit(a) && !signbit(b))
isequal(a::BigFloat, b::BigFloat) = (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b))
# beside another float (converted exactly): isequal(big(NaN), NaN) is true, as in Julia
isequal(a::BigFloat, b::AbstractFloat) = isequal(a, BigFloat(b))
isequal(a::AbstractFloat, b::BigFloat) = isequal(BigFloat(a), b)
# min and max of floats: a NaN operand wins (Base's isless-based generic would drop it)
min(a::BigFloat, b::BigFloat) = isnan(a) ? a : isnan(b) ? b : (isless(b, a) ? b : a)
max(a::BigFloat, b::BigFloat) = isnan(a) ? a : isnan(b) ? b : (isless(b, a) ? a : b)
min(a::BigFloat, b::Real) = min(a, BigFloat(b))
min(a::Real, b::BigFloat) = min(BigFloat(a), b)
max(a::BigFloat, b::Real) = max(a, BigFloat(b))
max(a::Real, b::BigFloat) = max(BigFloat(a), b)

isnan(x::BigFloat) = Core.bigfloat_isnan(x.x)
isinf(x::BigFloat) = Core.bigfloat_isinf(x.x)
isfinite(x::BigFloat) = !isnan(x) && !isinf(x)
iszero(x::BigFloat) = x == 0
isinteger(x::BigFloat) = Core.bigfloat_isinteger(x.x)
signbit(x::BigFloat) = Core.bigfloat_signbit(x.x)
sign(x::BigFloat) = isnan(x) || iszero(x) ? x : (signbit(x) ? -one(x) : one(x))
zero(::Type{BigFloat}) = BigFloat(0)
one(::Type{BigFloat}) = BigFloat(1)
zero(::BigFloat) = BigFloat(0)
one(::BigFloat) = BigFloat(1)
zeros(::Type{BigFloat}, dims...) = fill(zero(BigFloat), dims...)  # (not of Float64s)
ones(::Type{BigFloat}, dims...) = fill(one(BigFloat), dims...)
typemin(::Type{BigFloat}) = BigFloat(-Inf)
typemax(::Type{BigFloat}) = BigFloat(Inf)
typemin(::BigFloat) = typemin(BigFloat)
typemax(::BigFloat) = typemax(BigFloat)
# (MPFR's exponent range as Julia sets it, the widest: floatmin(BigFloat) is 2^-(2^62))
floatmin(::Type{BigFloat}) = _bf(Core.bigfloat_floatmin())
floatmax(::Type{BigFloat}) = _bf(Core.bigfloat_floatmax())
floatmin(::BigFloat) = floatmin(BigFloat)
floatmax(::BigFloat) = floatmax(BigFloat)
nextfloat(x::BigFloat) = _bf(Core.bigfloat_nextfloat(x.x, true))
prevfloat(x::BigFloat) = _bf(Core.bigfloat_nextfloat(x.x, false))
function nextfloat(x::BigFloat, n::Integer)
    for _ in 1:abs(n)
        x = n > 0 ? nextfloat(x) : prevfloat(x)
    end
    return x
end
prevfloat(x::BigFloat, n::Integer) = nextfloat(x, -n)
eps(::Type{BigFloat}) = ldexp(BigFloat(1), 1 - precision(BigFloat))
function eps(x::BigFloat)
    isfinite(x) || return BigFloat(NaN)
    iszero(x) && return ldexp(BigFloat(1), -1073741823)
    return ldexp(BigFloat(1), exponent(x) + 1 - precision(BigFloat))
end
# the exponent of x's leading bit (x = m * 2^e with 1 <= |m| < 2)
function exponent(x::BigFloat)
    (iszero(x) || !isfinite(x)) && throw(DomainError(x, "Cannot be NaN, Inf or zero"))
    e = floor(Int, Float64(log2(abs(x))))
    ldexp(abs(x), -e) >= 2 && return e + 1
    ldexp(abs(x), -e) < 1 && return e - 1
    return e
end
trunc(::Type{T}, x::BigFloat) where {T<:Integer} = convert(T, Core.bigfloat_trunc(x.x))
# an integer type of a BigFloat: exact, or Julia's InexactError (a fraction, Inf or NaN)
function convert(::Type{T}, x::BigFloat) where {T<:Integer}
    isinteger(x) || throw(InexactError(Symbol(T), T, x))
    return trunc(T, x)
end
Int8(x::BigFloat) = convert(Int8, x)
Int16(x::BigFloat) = convert(Int16, x)
Int32(x::BigFloat) = convert(Int32, x)
Int64(x::BigFloat) = convert(Int64, x)
Int128(x::BigFloat) = convert(Int128, x)
UInt8(x::BigFloat) = convert(UInt8, x)
UInt16(x::BigFloat) = convert(UInt16, x)
UInt32(x::BigFloat) = convert(UInt32, x)
UInt64(x::BigFloat) = convert(UInt64, x)
UInt128(x::BigFloat) = convert(UInt128, x)
BigInt(x::BigFloat) = convert(BigInt, x)
function isapprox(x::BigFloat, y::BigFloat; atol::Real=0, rtol::Real=(atol > 0 ? 0 : sqrt(eps(BigFloat))),
                  nans::Bool=false)
    x == y && return true
    nans && isnan(x) && isnan(y) && return true
    return isfinite(x) && isfinite(y) && abs(x - y) <= max(atol, rtol * max(abs(x), abs(y)))
end
# the default tolerance beside another real: the larger of the two types' (Julia's
# rtoldefault), so a Float64 compared with a BigFloat gets √eps(Float64)
_bf_rtol(y::AbstractFloat) = y isa BigFloat ? sqrt(eps(BigFloat)) : sqrt(eps(typeof(y)))
_bf_rtol(y::Real) = sqrt(eps(BigFloat))
isapprox(x::BigFloat, y::Real; atol::Real=0, rtol::Real=(atol > 0 ? 0 : _bf_rtol(y)),
         nans::Bool=false) = isapprox(x, BigFloat(y); atol=atol, rtol=rtol, nans=nans)
isapprox(x::Real, y::BigFloat; atol::Real=0, rtol::Real=(atol > 0 ? 0 : _bf_rtol(x)),
         nans::Bool=false) = isapprox(BigFloat(x), y; atol=atol, rtol=rtol, nans=nans)

# --- functions of one BigFloat -------------------------------------------------------------------

abs(x::BigFloat) = _bf(Core.bigfloat_unary("abs", x.x))
abs2(x::BigFloat) = x * x
sqrt(x::BigFloat) = _bf(Core.bigfloat_unary("sqrt", x.x))
cbrt(x::BigFloat) = _bf(Core.bigfloat_unary("cbrt", x.x))
exp(x::BigFloat) = _bf(Core.bigfloat_unary("exp", x.x))
exp2(x::BigFloat) = _bf(Core.bigfloat_unary("exp2", x.x))
exp10(x::BigFloat) = _bf(Core.bigfloat_unary("exp10", x.x))
expm1(x::BigFloat) = _bf(Core.bigfloat_unary("expm1", x.x))
log(x::BigFloat) = _bf(Core.bigfloat_unary("log", x.x))
log2(x::BigFloat) = _bf(Core.bigfloat_unary("log2", x.x))
log10(x::BigFloat) = _bf(Core.bigfloat_unary("log10", x.x))
log1p(x::BigFloat) = _bf(Core.bigfloat_unary("log1p", x.x))
sin(x::BigFloat) = _bf(Core.bigfloat_unary("sin", x.x))
cos(x::BigFloat) = _bf(Core.bigfloat_unary("cos", x.x))
tan(x::BigFloat) = _bf(Core.bigfloat_unary("tan", x.x))
asin(x::BigFloat) = _bf(Core.bigfloat_unary("asin", x.x))
acos(x::BigFloat) = _bf(Core.bigfloat_unary("acos", x.x))
atan(x::BigFloat) = _bf(Core.bigfloat_unary("atan", x.x))
sinh(x::BigFloat) = _bf(Core.bigfloat_unary("sinh", x.x))
cosh(x::BigFloat) = _bf(Core.bigfloat_unary("cosh", x.x))
tanh(x::BigFloat) = _bf(Core.bigfloat_unary("tanh", x.x))
asinh(x::BigFloat) = _bf(Core.bigfloat_unary("asinh", x.x))
acosh(x::BigFloat) = _bf(Core.bigfloat_unary("acosh", x.x))
atanh(x::BigFloat) = _bf(Core.bigfloat_unary("atanh", x.x))
sinpi(x::BigFloat) = _bf(Core.bigfloat_unary("sinpi", x.x))
cospi(x::BigFloat) = _bf(Core.bigfloat_unary("cospi", x.x))
sincos(x::BigFloat) = (sin(x), cos(x))
# to an integral BigFloat (round: ties to even), or to an integer type (an InexactError
# for Inf, NaN or one too large)
floor(x::BigFloat) = _bf(Core.bigfloat_unary("floor", x.x))
ceil(x::BigFloat) = _bf(Core.bigfloat_unary("ceil", x.x))
round(x::BigFloat) = _bf(Core.bigfloat_unary("round", x.x))
trunc(x::BigFloat) = _bf(Core.bigfloat_unary("trunc", x.x))
floor(::Type{T}, x::BigFloat) where {T<:Integer} = convert(T, floor(x))
ceil(::Type{T}, x::BigFloat) where {T<:Integer} = convert(T, ceil(x))
round(::Type{T}, x::BigFloat) where {T<:Integer} = convert(T, round(x))

# a BigInt's float and functions are BigFloats, as in Julia
float(x::BigInt) = BigFloat(x)
float(::Type{BigInt}) = BigFloat
sqrt(x::BigInt) = sqrt(BigFloat(x))
exp(x::BigInt) = exp(BigFloat(x))
log(x::BigInt) = log(BigFloat(x))
log2(x::BigInt) = log2(BigFloat(x))
log10(x::BigInt) = log10(BigFloat(x))
sin(x::BigInt) = sin(BigFloat(x))
cos(x::BigInt) = cos(BigFloat(x))
tan(x::BigInt) = tan(BigFloat(x))
sincos(x::BigInt) = sincos(BigFloat(x))
# `/` of BigInts (and an integer beside one) is a BigFloat: big(1) / 2 == 0.5, inv(big(2))
/(a::BigInt, b::BigInt) = BigFloat(a) / BigFloat(b)
/(a::BigInt, b::Integer) = BigFloat(a) / BigFloat(b)
/(a::Integer, b::BigInt) = BigFloat(a) / BigFloat(b)
# log(b, x) with a BigInt or BigFloat: both promoted to BigFloat first (log(2, big(2)^100) == 100)
log(b::Real, x::Union{BigInt, BigFloat}) = log(BigFloat(x)) / log(BigFloat(b))
log(b::Union{BigInt, BigFloat}, x::Real) = log(BigFloat(x)) / log(BigFloat(b))
log(b::Union{BigInt, BigFloat}, x::Union{BigInt, BigFloat}) = log(BigFloat(x)) / log(BigFloat(b))
# rem, exact, with x's sign
rem(a::BigFloat, b::BigFloat) = _bf(Core.bigfloat_binary("rem", a.x, b.x))
rem(a::BigFloat, b::Real) = rem(a, BigFloat(b))
rem(a::Real, b::BigFloat) = rem(BigFloat(a), b)
# mod: y's sign (x - y * fld(x, y)); the quotients are the exact multiple x - rem (or
# x - mod) of y divided by y, rounded to the integer it is; rem to the nearest multiple,
# ties to an even quotient
function mod(x::BigFloat, y::BigFloat)
    r = rem(x, y)
    iszero(r) && return signbit(r) == signbit(y) ? r : -r  # (a zero takes y's sign)
    return signbit(r) != signbit(y) ? r + y : r
end
div(x::BigFloat, y::BigFloat) = round((x - rem(x, y)) / y)
fld(x::BigFloat, y::BigFloat) = round((x - mod(x, y)) / y)
cld(x::BigFloat, y::BigFloat) = -fld(-x, y)
function Core.rem_nearest(x::BigFloat, y::BigFloat)
    r = rem(x, y)
    twice = 2 * abs(r)
    odd = !iszero(rem(div(x, y), 2))
    return (twice > abs(y) || (twice == abs(y) && odd)) ? r - (signbit(x) ? -abs(y) : abs(y)) : r
end
# (promote leaves a BigFloat beside another real as it is: converted here instead)
Core.rem_nearest(x::BigFloat, y::Real) = Core.rem_nearest(x, BigFloat(y))
Core.rem_nearest(x::Real, y::BigFloat) = Core.rem_nearest(BigFloat(x), y)
Core.rem_nearest(x::BigFloat, y::AbstractFloat) = Core.rem_nearest(x, BigFloat(y))
Core.rem_nearest(x::AbstractFloat, y::BigFloat) = Core.rem_nearest(BigFloat(x), y)
# x minus a multiple of 2π (exact π, rounded once); mod2pi's result is in [0, 2π)
rem2pi(x::BigFloat, r::RoundingMode) = _bf(Core.bigfloat_rem2pi(x.x, string(r.name)))
mod2pi(x::BigFloat) = rem2pi(x, RoundDown)
mod(a::BigFloat, b::Real) = mod(a, BigFloat(b))
mod(a::Real, b::BigFloat) = mod(BigFloat(a), b)
div(a::BigFloat, b::Real) = div(a, BigFloat(b))
div(a::Real, b::BigFloat) = div(BigFloat(a), b)
fld(a::BigFloat, b::Real) = fld(a, BigFloat(b))
fld(a::Real, b::BigFloat) = fld(BigFloat(a), b)
cld(a::BigFloat, b::Real) = cld(a, BigFloat(b))
cld(a::Real, b::BigFloat) = cld(BigFloat(a), b)
# arrays with BigFloats: Julia's norm-wise isapprox, with the larger default tolerance
_bf_rtol(x::AbstractArray, y::AbstractArray) = max(_bf_rtol(float(zero(eltype(x)))), _bf_rtol(float(zero(eltype(y)))))
function _bf_isapprox(x::AbstractArray, y::AbstractArray, atol, rtol)
    size(x) == size(y) || throw(DimensionMismatch("dimensions must match: a has dims $(size(x)), b has dims $(size(y))"))
    d2, nx2, ny2 = BigFloat(0), BigFloat(0), BigFloat(0)
    for (a, b) in zip(x, y)
        d2 += abs2(BigFloat(a) - b)
        nx2 += abs2(BigFloat(a))
        ny2 += abs2(BigFloat(b))
    end
    return sqrt(d2) <= max(atol, rtol * sqrt(max(nx2, ny2)))
end
isapprox(x::AbstractArray{BigFloat}, y::AbstractArray{BigFloat}; atol::Real=0,
         rtol::Real=(atol > 0 ? 0 : _bf_rtol(x, y))) = _bf_isapprox(x, y, atol, rtol)
isapprox(x::AbstractArray{BigFloat}, y::AbstractArray{<:Real}; atol::Real=0,
         rtol::Real=(atol > 0 ? 0 : _bf_rtol(x, y))) = _bf_isapprox(x, y, atol, rtol)
isapprox(x::AbstractArray{<:Real}, y::AbstractArray{BigFloat}; atol::Real=0,
         rtol::Real=(atol > 0 ? 0 : _bf_rtol(x, y))) = _bf_isapprox(x, y, atol, rtol)

# --- Irrational (π, ℯ, γ, φ, catalan: host numbers that promote as Julia's, values.py) ------

big(x::AbstractIrrational) = BigFloat(x)
one(::AbstractIrrational) = true
zero(::AbstractIrrational) = false
one(::Type{<:AbstractIrrational}) = true
zero(::Type{<:AbstractIrrational}) = false
log(::Irrational{:ℯ}) = 1
^(::Irrational{:ℯ}, x::Number) = exp(x)
isinteger(::AbstractIrrational) = false
float(x::AbstractIrrational) = Float64(x)
widen(x::AbstractIrrational) = x
