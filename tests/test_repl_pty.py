"""The REPL in a real pseudo-terminal: what a person types, and the screen they see.

`zyla` is started under a pty (pexpect) and its output is fed to a terminal emulator
(pyte), so each check reads the rendered screen, as a person would, after typing: a
multi-line function with a docstring, a call, name / LaTeX / struct-field completions,
`?name`, an erroring line (the session keeps its state), Ctrl-C during a long loop,
Ctrl-D; and, in a second session, the persistent history with prefix search.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lang.door.cli import command

try:
    import pexpect
    import pyte
except ImportError:  # pragma: no cover - the pty tests skip, the unit tests still run
    pexpect = pyte = None

ROOT = Path(__file__).resolve().parents[1]
COLS, ROWS = 110, 300

# pexpect forks (then at once execs `zyla`) from this process, which may hold JAX's
# threads; the child only execs, so Python's warning about forking threads is moot here
pytestmark = pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")



def zyla_cmd() -> tuple[str, list[str]]:
    cmd = command()
    return cmd[0], cmd[1:]


class Terminal:
    """A `zyla` process on a pty, with the screen it has drawn so far."""

    def __init__(self, history: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
        env.update(ZYLA_HISTORY=str(history), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                   JAX_PLATFORMS="cpu", COLUMNS=str(COLS), LINES=str(ROWS))
        exe, args = zyla_cmd()
        # a test process may ignore SIGINT (started in the background by a non-interactive
        # shell, as a CI job can be), and an ignored signal stays ignored across exec: a
        # small launcher restores the default, as a terminal's shell gives it
        launcher = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                    "os.execv(sys.argv[1], sys.argv[1:])")
        exe, args = sys.executable, ["-c", launcher, shutil.which(exe) or exe, *args]
        self.child = pexpect.spawn(exe, args, env=env, dimensions=(ROWS, COLS),
                                   encoding="utf-8", timeout=60, cwd=str(ROOT))
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen)

    def pump(self) -> None:
        while True:
            try:
                data = self.child.read_nonblocking(1 << 16, timeout=0.05)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip()

    def wait(self, pred: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump()
            shown = self.text()
            if pred(shown):
                return shown
            time.sleep(0.05)
        raise AssertionError(f"screen never showed {what}:\n{self.text()}")

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        return self.wait(lambda s: needle in s, repr(needle), timeout)

    def output(self) -> list[str]:
        """The non-empty lines between the last input's prompt and the new prompt."""
        lines = self.text().splitlines()
        marks = [i for i, line in enumerate(lines) if line.startswith("zyla>")]
        if len(marks) < 2:
            return []
        return [line for line in lines[marks[-2] + 1: marks[-1]] if line.strip()]

    def prompts(self) -> int:
        return sum(1 for line in self.screen.display if line.startswith("zyla> "))

    def type(self, keys: str) -> None:
        self.child.send(keys)

    def submit(self, line: str) -> None:
        """Type a line and Enter, then wait until the next prompt is drawn."""
        before = self.prompts()
        self.type(line + "\r")
        self.wait(lambda s: self.prompts() > before and self.text().endswith("zyla>"),
                  f"a new prompt after {line!r}")

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


# One session, typed in order: each step relies on what the earlier ones defined (`addmul`,
# `q`), so they run as one test (a test runner that spreads tests over processes must not
# split them). The steps (STEPS) follow the test.


def test_a_session_in_a_terminal(tmp_path: Path) -> None:
    """The steps below in one `zyla` session, then a second session reading its history;
    a failure names the step."""
    if pexpect is None or pyte is None or sys.platform == "win32":
        pytest.skip("needs pexpect, pyte and a POSIX pty")
    history = tmp_path / "history"
    term = Terminal(history)
    try:
        term.wait(lambda s: s.endswith("zyla>"), "the first prompt", timeout=120)
        for step in STEPS:
            try:
                step(term)
            except AssertionError as e:
                raise AssertionError(f"{step.__name__}: {e}") from e
    finally:
        term.close()
    step_history_persists_with_prefix_search(history)


def step_multiline_function_with_docstring(term: Terminal) -> None:
    term.type('"""\r')
    # an open string: Enter continued the input instead of submitting it
    shown = term.wait_for('zyla> """')
    assert "ERROR" not in shown
    for line in ("    addmul(a, b)", "", "Add, then double.", '"""', "function addmul(a, b)",
                 "    s = a + b", "    return s * 2"):
        term.type(line + "\r")
    time.sleep(0.3)
    term.pump()
    assert "generic function" not in term.text()  # still waiting for `end`
    term.submit("end")
    assert "addmul (generic function with 1 method)" in term.text()
    term.submit("addmul(3, 4)")
    assert term.output() == ["14"]


def step_name_completion(term: Terminal) -> None:
    term.type("addm\t")
    term.wait_for("zyla> addmul")
    term.submit("(1, 1)")
    assert term.output() == ["4"]


