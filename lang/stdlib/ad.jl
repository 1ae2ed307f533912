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

function foldl(op, xs::AbstractArray)
    length(xs) == 0 && error("reducing over an empty collection is not allowed")
    acc = xs[1]
    for i in 2:length(xs)
        acc = op(acc, xs[i])
    end
    acc
end
foldl(op, xs::Tuple) = foldl(op, Core.iter_array(xs))
reduce(op, xs::AbstractArray) = foldl(op, xs)
reduce(::typeof(+), xs::AbstractArray) = sum(xs)
reduce(::typeof(*), xs::AbstractArray) = prod(xs)
reduce(::typeof(max), xs::AbstractArray) = maximum(xs)
reduce(::typeof(min), xs::AbstractArray) = minimum(xs)
reduce(::typeof(hcat), xs) = hcat(xs...)
reduce(::typeof(vcat), xs) = vcat(xs...)
mapreduce(f, op, x::AbstractArray) = reduce(op, broadcast(f, x))
