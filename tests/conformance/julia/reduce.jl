# Facts from JuliaLang/julia test/reduce.jl (ported for Zyla's conformance suite).
# Upstream version: commit 16b13d214cc128c4fb2d79547ed0e4adc1b10705.
using Test
using Random

# Test's generic ordered wrapper (upstream gets it from the Test stdlib).
struct GenericOrder{T}
    val::T
end
Base.isless(p::GenericOrder, q::GenericOrder) = isless(p.val, q.val)

# summation variants (#6069)
addtwo(p, q) = p + q
viainvoke_sum(itr) = invoke(sum, Tuple{Any}, itr)
viareduce(v) = reduce(addtwo, v)
viainvoke_reduce(itr) = invoke(reduce, Tuple{Function, Any}, addtwo, itr)
viareduce_init(v) = reduce(addtwo, v; init=0)
viamapreduce(v) = mapreduce(t -> t, addtwo, v)
viainvoke_mapreduce(itr) = invoke(mapreduce, Tuple{Function, Function, Any}, t -> t, addtwo, itr)
viamapreduce_init(v) = mapreduce(t -> t, addtwo, v; init=0)
# (upstream's sum6/sum10 call `invoke(Core.kwfunc(...))`, a compiler internal: left out)
viainvoke_prod(itr) = invoke(prod, Tuple{Any}, itr)

struct AlwaysTrue end
(::AlwaysTrue)(_) = true

sumsquares18695(r) = sum(t^2 for t in r)

@testset "reduce.jl: foldl and foldr" begin
    @test foldl(+, Int64[]) === Int64(0)
    @test foldl(+, Int16[]) === Int16(0)
    @test foldl(-, 1:5) == -13
    @test foldl(-, 1:5; init=10) == -5

    @test Base.mapfoldl(abs2, -, 2:5) == -46
    @test Base.mapfoldl(abs2, -, 2:5; init=10) == -44
    @test Base.mapfoldl(abs2, /, 2:5) ≈ 1/900
    @test Base.mapfoldl(abs2, /, 2:5; init=10) ≈ 1/1440

    bools = [true false true false false]
    @test Base.mapfoldl(b -> b ⊻ true, &, bools) == false
    @test Base.mapfoldl(b -> b ⊻ true, &, bools; init=true) == false
    @test Base.mapfoldl(b -> b ⊻ true, |, bools) == true
    @test Base.mapfoldl(b -> b ⊻ true, |, bools; init=false) == true

    @test foldr(+, Int64[]) === Int64(0)
    @test foldr(+, Int16[]) === Int16(0)
    @test foldr(-, 1:5) == 3
    @test foldr(-, 1:5; init=10) == -7
    @test foldr(+, [1]) == 1

    @test Base.mapfoldr(abs2, -, 2:5) == -14
    @test Base.mapfoldr(abs2, -, 2:5; init=10) == -4
    @test mapfoldr(t -> t + 1, (t, acc) -> (t, acc...), (1, 2.0, '3'); init = ()) == (2, 3.0, '4')

    # issue #31780: foldr over the characters of a string
    @test foldr((c, acc) -> ('⟨' * c * '|' * acc * '⟩'), "λ 🐨.α") == "⟨λ|⟨ |⟨🐨|⟨.|α⟩⟩⟩⟩"
    # (upstream's `@allocated` checks of sum(Iterators.reverse(x)) / foldr: left out)

    # issue #21107
    @test foldr(-, 2:2) == 2
    # neutral element must not be picked for & and |
    @test foldl(&, Int[1]) === 1
    @test_throws ArgumentError foldl(&, Int[])
end

@testset "reduce.jl: reduce" begin
    @test reduce(+, Int64[]) === Int64(0)
    @test reduce(+, Int16[]) === Int16(0)
    @test reduce((p, q) -> "($p+$q)", 9:11) == "((9+10)+11)"
    @test reduce(max, [8 6 7 5 3 0 9]) == 9
    @test reduce(+, 1:5; init=1000) == (1000 + 1 + 2 + 3 + 4 + 5)
    @test reduce(+, 1) == 1
    @test_throws ArgumentError reduce(*, ())
    @test_throws ArgumentError reduce(*, Union{}[])
end

@testset "reduce.jl: mapreduce" begin
    @test mapreduce(-, +, [-10 -9 -3]) == ((10 + 9) + 3)
    @test mapreduce(s -> s[1:3], (p, q) -> "($p+$q)", ["abcd", "efgh", "01234"]) == "((abc+efg)+012)"
