# Zyla's Base, continued (loaded right after base.jl): methods of the collection functions
# over the host mutators of lang/core/builtins_mutate.py and the Dict helpers of
# lang/core/builtins_dict.py, searching (findnext/findprev, indexin), and the iterator
# traits (Base.IteratorSize, Base.IteratorEltype).

# --- Dicts --------------------------------------------------------------------------------------
pop!(d::AbstractDict, k) = Core.dict_pop!(d, k)
pop!(d::AbstractDict, k, default) = Core.dict_pop!(d, k, default)
get(f::Function, d::AbstractDict, k) = haskey(d, k) ? d[k] : f()
mergewith(combine, d::AbstractDict, others::AbstractDict...) =
    mergewith!(combine, merge!(Core.typed_dict(d, others...), d), others...)
mergewith(combine) = (ds...) -> mergewith(combine, ds...)
mergewith!(combine) = (ds...) -> mergewith!(combine, ds...)
# the older spelling of mergewith!
merge!(combine::Function, d::AbstractDict, others::AbstractDict...) = mergewith!(combine, d, others...)

# --- NamedTuples --------------------------------------------------------------------------------
# merge: a's names then b's new ones; a value from b where b has the name
function merge(a::NamedTuple, b::NamedTuple)
    names = (keys(a)..., filter(k -> !haskey(a, k), keys(b))...)
    return Core.namedtuple(map(string, names),
                           map(k -> haskey(b, k) ? getfield(b, k) : getfield(a, k), names)...)
end
merge(a::NamedTuple) = a
merge(a::NamedTuple, b::NamedTuple, cs::NamedTuple...) = merge(merge(a, b), cs...)

# --- searching ----------------------------------------------------------------------------------
# findnext(f, A, i) / findprev(f, A, i): the first index ≥ i (last ≤ i) where f holds, or
# nothing; with a Bool array alone, where it is true (an index of any integer type: an Int)
findnext(f::Function, A::Union{AbstractVector, Tuple}, start::Integer) = Core.findnext(f, A, Int(start))
findprev(f::Function, A::Union{AbstractVector, Tuple}, start::Integer) = Core.findprev(f, A, Int(start))
findnext(A::AbstractVector, start::Integer) = findnext(identity, A, start)
findprev(A::AbstractVector, start::Integer) = findprev(identity, A, start)

# indexin(a, b): for each element of a, its first index in b (or nothing)
# (CartesianIndex for a matrix b; a number a gives a 0-dimensional array)
function indexin(a, b::AbstractArray)
    firsts = Dict{eltype(b), Any}()
    for (i, x) in enumerate(b)
        haskey(firsts, x) || (firsts[x] = Core.find_index(b, i))
    end
    a isa AbstractArray ? [get(firsts, x, nothing) for x in a] : fill(get(firsts, a, nothing))
end

# --- iterator traits ----------------------------------------------------------------------------
# Base.IteratorSize(x): HasLength(), HasShape{N}(), IsInfinite() or SizeUnknown(), from the
# type (a program adds methods for its own types, `IteratorSize(::Type{T})`), or for Zyla's
# lazy iterators (lang/core/builtins_iter.py) from the value, which knows what it wraps
abstract type IteratorSize end
struct SizeUnknown <: IteratorSize end
struct HasLength <: IteratorSize end
struct HasShape{N} <: IteratorSize end
struct IsInfinite <: IteratorSize end
# (one method for values and types, so that a program's `IteratorSize(::Type{T})` is the
# more specific one)
IteratorSize(x) = x isa Type ? Core.size_trait(Core.iterator_size(x)) : IteratorSize(typeof(x))
IteratorSize(x::Iterators.LazyIterator) = Core.size_trait(Core.iterator_size(x))
Core.size_trait(n::Integer) = HasShape{n}()
Core.size_trait(k::Symbol) = k === :length ? HasLength() : k === :infinite ? IsInfinite() : SizeUnknown()
# Base.IteratorEltype(x): HasEltype() where eltype(x) is the type of its elements,
# EltypeUnknown() where Julia does not compute it (then eltype(x) is Any)
abstract type IteratorEltype end
struct EltypeUnknown <: IteratorEltype end
struct HasEltype <: IteratorEltype end
IteratorEltype(x) = x isa Type ? (Core.iterator_eltype_known(x) ? HasEltype() : EltypeUnknown()) :
    IteratorEltype(typeof(x))
