# Facts from FluxML/Flux.jl test/losses.jl (ported for Zyla's conformance suite).
# Upstream reassigns the globals `y`, `ŷ`, ... between testsets; here each testset builds
# its own data (same values).
using Flux, Test
using Flux: onehotbatch
using Flux.Losses
using Flux.Losses: xlogx, xlogy
using Statistics

# the list of losses upstream's test module keeps (ALL_LOSSES)
const LOSS_FUNCTIONS = [Flux.Losses.mse, Flux.Losses.mae, Flux.Losses.msle,
                        Flux.Losses.crossentropy, Flux.Losses.logitcrossentropy,
                        Flux.Losses.binarycrossentropy, Flux.Losses.logitbinarycrossentropy,
                        Flux.Losses.kldivergence,
                        Flux.Losses.huber_loss,
                        Flux.Losses.tversky_loss,
                        Flux.Losses.dice_coeff_loss,
                        Flux.Losses.poisson_loss,
                        Flux.Losses.hinge_loss, Flux.Losses.squared_hinge_loss,
                        Flux.Losses.binary_focal_loss, Flux.Losses.focal_loss,
                        Flux.Losses.siamese_contrastive_loss]

@testset "xlogx & xlogy" begin
  @test iszero(xlogx(0))
  @test isnan(xlogx(NaN))
  @test xlogx(2) ≈ 2.0 * log(2.0)
  xlogx(2)   # upstream: @inferred
  xlogx(0)   # upstream: @inferred

  @test iszero(xlogy(0, 1))
  @test isnan(xlogy(NaN, 1))
  @test isnan(xlogy(1, NaN))
  @test isnan(xlogy(NaN, NaN))
  @test xlogy(2, 3) ≈ 2.0 * log(3.0)
  xlogy(2, 3)  # upstream: @inferred
  xlogy(0, 1)  # upstream: @inferred
end

@testset "mse" begin
  target = [1, 1, 0, 0]
  pred = [0.9, 0.1, 0.1, 0.9]
  @test mse(pred, target) ≈ (0.1^2 + 0.9^2) / 2
  # complex numbers are accepted
  @test mse(0 + 0im, 1 + 1im) == 2
end

@testset "mae" begin
  target = [1, 1, 0, 0]
  pred = [0.9, 0.1, 0.1, 0.9]
  @test Flux.mae(pred, target) ≈ 1 / 2
end

@testset "huber_loss" begin
  target = [1, 1, 0, 0]
  pred = [0.9, 0.1, 0.1, 0.9]
  @test Flux.huber_loss(pred, target) ≈ 0.20500000000000002
end

@testset "msle" begin
  target = [123.0, 456.0, 789.0]
  pred = [345.0, 332.0, 789.0]
  @test Flux.msle(pred, target) ≈ 0.38813985859136585
end

@testset "crossentropy" begin
  sf = 0.1
  labels = onehotbatch([1, 1, 0, 0], 0:1)
  labels_smooth = label_smoothing(labels, 0.1)
  probs = [0.1 0.9; 0.9 0.1; 0.9 0.1; 0.1 0.9]'
  expected = 1.203972804325936
  expected_smooth = 1.2039728043259348
  one_label = onehotbatch([1], 0:1)
  one_label_smoothed = [sf (1 - sf)]'   # what smoothing by 2sf gives for one_label
  one_prob = [0.9 0.1]'

  # near / far predictions: smoothing raises the loss of the first, lowers the other's
  many = onehotbatch([1, 1, 1, 0, 0], 0:1)
  many_smooth = label_smoothing(many, 2sf)
  same = Float32.(many)
  near = same .* (1 - 2 * sf) .+ sf
  far = copy(near)
  far[1, :], far[2, :] = far[2, :], far[1, :]

  @test crossentropy([0.1, 0.0, 0.9], [0.1, 0.0, 0.9]) ≈ crossentropy([0.1, 0.9], [0.1, 0.9])
  @test crossentropy(probs, labels) ≈ expected
  @test crossentropy(probs, labels_smooth) ≈ expected_smooth
  @test crossentropy(one_prob, label_smoothing(one_label, 2sf)) ≈ -sum(one_label_smoothed .* log.(one_prob))
  @test crossentropy(one_prob, one_label) ≈ -sum(one_label .* log.(one_prob))
  @test iszero(crossentropy(same, many, eps = 0))
  @test iszero(crossentropy(many, many, eps = 0))
  @test crossentropy(near, many) < crossentropy(near, many_smooth)
  @test crossentropy(far, many) > crossentropy(far, many_smooth)
