"""The host interpreter: runs IR functions on host values with Julia semantics.

It is an interpreter loop over ops with one handler per op name (`OP_HANDLERS`); calls
go through `call_value`, which does multiple dispatch. The compiled tier
(backend.lower_jax) subclasses `Interpreter` and overrides the control-flow handlers
and the primitive implementation it picks, so both tiers share one semantics.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from grammar.errors import SourceFile, Unwind, ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.functions import Closure, GenericFunction, Method, PyCallable, call_methods, typeof
from lang.core.ir import Function, Op, Region
from lang.core.lower import UNDEF
from lang.core.primitives import Primitive

#: The compile tier's entry, `(rt, f, args, kwargs) -> (done, result)`; installed by the
#: front door (lang.door.wiring). Without one, every call runs on the host.
_OFFLOAD: list[Callable[..., tuple[bool, Any]] | None] = [None]
#: The tiering policy, `(interp, f, args, kwargs, caller) -> result`: it runs a call of a
#: Zyla function either compiled or on this interpreter (lang.door.wiring installs it).
_TIER: list[Callable[..., Any] | None] = [None]


def set_offload(tier: Callable[..., tuple[bool, Any]] | None,
                policy: Callable[..., Any] | None = None) -> None:
    """Install (or, with None, remove) the compile tier, and the policy that every call of
    a Zyla function made by host-run code goes through (without one, calls from top-level
    code are offered to the compile tier and all others run here)."""
    _OFFLOAD[0] = tier
    _TIER[0] = policy


#: Called every TICKS loop iterations and function calls the host runs, `(interp) ->
#: None`: the tiering policy may then move a long-running call to the compile tier (by
#: raising past it).
_WATCH: list[Callable[[Any], None] | None] = [None]
TICKS = 1024


#: The host-code translator, `(interp, fn) -> Python function of fn's body arguments or
#: None` (lang.core.hostcode installs it): bodies it translates run as Python code.
_TRANSLATE: list[Callable[..., Any] | None] = [None]


def set_translator(translate: Callable[..., Any] | None) -> None:
    """Install (or remove) the translator of IR bodies into Python functions."""
    _TRANSLATE[0] = translate


#: On-stack replacement of a long host loop, `(interp, fn, op, t0, progress, rest, env,
#: carried) -> list | None`: given a `for`/`while` op of `fn` running on the host since
#: `t0` (perf_counter), its progress entry, the rest of its iteration (`for`; None for a
#: `while`), the values its regions read from around it (by value id) and its carried
#: values now, it runs the rest of the loop compiled and returns the op's results, or
#: returns None to let the host go on (lang.door.wiring installs the tiering policy's).
_OSR: list[Callable[..., Any] | None] = [None]


def set_osr(osr: Callable[..., Any] | None) -> None:
    """Install (or remove) the on-stack replacement of long host loops."""
    _OSR[0] = osr


def set_watch(watch: Callable[[Any], None] | None) -> None:
    """Install (or remove) the hook called every TICKS loop iterations and calls."""
    _WATCH[0] = watch


#: Callees the tiering policy sees: Zyla functions, closures and callable structs
#: (primitives and types are called directly).
TIERED = frozenset((GenericFunction, Closure, V.StructValue))


class Unset:
    """The value of a keyword/optional parameter the caller did not pass."""

    def __repr__(self) -> str:
        return "unset"


UNSET = Unset()


class Tape:
    """Per-iteration values a loop recorded for its adjoint (host: a list)."""

    def __init__(self, items: list | None = None) -> None:
        self.items: list = items if items is not None else []

    def jl_show(self) -> str:
        return f"Tape({len(self.items)})"


STOP_FLAGS = ("#brk", "#ret")


class Interpreter:
    """Runs IR on the host. `rt` is the lang.core.runtime.Runtime holding globals."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.depth = 0
        self.offload = True  # the host tier offloads calls to the compile tier
        self.effects = 0  # state changes a caller can see, so far (Primitive.effect, globals)
        self.ticks = 0  # loop iterations and function calls run so far
        self.loops: list[list[int]] = []  # [done, trip count or -1] of the running loops
        # bodies run as translated Python code (lang.core.hostcode); a subclass that
        # changes how ops run (the compile tier's tracer) walks them itself
        self.translates = type(self) is Interpreter

    @contextmanager
    def host_only(self) -> Iterator[None]:
        """Within: every call runs on this interpreter (the reference semantics that
        differential tests compare the compile tier with), none goes to the compile tier."""
        was, self.offload = self.offload, False
        try:
            yield
        finally:
            self.offload = was

    # --- running functions -------------------------------------------------------------

    def run_function(self, fn: Function, args: list[Any]) -> Any:
        if self.translates and _TRANSLATE[0] is not None:
            code = fn.host_code  # (interp, translated body or None), once decided
            run = code[1] if code is not None and code[0] is self else _TRANSLATE[0](self, fn)
            if run is not None and len(args) == len(fn.body.args):
                return run(*args)
        return self.run_loop(fn, args)

    def run_loop(self, fn: Function, args: list[Any]) -> Any:
        """Run `fn`'s body by walking its ops (not its translation)."""
        self.ticks += 1
        if not self.ticks % TICKS and self.offload:
            self.watch()
        self.depth += 1
        if self.depth > 4000:
            self.depth = 0
            raise ZylaError("StackOverflowError", "recursion too deep")
        try:
            env: dict[int, Any] = {}
            body = fn.body
            for a, v in zip(body.args, args, strict=False):
                env[a.id] = v
            return self.run_region(body, env, fn)[0]
        finally:
            self.depth -= 1

    def run_region(self, region: Region, env: dict[int, Any], fn: Function) -> list[Any]:
        handlers = self.handlers
        for op in region.ops:
            name = op.name
            if name == "yield" or name == "return":
                return [env[v.id] for v in op.operands]
            try:
                out = handlers[name](self, op, env, fn)
            except ZylaError as e:
                if e.span is None and e.kind == "MethodError":
                    refine_method_error(e, op, env)
                e.located(op.span, self.rt.source_of(fn))  # (in place: returns e itself)
                raise
            except Unwind as u:
                u.locate(op.span, self.rt.source_of(fn))
                raise
            except RecursionError:
                raise ZylaError("StackOverflowError", "recursion too deep", op.span,
                                self.rt.source_of(fn)) from None
            except Exception as e:  # a Python error inside a built-in: report it as Julia would
                err = self.rt.translate_exception(e)
                refine_method_error(err, op, env)
                raise err.located(op.span, self.rt.source_of(fn)) from e
            res = op.results
            if len(res) == 1:
                env[res[0].id] = out
            elif res:
                for r, v in zip(res, out, strict=False):
                    env[r.id] = v
        raise ZylaError("InternalError", "region without terminator")

    # --- calls ---------------------------------------------------------------------------

    def call_value(self, f: Any, args: list[Any], kwargs: dict[str, Any] | None = None) -> Any:
        """Call any Julia callable with positional and keyword arguments."""
        if isinstance(f, GenericFunction):
            m = f.dispatch([typeof(a) for a in args])
            return self.invoke(m, args, kwargs)
        if isinstance(f, Closure):
            if f.generic is not None:
                m = f.generic.dispatch([typeof(a) for a in args])
                return self.invoke(m, args, kwargs, list(f.captures))
            return self.run_method_fn(f.fn, list(f.captures), args, kwargs)
        if isinstance(f, Primitive):
            return self.call_primitive(f, args, kwargs)
        if isinstance(f, PyCallable):
            return f.impl(*args, **(kwargs or {}))
        if isinstance(f, V.JType):
            return self.rt.construct(f, args, kwargs, self)
        return self.call_value(call_methods(f), [f] + args, kwargs)

    def call_primitive(self, p: Primitive, args: list, kwargs: dict | None) -> Any:
        """Run a primitive's host implementation (the compiled tier runs its lowering)."""
        impl = p.host
        if p.effect:
            self.effects += 1
        if p.needs_interp:
            return impl(self, *args, **kwargs) if kwargs else impl(self, *args)
        return impl(*args, **kwargs) if kwargs else impl(*args)

    def invoke(self, m: Method, args: list[Any], kwargs: dict | None,
               captures: list | None = None) -> Any:
        if m.prim is not None:
            return self.call_primitive(m.prim, args, kwargs)
        if m.impl is not None:
            return m.impl(*args, **kwargs) if kwargs else m.impl(*args)
        assert m.fn is not None
        return self.run_method_fn(m.fn, captures or [], args, kwargs, m)

    def run_method_fn(self, fn: Function, captures: list, args: list, kwargs: dict | None,
                      m: Method | None = None) -> Any:
        return self.run_function(fn, self.bind_args(fn, captures, args, kwargs))

    def bind_args(self, fn: Function, captures: list, args: list, kwargs: dict | None) -> list:
        """Arrange call arguments as the body's parameter list: captures, positional
        (optional ones UNSET, varargs as a tuple), then keywords (UNSET if absent)."""
        npos = len(fn.params) - fn.ncaptures - fn.nkw
        if len(captures) > fn.ncaptures:
            # values bound beyond the body's captures are its first arguments (a callable
            # struct's method run as a closure over the struct, autodiff.forward_callable)
            args = list(captures[fn.ncaptures:]) + list(args)
            captures = captures[:fn.ncaptures]
        out = list(captures)
        if fn.vararg:
            fixed = npos - 1
            out += args[:fixed]
            out += [UNSET] * (fixed - len(args[:fixed]))
            out.append(tuple(args[fixed:]))
        else:
            if len(args) > npos:
                raise ZylaError("MethodError",
                                f"no method matching {fn.name} with {len(args)} arguments")
            out += args
            out += [UNSET] * (npos - len(args))
        if fn.nkw:
            kwnames = fn.params[len(fn.params) - fn.nkw:]
            kw = dict(kwargs or {})
            for k in kwnames[:-1] if fn.kwvararg else kwnames:
                out.append(kw.pop(k, UNSET))
            if fn.kwvararg:  # `kw...` collects the rest, as a NamedTuple
                out.append(V.NamedTuple(tuple(kw), tuple(kw.values())))
                kw = {}
            if kw:
                if kwnames and kwnames[-1].startswith("#kw"):
                    pass
                else:
                    bad = ", ".join(kw)
                    raise ZylaError("MethodError",
                                    f"{fn.name} got unsupported keyword argument {bad}")
        elif kwargs:
            bad = ", ".join(kwargs)
            raise ZylaError("MethodError", f"{fn.name} got unsupported keyword argument {bad}")
        return out

    def call_args(self, op: Op, env: dict[int, Any], start: int) -> tuple[list, dict | None]:
        """Positional and keyword argument values of a call op (operands from `start`)."""
        vals = [env[v.id] for v in op.operands[start:]]
        kw = op.attrs.get("kw") or ()
        kwargs = None
        if kw:
            pos, kvals = vals[: len(vals) - len(kw)], vals[len(vals) - len(kw):]
            kwargs = {}
            for k, v in zip(kw, kvals, strict=False):
                if k == "...":
                    kwargs.update(_kw_splat(v))
                else:
                    kwargs[k] = v
            vals = pos
        splat = op.attrs.get("splat") or ()
        if splat:
            out: list = []
            for i, v in enumerate(vals):
                if i + start in splat:
                    out.extend(self.rt.iterate_all(v))
                else:
                    out.append(v)
            vals = out
        return vals, kwargs

    # --- op handlers -----------------------------------------------------------------------

    def op_const(self, op: Op, env: dict, fn: Function) -> Any:
        return op.attrs["value"]

    def op_global(self, op: Op, env: dict, fn: Function) -> Any:
        return self.rt.lookup(op.attrs["name"])

    def op_setglobal(self, op: Op, env: dict, fn: Function) -> Any:
        self.effects += 1
        self.rt.set_global(op.attrs["name"], env[op.operands[0].id])
        return None

    def op_call(self, op: Op, env: dict, fn: Function) -> Any:
        attrs = op.attrs
        f = self.rt.lookup(attrs["fn"])
        if type(f) is Primitive and not attrs.get("kw") and not attrs.get("splat"):
            # the most common call, kept short: a primitive with positional arguments
            return self.call_primitive(f, [env[v.id] for v in op.operands], None)
        args, kwargs = self.call_args(op, env, 0)
        if self.offload and type(f) in TIERED and not fn.derived:
            return self.tiered_call(f, args, kwargs, fn)
        return self.call_value(f, args, kwargs)

    def op_callv(self, op: Op, env: dict, fn: Function) -> Any:
        f = env[op.operands[0].id]
        args, kwargs = self.call_args(op, env, 1)
        if self.offload and type(f) in TIERED and not fn.derived:
            return self.tiered_call(f, args, kwargs, fn)
        return self.call_value(f, args, kwargs)

    def tiered_call(self, f: Any, args: list, kwargs: dict | None, caller: Function) -> Any:
        """A call of a Zyla callable made by host-run code in `caller`: the installed
        policy chooses the tier; without one, only top-level calls may run compiled."""
        policy = _TIER[0]
        if policy is not None:
            return policy(self, f, args, kwargs, caller)
        if caller.name == "toplevel":
            done, v = self.try_offload(f, args, kwargs)
            if done:
                return v
        return self.call_value(f, args, kwargs)

    def try_offload(self, f: Any, args: list, kwargs: dict | None) -> tuple[bool, Any]:
        """Calls from top-level code run compiled when the compile tier (installed with
        `set_offload`) accepts them: `(True, result)`, else `(False, None)`."""
        tier = _OFFLOAD[0]
        if tier is None:
            return False, None
        return tier(self.rt, f, args, kwargs)

    def op_closure(self, op: Op, env: dict, fn: Function) -> Any:
        caps = tuple(env[v.id] for v in op.operands)
        return Closure(op.attrs["func"], caps, op.attrs.get("name", "#anon"))

    def op_default(self, op: Op, env: dict, fn: Function) -> Any:
        v = env[op.operands[0].id]
        if v is UNSET:
            return self.run_region(op.regions[0], env, fn)[0]
        return v

    def op_if(self, op: Op, env: dict, fn: Function) -> Any:
        c = env[op.operands[0].id]
        if not isinstance(c, (bool, np.bool_)):
            raise ZylaError("TypeError",
                            f"non-boolean ({V.type_name(typeof(c))}) used in boolean context")
        out = self.run_region(op.regions[0] if c else op.regions[1], env, fn)
        return out[0] if len(op.results) == 1 else out

    def op_for(self, op: Op, env: dict, fn: Function) -> Any:
        it = env[op.operands[0].id]
        carried = [env[v.id] for v in op.operands[1:]]
        ntape = tape_count(op)
        recs: list[list] = [[] for _ in range(ntape)]
        # iterations done, of how many (-1: unknown), since when
        progress = [0, _trip_count(it), time.perf_counter()]
        self.loops.append(progress)
        try:
            carried = self.for_iterations(op, env, fn, self.rt.iterate(it), carried, progress,
                                          recs)
        finally:
            self.loops.pop()
        if ntape:
            carried = carried + [Tape(r) for r in recs]
        return carried[0] if len(op.results) == 1 else carried

    def for_iterations(self, op: Op, env: dict, fn: Function, items: Any, carried: list,
                       progress: list, recs: list[list]) -> list:
        """The `for` loop op's body run for each of `items` from the `carried` values
        (env holds the values it reads from outside), its iterations counted in
        `progress`, its tapes' entries recorded into `recs`: the carried values after
        the last iteration. (Also the general form of a translated loop that does not
        translate: lang.core.hostcode `_interpreted_loop`.)"""
        body = op.regions[0]
        args = body.args
        # `break`/`return` set a carried flag and the remaining iterations do nothing; stop
        # when one is set (an infinite iterator needs it). A loop that records tapes keeps
        # one entry per element, which its adjoint expects.
        stops = [] if recs else [k for k, a in enumerate(args[1:]) if a.hint in STOP_FLAGS]
        for x in items:
            env[args[0].id] = x
            for a, v in zip(args[1:], carried, strict=False):
                env[a.id] = v
            out = self.run_region(body, env, fn)
            if recs:
                out = _record(out, recs)
            carried = out
            if any(carried[k] is True or carried[k] is np.True_ for k in stops):
                break
            progress[0] += 1
            self.ticks += 1
            if not self.ticks % TICKS and self.offload:
                self.watch()
        return carried

    def op_while(self, op: Op, env: dict, fn: Function) -> Any:
        carried = [env[v.id] for v in op.operands]
        ntape = tape_count(op)
        recs: list[list] = [[] for _ in range(ntape)]
        self.loops.append([0, -1, time.perf_counter()])  # (a while's trip count: unknown)
        try:
            carried = self._while(op, env, fn, carried, recs)
        finally:
            self.loops.pop()
        if ntape:
            carried = carried + [Tape(r) for r in recs]
        return carried[0] if len(op.results) == 1 else carried

    def _while(self, op: Op, env: dict, fn: Function, carried: list, recs: list) -> list:
        cond_r, body = op.regions
        ntape = len(recs)
        while True:
            for a, v in zip(cond_r.args, carried, strict=False):
                env[a.id] = v
            c = self.run_region(cond_r, env, fn)[0]
            if not isinstance(c, (bool, np.bool_)):
                raise ZylaError("TypeError",
                                f"non-boolean ({V.type_name(typeof(c))}) used in boolean context")
            if not c:
                break
            for a, v in zip(body.args, carried, strict=False):
                env[a.id] = v
            out = self.run_region(body, env, fn)
            if ntape:
                out = _record(out, recs)
            carried = out
            self.ticks += 1
            if not self.ticks % TICKS and self.offload:
                self.watch()
        return carried

    def watch(self) -> None:
        """Every TICKS loop iterations and calls: the installed watch may move the
        running call to the compile tier (see set_watch)."""
        w = _WATCH[0]
        if w is not None:
            w(self)

    def op_method(self, op: Op, env: dict, fn: Function) -> Any:
        types = [env[v.id] for v in op.operands]
        return self.rt.define_method(op, types)

    def op_struct(self, op: Op, env: dict, fn: Function) -> Any:
        vals = [env[v.id] for v in op.operands]
        return self.rt.define_struct(op, vals[0], vals[1:])

    handlers: dict[str, Callable[..., Any]] = {}


