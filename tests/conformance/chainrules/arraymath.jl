# Facts from JuliaDiff/ChainRules.jl test/rulesets/Base/arraymath.jl (ported for Zyla's conformance suite).
# Upstream wraps everything in one testset "arraymath.jl"; its inner testsets are top-level
# here, named "arraymath.jl: <inner name>" (`@testset ... for` loops over element types and
# sizes split where the iterations differ, e.g. Float64 vs ComplexF64). Random inputs are drawn
# after a fixed seed. `@gpu` / `@gpu_broken` (a second run on a mock GPU array) are left out:
# the check they wrap is kept.
using GradCheck
using ChainRulesCore
using LinearAlgebra
using Random

# How ChainRulesTestUtils' checks are ported. test_rrule / test_frule / test_scalar(f, xs...)
# become: Zyla's reverse-mode gradient of a fixed linear projection of f(xs...) agrees with
# finite differences (GradCheck). Array outputs are projected with fixed weights, tuple
# outputs sum their projected parts, complex numbers (and complex arrays) are split into
# real and imaginary parts so that both are differentiated. Integers, symbols and
# functions among the arguments are held fixed, as test_rrule does. `x ⊢ dx` (a primal with
# a chosen tangent) becomes the primal x; an `output_tangent` becomes the fixed projection.
proj_weights(n) = cos.(1:n) .+ 0.25
function proj(y)
    if y isa Real
        return y
    elseif y isa Number
        return real(y) + 0.6 * imag(y)
    elseif y isa AbstractArray
        v = vec(y)
        if eltype(v) <: Real
            return sum(v .* proj_weights(length(v)))
        else
            return sum((real.(v) .+ 0.6 .* imag.(v)) .* proj_weights(length(v)))
        end
    elseif y isa Tuple
        return sum(map((t, k) -> proj(t) * (k + 0.5), y, ntuple(identity, length(y))))
    elseif y isa NamedTuple
        return proj(values(y))
    else
        error("no projection for a $(typeof(y))")
    end
end
is_cnum(x) = x isa Number && !(x isa Real)
is_carr(x) = x isa AbstractArray && eltype(x) <: Number && !(eltype(x) <: Real)
function split_c(x)
    is_cnum(x) && return (real(x), imag(x))
    is_carr(x) && return (real.(x), imag.(x))
    x isa Tuple && return map(split_c, x)
    return x
end
function join_c(p, x)
    is_cnum(x) && return complex(p[1], p[2])
    is_carr(x) && return complex.(p[1], p[2])
    x isa Tuple && return map(join_c, p, x)
    return p
end
check_rrule(f, xs...; kw...) =
    gradcheck((ps...) -> proj(f(map(join_c, ps, xs)...)), map(split_c, xs)...; kw...)
check_frule(f, xs...; kw...) = check_rrule(f, xs...; kw...)
check_scalar(f, x; kw...) = check_rrule(f, x; kw...)

# from ChainRulesTestUtils
function generate_well_conditioned_matrix(T, N)
    A = randn(T, N, N)
    return A * A' + I
end

# upstream's `⋆`: small random arrays of whole numbers (`nice(T)` a number, `nice(T, dims...)`
# an array, upstream's `n ⋆ m` is `nice(T, n, m)`)
nice(T) = round(5 * randn(T))
nice(T, dims...) = round.(5 * randn(T, dims...))

function star_scalar_array(T)
    @testset "Scalar-Array $dims" for dims in ((3,), (2, 3, 4))
        @test check_frule(*, nice(T), nice(T, dims...))
        @test check_frule(*, nice(T, dims...), nice(T))
        @test check_rrule(*, nice(T), nice(T, dims...))
        @test check_rrule(*, nice(T, dims...), nice(T))
    end
end
function star_matrix_vector(T)
    @testset "AbstractMatrix-AbstractVector n=$n, m=$m" for n in (2, 3), m in (4, 5)
        @testset "Array" begin
            @test check_frule(*, nice(T, n, m), nice(T, m))
            @test check_rrule(*, nice(T, n, m), nice(T, m))
        end
    end
end
function star_vector_matrix(T)
    @testset "AbstractVector-AbstractMatrix n=$n, m=$m" for n in (2, 3), m in (4, 5)
        @testset "Array" begin
            @test check_frule(*, nice(T, n), nice(T, 1, m))
            @test check_rrule(*, nice(T, n), nice(T, 1, m))
        end
    end
