"""Float ranges and division as Julia computes them, on the host and compiled.

Julia's `start:step:stop` of floats finds the fractions the bounds stand for (0.1 is
1/10) and rounds each element once from the exact rational, so `(0:0.1:1)[4] == 0.3`
(lang/core/ranges.py); `range(a, b; length)` interpolates with exact ends. The oracle
here is independent of that search: for bounds written as short decimals the elements
must be the exact decimals rounded once (Python's Fraction → float). Compiled code must
agree with the host, also where XLA would turn `x / 10` into `x * 0.1`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lang.door.api import Zyla

# what Julia 1.11 prints
CASES = [
    ("r = 0:0.1:1; println(r[4] == 0.3, ' ', length(r), ' ', sum(r), ' ', r)",
     "true 11 5.5 0.0:0.1:1.0"),
    ("println(collect(0.1:0.1:0.5), ' ', collect(0:0.1:0.3))",
     "[0.1, 0.2, 0.3, 0.4, 0.5] [0.0, 0.1, 0.2, 0.3]"),
    ("println(collect(1.0:-0.3:0.0), ' ', length(0.0:0.1:0.95))",
     "[1.0, 0.7, 0.4, 0.1] 10"),
    ("println(collect(range(0, 1; length=11))[4], ' ', range(0, 1; length=11)[end])", "0.3 1.0"),
    ("r = range(0, 2π; length=50); println(r[1], ' ', r[end] == 2π, ' ', length(r))",
     "0.0 true 50"),
    ("println(collect(range(0.1; step=0.1, length=3)), ' ', (0:0.1:1)[2:2:6])",
     "[0.1, 0.2, 0.3] 0.1:0.2:0.5"),
    ("println(collect(0f0:0.1f0:0.3f0))", "Float32[0.0, 0.1, 0.2, 0.3]"),
    ("println(3.0 / 10, ' ', [3.0, 6.0] ./ 10, ' ', 1 / 3)",
     "0.3 [0.3, 0.6] 0.3333333333333333"),
]


@pytest.fixture(scope="module")
def z() -> Zyla:
    return Zyla()


@pytest.mark.parametrize("src,expected", CASES)
def test_julias_values(z: Zyla, src: str, expected: str, capsys: pytest.CaptureFixture) -> None:
    z.eval(src)
    assert capsys.readouterr().out.strip() == expected


DECIMAL = st.tuples(st.integers(-300, 300), st.integers(0, 3))  # i / 10^p


def _dec(d: tuple[int, int]) -> Fraction:
    return Fraction(d[0], 10 ** d[1])


def _lit(d: tuple[int, int]) -> str:
    return repr(float(_dec(d)))


@settings(max_examples=40, deadline=None)
@given(DECIMAL, DECIMAL.filter(lambda d: d[0] != 0), DECIMAL)
def test_decimal_ranges_round_each_element_once(z: Zyla, a: tuple, s: tuple, b: tuple) -> None:
    start, step, stop = _dec(a), _dec(s), _dec(b)
    n = max(0, int((stop - start) // step) + 1)
    src = f"{_lit(a)}:{_lit(s)}:{_lit(b)}"
    got = z.call(z.eval(f"() -> collect({src})"))
    want = [float(start + k * step) for k in range(n)]
    assert list(np.asarray(got, dtype=np.float64)) == want, src
    # compiled: the elements as a loop sees them, and collect
    name = f"loop_{abs(hash(src))}"
    z.eval(f"function {name}(); v = Float64[]; for t in {src}; push!(v, t); end; v; end\n"
           f"{name}_c() = collect({src})")
    np.testing.assert_array_equal(z.call(f"{name}_c", compiled=True), want)
    z.eval(f"{name}_s() = (s = 0.0; for t in {src}; s = s * 0.5 + t; end; s)")
    assert z.call(f"{name}_s", compiled=True) == z.call(f"{name}_s")


@settings(max_examples=30, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-290),
       st.integers(0, 3))
def test_division_by_a_constant_compiled_is_rounded_once(z: Zyla, x: float, k: int) -> None:
    # (operands whose quotient is subnormal are left out: compiled code flushes subnormal
    # results to zero, a documented difference, docs/COVERAGE.md)
    c = ("10", "3", "7.0", "0.1")[k]
    name = f"div_{k}"
    z.eval(f"{name}(x) = (x / {c}, [x, 2x] ./ {c})")
    host = z.call(name, x)
    got = z.call(name, x, compiled=True)
    assert got[0] == host[0] == x / float(c)
    np.testing.assert_array_equal(got[1], host[1])


@pytest.mark.parametrize("n", [2, 7, 50, 1000])
def test_range_with_length_compiled_matches_host(z: Zyla, n: int) -> None:
    z.eval(f"lin_{n}() = (s = 0.0; for t in range(-1.3, 2π; length={n}); s = s * 0.9 + t; end; s)\n"
           f"linv_{n}() = collect(range(-1.3, 2π; length={n}))")
    assert z.call(f"lin_{n}", compiled=True) == z.call(f"lin_{n}")
    v = z.call(f"linv_{n}")
    assert v[0] == -1.3 and v[-1] == 2 * np.pi and len(v) == n
    exact = [float(Fraction(-1.3) + k * (Fraction(2 * np.pi) - Fraction(-1.3)) / (n - 1))
             for k in range(n)]
    assert list(v) == exact
