"""Run-time side of reverse mode: the pullback dispatcher and cotangent algebra.

`pullback_call(interp, f, args, kwargs)` returns `(y, B)` for any callable, choosing how to
differentiate it the way a call chooses a method:

1. a user `ChainRulesCore.rrule(::typeof(f), args...)` method, if one applies (user rules
   win over built-in ones);
2. a primitive: its rule from the primitive table (Zyla source, compiled once);
3. a method or closure with an IR body: the body's forward function (autodiff.reverse);
4. a struct constructor, a callable struct, and the AD built-ins themselves
   (`Core.back`, `Core.pullback_call`), which makes nested AD work: differentiating
   `gradient` differentiates the forward and adjoint IR it runs.

Cotangents: `nothing` is the zero; tuples, NamedTuples and arrays add structurally
(`Core.accum`). `NoTangent()`/`ZeroTangent()` from ChainRules normalise to `nothing`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from autodiff.reverse import ADError, forward
from autodiff.rules import getindex_back
from grammar.errors import ZylaError
from lang.core import current
from lang.core import functions as F
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins import _check_broadcast, ref_call, unref_args
from lang.core.builtins_dict import JDict
from lang.core.builtins_iter import LazyIter
from lang.core.builtins_mutate import mutates_array
from lang.core.complexes import complex_cotangent, is_complex
from lang.core.eltypes import recorded, tag
from lang.core.functions import Closure, GenericFunction, PyCallable, elementwise_primitive, typeof
from lang.core.interp import OP_HANDLERS, Interpreter, Tape
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    PRIMITIVES,
    HostOnly,
    Primitive,
    _jx,
    as_array,
    is_array,
    plus,
    prim,
    unbroadcast,
)
from lang.core.primitives_array import MUTATING, collect_results

_INPLACE = {"setindex!", "Core.setindex_broadcast!", "Core.broadcast_assign!", "push!", "append!",
            "pop!"}

# Rules used when a primitive is broadcast, where they differ from its own rule
# (`*` on arrays is matmul, `.*` is elementwise).
BCAST_RULES = {
    "*": "(dz, z, x, y) -> (dz .* y, dz .* x)",
    "/": "(dz, z, x, y) -> (dz ./ y, -dz .* z ./ y)",
    "^": "(dz, z, x, p) -> Core.pow_bcast_back(dz, z, x, p)",
    "max": "(dz, z, x, y) -> (dz .* (x .>= y), dz .* (x .< y))",
    "min": "(dz, z, x, y) -> (dz .* (x .<= y), dz .* (x .> y))",
}


class _NoTangent:
    def jl_show(self) -> str:
        return "NoTangent()"


NO_TANGENT = _NoTangent()


class BoxTrail:
    """The reads (`Core.unbox`) and writes (`Core.box`, `Core.setbox`) of one Box in one
    forward pass, in order, and the cotangent of its contents while a backward pass walks
    them in reverse: a read adds the cotangent of the value it read, a write hands the
    cotangent gathered since to the value it wrote and starts again from zero. So a
    closure that reassigns a captured variable (`acc += x`) is differentiated like a
    loop-carried variable. A write's pullback always runs (autodiff.reverse: EFFECT_CALLS),
    but a write inside a call whose result takes no cotangent is skipped with that call:
    a cotangent that reaches such a write is refused, never dropped (`settle`)."""

    __slots__ = ("box", "writes", "cot", "pos", "version")

    def __init__(self, box: V.Box, version: int) -> None:
        self.box = box  # (kept alive, so that its id is not reused in the pass)
        self.writes: list[bool] = []  # per access: a write?
        self.cot: Any = None
        self.pos = 0  # the accesses from pos on have been walked in this backward pass
        self.version = version  # the box's version after the last access recorded

    def record(self, write: bool, version: int) -> int:
        """Record an access of the forward pass to the box at `version` (before the
        access); returns its index. A write made since the last access without AD (by
        code that a built-in ran) is recorded as a write whose pullback never runs."""
        if version != self.version:
            self.writes.append(True)
        self.writes.append(write)
        self.pos = len(self.writes)
        self.version = self.box.version
        return len(self.writes) - 1

    def settle(self, k: int) -> None:
        """Walk back to access k (exclusive): the accesses skipped since the last one
        walked read nothing, but a skipped write with a cotangent waiting would lose it."""
        if k >= self.pos:
            raise ZylaError("AD error", "the pullbacks of a closure that reassigns a captured "
                            "variable ran out of order (a pullback called twice, or a "
                            "broadcast over such a closure)")
        if not _deep_zero(self.cot) and any(self.writes[k + 1:self.pos]):
            raise ZylaError("AD error", "differentiating through a variable that a closure "
                            "reassigns is not supported where reverse mode does not follow "
                            "the write (in a call whose result is not used, or one that a "
                            "built-in such as `foreach` makes): its gradient would be lost",
                            hint="use the call's result, or accumulate with a loop instead")
        self.pos = k

    def read_back(self, k: int, dz: Any) -> None:
        """The pullback of read k: its cotangent is added to the contents'."""
        self.settle(k)
        self.cot = accum(self.cot, dz)

    def write_back(self, k: int) -> Any:
        """The pullback of write k: the cotangent of the value written."""
        self.settle(k)
        d, self.cot = self.cot, None
        return d

    def end_pass(self) -> None:
        """The backward pass is over: the accesses it skipped are settled (what the first
        accesses read from before the pass, a box made outside it, takes no cotangent),
        and the trail is ready for another pass."""
        self.settle(-1)
        self.pos, self.cot = len(self.writes), None


def box_pass_end(g: Any, trails: tuple) -> Any:
    """`Core.box_pass_end(g, trails)`: end a backward pass over boxes; returns g."""
    for t in trails:
        t.end_pass()
    return g