end

@testset "reduce.jl: mapreduce with several iterators" begin
    @test mapreduce(*, +, (k for k in 2:3), (k for k in 4:5)) == 23
    @test mapreduce(*, +, (k for k in 2:3), (k for k in 4:5); init = 2) == 25
    @test mapreduce(*, (p, q) -> "($p+$q)", ["a", "b", "c"], ["d", "e", "f"]) == "((ad+be)+cf)"
    @test mapreduce(*, (p, q) -> "($p+$q)", ["a", "b", "c"], ["d", "e", "f"]; init = "gh") ==
        "(((gh+ad)+be)+cf)"

    @test mapreduce(*, +, [2, 3], [4, 5]) == 23
    @test mapreduce(*, +, [2, 3], [4, 5]; init = 2) == 25
    @test mapreduce(*, +, [2, 3], [4, 5]; dims = 1) == [23]
    @test mapreduce(*, +, [2, 3], [4, 5]; dims = 1, init = 2) == [25]
    @test mapreduce(*, +, [2, 3], [4, 5]; dims = 2) == [8, 15]
    @test mapreduce(*, +, [2, 3], [4, 5]; dims = 2, init = 2) == [10, 17]

    M, N = [2 3; 4 5], [6 7; 8 9]
    @test mapreduce(*, +, M, N) == 110
    @test mapreduce(*, +, M, N; init = 2) == 112
    @test mapreduce(*, +, M, N; dims = 1) == [44 66]
    @test mapreduce(*, +, M, N; dims = 1, init = 2) == [46 68]
    @test mapreduce(*, +, M, N; dims = 2) == reshape([33, 77], :, 1)
    @test mapreduce(*, +, M, N; dims = 2, init = 2) == reshape([35, 79], :, 1)
end

@testset "reduce.jl: mapreduce on blocks of 1, 2 and n (#19325) and empty" begin
    @test mapreduce(-, +, [-10]) == 10
    @test mapreduce(abs2, +, [-9, -3]) == 81 + 9
    @test mapreduce(-, +, [-9, -3, -4, 8, -2]) == (9 + 3 + 4 - 8 + 2)
    @test mapreduce(-, +, Vector(range(1.0, stop=10000.0, length=10000))) == -50005000.0

    @test mapreduce(abs2, +, Float64[]) === 0.0
    @test mapreduce(abs2, *, Float64[]) === 1.0
    @test mapreduce(abs2, max, Float64[]) === 0.0
    @test mapreduce(abs, max, Float64[]) === 0.0
    @test_throws ArgumentError mapreduce(abs2, &, Float64[])
    @test_throws ArgumentError mapreduce(abs2, |, Float64[])
end

@testset "reduce.jl: mapreduce type stability" begin
    @test typeof(mapreduce(*, +, Int8[10])) ===
          typeof(mapreduce(*, +, Int8[10, 11])) ===
          typeof(mapreduce(*, +, Int8[10, 11, 12, 13]))
    @test typeof(mapreduce(*, +, Float32[10.0])) ===
          typeof(mapreduce(*, +, Float32[10, 11])) ===
          typeof(mapreduce(*, +, Float32[10, 11, 12, 13]))
    # when f supports empty collections
    @test typeof(mapreduce(abs, +, Int8[])) ===
          typeof(mapreduce(abs, +, Int8[10])) ===
          typeof(mapreduce(abs, +, Int8[10, 11])) ===
          typeof(mapreduce(abs, +, Int8[10, 11, 12, 13]))
    @test typeof(mapreduce(abs, +, Float32[])) ===
          typeof(mapreduce(abs, +, Float32[10])) ===
          typeof(mapreduce(abs, +, Float32[10, 11])) ===
          typeof(mapreduce(abs, +, Float32[10, 11, 12, 13]))
end

@testset "sums promote to at least machine size" begin
    @testset for T in [Int8, Int16, Int32]
        @test sum(T[]) === Int(0)
    end
    @testset for T in [UInt8, UInt16, UInt32]
        @test sum(T[]) === UInt(0)
    end
    @testset for T in [Int, Int64, Int128, UInt, UInt64, UInt128,
                       Float16, Float32, Float64]
        @test sum(T[]) === T(0)
    end
    @test sum(BigInt[]) == big(0) && sum(BigInt[]) isa BigInt
end

