# Zyla's Base, written in Zyla over the primitives of lang/core/primitives*.py.
# Everything here is differentiable for free: the AD transforms these bodies like user code.

struct Pair{A,B}
    first::A
    second::B
end
# (shown by the host, lang/core/show.py: `(1 => 2) => 3`, `1=>2` when compact)
# Base's: each half converted (`push!(Pair{Int,Int}[], 1 => 2.0)` stores 1 => 2)
convert(::Type{Pair{A,B}}, x::Pair) where {A,B} = Pair{A,B}(convert(A, x.first), convert(B, x.second))

# the properties of an IOContext (`IOContext(io, :compact => true)`); a plain IO has none
get(io::IO, key::Symbol, default) = Core.io_get(io, key, default)
haskey(io::IO, key::Symbol) = Core.io_get(io, key, Core.io_get) !== Core.io_get

# `A >: B`: B is a subtype of A
>:(a, b) = b <: a
iseven(x) = x % 2 == 0
isodd(x) = x % 2 != 0
clamp(x, lo, hi) = min(max(x, lo), hi)
# Zyla has no complex numbers: a real number (array) is its own real part and conjugate,
# and its imaginary part is zero (as Base defines them for reals; AD: identities, and a
# constant zero; an array's imaginary part has a zero array as its gradient, as Zygote's
# projected `complex.(0, real.(dy))`: its rule is in ad.jl)
real(x::Real) = x
imag(x::Real) = zero(x)
conj(x::Real) = x
real(x::AbstractArray{<:Real}) = x
imag(x::AbstractArray{<:Real}) = zero(x)
conj(x::AbstractArray{<:Real}) = x
real(::Type{T}) where {T<:Real} = T
# --- Logging: loggers for @info/@warn/@error/@debug (printed by Core.log_message) ---------------
struct LogLevel
    level::Int
end
Base.isless(a::LogLevel, b::LogLevel) = a.level < b.level
Base.show(io::IO, l::LogLevel) = print(io, l.level == -1000 ? "Debug" : l.level == 0 ? "Info" :
                                       l.level == 1000 ? "Warn" : l.level == 2000 ? "Error" :
                                       string("LogLevel(", l.level, ")"))
Debug = LogLevel(-1000)
Info = LogLevel(0)
Warn = LogLevel(1000)
Error = LogLevel(2000)
abstract type AbstractLogger end
struct ConsoleLogger <: AbstractLogger
    stream
    min_level::LogLevel
end
ConsoleLogger(; kws...) = ConsoleLogger(stderr, Info)
ConsoleLogger(stream; kws...) = ConsoleLogger(stream, Info)
ConsoleLogger(min_level::LogLevel) = ConsoleLogger(stderr, min_level)
struct SimpleLogger <: AbstractLogger
    stream
    min_level::LogLevel
end
SimpleLogger() = SimpleLogger(stderr, Info)
SimpleLogger(stream) = SimpleLogger(stream, Info)
SimpleLogger(min_level::LogLevel) = SimpleLogger(stderr, min_level)
struct NullLogger <: AbstractLogger end
# with_logger(f, logger): f() with its log messages going to logger
with_logger(f::Function, logger::AbstractLogger) = Core.with_logger(f, logger)
current_logger() = something(Core.current_logger(), ConsoleLogger())
global_logger() = current_logger()
global_logger(logger::AbstractLogger) = something(Core.set_global_logger(logger), ConsoleLogger())

# `x^-2` with the power written as a literal (lowering calls this; Julia's literal_pow)
Core.negative_literal_pow(x::AbstractFloat, p) = x ^ p
Core.negative_literal_pow(x::Union{Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool}, p) =
    Float64(x) ^ p
Core.negative_literal_pow(x, p) = inv(x) ^ (-p)

cumsum(x::Tuple) = length(x) == 0 ? () : Tuple(cumsum(collect(x)))
cumprod(x::AbstractVector) = accumulate(*, x)
cumprod(x::Tuple) = length(x) == 0 ? () : Tuple(cumprod(collect(x)))
function accumulate(op, x::AbstractVector; init=nothing)
    out = similar(collect(x), typeof(init === nothing ? first(x) : op(init, first(x))))
    acc = init
    for (i, v) in enumerate(x)
        acc = (i == 1 && init === nothing) ? v : op(acc, v)
        out[i] = acc
    end
    out
end

# --- functions of functions: composition, negation, fixed arguments ---------------------------
# `f ∘ g` is a ComposedFunction, as Julia's (its type, fields and printing)
struct ComposedFunction{O, I} <: Function
    outer::O
    inner::I
end
(c::ComposedFunction)(x) = c.outer(c.inner(x))
(c::ComposedFunction)(xs...; kw...) = c.outer(c.inner(xs...; kw...))
∘(f) = f
∘(f, g) = ComposedFunction(f, g)
∘(f, g, h, rest...) = ∘(ComposedFunction(f, g), h, rest...)
function show(io::IO, c::ComposedFunction)
    print(io, c.outer, " ∘ ")
    c.inner isa ComposedFunction ? print(io, "(", c.inner, ")") : print(io, c.inner)
end
!(f::Function) = (xs...) -> !f(xs...)
struct Fix1 <: Function
    f
    x
end
struct Fix2 <: Function
    f
    x
end
(g::Fix1)(y) = g.f(g.x, y)
(g::Fix2)(y) = g.f(y, g.x)
struct Returns <: Function
    value
end
(r::Returns)(args...) = r.value
# curried comparisons: filter(==(1), xs), findall(in(b), a), count(<(3), v)
isequal(x) = Fix2(isequal, x)
in(x) = Fix2(in, x)
startswith(s) = Fix2(startswith, s)
endswith(s) = Fix2(endswith, s)
occursin(s) = Fix1(occursin, s)

# --- the iteration protocol for Base's collections (a program's own types add methods) ---
iterate(x::Union{AbstractArray, Tuple, NamedTuple, AbstractString}) = iterate(x, 1)
iterate(x::Union{AbstractArray, Tuple, NamedTuple, AbstractString}, i::Integer) =
    i <= length(x) ? (x[i], i + 1) : nothing
iterate(x::Number) = (x, nothing)
iterate(x::Number, ::Nothing) = nothing
# (Base's own dictionaries and sets only: a program's AbstractDict iterates by its own methods)
function iterate(d::Union{Dict, IdDict, Set, Base.KeySet}, i::Integer=1)
    ps = collect(d)
    i <= length(ps) ? (ps[i], i + 1) : nothing
end
# (a lazy iterator's state is a host object that draws its elements one at a time, so
# infinite ones work; lang/core/builtins_iter.py)
iterate(x::Iterators.LazyIterator) = Core.lazy_iterate(x)
iterate(x::Iterators.LazyIterator, state) = Core.lazy_iterate(x, state)

# --- Val ----------------------------------------------------------------------------------------
struct Val{x} end
Val(x) = Val{x}()

# --- MIME types (`show(io, MIME("text/plain"), x)`; lang/core/builtins_io.py) -----------------
struct MIME{mime} end
MIME(s::AbstractString) = MIME{Symbol(s)}()

# --- numbers ------------------------------------------------------------------------------------
divrem(a, b) = (div(a, b), rem(a, b))
fldmod(a, b) = (fld(a, b), mod(a, b))
mod1(x, y) = (m = mod(x, y); m == 0 ? y : m)
fld1(x, y) = fld(x - 1, y) + 1
minmax(a, b) = isless(b, a) ? (b, a) : (a, b)
minmax(a::Real, b::Real) = (min(a, b), max(a, b))  # (promoted, and NaN wins, as min and max)
ispow2(x::Integer) = x > 0 && count_ones(x) == 1
function nextpow(a::Real, x::Real)
    x <= 0 && throw(DomainError(x, "`x` must be positive."))
    a == 2 && x isa Integer && return Core.nextpow_loop(oftype(x, 2), x)  # (x's type, as Base)
    a <= 1 && throw(DomainError(a, "`a` must be greater than 1."))
    Core.nextpow_loop(a, x)
