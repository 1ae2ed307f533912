# Base array API: 1-based, column-major.
using Test

@testset "arrays" begin
    A = [1.0 2.0 3.0; 4.0 5.0 6.0]
    @testset "shape queries" begin
        @test size(A) == (2, 3) && size(A, 2) == 3 && size(A, 3) == 1
        @test length(A) == 6 && ndims(A) == 2 && ndims([1, 2]) == 1
        @test eltype(A) == Float64 && eltype([1, 2]) == Int64
        @test axes(A) == (1:2, 1:3)
    end
    @testset "construction" begin
        @test zeros(2) == [0.0, 0.0]
        @test eltype(ones(Float32, 2, 2)) == Float32
        @test fill(7, 2, 2) == [7 7; 7 7]
        s = similar(A)
        @test size(s) == size(A) && eltype(s) == Float64
        @test size(similar(A, Int, 4)) == (4,)
        c = copy(A)
        c[1, 1] = 100.0
        @test A[1, 1] == 1.0
    end
    @testset "reshaping" begin
        @test reshape(1:6, 2, :) == [1 3 5; 2 4 6]
        @test reshape(collect(1:6), (3, 2)) == [1 4; 2 5; 3 6]
        @test vec(A) == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
        @test permutedims(A) == [1.0 4.0; 2.0 5.0; 3.0 6.0]
        @test transpose(A) == A'
        @test [1, 2]' * [3, 4] == 11
        @test dropdims(sum(A; dims=1); dims=1) == [5.0, 7.0, 9.0]
        @test size(dropdims(ones(2, 1, 3); dims=2)) == (2, 3)
        @test repeat([1, 2], 2) == [1, 2, 1, 2]
        @test repeat([1 2], 2, 2) == [1 2 1 2; 1 2 1 2]
        @test repeat([1, 2]; inner=2) == [1, 1, 2, 2]
        @test repeat([1, 2]; inner=2, outer=2) == [1, 1, 2, 2, 1, 1, 2, 2]
        @test reverse([1, 2, 3]) == [3, 2, 1]
    end
    @testset "concatenation" begin
        @test vcat([1, 2], [3]) == [1, 2, 3]
        @test hcat([1, 2], [3, 4]) == [1 3; 2 4]
        @test cat([1, 2], [3, 4]; dims=1) == [1, 2, 3, 4]
        @test cat([1, 2], [3, 4]; dims=2) == [1 3; 2 4]
        C = cat([1 2], [3 4]; dims=3)
        @test size(C) == (1, 2, 2) && C[1, 2, 2] == 4
        @test reduce(hcat, [[1, 2], [3, 4]]) == [1 3; 2 4]
        @test reduce(vcat, [[1, 2], [3, 4]]) == [1, 2, 3, 4]
        @test [A; A] == vcat(A, A)
    end
    @testset "reductions" begin
        @test sum(A; dims=1) == [5.0 7.0 9.0]
        @test sum(A; dims=2) == reshape([6.0, 15.0], 2, 1)
        @test prod([1, 2, 3, 4]) == 24
        @test prod(A; dims=1) == [4.0 10.0 18.0]
        @test maximum(A; dims=2) == reshape([3.0, 6.0], 2, 1)
        @test minimum(A) == 1.0
        @test sum(abs2, [1, 2, 3]) == 14
        @test sum(abs2, A; dims=1) == [17.0 29.0 45.0]
        @test maximum(abs, [-3, 2]) == 3
        @test cumsum([1, 2, 3]) == [1, 3, 6]
        @test cumsum([1 2; 3 4]; dims=2) == [1 3; 3 7]
        @test sort([3, 1, 2]) == [1, 2, 3]
        @test sort([3, 1, 2]; rev=true) == [3, 2, 1]
        @test sort(["b", "a"]) == ["a", "b"]
        @test extrema([3, 1, 2]) == (1, 3)
    end
    @testset "index searches" begin
        @test findmax([1, 5, 2]) == (5, 2)
        @test findmin([3, 1, 2]) == (1, 2)
        @test argmax([1, 5, 2]) == 2 && argmin([3, 1, 2]) == 2
        B = [1 5; 7 2]
        @test argmax(B) == CartesianIndex(2, 1)
        v, i = findmax(B; dims=1)
        @test v == [7 5]
        @test i[1] == CartesianIndex(2, 1) && i[2] == CartesianIndex(1, 2)
        @test B[i[2]] == 5
        @test [c[1] for c in argmax(B; dims=1)] == [2 1]
        @test findmax(x -> -x, [3, 1, 2]) == (-1, 2)
    end
    @testset "higher-order functions" begin
        @test map(x -> 2x, [1, 2]) == [2, 4]
        @test map(+, [1, 2], [10, 20]) == [11, 22]
        @test mapreduce(x -> x^2, +, [1, 2, 3]) == 14
        @test reduce(+, [1, 2, 3]; init=10) == 16
        @test reduce(*, [1, 2, 3, 4]) == 24
        @test reduce(max, [3, 7, 2]) == 7
        @test reduce(+, A; dims=2) == sum(A; dims=2)
        @test reduce((a, b) -> a * 10 + b, [1, 2, 3]) == 123
        @test foldl(-, [1, 2, 3]) == -4
        @test foldr(-, [1, 2, 3]) == 2
        @test filter(iseven, 1:6) == [2, 4, 6]
        @test filter(x -> x > 1, [1, 2, 3]) == [2, 3]
        @test count(iseven, [1, 2, 4]) == 2
        @test any(x -> x > 2, [1, 3]) && all(x -> x > 0, [1, 3])
    end
    @testset "mutation and views" begin
        v = [1, 2]
        push!(v, 3)
        append!(v, [4, 5])
        @test v == [1, 2, 3, 4, 5]
        @test pop!(v) == 5 && length(v) == 4
        x = [1.0, 2.0, 3.0]
        @test view(x, 2:3) == [2.0, 3.0]
        @views y = x[1:2]
        @test y == [1.0, 2.0]
        M = zeros(2, 2)
        M[:, 1] .= 1.0
        M[2, :] = [5.0, 6.0]
        @test M == [1.0 0.0; 5.0 6.0]
        @test A[end, end] == 6.0 && A[2, :] == [4.0, 5.0, 6.0] && A[:, 2] == [2.0, 5.0]
    end
    @testset "a product with v' is a row only for v' * M (1-element sizes too)" begin
        w = [3.0]
        @test size((w * w')') == (1, 1)
        @test size(w * w') == (1, 1) && w' * w == 9.0
        v = [1.0, 2.0]
        @test (v' * [1.0 2.0; 3.0 4.0])' == [7.0, 10.0]
        W = reshape([0.5], 1, 1)
        @test size(gradient(W -> sum(transpose(W) * [0.3]), W)[1]) == (1, 1)
    end
end