def _trip_count(it: Any) -> int:
    """How many iterations a `for` over `it` makes, or -1 when not known in advance."""
    t = type(it)
    if t is V.Range:
        return it.length
    if t is np.ndarray:
        return it.size
    if t is tuple or t is list:
        return len(it)
    if t is Tape:
        return len(it.items)
    return -1


def loop_progress(loops: list[list]) -> float | None:
    """The fraction of the running loop nest done (outermost loop first, each inner loop
    a fraction of one outer iteration), or None when a trip count is not known. Each
    entry is [iterations done, trip count (-1: unknown), the loop's start time]."""
    frac = 0.0
    for done, total, _t0 in reversed(loops):
        if total <= 0:
            return None
        frac = min(1.0, (done + frac) / total)
    return frac


def tape_count(op: Op) -> int:
    """How many tapes a loop records (attrs `tape`: true is one, an int k is k): its body
    yields that many trailing values per iteration, and the loop returns one Tape each."""
    t = op.attrs.get("tape")
    return int(t) if t else 0


def _record(out: list, recs: list[list]) -> list:
    """Append the trailing tape entries of a loop body's yield to `recs`; return the rest."""
    k = len(out) - len(recs)
    for r, v in zip(recs, out[k:], strict=False):
        r.append(v)
    return out[:k]


