"""`break`, `continue` and `return` inside `try`/`catch`, as Julia runs them.

A `try` body and its `catch` body run as closures (`Core.trycatch`), so a jump written
in them cannot leave the enclosing loop or function directly. Before a body is lowered,
each such `try` is rewritten: the jump becomes `return Core.jump(k[, value])` of its
closure, and after the `try` a test sends the marker on as the jump it stands for:

    t = try ... return Core.jump(2) ... catch ... end
    if Core.isjump(t)
        k = Core.jumpkind(t)
        if k == 1 break elseif k == 2 continue else return Core.jumpvalue(t) end
    end
    t

The `finally` body runs on every exit, jumps included (Core.trycatch runs it last). A
jump written inside `finally` itself is refused by the lowering.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import count
from typing import Any

from grammar import ast as A

BREAK, CONTINUE, RETURN = 1, 2, 3
_names = count(1)


def lift_try_jumps(stmts: list[A.Node]) -> list[A.Node]:
    """`stmts` with every `try` not yet rewritten (outside nested functions) rewritten;
    nodes on unchanged paths are shared, not copied."""
    return _lift(stmts)


def finally_jump(node: A.Try) -> A.Node | None:
    """A break/continue/return written in `node`'s finally body (None if none)."""
    if node.finally_body is None:
        return None
    return _find_jump(node.finally_body, in_loop=False)


def _lift(node: Any) -> Any:
    if isinstance(node, list):
        out = [_lift(x) for x in node]
        return node if all(a is b for a, b in zip(out, node, strict=True)) else out
    if isinstance(node, (A.Lambda, A.FunctionDef, A.StructDef)) or not isinstance(node, A.Node):
        return node  # (a nested function's body is lifted when it is lowered)
    if isinstance(node, A.Try) and not node.lifted:
        return _lift_try(node)
    changes = {}
    for k, v in vars(node).items():
        if isinstance(v, (A.Node, list)):
            nv = _lift(v)
            if nv is not v:
                changes[k] = nv
    return replace(node, **changes) if changes else node


def _lift_try(node: A.Try) -> A.Node:
    inner = replace(node, body=_lift(node.body),
                    catch_body=_lift(node.catch_body) if node.catch_body else None,
                    finally_body=_lift(node.finally_body) if node.finally_body else None)
    kinds: set[int] = set()
    body = _to_markers(inner.body, False, kinds)
    catch = _to_markers(inner.catch_body, False, kinds) if inner.catch_body else None
    lifted = replace(inner, body=body, catch_body=catch, lifted=True)
    if not kinds:
        return lifted
    sp = node.span
    t = A.Ident(f"#try{next(_names)}", span=sp)

    def call(name: str, *args: A.Node) -> A.Call:
        return A.Call(A.Ident(name, span=sp), list(args), span=sp)

    exits: list[tuple[int, A.Node]] = []
    if BREAK in kinds:
        exits.append((BREAK, A.Break(span=sp)))
    if CONTINUE in kinds:
        exits.append((CONTINUE, A.Continue(span=sp)))
    if RETURN in kinds:
        exits.append((RETURN, A.Return(call("Core.jumpvalue", t), span=sp)))
    k = A.Ident(f"#jumpkind{next(_names)}", span=sp)
    chain: A.Node = exits[-1][1]
    for kind, stmt in reversed(exits[:-1]):
        cond = A.Call(A.Ident("==", span=sp), [k, A.Literal(kind, "Int64", span=sp)], span=sp)
        chain = A.If(cond, A.Block([stmt], span=sp), A.Block([chain], span=sp), span=sp)
    dispatch = A.If(call("Core.isjump", t),
                    A.Block([A.Assign(k, call("Core.jumpkind", t), span=sp), chain], span=sp),
                    span=sp)
    return A.Block([A.Assign(t, lifted, span=sp), dispatch, t], span=sp)


def _to_markers(node: Any, in_loop: bool, kinds: set[int]) -> Any:
    """`node` with its jumps out of the closure (a break/continue outside loops nested
    in it, a return outside nested functions) written as `return Core.jump(...)`."""
    if isinstance(node, list):
        out = [_to_markers(x, in_loop, kinds) for x in node]
        return node if all(a is b for a, b in zip(out, node, strict=True)) else out
    if not isinstance(node, A.Node) or isinstance(node, (A.Lambda, A.FunctionDef,
                                                          A.StructDef)):
        return node
    if isinstance(node, A.Try) and node.lifted:
        return node  # (its own jumps are markers already: its rewrite passes them on)
    sp = node.span
    if isinstance(node, (A.Break, A.Continue)) and not in_loop:
        kind = BREAK if isinstance(node, A.Break) else CONTINUE
        kinds.add(kind)
        return A.Return(A.Call(A.Ident("Core.jump", span=sp),
                               [A.Literal(kind, "Int64", span=sp)], span=sp), span=sp)
    if isinstance(node, A.Return):
        kinds.add(RETURN)
        value = node.value if node.value is not None else A.Literal(None, "Nothing", span=sp)
        return A.Return(A.Call(A.Ident("Core.jump", span=sp),
                               [A.Literal(RETURN, "Int64", span=sp), value], span=sp), span=sp)
    loop = in_loop or isinstance(node, (A.For, A.While))
    changes = {}
    for k, v in vars(node).items():
        if isinstance(v, (A.Node, list)):
            nv = _to_markers(v, loop, kinds)
            if nv is not v:
                changes[k] = nv
    return replace(node, **changes) if changes else node


def _find_jump(node: Any, in_loop: bool) -> A.Node | None:
    if isinstance(node, list):
        for x in node:
            j = _find_jump(x, in_loop)
            if j is not None:
                return j
        return None
    if not isinstance(node, A.Node) or isinstance(node, (A.Lambda, A.FunctionDef,
                                                          A.StructDef)):
        return None
    if isinstance(node, A.Return) or (isinstance(node, (A.Break, A.Continue)) and not in_loop):
        return node
    loop = in_loop or isinstance(node, (A.For, A.While))
    for v in vars(node).values():
        if isinstance(v, (A.Node, list)):
            j = _find_jump(v, loop)
            if j is not None:
                return j
    return None
