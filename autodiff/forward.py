"""Source-to-source forward mode on the structured IR.

`jvp_function(F)` turns a primal function F into its tangent function F#jvp: its body
takes the primal arguments followed by one tangent per argument (the same count, in the
same order) and returns the tuple `(y, dy)`. Every op carries (primal, tangent) pairs:

- `call` / `callv` whose operands have tangents become `fcall` / `fcallv`: operands are
  the primal operands followed by their tangents (`attrs["n"]` says how many primal
  ones), results are `(y, dy)`. The dispatcher `jvp_call` picks the callee at run time,
  the way a call picks a method: a user `frule` (user rules win), a primitive's forward
  rule from the primitive table (Zyla source, `Primitive.forward`), or a method/closure
  body transformed recursively (cached, like the reverse transform).
- `if` branches yield their outputs and the outputs' tangents; `for` / `while` carry the
  tangents as extra loop-carried values (no tape is needed for forward mode). A loop that
  records a tape (the forward function made by reverse mode) records, per iteration, one
  tuple of the primal entries and their tangents; `Core.fwd_tape_part` takes the tapes
  apart again. A loop over a value with a tangent iterates over `Core.fwd_zip(it, dit)`,
  pairs of elements and their tangents.
- `closure` gets a tangent closure: the same lifted function over the captures'
  tangents (so branches that make different closures unify in XLA like the primals).
- `pcall` / `pcallv` (reverse mode's own ops) are `Core.pullback_call` plus
  `Core.indexed_iterate`, so forward mode also runs over the IR reverse mode emits:
  `hessian` is forward-over-reverse.

Tangents follow Zygote's conventions: `nothing` is the zero, tuples/NamedTuples for
tuples/NamedTuples/structs, arrays for arrays. An activity analysis decides statically
which values can have a tangent; the rest get the constant `nothing` and plain ops.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autodiff import rules
from autodiff.reverse import NO_TANGENT_RESULTS, ADError
from autodiff.rules import frule_for
from autodiff.runtime import (
    NO_TANGENT,
    _is_zero,
    forward_callable,
    nondiff_may_drop,
    receiver_forward,
)
from grammar.errors import ZylaError
from lang.core import (
    current,
    primitives,
    primitives_array,
    primitives_base,
    primitives_nest,
    primitives_nn,
)
from lang.core import functions as F
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins_random import host_rng_scope
from lang.core.complexes import complex_cotangent
from lang.core.functions import Closure, GenericFunction, PyCallable, elementwise_primitive, typeof
from lang.core.interp import OP_HANDLERS, UNSET, Interpreter, Tape
from lang.core.ir import Function, Op, Region, Value
from lang.core.primitives import INFER_BY_LOWERING, NONDIFF, PRIMITIVES, HostOnly, Primitive, prim
from lang.core.structure import BranchUnion, OffloadError, StackedTape, leaf_count
from lang.core.verify import OP_RULES

# Markers a primitive's `forward` entry may hold instead of Zyla source.
NOFORWARD = "noforward"  # no forward rule: a call with a nonzero tangent is an ADError
SPECIAL = "SPECIAL"  # handled by the dispatcher itself (broadcast, the AD built-ins)
FORWARD_MARKERS = (NONDIFF, NOFORWARD, SPECIAL)

_INACTIVE_OPS = ("const", "global", "method", "struct", "setglobal")


def _tape_count(op: Op) -> int:
    t = op.attrs.get("tape")
    return int(t) if t else 0


# --- activity analysis -----------------------------------------------------------------------


class Activity:
    """Which SSA values of a function may carry a nonzero tangent (ids in `active`).

    Parameters are active; constants, globals and the results of calls whose operands are
    all inactive are not. Loop-carried values are solved to a fixpoint."""

    def __init__(self, fn: Function) -> None:
        self.active: set[int] = {a.id for a in fn.body.args}
        self.region(fn.body)

    def is_active(self, v: Value) -> bool:
        return v.id in self.active

    def _any(self, vs: list[Value]) -> bool:
        return any(v.id in self.active for v in vs)

    def _mark(self, vs: list[Value], on: bool) -> None:
        if on:
            self.active.update(v.id for v in vs)

    def region(self, r: Region) -> list[bool]:
        """Analyse r's ops; returns the activity of what its terminator yields."""
        for op in r.ops:
            if op.name in ("yield", "return"):
                return [self.is_active(v) for v in op.operands]
            getattr(self, "a_" + op.name, self.a_call)(op)
        return []

    def a_call(self, op: Op) -> None:
        if op.name in _INACTIVE_OPS:
            return
        if op.name in ("call", "pcall") and op.attrs.get("fn") in NO_TANGENT_RESULTS:
            return
        self._mark(op.results, self._any(op.operands))

    def a_default(self, op: Op) -> None:
        ys = self.region(op.regions[0])
        self._mark(op.results, self._any(op.operands) or any(ys))

    def a_if(self, op: Op) -> None:
        outs = [self.region(r) for r in op.regions]
        for k, res in enumerate(op.results):
            self._mark([res], any(o[k] for o in outs if k < len(o)))

    def _loop(self, op: Op, body: Region, carried_args: list[Value], inits: list[Value],
              cond: Region | None) -> None:
        act = [self.is_active(v) for v in inits]
        while True:
            self._mark([a for a, on in zip(carried_args, act, strict=False) if on], True)
            if cond is not None:
                self._mark([a for a, on in zip(cond.args, act, strict=False) if on], True)
                self.region(cond)
            ys = self.region(body)
            new = [a or (k < len(ys) and ys[k]) for k, a in enumerate(act)]
            if new == act:
                break
            act = new
        m = len(inits)
        self._mark([r for r, on in zip(op.results[:m], act, strict=False) if on], True)
        # tapes: active when the recorded entries are
        for j, r in enumerate(op.results[m:]):
            self._mark([r], ys[m + j] if m + j < len(ys) else True)

    def a_for(self, op: Op) -> None:
        body = op.regions[0]
        self._mark(body.args[:1], self.is_active(op.operands[0]))
        self._loop(op, body, body.args[1:], op.operands[1:], None)

    def a_while(self, op: Op) -> None:
        cond, body = op.regions
        self._loop(op, body, body.args, op.operands, cond)


