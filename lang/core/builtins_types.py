"""Built-ins of the type system: `where` static parameters, type variables with run-time
bounds, abstract type definitions, and the parameters of parametric struct instances.

`Core.static_param` and `Core.typevar` only look at types, never at array data, so their
one implementation serves the host and the compiled tier alike (types of traced values
are known at trace time).
"""

from __future__ import annotations

from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim


def static_param(name: str, vararg: bool, n: int, *rest: Any) -> Any:
    """The value of type variable `name` of a method called with `args`, whose
    signature is `sig` (`rest` is the n signature types followed by the n argument
    values; with `vararg` the last value is the tuple of the trailing arguments)."""
    sig, args = rest[:n], rest[n:]
    env: dict = {}
    for k, (t, a) in enumerate(zip(sig, args, strict=False)):
        if not isinstance(t, (V.JType, V.TypeVar)):
            continue
        if (isinstance(t, V.JType) and t.family is V.TypeT and t.params
                and isinstance(t.params[0], V.TypeVar) and isinstance(a, V.JType)):
            env.setdefault(t.params[0].name, a)  # `::Type{T}` of the type a: T is a
            continue
        if vararg and k == n - 1:
            for x in a:
                V.issubtype(typeof(x), t, env)
        else:
            V.issubtype(typeof(a), t, env)
    if name not in env:
        raise ZylaError("UndefVarError",
                        f"static parameter `{name}` not defined (no argument determines it)")
    return env[name]


def make_typevar(name: str, ub: Any) -> V.TypeVar:
    """`T <: B` in a `where` clause whose bound B is only known at run time."""
    return V.TypeVar(name, ub if isinstance(ub, V.JType) else None)


def make_wherevar(name: str, ub: Any) -> V.WhereVar:
    """The variable `S` of a `where S <: B` type value (B is `Any` for a plain `S`)."""
    if not isinstance(ub, (V.JType, V.TypeVar)):
        raise ZylaError("TypeError", "in TypeVar, expected Type, got a value of type "
                                     f"{V.type_name(typeof(ub))}")
    return V.WhereVar(name, ub)


def unionall(tv: V.TypeVar, body: Any) -> Any:
    """`body where tv`, with body evaluated with tv bound: a type holding tv stands for
    the union over it. A variable that is only an unbounded Vararg's length is dropped
    (`Tuple{Vararg{Int, N}} where N` is `Tuple{Vararg{Int}}`), as Julia normalizes it."""
    if not isinstance(body, (V.JType, V.TypeVar)):
        raise ZylaError("TypeError", "in UnionAll, expected Type, got a value of type "
                                     f"{V.type_name(typeof(body))}")
    last = body.params[-1] if isinstance(body, V.JType) and body.family is V.TupleT \
        and body.params else None
    if (isinstance(last, V.JType) and last.family is V.VarargT and len(last.params) == 2
            and last.params[1] is tv and tv.ub in (None, V.AnyT)
            and _occurrences(tv, body) == 1):
        return V.apply_type(V.TupleT, (*body.params[:-1],
                                       V.apply_type(V.VarargT, last.params[:1])))
    return body


def _occurrences(tv: V.TypeVar, t: Any) -> int:
    """How many times the variable tv (by identity) appears in type t."""
    if t is tv:
        return 1
    if isinstance(t, V.JType):
        return sum(_occurrences(tv, p) for p in t.params)
    return 0


def define_abstract(name: str, sup: Any) -> None:
    """`abstract type Name <: Sup end`."""
    t = V.JType(name.rpartition(".")[2], sup if isinstance(sup, V.JType) else V.AnyT, abstract=True)
    current.runtime().set_global(name, t)
    return None


def struct_params(t: V.JType, args: list) -> V.JType:
    """The concrete type of `T(args...)` for a parametric struct family T called without
    parameters (`Bar(2)` is a `Bar{Int64}`): its type variables bound by the argument
    types, as Julia's default constructor infers them."""
    if not t.param_names or t.params:
        return t
    env = bound_params(t, args)
    missing = [p for p in t.param_names if p not in env]
    if missing:
        shown = ", ".join("::" + V.type_name(typeof(a)) for a in args)
        raise ZylaError("MethodError", f"no method matching {t.name}({shown})",
                        hint=f"the type parameter {missing[0]} cannot be inferred; write "
                             f"{t.name}{{...}}(...)")
    return V.apply_type(t.family, tuple(env[p] for p in t.param_names))


