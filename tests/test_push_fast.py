"""`push!` onto host vectors with spare room (lang.core.eltypes `_Room`): a vector grown
by `push!` is reallocated half as long again when full and lengthened within its buffer
between reallocations; every other way of changing a vector's length, its aliases, its
views and its element type record must see exactly its elements."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.core import eltypes
from lang.core.builtins_mutate import push_value, sizehint
from tests.snippets import run_program, session


def test_a_pushed_vector_has_room_and_numpy_sees_its_length_only() -> None:
    """After pushes the buffer is longer than the vector; numpy reads the length (copy,
    sum, bytes); shrinking and growing within the room keep it (new elements zero, not
    what the room held), another shape forgets it; a dead vector's room is dropped."""
    a = np.zeros(0)
    for i in range(100):
        push_value(a, i * 0.5)
    assert eltypes._ROOMS[id(a)].capacity > len(a) == 100 and a.shape == (100,)
    assert a.nbytes == 800 and np.frombuffer(a.tobytes()).shape == (100,)
    assert a.sum() == sum(i * 0.5 for i in range(100)) and list(a.copy()) == list(a)
    eltypes.resize_keeping_eltype(a, (3,))
    assert id(a) in eltypes._ROOMS and list(a) == [0.0, 0.5, 1.0]
    push_value(a, 7.0)
    eltypes.resize_keeping_eltype(a, (6,))
    assert list(a) == [0.0, 0.5, 1.0, 7.0, 0.0, 0.0]
    eltypes.resize_keeping_eltype(a, (2, 3))
    assert id(a) not in eltypes._ROOMS and a.shape == (2, 3)
    b = np.zeros(0)
    push_value(b, 1.0)
    key = id(b)
    del b
    gc.collect()
    assert key not in eltypes._ROOMS


def test_an_object_vector_shrunk_within_its_room_lets_its_elements_go() -> None:
    """Elements dropped from an object vector with room are released (not kept alive in
    the room beyond its length)."""

    class Item:
        pass

    a = np.empty(0, dtype=object)
    items = [Item() for _ in range(5)]
    for x in items:
        push_value(a, x)
    refs = [weakref.ref(x) for x in items]
    del items, x
    eltypes.resize_keeping_eltype(a, (1,))
    gc.collect()
    assert [r() is None for r in refs] == [False, True, True, True, True]
    assert a.shape == (1,) and id(a) in eltypes._ROOMS


def test_an_object_vector_with_room_keeps_its_element_type_and_elements() -> None:
    """A String vector grown past several reallocations: its record (Vector{String}) and
    every element kept; the elements beyond its length are nobody's."""
    z = session(__name__)
    assert z.eval("""s = String[]; t = s
        for i in 1:50; push!(s, "w$i"); end
        (string(typeof(t)), length(t), t[1], t[50], join(t[48:50], ","))""") == (
        "Vector{String}", 50, "w1", "w50", "w48,w49,w50")
    assert z.eval("resize!(s, 2); push!(s, \"x\"); (length(s), s[3])") == (3, "x")
    with pytest.raises(ZylaError, match="MethodError"):
        z.eval("push!(s, 1)")


def test_growing_and_shrinking_a_vector_with_room_agree_with_julia() -> None:
    """Every mutator after pushes into spare room: the aliases see one vector, with the
    elements Julia's vector has."""
    run_program("""
        struct P; x::Float64; end
        function build(n)
            v = Float64[]; ps = P[]; k = Int[]
            for i in 1:n
                push!(v, i * 0.5); push!(ps, P(i)); push!(k, i)
            end
            v, ps, k
        end
        v, ps, k = build(30)
        w = v
        @test length(w) == 30 && w[30] == 15.0 && sum(v) == 232.5
        @test typeof(ps) == Vector{P} && ps[30].x == 30.0 && length(ps) == 30
        deleteat!(k, 1); pop!(k); insert!(k, 1, 100); pushfirst!(k, -1)
        @test k == vcat([-1, 100], collect(2:29))
        append!(k, [7, 8]); @test k[end-1:end] == [7, 8] && length(k) == 32
        resize!(v, 2); @test w == [0.5, 1.0]
        push!(v, 3.0); @test w == [0.5, 1.0, 3.0]
        empty!(ps); push!(ps, P(2)); @test length(ps) == 1 && ps[1] == P(2)
        c = copy(v); push!(v, 4.0); @test c == [0.5, 1.0, 3.0] && v == [0.5, 1.0, 3.0, 4.0]
        @test v .* 2 == [1.0, 2.0, 6.0, 8.0] && v' * v == 26.25
    """)


def test_push_onto_a_vector_with_room_and_a_view_is_refused() -> None:
    """A view of a vector that has room (reshape) shares its memory: `push!` is Julia's
    ErrorException, within the room too, and the vector keeps its elements."""
    z = session(__name__)
    z.eval("function grow!(v, n); for i in 1:n; push!(v, i * 1.0); end; v; end")
    with pytest.raises(ZylaError, match="cannot resize array with shared data"):
        z.eval("u = grow!(Float64[], 3); r = reshape(u, 3, 1); push!(u, 4.0)")
    assert z.eval("(length(u), sum(u), size(r))") == (3, 6.0, (3, 1))


def test_push_fast_path_converts_or_refuses_as_push() -> None:
    """`push_value` (translated code's push!) stores a number of the vector's own type
    as it is and sends anything else to push_array: converted, or Julia's error."""
    z = session(__name__)
    z.eval("function put!(v, xs...); for x in xs; push!(v, x); end; v; end")
    assert list(z.eval("put!(Int[], 2.0, true, 3)")) == [2, 1, 3]
    with pytest.raises(ZylaError, match="InexactError"):
        z.eval("put!(Int[], 2.5)")
    with pytest.raises(ZylaError, match="MethodError"):
        z.eval("put!(Float64[], nothing)")


def test_growing_a_read_only_copy_is_refused_and_leaves_it_as_it_was() -> None:
    """`push!` onto a view by index arrays (a read-only copy) grew it by an element of
    uninitialised memory before the write was refused (`[1, 2, 32, 140098363583984]`);
    now every resize of a read-only vector is refused first, and one made read-only
    after it got room is given back its length."""
    z = session(__name__)
    z.eval("function grow2!(v); for i in 1:2; push!(v, i); end; v; end")
    for code in ("push!(rv, 7)", "grow2!(rv)", "pop!(rv)", "append!(rv, [1])",
                 "resize!(rv, 5)"):
        z.eval("rv = view([1, 2, 3], [1, 2])")
        with pytest.raises(ZylaError, match="cannot resize array with shared data"):
            z.eval(code)
        assert list(z.eval("rv")) == [1, 2]
    a = np.zeros(0)
    push_value(a, 1.0)
    a.flags.writeable = False
    with pytest.raises(ZylaError, match="shared data"):
        push_value(a, 2.0)
    assert list(a) == [1.0]


def test_sizehint_gives_a_vector_room_for_its_pushes() -> None:
    """`sizehint!(v, n)` makes room for n elements: the pushes up to n reallocate
    nothing (the same room throughout); a vector with a view takes no hint."""
    a = np.zeros(0)
    sizehint(a, 50)
    room = eltypes._ROOMS[id(a)]
    for i in range(50):
        push_value(a, float(i))
    assert eltypes._ROOMS[id(a)] is room and room.capacity == 50 and a.sum() == 1225.0
    del room
    z = session(__name__)
    assert z.eval("h = [1, 2]; hr = reshape(h, 2, 1); sizehint!(h, 10) === h") is True
    assert list(z.eval("h")) == [1, 2]
