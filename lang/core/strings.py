"""Julia's String indices: a String is a Python `str`, but its indices are Julia's, byte
(UTF-8 code unit) positions, 1-based. An ASCII string's byte and character positions
agree, so it takes the fast path; any other string is looked at through its UTF-8 bytes
(cached per string). `SubString{String}` is a `str` subclass that remembers the String it
views and its byte offset; its own indices start at 1, as Julia's do.

The character boundaries are Julia's (Base's `iterate`/`thisind`/`nextind` of `String`):
a lead byte 0xc0..0xf7 takes the continuation bytes that follow it, up to its length;
any other byte is a character of its own. A character that is not valid UTF-8 is a
`Char` whose text is the surrogate-escaped bytes (Python's `surrogateescape`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current, exceptions, show
from lang.core import values as V
from lang.core.eltypes import tag
from lang.core.functions import cannot_convert, typeof
from lang.core.lower import COLON
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.show import jl_print, jl_show, jl_string

_HOST = HostOnly("string indexing runs on the host")

SubStringT = V.JType("SubString", V.AbstractStringT, (), False, 1)
V.BUILTIN_TYPES.setdefault("SubString", SubStringT)
SUBSTRING_STRING = V.apply_type(SubStringT, (V.StringT,))


class SubStr(str):
    """A `SubString{String}`: its text, the String it views (`parent`) and its byte offset
    there (`offset`), made by `substr` (`SubStr(text)` alone has parent "" and offset 0).
    It has no `__new__` of its own, so that `split` makes its pieces in C; the
    pieces of one fast `split` share one attribute dict, whose `_at` finds each piece's
    offset when it is first asked for (`_SplitOffsets`)."""

    jtype = SUBSTRING_STRING
    parent: str = ""
    _at: Any = 0  # the offset (an int), or the _SplitOffsets that finds it

    @property
    def offset(self) -> int:
        """The byte offset of the text in `parent`."""
        at = self._at
        return at.offset_of(self) if type(at) is _SplitOffsets else at

    def __reduce__(self) -> tuple[Any, ...]:
        """(copy, deepcopy and pickle make a SubString with its own parent and offset)"""
        return substr, (str(self), self.parent, self.offset)


def viewed(s: str) -> tuple[str, int]:
    """The String a String or SubString views and its byte offset there (a String: itself,
    at 0); a SubString of `s` views the same String."""
    return (s.parent, s.offset) if isinstance(s, SubStr) else (str(s), 0)


def substr(text: str, parent: str, offset: int) -> SubStr:
    """The SubString with text `text` of `parent` at byte offset `offset`."""
    s = SubStr(text)
    s.parent, s._at = parent, offset
    return s


def as_string(v: Any) -> str:
    """`convert(String, v)`, as a value stored into a `Vector{String}` is converted: a
    String as it is, another AbstractString (a SubString, a LazyString) its text as a
    String; anything else Julia's MethodError."""
    if type(v) is str:
        return v
    if isinstance(v, str):
        return str(v)
    raise cannot_convert(v, V.StringT)


def as_substring(v: Any) -> SubStr:
    """`convert(SubString{String}, v)`, as a value stored into a
    `Vector{SubString{String}}` is converted: a SubString as it is, another AbstractString
    the SubString that views all of its text as a String (Julia's `SubString(s)`);
    anything else Julia's MethodError."""
    if type(v) is SubStr:
        return v
    if isinstance(v, str):
        s = str(v)
        return substr(s, s, 0)
    raise cannot_convert(v, SUBSTRING_STRING)


#: the conversions of a value stored into an array of a text element type, by that type
TEXT_CONVERTS: dict[V.JType, Any] = {V.StringT: as_string, SUBSTRING_STRING: as_substring}
#: the Python class of the values of each text type (which its conversion keeps as they are)
TEXT_CLASSES: dict[V.JType, type] = {V.StringT: str, SUBSTRING_STRING: SubStr}


class _SplitOffsets:
    """The byte offsets of the pieces of one fast `split` (`_split_ascii_words`), found
    when one is first asked for. A piece is known by its id: the ids were taken while all
    the pieces were alive (so they are distinct), and only a piece made by that split
    holds this record (`SubStr.__reduce__` gives a copy its own offset)."""

    __slots__ = ("text", "base", "ids", "where")

    def __init__(self, text: str, base: int, ids: list[int]) -> None:
        self.text, self.base, self.ids = text, base, ids  # (text: what was split, at base)
        self.where: dict[int, int] | None = None

    def offset_of(self, piece: SubStr) -> int:
        if self.where is None:  # (the pieces are the runs `_ASCII_WORD` finds, in order)
            starts = (self.base + m.start() for m in _ASCII_WORD.finditer(self.text))
            self.where = dict(zip(self.ids, starts, strict=True))
        return self.where[id(piece)]


