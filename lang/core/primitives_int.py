"""Bit-level built-ins of Julia's integers: `sizeof`, `count_ones`, `leading_zeros`,
`trailing_zeros` (and their `ones`/`zeros` twins), `bitstring`, and `string(n; base,
pad)`. They work on every integer type Zyla has (Bool, Int8…Int128, UInt8…UInt128), on the
host; each looks at the value's bits in its own width (`leading_zeros(0x01) == 7`,
`count_ones(-1) == 64`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import numeric as N
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.show import jl_string

_HOST = HostOnly("bit-level integer functions run on the host")


def _bits(x: Any, name: str) -> tuple[int, int]:
    """The value's bits as a non-negative int, and the width in bits."""
    if isinstance(x, bool):
        return int(x), 8
    if type(x) is int:
        return x & ((1 << 64) - 1), 64
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


def string(*xs: Any, base: Any = None, pad: Any = None) -> str:
    """`string(xs...)`, and `string(n; base = 10, pad = 1)` for an integer n: its digits
    in `base` (2 to 36, lower-case letters), at least `pad` of them, a sign if negative."""
    if base is None and pad is None:
        return jl_string(*xs)
    if len(xs) != 1 or isinstance(xs[0], bool) or not isinstance(
            xs[0], (int, np.integer, V.WideInt)):
        raise ZylaError("MethodError", "string(x; base, pad) needs one integer")
    b, p = int(10 if base is None else base), int(1 if pad is None else pad)
    if not 2 <= b <= 36:
        raise ZylaError("DomainError", f"base must satisfy 2 ≤ base ≤ 36, got {b}")
    n = int(xs[0])
    digits, m = [], abs(n)
    while m:
        m, r = divmod(m, b)
        digits.append(_DIGITS[r])
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


for _name, _f in {"codeunits": codeunits,"count_ones": _count_ones, "count_zeros": _count_zeros,
                  "leading_zeros": _leading_zeros, "leading_ones": _leading_ones,
                  "trailing_zeros": _trailing_zeros, "trailing_ones": _trailing_ones,
                  "bitstring": _bitstring, "sizeof": _sizeof}.items():
    prim(_name, _f, _HOST, NONDIFF)
