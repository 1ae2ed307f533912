"""Testing Zyla code from Python: hypothesis strategies for Zyla values, and `gradcheck`.

Values follow `lang.door.api`'s conventions: a numpy array's shape is the Julia size (an
`(m, n)` array is the Julia `m×n` matrix), a Python `dict` is a NamedTuple, a `tuple`
a Tuple, a Python `float` a Float64 and `numpy.float32` a Float32.

    from hypothesis import given
    from lang.door.api import Zyla
    from lang.door import testing as zt

    z = Zyla()
    z.eval("loss(W, x) = sum(tanh.(W * x))")

    @given(zt.arrays((2, 3)), zt.arrays((3,)))
    def test_loss_gradient(W, x):
        assert zt.gradcheck(z, "loss", W, x)

`gradcheck` returns a `GradCheckResult` (truthy when AD agrees with central finite
differences and with `jax.grad` of the lowered primal) and, by default, raises an
`AssertionError` carrying the report when it does not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from lang.door.gradcheck import GradCheckResult, check

__all__ = ["floats", "arrays", "tuples", "named_tuples", "ints", "zyla_value", "gradcheck",
           "GradCheckResult"]

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


def gradcheck(z: Any, f: str | Any, *args: Any, atol: float = 1e-5, rtol: float = 1e-4,
              eps: float | None = None, oracle: bool = True,
              raise_exception: bool = True) -> GradCheckResult:
    """Check Zyla's gradient of `f` (a name in session `z`, a `lang.door.api.Zyla`, or a Zyla
    function value) at `args` against central finite differences and `jax.grad` of
    the lowered primal. Raises AssertionError with the report on a mismatch unless
    `raise_exception=False`; returns the (truthy on success) result."""
    from lang.door.api import to_zyla

    fn = z.rt.lookup(f) if isinstance(f, str) else f
    res = check(z.rt, fn, [to_zyla(a) for a in args], atol=atol, rtol=rtol, eps=eps,
                oracle=oracle)
    if not res.ok and raise_exception:
        raise AssertionError(res.report())
    return res
