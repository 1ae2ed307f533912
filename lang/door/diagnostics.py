"""Diagnostics of the front door: hints added to errors, and offload explanations.

`enrich(err, rt)` is applied to an error just before it is shown (by the CLI and the
REPL; a program that catches the error sees it unchanged). It adds, where it can:

- for `UndefVarError`, a "did you mean" hint with the closest names in scope (globals,
  built-ins and the identifiers of the file the error is in), or, for a Julia construct
  Zyla does not support (`ccall`, `eval`, `@generated`, `@goto`, ...), a hint naming it;
- for a `ParseError`, a hint for `=` in a condition (`if x = 1`), quoting (`:(...)`,
  `quote`), command literals (backticks) and other unsupported syntax.

`explain_call(rt, f, args)` says whether a call offloads to one XLA executable and, if
not, which construct on which line keeps it on the host (`zyla explain FILE 'f(x)'`,
`@code_warntype f(x)`).
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

from backend.compile import compiled_call
from backend.dumps import typed_text
from backend.tiering import does_array_work
from grammar import ast as A
from grammar.errors import ZylaError, format_error
from grammar.parser import parse_expr
from grammar.unparse import unparse
from lang.core.functions import call_label
from lang.core.hints import UNSUPPORTED, closest_names, names_in_scope, visible
from lang.core.macros import MACROS
from lang.core.primitives import HostOnly, prim
from lang.core.structure import OffloadError

_WHERE = re.compile(r"\s*\(at (?P<file>.+):(?P<line>\d+)\)$")


def explain_call(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> str:
    """Whether `f(args...)` offloads to one XLA executable, and if not why: the construct
    and the source line that keep it on the host. Builds (and caches) the executable."""
    label = call_label(f, args, kwargs)
    auto = does_array_work(rt, f, args, kwargs)
    t0 = time.perf_counter()
    try:
        compiled_call(rt, f, args, kwargs)
    except OffloadError as e:
        reason = str(e)
        where = getattr(e, "where", "")
        m = _WHERE.search(reason)
        if m:
            reason = reason[: m.start()]
            where = where or f"{m.group('file')}:{m.group('line')}"
        lines = [f"{label} runs on the host interpreter: it cannot be offloaded to XLA.",
                 f"  reason: {reason}"]
        if where:
            lines.extend(_quote_where(rt, where))
        lines.append("  (the host interpreter gives the same results, without XLA's speed)")
        return "\n".join(lines)
    except ZylaError as e:
        return f"{label} fails while compiling: {e.kind}: {e.message}"
    dt = time.perf_counter() - t0
    lines = [f"{label} offloads to XLA: the whole call tree compiles to one executable "
             f"(built and run in {dt:.2f} s)."]
    if not auto:
        lines.append("  note: a top-level call with these arguments is not offloaded "
                     "automatically (no array among its arguments or the globals it reads); "
                     "ZYLA_COMPILE=always offloads it.")
    return "\n".join(lines)


def _quote_where(rt: Any, where: str) -> list[str]:
    file, _, line = where.rpartition(":")
    out = [f"  at {where}"]
    if not line.isdigit():
        return out
    src = rt.sources.get(file)
    text = src.line(int(line)) if src is not None else ""
    if text:
        out.append(f"    {line} | {text}")
    return out


def explain_source(rt: Any, call_text: str) -> str:
    """Explain a call written as source (`"f(x, 2)"`): the callee and the arguments
    are evaluated on the host in `rt`'s globals, then `explain_call` is asked."""
    node = parse_expr(call_text, "<explain>")
    if not isinstance(node, A.Call):
        raise ZylaError("ArgumentError", f"expected a call like f(x), got `{call_text}`")
    mode = rt.compile_mode
    rt.compile_mode = "never"  # evaluate the arguments without offloading them
    try:
        f = rt.run_source(unparse(node.func), "<explain>")
        args = []
        for a in node.args:
            if isinstance(a, A.Splat):
                args.extend(rt.iterate_all(rt.run_source(unparse(a.value), "<explain>")))
            else:
                args.append(rt.run_source(unparse(a), "<explain>"))
        kwargs = {k.name: rt.run_source(unparse(k.value), "<explain>") for k in node.kwargs}
    finally:
        rt.compile_mode = mode
    return explain_call(rt, f, args, kwargs or None)


def code_warntype(rt: Any, f: Any, *args: Any) -> None:
    """`@code_warntype f(x)`: the typed IR (when types can be inferred) and the offload
    explanation of the call."""
    try:
        text = typed_text(rt, f, list(args))
    except ZylaError as e:
        text = f"(types could not be inferred: {e.kind}: {e.message})"
    except Exception as e:  # abstract interpretation of a host-only construct
        first = str(e).splitlines()[0] if str(e) else ""
        text = f"(types could not be inferred: {type(e).__name__}: {first})"
    rt.stdout.write(text + "\n" + explain_call(rt, f, list(args)) + "\n")


# ---- installation -------------------------------------------------------------------------------


def install(rt: Any) -> None:
    """Register `Core.code_warntype` (the `@code_warntype` macro calls it)."""
    rt.builtins["Core.code_warntype"] = prim(
        "Core.code_warntype", lambda *a: code_warntype(rt, *a),
        HostOnly("printing runs on the host"), "nondifferentiable", lambda *a: None)


