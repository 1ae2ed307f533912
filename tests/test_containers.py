"""Containers: arrays that share memory, growing arrays, copies, and Set keys.

A host vector grows in place (numpy's resize), which moves its memory: an array that is
a view of it (`reshape`, `v'`) would then read freed memory. Julia refuses to resize an
array whose data is shared ("cannot resize array with shared data"); so does Zyla, for
the views it makes. `vec` of a vector is the vector itself and `permutedims` makes a new
array, as in Julia; `copy` of a Dict, an IdDict or a Set is a new container; a Set's
elements are compared by isequal (NaN is NaN, -0.0 is not 0.0).
"""

from __future__ import annotations

import pytest

from grammar.errors import ZylaError
from lang.core.refusals import OffloadError
from lang.core.structure import MAX_OBJECT_ELEMENTS, split
from lang.door.api import Zyla


@pytest.mark.parametrize("make", ["reshape(v, 3, 1)", "v'", "transpose(v)"])
def test_a_vector_with_a_view_is_not_resized(make: str) -> None:
    z = Zyla()
    z.rt.compile_mode = "never"
    z.eval(f"v = [1.0, 2.0, 3.0]\nw = {make}")
    with pytest.raises(ZylaError) as e:
        z.eval("push!(v, 4.0)")
    assert "cannot resize array with shared data" in str(e.value)
    assert z.eval("(length(v), sum(w))") == (3, 6.0)


def test_growth_without_views_and_views_that_copy() -> None:
    z = Zyla()
    z.rt.compile_mode = "never"
    got = z.eval("""
v = [1.0, 2.0]
u = vec(v)
for i in 1:1000
    push!(v, i)
end
a = [1.0 2.0; 3.0 4.0]
b = permutedims(a)
b[1, 2] = 100.0
c = [1.0, 2.0]
d = permutedims(c)
d[1] = 50.0
(u === v, length(u), sum(v), a, c)
""")
    assert got[0] is True and got[1] == 1002 and got[2] == 3.0 + 500500.0
    assert got[3].tolist() == [[1.0, 2.0], [3.0, 4.0]] and got[4].tolist() == [1.0, 2.0]


def test_pushing_structs_and_iterating_snapshots() -> None:
    """push! of structs into a typed vector, of numbers into Float64/Int64/Bool vectors,
    and a conversion push! that must check (an Int64 vector takes 2.0, not 2.5)."""
    z = Zyla()
    z.rt.compile_mode = "never"
    z.eval("struct Pt\n  x::Float64\nend\nps = Pt[]\nfor i in 1:5\n  push!(ps, Pt(i))\nend")
    assert z.eval("(length(ps), ps[end].x, typeof(ps))")[:2] == (5, 5.0)
    assert z.eval("(push!([1, 2], 3), push!([true], false), push!([1.0], 2))")[2].tolist() == [
        1.0, 2.0]
    assert z.eval("push!([1, 2], 2.0)").tolist() == [1, 2, 2]
    with pytest.raises(ZylaError, match="InexactError"):
        z.eval("push!([1, 2], 2.5)")
    with pytest.raises(ZylaError, match="MethodError"):
        z.eval('push!(Pt[], "no")')


def test_a_long_array_of_objects_does_not_enter_compiled_code() -> None:
    """An array of structs enters an executable element by element; beyond
    MAX_OBJECT_ELEMENTS the compile tier refuses it at once (tracing 20,000 structs took
    seconds) and the call runs on the host with the same result."""
    z = Zyla()
    z.eval("struct Sx\n  x::Float64\nend\nsumx(v) = sum(s.x for s in v)")
    short = z.eval("[Sx(i) for i in 1:4]")
    assert len(split(short)[0]) == 4
    long = z.eval(f"[Sx(i) for i in 1:{MAX_OBJECT_ELEMENTS + 1}]")
    with pytest.raises(OffloadError, match="does not enter compiled code"):
        split(long)
    z.rt.compile_mode = "always"
    n = MAX_OBJECT_ELEMENTS + 1
    assert z.eval(f"sumx([Sx(i) for i in 1:{n}])") == n * (n + 1) / 2


def test_a_loop_sees_what_it_pushes_onto_the_vector_it_iterates() -> None:
    """Julia's `for x in v` reads v as it is at each step: elements pushed in the loop are
    iterated too (and v may grow: no view of it is held)."""
    z = Zyla()
    z.rt.compile_mode = "never"
    got = z.eval('v = [1.0, 2.0]\nfor x in v\n  length(v) < 5 && push!(v, x)\nend\n'
                 'w = ["a"]\nfor s in w\n  length(w) < 3 && push!(w, s * "b")\nend\n(v, w)')
    assert got[0].tolist() == [1.0, 2.0, 1.0, 2.0, 1.0]
    assert got[1].tolist() == ["a", "ab", "abb"]


