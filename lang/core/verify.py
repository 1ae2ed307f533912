"""The IR verifier: checks that a function's IR is well formed (DESIGN.md, decision 2).

`verify(fn)` returns None for well-formed IR and otherwise raises
`ZylaError("IRVerifyError", message, op.span)`, the message naming the function and the
offending op (as one line of IR text). What it checks:

- Values: every value is defined exactly once, by a region argument or an op result; every
  operand is defined earlier in the same region or in an enclosing one before the op that
  holds the region (values defined inside a nested region are not visible outside it, and
  an op's results are not visible inside its own regions). The function's `counter` is
  above every value id (so `new_value` cannot reuse one).
- Regions: each ends in exactly one terminator and has none elsewhere: `return` (one
  operand) in the function body, `yield` in nested regions.
- The function header: `len(params) == len(body.args)`; captures, keywords, the vararg and
  the callable-struct receiver fit in the parameter list.
- Ops, per name (`OP_RULES`; an unknown op name is an error):

      const       0 operands, 1 result, attr value
      global      0 operands, 1 result, attr name (a string)
      setglobal   1 operand, 0 results, attr name
      call        attr fn (a string), 1 result        pcall  the same with 2 results (y, pullback)
      callv       >= 1 operand (the callee), 1 result  pcallv the same with 2 results
                  (calls: attrs kw, a tuple of names no longer than the argument operands,
                  and splat, indices of positional argument operands)
      closure     attr func, a Function whose ncaptures == number of operands; 1 result
      method      attr func, a Function; one operand (a type) per positional parameter
      struct      >= 1 operand (the supertype, then one type per field in attr fields)
      if          1 operand; 2 regions without arguments; each yields len(results) values
      for         >= 1 operand (iterable, inits...); 1 region with len(operands) arguments
                  (the element, then the carried values); results: one per carried value,
                  plus the tape when attrs tape=true; the region yields len(results) values
                  (with a tape, the last is the iteration's tape element, see
                  lang.core.interp.Interpreter.op_for and autodiff.reverse)
      while       2 regions, each with len(operands) arguments: cond yields 1 value; body
                  yields len(results) values; results: len(operands), plus the tape when
                  attrs tape=true
      default     1 operand, 1 result, 1 region without arguments yielding 1 value
      yield       no results, no regions          return  1 operand, no results

`verify_module(fns)` verifies functions and every function they reference through
`func` attributes (lang.core.ir.referenced_functions), each once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from grammar.ast import NOSPAN
from grammar.errors import ZylaError
from lang.core.ir import Function, Op, Region, Value, format_op, referenced_functions, walk_ops

__all__ = ["OP_RULES", "verify", "verify_module"]


def verify(fn: Function) -> None:
    """Check one function's IR (not the functions it references); raises
    `ZylaError("IRVerifyError")` naming the first problem found."""
    _Verifier(fn).run()


def verify_module(fns: Function | Iterable[Function]) -> None:
    """Verify `fns` (one function or several) and every function they reference."""
    todo = [fns] if isinstance(fns, Function) else list(fns)
    seen: set[int] = set()
    for f in todo:
        for g in [f, *referenced_functions(f)]:
            if id(g) not in seen:
                seen.add(id(g))
                verify(g)


def _op_text(op: Op) -> str:
    """The op's first line of IR text, without its regions and span."""
    head = Op(op.name, op.operands, op.results, op.attrs, [], NOSPAN)
    text = format_op(head, 0)
    if op.regions:
        text += " {...}" * len(op.regions)
    return text


