"""Regression tests for iterators, tuples and dictionaries (the conformance files
tests/conformance/julia/{iterators,tuple,dict}.jl): Dict keys compared by `isequal`, the
type `Tuple{}`, `==` of Pairs and Dicts, `filter` of a Dict or Set. Each printed case is
what Julia 1.11 prints for the same code."""

from __future__ import annotations

import pytest
from snippets import printed, session


def out(code: str, capsys: pytest.CaptureFixture) -> str:
    return printed(session(__name__), code, capsys)


CASES = [
    # Dict keys are compared with isequal: -0.0 is not 0.0, every NaN is one key
    ("println(Dict(0.0 => 1) != Dict(-0.0 => 1), isequal(Dict(0.0 => 1), Dict(-0.0 => 1)))",
     "truefalse"),
    ("d = Dict{Float64, Int}(); d[0.0] = 1; d[-0.0] = 2; d[NaN] = 3; d[0/0] = 4; "
     "println(length(d), d[-0.0], d[0.0], d[NaN], haskey(d, -NaN))", "3214true"),
    ("d = Dict{Any, Int}(); d[(0.0, 1)] = 1; d[(-0.0, 1)] = 2; println(length(d), d[(-0.0, 1)])",
     "22"),
    ("d = Dict(-0.0 => 1); println(get(d, 0.0, :none), getkey(d, 0.0, :none), "
     "getkey(d, -0.0, :none))", "nonenone-0.0"),
    ("d = Dict(0.0 => 1, -0.0 => 2); delete!(d, -0.0); println(d)",
     "Dict{Float64, Int64}(0.0 => 1)"),
    ("println(sort(collect(keys(Dict(-0.0 => 1, NaN => 2, 0.0 => 3))), by = string))",
     "[-0.0, 0.0, NaN]"),
    # 1 and 1.0 are one key (isequal, equal hashes); storing it again replaces the key
    ("kd = Dict(); kd[1] = 'a'; kd[1.0] = 'b'; println(kd, only(kd) === Pair{Any,Any}(1.0, 'b'))",
     "Dict{Any, Any}(1.0 => 'b')true"),
    ("println(Dict([1, 2] => 3)[[1.0, 2.0]], haskey(Dict([1, 2] => 3), [1, 2, 3]))", "3false"),
    ("println(Dict(Dict(1 => 2) => 3)[Dict(1 => 2)])", "3"),
    ("println(length(Set([0.0, -0.0, NaN, -NaN])), Set([(0.0,), (-0.0,)]) == Set([(0.0,)]))",
     "3false"),
    # == of Dicts: values compared with ==, so NaN values are unequal and missing is missing
    ("dm = Dict(1 => NaN); println(dm != dm, isequal(dm, dm))", "truetrue"),
    ("println(Dict(1 => missing) == Dict(1 => missing), Dict(1 => [missing]) == "
     "Dict(1 => [missing]), Dict(1 => missing, 2 => 3) == Dict(1 => missing, 2 => 4))",
     "missingmissingfalse"),
    # `in` of a Dict looks for a pair (its value compared with ==); a key alone is an error
    ("md = Dict('a' => 1, 'b' => missing); println(('a' => 1) in md, ('a' => 2) in md, "
     "('c' => 1) in md, ('b' => 1) in md, ('a' => 1.0) in md); try; 'a' in md; catch e; "
     "println(typeof(e)); end", "truefalsefalsemissingtrue\nErrorException"),
    ("d = IdDict(); d[1] = d; d[d] = 2; println(isequal(d, d), isequal(copy(d), d))", "truetrue"),
    # == and isequal of Pairs compare the parts
    ("println((1 => 2.0) == (1.0 => 2), isequal(1 => 2.0, 1.0 => 2), (1 => NaN) == (1 => NaN))",
     "truetruefalse"),
    # an array literal of Pairs promotes them, as Julia's vect
    ("println([1 => 2.0, 1.0 => 2], typeof([1 => 2, 3 => 4.5]), [1 => 2, \"a\" => 3])",
     '[1.0 => 2.0, 1.0 => 2.0]Vector{Pair{Int64, Float64}}'
     'Pair{Any, Int64}[1 => 2, "a" => 3]'),
    # iterating a Dict gives Pair{K, V} of its own key and value types
    ("println(typeof(first(Dict{Any, Any}(1 => 2))), typeof(first(Dict{Int, Real}(1 => 2))))",
     "Pair{Any, Any}Pair{Int64, Real}"),
    # filter of a Dict (Set) is a Dict (Set)
    ("s = filter(isodd, Set([1, 2, 3])); "
     "println(filter(p -> isodd(p.first), Dict(1 => 2, 2 => 3)), typeof(s), s == Set([1, 3]))",
     "Dict{Int64, Int64}(1 => 2)Set{Int64}true"),
    ("d = Dict(0.0 => 1, -0.0 => 2); filter!(p -> p.second == 2, d); println(d)",
     "Dict{Float64, Int64}(-0.0 => 2)"),
    # Tuple{} is the type of () only; the bare Tuple is every tuple type
    ("println(Tuple{} == Tuple, Tuple{} <: Tuple, Tuple <: Tuple{}, typeof(()), "
     "NTuple{0, Int} == Tuple{})", "falsetruefalseTuple{}true"),
    ("f_tt(::Tuple{}) = 0; f_tt(::Tuple) = 1; println(f_tt(()), f_tt((1,)), (1,) isa Tuple{}, "
     "() isa Tuple{})", "01falsetrue"),
    ("try; first(()); catch e; println(e); end", 'ArgumentError("tuple must be non-empty")'),
    ("for f in (() -> Tuple{Union{}}, () -> Tuple{Int, Vararg{Union{}, 1}}); try; f(); "
     "catch e; println(e); end; end; println(Tuple{} <: Tuple{Vararg{Union{}}})",
     'ErrorException("Tuple field type cannot be Union{}")\n'
     'ErrorException("Tuple field type cannot be Union{}")\ntrue'),
    # the iterator types are constructors; size/axes of lazy iterators are Julia's
    ("println(collect(Iterators.Filter(isodd, 1:5)), collect(Base.Flatten(((1, 2), (3,)))), "
     "Base.IteratorSize(Base.Flatten((1, 2))))", "[1, 3, 5][1, 2, 3]Base.HasLength()"),
    ("z = Iterators.zip(1:2, 3:5); println(size(z), axes(z) == (Base.OneTo(2),), length(z))",
     "(2,)true2"),
    ("z = Iterators.zip([1 2; 3 4], [5 6; 7 8]); println(size(z), collect(z))",
     "(2, 2)[(1, 5) (2, 6); (3, 7) (4, 8)]"),
    ("for it in (Iterators.zip([1 2; 3 4], 1:4), Iterators.filter(isodd, 1:3), "
     "Iterators.zip(1:2, Iterators.countfrom(1))); try; size(it); catch e; "
     "println(typeof(e)); end; end", "DimensionMismatch\nMethodError\nMethodError"),
    # Base.isdone looks into Drop and Cycle
    ("it = Iterators.drop(Iterators.Stateful(\"abc\"), 2); a = Base.isdone(it, nothing); "
     "iterate(it); println(a, Base.isdone(it, nothing), Base.isdone(Iterators.cycle(0:3)), "
     "Base.isdone(Iterators.cycle(0:3), 1))", "falsetruemissingfalse"),
    ("println(only('a') === 'a', only(Ref([1, 2])) == [1, 2])", "truetrue"),
    # nested take/drop fold into one (=== compares a Take/Drop by its iterator and count)
    ("src = [1, 2, 3]; T, D = Iterators.take, Iterators.drop; println(T(T(src, 2), 3) === "
     "T(src, 2), D(D(src, 1), 1) === D(src, 2), T(D(src, 1), 1) === D(T(src, 2), 1), "
     "T(D(src, 3), 0) === D(T(src, 2), 3), T(src, 1) === T([1, 2, 3], 1), "
     "collect(D(T(D(src, 1), 2), 1)))", "truetruetruetruefalse[3]"),
    # counts of any integer type; Iterators.accumulate's reduce_first and init
    ("println(length(Iterators.take(1:6, UInt8(3))), length(Iterators.drop(1:6, Int128(3))), "
     "collect(Iterators.partition(1:5, UInt16(5)))[1] == 1:5); try; Iterators.take(1:3, -1); "
     "catch e; "
     "println(e); end", '33true\nArgumentError("Take length must be non-negative")'),
    ("println(collect(Iterators.accumulate(+, [true, true, false])), "
     "collect(Iterators.accumulate(+, [true]; init = 10.0)), "
     "collect(Iterators.accumulate(+, [1, 2, 3])))", "[1, 2, 2][11.0][1, 3, 6]"),
]


