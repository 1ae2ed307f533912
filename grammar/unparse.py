"""AST back to Julia source text, for `@show`, `@test` failure reports and diagnostics."""

from __future__ import annotations

from grammar import ast as A

_BINARY = {"+", "-", "*", "/", "^", "÷", "%", "\\", "//", ":", "=>", "|>",
           "⋅", "&", "|", "<<", ">>"}


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
    if n.kind.startswith("UInt"):  # 0x01, 0x0001: two hex digits a byte, as Julia shows
        return f"0x{n.value:0{int(n.kind[4:]) // 4}x}"
    return repr(n.value)


def _paren(n: A.Node) -> str:
    s = unparse(n)
    if isinstance(n, (A.Call, A.Broadcast)) and isinstance(n.func, A.Ident) and (
        n.func.name in _BINARY
    ):
        return f"({s})"
    if isinstance(n, (A.Comparison, A.And, A.Or, A.Ternary, A.Assign, A.OpAssign)):
        return f"({s})"
    return s


def _call(n: A.Call) -> str:
    if isinstance(n.func, A.Ident):
        op = n.func.name
        if op in _BINARY and len(n.args) == 2 and not n.kwargs:
            sep = op if op in (":", "^") else f" {op} "
            return f"{_paren(n.args[0])}{sep}{_paren(n.args[1])}"
        if op == ":" and len(n.args) == 3:
            return ":".join(_paren(a) for a in n.args)
        if op in ("-", "+", "!") and len(n.args) == 1:
            return f"{op}{_paren(n.args[0])}"
        if op == "adjoint" and len(n.args) == 1:
            return f"{_paren(n.args[0])}'"
    args = [unparse(a) for a in n.args]
    kws = [f"{k.name}={unparse(k.value)}" if k.name else unparse(k.value) for k in n.kwargs]
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


def _where_item(p: A.Node) -> str:
    """A `where` variable: `T`, or `T <: B` (the parser's `Call(Ident("<:"), [T, B])`)."""
    if (isinstance(p, A.Call) and isinstance(p.func, A.Ident) and p.func.name == "<:"
            and len(p.args) == 2):
        return f"{unparse(p.args[0])} <: {unparse(p.args[1])}"
    return unparse(p)


_TABLE = {
    A.Literal: _lit,
    A.Ident: lambda n: n.name,
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
    A.Where: lambda n: f"{unparse(n.expr)} where {{{', '.join(_where_item(p) for p in n.params)}}}",
    A.TupleLit: lambda n: f"({_items(n.items)}{',' if len(n.items) == 1 else ''})",
    A.NamedTupleLit: lambda n: "("
    + ", ".join(f"{k} = {unparse(v)}" for k, v in zip(n.names, n.values, strict=False))
    + ("," if len(n.names) == 1 else "")
    + ")",
    A.VectorLit: lambda n: f"{unparse(n.eltype) if n.eltype else ''}[{_items(n.items)}]",
    A.MatrixLit: lambda n: "[" + "; ".join(" ".join(unparse(x) for x in r) for r in n.rows) + "]",
    A.Assign: lambda n: f"{unparse(n.target)} = {unparse(n.value)}",
    A.OpAssign: lambda n: f"{unparse(n.target)} {n.op}= {unparse(n.value)}",
    A.Lambda: lambda n: f"({', '.join(p.name or '_' for p in n.params)}) -> {unparse(n.body)}",
    A.Block: lambda n: "begin " + "; ".join(unparse(s) for s in n.stmts) + " end",
    A.MacroCall: lambda n: f"@{n.name} " + " ".join(unparse(a) for a in n.args),
    A.Comprehension: lambda n: "["
    + unparse(n.expr)
    + " for "
    + ", ".join(f"{unparse(t)} in {unparse(i)}" for t, i in n.iterators)
    + (f" if {unparse(n.cond)}" if n.cond else "")
    + "]",
    A.StringInterp: lambda n: '"'
    + "".join(p if isinstance(p, str) else f"$({unparse(p)})" for p in n.parts)
    + '"',
}
