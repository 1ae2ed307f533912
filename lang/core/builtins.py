"""Built-ins that need the runtime: printing, types and conversion, higher-order array
functions (broadcast, map, comprehensions), tuples and NamedTuples, Test, Random, errors.

Differentiable ones are registered in the primitive table with their rules; host-only
ones carry the reason they cannot be offloaded to XLA.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError, decode_source
from lang.core import bigfloats, current, exceptions, primitives_int, safety, strings
from lang.core import modules as M
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins_iter import LazyIter, lazy_enumerate, lazy_zip, zips_lazily
from lang.core.builtins_types import field_type
from lang.core.complexes import is_complex
from lang.core.eltypes import (
    collected_type,
    copy_tag,
    has_views,
    push_one,
    recorded,
    resize_keeping_eltype,
    tag,
)
from lang.core.exceptions import matches
from lang.core.functions import (
    Closure,
    GenericFunction,
    Method,
    cannot_convert,
    elementwise_primitive,
    typeof,
)
from lang.core.lower import COLON, UNDEF
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    HostOnly,
    Primitive,
    _hx,
    _jx,
    as_array,
    eq_any,
    float_text,
    is_array,
    jl_egal,
    jl_equal,
    jl_isequal,
    jl_size,
    no_bigfloat,
    num_rank,
    prim,
    user_isless,
)
from lang.core.primitives_array import (
    SIZES,
    STORE_CONVERTS,
    _convert_elem,
    _typed_vect,
    _vect,
    collect_results,
    numeric,
    stored_elem,
)
from lang.core.show import jl_display, jl_show, jl_string

PRINT_ONLY = HostOnly("printing runs on the host")


# --- printing ------------------------------------------------------------------------------


def _print(*xs: Any) -> None:
    current.runtime().stdout.write(jl_string(*xs))
    return None


def _println(*xs: Any) -> None:
    current.runtime().stdout.write(jl_string(*xs) + "\n")
    return None


def _show(x: Any) -> None:
    current.runtime().stdout.write(jl_show(x))


def _display(x: Any) -> None:
    current.runtime().stdout.write(jl_display(x, limit=False) + "\n")


def _repr(x: Any) -> str:
    return jl_show(x)


def _show_expr(text: str, v: Any) -> Any:
    current.runtime().stdout.write(f"{text} = {jl_show(v)}\n")
    return v


# --- types -------------------------------------------------------------------------------------


def _isa(x: Any, t: Any) -> bool:
    if not isinstance(t, V.JType):
        raise ZylaError("TypeError", "isa: second argument must be a type")
    return V.issubtype(typeof(x), t)


def _subtype(a: Any, b: Any) -> bool:
    return V.issubtype(a, b)


#: `NTuple{N, T}`: the type of N-tuples of T (`Tuple{T, ..., T}`), Tuple{Vararg{T, N}} for a
#: type variable N
NTupleT = V.NTupleT


def apply_type(base: Any, *params: Any) -> Any:
    if base is NTupleT and len(params) == 2:
        n, t = params
        if isinstance(n, (int, np.integer)) and not isinstance(n, bool):
            return V.apply_type(V.TupleT, (t,) * int(n))
        if isinstance(n, V.TypeVar):  # (Vararg{T, N}: a method's N is bound by its tuple)
            return V.apply_type(V.TupleT, (V.apply_type(V.VarargT, (t, n)),))
        return V.apply_type(V.TupleT, (V.apply_type(V.VarargT, (t,)),))
    if base is NTupleT and len(params) == 1 and type(params[0]) is int:
        t = V.alias_typevar("T")  # NTuple{3}: Tuple{T, T, T} where T
        return V.apply_type(V.TupleT, (t,) * params[0])
    if isinstance(base, V.JType):
        fam = base.family
        wvars = V.where_vars(base) if base.params else None
        if fam is V.UnionT and not wvars:  # (`Alias{T} = Union{A{T}, B{T}}` is below)
            try:
                return V.make_union(params)
            except TypeError as e:
                raise ZylaError("TypeError", f"in Union, {e}") from None
        if wvars:  # `Alias{Int}` for `Alias{S} = Tuple{S, S}`
            if len(params) > len(wvars):
                raise ZylaError("TypeError", f"too many parameters for type {V.type_name(base)}")
            return V.instantiate_where(base, wvars, params)
        if base.params and any(isinstance(p, V.TypeVar) for p in base.params):
            # an alias like Vector = Array{T,1}: fill its type variables in order
            it = iter(params)
            new = tuple(next(it, p) if isinstance(p, V.TypeVar) else p for p in base.params)
            return V.apply_type(fam, new)
        if fam is V.TupleT and any(_bottom_field(p) for p in params):
            raise ZylaError("ErrorException", "Tuple field type cannot be Union{}")
        if fam is V.TupleT and params:
            params = _expand_vararg(params)
        return V.apply_type(fam, tuple(params))
    raise ZylaError("TypeError", f"{base!r} is not a parametric type")


def _expand_vararg(params: tuple) -> tuple:
    """Tuple parameters with a last `Vararg{T, n}` of a known length n written out as n
    T's, as Julia normalizes `Tuple{Vararg{Int, 2}}` to `Tuple{Int, Int}`."""
    last = params[-1]
    if (isinstance(last, V.JType) and last.family is V.VarargT and len(last.params) == 2
            and type(last.params[1]) is int and last.params[1] >= 0):
        return params[:-1] + (last.params[0],) * last.params[1]
    return params


def _bottom_field(p: Any) -> bool:
    """Whether a Tuple parameter is a field of type Union{} (`Union{}` itself or
    `Vararg{Union{}, n}` with n > 0; an unbounded `Vararg{Union{}}` is no field)."""
    if not isinstance(p, V.JType):
        return False
    if p.family is V.VarargT and len(p.params) == 2:
        p = p.params[0] if isinstance(p.params[1], int) and p.params[1] > 0 else None
    return isinstance(p, V.JType) and p.family is V.UnionT and not p.params


_INT_RANGES: dict[Any, tuple[int, int]] = {}


def _int_range(d: np.dtype) -> tuple[int, int]:
    r = _INT_RANGES.get(d)
    if r is None:
        info = np.iinfo(d)
        r = _INT_RANGES[d] = (int(info.min), int(info.max))
    return r


WIDE = V.WIDE_INTS


def inexact_error(t: V.JType, x: Any, shown: str) -> ZylaError:
    """Julia's `InexactError(nameof(T), T, x)` for a number x that the type t cannot hold
    (`shown` is x as the message writes it), caught with its fields."""
    err = ZylaError("InexactError", f"{V.type_name(t)}({shown})")
    et = current.runtime().builtins.get("InexactError")
    if isinstance(et, V.JType) and et.is_struct and len(et.fields) == 3:
        err.value = V.StructValue(et, [V.Symbol(V.type_name(t)), t, x])
    return err


def _convert_wide(t: V.JType, x: Any) -> Any:
    """Conversions to and from Int128 and UInt128: exact or an InexactError."""
    if t in V.WIDE_TYPES:
        target = V.WIDE_TYPES[t]
        if type(x) is V.Char:
            x = ord(x.value)
        if isinstance(x, V.Rational):  # BigInt(6//2) == 3; BigInt(1//2) is inexact
            if x.denominator != 1:
                raise ZylaError("InexactError", f"{V.type_name(t)}({jl_show(x)})")
            x = x.numerator
        if is_array(x) or N.dtype_of(x).kind not in "fiub" and type(x) not in WIDE:
            raise cannot_convert(x, t)
        if isinstance(x, (float, np.floating)) and not float(x).is_integer():
            raise ZylaError("InexactError", f"{V.type_name(t)}({float_text(float(x))})")
        v = int(x)
        if target(v).value != v:
            raise ZylaError("InexactError", f"{V.type_name(t)}({v})")
        return target(v)
    if t in (V.AnyT, V.NumberT, V.RealT, V.IntegerT) or t is typeof(x) or (
            t is V.SignedT and x.signed) or (t is V.UnsignedT and not x.signed):
        return x
    d = V.JTYPE_TO_DTYPE.get(t)
    if d is None:
        raise cannot_convert(x, t)
    if d.kind == "f":
        with np.errstate(over="ignore"):  # Float16 of a huge Int128 is Inf16
            return N.host_scalar(d.type(float(x) if type(x) is V.BigInt else x.value))
    if d.kind == "b":
        if x.value not in (0, 1):
            raise ZylaError("InexactError", f"Bool({x.value})")
        return bool(x.value)
    lo, hi = _int_range(d)
    if not lo <= x.value <= hi:
        raise ZylaError("InexactError", f"{V.type_name(t)}({x.value})")
    return N.host_scalar(d.type(x.value))


def _convert_rational(t: V.JType, d: np.dtype, x: V.Rational) -> Any:
    """A Rational as float type t (the nearest float, ties to even) or as integer type t
    (exact, else an InexactError)."""
    if d.kind == "f":
        near = N.host_scalar(d.type(float(x)))  # Float64 is exact here; narrower may be off
        if d != np.float64 and np.isfinite(near):
            cands = [near, np.nextafter(d.type(near), d.type(np.inf)),
                     np.nextafter(d.type(near), d.type(-np.inf))]
            cands = [N.host_scalar(c) for c in cands if np.isfinite(c)]
            near = min(cands, key=lambda c: (abs(Fraction(float(c)) - x),
                                             int(np.asarray(c).view(f"u{d.itemsize}")) & 1))
        return near
    if x.denominator != 1:
        raise ZylaError("InexactError", f"{V.type_name(t)}({x.numerator}//{x.denominator})")
    v = int(x.numerator)
    lo, hi = _int_range(d) if d.kind != "b" else (0, 1)
    if not lo <= v <= hi:
        raise ZylaError("InexactError", f"{V.type_name(t)}({v}//1)")
    return bool(v) if d.kind == "b" else N.host_scalar(d.type(v))


def _to_rational(t: V.JType, x: Any) -> Any:
    """`convert(Rational{T}, x)` of an integer, Rational or float x: exact (a float's exact
    value, `Rational{Int}(0.5) == 1//2`; ±Inf is ±1//0), else an InexactError (a value
    T's parts do not hold); T is a concrete integer type other than Bool."""
    cls = V.RATIONAL_OF.get(t.params[0])
    if cls is None:
        raise ZylaError("ErrorException", f"{V.type_name(t)} is not supported (only "
                        "Rational{T} of a concrete integer type T other than Bool)")
    if type(x) is cls:
        return x
    if isinstance(x, V.Rational) and x.denominator == 0:
        return cls.infinite(x.numerator)
    if isinstance(x, V.Rational):
        v = Fraction(x.numerator, x.denominator)
    elif isinstance(x, (bool, int, np.integer, np.bool_, V.WideInt)):
        v = Fraction(int(x))
    elif isinstance(x, (float, np.floating)):
        if math.isinf(float(x)):  # Julia's rationalize: ±Inf is ±1//0
            return cls.infinite(1 if x > 0 else -1)
        if math.isnan(float(x)):
            raise ZylaError("InexactError", f"{V.type_name(t)}({float_text(float(x))})")
        v = Fraction(float(x))
    else:
        raise cannot_convert(x, t)
    try:
        return cls(v)
    except OverflowError:
        raise ZylaError("InexactError", f"{V.type_name(t)}({jl_show(x)})") from None


def _fma(x: Any, y: Any, z: Any) -> Any:
    """`fma(x, y, z)` of three floats of one type: x*y + z rounded once, as the hardware's
    fused multiply-add (computed exactly with fractions, then rounded to the nearest)."""
    d = N.dtype_of(x)
    if not all(math.isfinite(float(v)) for v in (x, y, z)):
        with np.errstate(all="ignore"):
            return N.host_scalar(d.type(d.type(x) * d.type(y) + d.type(z)))
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if exact == 0:  # the sign of an exact zero: IEEE's, as x*y + z gives it
        with np.errstate(all="ignore"):
            return N.host_scalar(d.type(d.type(x) * d.type(y) + d.type(z)))
    if d == np.float64:
        try:
            return float(exact)  # (Fraction's float is correctly rounded)
        except OverflowError:
            return math.copysign(math.inf, exact)
    return _convert_rational(V.DTYPE_TO_JTYPE[d], d, V.Rational(exact))


prim("Core.fma_exact", _fma, HostOnly("a fused multiply-add rounded once runs on the host"),
     "(dz, r, x, y, z) -> (dz * y, dz * x, dz)").forward = \
    "(d, r, x, y, z) -> d[1] * y + x * d[2] + d[3]"


#: the types an Irrational is already of
_IRRATIONAL_SUPERS = (V.AnyT, V.NumberT, V.RealT, V.AbstractIrrationalT, V.IrrationalT)


def _convert_irrational(rt: Any, t: V.JType, x: V.Irrational) -> Any:
    """An Irrational as type t: itself as its own type or an abstract one above it, the
    nearest Float64, Float32 or Float16 to its exact value as a float type (Float32(π)
    rounded once, from the exact value), else as its nearest Float64 would convert (an
    InexactError for an integer type)."""
    if t is x.jtype or t in _IRRATIONAL_SUPERS:
        return x
    d = V.JTYPE_TO_DTYPE.get(t)
    if d is not None and d.kind == "f":
        return N.host_scalar(d.type(bigfloats.irrational_float(x, np.finfo(d).nmant + 1)))
    if t.family is V.IrrationalT:
        raise ZylaError("MethodError", f"Cannot `convert` an object of type "
                        f"{V.type_name(x.jtype)} to an object of type {V.type_name(t)}")
    return convert(rt, t, float(x))


for _t in V.WIDE_TYPES:  # (storing into an array of them: lang.core.primitives_array)
    STORE_CONVERTS[_t] = functools.partial(_convert_wide, _t)