@testset "reduce.jl: sum" begin
    @test sum(Bool[]) === sum(Bool[false]) === sum(Bool[false, false]) === 0
    @test sum(Bool[true, false, true]) === 2

    @test sum(Int8(3)) === Int(3)
    @test sum(3) === 3
    @test sum(3.0) === 3.0

    @test sum([Int8(3)]) === Int(3)
    @test sum([3]) === 3
    @test sum([3.0]) === 3.0

    q = reshape(1:16, (2, 2, 2, 2))
    fq = float(q)
    @test sum(q) === 136
    @test sum(fq) === 136.0

    @test_throws ArgumentError sum(Union{}[])
    @test_throws ArgumentError sum(sin, Int[])
    @test sum(sin, 3) == sin(3.0)
    @test sum(sin, [3]) == sin(3.0)
    s = sum(sin, q)
    @test s ≈ sum(sin, fq)
    @test s ≈ sum(sin.(fq))
end

@testset "reduce.jl: summation variants (#6069)" begin
    v = [-4, -3, 2, 5]
    for f in (viainvoke_sum, viareduce_init, viamapreduce_init)
        @test sum(v) == f(v)
        @test sum(Int[]) == f(Int[]) == 0
        @test sum(Int[7]) == f(Int[7]) == 7
        @test typeof(f(Int8[])) == typeof(f(Int8[1])) == typeof(f(Int8[1 7]))
    end
    for f in (viareduce, viainvoke_reduce, viamapreduce, viainvoke_mapreduce)
        @test sum(v) == f(v)
        @test_throws ArgumentError f(Int[])
        @test sum(Int[7]) == f(Int[7]) == 7
    end
    @test typeof(sum(Int8[])) == typeof(sum(Int8[1])) == typeof(sum(Int8[1 7]))
end

@testset "sum(abs, [])" begin
    @test sum(abs, Float64[]) === 0.0
    @test sum(abs, Int[]) === 0
    @test sum(abs, Set{Int}()) === 0
    @test_throws MethodError sum(abs, Any[])
end

@testset "reduce.jl: prod" begin
    @test prod(Int[]) === 1
    @test prod(Int8[]) === Int(1)
    @test prod(Float64[]) === 1.0

    @test prod([3]) === 3
    @test prod([Int8(3)]) === Int(3)
    @test prod([UInt8(3)]) === UInt(3)
    @test prod([3.0]) === 3.0

    v = [-4, -3, 2, 5]
    @test prod(v) === 120
    @test prod(float(v)) === 120.0

    @test typeof(prod(Array(trues(10)))) == Bool

    # type stability
    @test prod(Int[]) === viainvoke_prod(Int[]) === 1
    @test prod(Int[7]) === viainvoke_prod(Int[7]) === 7
    @test typeof(prod(Int8[])) == typeof(prod(Int8[1])) == typeof(prod(Int8[1, 7])) == Int
    @test typeof(viainvoke_prod(Int8[])) == typeof(viainvoke_prod(Int8[1])) ==
          typeof(viainvoke_prod(Int8[1 7])) == Int

    # on Chars
    @test prod(Char[]) == ""
    @test prod(Char['a']) == "a"
    @test prod(Char['a', 'b']) == "ab"
end

@testset "reduce.jl: prod of BigInt ranges" begin
    @test prod(1:big(16)) == big(20922789888000)
    @test prod(big(typemax(Int64)):big(typemax(Int64))+16) == parse(BigInt, "25300281663413827620486300433089141956148633919452440329174083959168114253708467653081909888307573358090001734956158476311046124934597861626299416732205795533726326734482449215730132757595422510465791525610410023802664753402501982524443370512346073948799084936298007821432734720004795146875180123558814648586972474376192000")
end

@testset "reduce.jl: maximum, minimum, extrema" begin
    @test_throws ArgumentError maximum(Int[])
    @test_throws ArgumentError minimum(Int[])

    @test maximum(Int[]; init=-1) == -1
    @test minimum(Int[]; init=-1) == -1

    @test maximum(5) == 5
    @test minimum(5) == 5
    @test extrema(5) == (5, 5)
    @test extrema(abs2, 5) == (25, 25)

    v = [4, 3, 5, 2]
    @test maximum(v) == 5
    @test minimum(v) == 2
    @test extrema(v) == (2, 5)
    @test maximum(abs2, v) == 25
    @test minimum(abs2, v) == 4
    @test extrema(abs2, v) == (4, 25)

    @test maximum(abs2, 3:7) == 49
    @test minimum(abs2, 3:7) == 9
    @test extrema(abs2, 3:7) == (9, 49)

    @test maximum(Int16[1]) === Int16(1)
    @test maximum(Vector(Int16(1):Int16(100))) === Int16(100)
    @test maximum(Int32[1, 2]) === Int32(2)