end
function prevpow(a::Real, x::Real)
    x < 1 && throw(DomainError(x, "`x` must be ≥ 1."))
    a == 2 && x isa Integer && return Core.prevpow_loop(oftype(x, 2), x)
    a <= 1 && throw(DomainError(a, "`a` must be greater than 1."))
    Core.prevpow_loop(a, x)
end
# a fixed-width integer base must not wrap around: Base's DomainError and OverflowError
Core.pow_fixed(a) = a isa Integer && !(a isa BigInt)
function Core.nextpow_loop(a, x)
    Core.pow_fixed(a) && x > typemax(typeof(a)) && throw(DomainError(x, "argument is beyond the range of type of the base"))
    p = one(a)
    while p < x
        Core.pow_fixed(a) && p > div(typemax(typeof(a)), a) && throw(OverflowError("result is beyond the range of type of the base"))
        p *= a
    end
    p
end
function Core.prevpow_loop(a, x)
    Core.pow_fixed(a) && x > typemax(typeof(a)) && throw(DomainError(x, "argument is beyond the range of type of the base"))
    p = one(a)
    while Core.pow_fixed(a) ? p <= div(x, a) : p * a <= x
        p *= a
    end
    p
end
isreal(x::Real) = true
cmp(a, b) = isless(a, b) ? -1 : (isless(b, a) ? 1 : 0)
cmp(lt, a, b) = lt(a, b) ? -1 : (lt(b, a) ? 1 : 0)
function digits(n::Integer; base::Integer=10, pad::Integer=1)
    out = typeof(n)[]
    m = abs(n)
    while m != 0
        push!(out, sign(n) * rem(m, base))
        m = div(m, base)
    end
    while length(out) < pad
        push!(out, 0)
    end
    out
end
powermod(x::Integer, p::Integer, m::Integer) =
    convert(typeof(m), Core.powermod(x, p, m))

# copyto!(dst, src): src's elements written into dst in linear order
function copyto!(dst::AbstractArray, src)
    length(src) <= length(dst) || throw(BoundsError(dst, length(src)))
    if size(dst) == size(src)
        dst .= src
    else
        for (i, v) in enumerate(src)
            dst[i] = v
        end
    end
    dst
end
# stack(xs): the arrays (or numbers) of xs along a new dimension, last by default
function stack(xs; dims=nothing)
    n = ndims(first(xs)) + 1
    out = cat([x isa AbstractArray ? reshape(x, size(x)..., 1) : [x] for x in xs]...; dims=n)
    dims === nothing || dims == n ? out : permutedims(out, Core.stack_perm(n, dims))
end
stack(f::Function, xs; dims=nothing) = stack(map(f, xs); dims=dims)
Core.stack_perm(n, d) = ntuple(i -> i < d ? i : (i == d ? n : i - 1), n)
function gcd(a::Integer, b::Integer)
    a, b = promote(a, b)
    while b != 0
        a, b = b, rem(a, b)
    end
    abs(a)
end
# the largest n whose factorial Base's table for n's type holds (the types narrower than 64
# bits are computed as Int64s); a BigInt's has none
Core.factorial_max(::Integer) = 20
Core.factorial_max(::Int128) = 33
Core.factorial_max(::UInt128) = 34
Core.factorial_max(::BigInt) = nothing
function factorial(n::Integer)
    n < 0 && throw(DomainError(n, "`n` must not be negative."))
    m = Core.factorial_max(n)
    m !== nothing && n > m && throw(OverflowError(string(n, " is too large to look up in the table; consider using `factorial(big(", n, "))` instead")))
    f = one(n)
    for k in 2:n
        f *= k
    end
    f
end
gcd(a::Integer, b::Integer, c::Integer...) = gcd(gcd(a, b), c...)
# binomial(n, k) of integers, in the type of its arguments (exact: computed as a BigInt,
# an OverflowError where it does not fit); a negative n as Julia extends it
function binomial(n::Integer, k::Integer)
    T = promote_type(typeof(n), typeof(k))
    x = _binomial_big(n, k)
    T === BigInt && return x
    typemin(T) <= x <= typemax(T) || throw(OverflowError("binomial($n, $k) overflows"))
    convert(T, x)
end
function _binomial_big(n, k)
    k < 0 && return big(0)
    sgn = 1
    if n < 0
        n = -n + k - 1
        isodd(k) && (sgn = -1)
    end
    k > n && return big(0)
    k = Int(min(k, n - k))  # (a range of BigInts is not supported)
    x = big(1)
    for i in 1:k
        x = div(x * (n - k + i), i)
    end
    sgn * x
end
# diff: the differences of neighbours (along `dims` for an array of more dimensions)
diff(a::AbstractVector) = a[2:end] .- a[1:end-1]
function diff(A::AbstractArray; dims::Integer)
    n = ndims(A)
    1 <= dims <= n || throw(ArgumentError("dimension $dims out of range (1:$n)"))
    hi = ntuple(k -> k == dims ? (2:size(A, k)) : (1:size(A, k)), n)
    lo = ntuple(k -> k == dims ? (1:size(A, k)-1) : (1:size(A, k)), n)
    A[hi...] .- A[lo...]
end
lcm(a::Integer, b::Integer) = a == 0 || b == 0 ? zero(promote(a, b)[1]) : abs(a * div(b, gcd(a, b)))
lcm(a::Integer, b::Integer, c::Integer...) = lcm(lcm(a, b), c...)
muladd(a, b, c) = a * b + c
lastindex(x) = length(x)
first(r::AbstractRange) = Core.range_first(r)
# a range reshaped to its own length is itself
reshape(r::AbstractRange, dims::Tuple{Integer}) = dims[1] == length(r) ? r : throw(DimensionMismatch("new dimensions $(dims) must be consistent with array size $(length(r))"))
reshape(r::AbstractRange, n::Integer) = reshape(r, (n,))
# reverse(A; dims): along dims (every dimension by default); reverse(v, start, stop): the
# elements start:stop of v reversed
reverse(x::AbstractArray; dims=:) = dims === (:) ? Core.reverse_all(x) : Core.reverse_dims(x, dims)
reverse(v::AbstractVector, start::Integer, stop::Integer=length(v)) = [v[1:start-1]; v[stop:-1:start]; v[stop+1:end]]
# a matrix turned by quarter turns (k of them: counterclockwise for rotl90)
rotl90(A::AbstractMatrix) = reverse(permutedims(A); dims=1)
rotr90(A::AbstractMatrix) = reverse(permutedims(A); dims=2)
rot180(A::AbstractMatrix) = reverse(A)
rotl90(A::AbstractMatrix, k::Integer) = (k = mod(k, 4); k == 0 ? copy(A) : k == 1 ? rotl90(A) : k == 2 ? rot180(A) : rotr90(A))
rotr90(A::AbstractMatrix, k::Integer) = rotl90(A, -k)
rot180(A::AbstractMatrix, k::Integer) = isodd(k) ? rot180(A) : copy(A)
function reverse!(v::AbstractVector, start::Integer=1, stop::Integer=length(v))
    r = reverse(v, start, stop)
    for i in eachindex(v)
        v[i] = r[i]
    end
    v
