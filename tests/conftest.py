"""Suite-wide settings: the recursion limit, and the order in which tests are handed out.

Every test process has the recursion limit `zyla` runs programs with (lang/door/cli.py):
a second derivative through the host's pullback closures nests deeper than Python's
default 1000 frames, and without this a test passed or failed with which tests its
process happened to run before it (inside a hypothesis example the limit is hypothesis's:
tests raise it there with snippets.zyla_recursion_limit).

`make test` runs the suite in parts (tests/parts.py), each in parallel processes
(pytest-xdist), which take tests in collection order. The few long tests (a conformance
file runs for up to a minute) go first, so that they spread over the processes instead of
one process finishing alone with a long test at the end.

After each test, the process collects its garbage and freezes what is still alive
(`gc.freeze`, as lang.core.collector.settle does for the standard library): a test
process keeps the runtimes its tests made (each one's standard library is ~150,000
objects), and the collector's full collections rescanned them all, again and again (two
thirds of the CPU time of eight snippet modules run in one process, 65 s of 96 s; the
whole process, its exit included, 193 CPU seconds, 50 with this). Frozen, they are never
scanned again; each test's own garbage is still collected.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Generator

import pytest
from parts import LONG_FIRST
from snippets import ZYLA_RECURSION_LIMIT


def pytest_configure(config: pytest.Config) -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), ZYLA_RECURSION_LIMIT))


def _rank(item: pytest.Item) -> int:
    name = item.path.name
    return LONG_FIRST.index(name) if name in LONG_FIRST else len(LONG_FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # (stable: each module keeps its own order)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item,
                            nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Once a test and its fixtures' teardown ran: collect, then freeze the survivors out
    of the collector's sight (see the module docstring). (In the process that runs the
    test: xdist's controller, which only reports, does not.)"""
    result = yield
    gc.collect()
    gc.freeze()
    return result
