"""Bit-level floating-point functions of Julia's Base.Math, run on the host:
`nextfloat`, `prevfloat`, `frexp`, `ldexp`, `issubnormal`, `exponent`, `significand`,
`floatmin`, `floatmax`, `maxintfloat`, `mod2pi`, `rem2pi`.

They work on Float64 (a Python float), Float32 and Float16 (numpy scalars); an integer or
other argument is a MethodError, as in Julia. `ldexp`, `mod2pi` and `rem2pi` have
derivatives (a power of two, and 1); the others have none worth having at the level of
bits, so they are not differentiable (the smooth functions — sind, cosc, modf, ... — are
Zyla code in lang/core/stdlib/math.jl, over differentiable primitives).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim

HOST = HostOnly("bit-level floating-point functions run on the host")

#: the unsigned integer type of each float's bits
_BITS = {np.dtype(np.float64): np.uint64, np.dtype(np.float32): np.uint32,
         np.dtype(np.float16): np.uint16}

#: 2π to 80 digits (enough to reduce any Float64 exactly to the nearest representable)
_TWO_PI = Fraction("6.2831853071795864769252867665590057683943387987502116419498891846156328125724"
                   "17997256069650684234136")


def _dtype(x: Any, fname: str) -> np.dtype:
    """The float dtype of scalar x; a MethodError for anything that is not a float."""
    if isinstance(x, float):
        return np.dtype(np.float64)
    if isinstance(x, np.floating):
        return x.dtype
    tn = V.type_name(typeof(x))
    raise ZylaError("MethodError", f"no method matching {fname}(::{tn})")


def _back(v: Any, dt: np.dtype) -> Any:
    """v as the host scalar of dtype dt (Float64 a Python float)."""
    return float(v) if dt == np.float64 else dt.type(v)


def _int(n: Any, fname: str) -> int:
    """The count n as a Python int (any Julia integer type but Bool)."""
    if isinstance(n, V.WideInt):
        return int(n.value)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ZylaError("MethodError", f"no method matching {fname}(_, ::{V.type_name(typeof(n))})")
    return int(n)


def _ordered(x: Any, dt: np.dtype) -> int:
    """x's position among the floats of dt (-0.0 and 0.0 both 0)."""
    ut = _BITS[dt]
    bits = int(np.array(x, dtype=dt).view(ut))
    nb = dt.itemsize * 8
    sign = 1 << (nb - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def _from_ordered(o: int, dt: np.dtype) -> Any:
    ut = _BITS[dt]
    nb = dt.itemsize * 8
    bits = (-o) | (1 << (nb - 1)) if o < 0 else o
    return _back(np.array(bits, dtype=ut).view(dt)[()], dt)


def nextfloat(x: Any, n: Any = 1) -> Any:
    """The float n steps above x (n may be negative); ±Inf stays, NaN stays, as Julia."""
    dt = _dtype(x, "nextfloat")
    n = _int(n, "nextfloat")
    if np.isnan(x):
        return x
    lim = _ordered(np.inf, dt)
    o = max(-lim, min(lim, _ordered(x, dt) + n))
    if o == 0:  # landing on zero keeps x's sign, as Julia's bit stepping does
        return _back(np.copysign(np.array(0, dtype=dt), np.array(x, dtype=dt))[()], dt)
    return _from_ordered(o, dt)


def prevfloat(x: Any, n: Any = 1) -> Any:
    """The float n steps below x."""
    _dtype(x, "prevfloat")
    return nextfloat(x, -_int(n, "prevfloat"))


def frexp(x: Any) -> tuple:
    """(m, e) with x == m * 2^e and 0.5 <= |m| < 1 (m = x and e = 0 for 0, Inf, NaN)."""
    dt = _dtype(x, "frexp")
    if not np.isfinite(x) or x == 0:
        return (x, 0)
    m, e = np.frexp(np.array(x, dtype=dt))
    return (_back(m[()], dt), int(e))


def ldexp(x: Any, n: Any) -> Any:
    """x * 2^n, rounded once (overflow gives ±Inf, underflow ±0)."""
    dt = _dtype(x, "ldexp")
    n = max(-100000, min(100000, _int(n, "ldexp")))
    with np.errstate(over="ignore", under="ignore"):
        return _back(np.ldexp(np.array(x, dtype=dt), n)[()], dt)


def issubnormal(x: Any) -> bool:
    """Whether x is a nonzero float smaller in magnitude than floatmin."""
    dt = _dtype(x, "issubnormal")
    return bool(x != 0 and abs(x) < np.finfo(dt).tiny)


def exponent(x: Any) -> int:
    """The e of x == m * 2^e with 1 <= |m| < 2; a DomainError for 0, Inf and NaN."""
    _dtype(x, "exponent")
    if not np.isfinite(x) or x == 0:
        raise ZylaError("DomainError", f"{x}: Cannot be ±0.0, ±Inf or NaN")
    return frexp(x)[1] - 1


def significand(x: Any) -> Any:
    """The m of x == m * 2^e with 1 <= |m| < 2 (0, Inf and NaN are returned as they are)."""
    dt = _dtype(x, "significand")
    if not np.isfinite(x) or x == 0:
        return x
    return _back(frexp(x)[0] * dt.type(2), dt)


def _float_type(t: Any, fname: str) -> np.dtype:
    """The dtype of a float type (or of a float's type)."""
    if isinstance(t, V.JType):
        dt = V.JTYPE_TO_DTYPE.get(t)
        if dt is not None and np.dtype(dt) in _BITS:
            return np.dtype(dt)
        raise ZylaError("MethodError", f"no method matching {fname}(::Type{{{V.type_name(t)}}})")
    return _dtype(t, fname)


def floatmin(t: Any = None) -> Any:
    """The smallest positive normal float of a type (Float64 when none is given)."""
    dt = np.dtype(np.float64) if t is None else _float_type(t, "floatmin")
    return _back(np.finfo(dt).tiny, dt)


def floatmax(t: Any = None) -> Any:
    """The largest finite float of a type (Float64 when none is given)."""
    dt = np.dtype(np.float64) if t is None else _float_type(t, "floatmax")
    return _back(np.finfo(dt).max, dt)


def maxintfloat(t: Any = None) -> Any:
    """The largest float of a type below which every integer is exactly representable."""
    dt = np.dtype(np.float64) if t is None else _float_type(t, "maxintfloat")
    return _back(2.0 ** (np.finfo(dt).nmant + 1), dt)


#: how rem2pi rounds x/2π to the multiple of 2π it takes away, by rounding mode name
_ROUNDINGS: dict[str, Callable[[Fraction], int]] = {
    "Nearest": round, "ToZero": math.trunc, "Down": math.floor, "Up": math.ceil}


def _reduce_2pi(x: Any, fname: str, rounding: Callable[[Fraction], int]) -> Any:
    """x minus a whole multiple k of 2π, computed exactly and rounded once: k is x/2π
    rounded by `rounding` (floor: a result in [0, 2π); nearest: in [-π, π]). A NaN is
    returned as it is, ±Inf gives NaN."""
    if isinstance(x, (bool,)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise ZylaError("MethodError", f"no method matching {fname}(::{V.type_name(typeof(x))})")
    dt = np.dtype(np.float64) if isinstance(x, (int, np.integer)) else np.asarray(x).dtype
    if np.isnan(x):
        return x
    if not np.isfinite(x):
        return _back(np.nan, dt)
    q = Fraction(float(x))
    k = rounding(q / _TWO_PI)
    return _back(float(q - k * _TWO_PI), dt)


def mod2pi(x: Any) -> Any:
    """x modulo 2π, in [0, 2π), with 2π taken exactly (not the Float64 2π)."""
    return _reduce_2pi(x, "mod2pi", math.floor)


def rem2pi(x: Any, r: Any = None) -> Any:
    """x minus a multiple of 2π: the nearest (RoundNearest, the default: a result in
    [-π, π]), or x/2π rounded by RoundToZero, RoundDown or RoundUp."""
    name = "Nearest" if r is None else _rounding_name(r)
    if name not in _ROUNDINGS:
        raise ZylaError("MethodError", f"no method matching rem2pi(::{V.type_name(typeof(x))}, "
                        f"::{V.type_name(typeof(r))})")
    return _reduce_2pi(x, "rem2pi", _ROUNDINGS[name])


def _rounding_name(r: Any) -> str | None:
    """The name of a RoundingMode value (`RoundUp` is "Up"), or None for anything else."""
    if isinstance(r, V.StructValue) and r.type.name == "RoundingMode":
        return getattr(r.getfield("name"), "name", None)
    return None


_FUNCS = {"nextfloat": nextfloat, "prevfloat": prevfloat, "frexp": frexp, "ldexp": ldexp,
          "issubnormal": issubnormal, "exponent": exponent, "significand": significand,
          "floatmin": floatmin, "floatmax": floatmax, "maxintfloat": maxintfloat,
          "mod2pi": mod2pi, "rem2pi": rem2pi}


#: (pullback, forward rule) of those that have a derivative: ldexp(x, n) is x times a
#: power of two; mod2pi and rem2pi shift x by a multiple of 2π (slope 1 between the jumps,
#: ChainRules' convention)
_RULES: dict[str, tuple[str, str]] = {
    "ldexp": ("(dz, z, x, n) -> (dz * ldexp(one(x), n), nothing)",
              "(d, z, x, n) -> d[1] * ldexp(one(x), n)"),
    "mod2pi": ("(dz, z, x) -> (dz,)", "(d, z, x) -> d[1]"),
    "rem2pi": ("(dz, z, x, r...) -> (dz, map(_ -> nothing, r)...)", "(d, z, x, r...) -> d[1]"),
}


def install(rt: Any) -> None:
    """Register the bit-level float functions in `rt.builtins` (host-only; the others
    are not differentiable)."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    for name, fn in _FUNCS.items():
        back, fwd = _RULES.get(name, (NONDIFF, NONDIFF))
        b[name] = prim(name, fn, HOST, back, anyt)
        b[name].forward = fwd
