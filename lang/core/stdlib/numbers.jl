# Zyla's Base, continued (loaded at start-up, after math.jl): rounding modes, a few number
# functions of Base that the primitives do not cover.

# --- rounding modes: round(x, r), div(x, y, r), rem(x, y, r), divrem(x, y, r) -----------------
struct RoundingMode
    name::Symbol
end
show(io::IO, r::RoundingMode) = print(io, "RoundingMode{:", r.name, "}()")
const RoundNearest = RoundingMode(:Nearest)
const RoundToZero = RoundingMode(:ToZero)
const RoundUp = RoundingMode(:Up)
const RoundDown = RoundingMode(:Down)
const RoundFromZero = RoundingMode(:FromZero)
const RoundNearestTiesAway = RoundingMode(:NearestTiesAway)
const RoundNearestTiesUp = RoundingMode(:NearestTiesUp)

function round(x::Real, r::RoundingMode; kw...)
    n = r.name
    n === :Nearest ? round(x; kw...) : n === :Down ? floor(x; kw...) : n === :Up ? ceil(x; kw...) :
    n === :ToZero ? trunc(x; kw...) : n === :FromZero ? (signbit(x) ? floor(x; kw...) : ceil(x; kw...)) :
    n === :NearestTiesAway ? Core.round_ties(x, trunc(x), sign(x)) :
    n === :NearestTiesUp ? Core.round_ties(x, floor(x), one(x)) :
    throw(ArgumentError("unknown rounding mode $r"))
end
# the integer nearest x, ties going from `base` by `step` (x - base is exact for floats)
Core.round_ties(x, base, step) = abs(x - base) >= oftype(abs(x - base), 0.5) ? base + step : base
round(::Type{T}, x::Real, r::RoundingMode) where {T<:Integer} = T(round(x, r))

function rem(x::Real, y::Real, r::RoundingMode)
    n = r.name
    n === :ToZero && return rem(x, y)
    n === :Down && return mod(x, y)
    n === :Up && return mod(x, -y)
    n === :FromZero && return signbit(x) == signbit(y) ? mod(x, -y) : mod(x, y)
    n === :Nearest && return Core.rem_nearest(x, y)
    throw(ArgumentError("rem with rounding mode $r is not supported"))
end
# x - y * q with q = x / y rounded to the nearest integer, ties to an even q
Core.rem_nearest(x::AbstractFloat, y::AbstractFloat) = Core.ieee_remainder(promote(x, y)...)
Core.rem_nearest(x::AbstractFloat, y::Real) = Core.rem_nearest(promote(x, y)...)
Core.rem_nearest(x::Real, y::AbstractFloat) = Core.rem_nearest(promote(x, y)...)
function Core.rem_nearest(x::Real, y::Real)
    r = rem(x, y)
    twice = 2 * abs(r)
    q = div(x, y)
    (twice > abs(y) || (twice == abs(y) && isodd(q))) ? r - (signbit(x) ? -abs(y) : abs(y)) : r
end
div(x::Real, y::Real, r::RoundingMode) = r.name === :ToZero ? div(x, y) : r.name === :Down ? fld(x, y) :
    r.name === :Up ? cld(x, y) : Core.div_from_rem(x, y, rem(x, y, r))
Core.div_from_rem(x::Integer, y::Integer, r) = div(x - r, y)
Core.div_from_rem(x, y, r) = round((x - r) / y)
divrem(x::Real, y::Real, r::RoundingMode) = (div(x, y, r), rem(x, y, r))
# `Float64(x, r)`: the float nearest x in r's direction (Float64(π, RoundDown) < π): the
# nearest one, stepped once where it lies on the wrong side of x (comparisons are exact)
function Core.float_rounded(::Type{T}, x::Real, r::RoundingMode) where {T<:AbstractFloat}
    y = T(x)
    n = r.name
    (n === :Nearest || isnan(y)) && return y
    down = n === :Down || (n === :ToZero && x > 0) || (n === :FromZero && x < 0)
    up = n === :Up || (n === :ToZero && x < 0) || (n === :FromZero && x > 0)
    down || up || throw(ArgumentError("$T(x, r) with rounding mode $r is not supported"))
    return down && y > x ? prevfloat(y) : up && y < x ? nextfloat(y) : y