def test_copy_of_a_dict_or_set_is_a_new_container() -> None:
    """`copy` of a Dict, an IdDict and a Set returned the container itself, so writing
    into the copy changed the original (and `mergewith!` on a copy changed its source)."""
    z = Zyla()
    got = z.eval("""
d = Dict{String,Float64}("a" => 1.0); c = copy(d); c["a"] = 5; c["b"] = 2
s = Set([1, 2]); t = copy(s); push!(t, 3)
ia = IdDict(1 => 1, 2 => 2); acc = copy(ia); mergewith!(-, acc, IdDict(2 => 3))
(d, typeof(c), length(s), typeof(t), ia[2], acc[2], c === d)
""")
    assert dict(got[0]) == {"a": 1.0} and got[2] == 2 and got[4:] == (2, -1, False)
    assert (str(got[1]), str(got[3])) == ("Dict{String, Float64}", "Set{Int64}")


def test_set_elements_are_compared_by_isequal() -> None:
    z = Zyla()
    got = z.eval("s = Set([0.0, -0.0, NaN, 0.0 / 0.0, 1, 1.0])\n"
                 "(length(s), -0.0 in s, NaN in s, 2.0 in s, length(Set([NaN, NaN])))")
    assert got == (4, True, True, False, 1)


def test_compiled_writes_through_a_reshape_or_transpose_reach_the_array() -> None:
    """On the host `reshape`, `vec` and `A'` share the array's memory, so a write into
    them changes it; a compiled call would have written into a new value and left the
    caller's array as it was (a silent wrong answer): such a call runs on the host."""
    z = Zyla()
    z.rt.compile_mode = "always"
    z.eval("g(A) = (B = reshape(A, 2, 2); B[1] = 100.0; A)\n"
           "h(A) = (B = A'; B[1, 2] = 7.0; sum(A))\n"
           "k(A) = (B = vec(A); B .= 0.0; A)\n"
           "ok(A) = (B = reshape(A, 2, 2); C = B .* 2.0; C[1] = 5.0; sum(C))")
    assert list(z.eval("g([1.0, 2.0, 3.0, 4.0])")) == [100.0, 2.0, 3.0, 4.0]
    assert z.eval("h([1.0 2.0; 3.0 4.0])") == 14.0  # (A[2, 1] became 7.0)
    assert z.eval("k([1.0 2.0; 3.0 4.0])").sum() == 0.0
    assert all("reshaped or transposed" in z.rt.offload_reasons[f] for f in ("g", "h", "k"))
    assert z.eval("ok([1.0, 2.0, 3.0, 4.0])") == 23.0 and "ok" not in z.rt.offload_reasons


# --- keys as a set, self-referential containers (conformance: dict.jl) -------------------


def test_keys_of_a_dict_are_a_live_set() -> None:
    """`keys(d)` is Base's KeySet: an AbstractSet (it was a Vector: `keys(d) == Set(...)`
    was false and `keys(d) ∩ s` a vector), that `in` asks with haskey."""
    z = Zyla()
    got = z.eval("kd = Dict(1 => 2, 3 => 4); k = keys(kd)\n"
                 "c = k ∩ Set([1, 2])\n"
                 "r = (k isa AbstractSet{Int}, empty(k) isa AbstractSet, c isa AbstractSet,\n"
                 "     c == Set([1]), k == Set([1, 3]), k == [1, 3], repr(k),\n"
                 "     sort(collect(k)), maximum(k), sum(k), 5 in k)\n"
                 "kd[5] = 6\n"
                 "(r..., 5 in k, length(k), string(typeof(k)))")
    assert got == (True, True, True, True, True, False, "[1, 3]", got[7], 3, 4, False, True, 3,
                   "Base.KeySet{Int64, Dict{Int64, Int64}}")
    assert list(got[7]) == [1, 3]
    with pytest.raises(ZylaError) as e:
        z.eval("push!(keys(kd), 7)")
    assert e.value.kind == "MethodError"


def test_reductions_of_a_set_reduce_its_elements() -> None:
    """`maximum(Set([1, 2]))` returned the Set itself (a silent wrong answer)."""
    z = Zyla()
    got = z.eval("s = Set([3, 1]); (maximum(s), minimum(s), sum(s), prod(s), extrema(s), "
                 "sum(Set{Int}()))")
    assert got == (3, 1, 4, 3, (1, 3), 0)


