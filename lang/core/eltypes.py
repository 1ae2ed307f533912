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

import ctypes
import os
import weakref
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import values as V

try:  # (numpy 2; numpy 1.22+ names the module numpy.core; before, no allocator to ask)
    from numpy._core.multiarray import get_handler_name
except ImportError:  # pragma: no cover
    get_handler_name = getattr(np.core.multiarray, "get_handler_name", lambda *_: None)

_RECORDS: dict[int, tuple[weakref.ref, V.JType]] = {}
#: `values.note_write`'s versions, bumped here directly for an array that is no view
_VERSIONS = V.WRITE_VERSIONS


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
    """`a.resize(shape)` in place, keeping a's recorded element type (see `_resize`):
    new elements are zero, as numpy makes them. A vector that has spare room keeps it
    (`pop!`, `empty!`, `append!` in a loop reallocate no more than `push!`). An array
    that is a view, or that has views (`reshape`, `vec`, `v'`: `note_view`), cannot be
    resized, as in Julia (the views would point into freed memory), nor can a read-only
    one (a view by index arrays, a reshaped range: `make_readonly`)."""
    if a.base is not None or not a.flags.writeable or has_views(a):
        raise _shared_data()
    if len(shape) == 1 and a.ndim == 1:
        n, m = a.shape[0], shape[0]
        if _within_room(a, n, m):
            return
        _resize(a, shape, n + (n >> 1) + 8 if VECTOR_ROOM and n < m <= n + (n >> 1) + 8 else 0)
        return
    _resize(a, shape)


def _shared_data() -> ZylaError:
    """Julia's error for a resize of an array that shares its memory."""
    return ZylaError("ErrorException", "cannot resize array with shared data")


def _room_for(a: np.ndarray, m: int) -> _Room | None:
    """The spare room of the vector `a` where it is still a's (its weak reference, and
    the dimensions pointer its header holds) and holds `m` elements, else None.
    (`push_one` makes the same tests inline: it is the hot one.)"""
    room = _ROOMS.get(id(a))
    if (room is None or room.ref() is not a or not 0 <= m <= room.capacity
            or room.header[4] != room.dims):
        return None
    return room


def _within_room(a: np.ndarray, n: int, m: int) -> bool:
    """Whether the length of the vector `a` (now `n`) was set to `m` within its spare
    room: the elements dropped overwritten by zeros (an object array's let go), so that
    the room holds zeros, as numpy's fill of a new buffer, and new elements are zero."""
    room = _room_for(a, m)
    if room is None:
        return False
    if m == n - 1:  # (`pop!`)
        a[m] = 0
    elif m < n:
        a[m:] = 0
    room.length[0] = m
    return True


def push_one(a: np.ndarray, v: Any) -> None:
    """`push!` of one value `v`, already of its element type, onto the 1-d host array
    `a`: the write noted (`values.note_write`) and `a` one element longer, in place,
    within its spare room where it has some (`_Room`), else reallocated with room for
    half as many again (`push!` in a loop is hot: numpy's resize costs ~0.4 µs)."""
    key = id(a)
    room = _ROOMS.get(key)
    # (the weak reference first: the header of a dead array is not read; an array with
    # room is no view, it was resized)
    if room is not None and room.ref() is a and key not in _VIEWS:
        n = len(a)
        if n < room.capacity and room.header[4] == room.dims:
            _VERSIONS[key] = _VERSIONS.get(key, 0) + 1  # (`note_write`)
            room.length[0] = n + 1
            try:
                a[n] = v
            except ValueError:  # (made read-only since: its length as it was)
                room.length[0] = n
                raise _shared_data() from None
            return
    room = None  # (its weak reference let go: numpy resizes no array that has one)
    if a.base is not None or not a.flags.writeable or (key in _VIEWS and has_views(a)):
        raise _shared_data()
    _VERSIONS[key] = _VERSIONS.get(key, 0) + 1
    n = a.shape[0]
    _resize(a, (n + 1,), n + (n >> 1) + 8 if VECTOR_ROOM else 0)
    a[n] = v


def pushable(a: Any) -> bool:
    """Whether `push_one` can grow the host vector `a` (it owns its memory, is writable
    and has no live views): then `push_many` of values of its element type cannot fail."""
    return (type(a) is np.ndarray and a.ndim == 1 and a.base is None and a.flags.writeable
            and not (id(a) in _VIEWS and has_views(a)))


def push_many(a: np.ndarray, items: list) -> None:
    """`push_one` of each of `items`, in order, onto the vector `a` (`pushable`), which
    grows once; `items` is emptied. Translated loops that push onto a vector nothing
    else reads meanwhile collect the values in a list and call this at the loop's
    chunk ends and exits (`hostcode._Gen.push_buffer`)."""
    k = len(items)
    if not k:
        return
    key = id(a)
    n = len(a)
    m = n + k
    room = _room_for(a, m) if key not in _VIEWS else None
    _VERSIONS[key] = _VERSIONS.get(key, 0) + 1  # (`note_write`)
    if room is not None:
        room.length[0] = m
    else:
        _resize(a, (m,), m + (m >> 1) + 8 if VECTOR_ROOM else 0)
    # (`fromiter`: a sequence among the items stays one element, as `a[j] = x` keeps it)
    a[n:] = np.fromiter(items, dtype=a.dtype, count=k)
    items.clear()


