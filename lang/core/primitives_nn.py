"""Neural-network primitives (NNlib's core) under the Flux-compatible library.

Convolution and pooling in Julia/Flux layout, elementwise activations that broadcast
without a per-element loop, and the few host services the library needs (layer modes,
running statistics written back from compiled code, dropout masks, delimited files,
progress bars, offloading a call from inside a Zyla function).

Layout (lang.core.values): a Julia array of size (W, H, C, N) is a numpy array of shape
(N, C, H, W). A Flux kernel of size (k1, k2, Cin, Cout) is stored (Cout, Cin, k2, k1),
which is exactly the NC+spatial / OI+spatial layout `lax.conv_general_dilated` uses by
default, with the spatial axes in reverse order. Every primitive takes its geometry
(`stride`, `pad`, `dilation`, window) in Julia order and reverses it internally.

Contracts shared by the convolution primitives (S spatial dimensions):

- `stride`, `dilation`: an Int or an S-tuple; `pad`: an Int, an S-tuple (the same on both
  sides) or a 2S-tuple `(lo1, hi1, lo2, hi2, ...)` as in NNlib;
- `flipped=false` is a true convolution (the kernel is reversed along every spatial
  dimension, as Flux's `Conv` does); `flipped=true` is cross-correlation (`CrossCor`);
- `Core.conv_data_back(dy, x, w, ...)` and `Core.conv_filter_back(dy, x, w, ...)` are
  the exact adjoints of `conv` in its input and its kernel (the arrays `x`/`w` passed
  to them only give shapes), so their own rules (nested AD) are again convolutions.

The host implementation is numpy ("shifted slices plus one matrix product"). In the
compiled tier the convolution, both its gradients and the pooling gradients have several
lowerings that compute the same thing (tables `CONV_LOWERINGS`, `POOL_LOWERINGS`); the
cost model (backend/costmodel.py) picks one per shape, dtype and geometry by measuring
them on this machine, and `ZYLA_CONV_LOWERING` / `ZYLA_POOL_LOWERING` force a choice.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import choices, safety
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins_io import STDIN
from lang.core.builtins_random import GLOBAL_RNG, uniform_jax
from lang.core.builtins_types import bound_params
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    HostOnly,
    _hx,
    _jx,
    _result,
    as_array,
    is_array,
    jl_equal,
    jl_size,
    prim,
)
from lang.core.show import jl_show

# --- geometry -------------------------------------------------------------------------------


def _tuple(v: Any, n: int, what: str) -> tuple[int, ...]:
    """An Int or an n-tuple of Ints, as an n-tuple (Julia order)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),) * n
    if isinstance(v, tuple) and len(v) == n and all(isinstance(a, (int, np.integer)) for a in v):
        return tuple(int(a) for a in v)
    if isinstance(v, tuple) and len(v) == 1 and n > 1:
        return (int(v[0]),) * n
    raise ZylaError("ArgumentError", f"{what} must be an Int or a {n}-tuple of Ints, got {v!r}")


def _pads(pad: Any, n: int) -> list[tuple[int, int]]:
    """NNlib's `pad` forms as (lo, hi) pairs per spatial dimension, Julia order."""
    if isinstance(pad, tuple) and len(pad) == 2 * n and n > 0:
        pairs = [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(n)]
    else:
        pairs = [(p, p) for p in _tuple(pad, n, "pad")]
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        raise ZylaError("ArgumentError", f"negative padding is not supported: {pad!r}")
    return pairs


class Geometry:
    """A convolution's or pooling window's geometry in numpy order (spatial axes reversed).

    `k` window size, `stride`, `dil` dilation, `pads` (lo, hi) per axis, `insize` the
    unpadded input's spatial shape, `out` the output's spatial shape."""

    def __init__(self, xshape: tuple, k: tuple, stride: Any, pad: Any, dil: Any) -> None:
        n = len(xshape) - 2
        if n < 1:
            raise ZylaError(
                "DimensionMismatch",
                f"expected an array with spatial, channel and batch "
                f"dimensions, got {len(xshape)} dimensions",
            )
        self.k = tuple(k)
        self.stride = tuple(reversed(_tuple(stride, n, "stride")))
        self.dil = tuple(reversed(_tuple(dil, n, "dilation")))
        self.pads = list(reversed(_pads(pad, n)))
        self.insize = tuple(xshape[2:])
        self.padded = tuple(s + lo + hi for s, (lo, hi) in zip(self.insize, self.pads, strict=True))
        self.out = tuple(
            (p - d * (kk - 1) - 1) // s + 1
            for p, d, kk, s in zip(self.padded, self.dil, self.k, self.stride, strict=True)
        )
        if any(o < 1 for o in self.out):
            raise ZylaError(
                "DimensionMismatch",
                f"the window {tuple(reversed(self.k))} does not fit "
                f"the input of spatial size {tuple(reversed(self.insize))} with this padding",
            )

    def windows(self) -> Iterator[tuple[slice, ...]]:
        """For each window offset (C order over k), the strided slices of the padded
        input that the offset reads for all output positions."""
        for offs in itertools.product(*[range(kk) for kk in self.k]):
            yield tuple(
                slice(o * d, o * d + s * (n - 1) + 1, s)
                for o, d, s, n in zip(offs, self.dil, self.stride, self.out, strict=True)
            )

    @property
    def nwin(self) -> int:
        return math.prod(self.k)

    def lax_padding(self) -> list[tuple[int, int]]:
        return [tuple(p) for p in self.pads]  # type: ignore[misc]

    def crop(self) -> tuple[slice, ...]:
        return (slice(None), slice(None)) + tuple(
            slice(lo, lo + n) for (lo, _), n in zip(self.pads, self.insize, strict=True)
        )


def _pad(xp: Any, x: Any, g: Geometry, value: float = 0.0) -> Any:
    if not any(lo or hi for lo, hi in g.pads):
        return x
    widths = [(0, 0), (0, 0)] + [tuple(p) for p in g.pads]
    return xp.pad(x, widths, constant_values=value)


def _float_arrays(xp: Any, *xs: Any) -> list[Any]:
    """Arrays promoted to their common float type (Julia keeps Float32 as Float32)."""
    arrs = [as_array(x, xp) for x in xs]
    d = N.F32
    for a in arrs:
        d = N.promote(d, N.float_dtype(N.dtype_of(a)))
    return [N.cast(a, d, xp) if N.dtype_of(a) != d else a for a in arrs]


def _check_conv(x: Any, w: Any) -> None:
    if x.ndim != w.ndim:
        raise ZylaError(
            "DimensionMismatch",
            f"conv: input of size {jl_size(x)} and kernel of size "
            f"{jl_size(w)} have different numbers of dimensions",
        )
    if x.shape[1] != w.shape[1]:
        raise ZylaError(
            "DimensionMismatch",
            f"conv: the input has {x.shape[1]} channels but the "
            f"kernel expects {w.shape[1]} (kernel size {jl_size(w)})",
        )


def _flip(xp: Any, w: Any, flipped: bool) -> Any:
    """The cross-correlation kernel of `conv(...; flipped)`."""
    if flipped:
        return w
    return xp.flip(w, axis=tuple(range(2, w.ndim)))


# How the compiled forward convolution receives a true convolution's reversed kernel:
# "fold" leaves the reverse for XLA to fold into the convolution, "barrier" materialises
# it behind an optimisation barrier. XLA's GPU pipeline turns a convolution of a reversed
# kernel into cuDNN's backward-input convolution, which gets no bias/activation fusion;
# behind the barrier cuDNN sees a forward convolution. Measured on an H200 (VGG19, batch
# 100, docs/PERFORMANCE.md "GPU"): with TensorFloat-32 the barrier wins (14.8 against
# 17.8 ms), in IEEE Float32 the fold does (64 against 104 ms: cuDNN's backward-input
# kernels are the faster ones at that precision). "auto": the barrier on a GPU whose
# Float32 products may use TensorFloat-32, the fold elsewhere. Read when a convolution
# is traced.
CONV_FLIP_MODES = ("auto", "barrier", "fold")


def _conv_flip_mode() -> str:
    mode = os.environ.get("ZYLA_CONV_FLIP", "auto").strip().lower() or "auto"
    if mode not in CONV_FLIP_MODES:
        raise ZylaError(
            "ArgumentError",
            f"ZYLA_CONV_FLIP={mode!r}: expected one of {', '.join(CONV_FLIP_MODES)}",
        )
    if mode == "auto":
        import jax

        tf32 = N.matmul_precision() != "highest"
        return "barrier" if tf32 and jax.default_backend() == "gpu" else "fold"
    return mode


def _forward_kernel(xp: Any, w: Any, flipped: bool) -> Any:
    """The kernel the forward convolution correlates with (see `_conv_flip_mode`)."""
    wc = _flip(xp, w, flipped)
    if flipped or xp is np or _conv_flip_mode() == "fold":
        return wc
    return _lax().optimization_barrier(wc)


# --- convolution: shifted slices (both tiers) ------------------------------------------------


def _window_slices(
    k: tuple, dil: tuple, stride: tuple, out: tuple
) -> list[tuple[slice, ...]]:
    """For each window offset (C order over k), the strided slices of a padded input that
    the offset reads for all output positions."""
    return [
        tuple(
            slice(o * d, o * d + s * (n - 1) + 1, s)
            for o, d, s, n in zip(offs, dil, stride, out, strict=True)
        )
        for offs in itertools.product(*[range(kk) for kk in k])
    ]


def _cols(xp: Any, x: Any, g: Geometry) -> Any:
    """im2col: (N, C*K, P) patches of the padded input, K window offsets, P outputs."""
    xpad = _pad(xp, x, g)
    lead = (slice(None), slice(None))
    cols = xp.stack([xpad[lead + sl] for sl in g.windows()], axis=2)
    n, c = x.shape[:2]
    return cols.reshape(n, c * g.nwin, math.prod(g.out))


def _xcorr_slices(xp: Any, x: Any, w: Any, g: Geometry) -> Any:
    o = w.shape[0]
    y = xp.matmul(w.reshape(o, -1), _cols(xp, x, g))
    return y.reshape((x.shape[0], o) + g.out)


