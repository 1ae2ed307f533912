"""Bit-level built-ins of Julia's integers: `sizeof`, `count_ones`, `leading_zeros`,
`trailing_zeros` (and their `ones`/`zeros` twins), `bitstring`, and `string(n; base,
pad)`. They work on every integer type Zyla has (Bool, Int8…Int128, UInt8…UInt128), on the
host; each looks at the value's bits in its own width (`leading_zeros(0x01) == 7`,
`count_ones(-1) == 64`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import numeric as N
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim, string_text
from lang.core.primitives_array import make_readonly
from lang.core.show import jl_string

_HOST = HostOnly("bit-level integer functions run on the host")


def _bits(x: Any, name: str) -> tuple[int, int]:
    """The value's bits as a non-negative int, and the width in bits."""
    if isinstance(x, bool):
        return int(x), 8
    if type(x) is int:
        return x & ((1 << 64) - 1), 64
    if isinstance(x, V.BigInt):  # (no fixed width: GMP's bit functions are not here)
        raise ZylaError("MethodError", f"no method matching {name}(::BigInt)")
    if isinstance(x, V.WideInt):
        return x.value & ((1 << 128) - 1), 128
    if isinstance(x, np.integer):
        width = 8 * x.dtype.itemsize
        return int(x) & ((1 << width) - 1), width
    if isinstance(x, (float, np.floating)):  # a float's bits (bitstring(1.0))
        d = N.dtype_of(x)
        raw = np.asarray(x, dtype=d).view(np.dtype(f"u{d.itemsize}"))
        return int(raw), 8 * d.itemsize
    raise ZylaError("MethodError", f"no method matching {name}(::{V.type_name(typeof(x))})")


def _count_ones(x: Any) -> int:
    return bin(_bits(x, "count_ones")[0]).count("1")


def _count_zeros(x: Any) -> int:
    v, w = _bits(x, "count_zeros")
    return w - bin(v).count("1")


def _leading_zeros(x: Any) -> int:
    v, w = _bits(x, "leading_zeros")
    return w - v.bit_length()


def _leading_ones(x: Any) -> int:
    v, w = _bits(x, "leading_ones")
    return w - (v ^ ((1 << w) - 1)).bit_length()


def _trailing_zeros(x: Any) -> int:
    v, w = _bits(x, "trailing_zeros")
    return w if v == 0 else (v & -v).bit_length() - 1


def _trailing_ones(x: Any) -> int:
    v, _ = _bits(x, "trailing_ones")
    return (~v & (v + 1)).bit_length() - 1


def _bitstring(x: Any) -> str:
    v, w = _bits(x, "bitstring")
    return format(v, f"0{w}b")


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_DIGITS62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def string(*xs: Any, base: Any = None, pad: Any = None) -> str:
    """`string(xs...)`, and `string(n; base = 10, pad = 1)` for an integer n: its digits
    in `base` (2 to 36: lower-case letters; to 62: upper-case, then lower-case ones), at
    least `pad` of them, a sign if negative."""
    if base is None and pad is None:
        return jl_string(*xs)
    if len(xs) != 1 or isinstance(xs[0], bool) or not isinstance(
            xs[0], (int, np.integer, V.WideInt)):
        raise ZylaError("MethodError", "string(x; base, pad) needs one integer")
    b, p = int(10 if base is None else base), int(1 if pad is None else pad)
    if not 2 <= b <= 62:
        raise ZylaError("DomainError", f"base must satisfy 2 ≤ base ≤ 62, got {b}")
    alphabet = _DIGITS if b <= 36 else _DIGITS62  # (Julia's base36digits, base62digits)
    n = int(xs[0])
    digits, m = [], abs(n)
    while m:
        m, r = divmod(m, b)
        digits.append(alphabet[r])
    text = "".join(reversed(digits)).rjust(p, "0")
    return "-" + text if n < 0 else text


def _sizeof(x: Any) -> int:
    """Bytes of a number (its type's width), an array of numbers or a String."""
    if isinstance(x, str):
        return len(V.string_bytes(x))
    if isinstance(x, V.WideInt):
        return 16
    if isinstance(x, V.JType):
        d = V.JTYPE_TO_DTYPE.get(x)
        if d is not None:
            return d.itemsize
        if x in V.WIDE_TYPES:
            return 16
    d = N.dtype_of(x)
    if d != N.OBJ:
        return int(np.asarray(x).size) * d.itemsize
    raise ZylaError("MethodError", f"no method matching sizeof(::{V.type_name(typeof(x))})")


