"""Errors a user can cause, and how they are shown.

Every error that reaches a user is a `ZylaError`: a Julia error kind (`ParseError`,
`UndefVarError`, `MethodError`, `DimensionMismatch`, `BoundsError`, ...), a message and,
where known, a source location. `format_error` renders it the way the CLI prints it:

    ERROR: UndefVarError: `x` not defined
      at file.jl:3:9
        3 | println(f(x))
          |           ^
      hint: did you mean `y`?

An error keeps every location it passed through on its way out (`trace`, innermost
first). When the innermost one is inside Zyla's own Base/stdlib files (`lang/core/stdlib`),
the report points at the innermost location in the user's code instead and names the
library line on a separate line, so that a user sees their own line with a caret.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from grammar.ast import Span

#: Folders of Zyla's own `.jl` library files; an error inside one is reported at the user's
#: call. The language core registers its stdlib folder here (the grammar knows no files).
LIBRARY_DIRS: list[Path] = []


@dataclass
class SourceFile:
    """A named source text, kept so errors can quote their line."""

    name: str
    text: str

    def line(self, n: int) -> str:
        lines = self.text.splitlines()
        return lines[n - 1] if 1 <= n <= len(lines) else ""


class Unwind(Exception):
    """Base of internal signals that pass through the interpreter untouched (e.g. the
    compile tier giving up on a call), as opposed to errors in the user's program.
    The interpreter records where it passed first (the innermost op)."""

    where: str = ""

    def locate(self, span: Span | None, source: SourceFile | None) -> None:
        if not self.where and span is not None and span.line > 0:
            self.where = f"{source.name if source else '<input>'}:{span.line}"

    def __str__(self) -> str:
        msg = super().__str__()
        return f"{msg} (at {self.where})" if self.where else msg


def is_library_file(name: str | None) -> bool:
    """Whether a source name is one of Zyla's own library files (lang/core/stdlib/*.jl)."""
    if not name:
        return False
    try:
        return _resolved_parent(name) in LIBRARY_DIRS
    except (OSError, ValueError):
        return False


@functools.lru_cache(maxsize=1024)
def _resolved_parent(name: str) -> Path:
    """The folder a source name is in (resolving it touches the file system: the tiering
    asks once per call)."""
    return Path(name).resolve().parent


class ZylaError(Exception):
    """An error in the user's program. `kind` is the Julia exception name.

    `span`/`source` is the innermost location (set once, by `located`); `trace` lists
    every distinct location the error passed through, innermost first."""

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None = None,
        source: SourceFile | None = None,
        hint: str | None = None,
        value: object = None,
        fields: dict[str, object] | None = None,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.span = span
        self.source = source
        self.hint = hint
        self.value = value  # the thrown Julia value, for `throw(x)` / `catch e`
        # the fields of the exception value a `catch` makes, where the runtime knows them
        # (a BoundsError's array and indices); the rest are `nothing` or the message
        self.fields = fields
        self.trace: list[tuple[Span, SourceFile | None]] = []
        if span is not None and span.line > 0:
            self.trace.append((span, source))

    def __reduce__(self) -> tuple:
        """Pickle by kind, message and hint (crossing a process boundary, e.g. from a
        worker of a batch run); the source file and thrown value stay behind."""
        return (ZylaError, (self.kind, self.message, self.span, None, self.hint))

    def located(self, span: Span | None, source: SourceFile | None) -> ZylaError:
        """Attach a location if the error has none yet (innermost location wins); every
        location passed is also recorded in `trace`."""
        if span is not None and span.line > 0:
            last = self.trace[-1] if self.trace else None
            if last is None or (last[0].line, _name(last[1])) != (span.line, _name(source)):
                self.trace.append((span, source))
        if self.span is None and span is not None and span.line > 0:
            self.span = span
            self.source = source
        elif self.source is None and source is not None and self.span is not None:
            self.source = source
        return self

    def user_location(self) -> tuple[Span | None, SourceFile | None]:
        """The location to show: the innermost one outside Zyla's library files when
        the innermost is inside them (and such a location is known)."""
        if self.span is None or not is_library_file(_name(self.source)):
            return self.span, self.source
        for span, source in self.trace:
            if not is_library_file(_name(source)):
                return span, source
        return self.span, self.source


def decode_source(path: str, raw: bytes) -> str:
    """The text of a program file's bytes; invalid UTF-8 is a ParseError at its line and
    column (the line quoted with the bad bytes replaced)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line_start = raw.rfind(b"\n", 0, e.start) + 1
        line = raw.count(b"\n", 0, e.start) + 1
        col = len(raw[line_start:e.start].decode("utf-8", "replace")) + 1
        shown = SourceFile(path, raw.decode("utf-8", "replace"))
        raise ZylaError("ParseError", f"invalid UTF-8 sequence (byte 0x{raw[e.start]:02x})",
                        Span(line, col), shown) from None


def _name(source: SourceFile | None) -> str:
    return source.name if source is not None else "<input>"


#: At most this many characters of a source line are quoted (a window around the caret).
QUOTE_WIDTH = 200
#: At most this many characters of an error's message are shown.
MESSAGE_WIDTH = 1000


def _shown(c: str) -> str:
    """A character as an error quotes it: control characters (other than tab) escaped."""
    return c if c == "\t" or c.isprintable() else repr(c)[1:-1]


def _quote(span: Span, source: SourceFile | None) -> list[str]:
    """`  at FILE:LINE:COL`, then the source line (at most QUOTE_WIDTH characters of it,
    around the column, control characters escaped) and a caret under the column."""
    out = [f"  at {_name(source)}:{span.line}:{span.col}"]
    if source is not None:
        text = source.line(span.line)
        if text:
            caret = max(0, min(span.col, len(text) + 1) - 1)  # 0-based
            start = max(0, min(caret - QUOTE_WIDTH // 2, len(text) - QUOTE_WIDTH))
            end = min(len(text), start + QUOTE_WIDTH)
            before = "…" if start > 0 else ""
            after = "…" if end < len(text) else ""
            shown = [_shown(c) for c in text[start:end]]
            prefix = f"    {span.line} | "
            out.append(prefix + before + "".join(shown) + after)
            # keep tabs so the caret lines up under the same column in a terminal
            lead = "".join("\t" if s == "\t" else " " * len(s) for s in shown[: caret - start])
            out.append(" " * (len(prefix) - 2) + "| " + " " * len(before) + lead + "^")
    return out


def _short(message: str) -> str:
    """The message with control characters escaped (newlines kept) and at most
    MESSAGE_WIDTH characters long."""
    text = "".join(c if c == "\n" else _shown(c) for c in message)
    return text if len(text) <= MESSAGE_WIDTH else text[:MESSAGE_WIDTH] + "…"


def format_error(err: ZylaError) -> str:
    """Render an error for stderr: ERROR line, location, quoted source line, caret, and
    the hint (or hints, one a line) if any."""
    head = err.message if err.message.startswith(err.kind + " ") else (
        f"{err.kind}: {err.message}")  # Julia's "DomainError with -1:" names itself
    out = [f"ERROR: {_short(head)}".rstrip()]
    span, source = err.user_location()
    if span is not None and span.line > 0:
        out.extend(_quote(span, source))
        if span is not err.span and err.span is not None:
            lib = Path(_name(err.source)).name
            out.append(f"  (raised inside Zyla's library, {lib}:{err.span.line}:{err.span.col})")
    if err.hint:
        lines = err.hint.splitlines()
        out.append(f"  hint: {lines[0]}")
        out.extend(f"        {line}" for line in lines[1:])
    return "\n".join(out)
