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

# the same loop kept as written (`@sequential`): the tape of 100000 scalar steps
function f_seq(w)
    s = 0.0
    @sequential for i in 1:n
        s += sin(w * i)
    end
    s
end

t = @elapsed g = gradient(f, 0.5)
println("result ", g[1])
println("seconds ", t)
t = @elapsed g = gradient(f_seq, 0.5)
println("result_seq ", g[1])
println("seconds_seq ", t)
