# Reverse-mode support written in Zyla: pullback closures for primitives and the
# user-facing AD API. Being Zyla, all of it is differentiable again (nested AD).

Core.primback(rule, z, args) = dz -> (nothing, rule(dz, z, args...)...)
Core.primback_kw(rule, z, args, kws) = dz -> (nothing, rule(dz, z, args...; kws...)...)
Core.cumsum_rule(dz, z, x, d...; dims=nothing) =
    (dims === nothing ? Core.cumsum_back(dz, d...) : Core.cumsum_back(dz, dims), map(q -> nothing, d)...)
Core.bcast_primback(rule, z, args) = dz -> (nothing, nothing, map((x, d) -> Core.unbroadcast(x, d), args, rule(dz, z, args...))...)
Core.zero_back(n) = dz -> nothing
Core.nondiff_back(name, n) = dz -> Core.nondiff_refused(name, dz)
Core.dict_ctor_pb(ps) = dz -> (nothing, Core.dict_ctor_back(dz, ps)...)
Core.shift_back(bb) = dz -> Core.prepend_nothing(Core.back(bb, dz))
Core.back_back(bb) = dz -> Core.prepend_nothing(Core.back(bb, dz))
Core.bcast_scalar_back(b) = dz -> Core.prepend_nothing(Core.back(b, dz))
# a broadcast over `Ref(x)`s (autodiff.runtime._broadcast_over_refs): b the pullback of the
# broadcast over their 1-tuples `(x,)` (intuple), or of the one call on the contents; a
# Ref's cotangent is `(x = d,)`
Core.ref_bcast_back(b, isref, intuple) = dz -> Core.ref_bcast_cots(Core.back(b, dz), isref, intuple)
Core.ref_bcast_cots(g::Nothing, isref, intuple) = nothing
function Core.ref_bcast_cots(g, isref, intuple)
    k = intuple ? 2 : 1  # (f's own cotangent: after the broadcast's, or first)
    (nothing, g[k], ntuple(i -> isref[i] ? Core.ref_cot(g[k + i], intuple) : g[k + i], length(isref))...)
end
Core.ref_cot(d::Nothing, intuple) = nothing
Core.ref_cot(d, intuple::Bool) = intuple ? Core.ref_in_tuple(d) : (x = d,)
# (the 1-tuple's cotangent: a tuple, or the vector of its one element a broadcast made)
Core.ref_in_tuple(d::Union{Tuple{Any}, AbstractVector}) = Core.ref_cot(only(d), false)
# a user rrule's pullback takes a complex result's cotangent as a Complex, as ChainRules
# writes it (not as the NamedTuple of its fields)
Core.rrule_back(pb, y) = dz -> pb(Core.complex_cot(y, dz))
Core.trycatch_back(b, k) = dz -> Core.trycatch_cots(Core.back(b, dz), k)
Core.hook_back(f) = dz -> (nothing, nothing, f(dz))
Core.trycatch_cots(g::Nothing, k) = nothing
Core.trycatch_cots(g, k) = k == 1 ? (nothing, g[1], nothing, nothing) : (nothing, nothing, g[1], nothing)
Core.struct_back(n) = dz -> (nothing, Core.struct_fields_cot(dz, n)...)
Core.convert_back(x) = dz -> (nothing, Core.convert_cot(x, dz))
Core.bcast_convert_back(xs) = dz -> (nothing, nothing, Core.convert_cot(xs[1], dz))
Core.nt_back(names, n) = dz -> (nothing, Core.tuple_cot(dz, n)...)
Core.prim_pullback(p, args...) = Core.prim_pullback2(p, p(args...), args)
Core.prim_pullback2(p, y, args) = (y, Core.primback(Core.rule_of(p), y, args))
Core.checkpoint_back(f, args, s) =
    dz -> Core.prepend_nothing(Core.back(Core.with_rng(s, Core.pullback_call, f, args...)[2], dz))
