# A Flux-compatible library written in Zyla: layers, activations, losses, optimisers,
# data loading and training. Loaded by `using Flux` (also NNlib, Optimisers, MLUtils,
# ProgressMeter names). The numerical kernels (convolution, pooling, activations) are
# primitives of lang/core/primitives_nn.py with their own rules; everything here is ordinary
# Zyla, so the AD differentiates it and the compile tier compiles it like user code.
#
# Layers are immutable structs, so their gradients are NamedTuples with the same field
# names, as in Flux. Parameters are Float32 and initialised as Flux does (Glorot uniform).
# The mutable part of BatchNorm and Dropout (train/test mode, running statistics) lives
# in a host cell, see `NNlib.modecell` in lang/core/primitives_nn.py.

# --- initialisation ------------------------------------------------------------------------

Core.nfan() = (1, 1)
Core.nfan(n) = (1, n)
Core.nfan(nout, nin) = (nin, nout)
Core.nfan(k1, cin, cout) = (k1 * cin, k1 * cout)
Core.nfan(k1, k2, cin, cout) = (k1 * k2 * cin, k1 * k2 * cout)
Core.nfan(k1, k2, k3, cin, cout) = (k1 * k2 * k3 * cin, k1 * k2 * k3 * cout)
Core.fansum(dims...) = Float32(sum(Core.nfan(dims...)))

glorot_uniform(dims::Integer...) = (rand(Float32, dims...) .- 0.5f0) .* sqrt(24.0f0 / Core.fansum(dims...))
glorot_normal(dims::Integer...) = randn(Float32, dims...) .* sqrt(2.0f0 / Core.fansum(dims...))
kaiming_uniform(dims::Integer...; gain=sqrt(2.0f0)) =
    (rand(Float32, dims...) .- 0.5f0) .* (2 * Float32(gain) * sqrt(3.0f0 / Core.nfan(dims...)[1]))
kaiming_normal(dims::Integer...; gain=sqrt(2.0f0)) =
    randn(Float32, dims...) .* (Float32(gain) / sqrt(Float32(Core.nfan(dims...)[1])))
nfan(dims::Integer...) = Core.nfan(dims...)
nfan(dims::Tuple) = Core.nfan(dims...)
# a matrix with orthonormal columns (or rows, when there are fewer rows), times gain: a
# Gaussian matrix orthonormalised column by column (modified Gram-Schmidt: the Q of its QR
# with R's diagonal positive, distributed as Flux's sign-fixed QR)
function orthogonal(rows::Integer, cols::Integer; gain::Real = 1)
    rows < cols && return permutedims(orthogonal(cols, rows; gain = gain))
    Q = randn(Float32, rows, cols)
    for j in 1:cols
        for k in 1:j-1
            Q[:, j] = Q[:, j] .- sum(Q[:, k] .* Q[:, j]) .* Q[:, k]
        end
        Q[:, j] = Q[:, j] ./ sqrt(sum(abs2, Q[:, j]))
    end
    Q .* Float32(gain)
end
orthogonal(d1::Integer, ds::Integer...; gain::Real = 1) =
    reshape(orthogonal(prod((d1, ds...)[1:end-1]), last((d1, ds...)); gain = gain), d1, ds...)
# normal samples drawn again until each lies in [lo, hi]
function truncated_normal(dims::Integer...; mean = 0, std = 1, lo = -2, hi = 2)
    x = randn(Float32, dims...) .* Float32(std) .+ Float32(mean)
    for i in eachindex(x)
        while !(lo <= x[i] <= hi)
            x[i] = randn(Float32) * Float32(std) + Float32(mean)
        end
    end
    x
end
zeros32(dims::Integer...) = zeros(Float32, dims...)
ones32(dims::Integer...) = ones(Float32, dims...)
rand32(dims::Integer...) = rand(Float32, dims...)
randn32(dims::Integer...) = randn(Float32, dims...)

Core.create_bias(bias::Bool, n) = bias ? zeros(Float32, n) : false
Core.create_bias(bias::AbstractArray, n) = bias
# Flux's create_bias(weights, bias, dims...): a bias of the weights' element type (true:
# zeros; an array: checked against dims and converted), or false for none
Core.create_bias(w::AbstractArray, bias::Bool, dims...) = bias ? zeros(eltype(w), dims...) : false
function Core.create_bias(w::AbstractArray, bias::AbstractArray, dims...)
    size(bias) == dims || throw(DimensionMismatch(string("expected bias of size ", dims,
                                                         ", got size ", size(bias))))
    eltype(bias) == eltype(w) ? bias : Core.eltype_convert(eltype(w), bias)
end
# the array x in element type T (a broadcast type call, which nested AD differentiates)
Core.eltype_convert(T, x) = T.(x)
Core.addbias(y, b::Bool) = y
Core.addbias(y, b) = y .+ b

# no accelerator placement: the compile tier decides where arrays live (primitives, so a
# top-level `model |> gpu` is not compiled and returns the model itself)
gpu = Flux.gpu
cpu = Flux.cpu

# Functors.fmap: f applied to every array of a model, the structs rebuilt around them
fmap(f, x::AbstractArray) = eltype(x) <: Number ? f(x) : map(c -> fmap(f, c), x)  # (a Vector of layers)
fmap(f, x::Tuple) = map(c -> fmap(f, c), x)
fmap(f, x::NamedTuple) = map(c -> fmap(f, c), x)
function fmap(f, x)
    cs = Functors.children(x)
    length(cs) == 0 ? x : Functors.rebuild(x, map(c -> fmap(f, c), cs))
end
Core.to_eltype(T, x::AbstractArray) = eltype(x) <: AbstractFloat && eltype(x) != T ? T.(x) : x
f32(m) = fmap(x -> Core.to_eltype(Float32, x), m)
f64(m) = fmap(x -> Core.to_eltype(Float64, x), m)

params(ms...) = error("Flux.params (implicit parameters, deprecated since Flux 0.15) is not supported: ",
                      "take explicit gradients, gradient(m -> loss(m, x, y), model), and update ",
                      "with Flux.setup/Flux.update!")
# Flux ≤ 0.14's Flux.Optimise.update!(x, Δ) on one array: x .-= Δ, as it was
function update!(x::AbstractArray, dx::AbstractArray)
    x .-= dx
    x
end
# Flux 0.16: a deprecation that returns its argument (recurrent layers keep no state; a
# sequence's state is initialstates(rnn) or passed in, rnn(x, h))
function reset!(m)
    Core.warn_once("reset!", "Flux.reset! is deprecated: recurrent layers keep no hidden " *
                   "state since Flux 0.15 (pass it explicitly: rnn(x, h)); it does nothing")
    m
end

# --- activations (NNlib): elementwise primitives, fast under broadcasting -----------------------

relu = NNlib.relu
relu6 = NNlib.relu6
leakyrelu = NNlib.leakyrelu
elu = NNlib.elu
selu = NNlib.selu
gelu = NNlib.gelu
sigmoid = NNlib.sigmoid
σ = NNlib.sigmoid
sigmoid_fast = NNlib.sigmoid
hardsigmoid = NNlib.hardsigmoid
hardσ = NNlib.hardsigmoid
hardtanh = NNlib.hardtanh
softplus = NNlib.softplus
logsigmoid = NNlib.logsigmoid
logσ = NNlib.logsigmoid
swish = NNlib.swish
softsign = NNlib.softsign
tanh_fast = tanh

function softmax(x; dims=1)
    e = exp.(x .- maximum(x; dims=dims))
    e ./ sum(e; dims=dims)
end
function logsoftmax(x; dims=1)
    s = x .- maximum(x; dims=dims)
    s .- log.(sum(exp.(s); dims=dims))
end
function logsumexp(x; dims=nothing)
    dims === nothing && return logsumexp(vec(x); dims=1)[1]
    m = maximum(x; dims=dims)
    m .+ log.(sum(exp.(x .- m); dims=dims))
end

# --- convolution and pooling (NNlib's functions; the primitives take positional geometry) ---

Core.expand(n, x::Integer) = ntuple(i -> x, n)
Core.expand(n, x::Tuple) = x

conv(x, w; stride=1, pad=0, dilation=1, flipped=false) = Core.conv(x, w, stride, pad, dilation, flipped)
# NNlib's batched product, C[:, :, k] = A[:, :, k] * B[:, :, k], written as the loop nest
# it is: the nest pass (backend/nests.py) makes it one batched dot
function batched_mul(A::AbstractArray, B::AbstractArray)
    ndims(A) == 3 && ndims(B) == 3 ||
        throw(ArgumentError("batched_mul takes two 3-dimensional arrays"))
    size(A, 2) == size(B, 1) && size(A, 3) == size(B, 3) ||
        throw(DimensionMismatch("batched_mul: sizes $(size(A)) and $(size(B)) do not match"))
    C = zeros(promote_type(eltype(A), eltype(B)), size(A, 1), size(B, 2), size(A, 3))
    for k in axes(A, 3), j in axes(B, 2), i in axes(A, 1)
        s = zero(eltype(C))
        for p in axes(A, 2)
            s += A[i, p, k] * B[p, j, k]
        end
        C[i, j, k] = s
    end
    C
end
maxpool(x, k::Tuple; pad=0, stride=k) = Core.maxpool(x, k, stride, pad)
meanpool(x, k::Tuple; pad=0, stride=k) = Core.meanpool(x, k, stride, pad)

# --- layers ------------------------------------------------------------------------------------

"""
    Dense(in => out, σ = identity; bias = true, init = glorot_uniform)
    Dense(W::AbstractMatrix, bias = true, σ = identity)

A fully connected layer: `d(x) = σ.(W * x .+ b)` with `W` of size `out × in` (Float32 by
default). `x` may be a vector, a matrix with one column per sample, or an array whose first
dimension is `in` (the rest are batch dimensions). Float64 input is converted to the
layer's Float32, as Flux does.

    d = Dense(5 => 2, relu)
    d(rand(Float32, 5, 64))   # 2×64 Matrix{Float32}
"""
struct Dense{F, M<:AbstractMatrix, B}
    weight::M
    bias::B
    σ::F
    # Dense(W, b, σ): b true (zeros of W's type), false (none) or a vector of size(W, 1)
    function Dense(W::AbstractMatrix, bias=true, σ=identity)
        b = Core.create_bias(W, bias, size(W, 1))
        new{typeof(σ), typeof(W), typeof(b)}(W, b, σ)
    end
end
function Dense(p::Pair, σ=identity; init=glorot_uniform, bias=true)
    w = init(p.second, p.first)
    Dense(w, bias, σ)
end
Dense(nin::Integer, nout::Integer, σ=identity; init=glorot_uniform, bias=true) =
    Dense(nin => nout, σ; init=init, bias=bias)
# Float64 input to a layer with Float32 parameters is converted to Float32, as Flux does
# (its `_match_eltype`), so the output is Float32, not a promoted Float64
Core.match_eltype(w, x) =
    eltype(w) == Float32 && eltype(x) == Float64 || eltype(w) <: AbstractFloat && eltype(x) <: Integer ?
    Core.eltype_convert(eltype(w), x) : x
(d::Dense)(x::AbstractVector) =
    d.σ.(Core.addbias(d.weight * Core.match_eltype(d.weight, x), d.bias))
(d::Dense)(x::AbstractMatrix) =
    d.σ.(Core.addbias(d.weight * Core.match_eltype(d.weight, x), d.bias))
function (d::Dense)(x::AbstractArray)
    y = d(reshape(x, size(x, 1), :))
    reshape(y, size(y, 1), Core.tail(size(x))...)
end

# `Chain(a, b, ...)` and `Chain(a)` hold a tuple of layers, `Chain([a, b])` a vector,
# `Chain(enc = a, dec = b)` a NamedTuple (`c[:enc]`, `c.layers.enc`)
"""
    Chain(layers...)
    Chain([layers...])
    Chain(name = layer, ...)

Layers applied in order: `Chain(a, b, c)(x) == c(b(a(x)))`. A chain can be indexed
(`c[1]`, `c[2:3]`, `c[:name]` for a named one), is differentiable as a whole
(`gradient(m -> loss(m(x), y), c)`), and runs as one compiled executable.

    model = Chain(Dense(784 => 32, relu), Dense(32 => 10), softmax)
"""
struct Chain{T<:Union{Tuple, NamedTuple, AbstractVector}}
    layers::T
    Chain(layers::Tuple) = new{typeof(layers)}(layers)
    Chain(layers::NamedTuple) = new{typeof(layers)}(layers)
    Chain(layers::AbstractVector) = new{typeof(layers)}(layers)
    Chain(layers...) = new{typeof(layers)}(layers)
end
function Chain(; kw...)
    isempty(kw) && return Chain(())
    haskey(kw, :layers) && throw(ArgumentError("a Chain cannot have a layer named `layers`"))
    Chain(NamedTuple(kw))
