"""Zyla's parser: Julia source text → `grammar.ast` nodes.

`parse(text, filename)` returns a `Program`; every syntax error is a `ZylaError` of kind
"ParseError" (a `ZylaParseError`) with a location and a message naming what went wrong:
the unexpected token, or the block keyword or bracket left open and where it opened.
`parse_incomplete(text)` tells the REPL whether its input is an unfinished prefix.

The grammar (`grammar/julia.lark`) is LALR(1) and built by Lark; the lexer (`grammar.lexer`)
feeds it marker tokens for Julia's context-dependent syntax. `parse` runs Lark's tables
with `_Driver`, a tight LALR loop that also answers the lexer's "can you accept this token
now?" questions; its reduction callbacks are made from Lark's rules by `_rule_callback`
(same children, same `_AstBuilder` methods, without Lark's wrapper objects), and chains of
length-one reductions are memoized (`_Tables.chain`). `get_parser().parse(...)` (Lark's
own loop and callbacks, the lexer reading Lark's `ParserState`) gives the same result more
slowly and is kept as the reference. The AST is built while parsing, by the methods of
`_AstBuilder` (no parse tree is built); each node's span is the line and column of its
first token. Throughput is measured by `bench/parser_input.py`.

Julia's method definitions are recognised only once their `=` or `end` is seen, so the
builder keeps, for the duration of one parse, the raw argument list of every call (a
call may turn out to be a signature) and the constructs that are only legal inside a
signature (`::T` without a name, typed keyword arguments, struct field defaults); a
parse ends with an error if one of those was not used by a definition. A `where` outside
a signature is a type value (`Tuple{Vararg{S}} where S <: Integer`, `A{S} = ...`).

Representation choices beyond `grammar.ast`'s docstrings:

- A short method `f(x) = e` has `body=Block([e])`; an arrow lambda's body is `e` itself.
- `-2`, `+2.5` (a sign applied directly to a number literal) are folded into literals;
  `-2^2` stays `-(2^2)`.
- `T[a, b]` is a typed `VectorLit` when `T` is a `Curly` or a name in `TYPE_NAMES`, and an
  `Index` otherwise (the lowering may still treat an `Index` of a type as a literal);
  `T[a b; c d]` is always a typed `MatrixLit`, and the typed comprehension
  `T[f(x) for x in xs]` is `Call(collect, [T, Comprehension(generator=True)])`.
- `Base.@kwdef struct S a::Int = 1 ... end` is `MacroCall("kwdef", [Kwarg("a", 1), ...,
  StructDef])`: the field defaults as `Kwarg`s, then the struct (its fields keep their
  types only). Field defaults outside `@kwdef` are a ParseError.
- `x in xs` and `x isa T` alone are `Call(Ident("in"/"isa"), ...)`; inside a longer
  comparison chain they stay `Comparison` ops.
- Operators used as values (`map(+, xs)`) are `Ident("+")`.
- A type parameter given by its bound, `Vector{<:Real}`, is `Call(Ident("<:"), [Real])`
  among the `Curly`'s params; `(a; b)` is a `Block`; a struct body is parsed as a block
  whose method definitions become `StructDef.constructors` and whose other statements
  must be field declarations.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, UnexpectedToken
from lark.lexer import LexerState
from lark.parsers.lalr_analysis import Shift

from grammar import ast as A
from grammar.ast import Span
from grammar.errors import SourceFile
from grammar.lexer import KEYWORDS, JuliaLexer, LexInput, ZylaParseError
from grammar.tables import load_parser

__all__ = ["ZylaParseError", "parse", "parse_incomplete", "parse_expr"]

Children = list[Any]

#: Names that make `Name[...]` a typed array literal rather than indexing.
TYPE_NAMES = frozenset(
    """Any Bool Char String Symbol Nothing Function Number Real Integer Signed Unsigned
    AbstractFloat Float16 Float32 Float64 Int Int8 Int16 Int32 Int64 Int128 UInt UInt8
    UInt16 UInt32 UInt64 UInt128 BigInt BigFloat Complex ComplexF16 ComplexF32 ComplexF64
    Rational Vector Matrix Array AbstractArray AbstractVector AbstractMatrix Tuple
    NamedTuple Dict Pair""".split()
)
_NUMERIC_KINDS = frozenset({"Int64", "Int128", "Float64", "Float32"})
_INT64_MAX, _INT128_MAX = (1 << 63) - 1, (1 << 127) - 1
_BASES = {"0x": 16, "0b": 2, "0o": 8}


def _unsigned_kind(text: str, tok: Any) -> str:
    """The type of a hex, binary or octal literal: the narrowest unsigned type that holds
    it, counting leading zeros as digits (Julia: `0x1` is a UInt8, `0x001` a UInt16)."""
    base, digits = _BASES[text[:2]], text[2:]
    widest = max(int(digits, base), base ** (len(digits) - 1))
    for bits in (8, 16, 32, 64, 128):
        if widest < 1 << bits:
            return f"UInt{bits}"
    return "BigInt"  # Julia: a literal wider than 128 bits is a BigInt
#: Names that are literals (`nothing` is a constant in Julia; Zyla treats it as one).
_NAMED_LITERALS: dict[str, tuple[object, str]] = {
    "true": (True, "Bool"),
    "false": (False, "Bool"),
    "nothing": (None, "Nothing"),
}


# ---- intermediate values (never left in the AST) ----------------------------------------


@dataclass
class _KwItem:
    """`name = value` inside an argument list or parentheses."""

    target: A.Node
    value: A.Node
    span: Span


@dataclass
class _AnonType(A.Node):
    """`::T` in an argument list: a parameter without a name (signatures only)."""

    type: A.Node


@dataclass
class _RawArgs:
    """A call's arguments as written: before the `;` and after it."""

    positional: list[Any]
    keyword: list[Any]


@dataclass
class _Brackets:
    """The inside of `[...]`: a comma list, rows of a matrix, or a comprehension."""

    kind: str  # "list" | "rows" | "comp" | "cat2" (`[a;;b]`: items are the parts)
    items: list[Any]
    comp: A.Comprehension | None = None


@dataclass
class _CompTail:
    iterators: list[tuple[A.Node, A.Node]]
    cond: A.Node | None
    # the `for` clauses before the last (`[(a, b) for a in 1:3 for b in 1:a]`), outermost
    # first: each iterates the rest once per element
    outer: list[list[tuple[A.Node, A.Node]]] = field(default_factory=list)


@dataclass
class _TypeHead:
    name: str
    params: list[A.Node]
    supertype: A.Node | None


@dataclass
class _Field:
    """A field declaration `name[::type][ = default]` in a struct body."""

    name: str
    type: A.Node | None
    default: A.Node | None
    span: Span


@dataclass
class _Session:
    """Per-parse bookkeeping for method signatures (see the module docstring). Entries
    are keyed by node identity and hold the node, which keeps it alive (so its id cannot
    be reused) until the parse ends."""

    source: SourceFile
    calls: dict[int, tuple[A.Call, _RawArgs]] = field(default_factory=dict)
    pending: dict[int, tuple[A.Node, Span, str]] = field(default_factory=dict)
    grouped: dict[int, A.Node] = field(default_factory=dict)
    defaults: dict[int, tuple[A.Node, list[A.Kwarg]]] = field(default_factory=dict)

    def note_call(self, call: A.Call, raw: _RawArgs) -> None:
        """Remember a call's arguments as written, in case it is a method signature."""
        self.calls[id(call)] = (call, raw)

    def is_call(self, node: A.Node) -> bool:
        return id(node) in self.calls

    def take_call(self, call: A.Call) -> _RawArgs | None:
        entry = self.calls.pop(id(call), None)
        return None if entry is None else entry[1]

    def require_consumer(self, node: A.Node, span: Span, message: str) -> None:
        """`node` is only valid where an enclosing construct uses it (a method signature,
        `@kwdef`): the parse fails with `message` unless `consume(node)` is called."""
        self.pending[id(node)] = (node, span, message)

    def consume(self, node: A.Node) -> None:
        self.pending.pop(id(node), None)

    def note_grouped(self, node: A.Node) -> None:
        """`node` was written in parentheses: `(x)`."""
        self.grouped[id(node)] = node

    def was_grouped(self, node: A.Node) -> bool:
        return id(node) in self.grouped

    def note_defaults(self, struct: A.Node, defaults: list[A.Kwarg]) -> None:
        self.defaults[id(struct)] = (struct, defaults)

    def take_defaults(self, struct: A.Node) -> list[A.Kwarg]:
        entry = self.defaults.pop(id(struct), None)
        return [] if entry is None else entry[1]

    def check(self) -> None:
        """Raise for the first signature-only construct that no definition used."""
        if self.pending:
            _, span, message = min(self.pending.values(),
                                   key=lambda p: (p[1].line, p[1].col))
            raise ZylaParseError(message, span, self.source)


