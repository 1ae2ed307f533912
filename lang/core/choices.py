"""Lowerings with several forms: the primitive offers them, the backend chooses.

Where a primitive's JAX lowering comes in several equivalent forms (a convolution as one
XLA convolution, as shifted slices and a dot, ...), its module offers them here with
`offer(op, names, default, env, measured)`. At trace time the lowering asks
`choose(op, key, build, specs, work, ...)` which form to emit: the answer comes from the
chooser that the backend installs (its cost model, DESIGN.md decision 6); without one,
the default form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: op -> (names, default, env variable that forces a form, names the chooser measures)
OFFERS: dict[str, tuple[tuple[str, ...], str, str, Sequence[str] | None]] = {}

#: The installed (choose, register) pair, at most one.
_installed: list[tuple[Callable[..., str], Callable[..., None]]] = []


def offer(op: str, names: Sequence[str], default: str, env: str,
          measured: Sequence[str] | None = None) -> None:
    """Declare the forms of `op`'s lowering (see `backend.costmodel.register`)."""
    OFFERS[op] = (tuple(names), default, env, measured)
    for _, register in _installed:
        register(op, tuple(names), default, env, measured)


def install(choose_fn: Callable[..., str], register: Callable[..., None]) -> None:
    """Make `choose_fn` the chooser; `register` learns every form offered, now and later."""
    _installed[:] = [(choose_fn, register)]
    for op, (names, default, env, measured) in OFFERS.items():
        register(op, names, default, env, measured)


def choose(op: str, key: str, build: Callable[[str], Callable[..., Any]],
           specs: Sequence[tuple[tuple[int, ...], Any]], work: float, **options: Any) -> str:
    """The form of `op` to emit for the problem `key`."""
    if not _installed:
        return OFFERS[op][1]
    return _installed[0][0](op, key, build, specs, work, **options)
