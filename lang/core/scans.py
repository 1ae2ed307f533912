"""Pre-scans of the AST that the lowering asks before it emits a function or a loop.

Each walks a statement (or a list of them) and answers one question: which names it
assigns (`assigned_names`), declares `global` (`global_decls`), reads without assigning
(`free_names`), which names nested closures assign or capture (`closure_assigned`,
`nested_captures`), how often each name is assigned (`count_assignments`), and whether
control may leave it early (`may_exit`, `has_return`, `has_break`). None of them looks
inside nested functions unless it says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from grammar import ast as A


def children(node: A.Node, tuples: bool = True) -> Iterator[Any]:
    """The fields of `node` a scan descends into: nodes and lists, and (unless `tuples` is
    false) tuples as lists, such as a `for` loop's `(target, iterable)` pairs."""
    for v in vars(node).values():
        if isinstance(v, (A.Node, list)):
            yield v
        elif tuples and isinstance(v, tuple):
            yield list(v)


#: The compound statements whose answers `assigned_names` keeps in a memo.
_MEMO_KINDS = (A.If, A.For, A.While, A.Block, A.Let, A.Try)


def assigned_names(node: Any, out: set[str] | None = None,
                   memo: dict[int, tuple[Any, frozenset[str]]] | None = None) -> set[str]:
    """Names assigned in `node`, not looking inside nested functions or lambdas.

    With `memo` (kept by the caller while the AST lives), the answer for each compound
    statement is computed once: the lowering asks again at every nested `if` and loop,
    which was quadratic in the nesting depth."""
    if out is None:
        out = set()
    if memo is not None and isinstance(node, _MEMO_KINDS):
        hit = memo.get(id(node))
        if hit is None or hit[0] is not node:
            hit = (node, frozenset(_assigned(node, set(), memo)))
            memo[id(node)] = hit
        out |= hit[1]
        return out
    return _assigned(node, out, memo)


def _assigned(node: Any, out: set[str],
              memo: dict[int, tuple[Any, frozenset[str]]] | None) -> set[str]:
    if isinstance(node, list):
        for x in node:
            assigned_names(x, out, memo)
        return out
    if isinstance(node, (A.Lambda, A.FunctionDef, A.StructDef)):
        if isinstance(node, A.FunctionDef) and node.name and "." not in node.name:
            pass  # a nested named function binds a local only inside functions
        return out
    if isinstance(node, A.Assign):
        target_names(node.target, out)
        assigned_names(node.value, out, memo)
        return out
    if isinstance(node, A.Let):
        own, values = let_bindings(node)
        assigned_names(values, out, memo)
        out |= assigned_names(node.body, set(), memo) - own
        return out
    if (isinstance(node, A.Call) and isinstance(node.func, A.Ident)
            and node.func.name in ("push!", "append!")
            and node.args and isinstance(node.args[0], A.Ident)):
        out.add(node.args[0].name)  # growing a local vector rebinds it (see Lowerer.store)
    if isinstance(node, (A.OpAssign, A.BroadcastAssign)):
        target_names(node.target, out)
        assigned_names(node.value, out, memo)
        return out
    if isinstance(node, A.For):
        for _t, it in node.iterators:
            assigned_names(it, out, memo)
        assigned_names(node.body, out, memo)
        return out
    if isinstance(node, A.MacroCall) and node.name == "testset":
        return out  # its body is a scope of its own
    if isinstance(node, A.Node):
        for v in children(node):
            assigned_names(v, out, memo)
    return out