LazyStringT = V.JType("LazyString", V.AbstractStringT)
V.BUILTIN_TYPES.setdefault("LazyString", LazyStringT)


class LazyStr(str):
    """A `LazyString`: Zyla makes its text at once (Julia defers it until it is used)."""

    jtype = LazyStringT


def lazy_string(*parts: Any) -> LazyStr:
    return LazyStr(jl_string(*parts))


_CODE_UNIT = {"UInt8": "utf-8", "UInt16": "utf-16-le", "UInt32": "utf-32-le",
              "Int32": "utf-32-le"}


def transcode(t: V.JType, x: Any) -> Any:
    """`transcode(T, x)`: the text x (a String or a vector of UTF-8, UTF-16 or UTF-32
    code units) as code units of T (UInt8, UInt16, UInt32, Int32), or as a String."""
    if isinstance(x, str):
        raw = V.string_bytes(x)
    elif isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.name.capitalize() in (
            "Uint8", "Uint16", "Uint32", "Int32"):
        enc = _CODE_UNIT[{"uint8": "UInt8", "uint16": "UInt16", "uint32": "UInt32",
                          "int32": "Int32"}[x.dtype.name]]
        data = x.astype(x.dtype.newbyteorder("<")).tobytes()
        raw = data if enc == "utf-8" else \
            data.decode(enc, "surrogatepass").encode("utf-8", "surrogatepass")
    else:
        raise ZylaError("MethodError", f"no method matching transcode(::Type{{{V.type_name(t)}}}"
                        f", ::{V.type_name(_tyof(x))})")
    if t is V.StringT:
        if type(x) is str:
            return x
        return raw.decode("utf-8", "surrogateescape")
    name = getattr(t, "name", "")
    if name not in _CODE_UNIT:
        raise ZylaError("MethodError", f"no method matching transcode(::Type{{{V.type_name(t)}}}"
                        f", ::{V.type_name(_tyof(x))})")
    dtype = np.dtype(name.lower())
    if name == "UInt8":
        return np.frombuffer(raw, dtype=np.uint8).copy()
    text = raw.decode("utf-8", "surrogatepass")
    return np.frombuffer(text.encode(_CODE_UNIT[name], "surrogatepass"),
                         dtype=dtype.newbyteorder("<")).astype(dtype)


@lru_cache(maxsize=512)
def _bytes(s: str) -> bytes:
    return V.string_bytes(s)


def _units(s: str) -> bytes | str:
    """The code units of s: the str itself when ASCII (its characters are its bytes)."""
    if s.isascii():
        return s
    if type(s) is str:
        return _bytes(s)
    # (a SubString or LazyString keeps its own; never a fast `split`'s piece, which is
    # ASCII and shares its attribute dict with the other pieces)
    units = s.__dict__.get("_units")
    if units is None:
        units = s.__dict__["_units"] = V.string_bytes(s)
    return units


def _cu(b: bytes | str, i: int) -> int:
    """Code unit i (1-based) of `_units`' result."""
    return ord(b[i - 1]) if isinstance(b, str) else b[i - 1]


def ncodeunits(s: str) -> int:
    return len(_units(s))


def _thisind(b: bytes | str, i: int) -> int:
    """Julia's `thisind(s::String, i)` for 0 <= i <= n + 1."""
    n = len(b)
    if i == 0 or i == n + 1 or isinstance(b, str):
        return i
    for back, lo in ((1, 0xC0), (2, 0xE0), (3, 0xF0)):
        if not (b[i - back] & 0xC0 == 0x80 and i - back > 0):
            return i
        if lo <= b[i - back - 1] <= 0xF7:
            return i - back
    return i


def _char_end(b: bytes | str, i: int) -> int:
    """The index after the character starting at byte i (Julia's `iterate` of String)."""
    if isinstance(b, str):
        return i + 1
    n, lead = len(b), b[i - 1]
    if not 0xC0 <= lead <= 0xF7:
        return i + 1
    for k, lo in ((1, 0), (2, 0xE0), (3, 0xF0)):
        if i + k > n or lead < lo or b[i + k - 1] & 0xC0 != 0x80:
            return i + k
    return i + 4


