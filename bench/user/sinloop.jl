# a scalar loop of `sin` calls in a function, first call included: `zyla run sinloop.jl N`
n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 10^6

function sinsum(n)
    acc = 0.0
    for i in 1:n
        acc += sin(0.1i)
    end
    acc
end

t = @elapsed r = sinsum(n)
println("result ", r)
println("seconds ", t)
