"""Host keys: what translated host code (lang.core.hostcode) may know of a value's kind
beyond its Python type, for the loops it writes once per kind of the values they use.

`host_key(x)` is computed where a loop starts, for each value the loop uses from outside
(its loop-invariant values, its carried values' initial values and what it iterates). The
key is x's Python type, or for the kinds whose contents matter to the loop's code:
- a Dict with String keys whose values are stored as one Python type (`Dict{String, Int64}`
  stores Python ints): a `DictKey`, so that `get(d, w, 0)` and `d[w] = n` are written as
  the dictionary's own operations, and their results' types are known;
- a host vector: an `ArrayKey` of its dtype, dimensions and the Python type of the elements
  iterating it gives (a Float64 vector's are floats: its dtype fixes them; an object
  vector's elements are only expected to be of the type its element type names, so the
  loop tests each one and leaves the specialised code for the general one when it is not;
  for a vector of a concrete struct type, that struct type);
- a range of Int64s: `INT_RANGE`, or where it starts at 0 or above and goes up, the key
  of its start's bound in `RANGE_UP_FROM` (`1:n`: its elements are 1 or more, `2:n`: 2
  or more, so that `v[i - 1]` needs no test of the index's lower bound);
- a String of ASCII characters: `ASCII_TEXT` (a loop may iterate its Python characters).
Keys are interned: equal keys are the same object (they are dictionary keys of the loops'
tables, compared often)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lang.core import values as V
from lang.core.builtins_dict import JDict
from lang.core.eltypes import recorded
from lang.core.numeric import PY_ITEM_DTYPES
from lang.core.strings import SUBSTRING_STRING, SubStr


@dataclass(frozen=True, eq=False)
class DictKey:
    """A Dict whose keys are Strings and whose values of type `value_type` are stored as
    the Python type `exact` (int, float or bool)."""

    value_type: Any
    exact: type


@dataclass(frozen=True, eq=False)
class ArrayKey:
    """A host array of this dtype and number of dimensions; `elem`: the Python type of
    the elements iterating it gives, or their struct type (None: not known), and whether
    each must be tested (`checked`: an object vector's)."""

    dtype: np.dtype
    ndim: int
    elem: Any
    checked: bool


#: a range of Int64s (its elements are Python ints)
INT_RANGE = "Int64 range key"
#: a range of Int64s that starts at 0 or above and goes up (its elements are not negative)
INT_RANGE_UP = "Int64 range up from 0 key"
#: ... that starts at 1 or above, at 2 or above
INT_RANGE_UP1 = "Int64 range up from 1 key"
INT_RANGE_UP2 = "Int64 range up from 2 key"
#: the keys of Int64 ranges going up, by the lower bound of their elements
RANGE_UP_FROM = {INT_RANGE_UP: 0, INT_RANGE_UP1: 1, INT_RANGE_UP2: 2}

#: a String of ASCII characters only (its characters are its Python characters)
ASCII_TEXT = "ASCII String key"

#: a list of Strings: the texts of a `split`'s pieces (lang.core.strings.split_texts)
TEXTS_KEY = ArrayKey(np.dtype(object), 1, str, False)

_DICTS: dict[int, DictKey] = {}
_ARRAYS: dict[tuple, ArrayKey] = {}


def dict_key(d: JDict) -> Any:
    """A Dict's key: a DictKey for a Dict{String, V} that stores V's values as one
    Python type, else JDict."""
    exact = d.string_exact
    if exact is None:
        return JDict
    vt = d.value_type
    k = _DICTS.get(id(vt))
    if k is None:
        k = _DICTS[id(vt)] = DictKey(vt, exact)
    return k


def array_key(a: np.ndarray) -> ArrayKey:
    """A host array's key (see ArrayKey)."""
    dt, nd = a.dtype, a.ndim
    obj = dt.kind == "O"
    if obj:
        elt = recorded(a) if nd == 1 else None
        elem = None if elt is None else str if elt is V.StringT else (
            SubStr if elt == SUBSTRING_STRING  # (an equal type may be another object)
            else elt if V.plain_struct(elt) else None)
    else:
        elem = _NUMBER_ELEMS.get(dt.kind) if dt in PY_ITEM_DTYPES and nd == 1 else None
    t = (dt, nd, elem)
    k = _ARRAYS.get(t)
    if k is None:
        k = _ARRAYS[t] = ArrayKey(dt, nd, elem, obj and elem is not None)
    return k


#: the Python type of the elements of a vector of Float64, Int64 or Bool, by dtype kind
_NUMBER_ELEMS = {"f": float, "i": int, "b": bool}


def _range_key(r: V.Range) -> Any:
    if type(r.start) is not int or type(r.step) is not int:
        return V.Range
    if r.start < 0 or r.step <= 0:
        return INT_RANGE
    return INT_RANGE_UP2 if r.start >= 2 else INT_RANGE_UP1 if r.start else INT_RANGE_UP


def _text_key(s: str) -> Any:
    return ASCII_TEXT if s.isascii() else str


_BY_TYPE = {JDict: dict_key, np.ndarray: array_key, V.Range: _range_key, str: _text_key}


def host_key(x: Any) -> Any:
    """What a loop's code may assume of x (see the module's docstring)."""
    t = type(x)
    f = _BY_TYPE.get(t)
    return t if f is None else f(x)