end
(c::Chain)(x) = Core.applychain(c.layers, x)
(c::Chain)(x, ys...) = Core.applychain(c.layers, (x, ys...))
Core.applychain(layers::Tuple, x) =
    length(layers) == 0 ? x : Core.applychain(Core.tail(layers), layers[1](x))
Core.applychain(layers::NamedTuple, x) = Core.applychain(Core.ntvalues(layers), x)
# a NamedTuple's values as a tuple, read field by field (so that gradients reach them)
Core.ntvalues(nt::NamedTuple) = Core.ntvalues_(nt, keys(nt))
Core.ntvalues_(nt, ks::Tuple) =
    length(ks) == 0 ? () : (getproperty(nt, ks[1]), Core.ntvalues_(nt, Core.tail(ks))...)
Core.ntvalues(t::Tuple) = t
Core.ntvalues(v::AbstractVector) = Tuple(v)
function Core.applychain(layers::AbstractVector, x)
    h = x
    for l in layers
        h = l(h)
    end
    h
end
Base.getindex(c::Chain, i::Integer) = c.layers[i]
Base.getindex(c::Chain, name::Symbol) = c.layers[name]
Base.getindex(c::Chain, r::AbstractVector) = Core.chain_slice(c.layers, r)
Core.chain_slice(ls::Tuple, r) = Chain(ls[r])
Core.chain_slice(ls::AbstractVector, r) = Chain(ls[r])
Core.chain_slice(ls::NamedTuple, r) = Chain(NamedTuple{keys(ls)[r]}(values(ls)[r]))
Base.length(c::Chain) = length(c.layers)
Base.first(c::Chain) = c.layers[1]
Base.last(c::Chain) = c.layers[length(c.layers)]
Base.lastindex(c::Chain) = length(c.layers)
Core.endof(c::Chain, k, n) = length(c.layers)  # (`model[end]`)
Base.firstindex(c::Chain) = 1
# a Chain iterates over its layers (`for l in model`, `[f(l) for l in model]`)
iterate(c::Chain) = iterate(values(c.layers))
iterate(c::Chain, i) = iterate(values(c.layers), i)

struct SkipConnection
    layers
    connection
end
(s::SkipConnection)(x) = s.connection(s.layers(x), x)

# Parallel(connection, layers...) or Parallel(connection; name = layer, ...): one input
# goes to every layer, n inputs (or a tuple of n) to n layers, one layer takes every input;
# the outputs are combined by connection(ys...)
struct Parallel
    connection
    layers
    Parallel(connection, layers::Tuple) = new(connection, Core.parallel_layers(layers))
    Parallel(connection, layers::NamedTuple) = new(connection, Core.parallel_layers(layers))
    Parallel(connection, layers...) = new(connection, Core.parallel_layers(layers))
end
function Parallel(connection; kw...)
    (haskey(kw, :layers) || haskey(kw, :connection)) &&
        throw(ArgumentError("a Parallel layer cannot have a sub-layer named `connection` or `layers`"))
    Parallel(connection, isempty(kw) ? () : NamedTuple(kw))
end
Core.parallel_layers(ls) =
    length(ls) == 0 ? throw(ArgumentError("a Parallel layer needs at least one sub-layer")) : ls
(p::Parallel)(x) = p.connection(map(l -> l(x), Core.ntvalues(p.layers))...)
(p::Parallel)(xs::Tuple) = p(xs...)
(p::Parallel)() = throw(ArgumentError("a Parallel layer takes at least one input"))
function (p::Parallel)(x, ys...)
    xs = (x, ys...)
    ls = Core.ntvalues(p.layers)
    length(ls) == 1 && return p.connection(map(a -> ls[1](a), xs)...)
    length(ls) == length(xs) || throw(ArgumentError(string("a Parallel layer with ", length(ls),
        " sub-layers takes one input or ", length(ls), " inputs, got ", length(xs))))
    p.connection(map((l, a) -> l(a), ls, xs)...)
end
Base.getindex(p::Parallel, i::Integer) = p.layers[i]
Base.getindex(p::Parallel, name::Symbol) = p.layers[name]
Base.getindex(p::Parallel, r::AbstractVector) = Parallel(p.connection, Core.chain_slice(p.layers, r).layers)
Base.length(p::Parallel) = length(p.layers)

# PairwiseFusion(connection, layers...): y₁ = layer₁(x₁), yᵢ = layerᵢ(connection(yᵢ₋₁, xᵢ));
# returns (y₁, ..., yₙ). One input (not a tuple) is every xᵢ.
struct PairwiseFusion
    connection
    layers
    PairwiseFusion(connection, layers::Tuple) = new(connection, Core.parallel_layers(layers))
    PairwiseFusion(connection, layers::NamedTuple) = new(connection, Core.parallel_layers(layers))
    PairwiseFusion(connection, layers...) = new(connection, Core.parallel_layers(layers))
end
function PairwiseFusion(connection; kw...)
    (haskey(kw, :layers) || haskey(kw, :connection)) &&
        throw(ArgumentError("a PairwiseFusion layer cannot have a sub-layer named `connection` or `layers`"))
    PairwiseFusion(connection, isempty(kw) ? () : NamedTuple(kw))
end
function (m::PairwiseFusion)(xs::Tuple)
    ls = Core.ntvalues(m.layers)
    length(xs) == length(ls) || throw(ArgumentError(string("a PairwiseFusion layer with ",
        length(ls), " sub-layers takes one input or ", length(ls), " inputs, got ", length(xs))))
    Core.fuse(m.connection, Core.tail(ls), Core.tail(xs), (ls[1](xs[1]),))
end
(m::PairwiseFusion)(x) = m(ntuple(i -> x, length(m.layers)))
(m::PairwiseFusion)(x, ys...) = m((x, ys...))
Core.fuse(conn, ls::Tuple, xs::Tuple, acc::Tuple) = length(ls) == 0 ? acc :
    Core.fuse(conn, Core.tail(ls), Core.tail(xs), (acc..., ls[1](conn(acc[length(acc)], xs[1]))))
Base.getindex(m::PairwiseFusion, i::Integer) = m.layers[i]
Base.getindex(m::PairwiseFusion, name::Symbol) = m.layers[name]
Base.length(m::PairwiseFusion) = length(m.layers)

flatten(x) = reshape(x, :, size(x, ndims(x)))

struct SamePad end

# The padding NNlib's conv needs for `pad`: an Int or tuple passes through; SamePad pads
# dilation*(k-1) in total per dimension, the extra one at the end, as Flux does.
Core.calc_padding(pad, k, dilation, stride) = pad
function Core.calc_padding(pad::SamePad, k, dilation, stride)
    d = Core.expand(length(k), dilation)
    total = map((ki, di) -> di * (ki - 1), k, d)
    Core.samepad_pairs(total)
end
Core.samepad_pairs(t) = length(t) == 0 ? () : (cld(t[1], 2), fld(t[1], 2), Core.samepad_pairs(Core.tail(t))...)

# the bias of a convolution broadcast along the channel dimension (N - 1 of N)
Core.channel_shape(nd, c) = nd == 3 ? (1, c, 1) : nd == 4 ? (1, 1, c, 1) : (1, 1, 1, c, 1)
Core.conv_bias(b::Bool, nd) = false
Core.conv_bias(b, nd) = reshape(b, Core.channel_shape(nd, length(b)))

# the bias, stride, padding and dilation fields of a convolution-like layer with kernel
# size k and nout output channels, from the keywords its constructors take
Core.conv_geometry(w, k, bias, nout, stride, pad, dilation) =
    (Core.create_bias(w, bias, nout), Core.expand(length(k), stride),
     Core.calc_padding(pad, k, dilation, stride), Core.expand(length(k), dilation))

# the channels a:b of x (dimension N-1 of N) and the slices a:b of w's last dimension
Core.channels(x, a, b) = ndims(x) == 3 ? x[:, a:b, :] : ndims(x) == 4 ? x[:, :, a:b, :] :
    ndims(x) == 5 ? x[:, :, :, a:b, :] : throw(ArgumentError("convolution inputs have 3 to 5 dimensions, got $(ndims(x))"))
Core.lastslices(w, a, b) = ndims(w) == 3 ? w[:, :, a:b] : ndims(w) == 4 ? w[:, :, :, a:b] : w[:, :, :, :, a:b]
# a grouped convolution: the input channels and the kernels in `groups` equal parts,
# convolved part by part, the outputs concatenated along the channel dimension
function Core.grouped_conv(x, w, stride, pad, dilation, flipped, groups)
    groups == 1 && return Core.conv(x, w, stride, pad, dilation, flipped)
    nd = ndims(x)
    size(w, nd) % groups == 0 || throw(DimensionMismatch(string("a kernel with ", size(w, nd),
        " output channels cannot be split into ", groups, " groups")))
    cin, cout = size(w, nd - 1), size(w, nd) ÷ groups
    size(x, nd - 1) == cin * groups || throw(DimensionMismatch(string("a convolution with ",
        cin * groups, " input channels (", groups, " groups) got an input with ", size(x, nd - 1))))
    cat(ntuple(g -> Core.conv(Core.channels(x, (g - 1) * cin + 1, g * cin),
                              Core.lastslices(w, (g - 1) * cout + 1, g * cout),
                              stride, pad, dilation, flipped), groups)...; dims=nd - 1)
end
# the kernel an initialiser gives, checked against the size the layer needs
function Core.conv_weight(init, dims)
    w = init(dims...)
    size(w) == dims || throw(DimensionMismatch(string("the initialiser returned an array of size ",
                                                      size(w), ", the layer needs ", dims)))
    w
end
function Core.check_groups(ch, groups)
    @assert ch.first % groups == 0 "Input channel dimension must be divisible by groups."
    @assert ch.second % groups == 0 "Output channel dimension must be divisible by groups."
end

struct Conv
    σ
    weight
    bias
    stride
    pad
    dilation
    groups
end
function Conv(k::Tuple, ch::Pair, σ=identity; stride=1, pad=0, dilation=1, groups=1,
              init=glorot_uniform, bias=true)
    Core.check_groups(ch, groups)
    w = Core.conv_weight(init, (k..., ch.first ÷ groups, ch.second))
    Conv(σ, w, Core.conv_geometry(w, k, bias, ch.second, stride, pad, dilation)..., groups)
end
function Conv(w::AbstractArray, b=true, σ=identity; stride=1, pad=0, dilation=1, groups=1)
    k = size(w)[1:ndims(w)-2]
    Conv(σ, w, Core.conv_geometry(w, k, b, size(w, ndims(w)), stride, pad, dilation)..., groups)
end
(c::Conv)(x) = c.σ.(Core.addbias(Core.grouped_conv(Core.match_eltype(c.weight, x), c.weight, c.stride, c.pad,
                                                   c.dilation, false, c.groups),
                                 Core.conv_bias(c.bias, ndims(x))))

# DepthwiseConv: Flux's constructor of a Conv with one group per input channel
DepthwiseConv(k::Tuple, ch::Pair, σ=identity; stride=1, pad=0, dilation=1, init=glorot_uniform, bias=true) =
    Conv(k, ch, σ; groups=ch.first, stride=stride, pad=pad, dilation=dilation, init=init, bias=bias)
# a kernel (k..., m, cin): cin groups of m output channels each
function DepthwiseConv(w::AbstractArray, bias=true, σ=identity; stride=1, pad=0, dilation=1)
    n = ndims(w)
    Conv(reshape(w, size(w)[1:n-2]..., 1, :), bias, σ; groups=size(w, n - 1), stride=stride,
         pad=pad, dilation=dilation)
end

struct CrossCor
    σ
    weight
    bias
    stride
    pad
    dilation
end
function CrossCor(k::Tuple, ch::Pair, σ=identity; stride=1, pad=0, dilation=1,
                  init=glorot_uniform, bias=true)
    w = Core.conv_weight(init, (k..., ch.first, ch.second))
    CrossCor(σ, w, Core.conv_geometry(w, k, bias, ch.second, stride, pad, dilation)...)
end
function CrossCor(w::AbstractArray, b=true, σ=identity; stride=1, pad=0, dilation=1)
    k = size(w)[1:ndims(w)-2]
    CrossCor(σ, w, Core.conv_geometry(w, k, b, size(w, ndims(w)), stride, pad, dilation)...)
end
(c::CrossCor)(x) = c.σ.(Core.addbias(Core.conv(Core.match_eltype(c.weight, x), c.weight, c.stride, c.pad, c.dilation, true),
                                     Core.conv_bias(c.bias, ndims(x))))