IteratorEltype(x::Iterators.LazyIterator) = Core.iterator_eltype_known(x) ? HasEltype() : EltypeUnknown()
show(io::IO, ::SizeUnknown) = print(io, "Base.SizeUnknown()")
show(io::IO, ::HasLength) = print(io, "Base.HasLength()")
show(io::IO, ::IsInfinite) = print(io, "Base.IsInfinite()")
show(io::IO, ::EltypeUnknown) = print(io, "Base.EltypeUnknown()")
show(io::IO, ::HasEltype) = print(io, "Base.HasEltype()")
show(io::IO, ::HasShape{N}) where {N} = print(io, "Base.HasShape{", N, "}()")

# --- missing ------------------------------------------------------------------------------------
# `missing`, the one value of type Missing: arithmetic with a number propagates it, as
# Base's (base/missing.jl); ismissing, coalesce and skipmissing
struct Missing end
missing = Missing()
+(::Missing, ::Union{Missing, Number}) = missing; +(::Number, ::Missing) = missing
-(::Missing, ::Union{Missing, Number}) = missing; -(::Number, ::Missing) = missing
*(::Missing, ::Union{Missing, Number}) = missing; *(::Number, ::Missing) = missing
/(::Missing, ::Union{Missing, Number}) = missing; /(::Number, ::Missing) = missing
^(::Missing, ::Union{Missing, Number}) = missing; ^(::Number, ::Missing) = missing
mod(::Missing, ::Union{Missing, Number}) = missing; mod(::Number, ::Missing) = missing
rem(::Missing, ::Union{Missing, Number}) = missing; rem(::Number, ::Missing) = missing
div(::Missing, ::Union{Missing, Number}) = missing; div(::Number, ::Missing) = missing
-(::Missing) = missing; +(::Missing) = missing; abs(::Missing) = missing; abs2(::Missing) = missing
show(io::IO, ::Missing) = print(io, "missing")
ismissing(x) = x === missing
coalesce() = missing
coalesce(x, rest...) = x === missing ? coalesce(rest...) : x
skipmissing(itr) = Iterators.filter(!ismissing, itr)
isless(::Missing, ::Missing) = false
isless(::Missing, x) = false
isless(x, ::Missing) = true
isequal(::Missing, ::Missing) = true
isequal(::Missing, x) = false
isequal(x, ::Missing) = false

# --- iteration helpers --------------------------------------------------------------------------
# Base.isdone(itr[, state]): whether iteration is known to be over; missing when the iterator
# cannot tell without iterating (which is all of Base's collections)
isdone(itr, state...) = missing
isdone(it::Iterators.Drop, state) = isdone(Core.lazy_inner(it), state)
isdone(it::Iterators.Cycle) = isdone(Core.lazy_inner(it))
isdone(it::Iterators.Cycle, state) = false
# the last of an endless `repeated(x)` is x (Base's: it is its own reverse)
last(r::Iterators.Repeated) = first(r)
# a zip is done when one of its iterators is (missing when one cannot tell), as Base's
function isdone(z::Iterators.Zip, state...)
    ds = map(isdone, Core.lazy_inners(z))
    any(d -> d === true, ds) ? true : any(ismissing, ds) ? missing : false
end
# Iterators.rest(itr, state): the rest of itr after state; Iterators.peel(itr): its first
# element and the rest, or nothing when it is empty
struct Rest{I,S}
    itr::I
    st::S
end
show(io::IO, r::Rest) = print(io, "Base.Iterators.Rest{", typeof(r.itr), ", ", typeof(r.st), "}(",
                              repr(r.itr), ", ", repr(r.st), ")")
# (Iterators.rest and Iterators.peel call these, lang/core/builtins_iter.py)
Core.iter_rest(itr) = itr
Core.iter_rest(itr, state) = Rest(itr, state)
Core.iter_rest(itr::Rest, state) = Rest(itr.itr, state)  # (Base's: one Rest, not two)
Core.iter_rest(itr::Iterators.LazyIterator, state) = Core.lazy_rest(itr, state)
iterate(r::Rest) = iterate(r.itr, r.st)
iterate(r::Rest, st) = iterate(r.itr, st)
IteratorSize(r::Rest) = IteratorSize(r.itr) isa IsInfinite ? IsInfinite() : SizeUnknown()
IteratorEltype(r::Rest) = IteratorEltype(r.itr)
eltype(r::Rest) = eltype(r.itr)
function Core.iter_peel(itr)
    y = iterate(itr)
    y === nothing && return nothing
    (y[1], Core.iter_rest(itr, y[2]))
end

# Base.Generator(f, iter): f over the elements of iter, lazily (a generator expression
# `(f(x) for x in xs)` is evaluated eagerly in Zyla, to a Vector)
struct Generator{I,F}
    f::F
    iter::I
