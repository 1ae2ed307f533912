"""Saving and loading values: the format behind `JLD2`, `BSON` and `FileIO` names.

A save file is a zip archive holding `zyla-save.json` (a tree that describes the values)
and one `.npy` file per numeric array (numpy's format, written and read with
`allow_pickle=False`). It is data only: loading builds values of types the program already
has (a struct by its type's name, a function by its name) and never runs code from the
file; a name the program does not define is an error, as is anything that is not data
(a closure, a task). Writing goes through the permission gate (lang.core.safety:
`writable`), reading through `read_bytes`, so a model file may save only where it may
write. Files written by Julia's JLD2 or BSON are not this format and are refused with a
clear error.

The tree: each value is a JSON object with a kind `k` — "int", "float", "bool", "nothing",
"str", "sym", "char", "scalar" (a numpy scalar of another type), "arr" (numeric array:
`ref` names the .npy entry; the host layout is kept as it is), "objs" (an array of values),
"tuple", "nt" (NamedTuple), "dict", "struct", "fn", "type", "range", "rational", "wide".
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current, safety
from lang.core import values as V
from lang.core.builtins_dict import JDict
from lang.core.builtins_types import struct_params
from lang.core.functions import GenericFunction, typeof
from lang.core.primitives import NONDIFF, HostOnly, Primitive, prim

TREE = "zyla-save.json"
FORMAT = "zyla-save 1"


# --- writing ---------------------------------------------------------------------------------

class _Writer:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def enc(self, x: Any) -> dict:
        f = _ENCODERS.get(type(x))
        if f is not None:
            return f(self, x)
        if isinstance(x, np.generic):
            return {"k": "scalar", "dtype": x.dtype.str, "v": _num(x.item())}
        if isinstance(x, dict):  # a Dict
            return self.enc_dict(x)
        if isinstance(x, V.JType):
            return self.enc_type(x)
        if isinstance(x, V.WideInt):
            return {"k": "wide", "type": type(x).__name__, "v": str(x.value)}
        what = V.type_name(typeof(x))
        raise ZylaError("ArgumentError", f"cannot save a value of type {what}: only data "
                        "(numbers, strings, arrays, tuples, structs, dictionaries, named "
                        "functions and types) is saved")

    def enc_array(self, x: np.ndarray) -> dict:
        if x.dtype == object:
            return {"k": "objs", "shape": list(x.shape),
                    "items": [self.enc(v) for v in x.reshape(-1)]}
        ref = f"a{len(self.arrays)}.npy"
        self.arrays[ref] = x
        return {"k": "arr", "ref": ref}

    def enc_dict(self, d: dict) -> dict:
        out: dict[str, Any] = {"k": "dict", "items": [[self.enc(k), self.enc(v)]
                                                      for k, v in d.items()]}
        if isinstance(d, JDict):
            out["key"] = self.enc_type(d.key_type)
            out["value"] = self.enc_type(d.value_type)
        return out

    def enc_type(self, t: Any) -> dict:
        if not isinstance(t, V.JType):
            return self.enc(t)
        fam = t.family
        if fam.name.startswith("typeof(") and fam.super_ is V.FunctionT:
            # a function's type (`Dense{typeof(relu), ...}`): saved by the function's name
            return {"k": "fntype", "name": fam.name[len("typeof("):-1]}
        return {"k": "type", "name": fam.name, "params": [self.enc_param(p) for p in t.params]}

    def enc_param(self, p: Any) -> dict:
        if isinstance(p, tuple):
            return {"k": "tuple", "items": [self.enc_param(q) for q in p]}
        if isinstance(p, V.TypeVar):
            raise ZylaError("ArgumentError", "cannot save a type with a free type variable")
        return self.enc_type(p) if isinstance(p, V.JType) else self.enc(p)

    def enc_struct(self, x: V.StructValue) -> dict:
        return {"k": "struct", "type": self.enc_type(x.type),
                "fields": [self.enc(v) for v in x.fields]}

    def enc_fn(self, f: Any) -> dict:
        return {"k": "fn", "name": f.name}


def _num(v: Any) -> Any:
    """A number as JSON holds it (non-finite floats as their Julia names)."""
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Inf" if v > 0 else "-Inf")
    return v


_ENCODERS: dict[type, Callable[[_Writer, Any], dict]] = {
    bool: lambda w, x: {"k": "bool", "v": x},
    int: lambda w, x: {"k": "int", "v": x},
    float: lambda w, x: {"k": "float", "v": _num(x)},
    str: lambda w, x: {"k": "str", "v": x},
    type(None): lambda w, x: {"k": "nothing"},
    V.Symbol: lambda w, x: {"k": "sym", "v": x.name},
    V.Char: lambda w, x: {"k": "char", "v": x.value},
    V.Rational: lambda w, x: {"k": "rational", "v": [x.numerator, x.denominator]},
    np.ndarray: _Writer.enc_array,
    tuple: lambda w, x: {"k": "tuple", "items": [w.enc(v) for v in x]},
    V.NamedTuple: lambda w, x: {"k": "nt", "names": list(x.names),
                                "items": [w.enc(v) for v in x.values]},
    V.Range: lambda w, x: {"k": "range", "v": [w.enc(x.start), w.enc(x.step), x.length,
                                                x.unit],
                           "exact": None if x.exact is None else [str(v) for v in x.exact]},
    V.StructValue: _Writer.enc_struct,
    GenericFunction: _Writer.enc_fn,
    Primitive: _Writer.enc_fn,
}


def save_values(path: Any, names: Any, values: Any) -> None:
    """Write the named values to `path` (a new file, or one replaced)."""
    if not isinstance(path, str):
        raise ZylaError("ArgumentError", "the file to save to must be a String")
    names = [n.name if isinstance(n, V.Symbol) else str(n) for n in names]
    w = _Writer()
    tree = {"format": FORMAT, "values": {n: w.enc(v) for n, v in zip(names, values,
                                                                      strict=True)}}
    target = safety.writable(path, "saving")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(TREE, json.dumps(tree))
        for ref, arr in w.arrays.items():
            data = io.BytesIO()
            np.save(data, np.ascontiguousarray(arr), allow_pickle=False)
            z.writestr(ref, data.getvalue())
    with open(target, "wb") as f:
        f.write(buf.getvalue())
    return None


# --- reading ---------------------------------------------------------------------------------

class _Reader:
    def __init__(self, rt: Any, z: zipfile.ZipFile) -> None:
        self.rt = rt
        self.zip = z

    def dec(self, t: Any) -> Any:
        if not isinstance(t, dict) or "k" not in t:
            raise _damaged("a value without a kind")
        f = _DECODERS.get(t["k"])
        if f is None:
            raise _damaged(f"a value of unknown kind {t['k']!r}")
        return f(self, t)

    def array(self, t: dict) -> np.ndarray:
        ref = t.get("ref")
        if not isinstance(ref, str) or ref not in self.zip.namelist():
            raise _damaged("an array entry is missing")
        with self.zip.open(ref) as f:
            arr = np.load(io.BytesIO(f.read()), allow_pickle=False)
        return np.array(arr)  # writable, its own memory

    def objs(self, t: dict) -> np.ndarray:
        items = [self.dec(v) for v in t["items"]]
        out = np.empty(len(items), dtype=object)
        for k, v in enumerate(items):
            out[k] = v
        return out.reshape(tuple(t["shape"]))

    def named(self, name: Any, what: str) -> Any:
        if not isinstance(name, str):
            raise _damaged(f"a {what} without a name")
        try:
            return self.rt.lookup(name)
        except ZylaError:
            raise ZylaError("UndefVarError", f"the saved file names the {what} `{name}`, "
                            "which this program does not define",
                            hint="define it (or `using` its package) before loading") from None

    def jtype(self, t: dict) -> V.JType:
        if t.get("k") != "type":
            return self.dec(t)
        fam = self.named(t.get("name"), "type")
        if not isinstance(fam, V.JType):
            raise ZylaError("TypeError", f"the saved file names `{t.get('name')}` as a type, "
                            "and it is not one here")
        params = tuple(self.param(p) for p in t.get("params", []))
        return V.apply_type(fam.family, params) if params else fam

    def param(self, p: dict) -> Any:
        if isinstance(p, dict) and p.get("k") == "tuple":
            return tuple(self.param(q) for q in p["items"])
        return self.jtype(p) if isinstance(p, dict) and p.get("k") == "type" else self.dec(p)

    def struct(self, t: dict) -> V.StructValue:
        typ = self.jtype(t["type"])
        fields = [self.dec(v) for v in t["fields"]]
        if not getattr(typ, "is_struct", False) or len(fields) != len(typ.family.fields):
            raise ZylaError("TypeError", f"the saved file's `{V.type_name(typ)}` does not "
                            "match this program's struct of that name")
        if typ.family.param_names and not typ.params:
            typ = struct_params(typ, fields)
        return V.StructValue(typ, fields)

    def fn(self, t: dict) -> Any:
        f = self.named(t.get("name"), "function")
        if not isinstance(f, (GenericFunction, Primitive)):
            raise ZylaError("TypeError", f"the saved file names `{t.get('name')}` as a "
                            "function, and it is not one here")
        return f

    def dict_(self, t: dict) -> dict:
        items = [(self.dec(k), self.dec(v)) for k, v in t["items"]]
        kt = self.jtype(t["key"]) if "key" in t else None
        vt = self.jtype(t["value"]) if "value" in t else None
        return JDict(items, kt, vt)


def _float(v: Any) -> float:
    return {"NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(v, v) \
        if isinstance(v, str) else float(v)


def _wide(r: _Reader, t: dict) -> Any:
    cls = {"Int128": V.Int128, "UInt128": V.UInt128}.get(t.get("type"))
    if cls is None:
        raise _damaged("an integer of unknown width")
    return cls(int(t["v"]))


_DECODERS: dict[str, Callable[[_Reader, dict], Any]] = {
    "int": lambda r, t: int(t["v"]),
    "float": lambda r, t: _float(t["v"]),
    "bool": lambda r, t: bool(t["v"]),
    "nothing": lambda r, t: None,
    "str": lambda r, t: str(t["v"]),
    "sym": lambda r, t: V.Symbol(str(t["v"])),
    "char": lambda r, t: V.Char(str(t["v"])),
    "rational": lambda r, t: V.Rational(int(t["v"][0]), int(t["v"][1])),
    "scalar": lambda r, t: np.dtype(t["dtype"]).type(_float(t["v"]) if np.dtype(
        t["dtype"]).kind == "f" else t["v"]),
    "arr": _Reader.array,
    "objs": _Reader.objs,
    "tuple": lambda r, t: tuple(r.dec(v) for v in t["items"]),
    "nt": lambda r, t: V.NamedTuple(tuple(t["names"]), tuple(r.dec(v) for v in t["items"])),
    "range": lambda r, t: V.Range(r.dec(t["v"][0]), r.dec(t["v"][1]), int(t["v"][2]),
                                  bool(t["v"][3]), None if t.get("exact") is None else
                                  tuple(int(v) for v in t["exact"])),
    "struct": _Reader.struct,
    "fn": _Reader.fn,
    "type": _Reader.jtype,
    "fntype": lambda r, t: typeof(r.named(t.get("name"), "function")),
    "dict": _Reader.dict_,
    "wide": _wide,
}


def _damaged(what: str) -> ZylaError:
    return ZylaError("ArgumentError", f"the saved file is damaged: {what}")


def load_values(path: Any) -> JDict:
    """The values saved in `path`, by name (a Dict{String,Any})."""
    if not isinstance(path, str):
        raise ZylaError("ArgumentError", "the file to load must be a String")
    data = safety.read_bytes(path, "loading")
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        tree = json.loads(z.read(TREE))
    except (zipfile.BadZipFile, KeyError, ValueError):
        raise ZylaError("ArgumentError", f"{path!r} is not a file Zyla saved",
                        hint="Zyla reads the files its JLD2/BSON/FileIO functions write "
                             "(a zip of a JSON tree and .npy arrays), not Julia's own "
                             "JLD2 or BSON files") from None
    if not isinstance(tree, dict) or tree.get("format") != FORMAT:
        raise _damaged("not a Zyla save file of a known version")
    r = _Reader(current.runtime(), z)
    out = JDict({}, V.StringT, V.AnyT)
    for name, t in tree.get("values", {}).items():
        dict.__setitem__(out, name, r.dec(t))
    return out


def load_names(path: Any, names: Any) -> tuple:
    """The values saved in `path` under `names` (`@load file a b`), in that order."""
    d = load_values(path)
    out = []
    for n in names:
        if n not in d:
            raise ZylaError("KeyError", f"{path!r} holds no value named `{n}`",
                            hint=f"it holds: {', '.join(d) or 'nothing'}")
        out.append(dict.__getitem__(d, n))
    return tuple(out)


def install(rt: Any) -> None:
    host = HostOnly("saving and loading files run on the host")
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    for name, f in {"Core.save_values": save_values, "Core.load_values": load_values,
                    "Core.load_names": load_names}.items():
        rt.builtins[name] = prim(name, f, host, NONDIFF, anyt)

