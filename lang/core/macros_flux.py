"""Macros of the Flux ecosystem and of the file system, rewritten into ordinary calls.

- `@showprogress [desc] [desc=.. dt=.. enabled=..] for x in xs ... end` loops over
  `ProgressMeter.progress_iter(xs, desc, dt, enabled)`, which draws a progress bar on
  stderr as the loop consumes it; `@showprogress map(f, xs)` / `foreach(f, xs)` wrap
  their first collection the same way. Other expressions run unchanged.
- `Flux.@layer T ...`, `Flux.@functor T ...`: layers are plain structs here, whose
  gradients and optimiser state follow their fields already, so these declare nothing.
- `@__DIR__`, `@__FILE__`: the directory and path of the source file being run.
- `@save file a b` and `@load file a b` (JLD2's and BSON's): the named variables saved to
  and assigned from a file of lang.core.saving's format.
- `@autosize (sizes...) Chain(l1, l2, ...)`: each `_` in a layer's arguments is the
  feature size of what reaches that layer (`size(x, max(1, ndims(x) - 1))` of an input of
  that size: Flux's rule), found by running the layers before it (`Flux.outputsize`).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from grammar import ast as A
from lang.core.ir import Value

_OPTIONS = ("desc", "dt", "enabled")
_IGNORED = ("showspeed", "barlen", "color", "output", "barglyphs")


def _wrap(lo: Any, iterable: A.Node, opts: list[A.Node]) -> A.Call:
    """`ProgressMeter.progress_iter(iterable; desc, dt, enabled)` from the macro's options
    (a bare string is the description)."""
    kws = []
    for a in opts:
        if isinstance(a, A.Assign) and isinstance(a.target, A.Ident):
            key = a.target.name
            if key in _OPTIONS:
                kws.append(A.Kwarg(key, a.value, span=a.span))
            elif key not in _IGNORED:
                raise lo.err(f"@showprogress: unknown option `{key}`", a)
        else:
            kws.append(A.Kwarg("desc", a, span=a.span))
    return A.Call(
        A.Ident("ProgressMeter.progress_iter", span=iterable.span),
        [iterable],
        kws,
        span=iterable.span,
    )


def m_showprogress(lo: Any, n: A.MacroCall) -> Value:
    if not n.args:
        raise lo.err("@showprogress needs a loop or a map/foreach call", n)
    ex = n.args[-1]
    opts = list(n.args[:-1])
    if isinstance(ex, A.For):
        target, iterable = ex.iterators[0]
        loop = A.For(
            [(target, _wrap(lo, iterable, opts))] + list(ex.iterators[1:]), ex.body, span=ex.span
        )
        return lo.lower(loop)
    if (
        isinstance(ex, A.Call)
        and isinstance(ex.func, A.Ident)
        and ex.func.name in ("map", "foreach")
        and len(ex.args) >= 2
    ):
        args = [ex.args[0], _wrap(lo, ex.args[1], opts)] + list(ex.args[2:])
        return lo.lower(A.Call(ex.func, args, ex.kwargs, span=ex.span))
    return lo.lower(ex)


def m_declaration(lo: Any, n: A.MacroCall) -> Value:
    return lo.const(None)


def _source_path(lo: Any) -> str:
    name = getattr(getattr(lo, "source", None), "name", "") or ""
    return os.path.abspath(name) if name and not name.startswith("<") else ""


def m_dir(lo: Any, n: A.MacroCall) -> Value:
    path = _source_path(lo)
    return lo.const(os.path.dirname(path) if path else os.getcwd())


def m_file(lo: Any, n: A.MacroCall) -> Value:
    return lo.const(_source_path(lo) or None)


def _names(lo: Any, n: A.MacroCall, what: str) -> list[str]:
    names = []
    for a in n.args[1:]:
        if not isinstance(a, A.Ident):
            raise lo.err(f"@{what} takes a file and variable names", a)
        names.append(a.name)
    if not names:
        raise lo.err(f"@{what} needs the names of the variables to {what}", n)
    return names


def m_save(lo: Any, n: A.MacroCall) -> Value:
    names = _names(lo, n, "save")
    call = A.Call(A.Ident("Core.save_values", span=n.span),
                  [n.args[0], A.TupleLit([A.Literal(x, "String", span=n.span) for x in names],
                                         span=n.span),
                   A.TupleLit([A.Ident(x, span=n.span) for x in names], span=n.span)],
                  span=n.span)
    return lo.lower(call)


def m_load(lo: Any, n: A.MacroCall) -> Value:
    names = _names(lo, n, "load")
    call = A.Call(A.Ident("Core.load_names", span=n.span),
                  [n.args[0], A.TupleLit([A.Literal(x, "String", span=n.span) for x in names],
                                         span=n.span)], span=n.span)
    target = A.TupleLit([A.Ident(x, span=n.span) for x in names], span=n.span)
    lo.lower(A.Assign(target, call, span=n.span))
    return lo.const(None)


def _fill_blanks(node: Any, dim: A.Node) -> Any:
    """`node` with every `_` replaced by `dim` (a copy; inner lambdas keep theirs)."""
    if isinstance(node, A.Ident) and node.name == "_":
        return dim
    if isinstance(node, A.Lambda) or not dataclasses.is_dataclass(node):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, list):
            changes[f.name] = [_fill_blanks(x, dim) for x in v]
        elif isinstance(v, A.Node):
            changes[f.name] = _fill_blanks(v, dim)
    return dataclasses.replace(node, **changes) if changes else node


def m_autosize(lo: Any, n: A.MacroCall) -> Value:
    if len(n.args) != 2 or not (isinstance(n.args[1], A.Call)
                                and isinstance(n.args[1].func, A.Ident)):
        raise lo.err("@autosize takes an input size and a layer call, "
                     "`@autosize (28, 28, 1, 32) Chain(...)`", n)
    size, chain = n.args
    sp = n.span
    stmts: list[A.Node] = [A.Assign(A.Ident("autosize#size", span=sp), size, span=sp)]
    layers = []
    for k, layer in enumerate(chain.args):
        name = A.Ident(f"autosize#layer{k}", span=sp)
        dim = A.Call(A.Ident("Core.autosize_dim", span=sp), [A.Ident("autosize#size", span=sp)],
                     span=sp)
        stmts.append(A.Assign(name, _fill_blanks(layer, dim), span=sp))
        stmts.append(A.Assign(A.Ident("autosize#size", span=sp),
                              A.Call(A.Ident("Flux.outputsize", span=sp),
                                     [name, A.Ident("autosize#size", span=sp)], span=sp),
                              span=sp))
        layers.append(name)
    stmts.append(A.Call(chain.func, layers, chain.kwargs, span=chain.span))
    thunk = A.Lambda([], A.Block(stmts, span=sp), span=sp)
    return lo.lower(A.Call(thunk, [], span=sp))


FLUX_MACROS = {
    "autosize": m_autosize,
    "save": m_save,
    "load": m_load,
    "showprogress": m_showprogress,
    "layer": m_declaration,
    "functor": m_declaration,
    "__DIR__": m_dir,
    "__FILE__": m_file,
}
