# Numeric functions, rounding, integer division, conversions.
using Test

@testset "numeric" begin
    @testset "elementary functions" begin
        @test exp(0.0) == 1.0 && log(1.0) == 0.0
        @test log(2, 8) ≈ 3.0
        @test log1p(0.0) == 0.0 && expm1(0.0) == 0.0
        @test sqrt(16.0) == 4.0 && sqrt(4) == 2.0
        @test abs(-2) == 2 && abs(-2.5) == 2.5 && abs2(3) == 9
        @test sin(0.0) == 0.0 && cos(0.0) == 1.0 && tan(0.0) == 0.0
        @test asin(1.0) ≈ pi / 2 && acos(1.0) == 0.0 && atan(1.0) ≈ pi / 4
        @test atan(1.0, -1.0) ≈ 3pi / 4
        @test sinh(0.0) == 0.0 && cosh(0.0) == 1.0 && tanh(0.0) == 0.0
        @test asinh(0.0) == 0.0 && atanh(0.0) == 0.0 && acosh(1.0) == 0.0
        @test exp.([0.0, 0.0]) == [1.0, 1.0]
        @test isnan(NaN) && isinf(Inf) && isfinite(1.0) && !isfinite(-Inf)
    end
    @testset "min max clamp sign" begin
        @test min(1, 2) == 1 && max(1.0, 2.0) == 2.0 && max(1, 5, 3) == 5
        @test clamp(5, 1, 3) == 3 && clamp(-1.0, 0.0, 1.0) == 0.0
        @test clamp.([0, 5, 10], 2, 8) == [2, 5, 8]
        @test sign(-2.0) == -1.0 && sign(3) == 1 && sign(0) == 0
    end
    @testset "rounding" begin
        @test floor(2.7) == 2.0 && ceil(2.1) == 3.0 && trunc(-2.7) == -2.0
        @test round(2.5) == 2.0 && round(3.5) == 4.0 && round(-2.5) == -2.0
        @test round(Int, 2.6) === 3 && floor(Int, 2.7) === 2 && ceil(Int, 2.1) === 3
        @test round(1.23456; digits=3) == 1.235
        @test round.([1.4, 1.6]) == [1.0, 2.0]
    end
    @testset "integer division" begin
        @test div(7, 2) == 3 && div(-7, 2) == -3
        @test rem(-7, 2) == -1 && mod(-7, 2) == 1
        @test fld(-7, 2) == -4 && cld(7, 2) == 4
        @test 7 ÷ 2 == 3 && 7 % 3 == 1
        @test mod(5.5, 2.0) == 1.5
        @test_throws DivideError div(1, 0)
    end
    @testset "conversions" begin
        @test float(1) === 1.0
        @test Float32(1.5) === 1.5f0
        @test Int(3.0) === 3 && Int64(2.0) === 2
        @test_throws InexactError Int(2.5)
        @test Float64(1) === 1.0
        @test typeof(1f0 + 1f0) == Float32 && typeof(1f0 + 1.0) == Float64
        @test Float32.([1, 2]) == Float32[1.0, 2.0]
        @test eltype(Float32.([1, 2])) == Float32
        @test convert(Float64, 1) === 1.0
        @test 1 / 2 == 0.5 && 2^10 == 1024 && 2.0^-1 == 0.5
        @test iszero(0.0) && isone(1)
    end
    @testset "an operator called with splatted arguments" begin
        t = (1, 2, 3)
        r = +(t...)
        @test r == 6
        @test -(5, 2) == 3 && -(t[1:1]...) == -1 && max(t...) == 3
        n = 4
        @test +(n...) == 4
    end
end