class ADState:
    """Compiled rules and helper closures, per runtime."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.rules: dict[str, Any] = {}
        self.bcast_rules: dict[str, Any] = {}
        self.helpers: dict[str, Any] = {}
        # Arrays that a functionalised write superseded (`y = Core.setindex_fn(x, ...)`
        # writes into a copy under AD), by id, kept alive so that no id is reused: a
        # later primal read of one is a read through an alias (`w = v; w[1] = 0; sum(v)`),
        # which would see the unwritten values, so it is refused (`check_reads`). One
        # scope per forward pass: a backward pass (Core.back) starts its own, since its
        # rules read the superseded arrays as residuals.
        self.stale: dict[int, tuple[Any, tuple]] = {}
        self.depth = 0  # nesting of pullback_call; the scope ends when it returns to 0
        # Where a trace is (compiled code traces both branches of an `if`, and some
        # regions twice): a write in one branch does not supersede the array for the
        # other, only for what runs inside or after it (see `trace_branch`).
        self.path: tuple = ()
        self.branches = 0
        # The boxes (captured variables a closure reassigns) the forward pass reads and
        # writes, by id: one BoxTrail each, handed to the pass's pullback (see _box_pullback).
        self.trails: dict[int, BoxTrail] = {}

    def supersede(self, x: Any) -> None:
        self.stale[id(x)] = (x, self.path)

    def _superseded(self, a: Any) -> bool:
        m = self.stale.get(id(a))
        if m is None:
            return False
        n = min(len(m[1]), len(self.path))
        return m[1][:n] == self.path[:n]  # not in a sibling branch

    def check_reads(self, what: str, args: Any, kwargs: dict | None = None) -> None:
        vals = list(args) + list((kwargs or {}).values())
        for a in vals:
            if self._superseded(a) or type(a) is tuple and any(map(self._superseded, a)):
                raise ZylaError(
                    "AD error", f"{what} reads an array (or Dict) after a write into it "
                    "through another name (an alias, e.g. `w = v; w[1] = x; sum(v)`, or a "
                    "callee's write into its argument); reverse-mode AD functionalises writes "
                    "to local arrays, so the alias would see the unwritten values",
                    hint="write through one name only, or copy first (w = copy(v)) and use w")

    def compile_rule(self, src: str) -> Any:
        return self.rt.run_source(src, "<rule>")

    def rule(self, p: Primitive, bcast: bool = False) -> Any:
        table = self.bcast_rules if bcast else self.rules
        r = table.get(p.name)
        if r is None:
            src = BCAST_RULES.get(p.name) if bcast else None
            src = src or p.pullback
            if src == NONDIFF:
                src = "(dz, z, xs...) -> map(x -> nothing, xs)"
            elif src in ("SPECIAL", "BROADCAST", "NAMEDTUPLE"):
                raise ZylaError("AD error", f"`{p.name}` has no rule for nested differentiation")
            was = self.rt.loading_base
            self.rt.loading_base = True
            try:
                r = self.compile_rule(src)
            finally:
                self.rt.loading_base = was
            table[p.name] = r
        return r

    def helper(self, name: str) -> Any:
        h = self.helpers.get(name)
        if h is None:
            h = self.helpers[name] = self.rt.lookup(name)
        return h


def _state(interp: Interpreter) -> ADState:
    rt = interp.rt
    st = getattr(rt, "ad", None)
    if st is None:
        st = rt.ad = ADState(rt)
    return st


def _make_closure(interp: Interpreter, helper: str, *args: Any) -> Any:
    """Call a Zyla helper that returns a pullback closure."""
    return interp.call_value(_state(interp).helper(helper), list(args))


# --- the dispatcher ------------------------------------------------------------------------------


def pullback_call(interp: Interpreter, f: Any, args: list,
                  kwargs: dict | None = None) -> tuple[Any, Any]:
    """`(y, B)` for the call f(args...; kwargs...), choosing how to differentiate it
    (see the module docstring)."""
    st = _state(interp)
    st.depth += 1
    try:
        y, b = _pullback_call(interp, st, f, args, kwargs)
        if st.depth == 1 and st.stale:  # the differentiated function's own result
            st.check_reads("the differentiated function's result", (y,))
        if st.depth == 1 and st.trails:  # the pass ends with its boxes' cotangents settled
            b = _make_closure(interp, "Core.box_pass_back", b, tuple(st.trails.values()))
        return y, b
    finally:
        st.depth -= 1
        if not st.depth:
            st.stale.clear()
            st.trails.clear()


def _pullback_call(interp: Interpreter, st: ADState, f: Any, args: list,
                   kwargs: dict | None) -> tuple[Any, Any]:
    rt = interp.rt
    if f is _BACK or (isinstance(f, Primitive) and f.name == "Core.back"):
        b, dy = args
        if _is_zero(dy):
            return None, _make_closure(interp, "Core.zero_back", 2)
        saved, st.stale = st.stale, {}  # (a backward pass: it reads residuals, see back_call)
        try:
            y, bb = pullback_call(interp, b, [dy])
        finally:
            st.stale = saved
        return y, _make_closure(interp, "Core.back_back", bb)
    if isinstance(f, Primitive) and f.name == "Core.pullback_call":
        g, *rest = args
        fwd = forward_callable(interp, g, rest)
        y, bb = pullback_call(interp, fwd, rest, kwargs)
        return y, _make_closure(interp, "Core.shift_back", bb)
    custom = _user_rrule(interp, f, args)
    if custom is not None:
        y, pb = interp.call_value(custom, [f] + list(args), kwargs)
        return y, _make_closure(interp, "Core.rrule_back", pb, y)
    if isinstance(f, GenericFunction):
        m = f.dispatch([typeof(a) for a in args])
        if m.impl is not None:
            p = getattr(f, "fallback_prim", None)
            if p is None:
                raise ZylaError("MethodError", f"no derivative for built-in method of {f.name}")
            return pullback_call(interp, p, args, kwargs)
        fwd = _forward_fn(m.fn)
        bound = interp.bind_args(m.fn, [], args, kwargs)
        return interp.run_function(fwd, bound)
    if isinstance(f, Closure):
        fn = f.fn
        if f.generic is not None:
            fn = f.generic.dispatch([typeof(a) for a in args]).fn
        fwd = _forward_fn(fn)
        bound = interp.bind_args(fn, list(f.captures), args, kwargs)
        return interp.run_function(fwd, bound)
    if isinstance(f, Primitive):
        special = _SPECIAL_PULLBACKS.get(f.name)
        if special is not None:
            return special(interp, f, args, kwargs)
        return _prim_pullback(interp, st, f, args, kwargs)
    if isinstance(f, V.JType):
        m = rt.constructor_method(f, args)
        if m is not None and m.fn is not None:
            return interp.run_function(_forward_fn(m.fn), interp.bind_args(m.fn, [], args, kwargs))
        y = interp.call_value(f, args, kwargs)
        if f.is_struct:
            return y, _make_closure(interp, "Core.struct_back", len(args))
        if f in V.JTYPE_TO_DTYPE and len(args) == 1:
            return y, _make_closure(interp, "Core.convert_back", args[0])
        back = _TYPE_BACKS.get(f.name)
        if back is not None:
            return y, _make_closure(interp, back, tuple(args))
        if isinstance(y, V.NamedTuple) and len(args) == 1:  # NamedTuple{names}(vals)
            return y, _make_closure(interp, "Core.nt_ctor_pb", y, args[0])
        if nondiff_may_drop(f.name, y, args):  # (a conversion without a rule)
            return y, _make_closure(interp, "Core.nondiff_back", V.type_name(f), len(args) + 1)
        return y, _make_closure(interp, "Core.zero_back", len(args) + 1)
    if isinstance(f, PyCallable):
        raise ZylaError("AD error", f"cannot differentiate through `{f.name}` (a host-side "
                        "pullback): nested AD of broadcasting a non-primitive function is not "
                        "supported yet")
    # a callable struct, or any value with call methods (`(a::Float64)(b) = a * b`)
    m = F.call_methods(f).dispatch([typeof(a) for a in [f] + list(args)])
    if m.fn is None:
        raise ZylaError("MethodError", f"cannot differentiate a call of {V.type_name(typeof(f))}")
    fwd = _forward_fn(m.fn)
    bound = interp.bind_args(m.fn, [], [f] + list(args), kwargs)
    return interp.run_function(fwd, bound)


_BACK = object()


# Built-ins without a derivative rule whose float results do have a zero derivative (or
# are AD's own plumbing): a cotangent reaching them is dropped. Any other built-in without
# a rule that makes floats from floats refuses a cotangent that is not zero
# (`nondiff_may_drop`), since dropping it would be a wrong gradient, not a missing one.
ZERO_DERIVATIVE = frozenset({
    "round", "floor", "ceil", "trunc", "sign", "eps", "zero", "one", "oneunit", "zeros",
    "ones", "similar", "rand", "randn", "randexp", "floatmax", "floatmin", "maxintfloat", "typemax",
    "typemin", "time", "ignore_derivatives", "Core.onehot_like", "Core.sensitivity",
    "Core.elapsed_since", "Core.time_start", "Core.time_report", "Core.compile_clock",
    "NNlib.dropout_mask",
    "NNlib.leakyrelu_deriv", "NNlib.within_gradient", "NNlib.getmode", "NNlib.modecell",
    "NNlib.setmode!", "NNlib.write_stats!", "Core.chol_mask", "Core.tri_mask",
    "Core.eig_gaps", "Core.rng_snapshot", "Core.is_zero_cot", "Core.rule_of",
    "Core.opt_commit!", "Core.opt_gather", "Core.setup", "Core.struct_fields_cot",
    "Core.tape_unzip", "Core.iter_cot_back", "Core.zip_back", "Core.enumerate_back",
    "Core.tangent_out", "Core.segment_length", "Core.bcast_rule_of",
    "Core.onehotbatch", "Core.nest_ok", "Core.nest_affine",
    "Core.fwd_isunset", "Core.fwd_part", "Core.fwd_tape_part", "Core.fwd_zip",
    "Core.hostref", "Core.hostref_get", "Random.seed!", "randperm", "GradCheck.check",
    "GradCheck.property", "Core.load_dataset", "Core.load_values", "Core.undef_local",
    "Core.undef_keyword", "Core.static_param", "isapprox", "hash", "Core.isequal",
})


def _carries_float(x: Any, depth: int = 0) -> bool:
    """Whether a value holds (non-integer) numbers a gradient could flow through."""
    if isinstance(x, (bool, int, str, np.integer, np.bool_)) or x is None or depth > 4:
        return False
    if isinstance(x, (float, complex, np.floating, np.complexfloating)):
        return True
    d = getattr(x, "dtype", None)
    if d is not None:
        k = np.dtype(d).kind
        return k in "fc" or k == "O" and any(_carries_float(e, depth + 1)
                                            for e in np.asarray(x).reshape(-1)[:64])
    if isinstance(x, (tuple, list)):
        return any(_carries_float(e, depth + 1) for e in x)
    if isinstance(x, V.NamedTuple):
        return any(_carries_float(e, depth + 1) for e in x.values)
    if isinstance(x, V.StructValue):
        return any(_carries_float(e, depth + 1) for e in x.fields)
    if isinstance(x, dict):
        return any(_carries_float(e, depth + 1) for e in x.values())
    if isinstance(x, V.Range):
        return _carries_float(x.start, depth + 1)
    if isinstance(x, Closure):  # (a Generator's function: the values it captured)
        return any(_carries_float(c, depth + 1) for c in x.captures)
    if isinstance(x, V.Box):
        return _carries_float(x.value, depth + 1)
    return isinstance(x, LazyIter)  # (its elements are made on demand: maybe floats)


def nondiff_may_drop(name: str, y: Any, args: Any) -> bool:
    """Would a cotangent of y, the result of the rule-less built-in `name` called on args,
    be a gradient lost (floats in and out, and no zero derivative known)?"""
    return (name not in ZERO_DERIVATIVE and _carries_float(y)
            and any(_carries_float(a) for a in args))


def ad_global_write(name: str, v: Any) -> None:
    """`global x = v` in differentiated code: refused for numbers (see f_setglobal)."""
    if isinstance(v, (int, float, complex, np.number)) and not isinstance(v, (bool, np.bool_)) \
            or _carries_float(v) or getattr(v, "dtype", np.dtype(object)).kind in "iuf":
        raise ZylaError("AD error", f"differentiated code writes a number into the global "
                        f"variable `{name}`; gradients through globals are not supported",
                        hint="pass the value as an argument, or return it, instead")


def nondiff_refused(name: str, dz: Any) -> Any:
    """`Core.nondiff_refused(name, dz)`: nothing for a zero cotangent, else an AD error."""
    if _deep_zero(dz) or _all_zero_array(dz):
        return None
    raise ZylaError("AD error", f"`{name}` has no derivative rule, and the gradient flows "
                    "through its result", hint="compute the value another way, or wrap it in "
                    "ignore_derivatives(...) if its derivative is meant to be zero")


def _all_zero_array(dz: Any) -> bool:
    if type(dz) is np.ndarray and dz.dtype.kind in "fiucb":
        return not dz.any()
    if isinstance(dz, (float, np.floating, int, np.integer)):
        return dz == 0
    return False


def _trycatch_pullback(interp: Interpreter, p: Primitive, args: list,
                       kwargs: dict | None) -> tuple:
    """`try body catch e handler finally fin end` differentiated: the part that ran
    (the body, or the handler if the body threw) is differentiated, through the same
    host primitive (so errors, rethrow and `finally` behave as without AD); its pullback
    gives the cotangent of that part's closure."""
    body, handler, fin = args
    ran: list = []

    def part(k: int, g: Any) -> PyCallable:
        def run(*a: Any) -> Any:
            y, b = pullback_call(interp, g, list(a))
            ran[:] = [k, b]
            return y
        return PyCallable(run, "#try")

    wrapped = [part(1, body), None if handler is None else part(2, handler), fin]
    y = interp.call_primitive(p, wrapped, kwargs)
    k, b = ran
    return y, _make_closure(interp, "Core.trycatch_back", b, k)


