# Train a small MLP by gradient descent on generated data, and watch the loss fall.
# The gradient call in the training loop is offloaded by Zyla: forward and backward run
# as one XLA executable, compiled once for this model's shapes and reused every step.
using Random
Random.seed!(42)

struct MLP
    W1
    b1
    W2
    b2
    W3
    b3
end

(m::MLP)(x) = m.W3 * tanh.(m.W2 * tanh.(m.W1 * x .+ m.b1) .+ m.b2) .+ m.b3

glorot(nout, nin) = (rand(nout, nin) .* 2 .- 1) .* sqrt(6 / (nin + nout))

MLP(nin, nh, nout) = MLP(glorot(nh, nin), zeros(nh), glorot(nh, nh), zeros(nh),
                         glorot(nout, nh), zeros(nout))

loss(m, x, y) = sum(abs2.(m(x) .- y)) / size(y, 2)

# the target: a smooth surface over [-1, 1]^2, sampled at 512 random points
x = rand(2, 512) .* 2 .- 1
y = sin.(3 .* x[1:1, :]) .* cos.(2 .* x[2:2, :])

model = MLP(2, 32, 1)
velocity = map(f -> zero(f), (model.W1, model.b1, model.W2, model.b2, model.W3, model.b3))
lr = 0.1
beta = 0.9

println("initial loss: ", round(loss(model, x, y); digits=5))
for epoch in 1:400
    g = gradient(loss, model, x, y)[1]
    grads = (g.W1, g.b1, g.W2, g.b2, g.W3, g.b3)
    params = (model.W1, model.b1, model.W2, model.b2, model.W3, model.b3)
    for (p, v, dp) in zip(params, velocity, grads)
        v .= beta .* v .+ dp
        p .-= lr .* v
    end
    if epoch % 50 == 0
        println("epoch ", lpad(epoch, 3), "  loss ", round(loss(model, x, y); digits=5))
    end
end
final = loss(model, x, y)
println("final loss: ", round(final; digits=5))
@assert final < 0.02 "the model did not learn"
