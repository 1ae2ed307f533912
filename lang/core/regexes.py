"""Julia's regular expressions (`Regex`, `match`, `eachmatch`, `replace` with `s"\\1"`) on
Python's `re`.

Julia's regexes are PCRE's; the Regex and RegexMatch values are Zyla structs
(lang/core/stdlib/regex.jl) that call the primitives here. A pattern is translated to
Python's syntax where the two spell the same thing differently (named groups
`(?<name>...)`, `\\k<name>`, `\\z`/`\\Z`, POSIX classes `[[:alpha:]]`, `\\Q...\\E`); a PCRE
construct Python has no equivalent of is an ErrorException when the Regex is made, never
a pattern that matches something else. Positions are Julia's byte (UTF-8 code unit)
indices, 1-based, as everywhere in Zyla's strings (lang/core/strings.py).
"""

from __future__ import annotations

import re
import warnings
from bisect import bisect_left
from functools import lru_cache
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.eltypes import tag
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.strings import SUBSTRING_STRING, SubStr, index_error, substr, viewed

_HOST = HostOnly("regular expressions run on the host")
#: the element types of a RegexMatch's captures and of its keys
_CAPTURE = V.make_union((V.NothingT, SUBSTRING_STRING))
_KEY = V.make_union((V.Int64T, V.StringT))

#: Julia's regex flags (the letters after `r"..."`) and Python's.
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE,
          "a": re.ASCII}

#: POSIX character classes (inside brackets: `[[:alpha:]_]`) as Python class items.
_POSIX = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
          "lower": "a-z", "space": r"\s", "blank": r" \t", "punct": r"!-/:-@\[-`{-~",
          "xdigit": "0-9A-Fa-f", "word": r"\w", "cntrl": r"\x00-\x1f\x7f",
          "print": r"\x20-\x7e", "graph": r"\x21-\x7e", "ascii": r"\x00-\x7f"}

