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

import collections
import functools
import itertools
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grammar.errors import Unwind, ZylaError
from lang.core import interp as _interp
from lang.core import values as V
from lang.core.bindings import DYNAMIC
from lang.core.builtins_dict import EXACT_VALUE_TYPES, DictT, JDict
from lang.core.builtins_mutate import AS_IS_DTYPE, push_value
from lang.core.eltypes import push_many, push_one, pushable, recorded
from lang.core.functions import Closure, GenericFunction, Method, typeof
from lang.core.hostkeys import (
    ASCII_TEXT,
    INT_RANGE,
    RANGE_UP_FROM,
    TEXTS_KEY,
    ArrayKey,
    DictKey,
    host_key,
)
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
from lang.core.numeric import PY_ITEM_DTYPES, host_scalar
from lang.core.primitives import _I64_MAX, _I64_MIN, PRIMITIVES, Primitive, wrap_int64
from lang.core.strings import SubStr, split_texts

#: ZYLA_HOSTCODE=0 runs every body on the interpreter loop (the reference the
#: differential tests compare translated code with)
ENABLED = os.environ.get("ZYLA_HOSTCODE", "1") not in ("0", "")
#: ZYLA_HOSTCODE_SPEC=0 translates each body once, for arguments of any type (the
#: reference the specialisations are compared with)
SPECIALIZE = os.environ.get("ZYLA_HOSTCODE_SPEC", "1") not in ("0", "")
#: ZYLA_HOSTCODE_LOOPS=0 writes no loop specialisations (`_Gen.loop_entry`)
LOOP_SPECS = os.environ.get("ZYLA_HOSTCODE_LOOPS", "1") not in ("0", "")
#: ZYLA_HOSTCODE_LAZY=0 writes the general form of a loop that has an entry to its
#: specialisations where the loop is, not when it is first needed (`_Gen.lazy_loop`)
LAZY_LOOPS = os.environ.get("ZYLA_HOSTCODE_LAZY", "1") not in ("0", "")
#: ZYLA_HOSTCODE_PUSHES=0 writes every push! of a loop as it runs (`_Gen.push_buffer`)
PUSH_BUFFERS = os.environ.get("ZYLA_HOSTCODE_PUSHES", "1") not in ("0", "")
#: a loop of fewer iterations is specialised on its third entry only (its first entries
#: cost less than writing and compiling its specialisation)
LOOP_SPEC_TRIPS = 32


#: binary primitives written inline for Python ints and floats: name -> Python operator,
#: and whether int op int is an Int64 result that may wrap (else a Bool)
_BINARY = {"+": ("+", True), "-": ("-", True), "*": ("*", True),
           "<": ("<", False), "<=": ("<=", False), ">": (">", False), ">=": (">=", False),
           "==": ("==", False), "!=": ("!=", False)}


#: what an operand of an inline Int64/Float64 case may be known as (None: not known)
_MAYBE_NUMBER = (None, int, float)
#: a value known to be a range of Int64s (`a:b` of Int64s): a `for` over it iterates Int64s
IRANGE = "Int64 range"
#: what the characters of an ASCII String iterated as its text are known as (one-character
#: Python strings, standing for their Chars: `_Gen.raw_chars`)
RAWCHAR = "ASCII character"
#: a self-call's result type while the body's return type is being found (no return seen)
BOTTOM = "bottom"
#: how often a specialisation is regenerated while its loop and return types settle
SPEC_PASSES = 12


def _scalar(t: Any) -> bool:
    """Whether t is an argument type a body is specialised for: Python's type of Int64,
    Float64 or Bool values (by identity: `t in (int, float, bool)` compares a JType with
    each by `==`, which dispatch-heavy code paid for millions of times)."""
    return t is int or t is float or t is bool


def _join(a: Any, b: Any) -> Any:
    """What a value known as `a` on one path and as `b` on another is known as."""
    if a is BOTTOM:
        return b
    if b is BOTTOM:
        return a
    return a if a == b else None


#: ops that call no Zyla code themselves (their regions' ops are written one by one)
_NO_CALLS = frozenset({"const", "global", "setglobal", "if", "while", "default", "closure"})
#: the test that an int result is an Int64: a one-digit range first, because CPython
#: compares one-digit ints with a specialised instruction and most results are small
#: (fib(22): 2.6 ms against 2.8-3.1 with the Int64 range alone); the one-sided tests
#: likewise (a loop of additions: 9.5 ms against 10.4-10.9)
_DIGIT = 2**30 - 1  # (the largest one-digit int)
_I64 = f"(-{_DIGIT} <= {{r}} <= {_DIGIT} or {_I64_MIN} <= {{r}} <= {_I64_MAX})"
_ABOVE_I64 = f"{{r}} > {_DIGIT} and {{r}} > {_I64_MAX}"
_BELOW_I64 = f"{{r}} < -{_DIGIT} and {{r}} < {_I64_MIN}"


def _binary_type(ta: Any, tb: Any, arith: bool) -> Any:
    """The Python type of `a op b` for Int64/Float64 operands of types ta and tb (None
    when not both are known numbers)."""
    if ta is BOTTOM and tb is BOTTOM:
        return BOTTOM
    ta = tb if ta is BOTTOM else ta
    tb = ta if tb is BOTTOM else tb
    if ta not in (int, float) or tb not in (int, float):
        return None
    if not arith:
        return bool
    return int if ta is int and tb is int else float


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


def _translate_general(interp: Any, fn: Function) -> Callable[..., Any] | None:
    """`fn`'s body translated for arguments of any type (None: it stays on the
    interpreter loop)."""
    try:
        return _Gen(interp, fn).build_general(", ".join(f"v{a.id}" for a in fn.body.args))
    except (Untranslatable, SyntaxError, RecursionError, MemoryError, ValueError):
        return None


