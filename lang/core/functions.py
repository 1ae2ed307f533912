"""Function values and multiple dispatch.

A `GenericFunction` holds `Method`s; a call picks the most specific applicable method by
the runtime types of the positional arguments, as Julia does. A method's body is either
lowered IR (`Method.fn`) or a Python implementation (`Method.impl`, for built-ins).
`Closure` is a lifted lambda with its captured values; a struct type's call methods make
instances callable (`(m::Affine)(x)`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grammar.errors import ZylaError, is_library_file
from lang.core import values as V
from lang.core.complexes import object_array_eltype
from lang.core.eltypes import recorded
from lang.core.hints import closest_methods
from lang.core.ir import Function


@dataclass(eq=False)
class Method(V.Atomic):
    """One method: positional signature types (JType or TypeVar), and a body.

    `nreq` positional parameters are required, `len(sig)` is the count with optional
    ones; `vararg` means extra arguments are collected into a tuple whose elements must
    be of `vararg_type`. `fn` is the IR body, or `impl` a Python callable for built-ins
    (called as impl(*args, **kwargs))."""

    sig: list[Any]
    nreq: int
    fn: Function | None = None
    impl: Callable[..., Any] | None = None
    vararg: bool = False
    vararg_type: Any = V.AnyT
    kwnames: tuple[str, ...] = ()
    kwvararg: bool = False
    typevars: list[V.TypeVar] = field(default_factory=list)
    owner: GenericFunction | None = None
    prim: Any = None  # a built-in primitive this method forwards to (Base fallbacks)
    vararg_count: int | None = None  # `xs::Vararg{T, 3}`: exactly 3 trailing arguments

    def __post_init__(self) -> None:
        t = self.vararg_type
        if self.vararg and isinstance(t, V.JType) and t.family is V.VarargT:
            # `xs::Vararg{T, N}`: trailing arguments of type T, N of them when N is known
            self.vararg_type = t.params[0] if t.params else V.AnyT
            if len(t.params) == 2 and type(t.params[1]) is int:
                self.vararg_count = t.params[1]

    def applicable(self, types: list[V.JType]) -> dict | None:
        n = len(types)
        if n < self.nreq or (not self.vararg and n > len(self.sig)):
            return None
        env: dict = {}
        for t, s in zip(types, self.sig, strict=False):
            if not V.issubtype(t, s, env):
                return None
            for k in [k for k in env if V.is_alias_var(k)]:
                del env[k]  # (each `::Vector` argument has its own element type)
        if self.vararg:
            if self.vararg_count is not None and n != len(self.sig) + self.vararg_count:
                return None
            for t in types[len(self.sig):]:
                if not V.issubtype(t, self.vararg_type, env):
                    return None
        return env

    def more_specific_than(self, other: Method) -> bool:
        """Julia's specificity, approximated: every parameter type is a subtype of the
        other's, and the methods differ (a vararg method is less specific)."""
        if self.vararg != other.vararg:
            return other.vararg
        n = min(len(self.sig), len(other.sig))
        le = all(_sig_le(a, b) for a, b in zip(self.sig[:n], other.sig[:n], strict=True))
        ge = all(_sig_le(b, a) for a, b in zip(self.sig[:n], other.sig[:n], strict=True))
        if le and not ge:
            return True
        if le and ge:
            if self.vararg and len(self.sig) == len(other.sig):
                # `f(xs::Integer...)` is more specific than `f(xs...)`
                return (_sig_le(self.vararg_type, other.vararg_type)
                        and not _sig_le(other.vararg_type, self.vararg_type))
            return len(self.sig) > len(other.sig) if self.vararg else False
        return False

    def signature_text(self, name: str) -> str:
        parts = [f"::{V.type_name(s) if isinstance(s, V.JType) else s}" for s in self.sig]
        if self.vararg:
            parts.append("...")
        return f"{name}({', '.join(parts)})"


def _sig_le(a: Any, b: Any) -> bool:
    if isinstance(b, V.TypeVar):
        b = b.ub or V.AnyT
    if isinstance(a, V.TypeVar):
        a = a.ub or V.AnyT
    return V.issubtype(a, b)


