"""Julia's printing of runtime values: `print`, `show` and the REPL's `display`.

Three entry points over the value representation of `lang.core.values`:

- `jl_print(x)`: what `print`/`println`/`string` and string interpolation write. Strings,
  chars and symbols appear raw, Float32 without its `f0` type suffix; everything else is
  written as by `jl_show`.
- `jl_show(x)`: what `show`, `repr` and `@show` write (two-argument `show`), which is also
  how elements are written inside containers: `"a"`, `'a'`, `:x`, `1.0f0`,
  `[1.0 2.0; 3.0 4.0]`, `Affine([1.0], [0.5])`.
- `jl_display(x)`: what the REPL shows for a result (`show` with MIME `text/plain`):
  arrays get a summary line and one aligned row per line, matrices are shown with six
  significant digits, and `nothing` shows as the empty string.

The formats follow Julia 1.10/1.11:

- Floats use the shortest digits that read back to the same value (Julia's Ryu), written
  in fixed notation when the decimal point falls within `-4 < pt <= 6` (`0.0001`,
  `100000.0`) and in exponent form otherwise (`1.0e-5`, `1.0e6`). Float32 adds `f0` (fixed)
  or uses `f` as the exponent letter (`1.0f-5`) unless the context already says Float32;
  Float16 is wrapped as `Float16(1.0)`.
- Containers pass "typeinfo" to their elements like Julia's `IOContext(:typeinfo)`: an
  array whose element type is not implied by its elements' printed forms gets a prefix
  (`Float32[1.0, 2.0]`, `Bool[1, 0]`, `Any[1, "a"]`), and the elements are then printed
  without their own type decoration.

Objects of other Python classes may define `jl_show(self) -> str` (and optionally
`jl_print(self) -> str` and `jl_display(self) -> str`); otherwise their Python `repr` is used.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core.eltypes import recorded
from lang.core.values import (
    DTYPE_TO_JTYPE,
    UNDEF_REF,
    AnyT,
    ArrayT,
    BoolT,
    Char,
    CharT,
    DataTypeT,
    Float64T,
    Int64T,
    Irrational,
    JType,
    ModuleT,
    ModuleValue,
    NamedTuple,
    NamedTupleT,
    NothingT,
    Range,
    StepRangeLenT,
    StepRangeT,
    StringT,
    StructValue,
    Symbol,
    SymbolT,
    TupleT,
    UnitRangeT,
    WideInt,
    apply_type,
    issubtype,
    type_name,
    undef_ref_error,
)

__all__ = ["jl_print", "jl_show", "jl_display", "format_float"]

#: The terminal size (rows, columns) Julia assumes when it cannot ask the terminal.
DEFAULT_DISPLAYSIZE: tuple[int, int] = (24, 80)


@dataclass(frozen=True)
class _Ctx:
    """The parts of Julia's `IOContext` that printing reads.

    `typeinfo` is the type the reader already knows the value to have (None means `Any`),
    `compact` asks for six significant digits, `limit` for eliding long containers to fit
    a screen of `displaysize` (rows, columns).
    """

    typeinfo: JType | None = None
    compact: bool = False
    limit: bool = False
    displaysize: tuple[int, int] = DEFAULT_DISPLAYSIZE


_PLAIN = _Ctx()


# --- public entry points ----------------------------------------------------------------


def jl_print(x: Any) -> str:
    """The text Julia's `print(x)` writes (also `string(x)` and `"$(x)"`).

    Strings, chars and symbols are written raw, floats of every width without type
    decoration (`print(1f0/3f0)` is `0.33333334`); all other values as by `jl_show`.
    """
    if x is UNDEF_REF:  # (reached by iterating over an undefined slot: no value to print)
        raise undef_ref_error()
    x = _as_host_array(x)
    if isinstance(x, str):
        return x
    if isinstance(x, Char):
        return x.value
    if isinstance(x, Symbol):
        return x.name
    if isinstance(x, np.floating) and _float_bits(x) != 64:
        return format_float(x, typed=False, fromprint=True)
    if isinstance(x, np.unsignedinteger):
        return str(int(x))  # print writes an unsigned integer in decimal, show in hex
    hook = getattr(x, "jl_print", None)
    if callable(hook) and not isinstance(x, type):
        return str(hook())
    for custom_print in CUSTOM_PRINT:  # (structs that print unlike they show: wrapped strings)
        text = custom_print(x)
        if text is not None:
            return text
    return jl_show(x)


def jl_show(x: Any, compact: bool = False) -> str:
    """The text Julia's two-argument `show(x)` writes (also `repr(x)` and `@show`).

    Values that read back as Julia source where Julia does so: `"a\\n"`, `'a'`, `:x`,
    `1.0f0`, `(1,)`, `(a = 1,)`, `[1 2; 3 4]`, `Float32[1.0]`, `1:2:9`, `Affine(...)`.
    With `compact` (an `IOContext` with `:compact => true`) floats keep six significant
    digits.
    """
    if x is UNDEF_REF:  # (an array shows its undefined slots as `#undef`; alone, none)
        raise undef_ref_error()
    return _show(x, _Ctx(compact=True) if compact else _PLAIN)


def jl_display(
    x: Any, *, limit: bool = True, displaysize: tuple[int, int] = DEFAULT_DISPLAYSIZE
) -> str:
    """The text the REPL shows for a result `x` (Julia's `show(io, MIME"text/plain", x)`).

    Arrays get a summary line (`3-element Vector{Float64}:`) followed by one row per line,
    columns aligned on the decimal point; matrices show six significant digits. `nothing`
    displays as the empty string. With `limit` (the REPL's default) long arrays are cut to
    fit a terminal of `displaysize` (rows, columns) with `⋮`/`…`; a script's `display`
    should pass `limit=False`. The result never ends in a newline.
    """
    if x is None:
        return ""
    ctx = _Ctx(limit=limit, displaysize=displaysize)
    x = _as_host_array(x)
    if isinstance(x, np.ndarray):
        return _display_array(x, ctx)
    if isinstance(x, Char):
        return _display_char(x)
    if isinstance(x, JType):
        return _display_type(x)
    if _is_dict(x):
        return _display_dict(x, ctx)
    if type(x) is Irrational:  # Julia's: `π = 3.1415926535897...`
        return f"{x.sym} = {_show_float(float(x), _PLAIN)[:15]}..."
    hook = getattr(x, "jl_display", None)
    if callable(hook) and not isinstance(x, type):
        return str(hook())
    if isinstance(x, StructValue):
        for custom_display in CUSTOM_DISPLAY:
            custom = custom_display(x)
            if custom is not None:
                return custom
    return _show(x, ctx)


def char_width(c: str) -> int:
    """Julia's `textwidth(c)` (utf8proc's character width): 0 for control characters and
    combining or zero-width marks, 2 for East Asian wide and fullwidth ones, else 1."""
    i = ord(c)
    if i < 0x7F:
        return int(i >= 0x20)
    if unicodedata.category(c) in ("Cc", "Cf", "Mn", "Me", "Zl", "Zp"):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def textwidth(s: str) -> int:
    """Julia's `textwidth(s)`: the columns s takes in a terminal (the sum of its
    characters' widths)."""
    return sum(map(char_width, s))


# --- dispatch ---------------------------------------------------------------------------


#: the identities of the mutable containers being shown, outermost first
_SHOWING: list[int] = []


def _show(x: Any, ctx: _Ctx) -> str:
    """Two-argument `show` of `x` under the context `ctx`. A mutable container met again
    inside itself is Julia's `#= circular reference @-d =#` (d: how many containers up),
    after its type for a Dict or a struct."""
    mutable = isinstance(x, dict) or (isinstance(x, np.ndarray) and x.dtype == object) or (
        isinstance(x, StructValue) and x.type.mutable)
    if not mutable:
        return _show_value(x, ctx)
    if id(x) in _SHOWING:
        d = len(_SHOWING) - max(i for i, k in enumerate(_SHOWING) if k == id(x))
        mark = f"#= circular reference @-{d} =#"
        if isinstance(x, np.ndarray):
            return mark
        t = x.type if isinstance(x, StructValue) else getattr(x, "jtype", None)
        return f"{type_name(t)}({mark})" if isinstance(t, JType) else mark
    _SHOWING.append(id(x))
    try:
        return _show_value(x, ctx)
    finally:
        _SHOWING.pop()


def _show_value(x: Any, ctx: _Ctx) -> str:
    """`_show` of x, not looking for circular references."""
    if x is None:
        return "nothing"
    if isinstance(x, bool | np.bool_):
        if ctx.typeinfo == BoolT:
            return "1" if x else "0"
        return "true" if x else "false"
    if isinstance(x, int | np.signedinteger):
        return str(int(x))
    if isinstance(x, np.unsignedinteger):  # 0x01, 0x0001: hex, two digits per byte
        return f"0x{int(x):0{2 * x.dtype.itemsize}x}"
    if isinstance(x, float | np.floating):
        return x.sym if type(x) is Irrational else _show_float(x, ctx)
    if isinstance(x, str):
        return _quote_string(x)
    if isinstance(x, Char):
        return _show_char(x)
    if isinstance(x, Symbol):
        return _show_symbol(x.name)
    if isinstance(x, tuple):
        return _show_tuple(x, ctx)
    if isinstance(x, NamedTuple):
        return _show_namedtuple(x, ctx)
    host = _as_host_array(x)
    if host is not x:
        return _show(host, ctx)
    if isinstance(x, np.ndarray):
        return _show_array(x, ctx)
    if isinstance(x, Range):
        return _show_range(x)
    if isinstance(x, StructValue):
        return _show_struct(x, ctx)
    if _is_dict(x):
        return _show_dict(x, ctx)
    if isinstance(x, JType):
        return type_name(x)
    if isinstance(x, ModuleValue):
        return x.name
    if isinstance(x, ZylaError):
        if x.value is not None:
            return _show(x.value, ctx)
        return f"{x.kind}({_quote_string(x.message)})"
    hook = getattr(x, "jl_show", None)
    if callable(hook) and not isinstance(x, type):
        return str(hook())
    return repr(x)


def _as_host_array(x: Any) -> Any:
    """Device arrays (anything array-like with a dtype and a shape that is not a numpy
    array, e.g. a `jax.Array`) are brought to the host, a 0-d one as the scalar it holds
    (the compiled tier returns Julia scalars that way); other values pass through."""
    if isinstance(x, np.ndarray | np.generic):
        return x
    if hasattr(x, "__array__") and hasattr(x, "dtype") and hasattr(x, "shape"):
        host = np.asarray(x)
        return host[()] if host.ndim == 0 else host
    return x


# --- floats -----------------------------------------------------------------------------


def _float_bits(x: float | np.floating) -> int:
    """64, 32 or 16: the width of the Julia float type `x` stands for."""
    if isinstance(x, np.floating):
        return 8 * x.dtype.itemsize
    return 64


def _shortest_digits(x: float | np.floating) -> tuple[str, int]:
    """The shortest decimal digits that read back to `abs(x)` (finite, nonzero).

    Returns `(digits, pt)` with `abs(x) == 0.<digits> * 10**pt` up to rounding, `digits`
    without leading or trailing zeros; `pt` is where the decimal point goes.
    """
    bits = _float_bits(x)
    if bits == 64:
        text = repr(abs(float(x)))
    else:
        text = np.format_float_scientific(abs(x), unique=True, trim="-")
    return _split_decimal(text)


def _split_decimal(text: str) -> tuple[str, int]:
    """Split a positive decimal literal (`'1.25e-05'`, `'100.0'`) into `(digits, pt)`."""
    mantissa, _, exponent = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    pt = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    pt -= len(digits) - len(stripped)
    return stripped.rstrip("0") or "0", pt


def _compact_digits(x: float | np.floating, digits: str, pt: int) -> tuple[str, int]:
    """Julia's `:compact` float: at most six significant digits, rounded from the exact
    binary value (half to even on exact ties), trailing zeros dropped."""
    if len(digits) <= 6:
        return digits, pt
    return _split_decimal(f"{abs(float(x)):.5e}")


def format_float(
    x: float | np.floating,
    *,
    typed: bool = True,
    compact: bool = False,
    fromprint: bool = False,
) -> str:
    """Julia's text for a float: `show` when `typed` (the default), `print` with
    `typed=False, fromprint=True`.

    `typed` adds Float32's `f0` suffix and Float16's `Float16(...)` wrapper; `fromprint`
    uses `e` instead of `f` as Float32's exponent letter; `compact` keeps six significant
    digits (as inside a displayed matrix).
    """
    bits = _float_bits(x)
    value = float(x)
    typed = typed and not compact
    if math.isnan(value) or math.isinf(value):
        body = "NaN" if math.isnan(value) else ("-Inf" if value < 0 else "Inf")
        if typed and bits != 64:
            body += str(bits)
        return body
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        text = sign + "0.0"
        fixed = True
    else:
        digits, pt = _shortest_digits(x)
        if compact:
            digits, pt = _compact_digits(x, digits, pt)
        n = len(digits)
        fixed = -4 < pt <= (3 if bits == 16 else 6)
        if fixed and pt >= n:
            # An integer-looking result must be the value itself (it may not be after
            # compact rounding: 123456.7 is written `1.23457e5`, not `123457.0`).
            fixed = abs((value + 0.05) % (10.0 ** (pt - n)) - 0.05) <= 0.05
        if fixed:
            if pt <= 0:
                text = "0." + "0" * -pt + digits
            elif pt >= n:
                text = digits + "0" * (pt - n) + ".0"
            else:
                text = digits[:pt] + "." + digits[pt:]
        else:
            expchar = "f" if bits == 32 and not fromprint else "e"
            text = f"{digits[0]}.{digits[1:] or '0'}{expchar}{pt - 1}"
        text = sign + text
    if typed and bits == 32 and fixed:
        text += "f0"
    if typed and bits == 16:
        text = f"Float16({text})"
    return text


def _show_float(x: float | np.floating, ctx: _Ctx) -> str:
    t = _type_of(x)
    return format_float(x, typed=ctx.typeinfo != t, compact=ctx.compact)


# --- strings, chars, symbols ------------------------------------------------------------

_ASCII_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}