end

@testset "logitcrossentropy" begin
  sf = 0.1
  labels = onehotbatch([1, 1, 0, 0], 0:1)
  v = log(0.1 / 0.9)
  logits = [v 0.0; 0.0 v; 0.0 v; v 0.0]'
  expected = 1.203972804325936
  one_label = onehotbatch([1], 0:1)
  one_label_smoothed = [sf (1 - sf)]'
  one_logit = [0.0 v]'

  @test logitcrossentropy(logits, labels) ≈ expected
  @test logitcrossentropy(one_logit, one_label) ≈ -sum(one_label .* logsoftmax(one_logit))
  @test logitcrossentropy(one_logit, label_smoothing(one_label, 2sf)) ≈ -sum(one_label_smoothed .* logsoftmax(one_logit))
end

@testset "binarycrossentropy" begin
  sf = 0.1
  logits, target = randn(3), rand(3)
  smoothed = target .* (1 - 2sf) .+ sf
  p = σ.(logits)
  @test binarycrossentropy.(p, label_smoothing(target, 2sf; dims = 0); eps = 0) ≈ -smoothed .* log.(p) - (1 .- smoothed) .* log.(1 .- p)
  @test binarycrossentropy(p, target; eps = 0) ≈ mean(-target .* log.(p) - (1 .- target) .* log.(1 .- p))
  @test binarycrossentropy(p, target) ≈ mean(-target .* log.(p .+ eps.(p)) - (1 .- target) .* log.(1 .- p .+ eps.(p)))
  # a constant label
  @test binarycrossentropy([0.1, 0.2, 0.9], 1) ≈ -mean(log, [0.1, 0.2, 0.9])
end

@testset "logitbinarycrossentropy" begin
  logits, target = randn(3), rand(3)
  @test logitbinarycrossentropy.(logits, label_smoothing(target, 0.2)) ≈ binarycrossentropy.(σ.(logits), label_smoothing(target, 0.2); eps = 0)
  @test logitbinarycrossentropy(logits, target) ≈ binarycrossentropy(σ.(logits), target; eps = 0)
end

@testset "label_smoothing" begin
  lab = onehotbatch([1], 0:1)
  smooth = [0.1 0.9]'
  @test label_smoothing(lab, 0.2) == smooth
  @test label_smoothing(lab, 0.2; dims = 0) == label_smoothing.(lab, 0.2; dims = 0)
  @test_throws ArgumentError label_smoothing([0.0, 0.0, 1.0, 0.0], 1.2)
  @test_throws ArgumentError label_smoothing([0.0, 0.0, 1.0, 0.0], 0.0)
end

@testset "kldivergence" begin
  target = [1 2 3]
  pred = [4.0 5.0 6.0]
  @test Flux.kldivergence([0.1, 0.0, 0.9], [0.1, 0.0, 0.9]) ≈ Flux.kldivergence([0.1, 0.9], [0.1, 0.9])
  @test Flux.kldivergence(pred, target) ≈ -1.7661057888493457
  @test Flux.kldivergence(target, target) ≈ 0
end

@testset "hinge_loss" begin
  target = [1 2 3 4]
  pred = [5.0 6.0 7.0 8.0]
  @test Flux.hinge_loss(pred, target) ≈ 0
  @test Flux.hinge_loss(target, 0.5 .* target) ≈ 0.125
end

@testset "squared_hinge_loss" begin
  target = [1 2 3 4]
  pred = [5.0 6.0 7.0 8.0]
  @test Flux.squared_hinge_loss(pred, target) ≈ 0
  @test Flux.squared_hinge_loss(target, 0.5 .* target) ≈ 0.0625
end

@testset "poisson_loss" begin
  target = [0.1 0.2 0.3]
  pred = [0.4 0.5 0.6]
  @test Flux.poisson_loss(pred, target) ≈ 0.6278353988097339
  @test Flux.poisson_loss(target, target) ≈ 0.5044459776946685
end

@testset "dice_coeff_loss" begin
  target = [1.0 0.5 0.3 2.4]
  pred = [0 1.4 0.5 1.2]
  @test Flux.dice_coeff_loss(pred, target) ≈ 0.2799999999999999
  @test Flux.dice_coeff_loss(target, target) ≈ 0.0
