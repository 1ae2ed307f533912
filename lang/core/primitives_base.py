"""Primitives under Base, LinearAlgebra and Statistics that lang/core/stdlib/base.jl builds on:
shape helpers (`dropdims`, `repeat`, n-dimensional `cat`), `atan(y, x)`, float
predicates, small dense linear algebra (`det`, `inv`), `I`'s identity matrices, index
searches with `dims` (returning `CartesianIndex`es) and reductions of an arbitrary
function along dimensions.

Each is one function over `xp` (numpy on the host, jax.numpy in the compiled tier), as in
lang/core/primitives.py; differentiable ones carry their pullback rule in Zyla. Arrays use the
reversed layout of lang.core.values: Julia dimension d is numpy axis ndim - d.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current, eltypes
from lang.core import numeric as N
from lang.core import values as V
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    PRIMITIVES,
    HostOnly,
    _hx,
    _jx,
    _result,
    as_array,
    binary_elementwise,
    dim_mismatch,
    is_array,
    jl_size,
    numeric_prim,
    prim,
)
from lang.core.primitives_array import collect_results


def numeric(name: str, f: Any, pullback: str) -> None:
    prim(name, _hx(f), _jx(f), pullback, INFER_BY_LOWERING)


def _dims(dims: Any) -> tuple[int, ...]:
    if isinstance(dims, (tuple, list)) or (isinstance(dims, np.ndarray) and dims.ndim == 1):
        return tuple(int(d) for d in dims)
    return (int(dims),)


# --- shapes ---------------------------------------------------------------------------------


def dropdims_size(xp: Any, size: tuple, dims: Any) -> tuple:
    """The size `dropdims(x; dims)` leaves: `size` without `dims`, each of which must be 1."""
    ds = _dims(dims)
    if len(set(ds)) != len(ds):
        raise ZylaError("ArgumentError", "dropped dims must be unique")
    for d in ds:
        if not 1 <= d <= len(size) or size[d - 1] != 1:
            raise ZylaError("ArgumentError", "dropped dims must all be size 1")
    return tuple(n for k, n in enumerate(size) if k + 1 not in ds)


def _counts(x: Any, counts: tuple) -> tuple[int, ...]:
    """Per-numpy-axis repetition counts for Julia counts (one per Julia dimension)."""
    nd = max(x.ndim, len(counts))
    jl = [int(c) for c in counts] + [1] * (nd - len(counts))
    return tuple(reversed(jl))


def _pad(xp: Any, x: Any, nd: int) -> Any:
    """x with trailing Julia dimensions of size 1 up to rank nd (leading numpy axes)."""
    return xp.reshape(x, (1,) * (nd - x.ndim) + tuple(x.shape)) if x.ndim < nd else x


def repeat_outer(xp: Any, x: Any, counts: tuple) -> Any:
    """`repeat(x, counts...)`: the whole array tiled counts[d] times along dimension d."""
    x = as_array(x, xp)
    c = _counts(x, counts)
    return xp.tile(_pad(xp, x, len(c)), c)


def repeat_inner(xp: Any, x: Any, counts: tuple) -> Any:
    """`repeat(x; inner=counts)`: each element repeated counts[d] times along dimension d."""
    x = as_array(x, xp)
    c = _counts(x, counts)
    out = _pad(xp, x, len(c))
    for ax, k in enumerate(c):
        if k != 1:
            out = xp.repeat(out, k, axis=ax)
    return out


def repeat_outer_back(xp: Any, dz: Any, x: Any, counts: tuple) -> Any:
    """The cotangent of `x` in `repeat(x, counts...)`: dz summed over the tiles."""
    x = as_array(x, xp)
    c = _counts(x, counts)
    base = _pad(xp, x, len(c)).shape
    split = []
    for k, n in zip(c, base, strict=False):
        split += [k, n]
    s = xp.reshape(dz, tuple(split))
    return xp.reshape(xp.sum(s, axis=tuple(range(0, 2 * len(c), 2))), x.shape)


def repeat_inner_back(xp: Any, dz: Any, x: Any, counts: tuple) -> Any:
    """The cotangent of `x` in `repeat(x; inner=counts)`: dz summed over the copies."""
    x = as_array(x, xp)
    c = _counts(x, counts)
    base = _pad(xp, x, len(c)).shape
    split = []
    for k, n in zip(c, base, strict=False):
        split += [n, k]
    s = xp.reshape(dz, tuple(split))
    return xp.reshape(xp.sum(s, axis=tuple(range(1, 2 * len(c), 2))), x.shape)


def cat(xp: Any, d: int, *xs: Any) -> Any:
    """`cat(xs...; dims=d)` for any d: inputs padded with trailing dimensions of size 1."""
    d = int(d)
    arrs = [as_array(x, xp) for x in xs]
    arrs = [xp.reshape(xp.asarray(a), (1,)) if not is_array(a) else a for a in arrs]
    nd = max([d] + [a.ndim for a in arrs])
    dt = N.OBJ
    for a in arrs:
        dt = N.dtype_of(a) if dt == N.OBJ else N.promote(dt, N.dtype_of(a))
    padded = [xp.asarray(_pad(xp, a, nd), dtype=dt) for a in arrs]
    try:
        return xp.concatenate(padded, axis=nd - d)
    except (ValueError, TypeError):
        sizes = ", ".join(str(jl_size(a)) for a in arrs)
        raise dim_mismatch(f"cat: mismatch in dimensions other than {d}; "
                           f"got sizes {sizes}") from None


def cat_back(xp: Any, dz: Any, d: int, *xs: Any) -> tuple:
    """Cotangents of the inputs of `cat(xs...; dims=d)`: the slices of dz."""
    d = int(d)
    nd = dz.ndim
    out = []
    k = 0
    for x in xs:
        a = as_array(x, xp)
        n = (a.shape[a.ndim - d] if is_array(a) and a.ndim >= d else 1)
        idx = [slice(None)] * nd
        idx[nd - d] = slice(k, k + n)
        piece = dz[tuple(idx)]
        k += n
        out.append(xp.reshape(piece, a.shape) if is_array(a)
                   else _result(xp.reshape(piece, ()), xp))
    return tuple(out)


# --- linear algebra -------------------------------------------------------------------------


def _square(x: Any) -> Any:
    if not is_array(x) or x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise dim_mismatch(f"matrix is not square: dimensions are {jl_size(x)}")
    return x


def det(xp: Any, x: Any) -> Any:
    """Determinant (the transposed layout has the same determinant)."""
    if not is_array(x):
        return x
    x = _square(as_array(x, xp))
    x = N.cast(x, N.float_dtype(N.dtype_of(x)), xp)
    if xp is np:
        return _result(_lu_det(np.ascontiguousarray(x.T)), xp)
    return xp.linalg.det(x)


def _lu_det(a: np.ndarray) -> Any:
    """det by LU with partial row pivoting, as Julia's `det` (LAPACK getrf) computes it,
    so small integer-valued matrices give exact results (det([2 1; 1 3]) == 5.0)."""
    a = a.copy()
    n = a.shape[0]
    d = a.dtype.type(1)
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return a.dtype.type(0)
        if p != k:
            a[[k, p]] = a[[p, k]]
            d = -d
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
        d = d * a[k, k]
    return d


def matinv(xp: Any, x: Any) -> Any:
    """Matrix inverse; inv(Aᵀ) = inv(A)ᵀ, so the layout needs nothing special."""
    x = _square(as_array(x, xp))
    x = N.cast(x, N.float_dtype(N.dtype_of(x)), xp)
    if xp is np:
        try:
            return np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise ZylaError("SingularException", "matrix is singular") from None
    return xp.linalg.inv(x)


def matpinv(xp: Any, x: Any) -> Any:
    """Moore-Penrose pseudo-inverse with Julia's default cut-off (singular values below
    eps * min(m, n) times the largest count as zero); pinv(Aᵀ) = pinv(A)ᵀ, so the layout
    needs nothing special."""
    x = as_array(x, xp)
    if not is_array(x) or x.ndim != 2:
        raise ZylaError("MethodError", f"no method matching pinv with dimensions {jl_size(x)}")
    x = N.cast(x, N.float_dtype(N.dtype_of(x)), xp)
    rtol = float(np.finfo(np.dtype(N.dtype_of(x))).eps) * min(x.shape)
    return xp.linalg.pinv(x, rtol=rtol)


def eye_like(xp: Any, a: Any, lam: Any) -> Any:
    """lam times the identity matrix of a's size and the promoted element type."""
    a = as_array(a, xp)
    if not is_array(a) or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise dim_mismatch(f"matrix is not square: dimensions are {jl_size(a)}")
    d = N.arith_dtype(N.dtype_of(a), N.dtype_of(lam))
    return xp.eye(a.shape[0], dtype=d) * xp.asarray(lam, dtype=d)