#: a `GenericFunction.find` remembered to have found no method
_NO_METHOD = object()


class GenericFunction(V.Atomic):
    """A named function with methods. Its Julia type is `typeof(name)`."""

    def __init__(self, name: str, module: str = "Main") -> None:
        self.name = name
        self.module = module
        self.methods: list[Method] = []
        self.jtype = V.JType(f"typeof({name})", V.FunctionT)
        self._cache: dict[tuple, Any] = {}  # methods found (or _NO_METHOD), by types
        # methods found for exact Python argument types (one type, or a tuple of two or
        # three) whose Julia types those determine: translated host code's call sites
        # (lang.core.hostcode) dispatch through it
        self.pycache: dict[Any, Method] = {}
        # one-shot hooks called when a method is added or replaced (translated code that
        # assumed what a call of this function dispatches to drops the assumption)
        self.on_change: list[Callable[[], None]] = []

    def add_method(self, m: Method) -> None:
        """Add or replace (same signature) a method, as redefinition does in Julia."""
        m.owner = self
        for i, old in enumerate(self.methods):
            if (
                len(old.sig) == len(m.sig)
                and old.nreq == m.nreq
                and old.vararg == m.vararg
                and (not m.vararg or _same(old.vararg_type, m.vararg_type))
                and all(_same(a, b) for a, b in zip(old.sig, m.sig, strict=True))
            ):
                self.methods[i] = m
                break
        else:
            self.methods.append(m)
        self._cache.clear()
        self.pycache.clear()
        hooks, self.on_change = self.on_change, []
        for hook in hooks:
            hook()

    def memo(self, key: Any, make: Callable[[], Any]) -> Any:
        """`make()`, a fact about this function's methods, remembered under `key` (a
        tuple that is no tuple of types) until a method is added."""
        try:
            return self._cache[key]
        except KeyError:
            v = self._cache[key] = make()
            return v

    def dispatch(self, types: list[V.JType]) -> Method:
        m = self.find(types)
        if m is None:
            raise method_error(self.name, types, self.methods)
        return m

    def find(self, types: list[V.JType]) -> Method | None:
        """The most specific method applicable to arguments of these types, or None (both
        remembered until a method is added)."""
        key = tuple(types)
        try:
            hit = self._cache[key]
            return None if hit is _NO_METHOD else hit
        except (KeyError, TypeError):
            pass
        best: Method | None = None
        found = []
        for m in self.methods:
            if m.applicable(types) is None:
                continue
            found.append(m)
            if best is None or m.more_specific_than(best):
                best = m
        if len(found) > 1 and best is not None and _plain_user_method(best):
            for m in found:
                if m is not best and not best.more_specific_than(m) and _plain_user_method(m):
                    raise ambiguity_error(self.name, types, best, m)
        # (other equally specific ones: the first; Julia would raise an ambiguity, but where
        # the library's methods or type parameters are involved the specificity here is too
        # rough to say so)
        try:
            self._cache[key] = _NO_METHOD if best is None else best
        except TypeError:
            pass
        return best

    def __repr__(self) -> str:
        return self.name

    def jl_show(self) -> str:
        return self.name

    def jl_display(self) -> str:
        n = len(self.methods)
        return f"{self.name} (generic function with {n} method{'s' if n != 1 else ''})"


def elementwise_primitive(f: Any, args: list | tuple) -> Any:
    """The primitive with a vectorised implementation that broadcasting f over args
    would call for every element, or None (then broadcasting loops or vmaps)."""
    prim = getattr(f, "elementwise", None)
    if prim is not None:
        return f
    if not isinstance(f, GenericFunction):
        return None
    types = []
    for a in args:
        t = typeof(a)
        if (t.family in (V.ArrayT,) or t.family is V.UnitRangeT or t.family is V.StepRangeT
                or t.family is V.StepRangeLenT):
            t = t.params[0] if t.params else V.AnyT
            if not isinstance(t, V.JType):
                return None
        types.append(t)
    try:
        m = f.dispatch(types)
    except Exception:
        return None
    p = m.prim
    return p if p is not None and getattr(p, "elementwise", None) is not None else None


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, V.TypeVar) and isinstance(b, V.TypeVar):
        return _same(a.ub or V.AnyT, b.ub or V.AnyT)
    return a == b


