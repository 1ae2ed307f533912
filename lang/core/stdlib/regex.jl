# Regular expressions (Julia's PCRE Regex on Python's re: lang/core/regexes.py), the
# string macros r"..." s"..." v"..." b"..." raw"..." big"..." MIME"..." (lang/core/macros.py
# expands them to these calls), replace and VersionNumber. Indices are byte indices.

abstract type AbstractPattern end
abstract type AbstractMatch end

struct Regex <: AbstractPattern
    pattern::String
    flags::String
    function Regex(pattern::AbstractString, flags::AbstractString = "")
        new(String(pattern), Core.regex_check(String(pattern), String(flags)))
    end
end
function show(io::IO, re::Regex)
    print(io, "r\"", escape_raw_string(re.pattern), "\"", re.flags)
end

struct RegexMatch <: AbstractMatch
    match::SubString{String}
    captures::Vector{Union{Nothing, SubString{String}}}
    offset::Int
    offsets::Vector{Int}
    regex::Regex
end
RegexMatch(parts::Tuple, re::Regex) = RegexMatch(parts[1], parts[3], parts[2], parts[4], re)

match(re::Regex, s::AbstractString, i::Integer = 1) =
    (m = Core.regex_search(re.pattern, re.flags, _regex_subject(s), i);
     m === nothing ? nothing : RegexMatch(m, re))
_regex_subject(s::Union{String, SubString{String}}) = s
_regex_subject(s::AbstractString) = String(s)

struct RegexMatchIterator
    regex::Regex
    string::String
    overlap::Bool
    matches::Vector{RegexMatch}
end
function eachmatch(re::Regex, s::AbstractString; overlap::Bool = false)
    matches = RegexMatch[]  # (pushed to: the tiering keeps the loop on the host)
    for m in Core.regex_matches(re.pattern, re.flags, _regex_subject(s), overlap)
        push!(matches, RegexMatch(m, re))
    end
    RegexMatchIterator(re, String(s), overlap, matches)
end
iterate(e::RegexMatchIterator, i::Integer = 1) =
    i > length(e.matches) ? nothing : (e.matches[i], i + 1)
eltype(::Type{RegexMatchIterator}) = RegexMatch
eltype(::RegexMatchIterator) = RegexMatch
Base.IteratorSize(::Type{RegexMatchIterator}) = Base.SizeUnknown()
collect(e::RegexMatchIterator) = copy(e.matches)
show(io::IO, e::RegexMatchIterator) =
    print(io, "Base.RegexMatchIterator(", repr(e.regex), ", ", repr(e.string), ", ", e.overlap, ")")

# a match's captures by position or group name (m.offsets is an Int vector held as objects,
# which the tiering does not count as array work: a top-level `m[1]` is not compiled)
_regex_names(m::RegexMatch) = Core.regex_names(m.regex.pattern, m.regex.flags)
function _capture_index(m::RegexMatch, name::Union{Symbol, AbstractString})
    k = findfirst(isequal(String(name)), _regex_names(m))
    k === nothing && throw(ArgumentError("no capture group named $name found in regex"))
    k
end
getindex(m::RegexMatch, i::Integer) = m.captures[i]
getindex(m::RegexMatch, name::Union{Symbol, AbstractString}) = m.captures[_capture_index(m, name)]
haskey(m::RegexMatch, i::Integer) = 1 <= i <= length(m.captures)
haskey(m::RegexMatch, name::Union{Symbol, AbstractString}) =
    findfirst(isequal(String(name)), _regex_names(m)) !== nothing
keys(m::RegexMatch) = Core.regex_keys(m.regex.pattern, m.regex.flags)
length(m::RegexMatch) = length(m.captures)
iterate(m::RegexMatch, i::Integer = 1) = i > length(m) ? nothing : (m[i], i + 1)
eltype(::RegexMatch) = Union{Nothing, SubString{String}}
pairs(m::RegexMatch) = (k => m[i] for (i, k) in enumerate(keys(m)))
function show(io::IO, m::RegexMatch)
    print(io, "RegexMatch(")
    show(io, m.match)
    for (i, k) in enumerate(keys(m))
        print(io, ", ", k, "=")
        show(io, m.captures[i])
    end
    print(io, ")")
