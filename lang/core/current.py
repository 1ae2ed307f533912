"""The runtime now running.

Built-ins that need the program's world (its stdout, its iteration protocol, its
constructors) find the runtime here instead of taking it as an argument. One runtime is
current at a time: a new `Runtime` becomes current when its built-ins are installed.
"""

from __future__ import annotations

from typing import Any

_RUNTIME: list[Any] = [None]
#: Seconds spent building executables (tracing and XLA compiles, first runs included),
#: added to by the backend; `@time` reports its share of a timed expression.
COMPILE_SECONDS: list[float] = [0.0]


def runtime() -> Any:
    """The current `lang.core.runtime.Runtime` (None before the first one is made)."""
    return _RUNTIME[0]


def make_current(rt: Any) -> None:
    """Make `rt` the runtime that built-ins see. The runtime that was current takes its
    methods of shared types with it (`step_out`, see lang.core.familytables), and `rt`
    puts its own back (`step_in`)."""
    old = _RUNTIME[0]
    if old is rt:
        return
    if old is not None:
        old.step_out()
    _RUNTIME[0] = rt
    if rt is not None:
        rt.step_in()
