# A multilayer perceptron classifying the 8×8 handwritten digits in data/ (UCI Optical
# Recognition of Handwritten Digits, CC BY 4.0): 64 pixels → 64 → 10 classes.
#
#   zyla run examples/mlp_digits.jl          # full run
#   zyla run examples/mlp_digits.jl --fast   # the quick variant the test suite runs
using Flux, Random, Statistics
include("digits_data.jl")

fast = "--fast" in ARGS
epochs = fast ? 3 : 20

X, labels = load_digits(digits_path())
Random.seed!(1)
Xtrain, ytrain, Xtest, ytest = split_digits(X, labels, randperm(length(labels)))
Ytrain = Flux.onehotbatch(ytrain, 0:9)

Random.seed!(0)
model = Chain(Dense(64 => 64, relu), Dense(64 => 10))
loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
accuracy(m, x, labels) = mean(Flux.onecold(m(x), 0:9) .== labels)

opt_state = Flux.setup(Adam(0.01), model)
loader = Flux.DataLoader((Xtrain, Ytrain); batchsize=64, shuffle=true, partial=false)

t0 = time()
for epoch in 1:epochs
    for (x, y) in loader
        grads = gradient(m -> loss(m, x, y), model)
        Flux.update!(opt_state, model, grads[1])
    end
    if epoch % (fast ? 1 : 5) == 0
        println("epoch ", lpad(epoch, 2), "  loss ", round(loss(model, Xtrain, Ytrain); digits=4))
    end
end
acc = accuracy(model, Xtest, ytest)
println("trained in ", round(time() - t0; digits=1), " s; test accuracy ", round(100 * acc; digits=2), "%")
@assert acc >= (fast ? 0.85 : 0.95) "the MLP did not reach its accuracy target"