def _hook_pullback(interp: Interpreter, p: Primitive, args: list, kwargs: dict | None) -> tuple:
    """`Zygote.hook(f, x)`: x, whose cotangent dx becomes f(dx)."""
    f, x = args
    return x, _make_closure(interp, "Core.hook_back", f)


_SPECIAL_PULLBACKS = {"Core.trycatch": _trycatch_pullback, "Core.hook": _hook_pullback}

# pullbacks of calls of types that are not structs or number types (helpers in ad.jl)
_TYPE_BACKS = {"Dict": "Core.dict_ctor_pb"}

_PASS_THROUGH = {
    "typeassert": "(dz, z, x, T) -> (dz, nothing)",
    "Core.deepcopy": "(dz, z, x) -> (dz,)",
    "=>": "(dz, z, a, b) -> Core.struct_fields_cot(dz, 2)",
    "promote": "(dz, z, xs...) -> Core.promote_back(dz, xs)",
    "values": "(dz, z, x) -> (Core.values_back(dz, x),)",
    "Dict": "(dz, z, ps...) -> Core.dict_ctor_back(dz, ps)",
    "get": "(dz, z, xs...) -> Core.get_back(dz, xs...)",
}
# writes into a Dict (its key's cotangent goes to the value written), before the rules
# for arrays
_DICT_WRITES = {
    "Core.setindex_fn": "x isa AbstractDict ? Core.dict_set_back(dz, i...) : ",
    "Core.push_fn": "x isa AbstractDict ? Core.dict_push_back(dz, i) : ",
}


def _forward_fn(fn: Any) -> Any:
    try:
        return forward(fn)
    except ADError as e:
        raise ZylaError("AD error", f"cannot differentiate `{fn.name}`: {e}", fn.span) from None


def receiver_forward(g: Any, args: list) -> Any:
    """The forward function of the method a callable struct g runs on args (whose first
    parameter is g itself), or None when g is not a callable struct."""
    if not isinstance(g, V.StructValue):
        return None
    try:
        gf = F.call_methods(g)
    except ZylaError:
        return None
    m = gf.dispatch([typeof(a) for a in [g] + list(args)])
    return _forward_fn(m.fn) if m.fn is not None else None


def forward_callable(interp: Interpreter, g: Any, args: list) -> Any:
    """A callable running the forward function of g (for differentiating `pullback_call`)."""
    if isinstance(g, Closure):
        fn = g.fn
        return Closure(_forward_fn(fn), g.captures, fn.name + "#fwd")
    if isinstance(g, GenericFunction):
        if _user_rrule(interp, g, args) is not None:
            return interp.call_value(interp.rt.lookup("Core.rrule_pullback_fn"), [g])
        m = g.dispatch([typeof(a) for a in args])
        if m.fn is not None:
            return Closure(_forward_fn(m.fn), (), g.name + "#fwd")
        if m.prim is not None:
            return forward_callable(interp, m.prim, args)
    if isinstance(g, V.JType):
        return _type_forward(interp, g, args)
    fwd = receiver_forward(g, args)
    if fwd is not None:  # a callable struct (a layer): the struct bound as the first argument
        return Closure(fwd, (g,), V.type_name(g.type) + "#fwd")
    if isinstance(g, Primitive) and g.name == "broadcast":
        if args and isinstance(args[0], V.JType) and args[0] in V.JTYPE_TO_DTYPE:
            return _zyla_helper(interp, "bcast_convert")
        return interp.rt.lookup("Core.bcast_pullback")
    if isinstance(g, Primitive) and g.name == "Core.pullback_call":
        return interp.rt.lookup("Core.pc_fwd")
    if isinstance(g, Primitive) and g.name == "Core.back":
        return _zyla_helper(interp, "back")
    if isinstance(g, Primitive) and g.name in _SPECIAL_FORWARDS:
        return interp.rt.lookup(_SPECIAL_FORWARDS[g.name])
    if isinstance(g, Primitive):
        return interp.call_value(interp.rt.lookup("Core.prim_pullback_fn"), [g])
    return PyCallable(lambda *a: pullback_call(interp, g, list(a)), "pullback")


# primitives whose pullbacks the AD runtime makes itself (_prim_pullback), with the same
# forward written in Zyla (lang/core/stdlib/ad.jl), for differentiating them again
_SPECIAL_FORWARDS = {"checkpointed": "Core.ckpt_fwd", "Core.with_rng": "Core.with_rng_fwd"}


# Forward callables of types (constructors and conversions), written in Zyla so that they
# differentiate again: they return what `pullback_call` returns for a call of the type.
_TYPE_FORWARDS = {
    "struct": "T -> (xs...) -> (T(xs...), Core.struct_back(length(xs)))",
    "convert": "T -> x -> (T(x), Core.convert_back(x))",
    "other": "T -> (xs...) -> (T(xs...), Core.zero_back(length(xs) + 1))",
    # `Core.back(b, dy)` differentiated: like Core.back, a zero dy gives zero without
    # running the pullback (which need not accept `nothing`)
    "back": "(b, dy) -> Core.is_zero_cot(dy) ? (nothing, Core.zero_back(3)) : Core.back_fwd(b, dy)",
    # broadcasting a conversion, `Float64.(v)`
    "bcast_convert": "(T, xs...) -> (broadcast(T, xs...), Core.bcast_convert_back(xs))",
}


def _zyla_helper(interp: Interpreter, kind: str) -> Any:
    """The function `_TYPE_FORWARDS[kind]`, compiled once per runtime."""
    st = _state(interp)
    key = "#type_forward_" + kind
    h = st.helpers.get(key)
    if h is None:
        h = st.helpers[key] = st.compile_rule(_TYPE_FORWARDS[kind])
    return h


def _type_forward(interp: Interpreter, t: V.JType, args: list) -> Any:
    """The forward callable of a call of the type t (for differentiating pullback_call)."""
    m = interp.rt.constructor_method(t, args)
    if m is not None and m.fn is not None:
        return Closure(_forward_fn(m.fn), (), t.name + "#fwd")
    if t.is_struct:
        kind = "struct"
    elif t in V.JTYPE_TO_DTYPE and len(args) == 1:
        kind = "convert"
    else:
        kind = "other"
    return interp.call_value(_zyla_helper(interp, kind), [t])


def _user_rrule(interp: Interpreter, f: Any, args: list) -> Any:
    rr = interp.rt.globals.get("rrule") or interp.rt.builtins.get("rrule")
    if not isinstance(rr, GenericFunction) or not rr.methods:
        return None
    types = [typeof(f)] + [typeof(a) for a in args]
    for m in rr.methods:
        if m.fn is not None and m.sig and m.applicable(types) is not None:
            if isinstance(m.sig[0], V.JType) and m.sig[0] is not V.AnyT:
                return rr
    return None


def builtin_rule_kind(f: Any, *args: Any) -> V.Symbol:
    """`Core.builtin_rule_kind(f, args...)`: whether f(args...) calls a built-in with a
    derivative rule (`:rule`), one whose derivative is zero (`:zero`, `zero`, `round`),
    or neither (`:none`): what ChainRules' `rrule(f, args...)` finds."""
    p = f
    if isinstance(f, GenericFunction):
        try:
            m = f.dispatch([typeof(a) for a in args])
        except ZylaError:
            return V.Symbol("none")
        p = getattr(f, "fallback_prim", None) if m.impl is not None else None
    if not isinstance(p, Primitive):
        return V.Symbol("none")
    if p.pullback != NONDIFF:
        return V.Symbol("rule")
    return V.Symbol("zero" if p.name in ZERO_DERIVATIVE else "none")


def _same_in_jax(f: Any) -> Any:
    """A primitive whose implementation only calls back into the interpreter it runs in."""
    return f


# built-ins that read only what a write cannot change (its type)
_TYPE_ONLY = frozenset({"isa", "typeof", "eltype", "ndims"})
# the pullback helper (lang/core/stdlib/ad.jl) of each access to a Box
_BOX_BACKS = {"Core.box": "Core.box_back", "Core.setbox": "Core.setbox_back",
              "Core.unbox": "Core.unbox_back"}
# how a functionalised write (MUTATING) copies the host value it writes into, under AD
_WRITE_COPY = {np.ndarray: np.copy, JDict: lambda d: JDict(d, d.key_type, d.value_type)}
_FIELD_WRITES = ("setproperty!", "setfield!")


def _box_pullback(interp: Interpreter, st: ADState, p: Primitive, args: list) -> tuple:
    """`(y, B)` for an access to a Box (see BoxTrail): B walks the box's trail."""
    before = args[0].version if p.name != "Core.box" else 0
    y = interp.call_primitive(p, args, None)
    box = y if p.name == "Core.box" else args[0]
    trail = st.trails.get(id(box))
    if trail is None:
        trail = st.trails[id(box)] = BoxTrail(box, before)
    k = trail.record(p.name != "Core.unbox", before)
    return y, _make_closure(interp, _BOX_BACKS[p.name], trail, k)