def _scatter_windows(xp: Any, parts: Any, g: Geometry, shape: tuple, dtype: Any) -> Any:
    """The adjoint of reading the windows: parts (N, C, K, *out) added back into a zero
    padded input, then the padding cropped."""
    lead = (slice(None), slice(None))
    padded_shape = tuple(shape[:2]) + g.padded
    if xp is np:
        out = np.zeros(padded_shape, dtype=dtype)
        for j, sl in enumerate(g.windows()):
            out[lead + sl] += parts[:, :, j]
        return out[g.crop()]
    out = xp.zeros(padded_shape, dtype=dtype)
    for j, cfg in enumerate(_placements(g, 2)):
        out = out + _lax().pad(parts[:, :, j], xp.zeros((), dtype=dtype), cfg)
    return out[g.crop()]


def _placements(g: Geometry, lead: int, trail: int = 0) -> list[list[tuple[int, int, int]]]:
    """Per window offset, the `lax.pad` configuration that places an array of output
    positions (with `lead` leading and `trail` trailing non-spatial axes) at that offset
    in the padded input, strided (interior padding: dense, and it fuses)."""
    cfgs = []
    for offs in itertools.product(*[range(kk) for kk in g.k]):
        cfg = [(0, 0, 0)] * lead
        for o, d, s, n, p in zip(offs, g.dil, g.stride, g.out, g.padded, strict=True):
            lo = o * d
            cfg.append((lo, p - (lo + s * (n - 1) + 1), s - 1))
        cfgs.append(cfg + [(0, 0, 0)] * trail)
    return cfgs


def _xcorr_data_back_slices(xp: Any, dy: Any, xshape: tuple, w: Any, g: Geometry) -> Any:
    n, o = dy.shape[:2]
    c = w.shape[1]
    dcols = xp.matmul(xp.transpose(w.reshape(o, -1)), dy.reshape(n, o, -1))
    dcols = dcols.reshape((n, c, g.nwin) + g.out)
    return _scatter_windows(xp, dcols, g, xshape, dy.dtype)


def _xcorr_filter_back_slices(xp: Any, dy: Any, x: Any, wshape: tuple, g: Geometry) -> Any:
    n, o = dy.shape[:2]
    cols = _cols(xp, x, g)  # (N, CK, P)
    dyt = xp.transpose(dy.reshape(n, o, -1), (1, 0, 2)).reshape(o, -1)
    colt = xp.transpose(cols, (1, 0, 2)).reshape(cols.shape[1], -1)
    return xp.matmul(dyt, xp.transpose(colt)).reshape(wshape)


# --- convolution: the compiled tier's lowerings ------------------------------------------------
#
# Each lowering works on numpy-layout JAX arrays with the cross-correlation kernel `wc`
# (O, C, *k): forward `(x, wc, g) -> y`, data gradient `(dy, wc, g) -> dx`, filter
# gradient `(dy, x, g) -> dwc`. "xla": one XLA convolution (lhs-dilated for the data
# gradient, batch and channels swapped for the filter gradient); "jax": JAX's own transpose
# rule; "slices": channel-first im2col/col2im and one matrix product, as on the host;
# "im2col"/"col2im"/"offsets_cl" move the channels last so that each window read is one
# (N*P, C) matrix; "offsets": one matrix product per window offset, channel-first.


def _lax() -> Any:
    from jax import lax

    return lax


def _channels_last(a: Any) -> Any:
    return N.jax_numpy().moveaxis(a, 1, -1)


def _channels_first(a: Any) -> Any:
    return N.jax_numpy().moveaxis(a, -1, 1)


def _patches_last(xpad: Any, k: tuple, stride: tuple, dil: tuple, out: tuple) -> Any:
    """im2col, channel-last: the (N*P, K*C) matrix of windows of a padded input (N, C, *P)."""
    jnp = N.jax_numpy()
    xt = _channels_last(xpad)
    whole = (slice(None),)
    cols = jnp.stack(
        [xt[whole + sl + whole] for sl in _window_slices(k, dil, stride, out)], axis=-2
    )
    return cols.reshape(xpad.shape[0] * math.prod(out), -1)


def _corr_im2col(xpad: Any, wc: Any, k: tuple, stride: tuple, dil: tuple, out: tuple) -> Any:
    """Cross-correlation of a padded input as one matrix product of its channel-last
    patches with the kernel."""
    o = wc.shape[0]
    cols = _patches_last(xpad, k, stride, dil, out)
    wm = _channels_last(wc).reshape(o, -1)  # (O, K*C), K in the patches' order
    y = _lax().dot_general(cols, wm, (((1,), (1,)), ((), ())))
    return _channels_first(y.reshape((xpad.shape[0],) + out + (o,)))


def _lax_pad(x: Any, cfg: list[tuple[int, int, int]]) -> Any:
    if all(c == (0, 0, 0) for c in cfg):
        return x
    return _lax().pad(x, N.jax_numpy().zeros((), x.dtype), cfg)


def _fwd_xla(x: Any, wc: Any, g: Geometry) -> Any:
    return _lax().conv_general_dilated(
        x, wc, window_strides=g.stride, padding=g.lax_padding(), rhs_dilation=g.dil
    )


def _fwd_im2col(x: Any, wc: Any, g: Geometry) -> Any:
    xpad = _lax_pad(x, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in g.pads])
    return _corr_im2col(xpad, wc, g.k, g.stride, g.dil, g.out)


def _fwd_slices(x: Any, wc: Any, g: Geometry) -> Any:
    return _xcorr_slices(N.jax_numpy(), x, wc, g)


def _dilated(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def _data_back_pads(g: Geometry) -> list[tuple[int, int]]:
    """The padding that turns conv's input gradient into a stride-1 correlation of dy
    dilated by the stride (negative where the forward padding was wider than the kernel)."""
    pads = []
    for n, k, s, d, o, (lo, _) in zip(g.insize, g.k, g.stride, g.dil, g.out, g.pads, strict=True):
        before = _dilated(k, d) - lo - 1
        after = n + _dilated(k, d) - 1 - _dilated(o, s) - before
        pads.append((before, after))
    return pads


def _transposed_kernel(wc: Any) -> Any:
    """The kernel of the data gradient's correlation: spatial axes reversed, in and out
    channels swapped."""
    return _lax().rev(wc, tuple(range(2, wc.ndim))).swapaxes(0, 1)


def _dx_xla(dy: Any, wc: Any, g: Geometry) -> Any:
    """conv's input cotangent as one XLA convolution: dy dilated by the stride (lhs
    dilation), against the transposed kernel."""
    return _lax().conv_general_dilated(
        dy,
        _transposed_kernel(wc),
        window_strides=(1,) * len(g.k),
        padding=_data_back_pads(g),
        lhs_dilation=g.stride,
        rhs_dilation=g.dil,
    )


def _dx_jax(dy: Any, wc: Any, g: Geometry) -> Any:
    """What JAX itself emits: the transpose of its conv_general_dilated."""
    import jax

    xshape = (dy.shape[0], wc.shape[1]) + g.insize
    fwd = lambda u: _fwd_xla(u, wc, g)  # noqa: E731
    return jax.linear_transpose(fwd, jax.ShapeDtypeStruct(xshape, dy.dtype))(dy)[0]


def _dx_im2col(dy: Any, wc: Any, g: Geometry) -> Any:
    """dy dilated and padded (one lax.pad), then a stride-1 im2col correlation with the
    transposed kernel."""
    pads = zip(_data_back_pads(g), g.stride, strict=True)
    cfg = [(0, 0, 0)] * 2 + [(lo, hi, s - 1) for (lo, hi), s in pads]
    one = (1,) * len(g.k)
    return _corr_im2col(_lax_pad(dy, cfg), _transposed_kernel(wc), g.k, one, g.dil, g.insize)


def _dx_slices(dy: Any, wc: Any, g: Geometry) -> Any:
    xshape = (dy.shape[0], wc.shape[1]) + g.insize
    return _xcorr_data_back_slices(N.jax_numpy(), dy, xshape, wc, g)


def _dx_col2im(dy: Any, wc: Any, g: Geometry) -> Any:
    """Channel-last col2im: one matrix product gives every window's part of dx, and the
    parts are added back at their offsets (strided pads that fuse into one loop)."""
    jnp = N.jax_numpy()
    n, o = dy.shape[:2]
    c = wc.shape[1]
    dyt = _channels_last(dy).reshape(-1, o)
    wm = _channels_last(wc).reshape(o, -1)
    parts = jnp.matmul(dyt, wm).reshape((n,) + g.out + (g.nwin, c))
    s = len(g.k)
    out = None
    for j, cfg in enumerate(_placements(g, 1, 1)):
        part = _lax_pad(parts[(slice(None),) * (1 + s) + (j,)], cfg)
        out = part if out is None else out + part
    crop = (slice(None),) + tuple(
        slice(lo, lo + m) for (lo, _), m in zip(g.pads, g.insize, strict=True)
    )
    return _channels_first(out[crop])


def _dw_xla(dy: Any, x: Any, g: Geometry) -> Any:
    """conv's kernel cotangent as one XLA convolution: the input against dy, with batch
    and channels exchanging roles (the kernel's dilation becomes the stride)."""
    lax = _lax()
    pads = []
    for n, k, s, d, o, (lo, _) in zip(g.insize, g.k, g.stride, g.dil, g.out, g.pads, strict=True):
        hi = (_dilated(o, s) - n) + (_dilated(k, d) - lo - 1)
        pads.append((lo, hi))
    swap = (1, 0) + tuple(range(2, x.ndim))
    dn = lax.ConvDimensionNumbers(swap, swap, swap)
    return lax.conv_general_dilated(
        x, dy, window_strides=g.dil, padding=pads, rhs_dilation=g.stride, dimension_numbers=dn
    )


def _dw_jax(dy: Any, x: Any, g: Geometry) -> Any:
    """What JAX itself emits: the transpose of its conv_general_dilated in the kernel."""
    import jax

    wshape = (dy.shape[1], x.shape[1]) + g.k
    fwd = lambda v: _fwd_xla(x, v, g)  # noqa: E731
    return jax.linear_transpose(fwd, jax.ShapeDtypeStruct(wshape, dy.dtype))(dy)[0]


def _dw_slices(dy: Any, x: Any, g: Geometry) -> Any:
    wshape = (dy.shape[1], x.shape[1]) + g.k
    return _xcorr_filter_back_slices(N.jax_numpy(), dy, x, wshape, g)


def _dw_im2col(dy: Any, x: Any, g: Geometry) -> Any:
    """One matrix product of dy (N*P, O) with the channel-last patches (N*P, K*C)."""
    o, c = dy.shape[1], x.shape[1]
    xpad = _lax_pad(x, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in g.pads])
    cols = _patches_last(xpad, g.k, g.stride, g.dil, g.out)
    dyt = _channels_last(dy).reshape(-1, o)
    dw = _lax().dot_general(dyt, cols, (((0,), (0,)), ((), ())))  # (O, K*C)
    return _channels_first(dw.reshape((o,) + g.k + (c,)))


