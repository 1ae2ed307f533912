"""Lowering: AST → SSA IR with structured control flow.

Variables become SSA values through an environment (name → Value) threaded through the
lowering: an `if` yields every local variable either branch assigns; a loop carries every
enclosing local its body assigns; variables first assigned inside a loop body are local
to it (Julia's scoping). Captured variables that are reassigned live in boxes.

`return`, `break` and `continue` inside nested regions are lowered to flag variables
(`#ret`, `#brk`, `#cont`, and `#retval`) that are merged and carried like any other
variable; statements after a possible exit are guarded by an `if` on the flags. So the IR
stays purely structured: every region ends in a `yield`, and the function in one
`return`.

Top-level statements are lowered one at a time into zero-argument thunks where
unassigned-in-scope names are globals (`global` / `setglobal` ops).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Iterator
from dataclasses import dataclass, field
from typing import Any

from grammar import ast as A
from grammar.errors import SourceFile, ZylaError
from lang.core import exprs, literals, macros
from lang.core import values as V
from lang.core.ir import IR_PASSES, Function, Op, Region, Value
from lang.core.scans import (
    assigned_names,
    bound_names,
    closure_assigned,
    count_assignments,
    direct_bound_names,
    free_names,
    global_decls,
    has_break,
    has_return,
    may_exit,
    nested_captures,
    repeated_local_functions,
    target_names,
)
from lang.core.tryjumps import finally_jump, lift_try_jumps
from lang.core.undefined import check_undefined
from lang.core.values import AnyT, Int64T, SelfRef, Symbol, TypeVar


def run_passes(fn: Function) -> None:
    """The checks of possibly undefined reads, then the registered IR passes
    (lang.core.ir.IR_PASSES), over a lowered body."""
    check_undefined(fn, UNDEF)
    for p in IR_PASSES:
        p(fn)


class Undef:
    """The value of a variable on a path that never assigned it."""

    _inst: Undef | None = None

    def __new__(cls) -> Undef:
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "undef"

    def jl_show(self) -> str:
        return "#undef"


UNDEF = Undef()


class ColonT:
    """The bare `:` index value."""

    def __repr__(self) -> str:
        return "Colon()"

    def jl_show(self) -> str:
        return "Colon()"


COLON = ColonT()

RET, RETVAL, BRK, CONT = "#ret", "#retval", "#brk", "#cont"
EXIT_FLAGS = (RET, BRK, CONT)

#: unary dotted operators and the one-argument function each broadcasts
_UNARY_DOTTED = {"-": "Core.neg", "+": "identity"}
#: indexing calls whose compiled bounds check `@inbounds` turns off
UNCHECKED_UNDER_INBOUNDS = frozenset({"getindex", "setindex!", "Core.setindex_broadcast!",
                                      "Core.setindex_fn", "Core.setindex_broadcast_fn"})
_COMPARE_FN = {"≤": "<=", "≥": ">=", "≠": "!=", "∈": "in", "≈": "isapprox", "∉": "!in"}


def _breaks_set(node: Any, flag: A.Ident) -> Any:
    """`node` with each `break` of its own loop level preceded by `flag = true`."""
    if isinstance(node, list):
        return [_breaks_set(x, flag) for x in node]
    if isinstance(node, A.Break):
        return A.Block([A.Assign(flag, A.Literal(True, "Bool", span=node.span), span=node.span),
                        node], span=node.span)
    if isinstance(node, (A.Lambda, A.FunctionDef, A.For, A.While)) or not isinstance(
            node, A.Node):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, (A.Node, list)):
            new = _breaks_set(v, flag)
            if new is not v:
                changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


# --- the lowering ---------------------------------------------------------------------------


@dataclass
class Scope:
    """Lowering state of one function being built."""

    fn: Function
    env: dict[str, Value]
    boxed: set[str]
    toplevel: bool
    locals_: set[str] = field(default_factory=set)
    region: Region | None = None
    soft_globals: set[str] = field(default_factory=set)
    static_params: set[str] = field(default_factory=set)  # `where` type variables
    # inner functions defined with several methods in this body, and their values once
    # made (all methods are made at the first definition, as Julia's closure type has them)
    local_methods: dict[str, list[A.FunctionDef]] = field(default_factory=dict)
    local_made: dict[str, Value] = field(default_factory=dict)
    declared_globals: set[str] = field(default_factory=set)  # `global x` in a function
    # the locals assigned in the body itself, outside loops and other inner scopes
    direct_locals: set[str] = field(default_factory=set)
    # the locals declared (`local x`) and not assigned yet
    declared_only: set[str] = field(default_factory=set)


class Lowerer:
    """Lowers AST nodes of one source file to IR functions."""

    def __init__(self, source: SourceFile, global_names: set[str] | None = None,
                 module: str | None = None, literal_pow: bool = False,
                 library_names: Container[str] | None = None) -> None:
        self.source = source
        # the names the library (not the program) defines: a dotted-call nest that calls
        # anything else, or a library function with side effects, is fused into one
        # broadcast as Julia fuses it (None: library code, whose nests are not fused)
        self.library_names = library_names
        self.nfuse = 0  # hidden variables made by broadcast fusion so far
        # whether a program's `literal_pow` method may exist: then `x^2` lowers to Julia's
        # `literal_pow(^, x, Val(2))` (set by the runtime, and by lowering such a method)
        self.literal_pow = literal_pow
        self.global_names = global_names if global_names is not None else set()
        self.sc: Scope = None  # type: ignore[assignment]
        self.nfun = 0
        self.module = module  # the user module (`M`, `M.N`) whose globals this code names
        self.ntypevar = 0  # anonymous type variables made so far (`Vector{<:Real}`)
        # the variables of the `for` loops being lowered, with the scope of each loop
        self._loop_vars: list[tuple[Scope, set[str]]] = []
        self.ctor: _InnerCtor | None = None  # the inner constructor being lowered
        # assigned_names' answers per compound statement (linear time in nesting depth)
        self.assigned_memo: dict[int, tuple[Any, frozenset[str]]] = {}
        # the function whose code is inside `@inbounds` now: its indexing is not checked
        # when compiled (Julia's @inbounds covers the code it encloses, not the functions
        # that code defines or calls)
        self.inbounds_fn: Function | None = None
        # the function whose loops are inside `@sequential` now (kept as written)
        self.sequential_fn: Function | None = None
        # the function whose code is inside `@views` now: its `A[I...]` reads are views
        self.views_fn: Function | None = None
        self.views_call = "Core.maybeview"  # (`@view A[i]` calls `view`: 0-dimensional)

    def gname(self, name: str) -> str:
        """The global binding a plain name refers to: `f` inside `module M` is `M.f`
        (the runtime falls back to Main and Base for names M does not define)."""
        if self.module is None or "." in name or name.startswith("#"):
            return name
        return f"{self.module}.{name}"

    # --- infrastructure -------------------------------------------------------------

    def emit(self, opname: str, operands: list[Value], nresults: int = 1,
             span: A.Span | None = None, regions: list[Region] | None = None, **attrs: Any) -> Op:
        results = [self.sc.fn.new_value() for _ in range(nresults)]
        if opname == "for" and self.sequential_fn is self.sc.fn:
            attrs["sequential"] = True
        op = Op(opname, list(operands), results, attrs, regions or [], span or A.NOSPAN)
        assert self.sc.region is not None
        self.sc.region.ops.append(op)
        return op

    def const(self, v: Any, span: A.Span | None = None) -> Value:
        return self.emit("const", [], span=span, value=v).result

    def call(self, fn: str, args: list[Value], span: A.Span | None = None,
             kw: tuple[str, ...] = (), splat: tuple[int, ...] = ()) -> Value:
        if self.inbounds_fn is self.sc.fn and fn in UNCHECKED_UNDER_INBOUNDS:
            return self.emit("call", args, span=span, fn=fn, kw=kw, splat=splat,
                             inbounds=True).result
        return self.emit("call", args, span=span, fn=fn, kw=kw, splat=splat).result

    def new_fn(self, name: str) -> Function:
        self.nfun += 1
        return Function(name=name, body=Region([]), params=[], file=self.source.name)

    def err(self, msg: str, node: A.Node, kind: str = "SyntaxError") -> ZylaError:
        return ZylaError(kind, msg, node.span, self.source)

    # --- entry points -----------------------------------------------------------------

    def lower_toplevel(self, stmt: A.Node) -> Function:
        """A zero-argument thunk that runs one top-level statement and returns its value."""
        fn = self.new_fn("toplevel")
        fn.span = stmt.span
        self.sc = Scope(fn, {}, set(), True, region=fn.body)
        try:
            stmt, = lift_try_jumps([stmt])
            self._setup_boxes([stmt], params=[])
            v = self.lower(stmt)
        except RecursionError:
            # lowering recurses over the syntax tree: nesting deeper than Python's
            # recursion limit (`zyla` raises it to 20000) is refused, not a crash
            raise ZylaError("StackOverflowError", "this statement is nested too deeply to "
                            "compile", stmt.span, self.source,
                            hint="split it into smaller expressions") from None
        self.emit("return", [v], 0)
        run_passes(fn)
        return fn

    def lower_method(self, name: str, params: list[A.Param], kwparams: list[A.Param],
                     body: A.Node, span: A.Span, captures: list[str] = (),
                     receiver: A.Param | None = None, static_params: tuple[str, ...] = (),
                     callee_params: tuple[str, ...] = (),
                     return_type: A.Node | None = None,
                     soft_globals: frozenset[str] = frozenset()) -> Function:
        """A method or closure body: captures first, then receiver, positional, keyword.
        `static_params` are the method's `where` type variables; those the body mentions
        are bound on entry by matching the argument types against the signature.
        `callee_params` are those a constructor `Pos{T}(x) where T` takes from the type it
        is called as (`Pos{Float64}(1)`): each is bound to a `const` op holding the
        TypeVar with attribute `ctor_param`, which the runtime replaces by the type's
        parameter in a copy of the body made per called type
        (`Runtime.constructor_method`). With `return_type` (`f(x)::T = ...`), what the
        body returns is converted to T, as Julia does."""
        outer = self.sc
        fn = self.new_fn(name)
        fn.span = span
        allp: list[A.Param] = []
        if receiver is not None:
            allp.append(receiver)
        allp += params
        names = list(captures) + [p.name or f"#unused{i}" for i, p in enumerate(allp)]
        names += [p.name or "#kw" for p in kwparams]
        fn.params = names
        fn.ncaptures = len(captures)
        fn.nkw = len(kwparams)
        fn.vararg = bool(params) and params[-1].vararg
        fn.kwvararg = bool(kwparams) and kwparams[-1].vararg
        fn.self_arg = receiver is not None
        self.sc = Scope(fn, {}, set(), False, region=fn.body)
        try:
            args = [fn.new_value(n) for n in names]
            fn.body.args = args
            body_list = lift_try_jumps(body.stmts if isinstance(body, A.Block) else [body])
            ptypes = [p for p in allp] + list(kwparams)
            self.sc.declared_globals = (global_decls(body_list) | soft_globals) - set(names)
            self.sc.locals_ = bound_names(body_list) | set(names)
            self.sc.direct_locals = direct_bound_names(body_list)
            self.sc.local_methods = repeated_local_functions(body_list)
            self._setup_boxes(body_list, params=names[len(captures):])
            self.sc.boxed -= self.sc.declared_globals
            for i, (n, a) in enumerate(zip(names, args, strict=True)):
                if i < len(captures):
                    self.sc.env[n] = a  # captured boxes stay boxes
                    if outer is not None and n in outer.boxed:
                        self.sc.boxed.add(n)
                    continue
                p = ptypes[i - len(captures)]
                v = a
                if p.default is None and i - len(captures) >= len(allp) and p.name and not p.vararg:
                    # a required keyword argument
                    p = A.Param(p.name, p.type, A.Call(A.Ident("Core.undef_keyword"),
                                [A.Literal(p.name, "String")], span=p.span), span=p.span)
                if p.default is not None:
                    reg = Region([])
                    op = self.emit("default", [a], regions=[reg], span=p.span)
                    saved = self.sc.region
                    self.sc.region = reg
                    d = self.lower(p.default)
                    self.emit("yield", [d], 0)
                    self.sc.region = saved
                    v = op.result
                self.bind(n, v)
            for t in callee_params:
                self.bind(t, self.emit("const", [], span=span, value=TypeVar(t),
                                       ctor_param=t).result, span)
            self._bind_static_params(tuple(t for t in static_params if t not in callee_params),
                                     allp, body_list + ([return_type] if return_type else []),
                                     span)
            self.sc.static_params |= set(callee_params)
            # a `return` that ends the body needs no early-exit flags
            has_ret = has_return(body_list[:-1]) or (
                bool(body_list) and not isinstance(body_list[-1], A.Return)
                and has_return(body_list[-1]))
            if has_ret:
                self.sc.env[RET] = self.const(False)
                # (a placeholder, not a variable: read only where RET says it was set)
                self.sc.env[RETVAL] = self.emit("const", [], value=UNDEF,
                                                placeholder=True).result
            v = self.lower_seq(body_list)
            if has_ret and RET in self.sc.env:
                v = self._select_ret(v)
            if return_type is not None:
                v = self.call("convert", [self.lower(return_type), v], return_type.span)
            self.emit("return", [v], 0)
        finally:
            self.sc = outer
        run_passes(fn)
        return fn

    def _bind_static_params(self, tvnames: tuple[str, ...], allp: list[A.Param],
                            body: list[A.Node], span: A.Span) -> None:
        """`f(x::Vector{T}) where T = zeros(T, 2)`: bind each mentioned type variable to
        `Core.static_param(name, vararg, sig types..., args...)`, which matches the
        argument types against the signature (the same match dispatch made)."""
        used = free_names(body) - set(self.sc.env)
        wanted = [t for t in tvnames if t in used]
        self.sc.static_params = set(wanted)
        if not wanted:
            return

        tvs = {t: TypeVar(t) for t in tvnames}
        types = [self._type_value(p.type, tvs) for p in allp]
        vals = [self.read(p.name or f"#unused{i}", p) for i, p in enumerate(allp)]
        vararg = bool(allp) and allp[-1].vararg
        for t in wanted:
            v = self.call("Core.static_param",
                          [self.const(t), self.const(vararg), self.const(len(types))]
                          + types + vals, span)
            self.bind(t, v, span)

    def _select_ret(self, v: Value) -> Value:
        then = Region([])
        other = Region([])
        op = self.emit("if", [self.sc.env[RET]], regions=[then, other])
        then.ops.append(Op("yield", [self.sc.env[RETVAL]]))
        other.ops.append(Op("yield", [v]))
        return op.result

    def _setup_boxes(self, body: list[A.Node], params: list[str]) -> None:
        captured = nested_captures(body)
        counts: dict[str, int] = {}
        count_assignments(body, counts)
        for p in params:
            counts[p] = counts.get(p, 0) + 1
        inner_assigned = closure_assigned(body)
        for n in captured:
            if n in inner_assigned or counts.get(n, 0) > 1:
                self.sc.boxed.add(n)
        if self.sc.toplevel:
            self.sc.boxed.clear()  # top-level variables are globals, shared by reference

    # --- variables ---------------------------------------------------------------------

    def is_local(self, name: str) -> bool:
        return name in self.sc.env

    def bind(self, name: str, v: Value, span: A.Span | None = None) -> None:
        sc = self.sc
        sc.declared_only.discard(name)
        if name in sc.declared_globals:
            self.emit("setglobal", [v], 0, span=span, name=self.gname(name))
            self.global_names.add(name)
            return
        if name in sc.boxed:
            if name in sc.env:
                self.call("Core.setbox", [sc.env[name], v], span)
            else:
                sc.env[name] = self.call("Core.box", [v], span)
            return
        if sc.toplevel and (name not in sc.env) and not name.startswith("#"):
            self.emit("setglobal", [v], 0, span=span, name=self.gname(name))
            self.global_names.add(name)
            return
        sc.env[name] = v

    def read(self, name: str, node: A.Node) -> Value:
        sc = self.sc
        if name in sc.env and name not in sc.declared_globals:
            v = sc.env[name]
            if name in sc.boxed:
                return self.call("Core.unbox", [v], node.span)
            return v
        if not sc.toplevel and name in sc.locals_ and name not in sc.declared_globals:
            # a local of this function read before it is assigned: Julia's error, not the
            # global of the same name (`s += x` in a closure at top level)
            return self.call("Core.undef_local", [self.const(name)], node.span)
        return self.emit("global", [], span=node.span, name=self.gname(name)).result

    # --- sequences and exits ------------------------------------------------------------

    def lower_seq(self, stmts: list[A.Node]) -> Value:
        """Lower statements in order; after a statement that may exit (return/break/
        continue), the rest runs under `if !(exit flags)`."""
        v: Value | None = None
        for i, s in enumerate(stmts):
            if isinstance(s, A.Return):
                return self.lower_return(s)
            if isinstance(s, (A.Break, A.Continue)):
                flag = BRK if isinstance(s, A.Break) else CONT
                if flag not in self.sc.env:  # (each loop with a break/continue sets both)
                    raise self.err(f"{'break' if flag == BRK else 'continue'} outside a loop", s)
                self.sc.env[flag] = self.const(True, s.span)
                return self.const(None)
            v = self.lower(s)
            rest = stmts[i + 1:]
            if rest and may_exit(s):
                flags = [f for f in EXIT_FLAGS if f in self.sc.env]
                if flags:
                    return self.guarded(flags, rest)
        return v if v is not None else self.const(None)

    def guarded(self, flags: list[str], rest: list[A.Node]) -> Value:
        cond = self.sc.env[flags[0]]
        for f in flags[1:]:
            cond = self.call("Core.or", [cond, self.sc.env[f]])
        return self.lower_if_regions(cond, None, rest, swap=True)

    def lower_return(self, s: A.Return) -> Value:
        v = self.lower(s.value) if s.value is not None else self.const(None)
        if RET in self.sc.env:
            self.sc.env[RETVAL] = v
            self.sc.env[RET] = self.const(True, s.span)
            return v
        # a plain trailing return at function level
        return v

    # --- dispatch over node types ------------------------------------------------------------

    def lower(self, n: A.Node) -> Value:
        m = getattr(self, "l_" + type(n).__name__, None)
        if m is None:
            raise self.err(f"unsupported syntax: {type(n).__name__}", n)
        return m(n)

    # --- atoms -------------------------------------------------------------------------

    def l_Interpolation(self, n: A.Interpolation) -> Value:
        raise self.err('"$" expression outside quote', n)

    def l_Literal(self, n: A.Literal) -> Value:
        return self.const(literals.make(n.value, n.kind), n.span)

    def l_Ident(self, n: A.Ident) -> Value:
        name = n.name
        if len(name) > 1 and name[0] == "." and not name[1:].isidentifier():
            # a dotted operator as a value (`map(.+, a, b)`, `PairwiseFusion(.+, ...)`): the
            # function that broadcasts it, Julia's `Base.BroadcastFunction(+)`
            xs = A.Ident("#xs", span=n.span)
            body = A.Call(A.Ident("broadcast", span=n.span),
                          [A.Ident(name[1:], span=n.span), A.Splat(xs, span=n.span)], span=n.span)
            return self.make_lambda(A.Lambda([A.Param("#xs", vararg=True, span=n.span)], body,
                                             span=n.span))
        return self.read(name, n)

    def l_StringInterp(self, n: A.StringInterp) -> Value:
        parts = [self.const(p) if isinstance(p, str) else self.lower(p) for p in n.parts]
        return self.call("string", parts, n.span)

    def l_EndMarker(self, n: A.EndMarker) -> Value:
        raise self.err("`end` outside of indexing", n)

    def l_Colon(self, n: A.Colon) -> Value:
        return self.const(COLON, n.span)

    def l_Block(self, n: A.Block) -> Value:
        return self.lower_seq(n.stmts)

    # --- calls ----------------------------------------------------------------------------

    def lower_args(self, args: list[A.Node],
                   kwargs: list[A.Kwarg]) -> tuple[list[Value], tuple, tuple]:
        vals: list[Value] = []
        splat: list[int] = []
        for a in args:
            if isinstance(a, A.Splat):
                splat.append(len(vals))
                vals.append(self.lower(a.value))
            elif isinstance(a, A.Assign) and isinstance(a.target, A.Ident):
                kwargs = kwargs + [A.Kwarg(a.target.name, a.value, span=a.span)]
            else:
                vals.append(self.lower(a))
        kw: list[str] = []
        for k in kwargs:
            if k.name is None:
                vals.append(self.lower(k.value.value if isinstance(k.value, A.Splat) else k.value))
                kw.append("...")
            else:
                vals.append(self.lower(k.value))
                kw.append(k.name)
        return vals, tuple(kw), tuple(splat)

    def l_Call(self, n: A.Call) -> Value:
        f = n.func
        if (isinstance(f, A.Ident) and len(f.name) > 1 and f.name[0] == "."
                and not f.name[1].isalnum() and f.name[1] not in "_."
                and not self.is_local(f.name)):
            # `.+(a, b...)`: a dotted operator called as a function broadcasts it
            op = A.Ident(f.name[1:], span=f.span)
            return self.lower(A.Broadcast(op, n.args, n.kwargs, span=n.span))
        if (isinstance(f, A.Ident) and f.name == ":" and len(n.args) in (2, 3)
                and not self.is_local(":")):
            return self.call(":", [self.lower(a) for a in n.args], n.span)
        p = self._literal_power(f, n.args, n.kwargs)
        if p is not None and p < 0:
            # Julia's literal_pow: `2^-2` is 0.25 (a negative literal power of an integer
            # is taken in Float64), while `p = -2; 2^p` is a DomainError
            return self.call("Core.negative_literal_pow",
                             [self.lower(n.args[0]), self.lower(n.args[1])], n.span)
        if p is not None and self.literal_pow:
            return self.call("literal_pow", [self.read("^", f), self.lower(n.args[0]),
                                             self.call("Val", [self.const(p)], n.span)], n.span)
        if isinstance(f, A.Ident) and f.name == "|>" and len(n.args) == 2:
            x = self.lower(n.args[0])
            g = self.lower(n.args[1])
            return self.emit("callv", [g, x], span=n.span, kw=(), splat=()).result
        if _is_new(f) and not self.is_local("new") and (
                self.ctor is not None or "new" not in self.global_names):
            return self.lower_new(n)
        args, kw, splat = self.lower_args(n.args, n.kwargs)
        if (isinstance(f, A.Ident) and f.name in ("push!", "append!") and not self.is_local(f.name)
                and n.args and not kw and not splat and self.functional_target(n.args[0])):
            # growing a local vector is a functionalised write too (see `store`)
            kind = "push" if f.name == "push!" else "append"
            return self.store(n.args[0], kind, args, n)
        if isinstance(f, A.Ident) and not self.is_local(f.name):
            return self.call(self.gname(f.name), args, n.span, kw, splat)
        if isinstance(f, A.Dot) and isinstance(f.obj, A.Ident) and not self.is_local(f.obj.name):
            return self.call(f"{f.obj.name}.{f.name}", args, n.span, kw, splat)
        fv = self.lower(f)
        return self.emit("callv", [fv] + args, span=n.span, kw=kw,
                         splat=tuple(i + 1 for i in splat)).result

    def lower_new(self, n: A.Call) -> Value:
        """`new(args...)` / `new{T}(args...)` inside an inner constructor: a call of the
        struct's hidden `#new` type (see `Runtime.define_struct`), which builds the
        instance from all its fields without running any constructor. A plain `new` in
        `Pos{T}(x) where T` builds a `Pos{T}`. Outside a struct body `new` is an
        ordinary name, and an error when nothing defines it."""
        ctx = self.ctor
        if ctx is None:
            raise self.err("`new` is only available inside an inner constructor (a method "
                           "defined inside a `struct ... end` body)", n)
        if n.kwargs:
            raise self.err("`new` takes no keyword arguments", n)
        args, _, splat = self.lower_args(n.args, [])
        params = n.func.params if isinstance(n.func, A.Curly) else ctx.type_params
        if not params and ctx.nparams and not isinstance(n.func, A.Curly):
            raise ZylaError("SyntaxError", 'too few type parameters specified in "new{...}"',
                            n.span, self.source,
                            hint=f"`{ctx.name}` is parametric: write `new{{T}}(...)`, or "
                                 f"define the constructor as `{ctx.name}{{T}}(...) where T`")
        if not params:
            return self.call(ctx.binding + "#new", args, n.span, splat=splat)
        t = self.emit("global", [], span=n.span, name=ctx.binding + "#new").result
        t = self.call("Core.apply_type", [t] + [self.lower(p) for p in params], n.span)
        return self.emit("callv", [t] + args, span=n.span, kw=(),
                         splat=tuple(i + 1 for i in splat)).result

    def _literal_power(self, f: A.Node, args: list[A.Node], kwargs: list) -> int | None:
        """The exponent of `x ^ p` with p an Int literal (Julia lowers such powers to
        `literal_pow`), or None for any other call."""
        if (isinstance(f, A.Ident) and f.name == "^" and len(args) == 2 and not kwargs
                and not self.is_local("^") and isinstance(args[1], A.Literal)
                and args[1].kind == "Int64"):
            return args[1].value
        return None

    def l_Broadcast(self, n: A.Broadcast) -> Value:
        if self._fuses(n):
            return self._fused_broadcast(n, [])
        f = n.func
        if self.literal_pow and self._literal_power(f, n.args, n.kwargs) is not None:
            # `x .^ 2` broadcasts `y -> y ^ 2`, whose literal power calls `literal_pow`
            y = A.Ident("#lpow", span=n.span)
            power = A.Lambda([A.Param("#lpow", span=n.span)],
                             A.Call(f, [y, n.args[1]], span=n.span), span=n.span)
            return self.l_Broadcast(A.Broadcast(power, [n.args[0]], span=n.span))
        if isinstance(f, A.Ident) and f.name == "|>" and len(n.args) == 2 and not n.kwargs:
            # `x .|> g` is `g.(x)`
            return self.l_Broadcast(A.Broadcast(n.args[1], [n.args[0]], span=n.span))
        if isinstance(f, A.Ident) and f.name in _UNARY_DOTTED and len(n.args) == 1:
            f = A.Ident(_UNARY_DOTTED[f.name], span=f.span)  # `.-x`: negate each element
        fv = self._fn_value(f)
        args, kw, splat = self.lower_args(n.args, n.kwargs)
        if kw:
            npos = len(args) - len(kw)
            fv = self._bind_keywords(fv, args[npos:], kw, n)
            args = args[:npos]
        return self.call("broadcast", [fv] + args, n.span, (), tuple(i + 1 for i in splat))

    def _bind_keywords(self, fv: Value, kwvals: list[Value], kw: tuple[str, ...],
                       n: A.Node) -> Value:
        """`f.(xs...; k = v)` broadcasts the closure `(xs...) -> f(xs...; k = v)`, as Julia
        does: every call gets the keywords, whose values are evaluated once and not
        broadcast over. f and the values are captured as hidden locals (`#bk0`...), so
        the closure differentiates with respect to them like any captured variable."""
        env = self.sc.env
        names = [f"#bk{i}" for i in range(len(kw) + 1)]
        saved = {k: env[k] for k in names if k in env}
        env.update(zip(names, [fv, *kwvals], strict=True))
        kwargs = [A.Kwarg(None, A.Splat(A.Ident(x, span=n.span), span=n.span), span=n.span)
                  if k == "..." else A.Kwarg(k, A.Ident(x, span=n.span), span=n.span)
                  for k, x in zip(kw, names[1:], strict=True)]
        xs = A.Ident("#xs", span=n.span)
        body = A.Call(A.Ident(names[0], span=n.span), [A.Splat(xs, span=n.span)], kwargs,
                      span=n.span)
        try:
            return self.make_lambda(A.Lambda([A.Param("#xs", vararg=True, span=n.span)], body,
                                             span=n.span))
        finally:
            for k in names:
                env.pop(k, None)
            env.update(saved)

    # --- broadcast fusion: `f.(g.(x))` is one broadcast of `v -> f(g(v))`, as in Julia ------

    def _fuses(self, n: A.Node, outer: int = 2) -> bool:
        """Whether the dotted-call nest n must be fused: it holds at least `outer` dotted
        calls and one of them calls something that may have side effects (a program's
        function, a closure, `rand`, `push!`...). Nests of library functions without side
        effects give the same values fused or not, and stay vectorised."""
        if self.library_names is None or not _fusible(n):
            return False
        calls = list(_dot_calls(n))
        return len(calls) >= outer and any(self._may_act(c.func) for c in calls)

    def _may_act(self, f: A.Node) -> bool:
        """Whether calling the function f names may have side effects or random results."""
        if isinstance(f, A.Lambda):
            return True
        if isinstance(f, A.Ident):
            name = f.name
            if self.is_local(name) or name in self.global_names:
                return True
            lib = self.library_names
            return (lib is None or name not in lib) or _acts(name)
        return isinstance(f, A.Dot) and _acts(f.name)

    def _fused_broadcast(self, n: A.Broadcast, lead: list[Value]) -> Value:
        """`broadcast(closure, lead..., leaves...)` for the nest n: the closure calls the
        nest's functions on one element of each leaf (the arguments that are not dotted
        calls). Functions and leaves are evaluated once, in source order, before the
        broadcast; the `lead` values take part in the shape only (`dest .= f.(x)` calls f
        once per element of dest)."""
        hidden: dict[str, Value] = {}
        leaves: list[Value] = []
        params = [f"#fl{self._fresh_fuse()}" for _ in lead]

        def value(v: Value, leaf: bool = False) -> A.Ident:
            """A hidden name for v: a parameter of the closure (a leaf) or a capture."""
            name = f"#fz{self._fresh_fuse()}"
            if leaf:
                params.append(name)
                leaves.append(v)
            else:
                hidden[name] = v
            return A.Ident(name, span=n.span)

        def build(e: A.Node) -> A.Node:
            if not _fusible(e):
                if isinstance(e, A.Literal) and e.kind not in ("Symbol", "String"):
                    return e  # a number is the same for every element
                return value(self.lower(e), leaf=True)
            e = _plain_dotted(e)
            f = e.func
            if isinstance(f, A.Ident) and f.name in _COMPARE_FN:
                f = A.Ident(_COMPARE_FN[f.name], span=f.span)
            elif not isinstance(f, A.Ident):
                f = value(self._fn_value(f))
            return A.Call(f, [build(a) for a in e.args], span=e.span)

        body = build(n)
        env = self.sc.env
        env.update(hidden)  # (the names are fresh: nothing is shadowed)
        try:
            lam = self.make_lambda(A.Lambda([A.Param(p, span=n.span) for p in params], body,
                                            span=n.span))
        finally:
            for k in hidden:
                env.pop(k, None)
        return self.call("broadcast", [lam, *lead, *leaves], n.span)

    def _fresh_fuse(self) -> int:
        self.nfuse += 1
        return self.nfuse

    def _fn_value(self, f: A.Node) -> Value:
        if isinstance(f, A.Ident) and f.name in _COMPARE_FN:
            return self.read(_COMPARE_FN[f.name], f)
        return self.lower(f)

    def l_Comparison(self, n: A.Comparison) -> Value:
        def one(op: str, a: Value, b: Value) -> Value:
            if op.startswith(".") and len(op) > 1:
                fv = self.read(_COMPARE_FN.get(op[1:], op[1:]), n)
                return self.call("broadcast", [fv, a, b], n.span)
            if op == "===":
                return self.call("===", [a, b], n.span)
            if op == "!==":
                return self.call("!==", [a, b], n.span)
            if op == "<:":
                return self.call("<:", [a, b], n.span)
            return self._cmp_one(op, a, b, n)

        if len(n.ops) == 1:
            return one(n.ops[0], self.lower(n.operands[0]), self.lower(n.operands[1]))
        if any(op.startswith(".") for op in n.ops):
            # 0 .<= x .< 1  ==  (0 .<= x) .& (x .< 1), elementwise, no short circuit
            vals = [self.lower(x) for x in n.operands]
            parts = [one(op, a, b) for op, a, b in zip(n.ops, vals, vals[1:], strict=False)]
            out = parts[0]
            for p in parts[1:]:
                out = self.call("broadcast", [self.read("&", n), out, p], n.span)
            return out
        # a < b < c  ==  (a < b) && (b < c), each operand evaluated once
        vals = [self.lower(n.operands[0]), self.lower(n.operands[1])]
        first = one(n.ops[0], vals[0], vals[1])
        return self._chain(first, n, 1, vals[1])

    def _chain(self, cond: Value, n: A.Comparison, k: int, prev: Value) -> Value:
        then = Region([])
        other = Region([])
        op = self.emit("if", [cond], regions=[then, other], span=n.span)
        saved = self.sc.region
        self.sc.region = then
        nxt = self.lower(n.operands[k + 1])
        from_here = self._cmp_one(n.ops[k], prev, nxt, n)
        if k + 1 < len(n.ops):
            from_here = self._chain(from_here, n, k + 1, nxt)
        self.emit("yield", [from_here], 0)
        self.sc.region = other
        self.emit("yield", [self.const(False)], 0)
        self.sc.region = saved
        return op.result

    def _cmp_one(self, op: str, a: Value, b: Value, n: A.Node) -> Value:
        if op == "∉":
            return self.call("!", [self.call("in", [a, b], n.span)], n.span)
        if self.is_local(op):  # a local `==` (`(==) = f`) is the one the comparison calls
            return self.emit("callv", [self.read(op, n), a, b], span=n.span, kw=(),
                             splat=()).result
        return self.call(_COMPARE_FN.get(op, op), [a, b], n.span)

    def l_And(self, n: A.And) -> Value:
        return self._short(n.left, n.right, n, is_and=True)

    def l_Or(self, n: A.Or) -> Value:
        return self._short(n.left, n.right, n, is_and=False)

    def _short(self, left: A.Node, right: A.Node, n: A.Node, is_and: bool) -> Value:
        c = self.lower(left)
        rhs_branch = A.Block([right])
        short = A.Literal(not is_and, "Bool")
        if is_and:
            return self.lower_if_regions(c, [rhs_branch], [short], span=n.span)
        return self.lower_if_regions(c, [short], [rhs_branch], span=n.span)

    def l_Ternary(self, n: A.Ternary) -> Value:
        c = self.lower(n.cond)
        return self.lower_if_regions(c, [n.then], [n.other], span=n.span)

    def l_Index(self, n: A.Index) -> Value:
        if isinstance(n.obj, A.Ident) and n.obj.name in self.sc.static_params:
            # `T[a, b]` with T a `where` variable is a typed vector literal
            return self.lower(A.VectorLit(n.indices, n.obj, span=n.span))
        obj = self.lower(n.obj)
        if not n.indices:
            return self.call("Core.deref", [obj], n.span)  # `r[]`: a Ref's value
        if any(isinstance(i, A.Splat) for i in n.indices):
            idx, _, splat = self.lower_args(n.indices, [])  # `A[I...]`
            return self.call("getindex", [obj] + idx, n.span, splat=tuple(k + 1 for k in splat))
        idx = [self.lower_index(i, obj, k, len(n.indices)) for k, i in enumerate(n.indices)]
        if self.views_fn is self.sc.fn:
            return self.call(self.views_call, [obj] + idx, n.span)
        return self.call("getindex", [obj] + idx, n.span)

    def lower_index(self, i: A.Node, obj: Value, k: int, count: int) -> Value:
        """Lower one index expression, with `end` meaning the last index of dim k."""
        if isinstance(i, A.EndMarker) and i.first:
            return self.const(1, i.span)  # `begin`: arrays, tuples and strings start at 1
        if isinstance(i, A.EndMarker):
            return self.call("Core.endof", [obj, self.const(k + 1), self.const(count)], i.span)
        if isinstance(i, A.Call) and _mentions_end(i) and not any(
                isinstance(a, A.Splat) for a in i.args):
            # `x[end - k]`, `x[f(end)]`: `end` inside the call's arguments
            args = [self.lower_index(a, obj, k, count) if _mentions_end(a)
                    else self.lower(a) for a in i.args]
            kw = tuple(k.name or "..." for k in i.kwargs)
            args += [self.lower(k.value) for k in i.kwargs]
            if isinstance(i.func, A.Ident) and not self.is_local(i.func.name):
                return self.call(self.gname(i.func.name), args, i.span, kw)
            return self.emit("callv", [self.lower(i.func)] + args,
                             span=i.span, kw=kw, splat=()).result
        return self.lower(i)

    def l_Dot(self, n: A.Dot) -> Value:
        if isinstance(n.obj, A.Ident) and not self.is_local(n.obj.name) and n.obj.name in _MODULES:
            return self.emit("global", [], span=n.span, name=f"{n.obj.name}.{n.name}").result
        obj = self.lower(n.obj)
        return self.call("getproperty", [obj, self.const(_sym(n.name))], n.span)

    def l_Curly(self, n: A.Curly) -> Value:
        params = [self.bounded_typevar(p) if _is_bounded(p) else self.lower(p) for p in n.params]
        return self.call("Core.apply_type", [self.lower(n.obj)] + params, n.span)

    def bounded_typevar(self, p: A.Call) -> Value:
        """`<:B` as a type parameter (`Vector{<:Real}`): a fresh anonymous type variable
        with upper bound B, so that the type means `Vector{T} where T <: Real`."""
        self.ntypevar += 1
        name = self.const(f"#s{self.ntypevar}")
        return self.call("Core.typevar", [name, self.lower(p.args[0])], p.span)

    def l_Where(self, n: A.Where) -> Value:
        """`T where S <: B` as a value (outside a method signature): T evaluated in a
        scope of its own where S is a fresh type variable bounded by B (`where {N, S}`
        is `(T where S) where N`)."""
        if len(n.params) != 1:
            inner = A.Where(n.expr, n.params[1:], span=n.span)
            return self.l_Where(A.Where(inner, n.params[:1], span=n.span))
        w = n.params[0]
        bound = _where_bound(w)
        if not isinstance(w, A.Ident) and bound is None:
            raise self.err("unsupported `where` clause (only `S` and `S <: B`)", w)
        name = w.name if isinstance(w, A.Ident) else _where_name(w)
        ub = self.lower(bound) if bound is not None else self.const(AnyT)
        tv = self.call("Core.wherevar", [self.const(name), ub], w.span)
        lam = self.make_lambda(A.Lambda([A.Param(name, span=w.span)],
                                        A.Block([n.expr], span=n.span), span=n.span),
                               name="#where")
        body = self.emit("callv", [lam, tv], span=n.span, kw=(), splat=()).result
        return self.call("Core.unionall", [tv, body], n.span)

    def l_TypeAssert(self, n: A.TypeAssert) -> Value:
        return self.call("typeassert", [self.lower(n.value), self.lower(n.type)], n.span)

    def l_Splat(self, n: A.Splat) -> Value:
        raise self.err("`...` is only allowed in calls and tuples", n)

    def l_MacroCall(self, n: A.MacroCall) -> Value:
        """A macro the program defined (looked up first, so it may reuse a built-in
        macro's name), else a built-in one. Library code sees only built-in ones."""
        f = (exprs.macro_function(n.name, self.gname) if self.library_names is not None
             else None)
        if f is not None:
            return self.lower(self.expand_macro(f, n))
        return macros.lower_macro(self, n)

    def expand_macro(self, f: Any, n: A.MacroCall) -> A.Node:
        """The code the user macro f returns for the call n; an error while expanding
        is a LoadError at the call."""
        try:
            code = exprs.expand_user_macro(f, n, self.source.name, self.is_local, self.module)
            return exprs.to_ast(code, n.span)
        except ZylaError as e:
            inner = f"{e.kind}: {e.message}" if e.kind != "LoadError" else e.message
            raise ZylaError("LoadError", inner, n.span, self.source, e.hint) from None

    def l_Quote(self, n: A.Quote) -> Value:
        """`:(...)`, `quote ... end`: a fresh Expr each time it runs, with the values of
        its `$` interpolations put in (a quoted name or literal is a constant)."""
        try:
            template, holes = exprs.quote_template(n.body, self.source.name)
        except ZylaError as e:  # (syntax Zyla cannot quote: `:(using M)`)
            raise ZylaError(e.kind, e.message, e.span or n.span, self.source) from None
        if not holes and not exprs.is_expr(template):
            return self.const(template, n.span)
        vals = [self.lower(h) for h in holes]
        return self.call("Core.build_quote", [self.const(template, n.span), *vals], n.span)

    def l_MacroDef(self, n: A.MacroDef) -> Value:
        """`macro m(x) ... end`: the method of `@m` that takes the call's location and
        module, then its arguments as code."""
        params = [A.Param("__source__", span=n.span), A.Param("__module__", span=n.span),
                  *n.params]
        exprs.note_macro(self.gname("@" + n.name))
        return self.define_method(A.FunctionDef("@" + n.name, params, n.body, span=n.span))

    # --- collections ------------------------------------------------------------------------

    def l_TupleLit(self, n: A.TupleLit) -> Value:
        args, _, splat = self.lower_args(n.items, [])
        return self.call("tuple", args, n.span, splat=splat)

    def l_NamedTupleLit(self, n: A.NamedTupleLit) -> Value:
        vals = [self.lower(v) for v in n.values]
        return self.call("Core.namedtuple", [self.const(tuple(n.names))] + vals, n.span)

    def l_VectorLit(self, n: A.VectorLit) -> Value:
        args, _, splat = self.lower_args(n.items, [])
        if n.eltype is not None:
            return self.call("Core.typed_vect", [self.lower(n.eltype)] + args, n.span,
                             splat=tuple(i + 1 for i in splat))
        return self.call("Core.vect", args, n.span, splat=splat)

    def l_MatrixLit(self, n: A.MatrixLit) -> Value:
        rows = tuple(len(r) for r in n.rows)
        items = [self.lower(x) for r in n.rows for x in r]
        if all(k == 1 for k in rows):
            # `[a; b; c]` is vcat(a, b, c): a vector of scalars, vectors stacked
            v = self.call("vcat", items, n.span)
            if n.eltype is None:
                return v
            return self.call("Core.typed_vect", [self.lower(n.eltype), v], n.span, splat=(1,))
        if n.eltype is not None:
            items = [self.lower(n.eltype)] + items
            return self.call("Core.typed_hvcat", [self.const(rows)] + items, n.span)
        return self.call("Core.hvcat", [self.const(rows)] + items, n.span)

    def l_Comprehension(self, n: A.Comprehension) -> Value:
        """`[f(x) for x in xs if c]` becomes Core.comprehension(f, cond, xs...), and a
        generator `(f(x) for x in xs if c)` over one iterator Core.generator(f, cond, xs),
        a lazy Base.Generator (collections.jl; over several iterators one over their
        Iterators.product); the closures see the iteration variables as parameters."""
        targets = [t for t, _ in n.iterators]
        params = [_param_for(t, i) for i, t in enumerate(targets)]
        body = _destructure_body(targets, n.expr)
        f = self.make_lambda(A.Lambda(params, body, span=n.span))
        cond = (
            self.make_lambda(A.Lambda(params, _destructure_body(targets, n.cond), span=n.span))
            if n.cond is not None else self.const(None)
        )
        iters = [self.lower(it) for _, it in n.iterators]
        if n.generator:
            return self.call("Core.generator", [f, cond] + iters, n.span)
        return self.call("Core.comprehension", [f, cond] + iters, n.span)

    # --- functions ---------------------------------------------------------------------------

    def make_lambda(self, n: A.Lambda, name: str = "",
                    soft_globals: frozenset[str] = frozenset()) -> Value:
        """A closure of `n`; `soft_globals`: names its body assigns that are the
        enclosing top level's globals (a top-level `try` body is a soft scope)."""
        name = name or f"#{self.nfun + 1}"
        names = {p.name for p in n.params + n.kwparams if p.name}
        fv = free_names(n.body) | free_names([p.default for p in n.params if p.default])
        self._forward_boxes(fv - names, n.span)
        captures = sorted(x for x in fv - names if x in self.sc.env)
        fn = self.lower_method(name, n.params, n.kwparams, n.body, n.span, captures,
                               return_type=n.return_type, soft_globals=soft_globals)
        caps = [self.sc.env[c] for c in captures]  # boxes are captured as boxes
        return self.emit("closure", caps, span=n.span, func=fn, name=name).result

    def _forward_boxes(self, free: set[str], span: A.Span) -> None:
        """A closure that mentions a local its function assigns only later (`r(v) =
        push!(acc, v); acc = []`) shares that variable, as in Julia: a box made now,
        undefined until the assignment fills it. (Only for closures made in the function's
        own body, not inside a branch or loop.)"""
        sc = self.sc
        if sc.toplevel or sc.region is not sc.fn.body:
            return
        for x in sorted(free):
            if (x in sc.direct_locals and (x not in sc.env or x in sc.declared_only)
                    and x not in sc.declared_globals and not x.startswith("#")):
                sc.boxed.add(x)
                sc.env[x] = self.call("Core.box", [self.const(UNDEF)], span)

    def l_Lambda(self, n: A.Lambda) -> Value:
        return self.make_lambda(n)

    def l_FunctionDef(self, n: A.FunctionDef) -> Value:
        if n.name_expr is not None:
            return self.lower(n.name_expr)  # (`$f(x) = ...` outside a quote: an error)
        if not self.sc.toplevel and n.name and "." not in n.name and n.receiver is None:
            if n.name in self.sc.local_methods:
                return self.local_generic(n)
            # an inner named function: a closure bound to a local variable
            lam = A.Lambda(n.params, n.body, n.kwparams, n.return_type, span=n.span)
            self._box_self_reference(n.name, [n], n.span)
            v = self.make_lambda(lam, name=n.name)
            self.bind(n.name, v, n.span)
            return v
        return self.define_method(n)

    def _box_self_reference(self, name: str, defs: list[A.FunctionDef], span: A.Span) -> None:
        """A local function that calls itself (`f(k) = k <= 1 ? 1 : k * f(k - 1)`)
        captures the variable it is bound to: a box, made before the closure and filled
        when the closure is bound (Julia's Core.Box)."""
        if name in self.sc.boxed or not any(
                name in free_names(d.body) | free_names([p.default for p in d.params
                                                         if p.default]) for d in defs):
            return
        self.sc.boxed.add(name)
        self.sc.env[name] = self.call("Core.box", [self.sc.env.get(name) or self.const(None)],
                                      span)

    def local_generic(self, n: A.FunctionDef) -> Value:
        """An inner function with several methods (`g(a::Int) = ...; g(a::Float64) =
        ...`): at its first definition, one closure whose methods are all the body's
        definitions of that name, dispatched on the argument types; they share one list
        of captures. Later definitions of the name are already in it."""
        name = n.name
        made = self.sc.local_made.get(name)
        if made is not None:
            return made
        defs = self.sc.local_methods[name]
        self._box_self_reference(name, defs, n.span)
        free: set[str] = set()
        for d in defs:
            own = {p.name for p in d.params + d.kwparams if p.name}
            free |= (free_names(d.body) | free_names([p.default for p in d.params if p.default])
                     ) - own
        self._forward_boxes(free, n.span)
        captures = sorted(x for x in free if x in self.sc.env)
        caps = [self.sc.env[c] for c in captures]
        parts: list[Value] = []
        for d in defs:
            typevars, tvnames = self._where_vars(d)
            fn = self.lower_method(name, d.params, d.kwparams, d.body, d.span, captures,
                                   static_params=tuple(tvnames), return_type=d.return_type)
            parts.append(self.emit("closure", caps, span=d.span, func=fn, name=name).result)
            sig = [self.const(sum(1 for p in d.params if p.default is None and not p.vararg)),
                   self.const(bool(d.params) and d.params[-1].vararg),
                   self.const(tuple(typevars))]
            sig += [self._type_value(p.type, tvnames) for p in d.params]
            parts.append(self.call("tuple", sig, d.span))
        v = self.call("Core.local_generic", parts, n.span)
        self.sc.local_made[name] = v
        self.bind(name, v, n.span)
        return v

    def define_method(self, n: A.FunctionDef) -> Value:
        name = n.name or "#call"
        if "." in name:
            # `Base.f` / `Flux.f` extend the shared unqualified name; `Core.f` names stay
            # qualified, as the runtime's internal helpers are looked up by full name
            mod, _, base = name.rpartition(".")
            name = base if mod in _MODULES and mod != "Core" else name
            if mod == "Base.Broadcast":  # (one name, as `Broadcast.broadcastable` defines it)
                name = "Broadcast." + base
        if name.rpartition(".")[2] == "literal_pow":
            self.literal_pow = True  # (the powers lowered after it call literal_pow)
        elif n.receiver is None:
            name = self.gname(name)
        typevars, tvnames = self._where_vars(n)
        ctor_params = tuple(self._ctor_param(p, tvnames) for p in n.type_params)
        fn = self.lower_method(name, n.params, n.kwparams, n.body, n.span, [], n.receiver,
                               static_params=tuple(tvnames),
                               callee_params=tuple(tv.name for tv in ctor_params
                                                   if isinstance(tv, TypeVar)),
                               return_type=n.return_type)
        fn.name = name
        params = ([n.receiver] if n.receiver else []) + list(n.params)
        types = [self._type_value(p.type, tvnames) for p in params]
        nreq = sum(1 for p in params if p.default is None and not p.vararg)
        vararg = bool(params) and params[-1].vararg
        kwnames = tuple(p.name for p in n.kwparams if p.name and not p.vararg)
        self.global_names.add(name if n.receiver is None else name)
        extra = {"ctor_params": ctor_params} if ctor_params else {}
        return self.emit(
            "method", types, span=n.span, name=name, func=fn, nreq=nreq, vararg=vararg,
            kwnames=kwnames, callable=n.receiver is not None, typevars=tuple(typevars),
            **extra,
        ).result

    def _where_vars(self, n: A.FunctionDef) -> tuple[list[Any], dict[str, Any]]:
        """A definition's `where` type variables, and the values its signature's types
        use for them (a bound that is not a built-in type, `T <: AbstractLayer`, is
        made at run time)."""
        typevars = [self._typevar(w) for w in n.where]
        tvnames: dict[str, Any] = {tv.name: tv for tv in typevars}
        for w, tv in zip(n.where, typevars, strict=True):
            bound = _where_bound(w)
            if bound is not None and tv.ub is None:
                tvnames[tv.name] = self.call("Core.typevar",
                                             [self.const(tv.name), self.lower(bound)], w.span)
        return typevars, tvnames

    def _ctor_param(self, p: A.Node, tvnames: dict[str, Any]) -> Any:
        """One parameter of the type a constructor `Pos{T}(x) where T` is defined for:
        the `where` variable's TypeVar, or a type known without running code."""
        if isinstance(p, A.Ident) and p.name in tvnames:
            tv = tvnames[p.name]
            return tv if isinstance(tv, TypeVar) else TypeVar(p.name)
        t = self._static_type(p)
        if t is None:
            raise self.err("a constructor's type parameters must be `where` variables or "
                           "built-in types", p)
        return t

    def _typevar(self, w: A.Node) -> Any:
        """The TypeVar of a `where` item: `T`, `T <: Real` (a bound that is not a built-in
        type is left None here and made at run time by the caller)."""
        if isinstance(w, A.Ident):
            return TypeVar(w.name)
        bound = _where_bound(w)
        if bound is not None:
            return TypeVar(_where_name(w), self._static_type(bound))
        raise self.err("unsupported `where` clause", w)

    def _static_type(self, t: A.Node) -> Any:
        try:
            return static_type(t)
        except ZylaError:
            return None

    def _type_value(self, t: A.Node | None, tvs: dict) -> Value:
        if t is None:
            return self.const(AnyT)
        if isinstance(t, A.Ident) and t.name in tvs:
            tv = tvs[t.name]
            return tv if isinstance(tv, Value) else self.const(tv)
        if isinstance(t, A.Curly):
            base = self._type_value(t.obj, tvs)
            ps = [self.const(p.value) if isinstance(p, A.Literal)
                  else self.bounded_typevar(p) if _is_bounded(p)
                  else self._type_value(p, tvs) for p in t.params]
            return self.call("Core.apply_type", [base] + ps, t.span)
        if isinstance(t, A.Call) and isinstance(t.func, A.Ident) and t.func.name == "typeof":
            return self.lower(t)
        _ = Int64T
        return self.lower(t)

    def l_StructDef(self, n: A.StructDef) -> Value:
        pnames = [p.name if isinstance(p, A.Ident) else _where_name(p) for p in n.params]

        tvs: dict = {p: _tv(A.Ident(p)) for p in pnames}
        tvs.setdefault(n.name, SelfRef(n.name))
        types = [self._type_value(ft, tvs) for _, ft in n.fields]
        sup = (self._type_value(n.supertype, tvs) if n.supertype is not None
               else self.const(None))
        self.global_names.add(n.name)
        binding = self.gname(n.name)
        extra = {"inner": True} if n.constructors else {}
        v = self.emit("struct", [sup] + types, span=n.span, name=n.name, binding=binding,
                      fields=tuple(f for f, _ in n.fields), mutable=n.mutable,
                      params=tuple(pnames), **extra).result
        for ctor in n.constructors:
            self.lower_inner_constructor(n, ctor, binding, len(pnames))
        return v

    def lower_inner_constructor(self, n: A.StructDef, ctor: A.FunctionDef, binding: str,
                                nparams: int) -> None:
        """An inner constructor: a method of the struct's type whose body may call
        `new` (see `lower_new`). As in Julia, a method of another name defined in the
        struct body is an ordinary (global) function that may call `new` too."""
        if ctor.receiver is not None:
            raise self.err(f"Zyla does not support a callable-object method defined inside "
                           f"`struct {n.name}`; define it after the struct", ctor)
        saved = self.ctor
        self.ctor = _InnerCtor(n.name, binding, nparams, ctor.type_params)
        try:
            self.define_method(ctor)
        finally:
            self.ctor = saved

    def l_AbstractTypeDef(self, n: A.AbstractTypeDef) -> Value:
        sup = self.lower(n.supertype) if n.supertype is not None else self.const(None)
        self.global_names.add(n.name)
        return self.call("Core.abstracttype", [self.const(self.gname(n.name)), sup], n.span)

    def l_Using(self, n: A.Using) -> Value:
        mods = tuple(n.modules)
        for m in mods:
            _MODULES.add(m.split(".")[0])
        return self.call("Core.using", [self.const(mods), self.const(tuple(n.names)),
                                        self.const(n.is_import), self.const(self.module)], n.span)

    def l_ModuleDef(self, n: A.ModuleDef) -> Value:
        """`module M ... end`: the body's globals are bound as `M.name` (see gname); the
        runtime tracks the module being run, for `include` and `export`."""
        full = self.gname(n.name)
        self.global_names.add(n.name)
        self.call("Core.module_enter", [self.const(full)], n.span)
        saved = self.module
        self.module = full
        try:
            self.lower_seq(n.body.stmts)
        finally:
            self.module = saved
        self.call("Core.module_exit", [self.const(full)], n.span)
        return self.const(None)

    def l_Export(self, n: A.Export) -> Value:
        if self.module is None:
            return self.const(None)  # `export` in Main has no effect
        return self.call("Core.export",
                         [self.const(self.module), self.const(tuple(n.names))], n.span)

    def l_Const(self, n: A.Const) -> Value:
        return self.lower(n.value)

    def l_Global(self, n: A.Global) -> Value:
        for x in n.names:
            if isinstance(x, A.Ident):
                self.sc.env.pop(x.name, None)
            else:  # `global x = v`, `global x += v`
                self.lower(x)
        return self.const(None)

    def l_Local(self, n: A.Local) -> Value:
        loop_sc, loop_vars = self._loop_vars[-1] if self._loop_vars else (None, set())
        loop_vars = loop_vars if loop_sc is self.sc else set()  # (not in a closure's body)
        for x in n.names:
            if isinstance(x, A.Ident) and x.name in loop_vars:
                continue  # `local x` of the loop's own variable declares it again: a no-op
            if isinstance(x, A.Ident) and x.name in self.sc.boxed:
                # a variable closures share: a box of its own, undefined until assigned
                self.sc.env[x.name] = self.call("Core.box", [self.const(UNDEF)], x.span)
            elif isinstance(x, A.Ident):
                v = self.sc.env[x.name] = self.const(UNDEF)
                v.hint = x.name
                self.sc.declared_only.add(x.name)
            else:
                self.lower(x)
        return self.const(None)

    # --- assignment --------------------------------------------------------------------------

    def l_Assign(self, n: A.Assign) -> Value:
        if isinstance(n.target, A.Call) or (
            isinstance(n.target, A.TypeAssert) and isinstance(n.target.value, A.Call)
        ):
            raise self.err("function definitions must be parsed as FunctionDef", n)
        v = self.lower(n.value)
        self.assign(n.target, v, n)
        return v

    def assign(self, t: A.Node, v: Value, n: A.Node) -> None:
        if isinstance(t, A.Ident):
            self.bind(t.name, v, n.span)
        elif isinstance(t, A.TypeAssert):
            self.assign(t.value, self.call("convert", [self.lower(t.type), v], n.span), n)
        elif isinstance(t, A.TupleLit) and any(isinstance(x, A.Splat) for x in t.items):
            self.assign_slurping(t, v, n)
        elif isinstance(t, A.TupleLit):
            for k, item in enumerate(t.items):
                part = self.call("Core.indexed_iterate", [v, self.const(k + 1)], n.span)
                self.assign(item, part, n)
        elif isinstance(t, A.Index) and not t.indices:
            # `r[] = v`: a Ref's value (or a 0-d array's element), written in place
            self.call("Core.setref!", [self.lower(t.obj), v], n.span)
        elif isinstance(t, A.Index) and any(isinstance(i, A.Splat) for i in t.indices):
            obj = self.lower(t.obj)  # `A[I...] = v`
            idx, _, splat = self.lower_args(t.indices, [])
            self.store(t.obj, "setindex", [obj, v] + idx, n, tuple(k + 2 for k in splat))
        elif isinstance(t, A.Index):
            obj = self.lower(t.obj)
            idx = [self.lower_index(i, obj, k, len(t.indices)) for k, i in enumerate(t.indices)]
            self.store(t.obj, "setindex", [obj, v] + idx, n)
        elif isinstance(t, A.Dot):
            obj = self.lower(t.obj)
            self.call("setproperty!", [obj, self.const(_sym(t.name)), v], n.span)
        else:
            raise self.err("invalid assignment target", t)

    def assign_slurping(self, t: A.TupleLit, v: Value, n: A.Node) -> None:
        """`a, b... = x` and `a..., b = x`: the names before the slurping one take x's first
        elements, it takes the rest (Base.rest) less the last elements, which the names
        after it take (Base.split_rest), as Julia lowers them."""
        at = [k for k, x in enumerate(t.items) if isinstance(x, A.Splat)]
        if len(at) > 1:
            raise self.err("multiple `...` in destructuring assignment are ambiguous", t)
        k, after = at[0], t.items[at[0] + 1:]
        for j, item in enumerate(t.items[:k]):
            self.assign(item, self.call("Core.indexed_iterate", [v, self.const(j + 1)],
                                        n.span), n)
        rest = self.call("Core.slurp_rest", [v, self.const(k + 1)], n.span)
        if after:
            parts = self.call("Core.slurp_split", [rest, self.const(len(after))], n.span)
            rest = self.call("Core.indexed_iterate", [parts, self.const(1)], n.span)
            back = self.call("Core.indexed_iterate", [parts, self.const(2)], n.span)
            for j, item in enumerate(after):
                self.assign(item, self.call("Core.indexed_iterate", [back, self.const(j + 1)],
                                            n.span), n)
        self.assign(t.items[k].value, rest, n)

    def functional_target(self, obj: A.Node) -> str | None:
        """The local variable a mutation can be rebound to, or None (globals, boxes,
        fields: those keep in-place semantics)."""
        if isinstance(obj, A.Ident) and obj.name in self.sc.env and obj.name not in self.sc.boxed:
            return obj.name
        return None

    def store(self, obj: A.Node, kind: str, args: list[Value], n: A.Node,
              splat: tuple[int, ...] = ()) -> Value:
        """An array write. On a local variable it is functionalised: `y[i] = v` becomes
        `y = Core.setindex_fn(y, v, i)`, which writes in place on the host (so aliases see
        it, as in Julia) but is a pure update for AD and XLA, and the rebinding makes
        loops and branches carry the array like any other variable."""
        name = self.functional_target(obj)
        if name is None:
            inplace = {"setindex": "setindex!", "setindex_broadcast": "Core.setindex_broadcast!",
                       "broadcast_assign": "Core.broadcast_assign!", "push": "push!",
                       "append": "append!"}[kind]
            return self.call(inplace, args, n.span, splat=splat)
        new = self.call(f"Core.{kind}_fn", args, n.span, splat=splat)
        self.bind(name, new, n.span)
        return new

    def l_OpAssign(self, n: A.OpAssign) -> Value:
        op = n.op
        if op.startswith(".") and isinstance(n.target, A.Call):
            # `view(p, 1:3) .+= v`: the destination is evaluated once
            name = f"#dest{self._fresh_fuse()}"
            self.sc.env[name] = self.lower(n.target)
            try:
                return self.l_OpAssign(A.OpAssign(A.Ident(name, span=n.target.span), op,
                                                  n.value, span=n.span))
            finally:
                self.sc.env.pop(name, None)
        if op.startswith("."):
            rhs = A.Broadcast(A.Ident(op[1:]), [n.target, n.value], span=n.span)
            return self.l_BroadcastAssign(A.BroadcastAssign(n.target, rhs, span=n.span))
        if isinstance(n.target, A.Index) and not n.target.indices:
            obj = self.lower(n.target.obj)  # `r[] += v`
            new = self.call(op, [self.call("Core.deref", [obj], n.span), self.lower(n.value)],
                            n.span)
            self.call("Core.setref!", [obj, new], n.span)
            return new
        if isinstance(n.target, A.Index):
            # x[i] += v evaluates x and the index once
            obj = self.lower(n.target.obj)
            idx = [self.lower_index(i, obj, k, len(n.target.indices))
                   for k, i in enumerate(n.target.indices)]
            cur = self.call("getindex", [obj] + idx, n.span)
            new = self.call(op, [cur, self.lower(n.value)], n.span)
            self.store(n.target.obj, "setindex", [obj, new] + idx, n)
            return new
        cur = self.lower(n.target)
        new = self.call(op, [cur, self.lower(n.value)], n.span)
        self.assign(n.target, new, n)
        return new

    def l_BroadcastAssign(self, n: A.BroadcastAssign) -> Value:
        t = n.target
        if not isinstance(t, A.Index) and self._fuses(n.value, outer=1):
            # `dest .= f.(x)` with an f that may act calls f once per element of dest
            dest = self.lower(t)
            v = self._fused_broadcast(n.value, [dest])  # type: ignore[arg-type]
            return self.store(t, "broadcast_assign", [dest, v], n)
        v = self.lower(n.value)
        if isinstance(t, A.Index):
            obj = self.lower(t.obj)
            idx = [self.lower_index(i, obj, k, len(t.indices)) for k, i in enumerate(t.indices)]
            return self.store(t.obj, "setindex_broadcast", [obj, v] + idx, n)
        dest = self.lower(t)
        return self.store(t, "broadcast_assign", [dest, v], n)

    # --- control flow --------------------------------------------------------------------------

    def lower_if_regions(self, cond: Value, then: list[A.Node] | None, other: list[A.Node] | None,
                         span: A.Span | None = None, swap: bool = False) -> Value:
        """An `if` op whose branches lower `then`/`other` statement lists (None: empty).
        With swap, `then` runs when cond is false (used for exit guards)."""
        if swap:
            then, other = other, then
        sc = self.sc
        memo = self.assigned_memo
        names = assigned_names(then or [], memo=memo) | assigned_names(other or [], memo=memo)
        names |= {f for f in (RET, RETVAL, BRK, CONT) if f in sc.env}
        if sc.toplevel:
            names = {x for x in names if x in sc.env}
        names = {x for x in names if x not in sc.boxed}
        before = dict(sc.env)
        outs: list[tuple[Value, dict[str, Value]]] = []
        regions = []
        for stmts in (then, other):
            reg = Region([])
            regions.append(reg)
            saved_region = sc.region
            sc.region = reg
            sc.env = dict(before)
            v = self.lower_seq(stmts) if stmts else self.const(None)
            outs.append((v, sc.env))
            sc.region = saved_region
        carried = sorted(x for x in names if any(x in env for _, env in outs))
        for (v, env), reg in zip(outs, regions, strict=False):
            vals = [v]
            saved_region = sc.region
            sc.region = reg
            for x in carried:
                vals.append(env[x] if x in env else self.const(UNDEF))
            sc.region = saved_region
            reg.ops.append(Op("yield", vals))
        if swap:
            regions.reverse()
        op = self.emit("if", [cond], 1 + len(carried), span=span, regions=regions)
        sc.env = before
        for x, r in zip(carried, op.results[1:], strict=False):
            r.hint = x
            sc.env[x] = r
        return op.results[0]

    def l_If(self, n: A.If) -> Value:
        c = self.lower(n.cond)
        other: list[A.Node] | None
        if n.other is None:
            other = None
        elif isinstance(n.other, A.Block):
            other = n.other.stmts
        else:
            other = [n.other]
        return self.lower_if_regions(c, n.then.stmts, other, span=n.span)

    def _carried(self, body: Any, extra: set[str]) -> list[str]:
        sc = self.sc
        names = assigned_names(body, memo=self.assigned_memo) | extra
        names |= {f for f in (RET, RETVAL) if f in sc.env and has_return(body)}
        out = sorted(x for x in names if x in sc.env and x not in sc.boxed)
        return out

    def _nest_for(self, n: A.For) -> A.Node:
        """`for a in A, b in B; body; end` as nested loops, with Julia's two differences:
        each inner iteration starts from the outer variable's own value (an assignment to
        `a` in the body does not carry to the next `b`), and `break` leaves the whole
        nest (through a hidden flag the outer loop tests)."""
        (t, it), rest = n.iterators[0], n.iterators[1:]
        span = n.span
        body = list(n.body.stmts)
        outer: list[A.Node] = []
        names: set[str] = set()
        target_names(t, names)
        if names & assigned_names(n.body.stmts):
            self.nfun += 1
            saved = A.Ident(f"#outer{self.nfun}", span=span)
            outer.append(A.Assign(saved, t, span=span))
            body = [A.Assign(t, saved, span=span)] + body
        if has_break(n.body.stmts):
            self.nfun += 1
            flag = A.Ident(f"#broke{self.nfun}", span=span)
            body = _breaks_set(body, flag)
            inner = A.For(rest, A.Block(body, span=span), span=span)
            test = A.If(flag, A.Block([A.Break(span=span)], span=span), None, span=span)
            loop = A.For([(t, it)], A.Block(outer + [inner, test], span=span), span=span)
            return A.Block([A.Assign(flag, A.Literal(False, "Bool", span=span), span=span),
                            loop, A.Literal(None, "Nothing", span=span)], span=span)
        inner = A.For(rest, A.Block(body, span=span), span=span)
        return A.For([(t, it)], A.Block(outer + [inner], span=span), span=span)

    def l_For(self, n: A.For) -> Value:
        if len(n.iterators) > 1:
            return self.lower(self._nest_for(n))
        (target, iterable), = n.iterators
        if isinstance(target, A.Ident) and target.name.startswith(A.OUTER_PREFIX):
            # `for outer i = xs`: each iteration sets the enclosing scope's i
            real = A.Ident(target.name[len(A.OUTER_PREFIX):], span=target.span)
            n = A.For(n.iterators, A.Block([A.Assign(real, target, span=target.span),
                                            *n.body.stmts], span=n.body.span), span=n.span)
        sc = self.sc
        itv = self.lower(iterable)
        brk = has_break(n.body.stmts)
        ret = has_return(n.body.stmts)
        outer_brk = sc.env.get(BRK)  # an enclosing loop's flag, restored after this loop
        if brk:
            sc.env[BRK] = self.const(False)
        carried = self._carried(n.body.stmts, {BRK} if brk else set())
        if ret and RET not in carried:
            carried += [RET, RETVAL]
        inits = [sc.env[x] for x in carried]
        body = Region([])
        xarg = sc.fn.new_value(_hint(target))
        body.args = [xarg] + [sc.fn.new_value(x) for x in carried]
        op = self.emit("for", [itv] + inits, len(carried), span=n.span, regions=[body])
        before = dict(sc.env)
        saved = sc.region
        sc.region = body
        for x, a in zip(carried, body.args[1:], strict=False):
            sc.env[x] = a
        stop_flags = [f for f in (BRK, RET) if f in carried]
        stmts = n.body.stmts
        self._loop_vars.append((sc, {target.name} if isinstance(target, A.Ident) else set()))
        if stop_flags:
            self.lower_guarded_body(stop_flags, target, xarg, stmts)
        else:
            self._bind_target(target, xarg, n)
            self.lower_body(stmts)
        self._loop_vars.pop()
        body.ops.append(Op("yield", [sc.env[x] for x in carried]))
        sc.region = saved
        sc.env = before
        for x, r in zip(carried, op.results, strict=False):
            r.hint = x
            sc.env[x] = r
        sc.env.pop(BRK, None)
        if outer_brk is not None:
            sc.env[BRK] = outer_brk
        return self.const(None)

    def lower_guarded_body(self, flags: list[str], target: A.Node | None, xarg: Value | None,
                           stmts: list[A.Node]) -> None:
        """Body of a loop that may break/return: skipped once a flag is set."""
        sc = self.sc
        if has_break(stmts):
            sc.env[CONT] = self.const(False)
        cond = sc.env[flags[0]]
        for f in flags[1:]:
            cond = self.call("Core.or", [cond, sc.env[f]])
        pre: list[A.Node] = []
        if target is not None and xarg is not None:
            sc.env["#x"] = xarg
            pre = [A.Assign(target, A.Ident("#x"))]
        self.lower_if_regions(cond, None, pre + stmts + [A.Literal(None, "Nothing")], swap=True)
        sc.env.pop("#x", None)
        sc.env.pop(CONT, None)

    def lower_body(self, stmts: list[A.Node]) -> None:
        sc = self.sc
        if has_break(stmts):
            sc.env[CONT] = self.const(False)
        self.lower_seq(stmts)
        sc.env.pop(CONT, None)

    def _bind_target(self, target: A.Node, v: Value, n: A.Node) -> None:
        if isinstance(target, A.Ident) and self.sc.toplevel:
            self.sc.env[target.name] = v  # loop variables are local even at top level
        else:
            self.assign(target, v, n)

    def l_While(self, n: A.While) -> Value:
        sc = self.sc
        brk = has_break(n.body.stmts)
        ret = has_return(n.body.stmts)
        outer_brk = sc.env.get(BRK)  # an enclosing loop's flag, restored after this loop
        if brk:
            sc.env[BRK] = self.const(False)
        carried = self._carried(n.body.stmts, {BRK} if brk else set())
        if ret and RET not in carried:
            carried += [RET, RETVAL]
        inits = [sc.env[x] for x in carried]
        cond_r = Region([sc.fn.new_value(x) for x in carried])
        body = Region([sc.fn.new_value(x) for x in carried])
        op = self.emit("while", inits, len(carried), span=n.span, regions=[cond_r, body])
        before = dict(sc.env)
        saved = sc.region
        # condition: stop once a break/return flag is set
        sc.region = cond_r
        for x, a in zip(carried, cond_r.args, strict=False):
            sc.env[x] = a
        stop_flags = [f for f in (BRK, RET) if f in carried]
        if stop_flags:
            stop = sc.env[stop_flags[0]]
            for f in stop_flags[1:]:
                stop = self.call("Core.or", [stop, sc.env[f]])
            c = self.lower_if_regions(stop, [A.Literal(False, "Bool")], [n.cond])
        else:
            c = self.lower(n.cond)
        cond_r.ops.append(Op("yield", [c]))
        sc.env = dict(before)
        sc.region = body
        for x, a in zip(carried, body.args, strict=False):
            sc.env[x] = a
        self.lower_body(n.body.stmts)
        body.ops.append(Op("yield", [sc.env[x] for x in carried]))
        sc.region = saved
        sc.env = before
        for x, r in zip(carried, op.results, strict=False):
            r.hint = x
            sc.env[x] = r
        sc.env.pop(BRK, None)
        if outer_brk is not None:
            sc.env[BRK] = outer_brk
        return self.const(None)

    def l_Let(self, n: A.Let) -> Value:
        """`let` is a new scope: lowered as an immediately called closure so that its
        bindings stay local. Bindings are made in order, each seeing the ones before it
        (`let a = 1, b = a + 1`): one nested `let` each; a binding that is not a plain
        name (`(a, b) = t`, `g(x) = ...`) is the first statement of its scope."""
        if len(n.bindings) > 1:
            inner = A.Let(n.bindings[1:], n.body, span=n.span)
            return self.l_Let(A.Let(n.bindings[:1], A.Block([inner], span=n.span), span=n.span))
        if n.bindings and not (isinstance(n.bindings[0], A.Ident) or (
                isinstance(n.bindings[0], A.Assign) and isinstance(n.bindings[0].target, A.Ident))):
            body = A.Block([n.bindings[0]] + list(n.body.stmts), span=n.span)
            return self.l_Let(A.Let([], body, span=n.span))
        if n.bindings and isinstance(n.bindings[0], A.Ident):
            # `let x`: a new local of the body, undefined until assigned
            body = A.Block([A.Local([n.bindings[0]], span=n.bindings[0].span)]
                           + list(n.body.stmts), span=n.span)
            return self.l_Let(A.Let([], body, span=n.span))
        params: list[A.Param] = []
        args: list[A.Node] = []
        for b in n.bindings:
            if isinstance(b, A.Assign) and isinstance(b.target, A.Ident):
                params.append(A.Param(b.target.name, span=b.span))
                args.append(b.value)
        lam = self.make_lambda(A.Lambda(params, n.body, span=n.span), name="#let")
        vals = [self.lower(a) for a in args]
        return self.emit("callv", [lam] + vals, span=n.span, kw=(), splat=()).result

    def l_Return(self, n: A.Return) -> Value:
        return self.lower_return(n)

    def l_Break(self, n: A.Break) -> Value:
        raise self.err("break outside a loop", n)

    def l_Continue(self, n: A.Continue) -> Value:
        raise self.err("continue outside a loop", n)

    def l_Try(self, n: Any) -> Value:
        jump = finally_jump(n)
        if jump is not None:
            raise self.err("break, continue and return inside `finally` are not supported",
                           jump)
        # at top level a try body is a soft scope, as a top-level loop's body is here:
        # what it assigns are the globals
        soft = frozenset(assigned_names([n])) if self.sc.toplevel else frozenset()
        body = self.make_lambda(A.Lambda([], n.body, span=n.span), name="#try",
                                soft_globals=soft)
        if getattr(n, "catch_body", None) is not None:
            var = n.var.name if isinstance(getattr(n, "var", None), A.Ident) else (n.var or "#err")
            handler = self.make_lambda(A.Lambda([A.Param(var)], n.catch_body, span=n.span),
                                       name="#catch", soft_globals=soft)
        else:
            handler = self.const(None)
        fin = (self.make_lambda(A.Lambda([], n.finally_body, span=n.span), name="#finally",
                                soft_globals=soft)
               if getattr(n, "finally_body", None) is not None else self.const(None))
        return self.call("Core.trycatch", [body, handler, fin], n.span)


_MODULES = {"Base", "Core", "Test", "Random", "LinearAlgebra", "Statistics", "Flux", "NNlib",
            "Optimisers", "Zygote", "ChainRulesCore", "Printf", "Main", "Iterators", "GradCheck",
            "MathConstants"}


@dataclass
class _InnerCtor:
    """The inner constructor being lowered: its struct's name and global binding, the
    number of the struct's type parameters, and the `{...}` it is defined for
    (`Pos{T}(x) where T` has `[T]`)."""

    name: str
    binding: str
    nparams: int
    type_params: list[A.Node]


#: library functions with side effects or random results (besides those named with `!`):
#: a dotted-call nest that calls one is fused
_ACTING = frozenset({"rand", "randn", "randexp", "randperm", "randcycle", "shuffle", "bitrand",
                     "randstring", "sample", "print", "println", "printstyled", "show",
                     "display", "write", "read", "readline", "readlines", "open", "close",
                     "flush", "sleep", "time", "time_ns", "include", "eval", "Core.eval"})


def _acts(name: str) -> bool:
    """Whether the library function `name` may have side effects or random results."""
    return name.endswith("!") or name.rpartition(".")[2] in _ACTING


def _fusible(e: A.Node) -> bool:
    """Whether e is a dotted call that broadcast fusion takes into its closure: `f.(xs...)`
    or `a .+ b` without keyword or splatted arguments."""
    return (isinstance(e, A.Broadcast) and not e.kwargs
            and not any(isinstance(a, (A.Splat, A.Assign)) for a in e.args))


def _plain_dotted(e: A.Broadcast) -> A.Broadcast:
    """e with `x .|> g` as `g.(x)` and a unary `.-x` as the negation it broadcasts."""
    f = e.func
    if isinstance(f, A.Ident) and f.name == "|>" and len(e.args) == 2:
        return A.Broadcast(e.args[1], [e.args[0]], span=e.span)
    if isinstance(f, A.Ident) and f.name in _UNARY_DOTTED and len(e.args) == 1:
        return A.Broadcast(A.Ident(_UNARY_DOTTED[f.name], span=f.span), e.args, span=e.span)
    return e


def _dot_calls(e: A.Node) -> Iterator[A.Broadcast]:
    """The dotted calls of a fusible nest, outermost first."""
    if _fusible(e):
        e = _plain_dotted(e)  # type: ignore[arg-type]
        yield e  # type: ignore[misc]
        for a in e.args:  # type: ignore[attr-defined]
            yield from _dot_calls(a)


def _is_new(f: A.Node) -> bool:
    """`new` or `new{...}` as the called function."""
    if isinstance(f, A.Curly):
        f = f.obj
    return isinstance(f, A.Ident) and f.name == "new"


def _is_bounded(p: A.Node) -> bool:
    """A type parameter written `<:B` (the parser's `Call(Ident("<:"), [B])`)."""
    return (isinstance(p, A.Call) and isinstance(p.func, A.Ident) and p.func.name == "<:"
            and len(p.args) == 1 and not p.kwargs)


def _where_bound(w: A.Node) -> A.Node | None:
    """The upper bound of a `where` item `T <: B` (None for a plain `T`)."""
    if isinstance(w, A.Comparison) and w.ops == ["<:"] and isinstance(w.operands[0], A.Ident):
        return w.operands[1]
    if isinstance(w, A.Call) and isinstance(w.func, A.Ident) and w.func.name == "<:":
        return w.args[1]
    return None


def _where_name(w: A.Node) -> str:
    if isinstance(w, A.Comparison):
        return w.operands[0].name  # type: ignore[attr-defined]
    return w.args[0].name  # type: ignore[attr-defined]


def _sym(name: str) -> Any:
    return Symbol(name)


def _tv(p: A.Ident) -> Any:
    return TypeVar(p.name)


def _hint(t: A.Node) -> str:
    return t.name if isinstance(t, A.Ident) else "#it"


def _mentions_end(n: A.Node) -> bool:
    if isinstance(n, A.EndMarker):
        return True
    if isinstance(n, A.Call):
        return any(_mentions_end(a) for a in n.args)
    return False


def _param_for(t: A.Node, i: int) -> A.Param:
    return A.Param(t.name if isinstance(t, A.Ident) else f"#t{i}", span=t.span)


def _destructure_body(targets: list[A.Node], expr: A.Node) -> A.Node:
    pre: list[A.Node] = []
    for i, t in enumerate(targets):
        if not isinstance(t, A.Ident):
            pre.append(A.Assign(t, A.Ident(f"#t{i}"), span=t.span))
    return A.Block(pre + [expr], span=expr.span) if pre else expr


def static_type(t: A.Node) -> V.JType:
    """A type named in a `where` bound, resolved without running code."""
    if isinstance(t, A.Ident) and t.name in V.BUILTIN_TYPES:
        return V.BUILTIN_TYPES[t.name]
    raise ZylaError("UndefVarError", f"unknown type in where clause: {t}")