def _prim_pullback(interp: Interpreter, st: ADState, p: Primitive, args: list,
                   kwargs: dict | None) -> tuple:
    if st.stale and p.name not in _TYPE_ONLY:
        st.check_reads(f"`{p.name}`", args, kwargs)
    if p.name == "broadcast":
        return _broadcast_pullback(interp, st, args, kwargs)
    if p.name in _FIELD_WRITES and type(args[0]) is V.StructValue:
        args[0].ad_written = True  # its fields' cotangents are refused (field_cot)
    if p.name in _BOX_BACKS:
        return _box_pullback(interp, st, p, args)
    if p.pullback == "CHECKPOINT":
        # keep only the inputs now; the backward pass recomputes the forward with AD, drawing
        # the same random numbers (both runs draw from one snapshot of the generator)
        snap = interp.call_primitive(PRIMITIVES["Core.rng_snapshot"], [], None)
        y = interp.call_primitive(PRIMITIVES["Core.with_rng"], [snap] + list(args), kwargs)
        return y, _make_closure(interp, "Core.checkpoint_back", args[0], tuple(args[1:]), snap)
    if p.pullback == "WITH_RNG":
        # Core.with_rng(s, f, args...) differentiated (the backward pass of a checkpoint,
        # differentiated again): f's pullback under the same snapshot
        s, f, rest = args[0], args[1], list(args[2:])
        wr = PRIMITIVES["Core.with_rng"]
        y, b = interp.call_primitive(wr, [s, interp.rt.lookup("Core.pullback_call"), f] + rest,
                                     kwargs)
        return y, _make_closure(interp, "Core.with_rng_back", b)
    residual_args = args
    if p.name in MUTATING and (is_array(args[0]) or type(args[0]) in _WRITE_COPY):
        st.supersede(args[0])  # (a traced array is not written in place: no copy needed)
        copy = _WRITE_COPY.get(type(args[0]))
        if copy is not None:
            # write into a copy: the original stays as it was for the rule (and for any
            # earlier pullback that captured it)
            args = [copy(args[0])] + list(args[1:])
    elif mutates_array(p.name, args):
        raise ZylaError("AD error", f"`{p.name}` mutates an array in place, which reverse-mode "
                        "AD cannot differentiate through",
                        hint="build a new array instead (e.g. map, broadcasting, fill, vcat)")
    elif isinstance(p.jax, HostOnly) and p.name in _INPLACE:
        raise ZylaError("AD error", f"`{p.name}` mutates an array that is not a local variable "
                        "of the "
                        "differentiated code (a global, a field, or a captured variable); Zyla "
                        "functionalises writes to local arrays only",
                        hint="copy the array into a local variable first, e.g. y = copy(x)")
    y = interp.call_primitive(p, args, kwargs)
    if p.pullback == NONDIFF:
        if nondiff_may_drop(p.name, y, args):
            return y, _make_closure(interp, "Core.nondiff_back", p.name, len(args) + 1)
        return y, _make_closure(interp, "Core.zero_back", len(args) + 1)
    if p.pullback == "NAMEDTUPLE":
        return y, _make_closure(interp, "Core.nt_back", tuple((kwargs or {}).keys()), len(args))
    rule = st.rule(p)
    if kwargs:
        kws = V.NamedTuple(tuple(kwargs), tuple(kwargs.values()))
        return y, _make_closure(interp, "Core.primback_kw", rule, y, tuple(residual_args), kws)
    return y, _make_closure(interp, "Core.primback", rule, y, tuple(residual_args))


def _broadcast_pullback(interp: Interpreter, st: ADState, args: list, kwargs: dict | None) -> tuple:
    f, xs = args[0], args[1:]
    unref = unref_args(xs)
    if any(u is not x for u, x in zip(unref, xs, strict=True)):
        return _broadcast_over_refs(interp, st, f, xs, unref, kwargs)
    p = elementwise_primitive(f, xs)
    if p is None and not (isinstance(f, V.JType) and f in V.JTYPE_TO_DTYPE) \
            or p is not None and _has_array_elements(xs):
        # (elements that are arrays, `[v] .* [1, 2, 3]`: each call differentiated by the
        # primitive's own rule, `*` of a vector and a number, not the elementwise one)
        return _broadcast_generic(interp, f, xs, None)
    y = interp.call_primitive(PRIMITIVES["broadcast"], args, kwargs)
    if p is not None:
        if p.pullback == NONDIFF:
            return y, _make_closure(interp, "Core.zero_back", len(args) + 1)
        rule = st.rule(p, bcast=True)
        return y, _make_closure(interp, "Core.bcast_primback", rule, y, tuple(xs))
    if isinstance(f, V.JType) and f in V.JTYPE_TO_DTYPE:
        return y, _make_closure(interp, "Core.bcast_convert_back", tuple(xs))
    return _broadcast_generic(interp, f, xs, None)


def _broadcast_over_refs(interp: Interpreter, st: ADState, f: Any, xs: list, unref: tuple,
                         kwargs: dict | None) -> tuple:
    """A broadcast with `Ref(x)` arguments, as `broadcast` runs it: over the 1-tuples
    `(x,)` (each call sees x, not the Ref), or, with no collection among the arguments,
    the one call on the contents. A Ref's cotangent is `(x = d,)`."""
    isref = tuple(u is not x for u, x in zip(unref, xs, strict=True))
    call = ref_call(xs)
    if call is not None:
        y, b = pullback_call(interp, f, call, kwargs)
        return y, _make_closure(interp, "Core.ref_bcast_back", b, isref, False)
    y, b = _broadcast_pullback(interp, st, [f, *unref], kwargs)
    return y, _make_closure(interp, "Core.ref_bcast_back", b, isref, True)


def _has_array_elements(xs: Any) -> bool:
    """Whether a broadcast argument is an array (or a tuple) holding arrays."""
    for x in xs:
        if type(x) is np.ndarray and x.dtype == object and any(is_array(e) for e in x.flat):
            return True
        if type(x) is tuple and any(is_array(e) for e in x):
            return True
    return False


def _broadcast_generic(interp: Interpreter, f: Any, xs: list, y: Any) -> tuple:
    """Broadcast of an arbitrary function: one pullback per element. The callee's own
    cotangent (a closure's captures) is the sum over elements."""
    # broadcasting over tuples (and scalars) only gives a tuple, as `broadcast` does
    tuples = not any(is_array(x) or isinstance(x, V.Range) for x in xs)
    hook = getattr(interp, "generic_broadcast_pullback", None)
    if hook is not None and not tuples:
        return hook(f, xs)  # (over tuples and scalars only, the loop below does)

    arrs = [as_array(x) for x in xs]
    if not any(is_array(a) for a in arrs):
        yy, b = pullback_call(interp, f, list(arrs))
        return yy, _make_closure(interp, "Core.bcast_scalar_back", b)
    shape = _check_broadcast(tuple(arrs))
    flat = [np.broadcast_to(a, shape).reshape(-1) if is_array(a) else None for a in arrs]
    n = int(np.prod(shape)) if shape else 1
    backs = []
    ys = []
    for k in range(n):
        el = [N.host_scalar(fl[k]) if fl is not None else a
              for a, fl in zip(arrs, flat, strict=True)]
        yk, bk = pullback_call(interp, f, el)
        ys.append(yk)
        backs.append(bk)
    y = tuple(ys) if tuples else collect_results(ys, tuple(reversed(shape)))

    def back(dz: Any) -> Any:
        if dz is None:
            return None
        if tuples and isinstance(dz, tuple):
            dzf: Any = list(dz)
        elif is_array(dz):
            dzf = np.broadcast_to(np.asarray(dz), shape).reshape(-1)
        else:
            dzf = [dz] * n
        grads: list[list] = [[] for _ in xs]
        df = None
        gs: list[Any] = [None] * n
        for k in reversed(range(n)):  # last first, as Zygote's map: a stateful f's order
            gs[k] = back_call(interp, backs[k], N.host_scalar(dzf[k]))
        for g in gs:
            if g is None:
                for i in range(len(xs)):
                    grads[i].append(None)
                continue
            df = accum(df, g[0])
            for i in range(len(xs)):
                gi = g[i + 1]
                grads[i].append(None if gi is NO_TANGENT else gi)
        out: list[Any] = [None, df]
        for i, x in enumerate(xs):
            d = N.dtype_of(arrs[i]) if is_array(arrs[i]) else N.dtype_of(x)
            if tuples and isinstance(x, tuple):
                out.append(None if all(e is None for e in grads[i]) else tuple(grads[i]))
                continue
            if d == N.OBJ and is_array(arrs[i]) and arrs[i].size == n:
                # elements that are tuples, arrays or structs: one cotangent each
                out.append(None if all(e is None for e in grads[i]) else
                           _object_array(grads[i], arrs[i].shape))
                continue
            if d == N.OBJ and is_array(arrs[i]):
                # an array of structs (Complex numbers) broadcast to a larger shape: each
                # element's cotangent is the sum over its uses
                a = arrs[i]
                where = np.broadcast_to(np.arange(a.size).reshape(a.shape), shape).reshape(-1)
                acc: list = [None] * a.size
                for k, e in enumerate(grads[i]):
                    acc[where[k]] = accum(acc[where[k]], e)
                out.append(None if all(e is None for e in acc) else _object_array(acc, a.shape))
                continue
            if not is_array(arrs[i]) and d == N.OBJ:
                # a struct (a Complex number) broadcast against arrays: the cotangents of
                # its uses add up (they were dropped: `gradient(y -> real(sum(C .* y)), y)`)
                total = None
                for e in grads[i]:
                    total = accum(total, e)
                out.append(total)
                continue
            # (a real element's cotangent is real: ProjectTo takes a complex one's real part)
            grads[i] = [0.0 if e is None else e.fields[0] if is_complex(e) else e
                        for e in grads[i]]
            if d.kind in "iu":
                d = N.F64  # integers get Float64 cotangents, as Zygote gives them
            if d.kind != "f":
                out.append(None)
            elif not is_array(arrs[i]):
                total = sum(grads[i])
                out.append(total if hasattr(total, "aval") else N.cast(total, d, np))
            else:
                full = np.asarray(collect_results(grads[i], tuple(reversed(shape))), dtype=d)
                out.append(unbroadcast(np, arrs[i], full))
        return tuple(out)

    return y, PyCallable(back, "#broadcast_pullback")


