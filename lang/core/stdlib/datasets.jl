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

# Iris and BostonHousing (MLDatasets' tabular datasets) as matrices, one observation per
# column: `Iris(as_df = false)` has `features` 4×150 and `targets` a 1×150 matrix of class
# names; `BostonHousing(as_df = false)` 13×506 and 1×506 (median values). MLDatasets'
# default, a DataFrame (one observation per row), is not available: a clear error, not
# matrices of the other orientation.
struct Iris
    features
    targets
end
struct BostonHousing
    features
    targets
end
Core.no_dataframes(name) =
    throw(ArgumentError("$name: DataFrames are not supported in Zyla; pass as_df = false " *
                        "(features and targets as matrices, one observation per column)"))
function Iris(; as_df = true, dir = nothing)
    as_df && Core.no_dataframes("Iris")
    X, y = Core.load_table("Iris", dir)
    Iris(X, reshape(y, 1, :))
end
function BostonHousing(; as_df = true, dir = nothing)
    as_df && Core.no_dataframes("BostonHousing")
    X, y = Core.load_table("BostonHousing", dir)
    BostonHousing(X, reshape(y, 1, :))
end
const TabularDataset = Union{Iris, BostonHousing}
Base.length(d::TabularDataset) = size(d.features, 2)
Base.getindex(d::TabularDataset, i) = (features = d.features[:, i], targets = d.targets[:, i])