def global_decls(node: Any, out: set[str] | None = None) -> set[str]:
    """Names a `global` declaration in `node` makes global for the whole enclosing scope
    (`global x`, `global x = v`, `global x += v`), not looking inside nested functions."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            global_decls(x, out)
    elif isinstance(node, (A.Lambda, A.FunctionDef, A.StructDef)):
        pass
    elif isinstance(node, A.Global):
        for x in node.names:
            target_names(getattr(x, "target", x), out)
    elif isinstance(node, A.Node):
        for v in children(node, tuples=False):
            global_decls(v, out)
    return out


def target_names(t: A.Node, out: set[str]) -> None:
    """The variables an assignment target binds (`x`, `(a, b)`, `x::T`; `x[i] = v`
    rebinds x, see Lowerer.store)."""
    if isinstance(t, A.Ident):
        out.add(t.name)
    elif isinstance(t, A.Index) and isinstance(t.obj, A.Ident):
        out.add(t.obj.name)  # array writes rebind the variable (see Lowerer.store)
    elif isinstance(t, A.TupleLit):
        for x in t.items:
            target_names(x, out)
    elif isinstance(t, A.TypeAssert):
        target_names(t.value, out)


def let_bindings(node: A.Let) -> tuple[set[str], list[A.Node]]:
    """The names a `let` binds (they are its own: `let i = i` in a function does not make
    `i` a local of the function) and the expressions its bindings evaluate."""
    own: set[str] = set()
    values: list[A.Node] = []
    for b in node.bindings:
        if isinstance(b, A.Assign):
            target_names(b.target, own)
            values.append(b.value)
        elif isinstance(b, A.Ident):
            own.add(b.name)
        else:
            values.append(b)
    return own, values


def bound_names(node: Any, out: set[str] | None = None) -> set[str]:
    """The names a function body makes local by assigning them (`x = ...`, `x += ...`,
    `a, b = ...`), not looking inside nested functions; an element write (`x[i] = v`)
    or `push!(x, v)` does not make `x` local, as in Julia."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            bound_names(x, out)
    elif isinstance(node, (A.Lambda, A.FunctionDef, A.StructDef)):
        pass
    elif isinstance(node, A.MacroCall) and node.name == "testset":
        pass
    elif isinstance(node, (A.Assign, A.OpAssign)) and not isinstance(node.target, A.Index):
        target_names(node.target, out)
        bound_names(node.value, out)
    elif isinstance(node, A.Let):
        own, values = let_bindings(node)
        bound_names(values, out)
        out |= bound_names(node.body) - own
    elif isinstance(node, A.Node):
        for v in children(node):
            bound_names(v, out)
    return out


def direct_bound_names(node: Any, out: set[str] | None = None) -> set[str]:
    """The names a function body assigns, or defines as inner functions, outside its
    inner scopes (loops, `let`, `try`, nested functions): its locals for sure, whatever
    the enclosing scopes hold."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            direct_bound_names(x, out)
    elif isinstance(node, A.FunctionDef):
        # (a named inner function binds its name: `f(x) = g(x); g(x) = ...` share `g`)
        if node.name and "." not in node.name and node.receiver is None:
            out.add(node.name)
    elif isinstance(node, (A.Lambda, A.StructDef, A.For, A.While, A.Let, A.Try,
                           A.Comprehension)):
        pass
    elif isinstance(node, A.MacroCall) and node.name == "testset":
        pass
    elif isinstance(node, (A.Assign, A.OpAssign)) and not isinstance(node.target, A.Index):
        target_names(node.target, out)
        direct_bound_names(node.value, out)
    elif isinstance(node, A.Node):
        for v in children(node):
            direct_bound_names(v, out)
    return out


def free_names(node: Any, out: set[str] | None = None) -> set[str]:
    """Every identifier mentioned in `node`, nested functions included."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            free_names(x, out)
    elif isinstance(node, tuple):
        free_names(list(node), out)
    elif isinstance(node, A.Ident):
        out.add(node.name)
    elif isinstance(node, A.StringInterp):
        for p in node.parts:
            if isinstance(p, A.Node):
                free_names(p, out)
    elif isinstance(node, A.NamedTupleLit):
        free_names(node.values, out)
    elif isinstance(node, A.Comparison):  # its operators are names too (a local `==`)
        out.update(op.removeprefix(".") or op for op in node.ops)
        free_names(node.operands, out)
    elif isinstance(node, A.FunctionDef):
        if node.name and "." not in node.name:
            out.add(node.name)
        free_names(node.body, out)
        free_names(node.params, out)
        free_names(node.kwparams, out)
    elif isinstance(node, A.Node):
        for v in children(node):
            free_names(v, out)
    return out