# --- the transform ---------------------------------------------------------------------------


class _Builder:
    def __init__(self, fn: Function, region: Region) -> None:
        self.fn = fn
        self.region = region

    def op(self, opname: str, operands: list[Value], nres: int = 1,
           regions: list[Region] | None = None, span: Any = None, **attrs: Any) -> Op:
        results = [self.fn.new_value() for _ in range(nres)]
        op = Op(opname, list(operands), results, attrs, regions or [])
        if span is not None:
            op.span = span
        self.region.ops.append(op)
        return op

    def call(self, fn: str, args: list[Value], span: Any = None) -> Value:
        return self.op("call", args, 1, None, span, fn=fn, kw=(), splat=()).result

    def const(self, v: Any) -> Value:
        return self.op("const", [], value=v).result


class Transform:
    """The forward-mode transform of one primal function (see the module docstring)."""

    def __init__(self, primal: Function) -> None:
        self.primal = primal
        self.act = Activity(primal)
        self.out = Function(name=f"{primal.name}#jvp", body=Region([]),
                            params=list(primal.params) + ["d" + p for p in primal.params],
                            span=primal.span, file=primal.file, derived=True)
        self.vmap: dict[int, Value] = {}
        self.tmap: dict[int, Value] = {}

    def run(self) -> Function:
        p = self.primal
        prim_args = [self._new(a) for a in p.body.args]
        tan_args = []
        for a in p.body.args:
            t = self.out.new_value("d" + a.hint if a.hint else "")
            self.tmap[a.id] = t
            tan_args.append(t)
        self.out.body.args = prim_args + tan_args
        b = _Builder(self.out, self.out.body)
        term = self.ops(p.body, b)
        y = term.operands[0]
        pair = b.call("tuple", [self.m(y), self.t(y, b)])
        b.op("return", [pair], 0)
        return self.out

    # value maps
    def _new(self, v: Value) -> Value:
        nv = self.out.new_value(v.hint)
        self.vmap[v.id] = nv
        return nv

    def m(self, v: Value) -> Value:
        return self.vmap[v.id]

    def t(self, v: Value, b: _Builder) -> Value:
        """The tangent of primal value v (a `nothing` constant if v is inactive)."""
        tv = self.tmap.get(v.id)
        return tv if tv is not None else b.const(None)

    def active(self, v: Value) -> bool:
        return self.act.is_active(v)

    def ops(self, r: Region, b: _Builder) -> Op:
        """Transform r's ops into b; returns r's terminator (not emitted)."""
        for op in r.ops:
            if op.name in ("yield", "return"):
                return op
            handler = getattr(self, "f_" + op.name, None)
            if handler is None:
                raise ADError(f"forward mode cannot differentiate the `{op.name}` op")
            handler(op, b)
        raise ADError("region without terminator")

    def copy(self, op: Op, b: _Builder) -> Op:
        new = b.op(op.name, [self.m(v) for v in op.operands], len(op.results),
                   [self.plain_region(r) for r in op.regions], op.span, **op.attrs)
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        return new

    def plain_region(self, r: Region) -> Region:
        """A region copied without tangents (a loop condition, an inactive default)."""
        nr = Region([self._new(a) for a in r.args])
        nb = _Builder(self.out, nr)
        for op in r.ops:
            self.copy(op, nb)
        return nr

    # --- op handlers ------------------------------------------------------------------------

    def f_const(self, op: Op, b: _Builder) -> None:
        self.copy(op, b)

    f_global = f_const
    f_method = f_const
    f_struct = f_const

    def f_setglobal(self, op: Op, b: _Builder) -> None:
        # a number with a tangent written into a global is refused (reads of globals
        # have no tangent)
        if self.active(op.operands[0]):
            b.call("Core.ad_global_write", [b.const(op.attrs["name"]),
                                            self.m(op.operands[0])], op.span)
        self.copy(op, b)

    def _call(self, op: Op, b: _Builder) -> None:
        if not any(self.active(r) for r in op.results):
            self.copy(op, b)
            return
        n = len(op.operands)
        operands = [self.m(v) for v in op.operands] + [self.t(v, b) for v in op.operands]
        new = b.op("f" + op.name, operands, 2, None, op.span, **{**op.attrs, "n": n})
        self.vmap[op.results[0].id] = new.results[0]
        self.tmap[op.results[0].id] = new.results[1]

    f_call = _call
    f_callv = _call

    def _pcall(self, op: Op, b: _Builder) -> None:
        """Reverse mode's `y, B = pcall f(args)` is `t = Core.pullback_call(f, args...)`,
        `y = t[1]`, `B = t[2]`, and is differentiated as those calls."""
        if not any(self.active(r) for r in op.results):
            self.copy(op, b)  # (ranges, sizes, comparisons: no tangent)
            return
        p = self.primal
        if op.name == "pcall":
            fv = p.new_value()
            self.f_const(Op("global", [], [fv], {"name": op.attrs["fn"]}), b)
            operands = [fv] + op.operands
        else:
            operands = list(op.operands)
        t = p.new_value()
        splat = tuple(i + (op.name == "pcall") for i in op.attrs.get("splat") or ())
        attrs = {"fn": "Core.pullback_call", "kw": op.attrs.get("kw") or (), "splat": splat}
        call = Op("call", operands, [t], attrs, [], op.span)
        self.act.active.update(r.id for r in [t] if self.act._any(operands))
        self._call(call, b)
        for k, r in enumerate(op.results):
            c = p.new_value()
            self.f_const(Op("const", [], [c], {"value": k + 1}), b)
            get = {"fn": "Core.indexed_iterate", "kw": (), "splat": ()}
            self._call(Op("call", [t, c], [r], get, [], op.span), b)

    f_pcall = _pcall
    f_pcallv = _pcall

    def f_closure(self, op: Op, b: _Builder) -> None:
        self.copy(op, b)
        if self.active(op.results[0]):
            tan = b.op("closure", [self.t(v, b) for v in op.operands], 1, None, op.span, **op.attrs)
            self.tmap[op.results[0].id] = tan.result

    def f_default(self, op: Op, b: _Builder) -> None:
        if not self.active(op.results[0]):
            self.copy(op, b)
            return
        arg = op.operands[0]
        unset = b.call("Core.fwd_isunset", [self.m(arg)], op.span)
        then = Region([])
        tb = _Builder(self.out, then)
        term = self.ops(op.regions[0], tb)
        tb.op("yield", [self.m(term.operands[0]), self.t(term.operands[0], tb)], 0)
        other = Region([])
        ob = _Builder(self.out, other)
        ob.op("yield", [self.m(arg), self.t(arg, ob)], 0)
        new = b.op("if", [unset], 2, [then, other], op.span)
        self.vmap[op.results[0].id] = new.results[0]
        self.tmap[op.results[0].id] = new.results[1]

    def f_if(self, op: Op, b: _Builder) -> None:
        act = [r for r in op.results if self.active(r)]
        regions = []
        for r in op.regions:
            nr = Region([])
            rb = _Builder(self.out, nr)
            term = self.ops(r, rb)
            outs = [self.m(v) for v in term.operands]
            tans = [self.t(v, rb) for v, res in zip(term.operands, op.results, strict=False)
                    if self.active(res)]
            rb.op("yield", outs + tans, 0)
            regions.append(nr)
        new = b.op("if", [self.m(op.operands[0])], len(op.results) + len(act), regions, op.span,
                   **op.attrs)
        for old, nv in zip(op.results, new.results, strict=False):
            self.vmap[old.id] = nv
        for old, tv in zip(act, new.results[len(op.results):], strict=False):
            self.tmap[old.id] = tv

    def _loop_body(self, carried: list[Value], lead: list[Value]) -> tuple[Region, _Builder]:
        """The body region of a forward loop, with arguments lead + carried + the tangents
        of the active carried values (its ops and yield come from `_finish_body`)."""
        nr = Region(lead + [self._new(a) for a in carried])
        for a in carried:
            if self.active(a):
                tv = self.out.new_value()
                self.tmap[a.id] = tv
                nr.args.append(tv)
        rb = _Builder(self.out, nr)
        return nr, rb

    def _finish_body(self, rb: _Builder, body: Region, carried: list[Value], ntape: int) -> None:
        """Transform body's ops into rb and yield what the forward loop body yields."""
        term = self.ops(body, rb)
        m = len(carried)
        ys = term.operands
        outs = [self.m(v) for v in ys[:m]]
        tans = [self.t(v, rb) for v, a in zip(ys[:m], carried, strict=False) if self.active(a)]
        extra = []
        if ntape:
            tapes = ys[m:]
            entry = [self.m(v) for v in tapes] + [self.t(v, rb) for v in tapes]
            extra = [rb.call("tuple", entry)]
        rb.op("yield", outs + tans + extra, 0)

    def _loop_results(self, op: Op, new: Op, carried: list[Value], ntape: int, b: _Builder) -> None:
        m = len(carried)
        for old, nv in zip(op.results[:m], new.results[:m], strict=False):
            self.vmap[old.id] = nv
        k = m
        for old, a in zip(op.results[:m], carried, strict=False):
            if self.active(a):
                self.tmap[old.id] = new.results[k]
                k += 1
        if ntape:
            both = new.results[k]
            for j, old in enumerate(op.results[m:]):
                self.vmap[old.id] = b.call("Core.fwd_tape_part", [both, b.const(j + 1)], op.span)
                dj = b.const(ntape + j + 1)
                self.tmap[old.id] = b.call("Core.fwd_tape_part", [both, dj], op.span)

    def f_for(self, op: Op, b: _Builder) -> None:
        it, inits = op.operands[0], op.operands[1:]
        body = op.regions[0]
        ntape = _tape_count(op)
        carried = body.args[1:]
        x = body.args[0]
        zipped = self.active(it)
        if zipped:
            iterable = b.call("Core.fwd_zip", [self.m(it), self.t(it, b)], op.span)
            pair = self.out.new_value("pair")
            nr, rb = self._loop_body(carried, [pair])
            self.vmap[x.id] = rb.call("Core.fwd_part", [pair, rb.const(1)])
            self.tmap[x.id] = rb.call("Core.fwd_part", [pair, rb.const(2)])
        else:
            iterable = self.m(it)
            nr, rb = self._loop_body(carried, [self._new(x)])
        self._finish_body(rb, body, carried, ntape)
        dinits = [self.t(v, b) for v, a in zip(inits, carried, strict=False) if self.active(a)]
        nres = len(carried) + len(dinits) + (1 if ntape else 0)
        attrs = {**op.attrs}
        attrs.pop("tape", None)
        if ntape:
            attrs["tape"] = True
        operands = [iterable] + [self.m(v) for v in inits] + dinits
        new = b.op("for", operands, nres, [nr], op.span, **attrs)
        self._loop_results(op, new, carried, ntape, b)

    def f_while(self, op: Op, b: _Builder) -> None:
        cond, body = op.regions
        ntape = _tape_count(op)
        inits = op.operands
        carried = body.args
        # the condition sees the primal carried values (and ignores the tangents)
        ncond = Region([self._new(a) for a in cond.args])
        for c in carried:
            if self.active(c):
                ncond.args.append(self.out.new_value())
        cb = _Builder(self.out, ncond)
        for cop in cond.ops:
            self.copy(cop, cb)
        nr, rb = self._loop_body(carried, [])
        self._finish_body(rb, body, carried, ntape)
        dinits = [self.t(v, b) for v, a in zip(inits, carried, strict=False) if self.active(a)]
        nres = len(carried) + len(dinits) + (1 if ntape else 0)
        attrs = {**op.attrs}
        attrs.pop("tape", None)
        if ntape:
            attrs["tape"] = True
        operands = [self.m(v) for v in inits] + dinits
        new = b.op("while", operands, nres, [ncond, nr], op.span, **attrs)
        self._loop_results(op, new, carried, ntape, b)


