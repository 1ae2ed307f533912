"""Fuzzing the front end, the interpreter and the CLI's error path.

Inputs come from hypothesis strategies: random bytes (decoded as UTF-8 with
replacement), random Unicode text, random sequences of Julia tokens, and mutations of real
programs (the acceptance files and examples: spans deleted, duplicated, swapped or
replaced by tokens, the text cut short). Each input goes through

1. the lexer and parser (`grammar.parser.parse`),
2. the lowering to IR of every statement (`lang.core.lower.Lowerer`) and the IR verifier,
3. optionally, running it on the host interpreter (with a time limit), and
4. optionally, the CLI's error report (`lang.door.cli.guarded`), which must not show a Python
   traceback.

The only acceptable failures are `ZylaError`s a user would see; anything else — another
exception, an `InternalError`, lowered IR the verifier rejects, a parse or lowering that
does not finish within the time limit, a traceback in a report — is a finding.
`fuzz_one(text)` returns the `Finding` or None.
"""

from __future__ import annotations

import io
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from grammar.errors import SourceFile, ZylaError
from grammar.parser import parse
from lang.core.lower import Lowerer
from lang.core.verify import verify_module
from lang.door.diagnostics import report

ROOT = Path(__file__).resolve().parents[2]

TOKENS = [
    # keywords and block structure
    "function", "end", "if", "elseif", "else", "for", "while", "in", "return", "break",
    "continue", "struct", "mutable struct", "begin", "let", "local", "global", "const",
    "using", "import", "try", "catch", "finally", "do", "where", "abstract type", "module",
    "quote", "macro", "true", "false", "nothing",
    # names, numbers, strings, characters, symbols
    "x", "y", "f", "g", "W", "sum", "println", "gradient", "Float64", "Vector{Float64}",
    "α", "x̂", "∂", "1", "0", "2.5", "1e-3", "1f0", "0x1F", "1_000", ".5", "2x",
    '"s"', '"a$(x)b"', '"""doc"""', "'c'", "'\\n'", ":sym", ":",
    # operators and punctuation
    "+", "-", "*", "/", "^", "\\", "÷", "%", ".+", ".*", ".^", "==", "!=", "<", "<=", "≈",
    "&&", "||", "!", "=", "+=", ".=", "->", "=>", "|>", "∘", "::", "<:", "...", "'", ".",
    ",", ";", "?", "@", "@show", "@test", "@.", "@code_ir", "#", "#= c =#", "(", ")", "[",
    "]", "{", "}", " ", " ", "\n", "\n", "\t", "$", "`",
]

_PROGRAM_DIRS = ("../shared/acceptance", "examples", "tests/jl")