def codeunits(s: Any) -> np.ndarray:
    """A String's bytes as a Vector{UInt8} (`codeunits`, `Vector{UInt8}(s)`)."""
    if not isinstance(s, str):
        raise ZylaError("MethodError", f"no method matching codeunits(::{V.type_name(typeof(s))})")
    return np.frombuffer(V.string_bytes(s), dtype=np.uint8).copy()


def _codeunits(s: Any) -> np.ndarray:
    """`codeunits(s)`: s's bytes, read-only as Julia's `Base.CodeUnits` (a write into them
    is Julia's CanonicalIndexError, not a change to a copy that s never sees)."""
    return make_readonly(codeunits(s), "setindex! not defined for Base.CodeUnits{UInt8, String}",
                         "CanonicalIndexError")


def _byte_dtype(x: Any, name: str) -> np.dtype:
    d = N.dtype_of(x)
    if isinstance(x, bool) or d == N.OBJ or d.kind not in "iuf":
        raise ZylaError("MethodError", f"no method matching {name}(::{V.type_name(typeof(x))})")
    return d


def _bswap(x: Any) -> Any:
    """The value with its bytes in reverse order, in its own type (`bswap(0x0102) ===
    0x0201`; a Complex swaps each part)."""
    if isinstance(x, V.BigInt):
        raise ZylaError("MethodError", "no method matching bswap(::BigInt)")
    if isinstance(x, V.WideInt):
        return type(x)(int.from_bytes(x.value.to_bytes(16, "little", signed=x.value < 0),
                                      "big", signed=isinstance(x, V.Int128)))
    parts = getattr(x, "fields", None)
    if parts is not None and len(parts) == 2 and V.type_name(typeof(x)).startswith("Complex"):
        return type(x)(x.type, [_bswap(p) for p in parts])
    d = _byte_dtype(x, "bswap")
    return N.host_scalar(np.asarray(x, dtype=d).byteswap()[()])


#: `reinterpret(Unsigned, x)`, `reinterpret(Signed, x)`: the integer type of x's width
_BY_WIDTH = {V.UnsignedT: "u", V.SignedT: "i"}


def _reinterpret(t: Any, x: Any) -> Any:
    """`reinterpret(T, x)`: the bits of number (or array of numbers) x read as a T of the
    same width (`reinterpret(UInt64, 1.0) === 0x3ff0000000000000`)."""
    if not isinstance(t, V.JType):
        raise ZylaError("MethodError", f"no method matching reinterpret(::{V.type_name(typeof(t))}"
                        f", ::{V.type_name(typeof(x))})")
    if isinstance(x, np.ndarray):
        target = V.JTYPE_TO_DTYPE.get(t)
        if target is None or x.dtype == N.OBJ:
            raise ZylaError("ArgumentError", f"cannot reinterpret an `{V.type_name(typeof(x))}` "
                            f"as `{V.type_name(t)}`")
        if x.ndim != 1 and x.dtype.itemsize != target.itemsize:
            raise ZylaError("ArgumentError", "reinterpret of an array of rank ≥ 2 to a type of "
                            "another size is not supported")
        return np.ascontiguousarray(x).view(target).copy()
    if isinstance(x, V.BigInt) or t is V.BigIntT:
        raise ZylaError("ErrorException", "reinterpret of a BigInt is not supported: it has no "
                        "fixed width")
    if isinstance(x, V.WideInt):
        if t in V.WIDE_TYPES or t in _BY_WIDTH:
            signed = t is V.SignedT or t is V.Int128T
            cls = V.Int128 if signed else V.UInt128
            v = x.value & ((1 << 128) - 1)
            return cls(v - (1 << 128) if signed and v >= 1 << 127 else v)
        raise ZylaError("ErrorException", f"reinterpret: bit sizes of {V.type_name(typeof(x))} "
                        f"and {V.type_name(t)} differ")
    if not isinstance(x, (bool, int, float, np.generic)):
        raise ZylaError("ArgumentError", f"cannot reinterpret `{V.type_name(typeof(x))}` as "
                        f"`{V.type_name(t)}`: it is not a primitive type")
    d = N.dtype_of(x)
    kind = _BY_WIDTH.get(t)
    target = np.dtype(f"{kind}{d.itemsize}") if kind else V.JTYPE_TO_DTYPE.get(t)
    if target is None or target.itemsize != d.itemsize or (t is V.BoolT) != (d == np.bool_):
        raise ZylaError("ErrorException", f"reinterpret: bit sizes of {V.type_name(typeof(x))} "
                        f"and {V.type_name(t)} differ" if target is not None else
                        f"reinterpret: cannot reinterpret a {V.type_name(typeof(x))} as "
                        f"{V.type_name(t)}")
    return N.host_scalar(np.asarray(x, dtype=d).view(target)[()])


