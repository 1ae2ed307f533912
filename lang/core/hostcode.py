"""Host code: IR functions translated into Python functions, for the host tier.

The interpreter loop (lang.core.interp) walks a body op by op through a handler table,
keeps every value in a dictionary and builds an argument list for every call. This module
translates a body once into Python source and compiles it: SSA values become Python
locals, `if`/`for`/`while` become Python's, a global or a callee named in the body is a
variable of the code's namespace kept current by the runtime's bindings
(lang.core.bindings), and scalar arithmetic and comparisons of Int64 and Float64 values are
written inline, with Julia's results (Int64 wraps around). Every other call goes where the
interpreter's would: the primitive's host implementation, or the tiering policy for a
Zyla function.

Contract: a translated body computes what `Interpreter.run_function` computes for it,
raises the same errors located at the same ops (the innermost op, then the ops around
it), counts the same ticks, effects and loop progress, and offers the same calls to the
tiering policy — but those the policy has said run here (`Function.host_active`: its
outer activation is on the host; `Function.host_skip`: a cheap call) — and, every TICKS
iterations, a long loop to on-stack replacement (lang.core.interp.set_osr). A body with an
op this module does not know that has regions, or one Python cannot compile (its nesting
limits), keeps running on the interpreter loop.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from grammar.errors import Unwind, ZylaError
from lang.core import interp as _interp
from lang.core import values as V
from lang.core.bindings import DYNAMIC
from lang.core.functions import Closure, GenericFunction, Method, typeof
from lang.core.interp import (
    STOP_FLAGS,
    TIERED,
    UNSET,
    Tape,
    _kw_splat,
    _trip_count,
    refine_method_error,
    set_translator,
    tape_count,
)
from lang.core.ir import Function, Op, Region, free_values, walk_ops
from lang.core.primitives import PRIMITIVES, Primitive, wrap_int64

#: ZYLA_HOSTCODE=0 runs every body on the interpreter loop (the reference the
#: differential tests compare translated code with)
ENABLED = os.environ.get("ZYLA_HOSTCODE", "1") not in ("0", "")

_I64 = "-9223372036854775808 <= {r} <= 9223372036854775807"

#: binary primitives written inline for Python ints and floats: name -> Python operator,
#: and whether int op int is an Int64 result that may wrap (else a Bool)
_BINARY = {"+": ("+", True), "-": ("-", True), "*": ("*", True),
           "<": ("<", False), "<=": ("<=", False), ">": (">", False), ">=": (">=", False),
           "==": ("==", False), "!=": ("!=", False)}


class Untranslatable(Exception):
    """The body keeps running on the interpreter loop."""


def wanted(fn: Function) -> bool:
    """Whether a body is worth translating now: on its second run, or on its first when
    it has a loop (a top-level statement runs once, so only one with a loop)."""
    runs = fn.host_runs
    fn.host_runs = runs + 1
    if runs >= 1 and fn.name != "toplevel":
        return True
    return any(op.name in ("for", "while") for op in walk_ops(fn.body))


def translate(interp: Any, fn: Function) -> Callable[..., Any] | None:
    """The Python function that runs `fn`'s body on `interp` (called with the body's
    arguments), or None when the body stays on the interpreter loop."""
    try:
        return _Gen(interp, fn).build()
    except (Untranslatable, SyntaxError, RecursionError, MemoryError, ValueError):
        return None


def _literal(v: Any) -> str | None:
    """Python source for a constant that has one (ints, finite floats, Bools, nothing)."""
    t = type(v)
    if t is bool or v is None:
        return repr(v)
    if t is int:
        return repr(v) if -(1 << 63) <= v < (1 << 63) else None
    if t is float and math.isfinite(v):
        return repr(v)
    return None


class _Gen:
    """Writes one body's Python source, with a namespace of the objects it refers to."""

    def __init__(self, interp: Any, fn: Function) -> None:
        self.interp = interp
        self.rt = interp.rt
        self.fn = fn
        self.lines: list[str] = []
        self.where: list[tuple[Op, ...]] = []  # per line: the ops it runs, innermost first
        self.chain: tuple[Op, ...] = ()
        self.ns: dict[str, Any] = _helpers(interp, fn)
        self.ns["FN"] = fn
        self.slots: dict[str, str] = {}  # watched name -> slot variable
        self.known: dict[int, type] = {}  # value id -> Python type, where a constant
        self.temps = 0
        self.handlers = interp.handlers

    # --- output ------------------------------------------------------------------------

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)
        self.where.append(self.chain)

    def bind(self, prefix: str, value: Any) -> str:
        name = f"{prefix}{len(self.ns)}"
        self.ns[name] = value
        return name

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def slot(self, name: str) -> str:
        """The namespace variable that holds what `name` resolves to (or DYNAMIC)."""
        s = self.slots.get(name)
        if s is None:
            s = self.slots[name] = f"S{len(self.slots)}"
            self.ns[s] = DYNAMIC
        return s

    # --- the function --------------------------------------------------------------------

    def build(self) -> Callable[..., Any]:
        fn = self.fn
        params = ", ".join(f"v{a.id}" for a in fn.body.args)
        self.emit(0, f"def run({params}):")
        self.emit(1, "I.ticks += 1")
        self.emit(1, f"if not I.ticks % {_interp.TICKS} and I.offload: I.watch()")
        self.emit(1, "I.depth += 1")
        self.emit(1, "if I.depth > 4000:")
        self.emit(2, "I.depth = 0")
        self.emit(2, "raise OVERFLOW()")
        self.emit(1, "try:")
        out = self.region(fn.body, 2)
        self.emit(2, f"return {out[0]}")
        self.emit(1, "except Exception as e:")
        self.emit(2, "raise FAIL(e)")
        self.emit(1, "finally:")
        self.emit(2, "I.depth -= 1")
        source = "\n".join(self.lines) + "\n"
        code = compile(source, f"<zyla {fn.name}>", "exec")
        where = self.where
        ns = self.ns
        ns["FAIL"] = lambda e: _fail(self.interp, fn, where, e)
        exec(code, ns)  # noqa: S102 -- the source is ours, written above from the IR
        watch = self.rt.watch
        for name, s in self.slots.items():
            watch.add(name, ns, s)
        return ns["run"]

    def region(self, region: Region, depth: int) -> list[str]:
        """Write a region's ops; return the expressions its terminator yields."""
        for op in region.ops:
            if op.name in ("yield", "return"):
                return [f"v{v.id}" for v in op.operands]
            outer = self.chain
            self.chain = (op,) + outer
            try:
                writer = _WRITERS.get(op.name)
                if writer is None:
                    self.other(op, depth)
                else:
                    writer(self, op, depth)
            finally:
                self.chain = outer
        raise Untranslatable("region without terminator")

    def assign(self, op: Op, depth: int, expr: str) -> None:
        """The op's results are `expr` (one value, or a sequence of as many)."""
        res = op.results
        if len(res) == 1:
            self.emit(depth, f"v{res[0].id} = {expr}")
        elif res:
            self.emit(depth, f"{', '.join(f'v{r.id}' for r in res)}, = {expr}")
        else:
            self.emit(depth, expr)

    def yield_to(self, depth: int, targets: list[str], values: list[str]) -> None:
        if targets:
            self.emit(depth, f"{', '.join(targets)}, = {', '.join(values)},")

    # --- ops ---------------------------------------------------------------------------

    def op_const(self, op: Op, depth: int) -> None:
        v = op.attrs["value"]
        lit = _literal(v)
        if lit is None:
            lit = self.bind("K", v)
        else:
            self.known[op.results[0].id] = type(v)
        self.assign(op, depth, lit)

    def op_global(self, op: Op, depth: int) -> None:
        name = op.attrs["name"]
        r = f"v{op.results[0].id}"
        s = self.slot(name)
        self.emit(depth, f"{r} = {s}")
        self.emit(depth, f"if {r} is DYNAMIC: {r} = LOOKUP({name!r})")

    def op_setglobal(self, op: Op, depth: int) -> None:
        self.emit(depth, "I.effects += 1")
        self.emit(depth, f"SETGLOBAL({op.attrs['name']!r}, v{op.operands[0].id})")
        self.assign(op, depth, "None")

    def args(self, op: Op, start: int) -> tuple[str, str]:
        """Python expressions of a call op's positional argument list and keyword dict
        (`None` without keywords), as Interpreter.call_args builds them."""
        names = [f"v{v.id}" for v in op.operands[start:]]
        kw = op.attrs.get("kw") or ()
        splat = op.attrs.get("splat") or ()
        pos = names[: len(names) - len(kw)] if kw else names
        kvals = names[len(names) - len(kw):] if kw else []
        items = [f"*ITERATE_ALL({v})" if i + start in splat else v for i, v in enumerate(pos)]
        kwargs = "None"
        if kw:
            parts = [f"**KW_SPLAT({v})" if k == "..." else f"{k!r}: {v}"
                     for k, v in zip(kw, kvals, strict=False)]
            kwargs = "{" + ", ".join(parts) + "}"
        return "[" + ", ".join(items) + "]", kwargs

    def op_call(self, op: Op, depth: int) -> None:
        name = op.attrs["fn"]
        s = self.slot(name)
        plain = not op.attrs.get("kw") and not op.attrs.get("splat")
        now = self.rt.watch.resolve(name)
        args, kwargs = self.args(op, 0)
        general = f"CALL_NAMED({s}, {name!r}, {args}, {kwargs})"
        vals = [f"v{v.id}" for v in op.operands]
        if not plain or type(now) is not Primitive:
            if plain and 1 <= len(vals) <= 3 and len(op.results) == 1:
                types = [f"type({v})" for v in vals]
                key = types[0] if len(vals) == 1 else f"({', '.join(types)})"
                general = f"CALL_TYPED({s}, {name!r}, {key}, {', '.join(vals)})"
            self.assign(op, depth, general)
            return
        if now.effect or now.needs_interp or len(op.results) != 1:
            self.assign(op, depth, general)
            return
        p = self.bind("P", now)
        r = f"v{op.results[0].id}"
        over_xp = getattr(now.host, "over_xp", None)
        if over_xp is not None:  # host is `f(np, args...)`: called so, a Python call less
            direct = f"{self.bind('H', over_xp)}(NP, {', '.join(vals)})"
        else:
            direct = f"{self.bind('H', now.host)}({', '.join(vals)})"
        pre, fast = self.inline(now, op, vals, r)
        for line in pre:
            self.emit(depth, line)
        if fast:
            first = True
            for guard, body in fast:
                self.emit(depth, f"{'if' if first else 'elif'} {s} is {p} and {guard}:")
                for line in body:
                    self.emit(depth + 1, line)
                first = False
            self.emit(depth, f"elif {s} is {p}: {r} = {direct}")
        else:
            self.emit(depth, f"if {s} is {p}: {r} = {direct}")
        self.emit(depth, f"else: {r} = {general}")

    def inline(self, p: Primitive, op: Op, vals: list[str],
               r: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """Lines to run first, and (guard, lines) pairs that compute a scalar primitive
        inline; ([], []) for one that is not written inline."""
        if PRIMITIVES.get(p.name) is not p:
            return [], []
        if p.name in _BINARY and len(vals) == 2:
            pyop, arith = _BINARY[p.name]
            a, b = vals
            ka, kb = (self.known.get(v.id) for v in op.operands)
            expr = f"{r} = {a} {pyop} {b}"
            # the operands' types, once (where not a constant's): ta, tb
            ta = "ta" if ka is None else ""
            tb = "tb" if kb is None else ""
            pre = [f"{t} = type({v})" for t, v in ((ta, a), (tb, b)) if t]
            out = []
            if ka is float or kb is float:  # a Float64 result, whatever the other is
                out.append((_and(_num(ta), _num(tb)), [expr]))
                return pre, out
            if ka in (None, int) and kb in (None, int):
                guard = _and(f"{ta} is int" if ta else "", f"{tb} is int" if tb else "")
                body = [expr]
                if arith:
                    body.append(f"if not {_I64.format(r=r)}: {r} = WRAP({r})")
                out.append((guard, body))
            if ka in (None, int, float) and kb in (None, int, float):
                out.append((_and(_num(ta), _num(tb)), [expr]))
            return pre, out
        if p.name == "-" and len(vals) == 1:
            a = vals[0]
            return [], [(f"type({a}) is int", [f"{r} = -{a}",
                                               f"if not {_I64.format(r=r)}: {r} = WRAP({r})"]),
                        (f"type({a}) is float", [f"{r} = -{a}"])]
        if p.name == "!" and len(vals) == 1:
            return [], [(f"type({vals[0]}) is bool", [f"{r} = not {vals[0]}"])]
        return [], []

    def op_callv(self, op: Op, depth: int) -> None:
        args, kwargs = self.args(op, 1)
        self.assign(op, depth, f"CALL_VALUE(v{op.operands[0].id}, {args}, {kwargs})")

    def op_closure(self, op: Op, depth: int) -> None:
        func = self.bind("F", op.attrs["func"])
        caps = "".join(f"v{v.id}, " for v in op.operands)
        self.assign(op, depth, f"CLOSURE({func}, ({caps}), {op.attrs.get('name', '#anon')!r})")

    def op_default(self, op: Op, depth: int) -> None:
        r = f"v{op.results[0].id}"
        self.emit(depth, f"{r} = v{op.operands[0].id}")
        self.emit(depth, f"if {r} is UNSET:")
        self.emit(depth + 1, "pass")
        out = self.region(op.regions[0], depth + 1)
        self.emit(depth + 1, f"{r} = {out[0]}")

    def op_if(self, op: Op, depth: int) -> None:
        c = f"v{op.operands[0].id}"
        self.emit(depth, f"if type({c}) is not bool: {c} = CONDITION({c})")
        targets = [f"v{r.id}" for r in op.results]
        for k, region in enumerate(op.regions[:2]):
            self.emit(depth, f"if {c}:" if k == 0 else "else:")
            self.emit(depth + 1, "pass")
            out = self.region(region, depth + 1)
            self.yield_to(depth + 1, targets, out[: len(targets)])

    def loop_end(self, op: Op, depth: int, progress: str, t0: str, it: str,
                 carried: list[str]) -> None:
        """The end of an iteration: progress, ticks, and every TICKS ticks the watch and
        (a loop without tapes in code a transform did not derive) on-stack replacement,
        which replaces the carried values with the loop's results and leaves it."""
        self.emit(depth, f"{progress}[0] += 1")
        self.emit(depth, "I.ticks += 1")
        self.emit(depth, f"if not I.ticks % {_interp.TICKS} and I.offload:")
        self.emit(depth + 1, "I.watch()")
        if tape_count(op) or self.fn.derived or not carried:
            return
        o = self.bind("O", op)
        env = "{" + ", ".join(f"{i}: v{i}" for i in sorted(free_values(op))) + "}"
        out = self.temp()
        self.emit(depth + 1, f"{out} = OSR({o}, {t0}, {progress}, {it}, {env}, "
                             f"[{', '.join(carried)}])")
        self.emit(depth + 1, f"if {out} is not None:")
        self.emit(depth + 2, f"{', '.join(carried)}, = {out}")
        self.emit(depth + 2, "break")

    def op_for(self, op: Op, depth: int) -> None:
        body = op.regions[0]
        args = body.args
        ntape = tape_count(op)
        carried = [f"v{a.id}" for a in args[1:]]
        inits = [f"v{v.id}" for v in op.operands[1:]]
        self.yield_to(depth, carried, inits)
        prog = self.temp()
        recs = [self.temp() for _ in range(ntape)]
        for t in recs:
            self.emit(depth, f"{t} = []")
        it = f"v{op.operands[0].id}"
        t0 = self.temp()
        self.emit(depth, f"{prog} = [0, TRIP_COUNT({it})]")
        self.emit(depth, f"{t0} = CLOCK()")
        self.emit(depth, f"I.loops.append({prog})")
        self.emit(depth, "try:")
        self.emit(depth + 1, f"for v{args[0].id} in ITERATE({it}):")
        out = self.region(body, depth + 2)
        n = len(carried)
        for t, v in zip(recs, out[n:], strict=False):
            self.emit(depth + 2, f"{t}.append({v})")
        self.yield_to(depth + 2, carried, out[:n])
        if not ntape:
            for a, name in zip(args[1:], carried, strict=False):
                if a.hint in STOP_FLAGS:
                    self.emit(depth + 2, f"if {name} is True or {name} is NP_TRUE: break")
        self.loop_end(op, depth + 2, prog, t0, it, carried)
        self.emit(depth, "finally:")
        self.emit(depth + 1, "I.loops.pop()")
        self.yield_to(depth, [f"v{r.id}" for r in op.results],
                      carried + [f"TAPE({t})" for t in recs])

    def op_while(self, op: Op, depth: int) -> None:
        cond_r, body = op.regions
        ntape = tape_count(op)
        carried = [self.temp() for _ in op.operands]
        self.yield_to(depth, carried, [f"v{v.id}" for v in op.operands])
        recs = [self.temp() for _ in range(ntape)]
        for t in recs:
            self.emit(depth, f"{t} = []")
        prog, t0 = self.temp(), self.temp()
        self.emit(depth, f"{prog} = [0, -1]")  # (a while loop's trip count is not known)
        self.emit(depth, f"{t0} = CLOCK()")
        self.emit(depth, f"I.loops.append({prog})")
        self.emit(depth, "try:")
        self.emit(depth + 1, "while True:")
        d = depth + 2
        self.yield_to(d, [f"v{a.id}" for a in cond_r.args], carried[: len(cond_r.args)])
        c = self.region(cond_r, d)[0]
        self.emit(d, f"if type({c}) is not bool: {c} = CONDITION({c})")
        self.emit(d, f"if not {c}: break")
        self.yield_to(d, [f"v{a.id}" for a in body.args], carried[: len(body.args)])
        out = self.region(body, d)
        n = len(carried)
        for t, v in zip(recs, out[n:], strict=False):
            self.emit(d, f"{t}.append({v})")
        self.yield_to(d, carried, out[:n])
        self.loop_end(op, d, prog, t0, "None", carried)
        self.emit(depth, "finally:")
        self.emit(depth + 1, "I.loops.pop()")
        self.yield_to(depth, [f"v{r.id}" for r in op.results],
                      carried + [f"TAPE({t})" for t in recs])

    def op_method(self, op: Op, depth: int) -> None:
        o = self.bind("O", op)
        types = ", ".join(f"v{v.id}" for v in op.operands)
        self.assign(op, depth, f"RT.define_method({o}, [{types}])")

    def op_struct(self, op: Op, depth: int) -> None:
        o = self.bind("O", op)
        vals = [f"v{v.id}" for v in op.operands]
        self.assign(op, depth, f"RT.define_struct({o}, {vals[0]}, [{', '.join(vals[1:])}])")

    def other(self, op: Op, depth: int) -> None:
        """An op a higher layer registered (e.g. AD's): its handler, given the operands."""
        handler = self.handlers.get(op.name)
        if handler is None or op.regions:
            raise Untranslatable(op.name)
        h = self.bind("X", handler)
        o = self.bind("O", op)
        env = "{" + ", ".join(f"{v.id}: v{v.id}" for v in op.operands) + "}"
        self.assign(op, depth, f"{h}(I, {o}, {env}, FN)")


def _num(t: str) -> str:
    """A guard that the type named `t` ("" for a constant's: no guard) is Float64 or Int64."""
    return f"({t} is float or {t} is int)" if t else ""


def _and(*parts: str) -> str:
    return " and ".join(p for p in parts if p) or "True"


_WRITERS: dict[str, Callable[[_Gen, Op, int], None]] = {
    "const": _Gen.op_const, "global": _Gen.op_global, "setglobal": _Gen.op_setglobal,
    "call": _Gen.op_call, "callv": _Gen.op_callv, "closure": _Gen.op_closure,
    "default": _Gen.op_default, "if": _Gen.op_if, "for": _Gen.op_for,
    "while": _Gen.op_while, "method": _Gen.op_method, "struct": _Gen.op_struct,
}

_PY_TYPES = {int: V.Int64T, float: V.Float64T, bool: V.BoolT, str: V.StringT,
             type(None): V.NothingT}


def _helpers(interp: Any, caller: Function) -> dict[str, Any]:
    """The names translated code refers to, bound to this interpreter, its runtime and
    the body that makes the calls (whose calls the tiering policy sees as its own)."""
    rt = interp.rt
    derived = caller.derived
    tiered = TIERED
    pytypes = _PY_TYPES
    run_function = interp.run_function

    def here(f: Any, body: Function, args: list) -> bool:
        """Whether a call of `body` (a method or closure body) runs on this interpreter
        now; False when the tiering policy must choose (`tiered_call`)."""
        if not interp.offload or derived:
            return True
        if body.host_skip:  # (the policy said: cheap, runs here)
            body.host_skip -= 1
            return True
        if body.host_active:  # (the policy would run it here: its outer activation is
            body.recursed = True  # on the host)
            return True
        return False

    def call(f: Any, args: list, kwargs: dict | None) -> Any:
        """What Interpreter.op_call/op_callv do with the callee and its arguments."""
        tf = type(f)
        if tf is Primitive:
            return interp.call_primitive(f, args, kwargs)
        if kwargs is None and tf is GenericFunction:
            m = f.dispatch([pytypes[type(a)] if type(a) in pytypes else typeof(a)
                            for a in args])
            body = m.fn
            if body is not None and m.prim is None and m.impl is None:
                if not here(f, body, args):
                    return interp.tiered_call(f, args, None, caller)
                if (not body.vararg and not body.nkw and not body.ncaptures
                        and len(args) == len(body.params)):
                    return run_function(body, args)
                return interp.run_method_fn(body, [], args, None, m)
        elif kwargs is None and tf is Closure and f.generic is None:
            if not here(f, f.fn, args):
                return interp.tiered_call(f, args, None, caller)
            return interp.run_method_fn(f.fn, list(f.captures), args, None)
        if interp.offload and tf in tiered and not derived:
            return interp.tiered_call(f, args, kwargs, caller)
        return interp.call_value(f, args, kwargs)

    def call_named(f: Any, name: str, args: list, kwargs: dict | None) -> Any:
        return call(rt.lookup(name) if f is DYNAMIC else f, args, kwargs)

    def cached(f: Any, key: Any, args: list) -> Method | None:
        """The method of a generic function for these arguments when their Python types
        determine it and its body takes them as they are (else None)."""
        if type(f) is not GenericFunction or not all(type(a) in pytypes for a in args):
            return None
        m = f.dispatch([pytypes[type(a)] for a in args])
        body = m.fn
        if (body is None or m.prim is not None or m.impl is not None or body.vararg
                or body.nkw or body.ncaptures or len(args) != len(body.params)):
            return None
        f.pycache[key] = m
        return m

    def call_typed(f: Any, name: str, key: Any, *args: Any) -> Any:
        """A call site of one to three positional arguments, given their Python types
        (`key`: the type, or the tuple of them): the method cached for those types, then
        what `call` would do with it, written out (a Zyla call from translated code costs
        one Python call less)."""
        if type(f) is GenericFunction:
            m = f.pycache.get(key) or cached(f, key, list(args))
            if m is not None:
                body = m.fn
                if interp.offload and not derived:
                    if body.host_skip:  # (the policy said: cheap, runs here)
                        body.host_skip -= 1
                    elif not body.host_active:
                        return interp.tiered_call(f, list(args), None, caller)
                    else:
                        body.recursed = True
                code = body.host_code
                if code is not None and code[0] is interp and code[1] is not None:
                    return code[1](*args)
                return run_function(body, list(args))
        return call_named(f, name, list(args), None)

    def osr(op: Op, t0: float, progress: list, it: Any, env: dict, carried: list) -> Any:
        """The loop's results when the rest of it ran compiled (lang.core.interp._OSR),
        or None to go on here."""
        hook = _interp._OSR[0]
        if hook is None:
            return None
        rest = None
        if op.name == "for":
            rest = _rest_of(it, progress[0])
            if rest is None:
                return None
        return hook(interp, caller, op, t0, progress, rest, env, carried)

    iterate = rt.iterate
    Range = V.Range

    def iterate_fast(it: Any) -> Any:
        if type(it) is Range and type(it.start) is int and type(it.step) is int:
            return range(it.start, it.start + it.length * it.step, it.step)
        return iterate(it)

    return {"I": interp, "RT": rt, "DYNAMIC": DYNAMIC, "WRAP": wrap_int64,
            "NP_TRUE": np.True_, "NP": np, "CLOSURE": Closure, "LOOKUP": rt.lookup,
            "SETGLOBAL": rt.set_global, "ITERATE_ALL": rt.iterate_all, "ITERATE": iterate_fast,
            "TRIP_COUNT": _trip_count, "CONDITION": _condition, "TAPE": Tape, "UNSET": UNSET,
            "KW_SPLAT": _kw_splat, "CALL_NAMED": call_named, "CALL_VALUE": call,
            "CALL_TYPED": call_typed, "OSR": osr,
            "CLOCK": time.perf_counter,
            "OVERFLOW": _overflow}


def _rest_of(it: Any, done: int) -> Any:
    """What a `for` over `it` still iterates after `done` iterations, as a value a loop
    can iterate (a range or a vector), or None for an iterator it cannot say."""
    if type(it) is V.Range:
        return it.drop(done)
    if type(it) is np.ndarray and it.dtype != object:
        return np.ascontiguousarray(it.reshape(-1)[done:])
    return None


def _condition(c: Any) -> bool:
    if isinstance(c, (bool, np.bool_)):
        return bool(c)
    raise ZylaError("TypeError", f"non-boolean ({V.type_name(typeof(c))}) used in boolean context")


def _overflow() -> ZylaError:
    return ZylaError("StackOverflowError", "recursion too deep")


def _fail(interp: Any, fn: Function, where: list[tuple[Op, ...]], e: Exception) -> BaseException:
    """The error a translated body raises for `e`, located as the interpreter locates it:
    at the op whose line raised it, then at each op around that one."""
    tb = e.__traceback__
    chain = where[tb.tb_lineno - 1] if tb is not None and 0 < tb.tb_lineno <= len(where) else ()
    if not chain:
        return e
    src = interp.rt.source_of(fn)
    op = chain[0]
    if isinstance(e, Unwind):
        for o in chain:
            e.locate(o.span, src)
        return e
    if isinstance(e, ZylaError):
        err = e
        if e.span is None and e.kind == "MethodError":
            refine_method_error(err, op, _env(tb))
    elif isinstance(e, RecursionError):
        err = ZylaError("StackOverflowError", "recursion too deep", op.span, src)
        err.__suppress_context__ = True
        for o in chain[1:]:
            err.located(o.span, src)
        return err
    else:
        err = interp.rt.translate_exception(e)
        refine_method_error(err, op, _env(tb))
        err.__cause__ = e
    for o in chain:
        err.located(o.span, src)
    return err


def _env(tb: Any) -> dict[int, Any]:
    """The values of a translated body's frame, by value id (for error messages)."""
    out: dict[int, Any] = {}
    for k, v in tb.tb_frame.f_locals.items():
        if k[:1] == "v" and k[1:].isdigit():
            out[int(k[1:])] = v
    return out


def code_for(interp: Any, fn: Function) -> Callable[..., Any] | None:
    """The translated body of `fn` for `interp`, translating it when it is wanted; None
    while it runs on the interpreter loop."""
    code = fn.host_code
    if code is not None and code[0] is interp:
        return code[1]
    if not ENABLED or not wanted(fn):
        return None
    run = translate(interp, fn)
    fn.host_code = (interp, run)
    return run


set_translator(code_for)
