"""Process CPU seconds of the host-tier rows of bench group `user`, first call included.

`make bench` times these programs with `@elapsed` (wall clock) inside `zyla run`; on a
loaded machine wall clocks move by several times, so this script times the same calls in
CPU seconds, with their CPython twins timed the same way:

    .venv/bin/python bench/host_cpu.py [REPO] [ROWS]

REPO is the checkout whose `lang` is measured (default: this one), ROWS a comma list of
fib24, sin1e6, wordcount, points, commas, grown. Run it in fresh processes, several times
interleaved with the version it is compared with, and take the minimum.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

import user_bench as U  # noqa: E402

from lang.door.api import Zyla  # noqa: E402


def zyla_cpu(program: str, call: str) -> float:
    """CPU seconds of `call` after the definitions of bench/user/`program`.jl (its lines
    before the first timed `@elapsed`) have run."""
    src = (REPO / "bench" / "user" / f"{program}.jl").read_text().split("t = @elapsed")[0]
    z = Zyla()
    z.rt.run_source(src, f"{program}.jl")
    gc.collect()
    t = time.process_time()
    z.rt.run_source(call, "call.jl")
    return time.process_time() - t


def py_cpu(f: Callable[[], Any]) -> float:
    gc.collect()
    t = time.process_time()
    f()
    return time.process_time() - t


def _words() -> float:
    lines = U.py_lines(100, 1000, 500)
    return py_cpu(lambda: U.py_count_words(lines))


ROWS: dict[str, tuple[Callable[[], float], Callable[[], float]]] = {
    "fib24": (lambda: zyla_cpu("fib", "fib(24)"), lambda: py_cpu(lambda: U.py_fib(24))),
    "sin1e6": (lambda: zyla_cpu("sinloop", "sinsum_seq(10^6)"),
               lambda: py_cpu(lambda: U.py_sinsum(10 ** 6))),
    "wordcount": (lambda: zyla_cpu("wordcount", "count_words(text)"), _words),
    "points": (lambda: zyla_cpu("hostmix", "path_length(20000)"),
               lambda: py_cpu(lambda: U.py_path_length(20000))),
    "commas": (lambda: zyla_cpu("hostmix", "commas(20000)"),
               lambda: py_cpu(lambda: U.py_commas(20000))),
    "grown": (lambda: zyla_cpu("hostmix", "grown(20000)"),
              lambda: py_cpu(lambda: U.py_grown(20000))),
}


def main() -> None:
    names = sys.argv[2].split(",") if len(sys.argv) > 2 else list(ROWS)
    for name in names:
        zyla, peer = ROWS[name]
        z, p = zyla(), peer()
        print(f"{name} zyla_ms {z * 1e3:.2f} cpython_ms {p * 1e3:.2f} ratio {z / p:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
