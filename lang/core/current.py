"""The runtime now running.

Built-ins that need the program's world (its stdout, its iteration protocol, its
constructors) find the runtime here instead of taking it as an argument. One runtime is
current at a time: a new `Runtime` becomes current when its built-ins are installed.
"""

from __future__ import annotations

from typing import Any

_RUNTIME: list[Any] = [None]


def runtime() -> Any:
    """The current `lang.core.runtime.Runtime` (None before the first one is made)."""
    return _RUNTIME[0]


def make_current(rt: Any) -> None:
    """Make `rt` the runtime that built-ins see."""
    _RUNTIME[0] = rt
