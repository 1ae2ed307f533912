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
