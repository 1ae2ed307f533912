"""Base's in-place mutators of arrays, dictionaries and sets, on the host.

Vectors are numpy arrays; they grow and shrink in place (`ndarray.resize`, as `push!` does
in lang.core.builtins), so every alias of the vector sees the change, as in Julia:
`resize!`, `empty!`, `deleteat!`, `keepat!`, `insert!`, `pushfirst!`, `popfirst!`,
`prepend!`, `splice!`, `filter!`, `sizehint!`. Arrays of any shape are overwritten in place
by `fill!`, `copy!`, `map!` and `broadcast!` (elements converted to the array's element
type). On a `Dict` (and a `Set`): `empty!`, `filter!`, `copy!`, `merge!`, `mergewith!`,
`pop!(d, k[, default])`, `sizehint!`.

None of them has a derivative. Inside `gradient`, a mutator whose target is an array
raises an AD error (see `mutates_array`, used by autodiff.runtime) instead of letting the
reverse pass read values the mutation has since overwritten.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins import _pair, push_array
from lang.core.builtins_set import JSet
from lang.core.eltypes import push_one, recorded, reserve, resize_keeping_eltype
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, as_array, is_array, jl_size, prim
from lang.core.primitives_array import (
    _convert_elem,
    bounds_error,
    broadcast_assign,
    collect_results,
    converted_elem,
)

HOST = HostOnly("in-place mutation of a collection is only run on the host")

#: the mutators, each with the position of the argument it writes into: inside `gradient`
#: a call whose argument there is an array is an AD error (autodiff.runtime)
MUTATED_ARG: dict[str, int] = {
    "resize!": 0, "empty!": 0, "deleteat!": 0, "keepat!": 0, "insert!": 0, "pushfirst!": 0,
    "popfirst!": 0, "prepend!": 0, "splice!": 0, "filter!": 1, "fill!": 0, "copy!": 0,
    "map!": 1, "broadcast!": 1, "Core.dict_pop!": 0, "merge!": 0, "mergewith!": 1,
}


def mutates_array(name: str, args: list | tuple) -> bool:
    """Whether the call `name(args...)` writes into a host array in place (so that reverse
    mode cannot differentiate through it)."""
    k = MUTATED_ARG.get(name)
    return k is not None and len(args) > k and isinstance(args[k], np.ndarray)


# --- vectors: growing and shrinking in place ----------------------------------------------------


def _vector(x: Any, fname: str) -> np.ndarray:
    """x as a host vector, or a MethodError naming `fname`."""
    if isinstance(x, np.ndarray) and x.ndim == 1:
        return x
    raise ZylaError("MethodError", f"no method matching {fname}(::{V.type_name(typeof(x))}, ...)")


def _elem(x: np.ndarray, v: Any) -> Any:
    """v converted to x's element type (an InexactError or MethodError when it does not fit;
    an object array's: `converted_elem`)."""
    if x.dtype == object:
        return converted_elem(x, v)
    if N.dtype_of(v) == N.OBJ:
        raise ZylaError("MethodError", "Cannot `convert` an object of type "
                                       f"{V.type_name(typeof(v))} to an object of type "
                                       f"{V.type_name(V.DTYPE_TO_JTYPE.get(x.dtype, V.AnyT))}")
    return _convert_elem(v, x.dtype)


def _host(v: Any) -> Any:
    """An element read from a host array as a Julia scalar."""
    return N.host_scalar(v) if isinstance(v, np.generic) else v


def _items(x: np.ndarray) -> list:
    return [_host(v) for v in x]


def _set_contents(x: np.ndarray, items: list) -> np.ndarray:
    """Make the vector x hold exactly `items` (already converted), in place."""
    V.note_write(x)
    try:
        resize_keeping_eltype(x, (len(items),))
    except ValueError:
        raise ZylaError("ErrorException", "cannot resize array with shared data") from None
    for k, v in enumerate(items):
        x[k] = v
    return x


def _index(i: Any) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise ZylaError("ArgumentError", f"invalid index: {i!r} of type {V.type_name(typeof(i))}")
    return int(i)


