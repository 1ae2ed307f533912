"""Primitives that only pullback rules use: scatter for indexing, slicing for
concatenation, shape helpers. Each is itself a primitive with a rule, so rules compose
under nested AD. Host and JAX share the code through `xp`."""

from __future__ import annotations

from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins_dict import JDict
from lang.core.functions import GenericFunction, typeof
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    _hx,
    _jx,
    _result,
    as_array,
    is_array,
    jl_size,
    prim,
)
from lang.core.primitives_array import (
    _index_tuple,
    _permutedims,
    collect_results,
    jax_index_key,
    to_np_index,
)
from lang.core.structure import OffloadError


def _object_index_back(dz: Any, xa: np.ndarray, idx: tuple) -> np.ndarray:
    """The cotangent of one element of an array of values: `nothing` everywhere but at
    idx, where it is dz."""
    out = np.empty(xa.shape, dtype=object)
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in idx):
        raise ZylaError("AD error", "the gradient of a slice of an array of arrays is not "
                        "supported yet: index one element at a time")
    if len(idx) == 1:
        out.reshape(-1)[int(idx[0]) - 1] = dz
    else:  # (host arrays hold Julia's axes reversed)
        out[tuple(int(i) - 1 for i in reversed(idx))] = dz
    return out


def getindex_back(xp: Any, dz: Any, x: Any, *idx: Any) -> Any:
    """The cotangent of `x[idx...]`: zeros like x with dz added at idx (repeats add up)."""
    if isinstance(x, tuple):
        return _tuple_index_back(dz, len(x), idx[0])
    if dz is None:
        return None
    if type(dz) is np.ndarray and dz.dtype == object and any(e is None for e in dz.flat):
        # a Vector{Nothing} cotangent (or one with `nothing` holes): nothing is zero, never
        # a float (NaN)
        if all(e is None for e in dz.flat):
            return None
        if all(isinstance(e, (int, float, complex, np.number)) for e in dz.flat
               if e is not None):
            dz = np.array([0.0 if e is None else e for e in dz.flat]).reshape(dz.shape)
    if isinstance(x, dict) and len(idx) == 1:  # d[k]: a Dict of k's cotangent
        return JDict([(idx[0], dz)], None, V.AnyT)
    if isinstance(x, V.NamedTuple):  # nt[:name] or nt[i]
        i = idx[0]
        k = x.names.index(i.name) if isinstance(i, V.Symbol) else int(i) - 1
        return V.NamedTuple(x.names, tuple(dz if j == k else None for j in range(len(x))))
    xa = as_array(x, xp)
    if xp is np and xa.dtype == object:  # an array of arrays (or structs): nothing but at idx
        return _object_index_back(dz, xa, idx)
    d = N.dtype_of(xa) if N.dtype_of(xa).kind == "f" else N.F64

    if xp is np:
        out = np.zeros(xa.shape, dtype=d)
        flat_linear = len(idx) == 1 and xa.ndim != 1
        tgt = out.reshape(-1) if flat_linear else out
        if flat_linear:
            key = to_np_index(np, idx[0], out.size, out, idx)
        else:
            key = _index_tuple(out, idx)
        if (isinstance(key, tuple) and all(isinstance(k, (int, slice)) for k in key)
                or isinstance(key, (int, slice))):
            tgt[key] += np.asarray(dz, dtype=d) if is_array(dz) else dz
        else:
            np.add.at(tgt, key, np.asarray(dz, dtype=d))
        return out
    out = xp.zeros(xa.shape, dtype=d)
    if len(idx) == 1 and xa.ndim != 1:
        flat = out.reshape(-1)
        key = jax_index_key(xp, idx[0], flat.shape[0])
        return flat.at[key].add(dz).reshape(xa.shape)
    sizes = jl_size(xa)
    keys = [jax_index_key(xp, i, sizes[k]) for k, i in enumerate(idx)]
    keys.reverse()
    arrays = [k for k in keys if not isinstance(k, slice) and getattr(k, "ndim", 0) > 0]
    if len(arrays) > 1:
        # Julia indexes with several vectors as an outer product: an open mesh
        mesh = [xp.arange(out.shape[a])[k] if isinstance(k, slice) else xp.atleast_1d(k)
                for a, k in enumerate(keys)]
        keys = list(xp.ix_(*mesh))
        dz = xp.reshape(dz, tuple(len(m) for m in mesh))
    return out.at[tuple(keys)].add(dz)


