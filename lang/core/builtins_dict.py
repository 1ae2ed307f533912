"""`Dict` on the host: a Python dict subclass that knows its Julia type `Dict{K,V}`.

Construction from pairs (`Dict("a" => 1)`, `Dict(pairs)`, `Dict{String,Int}()`; the key
and value types are the typejoin of the pairs' ones), and the functions that are specific
to dictionaries: `get!`, `delete!`, `merge`, `pairs`, `keytype`, `valtype`, `getkey`,
`empty`. `IdDict` is a Dict whose keys are compared with `===` (JIdDict). The mutators
(`empty!`, `merge!`, `pop!(d, k)`, ...) are in lang.core.builtins_mutate.
Indexing, `haskey`, `get`, `keys`, `values`, `length` and iteration (as `k => v` pairs)
are in lang.core.builtins and lang.core.primitives_array, which treat any dict alike. Keys are
compared by Julia's `isequal` (`isequal_key`: Python's equality where it agrees, so most keys
are stored as they are; NaN, -0.0, arrays and tuples holding them through a stand-in).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current, hashtrie
from lang.core import values as V
from lang.core.builtins import FILTERED, _pair, convert
from lang.core.eltypes import promote_typejoin, tag
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.primitives_array import COPIES, collect_results
from lang.core.show import jl_show

AbstractDictT = V.JType("AbstractDict", V.AnyT, arity=2, abstract=True)
DictT = V.JType("Dict", AbstractDictT, arity=2)

HOST = HostOnly("dictionaries are host values")


def _common(types: list[V.JType]) -> V.JType:
    """The element type Julia's `Dict(pairs...)` infers for keys (values) of these types:
    their promote_typejoin (`Dict(1 => 1, 2 => 2.0)` is a `Dict{Int64, Real}`;
    `Dict(1 => 1, 2 => nothing)` a `Dict{Int64, Union{Nothing, Int64}}`)."""
    return promote_typejoin(types) if types else V.AnyT


def _iterate_pairs(what: str, x: Any) -> list:
    """The elements of `Dict(x)`'s argument; one that is not iterable is Julia's
    ArgumentError (`Dict(nothing)`)."""
    try:
        return list(current.runtime().iterate(x))
    except ZylaError as e:
        if e.kind != "MethodError":
            raise
        raise ZylaError("ArgumentError",
                        f"{what}(kv): kv needs to be an iterator of tuples or pairs") from None


#: value types whose Python values need no conversion (by identity: hashing a type costs);
#: translated host code (lang.core.hostcode) stores such values directly
EXACT_VALUE_TYPES = {id(V.Int64T): int, id(V.Float64T): float, id(V.BoolT): bool}


def _check_abstract_number(t: V.JType, value: Any) -> None:
    """A MethodError (Julia's failed convert) when value is not of the abstract number
    type t."""
    vt = typeof(value)
    if not V.issubtype(vt, t):
        raise ZylaError("MethodError", "Cannot `convert` an object of type "
                                       f"{V.type_name(vt)} to an object of type {V.type_name(t)}")


class _Tag:
    """The tag of an isequal stand-in (unequal to any Julia value)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


_NAN_TAG, _NEG_ZERO_TAG, _TUPLE_TAG, _ARRAY_TAG, _DICT_TAG = (
    _Tag("NaN"), _Tag("-0.0"), _Tag("tuple"), _Tag("array"), _Tag("dict"))
_FLOAT_TYPES = (float, np.float64, np.float32, np.float16)
#: Python types whose equality and hash are Julia's isequal and hash
_PLAIN_KEY_TYPES = frozenset({int, str, bool, V.Symbol, V.Char, type(None)})
_NUMBERS = (int, float, bool, np.number, np.bool_)


def isequal_key(x: Any) -> Any:
    """A hashable stand-in for x, equal for two values exactly when Julia's `isequal` says
    so; x itself when Python's equality already is isequal. NaN equals NaN, -0.0 is not
    0.0 (also inside tuples), arrays and Dicts compare by value (1 and 1.0 are equal, as
    in Julia). A value with no hash is an ArgumentError."""
    t = type(x)
    if t in _PLAIN_KEY_TYPES:
        return x
    if t in _FLOAT_TYPES:
        if x != x:
            return _NAN_TAG
        if x == 0.0 and math.copysign(1.0, x) < 0:
            return _NEG_ZERO_TAG
        return x
    if t is tuple:
        ks = tuple(isequal_key(e) for e in x)
        return x if all(k is e for k, e in zip(ks, x, strict=True)) else (_TUPLE_TAG, ks)
    if isinstance(x, np.ndarray):
        flat = x.ravel(order="F").tolist()
        return (_ARRAY_TAG, x.shape, tuple(isequal_key(e) for e in flat))
    if isinstance(x, dict):
        return (_DICT_TAG, frozenset((isequal_key(k), isequal_key(v)) for k, v in x.items()))
    if t is V.StructValue:  # a type compared by value although mutable (`Expr`): its
        key_of = getattr(x.type, "isequal_key", None)  # key of its parts' keys
        if key_of is not None:
            return key_of(x, isequal_key)
    try:
        hash(x)
    except TypeError:
        raise ZylaError("ArgumentError", f"a value of type {V.type_name(typeof(x))} has no "
                                         "hash, so it cannot be a key or a Set element") from None
    return x


class _IsEqual:
    """A Dict key whose Python equality is not Julia's isequal (NaN, -0.0, an array, a
    tuple holding one): compared and hashed by its stand-in; `value` is the Julia key."""

    __slots__ = ("key", "value")

    def __init__(self, value: Any, key: Any) -> None:
        self.value, self.key = value, key

    def __eq__(self, other: object) -> bool:
        return type(other) is _IsEqual and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def stored_key(k: Any) -> Any:
    """The Python dict key under which a JDict stores the Julia key k."""
    if type(k) in _PLAIN_KEY_TYPES:
        return k
    s = isequal_key(k)
    return k if s is k else _IsEqual(k, s)


def _julia_key(k: Any) -> Any:
    return k.value if type(k) is _IsEqual else k


class JDict(dict):
    """A Julia `Dict{K,V}`; K and V are fixed at construction (inferred from the pairs)."""

    def __init__(self, items: Any = (), key_type: V.JType | None = None,
                 value_type: V.JType | None = None) -> None:
        if key_type is None or value_type is None:
            super().__init__()
            for k, v in (items.items() if isinstance(items, dict) else items):
                self._put(k, v)
            self._set_types(key_type or _common([typeof(k) for k in self.keys()]),
                            value_type or _common([typeof(v) for v in self.values()]))
            return
        # Dict{Float64, V}(1 => x), Dict{String, Float64}("a" => 1): numeric keys
        # converted to K, the values to V, as `d[k] = v` converts them
        super().__init__()
        self._set_types(key_type, value_type)
        for k, v in (items.items() if isinstance(items, dict) else items):
            self[k] = v

    #: of a Dict{String, V}: the Python type a value of type V is stored as it is (int for
    #: Int64, float for Float64, bool for Bool); None otherwise (translated host code's
    #: `d[k] = v` of a String key checks this one attribute)
    string_exact: type | None = None

    def _set_types(self, key_type: V.JType, value_type: V.JType) -> None:
        """Fixes K and V (and `string_exact`, which follows from them)."""
        self.key_type, self.value_type = key_type, value_type
        if key_type is V.StringT:
            self.string_exact = EXACT_VALUE_TYPES.get(id(value_type))

    @property
    def jtype(self) -> V.JType:  # type: ignore[override]
        return V.apply_type(DictT, (self.key_type, self.value_type))

    def __setitem__(self, key: Any, value: Any) -> None:
        kt = self.key_type
        if type(key) is not EXACT_VALUE_TYPES.get(id(kt)) and kt in V.JTYPE_TO_DTYPE:
            key = convert(current.runtime(), kt, key)  # a Dict{Float64}'s key 1 is 1.0
        vt = self.value_type
        if type(value) is not EXACT_VALUE_TYPES.get(id(vt)) and vt in V.JTYPE_TO_DTYPE:
            value = convert(current.runtime(), vt, value)
        elif vt.abstract and vt is not V.AnyT and V.issubtype(vt, V.NumberT):
            _check_abstract_number(vt, value)  # (a Dict{String, Real} holds numbers only)
        elif (vt.family.name == "Complex" and vt.params and not vt.abstract
              and isinstance(value, (int, float, np.number, V.StructValue))
              and typeof(value) != vt):
            rt = current.runtime()  # Dict{K, ComplexF64}: d[k] = 2 stores 2.0 + 0.0im
            value = rt.interp.call_value(rt.lookup("convert"), [vt, value])
        elif vt.name == "Char" and isinstance(value, (int, np.integer)):
            value = V.Char(chr(int(value)))  # Dict{Int, Char}: d[1] = 97 stores 'a'
        elif (isinstance(value, (int, float, np.number)) and vt is not V.AnyT
              and not V.issubtype(vt, V.NumberT) and vt.name != "Char"
              and not V.issubtype(typeof(value), vt)):
            # a number never converts to a non-number value type (`Dict{String,
            # Vector{Int}}()["b"] = 1` is a MethodError, as convert's)
            raise ZylaError("MethodError", "Cannot `convert` an object of type "
                            f"{V.type_name(typeof(value))} to an object of type {V.type_name(vt)}")
        self._put(key, value)

    #: whether a key is stored as an _IsEqual (then iteration unwraps the keys)
    _wrapped = False
    #: the Python types of the numeric keys stored so far
    _numtypes: frozenset = frozenset()

    def _put(self, key: Any, value: Any) -> None:
        """Stores value under the Julia key key (already converted to the key type); an
        isequal key of another type replaces the stored one, as Julia's setindex! does."""
        if type(key) is not str and isinstance(key, str) and (
                getattr(self, "key_type", None) is V.StringT):  # (not yet set: being built)
            key = str(key)  # (a SubString key of a Dict{String} is converted to a String)
        sk = stored_key(key)
        if sk is not key:
            self._wrapped = True
        if type(key) is not str and isinstance(key, _NUMBERS):
            t = type(key)
            if t not in self._numtypes:
                self._numtypes = self._numtypes | {t}
            if len(self._numtypes) > 1 and dict.__contains__(self, sk):
                self._replace_key(sk)
        dict.__setitem__(self, sk, value)

    def _replace_key(self, sk: Any) -> None:
        """Puts sk in place of the equal stored key when that one is of another type
        (d[1] = x then d[1.0] = y leaves the key 1.0), keeping the order."""
        for k0 in dict.keys(self):
            if k0 == sk and type(_julia_key(k0)) is not type(_julia_key(sk)):
                items = [(sk if k is k0 else k, v) for k, v in dict.items(self)]
                dict.clear(self)
                dict.update(self, items)
                return

    def store_exact(self, key: Any, value: Any) -> JDict:
        """`d[key] = value` of a value already of the value type (translated host code):
        only the key is converted."""
        kt = self.key_type
        if type(key) is not EXACT_VALUE_TYPES.get(id(kt)) and kt in V.JTYPE_TO_DTYPE:
            key = convert(current.runtime(), kt, key)
        self._put(key, value)
        return self

    def jl_key(self, key: Any) -> Any:
        """The Python dict key of the Julia key key."""
        return stored_key(key)

    def __getitem__(self, key: Any) -> Any:
        return dict.__getitem__(self, stored_key(key))

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, stored_key(key))

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, stored_key(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, stored_key(key), default)

    def pop(self, key: Any, *default: Any) -> Any:
        return dict.pop(self, stored_key(key), *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __iter__(self) -> Any:
        it = dict.__iter__(self)
        return (_julia_key(k) for k in it) if self._wrapped else it

    def keys(self) -> Any:  # type: ignore[override]
        return [_julia_key(k) for k in dict.keys(self)] if self._wrapped else dict.keys(self)

    def items(self) -> Any:  # type: ignore[override]
        if self._wrapped:
            return [(_julia_key(k), v) for k, v in dict.items(self)]
        return dict.items(self)

    def __missing__(self, key: Any) -> Any:
        raise ZylaError("KeyError", f"key {jl_show(_julia_key(key))} not found")


def _copy_dict(d: JDict) -> JDict:
    return JDict(d.items(), d.key_type, d.value_type)


COPIES[JDict] = _copy_dict

IdDictT = V.JType("IdDict", AbstractDictT, arity=2)


class _Egal:
    """A dictionary key compared by Julia's `===`: a mutable value (an array, a Dict, a
    mutable struct) by identity, an immutable one by its type and contents (so 1 and 1.0,
    0.0 and -0.0 are different keys, and NaN is itself)."""

    __slots__ = ("key", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.key = V.egal_key(value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Egal) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


class JIdDict(JDict):
    """A Julia `IdDict{K,V}`: a Dict whose keys are compared with `===` (see _Egal); it
    shows its original keys to the rest of the runtime."""

    def __init__(self, items: Any = (), key_type: V.JType | None = None,
                 value_type: V.JType | None = None) -> None:
        dict.__init__(self)
        items = list(items)
        self.key_type = key_type or _common([typeof(k) for k, _ in items])
        self.value_type = value_type or _common([typeof(v) for _, v in items])
        for k, v in items:
            self[k] = v

    @property
    def jtype(self) -> V.JType:  # type: ignore[override]
        return V.apply_type(IdDictT, (self.key_type, self.value_type))

    def __setitem__(self, key: Any, value: Any) -> None:
        if self.key_type is not V.AnyT and not V.issubtype(typeof(key), self.key_type):
            raise ZylaError("TypeError", "in IdDict setindex!, expected "
                                         f"{V.type_name(self.key_type)}, got a value of type "
                                         f"{V.type_name(typeof(key))}")
        if self.value_type in V.JTYPE_TO_DTYPE:
            value = convert(current.runtime(), self.value_type, value)
        dict.__setitem__(self, _Egal(key), value)

    def __getitem__(self, key: Any) -> Any:
        w = _Egal(key)
        if dict.__contains__(self, w):
            return dict.__getitem__(self, w)
        raise ZylaError("KeyError", f"key {jl_show(key)} not found")

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, _Egal(key))

    def jl_key(self, key: Any) -> Any:
        return _Egal(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, _Egal(key))

    def __iter__(self) -> Any:
        return (w.value for w in dict.keys(self))

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, _Egal(key), default)

    def pop(self, key: Any, *default: Any) -> Any:
        return dict.pop(self, _Egal(key), *default)

    def keys(self) -> Any:  # type: ignore[override]
        return [w.value for w in dict.keys(self)]

    def items(self) -> Any:  # type: ignore[override]
        return [(w.value, v) for w, v in dict.items(self)]

    def copy(self) -> JIdDict:
        return JIdDict(self.items(), self.key_type, self.value_type)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JIdDict) and dict.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]