def _plain_user_method(m: Method) -> bool:
    """A method of the program's own with a fixed number of arguments and no type
    parameters: where `more_specific_than` is Julia's rule, so that two such methods
    neither of which is more specific make an ambiguous call, as in Julia."""
    return (m.fn is not None and not m.vararg and not m.typevars and m.nreq == len(m.sig)
            and all(isinstance(t, V.JType) and not _has_vars(t) for t in m.sig)
            and not is_library_file(m.fn.file))


def _has_vars(t: Any) -> bool:
    """Whether a type has named type variables among its parameters (an anonymous one,
    `Vector`'s or `<:Real`'s, is fine: the subtype test decides those exactly)."""
    if isinstance(t, V.TypeVar):
        return not t.name.startswith("#")
    return isinstance(t, V.JType) and any(_has_vars(p) for p in t.params)


def ambiguity_error(name: str, types: list[V.JType], a: Method, b: Method) -> ZylaError:
    """Julia's MethodError for a call that two methods match, neither more specific."""

    def sig(ts: list) -> str:  # `f(::A, ::B)`; a callable object's as Julia writes it,
        # `(::D)(::B)` (`call_methods` names its generic function `(D)`)
        parts = [f"::{V.type_name(t) if isinstance(t, V.JType) else t}" for t in ts]
        if name.startswith("("):
            return f"({parts[0]})({', '.join(parts[1:])})"
        return f"{name}({', '.join(parts)})"

    call = sig(types)
    return ZylaError("MethodError", f"{call} is ambiguous. Candidates: {sig(b.sig)}, "
                     f"{sig(a.sig)}; define {call} to resolve it")


def method_error(name: str, types: list[V.JType], methods: list[Method]) -> ZylaError:
    args = ", ".join(f"::{V.type_name(t)}" for t in types)
    msg = f"no method matching {name}({args})"

    cands = closest_methods(name, types, methods)
    hint = ("closest candidates are:\n  " + "\n  ".join(cands)) if cands else None
    return ZylaError("MethodError", msg, hint=hint)


def cannot_convert(x: Any, t: V.JType) -> ZylaError:
    """Julia's MethodError of `convert(t, x)` where no method converts x to t."""
    return ZylaError("MethodError", f"Cannot `convert` an object of type "
                     f"{V.type_name(typeof(x))} to an object of type {V.type_name(t)}")


#: Python types whose values' Julia type they determine
_PLAIN_TYPES = frozenset((int, float, bool, str, type(None)))


def _type_key(x: Any) -> Any:
    """A cheap stand-in for typeof(x), equal for values of equal Julia types: a closure
    type's cache key (typeof of a tuple of closures would recur through their captures)."""
    t = type(x)
    if t in _PLAIN_TYPES:
        return t
    if t is np.ndarray:
        return (x.dtype, x.ndim)
    if t is Closure:
        return x.jtype
    if t is V.StructValue:
        return x.type
    return typeof(x)


@dataclass(eq=False)
class Closure:
    """A lambda or inner function with its captured values (leading IR parameters)."""

    fn: Function
    captures: tuple
    name: str = "#anon"
    # its Julia type: one per definition (the lifted body) and types of the captured
    # values, as in Julia, so that the closures one lambda makes share their dispatch
    jtype: V.JType = None  # type: ignore[assignment]
    # methods: inner named functions can have several methods; lambdas have one
    generic: GenericFunction | None = None

    def __post_init__(self) -> None:
        if self.jtype is None:
            types = self.fn.closure_types
            if types is None:
                types = self.fn.closure_types = {}
            key = tuple([_type_key(c) for c in self.captures])
            t = types.get(key)
            if t is None:
                t = types[key] = V.JType("#closure", V.FunctionT)
            self.jtype = t


    def jl_show(self) -> str:
        return self.name