def enrich(err: ZylaError, rt: Any = None) -> ZylaError:
    """Add a hint to an error about to be shown (see the module docstring). Never raises;
    an error that already has a hint keeps it."""
    try:
        if err.hint is None:
            if err.kind == "UndefVarError":
                err.hint = _undef_hint(err, rt)
            elif err.kind == "ParseError":
                err.hint = _parse_hint(err)
            elif err.kind == "MethodError":
                err.hint = _keyword_hint(err, rt)
    except Exception:  # a hint is a nicety; the error itself must still be shown
        pass
    return err


def _undef_hint(err: ZylaError, rt: Any) -> str | None:
    """Why a name is missing (an unsupported Julia construct), or the closest names."""
    m = _UNDEF_MACRO.match(err.message)
    if m:
        name = m.group("name").split(".")[-1]
        why = UNSUPPORTED.get("@" + name)
        if why:
            return why

        near = closest_names(name, [k for k in MACROS if k.isidentifier()])
        return _did_you_mean(["@" + c for c in near])
    m = _UNDEF.match(err.message)
    if not m:
        return None
    name = m.group("name")
    mod = m.group("mod")
    head = name.split(".")[0]
    why = UNSUPPORTED.get(name) or UNSUPPORTED.get(head) or (UNSUPPORTED.get(mod) if mod else None)
    if why:
        return why
    if rt is None:
        return None
    if mod is not None:
        cands = {k.split(".", 1)[1] for k in rt.builtins if k.startswith(mod + ".")}
        cands |= {k for k in rt.builtins if visible(k)}
        return _did_you_mean(closest_names(name, cands))
    if "." in name:
        name = name.rsplit(".", 1)[1]
    return _did_you_mean(closest_names(name, names_in_scope(rt, err.source)))


def _keyword_hint(err: ZylaError, rt: Any) -> str | None:
    """For `f got unsupported keyword argument k`: the keywords f accepts, or the
    closest of them."""
    m = _BAD_KEYWORD.match(err.message)
    if not m or rt is None:
        return None
    try:
        f = rt.lookup(m.group("f"))
    except ZylaError:
        return None
    accepted: set[str] = set()
    for meth in getattr(f, "methods", []):
        accepted |= {k for k in meth.kwnames if not k.startswith("#")}
    if not accepted:
        return f"`{m.group('f')}` takes no keyword arguments"
    bad = m.group("kw").split(",")[0].strip()
    near = closest_names(bad, accepted)
    if near:
        return _did_you_mean(near)
    return "accepted keywords: " + ", ".join(sorted(accepted))


def _did_you_mean(names: list[str]) -> str | None:
    if not names:
        return None
    if len(names) == 1:
        return f"did you mean `{names[0]}`?"
    return "did you mean " + ", ".join(f"`{n}`" for n in names[:-1]) + f" or `{names[-1]}`?"


def _parse_hint(err: ZylaError) -> str | None:
    """A hint for a syntax error, from its message and the source around it."""
    msg = err.message
    line = err.source.line(err.span.line) if err.source is not None and err.span is not None else ""
    col = err.span.col if err.span is not None else 0
    before = line[: max(col - 1, 0)]
    # the lines up to the error (a `@generated` body fails to parse at its `:(...)`)
    head = "\n".join(err.source.text.splitlines()[max(0, err.span.line - 20): err.span.line]) if (
        err.source is not None and err.span is not None) else ""
    if re.search(r"@generated\b", head):
        return UNSUPPORTED["@generated"]
    if msg.startswith('unexpected "="') and re.match(r"^\s*(?:if|elseif|while)\b", before):
        return "`=` assigns; to compare in a condition use `==` (e.g. `if x == 1`)"
    if msg.startswith('unexpected "("') and before.rstrip().endswith(":"):
        return "quoted expressions `:(...)` (metaprogramming) are not supported by Zyla"
    if "quote" in msg and "not supported" in msg:
        return "quoted expressions (`quote ... end`, metaprogramming) are not supported by Zyla"
    if '"macro"' in msg and "not supported" in msg:
        return "defining macros is not supported by Zyla; write a function instead"
    if "character '`'" in msg:
        return ("command literals (`...`) are not supported; a program can run commands only "
                "when the user allows it (`zyla run --allow-shell`), with run(Cmd([...]))")
    if msg.startswith("unexpected") and "not supported by Zyla" in msg:
        word = re.search(r'keyword "([^"]+)"', msg)
        if word:
            return f"`{word.group(1)}` is a Julia construct Zyla does not support"
    return None


_UNDEF = re.compile(r"^`(?P<name>[^`]+)` not defined(?: in `(?P<mod>[^`]+)`)?")


_UNDEF_MACRO = re.compile(r"^macro @(?P<name>[\w.!]+) is not defined")


_BAD_KEYWORD = re.compile(r"^(?P<f>\S+) got unsupported keyword argument (?P<kw>[\w!, ]+)$")


def report(e: ZylaError, rt: Any = None) -> None:
    """Print an error as the CLI does (enriched with a hint, on stderr)."""
    flush_stdout()
    print(format_error(enrich(e, rt)), file=sys.stderr)


def flush_stdout() -> None:
    """Flush Python's stdout, ignoring a closed or broken one."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
