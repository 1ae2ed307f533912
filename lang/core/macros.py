"""Macros: each built-in macro rewrites its arguments into ordinary calls.

`@test ex` becomes `Test.do_test(() -> ex, "ex", line)` so the test runner can catch
errors while evaluating it; `@testset "name" body` runs the body as a closure (a local
scope, as in Julia); `@show`, `@time`, `@elapsed`, `@assert` and the `@code_*` dumps
likewise become calls of runtime functions with the expression's source text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from grammar import ast as A
from grammar.unparse import unparse
from lang.core.ir import Value
from lang.core.macros_flux import FLUX_MACROS
from lang.core.scans import assigned_names


def _thunk(lo: Any, body: A.Node, name: str = "#thunk") -> Value:
    return lo.make_lambda(A.Lambda([], body, span=body.span), name=name)


def _str(lo: Any, s: str) -> Value:
    return lo.const(s)


def m_test(lo: Any, n: A.MacroCall) -> Value:
    if not n.args:
        raise lo.err("@test needs an expression", n)
    ex = n.args[0]
    kws = [a for a in n.args[1:] if isinstance(a, A.Assign)]
    text = unparse(ex)
    if kws and isinstance(ex, A.Comparison) and ex.ops == ["≈"]:
        ex = A.Call(A.Ident("isapprox"), ex.operands,
                    [A.Kwarg(k.target.name, k.value, span=k.span) for k in kws], span=ex.span)  # type: ignore[attr-defined]
        text += " " + " ".join(unparse(k) for k in kws)
    shown = isinstance(ex, A.Comparison) and len(ex.operands) == 2
    body = _with_operands(ex) if shown else ex
    return lo.call("Test.do_test", [_thunk(lo, body), _str(lo, text), lo.const(n.span.line),
                                    lo.const(ex.ops[0] if shown else None)], n.span)


def _with_operands(ex: A.Comparison) -> A.Node:
    """`a == b` as `(l = a; r = b; (l == r, (l, r)))`: the operands evaluated once, and
    kept to be shown when the test fails."""
    sp = ex.span
    names = [A.Ident(f"#operand{i}", span=sp) for i in range(2)]
    sets: list[A.Node] = [A.Assign(x, v, span=sp) for x, v in zip(names, ex.operands,
                                                                      strict=True)]
    cmp = A.Comparison(list(names), ex.ops, span=sp)
    return A.Block(sets + [A.TupleLit([cmp, A.TupleLit(list(names), span=sp)], span=sp)],
                   span=sp)


def m_test_throws(lo: Any, n: A.MacroCall) -> Value:
    t = lo.lower(n.args[0])
    return lo.call("Test.do_test_throws", [t, _thunk(lo, n.args[1]), _str(lo, unparse(n.args[1])),
                                            lo.const(n.span.line)], n.span)


def m_testset(lo: Any, n: A.MacroCall) -> Value:
    body = n.args[-1]
    if isinstance(body, A.For):
        # one test set per iteration; its name may interpolate the loop variable. The body
        # runs as a closure: a `continue` in it ends the iteration when the body is a loop
        # of one iteration (a `break` could not leave the outer loop from there)
        each: A.Node = body.body
        jumps = _loop_jumps(each)
        if A.Break in jumps:
            raise lo.err("`break` inside `@testset for` is not supported", n)
        if A.Continue in jumps:
            one = A.Literal(1, "Int64")
            once = [(A.Ident("#once"), A.Call(A.Ident(":"), [one, one]))]
            each = A.Block([A.For(once, body.body, span=body.span)])
        inner = A.MacroCall("testset", list(n.args[:-1]) + [each], span=n.span)
        return lo.lower(A.For(body.iterators, A.Block([inner]), span=body.span))
    name: Value = lo.const("test set")
    for a in n.args[:-1]:
        if isinstance(a, (A.Literal, A.StringInterp)):
            name = lo.lower(a)
    return lo.call("Test.do_testset", [name, _thunk(lo, body, "#testset")], n.span)


def _loop_jumps(node: Any) -> set:
    """The kinds of `break`/`continue` in node that would leave it (not those of loops or
    functions nested in it)."""
    if isinstance(node, (A.Break, A.Continue)):
        return {type(node)}
    if isinstance(node, (A.For, A.While, A.Lambda, A.FunctionDef)):
        return set()
    found: set = set()
    items = node if isinstance(node, (list, tuple)) else (
        [getattr(node, f) for f in node.__dataclass_fields__] if isinstance(node, A.Node) else [])
    for x in items:
        if isinstance(x, (A.Node, list, tuple)):
            found |= _loop_jumps(x)
    return found


def m_show(lo: Any, n: A.MacroCall) -> Value:
    v = lo.const(None)
    for a in n.args:
        v = lo.call("Core.show_expr", [_str(lo, unparse(a)), lo.lower(a)], n.span)
    return v


def m_assert(lo: Any, n: A.MacroCall) -> Value:
    msg = lo.lower(n.args[1]) if len(n.args) > 1 else _str(lo, unparse(n.args[0]))
    c = lo.lower(n.args[0])
    return lo.call("Core.assert", [c, msg], n.span)


def m_isdefined(lo: Any, n: A.MacroCall) -> Value:
    """`@isdefined(x)`: whether the variable x has a value here: a local assigned on the
    path taken (a local never assigned in this scope: false), else a global binding."""
    x = n.args[0]
    if not isinstance(x, A.Ident):
        raise lo.err("@isdefined needs a variable name", n)
    sc = lo.sc
    if x.name in sc.env and x.name not in sc.declared_globals:
        return lo.call("Core.is_assigned", [sc.env[x.name]], n.span)
    if not sc.toplevel and x.name in sc.locals_ and x.name not in sc.declared_globals:
        return lo.const(False)
    return lo.call("Core.isdefined_global", [_str(lo, lo.gname(x.name))], n.span)


def m_time(lo: Any, n: A.MacroCall) -> Value:
    """`@time ex` is a block, not a scope (as in Julia): `ex` runs inline, so what it
    assigns stays visible; the elapsed time is printed and `ex`'s value returned (itself,
    not the report's: the report has no derivative, and the value's gradient is kept)."""
    t0 = lo.call("Core.time_start", [], n.span)
    c0 = lo.call("Core.compile_clock", [], n.span)
    v = lo.lower(n.args[-1])
    lo.call("Core.time_report", [t0, c0, v], n.span)
    return v


def m_elapsed(lo: Any, n: A.MacroCall) -> Value:
    """`@elapsed ex`: the seconds `ex` took, `ex` run inline (a block, as in Julia)."""
    t0 = lo.call("Core.time_start", [], n.span)
    v = lo.lower(n.args[-1])
    return lo.call("Core.elapsed_since", [t0, v], n.span)


def m_timed(lo: Any, n: A.MacroCall) -> Value:
    """`@timed ex`: `(value = ex's value, time = seconds)`, `ex` run inline; Zyla measures
    no allocations, so the fields of Julia's result other than these two are absent."""
    t0 = lo.call("Core.time_start", [], n.span)
    v = lo.lower(n.args[-1])
    return lo.call("Core.timed_result", [v, lo.call("Core.elapsed_since", [t0, v], n.span)],
                   n.span)


