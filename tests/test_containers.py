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
