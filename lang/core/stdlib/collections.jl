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

# --- searching ----------------------------------------------------------------------------------
# findnext(f, A, i) / findprev(f, A, i): the first index ≥ i (last ≤ i) where f holds, or
# nothing; with a Bool array alone, where it is true
findnext(f::Function, A::Union{AbstractVector, Tuple}, start::Integer) = Core.findnext(f, A, start)
findprev(f::Function, A::Union{AbstractVector, Tuple}, start::Integer) = Core.findprev(f, A, start)
findnext(A::AbstractVector, start::Integer) = findnext(identity, A, start)
findprev(A::AbstractVector, start::Integer) = findprev(identity, A, start)

# indexin(a, b): for each element of a, its first index in b (or nothing)
function indexin(a, b::AbstractArray)
    firsts = Dict{eltype(b), Int}()
    for (i, x) in enumerate(b)
        haskey(firsts, x) || (firsts[x] = i)
    end
    [get(firsts, x, nothing) for x in a]
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
# `missing`, the one value of type Missing. Arithmetic on it is not defined in Zyla (a
# MethodError, where Julia propagates missing); ismissing, coalesce and skipmissing are.
struct Missing end
missing = Missing()
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
iterate(c::CartesianIndices) = iterate(c, 1)
iterate(c::CartesianIndices, k::Integer) = k > length(c) ? nothing : (c[k], k + 1)
collect(c::CartesianIndices) = reshape([c[k] for k in 1:length(c)], size(c))
map(f, c::CartesianIndices) = map(f, collect(c))
in(i::CartesianIndex, c::CartesianIndices) =
    length(i.I) == ndims(c) && all(map(in, i.I, c.indices))
IteratorSize(c::CartesianIndices) = HasShape{ndims(c)}()
==(a::CartesianIndices, b::CartesianIndices) = a.indices == b.indices

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
# sortslices(A; dims): the rows (dims=1) or columns (dims=2) of a matrix in sorted order
function sortslices(A::AbstractMatrix; dims, rev=false, lt=isless, by=identity)
    dims == 1 || dims == 2 ||
        throw(ArgumentError("Zyla's sortslices sorts the rows (dims=1) or columns (dims=2) of a matrix"))
    n = size(A, dims)
    slices = [dims == 1 ? A[i, :] : A[:, i] for i in 1:n]
    p = sort(collect(1:n); lt=(i, j) -> lt(by(slices[i]), by(slices[j])), rev=rev)
    dims == 1 ? A[p, :] : A[:, p]
end
sortslices(A::AbstractVector; kws...) = sort(A; kws...)
# mapslices(f, A; dims): f applied to each column (dims=1) or row (dims=2) of a matrix, the
# results (numbers or vectors) put back along that dimension
function mapslices(f, A::AbstractMatrix; dims)
    dims == 1 || dims == 2 ||
        throw(ArgumentError("Zyla's mapslices maps the columns (dims=1) or rows (dims=2) of a matrix"))
    if dims == 1
        reduce(hcat, [f(A[:, j]) for j in 1:size(A, 2)])
    else
        permutedims(reduce(hcat, [f(A[i, :]) for i in 1:size(A, 1)]))
    end
end

# --- findall / findfirst beyond vectors: CartesianIndex for arrays, keys for Dicts -------------
findall(f::Function, A::AbstractArray) = ndims(A) <= 1 ? Int[i for i in 1:length(A) if f(A[i])] :
    [I for I in CartesianIndices(A) if f(A[I])]
findall(A::AbstractArray{Bool}) = findall(identity, A)
findall(f::Function, t::Tuple) = Int[i for i in 1:length(t) if f(t[i])]
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