end
Generator(f, iters...) = Generator((xs) -> f(xs...), zip(iters...))
function iterate(g::Generator, s...)
    y = iterate(g.iter, s...)
    y === nothing ? nothing : (g.f(y[1]), y[2])
end
length(g::Generator) = length(g.iter)
size(g::Generator) = size(g.iter)
collect(g::Generator) = map(g.f, g.iter)
IteratorSize(g::Generator) = IteratorSize(g.iter)
IteratorEltype(::Generator) = EltypeUnknown()
IteratorEltype(::Type{<:Generator}) = EltypeUnknown()
eltype(::Generator) = Any
# reductions over the iterator structs above go through their elements
sum(x::Union{Generator, Rest}) = sum(collect(x))
sum(f::Function, x::Union{Generator, Rest}) = sum(f, collect(x))
prod(x::Union{Generator, Rest}) = prod(collect(x))
maximum(x::Union{Generator, Rest}) = maximum(collect(x))
minimum(x::Union{Generator, Rest}) = minimum(collect(x))
maximum(f::Function, x::Union{Generator, Rest}) = maximum(f, collect(x))
minimum(f::Function, x::Union{Generator, Rest}) = minimum(f, collect(x))
extrema(x::Union{Generator, Rest}) = extrema(collect(x))
mean(x::Union{Generator, Rest}) = mean(collect(x))
map(f, x::Rest) = map(f, collect(x))
map(f, g::Generator) = map(x -> f(g.f(x)), g.iter)
# Iterators.map(f, iters...) (lang/core/builtins_iter.py): the lazy map, a Generator
Core.iter_map(f, iters...) = Generator(f, iters...)
# (over a lazy iterator, a host lazy iterator, which knows whether it is infinite)
Core.iter_map(f, x::Iterators.LazyIterator, more...) = Core.lazy_map(f, x, more...)
Core.iter_map(f, x, y::Iterators.LazyIterator, more...) = Core.lazy_map(f, x, y, more...)

# --- CartesianIndices ---------------------------------------------------------------------------
# CartesianIndices(dims) / CartesianIndices(A): the CartesianIndex of every element of an
# array of that size, in column-major order (each dimension a range of indices)
struct CartesianIndices
    indices::Tuple
    CartesianIndices(t::Tuple) = new(map(d -> d isa Integer ? (1:d) : d, t))
end
CartesianIndices(A::AbstractArray) = CartesianIndices(size(A))
function show(io::IO, c::CartesianIndices)
    if all(r -> first(r) == 1, c.indices)
        print(io, "CartesianIndices(", map(length, c.indices), ")")
    else
        print(io, "CartesianIndices(", c.indices, ")")
    end
end
size(c::CartesianIndices) = map(length, c.indices)
size(c::CartesianIndices, d::Integer) = length(c.indices[d])
length(c::CartesianIndices) = prod(size(c))
ndims(c::CartesianIndices) = length(c.indices)
isempty(c::CartesianIndices) = length(c) == 0
eltype(::CartesianIndices) = CartesianIndex
getindex(c::CartesianIndices, k::Integer) = 1 <= k <= length(c) ?
    CartesianIndex(map((r, j) -> r[j], c.indices, Core.cartesian_tuple(size(c), k))) :
    throw(BoundsError(c, k))
getindex(c::CartesianIndices, i::Integer, j::Integer, rest::Integer...) =
    CartesianIndex(map((r, k) -> r[k], c.indices, (i, j, rest...)))
first(c::CartesianIndices) = c[1]
last(c::CartesianIndices) = c[length(c)]
# (iteration walks one list of every index, made at the start: indexing c[k] for each k
# would rebuild the index tuple each time)
iterate(c::CartesianIndices) = iterate(c, (Core.cartesian_list(c.indices), 1))
iterate(c::CartesianIndices, k::Integer) = k > length(c) ? nothing : (c[k], k + 1)
iterate(c::CartesianIndices, s::Tuple) = s[2] > length(s[1]) ? nothing : (s[1][s[2]], (s[1], s[2] + 1))
collect(c::CartesianIndices) = reshape(Core.cartesian_list(c.indices), size(c))
Core.iter_array(c::CartesianIndices) = collect(c)  # (a comprehension over c has c's shape)
map(f, c::CartesianIndices) = map(f, collect(c))
in(i::CartesianIndex, c::CartesianIndices) =
    length(i.I) == ndims(c) && all(map(in, i.I, c.indices))
