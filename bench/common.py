"""Shared pieces of the benchmark suite: timing, result rows, Zyla sessions.

Every comparison times the two sides in the same process, interleaved call by call
(Zyla, peer, Zyla, peer, ...) so that both see the same machine noise, after warm-up
calls that also absorb compilation; the figure is the median of the timed calls.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
for _p in (str(ROOT), str(BENCH)):
    if _p not in sys.path:
        sys.path.insert(0, _p)


@dataclass
class Row:
    """One line of the results table.

    `zyla` and `peer` are the measured figures in `unit`; `ratio` is what the target
    constrains (usually zyla/peer, lower is better); `target` is its text (e.g. "≤ 1.0")
    and `met` whether the ratio satisfies it (None when the row has no target or the
    figure could not be measured, in which case `note` says why).
    """

    group: str
    name: str
    zyla: float | None
    peer: float | None
    unit: str
    ratio: float | None
    target: str = ""
    met: bool | None = None
    note: str = ""
    peer_name: str = "JAX"


def check(ratio: float | None, target: str) -> bool | None:
    """Whether `ratio` meets a target written as "≤ x" or "≥ x"."""
    if ratio is None or not target:
        return None
    op, _, val = target.partition(" ")
    if op not in ("≤", "≥"):
        return None
    bound = float(val.rstrip("x×"))
    return ratio <= bound if op == "≤" else ratio >= bound


def row(group: str, name: str, zyla: float | None, peer: float | None, unit: str,
        target: str = "", note: str = "", ratio: float | None = None,
        peer_name: str = "JAX") -> Row:
    """A Row whose ratio is zyla/peer unless given, checked against `target`."""
    if ratio is None and zyla is not None and peer:
        ratio = zyla / peer
    return Row(group, name, zyla, peer, unit, ratio, target, check(ratio, target), note,
               peer_name)


def median_seconds(f: Callable[[], Any], reps: int, warmup: int = 1) -> float:
    """The median seconds of `reps` calls of f, after `warmup` untimed ones."""
    for _ in range(warmup):
        f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_once(f: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def interleaved(fa: Callable[[], Any], fb: Callable[[], Any], reps: int,
                warmup: int = 1, inner: int = 1, inner_b: int | None = None
                ) -> tuple[float, float]:
    """Median seconds per call of fa and of fb, timed alternately.

    Each sample times `inner` consecutive calls of fa (`inner_b` of fb, default the same),
    for calls too short to time alone, and is divided by that count; `warmup` untimed
    calls of each come first.
    """
    nb = inner if inner_b is None else inner_b
    for _ in range(warmup):
        fa()
        fb()
    ta: list[float] = []
    tb: list[float] = []

    def sample(f: Callable[[], Any], n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        return (time.perf_counter() - t0) / n

    for i in range(reps):
        # alternate which side goes first, so neither always follows the other
        if i % 2 == 0:
            ta.append(sample(fa, inner))
            tb.append(sample(fb, nb))
        else:
            tb.append(sample(fb, nb))
            ta.append(sample(fa, inner))
    return statistics.median(ta), statistics.median(tb)


def zyla_session(source: str, filename: str = "bench.jl", prelude: str = "") -> Any:
    """A fresh Zyla runtime that has run `prelude` and then `source`."""
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.current_file = filename
    if prelude:
        rt.run_source(prelude, "prelude.jl")
    rt.run_source(source, filename)
    return rt


def jax_setup() -> Any:
    """JAX configured as Zyla configures it (64-bit types, the same Float32 matmul
    precision: lang.core.numeric.configure_jax), returned as the module: the peers compute
    what Zyla computes."""
    import jax

    from lang.core.numeric import configure_jax

    configure_jax()
    return jax


def field(v: Any, name: str) -> Any:
    """Field `name` of a Zyla struct value."""
    return v.fields[v.type.fields.index(name)]


def build_call(rt: Any, f: Any, args: list) -> tuple[Any, Any, list]:
    """(entry, key, leaves): a fresh, uncached build of f(args...)'s executable (its first,
    abstract trace), as `backend.compile.lower_text` makes one."""
    from backend import compile as C

    key, leaves, muts = C._signature(rt, f, args, None)
    return C.build(rt, key, leaves, muts, 64), key, leaves
