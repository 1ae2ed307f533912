"""The Python garbage collector's settings for a process that runs Zyla programs.

Zyla's host values (structs, closures, boxes) and its loaded standard library (IR,
methods, translated code) are many small Python objects. With CPython's default
thresholds (a young collection every 700 allocations, a full one every 70,000) a program
building 100,000 `Complex` values spent a third of its time in the collector, most of it
re-scanning the standard library in full collections (measured: 4.30 s of CPU against
2.85 s with the settings below; `fib(24)` through `zyla run` 1.24 s against 0.81 s).

`tune()` makes collections rarer (young ones every 100,000 allocations), and `settle()`,
called once the standard library is loaded, moves what is alive then out of the
collector's sight (`gc.freeze`): it lives for the whole process anyway. Reference counting
still frees everything at once; only cycles wait longer for their collection.
"""

from __future__ import annotations

import gc

#: allocations between young collections; the older generations keep CPython's ratios.
#: A young collection reads every young object still alive (~75 ns each for a struct and
#: its field list): objects that die before it (by reference counting, as most do) cost
#: nothing, so a longer interval costs less. 20,000 -> 100,000 (session 23): a call that
#: builds 20,000 structs and walks them (bench/user/hostmix.jl) 26.5 -> 23.4 ms median of
#: 8 interleaved runs (it made two young collections, 2.1-3.4 ms, and now none); peak
#: memory of tests/test_flux_layers.py and test_gradients.py unchanged (1.44 GB).
YOUNG_THRESHOLD = 100_000

_SETTLED = [False]


def tune() -> None:
    """Set the collection thresholds (idempotent)."""
    if gc.get_threshold()[0] < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, 10, 10)


def settle() -> None:
    """Collect once and freeze what survives: the first call in a process only (later
    runtimes in the same process, as in a test run, keep what they make collectable)."""
    if _SETTLED[0]:
        return
    _SETTLED[0] = True
    gc.collect()
    gc.freeze()