def _kw_splat(v: Any) -> dict:
    """The keywords of `f(; v...)`: a NamedTuple's fields, or, as Julia's `merge(nt, itr)`,
    the items of any collection of `Symbol => value` Pairs or `(Symbol, value)` tuples (a
    Dict, `pairs(nt)`, `[(:y, 1)]`). Anything else is an error, never dropped."""
    if isinstance(v, V.NamedTuple):
        return dict(zip(v.names, v.values, strict=False))
    items = v.items() if isinstance(v, dict) else map(_kw_item, current.runtime().iterate_all(v))
    out = {}
    for k, x in items:
        if not isinstance(k, V.Symbol):
            raise ZylaError("TypeError", "in typeassert, expected Symbol, got a value of type "
                            f"{V.type_name(typeof(k))}")
        out[k.name] = x
    return out


def _kw_item(x: Any) -> tuple:
    """One splatted keyword as (key, value): a Pair or a 2-tuple."""
    if type(x) is V.StructValue and x.type.family.name == "Pair":
        return tuple(x.fields)
    if isinstance(x, tuple) and len(x) == 2:
        return x
    raise ZylaError("ArgumentError", "keyword argument splatting takes Pairs or 2-tuples "
                    f"(Symbol, value); got a value of type {V.type_name(typeof(x))}")