end
function star_dense_array(T)
    @testset "dense-matrix n=$n, m=$m, p=$p" for n in (2, 5), m in (2, 4), p in (2, 3)
        @testset "Array" begin
            @test check_frule(*, nice(T, n, m), nice(T, m, p))
            @test check_rrule(*, nice(T, n, m), nice(T, m, p))
        end
    end
end
function star_dense_subarray(T)
    @testset "dense-matrix n=$n, m=$m, p=$p" for n in (2, 5), m in (2, 4), p in (2, 3)
        @testset "SubArray - $label" for (label, cols) in (("fast", :), ("slow", m:-1:1))
            @test check_rrule(*, view(nice(T, n, m), :, cols), view(nice(T, m, p), cols, :))
            @test check_rrule(*, nice(T, n, m), view(nice(T, m, p), cols, :))
            @test check_rrule(*, view(nice(T, n, m), :, cols), nice(T, m, p))
        end
    end
end
function star_dense_adjoints(T)
    @testset "dense-matrix n=$n, m=$m, p=$p" for n in (2, 5), m in (2, 4), p in (2, 3)
        @testset "Adjoints and Transposes" begin
            @test check_rrule(*, Transpose(nice(T, m, n)), Transpose(nice(T, p, m)))
            @test check_rrule(*, Adjoint(nice(T, m, n)), Adjoint(nice(T, p, m)))
            @test check_rrule(*, Transpose(nice(T, m, n)), nice(T, m, p))
            @test check_rrule(*, Adjoint(nice(T, m, n)), nice(T, m, p))
            @test check_rrule(*, nice(T, n, m), Transpose(nice(T, p, m)))
            @test check_rrule(*, nice(T, n, m), Adjoint(nice(T, p, m)))
        end
    end
end
function star_diagonal()
    # forward
    @test check_frule(*, Diagonal([1.0, 2.0, 3.0]), Diagonal([4.0, 5.0, 6.0]))
    @test check_frule(*, Diagonal([1.0, 2.0, 3.0]), rand(3))
    # reverse
    @test check_rrule(*, Diagonal([1.0, 2.0, 3.0]), Diagonal([4.0, 5.0, 6.0]))
    @test check_rrule(*, Diagonal([1.0, 2.0, 3.0]), rand(3))
    # not done in place: mul! would get it wrong (ChainRulesCore issue #411)
    @test check_rrule(*, Diagonal([1.0, 2.0, 3.0]), rand(3, 3))
end
function star_adjoint_vector(T)
    @testset "$adj * Vector" for adj in (adjoint, transpose)
        # like a dot product: a number
        @test check_rrule(*, adj(nice(T, 5)), nice(T, 5))
    end
end

@testset "arraymath.jl: inv(::Matrix{Float64})" begin
    Random.seed!(1)
    B = generate_well_conditioned_matrix(Float64, 3)
    @test check_frule(inv, B)
    @test check_rrule(inv, B)
end
@testset "arraymath.jl: inv(::Matrix{ComplexF64})" begin
    Random.seed!(1)
    B = generate_well_conditioned_matrix(ComplexF64, 3)
    @test check_frule(inv, B)
    @test check_rrule(inv, B)
end

@testset "arraymath.jl: *: Float64: Scalar-Array" begin
    Random.seed!(1)
    star_scalar_array(Float64)
end
@testset "arraymath.jl: *: Float64: AbstractMatrix-AbstractVector" begin
    Random.seed!(1)
    star_matrix_vector(Float64)
end
@testset "arraymath.jl: *: Float64: AbstractVector-AbstractMatrix" begin
    Random.seed!(1)
    star_vector_matrix(Float64)
end
@testset "arraymath.jl: *: Float64: dense-matrix: Array" begin
    Random.seed!(1)
    star_dense_array(Float64)
end
@testset "arraymath.jl: *: Float64: dense-matrix: SubArray" begin
    Random.seed!(1)
    star_dense_subarray(Float64)
end
@testset "arraymath.jl: *: Float64: dense-matrix: Adjoints and Transposes" begin
    Random.seed!(1)
    star_dense_adjoints(Float64)
end
@testset "arraymath.jl: *: Float64: Diagonal" begin
    Random.seed!(1)
    star_diagonal()
end
@testset "arraymath.jl: *: Float64: adjoint/transpose * Vector" begin
    Random.seed!(1)
    star_adjoint_vector(Float64)
end