def test_a_dict_holding_itself() -> None:
    """`idd in keys(idd)`, `cp !== idd` and show of an IdDict that holds itself recursed
    without end; `Dict(1 => 2) === Dict(1 => 2)` was true."""
    z = Zyla()
    got = z.eval("mutable struct T10647{T}; x::T; end\n"
                 "idd = IdDict(); idd[1] = idd; idd[idd] = 2; idd[3] = T10647(idd)\n"
                 "cp = copy(idd)\n"
                 "(idd in keys(idd), cp !== idd, isequal(cp, idd), repr(idd), "
                 "Dict(1 => 2) === Dict(1 => 2), Set([1]) === Set([1]))")
    assert got[:3] == (True, True, True) and got[4:] == (False, False)
    assert got[3] == ("IdDict{Any, Any}(1 => IdDict{Any, Any}(#= circular reference @-1 =#), "
                      "IdDict{Any, Any}(#= circular reference @-1 =#) => 2, 3 => T10647{IdDict"
                      "{Any, Any}}(IdDict{Any, Any}(#= circular reference @-2 =#)))")
    assert z.eval("v = Any[1]; push!(v, v); repr(v)") == "Any[1, #= circular reference @-1 =#]"


def test_a_struct_whose_supertype_takes_its_parameters() -> None:
    """`struct S{K,V} <: AbstractDict{K,V}` was an UndefVarError (`K`)."""
    z = Zyla()
    got = z.eval("mutable struct TD{K,V} <: AbstractDict{K,V}\n"
                 "    dict::Dict{K,V}\n"
                 "    TD(args...) = (inner = Dict(args...); "
                 "new{keytype(inner),valtype(inner)}(inner))\n"
                 "end\n"
                 "struct B{T} <: AbstractDict{Symbol,T}; x::T; end\n"
                 "struct F{T} <: AbstractVector{T}; x::T; end\n"
                 "(string(typeof(TD(:a => 1))), TD(:a => 1) isa AbstractDict{Symbol, Int}, "
                 "B(1) isa AbstractDict{Symbol, Int}, B(1) isa AbstractDict{Int, Int}, "
                 "F(1) isa AbstractVector{Int}, F(1) isa AbstractVector{Float64})")
    assert got == ("TD{Symbol, Int64}", True, True, False, True, False)


def test_an_inexact_conversion_is_caught_with_its_fields() -> None:
    z = Zyla()
    got = z.eval("g = IdDict{Any,Int32}(:hi => 7)\n"
                 "e = try; get!(() -> 1.5, g, :x); catch err; err; end\n"
                 "(e == InexactError(:Int32, Int32, 1.5), e.val, sprint(showerror, e), "
                 "sprint(showerror, InexactError(:trunc, Int64, Inf)))")
    assert got == (True, 1.5, "InexactError: Int32(1.5)", "InexactError: trunc(Int64, Inf)")


def test_keys_and_values_of_a_programs_abstract_dict() -> None:
    """`values(d)` of a program's AbstractDict returned d itself and `keys(d)` the range
    1:length (silent wrong answers); Base's generic `iterate(::AbstractDict, ::Integer)`
    took over the program's own `iterate(d, state)` and recursed without end."""
    z = Zyla()
    got = z.eval("struct TD{K,V} <: AbstractDict{K,V}; d::Dict{K,V}; end\n"
                 "Base.iterate(t::TD) = iterate(t.d)\n"
                 "Base.iterate(t::TD, s) = iterate(t.d, s)\n"
                 "Base.length(t::TD) = length(t.d)\n"
                 "t = TD(Dict(1 => 2, 3 => 4))\n"
                 "(sort(values(t)), sort(collect(keys(t))), 3 in keys(t), 5 in keys(t), "
                 "string(typeof(keys(t))), [p for p in t] == collect(t.d))")
    assert [list(got[0]), list(got[1])] == [[2, 4], [1, 3]]
    assert got[2:] == (True, False, "Base.KeySet{Int64, TD{Int64, Int64}}", True)


def test_a_collected_set_or_dict_is_a_vector_that_grows() -> None:
    """`collect(keys(d))`, `collect(Set(...))` and `collect(d)` made a reshaped view of a
    vector, which `push!` refused ("cannot resize array with shared data"); `unique` of a
    set is a vector, as Julia's."""
    z = Zyla()
    got = z.eval('d = Dict("a" => 1); x = collect(keys(d)); push!(x, "z")\n'
                 "s = collect(Set([1])); push!(s, 2); u = collect(Dict(1 => 2)); push!(u, 3 => 4)\n"
                 "(x, s, length(u), string(typeof(unique(Set([1, 2])))), "
                 "string(typeof(unique(keys(d)))))")
    assert (list(got[0]), list(got[1])) == (["a", "z"], [1, 2])
    assert got[2:] == (2, "Vector{Int64}", "Vector{String}")