def _isprint(c: str) -> bool:
    """Julia's `isprint`: letters, marks, numbers, punctuation, symbols and spaces."""
    cat = unicodedata.category(c)
    return cat[0] in "LMNPS" or cat == "Zs"


def _escape(s: str, esc: str) -> str:
    """Julia's `escape_string(s, esc)`: C-style escapes for control characters, `\\x`/`\\u`
    for other unprintable ones, and a backslash before every character in `esc`."""
    out: list[str] = []
    for k, c in enumerate(s):
        code = ord(c)
        nxt = s[k + 1] if k + 1 < len(s) else ""
        if c in esc:
            out.append("\\" + c)
        elif code < 0x80:
            if code == 0:
                out.append("\\x00" if nxt and "0" <= nxt <= "7" else "\\0")
            elif code == 27:
                out.append("\\e")
            elif c == "\\":
                out.append("\\\\")
            elif code in _ASCII_ESCAPES:
                out.append(_ASCII_ESCAPES[code])
            elif _isprint(c):
                out.append(c)
            else:
                out.append(f"\\x{code:02x}")
        elif _isprint(c):
            out.append(c)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (values.string_bytes)
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            full = bool(nxt) and nxt in "0123456789abcdefABCDEF"
            if code <= 0xFFFF:
                out.append(f"\\u{code:04x}" if full else f"\\u{code:02x}")
            else:
                out.append(f"\\U{code:08x}" if full else f"\\U{code:04x}")
    return "".join(out)


