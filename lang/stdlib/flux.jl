# A Flux-compatible library written in Zyla: layers, activations, losses, optimisers.
# Loaded by `using Flux` (also NNlib, Optimisers names). Layers are plain structs, so
# their gradients are NamedTuples with the same field names, as in Flux.

# --- initialisation -------------------------------------------------------------------

glorot_uniform(dims...) = (rand(Float32, dims...) .- 0.5f0) .* (2 * sqrt(6.0f0 / Core.fan_sum(dims...)))
glorot_normal(dims...) = randn(Float32, dims...) .* sqrt(2.0f0 / Core.fan_sum(dims...))
Core.fan_sum(nout, nin) = Float32(nout + nin)
Core.fan_sum(nout) = Float32(nout + 1)
Core.fan_sum(k1, k2, cin, cout) = Float32(k1 * k2 * (cin + cout))

# --- activations (elementwise; broadcast them with `.`) ----------------------------------

relu(x) = max(x, zero(x))
leakyrelu(x, a=0.01f0) = x > 0 ? x : a * x
elu(x, a=1.0f0) = x > 0 ? x : a * (exp(x) - 1)
sigmoid(x) = 1 / (1 + exp(-x))
σ(x) = sigmoid(x)
softplus(x) = log1p(exp(-abs(x))) + max(x, zero(x))
swish(x) = x * sigmoid(x)
gelu(x) = x / 2 * (1 + tanh(0.7978845608f0 * (x + 0.044715f0 * x^3)))

function softmax(x; dims=1)
    e = exp.(x .- maximum(x; dims=dims))
    e ./ sum(e; dims=dims)
end
function logsoftmax(x; dims=1)
    s = x .- maximum(x; dims=dims)
    s .- log.(sum(exp.(s); dims=dims))
end

# --- layers -------------------------------------------------------------------------------

struct Dense
    weight
    bias
    σ
end
Dense(p::Pair, σ=identity; init=glorot_uniform, bias=true) =
    Dense(init(p.second, p.first), bias ? zeros(Float32, p.second) : nothing, σ)
Dense(nin::Integer, nout::Integer, σ=identity) = Dense(nin => nout, σ)
(d::Dense)(x) = d.σ.(d.weight * x .+ d.bias)

struct Chain
    layers
end
Chain(layers...) = Chain(layers)
(c::Chain)(x) = Core.applychain(c.layers, x)
Core.applychain(layers, x) = length(layers) == 0 ? x : Core.applychain(Core.tail(layers), layers[1](x))

flatten(x) = reshape(x, :, size(x, ndims(x)))

# --- losses --------------------------------------------------------------------------------

mse(ŷ, y) = sum(abs2.(ŷ .- y)) / length(y)
mae(ŷ, y) = sum(abs.(ŷ .- y)) / length(y)
crossentropy(ŷ, y; dims=1) = -sum(y .* log.(ŷ)) / size(y, 2)
logitcrossentropy(ŷ, y; dims=1) = -sum(y .* logsoftmax(ŷ; dims=dims)) / size(y, 2)
binarycrossentropy(ŷ, y) = -sum(y .* log.(ŷ) .+ (1 .- y) .* log.(1 .- ŷ)) / length(y)
logitbinarycrossentropy(ŷ, y) = sum((1 .- y) .* ŷ .- logsigmoid.(ŷ)) / length(y)
logsigmoid(x) = -softplus(-x)

onehotbatch(labels, classes) = Float32[l == c for c in classes, l in labels]
onehot(l, classes) = Float32[l == c for c in classes]
onecold(y, classes=1:size(y, 1)) = [classes[argmax(y[:, j])] for j in 1:size(y, 2)]

# --- optimisers (Optimisers.jl style: setup, then update! in place) --------------------------

mutable struct Descent
    eta
end
Descent() = Descent(0.1)

mutable struct Momentum
    eta
    rho
end
Momentum(η=0.01, ρ=0.9) = Momentum(η, ρ)

mutable struct Adam
    eta
    beta
    epsilon
end
Adam(η=0.001, β=(0.9, 0.999), ϵ=1.0e-8) = Adam(η, β, ϵ)

mutable struct Leaf
    rule
    state
end

Core.opt_init(o::Descent, x) = nothing
Core.opt_init(o::Momentum, x) = zero(x)
Core.opt_init(o::Adam, x) = (zero(x), zero(x), [o.beta[1], o.beta[2]])

function Core.opt_apply!(o::Descent, st, x, dx)
    x .-= o.eta .* dx
    nothing
end
function Core.opt_apply!(o::Momentum, v, x, dx)
    v .= o.rho .* v .+ o.eta .* dx
    x .-= v
    nothing
end
function Core.opt_apply!(o::Adam, st, x, dx)
    mt, vt, βt = st
    β1, β2 = o.beta
    mt .= β1 .* mt .+ (1 - β1) .* dx
    vt .= β2 .* vt .+ (1 - β2) .* abs2.(dx)
    x .-= o.eta .* (mt ./ (1 - βt[1])) ./ (sqrt.(vt ./ (1 - βt[2])) .+ o.epsilon)
    βt[1] = βt[1] * β1
    βt[2] = βt[2] * β2
    nothing
end

setup(rule, x::AbstractArray) = Leaf(rule, Core.opt_init(rule, x))
setup(rule, x::Number) = nothing
setup(rule, x::Nothing) = nothing
setup(rule, x::Function) = nothing
setup(rule, x::Tuple) = map(c -> setup(rule, c), x)
setup(rule, x) = Core.fieldmap(c -> setup(rule, c), x)

update!(s::Leaf, x::AbstractArray, dx::AbstractArray) = Core.opt_apply!(s.rule, s.state, x, dx)
update!(s::Leaf, x, dx::Nothing) = nothing
update!(s::Nothing, x, dx) = nothing
function update!(s::Tuple, x::Tuple, dx)
    dx === nothing && return nothing
    for i in 1:length(x)
        update!(s[i], x[i], dx[i])
    end
    nothing
end
function update!(s::NamedTuple, x, dx)
    dx === nothing && return nothing
    for k in keys(s)
        update!(getproperty(s, k), getproperty(x, k), getproperty(dx, k))
    end
    nothing
end
