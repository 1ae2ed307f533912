# The first gradient of a fresh program (bench/compile_bench.py times `zyla run` of this
# file): the MLP of the benchmark suite, one cross-entropy gradient, printed.
using Flux, Random
Random.seed!(0)
model = Chain(Dense(784 => 512, relu), Dense(512 => 512, relu), Dense(512 => 10))
x = randn(Float32, 784, 128)
y = Flux.onehotbatch(rand(0:9, 128), 0:9)
g = gradient(m -> Flux.logitcrossentropy(m(x), y), model)
println(sum(g[1].layers[1].weight))