_NAMED_GROUP = re.compile(r"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
_BACKREF = re.compile(r"\\k(?:<(\w+)>|\{(\w+)\}|'(\w+)')")
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")
_HEX_DIGITS = {c: re.compile(f"[0-9A-Fa-f]{{1,{n}}}") for c, n in (("x", 2), ("u", 4), ("U", 8))}
_OCTAL_DIGITS = re.compile("[0-7]{1,3}")

#: PCRE escapes with no Python equivalent: refused rather than read as something else.
_UNSUPPORTED_ESCAPES = frozenset("pPXRKGCNhHvV")

#: Python's compile messages for the commonest mistakes, in PCRE's words.
_MESSAGES = (("missing ), unterminated subpattern", "missing closing parenthesis"),
             ("unbalanced parenthesis", "unmatched closing parenthesis"),
             ("unterminated character set", "missing terminating ] for character class"),
             ("nothing to repeat", "quantifier does not follow a repeatable item"),
             ("multiple repeat", "quantifier does not follow a repeatable item"),
             ("bad escape", "unrecognized character follows \\"),
             ("unknown group name", "reference to non-existent subpattern"),
             ("invalid group reference", "reference to non-existent subpattern"))


def _error(message: str) -> ZylaError:
    return ZylaError("ErrorException", message)


def _unsupported(what: str) -> ZylaError:
    return _error(f"PCRE compilation error: {what} is not supported by Zyla's regular "
                  "expressions")


def _named_group(p: str, i: int) -> tuple[str, int] | None:
    """`(?<name>` / `(?'name'` at i as Python's `(?P<name>`, and the position after it."""
    m = _NAMED_GROUP.match(p, i)
    if m is None:
        return None
    return f"(?P<{m.group(1) or m.group(2)}>", m.end()


def _escape(p: str, i: int, in_class: bool) -> tuple[str, int]:
    """The PCRE escape at p[i] (a backslash) in Python's syntax, and the position after."""
    c = p[i + 1] if i + 1 < len(p) else ""
    if c == "Q":  # \Q...\E: literal text
        end = p.find("\\E", i + 2)
        end = len(p) if end < 0 else end
        return re.escape(p[i + 2:end]), min(end + 2, len(p))
    if c == "E":
        return "", i + 2
    if c == "z" and not in_class:
        return r"\Z", i + 2
    if c == "Z" and not in_class:
        return r"(?=\n?\Z)", i + 2
    if c == "e":
        return r"\x1b", i + 2
    if c == "k" and not in_class:
        m = _BACKREF.match(p, i)
        if m is not None:
            return f"(?P={m.group(1) or m.group(2) or m.group(3)})", m.end()
    if c == "x" and p.startswith("{", i + 2):
        end = p.find("}", i + 3)
        if end > 0 and re.fullmatch(r"[0-9A-Fa-f]{1,6}", p[i + 3:end]):
            return f"\\U{int(p[i + 3:end], 16):08x}", end + 1
    if c in _UNSUPPORTED_ESCAPES:
        raise _unsupported(f"\\{c}")
    return p[i:i + 2], i + 2


def translate(p: str) -> str:
    """A PCRE pattern in Python's `re` syntax (see the module docstring)."""
    out: list[str] = []
    i, n, in_class = 0, len(p), False
    while i < n:
        c = p[i]
        if c == "\\":
            piece, i = _escape(p, i, in_class)
            out.append(piece)
            continue
        if in_class:
            m = _POSIX_CLASS.match(p, i)
            if m is not None:
                if m.group(2) not in _POSIX or m.group(1):
                    raise _unsupported(f"the POSIX class {m.group()}")
                out.append(_POSIX[m.group(2)])
                i = m.end()
                continue
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            j = i + 1 + (p.startswith("^", i + 1))
            if p.startswith("]", j):  # `[]a]`: a `]` first is a member
                j += 1
            out.append(p[i:j])
            i = j
            continue
        if c == "(" and p.startswith("(?", i):
            named = _named_group(p, i)
            if named is not None:
                out.append(named[0])
                i = named[1]
                continue
            if p.startswith(("(?|", "(?R", "(?&", "(?+", "(?C"), i) or \
                    re.match(r"\(\?-?\d", p[i:i + 4]):
                raise _unsupported(f"the group {p[i:i + 3]}")
        if c == "(" and p.startswith("(*", i):
            raise _unsupported(f"the verb {p[i:p.find(')', i) + 1] or p[i:]}")
        if c == "{" and p.startswith("{,", i):  # (PCRE2 10.42, Julia 1.10's: literal text)
            out.append("\\{")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _flag_bits(flags: str) -> int:
    bits = 0
    for f in flags:
        if f not in _FLAGS:
            raise ZylaError("ArgumentError", f"unknown regex flag: {f}")
        bits |= _FLAGS[f]
    return bits


@lru_cache(maxsize=256)
def compiled(pattern: str, flags: str, end_anchored: bool = False) -> re.Pattern:
    """The Python pattern of Julia's `Regex(pattern, flags)` (anchored at the end of the
    subject for `endswith`); a malformed pattern is Julia's ErrorException."""
    text = translate(pattern)
    if end_anchored:
        text = f"(?:{text}{chr(10) if 'x' in flags else ''})\\Z"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (FutureWarning on `[[`: PCRE reads it too)
            return re.compile(text, _flag_bits(flags))
    except re.error as e:
        if e.msg.startswith("global flags not at the start"):  # (PCRE scopes `a(?i)b`)
            raise _unsupported("a flag group such as (?i) after the start") from None
        msg = next((pcre for py, pcre in _MESSAGES if e.msg.startswith(py)), e.msg)
        pos = len(pattern) if msg == "missing closing parenthesis" else e.pos
        at = f" at offset {pos}" if pos is not None and text == pattern else ""
        raise _error(f"PCRE compilation error: {msg}{at}") from None


def check(pattern: str, flags: str) -> str:
    """`Regex(pattern, flags)`'s flags in Julia's order (`imsx`, then `a`), after
    checking that the pattern compiles."""
    compiled(str(pattern), str(flags))
    return "".join(f for f in "imsxa" if f in flags)


def _objects(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def group_keys(pattern: str, flags: str) -> np.ndarray:
    """`keys(m)` of a match: each group's name, or its number where it has none."""
    names = group_names(pattern, flags)
    return tag(_objects([k + 1 if n is None else n for k, n in enumerate(names)]), _KEY)


def group_names(pattern: str, flags: str) -> tuple:
    """The name of each capture group (a String), or nothing where it has none."""
    rx = compiled(str(pattern), str(flags))
    names = {k: name for name, k in rx.groupindex.items()}
    return tuple(names.get(k) for k in range(1, rx.groups + 1))


# --- byte and character positions ------------------------------------------------------


@lru_cache(maxsize=64)
def _byte_starts(s: str) -> tuple[int, ...]:
    """The 0-based byte offset of each character of a non-ASCII s, and its length."""
    offs = [0]
    for ch in s:
        offs.append(offs[-1] + len(V.string_bytes(ch)))
    return tuple(offs)


def _to_byte(s: str, k: int) -> int:
    """The 0-based byte offset of character position k of s."""
    return k if s.isascii() else _byte_starts(str(s))[k]


def _to_char(s: str, i: int) -> int:
    """The character position of byte index i (1-based) of s, which must start one (or be
    just past the end)."""
    if s.isascii():
        n = len(s)
        if not 1 <= i <= n + 1:
            raise ZylaError("BoundsError", f"attempt to access {n}-codeunit String at index [{i}]")
        return i - 1
    offs = _byte_starts(str(s))
    if not 1 <= i <= offs[-1] + 1:
        raise ZylaError("BoundsError",
                        f"attempt to access {offs[-1]}-codeunit String at index [{i}]")
    k = bisect_left(offs, i - 1)
    if offs[k] != i - 1:
        raise index_error(s, i)
    return k


def _sub(s: str, a: int, b: int) -> SubStr:
    """Characters a..b-1 of s as a SubString (of s's parent, when s is one)."""
    parent, off = viewed(s)
    return substr(s[a:b], parent, off + _to_byte(s, a))


def _last_index(s: str, a: int, b: int) -> int:
    """The byte index of the last character of characters a..b-1 (a - 1 when empty)."""
    return _to_byte(s, b - 1) + 1 if b > a else _to_byte(s, a)


def _match_value(s: str, m: re.Match) -> tuple:
    """A match as regex.jl builds its RegexMatch: (the matched SubString, its byte offset,
    each capture's SubString or nothing, each capture's byte offset or 0)."""
    caps, offs = [], []
    for k in range(1, (m.re.groups or 0) + 1):
        a, b = m.span(k)
        caps.append(None if a < 0 else _sub(s, a, b))
        offs.append(0 if a < 0 else _to_byte(s, a) + 1)
    caps_arr = tag(_objects(caps), _CAPTURE)
    # (a Vector{Int} held as objects: the tiering does not count it as array work, and a
    # top-level `m[1]` is not worth compiling)
    return (_sub(s, m.start(), m.end()), _to_byte(s, m.start()) + 1, caps_arr,
            tag(_objects(offs), V.Int64T))


def search(pattern: str, flags: str, s: str, i: Any) -> Any:
    """`match(Regex(pattern, flags), s, i)`'s parts (`_match_value`), or nothing."""
    m = compiled(str(pattern), str(flags)).search(s, _to_char(s, int(i)))
    return None if m is None else _match_value(s, m)


def find(pattern: str, flags: str, s: str, i: Any) -> Any:
    """`findnext(regex, s, i)`: the byte range of the first match at or after byte i."""
    m = compiled(str(pattern), str(flags)).search(s, _to_char(s, int(i)))
    if m is None:
        return None
    lo = _to_byte(s, m.start()) + 1
    return V.Range(lo, 1, _last_index(s, m.start(), m.end()) - lo + 1, True)


def matches(pattern: str, flags: str, s: str, overlap: Any) -> tuple:
    """The parts of every match (`eachmatch`): after an empty match the next one may not
    be empty at the same place (PCRE's NOTEMPTY_ATSTART, as Julia's iterator asks); with
    overlap, the next search starts one character after each non-empty match's start."""
    rx = compiled(str(pattern), str(flags))
    if not overlap:
        return tuple(_match_value(s, m) for m in rx.finditer(s))
    out, pos = [], 0
    while pos <= len(s):
        for m in rx.finditer(s, pos):
            out.append(_match_value(s, m))
            if m.end() > m.start():
                pos = m.start() + 1
                break
        else:
            break
    return tuple(out)


def anchored(pattern: str, flags: str, s: str, where: str) -> Any:
    """The parts of the match at the start ("start") or the end ("end") of s, or nothing
    (PCRE's ANCHORED / ENDANCHORED: `chopprefix`, `chopsuffix`)."""
    p, f = str(pattern), str(flags)
    m = compiled(p, f).match(s) if where == "start" else compiled(p, f, True).search(s)
    return None if m is None else _match_value(s, m)


def test(pattern: str, flags: str, s: str, where: str) -> bool:
    """Whether the regex matches in s ("in"), at its start ("start") or at its end
    ("end"): `occursin`, `startswith`, `endswith`."""
    p, f = str(pattern), str(flags)
    if where == "start":
        return compiled(p, f).match(s) is not None
    return compiled(p, f, where == "end").search(s) is not None


# --- substitution strings --------------------------------------------------------------

_SIMPLE = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r",
           "e": "\x1b", "\\": "\\", '"': '"'}


def unescape(s: str, keep: Any = "") -> str:
    """Julia's `unescape_string(s, keep)`: C-like escapes decoded (`\\xNN` and octal ones
    are bytes), a backslash before a character of keep left as it is."""
    if not isinstance(keep, str):  # (a collection of Chars)
        keep = "".join(getattr(c, "value", c) for c in np.asarray(keep, dtype=object).ravel())
    out, i, n = bytearray(), 0, len(s)
    while i < n:
        c = s[i]
        if c != "\\" or i + 1 >= n:
            out += V.string_bytes(c)
            i += 1
            continue
        c = s[i + 1]
        i += 2
        if c in keep:
            out += b"\\" + V.string_bytes(c)
        elif c in "xuU":
            m = _HEX_DIGITS[c].match(s, i)
            code = int(m.group(), 16) if m else -1
            if not 0 <= code <= 0x10FFFF:
                raise ZylaError("ArgumentError", "invalid " + (
                    "hex (\\x)" if c == "x" else f"unicode (\\{c})") + " escape sequence")
            out += bytes([code]) if c == "x" else V.string_bytes(chr(code))
            i = m.end()  # type: ignore[union-attr]
        elif "0" <= c <= "7":
            m = _OCTAL_DIGITS.match(s, i - 1)
            code = int(m.group(), 8)  # type: ignore[union-attr]
            if code > 255:
                raise ZylaError("ArgumentError", "octal escape sequence out of range")
            out.append(code)
            i = m.end()  # type: ignore[union-attr]
        elif c in _SIMPLE:
            out += _SIMPLE[c].encode()
        else:
            raise ZylaError("ArgumentError", f"invalid escape sequence \\{c}")
    return bytes(out).decode("utf-8", "surrogateescape")


_SUBSTITUTION = re.compile(r"\\(?:(\\)|(\d+)|g<([^>]*)>)|\\")


def substitute(pattern: str, flags: str, s: str, i: Any, template: str) -> str:
    """The text a SubstitutionString `template` stands for at the match starting at byte
    i of s: `\\0`..`\\99` and `\\g<n>`/`\\g<name>` are the groups, `\\\\` a backslash (the
    other escapes are `unescape`'s)."""
    rx = compiled(str(pattern), str(flags))
    m = rx.match(s, _to_char(s, int(i)))
    assert m is not None  # (the match replace found there)
    text = unescape(str(template), "\\g0123456789")

    def group(g: re.Match) -> str:
        if g.group(1):
            return "\\"
        key = g.group(2) or g.group(3)
        if key is None:
            raise _error(f"Bad replacement string: {text}")
        try:
            k = int(key) if key.isdigit() else rx.groupindex[key]
        except KeyError:
            raise _error(f"Group {key} not found in regex {_show(pattern, flags)}") from None
        if k > rx.groups:
            raise _error("PCRE error: unknown substring")
        return m.group(k) or ""

    return _SUBSTITUTION.sub(group, text)


def escape_raw(s: str) -> str:
    """Julia's `escape_raw_string(s)`: s as the text of a raw string literal (a quote and
    the backslashes before it, or before the end, escaped)."""
    return re.sub(r'(\\*)("|$)', lambda m: m.group(1) * 2 + ("\\" + m.group(2) if m.group(2)
                                                            else ""), str(s))


def _show(pattern: str, flags: str) -> str:
    return 'r"' + escape_raw(pattern) + '"' + str(flags)


for _name, _f in {"Core.regex_check": check,
                  "Core.regex_names": group_names,
                  "Core.regex_keys": group_keys,
                  "Core.regex_search": search, "Core.regex_find": find,
                  "Core.regex_matches": matches, "Core.regex_test": test,
                  "Core.regex_anchored": anchored,
                  "Core.regex_substitute": substitute, "unescape_string": unescape,
                  "escape_raw_string": escape_raw}.items():
    prim(_name, _f, _HOST, NONDIFF)