end
Float64(x::Real, r::RoundingMode) = Core.float_rounded(Float64, x, r)
Float32(x::Real, r::RoundingMode) = Core.float_rounded(Float32, x, r)
Float16(x::Real, r::RoundingMode) = Core.float_rounded(Float16, x, r)

# --- signs and sizes ------------------------------------------------------------------------------
signbit(x::Rational) = signbit(numerator(x))
signbit(x::Union{Int128, UInt128}) = x < 0
copysign(x::Real, y::Rational) = copysign(x, numerator(y))
widen(::Type{Int8}) = Int16
widen(::Type{Int16}) = Int32
widen(::Type{Int32}) = Int64
widen(::Type{Int64}) = Int128
widen(::Type{UInt8}) = UInt16
widen(::Type{UInt16}) = UInt32
widen(::Type{UInt32}) = UInt64
widen(::Type{UInt64}) = UInt128
widen(::Type{Float16}) = Float32
widen(::Type{Float32}) = Float64
widen(x::Union{Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, Float32}) =
    convert(widen(typeof(x)), x)
widemul(x::Integer, y::Integer) = widen(x) * widen(y)
minmax(x::Real) = (x, x)
# Base's reducer of extrema: the (min, max) of two (min, max) pairs (a NaN wins)
Base._extrema_rf(x::Tuple, y::Tuple) = (min(x[1], y[1]), max(x[2], y[2]))
Integer(x::Integer) = x
in(x::Number, y::Number) = x == y
get(x::Number, i, default) = Core.number_index_ok(i) ? x : default
get(f::Function, x::Number, i) = Core.number_index_ok(i) ? x : f()
Core.number_index_ok(i) = i isa Tuple ? all(k -> k == 1, i) : i == 1
≉(x, y; kw...) = !isapprox(x, y; kw...)
isless(a::Symbol, b::Symbol) = isless(string(a), string(b))
function fldmod1(x, y)
    (fld1(x, y), mod1(x, y))
end
function nextprod(factors, x::Real)
    x > typemax(Int) && throw(ArgumentError("unsafe for x > typemax(Int), got $x"))
    best = typemax(Int)
    Core.nextprod_search(collect(factors), 1, 1, x, best)
end
# the smallest product of powers of factors[k:end] times p that is ≥ x
function Core.nextprod_search(fs, k, p, x, best)
    p >= best && return best
    k > length(fs) && return p >= x ? p : best
    while true
        best = Core.nextprod_search(fs, k + 1, p, x, best)
        p >= x && return best
        p > typemax(Int) ÷ fs[k] && throw(OverflowError("nextprod: result does not fit in an Int"))
        p *= fs[k]
    end
end
function clamp!(a::AbstractArray, lo, hi)
    for i in eachindex(a)
        a[i] = clamp(a[i], lo, hi)
    end
    a
end
function tryparse(::Type{T}, s::AbstractString; kw...) where T
    try
        isempty(kw) ? parse(T, s) : parse(T, s; kw...)
    catch e
        e isa Union{ArgumentError, OverflowError, InexactError} || rethrow()
        nothing
    end
end
sign(x::Union{Int128, UInt128}) = x > 0 ? one(x) : x < 0 ? -one(x) : zero(x)
getindex(x::Number, i::Integer, rest::Integer...) =
    i == 1 && all(k -> k == 1, rest) ? x : throw(BoundsError(x, (i, rest...)))
function digits!(a::AbstractVector, n::Integer; base::Integer = 10)
    base < 0 && throw(ArgumentError("digits! with a negative base is not supported"))
    m = n
    for i in eachindex(a)
        a[i] = rem(m, base)
        m = div(m, base)
    end
    a
