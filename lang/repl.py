"""A basic REPL: reads complete inputs (the parser decides when a multi-line input is
complete), evaluates them in one runtime, and displays results as Julia does."""

from __future__ import annotations

import sys

from lang.errors import ZylaError, format_error


def _read(prompt_session: object | None, prompt: str) -> str:
    if prompt_session is not None:
        return prompt_session.prompt(prompt)  # type: ignore[attr-defined]
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def repl() -> int:
    from lang.parser import parse_incomplete
    from lang.runtime import Runtime
    from lang.show import jl_display

    rt = Runtime()
    rt.current_file = "REPL"
    session = None
    if sys.stdin.isatty():
        try:
            from prompt_toolkit import PromptSession

            session = PromptSession()
        except Exception:
            session = None
    n = 0
    while True:
        try:
            text = _read(session, "julia> ")
            while parse_incomplete(text):
                text += "\n" + _read(session, "       ")
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            continue
        if not text.strip():
            continue
        n += 1
        quiet = text.rstrip().endswith(";")
        try:
            v = rt.run_source(text, f"REPL[{n}]")
            if v is not None and not quiet:
                print(jl_display(v))
        except ZylaError as e:
            sys.stdout.flush()
            print(format_error(e), file=sys.stderr)
        except Exception as e:  # keep the session alive on internal errors
            print(f"ERROR: InternalError: {type(e).__name__}: {e}", file=sys.stderr)