_CACHE: dict[int, tuple[Function, Function]] = {}


def jvp_function(fn: Function) -> Function:
    """The tangent function of `fn` (cached per function object)."""
    hit = _CACHE.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    out = Transform(fn).run()
    _CACHE[id(fn)] = (fn, out)
    return out


def _jvp_fn(fn: Function) -> Function:
    try:
        return jvp_function(fn)
    except ADError as e:
        raise ZylaError("AD error", f"cannot differentiate `{fn.name}` in forward mode: {e}",
                        fn.span) from None


# --- the run-time dispatcher -----------------------------------------------------------------


def is_zero(d: Any) -> bool:
    """A tangent that is statically zero: `nothing`, NoTangent/ZeroTangent, or a tuple /
    NamedTuple of zeros."""
    if d is None or d is NO_TANGENT or d is False:
        return True
    if isinstance(d, tuple):
        return all(is_zero(x) for x in d)
    if isinstance(d, V.NamedTuple):
        return all(is_zero(x) for x in d.values)
    return False


def clean(d: Any) -> Any:
    """A tangent with ChainRules' NoTangent/ZeroTangent (and all-zero tuples/NamedTuples
    a user rule returns) normalised to `nothing`."""
    if d is NO_TANGENT or d is False:  # (False: the zero an integer's tangent becomes)
        return None
    if isinstance(d, tuple):
        return None if is_zero(d) else tuple(clean(x) for x in d)
    if isinstance(d, V.NamedTuple):
        return None if is_zero(d) else V.NamedTuple(d.names, tuple(clean(x) for x in d.values))
    return d