end
//(x::AbstractArray, y::Number) = x .// y
signed(x::Signed) = x
signed(x::Unsigned) = reinterpret(Signed, x)
zero(x::Union{Int128, UInt128}) = zero(typeof(x))
one(x::Union{Int128, UInt128}) = one(typeof(x))

# --- integer fld/cld: from the truncated quotient, so typemin(Int) never overflows ----------
# (a signed and an unsigned integer have their own methods below, so signbit is the sign here)
fld(x::Integer, y::Integer) = Core.fld_int(x, y)
cld(x::Integer, y::Integer) = Core.cld_int(x, y)
function Core.fld_int(x::Integer, y::Integer)
    d = div(x, y)
    (signbit(x) != signbit(y)) && d * y != x ? d - one(d) : d
end
function Core.cld_int(x::Integer, y::Integer)
    d = div(x, y)
    (signbit(x) == signbit(y)) && d * y != x ? d + one(d) : d
end

# --- negated logical operators ------------------------------------------------------------------
nand(x, y) = ~(x & y)
nor(x, y) = ~(x | y)
⊼(x, y) = nand(x, y)
⊽(x, y) = nor(x, y)

# --- BigInt (arbitrary precision, on the host); Zyla has no BigFloat ------------------------------
big(x::Integer) = convert(BigInt, x)
big(::Type{<:Integer}) = BigInt
big(x::Rational) = big(numerator(x)) // big(denominator(x))
big(x::AbstractFloat) = BigFloat(x)  # (stdlib/bigfloat.jl)
big(::Type{<:AbstractFloat}) = BigFloat
big(z::Complex) = Complex(big(real(z)), big(imag(z)))
widen(::Type{BigInt}) = BigInt
widen(::Type{Int128}) = BigInt
widen(::Type{UInt128}) = BigInt
widen(x::Union{Int128, UInt128, BigInt}) = convert(widen(typeof(x)), x)
signbit(x::BigInt) = x < 0
sign(x::BigInt) = x > 0 ? one(x) : x < 0 ? -one(x) : zero(x)
zero(x::BigInt) = zero(BigInt)
one(x::BigInt) = one(BigInt)

# --- signed/unsigned conversions, and division of a signed by an unsigned integer (Base's own
# methods: not promoted, so `div(-7, UInt(2)) == -3`) -----------------------------------------------
unsigned(x::Unsigned) = x
unsigned(x::Signed) = reinterpret(Unsigned, x)
unsigned(x::Bool) = UInt(x)
unsigned(::Type{Int8}) = UInt8
unsigned(::Type{Int16}) = UInt16
unsigned(::Type{Int32}) = UInt32
unsigned(::Type{Int64}) = UInt64
unsigned(::Type{Int128}) = UInt128
unsigned(::Type{T}) where {T<:Unsigned} = T
signed(::Type{UInt8}) = Int8
signed(::Type{UInt16}) = Int16
signed(::Type{UInt32}) = Int32
signed(::Type{UInt64}) = Int64
signed(::Type{UInt128}) = Int128
signed(::Type{T}) where {T<:Signed} = T
div(x::Union{Int8, Int16, Int32, Int64, Int128}, y::Union{UInt8, UInt16, UInt32, UInt64, UInt128}) =
    flipsign(signed(div(unsigned(abs(x)), y)), x)
div(x::Union{UInt8, UInt16, UInt32, UInt64, UInt128}, y::Union{Int8, Int16, Int32, Int64, Int128}) =
    unsigned(flipsign(signed(div(x, unsigned(abs(y)))), y))
rem(x::Union{Int8, Int16, Int32, Int64, Int128}, y::Union{UInt8, UInt16, UInt32, UInt64, UInt128}) =
    flipsign(signed(rem(unsigned(abs(x)), y)), x)
rem(x::Union{UInt8, UInt16, UInt32, UInt64, UInt128}, y::Union{Int8, Int16, Int32, Int64, Int128}) =
    rem(x, unsigned(abs(y)))