def convert(rt: Any, t: Any, x: Any) -> Any:
    """Julia's convert for the numeric types, arrays of them, and identity otherwise (a
    value not of a plain struct type T is Julia's MethodError: the program's methods of
    `convert` come first)."""
    tx = type(x)
    if (t is V.Int64T and tx is int) or (t is V.Float64T and tx is float):
        return x  # the common case: already of the type
    if not isinstance(t, V.JType):
        return x
    if t.family is V.RationalT and len(t.params) == 1:
        return _to_rational(t, x)
    if tx in WIDE or t in V.WIDE_TYPES:
        return _convert_wide(t, x)
    if tx is V.Irrational:
        return _convert_irrational(rt, t, x)
    d = V.JTYPE_TO_DTYPE.get(t.family if not t.params else t)
    if d is not None:
        if is_complex(x):  # Float64(2 + 0im) is 2.0; Bool(im) an InexactError
            if x.fields[1] != 0:
                raise ZylaError("InexactError", f"{V.type_name(t)}({jl_show(x)})")
            return convert(rt, t, x.fields[0])
        if type(x) is V.Char and d.kind in "iu":
            x = ord(x.value)  # `Int('a') == 97`
        if is_array(x):
            raise cannot_convert(x, t)
        if d.kind == "b" and N.dtype_of(x).kind in "fiu" and not (x == 0 or x == 1):
            # Bool(-1), Bool(0.1): only 0 and 1 are Bools
            shown = float_text(float(x)) if N.dtype_of(x).kind == "f" else str(int(x))
            raise ZylaError("InexactError", f"Bool({shown})")
        if d.kind in "iu" and N.dtype_of(x).kind in "fiub":
            is_float = N.dtype_of(x).kind == "f"
            shown = float_text(float(x)) if is_float else str(int(x))
            if is_float and not float(x).is_integer():
                raise inexact_error(t, x, shown)
            lo, hi = _int_range(d)
            if not lo <= (float(x) if is_float else int(x)) <= hi:
                # Int(1e20), Int32(2^40): the value does not fit, as Julia says
                raise inexact_error(t, x, shown)
        if type(x) in V.RATIONALS:
            return _convert_rational(t, d, x)
        if N.dtype_of(x) == N.OBJ:
            if isinstance(x, str) and d.kind == "f":
                raise ZylaError("MethodError", "Cannot `convert` an object of type String to an "
                                               f"object of type {V.type_name(t)}")
            raise cannot_convert(x, t)
        return N.cast(x, d, np) if not hasattr(x, "aval") else x.astype(d)
    if t.family is V.ArrayT and t.params and isinstance(t.params[0], V.JType):
        dd = V.JTYPE_TO_DTYPE.get(t.params[0])
        if dd is not None and is_array(x):
            return _convert_elem(np.asarray(as_array(x)), dd)  # (InexactError: [1.5] to Int)
    if t.family is V.TupleT:
        return _convert_tuple(rt, t, x)
    if t in _ABSTRACT_NUMBER_TARGETS and not V.issubtype(typeof(x), t):
        return _convert_abstract_number(rt, t, x)
    members = V.union_members(t)
    if (members or V.plain_struct(t) or _unconvertible(t)) and not V.issubtype(typeof(x), t):
        # Base: convert(T, x) where T >: Nothing (or Missing) converts to T without them
        # (convert(Union{Int, Nothing}, 2.0) is 2); nothing else converts to another Union,
        # to a struct type without the program's convert method for x (`convert(Point,
        # 1)`), or to an abstract type x is not of (`convert(Shape, 1)`)
        rest = [m for m in members or () if getattr(m, "name", None) not in _OPTIONAL]
        if len(rest) == 1 and len(members) > 1:
            return rt.interp.call_value(rt.lookup("convert"), [rest[0], x])
        raise cannot_convert(x, t)
    return x


def _unconvertible(t: V.JType) -> bool:
    """Whether Base's convert has no method to make a value of the abstract type t from
    one that is not of it: an abstract type without parameters other than Any (a
    program's own `abstract type Shape end`, AbstractString, Function)."""
    return t.abstract and not t.params and t is not V.AnyT and V.union_members(t) is None


#: convert(T, x) for an abstract number type T that x is not of: the type Julia's `T(x)`
#: makes (convert(Integer, 1.0) is 1, convert(AbstractFloat, 2) is 2.0)
_ABSTRACT_NUMBER_TARGETS = {V.IntegerT: V.Int64T, V.SignedT: V.Int64T,
                            V.AbstractFloatT: V.Float64T, V.RealT: None}


def _convert_abstract_number(rt: Any, t: V.JType, x: Any) -> Any:
    """convert(T, x) for an abstract number type T that x is not an instance of: to
    T's default concrete type, or for Real, a complex number's real part when its
    imaginary part is zero (an InexactError otherwise, as Julia's `Real(z)`)."""
    if is_complex(x):
        if x.fields[1] != 0:
            raise ZylaError("InexactError", f"{V.type_name(t)}({jl_show(x)})")
        return convert(rt, t, x.fields[0])
    target = _ABSTRACT_NUMBER_TARGETS[t]
    if target is None or not V.issubtype(typeof(x), V.NumberT):
        raise cannot_convert(x, t)
    return convert(rt, target, x)


def _convert_tuple(rt: Any, t: V.JType, x: Any) -> tuple:
    """convert(T, x) for a tuple type T (fixed, `Vararg`, holding `where` variables):
    each element converted to its parameter (a type variable to its bound, a type that
    holds variables to its family when the element is not of it); a length T does not
    admit, or an x that is not a tuple, is a MethodError."""
    if isinstance(x, tuple) and V.issubtype(typeof(x), t):
        return x
    fixed, rest = _tuple_params(t)
    if not isinstance(x, tuple) or len(x) < len(fixed) or (rest is None and len(x) != len(fixed)):
        raise cannot_convert(x, t)
    return _convert_elements(rt, fixed, rest, x)


def _convert_elements(rt: Any, fixed: tuple, rest: Any, items: Any) -> tuple:
    """The tuple of items, each converted to its type: `fixed[k]` for the k-th, `rest`
    for those after them (a type variable to its bound, a type that holds variables to
    its family when the item is not of it)."""
    generic = rt.lookup("convert")
    out = []
    for k, e in enumerate(items):
        p = fixed[k] if k < len(fixed) else rest
        if isinstance(p, V.TypeVar):
            p = p.ub if isinstance(p.ub, V.JType) else V.AnyT
        if V.issubtype(typeof(e), p):
            out.append(e)
            continue
        if p.params and _has_typevar(p):
            p = p.family  # (Complex{S} where S <: Real: the Complex the element makes)
        out.append(rt.interp.call_value(generic, [p, e]))
    return tuple(out)


def tuple_from_iterable(rt: Any, t: V.JType, x: Any) -> tuple:
    """`T(itr)` for a tuple type T (`Tuple{Char, Char}("za")`, `NTuple{20, Int}(countfrom(2))`):
    T's leading elements taken from itr one by one (an ArgumentError when it has fewer),
    all the rest for a Vararg, each converted to its type; a TypeError when the result
    is not a T (`NTuple{3}([1, nothing, nothing])`), as Base's `_totuple`."""
    fixed, rest = _tuple_params(t)
    it = iter(rt.iterate(x))
    items = list(itertools.islice(it, len(fixed)))
    if len(items) < len(fixed):
        raise ZylaError("ArgumentError", f"too few elements for tuple type {V.type_name(t)}")
    if rest is not None:
        items.extend(it)
    out = _convert_elements(rt, fixed, rest, items)
    if not V.issubtype(typeof(out), t):
        raise ZylaError("TypeError", f"in typeassert, expected {V.type_name(t)}, got a value "
                                     f"of type {V.type_name(typeof(out))}")
    return out


def _tuple_params(t: V.JType) -> tuple[tuple, Any]:
    """A tuple type's leading parameters and the type of the elements after them (None
    when it takes no more): `Tuple{Int, Vararg{Real}}` is ((Int,), Real); an unparameterised
    `Tuple` takes any elements."""
    if t is V.TupleT:
        return (), V.AnyT
    ps = t.params
    last = ps[-1] if ps else None
    if not (isinstance(last, V.JType) and last.family is V.VarargT):
        return ps, None
    elem = last.params[0] if last.params else V.AnyT
    count = last.params[1] if len(last.params) == 2 else None
    if isinstance(count, int):
        return ps[:-1] + (elem,) * count, None
    return ps[:-1], elem


def _has_typevar(t: Any) -> bool:
    """Whether type t holds a type variable in its parameters (at any depth)."""
    if isinstance(t, V.TypeVar):
        return True
    return isinstance(t, V.JType) and any(_has_typevar(p) for p in t.params)


def _promote_rational(a: Any, b: Any) -> V.JType:
    """promote_type with a Rational: Rational{T} beside an integer type S (or Rational{S})
    is Rational{promote_type(T, S)}, beside a float type that float type, as Julia's; Any
    where that would be a Rational Zyla does not have (Rational{Bool})."""
    parts = []
    for t in (a, b):
        if not isinstance(t, V.JType):
            return V.AnyT
        if t.family is V.RationalT:
            if len(t.params) != 1:
                return V.AnyT
            parts.append((True, t.params[0]))
        else:
            parts.append((False, t))
    inner = promote_type(parts[0][1], parts[1][1])
    floats = [t for is_rat, t in parts if not is_rat and num_rank(t) and num_rank(t)[0] == 2]
    if floats:
        return inner  # (BigInt beside a float: promote_type raised the no-BigFloat error)
    if inner in V.RATIONAL_OF:
        return V.apply_type(V.RationalT, (inner,))
    return V.AnyT


def _promote_irrational(a: Any, b: Any) -> V.JType:
    """promote_type with an Irrational (of two different types): a float type beside it,
    Float64 beside another real (an integer, a Rational, another Irrational), as Julia's;
    Any beside a non-real."""
    other = b if getattr(a, "family", None) is V.IrrationalT else a
    rank = num_rank(other) if isinstance(other, V.JType) else None
    if rank is not None and rank[0] == 2:
        return other
    real = rank is not None or getattr(other, "family", None) in (V.RationalT, V.IrrationalT)
    return V.Float64T if real else V.AnyT


#: the types promote_type joins with any other as a Union (Base's promote_rule for them)
_OPTIONAL = frozenset({"Nothing", "Missing"})


def promote_type(*ts: Any) -> V.JType:
    """Julia's promote_type of number types (see numeric._rank; Int128 and UInt128 rank as
    16-byte integers); the same type stays; numbers with anything else give Any."""
    out = ts[0]
    for t in ts[1:]:
        if t == out:
            continue
        if V.IrrationalT in (getattr(out, "family", None), getattr(t, "family", None)):
            out = _promote_irrational(out, t)
            continue
        if V.RationalT in (getattr(out, "family", None), getattr(t, "family", None)):
            out = _promote_rational(out, t)
            continue
        if getattr(out, "name", None) in _OPTIONAL or getattr(t, "name", None) in _OPTIONAL:
            # Base: promote_rule(Nothing, T) is Union{T, Nothing} (shown `Union{Nothing, T}`)
            out = V.make_union((t, out) if getattr(t, "name", None) in _OPTIONAL else (out, t))
            continue
        r1, r2 = num_rank(out), num_rank(t)
        if V.BigIntT in (out, t) and r1 is not None and r2 is not None and 2 in (r1[0], r2[0]):
            raise no_bigfloat()  # promote_type(BigInt, Float64) is BigFloat
        out = V.AnyT if r1 is None or r2 is None else (out if r1 >= r2 else t)
    return out


def promote(rt: Any, *xs: Any) -> tuple:
    """`promote(xs...)`: the values converted to their promoted type."""
    t = promote_type(*(typeof(x) for x in xs))
    return tuple(xs) if t is V.AnyT else tuple(convert(rt, t, x) for x in xs)


def _is_vector_source(x: Any) -> bool:
    """A collection that `Vector{T}(x)` collects (not an array, which it converts)."""
    return isinstance(x, tuple) or hasattr(x, "jl_iter") or isinstance(
        getattr(x, "items", None), list)


def _new_array(t: V.JType, elt: Any, init: Any, dims: tuple) -> np.ndarray:
    """`Array{T}(undef, dims...)` (zeros, or an object array of undefined slots) and
    `Array{T}(nothing, dims...)` (every element `nothing`; T must admit it)."""
    if init is None and not (isinstance(elt, V.JType) and V.issubtype(V.NothingT, elt)):
        raise ZylaError("MethodError", f"no method matching {V.type_name(t)}(::Nothing, "
                        + ", ".join("::" + V.type_name(typeof(d)) for d in dims) + ")")
    d = V.JTYPE_TO_DTYPE.get(elt, N.OBJ)
    if not dims and len(t.params) > 1:
        dims = (0,) * t.params[1]
    shape = tuple(int(x) for x in
                  reversed(dims[0] if dims and isinstance(dims[0], tuple) else dims))
    if d != N.OBJ:
        return np.zeros(shape, dtype=d)
    a = np.empty(shape, dtype=object)
    a.fill(None if init is None else V.undef_slot(elt, current.runtime().lookup))
    return tag(a, elt if isinstance(elt, V.JType) else V.AnyT)


def convert_call(rt: Any, t: V.JType, args: list, kwargs: dict | None) -> Any:
    """`T(x)` for a non-struct type T: conversions and array constructors."""
    fam = t.family
    if fam is V.ArrayT:
        elt = t.params[0] if t.params else V.Float64T
        if args and (isinstance(args[0], _UndefInit) or args[0] is None):
            return _new_array(t, elt, args[0], args[1:])
        if not args and not kwargs and len(t.params) > 1 and t.params[1] == 1:
            # `Vector{Int}()`, `Vector()`: an empty vector (of Any without a type)
            return _typed_vect(np, elt if isinstance(elt, V.JType) else V.AnyT)
        if len(args) == 1 and isinstance(args[0], V.Range) and not isinstance(elt, V.JType):
            return as_array(args[0]).copy()  # `Vector(1:3)` collects the range
        text = strings.text_of(args[0]) if len(args) == 1 else None
        if text is not None:
            # Vector{UInt8}("ab"), Vector{Char}("ab"), Array{UInt8}(GenericString("ab"))
            vector = len(t.params) < 2 or t.params[1:] == (1,)
            if elt is V.UInt8T and vector:
                return primitives_int.codeunits(text)
            if elt is V.CharT and vector:
                return _typed_vect(np, elt, *strings.chars(text))
            raise ZylaError("MethodError", f"no method matching {V.type_name(t)}"
                                           f"(::{V.type_name(typeof(args[0]))})")
        if len(args) == 1 and _is_vector_source(args[0]) and len(t.params) > 1 and (
                t.params[1] == 1):
            # Vector{T}(itr) of a tuple, set or lazy iterator: its elements as a Vector{T}
            vals = [convert(rt, elt, v) if elt in V.JTYPE_TO_DTYPE else v
                    for v in rt.iterate(args[0])]
            return _typed_vect(np, elt, *vals)
        if len(args) == 1:
            out = convert(rt, t, args[0])
            if out is args[0] and type(out) is np.ndarray:
                out = copy_tag(out, out.copy())  # `Array(v) !== v`: a constructor copies
            return out
    if t is V.StringT or fam is V.StringT:
        if len(args) == 1 and is_array(args[0]) and N.dtype_of(as_array(args[0])) == np.uint8:
            # String(bytes): bytes that are not UTF-8 are kept (values.string_bytes)
            text = np.asarray(as_array(args[0])).tobytes().decode("utf-8", "surrogateescape")
            _take_vector(args[0])
            return text
        return jl_string(*args)
    if t is V.SymbolT:
        name = jl_string(*args)
        if "\0" in name:
            raise ZylaError("ArgumentError", "Symbol name may not contain \\0")
        return V.Symbol(name)
    if t is V.CharT:
        x = args[0]
        if isinstance(x, (int, np.integer, *WIDE)) and not isinstance(x, bool):
            if not 0 <= int(x) <= 0x10FFFF:
                raise ZylaError("InexactError", f"Char({int(x)})")
            return V.Char(chr(int(x)))
        if isinstance(x, V.Char):
            return x
        raise ZylaError("MethodError", f"no method matching Char(::{V.type_name(typeof(x))})")
    if fam is V.TupleT:
        return tuple_from_iterable(rt, t, args[0])
    if fam is V.NamedTupleT and kwargs:
        return V.NamedTuple(tuple(kwargs), tuple(kwargs.values()))
    if len(args) == 1 and (t in V.JTYPE_TO_DTYPE or t in V.WIDE_TYPES):
        x = args[0]
        if is_array(x):
            raise ZylaError("MethodError",
                            f"no method matching {V.type_name(t)}(::{V.type_name(typeof(x))})",
                            hint=f"to convert each element use {V.type_name(t)}.(x)")
        return convert(rt, t, x)  # (InexactError where the value does not fit)
    if len(args) == 1 and isinstance(args[0], V.StructValue) and args[0].type == t:
        return args[0]
    raise ZylaError("MethodError",
                    "no method matching "
                    f"{V.type_name(t)}({', '.join('::' + V.type_name(typeof(a)) for a in args)})")