def zero_tangent(x: Any) -> Any:
    """The zero a forward rule receives for an argument whose tangent is `nothing`: zeros
    of x's float type for floats, `false` (a strong zero that keeps the other operand's
    type) for integers and Bools, a tuple of those for a tuple, `nothing` for everything
    else."""
    if isinstance(x, bool) or isinstance(x, int):
        return False
    if isinstance(x, float):
        return 0.0
    if isinstance(x, tuple):  # (broadcasting over a tuple of numbers)
        zs = tuple(zero_tangent(e) for e in x)
        return None if all(e is None for e in zs) else zs
    d = getattr(x, "dtype", None)
    if d is None or isinstance(x, (V.Range, Tape)):
        return None
    d = np.dtype(d)
    if d.kind not in "fiub":
        return None
    shape = getattr(x, "shape", ())
    if isinstance(x, (np.ndarray, np.generic)):
        if d.kind == "f":
            return np.zeros(shape, dtype=d) if shape else d.type(0)
        return np.zeros(shape, dtype=bool) if shape else False
    import jax.numpy as jnp

    return jnp.zeros(shape, dtype=d if d.kind == "f" else bool)


def _capture_tangents(n: int, df: Any) -> list:
    """The tangents of a closure's n captures from the closure's tangent (a tangent
    closure, a NamedTuple or tuple of the captures' tangents, or nothing)."""
    if isinstance(df, Closure):
        return list(df.captures)
    if isinstance(df, V.NamedTuple):
        return list(df.values)
    if isinstance(df, tuple):
        return list(df)
    return [None] * n


def bind_tangents(fn: Function, dcaptures: list, dargs: list, dkwargs: dict | None) -> list:
    """Tangents arranged as fn's body parameters, as Interpreter.bind_args arranges the
    primal arguments (missing optional/keyword arguments get `nothing`)."""
    npos = len(fn.params) - fn.ncaptures - fn.nkw
    out = list(dcaptures) + [None] * (fn.ncaptures - len(dcaptures))
    if fn.vararg:
        fixed = npos - 1
        out += list(dargs[:fixed]) + [None] * (fixed - len(dargs[:fixed]))
        out.append(tuple(dargs[fixed:]))
    else:
        out += list(dargs) + [None] * (npos - len(dargs))
    kwnames = fn.params[len(fn.params) - fn.nkw:] if fn.nkw else []
    out += [(dkwargs or {}).get(k) for k in kwnames]
    return out


def _run_jvp(interp: Interpreter, fn: Function, captures: list, dcaptures: list, args: list,
             dargs: list, kwargs: dict | None, dkwargs: dict | None) -> tuple:
    bound = interp.bind_args(fn, captures, args, kwargs)
    tans = bind_tangents(fn, dcaptures, dargs, dkwargs)
    return interp.run_function(_jvp_fn(fn), bound + tans)