fld(x::Union{Int8, Int16, Int32, Int64, Int128}, y::Union{UInt8, UInt16, UInt32, UInt64, UInt128}) =
    (d = div(x, y); signbit(x) && rem(x, y) != 0 ? d - one(d) : d)
fld(x::Union{UInt8, UInt16, UInt32, UInt64, UInt128}, y::Union{Int8, Int16, Int32, Int64, Int128}) =
    (d = div(x, y); signbit(y) && rem(x, y) != 0 ? d - one(d) : d)
cld(x::Union{Int8, Int16, Int32, Int64, Int128}, y::Union{UInt8, UInt16, UInt32, UInt64, UInt128}) =
    (d = div(x, y); !signbit(x) && rem(x, y) != 0 ? d + one(d) : d)
cld(x::Union{UInt8, UInt16, UInt32, UInt64, UInt128}, y::Union{Int8, Int16, Int32, Int64, Int128}) =
    (d = div(x, y); !signbit(y) && rem(x, y) != 0 ? d + one(d) : d)
mod(x::Union{Int8, Int16, Int32, Int64, Int128}, y::Union{UInt8, UInt16, UInt32, UInt64, UInt128}) =
    rem(y + unsigned(rem(x, y)), y)
mod(x::Union{UInt8, UInt16, UInt32, UInt64, UInt128}, y::Union{Int8, Int16, Int32, Int64, Int128}) =
    rem(y + signed(rem(x, y)), y)

# Base's tuples of the fixed-width integer types
const BitSigned64_types = (Int8, Int16, Int32, Int64)
const BitUnsigned64_types = (UInt8, UInt16, UInt32, UInt64)
const BitInteger64_types = (BitSigned64_types..., BitUnsigned64_types...)
const BitSigned_types = (BitSigned64_types..., Int128)
const BitUnsigned_types = (BitUnsigned64_types..., UInt128)
const BitInteger_types = (BitSigned_types..., BitUnsigned_types...)

# --- gcdx and invmod --------------------------------------------------------------------------------
# gcdx(a, b) = (d, u, v) with d = gcd(a, b) = u*a + v*b (Base's extended Euclid, in the promoted type)
gcdx(a::Integer, b::Integer) = Core.gcdx_loop(promote(a, b)...)
function Core.gcdx_loop(a::T, b::T) where {T<:Integer}
    s0, s1 = one(T), zero(T)
    t0, t1 = s1, s0
    x, y = a, b
    while y != 0
        q = div(x, y)
        x, y = y, rem(x, y)
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    end
    x < 0 ? (-x, -s0, -t0) : (x, s0, t0)
end
# invmod(n, m): the inverse of n modulo m, in [0, |m|) for m > 0 and (m, 0] for m < 0
function invmod(n::Integer, m::Integer)
    iszero(m) && throw(DomainError((n, m), "`m` must not be 0."))
    g, x, y = gcdx(n, m)
    g != 1 && throw(DomainError((n, m), "Greatest common divisor is $g."))
    r = mod(x, m)
    convert(promote_type(typeof(n), typeof(m)), r)
end
widemul(x::Signed, y::Unsigned) = widen(x) * signed(widen(y))
widemul(x::Unsigned, y::Signed) = signed(widen(x)) * widen(y)
signed(x::BigInt) = x

# fma rounds once (x * y + z would round the product first: base.jl's fallback for other numbers)
fma(x::Real, y::Real, z::Real) = Core.fma_promoted(promote(x, y, z)...)
Core.fma_promoted(x::T, y::T, z::T) where {T<:Union{Float16, Float32, Float64}} = Core.fma_exact(x, y, z)
Core.fma_promoted(x, y, z) = x * y + z

# Base.MultiplicativeInverses: a divisor made ready for repeated division (a Number, so a
# scalar to broadcast); dividing by one is dividing by its divisor (Julia's multiplier and
# shift are how its division is fast, not what it computes)
# (Julia's MultiplicativeInverse{T} is parametric: Zyla's abstract types are not)
abstract type MultiplicativeInverse <: Number end
struct SignedMultiplicativeInverse{T<:Signed} <: MultiplicativeInverse
    divisor::T
