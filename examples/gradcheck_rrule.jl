# Checking custom gradient rules with GradCheck.
#
# `softplus` has a correct custom rrule and `softplus_bad` a deliberately wrong one (the
# sign in the exponent is flipped, so it is right only at 0). `zyla run` prints each check;
# `zyla gradcheck examples/gradcheck_rrule.jl` runs the @gradcheck properties, finds the
# wrong rule, prints the smallest input that shows it, and exits with status 1.
using ChainRulesCore
using GradCheck

softplus(x) = log(1 + exp(x))

function ChainRulesCore.rrule(::typeof(softplus), x)
    y = softplus(x)
    softplus_pullback(ȳ) = (NoTangent(), ȳ / (1 + exp(-x)))
    return y, softplus_pullback
end

softplus_bad(x) = log(1 + exp(x))

function ChainRulesCore.rrule(::typeof(softplus_bad), x)
    y = softplus_bad(x)
    softplus_bad_pullback(ȳ) = (NoTangent(), ȳ / (1 + exp(x)))
    return y, softplus_bad_pullback
end

layer(W, b, x) = sum(softplus.(W * x .+ b))
layer_bad(W, b, x) = sum(softplus_bad.(W * x .+ b))

println("gradcheck(softplus, 0.3) = ", gradcheck(softplus, 0.3))
println("gradcheck(layer, ...) = ", gradcheck(layer, [0.1 0.2 0.3; -0.4 0.5 0.6], [0.1, -0.2], [1.0, 2.0, -1.0]))

@gradcheck layer(W::Matrix{Float64}(2, 3) in (-1, 1), b::Vector{Float64}(2) in (-1, 1), x::Vector{Float64}(3) in (-2, 2))
@gradcheck layer_bad(W::Matrix{Float64}(2, 3) in (-1, 1), b::Vector{Float64}(2) in (-1, 1), x::Vector{Float64}(3) in (-2, 2))
