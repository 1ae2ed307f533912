"""AST back to Julia source text, for `@show`, `@test` failure reports and diagnostics."""

from __future__ import annotations

from collections.abc import Callable

from grammar import ast as A

_BINARY = {"+", "-", "*", "/", "^", "÷", "%", "\\", "//", ":", "=>", "|>",
           "⋅", "&", "|", "<<", ">>"}


#: the text of a value put into code as it is (a Literal of kind "Value": what `$x`
#: interpolates, a function or an array); the runtime sets it to its `repr`
VALUE_TEXT: Callable[[object], str] = repr


def unparse(n: A.Node) -> str:
    """Julia text of an expression (spacing normalised, parentheses where needed)."""
    f = _TABLE.get(type(n))
    return f(n) if f else f"<{type(n).__name__}>"


def _lit(n: A.Literal) -> str:
    if n.kind == "String":
        return '"' + str(n.value).replace('"', '\\"') + '"'
    if n.kind == "Nothing":
        return "nothing"
    if n.kind == "Bool":
        return "true" if n.value else "false"
    if n.kind == "Symbol":
        return f":{n.value}"
    if n.kind == "Char":
        return f"'{n.value}'"
    if n.kind == "Float32":
        return f"{n.value}f0"
    if n.kind == "Value":
        return VALUE_TEXT(n.value)
    if n.kind.startswith("UInt"):  # 0x01, 0x0001: two hex digits a byte, as Julia shows
        return f"0x{n.value:0{int(n.kind[4:]) // 4}x}"
    return repr(n.value)


#: the operators Julia parses as one call of all the operands: `a + b + c`
_NARY = frozenset({"+", "*"})
#: how tightly the binary operators bind (Julia's precedence table, higher is tighter)
_PREC = {"=>": 1, "|>": 2, ":": 3, "+": 4, "-": 4, "|": 4, "<<": 5, ">>": 5, "*": 6, "/": 6,
         "÷": 6, "%": 6, "\\": 6, "⋅": 6, "&": 6, "//": 7, "^": 8}


def _paren(n: A.Node, prec: int = 99, chain: str | None = None) -> str:
    """n as an operand of a binary operator of precedence `prec`: in parentheses unless
    it binds tighter, as Julia prints it (`a + b * c`, `(a - b) - c`, `(a + b) * c`); a
    unary operator's operand binds at 99. The left operand of `+` or `*` (`chain`) that
    is the same operator, not written in parentheses, continues Julia's one call."""
    s = unparse(n)
    if isinstance(n, (A.Call, A.Broadcast)) and isinstance(n.func, A.Ident) and (
        n.func.name in _BINARY
    ):
        p = _PREC.get(n.func.name, 0)
        infix = (len(n.args) == 2 or (len(n.args) > 2 and n.func.name in _NARY)) and not n.kwargs
        if infix and n.func.name == chain and isinstance(n, A.Call) and not n.grouped:
            return s
        if not infix or p <= prec:
            return f"({s})"
        return s
    if isinstance(n, (A.Comparison, A.And, A.Or, A.Ternary, A.Assign, A.OpAssign,
                      A.MacroCall)):
        return f"({s})"
    return s


def _call(n: A.Call) -> str:
    if isinstance(n.func, A.Ident):
        op = n.func.name
        if op in _BINARY and len(n.args) == 2 and not n.kwargs:
            sep = op if op == ":" else f" {op} "
            p = _PREC.get(op, 0)
            chain = op if op in _NARY else None
            return f"{_paren(n.args[0], p, chain)}{sep}{_paren(n.args[1], p)}"
        if op in _NARY and len(n.args) > 2 and not n.kwargs:  # `a + b + c`, one call
            return f" {op} ".join(_paren(a, _PREC[op]) for a in n.args)
        if op == ":" and len(n.args) == 3:
            return ":".join(_paren(a, _PREC[":"]) for a in n.args)
        if op in ("-", "+", "!") and len(n.args) == 1:
            return f"{op}{_paren(n.args[0])}"
        if op == "adjoint" and len(n.args) == 1:
            return f"{_paren(n.args[0])}'"
    args = [unparse(a) for a in n.args]
    kws = [f"{k.name} = {unparse(k.value)}" if k.name else unparse(k.value) for k in n.kwargs]
    inner = ", ".join(args) + (("; " + ", ".join(kws)) if kws else "")
    return f"{unparse(n.func)}({inner})"


def _bcast(n: A.Broadcast) -> str:
    if isinstance(n.func, A.Ident) and not n.func.name.isidentifier():
        op = n.func.name
        if len(n.args) == 2:
            return f"{_paren(n.args[0])} .{op} {_paren(n.args[1])}"
        return f".{op}{_paren(n.args[0])}"
    return f"{unparse(n.func)}.({', '.join(unparse(a) for a in n.args)})"


def _cmp(n: A.Comparison) -> str:
    def operand(x: A.Node) -> str:
        # a comparison inside a comparison was parenthesised: `(p .> 0.5) .== t`
        low = isinstance(x, (A.Comparison, A.And, A.Or, A.Ternary, A.Assign, A.OpAssign))
        return f"({unparse(x)})" if low else unparse(x)

    out = operand(n.operands[0])
    for op, x in zip(n.ops, n.operands[1:], strict=False):
        out += f" {op} {operand(x)}"
    return out