def _quote_string(s: str) -> str:
    """`show` of a String: double quotes, with `"`, `\\` and `$` escaped."""
    return '"' + _escape(s, '"$') + '"'


def _show_char(c: Char) -> str:
    """`show` of a Char: `'a'`, `'\\n'`, `'\\''`."""
    if c.value == "\0":
        return "'\\0'"
    return "'" + _escape(c.value, "'") + "'"


_CATEGORY_NAMES = {
    "Cn": "Other, not assigned", "Lu": "Letter, uppercase", "Ll": "Letter, lowercase",
    "Lt": "Letter, titlecase", "Lm": "Letter, modifier", "Lo": "Letter, other",
    "Mn": "Mark, nonspacing", "Mc": "Mark, spacing combining", "Me": "Mark, enclosing",
    "Nd": "Number, decimal digit", "Nl": "Number, letter", "No": "Number, other",
    "Pc": "Punctuation, connector", "Pd": "Punctuation, dash", "Ps": "Punctuation, open",
    "Pe": "Punctuation, close", "Pi": "Punctuation, initial quote",
    "Pf": "Punctuation, final quote", "Po": "Punctuation, other", "Sm": "Symbol, math",
    "Sc": "Symbol, currency", "Sk": "Symbol, modifier", "So": "Symbol, other",
    "Zs": "Separator, space", "Zl": "Separator, line", "Zp": "Separator, paragraph",
    "Cc": "Other, control", "Cf": "Other, format", "Cs": "Other, surrogate",
    "Co": "Other, private use",
}  # fmt: skip


def _display_char(c: Char) -> str:
    """The REPL's view of a Char: `'a': ASCII/Unicode U+0061 (category Ll: Letter, lowercase)`."""
    code = ord(c.value)
    cat = unicodedata.category(c.value)
    kind = "ASCII/Unicode" if code < 0x80 else "Unicode"
    return f"{_show_char(c)}: {kind} U+{code:04X} (category {cat}: {_CATEGORY_NAMES[cat]})"


_IDENTIFIER = re.compile(r"^(?!\d)[\w\u00a0-\U0010ffff][\w!\u00a0-\U0010ffff]*$")
_OPERATORS = frozenset(
    "+ - * / \\ ^ ÷ % & | ⊻ ! ~ < > <= >= ≤ ≥ != ≠ !== ≢ ∈ ∉ ⊆ ⊂ ≈ ≉ ∘ √ ∛ <: >: "
    "<< >> >>> |> <| .+ .- .* ./ .^ .== .< .> -> ⊗ ⊕ × ⋅ //".split()
)
_QUOTED_OPERATORS = frozenset(["=", "==", "===", ":", "::", ":=", "=>", "..."])


