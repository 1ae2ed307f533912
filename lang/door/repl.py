"""The REPL (`zyla` with no arguments).

On a terminal it is a prompt_toolkit session that behaves as a Julia user expects:

- the prompt is `zyla> `; Enter submits only a complete input (the parser decides, see
  `grammar.parser.parse_incomplete`), otherwise it continues on a new line (Alt-Enter
  always inserts a new line);
- input is highlighted with pygments' Julia lexer;
- history persists in `~/.zyla_history` (`ZYLA_HISTORY` overrides the path); Up/Down
  search the history for entries starting with what is typed;
- Tab completes names in scope, struct fields and NamedTuple names after `x.`, module
  members after `Mod.`, and LaTeX names to Unicode (`\\alpha` → `α`, `x\\hat` → `x̂`);
- `?name` prints the docstring and the methods of `name` (lang.door.docs);
- a result is displayed as Julia displays it (cut to the terminal's size) and bound to
  `ans`; a trailing `;` suppresses the display;
- an error prints its report and the session goes on with its state intact;
- Ctrl-C at the prompt clears the input; during a computation it interrupts it
  (`InterruptException`) and returns to the prompt; Ctrl-D on an empty line exits.

When stdin is not a terminal the REPL reads plain lines (prompts are still written), so
that piping a session through it works the same way (tests/test_repl.py).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from grammar.errors import ZylaError
from grammar.parser import parse_incomplete
from lang.core import values as V
from lang.core.macros import MACROS
from lang.core.show import jl_display
from lang.door.diagnostics import flush_stdout, report
from lang.door.docs import help_text
from lang.door.latex import complete_latex
from lang.door.wiring import new_runtime

PROMPT = "zyla> "
CONTINUATION = " " * len(PROMPT)
HELP_PROMPT = "help?> "

BANNER = """\
Zyla — a differentiable language with Julia's syntax, compiled to XLA.
Type ?name for help, Ctrl-D to exit."""


# ---- evaluation (shared by both front ends) -------------------------------------------------


#: what `]add Flux` (Julia's package mode) answers: there is nothing to install
PKG_MODE = ("Zyla has no package manager: its packages are built in and need no "
            "installing.\n`using` loads them: Flux, NNlib, Optimisers, Zygote, ChainRulesCore, "
            "MLUtils, OneHotArrays,\nStatistics, StatsBase, LinearAlgebra, Random, Printf, "
            "Logging, JLD2, BSON, FileIO, MLDatasets, Plots, Test.")


class Session:
    """One REPL session: a runtime and the number of inputs evaluated so far."""

    def __init__(self, allow_shell: bool = False, allow_read: Sequence[str] = (),
                 allow_write: Sequence[str] = (), allow_env: Sequence[str] = ()) -> None:
        self.rt = new_runtime("REPL", allow_shell, allow_read, allow_write, allow_env)
        self.count = 0

    def evaluate(self, text: str, width: int | None = None, height: int | None = None) -> None:
        """Evaluate one complete input, printing its result or its error."""
        stripped = text.strip()
        if not stripped:
            return
        if stripped.startswith("?"):
            self.help(stripped[1:])
            return
        if stripped.startswith("]"):
            print(PKG_MODE)
            return
        self.count += 1
        quiet = _ends_with_semicolon(text)
        rt = self.rt
        try:
            value = rt.run_source(text, f"REPL[{self.count}]")
        except ZylaError as e:
            report(e, rt)
            return
        except KeyboardInterrupt:
            flush_stdout()
            lead = "\n" if sys.stderr.isatty() else ""
            print(f"{lead}ERROR: InterruptException:", file=sys.stderr)
            return
        except RecursionError:
            flush_stdout()
            print("ERROR: StackOverflowError: recursion too deep", file=sys.stderr)
            return
        except Exception as e:  # an internal error: report it, keep the session
            flush_stdout()
            first = str(e).splitlines()[0] if str(e) else ""
            print(f"ERROR: InternalError: {type(e).__name__}: {first}", file=sys.stderr)
            if os.environ.get("ZYLA_DEBUG", "") not in ("", "0"):
                import traceback

                traceback.print_exc()
            return
        rt.globals["ans"] = value
        if value is not None and not quiet:
            size = shutil.get_terminal_size((width or 80, height or 24))
            try:
                shown = jl_display(value, displaysize=(height or size.lines, width or size.columns))
            except ZylaError as e:
                report(e, rt)
                return
            flush_stdout()
            print(shown)

    def help(self, name: str) -> None:
        """`?name`: the docstring and methods of `name`."""
        try:
            print(help_text(self.rt, name))
        except ZylaError as e:
            report(e, self.rt)


def _ends_with_semicolon(text: str) -> bool:
    """Whether the input ends with `;` (ignoring trailing spaces and a comment)."""
    lines = text.rstrip().splitlines()
    if not lines:
        return False
    last = lines[-1]
    if "#" in last and not last.lstrip().startswith("#"):
        # drop a trailing comment unless the `#` is inside a string
        head, _, _ = last.rpartition("#")
        if head.count('"') % 2 == 0:
            last = head
    return last.rstrip().endswith(";")


def is_complete(text: str) -> bool:
    """Whether Enter should submit `text`: help queries and empty input always,
    otherwise when the parser does not ask for more."""
    if not text.strip() or text.lstrip().startswith(("?", "]")):
        return True
    try:
        return not parse_incomplete(text)
    except Exception:  # a lexer/parser bug must not lock the prompt
        return True


# ---- completion ----------------------------------------------------------------------------------

_LATEX_AT_END = re.compile(r"\\[A-Za-z0-9^_]*$")
_NAME = r"[A-Za-z_\u00a1-\uffff][\w!\u00a1-\uffff]*"
_MEMBER_AT_END = re.compile(rf"({_NAME}(?:\.{_NAME})*)\.([\w!\u00a1-\uffff]*)$")
_WORD_AT_END = re.compile(rf"@?{_NAME}$")

KEYWORDS = ("function", "end", "if", "elseif", "else", "for", "while", "return", "break",
            "continue", "struct", "mutable", "begin", "let", "local", "global", "const",
            "using", "import", "try", "catch", "finally", "do", "true", "false", "nothing",
            "where", "abstract", "in", "isa")


def completions(rt: Any, text: str) -> tuple[int, list[tuple[str, str]]]:
    """Completions for the text before the cursor: (length of the replaced suffix,
    [(replacement, what to show)]). LaTeX names, then `x.` members, then names."""
    m = _LATEX_AT_END.search(text)
    if m and len(m.group()) > 1:
        return len(m.group()), [(v, f"{k} {v}") for k, v in complete_latex(m.group())]
    m = _MEMBER_AT_END.search(text)
    if m:
        members = member_names(rt, m.group(1))
        if members is not None:
            prefix = m.group(2)
            return len(prefix), [(n, n) for n in sorted(members) if n.startswith(prefix)]
    m = _WORD_AT_END.search(text)
    if not m:
        return 0, []
    word = m.group()
    if word.startswith("@"):
        names: Iterable[str] = ("@" + k for k in MACROS if k.isidentifier())
    else:
        names = scope_names(rt)
    return len(word), [(n, n) for n in sorted(set(names)) if n.startswith(word) and n != word]


def scope_names(rt: Any) -> set[str]:
    """Names visible at the REPL: globals, built-ins, modules and keywords."""
    out = {k for k in rt.globals if _public(k)}
    out |= {k for k in rt.builtins if _public(k)}
    out |= set(rt.modules)
    out |= set(KEYWORDS)
    return out


def _public(name: str) -> bool:
    return bool(name) and "." not in name and not name.startswith(("#", "_"))


def member_names(rt: Any, path: str) -> set[str] | None:
    """Fields of a struct or NamedTuple bound to a global path (`model.layer`), or the
    members of a module; None when `path` is not such a value. Only looks values up
    (never calls anything)."""
    head, *rest = path.split(".")
    if head in rt.modules and not rest:
        mod = head
        members = {k.split(".", 1)[1] for k in rt.builtins if k.startswith(mod + ".")}
        members = {k for k in members if _public(k)}
        if mod in ("Main",):
            members |= {k for k in rt.globals if _public(k)}
        if mod in ("Base", "Core") or not members:
            members |= {k for k in rt.builtins if _public(k)}
        return {k for k in members if k.rstrip("!").isidentifier()}
    value = rt.globals.get(head)
    if value is None:
        return None
    for part in rest:
        value = _field(value, part, V)
        if value is None:
            return None
    if isinstance(value, V.StructValue):
        return set(value.type.fields)
    if isinstance(value, V.NamedTuple):
        return set(value.names)
    if isinstance(value, V.JType) and value.is_struct:
        return None
    return None


def _field(v: Any, name: str, V: Any) -> Any:
    if isinstance(v, V.StructValue) and name in v.type.fields:
        return v.fields[v.type.fields.index(name)]
    if isinstance(v, V.NamedTuple) and name in v.names:
        return v.values[v.names.index(name)]
    return None


# ---- the terminal front end --------------------------------------------------------------------


def history_path() -> str:
    """Where the history is kept: $ZYLA_HISTORY, else ~/.zyla_history."""
    return os.environ.get("ZYLA_HISTORY") or os.path.join(os.path.expanduser("~"), ".zyla_history")


def _make_prompt_session(rt: Any) -> Any:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.lexers import PygmentsLexer
    from pygments.lexers.julia import JuliaLexer

    class ZylaCompleter(Completer):
        def get_completions(self, document: Document,
                            complete_event: CompleteEvent) -> Iterator[Completion]:
            text = document.text_before_cursor
            if text.lstrip().startswith("?"):
                text = text.lstrip()[1:]
            try:
                n, items = completions(rt, text)
            except Exception:  # completion must never break the prompt
                return
            for repl, shown in items[:200]:
                yield Completion(repl, start_position=-n, display=shown)

    kb = KeyBindings()

    @kb.add("enter")
    def _enter(event: Any) -> None:
        buf = event.current_buffer
        buf.complete_state = None  # a selected completion is already in the text
        text = buf.text
        if buf.document.is_cursor_at_the_end and is_complete(text):
            buf.validate_and_handle()
        elif not buf.document.is_cursor_at_the_end and is_complete(text) and "\n" not in text:
            buf.validate_and_handle()
        else:
            buf.insert_text("\n")

    @kb.add("escape", "enter")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    try:
        history: Any = FileHistory(history_path())
    except OSError:
        history = InMemoryHistory()

    def continuation(width: int, line_number: int, wrap_count: int) -> str:
        return " " * width

    return PromptSession(
        multiline=True, key_bindings=kb, lexer=PygmentsLexer(JuliaLexer),
        completer=ZylaCompleter(), complete_while_typing=False, history=history,
        enable_history_search=True, prompt_continuation=continuation,
        include_default_pygments_style=True)


def _terminal_loop(session: Session) -> int:
    ps = _make_prompt_session(session.rt)
    print(BANNER)
    while True:
        try:
            text = ps.prompt(PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            print()
            return 0
        session.evaluate(text)
        print()


def _plain_loop(session: Session) -> int:
    """Lines from a pipe: an input is complete when the parser says so."""
    while True:
        try:
            text = _read_line(PROMPT)
            while not is_complete(text):
                text += "\n" + _read_line(CONTINUATION)
        except EOFError:
            print()
            return 0
        except KeyboardInterrupt:
            print()
            continue
        session.evaluate(text)


def _read_line(prompt: str) -> str:
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def repl(allow_shell: bool = False, allow_read: Sequence[str] = (),
         allow_write: Sequence[str] = (), allow_env: Sequence[str] = ()) -> int:
    """Run the REPL until end of input; the exit status."""
    session = Session(allow_shell, allow_read, allow_write, allow_env)
    if sys.stdin.isatty() and sys.stdout.isatty():
        try:
            return _terminal_loop(session)
        except ImportError:
            pass
    return _plain_loop(session)
