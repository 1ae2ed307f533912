"""`Set` on the host, and the set functions Base defines on any collection.

A `JSet` keeps its elements in insertion order (Julia leaves the order unspecified) in a
Python dict, so membership is a hash lookup; its keys are the elements' isequal stand-ins
(`isequal_key`, as for `Dict`). It follows the
runtime's collection protocol: `.items` (a list, for iteration and `length`),
`jl_contains` (for `in`) and `jl_push` (for `push!`).

`union`/`∪`, `intersect`/`∩`, `setdiff`, `symdiff` and `unique` return a `Set` when the
first argument is a set and a vector otherwise (order of first occurrence), as in Julia;
`issubset`/`⊆`, `union!`, `intersect!`, `setdiff!` and `delete!` are the rest (`pop!` on a
Set is not implemented).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.builtins import BROADCAST_COLLECTS, DICT_KEYS, FILTERED
from lang.core.builtins_dict import EMPTY_OF, delete, isequal_key
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.primitives_array import COPIES, _typed_vect, collect_results
from lang.core.show import jl_show

AbstractSetT = V.JType("AbstractSet", V.AnyT, arity=1, abstract=True)
SetT = V.JType("Set", AbstractSetT, arity=1)

HOST = HostOnly("sets are host values")


#: a hashable stand-in equal for two elements exactly when Julia's isequal says so
_key = isequal_key


class JSet:
    """A Julia `Set{T}`."""

    is_set = True  # (`==` compares it with any other set as a set: primitives.jl_equal)

    def __init__(self, elems: Any = (), elem_type: V.JType | None = None) -> None:
        self._d: dict = {}
        for e in elems:
            self._d.setdefault(_key(e), e)
        if elem_type is None:
            types = {typeof(e) for e in self._d.values()}
            elem_type = types.pop() if len(types) == 1 else V.AnyT
        self.elem_type = elem_type

    @property
    def items(self) -> list:
        return list(self._d.values())

    def copy(self) -> JSet:
        out = JSet((), self.elem_type)
        out._d = dict(self._d)
        return out

    @property
    def jtype(self) -> V.JType:
        return V.apply_type(SetT, (self.elem_type,))

    def jl_contains(self, x: Any) -> bool:
        return _key(x) in self._d

    def jl_push(self, *xs: Any) -> JSet:
        for x in xs:
            self._check(x)
            self._d.setdefault(_key(x), x)
        return self

    def _check(self, x: Any) -> None:
        if self.elem_type is not V.AnyT and not V.issubtype(typeof(x), self.elem_type):
            raise ZylaError("MethodError", f"Cannot `convert` an object of type "
                                           f"{V.type_name(typeof(x))} to an object of type "
                                           f"{V.type_name(self.elem_type)}")

    def discard(self, x: Any) -> None:
        self._d.pop(_key(x), None)

    def __len__(self) -> int:
        return len(self._d)

    def __eq__(self, other: object) -> bool:
        """Julia's `==` on sets: the same elements, in any order."""
        return isinstance(other, JSet) and self._d.keys() == other._d.keys()

    __hash__ = None  # type: ignore[assignment]  # mutable, like Python's set

    def jl_show(self) -> str:
        if not self._d:
            return f"{V.type_name(self.jtype)}()"
        inner = ", ".join(jl_show(e) for e in self._d.values())
        inferred = {typeof(e) for e in self._d.values()} == {self.elem_type}
        return f"{'Set' if inferred else V.type_name(self.jtype)}([{inner}])"


KeySetT = V.JType("Base.KeySet", V.apply_type(AbstractSetT, (V.TypeVar("K"),)), arity=2)
KeySetT.param_names = ["K", "D"]  # (KeySet{K,D} <: AbstractSet{K}: values.supertype)


