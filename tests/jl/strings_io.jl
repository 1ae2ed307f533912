# String functions, @printf/@sprintf, IO streams, show methods, unicode names.
using Test
using Printf

struct Point
    x::Int
    y::Int
end
Base.show(io::IO, p::Point) = print(io, "Point<", p.x, ",", p.y, ">")

σ(x) = 1 / (1 + exp(-x))

@testset "strings and IO" begin
    @testset "string functions" begin
        @test lpad("7", 3) == "  7"
        @test lpad(7, 3, "0") == "007"
        @test rpad("ab", 4, ".") == "ab.."
        @test round(3.14159; digits=2) == 3.14
        @test round(2.5) == 2.0
        @test string("a", 1, 2.5) == "a12.5"
        @test repr("s") == "\"s\""
        @test repr(1.0) == "1.0"
        @test join([1, 2, 3], ", ") == "1, 2, 3"
        @test split("a,b,c", ",") == ["a", "b", "c"]
        @test split("a b  c") == ["a", "b", "c"]
        @test occursin("lo", "hello")
        @test uppercase("abc") == "ABC" && lowercase("AB") == "ab"
        @test startswith("julia", "ju") && endswith("julia", "ia")
        @test "ab" * "cd" == "abcd"
        @test repeat("ab", 3) == "ababab"
        @test length("héllo") == 5
        @test parse(Int, "42") == 42 && parse(Float64, "2.5") == 2.5
        @test "x = $(1 + 1)" == "x = 2"
    end
    @testset "printf" begin
        @test @sprintf("%5.2f|%d|%s", 3.14159, 42, "hi") == " 3.14|42|hi"
        @test @sprintf("%.3e", 12345.678) == "1.235e+04"
        @test @sprintf("%-4d|%04d|%+d", 7, 7, 7) == "7   |0007|+7"
        @test @sprintf("%x %o %%", 255, 8) == "ff 10 %"
        @test @sprintf("%g %g", 0.0001, 1.0e10) == "0.0001 1e+10"
        @test @sprintf("%s", [1, 2]) == "[1, 2]"
        io = IOBuffer()
        @printf(io, "%d-%d", 1, 2)
        @test String(take!(io)) == "1-2"
    end
    @testset "IO and show" begin
        io = IOBuffer()
        print(io, "a", 1)
        println(io, "b")
        show(io, "q")
        @test String(take!(io)) == "a1b\n\"q\""
        @test sprint(show, [1, 2]) == "[1, 2]"
        @test sprint(print, 1.5) == "1.5"
        p = Point(1, 2)
        @test string(p) == "Point<1,2>"
        @test repr([p]) == "Point[Point<1,2>]"
        @test "$(p)" == "Point<1,2>"
    end
    @testset "unicode" begin
        η = 0.5
        ŷ = σ(0.0)
        @test ŷ == 0.5
        @test η * 2 == 1.0
        @test 2 ∈ [1, 2, 3]
        @test 5 ∉ [1, 2, 3]
        @test 1.0 ≈ 1.0 + 1e-12
        @test √16 == 4.0
        @test 3 ≤ 3 && 4 ≥ 3 && 1 ≠ 2
        @test 7 ÷ 2 == 3
        @test π ≈ 3.14159 atol=1e-5
    end
end