# --- cotangent algebra and helpers (host) -------------------------------------------------


def _deep_zero(d: Any) -> bool:
    """A zero cotangent: nothing, or a tuple/NamedTuple of zeros."""
    if d is None or d is NO_TANGENT:
        return True
    if isinstance(d, (tuple, V.NamedTuple)):
        return all(_deep_zero(x) for x in d)
    return False


def _integral(v: Any) -> bool:
    """An integer (or Bool) value or array: cotangents through it are dropped, as for
    integers computed by rounding."""
    if isinstance(v, (int, np.integer, np.bool_)):
        return True
    d = getattr(v, "dtype", None)
    return d is not None and np.dtype(d).kind in "iub"


def _is_zero(d: Any) -> bool:
    if d is None or d is NO_TANGENT:
        return True
    if isinstance(d, tuple):
        return all(_is_zero(x) for x in d)
    return False


def accum(a: Any, b: Any) -> Any:
    """Add two cotangents (nothing is zero; structural for tuples/NamedTuples)."""
    if a is None or a is NO_TANGENT:
        return None if b is NO_TANGENT else b
    if b is None or b is NO_TANGENT:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple):
        return tuple(accum(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Tape) and isinstance(b, Tape):
        return Tape([accum(x, y) for x, y in zip(a.items, b.items, strict=True)])
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == object
            and b.dtype == object and a.shape == b.shape):  # cotangents of arrays of values
        out = np.empty(a.shape, dtype=object)
        for k, (x, y) in enumerate(zip(a.reshape(-1), b.reshape(-1), strict=True)):
            out.reshape(-1)[k] = accum(x, y)
        return out
    if is_complex(a) and is_complex(b) and a.type == b.type:
        return V.StructValue(a.type, [accum(x, y) for x, y in zip(a.fields, b.fields,
                                                                  strict=True)])
    if isinstance(a, V.NamedTuple) != isinstance(b, V.NamedTuple):
        # a Complex cotangent (from a rule) beside its fields' NamedTuple (from `z.re`)
        a, b = _fields_cot(a), _fields_cot(b)
    if isinstance(a, dict) and isinstance(b, dict):  # Dicts' cotangents: by key
        out = dict_cot(a.items())
        for k, v in b.items():
            out[k] = accum(out.get(k), v)
        return out
    if isinstance(a, V.NamedTuple) and isinstance(b, V.NamedTuple):
        if a.names == b.names:
            return V.NamedTuple(a.names, tuple(accum(x, y)
                                               for x, y in zip(a.values, b.values, strict=True)))
        names = list(a.names) + [n for n in b.names if n not in a.names]
        vals = tuple(accum(a.get(n) if n in a.names else None,
                           b.get(n) if n in b.names else None) for n in names)
        return V.NamedTuple(tuple(names), vals)

    return plus(N.xp_for(a, b), a, b)


def _fields_cot(d: Any) -> Any:
    """A Complex cotangent as the NamedTuple of its fields' (anything else unchanged)."""
    return V.NamedTuple(("re", "im"), tuple(d.fields)) if is_complex(d) else d


def getgrad(g: Any, i: int) -> Any:
    if g is None or g is NO_TANGENT:
        return None
    if isinstance(g, (tuple, V.NamedTuple)):
        vals = g if isinstance(g, tuple) else g.values
        if i > len(vals):
            # a cotangent built for a pullback's result without its trailing keyword
            # cotangents (`Core.grads_out` of a method with keywords, differentiated again):
            # what it leaves out is zero
            return None
        v = vals[i - 1]
        return None if v is NO_TANGENT else v
    raise ZylaError("AD error", f"expected a tuple of cotangents, got {type(g).__name__}")


class KwCot:
    """The cotangents of a method's keyword arguments (a NamedTuple), appended last to the
    tuple its pullback returns; `Core.kwgrad` reads it. A class of its own so that it is
    never mistaken for the cotangent of a positional argument (a struct's is a NamedTuple)."""

    __slots__ = ("nt",)

    def __init__(self, nt: V.NamedTuple) -> None:
        self.nt = nt

    def __repr__(self) -> str:
        return f"KwCot({self.nt!r})"


def kwcot(nt: Any) -> Any:
    """`Core.kwcot(nt)`: the keyword cotangents of a method's pullback (`nothing` stays)."""
    return None if nt is None else KwCot(nt)


def kwcot_back(dz: Any) -> Any:
    return dz.nt if isinstance(dz, KwCot) else None


def dict_cot(items: Any) -> JDict:
    """A Dict's cotangent: a Dict of the same keys' cotangents (any values)."""
    return JDict(items, None, V.AnyT)


def dict_set_back(dz: Any, v: Any, k: Any) -> tuple:
    """The cotangents of `Core.setindex_fn(d, v, k)` for a Dict d: d's without key k,
    and v's, k's own."""
    if not isinstance(dz, dict):
        return (None, None, None)
    rest = [(kk, v) for kk, v in dz.items() if not _same_key(kk, k)]
    return (dict_cot(rest) if rest else None, dz.get(k), None)


def _same_key(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b) or a is b


def dict_push_back(dz: Any, ps: tuple) -> tuple:
    """The cotangents of `Core.push_fn(d, pairs...)` for a Dict d."""
    if not isinstance(dz, dict):
        return (None,) + (None,) * len(ps)
    keys = [p.fields[0] for p in ps if isinstance(p, V.StructValue)]
    rest = [(k, v) for k, v in dz.items() if not any(_same_key(k, kk) for kk in keys)]
    return (dict_cot(rest) if rest else None,) + dict_ctor_back(dz, ps)


def dict_ctor_back(dz: Any, ps: tuple) -> tuple:
    """The cotangents of `Dict(ps...)`'s pairs (or (key, value) tuples)."""
    if dz is None:
        return (None,) * len(ps)
    out: list = []
    for p in ps:
        if isinstance(p, V.StructValue) and len(p.fields) == 2:
            d = dz.get(p.fields[0])
            out.append(None if d is None else V.NamedTuple(("first", "second"), (None, d)))
        elif isinstance(p, tuple) and len(p) == 2:
            d = dz.get(p[0])
            out.append(None if d is None else (None, d))
        else:
            out.append(nondiff_refused("Dict", dz))
    return tuple(out)


def get_back(dz: Any, *xs: Any) -> tuple:
    """The cotangents of `get(d, k, default)` for a Dict or NamedTuple d: d's at k if k
    was there, else the default's (other forms of `get`: refused unless zero)."""
    if dz is None:
        return (None,) * len(xs)
    if len(xs) == 3 and isinstance(xs[0], (dict, V.NamedTuple)):
        d, k, _ = xs
        if isinstance(d, dict):
            return (dict_cot([(k, dz)]), None, None) if k in d else (None, None, dz)
        if isinstance(k, V.Symbol) and k.name in d.names:
            return (V.NamedTuple(d.names, tuple(dz if n == k.name else None
                                                for n in d.names)), None, None)
        return (None, None, dz)
    return (nondiff_refused("get", dz),) * len(xs)


def promote_back(dz: Any, xs: tuple) -> tuple:
    """The cotangents of `promote(xs...)`'s arguments: its results', converted back."""
    if dz is None:
        return (None,) * len(xs)
    return tuple(None if _integral(x) and not isinstance(x, (int, np.integer)) else d
                 for x, d in zip(xs, dz, strict=True))


def values_back(dz: Any, x: Any) -> Any:
    """The cotangent of x for `values(x)`: a NamedTuple's values are its tuple of values;
    for other collections, refused unless zero."""
    if dz is None:
        return None
    if isinstance(x, V.NamedTuple):
        return V.NamedTuple(x.names, tuple(dz))
    if isinstance(x, tuple):
        return dz
    if isinstance(x, dict):  # the cotangents of a Dict's values, in its order
        ds = list(dz) if isinstance(dz, tuple) else list(np.asarray(dz, dtype=object).reshape(-1))
        return dict_cot(zip(x.keys(), ds, strict=True))
    return nondiff_refused("values", dz)


def kwmerge(nt: V.NamedTuple, extra: Any) -> V.NamedTuple:
    """The keyword cotangents of a method with `kw...`: its named keywords' and those of
    the collected NamedTuple's entries (its cotangent, a NamedTuple, or nothing)."""
    if not isinstance(extra, V.NamedTuple):
        return nt
    return V.NamedTuple(nt.names + extra.names, nt.values + extra.values)


def kwgrad(g: Any, name: str | tuple) -> Any:
    """The cotangent of keyword argument `name` in a pullback result g (`nothing` unless the
    callee is a method with keyword parameters: rules and primitives have none). A tuple
    `("...", names...)` names a splatted NamedTuple: the cotangents of every keyword
    but the call's own `names`, as a NamedTuple."""
    if not isinstance(g, tuple) or not g or not isinstance(g[-1], KwCot):
        return None
    nt = g[-1].nt
    if isinstance(name, tuple):
        keep = [(n, v) for n, v in zip(nt.names, nt.values, strict=True)
                if n not in name[1:] and not _deep_zero(v)]
        if not keep:
            return None
        return V.NamedTuple(tuple(n for n, _ in keep), tuple(v for _, v in keep))
    v = nt.values[nt.names.index(name)] if name in nt.names else None
    return None if v is NO_TANGENT else v


