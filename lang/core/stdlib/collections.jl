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
# (CartesianIndex for a matrix b; a number a gives a 0-dimensional array, any other
# iterable a, a Generator's, a String's, a Vector)
function indexin(a, b::AbstractArray)
    firsts = Dict{eltype(b), Any}()
    for (i, x) in enumerate(b)
        haskey(firsts, x) || (firsts[x] = Core.find_index(b, i))
    end
    a isa Union{Number, AbstractChar} ? fill(get(firsts, a, nothing)) : [get(firsts, x, nothing) for x in a]
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

# Base.Generator(f, iter): f over the elements of iter, lazily (what a generator expression
# `(f(x) for x in xs)` makes on the host: Core.generator below)
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
axes(g::Generator) = axes(g.iter)
ndims(g::Generator) = ndims(g.iter)
size(g::Generator, d::Integer) = size(g.iter, d)
keys(g::Generator) = keys(g.iter)
eachindex(g::Generator) = keys(g.iter)
isdone(g::Generator, state...) = isdone(g.iter, state...)
# (Julia's isempty of an iterator: isdone when it can tell, else whether iterate gives nothing)
isempty(g::Generator) = (d = isdone(g); d === missing ? iterate(g) === nothing : d)
# a Generator is not indexable, nor an array or a string to convert (Zyla would index a
# struct as a scalar, and convert it to itself)
getindex(g::Generator, i...) = throw(MethodError(getindex, (g, i...)))
String(g::Generator) = throw(MethodError(String, (g,)))
Array(g::Generator) = throw(MethodError(Array, (g,)))
Vector(g::Generator) = throw(MethodError(Vector, (g,)))
# (what the comprehension `[f(x) for x in xs]` makes: a Vector of a String's or a Tuple's
# elements, an array of an array's shape; ad.jl's broadcast over an array, which is faster
# on the host than map and differentiates as the comprehension does)
collect(g::Generator) = Core.comprehension(g.f, nothing, g.iter)
IteratorSize(g::Generator) = IteratorSize(g.iter)
IteratorEltype(::Generator) = EltypeUnknown()
IteratorEltype(::Type{<:Generator}) = EltypeUnknown()
eltype(::Generator) = Any
# reductions over the iterator structs above go through their elements; a Generator has no
# eltype, so reducing an empty one without `init` is an ArgumentError, as in Julia
function Core.reduce_elements(r, x, init)
    xs = collect(x)
    init isa NoInit || return r(xs; init=init)
    x isa Generator && isempty(xs) && Core.empty_reduction()
    r(xs)