def _logging(level: str) -> Callable[[Any, A.MacroCall], Value]:
    """`@info msg key=value ...` (and `@warn`, `@error`, `@debug`): a call of
    `Core.log_message(level, file, line, msg, names, values...)`; a bare `x` after the
    message is `x = x`, as in Julia's Logging."""

    def run(lo: Any, n: A.MacroCall) -> Value:
        if not n.args:
            raise lo.err(f"@{level.lower()} needs a message", n)
        names: list[str] = []
        vals: list[Value] = []
        for a in n.args[1:]:
            if isinstance(a, A.Assign) and isinstance(a.target, A.Ident):
                names.append(a.target.name)
                vals.append(lo.lower(a.value))
            else:
                names.append(unparse(a))
                vals.append(lo.lower(a))
        return lo.call("Core.log_message",
                       [lo.const(level), lo.const(lo.source.name), lo.const(n.span.line),
                        lo.lower(n.args[0]), lo.const(tuple(names))] + vals, n.span)

    return run


def _code_dump(kind: str) -> Callable[[Any, A.MacroCall], Value]:
    def run(lo: Any, n: A.MacroCall) -> Value:
        ex = n.args[-1]
        if not isinstance(ex, A.Call):
            raise lo.err(f"@{kind} needs a call expression like f(x)", n)
        f = lo.lower(ex.func)
        args = [lo.lower(a) for a in ex.args]
        return lo.call(f"Core.{kind}", [f] + args, n.span)

    return run