COPIES[JIdDict] = JIdDict.copy


def _filtered(d: JDict, kept: list) -> JDict:
    """`filter(f, d)` of a Dict (IdDict): a dict of d's type with the pairs kept."""
    return type(d)([(p.fields[0], p.fields[1]) for p in kept], d.key_type, d.value_type)


FILTERED[JDict] = FILTERED[JIdDict] = _filtered


def make_iddict(t: V.JType, args: list, kwargs: dict | None) -> JIdDict:
    """`IdDict(pairs...)`, `IdDict(iterable_of_pairs)`, `IdDict{K,V}(...)`; IdDict() is an
    IdDict{Any, Any}."""
    kv = _pairs_of(t, args)
    kt = t.params[0] if len(t.params) == 2 else (_common([typeof(k) for k, _ in kv]) if kv
                                                 else V.AnyT)
    vt = t.params[1] if len(t.params) == 2 else (_common([typeof(v) for _, v in kv]) if kv
                                                 else V.AnyT)
    return JIdDict(kv, kt, vt)


def _pairs_of(t: V.JType, args: list) -> list[tuple[Any, Any]]:
    items = list(args)
    if len(items) == 1 and not _is_pair(items[0]):
        items = _iterate_pairs(t.name, items[0])
    out = []
    for p in items:
        if _is_pair(p):
            out.append((p.fields[0], p.fields[1]))
        elif isinstance(p, tuple) and len(p) == 2:
            out.append(p)
        else:
            raise ZylaError("ArgumentError",
                            f"{t.name}(kv): kv needs to be an iterator of tuples or pairs")
    return out


