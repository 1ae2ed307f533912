"""Splitting Zyla values into array leaves and a static skeleton, and back.

JAX transformations (jit, cond, scan, while_loop) take and return flat lists of arrays.
`split(v)` turns any Zyla value into `(leaves, skel)`: the numeric leaves and a hashable
skeleton holding everything static (functions, types, strings, tuple shapes, closure
bodies). `join(skel, leaves)` rebuilds the value. `unify` finds a skeleton both branches
of a conditional (or a loop's input and output) can be converted to: `nothing`/undefined
become zeros, Python numbers become arrays, different closures become a `BranchUnion`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from lang.core import numeric as N
from lang.core import values as V
from lang.core.eltypes import recorded, tag
from lang.core.functions import Closure
from lang.core.interp import Tape
from lang.core.lower import UNDEF
from lang.core.refusals import OffloadError


@dataclass(eq=False)
class StackedTape:
    """A loop tape inside XLA: per-iteration values stacked on a leading axis.
    `count` (traced or static) says how many entries are valid."""

    skel: Any
    leaves: list
    count: Any
    capacity: int


@dataclass(eq=False)
class BranchUnion:
    """A value that is one of several alternatives, chosen by `index` at run time
    (the pullback of an `if` whose branches made different closures)."""

    index: Any
    alts: list


@dataclass(eq=False)
class BatchedBack:
    """The pullback of broadcasting a general function inside XLA: the per-element
    pullbacks, vmapped, with their leaves stacked on a leading axis of `n` elements.
    `shape` is the broadcast shape, `arg_shapes` the (numpy) shapes of the arguments."""

    skel: Any
    leaves: list
    shape: tuple
    arg_shapes: tuple
    arg_dtypes: tuple


LEAF = ("leaf",)
#: an array of objects (structs, strings, arrays) enters compiled code element by element,
#: each one an input of the executable: one longer than this runs on the host instead
#: (tracing 20,000 structs took seconds, and calling the executable costs more than the
#: host's work)
MAX_OBJECT_ELEMENTS = 1024


def is_array_value(x: Any) -> bool:
    """A numeric array of a trace (traced, or a numpy constant) that a write can target."""
    if type(x) is np.ndarray:
        return x.dtype != object and x.ndim > 0
    return hasattr(x, "aval") and getattr(x, "ndim", 0) > 0


def _is_jax(x: Any) -> bool:
    return hasattr(x, "aval") or type(x).__module__.startswith("jax")


def split(v: Any, static_ints: bool = False) -> tuple[list, Any]:
    leaves: list = []
    skel = _split(v, leaves, static_ints)
    return leaves, skel


def is_adjoint_row(x: Any) -> bool:
    """x is `v'` of a vector v on the host (an AdjointVector of lang.core.primitives_array;
    numpy hands the tag to results of other shapes too, which are not rows)."""
    return getattr(x, "is_adjoint_vector", False) and np.ndim(x) == 2 and np.shape(x)[1] == 1


def object_kind(a: np.ndarray) -> str:
    """The element type of an object array as Julia names it (for messages)."""
    rec = recorded(a)
    return V.type_name(rec) if rec is not None else "Any"


def _split(v: Any, leaves: list, si: bool) -> Any:
    t = type(v)
    if t is float or t is np.float32 or t is np.float64:
        leaves.append(v)
        return ("num", np.dtype(N.dtype_of(v)).str)
    if t is int or t is bool:
        if si:
            return ("const", v)
        leaves.append(v)
        return ("num", np.dtype(N.dtype_of(v)).str)
    if isinstance(v, np.ndarray):
        if v.dtype == object:
            if v.size > MAX_OBJECT_ELEMENTS:
                raise OffloadError(f"an array of {v.size} objects ({object_kind(v)}) does not "
                                   "enter compiled code (at most "
                                   f"{MAX_OBJECT_ELEMENTS} elements)")
            # (with its recorded element type: `fill(nothing, n)` stays a Vector{Nothing})
            return ("objarr", v.shape, tuple(_split(x, leaves, si) for x in v.reshape(-1)),
                    recorded(v))
        leaves.append(v)
        if is_adjoint_row(v):
            # `v'` of a vector: a row whose product with a vector is a scalar (the compile
            # tier keeps it one in the trace; its own executable, apart from 1×n matrices)
            return ("arr", v.dtype.str, v.shape, "row")
        return ("arr", v.dtype.str, v.shape)
    if _is_jax(v):
        leaves.append(v)
        return ("arr", np.dtype(v.dtype).str, tuple(v.shape))
    if isinstance(v, np.generic):
        leaves.append(v)
        return ("num", v.dtype.str)
    if t is tuple:
        return ("tuple", tuple(_split(x, leaves, si) for x in v))
    if isinstance(v, V.NamedTuple):
        return ("nt", v.names, tuple(_split(x, leaves, si) for x in v.values))
    if isinstance(v, V.StructValue):
        if v.type.mutable:
            raise OffloadError(f"mutable struct {v.type.name} cannot enter compiled code")
        return ("struct", type_key(v.type), tuple(_split(x, leaves, si) for x in v.fields))
    if isinstance(v, Closure):
        return ("closure", _Id(v.fn), v.name, _Id(v.generic),
                tuple(_split(x, leaves, si) for x in v.captures))
    if isinstance(v, V.Range):
        # a range's Python-int bounds stay static (its length decides shapes)
        return ("range", v.unit, _split(v.start, leaves, True), _split(v.step, leaves, True),
                _split(v.length, leaves, True), v.exact)
    if isinstance(v, StackedTape):
        leaves.extend(v.leaves)
        # a static count (a loop of static trip count) stays static: the walk over the tape
        # is then a scan, which JAX can differentiate
        count = _split(v.count, leaves, type(v.count) is int)
        return ("stacked", v.skel, v.capacity, count, len(v.leaves))
    if isinstance(v, BranchUnion):
        return ("union", _split(v.index, leaves, False),
                tuple(_split(a, leaves, si) for a in v.alts))
    if isinstance(v, Tape):
        return ("tape", tuple(_split(x, leaves, si) for x in v.items))
    if isinstance(v, BatchedBack):
        leaves.extend(v.leaves)
        return ("bback", v.skel, len(v.leaves), v.shape, v.arg_shapes, v.arg_dtypes)
    if isinstance(v, V.Box):
        raise OffloadError("captured variables that are reassigned (boxes) stay on the host")
    if v is V.UNDEF_REF:
        raise OffloadError("an array with undefined elements (`#undef`) stays on the host")
    if isinstance(v, (list, dict)):
        raise OffloadError(f"a {type(v).__name__} value cannot enter compiled code")
    return ("const", _Id(v) if not _hashable(v) else v)


def _hashable(v: Any) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


class _Id:
    """Identity-hashed wrapper for static objects in a skeleton."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Id) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def type_key(t: V.JType) -> Any:
    """A struct's type as a skeleton holds it: a parametric type by its family and
    parameters (each construction of `Dense{typeof(relu), Matrix{Float32}, …}` makes a new
    but equal type object, and must find the same executable), any other by identity."""
    if not t.params:
        return _Id(t)
    try:
        hash(t)
    except TypeError:
        return _Id(t)
    return t


