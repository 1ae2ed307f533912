# Facts from JuliaLang/julia test/numbers.jl (ported for Zyla's conformance suite).
#
# The upstream file's own alias `≣` (= isequal) is written as `isequal` here.

using Test
using LinearAlgebra
using Base.MathConstants
using Random

@testset "basic booleans" begin
    @test true
    @test !false
    @test !!true
    @test !!!false

    @test true != false
    @test false != true
    @test true == true
    @test false == false

    @test ~false == true
    @test ~true == false

    for (a, b, band, bor, bxor, bnand, bnor) in (
            (false, false, false, false, false, true, true),
            (true, false, false, true, true, true, false),
            (false, true, false, true, true, true, false),
            (true, true, true, true, false, false, false))
        @test (a & b) == band
        @test (a | b) == bor
        @test (a ⊻ b) == bxor
        @test xor(a, b) == bxor
        @test (a ⊼ b) == bnand
        @test nand(a, b) == bnand
        @test (a ⊽ b) == bnor
        @test nor(a, b) == bnor
    end
end

@testset "bool operator" begin
    @test Bool(false) == false
    @test Bool(true) == true
    @test Bool(0) == false
    @test Bool(1) == true
    @test_throws InexactError Bool(-1)
    @test Bool(0.0) == false
    @test Bool(1.0) == true
    @test_throws InexactError Bool(0.1)
    @test_throws InexactError Bool(-1.0)
    @test Bool(Complex(0, 0)) == false
    @test Bool(Complex(1, 0)) == true
    @test_throws InexactError Bool(Complex(0, 1))
    @test Bool(0//1) == false
    @test Bool(1//1) == true
    @test_throws InexactError Bool(1//2)

    @test iszero(false) && !iszero(true)
    @test isone(true) && !isone(false)

    @test typemin(Bool) == false
    @test typemax(Bool) == true
    @test abs(false) == false
    @test abs(true) == true
end

@testset "basic arithmetic" begin
    @test 2 + 3 == 5
    @test 2.0 + 3.0 == 5.
    @test 2 * 3 == 6
    @test 2.0 * 3 == 6
    @test 2.0 * 3.0 == 6.
    @test min(1.0, 1) == 1
end

@testset "min, max and minmax" begin
    @test min(1) === 1
    @test max(1) === 1
    @test minmax(1) === (1, 1)
    @test minmax(5, 3) == (3, 5)
    # every argument is converted to T before the operation
    lifted(T, f, a, b) = f(T.(a), T.(b))
    lifted(T, f) = (a, b) -> lifted(T, f, a, b)
    same(a, b) = a == b
    for T in (Float16, Float32, Float64, BigFloat)
        minmax = lifted(T, Base.minmax)
        min = lifted(T, Base.min)
        max = lifted(T, Base.max)
        (==) = lifted(T, same)
        (===) = lifted(T, Base.isequal)  # only used to tell -0.0 from 0.0
        @test minmax(3., 5.) == (3., 5.)
        @test minmax(5., 3.) == (3., 5.)
        @test isequal(minmax(3., NaN), (NaN, NaN))
        @test isequal(minmax(NaN, 3), (NaN, NaN))
        @test isequal(minmax(Inf, NaN), (NaN, NaN))
        @test isequal(minmax(NaN, Inf), (NaN, NaN))
        @test isequal(minmax(-Inf, NaN), (NaN, NaN))
        @test isequal(minmax(NaN, -Inf), (NaN, NaN))
        @test isequal(minmax(NaN, NaN), (NaN, NaN))
        @test min(-0.0, 0.0) === min(0.0, -0.0)
        @test max(-0.0, 0.0) === max(0.0, -0.0)
        @test minmax(-0.0, 0.0) === minmax(0.0, -0.0)
        @test max(-3.2, 5.1) == max(5.1, -3.2) == 5.1
        @test min(-3.2, 5.1) == min(5.1, -3.2) == -3.2
        @test max(-3.2, Inf) == max(Inf, -3.2) == Inf
        @test isequal(max(-3.2, NaN), max(NaN, -3.2)) && isequal(max(NaN, -3.2), NaN)
        @test min(5.1, Inf) == min(Inf, 5.1) == 5.1
        @test min(5.1, -Inf) == min(-Inf, 5.1) == -Inf
        @test isequal(min(5.1, NaN), min(NaN, 5.1)) && isequal(min(NaN, 5.1), NaN)
        @test isequal(min(5.1, -NaN), min(-NaN, 5.1)) && isequal(min(-NaN, 5.1), NaN)
        @test minmax(-3.2, 5.1) == (min(-3.2, 5.1), max(-3.2, 5.1))
        @test minmax(-3.2, Inf) == (min(-3.2, Inf), max(-3.2, Inf))
        @test isequal(minmax(-3.2, NaN), (min(-3.2, NaN), max(-3.2, NaN)))
        @test isequal((max(Inf, NaN), max(-Inf, NaN), max(Inf, -NaN), max(-Inf, -NaN)), (NaN, NaN, NaN, NaN))
        @test isequal((max(NaN, Inf), max(NaN, -Inf), max(-NaN, Inf), max(-NaN, -Inf)), (NaN, NaN, NaN, NaN))
        @test isequal((min(Inf, NaN), min(-Inf, NaN), min(Inf, -NaN), min(-Inf, -NaN)), (NaN, NaN, NaN, NaN))
        @test isequal((min(NaN, Inf), min(NaN, -Inf), min(-NaN, Inf), min(-NaN, -Inf)), (NaN, NaN, NaN, NaN))
        @test isequal(minmax(-Inf, NaN), (min(-Inf, NaN), max(-Inf, NaN)))
    end
end

@testset "Base._extrema_rf for float" begin
    for T in (Float16, Float32, Float64, BigFloat)
        sorted = T[-Inf, -5, -0.0, 0.0, 3, Inf]
        nans = T[NaN, -NaN]
        for a1 in 1:6, a2 in 1:6, b1 in 1:6, b2 in 1:6
            p = sorted[a1], sorted[a2]
            q = sorted[b1], sorted[b2]
            expected = sorted[min(a1, b1)], sorted[max(a2, b2)]
            @test Base._extrema_rf(p, q) === expected
        end
        for k in 1:2, b1 in 1:6, b2 in 1:6   # one side is a NaN pair
            p = nans[k], nans[k]
            q = sorted[b1], sorted[b2]
            @test Base._extrema_rf(p, q) === p
            @test Base._extrema_rf(q, p) === p
        end
        for k in 1:2, l in 1:2               # both sides NaN pairs
            p = nans[k], nans[k]
            q = nans[l], nans[l]
            r = Base._extrema_rf(p, q)
            @test r === p || r === q
        end
    end
end

@testset "fma" begin
    let n = Int64(7)^7
        @test fma(n - 1, n - 2, n - 3) == (n - 1) * (n - 2) + (n - 3)
        @test fma((n - 1)//(n - 2), (n - 3)//(n - 4), (n - 5)//(n - 6)) ==
              (n - 1)//(n - 2) * (n - 3)//(n - 4) + (n - 5)//(n - 6)
    end
    let n = BigInt(7)^77
        @test fma(n - 1, n - 2, n - 3) == (n - 1) * (n - 2) + (n - 3)
        @test fma((n - 1)//(n - 2), (n - 3)//(n - 4), (n - 5)//(n - 6)) ==
              (n - 1)//(n - 2) * (n - 3)//(n - 4) + (n - 5)//(n - 6)
    end
    # (power of two, float type) pairs: fma is exact where a*b-1 rounds
    let e = 1//BigInt(2)^30, one_e = 1 + e, ef = Float64(e), one_ef = Float64(one_e)
        @test ef == Float64(e)
        @test rationalize(BigInt, ef, tol=0) == e
        @test one_ef == Float64(one_e)
        @test rationalize(BigInt, one_ef, tol=0) == one_e
        @test one_ef * one_ef - 1 != Float64(one_e * one_e - 1)
        @test fma(one_ef, one_ef, -1) == Float64(one_e * one_e - 1)
    end
    let e = 1//BigInt(2)^15, one_e = 1 + e, ef = Float32(e), one_ef = Float32(one_e)
        @test ef == Float32(e)
        @test rationalize(BigInt, ef, tol=0) == e
        @test one_ef == Float32(one_e)
        @test rationalize(BigInt, one_ef, tol=0) == one_e
        @test one_ef * one_ef - 1 != Float32(one_e * one_e - 1)
        @test fma(one_ef, one_ef, -1) == Float32(one_e * one_e - 1)
    end
    let e = 1//BigInt(2)^7, one_e = 1 + e,
        ef = Float16(Float32(e)), one_ef = Float16(Float32(one_e))
        @test ef == Float16(Float32(e))
        @test rationalize(BigInt, ef, tol=0) == e
        @test one_ef == Float16(Float32(one_e))
        @test rationalize(BigInt, one_ef, tol=0) == one_e
        @test one_ef * one_ef - 1 != Float16(Float32(one_e * one_e - 1))
        @test fma(one_ef, one_ef, -1) == Float16(Float32(one_e * one_e - 1))
    end
    let e = 1//BigInt(2)^200, one_e = 1 + e, ef = BigFloat(e), one_ef = BigFloat(one_e)
        @test ef == BigFloat(e)
        @test rationalize(BigInt, ef, tol=0) == e
        @test one_ef == BigFloat(one_e)
        @test rationalize(BigInt, one_ef, tol=0) == one_e
        @test one_ef * one_ef - 1 != BigFloat(one_e * one_e - 1)
        @test fma(one_ef, one_ef, -1) == BigFloat(one_e * one_e - 1)
    end
end

@testset "muladd" begin
    let e = 1//BigInt(2)^30, one_e = 1 + e, ef = Float64(e), one_ef = Float64(one_e)
        @test ef == Float64(e)
        @test one_ef == Float64(one_e)
        @test one_ef * one_ef - 1 != Float64(one_e * one_e - 1)
        @test muladd(one_ef, one_ef, -1) ≈ Float64(one_e * one_e - 1)
    end
    let e = 1//BigInt(2)^15, one_e = 1 + e, ef = Float32(e), one_ef = Float32(one_e)
        @test ef == Float32(e)
        @test one_ef == Float32(one_e)
        @test one_ef * one_ef - 1 != Float32(one_e * one_e - 1)
        @test muladd(one_ef, one_ef, -1) ≈ Float32(one_e * one_e - 1)
    end
    let e = 1//BigInt(2)^7, one_e = 1 + e,
        ef = Float16(Float32(e)), one_ef = Float16(Float32(one_e))
        @test ef == Float16(Float32(e))
        @test one_ef == Float16(Float32(one_e))
        @test one_ef * one_ef - 1 != Float16(Float32(one_e * one_e - 1))
        @test muladd(one_ef, one_ef, -1) ≈ Float16(Float32(one_e * one_e - 1))
    end
    @test muladd(1, 2, 3) == 1*2 + 3
    @test muladd(big(1), 2, 3) == big(1)*2 + 3
    @test muladd(UInt(1), 2, 3) == UInt(1)*2 + 3
    @test muladd(1//1, 2, 3) == (1//1)*2 + 3
    @test muladd(big(1//1), 2, 3) == big(1//1)*2 + 3
    @test muladd(1.0, 2, 3) == 1.0*2 + 3
    @test muladd(big(1.0), 2, 3) == big(1.0)*2 + 3
end

@testset "numbers.jl: lexing typemin(Int64)" begin
    @test (-9223372036854775808)^1 == -9223372036854775808
    @test [1 -1 -9223372036854775808] == [1 -1 typemin(Int64)]
end

@testset "numbers.jl: large integer literals" begin
    @test isa(-170141183460469231731687303715884105729, BigInt)
    @test isa(-170141183460469231731687303715884105728, Int128)
    @test isa(-9223372036854775809, Int128)
    @test isa(-9223372036854775808, Int64)
    @test isa(9223372036854775807, Int64)
    @test isa(9223372036854775808, Int128)
    @test isa(170141183460469231731687303715884105727, Int128)
    @test isa(170141183460469231731687303715884105728, BigInt)
    @test isa(0170141183460469231731687303715884105728, BigInt)
end
# (the GMP allocation-overflow check, OutOfMemoryError of BigInt(2)^typemax(Culong), is
#  about the allocator: left out)

@testset "numbers.jl: exponentiating with a negative base" begin
    @test -3^2 == -9
    @test -9223372036854775808^2 == -(9223372036854775808^2)
    @test -10000000000000000000^2 == -(10000000000000000000^2)
    @test -170141183460469231731687303715884105728^2 ==
        -(170141183460469231731687303715884105728^2)
end

@testset "numbers.jl: numeric literal coefficients" begin
    let v = 10
        @test 2v == 20
        @test 9223372036854775808v == 92233720368547758080
        @test 170141183460469231731687303715884105728v ==
            1701411834604692317316873037158841057280
    end
    @test 2(10) == 20
    @test 9223372036854775808(10) == 92233720368547758080
    @test 170141183460469231731687303715884105728(10) ==
        1701411834604692317316873037158841057280
end

@testset "bin/oct/dec/hex/base for extreme integers" begin
    # (type, base, string(typemin(T); base), string(typemax(T); base))
    table = [
        (UInt8, 2, "0", "1"^8), (UInt8, 8, "0", "377"), (UInt8, 10, "0", "255"),
        (UInt8, 16, "0", "ff"), (UInt8, 3, "0", "100110"), (UInt8, 12, "0", "193"),

        (UInt16, 2, "0", "1"^16), (UInt16, 8, "0", "177777"), (UInt16, 10, "0", "65535"),
        (UInt16, 16, "0", "ffff"), (UInt16, 3, "0", "10022220020"), (UInt16, 12, "0", "31b13"),

        (UInt32, 2, "0", "1"^32), (UInt32, 8, "0", "37777777777"),
        (UInt32, 10, "0", "4294967295"), (UInt32, 16, "0", "ffffffff"),
        (UInt32, 3, "0", "102002022201221111210"), (UInt32, 12, "0", "9ba461593"),

        (UInt64, 2, "0", "1"^64), (UInt64, 8, "0", "1777777777777777777777"),
        (UInt64, 10, "0", "18446744073709551615"), (UInt64, 16, "0", "ffffffffffffffff"),
        (UInt64, 3, "0", "11112220022122120101211020120210210211220"),
        (UInt64, 12, "0", "839365134a2a240713"),

        (UInt128, 2, "0", "1"^128),
        (UInt128, 8, "0", "3777777777777777777777777777777777777777777"),
        (UInt128, 16, "0", "ffffffffffffffffffffffffffffffff"),
        (UInt128, 10, "0", "340282366920938463463374607431768211455"),
        (UInt128, 3, "0", "202201102121002021012000211012011021221022212021111001022110211020010021100121010"),
        (UInt128, 12, "0", "5916b64b41143526a777873841863a6a6993"),

        (Int8, 2, "-1" * "0"^7, "1"^7), (Int8, 8, "-200", "177"), (Int8, 10, "-128", "127"),
        (Int8, 16, "-80", "7f"), (Int8, 3, "-11202", "11201"), (Int8, 12, "-a8", "a7"),

        (Int16, 2, "-1" * "0"^15, "1"^15), (Int16, 8, "-100000", "77777"),
        (Int16, 10, "-32768", "32767"), (Int16, 16, "-8000", "7fff"),
        (Int16, 3, "-1122221122", "1122221121"), (Int16, 12, "-16b68", "16b67"),

        (Int32, 2, "-1" * "0"^31, "1"^31), (Int32, 8, "-20000000000", "17777777777"),
        (Int32, 10, "-2147483648", "2147483647"), (Int32, 16, "-80000000", "7fffffff"),
        (Int32, 3, "-12112122212110202102", "12112122212110202101"),
        (Int32, 12, "-4bb2308a8", "4bb2308a7"),

        (Int64, 2, "-1" * "0"^63, "1"^63),
        (Int64, 8, "-1000000000000000000000", "777777777777777777777"),
        (Int64, 10, "-9223372036854775808", "9223372036854775807"),
        (Int64, 16, "-8000000000000000", "7fffffffffffffff"),
        (Int64, 3, "-2021110011022210012102010021220101220222", "2021110011022210012102010021220101220221"),
        (Int64, 12, "-41a792678515120368", "41a792678515120367"),

        (Int128, 2, "-1" * "0"^127, "1"^127),
        (Int128, 8, "-2000000000000000000000000000000000000000000", "1777777777777777777777777777777777777777777"),
        (Int128, 16, "-80000000000000000000000000000000", "7fffffffffffffffffffffffffffffff"),
        (Int128, 10, "-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"),
        (Int128, 3, "-101100201022001010121000102002120122110122221010202000122201220121120010200022002",
                    "101100201022001010121000102002120122110122221010202000122201220121120010200022001"),
        (Int128, 12, "-2a695925806818735399a37a20a31b3534a8", "2a695925806818735399a37a20a31b3534a7"),
    ]
    for (T, b, lo, hi) in table
        @test string(typemin(T), base = b) == lo
        @test string(typemax(T), base = b) == hi
    end
    # (type, repr(typemin), string(typemin), repr(typemax), string(typemax)) for unsigned
    for (T, rlo, slo, rhi, shi) in (
            (UInt8, "0x00", "0", "0xff", "255"),
            (UInt16, "0x0000", "0", "0xffff", "65535"),
            (UInt32, "0x00000000", "0", "0xffffffff", "4294967295"),
            (UInt64, "0x0000000000000000", "0", "0xffffffffffffffff", "18446744073709551615"),
            (UInt128, "0x00000000000000000000000000000000", "0",
             "0xffffffffffffffffffffffffffffffff", "340282366920938463463374607431768211455"))
        @test repr(typemin(T)) == rlo
        @test string(typemin(T)) == slo
        @test repr(typemax(T)) == rhi
        @test string(typemax(T)) == shi
    end
    for (T, slo, shi) in (
            (Int8, "-128", "127"),
            (Int16, "-32768", "32767"),
            (Int32, "-2147483648", "2147483647"),
            (Int64, "-9223372036854775808", "9223372036854775807"),
            (Int128, "-170141183460469231731687303715884105728", "170141183460469231731687303715884105727"))
        @test string(typemin(T)) == slo
        @test string(typemax(T)) == shi
    end
end

@testset "floating-point printing" begin
    for (v, s) in ((1.0, "1.0"), (-1.0, "-1.0"), (0.0, "0.0"), (-0.0, "-0.0"),
                   (0.1, "0.1"), (0.2, "0.2"), (0.3, "0.3"), (Inf, "Inf"), (-Inf, "-Inf"),
                   (NaN, "NaN"), (-NaN, "NaN"), (Float64(pi), "3.141592653589793"))
        @test repr(v) == s
    end
    @test repr(0.1 + 0.2) != "0.3"
    # issue 6608: compact printing
    for (v, s) in ((666666.6, "6.66667e5"), (666666.049, "666666.0"), (666665.951, "666666.0"),
                   (66.66666, "66.6667"), (-666666.6, "-6.66667e5"), (-666666.049, "-666666.0"),
                   (-666665.951, "-666666.0"), (-66.66666, "-66.6667"),
                   (-498796.2749933266, "-4.98796e5"), (123456.78, "1.23457e5"))
        @test sprint(show, v, context=:compact => true) == s
    end
    # issue 37941
    @test sprint(show, MIME("text/plain"), Float16(0.0)) == "Float16(0.0)"
    @test sprint(show, MIME("text/plain"), -Float16(0.0)) == "Float16(-0.0)"
    @test sprint(show, MIME("text/plain"), Float16(5.0)) == "Float16(5.0)"
    @test sprint(show, MIME("text/plain"), -Float16(5.0)) == "Float16(-5.0)"
    @test sprint(show, MIME("text/plain"), Float16(Inf)) == "Inf16"
    @test sprint(show, MIME("text/plain"), -Float16(Inf)) == "-Inf16"
    @test sprint(show, MIME("text/plain"), Float16(NaN)) == "NaN16"

    for (v, s) in ((1.0f0, "1.0f0"), (-1.0f0, "-1.0f0"), (0.0f0, "0.0f0"), (-0.0f0, "-0.0f0"),
                   (0.1f0, "0.1f0"), (0.2f0, "0.2f0"), (0.3f0, "0.3f0"), (0.1f0 + 0.2f0, "0.3f0"),
                   (Inf32, "Inf32"), (-Inf32, "-Inf32"), (NaN32, "NaN32"), (-NaN32, "NaN32"),
                   (Float32(pi), "3.1415927f0"))
        @test repr(v) == s
    end
end

@testset "signs" begin
    @test sign(1) == 1
    @test sign(-1) == -1
    @test sign(0) == 0
    @test sign(1.0) == 1
    @test sign(-1.0) == -1
    @test sign(0.0) == 0
    @test sign(-0.0) == 0
    @test sign(1.0/0.0) == 1
    @test sign(-1.0/0.0) == -1
    @test sign(Inf) == 1
    @test sign(-Inf) == -1
    @test isequal(sign(NaN), NaN)
    @test isequal(sign(-NaN), NaN)
    @test sign(2//3) == 1
    @test sign(-2//3) == -1
    @test sign(0//1) == 0
    @test sign(-0//1) == 0
    @test sign(1//0) == 1
    @test sign(-1//0) == -1
    @test isa(sign(2//3), Rational{Int})
    @test isa(2//3 + 2//3im, Complex{Rational{Int}})
    @test isa(sign(2//3 + 2//3im), ComplexF64)
    @test sign(pi) === 1.0
    @test sign(pi) === -sign(-pi)
    @test sign(one(UInt)) == 1
    @test sign(zero(UInt)) == 0
    # (the Furlong unit-number checks need the test suite's testhelpers/Furlongs.jl: left out)

    @test signbit(1) == 0
    @test signbit(0) == 0
    @test signbit(-1) == 1
    @test signbit(1.0) == 0
    @test signbit(0.0) == 0
    @test signbit(-0.0) == 1
    @test signbit(-1.0) == 1
    @test signbit(1.0/0.0) == 0
    @test signbit(-1.0/0.0) == 1
    @test signbit(Inf) == 0
    @test signbit(-Inf) == 1
    @test signbit(NaN) == 0
    @test signbit(-NaN) == 1
    @test signbit(2//3) == 0
    @test signbit(-2//3) == 1
    @test signbit(0//1) == 0
    @test signbit(-0//1) == 0
    @test signbit(1//0) == 0
    @test signbit(-1//0) == 1
end

@testset "copysign" begin
    @test copysign(big(1.0), big(-2.0)) == big(-1.0)

    @test copysign(-1, 1) == 1
    @test copysign(1, -1) == -1
    @test copysign(-1, 1.0) == 1
    @test copysign(1, -1.0) == -1
    @test copysign(-1, 1//2) == 1
    @test copysign(1, -1//2) == -1

    @test copysign(1.0, -1) == -1.0
    @test copysign(-1.0, 1) == 1.0
    @test copysign(1.0, -1.0) == -1.0
    @test copysign(-1.0, 1.0) == 1.0
    @test copysign(1.0, -1//2) == -1.0
    @test copysign(-1.0, 1//2) == 1.0

    @test copysign(1//2, -1) == -1//2
    @test copysign(-1//2, 1) == 1//2
    @test copysign(1//2, -1//2) == -1//2
    @test copysign(-1//2, 1//2) == 1//2
    @test copysign(1//2, -1.0) == -1//2
    @test copysign(-1//2, 1.0) == 1//2

    # the result keeps the kind of the first argument
    signs = (1, BigInt(1), 1.0, 1//2, -1, -BigInt(1), -1.0, -1//2)
    for s in signs
        @test eltype(copysign(-1, s)) <: Integer
        @test eltype(copysign(1, s)) <: Integer
        @test eltype(copysign(-1.0, s)) <: Real
        @test eltype(copysign(1.0, s)) <: Real
        @test eltype(copysign(-1//2, s)) <: Rational
    end
    for s in (1, 1.0, 1//2, BigInt(1), -1, -1.0, -1//2, -BigInt(1))
        @test eltype(copysign(-BigInt(1), s)) <: Integer
        @test eltype(copysign(BigInt(1), s)) <: Integer
    end

    @test isnan(copysign(0/0, 1))
    @test isnan(copysign(0/0, -1))
    @test isinf(copysign(1/0, 1))
    @test isinf(copysign(1/0, -1))

    # an Unsigned sign source is never negative
    @test copysign(Float16(-1), 0x01) === Float16(1)
    @test copysign(Float16(1), 0x01) === Float16(1)
    @test copysign(-1.0f0, 0x01) === 1.0f0
    @test copysign(1.0f0, 0x01) === 1.0f0
    @test copysign(-1.0, 0x01) === 1.0
    @test copysign(-1, 0x02) === 1
    @test copysign(big(-1), 0x02) == 1
    @test copysign(big(-1.0), 0x02) == 1.0
    @test copysign(-1//2, 0x01) == 1//2
end

@testset "isnan/isinf/isfinite" begin
    # (value, isnan, isinf, isfinite)
    for (v, n, i, f) in ((1, false, false, true), (1.0, false, false, true),
                         (-1.0, false, false, true), (Inf, false, true, false),
                         (-Inf, false, true, false), (NaN, true, false, false),
                         (1//2, false, false, true), (-2//3, false, false, true),
                         (5//0, false, true, false), (-3//0, false, true, false))
        @test isnan(v) == n
        @test isinf(v) == i
        @test isfinite(v) == f
    end
    @test isfinite(pi) == true

    @test isequal(-Inf, -Inf)
    @test isequal(-1.0, -1.0)
    @test isequal(-0.0, -0.0)
    @test isequal(+0.0, +0.0)
    @test isequal(+1.0, +1.0)
    @test isequal(+Inf, +Inf)
    @test isequal(-NaN, -NaN)
    @test isequal(-NaN, +NaN)
    @test isequal(+NaN, -NaN)
    @test isequal(+NaN, +NaN)

    @test !isequal(-Inf, +Inf)
    @test !isequal(-1.0, +1.0)
    @test !isequal(-0.0, +0.0)
    @test !isequal(+0.0, -0.0)
    @test !isequal(+1.0, -1.0)
    @test !isequal(+Inf, -Inf)

    @test isequal(-0.0f0, -0.0)
    @test isequal(0.0f0, 0.0)
    @test !isequal(-0.0f0, 0.0)
    @test !isequal(0.0f0, -0.0)

    # the total order isless: -Inf < -1 < -0.0 < +0.0 < 1 < Inf < NaN (either sign),
    # and NaN is not less than anything
    ordered = [-Inf, -1.0, -0.0, +0.0, +1.0, +Inf]
    for i in 1:6, j in 1:6
        @test isless(ordered[i], ordered[j]) == (i < j)
    end
    for v in ordered
        @test isless(v, -NaN)
        @test isless(v, +NaN)
        @test !isless(-NaN, v)
        @test !isless(+NaN, v)
    end
    @test !isless(-NaN, -NaN)
    @test !isless(-NaN, +NaN)
    @test !isless(+NaN, -NaN)
    @test !isless(+NaN, +NaN)
    @test !isless(+NaN, 1)
    @test !isless(-NaN, 1)

    @test isequal(0, 0.0)
    @test isequal(0.0, 0)
    @test !isequal(0, -0.0)
    @test !isequal(-0.0, 0)
    @test isless(-0.0, 0)
    @test !isless(0, -0.0)

    @test isless(-0.0, 0.0f0)
    @test cmp(isless, -0.0, 0.0f0) == -1
    @test cmp(isless, 0.0, -0.0f0) == 1
    @test cmp(isless, NaN, 1) == 1
    @test cmp(isless, 1, NaN) == -1
    @test cmp(isless, NaN, NaN) == 0
end

# the exact order of x = 2^53 + dx against y = 2^53 + dy (all these y are Float64-exact)
const NEAR_2_53_ORDER = Dict(
    (-2, -2) => 0, (-2, -1) => -1, (-2, 0) => -1, (-2, 2) => -1, (-2, 3) => -1, (-2, 4) => -1,
    (-1, -2) => 1, (-1, -1) => 0, (-1, 0) => -1, (-1, 2) => -1, (-1, 3) => -1, (-1, 4) => -1,
    (0, -2) => 1, (0, -1) => 1, (0, 0) => 0, (0, 2) => -1, (0, 4) => -1,
    (1, -2) => 1, (1, -1) => 1, (1, 0) => 1, (1, 2) => -1, (1, 4) => -1,
    (2, -2) => 1, (2, -1) => 1, (2, 0) => 1, (2, 2) => 0, (2, 4) => -1,
    (3, -2) => 1, (3, -1) => 1, (3, 0) => 1, (3, 2) => 1, (3, 4) => -1,
    (4, -2) => 1, (4, -1) => 1, (4, 0) => 1, (4, 2) => 1, (4, 4) => 0,
    (5, -2) => 1, (5, -1) => 1, (5, 0) => 1, (5, 2) => 1, (5, 4) => 1)

@testset "Float vs Integer comparison" begin
    for a = -5:5, b = -5:5
        for (l, r) in ((Float64(a), Int64(b)), (Int64(a), Float64(b)))
            @test (a == b) == (l == r)
            @test (a != b) == (l != r)
            @test (a < b) == (l < r)
            @test (a > b) == (l > r)
            @test (a <= b) == (l <= r)
            @test (a >= b) == (l >= r)
        end
        if a >= 0
            l, r = UInt64(a), Float64(b)
            @test (a == b) == (l == r)
            @test (a != b) == (l != r)
            @test (a < b) == (l < r)
            @test (a > b) == (l > r)
            @test (a <= b) == (l <= r)
            @test (a >= b) == (l >= r)
        end
        if b >= 0
            l, r = Float64(a), UInt64(b)
            @test (a == b) == (l == r)
            @test (a != b) == (l != r)
            @test (a < b) == (l < r)
            @test (a > b) == (l > r)
            @test (a <= b) == (l <= r)
            @test (a >= b) == (l >= r)
        end
    end

    base = Int64(2)^53
    for dx = -2:5, dy in (-2, -1, 0, 2, 4)
        x = base + dx
        y = 2.0^53 + dy
        u = UInt64(x)
        @test y == Float64(trunc(Int64, y))

        @test (x == y) == (y == x)
        @test (x != y) == !(x == y)
        @test (-x == -y) == (-y == -x)
        @test (-x != -y) == !(-x == -y)

        @test (x < y) == (x <= y) & (x != y)
        @test (x <= y) == (x < y) | (x == y)
        @test (x == y) == (x <= y) & !(x < y)

        @test -x != x
        @test -y != y
        @test -x != y
        @test -y != x
        @test -x < x
        @test -y < y
        @test -x < y
        @test -y < x
        @test -x <= x
        @test -y <= y
        @test -x <= y
        @test -y <= x

        @test -y != u
        @test -y < u
        @test -y <= u

        c = NEAR_2_53_ORDER[(dx, dy)]
        if c < 0
            @test !(x == y)
            @test (x < y)
            @test !(y < x)
            @test (x <= y)
            @test !(y <= x)
            @test !(u == y)
            @test (u < y)
            @test !(y < u)
            @test (u <= y)
            @test !(y <= u)
            @test !(-x == -y)
            @test !(-x < -y)
            @test (-y < -x)
            @test !(-x <= -y)
            @test (-y <= -x)
        elseif c > 0
            @test !(x == y)
            @test !(x < y)
            @test (y < x)
            @test !(x <= y)
            @test (y <= x)
            @test !(u == y)
            @test !(u < y)
            @test (y < u)
            @test !(u <= y)
            @test (y <= u)
            @test !(-x == -y)
            @test (-x < -y)
            @test !(-y < -x)
            @test (-x <= -y)
            @test !(-y <= -x)
        else
            @test (x == y)
            @test !(x < y)
            @test !(y < x)
            @test (x <= y)
            @test (y <= x)
            @test (u == y)
            @test !(u < y)
            @test !(y < u)
            @test (u <= y)
            @test (y <= u)
            @test (-x == -y)
            @test !(-x < -y)
            @test !(-y < -x)
            @test (-x <= -y)
            @test (-y <= -x)
        end
    end

    @test Int64(2)^62 - 1 != 2.0^62
    @test Int64(2)^62 == 2.0^62
    @test Int64(2)^62 + 1 != 2.0^62
    @test 2.0^62 != Int64(2)^62 - 1
    @test 2.0^62 == Int64(2)^62
    @test 2.0^62 != Int64(2)^62 + 1

    @test typemax(Int64) != +2.0^63
    @test typemin(Int64) == -2.0^63
    @test typemin(Int64) + 1 != -2.0^63

    for k in (60, 63)
        @test UInt64(2)^k - 1 != 2.0^k
        @test UInt64(2)^k == 2.0^k
        @test UInt64(2)^k + 1 != 2.0^k
        @test 2.0^k != UInt64(2)^k - 1
        @test 2.0^k == UInt64(2)^k
        @test 2.0^k != UInt64(2)^k + 1
    end

    @test typemax(UInt64) != 2.0^64
    umax_vs_2_64() = typemax(UInt64) != 2.0^64   # issue #9085
    @test umax_vs_2_64()

    @test typemax(UInt64) < Float64(typemax(UInt64))
    @test typemax(Int64) < Float64(typemax(Int64))
    @test typemax(UInt64) <= Float64(typemax(UInt64))
    @test typemax(Int64) <= Float64(typemax(Int64))

    @test Float64(typemax(UInt64)) > typemax(UInt64)
    @test Float64(typemax(Int64)) > typemax(Int64)
    @test Float64(typemax(UInt64)) >= typemax(UInt64)
    @test Float64(typemax(Int64)) >= typemax(Int64)

    @test Float64(Int128(0)) == 0.0
    @test Float32(Int128(0)) == 0.0f0
    @test Float64(Int128(-1)) == -1.0
    @test Float32(Int128(-1)) == -1.0f0
    @test Float64(Int128(3)) == 3.0
    @test Float32(Int128(3)) == 3.0f0
    @test Float64(UInt128(10121)) == 10121.0
    @test Float32(UInt128(10121)) == 10121.0f0
    @test Float64(typemin(Int128)) == -2.0^127
    @test Float32(typemin(Int128)) == -2.0f0^127
    @test Float64(typemax(Int128)) == 2.0^127
    @test Float32(typemax(Int128)) == 2.0f0^127
    @test Float64(typemin(UInt128)) == 0.0
    @test Float32(typemin(UInt128)) == 0.0f0
    @test Float64(typemax(UInt128)) == 2.0^128
    @test Float32(typemax(UInt128)) == 2.0f0^128
    # more than 53 leading zeros
    @test Float64(UInt128(Int64(2)^54)) == 1.8014398509481984e16
    @test Float64(Int128(Int64(2)^54)) == 1.8014398509481984e16
    @test Float32(UInt128(Int64(2)^54)) == 1.8014399f16
    @test Float32(Int128(Int64(2)^54)) == 1.8014399f16

    # no double rounding when converting
    @test Float64(10633823966279328163822077199654060032) == 1.0633823966279327e37   # 2^123
    @test Float64(10633823966279328163822077199654060033) == 1.063382396627933e37    # next
    @test Float64(-10633823966279328163822077199654060032) == -1.0633823966279327e37
    @test Float64(-10633823966279328163822077199654060033) == -1.063382396627933e37

    # a gap of 54 bits between the lowest and highest set bit
    @test Float64(Int128(9007199254740993)) == 9.007199254740992e15
    @test Float64(UInt128(9007199254740993)) == 9.007199254740992e15
    # 2^104 - 1 and 2^104
    @test Float64(Int128(20282409603651670423947251286015)) == 2.028240960365167e31
    @test Float64(Int128(20282409603651670423947251286016)) == 2.028240960365167e31
    @test Float64(UInt128(20282409603651670423947251286015)) == 2.028240960365167e31
    @test Float64(UInt128(20282409603651670423947251286016)) == 2.028240960365167e31
end

@testset "Float vs Int128 comparisons" begin
    @test Int128(1e30) == 1e30
    @test Int128(1e30) + 1 > 1e30
    @test Int128(-2.0^127) == typemin(Int128)
    @test Float64(UInt128(3.7e19)) == 3.7e19
    @test Float64(UInt128(3.7e30)) == 3.7e30
end

@testset "Float16 vs Int comparisons" begin
    for T in (Int16, Int32, Int64, Int128, UInt16, UInt32, UInt64, UInt128)
        @test Inf16 != typemax(T)
    end
end

@testset "NaN comparisons" begin
    @test !(NaN <= 1)
    @test !(NaN >= 1)
    @test !(NaN < 1)
    @test !(NaN > 1)
    @test !(1 <= NaN)
    @test !(1 >= NaN)
    @test !(1 < NaN)
    @test !(1 > NaN)
end

@testset "Irrational zero and one" begin
    @test one(pi) === true
    @test zero(pi) === false
    @test one(typeof(pi)) === true
    @test zero(typeof(pi)) === false
end

@testset "Irrationals compared with Irrationals" begin
    for a in (π, ℯ, γ, catalan), b in (π, ℯ, γ, catalan)
        fa, fb = Float64(a), Float64(b)
        @test isequal(a == b, fa == fb)
        @test isequal(a != b, fa != fb)
        @test isequal(a <= b, fa <= fb)
        @test isequal(a >= b, fa >= fb)
        @test isequal(a < b, fa < fb)
        @test isequal(a > b, fa > fb)
    end
end

@testset "Irrational Inverses, Issue #30882" begin
    @test inv(π) ≈ 0.3183098861837907
end

@testset "Irrationals compared with Rationals and Floats" begin
    @test Float64(pi, RoundDown) < pi
    @test Float64(pi, RoundUp) > pi
    @test !(Float64(pi, RoundDown) > pi)
    @test !(Float64(pi, RoundUp) < pi)
    @test Float64(pi, RoundDown) <= pi
    @test Float64(pi, RoundUp) >= pi
    @test Float64(pi, RoundDown) != pi
    @test Float64(pi, RoundUp) != pi

    @test Float32(pi, RoundDown) < pi
    @test Float32(pi, RoundUp) > pi
    @test !(Float32(pi, RoundDown) > pi)
    @test !(Float32(pi, RoundUp) < pi)

    @test prevfloat(big(pi)) < pi
    @test nextfloat(big(pi)) > pi
    @test !(prevfloat(big(pi)) > pi)
    @test !(nextfloat(big(pi)) < pi)

    close_to_pi = 2646693125139304345//842468587426513207
    @test close_to_pi < pi
    @test !(close_to_pi > pi)
    @test close_to_pi != pi

    @test sqrt(2) == 1.4142135623730951
end

Base.@irrational i46051 4863.185427757 1548big(pi)

@testset "Irrational printing" begin
    @test sprint(show, "text/plain", π) == "π = 3.1415926535897..."
    @test sprint(show, "text/plain", π, context=:compact => true) == "π"
    @test sprint(show, π) == "π"
    # issue #46051
    @test sprint(show, "text/plain", i46051) == "i46051 = 4863.185427757..."
end

@testset "Irrational round, float, ceil" begin
    @test round(π) === 3.0
    @test round(Int, ℯ) === 3
    @test floor(ℯ) === 2.0
    @test floor(Int, φ) === 1
    @test ceil(γ) === 1.0
    @test ceil(Int, catalan) === 1
end

@testset "issue #6365" begin
    for T in (Float32, Float64), n = 9007199254740992:9007199254740996
        @test T(n) == T(BigFloat(n))
        @test T(-n) == T(BigFloat(-n))
        for mode in (RoundNearest, RoundUp, RoundDown, RoundToZero)
            @test T(n, mode) == T(BigFloat(n), mode)
            @test T(-n, mode) == T(BigFloat(-n), mode)
        end
    end
end

@testset "arithmetic with Ints and Floats" begin
    @test 1 + 1.5 == 2.5
    @test 1.5 + 1 == 2.5
    @test 1 + 1.5 + 2 == 4.5
    @test isa(convert(Complex{Int16}, 1), Complex{Int16})
    @test Complex(1, 2) + 1 == Complex(2, 2)
    @test Complex(1, 2) + 1.5 == Complex(2.5, 2.0)
    @test 1/Complex(2, 2) == Complex(.25, -.25)
    @test Complex(1.5, 1.0) + 1//2 == Complex(2.0, 1.0)
    @test real(Complex(1//2, 2//3)) == 1//2
    @test imag(Complex(1//2, 2//3)) == 2//3
    @test Complex(1, 2) + 1//2 == Complex(3//2, 2//1)
    @test Complex(1, 2) + 1//2 * 0.5 == Complex(1.25, 2.0)
    @test (Complex(1, 2) + 1//2) * 0.5 == Complex(0.75, 1.0)
    @test (Complex(1, 2)/Complex(2.5, 3.0))*Complex(2.5, 3.0) ≈ Complex(1, 2)
    @test 0.7 < real(sqrt(Complex(0, 1))) < 0.707107
end

@testset "numbers.jl: abs(typemin) and signed vs unsigned comparisons" begin
    for T in Base.BitSigned_types
        @test abs(typemin(T)) == -typemin(T)
    end
    for S in Base.BitSigned64_types, U in Base.BitUnsigned64_types
        @test !(-one(S) == typemax(U))
        @test -one(S) != typemax(U)
        @test -one(S) < typemax(U)
        @test !(typemax(U) <= -one(S))
    end
end

@testset "numbers.jl: type of constructed complexes" begin
    reals = [Base.BitInteger64_types...,
             [Rational{T} for T in Base.BitInteger64_types]...,
             Float32, Float64]
    for A in reals, B in reals
        @test typeof(Complex(convert(A, 2), convert(B, 3))) <: Complex{promote_type(A, B)}
    end
end

@testset "numbers.jl: no ordering of complex numbers" begin
    @test_throws MethodError complex(1, 2) > 0
    @test_throws MethodError complex(1, 2) > complex(0, 0)
end

# div/fld/cld/rem/mod of one pair x >= 0, y > 0, and of the four sign combinations
function check_division_family(x, y)
    # div by bands of x
    if 0 <= x < 1y
        @test div(+x, +y) == 0
        @test div(+x, -y) == 0
        @test div(-x, +y) == 0
        @test div(-x, -y) == 0
    end
    if 1y <= x < 2y
        @test div(+x, +y) == +1
        @test div(+x, -y) == -1
        @test div(-x, +y) == -1
        @test div(-x, -y) == +1
    end
    if 2y <= x < 3y
        @test div(+x, +y) == +2
        @test div(+x, -y) == -2
        @test div(-x, +y) == -2
        @test div(-x, -y) == +2
    end
    # fld by bands
    if 0 == x
        @test fld(+x, +y) == 0
        @test fld(+x, -y) == 0
        @test fld(-x, +y) == 0
        @test fld(-x, -y) == 0
    end
    if 0 < x < 1y
        @test fld(+x, +y) == +0
        @test fld(+x, -y) == -1
        @test fld(-x, +y) == -1
        @test fld(-x, -y) == +0
    end
    if 1y == x
        @test fld(+x, +y) == +1
        @test fld(+x, -y) == -1
        @test fld(-x, +y) == -1
        @test fld(-x, -y) == +1
    end
    if 1y < x < 2y
        @test fld(+x, +y) == +1
        @test fld(+x, -y) == -2
        @test fld(-x, +y) == -2
        @test fld(-x, -y) == +1
    end
    if 2y == x
        @test fld(+x, +y) == +2
        @test fld(+x, -y) == -2
        @test fld(-x, +y) == -2
        @test fld(-x, -y) == +2
    end
    if 2y < x < 3y
        @test fld(+x, +y) == +2
        @test fld(+x, -y) == -3
        @test fld(-x, +y) == -3
        @test fld(-x, -y) == +2
    end
    # cld by bands
    if 0 == x
        @test cld(+x, +y) == 0
        @test cld(+x, -y) == 0
        @test cld(-x, +y) == 0
        @test cld(-x, -y) == 0
    end
    if 0 < x < 1y
        @test cld(+x, +y) == +1
        @test cld(+x, -y) == +0
        @test cld(-x, +y) == +0
        @test cld(-x, -y) == +1
    end
    if 1y == x
        @test cld(+x, +y) == +1
        @test cld(+x, -y) == -1
        @test cld(-x, +y) == -1
        @test cld(-x, -y) == +1
    end
    if 1y < x < 2y
        @test cld(+x, +y) == +2
        @test cld(+x, -y) == -1
        @test cld(-x, +y) == -1
        @test cld(-x, -y) == +2
    end
    if 2y == x
        @test cld(+x, +y) == +2
        @test cld(+x, -y) == -2
        @test cld(-x, +y) == -2
        @test cld(-x, -y) == +2
    end
    if 2y < x < 3y
        @test cld(+x, +y) == +3
        @test cld(+x, -y) == -2
        @test cld(-x, +y) == -2
        @test cld(-x, -y) == +3
    end

    # the rest in terms of one another
    q = div(x, y)
    fq = fld(x, y)
    cq = cld(x, y)
    r = rem(x, y)
    m = mod(x, y)
    q2, r2 = divrem(x, y)
    fq2, m2 = fldmod(x, y)

    # quotients are integers of the promoted integer type; remainders of the promoted type
    Tq = isa(x, Rational) && isa(y, Rational) ? promote_type(typeof(numerator(x)), typeof(numerator(y))) :
         isa(x, Rational) ? promote_type(typeof(numerator(x)), typeof(y)) :
         isa(y, Rational) ? promote_type(typeof(x), typeof(numerator(y))) :
         promote_type(typeof(x), typeof(y))
    Tr = promote_type(typeof(x), typeof(y))

    @test typeof(q) <: Tq
    @test typeof(fq) <: Tq
    @test typeof(cq) <: Tq
    @test typeof(r) <: Tr
    @test typeof(m) <: Tr

    @test q == fq
    @test cq == fq + (m == 0 ? 0 : 1)
    @test r == m
    @test 0 <= r < y
    @test x == y*q + r

    @test typeof(q2) == typeof(q)
    @test typeof(r2) == typeof(r)
    @test typeof(fq2) == typeof(fq)
    @test typeof(m2) == typeof(m)
    @test q2 == q
    @test r2 == r
    @test fq2 == fq
    @test m2 == m

    for sa in (-1, 1), sb in (-1, 1)
        a = sa*x
        b = sb*y
        dq = div(a, b)
        dfq = fld(a, b)
        dcq = cld(a, b)
        dr = rem(a, b)
        dm = mod(a, b)
        dq2, dr2 = divrem(a, b)
        dfq2, dm2 = fldmod(a, b)

        @test typeof(dq) <: Tq
        @test typeof(dfq) <: Tq
        @test typeof(dcq) <: Tq
        @test typeof(dr) <: Tr
        @test typeof(dm) <: Tr

        @test a < 0 ? -y < dr <= 0 : 0 <= dr < +y
        @test b < 0 ? -y < dm <= 0 : 0 <= dm < +y
        @test a == b*dq + dr
        @test a == b*dfq + dm

        @test typeof(dq2) == typeof(dq)
        @test typeof(dr2) == typeof(dr)
        @test typeof(dfq2) == typeof(dfq)
        @test typeof(dm2) == typeof(dm)
        @test dq2 == dq
        @test dr2 == dr
        @test dfq2 == dfq
        @test dm2 == dm
    end
end

# The upstream testset "div, fld, cld, rem, mod" loops over all nine pairs of divisor and
# dividend ranges; it is cut here into one testset per divisor range (to stay inside the
# time limit per testset) and its nested testsets are top-level testsets of their own.
@testset "div, fld, cld, rem, mod" begin
    for x in Any[0:6, 0.0:0.25:6.0, 0//1:1//4:6//1], y in 1:6, v in x
        check_division_family(v, y)
    end

    # (x, [div, fld, cld] by 1, 2, 7, -1, -2, -7)
    tmax = typemax(Int64)
    tmin = typemin(Int64)
    table = [
        (tmax,     [9223372036854775807, 4611686018427387903, 1317624576693539401, -9223372036854775807, -4611686018427387903, -1317624576693539401],
                   [9223372036854775807, 4611686018427387903, 1317624576693539401, -9223372036854775807, -4611686018427387904, -1317624576693539401],
                   [9223372036854775807, 4611686018427387904, 1317624576693539401, -9223372036854775807, -4611686018427387903, -1317624576693539401]),
        (tmax - 1, [9223372036854775806, 4611686018427387903, 1317624576693539400, -9223372036854775806, -4611686018427387903, -1317624576693539400],
                   [9223372036854775806, 4611686018427387903, 1317624576693539400, -9223372036854775806, -4611686018427387903, -1317624576693539401],
                   [9223372036854775806, 4611686018427387903, 1317624576693539401, -9223372036854775806, -4611686018427387903, -1317624576693539400]),
        (tmax - 2, [9223372036854775805, 4611686018427387902, 1317624576693539400, -9223372036854775805, -4611686018427387902, -1317624576693539400],
                   [9223372036854775805, 4611686018427387902, 1317624576693539400, -9223372036854775805, -4611686018427387903, -1317624576693539401],
                   [9223372036854775805, 4611686018427387903, 1317624576693539401, -9223372036854775805, -4611686018427387902, -1317624576693539400]),
        (tmin + 1, [-9223372036854775807, -4611686018427387903, -1317624576693539401, 9223372036854775807, 4611686018427387903, 1317624576693539401],
                   [-9223372036854775807, -4611686018427387904, -1317624576693539401, 9223372036854775807, 4611686018427387903, 1317624576693539401],
                   [-9223372036854775807, -4611686018427387903, -1317624576693539401, 9223372036854775807, 4611686018427387904, 1317624576693539401]),
        (tmin + 2, [-9223372036854775806, -4611686018427387903, -1317624576693539400, 9223372036854775806, 4611686018427387903, 1317624576693539400],
                   [-9223372036854775806, -4611686018427387903, -1317624576693539401, 9223372036854775806, 4611686018427387903, 1317624576693539400],
                   [-9223372036854775806, -4611686018427387903, -1317624576693539400, 9223372036854775806, 4611686018427387903, 1317624576693539401]),
        (tmin + 3, [-9223372036854775805, -4611686018427387902, -1317624576693539400, 9223372036854775805, 4611686018427387902, 1317624576693539400],
                   [-9223372036854775805, -4611686018427387903, -1317624576693539401, 9223372036854775805, 4611686018427387902, 1317624576693539400],
                   [-9223372036854775805, -4611686018427387902, -1317624576693539400, 9223372036854775805, 4611686018427387903, 1317624576693539401]),
    ]
    for (x, ds, fs, cs) in table, (k, y) in enumerate((1, 2, 7, -1, -2, -7))
        @test div(x, y) == ds[k]
        @test fld(x, y) == fs[k]
        @test cld(x, y) == cs[k]
    end
    # typemin(Int64) (not by -1, which overflows)
    for (y, d, f, c) in ((1, -9223372036854775807-1, -9223372036854775807-1, -9223372036854775807-1),
                         (2, -4611686018427387904, -4611686018427387904, -4611686018427387904),
                         (7, -1317624576693539401, -1317624576693539402, -1317624576693539401),
                         (-2, 4611686018427387904, 4611686018427387904, 4611686018427387904),
                         (-7, 1317624576693539401, 1317624576693539401, 1317624576693539402))
        @test div(tmin, y) == d
        @test fld(tmin, y) == f
        @test cld(tmin, y) == c
    end

    for x in Any[typemin(Int64), -typemax(Int64), -typemax(Int64)+1, -typemax(Int64)+2,
                 typemax(Int64)-2, typemax(Int64)-1, typemax(Int64),
                 typemax(UInt64)-1, typemax(UInt64)-2, typemax(UInt64)],
        y in [-7, -2, -1, 1, 2, 7]
        if x >= 0
            @test div(unsigned(x), y) == unsigned(div(x, y))
            @test fld(unsigned(x), y) == unsigned(fld(x, y))
            @test cld(unsigned(x), y) == unsigned(cld(x, y))
        end
        if isa(x, Signed) && y >= 0
            @test div(x, unsigned(y)) == div(x, y)
            @test fld(x, unsigned(y)) == fld(x, y)
            @test cld(x, unsigned(y)) == cld(x, y)
        end
    end

    @test isnan(mod(NaN, Inf))
    @test isnan(mod(NaN, -Inf))
    for a in 0:5
        @test mod(a, Inf) == a
        @test mod(a, -Inf) == a
        @test mod(-a, Inf) == -a
        @test mod(-a, -Inf) == -a
        for b in 1:5
            for f in (div, fld, cld)
                @test f(UInt(a), UInt(b)) == f(a, b)
                @test f(UInt(a), b) == f(a, b)
                @test f(a, UInt(b)) == f(a, b)
                @test f(UInt(a), -b) == reinterpret(UInt, f(a, -b))
                @test f(-a, UInt(b)) == f(-a, b)
            end
            for f in (rem, mod)
                @test f(UInt(a), UInt(b)) == f(a, b)
                @test f(UInt(a), b) == f(a, b)
                @test f(a, UInt(b)) == f(a, b)
                @test f(UInt(a), -b) == f(a, -b)
                @test f(-a, UInt(b)) == f(-a, b)
            end
        end
    end

    for f in (div, fld, cld)
        @test f(typemax(UInt64), 1) == typemax(UInt64)
        @test f(typemax(UInt64), -1) == -typemax(UInt64)
        @test f(typemax(UInt64) - 1, 1) == typemax(UInt64) - 1
        @test f(typemax(UInt64) - 1, -1) == -typemax(UInt64) + 1
        @test f(typemax(UInt64) - 2, 1) == typemax(UInt64) - 2
        @test f(typemax(UInt64) - 2, -1) == -typemax(UInt64) + 2

        @test signed(f(unsigned(typemax(Int64)) + 2, 1)) == typemax(Int64) + 2
        @test signed(f(unsigned(typemax(Int64)) + 2, -1)) == -typemax(Int64) - 2
        @test signed(f(unsigned(typemax(Int64)) + 1, 1)) == typemax(Int64) + 1
        @test signed(f(unsigned(typemax(Int64)) + 1, -1)) == -typemax(Int64) - 1
        @test signed(f(unsigned(typemax(Int64)), 1)) == typemax(Int64)
        @test signed(f(unsigned(typemax(Int64)), -1)) == -typemax(Int64)
    end

    # typemax(UInt) divided by signed values near typemax(Int) and typemin(Int):
    # (divisor, div, fld, cld)
    for (y, d, f, c) in ((typemax(Int), 2, 2, 3),
                         ((typemax(Int) >> 1) + 1, 3, 3, 4),
                         (typemax(Int) >> 1, 4, 4, 5),
                         (typemin(Int), -1, -2, -1),
                         (typemin(Int) + 1, -2, -3, -2),
                         (typemin(Int) >> 1, -3, -4, -3),
                         ((typemin(Int) >> 1) + 1, -4, -5, -4))
        @test signed(div(typemax(UInt), y)) == d
        @test signed(fld(typemax(UInt), y)) == f
        @test signed(cld(typemax(UInt), y)) == c
    end

    @test mod(Int64(2), typemax(Int64)) == 2  # issue #3046
end

@testset "div, fld, cld, rem, mod: Float64 divisors" begin
    for x in Any[0:6, 0.0:0.25:6.0, 0//1:1//4:6//1], y in 0.25:0.25:6.0, v in x
        check_division_family(v, y)
    end
end

@testset "div, fld, cld, rem, mod: Rational divisors" begin
    for x in Any[0:6, 0.0:0.25:6.0, 0//1:1//4:6//1], y in 1//4:1//4:6//1, v in x
        check_division_family(v, y)
    end
end

@testset "div, fld, cld, rem, mod: UInt128 div/rem" begin
    words = [0xadc0db298a7401251f4fa96ba429cb24, 0xd11ef418102afb1f7959b6df48d08044]
    for a in words, b in words, sa in 0:128, sb in 0:127
        n = a >> sa
        d = b >> sb
        qr = divrem(n, d)
        @test qr isa Tuple{UInt128,UInt128}
        q, r = qr
        @test n == q*d + r && r < d
        @test q == div(n, d)::UInt128
        @test r == rem(n, d)::UInt128
    end
end

@testset "div, fld, cld, rem, mod: exceptions and special cases" begin
    for T in (Int8, Int16, Int32, Int64, Int128, UInt8, UInt16, UInt32, UInt64, UInt128)
        @test_throws DivideError div(T(1), T(0))
        @test_throws DivideError fld(T(1), T(0))
        @test_throws DivideError cld(T(1), T(0))
        @test_throws DivideError rem(T(1), T(0))
        @test_throws DivideError mod(T(1), T(0))
    end
    for T in (Int8, Int16, Int32, Int64, Int128)
        @test_throws DivideError div(typemin(T), T(-1))
        @test_throws DivideError fld(typemin(T), T(-1))
        @test_throws DivideError cld(typemin(T), T(-1))
        @test rem(typemin(T), T(-1)) === T(0)
        @test mod(typemin(T), T(-1)) === T(0)
    end
end

@testset "div, fld, cld, rem, mod: issue #4156" begin
    @test fld(1.4, 0.35667494393873234) == 3.0
    @test div(1.4, 0.35667494393873234) == 3.0
    @test fld(0.3, 0.01) == 29.0
    @test div(0.3, 0.01) == 29.0
end

@testset "div, fld, cld, rem, mod: issue #8831" begin
    @test rem(prevfloat(1.0), 1.0) == prevfloat(1.0)
    @test mod(prevfloat(1.0), 1.0) == prevfloat(1.0)
end

@testset "div, fld, cld, rem, mod: issue #45875" begin
    @test cld(+1.1, 0.1) == div(+1.1, 0.1, RoundUp) == ceil(big(+1.1)/big(0.1)) == +12.0
    @test fld(+1.1, 0.1) == div(+1.1, 0.1, RoundDown) == floor(big(+1.1)/big(0.1)) == +11.0
    @test cld(-1.1, 0.1) == div(-1.1, 0.1, RoundUp) == ceil(big(-1.1)/big(0.1)) == -11.0
    @test fld(-1.1, 0.1) == div(-1.1, 0.1, RoundDown) == floor(big(-1.1)/big(0.1)) == -12.0
end

@testset "return types" begin
    for T in (Int8, Int16, Int32, Int64, Int128, UInt8, UInt16, UInt32, UInt64, UInt128)
        zr, on = T(0), T(1)
        @test typeof(+zr) === T
        @test typeof(-zr) === T
        @test typeof(abs(zr)) === T
        @test typeof(sign(zr)) === T
        @test typeof(copysign(zr, zr)) === T
        @test typeof(flipsign(zr, zr)) === T
        @test typeof(zr + zr) === T
        @test typeof(zr - zr) === T
        @test typeof(zr * zr) === T
        @test typeof(zr ÷ on) === T
        @test typeof(zr % on) === T
        @test typeof(fld(zr, on)) === T
        @test typeof(mod(zr, on)) === T
        @test typeof(cld(zr, on)) === T
    end
end

@testset "numbers.jl: floating-point epsilon" begin
    @test eps() == eps(Float64)
    @test eps(Float64) == eps(1.0)
    @test eps(Float64) == eps(1.5)
    @test eps(Float32) == eps(1f0)
    for v in (float(0), -float(0), nextfloat(float(0)), -nextfloat(float(0)), floatmin(), -floatmin())
        @test eps(v) == 5e-324
    end
    @test eps(floatmax()) == 2.0^(1023 - 52)
    @test eps(-floatmax()) == 2.0^(1023 - 52)
    @test isnan(eps(NaN))
    @test isnan(eps(Inf))
    @test isnan(eps(-Inf))

    @test .1 + .1 + .1 != .3
    @test .1 + .1 + .1 ≈ .3
    @test .1 + .1 + .1 - .3 ≉ 0
    @test .1 + .1 + .1 - .3 ≈ 0 atol=eps(.3)
    @test 1.1 ≈ 1.1f0

    @test div(1e50, 1) == 1e50
    @test fld(1e50, 1) == 1e50
    @test cld(1e50, 1) == 1e50
end

@testset "binary literals" begin
    @test 0b1010101 == 0x55
    @test isa(0b00000000, UInt8)
    @test isa(0b000000000, UInt16)
    @test isa(0b0000000000000000, UInt16)
    @test isa(0b00000000000000000, UInt32)
    @test isa(0b00000000000000000000000000000000, UInt32)
    @test isa(0b000000000000000000000000000000000, UInt64)
    @test isa(0b0000000000000000000000000000000000000000000000000000000000000000, UInt64)
    @test isa(0b00000000000000000000000000000000000000000000000000000000000000000, UInt128)
    @test isa(0b00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, UInt128)
    @test isa(0b000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, BigInt)
    @test isa(0b11111111, UInt8)
    @test isa(0b111111111, UInt16)
    @test isa(0b1111111111111111, UInt16)
    @test isa(0b11111111111111111, UInt32)
    @test isa(0b11111111111111111111111111111111, UInt32)
    @test isa(0b111111111111111111111111111111111, UInt64)
    @test isa(0b1111111111111111111111111111111111111111111111111111111111111111, UInt64)
    @test isa(0b11111111111111111111111111111111111111111111111111111111111111111, UInt128)
    @test isa(0b11111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111, UInt128)
    @test isa(0b111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111, BigInt)
end

@testset "octal literals" begin
    @test 0o10 == 0x8
    @test 0o100 == 0x40
    @test 0o1000 == 0x200
    @test 0o724 == 0x1d4
    @test isa(0o00, UInt8)
    @test isa(0o000, UInt8)
    @test isa(0o00000, UInt16)
    @test isa(0o000000, UInt16)
    @test isa(0o0000000000, UInt32)
    @test isa(0o00000000000, UInt32)
    @test isa(0o000000000000000000000, UInt64)
    @test isa(0o0000000000000000000000, UInt64)
    @test isa(0o000000000000000000000000000000000000000000, UInt128)
    @test isa(0o00000000000000000000000000000000000000000000, BigInt)
    @test isa(0o11, UInt8)
    @test isa(0o111, UInt8)
    @test isa(0o11111, UInt16)
    @test isa(0o111111, UInt16)
    @test isa(0o1111111111, UInt32)
    @test isa(0o11111111111, UInt32)
    @test isa(0o111111111111111111111, UInt64)
    @test isa(0o1111111111111111111111, UInt64)
    @test isa(0o111111111111111111111111111111111111111111, UInt128)
    @test isa(0o1111111111111111111111111111111111111111111, UInt128)
    @test isa(0o3777777777777777777777777777777777777777777, UInt128)
    @test isa(0o11111111111111111111111111111111111111111111, BigInt)
    @test 0o4000000000000000000000000000000000000000000 == 340282366920938463463374607431768211456
    @test isa(0o077, UInt8)
    @test isa(0o377, UInt8)
    @test isa(0o400, UInt16)
    @test isa(0o077777, UInt16)
    @test isa(0o177777, UInt16)
    @test isa(0o200000, UInt32)
    @test isa(0o00000000000, UInt32)
    @test isa(0o17777777777, UInt32)
    @test isa(0o40000000000, UInt64)
    @test isa(0o0000000000000000000000, UInt64)
    @test isa(0o1000000000000000000000, UInt64)
    @test isa(0o2000000000000000000000, UInt128)
    @test isa(0o0000000000000000000000000000000000000000000, UInt128)
    @test isa(0o1000000000000000000000000000000000000000000, UInt128)
    @test isa(0o2000000000000000000000000000000000000000000, UInt128)
    @test String([0o110, 0o145, 0o154, 0o154, 0o157, 0o054, 0o040, 0o127, 0o157, 0o162, 0o154, 0o144, 0o041]) == "Hello, World!"
end

@testset "hexadecimal literals" begin
    @test isa(0x00, UInt8)
    @test isa(0x000, UInt16)
    @test isa(0x0000, UInt16)
    @test isa(0x00000, UInt32)
    @test isa(0x00000000, UInt32)
    @test isa(0x000000000, UInt64)
    @test isa(0x0000000000000000, UInt64)
    @test isa(0x00000000000000000, UInt128)
    @test isa(0x00000000000000000000000000000000, UInt128)
    @test isa(0x000000000000000000000000000000000, BigInt)

    @test isa(0x11, UInt8)
    @test isa(0x111, UInt16)
    @test isa(0x1111, UInt16)
    @test isa(0x11111, UInt32)
    @test isa(0x11111111, UInt32)
    @test isa(0x111111111, UInt64)
    @test isa(0x1111111111111111, UInt64)
    @test isa(0x11111111111111111, UInt128)
    @test isa(0x11111111111111111111111111111111, UInt128)
    @test isa(0x111111111111111111111111111111111, BigInt)
end

@testset "minus sign and unsigned literals" begin
    # the minus sign is not part of an unsigned literal
    @test -0x10 == -(0x10)
    @test -0b10 == -(0b10)
    @test -0o10 == -(0o10)
    @test -0x0010 == -(0x0010)
    @test -0b0010 == -(0b0010)
    @test -0o0010 == -(0o0010)
    @test -0x00000000000000001 == -(0x00000000000000001)
    @test -0o0000000000000000000001 == -(0o0000000000000000000001)
    @test -0b00000000000000000000000000000000000000000000000000000000000000001 ==
        -(0b00000000000000000000000000000000000000000000000000000000000000001)
    @test -0x000000000000000000000000000000001 == -(0x000000000000000000000000000000001)
    @test -0o0000000000000000000000000000000000000000001 ==
        -(0o0000000000000000000000000000000000000000001)
    @test -0b000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001 ==
        -(0b000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001)
    @test isa(-0x00, UInt8)
    @test isa(-0x0000000000000000, UInt64)
    @test isa(-0x00000000000000000, UInt128)
    @test isa(-0x00000000000000000000000000000000, UInt128)
    @test isa(-0x000000000000000000000000000000000, BigInt)
end

@testset "Float32 literals" begin
    @test isa(1f0, Float32)
    @test isa(1.f0, Float32)
    @test isa(1.0f0, Float32)
    @test 1f0 == 1.
    @test isa(1f1, Float32)
    @test 1f1 == 10.
end

@testset "hexadecimal float literals" begin
    @test 0x1p0 === 1.
    @test 0x1p1 === 2.
    @test 0x.1p0 === 0.0625
    @test 0x.1p1 === 0.125
    @test 0xfp0 === 15.
    @test 0xfp1 === 30.
    @test 0x.fp0 === 0.9375
    @test 0x.fp1 === 1.875
    @test 0x1.p0 === 1.
    @test 0x1.p1 === 2.
    @test 0xf.p0 === 15.
    @test 0xf.p1 === 30.
    @test 0x1.0p0 === 1.
    @test 0x1.0p1 === 2.
    @test 0x1.1p0 === 1.0625
    @test 0x1.1p1 === 2.125
    @test 0x1.fp0 === 1.9375
    @test 0x1.fp1 === 3.875
    @test 0xf.0p0 === 15.
    @test 0xf.0p1 === 30.
    @test 0xf.1p0 === 15.0625
    @test 0xf.1p1 === 30.125
    @test 0xf.fp0 === 15.9375
    @test 0xf.fp1 === 31.875
    @test 0x1P0 === 1.
    @test 0x1P1 === 2.
    @test 0x.1P0 === 0.0625
    @test 0x.1P1 === 0.125
    @test 0xfP0 === 15.
    @test 0xfP1 === 30.
    @test 0x.fP0 === 0.9375
    @test 0x.fP1 === 1.875
    @test 0x1.P0 === 1.
    @test 0x1.P1 === 2.
    @test 0xf.P0 === 15.
    @test 0xf.P1 === 30.
    @test 0x1.0P0 === 1.
    @test 0x1.0P1 === 2.
    @test 0x1.1P0 === 1.0625
    @test 0x1.1P1 === 2.125
    @test 0x1.fP0 === 1.9375
    @test 0x1.fP1 === 3.875
    @test 0xf.0P0 === 15.
    @test 0xf.0P1 === 30.
    @test 0xf.1P0 === 15.0625
    @test 0xf.1P1 === 30.125
    @test 0xf.fP0 === 15.9375
    @test 0xf.fP1 === 31.875
    @test -0x1.0p2 === -4.0
end

@testset "eps / floatmin / floatmax" begin
    @test 0x1p-52 == eps()
    @test 0x1p-52 + 1 != 1
    @test 0x1p-53 + 1 == 1
    @test 0x1p-1022 == floatmin()
    @test 0x1.fffffffffffffp1023 == floatmax()
    @test isinf(nextfloat(0x1.fffffffffffffp1023))
end

@testset "issue #1308" begin
    @test string(~UInt128(0), base = 16) == "f"^32
    @test (~0) % UInt128 == ~UInt128(0)
    @test Int128(~0) == ~Int128(0)
end

@testset "numbers.jl: rational powers of BigFloat (issue #18114)" begin
    @test BigFloat(2)^(BigFloat(1)/BigFloat(3)) == BigFloat(2)^(1//3)
end

@testset "large shift amounts" begin
    @test Int32(-1) >> 31 == -1
    @test Int32(-1) >> 32 == -1
    @test Int32(-1) >> 33 == -1
    @test 10 >> 64 == 0
    @test 10 >>> 64 == 0
    @test 10 << 64 == 0
end

@testset "numbers.jl: issue #3520" begin
    @test -536870913 === -536870912 - 1
end

@testset "check gcd and related functions against GMP" begin
    for T in (Int32, Int64), a0 = -20:20, b0 = -20:20
        a::T, b::T = a0, b0
        g = gcd(a, b)
        @test g >= 0
        @test lcm(a, b) >= 0
        abig = big(a)
        bbig = big(b)
        @test g == gcd(abig, bbig)
        @test lcm(a, b) == lcm(abig, bbig)
        @test gcdx(a, b) == gcdx(abig, bbig)
        if b == 0 || g != 1
            @test_throws DomainError invmod(a, b)
            @test_throws DomainError invmod(abig, bbig)
        else
            inv_ab = invmod(a, b)
            @test div(inv_ab, b) == 0
            @test inv_ab == invmod(abig, bbig)
            @test mod(inv_ab*a, b) == mod(1, b)
        end
    end
end

@testset "powermod" begin
    for base = -10:10, e = 0:5, m = -10:10
        m == 0 && continue
        want = powermod(base, e, m)
        for T in [Int32, Int64, Int128, UInt128, BigInt]
            T <: Unsigned && m < 0 && continue
            let got = powermod(base, e, T(m))
                @test want == got
                @test isa(got, T)
            end
            T <: Unsigned && base < 0 && continue
            @test want == mod(T(base)^e, T(m))
        end
    end
    # modulus 1 gives 0
    @test powermod(1, 0, 1) == 0
    @test powermod(1, 0, big(1)) == 0
    @test powermod(1, 0, -1) == 0
    @test powermod(1, 0, big(-1)) == 0
    @test_throws DivideError powermod(1, 0, 0)
    @test_throws DivideError powermod(1, 0, big(0))
    # a negative power inverts first
    @test powermod(1, -1, 1) == 0
    @test powermod(1, -1, big(1)) == 0
end

@testset "additional BigInt powermod tests" begin
    @test powermod(0, 1, big(6)) == 0
    @test powermod(1, 0, big(6)) == 1
    @test powermod(big(6), big(6), big(6)) == 0
    @test powermod(10, 50, big(10)^50 - 1) == 1

    @test powermod(-1, 1, big(6)) == 5
    @test powermod(-1, 0, big(6)) == 1
    @test powermod(-1, -1, big(6)) == 5
    @test powermod(-1, 1, big(-6)) == -1
    @test powermod(-1, 0, big(-6)) == -5
    @test powermod(-1, -1, big(-6)) == -1

    @test_throws DivideError powermod(2, -1, big(6))
    @test_throws DivideError powermod(-2, -1, big(6))
end

@testset "other divide-by-zero errors" begin
    for (n, d) in ((1, 0), (-1, 0), (UInt(1), UInt(0)))
        @test_throws DivideError div(n, d)
        @test_throws DivideError rem(n, d)
        @test_throws DivideError divrem(n, d)
        @test_throws DivideError fld(n, d)
        @test_throws DivideError mod(n, d)
        @test_throws DivideError fldmod(n, d)
        @test_throws DivideError cld(n, d)
    end
    @test_throws DivideError div(typemin(Int), -1)
    @test_throws DivideError fld(typemin(Int), -1)
    @test_throws DivideError cld(typemin(Int), -1)
    @test_throws DivideError divrem(typemin(Int), -1)
    @test_throws DivideError fldmod(typemin(Int), -1)
    @test rem(typemin(Int), -1) == 0
    @test mod(typemin(Int), -1) == 0
end

@testset "prevpow(2, _)/nextpow(2, _)" begin
    for k = 1:2
        @test nextpow(2, k) == prevpow(2, k) == k
    end
    @test nextpow(2, 56789) == 65536
    @test_throws DomainError nextpow(2, -56789)
    @test_throws DomainError nextpow(Int8(4), 128)
    @test prevpow(2, 56789) == 32768
    @test_throws DomainError prevpow(2, -56789)
    @test_throws DomainError prevpow(Int8(4), 128)
    @test_throws OverflowError nextpow(Int8(4), 65)
    for k = 1:100
        @test nextpow(2, k) == nextpow(2, big(k))
        @test prevpow(2, k) == prevpow(2, big(k))
    end
    for T in (Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64)
        @test nextpow(2, T(42)) === T(64)
        @test prevpow(2, T(42)) === T(32)
    end
    for T in (Float16, Float32, Float64)
        @test prevpow(2, prevfloat(T(1024.0))) == T(512.0)
        @test nextpow(2, nextfloat(T(1024.0))) == T(2048.0)
        @test prevpow(T(2.0), prevfloat(T(1024.0))) == T(512.0)
        @test nextpow(T(2.0), nextfloat(T(1024.0))) == T(2048.0)
        @test prevpow(T(2.0), prevfloat(T(Inf))) < T(Inf)
        @test nextpow(T(2.0), prevfloat(T(Inf))) == T(Inf)
    end
end

@testset "ispow2" begin
    @test ispow2(64)
    @test !ispow2(42)
    @test !ispow2(~typemax(Int))
end

@testset "nextpow/prevpow" begin
    @test nextpow(2, 1) == 1
    @test prevpow(2, 1) == 1
    @test nextpow(3, 243) == 243
    @test prevpow(3, 243) == 243
    @test nextpow(3, 241) == 243
    @test prevpow(3, 244) == 243
    for b = -1:1
        @test_throws DomainError nextpow(b, 2)
        @test_throws DomainError prevpow(b, 2)
    end
    @test_throws DomainError nextpow(2, 0)
    @test_throws DomainError prevpow(2, 0)
end

@testset "nextprod" begin
    @test_throws ArgumentError nextprod([2, 3, 5], Int128(typemax(Int)) + 1)
    @test nextprod([2, 3, 5], 30) == nextprod((2, 3, 5), 30) == 30
    @test nextprod([2, 3, 5], 33) == 36
    @test nextprod([3, 5], 33) == nextprod(3:2:5, 33) == 45
end

@testset "nextfloat/prevfloat" begin
    @test nextfloat(0.0) == 5.0e-324
    @test prevfloat(0.0) == -5.0e-324
    @test nextfloat(-0.0) == 5.0e-324
    @test prevfloat(-0.0) == -5.0e-324
    @test nextfloat(-5.0e-324) === -0.0
    @test prevfloat(5.0e-324) == 0.0
    @test nextfloat(-1.0) > -1.0
    @test prevfloat(-1.0) < -1.0
    @test nextfloat(nextfloat(0.0), -2) == -5.0e-324
    @test nextfloat(prevfloat(0.0), 2) == 5.0e-324
    @test nextfloat(Inf) === Inf
    @test prevfloat(-Inf) === -Inf
    @test isequal(nextfloat(NaN), NaN)
    @test nextfloat(Inf32) === Inf32
    @test prevfloat(-Inf32) === -Inf32
    @test isequal(nextfloat(NaN32), NaN32)
end

@testset "issue #16206" begin
    @test prevfloat(Inf) == 1.7976931348623157e308
    @test prevfloat(Inf32) == 3.4028235f38
    @test nextfloat(prevfloat(Inf)) == Inf
    @test nextfloat(prevfloat(Inf), 2) == Inf
    @test nextfloat(1.0, typemax(Int64)) == Inf
    @test nextfloat(0.0, typemin(Int64)) == -Inf
    @test nextfloat(1f0, typemin(Int64)) == -Inf32
    @test nextfloat(1.0, typemax(UInt64)) == Inf
    @test nextfloat(1.0, typemax(UInt128)) == Inf
    @test nextfloat(1.0, big(2)^67) == Inf
    @test nextfloat(1.0, -big(2)^67) == -Inf
end

@testset "numbers.jl: reinterpret of one(F)" begin
    for F in (Float16, Float32, Float64)
        @test reinterpret(Unsigned, one(F)) === Base.exponent_one(F)
        @test reinterpret(Signed, one(F)) === signed(Base.exponent_one(F))
    end
end

@testset "numbers.jl: eps of floatmax" begin
    @test eps(floatmax(Float64)) == 1.99584030953472e292
    @test eps(-floatmax(Float64)) == 1.99584030953472e292
end

@testset "numbers.jl: multiplicative inverses of odd numbers by exponentiation" begin
    for T = (UInt8, Int8, UInt16, Int16, UInt32, Int32, UInt64, Int64, UInt128, Int128)
        for k = 1:2:1000
            @test k*(k^typemax(T)) & typemax(T) == 1
            r = rand(T) | one(T)
            @test r*(r^typemax(T)) == 1
        end
    end
end

@testset "Irrational/Bool multiplication" begin
    @test false*pi === 0.0
    @test pi*false === 0.0
    @test true*pi === Float64(pi)
    @test pi*true === Float64(pi)
end

@testset "numbers.jl: issue #5492" begin
    @test -0.0 + false === -0.0
end

@testset "issue #5881" begin
    @test bitstring(true) == "00000001"
    @test bitstring(false) == "00000000"
end

@testset "edge cases of intrinsics" begin
    let sq() = sqrt(-1.0)
        @test_throws DomainError sqrt(-1.0)
    end
    @test sqrt(NaN) === NaN
    let sq() = sqrt(NaN)
        @test sq() === NaN
    end
    let sq(v) = sqrt(v)
        @test sq(NaN) === NaN
    end
end

@testset "widen and widemul" begin
    @test widen(1.5f0) === 1.5
    @test widen(Int32(42)) === Int64(42)
    @test widen(Int8) === Int16
    @test widen(Int64) === Int128
    @test widen(Float32) === Float64
    @test widen(Float16) === Float32
    @test widen(Float64) === BigFloat   # until there is a Float128
    @test widen(BigInt) === BigInt

    @test widemul(typemax(Int64), typemax(Int64)) == 85070591730234615847396907784232501249
    @test typeof(widemul(Int64(1), UInt64(1))) == Int128
    @test typeof(widemul(UInt64(1), Int64(1))) == Int128
    @test typeof(widemul(Int128(1), UInt128(1))) == BigInt
    @test typeof(widemul(UInt128(1), Int128(1))) == BigInt

    # the fallback of widen does not recurse forever
    @test_throws MethodError widen(String)
end

@testset ".//" begin
    @test [1, 2, 3] // 4 == [1//4, 2//4, 3//4]
    @test [1, 2, 3] .// [4, 5, 6] == [1//4, 2//5, 3//6]
    @test [1 + 2im, 3 + 4im] .// [5, 6] == [(1 + 2im)//5, (3 + 4im)//6]
    @test [1//3 + 2im, 3 + 4im] .// [5, 6] == [(1//3 + 2im)//5, (3 + 4im)//6]
end

@testset "issue #7441" begin
    @test_throws InexactError Int32(2.0^50)
    @test_throws InexactError round(UInt8, 255.5)
    @test round(UInt8, 255.4) === 0xff
    @test_throws InexactError round(Int16, -32768.7)
    @test round(Int16, -32768.1) === Int16(-32768)
end

@testset "numbers.jl: issue #7508" begin
    @test_throws ErrorException reinterpret(Int, 0x01)
end

@testset "issue #12832" begin
    @test_throws ArgumentError reinterpret(Float64, Complex{Int64}(1))
    @test_throws ErrorException reinterpret(Int32, false)
end

log_of_float32(n) = Float64(log(Float32(n)))

@testset "numbers.jl: issue #41" begin
    @test Float64(log(Float32(256))) == log_of_float32(256) == 5.545177459716797
end

@testset "numbers.jl: cmp on unsigned integers" begin
    @test cmp(0x77777777, 0x88888888) == -1
    @test cmp(0x3959dcc5d7fd177b67df4e10bc350850, 0xd63d5b1183221b0a9e38c6809b33cdec) == -1
end

@testset "numbers.jl: issue #7911" begin
    @test sum([Int128(1) Int128(2)]) == Int128(3)
end

@testset "digits and digits!" begin
    @test digits(24, base = 2) == [0, 0, 0, 1, 1]
    @test digits(24, base = 2, pad = 3) == [0, 0, 0, 1, 1]
    @test digits(24, base = 2, pad = 7) == [0, 0, 0, 1, 1, 0, 0]
    @test digits(100) == [0, 0, 1]
    @test digits(BigInt(2)^128, base = 2) == [zeros(128); 1]
    let buf = zeros(Int, 3)
        digits!(buf, 50)
        @test buf == [0, 5, 0]
        digits!(buf, 9, base = 2)
        @test buf == [1, 0, 0]
        digits!(buf, 7, base = 2)
        @test buf == [1, 1, 1]
    end
end

@testset "numbers.jl: digits! into columns, and convert's InexactError" begin
    let grid = zeros(Int, (2, 4))
        for k in 0:3
            digits!(view(grid, :, k + 1), k, base = 2)
        end
        @test grid == [0 1 0 1;
                       0 0 1 1]
    end
    @test_throws InexactError convert(UInt8, 256)
    @test_throws InexactError convert(UInt, -1)
    @test_throws InexactError convert(Int, big(2)^100)
    @test_throws InexactError convert(Int16, big(2)^100)
    @test_throws InexactError convert(Int, typemax(UInt))
end

@testset "infinity to integer conversion" begin
    for T in (UInt8, UInt16, UInt32, UInt64, UInt128, Int8, Int16, Int32, Int64, Int128, BigInt)
        for F in (Float16, Float32, Float64, BigFloat)
            @test_throws InexactError convert(T, typemin(F))
            @test_throws InexactError convert(T, typemax(F))
        end
    end
end

@testset "issue #9789" begin
    @test_throws InexactError convert(Int8, typemax(UInt64))
    @test_throws InexactError convert(Int16, typemax(UInt64))
    @test_throws InexactError convert(Int, typemax(UInt64))
end

@testset "issue #14549" begin
    for T in (Int8, Int16, UInt8, UInt16), F in (Float32, Float64)
        @test_throws InexactError convert(T, F(200000.0))
    end
end

@testset "numbers.jl: signbit of big(-0.0)" begin
    let z = big(-0.0)
        @test signbit(z) && !signbit(abs(z))
    end
end

@testset "mod1 and fld1" begin
    @test all(v -> (r = mod1(v, 3); 0 < r <= 3), -5:+5)
    @test all(v -> v == (fld1(v, 3) - 1)*3 + mod1(v, 3), -5:+5)
    @test all(v -> fldmod1(v, 3) == (fld1(v, 3), mod1(v, 3)), -5:+5)
end

@testset "numbers.jl: issue #5570" begin
    @test map(v -> Int(mod1(UInt(v), UInt(5))), 0:15) == [5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5]
end

@testset "Issue #9618: errors thrown by large exponentiations" begin
    @test_throws DomainError big(2)^-(big(typemax(UInt)) + 1)
    @test_throws OverflowError big(2)^(big(typemax(UInt)) + 1)
    @test 0 == big(0)^(big(typemax(UInt)) + 1)
end

@testset "bswap (issue #9726)" begin
    @test bswap(0x0002) === 0x0200
    @test bswap(0x01020304) === 0x04030201
    @test reinterpret(Float64, bswap(0x000000000000f03f)) === 1.0
    @test reinterpret(Float32, bswap(0x0000c03f)) === 1.5f0
    @test reinterpret(Float16, bswap(0x003c)) === Float16(1.0)
    @test bswap(reinterpret(Float64, 0x000000000000f03f)) === 1.0
    @test bswap(reinterpret(Float32, 0x0000c03f)) === 1.5f0
    @test bswap(reinterpret(Float16, 0x003e)) === Float16(1.5)
    bytes = IOBuffer([0xbf, 0xc0, 0x00, 0x00, 0x40, 0x20, 0x00, 0x00,
                      0x40, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                      0xc0, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
    c32 = read(bytes, ComplexF32)
    c64 = read(bytes, ComplexF64)
    @test bswap(c32) === -1.5f0 + 2.5f0im
    @test bswap(c64) === 3.5 - 4.5im
end

@testset "numbers.jl: isreal of reals" begin
    for v in [1.23, 7, ℯ, 4//5]   # a float, an Int, an Irrational, a Rational
        @test isreal(v) == true
    end
end

# "eltype and ndims": upstream collects every subtype of Number defined in Base and Core
# by reflection (names(Base, all = true), Base.isdeprecated); the facts are checked here on
# the standard number types instead.
@testset "eltype and ndims" begin
    number_types = Any[Number, Real, Integer, Signed, Unsigned, AbstractFloat,
                       AbstractIrrational, Irrational, Rational, Complex, Bool,
                       Int8, Int16, Int32, Int64, Int128, UInt8, UInt16, UInt32, UInt64, UInt128,
                       Float16, Float32, Float64, BigInt, BigFloat,
                       Rational{Int}, Complex{Float64}, typeof(pi)]
    @test !isempty(number_types)
    for T in number_types
        @test eltype(T) == T
    end
    for T in number_types
        @test ndims(T) == 0
    end
end

@testset "getindex(x::Number) = x" begin
    for v in [1.23, 7, ℯ, 4//5]
        @test getindex(v) == v
        @test getindex(v, 1, 1) == v
    end
end

@testset "getindex error throwing" begin
    for v in [1.23, 7, ℯ, 4//5]
        @test_throws BoundsError getindex(v, -1)
        @test_throws BoundsError getindex(v, 0)
        @test_throws BoundsError getindex(v, 2)
        @test_throws BoundsError getindex([v v], -1)
        @test_throws BoundsError getindex([v v], 0)
        @test_throws BoundsError getindex([v v], length([v, v]) + 1)
        @test_throws BoundsError getindex(v, 1, 0)
    end
end

@testset "get(x::Number, ...)" begin
    for v in [1.23, 7, ℯ, 4//5]
        @test get(v, 1, 99) == v
        @test get(v, (), 99) == v
        @test get(v, (1,), 99) == v
        @test get(v, 2, 99) == 99
        @test get(v, 0, pi) == pi
        @test get(v, (1, 2), pi) == pi
        counter = Ref(0)
        @test get(() -> (counter[] += 1), v, 1) == v
        @test get(() -> (counter[] += 1), v, ()) == v
        @test get(() -> (counter[] += 1), v, (1, 1, 1)) == v
        @test get(() -> (counter[] += 1), v, 2) == 1
        @test get(() -> (counter[] += 1), v, -1) == 2
        @test get(() -> (counter[] += 1), v, (3, 2, 1)) == 3
    end
end

@testset "copysign and flipsign" begin
    for a in [1.23, 7, ℯ, 4//5], b in [1.23, 7, ℯ, 4//5]
        @test copysign(a, b) == a
        @test copysign(a, -b) == -a
        @test copysign(-a, b) == a
        @test copysign(-a, -b) == -a
        @test flipsign(a, b) == a
        @test flipsign(a, -b) == -a
        @test flipsign(-a, b) == -a
        @test flipsign(-a, -b) == a
    end
end

@testset "angle(z::Real) = atan(zero(z), z)" begin
    @test angle(10) == 0.0
    @test angle(-10) == 3.141592653589793
end

@testset "in(x::Number, y::Number) = x == y" begin
    @test in(3, 3) == true
    @test in(2.0, 2.0) == true
    @test in(ℯ, ℯ) == true
    @test in(4//5, 4//5) == true
    @test in(1 + 2im, 1 + 2im) == true
    @test in(3, 3.0) == true
end

@testset "map(f::Callable, x::Number, ys::Number...) = f(x)" begin
    @test map(sin, 3) == sin(3)
    @test map(cos, 3) == cos(3)
    @test map(tan, 3) == tan(3)
    @test map(log, 3) == log(3)
    @test map(copysign, 1.0, -2.0) == -1.0
    @test map(muladd, 2, 3, 4) == 10
end

@testset "numbers.jl: issue #10311 and BigInt minus a small negative" begin
    let k = 1
        @test k//k + k//big(k)*im == 1//1 + 1//1*im
    end
    @test big(-200) - Int8(-128) == -72
end

@testset "n % Type" begin
    for T in Any[Int16, Int32, UInt32, Int64, UInt64, BigInt]
        if !(T <: Unsigned)
            @test convert(T, -200) % Int8 === Int8(56)
            @test convert(T, -200) % UInt8 === 0x38
            @test convert(T, -300) % Int8 === Int8(-44)
            @test convert(T, -300) % UInt8 === 0xd4
            @test convert(T, -128) % Int8 === Int8(-128)
            @test convert(T, -128) % UInt8 === 0x80
        end
        @test convert(T, 127) % Int8 === Int8(127)
        @test convert(T, 127) % UInt8 === 0x7f
        @test convert(T, 128) % Int8 === Int8(-128)
        @test convert(T, 128) % UInt8 === 0x80
        @test convert(T, 200) % Int8 === Int8(-56)
        @test convert(T, 300) % UInt8 === 0x2c
    end
end

@testset "InexactErrors for Ints" begin
    @test_throws InexactError convert(UInt8, big(300))
    @test_throws InexactError UInt128(-1)
    for T in (Int8, Int16, Int32, Int64, Int128, UInt8, UInt16, UInt32, UInt64, UInt128)
        @test_throws InexactError T(big(typemax(T)) + 1)
        @test_throws InexactError T(big(typemin(T)) - 1)
    end
end

@testset "numbers.jl: big of complex numbers" begin
    for (z, B) in ((4//2 + 1im, Rational{BigInt}), (3.0 + 1im, BigFloat), (2 + 1im, BigInt))
        @test typeof(big(z)) == Complex{B}
        @test big(z) == z
        @test typeof(big.([z])) == Vector{Complex{B}}
        @test big.([z]) == [z]
    end
end

# a user-defined Number for the generic fallbacks of big and abs2
import Base: zero, big
struct TestNumber{Inner} <: Number
    inner::Inner
end
zero(::Type{TestNumber{Inner}}) where {Inner} = TestNumber(zero(Inner))
big(t::TestNumber) = TestNumber(big(t.inner))
Base.:*(a::TestNumber, b::TestNumber) = TestNumber(a.inner*b.inner)
Base.:(==)(a::TestNumber, b::TestNumber) = a.inner == b.inner
Base.abs(a::TestNumber) = TestNumber(abs(a.inner))

@testset "numbers.jl: big fallback and abstract abs2" begin
    @test big(TestNumber{Int}) == TestNumber{BigInt}
    @test abs2(TestNumber(3 + 4im)) == TestNumber(25)
end

@testset "multiplicative inverses" begin
    function check_fast_division(nums, dens)
        for d in dens
            d == 0 && continue
            fd = Base.multiplicativeinverse(d)
            for n in nums
                d == -1 && n == typemin(typeof(n)) && continue
                @test div(n, d) == div(n, fd)
            end
        end
    end
    check_fast_division(-1000:1000, -100:100)
    @test_throws ArgumentError Base.multiplicativeinverse(0)
    for T in [Int8, Int16, Int32, Int64, Int128]
        check_fast_division(map(T, typemin(T)+1:typemin(T)+100), map(T, -50:50))
    end
    for T in [UInt8, UInt16, UInt32, UInt64, UInt128, Int8, Int16, Int32, Int64, Int128]
        check_fast_division(map(T, typemax(T)-50:typemax(T)), map(T, 1:50))
        check_fast_division(rand(T, 50), rand(T, 50))
        @test_throws ArgumentError Base.multiplicativeinverse(T(0))
    end
    # overflow of typemin ÷ -1 is not caught by the fast inverse, only by div itself
    fd = Base.multiplicativeinverse(Int8(-1))
    @test_throws DivideError div(typemin(Int8), Int8(-1))
    # div broadcasts over a multiplicative inverse
    @test div.(3, Base.multiplicativeinverse(3)) == 1
end

@testset "ndims/indices/size/length" begin
    @test ndims(1) == 0
    @test ndims(Integer) == 0
    @test size(1, 1) == 1
    @test_throws BoundsError size(1, -1)
    @test axes(1) == ()
    @test axes(1, 1) == 1:1
    @test_throws BoundsError axes(1, -1)
    @test isinteger(Integer(2)) == true
    @test !isinteger(π)
    @test size(1) == ()
    @test length(1) == 1
    @test firstindex(1) == 1
    @test firstindex(1, 1) == 1
    @test_throws BoundsError firstindex(1, 0)
    @test lastindex(1) == 1
    @test lastindex(1, 1) == 1
    @test 1[end,end] == 1
    @test_throws BoundsError lastindex(1, 0)
    @test eltype(Integer) == Integer
end

# "PR #16995": checks Base.promote_op, which asks type inference for a result type: left
# out (inference).

@testset "numbers.jl: a complex number is not empty" begin
    @test !isempty(complex(1, 2))
end

# (upstream: one testset per T, named with T; here they sit under one fixed name)
@testset "rem \$T rounded" begin
    for T in (Float16, Float32, Float64, BigFloat)
        @testset "rem $T rounded" begin
            # (x, y, RoundToZero, RoundNearest, RoundDown, RoundUp, RoundFromZero)
            for (x, y, tz, nr, dn, up, fz) in ((1, 2, 1, 1, 1, -1, -1),
                                               (1.5, 2, 1.5, -0.5, 1.5, -0.5, -0.5),
                                               (-1, 2, -1, -1, 1, -1, 1),
                                               (-1.5, 2, -1.5, 0.5, 0.5, -1.5, 0.5))
                @test rem(T(x), T(y), RoundToZero) == tz
                @test rem(T(x), T(y), RoundNearest) == nr
                @test rem(T(x), T(y), RoundDown) == dn
                @test rem(T(x), T(y), RoundUp) == up
                @test rem(T(x), T(y), RoundFromZero) == fz
            end
            for mode in [RoundToZero, RoundNearest, RoundDown, RoundUp, RoundFromZero]
                @test isnan(rem(T(1), T(0), mode))
                @test isnan(rem(T(Inf), T(2), mode))
                @test isnan(rem(T(1), T(NaN), mode))
                @test rem(T(4), floatmin(T) * 2, mode) == 0
            end
            @test isequal(rem(nextfloat(typemin(T)), T(2), RoundToZero), -0.0)
            @test isequal(rem(nextfloat(typemin(T)), T(2), RoundNearest), -0.0)
            @test isequal(rem(nextfloat(typemin(T)), T(2), RoundDown), 0.0)
            @test isequal(rem(nextfloat(typemin(T)), T(2), RoundUp), -0.0)
            @test isequal(rem(nextfloat(typemin(T)), T(2), RoundFromZero), 0.0)
        end
    end
end

# (upstream: one testset per T, named with T; here they sit under one fixed name)
@testset "rem for \$T RoundNearest" begin
    for T in (Int8, Int16, Int32, Int64, Int128)
        @testset "rem for $T RoundNearest" begin
            for (n, r) in zip(3:7, -2:2)
                @test rem(T(n), T(5), RoundNearest) == rem(float(n), 5.0, RoundNearest) == r
                @test rem(T(n), T(-5), RoundNearest) == rem(float(n), -5.0, RoundNearest) == r
                @test rem(T(-n), T(-5), RoundNearest) == rem(float(-n), -5.0, RoundNearest) == -r
                @test rem(T(-n), T(5), RoundNearest) == rem(float(-n), 5.0, RoundNearest) == -r
                @test rem(T(n), T(5), RoundNearest) == rem(T(n)//T(1), T(5)//T(1), RoundNearest)
                @test rem(T(-n), T(5), RoundNearest) == rem(T(-n)//T(1), T(5)//T(1), RoundNearest)
                @test rem(T(n), T(-5), RoundNearest) == rem(T(n)//T(1), T(-5)//T(1), RoundNearest)
                @test rem(T(-n), T(-5), RoundNearest) == rem(T(-n)//T(1), T(-5)//T(1), RoundNearest)
            end
        end
    end
end

@testset "divrem rounded" begin
    for T in (Float16, Float32, Float64, BigFloat)
        @test divrem(T(1.5), T(2), RoundToZero)[2] == 1.5
        @test divrem(T(1.5), T(2), RoundNearest)[2] == -0.5
        @test divrem(T(1.5), T(2), RoundDown)[2] == 1.5
        @test divrem(T(1.5), T(2), RoundUp)[2] == -0.5
        @test divrem(T(-1.5), T(2), RoundToZero)[2] == -1.5
        @test divrem(T(-1.5), T(2), RoundNearest)[2] == 0.5
        @test divrem(T(-1.5), T(2), RoundDown)[2] == 0.5
        @test divrem(T(-1.5), T(2), RoundUp)[2] == -1.5
    end
    for (a0, b0) in ((3, 2), (5, 3), (-3, 2), (5, 2), (-5, 2), (-5, 3), (5, -3))
        for s in (+1, -1)
            # (upstream rebinds its loop pair to (a*s, b*s) each time, so the second pass
            # sees the signs flipped back)
            a0, b0 = a0*s, b0*s
            @test divrem(a0, b0, RoundNearest) == (div(a0, b0, RoundNearest), rem(a0, b0, RoundNearest))
        end
    end
    p = 122322388883338838388383888823233122323
    q = 343443
    r = 122322388883338838388383888823233122333
    @test divrem(p, q) == (div(p, q), rem(p, q))
    @test divrem(p, r) == (div(p, r), rem(p, r))
    @test divrem(p, -(p - 20), RoundDown) == (div(p, -(p - 20), RoundDown), rem(p, -(p - 20), RoundDown))
end

# (upstream: one testset per T, named with T; here they sit under one fixed name)
@testset "rem2pi \$T" begin
    for T in (Float16, Float32, Float64, BigFloat)
        @testset "rem2pi $T" begin
            @test rem2pi(T(1), RoundToZero) == 1
            @test rem2pi(T(1), RoundNearest) == 1
            @test rem2pi(T(1), RoundDown) == 1
            @test rem2pi(T(1), RoundUp) ≈ 1 - 2pi
            @test rem2pi(T(2), RoundToZero) == 2
            @test rem2pi(T(2), RoundNearest) == 2
            @test rem2pi(T(2), RoundDown) == 2
            @test rem2pi(T(2), RoundUp) ≈ 2 - 2pi
            @test rem2pi(T(4), RoundToZero) == 4
            @test rem2pi(T(4), RoundNearest) ≈ 4 - 2pi
            @test rem2pi(T(4), RoundDown) == 4
            @test rem2pi(T(4), RoundUp) ≈ 4 - 2pi
            @test rem2pi(T(-4), RoundToZero) == -4
            @test rem2pi(T(-4), RoundNearest) ≈ 2pi - 4
            @test rem2pi(T(-4), RoundDown) ≈ 2pi - 4
            @test rem2pi(T(-4), RoundUp) == -4
            @test rem2pi(T(8), RoundToZero) ≈ 8 - 2pi
            @test rem2pi(T(8), RoundNearest) ≈ 8 - 2pi
            @test rem2pi(T(8), RoundDown) ≈ 8 - 2pi
            @test rem2pi(T(8), RoundUp) ≈ 8 - 4pi
            @test rem2pi(T(-8), RoundToZero) ≈ -8 + 2pi
            @test rem2pi(T(-8), RoundNearest) ≈ -8 + 2pi
            @test rem2pi(T(-8), RoundDown) ≈ -8 + 4pi
            @test rem2pi(T(-8), RoundUp) ≈ -8 + 2pi
            # n even and n % 4 == 2
            @test rem2pi(T(3), RoundToZero) == 3
            @test rem2pi(T(3), RoundNearest) == 3
            @test rem2pi(T(3), RoundDown) == 3
            @test rem2pi(T(3), RoundUp) ≈ 3 - 2π
            @test rem2pi(T(-3), RoundToZero) == -3
            @test rem2pi(T(-3), RoundNearest) == -3
            @test rem2pi(T(-3), RoundDown) ≈ -3 + 2π
            @test rem2pi(T(-3), RoundUp) == -3
            # n even and n % 4 != 2
            @test rem2pi(T(13), RoundToZero) ≈ 13 - 4π
            @test rem2pi(T(13), RoundNearest) ≈ 13 - 4π
            @test rem2pi(T(13), RoundDown) ≈ 13 - 4π
            @test rem2pi(T(13), RoundUp) ≈ 13 - 6π
            @test rem2pi(T(-13), RoundToZero) ≈ -13 + 4π
            @test rem2pi(T(-13), RoundNearest) ≈ -13 + 4π
            @test rem2pi(T(-13), RoundDown) ≈ -13 + 6π
            @test rem2pi(T(-13), RoundUp) ≈ -13 + 4π
        end
    end
end

# (upstream: one testset per T, named with T; here they sit under one fixed name)
@testset "PR #36420 \$T" begin
    for T in (Float16, Float32, Float64, BigFloat)
        @testset "PR #36420 $T" begin
            payload_nan = reinterpret(Float64, reinterpret(UInt64, NaN) | rand(UInt64))
            for mode in (RoundToZero, RoundNearest, RoundDown, RoundUp)
                for v in (Inf, -Inf, NaN, -NaN, payload_nan)
                    @test isnan(rem2pi(T(v), mode))
                    @test rem2pi(T(v), mode) isa T
                    if isnan(v) && T !== BigFloat
                        @test rem2pi(T(v), mode) === T(v)
                    end
                end
            end
        end
    end
end

# user types for literal powers: PR20530 has its own literal_pow, PR20889 only ^
struct PR20530; end
struct PR20889; x; end
import Base.^
^(::PR20530, p::Int) = 1
^(t::PR20889, b) = t.x + b
^(t::PR20889, b::Integer) = t.x + b
Base.literal_pow(::typeof(^), ::PR20530, ::Val{p}) where {p} = 2
# T(2)^p with each literal p in -4:4 (upstream builds these with eval)
literal_powers_of_two(T) = (T(2)^-4, T(2)^-3, T(2)^-2, T(2)^-1, T(2)^0,
                            T(2)^1, T(2)^2, T(2)^3, T(2)^4)

@testset "literal powers" begin
    z = PR20530()
    e = 2
    @test z^e == 1
    @test z^2 == 2
    @test [z, z, z].^2 == [2, 2, 2]
    for T in (Float16, Float32, Float64, BigFloat, Int8, Int, BigInt, Complex{Int}, ComplexF64)
        vals = literal_powers_of_two(T)
        for (k, p) in enumerate(-4:4)
            v = vals[k]
            @test 2.0^p == v
            if p >= 0 || T == float(T)
                @test v == T(2)^p
                @test v isa T
            else
                @test v isa float(T)
            end
        end
    end
    @test PR20889(2)^3 == 5
    @test [2, 4, 8].^-2 == [0.25, 0.0625, 0.015625]
    @test [2, 4, 8].^-2 .* 4 == [1.0, 0.25, 0.0625]   # a literal power inside a broadcast
    @test ℯ^-2 == exp(-2) ≈ inv(ℯ^2) ≈ (ℯ^-1)^2 ≈ sqrt(ℯ^-4)
end

# the same without importing Base.^: a module's own ^ function
module M20889
    struct PR20889; x; end
    ^(t::PR20889, b) = t.x + b
    const power_result = PR20889(2)^3
end

@testset "numbers.jl: a module's own ^ (M20889)" begin
    @test M20889.power_result == 5
end

@testset "literal negative power accuracy" begin
    @test 0.7130409001548401^-2 == 0.7130409001548401^-2.0
    @test 0.09496527f0^-2 == 0.09496527f0^-2.0f0
    @test 0.20675883960662367^-100 == 0.20675883960662367^-100.0
    @test 0.6123676f0^-100 == 0.6123676f0^-100.0f0
    @test 0.004155780785470562^-1 == 0.004155780785470562^-1.0
end

@testset "iszero & isone" begin
    for T in [Float16, Float32, Float64, BigFloat,
              Int8, Int16, Int32, Int64, Int128, BigInt,
              UInt8, UInt16, UInt32, UInt64, UInt128]
        @test iszero(T(0))
        @test isone(T(1))
        @test iszero(Complex{T}(0))
        @test isone(Complex{T}(1))
        if T <: Integer
            @test iszero(Rational{T}(0))
            @test isone(Rational{T}(1))
        elseif T <: AbstractFloat
            @test iszero(T(-0.0))
            @test iszero(Complex{T}(-0.0))
        end
    end
    @test !iszero(nextfloat(BigFloat(0)))
    @test !isone(nextfloat(BigFloat(1)))
    for c in (π, ℯ, γ, catalan, φ)
        @test !iszero(c)
        @test !isone(c)
    end

    # arrays
    @test !iszero([0, 1, 2, 3])
    @test iszero(zeros(Int, 5))
    @test !isone(tril(fill(1, 5, 5)))
    @test !isone(triu(fill(1, 5, 5)))
    @test !isone(zeros(Int, 5, 5))
    @test isone(Matrix(1I, 5, 5))
    @test !isone(view(rand(5, 5), [1, 3, 4], :))
    dview = view(Diagonal([1, 1, 1]), [1, 2], 1:2)
    @test isone(dview)
    # (the @allocated check on isone is left out)
    @test isone(Matrix(1I, 1000, 1000))   # bigger than isone's cutoff
end

# "issue 20065": reads uninitialized Bool memory and calls through @eval: left out
# (uninitialized memory, eval).

@testset "numbers.jl: inverse of a Rational" begin
    @test inv(3//4) === 4//3 === 1 / (3//4) === 1 // (3//4)
end

@testset "convert preserves NaN payloads" begin
    @testset "smallest NaNs" begin
        @test convert(Float32, NaN16) === NaN32
        @test convert(Float32, -NaN16) === -NaN32
        @test convert(Float64, NaN16) === NaN64
        @test convert(Float64, -NaN16) === -NaN64
        @test convert(Float16, NaN32) === NaN16
        @test convert(Float16, -NaN32) === -NaN16
        @test convert(Float64, NaN32) === NaN64
        @test convert(Float64, -NaN32) === -NaN64
        @test convert(Float32, NaN64) === NaN32
        @test convert(Float32, -NaN64) === -NaN32
        @test convert(Float16, NaN64) === NaN16
        @test convert(Float16, -NaN64) === -NaN16
    end
    @testset "largest NaNs" begin
        @test convert(Float32, reinterpret(Float16, typemax(UInt16))) ===
              reinterpret(Float32, typemax(UInt32) >> 13 << 13)
        @test convert(Float64, reinterpret(Float16, typemax(UInt16))) ===
              reinterpret(Float64, typemax(UInt64) >> 42 << 42)
        @test convert(Float16, reinterpret(Float32, typemax(UInt32))) ===
              reinterpret(Float16, typemax(UInt16) >> 00 << 00)
        @test convert(Float64, reinterpret(Float32, typemax(UInt32))) ===
              reinterpret(Float64, typemax(UInt64) >> 29 << 29)
        @test convert(Float32, reinterpret(Float64, typemax(UInt64))) ===
              reinterpret(Float32, typemax(UInt32) >> 00 << 00)
        @test convert(Float16, reinterpret(Float64, typemax(UInt64))) ===
              reinterpret(Float16, typemax(UInt16) >> 00 << 00)
    end
    @testset "random NaNs" begin
        quiet = AbstractFloat[NaN16, NaN32, NaN64]
        Fs = [Float16, Float32, Float64]
        Us = [UInt16, UInt32, UInt64]
        sigbits = [11, 24, 53]
        for i = 1:length(Fs), j = 1:length(Fs)
            for _ = 1:100
                v = reinterpret(Fs[i], rand(Us[i]) | reinterpret(Us[i], quiet[i]))
                shift = sigbits[i] - sigbits[j]
                expected = i <= j ? v : reinterpret(Fs[i], reinterpret(Us[i], v) >> shift << shift)
                @test convert(Fs[i], convert(Fs[j], v)) === expected
            end
        end
    end
end

@testset "irrational promotion" begin
    @test π*ComplexF32(2) isa ComplexF32
    @test π/ComplexF32(2) isa ComplexF32
    @test log(π, ComplexF32(2)) isa ComplexF32
end

# "printing non finite floats": upstream collects the subtypes of AbstractFloat in Base
# and Core by reflection (less Core.BFloat16); they are listed here.
@testset "printing non finite floats" begin
    float_types = Any[AbstractFloat, Float16, Float32, Float64, BigFloat]
    @test !isempty(float_types)
    for T in float_types
        for (v, s) in [(T(NaN), "NaN"), (-T(NaN), "NaN"), (T(Inf), "Inf"), (-T(Inf), "-Inf")]
            @test string(v) == s
            @test sprint(show, v, context=:compact => true) == s
            @test sprint(print, v) == s
        end
    end
end

# "constructor inferability for $T" and "... for BigFloat": Base.return_types (inference)
# and methods(T): left out.

@testset "generic isfinite" begin
    @test invoke(isfinite, Tuple{Number}, 0.0) == true
    @test invoke(isfinite, Tuple{Number}, NaN) == false
    @test invoke(isfinite, Tuple{Number}, Inf) == false
end

struct MyRealFld <: Real
    x::Real
end

@testset "fallback error throwing for fld/cld" begin
    p = MyRealFld(2.0)
    q = MyRealFld(3.0)
    @test_throws MethodError fld(p, q)
    @test_throws MethodError cld(p, q)
end

@testset "Bool rounding (#25074)" begin
    @testset "round Bool" begin
        @test_throws InexactError round(Bool, -4.1)
        @test_throws InexactError round(Bool, 1.5)
        @test true == round(Bool, 1.0)
        @test false == round(Bool, 0.0)
        @test true == round(Bool, 0.6)
        @test false == round(Bool, 0.4)
        @test false == round(Bool, 0.5)
        @test false == round(Bool, -0.5)
    end
    @testset "trunc Bool" begin
        @test_throws InexactError trunc(Bool, -4.1)
        @test_throws InexactError trunc(Bool, 2.5)
        @test true == trunc(Bool, 1.0)
        @test false == trunc(Bool, 0.0)
        @test false == trunc(Bool, 0.6)
        @test false == trunc(Bool, 0.4)
        @test true == trunc(Bool, 1.8)
        @test false == trunc(Bool, -0.5)
    end
    @testset "floor Bool" begin
        @test_throws InexactError floor(Bool, -0.1)
        @test_throws InexactError floor(Bool, 2.5)
        @test true == floor(Bool, 1.0)
        @test false == floor(Bool, 0.0)
        @test false == floor(Bool, 0.6)
        @test true == floor(Bool, 1.8)
    end
    @testset "ceil Bool" begin
        @test_throws InexactError ceil(Bool, -1.4)
        @test_throws InexactError ceil(Bool, 1.5)
        @test true == ceil(Bool, 1.0)
        @test false == ceil(Bool, 0.0)
        @test true == ceil(Bool, 0.6)
        @test false == ceil(Bool, -0.7)
    end
end

Base.@irrational irrational_1548_pi 4863.185427757 1548big(pi)
Base.@irrational irrational_inv_1548_pi 1/big(irrational_1548_pi)

@testset "@irrational" begin
    @test irrational_1548_pi ≈ 1548big(pi)
    @test Float64(irrational_1548_pi) == 1548π
    @test irrational_1548_pi ≈ 1548pi
    @test irrational_1548_pi != 1548pi

    @test irrational_inv_1548_pi ≈ inv(1548big(pi))
    @test Float64(irrational_inv_1548_pi) == 1/(1548π)
    @test irrational_inv_1548_pi ≈ inv(1548pi)
    @test irrational_inv_1548_pi != inv(1548pi)
end

@testset "modf" begin
    @testset "remd" begin
        tiny = nextfloat(0.0)
        fmin = floatmin(Float64)
        fmax = floatmax(Float64)
        finite_nonzero = [3.0, tiny, -tiny, fmin, -fmin, fmax, -fmax]
        for d in finite_nonzero
            @test isequal(rem(0.0, d), 0.0)      # rem(+0, y) == +0
            @test isequal(rem(-0.0, d), -0.0)    # rem(-0, y) == -0
        end
        divisors = [3.0, -1.1, 0.0, -0.0, tiny, fmin, fmax, Inf, -Inf]
        for d in divisors
            @test isequal(rem(Inf, d), NaN)
            @test isequal(rem(-Inf, d), NaN)
        end
        dividends = divisors[begin:end-2]
        for v in dividends
            @test isequal(rem(v, 0.0), NaN)
            @test isequal(rem(v, -0.0), NaN)
        end
        # rem(x, ±Inf) == x for finite x
        for d in (Inf, -Inf)
            @test isequal(rem(0.0, d), 0.0)
            @test isequal(rem(-0.0, d), -0.0)
            @test isequal(rem(tiny, d), tiny)
            @test isequal(rem(fmin, d), fmin)
            @test isequal(rem(fmax, d), fmax)
            @test isequal(rem(3.0, d), 3.0)
        end
        # NaN in, NaN out
        @test isequal(rem(0.0, NaN), NaN)
        @test isequal(rem(1.0, NaN), NaN)
        @test isequal(rem(Inf, NaN), NaN)
        @test isequal(rem(NaN, 0.0), NaN)
        @test isequal(rem(NaN, 1.0), NaN)
        @test isequal(rem(NaN, Inf), NaN)
        @test isequal(rem(NaN, NaN), NaN)
        # the sign follows the dividend
        @test isequal(rem(6.5, 2.25), 2.0)
        @test isequal(rem(-6.5, 2.25), -2.0)
        @test isequal(rem(6.5, -2.25), 2.0)
        @test isequal(rem(-6.5, -2.25), -2.0)
        extremes = [fmax, -fmax, fmin, -fmin, tiny, -tiny]
        for d in extremes
            @test isequal(rem(fmax, d), 0.0)
            @test isequal(rem(-fmax, d), -0.0)
        end
        @test isequal(rem(fmin, fmax), fmin)
        @test isequal(rem(fmin, -fmax), fmin)
        smaller = extremes[begin+2:end]
        for d in smaller
            @test isequal(rem(fmin, d), 0.0)
            @test isequal(rem(-fmin, d), -0.0)
        end
        @test isequal(rem(-fmin, fmax), -fmin)
        @test isequal(rem(-fmin, -fmax), -fmin)
        larger = extremes[begin:end-2]
        for d in larger
            @test isequal(rem(tiny, d), tiny)
            @test isequal(rem(-tiny, d), -tiny)
        end
        @test isequal(rem(tiny, tiny), 0.0)
        @test isequal(rem(tiny, -tiny), 0.0)
        @test isequal(rem(-tiny, tiny), -0.0)
        @test isequal(rem(-tiny, -tiny), -0.0)
        # near the largest and smallest values
        for d in [0x3p-1074, -0x3p-1074, 0x3p-1073, -0x3p-1073]
            @test isequal(rem(0x1p1023, d), 0x1p-1073)
            @test isequal(rem(-0x1p1023, d), -0x1p-1073)
        end
        @test isequal(rem(0x1p1023, 0x3p-1022), 0x1p-1021)
        @test isequal(rem(0x1p1023, -0x3p-1022), 0x1p-1021)
        @test isequal(rem(-0x1p1023, 0x3p-1022), -0x1p-1021)
        @test isequal(rem(-0x1p1023, -0x3p-1022), -0x1p-1021)
    end
    @testset "remf" begin
        for (d, r) in ((0x3p-149, 0x1p-149), (0x3p-148, 0x1p-147), (0x3p-126, 0x1p-125))
            @test isequal(rem(Float32(0x1p127), Float32(d)), Float32(r))
            @test isequal(rem(Float32(0x1p127), -Float32(d)), Float32(r))
            @test isequal(rem(-Float32(0x1p127), Float32(d)), -Float32(r))
            @test isequal(rem(-Float32(0x1p127), -Float32(d)), -Float32(r))
        end
    end
end

@testset "FP(inf) == inf" begin
    fp_types = (Float16, Float32, Float64, BigFloat)
    for F in fp_types, G in fp_types, lim in (typemin, typemax)
        v = lim(F)
        @test v == G(v)
    end
end

@testset "small int FP conversion" begin
    fp_types = (Float16, Float32, Float64, BigFloat)
    m = Int(maxintfloat(Float16))
    for F in fp_types, G in fp_types, n in (-m):m
        @test n == G(F(n)) == F(G(n))
    end
end
