# Julia's String indices are byte (UTF-8 code unit) positions; the primitives underneath
# (lang/core/strings.py) find character boundaries as Base's String methods do.

struct StringIndexError <: Exception
    string::AbstractString
    index::Int
end

const ByteString = Union{String, SubString{String}, LazyString}

ncodeunits(c::Char) = ncodeunits(string(c))
# the columns a string or character takes in a terminal (wide East Asian characters two)
textwidth(s::ByteString) = Core.textwidth(s)
textwidth(c::Char) = Core.textwidth(c)

# Chars order as their bits, which is code point order for valid ones (`'a' < 'b'`)
isless(a::Char, b::Char) = Core.char_bits(a) < Core.char_bits(b)
min(a::Char, b::Char) = isless(b, a) ? b : a
max(a::Char, b::Char) = isless(b, a) ? a : b

String(v::AbstractVector{<:AbstractChar}) = join(v)

# Char ranges ('a':'z', 'a':2:'k'): StepRange{Char, Int64}
(:)(a::Char, b::Char) = Core.char_range(a, 1, b)
(:)(a::Char, s::Integer, b::Char) = Core.char_range(a, s, b)
length(r::StepRange{Char}) = Core.char_range_parts(r)[3]
step(r::StepRange{Char}) = Core.char_range_parts(r)[2]
size(r::StepRange{Char}) = (length(r),)
Core.endof(r::StepRange{Char}, k, n) = k == n ? length(r) : 1  # (`r[end]`)
isempty(r::StepRange{Char}) = length(r) == 0
getindex(r::StepRange{Char}, i::Integer) =
    1 <= i <= length(r) ? first(r) + (i - 1) * step(r) : throw(BoundsError(r, i))
function getindex(r::StepRange{Char}, k::AbstractRange{<:Integer})
    isempty(k) || (r[first(k)]; r[last(k)])  # (a BoundsError where k leaves r)
    st, s = first(r) + (first(k) - 1) * step(r), step(r) * step(k)
    st:s:(st + (length(k) - 1) * s)
end
getindex(r::StepRange{Char}, k::AbstractVector) = collect(r)[k]
iterate(r::StepRange{Char}, i::Integer=1) = i <= length(r) ? (r[i], i + 1) : nothing
collect(r::StepRange{Char}) = Core.char_range_collect(r)
in(c::AbstractChar, r::StepRange{Char}) = !isempty(r) &&
    (step(r) > 0 ? first(r) <= c <= last(r) : last(r) <= c <= first(r)) &&
    rem(Int(c) - Int(first(r)), step(r)) == 0
reverse(r::StepRange{Char}) = last(r):-step(r):first(r)
==(a::StepRange{Char}, b::StepRange{Char}) = (isempty(a) && isempty(b)) ||
    (first(a) == first(b) && length(a) == length(b) && (length(a) == 1 || step(a) == step(b)))