end

@testset "reduce.jl: maximum and minimum of signed zeros" begin
    @test maximum([-0., 0.]) === 0.0
    @test maximum([0., -0.]) === 0.0
    @test maximum([0., -0., 0.]) === 0.0
    @test minimum([-0., 0.]) === -0.0
    @test minimum([0., -0.]) === -0.0
    @test minimum([0., -0., 0.]) === -0.0
end

@testset "minimum/maximum checks all elements" begin
    for len in [2:20; 150; 300]
        for k in 1:len
            v = fill(0., len)
            want = rand()
            v[k] = want
            @test maximum(v) == want

            want = -rand()
            v[k] = want
            @test minimum(v) == want

            v[k] = NaN
            @test isnan(maximum(v))
            @test isnan(minimum(v))

            v = zeros(len)
            @test minimum(v) === 0.0
            @test maximum(v) === 0.0

            v[k] = -0.0
            @test minimum(v) === -0.0
            @test maximum(v) === 0.0

            v = -zeros(len)
            @test minimum(v) === -0.0
            @test maximum(v) === -0.0
            v[k] = 0.0
            @test minimum(v) === -0.0
            @test maximum(v) === 0.0
        end
    end
end

@testset "maximum works on generic order #30320" begin
    for len in [1:20; 1500]
        v = randn(len)
        @test GenericOrder(maximum(v)) === maximum(map(GenericOrder, v))
        @test GenericOrder(minimum(v)) === minimum(map(GenericOrder, v))
        ident = t -> t
        @test GenericOrder(maximum(ident, v)) === maximum(ident, map(GenericOrder, v))
        @test GenericOrder(minimum(ident, v)) === minimum(ident, map(GenericOrder, v))
    end
end

@testset "maximum no out of bounds access #30462" begin
    M = fill(-Inf, 128, 128)
    @test maximum(M) == -Inf
    M = fill(Inf, 128^2)
    @test minimum(M) == Inf
    for mid in [256, 1024, 4096, 128^2]
        for off in -10:10
            val = randn()
            v = fill(val, mid + off)
            @test maximum(v) === val
            @test minimum(v) === val
        end
    end
end

@testset "reduce.jl: NaN in maximum, minimum, extrema" begin
    @test isnan(maximum([NaN]))
    @test isnan(minimum([NaN]))
    @test isequal(extrema([NaN]), (NaN, NaN))

    @test isnan(maximum([NaN, 2.]))
    @test isnan(maximum([2., NaN]))
    @test isnan(minimum([NaN, 2.]))
    @test isnan(minimum([2., NaN]))
    @test isequal(extrema([NaN, 2.]), (NaN, NaN))

    @test isnan(maximum([NaN, 2., 3.]))
    @test isnan(minimum([NaN, 2., 3.]))
    @test isequal(extrema([NaN, 2., 3.]), (NaN, NaN))

    @test isnan(maximum([4., 3., NaN, 5., 2.]))
    @test isnan(minimum([4., 3., NaN, 5., 2.]))
    @test isequal(extrema([4., 3., NaN, 5., 2.]), (NaN, NaN))

    # long arrays
    @test isnan(maximum([NaN; 1.:10000.]))
    @test isnan(maximum([1.:10000.; NaN]))
    @test isnan(minimum([NaN; 1.:10000.]))
    @test isnan(minimum([1.:10000.; NaN]))
    @test isequal(extrema([1.:10000.; NaN]), (NaN, NaN))
    @test isequal(extrema([NaN; 1.:10000.]), (NaN, NaN))
end

