"""Loop nests rewritten into tensor operations (backend/nests.py) against the loops as
written.

Each program defines the same function twice: `f` (its nest mapped) and `g` (the same
body under `@sequential`, run as written). Random nests (hypothesis: matmul-like
contractions with offsets, sums over one or two loops, accumulation into an array, maxima,
elementwise maps with reversed and shifted indices, 1-d windows; Float64, Float32 and
Int64 data) must agree on the host and compiled: integers exactly, floats within the
rounding a reordered sum may change (a bound from the number of terms and their sizes).
Row maxima and minima (`m = max(m, e)`) are mapped too. Fixed cases: nests that must not
be mapped (a prefix sum, a data-dependent index, a write
that aliases a read, an argument passed twice) give the loop's own values, each with its
reason in the IR; an out-of-bounds nest raises Julia's BoundsError; a float written into
an integer array raises InexactError; the gradient of a loop matmul is that of `A * B`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend import compile as C
from grammar.errors import ZylaError
from lang.core import primitives_nest
from lang.core.ir import walk_ops
from lang.core.structure import OffloadError
from lang.door.api import Zyla


def runtime(src: str) -> Zyla:
    z = Zyla()
    z.rt.run_source(src, "nest.jl")
    return z


def both(src: str) -> str:
    """src with its `function f` also defined as `g`, whose loops run as written."""
    seq = src.replace("function f(", "function g(").replace("    for ", "    @sequential for ", 1)
    return src + "\n" + seq


def call(z: Zyla, name: str, args: list[Any], compiled: bool) -> Any:
    f = z.rt.lookup(name)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    if compiled:
        return C.compiled_call(z.rt, f, copies)
    return z.rt.interp.call_value(f, copies)


def mapped_ir(z: Zyla, name: str) -> list[str]:
    fn = z.rt.lookup(name).methods[0].fn
    return [op.attrs["nest"] for op in walk_ops(fn.body) if "nest" in op.attrs]


def close(a: Any, b: Any, terms: int, scale: float, dtype: Any) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
    if np.dtype(dtype).kind == "i":
        np.testing.assert_array_equal(a, b)
        return
    # a sum of `terms` terms, each at most `scale` in size, reordered: each partial sum
    # can round differently, by at most eps times its size
    tol = 2 * terms * np.finfo(dtype).eps * terms * scale + np.finfo(dtype).tiny
    np.testing.assert_allclose(a, b, rtol=0, atol=tol)


# --- random nests --------------------------------------------------------------------------

_EXPRS = {  # a term of {a} and {b}: whether it is also drawn for integers
    "{a} * {b}": True, "{a} * {b} + {a}": True, "2 * {a} - {b}": True, "{a} * {a}": True,
    "max({a}, {b})": True, "abs({a} - {b})": True, "sin({a}) * {b}": False,
    "{a} / 2 + {b}": False, "exp({a}) * {b}": False,
}
_TYPES = {"Float64": np.float64, "Float32": np.float32, "Int64": np.int64}


def _data(draw: Any, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    if np.dtype(dtype).kind == "i":
        vals = draw(st.lists(st.integers(-5, 5), min_size=int(np.prod(shape)),
                             max_size=int(np.prod(shape))))
    else:
        vals = draw(st.lists(st.floats(-2, 2, allow_nan=False, width=32),
                             min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(vals, dtype=dtype).reshape(shape)


@st.composite
def nests(draw: Any) -> tuple[str, list[Any], int, Any]:
    """(source defining f, arguments, number of terms a sum adds, element type)."""
    tname = draw(st.sampled_from(sorted(_TYPES)))
    dtype = _TYPES[tname]
    expr = draw(st.sampled_from([e for e, ints in _EXPRS.items() if ints or tname != "Int64"]))
    zero = "zero(eltype(A))"
    kind = draw(st.sampled_from(["matmul", "total", "rows", "map", "window", "extremum"]))
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    if kind == "matmul":
        oa, ob = draw(st.integers(0, 1)), draw(st.integers(0, 1))
        e = expr.format(a=f"A[i + {oa}, p]", b=f"B[p, j + {ob}]")
        src = f"""
function f(C, A, B)
    for j in 1:size(C, 2), i in 1:size(C, 1)
        s = {zero}
        for p in 1:size(A, 2)
            s += {e}
        end
        C[i, j] = s
    end
    C
end"""
        args = [np.zeros((m, n), dtype=dtype), _data(draw, dtype, (k, n + oa)),
                _data(draw, dtype, (m + ob, k))]  # (numpy shapes: Julia's reversed)
        return src, args, k, dtype
    if kind == "total":
        e = expr.format(a="A[i, j]", b="B[j, i]")
        src = f"""