end
isdiag(A::AbstractMatrix) = all(A[i, j] == 0 for i in axes(A, 1), j in axes(A, 2) if i != j)
istriu(A::AbstractMatrix) = all(A[i, j] == 0 for i in axes(A, 1), j in axes(A, 2) if i > j)
istril(A::AbstractMatrix) = all(A[i, j] == 0 for i in axes(A, 1), j in axes(A, 2) if i < j)
isdiag(x::Number) = true
diagind(m::Integer, n::Integer, k::Integer=0) = k <= 0 ? range(1 - k, step=m + 1, length=min(m + k, n)) : range(k * m + 1, step=m + 1, length=min(m, n - k))
diagind(A::AbstractMatrix, k::Integer=0) = diagind(size(A, 1), size(A, 2), k)
shuffle!(v::AbstractVector) = copyto!(v, shuffle(v))
bitrand(dims::Integer...) = rand(Bool, dims...)
# get(A, I, default): A[I] where I is within A's bounds, else default (an array of them for
# a range or a tuple of ranges, of the type both promote to)
Base.elsize(A::AbstractArray) = sizeof(eltype(A))
# deprecation warnings are off by default (julia --depwarn=no): nothing is printed
Base.depwarn(msg, funcsym; force=false) = nothing
# setfield! is setproperty! without a type's own setproperty! (Zyla has none to skip)
setfield!(x, name::Symbol, v) = setproperty!(x, name, v)
setfield!(x, i::Integer, v) = setproperty!(x, fieldnames(typeof(x))[i], v)
function get(A::AbstractArray, I::AbstractRange, default)
    T = promote_type(eltype(A), typeof(default))
    T[1 <= i <= length(A) ? A[i] : default for i in I]
end
function get(A::AbstractArray, I::Tuple{AbstractRange, AbstractRange}, default)
    T = promote_type(eltype(A), typeof(default))
    m, n = size(A, 1), size(A, 2)
    T[(1 <= i <= m && 1 <= j <= n) ? A[i, j] : default for i in I[1], j in I[2]]
end
istriu(x::Number) = true
istril(x::Number) = true
last(r::AbstractRange) = Core.range_last(r)
step(r::AbstractRange) = Core.range_step(r)
lastindex(x, d) = size(x, d)
firstindex(x) = 1
inv(x::Number) = 1 / x
isless(a, b) = a < b
# floats in Julia's total order: -0.0 before 0.0, and NaN after everything (NaNs are equal)
isless(a::AbstractFloat, b::AbstractFloat) = Core.float_isless(a, b)
isless(a::AbstractFloat, b::Real) = Core.float_isless(a, b)
isless(a::Real, b::AbstractFloat) = Core.float_isless(a, b)
Core.float_isless(a, b) = !isnan(a) && (isnan(b) || (a == b ? signbit(a) && !signbit(b) : a < b))
exp2(x) = convert(typeof(float(x)), 2) ^ x
function hypot(a, b)
    isinf(a) && return abs(float(a)) + zero(float(b))  # hypot(Inf, NaN) == Inf
    isinf(b) && return abs(float(b)) + zero(float(a))
    m = max(abs(float(a)), abs(float(b)))
    m isa AbstractFloat || return _hypot_scaled(a, b, m)
    m isa Float64 && return _hypot64(abs(Float64(a)), abs(Float64(b)))
    lo, hi = _hypot_range(typeof(m))
    if m > hi || (0 < m < lo)
        # the squares would overflow or underflow: the parts are scaled by the larger
        x = abs(float(a)) / m
        y = abs(float(b)) / m
        return m * sqrt(x * x + y * y)
    end
    sqrt(abs2(a) + abs2(b))
end
hypot(a, b, c, xs...) = hypot(hypot(a, b), c, xs...)
# hypot of a program's own number type (a quantity with units, which floats do not compare
# with): the parts scaled by the larger in the type's own arithmetic, safe from overflow
function _hypot_scaled(a, b, m)
    iszero(m) && return m
    x = abs(float(a)) / m
    y = abs(float(b)) / m
    m * sqrt(x * x + y * y)
end
# hypot of two Float64s >= 0, correctly rounded but in rare cases (as Julia's): Borges'
# correction of sqrt(x² + y²), with the squares' rounding errors from Dekker's product; out
# of the squares' safe range both are scaled by a power of two (exactly) first
function _hypot64(x::Float64, y::Float64)
    x < y && ((x, y) = (y, x))
    (iszero(x) || isnan(x) || isnan(y)) && return x + y
    s = x > 1.0e150 ? 0x1p-600 : (x < 1.0e-150 ? 0x1p600 : 1.0)
    x *= s
    y *= s
    h = sqrt(x * x + y * y)
    x2, x2e = _two_prod(x, x)
    y2, y2e = _two_prod(y, y)
    h2, h2e = _two_prod(h, h)
    h -= (((h2 - x2) - y2) + ((h2e - x2e) - y2e)) / (2 * h)
    return h / s
end
# where the sum of two squares neither overflows nor underflows, for each float type
_hypot_range(::Type{Float32}) = (1.0f-18, 1.0f18)
_hypot_range(::Type{Float16}) = (Float16(0.01), Float16(100))
_hypot_range(::Type) = (1.0e-150, 1.0e150)
isinteger(x::Integer) = true
isinteger(x::AbstractFloat) = isfinite(x) && x == trunc(x)
isinteger(x::Rational) = denominator(x) == 1
oftype(x, y) = convert(typeof(x), y)
copysign(x, y) = signbit(x) == signbit(y) ? x : -x
flipsign(x, y) = signbit(y) ? -x : x
fma(x, y, z) = x * y + z

sum(x; dims=nothing, init=NoInit()) = init isa NoInit ?
    (dims === nothing ? Core.sum(x) : Core.sum(x, dims)) : Core.reduce_init(Core.add_sum, x, dims, init)
# sum(f, x) of an empty array: what f gives on nothing (Base's mapreduce_empty: 0 for abs,
# an ArgumentError for sin); of a Set or another iterable: its elements mapped
sum(f::Function, x; dims=nothing) = dims === nothing && isempty(x) ? Core.mapreduce_empty(f, +, Core.sum_eltype(eltype(x))) : sum(broadcast(f, x); dims=dims)
sum(f::Function, x::AbstractSet) = isempty(x) ? Core.mapreduce_empty(f, +, Core.sum_eltype(eltype(x))) : sum(f, collect(x))
prod(x; dims=nothing, init=NoInit()) = init isa NoInit ?
    (dims === nothing ? Core.prod(x) : Core.prod(x, dims)) : Core.reduce_init(Core.mul_prod, x, dims, init)
prod(f::Function, x) = prod(broadcast(f, x))
# `*` of characters makes a string: their product is their string ("" for none), as Base's
# reduce_empty/reduce_first of `*` for AbstractChar give
prod(x::AbstractArray{<:AbstractChar}) = join(x)
# an array of element type Union{} has no zero to start from (Base's reduce_empty)
sum(x::AbstractArray{Union{}}; dims=nothing) = Core.reduce_empty(+, Union{})
prod(x::AbstractArray{Union{}}; dims=nothing) = Core.reduce_empty(*, Union{})
# (`maximum(x; init)`: the reduction by max from init; an empty x gives init)
maximum(x; dims=nothing, init=NoInit()) = init isa NoInit ? (dims === nothing ? Core.maximum(x) : Core.maximum(x, dims)) : reduce(max, x; dims=dims, init=init)
maximum(f::Function, x) = maximum(broadcast(f, x))
minimum(x; dims=nothing, init=NoInit()) = init isa NoInit ? (dims === nothing ? Core.minimum(x) : Core.minimum(x, dims)) : reduce(min, x; dims=dims, init=init)
minimum(f::Function, x) = minimum(broadcast(f, x))
max(x) = x
min(x) = x

# lazy iterators (Iterators.take, ...) are collected first
sum(x::Iterators.LazyIterator) = sum(collect(x))
sum(f::Function, x::Iterators.LazyIterator) = sum(f, collect(x))
prod(x::Iterators.LazyIterator) = prod(collect(x))
maximum(x::Iterators.LazyIterator) = maximum(collect(x))
minimum(x::Iterators.LazyIterator) = minimum(collect(x))
maximum(f::Function, x::Iterators.LazyIterator) = maximum(f, collect(x))
minimum(f::Function, x::Iterators.LazyIterator) = minimum(f, collect(x))
# a NamedTuple iterates over its values
sum(nt::NamedTuple) = sum(values(nt))
sum(f::Function, nt::NamedTuple) = sum(f, values(nt))
prod(nt::NamedTuple) = prod(values(nt))
prod(f::Function, nt::NamedTuple) = prod(f, values(nt))
maximum(nt::NamedTuple) = maximum(values(nt))
minimum(nt::NamedTuple) = minimum(values(nt))
maximum(f::Function, nt::NamedTuple) = maximum(f, values(nt))
minimum(f::Function, nt::NamedTuple) = minimum(f, values(nt))
collect(nt::NamedTuple) = collect(values(nt))
first(nt::NamedTuple) = nt[1]
Tuple(nt::NamedTuple) = values(nt)
map(f, nt::NamedTuple) = NamedTuple{keys(nt)}(map(f, values(nt)))
reduce(op, nt::NamedTuple; init=NoInit()) = reduce(op, values(nt); init=init)
foldl(op, nt::NamedTuple; init=NoInit()) = foldl(op, values(nt); init=init)
mean(x::Iterators.LazyIterator) = mean(collect(x))
map(f, x::Iterators.LazyIterator) = map(f, collect(x))