@testset "arraymath.jl: *: ComplexF64: Scalar-Array" begin
    Random.seed!(1)
    star_scalar_array(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: AbstractMatrix-AbstractVector" begin
    Random.seed!(1)
    star_matrix_vector(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: AbstractVector-AbstractMatrix" begin
    Random.seed!(1)
    star_vector_matrix(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: dense-matrix: Array" begin
    Random.seed!(1)
    star_dense_array(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: dense-matrix: SubArray" begin
    Random.seed!(1)
    star_dense_subarray(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: dense-matrix: Adjoints and Transposes" begin
    Random.seed!(1)
    star_dense_adjoints(ComplexF64)
end
@testset "arraymath.jl: *: ComplexF64: Diagonal" begin
    # (the same Float64 facts: upstream runs them inside the loop over T)
    Random.seed!(1)
    star_diagonal()
end
@testset "arraymath.jl: *: ComplexF64: adjoint/transpose * Vector" begin
    Random.seed!(1)
    star_adjoint_vector(ComplexF64)
end

function muladd_checks(T, z)
    @testset "matrix * matrix" begin
        A = rand(T, 3, 3)
        B = rand(T, 3, 3)
        @test check_rrule(muladd, A, B, z)
        @test check_rrule(muladd, A', B, z)
        @test check_rrule(muladd, A, B', z)
        @test check_frule(muladd, A, B, z)
        @test check_frule(muladd, A', B, z)
        @test check_frule(muladd, A, B', z)
        C = rand(T, 3, 5)
        D = rand(T, 5, 3)
        @test check_rrule(muladd, C, D, z)
        @test check_frule(muladd, C, D, z)
    end
    if ndims(z) <= 1
        @testset "matrix * vector" begin
            A, B = rand(T, 3, 3), rand(T, 3)
            @test check_rrule(muladd, A, B, z)
            @test check_rrule(muladd, A, B, z)  # upstream: B with a 3×1 tangent
            @test check_frule(muladd, A, B, z)
        end
        @testset "adjoint * matrix" begin
            At, B = rand(T, 3)', rand(T, 3, 3)
            @test check_rrule(muladd, At, B, z')
            @test check_rrule(muladd, At, B, z')  # upstream: At with a 1×3 tangent
            @test check_frule(muladd, At, B, z')
        end
    end
    if ndims(z) == 0
        @testset "adjoint * vector" begin  # a dot product
            A, B = rand(T, 3)', rand(T, 3)
            @test check_rrule(muladd, A, B, z)
            @test check_rrule(muladd, A, B, z')  # upstream: A with a 1×3 tangent
            @test check_frule(muladd, A, B, z)
        end
    end
    if ndims(z) == 2  # (other shapes would be e.g. muladd(ones(4), ones(1,4), 1))
        @testset "vector * adjoint" begin  # an outer product
            A, B = rand(T, 3), rand(T, 3)'
            @test check_rrule(muladd, A, B, z)
            @test check_rrule(muladd, A, B, z)  # upstream: B with a 1×3 tangent
            @test check_frule(muladd, A, B, z)
        end
    end
end

@testset "arraymath.jl: muladd: Float64: add Float64" begin
    Random.seed!(1)
    muladd_checks(Float64, rand())
end
@testset "arraymath.jl: muladd: Float64: add Vector{Float64}" begin
    Random.seed!(1)
    muladd_checks(Float64, rand(Float64, 3))
end
@testset "arraymath.jl: muladd: Float64: add Matrix{Float64}" begin
    Random.seed!(1)
    muladd_checks(Float64, rand(Float64, 3, 3))
end
@testset "arraymath.jl: muladd: Float64: add Bool" begin
    Random.seed!(1)
    muladd_checks(Float64, false)
end
@testset "arraymath.jl: muladd: ComplexF64: add Float64" begin
    Random.seed!(1)
    muladd_checks(ComplexF64, rand())
end
@testset "arraymath.jl: muladd: ComplexF64: add Vector{ComplexF64}" begin
    Random.seed!(1)
    muladd_checks(ComplexF64, rand(ComplexF64, 3))
end
@testset "arraymath.jl: muladd: ComplexF64: add Matrix{ComplexF64}" begin
    Random.seed!(1)
    muladd_checks(ComplexF64, rand(ComplexF64, 3, 3))
end
@testset "arraymath.jl: muladd: ComplexF64: add Bool" begin
    Random.seed!(1)
    muladd_checks(ComplexF64, false)
end

# 3-arg * (Julia ≥ 1.7): A * B * γ and A * b * γ through LinearAlgebra's mat_mat_scalar and
# mat_vec_scalar. (Upstream then evaluates three comparisons of rrule results for a complex
# γ without @test: no facts, left out.)
function three_arg_mul_checks(T)
    @test check_rrule(LinearAlgebra.mat_mat_scalar, rand(T, 4, 4), rand(T, 4, 4), rand(T))
    @test check_rrule(LinearAlgebra.mat_mat_scalar, rand(T, 4, 4), rand(T, 4, 4), 0.0)
    @test check_rrule(LinearAlgebra.mat_mat_scalar, rand(T, 4, 4)', rand(T, 4, 4), rand(T))
    @test check_rrule(LinearAlgebra.mat_vec_scalar, rand(T, 4, 4), rand(T, 4), rand(T))
    @test check_rrule(LinearAlgebra.mat_vec_scalar, rand(T, 4, 4), rand(T, 4), 0.0)
end
@testset "arraymath.jl: 3-arg *, Float64" begin
    Random.seed!(1)
    three_arg_mul_checks(Float64)
end
@testset "arraymath.jl: 3-arg *, ComplexF64" begin
    Random.seed!(1)
    three_arg_mul_checks(ComplexF64)
end

@testset "arraymath.jl: /: Matrix" begin
    Random.seed!(1)
    for n in 3:5, m in 3:5
        A = randn(m, n)
        B = randn(m, n)
        @test check_rrule(/, A, B)
    end
end
@testset "arraymath.jl: /: Vector" begin
    Random.seed!(1)
    u = randn(10)
    v = randn(10)
    @test check_rrule(/, u, v)
end
@testset "arraymath.jl: /: (2×4) / (4×4)" begin
    Random.seed!(1)
    A = rand(2, 4)
    B = rand(4, 4)
    @test check_rrule(/, A, B)
end
@testset "arraymath.jl: \\: Matrix" begin
    Random.seed!(1)
    for n in 3:5, m in 3:5
        A = randn(m, n)
        B = randn(m, n)
        @test check_rrule(\, A, B)
    end
end
@testset "arraymath.jl: \\: Vector" begin
    Random.seed!(1)
    u = randn(10)
    v = randn(10)
    @test check_rrule(\, u, v)
end
@testset "arraymath.jl: \\: Matrix \\ Vector" begin
    Random.seed!(1)
    X = randn(10, 4)
    v = randn(10)
    @test check_rrule(\, X, v)
end
@testset "arraymath.jl: \\: Vector \\ Matrix" begin
    Random.seed!(1)
    u = randn(10)
    Y = randn(10, 4)
    @test check_rrule(\, u, Y)  # upstream: output tangent a Transpose of 4 numbers
end

@testset "arraymath.jl: / and \\ Scalar-AbstractArray" begin
    Random.seed!(1)
    A = round.(10 .* randn(3, 4, 5), digits=1)
    # forward
    @test check_frule(/, A, 7.2)
    @test check_frule(\, 7.2, A)
    # reverse
    @test check_rrule(/, A, 7.2)
    @test check_rrule(\, 7.2, A)
    C = round.(10 .* randn(6) .+ im .* 10 .* randn(6), digits=1)
    @test check_rrule(/, C, 7.2 + 8.3im)
    @test check_rrule(\, 7.2 + 8.3im, C)
end

@testset "arraymath.jl: negation" begin
    Random.seed!(1)
    A = randn(4, 4)
    Abar = randn(4, 4)
    @test check_frule(-, A)
    @test check_rrule(-, A)
    @test check_rrule(-, Diagonal(A))  # upstream: output tangent Diagonal(Abar)
end

@testset "arraymath.jl: addition" begin
    Random.seed!(1)
    @test check_frule(+, randn(2), randn(2), randn(2))
    @test check_rrule(+, randn(4, 4), randn(4, 4), randn(4, 4))
    @test check_rrule(+, randn(3), randn(3, 1), randn(3, 1, 1))
end

@testset "arraymath.jl: subtraction" begin
    Random.seed!(1)
    @test check_frule(-, randn(2), randn(2))
    @test check_rrule(-, randn(4, 4), randn(4, 4))
    @test check_rrule(-, randn(4), randn(ComplexF64, 4))
    @test check_rrule(-, randn(3), randn(3, 1))
end
