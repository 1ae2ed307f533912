# VGG19's forward pass as a user writes it: the model and the batch are globals, and a
# function of no arguments runs the network (`work() = sum(model(x))`), timed with
# @elapsed. `zyla run vgg_forward.jl SIDE BATCH REPS [quick]`; prints the median seconds.
using Flux, Random, Statistics

side = parse(Int, ARGS[1])
batch = parse(Int, ARGS[2])
reps = parse(Int, ARGS[3])
quick = length(ARGS) > 3

function vgg(config, side, nclasses, hidden)
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

config = quick ? [8, :M, 16, :M, 32, :M] :
    [64, 64, :M, 128, 128, :M, 256, 256, 256, 256, :M, 512, 512, 512, 512, :M,
     512, 512, 512, 512, :M]
Random.seed!(0)
model = vgg(config, side, 1000, quick ? 64 : 4096)
x = randn(Float32, side, side, 3, batch)

work() = sum(model(x))
work()                                  # the first call compiles
times = [@elapsed(work()) for i in 1:reps]
println("seconds ", median(times))
