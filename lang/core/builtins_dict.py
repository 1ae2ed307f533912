"""`Dict` on the host: a Python dict subclass that knows its Julia type `Dict{K,V}`.

Construction from pairs (`Dict("a" => 1)`, `Dict(pairs)`, `Dict{String,Int}()`), and the
functions that are specific to dictionaries: `get!`, `delete!`, `merge`, `pairs`.
Indexing, `haskey`, `get`, `keys`, `values`, `length` and iteration (as `k => v` pairs)
are in lang.core.builtins and lang.core.primitives_array, which treat any dict alike. Keys are
compared by Python equality, which matches Julia's `isequal` for numbers, strings,
symbols and tuples.
"""

from __future__ import annotations

from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.builtins import _pair, convert
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.primitives_array import collect_results
from lang.core.show import jl_show

AbstractDictT = V.JType("AbstractDict", V.AnyT, arity=2, abstract=True)
DictT = V.JType("Dict", AbstractDictT, arity=2)

HOST = HostOnly("dictionaries are host values")


def _common(types: list[V.JType]) -> V.JType:
    if not types:
        return V.AnyT
    first = types[0]
    return first if all(t == first for t in types) else V.AnyT


#: value types whose Python values need no conversion (by identity: hashing a type costs);
#: translated host code (lang.core.hostcode) stores such values directly
EXACT_VALUE_TYPES = {id(V.Int64T): int, id(V.Float64T): float, id(V.BoolT): bool}


class JDict(dict):
    """A Julia `Dict{K,V}`; K and V are fixed at construction (inferred from the pairs)."""

    def __init__(self, items: Any = (), key_type: V.JType | None = None,
                 value_type: V.JType | None = None) -> None:
        super().__init__(items)
        self.key_type = key_type or _common([typeof(k) for k in self.keys()])
        self.value_type = value_type or _common([typeof(v) for v in self.values()])

    @property
    def jtype(self) -> V.JType:  # type: ignore[override]
        return V.apply_type(DictT, (self.key_type, self.value_type))

    def __setitem__(self, key: Any, value: Any) -> None:
        vt = self.value_type
        if type(value) is not EXACT_VALUE_TYPES.get(id(vt)) and vt in V.JTYPE_TO_DTYPE:
            value = convert(current.runtime(), vt, value)
        super().__setitem__(key, value)

    def __missing__(self, key: Any) -> Any:
        raise ZylaError("KeyError", f"key {jl_show(key)} not found")

    def jl_show(self) -> str:
        inner = ", ".join(f"{jl_show(k)} => {jl_show(v)}" for k, v in self.items())
        return f"{V.type_name(self.jtype)}({inner})"


def make_dict(t: V.JType, args: list, kwargs: dict | None) -> JDict:
    """`Dict(pairs...)`, `Dict(iterable_of_pairs)`, `Dict{K,V}(...)`."""
    items = list(args)
    if len(items) == 1 and not _is_pair(items[0]):
        items = list(current.runtime().iterate(items[0]))
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
    out = JDict()
    for d in ds:
        out.update(d)
    out.key_type = _common([typeof(k) for k in out.keys()])
    out.value_type = _common([typeof(v) for v in out.values()])
    return out


def install(rt: Any) -> None:
    """Register `Dict` and its functions in `rt.builtins`."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Dict"] = DictT
    b["AbstractDict"] = AbstractDictT
    DictT.constructor = make_dict  # type: ignore[attr-defined]
    b["get!"] = prim("get!", lambda d, k, v: get_bang(rt, d, k, v), HOST, NONDIFF, anyt)
    b["delete!"] = prim("delete!", delete, HOST, NONDIFF, anyt)
    b["merge"] = prim("merge", merge, HOST, NONDIFF, anyt)
    b["pairs"] = prim("pairs", _pairs, HOST, NONDIFF, anyt)


def _pairs(x: Any) -> Any:
    """`pairs(d)`: a vector of `k => v` (Dict), `:name => v` (NamedTuple), `i => v`."""
    if isinstance(x, dict):
        items = [_pair(k, v) for k, v in x.items()]
    elif isinstance(x, V.NamedTuple):
        items = [_pair(V.Symbol(k), v) for k, v in zip(x.names, x.values, strict=False)]
    else:
        items = [_pair(i + 1, v) for i, v in enumerate(current.runtime().iterate(x))]
    return collect_results(items, (len(items),))