def _dw_offsets(dy: Any, x: Any, g: Geometry) -> Any:
    """One matrix product per window offset, dy (O, N*P) against that offset's input
    slice (C, N*P) (channel-first: both contract along their contiguous axis); no patch
    matrix is materialised."""
    jnp = N.jax_numpy()
    lax = _lax()
    o, c = dy.shape[1], x.shape[1]
    xpad = _lax_pad(x, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in g.pads])
    dyc = jnp.moveaxis(dy, 1, 0).reshape(o, -1)
    lead = (slice(None), slice(None))
    blocks = [
        lax.dot_general(
            dyc, jnp.moveaxis(xpad[lead + sl], 1, 0).reshape(c, -1), (((1,), (1,)), ((), ()))
        )
        for sl in g.windows()
    ]
    return jnp.stack(blocks, axis=-1).reshape((o, c) + g.k)


def _dw_offsets_cl(dy: Any, x: Any, g: Geometry) -> Any:
    """As `_dw_offsets`, channel-last: dy (N*P, O) against each offset's slice (N*P, C)."""
    jnp = N.jax_numpy()
    lax = _lax()
    o, c = dy.shape[1], x.shape[1]
    xt = _channels_last(_lax_pad(x, [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in g.pads]))
    dyt = _channels_last(dy).reshape(-1, o)
    whole = (slice(None),)
    blocks = [
        lax.dot_general(dyt, xt[whole + sl + whole].reshape(-1, c), (((0,), (0,)), ((), ())))
        for sl in g.windows()
    ]
    return jnp.stack(blocks, axis=-1).reshape((o, c) + g.k)


CONV_LOWERINGS: dict[str, dict[str, Callable[[Any, Any, Geometry], Any]]] = {
    "conv": {"xla": _fwd_xla, "im2col": _fwd_im2col, "slices": _fwd_slices},
    "conv_data_back": {
        "xla": _dx_xla,
        "jax": _dx_jax,
        "im2col": _dx_im2col,
        "col2im": _dx_col2im,
        "slices": _dx_slices,
    },
    "conv_filter_back": {
        "xla": _dw_xla,
        "jax": _dw_jax,
        "im2col": _dw_im2col,
        "offsets": _dw_offsets,
        "offsets_cl": _dw_offsets_cl,
        "slices": _dw_slices,
    },
}


def _conv_key(xshape: tuple, wshape: tuple, dtype: Any, g: Geometry) -> str:
    """A convolution problem, as the cost model's cache keys it (sizes in Julia order)."""
    rev = lambda t: tuple(reversed(t))  # noqa: E731
    return (
        f"x={rev(xshape)} w={rev(wshape)} {np.dtype(dtype).name} stride={rev(g.stride)} "
        f"pad={rev(tuple(g.pads))} dilation={rev(g.dil)}"
    )


def conv_lowering(op: str, a: Any, b: Any, g: Geometry, xshape: tuple, wshape: tuple) -> Any:
    """Emit `op` ("conv", "conv_data_back" or "conv_filter_back") on the JAX arrays `a`, `b`
    (the operands of its `CONV_LOWERINGS` entries) with the lowering the cost model picks."""
    table = CONV_LOWERINGS[op]
    work = 2.0 * xshape[0] * wshape[0] * wshape[1] * math.prod(g.out) * math.prod(g.k)
    name = choices.choose(
        op,
        _conv_key(xshape, wshape, a.dtype, g),
        lambda n: lambda p, q: table[n](p, q, g),
        [(tuple(a.shape), a.dtype), (tuple(b.shape), b.dtype)],
        work,
        batch_axes=(0, 0 if op == "conv_filter_back" else None),
    )
    return table[name](a, b, g)


# The lowerings the automatic choice measures. The others never won on XLA:CPU (2-core
# Xeon, VGG19 and LeNet shapes, Float32/Float64): "jax" is the same XLA convolution as
# "xla"; the "im2col"/"col2im" data gradients lost by 1.3-30x. They stay available to
# force (ZYLA_CONV_LOWERING) for comparisons.
CONV_MEASURED = {
    "conv": ("xla", "im2col", "slices"),
    "conv_data_back": ("xla", "slices"),
    "conv_filter_back": ("xla", "slices", "im2col", "offsets", "offsets_cl"),
}


def _register_conv_lowerings() -> None:
    for op, table in CONV_LOWERINGS.items():
        choices.offer(op, tuple(table), "xla", "ZYLA_CONV_LOWERING", CONV_MEASURED[op])


_register_conv_lowerings()


# --- convolution: the primitives ---------------------------------------------------------------


def _geometry(x: Any, w: Any, stride: Any, pad: Any, dil: Any) -> Geometry:
    _check_conv(x, w)
    return Geometry(tuple(x.shape), tuple(w.shape[2:]), stride, pad, dil)


def conv(
    xp: Any, x: Any, w: Any, stride: Any = 1, pad: Any = 0, dil: Any = 1, flipped: bool = False
) -> Any:
    """NNlib's `conv(x, w; stride, pad, dilation, flipped)` (see the module docstring)."""
    x, w = _float_arrays(xp, x, w)
    g = _geometry(x, w, stride, pad, dil)
    wc = _forward_kernel(xp, w, flipped)
    if xp is np:
        return _xcorr_slices(np, x, wc, g)
    return conv_lowering("conv", x, wc, g, tuple(x.shape), tuple(w.shape))


def conv_data_back(
    xp: Any,
    dy: Any,
    x: Any,
    w: Any,
    stride: Any = 1,
    pad: Any = 0,
    dil: Any = 1,
    flipped: bool = False,
) -> Any:
    """The cotangent of conv's input: the adjoint of `u -> conv(u, w)` applied to dy."""
    dy, w = _float_arrays(xp, dy, w)
    x = as_array(x, xp)
    g = _geometry(x, w, stride, pad, dil)
    wc = _flip(xp, w, flipped)
    if xp is np:
        return _xcorr_data_back_slices(np, dy, x.shape, wc, g)
    return conv_lowering("conv_data_back", dy, wc, g, tuple(x.shape), tuple(w.shape))


def conv_filter_back(
    xp: Any,
    dy: Any,
    x: Any,
    w: Any,
    stride: Any = 1,
    pad: Any = 0,
    dil: Any = 1,
    flipped: bool = False,
) -> Any:
    """The cotangent of conv's kernel: the adjoint of `v -> conv(x, v)` applied to dy."""
    dy, x = _float_arrays(xp, dy, x)
    w = as_array(w, xp)
    g = _geometry(x, w, stride, pad, dil)
    if xp is np:
        dwc = _xcorr_filter_back_slices(np, dy, x, w.shape, g)
    else:
        dwc = conv_lowering("conv_filter_back", dy, x, g, tuple(x.shape), tuple(w.shape))
    return _flip(xp, dwc, flipped)


_CONV_ARGS = "s, p, d, f"
_CONV_NOTHING = "nothing, nothing, nothing, nothing"

prim(
    "Core.conv",
    _hx(conv),
    _jx(conv),
    f"(dy, y, x, w, {_CONV_ARGS}) -> (Core.conv_data_back(dy, x, w, {_CONV_ARGS}), "
    f"Core.conv_filter_back(dy, x, w, {_CONV_ARGS}), {_CONV_NOTHING})",
)
prim(
    "Core.conv_data_back",
    _hx(conv_data_back),
    _jx(conv_data_back),
    f"(ddx, dx, dy, x, w, {_CONV_ARGS}) -> (Core.conv(ddx, w, {_CONV_ARGS}), nothing, "
    f"Core.conv_filter_back(dy, ddx, w, {_CONV_ARGS}), {_CONV_NOTHING})",
)
prim(
    "Core.conv_filter_back",
    _hx(conv_filter_back),
    _jx(conv_filter_back),
    f"(ddw, dw, dy, x, w, {_CONV_ARGS}) -> (Core.conv(x, ddw, {_CONV_ARGS}), "
    f"Core.conv_data_back(dy, x, ddw, {_CONV_ARGS}), nothing, {_CONV_NOTHING})",
)


# --- pooling -----------------------------------------------------------------------------------


def _pool_geometry(x: Any, k: Any, stride: Any, pad: Any) -> Geometry:
    n = x.ndim - 2
    kk = tuple(reversed(_tuple(k, n, "pooling window")))
    return Geometry(
        tuple(x.shape), kk, stride if stride is not None else tuple(reversed(kk)), pad, 1
    )


def _windows_of(xp: Any, x: Any, g: Geometry, value: float) -> list[Any]:
    xpad = _pad(xp, x, g, value)
    lead = (slice(None), slice(None))
    return [xpad[lead + sl] for sl in g.windows()]


def maxpool(xp: Any, x: Any, k: Any, stride: Any = None, pad: Any = 0) -> Any:
    """NNlib's `maxpool(x, k; pad, stride=k)`: the maximum of each window (padding is -Inf)."""
    (x,) = _float_arrays(xp, x)
    g = _pool_geometry(x, k, stride, pad)
    if xp is np:
        wins = _windows_of(np, x, g, -np.inf)
        out = wins[0]
        for v in wins[1:]:
            out = np.maximum(out, v)
        return np.array(out)
    return pool_lowering("maxpool", [x], g)