end
struct UnsignedMultiplicativeInverse{T<:Unsigned} <: MultiplicativeInverse
    divisor::T
end
function Base.multiplicativeinverse(x::Integer)
    iszero(x) && throw(ArgumentError("MultiplicativeInverse requires a nonzero divisor"))
    return x isa Unsigned ? UnsignedMultiplicativeInverse(x) : SignedMultiplicativeInverse(x)
end
const _MultInv{T} = Union{SignedMultiplicativeInverse{T}, UnsignedMultiplicativeInverse{T}}
div(a::T, b::_MultInv{T}) where {T<:Integer} = div(a, b.divisor)
rem(a::T, b::_MultInv{T}) where {T<:Integer} = rem(a, b.divisor)
divrem(a::T, b::_MultInv{T}) where {T<:Integer} = divrem(a, b.divisor)

# rationalize: the simplest Rational within tol of x, from x's continued fraction (Julia's
# algorithm, in x's own arithmetic, x kept as x/y since 1/r would round); the convergents
# are computed as BigInts, and where one leaves T the last that fits in T is the answer
function rationalize(::Type{T}, x::Union{AbstractFloat, Rational}, tol::Real) where {T<:Integer}
    tol < 0 && throw(ArgumentError("negative tolerance $tol"))
    T <: Unsigned && x < 0 && throw(OverflowError("cannot negate unsigned number"))
    isnan(x) && return T(x) // one(T)
    isinf(x) && return (x < 0 ? -one(T) : one(T)) // zero(T)
    p, q, pp, qq = BigInt(x < 0 ? -1 : 1), BigInt(0), BigInt(0), BigInt(1)
    x = abs(x)
    a = trunc(x)
    r = x - a
    y = one(x)
    nt, t, tt = oftype(x, tol), zero(x), oftype(x, tol)
    while r > nt
        next = Core.convergent(T, a, p, pp, q, qq)
        next === nothing && return T(p) // T(q)
        p, pp, q, qq = next[1], p, next[2], q
        x, y = y, r
        a, r = divrem(x, y)
        t, tt = nt, t
        nt = a * t + tt
    end
    # the optimal semiconvergent: the smallest a with x - a*y < a*t + tt
    next = Core.convergent(T, cld(x - tt, y + t), p, pp, q, qq)
    return next === nothing ? T(p) // T(q) : T(next[1]) // T(next[2])
end
# the next convergent (a*p + pp, a*q + qq), or nothing where it does not fit in T
function Core.convergent(::Type{T}, a, p, pp, q, qq) where {T<:Integer}
    np, nq = BigInt(a) * p + pp, BigInt(a) * q + qq
    T === BigInt && return (np, nq)
    return typemin(T) <= np <= typemax(T) && nq <= typemax(T) ? (np, nq) : nothing
end
rationalize(::Type{T}, x::AbstractFloat; tol::Real=eps(x)) where {T<:Integer} = rationalize(T, x, tol)
rationalize(x::AbstractFloat; kw...) = rationalize(Int, x; kw...)
rationalize(::Type{T}, x::Rational; tol::Real=0) where {T<:Integer} = rationalize(T, x, tol)
rationalize(x::Rational; kw...) = x
rationalize(::Type{T}, x::Integer; kw...) where {T<:Integer} = T(x) // one(T)
rationalize(x::Integer; kw...) = x // one(x)
rationalize(::Type{T}, z::Complex; kw...) where {T<:Integer} =
    Complex(rationalize(T, real(z); kw...), rationalize(T, imag(z); kw...))
rationalize(z::Complex; kw...) = rationalize(Int, z; kw...)

# the bits of one(F) (Base.exponent_one), and of the sign, exponent and significand fields
exponent_one(::Type{Float64}) = 0x3ff0000000000000
exponent_one(::Type{Float32}) = 0x3f800000
exponent_one(::Type{Float16}) = 0x3c00

