"""BigFloat's numbers on the host: mpmath floats, for the `struct BigFloat` of
stdlib/bigfloat.jl (which holds one in its field and defines Julia's methods over the
`Core.bigfloat_*` built-ins registered here).

As Julia's, arithmetic and functions round to nearest at the precision in force (256 bits
unless `setprecision` says otherwise), and a BigFloat converts to a Float64/Float32/Float16
rounded once to nearest. Compiled code never holds one (the built-ins run on the host).
mpmath has no negative zero: BigFloat's -0.0 is held as NEG_ZERO, which each built-in reads
as zero with its sign bit set (IEEE's signs of zero results: -0.0 * 2 is -0.0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from mpmath.libmp import mpf_add, round_ceiling, round_floor

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.eltypes import tag
from lang.core.functions import register_typeof

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
    "cospi": CTX.cospi, "abs": CTX.fabs,
    "floor": CTX.floor, "ceil": CTX.ceil, "round": CTX.nint,  # (nint: ties to even)
    "trunc": lambda x: CTX.floor(x) if x >= 0 else CTX.ceil(x),
}

#: the functions of one BigFloat whose zero result keeps x's sign (sqrt(-0.0) is -0.0,
#: round(-0.4) is -0.0): the odd ones and the roundings
_ODD_AT_ZERO = frozenset((
    "sqrt", "cbrt", "expm1", "log1p", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh",
    "atanh", "sinpi", "floor", "ceil", "round", "trunc"))

#: Julia's functions of two BigFloats, by name (of mpmath numbers)
BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "hypot": CTX.hypot, "rem": lambda a, b: _rem(a, b),
}

#: whether a zero result of a BigFloat operation is -0.0, from the operands' sign bits (IEEE
#: round to nearest: -0.0 + -0.0 is -0.0, x - x is 0.0, rem(-4, 2) is -0.0)
_ZERO_SIGN: dict[str, Callable[[bool, bool], bool]] = {
    "+": lambda sa, sb: sa and sb, "-": lambda sa, sb: sa and not sb,
    "*": lambda sa, sb: sa != sb, "rem": lambda sa, sb: sa,
}


class _NegativeZero:
    """BigFloat's -0.0, which mpmath's numbers lack: a BigFloat's host value, read as zero
    with its sign bit set."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "-0.0"


NEG_ZERO = _NegativeZero()
# (the field of a BigFloat is read, and so typed, at each of its operations)
register_typeof(type(CTX.mpf(1)), V.AnyT)
register_typeof(_NegativeZero, V.AnyT)


def _mp(x: Any) -> Any:
    """The mpmath number a BigFloat's host value stands for (NEG_ZERO is zero)."""
    return CTX.zero if x is NEG_ZERO else x


def _signbit(x: Any) -> bool:
    """Julia's signbit of a BigFloat's host value (false for NaN: mpmath's has no sign)."""
    return x is NEG_ZERO or bool(x < 0)


def _signed(r: Any, negative: bool) -> Any:
    """r, or -0.0 where r is a zero that is to carry the sign bit."""
    return NEG_ZERO if negative and r == 0 else r


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
    if x is NEG_ZERO:
        return x
    if CTX.isnan(x) or CTX.isinf(x):
        return CTX.nan
    if x == 0:
        return x
    with CTX.extraprec(max(0, int(CTX.mag(x))) + 64):
        tau = 2 * CTX.pi
        r = x - rounding(x / tau) * tau
    return +r


def _div(a: Any, b: Any) -> Any:
    """a / b of BigFloats, as IEEE division: by a zero, ±Inf with the sign of the product
    of the signs, NaN for a zero or NaN a (mpmath raises ZeroDivisionError); a zero
    quotient signed likewise."""
    x, y = _mp(a), _mp(b)
    negative = _signbit(a) != _signbit(b)
    if y == 0:
        return CTX.nan if CTX.isnan(x) or x == 0 else (-CTX.inf if negative else CTX.inf)
    return _signed(x / y, negative)