mean(x; dims=nothing) = dims === nothing ? sum(x) / length(x) : sum(x; dims=dims) ./ (length(x) ÷ length(sum(x; dims=dims)))
mean(f::Function, x) = mean(broadcast(f, x))
# `var`'s keyword `mean` shadows the function inside it
_var_mean(x, dims, m) = m === nothing ? mean(x; dims=dims) : m
function var(x; dims=nothing, corrected=true, mean=nothing)
    m = _var_mean(x, dims, mean)
    n = dims === nothing ? length(x) : length(x) ÷ length(sum(x; dims=dims))
    s = sum(abs2.(x .- m); dims=dims)
    s ./ (corrected ? n - 1 : n)
end
std(x; dims=nothing, corrected=true, mean=nothing) = sqrt.(var(x; dims=dims, corrected=corrected, mean=mean))

dot(x, y) = sum(x .* y)
norm(x) = sqrt(sum(abs2.(x)))
norm(x, p) = p == 2 ? norm(x) : sum(abs.(x) .^ p) ^ (1 / p)
tr(A) = sum(A[i, i] for i in 1:size(A, 1))
diag(A) = [A[i, i] for i in 1:min(size(A, 1), size(A, 2))]
Core.times(xs...) = reduce((a, b) -> a * b, xs)

# map over tuples in Zyla, so that it is differentiable (pullback rules use it)
ntuple(f, n::Int) = n == 0 ? () : n < 0 ? throw(ArgumentError("tuple length should be ≥ 0, got $n")) :
    (ntuple(f, n - 1)..., f(n))
ntuple(f, n::Integer) = ntuple(f, Int(n))  # (f gets Int indices, as Julia's)
ntuple(f, ::Val{N}) where N = ntuple(f, N::Int)
map(f, t::Tuple) = ntuple(i -> f(t[i]), length(t))
map(f, a::Tuple, b::Tuple) = ntuple(i -> f(a[i], b[i]), min(length(a), length(b)))

# --- exceptions (lang/core/exceptions.py turns the runtime's errors into these) ------------------

struct ErrorException <: Exception
    msg
end
struct ArgumentError <: Exception
    msg
end
struct DimensionMismatch <: Exception
    msg
end
struct AssertionError <: Exception
    msg
end
struct OverflowError <: Exception
    msg
end
struct DomainError <: Exception
    val
    msg
end
DomainError(val) = DomainError(val, "")
struct BoundsError <: Exception
    a
    i
end
BoundsError() = BoundsError(nothing, nothing)
struct KeyError <: Exception
    key
end
struct UndefVarError <: Exception
    var
end
struct InexactError <: Exception
    func
    T
    val
end
# an indexing function a type does not define (`setindex!` of a range)
struct CanonicalIndexError <: Exception
    func
    type
end
struct MethodError <: Exception
    f
    args
end
struct DivideError <: Exception end
# a read of an array slot never assigned (`Vector{String}(undef, 2)[1]`)
struct UndefRefError <: Exception end
struct StackOverflowError <: Exception end
struct TypeError <: Exception
    msg
end
struct UndefKeywordError <: Exception
    var
end
struct SingularException <: Exception
    msg
end
# a failed operation on a file or the system (a missing file, a refused read): Julia's
# fields; a runtime error of this kind is caught with its message as `prefix`
struct SystemError <: Exception
    prefix
    errnum
    extrainfo
end
SystemError(prefix, errnum=0) = SystemError(prefix, errnum, nothing)
showerror(io, e) = print(io, Core.error_message(e))

# --- iteration ------------------------------------------------------------------------------

eachcol(A) = [A[:, j] for j in 1:size(A, 2)]
eachrow(A) = [A[i, :] for i in 1:size(A, 1)]
eachslice(A; dims) = [selectdim(A, dims, k) for k in 1:size(A, dims)]
selectdim(A, d, k) = getindex(A, ntuple(i -> i == d ? k : (:), ndims(A))...)
# (Iterators.product: lang/core/stdlib/collections.jl)
view(A, I...) = Core.view(A, I...)  # (shares A's memory: lang/core/primitives_array.py)
# `@views`' indexing (Base.maybeview): scalar indices give the element, others a view
Core.maybeview(A::AbstractArray, I...) =
    all(i -> i isa Integer || i isa CartesianIndex, I) ? getindex(A, I...) : view(A, I...)
Core.maybeview(A, I...) =
    A isa ByteString && length(I) == 1 && I[1] isa UnitRange ? view(A, I[1]) : getindex(A, I...)

# --- ranges ---------------------------------------------------------------------------------

# `range(start, stop, length)`, `range(start, stop; length | step)`, `range(start; stop,
# length, step)` and `range(; ...)`: as Julia, a given length with both ends makes a
# floating-point range; start and length alone a unit range of start's type
range(start, stop, len::Integer) = Core.range_ends(start, stop, len)
range(start, stop; length=nothing, step=nothing) = Core.range_kw(start, step, stop, length)
range(start; stop=nothing, length=nothing, step=nothing) = Core.range_kw(start, step, stop, length)
range(; start=nothing, stop=nothing, length=nothing, step=nothing) =
    Core.range_kw(start, step, stop, length)

function Core.range_kw(start, step, stop, len)
    if start !== nothing && stop !== nothing
        len !== nothing && step !== nothing &&
            throw(ArgumentError("too many arguments specified; try passing only one of `stop` or `length`"))
        len !== nothing && return Core.range_ends(start, stop, len)
        return step === nothing ? (start:stop) : (start:step:stop)
    end
    len === nothing &&
        throw(ArgumentError("range needs two of start, stop and length (or step with one of them)"))
    if start !== nothing
        step === nothing && start isa Integer && return start:(start + len - 1)
        return Core.range_len(start, step === nothing ? oneunit(start) : step, len)
    end
    stop === nothing && throw(ArgumentError("range needs start or stop with length"))
    s = step === nothing ? oneunit(stop) : step
    step === nothing && stop isa Integer && return (stop - len + 1):stop
    Core.range_len(stop - (len - 1) * s, s, len)
end

# evalpoly(x, (c0, c1, ...)): c0 + c1 x + c2 x^2 + ..., by Horner's rule from the highest
# coefficient (muladd, as Base.Math)
function evalpoly(x, p)
    n = length(p)
    n == 0 && return zero(x)
    ex = p[n]
    for i in n-1:-1:1
        ex = muladd(x, ex, p[i])
    end
    ex
end

# --- shapes ---------------------------------------------------------------------------------

dropdims(x; dims) = reshape(x, Core.dropdims_size(size(x), dims))
# an array of an abstract element type divided by a number, element by element (`A / x` is
# `A ./ x`; the arrays of concrete numbers take the primitive)
/(x::AbstractArray{Any}, y::Number) = x ./ y
/(x::AbstractArray{Number}, y::Number) = x ./ y
/(x::AbstractArray{Real}, y::Number) = x ./ y
# `reshape(x, Val(N))`: x with N dimensions, its last ones folded into the N-th, or with
# trailing dimensions of size 1 added
function reshape(x::AbstractArray, ::Val{N}) where {N}
    s = size(x)
    N == length(s) && return x
    N > length(s) && return reshape(x, (s..., ntuple(i -> 1, N - length(s))...))
    N == 0 ? reshape(x, ()) : reshape(x, (s[1:N-1]..., prod(s[N:end])))
