# Facts from FluxML/Flux.jl test/layers/conv.jl (ported for Zyla's conformance suite).
# (upstream literals written `0.f0`, `2.f0`, `4.f0` are spelled `0.0f0` etc.: Zyla cannot parse `0.f0`)
using Flux, Test
using Statistics

@testset "Pooling" begin
  a = randn(Float32, 10, 10, 3, 2)
  b = randn(Float32, 20, 20, 3, 2)
  pool = AdaptiveMaxPool((5, 5))
  @test pool(a) == maxpool(a, PoolDims(a, 2))
  pool = AdaptiveMeanPool((5, 5))
  @test pool(a) == meanpool(a, PoolDims(a, 2))
  pool = AdaptiveMaxPool((10, 5))
  @test pool(b) == maxpool(b, PoolDims(b, (2, 4)))
  pool = AdaptiveMeanPool((10, 5))
  @test pool(b) == meanpool(b, PoolDims(b, (2, 4)))
  pool = GlobalMaxPool()
  @test size(pool(a)) == (1, 1, 3, 2)
  pool = GlobalMeanPool()
  @test size(pool(a)) == (1, 1, 3, 2)
  pool = MaxPool((2, 2))
  @test pool(a) == maxpool(a, PoolDims(a, 2))
  pool = MeanPool((2, 2))
  @test pool(a) == meanpool(a, PoolDims(a, 2))
end

@testset "CNN" begin
  imgs = zeros(Float32, 28, 28, 1, 5)
  net = Chain(
    Conv((2, 2), 1 => 16, relu),
    MaxPool((2, 2)),
    Conv((2, 2), 16 => 8, relu),
    MaxPool((2, 2)),
    h -> reshape(h, :, size(h, 4)),
    Dense(288, 10), softmax)

  @test size(net(imgs)) == (10, 5)

  # an explicit bias
  withbias = Conv(ones(Float32, 2, 2, 1, 3), ones(Float32, 3))
  blank = zeros(Float32, 28, 28, 1, 1)
  res = withbias(blank)
  @test sum(res) == prod(size(res))

  @testset "No bias mapped through $lmap" for lmap in (identity, cpu, f32)
    layer = Conv((2, 2), 1 => 3, bias = false) |> lmap
    res = layer(blank)
    @test sum(res) ≈ 0.0f0
    g = gradient(m -> sum(m(blank)), layer)[1]
    @test g.bias isa Nothing
  end

  @testset "no bias train" begin
    # without a bias, a target that only a bias could reach is never reached
    layer = Conv((2, 2), 1 => 3, bias = false)
    inp = zeros(Float32, 28, 28, 1, 1)
    target = zeros(Float32, 27, 27, 3, 1) .+ 2.0f0
    state = Flux.setup(Descent(), layer)

    for _ = 1:10^3
      # upstream: `gradient(model) do m ... end[1]`; Zyla cannot parse indexing after `end`
      g = gradient(m -> Flux.mse(m(inp), target), layer)[1]
      Flux.update!(state, layer, g)
    end

    @test Flux.Losses.mse(layer(inp), target) ≈ 4.0f0
  end

  @testset "Grouped Conv" begin
    inp = rand(Float32, 28, 100, 2)
    layer = Conv((3,), 100 => 25, groups = 5)
    @test size(layer.weight) == (3, 20, 25)
    @test size(layer(inp)) == (26, 25, 2)

    inp = rand(Float32, 28, 28, 100, 2)
    layer = Conv((3, 3), 100 => 25, groups = 5)
    @test size(layer.weight) == (3, 3, 20, 25)
    @test size(layer(inp)) == (26, 26, 25, 2)

    inp = rand(Float32, 10, 11, 12, 100, 2)
    layer = Conv((3, 4, 5), 100 => 25, groups = 5)
    @test size(layer.weight) == (3, 4, 5, 20, 25)
    @test size(layer(inp)) == (8, 8, 8, 25, 2)

    # channel counts must be multiples of groups
    @test_throws AssertionError Conv((2, 2), 3 => 10, groups = 2)
    @test_throws AssertionError Conv((2, 2), 2 => 9, groups = 2)

    # an initializer returning the wrong shape is a DimensionMismatch
    @test_throws DimensionMismatch Conv(
      (3, 3),
      1 => 1;
      init = (_...) -> rand(3, 3, 1),
    )
  end
