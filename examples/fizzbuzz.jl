# FizzBuzz learned by a small network (after the Flux model zoo's example): the inputs
# are n mod 3, n mod 5 and n mod 15, the classes "fizz", "buzz", "fizzbuzz" and "else".
using Flux, Random

fast = "--fast" in ARGS

function fizzbuzz(n::Int)
    n % 15 == 0 && return "fizzbuzz"
    n % 3 == 0 && return "fizz"
    n % 5 == 0 && return "buzz"
    return "else"
end

const LABELS = ("fizz", "buzz", "fizzbuzz", "else")

features(n::Int) = Float32[n % 3, n % 5, n % 15]
features(ns::AbstractVector) = reduce(hcat, [features(n) for n in ns])

X = features(1:100)
Y = Flux.onehotbatch(fizzbuzz.(1:100), LABELS)

Random.seed!(3)
model = Chain(Dense(3 => 16, relu), Dense(16 => 4))
loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
opt_state = Flux.setup(Adam(0.03), model)
data = [(X, Y)]

println("initial loss ", round(loss(model, X, Y); digits=4))
for epoch in 1:(fast ? 150 : 1000)
    Flux.train!(loss, model, data, opt_state)
end
println("final loss ", round(loss(model, X, Y); digits=4))

predict(n) = Flux.onecold(model(features(n)), LABELS)
out = [predict(n) == "else" ? string(n) : predict(n) for n in 1:20]
println(join(out, " "))
accuracy = sum(Flux.onecold(model(X), LABELS) .== fizzbuzz.(1:100)) / 100
println("accuracy on 1:100: ", accuracy)
@assert accuracy >= (fast ? 0.9 : 1.0) "fizzbuzz was not learned"
