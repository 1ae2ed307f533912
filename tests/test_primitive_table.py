"""The primitive table is complete (DESIGN.md, decision 2: "A test checks that each
primitive has an entry in every table"), its pullback and forward rules compile, and every
differentiable primitive has a gradient test in tests/test_gradients.py (which
tests/test_forward.py also runs in forward mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import test_gradients as tg
from hypothesis import HealthCheck, Phase, assume, given, settings
from snippets import zyla_recursion_limit

from autodiff import forward as ad_forward
from autodiff import runtime as ad_runtime
from autodiff.runtime import BCAST_RULES, _state
from lang.core.functions import Closure, GenericFunction
from lang.core.primitives import INFER_BY_LOWERING, NONDIFF, PRIMITIVES, HostOnly, Primitive
from lang.door.wiring import Runtime

# Pullbacks that are neither Zyla source nor NONDIFF: the AD runtime handles these
# primitives itself (autodiff/runtime.py: pullback_call, _prim_pullback).
MARKERS = {"SPECIAL", "BROADCAST", "NAMEDTUPLE", "CHECKPOINT", "WITH_RNG"}


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return Runtime()  # registers every primitive (builtins, AD helpers, dumps)


def is_source(pullback: str) -> bool:
    return pullback != NONDIFF and pullback not in MARKERS


def differentiable(p: Primitive) -> bool:
    """Numeric and differentiable: it lowers to XLA and has a derivative (SPECIAL ones are
    differentiated by the AD dispatcher itself, or refused there with an error)."""
    return not isinstance(p.jax, HostOnly) and p.pullback not in (NONDIFF, "SPECIAL")


def offenders(rt: Runtime, bad: Callable[[Primitive], bool]) -> list[str]:
    """The table's names whose primitive is `bad` (rt: the runtime that filled the table)."""
    assert rt.interp is not None and len(PRIMITIVES) > 100, "too few primitives registered"
    return sorted(name for name, p in PRIMITIVES.items() if bad(p))


def test_names_match(rt: Runtime) -> None:
    assert offenders(rt, lambda p: PRIMITIVES.get(p.name) is not p) == []


def test_host_entries_are_callable(rt: Runtime) -> None:
    assert offenders(rt, lambda p: not callable(p.host)) == []


def test_jax_entries_are_lowerings_or_say_why_not(rt: Runtime) -> None:
    def bad(p: Primitive) -> bool:
        if isinstance(p.jax, HostOnly):
            return not isinstance(p.jax.reason, str) or not p.jax.reason.strip()
        return not callable(p.jax)

    assert offenders(rt, bad) == []


def test_pullback_entries_are_rules_or_markers(rt: Runtime) -> None:
    def bad(p: Primitive) -> bool:
        if not isinstance(p.pullback, str) or not p.pullback.strip():
            return True
        # a rule is a lambda, or the name of a Zyla rule function (`Core.cumsum_rule`)
        named = p.pullback.startswith("Core.")
        return is_source(p.pullback) and "->" not in p.pullback and not named

    assert offenders(rt, bad) == []
    used = {p.pullback for p in PRIMITIVES.values() if not is_source(p.pullback)}
    assert used <= MARKERS | {NONDIFF}


def test_infer_entries(rt: Runtime) -> None:
    assert offenders(rt, lambda p: not (callable(p.infer) or p.infer == INFER_BY_LOWERING)) == []
    assert offenders(rt, lambda p: p.elementwise is not None and not callable(p.elementwise)) == []


def test_pullback_sources_compile(rt: Runtime) -> None:
    """Every rule written in Zyla parses and compiles to a callable (catches typos in rule
    sources), and so does the broadcast rule of every differentiable elementwise primitive."""
    st = _state(rt.interp)
    failures = []
    for name, p in sorted(PRIMITIVES.items()):
        variants = [False] if is_source(p.pullback) else []
        if p.elementwise is not None and (is_source(p.pullback) or p.name in BCAST_RULES):
            variants.append(True)
        for bcast in variants:
            try:
                rule = st.rule(p, bcast=bcast)
            except Exception as e:  # report them all, not the first
                failures.append(f"{name}{' (broadcast)' * bcast}: {type(e).__name__}: {e}")
                continue
            if not isinstance(rule, Closure | GenericFunction):
                failures.append(f"{name}: the rule compiled to {rule!r}")
    assert failures == []


# --- every differentiable primitive has a gradient test -------------------------------------


# Rules that refuse (an `error(...)` naming what is not supported) instead of giving a
# wrong derivative; each refusal has its own test, named here.
REFUSING = {"Core.prod_pair": "test_gradients.py::test_third_derivative_of_prod_is_refused",
            "Core.svd_u": "test_linalg.py::test_factor_derivatives_are_refused",
            "Core.svd_vt": "test_linalg.py::test_factor_derivatives_are_refused",
            "Core.qr_q": "test_linalg.py::test_factor_derivatives_are_refused",
            "Core.qr_r": "test_linalg.py::test_factor_derivatives_are_refused"}