# --- index searches with dims -------------------------------------------------------------


def findext_dims(x: Any, dims: Any, largest: bool) -> tuple:
    """`findmax(x; dims)` / `findmin(x; dims)` on the host: the extreme values (dims kept)
    and an array of the same size of `CartesianIndex`es into x."""
    x = np.asarray(as_array(x))
    ci = V.apply_type(current.runtime().builtins["CartesianIndex"], (x.ndim,))
    axes = tuple(x.ndim - d for d in _dims(dims) if d <= x.ndim)
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
    pick = np.argmax(flat, axis=-1) if largest else np.argmin(flat, axis=-1)
    vals = np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0]
    keep = [1 if k in axes else n for k, n in enumerate(x.shape)]
    red_shape = [x.shape[a] for a in axes]
    idx = np.empty(vals.shape, dtype=object)
    for pos in np.ndindex(vals.shape):
        sub = np.unravel_index(int(pick[pos]), red_shape) if red_shape else ()
        full = list(pos) + list(sub)
        npidx = [0] * x.ndim
        rest = [a for a in range(x.ndim) if a not in axes]
        for a, v in zip(rest + list(axes), full, strict=False):
            npidx[a] = v
        idx[pos] = V.StructValue(ci, [tuple(int(i) + 1 for i in reversed(npidx))])
    return vals.reshape(keep), idx.reshape(keep)


