# the gradient of a scalar loop of N steps, first call (compilation included):
# `zyla run gradloop.jl N`
n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 100000

function f(w)
    s = 0.0
    for i in 1:n
        s += sin(w * i)
    end
    s
end

t = @elapsed g = gradient(f, 0.5)
println("result ", g[1])
println("seconds ", t)