IteratorSize(c::CartesianIndices) = HasShape{ndims(c)}()
==(a::CartesianIndices, b::CartesianIndices) = a.indices == b.indices
# as an AbstractArray in Julia: equal to an array of the same CartesianIndexes, same shape
==(a::CartesianIndices, b::AbstractArray) = collect(a) == b
==(a::AbstractArray, b::CartesianIndices) = b == a

# --- LinearIndices, IndexLinear / IndexCartesian, pairs of arrays --------------------------------
# LinearIndices(dims) / LinearIndices(A): the linear index of every element of an array of
# that size, in its shape (Julia's read-only AbstractArray{Int}: this struct sizes, indexes,
# iterates, collects and compares like one). Axes must start at 1.
struct LinearIndices
    dims::Tuple
    LinearIndices(t::Tuple) = new(map(Core.linear_extent, t))
end
Core.linear_extent(d::Integer) = d
Core.linear_extent(r::AbstractRange) = first(r) == 1 ? length(r) :
    throw(ArgumentError("LinearIndices of axes that do not start at 1 are not supported"))
LinearIndices(A::AbstractArray) = LinearIndices(size(A))
show(io::IO, l::LinearIndices) = print(io, "LinearIndices(", l.dims, ")")
size(l::LinearIndices) = l.dims
size(l::LinearIndices, d::Integer) = d <= length(l.dims) ? l.dims[d] : 1
length(l::LinearIndices) = prod(l.dims)
ndims(l::LinearIndices) = length(l.dims)
eltype(::LinearIndices) = Int
collect(l::LinearIndices) = reshape(collect(1:length(l)), l.dims)
getindex(l::LinearIndices, k::Integer) = 1 <= k <= length(l) ? Int(k) : throw(BoundsError(l, k))
getindex(l::LinearIndices, i::Integer, j::Integer, rest::Integer...) = collect(l)[i, j, rest...]
iterate(l::LinearIndices, k=1) = k > length(l) ? nothing : (k, k + 1)
Core.iter_array(l::LinearIndices) = collect(l)  # (a comprehension over l has l's shape)
IteratorSize(l::LinearIndices) = HasShape{ndims(l)}()
==(a::LinearIndices, b::LinearIndices) = a.dims == b.dims
==(a::LinearIndices, b::AbstractArray) = collect(a) == b
==(a::AbstractArray, b::LinearIndices) = b == a

# the two ways to index an array (Zyla has them for pairs; it has no IndexStyle(A), its views
# being arrays of their own)
abstract type IndexStyle end
struct IndexLinear <: IndexStyle end
struct IndexCartesian <: IndexStyle end
# pairs(A), as Julia's: integer keys for a vector, CartesianIndex keys otherwise, in A's shape
# (Zyla has no CartesianIndex(), the key of a zero-dimensional array's one element)
pairs(::IndexLinear, A::AbstractArray) = [i => A[i] for i in LinearIndices(A)]
function pairs(::IndexCartesian, A::AbstractArray)
    ndims(A) == 0 && throw(ErrorException(
        "pairs of a zero-dimensional array is not supported (its key would be CartesianIndex())"))
    [k => A[k] for k in CartesianIndices(A)]
end
pairs(A::AbstractArray) = ndims(A) == 1 ? pairs(IndexLinear(), A) : pairs(IndexCartesian(), A)

# --- lexicographic order of vectors, sortslices, mapslices ---------------------------------------
# (AbstractArray and a check, not AbstractVector, whose two uses would share one eltype)
function cmp(a::AbstractArray, b::AbstractArray)
    ndims(a) == 1 && ndims(b) == 1 ||
        throw(ArgumentError("cmp and isless order vectors (lexicographically), not arrays of $(ndims(a)) and $(ndims(b)) dimensions"))
    for (x, y) in zip(a, b)
        isless(x, y) && return -1
        isless(y, x) && return 1
    end
    cmp(length(a), length(b))
end
isless(a::AbstractArray, b::AbstractArray) = cmp(a, b) < 0
# sortslices(A; dims), as Julia's: the slices A[.., i, .., :, ..] (an index at each of `dims`,
# colons elsewhere: the rows of a matrix for dims=1) in sorted order (stable). With several
# dims the slices are laid out with dims[1] varying fastest, so (1, 2) and (2, 1) differ.
function sortslices(A::AbstractArray; dims, rev=false, lt=isless, by=identity)
    ds = Tuple(dims)
    all(d -> d isa Integer && d >= 1, ds) ||
        throw(ArgumentError("sortslices: dims must be positive integers, got $dims"))
    N = ndims(A)
    at(I) = ntuple(d -> d in ds ? I[findfirst(==(d), ds)] : (:), N)
    places = [at(I) for I in CartesianIndices(ntuple(k -> size(A, ds[k]), length(ds)))]
    slices = [A[q...] for q in places]
    p = sort(collect(1:length(slices)); lt=(i, j) -> lt(by(slices[i]), by(slices[j])), rev=rev)
    B = copy(A)
    for (k, q) in enumerate(places)
        B[q...] = slices[p[k]]
    end
    B