def _is_odd_integer(y: Any) -> bool:
    """Whether the mpmath number y is an odd integer (its odd mantissa has exponent 0)."""
    return CTX.isfinite(y) and y != 0 and y._mpf_[2] == 0


def _pow(a: Any, b: Any) -> Any:
    """a ^ b of BigFloats: a DomainError for a negative a to a finite non-integer power;
    a zero a to a negative power is Inf, and -0.0 to an odd integer keeps its sign."""
    x, y = _mp(a), _mp(b)
    if x < 0 and CTX.isfinite(y) and not CTX.isint(y):
        raise ZylaError("DomainError", "a negative BigFloat to a non-integer power")
    negative = _signbit(a) and _is_odd_integer(y)
    if x == 0 and y < 0:
        return -CTX.inf if negative else CTX.inf
    return _signed(CTX.power(x, y), negative)


def _atan2(a: Any, b: Any) -> Any:
    """atan(a, b) of BigFloats: of a zero a, ±0.0 or ±π (with a's sign) as b's sign bit
    is clear or set, as IEEE's."""
    y, x = _mp(a), _mp(b)
    if y == 0 and not CTX.isnan(x):
        r = +CTX.pi if _signbit(b) else CTX.zero
        return _signed(-r if _signbit(a) else r, _signbit(a))
    return CTX.atan2(y, x)


#: the BigFloat operations that read the signs of zero operands themselves
_SIGNED_BINARY: dict[str, Callable[[Any, Any], Any]] = {"/": _div, "^": _pow, "atan": _atan2}


def _rem(a: Any, b: Any) -> Any:
    """Julia's `rem(a, b)` of BigFloats: exact, with a's sign (mpmath's fmod takes b's);
    NaN for an infinite a, a zero b or a NaN, and a itself for an infinite b."""
    if CTX.isnan(a) or CTX.isnan(b) or CTX.isinf(a) or b == 0:
        return CTX.nan
    if CTX.isinf(b):
        return a
    r = _fmod(abs(a), abs(b))
    return -r if a < 0 else r


def _fmod(x: Any, y: Any) -> Any:
    """x mod y of finite BigFloats x >= 0 and y > 0, exact: by their mantissas and exponents,
    2^(ex - ey) mod my by a modular power, so exponents far apart cost nothing
    (rem(floatmax(BigFloat), 3)); mpmath's own shifts the mantissa by their difference."""
    if x < y:
        return x
    _, mx, ex, _ = x._mpf_
    _, my, ey, _ = y._mpf_
    if ex >= ey:
        return CTX.ldexp(CTX.mpf(mx * pow(2, ex - ey, my) % my), ey)
    return CTX.ldexp(CTX.mpf(mx % (my << (ey - ex))), ex)  # (x >= y: the shift is short)

#: the real domains of the functions mpmath continues into the complex plane
_DOMAIN: dict[str, Callable[[Any], bool]] = {
    "sqrt": lambda x: x >= 0, "log": lambda x: x >= 0, "log2": lambda x: x >= 0,
    "log10": lambda x: x >= 0, "log1p": lambda x: x >= -1, "asin": lambda x: abs(x) <= 1,
    "acos": lambda x: abs(x) <= 1, "acosh": lambda x: x >= 1, "atanh": lambda x: abs(x) <= 1,
}


def from_real(x: Any) -> Any:
    """BigFloat(x) of a Julia real: exact for integers, Rationals and floats, then rounded
    to the precision in force (a String is parsed); -0.0 is NEG_ZERO."""
    if isinstance(x, CTX.mpf):
        return +x
    if x is NEG_ZERO:
        return x
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
        f = float(x)
        return NEG_ZERO if f == 0 and math.copysign(1.0, f) < 0 else CTX.mpf(f)
    raise ZylaError("MethodError", f"no method matching BigFloat(::{type(x).__name__})")


def from_reals(t: V.JType, v: np.ndarray) -> np.ndarray:
    """`BigFloat.(v)` of an array of reals: the BigFloats (structs of type t, stdlib's
    BigFloat) in one host loop rather than a constructor call per element."""
    out = np.empty(v.shape, dtype=object)
    flat = out.reshape(-1)  # (a view: out is filled through it)
    for i, x in enumerate(v.reshape(-1)):
        flat[i] = V.StructValue(t, [from_real(x)])
    return tag(out, t)