def _tuple_index_back(dz: Any, n: int, i: Any) -> tuple:
    """The cotangent of `t[i]` for a tuple t of n elements: i an integer, a range or a
    vector of integers (`t[1:2]`, `t[[1, 2, 1]]`: a tuple, whose cotangent dz is one)."""
    if isinstance(i, (int, np.integer)):
        return tuple(dz if k == i - 1 else None for k in range(n))
    out: list = [None] * n
    if dz is None:
        return tuple(out)
    ks = [int(k) - 1 for k in (i if isinstance(i, V.Range) else np.asarray(i).reshape(-1))]
    ds = list(dz) if isinstance(dz, tuple) else list(np.asarray(dz, dtype=object).reshape(-1))
    for k, d in zip(ks, ds, strict=True):
        out[k] = _add_cot(out[k], d)
    return tuple(out)


def _add_cot(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def broadcast_to(xp: Any, dz: Any, x: Any) -> Any:
    """dz (the cotangent of a reduction of x) spread back over x's shape."""
    if dz is None or x is None:
        return None
    xa = as_array(x, xp)
    if not is_array(xa):
        return dz
    if xp is np and xa.dtype == object and not (is_array(dz) and N.dtype_of(dz) == N.OBJ) \
            and not isinstance(dz, (int, float, complex, np.number)):
        # the sum of an array of arrays (or of tuples): each element's cotangent is dz
        out = np.empty(xa.shape, dtype=object)
        for k in range(out.size):
            out.reshape(-1)[k] = dz
        return out
    d = xa.dtype if N.dtype_of(xa).kind == "f" else N.F64
    if not is_array(dz):
        return xp.full(xa.shape, dz, dtype=d)
    return xp.broadcast_to(dz, xa.shape) * xp.ones(xa.shape, dtype=d)


def prepend_nothing(g: Any) -> Any:
    return None if g is None else (None,) + tuple(g)


def tail_cot(dz: Any) -> Any:
    return None if dz is None else tuple(dz[1:])


def convert_cot(x: Any, dz: Any, keep_float: bool = False) -> Any:
    """The cotangent of a conversion's argument x: dz in x's float type (Float64 for an
    integer); keep_float: an integer's float cotangent keeps its type (convert_tangent)."""
    d = N.dtype_of(as_array(x))
    if d.kind in "iu":
        if keep_float and dz is not None and N.dtype_of(dz).kind == "f":
            return dz
        d = N.F64  # convert(Float64, n) passes its cotangent to the integer n
    if d.kind != "f" or dz is None:
        return None
    return N.cast(dz, d, np) if not hasattr(dz, "aval") else dz.astype(d)


def convert_tangent(x: Any, dz: Any) -> Any:
    """The tangent of `convert_cot` (forward over reverse: `hessian`): an integer's keeps
    the float type it was computed in, as grads_tangent."""
    return convert_cot(x, dz, keep_float=True)


def permute_back(xp: Any, dz: Any, x: Any, *p: Any) -> Any:
    if np.ndim(as_array(x)) == 1:  # permutedims(v) of a vector is a 1×n row: back to a vector
        return xp.reshape(as_array(dz, xp), np.shape(as_array(x)))
    if not p:
        return _permutedims(xp, dz)
    perm = p[0]
    inv = [0] * len(perm)
    for i, q in enumerate(perm):
        inv[q - 1] = i + 1
    return _permutedims(xp, dz, tuple(inv))


def findext_back(xp: Any, dz: Any, z: Any, x: Any) -> Any:
    if dz is None or dz[0] is None:
        return None
    xa = as_array(x, xp)
    flat = xp.zeros(xa.size, dtype=xa.dtype if N.dtype_of(xa).kind == "f" else N.F64)
    i = z[1] - 1
    if xp is np:
        flat[i] = dz[0]
    else:
        flat = flat.at[i].set(dz[0])
    return flat.reshape(xa.shape)


def _split(xp: Any, dz: Any, xs: tuple, axis_of: Any) -> tuple:
    out = []
    k = 0
    for x in xs:
        xa = as_array(x, xp)
        if not is_array(xa):
            flat = xp.reshape(dz, (-1,)) if axis_of(dz) == -1 else None
            out.append(_result(dz.reshape(-1)[k], xp) if flat is None else _result(flat[k], xp))
            k += 1
            continue
        n = xa.shape[0] if xa.ndim and axis_of(dz) == 0 else xa.shape[-1] if xa.ndim else 1
        if dz.ndim == 1:
            out.append(dz[k:k + xa.size].reshape(xa.shape))
            k += xa.size
        elif axis_of(dz) == 0:
            rows = xa.shape[0] if xa.ndim == 2 else 1
            out.append(dz[k:k + rows].reshape(xa.shape))
            k += rows
        else:
            cols = xa.shape[-1] if xa.ndim == 2 else xa.shape[0]
            out.append(dz[..., k:k + cols].reshape(xa.shape))
            k += cols
        _ = n
    return tuple(out)


def vcat_back(xp: Any, dz: Any, *xs: Any) -> tuple:
    """Cotangents of vcat's pieces (Julia rows are the last numpy axis)."""
    return _split(xp, dz, xs, lambda d: -1 if d.ndim == 1 else 1)


def hcat_back(xp: Any, dz: Any, *xs: Any) -> tuple:
    """Cotangents of hcat's pieces (Julia columns are the first numpy axis)."""
    if dz.ndim == 1:
        return _split(xp, dz, xs, lambda d: -1)
    return _split(xp, dz, xs, lambda d: 0)


def vect_back(xp: Any, dz: Any, *xs: Any) -> tuple:
    if dz is None:
        return (None,) * len(xs)
    return tuple(_result(dz[k], xp) for k in range(len(xs)))


def hvcat_back(xp: Any, dz: Any, rows: tuple, *xs: Any) -> tuple:
    out = []
    k = 0
    r0 = 0
    for n in rows:
        piece = xs[k:k + n]
        # the row's height: a matrix's rows (numpy's last axis), a vector's length
        h = max((as_array(x).shape[-1] if is_array(x) and np.ndim(as_array(x)) in (1, 2) else 1)
                for x in piece)
        c0 = 0
        for x in piece:
            xa = as_array(x, xp)
            w = (xa.shape[0] if is_array(xa) and xa.ndim == 2
                 else (xa.shape[0] if is_array(xa) else 1))
            if is_array(xa) and xa.ndim == 1:
                w = 1
            block = dz[c0:c0 + w, r0:r0 + h]
            out.append(block.reshape(xa.shape) if is_array(xa)
                       else _result(block.reshape(-1)[0], xp))
            c0 += w
        r0 += h
        k += n
    return tuple(out)


def onehot_like(xp: Any, y: Any, i: Any) -> Any:
    """Zeros shaped like y (a float type) with a one at linear index i (i may be traced)."""
    ya = as_array(y, xp)
    if not is_array(ya):
        return 1.0
    d = ya.dtype if N.dtype_of(ya).kind == "f" else N.F64
    if xp is np:
        out = np.zeros(ya.shape, dtype=d)
        out.reshape(-1)[i - 1] = 1.0
        return out
    return (xp.arange(ya.size) == i - 1).astype(d).reshape(ya.shape)


def iter_array(xp: Any, it: Any) -> Any:
    """What a comprehension iterates over, as an array of the iterable's shape."""
    if isinstance(it, V.Range):
        return as_array(it, xp)
    # (a numpy dtype compares equal to the type `object`; `is not` would differ)
    if hasattr(it, "shape") and getattr(it, "dtype", None) != object:  # noqa: E721
        return it

    if isinstance(it, np.ndarray):
        return it
    items = list(current.runtime().iterate(it))
    out = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        out[i] = v
    if (items and all(N.dtype_of(v) != N.OBJ for v in items)
            and not any(isinstance(v, tuple) for v in items)):
        return collect_results(items, (len(items),))
    return out


def iter_array_host(it: Any) -> Any:
    return iter_array(np, it)


def findall_true(mask: Any) -> Any:
    m = np.asarray(as_array(mask)).reshape(-1)
    return (np.nonzero(m)[0] + 1).astype(np.int64)


def _static_findall(m: Any) -> Any:
    if hasattr(m, "aval"):
        raise OffloadError("a filter whose result size depends on the data (an `if` in a "
                           "comprehension, or `filter`) runs on the host")
    return findall_true(m)


def frule_for(interp: Any, f: Any, args: list, ds: tuple) -> Any:
    """The user's `ChainRulesCore.frule` generic function if one of its methods applies to
    `frule(ds, f, args...)` (ds = (df, dargs...)) with a specific `::typeof(f)` (user rules
    win over the built-in forward rules and the transform); None otherwise."""
    fr = interp.rt.globals.get("frule") or interp.rt.builtins.get("frule")
    if not isinstance(fr, GenericFunction) or not fr.methods:
        return None
    types = [typeof(ds), typeof(f)] + [typeof(a) for a in args]
    for m in fr.methods:
        if m.fn is None or len(m.sig) < 2:
            continue
        specific = isinstance(m.sig[1], V.JType) and m.sig[1] is not V.AnyT
        if specific and m.applicable(types) is not None:
            return fr
    return None


def install(rt: Any) -> None:
    """Register the primitives that pullback rules use."""
    b = rt.builtins

    def numeric(name: str, f: Any, rule: str) -> None:
        b[name] = prim(name, _hx(f), _jx(f), rule, INFER_BY_LOWERING)

    def plain(name: str, f: Any, rule: str) -> None:
        b[name] = prim(name, f, _jx(lambda xp, *a: f(*a)), rule, INFER_BY_LOWERING)

    numeric("Core.getindex_back", getindex_back,
            "(ddz, z, dz, x, i...) -> (getindex(ddz, i...), nothing, map(k -> nothing, i)...)")
    numeric("Core.broadcast_to", broadcast_to,
            "(ddz, z, dz, x) -> (Core.unbroadcast(dz, ddz), nothing)")
    numeric("Core.permute_back", permute_back,
            "(ddz, z, dz, x, p...) -> (permutedims(ddz, p...), nothing, map(k -> nothing, p)...)")
    numeric("Core.findext_back", findext_back,
            "(ddx, y, dz, z, x) -> ((ddx[z[2]], nothing), nothing, nothing)")
    numeric("Core.vcat_back", vcat_back,
            "(ddz, z, dz, xs...) -> (vcat(ddz...), map(k -> nothing, xs)...)")
    numeric("Core.hcat_back", hcat_back,
            "(ddz, z, dz, xs...) -> (hcat(ddz...), map(k -> nothing, xs)...)")
    numeric("Core.vect_back", vect_back,
            "(ddz, z, dz, xs...) -> (Core.vect(ddz...), map(k -> nothing, xs)...)")
    numeric("Core.hvcat_back", hvcat_back,
            "(ddz, z, dz, rows, xs...) -> (Core.hvcat(rows, ddz...), nothing, "
            "map(k -> nothing, xs)...)")
    plain("Core.prepend_nothing", prepend_nothing, "(dz, z, g) -> (Core.tail_cot(dz),)")
    plain("Core.tail_cot", tail_cot, "(dz, z, g) -> (Core.prepend_nothing(dz),)")
    plain("Core.convert_cot", convert_cot, "(dz, z, x, d) -> (nothing, dz)")
    plain("Core.convert_tangent", convert_tangent, "(dz, z, x, d) -> (nothing, dz)")
    numeric("Core.onehot_like", onehot_like, NONDIFF)
    plain("Core.tail", lambda t: tuple(t[1:]), "(dz, z, t) -> (Core.prepend_nothing(dz),)")
    b["Core.iter_array"] = prim("Core.iter_array", iter_array_host, _jx(iter_array),
                                "(dz, z, it) -> (it isa AbstractArray ? dz : "
                                "Core.iter_array_back(dz, it),)",
                                INFER_BY_LOWERING)
    b["Core.findall_true"] = prim("Core.findall_true", findall_true,
                                  _jx(lambda xp, m: _static_findall(m)),
                                  NONDIFF, INFER_BY_LOWERING)


# Forward-mode rules (autodiff/forward.py): Zyla source `(d, z, args...) -> tangent of z`,
# d the tuple of the arguments' tangents (zeros where they have none), or a marker
# ("noforward": no rule, an AD error; "SPECIAL": the dispatcher's own).
FORWARD: dict[str, str] = {
    "Core.convert_cot": "(d, z, x, dz) -> Core.convert_tangent(x, d[2])",
    "Core.convert_tangent": "(d, z, x, dz) -> Core.convert_tangent(x, d[2])",
    "Core.getindex_back": "(d, z, dz, x, i...) -> Core.getindex_back(d[1], x, i...)",
    "Core.broadcast_to": "(d, z, dz, x) -> Core.broadcast_to(d[1], x)",
    "Core.permute_back": "(d, z, dz, x, p...) -> Core.permute_back(d[1], x, p...)",
    "Core.findext_back": "(d, z, dz, zz, x) -> Core.findext_back(d[1], zz, x)",
    "Core.vcat_back": "(d, z, dz, xs...) -> Core.vcat_back(d[1], xs...)",
    "Core.hcat_back": "(d, z, dz, xs...) -> Core.hcat_back(d[1], xs...)",
    "Core.vect_back": "(d, z, dz, xs...) -> Core.vect_back(d[1], xs...)",
    "Core.hvcat_back": "(d, z, dz, rows, xs...) -> Core.hvcat_back(d[1], rows, xs...)",
    "Core.prepend_nothing": "(d, z, g) -> Core.prepend_nothing(d[1])",
    "Core.tail_cot": "(d, z, g) -> Core.tail_cot(d[1])",
    "Core.tail": "(d, z, t) -> Core.tail(d[1])",
    "Core.iter_array": "(d, z, it) -> d[1] === nothing ? nothing : Core.iter_array(d[1])",
    "Core.indexed_iterate": "(d, z, x, i) -> Core.indexed_iterate(d[1], i)",
    "Core.namedtuple": "(d, z, names, xs...) -> Core.namedtuple(names, Core.tail(d)...)",
    "tuple": "(d, z, xs...) -> tuple(d...)",
    "getproperty": "(d, z, x, s) -> Core.fwd_field(d[1], s)",
    "float": "(d, z, x) -> d[1]",
    "Core.accum": "(d, z, a, b) -> Core.accum(d[1], d[2])",
    "Core.getgrad": "(d, z, g, i) -> Core.getgrad(d[1], i)",
    "Core.kwcot": "(d, z, nt) -> Core.kwcot(d[1])",
    "Core.kwcot_back": "(d, z, dz) -> Core.kwcot_back(d[1])",
    "Core.kwgrad": "(d, z, g, name) -> Core.kwgrad(d[1], name)",
    "Core.kwgrad_back": "(d, z, g, name, dz) -> Core.kwgrad_back(g, name, d[3])",
    "Core.grads_out": "(d, z, g, args) -> Core.grads_tangent(d[1], args)",
    "Core.grads_tangent": "(d, z, g, args) -> Core.grads_tangent(d[1], args)",
    "Core.iter_cot": "(d, z, it, t) -> Core.iter_cot(it, d[2])",
    "Core.onehot_cot": "(d, z, x, i, dz) -> Core.onehot_cot(x, i, d[3])",
    "Core.field_cot": "(d, z, x, s, dz) -> Core.field_cot(x, s, d[3])",
    "Core.regroup": "(d, z, g, spec, lens...) -> Core.regroup(d[1], spec, lens...)",
    "Core.reverse_tape": "(d, z, t) -> Core.reverse_tape(d[1])",
    "Core.splice_last": "(d, z, ds...) -> Core.fwd_splice(d, ds)",
    "Core.tuple_cot": "(d, z, g, n) -> Core.tuple_cot(d[1], n)",
    "Core.struct_fields_cot": "(d, z, g, n) -> Core.struct_fields_cot(d[1], n)",
    "Core.forward_callable": ("(d, z, h, args...) -> "
                              "d[1] === nothing ? nothing : Core.forward_callable(d[1], args...)"),
    "unthunk": "(d, z, x) -> d[1]",
    "Core.pullback_call": "SPECIAL",
    "Core.back": "SPECIAL",
    "broadcast": "SPECIAL",
    "checkpointed": "SPECIAL",
    "Core.with_rng": "SPECIAL",
    "Core.tape_zip": "noforward",
    "Zyla.shard_batch": "(d, z, x) -> d[1]",
    "Zyla.shard": "(d, z, x, dims) -> d[1]",
    # (the whole batch's tangent from every process's part's; this process's block)
    "Zyla.local_batch": "(d, z, x) -> Zyla.local_batch(d[1])",
}