# ConvTranspose: the adjoint of a convolution from the output back to the input, whose
# kernel (k..., out ÷ groups, in) maps `out` channels to `in`. `outpad` adds to the end
# of each output dimension (where stride > 1 leaves several input sizes possible).
struct ConvTranspose
    σ
    weight
    bias
    stride
    pad
    outpad
    dilation
    groups
end
function ConvTranspose(k::Tuple, ch::Pair, σ=identity; stride=1, pad=0, outpad=0, dilation=1,
                       groups=1, init=glorot_uniform, bias=true)
    Core.check_groups(ch, groups)
    w = Core.conv_weight(init, (k..., ch.second ÷ groups, ch.first))
    Core.convtranspose(σ, w, bias, ch.second, k, stride, pad, outpad, dilation, groups)
end
function ConvTranspose(w::AbstractArray, b=true, σ=identity; stride=1, pad=0, outpad=0, dilation=1, groups=1)
    n = ndims(w)
    Core.convtranspose(σ, w, b, size(w, n - 1) * groups, size(w)[1:n-2], stride, pad, outpad, dilation, groups)
end
function Core.convtranspose(σ, w, bias, cout, k, stride, pad, outpad, dilation, groups)
    n = length(k)
    st = Core.expand(n, stride)
    b = Core.create_bias(w, bias, cout)
    p = pad isa SamePad ? Core.calc_padding(pad, map((ki, si) -> ki - si + 1, k, st), dilation, st) : pad
    ConvTranspose(σ, w, b, st, p, Core.expand(n, outpad), Core.expand(n, dilation), groups)
end
Core.pad_pairs(p::Integer, n) = ntuple(i -> p, 2n)
Core.pad_pairs(p::Tuple, n) = length(p) == 2n ? p : Core.pad_pairs_sym(p)
Core.pad_pairs_sym(p) = length(p) == 0 ? () : (p[1], p[1], Core.pad_pairs_sym(Core.tail(p))...)
# the output's spatial size for padding pairs p (negative: zeros added around the output)
Core.convtranspose_size(x, w, stride, p, outpad, dilation) =
    ntuple(i -> (size(x, i) - 1) * stride[i] + dilation[i] * (size(w, i) - 1) + 1 - p[2i-1] - p[2i] + outpad[i],
           ndims(x) - 2)
function (c::ConvTranspose)(x)
    x = Core.match_eltype(c.weight, x)
    n = ndims(x)
    p = Core.pad_pairs(c.pad, n - 2)
    pos = map(a -> max(a, 0), p)
    sz = Core.convtranspose_size(x, c.weight, c.stride, pos, c.outpad, c.dilation)
    y = Core.grouped_convtranspose(x, sz, c.weight, c.stride, pos, c.dilation, c.groups)
    if any(a -> a < 0, p)
        y = Core.zero_pad(y, map(a -> max(-a, 0), p))
    end
    c.σ.(Core.addbias(y, Core.conv_bias(c.bias, n)))
end
function Core.grouped_convtranspose(x, sz, w, stride, pad, dilation, groups)
    n = ndims(x)
    size(w, n) % groups == 0 || throw(DimensionMismatch(string("a kernel with ", size(w, n),
        " input channels cannot be split into ", groups, " groups")))
    cin, cout = size(w, n) ÷ groups, size(w, n - 1)
    size(x, n - 1) == cin * groups || throw(DimensionMismatch(string("a ConvTranspose with ",
        cin * groups, " input channels got an input with ", size(x, n - 1))))
    back(xg, wg) = Core.conv_data_back(xg, zeros(eltype(xg), sz..., cout, size(x, n)), wg, stride, pad, dilation, false)
    groups == 1 && return back(x, w)
    cat(ntuple(g -> back(Core.channels(x, (g - 1) * cin + 1, g * cin),
                         Core.lastslices(w, (g - 1) * cin + 1, g * cin)), groups)...; dims=n - 1)
end
# y with p[2i-1] zeros before and p[2i] after its spatial dimension i
# (recursive over the dimensions, so that each one's sizes are constants when compiled)
Core.zero_pad(y, p) = Core.zero_pad(y, p, 1)
function Core.zero_pad(y, p, i)
    i > ndims(y) - 2 && return y
    z = cat(zeros(eltype(y), Core.setdim(size(y), i, p[2i-1])), y,
            zeros(eltype(y), Core.setdim(size(y), i, p[2i])); dims=i)
    Core.zero_pad(z, p, i + 1)
end
Core.setdim(sz, i, v) = ntuple(j -> j == i ? v : sz[j], length(sz))

# Flux._channels_in / _channels_out of a convolution-like layer
_channels_in(c::Conv) = size(c.weight, ndims(c.weight) - 1) * c.groups
_channels_out(c::Conv) = size(c.weight, ndims(c.weight))
_channels_in(c::CrossCor) = size(c.weight, ndims(c.weight) - 1)
_channels_out(c::CrossCor) = size(c.weight, ndims(c.weight))
_channels_in(c::ConvTranspose) = size(c.weight, ndims(c.weight))
_channels_out(c::ConvTranspose) = size(c.weight, ndims(c.weight) - 1) * c.groups

# NNlib's PoolDims(x, k; stride, padding, dilation): a pooling geometry for maxpool/meanpool
struct PoolDims
    k
    stride
    pad
end
function PoolDims(x::AbstractArray, k; stride=k, padding=0, dilation=1)
    dilation == 1 || all(d -> d == 1, dilation) || error("PoolDims: dilation other than 1 is not supported")
    n = ndims(x) - 2
    PoolDims(Core.expand(n, k), Core.expand(n, stride), padding)
end
maxpool(x, pd::PoolDims) = Core.maxpool(x, pd.k, pd.stride, pd.pad)
meanpool(x, pd::PoolDims) = Core.meanpool(x, pd.k, pd.stride, pd.pad)

struct MaxPool
    k
    pad
    stride
end
MaxPool(k::Tuple; pad=0, stride=k) = MaxPool(k, Core.calc_padding(pad, k, 1, stride), stride)
(m::MaxPool)(x) = Core.maxpool(x, m.k, m.stride, m.pad)

struct MeanPool
    k
    pad
    stride
end
MeanPool(k::Tuple; pad=0, stride=k) = MeanPool(k, Core.calc_padding(pad, k, 1, stride), stride)
(m::MeanPool)(x) = Core.meanpool(x, m.k, m.stride, m.pad)

Core.spatial_size(x) = size(x)[1:ndims(x)-2]

struct AdaptiveMeanPool
    out
end
struct AdaptiveMaxPool
    out
end
# windows that tile the input into `out` cells, as Flux computes them
function Core.adaptive_window(x, out)
    insize = Core.spatial_size(x)
    stride = map((i, o) -> i ÷ o, insize, out)
    k = map((i, o, s) -> i - (o - 1) * s, insize, out, stride)
    k, stride
end
function (m::AdaptiveMeanPool)(x)
    k, s = Core.adaptive_window(x, m.out)
    Core.meanpool(x, k, s, 0)
end
function (m::AdaptiveMaxPool)(x)
    k, s = Core.adaptive_window(x, m.out)
    Core.maxpool(x, k, s, 0)
end

struct GlobalMeanPool end
struct GlobalMaxPool end
(m::GlobalMeanPool)(x) = Core.meanpool(x, Core.spatial_size(x), 1, 0)
(m::GlobalMaxPool)(x) = Core.maxpool(x, Core.spatial_size(x), 1, 0)

# --- upsampling (NNlib's upsample_nearest / _bilinear / _trilinear, pixel_shuffle) -----------------

# the spatial output size from `scale` (an integer or a tuple) or an explicit `size`
function Core.upsample_size(x, scale, size)
    n = ndims(x) - 2
    size === nothing || return Core.expand(n, size)
    scale === nothing && throw(ArgumentError("upsampling needs a `scale` or a `size`"))
    sc = Core.expand(n, scale)
    ntuple(i -> sc[i] isa Integer ? Base.size(x, i) * sc[i] : floor(Int, Base.size(x, i) * sc[i]), n)
end
function upsample_nearest(x::AbstractArray, scale=nothing; size=nothing)
    n = ndims(x) - 2
    out = Core.upsample_size(x, scale, size)
    all(i -> out[i] % Base.size(x, i) == 0, 1:n) || throw(ArgumentError(string(
        "upsample_nearest: the output size ", out, " is not a multiple of the input size ",
        Base.size(x)[1:n])))
    repeat(x; inner=(ntuple(i -> out[i] ÷ Base.size(x, i), n)..., 1, 1))
end
# linear interpolation from n to m points along one dimension, as an m×n matrix: output
# point o reads the input at src (0-based), between its neighbours floor(src) and the next
function Core.interp_matrix(T, n, m, align_corners)
    o = collect(0:m - 1)
    src = align_corners ? (m == 1 ? zeros(m) : o .* ((n - 1) / (m - 1))) :
                          clamp.((o .+ 0.5) .* (n / m) .- 0.5, 0.0, n - 1.0)
    lo = min.(floor.(Int, src), n - 1)
    w = T.(src .- lo)
    cols = collect(0:n - 1)'
    (cols .== lo) .* (1 .- w) .+ (cols .== lo .+ 1) .* w
end
Core.invperm(p) = ntuple(i -> Core.position(p, i), length(p))
Core.position(p, i) = p[1] == i ? 1 : 1 + Core.position(Core.tail(p), i)
# A applied along dimension i of x (A * the columns of x along i)
function Core.along(x, A, i)
    nd = ndims(x)
    p = ntuple(j -> j == 1 ? i : (j <= i ? j - 1 : j), nd)
    xp = i == 1 ? x : permutedims(x, p)
    sz = Base.size(xp)
    y = reshape(A * reshape(xp, sz[1], :), Base.size(A, 1), Core.tail(sz)...)
    i == 1 ? y : permutedims(y, Core.invperm(p))
end
Core.upsample_linear(x, scale, size, align_corners) =
    Core.interpolate(x, Core.upsample_size(x, scale, size), align_corners, 1)
# (recursive over the dimensions, so that each one's sizes are constants when compiled)
function Core.interpolate(y, out, align_corners, i)
    i > length(out) && return y
    A = Core.interp_matrix(float(eltype(y)), Base.size(y, i), out[i], align_corners)
    Core.interpolate(Core.along(y, A, i), out, align_corners, i + 1)
end
upsample_linear(x::AbstractArray, scale=nothing; size=nothing, align_corners=true) =
    Core.upsample_linear(x, scale, size, align_corners)
upsample_bilinear(x::AbstractArray, scale=nothing; size=nothing, align_corners=true) =
    ndims(x) == 4 ? Core.upsample_linear(x, scale, size, align_corners) :
    throw(ArgumentError("upsample_bilinear takes a 4-dimensional array, got $(ndims(x))"))
upsample_trilinear(x::AbstractArray, scale=nothing; size=nothing, align_corners=true) =
    ndims(x) == 5 ? Core.upsample_linear(x, scale, size, align_corners) :
    throw(ArgumentError("upsample_trilinear takes a 5-dimensional array, got $(ndims(x))"))

# Upsample(mode = :nearest; scale, size), Upsample(scale, mode = :nearest)
struct Upsample
    mode
    scale
    size
end
function Upsample(mode::Symbol=:nearest; scale=nothing, size=nothing)
    mode in (:nearest, :bilinear, :trilinear) ||
        throw(ArgumentError("Upsample: mode must be :nearest, :bilinear or :trilinear, got :$mode"))
    (scale === nothing) != (size === nothing) ||
        throw(ArgumentError("Upsample: give exactly one of `scale` and `size`"))
    Upsample(mode, scale, size)
end
Upsample(scale, mode::Symbol=:nearest) = Upsample(mode; scale=scale)
(u::Upsample)(x::AbstractArray) =
    u.mode === :nearest ? upsample_nearest(x, u.scale; size=u.size) :
    u.mode === :bilinear ? upsample_bilinear(x, u.scale; size=u.size) :
    upsample_trilinear(x, u.scale; size=u.size)
function Base.show(io::IO, u::Upsample)
    print(io, "Upsample(:", u.mode)
    u.scale === nothing || print(io, ", scale = ", u.scale)
    u.size === nothing || print(io, ", size = ", u.size)
    print(io, ")")
end

# pixel_shuffle(x, r): channels (r^d · c) of a d-dimensional image moved into an image r
# times larger in every spatial dimension, c channels
function pixel_shuffle(x::AbstractArray, r::Integer)
    d = ndims(x) - 2
    d >= 1 || throw(ArgumentError("pixel_shuffle takes an array with spatial, channel and batch dimensions"))
    cin, n = size(x, d + 1), size(x, d + 2)
    cin % r^d == 0 || throw(ArgumentError("pixel_shuffle: $cin channels are not a multiple of $r^$d"))
    sp = size(x)[1:d]
    y = reshape(x, sp..., ntuple(i -> r, d)..., cin ÷ r^d, n)
    # (spatial..., r..., c, n) → (r₁, spatial₁, r₂, spatial₂, ..., c, n)
    perm = (ntuple(k -> isodd(k) ? d + (k + 1) ÷ 2 : k ÷ 2, 2d)..., 2d + 1, 2d + 2)
    reshape(permutedims(y, perm), map(s -> s * r, sp)..., cin ÷ r^d, n)