def _positions(x: np.ndarray, inds: Any) -> list[int]:
    """0-based positions of the Julia indices `inds` (an Int, a range, a vector or tuple of
    sorted unique Ints, or a Bool mask of x's length), checked against x's bounds."""
    n = x.shape[0]
    if isinstance(inds, (int, np.integer)) and not isinstance(inds, (bool, np.bool_)):
        seq = [int(inds)]
    else:
        seq = list(current.runtime().iterate(inds))
        if (seq and all(isinstance(b, (bool, np.bool_)) for b in seq)) or (
                isinstance(inds, np.ndarray) and inds.dtype == np.bool_):  # (`Bool[]` too)
            if len(seq) != n:
                raise ZylaError("BoundsError", f"attempt to access {n}-element "
                                f"{V.type_name(typeof(x))} at index [{len(seq)}-element mask]")
            return [k for k, b in enumerate(seq) if b]
        seq = [_index(i) for i in seq]
    for a, b in zip(seq, seq[1:], strict=False):
        if b <= a:
            raise ZylaError("ArgumentError", "indices must be unique and sorted")
    for i in seq:
        if not 1 <= i <= n:
            raise bounds_error(x, (i,))
    return [i - 1 for i in seq]


def resize(x: Any, n: Any) -> np.ndarray:
    """`resize!(v, n)`: v shortened or grown (new elements are zero, or undefined slots in
    a vector of non-numbers) to length n."""
    v = _vector(x, "resize!")
    n = _index(n)
    if n < 0:
        raise ZylaError("ArgumentError", "new length must be ≥ 0")
    old = _items(v)[:n]
    fill = (V.undef_slot(recorded(v), current.runtime().lookup) if v.dtype == object
            else v.dtype.type(0))
    return _set_contents(v, old + [fill] * (n - len(old)))


def empty_bang(x: Any) -> Any:
    """`empty!(c)`: the vector, Dict or Set c with every element removed."""
    if isinstance(x, dict):
        dict.clear(x)
        return x
    if isinstance(x, JSet):
        x._d.clear()
        return x
    return _set_contents(_vector(x, "empty!"), [])


def deleteat(x: Any, inds: Any) -> np.ndarray:
    """`deleteat!(v, inds)`: v without the elements at inds (an index, a sorted collection
    of indices, or a Bool mask)."""
    v = _vector(x, "deleteat!")
    gone = set(_positions(v, inds))
    return _set_contents(v, [e for k, e in enumerate(_items(v)) if k not in gone])


def keepat(x: Any, inds: Any) -> np.ndarray:
    """`keepat!(v, inds)`: v with only the elements at inds."""
    v = _vector(x, "keepat!")
    items = _items(v)
    return _set_contents(v, [items[k] for k in _positions(v, inds)])


def insert(x: Any, i: Any, item: Any) -> np.ndarray:
    """`insert!(v, i, x)`: x inserted so that it becomes v[i]."""
    v = _vector(x, "insert!")
    k = _index(i)
    if not 1 <= k <= v.shape[0] + 1:
        raise bounds_error(v, (k,))
    items = _items(v)
    return _set_contents(v, items[:k - 1] + [_elem(v, item)] + items[k - 1:])


#: the dtype of the host vectors a Python number of each type is stored into as it is
AS_IS_DTYPE = {float: N.F64, int: N.I64, bool: N.BOOL}


def push_value(a: np.ndarray, v: Any) -> np.ndarray:
    """`push!(a, v)` of one value onto the host array `a` (translated code's `push!`):
    what `push_array(a, v)` does, its common cases first without its checks — a
    Float64, Int64 or Bool onto a vector of its own type, a struct onto a vector whose
    recorded element type is the struct's type: stored as they are (`push_one`)."""
    if a.ndim == 1 and (AS_IS_DTYPE.get(type(v)) is a.dtype or (
            type(v) is V.StructValue and a.dtype is N.OBJ and recorded(a) is v.type)):
        push_one(a, v)
        return a
    return push_array(a, v)


def pushfirst(x: Any, *vs: Any) -> np.ndarray:
    """`pushfirst!(v, xs...)`: the xs inserted at the front of v, in order."""
    v = _vector(x, "pushfirst!")
    return _set_contents(v, [_elem(v, e) for e in vs] + _items(v))