show(io::IO, r::StepRange{Char}) = print(io, repr(first(r)), ':', step(r), ':', repr(last(r)))
# (Base's other AbstractArray functions see a Char range as the Vector{Char} it holds)
ndims(::StepRange{Char}) = 1
axes(r::StepRange{Char}) = (Base.OneTo(length(r)),)
eachindex(r::StepRange{Char}) = Base.OneTo(length(r))
keys(r::StepRange{Char}) = Base.OneTo(length(r))
pairs(r::StepRange{Char}) = pairs(collect(r))
checkbounds(::Type{Bool}, r::StepRange{Char}, i) = checkbounds(Bool, collect(r), i)
vec(r::StepRange{Char}) = collect(r)
Array(r::StepRange{Char}) = collect(r)
Vector(r::StepRange{Char}) = collect(r)
Vector{Char}(r::StepRange{Char}) = collect(r)
convert(::Type{T}, r::StepRange{Char}) where {T<:Array} = convert(T, collect(r))
similar(r::StepRange{Char}, args...) = similar(collect(r), args...)
reshape(r::StepRange{Char}, dims...) = reshape(collect(r), dims...)
permutedims(r::StepRange{Char}) = permutedims(collect(r))
last(r::StepRange{Char}, n::Integer) = last(collect(r), n)
rand(r::StepRange{Char}, dims::Integer...) = rand(collect(r), dims...)
rand(rng, r::StepRange{Char}, dims::Integer...) = rand(rng, collect(r), dims...)
minimum(r::StepRange{Char}) = minimum(collect(r))
maximum(r::StepRange{Char}) = maximum(collect(r))
extrema(r::StepRange{Char}) = extrema(collect(r))
minimum(f, r::StepRange{Char}) = minimum(f, collect(r))
maximum(f, r::StepRange{Char}) = maximum(f, collect(r))
sum(r::StepRange{Char}) = sum(collect(r))
sum(f, r::StepRange{Char}) = sum(f, collect(r))
argmin(r::StepRange{Char}) = argmin(collect(r))
argmax(r::StepRange{Char}) = argmax(collect(r))
findmin(r::StepRange{Char}) = findmin(collect(r))
findmax(r::StepRange{Char}) = findmax(collect(r))
==(a::StepRange{Char}, b::AbstractArray) = collect(a) == b
==(a::AbstractArray, b::StepRange{Char}) = a == collect(b)
isequal(a::StepRange{Char}, b::StepRange{Char}) = a == b
isequal(a::StepRange{Char}, b::AbstractArray) = isequal(collect(a), b)
isequal(a::AbstractArray, b::StepRange{Char}) = isequal(a, collect(b))
hash(r::StepRange{Char}, h::UInt) = hash(collect(r), h)
hash(r::StepRange{Char}) = hash(collect(r))
codeunit(s::ByteString) = UInt8
codeunit(s::ByteString, i::Integer) = Core.str_codeunit(s, i)
thisind(s::ByteString, i::Integer) = Core.str_thisind(s, i)
isvalid(s::ByteString, i::Integer) = Core.str_isvalid(s, i)
nextind(s::ByteString, i::Integer) = Core.str_nextind(s, i, 1)
nextind(s::ByteString, i::Integer, n::Integer) = Core.str_nextind(s, i, n)
prevind(s::ByteString, i::Integer) = Core.str_prevind(s, i, 1)
prevind(s::ByteString, i::Integer, n::Integer) = Core.str_prevind(s, i, n)
firstindex(s::AbstractString) = 1
typemin(::Type{String}) = ""
typemin(::String) = ""
lastindex(s::ByteString) = Core.str_lastindex(s)
length(s::ByteString, i::Integer, j::Integer) = Core.str_length(s, i, j)
iterate(s::ByteString) = Core.str_iterate(s, 1)
iterate(s::ByteString, i::Integer) = Core.str_iterate(s, i)
# eachindex(s), keys(s): the indices of s's characters, iterated as they are needed
struct EachStringIndex{T<:AbstractString}
    s::T
end
eachindex(s::ByteString) = EachStringIndex(s)
keys(s::ByteString) = EachStringIndex(s)
length(e::EachStringIndex) = length(e.s)
first(e::EachStringIndex) = 1
last(e::EachStringIndex) = lastindex(e.s)
iterate(e::EachStringIndex) = iterate(e, 1)
iterate(e::EachStringIndex, i::Integer) = i > ncodeunits(e.s) ? nothing : (i, nextind(e.s, i))
eltype(::Type{<:EachStringIndex}) = Int
eltype(::EachStringIndex) = Int
collect(e::EachStringIndex) = Core.str_indices(e.s)
pairs(s::ByteString) = (i => s[i] for i in Core.str_indices(s))
checkbounds(::Type{Bool}, s::AbstractString, i::Integer) = 1 <= i <= ncodeunits(s)
checkbounds(::Type{Bool}, s::AbstractString, r::AbstractRange{<:Integer}) =
    isempty(r) || (1 <= minimum(r) && maximum(r) <= ncodeunits(s))
checkbounds(::Type{Bool}, s::AbstractString, I::AbstractArray{<:Integer}) =
    all(i -> checkbounds(Bool, s, i), I)
checkbounds(s::AbstractString, I) = checkbounds(Bool, s, I) ? nothing : throw(BoundsError(s, I))
get(s::ByteString, i::Integer, default) = checkbounds(Bool, s, i) ? s[i] : default

SubString(s::ByteString, i::Integer, j::Integer) = Core.substring(s, i, j)
SubString(s::ByteString, i::Integer) = Core.substring(s, i, lastindex(s))
SubString(s::ByteString) = Core.substring(s, 1, lastindex(s))
SubString(s::ByteString, r::AbstractRange{<:Integer}) = Core.substring(s, first(r), last(r))
SubString{String}(s::ByteString) = SubString(s)
SubString{String}(s::ByteString, i::Integer, j::Integer) = SubString(s, i, j)
String(s::SubString{String}) = s * ""
convert(::Type{String}, s::SubString{String}) = String(s)
convert(::Type{SubString{String}}, s::ByteString) = SubString(s)
parent(s::SubString{String}) = Core.str_parent(s)
parentindices(s::SubString{String}) = (Core.str_offset(s) + 1:Core.str_offset(s) + ncodeunits(s),)
# a string's views are SubStrings of unit ranges only (Julia: AbstractUnitRange); `@views`
# indexes a string by anything else with getindex (Base.maybeview: lang/core/stdlib/base.jl)
view(s::ByteString, r::UnitRange{<:Integer}) = SubString(s, first(r), last(r))
view(s::AbstractString, I...) = throw(MethodError(view, (s, I...)))
summary(io::IO, s::AbstractString) =
    print(io, ncodeunits(s) == 0 ? "empty " : string(ncodeunits(s), "-codeunit "), typeof(s))

