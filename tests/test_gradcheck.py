"""Gradient checks for users: `lang.door.testing` from Python, `using GradCheck` in the
language (`gradcheck`, `@gradcheck`) and `zyla gradcheck FILE [FUNC]`.

The checks compare Zyla's reverse-mode AD with central finite differences and with
`jax.grad` of the lowered primal; a deliberately wrong custom `rrule` must be caught
and shrunk to a small counterexample printed as Zyla source.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lang.door import testing as zt
from lang.door.api import Zyla
from lang.door.cli import dispatch
from lang.door.gradcheck import ArgSpec, run_property, to_source

SOURCE = """
using ChainRulesCore
struct Lin
    W
    b
end
loss(m::Lin, x) = sum(tanh.(m.W * x .+ m.b))
mlp(W, x) = sum(tanh.(W * x) .^ 2)
f32(x) = sum(x .* x)
nt(p, x) = sum(p.a .* x) + p.c^2
tup(t) = t[1] * sum(t[2])
function looped(x)
    s = 0.0
    i = 0
    while i < 3
        s += x^2
        i += 1
    end
    s
end
cube(x) = x^3
function ChainRulesCore.rrule(::typeof(cube), x)
    cube_pullback(dy) = (NoTangent(), 2 * dy * x^2)
    return cube(x), cube_pullback
end
uses_cube(x) = sum(cube.(x))
vec_out(x) = 2 .* x
"""


@pytest.fixture(scope="module")
def z() -> Zyla:
    z = Zyla()
    z.eval(SOURCE)
    return z


# --- strategies --------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(zt.arrays((2, 3), -2, 2), zt.floats(0.5, 1.0, dtype="Float32"), zt.ints(1, 3),
       zt.named_tuples(a=zt.floats(), b=zt.arrays(2, dtype="Int64", lo=0, hi=5)),
       zt.tuples(zt.floats(), zt.arrays((1, 2, 2))))
def test_strategies_draw_zyla_values(a: np.ndarray, f: np.float32, i: int, nt: dict,
                                     tup: tuple) -> None:
    assert a.shape == (2, 3) and a.dtype == np.float64 and np.all(np.abs(a) <= 2)
    assert isinstance(f, np.float32) and 0.5 <= f <= 1.0
    assert 1 <= i <= 3
    assert list(nt) == ["a", "b"] and nt["b"].dtype == np.int64 and nt["b"].shape == (2,)
    assert isinstance(tup[0], float) and tup[1].shape == (1, 2, 2)


@settings(max_examples=3, deadline=None)
@given(zt.zyla_value("Float64", (2, 3)))
def test_zyla_value_uses_internal_layout(value: np.ndarray) -> None:
    assert value.shape == (3, 2)  # Julia size (2, 3), stored with the axes reversed


# --- gradcheck from Python ---------------------------------------------------------------------


@settings(max_examples=5, deadline=None)
@given(zt.arrays((2, 3)), zt.arrays(3))
def test_gradcheck_passes_under_hypothesis(W: np.ndarray, x: np.ndarray) -> None:
    z = _Z.get()
    assert zt.gradcheck(z, "mlp", W, x, oracle=False)


class _Z:
    """One session for the hypothesis test (fixtures do not mix with @given)."""

    z: Zyla | None = None

    @classmethod
    def get(cls) -> Zyla:
        if cls.z is None:
            cls.z = Zyla()
            cls.z.eval(SOURCE)
        return cls.z


def test_gradcheck_structs_tuples_namedtuples_float32(z: Zyla) -> None:
    m = z.rt.run_source("Lin([0.1 0.2; 0.3 0.4], [0.5, -0.5])", "m")
    res = zt.gradcheck(z, z.rt.lookup("loss"), m, np.array([1.0, 2.0]))
    assert res and res.checked == 8 and res.oracle == "agrees"
    assert "∂/∂m.W[" in res.report()
    assert zt.gradcheck(z, "f32", np.array([1.0, 2.0], dtype=np.float32))
    assert zt.gradcheck(z, "nt", {"a": np.array([1.0, 2.0]), "c": 3.0}, np.array([0.5, 0.25]))
    assert zt.gradcheck(z, "tup", (2.0, np.array([1.0, 3.0])))


def test_gradcheck_while_loop_skips_the_jax_oracle(z: Zyla) -> None:
    res = zt.gradcheck(z, "looped", 1.5)
    assert res and "not applicable" in res.oracle and "while" in res.oracle


def test_gradcheck_catches_a_wrong_rrule(z: Zyla) -> None:
    with pytest.raises(AssertionError) as info:
        zt.gradcheck(z, "uses_cube", np.array([1.0, 2.0]))
    text = str(info.value)
    assert "FAILED" in text and "∂/∂x[" in text and "jax.grad" in text
    res = zt.gradcheck(z, "uses_cube", np.array([1.0, 2.0]), raise_exception=False)
    assert not res and res.oracle == "disagrees"
    assert res.worst is not None and res.worst.ad == pytest.approx(8.0)
    assert res.worst.fd == pytest.approx(12.0, rel=1e-6)


def test_gradcheck_reports_non_scalar_output(z: Zyla) -> None:
    res = zt.gradcheck(z, "vec_out", np.array([1.0]), raise_exception=False)
    assert not res and "real number" in (res.error or "")


def test_property_shrinks_to_a_small_counterexample(z: Zyla) -> None:
    f = z.rt.lookup("uses_cube")
    res = run_property(z.rt, f, [ArgSpec("x", "Float64", (3,), -2.0, 2.0)], examples=30)
    assert not res
    assert res.counterexample is not None and res.counterexample.startswith("uses_cube([")
    # shrunk: one non-zero element (the wrong rule agrees with the right one at 0)
    x = z.rt.run_source(res.counterexample.removeprefix("uses_cube(")[:-1], "cex")
    assert np.count_nonzero(x) == 1
    assert "minimal counterexample" in res.report()


def test_to_source_round_trips(z: Zyla) -> None:
    for text in ("[1.0 2.0; 3.0 4.0]", "(1.0, [2.0])", "(a = 1.0, b = Float32[2.0])",
                 "reshape([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], 2, 2, 2)"):
        v = z.rt.run_source(text, "v")
        again = z.rt.run_source(to_source(v), "v")
        assert to_source(again) == to_source(v)


# --- in the language --------------------------------------------------------------------------

LANG = """
using GradCheck
using ChainRulesCore
sq(x) = x^2
function ChainRulesCore.rrule(::typeof(sq), x)
    sq_pullback(dy) = (NoTangent(), 3 * dy * x)
    return sq(x), sq_pullback
