"""Zyla's SSA IR with structured control flow.

A `Function` has a body `Region`; a region is one block with arguments (no phi nodes)
and a list of `Op`s ending in a terminator (`yield` inside nested regions, `return` at
function level). Every SSA `Value` is defined once, by a region argument or an op result.

The op set is small and structural; computation is a `call` of a function, which may be
a built-in primitive (see lang.core.primitives) or a user generic function:

    const                 attrs value                 a literal
    global                attrs name                  read a global (or built-in) binding
    setglobal             attrs name; [v]             write a global binding
    call                  attrs fn, kw; [args...]     call the function named fn
    callv                 attrs kw; [f, args...]      call a function value
    closure               attrs func; [captures...]   make a closure of a lifted function
    if                    [cond] regions then, else   results = what the branches yield
    for                   [iter, inits...] region     body args (x, carried...), yields carried
    while                 [inits...] regions cond, body  cond yields a Bool, body the carried
    default               [arg] region                arg, or the region's value if arg is unset
    yield / return        [values...]                 terminators

`attrs["kw"]` on calls is the tuple of keyword names for the trailing operands, and
`attrs["splat"]` the indices of positional operands that are splatted (`f(xs...)`).
Values of the IR text form are `%N`; the printer and `lang.core.irparse` round-trip it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from grammar.ast import NOSPAN, Span
from lang.core.show import jl_show
from lang.core.values import Atomic, TypeVar, type_name


class Value:
    """An SSA value. `hint` is the source variable name, kept for printing only;
    `type` is filled in by inference (a lang.core.values.JType or an abstract array type)."""

    __slots__ = ("id", "hint", "type")

    def __init__(self, id: int, hint: str = "") -> None:
        self.id = id
        self.hint = hint
        self.type: Any = None

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass(eq=False)
class Op:
    name: str
    operands: list[Value]
    results: list[Value] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    span: Span = NOSPAN

    @property
    def result(self) -> Value:
        return self.results[0]


@dataclass(eq=False)
class Region:
    args: list[Value]
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op:
        return self.ops[-1]


TERMINATORS = ("yield", "return")

#: passes run on every lowered body (`Lowerer.lower_method`/`lower_toplevel`), in order: a
#: higher floor registers its IR-to-IR rewrites here (backend/nests.py)
IR_PASSES: list[Callable[[Function], None]] = []


@dataclass(eq=False)
class Function(Atomic):
    """A lowered method body or lifted closure body.

    `params` are the names of the body's arguments; `nkw` trailing ones are keyword
    parameters; `vararg` says the last positional one collects a tuple; `ncaptures`
    leading ones are a closure's captured values."""

    name: str
    body: Region
    params: list[str]
    nkw: int = 0
    vararg: bool = False
    kwvararg: bool = False  # the last keyword parameter collects the others (`kw...`)
    ncaptures: int = 0
    span: Span = NOSPAN
    file: str = "<input>"
    counter: int = 0  # next free value id
    self_arg: bool = False  # first positional parameter is a callable-struct receiver
    derived: bool = False  # made by a transform (AD's forward/adjoint/jvp), not lowered source

    # run-time state, not part of the IR (dropped when pickled or copied): the host
    # interpreter's translated code and run count (lang.core.hostcode); the tiering
    # policy's activations of this body on the host, whether one called it again, and
    # how many more calls of it may run on the host without asking the policy
    host_code: ClassVar[Any] = None
    host_runs: ClassVar[int] = 0
    host_active: ClassVar[int] = 0
    recursed: ClassVar[bool] = False
    host_skip: ClassVar[int] = 0
    host_specs: ClassVar[Any] = None  # (interpreter, its specialisations by argument types)
    closure_types: ClassVar[Any] = None  # Julia types of closures of this body, by captures

    def __getattr__(self, name: str) -> Any:
        # (only for attributes not found: a library function's body kept pickled until
        # first read, `lang.core.frontcache`; `_lazy_body` is (loader, its argument))
        if name == "body":
            lazy = self.__dict__.pop("_lazy_body", None)
            if lazy is not None:
                body = self.body = lazy[0](lazy[1])
                return body
        raise AttributeError(name)

    def __getstate__(self) -> dict[str, Any]:
        if "_lazy_body" in self.__dict__:
            self.body  # noqa: B018 (a copy gets the body itself)
        state = dict(self.__dict__)
        for k in _RUN_STATE:
            state.pop(k, None)
        return state

    def new_value(self, hint: str = "") -> Value:
        v = Value(self.counter, hint)
        self.counter += 1
        return v


_RUN_STATE = ("host_code", "host_runs", "host_active", "recursed", "host_skip",
              "host_specs", "closure_types")


def walk_ops(region: Region) -> Iterator[Op]:
    """All ops of a region and its nested regions, in program order."""
    for op in region.ops:
        yield op
        for r in op.regions:
            yield from walk_ops(r)


def defined_in(region: Region) -> set[int]:
    """Ids of the values a region defines (its arguments and its ops' results, nested)."""
    out = {a.id for a in region.args}
    for op in region.ops:
        out.update(r.id for r in op.results)
        for r in op.regions:
            out |= defined_in(r)
    return out


def free_values(op: Op) -> set[int]:
    """Ids of the values an op's regions read that they do not define."""
    used: set[int] = set()
    inner: set[int] = set()
    for r in op.regions:
        inner |= defined_in(r)
        _uses(r, used)
    return used - inner


