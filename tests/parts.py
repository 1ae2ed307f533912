"""The suite's parts: `python tests/parts.py K N` prints the test files of part K of N.

`make test` runs the suite as N consecutive pytest runs, each in fresh processes, because
a test process keeps every runtime its tests made (a runtime's standard library is
~170,000 objects, and process-wide tables hold them; docs/TESTING.md,
"Memory"): the whole suite in one pair of processes grew to 15 GB and 9 GB and ran a
24 GB machine out of memory. A part is every N-th module in the suite's own order
(LONG_FIRST first, then by name), so that the long modules spread over the parts
and each part's two processes hold a quarter of the suite's runtimes.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: the modules whose tests take longest (`pytest --durations`): each part runs them first
#: (conftest orders them so), and the parts take them in this order
LONG_FIRST = ("test_conformance.py", "test_bench.py", "test_tiering.py", "test_nests.py",
              "test_permissions.py", "test_hostcode.py", "test_distributed.py")

HERE = Path(__file__).resolve().parent


def modules() -> list[str]:
    """The suite's test modules, in the order the parts take them."""
    names = sorted(p.name for p in HERE.glob("test_*.py"))
    return [n for n in LONG_FIRST if n in names] + [n for n in names if n not in LONG_FIRST]


def part(k: int, n: int) -> list[str]:
    """The test files of part k (1-based) of n, as paths relative to the repository."""
    if not 1 <= k <= n:
        raise ValueError(f"part {k} of {n}: k must be between 1 and {n}")
    return [f"tests/{name}" for i, name in enumerate(modules()) if i % n == k - 1]


if __name__ == "__main__":
    print(" ".join(part(int(sys.argv[1]), int(sys.argv[2]))))