# findfirst/findnext/... on strings: indices are byte indices
function findnext(f::Function, s::ByteString, i::Integer)
    z = ncodeunits(s) + 1
    1 <= i <= z || throw(BoundsError(s, i))
    i == z || isvalid(s, i) || throw(StringIndexError(s, i))
    while i < z
        f(s[i]) && return i
        i = nextind(s, i)
    end
    nothing
end
function findprev(f::Function, s::ByteString, i::Integer)
    z = ncodeunits(s) + 1
    0 <= i <= z || throw(BoundsError(s, i))
    i == z && return nothing
    i == 0 || isvalid(s, i) || throw(StringIndexError(s, i))
    while i > 0
        f(s[i]) && return i
        i = prevind(s, i)
    end
    nothing
end
findfirst(f::Function, s::ByteString) = findnext(f, s, 1)
findlast(f::Function, s::ByteString) = findprev(f, s, lastindex(s))
findnext(c::Char, s::ByteString, i::Integer) = Core.str_findchar(s, c, i, false)
findprev(c::Char, s::ByteString, i::Integer) = Core.str_findchar(s, c, i, true)
findfirst(c::Char, s::ByteString) = Core.str_findchar(s, c, 1, false)
findlast(c::Char, s::ByteString) = Core.str_findchar(s, c, lastindex(s), true)
findnext(t::ByteString, s::ByteString, i::Integer) = Core.str_search(s, t, i, false)
findprev(t::ByteString, s::ByteString, i::Integer) = Core.str_search(s, t, i, true)
findfirst(t::ByteString, s::ByteString) = findnext(t, s, 1)
findlast(t::ByteString, s::ByteString) = findprev(t, s, lastindex(s))
function findall(f::Function, s::ByteString)
    out = Int[]
    for i in eachindex(s)
        f(s[i]) && push!(out, i)
    end
    out
end
findall(c::AbstractChar, s::ByteString) = findall(isequal(c), s)

# strings that wrap another (Test's GenericString, Base's SubstitutionString): their code
# units, indices and characters are the wrapped string's
struct GenericString <: AbstractString
    string::AbstractString
end
struct SubstitutionString{T<:AbstractString} <: AbstractString
    string::T