def _show_symbol(name: str) -> str:
    """`show` of a Symbol: `:x`, `:+`, `:(==)`, or `Symbol("a b")`."""
    if name in _QUOTED_OPERATORS:
        return f":({name})"
    if (_IDENTIFIER.match(name) and name not in ("true", "false")) or name in _OPERATORS:
        return ":" + name
    return f"Symbol({_quote_string(name)})"


# --- Julia types of values (for element types and typeinfo) ----------------------------


def _type_of(x: Any) -> JType | None:
    """The Julia type of a host value, or None where printing cannot tell it."""
    if x is None:
        return NothingT
    if isinstance(x, bool | np.bool_):
        return BoolT
    if isinstance(x, str):
        return StringT
    if isinstance(x, np.generic):
        return DTYPE_TO_JTYPE.get(x.dtype)
    if isinstance(x, int):
        return Int64T
    if isinstance(x, float):
        return Float64T
    if isinstance(x, Char):
        return CharT
    if isinstance(x, Symbol):
        return SymbolT
    if isinstance(x, tuple):
        params = tuple(_type_of(e) for e in x)
        return None if any(p is None for p in params) else apply_type(TupleT, params)
    if isinstance(x, NamedTuple):
        ftypes = tuple(_type_of(e) for e in x.values)
        if any(p is None for p in ftypes):
            return None
        return apply_type(NamedTupleT, (tuple(x.names), apply_type(TupleT, ftypes)))
    if isinstance(x, np.ndarray):
        return apply_type(ArrayT, (_eltype(x), x.ndim))
    if isinstance(x, Range):
        elt = _type_of(x.start)
        if isinstance(x.start, int | np.integer | WideInt) and not isinstance(x.start, bool):
            return (
                apply_type(UnitRangeT, (elt,))
                if x.unit
                else apply_type(StepRangeT, (elt, _type_of(x.step)))
            )
        return apply_type(StepRangeLenT, (elt,)) if elt is not None else None
    if isinstance(x, StructValue):
        return x.type
    if isinstance(x, JType):
        return DataTypeT
    if isinstance(x, ModuleValue):
        return ModuleT
    return None


def _eltype(a: np.ndarray) -> JType:
    """The element type of a host array. Object arrays carry no element type, so it is
    inferred as Julia's array literal would: the common type of the elements, else Any."""
    if a.dtype.kind == "U":
        return StringT
    t = DTYPE_TO_JTYPE.get(a.dtype)
    if t is not None:
        return t
    t = recorded(a)
    if t is not None:
        return t
    common: JType | None = None
    for e in a.flat:
        et = _type_of(e)
        if et is None or (common is not None and et != common):
            return AnyT
        common = et
    return common if common is not None else AnyT


def _isa(x: Any, t: JType | None) -> bool:
    if t is None:
        return True
    xt = _type_of(x)
    if xt is None:
        return False
    try:
        return issubtype(xt, t)
    except (AttributeError, TypeError, IndexError):
        return False


def _typeinfo_implicit(t: Any) -> bool:
    """Julia's `typeinfo_implicit`: element types whose values read back without a prefix."""
    if not isinstance(t, JType):
        return False
    if t in (Float64T, Int64T, CharT, StringT, SymbolT, NothingT):
        return True
    fam = t.family
    if t.is_struct and not t.mutable and not t.fields and not t.abstract:
        return True  # a singleton struct
    if fam is ArrayT and len(t.params) == 2:
        return _typeinfo_implicit(t.params[0])
    if fam is TupleT:
        return all(_typeinfo_implicit(p) for p in t.params)
    if fam is NamedTupleT and len(t.params) == 2 and isinstance(t.params[1], JType):
        return all(_typeinfo_implicit(p) for p in t.params[1].params)
    if fam.name == "Pair" and len(t.params) == 2:
        return all(_typeinfo_implicit(p) for p in t.params)
    return False


def _typeinfo_eltype(t: JType | None) -> JType | None:
    """What a typeinfo of array type says about the elements (Julia's `typeinfo_eltype`)."""
    if t is not None and t.family is ArrayT and t.params:
        return t.params[0]
    return None


def _typeinfo_prefix(a: np.ndarray, elt: JType, ctx: _Ctx) -> tuple[str, bool]:
    """The element-type prefix of an array's `show` (`"Float32"` in `Float32[1.0]`) and
    whether the element type is implicit (then the elements' context is left alone)."""
    typeinfo = ctx.typeinfo if _isa(a, ctx.typeinfo) else None
    if elt == _typeinfo_eltype(typeinfo):
        return "", False
    if a.size > 0 and _typeinfo_implicit(elt):
        return "", True
    return type_name(elt), False


# --- tuples, named tuples, structs, ranges ---------------------------------------------


def _show_tuple(t: tuple, ctx: _Ctx) -> str:
    """`(1, "a")`, `(1,)`, `()`. Like Julia's `show_delim_array`, a tuple known (through
    the context) to be of a Tuple type tells each element its field type."""
    ti = ctx.typeinfo
    fields = None
    if ti is not None and ti.family is TupleT and len(ti.params) == len(t) and _isa(t, ti):
        fields = ti.params
    parts = [
        _show(e, replace(ctx, typeinfo=fields[k]) if fields is not None else ctx)
        for k, e in enumerate(t)
    ]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


def _show_namedtuple(nt: NamedTuple, ctx: _Ctx) -> str:
    if not nt.names:
        return "NamedTuple()"
    ti = ctx.typeinfo
    ftypes: Sequence[Any] | None = None
    if ti is not None and ti.family is NamedTupleT and len(ti.params) == 2 and _isa(nt, ti):
        ftypes = ti.params[1].params
    parts = [
        f"{name} = {_show(v, replace(ctx, typeinfo=ftypes[k] if ftypes else None))}"
        for k, (name, v) in enumerate(zip(nt.names, nt.values, strict=True))
    ]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