def jvp_call(interp: Interpreter, f: Any, df: Any, args: list, dargs: list,
             kwargs: dict | None = None, dkwargs: dict | None = None) -> tuple[Any, Any]:
    """`(f(args...; kwargs...), tangent)` for any callable f with tangent df, argument
    tangents dargs (and keyword tangents dkwargs). See the module docstring for the order
    in which the way to differentiate a call is chosen."""
    if is_zero(df) and all(is_zero(d) for d in list(dargs) + list((dkwargs or {}).values())):
        return interp.call_value(f, args, kwargs), None
    special = _SPECIAL_CALLEES.get(getattr(f, "name", None)) if isinstance(f, Primitive) else None
    if special is not None:
        return special(interp, f, df, args, dargs, kwargs)
    ds = tuple([df] + list(dargs))
    rule = user_frule(interp, f, args, ds)
    if rule is not None:
        y, dy = interp.call_value(rule, [ds, f] + list(args), kwargs)
        return y, clean(dy)
    handler = _CALLEE_KINDS.get(type(f))
    if handler is None:
        for cls, h in _CALLEE_BASES:
            if isinstance(f, cls):
                handler = h
                break
    if handler is None:  # (any other value with call methods: `(a::Float64)(b) = a * b`)
        handler = _jvp_struct_call
    return handler(interp, f, df, args, dargs, kwargs, dkwargs)


def user_frule(interp: Interpreter, f: Any, args: list, ds: tuple) -> Any:
    return frule_for(interp, f, args, ds)


def _jvp_generic(interp: Interpreter, f: GenericFunction, df: Any, args: list, dargs: list,
                 kwargs: dict | None, dkwargs: dict | None) -> tuple:
    m = f.dispatch([typeof(a) for a in args])
    if m.fn is None:
        p = m.prim or getattr(f, "fallback_prim", None)
        if p is None:
            raise ZylaError("AD error", f"no forward rule for the built-in method of {f.name}")
        return jvp_call(interp, p, None, args, dargs, kwargs, dkwargs)
    return _run_jvp(interp, m.fn, [], [], args, dargs, kwargs, dkwargs)


def _jvp_closure(interp: Interpreter, f: Closure, df: Any, args: list, dargs: list,
                 kwargs: dict | None, dkwargs: dict | None) -> tuple:
    fn = f.fn
    if f.generic is not None:
        fn = f.generic.dispatch([typeof(a) for a in args]).fn
    dcaps = _capture_tangents(len(f.captures), df)
    return _run_jvp(interp, fn, list(f.captures), dcaps, args, dargs, kwargs, dkwargs)


def _jvp_type(interp: Interpreter, f: V.JType, df: Any, args: list, dargs: list,
              kwargs: dict | None, dkwargs: dict | None) -> tuple:
    m = interp.rt.constructor_method(f, args)
    if m is not None and m.fn is not None:
        return _run_jvp(interp, m.fn, [], [], args, dargs, kwargs, dkwargs)
    y = interp.call_value(f, args, kwargs)
    if f.is_struct:
        names = tuple(y.type.fields) if isinstance(y, V.StructValue) else ()
        if len(names) == len(dargs):
            return y, V.NamedTuple(names, tuple(dargs))
        return y, None
    if f in V.JTYPE_TO_DTYPE and len(args) == 1:
        return y, _convert_tangent(y, dargs[0])
    if not all(_is_zero(d) for d in dargs) and nondiff_may_drop(f.name, y, args):
        raise ZylaError("AD error", f"constructing a {V.type_name(f)} from values with "
                        "tangents has no forward-mode rule")
    return y, None


def _convert_tangent(y: Any, d: Any) -> Any:
    """The tangent of a conversion to y's type: d in y's float type, or nothing."""
    dt = N.dtype_of(y)
    if d is None or np.dtype(dt).kind != "f":
        return None
    return N.cast(d, dt, np) if not hasattr(d, "aval") else d.astype(dt)


def _jvp_struct_call(interp: Interpreter, f: Any, df: Any, args: list, dargs: list,
                     kwargs: dict | None, dkwargs: dict | None) -> tuple:
    m = F.call_methods(f).dispatch([typeof(a) for a in [f] + list(args)])
    return _run_jvp(interp, m.fn, [], [], [f] + list(args), [df] + list(dargs), kwargs, dkwargs)


def _jvp_primitive(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
                   kwargs: dict | None, dkwargs: dict | None) -> tuple:
    src = p.forward
    if src == NONDIFF:
        y = interp.call_primitive(p, args, kwargs)
        if not all(_is_zero(d) for d in dargs) and nondiff_may_drop(p.name, y, args):
            raise ZylaError("AD error", f"`{p.name}` has no derivative rule, and a tangent "
                            "flows into it (forward mode)")
        return y, None
    if src == NOFORWARD or not src:
        raise ZylaError("AD error", f"`{p.name}` has no forward-mode rule (forward mode, `jvp`, "
                        "`hessian`); use reverse mode (`gradient`, `hessian_reverse`) for it")
    y = interp.call_primitive(p, args, kwargs)
    rule = _forward_rule(interp, p, False)
    d = tuple(zero_tangent(a) if dd is None else dd for a, dd in zip(args, dargs, strict=False))
    return y, interp.call_value(rule, [d, y] + list(args), kwargs)


def _jvp_branch_union(interp: Interpreter, f: Any, df: Any, args: list, dargs: list,
                      kwargs: dict | None, dkwargs: dict | None) -> tuple:
    """Calling one of several closures chosen at run time (in XLA): a switch over the
    alternatives, each with its own tangent closure."""
    dalts = df.alts if isinstance(df, BranchUnion) else [
        df if isinstance(df, Closure) and isinstance(a, Closure) and df.fn is a.fn else None
        for a in f.alts]
    return tuple(interp.switch(f.index, [
        lambda a=a, da=da: tuple(jvp_call(interp, a, da, args, dargs, kwargs, dkwargs))
        for a, da in zip(f.alts, dalts, strict=False)]))