end
struct PixelShuffle
    r
end
(p::PixelShuffle)(x) = pixel_shuffle(x, p.r)
Base.show(io::IO, p::PixelShuffle) = print(io, "PixelShuffle(", p.r, ")")

# --- train/test modes (Flux.trainmode!, testmode!, and the automatic mode) -----------------------

# train mode inside `gradient` (this rule makes `within_gradient` true while differentiated)
ChainRulesCore.rrule(::typeof(NNlib.within_gradient), x) = (true, dy -> (NoTangent(), NoTangent()))
Core.isactive(cell, x) = Core.mode_or_auto(NNlib.getmode(cell), x)
Core.mode_or_auto(a::Nothing, x) = NNlib.within_gradient(x)
Core.mode_or_auto(a::Bool, x) = a

Core.setmodes!(m::AbstractArray, a) = nothing
Core.setmodes!(m::Number, a) = nothing
Core.setmodes!(m::Function, a) = nothing
Core.setmodes!(m::Nothing, a) = nothing
Core.setmodes!(m::Tuple, a) = foreach(l -> Core.setmodes!(l, a), m)
Core.setmodes!(m::NamedTuple, a) = foreach(l -> Core.setmodes!(l, a), values(m))
function Core.setmodes!(m, a)
    Core.fieldmap(l -> Core.setmodes!(l, a), m)
    nothing
end

Core.testmode_flag(mode::Bool) = !mode
Core.testmode_flag(mode::Symbol) = mode === :auto ? nothing : error("testmode!: mode must be true, false or :auto")
Core.testmode_flag(mode::Nothing) = nothing
function testmode!(m, mode=true)
    Core.setmodes!(m, Core.testmode_flag(mode))
    m
end
trainmode!(m, mode=true) = testmode!(m, mode isa Bool ? !mode : mode)

struct Dropout
    p
    dims
    mode
end
function Dropout(p; dims=:, active=nothing)
    0 <= p <= 1 || error("Dropout: the probability must be in [0, 1], got $p")
    dims === (:) || error("Dropout: only dims=: is supported")
    d = Dropout(p, dims, NNlib.modecell())
    active === nothing || NNlib.setmode!(d.mode, active)
    d
end
Core.setmodes!(m::Dropout, a) = NNlib.setmode!(m.mode, a)
(d::Dropout)(x) = Core.isactive(d.mode, x) ? x .* NNlib.dropout_mask(x, d.p) : x
dropout(x, p; active=true) = active ? x .* NNlib.dropout_mask(x, p) : x

struct BatchNorm
    λ
    β
    γ
    μ
    σ²
    ϵ
    momentum
    affine
    track_stats
    chs
    mode
end
function BatchNorm(chs::Integer, λ=identity; initβ=zeros32, initγ=ones32, affine=true,
                   track_stats=true, ϵ=1.0f-5, momentum=0.1f0, active=nothing)
    μ = zeros(Float32, chs)
    σ² = ones(Float32, chs)
    bn = BatchNorm(λ, affine ? initβ(chs) : nothing, affine ? initγ(chs) : nothing, μ, σ²,
                   Float32(ϵ), Float32(momentum), affine, track_stats, chs, NNlib.modecell(μ, σ²))
    active === nothing || NNlib.setmode!(bn.mode, active)
    bn
end
Core.setmodes!(m::BatchNorm, a) = NNlib.setmode!(m.mode, a)
# the dimensions a normalisation reduces over: all but the channels (N-1)
Core.bn_dims(nd) = nd == 2 ? (2,) : nd == 3 ? (1, 3) : nd == 4 ? (1, 2, 4) : (1, 2, 3, 5)
function (bn::BatchNorm)(x)
    nd = ndims(x)
    dims = Core.bn_dims(nd)
    shape = nd == 2 ? (bn.chs, 1) : Core.channel_shape(nd, bn.chs)
    if Core.isactive(bn.mode, x)
        μ = mean(x; dims=dims)
        σ² = mean(abs2.(x .- μ); dims=dims)
        if bn.track_stats
            m = length(x) ÷ bn.chs
            mtm = bn.momentum
            NNlib.write_stats!(bn.mode, (bn.μ, bn.σ²),
                               ((1 - mtm) .* bn.μ .+ mtm .* vec(μ),
                                (1 - mtm) .* bn.σ² .+ (mtm * m / (m - 1)) .* vec(σ²)))
        end
    else
        μ = reshape(bn.μ, shape)
        σ² = reshape(bn.σ², shape)
    end
    y = (x .- μ) ./ sqrt.(σ² .+ bn.ϵ)
    if bn.affine
        y = y .* reshape(bn.γ, shape) .+ reshape(bn.β, shape)
    end
    bn.λ.(y)
end

struct LayerNorm
    λ
    scale
    bias
    ϵ
    size
    affine
end
function LayerNorm(size::Integer...; affine=true, eps=1.0f-5, ϵ=eps)
    LayerNorm(identity, affine ? ones(Float32, size...) : nothing,
              affine ? zeros(Float32, size...) : nothing, Float32(ϵ), size, affine)
end
LayerNorm(size::Tuple, λ=identity; affine=true, eps=1.0f-5, ϵ=eps) =
    LayerNorm(λ, affine ? ones(Float32, size...) : nothing, affine ? zeros(Float32, size...) : nothing,
              Float32(ϵ), size, affine)
function (l::LayerNorm)(x)
    dims = ntuple(i -> i, length(l.size))
    μ = mean(x; dims=dims)
    σ² = mean(abs2.(x .- μ); dims=dims)
    y = (x .- μ) ./ sqrt.(σ² .+ l.ϵ)
    if l.affine
        y = y .* l.scale .+ l.bias
    end
    l.λ.(y)
end
normalise(x; dims=ndims(x), eps=1.0f-5) = (x .- mean(x; dims=dims)) ./ sqrt.(var(x; dims=dims, corrected=false) .+ eps)

# Embedding(in => out; padding_idx): a column of the weight per index; one-hot inputs
# (dense Bool arrays here) multiply the weight. With padding_idx, that column is zero and
# stays zero: the layer reads the weight through a mask, so its gradient is masked too.
struct Embedding
    weight
    padding_idx
end
Embedding(weight::AbstractMatrix) = Embedding(weight, nothing)
function Embedding(p::Pair; init=randn32, padding_idx=nothing)
    w = init(p.second, p.first)
    if padding_idx !== nothing
        1 <= padding_idx <= p.first || throw(ArgumentError(string("Embedding: padding_idx must be ",
            "an index in 1:", p.first, ", got ", padding_idx)))
        w[:, padding_idx] .= 0
    end
    Embedding(w, padding_idx)
end
Embedding(nin::Integer, nout::Integer; init=randn32, padding_idx=nothing) =
    Embedding(nin => nout; init=init, padding_idx=padding_idx)
Core.emb_weight(e::Embedding) = e.padding_idx === nothing ? e.weight :
    e.weight .* reshape((1:size(e.weight, 2)) .!= e.padding_idx, 1, :)
(e::Embedding)(x::Integer) = Core.emb_weight(e)[:, x]
(e::Embedding)(x::AbstractVector) =
    eltype(x) == Bool ? Core.emb_weight(e) * x : Core.emb_weight(e)[:, x]  # Bools: one-hot
function (e::Embedding)(x::AbstractArray)
    w = Core.emb_weight(e)
    if eltype(x) == Bool  # one-hot along the first dimension
        y = w * reshape(x, size(x, 1), :)
        return reshape(y, size(w, 1), Core.tail(size(x))...)
    end
    eltype(x) <: Integer || return w * x
    reshape(w[:, vec(x)], size(w, 1), size(x)...)
end

# EmbeddingBag(in => out, reduction = mean): each bag of indices is embedded and reduced
# over the bag (dims=2) to one column. Bags: a vector of indices (one bag), a vector of
# vectors, the columns of a matrix, indices with PyTorch-style offsets, or a one-hot matrix.
struct EmbeddingBag
    weight
    reduction
end
EmbeddingBag(weight::AbstractMatrix) = EmbeddingBag(weight, mean)
EmbeddingBag(p::Pair, reduction=mean; init=randn32) = EmbeddingBag(init(p.second, p.first), reduction)
Core.bag(m::EmbeddingBag, x) = vec(m.reduction(Embedding(m.weight)(x); dims=2))
(m::EmbeddingBag)(x::Integer) = error("EmbeddingBag takes bags of indices, not a single index $x")
function (m::EmbeddingBag)(x::AbstractVector)
    eltype(x) == Bool && error("EmbeddingBag is not defined for a one-hot vector (a bag is a one-hot matrix)")
    eltype(x) <: Integer && return Core.bag(m, x)
    reduce(hcat, [m(b) for b in x])
end
# (bags of equal length: all embedded at once, reduced along the bag dimension)
function (m::EmbeddingBag)(x::AbstractMatrix)
    eltype(x) == Bool && return Core.bag(m, x)
    e = reshape(Embedding(m.weight)(vec(x)), size(m.weight, 1), size(x)...)
    reshape(m.reduction(e; dims=2), size(m.weight, 1), size(x, 2))
end
(m::EmbeddingBag)(inputs::AbstractVector, offsets::AbstractVector) = m(_splitat(inputs, offsets))
# the parts of data that start at the indices `at` (1 first, strictly increasing)
function _splitat(data::AbstractVector, at::AbstractVector{<:Integer})
    length(at) > 0 && at[1] == 1 ||
        throw(ArgumentError("the offsets must start at 1, got $(length(at) == 0 ? at : at[1])"))
    all(i -> at[i] < at[i + 1], 1:length(at) - 1) ||
        throw(ArgumentError("the offsets must be strictly increasing, got $at"))
    at[end] <= length(data) ||
        throw(ArgumentError("the offset $(at[end]) is past the end of data (length $(length(data)))"))
    [data[at[i]:(i < length(at) ? at[i + 1] - 1 : length(data))] for i in 1:length(at)]
end
Base.show(io::IO, m::EmbeddingBag) =
    print(io, "EmbeddingBag(", size(m.weight, 2), " => ", size(m.weight, 1), ")")

# Flux's one-hot arrays, as dense Bool arrays: OneHotVector(i, n), OneHotMatrix(indices, n)
OneHotVector(i::Integer, n::Integer) = (1:n) .== i
OneHotMatrix(idx::AbstractVector, n::Integer) = (1:n) .== reshape(idx, 1, :)

# --- recurrent layers (Flux 0.16's explicit-state API) -----------------------------------------
# A cell maps (x, state) to (output, new state): RNNCell and GRUCell (h′, h′), LSTMCell
# (h′, (h′, c′)); a layer runs its cell over the time dimension and returns the outputs
# (with `return_state = true` also the last state).

struct RNNCell
    σ
    Wi
    Wh
    bias
end
RNNCell(p::Pair, σ=tanh; init=glorot_uniform, init_kernel=init, init_recurrent_kernel=init, bias=true) =
    RNNCell(σ, init_kernel(p.second, p.first), init_recurrent_kernel(p.second, p.second),
            Core.create_bias(bias, p.second))
initialstates(c::RNNCell) = zeros(Float32, size(c.Wh, 2))
(c::RNNCell)(x::AbstractArray) = c(x, initialstates(c))
function (c::RNNCell)(x::AbstractArray, h)
    h′ = c.σ.(Core.addbias(c.Wi * x .+ c.Wh * h, c.bias))
    (h′, h′)
end

struct LSTMCell
    Wi
    Wh
    bias
end
LSTMCell(p::Pair; init=glorot_uniform, init_kernel=init, init_recurrent_kernel=init, bias=true) =
    LSTMCell(init_kernel(4 * p.second, p.first), init_recurrent_kernel(4 * p.second, p.second),
             Core.create_bias(bias, 4 * p.second))
initialstates(c::LSTMCell) = (zeros(Float32, size(c.Wh, 2)), zeros(Float32, size(c.Wh, 2)))
(c::LSTMCell)(x::AbstractArray) = c(x, initialstates(c))
function (c::LSTMCell)(x::AbstractArray, state)
    h, cell = state
    n = size(c.Wh, 2)
    g = Core.addbias(c.Wi * x .+ c.Wh * h, c.bias)
    i = NNlib.sigmoid.(Core.rows(g, 1, n))
    f = NNlib.sigmoid.(Core.rows(g, n + 1, 2n))
    z = tanh.(Core.rows(g, 2n + 1, 3n))
    o = NNlib.sigmoid.(Core.rows(g, 3n + 1, 4n))
    c′ = f .* cell .+ i .* z
    h′ = o .* tanh.(c′)
    (h′, (h′, c′))
