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
