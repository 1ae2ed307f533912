"""Element types of host object arrays.

A numpy array of dtype `object` holds strings, structs, tuples, arrays, ... but carries no
Julia element type, so `["a", "b"]` would be a `Vector{Any}` and a `::Vector{String}`
method would not match it. The places that make an object array whose element type Julia
knows (array literals, typed literals `T[...]`, `map`, comprehensions, broadcasting,
`fill`, copies and slices) record it here, keyed by the array's identity; `typeof` reads
it. The record lives as long as the array (a weak reference removes it); an array that
was never recorded is an `Array{Any}`, as before.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import values as V

_RECORDS: dict[int, tuple[weakref.ref, V.JType]] = {}


def _forget(key: int) -> Any:
    def drop(_ref: Any) -> None:
        _RECORDS.pop(key, None)
    return drop


#: element types nested deeper than this are not recorded (the array is an Array{Any}):
#: `x = [x]` repeated 100,000 times would otherwise make types as deep, whose hashing and
#: comparison recurse that deep
MAX_TYPE_DEPTH = 64


def tag(a: Any, t: V.JType | None) -> Any:
    """Record t as the element type of the object array a; returns a."""
    if (t is None or type(a) is not np.ndarray or a.dtype != object
            or getattr(t, "depth", 0) > MAX_TYPE_DEPTH):
        return a
    key = id(a)
    _RECORDS[key] = (weakref.ref(a, _forget(key)), t)
    return a


def recorded(a: np.ndarray) -> V.JType | None:
    """The element type recorded for the object array a, or None."""
    rec = _RECORDS.get(id(a))
    if rec is None or rec[0]() is not a:
        return None
    return rec[1]


def copy_tag(src: Any, dst: Any) -> Any:
    """dst (a copy, slice or reshape of src) has src's element type; returns dst. (A
    range of Int128s or BigInts, whose elements an object array holds, is such an src.)"""
    if type(src) is np.ndarray and src.dtype == object:
        t = recorded(src)
        if t is not None:
            tag(dst, t)
    elif type(src) is V.WideRange:
        tag(dst, src.start.jtype)
    return dst


def common_type(items: Any, typeof: Any) -> V.JType | None:
    """The one type all items have (Julia's element type of a literal or a collect of
    them), or None when they differ or there are none."""
    t = None
    for x in items:
        tx = typeof(x)
        if t is None:
            t = tx
        elif tx != t:
            return None
    return t


#: the types Base's promote_typejoin keeps beside another in a Union (`Union{Int, Nothing}`)
_JOINED_AS_UNION = frozenset({"Nothing", "Missing"})


def collected_type(items: Any, typeof: Any) -> V.JType | None:
    """The element type Julia's `collect`/`map` gives items: Base's promote_typejoin of
    their types (`promote_typejoin`); None when there are no items."""
    types: list = []
    for x in items:
        tx = typeof(x)
        if tx not in types:
            types.append(tx)
    return promote_typejoin(types) if types else None


def promote_typejoin(types: list) -> V.JType:
    """Base's promote_typejoin of several types: their typejoin (Int64, Float64 -> Real),
    except that Nothing and Missing stay beside it in a Union (`Union{Nothing, Int64}`)."""
    kept = [t for t in types if V.type_name(t) in _JOINED_AS_UNION]
    rest = [t for t in types if V.type_name(t) not in _JOINED_AS_UNION]
    if rest:
        j = rest[0]
        for t in rest[1:]:
            j = j if t == j else V.typejoin(j, t)
        kept.append(j)
    return V.make_union(tuple(kept)) if len(kept) > 1 else kept[0]


def resize_keeping_eltype(a: np.ndarray, shape: tuple) -> None:
    """`a.resize(shape)` in place, keeping a's recorded element type (numpy refuses to
    resize an array that a weak reference points to, so the record is dropped meanwhile).
    An array that is a view, or that has views (`reshape`, `vec`, `v'`: `note_view`),
    cannot be resized, as in Julia (the views would point into freed memory)."""
    if a.base is not None or has_views(a):
        raise ZylaError("ErrorException", "cannot resize array with shared data")
    if a.dtype.kind != "O":  # (only object arrays have records: see tag)
        a.resize(shape, refcheck=False)
        return
    key = id(a)
    rec = _RECORDS.pop(key, None)
    t = rec[1] if rec is not None and rec[0]() is a else None
    rec = None
    try:
        a.resize(shape, refcheck=False)
    finally:
        if t is not None:  # (recorded again as `tag` recorded it)
            _RECORDS[key] = (weakref.ref(a, _forget(key)), t)


def push_one(a: np.ndarray, v: Any) -> None:
    """`push!` of one value `v`, already of its element type, onto the 1-d host array
    `a`: the write noted (`values.note_write`) and `a` resized in place as by
    `resize_keeping_eltype`, in one step (`push!` in a loop is hot)."""
    if a.base is not None or (id(a) in _VIEWS and has_views(a)):
        raise ZylaError("ErrorException", "cannot resize array with shared data")
    V.note_write(a)
    n = a.shape[0]
    t = forget = None
    if a.dtype.kind == "O":
        key = id(a)
        rec = _RECORDS.pop(key, None)
        if rec is not None and rec[0]() is a:
            t, forget = rec[1], rec[0].__callback__  # (`_forget(key)`, made once)
        rec = None
    try:
        a.resize((n + 1,), refcheck=False)
    except ValueError:  # (another weak reference to `a`: numpy refuses)
        raise ZylaError("ErrorException", "cannot resize array with shared data") from None
    finally:
        if t is not None:  # (recorded again as `tag` recorded it)
            _RECORDS[key] = (weakref.ref(a, forget), t)
    a[n] = v


#: the live views of host arrays, by the identity of the array that owns the memory (a
#: live view keeps its owner alive, so the identity cannot be reused meanwhile)
_VIEWS: dict[int, list[weakref.ref]] = {}


def note_view(v: Any) -> Any:
    """Record that the host array v shares the memory of the array it is a view of;
    returns v."""
    if not isinstance(v, np.ndarray):
        return v
    owner = v
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner is v:
        return v
    key = id(owner)
    refs = _VIEWS.setdefault(key, [])
    refs.append(weakref.ref(v, _dead_view(key)))
    return v


def _dead_view(key: int) -> Any:
    def drop(ref: Any) -> None:
        refs = _VIEWS.get(key)
        if refs is None:
            return
        refs[:] = [r for r in refs if r is not ref and r() is not None]
        if not refs:
            _VIEWS.pop(key, None)
    return drop


def has_views(a: np.ndarray) -> bool:
    """Whether a live view shares the memory of the host array a (see note_view)."""
    refs = _VIEWS.get(id(a))
    return refs is not None and any(r() is not None for r in refs)