class _Verifier:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.defined: dict[int, str] = {}  # id -> what defined it, for messages
        self.anywhere: set[int] = set()  # every id defined somewhere in fn

    def fail(self, msg: str, op: Op | None = None) -> ZylaError:
        where = f"in @{self.fn.name}"
        if op is not None:
            where += f", op `{_op_text(op)}`"
        span = op.span if op is not None and op.span.line else None
        return ZylaError("IRVerifyError", f"{where}: {msg}", span)

    # --- function ------------------------------------------------------------------------

    def run(self) -> None:
        fn = self.fn
        body = fn.body
        self.anywhere = {a.id for a in body.args if isinstance(a, Value)}
        for op in walk_ops(body):
            self.anywhere.update(r.id for r in op.results if isinstance(r, Value))
            for r in op.regions:
                self.anywhere.update(a.id for a in r.args if isinstance(a, Value))
        self.header()
        self.region(body, set(), None)
        if self.defined and fn.counter <= max(self.defined):
            raise self.fail(
                f"counter is {fn.counter} but value %{max(self.defined)} exists; "
                "new values would reuse ids")

    def header(self) -> None:
        fn = self.fn
        n = len(fn.params)
        if len(fn.body.args) != n:
            raise self.fail(f"{n} parameter names but {len(fn.body.args)} body arguments")
        if fn.ncaptures < 0 or fn.nkw < 0 or fn.ncaptures + fn.nkw > n:
            raise self.fail(
                f"captures={fn.ncaptures} and kw={fn.nkw} do not fit {n} parameters")
        npos = n - fn.ncaptures - fn.nkw
        if fn.vararg and npos < 1:
            raise self.fail("vararg function without a positional parameter")
        if fn.self_arg and npos < 1:
            raise self.fail("callable-struct method without a receiver parameter")

    # --- regions ---------------------------------------------------------------------------

    def define(self, v: Value, what: str, op: Op | None) -> None:
        if not isinstance(v, Value):
            raise self.fail(f"{what} is {v!r}, not a Value", op)
        first = self.defined.get(v.id)
        if first is not None:
            raise self.fail(f"%{v.id} is defined twice: by {first} and by {what}", op)
        self.defined[v.id] = what

    def region(self, r: Region, outer: set[int], owner: Op | None) -> None:
        """Check region r, seeing the values in `outer`; owner is None for the body."""
        where = "the function body" if owner is None else f"a region of `{owner.name}`"
        visible = set(outer)
        for a in r.args:
            self.define(a, f"an argument of {where}", owner)
            visible.add(a.id)
        if not r.ops:
            raise self.fail(f"{where} is empty; it must end in a terminator", owner)
        last = len(r.ops) - 1
        want = "return" if owner is None else "yield"
        for i, op in enumerate(r.ops):
            if not isinstance(op, Op):
                raise self.fail(f"{where} holds {op!r}, not an Op", owner)
            if op.name in ("yield", "return"):
                if i != last:
                    raise self.fail(f"terminator in the middle of {where}", op)
                if op.name != want:
                    raise self.fail(f"`{op.name}` ends {where}; expected `{want}`", op)
            elif i == last:
                raise self.fail(f"{where} does not end in `{want}`", op)
            for v in op.operands:
                if not isinstance(v, Value):
                    raise self.fail(f"operand {v!r} is not a Value", op)
                if v.id not in visible:
                    if v.id in self.anywhere:
                        msg = (f"operand %{v.id} is not visible here (defined later, or "
                               "inside a nested region)")
                    else:
                        msg = f"operand %{v.id} is never defined"
                    raise self.fail(msg, op)
            rule = OP_RULES.get(op.name)
            if rule is None:
                raise self.fail(f"unknown op `{op.name}`", op)
            problem = rule(op)
            if problem:
                raise self.fail(problem, op)
            for sub in op.regions:
                self.region(sub, visible, op)
            for k, res in enumerate(op.results):
                self.define(res, f"result {k + 1} of `{op.name}`", op)
                visible.add(res.id)


# --- per-op rules: each returns a problem description, or "" ---------------------------------

Rule = Callable[[Op], str]


def _shape(op: Op, operands: int | None = None, results: int | None = None,
           regions: int = 0, min_operands: int = 0) -> str:
    if operands is not None and len(op.operands) != operands:
        return f"has {len(op.operands)} operands, expected {operands}"
    if len(op.operands) < min_operands:
        return f"has {len(op.operands)} operands, expected at least {min_operands}"
    if results is not None and len(op.results) != results:
        return f"has {len(op.results)} results, expected {results}"
    if len(op.regions) != regions:
        return f"has {len(op.regions)} regions, expected {regions}"
    return ""


def _yields(r: Region, n: int, which: str) -> str:
    """Does region r end in a yield of n values? ("" if it does or has no yield: the
    region check reports a missing terminator itself.)"""
    if not r.ops or r.ops[-1].name != "yield":
        return ""
    got = len(r.ops[-1].operands)
    return "" if got == n else f"{which} yields {got} values, expected {n}"


def _nargs(r: Region, n: int, which: str) -> str:
    return "" if len(r.args) == n else f"{which} has {len(r.args)} arguments, expected {n}"


def _attr(op: Op, key: str, typ: type | tuple[type, ...], what: str) -> str:
    if key not in op.attrs:
        return f"missing attribute `{key}`"
    if not isinstance(op.attrs[key], typ):
        return f"attribute `{key}` must be {what}, got {op.attrs[key]!r}"
    return ""


def _call_args(op: Op, first: int) -> str:
    """kw/splat of a call whose argument operands start at `first`."""
    kw = op.attrs.get("kw") or ()
    splat = op.attrs.get("splat") or ()
    if not isinstance(kw, tuple) or not all(isinstance(k, str) for k in kw):
        return f"attribute `kw` must be a tuple of names, got {kw!r}"
    nargs = len(op.operands) - first
    if len(kw) > nargs:
        return f"{len(kw)} keyword names for {nargs} argument operands"
    npos = len(op.operands) - len(kw)
    if not isinstance(splat, tuple):
        return f"attribute `splat` must be a tuple of indices, got {splat!r}"
    for i in splat:
        if not isinstance(i, int) or isinstance(i, bool) or not first <= i < npos:
            return f"splat index {i!r} is not a positional argument operand"
    return ""