def corpus() -> list[str]:
    """The seed programs mutations start from (acceptance files, examples, test files)."""
    texts = []
    for d in _PROGRAM_DIRS:
        base = (ROOT / d).resolve()
        if base.is_dir():
            for p in sorted(base.rglob("*.jl")):
                try:
                    texts.append(p.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    pass
    return texts or ["f(x) = x + 1\nprintln(f(2))\n"]


def token_programs(max_tokens: int = 40) -> st.SearchStrategy[str]:
    """Sequences of Julia tokens joined by nothing or spaces."""
    return st.lists(st.sampled_from(TOKENS), max_size=max_tokens).map("".join) | st.lists(
        st.sampled_from(TOKENS), max_size=max_tokens).map(" ".join)


def random_bytes(max_size: int = 200) -> st.SearchStrategy[str]:
    """Random bytes, decoded as UTF-8 with replacement characters."""
    return st.binary(max_size=max_size).map(lambda b: b.decode("utf-8", "replace"))


@st.composite
def mutations(draw: Any, texts: list[str], max_edits: int = 4) -> str:
    """A program from `texts` with a few random edits."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, max_edits))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        k = draw(st.integers(0, 5))
        if k == 0:  # delete a span
            text = text[:i] + text[j:]
        elif k == 1:  # duplicate a span
            text = text[:j] + text[i:j] + text[j:]
        elif k == 2:  # replace a span with tokens
            tokens = draw(st.lists(st.sampled_from(TOKENS), max_size=4))
            text = text[:i] + "".join(tokens) + text[j:]
        elif k == 3:  # insert a token
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif k == 4:  # swap two spans
            a, b = text[i:j], text[j:j + (j - i)]
            text = text[:i] + b + a + text[j + len(b):]
        else:  # cut the text short
            text = text[:i]
    return text


def inputs(texts: list[str] | None = None) -> st.SearchStrategy[str]:
    """All input kinds, mixed."""
    texts = texts if texts is not None else corpus()
    return st.one_of(random_bytes(), st.text(max_size=120), token_programs(),
                     mutations(texts), mutations(texts))


# ---- running one input -----------------------------------------------------------------------


@dataclass
class Finding:
    """A bug: the stage it happened in, what happened, and the input."""

    stage: str  # parse | lower | verify | run | report
    what: str
    text: str

    def __str__(self) -> str:
        return f"[{self.stage}] {self.what}\n--- input ---\n{self.text!r}"


class _Timeout(KeyboardInterrupt):
    """Raised by the alarm when a stage runs past its time limit. An interrupt, as Ctrl-C
    is: code that must let an interrupt through (hypothesis, under `@gradcheck`) does so
    for this too, where another BaseException would be taken for a failing example."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `_Timeout` in this (main) thread after `seconds`, and again every 0.25 s
    until the block ends (an exception raised where Python swallows it, e.g. in a
    finalizer, must not let the block run on); a no-op off the main thread."""
    import threading

    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return
    active = [True]

    def alarm(*_: object) -> None:
        if active[0]:
            raise _Timeout()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.25)
    try:
        yield
    finally:
        active[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Stats:
    """Counts of what the inputs did."""

    inputs: int = 0
    parsed: int = 0
    lowered: int = 0
    ran: int = 0
    run_timeouts: int = 0
    reported: int = 0


def fuzz_one(text: str, rt: Any = None, *, run: bool = False, report: bool = False,
             limit: float = 5.0, run_limit: float = 2.0,
             stats: Stats | None = None) -> Finding | None:
    """Push one input through the stages (see the module docstring); the finding, if any.
    `rt` (a Runtime) is needed to run or report; running has its own time limit, and
    a program still running then is not a finding."""
    stats = stats if stats is not None else Stats()
    stats.inputs += 1
    stage = "parse"
    try:
        with time_limit(limit):
            prog = parse(text, "fuzz.jl")
            stats.parsed += 1
            stage = "lower"

            lo = Lowerer(SourceFile("fuzz.jl", text))
            fns = []
            for stmt in prog.stmts:
                fns.append(lo.lower_toplevel(stmt))
            stats.lowered += 1
            stage = "verify"
            for fn in fns:
                try:
                    verify_module(fn)
                except ZylaError as e:
                    return Finding("verify", f"lowered IR is invalid: {e.message}", text)
    except ZylaError as e:
        if e.kind in ("InternalError", "IRVerifyError"):
            return Finding(stage, f"{e.kind}: {e.message}", text)
        return _report(text, rt, e, stats) if report and rt is not None else None
    except _Timeout:
        return Finding(stage, f"did not finish in {limit} s", text)
    except RecursionError:
        return Finding(stage, "RecursionError", text)
    except Exception as e:  # noqa: BLE001 — an internal exception is the finding
        return Finding(stage, f"{type(e).__name__}: {e}", text)
    if run and rt is not None:
        return run_one(text, rt, run_limit, stats, report)
    return None


def run_one(text: str, rt: Any, run_limit: float, stats: Stats, report: bool = False
            ) -> Finding | None:
    """Run a program that parsed and lowered on the host interpreter (time limit
    `run_limit` s); the finding, if any (an internal error, a report with a traceback)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err), time_limit(run_limit):
            rt.run_source(text, "fuzz.jl")
        stats.ran += 1
    except _Timeout:
        stats.run_timeouts += 1
    except ZylaError as e:
        stats.ran += 1
        if e.kind == "InternalError":
            return Finding("run", f"InternalError: {e.message}", text)
        if report:
            return _report(text, rt, e, stats)
    except SystemExit:
        stats.ran += 1
    except RecursionError:
        stats.ran += 1
    except Exception as e:  # noqa: BLE001
        return Finding("run", f"{type(e).__name__}: {e}", text)
    return None


def _report(text: str, rt: Any, err: ZylaError, stats: Stats) -> Finding | None:
    """The CLI's report of the error: no traceback, the ERROR line first."""
    buf = io.StringIO()
    try:
        old = sys.stderr
        sys.stderr = buf
        try:
            report(err, rt)
        finally:
            sys.stderr = old
    except Exception as e:  # noqa: BLE001
        return Finding("report", f"{type(e).__name__} while reporting: {e}", text)
    shown = buf.getvalue()
    stats.reported += 1
    if "Traceback" in shown or not shown.startswith("ERROR: "):
        return Finding("report", f"bad report: {shown[:300]!r}", text)
    return None


# --- the file gate --------------------------------------------------------------------------

#: What a gate fuzz puts into a sandbox: secrets a program must not read, and the files and
#: folders whose contents must not change (see `gate_sandbox`).
SECRET, HOME_SECRET = "s3cret-outside-the-work-folder", "s3cret-in-the-home-folder"

#: Path pieces and file-touching calls a gate program is made of.
GATE_PARTS = ["..", ".", "outside", "work", "home", ".hidden", "bin", "site-packages", "x.py",
              "x.pth", "secret.txt", "data.txt", "new.txt", "sub", "link", ".bashrc",
              "Makefile", "run.sh", "x", "", "//"]