def _hash_key(x: Any) -> Any:
    """A Python value whose hash stands for x's Julia hash: equal for `isequal` values
    (`hash(1) == hash(1.0) == hash(true)`), different for `0.0` and `-0.0`, one for every
    NaN."""
    if isinstance(x, (bool, int, float, np.number, np.bool_)):
        v = x.item() if isinstance(x, (np.number, np.bool_)) else x
        if isinstance(v, float):
            if v != v:
                return ("NaN",)
            if v == 0 and np.signbit(v):
                return ("-0.0",)
        return v
    if isinstance(x, V.WideInt):
        return x.value
    if isinstance(x, V.Rational):  # one key for isequal numbers: 1//2, big(1)//2 and 0.5
        return float(x) if x.denominator == 0 else Fraction(x.numerator, x.denominator)
    if isinstance(x, tuple):
        return ("Tuple",) + tuple(_hash_key(v) for v in x)
    if isinstance(x, np.ndarray):
        return ("Array", x.shape) + tuple(_hash_key(v) for v in x.reshape(-1, order="F"))
    if isinstance(x, V.Range):
        return ("Array", (len(x),)) + tuple(_hash_key(v) for v in x)
    if isinstance(x, str):  # a String and an equal SubString hash alike
        return ("str", str.__hash__(x))
    text = string_text(x) if isinstance(x, V.StructValue) else None
    if text is not None:  # Base's hash(s::AbstractString, h) = hash(String(s), h)
        return ("str", str.__hash__(text))
    try:
        return (type(x).__name__, hash(x))
    except TypeError:
        return (type(x).__name__, id(x))  # a mutable value: hashed by identity


def _hash(x: Any, h: Any = 0) -> Any:
    """`hash(x[, h])`: a UInt64 that `isequal` values share (within one run)."""
    return np.uint64(hash((_hash_key(x), int(h))) & ((1 << 64) - 1))


def _ieee_remainder(x: Any, y: Any) -> Any:
    """`rem(x, y, RoundNearest)` of two floats of one type: x - y*n, n the integer nearest
    x/y (ties to even), exact (IEEE 754's remainder; Float32s are exact in Float64)."""
    d = N.dtype_of(x)
    with np.errstate(all="ignore"):
        try:
            r = math.remainder(float(x), float(y))
        except ValueError:  # remainder(Inf, y), remainder(x, 0)
            r = math.nan
        return N.host_scalar(np.asarray(r).astype(d)[()])


def _powermod(x: Any, p: Any, m: Any) -> int:
    """`powermod(x, p, m)`: x^p mod m, exactly (the sign of m, as `mod`); a negative p
    takes the inverse of x modulo m."""
    vals = [v.value if isinstance(v, V.WideInt) else int(v) for v in (x, p, m)]
    if vals[2] == 0:
        raise ZylaError("DivideError", "integer division error")
    try:
        return pow(*vals)
    except ValueError:
        if isinstance(m, V.BigInt):  # (GMP's inversion fails with a DivideError, as Julia's)
            raise ZylaError("DivideError", "integer division error") from None
        raise ZylaError("DomainError", f"{vals[0]} is not invertible modulo {vals[2]}") from None


for _name, _f in {"codeunits": _codeunits,"count_ones": _count_ones, "count_zeros": _count_zeros,
                  "leading_zeros": _leading_zeros, "leading_ones": _leading_ones,
                  "trailing_zeros": _trailing_zeros, "trailing_ones": _trailing_ones,
                  "bitstring": _bitstring, "sizeof": _sizeof, "bswap": _bswap,
                  "reinterpret": _reinterpret, "hash": _hash,
                  "Core.ieee_remainder": _ieee_remainder, "Core.powermod": _powermod}.items():
    prim(_name, _f, _HOST, NONDIFF)