end
Core.as_tuple(x::Tuple) = x
Core.as_tuple(x) = (x,)
function repeat(x::AbstractArray, counts::Integer...; inner=nothing, outer=nothing)
    y = inner === nothing ? x : Core.repeat_inner(x, Core.repeat_times(x, inner, "inner"))
    c = outer === nothing ? counts : Core.repeat_times(x, outer, "outer")
    length(c) == 0 ? y : Core.repeat_outer(y, c)
end
# `inner`/`outer` of repeat: an Integer, a Tuple or a Vector of counts, one per dimension
# of x at least (Base's check)
function Core.repeat_times(x, n, which)
    t = n isa AbstractVector ? Tuple(n) : Core.as_tuple(n)
    all(k -> k isa Integer, t) ||
        throw(ArgumentError("repeat requires integer counts, got $which = $n"))
    length(t) >= ndims(x) || throw(ArgumentError("number of $which repetitions " *
        "($(length(t))) cannot be less than number of dimensions of input array ($(ndims(x)))"))
    t
end
repeat(s::AbstractString, n::Integer) = join(fill(s, n))
cat(xs...; dims) = Core.cat_any(Core.cat_dims(dims), xs...)
Core.cat_dims(::Val{d}) where {d} = d  # `dims = Val(2)` is `dims = 2`
Core.cat_dims(d) = d
Core.cat_dims(d::AbstractVector) = Tuple(d)  # `dims = [1, 2]` is `dims = (1, 2)`
Core.cat_any(d, xs...) = Core.cat(d, xs...)
Core.cat_any(d::Tuple, xs...) = length(d) == 1 ? Core.cat(d[1], xs...) : Core.cat_block(d, xs...)
# `cat(xs...; dims=(1, 2))`: block-diagonal, each x zero-padded along the dims to its block
# (a sum of padded arrays, so that it differentiates; recursive, so that it compiles)
function Core.cat_block(dims, xs...)
    T = promote_type(map(eltype, xs)...)
    N = max(maximum(dims), maximum(map(ndims, xs)))
    tots = map(d -> sum(map(x -> size(x, d), xs)), dims)
    Core.cat_blocks(dims, map(d -> 0, dims), tots, T, N, xs...)
end
function Core.cat_blocks(dims, offs, tots, T, N, x, rest...)
    hi = ntuple(k -> tots[k] - offs[k] - size(x, dims[k]), length(dims))
    y = Core.pad_dims(Core.as_block(x, N), dims, offs, hi, T, N)
    isempty(rest) && return y
    y .+ Core.cat_blocks(dims, ntuple(k -> offs[k] + size(x, dims[k]), length(dims)), tots, T, N,
                         rest...)
end
Core.as_block(x::AbstractArray, N) = x
Core.as_block(x, N) = fill(x, ntuple(i -> 1, N))  # a number is a 1×1 block
Core.pad_dims(y, dims::Tuple{}, lo, hi, T, N) = y
Core.pad_dims(y, dims, lo, hi, T, N) = Core.pad_dims(Core.pad_dim(y, dims[1], lo[1], hi[1], T, N),
                                                     Base.tail(dims), Base.tail(lo), Base.tail(hi), T, N)
function Core.pad_dim(y, d, lo, hi, T, N)
    sz = ntuple(i -> size(y, i), N)
    shape(n) = ntuple(i -> i == d ? n : sz[i], N)
    cat(zeros(T, shape(lo)...), reshape(y, sz), zeros(T, shape(hi)...); dims=d)
end

# --- reductions -----------------------------------------------------------------------------

struct NoInit end
⊻(a, b) = xor(a, b)
function Core.foldl_init(op, acc, xs)
    for x in xs
        acc = op(acc, x)
    end
    acc
end
function Core.foldl_init(op, acc, xs::AbstractArray)
    # an index loop: AD propagates into xs through getindex
    for i in 1:length(xs)
        acc = op(acc, xs[i])
    end
    acc
end
# the result of reducing an empty collection of element type T with op (Base's
# reduce_empty): op's identity where it has one, else an ArgumentError
Core.reduce_empty(op, T) = throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
Core.reduce_empty(op::typeof(+), T) = zero(T)
Core.reduce_empty(op::typeof(+), ::Type{Bool}) = 0
Core.reduce_empty(op::typeof(*), T) = one(T)
Core.reduce_empty(op::typeof(*), ::Type{<:AbstractChar}) = ""
Core.reduce_empty(op::typeof(&), ::Type{Bool}) = true
Core.reduce_empty(op::typeof(|), ::Type{Bool}) = false
Core.reduce_empty(op::typeof(+), ::Type{Union{}}) = throw(ArgumentError("reducing over an empty collection of element type Union{} is not allowed"))
Core.reduce_empty(op::typeof(*), ::Type{Union{}}) = throw(ArgumentError("reducing over an empty collection of element type Union{} is not allowed"))
# ... and of mapping f first (Base's mapreduce_empty): known for identity, abs and abs2
Core.mapreduce_empty(f, op, T) = throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
Core.mapreduce_empty(f::typeof(identity), op, T) = Core.reduce_empty(op, T)
Core.mapreduce_empty(f::typeof(abs), op, T) = abs(Core.reduce_empty(op, T))
Core.mapreduce_empty(f::typeof(abs2), op, T) = abs2(Core.reduce_empty(op, T))
Core.mapreduce_empty(f::typeof(abs), op::typeof(max), T) = abs(zero(T))
Core.mapreduce_empty(f::typeof(abs2), op::typeof(max), T) = abs2(zero(T))
# sum(x; init) and prod(x; init): op folded from init (over dims, with reduce)
Core.reduce_init(op, x, dims, init) =
    dims === nothing ? foldl(op, x; init=init) : reduce(op, x; dims=dims, init=init)
# Base's add_sum and mul_prod: + and *, with small integers widened to Int (UInt) first
Core.add_sum(a, b) = a + b
Core.add_sum(a::Union{Bool,Int8,Int16,Int32,UInt8,UInt16,UInt32}, b::Union{Bool,Int8,Int16,Int32,UInt8,UInt16,UInt32}) =
    Core.sum_eltype(typeof(a))(a) + Core.sum_eltype(typeof(b))(b)
Core.mul_prod(a, b) = a * b
Core.mul_prod(a::Union{Bool,Int8,Int16,Int32,UInt8,UInt16,UInt32}, b::Union{Bool,Int8,Int16,Int32,UInt8,UInt16,UInt32}) =
    Core.sum_eltype(typeof(a))(a) * Core.sum_eltype(typeof(b))(b)
# sum's element type: small integers add as Int (UInt), as Base's add_sum
Core.sum_eltype(T) = T
Core.sum_eltype(::Type{<:Union{Bool,Int8,Int16,Int32}}) = Int
Core.sum_eltype(::Type{<:Union{UInt8,UInt16,UInt32}}) = UInt
Core.foldl1(op, xs::Tuple) = isempty(xs) ? Core.reduce_empty(op, Union{}) : Core.foldl1(op, collect(xs))
Core.foldl1(op, xs::AbstractArray) = isempty(xs) ? Core.reduce_empty(op, eltype(xs)) : Core.foldl_init(op, xs[1], xs[2:end])
Core.foldl1(op, xs) = Core.foldl1(op, collect(xs))
Core.foldl1(op, x::Number) = x
foldl(op, xs; init=NoInit()) = init isa NoInit ? Core.foldl1(op, xs) : Core.foldl_init(op, init, xs)
function foldr(op, xs; init=NoInit())
    v = collect(xs)
    init isa NoInit && isempty(v) && return Core.reduce_empty(op, eltype(v))
    foldl((a, b) -> op(b, a), reverse(v); init=init)