@testset "reduce.jl: extrema with dims" begin
    B = circshift(reshape(1:24, 2, 3, 4), (0, 1, 1))
    @test extrema(B, dims=1) == reshape([(23,24),(19,20),(21,22),(5,6),(1,2),(3,4),(11,12),(7,8),(9,10),(17,18),(13,14),(15,16)], 1, 3, 4)
    @test extrema(B, dims=2) == reshape([(19,23),(20,24),(1,5),(2,6),(7,11),(8,12),(13,17),(14,18)], 2, 1, 4)
    @test extrema(B, dims=3) == reshape([(5,23),(6,24),(1,19),(2,20),(3,21),(4,22)], 2, 3, 1)
    @test extrema(B, dims=(1,2)) == reshape([(19,24),(1,6),(7,12),(13,18)], 1, 1, 4)
    @test extrema(B, dims=(1,3)) == reshape([(5,24),(1,20),(3,22)], 1, 3, 1)
    @test extrema(B, dims=(2,3)) == reshape([(1,23),(2,24)], 2, 1, 1)
    @test extrema(B, dims=(1,2,3)) == reshape([(1,24)], 1, 1, 1)
    @test size(extrema(B, dims=1)) == size(maximum(B, dims=1))
    @test size(extrema(B, dims=(1,2))) == size(maximum(B, dims=(1,2)))
    @test size(extrema(B, dims=(1,2,3))) == size(maximum(B, dims=(1,2,3)))
    @test extrema(t -> div(t, 2), B, dims=(2,3)) == reshape([(0,11),(1,12)], 2, 1, 1)
end

@testset "reduce.jl: any and all" begin
    @test any([]) == false
    @test any(Bool[]) == false
    @test any([true]) == true
    @test any([false, false]) == false
    @test any([false, true]) == true
    @test any([true, false]) == true
    @test any([true, true]) == true
    @test any([true, true, true]) == true
    @test any([true, false, true]) == true
    @test any([false, false, false]) == false

    @test all([]) == true
    @test all(Bool[]) == true
    @test all([true]) == true
    @test all([false, false]) == false
    @test all([false, true]) == false
    @test all([true, false]) == false
    @test all([true, true]) == true
    @test all([true, true, true]) == true
    @test all([true, false, true]) == false
    @test all([false, false, false]) == false

    @test any(t -> t > 0, []) == false
    @test any(t -> t > 0, Int[]) == false
    @test any(t -> t > 0, [-3]) == false
    @test any(t -> t > 0, [4]) == true
    @test any(t -> t > 0, [-3, 4, 5]) == true

    @test all(t -> t > 0, []) == true
    @test all(t -> t > 0, Int[]) == true
    @test all(t -> t > 0, [-3]) == false
    @test all(t -> t > 0, [4]) == true
    @test all(t -> t > 0, [-3, 4, 5]) == false

    @test reduce((p, q) -> p .| q, fill(trues(5), 24)) == trues(5)
    @test reduce((p, q) -> p .| q, fill(falses(5), 24)) == falses(5)
    @test reduce((p, q) -> p .& q, fill(trues(5), 24)) == trues(5)
    @test reduce((p, q) -> p .& q, fill(falses(5), 24)) == falses(5)

    @test_throws TypeError any(t -> 0, [false])
    @test_throws TypeError all(t -> 0, [false])
end

@testset "reduce.jl: short-circuiting any and all" begin
    let seen = [0, 0], r = 1:1000
        any(t -> (seen[1] = t; t == 10), r)
        all(t -> (seen[2] = t; t != 10), r)
        @test seen == [10, 10]
    end
    # 19151: generators short-circuit too
    let c = Int[], d = Int[], r = 1:9
        all((push!(c, t); t < 5) for t in r)
        @test c == 1:5
        any((push!(d, t); t > 4) for t in r)
        @test d == 1:5
    end
end

@testset "reduce.jl: any/all with non-boolean collections" begin
    let g(t) = t == 1 ? true : t == 2 ? false : 1
        @test any(Any[false, true, false])
        @test any(map(g, [2, 1, 2]))
        @test any([g(t) for t in [2, 1, 2]])

        @test all(Any[true, true, true])
        @test all(map(g, [1, 1, 1]))
        @test all([g(t) for t in [1, 1, 1]])

        @test_throws TypeError any([1, true])
        @test_throws TypeError all([true, 1])
        @test_throws TypeError any(map(g, [3, 1]))
        @test_throws TypeError all(map(g, [1, 3]))
    end
end

@testset "reduce.jl: any and all with functors" begin
    @test any(AlwaysTrue(), 1:10)
    @test all(AlwaysTrue(), 1:10)
end

@testset "reduce.jl: in and occursin" begin
    @test in(1, Int[]) == false
    @test in(1, Int[1]) == true
    @test in(1, Int[2]) == false
    @test in(0, 1:3) == false
    @test in(1, 1:3) == true
    @test in(2, 1:3) == true

    @test occursin("fox", "quick fox") == true
    @test occursin("lazy dog", "quick fox") == false

    let v = Vector(1:10)
        # upstream writes `v ∋ 5` and `v ∌ 11`; Zyla's parser rejects the characters ∋ ∌,
        # which would stop the whole file, so the same facts are spelled with `in`:
        @test in(5, v)
        @test !in(11, v)
        @test any(t -> t == 6, v)
    end