@dataclass(eq=False)
class PyCallable:
    """A host-only callable made by the runtime (e.g. a pullback returned to the user)."""

    impl: Callable[..., Any]
    name: str = "#pullback"

    def jl_show(self) -> str:
        return self.name

    @property
    def jtype(self) -> V.JType:
        """A Function (`findall(==(2), v)` dispatches on `f::Function`)."""
        return V.FunctionT


# --- typeof -----------------------------------------------------------------------------

_ARRAY_CACHE: dict[tuple, V.JType] = {}


def array_type(elt: V.JType, n: int) -> V.JType:
    key = (elt, n)
    t = _ARRAY_CACHE.get(key)
    if t is None:
        t = _ARRAY_CACHE[key] = V.apply_type(V.ArrayT, (elt, n))
    return t


def typeof(x: Any) -> V.JType:
    """The Julia type of a host value (see lang.core.values for the representation)."""
    by_class = _TYPEOF.get(type(x))
    if by_class is not None:
        return by_class(x)
    return _typeof_any(x)


def _array_typeof(x: np.ndarray) -> V.JType:
    if x.dtype == object:
        # an array of complex numbers of one type is an Array{Complex{T}}
        elt = recorded(x) or object_array_eltype(x) or V.AnyT
    else:
        elt = V.DTYPE_TO_JTYPE.get(x.dtype, V.AnyT)
    return array_type(elt, max(x.ndim, 1) if x.ndim else 0)


def _typeof_any(x: Any) -> V.JType:
    """typeof for a value whose Python class is not in the table (subclasses, traced
    JAX values, Python callables)."""
    if isinstance(x, bool):
        return V.BoolT
    if isinstance(x, int):
        return V.Int64T
    if isinstance(x, float):
        return V.Float64T
    if isinstance(x, np.ndarray):
        return _array_typeof(x)
    if isinstance(x, np.generic):
        return V.DTYPE_TO_JTYPE.get(x.dtype, V.AnyT)
    if isinstance(x, str):
        return getattr(x, "jtype", V.StringT)  # (a SubString is a str subclass)
    if x is None:
        return V.NothingT
    if isinstance(x, tuple):
        return V.apply_type(V.TupleT, tuple(typeof(e) for e in x))
    if isinstance(x, V.NamedTuple):
        return V.apply_type(
            V.NamedTupleT, (x.names, V.apply_type(V.TupleT, tuple(typeof(e) for e in x.values)))
        )
    if isinstance(x, V.StructValue):
        return x.type
    if isinstance(x, GenericFunction):
        return x.jtype
    if isinstance(x, Closure):
        return x.jtype
    if isinstance(x, V.Range):
        elt = typeof(x.start)
        if x.unit:
            return V.apply_type(V.UnitRangeT, (elt,))
        if type(x) is V.WideRange:
            return V.apply_type(V.StepRangeT, (elt, typeof(x.step)))
        if elt is V.Int64T or isinstance(x.start, np.integer):
            return V.apply_type(V.StepRangeT, (elt, elt))  # (an integer range's)
        return V.apply_type(V.StepRangeLenT, (elt,))
    if isinstance(x, V.JType):
        return V.apply_type(V.TypeT, (x,))
    if isinstance(x, V.Symbol):
        return V.SymbolT
    if isinstance(x, V.Char):
        return V.CharT
    if isinstance(x, V.ModuleValue):
        return V.ModuleT
    jt = getattr(x, "jtype", None)
    if isinstance(jt, V.JType):
        if getattr(type(x), "jtype", None) is jt and not hasattr(x, "__dict__"):
            _TYPEOF[type(x)] = _always(jt)  # (a class's constant: found at once next time)
        return jt
    dt = getattr(x, "dtype", None)
    if dt is not None and hasattr(x, "shape"):  # a traced JAX value (0-d is a scalar)
        elt = V.DTYPE_TO_JTYPE.get(np.dtype(dt), V.AnyT)
        return elt if len(x.shape) == 0 else array_type(elt, len(x.shape))
    if callable(x):
        return V.FunctionT
    return V.AnyT


#: `Type{T}` by T, for plain types T (`Float64`, `Complex{Float64}`, `Vector{Int64}`): a
#: Union is left out (its members compare as a set, and the cached Type would print them
#: in another order), and so are types holding type variables (equal ones may differ in
#: what they bind)
_TYPE_OF_TYPE: dict[V.JType, V.JType] = {}