#: the parts of these nodes that `@.` dots (a `let`'s or `for`'s bindings, a function's
#: signature are left as they are, as Julia's `__dot__` leaves them)
_DOTTED_PARTS: dict[type, tuple[str, ...]] = {
    A.Block: ("stmts",), A.Let: ("body",), A.For: ("body",), A.FunctionDef: ("body",),
    A.Lambda: ("body",), A.If: ("cond", "then", "other"), A.While: ("cond", "body"),
    A.Ternary: ("cond", "then", "other"), A.TupleLit: ("items",),
}


def _dotify_part(x: Any) -> Any:
    """A node's part dotted: a node, a list of nodes, or None."""
    if isinstance(x, list):
        return [dotify(e) for e in x]
    return dotify(x) if isinstance(x, A.Node) else x


def dotify(n: A.Node) -> A.Node:
    """`@. expr`: every call and operator becomes a broadcast, `=` becomes `.=`; `$x` is
    x left undotted (`@. $f(x)` calls f on the dotted arguments)."""
    if isinstance(n, A.Interpolation):
        return n.value
    parts = _DOTTED_PARTS.get(type(n))
    if parts is not None:
        return dataclasses.replace(n, **{p: _dotify_part(getattr(n, p)) for p in parts})
    if isinstance(n, A.Call) and isinstance(n.func, A.Interpolation):
        return A.Call(n.func.value, [dotify(a) for a in n.args], _dotify_kwargs(n.kwargs),
                      span=n.span)
    if isinstance(n, A.Assign):
        return A.BroadcastAssign(n.target, dotify(n.value), span=n.span)
    if isinstance(n, A.OpAssign):
        return A.OpAssign(n.target, "." + n.op if not n.op.startswith(".") else n.op,
                          dotify(n.value), span=n.span)
    if isinstance(n, A.Call):
        if isinstance(n.func, A.Ident) and n.func.name in (":",):
            return n
        return A.Broadcast(n.func, [dotify(a) for a in n.args], _dotify_kwargs(n.kwargs),
                           span=n.span)
    if isinstance(n, A.Comparison):
        return A.Comparison([dotify(a) for a in n.operands],
                            [o if o.startswith(".") else "." + o for o in n.ops], span=n.span)
    if isinstance(n, A.Broadcast):
        return A.Broadcast(n.func, [dotify(a) for a in n.args], _dotify_kwargs(n.kwargs),
                           span=n.span)
    return n


def _dotify_kwargs(kwargs: list[A.Kwarg]) -> list[A.Kwarg]:
    """A keyword's value is dotted too (Julia's `__dot__`): `@. f(x; a = g(y))` is
    `f.(x; a = g.(y))`; the keywords then reach every call of f."""
    return [A.Kwarg(k.name, dotify(k.value), span=k.span) for k in kwargs]


def m_dot(lo: Any, n: A.MacroCall) -> Value:
    return lo.lower(dotify(n.args[0]))


def m_passthrough(lo: Any, n: A.MacroCall) -> Value:
    return lo.lower(n.args[-1])


def _lowered_marked(lo: Any, n: A.MacroCall, attr: str) -> Value:
    """The macro's expression lowered with the lowerer's `attr` set to the function being
    lowered (code inside the macro, not the functions it makes, is marked)."""
    saved = getattr(lo, attr)
    setattr(lo, attr, lo.sc.fn)
    try:
        return lo.lower(n.args[-1])
    finally:
        setattr(lo, attr, saved)


