"""Hypothesis strategies for Zyla values, in `lang.door.api`'s conventions.

A numpy array's shape is the Julia size, a dict is a NamedTuple, a tuple a Tuple, a
Python float a Float64 and `numpy.float32` a Float32; `zyla_value` draws a value in the
runtime's own layout (axes reversed). `lang.door.testing` offers them to users.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

_DTYPES = {"Float64": np.float64, "Float32": np.float32, "Int64": np.int64, "Bool": np.bool_}


def floats(lo: float = -1.0, hi: float = 1.0, *, dtype: str = "Float64") -> st.SearchStrategy[Any]:
    """A Float64 (Python float) or Float32 (numpy.float32) in [lo, hi], finite."""
    if dtype == "Float32":
        return st.floats(np.float32(lo), np.float32(hi), width=32, allow_nan=False,
                         allow_infinity=False).map(np.float32)
    if dtype != "Float64":
        raise ValueError(f"floats: dtype must be Float64 or Float32, not {dtype}")
    return st.floats(float(lo), float(hi), allow_nan=False, allow_infinity=False)


def ints(lo: int = -10, hi: int = 10) -> st.SearchStrategy[int]:
    """An Int64 in [lo, hi]."""
    return st.integers(int(lo), int(hi))


def arrays(size: tuple[int, ...] | int, lo: float = -1.0, hi: float = 1.0, *,
           dtype: str = "Float64") -> st.SearchStrategy[np.ndarray]:
    """A Julia array of the given size (numpy shape = Julia size) with elements in
    [lo, hi]; dtype is a Julia element type name (Float64, Float32, Int64, Bool)."""
    dims = (size,) if isinstance(size, int) else tuple(size)
    n = int(np.prod(dims)) if dims else 1
    elem = _element(dtype, lo, hi)
    return st.lists(elem, min_size=n, max_size=n).map(
        lambda xs: np.array(xs, dtype=_DTYPES[dtype]).reshape(dims))


def tuples(*parts: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple]:
    """A Julia Tuple of the drawn parts."""
    return st.tuples(*parts)


def named_tuples(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict]:
    """A Julia NamedTuple (a dict, in field order) of the drawn fields."""
    names = list(fields)
    return st.tuples(*fields.values()).map(lambda vals: dict(zip(names, vals, strict=False)))


def _element(dtype: str, lo: float, hi: float) -> st.SearchStrategy[Any]:
    if dtype in ("Float64", "Float32"):
        return floats(lo, hi, dtype=dtype)
    if dtype == "Int64":
        return st.integers(int(np.ceil(lo)), int(np.floor(hi)))
    if dtype == "Bool":
        return st.booleans()
    raise ValueError(f"unsupported element type {dtype}")


def zyla_value(eltype: str, size: tuple[int, ...] = (), lo: float = -1.0,
               hi: float = 1.0) -> st.SearchStrategy[Any]:
    """A Zyla host value (lang.core.values' internal layout: arrays with their axes
    reversed) of the given element type and Julia size; a scalar when size is ()."""
    if not size:
        return _element(eltype, lo, hi)
    return arrays(tuple(size)[::-1], lo, hi, dtype=eltype)
