"""Docstrings and the REPL's help mode (`?name`).

A docstring is a string literal written as a statement right before a definition, as in
Julia:

    \"\"\"
        f(x)

    Square x.
    \"\"\"
    f(x) = x^2

The runtime keeps the text of every source it ran (`rt.sources`); `docstrings(rt)`
parses them (once per text) and maps each defined name (the last component of a dotted
name: `Base.f` documents `f`) to its docstrings. `help_text(rt, name)` is what `?name`
prints: the docstrings, then the methods with their signatures and locations, the fields
of a struct, or a "did you mean" when the name is unknown.
"""

from __future__ import annotations

import textwrap
from typing import Any

from grammar import ast as A
from grammar.errors import ZylaError
from grammar.parser import parse
from lang.core import values as V
from lang.core.functions import Closure, GenericFunction, typeof
from lang.core.hints import UNSUPPORTED, closest_names, method_lines, names_in_scope
from lang.core.primitives import Primitive
from lang.core.runtime import STDLIB

_CACHE: dict[tuple[str, int], dict[str, list[str]]] = {}


def _defined_name(node: Any) -> str | None:
    """The name a top-level statement defines, if it is a definition."""
    if isinstance(node, A.FunctionDef):
        name = node.name
    elif isinstance(node, (A.StructDef, A.AbstractTypeDef)):
        name = node.name
    elif isinstance(node, A.Const):
        return _defined_name(getattr(node, "expr", None) or getattr(node, "value", None))
    elif isinstance(node, A.Assign):
        t = node.target
        name = t.name if isinstance(t, A.Ident) else (
            t.func.name if isinstance(t, A.Call) and isinstance(t.func, A.Ident) else None)
    elif isinstance(node, A.MacroCall) and node.args:
        return _defined_name(node.args[-1])
    else:
        return None
    if not isinstance(name, str):
        return None
    return name.rsplit(".", 1)[-1]


def _scan(text: str, filename: str) -> dict[str, list[str]]:
    key = (filename, hash(text))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    out: dict[str, list[str]] = {}
    try:
        stmts = parse(text, filename).stmts
    except ZylaError:
        stmts = []
    for doc, node in zip(stmts, stmts[1:], strict=False):
        if isinstance(doc, A.Literal) and isinstance(doc.value, str):
            name = _defined_name(node)
            if name:
                out.setdefault(name, []).append(doc.value)
    _CACHE[key] = out
    return out


def docstrings(rt: Any, name: str) -> list[str]:
    """The docstrings of `name` in the standard library (`gradient`, `Dense`, ...) and in
    every source the runtime has run, oldest first."""
    out: list[str] = []
    texts = [(p.read_text(), str(p)) for p in sorted(STDLIB.glob("*.jl"))]
    texts += [(src.text, src.name) for src in list(rt.sources.values())
              if not src.name.startswith(str(STDLIB))]
    for text, fname in texts:
        if text and '"' in text and name in text:
            out.extend(_scan(text, fname).get(name, []))
    return out


def help_text(rt: Any, name: str) -> str:
    """What the REPL prints for `?name`."""
    name = name.strip()
    if not name:
        return "Type ?name to see the documentation of `name`."
    short = name.rsplit(".", 1)[-1]
    try:
        value = rt.lookup(name)
    except ZylaError:
        value = None
        found = False
    else:
        found = True
    docs = docstrings(rt, short)
    parts: list[str] = [textwrap.indent(d.strip("\n"), "  ") for d in docs]
    if not found and not docs:
        if name in UNSUPPORTED or "@" + name in UNSUPPORTED:
            return UNSUPPORTED.get(name) or UNSUPPORTED["@" + name]
        near = closest_names(short, names_in_scope(rt))
        msg = f"No documentation found.\n\nBinding `{name}` does not exist."
        if near:
            msg += " Did you mean " + ", ".join(f"`{n}`" for n in near) + "?"
        return msg
    summary = _summary(rt, name, value, V, method_lines) if found else ""
    if not docs:
        parts.append(f"  No documentation found for `{name}`.")
    if summary:
        parts.append(summary)
    return "\n\n".join(parts)


def _summary(rt: Any, name: str, value: Any, V: Any, method_lines: Any) -> str:
    if isinstance(value, GenericFunction):
        lines = method_lines(value, value.name)
        n = len(lines)
        head = f"  `{value.name}` is a generic function with {n} method{'s' if n != 1 else ''}:"
        return "\n".join([head] + [f"    {ln}" for ln in lines[:20]]
                         + ([f"    ... and {n - 20} more"] if n > 20 else []))
    if isinstance(value, Primitive):
        diff = "not differentiable" if value.pullback == "nondifferentiable" else "differentiable"
        return f"  `{name}` is a built-in function ({diff})."
    if isinstance(value, Closure):
        return f"  `{name}` is an anonymous function."
    if isinstance(value, V.JType):
        if value.is_struct:
            kind = "mutable struct" if value.mutable else "struct"
            fields = [f"    {f}::{V.type_name(t) if isinstance(t, V.JType) else t}"
                      for f, t in zip(value.fields, value.field_types, strict=False)]
            sup_t = value.super_
            sup = sup_t.name if sup_t is not None and sup_t is not V.AnyT else None
            head = f"  {kind} {V.type_name(value)}" + (f" <: {sup}" if sup else "")
            return "\n".join([head] + fields + ["  end"])
        return f"  `{name}` is the type {V.type_name(value)}."
    if isinstance(value, V.ModuleValue):
        return f"  `{name}` is a module."
    return f"  `{name}` is a value of type {V.type_name(typeof(value))}."