def _items(xs: list[A.Node]) -> str:
    return ", ".join(unparse(x) for x in xs)


def _string_macro(n: A.MacroCall) -> str | None:
    """A string macro call as it is written, `r"a+"i`; None for any other macro call."""
    if not (n.name.endswith("_str") and 1 <= len(n.args) <= 2 and all(
            isinstance(a, A.Literal) and a.kind == "String" for a in n.args)):
        return None
    text = str(n.args[0].value).replace('"', '\\"')  # type: ignore[attr-defined]
    flags = str(n.args[1].value) if len(n.args) > 1 else ""  # type: ignore[attr-defined]
    return f'{n.name[:-4]}"{text}"{flags}'


def _where_item(p: A.Node) -> str:
    """A `where` variable: `T`, or `T <: B` (the parser's `Call(Ident("<:"), [T, B])`)."""
    if (isinstance(p, A.Call) and isinstance(p.func, A.Ident) and p.func.name == "<:"
            and len(p.args) == 2):
        return f"{unparse(p.args[0])} <: {unparse(p.args[1])}"
    return unparse(p)


_TABLE = {
    A.Literal: _lit,
    A.Ident: lambda n: f'var"{n.name}"' if n.name.startswith("##") else n.name,  # (gensyms)
    A.EndMarker: lambda n: "begin" if n.first else "end",
    A.Colon: lambda n: ":",
    A.Splat: lambda n: f"{unparse(n.value)}...",
    A.Call: _call,
    A.Broadcast: _bcast,
    A.Comparison: _cmp,
    A.And: lambda n: f"{unparse(n.left)} && {unparse(n.right)}",
    A.Or: lambda n: f"{unparse(n.left)} || {unparse(n.right)}",
    A.Ternary: lambda n: f"{unparse(n.cond)} ? {unparse(n.then)} : {unparse(n.other)}",
    A.Index: lambda n: f"{unparse(n.obj)}[{_items(n.indices)}]",
    A.Dot: lambda n: f"{unparse(n.obj)}.{n.name}",
    A.Curly: lambda n: f"{unparse(n.obj)}{{{_items(n.params)}}}",
    A.TypeAssert: lambda n: f"{unparse(n.value)}::{unparse(n.type)}",
    A.Where: lambda n: f"{unparse(n.expr)} where "
    + (_where_item(n.params[0]) if len(n.params) == 1
       else f"{{{', '.join(_where_item(p) for p in n.params)}}}"),
    A.TupleLit: lambda n: f"({_items(n.items)}{',' if len(n.items) == 1 else ''})",
    A.NamedTupleLit: lambda n: "("
    + ", ".join(f"{k} = {unparse(v)}" for k, v in zip(n.names, n.values, strict=False))
    + ("," if len(n.names) == 1 else "")
    + ")",
    A.VectorLit: lambda n: f"{unparse(n.eltype) if n.eltype else ''}[{_items(n.items)}]",
    A.MatrixLit: lambda n: "[" + "; ".join(" ".join(unparse(x) for x in r) for r in n.rows) + "]",
    A.Assign: lambda n: f"{unparse(n.target)} = {unparse(n.value)}",
    A.OpAssign: lambda n: f"{unparse(n.target)} {n.op}= {unparse(n.value)}",
    A.Lambda: lambda n: (n.params[0].name if len(n.params) == 1 and n.params[0].name
                         and not n.params[0].type and not n.kwparams
                         else f"({', '.join(p.name or '_' for p in n.params)})")
    + f" -> {unparse(n.body)}",
    A.Block: lambda n: "begin " + "; ".join(unparse(s) for s in n.stmts) + " end",
    A.MacroCall: lambda n: _string_macro(n) or f"@{n.name} " + " ".join(unparse(a) for a in n.args),
    A.Comprehension: lambda n: "["
    + unparse(n.expr)
    + " for "
    + ", ".join(f"{unparse(t)} in {unparse(i)}" for t, i in n.iterators)
    + (f" if {unparse(n.cond)}" if n.cond else "")
    + "]",
    A.Param: lambda n: (n.name or "") + (f"::{unparse(n.type)}" if n.type else "")
    + ("..." if n.vararg else "") + (f" = {unparse(n.default)}" if n.default else ""),
    A.Return: lambda n: "return" + (f" {unparse(n.value)}" if n.value is not None else ""),
    A.Break: lambda n: "break",
    A.Continue: lambda n: "continue",
    A.Const: lambda n: f"const {unparse(n.value)}",
    A.Global: lambda n: f"global {_items(n.names)}",
    A.Local: lambda n: f"local {_items(n.names)}",
    A.BroadcastAssign: lambda n: f"{unparse(n.target)} .= {unparse(n.value)}",
    A.Quote: lambda n: (f"quote {unparse(n.body)[6:-4]} end" if isinstance(n.body, A.Block)
                        else f":{n.body.name}" if isinstance(n.body, A.Ident)
                        else f":({unparse(n.body)})"),
    A.Interpolation: lambda n: (f"${unparse(n.value)}" if isinstance(n.value, A.Ident)
                                else f"$({unparse(n.value)})"),
    A.StringInterp: lambda n: '"'
    + "".join(p if isinstance(p, str) else f"$({unparse(p)})" for p in n.parts)
    + '"',
}