def _plain(x: V.JType) -> bool:
    return x.family is not V.UnionT and all(
        type(p) is int or type(p) is V.JType and not p.params for p in x.params)


def _type_of_type(x: V.JType) -> V.JType:
    """typeof(T) for a type T: `Type{T}`, made once per plain type (calls dispatch on
    it: `promote_type(typeof(x), typeof(y))`)."""
    t = _TYPE_OF_TYPE.get(x)
    if t is None:
        t = V.apply_type(V.TypeT, (x,))
        if _plain(x):
            if len(_TYPE_OF_TYPE) > 4096:
                _TYPE_OF_TYPE.clear()
            _TYPE_OF_TYPE[x] = t
    return t


def _always(t: V.JType) -> Callable[[Any], V.JType]:
    return lambda x: t


#: typeof by a value's exact Python class (the common classes; others: _typeof_any)
_TYPEOF: dict[type, Callable[[Any], V.JType]] = {
    bool: lambda x: V.BoolT, int: lambda x: V.Int64T, float: lambda x: V.Float64T,
    str: lambda x: V.StringT, type(None): lambda x: V.NothingT, np.ndarray: _array_typeof,
    V.Char: lambda x: V.CharT, V.Symbol: lambda x: V.SymbolT,
    V.Irrational: lambda x: x.jtype, V.JType: _type_of_type,
    V.StructValue: lambda x: x.type, GenericFunction: lambda x: x.jtype,
    Closure: lambda x: x.jtype, V.Box: lambda x: V.AnyT,
    tuple: lambda x: V.apply_type(V.TupleT, tuple(typeof(e) for e in x)),
    **{dt.type: _always(t) for dt, t in V.DTYPE_TO_JTYPE.items()},
}


def _undef_typeof(x: Any) -> V.JType:
    raise V.undef_ref_error()  # (an undefined slot has no value, and so no type)


_TYPEOF[V.UndefRef] = _undef_typeof


def register_typeof(cls: type, t: V.JType) -> None:
    """Values of the Python class cls (one that a built-in keeps inside a struct, such as
    BigFloat's mpmath number) have the Julia type t; typeof finds it at once."""
    _TYPEOF[cls] = _always(t)


def call_methods(f: Any) -> GenericFunction:
    """The methods calling the object f may run (`(d::D)(x) = ...`): those defined for a
    receiver of f's type family or of a supertype's (`(l::Layer)(x)` for a struct
    `D <: Layer`, `(a::Float64)(b)`), as one generic function, so that dispatch picks the
    most specific (or finds the call ambiguous) across them. Raises Julia's MethodError
    when there are none."""
    fam = (f.type if isinstance(f, V.StructValue) else typeof(f)).family
    gfs = []
    while fam is not None:  # (the families up to Any: a callable struct's hot path, so
        # by their declared supertypes, not `V.supertype`, which binds parameters)
        gf = getattr(fam, "call_gf", None)
        if gf is not None:
            gfs.append(gf)
        fam = fam.super_.family if fam.super_ is not None else None
    if not gfs:
        raise ZylaError("MethodError", f"objects of type {V.type_name(typeof(f))} are not callable")
    if len(gfs) == 1:
        return gfs[0]
    merged = GenericFunction(gfs[0].name)  # (rare: rebuilt at each call)
    merged.methods = [m for gf in gfs for m in gf.methods]
    return merged


def call_label(f: Any, args: list, kwargs: dict | None = None) -> str:
    """`f(::Vector{Float64}, ::Int64)`: a call as Julia names a method instance."""
    name = getattr(f, "name", None) or V.type_name(typeof(f))
    parts = [f"::{V.type_name(typeof(a))}" for a in args]
    if kwargs:
        parts = [", ".join(parts)] if parts else []
        parts.append("; " + ", ".join(f"{k}::{V.type_name(typeof(v))}" for k, v in kwargs.items()))
        return f"{name}({''.join(parts)})"
    return f"{name}({', '.join(parts)})"