class KeySet(JSet):
    """`keys(d)` of a Dict, an IdDict or a program's AbstractDict: Base's KeySet, a live
    view of d's keys that is an `AbstractSet` (`in` is `haskey`; compared with other sets
    as a set; shown as a vector). A program's AbstractDict's keys are its pairs' first
    halves, by its `iterate`. It is read-only: `push!` on it is a MethodError."""

    def __init__(self, d: Any) -> None:  # (JSet's own state is not used)
        self.dict = d

    @property
    def _d(self) -> dict:  # type: ignore[override]
        return {_key(k): k for k in self.items}

    @property
    def items(self) -> list:
        if isinstance(self.dict, dict):
            return list(self.dict.keys())
        return [p.fields[0] for p in current.runtime().iterate(self.dict)]

    @property
    def elem_type(self) -> V.JType:  # type: ignore[override]
        if isinstance(self.dict, dict):
            return getattr(self.dict, "key_type", V.AnyT)
        params = typeof(self.dict).params  # (a program's `D{K,V} <: AbstractDict{K,V}`)
        sup = V.supertype(typeof(self.dict)) if params else None
        k = sup.params[0] if sup is not None and sup.params else None
        return k if isinstance(k, V.JType) else V.AnyT

    @property
    def jtype(self) -> V.JType:
        return V.apply_type(KeySetT, (self.elem_type, typeof(self.dict)))

    def copy(self) -> JSet:
        return JSet(self.items, self.elem_type)

    def jl_contains(self, x: Any) -> bool:
        if isinstance(self.dict, dict):
            return x in self.dict
        return _key(x) in self._d

    def jl_push(self, *xs: Any) -> JSet:
        raise ZylaError("MethodError", f"no method matching push!(::{V.type_name(self.jtype)}, "
                        + ", ".join(f"::{V.type_name(typeof(x))}" for x in xs) + ")")

    def discard(self, x: Any) -> None:
        raise ZylaError("MethodError", f"no method matching delete!(::{V.type_name(self.jtype)}"
                        f", ::{V.type_name(typeof(x))})")

    def __len__(self) -> int:
        return len(self.dict) if isinstance(self.dict, dict) else len(self.items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JSet) and self._d.keys() == other._d.keys()

    __hash__ = None  # type: ignore[assignment]

    def jl_show(self) -> str:
        return "[" + ", ".join(jl_show(k) for k in self.items) + "]"

    def jl_display(self) -> str:
        n = len(self)
        head = (f"KeySet for a {V.type_name(typeof(self.dict))} with {n} "
                f"entr{'y' if n == 1 else 'ies'}")
        return head + (". Keys:\n" + "\n".join("  " + jl_show(k) for k in self.items) if n
                       else "")


COPIES[JSet] = JSet.copy
COPIES[KeySet] = KeySet.copy
FILTERED[KeySet] = lambda s, kept: JSet(kept, s.elem_type)
BROADCAST_COLLECTS.add(KeySet)
DICT_KEYS.append(KeySet)
FILTERED[JSet] = lambda s, kept: JSet(kept, s.elem_type)  # filter(f, set) is a Set
BROADCAST_COLLECTS.add(JSet)  # `exp.(Set([1, 2]))`: a vector


def make_set(t: V.JType, args: list, kwargs: dict | None) -> JSet:
    """`Set()`, `Set(iterable)`, `Set{T}()`, `Set{T}(iterable)`."""
    if len(args) > 1:
        raise ZylaError("MethodError", "no method matching Set with more than one argument",
                        hint="Set([a, b, c]) builds a set from a collection")
    elems = list(current.runtime().iterate(args[0])) if args else []
    if t.params:
        return JSet((), t.params[0]).jl_push(*elems)
    return JSet(elems) if elems else JSet((), V.AnyT)


def _elements(x: Any) -> list:
    return x.items if isinstance(x, JSet) else list(current.runtime().iterate(x))


def _result(first: Any, elems: list) -> Any:
    """A Set if the first argument was one, else a vector (order of first occurrence)."""
    if isinstance(first, JSet):
        return JSet(elems, first.elem_type if all(
            V.issubtype(typeof(e), first.elem_type) for e in elems) else None)
    return collect_results(elems, (len(elems),))


def _unique_list(xs: list) -> list:
    seen: dict = {}
    for x in xs:
        seen.setdefault(_key(x), x)
    return list(seen.values())


def union(a: Any, *rest: Any) -> Any:
    elems = _elements(a)
    for r in rest:
        elems = elems + _elements(r)
    return _result(a, _unique_list(elems))


def intersect(a: Any, *rest: Any) -> Any:
    keep = _unique_list(_elements(a))
    for r in rest:
        ks = {_key(e) for e in _elements(r)}
        keep = [e for e in keep if _key(e) in ks]
    return _result(a, keep)