Core.with_rng_back(b) = dz -> (nothing, nothing, Core.back(b, dz)...)
# forwards of `checkpointed` and `Core.with_rng` (what the AD runtime does for them, in
# Zyla, so that a checkpoint differentiates again)
Core.ckpt_fwd(f, args...) = Core.ckpt_fwd2(f, args, Core.rng_snapshot())
Core.ckpt_fwd2(f, args, s) = (Core.with_rng(s, f, args...), Core.checkpoint_back(f, args, s))
Core.with_rng_fwd(s, f, args...) = Core.with_rng_fwd2(Core.with_rng(s, Core.pullback_call, f, args...))
Core.with_rng_fwd2(t) = (t[1], Core.with_rng_back(t[2]))
# forwards of the AD built-ins themselves, for third and higher order
Core.pc_fwd(h, args...) = Core.pc_shift(Core.pullback_call(Core.forward_callable(h, args...), args...))
Core.back_fwd(b, dy) = Core.pc_shift(Core.pullback_call(b, dy))
Core.pc_shift(t) = (t[1], Core.shift_back(t[2]))
Core.rrule_pullback_fn(f) = (xs...) -> Core.rrule_pullback(f, xs...)
Core.rrule_pullback(f, xs...) = Core.rrule_pb2(rrule(f, xs...))
Core.rrule_pb2(t) = (t[1], Core.rrule_back(t[2], t[1]))
Core.prim_pullback_fn(p) = (xs...) -> Core.prim_pullback(p, xs...)
Core.bcast_pullback(f, args...) = Core.bcast_pb2(f, broadcast(f, args...), args)
Core.bcast_pb2(f, y, args) = (y, Core.bcast_primback(Core.bcast_rule_of(f), y, args))