def kwgrad_back(g: Any, name: str | tuple, dz: Any) -> Any:
    """The cotangent of g for `Core.kwgrad(g, name)` with result cotangent dz."""
    if dz is None or kwgrad(g, name) is None:
        return None
    nt = g[-1].nt
    if isinstance(name, tuple):
        part = dict(zip(dz.names, dz.values, strict=True)) if isinstance(dz, V.NamedTuple) else {}
        inner = V.NamedTuple(nt.names, tuple(part.get(n) for n in nt.names))
    else:
        inner = V.NamedTuple(nt.names, tuple(dz if n == name else None for n in nt.names))
    return tuple(None for _ in g[:-1]) + (KwCot(inner),)


@contextmanager
def trace_branch(interp: Interpreter) -> Iterator[None]:
    """A region traced apart from its siblings (a branch of a compiled `if`, a trace
    repeated after a probe): its writes supersede arrays only for itself and for what
    comes after it, never for a sibling (see ADState.stale)."""
    st = _state(interp)
    saved = st.path
    st.branches += 1
    st.path = saved + (st.branches,)
    try:
        yield
    finally:
        st.path = saved


def back_call(interp: Interpreter, b: Any, dy: Any) -> Any:
    """`Core.back(b, dy)`: run a pullback, short-circuiting zero cotangents."""
    if _is_zero(dy):
        return None
    return effect_back_call(interp, b, dy)


def effect_back_call(interp: Interpreter, b: Any, dy: Any) -> Any:
    """`Core.back_effect(b, dy)`: run a pullback even for a zero cotangent (that of a
    write to a Box: see autodiff.reverse: EFFECT_CALLS)."""
    st = _state(interp)
    saved, st.stale = st.stale, {}  # a backward pass reads superseded arrays as residuals
    try:
        return interp.call_value(b, [dy])
    finally:
        st.stale = saved


def reverse_tape(t: Tape | None) -> Tape | None:
    """The tape in reverse order (`nothing`, the zero cotangent of a tape, stays)."""
    if t is None:
        return None
    return Tape(list(reversed(t.items)))


def tape_zip(t: Tape, *ds: Any) -> Tape:
    """`Core.tape_zip(t, d1, ..., dk)`: the tape of tuples `(t[i], d1[i], ..., dk[i])`; a
    `nothing` among the d's (a zero tape of cotangents) gives `nothing` entries."""
    cols = [d.items if isinstance(d, Tape) else [None] * len(t.items) for d in ds]
    return Tape([(x,) + tuple(c[i] for c in cols) for i, x in enumerate(t.items)])


def tape_unzip(dz: Any, k: int) -> tuple:
    """The cotangents of the arguments of `Core.tape_zip(t, d1..dk)` from the cotangent
    dz of the zipped tape (a tape of tuples): `(dt, dd1, ..., ddk)`."""
    if not isinstance(dz, Tape):
        return (None,) * (k + 1)
    return tuple(Tape([None if e is None else e[j] for e in dz.items]) for j in range(k + 1))


def iter_cot_back(it: Any, t: Any, dz: Any) -> Any:
    """The pullback of `Core.iter_cot(it, t)` with respect to the recorded tape t: the
    iterable's cotangent dz, one entry per element, in the tape's (reversed) order."""
    if dz is None or not isinstance(t, Tape):
        return None
    if isinstance(dz, Tape):
        return reverse_tape(dz)
    if isinstance(dz, tuple):
        return Tape(list(reversed(dz)))
    if isinstance(dz, np.ndarray):
        return Tape([N.host_scalar(v) for v in reversed(dz.reshape(-1))])
    return None


def iter_cot(it: Any, t: Any) -> Any:
    """The cotangent of an iterable from its elements' cotangents, recorded in reverse
    order by the adjoint of a `for` loop over it."""
    items = list(reversed(t.items)) if isinstance(t, Tape) else None
    if items is None:
        return _iter_cot_stacked(it, t)
    if isinstance(it, tuple):
        return tuple(items)
    if isinstance(it, Tape):  # a loop over a tape: the adjoint walk, differentiated again
        return Tape(items)
    if isinstance(it, np.ndarray) and it.dtype.kind in "fiu":
        # (an integer array's cotangent is Float64, as Zygote's: gradient(prod, [1, 2, 3]))
        if all(x is None for x in items):
            return None
        dt = it.dtype if it.dtype.kind == "f" else np.dtype(np.float64)
        out = np.array([0.0 if x is None else x for x in items], dtype=dt)
        return out.reshape(it.shape)
    if isinstance(it, np.ndarray) and it.dtype == object and len(items) == it.size:
        # the elements are tuples (of `zip`, `enumerate`), arrays or structs: one
        # cotangent each, in an array of the iterable's shape
        if all(x is None for x in items):
            return None
        return _object_array(items, it.shape)
    return _other_iter_cot(items, it)


def _other_iter_cot(parts: list, it: Any) -> Any:
    """The cotangent of an iterable that is not an array or tuple, from its elements':
    a range's is an array (as Zygote's), and elsewhere a cotangent that is not zero for
    elements that are not integers is refused: it cannot be handed back (it was dropped,
    silently)."""
    if all(_deep_zero(p) for p in parts):
        return None
    if isinstance(it, V.Range):
        dt = N.dtype_of(it.start) if isinstance(it.start, (float, np.floating)) else N.F64
        return np.array([0.0 if p is None else p for p in parts], dtype=dt)
    if isinstance(it, V.StructValue) and it.type.family.name in _STRUCT_ITER_COTS:
        return _STRUCT_ITER_COTS[it.type.family.name](parts, it)
    elems = current.runtime().iterate_all(it)
    if all(_integral(e) for e in elems):
        return None
    raise ZylaError("AD error", f"cannot hand gradients back to the elements of a "
                    f"{V.type_name(typeof(it))} that the differentiated code iterates over",
                    hint="collect it into an array first (collect(...))")


def _object_array(items: list, shape: tuple) -> np.ndarray:
    """An array of the given shape holding arbitrary values (cotangents of elements)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


def _entry_cots(dz: Any, n: int) -> list:
    """The per-element cotangents of an iterable of n elements (None: all zero)."""
    if dz is None:
        return [None] * n
    return list(np.asarray(dz, dtype=object).reshape(-1)) if not isinstance(dz, tuple) \
        else list(dz)


def _collect_cot(parts: list, x: Any) -> Any:
    """The cotangent of the iterable x from its elements' cotangents (None for zero)."""
    if all(p is None for p in parts):
        return None
    if isinstance(x, tuple):
        return tuple(parts)
    if isinstance(x, np.ndarray) and x.dtype.kind in "fiu":
        dt = x.dtype if x.dtype.kind == "f" else np.float64
        return np.array([0.0 if p is None else p for p in parts], dtype=dt).reshape(x.shape)
    if isinstance(x, np.ndarray):
        return _object_array(parts, x.shape)
    return _other_iter_cot(parts, x)


def iter_array_back(dz: Any, it: Any) -> Any:
    """The cotangent of the iterable of `Core.iter_array(it)` (what a comprehension runs
    over) from that array's: the array's own for an array, per element otherwise."""
    if dz is None or is_array(it) and not isinstance(it, V.Range):
        return dz
    parts = list(dz) if isinstance(dz, tuple) else list(np.asarray(dz, dtype=object).reshape(-1))
    if isinstance(it, tuple):
        return tuple(parts)
    return _other_iter_cot(parts, it)


def _product_cot(parts: list, it: V.StructValue) -> Any:
    """The cotangent of `Iterators.product(its...)` from its elements' (tuples, the first
    iterator varying fastest): each iterator's elements get the sum over the others."""
    its = it.getfield("iterators")
    rt = current.runtime()
    lens = [len(rt.iterate_all(x)) for x in its]
    sums: list[list] = [[None] * n for n in lens]
    for k, d in enumerate(parts):
        if d is None:
            continue
        rest = k
        for j, n in enumerate(lens):
            i, rest = rest % n, rest // n
            sums[j][i] = accum(sums[j][i], d[j])
    return V.NamedTuple(("iterators",), (tuple(_collect_cot(s, x) for s, x in zip(sums, its,
                                                                             strict=True)),))


# iterables that are structs of Zyla's Base, whose elements' cotangents go back to fields
_STRUCT_ITER_COTS = {"ProductIterator": _product_cot}


def zip_back(dz: Any, *xs: Any) -> tuple:
    """The cotangents of `zip(xs...)`'s arguments from those of its tuples."""
    lens = [len(current.runtime().iterate_all(x)) for x in xs]
    n = min(lens) if lens else 0
    tuples = _entry_cots(dz, n)
    out = []
    for j, x in enumerate(xs):
        parts = [None if t is None else t[j] for t in tuples]
        parts += [None] * (lens[j] - n)  # elements past the shortest argument: zero
        out.append(_collect_cot(parts, x))
    return tuple(out)


def enumerate_back(dz: Any, x: Any) -> tuple:
    """The cotangent of `enumerate(x)`'s argument from those of its `(i, x[i])` tuples."""
    n = len(current.runtime().iterate_all(x))
    parts = [None if t is None else t[1] for t in _entry_cots(dz, n)]
    return (_collect_cot(parts, x),)


