"""Run the conformance suite (tests/conformance; lang/door/conformance.py).

    .venv/bin/python scripts/conformance.py [FILE_OR_FOLDER ...] [-v] [--write] [--runs N]
                                            [--jobs J]

Prints each file's testsets (with why a testset failed, under -v) and the counts per
suite. --write rewrites the table in docs/COVERAGE.md and tests/conformance/passing.txt
(run it over the whole suite); with --runs N every file runs N times and a testset counts
as passing only if it passed every time (so that passing.txt lists no flaky testset);
--jobs J runs J files at a time, each in a process of its own.
"""

from __future__ import annotations

import argparse
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lang.door import conformance as C  # noqa: E402

DOC = C.ROOT / "docs" / "COVERAGE.md"
START, END = "<!-- conformance:start -->", "<!-- conformance:end -->"


def run_file_runs(path: Path, runs: int) -> C.FileResult:
    """Run one file `runs` times; a testset passes only if it passed every run."""
    r = C.run_file(path)
    for _ in range(runs - 1):
        again = {t.name: t.passed for t in C.run_file(path).testsets}
        r.testsets = [t if not t.passed or again.get(t.name, False) else
                      C.Outcome(t.name, False, "passed in some runs only (flaky)")
                      for t in r.testsets]
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    paths = list(C.files(a.paths))
    runs = [a.runs] * len(paths)
    if a.jobs > 1:
        # (spawned, not forked: a fork of a process that started JAX's threads may hang)
        with ProcessPoolExecutor(a.jobs, mp_context=get_context("spawn")) as pool:
            results = list(pool.map(run_file_runs, paths, runs))
    else:
        results = list(map(run_file_runs, paths, runs))
    for r in results:
        ok = sum(t.passed for t in r.testsets)
        print(f"{r.suite}/{r.path.name}: {ok}/{len(r.testsets)}", flush=True)
        for e in r.setup_errors:
            print(f"  set-up error: {e}")
        for t in r.testsets:
            if not t.passed:
                print(f"  FAIL {t.name}")
                if a.verbose:
                    print("    " + t.why.replace("\n", "\n    "))
    for suite, (p, n) in C.summary(results).items():
        print(f"{suite}: {p}/{n} testsets pass")
    if a.write:
        text = DOC.read_text()
        table = f"{START}\n{C.coverage_table(results)}\n{END}"
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _m: table, text,
                      flags=re.S) if START in text else text + "\n" + table + "\n"
        DOC.write_text(text)
        C.PASSING.write_text("\n".join(C.passing_keys(results)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