def m_inbounds(lo: Any, n: A.MacroCall) -> Value:
    """`@inbounds ex`: ex's own indexing is not bounds-checked when compiled (an index
    out of bounds is then undefined behaviour, as in Julia; the interpreter still checks,
    which Julia allows)."""
    return _lowered_marked(lo, n, "inbounds_fn")


def m_views(lo: Any, n: A.MacroCall) -> Value:
    """`@views ex` / `@view A[I...]`: ex's indexing reads `A[I...]` are `view`s sharing A's
    memory (scalar indices still give the element: Base.maybeview)."""
    return _lowered_marked(lo, n, "views_fn")


def m_view(lo: Any, n: A.MacroCall) -> Value:
    """`@view A[I...]`: `view(A, I...)` (all-integer indices: a 0-dimensional view)."""
    saved = lo.views_call
    lo.views_call = "view"
    try:
        return m_views(lo, n)
    finally:
        lo.views_call = saved


def m_sequential(lo: Any, n: A.MacroCall) -> Value:
    """`@sequential for ... end`: the loops of ex run as written, one iteration after the
    other, never rewritten into tensor operations (backend/nests.py), so a sum adds its
    terms in the loop's order."""
    return _lowered_marked(lo, n, "sequential_fn")


def m_kwdef(lo: Any, n: A.MacroCall) -> Value:
    """`Base.@kwdef struct S a::Int = 1; b end`: the struct, plus the keyword constructor
    `S(; a = 1, b) = S(a, b)` (a field without a default is a required keyword)."""
    s = n.args[-1]
    if not isinstance(s, A.StructDef):
        raise lo.err("@kwdef needs a struct definition", n)
    defaults = {k.name: k.value for k in n.args[:-1] if isinstance(k, A.Kwarg)}
    lo.lower(s)
    kw = [A.Param(f, None, defaults.get(f), span=s.span) for f, _ in s.fields]
    body = A.Call(A.Ident(s.name, span=s.span),
                  [A.Ident(f, span=s.span) for f, _ in s.fields], span=s.span)
    lo.lower(A.FunctionDef(s.name, [], body, kw, span=s.span))
    return lo.const(None)


def m_irrational(lo: Any, n: A.MacroCall) -> Value:
    """`Base.@irrational sym val def` (or `@irrational sym def`): the constant
    `const sym = Core.irrational("sym", () -> def, val)`, an Irrational{:sym} whose exact
    value is def at the precision in force and whose Float64 is val's (def's if absent)."""
    if len(n.args) not in (2, 3) or not isinstance(n.args[0], A.Ident):
        raise lo.err("@irrational needs a name, an optional Float64 value and a definition", n)
    sym, definition = n.args[0], n.args[-1]
    val = n.args[1] if len(n.args) == 3 else A.Literal(None, "Nothing", span=n.span)
    make = A.Call(A.Dot(A.Ident("Core", span=n.span), "irrational", span=n.span), [
        A.Literal(sym.name, "String", span=n.span),
        A.Lambda([], definition, span=definition.span), val], span=n.span)
    return lo.lower(A.Const(A.Assign(sym, make, span=n.span), span=n.span))


def m_printf(lo: Any, n: A.MacroCall) -> Value:
    args = [lo.lower(a) for a in n.args]
    return lo.call("Printf.printf", args, n.span)


def m_sprintf(lo: Any, n: A.MacroCall) -> Value:
    args = [lo.lower(a) for a in n.args]
    return lo.call("Printf.sprintf", args, n.span)


def m_checkpoint(lo: Any, n: A.MacroCall) -> Value:
    """`@checkpoint f(args...)`: the backward pass recomputes f instead of storing its
    intermediate values."""
    ex = n.args[-1]
    if isinstance(ex, A.For):
        return _checkpoint_loop(lo, ex, n)
    if isinstance(ex, A.Call) and not ex.kwargs and not any(isinstance(a, A.Splat)
                                                            for a in ex.args):
        return lo.call("checkpointed", [lo.lower(ex.func)] + [lo.lower(a) for a in ex.args], n.span)
    return lo.call("checkpointed", [_thunk(lo, ex)], n.span)