end
Core.reduced_elements(x) = Core.reduce_elements(identity, x, NoInit())
Core.empty_reduction() = throw(ArgumentError(
    "reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
sum(x::Union{Generator, Rest}; init=NoInit()) = Core.reduce_elements(sum, x, init)
prod(x::Union{Generator, Rest}; init=NoInit()) = Core.reduce_elements(prod, x, init)
maximum(x::Union{Generator, Rest}; init=NoInit()) = Core.reduce_elements(maximum, x, init)
minimum(x::Union{Generator, Rest}; init=NoInit()) = Core.reduce_elements(minimum, x, init)
sum(f::Function, x::Union{Generator, Rest}) = sum(f, Core.reduced_elements(x))
prod(f::Function, x::Union{Generator, Rest}) = prod(f, Core.reduced_elements(x))
maximum(f::Function, x::Union{Generator, Rest}) = maximum(f, Core.reduced_elements(x))
minimum(f::Function, x::Union{Generator, Rest}) = minimum(f, Core.reduced_elements(x))
extrema(x::Union{Generator, Rest}) = extrema(Core.reduced_elements(x))
mean(x::Union{Generator, Rest}) = mean(Core.reduced_elements(x))
# the index-returning reductions index the collected elements (a Generator's keys are its
# iterator's, which for the arrays and ranges it maps are the collected array's)
findmax(g::Generator) = findmax(collect(g))
findmin(g::Generator) = findmin(collect(g))
argmax(g::Generator) = argmax(collect(g))
argmin(g::Generator) = argmin(collect(g))
findmax(f::Function, g::Generator) = findmax(f, collect(g))
findmin(f::Function, g::Generator) = findmin(f, collect(g))
argmax(f::Function, g::Generator) = argmax(f, collect(g))
argmin(f::Function, g::Generator) = argmin(f, collect(g))
accumulate(op, g::Generator; kw...) = accumulate(op, collect(g); kw...)
cumsum(g::Generator) = cumsum(collect(g))
cumprod(g::Generator) = cumprod(collect(g))
# (its length may be unknown: a filtered Generator's)
function only(g::Generator)
    y = iterate(g)
    y === nothing && throw(ArgumentError("Collection is empty, must contain exactly 1 element"))
    iterate(g, y[2]) === nothing ||
        throw(ArgumentError("Collection has multiple elements, must contain exactly 1 element"))
    y[1]
end
map(f, x::Rest) = map(f, collect(x))
map(f, g::Generator) = Core.comprehension(x -> f(g.f(x)), nothing, g.iter)
# a generator expression `(f(x) for x in xs if c(x))` (lang/core/lower.py): a lazy Generator
# (an array's elements are filtered when it is made, which differentiates: ad.jl's filter)
Core.generator(f, cond::Nothing, it) = Generator(f, it)
Core.generator(f, cond::Function, it) = Generator(f, Iterators.filter(cond, it))
Core.generator(f, cond::Function, it::AbstractArray) = Generator(f, filter(cond, it))
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
keytype(::Type{<:Tuple}) = Int
valtype(t::Tuple) = eltype(t)
valtype(T::Type{<:Tuple}) = eltype(T)

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
# a struct's and a NamedTuple's properties are its fields (as Base's fallback)
propertynames(x) = fieldnames(typeof(x))
getproperty(t::Tuple, i::Int) = t[i]
# Base.OneTo(n): 1:n (a UnitRange here; Julia's is its own type, equal to it)
Base.OneTo(n::Integer) = 1:max(Int(n), 0)
eachindex(t::Tuple, ts::Tuple...) = Base.OneTo(max(length(t), map(length, ts)...))
minmax(x::Real) = (x, x)

# --- Broadcast.broadcasted: a broadcast not yet computed ------------------------------------------
# `Broadcast.broadcasted(f, args...)` is `f.(args...)` unevaluated (Julia's Broadcasted; Zyla's
# type has its dimensions N for parameter): it sizes, indexes (an element calls f once),
# iterates and collects as one, and `copy` (`Broadcast.materialize`) computes `f.(args...)`.
# Its arguments are arrays, tuples and scalars (other collections: an ArgumentError).
struct Broadcasted{N,F,A<:Tuple}
    f::F
    args::A
    dims::Tuple
end
function Broadcast.broadcasted(f, args...)
    dims = Core.bc_shape(map(Core.bc_arg, args))
    Broadcasted{length(dims),typeof(f),typeof(args)}(f, args, dims)
end
Broadcast.instantiate(bc::Broadcasted) = bc
Broadcast.materialize(bc::Broadcasted) = copy(bc)
Core.bc_arg(x::Union{AbstractArray, Tuple, Number, AbstractString, AbstractChar, Symbol, Nothing,
                     Missing, Function, Type}) = x
Core.bc_arg(x) = throw(ArgumentError(
    "Broadcast.broadcasted over a $(typeof(x)) is not supported; give arrays, tuples or scalars"))
Core.bc_dims(a::AbstractArray) = size(a)
Core.bc_dims(a::Tuple) = (length(a),)
Core.bc_dims(a) = ()
# the size of broadcasting arguments together: a dimension of length 1 stretches to the others'
function Core.bc_shape(args::Tuple)
    n = 0
    for a in args
        n = max(n, length(Core.bc_dims(a)))
    end
    ntuple(d -> Core.bc_extent(args, d), n)
end
function Core.bc_extent(args::Tuple, d::Int)
    ext = 1
    for a in args
        s = Core.bc_dims(a)
        k = d <= length(s) ? s[d] : 1
        k == 1 && continue
        ext == 1 || ext == k || throw(DimensionMismatch(
            "arrays could not be broadcast to a common size; got a dimension with lengths $ext and $k"))
        ext = k
    end
    ext
end
# the element of a broadcast argument at the (stretched) index I
Core.bc_elem(a::AbstractArray, I) = a[ntuple(d -> size(a, d) == 1 ? 1 : I[d], ndims(a))...]
Core.bc_elem(a::Tuple, I) = a[length(a) == 1 ? 1 : I[1]]
Core.bc_elem(a, I) = a
function getindex(bc::Broadcasted, I::Integer...)
    if length(I) == 1 && length(bc.dims) != 1
        1 <= I[1] <= length(bc) || throw(BoundsError(bc, I))
        I = Tuple(CartesianIndices(bc.dims)[I[1]])
    end
    all(d -> 1 <= I[d] <= (d <= length(bc.dims) ? bc.dims[d] : 1), 1:length(I)) &&
        length(I) >= length(bc.dims) || throw(BoundsError(bc, I))
    bc.f(map(a -> Core.bc_elem(a, I), bc.args)...)
end
getindex(bc::Broadcasted, I::CartesianIndex) = bc[Tuple(I)...]
size(bc::Broadcasted) = bc.dims
axes(bc::Broadcasted) = map(Base.OneTo, bc.dims)
length(bc::Broadcasted) = prod(bc.dims)
ndims(::Broadcasted{N}) where {N} = N
ndims(::Type{Broadcasted{N,F,A}}) where {N,F,A} = N
eachindex(bc::Broadcasted) = length(bc.dims) == 1 ? axes(bc)[1] : CartesianIndices(axes(bc))
iterate(bc::Broadcasted, k=1) = k > length(bc) ? nothing : (bc[k], k + 1)
IteratorSize(::Broadcasted{N}) where {N} = HasShape{N}()
copy(bc::Broadcasted) = broadcast(bc.f, bc.args...)
collect(bc::Broadcasted) = copy(bc)
Core.iter_array(bc::Broadcasted) = copy(bc)  # (a comprehension over bc has bc's shape)

# --- Base.PersistentDict: an immutable dictionary -------------------------------------------------
# `PersistentDict(d, k => v)` / `PersistentDict(d, k, v)` is d with k set and `Base.delete(d, k)`
# d without k, each a new dictionary sharing most of d's storage (a hash trie,
# lang/core/hashtrie.py); keys are compared by `===`, as Julia's.
struct PersistentDict{K,V} <: AbstractDict{K,V}
    trie::Core.HashTrie
    PersistentDict{K,V}(trie::Core.HashTrie) where {K,V} = new{K,V}(trie)
end
PersistentDict{K,V}() where {K,V} = PersistentDict{K,V}(Core.trie_empty())
function PersistentDict{K,V}(kv::Pair, rest::Pair...) where {K,V}
    d = PersistentDict(PersistentDict{K,V}(), kv...)
    for p in rest
        d = PersistentDict(d, p...)
    end
    d
end
PersistentDict{K,V}(d::PersistentDict{K,V}, kv::Pair) where {K,V} = PersistentDict(d, kv...)
PersistentDict(d::PersistentDict, kv::Pair) = PersistentDict(d, kv...)
PersistentDict(d::PersistentDict{K,V}, k, v) where {K,V} =
    PersistentDict{K,V}(Core.trie_set(d.trie, convert(K, k), convert(V, v)))
PersistentDict(kv::Pair, rest::Pair...) = PersistentDict{typeof(kv.first),typeof(kv.second)}(kv, rest...)
Base.delete(d::PersistentDict{K,V}, k) where {K,V} = PersistentDict{K,V}(Core.trie_delete(d.trie, k))
getindex(d::PersistentDict, k) = Core.trie_getindex(d.trie, k)
get(d::PersistentDict, k, default) = Core.trie_get(d.trie, k, default)
get(f::Function, d::PersistentDict, k) = haskey(d, k) ? d[k] : f()
haskey(d::PersistentDict, k) = Core.trie_haskey(d.trie, k)
in(p::Pair, d::PersistentDict) = haskey(d, p.first) && d[p.first] == p.second
length(d::PersistentDict) = Core.trie_length(d.trie)
isempty(d::PersistentDict) = length(d) == 0
eltype(::PersistentDict{K,V}) where {K,V} = Pair{K,V}
collect(d::PersistentDict{K,V}) where {K,V} = Core.trie_pairs(d.trie, K, V)
function iterate(d::PersistentDict, s=(collect(d), 1))
    ps, k = s
    k > length(ps) ? nothing : (ps[k], (ps, k + 1))
end
function ==(a::PersistentDict, b::PersistentDict)
    length(a) == length(b) || return false
    for p in a
        p in b || return false
    end
    true
end
# --- BitSet: a set of Ints, iterated in increasing order ------------------------------------------
# (Julia's stores bits; Zyla's a sorted Vector{Int}, so that it iterates, shows and compares as
# Julia's: `BitSet([3, 1])` is `BitSet([1, 3])`)
mutable struct BitSet <: AbstractSet{Int}
    elems::Vector{Int}
    BitSet() = new(Int[])
    BitSet(itr) = new(sort(unique(Int[Int(x) for x in itr])))
end
length(s::BitSet) = length(s.elems)
isempty(s::BitSet) = isempty(s.elems)
eltype(::BitSet) = Int
iterate(s::BitSet, k=1) = k > length(s.elems) ? nothing : (s.elems[k], k + 1)
collect(s::BitSet) = copy(s.elems)
copy(s::BitSet) = BitSet(s.elems)
first(s::BitSet) = isempty(s) ? throw(ArgumentError("collection must be non-empty")) : s.elems[1]
last(s::BitSet) = isempty(s) ? throw(ArgumentError("collection must be non-empty")) : s.elems[end]
in(x::Integer, s::BitSet) = x in s.elems
function push!(s::BitSet, xs::Integer...)
    for x in xs
        Int(x) in s.elems || (push!(s.elems, Int(x)); sort!(s.elems))
    end
    s
end
delete!(s::BitSet, x::Integer) = (filter!(!=(x), s.elems); s)
empty!(s::BitSet) = (empty!(s.elems); s)
union(s::BitSet, itrs...) = union!(copy(s), itrs...)
function union!(s::BitSet, itrs...)
    for itr in itrs
        s.elems = BitSet(vcat(s.elems, Int[Int(x) for x in itr])).elems
    end
    s
end
intersect(s::BitSet, itr) = BitSet(Int[x for x in s.elems if x in itr])
setdiff(s::BitSet, itr) = BitSet(Int[x for x in s.elems if !(x in itr)])
filter(f, s::BitSet) = BitSet(filter(f, s.elems))
map(f, s::BitSet) = throw(ErrorException("map is not defined on sets"))
issubset(a::BitSet, b) = all(x -> x in b, a.elems)
==(a::BitSet, b::BitSet) = a.elems == b.elems
==(a::BitSet, b::AbstractSet) = length(a) == length(b) && all(x -> x in b, a.elems)
==(a::AbstractSet, b::BitSet) = b == a
isequal(a::BitSet, b::BitSet) = a == b
show(io::IO, s::BitSet) = print(io, "BitSet([", join(s.elems, ", "), "])")

function show(io::IO, d::PersistentDict)
    print(io, typeof(d), "(")
    for (k, p) in enumerate(d)
        k > 1 && print(io, ", ")
        show(io, p)
    end
    print(io, ")")
end

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

# --- eachline(io): the lines of a stream, read as they are iterated ------------------------------
struct EachLine
    stream
    ondone
    keep::Bool
end
EachLine(stream; ondone=() -> nothing, keep::Bool=false) = EachLine(stream, ondone, keep)
eachline(stream=stdin; keep::Bool=false) = EachLine(stream; keep=keep)
eachline(path::AbstractString; keep::Bool=false) = EachLine(IOBuffer(read(path, String)); keep=keep)
function iterate(itr::EachLine, state=nothing)
    eof(itr.stream) && return (itr.ondone(); nothing)
    (readline(itr.stream; keep=itr.keep), nothing)
end
eltype(::EachLine) = String
IteratorSize(::EachLine) = SizeUnknown()
isdone(itr::EachLine, state...) = eof(itr.stream)
isempty(itr::EachLine) = eof(itr.stream)

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
# a generator over several iterators `(f(x, y) for x in xs, y in ys)` (lang/core/lower.py) is,
# as Base's, a Generator of Splat(f) over Iterators.product(xs, ys): lazy, of the product's
# size; collecting or mapping it is the comprehension `[f(x, y) for x in xs, y in ys]` (an
# array of that shape, which differentiates); with a filter it is that eager comprehension
Core.generator(f, cond::Nothing, it, its...) = Generator(Splat(f), Iterators.product(it, its...))
Core.generator(f, cond::Function, it, its...) = Core.comprehension(f, cond, it, its...)
collect(g::Generator{ProductIterator, <:Splat}) =
    Core.comprehension(g.f.f, nothing, g.iter.iterators...)
map(f, g::Generator{ProductIterator, <:Splat}) =
    Core.comprehension((xs...) -> f(g.f.f(xs...)), nothing, g.iter.iterators...)
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

# Julia's other spellings of membership (comparison operators, as `∈`)
∋(itr, x) = in(x, itr)
∌(itr, x) = !in(x, itr)
∊(x, itr) = in(x, itr)