def observed_values(fn: Function) -> set[int]:
    """Ids of the values fn's code reads: the operands of its ops other than `yield`, and
    what an `if` yields where that `if`'s result is read (a loop's yields are all read:
    they are carried). An `if` whose result nobody reads may have values of different
    types on its paths (the value of a block that ends in an assignment)."""
    seen: set[int] = set()
    if_yields: list[tuple[Op, Op]] = []

    def visit(region: Region, parent: Op | None) -> None:
        for op in region.ops:
            if op.name == "yield" and parent is not None and parent.name == "if":
                if_yields.append((op, parent))
                seen.update(v.id for v in op.operands[len(parent.results):])
            else:
                seen.update(v.id for v in op.operands)
            for r in op.regions:
                visit(r, op)

    visit(fn.body, None)
    changed = True
    while changed:
        changed = False
        for y, parent in if_yields:
            for v, r in zip(y.operands, parent.results, strict=False):
                if r.id in seen and v.id not in seen:
                    seen.add(v.id)
                    changed = True
    return seen


def _uses(region: Region, out: set[int]) -> None:
    for op in region.ops:
        out.update(v.id for v in op.operands)
        for r in op.regions:
            _uses(r, out)


# --- printer ----------------------------------------------------------------------------


_PLAIN_NAME = re.compile(r'[^\s()\[\]{},"]+')


def format_name(name: str) -> str:
    """A function or parameter name as the IR text writes it: bare when it cannot be
    confused with the surrounding syntax (`f`, `#3`, `f#adj1`, `+`), else quoted."""
    if _PLAIN_NAME.fullmatch(name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def format_attr(v: Any) -> str:
    """Attributes print as Python-literal-like text that lang.core.irparse reads back."""
    if isinstance(v, Function):
        return "@" + format_name(v.name)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "nothing"
    if isinstance(v, tuple):
        return "(" + ", ".join(format_attr(x) for x in v) + ("," if len(v) == 1 else "") + ")"

    if isinstance(v, TypeVar):  # not just `T`, which would read back as a type named T
        ub = "" if v.ub is None else ", " + format_attr(v.ub)
        return f"{type(v).__name__}(:{v.name}{ub})"  # TypeVar or SelfRef

    return jl_show(v)


def _vals(vs: list[Value], types: bool) -> str:
    if types:
        return ", ".join(f"{v}::{type_name(v.type)}" if v.type is not None else repr(v) for v in vs)
    return ", ".join(repr(v) for v in vs)


def print_region(region: Region, indent: int, out: list[str], types: bool = False) -> None:
    pad = "  " * indent
    if region.args:
        out.append(f"{pad[:-2] if indent else ''}^({_vals(region.args, types)}):")
    for op in region.ops:
        out.append(pad + format_op(op, indent, types))


_PRIMARY = {"const": "value", "call": "fn", "pcall": "fn", "global": "name", "setglobal": "name",
            "closure": "func", "method": "func"}


def format_op(op: Op, indent: int = 1, types: bool = False) -> str:
    """One op: `RESULTS = NAME PRIMARY(OPERANDS) [ATTRS] REGIONS  # line N`."""
    lhs = f"{_vals(op.results, types)} = " if op.results else ""
    primary = _PRIMARY.get(op.name)
    text = f"{lhs}{op.name}"
    if primary is not None and primary in op.attrs:
        text += " " + format_attr(op.attrs[primary])
    if op.operands or op.name not in ("const", "global"):
        text += f"({', '.join(repr(v) for v in op.operands)})"
    rest = [
        f"{k}={format_attr(v)}"
        for k, v in op.attrs.items()
        if k != primary and not (k in ("kw", "splat") and not v)
    ]
    if rest:
        text += " [" + ", ".join(rest) + "]"
    if op.regions:
        parts = []
        for r in op.regions:
            sub: list[str] = []
            print_region(r, indent + 1, sub, types)
            parts.append("{\n" + "\n".join(sub) + "\n" + "  " * indent + "}")
        text += " " + " ".join(parts)
    if op.span.line:
        text += f"  # line {op.span.line}"
    return text


def format_function(fn: Function, types: bool = False) -> str:
    """The IR text of a function (see module docstring for the op set)."""
    params = ", ".join(
        f"{v}::{__import__('lang.core.values', fromlist=['type_name']).type_name(v.type)}"
        if types and v.type is not None
        else repr(v)
        for v in fn.body.args
    )
    head = f"func @{format_name(fn.name)}({params})"
    meta = []
    if fn.ncaptures:
        meta.append(f"captures={fn.ncaptures}")
    if fn.nkw:
        meta.append(f"kw={fn.nkw}")
    if fn.vararg:
        meta.append("vararg")
    if fn.kwvararg:
        meta.append("kwvararg")
    if fn.self_arg:
        meta.append("self")
    names = ", ".join(format_name(p) for p in fn.params)
    head += f" [{names}]" + (f" {' '.join(meta)}" if meta else "")
    out: list[str] = [head + " {"]
    for op in fn.body.ops:
        out.append("  " + format_op(op, 1, types))
    out.append("}")
    return "\n".join(out)


def referenced_functions(fn: Function) -> list[Function]:
    """Functions named by closure/method ops of fn, transitively, in first-use order."""
    seen: dict[int, Function] = {}
    todo = [fn]
    while todo:
        f = todo.pop(0)
        for op in walk_ops(f.body):
            g = op.attrs.get("func")
            if isinstance(g, Function) and id(g) not in seen and g is not fn:
                seen[id(g)] = g
                todo.append(g)
    return list(seen.values())


def format_module(fn: Function, types: bool = False) -> str:
    """A function and every function it references (lambdas, adjoints), in one text."""
    return "\n\n".join(format_function(f, types) for f in [fn] + referenced_functions(fn))