def _jvp_pycallable(interp: Interpreter, f: PyCallable, *rest: Any) -> tuple:
    raise ZylaError("AD error", f"forward mode cannot differentiate through `{f.name}` (a host "
                    "pullback of broadcasting a general function); differentiate the function "
                    "itself instead")


_CALLEE_KINDS: dict[type, Any] = {
    GenericFunction: _jvp_generic,
    Closure: _jvp_closure,
    Primitive: _jvp_primitive,
    V.StructValue: _jvp_struct_call,
    PyCallable: _jvp_pycallable,
}
_CALLEE_BASES: list[tuple[type, Any]] = [(V.JType, _jvp_type), (GenericFunction, _jvp_generic),
                                         (Closure, _jvp_closure)]


def _register_branch_union() -> None:
    _CALLEE_KINDS[BranchUnion] = _jvp_branch_union


# --- the AD built-ins, differentiated in forward mode ----------------------------------------


def _jvp_pullback_call(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
                       kwargs: dict | None) -> tuple:
    """`Core.pullback_call(g, xs...)` returns `(y, B)`: it runs g's reverse-mode forward
    function, so its tangent is that function's tangent (forward-over-reverse)."""
    g, xs = args[0], list(args[1:])
    fwd = receiver_forward(g, xs)
    if fwd is not None:  # a callable struct: its method's forward, the struct its first argument
        return _run_jvp(interp, fwd, [], [], [g] + xs, list(dargs), kwargs, None)
    h = forward_callable(interp, g, xs)
    dh = dargs[0] if isinstance(g, Closure) else None
    return jvp_call(interp, h, dh, xs, list(dargs[1:]), kwargs)


def _jvp_back(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
              kwargs: dict | None) -> tuple:
    """`Core.back(B, dy)` calls the pullback B unless dy is zero."""
    b, dy = args
    if _is_zero(dy):
        return None, None
    return jvp_call(interp, b, dargs[0], [dy], [dargs[1]])


def _jvp_checkpointed(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
                      kwargs: dict | None) -> tuple:
    # forward mode keeps no residuals: a checkpointed call is a plain call
    return jvp_call(interp, args[0], dargs[0], list(args[1:]), list(dargs[1:]), kwargs)


def _jvp_broadcast(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
                   kwargs: dict | None) -> tuple:
    """`broadcast(f, xs...)`: an elementwise primitive's forward rule (written with dotted
    operators, it broadcasts itself), a conversion, or, for a general function, the
    tangent broadcast elementwise through `Core.jvp_call`."""
    f, xs, dxs = args[0], list(args[1:]), list(dargs[1:])
    y = interp.call_primitive(p, args, kwargs)
    ep = elementwise_primitive(f, xs)
    if ep is not None:
        if ep.forward == NONDIFF:
            return y, None
        rule = _forward_rule(interp, ep, True)
        d = tuple(zero_tangent(a) if dd is None else dd for a, dd in zip(xs, dxs, strict=False))
        return y, interp.call_value(rule, [d, y] + xs)
    if isinstance(f, V.JType) and f in V.JTYPE_TO_DTYPE and len(xs) == 1:
        return y, _convert_tangent(y, dxs[0])
    d = [zero_tangent(a) if dd is None else dd for a, dd in zip(xs, dxs, strict=False)]
    if any(dd is None and not is_zero(a) for a, dd in zip(xs, d, strict=False)):
        raise ZylaError("AD error", "forward mode cannot broadcast a general function over "
                        "non-numeric arguments with tangents")
    helper = interp.rt.lookup("Core.fwd_bcast_tangent")
    return y, interp.call_value(helper, [f, dargs[0], len(xs)] + xs + d)


def _jvp_with_rng(interp: Interpreter, p: Primitive, df: Any, args: list, dargs: list,
                  kwargs: dict | None) -> tuple:
    # f's forward mode, drawing from the snapshot (compiled: the interpreter's scope)

    scope = getattr(interp, "rng_scope", host_rng_scope)
    with scope(args[0]):
        return jvp_call(interp, args[1], dargs[1], list(args[2:]), list(dargs[2:]), kwargs)


_SPECIAL_CALLEES: dict[str, Any] = {
    "Core.pullback_call": _jvp_pullback_call,
    "Core.back": _jvp_back,
    "checkpointed": _jvp_checkpointed,
    "Core.with_rng": _jvp_with_rng,
    "broadcast": _jvp_broadcast,
}


# --- compiled forward rules ------------------------------------------------------------------

# Forward rules used when an elementwise primitive is broadcast, where they differ from its
# own rule (`*` on arrays is matmul, `.*` is elementwise).
BCAST_FORWARD = {
    "*": "(d, z, x, y) -> d[1] .* y .+ x .* d[2]",
    "/": "(d, z, x, y) -> (d[1] .- z .* d[2]) ./ y",
    "^": "(d, z, x, p) -> Core.pow_bcast_fwd(d[1], d[2], z, x, p)",
    "max": "(d, z, x, y) -> ifelse.(x .>= y, d[1], d[2])",
    "min": "(d, z, x, y) -> ifelse.(x .<= y, d[1], d[2])",
    "+": "(d, z, xs...) -> Core.fwd_bcast_sum(d...)",
    "-": "(d, z, x, y...) -> length(y) == 0 ? -d[1] : d[1] .- d[2]",
}