_SESSION: ContextVar[_Session] = ContextVar("zyla_parse_session")


def _session() -> _Session:
    return _SESSION.get()


def _span(x: Any) -> Span:
    """The span of a token, node or intermediate value."""
    if isinstance(x, Token):
        return Span(x.line, x.column)
    return x.span


def _nodes(children: Children) -> list[Any]:
    """The children that are not tokens (separators and keywords dropped)."""
    return [c for c in children if not isinstance(c, Token)]


def _error(message: str, at: Any, hint: str | None = None) -> ZylaParseError:
    return ZylaParseError(message, _span(at), _session().source, hint=hint)


def _dotted_name(node: A.Node) -> str | None:
    """`a.b.c` as "a.b.c", or None if `node` is not a dotted name."""
    if isinstance(node, A.Ident):
        return node.name
    if isinstance(node, A.Dot):
        base = _dotted_name(node.obj)
        return None if base is None else f"{base}.{node.name}"
    return None


def _op_call(op: Token, args: list[A.Node]) -> A.Node:
    """`a op b` / `op a`: a Call, or a Broadcast for a dotted operator (`.+`)."""
    name = str(op)
    span = args[0].span if len(args) > 1 else _span(op)
    if len(name) > 1 and name[0] == ".":
        return A.Broadcast(A.Ident(name[1:], span=_span(op)), args, span=span)
    return A.Call(A.Ident(name, span=_span(op)), args, span=span)


# ---- the AST builder ------------------------------------------------------------------