def setdiff(a: Any, *rest: Any) -> Any:
    drop = {_key(e) for r in rest for e in _elements(r)}
    return _result(a, [e for e in _unique_list(_elements(a)) if _key(e) not in drop])


def symdiff(a: Any, *rest: Any) -> Any:
    """Julia's symdiff: each element of each argument, in order, toggles its membership
    (so multiplicity matters for vectors: symdiff([1, 2, 3], [4, 3, 4]) == [1, 2])."""
    kept: dict[Any, Any] = {}
    order: list = []
    for coll in (a, *rest):
        elems = _elements(coll)
        if isinstance(coll, JSet):
            elems = _unique_list(elems)
        order += elems
        for e in elems:
            k = _key(e)
            if k in kept:
                del kept[k]
            else:
                kept[k] = e
    # (in the order the elements first appear: symdiff([1, 2, 3, 4, 5], [1, 2, 3], [3, 4])
    # is [3, 5])
    return _result(a, [e for e in _unique_list(order) if _key(e) in kept])


def unique(a: Any, dims: Any = None) -> Any:
    """`unique(itr)`: a vector of itr's distinct elements in order of first occurrence (of a
    Set too, as Julia's); `unique(A; dims)` its distinct slices."""
    if dims is not None:
        return _unique_slices(a, int(dims))
    elems = _unique_list(_elements(a))
    if isinstance(a, JSet):
        return _typed_vect(np, a.elem_type, *elems)
    return _result(a, elems)


def _unique_slices(a: Any, d: int) -> np.ndarray:
    """`unique(A; dims=d)`: the slices of A along dimension d, first occurrences only
    (compared as isequal: by their bits, so NaN equals NaN and -0.0 differs from 0.0)."""
    a = np.asarray(a)
    if not 1 <= d <= max(a.ndim, 1):
        raise ZylaError("ArgumentError", f"unique: dimension {d} out of range for a "
                        f"{a.ndim}-dimensional array")
    ax = a.ndim - d
    seen: set = set()
    keep = []
    for i in range(a.shape[ax]):
        sl = np.take(a, i, axis=ax)
        k = tuple(_key(e) for e in sl.reshape(-1)) if a.dtype == object else sl.tobytes()
        if k not in seen:
            seen.add(k)
            keep.append(i)
    return np.take(a, keep, axis=ax)


def issubset(a: Any, b: Any) -> bool:
    kb = {_key(e) for e in _elements(b)}
    return all(_key(e) in kb for e in _elements(a))


def _mutating(name: str) -> Any:
    """`union!`/`intersect!`/`setdiff!` on a Set: the set's contents replaced in place."""
    fn = {"union!": union, "intersect!": intersect, "setdiff!": setdiff}[name]

    def update(s: Any, *rest: Any) -> Any:
        if not isinstance(s, JSet):
            raise ZylaError("MethodError", f"no method matching {name}(::"
                                           f"{V.type_name(typeof(s))}, ...)",
                            hint=f"{name} is defined for Sets here")
        new = fn(s, *rest)
        s._d = {}
        s.jl_push(*new.items)
        return s

    return update


def set_delete(s: Any, x: Any) -> Any:
    """`delete!(s::Set, x)`; dictionaries keep their own method."""
    if isinstance(s, JSet):
        s.discard(x)
        return s

    return delete(s, x)


EMPTY_OF[JSet] = EMPTY_OF[KeySet] = lambda x, types: JSet((), types[0] if types else x.elem_type)


def install(rt: Any) -> None:
    """Register `Set` and the set functions in `rt.builtins`."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Set"] = SetT
    b["AbstractSet"] = AbstractSetT
    b["Base.KeySet"] = KeySetT
    SetT.constructor = make_set  # type: ignore[attr-defined]
    for names, fn in ((("union", "∪"), union), (("intersect", "∩"), intersect),
                      (("setdiff",), setdiff), (("symdiff",), symdiff), (("unique",), unique),
                      (("issubset", "⊆"), issubset)):
        for name in names:
            b[name] = prim(name, fn, HOST, NONDIFF, anyt)
    b["⊇"] = prim("⊇", lambda a, c: issubset(c, a), HOST, NONDIFF, anyt)
    for name in ("union!", "intersect!", "setdiff!"):
        b[name] = prim(name, _mutating(name), HOST, NONDIFF, anyt)
    b["delete!"] = prim("delete!", set_delete, HOST, NONDIFF, anyt)