def _take_vector(x: Any) -> None:
    """Empty x after `String(x)` read it when x is a Vector{UInt8} of its own memory: Julia's
    String takes such a vector's bytes (views, reinterpreted arrays and ranges are copied
    and kept as they were, as read-only ones: `codeunits(s)`)."""
    if (type(x) is np.ndarray and x.ndim == 1 and x.base is None and x.flags.writeable
            and not has_views(x)):
        V.note_write(x)
        resize_keeping_eltype(x, (0,))


class _UndefInit:
    def jl_show(self) -> str:
        return "UndefInitializer()"


UNDEF_INIT = _UndefInit()


def _typeassert(x: Any, t: Any) -> Any:
    if isinstance(t, V.JType) and not V.issubtype(typeof(x), t):
        raise ZylaError("TypeError", f"in typeassert, expected {V.type_name(t)}, got a value of "
                                     f"type {V.type_name(typeof(x))}")
    return x


# --- boxes, tuples, NamedTuples, fields ---------------------------------------------------------


def _box(v: Any) -> V.Box:
    return V.Box(v, True)


def _unbox(b: V.Box) -> Any:
    if b.value is UNDEF:
        raise ZylaError("UndefVarError", "local variable not defined")
    return b.value


def _setbox(b: V.Box, v: Any) -> None:
    b.value = v
    b.defined = True
    b.version += 1


def _namedtuple(names: tuple, *vals: Any) -> V.NamedTuple:
    return V.NamedTuple(tuple(names), tuple(vals))


def indexed_iterate(x: Any, i: int) -> Any:
    """The i-th element of a destructured value (tuple, NamedTuple, array, range)."""
    if isinstance(x, tuple):
        if i > len(x):
            raise ZylaError("BoundsError",
                            f"attempt to access {len(x)}-element Tuple at index [{i}]")
        return x[i - 1]
    if isinstance(x, V.NamedTuple):
        return x.values[i - 1]
    if isinstance(x, V.Range):
        return x[i - 1]
    if hasattr(x, "shape") and getattr(x, "ndim", 0) >= 1:
        return (N.host_scalar(x.reshape(-1)[i - 1]) if isinstance(x, np.ndarray)
                else x.reshape(-1)[i - 1])
    if isinstance(x, V.StructValue) and x.type.name == "Pair":
        return x.fields[i - 1]
    items = list(current.runtime().iterate(x))
    return items[i - 1]


def _getproperty(x: Any, s: V.Symbol) -> Any:
    return current.runtime().getproperty(x, s)


def _setproperty(x: Any, s: V.Symbol, v: Any) -> Any:
    if isinstance(x, V.StructValue):
        if not x.type.mutable:
            raise ZylaError("ErrorException",
                            f"setfield!: immutable struct of type {x.type.name} cannot be changed")
        i = x.type.fields.index(s.name)
        x.fields[i] = current.runtime().convert_field(x.type.field_types[i], v)
        return v
    if isinstance(x, (tuple, V.NamedTuple)):
        raise ZylaError("ErrorException", "setfield!: immutable struct of type "
                        f"{V.type_name(typeof(x).family)} cannot be changed")
    raise ZylaError("ErrorException", f"cannot assign field {getattr(s, 'name', s)}")


def _tuple(*xs: Any) -> tuple:
    return xs


# --- iteration and higher-order functions ---------------------------------------------------


def _zip(*xs: Any) -> Any:
    """`zip(xs...)`: a vector of tuples, as long as the shortest argument (lazy when an
    argument is a lazy iterator)."""
    if not xs or any(zips_lazily(x) for x in xs):
        return lazy_zip(*xs)
    items = [tuple(t) for t in zip(*[list(current.runtime().iterate(x)) for x in xs], strict=False)]
    return _tuples(items)


def _enumerate(x: Any) -> Any:
    """`enumerate(x)`: a vector of `(i, x[i])` tuples (lazy for a lazy iterator, a Stateful
    or an infinite one)."""
    if zips_lazily(x):
        return lazy_enumerate(x)
    return _tuples([(i + 1, v) for i, v in enumerate(current.runtime().iterate(x))])


def _tuples(items: list) -> np.ndarray:
    """The tuples as a vector of their common type (`Vector{Tuple{Int64, Int64}}`)."""
    out = np.empty(len(items), dtype=object)
    for i, t in enumerate(items):
        out[i] = t
    return tag(out, collected_type(items, typeof)) if items else out


_FIELD_ITERABLE = {"Pair": lambda v: v.fields, "CartesianIndex": lambda v: v.fields[0]}


#: how a numpy element of a vector becomes its host value, by dtype
_HOST_ITEM = {N.F64: float, N.I64: int, N.BOOL: bool}


def _live_items(v: np.ndarray) -> Iterator[Any]:
    """The elements of a vector as its host values, read one by one from the vector as
    it is at each step (as Julia's `iterate(v, i)` does: a `push!` in the loop is seen).
    numpy iterates a vector by index through the sequence protocol, re-reading its length
    and data at each step, so an in-place resize or write is seen; done in C, it is ~8x
    faster than a Python generator."""
    if v.dtype == object:
        return iter(v)
    return map(_HOST_ITEM[v.dtype], v)


def _join(xs: Any, d: Any = "") -> str:
    """`join(xs, delim)`: the texts of xs's elements (as `print` writes them) between
    delim's. A vector of Strings and SubStrings is joined in one step (Python's join takes
    their text as it is)."""
    sep = jl_string(d)
    if type(xs) is np.ndarray and xs.dtype == object and xs.ndim == 1:
        try:  # (str.join refuses anything but texts)
            return sep.join(xs.tolist())
        except TypeError:
            pass
    return sep.join(jl_string(x) for x in current.runtime().iterate(xs))


def iterate_value(rt: Any, x: Any) -> Iterator[Any]:
    if isinstance(x, V.StructValue) and x.type.name in _FIELD_ITERABLE:
        return iter(_FIELD_ITERABLE[x.type.name](x))
    if isinstance(x, V.Range):
        return iter(x)
    if isinstance(x, np.ndarray):
        if x.ndim == 1 and (x.dtype == object or x.dtype in N.PY_ITEM_DTYPES):
            return _live_items(x)
        if x.dtype == object or x.dtype in N.PY_ITEM_DTYPES:
            return iter(x.reshape(-1).tolist())
        return (N.host_scalar(v) for v in x.reshape(-1))
    if isinstance(x, (tuple, list)):
        return iter(x)
    if isinstance(x, V.NamedTuple):
        return iter(x.values)
    if isinstance(x, str):
        return strings.iter_chars(x)
    if isinstance(x, dict):
        pt = dict_pair_type(x)
        if pt is None:
            return (_pair(k, v) for k, v in x.items())
        return (V.StructValue(pt, [k, v]) for k, v in x.items())
    if N.is_scalar(x) or type(x) is V.Char:  # (a number or a Char is a collection of itself)
        return iter((x,))
    if hasattr(x, "aval") and getattr(x, "ndim", 0) > 0:
        # an array being compiled (a JAX value in Zyla's layout, whose row-major order is
        # Julia's column-major order): its elements, as when splatting it into a call
        return iter(list(x.reshape(-1)))
    it = getattr(x, "jl_iter", None)
    if it is not None:
        return it(rt)
    if hasattr(x, "items") and isinstance(x.items, list):
        return iter(x.items)
    if isinstance(x, V.StructValue):
        if x.type.family is rt.builtins.get("Generator"):
            return _generator_items(rt, x)
        gf = rt.builtins.get("iterate")
        if isinstance(gf, GenericFunction):
            return _julia_iterate(rt, gf, x)
    raise ZylaError("MethodError", f"no method matching iterate(::{V.type_name(typeof(x))})")


def _generator_items(rt: Any, g: V.StructValue) -> Iterator[Any]:
    """A Base.Generator's elements, made as they are drawn: its function over its
    iterator's elements, which are drawn natively (in one pass over a Dict or a Set)."""
    f, it = g.fields
    call = rt.interp.call_value
    return (call(f, [v]) for v in rt.iterate(it))


def _julia_iterate(rt: Any, gf: GenericFunction, x: Any) -> Iterator[Any]:
    r = rt.interp.call_value(gf, [x])
    while r is not None:
        v, st = r
        yield v
        r = rt.interp.call_value(gf, [x, st])


def _pair(k: Any, v: Any) -> Any:
    t = current.runtime().builtins["Pair"]
    return V.StructValue(V.apply_type(t, (typeof(k), typeof(v))), [k, v])


def dict_pair_type(d: dict) -> V.JType | None:
    """`Pair{K, V}` of a `Dict{K, V}`: the type of the pairs iterating it gives (a
    `Dict{Any, Any}`'s are `Pair{Any, Any}`), None for a dict with no such types."""
    kt, vt = getattr(d, "key_type", None), getattr(d, "value_type", None)
    if kt is None or vt is None:
        return None
    return V.apply_type(current.runtime().builtins["Pair"], (kt, vt))


#: `filter(f, c)` of host collections that filter to their own kind (Dict, IdDict, Set),
#: by Python class (registered by the modules that define them): (c, the elements kept)
#: -> a new collection like c
FILTERED: dict[type, Callable[[Any, list], Any]] = {}

#: how `keys(d)` presents a Dict's keys (lang.core.builtins_set registers Base's KeySet,
#: a live set of them); without it, a vector of them
DICT_KEYS: list[Callable[[dict], Any]] = []

#: host collections that broadcasting collects first (Julia's broadcastable falls back to
#: iteration: `exp.(Set([1, 2]))` is a vector), registered by the modules that define them
BROADCAST_COLLECTS: set[type] = {strings.CharRange}  # (`uppercase.('a':'c')`)

#: values broadcasting refuses, by Python class: the Julia error's type and message
BROADCAST_REFUSED: dict[type, tuple[str, str]] = {
    dict: ("ArgumentError", "broadcasting over dictionaries and `NamedTuple`s is reserved"),
    V.NamedTuple: ("ArgumentError",
                   "broadcasting over dictionaries and `NamedTuple`s is reserved"),
    V.ModuleValue: ("MethodError", "no method matching length(::Module)"),
}


def _refuse_broadcast(args: tuple) -> None:
    for a in args:
        for cls in type(a).__mro__:
            err = BROADCAST_REFUSED.get(cls)
            if err is not None:
                raise ZylaError(*err)


def _is_ref(a: Any) -> bool:
    return type(a) is V.StructValue and a.type.family.name == "Ref"


def unref_args(args: Any) -> tuple:
    """Broadcast arguments with each `Ref(x)` as the 1-tuple `(x,)`: one element, the
    same for every call (`f.(Ref(model), xs)`), as Julia broadcasts a Ref."""
    return tuple((a.fields[0],) if _is_ref(a) else a for a in args)


def ref_call(args: Any) -> list | None:
    """The call a broadcast over Refs and scalars only is (`length.(Ref(v))` is
    `length(v)`: a 0-dimensional broadcast), or None when a collection takes part."""
    if not any(_is_ref(a) for a in args) or any(
            not _is_ref(a) and (is_array(a) or isinstance(a, (tuple, V.Range))) for a in args):
        return None
    return [a.fields[0] if _is_ref(a) else a for a in args]


def tuple_broadcast_length(args: tuple | list) -> int:
    """The length of a broadcast over tuples: a 1-tuple extends to the others' length
    (`(1, 2, 3) .+ (1,)`); other lengths must agree."""
    lens = {len(a) for a in args if isinstance(a, tuple)}
    longer = lens - {1}
    if len(longer) > 1:
        sizes = ", ".join(f"({k},)" for k in sorted(lens))
        raise ZylaError("DimensionMismatch", "arrays could not be broadcast to a common size; "
                        f"got sizes {sizes}")
    return longer.pop() if longer else 1


#: operators whose vectorised form takes two operands (their one-argument methods differ)
_BINARY_ELEMENTWISE = frozenset({"+", "-", "*"})


def _returns_its_argument(f: Any) -> bool:
    """Whether f is `identity` or a one-parameter lambda whose body only returns it."""
    if isinstance(f, Primitive):
        return f.name == "identity"
    fn = f.fn if isinstance(f, Closure) else None
    if fn is None or fn.vararg or fn.nkw or len(fn.params) != fn.ncaptures + 1:
        return False
    ops = fn.body.ops
    return (len(ops) == 1 and ops[0].name == "return"
            and ops[0].operands[0] is fn.body.args[fn.ncaptures])


#: the abstract interpretation of a call on numbers of given types (the compile tier
#: registers it: backend.dumps.result_type): `(f, element types) -> result type or None`
RESULT_TYPE: list[Callable[[Any, list], V.JType | None]] = []


