# Loop nests as Julia users write them, against the same computations written with array
# operations, each called in a function (so the tiering compiles both):
#     zyla run loopnests.jl N REPS
# prints `name_ms T` lines: medians over REPS calls after a warm-up call, and `check_NAME d`
# lines (the largest difference between the two forms). The `_seq` rows run the loops under
# @sequential: as they were compiled before nests were mapped (one call each). With a third
# argument `plain` only the kernels run (the bench runs that under ZYLA_NESTS=0, where
# every loop runs as written).
using Flux
using Statistics

n = length(ARGS) > 0 ? parse(Int, ARGS[1]) : 256
reps = length(ARGS) > 1 ? parse(Int, ARGS[2]) : 15
plain = length(ARGS) > 2 && ARGS[3] == "plain"

function loop_matmul(A, B)
    C = zeros(size(A, 1), size(B, 2))
    for j in 1:size(B, 2), i in 1:size(A, 1)
        s = 0.0
        for p in 1:size(A, 2)
            s += A[i, p] * B[p, j]
        end
        C[i, j] = s
    end
    C
end
op_matmul(A, B) = A * B

function loop_matvec(A, x)
    y = zeros(size(A, 1))
    for i in 1:size(A, 1)
        s = 0.0
        for j in 1:size(A, 2)
            s += A[i, j] * x[j]
        end
        y[i] = s
    end
    y
end
op_matvec(A, x) = A * x

function loop_rowsums(A)
    r = zeros(size(A, 1))
    for j in 1:size(A, 2), i in 1:size(A, 1)
        r[i] += A[i, j]
    end
    r
end
op_rowsums(A) = vec(sum(A; dims=2))

function loop_conv(x, w)
    m, k = size(x, 1) - 2, size(x, 2) - 2
    y = zeros(m, k)
    for j in 1:k, i in 1:m
        s = 0.0
        for dj in 1:3, di in 1:3
            s += x[i + di - 1, j + dj - 1] * w[di, dj]
        end
        y[i, j] = s
    end
    y
end
op_conv(x, w) = conv(reshape(x, size(x, 1), size(x, 2), 1, 1), reshape(w, 3, 3, 1, 1);
                     flipped=true)[:, :, 1, 1]

function loop_batched(A, B)
    C = zeros(size(A, 1), size(B, 2), size(A, 3))
    for t in 1:size(A, 3), j in 1:size(B, 2), i in 1:size(A, 1)
        s = 0.0
        for p in 1:size(A, 2)
            s += A[i, p, t] * B[p, j, t]
        end
        C[i, j, t] = s
    end
    C
end

loop_loss(A, B) = sum(loop_matmul(A, B))
op_loss(A, B) = sum(A * B)
loop_grad(A, B) = gradient(loop_loss, A, B)
op_grad(A, B) = gradient(op_loss, A, B)

function seq_matmul(A, B)
    C = zeros(size(A, 1), size(B, 2))
    @sequential for j in 1:size(B, 2), i in 1:size(A, 1)
        s = 0.0
        for p in 1:size(A, 2)
            s += A[i, p] * B[p, j]
        end
        C[i, j] = s
    end
    C
end

function median_ms(f, args...)
    f(args...)
    ts = [@elapsed(f(args...)) for _ in 1:reps]
    1000 * median(ts)
end

function report(name, loopf, opf, args...)
    d = maximum(abs.(loopf(args...) .- opf(args...)))
    println("check_", name, " ", d)
    println(name, "_loop_ms ", median_ms(loopf, args...))
    println(name, "_op_ms ", median_ms(opf, args...))
end

A = randn(n, n); B = randn(n, n); x = randn(n)
report("matmul", loop_matmul, op_matmul, A, B)
report("matvec", loop_matvec, op_matvec, A, x)
report("rowsums", loop_rowsums, op_rowsums, A)
X = randn(n, n); W = randn(3, 3)
report("conv", loop_conv, op_conv, X, W)
b = max(2, n ÷ 8)
A3 = randn(n ÷ 4, n ÷ 4, b); B3 = randn(n ÷ 4, n ÷ 4, b)
println("batched_loop_ms ", median_ms(loop_batched, A3, B3))
Abig = randn(4n, 4n); xbig = randn(4n)  # (a matrix-vector product past the caches)
println("matvecbig_loop_ms ", median_ms(loop_matvec, Abig, xbig))
plain && exit(0)
gl, go = loop_grad(A, B), op_grad(A, B)
println("check_grad ", max(maximum(abs.(gl[1] .- go[1])), maximum(abs.(gl[2] .- go[2]))))
println("grad_loop_ms ", median_ms(loop_grad, A, B))
println("grad_op_ms ", median_ms(op_grad, A, B))
seq_matmul(A, B)
println("check_seq ", maximum(abs.(seq_matmul(A, B) .- op_matmul(A, B))))
println("matmul_seq_ms ", 1000 * @elapsed(seq_matmul(A, B)))
