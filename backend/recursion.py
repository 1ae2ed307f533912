"""Recursion whose depth depends on the data, compiled as a loop over an explicit stack.

Tracing inlines calls, so a recursive function whose recursive call sits under a traced
condition (`if lo < j; qsort!(a, lo, j); end` with `j` computed from the data) would be
inlined forever. Such a function is lowered instead as a state machine (`run_machine`):

- `flatten` cuts the function's structured IR into blocks at each recursive call and at
  every `if`/`while`/`for` that contains one (regions without a recursive call stay
  whole and are traced as usual inside their block; a `for` becomes a counted loop over
  `it[k]`). A block ends in a `Goto`, a `Branch`, a `Call` (the recursive call) or a
  `Return`. A jump to a small block takes a copy of it, and a branch to an empty block
  that calls or returns does so in the same step (each step of the loop costs ~2 µs of
  XLA:CPU control, whatever the block does).
- The values that cross blocks are registers, carried by one `lax.while_loop` whose body
  is a `lax.switch` over the blocks. A `Call` pushes the registers live where it resumes
  (the caller's frame) and the block to resume at onto fixed-capacity stacks, sets the
  parameters and jumps to the entry; a `Return` pops them, and the resumed block reads
  the returned value.
  A full stack stops the loop and raises the overflow flag, so the caller recompiles
  with a larger capacity (as a loop tape does).
- An array parameter that the recursion passes on as itself (`qsort!(a, lo, j)` inside
  `qsort!(a, lo, hi)`: every version of `a`, in the functional IR's sense, see
  `param_versions`) is one shared cell, never saved in frames: a callee's writes are seen
  by its caller, as Julia's aliasing says. The outermost call's array argument gets the
  cell's final value as a write.

Register types are found by probing each block (`jax.eval_shape`) until they stop
changing. A shape `flatten` does not take (a recursive call with keywords or splats, in
a differentiated loop) raises NotFlat; what the run refuses (a call of another method, an
array passed on that is not the parameter itself, mutual recursion) raises
OffloadError. Either way the caller (JaxInterpreter.run_method_fn) inlines the recursion
for a few levels instead, and failing that the call runs on the host.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lang.core.functions import GenericFunction, typeof
from lang.core.ir import Function, Op, Region, Value, walk_ops
from lang.core.primitives import Primitive
from lang.core.primitives_array import MUTATING
from lang.core.structure import (
    OffloadError,
    coerce,
    is_array_value,
    join,
    split,
    unify,
    zeros_for,
)

DONE = -1  # the state after the outermost return
GOTO, PUSH, POP = 0, 1, 2


@dataclass
class Goto:
    target: int
    args: list[int]


@dataclass
class Branch:
    cond: int
    then: Goto
    else_: Goto


@dataclass
class Call:
    op: Op
    cont: int


@dataclass
class Return:
    value: int


@dataclass(eq=False)
class Block:
    index: int
    params: list[int]
    ops: list[Op] = field(default_factory=list)
    term: Goto | Branch | Call | Return | None = None
    result_of: int | None = None  # a block resumed after a call: that call's result


@dataclass(eq=False)
class Machine:
    """A function cut into blocks (block 0 is the entry, its params the function's)."""

    fn: Function
    blocks: list[Block]
    static: dict[int, Any]  # constants, available in every block
    registers: list[int]  # values that cross blocks, in a fixed order
    uses: list[set[int]]  # per block: the registers it reads that it does not set
    versions: dict[int, int]  # value id -> the parameter it is a version of
    written: list[bool]  # per parameter: may the function write into it (if an array)
    frame: set[int]  # the registers a call saves and its return restores


class NotFlat(OffloadError):
    """The function's shape is outside what `flatten` cuts into blocks (the caller may
    still inline it, as before: its recursion may end while tracing)."""


def self_calls(fn: Function, rt: Any) -> bool:
    """Does fn's body call fn itself (by the name of a generic function with fn as a
    method)?"""
    return any(_is_self_call(op, fn, rt) for op in walk_ops(fn.body))


def _is_self_call(op: Op, fn: Function, rt: Any) -> bool:
    if op.name != "call":
        return False
    g = _lookup(rt, op.attrs["fn"])
    return isinstance(g, GenericFunction) and any(m.fn is fn for m in g.methods)


def _may_write_into(op: Op, aliased: Any, fn: Function, rt: Any) -> bool:
    """Might op write into an array whose value ids `aliased` accepts: a MUTATING
    primitive writing it, or the array handed to a function value, a closure, or a
    function other than a primitive and fn itself (whose writes are the recursion's)?"""
    if op.name not in ("call", "callv", "closure") or not any(aliased(v.id)
                                                              for v in op.operands):
        return False
    if op.name != "call":
        return True
    if op.attrs["fn"] in MUTATING:
        return aliased(op.operands[0].id)
    if _is_self_call(op, fn, rt):
        return False
    return not isinstance(_lookup(rt, op.attrs["fn"]), Primitive)


# --- cutting the IR into blocks -------------------------------------------------------------


class _Flattener:
    def __init__(self, fn: Function, rt: Any) -> None:
        self.fn, self.rt = fn, rt
        self.blocks: list[Block] = []
        self.static: dict[int, Any] = {}
        self._contains: dict[int, bool] = {}
        self.added = 0

    def new_block(self, params: list[int]) -> Block:
        b = Block(len(self.blocks), params)
        self.blocks.append(b)
        return b

    def is_self(self, op: Op) -> bool:
        return _is_self_call(op, self.fn, self.rt)

    def contains(self, op: Op) -> bool:
        k = id(op)
        if k not in self._contains:
            self._contains[k] = any(self.is_self(o) for r in op.regions for o in walk_ops(r))
        return self._contains[k]

    def region(self, region: Region, cur: Block, finish: Any) -> None:
        for op in region.ops:
            if op.name in ("yield", "return"):
                finish(cur, [v.id for v in op.operands])
                return
            if op.name == "const":
                self.static[op.results[0].id] = op.attrs["value"]
            elif op.name == "call" and self.is_self(op):
                if op.attrs.get("kw") or op.attrs.get("splat"):
                    raise NotFlat("a recursive call with keyword or splatted arguments "
                                       "does not compile")
                cont = self.new_block([])
                cont.result_of = op.results[0].id
                cur.term = Call(op, cont.index)
                cur = cont
            elif not op.regions or not self.contains(op):
                cur.ops.append(op)
            elif op.name == "if":
                cur = self._if(op, cur)
            elif op.name == "while" and not op.attrs.get("tape"):
                cur = self._while(op, cur)
            elif op.name == "for" and not op.attrs.get("tape"):
                cur = self._for(op, cur)
            else:
                raise NotFlat(f"a recursive call inside `{op.name}` does not compile "
                              "(only inside `if`, `while` and `for`)")
        raise OffloadError("internal: a region without terminator")

    def _if(self, op: Op, cur: Block) -> Block:
        join_ = self.new_block([r.id for r in op.results])
        t, e = self.new_block([]), self.new_block([])
        cur.term = Branch(op.operands[0].id, Goto(t.index, []), Goto(e.index, []))

        def finish(b: Block, vals: list[int]) -> None:
            b.term = Goto(join_.index, vals)

        self.region(op.regions[0], t, finish)
        self.region(op.regions[1], e, finish)
        return join_

    def fresh(self) -> Value:
        """A value for an op the flattening adds (ids past the function's own)."""
        self.added += 1
        return Value(self.fn.counter + self.added)

    def const(self, v: Any) -> Value:
        x = self.fresh()
        self.static[x.id] = v
        return x

    def call(self, block: Block, name: str, args: list[Value], op: Op,
             result: Value | None = None) -> Value:
        out = result if result is not None else self.fresh()
        block.ops.append(Op("call", args, [out], {"fn": name}, span=op.span))
        return out

    def _for(self, op: Op, cur: Block) -> Block:
        """`for x in it` as a counted loop: k from 0 while k < length(it), x = it[k + 1]
        (a range, an array or a tuple; `break` and `return` leave flags that make the
        remaining iterations do nothing, so running them all is the same)."""
        it, inits = op.operands[0], op.operands[1:]
        body_r = op.regions[0]
        n = self.call(cur, "length", [it], op)
        k0 = self.const(0)
        head_k, body_k = self.fresh(), self.fresh()
        head = self.new_block([head_k.id] + [self.fresh().id for _ in inits])
        body = self.new_block([body_k.id] + [a.id for a in body_r.args[1:]])
        exit_ = self.new_block([r.id for r in op.results])
        cur.term = Goto(head.index, [k0.id] + [v.id for v in inits])
        more = self.call(head, "<", [head_k, n], op)
        head.term = Branch(more.id, Goto(body.index, list(head.params)),
                           Goto(exit_.index, head.params[1:]))
        k1 = self.call(body, "+", [body_k, self.const(1)], op)
        self.call(body, "getindex", [it, k1], op, result=body_r.args[0])

        def finish(b: Block, vals: list[int]) -> None:
            b.term = Goto(head.index, [k1.id] + vals)

        self.region(body_r, body, finish)
        return exit_

    def _while(self, op: Op, cur: Block) -> Block:
        cond_r, body_r = op.regions
        head = self.new_block([a.id for a in cond_r.args])
        body = self.new_block([a.id for a in body_r.args])
        exit_ = self.new_block([r.id for r in op.results])
        cur.term = Goto(head.index, [v.id for v in op.operands])
        hp = list(head.params)

        def finish_cond(b: Block, vals: list[int]) -> None:
            b.term = Branch(vals[0], Goto(body.index, hp), Goto(exit_.index, hp))

        def finish_body(b: Block, vals: list[int]) -> None:
            b.term = Goto(head.index, vals)

        self.region(cond_r, head, finish_cond)
        self.region(body_r, body, finish_body)
        return exit_


def flatten(fn: Function, rt: Any) -> Machine:
    """fn's body as blocks, with its registers (see the module docstring)."""
    fl = _Flattener(fn, rt)
    entry = fl.new_block([a.id for a in fn.body.args])

    def finish(b: Block, vals: list[int]) -> None:
        b.term = Return(vals[0])

    fl.region(fn.body, entry, finish)
    blocks = _reachable(_merge_small_targets(fl.blocks))
    defs: list[set[int]] = []
    op_uses: list[set[int]] = []
    for b in blocks:
        d = set(b.params)
        if b.result_of is not None:
            d.add(b.result_of)
        u: set[int] = set()
        for op in b.ops:
            d.update(r.id for r in op.results)
            for o in [op, *(x for r in op.regions for x in walk_ops(r))]:
                u.update(v.id for v in o.operands)
        t = b.term
        if isinstance(t, Branch):
            u.add(t.cond)
        elif isinstance(t, Call):
            u.update(v.id for v in t.op.operands)
        elif isinstance(t, Return):
            u.add(t.value)
        defs.append(d)
        op_uses.append(u)
    # a parameter is live if read, or passed on to a live parameter
    live = set().union(*op_uses)
    changed = True
    while changed:
        changed = False
        for b in blocks:
            for g in _gotos(b.term):
                for p, a in zip(blocks[g.target].params, g.args, strict=True):
                    if p in live and a not in live:
                        live.add(a)
                        changed = True
    uses = []
    for i, b in enumerate(blocks):
        u = set(op_uses[i])
        for g in _gotos(b.term):
            u.update(a for p, a in zip(blocks[g.target].params, g.args, strict=True) if p in live)
        uses.append(u)
    regs: set[int] = set()
    for i, b in enumerate(blocks):
        regs.update(p for p in b.params if p in live)
        for v in defs[i]:
            if any(v in uses[j] for j in range(len(blocks)) if j != i):
                regs.add(v)
    regs -= set(fl.static)
    made = []
    for i, b in enumerate(blocks):  # what each block reads from before it
        made.append(defs[i] - set(b.params))
        uses[i] = (uses[i] & regs) - made[i]
    for b in blocks:  # a branch may do a call or return of an empty target (_Run._branch)
        for g in _gotos(b.term) if isinstance(b.term, Branch) else []:
            tb = blocks[g.target]
            if not tb.ops and isinstance(tb.term, (Call, Return)):
                uses[b.index] |= uses[g.target] - set(tb.params) - made[b.index]
    versions = param_versions(fn, fl)
    written = [any(_may_write_into(op, lambda v, i=i: versions.get(v) == i, fn, rt)
                   for op in walk_ops(fn.body)) for i in range(len(fn.body.args))]
    return Machine(fn, blocks, fl.static, sorted(regs), uses, versions, written,
                   _frame_registers(blocks, uses, made))


def _frame_registers(blocks: list[Block], uses: list[set[int]], made: list[set[int]]) -> set:
    """The registers a frame must keep: those live where a call resumes (any path from
    there reads them before setting them). The others the callee may overwrite."""
    live: list[set[int]] = [set(u) for u in uses]
    changed = True
    while changed:
        changed = False
        for i, b in enumerate(blocks):
            out: set[int] = set()
            for g in _gotos(b.term):
                t = blocks[g.target]
                out |= live[g.target] - set(t.params)
                out |= {a for p, a in zip(t.params, g.args, strict=True) if p in live[g.target]}
            if isinstance(b.term, Call):
                out |= live[b.term.cont] - {blocks[b.term.cont].result_of}
            new = live[i] | (out - made[i])
            if new != live[i]:
                live[i] = new
                changed = True
    keep: set[int] = set()
    for b in blocks:
        if isinstance(b.term, Call):
            keep |= live[b.term.cont] - {blocks[b.term.cont].result_of}
    return keep


def _merge_small_targets(blocks: list[Block]) -> list[Block]:
    """Each loop iteration runs one block, and a step costs more than a few scalar ops:
    a block that jumps to a small block (a loop's condition, the join after an `if`)
    takes a copy of it (a `move` of the jump's arguments into its parameters, then its
    ops and its terminator)."""
    for b in blocks:
        for _ in range(8):
            t = b.term
            if not isinstance(t, Goto) or t.target == b.index:
                break
            target = blocks[t.target]
            if (target.result_of is not None or len(target.ops) > 8
                    or any(op.regions for op in target.ops)):
                break
            move = Op("move", [Value(a) for a in t.args], [Value(p) for p in target.params])
            b.ops = b.ops + [move] + target.ops
            b.term = _copy_term(target.term)
    return blocks


def _copy_term(t: Any) -> Any:
    if isinstance(t, Goto):
        return Goto(t.target, list(t.args))
    if isinstance(t, Branch):
        return Branch(t.cond, _copy_term(t.then), _copy_term(t.else_))
    if isinstance(t, Call):
        return Call(t.op, t.cont)
    return Return(t.value)


def _reachable(blocks: list[Block]) -> list[Block]:
    """The blocks a run can reach from the entry (merging leaves some unreached),
    renumbered in order."""
    seen = [0]
    for i in seen:
        t = blocks[i].term
        nxt = [g.target for g in _gotos(t)]
        if isinstance(t, Call):
            nxt += [0, t.cont]
        seen += [j for j in nxt if j not in seen]
    keep = sorted(seen)
    new = {old: k for k, old in enumerate(keep)}
    out = []
    for old in keep:
        b = blocks[old]
        b.index = new[old]
        for g in _gotos(b.term):
            g.target = new[g.target]
        if isinstance(b.term, Call):
            b.term.cont = new[b.term.cont]
        out.append(b)
    return out


def _gotos(t: Any) -> list[Goto]:
    if isinstance(t, Goto):
        return [t]
    if isinstance(t, Branch):
        return [t.then, t.else_]
    return []


def param_versions(fn: Function, fl: _Flattener) -> dict[int, int]:
    """Which values are versions of which parameter: the parameter itself, a write into
    a version (`Core.setindex_fn` and the other MUTATING primitives return the written
    array), a loop variable that starts and stays a version, an `if`'s result that every
    branch gives as a version, a recursive call's result when the function returns one.
    Loops are assumed to keep versions and corrected until nothing changes."""
    denied: set[tuple[int, int]] = set()  # (loop var id, param) found not to hold
    ret = fn.body.ops[-1].operands[0].id
    returns: int | None = None
    while True:
        ver = {a.id: i for i, a in enumerate(fn.body.args)}
        bad: set[tuple[int, int]] = set()
        _versions_in(fn.body, ver, denied, bad, fl, returns)
        found = ver.get(ret)
        if not bad and found == returns:
            return ver
        denied |= bad
        returns = found if not bad else returns


def _versions_in(region: Region, ver: dict[int, int], denied: set, bad: set,
                 fl: _Flattener, returns: int | None) -> None:
    for op in region.ops:
        n = op.name
        if n == "call":
            if op.attrs["fn"] in MUTATING and op.operands and op.operands[0].id in ver:
                ver[op.results[0].id] = ver[op.operands[0].id]
            elif returns is not None and fl.is_self(op):
                ver[op.results[0].id] = returns
        elif n == "if":
            for r in op.regions:
                _versions_in(r, ver, denied, bad, fl, returns)
            for j, res in enumerate(op.results):
                ps = {ver.get(r.ops[-1].operands[j].id) for r in op.regions}
                if len(ps) == 1 and None not in ps:
                    ver[res.id] = ps.pop()
        elif n in ("while", "for"):
            inits = op.operands if n == "while" else op.operands[1:]
            body = op.regions[-1]
            skip = 0 if n == "while" else 1
            for j, v in enumerate(inits):
                p = ver.get(v.id)
                if p is None or (op.results[j].id, p) in denied:
                    continue
                for r in op.regions:
                    ver[r.args[j + (skip if r is body else 0)].id] = p
                ver[op.results[j].id] = p
            for r in op.regions:
                _versions_in(r, ver, denied, bad, fl, returns)
            for j in range(len(inits)):
                p = ver.get(op.results[j].id)
                if p is not None and ver.get(body.ops[-1].operands[j].id) != p:
                    bad.add((op.results[j].id, p))
        else:
            for r in op.regions:
                _versions_in(r, ver, denied, bad, fl, returns)


# --- running the blocks inside XLA ----------------------------------------------------------


@dataclass
class _Step:
    """What one block did: register values it set, the cells' new values, the next
    state and the stack action, a recursive call's arguments, a return's value."""

    assign: dict[int, Any]
    cells: dict[int, Any]
    next: Any
    action: int
    args: dict[int, Any] = field(default_factory=dict)
    ret: Any = None
    returns: bool = False  # (maybe, under a traced condition) a return: `ret` is set
    term: Any = None  # the call or return a branch folded in (see _branch)


class _Run:
    """One lowering of a Machine for the arguments of its outermost call."""

    def __init__(self, interp: Any, m: Machine, args: list) -> None:
        self.interp, self.m = interp, m
        fn = m.fn
        self.params = [a.id for a in fn.body.args]
        # threaded arrays: array parameters, shared by every frame (one cell each)
        self.cell_params = [i for i, a in enumerate(args) if is_array_value(a)]
        cells = set(self.cell_params)
        self.alias = {v: p for v, p in m.versions.items() if p in cells}
        ret = fn.body.ops[-1].operands[0].id
        self.ret_cell = self.alias.get(ret)
        self.carried = [r for r in m.registers if r not in self.alias]
        self.carried_set = set(self.carried)
        self.call_params = [p for i, p in enumerate(self.params) if i not in cells]
        self.args = args
        self.skels: dict[int, Any] = {}
        for i, (p, a) in enumerate(zip(self.params, args, strict=True)):
            if i not in cells:
                self.skels[p] = split(a)[1]
        self.cell_skels = [split(args[i])[1] for i in self.cell_params]
        self.r_skel: Any = None if self.ret_cell is None else ("const", None)
        newest = getattr(interp, "current", None)
        self.newest = newest if newest is not None else (lambda x: x)

    # one block, traced
    def block(self, b: Block, regs: dict[int, Any], cells: list, r_val: Any) -> _Step:
        interp, m = self.interp, self.m
        interp.born_here([*regs.values(), *cells, r_val])
        env = dict(m.static)
        env.update(regs)
        for v, p in self.alias.items():
            env[v] = cells[self.cell_params.index(p)]
        if b.result_of is not None and b.result_of not in self.alias:
            env[b.result_of] = r_val
        seg: list[Op] = []
        for op in [*b.ops, None]:
            if op is not None and op.name != "move":
                seg.append(op)
                continue
            if seg:
                interp.run_region(Region([], seg + [Op("yield", [])]), env, m.fn)
                seg = []
            if op is not None:  # a merged jump: its arguments into the target's params
                vals = [env[v.id] for v in op.operands]
                env.update((r.id, x) for r, x in zip(op.results, vals, strict=True))
        cells_out = {p: self._cell_out(b, env, p) for p in self.cell_params}
        assign: dict[int, Any] = {}
        defined = [r.id for op in b.ops for r in op.results]
        if b.result_of is not None:
            defined.append(b.result_of)
        for v in defined:
            if v in self.carried_set:
                assign[v] = env[v]
        t = b.term
        if isinstance(t, Goto):
            self._goto(t, env, assign)
            step = _Step(assign, cells_out, t.target, GOTO)
        elif isinstance(t, Branch):
            step = self._branch(t, env, assign, cells_out)
        else:
            step = self._terminal(t, env, assign, cells_out)
        for x in step.assign.values():
            if is_array_value(x) and any(self.newest(x) is c for c in cells_out.values()):
                raise OffloadError("an array that is a recursive function's array argument "
                                   "is kept under another name across blocks: this does not "
                                   "compile")
        return step

    def _terminal(self, t: Call | Return, env: dict, assign: dict, cells: dict) -> _Step:
        if isinstance(t, Call):
            # `next` of a call is where the caller resumes (pushed; the loop goes to block 0)
            return _Step(assign, cells, t.cont, PUSH, args=self._call_args(t, env))
        return _Step(assign, cells, DONE, POP, returns=True,
                     ret=None if self.ret_cell is not None else env[t.value])

    def _branch(self, t: Branch, env: dict, assign: dict, cells: dict) -> _Step:
        """A two-way jump. A side that goes to an empty block ending in a call or a return
        does that call or return in this step (one step less per call and per return)."""
        sides: list[_Step] = []
        for g in (t.then, t.else_):
            self._goto(g, env, assign)
            tb = self.m.blocks[g.target]
            done = [s for s in sides if s.action != GOTO]
            if (not tb.ops and tb.result_of is None and isinstance(tb.term, (Call, Return))
                    and not any(type(tb.term) is type(d.term) for d in done)):
                env_t = dict(env)
                env_t.update(zip(tb.params, [env[a] for a in g.args], strict=True))
                st = self._terminal(tb.term, env_t, assign, cells)
                st.term = tb.term
                sides.append(st)
            else:
                sides.append(_Step(assign, cells, g.target, GOTO))
        c = env[t.cond]
        if isinstance(c, (bool, np.bool_)):
            return sides[0] if c else sides[1]
        a, b = sides
        where = self.interp.jnp.where
        action = a.action if a.action == b.action else where(c, a.action, b.action)
        ret = a if a.returns else b
        return _Step(assign, cells, where(c, a.next, b.next), action,
                     args=a.args or b.args, ret=ret.ret, returns=a.returns or b.returns)

    def _writes_cells(self, b: Block) -> bool:
        """May block b change a cell: an op of it makes a version of one (a write, or a
        loop or `if` that carries one), or hands one to code that may write into it (a
        function that is not a primitive, a function value, a closure)?"""
        if not self.cell_params:
            return False
        aliased = self.alias.__contains__
        for top in b.ops:
            if top.name == "move":
                continue
            if any(aliased(r.id) for r in top.results):
                return True
            if any(_may_write_into(op, aliased, self.m.fn, self.interp.rt)
                   for op in [top, *(x for r in top.regions for x in walk_ops(r))]):
                return True
        return False

    def _cell_out(self, b: Block, env: dict, p: int) -> Any:
        """The newest value of cell p after block b: its last version the block made
        (the functional IR threads writes through versions), with the writes callees
        made into it (the in-place interpreter's `current`)."""
        x = env[self.params[p]]
        for op in b.ops:
            for r in op.results:
                if self.alias.get(r.id) == p:
                    x = env[r.id]
        return self.newest(x)

    def _goto(self, g: Goto, env: dict, assign: dict) -> None:
        for p, a in zip(self.m.blocks[g.target].params, g.args, strict=True):
            if p in self.carried_set:
                assign[p] = env[a]

    def _call_args(self, t: Call, env: dict) -> dict[int, Any]:
        op, fn = t.op, self.m.fn
        vals = [env[v.id] for v in op.operands]
        g = self.interp.rt.lookup(op.attrs["fn"])
        if g.dispatch([typeof(a) for a in vals]).fn is not fn:
            raise OffloadError(f"`{fn.name}` calls another of its methods recursively: this "
                               "does not compile")
        if len(vals) != len(self.params):
            raise OffloadError(f"a recursive call of `{fn.name}` leaves out optional "
                               "arguments: this does not compile")
        out = {}
        for i, (p, v, x) in enumerate(zip(self.params, op.operands, vals, strict=True)):
            if i in self.cell_params:
                if self.m.versions.get(v.id) != i:
                    raise OffloadError(f"a recursive call of `{fn.name}` passes a different "
                                       f"array as argument {i + 1}: only the array itself "
                                       "(written in place) compiles")
            else:
                out[p] = x
        return out

    # register types
    def infer(self) -> None:
        """Each register's skeleton: the blocks probed until no skeleton changes."""
        interp, m = self.interp, self.m
        for _ in range(12):
            changed = False
            for b in m.blocks:
                need = [r for r in sorted(m.uses[b.index]) if r in self.carried]
                if any(r not in self.skels for r in need):
                    continue
                if b.result_of is not None and self.r_skel is None:
                    continue
                box: list = []
                leaves = self._zeros([self.skels[r] for r in need])
                r_leaves = self._zeros([self.r_skel]) if self.r_skel is not None else []
                c_leaves = self._zeros(self.cell_skels)

                def probe(lv: list, rl: list, cl: list, b: Block = b, need: list = need,
                          box: list = box) -> list:
                    regs = dict(zip(need, join(("tuple", tuple(self.skels[r] for r in need)),
                                               lv), strict=True))
                    r_val = join(self.r_skel, rl) if self.r_skel is not None else None
                    cells = list(join(("tuple", tuple(self.cell_skels)), cl))
                    st = self.block(b, regs, cells, r_val)
                    sk = {v: split(x)[1] for v, x in st.assign.items()}
                    sk.update({v: split(x)[1] for v, x in st.args.items()})
                    if st.returns and self.ret_cell is None:
                        sk["ret"] = split(st.ret)[1]
                    box.append(sk)
                    return []

                interp.probe_shape(probe, leaves, r_leaves, c_leaves)
                for v, s in box[0].items():
                    old = self.r_skel if v == "ret" else self.skels.get(v)
                    new = s if old is None else unify(old, s)
                    if new != old:
                        changed = True
                        if v == "ret":
                            self.r_skel = new
                        else:
                            self.skels[v] = new
            if not changed:
                break
        else:
            raise OffloadError("a recursive function's variables keep changing type")
        if self.r_skel is None:
            raise OffloadError(f"`{self.m.fn.name}` never returns without recursing")
        missing = [r for r in self.carried if r not in self.skels]
        for r in missing:  # never set before a read on any path: an undefined value
            self.skels[r] = ("const", None)

    def _zeros(self, skels: list) -> list:
        out: list = []
        for s in skels:
            zeros_for(s, out, self.interp.jnp)
        return out

    # the loop
    def run(self) -> Any:
        interp = self.interp
        jnp, lax = interp.jnp, interp.lax
        self.infer()
        reg_skel = ("tuple", tuple(self.skels[r] for r in self.carried))
        arg_skel = ("tuple", tuple(self.skels[p] for p in self.call_params))
        cell_skel = ("tuple", tuple(self.cell_skels))
        r_skel = self.r_skel
        init = {p: a for p, a in zip(self.params, self.args, strict=True)}
        reg0 = coerce(tuple(init.get(r) for r in self.carried), reg_skel)
        cell0 = coerce(tuple(self.args[i] for i in self.cell_params), cell_skel)
        r0 = coerce(None, r_skel)
        # where each parameter's leaves sit among the registers' leaves
        offsets, k = {}, 0
        for r in self.carried:
            n = len(self._zeros([self.skels[r]]))
            offsets[r] = (k, n)
            k += n
        param_slots = [i for p in self.call_params if p in offsets
                       for i in range(offsets[p][0], offsets[p][0] + offsets[p][1])]
        saved = [i for r in self.carried if r in self.m.frame
                 for i in range(offsets[r][0], offsets[r][0] + offsets[r][1])]
        cap = interp.tape_capacity
        stacks = [jnp.zeros((cap,) + tuple(np.shape(reg0[i])), dtype=_dtype(reg0[i]))
                  for i in saved]
        ret_stack = jnp.zeros((cap,), dtype=np.int32)
        serial = interp.rng_serial()

        def run_block(b: Block, regs_lv: list, r_lv: list, cell_lv: list) -> list:
            """[registers, call arguments, return value, cells, next, action, flag]."""
            def go() -> list:
                regs = dict(zip(self.carried, join(reg_skel, regs_lv), strict=True))
                r_val = join(r_skel, r_lv)
                cells = list(join(cell_skel, cell_lv))
                st = self.block(b, regs, cells, r_val)
                regs.update(st.assign)
                out = coerce(tuple(regs[r] for r in self.carried), reg_skel)
                args = coerce(tuple(st.args.get(p) for p in self.call_params), arg_skel)
                ret = coerce(st.ret if st.returns else r_val, r_skel)
                cl = coerce(tuple(st.cells[p] for p in self.cell_params), cell_skel)
                return [out, args, ret, cl, jnp.asarray(st.next, dtype=np.int32),
                        jnp.asarray(st.action, dtype=np.int32)]
            res, flag = interp.isolated(go)
            return res + [flag]

        # A block that writes an array cell runs in a while loop of 0 or 1 trips, which
        # updates the cell in place; passed through a switch branch, the cell would be
        # copied at every step (XLA copies a conditional's pass-through operands).
        writers = {b.index for b in self.m.blocks if self._writes_cells(b)}

        def branch(b: Block) -> Any:
            def run(regs_lv: list, r_lv: list, cell_lv: list, pre: list) -> list:
                if b.index in writers:
                    return pre  # it ran before the switch
                out = run_block(b, regs_lv, r_lv, cell_lv)
                return out[:3] + out[4:]
            return run

        branches = [branch(b) for b in self.m.blocks]

        def run_writers(st: Any, regs_lv: list, r_lv: list, cell_lv: list) -> tuple:
            pre = [regs_lv, coerce(None, arg_skel), r_lv, st, jnp.asarray(GOTO, np.int32),
                   interp.no_flag()]
            for w in sorted(writers):
                def once(s: tuple, w: int = w) -> tuple:
                    out = run_block(self.m.blocks[w], regs_lv, r_lv, s[1])
                    return (jnp.asarray(False), out[3], out[:3] + out[4:])

                _, cell_lv, pre = lax.while_loop(lambda s: s[0], once,
                                                 (st == w, cell_lv, pre))
            return cell_lv, pre

        def body(state: tuple) -> tuple:
            st, sp, k, regs_lv, r_lv, cell_lv, stk, rets, over = state
            with interp.iteration(serial, k):
                cl, pre = run_writers(st, regs_lv, r_lv, cell_lv) if writers else (cell_lv, [])
                out, args, ret, nxt, action, flag = lax.switch(
                    st, branches, regs_lv, r_lv, cl, pre)
            # the stacks are touched only by a call (push) or a return (pop)
            def on_goto(o: tuple) -> tuple:
                return o

            def on_push(o: tuple) -> tuple:
                stk, rets, regs, sp, nxt, over = o
                slot = jnp.minimum(sp, cap - 1)  # the caller's registers, where to resume
                stk = [lax.dynamic_update_index_in_dim(s, regs[i], slot, 0)
                       for s, i in zip(stk, saved, strict=True)]
                rets = lax.dynamic_update_index_in_dim(rets, nxt, slot, 0)
                regs = list(regs)
                for i, a in zip(param_slots, args, strict=True):
                    regs[i] = a
                full = sp >= cap
                return (stk, rets, regs, sp + 1, jnp.where(full, DONE, 0).astype(np.int32),
                        interp.flag_or(over, full))

            def on_pop(o: tuple) -> tuple:
                stk, rets, regs, sp, nxt, over = o
                top = jnp.maximum(sp - 1, 0)  # the caller's registers back
                restore = sp > 0
                regs = list(regs)
                for s, i in zip(stk, saved, strict=True):
                    regs[i] = jnp.where(restore, lax.dynamic_index_in_dim(s, top, 0,
                                                                          keepdims=False),
                                        regs[i])
                nxt = jnp.where(restore, rets[top], nxt)
                return stk, rets, regs, jnp.where(restore, sp - 1, sp), nxt, over

            stk, rets, new, sp, nxt, over = lax.switch(
                action, [on_goto, on_push, on_pop], (stk, rets, list(out), sp, nxt, over))
            over = interp.flag_or(over, flag)
            return (nxt, sp, k + 1, new, ret, cl, stk, rets, over)

        state0 = (jnp.asarray(0, dtype=np.int32), jnp.asarray(0, dtype=np.int32),
                  jnp.asarray(0, dtype=np.int64), reg0, r0, cell0, stacks, ret_stack,
                  interp.no_flag())
        interp.unbounded_loops = True
        final = lax.while_loop(lambda s: s[0] != DONE, body, state0)
        interp.raise_flag(final[-1])  # the stack may overflow
        cells = list(join(cell_skel, final[5]))
        for i, new in zip(self.cell_params, cells, strict=True):
            if self.m.written[i]:
                interp.recursion_wrote(self.args[i], new)
        if self.ret_cell is not None:
            return cells[self.cell_params.index(self.ret_cell)]
        return join(r_skel, final[4])


def run_machine(interp: Any, m: Machine, args: list) -> Any:
    """m.fn(args...) (bound parameter values) lowered as a loop over an explicit stack."""
    return _Run(interp, m, args).run()


def _lookup(rt: Any, name: str) -> Any:
    try:
        return rt.lookup(name)
    except Exception:  # noqa: BLE001 - an unknown name may be anything
        return None


def _dtype(x: Any) -> Any:
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