def reserve(a: np.ndarray, capacity: int) -> None:
    """Spare room in the host vector `a` for `capacity` elements in all (`sizehint!`),
    where `a` is a vector of its own memory, writable, without views, with less room;
    else (a hint that cannot be taken) nothing."""
    if not (VECTOR_ROOM and a.ndim == 1 and a.shape[0] < capacity and a.base is None
            and a.flags.writeable and not has_views(a)):
        return
    room = _ROOMS.get(id(a))
    if room is not None and room.ref() is a and room.capacity >= capacity:
        return
    room = None  # (its weak reference let go: numpy resizes no array that has one)
    try:
        _resize(a, a.shape, capacity)
    except (ZylaError, MemoryError):  # (another weak reference to `a`; too large)
        pass


def _resize(a: np.ndarray, shape: tuple, capacity: int = 0) -> None:
    """`a.resize(shape)` in place (an ErrorException where numpy refuses). numpy refuses
    to resize an array that a weak reference points to, so a's element type record is
    dropped meanwhile and made again, and its spare room forgotten; with `capacity` >
    shape[0] (a vector) the buffer is made that long and the rest kept as spare room."""
    key = id(a)
    _ROOMS.pop(key, None)
    t = forget = None
    rec = _RECORDS.pop(key, None)
    if rec is not None and rec[0]() is a:
        t, forget = rec[1], rec[0].__callback__  # (`_forget(key)`, made once)
    rec = None
    room = (capacity > shape[0] and a.dtype.kind in _ROOM_KINDS
            and get_handler_name(a) == "default_allocator")
    try:
        a.resize((capacity,) if room else shape, refcheck=False)
    except ValueError:  # (another weak reference to `a`, or `a` owns no data)
        raise _shared_data() from None
    finally:
        if t is not None:  # (recorded again as `tag` recorded it)
            _RECORDS[key] = (weakref.ref(a, forget), t)
    if room:
        _ROOMS[key] = _Room(a, shape[0], capacity)


# --- spare room at the end of vectors grown by push! ---------------------------------------
#
# numpy's resize reallocates the buffer for each element pushed. A vector `push_one`
# grows is instead reallocated to half as long again when full, and its length, which
# numpy keeps in the array object (PyArrayObject_fields.dimensions[0]) and reads for
# everything it does, is set within that room one element at a time. numpy sees a vector
# of n elements whose buffer is longer than it needs: indexing, copying, iterating and
# views read the length; freeing does not use the size with the default allocator (the
# only one rooms are made with); a resize in place reallocates from the buffer it has.
# Every resize in place is `_resize`, which forgets the room first; the weak reference
# says the array is still the one the room was made for, and the dimensions pointer
# that its header still holds the same lengths (nothing reshapes a host vector in place).
# The room beyond the length holds zeros (numpy's fill of a new buffer, and what
# `_within_room` writes over the elements it drops: the Int 0 in an object array, whose
# references to it are left behind where the array dies with room left).


class _Room:
    """The spare room of the host vector `a`: its capacity in elements, its object's
    header words (numpy's fields: [refcount, type, data, nd, dimensions]), the
    dimensions pointer the header held when the room was made, and the length cell
    that pointer points to, set to `n`."""

    __slots__ = ("ref", "capacity", "header", "dims", "length")

    def __init__(self, a: np.ndarray, n: int, capacity: int) -> None:
        key = id(a)
        self.ref = weakref.ref(a, lambda _r: _ROOMS.pop(key, None))
        self.capacity = capacity
        self.header = (ctypes.c_void_p * 5).from_address(key)
        self.dims = self.header[4]
        self.length = (ctypes.c_int64 * 1).from_address(self.dims)
        self.length[0] = n


_ROOMS: dict[int, _Room] = {}
#: the kinds of dtype vectors with room have: those whose zero (what numpy fills a new
#: buffer with, and `_within_room` writes) is the value 0 (Bool, integers, floats,
#: complex numbers; the Int 0 in an object array)
_ROOM_KINDS = frozenset("biufcO")


def _rooms_work() -> bool:
    """Whether this numpy's array objects are laid out as `_Room` reads them: a probe's
    data pointer, rank and length where `_Room` looks, and a length set there seen."""
    if ctypes.sizeof(ctypes.c_void_p) != 8 or np.dtype(np.intp).itemsize != 8:
        return False
    probe = np.zeros(8)
    header = (ctypes.c_void_p * 5).from_address(id(probe))
    if header[2] != probe.ctypes.data or header[3] is None or header[3] & 0xFFFFFFFF != 1:
        return False
    length = (ctypes.c_int64 * 1).from_address(header[4])
    if length[0] != 8:
        return False
    length[0] = 5
    seen = probe.shape == (5,) and probe.nbytes == 40
    length[0] = 8
    return seen and probe.shape == (8,) and get_handler_name(probe) == "default_allocator"


#: whether vectors grown by push! keep spare room (`ZYLA_VECTOR_ROOM=0` turns it off)
VECTOR_ROOM = os.environ.get("ZYLA_VECTOR_ROOM", "1") not in ("0", "") and _rooms_work()


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