end

@testset "_channels_in, _channels_out" begin
  chin = Flux._channels_in
  chout = Flux._channels_out
  @test chin(Conv((3,), 2 => 4)) == 2
  @test chin(Conv((5, 6), 2 => 4)) == 2
  @test chin(Conv((1, 2, 3), 2 => 4)) == 2
  @test chout(Conv((3,), 2 => 4)) == 4
  @test chout(Conv((5, 6), 2 => 4)) == 4
  @test chout(Conv((1, 2, 3), 2 => 4)) == 4

  @test chin(ConvTranspose((3,), 1 => 4)) == 1
  @test chin(ConvTranspose((5, 6), 2 => 4)) == 2
  @test chin(ConvTranspose((1, 2, 3), 3 => 4)) == 3
  @test chout(ConvTranspose((3,), 2 => 1)) == 1
  @test chout(ConvTranspose((5, 6), 2 => 2)) == 2
  @test chout(ConvTranspose((1, 2, 3), 2 => 3)) == 3

  @test chin(ConvTranspose((6,), 8 => 4, groups = 4)) == 8
  @test chin(ConvTranspose((5, 6), 2 => 4, groups = 2)) == 2
  @test chin(ConvTranspose((1, 2, 3), 3 => 6, groups = 3)) == 3

  @test chout(ConvTranspose((1,), 10 => 15, groups = 5)) == 15
  @test chout(ConvTranspose((3, 2), 10 => 15, groups = 5)) == 15
  @test chout(ConvTranspose((5, 6), 2 => 2, groups = 2)) == 2

  for L in [Conv, ConvTranspose]
    for _ in 1:10
      groups = rand(1:10)
      ks = Tuple(rand(1:5) for _ in rand(1:3))
      cin = rand(1:5) * groups
      cout = rand(1:5) * groups
      @test chin(L(ks, cin => cout; groups)) == cin
      @test chout(L(ks, cin => cout; groups)) == cout
    end
  end
end

@testset "asymmetric padding" begin
  img = ones(Float32, 28, 28, 1, 1)
  layer = Conv((3, 3), 1 => 1, relu; pad = (0, 1, 1, 2))
  layer.weight[:] .= 1.0
  layer.bias[:] .= 0.0
  out = layer(img)[:, :, 1, 1]
  @test size(out) == (27, 29)
  @test out[1, 1] ≈ 6.0
  @test out[2, 2] ≈ 9.0
  @test out[end, 1] ≈ 4.0
  @test out[1, end] ≈ 3.0
  @test out[1, end-1] ≈ 6.0
  @test out[end, end] ≈ 2.0
end

@testset "Depthwise Conv" begin
  imgs = zeros(Float32, 28, 28, 3, 5)
  dw1 = DepthwiseConv((2, 2), 3 => 15)
  @test size(dw1(imgs), 3) == 15

  dw2 = DepthwiseConv((2, 3), 3 => 9)
  @test size(dw2(imgs), 3) == 9

  dw3 = DepthwiseConv((2, 3), 3 => 9; bias = false)
  @test size(dw2(imgs), 3) == 9   # (upstream checks dw2 again here)

  # the output channels must be a multiple of the input channels
  @test_throws AssertionError DepthwiseConv((2, 2), 3 => 10)
end

