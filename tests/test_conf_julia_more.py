"""Regression tests for fixes made while porting the Julia Base suites
(tests/conformance/julia): ranges of Int128, UInt128 and BigInt, arrays of 128-bit and
big integers (random ones; stores converted to them; zeros and ones of them), `similar`
of an object element type, step ranges of small integers (StepRanges) and ranges with
Bool bounds (not float ranges), factorial of Int32, Int128 and BigInt, lazy generators
over several iterators. Each check runs on the host interpreter, the reference
semantics."""

from __future__ import annotations

from snippets import run_program

WIDE_RANGES = r"""
using Test
@testset "ranges of wide integers" begin
    r = Int128(0):Int128(2)
    @test typeof(r) == UnitRange{Int128} && length(r) == 3
    @test repr(r) == "0:2" && repr(big(10):-3:big(1)) == "10:-3:1"
    @test typeof(big(1):2:big(9)) == StepRange{BigInt, Int64}
    @test typeof(Int128(1):Int128(2):5) == StepRange{Int128, Int128}
    @test collect(UInt128(3):-1:UInt128(1)) == [3, 2, 1]
    @test sort(r) isa Vector{Int128} && r[[1, 3]] isa Vector{Int128}
    @test similar(["a"], String) isa Vector{String} && similar(r) isa Vector{Int128}
    @test_throws OverflowError typemin(Int128):typemax(Int128)
    @test collect(r) isa Vector{Int128} && collect(r) == [0, 1, 2]
    @test r[2] === Int128(1) && last(r) === Int128(2)
    @test iszero.(r .- 1) == [false, true, false]
    @test prod(1:big(25)) == factorial(big(25))
    @test sum(big(2)^70:big(2)^70+2) == 3 * big(2)^70 + 3
    @test length(typemax(UInt128)-50:typemax(UInt128)) == 51
    @test collect(Int128(1):Int128(0)) == Int128[]
    @test_throws ErrorException Int128(1):2.5
    @test rand(UInt128, 3) isa Vector{UInt128} && size(rand(Int128, 2, 3)) == (2, 3)
end
@testset "ranges of small integers and Bools" begin
    @test typeof(0x01:0x02:0x05) == StepRange{UInt8, UInt8}
    isstep(::StepRange) = true
    isstep(_) = false
    @test isstep(Int8(1):Int8(2):Int8(9))
    @test 1:true === 1:1 && collect(0x01:true) isa Vector{UInt8}
    @test repr(0x05:0x04) == "0x05:0x04"
    @test repr(UInt128(1):UInt128(0)) == repr(UInt128(1)) * ":" * repr(UInt128(0))
    @test_throws ErrorException false:true
end
@testset "arrays of wide integers keep their element type" begin
    a = Int128[0]
    a[1] = typemax(Int64)
    @test a[1] + 1 == Int128(typemax(Int64)) + 1
    push!(a, 5)
    a[1:2] = [1, 2]
    a .= 3
    a[1:1] .= 4
    @test all(x -> x isa Int128, a) && a == [4, 3]
    @test_throws InexactError (a[1] = 2.5)
    @test zeros(Int128, 2) isa Vector{Int128} && ones(BigInt, 1, 2) == [1 1]
    @test zeros(Rational{Int}, 2) isa Vector{Rational{Int}}
end
@testset "factorial of each integer type" begin
    @test factorial(big(25)) == big(15511210043330985984000000)
    @test factorial(Int32(13)) === 6227020800
    @test factorial(Int128(33)) == Int128(8683317618811886495518194401280000000)
    @test_throws OverflowError factorial(Int128(34))
    @test_throws OverflowError factorial(21)
end
"""


def test_wide_integer_ranges_arrays_and_factorial() -> None:
    run_program(WIDE_RANGES)


GENERATORS = r"""
using Test
@testset "a generator over several iterators is lazy, over their product" begin
    gen = (a + 10b for a = 1:2, b = 3:5)
    @test gen isa Base.Generator && size(gen.iter) == (2, 3) && ndims(gen) == 2
    @test collect(gen) == [31 41 51; 32 42 52] && size(map(x -> 2x, gen)) == (2, 3)
    @test sum(gen) == 249 && first(gen) == 31
    @test collect(a * b for a = 1:3, b = 1:3 if a < b) == [2, 3, 6]
end
"""


def test_generators_over_several_iterators() -> None:
    run_program(GENERATORS)
