# MLDatasets: MNIST, FashionMNIST and CIFAR10 read from local files (lang/core/datasets.py
# finds and reads them: nothing is downloaded). `d.features` is W×H×N (×C×N for CIFAR10)
# of Tx in [0, 1], `d.targets` the labels 0-9; `d[i]` and `d[1:10]` are
# (features = ..., targets = ...), `length(d)` the number of observations. Each dataset is
# its own type, as in MLDatasets (`data::MNIST` in a signature).
struct MNIST
    split::Symbol
    features
    targets
end
struct FashionMNIST
    split::Symbol
    features
    targets
end
struct CIFAR10
    split::Symbol
    features
    targets
end

function Core.dataset_arrays(name, split, Tx, dir)
    raw, targets = Core.load_dataset(name, split, dir)
    (Tx.(raw) ./ Tx(255), targets)
end
MNIST(; split = :train, Tx = Float32, dir = nothing) =
    MNIST(split, Core.dataset_arrays("MNIST", split, Tx, dir)...)
MNIST(split::Symbol; kw...) = MNIST(; split = split, kw...)
FashionMNIST(; split = :train, Tx = Float32, dir = nothing) =
    FashionMNIST(split, Core.dataset_arrays("FashionMNIST", split, Tx, dir)...)
FashionMNIST(split::Symbol; kw...) = FashionMNIST(; split = split, kw...)
CIFAR10(; split = :train, Tx = Float32, dir = nothing) =
    CIFAR10(split, Core.dataset_arrays("CIFAR10", split, Tx, dir)...)
CIFAR10(split::Symbol; kw...) = CIFAR10(; split = split, kw...)

const MLDataset = Union{MNIST, FashionMNIST, CIFAR10}
Base.length(d::MLDataset) = length(d.targets)
Core.obs(x::AbstractArray, i) = selectdim(x, ndims(x), i)
Base.getindex(d::MLDataset, i) = (features = Core.obs(d.features, i), targets = d.targets[i])
Base.show(io::IO, d::MLDataset) =
    print(io, "dataset ", typeof(d), ":\n  metadata  =>    Dict{String, Any} with 0 entries\n",
          "  split     =>    :", d.split, "\n  features  =>    ",
          join(size(d.features), "×"), " Array{", eltype(d.features), ", ",
          ndims(d.features), "}\n  targets   =>    ", length(d.targets), "-element Vector{Int64}")