@pytest.mark.parametrize(("code", "expected"), CASES)
def test_cases(code: str, expected: str, capsys: pytest.CaptureFixture) -> None:
    assert out(code, capsys) == expected


CASES_ITER_TUPLE = [
    # Base has no arithmetic on tuples: a MethodError, not a vector (the dotted operators
    # broadcast over them; max and min choose one tuple by isless)
    ("t = (1, 2); for f in (() -> t + (3, 4), () -> 2 * t, () -> -t, () -> abs(t), "
     "() -> sum(((1, 2), (3, 4))), () -> t / 2); try; f(); catch e; print(typeof(e), ' '); "
     "end; end", " ".join(["MethodError"] * 6)),
    ("println((1, 2) .+ (3, 4), 2 .* (1, 2), max((1, 2), (3, 0)), min((1, 2), (1, 3)))",
     "(4, 6)(2, 4)(3, 0)(1, 2)"),
    # countfrom's start has the type of start + step; the step defaults to oneunit(start)
    ("println(collect(Iterators.take(Iterators.countfrom(1, 0.5), 3)), "
     "first(Iterators.countfrom(Int[0, 0], [1.0, 2.0])) isa Vector{Float64}, "
     "eltype(Iterators.countfrom(0x01)), collect(Iterators.take(Iterators.countfrom(1//2), 2)))",
     "[1.0, 1.5, 2.0]trueUInt8Rational{Int64}[1//2, 3//2]"),
    ("s = \"hello\"; println(Iterators.rest(Iterators.rest(s, 4), 2) == Iterators.rest(s, 2))",
     "true"),
    ("println(intersect(1:3, 2:4), intersect(1:3, 5:9), intersect(1:3, 2:4, 3:7), "
     "intersect(Iterators.product(1:3, 4:6), Iterators.product(2:4, 3:5)) == "
     "Iterators.ProductIterator((2:3, 4:5)))", "2:35:43:3true"),
    # zip takes from a Stateful only what it zips, after the other iterators
    ("s = Iterators.Stateful(\"a\"); println(isempty(collect(zip(s, \"\"))), isempty(s)); "
     "t = Iterators.Stateful(\"aa\"); println(length(collect(zip(\"b\", t))), isempty(t)); "
     "z = zip(Iterators.Stateful(\"ab\"), Iterators.Stateful(\"b\")); v, st = iterate(z); "
     "println(v, Base.isdone(z, st), eltype(zip(1:2, Iterators.Stateful([\"a\", \"b\"]))))",
     "truefalse\n1false\n('a', 'b')trueTuple{Int64, String}"),
    ("println(typeof(collect(zip((1, 2), (3, 4)))), "
     "length(zip(1:3, Iterators.product(1:7, Iterators.cycle(1:3))))); "
     "try; length(zip()); catch e; println(typeof(e)); end", "Vector{Tuple{Int64, Int64}}3\n"
     "ArgumentError"),
    # a number or a Char is a collection of itself, of no dimensions
    ("println(collect(3), typeof(collect('x')), collect(Iterators.reverse('y')))",
     "fill(3)Array{Char, 0}['y']"),
    ("r = Iterators.repeated(2.5); t = (1, 2); println(Iterators.reverse(r) === r, last(r), "
     "Iterators.reverse(Iterators.reverse(t)) === t, "
     "collect(Iterators.take(Iterators.reverse(Iterators.cycle(1:3)), 4)))",
     "true2.5true[3, 2, 1, 3]"),
    ("println(sum((0xe1, 0x1f); init=0x00), typeof(sum([0xe1, 0x1f]; init=0x00)), "
     "prod([2, 3]; init=10), sum([1 2; 3 4]; dims=1, init=10))", "256UInt6460[14 16]"),
    ("println(findnext(isequal(1), (1, 2), big(1)) isa Int, findprev(isequal(1), (1, 1), UInt(1)))",
     "true1"),
    ("println(Base.split_rest((1, 2, 3), 1), typeof(Base.split_rest((a = 1, b = 2), 1)[2]) == "
     "NamedTuple{(:b,), Tuple{Int}}, Base.inferencebarrier(3))", "((1, 2), (3,))true3"),
    # NTuple{N, T}: N elements, a type variable N bound by the tuple's length
    ("struct KeysN{N}; k::NTuple{N, Int}; end; ntup_len(t::NTuple{N, Int}) where {N} = N; "
     "println(KeysN((1, 2)), (1, 2) isa NTuple{3, Int}, (1, 2, 3) isa NTuple{3, Int}, "
     "ntup_len((4, 5, 6)))", "KeysN{2}((1, 2))falsetrue3"),
    # arithmetic propagates missing; tuples of one length join elementwise in map's eltype
    ("println(1 + missing, missing * 2.0, -missing, 2 ^ missing, "
     "typeof(map(p -> (p[1], p[2]), [(1, nothing), (1, 2)])))",
     "missingmissingmissingmissingVector{Tuple{Int64, Any}}"),
    # slurping in a destructuring assignment, bare or in parentheses (Base.rest, split_rest)
    ("a, b... = (1, 2, 3); c..., d = (1, 2, 3); (p, q..., r) = [1, 2, 3, 4]; "
     "h, t... = \"abc\"; u, w... = (a = 1, b = 2, c = 3); println(a, b, c, d, p, q, r, h, t, w)",
     "1(2, 3)(1, 2)31[2, 3]4abc(b = 2, c = 3)"),
    ("function front_slurp(args...); init..., last = args; init; end; "
     "function back_slurp(args...); head, rest... = args; rest; end; "
     "println(front_slurp(1, 2, 3) === (1, 2), back_slurp(1, 2, 3) === (2, 3), back_slurp(1))",
     "truetrue()"),
    # a range type's eltype is its elements' (a flatten of ranges has it); Base's length of a
    # Flatten of iterates of no constant length is an ArgumentError
    ("println(eltype(UnitRange{Int8}), eltype(Iterators.flatten(UnitRange{Int8}[1:2, 3:4])), "
     "length(Iterators.flatten(zip(1:3, 4:6)))); try; length(Iterators.flatten([[1], [1]])); "
     "catch e; println(typeof(e)); end", "Int8Int86\nArgumentError"),
    # a Generator's eltype is unknown, of the value and of its type; a TakeWhile's (DropWhile's)
    # type names what it wraps, whose IteratorEltype it has
    ("g = Iterators.map(identity, 1:10); tw = Iterators.takewhile(<(4), g); "
     "println(Base.IteratorEltype(typeof(g)), Base.IteratorEltype(tw), "
     "Base.IteratorEltype(typeof(Iterators.dropwhile(<(4), g))), "
     "Base.IteratorEltype(typeof(Iterators.takewhile(<(4), 1:10))), tw isa Iterators.TakeWhile)",
     "Base.EltypeUnknown()Base.EltypeUnknown()Base.EltypeUnknown()Base.HasEltype()true"),
    # a product with an infinite iterator is lazy, enumerated lazily; a product of more
    # elements than an Int counts is an OverflowError
    ("p = Iterators.product(Iterators.countfrom(1), 1:2); for (k, el) in enumerate(p); "
     "print(el); k == 3 && break; end; println(); try; Iterators.product(1:1e10, 1:1e10); "
     "catch e; println(typeof(e)); end", "(1, 1)(2, 1)(3, 1)\nOverflowError"),
    # a vector literal of tuples promotes position by position, as Julia's vect
    ("v = [(1, 2.0), (1, 2)]; println(typeof(v), v[2] === (1, 2.0), "
     "typeof([(1, nothing), (1, 2)]), [(1, \"a\"), (2.0, :b)])",
     "Vector{Tuple{Int64, Float64}}trueVector{Tuple{Int64, Union{Nothing, Int64}}}"
     "Tuple{Float64, Any}[(1.0, \"a\"), (2.0, :b)]"),
    ("println(Base.tuple_type_tail(Tuple{Vararg{Int}}) == Tuple{Vararg{Int}}, "
     "Base.tuple_type_tail(Tuple{Int, Float64}), Base.tuple_type_tail(Tuple{Vararg{Int, 3}}))",
     "trueTuple{Float64}Tuple{Int64, Int64}"),
    # a one-element tuple as a loop's target
    ("for (z,) in zip(Iterators.product()); println(z); end; println([a for (a,) in [(3,)]])",
     "()\n[3]"),
    # `@test_throws "text" ex`: the error's message contains the text
    ("using Test; @test_throws \"empty collection\" mapfoldl(abs, =>, ()); println(\"ok\"); "
     "try; @test_throws \"nope\" error(\"boom\"); catch e; println(typeof(e)); end",
     "ok\nTest Failed at <python>:1\n  Expression: error(\"boom\")\n"
     "    Thrown: ErrorException: boom\nTest.FallbackTestSetException"),
    # a method of another name in a struct body is a global function that may call `new`
    # (tuple.jl's BitPerm_19352); the struct then has no default constructor
    ("struct Perm3\n p::NTuple{3,UInt8}\n function checked3(q::NTuple{3,UInt8})\n"
     "  sort(collect(q)) != 0:2 && error(\"not a permutation\")\n  new(q)\n end\n"
     " Perm3(vals...) = checked3(map(UInt8, vals))\nend\n"
     "println(Perm3(2, 0, 1).p, checked3((0x01, 0x00, 0x02)).p)\n"
     "try; Perm3(1, 1, 1); catch e; println(e); end",
     "(0x02, 0x00, 0x01)(0x01, 0x00, 0x02)\nErrorException(\"not a permutation\")"),
]


