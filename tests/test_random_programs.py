"""Differential testing with random well-typed programs (lang.door.randprog): the host
interpreter, the compiled executable, central finite differences and `jax.grad` of the
lowered primal must agree. A small batch here; `scripts/random_programs.py N` runs a
large one (docs/TESTING.md records the figures).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from grammar.parser import parse
from lang.door import randprog as R
from lang.door.wiring import Runtime

_RT: list[Runtime] = []


def runtime() -> Runtime:
    if not _RT:
        _RT.append(Runtime())
    return _RT[0]


def _assert_agrees(prog: R.Program, out: R.Outcome) -> None:
    assert out.status in ("agree", "skipped"), (
        f"{out.status}: {out.detail}\n{prog.source}{prog.call_source()}")


@settings(max_examples=3, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(R.programs(max_statements=4))
def test_host_compiled_fd_and_jax_agree(prog: R.Program) -> None:
    _assert_agrees(prog, R.check(runtime(), prog, compiled=True))


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(R.programs())
def test_host_fd_and_jax_agree(prog: R.Program) -> None:
    _assert_agrees(prog, R.check(runtime(), prog, compiled=False))


@settings(max_examples=80, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(R.programs(max_statements=8, known_bugs=True))
def test_generated_programs_parse(prog: R.Program) -> None:
    stmts = parse(prog.source, "prog.jl").stmts
    assert len(stmts) == 1
    assert prog.source.startswith("function prog(x::Vector{Float64}, W::Matrix{Float64}")
    x, w, s = prog.args
    assert x.shape == (prog.n,) and w.shape == (prog.n, prog.m) and isinstance(s, float)
    assert prog.has_while == ("while " in prog.source)


def test_a_disagreement_is_reported() -> None:
    """The checker itself: a program whose gradient is wrong must not pass. A custom
    rrule with the wrong derivative plays the part of an AD bug."""
    rt = runtime()
    rt.run_source("using ChainRulesCore\nwrongsin(x) = sin(x)\n"
                  "ChainRulesCore.rrule(::typeof(wrongsin), x) = "
                  "(wrongsin(x), dy -> (NoTangent(), dy * sin(x)))\n", "wrong.jl")
    src = ("function prog(x::Vector{Float64}, W::Matrix{Float64}, s::Float64)\n"
           "    return wrongsin(s) + sum(x)\nend\n")
    import numpy as np

    prog = R.Program(src, 1, 1, False, [np.array([0.5]), np.array([[0.25]]), 0.75])
    out = R.check(rt, prog, compiled=False)
    assert out.status == "ad-vs-fd", out


@pytest.mark.parametrize("name", sorted(R.KNOWN_BUGS))
def test_known_bugs_are_documented(name: str) -> None:
    assert R.KNOWN_BUGS[name]
