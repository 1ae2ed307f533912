# fib(n), recursive, written as a user writes it; timed inside the program, first call
# included. Run by bench/user_bench.py as `zyla run fib.jl N`.
n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 24

fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

t = @elapsed r = fib(n)
println("result ", r)
println("seconds ", t)