def _forward_rule(interp: Interpreter, p: Primitive, bcast: bool) -> Any:
    rt = interp.rt
    cache = rt.__dict__.setdefault("forward_rules", {})
    key = (p.name, bcast)
    r = cache.get(key)
    if r is None:
        src = (BCAST_FORWARD.get(p.name) if bcast else None) or p.forward
        if src in FORWARD_MARKERS:
            raise ZylaError("AD error", f"`{p.name}` has no forward-mode rule")
        was = rt.loading_base
        rt.loading_base = True
        try:
            r = rt.run_source(src, "<frule>")
        finally:
            rt.loading_base = was
        cache[key] = r
    return r


# --- op handlers -----------------------------------------------------------------------------


def _gather(self: Interpreter, op: Op, env: dict,
            start: int) -> tuple[list, list, dict | None, dict | None]:
    """Primal and tangent arguments of an `fcall`/`fcallv` (primal operands from `start`
    up to attrs n, their tangents after), with keywords and splats expanded alike."""
    n = op.attrs["n"]
    vals = [env[v.id] for v in op.operands[start:n]]
    tans = [env[v.id] for v in op.operands[n + start:]]
    kw = op.attrs.get("kw") or ()
    kwargs = dkwargs = None
    if kw:
        k0 = len(vals) - len(kw)
        kwargs, dkwargs = {}, {}
        for k, v, dv in zip(kw, vals[k0:], tans[k0:], strict=False):
            if k == "...":
                names = list(v.names) if isinstance(v, V.NamedTuple) else [str(x) for x in dict(v)]
                pv = list(v.values) if isinstance(v, V.NamedTuple) else list(dict(v).values())
                kwargs.update(zip(names, pv, strict=False))
                dkwargs.update(zip(names, _capture_tangents(len(names), dv), strict=False))
            else:
                kwargs[k] = v
                dkwargs[k] = dv
        vals, tans = vals[:k0], tans[:k0]
    splat = op.attrs.get("splat") or ()
    if splat:
        pv: list = []
        tv: list = []
        for i, (v, dv) in enumerate(zip(vals, tans, strict=False)):
            if i + start in splat:
                items = self.rt.iterate_all(v)
                pv.extend(items)
                if isinstance(dv, (tuple, list)):
                    tv.extend(dv)
                elif isinstance(dv, V.NamedTuple):
                    tv.extend(dv.values)
                elif dv is None:
                    tv.extend([None] * len(items))
                else:
                    tv.extend(self.rt.iterate_all(dv))
            else:
                pv.append(v)
                tv.append(dv)
        vals, tans = pv, tv
    return vals, tans, kwargs, dkwargs


def op_fcall(self: Interpreter, op: Op, env: dict, fn: Function) -> Any:
    f = self.rt.lookup(op.attrs["fn"])
    args, dargs, kwargs, dkwargs = _gather(self, op, env, 0)
    return jvp_call(self, f, None, args, dargs, kwargs, dkwargs)


def op_fcallv(self: Interpreter, op: Op, env: dict, fn: Function) -> Any:
    n = op.attrs["n"]
    f, df = env[op.operands[0].id], env[op.operands[n].id]
    args, dargs, kwargs, dkwargs = _gather(self, op, env, 1)
    return jvp_call(self, f, df, args, dargs, kwargs, dkwargs)


OP_HANDLERS["fcall"] = op_fcall
OP_HANDLERS["fcallv"] = op_fcallv


def _verify_fcall(callee_operand: bool) -> Any:
    """The IR verifier's rule for `fcall` (callee_operand False) / `fcallv` ops: attrs n
    primal operands, then as many tangents; results (y, dy); fcall names its callee."""

    def rule(op: Op) -> str:
        n = op.attrs.get("n")
        if not isinstance(n, int) or len(op.operands) != 2 * n:
            return f"expected attrs n with 2n operands (primals, then tangents), got n={n!r}"
        if n < int(callee_operand):
            return "fcallv needs the callee as its first operand"
        if len(op.results) != 2:
            return f"expected 2 results (value, tangent), got {len(op.results)}"
        if not callee_operand and not isinstance(op.attrs.get("fn"), str):
            return "attrs fn must be a string"
        return ""

    return rule


def _register_verifier_rules() -> None:
    OP_RULES["fcall"] = _verify_fcall(False)
    OP_RULES["fcallv"] = _verify_fcall(True)


_register_verifier_rules()


# --- primitives of the transform's own plumbing ----------------------------------------------


def fwd_isunset(x: Any) -> bool:
    """Whether an optional/keyword parameter was left to its default."""
    return x is UNSET


def fwd_part(pair: tuple, k: int) -> Any:
    """The k-th element of a (primal, tangent) pair made by `Core.fwd_zip`."""
    return pair[k - 1]


def _items(t: Any, n: int) -> list:
    if isinstance(t, Tape):
        return list(t.items)
    if isinstance(t, tuple):
        return list(t)
    return [None] * n


def fwd_zip_host(rt_iter: Any, it: Any, dit: Any) -> Any:
    """What a loop over `it` with tangent `dit` iterates: (element, tangent) pairs."""
    if isinstance(it, Tape):
        return Tape(list(zip(it.items, _items(dit, len(it.items)), strict=False)))
    if isinstance(it, tuple):
        return tuple(zip(it, _items(dit, len(it)), strict=False))
    xs = rt_iter(it)
    ds = [None] * len(xs) if dit is None else rt_iter(dit)
    return Tape(list(zip(xs, ds, strict=False)))