def _unid(x: Any) -> Any:
    return x.obj if isinstance(x, _Id) else x


def join(skel: Any, leaves: list) -> Any:
    it = iter(leaves)
    return _join(skel, it)


def _join(s: Any, it: Any) -> Any:
    k = s[0]
    if k in ("num", "arr"):
        return next(it)
    if k == "const":
        return _unid(s[1])
    if k == "tuple":
        return tuple(_join(c, it) for c in s[1])
    if k == "nt":
        return V.NamedTuple(s[1], tuple(_join(c, it) for c in s[2]))
    if k == "struct":
        return V.StructValue(_unid(s[1]), [_join(c, it) for c in s[2]])
    if k == "closure":
        return Closure(_unid(s[1]), tuple(_join(c, it) for c in s[4]), s[2], generic=_unid(s[3]))
    if k == "range":
        return V.Range(_join(s[2], it), _join(s[3], it), _join(s[4], it), s[1], s[5])
    if k == "stacked":
        # (the count was split after the leaves)
        leaves = [next(it) for _ in range(s[4])]
        count = _join(s[3], it)
        return StackedTape(s[1], leaves, count, s[2])
    if k == "union":
        idx = _join(s[1], it)
        return BranchUnion(idx, [_join(a, it) for a in s[2]])
    if k == "tape":
        return Tape([_join(c, it) for c in s[1]])
    if k == "bback":
        return BatchedBack(s[1], [next(it) for _ in range(s[2])], s[3], s[4], s[5])
    if k == "objarr":
        out = np.empty(len(s[2]), dtype=object)
        for i, c in enumerate(s[2]):
            out[i] = _join(c, it)
        return tag(out.reshape(s[1]), s[3])
    raise OffloadError(f"internal: unknown skeleton {k}")