end

@testset "tversky_loss" begin
  target = [1.0 0.5 0.3 2.4]
  pred = [0 1.4 0.5 1.2]
  @test Flux.tversky_loss(pred, target) ≈ -0.06772009029345383
  @test Flux.tversky_loss(pred, target, beta = 0.8) ≈ -0.09490740740740744
  @test Flux.tversky_loss(target, target) ≈ -0.5576923076923075
end

@testset "no spurious promotions" begin
  for T in (Float32, Float64)
    target = rand(T, 2)
    pred = rand(T, 2)
    for lossfn in LOSS_FUNCTIONS
      val, back = Flux.pullback(lossfn, pred, target)
      @test val isa T
      @test eltype(back(one(T))[1]) == T
    end
  end
end

@testset "binary_focal_loss" begin
  lab = [0 1 0
         1 0 1]
  pr = [0.268941 0.5 0.268941
        0.731059 0.5 0.731059]
  lab1 = [1 0
          0 1]
  pr1 = [0.6 0.3
         0.4 0.7]
  @test Flux.binary_focal_loss(pr, lab) ≈ 0.0728675615927385
  @test Flux.binary_focal_loss(pr1, lab1) ≈ 0.05691642237852222
  @test Flux.binary_focal_loss(pr, lab; gamma = 0.0) ≈ Flux.binarycrossentropy(pr, lab)
end

@testset "focal_loss" begin
  lab = [1 0 0 0 1
         0 1 0 1 0
         0 0 1 0 0]
  pr = softmax(reshape(-7:7, 3, 5) .* 1f0)
  lab1 = [1 0
          0 0
          0 1]
  pr1 = [0.4 0.2
         0.5 0.5
         0.1 0.3]
  @test Flux.focal_loss(pr, lab) ≈ 1.1277571935622628
  @test Flux.focal_loss(pr1, lab1) ≈ 0.45990566879720157
  @test Flux.focal_loss(pr, lab; gamma = 0) ≈ Flux.crossentropy(pr, lab)
end

@testset "siamese_contrastive_loss" begin
  lab = [1 0
         0 0
         0 1]
  pr = [0.4 0.2
        0.5 0.5
        0.1 0.3]
  lab1 = [1 0 0 0 1
          0 1 0 1 0
          0 0 1 0 0]
  pr1 = softmax(reshape(-7:7, 3, 5) .* 1.0f0)
  lab2 = [1
          0
          0
          1
          1]
  pr2 = [0.6
         0.4
         0.1
         0.2
         0.7]
  @test Flux.siamese_contrastive_loss(pr, lab) ≈ 0.2333333333333333
  @test Flux.siamese_contrastive_loss(pr, lab, margin = 0.5f0) ≈ 0.10000000000000002
  @test Flux.siamese_contrastive_loss(pr, lab, margin = 1.5f0) ≈ 0.5333333333333333
  @test Flux.siamese_contrastive_loss(pr1, lab1) ≈ 0.32554644f0
  @test Flux.siamese_contrastive_loss(pr1, lab1, margin = 0.5f0) ≈ 0.16271012f0
  @test Flux.siamese_contrastive_loss(pr1, lab1, margin = 1.5f0) ≈ 0.6532292f0
  @test Flux.siamese_contrastive_loss(pr, lab, margin = 1) ≈ Flux.siamese_contrastive_loss(pr, lab)
  @test Flux.siamese_contrastive_loss(lab, lab) ≈ 0.0
  @test Flux.siamese_contrastive_loss(lab1, lab1) ≈ 0.0
  @test Flux.siamese_contrastive_loss(pr, lab, margin = 0) ≈ 0.09166666666666667
  @test Flux.siamese_contrastive_loss(pr1, lab1, margin = 0) ≈ 0.13161165f0
  @test Flux.siamese_contrastive_loss(pr2, lab2) ≈ 0.21200000000000005
  @test Flux.siamese_contrastive_loss(pr2, pr2) ≈ 0.18800000000000003
  @test_throws DomainError(-0.5, "Margin must be non-negative") Flux.siamese_contrastive_loss(pr1, lab1, margin = -0.5)
  @test_throws DomainError(-1, "Margin must be non-negative") Flux.siamese_contrastive_loss(pr, lab, margin = -1)
end