def reduce_dims(interp: Any, op: Any, x: Any, dims: Any, init: Any) -> Any:
    """`reduce(op, x; dims)` for an arbitrary op on the host: a left fold along dims."""
    x = np.asarray(as_array(x))
    axes = tuple(x.ndim - d for d in _dims(dims) if d <= x.ndim)
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
    out = []
    for pos in np.ndindex(flat.shape[:-1]):
        items = [N.host_scalar(v) for v in flat[pos]]
        acc = init if init is not None else items.pop(0)
        for v in items:
            acc = interp.call_value(op, [acc, v])
        out.append(acc)
    keep = [1 if k in axes else n for k, n in enumerate(x.shape)]

    return collect_results(out, tuple(reversed(keep)))


# --- registration -----------------------------------------------------------------------------

numeric("Core.dropdims_size", dropdims_size, NONDIFF)
numeric("Core.repeat_outer", repeat_outer,
        "(dz, z, x, c) -> (Core.repeat_outer_back(dz, x, c), nothing)")
numeric("Core.repeat_inner", repeat_inner,
        "(dz, z, x, c) -> (Core.repeat_inner_back(dz, x, c), nothing)")
numeric("Core.repeat_outer_back", repeat_outer_back,
        "(ddx, z, dz, x, c) -> (Core.repeat_outer(ddx, c), nothing, nothing)")
numeric("Core.repeat_inner_back", repeat_inner_back,
        "(ddx, z, dz, x, c) -> (Core.repeat_inner(ddx, c), nothing, nothing)")
numeric("Core.cat", cat, "(dz, z, d, xs...) -> (nothing, Core.cat_back(dz, d, xs...)...)")
numeric("Core.cat_back", cat_back,
        "(dt, z, dz, d, xs...) -> (Core.cat(d, dt...), nothing, map(x -> nothing, xs)...)")
numeric("det", det, "(dz, z, A) -> (dz * z * inv(A)',)")
numeric("Core.matinv", matinv, "(dz, z, A) -> (-(z' * dz * z'),)")
# d pinv(A) = -Y dA Y + Y Y' dA' (I - A Y) + (I - Y A) dA' Y' Y, Y = pinv(A) (constant rank)
numeric("Core.matpinv", matpinv,
        "(dz, z, A) -> (-(z' * dz * z') + (dz' - A * (z * dz')) * (z * z')"
        " + (z' * z) * (dz' - (dz' * z) * A),)")
# (λ's cotangent is the trace of dz: gradient(λ -> sum(A + λ*I), 1.0) was 0.0)
numeric("Core.eye_like", eye_like,
        "(dz, z, a, lam) -> (nothing, sum(dz .* Core.eye_like(dz, 1.0)))")

#: Base.Math's constants of atan(y, x), per float type: π's low part (π - T(π)), and the
#: exponent difference past which |y/x| counts as infinite (or as zero)
_ATAN2 = {np.dtype(np.float32): (-8.7422777e-08, 26),
          np.dtype(np.float64): (1.2246467991473532e-16, 60)}