end

@testset "reduce.jl: count" begin
    @test count(t -> t > 0, Int[]) == count(Bool[]) == 0
    @test count(t -> t > 0, -3:5) == count((-3:5) .> 0) == 5
    @test count([true, true, false, true]) == count(BitVector([true, true, false, true])) == 3
    let bits = repeat([false, true, false, true, true, false], 7)
        @test count(bits) == 21
        # (upstream then overwrites a byte through a pointer and counts again: left out)
    end
    @test_throws TypeError count(sqrt, [1])
    @test_throws TypeError count([1])
    let itr = (t for t in 1:10 if t < 7)
        @test count(iseven, itr) == 3
        @test_throws TypeError count(itr)
        @test_throws TypeError count(sqrt, itr)
    end
    @test count(iseven(t) for t in 1:10 if t < 7) == 3
    @test count(iseven(t) for t in 1:10 if t < -7) == 0

    @test count(!iszero, Int[]) == 0
    @test count(!iszero, Int[0]) == 0
    @test count(!iszero, Int[1]) == 1
    @test count(!iszero, [1, 0, 2, 0, 3, 0, 4]) == 4
end

@testset "reduce.jl: sum and cumsum accuracy" begin
    v = rand(10^6)
    let exact = sum(BigFloat.(v)), exact2 = sum(BigFloat.(v[1:10^5]))
        @test (exact - sum(v)) < exact * 1e-13
        cs = cumsum(v)
        @test (exact - cs[end]) < exact * 1e-13
        @test (exact2 - cs[10^5]) < exact2 * 1e-13
    end
end

@testset "reduce.jl: sum of UInt8 arrays" begin
    @test sum(Vector(map(UInt8, 0:255))) == 32640
    @test sum(Vector(map(UInt8, 254:255))) == 509

    B = reshape(map(UInt8, 101:109), (3, 3))
    @test sum(B) == 945
    @test sum(view(B, 1:3, 1:3)) == 945

    B = reshape(map(UInt8, 1:100), (10, 10))
    @test sum(B) == 5050
    @test sum(view(B, 1:10, 1:10)) == 5050
end

@testset "reduce.jl: signed zero sums and products (#11618)" begin
    @test sum([-0.0]) === -0.0
    @test sum([-0.0, -0.0]) === -0.0
    @test prod([-0.0, -0.0]) === 0.0
end

@testset "reduce.jl: sum of a generator (#18695)" begin
    @test sumsquares18695([1.0, 2.0, 3.0, 4.0]) == 30.0
    @test_throws ArgumentError sumsquares18695(Any[])
end

@testset "optimized reduce(vcat/hcat, A) for arrays" begin
    for parts in ([1:2], [[1, 2]], [1:2, 3:4], [[3, 4, 5], 1:2], [1:2, [3.5, 4.5]],
                  [[1 2], [3 4; 5 6]], [reshape([1, 2], 2, 1), 3:4])
        R = reduce(vcat, parts)
        S = vcat(parts...)
        @test R == S
        @test typeof(R) === typeof(S)
    end
    for parts in ([1:2], [[1, 2]], [1:2, 3:4], [[3, 4, 5], 1:3], [1:2, [3.5, 4.5]],
                  [[1 2; 3 4], [5 6; 7 8]], [1:2, [5 6; 7 8]], [[5 6; 7 8], [1, 2]])
        R = reduce(hcat, parts)
        S = hcat(parts...)
        @test R == S
        @test typeof(R) === typeof(S)
    end
end

@testset "reduce.jl: sum over offset axes" begin
    ax = Base.Slice(-3:3)
    sq = [j^2 for j in ax]
    @test sum(sq) == sum(sq.parent) == 28
    ax = Base.Slice(0:0)
    sh = [j + 7 for j in ax]
    @test sum(sh) == 7
end

@testset "initial value handling with flatten" begin
    # upstream's op destructures its arguments, `((a, b), (c, d)) -> ...`, which Zyla's
    # parser rejects (that would stop the whole file); the same op, indexing instead:
    @test mapfoldl(
        t -> (t, t),
        (ab, cd) -> (min(ab[1], cd[1]), max(ab[2], cd[2])),
        Iterators.flatten((1:2, 3:4)),
    ) == (1, 4)
end
