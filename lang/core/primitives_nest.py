"""Tensor primitives that a mapped loop nest is rewritten into (backend/nests.py).

A nest of R `for` loops over integer ranges is evaluated as tensors of rank R: axis `a`
(numpy order, outer loop first) runs over the iterations of loop `a`, and a value that
does not depend on loop `a` has size 1 there. The box of the nest is the tuple `rs` of the
loops' ranges (`V.Range`), the same in every call below.

An affine access `A[f_1, ..., f_d]` is given by `cs`, one tuple of R integer coefficients
per index, and `offs`, one Int offset per index: in iteration `t` (0-based per axis),
index k is `offs[k] + sum_a cs[k][a] * rs[a][t_a]` (1-based, Julia's). One index on an
array of several dimensions is a linear (column-major) index.

- `Core.nest_read(A, rs, cs, offs)`: the tensor of `A` at the access, size 1 on the axes
  no index uses.
- `Core.nest_write(C, v, rs, cs, offs)`: C with the access set to v (broadcast over the
  access's axes, converted to C's element type); on the host it writes in place and
  returns C, as `Core.setindex_fn` does. The access must be injective (the rewrite proves
  it); the predicate below has checked bounds and aliasing.
- `Core.contract1(red, rs, like, x)` and `Core.contract2(red, rs, like, x, y)`: the sum
  over the axes `red` of x (or of x*y), each summed axis running over its full length
  `lens[a]` even where the operands have size 1 there (a term that does not depend on a
  summed loop is added once per iteration). The element type is that of `like + x*y`
  (`like` is the accumulator it is added to); the result is broadcast to `like`'s shape
  when `like` is an array; it is a scalar when `like` is one and every axis is summed.
  The products are Julia's (two factors at most, each product rounded once); only the
  order of the sum differs from the loop's, as under `@simd`. Their pullbacks are again
  contractions, so nested AD composes.
- `Core.nest_affine(rs, c, off)`: the Int tensor of an affine expression of the loop
  variables (a loop variable used as a value).
- `Core.nest_ok(spec, rs, arrays, offs, vals)`: whether the mapped form computes what the
  loop would, for these values: the ranges are integer ranges known now and not empty, the
  arrays numeric, every access in bounds, no written array shares memory with another
  array of the nest, accumulated arrays have a float element type, no intermediate tensor
  is larger than `MAX_ELEMENTS`, and the scalars the nest computes with are numbers.
  `ZYLA_NESTS=0` makes it always false (every nest runs as written).
"""

from __future__ import annotations

import itertools
import os
import string
from typing import Any

import numpy as np

from lang.core import choices
from lang.core import numeric as N
from lang.core import values as V
from lang.core.primitives import NONDIFF, _hx, _jx, _result, irrational_as, is_array, prim
from lang.core.primitives_array import MUTATING, _convert_elem
from lang.core.refusals import OffloadError

#: the largest tensor a mapped nest may make (elements); above it the loop runs as written
MAX_ELEMENTS = 1 << 26
#: "auto" maps every legal nest, "off" (ZYLA_NESTS=0) none
MODE = ["off" if os.environ.get("ZYLA_NESTS", "") in ("0", "off") else "auto"]


# --- the box and the accesses -----------------------------------------------------------------

def _box(rs: tuple) -> list[tuple[int, int, int]]:
    return [(int(r.start), int(r.step), int(r.length)) for r in rs]


def _index_arrays(rs: tuple, cs: tuple, offs: tuple) -> list[Any]:
    """Per index, its 0-based values over the box, as an int array of rank R (a traced
    one where the offset is traced: an index of a compiled loop around the nest)."""
    box = _box(rs)
    R = len(box)
    out: list[Any] = []
    for c, off in zip(cs, offs, strict=True):
        base = -1 + sum(k * s for k, (s, _, _) in zip(c, box, strict=True))
        idx = np.full((1,) * R, base, dtype=np.int64)
        for a, k in enumerate(c):
            if k:
                shape = [1] * R
                shape[a] = box[a][2]
                idx = idx + (np.arange(box[a][2], dtype=np.int64) * (k * box[a][1])).reshape(shape)
        out.append(idx + int(off) if _concrete_int(off) else N.jax_numpy().asarray(idx) + off)
    return out