function f(A, B)
    s = {zero}
    for i in 1:size(A, 1), j in 1:size(A, 2)
        s -= {e}
    end
    s
end"""
        return src, [_data(draw, dtype, (m, n)), _data(draw, dtype, (n, m))], n * m, dtype
    if kind == "extremum":
        e = expr.format(a="A[i, j]", b="x[j]")
        op = draw(st.sampled_from(["max", "min"]))
        start = "typemin" if op == "max" else "typemax"
        order = draw(st.sampled_from(["m, {e}", "{e}, m"])).format(e=e)
        src = f"""
function f(r, A, x)
    for i in axes(A, 1)
        m = {start}(eltype(A))
        for j in axes(A, 2)
            m = {op}({order})
        end
        r[i] = m
    end
    r
end"""
        return src, [np.zeros(n, dtype=dtype), _data(draw, dtype, (m, n)),
                     _data(draw, dtype, (m,))], 1, dtype
    if kind == "rows":
        e = expr.format(a="A[i, j]", b="x[j]")
        src = f"""
function f(r, A, x)
    for i in axes(A, 1), j in axes(A, 2)
        r[i] += {e}
    end
    r
end"""
        if tname == "Int64":
            return src, [np.ones(n, dtype=np.float64), _data(draw, dtype, (m, n)),
                         _data(draw, dtype, (m,))], m, np.float64
        return src, [_data(draw, dtype, (n,)), _data(draw, dtype, (m, n)),
                     _data(draw, dtype, (m,))], m + 1, dtype
    if kind == "map":
        e = expr.format(a="x[i]", b="x[end - i + 1]")
        src = f"""
function f(y, x)
    for i in eachindex(x)
        y[i] = {e}
    end
    y
end"""
        return src, [np.zeros(n, dtype=dtype), _data(draw, dtype, (n,))], 1, dtype
    w = draw(st.integers(1, 3))
    e = expr.format(a="x[i + d - 1]", b="w[d]")
    src = f"""
function f(y, x, w)
    for i in 1:length(y)
        s = zero(eltype(x))
        for d in 1:length(w)
            s += {e}
        end
        y[i] = s
    end
    y
end"""
    return src, [np.zeros(n, dtype=dtype), _data(draw, dtype, (n + w - 1,)),
                 _data(draw, dtype, (w,))], w, dtype


@pytest.mark.parametrize("compiled", [False, True], ids=["host", "compiled"])
@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=nests())
def test_random_nests_agree_with_the_loops_as_written(compiled: bool, case: Any) -> None:
    src, args, terms, dtype = case
    z = runtime(both(src))
    assert mapped_ir(z, "f")[0].startswith("mapped"), (mapped_ir(z, "f"), src)
    before = primitives_nest.STATS["mapped"]
    got = call(z, "f", args, compiled)
    assert primitives_nest.STATS["mapped"] > before, "the nest ran as written"
    want = call(z, "g", args, False)  # (the reference: the interpreter, the loop as written)
    scale = 1.0 + max(float(np.max(np.abs(a))) for a in args if isinstance(a, np.ndarray)) ** 2 \
        * 4 + 10
    close(got, want, terms, scale, dtype)


# --- nests left as written -------------------------------------------------------------------

_LEFT = {
    "prefix sum": ("""
function f(y, x)
    s = 0.0
    for i in eachindex(x)
        s += x[i]
        y[i] = s
    end
    y
end""", "prefix sum", lambda: [np.zeros(4), np.arange(1.0, 5.0)]),
    "data-dependent index": ("""
function f(x, idx)
    s = 0.0
    for i in eachindex(idx)
        s += x[idx[i]]
    end
    s
end""", "not affine", lambda: [np.arange(1.0, 5.0), np.array([4, 1, 1, 2])]),
    "write aliasing a read": ("""
function f(y)
    for i in 1:length(y) - 1
        y[i] = y[i + 1] * 2
    end
    y
end""", "read at another element", lambda: [np.arange(1.0, 6.0)]),
    "overwritten element": ("""
function f(y, A)
    for i in axes(A, 1), j in axes(A, 2)
        y[i] = A[i, j]
    end
    y
