"""The `zyla` command line: `zyla run FILE.jl [ARGS...]`, `zyla -e CODE`, and error reports.

Every test runs the real console script in a subprocess (with a timeout). On an error the
CLI must exit with status 1 and print, on stderr, `ERROR:`, `FILE:LINE:COL`, the quoted
source line and a caret under the offending column, and no Python traceback unless
ZYLA_DEBUG=1 (DESIGN.md, "Interfaces a user touches").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120


def zyla_cmd() -> list[str]:
    """The `zyla` console script of this checkout's venv (or of the running interpreter)."""
    for cand in (ROOT / ".venv" / "bin" / "zyla", Path(sys.executable).parent / "zyla"):
        if cand.exists():
            return [str(cand)]
    found = shutil.which("zyla")
    if found:
        return [found]
    return [sys.executable, "-m", "lang.cli"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.update(extra)
    return env


def zyla(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        zyla_cmd() + list(args), cwd=cwd, env=env or clean_env(), input=stdin,
        capture_output=True, text=True, timeout=TIMEOUT,
    )


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def check_error_report(res: subprocess.CompletedProcess[str], file: str, line: int,
                       source_line: str, token: str | None = None,
                       kind: str | None = None) -> int:
    """Exit 1; stderr has ERROR:, FILE:LINE:COL, the quoted source line and an aligned caret.

    `token` is what the caret must point at (the source text starting at COL).
    Returns the reported column.
    """
    err = res.stderr
    assert res.returncode == 1, (res.returncode, res.stdout, err)
    assert "ERROR:" in err, err
    if kind is not None:
        assert re.search(rf"ERROR: .*{re.escape(kind)}", err), err
    assert "Traceback" not in err, err
    locs = re.findall(rf"{re.escape(file)}:(\d+):(\d+)", err)
    assert locs, f"no {file}:LINE:COL in stderr:\n{err}"
    ln, col = int(locs[0][0]), int(locs[0][1])
    assert ln == line, f"reported line {ln}, expected {line}:\n{err}"
    assert col >= 1
    lines = err.splitlines()
    quoted = [i for i, s in enumerate(lines) if s.endswith(source_line) and "ERROR" not in s]
    assert quoted, f"source line {source_line!r} not quoted:\n{err}"
    i = quoted[0]
    assert i + 1 < len(lines), err
    caret_line = lines[i + 1]
    assert caret_line.rstrip().endswith("^"), f"no caret line after the source line:\n{err}"
    assert set(caret_line.strip()) <= set("|^ "), caret_line
    src_start = len(lines[i]) - len(source_line)
    assert caret_line.index("^") == src_start + col - 1, f"caret not under column {col}:\n{err}"
    if token is not None:
        assert source_line[col - 1:].startswith(token), (
            f"column {col} points at {source_line[col - 1:]!r}, expected {token!r}:\n{err}")
    return col


# --- running programs ----------------------------------------------------------------------


def test_run_file_prints_and_exits_zero(tmp_path: Path) -> None:
    f = write(tmp_path, "hello.jl", """\
function sq(x)
    return x * x
end
println("hello")
println(sq(7))
x = [1.0, 2.0, 3.0]
println(sum(x .^ 2))
""")
    res = zyla("run", str(f))
    assert res.returncode == 0, res.stderr
    assert res.stdout == "hello\n49\n14.0\n"
    assert "ERROR" not in res.stderr


def test_run_file_with_args(tmp_path: Path) -> None:
    f = write(tmp_path, "args.jl", """\
println(length(ARGS))
println(ARGS[1])
println(ARGS[2])
println(ARGS)
""")
    res = zyla("run", str(f), "a", "b")
    assert res.returncode == 0, res.stderr
    assert res.stdout == '2\na\nb\n["a", "b"]\n'


def test_run_file_without_args_has_empty_ARGS(tmp_path: Path) -> None:
    f = write(tmp_path, "noargs.jl", "println(length(ARGS))\nprintln(isempty(ARGS))\n")
    res = zyla("run", str(f))
    assert res.returncode == 0, res.stderr
    assert res.stdout == "0\ntrue\n"


def test_eval_flag() -> None:
    res = zyla("-e", "println(1+2)")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "3\n"
    assert res.stderr == "" or "ERROR" not in res.stderr


def test_eval_flag_multiple_statements() -> None:
    res = zyla("-e", "f(x) = 2x + 1\nprintln(f(20))\nprintln(\"done\")")
    assert res.returncode == 0, res.stderr
    assert res.stdout == "41\ndone\n"


def test_usage_error_is_clean() -> None:
    res = zyla("run")
    assert res.returncode != 0
    assert "usage" in res.stderr.lower()
    assert "Traceback" not in res.stderr


# --- error reports -------------------------------------------------------------------------


def test_syntax_error(tmp_path: Path) -> None:
    f = write(tmp_path, "syn.jl", "x = 1\ny = 2 +* 3\nprintln(y)\n")
    res = zyla("run", str(f), cwd=tmp_path)
    check_error_report(res, "syn.jl", 2, "y = 2 +* 3", token="*", kind="ParseError")
    assert res.stdout == ""


def test_undefined_name(tmp_path: Path) -> None:
    f = write(tmp_path, "undef.jl", 'println("before")\nz = 1 + not_defined_anywhere\n')
    res = zyla("run", str(f))
    check_error_report(res, "undef.jl", 2, "z = 1 + not_defined_anywhere",
                       token="not_defined_anywhere", kind="UndefVarError")
    assert "not_defined_anywhere" in res.stderr.splitlines()[0]
    # output made before the error is kept
    assert res.stdout == "before\n"


def test_method_error(tmp_path: Path) -> None:
    f = write(tmp_path, "meth.jl", 'onlyfloat(x::Float64) = x + 1.0\ny = onlyfloat("a")\n')
    res = zyla("run", str(f))
    check_error_report(res, "meth.jl", 2, 'y = onlyfloat("a")', token="onlyfloat",
                       kind="MethodError")
    assert "onlyfloat" in res.stderr


def test_dimension_mismatch(tmp_path: Path) -> None:
    f = write(tmp_path, "dims.jl", "a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = a .+ b\n")
    res = zyla("run", str(f))
    check_error_report(res, "dims.jl", 3, "c = a .+ b", kind="DimensionMismatch")


def test_bounds_error(tmp_path: Path) -> None:
    f = write(tmp_path, "bounds.jl", "a = [1.0, 2.0]\nb = a[5]\n")
    res = zyla("run", str(f))
    check_error_report(res, "bounds.jl", 2, "b = a[5]", kind="BoundsError")


def test_failing_test_macro_at_top_level(tmp_path: Path) -> None:
    f = write(tmp_path, "failtest.jl", """\
using Test
@test 1 + 1 == 2
@test 1 + 1 == 3
println("not reached")
""")
    res = zyla("run", str(f))
    check_error_report(res, "failtest.jl", 3, "@test 1 + 1 == 3", token="@test")
    assert "not reached" not in res.stdout


def test_error_inside_function_points_at_innermost_line(tmp_path: Path) -> None:
    f = write(tmp_path, "inner.jl", """\
function helper(a)
    b = a + 1
    return b * missing_global_thing
end
function outer(a)
    return helper(a) + 1
end
println("start")
println(outer(2))
""")
    res = zyla("run", str(f))
    check_error_report(res, "inner.jl", 3, "    return b * missing_global_thing",
                       token="missing_global_thing", kind="UndefVarError")
    assert res.stdout == "start\n"


def test_error_inside_function_with_array_args(tmp_path: Path) -> None:
    """A call with arrays is offloaded to the compile tier; its errors must still be
    reported at the innermost line, exactly as on the host."""
    f = write(tmp_path, "arrfn.jl", """\
function h(v)
    w = [1.0, 2.0, 3.0]
    return v .+ w
end
x = [1.0, 2.0]
println("start")
println(h(x))
""")
    res = zyla("run", str(f))
    check_error_report(res, "arrfn.jl", 3, "    return v .+ w", kind="DimensionMismatch")
    assert res.stdout == "start\n"


@pytest.mark.xfail(strict=True, reason="BUG: out-of-bounds indexing inside a function called "
                   "with arrays runs compiled and silently clamps the index (prints 5.0) "
                   "instead of raising BoundsError as the host does")
def test_bounds_error_inside_compiled_function(tmp_path: Path) -> None:
    f = write(tmp_path, "cbounds.jl", """\
function g(v)
    s = sum(v)
    return v[10] + s
end
x = [1.0, 2.0]
println(g(x))
""")
    res = zyla("run", str(f))
    check_error_report(res, "cbounds.jl", 3, "    return v[10] + s", kind="BoundsError")


def test_error_in_included_file(tmp_path: Path) -> None:
    write(tmp_path, "inc.jl", "y = 2\nz = y + nope_not_here\n")
    main = write(tmp_path, "main.jl", 'println("in main")\ninclude("inc.jl")\nprintln("after")\n')
    res = zyla("run", "main.jl", cwd=tmp_path)
    check_error_report(res, "inc.jl", 2, "z = y + nope_not_here", token="nope_not_here",
                       kind="UndefVarError")
    assert res.stdout == "in main\n"
    assert main.exists()


def test_included_file_is_resolved_relative_to_the_including_file(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    write(sub, "lib.jl", "libfun(x) = 10x\n")
    main = write(sub, "main.jl", 'include("lib.jl")\nprintln(libfun(4))\n')
    res = zyla("run", str(main), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "40\n"


def test_eval_flag_error_is_reported() -> None:
    res = zyla("-e", "x = 1\ny = x + qqq_undefined")
    assert res.returncode == 1
    assert "ERROR:" in res.stderr and "UndefVarError" in res.stderr
    assert re.search(r":2:9", res.stderr), res.stderr
    assert "Traceback" not in res.stderr


def test_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    res = zyla("run", str(tmp_path / "does_not_exist.jl"))
    assert res.returncode == 1
    assert "ERROR:" in res.stderr
    assert "does_not_exist.jl" in res.stderr
    assert "Traceback" not in res.stderr
    assert res.stdout == ""


def test_debug_env_allows_traceback(tmp_path: Path) -> None:
    f = write(tmp_path, "dbg.jl", "function f(a)\n    return a + undefined_in_debug\nend\nf(1)\n")
    res = zyla("run", str(f), env=clean_env(ZYLA_DEBUG="1"))
    assert res.returncode == 1
    assert "ERROR:" in res.stderr
    assert "dbg.jl:2:" in res.stderr
    assert "Traceback" in res.stderr