def _slices(x: Any, rs: tuple, cs: tuple, offs: tuple) -> tuple | None:
    """The access as basic indexing of x: (key, loop axis of each kept numpy axis, numpy
    axes to flip), or None when some index uses several loops or a loop is used twice."""
    if len(cs) != x.ndim or not all(_concrete_int(o) for o in offs):
        return None  # (an offset traced: the general gather or scatter)
    box = _box(rs)
    used: set[int] = set()
    key: list[Any] = []
    axes: list[int] = []
    flips: list[int] = []
    for c, off in reversed(list(zip(cs, offs, strict=True))):  # numpy axes: Julia's reversed
        nz = [a for a, k in enumerate(c) if k]
        if len(nz) > 1 or (nz and nz[0] in used):
            return None
        if not nz:
            key.append(int(off) - 1)
            continue
        a = nz[0]
        used.add(a)
        start, step, n = box[a]
        first = int(off) - 1 + c[a] * start
        stride = c[a] * step
        last = first + stride * (n - 1)
        lo, s = (first, stride) if stride > 0 else (last, -stride)
        if s != stride:
            flips.append(len(axes))
        key.append(slice(lo, lo + s * (n - 1) + 1, s))
        axes.append(a)
    return tuple(key), axes, flips


def _rank_r(xp: Any, y: Any, axes: list[int], flips: list[int], R: int) -> Any:
    """A basic-indexing result (numpy axes for the loops `axes`) as a rank-R tensor."""
    for f in flips:
        y = xp.flip(y, axis=f)
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    y = xp.transpose(y, order) if order != list(range(len(axes))) else y
    shape = [1] * R
    for a in axes:
        shape[a] = y.shape[sorted(axes).index(a)]
    return xp.reshape(y, tuple(shape))


def _from_rank_r(xp: Any, v: Any, axes: list[int], flips: list[int], R: int,
                 lens: list[int]) -> Any:
    """The inverse of _rank_r: a rank-R tensor (broadcast to the access) in the numpy
    order of a basic-indexing key."""
    full = tuple(lens[a] if a in axes else 1 for a in range(R))
    v = xp.broadcast_to(v, full)
    v = xp.reshape(v, tuple(lens[a] for a in sorted(axes)))
    srt = sorted(axes)
    order = [srt.index(a) for a in axes]
    v = xp.transpose(v, order) if order != list(range(len(axes))) else v
    for f in flips:
        v = xp.flip(v, axis=f)
    return v


def _key(x: Any, rs: tuple, cs: tuple, offs: tuple) -> tuple[Any, bool, tuple]:
    """The advanced-indexing key of the access into x, whether it indexes x's flat
    (column-major) view, and the shape of what it selects."""
    idx = _index_arrays(rs, cs, offs)
    shape = np.broadcast_shapes(*[k.shape for k in idx])
    if len(cs) == 1 and x.ndim != 1:
        return idx[0], True, shape
    return tuple(reversed(idx)), False, shape


def nest_read(xp: Any, x: Any, rs: tuple, cs: tuple, offs: tuple) -> Any:
    R = len(rs)
    fast = _slices(x, rs, cs, offs)
    if fast is not None:
        key, axes, flips = fast
        return _rank_r(xp, x[key], axes, flips, R)
    key, flat, _ = _key(x, rs, cs, offs)
    src = xp.reshape(x, (-1,)) if flat else x
    return src[key]


def _float_like(x: Any) -> np.dtype:
    d = N.dtype_of(x)
    return d if N.is_float_dtype(d) else N.F64