def _empty_result_eltype(f: Any, args: tuple) -> V.JType | None:
    """The element type of f's broadcast (or map) over empty arrays, where it is known
    without calling f, as Julia's inference gives it: a type T's own (`map(Integer,
    Any[])` is a Vector{Integer}), the argument's for a function that returns its
    argument (`map(v -> v, Vector{Union{}}())`), or, over arrays of numbers, what
    abstract interpretation of f on numbers of their element types gives (`map(x -> x +
    1, Int[])` is a Vector{Int64}, `[x > 0 for x in Float64[]]` a Vector{Bool}); Any
    where none of these tells (Julia's inference may know more); None for the default."""
    if isinstance(f, V.JType) and len(args) == 1:
        return f
    if len(args) == 1 and is_array(args[0]) and _returns_its_argument(f):
        a = args[0]
        return (recorded(a) or V.AnyT) if a.dtype == object else V.eltype_of_array(a)
    if not RESULT_TYPE or not all(is_array(a) or N.is_scalar(a) for a in args):
        return None
    elts = [V.eltype_of_array(a) if is_array(a) else typeof(a) for a in args]
    if not all(t in V.JTYPE_TO_DTYPE for t in elts):
        return None
    return RESULT_TYPE[0](f, elts) or V.AnyT


def _empty_of(t: V.JType, shape: tuple) -> np.ndarray:
    """An empty array of the given (numpy) shape and element type t."""
    d = V.JTYPE_TO_DTYPE.get(t)
    return np.empty(shape, dtype=d) if d is not None else tag(np.empty(shape, dtype=object), t)


def broadcast_host(interp: Any, f: Any, *args: Any) -> Any:
    """Julia broadcasting on the host: vectorised for elementwise primitives and
    numeric type conversions, an element loop otherwise."""
    _refuse_broadcast(args)
    if any(type(a) in BROADCAST_COLLECTS for a in args):
        rt = current.runtime()
        args = tuple(collect_results(items := rt.iterate_all(a), (len(items),))
                     if type(a) in BROADCAST_COLLECTS else a for a in args)
    call = ref_call(args)
    if call is not None:
        return interp.call_value(f, call)
    if any(isinstance(a, LazyIter) for a in args):  # an iterator takes part collected, as
        # Julia's broadcastable does (`mean.(Iterators.partition(v, n))`: one mean per part)
        rt = current.runtime()
        args = tuple(_collect_lazy(rt, a) if isinstance(a, LazyIter) else a for a in args)
    if any(type(a) is V.StructValue for a in args):
        args = tuple(_broadcastable(a) for a in args)
    if any(_is_plain_array_struct(a) for a in args):
        # an array type of its own (Symmetric, a program's `<: AbstractArray` with size and
        # getindex) broadcasts as its elements do, into an Array (Base's DefaultArrayStyle)
        rt = current.runtime()
        args = tuple(_elements_of(rt, a) if _is_plain_array_struct(a) else a for a in args)
    args = tuple(as_array(a) if isinstance(a, V.Range) else a for a in unref_args(args))
    if any(is_array(a) for a in args):
        # beside arrays, a tuple is a 1-d collection too (of its elements, whatever they are)
        args = tuple(as_array(a) if isinstance(a, tuple) else a for a in args)
    if not any(is_array(a) for a in args):
        if any(isinstance(a, tuple) for a in args):
            n = tuple_broadcast_length(args)
            return tuple(
                interp.call_value(f, [(a[0] if len(a) == 1 else a[i]) if isinstance(a, tuple)
                                      else a for a in args])
                for i in range(n)
            )
        return interp.call_value(f, list(args))
    p = elementwise_primitive(f, args)
    if p is not None and ((len(args) == 1 and p.name in _BINARY_ELEMENTWISE)
                          or any(isinstance(a, V.JType) for a in args)):
        p = None  # `broadcast(-, x)`: the one-argument method; a type is one value
    # (a numpy dtype compares equal to the type `object`; `is` would differ)
    if p is not None and not any(getattr(a, "dtype", None) == object for a in args):  # noqa: E721
        # (arrays of strings or other objects take the element loop below)
        _check_broadcast(args)
        try:
            return p.elementwise(np, *args)
        except TypeError:
            pass  # (`broadcast(+, a, b, c)`: the vectorised form takes two; loop below)
    if (isinstance(f, V.JType) and f in V.JTYPE_TO_DTYPE and len(args) == 1
            and np.asarray(args[0]).dtype != object):  # (objects: `Int(x)` for each below)
        a = np.asarray(args[0])
        d = V.JTYPE_TO_DTYPE[f]
        if d.kind == "i" and a.dtype.kind == "f" and not np.all(np.mod(a, 1) == 0):
            raise ZylaError("InexactError", f"{V.type_name(f)}: non-integer value")
        return a.astype(d)
    shape = _check_broadcast(args)
    arrs = [np.broadcast_to(a, shape).reshape(-1) if is_array(a) else None for a in args]
    n = int(np.prod(shape)) if shape else 1
    out = []
    call = interp.call_value
    for k in range(n):
        el = [N.host_scalar(arr[k]) if arr is not None else a
              for a, arr in zip(args, arrs, strict=True)]
        out.append(call(f, el))
    if not out:
        t = _empty_result_eltype(f, args)
        if t is not None:
            return _empty_of(t, shape)
    if not out and any(getattr(a, "dtype", None) == object for a in args):  # noqa: E721
        # (no element to call f on: Julia infers the element type, here Any, not Float64)
        return tag(np.empty(shape, dtype=object), V.AnyT)
    return collect_results(out, tuple(reversed(shape)))


#: LinearAlgebra's structured matrices: their broadcasts keep the structure where they can
#: (`sin.(D)` is a Diagonal), which the element loop would not
_STRUCTURED_MATRICES = frozenset({"Diagonal", "Bidiagonal", "Tridiagonal", "SymTridiagonal",
                                  "UpperTriangular", "LowerTriangular", "UnitUpperTriangular",
                                  "UnitLowerTriangular"})


def _is_plain_array_struct(a: Any) -> bool:
    """Whether a is a struct value of an AbstractArray type whose broadcast is an Array."""
    return (isinstance(a, V.StructValue) and V.issubtype(a.type, V.AbstractArrayT)
            and a.type.name not in _STRUCTURED_MATRICES)


def _broadcastable(a: Any) -> Any:
    """What a broadcast argument broadcasts as: for a program's struct (not an array) with
    a `Broadcast.broadcastable` method, that method's result, the Array of its elements
    where the result is a struct indexed over its `axes` (`broadcastable(x::T) = x` with
    `axes` and `getindex`); anything else as it is."""
    if type(a) is not V.StructValue or V.issubtype(a.type, V.AbstractArrayT):
        return a
    rt = current.runtime()
    if a.type.family is rt.builtins.get("Generator"):  # (Base's broadcastable collects it)
        return rt.interp.call_value(rt.lookup("collect"), [a])
    gf = rt.globals.get("Broadcast.broadcastable")
    if not isinstance(gf, GenericFunction):
        return a
    m = gf.find([a.type])
    if m is None:
        return a
    b = rt.interp.invoke(m, [a], None)
    if type(b) is not V.StructValue or V.issubtype(b.type, V.AbstractArrayT):
        return b
    axes = rt.interp.call_value(rt.lookup("axes"), [b])
    return _elements_of(rt, b, tuple(len(r) for r in axes))


def _elements_of(rt: Any, a: Any, size: tuple | None = None) -> Any:
    """The Array of an AbstractArray struct's elements, by its `size` (or the given one)
    and `getindex`."""
    call = rt.interp.call_value
    if size is None:
        size = tuple(int(n) for n in call(rt.lookup("size"), [a]))
    getindex = rt.lookup("getindex")
    # column-major: the first index varies fastest
    items = [call(getindex, [a, *reversed(ix)])
             for ix in itertools.product(*(range(1, n + 1) for n in reversed(size)))]
    return collect_results(items, size)


def _collect_lazy(rt: Any, it: LazyIter) -> Any:
    if it.infinite:
        raise ZylaError("MethodError", f"cannot broadcast over the infinite "
                        f"{it.jtype.name}", hint="take a finite part: Iterators.take(it, n)")
    items = rt.iterate_all(it)
    return collect_results(items, (len(items),))


def _check_broadcast(args: tuple) -> tuple[int, ...]:
    shapes = [np.shape(a) for a in args if is_array(a)]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        sizes = ", ".join(str(tuple(reversed(s))) for s in shapes)
        raise ZylaError("DimensionMismatch", "arrays could not be broadcast to a common size; got "
                                             f"sizes {sizes}") from None


def _map(interp: Any, f: Any, *xs: Any) -> Any:
    if xs and all(N.is_scalar(x) and not isinstance(x, (str, V.Char)) and N.dtype_of(x) != N.OBJ
                  for x in xs):
        return interp.call_value(f, list(xs))  # map(f, x::Number, ys::Number...) = f(x, ys...)
    if len(xs) == 1 and isinstance(xs[0], str):  # map over a String is a String
        out = [interp.call_value(f, [V.Char(c)]) for c in xs[0]]
        if not all(isinstance(c, V.Char) for c in out):
            raise ZylaError("ArgumentError", "map(f, s::AbstractString) requires f to return "
                            "AbstractChar; try map(f, collect(s)) or a comprehension instead")
        return "".join(c.value for c in out)
    if all(isinstance(x, tuple) for x in xs):
        return tuple(interp.call_value(f, list(v)) for v in zip(*xs, strict=False))
    if len(xs) == 1 and isinstance(xs[0], V.NamedTuple):
        return V.NamedTuple(xs[0].names, tuple(interp.call_value(f, [v]) for v in xs[0].values))
    if all(is_array(x) for x in xs):
        arrs = [as_array(x) for x in xs]
        if len({a.shape for a in arrs}) > 1:
            n = min(a.size for a in arrs)
            arrs = [a.reshape(-1)[:n] for a in arrs]
        return broadcast_host(interp, f, *arrs)
    items = [list(interp.rt.iterate(x)) for x in xs]
    out = [interp.call_value(f, list(v)) for v in zip(*items, strict=False)]
    return collect_results(out, (len(out),))


def _foreach(interp: Any, f: Any, *xs: Any) -> None:
    if not xs:  # foreach(f): f() once
        interp.call_value(f, [])
        return None
    items = [list(interp.rt.iterate(x)) for x in xs]
    for v in zip(*items, strict=False):
        interp.call_value(f, list(v))
    return None


def _comprehension(interp: Any, f: Any, cond: Any, *iters: Any) -> Any:
    rt = interp.rt
    if len(iters) == 1:
        it = iters[0]
        out = []
        for x in rt.iterate(it):
            if cond is not None and not interp.call_value(cond, [x]):
                continue
            out.append(interp.call_value(f, [x]))
        if cond is None and is_array(it):
            return collect_results(out, jl_size(as_array(it)))
        return collect_results(out, (len(out),))
    lists = [list(rt.iterate(it)) for it in iters]
    out = []
    import itertools

    # the first iterator varies fastest (column-major result)
    for combo in itertools.product(*reversed(lists)):
        args = list(reversed(combo))
        if cond is not None and not interp.call_value(cond, args):
            continue
        out.append(interp.call_value(f, args))
    if cond is not None:
        return collect_results(out, (len(out),))
    return collect_results(out, tuple(len(x) for x in lists))


def _filter(interp: Any, f: Any, xs: Any) -> Any:
    if isinstance(xs, tuple):
        return tuple(x for x in xs if interp.call_value(f, [x]))
    if isinstance(xs, str):
        return "".join(c for c in xs if interp.call_value(f, [V.Char(c)]))
    out = [x for x in interp.rt.iterate(xs) if interp.call_value(f, [x])]
    like = FILTERED.get(type(xs))
    if like is not None:
        return like(xs, out)
    if isinstance(xs, np.ndarray):
        return (np.array(out, dtype=xs.dtype) if out or xs.dtype != object
                else np.empty(0, dtype=object))
    return collect_results(out, (len(out),))


def _reduce(interp: Any, f: Any, xs: Any, init: Any = UNDEF) -> Any:
    items = list(interp.rt.iterate(xs))
    if init is UNDEF:
        if not items:
            raise ZylaError("ArgumentError", "reducing over an empty collection is not allowed")
        acc, items = items[0], items[1:]
    else:
        acc = init
    for x in items:
        acc = interp.call_value(f, [acc, x])
    return acc


def _isabstracttype(t: Any) -> bool:
    return isinstance(t, V.JType) and bool(t.abstract) and t.family is not V.UnionT


def _isconcretetype(t: Any) -> bool:
    """A type values can have exactly: not abstract, not a Union, no open parameter."""
    if not isinstance(t, V.JType) or t.abstract or t.family is V.UnionT:
        return False
    return not any(isinstance(p, V.TypeVar) for p in t.params)


def _invoke(interp: Any, f: Any, types: Any, *args: Any, **kwargs: Any) -> Any:
    """`invoke(f, Tuple{T...}, args...)`: call the method of f that a call with argument
    types T would pick (the args must be of those types)."""
    if not (isinstance(types, V.JType) and types.family is V.TupleT):
        raise ZylaError("TypeError", "in invoke, expected a Tuple type of the arguments, got "
                        f"{V.type_name(typeof(types))}")
    sig = list(types.params)
    if len(sig) != len(args) or not all(
            V.issubtype(typeof(a), t) for a, t in zip(args, sig, strict=True)):
        raise ZylaError("TypeError", "in invoke, argument type error")
    if isinstance(f, GenericFunction):
        return interp.invoke(f.dispatch(sig), list(args), kwargs or None)
    return interp.call_value(f, list(args), kwargs or None)


def _push(x: Any, *vs: Any) -> Any:
    if isinstance(x, np.ndarray) and x.ndim != 1:  # (only a vector grows)
        raise ZylaError("MethodError", f"no method matching push!(::{V.type_name(typeof(x))}"
                        + "".join(f", ::{V.type_name(typeof(v))}" for v in vs) + ")")
    if isinstance(x, np.ndarray):
        raise _GrowArray(x, vs)
    if isinstance(x, list):
        x.extend(vs)
        return x
    if isinstance(x, dict):
        for p in vs:
            x[p.fields[0]] = p.fields[1]
        return x
    push = getattr(x, "jl_push", None)
    if push is not None:
        return push(*vs)
    if type(x) is V.StructValue:  # (a struct's own push!, where the lowering took x for a
        return _program_method("push!", (x, *vs))  # local vector)
    raise ZylaError("MethodError", f"no method matching push!(::{V.type_name(typeof(x))}, ...)")