def _char(b: bytes | str, i: int) -> tuple[V.Char, int]:
    j = _char_end(b, i)
    if isinstance(b, str):
        return V.Char(b[i - 1]), j
    return V.Char(b[i - 1:j - 1].decode("utf-8", "surrogateescape")), j


def _bounds(s: str, i: Any) -> ZylaError:
    n = ncodeunits(s)
    what = f"{n}-codeunit {V.type_name(_typeof(s))}"
    return ZylaError("BoundsError", f"attempt to access {what} {_quote(s)} at index [{_ishow(i)}]",
                     fields={"a": s, "i": i})


def _ishow(i: Any) -> str:
    return jl_string(i)


def _quote(s: str) -> str:
    return jl_show(str(s))


def _typeof(s: str) -> V.JType:
    return getattr(s, "jtype", V.StringT)


def index_error(s: str, i: int) -> ZylaError:
    """Julia's `StringIndexError(s, i)`: i is inside a character of s."""
    t = current.runtime().builtins.get("StringIndexError")
    v = V.StructValue(t, [s, i]) if isinstance(t, V.JType) else None
    return ZylaError("StringIndexError", _index_message(s, i)[len("StringIndexError: "):], value=v)


def _index_message(s: Any, i: Any) -> str:
    """`showerror` of a StringIndexError: the index and the valid indices around it."""
    msg = f"StringIndexError: invalid index [{_ishow(i)}]"
    if not isinstance(s, str) or not isinstance(i, (int, np.integer)):
        return msg
    b, i = _units(s), int(i)
    if not 1 <= i <= len(b):
        return msg
    lo = _thisind(b, i)
    hi = _char_end(b, lo)
    near = [k for k in (lo, hi) if 1 <= k <= len(b) and k != i]
    shown = ", ".join(f"[{k}]=>{_char_show(_char(b, k)[0])}" for k in near)
    noun = "index" if len(near) == 1 else "indices"
    return msg + (f", valid nearby {noun} {shown}" if near else "")


def _char_show(c: V.Char) -> str:
    return jl_show(c)


def _sie_value_message(v: Any) -> str:
    return _index_message(v.fields[0], v.fields[1])


exceptions._MESSAGES["StringIndexError"] = _sie_value_message


#: strings that wrap another and print as it (Test's GenericString, SubstitutionString)
_WRAPPERS = frozenset({"GenericString", "SubstitutionString"})


def text_of(x: Any) -> str | None:
    """The text of a String, a SubString or a string wrapping one; None for anything else."""
    if isinstance(x, str):
        return x
    if isinstance(x, V.StructValue) and x.type.family.name in _WRAPPERS and x.fields:
        return text_of(x.fields[0])
    return None


def _print_wrapped(x: Any) -> str | None:
    if isinstance(x, V.StructValue) and x.type.family.name in _WRAPPERS and x.fields:
        return jl_print(x.fields[0])
    return None


show.CUSTOM_PRINT.append(_print_wrapped)


def _int(i: Any, s: str, name: str) -> int:
    if isinstance(i, V.WideInt):  # Int128, BigInt
        return int(i.value)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise ZylaError("MethodError", f"no method matching {name}(::{V.type_name(_typeof(s))}, "
                        f"::{V.type_name(V.DTYPE_TO_JTYPE.get(np.dtype(type(i)), V.AnyT))})")
    return int(i)


# --- the primitives ---------------------------------------------------------------------

def thisind(s: str, i: Any) -> int:
    b, i = _units(s), _int(i, s, "thisind")
    if not 0 <= i <= len(b) + 1:
        raise _bounds(s, i)
    return _thisind(b, i)


def isvalid_index(s: str, i: Any) -> bool:
    b, i = _units(s), _int(i, s, "isvalid")
    return 1 <= i <= len(b) and _thisind(b, i) == i


def nextind(s: str, i: Any, k: Any = 1) -> int:
    """Julia's `nextind(s, i, k)`: k characters on from i (past the end: one per step)."""
    b, i, k = _units(s), _int(i, s, "nextind"), int(k)
    n = len(b)
    if k < 0:
        raise ZylaError("ArgumentError", f"n cannot be negative: {k}")
    if not 0 <= i <= n:  # (nextind(s, n + 1) is a BoundsError)
        raise _bounds(s, i)
    if k == 0:
        if _thisind(b, i) == i:
            return i
        raise index_error(s, i)
    while k > 0 and i < n:
        i = 1 if i == 0 else _next1(b, i)
        k -= 1
    return i + k


