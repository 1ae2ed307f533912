"""BigFloat's numbers on the host: mpmath floats, for the `struct BigFloat` of
stdlib/bigfloat.jl (which holds one in its field and defines Julia's methods over the
`Core.bigfloat_*` built-ins registered here).

As Julia's, arithmetic and functions round to nearest at the precision in force (256 bits
unless `setprecision` says otherwise), and a BigFloat converts to a Float64/Float32/Float16
rounded once to nearest. Compiled code never holds one (the built-ins run on the host).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from grammar.errors import ZylaError
from lang.core import values as V

#: the context of every BigFloat operation: binary, round to nearest, Julia's 256 bits
CTX = mpmath.MPContext()
CTX.prec = 256

#: Julia's functions of one BigFloat, by name, as the mpmath functions that compute them
UNARY: dict[str, Callable[[Any], Any]] = {
    "sqrt": CTX.sqrt, "cbrt": lambda x: -CTX.cbrt(-x) if x < 0 else CTX.cbrt(x),
    "exp": CTX.exp, "expm1": CTX.expm1,
    "exp2": lambda x: CTX.power(2, x), "exp10": lambda x: CTX.power(10, x),
    "log": CTX.log, "log2": lambda x: CTX.log(x, 2), "log10": CTX.log10, "log1p": CTX.log1p,
    "sin": CTX.sin, "cos": CTX.cos, "tan": CTX.tan, "asin": CTX.asin, "acos": CTX.acos,
    "atan": CTX.atan, "sinh": CTX.sinh, "cosh": CTX.cosh, "tanh": CTX.tanh,
    "asinh": CTX.asinh, "acosh": CTX.acosh, "atanh": CTX.atanh, "sinpi": CTX.sinpi,
    "cospi": CTX.cospi, "abs": CTX.fabs, "-": lambda x: -x,
    "floor": CTX.floor, "ceil": CTX.ceil, "round": CTX.nint,  # (nint: ties to even)
    "trunc": lambda x: CTX.floor(x) if x >= 0 else CTX.ceil(x),
}

#: Julia's functions of two BigFloats, by name
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: _div(a, b), "^": CTX.power, "atan": CTX.atan2, "hypot": CTX.hypot,
    "rem": lambda a, b: _rem(a, b),
}


#: how rem2pi rounds x/2π to the multiple of 2π it takes away, by rounding mode name
_ROUNDINGS: dict[str, Callable[[Any], Any]] = {
    "Nearest": CTX.nint, "ToZero": UNARY["trunc"], "Down": CTX.floor, "Up": CTX.ceil}


def rem_2pi(x: Any, mode: str) -> Any:
    """Julia's `rem2pi(x, r)` of a BigFloat: x minus the multiple k of 2π with k = x/2π
    rounded by the mode named `mode`, computed with enough extra bits that only the final
    rounding to the precision in force is inexact; NaN for an infinite or NaN x."""
    rounding = _ROUNDINGS.get(mode)
    if rounding is None:
        raise ZylaError("MethodError", f"no method matching rem2pi(::BigFloat, "
                                       f"::RoundingMode{{:{mode}}})")
    if CTX.isnan(x) or CTX.isinf(x):
        return CTX.nan
    if x == 0:
        return x
    with CTX.extraprec(max(0, int(CTX.mag(x))) + 64):
        tau = 2 * CTX.pi
        r = x - rounding(x / tau) * tau
    return +r


def _div(a: Any, b: Any) -> Any:
    """a / b of BigFloats, as IEEE division: by a zero, ±Inf with a's sign, NaN for a zero
    or NaN a (mpmath raises ZeroDivisionError; it has no signed zero, so b's sign is +)."""
    if b == 0:
        return CTX.nan if CTX.isnan(a) or a == 0 else CTX.inf * CTX.sign(a)
    return a / b


def _rem(a: Any, b: Any) -> Any:
    """Julia's `rem(a, b)` of BigFloats: exact, with a's sign (mpmath's fmod takes b's);
    NaN for an infinite a, a zero b or a NaN, and a itself for an infinite b."""
    if CTX.isnan(a) or CTX.isnan(b) or CTX.isinf(a) or b == 0:
        return CTX.nan
    if CTX.isinf(b):
        return a
    r = CTX.fmod(abs(a), abs(b))
    return -r if a < 0 else r

#: the real domains of the functions mpmath continues into the complex plane
_DOMAIN: dict[str, Callable[[Any], bool]] = {
    "sqrt": lambda x: x >= 0, "log": lambda x: x >= 0, "log2": lambda x: x >= 0,
    "log10": lambda x: x >= 0, "log1p": lambda x: x >= -1, "asin": lambda x: abs(x) <= 1,
    "acos": lambda x: abs(x) <= 1, "acosh": lambda x: x >= 1, "atanh": lambda x: abs(x) <= 1,
}


def from_real(x: Any) -> Any:
    """BigFloat(x) of a Julia real: exact for integers, Rationals and floats, then rounded
    to the precision in force (a String is parsed)."""
    if isinstance(x, CTX.mpf):
        return +x
    if type(x) is V.Irrational:
        return irrational(x)
    if isinstance(x, V.WideInt):
        return CTX.mpf(x.value)
    if isinstance(x, Fraction):
        return CTX.mpf(x.numerator) / x.denominator
    if isinstance(x, str):
        try:
            return CTX.mpf(x.strip())
        except ValueError:
            raise ZylaError("ArgumentError", f"cannot parse {x!r} as BigFloat") from None
    if isinstance(x, (bool, np.bool_)):
        return CTX.mpf(int(x))
    if isinstance(x, (int, np.integer)):
        return CTX.mpf(int(x))
    if isinstance(x, (float, np.floating)):
        return CTX.mpf(float(x))
    raise ZylaError("MethodError", f"no method matching BigFloat(::{type(x).__name__})")


def irrational(x: V.Irrational) -> Any:
    """An Irrational's exact value rounded to the precision in force."""
    return +getattr(CTX, x.exact)


def irrational_float(x: V.Irrational, bits: int) -> float:
    """An Irrational's exact value rounded once to `bits` significant bits (53 for
    Float64, 24 for Float32, 11 for Float16), as a Python float."""
    with CTX.workprec(bits):
        return float(+getattr(CTX, x.exact))


def exact_compare(fn: Callable[[Any, Any, Any], Any], a: Any, b: Any) -> bool:
    """A comparison of reals one of which is an Irrational, by their exact values as
    Julia's (`Float64(π, RoundDown) < π`): an Irrational equals no float or Rational, so
    320 bits tell them apart from any nearby one."""
    with CTX.workprec(320):
        x, y = (from_real(int(v) if isinstance(v, (bool, np.bool_)) else v) for v in (a, b))
        return bool(fn(np, x, y))


def unary(name: str, x: Any) -> Any:
    """Julia's `name(x)` of a BigFloat x (a DomainError outside its real domain)."""
    ok = _DOMAIN.get(name)
    if ok is not None and not CTX.isnan(x) and not ok(x):
        raise ZylaError("DomainError", f"{name} of {to_string(x)}: outside its real domain")
    return UNARY[name](x)


def binary(name: str, a: Any, b: Any) -> Any:
    """Julia's `name(a, b)` of two BigFloats."""
    if name == "^" and a < 0 and not CTX.isint(b):
        raise ZylaError("DomainError", "a negative BigFloat to a non-integer power")
    return BINARY[name](a, b)


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a < b, a == b, a > b; 2 when either is NaN (unordered)."""
    if CTX.isnan(a) or CTX.isnan(b):
        return 2
    return -1 if a < b else (1 if a > b else 0)


def to_float(x: Any, bits: int) -> Any:
    """x rounded once to nearest as a Float64 (bits 64), Float32 (32) or Float16 (16)."""
    if bits == 64:
        return float(x)
    mant = {32: 24, 16: 11}[bits]
    with CTX.workprec(mant):
        r = +x
    return (np.float32 if bits == 32 else np.float16)(float(r))


def to_string(x: Any) -> str:
    """Julia's print of a BigFloat: the shortest digits that read back to it at its
    precision, in Julia's form (`1.0`, `0.1000000000000000055511151231257827021181583404541015625`
    for big(0.1), `1.0e+100`)."""
    if CTX.isnan(x):
        return "NaN"
    if CTX.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    digits = int(CTX.prec * 0.30103) + 2
    s = CTX.nstr(x, digits, strip_zeros=True, min_fixed=-5, max_fixed=40)
    if "e" in s:
        mant, exp = s.split("e")
        mant = mant if "." in mant else mant + ".0"
        return f"{mant}e{'+' if not exp.startswith('-') else '-'}{exp.lstrip('+-').zfill(2)}"
    return s if "." in s else s + ".0"


def set_precision(bits: int) -> int:
    """Set the precision of later BigFloat operations; returns the one it replaces."""
    if int(bits) < 1:
        raise ZylaError("DomainError", f"{bits}: the precision must be at least 1")
    old = CTX.prec
    CTX.prec = int(bits)
    return old


def builtins() -> dict[str, Callable[..., Any]]:
    """The `Core.bigfloat_*` built-ins stdlib/bigfloat.jl calls."""
    return {
        "Core.bigfloat_from": from_real,
        "Core.bigfloat_unary": lambda name, x: unary(str(name), x),
        "Core.bigfloat_binary": lambda name, a, b: binary(str(name), a, b),
        "Core.bigfloat_compare": compare,
        "Core.bigfloat_float": lambda x, bits: to_float(x, int(bits)),
        "Core.bigfloat_string": to_string,
        "Core.bigfloat_precision": lambda: CTX.prec,
        "Core.bigfloat_setprecision": set_precision,
        "Core.bigfloat_isnan": lambda x: bool(CTX.isnan(x)),
        "Core.bigfloat_isinf": lambda x: bool(CTX.isinf(x)),
        "Core.bigfloat_signbit": lambda x: bool(CTX.sign(x) < 0),  # (mpmath has no -0.0)
        "Core.bigfloat_ldexp": lambda x, n: CTX.ldexp(x, int(n)),
        "Core.bigfloat_isinteger": lambda x: bool(CTX.isint(x)),
        "Core.bigfloat_trunc": lambda x: int(x),
        "Core.bigfloat_rem2pi": lambda x, mode: rem_2pi(x, str(mode)),
    }