end
Core.rows(g::AbstractVector, a, b) = g[a:b]
Core.rows(g::AbstractMatrix, a, b) = g[a:b, :]

struct GRUCell
    Wi
    Wh
    b
end
GRUCell(p::Pair; init=glorot_uniform, init_kernel=init, init_recurrent_kernel=init, bias=true) =
    GRUCell(init_kernel(3 * p.second, p.first), init_recurrent_kernel(3 * p.second, p.second),
            Core.create_bias(bias, 3 * p.second))
initialstates(c::GRUCell) = zeros(Float32, size(c.Wh, 2))
(c::GRUCell)(x::AbstractArray) = c(x, initialstates(c))
(c::GRUCell)(x::AbstractArray, h) = Core.gru_step(c.Wi, c.Wh, c.b, x, h, (r, rh) -> r .* rh)
# one GRU step: the reset and update gates, then the candidate whose recurrent part is
# mix(r, Whh * h): r .* (Whh * h) in GRUCell, Wh_h̃ * (r .* (Whh * h)) in GRUv3Cell
function Core.gru_step(Wi, Wh, b, x, h, mix)
    n = size(Wh, 2)
    gx = Core.addbias(Wi * x, b)
    gh = Wh * h
    r = NNlib.sigmoid.(Core.rows(gx, 1, n) .+ Core.rows(gh, 1, n))
    z = NNlib.sigmoid.(Core.rows(gx, n + 1, 2n) .+ Core.rows(gh, n + 1, 2n))
    h̃ = tanh.(Core.rows(gx, 2n + 1, 3n) .+ mix(r, Core.rows(gh, 2n + 1, 3n)))
    h′ = (1 .- z) .* h̃ .+ z .* h
    (h′, h′)
end

# GRUv3Cell: the GRU of the paper's v3, the reset gate applied to the recurrent term before a
# second recurrent matrix: h̃ = tanh(Wxh x + Wh_h̃ (r .* Whh h) + b_h), as Flux 0.16's
struct GRUv3Cell
    Wi
    Wh
    bias
    Wh_h̃
end
GRUv3Cell(p::Pair; init=glorot_uniform, init_kernel=init, init_recurrent_kernel=init, bias=true) =
    GRUv3Cell(init_kernel(3 * p.second, p.first), init_recurrent_kernel(3 * p.second, p.second),
              Core.create_bias(bias, 3 * p.second), init_recurrent_kernel(p.second, p.second))
initialstates(c::GRUv3Cell) = zeros(Float32, size(c.Wh, 2))
(c::GRUv3Cell)(x::AbstractArray) = c(x, initialstates(c))
(c::GRUv3Cell)(x::AbstractArray, h) =
    Core.gru_step(c.Wi, c.Wh, c.bias, x, h, (r, rh) -> c.Wh_h̃ * (r .* rh))

# Run a cell over the time dimension (2) of x, (in, len) or (in, len, batch); returns the
# outputs stacked as (out, len) or (out, len, batch), and the last state.
function scan(cell, x::AbstractMatrix, state)
    len = size(x, 2)
    h, state = cell(x[:, 1], state)
    y = similar(h, size(h, 1), len)  # every column is written below
    y[:, 1] = h
    for t in 2:len
        h, state = cell(x[:, t], state)
        y[:, t] = h
    end
    y, state
end
function scan(cell, x::AbstractArray, state)
    len = size(x, 2)
    h, state = cell(x[:, 1, :], state)
    y = similar(h, size(h, 1), len, size(h, 2))
    y[:, 1, :] = h
    for t in 2:len
        h, state = cell(x[:, t, :], state)
        y[:, t, :] = h
    end
    y, state
end

struct RNN
    cell
    return_state
end
RNN(p::Pair, σ=tanh; init=glorot_uniform, bias=true, return_state=false) =
    RNN(RNNCell(p, σ; init=init, bias=bias), return_state)
RNN(cell::RNNCell; return_state=false) = RNN(cell, return_state)
struct LSTM
    cell
    return_state
end
LSTM(p::Pair; init=glorot_uniform, bias=true, return_state=false) =
    LSTM(LSTMCell(p; init=init, bias=bias), return_state)
LSTM(cell::LSTMCell; return_state=false) = LSTM(cell, return_state)
struct GRU
    cell
    return_state
end
GRU(p::Pair; init=glorot_uniform, bias=true, return_state=false) =
    GRU(GRUCell(p; init=init, bias=bias), return_state)
GRU(cell::GRUCell; return_state=false) = GRU(cell, return_state)
struct GRUv3
    cell
    return_state
end
GRUv3(p::Pair; init=glorot_uniform, bias=true, return_state=false) =
    GRUv3(GRUv3Cell(p; init=init, bias=bias), return_state)
GRUv3(cell::GRUv3Cell; return_state=false) = GRUv3(cell, return_state)
initialstates(r::GRUv3) = initialstates(r.cell)
(r::GRUv3)(x) = Core.recurrent(r, x, initialstates(r.cell))
(r::GRUv3)(x, h) = Core.recurrent(r, x, h)
# Flux ≤ 0.14's positional sizes: a clear error naming the form that replaced them
RNN(a::Integer, b::Integer; kw...) = Core.old_recurrent("RNN", a, b)
RNN(a::Integer, b::Integer, σ; kw...) = Core.old_recurrent("RNN", a, b)
LSTM(a::Integer, b::Integer; kw...) = Core.old_recurrent("LSTM", a, b)
GRU(a::Integer, b::Integer; kw...) = Core.old_recurrent("GRU", a, b)
Core.old_recurrent(name, a, b) =
    error("$name($a, $b) is Flux ≤ 0.14's recurrent layer (with Recur and reset!), removed in ",
          "Flux 0.15; write $name($a => $b), called as layer(x) or layer(x, state)")

# Recurrence(cell): any cell (a struct with (x, state) -> (output, state) and
# initialstates) run over the time dimension, as Flux 0.16's wrapper
struct Recurrence
    cell
    return_state
end
Recurrence(cell; return_state=false) = Recurrence(cell, return_state)
initialstates(r::Recurrence) = initialstates(r.cell)
(r::Recurrence)(x) = Core.recurrent(r, x, initialstates(r.cell))
(r::Recurrence)(x, state) = Core.recurrent(r, x, state)
Core.recurrent(r, x, state) = r.return_state ? scan(r.cell, x, state) : first(scan(r.cell, x, state))
initialstates(r::RNN) = initialstates(r.cell)
initialstates(r::LSTM) = initialstates(r.cell)
initialstates(r::GRU) = initialstates(r.cell)
(r::RNN)(x) = Core.recurrent(r, x, initialstates(r.cell))
(r::RNN)(x, h) = Core.recurrent(r, x, h)
(r::LSTM)(x) = Core.recurrent(r, x, initialstates(r.cell))
(r::LSTM)(x, state) = Core.recurrent(r, x, state)
(r::GRU)(x) = Core.recurrent(r, x, initialstates(r.cell))
(r::GRU)(x, h) = Core.recurrent(r, x, h)

# --- printing (Flux's compact forms) -----------------------------------------------------------

Core.fname(f) = split(string(f), ".")[end]
Core.show_act(io, f) = f === identity ? nothing : print(io, ", ", Core.fname(f))
function Base.show(io::IO, d::Dense)
    print(io, "Dense(", size(d.weight, 2), " => ", size(d.weight, 1))
    Core.show_act(io, d.σ)
    d.bias === false && print(io, "; bias=false")
    print(io, ")")
end
function Base.show(io::IO, c::Chain)
    print(io, "Chain(")
    for i in 1:length(c.layers)
        i > 1 && print(io, ", ")
        show(io, c.layers[i])
    end
    print(io, ")")
end
Core.show_geometry(io, c) = begin
    all(s -> s == 1, c.stride) || print(io, ", stride=", c.stride)
    c.pad == 0 || all(p -> p == 0, c.pad) || print(io, ", pad=", c.pad)
    all(s -> s == 1, c.dilation) || print(io, ", dilation=", c.dilation)
end
function Core.show_conv(io, name, c, cin, cout)
    n = ndims(c.weight)
    print(io, name, "(", size(c.weight)[1:n-2], ", ", cin, " => ", cout)
    Core.show_act(io, c.σ)
    Core.show_geometry(io, c)
    c isa CrossCor || c.groups == 1 || print(io, ", groups=", c.groups)
    c.bias === false && print(io, ", bias=false")
    print(io, ")")
end
Base.show(io::IO, c::Conv) = Core.show_conv(io, "Conv", c, _channels_in(c), _channels_out(c))
Base.show(io::IO, c::CrossCor) = Core.show_conv(io, "CrossCor", c, _channels_in(c), _channels_out(c))
Base.show(io::IO, c::ConvTranspose) = Core.show_conv(io, "ConvTranspose", c, _channels_in(c), _channels_out(c))
function Core.show_pool(io, name, m)
    print(io, name, "(", m.k)
    m.pad == 0 || print(io, ", pad=", m.pad)
    m.stride == m.k || print(io, ", stride=", m.stride)
    print(io, ")")
end
Base.show(io::IO, m::MaxPool) = Core.show_pool(io, "MaxPool", m)
Base.show(io::IO, m::MeanPool) = Core.show_pool(io, "MeanPool", m)
Base.show(io::IO, m::AdaptiveMeanPool) = print(io, "AdaptiveMeanPool(", m.out, ")")
Base.show(io::IO, m::AdaptiveMaxPool) = print(io, "AdaptiveMaxPool(", m.out, ")")
Base.show(io::IO, m::GlobalMeanPool) = print(io, "GlobalMeanPool()")
Base.show(io::IO, m::GlobalMaxPool) = print(io, "GlobalMaxPool()")
function Base.show(io::IO, b::BatchNorm)
    print(io, "BatchNorm(", b.chs)
    Core.show_act(io, b.λ)
    b.affine || print(io, ", affine=false")
    print(io, ")")
end
Base.show(io::IO, d::Dropout) = print(io, "Dropout(", d.p, ")")
function Base.show(io::IO, l::LayerNorm)
    print(io, "LayerNorm(", join(map(string, l.size), ", "))
    Core.show_act(io, l.λ)
    l.affine || print(io, ", affine=false")
    print(io, ")")
end
function Base.show(io::IO, e::Embedding)
    print(io, "Embedding(", size(e.weight, 2), " => ", size(e.weight, 1))
    e.padding_idx === nothing || print(io, "; padding_idx=", e.padding_idx)
    print(io, ")")
end
function Base.show(io::IO, c::RNNCell)
    print(io, "RNNCell(", size(c.Wi, 2), " => ", size(c.Wi, 1))
    Core.show_act(io, c.σ)
    print(io, ")")
end
Base.show(io::IO, c::LSTMCell) = print(io, "LSTMCell(", size(c.Wi, 2), " => ", size(c.Wi, 1) ÷ 4, ")")
Base.show(io::IO, c::GRUCell) = print(io, "GRUCell(", size(c.Wi, 2), " => ", size(c.Wi, 1) ÷ 3, ")")
Base.show(io::IO, c::GRUv3Cell) = print(io, "GRUv3Cell(", size(c.Wi, 2), " => ", size(c.Wi, 1) ÷ 3, ")")
Base.show(io::IO, r::GRUv3) = print(io, "GRUv3(", size(r.cell.Wi, 2), " => ", size(r.cell.Wi, 1) ÷ 3, ")")
function Base.show(io::IO, r::RNN)
    print(io, "RNN(", size(r.cell.Wi, 2), " => ", size(r.cell.Wi, 1))
    Core.show_act(io, r.cell.σ)
    print(io, ")")
end
Base.show(io::IO, r::LSTM) = print(io, "LSTM(", size(r.cell.Wi, 2), " => ", size(r.cell.Wi, 1) ÷ 4, ")")
Base.show(io::IO, r::GRU) = print(io, "GRU(", size(r.cell.Wi, 2), " => ", size(r.cell.Wi, 1) ÷ 3, ")")

# Flux.activations(c, x): every layer's output of a Chain, as a tuple
activations(c::Chain, x) = Core.extrachain(Core.ntvalues(c.layers), x)
Core.extrachain(fs::Tuple, x) = length(fs) == 0 ? () : Core.extrachain_(fs, (fs[1](x),))
Core.extrachain_(fs::Tuple, acc::Tuple) =
    length(fs) == 1 ? acc : Core.extrachain_(Core.tail(fs), (acc..., fs[2](acc[length(acc)])))

