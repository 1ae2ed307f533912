"""Suite-wide settings: the recursion limit, and the order in which tests are handed out.

Every test process has the recursion limit `zyla` runs programs with (lang/door/cli.py):
a second derivative through the host's pullback closures nests deeper than Python's
default 1000 frames, and without this a test passed or failed with which tests its
process happened to run before it (inside a hypothesis example the limit is hypothesis's:
tests raise it there with snippets.zyla_recursion_limit).

`make test` runs the suite in parallel processes (pytest-xdist), which take tests in
collection order. The few long tests (a conformance file runs for up to a minute) go
first, so that they spread over the processes instead of one process finishing alone
with a long test at the end.
"""

from __future__ import annotations

import sys

import pytest
from snippets import ZYLA_RECURSION_LIMIT

#: the modules whose tests take longest (`pytest --durations`), run first in this order
LONG_FIRST = ("test_conformance.py", "test_bench.py", "test_tiering.py", "test_nests.py",
              "test_permissions.py", "test_hostcode.py", "test_distributed.py")


def pytest_configure(config: pytest.Config) -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), ZYLA_RECURSION_LIMIT))


def _rank(item: pytest.Item) -> int:
    name = item.path.name
    return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # (stable: each module keeps its own order)