def _checkpoint_loop(lo: Any, loop: A.For, n: A.MacroCall) -> Value:
    """`@checkpoint for x in xs body end` becomes
    `(v...,) = Core.ckpt_loop((x, v...) -> (body; (v...,)), xs, (v...,))` where v are the
    local variables the body updates (the loop state)."""
    if len(loop.iterators) != 1:
        raise lo.err("@checkpoint supports a loop with one iterator", n)
    target, iterable = loop.iterators[0]
    state = sorted(x for x in assigned_names(loop.body.stmts) if x in lo.sc.env
                   and not x.startswith("#"))
    if not state:
        raise lo.err("@checkpoint on a loop that updates no local variable", n)
    sp = loop.span
    names = [A.Ident(v, span=sp) for v in state]
    params = [A.Param(target.name if isinstance(target, A.Ident) else "#x", span=sp)]
    params += [A.Param(v, span=sp) for v in state]
    body = list(loop.body.stmts)
    if not isinstance(target, A.Ident):
        body = [A.Assign(target, A.Ident("#x"), span=sp)] + body
    lam = A.Lambda(params, A.Block(body + [A.TupleLit(list(names), span=sp)], span=sp), span=sp)
    call = A.Call(A.Ident("Core.ckpt_loop"),
                  [lam, iterable, A.TupleLit(list(names), span=sp)], span=sp)
    lo.lower(A.Assign(A.TupleLit(list(names), span=sp), call, span=sp))
    return lo.const(None)


def m_ignore(lo: Any, n: A.MacroCall) -> Value:
    return lo.call("ignore_derivatives", [_thunk(lo, n.args[-1])], n.span)


def m_nograd(lo: Any, n: A.MacroCall) -> Value:
    """`Zygote.@nograd f(args...) = body`: f, whose calls pass no gradient (its body runs
    inside `ignore_derivatives`, its effects happen)."""
    fd = n.args[-1]
    if not isinstance(fd, A.FunctionDef):
        raise lo.err("@nograd needs a function definition here (`@nograd f(x) = ...`); "
                     "for an existing function, call it inside `ignore_derivatives`", n)
    thunk = A.Lambda([], fd.body, span=fd.span)
    body = A.Call(A.Ident("ignore_derivatives", span=fd.span), [thunk], span=fd.span)
    return lo.lower(dataclasses.replace(fd, body=body))


def m_test_broken(lo: Any, n: A.MacroCall) -> Value:
    """`@test_broken ex`: recorded as broken while ex is false or throws; an unexpected
    pass is an error, as in Julia."""
    ex = n.args[0]
    return lo.call("Test.do_test_broken",
                   [_thunk(lo, ex), _str(lo, unparse(ex)), lo.const(n.span.line)], n.span)


def m_test_skip(lo: Any, n: A.MacroCall) -> Value:
    """`@test_skip ex`: ex is not evaluated; the test is counted as broken, as in Julia."""
    return lo.call("Test.do_test_skip", [_str(lo, unparse(n.args[0])), lo.const(n.span.line)],
                   n.span)


def m_test_nowarn(lo: Any, n: A.MacroCall) -> Value:
    """`@test_nowarn ex`: a test that ex logs nothing; its value is ex's."""
    ex = n.args[0]
    return lo.call("Test.do_test_nowarn",
                   [_thunk(lo, ex), _str(lo, unparse(ex)), lo.const(n.span.line)], n.span)


def m_evalpoly(lo: Any, n: A.MacroCall) -> Value:
    """`@evalpoly(z, c0, c1, ...)`: the polynomial c0 + c1 z + ... by Horner's rule, which is
    `evalpoly(z, (c0, c1, ...))`."""
    if len(n.args) < 2:
        raise lo.err("@evalpoly needs a point and at least one coefficient", n)
    return lo.lower(A.Call(A.Ident("evalpoly", span=n.span),
                           [n.args[0], A.TupleLit(list(n.args[1:]), span=n.span)], span=n.span))


