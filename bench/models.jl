# Models of the benchmark suite (bench/run.py), written with Zyla's Flux-style library.
# The driver sets `side`, `batch` (and for VGG19 `config`) before including this file's
# users; everything here is a plain Julia function of the model and the data.
using Flux, Random, Statistics

loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
forward(m, x) = m(x)
# the gradient of the cross-entropy loss with respect to every parameter
lossgrad(m, x, y) = gradient(m -> loss(m, x, y), m)[1]

# one SGD step as a pure function, so gradient and update are one executable:
# the new model is built from the old one and its gradient
# (a layer without parameters, MaxPool or a function, has the gradient `nothing`; a method
# `sgd(l::MaxPool, g, η)` beside the first would make that call ambiguous, as in Julia)
sgd(l, g::Nothing, η) = l
sgd(d::Dense, g, η) = Dense(d.weight .- η .* g.weight, d.bias .- η .* g.bias, d.σ)
sgd(c::Conv, g, η) = Conv(c.σ, c.weight .- η .* g.weight, c.bias .- η .* g.bias,
                          c.stride, c.pad, c.dilation, c.groups)
sgd(c::Chain, g, η) = Chain(map((l, gl) -> sgd(l, gl, η), c.layers, g.layers))
train_step(m, x, y, η) = sgd(m, lossgrad(m, x, y), η)

# VGG: 3×3 convolutions with ReLU (padding 1) and 2×2 max pooling, as in Simonyan &
# Zisserman's configuration E (VGG19) used by XLA.jl's paper; `:M` is a pooling
function vgg(config, side, nclasses, hidden=4096)
    layers = []
    cin = 3
    for c in config
        if c === :M
            push!(layers, MaxPool((2, 2)))
        else
            push!(layers, Conv((3, 3), cin => c, relu; pad=1))
            cin = c
        end
    end
    npool = count(c -> c === :M, config)
    flat = cin * (side ÷ 2^npool)^2
    Chain(layers..., Flux.flatten, Dense(flat => hidden, relu), Dense(hidden => hidden, relu),
          Dense(hidden => nclasses))
end

# the smoke-test stand-in of `bench/run.py --quick`: three blocks, narrow
vgg_quick_config = [8, :M, 16, :M, 32, :M]
vgg19_config = [64, 64, :M, 128, 128, :M, 256, 256, 256, 256, :M,
                512, 512, 512, 512, :M, 512, 512, 512, 512, :M]

mlp() = Chain(Dense(784 => 512, relu), Dense(512 => 512, relu), Dense(512 => 10))

# LeNet-5 style, on 28×28 single-channel images
lenet() = Chain(Conv((5, 5), 1 => 6, relu), MaxPool((2, 2)),
                Conv((5, 5), 6 => 16, relu), MaxPool((2, 2)),
                Flux.flatten, Dense(256 => 120, relu), Dense(120 => 84, relu), Dense(84 => 10))
