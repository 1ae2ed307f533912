# Facts from JuliaLang/julia test/tuple.jl (ported for Zyla's conformance suite).
# The testsets that use syntax Zyla's parser rejects (`T where S` as a type value, `=>` as a
# function value, `A{T} = ...` aliases, `a..., b = t`) are in tuple_syntax.jl, so that a
# ParseError there does not void the testsets here.

# testset "conversion and construction": in tuple_syntax.jl (it uses syntax Zyla does not parse)

@testset "size" begin
    @test length(()) == 0
    @test length((1,)) === 1
    @test length((1, 2)) === 2

    @test_throws ArgumentError Base.front(())
    @test_throws ArgumentError Base.tail(())
    @test_throws ArgumentError first(())

    @test lastindex(()) === 0
    @test lastindex((1,)) === 1
    @test lastindex((1, 2)) === 2

    @test size((), 1) === 0
    @test size((1,), 1) === 1
    @test size((1, 2), 1) === 2
end

@testset "indexing" begin
    @test getindex((1,), 1) === 1
    @test getindex((1, 2), 2) === 2
    @test_throws BoundsError getindex((), 1)
    @test_throws BoundsError getindex((1, 2), 0)
    @test_throws BoundsError getindex((1, 2), -1)

    @test getindex((5, 6, 7, 8), [1, 2, 3]) === (5, 6, 7)
    @test_throws BoundsError getindex((1, 2), [3, 4])

    @test getindex((5, 6, 7, 8), [true, false, false, true]) === (5, 8)
    @test_throws BoundsError getindex((5, 6, 7, 8), [true, false, false, true, true])

    @test getindex((5, 6, 7, 8), []) === ()
    @test getindex((1, 9, 9, 3), :) === (1, 9, 9, 3)
    @test getindex((), :) === ()
    @test getindex((1,), :) === (1,)

    @testset "boolean arrays" begin
        # #19719
        @test_throws BoundsError (1, 2, 3)[falses(4)]
        @test_throws BoundsError (1, 2, 3)[[false, false, true, true]]
        @test_throws BoundsError (1, 2, 3)[trues(2)]
        @test_throws BoundsError (1, 2, 3)[falses(2)]
        @test_throws BoundsError ()[[false]]
        @test_throws BoundsError ()[[true]]
    end

    @testset "Multidimensional indexing (issue #20453)" begin
        @test_throws MethodError (1,)[]
        @test_throws MethodError (1, 1, 1)[1, 1]
    end

    @testset "get() method for Tuple (Issue #40809)" begin
        @test get((5, 6, 7), 1, 0) == 5
        @test get((), 5, 0) == 0
        @test get((1,), 3, 0) == 0
        @test get(() -> 0, (5, 6, 7), 1) == 5
        @test get(() -> 0, (), 4) == 0
        @test get(() -> 0, (1,), 3) == 0
    end
end

@testset "fill to length" begin
    @test Base.fill_to_length((1, 2, 3), -1, Val(5)) == (1, 2, 3, -1, -1)
    @test_throws ArgumentError Base.fill_to_length((1, 2, 3), -1, Val(2))
end

@testset "iterating" begin
    @test iterate(()) === nothing
    tri = (1, 2, 3)
    s1 = iterate(tri)
    s2 = iterate(tri, s1[2])
    s3 = iterate(tri, s2[2])
    @test s3 !== nothing
    @test iterate(tri, s3[2]) === nothing

    @test eachindex((2, 5, "foo")) === Base.OneTo(3)
    @test eachindex((2, 5, "foo"), (1, 2, 5, 7)) === Base.OneTo(4)
    # the effects (is_nothrow) check is compiler-internal and left out
end

# testset "elelement/value/key types": in tuple_syntax.jl (it uses syntax Zyla does not parse)

@testset "map with Nothing and Missing" begin
    for NT in (Nothing, Missing)
        orig = [(1, NT()), (1, 2)]
        mapped = map(p -> (p[1], p[2]), [(1, NT()), (1, 2)])
        @test mapped isa Vector{Tuple{Int, Any}}
        @test isequal(orig, mapped)
    end
    summed = map(p -> (p[1], p[1] + p[2]), [(1, missing), (1, 2)])
    @test summed isa Vector{Tuple{Int, Any}}
    @test isequal(summed, [(1, missing), (1, 3)])
end