def _julia_atan2(xp: Any, y: Any, x: Any) -> Any:
    """atan(y, x) as Base.Math computes it for Float32/Float64 (its last bit differs from
    libm's atan2 in places): atan(|y/x|) folded into the quadrant with π's low part. The
    special values (zeros, infinities, NaN; x == 1 is atan(y)) are libm's, which agree.
    Compiled code keeps XLA's atan2 (XLA's arctan has last bits of its own anyway)."""
    if xp is not np:
        return xp.arctan2(y, x)
    if type(y) is float and type(x) is float:
        return _julia_atan2_float64(y, x)
    y_, x_ = np.asarray(y), np.asarray(x)
    consts = _ATAN2.get(np.dtype(y_.dtype))
    if consts is None or np.dtype(x_.dtype) != np.dtype(y_.dtype):
        return N.host_scalar(np.arctan2(y_, x_))
    t = np.dtype(y_.dtype).type
    pi, pilo = t(np.pi), t(consts[0])
    with np.errstate(all="ignore"):
        k = xp.frexp(y_)[1] - xp.frexp(x_)[1]
        huge = k > consts[1]
        z = xp.where(huge, pi / t(2) + t(0.5) * pilo,
                     xp.where((x_ < 0) & (k < -consts[1]), t(0), _arctan_once(xp.abs(y_ / x_))))
        left = xp.signbit(x_) & ~huge
        folded = xp.where(left, xp.where(xp.signbit(y_), (z - pilo) - pi, pi - (z - pilo)),
                          xp.where(xp.signbit(y_), -z, z))
        general = xp.isfinite(x_) & xp.isfinite(y_) & (x_ != 0) & (y_ != 0) & (x_ != 1)
        out = xp.where(general, folded,
                       xp.where(x_ == 1, _arctan_once(y_), xp.arctan2(y_, x_)))
    return N.host_scalar(out) if np.ndim(out) == 0 else out


def _arctan_once(v: Any) -> Any:
    """numpy's arctan of a float array, a Float32/Float16 one computed in Float64 and
    rounded once, as the host's atan(x) of one is (so that atan(y, 1) === atan(y))."""
    v = np.asarray(v)
    if v.dtype.kind == "f" and v.dtype.itemsize < 8:
        return np.arctan(v.astype(np.float64)).astype(v.dtype)
    return np.arctan(v)


def _julia_atan2_float64(y: float, x: float) -> float:
    """_julia_atan2 on two Python floats (Float64s), without numpy's overhead."""
    if not (math.isfinite(x) and math.isfinite(y)) or x == 0 or y == 0:
        return float(np.arctan2(y, x))
    if x == 1:
        return float(np.arctan(y))
    pilo, limit = _ATAN2[np.dtype(np.float64)]
    k = math.frexp(y)[1] - math.frexp(x)[1]
    if k > limit:
        z, left = math.pi / 2 + 0.5 * pilo, False
    else:
        # (numpy's arctan, as for arrays: libm's differs from it in a last bit at places)
        z = 0.0 if x < 0 and k < -limit else float(np.arctan(abs(y / x)))
        left = x < 0
    if left:
        return (z - pilo) - math.pi if y < 0 else math.pi - (z - pilo)
    return -z if y < 0 else z


_atan2 = binary_elementwise(_julia_atan2, "float")
numeric_prim("Core.atan2", _atan2,
             "(dz, z, y, x) -> (dz .* x ./ (x .^ 2 .+ y .^ 2), -dz .* y ./ (x .^ 2 .+ y .^ 2))",
             _atan2)


def _pred(fn: str) -> Any:
    def run(xp: Any, x: Any) -> Any:
        if xp is np and type(x) is int:
            return fn == "isfinite"
        if xp is np and isinstance(x, V.StructValue) and fn in _NUMBER_FALLBACKS \
                and V.issubtype(x.type, _NUMBER_FALLBACKS[fn][0]):
            return _NUMBER_FALLBACKS[fn][1](x)
        return _result(getattr(xp, fn)(as_array(x, xp)), xp)

    return run


def _call(name: str, *args: Any) -> Any:
    rt = current.runtime()
    return rt.interp.call_value(rt.lookup(name), list(args))


def _isnan_number(x: Any) -> bool:
    """Base's `isnan(x::AbstractFloat) = x != x` and `isnan(x::Number) = false`."""
    return bool(_call("!=", x, x)) if V.issubtype(x.type, V.AbstractFloatT) else False


#: Base's generic methods of the float predicates, for a program's own number types
#: (`struct FloatWrapper <: Real`): the least type they apply to, and the method
_NUMBER_FALLBACKS: dict[str, tuple] = {
    "isnan": (V.NumberT, _isnan_number),
    # isinf(x::Real) = !isnan(x) & !isfinite(x)
    "isinf": (V.RealT, lambda x: not _call("isnan", x) and not _call("isfinite", x)),
}