def _next1(b: bytes | str, i: int) -> int:
    """The next character's start after byte i (1 <= i <= n), as Julia's String nextind."""
    return _char_end(b, _thisind(b, i))


def prevind(s: str, i: Any, k: Any = 1) -> int:
    """Julia's `prevind(s, i, k)`: k characters back from i (before 1: one per step)."""
    b, i, k = _units(s), _int(i, s, "prevind"), int(k)
    n = len(b)
    if k < 0:
        raise ZylaError("ArgumentError", f"n cannot be negative: {k}")
    if not 0 < i <= n + 1:
        raise _bounds(s, i)
    if k == 0:
        if _thisind(b, i) == i:
            return i
        raise index_error(s, i)
    while k > 0 and i > 1:
        i = _thisind(b, i - 1)
        k -= 1
    return i - k


def lastindex(s: str) -> int:
    b = _units(s)
    return _thisind(b, len(b))


def length(s: str, i: Any = None, j: Any = None) -> int:
    """The number of characters of s (of s[i:j] in bytes, counting a character i is in)."""
    b = _units(s)
    if i is None:
        return len(s) if _plain(str(s)) else len(indices(s))
    i, j = _int(i, s, "length"), _int(j, s, "length")
    n = len(b)
    if not 0 < i <= n + 1:
        raise _bounds(s, i)
    if not 0 <= j < n + 1:
        raise _bounds(s, j)
    if j < i:
        return 0
    k, count = _thisind(b, i), 0
    while k <= j:
        count += 1
        k = _char_end(b, k)
    return count


def getindex(s: str, idx: tuple) -> Any:
    """`s[i]` (the Char starting at byte i) and `s[i:j]` (the bytes i through the end of
    the character at j); an index inside a character is a StringIndexError."""
    if len(idx) != 1:
        raise ZylaError("MethodError", "no method matching getindex(::String"
                        + "".join(", ::" + V.type_name(_tyof(i)) for i in idx) + ")")
    i = idx[0]
    if i is COLON:
        return str(s)
    b = _units(s)
    if isinstance(i, V.Range) and i.unit and isinstance(i.start, (int, np.integer)):
        if i.length <= 0:
            return ""
        lo, hi = int(i.start), int(i.start) + i.length - 1
        if not (1 <= lo and hi <= len(b)):
            raise _bounds(s, i)
        for k in (lo, hi):
            if _thisind(b, k) != k:
                raise index_error(s, k)
        return _slice(s, b, lo, _char_end(b, hi) - 1)
    if isinstance(i, np.ndarray) and i.dtype.kind == "b":
        raise ZylaError("ArgumentError", "invalid index: " + _ishow(i)
                        + f" of type {V.type_name(_tyof(i))}")
    if isinstance(i, V.WideInt):
        i = int(i.value)
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        if isinstance(i, (V.Range, np.ndarray)):
            return "".join(str(getindex(s, (int(k),)).value) for k in (list(i)))
        raise ZylaError("MethodError", f"no method matching getindex(::"
                        f"{V.type_name(_typeof(s))}, ::{V.type_name(_tyof(i))})")
    i = int(i)
    if not 1 <= i <= len(b):
        raise _bounds(s, i)
    if isinstance(b, str):
        return V.Char(b[i - 1])
    if b[i - 1] & 0xC0 == 0x80 and _thisind(b, i) != i:
        raise index_error(s, i)
    return _char(b, i)[0]


def _tyof(x: Any) -> V.JType:
    return typeof(x)


def _slice(s: str, b: bytes | str, lo: int, hi: int) -> str:
    """The String of bytes lo..hi of s."""
    if isinstance(b, str):
        return str(b[lo - 1:hi])
    return b[lo - 1:hi].decode("utf-8", "surrogateescape")


@lru_cache(maxsize=512)
def _plain(s: str) -> bool:
    """Whether s is valid UTF-8 text (no escaped bytes)."""
    try:
        str(s).encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


class _CharTable(dict):
    """The Char of each character met in iteration, made once (a Char never changes):
    `_CHARS[c]` is `V.Char(c)`; the table keeps the first 4096 characters it meets."""

    def __missing__(self, c: str) -> V.Char:
        ch = V.Char(c)
        if len(self) < 4096:
            self[c] = ch
        return ch