def m_eval(lo: Any, n: A.MacroCall) -> Value:
    """`@eval ex`, `@eval M ex`: ex quoted (its `$` interpolated), then evaluated at the
    top level (lang.core.exprs)."""
    code = lo.lower(A.Quote(n.args[-1], span=n.span))
    return lo.call("Core.eval_code", [code], n.span)


def _macroexpand(recursive: bool) -> Callable[[Any, A.MacroCall], Value]:
    """`@macroexpand ex` / `@macroexpand1 ex`: the code of ex with its macros expanded."""
    def lower(lo: Any, n: A.MacroCall) -> Value:
        code = lo.lower(A.Quote(n.args[-1], span=n.span))
        return lo.call("Core.macroexpand", [lo.const(None), code, lo.const(recursive)], n.span)
    return lower


def m_module(lo: Any, n: A.MacroCall) -> Value:
    """`@__MODULE__`: the module the code is in."""
    return lo.lower(A.Ident(lo.module or "Main", span=n.span))


def m_gensym(lo: Any, n: A.MacroCall) -> Value:
    """`@gensym a b`: `a = gensym("a"); b = gensym("b")`."""
    sp = n.span
    sets: list[A.Node] = []
    for a in n.args:
        if not isinstance(a, A.Ident):
            raise lo.err("@gensym takes names", a)
        sets.append(A.Assign(a, A.Call(A.Ident("gensym", span=sp),
                                       [A.Literal(a.name, "String", span=sp)], span=sp), span=sp))
    return lo.lower(A.Block(sets, span=sp))


def m_generated(lo: Any, n: A.MacroCall) -> Value:
    """`@generated function f(a, b) body end`: a generator `#generated#f(a, b) = body`,
    called with the argument types once per signature, returns the code of the method for
    them (lang.core.exprs.run_generated); `f` runs that code on its arguments."""
    fd = n.args[0] if len(n.args) == 1 else None
    if (not isinstance(fd, A.FunctionDef) or fd.name is None or "." in fd.name or fd.kwparams
            or fd.where or fd.type_params or fd.receiver is not None
            or any(p.name is None or p.pattern or p.default or p.vararg for p in fd.params)):
        raise lo.err("@generated is supported for a function with plain positional "
                     "parameters (no `where`, keywords, defaults or varargs)", n,
                     kind="ErrorException")
    sp = n.span
    gen = A.FunctionDef(f"#generated#{fd.name}", [A.Param(p.name, span=sp) for p in fd.params],
                        fd.body, span=sp)
    names = A.TupleLit([A.Literal(p.name, "Symbol", span=sp) for p in fd.params], span=sp)
    run = A.Call(A.Dot(A.Ident("Core", span=sp), "run_generated", span=sp),
                 [A.Ident(gen.name or "", span=sp), names]
                 + [A.Ident(p.name or "", span=sp) for p in fd.params], span=sp)
    method = dataclasses.replace(fd, body=A.Block([run], span=sp))
    return lo.lower(A.Block([gen, method], span=sp))


def _string_macro(f: str, nargs: int = 1) -> Callable[[Any, A.MacroCall], Value]:
    """A built-in string macro (`r"a+"i` is `@r_str("a+", "i")`): the call of f (a name, or
    `Core.name`) with the macro's first nargs arguments (the text, the flags)."""
    def lower(lo: Any, n: A.MacroCall) -> Value:
        sp = n.span
        fn: A.Node = A.Ident(f, span=sp) if "." not in f else \
            A.Dot(A.Ident(f.split(".")[0], span=sp), f.split(".")[1], span=sp)
        return lo.lower(A.Call(fn, list(n.args[:nargs]), [], span=sp))
    return lower


def m_raw_str(lo: Any, n: A.MacroCall) -> Value:
    """`raw"..."`: the text itself (the lexer kept it raw)."""
    return lo.lower(n.args[0])


