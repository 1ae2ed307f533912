# Reverse-mode support written in Zyla: pullback closures for primitives and the
# user-facing AD API. Being Zyla, all of it is differentiable again (nested AD).

Core.primback(rule, z, args) = dz -> (nothing, rule(dz, z, args...)...)
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
    y, dy -> Core.grads_out(Core.back(b, dy), length(args))
end

function gradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    Core.grads_out(Core.back(b, Core.sensitivity(y)), length(args))
end

function withgradient(f, args...)
    y, b = Core.pullback_call(f, args...)
    (val = y, grad = Core.grads_out(Core.back(b, Core.sensitivity(y)), length(args)))
end

function jacobian(f, x)
    y, b = Core.pullback_call(f, x)
    rows = [Core.grads_out(Core.back(b, Core.onehot_like(y, i)), 1)[1] for i in 1:length(y)]
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