def nest_read_back(xp: Any, dz: Any, x: Any, rs: tuple, cs: tuple, offs: tuple) -> Any:
    """The cotangent of nest_read: zeros like x with dz added at the access."""
    if dz is None:
        return None
    d = _float_like(x)
    R = len(rs)
    dz = xp.asarray(dz, dtype=d)
    fast = _slices(x, rs, cs, offs)
    if fast is not None:
        key, axes, flips = fast
        v = _from_rank_r(xp, dz, axes, flips, R, [n for _, _, n in _box(rs)])
        if xp is np:
            out = np.zeros(x.shape, dtype=d)
            out[key] = v
            return out
        return xp.zeros(x.shape, dtype=d).at[key].set(v)
    key, flat, full = _key(x, rs, cs, offs)
    shape = (int(np.prod(x.shape)),) if flat else x.shape
    dz = xp.broadcast_to(dz, full)
    if xp is np:
        out = np.zeros(shape, dtype=d)
        np.add.at(out, key, dz)
    else:
        out = xp.zeros(shape, dtype=d).at[key].add(dz)
    return xp.reshape(out, x.shape) if flat else out


def _exact_values(xp: Any, v: Any, d: np.dtype) -> Any:
    """v converted to element type d, as setindex! converts (on the host, the same
    conversion as `setindex!`'s: InexactError for 2.5 or 300 into UInt8, 2 into Bool)."""
    if xp is np:
        return _convert_elem(v, d)
    vd = N.dtype_of(v)
    if vd == d or d.kind == "f" or (vd.kind in "iub" and np.can_cast(vd, d, "safe")):
        return xp.asarray(v, dtype=d)
    raise OffloadError("a mapped loop writes values its array's element type may not hold "
                       "(checked for InexactError on the host)")


def nest_write(xp: Any, x: Any, v: Any, rs: tuple, cs: tuple, offs: tuple) -> Any:
    R = len(rs)
    lens = [n for _, _, n in _box(rs)]
    v = _exact_values(xp, v, N.dtype_of(x))
    if xp is not np:
        x = xp.asarray(x)
    fast = _slices(x, rs, cs, offs)
    if fast is not None:
        key, axes, flips = fast
        vals = _from_rank_r(xp, xp.asarray(v, dtype=x.dtype), axes, flips, R, lens)
        if xp is np:
            x[key] = vals
            return x
        return x.at[key].set(vals)
    key, flat, full = _key(x, rs, cs, offs)
    vals = xp.broadcast_to(xp.asarray(v, dtype=x.dtype), full)
    if xp is np:
        (x.reshape(-1) if flat else x)[key] = vals
        return x
    if flat:
        return x.reshape(-1).at[key].set(vals).reshape(x.shape)
    return x.at[key].set(vals)


def nest_zero_at(xp: Any, dz: Any, rs: tuple, cs: tuple, offs: tuple) -> Any:
    """dz with the access set to zero (the cotangent of the array a write overwrote)."""
    if dz is None:
        return None
    out = np.array(dz, copy=True) if xp is np else dz
    return nest_write(xp, out, 0.0 if N.is_float_dtype(N.dtype_of(dz)) else 0, rs, cs, offs)


# --- contractions -----------------------------------------------------------------------------

def _rank(xp: Any, x: Any, R: int) -> Any:
    if N.is_scalar(x) and getattr(x, "ndim", 0) == 0:
        return xp.reshape(xp.asarray(x), (1,) * R)
    return x


