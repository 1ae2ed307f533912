# NamedTuples, Pairs, Dicts, generators and iteration helpers.
using Test

@testset "collections" begin
    @testset "NamedTuple" begin
        a = 1; b = "x"
        nt = (; a, b)
        @test nt.a == 1 && nt.b == "x"
        @test keys(nt) == (:a, :b)
        one_field = (a = 1,)
        @test one_field isa NamedTuple
        @test length(one_field) == 1
        @test (x = 1, y = 2.0).y === 2.0
        @test string((a = 1, b = 2)) == "(a = 1, b = 2)"
    end
    @testset "Pair" begin
        p = "k" => 2
        @test p.first == "k" && p.second == 2
        @test first(p) == "k" && last(p) == 2
        @test repr(1 => 2) == "1 => 2"
        k, v = p
        @test k == "k" && v == 2
    end
    @testset "Dict" begin
        d = Dict("a" => 1, "b" => 2)
        d["c"] = 3
        @test d["a"] == 1
        @test length(d) == 3
        @test haskey(d, "b") && !haskey(d, "z")
        @test get(d, "z", 0) == 0
        @test sort(collect(keys(d))) == ["a", "b", "c"]
        @test sum(values(d)) == 6
        total = 0
        for (k, v) in d
            total += v
        end
        @test total == 6
        @test get!(d, "n", 10) == 10 && d["n"] == 10
        delete!(d, "n")
        @test !haskey(d, "n")
        @test_throws KeyError d["missing"]
        e = Dict{String,Float64}()
        e["x"] = 1
        @test e["x"] === 1.0
        @test Dict([(1, "a"), (2, "b")])[2] == "b"
        @test typeof(Dict(1 => 2.0)) == Dict{Int64,Float64}
    end
    @testset "generators" begin
        xs = [1, 2, 3]
        @test sum(x^2 for x in xs) == 14
        @test maximum(abs(x - 2) for x in xs) == 1
        @test collect(x for x in 1:4 if iseven(x)) == [2, 4]
        @test [i * j for i in 1:2, j in 1:3] == [1 2 3; 2 4 6]
    end
    @testset "iteration helpers" begin
        out = Int[]
        for (i, x) in enumerate([10, 20, 30])
            push!(out, i * x)
        end
        @test out == [10, 40, 90]
        @test collect(enumerate("ab")) == [(1, 'a'), (2, 'b')]
        @test [a + b for (a, b) in zip([1, 2, 3], [10, 20])] == [11, 22]
        @test collect(eachindex([5, 6, 7])) == [1, 2, 3]
        A = [1 2; 3 4]
        @test [sum(c) for c in eachcol(A)] == [4, 6]
        @test [sum(r) for r in eachrow(A)] == [3, 7]
        P = collect(Iterators.product(1:2, 1:3))
        @test size(P) == (2, 3)
        @test P[2, 3] == (2, 3)
        @test axes(A, 1) == 1:2
    end
    @testset "Set and set functions" begin
        s = Set([1, 2, 2, 3])
        @test length(s) == 3 && 2 in s && !(5 in s) && 5 ∉ s
        @test s isa Set{Int64} && s isa AbstractSet
        push!(s, 7)
        @test sort(collect(s)) == [1, 2, 3, 7]
        delete!(s, 1)
        @test sort(collect(s)) == [2, 3, 7]
        @test isempty(Set()) && !isempty(s)
        @test typeof(Set()) == Set{Any}
        t = Set{String}()
        push!(t, "a")
        @test "a" in t && length(t) == 1
        @test_throws MethodError push!(t, 3)
        @test union([1, 2], [2, 3]) == [1, 2, 3]
        @test intersect([1, 2], [2, 3]) == [2]
        @test setdiff([1, 2, 3], [2]) == [1, 3]
        @test symdiff([1, 2], [2, 3]) == [1, 3]
        @test unique([3, 1, 3, 2]) == [3, 1, 2]
        @test [1, 2] ⊆ [1, 2, 3] && !issubset([1, 4], [1, 2, 3])
        @test Set([1]) ∪ Set([2]) == Set([2, 1])
        @test Set([1]) != Set([1, 2])
        u = Set([1, 2])
        union!(u, [5])
        @test sort(collect(u)) == [1, 2, 5]
        @test sum(x for x in Set([4, 5])) == 9
        @test string(Set([1])) == "Set([1])"
        @test sort(collect(Dict(1 => 2, 3 => 4)), by=first) == [1 => 2, 3 => 4]
    end
    @testset "lazy iterators" begin
        @test collect(Iterators.take(Iterators.countfrom(5), 3)) == [5, 6, 7]
        @test collect(Iterators.partition(1:7, 3)) == [[1, 2, 3], [4, 5, 6], [7]]
        @test [i for (i, b) in enumerate(Iterators.partition(1:7, 3))] == [1, 2, 3]
        @test length(Iterators.partition(1:10, 4)) == 3
        @test collect(Iterators.flatten([[1, 2], [3]])) == [1, 2, 3]
        @test collect(Iterators.take(Iterators.cycle([1, 2]), 5)) == [1, 2, 1, 2, 1]
        @test collect(zip(1:3, Iterators.countfrom(10))) == [(1, 10), (2, 11), (3, 12)]
        @test collect(Iterators.filter(isodd, 1:10)) == [1, 3, 5, 7, 9]
        @test sum(Iterators.map(x -> x^2, 1:4)) == 30
        @test collect(Iterators.drop(1:5, 2)) == [3, 4, 5]
        @test collect(Iterators.repeated(7, 3)) == [7, 7, 7]
        @test collect(Iterators.takewhile(x -> x < 4, 1:10)) == [1, 2, 3]
        @test collect(Iterators.dropwhile(x -> x < 8, 1:10)) == [8, 9, 10]
        @test collect(Iterators.reverse(1:3)) == [3, 2, 1]
        @test collect(Iterators.accumulate(+, [1, 2, 3])) == [1, 3, 6]
        it = Iterators.take(1:5, 2)
        @test collect(it) == collect(it) == [1, 2]  # iterating twice starts over
        @test first(Iterators.countfrom(3)) == 3
        @test sum(x -> 2x, Iterators.take(1:10, 3)) == 12
        @test maximum(Iterators.take([3, 9, 2], 2)) == 9
        @test_throws MethodError length(Iterators.countfrom(1))
        @test_throws ArgumentError Iterators.partition(1:3, 0)
    end
    @testset "break and return leave a loop over an infinite iterator" begin
        function first_above(xs, t)
            for x in xs
                x > t && return x
            end
            -1
        end
        @test first_above(Iterators.countfrom(1, 7), 100) == 106
        total = 0
        for i in Iterators.countfrom(1)
            total += i
            i >= 10 && break
        end
        @test total == 55
        seen = Int[]
        for (k, c) in enumerate(Iterators.cycle([1, 2, 3]))
            k > 4 && break
            push!(seen, c)
        end
        @test seen == [1, 2, 3, 1]
    end
end