def _first(*problems: str) -> str:
    return next((p for p in problems if p), "")


def _const(op: Op) -> str:
    return _shape(op, 0, 1) or ("" if "value" in op.attrs else "missing attribute `value`")


def _global(op: Op) -> str:
    return _shape(op, 0, 1) or _attr(op, "name", str, "a string")


def _setglobal(op: Op) -> str:
    return _shape(op, 1, 0) or _attr(op, "name", str, "a string")


def _call(nres: int) -> Rule:
    def rule(op: Op) -> str:
        return _first(_shape(op, results=nres), _attr(op, "fn", str, "a string"),
                      _call_args(op, 0))

    return rule


def _callv(nres: int) -> Rule:
    def rule(op: Op) -> str:
        return _first(_shape(op, results=nres, min_operands=1), _call_args(op, 1))

    return rule


def _closure(op: Op) -> str:
    problem = _shape(op, results=1) or _attr(op, "func", Function, "a Function")
    if problem:
        return problem
    f: Function = op.attrs["func"]
    if f.ncaptures != len(op.operands):
        return f"@{f.name} has {f.ncaptures} captures but the closure gives {len(op.operands)}"
    return ""


def _method(op: Op) -> str:
    problem = _shape(op, results=1) or _attr(op, "func", Function, "a Function")
    if problem:
        return problem
    f: Function = op.attrs["func"]
    npos = len(f.params) - f.nkw - f.ncaptures
    if len(op.operands) != npos:
        return (f"{len(op.operands)} parameter types for the {npos} positional "
                f"parameters of @{f.name}")
    return ""


def _struct(op: Op) -> str:
    problem = _shape(op, results=1, min_operands=1) or _attr(op, "fields", tuple, "a tuple")
    if problem:
        return problem
    nf = len(op.attrs["fields"])
    if len(op.operands) != nf + 1:
        return f"{len(op.operands)} operands for a supertype and {nf} field types"
    return ""


def _if(op: Op) -> str:
    problem = _shape(op, operands=1, regions=2)
    if problem:
        return problem
    n = len(op.results)
    then, other = op.regions
    return _first(_nargs(then, 0, "the then region"), _nargs(other, 0, "the else region"),
                  _yields(then, n, "the then region"), _yields(other, n, "the else region"))


def _tape(op: Op) -> int:
    t = op.attrs.get("tape")  # true: one tape; an int k: k tapes (nested AD through loops)
    return int(t) if t else 0


def _results_problem(op: Op, want: int) -> str:
    extra = "one per carried value" + (", plus the tape" if _tape(op) else "")
    return f"has {len(op.results)} results, expected {want} ({extra})"


def _for(op: Op) -> str:
    problem = _shape(op, regions=1, min_operands=1)
    if problem:
        return problem
    ncarried = len(op.operands) - 1
    want = ncarried + _tape(op)
    if len(op.results) != want:
        return _results_problem(op, want)
    body = op.regions[0]
    return _first(_nargs(body, 1 + ncarried, "the body"), _yields(body, want, "the body"))


def _while(op: Op) -> str:
    problem = _shape(op, regions=2)
    if problem:
        return problem
    n = len(op.operands)
    want = n + _tape(op)
    if len(op.results) != want:
        return _results_problem(op, want)
    cond, body = op.regions
    return _first(_nargs(cond, n, "the condition"), _nargs(body, n, "the body"),
                  _yields(cond, 1, "the condition"), _yields(body, want, "the body"))


def _default(op: Op) -> str:
    problem = _shape(op, operands=1, results=1, regions=1)
    if problem:
        return problem
    r = op.regions[0]
    return _first(_nargs(r, 0, "the default region"), _yields(r, 1, "the default region"))


def _yield(op: Op) -> str:
    return _shape(op, results=0)


def _return(op: Op) -> str:
    return _shape(op, operands=1, results=0)


OP_RULES: dict[str, Rule] = {
    "const": _const,
    "global": _global,
    "setglobal": _setglobal,
    "call": _call(1),
    "pcall": _call(2),
    "callv": _callv(1),
    "pcallv": _callv(2),
    "closure": _closure,
    "method": _method,
    "struct": _struct,
    "if": _if,
    "for": _for,
    "while": _while,
    "default": _default,
    "yield": _yield,
    "return": _return,
}
"""Op name -> rule returning a description of what is wrong with an op ("" if nothing).
Operand visibility and terminators are checked for every op; a new op kind registers its
arity rule here."""