OP_HANDLERS: dict[str, Callable[..., Any]] = {
    "const": Interpreter.op_const,
    "global": Interpreter.op_global,
    "setglobal": Interpreter.op_setglobal,
    "call": Interpreter.op_call,
    "callv": Interpreter.op_callv,
    "closure": Interpreter.op_closure,
    "default": Interpreter.op_default,
    "if": Interpreter.op_if,
    "for": Interpreter.op_for,
    "while": Interpreter.op_while,
    "method": Interpreter.op_method,
    "struct": Interpreter.op_struct,
}
Interpreter.handlers = OP_HANDLERS

_ = (UNDEF, SourceFile)


# Python exceptions a built-in may leak as a MethodError, and messages that name no call
_PY_ERROR = re.compile(r"^(TypeError|ValueError|AttributeError|KeyError|IndexError|"
                       r"NotImplementedError)\b")
_GENERIC_METHOD_ERRORS = ("no method for these argument types",)


def refine_method_error(err: ZylaError, op: Any, env: dict) -> None:
    """Rewrite a MethodError that a built-in raised without naming the call (a Python
    exception translated to a MethodError, or a generic message) as Julia names it:
    `no method matching f(::T1, ::T2)`, using the call op and its argument values.
    The Python detail is kept only under ZYLA_DEBUG=1."""
    if err.kind != "MethodError" or op.name not in ("call", "callv"):
        return
    if err.message not in _GENERIC_METHOD_ERRORS and not _PY_ERROR.match(err.message):
        return
    try:
        start = 0 if op.name == "call" else 1
        if op.name == "call":
            name = str(op.attrs.get("fn", "f"))
        else:
            callee = env.get(op.operands[0].id)
            name = getattr(callee, "name", None) or V.type_name(typeof(callee))
        nkw = len(op.attrs.get("kw") or ())
        operands = op.operands[start: len(op.operands) - nkw]
        types = [V.type_name(typeof(env[v.id])) for v in operands]
    except Exception:  # the original message is still correct, only less helpful
        return
    if name.startswith("Core.") or name.startswith("#"):
        return
    detail = err.message
    err.message = f"no method matching {name}({', '.join('::' + t for t in types)})"
    err.args = (f"{err.kind}: {err.message}",)
    if os.environ.get("ZYLA_DEBUG", "") not in ("", "0") and detail not in _GENERIC_METHOD_ERRORS:
        err.hint = (err.hint + "\n" if err.hint else "") + f"(Python: {detail})"
