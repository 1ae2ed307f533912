"""Hostile programs run as a user runs them (`zyla run`): no crash, no hang, no Python
text, and an error a person can read. The file gate has its own suite
(tests/test_permissions.py); the cache probe is in tests/test_frontend_cache.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grammar.ast import Span
from grammar.errors import QUOTE_WIDTH, SourceFile, ZylaError, format_error
from lang.door.cli import command


def _zyla_run(tmp_path: Path, source: str | bytes,
              timeout: int = 300) -> subprocess.CompletedProcess:
    prog = tmp_path / "attack.jl"
    if isinstance(source, bytes):
        prog.write_bytes(source)
    else:
        prog.write_text(source)
    return subprocess.run(command() + ["run", str(prog)], cwd=tmp_path, capture_output=True,
                          text=True, errors="replace", timeout=timeout)


def _clean_failure(res: subprocess.CompletedProcess, kind: str) -> None:
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])  # not a signal
    assert f"ERROR: {kind}" in res.stderr
    assert "Traceback" not in res.stderr and "InternalError" not in res.stderr


def test_deeply_nested_values_do_not_crash(tmp_path: Path) -> None:
    """100 000 nested one-element arrays: built, printed and freed without SIGSEGV."""
    res = _zyla_run(tmp_path, "x = 1\nfor i in 1:100000\n    global x = [x]\nend\n"
                              "println(length(x))\nshow(x)\n")
    assert res.stdout.startswith("1\n")
    _clean_failure(res, "StackOverflowError")


def test_deeply_nested_literals_parse(tmp_path: Path) -> None:
    res = _zyla_run(tmp_path, "x = " + "[" * 5000 + "1" + "]" * 5000 + "\nprintln(length(x))\n")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout == "1\n"


def test_an_error_on_a_huge_line_quotes_a_window(tmp_path: Path) -> None:
    res = _zyla_run(tmp_path, "x = 1 + " + "a" * 2_000_000 + " + \x07 + y\n")
    _clean_failure(res, "ParseError")
    assert len(res.stderr) < 2000
    assert "\\x07" in res.stderr and "\x07" not in res.stderr


def test_invalid_utf8_is_reported_at_its_line_and_column(tmp_path: Path) -> None:
    res = _zyla_run(tmp_path, b'x = 1\ny = "caf\xe9" + 2\n')
    _clean_failure(res, "ParseError")
    assert "attack.jl:2:9" in res.stderr and "invalid UTF-8" in res.stderr


@pytest.mark.parametrize("col", [1, 50, 150, 5000, 9999, 10001])
def test_the_caret_stays_under_the_column(col: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(10000))
    lines = format_error(ZylaError("ParseError", "x", Span(1, col),
                                   SourceFile("f.jl", text))).splitlines()
    quoted, caret = lines[2], lines[3]
    assert len(quoted) < QUOTE_WIDTH + 20
    at = caret.index("^")
    target = min(col, len(text) + 1) - 1
    if target < len(text):
        assert quoted[at] == text[target]


def test_control_characters_in_messages_are_escaped() -> None:
    shown = format_error(ZylaError("ErrorException", "bell\x07 and\x1b[31m red"))
    assert "\x07" not in shown and "\x1b" not in shown and "\\x1b" in shown
    long = format_error(ZylaError("ErrorException", "y" * 100_000))
    assert len(long) < 1100


def test_deeply_nested_ifs_run(tmp_path: Path) -> None:
    """3000 nested `if`s: parsed, lowered and run (lowering was quadratic in the depth:
    24 s for 3000, ~28 s for 1000 on a busy machine)."""
    n = 3000
    res = _zyla_run(tmp_path, "x = 1\n" + "if x > 0\n" * n + "x = 2\n" + "end\n" * n
                    + "println(x)\n", timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout == "2\n"


@pytest.mark.parametrize("depth", [50, 200])
def test_lowering_scans_each_statement_once(depth: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lowering asks which names a branch assigns at every nested `if`; with the memo
    the scan visits each statement a bounded number of times, whatever the depth."""
    from grammar.parser import parse
    from lang.core import scans
    from lang.core.lower import Lowerer

    calls = [0]
    inner = scans._assigned

    def counting(node: object, out: set, memo: object) -> set:
        calls[0] += 1
        return inner(node, out, memo)

    monkeypatch.setattr(scans, "_assigned", counting)
    text = "x = 1\n" + "if x > 0\n" * depth + "x = 2\n" + "end\n" * depth
    lo = Lowerer(SourceFile("t.jl", text))
    for stmt in parse(text, "t.jl").stmts:
        lo.lower_toplevel(stmt)
    assert calls[0] < 40 * depth


