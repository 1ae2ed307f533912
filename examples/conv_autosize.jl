# A convolutional network whose layer sizes Flux works out: `@autosize` runs the layers on
# an input of the given size and fills each `_` with the number of features that reaches
# it (the channels after a Conv, the length after flatten). The data: the 8×8 handwritten
# digits in data/ (UCI Optical Recognition of Handwritten Digits, CC BY 4.0).
#
#   zyla run examples/conv_autosize.jl          # full run
#   zyla run examples/conv_autosize.jl --fast   # the quick variant the test suite runs
using Flux, Random, Statistics
using Flux: onehotbatch, onecold, logitcrossentropy
include("digits_data.jl")

fast = "--fast" in ARGS
epochs = fast ? 3 : 15

xtrain, ytrain, xtest, ytest = digit_images()  # 8×8×1×N images, Flux's layout
Ytrain = onehotbatch(ytrain, 0:9)

Random.seed!(0)
# only the input's size is written down: every `_` below is filled in by @autosize
model = @autosize (8, 8, 1, 1) Chain(
    Conv((3, 3), 1 => 16, relu; pad=SamePad()),   # 8×8×16
    BatchNorm(_),
    MaxPool((2, 2)),                              # 4×4×16
    Conv((3, 3), _ => 32, relu; pad=1),           # 4×4×32
    MaxPool((2, 2)),                              # 2×2×32
    Flux.flatten,                                 # 128
    Dropout(0.2),
    Dense(_ => 64, relu),
    Dense(_ => 10),
)
println("the sizes @autosize found: ", size(model[4].weight), " (a Conv's kernel), ",
        size(model[8].weight), " (the first Dense)")
@assert size(model[8].weight) == (64, 2 * 2 * 32)

accuracy(m, x, labels) = mean(onecold(m(x), 0:9) .== labels)

opt_state = Flux.setup(AdamW(3e-3, (0.9, 0.999), 1e-4), model)
loader = Flux.DataLoader((xtrain, Ytrain); batchsize=32, shuffle=true, partial=false)

t0 = time()
for epoch in 1:epochs
    Flux.trainmode!(model)
    losses = Float32[]
    for (x, y) in loader
        loss, grads = Flux.withgradient(model) do m
            logitcrossentropy(m(x), y)
        end
        Flux.update!(opt_state, model, grads[1])
        push!(losses, loss)
    end
    Flux.testmode!(model)
    if epoch % (fast ? 1 : 3) == 0
        println("epoch ", lpad(epoch, 2), "  mean loss ", round(mean(losses); digits=4),
                "  test accuracy ", round(100 * accuracy(model, xtest, ytest); digits=2), "%")
    end
end
acc = accuracy(model, xtest, ytest)
println("trained in ", round(time() - t0; digits=1), " s; test accuracy ", round(100 * acc; digits=2), "%")
@assert acc >= (fast ? 0.85 : 0.97) "the CNN did not reach its accuracy target"