class _AstBuilder:
    """One method per grammar rule (or alias), called by Lark with the rule's children."""

    # -- programs, blocks, statements ---------------------------------------------------

    def program(self, c: Children) -> list[A.Node]:
        return c

    def interp(self, c: Children) -> A.Node:
        return c[0]

    def block(self, c: Children) -> A.Block:
        return A.Block(c, span=c[0].span if c else A.NOSPAN)

    def return_stmt(self, c: Children) -> A.Return:
        return A.Return(c[1] if len(c) > 1 else None, span=_span(c[0]))

    def const_stmt(self, c: Children) -> A.Const:
        return A.Const(c[1], span=_span(c[0]))

    def global_stmt(self, c: Children) -> A.Global:
        return A.Global(_names_of(c[1]), span=_span(c[0]))

    def local_stmt(self, c: Children) -> A.Local:
        return A.Local(_names_of(c[1]), span=_span(c[0]))

    def assign(self, c: Children) -> A.Node:
        return _assign(c[0], c[2])

    def opassign(self, c: Children) -> A.OpAssign:
        if not (str(c[1]).startswith(".") and _is_call_destination(c[0])):
            _check_target(c[0], update=True)
        return A.OpAssign(c[0], str(c[1])[:-1], c[2], span=c[0].span)

    def dotassign(self, c: Children) -> A.BroadcastAssign:
        if not _is_call_destination(c[0]):
            _check_target(c[0], update=True)
        return A.BroadcastAssign(c[0], c[2], span=c[0].span)

    def bare_tuple(self, c: Children) -> A.TupleLit:
        items = _nodes(c)
        return A.TupleLit(items, span=items[0].span)

    # -- operators ----------------------------------------------------------------------

    def lambda_(self, c: Children) -> A.Lambda:
        lhs = c[0]
        if isinstance(lhs, A.Call) and isinstance(lhs.func, A.Ident) and lhs.func.name == "=>" \
                and len(lhs.args) == 2:  # `p => x -> e` is `p => (x -> e)`, as in Julia
            return A.Call(lhs.func, [lhs.args[0], self.lambda_([lhs.args[1], *c[1:]])],
                          span=lhs.span)
        if isinstance(lhs, A.Block) and len(lhs.stmts) >= 2:
            # `(a; b = 1) -> ...`: positional parameters, then keyword ones
            kws = [_param(x) for x in lhs.stmts[1:]]
            params = _lambda_params(lhs.stmts[0])
            return A.Lambda(params, _destructure(params, c[2]), kws, span=lhs.span)
        if isinstance(lhs, A.NamedTupleLit):  # `(; b = 1) -> ...`: keywords only
            kws = [_param(A.Assign(A.Ident(k, span=v.span), v, span=v.span))
                   for k, v in zip(lhs.names, lhs.values, strict=True)]
            return A.Lambda([], c[2], kws, span=lhs.span)
        params = _lambda_params(lhs)
        return A.Lambda(params, _destructure(params, c[2]), span=lhs.span)

    def where_(self, c: Children) -> A.Where:
        params = c[2] if isinstance(c[2], list) else [c[2]]
        return A.Where(c[0], params, span=c[0].span)

    def where_bound(self, c: Children) -> A.Call:
        """`T <: B` after `where`: `Call(Ident("<:"), [T, B])`."""
        name = A.Ident(str(c[0]), span=_span(c[0]))
        return A.Call(A.Ident("<:", span=_span(c[1])), [name, c[2]], span=name.span)

    def where_braces(self, c: Children) -> list[A.Node]:
        return c[1]

    def curly_items(self, c: Children) -> list[A.Node]:
        return _nodes(c)

    def bounded_param(self, c: Children) -> A.Call:
        """`<:Real` as a type parameter (`Vector{<:Real}`): `Call(Ident("<:"), [Real])`."""
        return A.Call(A.Ident("<:", span=_span(c[0])), [c[1]], span=_span(c[0]))

    def pair(self, c: Children) -> A.Node:
        return _op_call(c[1], [c[0], c[2]])

    def ternary(self, c: Children) -> A.Ternary:
        return A.Ternary(c[0], c[2], c[4], span=c[0].span)

    def or_(self, c: Children) -> A.Or:
        return A.Or(c[0], c[2], span=c[0].span)

    def and_(self, c: Children) -> A.And:
        return A.And(c[0], c[2], span=c[0].span)

    def comparison(self, c: Children) -> A.Node:
        operands = c[0::2]
        ops = [str(t) for t in c[1::2]]
        if len(ops) == 1 and ops[0] in ("in", "isa"):
            return A.Call(A.Ident(ops[0], span=_span(c[1])), operands, span=operands[0].span)
        return A.Comparison(operands, ops, span=operands[0].span)

    def binop(self, c: Children) -> A.Node:
        return _op_call(c[1], [c[0], c[2]])

    def range_(self, c: Children) -> A.Call:
        return A.Call(A.Ident(":", span=_span(c[1])), c[0::2], span=c[0].span)

    def unop(self, c: Children) -> A.Node:
        op, x = str(c[0]), c[1]
        if op == "-" and isinstance(x, A.Literal) and x.kind == "BigInt" and x.value == 1 << 127:
            return A.Literal(-x.value, "Int128", span=_span(c[0]))  # typemin(Int128), as Julia
        if op in ("-", "+") and isinstance(x, A.Literal) and x.kind in _NUMERIC_KINDS:
            value = -x.value if op == "-" else x.value
            kind = "Int64" if x.kind == "Int128" and -_INT64_MAX - 1 <= value else x.kind
            return A.Literal(value, kind, span=_span(c[0]))  # -9223372036854775808 is an Int64
        if (isinstance(x, A.TupleLit) and x.items and x.span.line == c[0].line
                and x.span.col == c[0].column + len(op)):
            # `-(a, b...)`: an operator written right before `(` is called, not applied
            return A.Call(A.Ident(op, span=_span(c[0])), list(x.items), span=_span(c[0]))
        return _op_call(c[0], [x])

    def juxt(self, c: Children) -> A.Call:
        return A.Call(A.Ident("*", span=c[2].span), [c[0], c[2]], span=c[0].span)

    def typeassert(self, c: Children) -> A.TypeAssert:
        return A.TypeAssert(c[0], c[2], span=c[0].span)

    # -- postfix forms ------------------------------------------------------------------

    def call(self, c: Children) -> A.Call:
        func, raw = c[0], c[2]
        args, kwargs, problem = _call_parts(raw)
        if len(c) > 4:  # a do-block: its lambda is the first argument
            args.insert(0, c[4])
        node = A.Call(func, args, kwargs, span=func.span)
        session = _session()
        session.note_call(node, raw)
        if problem is not None:
            session.require_consumer(node, *problem)
        return node

    def dotcall(self, c: Children) -> A.Broadcast:
        args, kwargs, problem = _call_parts(c[2])
        if problem is not None:
            raise ZylaParseError(problem[1], problem[0], _session().source)
        return A.Broadcast(c[0], args, kwargs, span=c[0].span)

    def index(self, c: Children) -> A.Node:
        obj, br = c[0], c[2]
        if br.kind == "list":
            if _is_type(obj):
                return A.VectorLit(br.items, obj, span=obj.span)
            return A.Index(obj, br.items, span=obj.span)
        if br.kind == "rows":
            return A.MatrixLit(br.items, obj, span=obj.span)
        if br.kind == "cat2":  # `T[a;;b]` is `Matrix{T}([a;;b])`
            return A.Call(A.Curly(A.Ident("Matrix", span=obj.span), [obj], span=obj.span),
                          [_cat2(br.items, obj.span)], span=obj.span)
        assert br.comp is not None
        br.comp.generator = True  # T[f(x) for x in xs] == collect(T, (f(x) for x in xs))
        return A.Call(A.Ident("collect", span=obj.span), [obj, br.comp], span=obj.span)

    def field(self, c: Children) -> A.Dot:
        return A.Dot(c[0], str(c[2]), span=c[0].span)

    def curly(self, c: Children) -> A.Curly:
        params = c[2] if len(c) > 3 else []
        return A.Curly(c[0], params, span=c[0].span)

    def adjoint(self, c: Children) -> A.Call:
        return A.Call(A.Ident("adjoint", span=_span(c[1])), [c[0]], span=c[0].span)

    # -- atoms --------------------------------------------------------------------------

    def name(self, c: Children) -> A.Node:
        tok = c[0]
        name: str = tok.value
        span = Span(tok.line, tok.column)
        if name in _NAMED_LITERALS:
            value, kind = _NAMED_LITERALS[name]
            return A.Literal(value, kind, span=span)
        return A.Ident(name, span=span)

    def int_lit(self, c: Children) -> A.Literal:
        tok = c[0]
        text: str = tok.value
        if "_" in text:
            text = text.replace("_", "")
        span = Span(tok.line, tok.column)
        if text[:2] in ("0x", "0b", "0o"):
            return A.Literal(int(text, 0), _unsigned_kind(text, tok), span=span)
        value = int(text)
        if value <= _INT64_MAX:
            return A.Literal(value, "Int64", span=span)
        if value <= _INT128_MAX:
            return A.Literal(value, "Int128", span=span)  # Julia: a wider literal is an Int128
        return A.Literal(value, "BigInt", span=span)  # Julia: a wider literal is a BigInt

    def float_lit(self, c: Children) -> A.Literal:
        text = str(c[0]).replace("_", "")
        value = float.fromhex(text) if text[:2] == "0x" else float(text)
        return A.Literal(value, "Float64", span=_span(c[0]))

    def float32_lit(self, c: Children) -> A.Literal:
        text = str(c[0]).replace("_", "").replace("f", "e")
        return A.Literal(float(text), "Float32", span=_span(c[0]))

    def string(self, c: Children) -> A.Node:
        parts = c[0].value
        if isinstance(parts, A.MacroCall):  # a string macro `r"a+"` (grammar.lexer)
            return parts
        span = _span(c[0])
        if all(isinstance(p, str) for p in parts):
            return A.Literal("".join(parts), "String", span=span)
        return A.StringInterp([_named_literal(p) for p in parts], span=span)

    def char(self, c: Children) -> A.Literal:
        return A.Literal(c[0].value, "Char", span=_span(c[0]))

    def symbol(self, c: Children) -> A.Literal:
        return A.Literal(str(c[0]), "Symbol", span=_span(c[0]))

    def endmarker(self, c: Children) -> A.EndMarker:
        return A.EndMarker(first=str(c[0]) == "begin", span=_span(c[0]))

    def colon(self, c: Children) -> A.Colon:
        return A.Colon(span=_span(c[0]))

    def interpolation(self, c: Children) -> A.Interpolation:
        return A.Interpolation(c[1], span=_span(c[0]))

    def break_(self, c: Children) -> A.Break:
        return A.Break(span=_span(c[0]))

    def continue_(self, c: Children) -> A.Continue:
        return A.Continue(span=_span(c[0]))

    # -- arguments ----------------------------------------------------------------------

    def call_args(self, c: Children) -> _RawArgs:
        positional: list[Any] = []
        keyword: list[Any] = []
        after_semicolon = False
        for child in c:
            if isinstance(child, Token):
                after_semicolon = True
            elif after_semicolon:
                keyword = child
            else:
                positional = child
        return _RawArgs(positional, keyword)

    def gen_args(self, c: Children) -> _RawArgs:
        return _RawArgs([_comprehension(c[0], c[1], generator=True)], [])

    def gen_args_last(self, c: Children) -> _RawArgs:
        """`f(a, x for x in xs)`: a generator as the last positional argument."""
        return _RawArgs(c[0] + [_comprehension(c[2], c[3], generator=True)], [])

    def arg_seq(self, c: Children) -> list[Any]:
        return (c[0] + _nodes(c[1:])) if len(c) > 1 and isinstance(c[0], list) else _nodes(c)

    def arg_list(self, c: Children) -> list[Any]:
        return c[0]

    def kw_list(self, c: Children) -> list[Any]:
        return _nodes(c)

    def kw_item(self, c: Children) -> _KwItem:
        return _KwItem(c[0], c[2], c[0].span)

    def splat(self, c: Children) -> A.Splat:
        return A.Splat(c[0], span=c[0].span)

    def anon_typed(self, c: Children) -> _AnonType:
        node = _AnonType(c[1], span=_span(c[0]))
        _session().require_consumer(
            node, node.span, '"::T" without a name is only allowed in a method signature')
        return node

    # -- parentheses --------------------------------------------------------------------

    def empty_tuple(self, c: Children) -> A.TupleLit:
        return A.TupleLit([], span=_span(c[0]))

    def group(self, c: Children) -> Any:
        item = c[1]
        if isinstance(item, _KwItem):
            return _assign(item.target, item.value)
        if isinstance(item, A.Splat):
            return A.TupleLit([item], span=_span(c[0]))
        if isinstance(item, A.Ident):
            _session().note_grouped(item)
        elif isinstance(item, A.Call):
            item.grouped = True
        return item

    def tuple_(self, c: Children) -> A.Node:
        items = _nodes(c)
        span = _span(c[0])
        named = [isinstance(x, _KwItem) for x in items]
        if all(named):
            return A.NamedTupleLit([_field_name(x.target) for x in items],
                                   [x.value for x in items], span=span)
        if any(named):
            raise _error("a tuple cannot mix named and positional elements", c[0])
        for x in items:
            if isinstance(x, (A.OpAssign, A.BroadcastAssign)):
                raise _error("an updating assignment cannot be a tuple element", x)
        return A.TupleLit(items, span=span)

    def semi_tuple(self, c: Children) -> A.NamedTupleLit:
        items = c[2] if len(c) > 3 else []
        names: list[str] = []
        values: list[A.Node] = []
        for x in items:
            if isinstance(x, _KwItem):
                names.append(_field_name(x.target))
                values.append(x.value)
            elif isinstance(x, A.Ident):
                names.append(x.name)
                values.append(x)
            elif isinstance(x, A.Dot):
                names.append(x.name)
                values.append(x)
            else:
                raise _error("expected `name` or `name = value` in a named tuple", x)
        return A.NamedTupleLit(names, values, span=_span(c[0]))

    def paren_block(self, c: Children) -> A.Block:
        """`(a; b)`: the statements run in order, the value is the last one's (a block
        like `begin a; b end`, no new scope)."""
        stmts: list[A.Node] = []
        for x in _nodes(c):
            if isinstance(x, _KwItem):
                x = _assign(x.target, x.value)
            elif isinstance(x, (A.Splat, _AnonType)):
                raise _error("`...` and `::T` are not allowed in a `(a; b)` block", x)
            stmts.append(x)
        return A.Block(stmts, span=_span(c[0]))

    def generator(self, c: Children) -> A.Comprehension:
        node = _comprehension(c[1], c[2], generator=True)
        node.span = _span(c[0])
        return node

    def kw_opassign(self, c: Children) -> A.OpAssign:
        return self.opassign(c)

    def kw_dotassign(self, c: Children) -> A.BroadcastAssign:
        return self.dotassign(c)

    # -- brackets -----------------------------------------------------------------------

    def vector(self, c: Children) -> A.Node:
        br: _Brackets = c[1]
        span = _span(c[0])
        if br.kind == "list":
            return A.VectorLit(br.items, span=span)
        if br.kind == "rows":
            return A.MatrixLit(br.items, span=span)
        if br.kind == "cat2":
            return _cat2(br.items, span)
        assert br.comp is not None
        br.comp.span = span
        return br.comp

    def b_empty(self, c: Children) -> _Brackets:
        return _Brackets("list", [])

    def b_list(self, c: Children) -> _Brackets:
        return _Brackets("list", _nodes(c))

    def b_comp(self, c: Children) -> _Brackets:
        return _Brackets("comp", [], _comprehension(c[0], c[1], generator=False))

    def b_rows(self, c: Children) -> _Brackets:
        rows = [x if isinstance(x, list) else [x] for x in _nodes(c)]
        return _Brackets("rows", rows)

    def b_cat2(self, c: Children) -> _Brackets:
        return _Brackets("cat2", _nodes(c))

    def cat_part(self, c: Children) -> A.Node:
        """A part of `[a;b;;c;d]`: a lone element, or what `[...]` of the part would be."""
        nodes = _nodes(c)
        if len(nodes) == 1 and not isinstance(nodes[0], list):
            return nodes[0]
        rows = [x if isinstance(x, list) else [x] for x in nodes]
        return A.MatrixLit(rows, span=_span(rows[0][0]))

    def row(self, c: Children) -> list[A.Node]:
        return _nodes(c)

    def hrow(self, c: Children) -> list[A.Node]:
        return _nodes(c)

    def comp_tail(self, c: Children) -> _CompTail:
        clauses: list[list[tuple[A.Node, A.Node]]] = []
        cond = None
        for i, x in enumerate(c):
            if isinstance(x, list):
                clauses.append(x)
            elif isinstance(x, Token) and x.type == "COMPIF":
                cond = c[i + 1]
                break
        return _CompTail(clauses[-1], cond, clauses[:-1])

    def comp_for(self, c: Children) -> list[tuple[A.Node, A.Node]]:
        return [x for x in c if isinstance(x, tuple)]

    def iter(self, c: Children) -> tuple[A.Node, A.Node]:
        return (c[0], c[2])

    def outer_iter(self, c: Children) -> tuple[A.Node, A.Node]:
        """`for outer i = xs`: a hidden loop variable (A.OUTER_PREFIX + "i") whose value
        each iteration assigns to the enclosing scope's i."""
        return (A.Ident(A.OUTER_PREFIX + str(c[1]), span=_span(c[1])), c[3])

    def target_tuple(self, c: Children) -> A.TupleLit:
        return A.TupleLit(_nodes(c), span=_span(c[0]))

    # -- macros -------------------------------------------------------------------------

    def macro_space(self, c: Children) -> A.MacroCall:
        name = _macro_name(c[0])
        args = _nodes(c)
        if name in ("kwdef", "with_kw") and len(args) == 1 and isinstance(args[0], A.StructDef):
            # `Base.@kwdef struct S a::Int = 1 end` → MacroCall("kwdef", [Kwarg("a", 1), S])
            # (Parameters.@with_kw likewise)
            struct = args[0]
            _consume(struct)
            args = [*_session().take_defaults(struct), struct]
        return A.MacroCall(name, args, span=_span(c[0]))

    def macro_paren(self, c: Children) -> A.MacroCall:
        args, kwargs, problem = _call_parts(c[2])
        if problem is not None:
            raise ZylaParseError(problem[1], problem[0], _session().source)
        for kw in kwargs:
            if kw.name is None:
                args.append(kw.value)
            else:
                args.append(A.Assign(A.Ident(kw.name, span=kw.span), kw.value, span=kw.span))
        return A.MacroCall(_macro_name(c[0]), args, span=_span(c[0]))

    # -- blocks -------------------------------------------------------------------------

    def begin_e(self, c: Children) -> A.Block:
        block: A.Block = c[1]
        block.span = _span(c[0])
        return block

    def let_e(self, c: Children) -> A.Let:
        nodes = _nodes(c)
        body = _body(nodes[-1], c[0])
        bindings = nodes[:-1]
        for b in bindings:
            if not isinstance(b, (A.Ident, A.Assign, A.FunctionDef)):
                raise _error("a let binding must be a name or an assignment", b)
        return A.Let(bindings, body, span=_span(c[0]))

    def if_e(self, c: Children) -> A.If:
        # IF cond block (ELSEIF cond block)* [ELSE block] END
        clauses: list[tuple[Token, A.Node, A.Block]] = []
        other: A.Block | None = None
        i = 0
        while i < len(c):
            tok = c[i]
            if tok.type in ("IF", "ELSEIF"):
                clauses.append((tok, c[i + 1], _body(c[i + 2], tok)))
                i += 3
            elif tok.type == "ELSE":
                other = _body(c[i + 1], tok)
                i += 2
            else:  # END
                i += 1
        result: A.Node | None = other
        for tok, cond, then in reversed(clauses):
            result = A.If(cond, then, result, span=_span(tok))
        assert isinstance(result, A.If)
        return result

    def for_e(self, c: Children) -> A.For:
        iterators = [x for x in c if isinstance(x, tuple)]
        return A.For(iterators, _body(c[-2], c[0]), span=_span(c[0]))

    def while_e(self, c: Children) -> A.While:
        return A.While(c[1], _body(c[2], c[0]), span=_span(c[0]))

    def try_e(self, c: Children) -> A.Try:
        body = _body(c[1], c[0])
        var: str | None = None
        catch_body = finally_body = None
        i = 2
        while i < len(c) - 1:
            tok = c[i]
            if tok.type == "CATCH":
                if isinstance(c[i + 1], Token) and c[i + 1].type == "CATCHVAR":
                    var = str(c[i + 1])
                    i += 1
                catch_body = _body(c[i + 1], tok)
            else:  # FINALLY
                finally_body = _body(c[i + 1], tok)
            i += 2
        return A.Try(body, var, catch_body, finally_body, span=_span(c[0]))

    def function_e(self, c: Children) -> A.Node:
        node = _long_function(c[1], _body(c[2], c[0]), _span(c[0]))
        if isinstance(node, A.FunctionDef):
            node.long = True
        return node

    def quote_paren(self, c: Children) -> A.Quote:
        """`:(expr)`: the expression quoted."""
        return A.Quote(c[1], span=_span(c[0]))

    def quote_e(self, c: Children) -> A.Quote:
        """`quote ... end`: the block quoted."""
        return A.Quote(_body(c[1], c[0]), span=_span(c[0]))

    def macro_def(self, c: Children) -> A.MacroDef:
        """`macro name(params...) body end`."""
        span = _span(c[0])
        fdef = _function_def(c[1], _body(c[2], c[0]), span) if _is_signature(c[1]) else None
        if not isinstance(fdef, A.FunctionDef) or fdef.name is None or fdef.kwparams:
            raise _error("invalid macro definition: expected `macro name(args...)`", c[1])
        return A.MacroDef(fdef.name, fdef.params, fdef.body, span=span)

    def do_block(self, c: Children) -> A.Lambda:
        params = [x for x in c if isinstance(x, A.Param)]
        return A.Lambda(params, _destructure(params, _body(c[-2], c[0])), span=_span(c[0]))

    def do_param(self, c: Children) -> A.Param:
        return A.Param(str(c[0]), c[2] if len(c) > 2 else None, span=_span(c[0]))

    def do_pattern(self, c: Children) -> A.Param:
        """`do (k, v)`: a destructured parameter (`(x)` is just `x`)."""
        item = c[0]
        if isinstance(item, A.Ident):
            return A.Param(item.name, span=item.span)
        if not _is_pattern(item):
            raise _error("invalid do-block parameter: expected a name or a destructuring "
                         "pattern such as `(k, v)`", item)
        return A.Param(None, pattern=item, span=item.span)

    def struct_e(self, c: Children) -> A.StructDef:
        head: _TypeHead = c[1]
        block: A.Block = c[2]
        fields: list[_Field] = []
        constructors: list[A.FunctionDef] = []
        for stmt in block.stmts:
            if isinstance(stmt, A.FunctionDef):
                constructors.append(stmt)
            else:
                fields.append(_struct_field(stmt))
        node = A.StructDef(head.name, [(f.name, f.type) for f in fields],
                           mutable=c[0].type == "MUTABLE_STRUCT", params=head.params,
                           supertype=head.supertype, constructors=constructors,
                           span=_span(c[0]))
        defaults = [A.Kwarg(f.name, f.default, span=f.span) for f in fields if f.default]
        if defaults:
            session = _session()
            session.note_defaults(node, defaults)
            session.require_consumer(node, defaults[0].span,
                                      'field defaults are only allowed with "Base.@kwdef"')
        return node

    def abstract_e(self, c: Children) -> A.AbstractTypeDef:
        head: _TypeHead = c[1]
        if head.params:
            raise _error("parametric abstract types are not supported", c[1].params[0])
        return A.AbstractTypeDef(head.name, head.supertype, span=_span(c[0]))

    def type_head(self, c: Children) -> _TypeHead:
        params: list[A.Node] = []
        supertype = None
        for i, x in enumerate(c):
            if isinstance(x, list):
                params = x
            elif isinstance(x, Token) and x.type == "SUBTYPE":
                supertype = c[i + 1]
        return _TypeHead(str(c[0]), params, supertype)

    def module_def(self, c: Children) -> A.ModuleDef:
        return A.ModuleDef(str(c[1]), _body(c[2], c[0]), span=_span(c[0]))

    def using_stmt(self, c: Children) -> A.Using:
        modules: list[str] = []
        names: list[str] = []
        after_colon = False
        for x in c[1:]:
            if isinstance(x, str) and not isinstance(x, Token):
                modules.append(x)
            elif x.type == "COLON":
                after_colon = True
            elif x.type == "NAME" and after_colon:
                names.append(str(x))
        return A.Using(modules, names, is_import=c[0].type == "IMPORT", span=_span(c[0]))

    def export_stmt(self, c: Children) -> A.Export:
        return A.Export([str(t) for t in c if t.type == "NAME"], span=_span(c[0]))

    def module_path(self, c: Children) -> str:
        return ".".join(str(t) for t in c if t.type == "NAME")