Core.mul_back(dz, x) = (dz,)  # *(x) is x
Core.mul_back(dz, x::Number, y::Number) = (dz * y, dz * x)
Core.mul_back(dz, x::Number, y::AbstractArray) = (sum(dz .* y), dz .* x)
Core.mul_back(dz, x::AbstractArray, y::Number) = (dz .* y, sum(dz .* x))
Core.mul_back(dz, x::AbstractMatrix, y::AbstractArray) = (Core.matmul_back_a(dz, y), x' * dz)
Core.mul_back(dz, x::AbstractVector, y::AbstractMatrix) = (vec(dz * y'), x' * dz)
# x * y * z * ... is ((x * y) * z) * ...: the pullback of the last product first
function Core.mul_back(dz, x, y, z, rest...)
    d = Core.mul_back(dz, Core.times(x, y), z, rest...)
    (Core.mul_back(d[1], x, y)..., Core.tail(d)...)
end
Core.matmul_back_a(dz, y::AbstractVector) = dz * y'
Core.matmul_back_a(dz, y::AbstractMatrix) = dz * y'

# x ^ p of numbers (ChainRules' conventions at x = 0, math.jl's Core.pow_grad_x/_p); p's
# gradient is there for an integer p too, as Zygote's
Core.pow_back(dz, z, x, p) =
    (y = Core.pow_float(z); (dz * Core.pow_grad_x(x, p, y), dz * Core.pow_grad_p(x, p, y)))
Core.pow_bcast_back(dz, z, x, p::Integer) = (p == 0 ? zero(dz) : dz .* p .* x .^ (p - 1), nothing)
Core.pow_bcast_back(dz, z, x, p) = (dz .* p .* x .^ (p .- 1), dz .* z .* log.(x))

Core.sum_back(dz, x) = Core.broadcast_to(dz, x)
Core.sum_back(dz, x::Tuple) = map(xi -> dz, x)
# prod's cotangent, a tuple's a tuple
Core.prod_cot(dz, x, dims...) = Core.prod_back(dz, x, dims...)
Core.prod_cot(dz, x::Tuple) = Tuple(Core.prod_back(dz, x))
Core.adjoint_back(dz, x::AbstractVector) = vec(adjoint(dz))
Core.adjoint_back(dz, x) = adjoint(dz)
Core.extremum_back(dz, z, x) = dz .* (x .== z)

"""
    pullback(f, args...) -> (y, back)

Run `y = f(args...)` and return it with `back`, the function that maps a cotangent `dy`
of `y` to the tuple of cotangents of `args` (`nothing` for an argument without one).
`back(1.0)` of a scalar `y` is `gradient(f, args...)`.

    y, back = pullback(x -> x^2, 3.0)   # (9.0, back)
    back(1.0)                           # (6.0,)
"""
function pullback(f, args...)
    y, b = Core.pullback_call(f, args...)
    y, dy -> Core.pullback_grads(Core.back(b, dy), f, args)
end
# a built-in rule whose cotangents are all zero gives one `nothing`, as Zygote's ChainRules
# bridge does (`pullback(getindex, x, [1])[2]([nothing]) === nothing`)
Core.pullback_grads(g, f, args) =
    Core.is_zero_cot(g) && Core.builtin_rule_kind(f, args...) === :rule ? nothing :
    Core.grads_out(g, args)
# Zygote's adjoint of `map`: the cotangents of empty tuples are `()`, and an array of
# `nothing` cotangents gives arrays of `nothing`s (each element's pullback gave `nothing`)
pullback(::typeof(map), f, ts::Tuple{}...) = (map(f, ts...), dy -> (nothing, map(_ -> (), ts)...))
function pullback(::typeof(map), f, xs::AbstractArray...)
    y, b = Core.pullback_call(map, f, xs...)
    y, dy -> dy isa AbstractArray{Nothing} ? (nothing, map(x -> fill(nothing, size(x)), xs)...) :
        Core.pullback_grads(Core.back(b, dy), map, (f, xs...))
end

# `f'` of a function is its derivative, as Zygote defines it: `sin'(1.0) == cos(1.0)`
adjoint(f::Function) = x -> gradient(f, x)[1]

"""
    gradient(f, args...)

The tuple of the derivatives of the real number `f(args...)` with respect to each
argument, computed by reverse mode: an array for an array argument, a NamedTuple of field
gradients for a struct or a Flux model, `nothing` for an argument that does not change the
result (or is not differentiable, such as a String). Called at top level or inside any
function, it runs as one compiled executable when the call is worth compiling.

    gradient(x -> sum(abs2, x), [1.0, 2.0])        # ([2.0, 4.0],)
    gradient((a, b) -> a * b, 2.0, 3.0)            # (3.0, 2.0)
    gradient(m -> sum(m(x)), model)[1].weight      # a Dense layer's weight gradient

See also `withgradient`, `pullback`, `jacobian`, `hessian`.
"""
function gradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    Core.grads_out(Core.back(b, Core.sensitivity(y)), args)
end

# a tuple or NamedTuple result: its first element is differentiated, the rest carried along
"""
    withgradient(f, args...) -> (val = f(args...), grad = gradient(f, args...))

The value and the gradient in one pass. When `f` returns a tuple or a NamedTuple, its
first element is differentiated and the whole value is returned as `val` (auxiliary
results carried along, as Zygote does).

    r = withgradient(x -> x^2, 3.0)    # (val = 9.0, grad = (6.0,))
"""
function withgradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    (val = y, grad = Core.grads_out(Core.back(b, Core.first_sensitivity(y)), args))
end
Core.first_sensitivity(y) = Core.sensitivity(y)
Core.first_sensitivity(y::Tuple) = (Core.sensitivity(y[1]), map(_ -> nothing, Base.tail(y))...)
Core.first_sensitivity(y::NamedTuple) =
    NamedTuple{keys(y)}(Core.first_sensitivity(Tuple(y)))

# Zygote.forwarddiff(f, x): f(x), differentiated (by forward mode in Zygote; the
# derivative is the same)
forwarddiff(f, x; chunk_threshold = 0) = f(x)
# Zygote.hook(f, x): x, whose cotangent dx is replaced by f(dx)
hook(f, x) = Core.hook(f, x)

# Jacobians: reverse mode row by row, or forward mode column by column when the input is
# the smaller side (one pass per input direction instead of one per output).
"""
    jacobian(f, x)

The one-element tuple holding the matrix `J` with `J[i, j] = ∂f(x)[i] / ∂x[j]` (rows: the
elements of the output, columns: those of the input, both in column-major order). Reverse
mode row by row, or forward mode column by column when `x` is the smaller side.

    jacobian(x -> [x[1] * x[2], sin(x[1])], [1.0, 2.0])[1]   # 2×2 Matrix
"""
function jacobian(f, x)
    y = f(x)
    length(x) < length(y) && return (Core.jacobian_forward(f, x, y),)
    (Core.jacobian_reverse(f, x),)
end
# row i of J is the gradient of y[i] (a row of zeros where it is `nothing`), written into
# J in a loop, so that a Jacobian (and hessian_reverse) differentiates again
function Core.jacobian_reverse(f, x)
    y, b = Core.pullback_call(f, x)
    J = zeros(Core.jacobian_eltype(x, y), length(y), length(x))
    for i in 1:length(y)
        g = Core.grads_out(Core.back(b, Core.onehot_like(y, i)), (x,))[1]
        if g !== nothing
            J[i, :] .= vec(g)
        end
    end
    J
end
function Core.jacobian_forward(f, x, y, T=Core.jacobian_eltype(x, y))
    J = zeros(T, length(y), length(x))
    for i in 1:length(x)
        J[:, i] .= Core.fwd_column(Core.jvp_call(f, nothing, 1, x, Core.onehot_like(x, i))[2], y)
    end
    J
end
# a Jacobian's element type, as Zygote's: promote_type of x's and y's (a float type)
function Core.jacobian_eltype(x, y)
    T = promote_type(eltype(x), eltype(y))
    T <: AbstractFloat ? T : Float64
end
Core.fwd_column(d, y) = d === nothing ? zeros(length(y)) : (d isa Number ? [d] : vec(d))

# Hessians: forward-over-reverse (the jvp of the gradient, one column per input direction),
# and reverse-over-reverse (the Jacobian of the gradient, one row per output).
function hessian(f, x)
    g = z -> gradient(f, z)[1]
    x isa Number && return jvp(g, x, one(x))[2]
    Core.jacobian_forward(g, x, x, Core.hessian_eltype(g, x))
end
# forward over reverse keeps the gradient's own float type where x's is an integer, as
# Zygote's Dual numbers do (a Float32 model's Hessian at integer inputs is Float32)
Core.hessian_eltype(g, x) = eltype(x) <: Integer && !isempty(x) ?
    float(eltype(Core.fwd_column(Core.jvp_call(g, nothing, 1, x, Core.onehot_like(x, 1))[2], x))) :
    Core.jacobian_eltype(x, x)
hessian_reverse(f, x) = Core.jacobian_reverse(z -> gradient(f, z)[1], x)
hessian_dual(f, x) = hessian(f, x)  # (Zygote's name for its forward-over-reverse hessian)

# Forward mode (autodiff/forward.py): the tangent J v of f at x in direction v, with f's IR
# transformed to carry (primal, tangent) pairs; user `frule`s win over the built-in rules.
function jvp(f, x, v)
    y, dy = Core.jvp_call(f, nothing, 1, x, v)
    (y, Core.tangent_out(y, dy))
end
pushforward(f, x) = v -> jvp(f, x, v)[2]

# Forward-rule helpers (the primitive table's `forward` entries call these).
Core.mul_fwd(d, x) = d[1]
Core.mul_fwd(d, x, y) = d[1] * y + x * d[2]
Core.mul_fwd(d, x, y, z, rest...) =
    Core.mul_fwd((Core.mul_fwd((d[1], d[2]), x, y), Core.tail(Core.tail(d))...), Core.times(x, y), z, rest...)
Core.mul_fwd(d, x, y, z, rest...) =
    Core.mul_fwd((d[1], Core.mul_fwd(Core.tail(d), y, z, rest...)), x, Core.times(y, z, rest...))
# (a zero tangent of p is a strong zero: it adds nothing, not NaN, where p's derivative is NaN)
function Core.pow_fwd(dx, dp, z, x, p)
    y = Core.pow_float(z)
    t = dx * Core.pow_grad_x(x, p, y)
    (dp === nothing || iszero(dp)) ? t : t + dp * Core.pow_grad_p(x, p, y)
end
Core.pow_bcast_fwd(dx, dp, z, x, p::Integer) = p == 0 ? zero(dx) : dx .* p .* x .^ (p - 1)
# (the log term only where p has a tangent: a zero tangent of p adds nothing, not NaN)
Core.pow_bcast_fwd(dx, dp, z, x, p) = dx .* p .* x .^ (p .- 1) .+ dp .* z .* log.(ifelse.(dp .== 0, 1.0, x))
Core.fwd_bcast_sum(ds...) = broadcast(+, ds...)
Core.fwd_plus(d) = length(d) == 1 ? d[1] : d[1] + Core.fwd_plus(Core.tail(d))
# max(xs...)/min(xs...): the tangent of the first argument equal to the result (as the
# pullback routes ties); a recursion over the (static) argument positions, which compiles
Core.extremes_fwd(d, z, xs) = Core.extremes_pick(d, z, xs, 1)
Core.extremes_pick(d, z, xs, i) =
    i == length(xs) ? d[i] : ifelse(xs[i] == z, d[i], Core.extremes_pick(d, z, xs, i + 1))
Core.cumsum_fwd(d, z, x, r...; dims=nothing) = dims === nothing ? cumsum(d[1], r...) : cumsum(d[1]; dims=dims)
Core.fwd_field(dx, s) = dx === nothing ? nothing : (haskey(dx, s) ? getproperty(dx, s) : nothing)
# a complex number's tangent may come as a Complex (`jvp(z -> z.im, z, 0.3 + 0.4im)`: its
# field's tangent was dropped)
Core.fwd_field(dx::Complex, s) = getproperty(dx, s)
Core.fwd_splice(d, ds) = Core.splice_last(ntuple(i -> d[i], length(d) - 1)..., ds[length(ds)])
# broadcasting a general function: each element's tangent through the forward transform
# (every element's tangent `nothing`, as of `imag.(v)` of reals: the zero tangent, nothing)
function Core.fwd_bcast_tangent(f, df, n, xs...)
    t = broadcast((e...) -> Core.jvp_call(f, df, n, e...)[2], xs...)
    t isa AbstractArray{Nothing} ? nothing : t
end

# Higher-order Base functions over arrays, written in Zyla so that they differentiate:
# a comprehension or `map` over arrays is a broadcast; `filter` is an index selection;
# `reduce`/`foldl` are loops.
map(f, x::AbstractArray) = broadcast(f, x)
map(f, x::AbstractArray, y::AbstractArray) =
    size(x) == size(y) ? broadcast(f, x, y) : Core.map_zip(f, x, y)
map(f, x::AbstractArray, y::AbstractArray, zs::AbstractArray...) =
    all(z -> size(z) == size(x), (y, zs...)) ? broadcast(f, x, y, zs...) : Core.map_zip(f, x, y, zs...)
map(f, x::Tuple, y::AbstractArray) = Core.map_zip(f, x, y)
map(f, x::AbstractArray, y::Tuple) = Core.map_zip(f, x, y)
# `NamedTuple{names}(x)` of a tuple or a NamedTuple x: x's cotangent taken by name
Core.nt_ctor_pb(y, x) = dz -> (nothing, Core.nt_ctor_back(dz, keys(y), x))
Core.nt_ctor_back(dz::Nothing, names, x) = nothing
Core.nt_ctor_back(dz::NamedTuple, names, x::Tuple) = Core.nt_field_cots(dz, names)
Core.nt_ctor_back(dz::NamedTuple, names, x::NamedTuple) =
    NamedTuple{keys(x)}(Core.nt_field_cots(dz, keys(x)))
Core.nt_field_cots(dz, names) = map(k -> haskey(dz, k) ? getproperty(dz, k) : nothing, names)
Core.nt_ctor_back(dz, names, x) = Core.nondiff_refused("NamedTuple", dz)
# the cotangent of `fill(v, dims...)`'s v: its elements' cotangents added, structurally for
# a tuple's or a struct's (`sum` would concatenate tuples)
Core.fill_back(dz::AbstractArray{<:Number}) = sum(dz)
Core.fill_back(dz::AbstractArray) = isempty(dz) ? nothing : reduce(Core.accum, dz)
Core.fill_back(dz) = dz
# `map` over collections of different shapes zips them, stopping at the shortest, into a
# Vector (column-major order); arrays all of one ndims > 1 must agree in size, as in Julia
function Core.map_zip(f, xs...)
    Core.map_zip_check(xs)
    n = minimum(map(length, xs))
    broadcast(f, map(x -> Core.map_zip_vec(x, n), xs)...)
end
Core.map_zip_vec(x::Tuple, n) = collect(x[1:n])
Core.map_zip_vec(x::AbstractArray, n) = vec(x)[1:n]
function Core.map_zip_check(xs)
    all(x -> x isa AbstractArray && ndims(x) == ndims(xs[1]), xs) && ndims(xs[1]) > 1 &&
        any(x -> size(x) != size(xs[1]), xs) &&
        throw(DimensionMismatch("dimensions must match: got sizes $(join(map(size, xs), ", "))"))
    nothing
end
filter(f, x::AbstractArray) = x[Core.findall_true(broadcast(f, x))]

function Core.comprehension(f, cond, it)
    xs = Core.iter_array(it)
    cond === nothing && return broadcast(f, xs)
    broadcast(f, xs[Core.findall_true(broadcast(cond, xs))])
end

function Core.comprehension(f, cond::Nothing, it1, it2)
    # the first iterator varies fastest: its dimensions first, then the second's
    a1 = Core.iter_array(it1)
    a2 = Core.iter_array(it2)
    broadcast(f, a1, reshape(a2, (map(_ -> 1, size(a1))..., size(a2)...)))
end

# `reduce`, `foldl`, `mapreduce` (with `init` and `dims`) are loops in base.jl.

# `@checkpoint for x in xs ... end`: the loop runs in segments of about sqrt(n) steps.
# Only each segment's starting state is kept for the backward pass, which recomputes one
# segment at a time (with its own tape), so memory grows like sqrt(n), not n.
function Core.ckpt_loop(body, xs, state)
    n = length(xs)
    k = Core.segment_length(n)
    for j in 1:k:n
        state = checkpointed(Core.ckpt_segment, body, xs, j, min(j + k - 1, n), state)
    end
    state
end

function Core.ckpt_segment(body, xs, lo, hi, state)
    for i in lo:hi
        state = body(xs[i], state...)
    end
    state
end

# Cotangent plumbing made by the AD transform, in Zyla so that it differentiates again
# (third and higher order).
function Core.splice_last(ds...)
    k = length(ds) - 2
    (ntuple(i -> ds[i], k)..., Core.expand_cot(ds[k + 1], ds[k + 2])...)
end
Core.expand_cot(x, n) = x === nothing ? ntuple(i -> nothing, n) : x
# the cotangent of an array splatted into a call (`f(x...)`) is an array of its shape, not
# the tuple of the callee's cotangents (zeros where they are `nothing`)
Core.untuple_cot(d, x) = d
Core.untuple_cot(d::Tuple, x::AbstractArray) =
    reshape(collect(map(di -> di === nothing ? zero(eltype(x)) : di, d)), size(x))

Core.regroup(g, spec, lens...) = g === nothing ? nothing : (g[1], Core.regroup_rest(g, 2, spec, 1, lens)...)
# what follows the positional cotangents (a callee's keyword cotangents, `Core.kwgrad`) stays last
Core.regroup_rest(g, k, spec, li, lens) = length(spec) == 0 ? ntuple(i -> g[k + i - 1], max(0, length(g) - k + 1)) :
    spec[1] ? (ntuple(i -> g[k + i - 1], lens[li]), Core.regroup_rest(g, k + lens[li], Core.tail(spec), li + 1, lens)...) :
              (g[k], Core.regroup_rest(g, k + 1, Core.tail(spec), li, lens)...)

Core.push_back(dz, x, vs...) = (dz[1:length(x)], ntuple(i -> dz[length(x) + i], length(vs))...)
Core.append_back(dz, x, ys) = (dz[1:length(x)], reshape(dz[length(x)+1:end], size(ys)))

first(x::Tuple) = x[1]
last(x::Tuple) = x[length(x)]
first(x::AbstractArray) = x[1]
last(x::AbstractArray) = x[length(x)]
# max(x, y, z...): the cotangent goes to the first argument equal to the result
Core.extremes_back(dz, z, xs) = ntuple(i -> Core.first_hit(xs, z, i) ? dz : zero(dz), length(xs))
# (written without `all` over a closure, so that it compiles: i is known when tracing)
Core.first_hit(xs, z, i) = (xs[i] == z) & !Core.hit_before(xs, z, i - 1)
Core.hit_before(xs, z, k) = k < 1 ? false : (xs[k] == z) | Core.hit_before(xs, z, k - 1)

# the imaginary part of a real array: zero, whose gradient is a zero array (Zygote's, not
# nothing: the real part of `complex.(0, real.(dy))`)
ChainRulesCore.rrule(::typeof(imag), x::AbstractArray{<:Real}) =
    (zero(x), dy -> (NoTangent(), dy === nothing ? nothing : zero(x)))

# Iterators.take/drop of an array, differentiated: the elements they keep, as an array
# (the primal, undifferentiated, stays lazy); the cotangent goes back to those positions
ChainRulesCore.rrule(::typeof(Iterators.take), x::AbstractArray, n::Integer) =
    (x[1:min(n, length(x))], dy -> (NoTangent(), Core.range_back(dy, x, 1, min(n, length(x))),
                                    NoTangent()))
ChainRulesCore.rrule(::typeof(Iterators.drop), x::AbstractArray, n::Integer) =
    (x[min(n, length(x))+1:end], dy -> (NoTangent(),
                                        Core.range_back(dy, x, min(n, length(x)) + 1, length(x)),
                                        NoTangent()))
Core.range_back(dy::Nothing, x, lo, hi) = nothing
function Core.range_back(dy, x, lo, hi)
    g = zeros(float(eltype(x)), size(x))
    g[lo:hi] .= dy
    g
end

# hypot's derivative (ChainRules'): x/h and y/h, not that of its rounding correction
function ChainRulesCore.rrule(::typeof(_hypot64), x, y)
    h = _hypot64(x, y)
    return h, dh -> (NoTangent(), dh * x / h, dh * y / h)
end

# ChainRulesCore's Tangent{P}: the cotangent of a P, which Zyla writes as the NamedTuple of
# its fields' cotangents (a tuple's as a tuple)
struct Tangent{P} end
Tangent{P}(xs...; kw...) where {P} = isempty(kw) ? xs : NamedTuple(kw)
# ChainRulesCore's muladd with a zero tangent (ZeroTangent() is `nothing` here): a zero
# factor gives the addend, a zero addend the product
muladd(x, y, ::Nothing) = x * y
muladd(::Nothing, y, z) = z
muladd(x, ::Nothing, z) = z

# ChainRulesCore's fallbacks: a built-in's rule (a pullback returning the cotangents of f
# and of xs, a pair of the result and its tangent; zero ones for `zero`, `round`, ...,
# one pullback object for all of one argument), or `nothing` for a function without one
# (the AD dispatcher looks only at rules for a specific function: _user_rrule)
function ChainRulesCore.rrule(f, xs...; kw...)
    k = Core.builtin_rule_kind(f, xs...)
    k === :rule && return Core.pullback_call(f, xs...; kw...)
    k === :zero && return (f(xs...; kw...), Core.zero_back_of(xs))
    nothing
end
Core.zero_back_of(xs::Tuple{Any}) = Core.zero_one_back
Core.zero_back_of(xs) = dy -> (NoTangent(), map(x -> ZeroTangent(), xs)...)
function ChainRulesCore.frule(Δ, f, xs...)
    k = Core.builtin_rule_kind(f, xs...)
    k === :rule && return Core.jvp_call(f, Δ[1], length(xs), xs..., Base.tail(Δ)...)
    k === :zero && return (f(xs...), ZeroTangent())
    nothing
end
Core.zero_one_back(dy) = (NoTangent(), ZeroTangent())

# ChainRules' rules without a derivative (their API answers
# `rrule(typejoin, ...)`, `rrule(Base.depwarn, ...)`)
ChainRulesCore.rrule(::typeof(typejoin), xs...) = (typejoin(xs...), Core.nondiff_pullback(xs))
ChainRulesCore.frule(Δ, ::typeof(typejoin), xs...) = (typejoin(xs...), NoTangent())
ChainRulesCore.rrule(::typeof(Base.depwarn), xs...) = (Base.depwarn(xs...), Core.nondiff_pullback(xs))
ChainRulesCore.frule(Δ, ::typeof(Base.depwarn), xs...) = (Base.depwarn(xs...), NoTangent())
Core.nondiff_pullback(xs) = dy -> (NoTangent(), map(x -> NoTangent(), xs)...)

# the pullbacks of the accesses to a Box, a captured variable that a closure reassigns
# (autodiff.runtime: BoxTrail): a read adds its cotangent to the contents', a write hands
# the contents' cotangent on to the value written; a pass ends with its boxes settled
Core.unbox_back(t, k) = dz -> Core.box_read_back(t, k, dz)
Core.box_back(t, k) = dz -> (nothing, Core.box_write_back(t, k))
Core.setbox_back(t, k) = dz -> (nothing, nothing, Core.box_write_back(t, k))
Core.box_pass_back(b, trails) = dy -> Core.box_pass_end(Core.back(b, dy), trails)

# ... and in forward mode: the kept elements of x and of its tangent
ChainRulesCore.frule(Δ, ::typeof(Iterators.take), x::AbstractArray, n::Integer) =
    (x[1:min(n, length(x))], Core.range_fwd(Δ[2], 1, min(n, length(x))))
ChainRulesCore.frule(Δ, ::typeof(Iterators.drop), x::AbstractArray, n::Integer) =
    (x[min(n, length(x))+1:end], Core.range_fwd(Δ[2], min(n, length(x)) + 1, length(x)))
Core.range_fwd(d::AbstractArray, lo, hi) = d[lo:hi]
Core.range_fwd(d, lo, hi) = d