end""", "overwritten in every iteration", lambda: [np.zeros(2), np.arange(6.0).reshape(3, 2)]),
}


@pytest.mark.parametrize("name", sorted(_LEFT))
def test_nests_that_must_not_be_mapped_keep_the_loop(name: str) -> None:
    src, reason, args = _LEFT[name]
    z = runtime(both(src))
    (note,) = mapped_ir(z, "f")[:1]
    assert note.startswith("not mapped") and reason in note, note
    want = call(z, "g", args(), False)
    np.testing.assert_array_equal(call(z, "f", args(), False), want)
    try:
        got = call(z, "f", args(), True)
    except OffloadError as e:  # (a compiled loop writing into an argument: the host runs it)
        assert "runs on the host" in str(e)
    else:
        np.testing.assert_array_equal(got, want)


MATMUL = """
function f(C, A, B)
    for j in 1:size(B, 2), i in 1:size(A, 1)
        s = 0.0
        for p in 1:size(A, 2)
            s += A[i, p] * B[p, j]
        end
        C[i, j] = s
    end
    C
end
"""


def test_an_array_passed_twice_runs_the_loop_as_written() -> None:
    """`f(A, A, B)`: the nest writes the array it reads, so each write is seen by later
    reads; the test at run time sees the aliasing and runs the loop."""
    z = runtime(both(MATMUL))
    a = np.arange(1.0, 10.0).reshape(3, 3)
    b = np.eye(3)[::-1].copy()
    before = primitives_nest.STATS["as written"]
    x, y = a.copy(), a.copy()
    z.rt.interp.call_value(z.rt.lookup("f"), [x, x, b])
    z.rt.interp.call_value(z.rt.lookup("g"), [y, y, b])
    assert primitives_nest.STATS["as written"] > before
    np.testing.assert_array_equal(x, y)


def test_the_mapped_nest_writes_into_the_callers_array() -> None:
    z = runtime(MATMUL + "A = [1.0 2.0; 3.0 4.0]; C = zeros(2, 2); f(C, A, A); D = C")
    np.testing.assert_array_equal(z.rt.lookup("D").T, np.array([[7.0, 10.0], [15.0, 22.0]]))


@pytest.mark.parametrize("compiled", [False, True], ids=["host", "compiled"])
def test_an_index_out_of_bounds_is_julias_error(compiled: bool) -> None:
    z = runtime("""
function f(A, B)
    s = 0.0
    for i in 1:size(A, 1), p in 1:size(A, 2)
        s += A[i, p] * B[p, i]
    end
    s
end""")
    args = [np.ones((3, 3)), np.ones((3, 2))]  # B has 2 rows, A 3 columns
    with pytest.raises(ZylaError) as e:
        call(z, "f", args, compiled)
    assert e.value.kind == "BoundsError"


def test_an_integer_that_does_not_fit_is_inexact() -> None:
    z = runtime("function f(y, x)\n for i in eachindex(x)\n y[i] = x[i] * 2\n end\n y\nend")
    for target, bad in ((np.uint8, "trunc(UInt8, 300)"), (np.bool_, "Bool(300)")):
        with pytest.raises(ZylaError) as e:
            call(z, "f", [np.zeros(3, dtype=target), np.array([0, 150, 1])], False)
        assert e.value.kind == "InexactError" and bad in e.value.message, e.value.message
    np.testing.assert_array_equal(
        call(z, "f", [np.zeros(2, dtype=np.uint8), np.array([3, 100])], False), [6, 200])


def test_a_float_into_an_integer_array_is_inexact() -> None:
    z = runtime("function f(y, x)\n for i in eachindex(x)\n y[i] = x[i] / 2\n end\n y\nend")
    with pytest.raises(ZylaError) as e:
        call(z, "f", [np.zeros(3, dtype=np.int64), np.array([2, 4, 5])], False)
    assert e.value.kind == "InexactError" and "2.5" in e.value.message
    np.testing.assert_array_equal(
        call(z, "f", [np.zeros(3, dtype=np.int64), np.array([2, 4, 6])], False), [1, 2, 3])


def test_the_gradient_of_a_loop_matmul_is_that_of_the_product() -> None:
    src = MATMUL + """
loop_loss(A, B) = sum(f(zeros(size(A, 1), size(B, 2)), A, B) .^ 2)
op_loss(A, B) = sum((A * B) .^ 2)
"""
    z = runtime(src)
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(2, 4))
    grad = z.rt.lookup("gradient")
    for compiled in (False, True):
        got = call(z, "gradient", [z.rt.lookup("loop_loss"), a, b], compiled) if compiled else \
            z.rt.interp.call_value(grad, [z.rt.lookup("loop_loss"), a, b])
        want = z.rt.interp.call_value(grad, [z.rt.lookup("op_loss"), a, b])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


def test_sequential_keeps_the_loop_and_zyla_nests_0_runs_it() -> None:
    z = runtime(both("function f(x)\n    s = 0.0\n    for i in eachindex(x)\n        s += x[i]\n"
                     "    end\n    s\nend"))
    assert mapped_ir(z, "f")[0].startswith("mapped")
    assert mapped_ir(z, "g") == []  # (no test at all: the loop is as written)
    saved = primitives_nest.MODE[0]
    primitives_nest.MODE[0] = "off"
    try:
        before = primitives_nest.STATS["as written"]
        assert call(z, "f", [np.arange(4.0)], False) == 6.0
        assert primitives_nest.STATS["as written"] == before + 1
    finally:
        primitives_nest.MODE[0] = saved


CUMROWS = """
function f(X, k)
    out = zeros(size(X, 1))
    acc = 0.0
    for t in 1:size(X, 1)
        s = 0.0
        for j in 1:size(X, 2)
            s += X[t + k, j] * X[t + k, j]
        end
        acc += s
        out[t] = acc
    end
    out