def contract(xp: Any, red: tuple, rs: tuple, like: Any, *xs: Any) -> Any:
    lens = [n for _, _, n in _box(rs)]
    R = len(lens)
    red = tuple(int(a) for a in red)
    # an Irrational operand as the other operand's float type (the accumulator's alone)
    beside = ([N.dtype_of(x) for x in xs[::-1]] if len(xs) == 2
              else [N.dtype_of(like)] * len(xs))
    xs = tuple(irrational_as(x, d) for x, d in zip(xs, beside, strict=True))
    dts = [N.dtype_of(x) for x in xs]
    pdt = dts[0] if len(dts) == 1 else N.arith_dtype(dts[0], dts[1])
    if pdt == N.BOOL:
        pdt = N.I64
    adt = N.arith_dtype(N.dtype_of(like), pdt)
    ops = [_rank(xp, x, R) for x in xs]
    out_shape = [1] * R
    for a in range(R):
        if a not in red and any(o.shape[a] != 1 for o in ops):
            out_shape[a] = int(lens[a])
    if pdt == adt and adt.kind in "fi" and len(ops) <= 2:
        # one einsum: no product tensor is made (the matmul of a loop is one dot)
        letters = string.ascii_letters
        lone = [a for a in red if lens[a] != 1 and all(o.shape[a] == 1 for o in ops)]
        if lone:  # a summed loop no operand depends on: each iteration adds the term again
            shape = list(ops[0].shape)
            for a in lone:
                shape[a] = int(lens[a])
            ops[0] = xp.broadcast_to(ops[0], tuple(shape))
        subs = []
        sq = []
        for o in ops:
            keep = [a for a in range(R) if o.shape[a] != 1]
            subs.append("".join(letters[a] for a in keep))
            sq.append(xp.reshape(o, tuple(o.shape[a] for a in keep)))
        outs = [a for a in range(R) if out_shape[a] != 1]
        spec = ",".join(subs) + "->" + "".join(letters[a] for a in outs)
        if xp is np:
            ops_np = [np.asarray(s, dtype=adt) for s in sq]
            # small: numpy's own loop (no path search); large: through BLAS
            work = int(np.prod([lens[a] for a in range(R)
                                if any(o.shape[a] != 1 for o in ops) or a in lone]))
            big = len(ops_np) == 2 and work > 1 << 17
            r = np.einsum(spec, *ops_np, optimize=["einsum_path", (0, 1)] if big else False)
        else:  # (in the accumulator's type: a sum of Bools counts them)
            r = xp.einsum(spec, *[s.astype(adt) if s.dtype != adt else s for s in sq])
        r = xp.reshape(r, tuple(out_shape))
    else:
        # the products in their own type, then summed in the accumulator's (Julia adds
        # each Float32 product to a Float64 sum after rounding it)
        p = ops[0] if len(ops) == 1 else xp.multiply(ops[0], ops[1])
        if N.dtype_of(p) != pdt:
            p = p.astype(pdt)
        full = tuple(int(lens[a]) if a in red else p.shape[a] for a in range(R))
        p = xp.broadcast_to(p.astype(adt), full)
        r = xp.sum(p, axis=red, keepdims=True) if red else p
        if r.shape != tuple(out_shape):
            r = xp.broadcast_to(r, tuple(out_shape))
        r = r.astype(adt)
    return _finish(xp, r, red, rs, like)


# --- a contraction with a window read ---------------------------------------------------------

def _window_axes(red: tuple, cs: tuple) -> list[int]:
    """The summed axes an index of the read shares with another loop (`x[i + di]`)."""
    return sorted({a for c in cs for a, k in enumerate(c)
                   if k and a in red and sum(1 for kk in c if kk) > 1})


def _window_of(red: tuple, cs: tuple, x: Any, y: Any, like: Any,
               offs: tuple) -> list[int] | None:
    """The window axes, when the shifted and convolution forms can take the nest: known
    offsets, an array y, every summed axis a window axis, and products of the sum's own
    type (no Float32 product summed in Float64)."""
    if not all(_concrete_int(o) for o in offs) or not is_array(y):
        return None
    win = _window_axes(red, cs)
    if not win or set(win) != set(int(a) for a in red):
        return None
    pdt = N.arith_dtype(N.dtype_of(x), N.dtype_of(y))
    return win if N.arith_dtype(N.dtype_of(like), pdt) == pdt else None


def _shifted_ok(red: tuple, rs: tuple, cs: tuple, x: Any, y: Any, like: Any,
                offs: tuple) -> bool:
    win = _window_of(red, cs, x, y, like, offs)
    if win is None:
        return False
    box = _box(rs)
    if int(np.prod([box[a][2] for a in win])) > 64:
        return False
    cs2 = tuple(tuple(0 if a in win else k for a, k in enumerate(c)) for c in cs)
    return _slices(x, rs, cs2, (1,) * len(cs)) is not None


