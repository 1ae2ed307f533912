"""C-style formatting for `@printf` / `@sprintf` (Julia's Printf).

A format is split once into literal text and conversion specs
`%[flags][width][.precision]conv` with flags from `-+ 0#` and conv one of
`d i u f F e E g G a A s c x X o %`; each spec formats one argument. Numbers follow C's
printf, as Julia's does (`%.3e` of 12345.678 is `1.235e+04`); `%s` writes an argument as
`print` would, `%d` accepts an integral float and rejects others with an InexactError.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from grammar.errors import ZylaError

_SPEC = re.compile(r"%([-+ 0#]*)(\d+|\*)?(?:\.(\d+|\*))?([diufFeEgGaAscxXo%])")

_INT_CONVS = frozenset("diuxXoc")


@lru_cache(maxsize=256)
def parse_format(fmt: str) -> tuple[
        tuple[str, tuple[str, str | None, str | None, str] | None], ...]:
    """The format as (literal, spec) pieces; spec is (flags, width, precision, conv)."""
    out: list[tuple[str, tuple[str, str | None, str | None, str] | None]] = []
    pos = 0
    for m in _SPEC.finditer(fmt):
        lit = fmt[pos:m.start()]
        pos = m.end()
        flags, width, prec, conv = m.groups()
        if conv == "%":
            out.append((lit + "%", None))
            continue
        out.append((lit, (flags, width, prec, conv)))
    if "%" in fmt[pos:]:
        raise ZylaError("ArgumentError", f"invalid format string: {fmt!r}")
    out.append((fmt[pos:], None))
    return tuple(out)


def _as_int(x: Any) -> int:
    if isinstance(x, bool):
        return int(x)
    try:
        f = float(x)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError", f"invalid argument for %d: {x!r}") from None
    if not f.is_integer():
        raise ZylaError("InexactError", f"Int64({f!r})")
    return int(x) if isinstance(x, int) else int(f)


def _one(spec: tuple[str, str | None, str | None, str], x: Any, text_of: Any) -> str:
    flags, width, prec, conv = spec
    head = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
    if conv == "s":
        return (head + "s") % text_of(x)
    if conv == "c":
        return (head + "s") % text_of(x)
    if conv in _INT_CONVS:
        return (head + ("d" if conv in "iu" else conv)) % _as_int(x)
    if conv in "aA":
        s = float(x).hex()
        return s.upper() if conv == "A" else s
    try:
        return (head + conv) % float(x)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError", f"invalid argument for %{conv}: {text_of(x)}") from None


def format_values(fmt: str, args: tuple | list, text_of: Any) -> str:
    """`@sprintf(fmt, args...)`. `text_of` renders a value for `%s` (Julia's print)."""
    pieces = parse_format(fmt)
    nspec = sum(1 for _, s in pieces if s is not None)
    if nspec != len(args):
        raise ZylaError("ArgumentError",
                        f"@printf: format string {fmt!r} takes {nspec} arguments, got {len(args)}")
    out = []
    it = iter(args)
    for lit, spec in pieces:
        out.append(lit)
        if spec is not None:
            out.append(_one(spec, next(it), text_of))
    return "".join(out)