def sum_structs(flat: np.ndarray) -> Any:
    """The sum of BigFloats (structs holding host numbers), left to right as `+` adds
    them (`Core.sum`'s fold), in one host loop; None where one element is not a BigFloat
    of the first one's type."""
    t = flat[0].type
    acc = None
    for y in flat:
        if type(y) is not V.StructValue or y.type is not t:
            return None
        acc = y.fields[0] if acc is None else binary("+", acc, y.fields[0])
    return V.StructValue(t, [acc])


def irrational(x: V.Irrational) -> Any:
    """An Irrational's exact value rounded to the precision in force (a program's
    `@irrational` computes its own: x.exact is then a function)."""
    return _mp(x.exact()) if callable(x.exact) else +getattr(CTX, x.exact)


def irrational_float(x: V.Irrational, bits: int) -> float:
    """An Irrational's exact value rounded once to `bits` significant bits (53 for
    Float64, 24 for Float32, 11 for Float16), as a Python float (a program's, from its
    value at the precision in force)."""
    v = irrational(x) if callable(x.exact) else None
    with CTX.workprec(bits):
        return float(+getattr(CTX, x.exact) if v is None else +v)


def define_irrational(sym: str, definition: Any, val: Any) -> V.Irrational:
    """`Base.@irrational sym val def`: an Irrational{:sym} whose exact value at the
    precision in force is what `definition()` (a program's function) gives, a BigFloat or
    another real; its Float64 is val's, or that of its exact value where val is nothing."""
    def exact() -> Any:
        return _host_value(current.runtime().interp.call_value(definition, []))

    v64 = to_float(exact() if val is None else _host_value(val), 64)
    return V.Irrational(v64, sym, exact)


def _host_value(x: Any) -> Any:
    """A BigFloat's host value, or another real's as a BigFloat's."""
    if isinstance(x, V.StructValue) and x.type.name == "BigFloat":
        return x.fields[0]
    return from_real(x)


def exact_compare(fn: Callable[[Any, Any, Any], Any], a: Any, b: Any) -> bool:
    """A comparison of reals one of which is an Irrational, by their exact values as
    Julia's (`Float64(π, RoundDown) < π`): an Irrational equals no float or Rational, so
    320 bits tell them apart from any nearby one."""
    with CTX.workprec(320):
        x, y = (_mp(from_real(int(v) if isinstance(v, (bool, np.bool_)) else v))
                for v in (a, b))
        return bool(fn(np, x, y))


def unary(name: str, x: Any) -> Any:
    """Julia's `name(x)` of a BigFloat x (a DomainError outside its real domain)."""
    if name == "-":
        return CTX.zero if x is NEG_ZERO else _signed(-x, x == 0)
    v = _mp(x)
    ok = _DOMAIN.get(name)
    if ok is not None and not CTX.isnan(v) and not ok(v):
        raise ZylaError("DomainError", f"{name} of {to_string(x)}: outside its real domain")
    return _signed(UNARY[name](v), name in _ODD_AT_ZERO and _signbit(x))


def binary(name: str, a: Any, b: Any) -> Any:
    """Julia's `name(a, b)` of two BigFloats."""
    signed = _SIGNED_BINARY.get(name)
    if signed is not None:
        return signed(a, b)
    r = BINARY[name](_mp(a), _mp(b))
    zero_sign = _ZERO_SIGN.get(name)
    return r if zero_sign is None else _signed(r, zero_sign(_signbit(a), _signbit(b)))