def popfirst(x: Any) -> Any:
    """`popfirst!(v)`: removes and returns v's first element."""
    v = _vector(x, "popfirst!")
    if v.shape[0] == 0:
        raise ZylaError("ArgumentError", "array must be non-empty")
    items = _items(v)
    _set_contents(v, items[1:])
    return items[0]


def prepend(x: Any, *colls: Any) -> np.ndarray:
    """`prepend!(v, items...)`: the elements of each collection put before v's."""
    v = _vector(x, "prepend!")
    rt = current.runtime()
    front = [_elem(v, e) for c in colls for e in list(rt.iterate(c))]
    return _set_contents(v, front + _items(v))


def splice(x: Any, inds: Any, repl: Any = ()) -> Any:
    """`splice!(v, i[, repl])` removes and returns v[i]; `splice!(v, range[, repl])` the
    elements in range, as a vector. The elements of repl go where they were."""
    v = _vector(x, "splice!")
    items = _items(v)
    new = [_elem(v, e) for e in current.runtime().iterate(repl)]
    if isinstance(inds, V.Range) or (isinstance(inds, np.ndarray) and inds.ndim == 1):
        pos = list(current.runtime().iterate(inds))
        if not pos:  # an empty range: insert before its start
            at = _index(inds.start if isinstance(inds, V.Range) else 1) - 1
            if not 0 <= at <= len(items):
                raise bounds_error(v, (at + 1,))
            _set_contents(v, items[:at] + new + items[at:])
            return np.empty(0, dtype=v.dtype)
        ks = _positions(v, inds)
        if ks != list(range(ks[0], ks[-1] + 1)):
            raise ZylaError("ArgumentError", "splice! needs a contiguous range of indices")
        out = v[ks[0]:ks[-1] + 1].copy()
        _set_contents(v, items[:ks[0]] + new + items[ks[-1] + 1:])
        return out
    k = _positions(v, inds)[0]
    _set_contents(v, items[:k] + new + items[k + 1:])
    return items[k]


def sizehint(x: Any, n: Any, *_: Any, **__: Any) -> Any:
    """`sizehint!(c, n)`: c itself; a host vector gets room for n elements (`reserve`:
    pushes up to n reallocate nothing), other collections need no hint."""
    if type(x) is np.ndarray and type(n) is int:
        reserve(x, n)
    return x


# --- arrays of any shape: overwriting ------------------------------------------------------------


def _array(x: Any, fname: str) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    raise ZylaError("MethodError", f"no method matching {fname}(::{V.type_name(typeof(x))}, ...)")


def fill_bang(x: Any, v: Any) -> np.ndarray:
    """`fill!(A, x)`: every element of A set to x (converted to A's element type)."""
    a = _array(x, "fill!")
    V.note_write(a)
    if a.dtype == object:
        v = _elem(a, v)
        for k in range(a.size):
            a.reshape(-1)[k] = v
        return a
    a[...] = _elem(a, v)
    return a


def _write_linear(dest: np.ndarray, vals: list) -> np.ndarray:
    """The first len(vals) elements of dest (in Julia's linear order) set to vals."""
    V.note_write(dest)
    flat = dest.reshape(-1) if dest.flags.c_contiguous else None
    for k, v in enumerate(vals):
        if flat is not None:
            flat[k] = _elem(dest, v)
        else:
            dest.flat[k] = _elem(dest, v)
    return dest


def copy_bang(dst: Any, src: Any) -> Any:
    """`copy!(dst, src)`: dst made equal to src in place (a vector is resized; arrays of
    other shapes need the same axes); also for Dicts and Sets."""
    if dst is src:
        return dst  # copy!(d, d) keeps d
    if isinstance(dst, dict):
        dict.clear(dst)
        for k, v in _dict_items(src):
            dst[k] = v
        return dst
    if isinstance(dst, JSet):
        dst._d.clear()
        dst.jl_push(*current.runtime().iterate(src))
        return dst
    a = _array(dst, "copy!")
    vals = list(current.runtime().iterate(src))
    if a.ndim == 1:
        return _set_contents(a, [_elem(a, e) for e in vals])
    shape = getattr(src, "shape", None)
    if shape != a.shape:
        raise ZylaError("ArgumentError", "arrays must have the same axes for copy! "
                                         "(consider using `copyto!`)")
    return _write_linear(a, vals)