@testset "ConvTranspose" begin
  a = zeros(Float32, 5, 5, 1, 1)
  b = Conv((3, 3), 1 => 1)(a)
  back1 = ConvTranspose((3, 3), 1 => 1)(b)
  back2 = ConvTranspose((3, 3), 1 => 1, bias = false)(b)
  @test size(back1) == size(back2) == size(a)

  layer = ConvTranspose((3, 3), 1 => 1)
  # the gradient call must not throw (Flux #900)
  g = gradient(m -> sum(m(a)), layer)[1]

  a = zeros(Float32, 5, 5, 2, 4)
  layer = ConvTranspose((3, 3), 2 => 3)
  g = gradient(m -> sum(m(a)), layer)[1]

  # the groups keyword
  a = randn(Float32, 10, 10, 2, 3)
  ct1 = ConvTranspose((3, 3), 2 => 4, pad = SamePad())
  @test size(ct1.weight) == (3, 3, 4, 2)
  @test size(ct1(a)) == (10, 10, 4, 3)
  ct2 = ConvTranspose((3, 3), 2 => 4, groups = 2, pad = SamePad())
  @test size(ct2.weight) == (3, 3, 2, 2)
  @test size(ct1(a)) == size(ct2(a))
  g = gradient(m -> sum(m(a)), ct2)[1]

  a = randn(Float32, 10, 2, 1)
  layer = ConvTranspose((3,), 2 => 4, pad = SamePad(), groups = 2)
  @test size(layer(a)) === (10, 4, 1)
  @test length(layer.weight) == (3) * (2 * 4) / 2

  a = randn(Float32, 10, 11, 4, 2)
  layer = ConvTranspose((3, 5), 4 => 4, pad = SamePad(), groups = 4)
  @test size(layer(a)) === (10, 11, 4, 2)
  @test length(layer.weight) == (3 * 5) * (4 * 4) / 4

  a = randn(Float32, 10, 11, 12, 3, 2)
  layer = ConvTranspose((3, 5, 3), 3 => 6, pad = SamePad(), groups = 3)
  @test size(layer(a)) === (10, 11, 12, 6, 2)
  @test length(layer.weight) == (3 * 5 * 3) * (3 * 6) / 3

  @test occursin("groups=2", sprint(show, ConvTranspose((3, 3), 2 => 4, groups = 2)))
  @test occursin("2 => 4", sprint(show, ConvTranspose((3, 3), 2 => 4, groups = 2)))

  # the outpad keyword, for stride > 1
  a = randn(Float32, 10, 11, 3, 2)
  ct1 = ConvTranspose((3, 5), 3 => 6, stride = 3)
  ct2 = ConvTranspose((3, 5), 3 => 6, stride = 3, outpad = (1, 0))
  @test size(ct2(a))[1:2] == (size(ct1(a))[1:2] .+ (1, 0))

  a = randn(Float32, 10, 11, 12, 3, 2)
  ct1 = ConvTranspose((3, 5, 3), 3 => 6, stride = 3)
  ct2 = ConvTranspose((3, 5, 3), 3 => 6, stride = 3, outpad = (1, 0, 1))
  @test size(ct2(a))[1:3] == (size(ct1(a))[1:3] .+ (1, 0, 1))
end

@testset "CrossCor" begin
  img = rand(Float32, 28, 28, 1, 1)
  w = rand(Float32, 2, 2, 1, 1)
  cc = CrossCor(w, [0.0])

  @test sum(w .* img[1:2, 1:2, :, :]) ≈ cc(img)[1, 1, 1, 1]  rtol=2e-7

  imgs = zeros(Float32, 28, 28, 1, 5)
  net = Chain(
    CrossCor((2, 2), 1 => 16, relu),
    MaxPool((2, 2)),
    CrossCor((2, 2), 16 => 8, relu; bias = false),
    MaxPool((2, 2)),
    h -> reshape(h, :, size(h, 4)),
    Dense(288, 10), softmax)

  @test size(net(imgs)) == (10, 5)
  @test cc(img) != Conv(w, [0.0])(img)
  @test CrossCor(w[end:-1:1, end:-1:1, :, :], [0.0])(img) ≈ Conv(w, [0.0])(img)  rtol=1e-7
end