def _argmax_masks(xp: Any, y: Any, x: Any, g: Geometry) -> list[Any]:
    """Per window offset, where that offset holds its window's maximum, counting only the
    first maximum of each window (ties give the whole cotangent to one input, as the
    derivative of a maximum should)."""
    masks = []
    taken = None
    for v in _windows_of(xp, x, g, -np.inf):
        m = v == y
        if taken is not None:
            m = m & ~taken
            taken = taken | m
        else:
            taken = m
        masks.append(m)
    return masks


def _maxpool_xla(x: Any, g: Geometry) -> Any:
    # a Python scalar initial value: JAX then uses its max-pooling primitive (which it can
    # differentiate, for the oracle tests), not a generic reduction
    lax = _lax()
    return lax.reduce_window(
        x, -np.inf, lax.max, (1, 1) + g.k, (1, 1) + g.stride, [(0, 0), (0, 0)] + g.lax_padding()
    )


def _meanpool_xla(x: Any, g: Geometry) -> Any:
    lax = _lax()
    s = lax.reduce_window(
        x, 0.0, lax.add, (1, 1) + g.k, (1, 1) + g.stride, [(0, 0), (0, 0)] + g.lax_padding()
    )
    return s / N.jax_numpy().asarray(g.nwin, dtype=x.dtype)


def _maxpool_reshape(x: Any, g: Geometry) -> Any:
    """Non-overlapping windows only: a maximum over the last axis of the tiled input."""
    return N.jax_numpy().max(_windows_last(x, g, -np.inf), axis=-1)


def _meanpool_reshape(x: Any, g: Geometry) -> Any:
    """Non-overlapping windows only: a sum over the last axis of the tiled input."""
    jnp = N.jax_numpy()
    return jnp.sum(_windows_last(x, g, 0.0), axis=-1) / jnp.asarray(g.nwin, dtype=x.dtype)


def _maxpool_back_slices(dy: Any, y: Any, x: Any, g: Geometry) -> Any:
    jnp = N.jax_numpy()
    masks = _argmax_masks(jnp, y, x, g)
    parts = jnp.stack([jnp.where(m, dy, jnp.zeros((), dy.dtype)) for m in masks], axis=2)
    return _scatter_windows(jnp, parts, g, x.shape, dy.dtype)


def _maxpool_back_jax(dy: Any, y: Any, x: Any, g: Geometry) -> Any:
    """What JAX itself emits for the gradient of reduce_window max: select_and_scatter_add."""
    import jax

    lax = _lax()
    fwd = lambda u: lax.reduce_window(  # noqa: E731
        u, -np.inf, lax.max, (1, 1) + g.k, (1, 1) + g.stride, [(0, 0), (0, 0)] + g.lax_padding()
    )
    return jax.vjp(fwd, x)[1](dy)[0]


def _tiles(g: Geometry) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """For non-overlapping windows (stride == window): the part of the padded input the
    windows cover, the (N, C, o1, k1, o2, k2, ...) shape that tiles it, and the
    permutation that gathers each window's entries on the last axes."""
    used = tuple(o * k for o, k in zip(g.out, g.k, strict=True))
    tiled = tuple(v for o, k in zip(g.out, g.k, strict=True) for v in (o, k))
    s = len(g.k)
    perm = (0, 1) + tuple(2 + 2 * i for i in range(s)) + tuple(3 + 2 * i for i in range(s))
    return used, tiled, perm


def _untile(parts: Any, g: Geometry) -> Any:
    """parts (N, C, *out, K), one value per window entry, back to the input's layout: the
    inverse of reading the tiles, zero where no window reads, padding cropped."""
    used, tiled, perm = _tiles(g)
    n, c = parts.shape[:2]
    t = parts.reshape((n, c) + g.out + g.k).transpose(np.argsort(perm))
    full = _lax_pad(
        t.reshape((n, c) + used),
        [(0, 0, 0)] * 2 + [(0, p - u, 0) for p, u in zip(g.padded, used, strict=True)],
    )
    return full[g.crop()]


def _windows_last(x: Any, g: Geometry, fill: float) -> Any:
    """Non-overlapping windows only: (N, C, *out, K), each window's entries on the last
    axis (the input padded with `fill`, the part no window covers dropped)."""
    jnp = N.jax_numpy()
    used, tiled, perm = _tiles(g)
    n, c = x.shape[:2]
    xpad = _lax().pad(
        x, jnp.asarray(fill, x.dtype), [(0, 0, 0)] * 2 + [(lo, hi, 0) for lo, hi in g.pads]
    )
    xw = xpad[(slice(None),) * 2 + tuple(slice(0, u) for u in used)]
    return xw.reshape((n, c) + tiled).transpose(perm).reshape((n, c) + g.out + (g.nwin,))


def _maxpool_back_reshape(dy: Any, y: Any, x: Any, g: Geometry) -> Any:
    """Non-overlapping windows only: the input reshaped so each window is the last axis,
    the first maximum of each window takes dy, reshaped back (no scatter at all)."""
    jnp = N.jax_numpy()
    xw = _windows_last(x, g, -np.inf)
    zero = jnp.zeros((), dy.dtype)
    taken = None
    parts = []
    for j in range(g.nwin):
        m = xw[..., j] == y
        m = m if taken is None else m & ~taken
        taken = m if taken is None else taken | m
        parts.append(jnp.where(m, dy, zero))
    return _untile(jnp.stack(parts, axis=-1), g)


def _meanpool_back_slices(dy: Any, g: Geometry) -> Any:
    jnp = N.jax_numpy()
    part = dy / jnp.asarray(g.nwin, dtype=dy.dtype)
    parts = jnp.stack([part] * g.nwin, axis=2)
    return _scatter_windows(jnp, parts, g, dy.shape[:2] + g.insize, dy.dtype)


def _meanpool_back_jax(dy: Any, g: Geometry) -> Any:
    """What JAX itself emits: the transpose of reduce_window add (a pad and a window sum)."""
    import jax

    lax = _lax()
    xshape = tuple(dy.shape[:2]) + g.insize
    fwd = lambda u: lax.reduce_window(  # noqa: E731
        u, 0.0, lax.add, (1, 1) + g.k, (1, 1) + g.stride, [(0, 0), (0, 0)] + g.lax_padding()
    ) / N.jax_numpy().asarray(g.nwin, dtype=dy.dtype)
    return jax.linear_transpose(fwd, jax.ShapeDtypeStruct(xshape, dy.dtype))(dy)[0]


def _meanpool_back_reshape(dy: Any, g: Geometry) -> Any:
    """Non-overlapping windows only: dy / K broadcast over each window, reshaped back."""
    jnp = N.jax_numpy()
    part = dy / jnp.asarray(g.nwin, dtype=dy.dtype)
    return _untile(jnp.broadcast_to(part[..., None], part.shape + (g.nwin,)), g)


POOL_LOWERINGS: dict[str, dict[str, Callable[..., Any]]] = {
    "maxpool": {"xla": _maxpool_xla, "reshape": _maxpool_reshape},
    "meanpool": {"xla": _meanpool_xla, "reshape": _meanpool_reshape},
    "maxpool_back": {
        "slices": _maxpool_back_slices,
        "jax": _maxpool_back_jax,
        "reshape": _maxpool_back_reshape,
    },
    "meanpool_back": {
        "slices": _meanpool_back_slices,
        "jax": _meanpool_back_jax,
        "reshape": _meanpool_back_reshape,
    },
}


def _tiling(g: Geometry) -> bool:
    """Whether the windows tile the input (stride == window), as "reshape" needs."""
    return g.stride == g.k


def pool_lowering(op: str, arrays: list[Any], g: Geometry) -> Any:
    """Emit `op` (a key of `POOL_LOWERINGS`) on the JAX arrays `arrays` (the operands of its
    entries, the first one batch-first) with the lowering the cost model picks."""
    table = POOL_LOWERINGS[op]
    rev = lambda t: tuple(reversed(t))  # noqa: E731
    dy = arrays[0]
    key = (
        f"x={rev(tuple(dy.shape[:2]) + g.insize)} {np.dtype(dy.dtype).name} window={rev(g.k)} "
        f"stride={rev(g.stride)} pad={rev(tuple(g.pads))}"
    )
    name = choices.choose(
        op,
        key,
        lambda n: lambda *a: table[n](*a, g),
        [(tuple(a.shape), a.dtype) for a in arrays],
        float(math.prod(dy.shape[:2]) * math.prod(g.out) * g.nwin),
        applicable=lambda n: n != "reshape" or _tiling(g),
        batch_axes=[0] * len(arrays),
    )
    return table[name](*arrays, g)


def _register_pool_lowerings() -> None:
    for op, table in POOL_LOWERINGS.items():
        default = "xla" if "xla" in table else "slices"
        choices.offer(op, tuple(table), default, "ZYLA_POOL_LOWERING")


_register_pool_lowerings()


def maxpool_back(xp: Any, dy: Any, y: Any, x: Any, k: Any, stride: Any = None, pad: Any = 0) -> Any:
    """The cotangent of maxpool's input: dy routed to each window's (first) maximum."""
    (x, dy) = _float_arrays(xp, x, dy)
    g = _pool_geometry(x, k, stride, pad)
    if xp is not np:
        return pool_lowering("maxpool_back", [dy, as_array(y, xp), x], g)
    masks = _argmax_masks(xp, y, x, g)
    parts = xp.stack([xp.where(m, dy, xp.zeros((), dy.dtype)) for m in masks], axis=2)
    return _scatter_windows(xp, parts, g, x.shape, dy.dtype)


