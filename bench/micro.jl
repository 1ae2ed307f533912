# Julia's micro-benchmarks (julia/test/perf/micro/perf.jl) for the compiled-code benchmark
# (bench/micro.py). Integers are compile-time constants of a compiled call (like the
# sizes XLA.jl's inference makes static); mandelperf takes a Float64 offset so that its
# grid is an input of the executable and nothing can be folded at compile time.
using Random, Statistics, LinearAlgebra

## recursive fib, depth known when compiling (perf.jl: fib(20)) ##
fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

## iterative fib: `reps` runs of n steps, each seeded differently so none is hoisted ##
function fibiter(reps, n)
    s = 0
    for j in 1:reps
        a, b = 0, 1 + j % 2
        for i in 1:n
            a, b = b, a + b
        end
        s += a
    end
    s
end

## mandelbrot set: complex arithmetic on (re, im) pairs (Zyla has no Complex yet) ##
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
mandelperf(x0) = [mandel(r + x0, i + x0) for i in -1.0:0.1:1.0, r in -2.0:0.1:0.5]

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

## quicksort, as perf.jl writes it (recursive, in place) ##
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
sortperf(a) = qsort!(copy(a), 1, length(a))

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