@pytest.mark.parametrize(("code", "expected"), CASES_ITER_TUPLE)
def test_iterators_and_tuples(code: str, expected: str, capsys: pytest.CaptureFixture) -> None:
    assert out(code, capsys) == expected


def test_generators_are_lazy_and_lines_are_read_as_iterated(capsys: pytest.CaptureFixture) -> None:
    """A generator expression is a lazy Base.Generator (it was an eager Vector): it runs
    its body as it is iterated, so a Stateful it maps is taken once and `all`/`any` stop
    early; it is no array (no indexing; findmax gives the element's index, not the
    Generator). eachline/readline/seek read an IOBuffer line by line."""
    z = session(__name__)
    was, z.rt.compile_mode = z.rt.compile_mode, "never"
    try:
        got = printed(z, """
            it = (v + 1 for v in Base.Stateful([1, 2, 3]))
            c = Int[]; all((push!(c, t); t < 2) for t in 1:9)
            print(collect(it), isempty(collect(it)), c, " ")
            print(Base.IteratorEltype(x for x in 1:2), findmax(x^2 for x in [1, 3, 2]), " ")
            print(sqrt.(x for x in [4, 9]), size((x for x in 1:3), 1), collect(c for c in "ab"))
            print(" ")
            kd = Dict(1 => 2)
            print(first(k for k in keys(kd)), Set(string(k) for k in keys(kd)), " ")
            print(indexin((2x + 1 for x in 0:3), [5, 4, 3, 5, 6]), " ")
            print(only(k for k in 1:10 if k < 2), cumsum(v^2 for v in 1:3), " ")
            try; (x for x in 1:3)[1]; catch e; print(typeof(e), " "); end
            try; sum(t for t in Int[]); catch e; print(typeof(e), " "); end
            io = IOBuffer("ab\\ncd\\r\\n")
            print(collect(eachline(io)), eof(io), " ")
            seek(io, 0); print(repr(readline(io; keep=true)))
            w = IOBuffer(); write(w, "x\ny"); print(repr(readline(w)), eof(w))
            seek(w, 0); print(repr(readline(w)), repr(String(take!(w))))
            lines = eachline(IOBuffer("foo\\n")); gen = (l for l in lines)
            print(!isempty(gen), !Base.isdone(gen), collect(gen))
            """, capsys)
    finally:
        z.rt.compile_mode = was
    assert got == ("[2, 3, 4]true[1, 2] Base.EltypeUnknown()(9, 2) [2.0, 3.0]3['a', 'b'] "
                   "1Set([\"1\"]) Union{Nothing, Int64}[nothing, 3, 1, nothing] "
                   "1[1, 5, 14] MethodError "
                   "ArgumentError [\"ab\", \"cd\"]true \"ab\\n\"\"\"true\"x\"\"x\\ny\""
                   "truetrue[\"foo\"]")


