"""Hostile programs run as a user runs them (`zyla run`): no crash, no hang, no Python
text, and an error a person can read. The file gate has its own suite
(tests/test_permissions.py); the cache probe is in tests/test_frontend_cache.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

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