def leaf_avals(leaves: list) -> list[tuple[tuple, np.dtype]]:
    out = []
    for x in leaves:
        out.append((tuple(np.shape(x)), np.dtype(N.dtype_of(x))
                    if not hasattr(x, "dtype") else np.dtype(x.dtype)))
    return out


# --- unification ----------------------------------------------------------------------------


#: whether `nothing` on one path and a value on another make the value's zeros (the
#: default: a statement skipped after an exit, a variable set on one path, a zero
#: cotangent) or cannot be compiled (a function's result, where Julia's value is
#: `nothing`: `findfirst` would give 0)
_NOTHING_IS_A_VALUE = [False]


@contextmanager
def _setting(flag: list, on: bool) -> Iterator[None]:
    was = flag[0]
    flag[0] = on
    try:
        yield
    finally:
        flag[0] = was


def nothing_is_a_value(on: bool) -> Any:
    """Unify skeletons where `nothing` is a value of its own (`on`) or a placeholder."""
    return _setting(_NOTHING_IS_A_VALUE, on)


#: whether values of different Julia types on two paths are refused (the result of an
#: `if` the code reads: Julia keeps each path's type, `x > 0 ? 1 : 0.5` is an Int64 or a
#: Float64) or promoted (a loop-carried variable, whose type settles after the first
#: iteration)
_TYPES_ARE_EXACT = [False]


def exact_types(on: bool) -> Any:
    """Unify skeletons refusing (`on`) or promoting numbers of different types."""
    return _setting(_TYPES_ARE_EXACT, on)


def unify(a: Any, b: Any) -> Any:
    """A skeleton that values of skeletons a and b can both be converted to."""
    if a == b:
        return a
    ka, kb = a[0], b[0]
    if ka == "const" and a[1] is UNDEF:
        return b
    if kb == "const" and b[1] is UNDEF:
        return a
    if (ka == "const" and a[1] is None) or (kb == "const" and b[1] is None):
        if not _NOTHING_IS_A_VALUE[0]:
            return b if ka == "const" and a[1] is None else a
        # (the compiled value would be the other path's zeros where Julia has `nothing`)
        raise OffloadError("a value is `nothing` on one path and "
                           f"{describe(b if ka == 'const' and a[1] is None else a)} on another")
    if ka in ("num", "arr") and kb in ("num", "arr"):
        da, db = np.dtype(a[1]), np.dtype(b[1])
        if da != db and _TYPES_ARE_EXACT[0]:
            # (one compiled type for both would change the value's type on one path)
            raise OffloadError(f"a value is {describe(a)} on one path and {describe(b)} on "
                               "another (Julia keeps each path's type)")
        d = N.promote(da, db)
        sa = () if ka == "num" else a[2]
        sb = () if kb == "num" else b[2]
        if sa != sb:
            raise OffloadError("a value changes shape between branches or loop iterations "
                               f"({sa} vs {sb})")
        return ("arr", d.str, sa)
    if ka == "const" and kb in ("num", "arr") and isinstance(a[1], (int, float, bool)):
        return unify(("num", np.dtype(N.dtype_of(a[1])).str), b)
    if kb == "const" and ka in ("num", "arr") and isinstance(b[1], (int, float, bool)):
        return unify(a, ("num", np.dtype(N.dtype_of(b[1])).str))
    if ka == kb == "tuple" and len(a[1]) == len(b[1]):
        return ("tuple", tuple(unify(x, y) for x, y in zip(a[1], b[1], strict=True)))
    if ka == kb == "nt" and a[1] == b[1]:
        return ("nt", a[1], tuple(unify(x, y) for x, y in zip(a[2], b[2], strict=False)))
    if ka == kb == "struct" and a[1] == b[1]:
        return ("struct", a[1], tuple(unify(x, y) for x, y in zip(a[2], b[2], strict=False)))
    if ka == kb == "closure" and a[1] == b[1] and len(a[4]) == len(b[4]):
        return ("closure", a[1], a[2], a[3],
                tuple(unify(x, y) for x, y in zip(a[4], b[4], strict=True)))
    if ka == kb == "range" and a[1] == b[1] and a[5] == b[5]:
        return ("range", a[1], unify(a[2], b[2]), unify(a[3], b[3]), unify(a[4], b[4]), a[5])
    if ka == "union" or kb == "union" or ka == "closure" or kb == "closure":
        return ("union", ("num", np.dtype(np.int32).str), (a, b))
    raise OffloadError(f"a value has different types on two paths: {describe(a)} vs {describe(b)}")


