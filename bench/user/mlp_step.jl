# An MLP trained with SGD, written as a user writes it: the model is a global, the step
# a function, and the steps are timed with @elapsed inside a function (the user path) and
# at top level (the path calls written at top level always took). `zyla run mlp_step.jl N`
# times 5 rounds of N steps each way and prints the medians in milliseconds; `zyla run
# --devices 2 mlp_step.jl N shard` splits the batch over the devices (also of several
# processes).
using Flux, Random, Statistics

nsteps = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 20
Random.seed!(1)
model = Chain(Dense(784 => 512, relu), Dense(512 => 512, relu), Dense(512 => 10))
x = randn(Float32, 784, 128)
y = Flux.onehotbatch(rand(0:9, 128), 0:9)
if length(ARGS) > 1 && ARGS[2] == "shard"  # data-parallel: the batch split over the devices
    x = Zyla.shard_batch(x)
    y = Zyla.shard_batch(Float32.(y))
end

loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
sgd(l, g::Nothing, η) = l
sgd(l::Function, g, η) = l
sgd(d::Dense, g, η) = Dense(d.weight .- η .* g.weight, d.bias .- η .* g.bias, d.σ)
sgd(c::Chain, g, η) = Chain(map((l, gl) -> sgd(l, gl, η), c.layers, g.layers))
step(m, x, y) = sgd(m, gradient(m -> loss(m, x, y), m)[1], 0.01f0)

function train(m, n)
    times = Float64[]
    for i in 1:n
        t = @elapsed m = step(m, x, y)
        push!(times, t)
    end
    m, times
end

m, _ = train(model, 3)             # warm-up: compiles the step
fn_times = Float64[]
top = Float64[]
for round in 1:5                   # the two ways alternate: the machine's drift hits both
    global m
    m, ts = train(m, nsteps)
    append!(fn_times, ts)
    for i in 1:nsteps
        t0 = time()
        m = step(m, x, y)
        push!(top, time() - t0)
    end
end
println("function_ms ", 1000 * median(fn_times))
println("toplevel_ms ", 1000 * median(top))
println("loss ", loss(m, x, y))