end
sortslices(A::AbstractVector; kws...) = sort(A; kws...)
# mapslices(f, A; dims): f applied to each slice A[.., :, ..] (a copy, colons at `dims`), as
# Julia's: the first result fixes the output's element type and its sizes along `dims` (a
# non-array result counts as one element), the other dimensions keep A's sizes; empty dims
# maps f over the elements. A later result of another length is a DimensionMismatch.
function mapslices(f, A::AbstractArray; dims)
    isempty(dims) && return map(f, A)
    for d in dims
        d isa Integer && d >= 1 ||
            throw(ArgumentError("mapslices: dimension $d is not a positive integer"))
    end
    N = ndims(A)
    inslice = ntuple(d -> d in dims, N)
    outer = CartesianIndices(ntuple(d -> inslice[d] ? 1 : size(A, d), N))
    at(I) = ntuple(d -> inslice[d] ? (:) : I[d], N)
    r1 = Core.slice_result(f(A[at(first(outer))...]), sum(inslice))
    Rsize = ntuple(d -> inslice[d] ? size(r1, count(j -> inslice[j], 1:d)) : size(A, d), N)
    R = Array{eltype(r1)}(undef, Rsize)
    ssize = Tuple(Rsize[d] for d in 1:N if inslice[d])
    for I in outer
        r = I == first(outer) ? r1 : Core.slice_result(f(A[at(I)...]), sum(inslice))
        length(r) == prod(ssize) || throw(DimensionMismatch(
            "mapslices: a slice result of size $(size(r)) does not fit the output's slices of size $ssize"))
        R[at(I)...] = reshape(r, ssize)
    end
    R
end
# a slice's result as an array of at least n dimensions (a non-array as one element); extra
# trailing dimensions must be singletons, as in Julia
function Core.slice_result(r, n)
    r isa AbstractArray || return fill(r, ntuple(i -> 1, n))
    ndims(r) > n && any(d -> size(r, d) > 1, n+1:ndims(r)) &&
        throw(DimensionMismatch("mapslices cannot assign slice f(x) of size $(size(r)) into output of size $(size(r)[1:n])"))
    ndims(r) >= n ? r : reshape(r, ntuple(d -> size(r, d), n))
end

# --- findall / findfirst beyond vectors: CartesianIndex for arrays, keys for Dicts -------------
# (linear indices first, then their CartesianIndexes taken from one list of all of them)
findall(f::Function, A::AbstractArray) = ndims(A) <= 1 ? Int[i for i in 1:length(A) if f(A[i])] :
    Core.cartesian_list(CartesianIndices(A).indices)[Int[i for i in 1:length(A) if f(A[i])]]
findall(A::AbstractArray{Bool}) = findall(identity, A)
findall(f::Function, t::Tuple) = Int[i for i in 1:length(t) if f(t[i])]
# findall(in(b), A) tests membership by isequal (NaN is found), as Julia's _findin (a Set
# of b); a number is a collection of one element. (A host-curried `==(2)` reaches the Fix2
# methods too, so findall_pred takes any predicate.)
Core.findall_pred(p) = p isa Fix2 && p.f === in ? Core.isequal_in(p.x) : (x -> p(x))
Core.isequal_in(b::AbstractSet) = x -> x in b
Core.isequal_in(b::Number) = x -> isequal(x, b)
Core.isequal_in(b) = x -> any(y -> isequal(x, y), b)
findall(p::Fix2, A::AbstractVector) = findall(Core.findall_pred(p), A)
findall(p::Fix2, A::AbstractArray) = findall(Core.findall_pred(p), A)
findall(f::Function, x::Number) = f(x) ? [1] : Int[]
findall(b::Bool) = b ? [1] : Int[]
findall(d::AbstractDict) = [k for (k, v) in d if v]
findall(f::Function, d::AbstractDict) = [k for (k, v) in d if f(v)]
function findfirst(f::Function, d::AbstractDict)
    for (k, v) in d
        f(v) && return k
    end
    nothing
end
findfirst(d::AbstractDict) = findfirst(identity, d)