end

# searching with a Regex: byte ranges, as for a String pattern
findnext(re::Regex, s::AbstractString, i::Integer) = Core.regex_find(re.pattern, re.flags, _regex_subject(s), i)
findfirst(re::Regex, s::AbstractString) = findnext(re, s, 1)
function findall(t::Union{AbstractString, Regex}, s::AbstractString; overlap::Bool = false)
    found = UnitRange{Int}[]
    i, e = firstindex(s), lastindex(s)
    while true
        r = findnext(t, s, i)
        r === nothing && break
        push!(found, r)
        j = overlap || isempty(r) ? first(r) : last(r)
        j > e && break
        i = nextind(s, j)
    end
    found
end
count(t::Union{AbstractString, Regex}, s::AbstractString; overlap::Bool = false) =
    length(findall(t, s; overlap = overlap))
occursin(re::Regex, s::AbstractString) = Core.regex_test(re.pattern, re.flags, _regex_subject(s), "in")
startswith(s::AbstractString, re::Regex) = Core.regex_test(re.pattern, re.flags, _regex_subject(s), "start")
endswith(s::AbstractString, re::Regex) = Core.regex_test(re.pattern, re.flags, _regex_subject(s), "end")
contains(s::AbstractString, re::Regex) = occursin(re, s)
function chopprefix(s::AbstractString, re::Regex)
    m = Core.regex_anchored(re.pattern, re.flags, _regex_subject(s), "start")
    m === nothing ? SubString(s) : SubString(s, ncodeunits(m[1]) + 1)
end
function chopsuffix(s::AbstractString, re::Regex)
    m = Core.regex_anchored(re.pattern, re.flags, _regex_subject(s), "end")
    m === nothing || isempty(m[1]) ? SubString(s) : SubString(s, 1, prevind(s, m[2]))
end

# split(s, r): the pieces between the matches (Base's _split)
function split(str::ByteString, re::Regex; limit::Integer = 0, keepempty::Bool = true)
    strs = SubString{String}[]
    str = _regex_subject(str)
    i = 1
    n = lastindex(str)
    r = findfirst(re, str)
    if r !== nothing
        j, k = first(r), nextind(str, last(r))
        while 0 < j <= n && length(strs) != limit - 1
            if i < k
                (keepempty || i < j) && push!(strs, SubString(str, i, prevind(str, j)))
                i = k
            end
            k <= j && (k = nextind(str, j))
            r = findnext(re, str, k)
            r === nothing && break
            j, k = first(r), nextind(str, last(r))
        end
    end
    (keepempty || i <= ncodeunits(str)) && push!(strs, SubString(str, i))
    strs
end

# --- replace on strings (Base's _replace_init / _replace_finish) ---------------------------
_pat_replacer(p) = p
_pat_replacer(c::AbstractChar) = isequal(c)
_pat_replacer(c::Union{Tuple{Vararg{AbstractChar}}, AbstractVector{<:AbstractChar},
                       AbstractSet{<:AbstractChar}}) = in(c)
_replace_range(r::Integer) = r:r
_replace_range(r) = r
# the text that replaces the match r of pattern p: repl's, or repl applied to the match
_replacement(repl, str, r, p) = string(repl)
_replacement(repl::Function, str, r, p) = string(repl(SubString(str, first(r), last(r))))
_replacement(repl::Function, str, r, p::Function) = string(repl(str[first(r)]))
_replacement(repl::SubstitutionString, str, r, p::Regex) =
    Core.regex_substitute(p.pattern, p.flags, str, first(r), String(repl.string))
function _replace_find(p, str, k, e1)
    r = findnext(p, str, k)
    r === nothing || first(r) == 0 ? (e1 + 1:0) : _replace_range(r)