@testset "mapping" begin
    g() = 2
    g(a) = 2a
    g(a, b) = a + b
    g(a, b, c) = a + b + c
    t20 = ntuple(identity, 20)
    t33 = ntuple(identity, 33)

    @testset "1 argument" begin
        @test map(g, ()) === ()
        @test map(g, (1,)) === (2,)
        @test map(g, (1, 2)) === (2, 4)
        @test map(g, (1, 2, 3, 4)) === (2, 4, 6, 8)
        @test map(g, t20) === ntuple(i -> 2i, 20)
        @test map(g, t33) === ntuple(i -> 2i, 33)
    end

    @testset "2 arguments" begin
        @test map(g, (), ()) === ()
        @test map(g, (1,), (1,)) === (2,)
        @test map(g, (1, 2), (1, 2)) === (2, 4)
        @test map(g, (1, 2, 3, 4), (1, 2, 3, 4)) === (2, 4, 6, 8)
        @test map(g, t20, t20) === ntuple(i -> 2i, 20)
        @test map(g, t33, t33) === ntuple(i -> 2i, 33)
        @test map(g, t20, t33) === ntuple(i -> 2i, 20)
        @test map(g, t33, t20) === ntuple(i -> 2i, 20)
        @test map(g, (), (1,)) === ()
        @test map(g, (1,), ()) === ()
    end

    @testset "n arguments" begin
        @test map(g, (), (), ()) === ()
        @test map(g, (1,), (1,), (1,)) === (3,)
        @test map(g, (1, 2), (1, 2), (1, 2)) === (3, 6)
        @test map(g, (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3, 4)) === (3, 6, 9, 12)
        @test map(g, t20, t20, t20) === ntuple(i -> 3i, 20)
        @test map(g, t33, t33, t33) === ntuple(i -> 3i, 33)
        @test map(g, t33, t20, t20) === ntuple(i -> 3i, 20)
        @test map(g, t20, t33, t20) === ntuple(i -> 3i, 20)
        @test map(g, t20, t33, t33) === ntuple(i -> 3i, 20)
        @test map(g, (), (1,), (1,)) === ()
        @test map(g, (1,), (1,), ()) === ()
    end
end

@testset "foreach" begin
    t33 = ntuple(identity, 33)

    @testset "1 argument" begin
        record(v) = push!(acc, v)

        acc = []
        foreach(record, ())
        @test acc == []

        acc = []
        foreach(record, (1,))
        @test acc == [1]

        acc = []
        foreach(record, t33)
        @test acc == [t33...]
    end

    @testset "n arguments" begin
        record(v, w) = push!(acc, (v, w))

        acc = []
        foreach(record, (), ())
        @test acc == []

        acc = []
        foreach(record, (1,), (2,))
        @test acc == [(1, 2)]

        acc = []
        foreach(record, t33, t33)
        @test acc == [(v, v) for v in t33]
    end
end

# testset "mapfoldl": in tuple_syntax.jl (it uses syntax Zyla does not parse)

@testset "filter" begin
    @test filter(isodd, (1, 2, 3)) == (1, 3)
    @test filter(isequal(2), (true, 2.0, 3)) === (2.0,)
    @test filter(Returns(true), ()) == ()
    @test filter(identity, (true,)) === (true,)
    t20 = ntuple(identity, 20)
    @test filter(iseven, t20) == ntuple(i -> 2i, 10)
    @test filter(v -> v < 2, (t20..., 1.5)) === (1, 1.5)
end

@testset "comparison and hash" begin
    @testset "`hash`" begin
        @test hash((1,)) === hash((true,))
        @test hash((), UInt(0)) != hash((), UInt(1))
        @test hash((3,), UInt(0)) != hash((3,), UInt(1))
        let (a, b, c) = (1, 3, 7)
            nestings = (
                (a, b, c),
                ((a,), b, c),
                (a, (b,), c),
                (a, b, (c,)),
                (a, (b, c)),
                ((a, b), c),
            )
            @test allunique(hash, nestings)
        end
        @testset "homogeneous and heterogeneous" begin
            @test hash((0, 1)) === hash((0, 0x1))
            @test hash((0, 1, 2)) === hash((0, 1, 0x2)) ===
                  hash((0, 0x1, 2)) === hash((0x0, 1, 2))
        end
    end

    @test isequal((), ())
    @test isequal((1, 2, 3), (1, 2, 3))
    @test !isequal((1, 2, 3), (1, 2, 4))
    @test !isequal((1, 2, 3), (1, 2))

    @test ==((), ())
    @test ==((1, 2, 3), (1, 2, 3))
    @test !==((1, 2, 3), (1, 2, 4))
    @test !==((1, 2, 3), (1, 2))

    @test (1, 2) < (1, 3)
    @test (1,) < (1, 2)
    @test !((1, 2) < (1, 2))
    @test (2, 1) > (1, 2)

    @test isless((1, 2), (1, 3))
    @test isless((1,), (1, 2))
    @test !isless((1, 2), (1, 2))
    @test !isless((2, 1), (1, 2))

    # long tuples (the Any32 methods)
    p = ntuple(identity, 32)
    @test isequal((p..., 1, 2, 3), (p..., 1, 2, 3))
    @test !isequal((p..., 1, 2, 3), (p..., 1, 2, 4))
    @test !isequal((p..., 1, 2, 3), (p..., 1, 2))

    @test ==((p..., 1, 2, 3), (p..., 1, 2, 3))
    @test !==((p..., 1, 2, 3), (p..., 1, 2, 4))
    @test !==((p..., 1, 2, 3), (p..., 1, 2))

    @test (p..., 1, 2) < (p..., 1, 3)
    @test (p..., 1,) < (p..., 1, 2)
    @test !((p..., 1, 2) < (p..., 1, 2))
    @test (p..., 2, 1) > (p..., 1, 2)

    @test isless((p..., 1, 2), (p..., 1, 3))
    @test isless((p..., 1,), (p..., 1, 2))
    @test !isless((p..., 1, 2), (p..., 1, 2))
    @test !isless((p..., 2, 1), (p..., 1, 2))