end
const WrappedString = Union{GenericString, SubstitutionString}
String(s::WrappedString) = String(s.string)
string(s::WrappedString) = s
convert(::Type{String}, s::WrappedString) = String(s)
convert(::Type{GenericString}, s::AbstractString) = GenericString(s)
convert(::Type{SubstitutionString}, s::AbstractString) = SubstitutionString(s)
convert(::Type{SubString}, s::ByteString) = SubString(s)
ncodeunits(s::WrappedString) = ncodeunits(s.string)
codeunit(s::WrappedString) = codeunit(s.string)
codeunit(s::WrappedString, i::Integer) = codeunit(s.string, i)
isvalid(s::WrappedString, i::Integer) = isvalid(s.string, i)
iterate(s::WrappedString) = iterate(s.string)
iterate(s::WrappedString, i::Integer) = iterate(s.string, i)
thisind(s::WrappedString, i::Integer) = thisind(s.string, i)
nextind(s::WrappedString, i::Integer) = nextind(s.string, i)
nextind(s::WrappedString, i::Integer, n::Integer) = nextind(s.string, i, n)
prevind(s::WrappedString, i::Integer) = prevind(s.string, i)
prevind(s::WrappedString, i::Integer, n::Integer) = prevind(s.string, i, n)
lastindex(s::WrappedString) = lastindex(s.string)
length(s::WrappedString) = length(s.string)
length(s::WrappedString, i::Integer, j::Integer) = length(s.string, i, j)
sizeof(s::WrappedString) = sizeof(s.string)
isempty(s::WrappedString) = ncodeunits(s) == 0
eachindex(s::WrappedString) = eachindex(s.string)
keys(s::WrappedString) = keys(s.string)
getindex(s::WrappedString, i) = s.string[i]
get(s::WrappedString, i::Integer, default) = get(s.string, i, default)
collect(s::WrappedString) = collect(s.string)
SubString(s::WrappedString, i::Integer, j::Integer) = SubString(String(s), i, j)
SubString(s::WrappedString, i::Integer) = SubString(String(s), i)
SubString(s::WrappedString) = SubString(String(s))
==(a::WrappedString, b::AbstractString) = String(a) == String(b)
==(a::AbstractString, b::WrappedString) = String(a) == String(b)
==(a::WrappedString, b::WrappedString) = String(a) == String(b)
isequal(a::WrappedString, b::AbstractString) = String(a) == String(b)
isequal(a::AbstractString, b::WrappedString) = String(a) == String(b)
hash(s::WrappedString, h::UInt) = hash(String(s), h)
hash(s::WrappedString) = hash(String(s))
print(io::IO, s::WrappedString) = print(io, String(s))
show(io::IO, s::WrappedString) = show(io, String(s))
startswith(a::WrappedString, b::WrappedString) = startswith(String(a), String(b))
startswith(a::WrappedString, b::Union{ByteString, AbstractChar}) = startswith(String(a), b)
startswith(a::Union{ByteString, AbstractChar}, b::WrappedString) = startswith(a, String(b))
endswith(a::WrappedString, b::WrappedString) = endswith(String(a), String(b))
endswith(a::WrappedString, b::Union{ByteString, AbstractChar}) = endswith(String(a), b)
endswith(a::Union{ByteString, AbstractChar}, b::WrappedString) = endswith(a, String(b))
occursin(a::WrappedString, b::WrappedString) = occursin(String(a), String(b))
occursin(a::WrappedString, b::Union{ByteString, AbstractChar}) = occursin(String(a), b)
occursin(a::Union{ByteString, AbstractChar}, b::WrappedString) = occursin(a, String(b))
cmp(a::WrappedString, b::WrappedString) = cmp(String(a), String(b))
cmp(a::WrappedString, b::Union{ByteString, AbstractChar}) = cmp(String(a), b)
cmp(a::Union{ByteString, AbstractChar}, b::WrappedString) = cmp(a, String(b))
isless(a::WrappedString, b::WrappedString) = isless(String(a), String(b))
isless(a::WrappedString, b::Union{ByteString, AbstractChar}) = isless(String(a), b)
isless(a::Union{ByteString, AbstractChar}, b::WrappedString) = isless(a, String(b))
uppercase(s::WrappedString) = uppercase(String(s))
lowercase(s::WrappedString) = lowercase(String(s))
isascii(s::WrappedString) = isascii(String(s))
ascii(s::WrappedString) = ascii(String(s))
Symbol(s::WrappedString) = Symbol(String(s))
textwidth(s::WrappedString) = textwidth(String(s))
repeat(s::WrappedString, n::Integer) = repeat(String(s), n)
^(s::WrappedString, n::Integer) = repeat(String(s), n)
map(f, s::WrappedString) = map(f, String(s))
filter(f, s::WrappedString) = filter(f, String(s))
eltype(::Type{<:AbstractString}) = Char

isvalid(s::ByteString) = Core.str_valid(s)
isvalid(s::WrappedString) = isvalid(String(s))
isvalid(c::Char) = Core.str_valid(c)
isvalid(::Type{String}, s::ByteString) = Core.str_valid(s)
isvalid(::Type{String}, v::AbstractVector{UInt8}) = Core.str_valid(v)
isvalid(::Type{Char}, c::Char) = isvalid(c)
isvalid(::Type{Char}, c::Integer) = (0 <= c <= 0xd7ff) | (0xe000 <= c <= 0x10ffff)

function chop(s::AbstractString; head::Integer = 0, tail::Integer = 1)
    (head < 0 || tail < 0) && throw(ArgumentError("Can only drop non-negative numbers of characters"))
    isempty(s) && return SubString(s)
    SubString(s, nextind(s, firstindex(s), head), prevind(s, lastindex(s), tail))
end
repeat(s::String, n::Integer) = Core.str_repeat(s, n)
repeat(s::SubString{String}, n::Integer) = Core.str_repeat(s, n)
repeat(c::Char, n::Integer) = Core.str_repeat(c, n)
const Csize_t = UInt
struct OutOfMemoryError <: Exception end
startswith(a::ByteString, b::ByteString) = Core.str_startswith(a, b)
endswith(a::ByteString, b::ByteString) = Core.str_endswith(a, b)
# a set of characters as a prefix or suffix (Base.Chars): s's first / last character is one
const CharSet = Union{Tuple{Vararg{AbstractChar}}, AbstractVector{<:AbstractChar},
                      AbstractSet{<:AbstractChar}}