def make_dict(t: V.JType, args: list, kwargs: dict | None) -> JDict:
    """`Dict(pairs...)`, `Dict(iterable_of_pairs)`, `Dict{K,V}(...)`."""
    items = list(args)
    if len(items) == 1 and not _is_pair(items[0]):
        items = _iterate_pairs("Dict", items[0])
    kv = []
    for p in items:
        if _is_pair(p):
            kv.append((p.fields[0], p.fields[1]))
        elif isinstance(p, tuple) and len(p) == 2:
            kv.append(p)
        else:
            raise ZylaError("ArgumentError",
                            "Dict(kv): kv needs to be an iterator of tuples or pairs")
    kt = t.params[0] if len(t.params) == 2 else None
    vt = t.params[1] if len(t.params) == 2 else None
    return JDict(kv, kt, vt)


def _is_pair(x: Any) -> bool:
    return isinstance(x, V.StructValue) and x.type.name == "Pair"


def get_bang(rt: Any, d: dict, k: Any, default: Any) -> Any:
    """`get!(d, k, default)` / `get!(f, d, k)`: the value, stored first if absent."""
    if callable(getattr(d, "get", None)) and isinstance(d, dict):
        if k not in d:
            d[k] = default
        return d[k]
    # get!(f, d, k): f is called only when k is absent
    f, dd, kk = d, k, default
    if kk not in dd:
        dd[kk] = rt.interp.call_value(f, [])
    return dd[kk]