end

@testset "functions" begin
    @test isempty(())
    @test !isempty((1,))

    @test reverse(()) === ()
    @test reverse((1, 2, 3)) === (3, 2, 1)
end

@testset "tuple.jl: ntuple with negative length" begin
    # #21697
    @test_throws ArgumentError ntuple(identity, -1)
end

@testset "specialized reduction" begin
    @test sum((1, 2, 3)) === 6

    @test prod(()) === 1
    @test prod((1, 2, 3)) === 6

    # #39182
    @test sum((0xe1, 0x1f)) === sum([0xe1, 0x1f])
    @test sum((Int8(3),)) === Int(3)
    @test sum((UInt8(3),)) === UInt(3)
    @test sum((3,)) === Int(3)
    @test sum((3.0,)) === 3.0
    @test sum(("a",)) == sum(["a"])
    @test sum((0xe1, 0x1f), init=0x0) == sum([0xe1, 0x1f], init=0x0)

    # #39183
    @test prod((Int8(100), Int8(100))) === 10000
    @test prod((Int8(3),)) === Int(3)
    @test prod((UInt8(3),)) === UInt(3)
    @test prod((3,)) === Int(3)
    @test prod((3.0,)) === 3.0
    @test prod(("a",)) == prod(["a"])
    @test prod((0xe1, 0x1f), init=0x1) == prod([0xe1, 0x1f], init=0x1)

    @testset "all" begin
        @test all(()) === true
        @test all((false,)) === false
        @test all((true,)) === true
        @test all((true, true)) === true
        @test all((true, false)) === false
        @test all((false, false)) === false
        @test all((missing, true)) === missing
        @test all((true, missing)) === missing
        @test all((missing, false)) === false
        @test all((false, missing)) === false
        @test all((missing, true, false)) === false
        @test_throws TypeError all((missing, 3.2, true))
        # the @allocated check (PR #44063) is left out
        @test (() -> all((missing, true)))() === missing
        @test (() -> all((true, missing)))() === missing
        @test (() -> all((missing, false)))() === false
        @test (() -> all((false, missing)))() === false
        @test (() -> all((missing, true, false)))() === false
    end

    @testset "any" begin
        @test any(()) === false
        @test any((true,)) === true
        @test any((false,)) === false
        @test any((true, true)) === true
        @test any((true, false)) === true
        @test any((false, false)) === false
        @test any((false, false, false)) === false
        @test any((true, false, false)) === true
        @test any((false, true, false)) === true
        @test any((false, false, true)) === true
        @test any((true, true, false)) === true
        @test any((true, false, true)) === true
        @test any((true, true, true)) === true
        @test any((missing, true)) === true
        @test any((true, missing)) === true
        @test any((missing, false)) === missing
        @test any((false, missing)) === missing
        @test any((missing, true, false)) === true
        @test any((missing, false, false)) === missing
        @test_throws TypeError any((missing, 3.2, true))
        # the @allocated check (PR #44063) is left out
        @test (() -> any((missing, true)))() === true
        @test (() -> any((true, missing)))() === true
        @test (() -> any((missing, false)))() === missing
        @test (() -> any((false, missing)))() === missing
        @test (() -> any((missing, true, false)))() === true
        @test (() -> any((missing, false, false)))() === missing
    end
end

@testset "accumulate" begin
    @test cumsum(()) == ()
    @test cumsum((1, 2, 3)) == (1, 3, 6)
    @test cumprod((1, 2, 3)) == (1, 2, 6)
    @test accumulate(+, (1, 2, 3); init=10) == (11, 13, 16)
    flip(::Nothing, ::Any) = missing
    flip(::Missing, ::Any) = nothing
    @test accumulate(flip, (1, 2, 3, 4); init = nothing) ===
          (missing, nothing, missing, nothing)
end

# testset "ntuple": in tuple_syntax.jl (it uses syntax Zyla does not parse)

struct Keys_15703{N}
    keys::NTuple{N, Int}
end

struct Holder_15703
    x::Keys_15703
end

@testset "issue #15703" begin
    function splat_collect_15703(items...)
        [it for it in items]
    end

    function run_15703()
        single = (1,)
        k = Keys_15703(single)
        got = Holder_15703(k).x.keys
        @test got === single
        splat_collect_15703(got...)
    end

    run_15703()
end

# testset "#21026": in tuple_syntax.jl (it uses syntax Zyla does not parse)