def _program_method(name: str, args: tuple) -> Any:
    """A call of the method of `name` that the program (or Zyla's library) defines for
    args' types; Julia's MethodError where there is none."""
    rt = current.runtime()
    gf = rt.lookup(name)
    m = gf.find([typeof(a) for a in args]) if isinstance(gf, GenericFunction) else None
    if m is None or m.fn is None:
        raise ZylaError("MethodError", f"no method matching {name}("
                        + ", ".join(f"::{V.type_name(typeof(a))}" for a in args) + ")")
    return rt.interp.invoke(m, list(args), None)


class _GrowArray(Exception):
    def __init__(self, x: np.ndarray, vs: tuple) -> None:
        self.x, self.vs = x, vs


#: the vector element types a Python number is stored into as it is
_STORED_AS_IS = {float: N.F64, int: N.I64, bool: N.BOOL}


def push_array(x: Any, *vs: Any) -> Any:
    """`push!` on a host vector: numpy arrays cannot grow in place, so the runtime keeps
    vectors resizable by reallocating and rebinding the buffer (see GrowableVector)."""
    if (type(x) is np.ndarray and len(vs) == 1 and x.ndim == 1
            and _STORED_AS_IS.get(type(vs[0])) is x.dtype):  # (the common case, quickly;
        # `is`: a dtype equals None, so `push!(Float64[], nothing)` stored a NaN)
        push_one(x, vs[0])
        return x
    if not isinstance(x, np.ndarray) or x.ndim != 1:
        return _push(x, *vs)
    if len(vs) == 1 and x.dtype.kind == "O":  # (one value of the recorded element type
        # itself, or onto a Vector{Any}: stored as it is)
        elt = recorded(x)
        if elt is None or typeof(vs[0]) is elt:
            push_one(x, vs[0])
            return x
    return _grow(x, list(vs))


def _grow(x: np.ndarray, vs: list) -> np.ndarray:
    base = x
    if base.dtype != object:
        conv = [_conv_elem(v, base.dtype) for v in vs]
    else:
        elt = recorded(base)  # a Vector{String} takes Strings only
        conv = vs if elt is None else [stored_elem(elt, v) for v in vs]
    return _grow_by(base, conv)


def _grow_by(base: np.ndarray, conv: Any) -> np.ndarray:
    """The vector `base` grown in place by the values `conv` (already of its element
    type)."""
    n = base.shape[0]
    # numpy resize in place works when the array owns its data and has no views
    V.note_write(base)
    try:
        resize_keeping_eltype(base, (n + len(conv),))
    except ValueError:
        raise ZylaError("ErrorException", "cannot resize array with shared data") from None
    for k, v in enumerate(conv):
        base[n + k] = v
    return base


def _conv_elem(v: Any, d: np.dtype) -> Any:
    if d.kind == "i" and N.dtype_of(v).kind == "f" and not float(v).is_integer():
        raise ZylaError("InexactError", f"Int64({v})")
    if N.dtype_of(v) == N.OBJ:
        raise cannot_convert(v, V.DTYPE_TO_JTYPE.get(d, V.AnyT))
    return v


def _append(x: Any, ys: Any) -> Any:
    if type(x) is V.StructValue:  # (a struct's own append!: see _push)
        return _program_method("append!", (x, ys))
    if not isinstance(x, np.ndarray):
        raise ZylaError("MethodError", f"no method matching append!(::{V.type_name(typeof(x))}, "
                        f"::{V.type_name(typeof(ys))})")
    return _grow(x, list(current.runtime().iterate(ys)))


def _pop(x: Any) -> Any:
    if isinstance(x, np.ndarray) and x.ndim == 1:
        if x.shape[0] == 0:
            raise ZylaError("ArgumentError", "array must be non-empty")
        v = N.host_scalar(x[-1]) if x.dtype != object else x[-1]
        V.note_write(x)
        resize_keeping_eltype(x, (x.shape[0] - 1,))
        return v
    raise ZylaError("MethodError", "pop! needs a vector")


# `push!`/`append!` as primitives with rules: in place on the host, a concatenation for AD
# and XLA (the lowering of `push!` on a local vector, see lang.core.lower)


def push_fn(xp: Any, x: Any, *vs: Any) -> Any:
    """`push!(v, xs...)` on a local vector: grows it in place on the host (aliases see it,
    as in Julia); a concatenation for AD and XLA."""
    if xp is np:
        return push_array(x, *vs)
    if not vs:
        return x
    return xp.concatenate([x, xp.stack([xp.asarray(v, dtype=x.dtype) for v in vs])])


def append_fn(xp: Any, x: Any, ys: Any) -> Any:
    if xp is np:
        return _append(x, ys)
    return xp.concatenate([x, xp.asarray(as_array(ys, xp), dtype=x.dtype).reshape(-1)])


numeric("Core.push_fn", push_fn, "(dz, z, x, vs...) -> Core.push_back(dz, x, vs...)")
numeric("Core.append_fn", append_fn, "(dz, z, x, ys) -> Core.append_back(dz, x, ys)")


# --- comparison -------------------------------------------------------------------------------


def isapprox(a: Any, b: Any, atol: Any = 0.0, rtol: Any = None, nans: bool = False) -> bool:
    if rtol is None:
        rtol = 0.0 if atol > 0 else math.sqrt(np.finfo(_eps_dtype(a, b)).eps)
    if is_array(a) or is_array(b):
        a, b = np.asarray(as_array(a), dtype=np.float64), np.asarray(as_array(b), dtype=np.float64)
        if a.shape != b.shape:
            return False
        d = float(np.linalg.norm((a - b).ravel()))
        return d <= max(atol, rtol * max(float(np.linalg.norm(a.ravel())),
                                         float(np.linalg.norm(b.ravel()))))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(isapprox(x, y, atol, rtol)
                                        for x, y in zip(a, b, strict=True))
    if isinstance(a, V.NamedTuple) and isinstance(b, V.NamedTuple):
        return a.names == b.names and all(isapprox(x, y, atol, rtol)
                                          for x, y in zip(a.values, b.values, strict=False))
    a, b = float(a), float(b)
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= max(atol, rtol * max(abs(a), abs(b)))


def _eps_dtype(a: Any, b: Any) -> np.dtype:
    """The float dtype whose eps sets isapprox's default rtol: like Julia's rtoldefault, the
    larger default of the two operands (Float32 vs Float64 compares at Float32's)."""
    ds = [d for d in (N.dtype_of(as_array(a)), N.dtype_of(as_array(b))) if d.kind == "f"]
    return max(ds, key=lambda d: float(np.finfo(d).eps)) if ds else N.F64


# --- errors and control ------------------------------------------------------------------------


class JuliaThrow(ZylaError):
    """`throw(x)` of a non-error value, or `error(msg)`."""


def _error(*msg: Any) -> None:
    raise ZylaError("ErrorException", jl_string(*msg))


def _assert(c: Any, msg: Any) -> None:
    if c is not True and c is not np.True_:
        raise ZylaError("AssertionError", jl_string(msg))


_LOG_LABEL = {"Info": "Info", "Warn": "Warning", "Error": "Error", "Debug": "Debug"}


def _log_message(level: str, file: str, line: int, msg: Any, names: tuple, *vals: Any) -> None:
    """What `@info`/`@warn`/`@error`/`@debug` print, as Julia's ConsoleLogger does, on
    stderr: `[ Info: msg`, or a bracketed block with the key = value lines and (for
    warnings, errors and debug messages) `@ Main file:line`. `@debug` prints only when
    JULIA_DEBUG is `all` or `Main`."""
    logger = _current_logger()
    floor = _LOG_LEVELS["Info"]
    if logger is not None:
        if logger.type.name == "NullLogger":
            return None
        floor = _field_or(_field_or(logger, "min_level", None), "level", floor)
    debug_env = os.environ.get("JULIA_DEBUG", "") in ("all", "Main")
    if _LOG_LEVELS[level] < floor and not (level == "Debug" and debug_env):
        return None
    text = msg if isinstance(msg, str) else jl_string(msg)
    lines = text.split("\n")
    lines[0] = f"{_LOG_LABEL[level]}: {lines[0]}"
    lines += [f"  {k} = {jl_show(v)}" for k, v in zip(names, vals, strict=True)]
    if level != "Info" and file:
        lines.append(f"@ Main {file}:{line}")
    rt = current.runtime()
    rt.stdout.flush()  # in order with what the program printed before
    if len(lines) == 1:
        out = f"[ {lines[0]}\n"
    else:
        out = "".join(("┌ " if i == 0 else "└ " if i == len(lines) - 1 else "│ ") + ln + "\n"
                      for i, ln in enumerate(lines))
    stream = _field_or(logger, "stream", None) if logger is not None else None
    if stream is not None and hasattr(stream, "write"):
        stream.write(out)
        return None
    rt.__dict__["log_count"] = rt.__dict__.get("log_count", 0) + 1  # (for @test_nowarn)
    sys.stderr.write(out)
    sys.stderr.flush()
    return None


_LOG_LEVELS = {"Debug": -1000, "Info": 0, "Warn": 1000, "Error": 2000}


def _field_or(v: Any, name: str, default: Any) -> Any:
    if isinstance(v, V.StructValue) and name in v.type.fields:
        return v.getfield(name)
    return default


def _loggers() -> list:
    """The runtime's logger stack: the global logger (or None: the default console
    logger) below the ones `with_logger` pushed."""
    rt = current.runtime()
    return rt.__dict__.setdefault("loggers", [None])


def _current_logger() -> Any:
    return _loggers()[-1]


def _with_logger(interp: Any, f: Any, logger: Any) -> Any:
    stack = _loggers()
    stack.append(logger)
    try:
        return interp.call_value(f, [])
    finally:
        stack.pop()


def _set_global_logger(logger: Any) -> Any:
    stack = _loggers()
    old = stack[0]
    stack[0] = logger
    return old


def _warn_once(key: str, msg: str) -> None:
    """A library's warning, printed as `@warn` prints it, once per runtime and key."""
    rt = current.runtime()
    said = rt.__dict__.setdefault("warned", set())
    if key not in said:
        said.add(key)
        _log_message("Warn", "", 0, msg, ())


def _undef_local(name: str) -> Any:
    raise ZylaError("UndefVarError", f"`{name}` not defined in local scope",
                    hint=f"`{name}` is assigned in this function, so it is a local variable "
                    "here; to use the global, write `global " + name + "` first")


def _is_assigned(v: Any) -> bool:
    """`@isdefined(x)` of a local: whether x's value (its Box's, for a captured one) was
    assigned on the path taken."""
    return (v.value if isinstance(v, V.Box) else v) is not UNDEF


def _isassigned(rt: Any, a: Any, *idx: Any) -> bool:
    """`isassigned(a, i...)`: whether a[i...] is in bounds and not an undefined slot
    (`#undef`)."""
    try:
        rt.interp.call_value(rt.lookup("getindex"), [a, *idx])
    except ZylaError as e:
        if e.kind in ("BoundsError", "UndefRefError"):
            return False
        raise
    return True


def _check_defined(v: Any, name: str) -> Any:
    """A read of the local `name` whose value may be undefined (lang.core.undefined)."""
    if v is UNDEF:
        raise ZylaError("UndefVarError", f"`{name}` not defined in local scope",
                        hint=f"`{name}` is assigned on some paths only, and this path did "
                        "not assign it")
    return v


prim("Core.check_defined", _check_defined,
     HostOnly("a variable is assigned on some paths only, and the data choose the path"),
     "(dz, z, x, name) -> (dz, nothing)", lambda x, *a, **k: x).forward = "(d, z, x, name) -> d[1]"


def _isdefined_global(rt: Any, name: str) -> bool:
    """`@isdefined(x)` of a global: whether the runtime has a binding for it."""
    try:
        rt.lookup(name)
    except ZylaError:
        return False
    return True


def _time_start() -> int:
    """The clock reading that `@time`/`@elapsed` start from (nanoseconds)."""
    return time.perf_counter_ns()


def _compile_clock() -> float:
    """The compile clock's reading (`current.COMPILE_SECONDS`) where `@time` starts."""
    return current.COMPILE_SECONDS[0]


def _time_report(t0: int, c0: float, value: Any) -> Any:
    """The end of `@time ex`: print the seconds since `t0` and, as Julia does, the share
    of them spent compiling (since the compile clock read `c0`); return `ex`'s value.
    Zyla counts no allocations, so Julia's allocation figures are not printed."""
    dt = (time.perf_counter_ns() - t0) / 1e9
    compiled = current.COMPILE_SECONDS[0] - c0
    share = f" ({min(100.0, 100 * compiled / dt):.2f}% compilation time)" if compiled > 0 else ""
    current.runtime().stdout.write(f"  {dt:.6f} seconds{share}\n")
    return value


def _elapsed_since(t0: int, value: Any) -> float:
    """The end of `@elapsed ex`: the seconds since `t0` (after `ex`'s value exists)."""
    return (time.perf_counter_ns() - t0) / 1e9


def translate_exception(e: Exception) -> ZylaError:
    """A Python exception escaping a built-in, as the Julia error a user would see."""
    if isinstance(e, ZylaError):
        return e
    if isinstance(e, ZeroDivisionError):
        return ZylaError("DivideError", "integer division error")
    if isinstance(e, IndexError):
        return ZylaError("BoundsError", str(e))
    if isinstance(e, ValueError) and "read-only" in str(e):  # (view_host's copies)
        return ZylaError("ErrorException", "this array cannot be written into: it is a "
                         "read-only copy (a view by index arrays, or a reshaped range); write "
                         "into the parent array, or into a collect()ed copy")
    if isinstance(e, (ValueError,)) and ("shape" in str(e) or "broadcast" in str(e)
                                         or "dimension" in str(e)):
        return ZylaError("DimensionMismatch", str(e))
    if isinstance(e, BrokenPipeError):  # the reader of stdout went away, as Julia says it
        return ZylaError("IOError", "write: broken pipe (EPIPE)")
    if isinstance(e, OverflowError):
        return ZylaError("OverflowError", "the result does not fit its type")
    if isinstance(e, RecursionError):
        return ZylaError("StackOverflowError", "recursion too deep")
    if isinstance(e, MemoryError):
        return ZylaError("OutOfMemoryError", "the program ran out of memory")
    if isinstance(e, (TypeError, AttributeError, ValueError, KeyError)):
        return ZylaError("MethodError", f"{type(e).__name__}: {e}")
    return ZylaError("InternalError", f"{type(e).__name__}: {e}")


# --- Test ---------------------------------------------------------------------------------------


class TestSet:
    def __init__(self, name: str, parent: TestSet | None) -> None:
        self.name = name
        self.parent = parent
        self.passed = self.failed = self.errored = self.broken = 0
        self.children: list[TestSet] = []
        self.t0 = time.perf_counter()

    def totals(self) -> tuple[int, int, int]:
        p, f, e = self.passed, self.failed, self.errored
        for c in self.children:
            cp, cf, ce = c.totals()
            p, f, e = p + cp, f + cf, e + ce
        return p, f, e