def delete(d: dict, k: Any) -> dict:
    d.pop(k, None)
    return d


def merge(*ds: dict) -> JDict:
    """`merge(d, others...)`: a new Dict with the pairs of all (later ones win), its key
    and value types the promote_type of theirs (as Julia's merge)."""
    for d in ds:
        if not isinstance(d, dict):
            raise ZylaError("MethodError", f"no method matching merge(::{V.type_name(typeof(d))}"
                                           ", ...)")
    out = typed_dict(*ds)
    for d in ds:
        for k, v in d.items():
            out[k] = v
    return out


def typed_dict(*ds: dict) -> JDict:
    """An empty Dict whose key (value) type is the promote_type of the key (value) types
    of the dicts ds (Julia's `Base._typeddict`, used by merge and mergewith)."""
    rt = current.runtime()
    promote = rt.lookup("promote_type")  # (Zyla's: it knows Complex and Rational too)
    kt, vt = keytype(ds[0]), valtype(ds[0])
    for d in ds[1:]:
        kt = rt.interp.call_value(promote, [kt, keytype(d)])
        vt = rt.interp.call_value(promote, [vt, valtype(d)])
    return JDict((), kt, vt)


#: Base's `Iterators.Pairs{K, V, I, A}` (the type of `pairs(nt)` in Julia; Zyla names it
#: for `keytype` and `valtype` of it)
PairsT = V.JType("Base.Pairs", AbstractDictT, arity=4)