def maxpool_gather(
    xp: Any, ddx: Any, y: Any, x: Any, k: Any, stride: Any = None, pad: Any = 0
) -> Any:
    """The adjoint of `maxpool_back` in its cotangent: ddx read at each window's maximum."""
    (x, ddx) = _float_arrays(xp, x, ddx)
    g = _pool_geometry(x, k, stride, pad)
    masks = _argmax_masks(xp, y, x, g)
    out = None
    for m, v in zip(masks, _windows_of(xp, ddx, g, 0.0), strict=True):
        term = xp.where(m, v, xp.zeros((), ddx.dtype))
        out = term if out is None else out + term
    return out


def meanpool(xp: Any, x: Any, k: Any, stride: Any = None, pad: Any = 0) -> Any:
    """NNlib's `meanpool(x, k; pad, stride=k)`: window sums over prod(k) (padding counts
    as zeros)."""
    (x,) = _float_arrays(xp, x)
    g = _pool_geometry(x, k, stride, pad)
    if xp is np:
        wins = _windows_of(np, x, g, 0.0)
        out = wins[0].copy()
        for v in wins[1:]:
            out += v
        return out / np.asarray(g.nwin, dtype=x.dtype)
    return pool_lowering("meanpool", [x], g)


def meanpool_back(xp: Any, dy: Any, x: Any, k: Any, stride: Any = None, pad: Any = 0) -> Any:
    """The cotangent of meanpool's input (the adjoint of meanpool)."""
    (x, dy) = _float_arrays(xp, x, dy)
    g = _pool_geometry(x, k, stride, pad)
    if xp is not np:
        return pool_lowering("meanpool_back", [dy], g)
    part = dy / xp.asarray(g.nwin, dtype=dy.dtype)
    parts = xp.stack([part] * g.nwin, axis=2)
    return _scatter_windows(xp, parts, g, x.shape, dy.dtype)


_POOL = "k, s, p"
_POOL_NOTHING = "nothing, nothing, nothing"
prim(
    "Core.maxpool",
    _hx(maxpool),
    _jx(maxpool),
    f"(dy, y, x, {_POOL}) -> (Core.maxpool_back(dy, y, x, {_POOL}), {_POOL_NOTHING})",
)
prim(
    "Core.maxpool_back",
    _hx(maxpool_back),
    _jx(maxpool_back),
    f"(ddx, dx, dy, y, x, {_POOL}) -> (Core.maxpool_gather(ddx, y, x, {_POOL}), nothing, nothing, "
    f"{_POOL_NOTHING})",
)
prim(
    "Core.maxpool_gather",
    _hx(maxpool_gather),
    _jx(maxpool_gather),
    f"(ddy, dy, ddx, y, x, {_POOL}) -> (Core.maxpool_back(ddy, y, x, {_POOL}), nothing, nothing, "
    f"{_POOL_NOTHING})",
)
prim(
    "Core.meanpool",
    _hx(meanpool),
    _jx(meanpool),
    f"(dy, y, x, {_POOL}) -> (Core.meanpool_back(dy, x, {_POOL}), {_POOL_NOTHING})",
)
prim(
    "Core.meanpool_back",
    _hx(meanpool_back),
    _jx(meanpool_back),
    f"(ddx, dx, dy, x, {_POOL}) -> (Core.meanpool(ddx, {_POOL}), nothing, {_POOL_NOTHING})",
)


# --- activations ---------------------------------------------------------------------------------


def _act(fn: Callable[..., Any], keep_int: bool = False) -> Callable[..., Any]:
    """Lift `fn(xp, x, *params)` on a float array to Julia-typed code on any argument:
    Python numbers and Float32 scalars stay scalars of their type, Float32 arrays stay
    Float32, integers become Float64 (except where `keep_int`, as `relu(3) == 3`)."""

    def run(xp: Any, x: Any, *params: Any) -> Any:
        x = as_array(x, xp)
        d = N.dtype_of(x)
        if d == N.OBJ:
            raise ZylaError("MethodError", "activation functions need numbers or numeric arrays")
        if not (keep_int and d.kind in "iub"):
            d = N.float_dtype(d)
        a = xp.asarray(x, dtype=d)
        ps = [xp.asarray(p, dtype=d) if d.kind == "f" else p for p in params]
        if xp is np:
            with np.errstate(all="ignore"):
                return _result(np.asarray(fn(np, a, *ps), dtype=d), np)
        return fn(xp, a, *ps).astype(d)

    return run


def _sigmoid(xp: Any, x: Any) -> Any:
    t = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + t), t / (1 + t))


def _softplus(xp: Any, x: Any) -> Any:
    return xp.log1p(xp.exp(-xp.abs(x))) + xp.maximum(x, 0)


_GELU_C = math.sqrt(2 / math.pi)


def _gelu(xp: Any, x: Any) -> Any:
    return 0.5 * x * (1 + xp.tanh(_GELU_C * (x + 0.044715 * x**3)))


# gelu's derivative written with differentiable operations (so every order of nested AD
# works), its constants in the argument's float type (Float32 stays Float32)
_GELU_RULE = f"""(dz, z, x) -> begin
    T = float(eltype(x))
    c = convert(T, {_GELU_C!r})
    a = convert(T, 0.044715)
    h = convert(T, 0.5)
    t = tanh.(c .* (x .+ a .* x .^ 3))
    (dz .* (h .* (1 .+ t) .+ h .* x .* (1 .- t .^ 2) .* c .* (1 .+ 3 .* a .* x .^ 2)),)
end"""


def _leaky(xp: Any, x: Any, a: Any = 0.01) -> Any:
    return xp.where(x > 0, x, a * x)


def _leaky_deriv(xp: Any, x: Any, a: Any = 0.01) -> Any:
    return xp.where(x > 0, xp.ones_like(x), a * xp.ones_like(x))


def _elu(xp: Any, x: Any, a: Any = 1.0) -> Any:
    return xp.where(x > 0, x, a * xp.expm1(xp.minimum(x, 0)))


def _elu_deriv(xp: Any, x: Any, z: Any, a: Any = 1.0) -> Any:
    return xp.where(x > 0, xp.ones_like(x), z + a)


_SELU_L = 1.0507009873554804934193349852946
_SELU_A = 1.6732632423543772848170429916717

# name: (implementation, pullback rule, keeps integers)
_ACTIVATIONS: dict[str, tuple[Callable[..., Any], str, bool]] = {
    "relu": (lambda xp, x: xp.maximum(x, 0), "(dz, z, x) -> (dz .* (x .> 0),)", True),
    "relu6": (lambda xp, x: xp.clip(x, 0, 6), "(dz, z, x) -> (dz .* (x .> 0) .* (x .< 6),)", True),
    "hardtanh": (
        lambda xp, x: xp.clip(x, -1, 1),
        "(dz, z, x) -> (dz .* (x .> -1) .* (x .< 1),)",
        False,
    ),
    "sigmoid": (_sigmoid, "(dz, z, x) -> (dz .* z .* (1 .- z),)", False),
    "hardsigmoid": (
        lambda xp, x: xp.clip(x / 6 + 0.5, 0, 1),
        "(dz, z, x) -> (dz .* (x .> -3) .* (x .< 3) ./ 6,)",
        False,
    ),
    "softplus": (_softplus, "(dz, z, x) -> (dz .* NNlib.sigmoid.(x),)", False),
    "logsigmoid": (
        lambda xp, x: -_softplus(xp, -x),
        "(dz, z, x) -> (dz .* (1 .- NNlib.sigmoid.(x)),)",
        False,
    ),
    "swish": (
        lambda xp, x: x * _sigmoid(xp, x),
        "(dz, z, x) -> (dz .* NNlib.sigmoid.(x) .* (1 .+ x .- z),)",
        False,
    ),
    "softsign": (
        lambda xp, x: x / (1 + xp.abs(x)),
        "(dz, z, x) -> (dz ./ (1 .+ abs.(x)) .^ 2,)",
        False,
    ),
    "gelu": (_gelu, _GELU_RULE, False),
    "selu": (
        lambda xp, x: _SELU_L * xp.where(x > 0, x, _SELU_A * xp.expm1(xp.minimum(x, 0))),
        "(dz, z, x) -> (dz .* NNlib.selu_deriv.(x, z),)",
        False,
    ),
    "leakyrelu": (
        _leaky,
        "(dz, z, x, a...) -> (dz .* NNlib.leakyrelu_deriv.(x, a...), map(q -> nothing, a)...)",
        False,
    ),
    "elu": (
        _elu,
        "(dz, z, x, a...) -> (dz .* NNlib.elu_deriv.(x, z, a...), map(q -> nothing, a)...)",
        False,
    ),
    # derivative helpers used by the rules above
    "leakyrelu_deriv": (_leaky_deriv, NONDIFF, False),
    "selu_deriv": (
        lambda xp, x, z: xp.where(x > 0, _SELU_L * xp.ones_like(x), z + _SELU_L * _SELU_A),
        "(dd, q, x, z) -> (nothing, dd .* (x .<= 0))",
        False,
    ),
    "elu_deriv": (
        _elu_deriv,
        "(dd, q, x, z, a...) -> (nothing, dd .* (x .<= 0), map(k -> nothing, a)...)",
        False,
    ),
}

for _name, (_fn, _rule, _keep) in _ACTIVATIONS.items():
    _f = _act(_fn, _keep)
    prim(f"NNlib.{_name}", _hx(_f), _jx(_f), _rule, INFER_BY_LOWERING, elementwise=_f)


# --- layer modes, running statistics, dropout masks ----------------------------------------------


class ModeCell:
    """The mutable part of a BatchNorm/Dropout layer (Flux's `active` field), kept outside
    the immutable layer struct: `active` is `nothing` (automatic: train mode inside
    `gradient`, test mode outside), `true` or `false`, and `arrays` are the layer's
    running-statistics arrays that train mode updates in place.

    A cell enters compiled code as a static constant. Its hash includes `active`, so the
    compile cache (keyed by the arguments' static skeleton) keeps one executable per
    mode and a `trainmode!`/`testmode!` switch picks the matching one (hashes are stored
    with dict entries, so an entry made in one mode is found again in that mode).
    Equality is identity."""

    def __init__(self, arrays: tuple = ()) -> None:
        self.active: bool | None = None
        self.arrays = tuple(arrays)
        self.jtype = V.JType("Flux.LayerMode", V.AnyT)

    def __hash__(self) -> int:
        return hash((id(self), self.active))

    def __eq__(self, other: object) -> bool:
        return self is other

    def jl_show(self) -> str:
        return f"LayerMode({'nothing' if self.active is None else str(self.active).lower()})"


