"""The REPL (`zyla` with no arguments) driven through a pipe (stdin is not a tty).

Inputs are complete when the parser says so (a `function ... end` may span lines), results
are displayed as Julia displays them, an error is reported and the session goes on, and
end of input ends the session with status 0.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lang.door.cli import command as zyla_cmd

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120


def repl(text: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    return subprocess.run(zyla_cmd(), input=text, capture_output=True, text=True,
                          timeout=TIMEOUT, env=env)


def outputs(stdout: str) -> list[str]:
    """The non-empty display lines, with prompts stripped."""
    out = []
    for line in stdout.splitlines():
        while True:
            s = line.lstrip()
            if s.startswith(("julia>", "zyla>")):
                line = s[len("julia>" if s.startswith("julia>") else "zyla>"):]
                continue
            break
        line = line.strip()
        if line:
            out.append(line)
    return out


SESSION = """\
function addmul(a, b)
    s = a + b
    return s * 2
end
addmul(3, 4)
1 + 2
undefined_in_repl
"still alive"
[1.0, 2.0]
quiet = 5;
quiet + 1
for i in 1:3
    println("i=", i)
end
v = [1,
 2,
 3]
sum(v) * 100
"""


@pytest.fixture(scope="module")
def session() -> subprocess.CompletedProcess[str]:
    return repl(SESSION)


def test_eof_exits_zero(session: subprocess.CompletedProcess[str]) -> None:
    assert session.returncode == 0, session.stderr
    assert "Traceback" not in session.stderr


def test_multiline_function_then_call(session: subprocess.CompletedProcess[str]) -> None:
    assert "14" in outputs(session.stdout)


def test_results_displayed_julia_style(session: subprocess.CompletedProcess[str]) -> None:
    out = outputs(session.stdout)
    assert "3" in out
    # an array is displayed with its summary line and one element per line
    i = out.index("2-element Vector{Float64}:")
    assert out[i + 1:i + 3] == ["1.0", "2.0"]
    # a String result is displayed with quotes
    assert '"still alive"' in out


def test_error_does_not_end_session(session: subprocess.CompletedProcess[str]) -> None:
    err = session.stderr
    assert "ERROR:" in err and "UndefVarError" in err and "undefined_in_repl" in err
    assert "Traceback" not in err
    out = outputs(session.stdout)
    # inputs after the error are still evaluated
    assert '"still alive"' in out
    assert "6" in out


def test_semicolon_suppresses_display(session: subprocess.CompletedProcess[str]) -> None:
    out = outputs(session.stdout)
    assert "5" not in out
    assert "6" in out


def test_multiline_loop_prints_in_order(session: subprocess.CompletedProcess[str]) -> None:
    out = outputs(session.stdout)
    idx = [out.index(f"i={k}") for k in (1, 2, 3)]
    assert idx == sorted(idx)
    # a loop returns nothing, which is not displayed
    assert "nothing" not in out


def test_display_order_follows_inputs(session: subprocess.CompletedProcess[str]) -> None:
    out = outputs(session.stdout)
    assert out.index("14") < out.index("3") < out.index('"still alive"') < out.index("6")


def test_multiline_bracket_input(session: subprocess.CompletedProcess[str]) -> None:
    out = outputs(session.stdout)
    assert "3-element Vector{Int64}:" in out
    assert "600" in out


def test_error_location_names_repl_input(session: subprocess.CompletedProcess[str]) -> None:
    # the fourth input is `undefined_in_repl`
    assert "REPL[4]:1:1" in session.stderr, session.stderr
    assert "undefined_in_repl" in session.stderr


def test_empty_input_exits_zero() -> None:
    res = repl("")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


def test_function_definition_display(session: subprocess.CompletedProcess[str]) -> None:
    assert "addmul (generic function with 1 method)" in outputs(session.stdout)


def test_help_for_the_library_and_package_mode(capsys: pytest.CaptureFixture[str]) -> None:
    """`?gradient`, `?Dense`, `?Flux.setup`, a loss: their docstrings (written in the
    standard library) and methods; `]add Flux` says packages are built in, no ParseError."""
    from lang.door.docs import help_text
    from lang.door.repl import Session

    s = Session()
    s.evaluate("using Flux")
    rt = s.rt
    for name, words in [("gradient", "reverse mode"), ("pullback", "cotangent"),
                        ("withgradient", "auxiliary"), ("jacobian", "column-major"),
                        ("Dense", "fully connected"), ("Chain", "applied in order"),
                        ("Flux.setup", "optimiser state"), ("train!", "gradient step"),
                        ("Flux.mse", "squared error"), ("logitcrossentropy", "logsoftmax"),
                        ("crossentropy", "probabilities")]:
        text = help_text(rt, name)
        assert words in text and "No documentation found" not in text, name
    capsys.readouterr()
    s.evaluate("]add Flux")
    out = capsys.readouterr()
    assert "no package manager" in out.out and "ERROR" not in out.err
