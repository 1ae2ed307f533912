# Julia's micro-benchmarks (julia/test/perf/micro/perf.jl): recursion, complex
# arithmetic, loops, array writes and matrix algebra, each checked as perf.jl checks it.
#
#   zyla run examples/micro.jl            # perf.jl's sizes (pisum repeated 20 times, not 500)
#   zyla run examples/micro.jl --fast     # smaller sizes, for the test suite
#
# The benchmarks take and return numbers, not arrays, so in the default mode they run on
# the host interpreter (quicksort's and randmatstat's random arrays are made inside).
#
# Zyla has no Complex type yet, so `mandel` carries the real and imaginary parts itself.
using Random, Statistics, LinearAlgebra

fast = "--fast" in ARGS

# each benchmark is called from top-level code, where Zyla decides what to compile
report(name, t0) = println(rpad(name, 12), lpad(round(1000 * (time() - t0); digits=2), 10), " ms")

## recursive fib ##
fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
nfib = fast ? 15 : 20
t0 = time()
f = fib(nfib)
report("fib", t0)
@assert f == (fast ? 610 : 6765)

## mandelbrot set: complex arithmetic on (re, im) pairs ##
function mandel(zr, zi)
    cr, ci = zr, zi
    maxiter = 80
    for n in 1:maxiter
        if zr * zr + zi * zi > 4.0
            return n - 1
        end
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    end
    return maxiter
end
mandelperf() = [mandel(r, i) for i in -1.0:0.1:1.0, r in -2.0:0.1:0.5]
t0 = time()
m = mandelperf()
report("mandel", t0)
@assert sum(m) == 14791

## numeric vector sort ##
function qsort!(a, lo, hi)
    i, j = lo, hi
    while i < hi
        pivot = a[(lo + hi) ÷ 2]
        while i <= j
            while a[i] < pivot
                i += 1
            end
            while a[j] > pivot
                j -= 1
            end
            if i <= j
                a[i], a[j] = a[j], a[i]
                i, j = i + 1, j - 1
            end
        end
        if lo < j
            qsort!(a, lo, j)
        end
        lo, j = i, hi
    end
    return a
end
sortperf(n) = qsort!(rand(n), 1, n)
nsort = fast ? 500 : 5000
t0 = time()
s = sortperf(nsort)
report("quicksort", t0)
@assert all(s[k] <= s[k+1] for k in 1:nsort-1)

## slow pi series ##
function pisum(reps, n)
    sum = 0.0
    for j in 1:reps
        sum = 0.0
        for k in 1:n
            sum += 1.0 / (k * k)
        end
    end
    sum
end
# perf.jl repeats the sum 500 times to time it; the result is the same for any count, and
# on the interpreter (pisum has no array argument, so it is not offloaded) 20 suffice
reps, n = fast ? (2, 10000) : (20, 10000)
t0 = time()
p = pisum(reps, n)
report("pisum", t0)
@assert abs(p - 1.644834071848065) < 1e-12

## random matrix statistics ##
function randmatstat(t)
    n = 5
    v = zeros(t)
    w = zeros(t)
    for i in 1:t
        a = randn(n, n)
        b = randn(n, n)
        c = randn(n, n)
        d = randn(n, n)
        P = [a b c d]
        Q = [a b; c d]
        PtP = P' * P
        QtQ = Q' * Q
        v[i] = tr(PtP * PtP * PtP * PtP)
        w[i] = tr(QtQ * QtQ * QtQ * QtQ)
    end
    return (std(v) / mean(v), std(w) / mean(w))
end
Random.seed!(1)
t0 = time()
s1, s2 = randmatstat(fast ? 100 : 1000)
report("randmatstat", t0)
@assert 0.5 < s1 < 1.0 && 0.5 < s2 < 1.0
println("all results as in perf.jl")