_CHARS = _CharTable()


def chars(s: str) -> list[V.Char]:
    """The characters of s, as Julia's iteration yields them."""
    if _plain(str(s)):
        return list(map(_CHARS.__getitem__, s))
    b, out, k = _units(s), [], 1
    while k <= len(b):
        c, k = _char(b, k)
        out.append(c)
    return out


def iter_chars(s: str) -> Iterator[V.Char]:
    """The characters of s, as Julia's iteration yields them, one at a time (an ASCII
    String's without a list of them all first)."""
    if s.isascii():
        return map(_CHARS.__getitem__, s)
    return iter(chars(s))


def iterate(s: str, i: Any) -> Any:
    """`iterate(s, i)`: (the Char at byte i, the next index), or nothing past the end."""
    b, i = _units(s), _int(i, s, "iterate")
    if i > len(b):
        return None
    if i < 1:
        raise _bounds(s, i)
    if isinstance(b, str):
        return (V.Char(b[i - 1]), i + 1)
    if b[i - 1] & 0xC0 == 0x80 and _thisind(b, i) != i:
        raise index_error(s, i)
    return _char(b, i)


def indices(s: str) -> np.ndarray:
    """The valid indices of s (the start byte of each character)."""
    b = _units(s)
    if isinstance(b, str):
        return np.arange(1, len(b) + 1, dtype=np.int64)
    out, k = [], 1
    while k <= len(b):
        out.append(k)
        k = _char_end(b, k)
    return np.array(out, dtype=np.int64)


def substring(s: str, i: Any, j: Any) -> SubStr:
    """`SubString(s, i, j)`: the characters from byte i to the one at byte j, a view."""
    parent, off = viewed(s)
    b, i, j = _units(s), _int(i, s, "SubString"), _int(j, s, "SubString")
    if i > j:
        return substr("", parent, off)
    if not (1 <= i and j <= len(b)):
        raise _bounds(s, V.Range(i, 1, j - i + 1, True))
    for k in (i, j):
        if _thisind(b, k) != k:
            raise index_error(s, k)
    hi = _char_end(b, j) - 1
    return substr(_slice(s, b, i, hi), parent, off + i - 1)


def codeunit(s: str, i: Any) -> np.uint8:
    b, i = _units(s), _int(i, s, "codeunit")
    if not 1 <= i <= len(b):
        raise _bounds(s, i)
    return np.uint8(_cu(b, i))


def search(s: str, t: str, i: Any, back: bool) -> Any:
    """`findnext(t, s, i)` / `findprev(t, s, i)` of a string t: the byte range of the
    first match starting at or after i (at or before i, backwards), or nothing."""
    b, tb, i = _units(s), _units(t), _int(i, s, "findnext")
    b = b if isinstance(b, bytes) else b.encode("ascii")
    tb = tb if isinstance(tb, bytes) else tb.encode("ascii")
    n = len(b)
    if not back and not 1 <= i <= n + 1:
        raise _bounds(s, i)
    if back and not 0 <= i <= n + 1:
        raise _bounds(s, i)
    if not tb:
        return V.Range(i, 1, 0, True)
    k = b.rfind(tb, 0, i - 1 + len(tb)) if back else b.find(tb, i - 1)
    return None if k < 0 else V.Range(k + 1, 1, len(tb), True)


def is_valid_text(x: Any) -> bool:
    """`isvalid(s)`, `isvalid(c)`, `isvalid(String, bytes)`: whether the code units are
    valid UTF-8 (Python's strict decoder rejects what Julia's does: overlong forms,
    surrogates, code points past U+10FFFF)."""
    if isinstance(x, V.Char):
        x = x.value
    raw = V.string_bytes(x) if isinstance(x, str) else bytes(np.asarray(x, dtype=np.uint8))
    try:
        raw.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def repeat(s: Any, n: Any) -> str:
    """`repeat(s, n)` of a String or a Char: n copies; a negative n is an ArgumentError,
    one that cannot be held an OutOfMemoryError (as Julia's)."""
    text, what = (s.value, "character") if isinstance(s, V.Char) else (str(s), "string")
    n = int(n)
    if n < 0:
        raise ZylaError("ArgumentError", f"can't repeat a {what} {n} times")
    if len(V.string_bytes(text)) * n > 1 << 40:
        raise ZylaError("OutOfMemoryError", "")
    return text * n


