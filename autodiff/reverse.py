"""Source-to-source reverse mode on the structured IR (Zygote style).

`forward(F)` turns a primal function F into a forward function with the same parameters
that returns `(y, B)`: the primal result and a pullback closure B. `B(dy)` returns
`(d_self, d_args...)`: the cotangent of the callee (a closure's captures as a NamedTuple,
a callable struct's fields) and of each positional argument. Both are plain IR: they are
printed by `@code_adjoint`, interpreted on the host, lowered to XLA, and transformed again
for nested AD.

How each op transforms:

- `call` / `callv` become `pcall` / `pcallv`, which return `(y, b)`: the dispatcher in
  autodiff.runtime picks the callee (a primitive with its rule, a user `rrule`, or a
  method whose body is transformed recursively) at run time. The adjoint calls
  `Core.back(b, dy)` and accumulates the argument cotangents.
- Every nested region (an `if` branch, a loop body) is transformed like a function: in the
  forward pass it yields its outputs plus its own pullback closure, whose adjoint returns
  the cotangents of the region's arguments and of the outer values it uses ("free values").
  So an `if` yields the taken branch's pullback, and a loop records one pullback per
  iteration on a tape (`attrs["tape"]`), which the adjoint walks in reverse.
- Residuals are only pullback closures and tapes: the adjoint never reads primal values
  directly, so the forward and adjoint functions are independent IR functions.
- Nested AD through loops: a loop that already records k tapes (`tape=k`, the forward
  loop of a function being differentiated again) is an ordinary loop whose body yields k
  extra per-iteration values; its forward copy records one tape more (`tape=k+1`), and its
  adjoint walks the pullback tape zipped with the cotangents of those k tapes
  (`Core.tape_zip`). The adjoint's own walk over a tape is a `for` over an iterable, so
  differentiating it collects the entries' cotangents (`Core.iter_cot`); the tape
  primitives (`Core.reverse_tape`, `Core.tape_zip`, `Core.iter_cot`) have pullback rules
  (autodiff.runtime), so this composes to any order.
"""

from __future__ import annotations

from typing import Any

from lang.core.ir import Function, Op, Region, Value, walk_ops

_INACTIVE_OPS = ("const", "global", "method", "struct", "setglobal")

# built-ins whose results never carry a cotangent (ranges, sizes, indices)
NO_TANGENT_RESULTS = {":", "eachindex", "axes", "length", "size", "ndims", "Core.endof",
                      "lastindex",
                      "firstindex", "keys", "typeof", "eltype", "isa", "==", "!=", "<", "<=", ">",
                      ">=", "===", "!==", "!", "Core.or", "iseven", "isodd", "isnothing"}

# built-ins whose pullbacks run even for a zero cotangent of their result: the writes to a
# Box (a captured variable that a closure reassigns), which hand on the cotangent of what
# is read from the box later (autodiff.runtime: BoxTrail)
EFFECT_CALLS = {"Core.box", "Core.setbox"}


class ADError(Exception):
    pass


def region_free_values(region: Region) -> list[Value]:
    """Values a region (and its nested regions) uses but does not define, in first-use order."""
    defined: set[int] = {a.id for a in region.args}
    for op in walk_ops(region):
        defined.update(r.id for r in op.results)
        for r in op.regions:
            defined.update(a.id for a in r.args)
    seen: set[int] = set()
    out: list[Value] = []
    for op in walk_ops(region):
        for v in op.operands:
            if v.id not in defined and v.id not in seen:
                seen.add(v.id)
                out.append(v)
    return out


class _Builder:
    """Appends ops to a region of a function under construction."""

    def __init__(self, fn: Function, region: Region) -> None:
        self.fn = fn
        self.region = region

    def op(self, opname: str, operands: list[Value], nres: int = 1,
           regions: list[Region] | None = None,
           **attrs: Any) -> Op:
        op = Op(opname, list(operands), [self.fn.new_value() for _ in range(nres)], attrs,
                regions or [])
        self.region.ops.append(op)
        return op

    def call(self, fn: str, args: list[Value], **attrs: Any) -> Value:
        attrs.setdefault("kw", ())
        attrs.setdefault("splat", ())
        return self.op("call", args, fn=fn, **attrs).result

    def const(self, v: Any) -> Value:
        return self.op("const", [], value=v).result