# ---- helpers of the builder -------------------------------------------------------------


def _named_literal(part: A.Node | str) -> A.Node | str:
    """`$nothing` / `$true` in a string: the literal, like the name anywhere else."""
    if isinstance(part, A.Ident) and part.name in _NAMED_LITERALS:
        value, kind = _NAMED_LITERALS[part.name]
        return A.Literal(value, kind, span=part.span)
    return part


def _struct_field(stmt: A.Node) -> _Field:
    """A statement of a struct body that is not a method: a field declaration `a`,
    `a::T`, or (for `Base.@kwdef`) `a::T = default` / `a = default`."""
    target, default = stmt, None
    if isinstance(stmt, A.Assign):
        target, default = stmt.target, stmt.value
    if isinstance(target, A.Ident):
        return _Field(target.name, None, default, target.span)
    if isinstance(target, A.TypeAssert) and isinstance(target.value, A.Ident):
        return _Field(target.value.name, target.type, default, target.span)
    raise _error("expected a field (`name` or `name::Type`) or an inner constructor "
                 "(`Name(args) = new(...)`) in a struct body", stmt)


def _body(block: A.Block, keyword: Token) -> A.Block:
    """A block that starts at its keyword when it has no statements."""
    if not block.stmts:
        block.span = _span(keyword)
    return block