end
"""


def test_a_nest_inside_a_compiled_loop_is_mapped_with_a_traced_offset() -> None:
    """The outer loop carries a running sum (left as written); the inner sum reads row
    `t + k` of X, an offset known only when the executable runs: mapped, with its bounds
    checked at run time (out of bounds, the call runs again on the host: BoundsError)."""
    z = runtime(both(CUMROWS))
    assert mapped_ir(z, "f")[0].startswith("not mapped")
    x = np.arange(1.0, 13.0).reshape(3, 4)  # Julia 4×3
    before = primitives_nest.STATS["mapped"]
    got = call(z, "f", [x, 0], True)
    assert primitives_nest.STATS["mapped"] > before  # (decided once, when tracing)
    np.testing.assert_allclose(got, call(z, "g", [x, 0], False), rtol=1e-14)
    with pytest.raises(ZylaError) as e:
        call(z, "f", [x, 1], True)  # (row 5 of 4: the check fails, the host raises)
    assert e.value.kind == "BoundsError" and "[5, 1]" in e.value.message


SMALL_TYPES = """
function f(x, y)
    s = 0
    for i in eachindex(x)
        s += x[i] * y[i]
    end
    s
end
function h(x)
    s = 0
    for i in eachindex(x)
        s += x[i]
    end
    s
end
"""


@pytest.mark.parametrize("compiled", [False, True], ids=["host", "compiled"])
def test_bools_and_small_integers_sum_as_julia_does(compiled: bool) -> None:
    """A sum of Bools counts them (Int); UInt8 products wrap in UInt8 before the Int sum."""
    z = runtime(SMALL_TYPES)
    bools = np.array([True, False, True, True])
    assert call(z, "h", [bools], compiled) == 3
    assert call(z, "f", [bools, bools], compiled) == 3
    u8 = np.array([200, 3, 17], dtype=np.uint8)
    assert call(z, "f", [u8, u8], compiled) == 64 + 9 + 33  # 40000 % 256, 9, 289 % 256


def test_simd_and_fastmath_loops_run_and_are_mapped() -> None:
    """Julia's `@inbounds @simd for` and `@fastmath for` (which allow a reordered sum)."""
    z = runtime("""
function f(x)
    s = 0.0
    @inbounds @simd for i in eachindex(x)
        s += x[i]
    end
    s
end
function g(x)
    s = 0.0
    @fastmath for i in eachindex(x)
        s += x[i] ^ 2
    end
    s
end""")
    assert mapped_ir(z, "f")[0].startswith("mapped") and mapped_ir(z, "g")[0].startswith("mapped")
    assert call(z, "f", [np.array([1.0, 2.0, 3.0])], False) == 6.0
    assert call(z, "g", [np.array([1.0, 2.0])], True) == 5.0


def test_a_window_sum_started_from_integers_keeps_its_float_type() -> None:
    """`s = x0[i]` (Int) plus a Float64 window sum is a Float64, whichever lowering the
    cost model takes (the convolution's result was once converted to Int: 2.5 became 2)."""
    from backend import costmodel as CM

    z = runtime(both("""
function f(y, x0, x, w)
    for i in eachindex(x0)
        s = x0[i]
        for d in 1:2
            s += x[i + d - 1] * w[d]
        end
        y[i] = s
    end
    y
end"""))
    args = [np.zeros(3), np.array([1, 2, 3]), np.array([0.5, 0.25, 0.125, 1.0]),
            np.array([1.0, 2.0])]
    want = call(z, "g", args, False)
    for name in ("gather", "shifted", "conv"):
        z.rt.run_source(f"f_{name}(y, x0, x, w) = f(y, x0, x, w)", "alias.jl")
        with CM.force(**{"Core.contract_read": name}):
            got = C.compiled_call(z.rt, z.rt.lookup(f"f_{name}"), [a.copy() for a in args])
        np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=name)
    np.testing.assert_allclose(want, [2.0, 2.5, 5.125])
