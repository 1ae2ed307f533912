"""Errors a user can cause, and how they are shown.

Every error that reaches a user is a `ZylaError`: a Julia error kind (`ParseError`,
`UndefVarError`, `MethodError`, `DimensionMismatch`, `BoundsError`, ...), a message and,
where known, a source location. `format_error` renders it the way the CLI prints it:

    ERROR: UndefVarError: `x` not defined
      at file.jl:3:9
        3 | println(f(x))
          |           ^
"""

from __future__ import annotations

from dataclasses import dataclass

from lang.ast import Span


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

    def locate(self, span: Span | None, source: "SourceFile | None") -> None:
        if not self.where and span is not None and span.line > 0:
            self.where = f"{source.name if source else '<input>'}:{span.line}"

    def __str__(self) -> str:
        msg = super().__str__()
        return f"{msg} (at {self.where})" if self.where else msg


class ZylaError(Exception):
    """An error in the user's program. `kind` is the Julia exception name."""

    def __init__(
        self,
        kind: str,
        message: str,
        span: Span | None = None,
        source: SourceFile | None = None,
        hint: str | None = None,
        value: object = None,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.span = span
        self.source = source
        self.hint = hint
        self.value = value  # the thrown Julia value, for `throw(x)` / `catch e`

    def located(self, span: Span | None, source: SourceFile | None) -> "ZylaError":
        """Attach a location if the error has none yet (innermost location wins)."""
        if self.span is None and span is not None and span.line > 0:
            self.span = span
            self.source = source
        elif self.source is None and source is not None and self.span is not None:
            self.source = source
        return self


def format_error(err: ZylaError) -> str:
    """Render an error for stderr: ERROR line, location, quoted source line, caret."""
    out = [f"ERROR: {err.kind}: {err.message}"]
    if err.span is not None and err.span.line > 0:
        name = err.source.name if err.source else "<input>"
        out.append(f"  at {name}:{err.span.line}:{err.span.col}")
        if err.source is not None:
            text = err.source.line(err.span.line)
            prefix = f"    {err.span.line} | "
            out.append(prefix + text)
            out.append(" " * (len(prefix) - 2) + "| " + " " * (err.span.col - 1) + "^")
    if err.hint:
        out.append(f"  hint: {err.hint}")
    return "\n".join(out)