# testset "issue 24707": in tuple_syntax.jl (it uses syntax Zyla does not parse)

@testset "find" begin
    @test findall(isequal(1), (1, 2)) == [1]
    @test findall(isequal(1), (1, 1)) == [1, 2]
    @test isempty(findall(isequal(1), ()))
    @test isempty(findall(isequal(1), (2, 3)))

    @test findfirst(isequal(1), (1, 2)) == 1
    @test findlast(isequal(1), (1, 2)) == 1
    @test findfirst(isequal(1), (1, 1)) == 1
    @test findlast(isequal(1), (1, 1)) == 2
    @test findfirst(isequal(1), ()) === nothing
    @test findlast(isequal(1), ()) === nothing
    @test findfirst(isequal(1), (2, 3)) === nothing
    @test findlast(isequal(1), (2, 3)) === nothing

    @test findnext(isequal(1), (1, 2), 1) == 1
    @test findprev(isequal(1), (1, 2), 2) == 1
    @test findnext(isequal(1), (1, 1), 2) == 2
    @test findprev(isequal(1), (1, 1), 1) == 1
    @test findnext(isequal(1), (2, 3), 1) === nothing
    @test findprev(isequal(1), (2, 3), 2) === nothing

    @testset "issue 32568" begin
        @test findnext(isequal(1), (1, 2), big(1)) isa Int
        @test findprev(isequal(1), (1, 2), big(2)) isa Int
        @test findnext(isequal(1), (1, 1), UInt(2)) isa Int
        @test findprev(isequal(1), (1, 1), UInt(1)) isa Int
    end

    # the Base.return_types (constant-folding) checks are left out (inference)

    @testset "long tuples" begin
        forty = ntuple(i -> i in (15, 17) ? 1 : 0, 40)
        @test findfirst(isequal(1), forty) == 15
        @test findlast(isequal(1), forty) == 17
    end
end

@testset "properties" begin
    syms = (:a, :b, :c)
    @test propertynames(syms) == (1, 2, 3)
    @test getproperty(syms, 2) === :b
    @test map(q -> getproperty(syms, q), propertynames(syms)) == syms
    @test_throws ErrorException setproperty!(syms, 1, :d)
end

@testset "tuple.jl: tuple_type_tail" begin
    @test Base.tuple_type_tail(Tuple{Vararg{Int}}) == Tuple{Vararg{Int}}
end

@testset "setindex" begin
    @test Base.setindex((1,), 2, 1) === (2,)
    @test Base.setindex((1, 2), 3, 1) === (3, 2)
    @test_throws BoundsError Base.setindex((), 1, 1)
    @test_throws BoundsError Base.setindex((1,), 2, 2)
    @test_throws BoundsError Base.setindex((1, 2), 2, 0)
    @test_throws BoundsError Base.setindex((1, 2, 3), 2, -1)

    @test_throws BoundsError Base.setindex((1, 2), 2, 3)
    @test_throws BoundsError Base.setindex((1, 2), 2, 4)

    @test Base.setindex((1, 2, 4), 4, true) === (4, 2, 4)
    @test_throws BoundsError Base.setindex((1, 2), 2, false)

    replace_first() = Base.setindex((1:1, 2:2, 3:3), 9, 1)
    @test replace_first() == (9, 2:2, 3:3)
    # the Base.return_types check is left out (inference)
end

