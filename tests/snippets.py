"""What the tests that run Zyla snippets share: one interpreter per test module (and
set-up source), what a snippet prints, a program of `@testset`s run as one test, the
recursion limit `zyla` runs programs with, and the host-tier runtimes and outcomes that
the tests of translated host code compare."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from grammar.errors import ZylaError
from lang.core.show import jl_show
from lang.door.api import Zyla

_SESSIONS: dict[tuple[str, str], Zyla] = {}

#: the recursion limit `zyla` runs programs with (lang/door/cli.py)
ZYLA_RECURSION_LIMIT = 20000


@contextlib.contextmanager
def zyla_recursion_limit() -> Iterator[None]:
    """Inside, Python's recursion limit is at least `zyla`'s: hypothesis sets it to about
    2,000 frames past the test's depth while it runs an example, and a second derivative
    through the host's pullback closures (or nested forward and reverse mode) nests deeper.
    tests/conftest.py sets it for whatever runs outside an example."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, ZYLA_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def session(module: str, setup: str = "") -> Zyla:
    """The interpreter of a test module, made at first use, after it ran `setup`."""
    key = (module, setup)
    z = _SESSIONS.get(key)
    if z is None:
        z = _SESSIONS[key] = Zyla()
        if setup:
            z.eval(setup)
    return z


def printed(z: Zyla, code: str, capsys: pytest.CaptureFixture) -> str:
    """What evaluating `code` in z prints, stripped."""
    capsys.readouterr()
    z.eval(code)
    return capsys.readouterr().out.strip()


def run_program(src: str) -> None:
    """Run a program (its `@test`s raise on failure) in a new interpreter; a Zyla error
    fails the test with the error and what the program printed."""
    z = Zyla()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            z.eval(src)
        except ZylaError as e:
            pytest.fail(f"{e}\n{out.getvalue()}")


def host_runtime(translate: bool) -> Zyla:
    """A runtime that runs everything on the host tier, as translated code or (False) on
    the interpreter loop alone."""
    z = Zyla()
    z.rt.compile_mode = "never"  # (the comparisons are of the host tier's two forms)
    z.rt.interp.translates = translate
    return z


def evaluated(z: Zyla, *sources: tuple[str, str]) -> tuple[str, Any]:
    """What running each (text, file name) in turn gives: ("value", (the last value
    shown, the output printed)), or ("error", (kind, message, line, the trace's lines))."""
    out = io.StringIO()
    v = None
    try:
        with contextlib.redirect_stdout(out):
            for text, name in sources:
                v = z.rt.run_source(text, name)
    except ZylaError as e:
        return "error", (e.kind, e.message, e.span.line if e.span else None,
                         [s.line for s, _ in e.trace])
    return "value", (jl_show(v), out.getvalue())