def _modecell(*arrays: Any) -> ModeCell:
    for a in arrays:
        if not isinstance(a, np.ndarray):
            raise ZylaError("ArgumentError", "a layer's running statistics must be host arrays")
    return ModeCell(arrays)


def _setmode(cell: Any, mode: Any) -> None:
    if not isinstance(cell, ModeCell):
        raise ZylaError("ArgumentError", "setmode! needs a layer mode cell")
    if mode is not None and not isinstance(mode, bool):
        raise ZylaError(
            "ArgumentError", f"a layer mode is `nothing`, `true` or `false`, got {mode!r}"
        )
    cell.active = mode


def _write_stats_host(dests: tuple, values: tuple) -> None:
    for dest, v in zip(dests, values, strict=True):
        dest[...] = np.asarray(v, dtype=dest.dtype).reshape(dest.shape)
        V.note_write(dest)


def _write_stats(xp: Any, cell: Any, current: Any, values: Any) -> None:
    """Store new running statistics `values` into a layer's statistics arrays `current`
    (its fields). On the host this is an in-place write into `current`, which the cell
    then remembers. In compiled code `current` are traced copies, so an ordered host
    callback writes into the arrays the cell remembers when the executable runs; they
    are the layer's fields unless the layer was rebuilt with other arrays since its
    last host-side call."""
    if not isinstance(cell, ModeCell) or len(values) != len(current):
        raise ZylaError(
            "ArgumentError", "write_stats! needs a mode cell and one value per statistic"
        )
    if xp is np:
        _write_stats_host(tuple(current), tuple(values))
        cell.arrays = tuple(current)
        return None
    from jax.experimental import io_callback

    dests = cell.arrays
    io_callback(lambda *vs: _write_stats_host(dests, vs), None, *values, ordered=True)
    return None


def _host_mask(shape: tuple, dtype: np.dtype, p: float) -> np.ndarray:
    keep = GLOBAL_RNG[0].gen.random(shape) >= p
    return (keep / (1 - p)).astype(dtype) if p < 1 else np.zeros(shape, dtype=dtype)


def _dropout_mask(xp: Any, interp: Any, x: Any, p: Any) -> Any:
    """Dropout's mask for an array like x: zeros with probability p, else 1/(1-p). The host
    draws from the global RNG; compiled code draws inside the executable, from the key its
    call takes from the global RNG (lang.core.builtins_random), so a seed makes both tiers
    reproducible (each with its own numbers). In compiled code p may be traced (a
    Dropout layer's field when the model is an argument of the executable): the mask is
    then computed from its value (checked in range by the layer's constructor)."""
    x = as_array(x, xp)
    d = N.float_dtype(N.dtype_of(x))
    if xp is not np and hasattr(p, "aval"):
        tp = xp.asarray(p, dtype=d)
        keep = uniform_jax(interp, tuple(x.shape), d) >= tp  # never true when p == 1
        return xp.where(keep, 1 / (1 - tp), xp.asarray(0, dtype=d))
    p = float(p)
    if not 0 <= p <= 1:
        raise ZylaError("ArgumentError", f"dropout probability must be in [0, 1], got {p}")
    shape = tuple(x.shape)
    if xp is np:
        return _host_mask(shape, d, p)

    if p == 1:
        return xp.zeros(shape, dtype=d)
    keep = uniform_jax(interp, shape, d) >= p
    return xp.where(keep, xp.asarray(1 / (1 - p), dtype=d), xp.asarray(0, dtype=d))


