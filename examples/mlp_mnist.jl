# A multilayer perceptron on MNIST, as in Flux's model zoo (vision/mlp_mnist): the images
# come from MLDatasets, are flattened into columns and classified into 10 digits.
#
#   zyla run examples/mlp_mnist.jl          # full run
#   zyla run examples/mlp_mnist.jl --fast   # the quick variant the test suite runs
#   ZYLA_DATA=~/datasets zyla run examples/mlp_mnist.jl   # on real MNIST
#
# The data: real MNIST does not ship with Zyla, and Zyla does not download. The program
# first asks MLDatasets for MNIST itself, which Zyla looks for in $ZYLA_DATA/MNIST/ (the
# four files train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
# t10k-labels-idx1-ubyte, plain or .gz) and then in ./data/MNIST/. When neither holds
# them it reads the same four files from data/DigitsMNIST/: the 8×8 UCI handwritten
# digits of data/digits.csv (CC BY 4.0; 1347 training and 450 test images) written in
# MNIST's format by scripts/make_digits_mnist.py. (A Julia program would test
# `haskey(ENV, "ZYLA_DATA")`; Zyla programs cannot read the environment, so this one
# catches the SystemError of the missing files instead.)
using Flux, MLDatasets, Random, Statistics
using Flux: onehotbatch, onecold, logitcrossentropy, DataLoader

fast = "--fast" in ARGS

Base.@kwdef mutable struct Args
    η::Float64 = 3e-3       # learning rate
    batchsize::Int = 64     # batch size
    epochs::Int = 20        # number of epochs
    hidden::Int = 64        # width of the hidden layer
end

"""MNIST's `split` (:train or :test): the real files if the user has them, else the digits."""
function mnist(split)
    try
        MLDatasets.MNIST(; split)
    catch e
        e isa SystemError || rethrow()
        MLDatasets.MNIST(; split, dir=joinpath(@__DIR__, "..", "data", "DigitsMNIST"))
    end
end

function getdata(args)
    train, test = mnist(:train), mnist(:test)
    xtrain, ytrain = train[:]       # W×H×N images in [0, 1], labels 0-9
    xtest, ytest = test[:]
    imgsize = size(xtrain)[1:2]
    println("MNIST: ", size(xtrain, 3), " training and ", size(xtest, 3), " test images of ",
            join(imgsize, "×"), " pixels")
    # one column per image, one-hot labels
    xtrain, xtest = Flux.flatten(xtrain), Flux.flatten(xtest)
    ytrain, ytest = onehotbatch(ytrain, 0:9), onehotbatch(ytest, 0:9)
    # partial=false: every training batch has the same size, so one executable serves all
    train_loader = DataLoader((xtrain, ytrain); batchsize=args.batchsize, shuffle=true,
                              partial=false)
    test_loader = DataLoader((xtest, ytest); batchsize=args.batchsize)
    train_loader, test_loader, imgsize
end

build_model(; imgsize=(28, 28), hidden=64, nclasses=10) =
    Chain(Dense(prod(imgsize) => hidden, relu), Dense(hidden => nclasses))

function loss_and_accuracy(data_loader, model)
    acc, ls, num = 0, 0.0f0, 0
    for (x, y) in data_loader
        ŷ = model(x)
        ls += logitcrossentropy(ŷ, y; agg=sum)
        acc += sum(onecold(ŷ) .== onecold(y))
        num += size(x)[end]
    end
    ls / num, acc / num
end

function train(; kws...)
    args = Args(; kws...)
    Random.seed!(0)
    train_loader, test_loader, imgsize = getdata(args)
    model = build_model(; imgsize, args.hidden)
    opt_state = Flux.setup(Adam(args.η), model)
    for epoch in 1:args.epochs
        for (x, y) in train_loader
            gs = gradient(m -> logitcrossentropy(m(x), y), model)
            Flux.update!(opt_state, model, gs[1])
        end
        if epoch % (fast ? 1 : 5) == 0
            train_loss, train_acc = loss_and_accuracy(train_loader, model)
            test_loss, test_acc = loss_and_accuracy(test_loader, model)
            println("epoch ", lpad(epoch, 2), "  train loss ", round(train_loss; digits=4),
                    " acc ", round(train_acc; digits=3), "  test loss ",
                    round(test_loss; digits=4), " acc ", round(test_acc; digits=3))
        end
    end
    model, test_loader
end

t0 = time()
model, test_loader = train(; epochs=fast ? 5 : 20)
_, acc = loss_and_accuracy(test_loader, model)
println("trained in ", round(time() - t0; digits=1), " s; test accuracy ", round(100 * acc; digits=2), "%")
@assert acc >= (fast ? 0.85 : 0.95) "the MLP did not reach its accuracy target"