@testset "Conv with non quadratic window #700" begin
  impulse = zeros(Float32, 7, 7, 1, 1)
  impulse[4, 4, 1, 1] = 1

  layer = Conv((3, 3), 1 => 1)
  want = zeros(eltype(layer.weight), 5, 5, 1, 1)
  want[2:end-1, 2:end-1, 1, 1] = layer.weight
  @test want ≈ layer(impulse)

  layer = Conv((3, 1), 1 => 1)
  want = zeros(eltype(layer.weight), 5, 7, 1, 1)
  want[2:end-1, 4, 1, 1] = layer.weight
  @test want ≈ layer(impulse)

  layer = Conv((1, 3), 1 => 1)
  want = zeros(eltype(layer.weight), 7, 5, 1, 1)
  want[4, 2:end-1, 1, 1] = layer.weight
  @test want ≈ layer(impulse)

  @test begin
    # this must not throw
    randn(Float32, 10, 10, 1, 1) |> Conv((6, 1), 1 => 1, Flux.σ)
    true
  end
end

@testset "$ltype $(nd)D symmetric non-constant padding" for ltype in (Conv, ConvTranspose, DepthwiseConv, CrossCor), nd in (1, 2, 3)
  ks = ntuple(Returns(3), nd)
  data = ones(Float32, (ks .+ 5)..., 1, 1)

  p = ntuple(i -> i, nd)
  layer = ltype(ks, 1 => 1, pad = p)

  # each dimension's padding written out for both sides
  p2 = ntuple(i -> p[(i - 1) ÷ 2 + 1], 2 * nd)
  layer2 = ltype(ks, 1 => 1, pad = p2)

  @test size(layer(data)) == size(layer2(data))
end

@testset "$ltype SamePad kernelsize $k" for ltype in (Conv, ConvTranspose, DepthwiseConv, CrossCor), k in ((1,), (2,), (3,), (4, 5), (6, 7, 8))
  data = ones(Float32, (k .+ 3)..., 1, 1)
  layer = ltype(k, 1 => 1, pad = SamePad())
  @test size(layer(data)) == size(data)

  layer = ltype(k, 1 => 1, pad = SamePad(), dilation = k .÷ 2)
  @test size(layer(data)) == size(data)

  s = 3
  layer = ltype(k, 1 => 1, pad = SamePad(), stride = s)
  if ltype == ConvTranspose
    @test size(layer(data))[1:end-2] == s .* size(data)[1:end-2]
  else
    @test size(layer(data))[1:end-2] == cld.(size(data)[1:end-2], s)
  end
end

@testset "$ltype SamePad windowsize $k" for ltype in (MeanPool, MaxPool), k in ((1,), (2,), (3,), (4, 5), (6, 7, 8))
  data = ones(Float32, (k .+ 3)..., 1, 1)
  layer = ltype(k, pad = SamePad())
  @test size(layer(data))[1:end-2] == cld.(size(data)[1:end-2], k)
end

@testset "bugs fixed" begin
  # Flux issue #1421
  @test Conv((5, 5), 10 => 20, identity; init = Base.randn).bias isa Vector{Float64}
end

@testset "constructors: $fun" for fun in [Conv, CrossCor, ConvTranspose, DepthwiseConv]
  @test fun(rand(2, 3, 4)).bias isa Vector{Float64}
  @test fun(rand(2, 3, 4, 5), false).bias === false
  if fun == Conv
    @test fun(rand(2, 3, 4, 5, 6), rand(6)).bias isa Vector{Float64}
    # upstream's `@test_skip fun(rand(2,3,4,5,6), 1:6).bias isa Vector{Float64}` is not run
    # by Julia either: left out.
  elseif fun == DepthwiseConv
    @test fun(rand(2, 3, 4, 5, 6), rand(30)).bias isa Vector{Float64}
  end
  @test_throws DimensionMismatch fun(rand(2, 3, 4), rand(6))
end

@testset "type matching" begin
  a = rand(Float64, 10, 2, 5)
  ai = rand(-3:3, 10, 2, 5)
  c1 = Conv((3,), 2 => 4, relu)
  @test c1(a) isa Array{Float32,3}   # upstream wraps the call in @inferred
  @test c1(ai) isa Array{Float32,3}

  c2 = CrossCor((3,), 2 => 1, relu)
  @test c2(a) isa Array{Float32,3}   # upstream wraps the call in @inferred

  c3 = ConvTranspose((3,), 2 => 4, relu)
  @test c3(a) isa Array{Float32,3}
  @test (c3(a); true)                # upstream: (@inferred c3(x); true)
end
