"""Names a user may have meant: "did you mean", unsupported Julia constructs, method lists.

`closest_names` ranks candidate names by edit distance; `names_in_scope` lists what a
program can see; `UNSUPPORTED` names the Julia constructs Zyla leaves out on purpose, with
the reason; `closest_methods` and `method_lines` write methods as Julia lists them
(`f(x::Float64, y) @ file.jl:3`), for a `MethodError` and for help mode. The hints the
CLI and the REPL add to errors are built from these (lang.door.diagnostics.enrich).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from grammar.errors import SourceFile
from lang.core import values as V

# ---- unsupported Julia constructs ---------------------------------------------------------

_NO_FFI = "Zyla programs cannot call C, Python or the shell"
_NO_META = "Zyla has no run-time code evaluation (metaprogramming)"

#: Names of Julia functions/macros Zyla does not provide on purpose, with the reason.
UNSUPPORTED: dict[str, str] = {
    "ccall": f"`ccall` (calling C) is not supported: {_NO_FFI}",
    "@ccall": f"`@ccall` (calling C) is not supported: {_NO_FFI}",
    "cglobal": f"`cglobal` is not supported: {_NO_FFI}",
    "@cfunction": f"`@cfunction` is not supported: {_NO_FFI}",
    "unsafe_load": f"raw pointers (`unsafe_load`) are not supported: {_NO_FFI}",
    "unsafe_store!": f"raw pointers (`unsafe_store!`) are not supported: {_NO_FFI}",
    "pointer": f"raw pointers are not supported: {_NO_FFI}",
    "Libc": f"`Libc` is not available: {_NO_FFI}",
    "pyimport": f"`pyimport` is not available: {_NO_FFI}",
    "include_string": f"`include_string` is not supported: {_NO_META}",
    "invokelatest": f"`invokelatest` is not supported: {_NO_META}",
    "@goto": "`@goto` is not supported by Zyla: use a loop with `break`/`continue`",
    "@label": "`@label` is not supported by Zyla: use a loop with `break`/`continue`",
    "@async": "tasks (`@async`) are not supported by Zyla",
    "@spawn": "tasks (`@spawn`) are not supported by Zyla",
    "@threads": "threads (`Threads.@threads`) are not supported by Zyla: "
    "a compiled call already runs in parallel on its device",
    "@distributed": "`@distributed` is not supported by Zyla",
    "DataFrame": "DataFrames are not available in Zyla (`using DataFrames` is accepted, so "
    "that a program that loads it but does not use it runs): use matrices, e.g. "
    "MLDatasets' `as_df = false`",
}


# ---- "did you mean" -----------------------------------------------------------------------


def edit_distance(a: str, b: str, limit: int = 1 << 30) -> int:
    """The optimal string alignment distance (Levenshtein with adjacent transpositions)
    between `a` and `b`; returns a value > `limit` early when the distance exceeds it."""
    if a == b:
        return 0
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def closest_names(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` candidates closest to `name`: a case-insensitive match first, then by
    edit distance (at most a third of the name's length, at least 1, at most 3)."""
    limit = min(3, max(1, len(name) // 3))
    low = name.lower()
    scored: list[tuple[int, int, str]] = []
    for c in set(candidates):
        if c == name or not c:
            continue
        if c.lower() == low:
            scored.append((0, 0, c))
            continue
        d = edit_distance(name, c, limit)
        if d <= limit:
            scored.append((d, abs(len(c) - len(name)), c))
        elif len(name) >= 4 and (c.startswith(name) or name.startswith(c)) and len(c) >= 3:
            scored.append((limit + 1, abs(len(c) - len(name)), c))
    scored.sort()
    return [c for _, _, c in scored[:n]]


_IDENT = re.compile(r"[A-Za-z_\u00a1-\uffff][A-Za-z0-9_!\u00a1-\uffff]*")


def visible(name: str) -> bool:
    return bool(name) and not name.startswith(("#", "Core.", "_")) and "." not in name


def names_in_scope(rt: Any, source: SourceFile | None = None) -> set[str]:
    """Names a user could have meant: globals, built-ins, module names, and the
    identifiers of `source` (which covers local variables of the failing code)."""
    out = {k for k in rt.globals if visible(k)}
    out |= {k for k in rt.builtins if visible(k)}
    out |= set(getattr(rt, "modules", {}))
    if source is not None and len(source.text) < 2_000_000:
        out |= set(_IDENT.findall(source.text))
    return out


# ---- method listings (help mode, MethodError) -----------------------------------------------


def closest_methods(name: str, types: list, methods: list, n: int = 3) -> list[str]:
    """The `n` methods closest to a call with argument `types` (most matching argument
    types, then the same number of arguments), each as `method_lines` writes it."""
    def score(m: Any) -> tuple[int, int]:
        arity_ok = m.nreq <= len(types) and (m.vararg or len(types) <= len(m.sig))
        matches = 0
        for t, s in zip(types, m.sig, strict=False):
            try:
                matches += bool(V.issubtype(t, s, {}))
            except Exception:
                pass
        return (-matches, 0 if arity_ok else 1)

    shown = [m for m in methods if m.fn is not None or m.sig]
    ranked = sorted(shown, key=score)[:n]
    return [_method_line(m, name) for m in ranked]


def method_lines(gf: Any, name: str | None = None) -> list[str]:
    """One line per method of a generic function: `f(x::Float64, y) @ file.jl:3`."""

    name = name or getattr(gf, "name", "f")
    return [_method_line(m, name) for m in getattr(gf, "methods", [])]


def _method_line(m: Any, name: str) -> str:
    """`f(x::Float64, y) @ file.jl:3` for one method."""
    fn = m.fn
    if fn is None:
        return m.signature_text(name) + " @ built-in"
    npos = len(fn.params) - fn.ncaptures - fn.nkw
    pnames = fn.params[fn.ncaptures: fn.ncaptures + npos]
    parts = []
    for i, p in enumerate(pnames):
        if fn.vararg and i == len(pnames) - 1:
            t = m.vararg_type
            parts.append(f"{p}{'' if t is V.AnyT else '::' + V.type_name(t)}...")
            continue
        t = m.sig[i] if i < len(m.sig) else V.AnyT
        tn = t.name if isinstance(t, V.TypeVar) else V.type_name(t)
        shown = p if not p.startswith("#") else ""
        parts.append(shown if tn == "Any" else f"{shown}::{tn}")
    kws = fn.params[len(fn.params) - fn.nkw:] if fn.nkw else []
    kw = "; " + ", ".join(k for k in kws if not k.startswith("#")) if kws else ""
    where = f" @ {os.path.basename(fn.file)}:{fn.span.line}" if fn.span.line else ""
    return f"{name}({', '.join(parts)}{kw}){where}"