# Complex rationals
//(x::Complex, y::Real) = complex(real(x) // y, imag(x) // y)
//(x::Number, y::Complex) = x * conj(y) // abs2(y)

# a number is a 0-dimensional container of itself
firstindex(x::Number, d::Integer) = d < 1 ? throw(BoundsError(x, d)) : 1
lastindex(x::Number, d::Integer) = d < 1 ? throw(BoundsError(x, d)) : 1

# the constructors: Rational{T}(x) converts (an InexactError where T's parts do not hold
# x), Rational(n, d) is n // d (of n's and d's promoted type)
Rational{T}(x::Real) where {T<:Integer} = convert(Rational{T}, x)
Rational{T}(n::Integer, d::Integer) where {T<:Integer} = convert(T, n) // convert(T, d)
Rational(x::Integer) = x // one(x)
Rational(x::Rational) = x
Rational(n::Integer, d::Integer) = n // d
round(::Type{T}, x::Rational) where {T<:Integer} = T(round(x))
floor(::Type{T}, x::Rational) where {T<:Integer} = T(floor(x))
ceil(::Type{T}, x::Rational) where {T<:Integer} = T(ceil(x))
trunc(::Type{T}, x::Rational) where {T<:Integer} = T(trunc(x))
inv(x::Rational) = one(x) / x  # (of x's type: inv(Int8(3)//Int8(4)) is a Rational{Int8})
# a Rational with a zero denominator (`1//0`, `-1//0`) is infinite; none is NaN (`0//0` is an error)
isfinite(x::Rational) = denominator(x) != 0
isinf(x::Rational) = denominator(x) == 0
isnan(x::Rational) = false
sign(x::Rational) = oftype(x, sign(numerator(x)))
# rem of a Rational (beside an Integer or a Rational): exact, with x's sign
rem(x::Rational, y::Union{Integer, Rational}) = x - trunc(x / y) * y
rem(x::Integer, y::Rational) = x - trunc(x / y) * y
rand(::Type{UInt128}) = (UInt128(rand(UInt64)) << 64) | UInt128(rand(UInt64))
rand(::Type{Int128}) = reinterpret(Int128, rand(UInt128))
# zeros and ones of the number types numpy has no arrays of are arrays of their own zero
# and one (as complex.jl's for Complex), not of the Float64s 0.0 and 1.0
zeros(::Type{T}, dims...) where {T<:Union{Int128, UInt128, BigInt, Rational}} =
    fill(zero(T), dims...)
ones(::Type{T}, dims...) where {T<:Union{Int128, UInt128, BigInt, Rational}} =
    fill(one(T), dims...)
# an array of them (`rand(UInt128, 50)`), each element drawn as above
rand(::Type{T}, dims::Integer...) where {T<:Union{Int128, UInt128}} = rand(T, dims)
rand(::Type{T}, dims::Tuple) where {T<:Union{Int128, UInt128}} =
    reshape(T[rand(T) for _ in 1:prod(dims)], dims)

# read(io, T) of a number type from an IOBuffer: its bytes as stored (little-endian)
read(io::IO, ::Type{T}) where {T<:Union{Bool, Integer, AbstractFloat}} = Core.read_number(io, T)
read(io::IO, ::Type{Complex{T}}) where {T<:Real} = (re = read(io, T); Complex(re, read(io, T)))

# Base's generic methods for a program's own Number types (the primitives `^` and `abs2`
# call these for them): powers by repeated squaring with the type's `*`, abs2 by its abs
function Core.power_by_squaring(x, p::Integer)
    p == 0 && return one(x)
    p < 0 && throw(DomainError(p, "cannot raise $x to a negative power $p"))
    y = x   # x^p == y * x^(p - 1)
    p -= 1
    while p > 0
        isodd(p) && (y = y * x)
        p >>= 1
        p > 0 && (x = x * x)
    end
    return y
end
Core.number_abs2(x) = abs(x)^2
big(::Type{T}) where {T<:Number} = typeof(big(zero(T)))
