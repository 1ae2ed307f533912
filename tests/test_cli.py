"""The `zyla` command line: `zyla run FILE.jl [ARGS...]`, `zyla -e CODE`, and error reports.

Every case runs the real console script in a subprocess (with a timeout). On an error the
CLI must exit with status 1 and print, on stderr, `ERROR:`, `FILE:LINE:COL`, the quoted
source line and a caret under the offending column, and no Python traceback unless
ZYLA_DEBUG=1 (DESIGN.md, "Interfaces a user touches").

Each process spends most of its time starting up, so all cases are launched together, a
few at a time, by one module fixture (`runs`); each test then checks its own case.
"""

from __future__ import annotations

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lang.door.cli import command as zyla_cmd

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.update(extra)
    return env


@dataclass
class Case:
    """One `zyla` invocation: `args` (with `{dir}` standing for the case's temporary
    directory, which is also the working directory) and the files written there first."""

    args: list[str]
    files: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    dir: Path


CASES: dict[str, Case] = {
    "hello": Case(["run", "{dir}/hello.jl"], {"hello.jl": """\
function sq(x)
    return x * x
end
println("hello")
println(sq(7))
x = [1.0, 2.0, 3.0]
println(sum(x .^ 2))
"""}),
    "args": Case(["run", "{dir}/args.jl", "a", "b"], {"args.jl": """\
println(length(ARGS))
println(ARGS[1])
println(ARGS[2])
println(ARGS)
"""}),
    "noargs": Case(["run", "{dir}/noargs.jl"],
                   {"noargs.jl": "println(length(ARGS))\nprintln(isempty(ARGS))\n"}),
    "eval": Case(["-e", "println(1+2)"]),
    "eval_multi": Case(["-e", 'f(x) = 2x + 1\nprintln(f(20))\nprintln("done")']),
    "eval_error": Case(["-e", "x = 1\ny = x + qqq_undefined"]),
    "usage": Case(["run"]),
    "syntax": Case(["run", "syn.jl"], {"syn.jl": "x = 1\ny = 2 +* 3\nprintln(y)\n"}),
    "undef": Case(["run", "{dir}/undef.jl"],
                  {"undef.jl": 'println("before")\nz = 1 + not_defined_anywhere\n'}),
    "method": Case(["run", "{dir}/meth.jl"],
                   {"meth.jl": 'onlyfloat(x::Float64) = x + 1.0\ny = onlyfloat("a")\n'}),
    "dims": Case(["run", "{dir}/dims.jl"],
                 {"dims.jl": "a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = a .+ b\n"}),
    "bounds": Case(["run", "{dir}/bounds.jl"], {"bounds.jl": "a = [1.0, 2.0]\nb = a[5]\n"}),
    "failtest": Case(["run", "{dir}/failtest.jl"], {"failtest.jl": """\
using Test
@test 1 + 1 == 2
@test 1 + 1 == 3
println("not reached")
"""}),
    "inner": Case(["run", "{dir}/inner.jl"], {"inner.jl": """\
function helper(a)
    b = a + 1
    return b * missing_global_thing
end
function outer(a)
    return helper(a) + 1
end
println("start")
println(outer(2))
"""}),
    "arrfn": Case(["run", "{dir}/arrfn.jl"], {"arrfn.jl": """\
function h(v)
    w = [1.0, 2.0, 3.0]
    return v .+ w
end
x = [1.0, 2.0]
println("start")
println(h(x))
"""}),
    "cbounds": Case(["run", "{dir}/cbounds.jl"], {"cbounds.jl": """\
function g(v)
    s = sum(v)
    return v[10] + s
end
x = [1.0, 2.0]
println(g(x))
"""}),
    "include_error": Case(["run", "main.jl"], {
        "inc.jl": "y = 2\nz = y + nope_not_here\n",
        "main.jl": 'println("in main")\ninclude("inc.jl")\nprintln("after")\n',
    }),
    "include_relative": Case(["run", "{dir}/sub/main.jl"], {
        "sub/lib.jl": "libfun(x) = 10x\n",
        "sub/main.jl": 'include("lib.jl")\nprintln(libfun(4))\n',
    }),
    "missing": Case(["run", "{dir}/does_not_exist.jl"]),
    "debug": Case(["run", "{dir}/dbg.jl"],
                  {"dbg.jl": "function f(a)\n    return a + undefined_in_debug\nend\nf(1)\n"},
                  env={"ZYLA_DEBUG": "1"}),
}


def run_case(case: Case, d: Path) -> Result:
    for name, text in case.files.items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    args = [a.replace("{dir}", str(d)) for a in case.args]
    # the subprocess's own working directory is `d`; "{dir}/..." cases use absolute paths
    res = subprocess.run(zyla_cmd() + args, cwd=d, env=clean_env(**case.env),
                         capture_output=True, text=True, timeout=TIMEOUT)
    return Result(res.returncode, res.stdout, res.stderr, d)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    workers = min(4, (os.cpu_count() or 2) + 1)
    with ThreadPoolExecutor(max_workers=workers) as ex:
        futs = {name: ex.submit(run_case, case, tmp_path_factory.mktemp(name))
                for name, case in CASES.items()}
        return {name: f.result() for name, f in futs.items()}


def check_error_report(res: Result, file: str, line: int, source_line: str,
                       token: str | None = None, kind: str | None = None) -> int:
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