def _cat2(parts: list[A.Node], span: Span) -> A.Call:
    """`[a;b;;c;d]`, `[x;;]`: Julia's concatenation along dimension 2 (`;;`), the parts
    between `;;`s concatenated as `[...]` would (`a;b` vertically), then side by side:
    `Base.hcat(parts...)`, so that `[1.0;;]` is a 1×1 matrix and `[v;;]` a column."""
    return A.Call(A.Dot(A.Ident("Base", span=span), "hcat", span=span), parts, span=span)


def _names_of(node: A.Node) -> list[A.Node]:
    return node.items if isinstance(node, A.TupleLit) else [node]


def _macro_name(tok: Token) -> str:
    """The macro's own name: `kwdef` for `@kwdef`, `Base.@kwdef` and `@Base.kwdef`."""
    name = str(tok).rsplit("@", 1)[1]
    return name if name == "." else name.rsplit(".", 1)[-1]


def _field_name(target: A.Node) -> str:
    if not isinstance(target, A.Ident):
        raise _error("a named tuple field must be a name", target)
    return target.name


def _is_type(node: A.Node) -> bool:
    return isinstance(node, A.Curly) or (isinstance(node, A.Ident) and node.name in TYPE_NAMES)


def _comprehension(expr: A.Node, tail: _CompTail, generator: bool) -> A.Node:
    """The comprehension or generator; with several `for` clauses, Julia's flattening:
    `(e for a in A for b in B)` iterates B(a) for each a, one element sequence
    (`Iterators.flatten` of generators), and `[...]` of it is a Vector."""
    span = expr.span
    expr = _fresh_outer_vars(expr, tail.outer)
    node: A.Node = A.Comprehension(expr, tail.iterators, tail.cond,
                                   generator or bool(tail.outer), span=span)
    for iterators in reversed(tail.outer):
        node = A.Comprehension(node, iterators, None, True, span=span)
        node = A.Call(A.Ident("Iterators.flatten", span=span), [node], span=span)
    if tail.outer and not generator:
        node = A.Call(A.Ident("collect", span=span), [node], span=span)
    return node


def _fresh_outer_vars(expr: A.Node, outer: list[list[tuple[A.Node, A.Node]]]) -> A.Node:
    """Each element of a flattened comprehension sees fresh copies of the outer clauses'
    variables, as in Julia: in `[(i = i + 1; i) for i in 1:2 for j in 1:2]` an assignment
    to `i` does not carry over to the next `j`. The body is wrapped in `let i = i` when it
    assigns one of them."""
    names: list[str] = []
    for clause in outer:
        for target, _ in clause:
            names += _ident_names(target)
    assigned = set(_assigned_idents(expr))
    hit = [n for n in dict.fromkeys(names) if n in assigned]
    if not hit:
        return expr
    binds: list[A.Node] = [A.Assign(A.Ident(n, span=expr.span), A.Ident(n, span=expr.span),
                                    span=expr.span) for n in hit]
    return A.Let(binds, A.Block([expr], span=expr.span), span=expr.span)


def _ident_names(target: A.Node) -> list[str]:
    if isinstance(target, A.Ident):
        return [target.name]
    if isinstance(target, A.TupleLit):
        return [n for x in target.items for n in _ident_names(x)]
    return []


def _assigned_idents(node: Any) -> Iterator[str]:
    """Every name an `=` or `op=` inside `node` assigns (nested scopes included)."""
    if isinstance(node, (list, tuple)):
        for x in node:
            yield from _assigned_idents(x)
    elif isinstance(node, A.Node):
        if isinstance(node, (A.Assign, A.OpAssign)):
            yield from _ident_names(node.target)
        for f in dataclasses.fields(node):
            yield from _assigned_idents(getattr(node, f.name))


def _is_call_destination(target: A.Node) -> bool:
    """`fill(1, n) .= v`, `view(p, 1:3) .+= w`: `.=` writes into the array a call returns
    (a view that cannot share its parent's memory refuses the write when it runs)."""
    return (isinstance(target, A.Call) and isinstance(target.func, A.Ident)
            and _session().is_call(target))


def _check_target(target: A.Node, *, update: bool = False) -> None:
    """Raise unless `target` can be assigned to (`update`: by `+=` or `.=`)."""
    if isinstance(target, (A.Ident, A.Index, A.Dot, A.Interpolation)):
        return  # (an interpolated target, `$x = 1`, only inside a quote)
    if not update:
        if isinstance(target, A.TypeAssert) and isinstance(target.value, A.Ident):
            return
        if isinstance(target, A.TupleLit):
            for item in target.items:
                _check_target(item.value if isinstance(item, A.Splat) else item)
            return
        if isinstance(target, A.NamedTupleLit):
            return
    raise _error("invalid assignment target", target)


def _is_signature(node: A.Node) -> bool:
    if isinstance(node, A.Where):
        return True
    if isinstance(node, A.TypeAssert):
        node = node.value
    return isinstance(node, A.Call) and (_session().is_call(node) or _is_infix_signature(node))


def _is_infix_signature(node: A.Call) -> bool:
    """`x ⊙ y = ...`: an infix operator applied to parameter names defines that operator."""
    return (isinstance(node.func, A.Ident) and len(node.args) == 2 and not node.kwargs
            and not node.func.name[:1].isalnum()
            and all(isinstance(a, A.Ident) or (isinstance(a, A.TypeAssert)
                                               and isinstance(a.value, A.Ident))
                    for a in node.args))


def _assign(target: A.Node, value: A.Node) -> A.Node:
    """`target = value`, or a short method definition `f(x) = value`."""
    if _is_signature(target):
        body = A.Block([value], span=value.span)
        return _function_def(target, body, target.span)
    if isinstance(target, A.Curly) and isinstance(target.obj, A.Ident):
        # `Pair2{S} = Tuple{S, S}`: a parametric type alias, `Pair2 = Tuple{S, S} where S`
        where = A.Where(value, list(target.params), span=value.span)
        return A.Assign(target.obj, where, span=target.span)
    _check_target(target)
    return A.Assign(target, value, span=target.span)


