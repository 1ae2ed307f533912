# Reverse-mode support written in Zyla: pullback closures for primitives and the
# user-facing AD API. Being Zyla, all of it is differentiable again (nested AD).

Core.primback(rule, z, args) = dz -> (nothing, rule(dz, z, args...)...)
Core.primback_kw(rule, z, args, kws) = dz -> (nothing, rule(dz, z, args...; kws...)...)
Core.cumsum_rule(dz, z, x, d...; dims=nothing) =
    (dims === nothing ? Core.cumsum_back(dz, d...) : Core.cumsum_back(dz, dims), map(q -> nothing, d)...)
Core.bcast_primback(rule, z, args) = dz -> (nothing, nothing, map((x, d) -> Core.unbroadcast(x, d), args, rule(dz, z, args...))...)
Core.zero_back(n) = dz -> nothing
Core.shift_back(bb) = dz -> Core.prepend_nothing(Core.back(bb, dz))
Core.back_back(bb) = dz -> Core.prepend_nothing(Core.back(bb, dz))
Core.bcast_scalar_back(b) = dz -> Core.prepend_nothing(Core.back(b, dz))
Core.rrule_back(pb) = dz -> pb(dz)
Core.struct_back(n) = dz -> (nothing, Core.struct_fields_cot(dz, n)...)
Core.convert_back(x) = dz -> (nothing, Core.convert_cot(x, dz))
Core.bcast_convert_back(xs) = dz -> (nothing, nothing, Core.convert_cot(xs[1], dz))
Core.nt_back(names, n) = dz -> (nothing, Core.tuple_cot(dz, n)...)
Core.prim_pullback(p, args...) = Core.prim_pullback2(p, p(args...), args)
Core.prim_pullback2(p, y, args) = (y, Core.primback(Core.rule_of(p), y, args))
Core.checkpoint_back(f, args) = dz -> Core.prepend_nothing(Core.back(Core.pullback_call(f, args...)[2], dz))
# forwards of the AD built-ins themselves, for third and higher order
Core.pc_fwd(h, args...) = Core.pc_shift(Core.pullback_call(Core.forward_callable(h, args...), args...))
Core.back_fwd(b, dy) = Core.pc_shift(Core.pullback_call(b, dy))
Core.pc_shift(t) = (t[1], Core.shift_back(t[2]))
Core.rrule_pullback_fn(f) = (xs...) -> Core.rrule_pullback(f, xs...)
Core.rrule_pullback(f, xs...) = Core.rrule_pb2(rrule(f, xs...))
Core.rrule_pb2(t) = (t[1], Core.rrule_back(t[2]))
Core.prim_pullback_fn(p) = (xs...) -> Core.prim_pullback(p, xs...)
Core.bcast_pullback(f, args...) = Core.bcast_pb2(f, broadcast(f, args...), args)
Core.bcast_pb2(f, y, args) = (y, Core.bcast_primback(Core.bcast_rule_of(f), y, args))

Core.mul_back(dz, x::Number, y::Number) = (dz * y, dz * x)
Core.mul_back(dz, x::Number, y::AbstractArray) = (sum(dz .* y), dz .* x)
Core.mul_back(dz, x::AbstractArray, y::Number) = (dz .* y, sum(dz .* x))
Core.mul_back(dz, x::AbstractMatrix, y::AbstractArray) = (Core.matmul_back_a(dz, y), x' * dz)
Core.mul_back(dz, x::AbstractVector, y::AbstractMatrix) = (vec(dz * y'), x' * dz)
Core.mul_back(dz, x, y, z, rest...) = Core.mul_back(dz, x, Core.times(y, z, rest...))
Core.matmul_back_a(dz, y::AbstractVector) = dz * y'
Core.matmul_back_a(dz, y::AbstractMatrix) = dz * y'

Core.pow_back(dz, z, x, p::Integer) = (p == 0 ? zero(dz) : dz * p * x ^ (p - 1), nothing)
Core.pow_back(dz, z, x, p) = (dz * p * x ^ (p - 1), dz * z * log(x))
Core.pow_bcast_back(dz, z, x, p::Integer) = (p == 0 ? zero(dz) : dz .* p .* x .^ (p - 1), nothing)
Core.pow_bcast_back(dz, z, x, p) = (dz .* p .* x .^ (p .- 1), dz .* z .* log.(x))

Core.sum_back(dz, x) = Core.broadcast_to(dz, x)
Core.adjoint_back(dz, x::AbstractVector) = vec(adjoint(dz))
Core.adjoint_back(dz, x) = adjoint(dz)
Core.extremum_back(dz, z, x) = dz .* (x .== z)

function pullback(f, args...)
    y, b = Core.pullback_call(f, args...)
    y, dy -> Core.grads_out(Core.back(b, dy), args)
end

function gradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    Core.grads_out(Core.back(b, Core.sensitivity(y)), args)
end

function withgradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    (val = y, grad = Core.grads_out(Core.back(b, Core.sensitivity(y)), args))
end

function jacobian(f, x)
    y, b = Core.pullback_call(f, x)
    rows = [Core.grads_out(Core.back(b, Core.onehot_like(y, i)), (x,))[1] for i in 1:length(y)]
    (Core.stack_rows(rows, x),)
end

hessian(f, x) = jacobian(z -> gradient(f, z)[1], x)[1]
hessian_reverse(f, x) = hessian(f, x)

# forward mode as the transpose of reverse mode: the pullback u -> J'u is linear in u,
# so differentiating <J'u, v> with respect to u gives J v
function jvp(f, x, v)
    y, back = pullback(f, x)
    (y, gradient(u -> sum(back(u)[1] .* v), zero(y))[1])
end
pushforward(f, x) = v -> jvp(f, x, v)[2]

# Higher-order Base functions over arrays, written in Zyla so that they differentiate:
# a comprehension or `map` over arrays is a broadcast; `filter` is an index selection;
# `reduce`/`foldl` are loops.
map(f, x::AbstractArray) = broadcast(f, x)
map(f, x::AbstractArray, y::AbstractArray) = broadcast(f, x, y)
filter(f, x::AbstractArray) = x[Core.findall_true(broadcast(f, x))]

function Core.comprehension(f, cond, it)
    xs = Core.iter_array(it)
    cond === nothing && return broadcast(f, xs)
    broadcast(f, xs[Core.findall_true(broadcast(cond, xs))])
end

function Core.comprehension(f, cond::Nothing, it1, it2)
    # the first iterator varies fastest: a column against a row
    broadcast(f, Core.iter_array(it1), permutedims(Core.iter_array(it2)))
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

Core.regroup(g, spec, lens...) = g === nothing ? nothing : (g[1], Core.regroup_rest(g, 2, spec, 1, lens)...)
Core.regroup_rest(g, k, spec, li, lens) = length(spec) == 0 ? () :
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
Core.first_hit(xs, z, i) = xs[i] == z && all(j -> xs[j] != z, 1:i-1)