def _dict_type_params(t: V.JType) -> tuple:
    """The key and value type parameters (K, V) of a type that is an AbstractDict{K,V}, as
    far as it gives them: `Dict{Int8}`'s (Int8,); a struct declared `S{K,V} <:
    AbstractDict{K,V}`, through its supertype."""
    fam = t.family
    if fam.is_struct:
        if len(t.params) == fam.arity:
            while t is not None and t.family is not AbstractDictT:
                t = V.supertype(t)
            return t.params if t is not None else ()
        declared = [getattr(p, "name", None) for p in getattr(fam.super_, "params", ())]
        return t.params if declared[:2] == list(fam.param_names[:2]) else ()
    return t.params


def _dict_params(x: Any, fname: str) -> tuple[Any, Any]:
    """The key and value types of a dict (a program's AbstractDict: its type's), or of an
    AbstractDict type where it gives them (None for a parameter it leaves open)."""
    if isinstance(x, JDict):
        return x.key_type, x.value_type
    if isinstance(x, dict):
        return V.AnyT, V.AnyT
    if isinstance(x, V.StructValue):
        x = x.type
    if isinstance(x, V.JType) and V.issubtype(x, AbstractDictT):
        params = [p if isinstance(p, V.JType) else None for p in _dict_type_params(x)[:2]]
        k, v = (params + [None, None])[:2]
        if (k if fname == "keytype" else v) is not None:
            return k, v
    raise ZylaError("MethodError", f"no method matching {fname}(::{V.type_name(typeof(x))})")


def keytype(x: Any) -> V.JType:
    """`keytype(d)`: the key type of a Dict (or Dict type); Int64 for a vector."""
    if isinstance(x, (np.ndarray, V.Range, tuple)) and _ndims(x) == 1:
        return V.Int64T
    return _dict_params(x, "keytype")[0]


def valtype(x: Any) -> V.JType:
    """`valtype(d)`: the value type of a Dict (or Dict type); the element type of an array."""
    if isinstance(x, (np.ndarray, V.Range)):
        return typeof_elem(x)
    return _dict_params(x, "valtype")[1]


def _ndims(x: Any) -> int:
    return x.ndim if isinstance(x, np.ndarray) else 1


def typeof_elem(x: Any) -> V.JType:
    """The element type of a host array or range (its type's first parameter)."""
    t = typeof(x)
    return t.params[0] if t.params else V.AnyT