def _raw(s: str) -> bytes:
    b = _units(s)
    return b if isinstance(b, bytes) else b.encode("ascii")


def starts_with(a: str, b: str) -> bool:
    """`startswith(a, b)` of Strings: b's bytes begin a and end at a character boundary."""
    ra, rb = _raw(a), _raw(b)
    k = len(rb)
    return ra.startswith(rb) and (k == 0 or k == len(ra) or _thisind(ra, k + 1) == k + 1)


def ends_with(a: str, b: str) -> bool:
    """`endswith(a, b)` of Strings: a ends with b's bytes, which start at a boundary of a."""
    ra, rb = _raw(a), _raw(b)
    start = len(ra) - len(rb) + 1
    return start >= 1 and ra.endswith(rb) and _thisind(ra, start) == start


def char_bits(c: V.Char) -> np.uint32:
    """`reinterpret(UInt32, c)`: a Char's UTF-8 bytes, left-aligned in 32 bits."""
    raw = V.string_bytes(c.value)[:4]
    return np.uint32(int.from_bytes(raw.ljust(4, b"\0"), "big"))


def char_of_bits(u: Any) -> V.Char:
    """`reinterpret(Char, u::UInt32)`: the Char whose bytes are u's, left-aligned."""
    raw = int(u).to_bytes(4, "big").rstrip(b"\0") or b"\0"
    return V.Char(raw.decode("utf-8", "surrogateescape"))


class CharRange:
    """Julia's `StepRange{Char, Int64}` (`'a':'z'`, `'a':2:'k'`): `length` Chars from
    `start` (a Char) `step` code points apart. A class of its own, not a values.Range:
    the numeric ranges' fast paths never see it, and what has no method for it is a
    MethodError rather than a range of numbers. Its Base methods are in strings.jl."""

    __slots__ = ("start", "step", "length")
    jtype = V.apply_type(V.StepRangeT, (V.CharT, V.Int64T))  # (what typeof reads)

    def __init__(self, start: V.Char, step: int, length: int) -> None:
        self.start, self.step, self.length = start, step, length

    def __getitem__(self, k: int) -> V.Char:  # 0-based
        return V.Char(chr(ord(self.start.value) + k * self.step))

    def __iter__(self) -> Iterator[V.Char]:
        return (self[k] for k in range(self.length))

    def __len__(self) -> int:
        return self.length

    def __eq__(self, other: object) -> bool:  # (as Julia's === of two ranges)
        return type(other) is CharRange and (self.start, self.step, self.length) == (
            other.start, other.step, other.length)

    def __hash__(self) -> int:
        return hash((self.start, self.step, self.length))

    def jl_iter(self, rt: Any) -> Iterator[V.Char]:
        """Its Chars, for `for c in r` and the host's other iterations."""
        return iter(self)

    def jl_eltype(self) -> V.JType:
        return V.CharT

    def jl_show(self) -> str:
        """`'a':1:'e'`, as Julia shows a StepRange (an empty one ends before its start)."""
        return f"{jl_show(self.start)}:{self.step}:{jl_show(self.last)}"

    @property
    def last(self) -> V.Char:
        return self[self.length - 1]