def map_bang(interp: Any, f: Any, dest: Any, *srcs: Any) -> np.ndarray:
    """`map!(f, dest, As...)`: f applied over the As (stopping at the shortest) written into
    the first elements of dest (in linear order)."""
    a = _array(dest, "map!")
    if not srcs:
        raise ZylaError("MethodError", "no method matching map!(f, dest): give a source")
    rt = interp.rt
    cols = [list(rt.iterate(s)) for s in srcs]
    n = min(len(c) for c in cols)
    if n > a.size:
        raise ZylaError("DimensionMismatch", f"destination has {a.size} elements, "
                                             f"fewer than the {n} of the source")
    vals = [interp.call_value(f, [c[k] for c in cols]) for k in range(n)]
    return _write_linear(a, vals)


def broadcast_bang(interp: Any, f: Any, dest: Any, *args: Any) -> np.ndarray:
    """`broadcast!(f, dest, As...)`: `dest .= f.(As...)`, in place."""
    a = _array(dest, "broadcast!")
    bc = interp.rt.lookup("broadcast")
    # f runs once per element of dest (Julia's broadcast!), even where the arguments are
    # smaller than dest or scalars: `broadcast!(rand, buf, (rng,))` draws length(buf) times
    if not any(is_array(x) or isinstance(x, (tuple, V.Range)) for x in args):
        vals = [interp.call_value(bc, [f, *args]) for _ in range(a.size)]
        return broadcast_assign(a, collect_results(vals, jl_size(a)) if vals else a)
    wide = []
    for x in args:
        if is_array(x) or isinstance(x, (tuple, V.Range)):
            arr = as_array(x)
            try:
                x = np.broadcast_to(arr, a.shape) if arr.ndim <= a.ndim else None
            except ValueError:
                x = None
            if x is None:
                raise ZylaError("DimensionMismatch", "array could not be broadcast to match "
                                f"destination of size {jl_size(a)}")
        wide.append(x)
    return broadcast_assign(a, interp.call_value(bc, [f, *wide]))


def _truth(b: Any, fname: str) -> bool:
    if isinstance(b, (bool, np.bool_)):
        return bool(b)
    raise ZylaError("TypeError", f"non-boolean ({V.type_name(typeof(b))}) used in boolean "
                                 f"context (in {fname})")


def filter_bang(interp: Any, f: Any, x: Any) -> Any:
    """`filter!(f, c)`: c keeping the elements (Dict: the `k => v` pairs) for which f is true."""
    if isinstance(x, dict):
        drop = [k for k, v in list(x.items()) if not _truth(
            interp.call_value(f, [_pair(k, v)]), "filter!")]
        for k in drop:
            dict.__delitem__(x, x.jl_key(k) if hasattr(x, "jl_key") else k)
        return x
    if isinstance(x, JSet):
        keep = [e for e in x.items if _truth(interp.call_value(f, [e]), "filter!")]
        x._d.clear()
        x.jl_push(*keep)
        return x
    v = _vector(x, "filter!")
    items = _items(v)
    return _set_contents(v, [e for e in items if _truth(interp.call_value(f, [e]), "filter!")])


# --- dictionaries --------------------------------------------------------------------------------


def _dict_items(d: Any) -> list[tuple[Any, Any]]:
    if isinstance(d, dict):
        return list(d.items())
    out = []
    for p in current.runtime().iterate(d):
        if isinstance(p, V.StructValue) and p.type.name == "Pair":
            out.append((p.fields[0], p.fields[1]))
        elif isinstance(p, tuple) and len(p) == 2:
            out.append(p)
        else:
            raise ZylaError("ArgumentError", "merge!: the collection must hold pairs")
    return out


def _dict(d: Any, fname: str) -> dict:
    if isinstance(d, dict):
        return d
    raise ZylaError("MethodError", f"no method matching {fname}(::{V.type_name(typeof(d))}, ...)")


def merge_bang(d: Any, *others: Any) -> dict:
    """`merge!(d, others...)`: d updated with the pairs of each other (later ones win)."""
    dd = _dict(d, "merge!")
    for o in others:
        for k, v in _dict_items(o):
            dd[k] = v
    return dd