def _call_parts(raw: _RawArgs) -> tuple[list[A.Node], list[A.Kwarg], tuple[Span, str] | None]:
    """A call's positional and keyword arguments; also the first argument that is valid
    only in a method signature (as a (span, message) problem), if any."""
    args: list[A.Node] = []
    kwargs: list[A.Kwarg] = []
    problem: tuple[Span, str] | None = None
    for item in raw.positional:
        if isinstance(item, _KwItem):
            kw = _kwarg(item)
            if kw is None:
                problem = problem or (item.span, "invalid keyword argument")
            else:
                kwargs.append(kw)
        else:
            args.append(item)
    for item in raw.keyword:
        if isinstance(item, _KwItem):
            kw = _kwarg(item)
            if kw is None:
                problem = problem or (item.span, "invalid keyword argument")
            else:
                kwargs.append(kw)
        elif isinstance(item, (A.Ident, A.Dot)):  # `f(; x, a.y)` means `f(; x=x, y=a.y)`
            kwargs.append(A.Kwarg(item.name, item, span=item.span))
        elif isinstance(item, A.Splat):
            kwargs.append(A.Kwarg(None, item, span=item.span))
        else:
            problem = problem or (item.span, "expected `name = value` after \";\"")
    return args, kwargs, problem


def _kwarg(item: _KwItem) -> A.Kwarg | None:
    if isinstance(item.target, A.Ident):
        return A.Kwarg(item.target.name, item.value, span=item.span)
    return None


# ---- method definitions -----------------------------------------------------------------


def _consume(node: Any) -> None:
    """Mark a signature-only construct as used by a definition."""
    _session().consume(node)


def _param(item: Any) -> A.Param:
    """A parameter from its argument-list form: `x`, `x::T`, `::T`, `x=1`, `xs...`."""
    if isinstance(item, _KwItem):
        param = _param(item.target)
        param.default = item.value
        return param
    if isinstance(item, A.Ident):
        return A.Param(item.name, span=item.span)
    if isinstance(item, A.Assign) and isinstance(item.target, (A.Ident, A.TypeAssert)):
        param = _param(item.target)  # `b = 1` after `;` in `(a; b = 1) -> ...`
        param.default = item.value
        return param
    if isinstance(item, A.TypeAssert) and isinstance(item.value, A.Ident):
        # (`xs::Vararg{T, N}` is a vararg: N trailing arguments of type T)
        return A.Param(item.value.name, item.type, vararg=_is_vararg_type(item.type),
                       span=item.span)
    if isinstance(item, _AnonType):
        _consume(item)
        return A.Param(None, item.type, vararg=_is_vararg_type(item.type), span=item.span)
    if isinstance(item, A.Splat):
        param = _param(item.value)
        if param.pattern is not None:
            raise _error("a destructured parameter cannot be a vararg", item)
        param.vararg = True
        return param
    if _is_pattern(item):  # `f((a, b)) = ...`, `((k, v),) -> ...`, `f((; a, b)) = ...`
        return A.Param(None, pattern=item, span=item.span)
    if isinstance(item, A.TypeAssert) and _is_pattern(item.value):  # `f((a, b)::Tuple)`
        return A.Param(None, item.type, pattern=item.value, span=item.span)
    raise _error("invalid parameter: expected a name, `name::Type` or `::Type`", item)


def _is_vararg_type(t: A.Node) -> bool:
    """Whether a parameter's type is `Vararg` or `Vararg{...}`."""
    if isinstance(t, A.Curly):
        t = t.obj
    return isinstance(t, A.Ident) and t.name == "Vararg"


def _is_pattern(node: A.Node) -> bool:
    """A destructuring pattern: a tuple of names, `_` and nested patterns, or a named
    tuple of bare names `(; a, b)` (Julia's property destructuring)."""
    if isinstance(node, A.TupleLit):
        return bool(node.items) and all(
            isinstance(x, A.Ident) or _is_pattern(x)
            or (isinstance(x, A.Splat) and isinstance(x.value, A.Ident)) for x in node.items)
    if isinstance(node, A.NamedTupleLit):
        return bool(node.names) and all(isinstance(v, A.Ident) and v.name == k
                                        for k, v in zip(node.names, node.values, strict=True))
    return False


def _destructure(params: list[A.Param], body: A.Node) -> A.Node:
    """The body of a method or lambda whose destructured parameters (`Param.pattern`)
    are named `#argI` and unpacked on entry, as Julia lowers them: `g((a, b)) = a + b`
    is `g(#arg0) = (local a, b; (a, b) = #arg0; a + b)`, and `(; a, b)` unpacks
    `a = #arg0.a; b = #arg0.b`. The unpacked names are local to the function (a closure
    does not assign the enclosing function's variables of the same names)."""
    pre: list[A.Node] = []
    names: list[A.Node] = []
    for i, p in enumerate(params):
        if p.pattern is not None:
            p.name = f"#arg{i}"
            _unpack(p.pattern, A.Ident(p.name, span=p.span), pre, names)
    if not pre:
        return body
    stmts = body.stmts if isinstance(body, A.Block) else [body]
    return A.Block([A.Local(names, span=pre[0].span), *pre, *stmts], span=body.span)


def _unpack(pattern: A.Node, src: A.Ident, pre: list[A.Node], names: list[A.Node]) -> None:
    """Statements (onto `pre`) that unpack `src` by `pattern`, and the names they bind."""
    span = pattern.span
    if isinstance(pattern, A.NamedTupleLit):
        for k in pattern.names:
            names.append(A.Ident(k, span=span))
            pre.append(A.Assign(A.Ident(k, span=span), A.Dot(src, k, span=span), span=span))
        return
    items: list[A.Node] = []
    nested: list[tuple[A.Node, A.Ident]] = []
    for j, x in enumerate(pattern.items):
        if isinstance(x, A.Splat):
            raise _error("slurping (`x...`) in a destructured parameter is not supported", x)
        if isinstance(x, A.Ident):
            if x.name != "_":
                names.append(x)
            items.append(x)
        else:
            tmp = A.Ident(f"{src.name}_{j}", span=x.span)
            names.append(tmp)
            items.append(tmp)
            nested.append((x, tmp))
    pre.append(A.Assign(A.TupleLit(items, span=span), src, span=span))
    for x, tmp in nested:
        _unpack(x, tmp, pre, names)


def _function_def(sig: A.Node, body: A.Block, span: Span) -> A.FunctionDef:
    """A method definition from its signature `name(params...)[::R] [where ...]`."""
    where: list[A.Node] = []
    while isinstance(sig, A.Where):
        _consume(sig)
        where = sig.params + where
        sig = sig.expr
    return_type = None
    if isinstance(sig, A.TypeAssert):
        return_type = sig.type
        sig = sig.value
    if not isinstance(sig, A.Call):
        raise _error("expected a method signature such as `f(x)`", sig)
    session = _session()
    raw = session.take_call(sig)
    if raw is None and _is_infix_signature(sig):
        raw = _RawArgs(list(sig.args), [])  # `x ⊙ y = ...`
    if raw is None:
        raise _error("expected a method signature such as `f(x)`", sig)
    _consume(sig)
    func = sig.func
    type_params: list[A.Node] = []
    if isinstance(func, A.Curly) and _dotted_name(func.obj) is not None:
        # a constructor of a parametric type's instances: `Pos{T}(x) where {T} = ...`
        type_params = list(func.params)
        func = func.obj
    if isinstance(func, A.Colon):
        func = A.Ident(":", span=func.span)  # `(:)(a, b) = ...`: the range operator
    name: str | None = _dotted_name(func)
    receiver = None
    name_expr = func if isinstance(func, A.Interpolation) else None
    if name_expr is not None:
        name = "$"  # `$f(x) = ...` inside a quote: the name is interpolated
    elif name is None:
        if isinstance(sig.func, (A.TypeAssert, _AnonType)):
            receiver = _param(sig.func)  # a callable struct: `(m::Affine)(x) = ...`
        else:
            raise _error("invalid method name", sig.func)
    params = [_param(p) for p in raw.positional]
    kwparams = [_param(p) for p in raw.keyword]
    for p in kwparams:
        if p.pattern is not None:
            raise _error("a keyword argument cannot be destructured", p)
    body = _destructure(params, body)
    return A.FunctionDef(name, params, body, kwparams, receiver, where, return_type,
                         type_params, name_expr, span=span)


def _long_function(sig: A.Node, body: A.Block, span: Span) -> A.Node:
    """`function sig ... end`: a method definition, or an anonymous function when the
    signature is a parenthesised parameter list (`function (x, y) ... end`)."""
    if _is_signature(sig):
        return _function_def(sig, body, span)
    if isinstance(sig, A.Ident) and not _session().was_grouped(sig):
        raise _error(f'a function without methods (`function {sig.name} end`) is not '
                     "supported", sig)
    params = _lambda_params(sig)
    return A.Lambda(params, _destructure(params, body), span=span)


def _lambda_params(lhs: A.Node) -> list[A.Param]:
    """The parameters of `x -> ...`, `(x, y::T) -> ...`, `() -> ...`."""
    items = lhs.items if isinstance(lhs, A.TupleLit) else [lhs]
    return [_param(x) for x in items]


# ---- the LALR driver ------------------------------------------------------------------