#: Functions `x -> text or None` that print a struct with a `show(io, x)` method the
#: program (or Base) defines; lang.core.builtins_io registers the one that runs it.
CUSTOM_SHOW: list[Callable[[Any], str | None]] = []
#: Functions `x -> text or None` for `print` of a value that prints unlike it shows
#: (lang.core.strings registers the strings that wrap a String).
CUSTOM_PRINT: list[Callable[[Any], str | None]] = []
#: The same for the REPL's `display` (Julia's `show(io, MIME"text/plain", x)`): a struct
#: with a `Core.display_text(x)` method (LinearAlgebra's `Diagonal`, `Eigen`) shows that.
CUSTOM_DISPLAY: list[Callable[[Any], str | None]] = []


def _show_struct(s: StructValue, ctx: _Ctx) -> str:
    """Julia's default `show` of a struct: its type, then its fields shown in parentheses.
    A `show(io, x)` method the program (or Base) defines for the type is used instead."""
    if _is_complex(s):
        return _show_complex(s, ctx)
    if _is_pair(s):
        return _show_pair(s, ctx)
    for custom_show in CUSTOM_SHOW:
        custom = custom_show(s)
        if custom is not None:
            return custom
    inner = replace(ctx, typeinfo=None)
    return f"{type_name(s.type)}({', '.join(_show(f, inner) for f in s.fields)})"


def _is_pair(x: Any) -> bool:
    """Whether x is a `Pair` (lang/core/stdlib/base.jl)."""
    return (isinstance(x, StructValue) and x.type.family.name == "Pair"
            and len(x.type.params) == 2)


def _tight_pair(p: StructValue) -> bool:
    """Julia's `has_tight_type`: the pair's type parameters are its fields' own types (a
    field whose type printing cannot tell counts as tight)."""
    return all(t is None or t == param
               for t, param in zip(map(_type_of, p.fields), p.type.params, strict=True))


def _show_pair(p: StructValue, ctx: _Ctx) -> str:
    """Julia's `show` of a Pair: `1 => 2`, `1=>2` when compact, a Pair inside a Pair in
    parentheses (`(1 => 2) => 3`), and one whose type is not its fields' types (and not
    known from the context) as `Pair{Any, Any}(1, 2)`."""
    if not _tight_pair(p) and ctx.typeinfo != p.type:
        return type_name(p.type) + _show_tuple(tuple(p.fields), replace(ctx, typeinfo=None))
    ti = ctx.typeinfo
    infos = ti.params if (ti is not None and ti.family.name == "Pair" and len(ti.params) == 2
                          and _isa(p, ti)) else (None, None)
    parts = [_show_part(x, info, ctx) for x, info in zip(p.fields, infos, strict=True)]
    return ("=>" if ctx.compact else " => ").join(parts)


def _show_part(x: Any, info: JType | None, ctx: _Ctx) -> str:
    """A Pair's key or value shown under the type info its pair gives it: a Pair in
    parentheses unless it shows its type (`(1 => 2) => 3`)."""
    text = _show(x, replace(ctx, typeinfo=info))
    return f"({text})" if _is_pair(x) and (_tight_pair(x) or info == x.type) else text


def _is_dict(x: Any) -> bool:
    """Whether x is a Dict or an IdDict (lang.core.builtins_dict's JDict)."""
    return isinstance(x, dict) and isinstance(getattr(x, "key_type", None), JType)


def truncate_text(s: str, width: int, stops: str = "") -> str:
    """Julia's `_truncate_at_width_or_chars`: s cut to `width` columns, or at the first
    of the characters `stops`, ending in `…` where it was cut ("" if width < 1)."""
    if width < 1:
        return ""
    wid = 0
    cut = last = -1
    for last, c in enumerate(s):
        wid += char_width(c)
        if wid >= width - 1 and cut < 0:
            cut = last
        if wid >= width or c in stops:
            break
    if last >= 0 and s[last] in stops:
        last -= 1
    if cut < 0:
        cut = last
    return s[:cut + 1] + "…" if last < len(s) - 1 else s