_TESTSETS: list[TestSet] = []


def _where(line: int) -> str:
    return f"{current.runtime().current_file}:{line}"


def _record(ok: bool | None, text: str, line: int, detail: str) -> None:
    out = current.runtime().stdout
    if ok:
        if _TESTSETS:
            _TESTSETS[-1].passed += 1
        return
    if ok is False:
        out.write(f"Test Failed at {_where(line)}\n  Expression: {text}\n{detail}")
        if not _TESTSETS:
            raise ZylaError("Test.FallbackTestSetException",
                            f"There was an error during testing: test failed: {text}")
        _TESTSETS[-1].failed += 1
    else:
        out.write(f"Error During Test at {_where(line)}\n  Test threw exception\n  Expression: "
                  f"{text}\n{detail}")
        if not _TESTSETS:
            raise ZylaError("Test.FallbackTestSetException",
                            f"There was an error during testing: {text}")
        _TESTSETS[-1].errored += 1


def _do_test(interp: Any, thunk: Any, text: str, line: int, op: str | None) -> None:
    """`@test ex` (thunk evaluates ex; where ex is a comparison `a op b`, the thunk
    returns its value and the two operands, shown when it fails)."""
    parts = None
    try:
        v = interp.call_value(thunk, [])
        if op is not None:
            v, parts = v
    except ZylaError as e:
        if not _TESTSETS:
            raise
        _record(None, text, line, f"  {e.kind}: {e.message}\n")
        return None
    if v is True or v is np.True_:
        _record(True, text, line, "")
        return None
    if v is False or v is np.False_:
        detail = ""
        if parts is not None:
            detail = f"   Evaluated: {jl_show(parts[0])} {op} {jl_show(parts[1])}\n"
        _record(False, text, line, detail)
        return None
    _record(None, text, line, f"  Expression evaluated to non-Boolean: {jl_show(v)}\n")
    return None


def _same_exception(got: Any, want: Any) -> bool:
    """`@test_throws E(...)` with an exception value: the thrown one has E's type and
    equal fields."""
    return (isinstance(got, V.StructValue) and got.type == want.type
            and all(jl_equal(x, y) for x, y in zip(got.fields, want.fields, strict=False)))


def _do_test_throws(interp: Any, t: Any, thunk: Any, text: str, line: int) -> None:
    try:
        interp.call_value(thunk, [])
    except ZylaError as e:
        if isinstance(t, V.StructValue):  # an exception value: the same type and fields
            _record(_same_exception(exceptions.exception_value(e), t), text, line,
                    f"    Thrown: {e.kind}\n")
            return None
        if isinstance(t, str):  # a message pattern: the error's text contains it
            _record(t in f"{e.kind}: {e.message}", text, line,
                    f"    Thrown: {e.kind}: {e.message}\n")
            return None
        name = t.name if isinstance(t, V.JType) else str(t)
        if matches(e, t) or name in (e.kind, "Exception", "Any") or e.kind.endswith(name):
            _record(True, text, line, "")
            return None
        _record(False, text, line, f"    Thrown: {e.kind}\n")
        return None
    _record(False, text, line, "    No exception thrown\n")
    return None


def _do_test_broken(interp: Any, thunk: Any, text: str, line: int) -> None:
    """`@test_broken ex`: counted as broken while ex is false or throws."""
    try:
        v = interp.call_value(thunk, [])
    except ZylaError:
        v = False
    if v is True or v is np.True_:
        _record(None, text, line, "  Unexpected Pass\n")
    elif _TESTSETS:
        _TESTSETS[-1].broken += 1
    return None


def _do_test_skip(interp: Any, text: str, line: int) -> None:
    """`@test_skip ex`: a broken test whose expression is never run."""
    if _TESTSETS:
        _TESTSETS[-1].broken += 1


def _do_test_nowarn(interp: Any, thunk: Any, text: str, line: int) -> Any:
    """`@test_nowarn ex`: passes when evaluating ex writes no log message to stderr (as
    Julia's, which requires stderr to stay empty); returns ex's value."""
    rt = current.runtime()
    before = rt.__dict__.get("log_count", 0)
    v = interp.call_value(thunk, [])
    said = rt.__dict__.get("log_count", 0) - before
    _record(said == 0, text, line, "" if said == 0 else f"    {said} message(s) on stderr\n")
    return v


def _do_testset(interp: Any, name: str, thunk: Any) -> None:
    parent = _TESTSETS[-1] if _TESTSETS else None
    ts = TestSet(name, parent)
    if parent is not None:
        parent.children.append(ts)
    _TESTSETS.append(ts)
    try:
        interp.call_value(thunk, [])
    except ZylaError as e:
        ts.errored += 1
        out = current.runtime().stdout
        out.write(f"Error During Test at {name}\n  Got exception outside of a @test\n  "
                  f"{e.kind}: {e.message}\n")
    finally:
        _TESTSETS.pop()
    if parent is None:
        _print_summary(ts)
        p, f, e = ts.totals()
        if f or e:
            raise ZylaError("TestSetException", f"Some tests did not pass: {p} passed, {f} failed, "
                                                f"{e} errored, 0 broken.")
    return None


def _broken_total(ts: TestSet) -> int:
    return ts.broken + sum(_broken_total(c) for c in ts.children)


def _print_summary(ts: TestSet) -> None:
    p, f, e = ts.totals()
    br = _broken_total(ts)
    dt = time.perf_counter() - ts.t0
    rows = [(ts.name, ts)]
    width = max(len("Test Summary:"), len(ts.name))
    cols = ([("Pass", p)] + ([("Fail", f)] if f else []) + ([("Error", e)] if e else [])
            + ([("Broken", br)] if br else []) + [("Total", p + f + e + br)])
    head = "Test Summary:".ljust(width) + " | " + "  ".join(c for c, _ in cols) + "  Time"
    line = ts.name.ljust(width) + " | " + "  ".join(str(n).rjust(len(c))
                                                    for c, n in cols) + f"  {dt:.1f}s"
    _ = rows
    out = current.runtime().stdout
    out.write(head + "\n" + line + "\n")


# --- numbers ------------------------------------------------------------------------------------


def _unit_of_type(t: V.JType, val: int, name: str) -> Any:
    """zero(T) / one(T) of a type without a numpy dtype: Julia's `convert(T, 0)` (Int128,
    Rational{Int}, a program's number type: `T(0)`), the Int for an abstract number type
    (`zero(Real)`); anything else (`zero(Any)`, `zero(String)`) is Julia's MethodError."""
    wide = V.WIDE_TYPES.get(t)
    if wide is not None:
        return wide(val)
    if not V.issubtype(t, V.NumberT):
        raise ZylaError("MethodError", f"no method matching {name}(::Type{{{V.type_name(t)}}})")
    if t.abstract:
        return val
    if t.family is V.RationalT:
        return _to_rational(t, val)
    rt = current.runtime()
    return rt.interp.call_value(t, [val])  # (Base's convert(T, x::Number) = T(x))


def _one(x: Any) -> Any:
    if isinstance(x, V.JType):
        d = V.JTYPE_TO_DTYPE.get(x)
        return N.host_scalar(d.type(1)) if d is not None else _unit_of_type(x, 1, "one")
    if is_array(x):
        return N.xp_for(x).eye(jl_size(x)[0], dtype=as_array(x).dtype)
    return N.cast(1, N.dtype_of(x), np) if N.dtype_of(x) != N.OBJ else _one(typeof(x))


def _zero(x: Any) -> Any:
    if isinstance(x, V.JType):
        d = V.JTYPE_TO_DTYPE.get(x)
        return N.host_scalar(d.type(0)) if d is not None else _unit_of_type(x, 0, "zero")
    if is_array(x):
        return N.xp_for(x).zeros_like(as_array(x))
    return N.cast(0, N.dtype_of(x), np) if N.dtype_of(x) != N.OBJ else _zero(typeof(x))


def _float(x: Any) -> Any:
    if type(x) is V.BigInt or x is V.BigIntT:
        raise no_bigfloat()  # float(big(3)) is a BigFloat in Julia
    if isinstance(x, V.JType):
        return x if x.family in (V.Float64T, V.Float32T, V.Float16T) else V.Float64T
    if isinstance(x, V.StructValue) and V.issubtype(x.type, V.AbstractFloatT):
        return x  # Base's float(x::AbstractFloat) = x, for a program's own float type
    d = N.float_dtype(N.dtype_of(as_array(x)))
    return N.cast(as_array(x), d, np)


def _type_bound(t: Any, which: str) -> Any:
    """typemax(T) / typemin(T) of a numeric type (a MethodError for any other type);
    typemax(x) / typemin(x) of a value are those of its type."""
    if not isinstance(t, V.JType):
        t = typeof(t)
    wide = V.WIDE_TYPES.get(t) if isinstance(t, V.JType) else None
    if wide is V.BigInt:
        raise ZylaError("MethodError", f"no method matching {which}(::Type{{BigInt}})")
    if wide is not None:
        top = (1 << 127) - 1 if wide.signed else (1 << 128) - 1
        return wide(top if which == "typemax" else (-top - 1 if wide.signed else 0))
    d = V.JTYPE_TO_DTYPE.get(t) if isinstance(t, V.JType) else None
    if d is None:
        raise ZylaError("MethodError", f"no method matching {which}(::Type{{{V.type_name(t)}}})")
    if d.kind == "b":
        return which == "typemax"
    if d.kind == "f":
        return N.host_scalar(d.type(np.inf if which == "typemax" else -np.inf))
    lo, hi = _int_range(d)
    return N.host_scalar(d.type(hi if which == "typemax" else lo))


def _typemax(t: Any) -> Any:
    return _type_bound(t, "typemax")


def _typemin(t: Any) -> Any:
    return _type_bound(t, "typemin")


def _eps(x: Any = 1.0) -> Any:
    if isinstance(x, V.JType):
        return N.host_scalar(np.finfo(V.JTYPE_TO_DTYPE[x]).eps)
    with np.errstate(over="ignore", invalid="ignore"):  # (eps(Inf) is NaN, as in Julia)
        out = np.spacing(np.abs(x))  # eps(-x) == eps(x) > 0
        if np.isscalar(out) and np.isinf(out) and np.isfinite(x):
            # eps(floatmax()): the spacing below it (Julia's ldexp(eps(T), exponent(x)))
            out = np.abs(x) - np.nextafter(np.abs(x), type(out)(0))
        return N.host_scalar(out)


def _int_base62(body: str, b: int) -> int:
    """The value of digits in a base from 37 to 62 (0-9, A-Z, then a-z, as Julia's)."""
    v = 0
    for ch in body:
        d = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".find(ch)
        if not 0 <= d < b:
            raise ValueError
        v = v * b + d
    return v


def _parse(rt: Any, t: Any, s: Any, base: Any = None) -> Any:
    """`parse(T, s[; base])` of a number type: surrounding whitespace allowed, an integer
    may have a sign and a 0x/0o/0b prefix; anything else is Julia's ArgumentError, an
    integer too large for T an OverflowError."""
    if not isinstance(s, str) or not isinstance(t, V.JType):
        raise ZylaError("MethodError", f"no method matching parse(::{V.type_name(typeof(t))}, "
                                       f"::{V.type_name(typeof(s))})")
    text = s.strip()
    d = V.JTYPE_TO_DTYPE.get(t)
    if t is V.BoolT and text in ("true", "false"):
        return text == "true"
    if d is not None and d.kind == "f":
        try:
            if "_" in text:
                raise ValueError
            return convert(rt, t, float(text))
        except ValueError:
            raise ZylaError("ArgumentError",
                            f"cannot parse {jl_show(s)} as {V.type_name(t)}") from None
    if (d is None or d.kind not in "iub") and t not in V.WIDE_TYPES:
        raise ZylaError("MethodError", f"no method matching parse(::Type{{{V.type_name(t)}}}, "
                                       "::String)")
    sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text[1:] if text[:1] == "+" else text)
    b = 10 if base is None else int(base)
    if base is None and body[:2].lower() in ("0x", "0o", "0b"):
        b, body = {"x": 16, "o": 8, "b": 2}[body[1].lower()], body[2:]
    if not 2 <= b <= 62:
        raise ZylaError("ArgumentError", f"invalid base: base must be 2 ≤ base ≤ 62, got {b}")
    try:
        if not body or "_" in body or body[0] in "+-" or body != body.strip():
            raise ValueError
        v = sign * (int(body, b) if b <= 36 else _int_base62(body, b))
    except ValueError:
        raise ZylaError("ArgumentError", f"invalid base {b} digits in {jl_show(s)}") from None
    if d is not None and d.kind in "iu" and not np.iinfo(d).min <= v <= np.iinfo(d).max:
        raise ZylaError("OverflowError", f"overflow parsing {jl_show(s)}")
    try:
        return convert(rt, t, v)
    except ZylaError as e:
        if e.kind != "InexactError":
            raise
        raise ZylaError("OverflowError", f"overflow parsing {jl_show(s)}") from None


# --- misc ---------------------------------------------------------------------------------------


def _using(modules: tuple, names: tuple, is_import: bool = False,
           within: str | None = None) -> None:
    """`using`/`import` of standard modules (loading their Zyla source) and of user
    modules (see lang.core.modules)."""
    rt = current.runtime()
    for m in modules:
        if m.removeprefix("Base.") in _BASE_SUBMODULES:
            _use_base_submodule(rt, m.removeprefix("Base."), names, is_import)
            continue
        user = M.user_module(rt, m, within)
        if user is not None:
            M.use(rt, user, names, is_import, within)
            continue
        root = m.split(".")[0]
        fname = _STDLIB_FILES.get(root)
        if fname is not None:
            rt.load_stdlib(fname)
        elif root not in rt.modules and root != "Main":
            if not (rt.globals.get(root) or rt.builtins.get(root)):
                raise ZylaError("ArgumentError", f"Package {root} not found in current path",
                                hint="Zyla ships Base, Test, Random, LinearAlgebra, Statistics, "
                                "Printf, Flux, NNlib, Optimisers, Zygote, ChainRulesCore, "
                                "MLUtils, OneHotArrays, StatsBase, Logging, JLD2, BSON, FileIO, "
                                "MLDatasets")
    return None


#: what `using Base.Iterators` brings in (Base.Iterators' exports; its map, filter,
#: accumulate and reverse stay qualified, beside Base's eager ones)
_ITERATORS_EXPORTS = ("enumerate", "zip", "rest", "countfrom", "take", "drop", "takewhile",
                      "dropwhile", "cycle", "repeated", "product", "flatten", "flatmap",
                      "partition")


