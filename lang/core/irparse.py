"""Reader for the IR text form written by `lang.core.ir.format_module` / `format_function`.

`parse_module(text)` returns the functions of a module text, in order, such that

    format_module(parse_module(text)[0]) == text     (and likewise per function)

for every text the printer writes. It is a small hand-written recursive-descent reader;
malformed text raises `ZylaError("IRParseError", message, Span(line, col))`.

The grammar (whitespace and newlines separate tokens; `# ...` comments are ignored except
a `# line N` right after an op, which sets `op.span = Span(N, 0)`):

    module    := function*
    function  := "func" "@" NAME "(" [def ("," def)*] ")" "[" [NAME ("," NAME)*] "]"
                 ("captures=" INT | "kw=" INT | "vararg" | "kwvararg" | "self")* "{" op* "}"
    def       := "%" INT ["::" TYPE]
    op        := [def ("," def)* "="] OPNAME [" " PRIMARY] ["(" [use ("," use)*] ")"]
                 ["[" KEY "=" attr ("," KEY "=" attr)* "]"] region* ["# line" INT]
    region    := "{" ["^(" [def ("," def)*] "):"] op* "}"
    use       := "%" INT

NAME is a bare name (`f`, `#3`, `f#adj1`, `+`) or a quoted string. PRIMARY is the value
of the op's main attribute (`const` value, `call` fn, ...; see `lang.core.ir._PRIMARY`); it
follows the op name after a space, while an operand list follows it directly.

Attribute values: strings, chars, ints, floats (`1.0`, `1.0e-5`, Float32 `1.0f0`,
`Inf`/`NaN` with their `32`/`16` suffixes, `Float16(0.5)`), `true`/`false`, `nothing`,
tuples, named tuples, symbols (`:x`, `:+`, `:(==)`, `Symbol("a b")`), `Colon()`,
`#undef`, `TypeVar(:T[, ub])`, types by name (`Any`, `Vector{Float64}`, resolved through
the built-in types, or the `types` argument), and `@name` references to functions of the
same module text (forward references allowed). A type or value the reader cannot rebuild
but that is well delimited (`Affine`, `@NamedTuple{a::Int64}`, `Foo(1, 2)`) becomes an
`IRLiteral`, which prints back as the same text.

Value ids are kept (`%7` is `Value(7)`), so a function's `counter` is its largest id plus
one. What the text does not hold is not restored: value hints, span columns (a parsed span
is `Span(N, 0)`), a function's own span and file. Values are per function: the same id
in two functions names two values. The reader checks syntax only; `lang.core.verify` checks
that the IR is well formed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from grammar.ast import Span
from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.ir import _PRIMARY, Function, Op, Region, Value, walk_ops
from lang.core.lower import COLON, UNDEF
from lang.core.values import BUILTIN_TYPES, Char, NamedTuple, SelfRef, Symbol, TypeVar, type_name

__all__ = ["IRLiteral", "parse_module", "parse_function"]


class IRLiteral:
    """An attribute value or type the reader kept as its text (e.g. a user type name).

    It prints as that text through `jl_show` and `lang.core.values.type_name`, so a parsed
    module prints back identically; two literals are equal when their texts are."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def jl_show(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IRLiteral) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("IRLiteral", self.text))


class _FnRef:
    """A `@name` reference, resolved once every function of the module is read."""

    __slots__ = ("name", "pos")

    def __init__(self, name: str, pos: int) -> None:
        self.name = name
        self.pos = pos


_OPNAME = re.compile(r"[A-Za-z_][\w.!]*")
_WORD = re.compile(r"[^\W\d][\w!]*(?:\.[^\W\d][\w!]*)*")
_INT = re.compile(r"-?\d+")
_HEX = re.compile(r"0x[0-9a-fA-F]+(?![\w.])")
_NUMBER = re.compile(
    r"[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eEf][-+]?\d+)?|Inf(?:16|32)?|NaN(?:16|32)?)"
)
_KEY = re.compile(r"[A-Za-z_]\w*")
_LINE_COMMENT = re.compile(r"#[ \t]+line[ \t]+(\d+)")
_BARE_NAME = re.compile(r'[^\s()\[\]{},"]+')  # lang.core.ir.format_name writes others quoted
_NT_NAME = re.compile(r"([^\W\d][\w!]*)[ \t]*=(?!=)[ \t]*")  # `name = ` in a named tuple
_HEX_ESCAPES = {c: re.compile(f"[0-9a-fA-F]{{1,{w}}}") for c, w in (("x", 2), ("u", 4), ("U", 8))}
_SYMBOL_END = " \t\r\n,()[]{}"
_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v",
    "e": "\x1b", "0": "\0", "\\": "\\", '"': '"', "'": "'", "$": "$",
}  # fmt: skip


