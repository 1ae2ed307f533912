# The 8×8 handwritten digits (data/digits.csv, see data/README.md): a reader and a fixed
# train/test split, shared by mlp_digits.jl, cnn_digits.jl, finetune_digits.jl,
# conv_autosize.jl and vae.jl.
using Random

"""
    load_digits(path) -> (X, labels)

Read the CSV file of 1797 rows, 64 pixel values in 0..16 and a label 0..9 each. Returns
the images as a 64×1797 Float32 matrix scaled to [0, 1] (one column per image) and the
labels as a vector of Ints.
"""
function load_digits(path)
    A = readdlm(path, ',', Float32)
    X = permutedims(A[:, 1:64]) ./ 16.0f0
    labels = Int.(A[:, 65])
    X, labels
end

"""
    split_digits(X, labels, perm; ntest=450) -> (Xtrain, ytrain, Xtest, ytest)

Hold out the images `perm[1:ntest]` for testing and train on the rest (`perm` is a
permutation of the samples, e.g. `randperm` after `Random.seed!(1)`).
"""
function split_digits(X, labels, perm; ntest=450)
    test, train = perm[1:ntest], perm[ntest+1:end]
    X[:, train], labels[train], X[:, test], labels[test]
end

"""
    digit_images() -> (xtrain, ytrain, xtest, ytest)

The digits split as above (the permutation drawn after `Random.seed!(1)`), the images in
Flux's layout: width × height × channels × batch (8×8×1×N).
"""
function digit_images()
    X, labels = load_digits(digits_path())
    Random.seed!(1)
    Xtrain, ytrain, Xtest, ytest = split_digits(X, labels, randperm(length(labels)))
    images(X) = reshape(X, 8, 8, 1, size(X, 2))
    images(Xtrain), ytrain, images(Xtest), ytest
end

digits_path() = joinpath(@__DIR__, "..", "data", "digits.csv")
