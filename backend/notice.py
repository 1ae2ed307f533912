"""Compile notices: "compiling f(...) ..." on stderr when a compile takes a while.

`compile_notice(label)` prints the notice when a compile takes longer than
`ZYLA_COMPILE_NOTICE` seconds (default 2) and, when it ends, "done in N s".
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from lang.core import current
from lang.core.structure import OffloadError


def _notice_threshold() -> float:
    try:
        return float(os.environ.get("ZYLA_COMPILE_NOTICE", "2"))
    except ValueError:
        return 2.0


@contextmanager
def compile_notice(label: Callable[[], str], stream: Any = None) -> Iterator[None]:
    """Around a compile: `_notice`, and the seconds it takes added to the program's
    compile clock (`@time`'s "% compilation time")."""
    t0 = time.perf_counter()
    try:
        with _notice(label, stream):
            yield
    finally:
        current.COMPILE_SECONDS[0] += time.perf_counter() - t0


@contextmanager
def _notice(label: Callable[[], str], stream: Any = None) -> Iterator[None]:
    """Around a compile: once it has run longer than the threshold, print
    `compiling LABEL ...` on stderr; when it ends, `done in N s` (or why it stopped),
    only if announced.
    `label` is called only if the notice is printed. A negative threshold disables it."""
    threshold = _notice_threshold()
    if threshold < 0:
        yield
        return
    out = stream if stream is not None else sys.stderr
    said = threading.Event()
    lock = threading.Lock()
    finished = [False]

    def announce() -> None:
        with lock:
            if finished[0]:
                return
            try:
                out.write(f"compiling {label()} ...")
                out.flush()
            except Exception:
                return
            said.set()

    t0 = time.perf_counter()
    timer = threading.Timer(threshold, announce)
    timer.daemon = True
    if threshold == 0:
        announce()
    else:
        timer.start()
    outcome = "done in"
    try:
        yield
    except BaseException as e:
        outcome = "not compiled (runs on the host); stopped after" if isinstance(
            e, OffloadError) else "failed after"
        raise
    finally:
        timer.cancel()
        with lock:
            finished[0] = True
        if said.is_set():
            try:
                out.write(f" {outcome} {time.perf_counter() - t0:.1f} s\n")
                out.flush()
            except Exception:
                pass