def getkey(d: Any, k: Any, default: Any) -> Any:
    """`getkey(d, k, default)`: the key of d equal to k as stored, or default."""
    if not isinstance(d, dict):
        raise ZylaError("MethodError", f"no method matching getkey(::{V.type_name(typeof(d))}, "
                                       "::Any, ::Any)")
    try:
        jk = d.jl_key(k) if hasattr(d, "jl_key") else k
        hash(jk)
    except (TypeError, ZylaError):
        return default
    for kk in dict.keys(d):
        if kk == jk:
            return kk.value if type(kk) in (_IsEqual, _Egal) else kk
    return default


#: `empty(c)` of collections defined above this module (a Set: lang.core.builtins_set),
#: by Python type: (c, the element types asked for) -> a new empty collection
EMPTY_OF: dict[type, Callable[[Any, tuple], Any]] = {}


def empty_like(x: Any, *types: Any) -> Any:
    """`empty(c[, K, V])` / `empty(v[, T])`: a new empty collection like c."""
    if isinstance(x, JDict):
        kt, vt = ((x.key_type, x.value_type) if not types else
                  (x.key_type, types[0]) if len(types) == 1 else types[:2])
        return type(x)((), kt, vt)
    if isinstance(x, (np.ndarray, V.Range)):
        t = types[0] if types else typeof_elem(x)
        d = V.JTYPE_TO_DTYPE.get(t)
        if d is not None:
            return np.empty(0, dtype=d)
        # (an object vector keeps the element type: `empty(split("a b"))` takes SubStrings)
        return tag(np.empty(0, dtype=object), t if isinstance(t, V.JType) else None)
    if isinstance(x, tuple):
        return ()
    make = EMPTY_OF.get(type(x))
    if make is not None:
        return make(x, types)
    raise ZylaError("MethodError", f"no method matching empty(::{V.type_name(typeof(x))})")


def install(rt: Any) -> None:
    """Register `Dict` and its functions in `rt.builtins`."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Dict"] = DictT
    b["AbstractDict"] = AbstractDictT
    # the program's own environment: empty unless the user names host variables to copy
    # in (`zyla run --allow-env=NAME,...`, lang.door.wiring); writes stay in it
    b["ENV"] = JDict((), V.StringT, V.StringT)
    DictT.constructor = make_dict  # type: ignore[attr-defined]
    b["IdDict"] = IdDictT
    IdDictT.constructor = make_iddict  # type: ignore[attr-defined]
    b["get!"] = prim("get!", lambda d, k, v: get_bang(rt, d, k, v), HOST, NONDIFF, anyt)
    b["delete!"] = prim("delete!", delete, HOST, NONDIFF, anyt)
    b["merge"] = prim("merge", merge, HOST, NONDIFF, anyt)
    b["pairs"] = prim("pairs", _pairs, HOST, NONDIFF, anyt)
    for name, fn in (("keytype", keytype), ("valtype", valtype), ("getkey", getkey),
                     ("empty", empty_like), ("Core.typed_dict", typed_dict)):
        b[name] = prim(name, fn, HOST, NONDIFF, anyt)
    b["Base.Pairs"] = b["Iterators.Pairs"] = PairsT
    b["Core.HashTrie"] = hashtrie.HashTrieT
    for name, fn in hashtrie.PRIMITIVES.items():  # (Base.PersistentDict's storage)
        b[name] = prim(name, fn, HOST, NONDIFF, anyt)
    b["Core.trie_pairs"] = prim("Core.trie_pairs", _trie_pairs, HOST, NONDIFF, anyt)


def _trie_pairs(t: hashtrie.HashTrie, kt: V.JType, vt: V.JType) -> np.ndarray:
    """A PersistentDict{K,V}'s entries as a Vector{Pair{K,V}}."""
    pt = V.apply_type(current.runtime().builtins["Pair"], (kt, vt))
    out = np.empty(t.length, dtype=object)
    out[:] = [V.StructValue(pt, [k, v]) for k, v in t.items()]
    return tag(out, pt)


def _pairs(x: Any) -> Any:
    """`pairs(d)`: a vector of `k => v` (Dict), `:name => v` (NamedTuple), `i => v`."""
    if isinstance(x, dict):
        items = [_pair(k, v) for k, v in x.items()]
    elif isinstance(x, V.NamedTuple):
        items = [_pair(V.Symbol(k), v) for k, v in zip(x.names, x.values, strict=False)]
    else:
        items = [_pair(i + 1, v) for i, v in enumerate(current.runtime().iterate(x))]
    return collect_results(items, (len(items),))