def _iter_cot_stacked(it: Any, t: Any) -> Any:
    dtype = getattr(it, "dtype", None)
    if not (hasattr(it, "shape") and dtype is not None and np.dtype(dtype).kind in "fiu"):
        return None
    if t.skel[0] == "const":
        return None
    (leaf,) = t.leaves
    dt = dtype if np.dtype(dtype).kind == "f" else np.float64
    return N.xp_for(leaf).flip(leaf, axis=0).reshape(it.shape).astype(dt)


def regroup(g: Any, spec: tuple, *lens: int) -> Any:
    """Cotangents of a call with splatted arguments, regrouped per written argument."""
    if g is None:
        return None
    out = [g[0]]
    k = 1
    li = 0
    for is_splat in spec:
        if is_splat:
            n = lens[li]
            li += 1
            out.append(tuple(g[k:k + n]))
            k += n
        else:
            out.append(g[k])
            k += 1
    # anything after the positional cotangents (a callee's keyword cotangents) stays last
    return tuple(out) + tuple(g[k:])


def splice_last(*ds: Any) -> tuple:
    """(d_self, d_fixed..., d_varargs_tuple, n_varargs) -> (d_self, d_fixed..., d_varargs...)."""
    *ds, n = ds
    last = ds[-1]
    if last is None:
        return tuple(ds[:-1]) + (None,) * n
    return tuple(ds[:-1]) + tuple(last)


def tuple_cot(dz: Any, n: int) -> Any:
    if dz is None:
        return (None,) * n
    if isinstance(dz, V.NamedTuple):
        return dz.values
    return tuple(dz)


def onehot_cot(x: Any, i: int, dz: Any) -> Any:
    if x is None or dz is None:
        return None
    if isinstance(x, tuple):
        return tuple(dz if k == i - 1 else None for k in range(len(x)))
    if isinstance(x, V.NamedTuple):
        return V.NamedTuple(x.names, tuple(dz if k == i - 1 else None for k in range(len(x))))
    return getindex_back(np, dz, x, i)


def field_cot(x: Any, s: V.Symbol, dz: Any) -> Any:
    if getattr(x, "ad_written", False) and not _deep_zero(dz):
        # the write's own pullback would have to take this cotangent, but a write whose
        # result is unused is not differentiated: refused rather than sent to the value
        # the field had before the write
        raise ZylaError("AD error", f"differentiating through the field `{s.name}` of a "
                        f"mutable {V.type_name(x.type)} that the differentiated code writes "
                        "(`m.x = v`, `r[] = v`) is not supported",
                        hint="build a new value instead (an immutable struct, or a local "
                        "variable), or write the field outside the differentiated function")
    if isinstance(x, V.StructValue):
        names = tuple(x.type.fields)
        vals = x.fields
    elif isinstance(x, V.NamedTuple):
        names, vals = x.names, x.values
    else:
        return None
    if is_complex(dz):  # a real field's cotangent is real (`real(z)` given a complex one)
        dz = _project_real(vals[names.index(s.name)], dz)
    return V.NamedTuple(names, tuple(dz if n == s.name else None for n in names))


def struct_fields_cot(dz: Any, n: int) -> Any:
    if dz is None:
        return (None,) * n
    if isinstance(dz, V.NamedTuple):
        return dz.values
    if isinstance(dz, V.StructValue):
        return tuple(dz.fields)
    if n == 1 and isinstance(dz, (float, complex, np.floating, np.complexfloating)):
        # a one-field struct's cotangent given as its content's (a `Ref(x)` of a number
        # broadcast as a scalar: the sum over the broadcast is x's)
        return (dz,)
    if n == 2 and isinstance(dz, (float, int, np.floating, np.integer)) \
            and not isinstance(dz, (bool, np.bool_)):
        # a real cotangent of a two-field struct is a Complex's (its real part): dz + 0im
        return (dz, type(dz)(0))
    if isinstance(dz, (int, float, complex, np.number)) or (
            getattr(dz, "ndim", 0) >= 1 and np.dtype(dz.dtype).kind in "fciub"):
        # (a dense array as the cotangent of an array-like struct needs that struct's own
        # projection, as Diagonal has; its rows are not the struct's fields)
        raise ZylaError("AD error", f"a cotangent of type {V.type_name(typeof(dz))} "
                        f"does not fit a struct with {n} fields")
    return tuple(dz)


def sensitivity(y: Any) -> Any:
    """The seed cotangent of a scalar result (Zygote requires a real number; a Bool has
    no derivative: its gradients are `nothing`, as Zygote's)."""
    if isinstance(y, (bool, np.bool_)):
        return None
    if isinstance(y, (float, np.floating)):
        return N.cast(1.0, N.dtype_of(y), np)
    if isinstance(y, int):  # (a Bool was handled above)
        return 1.0
    if isinstance(y, V.Rational):  # (exact: `gradient(//, 2, 3) === (1//3, -2//9)`)
        return type(y)(1)  # (of y's type: a Rational{Int8} seeds a Rational{Int8})
    if hasattr(y, "shape") and getattr(y, "ndim", 1) == 0:
        return np.ones((), dtype=y.dtype)
    raise ZylaError("AD error", "output of `gradient` must be a real number, got "
                    f"{V.type_name(typeof(y))}",
                    hint="use `jacobian` or `pullback` for non-scalar outputs")


def grads_out(g: Any, args: tuple, keep_float: bool = False) -> tuple:
    """Argument cotangents of a pullback result, Zygote style: d_self dropped; integers
    are numbers like any other (`gradient(x -> 3x, 2) == (3.0,)`), Booleans have none.
    keep_float: see grads_tangent."""
    if g is None:
        return (None,) * len(args)
    return tuple(None if _is_bool(a) else
                 _project_real(a, _project_shape(a, complex_cotangent(a, _clean(x))),
                               keep_float)
                 for x, a in zip(g[1:], args, strict=False))


def grads_tangent(g: Any, args: tuple) -> tuple:
    """The tangent of `grads_out` (forward over reverse: `hessian`), projected as the
    gradient is, except that an integer argument's keeps the float type it was computed
    in, as Zygote's Dual numbers carry it (a Float32 model's Hessian at integer inputs is
    Float32, not Float64 holding Float32's precision)."""
    return grads_out(g, args, keep_float=True)


def _project_shape(a: Any, g: Any) -> Any:
    """The gradient of a tuple as a tuple (a vector made from its elements gives a
    vector: on the host a numpy array, in compiled code a traced one), of a NamedTuple
    as a NamedTuple of its own names in its order."""
    if type(a) is tuple and getattr(g, "ndim", None) == 1 and g.shape[0] == len(a):
        if type(g) is np.ndarray:
            return tuple(g.tolist()) if g.dtype != object else tuple(g)
        return tuple(g[i] for i in range(len(a)))
    if (type(a) is np.ndarray and a.dtype == object and type(g) is np.ndarray
            and g.dtype == object and g.shape == a.shape and recorded(g) is None):
        # an array of arrays: the gradient has its element type where its elements do
        t = recorded(a)
        if t is not None and all(V.issubtype(typeof(e), t) for e in g.reshape(-1)):
            tag(g, t)
    if (isinstance(a, V.NamedTuple) and isinstance(g, V.NamedTuple) and g.names != a.names
            and set(g.names) <= set(a.names)):
        return V.NamedTuple(a.names, tuple(g.get(n) if n in g.names else None
                                           for n in a.names))
    return g


def _project_real(a: Any, g: Any, keep_float: bool = False) -> Any:
    """The gradient of a real number or array in its float type, as ChainRules' ProjectTo
    gives it: an integer's is a Float64 (`pullback(*, 2, 1.5f0)[2](1f0)[1] === 1.5`), a
    Float32's stays a Float32 when the result was promoted (`gradient(x -> x * 2.0, 1f0)`),
    a real number's is the real part of a complex one (from a user rrule), a real array's
    the real parts of a complex array (`pullback(real, A)[2](dy)` for a complex dy); a
    tuple's elements are projected each. keep_float: an integer's float cotangent keeps
    its type."""
    if type(a) is tuple and type(g) is tuple and len(a) == len(g):
        return tuple(_project_real(x, d, keep_float) for x, d in zip(a, g, strict=True))
    if is_complex(g) and isinstance(a, (int, float, np.integer, np.floating)) \
            and not isinstance(a, (bool, np.bool_)):
        g = g.fields[0]
    if _complex_array(g) and hasattr(a, "dtype") and np.dtype(a.dtype).kind in "iuf":
        # (a may be a JAX array: the argument of a pullback made in compiled code)
        g = np.array([e.fields[0] for e in g.reshape(-1)], dtype=np.float64).reshape(g.shape)
    if g is None or isinstance(a, tuple) or not (
            type(a) is int or isinstance(a, (float, np.integer, np.floating))
            or hasattr(a, "dtype")):  # (arrays, and traced numbers when compiled)
        return g
    da, dg = N.dtype_of(a), N.dtype_of(g)
    if da.kind not in "iuf" or dg.kind not in "iuf" or is_array(a) != is_array(g):
        return g
    d = N.float_dtype(da)
    if keep_float and da.kind in "iu" and dg.kind == "f":
        return g
    return g if dg == d else N.cast(g, d, N.xp_for(g))


def _complex_array(g: Any) -> bool:
    """Whether g is a non-empty array of complex numbers."""
    return (type(g) is np.ndarray and g.dtype == object and g.size > 0
            and all(is_complex(e) for e in g.reshape(-1)))


def _is_bool(a: Any) -> bool:
    if isinstance(a, (bool, np.bool_)):
        return True
    d = getattr(a, "dtype", None)
    return d is not None and np.dtype(d).kind == "b"