def parse_module(text: str, types: Mapping[str, Any] | None = None) -> list[Function]:
    """The functions of an IR module text, in the order they appear.

    `types` adds names (e.g. user struct types) to the built-in types used to rebuild
    type-valued attributes and value annotations. Raises `ZylaError("IRParseError")` with
    the line and column of the first problem; `@name` must name a function of `text`."""
    return _Parser(text, types).module()


def parse_function(text: str, types: Mapping[str, Any] | None = None) -> Function:
    """The first function of an IR text (the others it references are read too, and
    reachable from it through its `func` attributes)."""
    fns = parse_module(text, types)
    if not fns:
        raise ZylaError("IRParseError", "no function in the IR text", Span(1, 1))
    return fns[0]


def _builtin_types() -> dict[str, Any]:
    out: dict[str, Any] = dict(BUILTIN_TYPES)
    out.update({"Core.Box": V.BoxT, "StepRangeLen": V.StepRangeLenT})
    return out


class _Parser:
    """One pass over an IR text; `pos` is the index of the next unread character."""

    def __init__(self, text: str, types: Mapping[str, Any] | None) -> None:
        self.text = text
        self.pos = 0
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.types = _builtin_types()
        if types:
            self.types.update(types)
        self.values: dict[int, Value] = {}

    # --- positions and errors -------------------------------------------------------------

    def span(self, pos: int | None = None) -> Span:
        p = self.pos if pos is None else pos
        line = bisect.bisect_right(self.line_starts, p)
        return Span(line, p - self.line_starts[line - 1] + 1)

    def error(self, msg: str, pos: int | None = None) -> ZylaError:
        return ZylaError("IRParseError", msg, self.span(pos))

    def found(self) -> str:
        """What is at the read position, for messages."""
        if self.pos >= len(self.text):
            return "end of text"
        rest = self.text[self.pos:].split("\n", 1)[0]
        return "end of line" if not rest else f"`{rest[:20]}`"

    # --- low-level reading ----------------------------------------------------------------

    def peek(self, k: int = 0) -> str:
        p = self.pos + k
        return self.text[p] if p < len(self.text) else ""

    def at(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def skip_spaces(self) -> None:
        """Spaces and tabs, not newlines."""
        t, n, p = self.text, len(self.text), self.pos
        while p < n and t[p] in " \t":
            p += 1
        self.pos = p

    def skip_ws(self) -> None:
        """Whitespace, newlines and `# ...` comments (a `#` then a blank)."""
        t, n = self.text, len(self.text)
        while self.pos < n:
            c = t[self.pos]
            if c in " \t\r\n":
                self.pos += 1
            elif c == "#" and (self.pos + 1 == n or t[self.pos + 1] in " \t\r\n"):
                end = t.find("\n", self.pos)
                self.pos = n if end < 0 else end
            else:
                break

    def accept(self, s: str) -> bool:
        self.skip_ws()
        if self.at(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, what: str = "") -> None:
        if not self.accept(s):
            raise self.error(f"expected `{s}`{what}, found {self.found()}")

    def match(self, rx: re.Pattern[str]) -> str | None:
        m = rx.match(self.text, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group(0)

    def integer(self, what: str) -> int:
        self.skip_ws()
        tok = self.match(_INT)
        if tok is None:
            raise self.error(f"expected {what}, found {self.found()}")
        return int(tok)

    def string(self) -> str:
        """A double-quoted string with Julia's escapes (the printer's subset included)."""
        start = self.pos
        assert self.text[self.pos] == '"'
        self.pos += 1
        out: list[str] = []
        t, n = self.text, len(self.text)
        while True:
            if self.pos >= n:
                raise self.error("unterminated string", start)
            c = t[self.pos]
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c == "\\":
                out.append(self.escape())
            else:
                out.append(c)
                self.pos += 1

    def escape(self) -> str:
        """One backslash escape at the read position."""
        start = self.pos
        self.pos += 1
        c = self.peek()
        if c in "xuU":
            m = _HEX_ESCAPES[c].match(self.text, self.pos + 1)
            if m is None:
                raise self.error(f"invalid escape `\\{c}`", start)
            self.pos = m.end()
            return chr(int(m.group(0), 16))
        if c in _SIMPLE_ESCAPES:
            self.pos += 1
            return _SIMPLE_ESCAPES[c]
        raise self.error(f"invalid escape `\\{c}`", start)

    def name(self, rx: re.Pattern[str], what: str) -> str:
        """A bare or quoted name (function names after `@`, parameter names)."""
        if self.peek() == '"':
            return self.string()
        tok = self.match(rx)
        if tok is None:
            raise self.error(f"expected {what}, found {self.found()}")
        return tok

    def balanced(self, stop: str) -> str:
        """Text up to (not including) a character of `stop` outside brackets and strings."""
        start = self.pos
        depth = 0
        t, n = self.text, len(self.text)
        while self.pos < n:
            c = t[self.pos]
            if c == '"':
                self.string()
                continue
            if depth == 0 and c in stop:
                break
            if c in "({[":
                depth += 1
            elif c in ")}]":
                if depth == 0:
                    break
                depth -= 1
            elif c == "\n":
                break
            self.pos += 1
        if depth:
            raise self.error("unbalanced brackets", start)
        return t[start:self.pos]

    # --- module, function ------------------------------------------------------------------

    def module(self) -> list[Function]:
        fns: list[Function] = []
        by_name: dict[str, Function] = {}
        self.skip_ws()
        while self.pos < len(self.text):
            start = self.pos
            fn = self.function()
            if fn.name in by_name:
                raise self.error(
                    f"function @{fn.name} is defined twice, so references to it are ambiguous",
                    start)
            by_name[fn.name] = fn
            fns.append(fn)
            self.skip_ws()
        for fn in fns:
            self.resolve_refs(fn, by_name)
        return fns

    def function(self) -> Function:
        if not self.accept("func"):
            raise self.error(f"expected `func`, found {self.found()}")
        self.expect("@")
        fname = self.name(_BARE_NAME, "a function name")
        self.values = {}
        self.expect("(")
        args = self.defs(")")
        self.expect("[", " (the parameter names)")
        params: list[str] = []
        self.skip_ws()
        if not self.accept("]"):
            while True:
                self.skip_ws()
                params.append(self.name(_BARE_NAME, "a parameter name"))
                if self.accept("]"):
                    break
                self.expect(",", " or `]`")
        fn = Function(name=fname, body=Region(args), params=params)
        while True:
            self.skip_ws()
            if self.at("{"):
                break
            start = self.pos
            word = self.match(_KEY)
            if word in ("captures", "kw") and self.peek() == "=":
                self.pos += 1
                n = self.integer("a count")
                if word == "captures":
                    fn.ncaptures = n
                else:
                    fn.nkw = n
            elif word == "vararg":
                fn.vararg = True
            elif word == "kwvararg":
                fn.kwvararg = True
            elif word == "self":
                fn.self_arg = True
            else:
                self.pos = start
                raise self.error(f"expected `{{` or a function flag, found {self.found()}")
        self.expect("{")
        fn.body.ops = self.ops()
        fn.counter = max(self.values, default=-1) + 1
        return fn

    def resolve_refs(self, fn: Function, by_name: dict[str, Function]) -> None:
        def resolve(v: Any) -> Any:
            if isinstance(v, _FnRef):
                target = by_name.get(v.name)
                if target is None:
                    raise self.error(f"@{v.name} names no function of this module", v.pos)
                return target
            if isinstance(v, tuple) and any(isinstance(x, (_FnRef, tuple)) for x in v):
                return tuple(resolve(x) for x in v)
            return v

        for op in walk_ops(fn.body):
            for k, v in op.attrs.items():
                op.attrs[k] = resolve(v)

    # --- values ------------------------------------------------------------------------------

    def value(self, n: int) -> Value:
        v = self.values.get(n)
        if v is None:
            v = self.values[n] = Value(n)
        return v

    def use(self) -> Value:
        self.skip_ws()
        if self.peek() != "%":
            raise self.error(f"expected a value `%N`, found {self.found()}")
        self.pos += 1
        tok = self.match(_INT)
        if tok is None or tok.startswith("-"):
            raise self.error("expected a value number after `%`", self.pos)
        return self.value(int(tok))

    def define(self) -> Value:
        v = self.use()
        if self.at("::"):
            self.pos += 2
            start = self.pos
            text = self.balanced(", \t\r\n)")
            if not text:
                raise self.error("expected a type after `::`", start)
            v.type = self.type_from_text(text)
        return v

    def defs(self, close: str) -> list[Value]:
        """Comma-separated value definitions up to and including `close`."""
        out: list[Value] = []
        if self.accept(close):
            return out
        while True:
            out.append(self.define())
            if self.accept(close):
                return out
            self.expect(",", f" or `{close}`")

    # --- ops and regions -----------------------------------------------------------------------

    def ops(self) -> list[Op]:
        """Ops up to and including the closing `}` of a region or function body."""
        out: list[Op] = []
        while True:
            self.skip_ws()
            if self.pos >= len(self.text):
                raise self.error("missing `}`: the text ends inside a region")
            if self.at("}"):
                self.pos += 1
                return out
            out.append(self.op())

    def region(self) -> Region:
        self.expect("{")
        self.skip_ws()
        args: list[Value] = []
        if self.at("^"):
            self.pos += 1
            self.expect("(")
            args = self.defs(")")
            self.expect(":", " after the region arguments")
        return Region(args, self.ops())

    def op(self) -> Op:
        results: list[Value] = []
        if self.peek() == "%":
            while True:
                results.append(self.define())
                if self.accept("="):
                    break
                self.expect(",", " or `=` after the op results")
            self.skip_ws()
        name = self.match(_OPNAME)
        if name is None:
            raise self.error(f"expected an op, found {self.found()}")
        op = Op(name, [], results)
        primary = _PRIMARY.get(name)
        if primary is not None and self.peek() == " ":
            self.skip_spaces()
            c = self.peek()
            if c and c not in "[{\r\n" and not _LINE_COMMENT.match(self.text, self.pos):
                op.attrs[primary] = self.attr_value()
        if self.peek() == "(" or (primary is None and self._spaced("(")):
            self.skip_spaces()
            self.pos += 1
            if not self.accept(")"):
                while True:
                    op.operands.append(self.use())
                    if self.accept(")"):
                        break
                    self.expect(",", " or `)` in the operand list")
        if self._spaced("["):
            self.skip_spaces()
            self.pos += 1
            while True:
                self.skip_ws()
                kpos = self.pos
                key = self.match(_KEY)
                if key is None:
                    raise self.error(f"expected an attribute name, found {self.found()}")
                if key in op.attrs:
                    raise self.error(f"attribute `{key}` given twice", kpos)
                self.expect("=", f" after attribute `{key}`")
                self.skip_ws()
                op.attrs[key] = self.attr_value()
                if self.accept("]"):
                    break
                self.expect(",", " or `]` in the attribute list")
        while self._spaced("{"):
            self.skip_spaces()
            op.regions.append(self.region())
        self.skip_spaces()
        m = _LINE_COMMENT.match(self.text, self.pos)
        if m is not None:
            op.span = Span(int(m.group(1)), 0)
            self.pos = m.end()
            self.skip_spaces()
        if self.pos < len(self.text) and self.peek() not in "\r\n":
            if not (self.peek() == "#" and self.peek(1) in " \t\r\n"):
                raise self.error(f"expected the end of the `{name}` op, found {self.found()}")
        if name in ("call", "callv", "pcall", "pcallv"):
            op.attrs.setdefault("kw", ())  # the printer leaves empty ones out
            op.attrs.setdefault("splat", ())
        return op

    def _spaced(self, c: str) -> bool:
        """Is `c` next, after spaces (not newlines)?"""
        p = self.pos
        while p < len(self.text) and self.text[p] in " \t":
            p += 1
        return self.text.startswith(c, p)

    # --- attribute values --------------------------------------------------------------------

    def attr_value(self) -> Any:
        c = self.peek()
        start = self.pos
        if c == '"':
            return self.string()
        if c == "'":
            return self.char()
        if c == "@":
            if self.at("@NamedTuple{"):
                return self.type_from_text(self.balanced(",)] \t\r\n"))
            self.pos += 1
            return _FnRef(self.name(_BARE_NAME, "a function name after `@`"), start)
        if c == "(":
            return self.tuple_value()
        if c == ":":
            return self.symbol()
        if c == "#":
            if self.at("#undef"):
                self.pos += len("#undef")
                return UNDEF
            raise self.error(f"expected a value, found {self.found()}")
        if c.isdigit() or c in "-+." or self.at("Inf") or self.at("NaN"):
            num = self.number()
            if num is not None:
                return num
        word = self.match(_WORD)
        if word is None:
            raise self.error(f"expected a value, found {self.found()}")
        simple = _WORDS.get(word)
        if simple is not None:
            return simple(self)
        if self.peek() == "{":
            self.pos = start
            return self.type_from_text(self.balanced(",)] \t\r\n"))
        if self.peek() == "(":
            self.pos = start
            return IRLiteral(self.balanced(",)] \t\r\n"))
        return self.type_from_text(word)

    def number(self) -> Any:
        """A number at the read position, or None (position unchanged) if there is none."""
        start = self.pos
        hexa = self.match(_HEX)
        if hexa is not None:  # (an unsigned integer, its width given by its digits as in Julia)
            digits = len(hexa) - 2
            for width, t in ((2, np.uint8), (4, np.uint16), (8, np.uint32), (16, np.uint64)):
                if digits <= width:
                    return t(int(hexa, 16))
            self.pos = start
            return None
        tok = self.match(_NUMBER)
        if tok is None or (self.peek() and (self.peek().isalnum() or self.peek() in "_!")):
            self.pos = start
            return None
        if "Inf" in tok or "NaN" in tok:
            x = float(tok.rstrip("0123456789"))
            if tok.endswith("32"):
                return np.float32(x)
            return np.float16(x) if tok.endswith("16") else x
        if "f" in tok:
            return np.float32(tok.replace("f", "e"))
        if "." in tok or "e" in tok or "E" in tok:
            return float(tok)
        return int(tok)

    def char(self) -> Any:
        start = self.pos
        self.pos += 1
        if self.peek() == "\\":
            c = self.escape()
        elif self.peek():
            c = self.peek()
            self.pos += 1
        else:
            raise self.error("unterminated character literal", start)
        if self.peek() != "'":
            raise self.error("unterminated character literal", start)
        self.pos += 1
        return Char(c)

    def symbol(self) -> Any:
        start = self.pos
        self.pos += 1
        if self.peek() == "(":
            end = self.text.find(")", self.pos)
            if end < 0:
                raise self.error("unterminated `:(...)` symbol", start)
            name = self.text[self.pos + 1:end]
            self.pos = end + 1
            return Symbol(name)
        p = self.pos
        while p < len(self.text) and self.text[p] not in _SYMBOL_END:
            p += 1
        if p == self.pos:
            raise self.error("expected a symbol name after `:`", start)
        name = self.text[self.pos:p]
        self.pos = p
        return Symbol(name)

    def tuple_value(self) -> Any:
        """`()`, `(x,)`, `(x, y)`, or a named tuple `(a = x, b = y)`."""
        self.pos += 1
        items: list[Any] = []
        names: list[str] = []
        if self.accept(")"):
            return ()
        while True:
            self.skip_ws()
            m = _NT_NAME.match(self.text, self.pos)
            if m is not None and (names or not items):
                names.append(m.group(1))
                self.pos = m.end()
            elif names:
                raise self.error(f"expected `name = value` in a named tuple, found {self.found()}")
            items.append(self.attr_value())
            if self.accept(")"):
                break
            self.expect(",", " or `)` in a tuple")
            if self.accept(")"):
                break
        if names:
            return NamedTuple(tuple(names), tuple(items))
        return tuple(items)

    def call_args(self, what: str) -> list[Any]:
        """`(v, ...)` after a constructor-like word (`Symbol(...)`, `TypeVar(...)`)."""
        if self.peek() != "(":
            raise self.error(f"expected `(` after `{what}`, found {self.found()}")
        self.pos += 1
        out: list[Any] = []
        if self.accept(")"):
            return out
        while True:
            self.skip_ws()
            out.append(self.attr_value())
            if self.accept(")"):
                return out
            self.expect(",", f" or `)` in `{what}(...)`")

    # --- types -------------------------------------------------------------------------------

    def type_from_text(self, text: str) -> Any:
        """The type a printed type name stands for, or an IRLiteral of the text when it is
        not one the reader can rebuild exactly (so it always prints back the same)."""
        try:
            t = _TypeReader(text, self.types).read()
        except ValueError:
            return IRLiteral(text)
        return t if type_name(t) == text else IRLiteral(text)


def _colon(p: _Parser) -> Any:
    if p.call_args("Colon"):
        raise p.error("`Colon()` takes no arguments")
    return COLON


def _symbol_call(p: _Parser) -> Any:
    args = p.call_args("Symbol")
    if len(args) != 1 or not isinstance(args[0], str):
        raise p.error("`Symbol(...)` takes one string")
    return Symbol(args[0])


def _typevar(p: _Parser, word: str = "TypeVar") -> Any:
    """`TypeVar(:T[, ub])`, or `SelfRef(:Name)` for a struct's own name in its fields."""
    args = p.call_args(word)
    if not 1 <= len(args) <= 2 or not isinstance(args[0], Symbol):
        raise p.error(f"`{word}(...)` takes a symbol and an optional upper bound")
    cls = SelfRef if word == "SelfRef" else TypeVar
    return cls(args[0].name, args[1] if len(args) == 2 else None)


def _float16(p: _Parser) -> Any:
    args = p.call_args("Float16")
    if len(args) != 1 or not isinstance(args[0], (int, float)):
        raise p.error("`Float16(...)` takes a number")
    return np.float16(args[0])


_WORDS: dict[str, Callable[[_Parser], Any]] = {
    "true": lambda p: True,
    "false": lambda p: False,
    "nothing": lambda p: None,
    "Colon": _colon,
    "Symbol": _symbol_call,
    "TypeVar": _typevar,
    "SelfRef": lambda p: _typevar(p, "SelfRef"),
    "Float16": _float16,
}


class _TypeReader:
    """Rebuilds `Name`, `Name{P, ...}` from the names in `types` (ValueError if not)."""

    def __init__(self, text: str, types: Mapping[str, Any]) -> None:
        self.text = text
        self.pos = 0
        self.types = types

    def read(self) -> Any:
        t = self.param()
        if self.pos != len(self.text):
            raise ValueError(self.text)
        return t

    def param(self) -> Any:
        m = _INT.match(self.text, self.pos)
        if m is not None:
            self.pos = m.end()
            return int(m.group(0))
        m = _WORD.match(self.text, self.pos)
        if m is None:
            raise ValueError(self.text)
        self.pos = m.end()
        name = m.group(0)
        if name not in self.types and name not in ("Vector", "Matrix"):
            raise ValueError(name)
        if not self.text.startswith("{", self.pos):
            if name in ("Vector", "Matrix"):
                return self.types[name] if name in self.types else V.ArrayT
            return self.types[name]
        self.pos += 1
        params: list[Any] = []
        while True:
            params.append(self.param())
            if self.text.startswith("}", self.pos):
                self.pos += 1
                break
            if not self.text.startswith(", ", self.pos):
                raise ValueError(self.text)
            self.pos += 2
        if name in ("Vector", "Matrix"):
            if len(params) != 1:
                raise ValueError(self.text)
            return V.apply_type(V.ArrayT, (params[0], 1 if name == "Vector" else 2))
        base = self.types[name]
        if not isinstance(base, V.JType):
            raise ValueError(name)
        return V.apply_type(base.family, tuple(params))
