# Random, Statistics, LinearAlgebra and Test.
using Test
using Random
using Statistics
using LinearAlgebra

@testset "stdlib" begin
    @testset "Random" begin
        Random.seed!(42)
        a = rand(3)
        Random.seed!(42)
        @test rand(3) == a
        @test all(0 .<= a .< 1)
        @test size(randn(2, 3)) == (2, 3)
        @test eltype(randn(Float32, 4)) == Float32
        @test sort(randperm(5)) == collect(1:5)
        @test sort(shuffle([3, 1, 2])) == [1, 2, 3]
        r1 = MersenneTwister(7)
        r2 = MersenneTwister(7)
        @test rand(r1, 4) == rand(r2, 4)
        @test randn(r1, 2) == randn(r2, 2)
        @test rand(r1, 1:6) in 1:6
        @test eltype(rand(Float32, 2)) == Float32
    end
    @testset "Statistics" begin
        @test mean([1, 2, 3]) == 2.0
        @test var([1, 2, 3, 4]) ≈ 5 / 3
        @test std([2, 4, 4, 4, 5, 5, 7, 9]) ≈ 2.138089935299395
        @test var([1, 2, 3]; corrected=false) ≈ 2 / 3
        @test mean([1 2; 3 4]; dims=1) == [2.0 3.0]
        @test mean([1 2; 3 4]; dims=2) == reshape([1.5, 3.5], 2, 1)
        @test std([1 2; 3 4]; dims=1) ≈ [sqrt(2) sqrt(2)]
        @test median([3, 1, 2]) == 2.0 && median([4, 1, 3, 2]) == 2.5
        @test mean(abs2, [1, 2]) == 2.5
    end
    @testset "LinearAlgebra" begin
        M = [2.0 1.0; 1.0 3.0]
        @test dot([1, 2], [3, 4]) == 11
        @test [1, 2] ⋅ [3, 4] == 11
        @test norm([3.0, 4.0]) == 5.0
        @test norm([1.0, -2.0], 1) == 3.0
        @test tr(M) == 5.0
        @test diag(M) == [2.0, 3.0]
        @test det(M) == 5.0
        @test inv(M) ≈ [0.6 -0.2; -0.2 0.4]
        @test M * inv(M) ≈ [1.0 0.0; 0.0 1.0]
        @test M \ [3.0, 4.0] ≈ [1.0, 1.0]
        @test M + I == [3.0 1.0; 1.0 4.0]
        @test M - 2I == [0.0 1.0; 1.0 1.0]
        @test I * [1, 2] == [1, 2]
        @test M^2 == M * M
        @test cross([1, 0, 0], [0, 1, 0]) == [0, 0, 1]
        @test normalize([3.0, 4.0]) ≈ [0.6, 0.8]
    end
    @testset "Test" begin
        @test 1.0 ≈ 1.1 atol=0.2
        @test 100.0 ≈ 101.0 rtol=0.02
        @test !isapprox(1.0, 1.1)
        @test [1.0, 2.0] ≈ [1.0, 2.0 + 1e-12]
        @test_throws ErrorException error("x")
        @test_throws DomainError sqrt(-1.0)
        @test_throws BoundsError [1, 2][3]
        @test_broken 1 == 2
        for i in 1:2
            @test i > 0
        end
    end
    @testset "looped testset $k" for k in 1:2
        @test k * 2 == 2k
    end
end
