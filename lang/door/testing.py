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

from lang.door.api import to_zyla
from lang.door.gradcheck import GradCheckResult, check
from lang.door.strategies import arrays, floats, ints, named_tuples, tuples, zyla_value

__all__ = ["floats", "arrays", "tuples", "named_tuples", "ints", "zyla_value", "gradcheck",
           "GradCheckResult"]

def gradcheck(z: Any, f: str | Any, *args: Any, atol: float = 1e-5, rtol: float = 1e-4,
              eps: float | None = None, oracle: bool = True,
              raise_exception: bool = True) -> GradCheckResult:
    """Check Zyla's gradient of `f` (a name in session `z`, a `lang.door.api.Zyla`, or a Zyla
    function value) at `args` against central finite differences and `jax.grad` of
    the lowered primal. Raises AssertionError with the report on a mismatch unless
    `raise_exception=False`; returns the (truthy on success) result."""
    fn = z.rt.lookup(f) if isinstance(f, str) else f
    res = check(z.rt, fn, [to_zyla(a) for a in args], atol=atol, rtol=rtol, eps=eps,
                oracle=oracle)
    if not res.ok and raise_exception:
        raise AssertionError(res.report())
    return res
