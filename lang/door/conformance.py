"""The conformance suite: facts from other projects' test suites, ported as Zyla testsets.

`tests/conformance/<suite>/<file>.jl` hold the facts of an upstream test file (Julia's
`test/`, Zygote's, Flux's, ChainRules') as top-level `@testset`s written for Zyla: the same
inputs and expected values, in our own words. `run_file` runs one such file statement by
statement in a fresh runtime: a statement that is not a `@testset` is set-up (its error is
recorded, the file goes on); each top-level `@testset` passes when it runs to the end with
no failed or errored test inside. The global random generator is seeded first, so that a
file's random draws are the same in every run. `scripts/conformance.py` runs them all, prints the
counts per suite and rewrites the table in docs/COVERAGE.md; tests/test_conformance.py
checks that every testset listed in tests/conformance/passing.txt still passes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grammar import ast as A
from grammar.errors import SourceFile, ZylaError
from lang.door.fuzzing import _Timeout, time_limit

ROOT = Path(__file__).resolve().parents[2]
SUITE_DIR = ROOT / "tests" / "conformance"
PASSING = SUITE_DIR / "passing.txt"
#: seconds one statement (a testset or its set-up) may run
STATEMENT_LIMIT = 60.0


@dataclass
class Outcome:
    """One top-level testset of a file: its name, whether it passed, and if not, the
    first lines of what went wrong."""

    name: str
    passed: bool
    why: str = ""


@dataclass
class FileResult:
    path: Path
    testsets: list[Outcome] = field(default_factory=list)
    setup_errors: list[str] = field(default_factory=list)

    @property
    def suite(self) -> str:
        return self.path.parent.name

    def key(self, name: str) -> str:
        """`suite/file.jl: testset name`, as passing.txt lists it."""
        return f"{self.suite}/{self.path.name}: {name}"


def _testset_name(stmt: A.Node) -> str | None:
    if not (isinstance(stmt, A.MacroCall) and stmt.name in ("testset", "Test.testset")):
        return None
    first = stmt.args[0] if stmt.args else None
    if isinstance(first, A.Literal) and first.kind == "String":
        return str(first.value)
    return f"line {stmt.span.line}"


def run_file(path: Path, limit: float = STATEMENT_LIMIT,
             only: set[str] | None = None) -> FileResult:
    """Run one conformance file (see the module docstring). With `only` (keys as
    passing.txt lists them), the testsets not named there are skipped, not run; the
    statements between testsets all run."""
    from lang.door.wiring import Runtime

    result = FileResult(path)
    text = path.read_text(encoding="utf-8")
    name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    rt = Runtime()
    # the same random draws every run (upstream facts with rand() must not flake in CI)
    rt.run_source("Random.seed!(20261126)", "<conformance>")
    src = SourceFile(name, text)
    rt.sources[name] = src
    rt.current_file = name
    lo = rt.lowerer(src)
    seen: dict[str, int] = {}
    for stmt, parse_error in _statements(rt, text, name):
        ts = _testset_name(stmt) if stmt is not None else _chunk_testset(parse_error)
        if ts is not None and only is not None:
            n = seen.get(ts, 0) + 1
            if result.key(ts if n == 1 else f"{ts} #{n}") not in only:
                seen[ts] = n
                continue
        out = io.StringIO()
        why = ""
        try:
            if parse_error is not None:
                raise parse_error[1]
            with redirect_stdout(out), redirect_stderr(out), time_limit(limit):
                fn = lo.lower_toplevel(stmt)
                rt.interp.run_function(fn, [])
        except ZylaError as e:
            why = f"{e.kind}: {e.message}"
        except _Timeout:
            why = f"did not finish in {limit:.0f} s"
        except RecursionError:
            why = "RecursionError"
        except Exception as e:  # noqa: BLE001 - an internal error is a result here
            why = f"internal {type(e).__name__}: {e}"
        if ts is None:
            if why:
                line = stmt.span.line if stmt is not None else parse_error[0]
                result.setup_errors.append(f"line {line}: {why[:300]}")
            continue
        if ts in seen:  # two testsets of one name: number them
            seen[ts] += 1
            ts = f"{ts} #{seen[ts]}"
        else:
            seen[ts] = 1
        if why:
            detail = "\n".join(ln for ln in out.getvalue().splitlines()
                               if ln.startswith(("Test Failed", "Error During", "  Expression",
                                                 "  Test threw", "   Evaluated", "    Thrown",
                                                 "  Got exception", "  ")))
            why = (detail.strip() + "\n" + why).strip()[:600]
        result.testsets.append(Outcome(ts, not why, why))
    return result


_STATEMENT_START = re.compile(r"^(?!end\b|else\b|elseif\b|catch\b|finally\b|#|[\s)\]}])\S")
_TESTSET_HEAD = re.compile(r'^@testset\s+"([^"$]*)"')


def _statements(rt: Any, text: str, name: str) -> Iterator[tuple[Any, Any]]:
    """The file's top-level statements as (statement, None). A file that does not parse
    as a whole is cut into chunks at the lines that start a top-level statement (text at
    column 1 that does not close or continue a block) and each chunk parsed alone, so a
    syntax Zyla lacks fails only the testset that uses it: a chunk that does not parse
    comes as (None, (line, error, first line of the chunk))."""
    try:
        yield from ((s, None) for s in rt.parse(text, name).stmts)
        return
    except ZylaError:
        pass
    lines = text.split("\n")
    starts: list[int] = []
    in_module = False  # a module's body is not indented: it runs to its own `end`
    for i, ln in enumerate(lines):
        if in_module:
            in_module = ln.split("#")[0].strip() != "end"
        elif _STATEMENT_START.match(ln):
            starts.append(i)
            in_module = ln.startswith(("module ", "baremodule "))
    starts.append(len(lines))
    for a, b in zip(starts, starts[1:], strict=False):
        chunk = "\n" * a + "\n".join(lines[a:b])  # line numbers as in the file
        try:
            stmts = rt.parse(chunk, name).stmts
        except ZylaError as e:
            yield None, (a + 1, e, lines[a])
            continue
        yield from ((s, None) for s in stmts)


def _chunk_testset(parse_error: tuple) -> str | None:
    """The name of the testset a chunk that did not parse starts (None for set-up)."""
    m = _TESTSET_HEAD.match(parse_error[2])
    if m:
        return m.group(1)
    return f"line {parse_error[0]}" if parse_error[2].startswith("@testset") else None


def files(paths: list[str] | None = None) -> list[Path]:
    """The conformance files (all of them, or those named / below the folders named)."""
    if not paths:
        return sorted(SUITE_DIR.glob("*/*.jl"))
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.glob("*.jl")) if p.is_dir() else [p])
    return out


def summary(results: list[FileResult]) -> dict[str, tuple[int, int]]:
    """Per suite: (testsets passed, testsets ported)."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        p, n = out.get(r.suite, (0, 0))
        out[r.suite] = (p + sum(t.passed for t in r.testsets), n + len(r.testsets))
    return dict(sorted(out.items()))


def passing_keys(results: list[FileResult]) -> list[str]:
    return sorted(r.key(t.name) for r in results for t in r.testsets if t.passed)


def coverage_table(results: list[FileResult]) -> str:
    """The Markdown table docs/COVERAGE.md shows: per suite and file, passed / ported."""
    lines = ["| suite | file | testsets passed | ported |", "|---|---|---:|---:|"]
    for r in results:
        lines.append(f"| {r.suite} | {r.path.name} | {sum(t.passed for t in r.testsets)} | "
                     f"{len(r.testsets)} |")
    total_p = total_n = 0
    for suite, (p, n) in summary(results).items():
        lines.append(f"| **{suite}** | all | **{p}** | **{n}** |")
        total_p, total_n = total_p + p, total_n + n
    pct = 100.0 * total_p / total_n if total_n else 0.0
    lines.append(f"| **all** | | **{total_p}** | **{total_n}** ({pct:.0f}%) |")
    return "\n".join(lines)