def char_range(start: V.Char, step: Any, stop: V.Char) -> CharRange:
    """`start:step:stop` of Chars (Julia's StepRange{Char, Int64}): the Chars from start
    step code points apart, up to stop (down to it for a negative step)."""
    if not (isinstance(step, (int, np.integer)) and not isinstance(step, bool)):
        raise ZylaError("MethodError", f"no method matching (::Colon)(::Char, ::{typeof(step)}"
                        ", ::Char)")
    if len(start.value) != 1 or len(stop.value) != 1:
        raise ZylaError("ArgumentError", "a Char range needs valid Chars at its ends")
    step = int(step)
    if step == 0:
        raise ZylaError("ArgumentError", "step cannot be zero")
    n = max(0, (ord(stop.value) - ord(start.value)) // step + 1)
    return CharRange(start, step, n)


def char_range_parts(r: CharRange) -> tuple:
    """`(first, step, length)` of a Char range (what its Base methods are written with)."""
    return r.start, r.step, r.length


def char_range_collect(r: CharRange) -> np.ndarray:
    """`collect(r)` of a Char range: its Chars as a Vector{Char}."""
    out = np.empty(r.length, dtype=object)
    out[:] = list(r)
    return tag(out, V.CharT)


def _category(c: str) -> str:
    return unicodedata.category(c) if len(c) == 1 and not 0xD800 <= ord(c) <= 0xDFFF else "Cn"


#: Julia's Char predicates, by Unicode category (an invalid Char has none of them)
_CHAR_TESTS: dict[str, Any] = {
    "isspace": lambda c: c in " \t\n\v\f\r\x85" or (c >= "\xa0" and _category(c) == "Zs"),
    "isdigit": lambda c: "0" <= c <= "9",
    "isxdigit": lambda c: c in "0123456789abcdefABCDEF",
    "isletter": lambda c: _category(c)[0] == "L",
    "isuppercase": lambda c: _category(c) != "Cn" and c.isupper(),
    "islowercase": lambda c: _category(c) != "Cn" and c.islower(),
    "isnumeric": lambda c: _category(c) in ("Nd", "Nl", "No"),
    "ispunct": lambda c: _category(c)[0] == "P",
    "iscntrl": lambda c: c <= "\x1f" or "\x7f" <= c <= "\x9f",
    "isprint": lambda c: _category(c)[0] in "LMNPS" or _category(c) == "Zs",
}


def _char_test(name: str, test: Any) -> Any:
    def f(c: Any) -> bool:
        if not isinstance(c, V.Char):
            raise ZylaError("MethodError", f"no method matching {name}(::{V.type_name(_tyof(c))})")
        return len(c.value) == 1 and bool(test(c.value))
    return f


def text_width(x: Any) -> int:
    """`textwidth` of a String or a Char: the terminal columns it takes."""
    return show.textwidth(x.value if type(x) is V.Char else str(x))


def parent(s: SubStr) -> str:
    """The String a SubString views."""
    return s.parent


def offset(s: SubStr) -> int:
    """A SubString's byte offset in the String it views."""
    return s.offset


def find_char(s: str, c: V.Char, i: Any, back: bool) -> Any:
    """`findnext(c, s, i)` / `findprev(c, s, i)` of a Char: the index of the first
    character equal to c at or after i (at or before i, backwards), or nothing."""
    b, i = _units(s), _int(i, s, "findprev" if back else "findnext")
    n = len(b)
    if not (0 if back else 1) <= i <= n + 1:
        raise _bounds(s, i)
    if back and i == n + 1:
        return None
    if 1 <= i <= n and _thisind(b, i) != i:
        raise index_error(s, i)
    raw = b if isinstance(b, bytes) else b.encode("ascii")
    cb = V.string_bytes(c.value)
    k = i - 1
    while True:
        k = raw.rfind(cb, 0, k + len(cb)) if back else raw.find(cb, k)
        if k < 0:
            return None
        if _thisind(raw, k + 1) == k + 1 and _char_end(raw, k + 1) == k + 1 + len(cb):
            return k + 1
        k = k - 1 if back else k + 1
        if k < 0:
            return None


def _char_set(dlm: Any) -> frozenset[str] | None:
    """The characters of a collection of Chars (a vector, tuple or set), else None."""
    items = list(dlm.ravel()) if isinstance(dlm, np.ndarray) and dlm.dtype == object else (
        list(dlm) if isinstance(dlm, (tuple, set, frozenset)) else None)
    if items is None or not all(isinstance(c, V.Char) for c in items):
        return None
    return frozenset(c.value for c in items)


def _matches(s: str, dlm: Any) -> Any:
    """(start, end) character positions of each match of the delimiter in s, in order."""
    if isinstance(dlm, str) or isinstance(dlm, V.Char):
        d = dlm if isinstance(dlm, str) else dlm.value
        k = 0
        while k <= len(s):
            j = s.find(d, k)
            if j < 0:
                return
            yield j, j + len(d)
            k = j + max(len(d), 1)
        return
    chars = _char_set(dlm) if dlm is not None else None
    test = (lambda c: c in chars) if chars is not None else _CHAR_TESTS["isspace"]
    for j, c in enumerate(s):
        if test(c):
            yield j, j + 1


#: the runs of characters of an ASCII string that Julia's `isspace` does not take (it
#: takes '\t' through '\r' and ' ' among ASCII characters; Python's `split()` takes more)
_ASCII_WORD = re.compile(r"[^\t\n\v\f\r ]+")
#: the ASCII characters Python's `str.split()` takes as whitespace and Julia's `isspace` not
_PYTHON_ONLY_SPACE = "\x1c\x1d\x1e\x1f"


def _split_ascii_words(text: str, parent: str, base: int) -> np.ndarray:
    """`split(s)` of an ASCII text without the characters \\x1c-\\x1f (so Python's
    `split()` is Julia's; its byte offsets are its character positions), at byte offset
    `base` of `parent`: the common case, at C speed. The pieces share one attribute dict:
    their parent, and the `_SplitOffsets` that finds an offset when one is asked for
    (nothing may store a piece's own state there: `_units` caches only non-ASCII text)."""
    pieces = list(map(SubStr, text.split()))
    shared = {"parent": parent, "_at": _SplitOffsets(text, base, list(map(id, pieces)))}
    for piece in pieces:
        piece.__dict__ = shared
    return tag(np.fromiter(pieces, dtype=object, count=len(pieces)), SUBSTRING_STRING)


def split_texts(s: str) -> list[str]:
    """The texts of `split(s)`'s pieces, as Strings (for code that reads only their text:
    lang.core.hostcode's `split_texts`)."""
    text = str(s)
    if text.isascii() and not any(c in text for c in _PYTHON_ONLY_SPACE):
        return text.split()
    return [str(p) for p in split(s, None, 0, False)]


def split(s: str, dlm: Any, limit: Any, keepempty: Any) -> np.ndarray:
    """`split(s, dlm; limit, keepempty)` (Julia's algorithm) for a String, Char or
    collection of Chars as the delimiter, or whitespace (dlm nothing): a vector of
    SubStrings of s."""
    if not (dlm is None or isinstance(dlm, (str, V.Char)) or _char_set(dlm) is not None):
        raise ZylaError("MethodError", f"no method matching split(::String, "
                        f"::{V.type_name(_tyof(dlm))})")
    limit, text = int(limit), str(s)
    # (the pieces of a SubString's split view its parent, as Julia's SubString(s, i, j))
    parent, base = viewed(s)
    if (dlm is None and limit <= 0 and not keepempty and text.isascii()
            and not any(c in text for c in _PYTHON_ONLY_SPACE)):  # (`in`: a C scan each)
        return _split_ascii_words(text, parent, base)
    pieces: list[tuple[int, int]] = []
    i = 0
    for j, k in _matches(text, dlm):
        if limit > 0 and len(pieces) == limit - 1:
            break
        if j == len(text) and k == j:
            break
        if i < k or (k == j and i <= j):
            if i < k and (keepempty or i < j):
                pieces.append((i, j))
            i = max(i, k)
    if keepempty or i < len(text):
        pieces.append((i, len(text)))
    out = np.empty(len(pieces), dtype=object)
    ascii_ = text.isascii()
    last_pos = last_off = 0
    for n, (a, b) in enumerate(pieces):
        off = a if ascii_ else last_off + len(V.string_bytes(text[last_pos:a]))
        last_pos, last_off = a, off
        out[n] = substr(text[a:b], parent, base + off)
    return tag(out, SUBSTRING_STRING)


for _name, _f in {"ncodeunits": ncodeunits, "Core.str_thisind": thisind,
                  "Core.str_isvalid": isvalid_index, "Core.str_nextind": nextind,
                  "Core.str_prevind": prevind, "Core.str_lastindex": lastindex,
                  "Core.str_length": length, "Core.str_iterate": iterate,
                  "Core.str_indices": indices, "Core.substring": substring,
                  "Core.str_codeunit": codeunit, "Core.str_search": search,
                  "Core.str_parent": parent, "Core.str_startswith": starts_with,
                  "Core.str_endswith": ends_with, "Core.char_bits": char_bits,
                  "Core.char_of_bits": char_of_bits, "Core.str_repeat": repeat,
                  "Core.char_range": char_range, "Core.char_range_parts": char_range_parts,
                  "Core.char_range_collect": char_range_collect,
                  "Core.str_valid": is_valid_text, "Core.lazy_string": lazy_string,
                  "transcode": transcode,
                  "Core.str_offset": offset, "Core.str_findchar": find_char,
                  "Core.str_split": split, "Core.textwidth": text_width}.items():
    prim(_name, _f, _HOST, NONDIFF)
for _name, _f in _CHAR_TESTS.items():
    prim(_name, _char_test(_name, _f), _HOST, NONDIFF)