end
good(x, y) = sum(x .^ 2) * y
bad(x) = sq(x[1]) + x[2]
println("good: ", gradcheck(good, [1.0, 2.0, 3.0], 0.5))
println("bad: ", gradcheck(sq, 1.5))
ok = @gradcheck good(x::Vector{Float64}(3) in (-1, 1), y::Float64 in (0.1, 2)) examples=20
notok = @gradcheck bad(x::Vector{Float64}(2) in (-2, 2)) examples=20
println(ok, " ", notok)
"""


def test_gradcheck_in_the_language(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gc.jl"
    path.write_text(LANG)
    assert dispatch(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "good: true" in out
    assert "bad: false" in out and "worst mismatch: ∂/∂x: AD = 4.5, finite differences = 3.0" in out
    assert ("@gradcheck good(x::Vector{Float64}(3) in (-1.0, 1.0), y::Float64 in (0.1, 2.0)): "
            "passed") in out
    assert "minimal counterexample: bad([1.0, 0.0])" in out
    assert out.rstrip().endswith("true false")


def test_zyla_gradcheck_command(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gc.jl"
    path.write_text(LANG)
    assert dispatch(["gradcheck", str(path)]) == 1
    out = capsys.readouterr().out
    assert "2 properties: 1 passed, 1 failed" in out
    assert "minimal counterexample: bad([1.0, 0.0])" in out
    assert dispatch(["gradcheck", "--examples", "10", str(path), "good"]) == 0
    assert "1 property: 1 passed, 0 failed" in capsys.readouterr().out


def test_zyla_gradcheck_derives_inputs_from_a_signature(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sig.jl"
    path.write_text("h(x::Vector{Float64}, s::Float64) = s * sum(sin.(x))\nk(n::Int) = n\n")
    assert dispatch(["gradcheck", "--examples", "5", str(path), "h"]) == 0
    out = capsys.readouterr().out
    assert "h(x::Vector{Float64}(3) in (-1.0, 1.0), s::Float64 in (-1.0, 1.0)): passed" in out
    assert dispatch(["gradcheck", str(path), "k"]) == 1
    assert "no @gradcheck property for `k`" in capsys.readouterr().err
    assert dispatch(["gradcheck", str(path)]) == 1
    assert "no @gradcheck properties" in capsys.readouterr().err


def test_gradcheck_macro_errors_are_clean(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    for src, needle in (("@gradcheck 1 + 1", "needs a call"),
                        ("f(x) = x\n@gradcheck f(x::Vector{Float64} in (0, 1))", "needs 1 size"),
                        ("f(x) = x\n@gradcheck f(x::Float64 in (2, 1))", "invalid range"),
                        ("f(x) = x\n@gradcheck f(x::Float64) tries=3", "unknown option")):
        path = tmp_path / "m.jl"
        path.write_text(src + "\n")
        assert dispatch(["run", str(path)]) == 1
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err, err


def test_example_file_wrong_rrule_is_found(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's done-criterion: `zyla gradcheck` on the example with a wrong rrule."""
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "gradcheck_rrule.jl"
    assert dispatch(["gradcheck", "--examples", "20", str(example)]) == 1
    out = capsys.readouterr().out
    assert "layer_bad(" in out and "FAILED" in out
    line = next(ln for ln in out.splitlines() if "minimal counterexample" in ln)
    assert line.strip().startswith("minimal counterexample: layer_bad([0.0 0.0 0.0; 0.0 0.0 0.0]")
    assert "1 passed, 1 failed" in out


def test_drawn_values_respect_declared_ranges() -> None:
    @settings(max_examples=30, deadline=None)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        v = data.draw(zt.zyla_value("Float32", (4,), 0.25, 0.5))
        assert v.dtype == np.float32 and np.all((v >= 0.25) & (v <= 0.5))

    check()
