"""Host helpers for Base's complex numbers (the type itself is Zyla code: stdlib/complex.jl).

A `Complex{T}` is a `StructValue` with fields `re` and `im`; arrays of them are numpy
arrays of objects. These helpers give such arrays what Julia gives them: an element type
(`Vector{ComplexF64}`, not `Vector{Any}`) and the promotion of an array literal's elements
(`[1.0 + 2im, 3im]` is a Vector{ComplexF64}, `[1 + 2im, 3]` a Vector{Complex{Int64}}).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lang.core import numeric as N
from lang.core import values as V
from lang.core.refusals import OffloadError


def is_complex(x: Any) -> bool:
    """Whether x is a value of Base's `Complex{T}`."""
    return (type(x) is V.StructValue and x.type.family.name == "Complex"
            and x.type.fields == ["re", "im"])


def object_array_eltype(a: np.ndarray) -> V.JType | None:
    """The element type of an object array whose elements are all complex numbers of one
    type (None otherwise: the array's type stays `Array{Any}`). Only arrays whose first
    element is complex are scanned."""
    if a.size == 0:
        return None
    flat = a.reshape(-1)
    first = flat[0]
    if not is_complex(first):
        return None
    t = first.type
    for e in flat[1:]:
        if type(e) is not V.StructValue or (e.type is not t and e.type != t):
            return None
    return t


def _parts_dtype(values: list) -> np.dtype | None:
    """The promoted numpy type of the real and imaginary parts of numbers (None when one
    part has no numpy type: a Rational, a BigInt, a non-number)."""
    d: np.dtype | None = None
    for x in values:
        parts = x.fields if is_complex(x) else (x,)
        for p in parts:
            dp = N.dtype_of(p)
            if dp == N.OBJ or dp.kind not in "biuf":
                return None
            d = dp if d is None else N.promote(d, dp)
    return d


def _scalars(items: tuple) -> list:
    out: list = []
    for x in items:
        if isinstance(x, np.ndarray):
            if x.dtype == object:
                out.extend(x.reshape(-1))
            elif x.size:
                out.append(N.host_scalar(x.reshape(-1)[0].astype(x.dtype)))
        else:
            out.append(x)
    return out


def promote_literal(items: tuple) -> tuple:
    """An array literal's items with every number converted to the common complex type,
    when one of them is complex (Julia's `vect`/`hcat`/`vcat` promote their elements);
    unchanged otherwise, or when a part has no numpy type."""
    scalars = _scalars(items)
    if not any(is_complex(x) for x in scalars):
        return items
    if not all(is_complex(x) or (N.is_scalar(x) and not isinstance(x, str)) for x in scalars):
        return items
    d = _parts_dtype(scalars)
    if d is None:
        return items
    t = V.apply_type(scalars[next(i for i, x in enumerate(scalars) if is_complex(x))].type.family,
                     (V.DTYPE_TO_JTYPE[d],))

    def conv(x: Any) -> Any:
        re_, im_ = (x.fields if is_complex(x) else (N.host_scalar(x), False))
        return V.StructValue(t, [N.cast(re_, d, np), N.cast(im_, d, np)])

    out = []
    for x in items:
        if isinstance(x, np.ndarray):
            y = np.empty(x.shape, dtype=object)
            flat = y.reshape(-1)
            for k, e in enumerate(x.reshape(-1)):
                flat[k] = conv(e)
            out.append(y)
        else:
            out.append(conv(x))
    return tuple(out)


def refuse_traced(t: V.JType, vals: list) -> None:
    """Complex numbers are computed on the host: a Complex built from traced (compiled)
    values stops the compile (an OffloadError: the call runs on the host instead, or
    ZYLA_COMPILE=always reports why), so no array of complex numbers is ever taken for a
    complex number of arrays."""
    if t.family.name == "Complex" and t.fields == ["re", "im"] and any(
            hasattr(v, "aval") for v in vals):
        raise OffloadError("complex numbers are computed on the host, not in compiled code")


def complex_cotangent(arg: Any, cot: Any) -> Any:
    """A gradient with respect to a complex argument, as Zygote writes it: the cotangent
    struct `(re = a, im = b)` of a Complex is the complex number `a + b*im` of floats (so
    `gradient(abs2, 1 + 2im) == (2.0 + 4.0im,)`), also inside arrays (an array of complex
    numbers), tuples and the cotangents of structs (`(x = 9.0 + 2.0im,)` for a
    `Ref(1 + im)`); any other cotangent is unchanged."""
    if is_complex(arg):
        return _complex_of_parts(arg, cot)
    if isinstance(arg, np.ndarray) and arg.dtype == object and isinstance(cot, np.ndarray):
        if cot.shape != arg.shape:
            return cot
        out = np.empty(cot.shape, dtype=object)  # elementwise
        flat = out.reshape(-1)
        for k, (a, c) in enumerate(zip(arg.reshape(-1), cot.reshape(-1), strict=True)):
            flat[k] = complex_cotangent(a, c)
        return out
    if isinstance(arg, tuple) and isinstance(cot, tuple) and len(arg) == len(cot):
        return tuple(complex_cotangent(a, c) for a, c in zip(arg, cot, strict=True))
    if (type(arg) is V.StructValue and isinstance(cot, V.NamedTuple)
            and list(cot.names) == list(arg.type.fields)):
        return V.NamedTuple(cot.names, tuple(complex_cotangent(a, c) for a, c in
                                             zip(arg.fields, cot.values, strict=True)))
    return cot


def _complex_of_parts(arg: V.StructValue, cot: Any) -> Any:
    if not (isinstance(cot, V.NamedTuple) and tuple(cot.names) == ("re", "im")):
        return cot
    parts = [0.0 if p is None else N.host_scalar(p) for p in cot.values]
    if not all(N.is_scalar(p) and N.dtype_of(p).kind in "biuf" for p in parts):
        return cot
    d = N.float_dtype(N.promote(N.dtype_of(parts[0]), N.dtype_of(parts[1])))
    t = V.apply_type(arg.type.family, (V.DTYPE_TO_JTYPE[d],))
    return V.StructValue(t, [N.cast(p, d, np) for p in parts])