#: Base.MathConstants' values: Irrationals (values.Irrational)
_PI = V.Irrational(math.pi, "π", "pi")
_E = V.Irrational(math.e, "ℯ", "e")
_GAMMA = V.Irrational(0.5772156649015329, "γ", "euler")
_PHI = V.Irrational(1.618033988749895, "φ", "phi")
MATH_CONSTANTS = {"π": _PI, "pi": _PI, "ℯ": _E, "e": _E, "γ": _GAMMA, "eulergamma": _GAMMA,
                  "φ": _PHI, "golden": _PHI,
                  "catalan": V.Irrational(0.915965594177219, "catalan", "catalan")}

#: the submodules of Base whose names live in the built-ins as `Module.name`, with the
#: names `using Base.Module` brings in
_BASE_SUBMODULES = {"Iterators": _ITERATORS_EXPORTS, "MathConstants": tuple(MATH_CONSTANTS)}


def _use_base_submodule(rt: Any, module: str, names: tuple, is_import: bool) -> None:
    """`using Base.Iterators` (every name it exports unqualified) or `using
    Base.Iterators: take, drop` (those); `import Base.Iterators` names only the module.
    Likewise for Base.MathConstants."""
    prefix = module + "."
    wanted = list(names) if names else ([] if is_import else [
        n for n in _BASE_SUBMODULES[module] if prefix + n in rt.builtins])
    for name in wanted:
        if prefix + name not in rt.builtins:
            raise ZylaError("UndefVarError", f"`{name}` not defined in `Base.{module}`")
        if name not in rt.globals:
            rt.globals[name] = rt.builtins[prefix + name]


_STDLIB_FILES = {"LinearAlgebra": "linalg.jl", "GradCheck": "gradcheck.jl",
                 "UnicodePlots": "unicodeplots.jl", "Plots": "plots.jl", "Flux": "flux.jl",
                 "NNlib": "flux.jl",
                 "Optimisers": "flux.jl", "ProgressMeter": "flux.jl", "MLUtils": "flux.jl",
                 "OneHotArrays": "flux.jl", "StatsBase": "flux.jl", "MLDataDevices": "flux.jl",
                 "JLD2": "saving.jl", "BSON": "saving.jl", "FileIO": "saving.jl",
                 "MLDatasets": "datasets.jl"}


def _include(path: str) -> Any:
    import os

    if not isinstance(path, str):
        raise ZylaError("MethodError", "include expects a file path (a String)")
    rt = current.runtime()
    base = os.path.dirname(rt.current_file) if rt.current_file else "."
    full = path if os.path.isabs(path) else os.path.join(base, path)
    text = decode_source(full, safety.read_bytes(full, "including"))
    full = safety.readable(full, "including")
    saved = rt.current_file
    rt.current_file = full
    try:
        return rt.run_source(text, full)
    finally:
        rt.current_file = saved


def _isnothing(x: Any) -> bool:
    return x is None


def _in(x: Any, xs: Any) -> bool:
    if isinstance(xs, V.Range):
        if xs.length == 0:
            return False
        if isinstance(xs.start, int) and isinstance(x, (int, float)):
            k = (x - xs.start) / xs.step
            return float(k).is_integer() and 0 <= k < xs.length
    if isinstance(xs, dict):
        return _in_dict(x, xs)
    contains = getattr(xs, "jl_contains", None)
    if contains is not None:
        return contains(x)
    return any(jl_equal(x, y) for y in current.runtime().iterate(xs))


def _in_dict(p: Any, d: dict) -> Any:
    """`p in d` of a Dict: whether d holds the pair p (its value compared with `==`, which
    may be missing); anything but a Pair is an error, as in Julia (use `haskey`)."""
    if not (type(p) is V.StructValue and p.type.family.name == "Pair"):
        raise ZylaError("ErrorException", "AbstractDict collections only contain Pairs;\n"
                        "Either look for e.g. A=>B instead, or use the `keys` or `values`\n"
                        "function if you are looking for a key or value respectively.")
    k, v = p.fields
    if k not in d:
        return False
    return eq_any(np, d[k], v)


def _first(x: Any, n: Any = None) -> Any:
    if n is not None:
        if n < 0:
            raise ZylaError("ArgumentError", "Number of elements must be non-negative")
        items = list(itertools.islice(current.runtime().iterate(x), n))  # (x may be infinite)
        if isinstance(x, str):
            return "".join(c.value for c in items)
        return collect_results(items, (len(items),)) if not isinstance(x, tuple) else tuple(items)
    for v in current.runtime().iterate(x):
        return v
    if isinstance(x, V.Range):
        return x.start  # first(1:0) == 1, as in Julia
    # an array or a string is indexed at its first index; another iterator (a Tuple, a
    # Dict) has no first element to iterate to
    raise ZylaError("BoundsError" if (is_array(x) and not isinstance(x, tuple)) or isinstance(
                        x, str) else "ArgumentError",
                    "collection must be non-empty")


def _last(x: Any) -> Any:
    if isinstance(x, V.Range):
        return x.last
    items = list(current.runtime().iterate(x))
    if not items:
        raise ZylaError("BoundsError", "collection must be non-empty")
    return items[-1]


def _is_abstract_dict(x: Any) -> bool:
    """Whether x is a program's AbstractDict (a struct declared `<: AbstractDict`)."""
    t = current.runtime().builtins.get("AbstractDict")
    return isinstance(x, V.StructValue) and isinstance(t, V.JType) and V.issubtype(x.type, t)


def _keys(x: Any) -> Any:
    if isinstance(x, V.NamedTuple):
        return tuple(V.Symbol(n) for n in x.names)
    if isinstance(x, dict) or (DICT_KEYS and _is_abstract_dict(x)):
        return DICT_KEYS[0](x) if DICT_KEYS else collect_results(list(x.keys()), (len(x),))
    if isinstance(x, tuple):
        return V.Range(1, 1, len(x), True)
    return V.Range(1, 1, int(np.prod(jl_size(as_array(x)))), True)


def _values(x: Any) -> Any:
    if isinstance(x, V.NamedTuple):
        return x.values
    if isinstance(x, dict):
        return collect_results(list(x.values()), (len(x),))
    if _is_abstract_dict(x):  # a program's AbstractDict: its pairs' second halves
        vals = [p.fields[1] for p in current.runtime().iterate(x)]
        return collect_results(vals, (len(vals),))
    return x


def _haskey(x: Any, k: Any) -> bool:
    if isinstance(x, V.NamedTuple):
        return isinstance(k, V.Symbol) and k.name in x.names
    if isinstance(x, dict):
        return k in x
    return False


def _get(x: Any, k: Any, default: Any) -> Any:
    """`get(collection, key, default)`: a Dict's value, a NamedTuple's field, or a
    tuple's, array's or range's element at an index (a tuple of indices for a matrix),
    and `default` where there is none."""
    if isinstance(x, dict):
        return x.get(k, default)
    if isinstance(x, V.NamedTuple) and isinstance(k, V.Symbol):
        return x.get(k.name) if k.name in x.names else default
    if isinstance(x, (tuple, np.ndarray, V.Range)) and _is_index(k):
        idx = k if isinstance(k, tuple) else (k,)
        size = jl_size(x)
        ok = (len(idx) == 1 and 1 <= idx[0] <= int(np.prod(size))) or (
            len(idx) == len(size) and all(1 <= i <= n for i, n in zip(idx, size, strict=True)))
        return current.runtime().interp.call_value(current.runtime().lookup("getindex"),
                                                   [x, *idx]) if ok else default
    raise ZylaError("MethodError", f"no method matching get(::{V.type_name(typeof(x))}, "
                    f"::{V.type_name(typeof(k))}, ::{V.type_name(typeof(default))})")


def _is_index(k: Any) -> bool:
    if isinstance(k, tuple):
        return bool(k) and all(_is_index(i) for i in k)
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _isempty(x: Any) -> bool:
    if isinstance(x, (tuple, str, dict, V.NamedTuple, V.Range)):
        return len(x) == 0
    if isinstance(x, np.ndarray):
        return x.size == 0
    if hasattr(x, "items") and isinstance(x.items, list):
        return not x.items
    if hasattr(x, "jl_iter") or isinstance(x, V.StructValue):
        # a lazy iterator or an iterable struct: empty when its iteration yields nothing
        for _ in current.runtime().iterate(x):
            return False
        return True
    return False


def _eachindex(x: Any) -> V.Range:
    if isinstance(x, tuple):
        return V.Range(1, 1, len(x), True)
    return V.Range(1, 1, int(np.prod(jl_size(as_array(x)))) if is_array(x) else 1, True)


def _axes(x: Any, d: Any = None) -> Any:
    own = SIZES.get(type(x))
    s = own(x) if own is not None else jl_size(as_array(x))
    rs = tuple(V.Range(1, 1, n, True) for n in s)
    return rs if d is None else (rs[d - 1] if d <= len(rs) else V.Range(1, 1, 1, True))


def _sort(x: Any, rev: bool = False, by: Any = None, lt: Any = None) -> Any:
    """`sort(x; rev, by, lt)` of any vector: stable, ordered by `lt` (default `isless`:
    numbers and strings as Julia orders them, tuples lexicographically, other values by
    the program's own `isless` methods)."""
    rt = current.runtime()
    items = list(rt.iterate(x))
    keys = items if by is None else [rt.interp.call_value(by, [v]) for v in items]

    def less(a: Any, b: Any) -> bool:
        if lt is not None:
            return bool(rt.interp.call_value(lt, [a, b]))
        return _isless(a, b)

    def order(i: int, j: int) -> int:
        a, b = (keys[j], keys[i]) if rev else (keys[i], keys[j])
        return -1 if less(a, b) else (1 if less(b, a) else 0)

    perm = sorted(range(len(items)), key=functools.cmp_to_key(order))
    return collect_results([items[i] for i in perm], (len(items),))


def _char_or_string(s: Any, f: Callable[[str], str]) -> Any:
    """A string function that Julia also defines for Chars (`uppercase('a') == 'A'`)."""
    if isinstance(s, V.Char):
        out = f(s.value)
        return V.Char(out) if len(out) == 1 else V.Char(s.value)
    if not isinstance(s, str):
        raise ZylaError("MethodError", f"no method for ::{V.type_name(typeof(s))}")
    return f(s)


def _local_generic(*parts: Any) -> Closure:
    """`Core.local_generic(closure1, sig1, closure2, sig2, ...)`: an inner function with
    several methods (lang.core.lower's `local_generic`). Each sig is `(nreq, vararg,
    typevars, types...)`; the closures share their captures, so the result is one closure whose
    methods are dispatched on the argument types."""
    first = parts[0]
    gf = GenericFunction(first.name)
    for clo, sig in zip(parts[::2], parts[1::2], strict=True):
        nreq, vararg, typevars, *types = sig
        for t in types:
            if not isinstance(t, (V.JType, V.TypeVar)):
                raise ZylaError("TypeError", f"in method definition, expected a type, got "
                                f"{jl_show(t)}")
        gf.add_method(Method(list(types[:-1] if vararg else types), nreq, fn=clo.fn,
                             vararg=vararg, vararg_type=types[-1] if vararg else V.AnyT,
                             typevars=list(typevars)))
    return Closure(first.fn, first.captures, first.name, generic=gf)


def _less(xp: Any, a: Any, b: Any) -> bool:
    return a < b


def _isless(a: Any, b: Any) -> bool:
    """Julia's `isless` of host values: numbers (NaN last), strings, chars, symbols,
    tuples lexicographically, others by the program's `isless` methods."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        for u, v in zip(a, b, strict=False):
            if _isless(u, v):
                return True
            if _isless(v, u):
                return False
        return len(a) < len(b)
    for kind in (str, V.Char, V.Symbol):
        if isinstance(a, kind) and isinstance(b, kind):
            ka = a if kind is str else (a.value if kind is V.Char else a.name)
            kb = b if kind is str else (b.value if kind is V.Char else b.name)
            return ka < kb
    irrational = type(a) is V.Irrational or type(b) is V.Irrational
    if N.dtype_of(a) != N.OBJ and N.dtype_of(b) != N.OBJ or isinstance(a, (V.Rational, V.WideInt)):
        fa, fb = (float(a) != float(a)), (float(b) != float(b))  # NaN sorts last
        if fa or fb:
            return not fa and fb
        return bigfloats.exact_compare(_less, a, b) if irrational else bool(a < b)
    return user_isless(a, b)


def _count(f: Any, xs: Any = None) -> int:
    if xs is None:
        a = as_array(f)
        if isinstance(a, np.ndarray) and a.dtype == N.BOOL:
            return int(np.sum(a))
        return sum(1 for v in current.runtime().iterate(f) if _truth(v, "count") is True)
    rt = current.runtime()
    return sum(1 for x in rt.iterate(xs) if _truth(rt.interp.call_value(f, [x]), "count"))


def _truth(v: Any, what: str) -> Any:
    """A Bool that any/all/count read (None for missing); anything else is Julia's
    TypeError (`any([1, true])`)."""
    if type(v) is bool or type(v) is np.bool_:
        return bool(v)
    if isinstance(v, V.StructValue) and v.type.name == "Missing" and what != "count":
        return None
    raise ZylaError("TypeError", f"non-boolean ({V.type_name(typeof(v))}) used in boolean "
                    "context")


def _any_all(values: Any, stop: bool) -> Any:
    """any (stop=True) or all (stop=False) of the Bools in values, short-circuiting at the
    first `stop`, with Julia's three-valued logic: missing if one was missing and none
    decided the result."""
    seen = None
    for v in values:
        t = _truth(v, "any" if stop else "all")
        if t is None:
            seen = v
        elif t is stop:
            return stop
    return (not stop) if seen is None else seen


def _any(f: Any, xs: Any = None) -> bool:
    rt = current.runtime()
    if xs is None:
        return _any_all(rt.iterate(f), True)
    return _any_all((rt.interp.call_value(f, [x]) for x in rt.iterate(xs)), True)


def _all(f: Any, xs: Any = None) -> bool:
    rt = current.runtime()
    if xs is None:
        return _any_all(rt.iterate(f), False)
    return _any_all((rt.interp.call_value(f, [x]) for x in rt.iterate(xs)), False)


def _dict(*pairs: Any) -> dict:
    d: dict = {}
    for p in pairs:
        if isinstance(p, V.StructValue):
            d[p.fields[0]] = p.fields[1]
    return d


def _kwdef_struct(x: Any) -> None:
    return None


def kwdef_construct(rt: Any, t: V.JType, kwargs: dict) -> Any:
    defaults = t.family.kwdef  # type: ignore[attr-defined]
    vals = []
    for f in t.fields:
        if f in kwargs:
            vals.append(kwargs[f])
        elif f in defaults:
            vals.append(defaults[f])
        else:
            raise ZylaError("UndefKeywordError", f"keyword argument `{f}` not assigned")
    return V.StructValue(t, vals)


def _text_arg(x: Any) -> str | None:
    """The text of a String, SubString, wrapped string or Char argument; None otherwise."""
    return x.value if isinstance(x, V.Char) else strings.text_of(x)


def _text_test(name: str, test: Callable[[str, str], bool],
               haystack: int) -> Callable[[Any, Any], bool]:
    """The built-in `name(a, b)` (`startswith`, `endswith`, `occursin`) of a string (the
    argument at `haystack`, 0 or 1) and a string or char, by `test` on their texts; any
    other argument is Julia's MethodError."""
    def run(a: Any, b: Any) -> bool:
        ta, tb = _text_arg(a), _text_arg(b)
        if ta is None or tb is None or isinstance((a, b)[haystack], V.Char):
            raise ZylaError("MethodError", f"no method matching {name}(::"
                            f"{V.type_name(typeof(a))}, ::{V.type_name(typeof(b))})")
        return test(ta, tb)
    return run


