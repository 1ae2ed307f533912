"""Julia's code as data: `Expr`, `QuoteNode`, `LineNumberNode`, and the conversions
between them and Zyla's syntax tree (grammar.ast).

`to_expr` turns an AST node into the value Julia's parser gives for that code (one
entry per AST class in `_TO_EXPR`), `to_ast` turns such a value back into an AST node
(one entry per Expr head in `_TO_AST`; LineNumberNodes are dropped). A head `to_ast`
does not know is an `ErrorException` naming it, never a different program.

Quotes (`:(...)`, `quote ... end`) lower to a template, the Expr with a `_Hole` where
each `$x` stands, and a call of `Core.build_quote(template, values...)` that copies the
template with the values put in (`$(xs...)` splices). User macros (`macro m(x) ... end`)
are functions named `@m`; `expand_user_macro` calls one at lowering time with the call's
arguments as Exprs, applies Julia's hygiene and returns the AST to lower instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from grammar import ast as A
from grammar import unparse as U
from grammar.errors import SourceFile, ZylaError
from grammar.lexer import COMPOP, ELEMOF, OPERATORS, SUBTYPE
from lang.core import current, literals
from lang.core import values as V
from lang.core.eltypes import tag
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.show import CUSTOM_PRINT, CUSTOM_SHOW, jl_show

# --- the types --------------------------------------------------------------------------


def _struct_type(name: str, fields: list[str], types: list[Any], mutable: bool) -> V.JType:
    """A built-in struct type (a family of its own, below Any)."""
    t = V.JType(name, V.AnyT)
    t.fields, t.field_types, t.mutable, t.is_struct = fields, types, mutable, True
    return t


ExprT = _struct_type("Expr", ["head", "args"], [V.SymbolT, V.ArrayT[V.AnyT, 1]], True)
QuoteNodeT = _struct_type("QuoteNode", ["value"], [V.AnyT], False)
LineNumberNodeT = _struct_type("LineNumberNode", ["line", "file"], [V.Int64T, V.AnyT], False)


def any_vector(items: list) -> np.ndarray:
    """A `Vector{Any}` holding items."""
    out = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        out[i] = x
    return tag(out, V.AnyT)


def make_expr(head: str, args: list) -> V.StructValue:
    """`Expr(Symbol(head), args...)`."""
    return V.StructValue(ExprT, [V.Symbol(head), any_vector(args)])


def quote_node(x: Any) -> V.StructValue:
    return V.StructValue(QuoteNodeT, [x])


def line_node(line: int, file: str) -> V.StructValue:
    return V.StructValue(LineNumberNodeT, [line, V.Symbol(file)])


def is_expr(x: Any, head: str | None = None) -> bool:
    """Whether x is an Expr (with that head, when given)."""
    return (type(x) is V.StructValue and x.type is ExprT
            and (head is None or x.fields[0].name == head))


def _is(x: Any, t: V.JType) -> bool:
    return type(x) is V.StructValue and x.type is t


def head_of(x: V.StructValue) -> str:
    return x.fields[0].name


def args_of(x: V.StructValue) -> list:
    return list(x.fields[1])


def _construct_expr(t: V.JType, args: list, kwargs: dict | None) -> V.StructValue:
    """`Expr(head::Symbol, args...)`."""
    if kwargs or not args or type(args[0]) is not V.Symbol:
        raise ZylaError("MethodError", "no method matching Expr(" + ", ".join(
            "::" + V.type_name(typeof(a)) for a in args) + ")",
            hint="Expr(head::Symbol, args...)")
    return make_expr(args[0].name, list(args[1:]))


def _construct_line(t: V.JType, args: list, kwargs: dict | None) -> V.StructValue:
    """`LineNumberNode(line)`, `LineNumberNode(line, file)`."""
    if kwargs or len(args) not in (1, 2) or type(args[0]) is not int:
        raise ZylaError("MethodError", "no method matching LineNumberNode with these arguments")
    return V.StructValue(LineNumberNodeT, [args[0], args[1] if len(args) == 2 else None])


def _expr_key(x: V.StructValue, key: Callable[[Any], Any]) -> tuple:
    """An Expr as a Dict key or Set element (`key` gives its parts'): by value, as
    Julia hashes it."""
    return ("Expr", x.fields[0], key(x.fields[1]))


ExprT.constructor = _construct_expr  # type: ignore[attr-defined]
ExprT.isequal_key = _expr_key  # type: ignore[attr-defined]
QuoteNodeT.isequal_key = lambda x, key: ("QuoteNode", key(x.fields[0]))  # type: ignore[attr-defined]
LineNumberNodeT.constructor = _construct_line  # type: ignore[attr-defined]


# --- AST -> Expr ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hole:
    """Where the value of the `index`th `$` of a quote goes (`splat`: `$(xs...)`)."""

    index: int
    splat: bool = False


class _ToExpr:
    """One conversion: the file name for LineNumberNodes, and, for a quote template,
    the interpolated nodes found so far (`holes`) and the quote depth."""

    def __init__(self, file: str, template: bool = False) -> None:
        self.file = file
        self.template = template
        self.holes: list[A.Node] = []
        self.depth = 0

    def __call__(self, n: Any) -> Any:
        f = _TO_EXPR.get(type(n))
        if f is None:
            raise ZylaError("ErrorException",
                            f"{type(n).__name__} syntax cannot be quoted in Zyla", n.span)
        return f(self, n)

    def line(self, n: A.Node) -> V.StructValue:
        return line_node(n.span.line, self.file)

    def block(self, n: A.Node) -> V.StructValue:
        """A body as Julia's `:block`: a LineNumberNode before each statement."""
        stmts = n.stmts if isinstance(n, A.Block) else [n]
        args: list = []
        for s in stmts:
            args += [self.line(s), self(s)]
        return make_expr("block", args)

    def all(self, xs: list) -> list:
        return [self(x) for x in xs]


def _lit(c: _ToExpr, n: A.Literal) -> Any:
    if n.kind == "Symbol":
        return quote_node(V.Symbol(n.value))
    if n.kind == "Nothing":
        return V.Symbol("nothing")
    return literals.make(n.value, n.kind)


_FLATTENED = frozenset({"+", "*"})


def _call(c: _ToExpr, n: A.Call) -> Any:
    f = n.func
    if isinstance(f, A.Ident) and f.name == "adjoint" and len(n.args) == 1 and not n.kwargs:
        return make_expr("'", [c(n.args[0])])
    args = list(n.args)
    if isinstance(f, A.Ident) and f.name in _FLATTENED and len(args) == 2 and not n.kwargs:
        first = args[0]
        if (isinstance(first, A.Call) and isinstance(first.func, A.Ident) and not first.grouped
                and first.func.name == f.name and len(first.args) >= 2 and not first.kwargs):
            inner = _call(c, first)  # `a + b + c` is one call, as Julia parses it
            return make_expr("call", args_of(inner) + [c(args[1])])
    out = [c(f)]
    if n.kwargs:
        out.append(make_expr("parameters", [_kw(c, k) for k in n.kwargs]))
    return make_expr("call", out + c.all(args))


def _kw(c: _ToExpr, k: A.Kwarg) -> Any:
    if k.name is None:
        return c(k.value)
    return make_expr("kw", [V.Symbol(k.name), c(k.value)])


def _bcast(c: _ToExpr, n: A.Broadcast) -> Any:
    f = n.func
    if isinstance(f, A.Ident) and not f.name.isidentifier():
        return make_expr("call", [V.Symbol("." + f.name)] + c.all(n.args))
    args = c.all(n.args)
    if n.kwargs:
        args = [make_expr("parameters", [_kw(c, k) for k in n.kwargs])] + args
    return make_expr(".", [c(f), make_expr("tuple", args)])


def _cmp(c: _ToExpr, n: A.Comparison) -> Any:
    if len(n.ops) == 1:
        return make_expr("call", [_op_symbol(n.ops[0]), c(n.operands[0]), c(n.operands[1])])
    out: list = [c(n.operands[0])]
    for op, x in zip(n.ops, n.operands[1:], strict=True):
        out += [_op_symbol(op), c(x)]
    return make_expr("comparison", out)


def _op_symbol(op: str) -> V.Symbol:
    return V.Symbol(op)


def _param(c: _ToExpr, p: A.Param) -> Any:
    """A parameter in a signature: `x`, `x::T`, `::T`, `x = d`, `xs...`."""
    if p.pattern is not None:
        x = c(p.pattern)
    else:
        x = V.Symbol(p.name) if p.name is not None else None
    if p.type is not None:
        x = make_expr("::", [c(p.type)] if x is None else [x, c(p.type)])
    if p.vararg:
        x = make_expr("...", [x])
    if p.default is not None:
        x = make_expr("kw", [x, c(p.default)])
    return x


def _signature(c: _ToExpr, n: A.FunctionDef) -> Any:
    head: Any = V.Symbol(n.name) if n.name is not None else _param(c, n.receiver)  # type: ignore[arg-type]
    if n.name_expr is not None:
        head = c(n.name_expr)
    elif n.name is not None and "." in n.name:
        mod, _, base = n.name.rpartition(".")
        head = make_expr(".", [_dotted(mod), quote_node(V.Symbol(base))])
    if n.type_params:
        head = make_expr("curly", [head] + c.all(n.type_params))
    args = [_param(c, p) for p in n.params]
    if n.kwparams:
        args = [make_expr("parameters", [_param(c, p) for p in n.kwparams])] + args
    sig = make_expr("call", [head] + args)
    if n.return_type is not None:
        sig = make_expr("::", [sig, c(n.return_type)])
    if n.where:
        sig = make_expr("where", [sig] + [_where_item(c, w) for w in n.where])
    return sig


def _dotted(name: str) -> Any:
    """`A.B.c` as nested `:.` Exprs."""
    parts = name.split(".")
    x: Any = V.Symbol(parts[0])
    for p in parts[1:]:
        x = make_expr(".", [x, quote_node(V.Symbol(p))])
    return x


def _where_item(c: _ToExpr, w: A.Node) -> Any:
    if isinstance(w, A.Call) and isinstance(w.func, A.Ident) and w.func.name in ("<:", ">:"):
        return make_expr(w.func.name, c.all(w.args))
    if isinstance(w, A.Comparison) and len(w.ops) == 1 and w.ops[0] in ("<:", ">:"):
        return make_expr(w.ops[0], c.all(w.operands))
    return c(w)


def _fundef(c: _ToExpr, n: A.FunctionDef) -> Any:
    return make_expr("function" if n.long else "=", [_signature(c, n), c.block(n.body)])


def _lambda(c: _ToExpr, n: A.Lambda) -> Any:
    params = [_param(c, p) for p in n.params]
    if n.kwparams:
        params = [make_expr("parameters", [_param(c, p) for p in n.kwparams])] + params
    lhs = params[0] if len(params) == 1 and not n.kwparams else make_expr("tuple", params)
    return make_expr("->", [lhs, c.block(n.body)])


def _if(c: _ToExpr, n: A.If, head: str = "if") -> Any:
    cond = c(n.cond) if head == "if" else make_expr("block", [c.line(n.cond), c(n.cond)])
    out = [cond, c.block(n.then)]
    if isinstance(n.other, A.If):
        out.append(_if(c, n.other, "elseif"))
    elif n.other is not None:
        out.append(c.block(n.other))
    return make_expr(head, out)


def _iter(c: _ToExpr, it: tuple[A.Node, A.Node]) -> Any:
    return make_expr("=", [c(it[0]), c(it[1])])


def _for(c: _ToExpr, n: A.For) -> Any:
    its = [_iter(c, it) for it in n.iterators]
    spec = its[0] if len(its) == 1 else make_expr("block", its)
    return make_expr("for", [spec, c.block(n.body)])


def _matrix(c: _ToExpr, n: A.MatrixLit) -> Any:
    if len(n.rows) == 1:
        out = make_expr("hcat", c.all(n.rows[0]))
    elif all(len(r) == 1 for r in n.rows):
        out = make_expr("vcat", [c(r[0]) for r in n.rows])
    else:
        out = make_expr("vcat", [make_expr("row", c.all(r)) if len(r) > 1 else c(r[0])
                                 for r in n.rows])
    if n.eltype is not None:
        h = "typed_" + head_of(out)
        return make_expr(h, [c(n.eltype)] + args_of(out))
    return out


def _vector(c: _ToExpr, n: A.VectorLit) -> Any:
    if n.eltype is not None:
        return make_expr("ref", [c(n.eltype)] + c.all(n.items))
    return make_expr("vect", c.all(n.items))


def _comprehension(c: _ToExpr, n: A.Comprehension) -> Any:
    its = [_iter(c, it) for it in n.iterators]
    if n.cond is not None:
        its = [make_expr("filter", [c(n.cond)] + its)]
    gen = make_expr("generator", [c(n.expr)] + its)
    return gen if n.generator else make_expr("comprehension", [gen])


def _let(c: _ToExpr, n: A.Let) -> Any:
    binds = c.all(n.bindings)
    spec = binds[0] if len(binds) == 1 else make_expr("block", binds)
    return make_expr("let", [spec, c.block(n.body)])


def _try(c: _ToExpr, n: A.Try) -> Any:
    out = [c.block(n.body), V.Symbol(n.var) if n.var else False,
           c.block(n.catch_body) if n.catch_body is not None else False]
    if n.finally_body is not None:
        out.append(c.block(n.finally_body))
    return make_expr("try", out)


def _struct(c: _ToExpr, n: A.StructDef) -> Any:
    name: Any = V.Symbol(n.name)
    if n.params:
        name = make_expr("curly", [name] + c.all(n.params))
    if n.supertype is not None:
        name = make_expr("<:", [name, c(n.supertype)])
    body: list = []
    for fname, ftype in n.fields:
        body += [line_node(n.span.line, c.file),
                 make_expr("::", [V.Symbol(fname), c(ftype)]) if ftype else V.Symbol(fname)]
    for ctor in n.constructors:
        body += [c.line(ctor), c(ctor)]
    return make_expr("struct", [n.mutable, name, make_expr("block", body)])


def _quote(c: _ToExpr, n: A.Quote) -> Any:
    c.depth += 1
    try:
        inner = c.block(n.body) if isinstance(n.body, A.Block) else c(n.body)
    finally:
        c.depth -= 1
    return make_expr("quote", [inner])


def _interp(c: _ToExpr, n: A.Interpolation) -> Any:
    if c.template and c.depth == 0:
        splat = isinstance(n.value, A.TupleLit) and len(n.value.items) == 1 and isinstance(
            n.value.items[0], A.Splat)
        c.holes.append(n.value.items[0].value if splat else n.value)  # type: ignore[attr-defined]
        return _Hole(len(c.holes) - 1, splat)
    c.depth -= 1
    try:
        return make_expr("$", [c(n.value)])
    finally:
        c.depth += 1


def _macrocall(c: _ToExpr, n: A.MacroCall) -> Any:
    mod, _, base = n.name.rpartition(".")
    name: Any = V.Symbol("@" + base)
    if mod:
        name = make_expr(".", [_dotted(mod), quote_node(name)])
    return make_expr("macrocall", [name, c.line(n)] + c.all(n.args))


def _macrodef(c: _ToExpr, n: A.MacroDef) -> Any:
    sig = make_expr("call", [V.Symbol(n.name)] + [_param(c, p) for p in n.params])
    return make_expr("macro", [sig, c.block(n.body)])


def _string(c: _ToExpr, n: A.StringInterp) -> Any:
    return make_expr("string", [p if isinstance(p, str) else c(p) for p in n.parts])


def _named_tuple(c: _ToExpr, n: A.NamedTupleLit) -> Any:
    return make_expr("tuple", [make_expr("=", [V.Symbol(k), c(v)])
                               for k, v in zip(n.names, n.values, strict=True)])


def _value(c: _ToExpr, n: A.Literal) -> Any:
    return n.value


_TO_EXPR: dict[type, Callable[[_ToExpr, Any], Any]] = {
    A.Literal: lambda c, n: n.value if n.kind == _VALUE else _lit(c, n),
    A.Ident: lambda c, n: V.Symbol(n.name),
    A.EndMarker: lambda c, n: V.Symbol("begin" if n.first else "end"),
    A.Colon: lambda c, n: V.Symbol(":"),
    A.Splat: lambda c, n: make_expr("...", [c(n.value)]),
    A.Kwarg: _kw,
    A.Call: _call,
    A.Broadcast: _bcast,
    A.Comparison: _cmp,
    A.And: lambda c, n: make_expr("&&", [c(n.left), c(n.right)]),
    A.Or: lambda c, n: make_expr("||", [c(n.left), c(n.right)]),
    A.Ternary: lambda c, n: make_expr("if", [c(n.cond), c(n.then), c(n.other)]),
    A.Index: lambda c, n: make_expr("ref", [c(n.obj)] + c.all(n.indices)),
    A.Dot: lambda c, n: make_expr(".", [c(n.obj), quote_node(V.Symbol(n.name))]),
    A.Curly: lambda c, n: make_expr("curly", [c(n.obj)] + c.all(n.params)),
    A.Where: lambda c, n: make_expr("where", [c(n.expr)] + [_where_item(c, w)
                                                             for w in n.params]),
    A.TypeAssert: lambda c, n: make_expr("::", [c(n.value), c(n.type)]),
    A.MacroCall: _macrocall,
    A.TupleLit: lambda c, n: make_expr("tuple", c.all(n.items)),
    A.NamedTupleLit: _named_tuple,
    A.VectorLit: _vector,
    A.MatrixLit: _matrix,
    A.Comprehension: _comprehension,
    A.Param: _param,
    A.Lambda: _lambda,
    A.FunctionDef: _fundef,
    A.Block: lambda c, n: c.block(n),
    A.Assign: lambda c, n: make_expr("=", [c(n.target), c(n.value)]),
    A.OpAssign: lambda c, n: make_expr(n.op + "=", [c(n.target), c(n.value)]),
    A.BroadcastAssign: lambda c, n: make_expr(".=", [c(n.target), c(n.value)]),
    A.If: _if,
    A.For: _for,
    A.While: lambda c, n: make_expr("while", [c(n.cond), c.block(n.body)]),
    A.Break: lambda c, n: make_expr("break", []),
    A.Continue: lambda c, n: make_expr("continue", []),
    A.Return: lambda c, n: make_expr("return", [c(n.value) if n.value is not None
                                                else V.Symbol("nothing")]),
    A.Let: _let,
    A.Try: _try,
    A.Const: lambda c, n: make_expr("const", [c(n.value)]),
    A.Global: lambda c, n: make_expr("global", c.all(n.names)),
    A.Local: lambda c, n: make_expr("local", c.all(n.names)),
    A.StructDef: _struct,
    A.Quote: _quote,
    A.Interpolation: _interp,
    A.StringInterp: _string,
    A.MacroDef: _macrodef,
}

#: the kind of an AST Literal that holds any value as it is (a value put into code by
#: `$x` or by `Expr(...)`: a function, an array)
_VALUE = "Value"


def to_expr(n: A.Node, file: str = "none") -> Any:
    """The Expr (Symbol, literal) Julia's parser gives for the code n."""
    return _ToExpr(file)(n)


def quote_template(body: A.Node, file: str) -> tuple[Any, list[A.Node]]:
    """The template of a quote of `body` and the nodes of its `$` interpolations."""
    c = _ToExpr(file, template=True)
    x = c.block(body) if isinstance(body, A.Block) else c(body)
    return x, c.holes


def build_quote(template: Any, *values: Any) -> Any:
    """A fresh copy of a quote's template with the interpolated values put in."""
    if type(template) is _Hole:
        if template.splat:
            raise ZylaError("ErrorException", '"..." expression outside call')
        return values[template.index]
    if not is_expr(template):
        return template
    out: list = []
    for a in template.fields[1]:
        if type(a) is _Hole and a.splat:
            out += current.runtime().iterate_all(values[a.index])
        elif type(a) is V.StructValue and a.type is QuoteNodeT:
            out.append(quote_node(build_quote(a.fields[0], *values)))
        else:
            out.append(build_quote(a, *values))
    return make_expr(head_of(template), out)


def copy_expr(x: Any) -> Any:
    """Julia's `copy` of an Expr: its Expr arguments copied too."""
    if not is_expr(x):
        return x
    return make_expr(head_of(x), [copy_expr(a) for a in x.fields[1]])


# --- Expr -> AST ------------------------------------------------------------------------


class _ToAst:
    """One conversion back to syntax; `span` is given to every node made."""

    def __init__(self, span: A.Span = A.NOSPAN) -> None:
        self.span = span

    def __call__(self, x: Any) -> A.Node:
        t = type(x)
        if t is V.Symbol:
            return self.symbol(x.name)
        if t is V.StructValue:
            if x.type is ExprT:
                f = _TO_AST.get(head_of(x))
                if f is None:
                    raise ZylaError("ErrorException",
                                    f"Zyla cannot turn an Expr with head :{head_of(x)} into "
                                    "code", _at(self.span))
                return f(self, args_of(x))
            if x.type is QuoteNodeT:
                v = x.fields[0]
                if type(v) is V.Symbol:
                    return A.Literal(v.name, "Symbol", span=self.span)
                return A.Literal(v, _VALUE, span=self.span)
            if x.type is LineNumberNodeT:
                return A.Literal(None, "Nothing", span=self.span)
        kind = _LITERAL_KINDS.get(t)
        if kind is not None:
            return A.Literal(x.value if t is V.Char else x, kind, span=self.span)
        return A.Literal(x, _VALUE, span=self.span)

    def symbol(self, name: str) -> A.Node:
        if name == "nothing":
            return A.Literal(None, "Nothing", span=self.span)
        if name in ("true", "false"):
            return A.Literal(name == "true", "Bool", span=self.span)
        return A.Ident(name, span=self.span)

    def all(self, xs: list) -> list[A.Node]:
        return [self(x) for x in xs if not _is(x, LineNumberNodeT)]

    def block(self, x: Any) -> A.Block:
        if is_expr(x, "block"):
            return A.Block(self.stmts(args_of(x)), span=self.span)
        return A.Block([self(x)], span=self.span)

    def stmts(self, xs: list) -> list[A.Node]:
        out: list[A.Node] = []
        for x in xs:
            if _is(x, LineNumberNodeT):
                if x.fields[0] > 0:
                    self.span = A.Span(x.fields[0], 1)
                continue
            out.append(self(x))
        return out

    def name(self, x: Any, what: str) -> str:
        if type(x) is not V.Symbol:
            raise ZylaError("ErrorException", f"expected a name for {what}, got "
                            f"{_text_of(x)}", _at(self.span))
        return x.name

    def node(self, cls: type, *args: Any, **kw: Any) -> Any:
        return cls(*args, span=self.span, **kw)


def _at(span: A.Span) -> A.Span | None:
    """An error's location in code made from an Expr: none where it had no line (then
    the error is located where the code is run)."""
    return span if span.line > 0 else None


_LITERAL_KINDS = {int: "Int64", float: "Float64", bool: "Bool", str: "String",
                  V.Char: "Char", type(None): "Nothing", np.float32: "Float32"}


def _split_params(c: _ToAst, args: list) -> tuple[list, list[A.Kwarg]]:
    """A call's arguments and its keyword arguments (`:parameters` and `:kw`)."""
    pos: list = []
    kws: list[A.Kwarg] = []
    for a in args:
        if is_expr(a, "parameters"):
            for p in args_of(a):
                kws.append(_kwarg(c, p))
        elif is_expr(a, "kw"):
            kws.append(_kwarg(c, a))
        else:
            pos.append(c(a))
    return pos, kws


def _kwarg(c: _ToAst, p: Any) -> A.Kwarg:
    if is_expr(p, "kw") or is_expr(p, "="):
        k, v = args_of(p)
        return c.node(A.Kwarg, c.name(k, "a keyword argument"), c(v))
    if is_expr(p, "..."):
        return c.node(A.Kwarg, None, c(p))
    if type(p) is V.Symbol:
        return c.node(A.Kwarg, p.name, c.symbol(p.name))
    raise ZylaError("ErrorException", f"invalid keyword argument {_text_of(p)}", _at(c.span))


#: the operators a `:call` turns back into a comparison (every one the lexer reads as such)
_COMPARISONS = frozenset(op for op, kind in OPERATORS.items()
                         if kind in (COMPOP, ELEMOF, SUBTYPE) and op[0] != ".") | {"isa", "in"}


def _a_call(c: _ToAst, args: list) -> A.Node:
    f = args[0]
    if type(f) is V.Symbol:
        name = f.name
        pos, kws = _split_params(c, args[1:])
        if name in _COMPARISONS and len(pos) == 2 and not kws:
            return c.node(A.Comparison, pos, [name])
        if name[:1] == "." and len(name) > 1 and not name[1:].isidentifier() and not kws:
            return c.node(A.Broadcast, c.node(A.Ident, name[1:]), pos)
        # (a nested call is explicit in an Expr: `(a + b) + c` is not `a + b + c`)
        return c.node(A.Call, c.node(A.Ident, name), pos, kws, grouped=True)
    pos, kws = _split_params(c, args[1:])
    return c.node(A.Call, c(f), pos, kws)


def _a_dot(c: _ToAst, args: list) -> A.Node:
    obj, field = args
    if is_expr(field, "tuple"):
        pos, kws = _split_params(c, args_of(field))
        return c.node(A.Broadcast, c(obj), pos, kws)
    if _is(field, QuoteNodeT) and type(field.fields[0]) is V.Symbol:
        return c.node(A.Dot, c(obj), field.fields[0].name)
    raise ZylaError("ErrorException", f"invalid field access {_text_of(field)}", _at(c.span))


def _a_comparison(c: _ToAst, args: list) -> A.Node:
    return c.node(A.Comparison, c.all(args[0::2]), [c.name(op, "a comparison")
                                                     for op in args[1::2]])


def _a_param(c: _ToAst, x: Any) -> A.Param:
    """A parameter of a signature or a lambda."""
    if type(x) is V.Symbol:
        return c.node(A.Param, x.name)
    if is_expr(x, "::"):
        a = args_of(x)
        if len(a) == 1:
            return c.node(A.Param, None, c(a[0]))
        p = _a_param(c, a[0])
        p.type = c(a[1])
        return p
    if is_expr(x, "..."):
        p = _a_param(c, args_of(x)[0])
        p.vararg = True
        return p
    if is_expr(x, "kw") or is_expr(x, "="):
        a = args_of(x)
        p = _a_param(c, a[0])
        p.default = c(a[1])
        return p
    raise ZylaError("ErrorException", f"invalid function parameter {_text_of(x)}", _at(c.span))


def _a_params(c: _ToAst, xs: list) -> tuple[list[A.Param], list[A.Param]]:
    params: list[A.Param] = []
    kw: list[A.Param] = []
    for x in xs:
        if is_expr(x, "parameters"):
            kw += [_a_param(c, p) for p in args_of(x)]
        else:
            params.append(_a_param(c, x))
    return params, kw


def _a_function(c: _ToAst, args: list, long: bool = True) -> A.Node:
    sig, body = args[0], c.block(args[1]) if len(args) > 1 else A.Block([])
    where: list[A.Node] = []
    rtype = None
    while True:
        if is_expr(sig, "where"):
            a = args_of(sig)
            where = c.all(a[1:]) + where
            sig = a[0]
        elif is_expr(sig, "::") and len(args_of(sig)) == 2 and is_expr(args_of(sig)[0], "call"):
            sig, t = args_of(sig)
            rtype = c(t)
        else:
            break
    if is_expr(sig, "tuple") or type(sig) is V.Symbol:  # `function (x) ... end`
        params, kw = _a_params(c, args_of(sig) if is_expr(sig, "tuple") else [sig])
        return c.node(A.Lambda, params, body, kw)
    if not is_expr(sig, "call"):
        raise ZylaError("ErrorException", f"invalid function signature {_text_of(sig)}",
                        _at(c.span))
    head, *rest = args_of(sig)
    params, kw = _a_params(c, rest)
    type_params: list[A.Node] = []
    if is_expr(head, "curly"):
        head, *tp = args_of(head)
        type_params = c.all(tp)
    receiver = None
    if type(head) is V.Symbol:
        name: str | None = head.name
    elif is_expr(head, "."):
        name = U.unparse(c(head))
    else:
        name, receiver = None, _a_param(c, head)
    return c.node(A.FunctionDef, name, params, body, kw, receiver, where, rtype, type_params,
                  long=long)


def _a_assign(c: _ToAst, args: list) -> A.Node:
    lhs, rhs = args
    if is_expr(lhs, "call") or (is_expr(lhs, "where")) or (
            is_expr(lhs, "::") and len(args_of(lhs)) == 2 and is_expr(args_of(lhs)[0], "call")):
        return _a_function(c, [lhs, rhs], long=False)
    return c.node(A.Assign, c(lhs), c(rhs))


def _a_arrow(c: _ToAst, args: list) -> A.Node:
    lhs, body = args
    params, kw = _a_params(c, args_of(lhs) if is_expr(lhs, "tuple") else [lhs])
    b = c.block(body)
    return c.node(A.Lambda, params, b.stmts[0] if len(b.stmts) == 1 else b, kw)


def _a_if(c: _ToAst, args: list) -> A.Node:
    cond = c(args[0]) if not is_expr(args[0], "block") else c.block(args[0])
    if isinstance(cond, A.Block) and len(cond.stmts) == 1:
        cond = cond.stmts[0]
    other = None
    if len(args) > 2:
        other = _a_if(c, args_of(args[2])) if is_expr(args[2], "elseif") else c.block(args[2])
    return c.node(A.If, cond, c.block(args[1]), other)


def _iters(c: _ToAst, spec: Any) -> list[tuple[A.Node, A.Node]]:
    specs = args_of(spec) if is_expr(spec, "block") else [spec]
    out = []
    for s in specs:
        if _is(s, LineNumberNodeT):
            continue
        if not (is_expr(s, "=") or is_expr(s, "in")) and not (
                is_expr(s, "call") and args_of(s)[0] in (V.Symbol("in"), V.Symbol("∈"))):
            raise ZylaError("ErrorException", f"invalid iteration specification "
                            f"{_text_of(s)}", _at(c.span))
        a = args_of(s)[-2:]
        out.append((c(a[0]), c(a[1])))
    return out


def _a_generator(c: _ToAst, args: list, generator: bool = True) -> A.Node:
    expr, *specs = args
    cond = None
    if len(specs) == 1 and is_expr(specs[0], "filter"):
        cond_x, *specs = args_of(specs[0])
        cond = c(cond_x)
    its = [it for s in specs for it in _iters(c, s)]
    return c.node(A.Comprehension, c(expr), its, cond, generator)


def _a_let(c: _ToAst, args: list) -> A.Node:
    spec = args[0]
    binds = c.all(args_of(spec)) if is_expr(spec, "block") else [c(spec)]
    return c.node(A.Let, binds, c.block(args[1]))


def _a_try(c: _ToAst, args: list) -> A.Node:
    var = args[1].name if type(args[1]) is V.Symbol else None
    catch = c.block(args[2]) if is_expr(args[2]) else (A.Block([]) if var else None)
    fin = c.block(args[3]) if len(args) > 3 and is_expr(args[3]) else None
    return c.node(A.Try, c.block(args[0]), var, catch, fin)


def _a_struct(c: _ToAst, args: list) -> A.Node:
    mutable, name, body = args
    sup = None
    if is_expr(name, "<:"):
        name, sup_x = args_of(name)
        sup = c(sup_x)
    params: list[A.Node] = []
    if is_expr(name, "curly"):
        name, *ps = args_of(name)
        params = c.all(ps)
    fields: list[tuple[str, A.Node | None]] = []
    ctors: list[A.FunctionDef] = []
    for x in c.stmts(args_of(body)) if is_expr(body, "block") else []:
        if isinstance(x, A.FunctionDef):
            ctors.append(x)
        elif isinstance(x, A.TypeAssert) and isinstance(x.value, A.Ident):
            fields.append((x.value.name, x.type))
        elif isinstance(x, A.Ident):
            fields.append((x.name, None))
        else:
            raise ZylaError("ErrorException", "invalid struct field in an Expr", _at(c.span))
    return c.node(A.StructDef, c.name(name, "a struct"), fields, bool(mutable), params, sup,
                  ctors)


def _a_macrocall(c: _ToAst, args: list) -> A.Node:
    name = U.unparse(c(args[0]))
    mod, _, base = name.rpartition(".")
    if not base.startswith("@"):
        raise ZylaError("ErrorException", f"invalid macro name {name}", _at(c.span))
    return c.node(A.MacroCall, (mod + "." if mod else "") + base[1:], c.all(args[1:]))


def _a_macro(c: _ToAst, args: list) -> A.Node:
    sig, body = args
    if not is_expr(sig, "call") or type(args_of(sig)[0]) is not V.Symbol:
        raise ZylaError("ErrorException", "invalid macro definition in an Expr", _at(c.span))
    params, _ = _a_params(c, args_of(sig)[1:])
    return c.node(A.MacroDef, args_of(sig)[0].name, params, c.block(body))


def _a_tuple(c: _ToAst, args: list) -> A.Node:
    if args and all(is_expr(a, "=") for a in args):
        return c.node(A.NamedTupleLit, [c.name(args_of(a)[0], "a named tuple field")
                                        for a in args], [c(args_of(a)[1]) for a in args])
    return c.node(A.TupleLit, c.all(args))


def _a_quote(c: _ToAst, args: list) -> A.Node:
    body = args[0]
    return c.node(A.Quote, c.block(body) if is_expr(body, "block") else c(body))


def _a_dollar(c: _ToAst, args: list) -> A.Node:
    return c.node(A.Interpolation, c(args[0]))


def _a_rows(c: _ToAst, args: list, eltype: A.Node | None = None) -> A.Node:
    rows = [c.all(args_of(r)) if is_expr(r, "row") else [c(r)] for r in args]
    return c.node(A.MatrixLit, rows, eltype)


def _a_opassign(op: str) -> Callable[[_ToAst, list], A.Node]:
    return lambda c, a: c.node(A.OpAssign, c(a[0]), op, c(a[1]))


def _a_string(c: _ToAst, args: list) -> A.Node:
    return c.node(A.StringInterp, [a if isinstance(a, str) else c(a) for a in args])


def _a_ref(c: _ToAst, args: list) -> A.Node:
    obj, *idx = args
    return c.node(A.Index, c(obj), [_index(c, i) for i in idx])


def _index(c: _ToAst, i: Any) -> A.Node:
    if i == V.Symbol("end"):
        return c.node(A.EndMarker)
    if i == V.Symbol("begin"):
        return c.node(A.EndMarker, first=True)
    if i == V.Symbol(":"):
        return c.node(A.Colon)
    return c(i)


def _a_block(c: _ToAst, args: list) -> A.Node:
    return A.Block(c.stmts(args), span=c.span)


def _a_toplevel(c: _ToAst, args: list) -> A.Node:
    return A.Block(c.stmts(args), span=c.span)


def _a_escape(c: _ToAst, args: list) -> A.Node:
    return c(args[0])


_OPASSIGN_OPS = ("+", "-", "*", "/", "^", "÷", "%", "\\", "&", "|", "⊻", "<<", ">>", "//",
                 ".+", ".-", ".*", "./", ".^")

_TO_AST: dict[str, Callable[[_ToAst, list], A.Node]] = {
    "call": _a_call,
    ".": _a_dot,
    "comparison": _a_comparison,
    "&&": lambda c, a: c.node(A.And, c(a[0]), c(a[1])),
    "||": lambda c, a: c.node(A.Or, c(a[0]), c(a[1])),
    "if": lambda c, a: (_a_if(c, a) if is_expr(a[1], "block") or len(a) == 2
                        else c.node(A.Ternary, c(a[0]), c(a[1]), c(a[2]))),
    "elseif": _a_if,
    "ref": _a_ref,
    "curly": lambda c, a: c.node(A.Curly, c(a[0]), c.all(a[1:])),
    "where": lambda c, a: c.node(A.Where, c(a[0]), c.all(a[1:])),
    "<:": lambda c, a: c.node(A.Call, c.node(A.Ident, "<:"), c.all(a)),
    ">:": lambda c, a: c.node(A.Call, c.node(A.Ident, ">:"), c.all(a)),
    "::": lambda c, a: (c.node(A.TypeAssert, c(a[0]), c(a[1])) if len(a) == 2
                        else c.node(A.Param, None, c(a[0]))),  # (`::T`, a parameter)
    "'": lambda c, a: c.node(A.Call, c.node(A.Ident, "adjoint"), c.all(a)),
    "macrocall": _a_macrocall,
    "tuple": _a_tuple,
    "vect": lambda c, a: c.node(A.VectorLit, c.all(a)),
    "hcat": lambda c, a: c.node(A.MatrixLit, [c.all(a)]),
    "vcat": _a_rows,
    "typed_hcat": lambda c, a: c.node(A.MatrixLit, [c.all(a[1:])], c(a[0])),
    "typed_vcat": lambda c, a: _a_rows(c, a[1:], c(a[0])),
    "comprehension": lambda c, a: _a_generator(c, args_of(a[0]), generator=False),
    "generator": _a_generator,
    "...": lambda c, a: c.node(A.Splat, c(a[0])),
    "->": _a_arrow,
    "function": _a_function,
    "=": _a_assign,
    ".=": lambda c, a: c.node(A.BroadcastAssign, c(a[0]), c(a[1])),
    **{op + "=": _a_opassign(op) for op in _OPASSIGN_OPS},
    "block": _a_block,
    "toplevel": _a_toplevel,
    "for": lambda c, a: c.node(A.For, _iters(c, a[0]), c.block(a[1])),
    "while": lambda c, a: c.node(A.While, c(a[0]), c.block(a[1])),
    "break": lambda c, a: c.node(A.Break),
    "continue": lambda c, a: c.node(A.Continue),
    "return": lambda c, a: c.node(A.Return, c(a[0]) if a else None),
    "let": _a_let,
    "try": _a_try,
    "const": lambda c, a: c.node(A.Const, c(a[0])),
    "global": lambda c, a: c.node(A.Global, c.all(a)),
    "local": lambda c, a: c.node(A.Local, c.all(a)),
    "struct": _a_struct,
    "quote": _a_quote,
    "$": _a_dollar,
    "string": _a_string,
    "macro": _a_macro,
    "escape": _a_escape,
}


def to_ast(x: Any, span: A.Span = A.NOSPAN) -> A.Node:
    """The code an Expr (Symbol, literal) stands for; LineNumberNodes give the spans."""
    return _ToAst(span)(x)


# --- printing ---------------------------------------------------------------------------


def _text_of(x: Any) -> str:
    """A short text of any code value, for error messages."""
    try:
        return expr_text(x)
    except ZylaError:
        return f"Expr(:{head_of(x)}, ...)" if is_expr(x) else repr(x)


def _line_text(x: V.StructValue) -> str:
    file = x.fields[1]
    name = file.name if type(file) is V.Symbol else "none"
    return f"#= {name}:{x.fields[0]} =#"


_INDENT = "    "

#: the heads printed as indented blocks, with the keyword that opens them
_BLOCK_HEADS = {"block": "begin", "=": "", "quote": "quote", "for": "for", "while": "while",
                "function": "function", "let": "let", "macro": "macro", "if": "if",
                "try": "try", "struct": "struct"}


def _body_lines(x: Any, ind: str) -> list[str]:
    stmts = args_of(x) if is_expr(x, "block") else [x]
    return [ind + _INDENT + expr_text(s, ind + _INDENT) for s in stmts]


def _block_text(x: V.StructValue, ind: str) -> str | None:
    """An Expr whose head opens a block, as Julia prints it over several lines; None for
    the ternary form of `:if` and other one-line shapes."""
    h, a = head_of(x), args_of(x)
    kw = _BLOCK_HEADS[h]
    if h == "block":
        return "\n".join([kw] + _body_lines(x, ind) + [ind + "end"])
    if h == "quote":
        if len(a) == 1 and is_expr(a[0], "block"):
            return "\n".join(["quote"] + _body_lines(a[0], ind) + [ind + "end"])
        return None
    if h == "if":
        if not is_expr(a[1], "block"):
            return None
        lines = [f"if {expr_text(a[0], ind)}"] + _body_lines(a[1], ind)
        rest = a[2] if len(a) > 2 else None
        while is_expr(rest, "elseif"):
            ra = args_of(rest)
            cond = ra[0]
            if is_expr(cond, "block"):
                cond = [s for s in args_of(cond) if not _is(s, LineNumberNodeT)][-1]
            lines += [ind + f"elseif {expr_text(cond, ind)}"] + _body_lines(ra[1], ind)
            rest = ra[2] if len(ra) > 2 else None
        if rest is not None:
            lines += [ind + "else"] + _body_lines(rest, ind)
        return "\n".join(lines + [ind + "end"])
    if h in ("for", "while", "let"):
        spec = a[0]
        head = (", ".join(expr_text(s, ind) for s in args_of(spec)) if is_expr(spec, "block")
                else expr_text(spec, ind))
        return "\n".join([f"{kw} {head}"] + _body_lines(a[1], ind) + [ind + "end"])
    if h == "=" and is_expr(a[1], "block") and (is_expr(a[0], "call") or is_expr(a[0], "where")):
        body = [s for s in args_of(a[1]) if not _is(s, LineNumberNodeT)]
        if len(body) == 1:  # `f(x) = x + 1`
            return f"{expr_text(a[0], ind)} = {expr_text(body[0], ind)}"
        return "\n".join([f"function {expr_text(a[0], ind)}"] + _body_lines(a[1], ind)
                         + [ind + "end"])
    if h in ("function", "macro"):
        return "\n".join([f"{kw} {expr_text(a[0], ind)}"] + _body_lines(a[1], ind)
                         + [ind + "end"])
    if h == "try":
        lines = ["try"] + _body_lines(a[0], ind)
        if a[2] is not False:
            var = f" {a[1].name}" if type(a[1]) is V.Symbol else ""
            lines += [ind + "catch" + var] + _body_lines(a[2], ind)
        if len(a) > 3:
            lines += [ind + "finally"] + _body_lines(a[3], ind)
        return "\n".join(lines + [ind + "end"])
    if h == "struct":
        kw = "mutable struct" if a[0] else "struct"
        return "\n".join([f"{kw} {expr_text(a[1], ind)}"] + _body_lines(a[2], ind)
                         + [ind + "end"])
    return None


def expr_text(x: Any, ind: str = "") -> str:
    """Julia's `print` of code: `x + 1`, blocks over several lines with `#= file:line =#`
    comments, each line after the first indented by `ind`."""
    if _is(x, LineNumberNodeT):
        return _line_text(x)
    if is_expr(x) and head_of(x) in _BLOCK_HEADS:
        text = _block_text(x, ind)
        if text is not None:
            return text
    if is_expr(x, "$"):
        inner = args_of(x)[0]
        s = expr_text(inner, ind)
        return f"${s}" if type(inner) is V.Symbol else f"$({s})"
    if _is(x, QuoteNodeT):
        return _show_quoted(x.fields[0])
    if is_expr(x, "escape"):
        return f"$(Expr(:escape, {expr_text(args_of(x)[0], ind)}))"
    return U.unparse(to_ast(x))


def _show_quoted(v: Any) -> str:
    if type(v) is V.Symbol:
        return ":" + v.name
    return f"$(QuoteNode({expr_show(v)}))"


def expr_show(x: Any) -> str:
    """Julia's `show` (`repr`) of code: `:(x + 1)`, `quote ... end`, `:x`."""
    if is_expr(x, "block"):
        return "quote\n" + "\n".join(_body_lines(x, "")[i] for i in range(len(args_of(x)))) \
            + "\nend"
    if _is(x, QuoteNodeT):
        return f":({_show_quoted(x.fields[0])})"
    if _is(x, LineNumberNodeT):
        return f":({_line_text(x)})"
    if is_expr(x):
        return f":({expr_text(x, '  ')})"  # (a block's later lines indented past `:(`)
    return expr_text(x)


def _custom_show(x: Any) -> str | None:
    if type(x) is V.StructValue and x.type in (ExprT, QuoteNodeT, LineNumberNodeT):
        return expr_show(x)
    return None


def _custom_print(x: Any) -> str | None:
    if type(x) is V.StructValue and x.type in (ExprT, QuoteNodeT, LineNumberNodeT):
        return expr_text(x)
    return None


def _value_text(v: Any) -> str:
    return jl_show(v)


# --- hygiene ----------------------------------------------------------------------------

_GENSYMS = itertools.count(1)


def gensym_name(base: str) -> str:
    """A fresh name no program writes (`##t#12`)."""
    return f"##{base}#{next(_GENSYMS)}"


def _assigned(x: Any, out: set[str], globals_: set[str]) -> None:
    """The names the unescaped parts of a macro's result assign (locals, loop variables,
    parameters); names declared `global` go to globals_."""
    if not is_expr(x):
        return
    h, a = head_of(x), args_of(x)
    if h == "escape":
        return
    if h in ("=", "local") or h.endswith("=") and h not in ("==", "===", "!=", "<=", ">="):
        for t in (a[:1] if h != "local" else a):
            _targets(t, out)
    elif h == "global":
        for t in a:
            _targets(t, globals_)
    elif h == "for":
        spec = a[0]
        for s in args_of(spec) if is_expr(spec, "block") else [spec]:
            if is_expr(s, "="):
                _targets(args_of(s)[0], out)
    elif h in ("->",):
        _targets(a[0], out)
    for y in a:
        _assigned(y, out, globals_)


def _targets(t: Any, out: set[str]) -> None:
    """The plain names an assignment target (or a parameter list) binds."""
    if type(t) is V.Symbol:
        out.add(t.name)
    elif is_expr(t) and head_of(t) in ("tuple", "::", "...", "kw", "=", "parameters"):
        for y in args_of(t)[:1] if head_of(t) in ("::", "kw", "=") else args_of(t):
            _targets(y, out)
    elif is_expr(t, "call") or is_expr(t, "where"):  # `f(x) = ...`: its parameters
        a = args_of(t)
        for y in a[1:]:
            _targets(y, out)


def _rename(x: Any, names: dict[str, Any]) -> Any:
    """x with the renamed symbols replaced outside `esc(...)` parts, which lose their
    `:escape` wrapper. (A keyword's name and a definition's function name stay.)"""
    if type(x) is V.Symbol:
        return names.get(x.name, x)
    if not is_expr(x):
        return x
    h, a = head_of(x), args_of(x)
    if h == "escape":
        return a[0]
    if h == "quote":
        return x
    keep = 1 if h in ("macrocall", "kw") else 0
    if h in ("=", "function") and is_expr(a[0], "call") and type(args_of(a[0])[0]) is V.Symbol:
        sig = args_of(a[0])
        head = make_expr("call", sig[:1] + [_rename(y, names) for y in sig[1:]])
        return make_expr(h, [head] + [_rename(y, names) for y in a[1:]])
    return make_expr(h, a[:keep] + [_rename(y, names) for y in a[keep:]])


def _symbols(x: Any, out: set[str]) -> None:
    """The symbols of the unescaped parts of x."""
    if type(x) is V.Symbol:
        out.add(x.name)
    elif is_expr(x) and head_of(x) not in ("escape", "quote"):
        for y in x.fields[1]:
            _symbols(y, out)


def hygienic(x: Any, is_local: Callable[[str], bool] = lambda _: False,
             module: str = "Main") -> Any:
    """Julia's macro hygiene: the names a macro's result assigns outside `esc` become
    fresh gensyms (so they cannot clobber the caller's variables), and the other names
    there that the caller has as locals are the module's globals (`module.name`), as the
    macro means them; escaped parts are the caller's code as written."""
    assigned: set[str] = set()
    globals_: set[str] = set()
    _assigned(x, assigned, globals_)
    names: dict[str, Any] = {n: V.Symbol(gensym_name(n)) for n in sorted(assigned - globals_)}
    used: set[str] = set()
    _symbols(x, used)
    for n in sorted(used - assigned):
        if is_local(n):
            names[n] = make_expr(".", [_dotted(module), quote_node(V.Symbol(n))])
    return _rename(x, names)


# --- macro expansion --------------------------------------------------------------------


def note_macro(binding: str) -> None:
    """Record a user macro's binding (`@m`, `M.@m`), so that a call the parser gives
    without its module (`M.@m x` is MacroCall "m") finds it."""
    base = binding.rpartition(".")[2]
    macros = current.runtime().__dict__.setdefault("user_macros", {})
    if binding not in macros.setdefault(base, []):
        macros[base].append(binding)


def macro_function(name: str, gname: Callable[[str], str]) -> Any:
    """The user macro `@name` visible from the code being lowered (its module's, Main's,
    else another module's of that name), or None."""
    rt = current.runtime()
    mod, _, base = name.rpartition(".")
    key = "@" + base if not mod else f"{mod}.@{base}"
    known = rt.__dict__.get("user_macros", {}).get("@" + base)
    if not known:
        return None
    for k in (gname(key), key, *known):
        f = rt.globals.get(k)
        if f is not None:
            return f
    return None


def expand_user_macro(f: Any, n: A.MacroCall, file: str,
                      is_local: Callable[[str], bool] = lambda _: False,
                      module: str | None = None) -> Any:
    """Call the macro function f with the call's arguments as code; the Expr it
    returns, made hygienic for a caller whose locals `is_local` tells."""
    rt = current.runtime()
    c = _ToExpr(file)
    args = [line_node(n.span.line, file), _current_module(rt)] + [c(a) for a in n.args]
    result = rt.interp.call_value(f, args)
    return hygienic(result, is_local, module or "Main")


def _current_module(rt: Any) -> Any:
    stack = getattr(rt, "module_stack", None)
    name = stack[-1] if stack else "Main"
    return rt.modules.get(name) or rt.lookup(name)


def expand_all(x: Any, file: str, recursive: bool = True) -> Any:
    """`macroexpand`: the code with its macro calls of user macros expanded."""
    if not is_expr(x):
        return x
    if head_of(x) == "macrocall":
        node = to_ast(x)
        assert isinstance(node, A.MacroCall)
        f = macro_function(node.name, lambda s: s)
        if f is not None:
            out = expand_user_macro(f, node, file)
            return expand_all(out, file) if recursive else out
        return x
    if head_of(x) == "quote":
        return x
    return make_expr(head_of(x), [expand_all(a, file, recursive) for a in args_of(x)])


U.VALUE_TEXT = _value_text


# --- eval, parse and the built-ins ------------------------------------------------------


def eval_code(x: Any) -> Any:
    """`eval(x)`: run the code x at the top level of the current module."""
    rt = current.runtime()
    node = to_ast(x)
    text = expr_text(x)
    src = SourceFile("none", text)
    stack = getattr(rt, "module_stack", None)
    lo = rt.lowerer(src, stack[-1] if stack else None)
    return rt.interp.run_function(lo.lower_toplevel(node), [])


def core_eval(module: Any, x: Any) -> Any:
    """`Core.eval(m, x)` (only the current module)."""
    if not isinstance(module, V.ModuleValue):
        raise ZylaError("MethodError", "no method matching eval(::"
                        f"{V.type_name(typeof(module))}, ...)")
    return eval_code(x)


def _parse(text: str) -> A.Program:
    """The program text as Meta.parse reads it: a syntax error is a `Meta.ParseError`
    where Meta.parse was called."""
    try:
        return current.runtime().parse(text, "none")
    except ZylaError as e:
        raise ZylaError("Meta.ParseError", e.message) from None


def meta_parse(text: Any) -> Any:
    """`Meta.parse(str)`: the code of one expression (nothing for blank text)."""
    if not isinstance(text, str):
        raise ZylaError("MethodError", f"no method matching parse(::{V.type_name(typeof(text))})")
    prog = _parse(text)
    if not prog.stmts:
        return None
    if len(prog.stmts) > 1:
        raise ZylaError("Meta.ParseError", 'extra token after end of expression')
    return to_expr(prog.stmts[0])


def meta_parseall(text: Any) -> Any:
    """`Meta.parseall(str)`: a `:toplevel` Expr of every statement."""
    prog = _parse(str(text))
    out: list = []
    for s in prog.stmts:
        out += [line_node(s.span.line, "none"), to_expr(s)]
    return make_expr("toplevel", out)


def macroexpand(module: Any, x: Any, recursive: bool = True) -> Any:
    """`macroexpand(m, x; recursive = true)`: x with its user macro calls expanded."""
    return expand_all(x, "none", recursive)


def run_generated(gen: Any, names: tuple, *args: Any) -> Any:
    """A call of a `@generated` function: the generator `gen` gives the code for the
    argument types (once per signature), which runs on the arguments."""
    rt = current.runtime()
    types = tuple(typeof(a) for a in args)
    key = (gen, len(getattr(gen, "methods", ())), types)
    f = rt.generated.get(key)
    if f is None:
        code = rt.interp.call_value(gen, list(types))
        f = rt.generated[key] = eval_code(make_expr("->", [make_expr("tuple", list(names)),
                                                          code]))
    return rt.interp.call_value(f, list(args))


def install(rt: Any) -> None:
    """Register the code types and functions in `rt.builtins`."""
    host = HostOnly("code values live on the host")
    b = rt.builtins
    b["Expr"], b["QuoteNode"], b["LineNumberNode"] = ExprT, QuoteNodeT, LineNumberNodeT
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    for name, fn in (("Core.build_quote", build_quote), ("Core.copy_expr", copy_expr),
                     ("eval", eval_code), ("Core.eval_code", eval_code),
                     ("Core.eval", core_eval),
                     ("Meta.parse", meta_parse), ("Meta.parseall", meta_parseall),
                     ("Core.macroexpand", macroexpand), ("macroexpand", macroexpand),
                     ("Core.run_generated", run_generated)):
        b[name] = prim(name, fn, host, NONDIFF, anyt)
    rt.modules.setdefault("Meta", V.ModuleValue("Meta"))
    b.setdefault("Meta", rt.modules["Meta"])


CUSTOM_SHOW.append(_custom_show)
CUSTOM_PRINT.append(_custom_print)