def test_every_differentiable_primitive_has_a_gradient_test(rt: Runtime) -> None:
    covered = {p for case in tg.CASES for p in case.prims} | set(REFUSING)
    assert sorted(covered - set(PRIMITIVES)) == [], "cases name unknown primitives"
    assert offenders(rt, lambda p: differentiable(p) and p.name not in covered) == []
    assert all("error(" in PRIMITIVES[name].pullback for name in REFUSING)


def _recording(monkeypatch: pytest.MonkeyPatch, z: Any) -> set[str]:
    """Names of the primitives differentiated from now on: those the AD dispatcher is
    asked to pull back, and those whose rule is fetched (broadcasts, nested AD)."""
    seen: set[str] = set()
    st = _state(z.rt.interp)
    rule, pullback_call = st.rule, ad_runtime.pullback_call

    def recording_rule(p: Primitive, bcast: bool = False) -> Any:
        seen.add(p.name)
        return rule(p, bcast)

    def recording_pullback_call(interp: Any, f: Any, *rest: Any, **kw: Any) -> Any:
        if isinstance(f, Primitive):
            seen.add(f.name)
        return pullback_call(interp, f, *rest, **kw)

    monkeypatch.setattr(st, "rule", recording_rule)
    monkeypatch.setattr(ad_runtime, "pullback_call", recording_pullback_call)
    return seen


@pytest.mark.parametrize("case", [c for c in tg.CASES if not c.bug], ids=lambda c: c.name)
def test_gradient_cases_differentiate_their_primitives(case: tg.Case,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The case table is honest: a case's host gradient runs the pullback of every
    primitive the case names, on one drawn input or, where a case has them, on all its
    witnesses (one per branch). Known-bug cases are left out: they fail."""
    s = tg.session()
    fname = s.define(case)
    seen: set[str] = set()

    def run(a: tuple) -> None:
        zargs = s.zargs(a)
        with zyla_recursion_limit(), monkeypatch.context() as m:
            recorded = _recording(m, s.z)
            s.z.gradient(fname, *zargs)
        seen.update(recorded)

    if case.witnesses:
        for w in case.witnesses:
            run(w)
    else:
        @settings(max_examples=1, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
        @given(case.draw)
        def draw_one(a: tuple) -> None:
            if case.guard is not None:
                assume(case.guard(*a))
            run(a)

        draw_one()
    assert sorted(set(case.prims) - seen) == []


# --- forward mode (autodiff/forward.py) -------------------------------------------------------


def test_forward_entries_are_rules_or_markers(rt: Runtime) -> None:
    """Every primitive has a forward entry: Zyla source (a lambda, or the name of a Zyla
    rule function) or one of forward mode's markers."""
    def bad(p: Primitive) -> bool:
        f = p.forward
        if not isinstance(f, str) or not f.strip():
            return True
        return f not in ad_forward.FORWARD_MARKERS and "->" not in f and not f.startswith("Core.")

    assert offenders(rt, bad) == []


def test_differentiable_primitives_have_forward_rules(rt: Runtime) -> None:
    """A primitive with a pullback has a forward rule too, or says why not (NOFORWARD, or
    SPECIAL where the dispatcher differentiates it itself)."""
    assert offenders(rt, lambda p: p.pullback != NONDIFF and p.forward == NONDIFF) == []


def test_forward_sources_compile(rt: Runtime) -> None:
    """Every forward rule written in Zyla compiles to a callable, and so does the
    broadcast variant of every elementwise one."""
    failures = []
    for name, p in sorted(PRIMITIVES.items()):
        if p.forward in ad_forward.FORWARD_MARKERS:
            continue
        variants = [False] + ([True] if p.elementwise is not None else [])
        for bcast in variants:
            try:
                rule = ad_forward._forward_rule(rt.interp, p, bcast)
            except Exception as e:  # report them all, not the first
                failures.append(f"{name}{' (broadcast)' * bcast}: {type(e).__name__}: {e}")
                continue
            if not isinstance(rule, Closure | GenericFunction):
                failures.append(f"{name}: the forward rule compiled to {rule!r}")
    assert failures == []


def test_every_forward_rule_has_a_test(rt: Runtime) -> None:
    """Every lowerable primitive with a forward rule is named by a case that
    tests/test_forward.py runs in forward mode (and checks it differentiates)."""
    import test_forward as tf

    covered = {p for case in tf.ALL_CASES for p in case.prims}

    def untested(p: Primitive) -> bool:
        return (not isinstance(p.jax, HostOnly) and p.forward not in ad_forward.FORWARD_MARKERS
                and p.name not in covered)

    assert offenders(rt, untested) == []


def test_a_primitive_without_forward_rule_is_a_clear_error(rt: Runtime) -> None:
    """NOFORWARD: forward mode stops with an AD error naming the primitive and the line."""
    from grammar.errors import ZylaError

    rt.run_source("fwd_nofwd(x) = Core.prod_pair(x, x)\n", "nofwd.jl")
    f = rt.lookup("fwd_nofwd")
    import numpy as np

    with pytest.raises(ZylaError) as e:
        rt.interp.call_value(rt.lookup("jvp"), [f, np.array([1.0, 2.0]), np.array([1.0, 0.0])])
    text = str(e.value)
    assert "Core.prod_pair" in text and "forward" in text, text
    assert e.value.span is not None and e.value.span.line == 1, text
