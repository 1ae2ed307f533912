# Flux's quickstart: learn XOR of two noisy inputs with a small network (BatchNorm and
# softmax included), trained with Adam on minibatches under a progress bar.
# https://fluxml.ai/Flux.jl/stable/guide/models/quickstart/ — unchanged except for the
# number of epochs in the --fast variant the tests run.
using Flux, Statistics, ProgressMeter, Random

fast = "--fast" in ARGS
Random.seed!(1)

noisy = rand(Float32, 2, 1000)                                    # 2×1000 Matrix{Float32}
truth = [xor(col[1] > 0.5, col[2] > 0.5) for col in eachcol(noisy)]   # 1000-element Vector{Bool}

model = Chain(
    Dense(2 => 3, tanh),      # activation function inside layer
    BatchNorm(3),
    Dense(3 => 2),
    softmax) |> gpu

out1 = model(noisy |> gpu) |> cpu                                 # 2×1000 Matrix{Float32}
probs1 = softmax(out1)      # normalise to get probabilities
println("accuracy before training: ", mean((probs1[1, :] .> 0.5) .== truth))

target = Flux.onehotbatch(truth, [true, false])                   # 2×1000 one-hot matrix
loader = Flux.DataLoader((noisy, target) |> gpu, batchsize=64, shuffle=true)

opt_state = Flux.setup(Flux.Adam(0.01), model)

losses = []
@showprogress for epoch in 1:(fast ? 12 : 1_000)
    for xy_cpu in loader
        # unpack batch of data, and move to GPU:
        x, y = xy_cpu |> gpu
        loss, grads = Flux.withgradient(model) do m
            # evaluate model and loss inside gradient context:
            y_hat = m(x)
            Flux.crossentropy(y_hat, y)
        end
        Flux.update!(opt_state, model, grads[1])
        push!(losses, loss)  # logging, outside gradient context
    end
end

out2 = model(noisy |> gpu) |> cpu                                 # first row is prob. of true, second row p(false)
probs2 = softmax(out2)      # normalise to get probabilities
acc = mean((probs2[1, :] .> 0.5) .== truth)
println("accuracy after training: ", acc)
println("loss: first epoch ", round(mean(losses[1:16]); digits=4), ", last epoch ",
        round(mean(losses[end-15:end]); digits=4))
@assert acc > (fast ? 0.85 : 0.95) "the quickstart model did not learn XOR"