def _shifted(xp: Any, red: tuple, rs: tuple, like: Any, x: Any, cs: tuple, offs: tuple,
             y: Any) -> Any:
    """sum over the window of (x's slice at each window position) * (y there): one slice
    and one multiply-add per position, no gathered copy of x (as the shifted-slices
    lowering of a convolution)."""
    box = _box(rs)
    R = len(box)
    win = _window_axes(red, cs)
    cs2 = tuple(tuple(0 if a in win else k for a, k in enumerate(c)) for c in cs)
    acc = None
    for pos in itertools.product(*[range(box[a][2]) for a in win]):
        offs2 = tuple(int(o) + sum(c[a] * (box[a][0] + box[a][1] * p) for a, p in zip(win, pos,
                                                                                      strict=True))
                      for c, o in zip(cs, offs, strict=True))
        xs = nest_read(xp, x, rs, cs2, offs2)
        taken = [a for a in win if y.shape[a] != 1]  # (y's axes of length 1 broadcast)
        key = tuple(pos[win.index(a)] if a in taken else slice(None) for a in range(R))
        ys = xp.expand_dims(y[key], tuple(taken)) if taken else y
        term = xs * ys
        acc = term if acc is None else acc + term
    return _finish(xp, acc, red, rs, like)


def _finish(xp: Any, r: Any, red: tuple, rs: tuple, like: Any) -> Any:
    """A summed tensor broadcast to `like` (or a scalar), as `contract` returns it."""
    R = len(rs)
    if is_array(like) and getattr(like, "ndim", 0) == R and tuple(like.shape) != tuple(r.shape):
        r = xp.broadcast_to(r, np.broadcast_shapes(tuple(like.shape), tuple(r.shape)))
    if not is_array(like) and all(n == 1 for n in r.shape):
        r = xp.reshape(r, ())
        return _result(r[()] if xp is np else r, xp)
    return r


def _gather(xp: Any, red: tuple, rs: tuple, like: Any, x: Any, cs: tuple, offs: tuple,
            y: Any) -> Any:
    return contract(xp, red, rs, like, nest_read(xp, x, rs, cs, offs), y)


def _conv_plan(red: tuple, rs: tuple, cs: tuple, x: Any, y: Any, like: Any,
               offs: tuple) -> list[tuple[int, int]] | None:
    """When the nest is a cross-correlation (each index of x is `o + w` of one outer and
    one window loop, unit steps, y varying along window loops only, floats): per numpy axis
    of x, its (outer axis, window axis); else None."""
    win = _window_of(red, cs, x, y, like, offs)
    if win is None or N.arith_dtype(N.dtype_of(x), N.dtype_of(y)).kind != "f":
        return None
    box = _box(rs)
    plan = []
    for c in reversed(cs):  # numpy order
        nz = [(a, k) for a, k in enumerate(c) if k]
        if len(nz) != 2 or any(k != 1 for _, k in nz):
            return None
        (a1, _), (a2, _) = nz
        w_, o_ = (a1, a2) if a1 in win else (a2, a1)
        if w_ not in win or o_ in red:
            return None
        plan.append((o_, w_))
    outs, wins = [o for o, _ in plan], [w for _, w in plan]
    if len(set(outs)) != len(outs) or sorted(wins) != sorted(win):
        return None
    if any(box[a][1] != 1 for a in outs + wins):
        return None
    if any(y.shape[a] != 1 for a in range(len(box)) if a not in win):
        return None
    return plan


def _conv(xp: Any, red: tuple, rs: tuple, like: Any, x: Any, cs: tuple, offs: tuple,
          y: Any) -> Any:
    """The nest as one XLA convolution (no flip: Julia's loop is a cross-correlation)."""
    from jax import lax

    plan = _conv_plan(red, rs, cs, x, y, like, offs)
    assert plan is not None
    box = _box(rs)
    R = len(box)
    key = []
    for (o, w), off in zip(plan, reversed(offs), strict=True):
        first = int(off) - 1 + box[o][0] + box[w][0]
        key.append(slice(first, first + box[o][2] + box[w][2] - 1))
    lhs = x[tuple(key)]
    wins = [w for _, w in plan]
    full = tuple(box[a][2] if a in wins else 1 for a in range(R))
    ker = xp.reshape(xp.broadcast_to(y, full), tuple(box[a][2] for a in sorted(wins)))
    order = [sorted(wins).index(w) for w in wins]
    ker = xp.transpose(ker, order) if order != list(range(len(wins))) else ker
    out = lax.conv_general_dilated(lhs[None, None], ker[None, None].astype(lhs.dtype),
                                   (1,) * len(plan), "VALID",
                                   precision=lax.Precision.HIGHEST)[0, 0]
    return _finish(xp, _rank_r(xp, out, [o for o, _ in plan], [], R), red, rs, like)


