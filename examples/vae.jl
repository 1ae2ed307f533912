# A variational autoencoder, as in Flux's model zoo (vision/vae_mnist), on the 8×8
# handwritten digits in data/ (UCI Optical Recognition of Handwritten Digits, CC BY 4.0)
# scaled to [0, 1]. The encoder maps an image to the mean μ and the log-variance log σ² of
# a Gaussian over a small latent space; a latent point z = μ + σ .* ε (ε ~ N(0, 1): the
# reparameterisation trick, so the gradient flows through μ and σ) is decoded back into
# the pixels' logits. The loss, per image, is the negative evidence lower bound:
# reconstruction (binary cross-entropy of the pixels) + KL(q(z | x) ‖ N(0, I)).
#
#   zyla run examples/vae.jl          # full run
#   zyla run examples/vae.jl --fast   # the quick variant the test suite runs
using Flux, Random, Statistics
using Flux: logitbinarycrossentropy, DataLoader
include("digits_data.jl")

fast = "--fast" in ARGS
epochs = fast ? 6 : 100
latent_dim, hidden_dim = 4, 128

X, labels = load_digits(digits_path())   # 64×1797 in [0, 1]
Random.seed!(1)
xtrain, _, xtest, _ = split_digits(X, labels, randperm(length(labels)))
input_dim = size(X, 1)

struct Encoder
    linear
    μ
    logσ²
end
Flux.@layer Encoder
Encoder(input_dim::Int, latent_dim::Int, hidden_dim::Int) = Encoder(
    Dense(input_dim => hidden_dim, tanh),   # shared hidden layer
    Dense(hidden_dim => latent_dim),        # μ
    Dense(hidden_dim => latent_dim),        # log σ²
)
function (encoder::Encoder)(x)
    h = encoder.linear(x)
    encoder.μ(h), encoder.logσ²(h)
end

Decoder(input_dim::Int, latent_dim::Int, hidden_dim::Int) = Chain(
    Dense(latent_dim => hidden_dim, tanh),
    Dense(hidden_dim => input_dim),          # logits of the pixels
)

struct VAE
    encoder
    decoder
end
Flux.@layer VAE
VAE(input_dim, latent_dim, hidden_dim) =
    VAE(Encoder(input_dim, latent_dim, hidden_dim), Decoder(input_dim, latent_dim, hidden_dim))

function reconstruct(vae::VAE, x)
    μ, logσ² = vae.encoder(x)
    z = μ .+ randn(Float32, size(μ)) .* exp.(logσ² ./ 2)   # reparameterisation
    μ, logσ², vae.decoder(z)
end

# the negative ELBO per image: reconstruction + KL divergence of N(μ, σ²) from N(0, 1)
function vae_loss(vae, x)
    μ, logσ², x̂ = reconstruct(vae, x)
    n = size(x)[end]
    reconstruction = logitbinarycrossentropy(x̂, x; agg=sum) / n
    kl = 0.5f0 * sum(@. exp(logσ²) + μ^2 - 1f0 - logσ²) / n
    reconstruction + kl
end

# the loss on the test images, with the same noise ε each time it is measured
function test_loss(vae)
    Random.seed!(42)
    vae_loss(vae, xtest)
end

Random.seed!(0)
vae = VAE(input_dim, latent_dim, hidden_dim)
opt_state = Flux.setup(Adam(3e-3), vae)
loader = DataLoader(xtrain; batchsize=32, shuffle=true, partial=false)

loss_before = test_loss(vae)
println("test loss before training ", round(loss_before; digits=3))
t0 = time()
for epoch in 1:epochs
    total = 0.0f0
    for x in loader
        loss, grads = Flux.withgradient(m -> vae_loss(m, x), vae)
        Flux.update!(opt_state, vae, grads[1])
        total += loss
    end
    if epoch % (fast ? 2 : 10) == 0
        println("epoch ", lpad(epoch, 2), "  train loss ", round(total / length(loader); digits=3),
                "  test loss ", round(test_loss(vae); digits=3))
    end
end
loss_after = test_loss(vae)

# for scale: the loss of predicting every test image as the mean training image (no
# latent code at all, so no KL term)
m = clamp.(mean(xtrain; dims=2), 0.001f0, 0.999f0)
mean_image_loss = Flux.binarycrossentropy(m .* ones(Float32, 1, size(xtest, 2)), xtest; agg=sum) /
                  size(xtest, 2)
println("test loss of the mean image ", round(mean_image_loss; digits=3))

# how well the test images come back: the mean absolute error of the decoded pixels
# (at z = μ), against predicting every pixel's mean
μ, _ = vae.encoder(xtest)
x̂ = sigmoid.(vae.decoder(μ))
mae = mean(abs.(x̂ .- xtest))
baseline = mean(abs.(xtest .- mean(xtrain; dims=2)))
println("reconstruction error ", round(mae; digits=3), " (mean image: ", round(baseline; digits=3), ")")

# a new digit: decode a point drawn from the prior
Random.seed!(5)
img = reshape(sigmoid.(vae.decoder(randn(Float32, latent_dim))), 8, 8)
for y in 1:8
    println("    ", join(img[x, y] > 0.5 ? "#" : img[x, y] > 0.25 ? "+" : "." for x in 1:8))
end

println("trained in ", round(time() - t0; digits=1), " s; test loss ", round(loss_before; digits=3),
        " → ", round(loss_after; digits=3))
@assert loss_after < loss_before "training did not lower the VAE's loss"
@assert loss_after < mean_image_loss "the VAE does no better than the mean image"
@assert loss_after < (fast ? 28 : 25) "the VAE's loss did not fall far enough"