end
Core.reduce1(op, xs) = Core.foldl1(op, xs)
Core.reduce1(op::typeof(hcat), xs) = hcat(xs...)
Core.reduce1(op::typeof(vcat), xs) = vcat(xs...)
# `+` over small integers wraps in their type (sum would widen them)
Core.reduce1(op::typeof(+), xs::AbstractArray) = isempty(xs) ? Core.reduce_empty(op, eltype(xs)) : Core.reduce_as(eltype(xs), sum(xs))
Core.reduce1(op::typeof(*), xs::AbstractArray{T}) where {T<:Number} = isempty(xs) ? Core.reduce_empty(op, T) : Core.reduce_as(T, prod(xs))
Core.reduce_as(T, s) = s
Core.reduce_as(T::Type{<:Union{Int8,Int16,Int32,UInt8,UInt16,UInt32}}, s) = s % T
Core.reduce1(op::typeof(max), xs::AbstractArray) = maximum(xs)
Core.reduce1(op::typeof(min), xs::AbstractArray) = minimum(xs)
Core.reduce_dims1(op::typeof(+), xs, dims) = sum(xs; dims=dims)
Core.reduce_dims1(op::typeof(*), xs, dims) = prod(xs; dims=dims)
Core.reduce_dims1(op::typeof(max), xs, dims) = maximum(xs; dims=dims)
Core.reduce_dims1(op::typeof(min), xs, dims) = minimum(xs; dims=dims)
Core.reduce_dims1(op, xs, dims) = Core.reduce_dims(op, xs, dims, nothing)
function reduce(op, xs; init=NoInit(), dims=nothing)
    if dims === nothing
        init isa NoInit ? Core.reduce1(op, xs) : Core.foldl_init(op, init, xs)
    else
        init isa NoInit ? Core.reduce_dims1(op, xs, dims) : broadcast(op, init, Core.reduce_dims1(op, xs, dims))
    end
end
function mapreduce(f, op, xs; dims=nothing, init=NoInit())
    if dims === nothing && init isa NoInit && xs isa AbstractArray && isempty(xs)
        return Core.mapreduce_empty(f, op, eltype(xs))
    end
    reduce(op, map(f, xs); dims=dims, init=init)
end
mapreduce(f, op, xs, ys...; dims=nothing, init=NoInit()) = reduce(op, map(f, xs, ys...); dims=dims, init=init)
function mapfoldl(f, op, xs; init=NoInit())
    if init isa NoInit && xs isa AbstractArray && isempty(xs)
        return Core.mapreduce_empty(f, op, eltype(xs))
    end
    foldl(op, map(f, xs); init=init)
end
mapfoldr(f, op, xs; init=NoInit()) = foldr(op, map(f, xs); init=init)
prod(f::Function, x; dims=nothing) = prod(broadcast(f, x); dims=dims)
maximum(f::Function, x; dims=nothing) = maximum(broadcast(f, x); dims=dims)
minimum(f::Function, x; dims=nothing) = minimum(broadcast(f, x); dims=dims)
extrema(x; dims=:) = dims === (:) ? (minimum(x), maximum(x)) : map(tuple, minimum(x; dims=dims), maximum(x; dims=dims))
extrema(f::Function, x; dims=:) = dims === (:) ? (minimum(f, x), maximum(f, x)) : extrema(f.(x); dims=dims)

# findmax / argmax: an Int index for vectors, CartesianIndex for arrays (as in Julia)
struct CartesianIndex{N}
    I
end
CartesianIndex(t::Tuple) = CartesianIndex{length(t)}(t)
CartesianIndex(i::Integer) = CartesianIndex((i,))
CartesianIndex(i::Integer, j::Integer, rest::Integer...) = CartesianIndex((i, j, rest...))
show(io::IO, c::CartesianIndex) = print(io, "CartesianIndex(", join(c.I, ", "), ")")
Core.find_index(x, i) = ndims(x) <= 1 ? i : CartesianIndex(Core.cartesian_tuple(size(x), i))
function Core.cartesian_tuple(sz, i)
    k = i - 1
    out = ()
    for n in sz
        out = (out..., k % n + 1)
        k = k ÷ n
    end
    out
end
Core.findext(x, largest) = largest ? Core.findmax(x) : Core.findmin(x)
function Core.findext_any(x, largest)
    v, i = Core.findext(x, largest)
    (v, Core.find_index(x, i))
end
findmax(x; dims=nothing) = dims === nothing ? Core.findext_any(x, true) : Core.findext_dims(x, dims, true)
findmin(x; dims=nothing) = dims === nothing ? Core.findext_any(x, false) : Core.findext_dims(x, dims, false)
findmax(f::Function, x) = findmax(broadcast(f, x))
findmin(f::Function, x) = findmin(broadcast(f, x))
# an unordered collection has no indices for findmax/findmin to return (Julia: keys(s))
findmax(s::AbstractSet) = throw(MethodError(keys, (s,)))
findmin(s::AbstractSet) = throw(MethodError(keys, (s,)))
argmax(x; dims=nothing) = dims === nothing ? Core.find_index(x, Core.argmax(x)) : Core.findext_dims(x, dims, true)[2]
argmin(x; dims=nothing) = dims === nothing ? Core.find_index(x, Core.argmin(x)) : Core.findext_dims(x, dims, false)[2]
argmax(f::Function, x) = x[argmax(broadcast(f, x))]
argmin(f::Function, x) = x[argmin(broadcast(f, x))]

# --- numbers --------------------------------------------------------------------------------

atan(y, x) = Core.atan2(y, x)
√(x) = sqrt(x)
∛(x) = cbrt(x)
fld(a, b) = div(a - mod(a, b), b)
cld(a, b) = -fld(-a, b)
# of floats, Julia's: the quotient of the exact remainder's complement, rounded
fld(a::AbstractFloat, b::AbstractFloat) = Core.float_quot(a, b, mod(a, b))
fld(a::AbstractFloat, b::Real) = fld(promote(a, b)...)
fld(a::Real, b::AbstractFloat) = fld(promote(a, b)...)
cld(a::AbstractFloat, b::AbstractFloat) = Core.float_quot(a, b, mod(a, -b))
cld(a::AbstractFloat, b::Real) = cld(promote(a, b)...)
cld(a::Real, b::AbstractFloat) = cld(promote(a, b)...)
Core.float_quot(a, b, r) = round((a - r) / b)
iszero(x) = x == zero(x)
isone(x) = x == one(x)
exp10(x) = convert(typeof(float(x)), 10) ^ x
# Base's AbstractFloat methods (a program's own float type needs only `^`)
exp2(x::AbstractFloat) = 2^x
exp10(x::AbstractFloat) = 10^x
log(b::Number, x::Number) = log(x) / log(b)
sec(x) = 1 / cos(x)
csc(x) = 1 / sin(x)
cot(x) = 1 / tan(x)
deg2rad(x) = x * (pi / 180)
rad2deg(x) = x * (180 / pi)
# a float keeps its type: deg2rad(30f0) isa Float32, with π rounded to that type first
deg2rad(x::AbstractFloat) = x * (oftype(x, pi) / 180)
rad2deg(x::AbstractFloat) = x * (180 / oftype(x, pi))
# sinpi/cospi: x = n/2 + r reduced exactly (|r| <= 1/4, with n mod 4 picking the kernel and
# sign), then Taylor series of sin(πr) and cos(πr) with πr carried as an unevaluated sum
# hi + lo (Dekker's product: no fma, so it compiles): within an ulp, exact zeros and ones at
# whole and half multiples of π, sinpi(1/6) == 0.5. Float32 and Float16 go through Float64;
# a Rational is reduced exactly first (sinpi(5//6) == 0.5).
const _PI_HI = 3.141592653589793
const _PI_LO = 1.2246467991473532e-16
# Taylor coefficients of (sin(y) - y) / y^3 and (cos(y) - 1 + y^2/2) / y^4 in y^2
const _SIN_TAYLOR = (-0.16666666666666666, 0.008333333333333333, -0.0001984126984126984,
                     2.7557319223985893e-6, -2.505210838544172e-8, 1.6059043836821613e-10,
                     -7.647163731819816e-13, 2.8114572543455206e-15)