# Scale: y = σ.(scale .* x .+ bias), elementwise (broadcast) scaling
struct Scale
    scale
    bias
    σ
    Scale(scale::AbstractArray, bias=true, σ=identity) =
        new(scale, Core.create_bias(scale, bias, size(scale)...), σ)
end
Scale(s1::Integer, s23::Integer...; bias=true, init=ones32, _act=identity) =
    Scale(init(s1, s23...), bias, _act)
Scale(size_act...; bias=true, init=ones32) =
    Scale(size_act[1:end-1]...; bias=bias, init=init, _act=size_act[end])
(a::Scale)(x::AbstractArray) = a.σ.(a.scale .* x .+ a.bias)

# Bilinear: z[o, b] = σ(Σ_ij W[o, i, j] x[i, b] y[j, b] + bias[o]), W of size (out, in1, in2)
struct Bilinear
    weight
    bias
    σ
    function Bilinear(W::AbstractArray, bias=true, σ=identity)
        ndims(W) == 3 || throw(ArgumentError(string("Bilinear needs a 3-dimensional weight ",
                                                    "(out, in1, in2), got size ", size(W))))
        new(W, Core.create_bias(W, bias, size(W, 1)), σ)
    end
end
Bilinear(p::Pair{<:Tuple, <:Integer}, σ=identity; bias=true, init=glorot_uniform) =
    Bilinear(init(p.second, p.first[1], p.first[2]), bias, σ)
Bilinear(p::Pair{<:Integer, <:Integer}, σ=identity; bias=true, init=glorot_uniform) =
    Bilinear((p.first, p.first) => p.second, σ; bias=bias, init=init)
Bilinear(in1::Integer, in2::Integer, out::Integer, σ=identity; bias=true, init=glorot_uniform) =
    Bilinear((in1, in2) => out, σ; bias=bias, init=init)
function (a::Bilinear)(x::AbstractMatrix, y::AbstractMatrix)
    W = a.weight
    o, i, j = size(W)
    x = Core.match_eltype(W, x)
    y = Core.match_eltype(W, y)
    size(x, 1) == i && size(y, 1) == j && size(x, 2) == size(y, 2) ||
        throw(DimensionMismatch(string("Bilinear with weight of size ", size(W),
                                       " got inputs of sizes ", size(x), " and ", size(y))))
    Wy = reshape(reshape(W, o * i, j) * y, o, i, size(y, 2))
    z = reshape(sum(Wy .* reshape(x, 1, i, size(x, 2)); dims=2), o, size(x, 2))
    a.σ.(Core.addbias(z, a.bias))
end
(a::Bilinear)(x::AbstractVector, y::AbstractVector) = vec(a(reshape(x, :, 1), reshape(y, :, 1)))
(a::Bilinear)(x::AbstractArray) = a(x, x)
(a::Bilinear)(xy::Tuple) = a(xy[1], xy[2])
function Base.show(io::IO, b::Bilinear)
    o, i, j = size(b.weight)
    print(io, "Bilinear((", i, ", ", j, ") => ", o)
    Core.show_act(io, b.σ)
    b.bias === false && print(io, "; bias=false")
    print(io, ")")
end

# --- attention (NNlib's dot_product_attention, Flux's MultiHeadAttention) ---------------------

# q: (dq, lq, batch...), k: (dq, lk, batch...), v: (dv, lk, batch...); every head sees dq ÷ nheads
# features. Written with broadcasts and sums over reshaped arrays (no batched loops), so that
# it compiles to a few XLA ops and differentiates like any array code.
function dot_product_attention(q::AbstractArray, k::AbstractArray, v::AbstractArray, bias=nothing;
                               fdrop=identity, mask=nothing, nheads=1)
    batch = Core.tail(Core.tail(size(q)))
    q3, k3, v3 = Core.as3d(q), Core.as3d(k), Core.as3d(v)
    dq, dv = size(q3, 1), size(v3, 1)
    dq % nheads == 0 && dv % nheads == 0 ||
        throw(ArgumentError("dot_product_attention: the feature sizes $dq and $dv are not multiples of nheads = $nheads"))
    size(k3, 1) == dq || throw(DimensionMismatch("dot_product_attention: q has $dq features, k has $(size(k3, 1))"))
    lq, lk, nb = size(q3, 2), size(k3, 2), size(q3, 3)
    hq, hv = dq ÷ nheads, dv ÷ nheads
    qh = reshape(q3, hq, 1, lq, nheads, nb)
    kh = reshape(permutedims(reshape(k3, hq, nheads, lk, nb), (1, 3, 2, 4)), hq, lk, 1, nheads, nb)
    scale = sqrt(convert(eltype(qh), hq))
    # logits[i, j, h, b]: key i against query j in head h
    logits = reshape(sum(kh .* permutedims(reshape(qh, hq, nheads, lq, 1, nb), (1, 4, 3, 2, 5)); dims=1),
                     lk, lq, nheads, nb) ./ scale
    bias === nothing || (logits = logits .+ bias)
    mask === nothing || (logits = ifelse.(mask, logits, typemin(eltype(logits))))
    α = fdrop(softmax(logits; dims=1))
    vh = reshape(permutedims(reshape(v3, hv, nheads, lk, nb), (1, 3, 2, 4)), hv, lk, 1, nheads, nb)
    x = reshape(sum(vh .* reshape(α, 1, lk, lq, nheads, nb); dims=2), hv, lq, nheads, nb)
    x = reshape(permutedims(x, (1, 3, 2, 4)), dv, lq, batch...)
    x, reshape(α, lk, lq, nheads, batch...)
end

Core.as3d(a) = reshape(a, size(a, 1), size(a, 2), :)

# mask[i, j] = i <= j: query j sees keys 1..j (Flux's causal mask over dimension `dims` of x)
make_causal_mask(x; dims=2) = [i <= j for i in 1:size(x, dims), j in 1:size(x, dims)]

struct MultiHeadAttention
    nheads
    q_proj
    k_proj
    v_proj
    attn_drop
    out_proj
end
Core.mha_dims(d::Integer) = ((d, d, d), (d, d), d)
function Core.mha_dims(p::Pair)
    ins, rest = p.first, p.second
    ins = ins isa Integer ? (ins, ins, ins) : ins
    hid, out = rest isa Pair ? (rest.first, rest.second) : (rest, rest)
    hid = hid isa Integer ? (hid, hid) : hid
    (ins, hid, out)
end
function MultiHeadAttention(dims; nheads::Integer=8, bias::Bool=false, init=glorot_uniform,
                            dropout_prob=0.0)
    (qi, ki, vi), (qk, vd), out = Core.mha_dims(dims)
    qk % nheads == 0 || throw(ArgumentError("MultiHeadAttention: qk_dim = $qk is not a multiple of nheads = $nheads"))
    vd % nheads == 0 || throw(ArgumentError("MultiHeadAttention: v_dim = $vd is not a multiple of nheads = $nheads"))
    MultiHeadAttention(nheads, Dense(qi => qk; bias=bias, init=init), Dense(ki => qk; bias=bias, init=init),
                       Dense(vi => vd; bias=bias, init=init), Dropout(dropout_prob),
                       Dense(vd => out; bias=bias, init=init))
end
(m::MultiHeadAttention)(qkv; kws...) = m(qkv, qkv, qkv; kws...)
(m::MultiHeadAttention)(q, kv; kws...) = m(q, kv, kv; kws...)
function (m::MultiHeadAttention)(q_in, k_in, v_in, bias=nothing; mask=nothing)
    q, k, v = m.q_proj(q_in), m.k_proj(k_in), m.v_proj(v_in)
    x, α = dot_product_attention(q, k, v, bias; nheads=m.nheads, mask=mask, fdrop=m.attn_drop)
    m.out_proj(x), α
end
function Base.show(io::IO, m::MultiHeadAttention)
    print(io, "MultiHeadAttention(", size(m.q_proj.weight, 2), " => ", size(m.q_proj.weight, 1),
          " => ", size(m.out_proj.weight, 1), "; nheads=", m.nheads, ")")
end

# Maxout: the elementwise maximum over the outputs of several layers
struct Maxout
    layers
    Maxout(layers...) = new(layers)
end
Maxout(f::Function, n_alts::Integer) = Maxout([f() for _ in 1:n_alts]...)
(m::Maxout)(x) = Core.maxout(m.layers, x)
Core.maxout(ls::Tuple, x) =
    length(ls) == 1 ? ls[1](x) : max.(ls[1](x), Core.maxout(Core.tail(ls), x))

# --- losses (Flux.Losses; `agg` reduces the elementwise losses, mean by default) ------------------

Core.epseltype(x) = eps(float(eltype(x)))

"""
    Flux.mse(ŷ, y; agg = mean)

The mean squared error, `agg(abs2.(ŷ .- y))`.
"""
mse(ŷ, y; agg=mean) = agg(abs2.(ŷ .- y))
mae(ŷ, y; agg=mean) = agg(abs.(ŷ .- y))
msle(ŷ, y; agg=mean, eps=Core.epseltype(ŷ)) = agg(abs2.(log.((ŷ .+ eps) ./ (y .+ eps))))
Core.ofeltype(x, v) = convert(float(eltype(x)), v)
function huber_loss(ŷ, y; agg=mean, delta=1, δ=delta)
    δ = Core.ofeltype(ŷ, δ)
    a = abs.(ŷ .- y)
    q = a .< δ
    agg(q .* (a .^ 2 ./ 2) .+ (1 .- q) .* (δ .* a .- δ^2 / 2))
end
"""
    Flux.crossentropy(ŷ, y; dims = 1, agg = mean, eps = eps(eltype(ŷ)))

The cross-entropy between probabilities `ŷ` (e.g. a `softmax` output) and targets `y`
(one-hot or probabilities) along `dims`: `agg(-sum(y .* log.(ŷ .+ eps); dims))`. For
unnormalised scores use `logitcrossentropy`, which is more accurate.
"""
crossentropy(ŷ, y; dims=1, agg=mean, eps=Core.epseltype(ŷ)) = agg(-sum(y .* log.(ŷ .+ eps); dims=dims))
"""
    Flux.logitcrossentropy(ŷ, y; dims = 1, agg = mean)

The cross-entropy of `softmax(ŷ; dims)` against `y`, computed from the scores `ŷ` with
`logsoftmax` (no `softmax` layer needed in the model):
`agg(-sum(y .* logsoftmax(ŷ; dims); dims))`.
"""
logitcrossentropy(ŷ, y; dims=1, agg=mean) = agg(-sum(y .* logsoftmax(ŷ; dims=dims); dims=dims))
binarycrossentropy(ŷ, y; agg=mean, eps=Core.epseltype(ŷ)) =
    agg(-(y .* log.(ŷ .+ eps) .+ (1 .- y) .* log.(1 .- ŷ .+ eps)))
logitbinarycrossentropy(ŷ, y; agg=mean) = agg((1 .- y) .* ŷ .- NNlib.logsigmoid.(ŷ))
kldivergence(ŷ, y; dims=1, agg=mean, eps=Core.epseltype(ŷ)) =
    agg(sum(y .* log.((y .+ eps) ./ (ŷ .+ eps)); dims=dims))

# x*log(x) and x*log(y), defined as 0 where x == 0 (unless y is NaN)
function xlogx(x)
    r = x * log(x)
    ifelse(iszero(x), zero(r), r)
end
function xlogy(x, y)
    r = x * log(y)
    ifelse(iszero(x) & !isnan(y), zero(r), r)
end
# Flux.Losses beyond the basic set (formulas as documented by Flux.Losses)
function label_smoothing(y, α; dims=1)
    0 < α < 1 || throw(ArgumentError("α must be between 0 and 1"))
    dims == 0 && return y .* (1 - α) .+ α / 2
    dims == 1 && return y .* (1 - α) .+ α / size(y, 1)
    throw(ArgumentError("`dims` should be either 0 or 1"))
end
hinge_loss(ŷ, y; agg=mean) = agg(max.(0, 1 .- ŷ .* y))
squared_hinge_loss(ŷ, y; agg=mean) = agg(max.(0, 1 .- ŷ .* y) .^ 2)
poisson_loss(ŷ, y; agg=mean) = agg(ŷ .- y .* log.(ŷ))
dice_coeff_loss(ŷ, y; smooth=1) =
    1 - (2 * sum(y .* ŷ) + smooth) / (sum(y .^ 2) + sum(ŷ .^ 2) + smooth)
function tversky_loss(ŷ, y; beta=0.7, β=beta)
    β = Core.ofeltype(ŷ, β)
    num = sum(y .* ŷ) + 1
    den = sum(y .* ŷ .+ β .* (1 .- y) .* ŷ .+ (1 - β) .* y .* (1 .- ŷ)) + 1
    1 - num / den