def test_pairs_and_dicts_show_as_julia_under_an_io_context() -> None:
    """A Pair inside a Pair showed without parentheses (`1 => 2 => 3` for `(1 => 2) =>
    3`, which reads back as another value), `Pair{Any, Any}(1, 2)` as `1 => 2`, a Dict
    ignored `:compact`; IOContext was undefined and a Dict's text/plain display was its
    one-line show."""
    z = Zyla()
    got = z.eval(
        "mutable struct Alpha end\nBase.show(io::IO, ::Alpha) = print(io, \"α\")\n"
        "pp = Dict((1 => 2) => (3 => 45))\n"
        "ctx = IOContext(IOBuffer(), :limit => true, :displaysize => (10, 14))\n"
        "(repr((1 => 2) => 3), repr(1 => (2 => 3)), repr(Pair{Any,Any}(1, 2)), "
        "repr(Pair{Any,Any}[1 => 2]), sprint(show, pp; context=:compact => true), "
        "get(IOContext(ctx, :compact => true), :limit, false), get(stdout, :limit, false), "
        "haskey(ctx, :displaysize), "
        "sprint(show, MIME(\"text/plain\"), Dict(Alpha() => 1); context=ctx), "
        "sprint(show, MIME(\"text/plain\"), Dict(\"abcdefghijk\" => 1.5); context=ctx), "
        "sprint(show, MIME(\"text/plain\"), Dict(1 => \"a\\nb\")))")
    assert got == ("(1 => 2) => 3", "1 => (2 => 3)", "Pair{Any, Any}(1, 2)",
                   "Pair{Any, Any}[1 => 2]",
                   "Dict{Pair{Int64, Int64}, Pair{Int64, Int64}}((1=>2)=>(3=>45))",
                   True, False, True,
                   "Dict{Alpha, Int64} with 1 entry:\n  α => 1",
                   "Dict{String, Float64} with 1 entry:\n  \"abc… => 1.5",
                   "Dict{Int64, String} with 1 entry:\n  1 => \"a\\nb\"")


def test_persistent_dicts_and_keytype_of_dict_types() -> None:
    """`Base.PersistentDict` was undefined; keytype/valtype of a program's AbstractDict
    was a MethodError and of `Dict{Int8}` (a parameter left open) one too (Julia gives
    what the type fixes and a MethodError for what it leaves open)."""
    z = Zyla()
    got = z.eval(
        "a = PersistentDict(1 => 2); b = PersistentDict(a, 1, 3); c = Base.delete(b, 1)\n"
        "cell = [0]; p = PersistentDict{Any,Int}(cell => 1); cell[1] = 5\n"
        "struct TD{K,V} <: AbstractDict{K,V}; d::Dict{K,V}; end\n"
        "kt(T) = try; keytype(T); catch e; typeof(e); end\n"
        "vt(T) = try; valtype(T); catch e; typeof(e); end\n"
        "(a[1], b[1], haskey(c, 1), length(c), p[cell], get(p, [5], 0), (1 => 3) in b, "
        "string(collect(b)), keytype(TD(Dict(:a => 1))), kt(Dict{Int8}), vt(Dict{Int8}), "
        "kt(Dict{<:Any,Int16}), vt(Dict{<:Any,Int16}), kt(Base.PersistentDict{Int8,Int16}), "
        "vt(Iterators.Pairs{Int8,Int16}), kt(AbstractDict))")
    assert got[:8] == (2, 3, False, 0, 1, 0, True, "[1 => 3]")
    names = tuple(str(t) for t in got[8:])
    assert names == ("Symbol", "Int8", "MethodError", "MethodError", "Int16", "Int8", "Int16",
                     "MethodError")


def test_bitsets_and_a_structs_own_push_inside_a_function() -> None:
    """BitSet was undefined; inside a function, `push!(b, x)` / `append!(b, xs)` of a
    struct b with its own method went to the vector primitive (a MethodError, and a
    Python AttributeError's text for append!), as did append! of a tuple."""
    z = Zyla()
    got = z.eval(
        "mutable struct Bag; xs::Vector{Int}; end\n"
        "Base.push!(b::Bag, x::Integer) = (push!(b.xs, x); b)\n"
        "Base.append!(b::Bag, x) = (append!(b.xs, x); b)\n"
        "fill_bag(b) = (for x in (1, 2); push!(b, x); end; append!(b, [3]); b)\n"
        "grow(s) = (for i in (3, 1, 3); push!(s, i); end; s)\n"
        "tup(t) = try; append!(t, [1]); catch e; sprint(showerror, e); end\n"
        "s = grow(BitSet())\n"
        "(fill_bag(Bag(Int[])).xs, string(s), 2 in s, collect(union(s, [0])), "
        "s == Set([1, 3]), string(BitSet()), tup((1, 2)))")
    assert list(got[0]) == [1, 2, 3] and list(got[3]) == [0, 1, 3]
    assert got[1:3] == ("BitSet([1, 3])", False) and got[4:6] == (True, "BitSet([])")
    assert got[6] == "MethodError: no method matching append!(::Tuple{Int64, Int64}, " \
                     "::Vector{Int64})"