# Base.rest(x[, i]): a tuple's or array's elements from the i-th on (a tuple, or a vector);
# of another iterator, its rest after an iteration state (Iterators.rest)
rest(t::Tuple) = t
rest(t::Tuple, i::Integer) = ntuple(k -> t[i + k - 1], max(length(t) - i + 1, 0))
rest(t::NamedTuple) = t
rest(t::NamedTuple, i::Integer) = NamedTuple{keys(t)[i:end]}(values(t)[i:end])
rest(a::AbstractArray) = vec(copy(a))
rest(a::AbstractArray, i::Integer) = vec(a)[i:end]
rest(itr) = itr
rest(itr, state) = Core.iter_rest(itr, state)
Core.bind_builtin("Iterators.Rest", Rest)

# Tuple of a tuple or an array, written in Zyla so that gradients flow through it (the
# constructor's host conversion has no derivative: `gradient(v -> sum(Tuple(v)), v)` was
# `nothing`); other iterables keep the built-in conversion
Tuple(t::Tuple) = t
Tuple(v::AbstractArray) = (v...,)

# --- tuples -------------------------------------------------------------------------------------
Base.front(t::Tuple) = isempty(t) ? throw(ArgumentError("Cannot call front on an empty tuple.")) :
    t[1:end-1]
Base.tail(t::Tuple) = isempty(t) ? throw(ArgumentError("Cannot call tail on an empty tuple.")) :
    t[2:end]
Iterators.tail_if_any(t::Tuple) = isempty(t) ? t : t[2:end]
first(::Tuple{}) = throw(ArgumentError("tuple must be non-empty"))
function Base.setindex(t::Tuple, v, i::Integer)
    1 <= i <= length(t) || throw(BoundsError(t, i))
    ntuple(k -> k == i ? v : t[k], length(t))
end
function Base.fill_to_length(t::Tuple, val, ::Val{N}) where N
    length(t) <= N || throw(ArgumentError("input tuple of length $(length(t)), requested $N"))
    ntuple(k -> k <= length(t) ? t[k] : val, N)
end
function circshift(t::Tuple, shift::Integer)
    n = length(t)
    n == 0 && return t
    ntuple(k -> t[mod1(k - shift, n)], n)
end
function accumulate(op, t::Tuple; kw...)
    isempty(t) && return ()
    acc = haskey(kw, :init) ? op(kw[:init], t[1]) : t[1]
    out = (acc,)
    for k in 2:length(t)
        acc = op(acc, t[k])
        out = (out..., acc)
    end
    out
end
Nothing() = nothing
isless(a::Tuple, b::Tuple) = Core.tuple_isless(a, b, 1)
Core.tuple_isless(a, b, k) = k > length(a) ? k <= length(b) : k > length(b) ? false :
    isless(a[k], b[k]) ? true : isless(b[k], a[k]) ? false : Core.tuple_isless(a, b, k + 1)
propertynames(t::Tuple) = ntuple(identity, length(t))
getproperty(t::Tuple, i::Int) = t[i]
# Base.OneTo(n): 1:n (a UnitRange here; Julia's is its own type, equal to it)
Base.OneTo(n::Integer) = 1:max(Int(n), 0)
eachindex(t::Tuple, ts::Tuple...) = Base.OneTo(max(length(t), map(length, ts)...))
minmax(x::Real) = (x, x)

# --- Pair as a collection of its two elements ----------------------------------------------------
function getindex(p::Pair, i::Real)
    k = Int(i)
    k == 1 ? p.first : k == 2 ? p.second : throw(BoundsError(p, k))
end
iterate(p::Pair) = (p.first, 2)
iterate(p::Pair, i::Int) = i == 2 ? (p.second, 3) : nothing
length(p::Pair) = 2
firstindex(p::Pair) = 1
lastindex(p::Pair) = 2
first(p::Pair) = p.first
last(p::Pair) = p.second
eltype(p::Pair) = Union{typeof(p.first), typeof(p.second)}
Base.indexed_iterate(p::Pair, i::Int, state=nothing) = (p[i], i + 1)
isless(p::Pair, q::Pair) = isequal(p.first, q.first) ? isless(p.second, q.second) : isless(p.first, q.first)
eachindex(d::AbstractDict) = keys(d)
function pop!(d::AbstractDict)
    isempty(d) && throw(ArgumentError("dict must be non-empty"))
    k = first(keys(d))
    v = d[k]
    delete!(d, k)
    k => v
end

# --- Iterators.Stateful(itr): an iterator that remembers how far it got ------------------------
struct EOFError <: Exception end
mutable struct Stateful
    itr
    nextvalstate
    taken::Int