end
function replace(s::AbstractString, pat_repl::Pair...; count::Integer = typemax(Int))
    count < 0 && throw(DomainError(count, "`count` must be non-negative."))
    str = _regex_subject(s)
    (count == 0 || isempty(pat_repl)) && return String(str)
    e1 = ncodeunits(str) + 1
    patterns = map(p -> _pat_replacer(first(p)), pat_repl)
    rs = map(p -> _replace_find(p, str, 1, e1), patterns)
    parts = AbstractString[]  # (pushed to: the tiering keeps the loop on the host)
    n = 1
    i = 1
    while true
        p = 1
        for q in 2:length(rs)
            first(rs[q]) < first(rs[p]) && (p = q)
        end
        r = rs[p]
        j, k = first(r), last(r)
        j > e1 && break
        if i == 1 || i <= k
            push!(parts, SubString(str, i, prevind(str, j)))
            push!(parts, _replacement(last(pat_repl[p]), str, r, patterns[p]))
        end
        if k < j
            i = j
            j == e1 && break
            k = nextind(str, j)
        else
            i = k = nextind(str, k)
        end
        n == count && break
        rs = map((p, r) -> first(r) < k ? _replace_find(p, str, k, e1) : r, patterns, rs)
        n += 1
    end
    push!(parts, SubString(str, i))
    join(parts)
end

# --- replace on collections ----------------------------------------------------------------
function _replace_value(x, pairs)
    for p in pairs
        isequal(x, first(p)) && return (true, last(p))
    end
    (false, x)
end
# each element of A through f (which gives whether it replaced x, and the new value) until
# count replacements were made: the values, in a Vector (pushed to: the tiering keeps the
# loop on the host), their element type narrowed as `collect`'s
function _replace_each(f, A, count)
    count < 0 && throw(DomainError(count, "`count` must be non-negative."))
    out = []
    n = 0
    for x in A
        hit, y = n < count ? f(x) : (false, x)
        hit && (n += 1)
        push!(out, y)
    end
    map(identity, out)
end
_replace_pairs(pairs) = x -> _replace_value(x, pairs)
_replace_fn(f) = x -> (y = f(x); (y !== x, y))
function replace(A::AbstractArray, pairs::Pair...; count::Integer = typemax(Int))
    T = promote_type(eltype(A), map(p -> typeof(last(p)), pairs)...)
    copyto!(similar(A, T), _replace_each(_replace_pairs(pairs), A, count))
end
replace(t::Tuple, pairs::Pair...; count::Integer = typemax(Int)) =
    Tuple(_replace_each(_replace_pairs(pairs), t, count))
replace(f::Union{Function, Type}, A::AbstractArray; count::Integer = typemax(Int)) =
    reshape(_replace_each(_replace_fn(f), A, count), size(A))
replace(f::Union{Function, Type}, t::Tuple; count::Integer = typemax(Int)) =
    Tuple(_replace_each(_replace_fn(f), t, count))
replace(s::AbstractSet, pairs::Pair...; count::Integer = typemax(Int)) =
    Set(_replace_each(_replace_pairs(pairs), s, count))
replace(d::AbstractDict, pairs::Pair...; count::Integer = typemax(Int)) =
    Dict(_replace_each(_replace_pairs(pairs), d, count))
replace(f::Union{Function, Type}, s::AbstractSet; count::Integer = typemax(Int)) =
    Set(_replace_each(_replace_fn(f), s, count))
replace(f::Union{Function, Type}, d::AbstractDict; count::Integer = typemax(Int)) =
    Dict(_replace_each(_replace_fn(f), d, count))
replace!(A::AbstractArray, pairs::Pair...; count::Integer = typemax(Int)) =
    copyto!(A, _replace_each(_replace_pairs(pairs), A, count))
replace!(f::Union{Function, Type}, A::AbstractArray; count::Integer = typemax(Int)) =
    copyto!(A, _replace_each(_replace_fn(f), A, count))

# --- VersionNumber (v"1.6.2") ----------------------------------------------------------------
struct VersionNumber
    major::UInt32
    minor::UInt32
    patch::UInt32
    prerelease::Tuple
    build::Tuple
    VersionNumber(major::Integer, minor::Integer = 0, patch::Integer = 0,
                  prerelease::Tuple = (), build::Tuple = ()) =
        new(UInt32(major), UInt32(minor), UInt32(patch), prerelease, build)
