"""Loops inside a compiled loop body that do the same work in every iteration.

In Julia's `pisum`, the inner loop `for k in 1:n; s += 1/(k*k); end` starts from a
constant and reads nothing the outer loop changes, so every outer iteration computes the
same value. XLA hoists loop-invariant code out of a while loop, but not a nested while
loop, so the compiled program would run the inner loop once per outer iteration. When
lowering a loop, `invariant_loops(body)` finds the loops at the top level of its body
that read only values from outside the body, constants, and results of such operations,
and whose own bodies only compute (a fixed set of pure operations, nested `if`s and
loops: no writes, no random draws, no calls of user functions, no globals). The lowering
traces them once before the outer loop and uses their results inside it; it also checks
that their inputs are numbers, numeric arrays or ranges. An array they read cannot change
between outer iterations without the analysis seeing it: a write into a local array
(`v[i] = x`) is lowered to a new value of `v` (so `v` becomes a variable of the outer loop
and the inner loop is not invariant), and a write through another path inside a compiled
loop (a called function's `v[1] += 1`, an argument's element) is refused by the compiler
(the call runs on the host).
"""

from __future__ import annotations

from lang.core.ir import Op, Region, defined_in, free_values

PURE_CALLS = {
    "+", "-", "*", "/", "^", "<", "<=", ">", ">=", "==", "!=", "!", "abs", "abs2", "sqrt",
    "exp", "log", "sin", "cos", "tan", "tanh", "min", "max", "%", "÷", "rem", "mod", "div",
    "Core.neg", "Core.or", "Core.and", ":", "Core.indexed_iterate", "tuple", "float", "one",
    "zero", "length", "size", "isnan", "isfinite", "sign", "floor", "ceil", "round", "muladd",
    "fma", "inv", "log1p", "expm1", "Core.endof", "xor", "&", "|", "getindex",
}
_PURE_OPS = {"const", "yield", "if", "for", "while"}
_LOOPS = ("for", "while")


def invariant_loops(body: Region) -> tuple[list[Op], list[Op]]:
    """The loop ops at the top level of `body` that are invariant (see the module
    docstring), and the invariant ops (in body order) whose results they need."""
    defined = defined_in(body)
    invariant: set[int] = set()  # ids of values that do not change between iterations
    inv_ops: list[Op] = []
    loops: list[Op] = []
    for op in body.ops:
        if not _pure(op):
            continue
        uses = [v.id for v in op.operands] + sorted(free_values(op))
        if all(u not in defined or u in invariant for u in uses):
            invariant.update(r.id for r in op.results)
            inv_ops.append(op)
            if op.name in _LOOPS:
                loops.append(op)
    if not loops:
        return [], []
    needed: set[int] = set()
    for op in loops:
        needed.update(v.id for v in op.operands)
        needed.update(free_values(op))
    prereq: list[Op] = []
    for op in reversed(inv_ops):
        if op.name in _LOOPS or any(r.id in needed for r in op.results):
            prereq.append(op)
            needed.update(v.id for v in op.operands)
            needed.update(free_values(op))
    return loops, list(reversed(prereq))


def _pure(op: Op) -> bool:
    if op.name == "call":
        return op.attrs.get("fn") in PURE_CALLS and not op.attrs.get("kw")
    if op.name not in _PURE_OPS:
        return False
    return all(_pure(o) for r in op.regions for o in r.ops)