@testset "inferable range indexing with constant values" begin
    all_of(t) = t[1:end]
    drop1(t) = t[2:end]
    drop2(t) = t[3:end]
    init1(t) = t[1:end-1]
    init2(t) = t[1:end-2]

    @test all_of(()) == ()
    @test drop1(()) == ()
    @test drop2(()) == ()
    @test init1(()) == ()
    @test init2(()) == ()

    @test all_of((1,)) == (1,)
    @test drop1((1,)) == ()
    @test drop2((1,)) == ()
    @test init1((1,)) == ()
    @test init2((1,)) == ()

    @test all_of((1, 2.0)) == (1, 2.0)
    @test drop1((1, 2.0)) == (2.0,)
    @test drop2((1, 2.0)) == ()
    @test init1((1, 2.0)) == (1.0,)
    @test init2((1, 2.0)) == ()

    @test all_of((1, 2.0, 3//1)) == (1, 2.0, 3//1)
    @test drop1((1, 2.0, 3//1)) == (2.0, 3//1)
    @test drop2((1, 2.0, 3//1)) == (3//1,)
    @test init1((1, 2.0, 3//1)) == (1, 2.0)
    @test init2((1, 2.0, 3//1)) == (1,)

    @test all_of((1, 2.0, 3//1, 0x04)) == (1, 2.0, 3//1, 0x04)
    @test drop1((1, 2.0, 3//1, 0x04)) == (2.0, 3//1, 0x04)
    @test drop2((1, 2.0, 3//1, 0x04)) == (3//1, 0x04)
    @test init1((1, 2.0, 3//1, 0x04)) == (1, 2.0, 3//1)
    @test init2((1, 2.0, 3//1, 0x04)) == (1, 2.0)

    @test (1,)[0:-1] == ()
    @test (1,)[1:0] == ()
    @test (1,)[2:1] == ()
    @test (1, 2.0)[0:-1] == ()
    @test (1, 2.0)[1:0] == ()
    @test (1, 2.0)[2:1] == ()
    @test (1, 2.0)[3:2] == ()

    @test_throws BoundsError (1,)[2:2]
    @test_throws BoundsError (1,)[1:2]
    @test_throws BoundsError (1,)[0:1]
    @test_throws BoundsError (1,)[0:0]
    @test_throws BoundsError (1, 2.0)[3:3]
    @test_throws BoundsError (1, 2.0)[1:3]
    @test_throws BoundsError (1, 2.0)[0:2]
    @test_throws BoundsError (1, 2.0)[0:1]
    @test_throws BoundsError (1, 2.0)[0:0]
end

@testset "Base.rest" begin
    four = (1, 2.0, 0x03, 4f0)
    @test Base.rest(four) === four
    @test Base.rest(four, 2) === (2.0, 0x03, 4f0)

    mat = [1 2; 3 4]
    @test Base.rest(mat) == mat[:]
    # the pointer() comparison (a copy was made) is left out
    @test Base.rest(mat, 3) == [2, 4]

    negs = (-v for v in mat)
    @test Base.rest(negs) == negs
    _, state = iterate(negs)
    remaining = Base.rest(negs, state)
    @test remaining isa Iterators.Rest
    @test collect(remaining) == -[3, 2, 4]
end

# issue #38837
convert_each_38837(xs) = map((F, v) -> F(v), (Float32, Float64), xs)

@testset "tuple.jl: map with types as functions (#38837)" begin
    @test convert_each_38837((1, 2)) === (1.0f0, 2.0)
end

@testset "indexing with UnitRanges" begin
    mid(t) = t[3:end-2]
    @test mid(Tuple(1:10)) === Tuple(3:8)
    @test mid((true, 2., 3, 4f0, 0x05, 6, 7.)) === (3, 4f0, 0x05)

    first5(t) = t[Base.OneTo(5)]
    @test first5(Tuple(1:10)) === Tuple(1:5)
    @test first5((true, 2., 3, 4f0, 0x05, 6, 7.)) === (true, 2., 3, 4f0, 0x05)

    @test (t -> t[1:end])(Tuple(1:15)) === Tuple(1:15)
    @test (t -> t[2:end])(Tuple(1:15)) === Tuple(2:15)
    @test (t -> t[3:end])(Tuple(1:15)) === Tuple(3:15)
    @test (t -> t[1:end-1])(Tuple(1:15)) === Tuple(1:14)
    @test (t -> t[1:end-2])(Tuple(1:15)) === Tuple(1:13)
    @test (t -> t[3:2])(Tuple(1:15)) === ()

    @test_throws BoundsError (1, 2)[1:4]
    @test_throws BoundsError (1, 2)[0:2]
    # the OffsetArrays.IdOffsetRange case is left out (needs the test-helper OffsetArrays module)
end

# issue #42457
isequal_42457(a::NTuple{3,Int}, b::Tuple)::Bool = Base.isequal(a, Base.inferencebarrier(b)::Tuple)

@testset "tuple.jl: isequal with an abstract Tuple argument (#42457)" begin
    @test isequal_42457((1, 1, 1), (1, 1, 1))
    # the methods(Base._isequal) and Base.return_types checks are left out (internals)
end

@testset "tuple.jl: setindex on a 16-tuple (#46049)" begin
    @test Base.setindex((1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16), 42, 1) ===
          (42,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)
end

# issue #50562
in_ref_50562(r) = in(:i_backward, r[])
ref_50562 = Ref((:b_back, :foofakgka, :i_backw))

@testset "tuple.jl: `in` on a tuple of symbols in a Ref (#50562)" begin
    in_ref_50562(ref_50562)
    # the @allocated == 0 check is left out
    @test in_ref_50562(ref_50562) === false
end
# issue #47326
split_one_47326(x::Union{Tuple, NamedTuple}) = Base.split_rest(x, 1)

@testset "tuple.jl: split_rest (#47326)" begin
    # upstream checks the inferred types; the same types are checked on the values here
    @test typeof(split_one_47326((1, 2, 3))) == Tuple{Tuple{Int, Int}, Tuple{Int}}
    @test typeof(split_one_47326((; a=1, b=2, c=3))) ==
        Tuple{
            NamedTuple{(:a, :b), Tuple{Int, Int}},
            NamedTuple{(:c,), Tuple{Int}},
        }
end

# the is_foldable effect checks for iterate/eltype are left out (compiler internals)

@testset "tuple.jl: Union{} in Vararg parameters" begin
    @test Tuple{} <: Tuple{Vararg{Union{}}}
    @test Tuple{Int} <: Tuple{Int, Vararg{Union{}}}
    @test_throws ErrorException("Tuple field type cannot be Union{}") Tuple{Int, Vararg{Union{},1}}
    @test_throws ErrorException("Tuple field type cannot be Union{}") Tuple{Vararg{Union{},1}}
end

# testsets "tuple.jl: Vararg normalization", "tuple.jl: Union{} in Vararg of unbound length",
# "tuple.jl: tuple_type_tail of a UnionAll", "tuple.jl: slurping assignment (#47326)": in
# tuple_syntax.jl (they use syntax Zyla does not parse)

@testset "from Pair, issue #52636" begin
    pr = (1 => "2")
    @test (1, "2") == Tuple(pr)
    @test (1, "2") == Tuple{Int,String}(pr)
end

@testset "circshift" begin
    ints = (1, 2, 3, 4, 5)
    mixed = (1, 'a', -7.0, 3)
    chars = ('a', 'b', 'c', 'd')
    @test Base.circshift(ints, 2) == (4, 5, 1, 2, 3)
    @test Base.circshift(mixed, 3) == ('a', -7.0, 3, 1)
    @test Base.circshift(chars, 7) == ('b', 'c', 'd', 'a')
    @test Base.circshift(chars, -1) == ('b', 'c', 'd', 'a')
    @test_throws MethodError circshift(ints, 'a')
    # the infer_return_type checks are left out (inference)
    for n ∈ 0:5
        rng = 1:n
        tup = Tuple(rng)
        for k ∈ -6:6
            @test circshift(rng, k) == collect(circshift(tup, k))
        end
    end
end

# The testsets below use syntax Zyla's parser rejects (the runner parses them one by one).

struct Perm8_19352
    p::NTuple{8,UInt8}
    function checkedperm(q::NTuple{8,UInt8})
        sort(collect(q)) != 0:7 && error("$q is not a permutation of 0:7")
        new(q)
    end
    Perm8_19352(vals::Vararg{Any,8}) = checkedperm(map(UInt8, vals))
end

@testset "conversion and construction" begin
    # plain Tuple / NTuple targets
    @test convert(Tuple, ()) === ()
    @test convert(Tuple, (1, 2)) === (1, 2)
    @test convert(Tuple, (1.0, 2)) === (1.0, 2)
    @test convert(NTuple, ()) === ()
    @test convert(Tuple{}, ()) === ()
    @test convert(Tuple{Vararg{Int}}, ()) === ()
    @test convert(Tuple{Vararg{S}} where S<:Integer, ()) === ()

    @test convert(NTuple{3, Int}, (1, 2, 3)) === (1, 2, 3)
    @test convert(NTuple, (1, 2, 3)) === (1, 2, 3)
    @test convert(Tuple{Vararg{Int}}, (1, 2, 3)) === (1, 2, 3)
    @test convert(Tuple{Int, Vararg{Int}}, (1, 2, 3)) === (1, 2, 3)
    @test convert(Tuple{Vararg{S}} where S<:Integer, (1, 2, 3)) === (1, 2, 3)
    @test convert(Tuple{S, Vararg{S}} where S<:Integer, (1, 2, 3)) === (1, 2, 3)
    @test convert(Tuple{Int, Int, Float64}, (1, 2, 3)) === (1, 2, 3.0)

    mixed = (1.0, 2, 0x3)
    @test convert(Tuple{Float64, Int, UInt8}, mixed) === (1.0, 2, 0x3)
    @test convert(Tuple{Vararg{Real}}, mixed) === (1.0, 2, 0x3)
    @test convert(Tuple{Vararg{Integer}}, mixed) === (1, 2, 0x3)
    @test convert(Tuple{Vararg{Int}}, mixed) === (1, 2, 3)
    @test convert(Tuple{Int, Vararg{Int}}, mixed) === (1, 2, 3)
    @test convert(NTuple{3, Int}, mixed) === (1, 2, 3)
    @test convert(Tuple{Int, Int, Float64}, mixed) === (1, 2, 3.0)

    @test convert(Tuple{Vararg{AbstractFloat}}, (2,)) == (2.0,)
    @test convert(Tuple{Int, Vararg{AbstractFloat}}, (-9.0+0im, 2,)) == (-9, 2.0,)
    let converted = convert(Tuple{Integer, UInt8, UInt16, UInt32, Int, Vararg{Real}},
                            (2.0, 3, 5, 6.0, 42, 3.0+0im))
        @test converted == (2, 0x03, 0x0005, 0x00000006, 42, 3.0)
    end
    for v in (Int(2), UInt8(3), UInt16(5), UInt32(6), 42, 5.0, 3.0+0im)
        @test (v,) == Tuple(v)
    end

    # length mismatches are MethodErrors
    @test_throws MethodError convert(Tuple{Int}, ())
    @test_throws MethodError convert(Tuple{Any}, ())
    @test_throws MethodError convert(Tuple{Int, Vararg{Int}}, ())
    @test_throws MethodError convert(Tuple{}, (1, 2, 3))
    @test_throws MethodError convert(Tuple{}, (1.0, 2, 3))
    @test_throws MethodError convert(NTuple{3, Int}, ())
    @test_throws MethodError convert(NTuple{3, Int}, (1, 2))
    @test_throws MethodError convert(NTuple{3, Int}, (1, 2, 3, 4))
    @test_throws MethodError convert(Tuple{Int, Int, Float64}, ())
    @test_throws MethodError convert(Tuple{Int, Int, Float64}, (1, 2))
    @test_throws MethodError convert(Tuple{Int, Int, Float64}, (1, 2, 3, 4))
    @test_throws MethodError convert(Tuple{Int}, (1.0, 2.0, 3.0))          # #17198
    @test_throws MethodError convert(Tuple{Int, Int, Int}, (1, 2))         # #21238
    @test_throws MethodError convert(NTuple{4}, (1.0, 2.0, 3.0, 4.0, 5.0)) # #26589
    # #44179
    @test_throws TypeError NTuple{3}([1, nothing, nothing])
    @test_throws TypeError NTuple{3}([nothing, 1, nothing])
    # #31824
    @test convert(NTuple, (1, 1.0)) === (1, 1.0)
    let TT = Tuple{Vararg{S}} where S<:Integer, w = (1.0, 2, 0x3)
        @test convert(TT, w) === (1, 2, 0x3)
    end
    let TT = Tuple{S, Vararg{S}} where S<:Integer, w = (1.0, 2, 0x3)
        @test convert(TT, w) === (1, 2, 0x3)
    end
    function typed_ntuple_31824(args...)
        out::NTuple = args
        return out
    end
    @test typed_ntuple_31824(1, 2, 3) === (1, 2, 3)

    # from iterables (PR #15516)
    @test Tuple{Char,Char}("za") === ('z', 'a')
    @test_throws ArgumentError Tuple{Char,Char}("z")

    @test NTuple{20,Int}(Iterators.countfrom(2)) === (2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21)
    @test NTuple{20,Float64}(Iterators.countfrom(2)) ===
          (2.,3.,4.,5.,6.,7.,8.,9.,10.,11.,12.,13.,14.,15.,16.,17.,18.,19.,20.,21.)
    @test_throws ArgumentError NTuple{20,Int}([1, 2])

    @test Tuple{Vararg{Float32}}(Float64[1, 2, 3]) === (1.0f0, 2.0f0, 3.0f0)
    @test Tuple{Int,Vararg{Float32}}(Float64[1, 2, 3]) === (1, 2.0f0, 3.0f0)
    @test Tuple{Int,Vararg{Any}}(Float64[1, 2, 3]) === (1, 2.0, 3.0)
    @test Tuple(fill(1., 5)) === (1.0, 1.0, 1.0, 1.0, 1.0)
    @test_throws MethodError convert(Tuple, fill(1., 5))

    @testset "ambiguity between tuple constructors #20990" begin
        Int16Tuple = Tuple{Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int,Int}
        sixteen_ones = (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
        @test Int16Tuple(sixteen_ones) isa Int16Tuple
    end

    @testset "side effect in tuple constructor #19352" begin
        @test Perm8_19352(0, 2, 4, 6, 1, 3, 5, 7).p[2] == 0x02
    end

    # testset "n_uninitialized" left out: it inspects Core.Compiler / type-name internals.

    @test empty((1, 2.0, "c")) === ()

    # #28915
    @test convert(Union{Tuple{}, Tuple{Int}}, (1,)) === (1,)

    @testset "one-element containers" begin
        boxed = Ref(3)
        @test (3,) === Tuple(boxed)
        zerod = Array{Float64,0}(undef); zerod[] = 3.0
        @test (3.0,) === Tuple(zerod)
    end
end

@testset "elelement/value/key types" begin
    @test eltype((1, 2, 3)) === Int
    @test eltype((1.0, 2.0, 3.0)) <: AbstractFloat
    @test eltype((true, false)) === Bool
    @test eltype((1, 2.0, false)) === typejoin(Int, Float64, Bool)
    @test eltype(()) === Union{}
    @test eltype(Tuple{Int, Float64, Vararg{Bool}}) === typejoin(Int, Float64, Bool)
    @test eltype(Tuple{Int, S, Vararg{Bool}} where S <: AbstractFloat) ===
        typejoin(Int, AbstractFloat, Bool)
    @test eltype(Tuple{Int, Bool, Vararg{S}} where S <: AbstractFloat) ===
        typejoin(Int, AbstractFloat, Bool)
    @test eltype(Union{Tuple{Int, Float64}, Tuple{Vararg{Bool}}}) ===
        typejoin(Int, Float64, Bool)
    @test eltype(Tuple{Int, Missing}) === Union{Missing, Int}
    @test eltype(Tuple{Int, Nothing}) === Union{Nothing, Int}

    @test valtype((1, 2, 3)) === eltype((1, 2, 3))
    @test valtype(Tuple{Int, Missing}) === eltype(Tuple{Int, Missing})
    @test keytype((1, 2, 3)) === Int
    @test keytype(Tuple{Int, Missing}) === Int
end

@testset "mapfoldl" begin
    @test (((1=>2)=>3)=>4) == foldl(=>, (1, 2, 3, 4)) ==
          mapfoldl(identity, =>, (1, 2, 3, 4)) == mapfoldl(abs, =>, (-1, -2, -3, -4))
    @test mapfoldl(abs, =>, (-1, -2, -3, -4), init=-10) == ((((-10=>1)=>2)=>3)=>4)
    @test mapfoldl(abs, =>, (), init=-10) == -10
    @test mapfoldl(abs, Pair{Any,Any}, (-30:-1...,)) == mapfoldl(abs, Pair{Any,Any}, [-30:-1...,])
    @test_throws "reducing over an empty collection" mapfoldl(abs, =>, ())
end

@testset "ntuple" begin
    count_ints(t::NTuple{n, Int}) where {n} = n
    @test count_ints(()) == 0
    @test count_ints((1, 2)) == 2
    @test NTuple <: Tuple
    @test (NTuple{N, Int32} where N) <: Tuple{Vararg{Int32}}
    @test !((NTuple{N, Int32} where N) <: Tuple{Int32, Vararg{Int32}})
    @test Tuple{Vararg{Int32}} <: (NTuple{N, Int32} where N)
    @test Tuple{Int32, Vararg{Int32}} <: (NTuple{N, Int32} where N)
    @test ntuple(abs2, Val(0)) == ()
    @test ntuple(abs2, Val(2)) == (1, 4)
    @test ntuple(abs2, Val(3)) == (1, 4, 9)
    @test ntuple(abs2, Val(4)) == (1, 4, 9, 16)
    @test ntuple(abs2, Val(5)) == (1, 4, 9, 16, 25)
    @test ntuple(abs2, Val(6)) == (1, 4, 9, 16, 25, 36)
    @test_throws ArgumentError ntuple(abs2, Val(-1))   # #21697
    @test_throws TypeError ntuple(identity, Val(1:2))  # #12854

    for len = 0:20
        tt = ntuple(identity, len)
        @test length(tt) == len
        for k = 1:len
            @test tt[k] == k
        end
    end
    @test_throws ArgumentError ntuple(identity, -1)

    # PR #21446
    for len = 0:15
        @test ntuple(identity, Val(len)) == ntuple(identity, len)
    end
    # the infer_return_type check is left out (inference)

    # #55790
    for len in 1:32
        @test typeof(ntuple(identity, UInt64(len))) == NTuple{len, Int}
    end
end

@testset "#21026" begin
    VecTup21026{S} = Tuple{VecElement{S}}
    @test convert(VecTup21026, (1,)) === (VecElement(1),)

    @test convert(Tuple{Complex{S}, Complex{S}} where S<:Real, (1, 2)) ===
        (Complex(1), Complex(2))
    @test convert(Tuple{Complex{S}, Complex{S}} where S<:Real, (1, 2.0)) ===
        (Complex(1), Complex(2.0))
    @test convert(Tuple{Complex, Complex}, (1, 2)) ===
        (Complex(1), Complex(2))
    @test convert(Tuple{Complex, Complex}, (1, 2.0)) ===
        (Complex(1), Complex(2.0))
end

@testset "issue 24707" begin
    @test eltype(Tuple{Vararg{S}} where S<:Integer) >: Integer
end

@testset "tuple.jl: tuple_type_tail of a UnionAll" begin
    # on a non-normalized Vararg tuple type
    @test Base.tuple_type_tail(Tuple{Vararg{S, 3}} where S<:Real) == Tuple{Vararg{S, 2}} where S<:Real
end

# issue #47326
function front_slurp_47326(args...)
    init..., last = args
    init
end
function back_slurp_47326(args...)
    head, rest... = args
    rest
end

@testset "tuple.jl: slurping assignment (#47326)" begin
    @test front_slurp_47326(1, 2, 3) === (1, 2)
    @test back_slurp_47326(1, 2, 3) === (2, 3)
end

@testset "tuple.jl: Union{} in Vararg of unbound length" begin
    @test Tuple{} <: Tuple{Vararg{Union{},N}} where N
    @test !(Tuple{} >: Tuple{Vararg{Union{},N}} where N)
end

@testset "tuple.jl: Vararg normalization" begin
    @test Val{Tuple{S,S,S} where S} === Val{Tuple{Vararg{S,3}} where S}
    @test Val{Tuple{Vararg{S,4}} where S} === Val{Tuple{S,S,S,S} where S}
    @test Val{Tuple{Int64, Vararg{Int32,N}} where N} === Val{Tuple{Int64, Vararg{Int32}}}
    @test Val{Tuple{Int32, Vararg{Int64}}} === Val{Tuple{Int32, Vararg{Int64,N}} where N}
end