def step_latex_completion(term: Terminal) -> None:
    term.type("\\alpha\t")
    term.wait_for("zyla> α")
    term.submit(" = 2.5")
    assert term.output() == ["2.5"]
    term.type("x\\hat\t")
    term.wait_for("zyla> x\u0302")
    term.type("\x15")  # Ctrl-U clears the line
    term.wait(lambda s: s.endswith("zyla>"), "a cleared line")


def step_struct_field_completion(term: Terminal) -> None:
    term.submit("struct Pt; alpha_field; beta; end; p = Pt(1, 2);")
    term.type("p.al\t")
    term.wait_for("zyla> p.alpha_field")
    term.submit("")
    assert term.output() == ["1"]


def step_help_mode(term: Terminal) -> None:
    term.submit("?addmul")
    shown = term.text()
    assert "Add, then double." in shown
    assert "addmul(a, b) @ REPL[" in shown


def step_error_keeps_state(term: Terminal) -> None:
    term.submit("undefined_thing + 1")
    shown = term.text()
    assert "ERROR: UndefVarError: `undefined_thing` not defined" in shown
    assert "Traceback" not in shown
    term.submit("addmul(1, 2)")
    assert term.output() == ["6"]


def step_ans_and_semicolon(term: Terminal) -> None:
    term.submit("q = 41;")
    assert term.output() == []
    term.submit("ans + 1")
    assert term.output() == ["42"]


def step_ctrl_c_interrupts_a_long_loop(term: Terminal) -> None:
    before = term.prompts()
    # (a loop that prints now and then stays on the host: the tier restarts a long
    # effect-free loop compiled, and a running XLA loop cannot be interrupted, which a
    # loaded machine reached within the second this step waits)
    term.type("s = 0; for i in 1:10^12; s += 1; i == -1 && println(i); end\r")
    time.sleep(1.0)
    term.pump()
    assert term.prompts() == before  # still computing
    term.child.sendintr()
    term.wait_for("InterruptException")
    term.wait(lambda s: term.prompts() > before and s.endswith("zyla>"), "the prompt back")
    term.submit("addmul(2, 2)")
    assert term.output() == ["8"]


def step_ctrl_d_exits(term: Terminal) -> None:
    term.type("\x04")
    term.child.expect(pexpect.EOF, timeout=30)
    term.child.close()
    assert term.child.exitstatus == 0


STEPS = (step_multiline_function_with_docstring, step_name_completion, step_latex_completion,
         step_struct_field_completion, step_help_mode, step_error_keeps_state,
         step_ans_and_semicolon, step_ctrl_c_interrupts_a_long_loop, step_ctrl_d_exits)


def step_history_persists_with_prefix_search(history_file: Path) -> None:
    assert history_file.exists() and "q = 41;" in history_file.read_text()
    t = Terminal(history_file)
    try:
        t.wait(lambda s: s.endswith("zyla>"), "the first prompt", timeout=120)
        t.type("q =")
        t.wait_for("zyla> q =")
        t.type("\x1b[A")  # Up: the last entry starting with `q =`
        t.wait_for("zyla> q = 41;")
        t.submit("")
        t.submit("q + 1")
        assert t.output() == ["42"]
    finally:
        t.close()


# --- the pieces, without a terminal ---------------------------------------------------------


def test_is_complete() -> None:
    from lang.door.repl import is_complete

    assert is_complete("1 + 2")
    assert not is_complete("function f(x)")
    assert not is_complete('"""doc')
    assert not is_complete("[1,")
    assert is_complete("?sin")
    assert is_complete("")
    assert is_complete("1 +* 2")  # an error is submitted (and reported), not continued


def test_trailing_semicolon() -> None:
    from lang.door.repl import _ends_with_semicolon

    assert _ends_with_semicolon("x = 1;")
    assert _ends_with_semicolon("x = 1;  # quiet")
    assert not _ends_with_semicolon('s = "a;"')
    assert not _ends_with_semicolon('s = "#";  x')


def test_completions() -> None:
    from lang.door.repl import Session, completions

    rt = Session().rt
    rt.run_source("struct Pt\n    alpha\n    beta\nend\np = Pt(1, (u = 1, v = 2))\n", "REPL[1]")
    assert completions(rt, "\\alp") == (4, [("α", "\\alpha α")])
    assert ("∈", "\\in ∈") in completions(rt, "x \\in")[1]
    assert completions(rt, "x\\hat")[1][0][0] == "\u0302"
    assert completions(rt, "p.")[1] == [("alpha", "alpha"), ("beta", "beta")]
    assert completions(rt, "p.beta.")[1] == [("u", "u"), ("v", "v")]
    assert ("gradient", "gradient") in completions(rt, "gradi")[1]
    assert ("@testset", "@testset") in completions(rt, "@tes")[1]
    assert ("sqrt", "sqrt") in completions(rt, "Base.sq")[1]
    assert all(n.rstrip("!").isidentifier() for n, _ in completions(rt, "LinearAlgebra.")[1])