def closure_assigned(node: Any, out: set[str] | None = None) -> set[str]:
    """Names assigned inside nested lambdas/functions of `node` (at any depth)."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            closure_assigned(x, out)
    elif isinstance(node, (A.Lambda, A.FunctionDef)):
        assigned_names(node.body, out)
        closure_assigned(node.body, out)
    elif isinstance(node, A.Comprehension):
        # its body is a closure too: `[(s += x; s) for x in xs]` updates the caller's s
        for part in (node.expr, node.cond):
            if part is not None:
                assigned_names(part, out)
        closure_assigned(node.iterators, out)
        closure_assigned([node.expr, node.cond], out)
    elif isinstance(node, A.MacroCall) and node.name == "testset":
        for a in node.args:
            assigned_names(a, out)
            closure_assigned(a, out)
    elif isinstance(node, A.Try):
        # its bodies run as closures (Core.trycatch): `try s += 1 catch end` updates s
        for part in _try_bodies(node):
            assigned_names(part, out)
            closure_assigned(part, out)
    elif isinstance(node, A.Node):
        for v in children(node):
            closure_assigned(v, out)
    return out


def _try_bodies(node: A.Try) -> list[A.Block]:
    return [b for b in (node.body, node.catch_body, node.finally_body) if b is not None]


def nested_captures(node: Any, out: set[str] | None = None) -> set[str]:
    """Names referenced inside nested lambdas/functions of `node`."""
    if out is None:
        out = set()
    if isinstance(node, list):
        for x in node:
            nested_captures(x, out)
    elif isinstance(node, (A.Lambda, A.FunctionDef)):
        free_names(node.body, out)
    elif isinstance(node, A.Comprehension):
        # a comprehension's closure runs at once, so only what it assigns needs a box
        for part in (node.expr, node.cond):
            if part is not None:
                assigned_names(part, out)
        nested_captures([node.expr, node.cond, node.iterators], out)
    elif isinstance(node, A.MacroCall) and node.name in ("testset", "test", "test_throws",
                                                         "test_broken"):
        free_names(node.args, out)
    elif isinstance(node, A.Try):
        free_names(_try_bodies(node), out)
    elif isinstance(node, A.Node):
        for v in children(node):
            nested_captures(v, out)
    return out


def count_assignments(node: Any, counts: dict[str, int], weight: int = 1) -> None:
    """Add to `counts` how often each name is assigned in `node` (twice inside a loop)."""
    if isinstance(node, list):
        for x in node:
            count_assignments(x, counts, weight)
        return
    if isinstance(node, (A.Lambda, A.FunctionDef)):
        return
    if isinstance(node, (A.Assign, A.OpAssign)):
        names: set[str] = set()
        target_names(node.target, names)
        for n in names:
            counts[n] = counts.get(n, 0) + weight
    if isinstance(node, (A.For, A.While)):
        weight = 2
    if isinstance(node, A.Node):
        for v in children(node):
            count_assignments(v, counts, weight)


def may_exit(node: Any, in_loop: bool = False) -> bool:
    """Does `node` contain a return (or, outside a nested loop, a break/continue)?"""
    if isinstance(node, list):
        return any(may_exit(x, in_loop) for x in node)
    if isinstance(node, A.Return):
        return True
    if isinstance(node, (A.Break, A.Continue)):
        return not in_loop
    if isinstance(node, (A.Lambda, A.FunctionDef)) or _lifted_try(node):
        return False
    if isinstance(node, A.MacroCall) and node.name == "testset":
        return False
    if isinstance(node, (A.For, A.While)):
        return may_exit(node.body, True)
    if isinstance(node, A.Node):
        return any(may_exit(v, in_loop) for v in children(node))
    return False


def has_return(node: Any) -> bool:
    """Does `node` contain a `return` (outside nested functions)?"""
    if isinstance(node, list):
        return any(has_return(x) for x in node)
    if isinstance(node, A.Return):
        return True
    if isinstance(node, (A.Lambda, A.FunctionDef)) or _lifted_try(node):
        return False
    if isinstance(node, A.Node):
        return any(has_return(v) for v in children(node))
    return False


def _lifted_try(node: Any) -> bool:
    """A `try` whose jumps lang.core.tryjumps has rewritten: its bodies are closures whose
    `return`s are its own (the jumps they stand for follow the `try`)."""
    return isinstance(node, A.Try) and node.lifted


def has_break(node: Any) -> bool:
    """A break/continue that belongs to this loop level (not nested loops)."""
    if isinstance(node, list):
        return any(has_break(x) for x in node)
    if isinstance(node, (A.Break, A.Continue)):
        return True
    if isinstance(node, (A.Lambda, A.FunctionDef, A.For, A.While)) or _lifted_try(node):
        return False
    if isinstance(node, A.Node):
        return any(has_break(v) for v in children(node, tuples=False))
    return False


def repeated_local_functions(stmts: list[A.Node]) -> dict[str, list[A.FunctionDef]]:
    """Inner functions a body defines more than once (several methods), or once with a
    `where` clause (its type variables are matched at the call, which a plain closure
    does not do), with their definitions in order; nested functions, lambdas, `let`
    scopes and struct bodies are their own."""
    found: dict[str, list[A.FunctionDef]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for x in node:
                visit(x)
        elif isinstance(node, A.FunctionDef):
            if node.name and "." not in node.name and node.receiver is None:
                found.setdefault(node.name, []).append(node)
        elif isinstance(node, A.Node) and not isinstance(node, (A.Lambda, A.Let, A.StructDef)):
            for c in children(node):
                visit(c)

    visit(stmts)
    return {k: v for k, v in found.items() if len(v) > 1 or v[0].where}
