# A VGG-style network on random input, as in XLA.jl's paper ("Automatic Full
# Compilation of Julia Programs and ML Models to Cloud TPUs", Fischer & Saba 2018),
# at small sizes: 3×3 convolutions with ReLU and 2×2 max pooling configured like
# torchvision's VGG11, then dense layers. The forward pass and the gradient of a
# cross-entropy loss each compile to one XLA executable; a few SGD steps on random
# labels must lower the loss.
#
#   zyla run examples/vgg.jl          # VGG11 layout at 1/4 width, 64×64 images, batch 16
#   zyla run examples/vgg.jl --fast   # three small blocks, 32×32 images, batch 4
using Flux, Random, Statistics

fast = "--fast" in ARGS
# channel counts, :M for a max pooling
config = fast ? [8, :M, 16, :M, 32, :M] :
                [16, :M, 32, :M, 64, 64, :M, 128, 128, :M, 128, 128, :M]
side, batch = fast ? (32, 4) : (64, 16)

function vgg_features(config, cin)
    layers = []
    for c in config
        if c === :M
            push!(layers, MaxPool((2, 2)))
        else
            push!(layers, Conv((3, 3), cin => c, relu; pad=1))
            cin = c
        end
    end
    Chain(layers...), cin
end

Random.seed!(0)
features, cout = vgg_features(config, 3)
npool = count(c -> c === :M, config)
flat = cout * (side ÷ 2^npool)^2
model = Chain(features, Flux.flatten, Dense(flat => 64, relu), Dense(64 => 64, relu), Dense(64 => 10))

x = randn(Float32, side, side, 3, batch)
y = Flux.onehotbatch(rand(0:9, batch), 0:9)
loss(m, x, y) = Flux.logitcrossentropy(m(x), y)

# (timed with time() around top-level calls, which are the ones Zyla compiles)
forward(m, x) = m(x)
t0 = time()
out = forward(model, x)
println("forward: output ", size(out), ", first call (compile + run) ", round(time() - t0; digits=2), " s")
nrep = fast ? 3 : 10
t0 = time()
for i in 1:nrep
    forward(model, x)
end
println("forward: ", round(1000 * (time() - t0) / nrep; digits=1), " ms per batch of ", batch)

lossgrad(m, x, y) = Flux.withgradient(m -> loss(m, x, y), m)
t0 = time()
l0, g = lossgrad(model, x, y)
println("gradient: first call (compile + run) ", round(time() - t0; digits=2), " s")
opt_state = Flux.setup(Descent(0.01), model)
tsteps = 0.0
l1 = l0
for step in 1:nrep
    Flux.update!(opt_state, model, g[1])
    t0 = time()
    l, grads = lossgrad(model, x, y)
    global tsteps = tsteps + (time() - t0)
    global l1, g = l, grads
end
println("gradient: ", round(1000 * tsteps / nrep; digits=1), " ms per step")
println("loss on the random batch: ", round(l0; digits=4), " → ", round(l1; digits=4))
@assert l1 < l0 "SGD did not lower the loss"
