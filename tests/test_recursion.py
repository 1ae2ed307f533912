"""Recursion whose depth the data decide, compiled as a loop over a stack of frames
(backend/recursion.py): quicksort in place, tree and tail recursion on traced integers,
early returns, a stack that outgrows its first capacity, and the refusals (which run on
the host, with the reason)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.compile import compiled_call
from lang.core.structure import OffloadError
from lang.door.api import Zyla

# the benchmark's own program (perf.jl's micro-benchmarks: `qsort!`, `sortperf`, `fib`)
MICRO = (Path(__file__).resolve().parents[1] / "bench" / "micro.jl").read_text()

SRC = MICRO + """
function sortsum(a)
    b = a .* 1.0
    qsort!(b, 1, length(b))
    b[1] + 10.0 * b[end]
end

fibof(v) = fib(v[1])

function bsearch(v, x, lo, hi)
    lo > hi && return lo
    mid = (lo + hi) ÷ 2
    v[mid] < x ? bsearch(v, x, mid + 1, hi) : bsearch(v, x, lo, mid - 1)
end
position(v, x) = bsearch(v, x, 1, length(v))

function halve(x, n)
    if n <= 0
        return x
    end
    s = 0.0
    while n > 0
        if x > 3.0
            return s
        end
        s += halve(x * 0.5, n - 1)
        n -= 1
    end
    s
end
halves(v) = halve(v[1], 3)

countdown(x) = x > 0.0 ? 1 + countdown(x - 1.0) : 0
depth(v) = countdown(v[1])

function dfs!(visited, adj, v)
    visited[v] = 1.0
    for u in 1:size(adj, 1)
        if adj[v, u] > 0.0 && visited[u] == 0.0
            dfs!(visited, adj, u)
        end
    end
    return visited
end
reach(adj) = dfs!(zeros(size(adj, 1)), adj, 1)

function paths(adj, v, t)
    v == t && return 1.0
    s = 0.0
    for u in v+1:size(adj, 1)
        if adj[v, u] > 0.0
            s += paths(adj, u, t)
        end
    end
    s
end
npaths(adj) = paths(adj, 1, size(adj, 1))

slicesum(v) = length(v) <= 1 ? sum(v) : (v[1] > 0.0 ? v[1] + slicesum(v[2:end]) : 0.0)
"""


@pytest.fixture(scope="module")
def z() -> Zyla:
    z = Zyla()
    z.eval(SRC)
    return z


def compiled(z: Zyla, name: str, *args: object) -> object:
    """The call compiled (an OffloadError fails the test: it must not run on the host)."""
    return compiled_call(z.rt, z.rt.lookup(name), list(args))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-5, 5) | st.floats(-1e3, 1e3, allow_nan=False,
                                               allow_subnormal=False),
                min_size=1, max_size=120))
def test_quicksort_compiles_and_sorts(z: Zyla, xs: list) -> None:
    """The microbenchmark's recursive in-place quicksort, with duplicates and sorted runs:
    one executable, the argument left as it was (sortperf sorts a copy). (No subnormal
    numbers: XLA on the CPU flushes them to zero, so it orders 0 and 1e-313 as equal.)"""
    x = np.array(xs, dtype=np.float64)
    before = x.copy()
    y = compiled(z, "sortperf", x)
    np.testing.assert_array_equal(y, np.sort(before))
    np.testing.assert_array_equal(x, before)


def test_the_callers_array_is_written_by_the_recursion(z: Zyla) -> None:
    """A local array sorted in place by the recursive call: the caller reads the sorted
    values afterwards (the writes reach it through the shared cell)."""
    x = np.array([3.0, -1.0, 7.0, 2.0, 2.0, 0.5])
    assert compiled(z, "sortsum", x) == z.call("sortsum", x) == -1.0 + 70.0


@pytest.mark.parametrize("n", [0, 1, 2, 7, 12])
def test_tree_recursion_on_a_traced_integer(z: Zyla, n: int) -> None:
    """fib(n) with n from the data (an Int array's element): two recursive calls, the
    first's result kept in the frame across the second."""
    v = np.array([n], dtype=np.int64)
    expected = {0: 0, 1: 1, 2: 1, 7: 13, 12: 144}[n]
    assert compiled(z, "fibof", v) == z.call("fibof", v) == expected


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-100, 100, allow_nan=False, allow_subnormal=False), min_size=1,
                max_size=50),
       st.floats(-120, 120, allow_nan=False, allow_subnormal=False))
def test_binary_search_tail_recursion(z: Zyla, xs: list, x: float) -> None:
    """(No subnormals: XLA on the CPU flushes them to zero, docs/COVERAGE.md.)"""
    v = np.sort(np.array(xs))
    assert compiled(z, "position", v, x) == z.call("position", v, x)


@pytest.mark.parametrize("x", [0.5, 2.0, 3.5, 5.0, 9.0])
def test_early_return_inside_a_loop(z: Zyla, x: float) -> None:
    """A `return` inside a `while` around the recursive call (an undefined value on some
    paths, a Float64 on others)."""
    v = np.array([x])
    assert compiled(z, "halves", v) == pytest.approx(z.call("halves", v), rel=1e-12)