end
Stateful(itr) = Stateful(itr, iterate(itr), 0)
Stateful(s::Stateful) = s
Core.bind_builtin("Iterators.Stateful", Stateful)
function iterate(s::Stateful, _ = nothing)
    vs = s.nextvalstate
    vs === nothing && return nothing
    s.nextvalstate = iterate(s.itr, vs[2])
    s.taken += 1
    (vs[1], nothing)
end
isempty(s::Stateful) = s.nextvalstate === nothing
isdone(s::Stateful, state...) = s.nextvalstate === nothing
function popfirst!(s::Stateful)
    y = iterate(s)
    y === nothing ? throw(EOFError()) : y[1]
end
peek(s::Stateful, sentinel = nothing) = s.nextvalstate === nothing ? sentinel : s.nextvalstate[1]
eltype(s::Stateful) = eltype(s.itr)
IteratorEltype(s::Stateful) = IteratorEltype(s.itr)
IteratorSize(s::Stateful) = IteratorSize(s.itr) isa Union{IsInfinite, SizeUnknown} ?
    IteratorSize(s.itr) : HasLength()
length(s::Stateful) = length(s.itr) - s.taken
collect(s::Stateful) = [x for x in s]
show(io::IO, s::Stateful) = print(io, "Base.Iterators.Stateful(", repr(s.itr), ")")

# --- Iterators.product(its...): the tuples of one element of each, the first varying fastest ----
struct ProductIterator
    iterators::Tuple
end
Core.bind_builtin("Iterators.ProductIterator", ProductIterator)
# (a product of more elements than an Int counts is an OverflowError, as Base's constructor)
function Iterators.product(its...)
    n = 1.0  # (in Float64: an overflowing count is still far above typemax(Int))
    for it in its
        it isa Union{AbstractArray, Tuple} || IteratorSize(it) isa Union{HasLength, HasShape} || continue
        n *= length(it)
    end
    n >= 9.223372036854775807e18 &&
        throw(OverflowError("the product of the iterators' lengths overflows Int"))
    ProductIterator(its)
end
function iterate(p::ProductIterator)
    its = p.iterators
    isempty(its) && return ((), true)
    firsts = map(iterate, its)
    any(y -> y === nothing, firsts) && return nothing
    vals = map(y -> y[1], firsts)
    (vals, (vals, map(y -> y[2], firsts)))
end
function iterate(p::ProductIterator, st)
    isempty(p.iterators) && return nothing
    vals = Any[st[1]...]
    states = Any[st[2]...]
    for k in 1:length(p.iterators)
        y = iterate(p.iterators[k], states[k])
        if y !== nothing
            vals[k], states[k] = y
            t = Tuple(vals)
            return (t, (t, Tuple(states)))
        end
        vals[k], states[k] = iterate(p.iterators[k])   # start it again, carry to the next
    end
    nothing
end
function Core.product_dims(it)
    s = IteratorSize(it)
    s isa HasShape ? size(it) : s isa HasLength ? (length(it),) :
        throw(ArgumentError("the size of a product of an iterator of unknown or infinite size is not known"))
end
Core.tuple_cat(ts) = isempty(ts) ? () : (ts[1]..., Core.tuple_cat(Base.tail(ts))...)
size(p::ProductIterator) = Core.tuple_cat(map(Core.product_dims, p.iterators))
length(p::ProductIterator) = prod(size(p))
ndims(p::ProductIterator) = length(size(p))
eltype(p::ProductIterator) = Core.apply_type(Tuple, map(eltype, p.iterators)...)
function IteratorSize(p::ProductIterator)
    kinds = map(IteratorSize, p.iterators)
    any(k -> k isa IsInfinite, kinds) && return IsInfinite()
    any(k -> k isa SizeUnknown, kinds) && return SizeUnknown()
    HasShape{ndims(p)}()
end
IteratorEltype(p::ProductIterator) = all(it -> IteratorEltype(it) isa HasEltype, p.iterators) ?
    HasEltype() : EltypeUnknown()
function collect(p::ProductIterator)
    IteratorSize(p) isa HasShape || return [x for x in p]
    v = Core.product_elements(p.iterators...)
    isempty(p.iterators) ? fill((), ()) : reshape(v, size(p)...)
end
show(io::IO, p::ProductIterator) = print(io, "Base.Iterators.ProductIterator(", repr(p.iterators), ")")
# two unit ranges meet in a unit range (empty where they do not overlap), as in Base
intersect(r::UnitRange{<:Integer}, s::UnitRange{<:Integer}) =
    max(first(r), first(s)):min(last(r), last(s))