end
_version_part(s) = all(isdigit, s) && !isempty(s) ? parse(UInt64, s) : String(s)
function VersionNumber(s::AbstractString)
    m = match(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-((?:[0-9a-z-]+\.)*[0-9a-z-]+))?(?:\+((?:[0-9a-z-]+\.)*[0-9a-z-]+))?$"i,
              strip(s))
    m === nothing && throw(ArgumentError("invalid version string: $s"))
    major, minor, patch, pre, build = m.captures
    VersionNumber(parse(Int, major), minor === nothing ? 0 : parse(Int, minor),
                  patch === nothing ? 0 : parse(Int, patch),
                  pre === nothing ? () : Tuple(map(_version_part, split(pre, "."))),
                  build === nothing ? () : Tuple(map(_version_part, split(build, "."))))
end
function print(io::IO, v::VersionNumber)
    print(io, v.major, ".", v.minor, ".", v.patch)
    isempty(v.prerelease) || print(io, "-", join(v.prerelease, "."))
    isempty(v.build) || print(io, "+", join(v.build, "."))
end
show(io::IO, v::VersionNumber) = print(io, "v\"", string(v), "\"")
string(v::VersionNumber) = sprint(print, v)
==(a::VersionNumber, b::VersionNumber) = (a.major, a.minor, a.patch) == (b.major, b.minor, b.patch) &&
    isequal(a.prerelease, b.prerelease) && isequal(a.build, b.build)
isequal(a::VersionNumber, b::VersionNumber) = a == b
hash(v::VersionNumber, h::UInt) = hash((v.major, v.minor, v.patch, v.prerelease, v.build), h)
_ident_less(a::Integer, b::AbstractString) = true
_ident_less(a::AbstractString, b::Integer) = false
_ident_less(a, b) = isless(a, b)
function _idents_less(a::Tuple, b::Tuple)
    for (x, y) in zip(a, b)
        isequal(x, y) || return _ident_less(x, y)
    end
    length(a) < length(b)
end
function isless(a::VersionNumber, b::VersionNumber)
    (a.major, a.minor, a.patch) != (b.major, b.minor, b.patch) &&
        return isless((a.major, a.minor, a.patch), (b.major, b.minor, b.patch))
    if a.prerelease != b.prerelease  # a release follows its pre-releases
        isempty(a.prerelease) && return false
        isempty(b.prerelease) && return true
        return _idents_less(a.prerelease, b.prerelease)
    end
    isempty(a.build) != isempty(b.build) ? isempty(a.build) : _idents_less(a.build, b.build)
end
<(a::VersionNumber, b::VersionNumber) = isless(a, b)
<=(a::VersionNumber, b::VersionNumber) = !isless(b, a)
>(a::VersionNumber, b::VersionNumber) = isless(b, a)
>=(a::VersionNumber, b::VersionNumber) = !isless(a, b)
const VERSION = VersionNumber(1, 10, 4)
thismajor(v::VersionNumber) = VersionNumber(v.major, 0, 0)
thisminor(v::VersionNumber) = VersionNumber(v.major, v.minor, 0)
thispatch(v::VersionNumber) = VersionNumber(v.major, v.minor, v.patch)

# big"..." (an integer as a BigInt, any other number as a BigFloat) and b"..." (its bytes)
function Core.big_str(s::AbstractString)
    n = tryparse(BigInt, s)
    n === nothing ? BigFloat(s) : n
end
Core.b_str(s::AbstractString) = Vector{UInt8}(codeunits(unescape_string(s)))
show(io::IO, s::SubstitutionString) = (print(io, "s"); show(io, s.string))

# MIME"text/plain" is the type MIME{Symbol("text/plain")} (lang/core/stdlib/base.jl)
show(io::IO, ::MIME{m}) where {m} = print(io, "MIME type ", m)
print(io::IO, ::MIME{m}) where {m} = print(io, m)
