"""Base's collection functions: the in-place mutators (lang/core/builtins_mutate.py), the
Dict helpers and IdDict (lang/core/builtins_dict.py), iterator traits, Iterators.peel/rest,
Base.Generator and `missing` (lang/core/stdlib/collections.jl, lang/core/builtins_iter.py).
Each printed case is what Julia 1.11 prints for the same code."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from snippets import printed, session

from grammar.errors import ZylaError
from lang.door.api import Zyla


def out(code: str, capsys: pytest.CaptureFixture) -> str:
    return printed(session(__name__), code, capsys)


CASES = [
    # vectors mutated in place: every alias sees the change
    ("v = [1, 2, 3]; w = v; fill!(v, 7); println(w)", "[7, 7, 7]"),
    ("println(fill!(Float64[1.0], -0.0)[1] === -0.0)", "true"),
    ("v = [1, 2, 3, 4, 5]; w = v; deleteat!(v, 2:3); println(w, length(v))", "[1, 4, 5]3"),
    ("println(deleteat!([1, 2, 3, 4], [1, 3]), deleteat!([1, 2, 3], [true, false, true]))",
     "[2, 4][2]"),
    ("println(insert!([1, 2], 2, 9), pushfirst!([1, 2], 7, 8), prepend!([1], [2, 3]))",
     "[1, 9, 2][7, 8, 1, 2][2, 3, 1]"),
    ("v = [4, 5, 6]; x = popfirst!(v); println(x, v)", "4[5, 6]"),
    ("v = [1, 2, 3, 4, 5]; r = splice!(v, 2:3, [9, 9, 9]); println(r, v)",
     "[2, 3][1, 9, 9, 9, 4, 5]"),
    ("v = [1, 2, 3]; r = splice!(v, 2); println(r, v)", "2[1, 3]"),
    ("v = [1, 2, 3]; println(splice!(v, 2:1, [7]), v)", "Int64[][1, 7, 2, 3]"),
    ("v = [1, 2, 3]; empty!(v); println(v, length(v))", "Int64[]0"),
    ("println(resize!([1, 2, 3], 2), length(resize!([1], 4)))", "[1, 2]4"),
    ("v = collect(1:10); filter!(isodd, v); println(v)", "[1, 3, 5, 7, 9]"),
    ("a = [1.0 2.0; 3.0 4.0]; map!(x -> 2x, a, a); println(a)", "[2.0 4.0; 6.0 8.0]"),
    ("d = zeros(3); map!(+, d, [1, 2, 3], [10, 20, 30]); println(d)", "[11.0, 22.0, 33.0]"),
    ("a = zeros(2, 2); broadcast!(+, a, [1, 2], [10 20]); println(a)", "[11.0 21.0; 12.0 22.0]"),
    ("a = [1, 2, 3]; b = a; copy!(a, [4, 5]); println(b)", "[4, 5]"),
    ("v = [1, 2]; println(sizehint!(v, 100) === v)", "true"),
    # Dicts
    ("d = Dict(1 => 2.0); println(keytype(d), ' ', valtype(d), ' ', keytype(Dict{String,Int}))",
     "Int64 Float64 String"),
    ("d = Dict(1 => 2, 3 => 6); println(getkey(d, 1, 7), getkey(d, 4, 6), getkey(d, \"1\", 8))",
     "168"),
    ("d = Dict(1 => 2, 3 => 4); println(pop!(d, 1), d, pop!(d, 9, :none))",
     "2Dict{Int64, Int64}(3 => 4)none"),
    ("ma = Dict(\"A\" => 1, \"B\" => 2); mb = Dict(\"B\" => 3.0, \"C\" => 4.0); "
     "println(mergewith(+, ma, mb) == Dict(\"A\" => 1, \"B\" => 5, \"C\" => 4), ' ', "
     "typeof(merge(ma, mb)))", "true Dict{String, Float64}"),
    ("ma = Dict(\"A\" => 1); merge!(ma, Dict(\"B\" => 3)); mergewith!(+, ma, Dict(\"B\" => 1)); "
     "println(ma == Dict(\"A\" => 1, \"B\" => 4))", "true"),
    ("d = Dict(k => k^2 for k in 1:6); filter!(p -> iseven(p.first), d); "
     "println(sort(collect(keys(d))))", "[2, 4, 6]"),
    ("d = Dict(1 => 2); println(get(() -> 99, d, 5), get(() -> 99, d, 1))", "992"),
    ("println(typeof(Dict(1 => 1, 2 => 2.0)), ' ', typeof(empty(Dict(1 => 'a'))))",
     "Dict{Int64, Real} Dict{Int64, Char}"),
    # IdDict: keys compared with ===
    ("println(IdDict(), ' ', length(IdDict(1 => 2, 1.0 => 3)), ' ', "
     "typeof(IdDict(1 => 1, :a => 2)))", "IdDict{Any, Any}() 2 IdDict{Any, Int64}"),
    ("a = [1]; d = IdDict(a => 1); println(haskey(d, a), haskey(d, [1]), d[a], eltype(d))",
     "truefalse1Pair{Vector{Int64}, Int64}"),
    ("g = IdDict(k => k for k = 1:3); println(g == IdDict(1 => 1, 2 => 2, 3 => 3), ' ', "
     "pop!(g, 1), ' ', g)", "true 1 IdDict{Int64, Int64}(2 => 2, 3 => 3)"),
    # searching
    ("v = [0, 1, 2, 3, 0, 1, 2, 3]; println(findnext(!iszero, v, 5), findprev(isequal(1), v, 8),"
     " findnext(isequal(5), v, 4), findprev(!iszero, v, 1))", "66nothingnothing"),
    ("println(indexin([1, 3, 5, 7], [5, 4, 3]) == [nothing, 3, 1, nothing])", "true"),
    # iterator traits
    ("println(Base.IteratorSize(Any), Base.IteratorSize([1, 2]), Base.IteratorSize(zeros(2, 2)), "
     "Base.IteratorSize((1, 2)), Base.IteratorSize(1))",
     "Base.SizeUnknown()Base.HasShape{1}()Base.HasShape{2}()Base.HasLength()Base.HasShape{0}()"),
    ("using Base.Iterators; println(Base.IteratorSize(Iterators.filter(iseven, 1:3)), "
     "Base.IteratorSize(cycle(1:2)), Base.IteratorSize(take(1:5, 2)), "
     "Base.IteratorSize(zip(1:5, repeated(0))))",
     "Base.SizeUnknown()Base.IsInfinite()Base.HasLength()Base.HasLength()"),
    ("println(Base.IteratorEltype(1:3), Base.IteratorEltype(Iterators.map(identity, 1:3)), "
     "eltype(Iterators.repeated(0)), eltype(Iterators.take(1:4, 2)))",
     "Base.HasEltype()Base.EltypeUnknown()Int64Int64"),
    ("struct Ones end; Base.IteratorSize(::Type{Ones}) = Base.IsInfinite(); "
     "println(Base.IteratorSize(Ones()))", "Base.IsInfinite()"),
    # peel, rest, Generator, isdone
    ("println(Iterators.peel(1:3), ' ', Iterators.peel(Int[]) === nothing)",
     "(1, Base.Iterators.Rest{UnitRange{Int64}, Int64}(1:3, 2)) true"),
    ("a, r = Iterators.peel(Iterators.countfrom(5)); println(a, collect(Iterators.take(r, 2)))",
     "5[6, 7]"),
    ("g = Iterators.map(x -> 2x, 1:3); println(g isa Base.Generator, collect(g), sum(g), g.iter)",
     "true[2, 4, 6]121:3"),
    ("println(collect(Iterators.take(Iterators.map(x -> x^2, Iterators.countfrom(1)), 3)))",
     "[1, 4, 9]"),
    ("println(Base.isdone(1:3) === missing)", "true"),
    # missing
    ("println(missing, ' ', ismissing(missing), ' ', coalesce(missing, 2), ' ', "
     "collect(skipmissing([1, missing, 3])), ' ', isequal(missing, missing))",
     "missing true 2 [1, 3] true"),
    # findall/findfirst beyond vectors
    ("M = [1 2 0; 3 4 0]; println(findall(isodd, M), ' ', findall(isodd, Int[]), ' ', "
     "findall(isequal(1), Dict(:a => 1, :b => 2)), ' ', findfirst(Dict(1 => false, 2 => true)))",
     "CartesianIndex{2}[CartesianIndex(1, 1), CartesianIndex(2, 1)] Int64[] [:a] 2"),
    # CartesianIndices
    ("c = CartesianIndices((2, 3)); println(c, ' ', size(c), ' ', c[3], ' ', c[2, 3], ' ', "
     "collect(CartesianIndices((1, 2))))",
     "CartesianIndices((2, 3)) (2, 3) CartesianIndex(1, 2) CartesianIndex(2, 3) "
     "CartesianIndex{2}[CartesianIndex(1, 1) CartesianIndex(1, 2)]"),
    ("B = zeros(Int, 2, 3); for I in CartesianIndices(B); B[I] = I.I[1] + 10 * I.I[2]; end; "
     "println(B)", "[11 21 31; 12 22 32]"),
    # lexicographic order of vectors, sortslices, mapslices, Base.rest
    ("println(cmp([1, 2], [1, 1]), cmp([1], [1, 1]), isless([1, 2], [1, 3]), cmp([1.0], [1]))",
     "1-1true0"),
    ("sq = [3 1; 1 2; 2 9]; println(sortslices(sq, dims=1), sortslices(sq, dims=2, rev=true))",
     "[1 2; 2 9; 3 1][3 1; 1 2; 2 9]"),
    ("src = fill(1, 3, 4); m = mapslices(s -> fill!(s, 0), src, dims=2); println(m == zeros(3, 4),"
     " src == fill(1, 3, 4), mapslices(sum, [1 2; 3 4], dims=1), mapslices(sum, [1 2; 3 4], "
     "dims=2))", "truetrue[4 6][3; 7;;]"),
    ("println(Iterators.filter(isodd, 1:3) isa Iterators.Filter, "
     "Iterators.take(1:3, 2) isa Iterators.Filter)", "truefalse"),
    ("println(missing == 1, ' ', 1 != missing, ' ', missing < 1, ' ', missing == missing, ' ', "
     "1 == 1, ' ', isless(1, missing))", "missing missing missing missing true true"),
    # isempty of lazy iterators and iterable structs iterates them
    ("using Base.Iterators; println(isempty(take(0:2:8, 0)), isempty(drop(0:2:10, 100)), "
     "isempty(Iterators.filter(iseven, [1, 3])), isempty(take(1:3, 1)), isempty(countfrom(1)))",
     "truetruetruefalsefalse"),
    # BitVector and BitArray name Bool arrays; Vector{T}(tuple) collects
    ("println(BitVector((true, false)), trues(2) isa BitVector, falses(2, 2) isa BitMatrix, "
     "Vector{Int}((1, 2)))", "Bool[1, 0]truetrue[1, 2]"),
    # a caught BoundsError holds what was indexed and the indices (they were `nothing`)
    ("v = [1.5, 2.5]; e = try v[0] catch err; err end; println(e, e.a === v, "
     "try [1 2; 3 4][3, 1] catch err; err.i end, try (1, 2)[5] catch err; err end, "
     "try \"ab\"[5] catch err; err end, sprint(showerror, e))",
     'BoundsError([1.5, 2.5], (0,))true(3, 1)BoundsError((1, 2), 5)BoundsError("ab", 5)'
     "BoundsError: attempt to access 2-element Vector{Float64} at index [0]"),
    # a typed Dict's constructor converts the values as `d[k] = v` does, whatever its
    # key type (a String-keyed one kept the Int 1 in a Dict{String,Float64})
    ('d = Dict{String,Float64}("a" => 1, "b" => true); println(d["a"], d["b"], '
     'Dict{String,Int}(["a" => 2.0])["a"], Dict{Symbol,Float64}(:a => 3)[:a])', "1.01.023.0"),
]


@pytest.mark.parametrize("code, want", CASES, ids=[c[0][:40] for c in CASES])
def test_prints_what_julia_prints(code: str, want: str, capsys: pytest.CaptureFixture) -> None:
    assert out(code.replace("' '", '" "'), capsys) == want


def test_base_rest_of_tuples_and_arrays(capsys: pytest.CaptureFixture) -> None:
    """Base.rest (a fresh runtime: after `using Base.Iterators`, Zyla's `Base.rest` finds
    Iterators.rest)."""
    Zyla().eval("t = (1, 2.0, 0x03); println(Base.rest(t, 2) === (2.0, 0x03), "
                "Base.rest([1 2; 3 4], 3), Base.rest(t) === t)")
    assert capsys.readouterr().out.strip() == "true[2, 4]true"


ERRORS = [
    ("deleteat!([1, 2, 3], 5)", "BoundsError"),
    ("deleteat!([1, 2, 3], [3, 1])", "ArgumentError"),
    ("insert!([1, 2], 4, 0)", "BoundsError"),
    ("popfirst!(Int[])", "ArgumentError"),
    ("push!([1, 2], 1.5); fill!([1, 2], 1.5)", "InexactError"),
    ("copy!(zeros(2, 2), zeros(3, 3))", "ArgumentError"),
    ("map!(x -> x, zeros(1), [1, 2, 3])", "DimensionMismatch"),
    ("filter!(x -> 1, [1, 2])", "TypeError"),
    ("pop!(Dict(1 => 2), 5)", "KeyError"),
    ("keytype(Dict)", "MethodError"),
    ("missing + \"a\"", "MethodError"),  # (missing + 1 is missing, as in Julia)
    ("collect(Iterators.rest(Iterators.countfrom(1), 5))", "MethodError"),
    ("d = IdDict{Int,Int}(); d[:a] = 1", "TypeError"),
    ("Vector{Int}((1.5, 2))", "InexactError"),
    ('Dict{String,Int}("a" => 1.5)', "InexactError"),
    ('Dict{String,Float64}("a" => "x")', "MethodError"),
]


@pytest.mark.parametrize("code, kind", ERRORS, ids=[c[0][:40] for c in ERRORS])
def test_bad_input_is_a_julia_error(code: str, kind: str) -> None:
    with pytest.raises(ZylaError) as e:
        session(__name__).eval(code)
    assert e.value.kind == kind


def test_mutators_in_gradient_are_an_error_not_a_wrong_gradient() -> None:
    """Reverse mode would read the values a mutation overwrote: it refuses instead."""
    z = Zyla()
    z.eval("function fz(x)\n v = [x, 2x]\n fill!(v, 0.0)\n sum(v)\nend")
    for code in ("gradient(fz, 3.0)", "jvp(fz, 3.0, 1.0)"):
        with pytest.raises(ZylaError) as e:
            z.eval(code)
        assert e.value.kind == "AD error" and "fill!" in str(e.value)
    # a mutation of a Dict is no array write: the gradient of the rest is exact
    z.eval("gd(x) = (d = Dict(1 => 2); empty!(d); x^2)")
    assert z.eval("gradient(gd, 3.0)") == (6.0,)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=12), st.data())
def test_deleteat_and_insert_agree_with_list_operations(xs: list[int], data: st.DataObject) -> None:
    z = session(__name__)
    v = z.eval(f"v = Int[{', '.join(map(str, xs))}]")
    assert list(v) == xs
    if xs:
        i = data.draw(st.integers(1, len(xs)))
        got = z.eval(f"deleteat!(v, {i}); v")
        assert list(got) == xs[:i - 1] + xs[i:]
        xs = xs[:i - 1] + xs[i:]
    j = data.draw(st.integers(1, len(xs) + 1))
    got = z.eval(f"insert!(v, {j}, 99); v")
    assert list(got) == xs[:j - 1] + [99] + xs[j - 1:]
    keep = z.eval("filter!(iseven, v); v")
    assert list(keep) == [x for x in xs[:j - 1] + [99] + xs[j - 1:] if x % 2 == 0]
