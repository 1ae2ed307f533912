"""Array primitives: construction, shape, indexing, reductions, broadcasting helpers.

Arrays use the layout of lang.core.values: a Julia array of size (m, n, ...) is a C-ordered
array of shape (..., n, m). Julia dimension d (1-based) is numpy axis ndim - d.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import bigfloats, current, ranges, strings
from lang.core import numeric as N
from lang.core import values as V
from lang.core.complexes import promote_literal
from lang.core.eltypes import (
    collected_type,
    common_type,
    copy_tag,
    note_view,
    promote_typejoin,
    recorded,
    tag,
)
from lang.core.functions import cannot_convert, typeof
from lang.core.lower import COLON
from lang.core.primitives import (
    INFER_BY_LOWERING,
    NONDIFF,
    HostOnly,
    _hx,
    _julia_call,
    _jx,
    _result,
    as_array,
    dim_mismatch,
    irrational_as,
    is_array,
    jl_size,
    prim,
    unbroadcast,
)
from lang.core.show import jl_show
from lang.core.structure import OffloadError, is_adjoint_row


def axis(x: Any, d: int) -> int:
    """numpy axis of Julia dimension d (1-based)."""
    return x.ndim - d


def _dims_arg(dims: Any) -> tuple[int, ...]:
    """Julia `dims` (an Int, a tuple or a vector of Ints) as a tuple of Ints."""
    if isinstance(dims, (tuple, list)) or (isinstance(dims, np.ndarray) and dims.ndim == 1):
        return tuple(int(d) for d in dims)
    return (int(dims),)


def _shape_from(args: tuple) -> tuple[int, ...]:
    """Julia dims `(2, 3)` or `2, 3` as a numpy shape (reversed)."""
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    for a in args:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise ZylaError("MethodError", f"invalid dimension {a!r}")
    return tuple(int(a) for a in reversed(args))


def _eltype_and_dims(args: tuple, default: np.dtype = N.F64) -> tuple[np.dtype, tuple[int, ...]]:
    if args and isinstance(args[0], V.JType):
        d = V.JTYPE_TO_DTYPE.get(args[0], N.OBJ)
        return d, _shape_from(args[1:])
    return default, _shape_from(args)


def _filled(value: float) -> Any:
    def run(xp: Any, *args: Any) -> Any:
        d, shape = _eltype_and_dims(args)
        return xp.full(shape, value, dtype=d)

    return run


def _fill(xp: Any, v: Any, *dims: Any) -> Any:
    shape = _shape_from(dims)
    d = N.dtype_of(v) if not is_array(v) else N.OBJ  # (`fill(trues(5), 2)`: two arrays)
    if d == N.OBJ:
        out = np.empty(shape, dtype=object)
        out.fill(v)
        return out
    return xp.full(shape, v, dtype=d)


def _similar(xp: Any, x: Any, *rest: Any) -> Any:
    """`similar(x[, T][, dims])`: a new array of x's (or T's) element type; one of objects
    (`similar(["a"], String)`, `similar(Int128[1])`) records that element type."""
    src = x
    x = as_array(x, xp)
    d = x.dtype
    shape = x.shape
    t = None
    if rest and isinstance(rest[0], V.JType):
        t = rest[0]
        d = V.JTYPE_TO_DTYPE.get(t, N.OBJ)
        rest = rest[1:]
    if rest:
        shape = _shape_from(rest)
    if d != N.OBJ:
        return xp.zeros(shape, dtype=d)
    out = np.empty(shape, dtype=object)
    out = tag(out, t) if t is not None else copy_tag(src, out)
    out.fill(V.undef_slot(recorded(out), current.runtime().lookup))  # (Julia's `#undef`)
    return out


#: `copy` of host containers that are not arrays, by Python class (registered by the
#: modules that define them: Dict, IdDict, Set); a new container with the same contents
COPIES: dict[type, Callable[[Any], Any]] = {}
#: `size(x)` of host values that are not arrays, by Python class (registered by the modules
#: that define them: the lazy iterators); a tuple of dims, or a Julia error
SIZES: dict[type, Callable[[Any], tuple]] = {}
#: how a value stored into an object array of a recorded element type is converted to it,
#: by that type (lang.core.builtins registers Int128, UInt128 and BigInt: `a[1] = 5` into
#: an Int128[...] stores Int128(5), as Julia's setindex! converts; the text types are
#: strings.TEXT_CONVERTS: a SubString stored into a Vector{String} is its String)
STORE_CONVERTS: dict[V.JType, Callable[[Any], Any]] = dict(strings.TEXT_CONVERTS)
#: the Python class of the values that are already of an element type in STORE_CONVERTS,
#: by that type: a `setindex!` stores them without the call (`v[i] = "a"` into a
#: Vector{String} is hot)
STORED_AS_IS: dict[V.JType, type] = dict(strings.TEXT_CLASSES)


def _copy(xp: Any, x: Any) -> Any:
    copier = COPIES.get(type(x))
    if copier is not None:
        return copier(x)
    if isinstance(x, V.Range):
        return as_array(x, xp)
    if xp is np and isinstance(x, np.ndarray):
        return x.copy()
    if xp is not np and hasattr(x, "shape"):
        # a distinct value: writes to it must not look like writes to x
        return xp.array(x, copy=True)
    return x


def _size(xp: Any, x: Any, d: Any = None) -> Any:
    own = SIZES.get(type(x))
    s = own(x) if own is not None else jl_size(x)
    if d is None:
        return s
    return s[d - 1] if d <= len(s) else 1


def _length(xp: Any, x: Any) -> int:
    if isinstance(x, V.Range):
        return x.length  # (traced when the compiled tier computes a range's bounds)
    if isinstance(x, str):
        return strings.length(x)
    if isinstance(x, (tuple, V.NamedTuple)):
        return len(x)
    if isinstance(x, dict):
        return len(x)
    if hasattr(x, "shape"):
        n = 1
        for s in x.shape:
            n *= s
        return n
    if hasattr(x, "items") and isinstance(x.items, list):
        return len(x.items)
    if hasattr(x, "jl_length"):
        return x.jl_length()
    if N.is_scalar(x):
        return 1

    raise ZylaError("MethodError", f"no method matching length(::{V.type_name(typeof(x))})")


def _reshape(xp: Any, x: Any, *dims: Any) -> Any:
    of_range = xp is np and isinstance(x, V.Range)
    x = as_array(x, xp)
    if len(dims) == 1 and isinstance(dims[0], tuple):
        dims = dims[0]
    total = int(np.prod(x.shape))
    known = [d for d in dims if d is not COLON]
    if len(known) < len(dims):
        prod = int(np.prod(known)) if known else 1
        dims = tuple(total // prod if d is COLON else d for d in dims)
    if int(np.prod(dims)) != total:
        raise dim_mismatch(f"new dimensions {tuple(dims)} must be consistent with array size "
                           f"{total}")
    if of_range:  # (a range's elements are computed, not stored: Julia refuses writes;
        # x is this call's own array, which every view of the result has as its base)
        make_readonly(x, "indexed assignment fails for a reshaped range; consider calling "
                      "collect")
    return note_view(xp.reshape(x, tuple(reversed([int(d) for d in dims]))))


def _vec(xp: Any, x: Any) -> Any:
    x = as_array(x, xp)
    if x.ndim == 1:
        return x  # (Julia: `vec(v) === v` for a vector)
    return note_view(xp.reshape(x, (-1,)))


def _permutedims(xp: Any, x: Any, perm: Any = None) -> Any:
    x = as_array(x, xp)
    if x.ndim == 1:
        row = xp.reshape(x, (x.shape[0], 1))
        return row.copy() if xp is np else row
    n = x.ndim
    if perm is None:
        perm = (2, 1)
    elif xp is np and sorted(int(k) for k in perm) != list(range(1, n + 1)):
        raise ZylaError("ArgumentError", "no valid permutation of dimensions")
    # Julia result dim i is input dim perm[i]; numpy axis of julia dim d is n - d
    np_perm = [n - perm[n - 1 - k] for k in range(n)]
    out = xp.transpose(x, np_perm)
    return out.copy() if xp is np else out  # (Julia's permutedims is a new array)


class AdjointVector(np.ndarray):
    """`v'` for a vector v: a 1×n row whose product with a vector is a scalar."""

    is_adjoint_vector = True


def _adjoint(xp: Any, x: Any) -> Any:
    if not is_array(x):
        return x
    if is_adjoint_row(x):  # (v')' is v, a vector again
        return np.asarray(x).reshape(-1)
    x = as_array(x, xp)
    if x.ndim == 1:
        row = xp.reshape(x, (x.shape[0], 1))
        if xp is np:
            return note_view(row.view(AdjointVector))
        return row
    return note_view(xp.transpose(x))


def _blockwise(flip: Any, name: str) -> Any:
    """`adjoint`/`transpose` (flip, the primitive's name), recursive as Julia's are: the
    blocks of an array of arrays are flipped too (`B'[1, 2] == B[2, 1]'`)."""
    def run(xp: Any, x: Any) -> Any:
        if xp is np and type(x) is np.ndarray and x.dtype == N.OBJ and any(
                isinstance(e, np.ndarray) for e in x.reshape(-1)):
            rt = current.runtime()
            f = rt.lookup(name)
            items = [rt.interp.call_value(f, [e]) for e in x.reshape(-1)]
            blocks = np.empty(len(items), dtype=object)
            for k, e in enumerate(items):
                blocks[k] = e  # (one by one: numpy would read a list of arrays as one)
            out = flip(xp, blocks.reshape(x.shape))
            return tag(out, collected_type(items, typeof))
        return flip(xp, x)

    return run


def _as_reduce_axes(x: Any, dims: Any) -> tuple[int, ...]:
    ds = _dims_arg(dims)
    return tuple(axis(x, d) for d in ds if d <= x.ndim)


def _reducer(np_name: str, empty_ok: bool = True) -> Any:
    def run(xp: Any, x: Any, dims: Any = None) -> Any:
        if type(x) is tuple and not x and np_name in ("sum", "prod"):
            return 0 if np_name == "sum" else 1  # sum(()) == 0, prod(()) == 1 (Ints)
        x = as_array(x, xp)
        if isinstance(x, tuple):
            x = np.array(x)
        if not is_array(x):
            if (isinstance(x, V.StructValue) and not V.issubtype(x.type, V.NumberT)) or (
                    isinstance(getattr(x, "items", None), list)):
                # a program's iterable struct, a Set or a KeySet: reduced over its elements
                # (sum(It(3)) is not It(3)), on the host
                if xp is not np:
                    raise OffloadError(f"{np_name} of a {V.type_name(typeof(x))} runs on the host")
                items = list(current.runtime().iterate(x))
                elt = getattr(x, "elem_type", None)  # (sum(Set{Int}()) is 0, an Int)
                return run(xp, collect_results(items, (len(items),)) if items or elt is None
                           else _typed_vect(np, elt), dims)
            return _widen_small_int(x) if np_name in ("sum", "prod") else x
        if x.dtype == N.BOOL and np_name == "prod" and dims is None:
            return _result(xp.all(x), xp)  # `prod(trues(3)) === true`
        if x.dtype == N.BOOL and np_name in ("sum", "prod"):
            x = x.astype(N.I64)
        if dims is None:
            if x.size == 0 and x.dtype == object and np_name in ("sum", "prod"):
                return _reduce_empty(np_name, x)
            if x.size == 0 and not empty_ok:
                raise ZylaError("ArgumentError", "reducing over an empty collection is not allowed")
            if x.dtype == object and np_name in _BY_ISLESS:
                return _fold_by_isless(np_name, x)
            if x.dtype == object and np_name in _BY_JULIA_OP and x.size and isinstance(
                    x.flat[0], (V.WideInt, tuple, str, V.StructValue, V.Rational)):
                # (numpy's + would concatenate, or not know a struct's, or make a Rational
                # a bare Fraction)
                return _fold_by_julia_op(_BY_JULIA_OP[np_name], x)
            if xp is not np and np_name == "sum" and x.dtype.kind == "f" and x.size:
                return _result(_sum_from_negative_zero(xp, x), xp)
            r = getattr(xp, np_name)(x)
            if xp is np and x.dtype.kind == "f" and r == 0:
                r = _signed_zero(np_name, x, r)
            return _result(r, xp)
        return getattr(xp, np_name)(x, axis=_as_reduce_axes(x, dims), keepdims=True)

    return run


_BY_ISLESS = frozenset({"max", "min"})


def _reduce_empty(np_name: str, x: np.ndarray) -> Any:
    """sum/prod of an empty object array: zero/one of its element type (Julia's
    `reduce_empty`), by the runtime's own `zero`/`one`: `sum(Int128[]) === Int128(0)`,
    `sum(Real[]) === 0`, a program's `zero(::Type{P})` is used, and `sum(Any[])` is the
    MethodError of `zero(Any)`."""
    rt = current.runtime()
    f = rt.lookup("zero" if np_name == "sum" else "one")
    return rt.interp.call_value(f, [recorded(x) or V.AnyT])


def _sum_from_negative_zero(xp: Any, x: Any) -> Any:
    """The compiled sum of a non-empty float array, started from -0.0 (IEEE's additive
    identity: `-0.0 + y === y` for every y) so that a sum of negative zeros only is -0.0,
    as Julia's. XLA's own sum starts from +0.0; the start value costs nothing."""
    import jax

    # (a lambda, not lax.add itself: JAX would turn `lax.add` with a zero start back into
    # its own sum, which starts from +0.0)
    return jax.lax.reduce(x, np.array(-0.0, dtype=x.dtype), lambda a, b: jax.lax.add(a, b),
                          tuple(range(x.ndim)))


def _fold_by_isless(np_name: str, x: np.ndarray) -> Any:
    """maximum/minimum of an object array, compared by Julia's `isless` as Base's
    generic `max(x, y) = isless(y, x) ? x : y` does (user types with an isless method)."""
    rt = current.runtime()
    isless = rt.lookup("isless")
    flat = x.reshape(-1)
    acc = flat[0]
    for y in flat[1:]:
        y_less = bool(rt.interp.call_value(isless, [y, acc]))
        if (np_name == "min") == y_less:
            acc = y
    return acc


#: sum/prod of an object array of 128-bit (or big) integers: folded with Julia's own `+`/`*`
_BY_JULIA_OP = {"sum": "+", "prod": "*"}


#: folds by a Julia operator done on the host in one loop, by (operator, element type
#: name): each gives what the fold by the stdlib's method gives, or None to leave it to it
_NATIVE_FOLDS: dict[tuple[str, str | None], Callable[[np.ndarray], Any]] = {
    ("+", "BigFloat"): bigfloats.sum_structs}


def _fold_by_julia_op(op: str, x: np.ndarray) -> Any:
    """An object array reduced left to right by the runtime's `op`, as Base's
    `reduce(+, x)` does for element types numpy has no arithmetic for."""
    rt = current.runtime()
    f = rt.lookup(op)
    flat = x.reshape(-1, order="F")
    native = _NATIVE_FOLDS.get((op, getattr(getattr(flat[0], "type", None), "name", None)))
    if native is not None:
        r = native(flat)
        if r is not None:
            return r
    acc = flat[0]
    for y in flat[1:]:
        acc = rt.interp.call_value(f, [acc, y])
    return acc


def _widen_small_int(x: Any) -> Any:
    """`sum(Int8(3)) === 3`: a small integer sums as an Int (an unsigned one as a UInt)."""
    if type(x) is bool or type(x) is np.bool_:
        return int(x)
    if isinstance(x, np.integer) and x.dtype.itemsize < 8:
        return N.host_scalar(x.astype(N.I64 if x.dtype.kind == "i" else np.uint64))
    return x


def _signed_zero(np_name: str, x: np.ndarray, r: Any) -> Any:
    """A zero result with Julia's sign (numpy's host reductions ignore it; XLA's follow
    IEEE like Julia): `maximum([-0.0, 0.0]) === 0.0`, `minimum` prefers -0.0, and a sum
    of negative zeros only is -0.0."""
    neg = np.signbit(x) & (x == 0)
    if np_name == "max":
        return r.dtype.type(-0.0) if not np.any((x == 0) & ~neg) else r.dtype.type(0.0)
    if np_name == "min":
        return r.dtype.type(-0.0) if np.any(neg) else r.dtype.type(0.0)
    if np_name == "sum":
        return r.dtype.type(-0.0) if x.size and np.all(neg) else r
    return r


def _extreme_index(xp: Any, np_name: str, flat: Any) -> Any:
    """The 0-based index argmin/argmax of a flat array picks, as Julia's does: the first
    extreme element, ordered by isless (-0.0 before 0.0; numpy takes them as equal)."""
    i = getattr(xp, np_name)(flat)
    if N.dtype_of(flat).kind == "f" and flat.shape[0] > 0:
        sign = xp.signbit(flat)
        better = (flat == 0) & (sign if np_name == "argmin" else ~sign)
        i = xp.where((flat[i] == 0) & xp.any(better), xp.argmax(better), i)
    return i


def _argext(np_name: str) -> Any:
    def run(xp: Any, x: Any) -> Any:
        flat = xp.reshape(as_array(x, xp), (-1,))
        return _result(_extreme_index(xp, np_name, flat) + 1, xp)

    return run


def _findext(np_name: str) -> Any:
    def run(xp: Any, x: Any) -> Any:
        flat = xp.reshape(as_array(x, xp), (-1,))
        i = _extreme_index(xp, np_name, flat)
        return (_result(flat[i], xp), _result(i + 1, xp))

    return run


def _cumsum(xp: Any, x: Any, dims: Any = None) -> Any:
    x = as_array(x, xp)
    if dims is not None and int(dims) > x.ndim:  # along a singleton dimension: x itself
        return xp.cumsum(x[..., None], axis=-1)[..., 0]
    ax = 0 if dims is None else axis(x, int(dims))
    if xp is np and x.dtype == object and x.size:
        # (numpy's + would make a Rational a bare Fraction, or not know a struct's)
        rt = current.runtime()
        plus = rt.lookup("+")
        add = np.frompyfunc(lambda a, b: rt.interp.call_value(plus, [a, b]), 2, 1)
        return copy_tag(x, add.accumulate(x, axis=ax, dtype=object))
    return xp.cumsum(x, axis=ax)


def _reverse(xp: Any, x: Any) -> Any:
    if isinstance(x, tuple):
        return tuple(reversed(x))
    if isinstance(x, str):
        return x[::-1]
    x = as_array(x, xp)
    return xp.flip(x) if x.ndim else x  # every dimension, as Julia's `dims = :`


def _reverse_dims(xp: Any, x: Any, dims: Any) -> Any:
    """`reverse(A; dims)`: A reversed along the given dimension(s)."""
    x = as_array(x, xp)
    ds = _dims_arg(dims)
    nd = max(x.ndim, 1)
    for d in ds:
        if not 1 <= d <= nd:
            raise ZylaError("ArgumentError", f"dimension {d} is not 1 ≤ {d} ≤ {nd}")
    return xp.flip(x, axis=tuple(axis(x, d) for d in ds)) if x.ndim else x


# --- concatenation ------------------------------------------------------------------------


def _as2(xp: Any, a: Any) -> Any:
    """A value as a Julia matrix (numpy 2-d, reversed)."""
    a = as_array(a, xp)
    if not is_array(a):
        return xp.reshape(xp.asarray(a), (1, 1))
    if a.ndim == 1:
        return xp.reshape(a, (1, a.shape[0]))
    return a


def _common_dtype(items: list) -> np.dtype:
    """The element type of a literal's items: their promoted type; Irrationals as the
    float type of the others (`[π, 1f0]` is a Vector{Float32}), Float64 beside integers
    or another Irrational, an object array (Vector{Irrational{:π}}) when all are one."""
    d = None
    irrationals = set()
    for x in items:
        if isinstance(x, tuple):  # `[(X, Y)]`: tuples are elements, not arrays
            return N.OBJ
        if type(x) is V.Irrational:
            irrationals.add(x.sym)
            continue
        dx = N.dtype_of(as_array(x))
        d = dx if d is None else N.promote(d, dx)
    if irrationals:
        if d is None:
            return N.OBJ if len(irrationals) == 1 else N.F64
        return d if d.kind == "f" else N.F64 if d.kind in "iub" else N.OBJ
    return d if d is not None else N.F64



def _vcat(xp: Any, *items: Any) -> Any:
    if not items:
        return xp.zeros((0,))
    items = promote_literal(items)  # [1.0 + im; 2]: the numbers in a common Complex type
    d = _common_dtype(list(items))
    arrs = [_tuple_cell(x, 1) if isinstance(x, tuple) else as_array(x, xp) for x in items]
    if all((not is_array(a)) or a.ndim == 1 for a in arrs):
        parts = [xp.reshape(xp.asarray(a, dtype=d), (-1,)) for a in arrs]
        return xp.concatenate(parts)
    mats = [xp.asarray(_as2_col(xp, a), dtype=d) for a in arrs]
    try:
        return xp.concatenate(mats, axis=mats[0].ndim - 1)
    except ValueError:
        raise dim_mismatch("number of columns of each array must match") from None


def _tuple_cell(t: tuple, ndim: int) -> np.ndarray:
    """A tuple in `[a b; c d]` or `[a; b]` is one element (Julia concatenates arrays, not
    tuples): a one-element object array of the rank concatenation wants."""
    out = np.empty((1,) * ndim, dtype=object)
    out[(0,) * ndim] = t
    return out


def _as2_col(xp: Any, a: Any) -> Any:
    if not is_array(a):
        return xp.reshape(xp.asarray(a), (1, 1))
    if a.ndim == 1:
        return xp.reshape(a, (1, a.shape[0]))
    return a


def _hcat(xp: Any, *items: Any) -> Any:
    if not items:
        return xp.zeros((0,))
    items = promote_literal(items)
    d = _common_dtype(list(items))
    mats = []
    for a in items:
        a = _tuple_cell(a, 2) if isinstance(a, tuple) else as_array(a, xp)
        if not is_array(a):
            mats.append(xp.reshape(xp.asarray(a, dtype=d), (1, 1)))
        elif a.ndim == 1:
            mats.append(xp.reshape(xp.asarray(a, dtype=d), (1, a.shape[0])))
        else:
            mats.append(xp.asarray(a, dtype=d))
    try:
        return xp.concatenate(mats, axis=0)
    except ValueError:
        raise dim_mismatch("number of rows of each array must match") from None


def _hvcat(xp: Any, rows: tuple, *items: Any) -> Any:
    if (xp is np and items and len(set(rows)) == 1
            and not any(is_array(x) or isinstance(x, (tuple, V.Range)) for x in items)):
        items = promote_literal(items)
        if _common_dtype(list(items)) == N.OBJ:
            # scalars without a common number type (`[1 "two"; 3im 4.0]`): each element
            # as it is (Julia's fallback hvcat), not promoted row by row
            out = np.empty((rows[0], len(rows)), dtype=object)
            for k, x in enumerate(items):
                out[k % rows[0], k // rows[0]] = x
            return tag(out, common_type(items, typeof))
    out_rows = []
    k = 0
    for n in rows:
        out_rows.append(_hcat(xp, *items[k:k + n]))
        k += n
    if len(out_rows) == 1:
        return out_rows[0]
    return _vcat(xp, *out_rows)


def _promote_pairs(items: tuple) -> tuple:
    """An array literal's Pairs of different types, each converted to their promoted type
    (`[1 => 2.0, 1.0 => 2]` is a Vector{Pair{Float64, Float64}}: Julia's vect promotes
    its elements, and promote_type of two Pair types promotes the parts)."""
    first = items[0].type
    if first.family.name != "Pair" or len(first.params) != 2 or not all(
            type(x) is V.StructValue and x.type.family is first.family
            and len(x.type.params) == 2 for x in items) or all(x.type == first for x in items):
        return items
    rt = current.runtime()
    promote, conv = rt.lookup("promote_type"), rt.lookup("convert")

    def joined(i: int) -> Any:
        t = items[0].type.params[i]
        for x in items[1:]:
            t = rt.interp.call_value(promote, [t, x.type.params[i]])
        return t

    kt, vt = joined(0), joined(1)

    def to(t: Any, v: Any) -> Any:
        return v if t is V.AnyT or typeof(v) == t else rt.interp.call_value(conv, [t, v])

    pt = V.apply_type(first.family, (kt, vt))
    return tuple(V.StructValue(pt, [to(kt, x.fields[0]), to(vt, x.fields[1])]) for x in items)


def _vect(xp: Any, *items: Any) -> Any:
    if not items:
        return np.zeros((0,), dtype=object) if xp is np else xp.zeros((0,))
    items = _promote_irrationals(promote_literal(items))
    if type(items[0]) is V.StructValue:
        items = _promote_pairs(items)
    d = _common_dtype(list(items))
    if d == N.OBJ or any(is_array(x) or isinstance(x, tuple) for x in items):
        promoted = _promote_tuples(xp, items)
        t = promoted[1] if promoted is not None else _literal_type(items)
        items = promoted[0] if promoted is not None else items
        out = np.empty(len(items), dtype=object)
        for i, x in enumerate(items):
            out[i] = x
        return tag(out, t)  # `["a", "b"]` is a Vector{String}
    if xp is np:
        return np.array(items, dtype=d)
    return xp.stack([xp.asarray(x, dtype=d) for x in items])


def _promote_irrationals(items: tuple) -> tuple:
    """A vector literal's Irrationals as the float type the other items promote them to
    (`[1.5, 7, ℯ, 4//5]` holds ℯ as a Float64, `[π, 1f0]` as a Float32); unchanged when
    all are one Irrational (a Vector{Irrational{:π}}) or there are none."""
    irrationals = {x.sym for x in items if type(x) is V.Irrational}
    if not irrationals or len(irrationals) == 1 and all(type(x) is V.Irrational for x in items):
        return items
    others = [x for x in items if type(x) is not V.Irrational]
    if not all(V.issubtype(typeof(x), V.RealT) for x in others):
        return items  # (`[π, "a"]` is an Any[π, "a"])
    d = _common_dtype(others) if others else N.F64
    return tuple(irrational_as(x, d) for x in items)


def _promote_tuples(xp: Any, items: tuple) -> tuple[tuple, V.JType] | None:
    """A vector literal of tuples of one length but of several types, promoted as Julia's
    vect does: each position as a literal of its own (`[(1, 2.0), (1, 2)]` holds (1, 2.0)
    and (1, 2.0), a Vector{Tuple{Int64, Float64}}), with the element type of the promoted
    positions; None for other items."""
    if xp is not np or not all(type(x) is tuple for x in items):
        return None
    n = len(items[0])
    if n == 0 or any(len(x) != n for x in items) or common_type(items, typeof) is not None:
        return None
    columns = [_vect(np, *(x[k] for x in items)) for k in range(n)]
    types = tuple(_eltype(np, c) for c in columns)
    rows = tuple(tuple(N.host_scalar(c[i]) if c.dtype != object else c[i] for c in columns)
                 for i in range(len(items)))
    return rows, V.apply_type(V.TupleT, types)


def _literal_type(items: Any) -> V.JType | None:
    """The element type of a vector literal of host values: their one type; where types
    differ, none a tuple or an array and at most one a number, their promote_type, which
    is then Base's promote_typejoin (`[1, nothing]` is a Vector{Union{Nothing, Int64}},
    `["a", SubString("ab", 1, 1)]` a Vector{AbstractString}); else None (Any: numbers of
    several types would promote to one, which is not done here)."""
    t = common_type(items, typeof)
    if t is not None or any(is_array(x) or isinstance(x, tuple) for x in items):
        return t
    return _promoted_join(list(dict.fromkeys(typeof(x) for x in items)))


def _promoted_join(types: list) -> V.JType | None:
    """Base's promote_type of several distinct types, none an array or tuple type, where
    it is their promote_typejoin: at most one of them a number type (String and
    SubString{String} join to AbstractString; Int64 and Nothing to Union{Nothing, Int64});
    else None (numbers of several types would promote to one, which is not done here)."""
    if sum(1 for u in types if V.issubtype(u, V.NumberT)) > 1:
        return None
    return promote_typejoin(types)


def _typed_vect(xp: Any, t: V.JType, *items: Any) -> Any:
    d = V.JTYPE_TO_DTYPE.get(t, N.OBJ)
    for x in items:
        if d != N.OBJ and (isinstance(x, V.Range) or (is_array(x) and np.ndim(x) > 0)):
            # `UInt8[1:3]` is a vector of one range, which is not a UInt8 (`[1:3; 4]` is
            # the concatenation)
            raise cannot_convert(x, t)
    if d == N.OBJ:
        if items and isinstance(t, V.JType) and V.issubtype(t, V.NumberT):
            # Int128[1, 2], ComplexF64[1, 2.5], BigFloat[1, 2.5] hold values of that type:
            # each one that is not converted, by the runtime's convert
            rt = current.runtime()
            conv = rt.lookup("convert")
            items = tuple(x if V.issubtype(typeof(x), t) else rt.interp.call_value(conv, [t, x])
                          for x in items)
        elif items and t in strings.TEXT_CONVERTS:  # String[s] holds s as a String
            items = tuple(map(strings.TEXT_CONVERTS[t], items))
        out = np.empty(len(items), dtype=object)
        for i, x in enumerate(items):
            out[i] = x
        return tag(out, t if isinstance(t, V.JType) else None)
    if xp is np:
        return np.array(items, dtype=d) if items else np.zeros(0, dtype=d)
    if not items:
        return xp.zeros((0,), dtype=d)
    return xp.stack([xp.asarray(x, dtype=d) for x in items])


# --- indexing --------------------------------------------------------------------------------


def bounds_error(x: Any, idx: tuple) -> ZylaError:
    s = jl_size(x)
    desc = (f"{'×'.join(map(str, s))} {V.type_name(typeof(x))}" if len(s) != 1
            else f"{s[0]}-element {V.type_name(typeof(x))}")
    shown = ", ".join(_show_index(i) for i in idx)
    return ZylaError("BoundsError", f"attempt to access {desc} at index [{shown}]",
                     fields={"a": x, "i": tuple(idx)})  # (`catch e`: e.a, e.i, as Julia's)


def _show_index(i: Any) -> str:
    if isinstance(i, V.Range):
        return f"{i.start}:{i.last}"
    if i is COLON:
        return ":"
    if isinstance(i, np.ndarray):
        return jl_show(i)  # (`Bool[1, 0, 1, 0]`, not numpy's form)
    return str(i)


def to_np_index(xp: Any, i: Any, n: int, x: Any, idx: tuple) -> Any:
    """A Julia index along a dimension of length n as a numpy index (0-based)."""
    if i is COLON:
        return slice(None)
    if isinstance(i, bool):
        raise ZylaError("ArgumentError", "invalid index: true of type Bool")
    if isinstance(i, (int, np.integer)):
        if not (1 <= i <= n):  # static indices are checked in both tiers
            raise bounds_error(x, idx)
        return int(i) - 1
    if isinstance(i, V.Range):
        if i.length == 0:
            return slice(0, 0)
        first, last = i.start, i.last
        if isinstance(first, (int, np.integer)) and isinstance(i.length, (int, np.integer)) and (
                min(first, last) < 1 or max(first, last) > n):
            raise bounds_error(x, idx)
        stop = last - 1 + (1 if i.step > 0 else -1)
        return slice(first - 1, None if stop < 0 else stop, i.step)
    if isinstance(i, np.ndarray) or hasattr(i, "dtype"):
        arr = i
        if N.dtype_of(arr) == N.BOOL:
            if arr.size != n and (arr.ndim == 1 or xp is np):
                # a mask must be as long as its dimension (`(1:5)[[true, false]]` is a
                # BoundsError, not the first two)
                raise bounds_error(x, idx)
            # positions, not 0/1 (a mask beside another index array is not 0s and 1s)
            return np.flatnonzero(arr) if xp is np else arr
        if N.dtype_of(arr) == N.OBJ:
            arr = _integer_positions(arr)
        if xp is np and arr.size and (arr.min() < 1 or arr.max() > n):
            raise bounds_error(x, idx)
        return arr - 1
    raise ZylaError("ArgumentError", f"invalid index: {i!r}")


def _integer_positions(arr: np.ndarray) -> np.ndarray:
    """An index array of element type Any (or another abstract type) as Int64 positions
    (`v[Any[1, 2]]`); an error for elements that are not integers: Julia's for values
    that are not indices, and a refusal for CartesianIndex elements (which Julia takes)."""
    items = list(arr.reshape(-1))
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           for v in items):
        return np.array(items, dtype=np.int64).reshape(arr.shape)
    if items and all(is_cartesian_index(v) for v in items):
        raise ZylaError("ErrorException", "indexing with an array of CartesianIndex is not "
                        "supported; index with the integer positions of each dimension")
    bad = next(v for v in items if not isinstance(v, (int, np.integer))
               or isinstance(v, (bool, np.bool_)))
    raise ZylaError("ArgumentError", f"invalid index: {jl_show(bad)} of type "
                    f"{V.type_name(typeof(bad))}")


def is_cartesian_index(v: Any) -> bool:
    return isinstance(v, V.StructValue) and v.type.name == "CartesianIndex"


def getindex(xp: Any, x: Any, *idx: Any) -> Any:
    if any(is_cartesian_index(i) for i in idx):  # A[CartesianIndex(i, j)] == A[i, j]
        idx = tuple(k for i in idx for k in (i.fields[0] if is_cartesian_index(i) else (i,)))
    if is_cartesian_index(x):
        x = x.fields[0]
    if (isinstance(x, tuple) and xp is not np and len(idx) == 1 and x
            and hasattr(idx[0], "aval")):
        return _traced_tuple_index(xp, x, idx[0])
    if isinstance(x, (tuple, str)) or isinstance(x, V.NamedTuple):
        return _getindex_seq(x, idx)
    if isinstance(x, dict):
        return x[idx[0] if len(idx) == 1 else tuple(idx)]  # d[a, b] is d[(a, b)]
    if isinstance(x, V.StructValue) and x.type.name == "Pair" and len(idx) == 1:
        i = idx[0]
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 1 <= i <= 2:
            raise ZylaError("BoundsError", f"attempt to access Pair at index [{jl_show(i)}]")
        return x.fields[int(i) - 1]  # p[1] is p.first, p[2] is p.second
    if isinstance(x, V.Range):
        if len(idx) == 1 and xp is not np and getattr(idx[0], "ndim", None) == 0 and hasattr(
                idx[0], "aval"):  # a traced index (unchecked, as for arrays): r[i]
            return x.at(idx[0] - 1, xp)
        if len(idx) == 1 and isinstance(idx[0], (int, np.integer)) and not isinstance(idx[0], bool):
            i = idx[0]
            if not 1 <= i <= x.length:
                raise bounds_error(x, idx)
            return x[i - 1]
        if len(idx) == 1 and isinstance(idx[0], V.Range):
            r = idx[0]
            if r.length > 0 and not (1 <= r.start <= x.length and 1 <= r.last <= x.length):
                raise bounds_error(x, idx)
            return x.sub(r.start - 1, r.step, r.length)
        x = as_array(x, xp)
    if not hasattr(x, "shape"):
        if idx == () or idx == (1,):
            return x
        raise ZylaError("BoundsError", f"attempt to access a scalar at index {list(idx)}")
    if xp is not np and type(x) is np.ndarray and any(hasattr(i, "aval") for i in idx):
        x = xp.asarray(x)  # a constant of the trace indexed by a traced index
    if len(idx) == 1 and x.ndim != 1:
        flat = xp.reshape(x, (-1,))
        out = flat[to_np_index(xp, idx[0], flat.shape[0], x, idx)]
        return _result(out, xp)
    nd = x.ndim
    if len(idx) < nd:
        # trailing dimensions are collapsed (Julia's partial linear indexing)
        shape = list(jl_size(x)[: len(idx) - 1]) + [int(np.prod(jl_size(x)[len(idx) - 1:]))]
        x = xp.reshape(x, tuple(reversed(shape)))
        nd = x.ndim
    sizes = jl_size(x)
    npi = []
    for d, i in enumerate(idx):
        n = sizes[d] if d < nd else 1
        if d >= nd:
            if i not in (1, COLON):
                raise bounds_error(x, idx)
            continue
        npi.append(to_np_index(xp, i, n, x, idx))
    npi.reverse()
    arrays = [k for k, j in enumerate(npi) if not isinstance(j, (slice, int))]
    if len(arrays) <= 1:
        out = x[tuple(npi)]
        if (xp is np and isinstance(out, np.ndarray) and out.base is not None
                and not all(type(j) is int for j in npi)):
            out = out.copy()  # Julia's slicing copies (`view` aliases); an element is itself
    else:
        out = x
        for k in reversed(range(len(npi))):
            j = npi[k]
            if isinstance(j, slice):
                out = out[(slice(None),) * k + (j,)]
            else:
                out = xp.take(out, j, axis=k)
    return _result(out, xp)


def _traced_tuple_index(xp: Any, x: tuple, i: Any) -> Any:
    """`t[i]` with a run-time index, compiled: the elements stacked (they must share a
    type and shape, or the element's type would depend on i) and indexed; the compile
    tier checks i against the tuple's length first (check_indices)."""
    elems = [xp.asarray(e) for e in x]
    kinds = {(e.dtype, e.shape) for e in elems}
    host_types = {type(e) for e in x if not hasattr(e, "aval")}
    if len(kinds) != 1 or len(host_types) > 1 or any(
            not hasattr(e, "dtype") and not isinstance(e, (int, float)) for e in x):
        raise OffloadError("indexing a tuple of elements of different types with a run-time "
                           "index runs on the host")
    return xp.stack(elems)[i - 1]


def _seq_kind(x: Any) -> str:
    return f"{len(x)}-element Tuple" if isinstance(x, tuple) else "String"


def _getindex_seq(x: Any, idx: tuple) -> Any:
    if isinstance(x, str):  # (byte indices, as Julia's)
        return strings.getindex(x, idx)
    if len(idx) != 1:
        if isinstance(x, tuple):  # (1, 2)[1, 1], (1,)[]: no such method, as in Julia
            types = "".join(", ::" + V.type_name(typeof(i)) for i in idx)
            raise ZylaError("MethodError",
                            f"no method matching getindex(::{V.type_name(typeof(x))}{types})")
        raise ZylaError("BoundsError", f"attempt to access {type(x).__name__} at index {list(idx)}")
    i = idx[0]
    if i is COLON and isinstance(x, (tuple, str)):
        return x
    if isinstance(i, np.ndarray) and i.size == 0 and i.ndim == 1:
        i = V.Range(1, 1, 0, True)  # t[[]] is empty
    if isinstance(x, V.NamedTuple):
        if isinstance(i, V.Symbol):
            return x.get(i.name)
        return _getindex_seq(x.values, idx)
    if isinstance(i, V.Range) or (isinstance(i, np.ndarray) and i.ndim == 1
                                  and i.dtype.kind in "iub"):
        mask = isinstance(i, np.ndarray) and i.dtype.kind == "b"
        ks = [k + 1 for k in np.flatnonzero(i)] if mask else list(i)
        if mask and len(i) != len(x):
            raise ZylaError("BoundsError", f"attempt to access {_seq_kind(x)} at index "
                            f"[{jl_show(i)}]")
        if any(not 1 <= int(k) <= len(x) for k in ks):  # (1,)[0:1] is an error, not a wrap
            raise ZylaError("BoundsError", f"attempt to access {_seq_kind(x)} at index "
                            f"[{jl_show(i)}]")
        items = [x[int(k) - 1] for k in ks]
        return tuple(items) if isinstance(x, tuple) else "".join(items)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise ZylaError("ArgumentError", f"invalid index {i!r}")
    if not 1 <= i <= len(x):
        raise ZylaError("BoundsError", f"attempt to access {_seq_kind(x)} at index [{i}]",
                        fields={"a": x, "i": i})  # (BoundsError((1, 2), 5): the index alone)
    v = x[i - 1]
    return V.Char(v) if isinstance(x, str) else v


def setindex(x: Any, v: Any, *idx: Any) -> Any:
    """Host `setindex!` (in place): x[idx...] = v."""
    if (type(x) is np.ndarray and x.dtype is N.OBJ and len(idx) == 1
            and type(idx[0]) is int and x.ndim == 1 and x.flags.writeable):
        return _store_one(x, v, idx[0])
    if not isinstance(x, dict) and any(is_cartesian_index(i) for i in idx):
        idx = tuple(k for i in idx for k in (i.fields[0] if is_cartesian_index(i) else (i,)))
    if isinstance(x, dict):
        x[idx[0] if len(idx) == 1 else tuple(idx)] = v
        return x
    if not isinstance(x, np.ndarray):
        raise _not_writable(x)
    check_scalar_fill(v, idx)
    _store(x, idx, v)
    return x


def _store_one(x: np.ndarray, v: Any, i: int) -> np.ndarray:
    """`x[i] = v` into the writable object vector x by one Int i, as `_store` does it (v,
    an array too, is one value, converted to x's element type), without its general
    indexing: a String into a Vector{String} or a struct into a vector of structs is
    a common store."""
    if not 1 <= i <= x.shape[0]:
        raise bounds_error(x, (i,))
    V.note_write(x)
    x[i - 1] = converted_elem(x, v)
    return x


def _not_writable(x: Any) -> ZylaError:
    """The error of writing elements into x, which is not an Array: Julia's for a range
    (an AbstractArray without setindex!) and for other values."""
    name = V.type_name(typeof(x))
    if isinstance(x, V.Range):
        return ZylaError("CanonicalIndexError", f"setindex! not defined for {name}")
    return ZylaError("MethodError", f"no method matching setindex!(::{name}, ...)")


def check_scalar_fill(v: Any, idx: tuple) -> None:
    """`A[1:5] = 0` is Julia's ArgumentError (one value into many places is `A[1:5] .= 0`)."""
    if is_array(v) or isinstance(v, V.Range):
        return
    for i in idx:
        if i is COLON or isinstance(i, V.Range) or getattr(i, "ndim", 0) > 0:
            raise ZylaError("ArgumentError", "indexed assignment with a single value to "
                            "possibly many locations is not supported; perhaps use "
                            "broadcasting `.=` instead?")


#: why a read-only host array may not be written (the message and the kind of error), by
#: identity (with a weak reference that tells a live entry from a stale one)
_READONLY_WHY: dict[int, tuple[Any, str, str]] = {}


def make_readonly(a: np.ndarray, why: str, kind: str = "ErrorException") -> np.ndarray:
    """a, marked read-only: a write into it (or a view of it) raises `why` (an error of
    `kind`)."""
    a.flags.writeable = False
    key = id(a)
    _READONLY_WHY[key] = (weakref.ref(a, lambda _r: _READONLY_WHY.pop(key, None)), why, kind)
    return a


def check_writable(x: np.ndarray) -> None:
    """A host array a write may go into: not the read-only copy that a view by index
    arrays is (view_host), whose writes would never reach its parent, nor a reshaped
    range (make_readonly)."""
    if x.flags.writeable:
        return
    a: Any = x
    while isinstance(a, np.ndarray):
        rec = _READONLY_WHY.get(id(a))
        if rec is not None and rec[0]() is a:
            raise ZylaError(rec[2], rec[1])
        a = a.base
    raise ZylaError("ErrorException", "writing into a view whose indices are not all "
                    "colons, ranges or integers is not supported (the view is a copy); "
                    "write into the parent array instead")


def _linear_write(x: np.ndarray, tgt: Any, v: Any) -> None:
    """`x[i] = v` by linear indices i (numpy's tgt) into a multidimensional x; a strided x
    (a view) does not reshape to a view of itself, so its places are written by position."""
    if x.flags.c_contiguous:
        x.reshape(-1)[tgt] = v
        return
    pos = np.arange(x.size).reshape(-1)[tgt]
    x[np.unravel_index(pos, x.shape)] = v


def _store(x: np.ndarray, idx: tuple, v: Any) -> None:
    check_writable(x)
    V.note_write(x)
    tgt = _index_tuple(x, idx)
    if x.dtype != object:
        if is_array(v):
            _check_places(x, idx, tgt, v)
        if N.dtype_of(v) != x.dtype:
            v = _convert_elem(v, x.dtype)
    elif all(isinstance(i, (int, np.integer)) for i in idx):
        v = converted_elem(x, v)  # (one place: an array stored there is one value)
    else:
        if is_array(v):
            _check_places(x, idx, tgt, v)
        v = _store_converted(x, v)
    try:
        if len(idx) == 1 and x.ndim != 1:
            _linear_write(x, tgt, v)
        else:
            x[tgt] = v
    except ValueError as e:
        # Julia's setindex_shape_check: the sizes agree up to dimensions of length 1
        sub = x[tgt] if not (len(idx) == 1 and x.ndim != 1) else None
        va = np.asarray(v)
        if (x.dtype != object and isinstance(sub, np.ndarray) and is_array(v)
                and va.size == sub.size
                and [d for d in va.shape if d != 1] == [d for d in sub.shape if d != 1]):
            x[tgt] = va.reshape(sub.shape)
            return
        raise dim_mismatch(str(e)) from None


def _check_places(x: np.ndarray, idx: tuple, tgt: Any, v: Any) -> None:
    """Julia's setindex_shape_check of the array v stored into the places idx (numpy's
    tgt) of x: as many values as places, none broadcast."""
    places = np.size(x.reshape(-1)[tgt] if len(idx) == 1 and x.ndim != 1 else x[tgt])
    if np.size(v) != places:
        raise dim_mismatch(f"tried to assign {np.size(v)} elements to {places} destinations")


def _store_converted(x: np.ndarray, v: Any) -> Any:
    """v (a value, or an array of values, each stored into a place) as stored into the
    object array x: each value as `converted_elem` stores it."""
    if not is_array(v):
        return converted_elem(x, v)
    elt = recorded(x)
    if elt is None or elt is V.AnyT:
        return v
    va = as_array(v)
    out = np.empty(va.shape, dtype=object)
    for k, e in enumerate(va.reshape(-1).tolist()):
        out.flat[k] = e if type(e) is V.StructValue and e.type is elt else stored_elem(elt, e)
    return out


def converted_elem(x: np.ndarray, v: Any) -> Any:
    """The one value v as stored into an element of the object array x: as it is into a
    Vector{Any} (no recorded element type), else `stored_elem` of x's recorded element
    type (a value of the Python class STORED_AS_IS has for that type, or a struct of that
    type itself, without a call)."""
    elt = recorded(x)
    if elt is None or elt is V.AnyT or (type(v) is V.StructValue and v.type is elt):
        return v
    conv = STORE_CONVERTS.get(elt)
    if conv is None:
        return stored_elem(elt, v)
    return v if type(v) is STORED_AS_IS.get(elt) else conv(v)


#: the Python class of the values that are of a type exactly, by that type (`_exact_form`)
_EXACT_CLASSES = {V.Int64T: int, V.Float64T: float, V.BoolT: bool, V.StringT: str}
#: `_exact_form` of the element types met so far, by identity (each kept with its type,
#: whose identity stays its own: hashing a type costs)
_EXACT_FORMS: dict[int, tuple[V.JType, tuple | None]] = {}
#: whether a value of a Python class has the form `_exact_form` gives, by that class
_HAS_FORM: dict[type, Callable[[Any, Any], bool]] = {
    tuple: lambda v, classes: tuple(map(type, v)) == classes,
    np.ndarray: lambda v, dtype_rank: v.dtype == dtype_rank[0] and v.ndim == dtype_rank[1],
}


def _exact_form(elt: V.JType) -> tuple | None:
    """What tells a value of the type elt without typeof (a Vector{Tuple{Int64, Int64}}
    or a Vector{Vector{Float64}} stores one quickly): (tuple, the Python classes of its
    items) for a tuple type of Int64, Float64, Bool and String items; (np.ndarray, (its
    numpy dtype, rank)) for an Array type of numbers; else None. Remembered by elt."""
    known = _EXACT_FORMS.get(id(elt))
    if known is not None:
        return known[1]
    form = None
    if elt.family is V.TupleT and elt.params:
        found = tuple(_EXACT_CLASSES.get(p) for p in elt.params)
        form = None if None in found else (tuple, found)
    elif elt.family is V.ArrayT and len(elt.params) == 2 and type(elt.params[1]) is int:
        d = V.JTYPE_TO_DTYPE.get(elt.params[0])
        form = None if d is None or d == N.OBJ else (np.ndarray, (d, elt.params[1]))
    _EXACT_FORMS[id(elt)] = (elt, form)
    return form


def stored_elem(elt: V.JType, v: Any) -> Any:
    """v as an element of an array of element type elt, as Julia's setindex!/push! store
    it (`v isa T ? v : convert(T, v)::T`): as it is if it is one, else converted to a
    text type (`push!(String[], SubString("ab", 1))` stores "a": strings.TEXT_CONVERTS) or to a
    number type of elt (`push!(Union{Float64, Missing}[], 1)` stores 1.0), else by the
    program's `convert` (`convert(::Type{Point}, x::Int)`): Julia's MethodError where
    nothing converts v (convert gives v back as it is), its TypeError where convert's
    result is not an elt."""
    form = _exact_form(elt)
    if form is not None and type(v) is form[0] and _HAS_FORM[form[0]](v, form[1]):
        return v
    tv = typeof(v)
    if tv is elt or tv == elt or V.issubtype(tv, elt):  # (==: a tuple's type is made anew)
        return v
    text = strings.TEXT_CONVERTS.get(elt)
    if text is not None:
        return text(v)
    if (N.is_scalar(v) and N.dtype_of(v) != N.OBJ) or type(v) in V.WIDE_INTS:
        for m in V.union_members(elt) or (elt,):
            if m in V.JTYPE_TO_DTYPE or m in V.WIDE_TYPES:
                return _julia_call("convert", m, v)
    out = _julia_call("convert", elt, v)
    if out is v:
        raise cannot_convert(v, elt)
    to = typeof(out)
    if to is not elt and not V.issubtype(to, elt):
        raise ZylaError("TypeError", f"in typeassert, expected {V.type_name(elt)}, got a "
                        f"value of type {V.type_name(to)}")
    return out


def inexact(d: np.dtype, value: Any) -> ZylaError:
    """Julia's InexactError for a value the element type d cannot hold: `Int64(2.5)`,
    `Bool(2)`, `trunc(UInt8, 300)` (an integer narrowed)."""
    name = V.DTYPE_TO_JTYPE[d]
    if d.kind == "b" or isinstance(value, (float, np.floating)):
        return ZylaError("InexactError", f"{name}({value})")
    return ZylaError("InexactError", f"trunc({name}, {value})")


def unfit(a: np.ndarray, d: np.dtype) -> np.ndarray:
    """Where the elements of a (numbers) are not values of the integer or Bool type d."""
    lo, hi = (0, 1) if d.kind == "b" else (np.iinfo(d).min, np.iinfo(d).max)
    with np.errstate(invalid="ignore"):
        bad = (a < lo) | (a > hi)
        if a.dtype.kind == "f":
            bad |= ~np.isfinite(a) | (a != np.round(a))
    return bad


def _convert_elem(v: Any, d: np.dtype) -> Any:
    vd = N.dtype_of(v)
    if d.kind in "iub" and vd.kind in "iubf" and vd != d and not np.can_cast(vd, d, "safe"):
        a = np.asarray(v)
        bad = unfit(a, d)
        if bad.any():
            first = a.reshape(-1)[int(np.argmax(bad.reshape(-1)))]
            raise inexact(d, float(first) if vd.kind == "f" else int(first))
    if is_array(v):
        return np.asarray(v).astype(d)
    return d.type(v)


def _index_tuple(x: np.ndarray, idx: tuple) -> Any:
    if len(idx) == 1 and x.ndim != 1:
        return to_np_index(np, idx[0], x.size, x, idx)
    sizes = jl_size(x)
    if len(idx) != x.ndim:
        raise ZylaError("BoundsError", f"wrong number of indices {len(idx)} for a {x.ndim}-d array")
    npi = [to_np_index(np, i, sizes[d], x, idx) for d, i in enumerate(idx)]
    npi.reverse()
    arrays = [j for j in npi if not isinstance(j, (slice, int))]
    if len(arrays) > 1:
        # (an index matrix `M[[1 2], [1 2]]` picks the positions it lists, as a vector)
        return np.ix_(*[np.arange(x.shape[k])[j] if isinstance(j, slice) else np.ravel(j)
                        for k, j in enumerate(npi)])
    return tuple(npi)


def _index_view(x: np.ndarray, idx: tuple) -> Any:
    return _index_tuple(x, idx)


def setindex_broadcast(x: Any, v: Any, *idx: Any) -> Any:
    """`x[idx...] .= v` on the host. With scalar indices, Julia broadcasts into the
    element when it is an array (`nested[1] .= 3` fills the inner vector); otherwise
    the indexed elements are assigned."""
    if isinstance(x, np.ndarray) and x.dtype == object and idx and all(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in idx):
        inner = getindex(np, x, *idx)
        broadcast_assign(inner, v)  # (an element that is not an Array refuses, as in Julia)
        return x
    if isinstance(x, dict):  # `d[k] .= v`: into the array the key holds
        inner = x[idx[0] if len(idx) == 1 else tuple(idx)]
        if isinstance(inner, np.ndarray):
            broadcast_assign(inner, v)
            return x
    if not isinstance(x, np.ndarray):
        raise ZylaError("MethodError", "cannot assign into this value with .=")
    check_writable(x)
    V.note_write(x)
    tgt = _index_tuple(x, idx)
    if len(idx) == 1 and x.ndim != 1:
        view = x.reshape(-1)
    else:
        view = x
    sub_shape = view[tgt].shape
    val = as_array(v)
    if is_array(val):
        val = np.asarray(val)
        try:
            val = np.broadcast_to(_pad_julia(val, len(sub_shape)), sub_shape)
        except ValueError:
            raise dim_mismatch(f"cannot broadcast array of size {jl_size(val)} into "
                               f"{tuple(reversed(sub_shape))}") from None
    if x.dtype != object:
        val = _convert_elem(val, x.dtype)
    else:
        val = _store_converted(x, val)
    if view is x:
        x[tgt] = val
    else:
        _linear_write(x, tgt, val)
    return x


def _pad_julia(a: np.ndarray, nd: int) -> np.ndarray:
    return a


def broadcast_assign(dest: Any, v: Any) -> Any:
    """`dest .= v` on the host: copy (broadcasting) v into dest in place."""
    if not isinstance(dest, np.ndarray):
        raise _not_writable(dest)
    check_writable(dest)
    V.note_write(dest)
    val = as_array(v)
    if is_array(val):
        try:
            val = np.broadcast_to(np.asarray(val), dest.shape)
        except ValueError:
            raise dim_mismatch("array could not be broadcast to match destination of size "
                               f"{jl_size(dest)}") from None
    if dest.dtype != object:
        val = _convert_elem(val, dest.dtype)
    else:
        val = _store_converted(dest, val)
    dest[...] = val
    return dest


def endof(xp: Any, x: Any, k: int, n: int) -> int:
    if n == 1 and isinstance(x, str):
        return strings.lastindex(x)
    if n == 1:
        return _length(xp, x)
    s = jl_size(x)
    return s[k - 1] if k <= len(s) else 1


def _range(xp: Any, a: Any, b: Any, c: Any = None) -> Any:
    if c is None:
        start, step, stop = a, 1, b
    else:
        start, step, stop = a, b, c
    ints = all(isinstance(v, (int, np.integer, np.bool_)) for v in (start, step, stop))
    if any(isinstance(v, V.WideInt) for v in (start, step, stop)):
        return _wide_range(start, step, stop, c is None)
    if not ints and all(N.dtype_of(v).kind == "i" for v in (start, step, stop)):
        # integer bounds only known at run time (compiled code): a range of traced length
        jnp = N.xp_for(start, step, stop)
        n = jnp.maximum(0, (jnp.asarray(stop) - start) // step + 1)
        return V.Range(start, step, n, unit=c is None)
    if ints:
        if step == 0:
            raise ZylaError("ArgumentError", "step cannot be zero")
        n = max(0, (int(stop) - int(start)) // int(step) + 1)
        d = N.promote(N.promote(N.dtype_of(start), N.dtype_of(stop)),
                      N.dtype_of(step) if c is not None else N.dtype_of(start))
        if d != N.I64:  # 0x01:0x03 is a UnitRange{UInt8}: its elements are UInt8s
            if d == N.BOOL:  # (a Bool beside an integer is promoted: `1:true` is 1:1)
                raise ZylaError("ErrorException",
                                "ranges of Bool (`false:true`) are not supported")
            return V.Range(d.type(start), d.type(step), int(n), unit=c is None)
        return V.Range(int(start), int(step), int(n), unit=c is None)
    d = _float_type(start, step, stop)
    start, step, stop = (N.cast(v, d, np) for v in (start, step, stop))
    return _float_range(d, ranges.colon(start, step, stop, d.type))


def _wide_range(start: Any, step: Any, stop: Any, unit: bool) -> V.WideRange:
    """`start:step:stop` where a bound is an Int128, UInt128 or BigInt: a range of their
    promoted integer type (the widest; of Int128 and UInt128 the unsigned; BigInt beside
    any), Julia's UnitRange{Int128}; a step range whose ends are of one type keeps its
    step's type (`big(1):2:big(9)` is a StepRange{BigInt, Int64}), else the step is of
    the promoted type too. A float bound is refused (Julia's range would be of BigFloats
    or of the float type), and so is a step range of other ends with a wider step, and a
    length that an Int does not hold (its `length` is an Int, not of the element type)."""
    vals = (start, stop) if unit else (start, step, stop)
    if not all(isinstance(v, (V.WideInt, int, np.integer)) for v in vals):
        raise ZylaError("ErrorException", "a range mixing an Int128, UInt128 or BigInt with "
                        "a non-integer is not supported")
    same_ends = type(start) is type(stop)
    if same_ends and not isinstance(start, V.WideInt):
        raise ZylaError("ErrorException", "a step range with an Int128, UInt128 or BigInt "
                        "step between narrower ends is not supported")
    wides = {type(v) for v in vals if isinstance(v, V.WideInt)}
    wide = (V.BigInt if V.BigInt in wides else V.UInt128 if V.UInt128 in wides
            else V.Int128)
    a, s, b = int(start), int(step), int(stop)
    if not unit and same_ends and type(step) is not bool:
        kept_step = step
    else:
        kept_step = wide(s)
    if s == 0:
        raise ZylaError("ArgumentError", "step cannot be zero")
    n = max(0, (b - a) // s + 1)
    if n >= 1 << 63:  # (Julia's length would be an Int128 or a BigInt: Zyla's is an Int)
        raise ZylaError("OverflowError", "ranges of more than typemax(Int) elements are "
                        "not supported")
    return V.WideRange(wide(a), kept_step, n, unit=unit)


def _known_length(n: Any) -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise ZylaError("ArgumentError", "range: the length must be an integer known before "
                        "compiled code runs")
    if n < 0:
        raise ZylaError("ArgumentError", f"length cannot be negative, got {int(n)}")
    return int(n)


def _float_type(*xs: Any) -> np.dtype:
    d = N.dtype_of(xs[0])
    for x in xs[1:]:
        d = N.promote(d, N.dtype_of(x))
    return N.float_dtype(d)


def _float_range(d: np.dtype, made: tuple) -> V.Range:
    """A float range of element type d from what lang.core.ranges returns: (start, step,
    length, exact)."""
    start, step, n, exact = made
    return V.Range(N.cast(start, d, np), N.cast(step, d, np), n, False, exact)


def _range_len(xp: Any, start: Any, step: Any, n: Any) -> Any:
    """`Core.range_len(start, step, n)`: n elements start, start + step, ... (`range(start;
    step, length)`); float ones as Julia computes them (lang.core.ranges)."""
    n = _known_length(n)
    if all(N.dtype_of(v).kind in "iub" for v in (start, step)):
        return V.Range(start, step, n, unit=False)
    d = _float_type(start, step)
    return _float_range(d, ranges.start_step_length(start, step, n, d.type))


def _range_ends(xp: Any, start: Any, stop: Any, n: Any) -> Any:
    """`Core.range_ends(start, stop, n)`: `range(start, stop; length = n)`, a float range
    with both ends exact (lang.core.ranges)."""
    n = _known_length(n)
    d = _float_type(start, stop)
    return _float_range(d, ranges.linspace(start, stop, n, d.type))


def _array_supertype(t: V.JType) -> V.JType:
    """The `AbstractArray{T, N}` above an array type (`UnitRange{Int8}`: AbstractArray{Int8,
    1}), or AbstractArray where the chain does not carry the parameters."""
    s: V.JType | None = t
    while s is not None and s.family is not V.AbstractArrayT:
        s = V.supertype(s)
    return s if s is not None and s.params else V.apply_type(V.AbstractArrayT, (V.AnyT,))


def _eltype(xp: Any, x: Any) -> Any:
    """`eltype(x)` of a collection or a collection type: an array's element type, a
    Dict's Pair{K,V}, a String's Char, a tuple's common type (typejoin)."""
    if isinstance(x, V.JType):
        t = x
        if t.family is V.ArrayT or t.family is V.AbstractArrayT:
            return t.params[0] if t.params else V.AnyT
        if t.family is V.StringT or t.family is V.AbstractStringT:
            return V.CharT
        if t.family.name in ("Dict", "AbstractDict", "IdDict"):
            pair = current.runtime().lookup("Pair")
            return V.apply_type(pair.family, t.params) if len(t.params) == 2 else pair
        if t.family is V.TupleT:
            return _join_all(t.params)
        members = V.union_members(t)
        if members and all(isinstance(m, V.JType) and m.family is V.TupleT for m in members):
            return promote_typejoin([_eltype(xp, m) for m in members])
        if t.family.name in _SET_FAMILIES:
            return t.params[0] if t.params else V.AnyT
        if t.params and V.issubtype(t, V.AbstractArrayT):
            return _array_supertype(t).params[0]  # (a range type: UnitRange{Int8}'s Int8)
        return t
    if isinstance(x, str):
        return V.CharT
    if isinstance(x, dict):
        return _eltype(xp, typeof(x))
    if isinstance(x, V.Range):
        return typeof(x.start)
    if hasattr(x, "jl_eltype"):  # the lazy iterators (lang.core.builtins_iter)
        return x.jl_eltype()
    if hasattr(x, "dtype"):
        if x.dtype == object:
            return _common_eltype(x)
        return V.DTYPE_TO_JTYPE.get(np.dtype(x.dtype), V.AnyT)
    if isinstance(x, tuple):
        return _join_all([typeof(e) for e in x])
    t = typeof(x)
    if t.family.name in _SET_FAMILIES:  # `eltype(Set([1]))` is Int64
        return _eltype(xp, t)
    return t


#: collection types whose first parameter is their element type
_SET_FAMILIES = frozenset({"Set", "AbstractSet", "BitSet"})


def _join_all(types: Any) -> Any:
    """A tuple's element type: Base's promote_typejoin of its element types (Union{} of
    none; a Vararg by its element type, a type variable by its bound)."""
    elems = []
    for t in types:
        if isinstance(t, V.JType) and t.family is V.VarargT:
            t = t.params[0] if t.params else V.AnyT
        if isinstance(t, V.TypeVar):
            t = t.ub if isinstance(t.ub, V.JType) else V.AnyT
        if t not in elems:
            elems.append(t)
    return promote_typejoin(elems) if elems else V.make_union(())


def _common_eltype(x: np.ndarray) -> Any:
    t = typeof(x)  # (an object array's recorded element type, else Any)
    return t.params[0] if t.params else V.AnyT


def _ndims(xp: Any, x: Any) -> int:
    if isinstance(x, V.Range):
        return 1
    return getattr(x, "ndim", 0)


# --- registration -------------------------------------------------------------------------------


def numeric(name: str, f: Any, pullback: str) -> None:
    prim(name, _hx(f), _jx(f), pullback, INFER_BY_LOWERING)


def _keeps_eltype(f: Any) -> Any:
    """f, whose object-array result has the element type of its array argument x (a copy,
    slice or reshape of `["a", "b"]` is a Vector{String} too)."""
    def run(xp: Any, x: Any, *rest: Any) -> Any:
        return copy_tag(x, f(xp, x, *rest))
    return run


def _slice_keeps_eltype(f: Any) -> Any:
    """getindex f, whose result has the element type of x when it is a slice; an element
    (every index a number or CartesianIndex) is itself, an array of its own type."""
    def run(xp: Any, x: Any, *idx: Any) -> Any:
        out = f(xp, x, *idx)
        if all(isinstance(i, (int, np.integer)) or is_cartesian_index(i) for i in idx):
            return out
        return copy_tag(x, out)
    return run


def _joins_eltypes(f: Any, skip: int = 0) -> Any:
    """f, whose object-array result's element type is Julia's promote_type of the element
    types of its arguments after the first `skip` (arrays give theirs, other values their
    type): their one type, or their join (`_promoted_join`) where none is an array or
    tuple type; else Any (`vcat(String[], [SubString("ab", 1)])` is a
    Vector{AbstractString})."""
    def run(xp: Any, *args: Any) -> Any:
        out = f(xp, *args)
        if type(out) is np.ndarray and out.dtype == object:
            tag(out, _joined_eltype(args[skip:]))
        return out
    return run


def _joined_eltype(args: tuple) -> V.JType | None:
    """The element type of the concatenation of args (see `_joins_eltypes`), or None."""
    types = list(dict.fromkeys(_elt_or_type(x) for x in args))
    if len(types) <= 1:
        return types[0] if types else None
    if any(isinstance(u, V.JType) and u.family in (V.ArrayT, V.TupleT) for u in types):
        return None
    return _promoted_join(types)


def _elt_or_type(x: Any) -> Any:
    t = typeof(x)
    if type(x) is np.ndarray or isinstance(x, V.Range) or t.family is V.StepRangeT:
        return t.params[0] if t.params else V.AnyT  # (StepRangeT: a Char range too)
    return t


def _fill_tagged(xp: Any, v: Any, *dims: Any) -> Any:
    return tag(_fill(xp, v, *dims), typeof(v))  # `fill("a", 2)` is a Vector{String}


numeric("zeros", _filled(0.0), NONDIFF)
numeric("ones", _filled(1.0), NONDIFF)
numeric("fill", _fill_tagged,
        "(dz, z, v, dims...) -> (Core.fill_back(dz), map(d -> nothing, dims)...)")
numeric("similar", _similar, NONDIFF)
numeric("copy", _keeps_eltype(_copy), "(dz, z, x) -> (dz,)")
# (a tuple's cotangent is a tuple, as Zygote's: `gradient(t -> sum(collect(t)), (1, 2))`)
numeric("collect", _keeps_eltype(lambda xp, x: _collect(xp, x)),
        "(dz, z, x) -> (x isa Tuple && dz !== nothing ? Tuple(dz) : dz,)")
numeric("size", _size, NONDIFF)
numeric("length", _length, NONDIFF)
numeric("ndims", _ndims, NONDIFF)
numeric("eltype", _eltype, NONDIFF)
numeric("reshape", _keeps_eltype(_reshape),
        "(dz, z, x, dims...) -> (reshape(dz, size(x)), map(d -> nothing, dims)...)")
numeric("vec", _keeps_eltype(_vec), "(dz, z, x) -> (reshape(dz, size(x)),)")
numeric("permutedims", _keeps_eltype(_permutedims),
        "(dz, z, x, p...) -> (Core.permute_back(dz, x, p...), map(d -> nothing, p)...)")
numeric("adjoint", _blockwise(_adjoint, "adjoint"), "(dz, z, x) -> (Core.adjoint_back(dz, x),)")
numeric("transpose", _blockwise(_adjoint, "transpose"),
        "(dz, z, x) -> (Core.adjoint_back(dz, x),)")
numeric("Core.sum", _reducer("sum"),
        "(dz, z, x, dims...) -> (Core.sum_back(dz, x), map(d -> nothing, dims)...)")
numeric("Core.prod", _reducer("prod"),
        "(dz, z, x, dims...) -> (Core.prod_cot(dz, x, dims...), map(d -> nothing, dims)...)")
numeric("Core.maximum", _reducer("max", False),
        "(dz, z, x, dims...) -> (Core.extremum_back(dz, z, x), map(d -> nothing, dims)...)")
numeric("Core.minimum", _reducer("min", False),
        "(dz, z, x, dims...) -> (Core.extremum_back(dz, z, x), map(d -> nothing, dims)...)")
numeric("argmax", _argext("argmax"), NONDIFF)
numeric("argmin", _argext("argmin"), NONDIFF)
numeric("findmax", _findext("argmax"), "(dz, z, x) -> (Core.findext_back(dz, z, x),)")
numeric("findmin", _findext("argmin"), "(dz, z, x) -> (Core.findext_back(dz, z, x),)")
numeric("cumsum", _cumsum, "Core.cumsum_rule")
numeric("reverse", _keeps_eltype(_reverse), "(dz, z, x) -> (reverse(dz),)")
numeric("Core.reverse_all", _keeps_eltype(_reverse), "(dz, z, x) -> (Core.reverse_all(dz),)")
numeric("Core.reverse_dims", _keeps_eltype(_reverse_dims),
        "(dz, z, x, d) -> (Core.reverse_dims(dz, d), nothing)")
numeric("vcat", _joins_eltypes(_vcat), "(dz, z, xs...) -> Core.vcat_back(dz, xs...)")
numeric("hcat", _joins_eltypes(_hcat), "(dz, z, xs...) -> Core.hcat_back(dz, xs...)")
numeric("Core.hvcat", _joins_eltypes(_hvcat, 1),
        "(dz, z, rows, xs...) -> (nothing, Core.hvcat_back(dz, rows, xs...)...)")
numeric("Core.vect", _vect, "(dz, z, xs...) -> Core.vect_back(dz, xs...)")
numeric("Core.typed_vect", _typed_vect,
        "(dz, z, T, xs...) -> (nothing, Core.vect_back(dz, xs...)...)")
numeric("getindex", _slice_keeps_eltype(getindex),
        "(dz, z, x, i...) -> (Core.getindex_back(dz, x, i...), map(k -> nothing, i)...)")
numeric("Core.endof", endof, NONDIFF)


def _basic_index(i: Any) -> bool:
    """Whether the index i selects through a strided numpy view (a colon, a range, an
    integer), so that a view by it can share its parent's memory."""
    return i is COLON or isinstance(i, V.Range) or (
        isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)))


def view_host(x: Any, *idx: Any) -> Any:
    """`view(A, I...)` on the host: for an array and indices that are colons, ranges and
    integers, an array sharing A's memory (writes through either reach the other, as
    Julia's SubArray); for other indices a read-only copy, so that a write into it raises
    an error instead of silently missing the parent."""
    if any(is_cartesian_index(i) for i in idx):
        idx = tuple(k for i in idx for k in (i.fields[0] if is_cartesian_index(i) else (i,)))
    if isinstance(x, V.StructValue) and idx and V.issubtype(x.type, V.AbstractArrayT):
        return _struct_view(x, idx)
    if not isinstance(x, np.ndarray) or not idx:
        return getindex(np, x, *idx)
    if not all(_basic_index(i) for i in idx):
        out = getindex(np, x, *idx)
        if isinstance(out, np.ndarray):
            out = copy_tag(x, np.array(out))
            out.flags.writeable = False
        return out
    src = x
    if len(idx) == 1 and x.ndim != 1:
        src = x.reshape(-1)
    elif len(idx) < x.ndim:  # trailing dimensions collapsed (partial linear indexing)
        lead = jl_size(x)[: len(idx) - 1]
        src = x.reshape(tuple(reversed((*lead, int(np.prod(jl_size(x)[len(idx) - 1:]))))))
    elif len(idx) > x.ndim:  # trailing indices of a size-1 dimension
        src = x.reshape((1,) * (len(idx) - x.ndim) + x.shape)
    sizes = jl_size(src)
    npi = [to_np_index(np, i, sizes[d], x, idx) for d, i in enumerate(idx)]
    npi.reverse()
    out = src[(Ellipsis, *npi)]  # (all integers: a 0-dimensional view, not an element)
    if out.size and not np.may_share_memory(out, x):  # (a strided array's reshape copies)
        out = np.array(out)
        out.flags.writeable = False
    return note_view(copy_tag(x, out))


def _struct_view(x: V.StructValue, idx: tuple) -> Any:
    """`view(A, I...)` of an AbstractArray struct (a Diagonal): A's own getindex at I, a
    read-only copy where that is an array, so that a write into it raises an error instead
    of silently missing A (as a view by index arrays is)."""
    rt = current.runtime()
    out = rt.interp.call_value(rt.lookup("getindex"), [x, *idx])
    if isinstance(out, np.ndarray):
        out = make_readonly(np.array(out), "a view of a structured array (a Diagonal) is a "
                            "read-only copy of its elements here: write into the array itself")
    return out


prim("Core.view", view_host, HostOnly("a view shares its parent's memory, which XLA "
                                      "arrays cannot; it runs on the host"),
     "(dz, z, x, i...) -> (Core.getindex_back(dz, x, i...), map(k -> nothing, i)...)")


def _sort_dims(x: Any, d: Any, rev: Any) -> Any:
    """`sort(A; dims=d, rev)`: each slice along dimension d sorted (numbers; NaN last, as
    isless orders them)."""
    x = np.asarray(as_array(x))
    d = int(d)
    if not 1 <= d <= max(x.ndim, 1) or x.dtype == object:
        raise ZylaError("ArgumentError", f"sort(A; dims={d}) sorts numbers along one of the "
                        f"{x.ndim} dimensions of A")
    out = np.sort(x, axis=axis(x, d), kind="stable")
    return np.flip(out, axis=axis(x, d)) if rev else out


prim("Core.sort_dims", _sort_dims, HostOnly("sorting along dims runs on the host"), NONDIFF,
     INFER_BY_LOWERING)
# first/last of a range are its ends even when it is empty (`first(2:1) == 2`,
# `last(2:1) == 1`), as Base reads them from the range's fields
numeric("Core.range_first", lambda xp, r: r[0], NONDIFF)
numeric("Core.range_last", lambda xp, r: r.last, NONDIFF)
numeric("Core.range_step", lambda xp, r: r.step, NONDIFF)
numeric(":", _range, NONDIFF)
numeric("Core.range_len", _range_len, NONDIFF)
numeric("Core.range_ends", _range_ends, NONDIFF)
numeric("Core.unbroadcast", lambda xp, x, dx: _unbroadcast(xp, x, dx),
        "(dz, z, x, dx) -> (nothing, Core.broadcast_to(dz, dx))")


def _unbroadcast(xp: Any, x: Any, dx: Any) -> Any:
    return unbroadcast(xp, x, dx)


def _is_one_value(x: Any) -> bool:
    """A host number or Char: Base iterates it as a collection of itself, of no
    dimensions (`collect(3)` is a 0-dimensional array)."""
    if type(x) is V.StructValue:
        return V.issubtype(x.type, V.NumberT)
    return type(x) is V.Char or type(x) in V.WIDE_INTS or type(x) in V.RATIONALS or (
        N.is_scalar(x) and not isinstance(x, np.ndarray))


def _collect(xp: Any, x: Any) -> Any:
    if getattr(x, "infinite", False) is True:  # Julia's collect has no IsInfinite method
        raise ZylaError("MethodError", "no method matching collect(::"
                        f"{V.type_name(typeof(x))}): the iterator is infinite",
                        hint="take a finite part first, e.g. collect(Iterators.take(itr, n))")
    if isinstance(x, V.Range):
        return as_array(x, xp)
    if isinstance(x, tuple):
        return _vect(xp, *x)
    if xp is np and _is_one_value(x):
        return collect_results([x], ())  # a number or a Char: a 0-dimensional array
    if isinstance(x, str):
        out = np.empty(len(x), dtype=object)
        for i, ch in enumerate(x):
            out[i] = V.Char(ch)
        return out
    if xp is np and isinstance(x, np.ndarray):
        return x.copy()
    if isinstance(x, dict) or isinstance(getattr(x, "items", None), list) or hasattr(
            x, "jl_iter") or (xp is np and isinstance(x, V.StructValue)):
        # (a struct: its own iterate methods; one without them is a MethodError)
        vals = list(current.runtime().iterate(x))
        own = SIZES.get(type(x))
        if own is not None and type(getattr(x, "size", None)) is int and x.size > 1:
            return collect_results(vals, own(x))  # a HasShape{N} iterator: its shape
        return collect_results(vals, (len(vals),))
    return x


prim("setindex!", setindex, HostOnly("array mutation is only run on the host"), NONDIFF,
     lambda *a: a[0])
prim("Core.setindex_broadcast!", setindex_broadcast,
     HostOnly("array mutation is only run on the host"),
     NONDIFF, lambda *a: a[0])
prim("Core.broadcast_assign!", broadcast_assign, HostOnly("array mutation is only run on the host"),
     NONDIFF, lambda *a: a[0])


# --- functional array writes (see lang.core.lower.Lowerer.store) ---------------------------------


def jax_index_key(xp: Any, i: Any, n: int) -> Any:
    """The JAX index of one Julia index `i` (1-based; `:` or a range) into a dimension of n."""
    if i is COLON:
        return slice(None)
    if isinstance(i, V.Range):
        stop = i.last - 1 + (1 if i.step > 0 else -1)
        return slice(i.start - 1, None if stop < 0 else stop, i.step)
    return i - 1


def _jax_key(xp: Any, x: Any, idx: tuple) -> Any:
    if len(idx) == 1 and x.ndim != 1:
        return None
    sizes = jl_size(x)
    keys = [jax_index_key(xp, i, sizes[k]) for k, i in enumerate(idx)]
    keys.reverse()
    return tuple(keys)


def _jax_store(xp: Any, x: Any, v: Any, idx: tuple, bcast: bool) -> Any:
    if not bcast:
        check_scalar_fill(v, idx)
    key = _jax_key(xp, x, idx)
    v = xp.asarray(v, dtype=x.dtype)
    if key is None:
        flat = x.reshape(-1)
        return flat.at[jax_index_key(xp, idx[0], flat.shape[0])].set(v).reshape(x.shape)
    if bcast:
        target_shape = x[key].shape
        v = xp.broadcast_to(v, target_shape)
    return x.at[key].set(v)


def setindex_fn(xp: Any, x: Any, v: Any, *idx: Any) -> Any:
    if xp is not np and any(is_cartesian_index(i) for i in idx):  # A[I] = v, I a CartesianIndex
        idx = tuple(k for i in idx for k in (i.fields[0] if is_cartesian_index(i) else (i,)))
    if xp is np:
        if type(x) is not np.ndarray and isinstance(x, dict) and len(idx) == 1:
            x[idx[0]] = v  # (a Dict's store, as setindex's: a Python call less)
            return x
        return setindex(x, v, *idx)
    return _jax_store(xp, x, v, idx, False)


def setindex_broadcast_fn(xp: Any, x: Any, v: Any, *idx: Any) -> Any:
    if xp is np:
        return setindex_broadcast(x, v, *idx)
    return _jax_store(xp, x, v, idx, True)


def broadcast_assign_fn(xp: Any, x: Any, v: Any) -> Any:
    if xp is np:
        return broadcast_assign(x, v)
    return xp.broadcast_to(xp.asarray(v, dtype=x.dtype), x.shape)


def zero_at(xp: Any, dz: Any, *idx: Any) -> Any:
    """dz with the entries at idx set to zero (the cotangent that flows to the array
    an indexed write overwrote)."""
    if dz is None:
        return None
    if xp is np:
        out = np.array(dz, copy=True)
        setindex_broadcast(out, 0.0, *idx)
        return out
    return _jax_store(xp, dz, 0.0, idx, True)


numeric("Core.setindex_fn", setindex_fn,
        "(dz, z, x, v, i...) -> (Core.zero_at(dz, i...), Core.unbroadcast(v, getindex(dz, i...)), "
        "map(k -> nothing, i)...)")
numeric("Core.setindex_broadcast_fn", setindex_broadcast_fn,
        "(dz, z, x, v, i...) -> (Core.zero_at(dz, i...), Core.unbroadcast(v, getindex(dz, i...)), "
        "map(k -> nothing, i)...)")
numeric("Core.broadcast_assign_fn", broadcast_assign_fn,
        "(dz, z, x, v) -> (nothing, Core.unbroadcast(v, dz))")
numeric("Core.zero_at", zero_at,
        "(ddz, z, dz, i...) -> (Core.zero_at(ddz, i...), map(k -> nothing, i)...)")


# writes that mutate their first argument: under AD the host copies it first, so values
# captured by earlier pullbacks are not changed behind their back
MUTATING = {"Core.setindex_fn", "Core.setindex_broadcast_fn", "Core.broadcast_assign_fn",
            "Core.push_fn", "Core.append_fn"}


def cumsum_back(xp: Any, dz: Any, dims: Any = None) -> Any:
    """The cotangent of cumsum: a reversed cumulative sum along the same dimension."""
    dz = as_array(dz, xp)
    if dims is not None and int(dims) > dz.ndim:  # along a singleton dimension
        return xp.cumsum(dz[..., None], axis=-1)[..., 0]
    ax = 0 if dims is None else axis(dz, int(dims))
    return xp.flip(xp.cumsum(xp.flip(dz, axis=ax), axis=ax), axis=ax)


def _reduced_last(xp: Any, x: Any, dims: Any) -> tuple[Any, Any]:
    """x with the reduced dimensions moved last and merged into one (all of x flattened
    without dims), and the axes they came from (for `_unreduce`)."""
    if dims is None:
        return xp.reshape(x, (-1,)), None
    axes = tuple(sorted({axis(x, d) for d in _dims_arg(dims) if d <= x.ndim}))
    keep = [a for a in range(x.ndim) if a not in axes]
    moved = xp.transpose(x, keep + list(axes))
    return xp.reshape(moved, tuple(x.shape[a] for a in keep) + (-1,)), axes


def _unreduce(xp: Any, y: Any, shape: tuple, axes: Any) -> Any:
    """The inverse of `_reduced_last` for an array y of its result's shape."""
    if axes is None:
        return xp.reshape(y, shape)
    keep = [a for a in range(len(shape)) if a not in axes]
    order = keep + list(axes)
    y = xp.reshape(y, tuple(shape[a] for a in order))
    return xp.transpose(y, tuple(int(i) for i in np.argsort(order)))


def _exclusive_products(xp: Any, xm: Any) -> tuple[Any, Any]:
    """(left, right) along the last axis: left[j] the product of xm[..., :j], right[j]
    that of xm[..., j+1:] (no division, so exact with zeros)."""
    one = xp.ones_like(xm[..., :1])
    left = xp.concatenate([one, xp.cumprod(xm, axis=-1)[..., :-1]], axis=-1)
    right = xp.flip(xp.concatenate(
        [one, xp.cumprod(xp.flip(xm, axis=-1), axis=-1)[..., :-1]], axis=-1), axis=-1)
    return left, right


def prod_back(xp: Any, dz: Any, x: Any, dims: Any = None) -> Any:
    """The cotangent of prod: dz times the product of the other elements (exact with
    zeros: products of everything left and right of each element)."""
    x = as_array(x, xp)
    xm, axes = _reduced_last(xp, x, dims)
    left, right = _exclusive_products(xp, xm)
    return dz * _unreduce(xp, left * right, x.shape, axes)


def _linear_scan(xp: Any, a: Any, b: Any) -> Any:
    """s along the last axis with s[0] = 0 and s[j+1] = a[j] * s[j] + b[j] (exclusive:
    s[j] excludes b[j])."""
    if xp is np:
        s = np.zeros_like(b)
        for j in range(b.shape[-1] - 1):
            s[..., j + 1] = a[..., j] * s[..., j] + b[..., j]
        return s
    from jax import lax

    def combine(p: Any, q: Any) -> Any:
        return p[0] * q[0], q[0] * p[1] + q[1]

    _, inc = lax.associative_scan(combine, (a, b), axis=a.ndim - 1)
    return xp.concatenate([xp.zeros_like(inc[..., :1]), inc[..., :-1]], axis=-1)


def prod_pair(xp: Any, g: Any, x: Any, dims: Any = None) -> Any:
    """A[j] = sum over i != j of g[i] times the product of x without x[i] and x[j], along
    dims (over all elements without dims): the derivative of `prod_back(dz, x, dims)` in
    x, per unit dz, applied to g (the form is symmetric, so forward and reverse agree).
    Exact with zeros: x[i] x[j] are left out by products to the left, between and to the
    right of each pair (two linear scans), never divided out."""
    x = as_array(x, xp)
    g = xp.broadcast_to(as_array(g, xp), x.shape)
    xm, axes = _reduced_last(xp, x, dims)
    gm = _reduced_last(xp, g, dims)[0]
    left, right = _exclusive_products(xp, xm)
    before = _linear_scan(xp, xm, gm * left)  # sum over i < j of g_i * prod(x_k, k < j, k != i)
    after = xp.flip(_linear_scan(xp, xp.flip(xm, axis=-1), xp.flip(gm * right, axis=-1)),
                    axis=-1)
    return _unreduce(xp, right * before + left * after, x.shape, axes)


numeric("Core.cumsum_back", cumsum_back,
        "(ddz, z, dz, d...) -> (cumsum(ddz, d...), map(q -> nothing, d)...)")
# second derivatives of prod: prod_back differentiates through prod_pair; third and higher
# derivatives are refused rather than taken as zero
numeric("Core.prod_back", prod_back,
        "(ddx, z, dz, x, d...) -> (Core.sum(ddx .* Core.prod_back(one(eltype(x)), x, d...), "
        "d...), dz .* Core.prod_pair(ddx, x, d...), map(q -> nothing, d)...)")
numeric("Core.prod_pair", prod_pair,
        "(dA, z, g, x, d...) -> (Core.prod_pair(dA, x, d...), error(\"third and higher "
        "derivatives of prod are not supported\"), map(q -> nothing, d)...)")


# Forward-mode rules (autodiff/forward.py): Zyla source `(d, z, args...) -> tangent of z`,
# d the tuple of the arguments' tangents (zeros where they have none), or a marker
# ("noforward": no rule, an AD error; "SPECIAL": the dispatcher's own).
FORWARD: dict[str, str] = {
    "fill": "(d, z, v, dims...) -> fill(d[1], dims...)",
    "copy": "(d, z, x) -> copy(d[1])",
    "collect": "(d, z, x) -> collect(d[1])",
    "reshape": "(d, z, x, dims...) -> reshape(d[1], dims...)",
    "vec": "(d, z, x) -> vec(d[1])",
    "permutedims": "(d, z, x, p...) -> permutedims(d[1], p...)",
    "adjoint": "(d, z, x) -> adjoint(d[1])",
    "transpose": "(d, z, x) -> transpose(d[1])",
    "Core.sum": "(d, z, x, dims...) -> Core.sum(d[1], dims...)",
    "Core.prod": ("(d, z, x, dims...) -> "
                  "Core.sum(Core.prod_back(one.(z), x, dims...) .* d[1], dims...)"),
    "Core.prod_back": ("(d, z, dz, x, dims...) -> Core.prod_back(d[1], x, dims...) .+ "
                       "dz .* Core.prod_pair(d[2], x, dims...)"),
    "Core.prod_pair": "noforward",
    "Core.maximum": "(d, z, x, dims...) -> Core.sum(d[1] .* (x .== z), dims...)",
    "Core.minimum": "(d, z, x, dims...) -> Core.sum(d[1] .* (x .== z), dims...)",
    "findmax": "(d, z, x) -> (d[1][z[2]], nothing)",
    "findmin": "(d, z, x) -> (d[1][z[2]], nothing)",
    "cumsum": "Core.cumsum_fwd",
    "reverse": "(d, z, x) -> reverse(d[1])",
    "Core.reverse_all": "(d, z, x) -> Core.reverse_all(d[1])",
    "Core.reverse_dims": "(d, z, x, dims) -> Core.reverse_dims(d[1], dims)",
    "vcat": "(d, z, xs...) -> vcat(d...)",
    "hcat": "(d, z, xs...) -> hcat(d...)",
    "Core.hvcat": "(d, z, rows, xs...) -> Core.hvcat(rows, Core.tail(d)...)",
    "Core.vect": "(d, z, xs...) -> Core.vect(d...)",
    "Core.typed_vect": "(d, z, T, xs...) -> Core.typed_vect(T, Core.tail(d)...)",
    "getindex": "(d, z, x, i...) -> getindex(d[1], i...)",
    "Core.unbroadcast": "(d, z, x, dx) -> Core.unbroadcast(x, d[2])",
    "Core.setindex_fn": "(d, z, x, v, i...) -> Core.setindex_fn(d[1], d[2], i...)",
    "Core.setindex_broadcast_fn": ("(d, z, x, v, i...) -> "
                                   "Core.setindex_broadcast_fn(d[1], d[2], i...)"),
    "Core.broadcast_assign_fn": "(d, z, x, v) -> Core.broadcast_assign_fn(d[1], d[2])",
    "Core.zero_at": "(d, z, dz, i...) -> Core.zero_at(d[1], i...)",
    "Core.push_fn": "(d, z, x, vs...) -> Core.push_fn(d...)",
    "Core.append_fn": "(d, z, x, ys) -> Core.append_fn(d[1], d[2])",
    "Core.cumsum_back": "(d, z, dz, r...) -> Core.cumsum_back(d[1], r...)",
}
FORWARD["Core.view"] = "(d, z, x, i...) -> getindex(d[1], i...)"


def permuted_view(x: Any, perm: Any) -> np.ndarray:
    """`PermutedDimsArray(A, perm)`: A with its dimensions permuted (result dimension i is
    A's dimension perm[i]), sharing A's memory as Julia's lazy wrapper does."""
    x = as_array(x)
    p = [int(k) for k in perm]
    n = x.ndim
    if sorted(p) != list(range(1, n + 1)):
        raise ZylaError("ArgumentError", "no valid permutation of dimensions")
    return note_view(copy_tag(x, np.transpose(x, [n - p[n - 1 - k] for k in range(n)])))


def strides_host(x: Any) -> tuple:
    """`strides(A)`: the distance in elements between neighbours along each dimension."""
    a = np.asarray(as_array(x))
    return tuple(reversed([s // a.itemsize for s in a.strides]))


prim("PermutedDimsArray", permuted_view, HostOnly("a PermutedDimsArray shares its parent's "
                                                  "memory, which XLA arrays cannot"),
     "(dz, z, x, p) -> (Core.permute_back(dz, x, p), nothing)")
FORWARD["PermutedDimsArray"] = "(d, z, x, p) -> PermutedDimsArray(d[1], p)"
prim("strides", strides_host, HostOnly("memory layout is a host property"), NONDIFF)


def collect_results(vals: list, shape: tuple[int, ...]) -> Any:
    """Results of a map/comprehension as an array of Julia size `shape`."""
    nps = tuple(reversed(shape))
    if not vals:
        return np.zeros(nps, dtype=N.F64)
    d = None
    for v in vals:
        dv = N.dtype_of(v) if not is_array(v) else N.OBJ
        # numbers of different types make an array of their typejoin (`Real[1, 0.5]`), as
        # Julia's collect does, not of their promotion
        d = dv if d is None else (d if d == dv else N.OBJ)
        if d == N.OBJ:
            break
    # (a vector is returned as made, not as a reshaped view of itself: it can grow)
    if d == N.OBJ or d is None:
        out = np.empty(len(vals), dtype=object)
        for i, v in enumerate(vals):
            out[i] = v
        return tag(out if len(nps) == 1 else out.reshape(nps), collected_type(vals, typeof))
    out = np.array(vals, dtype=d)
    return out if len(nps) == 1 else out.reshape(nps)