for _name in ("isnan", "isinf", "isfinite"):
    numeric_prim(_name, _pred(_name), NONDIFF, _pred(_name))

def cartesian_list(indices: tuple) -> np.ndarray:
    """Every CartesianIndex of `CartesianIndices(indices)` (a tuple of index ranges), in
    Julia's column-major order (the first index changes fastest), as one object vector."""
    rt = current.runtime()
    ci = V.apply_type(rt.builtins["CartesianIndex"], (len(indices),))
    axes = [list(rt.iterate(r)) for r in reversed(indices)]
    items = [V.StructValue(ci, [tuple(reversed(t))]) for t in itertools.product(*axes)]
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return eltypes.tag(out, ci)


prim("Core.cartesian_list", cartesian_list, HostOnly("CartesianIndex arrays are host values"),
     NONDIFF, lambda *a, **k: V.AnyT)
prim("Core.findext_dims", findext_dims, HostOnly("CartesianIndex arrays are host values"), NONDIFF,
     lambda *a, **k: V.AnyT)
prim("Core.reduce_dims", reduce_dims,
     HostOnly("reducing with an arbitrary function along dims runs on the host"),
     '(dz, z, op, x, d, i) -> error("reduce(op, x; dims) with a function other than +, *, max, min '
     'has no derivative; use sum/prod/maximum/minimum")', lambda *a, **k: V.AnyT, needs_interp=True)

# the underlying primitives of Base functions that base.jl extends with more methods
for _name in ("findmax", "findmin", "argmax", "argmin"):
    PRIMITIVES[f"Core.{_name}"] = PRIMITIVES[_name]


# Forward-mode rules (autodiff/forward.py): Zyla source `(d, z, args...) -> tangent of z`,
# d the tuple of the arguments' tangents (zeros where they have none), or a marker
# ("noforward": no rule, an AD error; "SPECIAL": the dispatcher's own).
FORWARD: dict[str, str] = {
    # boxes (captured variables a closure reassigns) do not carry tangents: putting a
    # value with a tangent in one is refused, so what comes out has none
    "Core.box": "noforward",
    "Core.setbox": "noforward",
    "Core.unbox": "(d, z, b) -> nothing",
    "acosh": "(d, z, x) -> d[1] ./ sqrt.(x .^ 2 .- 1)",
    "asinh": "(d, z, x) -> d[1] ./ sqrt.(x .^ 2 .+ 1)",
    "atanh": "(d, z, x) -> d[1] ./ (1 .- x .^ 2)",
    "cbrt": "(d, z, x) -> d[1] ./ (3 .* z .^ 2)",
    "Core.eye_like": "(d, z, a, lam) -> Core.eye_like(a, d[2])",
    "Core.atan2": "(d, z, y, x) -> (d[1] .* x .- d[2] .* y) ./ (x .^ 2 .+ y .^ 2)",
    "det": "(d, z, A) -> z * sum(transpose(inv(A)) .* d[1])",
    "Core.matinv": "(d, z, A) -> -(z * d[1] * z)",
    "Core.matpinv": "(d, z, A) -> -(z * d[1] * z) + z * z' * d[1]' * (I - A * z)"
                    " + (I - z * A) * d[1]' * z' * z",
    "Core.cat": "(d, z, dims, xs...) -> Core.cat(dims, Core.tail(d)...)",
    "Core.cat_back": "(t, z, dz, dims, xs...) -> Core.cat_back(t[1], dims, xs...)",
    "Core.repeat_outer": "(d, z, x, c) -> Core.repeat_outer(d[1], c)",
    "Core.repeat_inner": "(d, z, x, c) -> Core.repeat_inner(d[1], c)",
    "Core.repeat_outer_back": "(d, z, dz, x, c) -> Core.repeat_outer_back(d[1], x, c)",
    "Core.repeat_inner_back": "(d, z, dz, x, c) -> Core.repeat_inner_back(d[1], x, c)",
    "Core.reduce_dims": "noforward",
    "MLUtils.getobs": "(d, z, x, i) -> MLUtils.getobs(d[1], i)",
    "MLUtils.getobs_back": "(d, z, dz, x, i) -> MLUtils.getobs_back(d[1], x, i)",
    "Flux.cpu": "(d, z, x) -> d[1]",
    "Flux.gpu": "(d, z, x) -> d[1]",
}

# LinearAlgebra's factorizations (registered on import) and their forward rules
from lang.core import primitives_linalg  # noqa: E402

FORWARD.update(primitives_linalg.FORWARD)