class _Splice(list):  # type: ignore[type-arg]
    """The children of an inlined rule (`_rule`, and Lark's `__x_star_N` helpers for
    `(...)*`): spliced into the children of the rule that contains it."""

    __slots__ = ()


def _rule_callback(rule: Any, builder: _AstBuilder) -> Callable[[list[Any]], Any] | None:
    """The reduction callback of one of Lark's rules, with the meaning of the callback
    Lark builds for it (`lark.parse_tree_builder`: filtered and inlined children, `?rule`
    single-child expansion, then the builder's method), but without Lark's wrapper
    objects. None for a unit rule, whose value is its only child."""
    if _is_unit(rule):
        return None
    plan: list[tuple[int, bool]] = []  # (child index, splice it?)
    for i, sym in enumerate(rule.expansion):
        if sym.is_term and sym.filter_out:
            continue
        plan.append((i, not sym.is_term and sym.name.startswith("_")))
    method = getattr(builder, rule.alias or rule.origin.name, None)
    if method is None:
        if not rule.origin.name.startswith("_"):
            raise AssertionError(f"no builder method for rule {rule.origin.name}")
        method = _Splice
    expand1 = bool(rule.options.expand1 and not rule.alias)
    size = len(rule.expansion)
    if not any(splice for _, splice in plan):
        if len(plan) == size:  # every child is kept as it is
            if expand1:
                return lambda c: c[0] if len(c) == 1 else method(c)
            return method
        keep = tuple(i for i, _ in plan)
        if expand1:
            def expand_kept(c: list[Any]) -> Any:
                kept = [c[i] for i in keep]
                return kept[0] if len(kept) == 1 else method(kept)
            return expand_kept
        if len(keep) == 1:
            only = keep[0]
            return lambda c: method([c[only]])
        return lambda c: method([c[i] for i in keep])

    rest = tuple(i for i, _ in plan[1:])
    if (method is _Splice and plan[0] == (0, True) and len(rest) == 2
            and not any(splice for _, splice in plan[1:])):
        first, second = rest

        def extend_left(c: list[Any]) -> Any:  # `__x: __x COMMA arg` and the like
            out = c[0]
            out.append(c[first])
            out.append(c[second])
            return out

        return extend_left

    def spliced(c: list[Any]) -> Any:
        out: list[Any] = []
        for i, splice in plan:
            if splice:
                if out:
                    out += c[i]
                else:  # left recursion: reuse the inner list
                    out = c[i]
            else:
                out.append(c[i])
        if method is _Splice:
            return out if out.__class__ is _Splice else _Splice(out)
        if expand1 and len(out) == 1:
            return out[0]
        return method(out if out.__class__ is list else list(out))  # a plain list, as Lark's

    return spliced


def _is_unit(rule: Any) -> bool:
    """Whether Lark's callback for `rule` returns its only child unchanged."""
    if not rule.options.expand1 or rule.alias or len(rule.expansion) != 1:
        return False
    symbol = rule.expansion[0]
    return not symbol.name.startswith("_") and not getattr(symbol, "filter_out", False)


#: The most `accepts` answers memoized per lookahead token type.
_ACCEPT_MEMO_LIMIT = 4096


class _Tables:
    """Lark's LALR tables, recompiled for `_Driver`, with callbacks made from the rules.

    `actions[state][symbol]` is a shift or goto target (>= 0) or `~i` for a reduction by
    `rules[i] = (length, lhs name, callback)`; a callback of None marks a unit rule
    (`?rule: other`), whose reduction only changes the state. The callbacks have the
    meaning of those Lark builds (the reference parse, `get_parser().parse`) and call the
    same `_AstBuilder` methods.

    A reduction by a rule of length one replaces only the top of the stack, and which
    state it leads to depends on the state below only. `chain(ttype, below, top)` follows
    all such reductions that a `ttype` lookahead causes at once and memoizes the result:
    the new top state and the callbacks to apply to the top value, in order."""

    def __init__(self, lark: Lark, builder: _AstBuilder) -> None:
        table = lark.parser.parser.parser.parse_table  # ParsingFrontend → LALR → _Parser
        index: dict[int, int] = {}
        self.rules: list[tuple[int, str, Callable[[list[Any]], Any] | None]] = []
        self.actions: list[dict[str, int]] = [{} for _ in range(len(table.states))]
        terminals: set[str] = set()
        for state, row in table.states.items():
            out = self.actions[state]
            for symbol, (action, arg) in row.items():
                if symbol.isupper() or symbol == "$END":
                    terminals.add(symbol)
                if action is Shift:
                    out[symbol] = arg
                    continue
                i = index.get(id(arg))
                if i is None:
                    i = index[id(arg)] = len(self.rules)
                    self.rules.append((len(arg.expansion), arg.origin.name,
                                       _rule_callback(arg, builder)))
                out[symbol] = ~i
        self.start_states: dict[str, int] = dict(table.start_states)
        self.end_states: dict[str, int] = dict(table.end_states)
        assert len(self.actions) < 1 << 16
        #: per lookahead: (below << 16 | top) → what `chain` returns
        self.chains: dict[str, dict[int, tuple[int, tuple[Any, ...], int | None]]]
        self.chains = {t: {} for t in terminals}
        #: `_Driver.accepts` answers that needed reductions, per lookahead: the top of the
        #: stack those reductions read (a tuple of states) → the answer; and per top
        #: state, the lengths of the stack tops recorded for it.
        self.accept_memo: dict[str, dict[tuple[int, ...], bool]] = {t: {} for t in terminals}
        self.accept_lengths: dict[str, dict[int, list[int]]] = {t: {} for t in terminals}

    def remember_accept(self, ttype: str, top: tuple[int, ...], answer: bool) -> None:
        """Record that `ttype` is (or is not) accepted above any stack ending in `top`.
        Bounded: past a few lengths per state or entries per lookahead, nothing more is
        recorded (answers are then simulated each time)."""
        memo = self.accept_memo[ttype]
        if len(memo) >= _ACCEPT_MEMO_LIMIT:
            return
        lengths = self.accept_lengths[ttype].setdefault(top[-1], [])
        if len(top) not in lengths:
            if len(lengths) >= 8:
                return
            lengths.append(len(top))
        memo[top] = answer

    def chain(self, ttype: str, below: int, top: int) -> tuple[int, tuple[Any, ...], int | None]:
        """Apply every length-one reduction that `ttype` calls for to `top` (above
        `below`); return the resulting top state, the callbacks met on the way, and the
        action on `ttype` in the resulting state (as in `actions`; None: an error)."""
        key = below << 16 | top
        actions = self.actions
        rules = self.rules
        callbacks: list[Callable[[list[Any]], Any]] = []
        while True:
            act = actions[top].get(ttype)
            if act is None or act >= 0:
                break
            size, lhs, callback = rules[~act]
            if size != 1:
                break
            if callback is not None:
                callbacks.append(callback)
            top = actions[below][lhs]
        entry = (top, tuple(callbacks), act)
        self.chains[ttype][key] = entry
        return entry


