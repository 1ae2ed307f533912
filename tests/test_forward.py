"""Forward mode (autodiff/forward.py): the tangent transform of the IR, the primitive
table's forward rules, user `frule`s, and the API built on it (`jvp`, `pushforward`,
`jacobian` column by column, `hessian` as forward-over-reverse).

Every derivative is checked against independent oracles: central finite differences of
the primal along the drawn direction, and `jax.jvp` of the lowered primal (JAX's forward
mode knows nothing of Zyla's). The gradient cases of tests/test_gradients.py, which cover
every differentiable primitive and the control-flow shapes (and, in their `d2_`/`d3_`
cases, gradients of gradients: forward-over-reverse), are reused as the table of
functions: for each, forward mode on the host, compiled, and the oracles must agree.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest
import test_gradients as tg
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st
from snippets import zyla_recursion_limit

from autodiff import forward
from grammar.errors import ZylaError
from lang.core.primitives import NONDIFF, Primitive
from lang.door.api import Zyla

jax.config.update("jax_enable_x64", True)

JVP_HELPER = "Core.fwd_test_jvp(f, n, xs...) = Core.jvp_call(f, nothing, n, xs...)"

# Cases for primitives whose forward rule no gradient case reaches (their pullback is
# NONDIFF: reverse-over-reverse drops these second derivatives, forward-over-reverse
# does not).
FORWARD_CASES: list[tg.Case] = [
    tg.Case("fwd_findext", "F(a) = findmax(a)[1] ^ 2 + 3.0 * findmin(a)[1]",
            tg.args(tg.distinct(3)), ("findmax", "findmin")),
    tg.nested("fwd_d2_findmax", "y -> findmax(y)[1] ^ 3", tg.args(tg.distinct(3), tg.arr_away0(3)),
              ("Core.findext_back",)),
]
ALL_CASES = tg.CASES + FORWARD_CASES


# --- directions ---------------------------------------------------------------------------------


def direction(a: Any) -> st.SearchStrategy:
    """A tangent for the argument tree a: a drawn value for every Float64 leaf, `None` for
    everything else, dicts for NamedTuples and structs (Zygote's conventions)."""
    if tg.is_float_leaf(a):
        if isinstance(a, np.ndarray):
            return st.lists(st.floats(-1, 1), min_size=a.size, max_size=a.size).map(
                lambda v, s=a.shape: np.array(v, dtype=np.float64).reshape(s))
        return st.floats(-1, 1)
    if isinstance(a, tuple):
        return st.tuples(*(direction(x) for x in a))
    if isinstance(a, dict):
        return st.fixed_dictionaries({k: direction(x) for k, x in a.items()})
    if isinstance(a, tg.Struct):
        return direction(a.fields)
    return st.none()


def shifted(a: Any, v: Any, h: float) -> Any:
    """a + h v on the float leaves of the tree."""
    if tg.is_float_leaf(a):
        return a + h * v
    if isinstance(a, tuple):
        return tuple(shifted(x, d, h) for x, d in zip(a, v, strict=False))
    if isinstance(a, dict):
        return {k: shifted(x, v[k], h) for k, x in a.items()}
    if isinstance(a, tg.Struct):
        return tg.Struct(a.name, shifted(a.fields, v, h))
    return a


def flat_direction(a: Any, v: Any) -> list:
    """The direction's values in the order of tg.leaves(a) (jax_primal's arguments)."""
    if tg.is_float_leaf(a):
        return [v]
    if isinstance(a, tuple):
        return [x for y, d in zip(a, v, strict=False) for x in flat_direction(y, d)]
    if isinstance(a, dict):
        return [x for k, y in a.items() for x in flat_direction(y, v[k])]
    if isinstance(a, tg.Struct):
        return flat_direction(a.fields, v)
    return []


class FwdSession:
    """The gradient tests' session, with forward-mode calls and jax.jvp oracles."""

    def __init__(self) -> None:
        self.s = tg.session()
        self.s.z.eval(JVP_HELPER)
        self.jvps: dict[tuple, Any] = {}

    def jvp(self, case: tg.Case, a: tuple, v: tuple, compiled: bool = False) -> tuple:
        z = self.s.z
        f = z.function(self.s.define(case))
        args = list(self.s.zargs(a)) + list(v)
        return z.call("Core.fwd_test_jvp", f, len(a), *args, compiled=compiled)

    def jax_jvp(self, case: tg.Case, a: tuple, v: tuple) -> float:
        lv = tg.leaves(a)
        xs = [x for _, x in lv]
        vs = flat_direction(a, v)
        key = (case.name, tg.statics(a))
        fn = self.jvps.get(key)
        if fn is None:
            primal = self.s.z.jax_primal(self.s.define(case), *self.s.zargs(a))
            fn = self.jvps[key] = jax.jit(lambda p, t: jax.jvp(primal, p, t))
        # the oracle runs on the CPU: on a GPU, JAX's jvp of max-pooling packs value and
        # tangent into one 64-bit word and so rounds Float64 to about 7 digits
        # (select_and_gather_add's GPU lowering; it warns "Using reduced precision")
        with jax.default_device(jax.devices("cpu")[0]):
            _, t = fn(tuple(xs), tuple(np.asarray(x, dtype=np.float64) for x in vs))
        return float(t)


_FWD: list[FwdSession] = []


def fwd_session() -> FwdSession:
    if not _FWD:
        _FWD.append(FwdSession())
    return _FWD[0]


FD_RTOL, FD_ATOL = 1e-5, 1e-6
JAX_RTOL, JAX_ATOL = 1e-9, 1e-12


def check_jvp(fs: FwdSession, case: tg.Case, a: tuple, v: tuple) -> None:
    s = fs.s
    if case.guard is not None:
        assume(case.guard(*a))
    y, dy = fs.jvp(case, a, v)
    assert y == pytest.approx(s.primal(case, a), rel=1e-12, abs=1e-14), "jvp primal"
    dy = 0.0 if dy is None else dy  # `nothing`: the tangent is structurally zero
    assert isinstance(dy, float), f"{case.name}: tangent is {dy!r}"
    vmax = max([0.0] + [float(np.max(np.abs(x))) for x in flat_direction(a, v)])
    assume(vmax > 1e-3)
    h = 1e-6 * max([1.0] + [float(np.max(np.abs(x))) for _, x in tg.leaves(a)]) / vmax
    prim = lambda b: s.primal(case, b, compiled=case.offload)  # noqa: E731

    def central(step: float) -> float:
        return (prim(shifted(a, v, step)) - prim(shifted(a, v, -step))) / (2 * step)

    def close(p: float, q: float) -> bool:
        return p == pytest.approx(q, rel=FD_RTOL, abs=FD_ATOL * max(1.0, abs(q)))

    fd = central(h)
    scale = max(1.0, abs(fd))
    if not close(dy, fd):
        # a second step size: a difference quotient that moves with the step has not
        # converged (rounding, or a kink within the step) and checks nothing; one that
        # does not move must equal the tangent
        fd2 = central(h / 8)
        assume(close(fd2, fd))
        assert close(dy, fd2), f"jvp vs finite differences: {dy} vs {fd}, {fd2}"
    if not case.offload:
        return
    if tg.leaves(a):
        assert dy == pytest.approx(fs.jax_jvp(case, a, v), rel=JAX_RTOL, abs=JAX_ATOL * scale), \
            "jvp vs jax.jvp"
    y_c, dy_c = fs.jvp(case, a, v, compiled=True)
    dy_c = 0.0 if dy_c is None else dy_c
    assert dy_c == pytest.approx(dy, rel=1e-10, abs=1e-13 * scale), "compiled vs host jvp"


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.name)
def test_jvp(case: tg.Case) -> None:
    """Forward mode on every gradient case: host jvp against finite differences and
    jax.jvp, compiled jvp against host."""
    fs = fwd_session()

    @st.composite
    def draw(d: Any) -> tuple:
        a = d(case.draw)
        return a, d(direction(a))

    def run(av: tuple) -> None:
        with zyla_recursion_limit():
            check_jvp(fs, case, *av)

    test = given(draw())(run)
    for w in case.witnesses:
        test = example((w, _ones(w)))(test)
    settings(max_examples=min(case.examples, 2), deadline=None, database=None,
             phases=[Phase.explicit, Phase.generate],
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])(test)()


