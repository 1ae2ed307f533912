"""Language breadth and Base/stdlib: the Julia programs in tests/jl/*.jl (each a top-level
`@testset` whose expected values follow Julia's documented semantics), plus checks that
the numeric additions compile to XLA and differentiate.

Each program runs in its own in-process runtime with the compile tier off (the host
interpreter is the reference semantics); a failing `@test` makes the run raise
`TestSetException`, whose report (the captured output) is shown.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from grammar.errors import ZylaError, format_error
from lang.door.api import Zyla
from lang.door.cli import command
from lang.door.wiring import Runtime

JL = Path(__file__).parent / "jl"
PROGRAMS = ["types", "modules", "collections", "strings_io", "exceptions",
            "arrays", "numeric", "stdlib"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZYLA_COMPILE", "never")
    path = JL / f"{name}.jl"
    rt = Runtime()
    rt.current_file = str(path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rt.run_source(path.read_text(), str(path))
        except ZylaError as e:
            pytest.fail(out.getvalue() + format_error(e))
    assert "Test Summary:" in out.getvalue()


def test_args_reach_the_program(tmp_path: Path) -> None:
    prog = tmp_path / "args.jl"
    prog.write_text('println(length(ARGS), " ", join(ARGS, "|"))\n')
    r = subprocess.run(command() + ["run", str(prog), "a", "b c"], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "ZYLA_COMPILE": "never"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "2 a|b c\n"


# --- the numeric additions: compiled equals host, gradients match finite differences ----------

@pytest.fixture(scope="module")
def z() -> Zyla:
    s = Zyla()
    s.eval("""
    using LinearAlgebra
    f_repeat(x) = sum(repeat(x, 2, 3) .* reshape(1.0:24.0, 4, 6))
    f_inner(x) = sum(repeat(x; inner=(2, 1)) .^ 2)
    f_cat(x) = sum(cat(x, 2 .* x; dims=3) .* reshape(1.0:12.0, 2, 3, 2))
    f_drop(x) = sum(dropdims(sum(x; dims=2); dims=2) .^ 2)
    f_det(x) = det(x)
    f_inv(x) = sum(inv(x) .* [1.0 2.0; 3.0 4.0])
    f_solve(x) = sum(x \\ [1.0, 2.0])
    f_atan(x) = sum(atan.(x, 2.0))
    f_hyp(x) = sum(asinh.(x) .+ atanh.(x ./ 2))
    f_eye(x) = sum((x + I) .^ 2) + sum(2I * x)
    f_pow(x) = sum(x^3)
    f_reduce(x) = reduce(+, x .^ 2; init=1.0) + foldl(*, x[1:2])
    """)
    return s


X22 = np.array([[2.0, 0.5], [0.3, 1.5]])
X23 = np.array([[0.1, -0.4, 0.7], [0.2, 0.5, -0.3]])
CASES = [("f_repeat", X22), ("f_inner", X23), ("f_cat", X23), ("f_drop", X23), ("f_det", X22),
         ("f_inv", X22), ("f_solve", X22), ("f_atan", X23), ("f_hyp", X23), ("f_eye", X22),
         ("f_pow", X22), ("f_reduce", X23)]


def _fd(z: Zyla, name: str, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (z.call(name, x + e) - z.call(name, x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("name,x", CASES, ids=[c[0] for c in CASES])
def test_numeric_additions_compile_and_differentiate(z: Zyla, name: str, x: np.ndarray) -> None:
    host = z.call(name, x)
    assert np.allclose(z.call(name, x, compiled=True), host, rtol=1e-10, atol=1e-12)
    (g,) = z.gradient(name, x)
    assert np.allclose(g, _fd(z, name, x), rtol=1e-5, atol=1e-6)
    (gc,) = z.gradient(name, x, compiled=True)
    assert np.allclose(gc, g, rtol=1e-9, atol=1e-12)


def test_test_skip_counts_a_broken_test_without_running_it() -> None:
    rt = Runtime()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rt.run_source('using Test\n@testset "s" begin\n@test 1 == 1\n@test_skip error("never")\n'
                      "@test_broken 1 == 2\nend\n", "skip.jl")
    header, row = out.getvalue().splitlines()[:2]
    assert header.split()[3:6] == ["Pass", "Broken", "Total"], header
    assert row.split()[2:5] == ["1", "2", "3"], row