def _display_dict(d: Any, ctx: _Ctx) -> str:
    """Julia's `show(io, MIME"text/plain", d)` of a Dict: its summary, then one `key =>
    value` line per entry (compact); with `limit`, the lines that fit `displaysize`,
    keys padded to one width and both cut with `…` to fit the columns."""
    if not d:
        return _show(d, ctx)
    n = len(d)
    head = f"{type_name(d.jtype)} with {n} {'entry' if n == 1 else 'entries'}:"
    kctx = replace(ctx, compact=True, typeinfo=d.key_type)
    vctx = replace(ctx, compact=True, typeinfo=d.value_type)
    _SHOWING.append(id(d))
    try:
        pairs = [(_show(k, kctx), _show(v, vctx)) for k, v in
                 (list(d.items())[:max(ctx.displaysize[0] - 4, 0)] if ctx.limit else d.items())]
    finally:
        _SHOWING.pop()
    if not ctx.limit:
        return head + "".join(f"\n  {k} => {v}" for k, v in pairs)
    rows, cols = ctx.displaysize[0] - 4, max(ctx.displaysize[1], 12) - 6
    if rows < 1:
        return head + " …"
    keywidth = min(max([textwidth(k) for k, _ in pairs] + [0]), cols)
    valwidth = min(max([textwidth(v) for _, v in pairs] + [0]), cols)
    if keywidth > max(cols // 2, cols - valwidth):
        keywidth = max(-(-cols // 3), cols - valwidth)
    lines = []
    for i, (k, v) in enumerate(pairs, 1):
        if i == rows < n:
            lines.append(_rpad("⋮", keywidth) + " => ⋮")
            break
        lines.append(_rpad(truncate_text(k, keywidth, "\r\n"), keywidth) + " => "
                     + truncate_text(v, cols - keywidth, "\r\n"))
    return head + "".join("\n  " + line for line in lines)


def _rpad(s: str, width: int) -> str:
    """s padded with spaces to `width` columns (Julia's `rpad`, by textwidth)."""
    return s + " " * max(width - textwidth(s), 0)


def _show_dict(d: Any, ctx: _Ctx) -> str:
    """Julia's two-argument `show` of a Dict (an IdDict): `Dict{K, V}(k => v, ...)`, each
    key and value shown as its element type tells (`=>` when compact); with `limit`, ten
    entries then `…` (also after exactly ten, as Julia's)."""
    sep = "=>" if ctx.compact else " => "
    items = list(d.items())[:10] if ctx.limit else d.items()
    inner = ", ".join(_show_part(k, d.key_type, ctx) + sep + _show_part(v, d.value_type, ctx)
                      for k, v in items)
    more = "…" if ctx.limit and len(d) >= 10 else ""
    return f"{type_name(d.jtype)}({inner}{more})"


def _is_complex(x: Any) -> bool:
    """Whether x is one of Base's complex numbers (lang/core/stdlib/complex.jl)."""
    return (isinstance(x, StructValue) and x.type.family.name == "Complex"
            and x.type.fields == ["re", "im"])


def _show_complex(z: StructValue, ctx: _Ctx) -> str:
    """Julia's `show` of a Complex: `3 + 4im`, `1.0 - 2.5im`, `1.0+2.0im` when compact,
    `NaN + NaN*im` (a `*` unless the imaginary part is an integer or a finite float);
    `im` itself is `im`, other Complex{Bool}s `Complex(true,false)`."""
    re_, im_ = z.fields
    if isinstance(re_, bool | np.bool_):
        if not re_ and im_:
            return "im"
        return f"Complex({_show(re_, _PLAIN)},{_show(im_, _PLAIN)})"
    inner = replace(ctx, typeinfo=None)
    if isinstance(im_, Fraction):  # a Complex{Rational}: `1//5 - 2//5*im`
        negative = im_ < 0
        shown = _show(type(im_)(-im_) if negative else im_, inner)
        sep = ("-" if negative else "+") if ctx.compact else (" - " if negative else " + ")
        return f"{_show(re_, inner)}{sep}{shown}*im"
    negative = bool(np.signbit(im_)) and not (isinstance(im_, float | np.floating)
                                              and math.isnan(im_))
    sep = ("-" if negative else "+") if ctx.compact else (" - " if negative else " + ")
    shown_im = -int(im_) if negative and isinstance(im_, int | np.integer) else (
        -im_ if negative else im_)
    star = "" if (isinstance(im_, int | np.integer) or (
        isinstance(im_, float | np.floating) and math.isfinite(im_))) else "*"
    return f"{_show(re_, inner)}{sep}{_show(shown_im, inner)}{star}im"


def _range_last(r: Range) -> Any:
    """The last element of a nonempty float range, as Julia's ranges compute it.

    Julia computes range elements in twice the precision, so `0.1:0.1:0.3` ends at `0.3`
    and `range(0, 1, length=4)` at `1.0`. Of the naively accumulated value and the value
    computed exactly from the decimal forms of start and step, the one with the shorter
    decimal form is taken.
    """
    naive = r.start + (r.length - 1) * r.step
    if r.length <= 1 or not all(math.isfinite(float(v)) for v in (r.start, r.step, naive)):
        return naive
    exact = Fraction(jl_print(r.start)) + (r.length - 1) * Fraction(jl_print(r.step))
    decimal = type(naive)(float(exact))
    if decimal == naive:
        return naive
    if len(_shortest_digits(decimal)[0]) < len(_shortest_digits(naive)[0]):
        return decimal
    return naive


def _show_range(r: Range) -> str:
    """`show` of a range: `1:10`, `1:2:9`, `1.0:1.0:5.0` (endpoints shown without context)."""
    is_int = isinstance(r.start, int | np.integer | WideInt) and not isinstance(r.start, bool)
    if isinstance(r.start, WideInt):  # (exact; element -1 of an empty one: start - step)
        last = r[r.length - 1]
    elif r.length == 0:
        last = r.start - r.step
    elif is_int:
        last = r.start + (r.length - 1) * r.step
    else:
        last = _range_last(r)
    if is_int and r.unit:
        return f"{jl_show(r.start)}:{jl_show(last)}"
    return f"{jl_show(r.start)}:{jl_show(r.step)}:{jl_show(last)}"


# --- arrays: show -----------------------------------------------------------------------


def _matrix_at(a: np.ndarray) -> tuple[int, int, Callable[[int, int], Any]]:
    """View a 1-d or 2-d host array as Julia's rows × cols, with a 0-based element getter.

    A numpy array of shape (n, m) is the Julia m×n matrix: element (i, j) is a[j, i].
    """
    if a.ndim == 1:
        return a.shape[0], 1, lambda i, j: a[i]
    return a.shape[1], a.shape[0], lambda i, j: a[j, i]


def _trailing_slices(a: np.ndarray) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """The matrix slices `A[:, :, k3, ..., kN]` of an N-d array (N >= 3), in Julia's
    (column-major) order, each with its 0-based trailing index (k3, ..., kN)."""
    jsize = tuple(reversed(a.shape))
    tail = jsize[2:]
    out = []
    for flat in range(math.prod(tail)):
        idx = []
        for d in tail:
            idx.append(flat % d)
            flat //= d
        out.append((tuple(idx), a[tuple(reversed(idx))]))
    return out


def _show_array(a: np.ndarray, ctx: _Ctx) -> str:
    elt = _eltype(a)
    if a.ndim == 0:
        return f"fill({_show(a[()], replace(ctx, typeinfo=None))})"
    prefix, implicit = _typeinfo_prefix(a, elt, ctx)
    inner = ctx if implicit else replace(ctx, typeinfo=elt)
    if a.ndim == 1:
        return prefix + _show_vector(a, inner)
    if a.size == 0:
        atype = type_name(apply_type(ArrayT, (elt, a.ndim)))
        return f"{atype}(undef, {', '.join(str(d) for d in reversed(a.shape))})"
    if a.ndim == 2:
        return prefix + _show_matrix_body(a, inner, brackets=True)
    # N-d: slices separated by runs of semicolons, one more than the dimension that changed.
    parts = ["["]
    previous: tuple[int, ...] | None = None
    reached_last = False
    for idx, sl in _trailing_slices(a):
        if previous is not None:
            changed = max(d for d in range(len(idx)) if idx[d] > previous[d])
            parts.append(";" * (changed + 3) + " ")
            reached_last = reached_last or changed + 3 == a.ndim
        parts.append(_show_matrix_body(sl, inner, brackets=False))
        previous = idx
    if not reached_last:
        parts.append(";" * a.ndim)
    parts.append("]")
    return prefix + "".join(parts)


def _show_vector(a: np.ndarray, ctx: _Ctx) -> str:
    n = a.shape[0]
    if ctx.limit and n > 20:
        head = ", ".join(_show(a[k], ctx) for k in range(10))
        tail = ", ".join(_show(a[k], ctx) for k in range(n - 10, n))
        return f"[{head}  …  {tail}]"
    return "[" + ", ".join(_show(e, ctx) for e in a) + "]"


def _show_matrix_body(a: np.ndarray, ctx: _Ctx, brackets: bool) -> str:
    """`[1 2; 3 4]` (or without the brackets, for a slice of an N-d array); an m×1
    matrix is written `[1; 2;;]` to tell it from a vector."""
    nr, nc, at = _matrix_at(a)
    rows = list(range(nr))
    cols = list(range(nc))
    rdots = cdots = False
    if ctx.limit:
        if nr > 4:
            rows, rdots = [0, 1, nr - 2, nr - 1], True
        if nc > 4:
            cols, cdots = [0, 1, nc - 2, nc - 1], True
    out: list[str] = ["["] if brackets else []
    for ri, i in enumerate(rows):
        line: list[str] = []
        for ci, j in enumerate(cols):
            if cdots and ci == 2:
                line.append(" … ")
            elif ci > 0:
                line.append(" ")
            line.append(_show(at(i, j), ctx))
        out.append("".join(line))
        if i < nr - 1:
            out.append("; ")
        if rdots and ri == 1:
            out.append("… ; ")
    if brackets:
        if nc == 1:
            out.append(";;")
        out.append("]")
    return "".join(out)


# --- arrays: display (text/plain) ------------------------------------------------------


def _summary(a: np.ndarray) -> str:
    """`3-element Vector{Float64}`, `2×2 Matrix{Int64}`, `2×2×2 Array{Float64, 3}`."""
    atype = type_name(apply_type(ArrayT, (_eltype(a), a.ndim)))
    if a.ndim == 0:
        return f"0-dimensional {atype}"
    if a.ndim == 1:
        return f"{a.shape[0]}-element {atype}"
    return "×".join(str(d) for d in reversed(a.shape)) + " " + atype


def _display_array(a: np.ndarray, ctx: _Ctx) -> str:
    if a.size == 0 and a.ndim == 1:
        return _show_array(a, replace(ctx, limit=False))
    head = _summary(a)
    if a.size == 0:
        return head
    jsize = tuple(reversed(a.shape))
    compact = a.ndim >= 2 and jsize[1] > 1
    inner = replace(ctx, typeinfo=_eltype(a), compact=compact)
    if a.ndim == 0:
        return f"{head}:\n{_show(a[()], inner)}"
    if ctx.limit and ctx.displaysize[0] - 4 <= 0:
        return f"{head}: \u2026"  # (Julia's: no room for any row)
    if a.ndim <= 2:
        return f"{head}:\n{_MatrixPrinter(a, inner).render()}"
    return f"{head}:\n{_display_nd(a, inner)}"


def display_structured(a: np.ndarray, keep: np.ndarray, head: str) -> str:
    """A structured matrix (`Diagonal`, triangular) as the REPL shows it: `head` (its
    summary), then `a`'s rows as a dense matrix's, the entries where `keep` is false (the
    structural zeros) replaced by a `⋅` centred in the zero's printed width."""
    jsize = tuple(reversed(a.shape))
    if a.size == 0:
        return head
    compact = jsize[1] > 1
    inner = replace(_Ctx(), typeinfo=_eltype(a), compact=compact)
    return f"{head}:\n{_MatrixPrinter(a, inner, keep).render()}"


def _display_nd(a: np.ndarray, ctx: _Ctx) -> str:
    """Julia's `show_nd` with slice labels: `[:, :, 1] =` and the slice, for each slice."""
    slices = _trailing_slices(a)
    tail = tuple(reversed(a.shape))[2:]
    out: list[str] = []
    last_idx = tuple(d - 1 for d in tail)
    for idx, sl in slices:
        if ctx.limit:
            skip, dots = _nd_elision(idx, tail)
            if dots:
                out.append("...\n\n")
            if skip:
                continue
        label = ", ".join(str(k + 1) for k in idx)
        out.append(f"[:, :, {label}] =\n")
        out.append(_MatrixPrinter(sl, ctx).render())
        out.append("" if idx == last_idx else "\n\n")
    return "".join(out)


def _nd_elision(idx: tuple[int, ...], tail: tuple[int, ...]) -> tuple[bool, bool]:
    """Which slices a limited `show_nd` skips: along a trailing dimension longer than 10,
    only the first three and the last three indices are shown, with one `...` between.
    Returns (skip this slice, write `...` before it)."""
    for i, (k, d) in enumerate(zip(idx, tail, strict=True)):
        if d <= 10:
            continue
        if k == 3 and all(idx[p] == 0 for p in range(i)):
            inner_skip = any(
                tail[q] > 10 and 2 < idx[q] <= tail[q] - 4 for q in range(i + 1, len(tail))
            )
            return True, not inner_skip
        if 2 < k <= d - 4:
            return True, False
    return False, False


class _MatrixPrinter:
    """Julia's `print_matrix` for a 1-d or 2-d host array: rows of elements aligned on
    their decimal point (numbers) or left (everything else), `pre`/`sep` as the REPL uses
    them, and with `ctx.limit` the rows and columns that do not fit the screen replaced
    by `⋮`, `…` and `⋱`."""

    PRE = " "
    SEP = "  "
    HDOTS = "  \u2026  "
    VDOTS = "\u22ee"
    DDOTS = "  \u22f1  "
    HMOD = 5
    VMOD = 5

    def __init__(self, a: np.ndarray, ctx: _Ctx, keep: np.ndarray | None = None) -> None:
        self.m, self.n, self._at = _matrix_at(a)
        self.ctx = ctx
        self._keep = None if keep is None else _matrix_at(keep)[2]
        self._cache: dict[tuple[int, int], tuple[str, tuple[int, int]]] = {}

    def _cell(self, i: int, j: int) -> tuple[str, tuple[int, int]]:
        key = (i, j)
        if key not in self._cache:
            x = self._at(i, j)
            s = _show(x, self.ctx)
            align = _alignment(x, s)
            if self._keep is not None and not self._keep(i, j):
                # a structural zero: Julia's replace_with_centered_mark, aligned as the zero
                mark = [" "] * len(s)
                mark[(len(s) + 1) // 2 - 1] = "\u22c5"
                s = "".join(mark)
            self._cache[key] = (s, align)
        return self._cache[key]

    def _alignment(
        self, rows: Sequence[int], cols: Sequence[int], if_complete: int, otherwise: int
    ) -> list[tuple[int, int]]:
        sep = len(self.SEP)
        a: list[tuple[int, int]] = []
        for j in cols:
            left = right = 0
            for i in rows:
                lt, rt = self._cell(i, j)[1]
                left, right = max(left, lt), max(right, rt)
            a.append((left, right))
            if len(a) > 1 and sum(map(sum, a)) + sep * len(a) >= if_complete:
                a.pop()
                break
        if 1 < len(a) < self.n:
            while sum(map(sum, a)) + sep * len(a) >= otherwise:
                a.pop()
        return a

    def _row(self, align: list[tuple[int, int]], i: int, cols: Sequence[int]) -> str:
        out: list[str] = []
        for k, j in enumerate(cols):
            if k >= len(align):
                break
            s, (lt, rt) = self._cell(i, j)
            out.append(" " * (align[k][0] - lt) + s)
            if j != self.n - 1:
                out.append(" " * (align[k][1] - rt))
            if k < len(align) - 1:
                out.append(self.SEP)
        return "".join(out)

    def _vdots(self, align: list[tuple[int, int]], phase: int) -> str:
        out: list[str] = []
        for k, (lt, rt) in enumerate(align):
            width = lt + rt
            if (k + 1) % self.VMOD == phase:
                pad_left = " " * max(0, lt - len(self.VDOTS))
                pad_right = " " * max(0, width - len(self.VDOTS) - len(pad_left))
                out.append(pad_left + self.VDOTS + pad_right)
            else:
                out.append(" " * width)
            if k < len(align) - 1:
                out.append(self.SEP)
        return "".join(out)

    def render(self) -> str:
        """The rows joined by newlines, without a trailing newline."""
        if self.ctx.limit:
            height, width = self.ctx.displaysize[0] - 4, self.ctx.displaysize[1]
        else:
            height = width = 1 << 62
        width -= len(self.PRE)
        presp = " " * len(self.PRE)
        m, n = self.m, self.n
        rows = list(range(m))
        cols = list(range(n))
        half = int(height / 2)  # (Julia's div truncates: a screen too small shows no rows)
        if m > height:
            tail = int((height - 1) / 2)
            rows = rows[:max(half, 0)] + (rows[m - tail:] if tail > 0 else [])
        maxcols = width // (1 + len(self.SEP))
        if n > maxcols:
            cols = cols[:maxcols] + cols[n - maxcols :]
        align = self._alignment(rows, cols, width, width)
        fits_across = n <= len(align)
        if not fits_across:
            c = (width - len(self.HDOTS) + 1) // 2 + 1
            ralign = list(reversed(self._alignment(rows, list(reversed(cols)), c, c)))
            c = width - sum(map(sum, ralign)) - (len(ralign) - 1) * len(self.SEP) - len(self.HDOTS)
            lalign = self._alignment(rows, cols, c, c)
            rcols = [n - len(ralign) + j for j in range(len(ralign))]
        lines: list[str] = []
        for i in rows:
            lead = self.PRE if i == rows[0] else presp
            if fits_across:
                lines.append(lead + self._row(align, i, cols))
            else:
                dots = self.HDOTS if (i - rows[0]) % self.HMOD == 0 else " " * len(self.HDOTS)
                lines.append(
                    lead
                    + self._row(lalign, i, cols[: len(lalign)])
                    + dots
                    + self._row(ralign, i, rcols)
                )
            if m > height and i == rows[half - 1]:
                if fits_across:
                    lines.append(presp + self._vdots(align, 1))
                else:
                    phase = (len(ralign) - n + 1) % self.VMOD
                    lines.append(
                        presp + self._vdots(lalign, 1) + self.DDOTS + self._vdots(ralign, phase)
                    )
        return "\n".join(lines)


_ALIGN_SPLIT = re.compile(r"^(.*?)((?:[.eEfF].*)?)$", re.DOTALL)
_COMPLEX_SPLIT = re.compile(r"^(.*[^ef][+-])(.*)$", re.DOTALL)


def _alignment(x: Any, s: str) -> tuple[int, int]:
    """Julia's `alignment`: (characters left of the alignment point, characters right).

    Integers align right, other reals on the first `.`, `e` or `f`, everything else left.
    """
    if isinstance(x, bool | int | np.bool_ | np.integer):
        return len(s), 0
    if isinstance(x, float | np.floating):
        m = _ALIGN_SPLIT.match(s)
        if m is None:
            return len(s), 0
        return len(m.group(1)), len(m.group(2))
    if _is_complex(x):
        m = _COMPLEX_SPLIT.match(s)  # on the sign between the real and imaginary parts
        return (len(s), 0) if m is None else (len(m.group(1)), len(m.group(2)))
    return 0, len(s)


# --- types --------------------------------------------------------------------------------


def _display_type(t: JType) -> str:
    """The REPL's view of a type: its name, and for `Vector`/`Matrix` what they alias."""
    name = type_name(t)
    if t.family is ArrayT and len(t.params) == 2 and t.params[1] in (1, 2):
        return f"{name} (alias for Array{{{type_name(t.params[0])}, {t.params[1]}}})"
    return name


def jl_string(*xs: Any) -> str:
    """`string(xs...)`: strings as they are, everything else as `print` writes it (an
    Int64 in decimal: `jl_print`'s text for it, without its tests)."""
    return "".join(x if isinstance(x, str) else str(x) if type(x) is int else jl_print(x)
                   for x in xs)