def fwd_zip_jax(it: Any, dit: Any) -> Any:
    """`Core.fwd_zip` inside XLA: tapes and arrays become one stacked tape of pairs."""
    if isinstance(it, (Tape, tuple)):
        return fwd_zip_host(current.runtime().iterate_all, it, dit)
    if isinstance(it, StackedTape):
        if isinstance(dit, StackedTape):
            return StackedTape(("tuple", (it.skel, dit.skel)), list(it.leaves) + list(dit.leaves),
                               it.count, it.capacity)
        skel = ("tuple", (it.skel, ("const", None)))
        return StackedTape(skel, list(it.leaves), it.count, it.capacity)
    if hasattr(it, "shape") and len(it.shape) > 0:
        import jax.numpy as jnp

        xs = jnp.reshape(jnp.asarray(it), (-1,))
        n = int(xs.shape[0])
        skel = [("num", np.dtype(xs.dtype).str)]
        leaves = [xs]
        if dit is None:
            skel.append(("const", None))
        else:
            ds = jnp.reshape(jnp.asarray(dit), (-1,))
            skel.append(("num", np.dtype(ds.dtype).str))
            leaves.append(ds)
        return StackedTape(("tuple", tuple(skel)), leaves, n, n)
    raise OffloadError("forward mode: cannot compile a loop over a "
                       f"{type(it).__name__} with a tangent")


def fwd_tape_part(t: Any, j: int) -> Any:
    """The tape of the j-th element of each entry of a tape of tuples (a loop of the
    forward-mode transform records its tapes and their tangents as one tape of tuples)."""
    if isinstance(t, Tape):
        return Tape([None if e is None else e[j - 1] for e in t.items])

    if not isinstance(t, StackedTape):
        raise TypeError(f"Core.fwd_tape_part: not a tape: {type(t).__name__}")
    if t.skel[0] != "tuple" or j > len(t.skel[1]):
        return StackedTape(("const", None), [], t.count, t.capacity)
    parts = t.skel[1]
    off = sum(leaf_count(p) for p in parts[: j - 1])
    k = leaf_count(parts[j - 1])
    return StackedTape(parts[j - 1], list(t.leaves[off:off + k]), t.count, t.capacity)


def tangent_out(y: Any, dy: Any) -> Any:
    """The tangent `jvp` returns: a zero like y for `nothing`, tangent closures shown as
    NamedTuples of their captures, NoTangent/ZeroTangent as `nothing`, a complex number's
    `(re, im)` as a complex number (as ChainRules' frules give it; also inside arrays,
    tuples and structs)."""
    if dy is None and y is not None:
        z = zero_tangent(y)
        return None if isinstance(z, bool) else z
    if isinstance(dy, Closure) and isinstance(y, Closure):
        names = tuple(y.fn.params[: y.fn.ncaptures])
        return V.NamedTuple(names, tuple(dy.captures))
    return complex_cotangent(y, clean(dy))


# Forward rules of the primitives defined here.
FORWARD: dict[str, str] = {
    "Core.fwd_isunset": NONDIFF,
    # try/catch is differentiated in reverse mode only (autodiff.runtime._trycatch_pullback)
    "Core.trycatch": NOFORWARD,
    # built-ins that pass values through (autodiff.runtime._PASS_THROUGH)
    "typeassert": "(d, z, x, T) -> d[1]",
    "Core.deepcopy": "(d, z, x) -> d[1]",
    "=>": NOFORWARD,
    "promote": NOFORWARD,
    "values": NOFORWARD,
    "get": NOFORWARD,
    "Core.hook": NOFORWARD,
    "Dict": NOFORWARD,
    # forward mode over forward mode is not supported: the transform's own plumbing has
    # no forward rules (the transform rejects `fcall` ops before reaching them)
    "Core.fwd_part": NOFORWARD,
    "Core.fwd_zip": NOFORWARD,
    "Core.fwd_tape_part": NOFORWARD,
    "Core.jvp_call": NOFORWARD,
    "Core.tangent_out": NOFORWARD,
    # iterating over `zip`/`enumerate` differentiates in reverse mode (autodiff.runtime);
    # forward mode through them is a clear error for now, not a zero tangent
    "zip": NOFORWARD,
    "enumerate": NOFORWARD,
}


def install(rt: Any) -> None:
    """Register the forward-mode primitives and attach every table's forward rules."""
    b = rt.builtins

    def plain(name: str, host: Any, jax: Any, pullback: str = NONDIFF,
              interp: bool = False) -> None:
        b[name] = prim(name, host, jax, pullback, INFER_BY_LOWERING, needs_interp=interp)

    # (no pullbacks: reverse mode over forward mode stops earlier, at the `fcall` op)
    plain("Core.fwd_isunset", fwd_isunset, fwd_isunset)
    plain("Core.fwd_part", fwd_part, fwd_part)
    plain("Core.fwd_zip", lambda x, d: fwd_zip_host(rt.iterate_all, x, d), fwd_zip_jax)
    plain("Core.fwd_tape_part", fwd_tape_part, fwd_tape_part)

    def jvp_prim(it: Interpreter, f: Any, df: Any, n: int, *xs: Any) -> tuple:
        return jvp_call(it, f, df, list(xs[:n]), list(xs[n:]))

    # reverse mode over forward mode is not supported: a clear error, not a zero gradient
    plain("Core.jvp_call", jvp_prim, jvp_prim, SPECIAL, interp=True)
    plain("Core.tangent_out", tangent_out, tangent_out)

    for table in (primitives.FORWARD, primitives_array.FORWARD, primitives_base.FORWARD,
                  primitives_nn.FORWARD, primitives_nest.FORWARD, rules.FORWARD, FORWARD):
        for name, src in table.items():
            p = PRIMITIVES.get(name)
            if p is not None:
                p.forward = src
    _register_branch_union()
    _ = HostOnly
