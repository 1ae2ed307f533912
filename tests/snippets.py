"""What the tests that run Zyla snippets share: one interpreter per test module (and
set-up source), what a snippet prints, a program of `@testset`s run as one test, and the
recursion limit `zyla` runs programs with."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator

import pytest

from grammar.errors import ZylaError
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