class _Record:
    """What the adjoint needs to know about one forward op."""

    __slots__ = ("op", "res", "free", "lens")

    def __init__(self, op: Op, res: int, free: list[Value] | None = None,
                 lens: list[int] | None = None) -> None:
        self.op = op
        self.res = res
        self.free = free or []
        self.lens = lens or []


class Transform:
    """The reverse-mode transform of one primal function."""

    def __init__(self, primal: Function) -> None:
        self.primal = primal
        self.fwd = Function(
            name=f"{primal.name}#fwd", body=Region([]), params=list(primal.params), nkw=primal.nkw,
            vararg=primal.vararg, ncaptures=primal.ncaptures, span=primal.span, file=primal.file,
            self_arg=primal.self_arg, kwvararg=primal.kwvararg, derived=True,
        )
        self.vmap: dict[int, Value] = {}
        self.inactive: set[int] = set()
        self.adjoints: list[Function] = []
        self.nadj = 0
        # boxes the function makes, and what may hold one (a closure capturing it, a call's
        # result); the ops that may write into one, whose pullbacks run even for a zero
        # cotangent (see EFFECT_CALLS)
        self.box_holders: set[int] = set()
        self.effect_ops: set[int] = set()

    # --- forward ----------------------------------------------------------------------------

    def run(self) -> Function:
        p = self.primal
        self.fwd.body.args = [self._map_new(a) for a in p.body.args]
        b = _Builder(self.fwd, self.fwd.body)
        outs, closure = self.region(p.body, b, [], is_body=True)
        pair = b.call("tuple", [outs[0], closure])
        b.op("return", [pair], 0)
        return self.fwd

    def _map_new(self, v: Value) -> Value:
        nv = self.fwd.new_value(v.hint)
        self.vmap[v.id] = nv
        return nv

    def m(self, v: Value) -> Value:
        return self.vmap[v.id]

    def region(self, r: Region, b: _Builder, free: list[Value],
               is_body: bool = False) -> tuple[list[Value], Value]:
        """Transform the ops of primal region r into builder b; returns the forward values
        the region yields and its pullback closure."""
        records: list[_Record] = []
        residuals: list[Value] = []
        term: Op | None = None
        if is_body and self.primal.vararg:
            # the adjoint expands the varargs' cotangent, so it needs their count
            p = self.primal
            va = r.args[len(r.args) - p.nkw - 1]
            self.vararg_len_index = len(residuals)
            residuals.append(b.call("length", [self.m(va)]))
        for op in r.ops:
            if op.name in ("yield", "return"):
                term = op
                break
            handler = getattr(self, "f_" + op.name, None)
            if handler is None:
                raise ADError(f"cannot differentiate the `{op.name}` op")
            handler(op, b, records, residuals)
        assert term is not None
        outs = [self.m(v) for v in term.operands]
        self.resv_count = len(residuals)
        adj = self.adjoint(r, records, len(residuals), free, term, is_body)
        closure = b.op("closure", residuals, func=adj, name=adj.name).result
        return outs, closure

    def _copy(self, op: Op, b: _Builder) -> Op:
        new = b.op(op.name, [self.m(v) for v in op.operands], len(op.results),
                   [self.plain_region(r) for r in op.regions], **op.attrs)
        new.span = op.span
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        return new

    def plain_region(self, r: Region) -> Region:
        """A region copied without differentiation (loop conditions, defaults)."""
        nr = Region([self._map_new(a) for a in r.args])
        b = _Builder(self.fwd, nr)
        for op in r.ops:
            self._copy(op, b)
        return nr

    def f_const(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        self._copy(op, b)
        self.inactive.add(op.results[0].id)

    f_global = f_const
    f_method = f_const
    f_struct = f_const

    def f_setglobal(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        """A global written by differentiated code: reads of globals are constants of the
        differentiation, so a number written is refused at run time (its gradient would
        be lost); anything else is written as is."""
        if op.operands[0].id not in self.inactive:  # (a constant's write is harmless)
            check = b.call("Core.ad_global_write", [b.const(op.attrs["name"]),
                                                    self.m(op.operands[0])])
            self.inactive.add(check.id)
        self._copy(op, b)

    def f_default(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        """`default(arg) {region}` is `if isunset(arg) region else arg end`, differentiated
        as that `if`: a passed argument's cotangent reaches it, and a default computed from
        other arguments is differentiated too."""
        arg = op.operands[0]
        if arg.id in self.inactive and self._active_free(op.regions) == []:
            self._copy(op, b)
            self.inactive.add(op.results[0].id)
            return
        c = self.primal.new_value()
        test = Op("call", [arg], [c], {"fn": "Core.fwd_isunset", "kw": (), "splat": ()},
                  [], op.span)
        self._copy(test, b)
        self.inactive.add(c.id)
        passed = Region([], [Op("yield", [arg], [], {}, [], op.span)])
        self.f_if(Op("if", [c], list(op.results), {}, [op.regions[0], passed], op.span),
                  b, rec, res)

    def f_closure(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        self._copy(op, b)
        rec.append(_Record(op, -1))
        if any(v.id in self.box_holders for v in op.operands):
            self.box_holders.add(op.results[0].id)

    def _mark_effects(self, op: Op) -> None:
        """Mark op an effect op if it writes into a box or may (it calls or passes on
        something holding one the function made, or its regions hold an effect op)."""
        if op.attrs.get("fn") in EFFECT_CALLS:
            self.box_holders.update(v.id for v in op.results)
            self.effect_ops.add(id(op))
        elif any(v.id in self.box_holders for v in op.operands) or any(
                id(o) in self.effect_ops for r in op.regions for o in walk_ops(r)):
            self.box_holders.update(v.id for v in op.results)
            self.effect_ops.add(id(op))

    def _pcall(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        name = "pcall" if op.name == "call" else "pcallv"
        lens: list[int] = []
        for i in op.attrs.get("splat") or ():
            # the adjoint regroups splatted cotangents, so it needs each splat's length, and
            # the splatted value itself (an array's cotangent is an array, see _scatter_call)
            ln = b.call("length", [self.m(op.operands[i])])
            lens.append(len(res))
            res.append(ln)
            res.append(self.m(op.operands[i]))
        new = b.op(name, [self.m(v) for v in op.operands], 2, **op.attrs)
        new.span = op.span
        self.vmap[op.results[0].id] = new.results[0]
        if op.name == "call" and op.attrs.get("fn") in NO_TANGENT_RESULTS:
            self.inactive.add(op.results[0].id)
        self._mark_effects(op)
        rec.append(_Record(op, len(res), lens=lens))
        res.append(new.results[1])

    f_call = _pcall
    f_callv = _pcall

    def _desugar_pcall(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        """Nested AD: `y, b = pcall f(args)` is `t = Core.pullback_call(f, args...)`
        followed by `y = t[1]; b = t[2]`, and is differentiated as those calls."""
        p = self.primal
        if op.name == "pcall":
            fv = p.new_value()
            self.f_const(Op("global", [], [fv], {"name": op.attrs["fn"]}), b, rec, res)
            operands = [fv] + op.operands
        else:
            operands = list(op.operands)
        t = p.new_value()
        splat = tuple(i + (1 if op.name == "pcall" else 0) for i in op.attrs.get("splat") or ())
        call = Op("call", operands, [t], {"fn": "Core.pullback_call",
                                          "kw": op.attrs.get("kw") or (),
                                          "splat": splat}, [], op.span)
        self._pcall(call, b, rec, res)
        for k, r in enumerate(op.results):
            c = p.new_value()
            self.f_const(Op("const", [], [c], {"value": k + 1}), b, rec, res)
            self._pcall(Op("call", [t, c], [r],
                           {"fn": "Core.indexed_iterate", "kw": (), "splat": ()},
                           [], op.span), b, rec, res)

    f_pcall = _desugar_pcall
    f_pcallv = _desugar_pcall

    def _active_free(self, r: list[Region]) -> list[Value]:
        seen: set[int] = set()
        out: list[Value] = []
        for reg in r:
            for v in region_free_values(reg):
                if v.id not in seen and v.id not in self.inactive:
                    seen.add(v.id)
                    out.append(v)
        return out

    def f_if(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        free = self._active_free(op.regions)
        regions = []
        for r in op.regions:
            nr = Region([])
            rb = _Builder(self.fwd, nr)
            outs, closure = self.region(r, rb, free)
            rb.op("yield", outs + [closure], 0)
            regions.append(nr)
        new = b.op("if", [self.m(op.operands[0])], len(op.results) + 1, regions, **op.attrs)
        new.span = op.span
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        self._mark_effects(op)
        rec.append(_Record(op, len(res), free))
        res.append(new.results[-1])

    def _loop_body(self, body: Region, free: list[Value]) -> Region:
        nr = Region([self._map_new(a) for a in body.args])
        rb = _Builder(self.fwd, nr)
        outs, closure = self.region(body, rb, free)
        rb.op("yield", outs + [closure], 0)
        return nr

    def f_for(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        body = op.regions[0]
        free = self._active_free([body])
        nbody = self._loop_body(body, free)
        new = b.op("for", [self.m(v) for v in op.operands], len(op.results) + 1, [nbody],
                   **{**op.attrs, "tape": _one_more_tape(op)})
        new.span = op.span
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        self._mark_effects(op)
        rc = _Record(op, len(res), free)
        rec.append(rc)
        res.append(new.results[-1])
        it = op.operands[0]
        if it.id not in self.inactive:
            # iterating over an array: its elements' cotangents are collected in the adjoint
            rc.lens = [len(res)]
            res.append(self.m(it))

    def f_while(self, op: Op, b: _Builder, rec: list, res: list) -> None:
        cond, body = op.regions
        free = self._active_free([body])
        ncond = self.plain_region(cond)
        nbody = self._loop_body(body, free)
        new = b.op("while", [self.m(v) for v in op.operands], len(op.results) + 1, [ncond, nbody],
                   **{**op.attrs, "tape": _one_more_tape(op)})
        new.span = op.span
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        self._mark_effects(op)
        rec.append(_Record(op, len(res), free))
        res.append(new.results[-1])

    # --- adjoint ----------------------------------------------------------------------------

    def adjoint(self, r: Region, records: list[_Record], nres: int, free: list[Value], term: Op,
                is_body: bool) -> Function:
        self.nadj += 1
        name = f"{self.primal.name}#adj{self.nadj if not is_body else ''}"
        adj = Function(name=name, body=Region([]), params=[f"#r{i}" for i in range(nres)] + ["dy"],
                       ncaptures=nres, span=self.primal.span, file=self.primal.file,
                       derived=True)
        resv = [adj.new_value(f"r{i}") for i in range(nres)]
        dy = adj.new_value("dy")
        adj.body.args = resv + [dy]
        b = _Builder(adj, adj.body)
        cot: dict[int, Value] = {}
        inactive = self.inactive

        def add(v: Value, d: Value) -> None:
            if v.id in inactive:
                return
            cur = cot.get(v.id)
            cot[v.id] = d if cur is None else b.call("Core.accum", [cur, d])

        if is_body:
            add(term.operands[0], dy)
        else:
            for i, v in enumerate(term.operands):
                add(v, b.call("Core.getgrad", [dy, b.const(i + 1)]))
        for rc in reversed(records):
            op = rc.op
            if op.name == "closure":
                d = cot.get(op.results[0].id)
                if d is None:
                    continue
                for i, v in enumerate(op.operands):
                    add(v, b.call("Core.getgrad", [d, b.const(i + 1)]))
            elif op.name in ("call", "callv"):
                d = cot.get(op.results[0].id)
                if d is None and id(op) not in self.effect_ops:
                    continue
                g = self._back(b, op, resv[rc.res], d or b.const(None))
                self._scatter_call(op, rc, g, b, resv, add)
            elif op.name == "if":
                ds = [cot.get(v.id) for v in op.results]
                if all(x is None for x in ds) and id(op) not in self.effect_ops:
                    continue
                none = None
                items = []
                for x in ds:
                    if x is None:
                        none = none or b.const(None)
                        items.append(none)
                    else:
                        items.append(x)
                g = self._back(b, op, resv[rc.res], b.call("tuple", items))
                for i, v in enumerate(rc.free):
                    add(v, b.call("Core.getgrad", [g, b.const(i + 1)]))
            elif op.name in ("for", "while"):
                self._loop_adjoint(op, rc, b, resv, cot, add)
        return self._finish(adj, b, r, free, cot, is_body)

    def _back(self, b: _Builder, op: Op, pb: Value, d: Value) -> Value:
        """Call pullback pb of op with cotangent d (an effect op's even for a zero d)."""
        return b.call("Core.back_effect" if id(op) in self.effect_ops else "Core.back", [pb, d])

    def _scatter_call(self, op: Op, rc: _Record, g: Value, b: _Builder, resv: list[Value],
                      add: Any) -> None:
        kw = op.attrs.get("kw") or ()
        splat = op.attrs.get("splat") or ()
        npos = len(op.operands) - len(kw)
        first = 0 if op.name == "call" else 1
        if op.name == "callv":
            add(op.operands[0], b.call("Core.getgrad", [g, b.const(1)]))
        splatted: dict[int, Value] = {}
        if splat:
            lens = [resv[i] for i in rc.lens]
            spec = tuple(i in splat for i in range(first, npos))
            g = b.call("Core.regroup", [g, b.const(spec)] + lens)
            splatted = {i: resv[k + 1] for i, k in zip(splat, rc.lens, strict=True)}
        for j, v in enumerate(op.operands[first:npos]):
            d = b.call("Core.getgrad", [g, b.const(j + 2)])
            if j + first in splatted:
                d = b.call("Core.untuple_cot", [d, splatted[j + first]])
            add(v, d)
        # a method with keyword parameters appends their cotangents (see `_finish`); a
        # splatted NamedTuple (`f(; nt...)`, named "...") gets those of its names, the
        # keywords the call names itself left out
        named = tuple(n for n in kw if n != "...")
        for name, v in zip(kw, op.operands[npos:], strict=True):
            if v.id not in self.inactive:
                key = ("...",) + named if name == "..." else name
                add(v, b.call("Core.kwgrad", [g, b.const(key)]))

    def _loop_adjoint(self, op: Op, rc: _Record, b: _Builder, resv: list[Value], cot: dict,
                      add: Any) -> None:
        """The adjoint of a loop: a `for` over its reversed tape of iteration pullbacks,
        carrying the cotangents of the loop-carried values and of the free values.

        A loop that itself records tapes (the forward loop of an adjoint being differentiated
        again: nested AD) has k tape results after its m carried ones; their cotangents are
        tapes of per-iteration cotangents, zipped with the pullback tape
        (`Core.tape_zip`), so that each adjoint iteration feeds its pullback the cotangents
        of everything that iteration yielded."""
        is_for = op.name == "for"
        k = tape_count(op)
        m = len(op.results) - k
        nfree = len(rc.free)
        ds = [cot.get(v.id) for v in op.results[:m]]
        dts = [cot.get(v.id) for v in op.results[m:]]
        if all(x is None for x in ds + dts) and id(op) not in self.effect_ops:
            return
        none = b.const(None)
        dinit = [x if x is not None else none for x in ds]
        tape = resv[rc.res]
        zipped = any(x is not None for x in dts)
        if zipped:
            tape = b.call("Core.tape_zip", [tape] + [x if x is not None else none for x in dts])
        rev = b.call("Core.reverse_tape", [tape])
        body = Region([])
        adjfn = b.fn
        ev = adjfn.new_value("B")
        dc = [adjfn.new_value(f"dc{j}") for j in range(m)]
        df = [adjfn.new_value(f"df{j}") for j in range(nfree)]
        body.args = [ev] + dc + df
        bb = _Builder(adjfn, body)
        if zipped:
            bv = bb.call("Core.getgrad", [ev, bb.const(1)])
            drec = [bb.call("Core.getgrad", [ev, bb.const(j + 2)]) for j in range(k)]
        else:
            bv = ev
            drec = [bb.const(None) for _ in range(k)]
        douts = dc + drec
        g = self._back(bb, op, bv, bb.call("tuple", douts) if douts else bb.const(()))
        off = 2 if is_for else 1  # the iteration variable's cotangent comes first
        newdc = [bb.call("Core.getgrad", [g, bb.const(off + j)]) for j in range(m)]
        newdf = [bb.call("Core.accum", [df[j], bb.call("Core.getgrad", [g, bb.const(off + m + j)])])
                 for j in range(nfree)]
        collect_dx = is_for and bool(rc.lens)
        extra = [bb.call("Core.getgrad", [g, bb.const(1)])] if collect_dx else []
        bb.op("yield", newdc + newdf + extra, 0)
        attrs: dict[str, Any] = {"reverse_tape": True}
        if collect_dx:
            attrs["tape"] = True
        loop = b.op("for", [rev] + dinit + [none] * nfree, m + nfree + len(extra), [body], **attrs)
        inits = op.operands[1:] if is_for else op.operands
        for j, v in enumerate(inits):
            add(v, loop.results[j])
        for j, v in enumerate(rc.free):
            add(v, loop.results[m + j])
        if collect_dx:
            add(op.operands[0], b.call("Core.iter_cot", [resv[rc.lens[0]], loop.results[-1]]))

    def _finish(self, adj: Function, b: _Builder, r: Region, free: list[Value], cot: dict,
                is_body: bool) -> Function:
        none = b.const(None)

        def d(v: Value) -> Value:
            return cot.get(v.id, none)

        if not is_body:
            out = b.call("tuple", [d(a) for a in r.args] + [d(v) for v in free])
            b.op("return", [out], 0)
            return adj
        p = self.primal
        args = r.args
        caps = args[: p.ncaptures]
        npos = len(args) - p.ncaptures - p.nkw
        pos = args[p.ncaptures: p.ncaptures + npos]
        if p.ncaptures:
            names = b.const(tuple(p.params[: p.ncaptures]))
            self_d = b.call("Core.namedtuple", [names] + [d(c) for c in caps])
        elif p.self_arg and pos:
            self_d, pos = d(pos[0]), pos[1:]
        else:
            self_d = none
        ds = [self_d] + [d(a) for a in pos]
        kwnames = p.params[len(p.params) - p.nkw:] if p.nkw else []
        kwargs = args[len(args) - p.nkw:] if p.nkw else []
        extra = None
        if p.kwvararg:  # the collected extra keywords: their NamedTuple's cotangent
            kwnames, kwargs, extra = kwnames[:-1], kwargs[:-1], kwargs[-1]
        # keyword cotangents come last, as one NamedTuple (read by `Core.kwgrad`)
        kwd = []
        if kwnames or extra is not None:
            nt = b.call("Core.namedtuple", [b.const(tuple(kwnames))] + [d(a) for a in kwargs])
            if extra is not None:
                nt = b.call("Core.kwmerge", [nt, d(extra)])
            kwd = [b.call("Core.kwcot", [nt])]
        if p.vararg:
            out = b.call("Core.splice_last", ds + [adj.body.args[self.vararg_len_index]])
            if kwd:
                out = b.call("tuple", [out] + kwd, splat=(0,))
        else:
            out = b.call("tuple", ds + kwd)
        b.op("return", [out], 0)
        return adj


def tape_count(op: Op) -> int:
    """How many tapes a loop op records (see lang.core.interp.tape_count)."""
    t = op.attrs.get("tape")
    return int(t) if t else 0


def _one_more_tape(op: Op) -> bool | int:
    """The `tape` attribute of a loop's forward copy: one tape more than the primal loop
    records (its iteration pullbacks come last). A plain loop gets `true`."""
    k = tape_count(op)
    return True if k == 0 else k + 1


_CACHE: dict[int, tuple[Function, Function]] = {}


def forward(fn: Function) -> Function:
    """The forward function of `fn` (cached per function object)."""
    hit = _CACHE.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    t = Transform(fn)
    fwd = t.run()
    _CACHE[id(fn)] = (fn, fwd)
    return fwd


def adjoint_functions(fn: Function) -> list[Function]:
    """The adjoint functions made for `fn` (for `@code_adjoint`), body first."""
    fwd = forward(fn)
    out: list[Function] = []
    for op in walk_ops(fwd.body):
        func = op.attrs.get("func")
        if op.name == "closure" and isinstance(func, Function) and "#adj" in func.name:
            out.append(op.attrs["func"])
    out.sort(key=lambda f: (f.name.count("#adj") and not f.name.endswith("#adj"), f.name))
    return out