intersect(r::UnitRange{<:Integer}, s::UnitRange{<:Integer}, t::UnitRange{<:Integer}...) =
    intersect(intersect(r, s), t...)
# the product of the intersections, as Base's (a product of sets)
intersect(a::ProductIterator, b::ProductIterator) =
    ProductIterator(map(intersect, a.iterators, b.iterators))

# --- smaller pieces of Base ---------------------------------------------------------------------
!(::Missing) = missing
# Base.Splat(f): a function of one collection that calls f with its elements
struct Splat
    f
end
(s::Splat)(args) = s.f(args...)
splat(f) = Splat(f)
flatmap(f, itrs...) = Iterators.flatten(Iterators.map(f, itrs...))
Core.bind_builtin("Iterators.flatmap", flatmap)
get(f::Function, t::Tuple, i::Integer) = 1 <= i <= length(t) ? t[i] : f()
# Base.split_rest(t, n): (t without its last n elements, those n), for `a..., b = t`
split_rest(t::Tuple, n::Integer) = (t[1:end-n], t[end-n+1:end])
split_rest(a::AbstractArray, n::Integer) = (v = vec(a); (v[1:end-n], v[end-n+1:end]))
function split_rest(t::NamedTuple, n::Integer)
    ks = keys(t)
    k = length(ks) - n
    (NamedTuple{ks[1:k]}(values(t)[1:k]), NamedTuple{ks[k+1:end]}(values(t)[k+1:end]))
end
# `a, b... = x` takes b from Core.slurp_rest(x, 2); `a..., b = x` splits that rest with
# Core.slurp_split (lang/core/lower.py), Base.rest and Base.split_rest by names a program
# cannot shadow
Core.slurp_rest(x, i) = rest(x, i)
Core.slurp_rest(s::AbstractString, i) = s[nextind(s, 0, i):end]
Core.slurp_split(x, n) = split_rest(x, n)
# Base.inferencebarrier(x): x (it only hides x's type from Julia's compiler)
inferencebarrier(x) = x
# invperm(p): the permutation q with q[p[i]] == i
function invperm(p::AbstractVector)
    n = length(p)
    q = zeros(Int, n)
    for (i, j) in enumerate(p)
        (1 <= j <= n && q[j] == 0) || throw(ArgumentError("argument is not a permutation"))
        q[j] = i
    end
    q
end
invperm(p::Tuple) = Tuple(invperm(collect(p)))

# index vectors as the ranges of base.jl's get(A, I, default); a vector of index vectors,
# one per dimension, is the tuple of them (Base's RangeVecIntList)
get(A::AbstractArray, I::AbstractVector{<:AbstractVector}, default) = get(A, Tuple(I), default)
function get(A::AbstractArray, I::AbstractVector{<:Integer}, default)
    T = promote_type(eltype(A), typeof(default))
    T[1 <= i <= length(A) ? A[i] : default for i in I]
end
function get(A::AbstractArray, I::Tuple{AbstractVector{<:Integer}, AbstractVector{<:Integer}},
             default)
    T = promote_type(eltype(A), typeof(default))
    m, n = size(A, 1), size(A, 2)
    T[(1 <= i <= m && 1 <= j <= n) ? A[i, j] : default for i in I[1], j in I[2]]
end
allunique(itr) = length(Set(itr)) == length(collect(itr))
allunique(f, itr) = allunique(map(f, collect(itr)))

# --- strings ------------------------------------------------------------------------------------
isascii(c::AbstractChar) = Int(c) < 128
isascii(s::AbstractString) = all(isascii, s)
function ascii(s::AbstractString)
    isascii(s) || throw(ArgumentError("invalid ASCII at index $(findfirst(!isascii, s)) in $(repr(s))"))
    String(s)
end
last(s::AbstractString, n::Integer) = n < 0 ? throw(ArgumentError("Number of elements must be non-negative")) :
    join(collect(s)[max(length(s) - n + 1, 1):end])
function takestring!(v::Vector{UInt8})
    s = String(copy(v))
    empty!(v)
    s
end
const _gensym_count = Ref(0)
function gensym(s = "")
    occursin('\0', string(s)) && throw(ArgumentError("Symbol name may not contain \\0"))
    _gensym_count[] += 1
    Symbol("##", s, isempty(string(s)) ? "" : "#", _gensym_count[])
end
const _randstring_chars = collect("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
randstring(n::Integer = 8) = join(rand(_randstring_chars, n))
randstring(chars, n::Integer = 8) =  # (randstring(rng, n): an RNG has no type to dispatch on)
    Core.is_rng(chars) ? join(rand(chars, _randstring_chars, n)) : join(rand(collect(chars), n))
