# A LeNet-style convolutional network classifying the 8×8 handwritten digits that ship
# in data/ (UCI Optical Recognition of Handwritten Digits, CC BY 4.0).
#
#   zyla run examples/cnn_digits.jl          # full run: 12 epochs, ≥ 95% test accuracy
#   zyla run examples/cnn_digits.jl --fast   # the quick variant the test suite runs
#
# Each training step (forward, backward through the convolutions and pooling) is one
# XLA executable; Flux.update! applies Adam on the host.
using Flux, Random, Statistics
include("digits_data.jl")

fast = "--fast" in ARGS
epochs = fast ? 2 : 12

xtrain, ytrain, xtest, ytest = digit_images()  # 8×8×1×N images, Flux's layout
Ytrain = Flux.onehotbatch(ytrain, 0:9)

Random.seed!(0)
model = Chain(
    Conv((3, 3), 1 => 16, relu; pad=1),    # 8×8×16
    MaxPool((2, 2)),                        # 4×4×16
    Conv((3, 3), 16 => 32, relu; pad=1),   # 4×4×32
    MaxPool((2, 2)),                        # 2×2×32
    Flux.flatten,                           # 128
    Dense(128 => 64, relu),
    Dense(64 => 10),
)

loss(m, x, y) = Flux.logitcrossentropy(m(x), y)
accuracy(m, x, labels) = mean(Flux.onecold(m(x), 0:9) .== labels)

opt_state = Flux.setup(Adam(0.003), model)
# partial=false drops the last incomplete batch, so one executable serves every step
loader = Flux.DataLoader((xtrain, Ytrain); batchsize=32, shuffle=true, partial=false)

println("training on ", size(xtrain, 4), " images, testing on ", size(xtest, 4))
t0 = time()
for epoch in 1:epochs
    Flux.train!(loss, model, loader, opt_state)
    println("epoch ", lpad(epoch, 2), "  loss ", round(loss(model, xtrain, Ytrain); digits=4),
            "  test accuracy ", round(100 * accuracy(model, xtest, ytest); digits=2), "%")
end
acc = accuracy(model, xtest, ytest)
println("trained in ", round(time() - t0; digits=1), " s; test accuracy ", round(100 * acc; digits=2), "%")
@assert acc >= (fast ? 0.80 : 0.95) "the CNN did not reach its accuracy target"