def describe(s: Any) -> str:
    k = s[0]
    if k == "num":
        return str(V.DTYPE_TO_JTYPE.get(np.dtype(s[1]), s[1]))
    if k == "arr":
        return f"Array{{{V.DTYPE_TO_JTYPE.get(np.dtype(s[1]), s[1])}}}{tuple(reversed(s[2]))}"
    if k == "const":
        return repr(_unid(s[1]))
    return k


def coerce(v: Any, target: Any, which: int | None = None) -> list:
    """Leaves of value v converted to the target skeleton (zeros where v lacks a part).
    `which` selects the alternative v provides when the target is a union."""
    import jax.numpy as jnp

    out: list = []
    _coerce(v, target, out, jnp, which)
    return out


def zeros_for(target: Any, out: list, jnp: Any) -> None:
    k = target[0]
    if k == "num":
        out.append(jnp.zeros((), dtype=np.dtype(target[1])))
    elif k == "arr":
        out.append(jnp.zeros(target[2], dtype=np.dtype(target[1])))
    elif k in ("tuple",):
        for c in target[1]:
            zeros_for(c, out, jnp)
    elif k in ("nt", "struct"):
        for c in target[2]:
            zeros_for(c, out, jnp)
    elif k == "closure":
        for c in target[4]:
            zeros_for(c, out, jnp)
    elif k == "range":
        for c in target[2:5]:
            zeros_for(c, out, jnp)
    elif k == "union":
        zeros_for(target[1], out, jnp)
        for a in target[2]:
            zeros_for(a, out, jnp)
    elif k == "stacked":
        raise OffloadError("internal: zeros of a tape")


def _coerce(v: Any, t: Any, out: list, jnp: Any, which: int | None) -> None:
    k = t[0]
    if k == "const":
        return
    if k in ("num", "arr"):
        if v is None or v is UNDEF:
            zeros_for(t, out, jnp)
            return
        d = np.dtype(t[1])
        out.append(jnp.asarray(v, dtype=d))
        return
    if k == "union":
        if isinstance(v, BranchUnion):
            _coerce(v.index, t[1], out, jnp, None)
            for a, ta in zip(v.alts, t[2], strict=False):
                _coerce(a, ta, out, jnp, None)
            return
        idx = which if which is not None else 0
        out.append(jnp.asarray(idx, dtype=np.int32))
        for i, ta in enumerate(t[2]):
            if i == idx:
                _coerce(v, ta, out, jnp, None)
            else:
                zeros_for(ta, out, jnp)
        return
    if v is None or v is UNDEF:
        zeros_for(t, out, jnp)
        return
    if k == "tuple":
        for x, c in zip(v, t[1], strict=False):
            _coerce(x, c, out, jnp, which)
    elif k == "nt":
        for x, c in zip(v.values, t[2], strict=False):
            _coerce(x, c, out, jnp, which)
    elif k == "struct":
        for x, c in zip(v.fields, t[2], strict=False):
            _coerce(x, c, out, jnp, which)
    elif k == "closure":
        for x, c in zip(v.captures, t[4], strict=False):
            _coerce(x, c, out, jnp, which)
    elif k == "range":
        _coerce(v.start, t[2], out, jnp, which)
        _coerce(v.step, t[3], out, jnp, which)
        _coerce(v.length, t[4], out, jnp, which)
    elif k == "stacked":
        out.extend(v.leaves)
        _coerce(v.count, t[3], out, jnp, which)
    elif k == "bback":
        out.extend(v.leaves)
    else:
        raise OffloadError(f"internal: cannot coerce to {k}")


def skeleton_of_avals(skel: Any) -> Any:
    return skel


def leaf_count(s: Any) -> int:
    """How many leaves a skeleton of `split` stands for."""
    k = s[0]
    if k in ("num", "arr"):
        return 1
    if k == "const":
        return 0
    if k == "tuple":
        return sum(leaf_count(c) for c in s[1])
    if k in ("nt", "struct"):
        return sum(leaf_count(c) for c in s[2])
    if k == "closure":
        return sum(leaf_count(c) for c in s[4])
    if k == "range":
        return sum(leaf_count(c) for c in s[2:5])
    if k == "union":
        return leaf_count(s[1]) + sum(leaf_count(a) for a in s[2])
    if k == "stacked":
        return s[4] + leaf_count(s[3])
    if k == "bback":
        return s[2]
    if k == "tape":
        return sum(leaf_count(c) for c in s[1])
    if k == "objarr":
        return sum(leaf_count(c) for c in s[2])
    raise OffloadError(f"internal: cannot count leaves of {k}")