startswith(s::AbstractString, chars::CharSet) = !isempty(s) && first(s) in chars
endswith(s::AbstractString, chars::CharSet) = !isempty(s) && last(s) in chars
# whether what an IOBuffer holds (not yet taken) starts with prefix; nothing is consumed
startswith(io::IO, prefix::Union{AbstractString, AbstractChar, CharSet}) =
    startswith(Core.io_content(io), prefix)
reinterpret(::Type{UInt32}, c::Char) = Core.char_bits(c)
reinterpret(::Type{Char}, u::UInt32) = Core.char_of_bits(u)

# strip, lstrip, rstrip: a SubString without the leading/trailing characters f accepts
_strip_pred(chars::AbstractChar) = isequal(chars)
_strip_pred(chars) = in(chars)
function lstrip(f::Function, s::AbstractString)
    e = lastindex(s)
    for i in eachindex(s)
        f(s[i]) || return SubString(s, i, e)
    end
    SubString(s, e + 1, e)
end
function rstrip(f::Function, s::AbstractString)
    for i in reverse(collect(eachindex(s)))
        f(s[i]) || return SubString(s, 1, i)
    end
    SubString(s, 1, 0)
end
strip(f::Function, s::AbstractString) = lstrip(f, rstrip(f, s))
lstrip(s::AbstractString) = lstrip(isspace, s)
rstrip(s::AbstractString) = rstrip(isspace, s)
strip(s::AbstractString) = strip(isspace, s)
lstrip(s::AbstractString, chars) = lstrip(_strip_pred(chars), s)
rstrip(s::AbstractString, chars) = rstrip(_strip_pred(chars), s)
strip(s::AbstractString, chars) = strip(_strip_pred(chars), s)
chomp(s::AbstractString) = endswith(s, "\r\n") ? SubString(s, 1, ncodeunits(s) - 2) :
    endswith(s, "\n") ? SubString(s, 1, ncodeunits(s) - 1) : SubString(s)
chopprefix(s::AbstractString, prefix::AbstractString) =
    startswith(s, prefix) ? SubString(s, ncodeunits(prefix) + 1) : SubString(s)
chopsuffix(s::AbstractString, suffix::AbstractString) =
    endswith(s, suffix) ?
    SubString(s, 1, prevind(s, ncodeunits(s) - ncodeunits(suffix) + 1)) : SubString(s)
uppercasefirst(s::AbstractString) = isempty(s) ? String(s) : string(uppercase(s[1]), SubString(s, nextind(s, 1)))
lowercasefirst(s::AbstractString) = isempty(s) ? String(s) : string(lowercase(s[1]), SubString(s, nextind(s, 1)))
LazyString(xs...) = Core.lazy_string(xs...)
convert(::Type{String}, s::LazyString) = String(s)
eltype(::AbstractString) = Char
nextind(A::AbstractArray, i::Integer) = i + 1
prevind(A::AbstractArray, i::Integer) = i - 1
randstring(rng, chars, n::Integer) = join(rand(rng, collect(chars), n))

# split(s, dlm; limit, keepempty): SubStrings of s between the matches of dlm (a String, a
# Char, Chars, or a predicate on Chars), whitespace when no dlm is given
split(s::ByteString; limit::Integer = 0, keepempty::Bool = false) =
    Core.str_split(s, nothing, limit, keepempty)
split(s::ByteString, dlm; limit::Integer = 0, keepempty::Bool = true) =
    Core.str_split(s, dlm, limit, keepempty)
function split(str::ByteString, f::Function; limit::Integer = 0, keepempty::Bool = true)
    strs = SubString{String}[]
    i = 1
    n = lastindex(str)
    j = findnext(f, str, 1)
    while j !== nothing && length(strs) != limit - 1
        (keepempty || i < j) && push!(strs, SubString(str, i, prevind(str, j)))
        i = nextind(str, j)
        j = i <= n ? findnext(f, str, i) : nothing
    end
    (keepempty || i <= ncodeunits(str)) && push!(strs, SubString(str, i))
    strs
end

# join with a last delimiter (`join([1, 2, 3], ", ", " and ")`), and into an IO
join(xs, delim, last) = sprint(io -> join(io, xs, delim, last))
function join(io::IO, xs, delim="", last=delim)
    items = collect(xs)
    n = length(items)
    for (i, x) in enumerate(items)
        i > 1 && print(io, i == n ? last : delim)
        print(io, x)
    end
    nothing
end
