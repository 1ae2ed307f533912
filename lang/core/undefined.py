"""Reads of local variables that may be undefined.

A variable assigned on some paths only (`if b; x = 1; end; x`, `local x`, a loop that may
not run) has, on the other paths, the placeholder `UNDEF` (lang.core.lower) as its value.
Julia throws `UndefVarError` when such a read finds no value. `check_undefined` (run on
every lowered body) finds the SSA values that may be `UNDEF` and puts a
`Core.check_defined(v, name)` before each op that reads one; values that are certainly
defined get no check, so the common code pays nothing.

A check whose value a traced branch or loop decided cannot be compiled (the primitive is
host-only): such a call runs on the host, where the check is exact.
"""

from __future__ import annotations

from typing import Any

from lang.core.ir import Function, Op, Region, Value

#: ops that pass a possibly undefined value on without reading it
_PASS_ON = frozenset({"yield", "closure"})
#: calls that take a possibly undefined value as it is
_TAKE_UNDEF = frozenset({"Core.is_assigned", "Core.box", "Core.check_defined"})


def check_undefined(fn: Function, undef: Any) -> None:
    """Insert `Core.check_defined` before each read of a value of fn (and of the closures
    and local methods it defines) that may be `undef`."""
    maybe = _maybe_undefined(fn.body, undef)
    if maybe:
        _insert_checks(fn, fn.body, maybe)
    for op in _all_ops(fn.body):
        for f in op.attrs.values():
            if isinstance(f, Function) and f is not fn:
                check_undefined(f, undef)


def _all_ops(region: Region) -> list[Op]:
    out: list[Op] = []
    for op in region.ops:
        out.append(op)
        for r in op.regions:
            out.extend(_all_ops(r))
    return out


def _maybe_undefined(body: Region, undef: Any) -> set[int]:
    """Ids of the values that may be `undef`: the constant itself, and what merges it
    (results of an `if`, loop-carried values and a loop's results), to a fixpoint."""
    maybe: set[int] = set()
    ops = _all_ops(body)
    for op in ops:
        if op.name == "const" and op.attrs.get("value") is undef and \
                not op.attrs.get("placeholder"):
            maybe.add(op.results[0].id)
    if not maybe:
        return maybe
    changed = True
    while changed:
        n = len(maybe)
        for op in ops:
            for ins, outs in _flows(op):
                if ins & maybe:
                    maybe.update(v.id for v in outs)
        changed = len(maybe) != n
    return maybe


def _flows(op: Op) -> list[tuple[set[int], list[Value]]]:
    """For a control-flow op: (values, values each of them may flow into) pairs."""
    if op.name == "if":
        return [({y.operands[i].id for r in op.regions for y in r.ops[-1:]
                  if y.name == "yield" and i < len(y.operands)}, [res])
                for i, res in enumerate(op.results)]
    if op.name == "for":
        inits, body = op.operands[1:], op.regions[0]
        return _carried(inits, [body.args[1:]], body, op.results)
    if op.name == "while":
        cond, body = op.regions
        return _carried(op.operands, [cond.args, body.args], body, op.results)
    return []


def _carried(inits: list[Value], arg_lists: list[list[Value]], body: Region,
             results: list[Value]) -> list[tuple[set[int], list[Value]]]:
    out = []
    last = body.ops[-1] if body.ops else None
    yields = last.operands if last is not None and last.name == "yield" else []
    for i, init in enumerate(inits):
        ins = {init.id} | ({yields[i].id} if i < len(yields) else set())
        outs = [args[i] for args in arg_lists if i < len(args)]
        outs += [results[i]] if i < len(results) else []
        out.append((ins, outs))
    return out


def _insert_checks(fn: Function, region: Region, maybe: set[int]) -> None:
    new_ops: list[Op] = []
    for op in region.ops:
        for r in op.regions:
            _insert_checks(fn, r, maybe)
        if op.name not in _PASS_ON and not (op.name == "call"
                                            and op.attrs.get("fn") in _TAKE_UNDEF):
            reads = op.operands if op.name not in ("for", "while", "if") else (
                op.operands[:1] if op.name != "while" else [])
            for k, v in enumerate(op.operands):
                if v.id in maybe and any(v is r for r in reads):
                    op.operands[k] = _check(fn, new_ops, v, op)
        new_ops.append(op)
    region.ops[:] = new_ops


def _check(fn: Function, ops: list[Op], v: Value, at: Op) -> Value:
    """Emit `Core.check_defined(v, name)` into ops; its result is v's checked value."""
    name = v.hint or "variable"
    c = fn.new_value()
    ops.append(Op("const", [], [c], {"value": name}, span=at.span))
    out = fn.new_value(v.hint)
    ops.append(Op("call", [v, c], [out], {"fn": "Core.check_defined", "kw": (),
                                          "splat": ()}, span=at.span))
    return out