def m_mime_str(lo: Any, n: A.MacroCall) -> Value:
    """`MIME"text/plain"`: the type `MIME{Symbol("text/plain")}`."""
    sym = A.Call(A.Ident("Symbol", span=n.span), [n.args[0]], [], span=n.span)
    return lo.lower(A.Curly(A.Ident("MIME", span=n.span), [sym], span=n.span))


#: Julia's string macros (`name"..."` is `@name_str("...")`: grammar.lexer).
STRING_MACROS: dict[str, Callable[[Any, A.MacroCall], Value]] = {
    "r_str": _string_macro("Regex", 2),
    "s_str": _string_macro("SubstitutionString"),
    "v_str": _string_macro("VersionNumber"),
    "big_str": _string_macro("Core.big_str"),
    "b_str": _string_macro("Core.b_str"),
    "raw_str": m_raw_str,
    "MIME_str": m_mime_str,
}


MACROS: dict[str, Callable[[Any, A.MacroCall], Value]] = {
    "test": m_test,
    "test_throws": m_test_throws,
    "test_broken": m_test_broken,
    "test_skip": m_test_skip,
    "test_nowarn": m_test_nowarn,
    "testset": m_testset,
    "show": m_show,
    "assert": m_assert,
    "isdefined": m_isdefined,
    "time": m_time,
    "elapsed": m_elapsed,
    "timed": m_timed,
    "info": _logging("Info"),
    "warn": _logging("Warn"),
    "error": _logging("Error"),
    "debug": _logging("Debug"),
    "code_ir": _code_dump("code_ir"),
    "code_typed": _code_dump("code_typed"),
    "code_adjoint": _code_dump("code_adjoint"),
    "code_hlo": _code_dump("code_hlo"),
    "code_warntype": _code_dump("code_warntype"),
    ".": m_dot,
    "__dot__": m_dot,
    "inbounds": m_inbounds,
    "sequential": m_sequential,
    # @simd lets the sum of a loop be reordered, which a mapped nest may do anyway
    # (backend/nests.py); @fastmath allows, not requires, relaxed floating point
    "simd": m_passthrough,
    # `@inferred f(x)` (and `@inferred T f(x)`): f(x)'s value. Julia also fails when the
    # compiler's inferred type is wider than the value's; Zyla's types are the values'
    "inferred": m_passthrough,
    "fastmath": m_passthrough,
    "views": m_views,
    "view": m_view,
    "inline": m_passthrough,
    "noinline": m_passthrough,
    **FLUX_MACROS,  # @showprogress, Flux.@layer/@functor, @__DIR__, @__FILE__
    "kwdef": m_kwdef,
    "with_kw": m_kwdef,  # Parameters.@with_kw: fields with defaults, as Base.@kwdef
    "printf": m_printf,
    "irrational": m_irrational,
    "sprintf": m_sprintf,
    "ignore_derivatives": m_ignore,
    "nograd": m_nograd,
    "checkpoint": m_checkpoint,
    "thunk": m_passthrough,
    "evalpoly": m_evalpoly,
    "eval": m_eval,
    "macroexpand": _macroexpand(True),
    "macroexpand1": _macroexpand(False),
    "__MODULE__": m_module,
    "gensym": m_gensym,
    "generated": m_generated,
    **STRING_MACROS,
}


#: Macros that need more than one argument, and those that take none (the others need one).
_MIN_ARGS = {"test_throws": 2, "irrational": 2}
_NO_ARGS_OK = frozenset({"show", "functor", "layer", "printf", "sprintf", "__DIR__", "__FILE__",
                         "__MODULE__"})


def lower_macro(lo: Any, n: A.MacroCall) -> Value:
    name = n.name if n.name in MACROS else n.name.split(".")[-1]
    f = MACROS.get(name)
    if f is None:
        raise lo.err(f"macro @{n.name} is not defined", n, kind="UndefVarError")
    need = _MIN_ARGS.get(name, 0 if name in _NO_ARGS_OK else 1)
    if len(n.args) < need:
        raise lo.err(f"@{n.name} needs {need} argument{'s' if need > 1 else ''}", n)
    return f(lo, n)
