"""Early exits a compiled loop can test before it runs an iteration.

A `for` loop with `break`/`return` compiles to a while loop that stops when the body has set
a stop flag (`#brk`, `#ret`). Carrying those flags, and the values the exit assigns (the
returned value), costs a select per carried value per iteration once the loop is
vectorised, and the iteration that exits still runs the body's test inside a branch.
When the exit conditions are cheap scalar expressions of the loop's state (Julia's
`mandel`: `if abs2(z) > 4 return n - 1 end`), the loop is better compiled the way one
writes it in JAX: the while loop's condition evaluates the exit tests itself, the body is
traced assuming no exit happens (the branch that sets a flag is never taken), and the
exiting iteration runs once more after the loop to produce the exit's values.

`leading_exits(body)` finds, from the IR alone, whether a loop body qualifies: every `if`
that sets a stop flag in one branch only (outside nested loops), and whose condition (and
the conditions of the `if`s around it) depends only on constants, values from outside the
loop, the loop's variables and a few cheap operations. Whether those variables are scalars
is checked when tracing (`JaxInterpreter.op_for`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lang.core.interp import STOP_FLAGS
from lang.core.ir import Op, Region

# operations an exit test may use (on scalars, checked when tracing)
CHEAP_CALLS = {"+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", "!", "abs", "abs2", "%",
               "÷", "rem", "mod", "min", "max", "Core.neg", "Core.or", "Core.and", "isnan",
               "isfinite", "Core.indexed_iterate", "tuple", "^", "sqrt", "&", "|", "xor"}
MAX_TEST_OPS = 32


@dataclass
class LeadingExits:
    """The result of `leading_exits`: for each `if` (by id) that sets a stop flag, the index
    of its branch that does not; and the positions of the body arguments the exit tests read
    (0 is the loop variable)."""

    taken_branch: dict[int, int]
    reads: set[int]


def leading_exits(body: Region) -> LeadingExits | None:
    """The loop body's exits if they can all be tested before the body runs, else None."""
    defs: dict[int, Op] = {}
    ifs: list[tuple[Op, list[Op]]] = []  # each `if` with the `if`s around it
    _collect(body, defs, ifs, [])
    args = {a.id: i for i, a in enumerate(body.args)}
    stop_args = {a.id for a in body.args if a.hint in STOP_FLAGS}
    taken: dict[int, int] = {}
    tests: list[Any] = []
    for op, around in ifs:
        setters = {b for b, r in enumerate(op.regions) if _sets_a_flag(op, r, defs)}
        if not setters:
            continue
        if len(setters) == len(op.regions):
            return None
        taken[id(op)] = next(b for b in range(len(op.regions)) if b not in setters)
        tests += [op.operands[0]] + [o.operands[0] for o in around]
    if not taken:
        return None
    reads: set[int] = set()
    seen: set[int] = set()
    count = 0
    while tests:
        v = tests.pop()
        if v.id in seen or v.id in stop_args:  # a stop flag is false while the loop runs
            continue
        seen.add(v.id)
        if v.id in args:
            reads.add(args[v.id])
            continue
        d = defs.get(v.id)
        if d is None:  # defined before the loop: an invariant
            continue
        if d.name == "const":
            continue
        if d.name != "call" or d.regions or d.attrs.get("fn") not in CHEAP_CALLS:
            return None
        count += 1
        if count > MAX_TEST_OPS:
            return None
        tests += d.operands
    return LeadingExits(taken, reads)


def _collect(region: Region, defs: dict[int, Op], ifs: list, around: list[Op]) -> None:
    """The defining op of every value of the body (not inside nested loops) and its `if`s."""
    for op in region.ops:
        for r in op.results:
            defs[r.id] = op
        if op.name == "if":
            ifs.append((op, list(around)))
            for r in op.regions:
                _collect(r, defs, ifs, around + [op])


def _sets_a_flag(op: Op, branch: Region, defs: dict[int, Op]) -> bool:
    """Whether the branch yields the constant `true` for one of the if's stop flags."""
    term = branch.terminator
    for pos, res in enumerate(op.results):
        if res.hint not in STOP_FLAGS or pos >= len(term.operands):
            continue
        d = defs.get(term.operands[pos].id)
        if d is not None and d.name == "const" and d.attrs.get("value") is True:
            return True
    return False
