# a scalar loop of `sin` calls in a function, first call included: `zyla run sinloop.jl N`
n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 10^6

function sinsum(n)
    acc = 0.0
    for i in 1:n
        acc += sin(0.1i)
    end
    acc
end

# the same loop kept as written (`@sequential`: not mapped to an array sum), which times
# the scalar host tier itself
function sinsum_seq(n)
    acc = 0.0
    @sequential for i in 1:n
        acc += sin(0.1i)
    end
    acc
end

t = @elapsed r = sinsum(n)
println("result ", r)
println("seconds ", t)
t = @elapsed r = sinsum_seq(n)
println("result_seq ", r)
println("seconds_seq ", t)