class _Driver:
    """One LALR(1) parse: Lark's tables, run by a tight loop. It is the parser state the
    lexer sees: `accepts(ttype)` simulates the reductions a `ttype` token would cause, on
    a virtual copy of the stack top, and says whether the token would then be shifted.
    Both use the memoized chains of length-one reductions of `_Tables`."""

    __slots__ = ("tables", "actions", "rules", "chains", "stack")

    def __init__(self, tables: _Tables, start: str) -> None:
        self.tables = tables
        self.actions = tables.actions
        self.rules = tables.rules
        self.chains = tables.chains
        self.stack: list[int] = [tables.start_states[start]]

    def accepts(self, ttype: str) -> bool:
        stack = self.stack
        state = stack[-1]
        act = self.actions[state].get(ttype)
        if act is None:
            return False
        if act >= 0:
            return True
        # Reductions first: the answer depends on the part of the stack they reach,
        # which `_simulate` reports; answers are memoized by that part (`_Tables`).
        memo = self.tables.accept_memo[ttype]
        lengths = self.tables.accept_lengths[ttype].get(state)
        if lengths is not None:
            for k in lengths:
                answer = memo.get(tuple(stack[-k:]))
                if answer is not None:
                    return answer
        answer, low = self._simulate(ttype, act)
        self.tables.remember_accept(ttype, tuple(stack[low:]), answer)
        return answer

    def _simulate(self, ttype: str, act: int) -> tuple[bool, int]:
        """Run the reductions a `ttype` lookahead causes (starting with the reduction
        `act` of the top state) on a virtual copy of the stack top. Return whether the
        token is then shifted, and the lowest index of the real stack that was read."""
        actions = self.actions
        rules = self.rules
        stack = self.stack
        chains = self.chains[ttype]
        # The virtual stack is stack[:depth] + pushed; `state` is its top.
        depth = len(stack)
        low = depth - 1
        state = stack[-1]
        pushed: list[int] = []
        while True:
            if act is None:
                return False, low
            if act >= 0:
                return True, low
            size, lhs, _ = rules[~act]
            if size == 1:
                if len(pushed) > 1:
                    below = pushed[-2]
                else:
                    index = depth - 2 + len(pushed)
                    low = min(low, index)
                    below = stack[index]
                entry = chains.get(below << 16 | state)
                if entry is None:
                    entry = self.tables.chain(ttype, below, state)
                state, _, act = entry
                if pushed:
                    pushed[-1] = state
                else:
                    pushed.append(state)
                    depth -= 1
                continue
            if size:
                if size <= len(pushed):
                    del pushed[-size:]
                else:
                    depth -= size - len(pushed)
                    pushed.clear()
            if pushed:
                below = pushed[-1]
            else:
                low = min(low, depth - 1)
                below = stack[depth - 1]
            state = actions[below][lhs]
            pushed.append(state)
            act = actions[state].get(ttype)

    def run(self, tokens: Iterator[Token], end_state: int) -> Any:
        """Feed all tokens, then the end of input; return the start rule's value."""
        tables = self.tables
        actions = self.actions
        rules = self.rules
        all_chains = self.chains
        stack = self.stack
        values: list[Any] = []
        push_state = stack.append
        push_value = values.append
        tok: Token | None = None
        for tok in tokens:
            ttype = tok.type
            act = actions[stack[-1]].get(ttype)
            while True:
                if act is None:
                    raise UnexpectedToken(tok, self._expected())
                if act >= 0:
                    push_state(act)
                    push_value(tok)
                    break
                size, lhs, callback = rules[~act]
                if size == 1:
                    entry = all_chains[ttype].get(stack[-2] << 16 | stack[-1])
                    if entry is None:
                        entry = tables.chain(ttype, stack[-2], stack[-1])
                    stack[-1], callbacks, act = entry
                    if callbacks:
                        value = values[-1]
                        for f in callbacks:
                            value = f([value])
                        values[-1] = value
                    continue
                if size:
                    args = values[-size:]
                    del values[-size:]
                    del stack[-size:]
                else:
                    args = []
                push_value(callback(args))  # type: ignore[misc]
                state = actions[stack[-1]][lhs]
                push_state(state)
                act = actions[state].get(ttype)
        end = Token.new_borrow_pos("$END", "", tok) if tok else Token("$END", "", 0, 1, 1)
        while True:
            act = actions[stack[-1]].get("$END")
            if act is None:
                raise UnexpectedToken(end, self._expected())
            size, lhs, callback = rules[~act]
            if size:
                args = values[-size:]
                del values[-size:]
                del stack[-size:]
            else:
                args = []
            values.append(args[0] if callback is None else callback(args))
            stack.append(actions[stack[-1]][lhs])
            if stack[-1] == end_state:
                return values[-1]

    def _expected(self) -> set[str]:
        return {s for s in self.actions[self.stack[-1]] if s.isupper()}


# ---- the shared parser ----------------------------------------------------------------

_LOCK = threading.Lock()
_PARSER: Lark | None = None
_TABLES: _Tables | None = None


def get_parser() -> Lark:
    """The shared Lark parser (built on first use; its tables are cached on disk). Its
    `parse` method is the reference implementation; `parse` below runs the same tables
    and callbacks through `_Driver`, which is several times faster."""
    global _PARSER, _TABLES
    if _PARSER is None:
        with _LOCK:
            if _PARSER is None:
                builder = _AstBuilder()
                lark = load_parser(builder)
                _TABLES = _Tables(lark, builder)
                _PARSER = lark
    return _PARSER


def _tables() -> _Tables:
    get_parser()
    assert _TABLES is not None
    return _TABLES


def _describe(tok: Token) -> str:
    """A token as an error message names it."""
    t = tok.type
    if t == "$END":
        return "end of input"
    if t in ("NAME", "CATCHVAR"):
        return f'identifier "{tok}"'
    if t in ("INT", "FLOAT", "FLOAT32"):
        return f"number {tok}"
    if t == "STRING":
        text = str(tok)
        return f"string {text if len(text) <= 30 else text[:27] + '...'}"
    if t == "CHAR":
        return f"character {tok}"
    if t == "SYMBOL":
        return f"symbol :{tok}"
    if t == "_NL":
        return "newline" if tok == "\n" else '";"'
    if t == "MACRO_END":
        return "end of the macro call"
    if t == "JUXT":
        return "juxtaposition"
    if t == "HSEP":
        return "space-separated expression"
    if t == "ROWSEP" and tok == "\n":
        return "newline"
    if t == "UNSUPPORTED":
        return f'keyword "{tok}" (not supported by Zyla)'
    if str(tok) in KEYWORDS:
        return f'keyword "{tok}"'
    return f'"{tok}"'


def _unexpected(err: UnexpectedToken, job: LexInput) -> ZylaParseError:
    """A friendly error for a token the grammar does not accept."""
    tok: Token = err.token
    source = job.source
    rest_blank = tok.start_pos is None or not job.text[tok.end_pos or tok.start_pos :].strip()
    if tok.type == "$END":
        line = tok.end_line or 1
        col = tok.end_column or 1
        return ZylaParseError("unexpected end of input", Span(line, col), source,
                              incomplete=True)
    span = Span(tok.line, tok.column)
    incomplete = tok.type == "MACRO_END" and rest_blank
    bracket = next((f for f in reversed(job.frames)
                    if f.kind in ("paren", "call", "index", "vect", "curly", "brace")
                    and (f.line, f.col) != (tok.line, tok.column)), None)
    first_on_line = not source.line(tok.line)[: tok.column - 1].strip()
    if bracket is not None and bracket.line < tok.line and (
        first_on_line or str(tok) in KEYWORDS
    ):
        closer = {"paren": ")", "call": ")", "index": "]", "vect": "]"}.get(bracket.kind, "}")
        return ZylaParseError(
            f'missing "{closer}" for "{bracket.opener}" opened at line {bracket.line}, '
            f"column {bracket.col} (found {_describe(tok)} at line {tok.line}, "
            f"column {tok.column})",
            Span(bracket.line, bracket.col), source, incomplete=incomplete)
    return ZylaParseError(f"unexpected {_describe(tok)}", span, source, incomplete=incomplete)


def _run(job: LexInput, start: str) -> Any:
    """Parse a job, turning syntax errors into ZylaParseErrors."""
    tables = _tables()
    driver = _Driver(tables, start)
    lexer = JuliaLexer(None)
    try:
        return driver.run(lexer.lex(LexerState(job), driver), tables.end_states[start])  # type: ignore[arg-type]
    except UnexpectedToken as e:
        raise _unexpected(e, job) from None
    except UnexpectedInput as e:  # not produced by our lexer; kept as a safety net
        raise ZylaParseError(f"syntax error: {e}", None, job.source) from None


def _subparse(job: LexInput) -> A.Node:
    """Parse the `$( ... )` of a string interpolation (a nested job on the same text)."""
    node: A.Node = _run(job, "interp")
    return node


@contextmanager
def _new_session(source: SourceFile) -> Iterator[_Session]:
    session = _Session(source)
    token = _SESSION.set(session)
    try:
        yield session
    finally:
        _SESSION.reset(token)


# ---- public API -----------------------------------------------------------------------


def parse(text: str, filename: str = "<input>") -> A.Program:
    """Parse a whole file. Raises `ZylaParseError` (a ZylaError, kind "ParseError").

    Python's cyclic garbage collector is paused while parsing (and restored after, if it
    was enabled): a parse allocates many objects, none of them in reference cycles, and
    the collections that allocation would trigger cost about a sixth of the parse time."""
    job = LexInput(text, filename, subparse=_subparse)
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        with _new_session(job.source) as session:
            stmts: list[A.Node] = _run(job, "program")
            session.check()
    finally:
        if collecting:
            gc.enable()
    return A.Program(stmts, file=filename, source=text, span=Span(1, 1))


def parse_expr(text: str, filename: str = "<input>") -> A.Node:
    """Parse text holding exactly one statement or expression, and return it."""
    program = parse(text, filename)
    if len(program.stmts) != 1:
        raise ZylaParseError(f"expected one expression, found {len(program.stmts)}",
                             Span(1, 1), SourceFile(filename, text))
    return program.stmts[0]


def parse_incomplete(text: str) -> bool:
    """Whether `text` is an unfinished prefix of a program (an open block, bracket,
    string or comment, or an expression cut off at the end) rather than complete or
    wrong. The REPL reads another line when this is true."""
    try:
        parse(text, "<repl>")
    except ZylaParseError as e:
        return e.incomplete
    return False