def fma(x: Any, y: Any, z: Any) -> Any:
    """x * y + z of BigFloats rounded once (the product exact), a zero signed as IEEE's."""
    r = CTX.fadd(CTX.fmul(_mp(x), _mp(y), exact=True), _mp(z))
    return _signed(r, (_signbit(x) != _signbit(y)) and _signbit(z))


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as a < b, a == b, a > b; 2 when either is NaN (unordered)."""
    a, b = _mp(a), _mp(b)
    if CTX.isnan(a) or CTX.isnan(b):
        return 2
    return -1 if a < b else (1 if a > b else 0)


#: MPFR's exponent range as Julia sets it (the widest): a BigFloat is m * 2^e with
#: 1/2 <= m < 1 and -EMAX <= e <= EMAX
EMAX = 2**62 - 1


def floatmax() -> Any:
    """The largest finite BigFloat at the precision in force."""
    return CTX.ldexp(CTX.mpf(2**CTX.prec - 1), EMAX - CTX.prec)


def floatmin() -> Any:
    """The smallest positive BigFloat (MPFR has no subnormals)."""
    return CTX.ldexp(CTX.one, -EMAX - 1)


def next_float(x: Any, up: bool) -> Any:
    """Julia's nextfloat (up) or prevfloat of a BigFloat at the precision in force: the
    adjacent BigFloat, floatmin beside a zero, ±floatmax beside ±Inf, a zero or ±Inf past
    the ends, NaN for NaN."""
    v = _mp(x)
    if CTX.isnan(v):
        return v
    if v == 0:
        return floatmin() if up else -floatmin()
    if CTX.isinf(v):
        return v if (v > 0) == up else (floatmax() if v > 0 else -floatmax())
    if abs(v) == floatmin() and (v > 0) != up:
        return _signed(CTX.zero, v < 0)
    if abs(v) == floatmax() and (v > 0) == up:
        return CTX.inf if up else -CTX.inf
    step = CTX.ldexp(CTX.one if up else -CTX.one, int(CTX.mag(v)) - CTX.prec - 4)
    return CTX.make_mpf(mpf_add(v._mpf_, step._mpf_, CTX.prec,
                                round_ceiling if up else round_floor))


#: the most bits of an integer a BigFloat truncates to (floatmax's has 2^62)
_TRUNC_BITS = 1 << 24


def trunc(x: Any) -> int:
    """The integer part of a BigFloat x; an InexactError for Inf, NaN, or where it has more
    than _TRUNC_BITS bits, which no integer type here holds."""
    v = _mp(x)
    if not CTX.isfinite(v) or CTX.mag(v) > _TRUNC_BITS:
        raise ZylaError("InexactError", f"trunc({to_string(x)})")
    return int(v)


def to_float(x: Any, bits: int) -> Any:
    """x rounded once to nearest as a Float64 (bits 64), Float32 (32) or Float16 (16)."""
    if x is NEG_ZERO:
        return {64: -0.0, 32: np.float32(-0.0), 16: np.float16(-0.0)}[bits]
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
    if x is NEG_ZERO:
        return "-0.0"
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
        "Core.bigfloats_from": from_reals,
        "Core.bigfloat_unary": lambda name, x: unary(str(name), x),
        "Core.bigfloat_binary": lambda name, a, b: binary(str(name), a, b),
        "Core.bigfloat_compare": compare,
        "Core.bigfloat_fma": fma,
        "Core.bigfloat_float": lambda x, bits: to_float(x, int(bits)),
        "Core.bigfloat_string": to_string,
        "Core.bigfloat_precision": lambda: CTX.prec,
        "Core.bigfloat_setprecision": set_precision,
        "Core.bigfloat_isnan": lambda x: bool(CTX.isnan(_mp(x))),
        "Core.bigfloat_isinf": lambda x: bool(CTX.isinf(_mp(x))),
        "Core.bigfloat_signbit": _signbit,
        "Core.bigfloat_ldexp": lambda x, n: x if x is NEG_ZERO else CTX.ldexp(x, int(n)),
        "Core.bigfloat_isinteger": lambda x: bool(CTX.isint(_mp(x))),
        "Core.bigfloat_trunc": trunc,
        "Core.bigfloat_nextfloat": lambda x, up: next_float(x, bool(up)),
        "Core.bigfloat_floatmin": floatmin,
        "Core.bigfloat_floatmax": floatmax,
        "Core.irrational": lambda sym, f, val: define_irrational(str(sym), f, val),
        "Core.bigfloat_rem2pi": lambda x, mode: rem_2pi(x, str(mode)),
    }