READ_LOWERINGS = {"gather": _gather, "shifted": _shifted, "conv": _conv}


def contract_read(xp: Any, red: tuple, rs: tuple, like: Any, x: Any, cs: tuple, offs: tuple,
                  y: Any) -> Any:
    """contract2(red, rs, like, nest_read(x, rs, cs, offs), y), where the read slides a
    window (`x[i + di, j + dj] * w[di, dj]`): compiled, the cost model picks among
    gathering the windows, summing shifted slices and one XLA convolution
    (lang.core.choices); on the host, shifted slices (numpy views) where they apply."""
    red = tuple(int(a) for a in red)
    can = {"gather": True, "shifted": _shifted_ok(red, rs, cs, x, y, like, offs),
           "conv": xp is not np and _conv_plan(red, rs, cs, x, y, like, offs) is not None}
    if xp is np or sum(can.values()) == 1:
        name = "shifted" if can["shifted"] else "gather"
        return READ_LOWERINGS[name](xp, red, rs, like, x, cs, offs, y)
    box = _box(rs)
    work = 2.0 * float(np.prod([n for _, _, n in box]))
    key = (f"x={tuple(x.shape)} y={tuple(y.shape)} {np.dtype(x.dtype).name} cs={cs} "
           f"box={tuple(n for _, _, n in box)} red={red} offs={tuple(int(o) for o in offs)}")
    zero = np.zeros((), dtype=N.dtype_of(like))

    def build(name: str) -> Any:
        return lambda a, b: READ_LOWERINGS[name](xp, red, rs, zero, a, cs, offs, b)

    name = choices.choose("Core.contract_read", key, build,
                          [(tuple(x.shape), x.dtype), (tuple(y.shape), y.dtype)], work,
                          applicable=lambda n: can[n])
    return READ_LOWERINGS[name](xp, red, rs, like, x, cs, offs, y)


choices.offer("Core.contract_read", tuple(READ_LOWERINGS), "shifted", "ZYLA_NEST_LOWERING")


def unit_axes(xp: Any, x: Any, rs: tuple) -> tuple:
    """The axes along which x does not vary (all of them for a scalar)."""
    if not is_array(x) or getattr(x, "ndim", 0) == 0:
        return tuple(range(len(rs)))
    return tuple(a for a in range(len(rs)) if x.shape[a] == 1)


def nest_affine(xp: Any, rs: tuple, c: tuple, off: Any) -> Any:
    (idx,) = _index_arrays(rs, (c,), (off,))
    return xp.asarray(idx + 1)


# --- the predicate ----------------------------------------------------------------------------

def _concrete_int(x: Any) -> bool:
    return (type(x) is int) or isinstance(x, np.integer)


def _numeric_array(x: Any) -> bool:
    if isinstance(x, (V.Range, tuple, str)) or not hasattr(x, "shape") or x.ndim == 0:
        return False
    return np.dtype(x.dtype).kind in "fiub"


