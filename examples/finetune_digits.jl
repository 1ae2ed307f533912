# Fine-tuning, as Flux's documentation writes it: a convolutional network sized by
# @autosize (each `_` is the size that reaches the layer), trained on the 8×8 digits that
# ship in data/, then its convolutional part frozen with Optimisers.freeze! while a new
# classifier head is trained on top of it.
#
#   zyla run examples/finetune_digits.jl          # full run
#   zyla run examples/finetune_digits.jl --fast   # the quick variant the test suite runs
using Flux, Random, Statistics
include("digits_data.jl")

fast = "--fast" in ARGS
epochs = fast ? 2 : 8

xtrain, ytrain, xtest, ytest = digit_images()  # 8×8×1×N images, Flux's layout
Ytrain = Flux.onehotbatch(ytrain, 0:9)

Random.seed!(0)
model = @autosize (8, 8, 1, 32) Chain(
    Conv((3, 3), _ => 16, relu; pad=1),
    MaxPool((2, 2)),
    Flux.flatten,
    Dense(_ => 32, relu),
    Dense(_ => 10),
)
println("the first dense layer takes ", size(model[4].weight, 2), " inputs: ",
        Flux.outputsize(model[1:3], (8, 8, 1); padbatch=true))

loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
accuracy(m, x, labels) = mean(Flux.onecold(m(x), 0:9) .== labels)
loader = Flux.DataLoader((xtrain, Ytrain); batchsize=32, shuffle=true, partial=false)

opt_state = Flux.setup(Adam(0.003), model)
for epoch in 1:epochs
    Flux.train!(loss, model, loader, opt_state)
end
base = accuracy(model, xtest, ytest)
println("trained: test accuracy ", round(100 * base; digits=2), "%")

# a new head; the convolution keeps what it learned
model = Chain(model.layers[1:3]..., Dense(size(model[4].weight, 2) => 10))
opt_state = Flux.setup(Adam(0.003), model)
Flux.freeze!(opt_state.layers[1])
conv_before = copy(model[1].weight)
for epoch in 1:epochs
    Flux.train!(loss, model, loader, opt_state)
end
acc = accuracy(model, xtest, ytest)
@assert model[1].weight == conv_before "a frozen layer moved"
println("fine-tuned head on the frozen convolution: test accuracy ", round(100 * acc; digits=2), "%")
@assert acc >= (fast ? 0.75 : 0.9) "the fine-tuned network did not reach its accuracy target"