const _COS_TAYLOR = (0.041666666666666664, -0.001388888888888889, 2.48015873015873e-5,
                     -2.755731922398589e-7, 2.08767569878681e-9, -1.1470745597729725e-11,
                     4.779477332387385e-14, -1.5619206968586225e-16)
# a == hi + lo with hi holding a's upper 26 bits (Veltkamp's split)
_split26(a::Float64) = (c = 134217729.0 * a; h = c - (c - a); (h, a - h))
# a * b == p + e exactly (Dekker's product)
function _two_prod(a::Float64, b::Float64)
    p = a * b
    ah, al = _split26(a)
    bh, bl = _split26(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
end
function _mul_pi(r::Float64)
    hi, e = _two_prod(_PI_HI, r)
    return hi, e + _PI_LO * r
end
function _sinpi_kernel(r::Float64)
    hi, lo = _mul_pi(r)
    y2 = hi * hi
    return hi + (lo * (1 - y2 / 2) + hi * y2 * evalpoly(y2, _SIN_TAYLOR))
end
function _cospi_kernel(r::Float64)
    hi, lo = _mul_pi(r)
    p, e = _two_prod(hi, hi)
    h2 = p / 2
    w = 1 - h2
    return w + ((((1 - w) - h2) - (e / 2 + hi * lo)) + p * p * evalpoly(p, _COS_TAYLOR))
end
# (r, k) with ax == (4m + k)/2 + r, |r| <= 1/4, for ax >= 0 finite
function _half_turns(ax::Float64)
    n = round(2 * ax)
    return ax - n / 2, Int(rem(n, 4.0))
end
function _half_turns(ax::Rational)
    n = floor(Int, 2 * mod(ax, 2) + 1 // 2)
    return Float64(mod(ax, 2) - n // 2), rem(n, 4)
end
# sin(π ax) (s == true) or cos(π ax) for ax >= 0, from the kernels by the quarter turn k
function _pi_turn(ax, s::Bool)
    r, k = _half_turns(ax)
    k = rem(s ? k : k + 1, 4)  # cos(πx) == sin(π(x + 1/2))
    v = isodd(k) ? _cospi_kernel(r) : _sinpi_kernel(r)
    return k >= 2 ? 0.0 - v : v
end
function _check_pi_arg(x)
    isinf(x) && throw(DomainError(x, "`x` cannot be infinite."))
end
function sinpi(x::AbstractFloat)
    isnan(x) && return x
    _check_pi_arg(x)
    ax = abs(Float64(x))
    s = ax >= 9.007199254740992e15 ? 0.0 : _pi_turn(ax, true)
    return oftype(x, signbit(x) ? -s : s)
end
function cospi(x::AbstractFloat)
    isnan(x) && return x
    _check_pi_arg(x)
    ax = abs(Float64(x))
    return oftype(x, ax >= 9.007199254740992e15 ? 1.0 : _pi_turn(ax, false))
end
sinpi(x::Integer) = signbit(x) ? -zero(float(x)) : zero(float(x))
cospi(x::Integer) = isodd(x) ? -one(float(x)) : one(float(x))
function sinpi(x::Rational)
    _check_pi_arg(x)
    s = _pi_turn(abs(x), true)
    return signbit(x) ? -s : s
end
cospi(x::Rational) = (_check_pi_arg(x); _pi_turn(abs(x), false))
sinpi(x::Real) = sinpi(float(x))
cospi(x::Real) = cospi(float(x))
sincospi(x) = (sinpi(x), cospi(x))
sinc(x) = iszero(x) ? one(float(x)) : isinf(x) ? zero(float(x)) :
    sinpi(x) / (oftype(float(x), pi) * x)
sincos(x) = (sin(x), cos(x))

# --- Statistics -----------------------------------------------------------------------------

function median(x)
    s = sort(vec(x))
    n = length(s)
    isodd(n) ? float(s[(n + 1) ÷ 2]) : (s[n ÷ 2] + s[n ÷ 2 + 1]) / 2
end

# --- linear algebra in Base ---------------------------------------------------------------

inv(A::AbstractMatrix) = Core.matinv(A)

# --- small Base functions that real files call ----------------------------------------------

only(x) = length(x) == 1 ? first(x) :
    throw(ArgumentError("Collection must contain exactly 1 element, has $(length(x))"))
only(x::Char) = x
something() = throw(ArgumentError("No value arguments present"))
something(x, rest...) = x === nothing ? something(rest...) : x
trues(dims...) = fill(true, dims...)
falses(dims...) = fill(false, dims...)
# the indices where x is true (linear indices; Julia gives CartesianIndex for matrices)
findall(x::AbstractVector{Bool}) = [i for i in 1:length(x) if x[i]]
findall(f::Function, x::AbstractVector) = Int[i for i in 1:length(x) if f(x[i])]
isequal(a, b) = Core.isequal(a, b)
deepcopy(x) = Core.deepcopy(x)
function circshift(v::AbstractVector, k::Integer)
    n = length(v)
    [v[mod(i - k - 1, n) + 1] for i in 1:n]
end
# circshift(A, shifts): dimension d shifted by shifts[d] (the first ones for an integer)
function circshift(A::AbstractArray, shifts)
    s = Tuple(shifts)
    A[ntuple(d -> [mod(i - (d <= length(s) ? s[d] : 0) - 1, size(A, d)) + 1 for i in 1:size(A, d)], ndims(A))...]
end
summary(x::AbstractVector) = string(length(x), "-element ", typeof(x))
summary(x::AbstractArray) = string(join(size(x), "×"), " ", typeof(x))
summary(x) = string(typeof(x))

# `Ref(x)`: a mutable box; `r[]` reads it and `r[] = v` writes it (for a 0-d array they
# read and write its one element)
mutable struct Ref{T}
    x::T
end
# printed as Julia prints the concrete type that `Ref(x)` makes
show(io::IO, r::Ref{T}) where {T} = print(io, "Base.RefValue{", T, "}(", repr(r.x), ")")
Core.deref(r::Ref) = r.x
getindex(r::Ref) = r.x
only(r::Ref) = r.x
# `VecElement(x)`: an element of a SIMD vector tuple (a plain wrapper in Zyla)
struct VecElement{T}
    value::T
end
convert(::Type{T}, x) where {T<:VecElement} = T(x)
convert(::Type{T}, x::T) where {T<:VecElement} = x
# a Ref iterates as a container of its one value (`Tuple(Ref(3))` is `(3,)`)
iterate(r::Ref) = (r.x, nothing)
iterate(r::Ref, ::Nothing) = nothing
length(r::Ref) = 1
# `T[]` and `T[a, b]` with T a type held by a variable: a typed vector, as Base's
# getindex(::Type{T}, vals...)
Core.deref(T::Type) = Core.typed_vect(T)
getindex(T::Type, vals...) = Core.typed_vect(T, vals...)
Core.deref(x::AbstractArray) = length(x) == 1 ? x[1] :
    throw(BoundsError("attempt to access $(length(x))-element array at index []"))
function Core.setref!(r::Ref, v)
    r.x = v
    r
end
function Core.setref!(x::AbstractArray, v)
    x[1] = v
    x
end

# `@timed ex`'s result (lang/core/macros.py)
Core.timed_result(value, time) = (value = value, time = time)

# Base's hvcat: the blocks xs laid out in rows of rows[i] blocks (nc each, for an integer)
hvcat(rows::Tuple{Vararg{Integer}}, xs...) = Core.hvcat(rows, xs...)
function hvcat(nc::Integer, xs...)
    nr, r = divrem(length(xs), nc)
    r == 0 || throw(ArgumentError("number of arrays $(length(xs)) is not a multiple of the requested number of block columns $nc"))
    Core.hvcat(ntuple(_ -> nc, nr), xs...)
end
# `T[a b; c d]`: the matrix literal with its elements converted to T; of scalars in equal
# rows and an abstract T, the elements themselves (`Any[pi 1]` holds π, not 3.14...)
function Core.typed_hvcat(rows, T, xs...)
    if (isconcretetype(T) && T <: Number) || any(x -> x isa AbstractArray, xs) ||
            any(!=(rows[1]), rows)
        return Core.typed_matrix(T, Core.hvcat(rows, xs...))
    end
    nr, nc = length(rows), rows[1]
    M = Matrix{T}(undef, nr, nc)
    for i in 1:nr, j in 1:nc
        M[i, j] = xs[(i - 1) * nc + j]
    end
    return M
end
# (a concrete number type converts each element; `Any[1 2; 3 4]` keeps them as they are)
Core.typed_matrix(T, M) = isconcretetype(T) && T <: Number ? T.(M) : collect(T, M)

# sorting a vector of numbers is indexing by its sorting permutation, so it
# differentiates (the cotangent goes back to where each element came from) and compiles
sortperm(x::AbstractVector; rev=false, by=nothing) =
    Core.sortperm(by === nothing ? x : map(by, x), rev)
sort(x::AbstractVector{<:Real}; rev=false, by=nothing, lt=nothing) =
    lt === nothing ? x[sortperm(x; rev=rev, by=by)] : Core.sort_any(x, rev, by, lt)
sort(x::AbstractVector; rev=false, by=nothing, lt=nothing) = Core.sort_any(x, rev, by, lt)
sort(x::Tuple; kws...) = Tuple(sort(collect(x); kws...))
sort(A::AbstractArray; dims, rev=false) = Core.sort_dims(A, dims, rev)
function issorted(v; lt=isless, by=identity, rev=false)
    xs = collect(v)
    for i in 2:length(xs)
        a, b = by(xs[i - 1]), by(xs[i])
        (rev ? lt(a, b) : lt(b, a)) && return false
    end
    true
end
sort!(A::AbstractArray; dims, rev=false) = copyto!(A, sort(A; dims=dims, rev=rev))
function circshift!(dest::AbstractArray, src, shifts)
    dest === src && throw(ArgumentError("dest and src must be separate arrays"))
    copyto!(dest, circshift(src, shifts))
end
function sort!(x::AbstractVector; kws...)
    s = sort(x; kws...)
    for i in eachindex(x)
        x[i] = s[i]
    end
    x
end

# findfirst/findlast: the first (last) index where a predicate holds, or where a Bool
# array is true; nothing when there is none
function findfirst(f, A)
    for i in eachindex(A)
        f(A[i]) && return i
    end
    nothing
end
findfirst(A::AbstractArray{Bool}) = findfirst(identity, A)
function findlast(f, A)
    for i in reverse(eachindex(A))
        f(A[i]) && return i
    end
    nothing
end
findlast(A::AbstractArray{Bool}) = findlast(identity, A)
# over an array of rank >= 2 they give CartesianIndex, as Julia's do; findnext/findprev
# also take one as the start
function findfirst(f, A::AbstractArray)
    for i in 1:length(A)
        f(A[i]) && return Core.find_index(A, i)
    end
    nothing
end
function findlast(f, A::AbstractArray)
    for i in length(A):-1:1
        f(A[i]) && return Core.find_index(A, i)
    end
    nothing
end
function Core.linear_index(A, c::CartesianIndex)
    k, stride = 1, 1
    for d in 1:length(c.I)
        k += (c.I[d] - 1) * stride
        stride *= size(A, d)
    end
    k
end
function findnext(f::Function, A::AbstractArray, start::CartesianIndex)
    for i in Core.linear_index(A, start):length(A)
        f(A[i]) && return Core.find_index(A, i)
    end
    nothing
end
function findprev(f::Function, A::AbstractArray, start::CartesianIndex)
    for i in Core.linear_index(A, start):-1:1
        f(A[i]) && return Core.find_index(A, i)
    end
    nothing
end


# getfield(x, name or position): a struct's (NamedTuple's, Tuple's) field
getfield(x, name::Symbol) = Core.getfield(x, name)
getfield(x::Tuple, i::Integer) = x[i]
getfield(x, i::Integer) = Core.getfield(x, fieldnames(typeof(x))[i])

# collect(T, itr), and so T[x for x in itr]: the elements of itr as an Array{T}, shaped
# as collect(itr) (a generator over a matrix gives a matrix)
collect(T::Type, itr) = Core.collect_as(T, collect(itr))
Core.collect_as(T, A::AbstractArray) = collect(T, A)
Core.collect_as(T, xs) = Core.typed_vect(T, xs...)
# (an array keeps its shape: `Int[i + j for i in 1:2, j in 1:3]` is a 2×3 Matrix{Int})
collect(T::Type, A::AbstractArray) = ndims(A) == 1 ? Core.typed_vect(T, A...) : reshape(Core.typed_vect(T, A...), size(A))

fieldcount(T::Type) = length(fieldnames(T))
fieldtype(T::Type, i::Integer) = fieldtypes(T)[i]
fieldtype(T::Type, s::Symbol) = fieldtypes(T)[findfirst(==(s), fieldnames(T))]

# --- more of Base ---------------------------------------------------------------------------
time_ns() = UInt64(Core.time_ns())
hasfield(T::Type, name::Symbol) = name in fieldnames(T)
allequal(itr) = isempty(itr) || all(isequal(first(itr)), itr)
ndigits(n::Integer; base::Integer = 10, pad::Integer = 1) = max(pad, length(digits(n; base = base)))
function isqrt(x::Integer)
    x < 0 && throw(DomainError(x, "isqrt of a negative number"))
    r = trunc(typeof(x), sqrt(float(x)))
    while r * r > x
        r -= one(r)
    end
    while (r + one(r)) * (r + one(r)) <= x
        r += one(r)
    end
    r
end
partialsort(v::AbstractVector, k; kws...) = sort(v; kws...)[k]
function unique!(v::AbstractVector)
    u = unique(v)
    resize!(v, length(u))
    copyto!(v, u)
end
# `sum!(r, A)`: A reduced over the dimensions where r has size 1, written into r
function Core.reduce_into!(f, r::AbstractArray, A::AbstractArray)
    dims = Tuple(d for d in 1:ndims(A) if size(r, d) == 1 && size(A, d) != 1)
    copyto!(r, isempty(dims) ? A : f(A; dims = dims))
end
sum!(r::AbstractArray, A::AbstractArray) = Core.reduce_into!(sum, r, A)
prod!(r::AbstractArray, A::AbstractArray) = Core.reduce_into!(prod, r, A)
maximum!(r::AbstractArray, A::AbstractArray) = Core.reduce_into!(maximum, r, A)
minimum!(r::AbstractArray, A::AbstractArray) = Core.reduce_into!(minimum, r, A)
function titlecase(s::AbstractString)
    out = IOBuffer()
    start = true
    for c in s
        if isletter(c)
            print(out, start ? uppercase(c) : lowercase(c))
            start = false
        else
            print(out, c)
            start = true
        end
    end
    String(take!(out))
end
function rsplit(s::AbstractString, dlm; limit::Integer = 0, keepempty::Bool = true)
    parts = SubString{String}[]
    stop = lastindex(s)
    while limit <= 0 || length(parts) < limit - 1
        r = findprev(dlm, s, stop)
        r === nothing && break
        piece = SubString(s, last(r) + 1, stop)
        (keepempty || !isempty(piece)) && pushfirst!(parts, piece)
        stop = first(r) - 1
    end
    piece = SubString(s, 1, stop)
    (keepempty || !isempty(piece)) && pushfirst!(parts, piece)
    parts
end
rsplit(s::AbstractString; limit::Integer = 0, keepempty::Bool = false) =
    rsplit(s, ' '; limit = limit, keepempty = keepempty)

module Threads
nthreads() = 1
threadid() = 1
maxthreadid() = 1
end