end
function binary_focal_loss(ŷ, y; agg=mean, gamma=2, γ=gamma, eps=Core.epseltype(ŷ), ϵ=eps)
    ŷϵ = ŷ .+ ϵ
    p_t = y .* ŷϵ .+ (1 .- y) .* (1 .- ŷϵ)
    agg(((1 .- p_t) .^ γ) .* (.-log.(p_t)))
end
function focal_loss(ŷ, y; dims=1, agg=mean, gamma=2, γ=gamma, eps=Core.epseltype(ŷ), ϵ=eps)
    ŷϵ = ŷ .+ ϵ
    agg(sum(.-y .* (1 .- ŷϵ) .^ γ .* log.(ŷϵ); dims=dims))
end
function siamese_contrastive_loss(ŷ, y; agg=mean, margin=1)
    margin < 0 && throw(DomainError(margin, "Margin must be non-negative"))
    agg((1 .- y) .* ŷ .^ 2 .+ y .* max.(0, margin .- ŷ) .^ 2)
end

# --- one-hot encoding ----------------------------------------------------------------------------

onehot(x, labels) = Core.onehotbatch([x], labels)[:, 1]
onehotbatch = Core.onehotbatch  # (an array of values: its dimensions follow the labels')
onecold(y::AbstractVector, labels=1:length(y)) = labels[argmax(y)]
onecold(y::AbstractMatrix, labels=1:size(y, 1)) = Core.onecold_labels(Core.argmax_cols(y), labels)
Core.onecold_labels(idx, labels::AbstractArray) = labels[idx]
Core.onecold_labels(idx, labels) = [labels[i] for i in idx]

# --- data loading (MLUtils) ------------------------------------------------------------------------

numobs(x) = MLUtils.numobs(x)
getobs(x::AbstractArray, idx) = MLUtils.getobs(x, idx)
getobs(x::Tuple, idx) = map(d -> getobs(d, idx), x)
getobs(x::NamedTuple, idx) = map(d -> getobs(d, idx), x)

# (the data is held by a host reference: a DataLoader is iterated on the host, and calls
# like length(loader) are not worth compiling)
struct DataLoader
    data
    batchsize
    shuffle
    partial
    n
end
function DataLoader(data; batchsize=1, shuffle=false, partial=true)
    batchsize > 0 || error("DataLoader: batchsize must be positive")
    DataLoader(Core.hostref(data), batchsize, shuffle, partial, MLUtils.numobs(data))
end
Base.length(d::DataLoader) = d.partial ? cld(d.n, d.batchsize) : d.n ÷ d.batchsize
Base.iterate(d::DataLoader) = iterate(d, (d.shuffle ? randperm(d.n) : collect(1:d.n), 1))
function Base.iterate(d::DataLoader, state)
    perm, i = state
    last = min(i + d.batchsize - 1, d.n)
    if i > d.n || (!d.partial && last - i + 1 < d.batchsize)
        return nothing
    end
    (getobs(Core.hostref_get(d.data), perm[i:last]), (perm, last + 1))
end

# Random.bitrand, StatsBase.sample (uniform draws; `replace=false` draws distinct ones)
bitrand(dims::Integer...) = rand(Bool, dims...)
sample(a::AbstractArray) = a[rand(1:length(a))]
# StatsBase.wsample(a, w): one element of a, drawn with probabilities proportional to w
function wsample(a, w)
    r = rand() * sum(w)
    c = zero(r)
    for i in eachindex(w)
        c += w[i]
        r <= c && return a[i]
    end
    a[end]
end
wsample(w) = wsample(1:length(w), w)
function sample(a::AbstractArray, n::Integer; replace::Bool=true)
    if replace
        return [a[rand(1:length(a))] for _ in 1:n]
    end
    n <= length(a) || throw(ArgumentError("sample: cannot draw $n distinct elements from $(length(a))"))
    a[randperm(length(a))[1:n]]
end

# MLUtils.splitobs(data; at, shuffle): the observations split at the fractions `at` (one
# fraction or a tuple of them), each part as getobs gives it
function splitobs(data; at=0.7, shuffle::Bool=false)
    n = numobs(data)
    idx = shuffle ? randperm(n) : collect(1:n)
    fracs = at isa Tuple ? at : (at,)
    sum(fracs) <= 1 || throw(ArgumentError("splitobs: the fractions in `at` add up to more than 1"))
    cuts = [0]
    for f in fracs
        push!(cuts, min(n, cuts[end] + round(Int, f * n)))
    end
    push!(cuts, n)
    ntuple(k -> getobs(data, idx[cuts[k] + 1:cuts[k + 1]]), length(cuts) - 1)
end
splitobs(n::Integer; at=0.7, shuffle::Bool=false) = splitobs(collect(1:n); at=at, shuffle=shuffle)
shuffleobs(data) = getobs(data, randperm(numobs(data)))
# a String's observations are its characters (getobs of a range: a String)
numobs(x::AbstractString) = length(x)
getobs(x::AbstractString, i) = x[i]
# chunk(x, n): n parts of nearly equal size along the last dimension; chunk(x; size)
chunk(x, n::Integer) = chunk(x; size=cld(numobs(x), n))
function chunk(x; size::Integer)
    N = numobs(x)
    [getobs(x, i:min(i + size - 1, N)) for i in 1:size:N]
end
# batch(xs): the observations stacked along a new last dimension; unbatch: the reverse
# (only for arrays of arrays: a program's own `batch(x)` keeps its other arguments, as in
# Julia, where MLUtils.batch is another function than Main.batch)
batch(xs::AbstractVector{<:AbstractArray}) = stack(xs)
batch(xs::AbstractVector{Any}) = stack(xs)  # (Zyla's vectors of arrays are Vector{Any})
unbatch(x::AbstractArray) = [getobs(x, i) for i in 1:numobs(x)]
# batchseq(seqs, pad): sequences of different lengths padded to the longest, then one
# batch per time step
function batchseq(seqs, pad=0)
    len = maximum(length, seqs)
    padded = [vcat(collect(s), fill(pad, len - length(s))) for s in seqs]
    [stack([p[t] for p in padded]) for t in 1:len]
end
rand_like(x::AbstractArray, T::Type=eltype(x), dims=size(x)) = rand(T, dims...)
randn_like(x::AbstractArray, T::Type=eltype(x), dims=size(x)) = randn(T, dims...)
zeros_like(x::AbstractArray, T::Type=eltype(x), dims=size(x)) = zeros(T, dims...)
ones_like(x::AbstractArray, T::Type=eltype(x), dims=size(x)) = ones(T, dims...)
fill_like(x::AbstractArray, v, T::Type=typeof(v), dims=size(x)) = fill(T(v), dims...)

# --- optimisers (Optimisers.jl: setup, then update! in place) ----------------------------------
#
# Rules are immutable structs, as in Optimisers.jl. Each has `Core.opt_init(rule, x)`, its
# state for a parameter array, and `Core.opt_apply(rule, state, x, dx) -> (state′, step)`,
# a pure function (so rules compose in an OptimiserChain and compile). Hyperparameters are
# stored as given (Float64 by default) and converted to each parameter's element type
# when applied, so Float32 models stay Float32. `update!` applies the rules of all the
# parameters in one call, compiled like a top-level call, then subtracts the steps from
# the parameters in place and keeps the new states in the mutable `Leaf`s of the tree.

# Optimisers.AbstractRule: a rule of the user's is a subtype with `Optimisers.init(rule, x)`
# (its state for a parameter array) and `Optimisers.apply!(rule, state, x, dx) ->
# (state′, step)`, written in Zyla like the rules here, so they compile and compose
abstract type AbstractRule end
Core.opt_init(o::AbstractRule, x) = init(o, x)
Core.opt_apply(o::AbstractRule, st, x, dx) = apply!(o, st, x, dx)

struct Descent <: AbstractRule
    eta
end
Descent() = Descent(0.1)

struct Momentum <: AbstractRule
    eta
    rho
end
Momentum(η=0.01, ρ=0.9) = Momentum(η, ρ)

struct Nesterov <: AbstractRule
    eta
    rho
end
Nesterov(η=0.001, ρ=0.9) = Nesterov(η, ρ)

struct RMSProp <: AbstractRule
    eta
    rho
    epsilon
end
RMSProp(η=0.001, ρ=0.9, ϵ=1.0e-8) = RMSProp(η, ρ, ϵ)

struct Adam <: AbstractRule
    eta
    beta
    epsilon
end
Adam(η=0.001, β=(0.9, 0.999), ϵ=1.0e-8) = Adam(η, β, ϵ)
ADAM = Adam

# AdamW with the decay coupled to the learning rate (Optimisers.jl's default):
# x ← x - η (Adam direction + λ x)
struct AdamW <: AbstractRule
    eta
    beta
    lambda
    epsilon
end
AdamW(η=0.001, β=(0.9, 0.999), λ=0.0, ϵ=1.0e-8; eta=η, beta=β, lambda=λ, epsilon=ϵ) =
    AdamW(eta, beta, lambda, epsilon)

struct WeightDecay <: AbstractRule
    lambda
end
WeightDecay() = WeightDecay(5.0e-4)

struct ClipGrad <: AbstractRule
    delta
end
ClipGrad() = ClipGrad(10.0)

struct ClipNorm <: AbstractRule
    omega
end
ClipNorm() = ClipNorm(10.0)

struct OptimiserChain <: AbstractRule
    opts
end
OptimiserChain(opts...) = OptimiserChain(opts)

# the rules without state, with one array of state (a velocity or an average of squares),
# and Adam's two moments with (β1^t, β2^t)
Core.opt_init(o::Union{Descent, WeightDecay, ClipGrad, ClipNorm}, x) = nothing
Core.opt_init(o::Union{Momentum, Nesterov, RMSProp}, x) = zero(x)
Core.opt_init(o::Union{Adam, AdamW}, x) = (zero(x), zero(x), (one(eltype(x)), one(eltype(x))))
Core.opt_init(o::OptimiserChain, x) = map(r -> Core.opt_init(r, x), o.opts)

Core.opt_apply(o::Descent, st, x, dx) = (st, convert(eltype(x), o.eta) .* dx)
function Core.opt_apply(o::Momentum, v, x, dx)
    T = eltype(x)
    v′ = convert(T, o.rho) .* v .+ convert(T, o.eta) .* dx
    (v′, v′)
end
function Core.opt_apply(o::Nesterov, v, x, dx)
    T = eltype(x)
    η, ρ = convert(T, o.eta), convert(T, o.rho)
    (ρ .* v .- η .* dx, (-ρ^2) .* v .+ ((1 + ρ) * η) .* dx)
end
function Core.opt_apply(o::RMSProp, acc, x, dx)
    T = eltype(x)
    ρ = convert(T, o.rho)
    acc′ = ρ .* acc .+ (1 - ρ) .* abs2.(dx)
    (acc′, convert(T, o.eta) .* dx ./ (sqrt.(acc′) .+ convert(T, o.epsilon)))
end
# Adam's moments and (β1^t, β2^t)
function Core.adam(η, β, ϵ, st, x, dx)
    T = eltype(x)
    mt, vt, βt = st
    β1, β2 = convert(T, β[1]), convert(T, β[2])
    βt′ = (βt[1] * β1, βt[2] * β2)
    mt′ = β1 .* mt .+ (1 - β1) .* dx
    vt′ = β2 .* vt .+ (1 - β2) .* abs2.(dx)
    ((mt′, vt′, βt′), convert(T, η) .* (mt′ ./ (1 - βt′[1])) ./ (sqrt.(vt′ ./ (1 - βt′[2])) .+ convert(T, ϵ)))
end
Core.opt_apply(o::Adam, st, x, dx) = Core.adam(o.eta, o.beta, o.epsilon, st, x, dx)
function Core.opt_apply(o::AdamW, st, x, dx)
    st′, step = Core.adam(o.eta, o.beta, o.epsilon, st, x, dx)
    (st′, step .+ convert(eltype(x), o.eta * o.lambda) .* x)
end
Core.opt_apply(o::WeightDecay, st, x, dx) = (st, dx .+ convert(eltype(x), o.lambda) .* x)
function Core.opt_apply(o::ClipGrad, st, x, dx)
    δ = convert(eltype(x), o.delta)
    (st, clamp.(dx, -δ, δ))
end
function Core.opt_apply(o::ClipNorm, st, x, dx)
    n = sqrt(sum(abs2.(dx)))
    (st, n > o.omega ? dx .* convert(eltype(x), o.omega / n) : dx)
end
Core.opt_apply(o::OptimiserChain, st, x, dx) = Core.chain_apply(o.opts, st, x, dx)
function Core.chain_apply(rules, sts, x, dx)
    length(rules) == 0 && return ((), dx)
    s1, d1 = Core.opt_apply(rules[1], sts[1], x, dx)
    rest, d = Core.chain_apply(Core.tail(rules), Core.tail(sts), x, d1)
    ((s1, rest...), d)