def bound_params(family: V.JType, values: Any) -> dict:
    """The type variables of a parametric struct family that its fields' declared types
    bind, given field values (`T => Int64` for `Bar{T}(x::T)` and 2)."""
    env: dict = {}
    for ft, a in zip(family.field_types, values, strict=False):
        if isinstance(ft, (V.JType, V.TypeVar)):
            V.issubtype(typeof(a), ft, env)
    return env


def field_type(t: V.JType, ft: Any) -> Any:
    """A declared field type with the instance's parameters substituted."""
    if isinstance(ft, V.TypeVar):
        if ft.name in t.param_names and len(t.params) == len(t.param_names):
            return t.params[t.param_names.index(ft.name)]
        return V.AnyT
    if isinstance(ft, V.JType) and ft.params and any(isinstance(p, V.TypeVar) for p in ft.params):
        return V.apply_type(ft.family, tuple(field_type(t, p) if isinstance(p, V.TypeVar) else p
                                             for p in ft.params))
    return ft


def make_namedtuple(t: V.JType, args: list, kwargs: dict | None) -> V.NamedTuple:
    """`NamedTuple()`, `NamedTuple(nt)`, `NamedTuple(pairs)` (`:a => 1`, ...) and
    `NamedTuple{(:a, :b)}(values)`."""
    if t.params and isinstance(t.params[0], tuple):
        names = tuple(n.name if isinstance(n, V.Symbol) else str(n) for n in t.params[0])
        vals = tuple(current.runtime().iterate(args[0])) if args else ()
        if len(vals) != len(names):
            raise ZylaError("ArgumentError", f"NamedTuple{{{names}}} needs {len(names)} "
                                             f"values, got {len(vals)}")
        return V.NamedTuple(names, vals)
    if not args:
        return V.NamedTuple((), ())
    if len(args) == 1 and isinstance(args[0], V.NamedTuple):
        return args[0]
    if len(args) == 1:
        items = list(current.runtime().iterate(args[0]))
        if all(isinstance(p, V.StructValue) and p.type.name == "Pair"
               and isinstance(p.fields[0], V.Symbol) for p in items):
            return V.NamedTuple(tuple(p.fields[0].name for p in items),
                                tuple(p.fields[1] for p in items))
    raise ZylaError("MethodError", "no method matching NamedTuple with these arguments",
                    hint="NamedTuple(), NamedTuple(pairs of :name => value) or "
                         "NamedTuple{names}(values)")


def tuple_type_tail(t: Any) -> V.JType:
    """`Base.tuple_type_tail(T)`: the tuple type T without its first element type; an
    unbounded Vararg is its own tail (`Tuple{Vararg{Int}}`), `Vararg{Int, 3}`'s is
    `Tuple{Int, Int}`."""
    if not isinstance(t, V.JType) or t.family is not V.TupleT:
        raise ZylaError("MethodError", "no method matching tuple_type_tail(::"
                                       f"{V.type_name(typeof(t))})")
    ps = t.params
    if len(ps) == 1 and isinstance(ps[0], V.JType) and ps[0].family is V.VarargT:
        elem, *count = ps[0].params or (V.AnyT,)
        if not count or not isinstance(count[0], int):
            return t
        return V.apply_type(V.TupleT, (elem,) * max(count[0] - 1, 0))
    if not ps:
        raise ZylaError("ArgumentError", "Tuple{} has no tail")
    return V.apply_type(V.TupleT, ps[1:])


def install(rt: Any) -> None:
    """Register these built-ins in `rt.builtins`."""
    b = rt.builtins
    V.NamedTupleT.constructor = make_namedtuple  # type: ignore[attr-defined]
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Core.static_param"] = prim("Core.static_param", static_param, static_param, NONDIFF, anyt)
    b["Core.typevar"] = prim("Core.typevar", make_typevar, make_typevar, NONDIFF, anyt)
    b["Core.wherevar"] = prim("Core.wherevar", make_wherevar, make_wherevar, NONDIFF, anyt)
    b["Core.unionall"] = prim("Core.unionall", unionall, unionall, NONDIFF, anyt)
    b["tuple_type_tail"] = prim("tuple_type_tail", tuple_type_tail, tuple_type_tail, NONDIFF,
                                anyt)

    b["Core.abstracttype"] = prim("Core.abstracttype", define_abstract,
                                  HostOnly("type definitions run on the host"), NONDIFF, anyt)