def test_a_deep_recursion_grows_the_stack() -> None:
    """300 nested calls outgrow the first stack (64 frames): the overflow is flagged and
    the call recompiled with a larger stack, as a loop tape grows."""
    z = Zyla()
    z.eval(SRC)
    assert compiled(z, "depth", np.array([300.0])) == 300
    assert compiled(z, "depth", np.array([5.0])) == 5


def test_what_does_not_compile_says_why(z: Zyla) -> None:
    """Passing a different array (a slice) down the recursion is not something the stack
    machine takes: the recursion is inlined instead, which works while its depth is small
    and static (the slices' lengths are known when compiling: 4 levels), and past a few
    levels is refused with the machine's reason; the call then runs on the host."""
    v = np.array([1.0, 2.0, -1.0, 4.0])
    assert compiled(z, "slicesum", v) == z.call("slicesum", v) == 3.0
    w = np.ones(40)
    with pytest.raises(OffloadError, match="different array"):
        compiled(z, "slicesum", w)
    assert z.call("slicesum", w) == 40.0


def test_static_recursion_is_still_inlined(z: Zyla) -> None:
    """fib(20) with a literal (static) argument is computed while tracing: no loop."""
    from backend.compile import lower_text

    text = lower_text(z.rt, z.rt.lookup("fib"), [20])
    assert "while" not in text
    assert compiled(z, "fib", 20) == 6765


def test_quicksort_is_one_while_loop_over_the_blocks(z: Zyla) -> None:
    """The HLO of the compiled quicksort: a while loop whose body switches over blocks."""
    from backend.compile import lower_text

    text = lower_text(z.rt, z.rt.lookup("sortperf"), [np.random.rand(50)], optimized=False)
    assert "stablehlo.while" in text and "stablehlo.case" in text


def test_a_long_chain_traces_under_pythons_default_recursion_limit() -> None:
    """A Chain of 80 layers is a recursion over a tuple while tracing, ~25 Python frames
    a layer: the compile tier makes room for it (VGG19's 44 layers failed the benchmark
    with Python's default limit once a frame was added per call)."""
    import sys

    z = Zyla()
    z.eval("using Flux\nRandom.seed!(0)\nm = Chain([Dense(3 => 3, tanh) for _ in 1:80]...)\n"
           "run(x) = sum(m(x))\n")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        x = np.ones(3, dtype=np.float32)
        got = compiled(z, "run", x)
    finally:
        sys.setrecursionlimit(old)
    # 80 Float32 layers, numpy's tanh and products on the host against XLA's: a few ulps
    # a layer (Float32's eps is 1.2e-7)
    np.testing.assert_allclose(got, z.call("run", x), rtol=1e-4)


def test_a_recursive_pullback_is_refused_quickly(z: Zyla) -> None:
    """The gradient of a data-dependent recursion recurses through pullbacks, not as a
    direct self-call: its trace is refused once 64 levels deep (it went on to Python's
    stack limit, about a minute), and the host computes the gradient."""
    v = np.array([1.5])
    with pytest.raises(OffloadError, match="recurses more than 64 levels"):
        compiled_call(z.rt, z.rt.lookup("gradient"), [z.rt.lookup("halves"), v])
    (g,) = z.gradient("halves", v)
    h = 1e-6
    fd = (z.call("halves", v + h) - z.call("halves", v - h)) / (2 * h)
    assert g[0] == pytest.approx(fd, rel=1e-6)


def test_the_hosts_array_is_sorted_in_place(z: Zyla) -> None:
    """`qsort!(x, 1, n)` called from the host on the user's array: the executable's new
    values are written back into it, and the result is that same array's values."""
    x = np.random.default_rng(4).random(60)
    expected = np.sort(x)
    r = compiled(z, "qsort!", x, 1, 60)
    np.testing.assert_array_equal(x, expected)
    np.testing.assert_array_equal(r, expected)


@pytest.mark.parametrize("n,p", [(1, 0.5), (6, 0.3), (25, 0.08), (40, 0.05)])
def test_depth_first_search_in_a_for_loop(z: Zyla, n: int, p: float) -> None:
    """A recursive call inside `for u in 1:n` (the loop becomes a counted loop of blocks):
    depth-first search marks what it reaches in the shared `visited`, and counting the
    paths of a DAG keeps the loop's running sum in the frame across each call."""
    adj = (np.random.default_rng(n).random((n, n)) < p).astype(np.float64)
    np.testing.assert_array_equal(z.call("reach", adj, compiled=True), z.call("reach", adj))
    assert z.call("npaths", adj, compiled=True) == z.call("npaths", adj)


def test_a_call_repeating_its_own_known_arguments_is_refused_at_once() -> None:
    """`f(a, s) = f(a, s)` with known scalars recurses without end: the trace refuses it at
    the second level (it used to inline until Python's stack gave out), and the host run
    reports Julia's StackOverflowError."""
    import time

    from grammar.errors import ZylaError
    from lang.core.structure import OffloadError

    z = Zyla()
    z.eval("endless(a, s) = endless(a, s) + 1")
    t0 = time.perf_counter()
    with pytest.raises(OffloadError, match="calls itself with the same arguments"):
        z.call("endless", 1.0, "s", compiled=True)
    assert time.perf_counter() - t0 < 5
    with pytest.raises(ZylaError, match="StackOverflowError"):
        z.eval('endless(1.0, "s")')