def _objectid(x: Any) -> Any:
    """`objectid(x)`: a UInt64 that values egal to x (`===`) share: a mutable value's own,
    an immutable one's by its contents (a String's by its text)."""
    key = (type(x).__name__, str(x)) if isinstance(x, str) else V.egal_key(x)  # (SubStrings)
    return np.uint64(hash(key) & ((1 << 64) - 1))


def _nameof(x: Any) -> Any:
    return V.Symbol(getattr(x, "name", str(x)))


def _fieldnames(t: Any) -> tuple:
    """`fieldnames(T)`: a struct's field names, a NamedTuple type's names, a tuple type's
    positions (as Julia's)."""
    if t.family is V.NamedTupleT and t.params and isinstance(t.params[0], tuple):
        return tuple(V.Symbol(n) if isinstance(n, str) else n for n in t.params[0])
    if t.family is V.TupleT and not any(isinstance(p, V.JType) and p.family is V.VarargT
                                        for p in t.params):
        return tuple(range(1, len(t.params) + 1))
    return tuple(V.Symbol(f) for f in t.fields)


def _fieldtypes(t: Any) -> tuple:
    """`fieldtypes(T)`: the declared types of a struct's fields with T's parameters put
    in (`Any` where none is declared), a NamedTuple or Tuple type's element types."""
    if t.family is V.NamedTupleT and len(t.params) == 2 and isinstance(t.params[1], V.JType):
        return tuple(t.params[1].params)
    if t.family is V.TupleT:
        return tuple(t.params)
    return tuple(V.AnyT if ft is None else field_type(t, ft) for ft in t.field_types)


def _fieldmap(rt: Any, f: Any, x: Any) -> Any:
    """A NamedTuple of f applied to each field of a struct (NamedTuples map their values)."""
    if isinstance(x, V.StructValue):
        return V.NamedTuple(tuple(x.type.fields),
                            tuple(rt.interp.call_value(f, [v]) for v in x.fields))
    if isinstance(x, V.NamedTuple):
        return V.NamedTuple(x.names, tuple(rt.interp.call_value(f, [v]) for v in x.values))
    return None


def _undef_keyword(name: str) -> None:
    raise ZylaError("UndefKeywordError", f"keyword argument `{name}` not assigned")


def _exit(code: int = 0) -> None:
    sys.stdout.flush()
    raise SystemExit(code)


def _sleep(seconds: Any) -> None:
    """`sleep(s)`: wait at least s seconds (Julia's minimum: a millisecond)."""
    s = float(seconds)
    if s < 0 or math.isnan(s):
        raise ZylaError("ArgumentError", f"cannot sleep for {jl_show(seconds)} seconds")
    time.sleep(max(s, 0.001))


def _supertype(t: Any) -> Any:
    """`supertype(T)`: the type T's family declares as its parent (`Any` is its own)."""
    if not isinstance(t, V.JType):
        raise ZylaError("MethodError", f"no method matching supertype(::{V.type_name(typeof(t))})")
    sup = t.family.super_
    if t is V.AnyT:
        return V.AnyT
    if sup is None:
        raise ZylaError("ErrorException", f"supertype of `{V.type_name(t)}` is not known to Zyla")
    return sup


def _constructorof(t: Any) -> Any:
    """What rebuilds a struct of type t from new field values (ConstructionBase's
    `constructorof`): the unparameterised family when it has constructors of its own
    (`Dense(W, b, σ)` works out `Dense{F, M, B}` again), else t itself (its default
    constructor converts each field to the declared type)."""
    fam = getattr(t, "family", t)
    return fam if getattr(fam, "ctor_gf", None) is not None else t


def _ismutable(x: Any) -> bool:
    """`ismutable(x)`: arrays, Dicts, Sets and mutable structs (what `===` compares by
    identity, lang.core.primitives.jl_egal); numbers, strings, tuples, immutable structs not."""
    if isinstance(x, (np.ndarray, list, dict)) or getattr(x, "is_set", False):
        return True
    return bool(x.type.mutable) if isinstance(x, V.StructValue) else False


def _splitext(path: str) -> tuple:
    """`splitext(path)`: the path without its extension, and the extension (`.gz`)."""
    import posixpath

    return posixpath.splitext(jl_string(path))


# --- installation ---------------------------------------------------------------------------


def install(rt: Any) -> None:
    """Register the runtime built-ins in `rt.builtins` and the primitive table."""
    current.make_current(rt)
    rt.current_file = ""
    b = rt.builtins
    b["NTuple"] = NTupleT

    def host(name: str, f: Any,
             reason: HostOnly = HostOnly("runs on the host"), interp: bool = False) -> None:
        b[name] = prim(name, f, reason, NONDIFF, lambda *a, **k: V.AnyT, needs_interp=interp)

    for name, f in {
        "print": _print, "println": _println, "show": _show, "display": _display,
        "Core.show_expr": _show_expr,
    }.items():
        host(name, f, PRINT_ONLY)
    # float(x) passes its cotangent through (gradient(float, 1.2) is (1.0,))
    b["float"] = prim("float", _float, HostOnly("runs on the host"),
                      "(dz, z, x) -> x isa Type ? (nothing,) : (dz,)",
                      lambda *a, **k: V.AnyT)
    for name, f in {
        "string": primitives_int.string, "repr": _repr, "isa": _isa, "<:": _subtype,
        "Core.apply_type": apply_type, "typeassert": _typeassert, "Core.box": _box,
        "Core.unbox": _unbox, "Core.setbox": _setbox, "setproperty!": _setproperty,
        "push!": push_array, "append!": _append, "pop!": _pop, "isapprox": isapprox,
        "error": _error, "throw": exceptions.throw, "rethrow": exceptions.rethrow,
        "Core.error_message": exceptions.error_message, "Core.assert": _assert,
        "Core.using": _using,
        "include": _include, "isnothing": _isnothing, "in": _in, "first": _first, "last": _last,
        "keys": _keys, "values": _values, "haskey": _haskey, "get": _get, "isempty": _isempty,
        "eachindex": _eachindex, "axes": _axes, "Core.sort_any": _sort, "count": _count,
        "any": _any, "all": _all, "Dict": _dict, "=>": lambda a, b: _pair(a, b),
        "Core.kwdef_struct": _kwdef_struct, "one": _one,
        "zero": _zero, "oneunit": _one, "typemax": _typemax,
        "typemin": _typemin, "eps": _eps, "nameof": _nameof,
        "fieldnames": _fieldnames, "fieldtypes": _fieldtypes, "exit": _exit, "time": time.time,
        "Core.undef_local": _undef_local, "Core.time_start": _time_start,
        "Core.is_assigned": _is_assigned, "isassigned": lambda a, *i: _isassigned(rt, a, *i),
        "Core.isdefined_global": lambda name: _isdefined_global(rt, name),
        "Core.log_message": _log_message, "Core.deepcopy": copy.deepcopy,
        "Core.warn_once": _warn_once, "Core.current_logger": _current_logger,
        "Core.local_generic": _local_generic,
        "Core.set_global_logger": _set_global_logger,
        "Core.time_report": _time_report, "Core.elapsed_since": _elapsed_since,
        "Core.compile_clock": _compile_clock,
        "sleep": _sleep, "supertype": _supertype, "splitext": _splitext,
        "Core.constructorof": _constructorof,
        "Core.time_ns": time.monotonic_ns,
        "ismutable": _ismutable,
        "convert": lambda t, x: convert(rt, t, x),
        "promote": lambda *xs: promote(rt, *xs), "promote_type": promote_type,
        "typejoin": lambda *ts: functools.reduce(V.typejoin, ts) if ts else V.make_union(()),
        "===": jl_egal, "Core.isequal": jl_isequal, "!==": lambda a, b: not jl_egal(a, b),
        "typeof": typeof, "objectid": _objectid,
        "Core.undef_keyword": _undef_keyword,
        "Core.fieldmap": lambda f, x: _fieldmap(rt, f, x),
        "lpad": lambda s, n, c=" ": jl_string(s).rjust(int(n), jl_string(c)),
        "rpad": lambda s, n, c=" ": jl_string(s).ljust(int(n), jl_string(c)),
        "uppercase": lambda s: _char_or_string(s, str.upper),
        "lowercase": lambda s: _char_or_string(s, str.lower),
        "join": _join,
        "zip": _zip, "enumerate": _enumerate,
        "occursin": _text_test("occursin", lambda a, b: a in b, 1),
        "startswith": _text_test("startswith", str.startswith, 0),
        "endswith": _text_test("endswith", str.endswith, 0),
        "split": lambda s, d=None: np.array(jl_string(s).split(jl_string(d)) if d is not None
                                            else jl_string(s).split(), dtype=object),
        "parse": lambda t, s, base=None: _parse(rt, t, s, base),
        **exceptions.JUMP_BUILTINS,
        **bigfloats.builtins(),
    }.items():
        host(name, f)
    for name, f in {
        "map": _map, "foreach": _foreach, "Core.comprehension": _comprehension,
        "filter": _filter, "reduce": _reduce, "Core.trycatch": exceptions.trycatch,
        "Test.do_test": _do_test,
        "Test.do_test_throws": _do_test_throws, "Test.do_testset": _do_testset,
        "Test.do_test_broken": _do_test_broken, "Test.do_test_skip": _do_test_skip,
        "Test.do_test_nowarn": _do_test_nowarn,
        "Core.with_logger": _with_logger,
    }.items():
        host(name, f, interp=True)
    host("isabstracttype", _isabstracttype)
    host("isconcretetype", _isconcretetype)
    b["invoke"] = prim("invoke", _invoke, HostOnly("runs on the host"),
                       '(dz, z, f, T, xs...) -> error("invoke has no derivative; call the '
                       'function directly")', lambda *a, **k: V.AnyT, needs_interp=True)
    b["invoke"].forward = "noforward"  # (no derivative in forward mode either: an AD error)
    # convert(T, x) passes its cotangent on to x, in x's float type (as Zygote does)
    b["convert"] = prim("convert", lambda t, x: convert(rt, t, x), HostOnly("runs on the host"),
                        "(dz, z, T, x) -> (nothing, x isa Number || x isa AbstractArray ? "
                        "Core.convert_cot(x, dz) : dz)", lambda *a, **k: V.AnyT)
    b["convert"].forward = "(d, z, T, x) -> d[2]"  # (the tangent passes on, as the value)
    # a captured variable a closure reassigns lives in a Box: reverse mode differentiates
    # its reads and writes itself (autodiff.runtime: BoxTrail)
    for name in ("Core.box", "Core.unbox", "Core.setbox"):
        b[name].pullback = "SPECIAL"
    # `m.x = v` returns v (the field's own cotangent after the write is refused: see
    # autodiff.runtime, field_cot)
    b["setproperty!"].pullback = "(dz, z, x, s, v) -> (nothing, nothing, dz)"
    b["setproperty!"].forward = "noforward"  # (a write: forward mode refuses it clearly)
    b["undef"] = UNDEF_INIT
    b["nothing"] = None
    b["Inf"] = math.inf
    b["NaN"] = math.nan
    b["Inf32"] = np.float32(np.inf)
    b["NaN32"] = np.float32(np.nan)
    b["Inf16"] = np.float16(np.inf)
    b["NaN16"] = np.float16(np.nan)
    b["Inf64"] = math.inf
    b["NaN64"] = math.nan
    b["pi"] = b["π"] = _PI
    b["ℯ"] = _E
    b.update({"MathConstants." + name: v for name, v in MATH_CONSTANTS.items()})
    b["ARGS"] = np.empty(0, dtype=object)
    b["PROGRAM_FILE"] = ""  # (`zyla run FILE` sets the path it was given)
    b["Colon"] = COLON
    # differentiable built-ins that need the interpreter
    b["broadcast"] = prim("broadcast", broadcast_host, HostOnly("lowered by the backend"),
                          "BROADCAST", INFER_BY_LOWERING, needs_interp=True)
    b["tuple"] = prim("tuple", _tuple, _jx(lambda xp, *xs: xs),
                      "(dz, z, xs...) -> Core.tuple_cot(dz, length(xs))")
    b["Core.namedtuple"] = prim("Core.namedtuple", _namedtuple,
                                _jx(lambda xp, names, *xs: _namedtuple(names, *xs)),
                                "(dz, z, names, xs...) -> "
                                "(nothing, Core.tuple_cot(dz, length(xs))...)")
    b["Core.indexed_iterate"] = prim("Core.indexed_iterate", indexed_iterate,
                                     _jx(lambda xp, x, i: _jax_indexed(xp, x, i)),
                                     "(dz, z, x, i) -> (Core.onehot_cot(x, i, dz), nothing)")
    b["getproperty"] = prim("getproperty", _getproperty, _jx(lambda xp, x, s: _getproperty(x, s)),
                            "(dz, z, x, s) -> (Core.field_cot(x, s, dz), nothing)")
    # (`getfield` reads the field itself: a `getproperty` method of the user's, which may
    # call `getfield`, is not in its way)
    b["Core.getfield"] = b["getproperty"]
    _ = (Closure, _vect, _hx, INFER_BY_LOWERING, iterate_value)


def _jax_indexed(xp: Any, x: Any, i: int) -> Any:
    if isinstance(x, (tuple, V.NamedTuple)):
        return indexed_iterate(x, i)
    return xp.reshape(x, (-1,))[i - 1]