GATE_READS = ["read({p}, String)", "readlines({p})", "readdlm({p})", "include({p})",
              "isfile({p})", "isdir({p})", "ispath({p})"]
GATE_WRITES = ["mkdir({p})", "mkpath({p})", "savefig(lineplot([1.0, 2.0]), {p})"]
SYSTEM_FILES = ["/etc/passwd", "/proc/self/environ", "/proc/self/cmdline", "/dev/zero",
                "/dev/stdin", "/sys/kernel/mm"]


def gate_sandbox(root: Path) -> Path:
    """Lay out `root` for a gate fuzz and return the folder a program runs in: `work`
    (the current folder: data.txt, sub/, a link to ../outside), `outside` (secret.txt)
    and `home` (the HOME the fuzz sets, with a .bashrc)."""
    work, outside, home = root / "work", root / "outside", root / "home"
    for d in (work / "sub", outside, home):
        d.mkdir(parents=True, exist_ok=True)
    (work / "data.txt").write_text("1 2\n3 4\n")
    (outside / "secret.txt").write_text(SECRET + "\n")
    (home / ".bashrc").write_text(f"echo {HOME_SECRET}\n")
    if not (work / "link").is_symlink():
        (work / "link").symlink_to(outside)
    return work


@st.composite
def gate_programs(draw: Any, root: Path) -> str:
    """Programs of one to four file-touching statements, each in a `try` (so that a
    refusal does not hide the next attempt), printing what they got; their paths are
    drawn from GATE_PARTS below the sandbox, the home folder or relative to the current
    folder, and for reads also the system's own files."""
    stmts = []
    for _ in range(draw(st.integers(1, 4))):
        write = draw(st.booleans())
        call = draw(st.sampled_from(GATE_WRITES if write else GATE_READS))
        if not write and draw(st.integers(0, 4)) == 0:
            path = draw(st.sampled_from(SYSTEM_FILES))
        else:
            base = draw(st.sampled_from(["", f"{root}/", "~/", f"{root}/work/"]))
            path = base + "/".join(draw(st.lists(st.sampled_from(GATE_PARTS), min_size=1,
                                                 max_size=5)))
        text = call.format(p='"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"')
        stmts.append(f"try\n    println(repr({text}))\ncatch e\n    println(\"refused\")\nend")
    return "using UnicodePlots\n" + "\n".join(stmts) + "\n"


def _tree(root: Path) -> dict[str, str]:
    """Every path below root (links not followed) with its kind and contents."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if p.is_symlink():
            out[str(p)] = "link:" + str(p.readlink())
        elif p.is_dir():
            out[str(p)] = "dir"
        else:
            out[str(p)] = "file:" + p.read_bytes().decode("utf-8", "replace")
    return out


def gate_check(text: str, rt: Any, root: Path, run_limit: float = 5.0) -> Finding | None:
    """Run a gate program in the sandbox (the current folder must be root/work, HOME
    root/home, and `rt` made there); the finding, if any: an internal error, a secret in
    its output, or a change outside the current folder's tree or of a hidden or executed
    file inside it. The sandbox is restored afterwards."""
    from lang.core.safety import EXECUTED_NAMES, EXECUTED_SUFFIXES

    before = _tree(root)
    out = io.StringIO()
    finding = None
    try:
        with redirect_stdout(out), redirect_stderr(io.StringIO()), time_limit(run_limit):
            rt.run_source(text, "gate.jl")
    except _Timeout:
        finding = Finding("gate", f"did not finish in {run_limit} s", text)
    except ZylaError as e:
        if e.kind == "InternalError":
            finding = Finding("gate", f"InternalError: {e.message}", text)
    except Exception as e:  # noqa: BLE001 - an internal exception is the finding
        finding = Finding("gate", f"{type(e).__name__}: {e}", text)
    shown = out.getvalue()
    after = _tree(root)
    work = str(root / "work") + "/"
    for path in sorted(set(before) | set(after)):
        if before.get(path) == after.get(path):
            continue
        name = Path(path).name.lower()
        below = path[len(work):].split("/") if path.startswith(work) else None
        if below is None or any(part.startswith(".") for part in below) or (
                name in EXECUTED_NAMES or Path(name).suffix in EXECUTED_SUFFIXES):
            finding = finding or Finding("gate", f"changed {path}", text)
    for secret in (SECRET, HOME_SECRET, "root:x:0"):
        if secret in shown:
            finding = finding or Finding("gate", f"read {secret!r}", text)
    for path in sorted(set(after) - set(before)):  # restore the sandbox for the next run
        p = Path(path)
        if p.is_dir() and not p.is_symlink():
            import shutil

            shutil.rmtree(p, ignore_errors=True)
        elif p.exists() or p.is_symlink():
            p.unlink()
    gate_sandbox(root)
    return finding
