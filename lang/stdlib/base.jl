# Zyla's Base, written in Zyla over the primitives of lang/primitives*.py.
# Everything here is differentiable for free: the AD transforms these bodies like user code.

struct Pair
    first
    second
end

iseven(x) = x % 2 == 0
isodd(x) = x % 2 != 0
clamp(x, lo, hi) = min(max(x, lo), hi)
muladd(a, b, c) = a * b + c
lastindex(x) = length(x)
lastindex(x, d) = size(x, d)
firstindex(x) = 1
inv(x::Number) = 1 / x
isless(a, b) = a < b
signbit(x) = x < 0
exp2(x) = 2.0 ^ x
cbrt(x) = sign(x) * abs(x) ^ (1 / 3)
hypot(a, b) = sqrt(abs2(a) + abs2(b))

sum(x; dims=nothing) = dims === nothing ? Core.sum(x) : Core.sum(x, dims)
sum(f::Function, x; dims=nothing) = sum(broadcast(f, x); dims=dims)
prod(x; dims=nothing) = dims === nothing ? Core.prod(x) : Core.prod(x, dims)
prod(f::Function, x) = prod(broadcast(f, x))
maximum(x; dims=nothing) = dims === nothing ? Core.maximum(x) : Core.maximum(x, dims)
maximum(f::Function, x) = maximum(broadcast(f, x))
minimum(x; dims=nothing) = dims === nothing ? Core.minimum(x) : Core.minimum(x, dims)
minimum(f::Function, x) = minimum(broadcast(f, x))
mapreduce(f, op, x) = reduce(op, map(f, x))
max(x) = x
min(x) = x

mean(x; dims=nothing) = dims === nothing ? sum(x) / length(x) : sum(x; dims=dims) ./ (length(x) ÷ length(sum(x; dims=dims)))
mean(f::Function, x) = mean(broadcast(f, x))
function var(x; dims=nothing, corrected=true)
    m = mean(x; dims=dims)
    n = dims === nothing ? length(x) : length(x) ÷ length(m)
    s = sum(abs2.(x .- m); dims=dims)
    s ./ (corrected ? n - 1 : n)
end
std(x; dims=nothing, corrected=true) = sqrt.(var(x; dims=dims, corrected=corrected))

dot(x, y) = sum(x .* y)
norm(x) = sqrt(sum(abs2.(x)))
norm(x, p) = p == 2 ? norm(x) : sum(abs.(x) .^ p) ^ (1 / p)
tr(A) = sum(A[i, i] for i in 1:size(A, 1))
diag(A) = [A[i, i] for i in 1:min(size(A, 1), size(A, 2))]
Core.times(xs...) = reduce((a, b) -> a * b, xs)

# map over tuples in Zyla, so that it is differentiable (pullback rules use it)
ntuple(f, n) = n == 0 ? () : (ntuple(f, n - 1)..., f(n))
map(f, t::Tuple) = ntuple(i -> f(t[i]), length(t))
map(f, a::Tuple, b::Tuple) = ntuple(i -> f(a[i], b[i]), length(a))