prim(
    "NNlib.modecell",
    _modecell,
    HostOnly("layers are built on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
)
prim(
    "NNlib.setmode!",
    _setmode,
    HostOnly("layer modes are set on the host"),
    NONDIFF,
    lambda *a: V.NothingT,
)
prim("NNlib.getmode", lambda c: c.active, _jx(lambda xp, c: c.active), NONDIFF, lambda *a: V.AnyT)
prim("Flux.gpu", lambda x: x, _jx(lambda xp, x: x), "(dy, y, x) -> (dy,)", lambda *a: V.AnyT)
prim("Flux.cpu", lambda x: x, _jx(lambda xp, x: x), "(dy, y, x) -> (dy,)", lambda *a: V.AnyT)
prim(
    "NNlib.within_gradient", lambda x: False, _jx(lambda xp, x: False), NONDIFF, lambda *a: V.BoolT
)
prim("NNlib.write_stats!", _hx(_write_stats), _jx(_write_stats), NONDIFF, lambda *a: V.NothingT)
prim("NNlib.dropout_mask", lambda interp, x, p: _dropout_mask(np, interp, x, p),
     lambda interp, x, p: _dropout_mask(interp.jnp, interp, x, p), NONDIFF, INFER_BY_LOWERING,
     needs_interp=True)


# --- one-hot encoding ----------------------------------------------------------------------------


def _labels(x: Any) -> list:
    if isinstance(x, str):
        return [V.Char(c) for c in x]
    if isinstance(x, (tuple, list)):
        return list(x)
    a = as_array(x)
    if isinstance(a, np.ndarray):
        return [N.host_scalar(v) if a.dtype != object else v for v in a.reshape(-1)]
    return [x]


def _onehotbatch(data: Any, labels: Any) -> Any:
    """Flux's `onehotbatch(data, labels)` as a Bool array of size (length(labels),
    size(data)...); every value of data must be one of the labels (an ArgumentError
    otherwise: the check needs the values, so this runs on the host)."""
    ds, ls = _labels(data), _labels(labels)
    d_arr, l_arr = as_array(data), as_array(labels)
    numeric = all(isinstance(a, np.ndarray) and a.dtype != object for a in (d_arr, l_arr))
    if numeric:
        out = np.asarray(d_arr).reshape(-1, 1) == np.asarray(l_arr).reshape(1, -1)
    else:
        out = np.array([[jl_equal(v, lab) for lab in ls] for v in ds], dtype=bool).reshape(
            len(ds), len(ls)
        )
    missing = np.flatnonzero(~out.any(axis=1))
    if missing.size:
        raise ZylaError(
            "ArgumentError", f"Value {jl_show(ds[int(missing[0])])} not found in labels"
        )
    if isinstance(d_arr, np.ndarray) and d_arr.ndim > 1:  # one column per value, dims kept
        out = out.reshape(d_arr.shape + (len(ls),))
    return out


def _argmax_cols(xp: Any, y: Any) -> Any:
    """The index of the maximum of each column (Julia dimension 1), 1-based."""
    y = as_array(y, xp)
    if y.ndim == 1:
        return _result(xp.argmax(y) + 1, xp)
    return xp.argmax(y, axis=-1) + 1


prim("Core.onehotbatch", _onehotbatch,
     HostOnly("onehotbatch checks that every value is a label, which needs the values"),
     NONDIFF, lambda *a: V.AnyT)
prim("Core.argmax_cols", _hx(_argmax_cols), _jx(_argmax_cols), NONDIFF, INFER_BY_LOWERING)


# --- observations along the last dimension (MLUtils) ---------------------------------------------


def _getobs(xp: Any, x: Any, idx: Any) -> Any:
    """`x[:, ..., :, idx]`: observations along the last dimension (idx an Int drops it)."""
    x = as_array(x, xp)
    if not is_array(x):
        raise ZylaError("MethodError", "getobs needs an array")
    n = x.shape[0]
    if isinstance(idx, (int, np.integer)) and not isinstance(idx, bool):
        if not 1 <= idx <= n:
            raise ZylaError("BoundsError", f"observation {idx} of {n}")
        return _result(x[int(idx) - 1], xp)
    if isinstance(idx, V.Range):
        idx = idx.to_array()
    ii = xp.asarray(idx) - 1
    if xp is np and ii.size and (ii.min() < 0 or ii.max() >= n):
        raise ZylaError("BoundsError", f"observations {list(np.asarray(idx))} of {n}")
    return x[ii]


def _getobs_back(xp: Any, dz: Any, x: Any, idx: Any) -> Any:
    x = as_array(x, xp)
    d = x.dtype if N.dtype_of(x).kind == "f" else N.F64
    if isinstance(idx, V.Range):
        idx = idx.to_array()
    if xp is np:
        out = np.zeros(x.shape, dtype=d)
        np.add.at(out, np.asarray(idx) - 1, dz)
        return out
    return xp.zeros(x.shape, dtype=d).at[xp.asarray(idx) - 1].add(dz)


prim(
    "MLUtils.getobs",
    _hx(_getobs),
    _jx(_getobs),
    "(dz, z, x, i) -> (MLUtils.getobs_back(dz, x, i), nothing)",
)
prim(
    "MLUtils.getobs_back",
    _hx(_getobs_back),
    _jx(_getobs_back),
    "(ddx, dx, dz, x, i) -> (MLUtils.getobs(ddx, i), nothing, nothing)",
)
prim(
    "MLUtils.numobs",
    lambda x: _numobs(x),
    _jx(lambda xp, x: _numobs(x)),
    NONDIFF,
    lambda *a: V.Int64T,
)


def _numobs(x: Any) -> int:
    if isinstance(x, (tuple, V.NamedTuple)):
        ns = {_numobs(v) for v in x}
        if len(ns) != 1:
            raise ZylaError(
                "DimensionMismatch",
                f"all data containers must have the same number of observations, got {sorted(ns)}",
            )
        return ns.pop()
    x = as_array(x)
    if not is_array(x):
        raise ZylaError("MethodError", f"numobs needs an array or a tuple of arrays, got {x!r}")
    return int(x.shape[0])


# --- host references ---------------------------------------------------------------------------


class HostRef:
    """A value kept on the host: structs holding one (a DataLoader's data) are not
    candidates for compilation, since nothing in them is an array the compile tier sees."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.jtype = V.JType("Core.HostRef", V.AnyT)

    def jl_show(self) -> str:
        return "HostRef(...)"


prim(
    "Core.hostref",
    HostRef,
    HostOnly("host references are made on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
)
prim(
    "Core.hostref_get",
    lambda r: r.value,
    HostOnly("host references are read on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
)


# --- optimiser trees -----------------------------------------------------------------------------


def _opt_gather(state: Any, model: Any, grad: Any) -> tuple:
    """The optimiser leaves of a state tree made by `Flux.setup` that have a gradient, with
    their rules, states, parameters and gradients, as five tuples. The state tree, the
    model it was made for and a gradient of that model (Zygote's NamedTuple/tuple
    structure) are walked in parallel; branches whose state or gradient is `nothing` are
    skipped. A leaf is any struct in the state tree."""
    out: list = []

    def field(x: Any, name: str) -> Any:
        if isinstance(x, V.StructValue):
            return x.getfield(name)
        if isinstance(x, V.NamedTuple):
            return x.get(name)
        raise ZylaError(
            "ArgumentError",
            f"update!: the model has no field `{name}` that the optimiser state has",
        )

    def mismatch() -> ZylaError:
        return ZylaError(
            "ArgumentError", "update!: the gradient does not match the model's structure"
        )

    def walk(s: Any, x: Any, g: Any) -> None:
        if s is None or g is None:
            return
        if isinstance(s, V.StructValue):
            if not (is_array(x) and is_array(g)):  # host arrays, or traced in compiled code
                raise mismatch()
            if "frozen" in s.type.fields and s.getfield("frozen") is True:
                return  # (Optimisers.freeze!)
            out.append((s, s.getfield("rule"), s.getfield("state"), x, g))
        elif isinstance(s, tuple):
            gs = g.values if isinstance(g, V.NamedTuple) else g
            if not (isinstance(x, tuple) and isinstance(gs, tuple) and len(s) == len(x) == len(gs)):
                raise mismatch()
            for si, xi, gi in zip(s, x, gs, strict=True):
                walk(si, xi, gi)
        elif isinstance(s, V.NamedTuple):
            if not isinstance(g, V.NamedTuple):
                raise mismatch()
            for name, si in zip(s.names, s.values, strict=True):
                walk(si, field(x, name), g.get(name) if name in g.names else None)
        else:
            raise ZylaError("ArgumentError", f"update!: unexpected optimiser state {s!r}")

    walk(state, model, grad)
    return tuple(tuple(t[k] for t in out) for k in range(5))


def _setup(interp: Any, rule: Any, model: Any) -> Any:
    """Optimisers.setup: the model's tree (structs as NamedTuples of their fields, tuples
    as tuples) with a `Leaf(rule, Core.opt_init(rule, x))` for every float array x and
    `nothing` elsewhere; of a struct, only the fields `trainable(x)` names (a NamedTuple;
    `nothing`, the default, for all of them). A primitive, so that a top-level
    `Flux.setup(...)` is not a candidate for compilation."""
    rt = interp.rt
    init, leaf, trainable = rt.lookup("Core.opt_init"), rt.lookup("Leaf"), rt.lookup("trainable")

    def walk(x: Any) -> Any:
        if isinstance(x, np.ndarray):
            if x.dtype.kind != "f":
                return None
            return interp.call_value(leaf, [rule, interp.call_value(init, [rule, x])])
        if isinstance(x, tuple):
            return tuple(walk(v) for v in x)
        if isinstance(x, V.NamedTuple):
            return V.NamedTuple(x.names, tuple(walk(v) for v in x.values))
        if isinstance(x, V.StructValue):
            keep = interp.call_value(trainable, [x])  # Optimisers.trainable: a NamedTuple
            names = tuple(x.type.fields)
            if isinstance(keep, V.NamedTuple):
                return V.NamedTuple(
                    names,
                    tuple(
                        walk(v) if n in keep.names else None
                        for n, v in zip(names, x.fields, strict=True)
                    ),
                )
            return V.NamedTuple(names, tuple(walk(v) for v in x.fields))
        return None

    return walk(model)


prim(
    "Core.setup",
    _setup,
    HostOnly("optimiser state is made on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
    needs_interp=True,
)


def _opt_commit(leaves: tuple, xs: tuple, results: tuple) -> None:
    """After `Core.apply_rules`: each leaf keeps its new state and its parameter array has
    the step subtracted in place (the model's arrays are the caller's)."""
    for leaf, x, (state, step) in zip(leaves, xs, results, strict=True):
        leaf.fields[leaf.type.fields.index("state")] = state
        x -= np.asarray(step, dtype=x.dtype).reshape(x.shape)
        V.note_write(x)  # the compile tier's device copy of x is stale now
    return None


prim(
    "Core.opt_gather",
    _opt_gather,
    HostOnly("optimiser trees are walked on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
)
prim(
    "Core.opt_commit!",
    _opt_commit,
    HostOnly("parameters are updated in place on the host"),
    NONDIFF,
    lambda *a: V.NothingT,
)


def _fields(x: Any) -> tuple:
    """The field values of a struct (Functors' children), or () for anything else."""
    return tuple(x.fields) if isinstance(x, V.StructValue) else ()


def _rebuild(x: Any, values: Any) -> Any:
    """A struct of x's type with new field values (Functors' re-constructor): a new
    instance for an immutable struct, x itself updated for a mutable one."""
    if not isinstance(x, V.StructValue) or len(values) != len(x.fields):
        raise ZylaError("ArgumentError", "rebuild needs a struct and one value per field")
    if x.type.mutable:
        x.fields[:] = list(values)
        return x
    return V.StructValue(_rebuilt_type(x.type, values), list(values))


def _rebuilt_type(t: V.JType, values: Any) -> V.JType:
    """The type of a parametric struct rebuilt around new fields: its parameters inferred
    again from them (`f64(Dense(...))` is a `Dense{F, Matrix{Float64}, ...}`), as Functors
    calls the constructor; a parameter no field determines keeps its value."""
    if not t.params or not t.family.param_names:
        return t
    env = bound_params(t.family, values)
    params = tuple(env.get(p, old) for p, old in zip(t.family.param_names, t.params, strict=True))
    return t if params == t.params else V.apply_type(t.family, params)


prim("Functors.children", _fields, _jx(lambda xp, x: _fields(x)), NONDIFF, lambda *a: V.AnyT)
prim(
    "Functors.rebuild",
    _rebuild,
    HostOnly("structs are rebuilt on the host"),
    NONDIFF,
    lambda *a: V.AnyT,
)


# --- host services: offloading, files, progress bars ---------------------------------------------


def _offload_call(interp: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """`f(args...)`, run as one compiled executable when the compile tier accepts it,
    as calls from top-level code are (a library function such as `Flux.train!` uses it
    for its gradient step); otherwise on the interpreter, the reason kept in
    `offload_reasons`."""
    if getattr(interp, "offload", False):
        done, v = interp.try_offload(f, list(args), kwargs or None)
        if done:
            return v
    return interp.call_value(f, list(args), kwargs or None)


prim(
    "Core.offload_call",
    _offload_call,
    HostOnly("offloading is decided on the host"),
    NONDIFF,
    lambda *a, **k: V.AnyT,
    needs_interp=True,
)


def _readdlm(
    path: Any,
    delim: Any = None,
    t: Any = None,
    eol: Any = None,
    skipstart: int = 0,
    header: bool = False,
) -> Any:
    """DelimitedFiles' `readdlm(path, delim=',', T=Float64; skipstart, header)`: a
    Matrix{T} with one row per line (blank lines skipped)."""
    if not isinstance(path, str):
        raise ZylaError("MethodError", "readdlm needs a file name")
    if isinstance(delim, V.JType) and t is None:
        delim, t = None, delim
    sep = delim.value if isinstance(delim, V.Char) else (delim if isinstance(delim, str) else None)
    d = V.JTYPE_TO_DTYPE.get(t, N.F64) if t is not None else N.F64
    lines = [ln.rstrip("\r") for ln in safety.read_text(path).split("\n")]
    lines = [ln for ln in lines[int(skipstart) :] if ln.strip()]
    head = None
    if header and lines:
        head = lines[0].split(sep) if sep else lines[0].split()
        lines = lines[1:]
    rows = [ln.split(sep) if sep else ln.split() for ln in lines]
    if rows and len({len(r) for r in rows}) != 1:
        raise ZylaError(
            "ArgumentError", f"readdlm: rows of {path} have different numbers of fields"
        )
    parse = int if d.kind in "iu" else float
    try:
        a = np.array([[parse(v) for v in r] for r in rows], dtype=d)
    except OverflowError:
        raise ZylaError("InexactError", f"readdlm: a value in {path} does not fit "
                        f"{V.type_name(t)}") from None
    except ValueError:
        bad = next(v for r in rows for v in r if not _parses(parse, v))
        raise ZylaError("ArgumentError", f"readdlm: cannot parse {jl_show(bad)} in {path} as "
                        f"{V.type_name(t or V.Float64T)}") from None
    if not rows:
        a = np.zeros((0, 0), dtype=d)
    out = np.ascontiguousarray(a.T)  # Julia (rows, cols) is numpy (cols, rows)
    if head is not None:
        hdr = np.empty((1, len(head)), dtype=object)
        hdr[0, :] = head
        return (out, np.ascontiguousarray(hdr.T))
    return out


def _parses(parse: Callable[[str], Any], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _host(name: str, f: Callable[..., Any], reason: str, needs_interp: bool = False) -> None:
    prim(name, f, HostOnly(reason), NONDIFF, lambda *a, **k: V.AnyT, needs_interp=needs_interp)


def _read_text(path: Any, t: Any = None) -> Any:
    """`read(path, String)`: a whole text file as a String."""
    if path is STDIN and (t is None or t is V.StringT):
        return sys.stdin.read()
    if not isinstance(path, str) or (t is not None and t is not V.StringT):
        raise ZylaError("MethodError", "read: only read(path::String, String) is supported")
    return safety.read_text(path)


def _readlines(path: Any = STDIN) -> Any:
    """`readlines(path)`: the lines of a text file (or of `stdin`), without their newlines."""
    text = _read_text(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = np.empty(len(lines), dtype=object)
    out[:] = lines
    return out


_host("read", _read_text, "file I/O runs on the host")
_host("readlines", _readlines, "file I/O runs on the host")
_host("readdlm", _readdlm, "file I/O runs on the host")
_host("DelimitedFiles.readdlm", _readdlm, "file I/O runs on the host")


class Progress:
    """ProgressMeter's bar: `n` steps, redrawn on stderr at most every `dt` seconds as
    `desc 100%|██████████| Time: 0:00:01`, with a final newline when done."""

    WIDTH = 30

    def __init__(
        self, n: int | None, desc: str = "Progress: ", dt: float = 0.1, enabled: bool = True
    ) -> None:
        self.n = n
        self.desc = desc
        self.dt = dt
        self.count = 0
        self.t0 = time.perf_counter()
        self.last = -math.inf
        self.done = False
        self.enabled = enabled
        self.jtype = V.JType("ProgressMeter.Progress", V.AnyT)

    def jl_show(self) -> str:
        return f"Progress({self.count}/{self.n if self.n is not None else '?'})"

    def _elapsed(self) -> str:
        s = int(time.perf_counter() - self.t0)
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"

    def render(self) -> str:
        if self.n:
            frac = min(1.0, self.count / self.n)
            full = int(frac * self.WIDTH)
            bar = "█" * full + " " * (self.WIDTH - full)
            eta = ""
            if not self.done and self.count:
                rest = (time.perf_counter() - self.t0) * (self.n - self.count) / self.count
                r = int(rest)
                eta = f" ETA: {r // 3600}:{r // 60 % 60:02d}:{r % 60:02d}"
            tail = f" Time: {self._elapsed()}" if self.done else eta
            return f"{self.desc}{int(frac * 100):3d}%|{bar}|{tail}"
        return f"{self.desc}{self.count} steps  Time: {self._elapsed()}"

    def draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < self.dt):
            return
        self.last = now
        sys.stderr.write("\r" + self.render())
        sys.stderr.flush()

    def next(self, step: int = 1) -> None:
        self.count += step
        if self.n is not None and self.count >= self.n:
            self.finish()
        else:
            self.draw()

    def finish(self) -> None:
        if self.done:
            return
        if self.n is not None:
            self.count = max(self.count, self.n)
        self.done = True
        self.draw(force=True)
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


class ProgressIter:
    """An iterable wrapper drawing a `Progress` as the wrapped iterable is consumed
    (what `@showprogress for x in xs` loops over)."""

    def __init__(self, inner: Any, bar: Progress) -> None:
        self.inner = inner
        self.bar = bar
        self.jtype = V.JType("ProgressMeter.ProgressIter", V.AnyT)

    def jl_show(self) -> str:
        return "ProgressIter(" + self.bar.jl_show() + ")"

    def jl_iter(self, rt: Any) -> Iterator[Any]:
        self.bar.draw(force=True)
        for x in rt.iterate(self.inner):
            yield x
            self.bar.next()
        self.bar.finish()


def _length_of(interp: Any, x: Any) -> int | None:
    try:
        n = interp.call_value(interp.rt.lookup("length"), [x])
    except ZylaError:
        return None
    return int(n) if isinstance(n, (int, np.integer)) else None


def _desc(desc: Any) -> str:
    s = desc if isinstance(desc, str) else "Progress: "
    return s if s.endswith(" ") else s + " "


def _progress_iter(
    interp: Any, xs: Any, desc: Any = None, dt: Any = 0.1, enabled: Any = True
) -> ProgressIter:
    return ProgressIter(xs, Progress(_length_of(interp, xs), _desc(desc), float(dt), bool(enabled)))


def _progress(
    n: Any = None, desc: Any = None, dt: Any = 0.1, enabled: Any = True, **_: Any
) -> Progress:
    return Progress(int(n) if n is not None else None, _desc(desc), float(dt), bool(enabled))


def _next(p: Any, step: Any = 1, **_: Any) -> None:
    if not isinstance(p, Progress):
        raise ZylaError("MethodError", "next! needs a ProgressMeter.Progress")
    p.next(int(step))
    return None


def _finish(p: Any, **_: Any) -> None:
    if not isinstance(p, Progress):
        raise ZylaError("MethodError", "finish! needs a ProgressMeter.Progress")
    p.finish()
    return None


_host(
    "ProgressMeter.progress_iter",
    _progress_iter,
    "progress bars are drawn on the host",
    needs_interp=True,
)
for _n in ("Progress", "ProgressMeter.Progress"):
    _host(_n, _progress, "progress bars are drawn on the host")
for _n in ("next!", "ProgressMeter.next!"):
    _host(_n, _next, "progress bars are drawn on the host")
for _n in ("finish!", "ProgressMeter.finish!"):
    _host(_n, _finish, "progress bars are drawn on the host")


def _joinpath(*parts: Any) -> str:
    for p in parts:
        if not isinstance(p, str):
            raise ZylaError("MethodError", f"joinpath needs strings, got {p!r}")
    return os.path.join(*parts) if parts else ""


def _mkdir(path: Any, mode: Any = None) -> str:
    """`mkdir(path)`: one folder, inside the write gate (lang.core.safety)."""
    target = safety.writable(path, "creating a folder")
    try:
        os.mkdir(target)
    except FileExistsError:
        raise ZylaError("SystemError", f"mkdir(\"{path}\"): file already exists") from None
    except OSError as e:
        raise ZylaError("SystemError", f"mkdir(\"{path}\"): {e.strerror}") from None
    return str(path)


def _mkpath(path: Any, mode: Any = None) -> str:
    """`mkpath(path)`: the folder and the missing ones above it, inside the write gate."""
    target = safety.writable(path, "creating a folder")
    try:
        os.makedirs(target, exist_ok=True)
    except OSError as e:
        raise ZylaError("SystemError", f"mkpath(\"{path}\"): {e.strerror}") from None
    return str(path)


for _n, _f in {
    "joinpath": _joinpath,
    "dirname": lambda p: os.path.dirname(p),
    "basename": lambda p: os.path.basename(p),
    "isfile": lambda p: os.path.isfile(safety.may_look_at(p)),
    "isdir": lambda p: os.path.isdir(safety.may_look_at(p)),
    "ispath": lambda p: os.path.exists(safety.may_look_at(p)),
    "abspath": lambda p: os.path.abspath(p),
    "mkdir": _mkdir,
    "mkpath": _mkpath,
}.items():
    _host(_n, _f, "file system access runs on the host")


# Forward-mode rules (autodiff/forward.py): Zyla source `(d, z, args...) -> tangent of z`,
# d the tuple of the arguments' tangents (zeros where they have none), or a marker
# ("noforward": no rule, an AD error; "SPECIAL": the dispatcher's own).
FORWARD: dict[str, str] = {
    "Core.conv": ("(t, y, x, w, s, p, dl, f) -> Core.conv(t[1], w, s, p, dl, f)"
        " .+ Core.conv(x, t[2], s, p, dl, f)"),
    "Core.conv_data_back": ("(t, z, dy, x, w, s, p, dl, f) -> "
                            "Core.conv_data_back(t[1], x, w, s, p, dl, f) .+ "
                            "Core.conv_data_back(dy, x, t[3], s, p, dl, f)"),
    "Core.conv_filter_back": ("(t, z, dy, x, w, s, p, dl, f) -> "
                              "Core.conv_filter_back(t[1], x, w, s, p, dl, f) .+ "
                              "Core.conv_filter_back(dy, t[2], w, s, p, dl, f)"),
    "Core.maxpool": "(t, y, x, k, s, p) -> Core.maxpool_gather(t[1], y, x, k, s, p)",
    "Core.maxpool_back": "(t, z, dy, y, x, k, s, p) -> Core.maxpool_back(t[1], y, x, k, s, p)",
    "Core.maxpool_gather": "(t, z, ddx, y, x, k, s, p) -> Core.maxpool_gather(t[1], y, x, k, s, p)",
    "Core.meanpool": "(t, y, x, k, s, p) -> Core.meanpool(t[1], k, s, p)",
    "Core.meanpool_back": "(t, z, dy, x, k, s, p) -> Core.meanpool_back(t[1], x, k, s, p)",
    "NNlib.relu": "(d, z, x) -> d[1] .* (x .> 0)",
    "NNlib.relu6": "(d, z, x) -> d[1] .* (x .> 0) .* (x .< 6)",
    "NNlib.hardtanh": "(d, z, x) -> d[1] .* (x .> -1) .* (x .< 1)",
    "NNlib.sigmoid": "(d, z, x) -> d[1] .* z .* (1 .- z)",
    "NNlib.hardsigmoid": "(d, z, x) -> d[1] .* (x .> -3) .* (x .< 3) ./ 6",
    "NNlib.softplus": "(d, z, x) -> d[1] .* NNlib.sigmoid.(x)",
    "NNlib.logsigmoid": "(d, z, x) -> d[1] .* (1 .- NNlib.sigmoid.(x))",
    "NNlib.swish": "(d, z, x) -> d[1] .* NNlib.sigmoid.(x) .* (1 .+ x .- z)",
    "NNlib.softsign": "(d, z, x) -> d[1] ./ (1 .+ abs.(x)) .^ 2",
    "NNlib.gelu": "(d, z, x) -> (" + _GELU_RULE + ")(d[1], z, x)[1]",
    "NNlib.selu": "(d, z, x) -> d[1] .* NNlib.selu_deriv.(x, z)",
    "NNlib.leakyrelu": "(d, z, x, a...) -> d[1] .* NNlib.leakyrelu_deriv.(x, a...)",
    "NNlib.elu": "(d, z, x, a...) -> d[1] .* NNlib.elu_deriv.(x, z, a...)",
    "NNlib.selu_deriv": "(d, q, x, z) -> d[2] .* (x .<= 0)",
    "NNlib.elu_deriv": "(d, q, x, z, a...) -> d[2] .* (x .<= 0)",
}