def specialize(interp: Any, fn: Function, key: tuple,
               dropped: Callable[[], None]) -> Callable[..., Any] | None:
    """`fn`'s body translated for arguments of the Python types `key` (Int64, Float64,
    Bool): the result types of scalar arithmetic follow from the argument types, so it is
    written without type tests, and a call of the body's own method with arguments of
    these types calls the specialisation directly. Called as `spec(args..., depth)`
    where depth is the interpreter depth of the new activation. The types of loop-carried
    values and of the body's result are found by regenerating until they settle. None
    when the body has nothing to gain or does not translate."""
    ret: Any = BOTTOM
    loops: dict[int, list] = {}
    texts_off: set[int] = set()
    try:
        for _ in range(SPEC_PASSES):
            g = _Gen(interp, fn, key, ret, loops, texts_off=texts_off)
            g.write()
            if g.retry:
                loops = g.loop_types
                continue
            if not g.selfcalls or ret is None or (ret is not BOTTOM and g.ret_type == ret):
                if not g.calls_out and not g.direct:  # (nothing needs the depth: drop it)
                    h = _Gen(interp, fn, key, ret, loops, nodepth=True, texts_off=texts_off)
                    h.write()
                    if not h.retry and not h.calls_out and not h.direct:
                        return h.finish(dropped)
                return g.finish(dropped)
            ret = g.ret_type if ret is BOTTOM and g.ret_type not in (BOTTOM, IRANGE) else None
            loops = {}
    except (Untranslatable, SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    return None


#: the (body, argument types) whose specialisation is being written (a call back into
#: one of them is not made a direct call: mutual recursion goes the general way)
_MAKING: set[tuple[int, tuple]] = set()


def spec_table(interp: Any, fn: Function) -> dict[Any, Any]:
    """`fn`'s specialisations on `interp`, by argument types (the type for one argument,
    else the tuple of them); False where there is none for those types."""
    t = fn.host_specs
    if t is None or t[0] is not interp:
        t = fn.host_specs = (interp, {})
    return t[1]


def spec_for(interp: Any, fn: Function, key: tuple) -> Any:
    """`fn`'s specialisation for arguments of the Python types `key`, made once (False
    when there is none, or while it is being made)."""
    table = spec_table(interp, fn)
    k = key[0] if len(key) == 1 else key
    out = table.get(k)
    if out is not None:
        return out
    if (id(fn), key) in _MAKING or not all(_scalar(t) or V.plain_struct(t) for t in key):
        return False
    _MAKING.add((id(fn), key))
    try:
        out = specialize(interp, fn, key, lambda: table.pop(k, None)) or False
    finally:
        _MAKING.discard((id(fn), key))
    table[k] = out
    return out


def _general_call(interp: Any, call_named: Callable[..., Any], name: str,
                  depth: bool = True) -> Callable[..., Any]:
    """What a specialisation's direct call of `name` becomes once its assumptions are
    dropped: the general call (`spec(args..., dd)`'s depth argument restored first, for
    a call that passes one)."""

    def general(*a: Any) -> Any:
        before = interp.depth  # (a specialisation's own calls leave I.depth as it was)
        interp.depth = a[-1] - 1
        try:
            return call_named(DYNAMIC, name, list(a[:-1]), None)
        finally:
            interp.depth = before

    def general_nodepth(*a: Any) -> Any:
        return call_named(DYNAMIC, name, list(a), None)

    return general if depth else general_nodepth


#: the `spec` of a loop specialisation's writer (it has no argument types: `known` holds
#: the kinds of the values the loop uses from outside)
_LOOP_SPEC = ("loop",)


def _loop_spec(interp: Any, fn: Function, op: Op, kinds: dict[int, Any],
               lits: dict[int, str], consts: dict[int, Any],
               dropped: Callable[[], None], resume: bool = False) -> Callable[..., Any] | None:
    """The `for` loop `op` of `fn`'s body written for values (by id) of these kinds
    (`host_key`s; `lits`, `consts`: the constants it uses from outside), see
    `_Gen.write_loop` (`resume`: it takes the carried values to start from). The types of
    its carried values are found by writing it again until they settle. None when it
    does not translate."""
    loops: dict[int, list] = {}
    texts_off: set[int] = set()
    params = list(kinds)
    try:
        for _ in range(SPEC_PASSES):
            g = _Gen(interp, fn, _LOOP_SPEC, None, loops, texts_off=texts_off)
            g.known.update({i: _KNOWN_OF_KEY.get(k, k if type(k) in _KINDS else None)
                            for i, k in kinds.items()})
            g.consts.update(consts)
            g.lits.update(lits)
            g.known.update({i: type(consts[i]) for i in lits})
            g.ascii = {i for i, k in kinds.items() if k is ASCII_TEXT}
            g.range_lo = {i: RANGE_UP_FROM[k] for i, k in kinds.items()
                          if type(k) is str and k in RANGE_UP_FROM}
            g.write_loop(op, params, resume)
            if g.retry:
                loops = g.loop_types
                continue
            return g.finish_loop(dropped)
    except (Untranslatable, SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    return None


#: what a value of a key's kind is known as in a loop specialisation (`_KINDS`: the keys
#: known as themselves; any other: not known)
_KNOWN_OF_KEY: dict[Any, Any] = {int: int, float: float, bool: bool, str: str,
                                 SubStr: SubStr, INT_RANGE: IRANGE,
                                 **dict.fromkeys(RANGE_UP_FROM, IRANGE),
                                 ASCII_TEXT: str}
_KINDS = (DictKey, ArrayKey)


def _live(op: Op) -> list[int]:
    """The ids of the values a loop op uses from outside: its operands and what its
    regions read."""
    return sorted(free_values(op) | {v.id for v in op.operands})


def _has_loop(fn: Function) -> bool:
    return any(op.name in ("for", "while") for op in walk_ops(fn.body))


def _reads_fields(fn: Function) -> bool:
    """Whether the body reads a field of one of its arguments (`a.x`)."""
    args = {a.id for a in fn.body.args}
    return any(op.name == "call" and op.attrs.get("fn") == "getproperty" and op.operands
               and op.operands[0].id in args for op in walk_ops(fn.body))


def _spec_worthy(interp: Any, fn: Function) -> bool:
    """Whether a body may gain from specialisation (which costs a Python call on entry):
    it has a loop, it calls itself (the self-calls skip dispatch and the policy), or it
    reads fields of its arguments (their types make the reads plain)."""
    if fn.derived or fn.name == "toplevel":
        return False
    if _reads_fields(fn):
        return True
    resolve = interp.rt.watch.resolve
    for op in walk_ops(fn.body):
        if op.name in ("for", "while"):
            return True
        if op.name == "call":
            g = resolve(op.attrs["fn"])
            if type(g) is GenericFunction and any(m.fn is fn for m in g.methods):
                return True
    return False


def _use_regions(body: Region) -> dict[int, Region]:
    """The region holding a use of each value (for a value used once: its only use)."""
    out: dict[int, Region] = {}

    def walk(region: Region) -> None:
        for op in region.ops:
            for v in op.operands:
                out[v.id] = region
            for r in op.regions:
                walk(r)

    walk(body)
    return out


#: Int64 bounds implied by `x rel c` being true (c a constant): (low, high), None unbounded
_REL_BOUNDS: dict[str, Callable[[int], tuple[int | None, int | None]]] = {
    "<": lambda c: (None, c - 1), "<=": lambda c: (None, c), ">": lambda c: (c + 1, None),
    ">=": lambda c: (c, None), "==": lambda c: (c, c), "!=": lambda c: (None, None)}
#: `a rel b` as `b rel' a`, and the relation that holds when `a rel b` is false
_REL_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_REL_NOT = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def _marker(vid: int) -> str:
    """What `ref` writes for a folded value: replaced when the source is finished, by the
    value's expression (folded into its use) or by its variable (assigned after all)."""
    return f"\x00{vid}\x00"


@dataclass
class _Fold:
    """A value whose one line was taken back so that its expression is written into its
    only use (in a specialisation: `SELF(n - 1) + SELF(n - 2)`, one statement where
    there were five): its expression, the ops it ran (for errors), whether it may have an
    effect (a call: effects keep their order), and whether it was assigned after all."""

    expr: str
    chain: tuple
    effect: bool
    inline: bool = True


class _Located(tuple):
    """A line's ops (innermost first) with, for expressions folded into it, the column
    span (UTF-8 bytes, as Python's code positions count) and ops of each."""

    subs: list[tuple[int, int, tuple]]


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

    def __init__(self, interp: Any, fn: Function, spec: tuple | None = None,
                 ret: Any = None, loops: dict[int, list] | None = None,
                 nodepth: bool = False, texts_off: set[int] | None = None) -> None:
        self.interp = interp
        self.rt = interp.rt
        self.fn = fn
        self.lines: list[str] = []
        self.where: list[tuple[Op, ...]] = []  # per line: the ops it runs, innermost first
        self.chain: tuple[Op, ...] = ()
        self.ns: dict[str, Any] = _helpers(interp, fn)
        self.ns["FN"] = fn
        self.slots: dict[str, str] = {}  # watched name -> slot variable
        # value id -> Python type (or IRANGE): a constant's, and in a specialisation
        # every value whose type follows from the argument types
        self.known: dict[int, Any] = {}
        self.consts: dict[int, Any] = {}  # value id -> a constant's value
        self.lits: dict[int, str] = {}  # value id -> a constant's Python literal
        # value id -> the expression of a typed comparison written into the `if` that
        # follows it and is its only use; the uses of each value; the op after this one
        self.exprs: dict[int, str] = {}
        self.uses: dict[int, int] = {}
        for o in walk_ops(fn.body):
            for v in o.operands:
                self.uses[v.id] = self.uses.get(v.id, 0) + 1
        self.next_op: Op | None = None
        self.temps = 0
        self.handlers = interp.handlers
        # specialisation (`specialize`): the argument types, the assumed result type of
        # self-calls, the assumed types of loop-carried values (by loop op id), what
        # was found, and the names whose current meaning the code assumes
        self.spec = spec
        self.ret_assume = ret
        self.loop_types: dict[int, list] = dict(loops or {})
        self.retry = False
        self.ret_type: Any = BOTTOM
        self.term_types: list[Any] = []
        self.selfcalls = 0
        self.assumed: dict[str, Any] = {}
        self.pure = False  # the op just written calls nothing that may run Zyla code
        self.calls_out = False
        self.self_name = ""  # the name the body's self-calls call it by
        self.direct: dict[str, tuple[str, bool]] = {}  # variable -> callee's name, depth?
        # a specialisation that calls out to nothing (but itself) takes no depth: a
        # recursion too deep is Python's RecursionError, a StackOverflowError as before
        self.nodepth = nodepth
        # folding (specialisations): every folded value, those not yet used, where each
        # value is used, whether the op just written has an effect; Int64 bounds known
        # of values (from the `if` conditions around them) and the comparisons behind
        # the conditions (result id -> operand ids and relation)
        self.folds: dict[int, _Fold] = {}
        self.pending: dict[int, _Fold] = {}
        self.use_region = _use_regions(fn.body) if spec is not None else {}
        self.effect = False
        self.bounds: dict[int, tuple[int | None, int | None]] = {}
        self.compares: dict[int, tuple[int, str, int]] = {}
        # `split(s)` written as its texts (`split_texts`): the op using each value, the
        # loop elements that are such texts (-> the split's result), their uses as keys
        # so far, and the splits not to write so (shared by the passes of one writing)
        self.users: dict[int, Op] = {}
        if spec is not None:
            for o in walk_ops(fn.body):
                for v in o.operands:
                    self.users[v.id] = o
        self.texts: dict[int, int] = {}
        self.texts_used: dict[int, int] = {}
        self.texts_off: set[int] = texts_off if texts_off is not None else set()
        self.types_assumed: list[V.JType] = []  # (struct types made as they are)
        # in a loop specialisation, while its body's first ops are written: the body's
        # region and the lines that leave the specialisation to run this iteration again
        # in the general loop (`expect`); None once an op may have had an effect
        self.deopt: Any = None
        self.region_now: Region | None = None
        self.ascii: set[int] = set()  # (values known to be ASCII Strings: `write_loop`)
        self.alias: dict[int, str] = {}  # `if` results written as carried variables
        # Int64 ranges known to go up from a bound (their elements' lower bound)
        self.range_lo: dict[int, int] = {}
        if spec is not None and spec is not _LOOP_SPEC:
            for a, t in zip(fn.body.args, spec, strict=True):
                self.known[a.id] = t

    # --- output ------------------------------------------------------------------------

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)
        self.where.append(self.chain)

    def bind(self, prefix: str, value: Any) -> str:
        name = f"{prefix}{len(self.ns)}"
        self.ns[name] = value
        return name

    def ref(self, v: Any) -> str:
        """The Python expression of an operand: its variable, or a constant's literal
        (written where it is used: no assignment to run)."""
        f = self.folds.get(v.id)
        if f is not None and f.inline:
            return _marker(v.id)
        return self.lits.get(v.id) or self.alias.get(v.id) or f"v{v.id}"

    def var(self, v: Any, depth: int) -> str:
        """A variable that holds the operand (a constant's literal is assigned to one)."""
        lit = self.lits.get(v.id)
        if lit is None:
            return self.ref(v)
        t = self.temp()
        self.emit(depth, f"{t} = {lit}")
        return t

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
        """The body's Python function: for a body worth specialising, an entry that
        calls the specialisation for its arguments' types, or else the general
        translation, written the first time it is needed (a recursion on Int64s never
        needs it)."""
        fn = self.fn
        params = ", ".join(f"v{a.id}" for a in fn.body.args)
        if not (SPECIALIZE and _spec_worthy(self.interp, fn)):
            return self.build_general(params)
        self.emit(0, f"def run({params}):")
        # (a struct's key is its Julia type: a body that reads fields is specialised on it)
        types = [f"(v{a.id}.type if type(v{a.id}) is STRUCT else type(v{a.id}))"
                 if _reads_fields(fn) else f"type(v{a.id})" for a in fn.body.args]
        key = types[0] if len(types) == 1 else f"({', '.join(types)}{',' if types else ''})"
        self.emit(1, f"sp_ = SPECS.get({key})")
        self.emit(1, f"if sp_ is None: sp_ = MAKE_SPEC({key})")
        self.emit(1, f"if sp_: return sp_({params}{', ' if params else ''}I.depth + 1)")
        self.emit(1, f"return GENERAL({params})")
        self.ns["SPECS"], self.ns["MAKE_SPEC"] = self.spec_maker()
        interp, ns = self.interp, self.ns

        def general(*a: Any) -> Any:  # (the first call that is not specialised)
            run = _translate_general(interp, fn)
            if run is None:
                def run(*b: Any) -> Any:
                    return interp.run_loop(fn, list(b))
            ns["GENERAL"] = run
            return run(*a)

        ns["GENERAL"] = general
        return self.load()["run"]

    def load(self) -> dict[str, Any]:
        """Compile the written lines (folded expressions expanded) into the namespace,
        with its error handler, and keep the slots of the names it reads current."""
        self.expand()
        self.drop_unread_constants()
        fn, ns, where, consts = self.fn, self.ns, self.where, self.consts
        code = compile("\n".join(self.lines) + "\n", f"<zyla {fn.name}>", "exec")
        ns["FAIL"] = lambda e: _fail(self.interp, fn, where, e, consts)
        exec(code, ns)  # noqa: S102 -- the source is ours, written from the IR
        watch = self.rt.watch
        for name, slot in self.slots.items():
            watch.add(name, ns, slot)
        return ns

    def build_general(self, params: str) -> Callable[..., Any]:
        """The body translated for arguments of any type."""
        fn = self.fn
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
        return self.load()["run"]

    def spec_maker(self) -> tuple[dict, Callable[[Any], Any]]:
        """The table of this body's specialisations by argument types (False: none for
        those types) and the function that makes a missing one."""
        interp, fn = self.interp, self.fn
        table = spec_table(interp, fn)

        def make(k: Any) -> Any:
            return spec_for(interp, fn, k if type(k) is tuple else (k,))

        return table, make

    def write(self) -> None:
        """Write a specialisation's source (`self.lines`): `spec(args..., dd)`, dd the
        interpreter depth of its activation. Its self-calls pass dd + 1 and do not touch
        `I.depth`; before any other call it sets `I.depth = dd`, and restores the
        caller's depth when it returns. With `nodepth` (it calls nothing but itself and
        inline operations): `spec(args...)`, its depth bounded by Python's recursion
        limit (a RecursionError becomes the same StackOverflowError)."""
        fn = self.fn
        params = "".join(f"v{a.id}, " for a in fn.body.args)
        if self.nodepth:
            self.emit(0, f"def spec({params[:-2]}):")
        else:
            self.emit(0, f"def spec({params}dd):")
            self.emit(1, "if dd > 4000:")
            self.emit(2, "I.depth = 0")
            self.emit(2, "raise OVERFLOW()")
        self.emit(1, "try:")
        out = self.region(fn.body, 2)
        self.ret_type = self.term_types[0] if self.term_types else None
        self.emit(2, f"return {out[0]}")
        self.emit(1, "except Exception as e:")
        self.emit(2, "raise FAIL(e)")
        if self.calls_out:
            self.emit(1, "finally:")
            self.emit(2, "I.depth = dd - 1")

    def finish(self, dropped: Callable[[], None]) -> Callable[..., Any]:
        """Compile the written specialisation. When a name it assumed is rebound, or a
        method is added to the function whose method it is, its self-calls go the
        general way from then on and `dropped()` removes it from its table."""
        fn, ns = self.fn, self.load()
        spec = ns["spec"]
        name = self.self_name
        call_named, interp = ns["CALL_NAMED"], self.interp

        def first(*a: Any) -> Any:  # the first self-call: the body called itself
            fn.recursed = True
            ns["SELF"] = spec
            return spec(*a)

        def drop() -> None:
            ns["SELF"] = _general_call(interp, call_named, name, not self.nodepth)
            for var, (callee, depth) in self.direct.items():
                ns[var] = _general_call(interp, call_named, callee, depth)
            dropped()

        ns["SELF"] = first
        entry = spec
        if self.nodepth:  # (callers that pass the depth go through a wrapper)
            def entry(*a: Any) -> Any:
                return spec(*a[:-1])
        entry.raw = spec
        entry.nodepth = self.nodepth
        entry.ret_type = self.ret_type if self.ret_type not in (BOTTOM, IRANGE) else None
        entry.leaf = not self.calls_out
        entry.assumed = dict(self.assumed)
        self.watch_assumed(drop)
        return entry

    def watch_assumed(self, drop: Callable[[], None]) -> None:
        """`drop` is called when a name the written code assumed is rebound, a method is
        added to a function it assumed, or a constructor to a struct type it makes as it
        is (`ctor_watch`, called by the runtime's define_method)."""
        watch = self.rt.watch
        for n, v in self.assumed.items():
            watch.on_change(n, drop)
            if type(v) is GenericFunction:
                v.on_change.append(drop)
        for t in self.types_assumed:
            t.family.__dict__.setdefault("ctor_watch", []).append(drop)
            self.rt.families.wrote(t.family)

    def region(self, region: Region, depth: int) -> list[str]:
        """Write a region's ops; return the expressions its terminator yields."""
        outer_region, self.region_now = self.region_now, region
        try:
            return self.region_ops(region, depth)
        finally:
            self.region_now = outer_region

    def region_ops(self, region: Region, depth: int) -> list[str]:
        for k, op in enumerate(region.ops):
            self.next_op = region.ops[k + 1] if k + 1 < len(region.ops) else None
            if op.name in ("yield", "return"):
                self.flush(len(self.lines), depth)
                self.term_types = [self.known.get(v.id) for v in op.operands]
                return [self.ref(v) for v in op.operands]
            outer = self.chain
            self.chain = (op,) + outer
            if op.regions:  # (nothing folded moves into a branch or a loop)
                self.flush(len(self.lines), depth)
            start = len(self.lines)
            self.pure = self.effect = False
            try:
                writer = _WRITERS.get(op.name)
                if writer is None:
                    self.other(op, depth)
                else:
                    writer(self, op, depth)
                passes = self.spec is not None and self.settle(op, start, depth)
                if self.spec is not None and not self.pure and op.name not in _NO_CALLS:
                    # (a call that may run Zyla code sees this activation's depth)
                    self.lines.insert(start, "    " * depth + "I.depth = dd")
                    self.where.insert(start, self.chain)
                    self.calls_out = True
                if self.spec is not None and not self.fold(op, start, depth, region) and passes:
                    self.flush(start, depth)
                if type(self.deopt) is tuple and not (
                        op.name == "const" or op.name == "call" and self.pure and not self.effect):
                    self.deopt = None  # (this iteration may have had an effect: no way back)
            finally:
                self.chain = outer
        raise Untranslatable("region without terminator")

    # --- folding single-use values into their use (specialisations) ---------------------

    def flush(self, at: int, depth: int) -> None:
        """Assign every folded value not yet used, in the order they were written, at
        line `at` (before what would change their order or move them into a region)."""
        lines = []
        for vid, f in self.pending.items():
            f.inline = False
            lines.append(("    " * depth + f"v{vid} = {f.expr}", f.chain))
        self.pending = {}
        self.lines[at:at] = [t for t, _ in lines]
        self.where[at:at] = [c for _, c in lines]

    def settle(self, op: Op, start: int, depth: int) -> bool:
        """After `op`'s lines (from `start`) are written: the folded values it uses are
        written into it where it is a typed operation or call that uses each once, in
        one line, and no effect changes its order (every pending call is among them, in
        the order they were written); otherwise every pending value is assigned first.
        True when the op uses none but has an effect of its own that may not pass the
        pending ones unless the op is folded itself (then its use keeps the order)."""
        if not self.pending:
            return False
        text = self.lines[start:]
        whole = "\n".join(text)
        used = sorted((whole.find(_marker(v)), v) for v in self.pending)
        used = [(pos, v) for pos, v in used if pos >= 0]
        effects = [v for v, f in self.pending.items() if f.effect]
        if not used:  # (pure values may wait)
            return bool(effects) and (self.effect or not (self.pure or op.name == "const"))
        used_effects = [v for _, v in used if self.pending[v].effect]
        ok = self.pure and op.name == "call" and all(
            text[0].count(_marker(v)) == 1 and whole.count(_marker(v)) == 1
            for _, v in used) and used_effects in ([], effects)
        if not ok:
            self.flush(start, depth)
            return False
        for _, v in used:
            del self.pending[v]
        if used_effects:
            self.effect = True
            return False
        return bool(effects) and self.effect

    def fold(self, op: Op, start: int, depth: int, region: Region) -> bool:
        """Take back the one line `vR = expr` of a typed operation or call whose result
        is used once, later in this region: the expression is written into that use."""
        if (not self.pure or op.name != "call" or len(op.results) != 1
                or len(self.lines) != start + 1):
            return False
        rid = op.results[0].id
        head = "    " * depth + f"v{rid} = "
        line = self.lines[start]
        if (self.uses.get(rid) != 1 or self.use_region.get(rid) is not region
                or not line.startswith(head)):
            return False
        del self.lines[start], self.where[start]
        f = _Fold(line[len(head):], self.chain, self.effect)
        self.folds[rid] = self.pending[rid] = f
        return True

    def expand(self) -> None:
        """Replace the markers of folded values in the finished lines (recording where
        each folded expression stands in its line, for errors)."""
        if not self.folds:
            return
        for i, line in enumerate(self.lines):
            if "\x00" not in line:
                continue
            subs: list[tuple[int, int, tuple]] = []
            out = self._expand(line, 0, subs)
            self.lines[i] = out
            loc = _Located(self.where[i])
            loc.subs = subs
            self.where[i] = loc

    def drop_unread_constants(self) -> None:
        """Lines that assign a bound constant (`v8 = K48`) to a variable no other line
        reads become `pass` (the ops that use it were written with its value)."""
        names = {}
        for i, line in enumerate(self.lines):
            m = _CONST_LINE.match(line)
            if m:
                names[m.group(1)] = i
        if not names:
            return
        seen = collections.Counter(_WORD.findall("\n".join(self.lines)))
        for name, i in names.items():
            if seen[name] == 1:
                line = self.lines[i]
                self.lines[i] = line[: len(line) - len(line.lstrip())] + "pass"

    def _expand(self, text: str, base: int, subs: list[tuple[int, int, tuple]]) -> str:
        parts = text.split("\x00")
        out = parts[0]
        for k in range(1, len(parts), 2):
            f = self.folds[int(parts[k])]
            if f.inline:  # (in parentheses: `(a + b) / 2`)
                at = base + len(out.encode()) + 1
                inner = self._expand(f.expr, at, subs)
                subs.append((at, at + len(inner.encode()), f.chain))
                out += f"({inner})"
            else:
                out += f"v{parts[k]}"
            out += parts[k + 1]
        return out

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
        if len(targets) == 1 and len(values) == 1:
            if targets != values:
                self.emit(depth, f"{targets[0]} = {values[0]}")
        elif targets:
            self.emit(depth, f"{', '.join(targets)}, = {', '.join(values)},")

    # --- ops ---------------------------------------------------------------------------

    def op_const(self, op: Op, depth: int) -> None:
        v = op.attrs["value"]
        lit = _literal(v)
        rid = op.results[0].id
        self.consts[rid] = v
        if lit is None:
            self.assign(op, depth, self.bind("K", v))
            return
        self.known[rid] = type(v)
        self.lits[rid] = lit if type(v) is bool or v is None else f"({lit})"

    def op_global(self, op: Op, depth: int) -> None:
        name = op.attrs["name"]
        r = f"v{op.results[0].id}"
        now = self.rt.watch.resolve(name) if self.spec is not None else None
        if type(now) is V.JType and now.name == name:
            # (a type's name, as in `Float64[]`: its type, assumed: a specialisation is
            # dropped where the name is rebound)
            self.consts[op.results[0].id] = now
            self.assumed[name] = now
            self.emit(depth, f"{r} = {self.bind('K', now)}")
            return
        s = self.slot(name)
        self.emit(depth, f"{r} = {s}")
        self.emit(depth, f"if {r} is DYNAMIC: {r} = LOOKUP({name!r})")

    def op_setglobal(self, op: Op, depth: int) -> None:
        self.emit(depth, "I.effects += 1")
        self.emit(depth, f"SETGLOBAL({op.attrs['name']!r}, {self.ref(op.operands[0])})")
        self.assign(op, depth, "None")

    def args(self, op: Op, start: int) -> tuple[str, str]:
        """Python expressions of a call op's positional argument list and keyword dict
        (`None` without keywords), as Interpreter.call_args builds them."""
        names = [self.ref(v) for v in op.operands[start:]]
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
        vals = [self.ref(v) for v in op.operands]
        if self.spec is not None and plain and len(op.results) == 1 and (
                (type(now) is Primitive and self.typed(now, name, op, vals, depth))
                or (type(now) is V.JType and self.typed_construct(now, op, vals, depth))
                or (type(now) is GenericFunction and (
                    self.self_call(now, name, op, vals, depth)
                    or self.split_texts(now, op, vals, depth)
                    or self.typed_method(now, name, op, vals, depth)
                    or self.direct_call(now, name, op, vals, depth)))):
            self.pure = True
            self.assumed[name] = now
            return
        if plain and 1 <= len(vals) <= 3 and len(op.results) == 1 and type(now) is not Primitive:
            # (a struct's key is its Julia type, anything else's its Python type)
            types = [f"type({v})" if _scalar(self.known.get(x.id)) or not v.isidentifier()
                     else f"({v}.type if type({v}) is STRUCT else type({v}))"
                     for v, x in zip(vals, op.operands, strict=True)]
            key = types[0] if len(vals) == 1 else f"({', '.join(types)})"
            general = f"CALL_TYPED({s}, {name!r}, {key}, {', '.join(vals)})"
        target, sel = now, ""
        if plain and type(now) is GenericFunction:  # (`+` with methods for other types)
            target = _forwarded(now)
            if target is not None:
                sel = self.forwarding(name, now, target)
        elif plain and type(now) is Primitive:
            sel = f"{s} is {self.bind('P', now)}"
        if not sel or target.effect or target.needs_interp or len(op.results) != 1:
            self.assign(op, depth, general)
            return
        r = f"v{op.results[0].id}"
        direct = self.host_call(target, vals)
        pre, fast = self.inline(target, op, vals, r)
        form = _FAST_FORMS.get(target.name) if PRIMITIVES.get(target.name) is target else None
        if form is not None:
            consts = [self.consts.get(v.id, UNSET) for v in op.operands]
            fast.extend((guard, [f"{r} = {expr}"]) for guard, expr in form.write(vals, consts))
        if self.spec is not None and type(now) is Primitive and not pre and not fast:
            # (a specialisation assumes what the name is bound to: no test, no other way)
            self.assumed[name] = now
            self.emit(depth, f"{r} = {direct}")
            return
        for line in pre:
            self.emit(depth, line)
        first = True
        for guard, body in fast:
            self.emit(depth, f"{'if' if first else 'elif'} {sel} and {guard}:")
            for line in body:
                self.emit(depth + 1, line)
            first = False
        if type(now) is Primitive:  # (a generic function's other cases are its methods')
            self.emit(depth, f"{'if' if first else 'elif'} {sel}: {r} = {direct}")
            first = False
        if first:
            self.assign(op, depth, general)
        else:
            self.emit(depth, f"else: {r} = {general}")

    def host_call(self, p: Primitive, vals: list[str]) -> str:
        """The call of the primitive's host function with these operands (a host of the
        form `f(np, args...)` called so: a Python call less)."""
        over_xp = getattr(p.host, "over_xp", None)
        if over_xp is not None:
            return f"{self.bind('H', over_xp)}(NP, {', '.join(vals)})"
        return f"{self.bind('H', p.host)}({', '.join(vals)})"

    def forwarding(self, name: str, g: GenericFunction, p: Primitive) -> str:
        """A namespace flag that is true while `name` is bound to `g` and `g` sends the
        cases the primitive `p` is written inline for (Int64 and Float64 arithmetic, a
        Dict's get and store) to `p`; kept current as methods are added and names
        rebound."""
        flag = self.bind("OK", False)
        ns, watch = self.ns, self.rt.watch

        def check() -> None:
            ns[flag] = watch.resolve(name) is g and _forwards(g, p)

        def rebound() -> None:
            check()
            watch.on_change(name, rebound)

        def added() -> None:
            check()
            g.on_change.append(added)

        check()
        watch.on_change(name, rebound)
        g.on_change.append(added)
        return flag

    def known_type(self, v: Any) -> Any:
        """What is known of an operand's Python type: `known`'s entry, else a constant's
        type, else None."""
        t = self.known.get(v.id)
        if t is None and v.id in self.consts:
            return type(self.consts[v.id])
        return t

    def inline(self, p: Primitive, op: Op, vals: list[str],
               r: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """Lines to run first, and (guard, lines) pairs that compute a scalar primitive
        inline; ([], []) for one that is not written inline."""
        if PRIMITIVES.get(p.name) is not p:
            return [], []
        if p.name in _BINARY and len(vals) == 2:
            pyop, arith = _BINARY[p.name]
            a, b = vals
            ka, kb = (self.known_type(v) for v in op.operands)
            if ka not in _MAYBE_NUMBER or kb not in _MAYBE_NUMBER:  # (`ch == ','`)
                return [], []
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
                    body.append(self.wrap(p.name, op, r))
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
        if p.name == "%" and len(vals) == 2:  # (rem of Int64s where it is Python's floored %)
            a, b = vals
            c = self.consts.get(op.operands[1].id)
            if type(c) is int and c > 0:  # (a positive constant divisor: no tests of it)
                return [], [(f"type({a}) is int and {a} >= 0", [f"{r} = {a} % {b}"])]
            return [], [(f"type({a}) is int and type({b}) is int and {a} >= 0 and {b} > 0",
                         [f"{r} = {a} % {b}"])]
        last = self.consts.get(op.operands[-1].id) if op.operands else None
        return [], self.inline_math(p, vals, r, last)

    def inline_math(self, p: Primitive, vals: list[str], r: str,
                    const: Any = None) -> list[tuple[str, list[str]]]:
        """(guard, lines) pairs for a Float64 case of `^` (an Int64 power: Python's
        float ** int, as the primitive computes it; `const`, the last operand's value
        where it is a constant) or of a math function with a Python form (`sqrt`); where
        Python raises, the primitive's own result."""
        over_xp = getattr(p.host, "over_xp", None)
        if over_xp is None:
            return []
        h = self.bind("H", over_xp)
        if p.name == "^" and len(vals) == 2:
            a, b = vals
            product = _power_product(a, const)
            if product:
                return [(f"type({a}) is float", [f"{r} = {product}"])]
            return [(f"type({a}) is float and type({b}) is int",
                     [f"if {b} == 2: {r} = {a} * {a}",
                      f"elif {b} == 3: {r} = {a} * {a} * {a}",
                      "else:",
                      f"    try: {r} = {a} ** {b}",
                      f"    except (OverflowError, ZeroDivisionError): {r} = {h}(NP, {a}, {b})"])]
        math_fast = getattr(over_xp, "scalar_math", None)
        if math_fast is None or len(vals) != 1:
            return []
        mfun, inside = math_fast
        x, mf = vals[0], self.bind("M", mfun)
        return [(f"type({x}) is float and {inside.format(x=x)}",
                 [f"try: {r} = {mf}({x})",
                  f"except (ValueError, OverflowError): {r} = {h}(NP, {x})"])]

    def typed(self, p: Primitive, name: str, op: Op, vals: list[str], depth: int) -> bool:
        """In a specialisation: write a scalar primitive whose operand types are known,
        without type tests (the result's type becomes known); False when it is not one."""
        kind_op = _KIND_OPS.get(p.name)
        if kind_op is not None and PRIMITIVES.get(p.name) is p and kind_op(self, op, vals, depth):
            return True
        if PRIMITIVES.get(p.name) is not p or p.effect or p.needs_interp:
            return False
        ts = [self.known.get(v.id) for v in op.operands]
        rid = op.results[0].id
        r = f"v{rid}"
        if p.name in _BINARY and len(vals) == 2:
            pyop, arith = _BINARY[p.name]
            t = _binary_type(ts[0], ts[1], arith)
            if t is None:
                return False
            self.known[rid] = t
            if t is BOTTOM or BOTTOM in ts:  # (a pass that only finds types)
                self.emit(depth, f"{r} = None")
                return True
            if not arith and ts[0] is int and ts[1] is int:
                self.compares[rid] = (op.operands[0].id, pyop, op.operands[1].id)
            nxt = self.next_op
            if (t is bool and self.uses.get(rid) == 1 and nxt is not None
                    and nxt.name == "if" and nxt.operands[0].id == rid):
                self.exprs[rid] = f"{vals[0]} {pyop} {vals[1]}"  # (`if a < b:` itself)
                return True
            self.emit(depth, f"{r} = {vals[0]} {pyop} {vals[1]}")
            if t is int:
                check = self.wrap(p.name, op, r)
                if check:
                    self.emit(depth, check)
            return True
        over_xp = getattr(p.host, "over_xp", None)
        if over_xp is None:
            return False
        if p.name == "/" and len(vals) == 2:
            t = _binary_type(ts[0], ts[1], True)
            if t is None:
                return False
            self.known[rid] = float
            a, b = vals
            if t is int:  # (Julia converts both to Float64 first; Python's int / int does not)
                a, b = f"float({a})", f"float({b})"
            if self.consts.get(op.operands[1].id, 0) != 0:  # (a constant divisor: not 0)
                self.emit(depth, f"{r} = {a} / {b}")
                return True
            h = self.bind("H", over_xp)
            self.emit(depth, f"if {vals[1]} != 0: {r} = {a} / {b}")
            self.emit(depth, f"else: {r} = float({h}(NP, {vals[0]}, {vals[1]}))")
            return True
        if p.name == "%" and len(vals) == 2 and ts[0] is int and ts[1] is int:
            # (rem of Int64s: Python's floored % where both are not negative, else the
            # primitive's; b == 0 is its DivideError)
            self.known[rid] = int
            a, b = vals
            c = self.consts.get(op.operands[1].id)
            lo = self.bounds.get(op.operands[0].id, (None, None))[0]
            if type(c) is int and c > 0 and lo is not None and lo >= 0:
                self.emit(depth, f"v{rid} = {a} % {b}")  # (both known not negative)
                return True
            test = f"{a} >= 0" if type(c) is int and c > 0 else f"{a} >= 0 and {b} > 0"
            self.emit(depth, f"v{rid} = {a} % {b} if {test} "
                             f"else {self.bind('H', over_xp)}(NP, {a}, {b})")
            return True
        if p.name == "^" and len(vals) == 2 and ts[0] is float and ts[1] is int:
            # (the primitive's: a product for 2 and 3, else Python's float ** int, but
            # where Python raises)
            self.known[rid] = float
            a, b = vals
            product = _power_product(a, self.consts.get(op.operands[1].id))
            if product:
                self.emit(depth, f"{r} = {product}")
                return True
            self.emit(depth, f"if {b} == 2: {r} = {a} * {a}")
            self.emit(depth, f"elif {b} == 3: {r} = {a} * {a} * {a}")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"try: {r} = {a} ** {b}")
            self.emit(depth + 1, f"except (OverflowError, ZeroDivisionError): "
                                 f"{r} = {self.bind('H', over_xp)}(NP, {a}, {b})")
            return True
        if p.name == ":" and len(vals) in (2, 3) and all(t is int for t in ts):
            self.known[rid] = IRANGE
            lo, step = self.consts.get(op.operands[0].id), (
                self.consts.get(op.operands[1].id) if len(vals) == 3 else 1)
            if type(lo) is int and type(step) is int and lo >= 0 and step > 0:
                self.range_lo[rid] = lo
            self.emit(depth, f"{r} = {self.bind('H', over_xp)}(NP, {', '.join(vals)})")
            return True
        if len(vals) != 1:
            return False
        t = ts[0]
        if p.name == "-" and t in (int, float):
            self.known[rid] = t
            self.emit(depth, f"{r} = -{vals[0]}")
            if t is int:  # (only -typemin(Int) leaves Int64)
                self.emit(depth, f"if {_ABOVE_I64.format(r=r)}: {r} = WRAP({r})")
            return True
        if p.name == "abs" and t in (int, float):
            self.known[rid] = t
            self.emit(depth, f"{r} = abs({vals[0]})")
            if t is int:  # (abs(typemin(Int)) == typemin(Int))
                self.emit(depth, f"if {_ABOVE_I64.format(r=r)}: {r} = WRAP({r})")
            return True
        if p.name == "!" and t is bool:
            self.known[rid] = bool
            self.emit(depth, f"{r} = not {vals[0]}")
            return True
        math_fast = getattr(over_xp, "scalar_math", None)
        if math_fast is None or t not in (float, int, BOTTOM):
            return False
        self.known[rid] = float
        mfun, inside = math_fast
        x, mf, h = vals[0], self.bind("M", mfun), self.bind("H", over_xp)
        # (the primitive's own result for Float64 x: math's where inside, else its own)
        cond = inside.format(x=x)
        d = depth if cond == "True" else depth + 1
        if cond != "True":
            self.emit(depth, f"if {cond}:")
        self.emit(d, f"try: {r} = {mf}({x})")
        self.emit(d, f"except (ValueError, OverflowError): {r} = {h}(NP, {x})")
        if cond != "True":
            self.emit(depth, f"else: {r} = {h}(NP, {x})")
        return True

    def split_texts(self, g: GenericFunction, op: Op, vals: list[str], depth: int) -> bool:
        """In a specialisation: `split(s)` of a String whose pieces only a `for` loop
        reads, as the keys of a Dict's `get` and `d[k] = v`, is written as the pieces'
        texts (Strings, not SubStrings: `split_texts`), so that no SubString is made.
        Where the loop's Dict operations are not written as the Dict's own after all
        (`consumed`), the specialisation is written again without this."""
        rid = op.results[0].id
        if len(vals) != 1 or self.known_type(op.operands[0]) not in _TEXTS or (
                rid in self.texts_off):
            return False
        loop = self.users.get(rid)
        if loop is None or loop.name != "for" or self.uses.get(rid) != 1 \
                or loop.operands[0].id != rid or not _key_uses_only(loop):
            return False
        try:
            m = g.dispatch([V.StringT])
        except ZylaError:
            return False
        if not _is_whitespace_split(m):
            return False
        self.known[rid] = TEXTS_KEY
        self.texts[loop.regions[0].args[0].id] = rid
        self.emit(depth, f"v{rid} = SPLIT_TEXTS({vals[0]})")
        return True

    def consumed(self, op: Op) -> None:
        """After a `for` loop is written: where its element is the text of a `split`
        written by `split_texts` but one of its uses was not written as a Dict's own
        operation, that split is not to be written so (the specialisation is written
        again)."""
        elem = op.regions[0].args[0].id
        rid = self.texts.pop(elem, None)
        if rid is not None and self.texts_used.get(elem, 0) != self.uses.get(elem):
            self.texts_off.add(rid)
            self.retry = True

    def typed_get(self, op: Op, vals: list[str], depth: int) -> bool:
        """`get(d, k, default)` of a Dict{String} known to store its values as one Python
        type, a String or SubString key: the dictionary's own get (the result's type is
        known when the default's is the values')."""
        if len(vals) != 3:
            return False
        d, k, default = (self.known_type(v) for v in op.operands)
        if type(d) is not DictKey or k not in _TEXTS or default is None:
            return False
        rid = op.results[0].id
        if default is d.exact:
            self.known[rid] = d.exact
        self.emit(depth, f"v{rid} = DGET({', '.join(vals)})")
        self.key_used(op.operands[1].id)
        return True

    def typed_index(self, op: Op, vals: list[str], depth: int) -> bool:
        """`v[i]` of a vector of Float64, Int64 or Bool and an Int64: the element as a
        Python number where i is in bounds (else the primitive's BoundsError)."""
        if len(vals) != 2:
            return False
        a, i = (self.known_type(x) for x in op.operands)
        if type(a) is not ArrayKey or a.ndim != 1 or a.elem is None or i is not int:
            return False
        v, k = vals
        rid = op.results[0].id
        r = f"v{rid}"
        if a.checked and (type(a.elem) is not V.JType
                          or not self.expect(r, a.elem, depth + 1, check=False)):
            return False
        # (an object vector's element as it is; one that is not a struct fails the test
        # below)
        self.bounded_read(f"{v}[{k} - 1]" if a.checked else f"{v}.item({k} - 1)",
                          op.operands[1].id, k, r,
                          self.host_call(PRIMITIVES["getindex"], vals), depth)
        if a.checked:
            self.expect(r, a.elem, depth)
        self.known[rid] = a.elem
        return True

    def bounded_read(self, read: str, index: int, k: str, r: str, other: str,
                     depth: int) -> None:
        """`r = read`, numpy's read of element `k` (the Int64 value `index`) of a host
        vector at k - 1, or the primitive's call `other` (its BoundsError) where k < 1
        (numpy would count from the end; not tested where the index's bounds exclude it)
        or numpy finds k - 1 out of bounds (its IndexError stands for a length test)."""
        lo = self.bounds.get(index, (None, None))[0]
        if lo is not None and lo >= 1:
            self.emit(depth, f"try: {r} = {read}")
        else:
            self.emit(depth, f"try: {r} = {read} if {k} > 0 else {other}")
        self.emit(depth, f"except IndexError: {r} = {other}")

    def expect(self, x: str, kind: Any, depth: int, check: bool = True) -> bool:
        """In a loop specialisation, before any op of the iteration may have had an
        effect: the test that the value of `x` is of `kind`, which else leaves the
        specialisation to run the iteration again in the general loop (so that `kind`
        is known after it). With check=False, only whether it may be written here."""
        if type(self.deopt) is not tuple or self.deopt[0] is not self.region_now:
            return False
        if check:
            self.emit(depth, f"if {self.not_of(x, kind)}:")
            for line in self.deopt[1]:
                self.emit(depth + 1, line)
        return True

    def typed_push(self, op: Op, vals: list[str], depth: int) -> bool:
        """`push!(v, x)` of a vector of Float64, Int64 or Bool and a value of its element
        type: stored as it is (`push_one`); the result is v."""
        if len(vals) != 2:
            return False
        a, x = (self.known_type(v) for v in op.operands)
        if type(a) is not ArrayKey or a.ndim != 1 or a.elem is None or x is not a.elem:
            return False  # (a String onto a vector of Strings: stored as it is too)
        rid = op.results[0].id
        self.emit(depth, f"PUSH_ONE({vals[0]}, {vals[1]})")
        self.emit(depth, f"v{rid} = {vals[0]}")
        self.known[rid] = a
        self.effect = True
        return True

    def typed_empty(self, op: Op, vals: list[str], depth: int) -> bool:
        """`T[]` (`Core.typed_vect(T)`) of a type T known here: the primitive's empty
        vector, whose kind (`host_key`) is known (that of a vector it makes now)."""
        t = self.consts.get(op.operands[0].id) if len(vals) == 1 else None
        if type(t) is not V.JType:
            return False
        p = PRIMITIVES["Core.typed_vect"]
        over_xp = getattr(p.host, "over_xp", None)
        try:
            kind = host_key(over_xp(np, t) if over_xp is not None else p.host(t))
        except ZylaError:
            return False
        if type(kind) is not ArrayKey:
            return False
        rid = op.results[0].id
        self.known[rid] = kind
        self.emit(depth, f"v{rid} = {self.host_call(p, vals)}")
        return True

    def typed_length(self, op: Op, vals: list[str], depth: int) -> bool:
        """`length(a)` of a host array: its number of elements."""
        if len(vals) != 1 or type(self.known_type(op.operands[0])) is not ArrayKey:
            return False
        rid = op.results[0].id
        self.known[rid] = int
        self.emit(depth, f"v{rid} = {vals[0]}.size")
        return True

    def typed_char_eq(self, op: Op, vals: list[str], depth: int) -> bool:
        """`a == b` (`!=`) of two Chars: their characters compared (a constant's written
        as its character); written into the `if` that follows it where that is its only
        use."""
        if len(vals) != 2 or not all(self.known_type(v) in _CHARS for v in op.operands):
            return False
        a, b = (repr(self.consts[v.id].value) if v.id in self.consts
                else x if self.known_type(v) is RAWCHAR else f"{x}.value"
                for v, x in zip(op.operands, vals, strict=True))
        for v in op.operands:
            self.key_used(v.id)
        rid = op.results[0].id
        self.known[rid] = bool
        expr = f"{a} {op.attrs['fn']} {b}"
        nxt = self.next_op
        if (self.uses.get(rid) == 1 and nxt is not None and nxt.name == "if"
                and nxt.operands[0].id == rid):
            self.exprs[rid] = expr
        else:
            self.emit(depth, f"v{rid} = {expr}")
        return True

    def typed_field(self, op: Op, vals: list[str], depth: int) -> bool:
        """`x.name` of a struct of a known type that has the field: the field's value (its
        type known where the field's type fixes it: a Float64's is a float)."""
        if len(vals) != 2:
            return False
        t = self.known_type(op.operands[0])
        name = self.consts.get(op.operands[1].id)
        if not V.plain_struct(t) or type(name) is not V.Symbol or name.name not in t.fields:
            return False
        k = t.fields.index(name.name)
        rid = op.results[0].id
        ft = t.field_types[k]
        known = _PY_OF_FIELD.get(id(ft)) or (ft if V.plain_struct(ft) else None)
        if known is not None:
            self.known[rid] = known
        self.emit(depth, f"v{rid} = {vals[0]}.fields[{k}]")
        return True

    def typed_construct(self, t: V.JType, op: Op, vals: list[str], depth: int) -> bool:
        """In a specialisation: `T(a, b)` of a struct type without constructors of its
        own, whose Float64/Int64/Bool fields are given values of those types: the struct
        made as it is (what the default constructor does with them). A constructor
        defined for T later drops the specialisation (`ctor_watch`)."""
        if not (V.plain_struct(t) and t.fields and len(vals) == len(t.fields)
                and getattr(t, "ctor_gf", None) is None
                and getattr(t, "constructor", None) is None):
            return False
        pys = tuple(_PY_OF_FIELD.get(id(ft)) for ft in t.field_types)
        if None in pys or pys != tuple(self.known_type(v) for v in op.operands):
            return False
        rid = op.results[0].id
        self.known[rid] = t
        self.emit(depth, f"v{rid} = STRUCT({self.bind('T', t)}, [{', '.join(vals)}])")
        self.types_assumed.append(t)
        return True

    def typed_string(self, op: Op, vals: list[str], depth: int) -> bool:
        """`string(a, b)` (`"item$(i)"`) of Strings, SubStrings and Int64s: their text
        joined, a String."""
        if len(vals) != 2 or not all(self.known_type(v) in _TEXT_OR_INT for v in op.operands):
            return False
        rid = op.results[0].id
        self.known[rid] = str
        parts = [repr(self.consts[v.id]) if type(self.consts.get(v.id)) is str
                 else x if self.known_type(v) is str else f"STR({x})"
                 for v, x in zip(op.operands, vals, strict=True)]
        self.emit(depth, f"v{rid} = {' + '.join(parts)}")
        return True

    def key_used(self, vid: int) -> None:
        """Count a use of a loop's element as a Dict's key (`split_texts`)."""
        if vid in self.texts:
            self.texts_used[vid] = self.texts_used.get(vid, 0) + 1

    def typed_store(self, op: Op, vals: list[str], depth: int) -> bool:
        """`d[k] = v` (`Core.setindex_fn(d, v, k)`) of such a Dict, a value of the type
        its values are stored as and a String or SubString key: stored as it is, the key
        as a String; the result is d."""
        if len(vals) != 3:
            return False
        d, v, k = (self.known_type(x) for x in op.operands)
        if type(d) is not DictKey or v is not d.exact or k not in _TEXTS:
            return False
        key = vals[2] if k is str else f"STR({vals[2]})"
        self.emit(depth, f"DSTR({vals[0]}, {key}, {vals[1]})")
        rid = op.results[0].id
        self.known[rid] = d
        self.emit(depth, f"v{rid} = {vals[0]}")
        self.effect = True
        self.key_used(op.operands[2].id)
        return True

    def wrap(self, name: str, op: Op, r: str) -> str:
        """The test that brings an Int64 result of `name` back into Int64 (wrapping
        around): one comparison when one operand is a constant and the direction of
        overflow is known."""
        a, b = (self.consts.get(v.id) for v in op.operands)
        if name in ("+", "-") and (type(b) is int or (name == "+" and type(a) is int)):
            c = b if type(b) is int else a
            up = (c >= 0) == (name == "+")
            x = op.operands[0] if type(b) is int else op.operands[1]
            lo, hi = self.bounds.get(x.id, (None, None))
            d = c if name == "+" else -c
            lo, hi = (None if lo is None else lo + d), (None if hi is None else hi + d)
            self.bounds[op.results[0].id] = (lo, hi)
            edge = hi if up else lo  # (the result's bound on the side it may overflow)
            if edge is not None and _I64_MIN <= edge <= _I64_MAX:
                return ""  # (the operand's bounds keep the result in Int64)
            return f"if {(_ABOVE_I64 if up else _BELOW_I64).format(r=r)}: {r} = WRAP({r})"
        return f"if not {_I64.format(r=r)}: {r} = WRAP({r})"

    def typed_method(self, g: GenericFunction, name: str, op: Op, vals: list[str],
                     depth: int) -> bool:
        """In a specialisation: a call of a generic function whose method for the known
        argument types forwards to a primitive (`log(::Float64)`) is written as that
        primitive's call."""
        ts = [self.known.get(v.id) for v in op.operands]
        if BOTTOM in ts:  # (a pass that only finds types: a self-call's result is unknown
            # yet; it stands for whatever the other operands are)
            others = [t for t in ts if t is not BOTTOM]
            if not others:
                self.known[op.results[0].id] = BOTTOM
                self.emit(depth, f"v{op.results[0].id} = None")
                return True
            ts = [others[0] if t is BOTTOM else t for t in ts]
        if not all(_scalar(t) for t in ts):
            p = _forwarded(g)  # (`get(d, k, 0)`: a Dict's own operations)
            return (p is not None and p.name in _KIND_OPS and _forwards(g, p)
                    and self.typed(p, name, op, vals, depth))
        try:
            m = g.dispatch([_PY_TYPES.get(t, t) for t in ts])
        except ZylaError:
            return False
        if type(m.prim) is not Primitive:  # (invoke runs a method's primitive, if any)
            return False
        return self.typed(m.prim, name, op, vals, depth)

    def self_call(self, g: GenericFunction, name: str, op: Op, vals: list[str],
                  depth: int) -> bool:
        """In a specialisation: a call of the body's own method with arguments of the
        specialised types calls the specialisation itself (no dispatch, no policy: the
        outer activation runs here)."""
        if tuple(self.known.get(v.id) for v in op.operands) != self.spec:
            return False
        try:
            m = g.dispatch([_PY_TYPES.get(t, t) for t in self.spec])
        except ZylaError:
            return False
        body = m.fn
        if (body is not self.fn or m.prim is not None or m.impl is not None or body.vararg
                or body.nkw or body.ncaptures or len(vals) != len(body.params)):
            return False
        rid = op.results[0].id
        if self.ret_assume is not None:
            self.known[rid] = self.ret_assume
        self.selfcalls += 1
        self.effect = True
        self.self_name = self.self_name or name
        depth_arg = "" if self.nodepth else ", dd + 1"
        self.emit(depth, f"v{rid} = SELF({', '.join(vals)}{depth_arg})")
        return True

    def direct_call(self, g: GenericFunction, name: str, op: Op, vals: list[str],
                    depth: int) -> bool:
        """In a specialisation: a call of another function's method with arguments of
        known Int64/Float64/Bool types, whose own specialisation for them is a leaf (it
        calls nothing but what is written inline, itself and other leaves) without a loop,
        calls that specialisation directly (arguments of known struct types too): no
        dispatch, and no question to the tiering policy, which runs such a cheap call here
        anyway (a callee with a loop may be hot:
        the policy sees its calls). The result's type becomes the callee's."""
        ts = tuple(self.known.get(v.id) for v in op.operands)
        if not ts or not all(_scalar(t) or V.plain_struct(t) for t in ts):
            return False
        try:
            m = g.dispatch([_PY_TYPES.get(t, t) for t in ts])
        except ZylaError:
            return False
        body = m.fn
        if (body is None or body is self.fn or m.prim is not None or m.impl is not None
                or body.vararg or body.nkw or body.ncaptures or body.derived
                or len(vals) != len(body.params) or _has_loop(body)):
            return False
        spec = spec_for(self.interp, body, ts)
        if not spec or not spec.leaf or self.nodepth:
            return False
        rid = op.results[0].id
        if spec.ret_type is not None:
            self.known[rid] = spec.ret_type
        var = self.bind("D", spec.raw)
        self.direct[var] = (name, not spec.nodepth)
        self.effect = True
        self.assumed.update(spec.assumed)
        depth_arg = "" if spec.nodepth else ", dd + 1"
        self.emit(depth, f"v{rid} = {var}({', '.join(vals)}{depth_arg})")
        return True

    def op_callv(self, op: Op, depth: int) -> None:
        args, kwargs = self.args(op, 1)
        self.assign(op, depth, f"CALL_VALUE({self.ref(op.operands[0])}, {args}, {kwargs})")

    def op_closure(self, op: Op, depth: int) -> None:
        func = self.bind("F", op.attrs["func"])
        caps = "".join(f"{self.ref(v)}, " for v in op.operands)
        self.assign(op, depth, f"CLOSURE({func}, ({caps}), {op.attrs.get('name', '#anon')!r})")

    def op_default(self, op: Op, depth: int) -> None:
        r = f"v{op.results[0].id}"
        self.emit(depth, f"{r} = {self.ref(op.operands[0])}")
        self.emit(depth, f"if {r} is UNSET:")
        self.emit(depth + 1, "pass")
        out = self.region(op.regions[0], depth + 1)
        self.emit(depth + 1, f"{r} = {out[0]}")

    def op_if(self, op: Op, depth: int) -> None:
        c = self.exprs.get(op.operands[0].id) or self.var(op.operands[0], depth)
        if self.known.get(op.operands[0].id) is not bool:
            self.emit(depth, f"if type({c}) is not bool: {c} = CONDITION({c})")
        targets = [self.alias.get(r.id) or f"v{r.id}" for r in op.results]
        types: list[Any] = [BOTTOM] * len(targets)
        outer = self.bounds
        nxt = self.next_op  # (the body returns what the `if` yields: each branch returns)
        tail = (nxt is not None and nxt.name == "return" and len(op.results) == 1
                and [v.id for v in nxt.operands] == [op.results[0].id])
        for k, region in enumerate(op.regions[:2]):
            self.emit(depth, f"if {c}:" if k == 0 else "else:")
            self.emit(depth + 1, "pass")
            at = len(self.lines)
            self.bounds = self.branch_bounds(outer, op.operands[0].id, k == 0)
            out = self.region(region, depth + 1)
            types = [_join(a, b) for a, b in zip(types, self.term_types, strict=False)]
            if tail:
                self.emit(depth + 1, f"return {out[0]}")
            else:  # (results nothing reads are not assigned)
                kept = [(t, v) for r, t, v in zip(op.results, targets, out, strict=False)
                        if self.uses.get(r.id) and t != v]
                self.yield_to(depth + 1, [t for t, _ in kept], [v for _, v in kept])
            if len(self.lines) > at:  # (the branch has lines: no `pass`)
                del self.lines[at - 1], self.where[at - 1]
        self.bounds = outer
        if self.spec is not None:
            for r, t in zip(op.results, types, strict=False):
                if t is not None:
                    self.known[r.id] = t

    def branch_bounds(self, around: dict[int, tuple[Any, Any]], cond: int,
                      taken: bool) -> dict[int, tuple[Any, Any]]:
        """The Int64 bounds known inside the branch of an `if` on the comparison `cond`
        that runs when it is `taken` (true) or not: those known `around` the `if`, and
        what the comparison of an Int64 with a constant says of the Int64."""
        out = dict(around)
        cmp = self.compares.get(cond)
        if cmp is None:
            return out
        a, rel, b = cmp
        if type(self.consts.get(a)) is int:
            a, rel, b = b, _REL_FLIP[rel], a
        c = self.consts.get(b)
        if type(c) is not int or a in self.consts:
            return out
        lo, hi = _REL_BOUNDS[rel if taken else _REL_NOT[rel]](c)
        olo, ohi = out.get(a, (None, None))
        lo = olo if lo is None else lo if olo is None else max(lo, olo)
        hi = ohi if hi is None else hi if ohi is None else min(hi, ohi)
        out[a] = (lo, hi)
        return out

    def loop_end(self, op: Op, depth: int, progress: str, t0: str, it: str,
                 carried: list[str], counter: str | None = None,
                 flush: str | None = None) -> None:
        """The end of an iteration: progress, ticks, and every TICKS ticks the watch and
        (a loop without tapes in code a transform did not derive) on-stack replacement,
        which replaces the carried values with the loop's results and leaves it. With a
        `counter` (a loop whose body calls nothing that could look at the progress
        meanwhile), iterations are counted in that local and the progress record is
        brought up to date every TICKS of them (the watch and OSR see it exact); `flush`
        (a line that pushes the values a `push_buffer` collected) runs there first."""
        if counter is None:
            self.emit(depth, f"{progress}[0] += 1")
            # (a loop's ticks are its iterations: no shared count to keep)
            self.emit(depth, f"if not {progress}[0] % {_interp.TICKS} and I.offload:")
            d = depth + 1
        else:
            self.emit(depth, f"{counter} += 1")
            self.emit(depth, f"if {counter} == {_interp.TICKS}:")
            if flush:
                self.emit(depth + 1, flush)
            self.emit(depth + 1, f"{progress}[0] += {counter}")
            self.emit(depth + 1, f"{counter} = 0")
            self.emit(depth + 1, "if I.offload:")
            d = depth + 2
        self.watch_osr(op, d, progress, t0, it, carried)

    def watch_osr(self, op: Op, d: int, progress: str, t0: str, it: str,
                  carried: list[str]) -> None:
        """The watch, and on-stack replacement where the loop may have it (`loop_end`)."""
        self.emit(d, "I.watch()")
        if tape_count(op) or self.fn.derived or not carried:
            return
        o = self.bind("O", op)
        env = "{" + ", ".join(f"{i}: {self.lits.get(i, f'v{i}')}"
                              for i in sorted(free_values(op))) + "}"
        out = self.temp()
        self.emit(d, f"{out} = OSR({o}, {t0}, {progress}, {it}, {env}, "
                     f"[{', '.join(carried)}])")
        self.emit(d, f"if {out} is not None:")
        self.emit(d + 1, f"{', '.join(carried)}, = {out}")
        self.emit(d + 1, "break")

    def loop_counter(self, depth: int) -> str | None:
        """In a specialisation: a local that counts a loop's iterations, set to 0 before
        the loop (`loop_end` uses it where the body is a leaf: `leaf_loop`)."""
        if self.spec is None:
            return None
        counter = self.temp()
        self.emit(depth, f"{counter} = 0")
        return counter

    def leaf_loop(self, start: int) -> bool:
        """Whether the loop body written from line `start` (in a specialisation) calls
        nothing that may run other code (which could look at the loop's progress)."""
        return self.spec is not None and not any(
            "I.depth = dd" in t or "I.loops" in t or "SELF(" in t or "CALL_" in t
            for t in self.lines[start:])

    def op_for(self, op: Op, depth: int) -> None:
        """A `for` loop. Where the kinds of the values it uses from outside are not all
        known here (`loop_wanted`), an entry first runs the loop's code written for
        their kinds at run time (`loop_entry`); the loop written here goes on where that
        code stopped (it stops at an element not of the kind it was written for)."""
        body = op.regions[0]
        args = body.args
        ntape = tape_count(op)
        carried = [f"v{a.id}" for a in args[1:]]
        inits = [self.ref(v) for v in op.operands[1:]]
        entry = self.loop_wanted(op)
        assumed = self.assume_loop(op, op.operands[1:], [args[1:]])
        elem, checked = self.loop_elem(op)
        if elem is int and not checked:
            self.pure = True  # (iterating a range of Int64s calls no Zyla code)
        self.yield_to(depth, carried, inits)
        prog = self.temp()
        recs = [self.temp() for _ in range(ntape)]
        for t in recs:
            self.emit(depth, f"{t} = []")
        it = self.ref(op.operands[0])
        t0 = self.temp()
        self.emit(depth, f"{t0} = CLOCK()")
        self.emit(depth, f"{prog} = [0, TRIP_COUNT({it}), {t0}]")
        self.emit(depth, f"I.loops.append({prog})")
        counter = self.loop_counter(depth)
        self.emit(depth, "try:")
        iterator = f"ITERATE({it})"
        lazy = entry and self.lazy_loop(op)
        if entry:
            iterator = self.loop_entry(op, depth + 1, iterator, prog, t0, carried, lazy)
        if lazy:  # (what the loop's results are is not known here)
            self.emit(depth, "finally:")
            self.emit(depth + 1, "I.loops.pop()")
            self.yield_to(depth, [f"v{r.id}" for r in op.results], carried)
            self.pure = False
            self.calls_out = True
            return
        if elem is not None and not checked:
            self.known[args[0].id] = elem
        chunked = (self.spec is not None and not entry and not ntape
                   and self.known.get(op.operands[0].id) in (IRANGE, TEXTS_KEY))
        self.loop_body(op, depth + 1, iterator, (prog, t0, it), carried, recs, counter,
                       assumed, None, chunked)
        self.consumed(op)
        self.emit(depth, "finally:")
        self.emit(depth + 1, "I.loops.pop()")
        self.yield_to(depth, [f"v{r.id}" for r in op.results],
                      carried + [f"TAPE({t})" for t in recs])
        self.loop_results(op, assumed)

    def loop_body(self, op: Op, depth: int, iterator: str, record: tuple[str, str, str],
                  carried: list[str], recs: list[str], counter: str | None,
                  assumed: list[Any] | None, check: str | None,
                  chunked: bool = False) -> None:
        """`for x in iterator:` and the iteration: the body, the carried values' yield and
        the iteration's end (`record`: the progress record, start time and iterated
        value). With `check` (a loop specialisation's element type), an element of another
        type ends the specialisation: it returns the element and the carried values.
        `chunked` (a range of Int64s in a specialisation): the range is run as ranges of
        TICKS elements (`_chunks`), and a body that calls nothing out counts its progress
        at the end of each (no count per iteration); a `break` leaves both loops."""
        body = op.regions[0]
        args = body.args
        prog, t0, it = record
        first, at = len(self.lines), depth
        chunk = ""
        if chunked:
            chunk = self.temp()
            self.emit(depth, f"for {chunk} in CHUNKS({it}):")
            depth += 1
            iterator = chunk
        x = f"v{args[0].id}"
        self.emit(depth, f"for {x} in {iterator}:")
        # (the progress record exact for the loop going on; in chunks, that of the
        # chunk's elements before x where the chunk's are counted at its end, which
        # `_PROGRESS` stands for until the body is written; and the rest of the range)
        leave = [_PROGRESS if chunked else f"{prog}[0] += {counter}"] if counter is not None else []
        first_x = f"REST_FROM({it}, {x})" if chunked else x
        leave.append(f"return ({', '.join([first_x] + carried)},)")
        if check is not None:
            self.emit(depth + 1, f"if {self.not_of(x, check)}:")
            for line in leave:
                self.emit(depth + 2, line)
        pure, deopt = self.pure, self.deopt
        self.deopt = (body, leave) if self.deopt == "loop" else None
        if self.spec is not None:
            self.alias.update(self.carried_ifs(body, carried))
        start = len(self.lines)
        try:
            out = self.region(body, depth + 1)
        finally:
            self.pure, self.deopt = pure, deopt
        if not self.leaf_loop(start):
            counter = None
        if chunked:
            done = f"{prog}[0] += {chunk}.index({x})" if counter is not None else "pass"
            for i in range(first, len(self.lines)):
                if self.lines[i].endswith(_PROGRESS):
                    self.lines[i] = self.lines[i][: -len(_PROGRESS)] + done
        buffer = self.push_buffer(op, start, carried) if counter is not None else None
        flush = f"PUSH_MANY({buffer[0]}, {buffer[1]})" if buffer else None
        n = len(carried)
        self.settle_loop(op, assumed, self.term_types[:n])
        for t, v in zip(recs, out[n:], strict=False):
            self.emit(depth + 1, f"{t}.append({v})")
        if n == 1 and not recs:
            out = [self.assign_carried(depth + 1, out[0], carried[0])]
        self.yield_to(depth + 1, carried, out[:n])
        if not recs:
            for a, name in zip(args[1:], carried, strict=False):
                if a.hint in STOP_FLAGS:
                    self.emit(depth + 1, f"if {name} is True or {name} is NP_TRUE: break")
        if not chunked:
            self.loop_end(op, depth + 1, prog, t0, it, carried, counter, flush)
        else:
            if counter is None:
                self.loop_end(op, depth + 1, prog, t0, it, carried)
            self.emit(depth, "else:")  # (the chunk ran to its end: the next one)
            if counter is not None:
                if flush:
                    self.emit(depth + 1, flush)
                self.emit(depth + 1, f"{prog}[0] += len({chunk})")
                self.emit(depth + 1, "if I.offload:")
                self.watch_osr(op, depth + 2, prog, t0, it, carried)
            self.emit(depth + 1, "continue")
            self.emit(depth, "break")
        if buffer:
            self.wrap_buffered(first, at, buffer)

    def push_buffer(self, op: Op, start: int, carried: list[str]) -> tuple[str, str] | None:
        """In a specialisation, for a loop whose body (written from line `start`) calls
        nothing out: where one carried vector is only pushed onto (`typed_push`, in the
        body or in its `if` branches: `_push_chain`), and nothing else in the body may
        read it (no other value there could be that vector: every other operand is a
        number, text, Char, range, constant or a struct of numbers), its pushes append
        to a list instead, whose values `push_many` pushes at each chunk's end and where
        the loop is left (`wrap_buffered`). Returns (the vector's variable, the list's)
        or None."""
        if not PUSH_BUFFERS:
            return None
        body = op.regions[0]
        for j, a in enumerate(body.args[1:]):
            k = self.known.get(a.id)
            if type(k) is not ArrayKey or k.ndim != 1 or k.elem is None:
                continue
            chain = _push_chain(body, a.id, j)
            if chain is None or not self._reads_no_array(body, *chain):
                continue
            same, pushes = chain
            heads = [f"PUSH_ONE(v{p.operands[0].id}, " for p in pushes]
            at = [i for i in range(start, len(self.lines))
                  if self.lines[i].lstrip().startswith(tuple(heads))]
            if len(at) != len(pushes):
                continue
            n = self.temp()
            buf, app = f"B{n}", f"BA{n}"
            for i in at:
                line = self.lines[i]
                text = line.lstrip()
                self.lines[i] = line[: len(line) - len(text)] + app + "(" + text[
                    text.index(", ") + 2:]
            return carried[j], buf
        return None

    def _reads_no_array(self, body: Region, same: set[int], pushes: list[Op]) -> bool:
        """Whether every value the ops of `body` use or make, but the vector's (`same`)
        and the pushed values, is known as one that cannot be or hold a host array
        (`push_buffer`)."""
        for o in walk_ops(body):
            if any(o is p for p in pushes):
                continue
            for v in list(o.operands) + list(o.results):
                if v.id in same:
                    continue
                k = self.known.get(v.id)
                if k is None and v.id in self.consts:
                    if not isinstance(self.consts[v.id], _HOLD_NO_ARRAY):
                        return False
                elif not (k in _NO_ARRAY_KINDS or _numbers_struct(k)):
                    return False
        return True

    def wrap_buffered(self, first: int, depth: int, buffer: tuple[str, str]) -> None:
        """The loop written from line `first` at `depth` collects a vector's pushes in a
        list (`push_buffer`): the list is made before it (a vector that `push_one` cannot
        grow is pushed onto one value at a time, its error raised at that push), and
        the loop is wrapped so that the values collected are pushed wherever it is left
        (its end, `break`, `return`, an error)."""
        vec, buf = buffer
        app = "BA" + buf[1:]
        for i in range(first, len(self.lines)):
            self.lines[i] = "    " + self.lines[i]
        head = [f"{buf} = []",
                f"{app} = {buf}.append if PUSHABLE({vec}) else PARTIAL(PUSH_ONE, {vec})",
                "try:"]
        self.lines[first:first] = ["    " * depth + t for t in head]
        self.where[first:first] = [self.chain] * len(head)
        self.emit(depth, "finally:")
        self.emit(depth + 1, f"PUSH_MANY({vec}, {buf})")

    def not_of(self, x: str, kind: Any) -> str:
        """The test that the value of variable `x` is not of `kind` (a Python type, or a
        struct type: a StructValue of it)."""
        k = self.bind("E", kind)
        if type(kind) is V.JType:
            return f"type({x}) is not STRUCT or {x}.type is not {k}"
        return f"type({x}) is not {k}"

    def carried_ifs(self, body: Region, carried: list[str]) -> dict[int, str]:
        """The results of `if`s at the top of a loop body that the iteration yields as a
        carried value and nothing else reads, each with that value's variable: the `if`
        assigns it there (`s = s + 1` in a branch, nothing in the other), where the body
        reads the carried value no more after the `if`."""
        term = body.ops[-1]
        out: dict[int, str] = {}
        for k, o in enumerate(body.ops):
            if o.name != "if":
                continue
            for r in o.results:
                at = [j for j, v in enumerate(term.operands) if v.id == r.id]
                if self.uses.get(r.id) != 1 or len(at) != 1 or at[0] >= len(carried):
                    continue
                a = body.args[1 + at[0]].id
                if not any(_reads(later, a) for later in body.ops[k + 1:]):
                    out[r.id] = carried[at[0]]
        return out

    def assign_carried(self, depth: int, value: str, carried: str) -> str:
        """Where the one carried value an iteration yields is assigned by the line just
        written and read nowhere else (`v10 = v5 + v9`), that line assigns the carried
        variable itself (`v5 = v5 + v9`); returns what the yield is to assign."""
        head = "    " * depth + f"{value} = "
        last = self.lines[-1] if self.lines else ""
        if (value == carried or not value[1:].isdigit() or self.uses.get(int(value[1:])) != 1
                or not last.startswith(head)):
            return value
        rest = last[len(head):]
        if rest == carried:  # (`d[k] = v` of a carried Dict yields the Dict itself)
            del self.lines[-1], self.where[-1]
        else:
            self.lines[-1] = "    " * depth + f"{carried} = " + rest
        return carried

    def raw_chars(self, op: Op) -> bool:
        """Whether a loop specialisation's `for` over the characters of an ASCII String
        (`ASCII_TEXT`) iterates its Python characters (RAWCHAR): where the element is
        only compared with Chars (`==`, `!=`), as `typed_char_eq` writes it; where one of
        those comparisons is not written so after all (`consumed`), the specialisation
        is written again without this."""
        it, elem = op.operands[0].id, op.regions[0].args[0].id
        if it not in self.ascii or it in self.texts_off:
            return False
        for o in walk_ops(op.regions[0]):
            if any(v.id == elem for v in o.operands) and not (
                    o.name == "call" and o.attrs.get("fn") in ("==", "!=")
                    and len(o.operands) == 2 and not o.attrs.get("kw")):
                return False
        self.texts[elem] = it
        return True

    def loop_elem(self, op: Op) -> tuple[Any, bool]:
        """What the elements of a `for` loop's iterated value are known as (None: not
        known), and whether each must be tested (an object vector's)."""
        k = self.known.get(op.operands[0].id)
        if k is IRANGE:
            lo = self.range_lo.get(op.operands[0].id)
            if lo is not None:  # (the elements of a range going up from lo)
                self.bounds[op.regions[0].args[0].id] = (lo, None)
            return int, False
        if k is str or k is SubStr:  # (a String's characters: Chars)
            return V.Char, False
        if type(k) is ArrayKey and k.elem is not None:
            return k.elem, k.checked
        return None, False

    def loop_wanted(self, op: Op) -> bool:
        """Whether a `for` loop gets an entry to code written for the kinds of the values
        it uses from outside: in a function's body (not the top level's, not a derived
        one), a loop without tapes some of whose values' kinds are not known here."""
        if not (SPECIALIZE and LOOP_SPECS) or tape_count(op) or self.fn.derived \
                or self.fn.name == "toplevel" or self.nodepth:
            return False
        for i in _live(op):
            k = self.known.get(i)
            if i not in self.lits and (k is None or type(k) is ArrayKey and k.checked):
                return True
        return False

    def lazy_loop(self, op: Op) -> bool:
        """Whether a loop with an entry to its specialisations (`loop_entry`) has its
        general form written as a loop specialisation of its own for values of any kind,
        when it is first needed (most loops never need it: their specialisation runs
        them whole), not here; with an interpreter loop behind it, for a loop that does
        not translate so (`_interpreted_loop`). Not for a loop over a `split`'s texts
        (`split_texts`: its element's uses are counted where the loop is written)."""
        return LAZY_LOOPS and op.regions[0].args[0].id not in self.texts

    def loop_entry(self, op: Op, depth: int, iterator: str, prog: str, t0: str,
                   carried: list[str], lazy: bool = False) -> str:
        """Lines that run the loop's specialisation for the kinds (`host_key`) of the
        values it uses from outside, made when the loop is first long or often entered;
        its results become the carried values. Returns the iterator the loop written
        here goes on with: nothing left, or what the specialisation left (the element it
        stopped at first). With `lazy`, the loop's general form (`lazy_loop`) goes on from
        there, or runs it where there is no specialisation."""
        live = _live(op)
        lits = {i: self.lits[i] for i in live if i in self.lits}
        consts = {i: self.consts[i] for i in live if i in self.consts}
        params = [f"v{i}" for i in live if i not in lits]
        table, make = self.loop_maker(op, [i for i in live if i not in lits], lits, consts)
        tv, mv = self.bind("LT", table), self.bind("LM", make)
        n = self.temp()
        itv, key, sp, x = f"IT{n}", f"K{n}", f"SP{n}", f"X{n}"
        # (an iterator, not a range: where the specialisation stops at an element, the
        # loop goes on with the rest of it)
        self.emit(depth, f"{itv} = iter({iterator})")
        keys = "".join(f"HK({p}), " for p in params)
        self.emit(depth, f"{key} = ({keys})")
        self.emit(depth, f"{sp} = {tv}.get({key})")
        self.emit(depth, f"if {sp} is None: {sp} = {mv}({key}, {prog})")
        self.emit(depth, f"if {sp}:")
        dd = "dd" if self.spec is not None else "I.depth"
        args = "".join(f"{p}, " for p in params)
        self.emit(depth + 1, f"{', '.join([x] + carried)}, = "
                             f"{sp}({args}{itv}, {prog}, {t0}, {dd})")
        if not lazy:
            self.emit(depth + 1, f"{itv} = () if {x} is DONE else RESUME({x}, {itv})")
            return itv
        gv = self.bind("GL", self.general_loop(op, [i for i in live if i not in lits], lits,
                                               consts))
        now = "(" + "".join(f"{c}, " for c in carried) + ")"
        back = f"{', '.join([x] + carried)}, = {gv}({args}{now}, "
        self.emit(depth + 1, f"if {x} is not DONE:")
        self.emit(depth + 2, f"{back}RESUME({x}, {itv}), {prog}, {t0}, {dd})")
        self.emit(depth, "else:")
        self.emit(depth + 1, f"{back}{itv}, {prog}, {t0}, {dd})")
        return itv

    def general_loop(self, op: Op, params: list[int], lits: dict[int, str],
                     consts: dict[int, Any]) -> Callable[..., Any]:
        """The loop's general form (`lazy_loop`), written at its first call: `run(values...,
        carried, IT_, PG_, T0_, dd)` runs the loop from the iterator IT_ on, from the
        carried values given, and returns (DONE, carried values...)."""
        interp, fn = self.interp, self.fn
        made: list[Callable[..., Any]] = []

        def run(*a: Any) -> Any:
            if not made:
                spec = _loop_spec(interp, fn, op, dict.fromkeys(params), lits, consts,
                                  made.clear, resume=True)
                made.append(spec or _interpreted_loop(interp, fn, op, params, consts))
            return made[0](*a)

        return run

    def loop_maker(self, op: Op, params: list[int], lits: dict[int, str],
                   consts: dict[int, Any]) -> tuple[dict, Callable[..., Any]]:
        """A loop's table of specialisations by the kinds of its values, and the function
        that makes a missing one (False: none for those kinds, or not yet: a loop of few
        iterations is specialised on its third entry)."""
        interp, fn = self.interp, self.fn
        table: dict[tuple, Any] = {}
        entries: dict[tuple, int] = {}

        def make(key: tuple, prog: list) -> Any:
            n = entries[key] = entries.get(key, 0) + 1
            if 0 <= prog[1] < LOOP_SPEC_TRIPS and n < 3:
                return False
            out = _loop_spec(interp, fn, op, dict(zip(params, key, strict=True)), lits,
                             consts, lambda: table.pop(key, None)) or False
            table[key] = out
            return out

        return table, make

    def write_loop(self, op: Op, params: list[int], resume: bool = False) -> None:
        """Write a loop's specialisation (`self.lines`): `spec(values..., IT_, PG_, T0_,
        dd)` runs the loop from the iterator IT_ on (PG_, T0_: the progress record and
        start time its entry made; dd: the activation's depth) for the kinds of the
        values in `self.known`, and returns (DONE, carried values...) at its end, or
        (element, carried values...) at an element not of the kind it was written for."""
        body = op.regions[0]
        args = body.args
        carried = [f"v{a.id}" for a in args[1:]]
        start = "C_, " if resume else ""
        self.emit(0, f"def spec({''.join(f'v{i}, ' for i in params)}{start}IT_, PG_, T0_, dd):")
        self.emit(1, "try:")
        assumed = self.assume_loop(op, op.operands[1:], [args[1:]])
        elem, checked = self.loop_elem(op)
        it = self.ref(op.operands[0])
        raw = elem is V.Char and self.raw_chars(op)
        if raw:
            elem = RAWCHAR
        if elem is not None:
            self.known[args[0].id] = elem
        if resume:
            if carried:
                self.emit(2, f"{', '.join(carried)}, = C_")
        else:
            self.yield_to(2, carried, [self.ref(v) for v in op.operands[1:]])
        counter = self.loop_counter(2)
        check = elem if checked else None
        # (a loop over a String's characters runs over its text, not IT_, where nothing
        # can leave it to the general loop, which would go on with IT_)
        self.deopt = None if raw else "loop"
        # (a range is run in chunks, not IT_: IT_ is a fresh iterator of it, and where the
        # specialisation stops at an element it returns the rest of the range)
        chunked = raw or (not resume and self.known.get(op.operands[0].id) is IRANGE)
        self.loop_body(op, 2, "IT_", ("PG_", "T0_", it), carried, [], counter, assumed, check,
                       chunked=chunked)
        self.consumed(op)
        self.emit(2, f"return ({', '.join(['DONE'] + carried)},)")
        self.emit(1, "except Exception as e:")
        self.emit(2, "raise FAIL(e)")

    def finish_loop(self, dropped: Callable[[], None]) -> Callable[..., Any]:
        """Compile the written loop specialisation; when a name it assumed is rebound or a
        method is added to a function it assumed, its direct calls go the general way
        and `dropped()` removes it from its table."""
        ns, interp = self.load(), self.interp
        call_named = ns["CALL_NAMED"]

        def drop() -> None:
            for var, (callee, depth) in self.direct.items():
                ns[var] = _general_call(interp, call_named, callee, depth)
            dropped()

        self.watch_assumed(drop)
        return ns["spec"]

    def assume_loop(self, op: Op, inits: list, targets: list[list]) -> list[Any] | None:
        """In a specialisation: the types assumed for a loop's carried values (at first
        their initial values'), made known for the region arguments `targets`."""
        if self.spec is None:
            return None
        assumed = self.loop_types.get(id(op))
        if assumed is None:
            assumed = self.loop_types[id(op)] = [self.known.get(v.id) for v in inits]
        for args in targets:
            for a, t in zip(args, assumed, strict=False):
                if t is not None:
                    self.known[a.id] = t
        return assumed

    def settle_loop(self, op: Op, assumed: list[Any] | None, yielded: list[Any]) -> None:
        """Where an iteration yields a carried value of another type than assumed, the
        specialisation is written again with that value's type unknown."""
        if assumed is None:
            return
        new = [_join(a, y) for a, y in zip(assumed, yielded, strict=False)]
        if new != assumed:
            self.loop_types[id(op)] = new
            self.retry = True

    def loop_results(self, op: Op, assumed: list[Any] | None) -> None:
        if assumed is None:
            return
        for r, t in zip(op.results, assumed, strict=False):
            if t is not None:
                self.known[r.id] = t

    def op_while(self, op: Op, depth: int) -> None:
        cond_r, body = op.regions
        ntape = tape_count(op)
        carried = [self.temp() for _ in op.operands]
        assumed = self.assume_loop(op, op.operands, [cond_r.args, body.args])
        self.yield_to(depth, carried, [self.ref(v) for v in op.operands])
        recs = [self.temp() for _ in range(ntape)]
        for t in recs:
            self.emit(depth, f"{t} = []")
        prog, t0 = self.temp(), self.temp()
        self.emit(depth, f"{t0} = CLOCK()")
        self.emit(depth, f"{prog} = [0, -1, {t0}]")  # (a while loop's trip count: unknown)
        self.emit(depth, f"I.loops.append({prog})")
        counter = self.loop_counter(depth)
        self.emit(depth, "try:")
        self.emit(depth + 1, "while True:")
        d = depth + 2
        start = len(self.lines)
        self.yield_to(d, [f"v{a.id}" for a in cond_r.args], carried[: len(cond_r.args)])
        c = self.region(cond_r, d)[0]
        if not c.isidentifier():  # (a constant condition: `while true`)
            t = self.temp()
            self.emit(d, f"{t} = {c}")
            c = t
        if self.term_types[:1] != [bool]:
            self.emit(d, f"if type({c}) is not bool: {c} = CONDITION({c})")
        self.emit(d, f"if not {c}: break")
        self.yield_to(d, [f"v{a.id}" for a in body.args], carried[: len(body.args)])
        out = self.region(body, d)
        n = len(carried)
        self.settle_loop(op, assumed, self.term_types[:n])
        for t, v in zip(recs, out[n:], strict=False):
            self.emit(d, f"{t}.append({v})")
        self.yield_to(d, carried, out[:n])
        self.loop_end(op, d, prog, t0, "None", carried, counter if self.leaf_loop(start) else None)
        self.emit(depth, "finally:")
        self.emit(depth + 1, "I.loops.pop()")
        self.yield_to(depth, [f"v{r.id}" for r in op.results],
                      carried + [f"TAPE({t})" for t in recs])
        self.loop_results(op, assumed)

    def op_method(self, op: Op, depth: int) -> None:
        o = self.bind("O", op)
        types = ", ".join(self.ref(v) for v in op.operands)
        self.assign(op, depth, f"RT.define_method({o}, [{types}])")

    def op_struct(self, op: Op, depth: int) -> None:
        o = self.bind("O", op)
        vals = [self.ref(v) for v in op.operands]
        self.assign(op, depth, f"RT.define_struct({o}, {vals[0]}, [{', '.join(vals[1:])}])")

    def other(self, op: Op, depth: int) -> None:
        """An op a higher layer registered (e.g. AD's): its handler, given the operands."""
        handler = self.handlers.get(op.name)
        if handler is None or op.regions:
            raise Untranslatable(op.name)
        h = self.bind("X", handler)
        o = self.bind("O", op)
        env = "{" + ", ".join(f"{v.id}: {self.ref(v)}" for v in op.operands) + "}"
        self.assign(op, depth, f"{h}(I, {o}, {env}, FN)")


def _forwarded(g: GenericFunction) -> Primitive | None:
    """The primitive a generic function's fallback method forwards to (`+` once methods
    for other types were added to it), or None."""
    prims = {id(m.prim): m.prim for m in g.methods if type(m.prim) is Primitive}
    if len(prims) != 1:
        return None
    (p,) = prims.values()
    return p if PRIMITIVES.get(p.name) is p else None


#: the Julia argument types of the cases written inline, by primitive name (a binary
#: arithmetic or comparison primitive: its Int64/Float64 pairs)
_NUM_PAIRS = [(V.Int64T, V.Int64T), (V.Float64T, V.Float64T), (V.Int64T, V.Float64T),
              (V.Float64T, V.Int64T)]
_INLINE_CASES: dict[str, list[tuple]] = {
    **{n: _NUM_PAIRS for n in _BINARY}, "-": _NUM_PAIRS + [(V.Int64T,), (V.Float64T,)],
    "!": [(V.BoolT,)], "^": [(V.Float64T, V.Int64T)], "%": [(V.Int64T, V.Int64T)],
}
#: the case written inline for a math function with a Python form (`sqrt`)
_MATH_CASES = [(V.Float64T,)]


def _forwards(g: GenericFunction, p: Primitive) -> bool:
    """Whether every case written inline for `p` dispatches to `p` through `g`: its
    Int64/Float64 cases, and for a fast form (`_FAST_FORMS`), no method of `g` but the
    fallback may take the values of its cases (remembered until a method is added)."""
    return g.memo((_forwards, p), lambda: _finds_forwards(g, p))


def _finds_forwards(g: GenericFunction, p: Primitive) -> bool:
    cases = _INLINE_CASES.get(p.name)
    if cases is None and hasattr(getattr(p.host, "over_xp", None), "scalar_math"):
        cases = _MATH_CASES
    form = _FAST_FORMS.get(p.name)
    if cases is None and form is None:
        return False
    for types in cases or ():
        try:
            if g.dispatch(list(types)).prim is not p:
                return False
        except ZylaError:
            return False
    return form is None or not any(m.prim is not p and _may_take(m, form.kinds)
                                   for m in g.methods)


def _may_take(m: Method, kinds: tuple[str, ...]) -> bool:
    """Whether method `m` may be the one called with values of these kinds (so that a
    fast form for them would bypass it): every one of its parameters there may take
    the value (conservatively: unless its type certainly does not)."""
    n = len(kinds)
    if m.nreq > n or (not m.vararg and len(m.sig) < n):
        return False
    types = [m.sig[k] if k < len(m.sig) else m.vararg_type for k in range(n)]
    return all(_takes(t, kind) for t, kind in zip(types, kinds, strict=True))


#: type families whose values are none of the kinds the fast forms are for (arrays,
#: structs, Dicts, Chars, Strings)
_OTHER_FAMILIES = frozenset(id(t) for t in (V.TypeT, V.TupleT, V.NamedTupleT, V.ModuleT))
_ANY_DICT = V.apply_type(DictT, (V.AnyT, V.AnyT))


#: the kinds of value that are never a Number (a struct may be one)
_NOT_NUMBERS = frozenset({"array", "symbol"})


def _takes(t: Any, kind: str) -> bool:
    """Whether a parameter of type `t` may take a value of `kind` ("array": a numpy
    array; "struct": a struct; "dict": a Dict; "text": a Char or a String; "any": any
    value)."""
    if not isinstance(t, V.JType) or kind == "any":
        return True
    members = V.union_members(t)
    if members:  # (a Union takes what one of its members takes)
        return any(_takes(m, kind) for m in members)
    if kind == "dict":
        return t.family is DictT or V.issubtype(_ANY_DICT, t)
    if kind == "text":  # (the fast forms take a Char or a String: `StepRange{Char}` neither)
        return V.issubtype(V.CharT, t) or V.issubtype(V.StringT, t)
    if kind == "text or int":
        return _takes(t, "text") or _takes(t, "int")
    if id(t.family) in _OTHER_FAMILIES:
        return False
    if kind == "array" and not t.abstract and t.family is not V.ArrayT:
        return False  # (a host array is an Array: `getindex(::StepRange{Char}, ...)`)
    if kind in _NOT_NUMBERS and V.issubtype(t, V.NumberT):  # (`getindex(::Number, ...)`)
        return False
    # (a concrete struct type takes its own instances only: no array, Dict, Char, String)
    return kind == "struct" or not t.is_struct or t.abstract


@dataclass(frozen=True)
class _Form:
    """A Python form of a primitive's common cases, written at its call sites: `write`
    gives (guard, expression) pairs from the operand expressions and the operands'
    constant values (UNSET where not a constant); each guard states a case, its
    expression computes what the primitive's host implementation would. `kinds`: what
    the guarded operands are, for the check that no method of a generic function that
    forwards to the primitive takes such values first (`_forwards`)."""

    write: Callable[[list[str], list[Any]], list[tuple[str, str]]]
    kinds: tuple[str, ...]


def _fast_get(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`get(d, k, default)` of a Dict: the dictionary's own get."""
    if len(vals) != 3:
        return []
    d, k, default = vals
    # (a String key is stored as it is: the dict's own C-level get, no method call)
    return [(f"type({d}) is JDICT and (type({k}) is str or type({k}) is SUBSTR)",
             f"DGET({d}, {k}, {default})"),
            (f"type({d}) is JDICT", f"{d}.get({k}, {default})")]


def _fast_store(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`d[k] = v` (`Core.setindex_fn(d, v, k)`) of a Dict whose value type is v's own:
    stored as is (no conversion to make)."""
    if len(vals) != 3:
        return []
    d, v, k = vals
    # (a String key of a Dict{String, V} needs neither conversion nor an isequal stand-in;
    # a SubString one is stored as its String: `str` of a String is the String itself.
    # `string_exact` is None unless the Dict's key type is String)
    return [(f"type({d}) is JDICT and type({v}) is {d}.string_exact "
             f"and (type({k}) is str or type({k}) is SUBSTR)", f"DSTR({d}, STR({k}), {v}) or {d}"),
            (f"type({d}) is JDICT and type({v}) is EXACT.get(id({d}.value_type))",
             f"DSET({d}, {k}, {v})")]


def _fast_field(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`x.name` (`getproperty(x, :name)`) of a struct that has the field."""
    if len(vals) != 2 or type(consts[1]) is not V.Symbol:
        return []
    x, name = vals[0], repr(consts[1].name)
    return [(f"type({x}) is STRUCT and {name} in {x}.type.fields",
             f"{x}.fields[{x}.type.fields.index({name})]")]


def _fast_index(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`v[i]` of a vector of Float64, Int64, Bool (as Python numbers) or objects (as
    they are), an Int64 index in bounds."""
    if len(vals) != 2:
        return []
    v, i = vals
    # (one guard for both kinds: `item` gives a number as a Python one and an object as
    # it is; an object that is a numpy scalar is made a host one)
    return [(f"type({v}) is NDARRAY and type({i}) is int and {v}.ndim == 1 "
             f"and 0 < {i} <= len({v}) and {v}.dtype in ITEM_DTYPES",
             f"(e_ if type(e_ := {v}.item({i} - 1)) in PLAIN_ITEMS else HOST_SCALAR(e_))")]


def _host_item(e: Any) -> Any:
    """An element read from an object vector that is not a plain host value: made one
    (a numpy scalar), or UndefRefError for an undefined slot."""
    return V.check_assigned(host_scalar(e))


#: the dtypes of the vectors `_fast_index` reads: numbers `item` gives as Python's, and objects
_ITEM_DTYPES = PY_ITEM_DTYPES | {np.dtype(object)}
#: the Python types of elements that are host values as they are (`host_scalar` leaves
#: them; it makes a numpy scalar or a 0-d array in an object vector a host value)
_PLAIN_ITEMS = frozenset({float, int, bool, str, SubStr, V.StructValue, V.Char})


def _fast_length(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`length(a)` of an array: its number of elements."""
    if len(vals) != 1:
        return []
    return [(f"type({vals[0]}) is NDARRAY", f"{vals[0]}.size")]


def _fast_text_eq(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`a == b` of two Chars or two Strings: Python's equality is Julia's."""
    if len(vals) != 2:
        return []
    a, b = vals
    ca, cb = consts
    if any(c is not UNSET and type(c) is not V.Char and type(c) is not str for c in consts):
        return []  # (a constant neither Char nor String: `i == 2`)
    if type(cb) is V.Char or type(ca) is V.Char:  # (`ch == ','`: the constant's character)
        x, c = (a, cb) if type(cb) is V.Char else (b, ca)
        return [(f"type({x}) is CHAR", f"{x}.value == {c.value!r}")]
    # (two Chars compare their characters: Char.__eq__ without its Python call)
    return [(f"type({a}) is CHAR and type({b}) is CHAR", f"{a}.value == {b}.value"),
            (f"type({a}) is str and type({b}) is str", f"{a} == {b}")]


def _fast_string(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`string(a, b)` (`"item$(i)"`) of Strings and Int64s: their text joined (an Int64's
    text is its decimal digits, as `print` writes it)."""
    if len(vals) != 2:
        return []
    guards = [f"(type({v}) is str or type({v}) is int)" for v, c in zip(vals, consts, strict=True)
              if type(c) is not str]
    return [(_and(*guards), " + ".join(f"STR({v})" for v in vals))]


def _fast_push(vals: list[str], consts: list[Any]) -> list[tuple[str, str]]:
    """`push!(v, x)` (`Core.push_fn(np, v, x)`) of a host array: a Float64, Int64 or Bool
    onto a vector of its own element type, or a struct onto a vector recorded as of its
    type, stored as it is (`push_one`); anything else the host push itself, without the
    primitive's dispatch on the array module and its argument tuple."""
    if len(vals) != 2:
        return []
    v, x = vals
    vector = f"type({v}) is NDARRAY and {v}.ndim == 1"
    # (the struct's form first: its first test is the cheaper one when it fails)
    return [(f"type({x}) is STRUCT and {vector} and RECORDED({v}) is {x}.type",
             f"PUSH_ONE({v}, {x}) or {v}"),
            (f"{vector} and AS_IS_DTYPE.get(type({x})) is {v}.dtype", f"PUSH_ONE({v}, {x}) or {v}"),
            (f"type({v}) is NDARRAY", f"PUSH({v}, {x})")]


#: the fast forms, by primitive name
_FAST_FORMS: dict[str, _Form] = {
    "string": _Form(_fast_string, ("text or int", "text or int")),
    "Core.push_fn": _Form(_fast_push, ("array", "any")),
    "get": _Form(_fast_get, ("dict", "any", "any")),
    "Core.setindex_fn": _Form(_fast_store, ("dict", "any", "any")),
    "getproperty": _Form(_fast_field, ("struct", "symbol")),
    "getindex": _Form(_fast_index, ("array", "int")),
    "length": _Form(_fast_length, ("array",)),
    "==": _Form(_fast_text_eq, ("text", "text")),
}


def _key_uses_only(loop: Op) -> bool:
    """Whether a `for` loop reads its element only as the key of a Dict's `get(d, k,
    default)` or `d[k] = v`."""
    elem = loop.regions[0].args[0].id
    for o in walk_ops(loop.regions[0]):
        for k, v in enumerate(o.operands):
            if v.id == elem and not (
                    o.name == "call" and len(o.operands) == 3 and not o.attrs.get("kw")
                    and not o.attrs.get("splat")
                    and _KEY_AT.get(o.attrs["fn"]) == k):
                return False
    return True


#: where a Dict operation takes its key
_KEY_AT = {"get": 1, "Core.setindex_fn": 2}


def _is_whitespace_split(m: Method) -> bool:
    """Whether m is the library's `split(s::ByteString; limit, keepempty)` (with no
    keywords given: the String's pieces between runs of whitespace)."""
    fn = m.fn
    return (fn is not None and fn.name == "split" and len(m.sig) == 1 and m.nreq == 1
            and fn.file == _STRINGS_JL and tuple(m.kwnames or ()) == ("limit", "keepempty"))


#: the library file that defines `split`
_STRINGS_JL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stdlib", "strings.jl")


#: the container operations a specialisation writes for known kinds (`_Gen.typed_get`, ...)
_KIND_OPS: dict[str, Callable[[_Gen, Op, list[str], int], bool]] = {
    "get": _Gen.typed_get, "Core.setindex_fn": _Gen.typed_store,
    "getindex": _Gen.typed_index, "Core.push_fn": _Gen.typed_push, "length": _Gen.typed_length,
    "string": _Gen.typed_string, "==": _Gen.typed_char_eq, "!=": _Gen.typed_char_eq,
    "getproperty": _Gen.typed_field, "Core.typed_vect": _Gen.typed_empty,
}
#: the Python type of a struct field's value, by the field's type (Float64, Int64, Bool:
#: the default constructor converts to them)
_PY_OF_FIELD = {id(V.Float64T): float, id(V.Int64T): int, id(V.BoolT): bool}
#: what a String or SubString is known as
_TEXTS = (str, SubStr)
_CHARS = (V.Char, RAWCHAR)
_TEXT_OR_INT = (str, SubStr, int)


#: what `push_buffer` knows cannot be or hold a host array: known kinds of values, and
#: the types of constants
_NO_ARRAY_KINDS = frozenset({int, float, bool, str, SubStr, V.Char, IRANGE, type(None)})
_HOLD_NO_ARRAY = (int, float, bool, str, type(None), V.Char, V.Symbol, GenericFunction,
                  Primitive, V.JType)


def _reads(op: Op, vid: int) -> bool:
    """Whether op, or an op inside its regions, reads the value vid."""
    return any(v.id == vid for v in op.operands) or any(
        v.id == vid for r in op.regions for o in walk_ops(r) for v in o.operands)


def _push_chain(body: Region, arg: int, j: int) -> tuple[set[int], list[Op]] | None:
    """For a loop body and its carried vector (region argument `arg`, carried at
    position j): the values that are that vector (the argument, the results of `push!`
    onto it, the results of `if`s whose every branch yields one of them) and the
    pushes, where these values are used only as what is pushed onto, as an `if`
    branch's yield of such a result, and as the body's yield at position j; else
    None."""
    users: dict[int, list[tuple[Op, int]]] = {}
    parent: dict[int, Op] = {}  # id(a region's terminator) -> the `if` it ends a branch of
    for o in walk_ops(body):
        for k, v in enumerate(o.operands):
            users.setdefault(v.id, []).append((o, k))
        for r in o.regions:
            if r.ops:
                parent[id(r.ops[-1])] = o
    term = body.ops[-1]
    same, pushes, joins = {arg}, [], []
    todo = [arg]
    while todo:
        v = todo.pop()
        for o, k in users.get(v, ()):
            if o is term:
                if k != j:
                    return None
            elif (o.name == "call" and o.attrs.get("fn") == "Core.push_fn" and k == 0
                  and len(o.operands) == 2 and len(o.results) == 1):
                if not any(p is o for p in pushes):
                    pushes.append(o)
                    same.add(o.results[0].id)
                    todo.append(o.results[0].id)
            elif o.name == "yield" and id(o) in parent and parent[id(o)].name == "if":
                q = parent[id(o)]
                if k >= len(q.results):
                    return None
                joins.append((q, k))
                if q.results[k].id not in same:
                    same.add(q.results[k].id)
                    todo.append(q.results[k].id)
            else:
                return None
    if term.operands[j].id not in same or not pushes:
        return None
    def read(v: int) -> bool:  # (whether anything reads v but yields to unread results)
        for o, k in users.get(v, ()):
            q = parent.get(id(o))
            if q is None or q.name != "if" or read(q.results[k].id):
                return True
        return False

    for q, k in joins:  # (every branch yields the vector there, where it is read)
        if read(q.results[k].id) and any(
                not r.ops or r.ops[-1].operands[k].id not in same for r in q.regions):
            return None
    return same, pushes


def _power_product(a: str, n: Any) -> str:
    """`a ^ n` of a Float64 for the constant n = 2 or 3 written as the product the
    primitive computes (`a * a`), else ""."""
    return " * ".join([a] * n) if type(n) is int and n in (2, 3) else ""


def _numbers_struct(t: Any) -> bool:
    """Whether t is a plain struct type whose fields are all Float64, Int64 or Bool."""
    return V.plain_struct(t) and all(id(ft) in _PY_OF_FIELD for ft in t.field_types)


#: a line that assigns a bound constant to a variable, and a word of Python source
_CONST_LINE = re.compile(r"^\s*(v\d+) = K\d+$")
_WORD = re.compile(r"\b[A-Za-z_]\w*")


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
    struct = V.StructValue
    run_function = interp.run_function
    construct, jtype = rt.construct, V.JType

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
            if body is None:  # (a built-in method: nothing for the policy to choose)
                return interp.invoke(m, args, None)
            if m.prim is None and m.impl is None:
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
        """The method of a generic function for these arguments when their key types
        (Python types; a struct's Julia type) determine it and its body takes them as
        they are (else None)."""
        if type(f) is not GenericFunction:
            return None
        types = [pytypes.get(type(a)) or (a.type if type(a) is struct else None)
                 for a in args]
        if None in types:
            return None
        m = f.dispatch(types)
        body = m.fn
        if type(m.prim) is Primitive:
            f.pycache[key] = m  # (a method forwarding to a primitive: `+` of two Int64s)
            return m
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
                if m.prim is not None:
                    return interp.call_primitive(m.prim, list(args), None)
                body = m.fn
                if interp.offload and not derived:
                    if body.host_skip:  # (the policy said: cheap, runs here)
                        body.host_skip -= 1
                    elif not body.host_active:
                        return interp.tiered_call(f, list(args), None, caller)
                    else:
                        body.recursed = True
                specs = body.host_specs  # (its specialisation for these types: the
                if specs is not None and specs[0] is interp:  # entry's lookup, done here)
                    sp = specs[1].get(key)
                    if sp:
                        return sp(*args, interp.depth + 1)
                code = body.host_code
                if code is not None and code[0] is interp and code[1] is not None:
                    return code[1](*args)
                return run_function(body, list(args))
        elif type(f) is jtype:  # (a type called: what `call` does with it, directly)
            return construct(f, list(args), None, interp)
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
            "JDICT": JDict, "EXACT": EXACT_VALUE_TYPES, "DSET": JDict.store_exact,
            "DGET": dict.get, "DSTR": dict.__setitem__, "SUBSTR": SubStr, "STR": str,
            "STRUCT": V.StructValue, "NDARRAY": np.ndarray, "ITEM_DTYPES": _ITEM_DTYPES,
            "PLAIN_ITEMS": _PLAIN_ITEMS, "HOST_SCALAR": _host_item,
            "CHAR": V.Char, "PUSH": push_value, "PUSH_ONE": push_one,
            "PUSH_MANY": push_many, "PUSHABLE": pushable, "PARTIAL": functools.partial,
            "AS_IS_DTYPE": AS_IS_DTYPE, "RECORDED": recorded,
            "HK": host_key, "DONE": _DONE, "RESUME": _resume, "REST_FROM": _rest_from,
            "SPLIT_TEXTS": split_texts,
            "CHUNKS": _chunks,
            "OVERFLOW": _overflow}


def _interpreted_loop(interp: Any, fn: Function, op: Op, params: list[int],
                      consts: dict[int, Any]) -> Callable[..., Any]:
    """A loop's general form on the interpreter loop (`for_iterations`), as
    `_Gen.general_loop` calls it, for a loop that does not translate as a loop
    specialisation of its own."""
    n = len(params)

    def run(*a: Any) -> Any:
        env = dict(consts)
        env.update(zip(params, a[:n], strict=True))
        carried, it, prog, dd = list(a[n]), a[n + 1], a[n + 2], a[n + 4]
        interp.depth = dd
        return (_DONE, *interp.for_iterations(op, env, fn, it, carried, prog, []))

    return run


def _chunks(r: Any) -> Any:
    """An Int64 range (a list, an ASCII String's text) as Python ranges (slices) of TICKS
    elements, the last one shorter."""
    size = _interp.TICKS
    if type(r) is list or type(r) is str:
        if len(r) <= size:
            yield r
            return
        for k in range(0, len(r), size):
            yield r[k:k + size]
        return
    start, step, n = r.start, r.step, r.length
    for k in range(0, n, size):
        m = min(size, n - k)
        yield range(start + k * step, start + (k + m) * step, step)


#: the line of a loop specialisation's way out that brings its progress up to date,
#: written once the body's lines say how it counts (`_Gen.loop_body`)
_PROGRESS = "\x02progress"
#: what a loop specialisation returns first when it ran to the loop's end
_DONE = object()


class _Rest:
    """What a loop specialisation that ran a range in chunks returns where it stopped at
    an element: the rest of the range from that element on, as an iterator."""

    __slots__ = ("rest",)

    def __init__(self, rest: Any) -> None:
        self.rest = rest


def _rest_from(r: V.Range, x: int) -> _Rest:
    """The elements of the Int64 range r from its element x on."""
    return _Rest(iter(range(x, r.start + r.length * r.step, r.step)))


def _resume(x: Any, it: Any) -> Any:
    """What the general loop goes on with where a specialisation stopped at x: the rest
    of the range (`_Rest`), or the element x and then the rest of the iterator it."""
    return x.rest if type(x) is _Rest else itertools.chain((x,), it)


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


def _fail(interp: Any, fn: Function, where: list[tuple[Op, ...]], e: Exception,
          consts: dict[int, Any]) -> BaseException:
    """The error a translated body raises for `e`, located as the interpreter locates it:
    at the op whose line raised it, then at each op around that one (`consts`: the
    values of the constants written as literals, for the messages)."""
    tb = e.__traceback__
    chain = where[tb.tb_lineno - 1] if tb is not None and 0 < tb.tb_lineno <= len(where) else ()
    if type(chain) is _Located:
        chain = _folded_at(chain, tb)
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
            refine_method_error(err, op, {**consts, **_env(tb)})
    elif isinstance(e, RecursionError):
        err = ZylaError("StackOverflowError", "recursion too deep", op.span, src)
        err.__suppress_context__ = True
        for o in chain[1:]:
            err.located(o.span, src)
        return err
    else:
        err = interp.rt.translate_exception(e)
        refine_method_error(err, op, {**consts, **_env(tb)})
        err.__cause__ = e
    for o in chain:
        err.located(o.span, src)
    return err


def _folded_at(loc: _Located, tb: Any) -> tuple:
    """The ops of a line with folded expressions that raised: those of the innermost
    folded expression around the failing instruction's columns, else the line's."""
    try:
        pos = list(tb.tb_frame.f_code.co_positions())[tb.tb_lasti // 2]
    except (IndexError, AttributeError):
        return tuple(loc)
    c0, c1 = pos[2], pos[3]
    if c0 is None or c1 is None:
        return tuple(loc)
    best: tuple | None = None
    width = None
    for a, b, chain in loc.subs:
        if a <= c0 and c1 <= b and (width is None or b - a < width):
            best, width = chain, b - a
    return best if best is not None else tuple(loc)


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