def _ones(a: Any) -> Any:
    """The all-ones direction for an explicit witness."""
    if tg.is_float_leaf(a):
        return np.ones_like(a) if isinstance(a, np.ndarray) else 1.0
    if isinstance(a, tuple):
        return tuple(_ones(x) for x in a)
    if isinstance(a, dict):
        return {k: _ones(x) for k, x in a.items()}
    if isinstance(a, tg.Struct):
        return _ones(a.fields)
    return None


# --- the table is honest: each case's forward mode runs the rules of its primitives ------------


def _recording(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Names of the primitives differentiated in forward mode from now on: those whose
    forward rule is fetched, and those the dispatcher gets with a nonzero tangent."""
    seen: set[str] = set()
    rule, call = forward._forward_rule, forward.jvp_call

    def recording_rule(interp: Any, p: Primitive, bcast: bool) -> Any:
        seen.add(p.name)
        return rule(interp, p, bcast)

    def recording_call(interp: Any, f: Any, df: Any, args: list, dargs: list, *rest: Any) -> Any:
        if isinstance(f, Primitive) and not all(forward.is_zero(d) for d in dargs):
            seen.add(f.name)
        return call(interp, f, df, args, dargs, *rest)

    monkeypatch.setattr(forward, "_forward_rule", recording_rule)
    monkeypatch.setattr(forward, "jvp_call", recording_call)
    return seen


@pytest.mark.parametrize("case", [c for c in ALL_CASES if not c.bug], ids=lambda c: c.name)
def test_jvp_cases_differentiate_their_primitives(case: tg.Case,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    fs = fwd_session()
    seen: set[str] = set()

    def run(a: tuple, v: tuple) -> None:
        with monkeypatch.context() as m:
            recorded = _recording(m)
            fs.jvp(case, a, v)
        seen.update(recorded)

    if case.witnesses:
        for w in case.witnesses:
            run(w, _ones(w))
    else:
        @settings(max_examples=1, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
        @given(st.data())
        def draw_one(d: Any) -> None:
            a = d.draw(case.draw)
            if case.guard is not None:
                assume(case.guard(*a))
            run(a, _ones(a))

        draw_one()
    nondiff = {p for p in case.prims if forward.PRIMITIVES[p].forward == NONDIFF}
    assert sorted(set(case.prims) - seen - nondiff) == []


# --- the API -------------------------------------------------------------------------------------

SRC = r"""
struct Lin
    a
    b
end
(m::Lin)(x) = m.a * x + m.b
lin_at(m) = m(3.0)
scaled(x, n) = x * n
function captures(x)
    a = 2x
    f = y -> a * y
    f(x) + map(t -> t * a, [x, x])[2]
end

function decay(x0, c, r)
    # a while loop whose trip count depends on the data
    x = x0
    n = 0
    while x > c
        x = x * r + 0.001 * sin(x)
        n += 1
    end
    x * n
end
jvp_decay(x, c, r) = jvp(y -> decay(y, c, r), x, 1.0)[2]

function mixed(x)
    s = 0.0
    for i in 1:3
        if x[i] > 0
            s += x[i]^3 * x[1]
        else
            s += sin(x[i]) * x[2]
        end
    end
    k = 0
    while s > 10.0
        s = s / 2
        k += 1
    end
    s + k
end
hess_mixed(x) = hessian(mixed, x)
hess_rev_mixed(x) = hessian_reverse(mixed, x)
grad_mixed(x) = gradient(mixed, x)[1]

tall(x) = [sin(x[1]) * x[2], x[1]^2, exp(x[2]), x[1] * x[2] * 3.0]

using ChainRulesCore
slow_cube(x) = x^3
function ChainRulesCore.frule(Δ, ::typeof(slow_cube), x)
    # deliberately not the true derivative 3x^2, to show that the user's rule wins
    return slow_cube(x), 10.0 * Δ[2]
end
uses_cube(x) = slow_cube(x) + x
zeroed(x) = x^2
ChainRulesCore.frule(Δ, ::typeof(zeroed), x) = (zeroed(x), ZeroTangent())
notan(x) = x^2
ChainRulesCore.frule(Δ, ::typeof(notan), x) = (notan(x), NoTangent())

function keyword_pow(x; p=3)
    x^p
end
"""


@pytest.fixture(scope="module")
def z() -> Zyla:
    zz = Zyla()
    zz.eval(SRC)
    return zz


def fd(f: Any, x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


def test_jvp_conventions(z: Zyla) -> None:
    # a struct argument's tangent is a NamedTuple of its fields
    assert z.eval("jvp(lin_at, Lin(2.0, 1.0), (a = 1.0, b = 0.5))") == (7.0, 3.5)
    # an integer argument's tangent is propagated, as by ChainRules' frules and by
    # reverse mode (it was dropped: a silent zero); a constant function has a zero tangent
    assert z.eval("jvp(n -> scaled(2.0, n), 3, 1)") == (6.0, 2.0)
    assert z.eval("jvp(x -> 3.0, 2.0, 1.0)") == (3.0, 0.0)
    # a closure's captures carry tangents (a = 2x is captured)
    assert z.eval("jvp(captures, 1.5, 1.0)") == (9.0, 12.0)
    # default keyword values and passed keywords
    assert z.eval("jvp(x -> keyword_pow(x), 2.0, 1.0)") == (8.0, 12.0)
    assert z.eval("jvp(x -> keyword_pow(x; p=2), 2.0, 1.0)") == (4.0, 4.0)
    assert z.eval("pushforward(x -> x .^ 2, [1.0, 3.0])([1.0, 0.5])").tolist() == [2.0, 3.0]
    # tuples and NamedTuples of tangents; integers get `nothing`; a returned closure's
    # tangent is the NamedTuple of its captures' tangents
    assert z.eval("jvp(x -> (x, 2x), 2.0, 1.0)") == ((2.0, 4.0), (1.0, 2.0))
    nt = z.eval("jvp(x -> (a = x, b = 3), 2.0, 1.0)")
    assert nt == ({"a": 2.0, "b": 3}, {"a": 1.0, "b": None})
    assert z.eval("jvp(x -> (y -> x * y), 2.0, 1.0)[2]") == {"x": 1.0}


def test_user_frule_wins_and_normalises_zero_tangents(z: Zyla) -> None:
    assert z.eval("jvp(uses_cube, 2.0, 1.0)") == (10.0, 11.0)  # 10 from the rule, 1 from + x
    assert z.eval("jvp(zeroed, 2.0, 1.0)") == (4.0, 0.0)
    assert z.eval("jvp(notan, 2.0, 1.0)") == (4.0, 0.0)
    # reverse mode does not see frules
    assert z.gradient("uses_cube", 2.0) == (13.0,)


@pytest.mark.parametrize("x, c, r, host", [(1.5, 1.0, 0.5, True), (40.0, 1.0, 0.5, True),
                                           (3.0e3, 1.0e-3, 0.5, True), (1.0, 0.05, 0.99, False),
                                           (1.0, 1.0e-3, 0.995, False)])
def test_jvp_through_while_compiled_is_one_executable(z: Zyla, x: float, c: float, r: float,
                                                      host: bool) -> None:
    """Forward mode through a data-dependent `while`: one XLA executable, whatever the trip
    count (1 to thousands, in one process), equal to finite differences and to the host."""
    from backend.compile import lower_text

    d = z.call("jvp_decay", x, c, r, compiled=True)
    h = 1e-7 * max(1.0, abs(x))
    up, down = (z.call("decay", x + s, c, r, compiled=True) for s in (h, -h))
    num = (up - down) / (2 * h)
    assert d == pytest.approx(num, rel=1e-4, abs=1e-7)
    if host:  # (the host interpreter is slow on long loops)
        assert d == pytest.approx(z.call("jvp_decay", x, c, r), rel=1e-12)
    text = lower_text(z.rt, z.rt.lookup("jvp_decay"), [x, c, r])
    assert text.count("HloModule") == 1 and text.count(" while(") == 1


def _mixed_guard(x: np.ndarray) -> bool:
    # keep away from the branch switch (x[i] = 0) and the while's halving thresholds
    return bool(np.min(np.abs(x)) > 0.05)


@settings(max_examples=8, deadline=None, database=None)
@given(st.lists(st.floats(0.06, 1.5) | st.floats(-1.5, -0.06), min_size=3,
                max_size=3).map(np.array))
def test_hessian_forward_over_reverse(z: Zyla, x: np.ndarray) -> None:
    """hessian (forward-over-reverse, through for/if/while) equals hessian_reverse, finite
    differences of the gradient, and its compiled self."""
    assume(_mixed_guard(x))
    H = z.call("hess_mixed", x)
    assert H.shape == (3, 3)
    np.testing.assert_allclose(H, z.call("hess_rev_mixed", x), rtol=1e-9, atol=1e-10)
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1e-6
        col = (z.call("grad_mixed", x + e) - z.call("grad_mixed", x - e)) / 2e-6
        np.testing.assert_allclose(H[:, j], col, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z.call("hess_mixed", x, compiled=True), H, rtol=1e-10, atol=1e-12)


def test_hessian_of_a_scalar_function_is_a_scalar(z: Zyla) -> None:
    x = 0.7
    h = z.eval(f"hessian(x -> sin(x) * x^3, {x!r})")
    exact = -np.sin(x) * x**3 + 6 * np.cos(x) * x**2 + 6 * x * np.sin(x)
    assert h == pytest.approx(exact, rel=1e-12)


def test_jacobian_of_a_tall_function_runs_forward_columns(z: Zyla,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([0.3, -1.2])
    calls: list[int] = []
    run = forward._run_jvp

    def counting(*a: Any) -> Any:
        calls.append(1)
        return run(*a)

    monkeypatch.setattr(forward, "_run_jvp", counting)
    J = z.eval("jacobian(tall, [0.3, -1.2])[1]")
    assert calls, "the tall Jacobian did not use forward mode"
    a, b = x
    expected = np.array([[np.cos(a) * b, np.sin(a)], [2 * a, 0.0], [0.0, np.exp(b)],
                         [3 * b, 3 * a]])
    np.testing.assert_allclose(J, expected, rtol=1e-12)
    reverse = z.eval("Core.jacobian_reverse(tall, [0.3, -1.2])")
    np.testing.assert_allclose(reverse, expected, rtol=1e-12)


def test_tangent_function_is_cached_plain_ir(z: Zyla) -> None:
    from lang.core.ir import format_function

    fn = z.rt.lookup("decay").methods[0].fn
    t1 = forward.jvp_function(fn)
    assert forward.jvp_function(fn) is t1
    text = format_function(t1)
    # a while loop carrying tangents (x and its tangent; n is an Int, still carried)
    assert "while(" in text and "fcall" in text and "tuple" in text
    assert "tape" not in text


def test_forward_over_forward_and_reverse_over_forward_are_clear_errors(z: Zyla) -> None:
    with pytest.raises(ZylaError, match="forward mode"):
        z.eval("jvp(x -> jvp(y -> y^3, x, 1.0)[2], 2.0, 1.0)")
    with pytest.raises(ZylaError, match="Core.jvp_call"):
        z.eval("gradient(x -> jvp(y -> y^3, x, 1.0)[2], 2.0)")


def test_tangent_functions_verify(z: Zyla) -> None:
    """The transform's output is well-formed IR (lang.core.verify), for plain functions and for
    the IR reverse mode emits (a forward function with pcalls and loop tapes, its adjoint:
    what forward-over-reverse transforms)."""
    from autodiff.reverse import adjoint_functions
    from autodiff.reverse import forward as reverse_forward
    from lang.core.verify import verify

    prims = [z.rt.lookup(n).methods[0].fn for n in ("decay", "mixed", "lin_at", "keyword_pow")]
    mixed = prims[1]
    fns = prims + [reverse_forward(mixed)] + adjoint_functions(mixed)
    for fn in fns:
        verify(fn)
        verify(forward.jvp_function(fn))


# --- golden tangent IR (tests/golden/*.jvp.ir; ZYLA_UPDATE_GOLDEN=1 regenerates) -----------------


def _ir_cases() -> list[str]:
    import test_ir

    return list(test_ir.AD_CASES)


@pytest.mark.parametrize("name", _ir_cases())
def test_golden_tangent_ir(name: str) -> None:
    """The tangent function of the control-flow shapes: loops carry tangents (no tape), an
    `if` yields its outputs' tangents, calls with tangents are `fcall`s."""
    import test_ir

    from lang.core.ir import format_module

    fn = forward.jvp_function(test_ir.method_fn(name))
    test_ir.check_golden(test_ir.GOLDEN / f"{name}.jvp.ir", format_module(fn) + "\n")


def _decay_derivative(x0: float, c: float, r: float) -> tuple[float, int]:
    """d/dx0 of `decay` by the chain rule, step by step in Python, and the trip count."""
    x, d, n = x0, 1.0, 0
    while x > c:
        d *= r + 0.001 * np.cos(x)
        x = x * r + 0.001 * np.sin(x)
        n += 1
    return d * n, n


@pytest.mark.parametrize("x, c, r", [(1.0, 1e-3, 0.998), (2.0, 1e-3, 0.9985), (1.0, 0.05, 0.99)])
def test_long_while_derivatives_are_exact(z: Zyla, x: float, c: float, r: float) -> None:
    """Forward and reverse mode through thousands of `while` trips (331 to 14392) equal the
    chain rule applied step by step, to rounding (finite differences cannot check this
    closely: their error over a long loop is far larger than AD's)."""
    exact, trips = _decay_derivative(x, c, r)
    assert trips > 300
    assert z.call("jvp_decay", x, c, r, compiled=True) == pytest.approx(exact, rel=1e-12)
    g = z.call("gradient", z.eval(f"y -> decay(y, {c!r}, {r!r})"), x, compiled=True)[0]
    assert g == pytest.approx(exact, rel=1e-12)