def test_where_types_tuple_conversion_and_ntuple(capsys: pytest.CaptureFixture) -> None:
    """`T where S` is a type value (binding tighter than `==` and `<:`, as in Julia), with
    Vararg normalization, aliases `A{S} = ...` and `where` in its printed name; bare
    NTuple is the homogeneous tuples; convert and `Tuple{...}(itr)` convert each element
    (they returned (1.0, 2, 0x03) for Tuple{Vararg{Integer}}, and Float64s for Float32);
    eltype is promote_typejoin; ntuple gives Int indices; `xs::Vararg{T, N}` takes N
    arguments; a local `:` is what `a:b` calls."""
    got = out("""
        print(Tuple{} <: Tuple{Vararg{Union{},N}} where N,
              Base.tuple_type_tail(Tuple{Vararg{S, 3}} where S<:Real) ==
                  Tuple{Vararg{S, 2}} where S<:Real,
              Val{Tuple{Int64, Vararg{Int32,N}} where N} === Val{Tuple{Int64, Vararg{Int32}}},
              (Tuple{S,S,S} where S) == (Tuple{Vararg{S,3}} where S),
              (NTuple{N, Int32} where N) <: Tuple{Vararg{Int32}},
              (NTuple{N, Int32} where N) <: Tuple{Int32, Vararg{Int32}}, Integer >: Int, " ")
        try; (1 + 1) where T; catch e; print(typeof(e), " "); end
        P2{S} = Tuple{S, Vector{S}}; print(P2{Int}, (1, [2]) isa P2, " ", P2, " ")
        f(x::NTuple) = 1; f(x) = 2; print(f((1, 2)), f((1, 2.0)), NTuple <: Tuple, " ")
        print(convert(Tuple{Vararg{Integer}}, (1.0, 2, 0x3)), convert(Integer, 1.0),
              convert(AbstractFloat, 2), Tuple{Int,Vararg{Float32}}(Float64[1, 2, 3]), " ")
        try; convert(Tuple, [1.0]); catch e; print(typeof(e), " "); end
        try; NTuple{3}([1, nothing, nothing]); catch e; print(typeof(e), " "); end
        print(NTuple{3,Int}(Iterators.countfrom(2)), eltype((1, missing)),
              eltype(Tuple{Int, S, Vararg{Bool}} where S <: AbstractFloat), " ")
        print(ntuple(identity, UInt64(3)), ntuple(abs2, Val(3)), Tuple(Ref(3)), " ")
        h(v::Vararg{Any,2}) = v; h(a) = 1; print(h(1, 2), h(3), " ")
        try; h(1, 2, 3); catch e; print(typeof(e), " "); end
        let; c(t::NTuple{n, Int}) where {n} = n; print(c((1, 2)), " "); end
        let m = [1.0 2.0; 3.0 4.0]; (:)(a, b) = m; print(size(Float64[i for i = 1:2])); end
        print(Base.:(:)(1, 3), size(Float64[i for i in [1 2; 3 4]]))
        """, capsys)
    assert got == ("truetruetruetruetruefalsetrue TypeError "
                   "Tuple{Int64, Vector{Int64}}true Tuple{S, Vector{S}} where S 12true "
                   "(1, 2, 0x03)12.0(1, 2.0f0, 3.0f0) MethodError TypeError "
                   "(2, 3, 4)Union{Missing, Int64}Real (1, 2, 3)(1, 4, 9)(3,) "
                   "(1, 2)1 MethodError 2 (2, 2)1:3(2, 2)")