def test_run_file_prints_and_exits_zero(runs: dict[str, Result]) -> None:
    res = runs["hello"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == "hello\n49\n14.0\n"
    assert "ERROR" not in res.stderr


def test_run_file_with_args(runs: dict[str, Result]) -> None:
    res = runs["args"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == '2\na\nb\n["a", "b"]\n'


def test_run_file_without_args_has_empty_ARGS(runs: dict[str, Result]) -> None:
    res = runs["noargs"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == "0\ntrue\n"


def test_eval_flag(runs: dict[str, Result]) -> None:
    res = runs["eval"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == "3\n"
    assert "ERROR" not in res.stderr


def test_eval_flag_multiple_statements(runs: dict[str, Result]) -> None:
    res = runs["eval_multi"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == "41\ndone\n"


def test_eval_flag_error_is_reported(runs: dict[str, Result]) -> None:
    res = runs["eval_error"]
    assert res.returncode == 1
    assert "ERROR:" in res.stderr and "UndefVarError" in res.stderr
    assert re.search(r":2:9\b", res.stderr), res.stderr
    assert "y = x + qqq_undefined" in res.stderr
    assert "Traceback" not in res.stderr


def test_usage_error_is_clean(runs: dict[str, Result]) -> None:
    res = runs["usage"]
    assert res.returncode != 0
    assert "usage" in res.stderr.lower()
    assert "Traceback" not in res.stderr


# --- error reports -------------------------------------------------------------------------


def test_syntax_error(runs: dict[str, Result]) -> None:
    res = runs["syntax"]
    check_error_report(res, "syn.jl", 2, "y = 2 +* 3", token="*", kind="ParseError")
    assert res.stdout == ""


def test_undefined_name(runs: dict[str, Result]) -> None:
    res = runs["undef"]
    check_error_report(res, "undef.jl", 2, "z = 1 + not_defined_anywhere",
                       token="not_defined_anywhere", kind="UndefVarError")
    assert "not_defined_anywhere" in res.stderr.splitlines()[0]
    # output made before the error is kept
    assert res.stdout == "before\n"


def test_method_error(runs: dict[str, Result]) -> None:
    res = runs["method"]
    check_error_report(res, "meth.jl", 2, 'y = onlyfloat("a")', token="onlyfloat",
                       kind="MethodError")
    assert "onlyfloat" in res.stderr.splitlines()[0]


def test_dimension_mismatch(runs: dict[str, Result]) -> None:
    check_error_report(runs["dims"], "dims.jl", 3, "c = a .+ b", kind="DimensionMismatch")


def test_bounds_error(runs: dict[str, Result]) -> None:
    check_error_report(runs["bounds"], "bounds.jl", 2, "b = a[5]", kind="BoundsError")


def test_failing_test_macro_at_top_level(runs: dict[str, Result]) -> None:
    res = runs["failtest"]
    check_error_report(res, "failtest.jl", 3, "@test 1 + 1 == 3", token="@test")
    assert "not reached" not in res.stdout


def test_error_inside_function_points_at_innermost_line(runs: dict[str, Result]) -> None:
    res = runs["inner"]
    check_error_report(res, "inner.jl", 3, "    return b * missing_global_thing",
                       token="missing_global_thing", kind="UndefVarError")
    assert res.stdout == "start\n"


def test_error_inside_function_with_array_args(runs: dict[str, Result]) -> None:
    """A call with arrays is offloaded to the compile tier; its errors must still be
    reported at the innermost line, exactly as on the host."""
    res = runs["arrfn"]
    check_error_report(res, "arrfn.jl", 3, "    return v .+ w", kind="DimensionMismatch")
    assert res.stdout == "start\n"


def test_bounds_error_inside_compiled_function(runs: dict[str, Result]) -> None:
    check_error_report(runs["cbounds"], "cbounds.jl", 3, "    return v[10] + s",
                       kind="BoundsError")


def test_error_in_included_file(runs: dict[str, Result]) -> None:
    res = runs["include_error"]
    check_error_report(res, "inc.jl", 2, "z = y + nope_not_here", token="nope_not_here",
                       kind="UndefVarError")
    assert res.stdout == "in main\n"


def test_included_file_is_resolved_relative_to_the_including_file(
        runs: dict[str, Result]) -> None:
    res = runs["include_relative"]
    assert res.returncode == 0, res.stderr
    assert res.stdout == "40\n"


def test_missing_file_is_a_clean_error(runs: dict[str, Result]) -> None:
    res = runs["missing"]
    assert res.returncode == 1
    assert "ERROR:" in res.stderr
    assert "does_not_exist.jl" in res.stderr
    assert "Traceback" not in res.stderr
    assert res.stdout == ""


def test_debug_env_allows_traceback(runs: dict[str, Result]) -> None:
    res = runs["debug"]
    assert res.returncode == 1
    assert "ERROR:" in res.stderr
    assert "dbg.jl:2:" in res.stderr
    assert "Traceback" in res.stderr


def test_a_program_reads_its_standard_input(tmp_path: Path) -> None:
    """`readline()`, `readline(stdin)`, `readlines(stdin)` and `read(stdin, String)` read
    what the user pipes in (Zygote's README reads a number this way)."""
    (tmp_path / "in.jl").write_text('a = readline()\nb = readline(stdin; keep = true)\n'
                                    'rest = readlines(stdin)\nprint(a, "|", b, "|", rest)\n')
    res = subprocess.run(zyla_cmd() + ["run", "in.jl"], cwd=tmp_path, env=clean_env(),
                         input="one\ntwo\nthree\nfour\n", capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout == 'one|two\n|["three", "four"]'