end

# one optimiser step of a whole model: the rules, states, parameters and gradients of its
# parameter arrays; `Core.apply_rules` gives each new state and step (one compiled
# executable per model structure and rules)
struct OptimiserStep
    rules
    states
    params
    grads
end
Core.apply_rules(s::OptimiserStep) =
    ntuple(i -> Core.opt_apply(s.rules[i], s.states[i], s.params[i], s.grads[i]), length(s.rules))

mutable struct Leaf
    rule
    state
    frozen::Bool  # Optimisers.freeze!: update! leaves its parameter as it is
end
Leaf(rule, state) = Leaf(rule, state, false)

# Flux.setup(rule, model): a Leaf per trainable float array of the model (see Core.setup);
# Optimisers.trainable(layer) names a layer's trainable fields (default: all of them)
"""
    Flux.setup(rule, model)

The optimiser state for training `model` with `rule` (`Adam(1e-3)`, `Descent(0.1)`,
`OptimiserChain(WeightDecay(1e-4), Adam())`, ...): a tree of the model's shape with one
state per trainable array. Pass it to `Flux.update!(state, model, grad)` or
`Flux.train!(loss, model, data, state)`; it keeps momenta between steps.

    opt_state = Flux.setup(Adam(3e-4), model)
"""
setup = Core.setup
trainable(x) = nothing
trainable(b::BatchNorm) = (β = b.β, γ = b.γ)

# Optimisers.update!(state, model, grad): every parameter array updated in place
function update!(s, x, dx)
    leaves, rules, states, xs, dxs = Core.opt_gather(s, x, dx)
    if length(leaves) > 0
        results = Core.offload_call(Core.apply_rules, OptimiserStep(rules, states, xs, dxs))
        Core.opt_commit!(leaves, xs, results)
    end
    s, x
end

# Optimisers.adjust!(state, η): a new learning rate for every rule of the tree
adjust!(s::Leaf, η) = (s.rule = Core.with_eta(s.rule, η))
adjust!(s::Nothing, η) = nothing
adjust!(s::Tuple, η) = foreach(c -> adjust!(c, η), s)
adjust!(s::NamedTuple, η) = foreach(c -> adjust!(c, η), values(s))
Core.with_eta(o::OptimiserChain, η) = OptimiserChain(map(r -> Core.with_eta(r, η), o.opts))
Core.with_eta(o::Union{WeightDecay, ClipGrad, ClipNorm}, η) = o  # no learning rate
Core.with_eta(o, η) = Functors.rebuild(o, (η, Core.tail(Functors.children(o))...))

# Flux.outputsize(m, size; padbatch): the size of m's output for an input of that size
# (computed by running m on zeros); @autosize's `_` is Core.autosize_dim of the size
# reaching a layer: its feature dimension, the last but one (the only one of a vector)
function outputsize(m, inputsize::Tuple; padbatch = false)
    x = zeros(Float32, padbatch ? (inputsize..., 1) : inputsize)
    size(m(x))
end
outputsize(m, inputsizes::Tuple...; padbatch = false) =
    size(m(map(s -> zeros(Float32, padbatch ? (s..., 1) : s), inputsizes)...))
Core.autosize_dim(sz::Tuple) = sz[max(1, length(sz) - 1)]

# Optimisers.freeze!(tree) / thaw!(tree): the leaves of a state tree (or of a part of it,
# `freeze!(state.layers[1])`) stop (start again) updating their parameters
freeze!(s::Leaf) = (s.frozen = true; nothing)
thaw!(s::Leaf) = (s.frozen = false; nothing)
freeze!(s::Nothing) = nothing
thaw!(s::Nothing) = nothing
freeze!(s::Union{Tuple,NamedTuple}) = (foreach(freeze!, values(s)); nothing)
thaw!(s::Union{Tuple,NamedTuple}) = (foreach(thaw!, values(s)); nothing)

# Optimisers.update(state, model, grad): as update!, on copies (the originals unchanged)
update(s, x, dx) = update!(deepcopy(s), deepcopy(x), dx)

# Flux.trainables(model): the trainable arrays of a model, in order
function trainables(m)
    out = []
    Core.trainables!(out, m)
    out
end
Core.trainables!(out, x::AbstractArray{<:AbstractFloat}) = push!(out, x)
Core.trainables!(out, x::AbstractArray) =
    eltype(x) <: Number ? nothing : foreach(c -> Core.trainables!(out, c), x)
Core.trainables!(out, x::Number) = nothing
Core.trainables!(out, x::Union{Tuple, NamedTuple}) = foreach(c -> Core.trainables!(out, c), x)
# (a layer's trainable fields in the order of its fields, as Optimisers.jl walks them, so
# that `destructure` reads them back in the same order)
function Core.trainables!(out, x)
    t = trainable(x)
    t === nothing && return foreach(c -> Core.trainables!(out, c), Functors.children(x))
    t isa NamedTuple || return foreach(c -> Core.trainables!(out, c), t)
    cs, names = Functors.children(x), fieldnames(typeof(x))
    foreach(i -> haskey(t, names[i]) ? Core.trainables!(out, cs[i]) : nothing, 1:length(cs))
end

# Flux.destructure(model): (flat, re), flat the trainable arrays of trainables(model) one
# after another, re(flat′) the model rebuilt around the arrays read back from flat′ (in
# each array's element type); differentiable in flat′ (structs rebuilt by their constructors)
function destructure(m)
    ps = trainables(m)
    flat = length(ps) == 0 ? Float32[] : reduce(vcat, [vec(p) for p in ps])
    flat, Restructure(m, length(flat))
end
struct Restructure
    model
    length
end
function (r::Restructure)(flat::AbstractVector)
    length(flat) == r.length || throw(DimensionMismatch(string("Restructure expected ",
        r.length, " parameters, got a vector of length ", length(flat))))
    first(Core.restructure(r.model, flat, 0))
end
Base.show(io::IO, r::Restructure) = print(io, "Restructure(", typeof(r.model), ", ..., ", r.length, ")")
Core.restructure(x::AbstractArray{<:AbstractFloat}, flat, off) =
    (reshape(Core.eltype_convert(eltype(x), flat[off+1:off+length(x)]), size(x)), off + length(x))
function Core.restructure(x::AbstractArray, flat, off)
    eltype(x) <: Number && return (x, off)
    out = []
    for c in x
        y, off = Core.restructure(c, flat, off)
        push!(out, y)
    end
    (out, off)
end
Core.restructure(x::Union{Number, Nothing, Function, Symbol, AbstractString}, flat, off) = (x, off)
function Core.restructure(x::Tuple, flat, off)
    length(x) == 0 && return ((), off)
    y, off = Core.restructure(x[1], flat, off)
    rest, off = Core.restructure(Core.tail(x), flat, off)
    ((y, rest...), off)
end
function Core.restructure(x::NamedTuple, flat, off)
    ys, off = Core.restructure(Core.ntvalues(x), flat, off)
    (Core.mk_namedtuple(keys(x), ys), off)
end
# NamedTuple{names}(values), with a rule passing the fields' cotangents back to the values
Core.mk_namedtuple(names, vals) = NamedTuple{names}(vals)
ChainRulesCore.rrule(::typeof(Core.mk_namedtuple), names, vals) =
    (Core.mk_namedtuple(names, vals), dy -> (NoTangent(), NoTangent(), Core.nt_cotangents(dy, names)))
Core.nt_cotangents(dy::Nothing, names) = nothing
Core.nt_cotangents(dy, names) = map(k -> haskey(dy, k) ? getproperty(dy, k) : nothing, names)
function Core.restructure(x, flat, off)
    cs = Functors.children(x)
    length(cs) == 0 && return (x, off)
    t = trainable(x)
    ys, off = t === nothing ? Core.restructure(cs, flat, off) :
        Core.restructure_some(cs, fieldnames(typeof(x)), t, flat, off)
    (Core.constructorof(typeof(x))(ys...), off)
end
# only the fields a layer names trainable (BatchNorm's β and γ) are read from flat
function Core.restructure_some(cs::Tuple, names, t, flat, off)
    length(cs) == 0 && return ((), off)
    y, off = haskey(t, names[1]) ? Core.restructure(cs[1], flat, off) : (cs[1], off)
    rest, off = Core.restructure_some(Core.tail(cs), Core.tail(names), t, flat, off)
    ((y, rest...), off)
end

# Flux.state(model): the model's arrays and numbers as nested NamedTuples and tuples
# (functions and other leaves become `()`), for saving; Flux.loadmodel!(dst, src) copies
# a state (or another model of the same structure) into dst's arrays in place
state(x::AbstractArray) = x
state(x::Union{Number, AbstractString, Symbol, Nothing}) = x
state(x::Tuple) = map(state, x)
state(x::NamedTuple) = map(state, x)
function state(x)
    cs = Functors.children(x)
    if length(cs) == 0
        return ()
    end
    NamedTuple{fieldnames(typeof(x))}(map(state, cs))
end
function loadmodel!(dst, src)
    Core.load_into!(dst, src isa NamedTuple || src isa Tuple ? src : state(src))
    dst
end
function Core.load_into!(dst::AbstractArray, src::AbstractArray)
    size(dst) == size(src) || throw(DimensionMismatch(string("loadmodel!: an array of size ",
        size(src), " cannot be loaded into one of size ", size(dst))))
    copyto!(dst, src)
end
Core.load_into!(dst, src) = nothing
Core.load_into!(dst::Union{Tuple, NamedTuple}, src::Union{Tuple, NamedTuple}) =
    foreach((d, s) -> Core.load_into!(d, s), values(dst), values(src))
function Core.load_into!(dst, src::NamedTuple)
    cs = Functors.children(dst)
    length(cs) == length(src) || throw(ArgumentError(string("loadmodel!: ", typeof(dst),
        " has ", length(cs), " fields, the state has ", length(src))))
    foreach((d, s) -> Core.load_into!(d, s), cs, values(src))
end

# devices (MLDataDevices): this process computes where XLA places arrays; moving a model
# to a device returns it unchanged
struct CPUDevice end
(d::CPUDevice)(x) = x
cpu_device() = CPUDevice()
gpu_device(args...; kws...) = CPUDevice()
get_device(x) = CPUDevice()
get_device() = CPUDevice()  # (the best device of this process: the CPU here)

# --- training ------------------------------------------------------------------------------------

Core.batch_args(d::Tuple) = d
Core.batch_args(d) = (d,)

# one compiled gradient step (the closure captures nothing that is reassigned, so it can
# enter compiled code)
Core.train_step(loss, model, args) = Core.offload_call(withgradient, m -> loss(m, args...), model)

# an optimiser state (what `setup` returns) is used as it is; a rule passed in its place
# (`train!(loss, model, data, Descent(0.1))`, as older Flux documentation writes it) gets a
# fresh state for this call, with Flux's warning, as Flux 0.14-0.16 do
Core.as_state(s::Union{Leaf, Tuple, NamedTuple, Nothing}, model) = s
function Core.as_state(rule, model)
    Core.warn_once("train_rule", "train!(loss, model, data, rule) makes a new optimiser " *
                   "state each call: write `opt_state = Flux.setup(rule, model)` once and " *
                   "pass opt_state, so that momentum and Adam's moments persist")
    setup(rule, model)
end

# Flux 0.16.11's one step of train!: the loss of the batch, its gradient, the update
function trainstep_withgradient!(loss, model, batch::Tuple, opt_state)
    l, gs = Core.train_step(loss, model, batch)
    update!(opt_state, model, gs[1])
    (l, gs[1])
end
trainstep!(loss, model, batch::Tuple, opt_state) =
    first(trainstep_withgradient!(loss, model, batch, opt_state))

# Flux.train!(loss, model, data, opt_state): one gradient step per element of data, each
# step compiled to one XLA executable (offloaded like a top-level call) and the update
# applied in place on the host.
"""
    Flux.train!(loss, model, data, opt_state)

One gradient step per element `d` of `data`: the gradient of `loss(model, d...)` with
respect to `model` (each step compiled to one executable), then `Flux.update!` of the
model in place with `opt_state` (made by `Flux.setup`; a bare rule works but makes new
state on every call).

    Flux.train!((m, x, y) -> Flux.mse(m(x), y), model, [(x, y)], opt_state)
"""
function train!(loss, model, data, opt; cb=nothing)
    opt = Core.as_state(opt, model)
    for d in data
        l, gs = Core.train_step(loss, model, Core.batch_args(d))
        isfinite(l) || error("Loss is $l on data item, stopping training")
        update!(opt, model, gs[1])
        cb === nothing || cb()
    end
    nothing
end