def mergewith_bang(interp: Any, f: Any, d: Any, *others: Any) -> dict:
    """`mergewith!(combine, d, others...)`: as merge!, with `combine(old, new)` where a key
    is already present."""
    dd = _dict(d, "mergewith!")
    for o in others:
        for k, v in _dict_items(o):
            dd[k] = interp.call_value(f, [dd[k], v]) if k in dd else v
    return dd


_NO_DEFAULT = object()


def dict_pop(d: Any, k: Any, default: Any = _NO_DEFAULT) -> Any:
    """`pop!(d, k[, default])`: removes k from d and returns its value (or default when
    absent; a KeyError without one)."""
    dd = _dict(d, "pop!")
    if k in dd:
        v = dd[k]
        del dd[k]
        return v
    if default is _NO_DEFAULT:
        return dd[k]  # raises the KeyError
    return default


# --- searching ----------------------------------------------------------------------------------


def _find_step(interp: Any, f: Any, a: Any, start: Any, step: int, fname: str) -> Any:
    """The first index from `start` on (step 1) or back (step -1) where f holds, or
    nothing (f's results must be Bool). On the host, so that compiling its caller cannot
    turn its `nothing` into a number."""
    k = _index(start)
    items = _items(a) if isinstance(a, np.ndarray) else list(interp.rt.iterate(a))
    if isinstance(a, np.ndarray) and a.ndim != 1:
        raise ZylaError("MethodError", f"no method matching {fname}(f, ::"
                                       f"{V.type_name(typeof(a))}, ::Int64)",
                        hint="Zyla searches vectors, tuples and strings by an Int index")
    n = len(items)
    i = max(k, 1) if step == 1 else min(k, n)
    while 1 <= i <= n:
        if _truth(interp.call_value(f, [items[i - 1]]), fname):
            return i
        i += step
    return None


def findnext(interp: Any, f: Any, a: Any, start: Any) -> Any:
    """`findnext(f, A, i)`: the first index ≥ i where f(A[k]) is true, or nothing."""
    return _find_step(interp, f, a, start, 1, "findnext")


def findprev(interp: Any, f: Any, a: Any, start: Any) -> Any:
    """`findprev(f, A, i)`: the last index ≤ i where f(A[k]) is true, or nothing."""
    return _find_step(interp, f, a, start, -1, "findprev")


def install(rt: Any) -> None:
    """Register the mutators in `rt.builtins` (`pop!` keeps its vector method and gains
    the Dict and Set ones)."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    plain: dict[str, Callable[..., Any]] = {
        "resize!": resize, "empty!": empty_bang, "deleteat!": deleteat, "keepat!": keepat,
        "insert!": insert, "pushfirst!": pushfirst, "popfirst!": popfirst,
        "prepend!": prepend, "splice!": splice, "sizehint!": sizehint, "fill!": fill_bang,
        "copy!": copy_bang, "merge!": merge_bang, "Core.dict_pop!": dict_pop,
    }
    for name, fn in plain.items():
        b[name] = prim(name, fn, HOST, NONDIFF, anyt)
    interp: dict[str, Callable[..., Any]] = {
        "map!": map_bang, "broadcast!": broadcast_bang, "filter!": filter_bang,
        "mergewith!": mergewith_bang, "Core.findnext": findnext, "Core.findprev": findprev,
    }
    for name, fn in interp.items():
        b[name] = prim(name, fn, HOST, NONDIFF, anyt, needs_interp=True)
    # Zyla keeps Bool arrays as Array{Bool}: BitVector and BitArray name those
    b["BitVector"] = V.apply_type(V.ArrayT, (V.BoolT, 1))
    b["BitArray"] = V.apply_type(V.ArrayT, (V.BoolT, V.TypeVar("N")))
    b["BitMatrix"] = V.apply_type(V.ArrayT, (V.BoolT, 2))
    for name in MUTATED_ARG:
        # forward mode's NOFORWARD marker (autodiff.forward): a call with a tangent is an
        # AD error, as the mutation would leave the tangent of the array stale
        b[name].forward = "noforward"