def _same_memory(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return bool(np.may_share_memory(a, b))  # (bounds only: a false alarm runs the loop)
    return False


def nest_ok(interp: Any, spec: tuple, rs: tuple, arrays: tuple, offs: tuple,
            vals: tuple) -> bool:
    """See the module docstring. spec = (accesses, tensors): each access is (array
    position, kind "r"/"w"/"a", coefficients per index, offset position per index); each
    tensor a tuple of the axes an intermediate tensor spans. Counts its answers in STATS.
    Compiled, an offset may be traced (the index of a compiled loop around the nest): its
    accesses are then bounds-checked when the executable runs (`interp.check`: on a
    failure the call runs again on the host, where the loop raises Julia's error)."""
    ok = _nest_ok(interp, spec, rs, arrays, offs, vals)
    STATS["mapped" if ok else "as written"] += 1
    return ok


#: how many nests this process ran as tensor operations and as written
STATS = {"mapped": 0, "as written": 0}


def _nest_ok(interp: Any, spec: tuple, rs: tuple, arrays: tuple, offs: tuple,
             vals: tuple) -> bool:
    if MODE[0] == "off":
        return False
    for r in rs:
        if not isinstance(r, V.Range) or not (_concrete_int(r.start) and _concrete_int(r.step)):
            return False
        if not _concrete_int(r.length) or r.length < 1:
            return False
    traced = [k for k, o in enumerate(offs) if not _concrete_int(o)]
    if traced and not (hasattr(interp, "check") and all(
            getattr(offs[k], "ndim", 1) == 0 and np.dtype(offs[k].dtype).kind == "i"
            for k in traced)):
        return False
    if not all(_numeric_array(a) for a in arrays):
        return False
    for v in vals:
        if isinstance(v, bool) or not (isinstance(v, (int, float, np.number))
                                       or (hasattr(v, "dtype") and getattr(v, "ndim", 1) == 0
                                           and np.dtype(v.dtype).kind in "fiub")):
            return False
    # the checks that depend on sizes and offsets only, remembered per nest
    key = (tuple((int(r.start), int(r.step), int(r.length)) for r in rs),
           tuple((tuple(a.shape), np.dtype(a.dtype).kind) for a in arrays),
           tuple(int(o) if _concrete_int(o) else None for o in offs))
    entry = _CHECKED.get(id(spec))
    if entry is None or entry[0] is not spec:
        entry = _CHECKED[id(spec)] = (spec, {})
    ok = entry[1].get(key)
    if ok is None:
        ok = _fits(spec, key)
        if len(entry[1]) < 64:
            entry[1][key] = ok
    if not ok:
        return False
    written = {pos for pos, kind, _, _ in spec[0] if kind != "r"}
    for w in written:
        if any(p != w and _same_memory(arrays[w], arrays[p]) for p in range(len(arrays))):
            return False
    if traced:
        interp.check(_out_of_bounds(spec, key, arrays, offs))
    return True


def _span(c: tuple, box: tuple) -> tuple[int, int]:
    """The least and greatest of sum_a c[a] * (loop a's values) over the box."""
    lo = hi = 0
    for k, (s, st, ln) in zip(c, box, strict=True):
        ends = (k * s, k * (s + st * (ln - 1)))
        lo += min(ends)
        hi += max(ends)
    return lo, hi


def _sizes(shape: tuple, cs: tuple) -> list[int]:
    size = list(reversed(shape))  # Julia's dimensions
    return [int(np.prod(size))] if len(cs) == 1 and len(size) != 1 else size


def _out_of_bounds(spec: tuple, key: tuple, arrays: tuple, offs: tuple) -> Any:
    """Whether an access with a traced offset leaves its array (a traced Bool)."""
    box = key[0]
    failed: Any = False
    for pos, _kind, cs, opos in spec[0]:
        for c, o, n in zip(cs, opos, _sizes(tuple(arrays[pos].shape), cs), strict=True):
            if key[2][o] is None:
                lo, hi = _span(c, box)
                failed = failed | (offs[o] + lo < 1) | (offs[o] + hi > n)
    return failed


#: per nest (the id of its spec, and the spec), the sizes and offsets already checked
_CHECKED: dict[int, tuple[tuple, dict]] = {}


def _fits(spec: tuple, key: tuple) -> bool:
    """Bounds, tensor sizes and element types for these ranges, shapes and offsets."""
    accesses, tensors = spec
    box, shapes, offs = key
    lens = [n for _, _, n in box]
    for t in tensors:
        if int(np.prod([lens[a] for a in t])) > MAX_ELEMENTS:
            return False
    for pos, kind, cs, opos in accesses:
        shape, dkind = shapes[pos]
        size = _sizes(shape, cs)
        if len(cs) != len(size):
            return False
        for c, o, n in zip(cs, opos, size, strict=True):
            if offs[o] is None:
                continue  # (traced: checked when the executable runs)
            lo, hi = _span(c, box)
            if offs[o] + lo < 1 or offs[o] + hi > n:
                return False
        if kind == "a" and dkind != "f":
            return False
    return True


# --- registration -----------------------------------------------------------------------------

_ACCESS = "rs, cs, offs"
prim("Core.nest_read", _hx(nest_read), _jx(nest_read),
     f"(dz, z, x, {_ACCESS}) -> (Core.nest_read_back(dz, x, {_ACCESS}), nothing, nothing, "
     "nothing)")
prim("Core.nest_read_back", _hx(nest_read_back), _jx(nest_read_back),
     f"(ddx, z, dz, x, {_ACCESS}) -> (Core.nest_read(ddx, {_ACCESS}), nothing, nothing, "
     "nothing, nothing)")
prim("Core.nest_write", _hx(nest_write), _jx(nest_write),
     f"(dz, z, x, v, {_ACCESS}) -> (Core.nest_zero_at(dz, {_ACCESS}), "
     f"Core.unbroadcast(v, Core.nest_read(dz, {_ACCESS})), nothing, nothing, nothing)")
prim("Core.nest_zero_at", _hx(nest_zero_at), _jx(nest_zero_at),
     f"(ddz, z, dz, {_ACCESS}) -> (Core.nest_zero_at(ddz, {_ACCESS}), nothing, nothing, "
     "nothing)")
prim("Core.contract1", _hx(contract), _jx(contract),
     "(dz, z, red, rs, like, x) -> (nothing, nothing, nothing, "
     "Core.contract1(Core.unit_axes(x, rs), rs, x, dz))")
prim("Core.contract2", _hx(contract), _jx(contract),
     "(dz, z, red, rs, like, x, y) -> (nothing, nothing, nothing, "
     "Core.contract2(Core.unit_axes(x, rs), rs, x, dz, y), "
     "Core.contract2(Core.unit_axes(y, rs), rs, y, dz, x))")
_READ = "Core.nest_read(x, rs, cs, offs)"
prim("Core.contract_read", _hx(contract_read), _jx(contract_read),
     "(dz, z, red, rs, like, x, cs, offs, y) -> (nothing, nothing, nothing, "
     f"Core.nest_read_back(Core.contract2(Core.unit_axes({_READ}, rs), rs, {_READ}, dz, y), "
     "x, rs, cs, offs), nothing, nothing, "
     "Core.contract_read(Core.unit_axes(y, rs), rs, y, x, cs, offs, dz))")
prim("Core.unit_axes", _hx(unit_axes), _jx(unit_axes), NONDIFF)
prim("Core.nest_affine", _hx(nest_affine), _jx(nest_affine), NONDIFF)
prim("Core.nest_ok", nest_ok, nest_ok, NONDIFF, needs_interp=True)
MUTATING.add("Core.nest_write")

#: forward-mode rules (merged into lang.core.primitives_base.FORWARD)
FORWARD = {
    "Core.nest_read": f"(d, z, x, {_ACCESS}) -> Core.nest_read(d[1], {_ACCESS})",
    "Core.nest_read_back": f"(d, z, dz, x, {_ACCESS}) -> Core.nest_read_back(d[1], x, {_ACCESS})",
    "Core.nest_write": f"(d, z, x, v, {_ACCESS}) -> Core.nest_write(Core.nest_zero_at(d[1], "
                       f"{_ACCESS}), d[2], {_ACCESS})",
    "Core.nest_zero_at": f"(d, z, dz, {_ACCESS}) -> Core.nest_zero_at(d[1], {_ACCESS})",
    "Core.contract1": "(d, z, red, rs, like, x) -> Core.contract1(red, rs, z, d[4])",
    "Core.contract_read": "(d, z, red, rs, like, x, cs, offs, y) -> "
                          "Core.contract_read(red, rs, z, d[4], cs, offs, y) .+ "
                          "Core.contract_read(red, rs, z, x, cs, offs, d[7])",
    "Core.contract2": "(d, z, red, rs, like, x, y) -> Core.contract2(red, rs, z, d[4], y) "
                      ".+ Core.contract2(red, rs, z, x, d[5])",
}