def _clean(x: Any) -> Any:
    """A gradient as Zygote gives it: a NamedTuple (a struct's, a closure's) whose
    fields are all zero, nested ones included, is `nothing`."""
    if x is NO_TANGENT:
        return None
    if isinstance(x, V.NamedTuple):
        vals = tuple(_clean(v) for v in x.values)
        return None if all(v is None for v in vals) else V.NamedTuple(x.names, vals)
    return x


def install(rt: Any) -> None:
    b = rt.builtins

    def ad_prim(name: str, f: Any, pullback: str = NONDIFF, interp: bool = False) -> None:
        b[name] = prim(name, f, HostOnly("lowered by the backend's AD support"), pullback,
                       INFER_BY_LOWERING, needs_interp=interp)

    def traced_prim(name: str, f: Any, pullback: str = NONDIFF) -> None:
        # only rearranges values (or checks them): the same code at trace time
        b[name] = prim(name, f, _jx(lambda xp, *a: f(*a)), pullback, INFER_BY_LOWERING)

    ad_prim("Core.pullback_call", lambda it, f, *a, **kw: pullback_call(it, f, list(a), kw or None),
            "SPECIAL", interp=True)
    ad_prim("Core.back", lambda it, b_, dy: back_call(it, b_, dy), "SPECIAL", interp=True)
    ad_prim("Core.forward_callable", lambda it, h, *a: forward_callable(it, h, list(a)),
            "(dz, z, h, args...) -> (dz, map(a -> nothing, args)...)", interp=True)
    ad_prim("Core.accum", accum, "(dz, z, a, b) -> (dz, dz)")
    b["Core.rule_of"] = prim("Core.rule_of", rule_of, _jx(lambda xp, p: rule_of(p)), NONDIFF,
                             INFER_BY_LOWERING)
    ad_prim("Core.is_zero_cot", _is_zero)
    ad_prim("Core.getgrad", getgrad, "(dz, z, g, i) -> (Core.onehot_cot(g, i, dz), nothing)")
    ad_prim("Core.kwcot", kwcot, "(dz, z, nt) -> (Core.kwcot_back(dz),)")
    ad_prim("Core.kwcot_back", kwcot_back, "(dz, z, d) -> (Core.kwcot(dz),)")
    # (no rule of its own: a second derivative through `kw...` is refused, see
    # nondiff_may_drop, rather than compiled code given up for the first)
    traced_prim("Core.kwmerge", kwmerge)
    traced_prim("Core.promote_back", promote_back)
    traced_prim("Core.get_back", get_back)
    ad_prim("Core.iter_array_back", iter_array_back)
    ad_prim("Core.dict_set_back", dict_set_back)
    ad_prim("Core.dict_push_back", dict_push_back)
    ad_prim("Core.dict_ctor_back", dict_ctor_back)
    for name, test in _DICT_WRITES.items():
        # the rule for arrays `(dz, z, x, args...) -> body` becomes
        # `(dz, z, x, i...) -> test ? dict's : ((dz, z, x, args...) -> body)(dz, z, x, i...)`
        old = b[name].pullback
        b[name].pullback = f"(dz, z, x, i...) -> {test}({old})(dz, z, x, i...)"
    traced_prim("Core.values_back", values_back)
    ad_prim("Core.kwgrad", kwgrad, "(dz, z, g, name) -> (Core.kwgrad_back(g, name, dz), nothing)")
    ad_prim("Core.kwgrad_back", kwgrad_back,
            "(dz, z, g, name, d) -> (nothing, nothing, Core.kwgrad(dz, name))")
    ad_prim("Core.reverse_tape", reverse_tape, "(dz, z, t) -> (Core.reverse_tape(dz),)")
    ad_prim("Core.tape_zip", tape_zip, "(dz, z, t, ds...) -> Core.tape_unzip(dz, length(ds))")
    ad_prim("Core.tape_unzip", tape_unzip)
    ad_prim("Core.iter_cot", iter_cot,
            "(dz, z, it, t) -> (nothing, Core.iter_cot_back(it, t, dz))")
    ad_prim("Core.iter_cot_back", iter_cot_back)
    ad_prim("Core.zip_back", zip_back)
    ad_prim("Core.enumerate_back", enumerate_back)
    # iterating over `zip(a, b)` or `enumerate(v)` hands its elements' cotangents back to
    # the arrays they came from
    b["zip"].pullback = "(dz, z, xs...) -> Core.zip_back(dz, xs...)"
    b["enumerate"].pullback = "(dz, z, x) -> Core.enumerate_back(dz, x)"
    ad_prim("Core.regroup", regroup, "(dz, z, g, spec, lens...) -> (nothing,)")
    ad_prim("Core.splice_last", splice_last, "(dz, z, ds...) -> (nothing,)")
    ad_prim("Core.tuple_cot", tuple_cot, "(dz, z, d, n) -> (dz, nothing)")
    ad_prim("Core.onehot_cot", onehot_cot,
            "(dz, z, x, i, d) -> (nothing, nothing, Core.getgrad(dz, i))")
    ad_prim("Core.field_cot", field_cot,
            "(dz, z, x, s, d) -> (nothing, nothing, getproperty(dz, s))")
    ad_prim("Core.struct_fields_cot", struct_fields_cot, NONDIFF)
    # (Core.trycatch is differentiated by _trycatch_pullback, once: no nested AD of it)
    b["Core.trycatch"].pullback = "SPECIAL"
    ad_prim("Core.sensitivity", sensitivity)
    traced_prim("Core.hook", lambda f, x: x, "SPECIAL")
    traced_prim("Core.nondiff_refused", nondiff_refused)
    ad_prim("Core.ad_global_write", ad_global_write)
    # built-ins that pass values through: their cotangents go back to those values
    for name, rule in _PASS_THROUGH.items():
        if name in b:
            b[name].pullback = rule
    ad_prim("Core.grads_out", grads_out, "(dz, z, g, args) -> ((nothing, dz...), nothing)")
    ad_prim("Core.grads_tangent", grads_tangent,
            "(dz, z, g, args) -> ((nothing, dz...), nothing)")
    ad_prim("Core.segment_length", lambda n: max(1, int(np.ceil(np.sqrt(n)))))
    ad_prim("NoTangent", lambda: NO_TANGENT)
    ad_prim("ZeroTangent", lambda: None)
    ad_prim("ChainRulesCore.NoTangent", lambda: NO_TANGENT)
    ad_prim("ChainRulesCore.ZeroTangent", lambda: None)
    ad_prim("unthunk", lambda x: x, "(dz, z, x) -> (dz,)")
    traced_prim("Core.complex_cot", complex_cotangent, "(dz, z, y, d) -> (nothing, dz)")
    ad_prim("Core.builtin_rule_kind", builtin_rule_kind)
    b["Core.complex_cot"].forward = "(d, z, y, c) -> d[2]"

    def ignore(it: Interpreter, x: Any) -> Any:
        if isinstance(x, (Closure, GenericFunction, Primitive)):
            return it.call_value(x, [])
        return x

    b["ignore_derivatives"] = prim("ignore_derivatives", ignore, _same_in_jax(ignore), NONDIFF,
                                   INFER_BY_LOWERING, needs_interp=True)

    def checkpointed(it: Interpreter, f: Any, *args: Any) -> Any:
        return it.call_value(f, list(args))

    b["checkpointed"] = prim("checkpointed", checkpointed, _same_in_jax(checkpointed), "CHECKPOINT",
                             INFER_BY_LOWERING, needs_interp=True)

    def bcast_rule_of(f: Any) -> Any:
        p = f if isinstance(f, Primitive) else getattr(f, "fallback_prim", None)
        if not isinstance(p, Primitive) or p.elementwise is None:
            raise ZylaError("AD error", "nested AD of this broadcast is not supported yet")
        return _state(rt.interp).rule(p, bcast=True)

    ad_prim("Core.bcast_rule_of", bcast_rule_of)
    # a Box's trail (BoxTrail): a second derivative through one is refused
    refused = '(dz, z, xs...) -> error("a second derivative through a variable that a closure ' \
        'reassigns is not supported")'
    ad_prim("Core.box_read_back", lambda t, k, dz: t.read_back(k, dz), refused)
    ad_prim("Core.box_write_back", lambda t, k: t.write_back(k), refused)
    ad_prim("Core.box_pass_end", box_pass_end, refused)
    ad_prim("Core.back_effect", lambda it, b_, dy: effect_back_call(it, b_, dy), refused,
            interp=True)
    for name in ("Core.box_read_back", "Core.box_write_back", "Core.box_pass_end",
                 "Core.back_effect"):
        b[name].forward = "noforward"  # (forward mode over a reverse pass: an AD error)
    _ = (Interpreter, OP_HANDLERS)


# --- op handlers for the forward functions --------------------------------------------------


def op_pcall(self: Interpreter, op: Any, env: dict, fn: Any) -> Any:
    f = self.rt.lookup(op.attrs["fn"])
    args, kwargs = self.call_args(op, env, 0)
    return pullback_call(self, f, args, kwargs)


def op_pcallv(self: Interpreter, op: Any, env: dict, fn: Any) -> Any:
    f = env[op.operands[0].id]
    args, kwargs = self.call_args(op, env, 1)
    return pullback_call(self, f, args, kwargs)


OP_HANDLERS["pcall"] = op_pcall
OP_HANDLERS["pcallv"] = op_pcallv


def rule_of(p: Any) -> Any:
    """The compiled pullback rule of primitive `p` (made once per runtime)."""
    return _state(current.runtime().interp).rule(p)