CHECKED = """
function total(x)
    s = 0.0
    for i in 1:length(x)+1
        s += x[i]
    end
    s
end
function walk(x)
    i = 1
    while x[i] > 0
        i += 1
    end
    i
end
function put!(x, i, v)
    y = copy(x)
    y[i] = v
    sum(y)
end
pick(A, i, j) = A[i, j]
function putat!(x, idx, v)
    y = copy(x)
    y[idx[1]] = v
    sum(y)
end
sumrange(x, a, b) = sum(x[a:b])
"""


@pytest.fixture(scope="module")
def checked_rt() -> object:
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.run_source(CHECKED, "checked.jl")
    return rt


@pytest.mark.parametrize(("name", "args", "ok"), [
    ("total", [np.array([1.0, 2.0])], False),
    ("walk", [np.array([1.0, 2.0, -1.0])], True),
    ("walk", [np.array([1.0, 2.0])], False),
    ("put!", [np.array([1.0, 2.0]), 2, 5.0], True),
    ("putat!", [np.array([1.0, 2.0]), np.array([2]), 5.0], True),
    ("putat!", [np.array([1.0, 2.0]), np.array([3]), 5.0], False),
    ("putat!", [np.array([1.0, 2.0]), np.array([0]), 5.0], False),
    ("pick", [np.arange(6.0).reshape(3, 2), 2, 3], True),
])
def test_compiled_indexing_raises_julias_bounds_error(checked_rt: Any, name: str, args: list,
                                                      ok: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled code checks traced indices (XLA would clamp reads and drop writes, and a
    `while x[i] > 0` past the end would never stop): a failed check makes the call run
    again on the host, which raises Julia's BoundsError; in bounds, compiled and host
    results agree."""
    from backend import compile as C

    rt = checked_rt
    f = rt.lookup(name)
    reruns = []
    real = rt.interp.call_value

    def spy(g: Any, a: list, kw: Any = None) -> Any:
        reruns.append(g)
        return real(g, a, kw)

    if ok:
        host = rt.interp.call_value(f, list(args))
        assert C.compiled_call(rt, f, list(args)) == host
        return
    monkeypatch.setattr(rt.interp, "call_value", spy)
    with pytest.raises(ZylaError) as info:
        C.compiled_call(rt, f, list(args))
    assert info.value.kind == "BoundsError"
    assert reruns[:1] == [f]  # the executable ran, its check failed, the host gave the error


@pytest.mark.parametrize("call", ["total([1.0, 2.0])", "walk([1.0, 2.0])",
                                  "sumrange(collect(1.0:5.0), 4, 6)", "pick(ones(3, 2), 3, 3)",
                                  "put!([1.0, 2.0], 3, 5.0)", "put!([1.0, 2.0], 0, 5.0)"])
def test_the_user_path_gets_bounds_errors(checked_rt: Any, call: str) -> None:
    """Through a top-level call, always compiled: the error is Julia's, at the user's
    line (static indices fail while tracing and the call runs on the host; traced ones
    fail their check)."""
    rt = checked_rt
    mode, rt.compile_mode = rt.compile_mode, "always"
    try:
        with pytest.raises(ZylaError) as info:
            rt.run_source(call, "call.jl")
    finally:
        rt.compile_mode = mode
    assert info.value.kind == "BoundsError"
    assert "attempt to access" in info.value.message


INBOUNDS = """
function plain(x)
    s = 0.0
    @sequential for i in 1:length(x)  # (a mapped loop checks its bounds once, up front)
        s += x[i]
    end
    s
end
function marked(x)
    s = 0.0
    y = similar(x)
    @inbounds @sequential for i in 1:length(x)
        s += x[i]
        y[i] = 2x[i]
    end
    s + sum(y) - 2s
end
function inner(x)  # a function made inside @inbounds is checked (Julia: the same)
    s = 0.0
    @inbounds @sequential for i in 1:length(x)
        s += (j -> x[j])(i)
    end
    s
end
"""


@pytest.mark.parametrize(("name", "checked"), [("plain", True), ("marked", False),
                                               ("inner", True)])
def test_inbounds_turns_the_compiled_check_off(name: str, checked: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """`@inbounds` code is traced without index checks (Julia: out of bounds is then
    undefined behaviour); the result in bounds is the same."""
    from backend import compile as C
    from backend.lower_jax import JaxInterpreter
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.run_source(INBOUNDS, "inbounds.jl")
    checks: list[object] = []
    real = JaxInterpreter.check

    def spy(self: Any, failed: Any) -> None:
        checks.append(failed)
        real(self, failed)

    monkeypatch.setattr(JaxInterpreter, "check", spy)
    x = np.arange(1.0, 6.0)
    host = rt.interp.call_value(rt.lookup(name), [x.copy()])
    assert C.compiled_call(rt, rt.lookup(name), [x.copy()]) == host == 15.0
    assert bool(checks) == checked


def test_a_lone_surrogate_prints_its_bytes(tmp_path: Path) -> None:
    prog = tmp_path / "s.jl"
    prog.write_text('println("a\\ud800b")\n')
    res = subprocess.run(command() + ["run", str(prog)], cwd=tmp_path, capture_output=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout == b"a\xed\xa0\x80b\n"  # the string's UTF-8 bytes, as Julia writes them


@pytest.mark.parametrize("src", ["x = zeros(10^12)", 'println(repeat("a", 10^11))'])
def test_a_huge_allocation_is_out_of_memory(tmp_path: Path, src: str) -> None:
    _clean_failure(_zyla_run(tmp_path, src + "\n"), "OutOfMemoryError")


def test_an_abandoned_compiled_loop_stops_running() -> None:
    """After Ctrl-C the executable does not keep a core busy: its loop of data-dependent
    length looks at the interrupt request every few thousand iterations and ends, and
    the call raises KeyboardInterrupt (InterruptException) instead of returning the
    partial result."""
    import threading
    import time

    from backend import compile as C
    from backend.lower_jax import INTERRUPT
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.run_source("function spin(x)\n    s = 0.0\n    while x[1] > 0\n        s += 1.0\n"
                  "    end\n    s\nend\n", "spin.jl")
    box: dict[str, BaseException] = {}

    def run() -> None:
        try:
            C.compiled_call(rt, rt.lookup("spin"), [np.array([1.0])])
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            box["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    time.sleep(1.0)
    deadline = time.perf_counter() + 60
    while worker.is_alive() and time.perf_counter() < deadline:
        INTERRUPT.set()  # as Ctrl-C does (again and again: a call clears it when it starts)
        worker.join(0.2)
    INTERRUPT.clear()
    assert not worker.is_alive()
    assert isinstance(box.get("error"), KeyboardInterrupt)
    assert not [t for t in threading.enumerate() if t.name == "zyla-executable"]


def test_ctrl_c_ends_a_compiled_endless_loop(tmp_path: Path) -> None:
    """`while x[1] > 0` that never ends, compiled: SIGINT ends the run within seconds with
    InterruptException (it was ignored until SIGKILL)."""
    import signal
    import time

    prog = tmp_path / "spin.jl"
    prog.write_text('function spin(x)\n    s = 0.0\n    while x[1] > 0\n        s += 1.0\n'
                    '    end\n    s\nend\nprintln("start")\nspin([1.0])\n')
    # a test worker may ignore SIGINT, and an ignored signal stays ignored across exec:
    # a small launcher restores the default before it becomes `zyla`
    argv = command() + ["run", str(prog)]
    launcher = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                "os.execv(sys.argv[1], sys.argv[1:])")
    proc = subprocess.Popen([sys.executable, "-c", launcher] + argv, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"start\n"
        time.sleep(3)  # compiled and looping by now
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        t0 = time.perf_counter()
        code = proc.wait(timeout=30)
        waited = time.perf_counter() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert code == 130, err
    assert "InterruptException" in err and "Traceback" not in err
    assert waited < 5
