"""Friendlier diagnostics: hints added to errors, offload explanations, compile notices.

`enrich(err, rt)` is applied to an error just before it is shown (by the CLI and the
REPL; a program that catches the error sees it unchanged). It adds, where it can:

- for `UndefVarError`, a "did you mean" hint with the closest names in scope (globals,
  built-ins and the identifiers of the file the error is in), or, for a Julia construct
  Zyla does not support (`ccall`, `eval`, `@generated`, `@goto`, ...), a hint naming it;
- for a `ParseError`, a hint for `=` in a condition (`if x = 1`), quoting (`:(...)`,
  `quote`), command literals (backticks) and other unsupported syntax.

`explain_call(rt, f, args)` says whether a call offloads to one XLA executable and, if
not, which construct on which line keeps it on the host (`zyla explain FILE 'f(x)'`,
`@code_warntype f(x)`). `compile_notice(label)` prints "compiling f(...) ..." on stderr
when a compile takes longer than `ZYLA_COMPILE_NOTICE` seconds (default 2) and, when it
ends, "done in N s".
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from grammar.errors import SourceFile, ZylaError

# ---- unsupported Julia constructs ---------------------------------------------------------

_NO_FFI = "Zyla programs cannot call C, Python or the shell"
_NO_META = "Zyla has no run-time code evaluation (metaprogramming)"

#: Names of Julia functions/macros Zyla does not provide on purpose, with the reason.
UNSUPPORTED: dict[str, str] = {
    "ccall": f"`ccall` (calling C) is not supported: {_NO_FFI}",
    "@ccall": f"`@ccall` (calling C) is not supported: {_NO_FFI}",
    "cglobal": f"`cglobal` is not supported: {_NO_FFI}",
    "@cfunction": f"`@cfunction` is not supported: {_NO_FFI}",
    "unsafe_load": f"raw pointers (`unsafe_load`) are not supported: {_NO_FFI}",
    "unsafe_store!": f"raw pointers (`unsafe_store!`) are not supported: {_NO_FFI}",
    "pointer": f"raw pointers are not supported: {_NO_FFI}",
    "Libc": f"`Libc` is not available: {_NO_FFI}",
    "pyimport": f"`pyimport` is not available: {_NO_FFI}",
    "eval": f"`eval` is not supported: {_NO_META}",
    "@eval": f"`@eval` is not supported: {_NO_META}",
    "Meta": f"`Meta` is not available: {_NO_META}",
    "include_string": f"`include_string` is not supported: {_NO_META}",
    "invokelatest": f"`invokelatest` is not supported: {_NO_META}",
    "@generated": "generated functions (`@generated`) are not supported by Zyla: "
    "write an ordinary method (dispatch on the argument types instead)",
    "@goto": "`@goto` is not supported by Zyla: use a loop with `break`/`continue`",
    "@label": "`@label` is not supported by Zyla: use a loop with `break`/`continue`",
    "@async": "tasks (`@async`) are not supported by Zyla",
    "@spawn": "tasks (`@spawn`) are not supported by Zyla",
    "@threads": "threads (`Threads.@threads`) are not supported by Zyla: "
    "a compiled call already runs in parallel on its device",
    "@distributed": "`@distributed` is not supported by Zyla",
    "ENV": f"the process environment (`ENV`) is not available: {_NO_FFI}",
}


# ---- "did you mean" -----------------------------------------------------------------------


def edit_distance(a: str, b: str, limit: int = 1 << 30) -> int:
    """The optimal string alignment distance (Levenshtein with adjacent transpositions)
    between `a` and `b`; returns a value > `limit` early when the distance exceeds it."""
    if a == b:
        return 0
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def closest_names(name: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` candidates closest to `name`: a case-insensitive match first, then by
    edit distance (at most a third of the name's length, at least 1, at most 3)."""
    limit = min(3, max(1, len(name) // 3))
    low = name.lower()
    scored: list[tuple[int, int, str]] = []
    for c in set(candidates):
        if c == name or not c:
            continue
        if c.lower() == low:
            scored.append((0, 0, c))
            continue
        d = edit_distance(name, c, limit)
        if d <= limit:
            scored.append((d, abs(len(c) - len(name)), c))
        elif len(name) >= 4 and (c.startswith(name) or name.startswith(c)) and len(c) >= 3:
            scored.append((limit + 1, abs(len(c) - len(name)), c))
    scored.sort()
    return [c for _, _, c in scored[:n]]


_IDENT = re.compile(r"[A-Za-z_\u00a1-\uffff][A-Za-z0-9_!\u00a1-\uffff]*")


def _visible(name: str) -> bool:
    return bool(name) and not name.startswith(("#", "Core.", "_")) and "." not in name


def names_in_scope(rt: Any, source: SourceFile | None = None) -> set[str]:
    """Names a user could have meant: globals, built-ins, module names, and the
    identifiers of `source` (which covers local variables of the failing code)."""
    out = {k for k in rt.globals if _visible(k)}
    out |= {k for k in rt.builtins if _visible(k)}
    out |= set(getattr(rt, "modules", {}))
    if source is not None and len(source.text) < 2_000_000:
        out |= set(_IDENT.findall(source.text))
    return out


# ---- enrich -------------------------------------------------------------------------------

_UNDEF = re.compile(r"^`(?P<name>[^`]+)` not defined(?: in `(?P<mod>[^`]+)`)?")
_UNDEF_MACRO = re.compile(r"^macro @(?P<name>[\w.!]+) is not defined")


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
        from lang.core.macros import MACROS

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
        cands |= {k for k in rt.builtins if _visible(k)}
        return _did_you_mean(closest_names(name, cands))
    if "." in name:
        name = name.rsplit(".", 1)[1]
    return _did_you_mean(closest_names(name, names_in_scope(rt, err.source)))


_BAD_KEYWORD = re.compile(r"^(?P<f>\S+) got unsupported keyword argument (?P<kw>[\w!, ]+)$")


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


# ---- MethodErrors raised inside built-ins -------------------------------------------------------

_PY_ERROR = re.compile(r"^(TypeError|ValueError|AttributeError|KeyError|IndexError|"
                       r"NotImplementedError)\b")
_GENERIC_METHOD_ERRORS = ("no method for these argument types",)


def refine_method_error(err: ZylaError, op: Any, env: dict) -> None:
    """Rewrite a MethodError that a built-in raised without naming the call (a Python
    exception translated to a MethodError, or a generic message) as Julia names it:
    `no method matching f(::T1, ::T2)`, using the call op and its argument values.
    The Python detail is kept only under ZYLA_DEBUG=1."""
    if err.kind != "MethodError" or op.name not in ("call", "callv"):
        return
    if err.message not in _GENERIC_METHOD_ERRORS and not _PY_ERROR.match(err.message):
        return
    from lang.core import values as V
    from lang.core.functions import typeof

    try:
        start = 0 if op.name == "call" else 1
        if op.name == "call":
            name = str(op.attrs.get("fn", "f"))
        else:
            callee = env.get(op.operands[0].id)
            name = getattr(callee, "name", None) or V.type_name(typeof(callee))
        nkw = len(op.attrs.get("kw") or ())
        operands = op.operands[start: len(op.operands) - nkw]
        types = [V.type_name(typeof(env[v.id])) for v in operands]
    except Exception:  # the original message is still correct, only less helpful
        return
    if name.startswith("Core.") or name.startswith("#"):
        return
    detail = err.message
    err.message = f"no method matching {name}({', '.join('::' + t for t in types)})"
    err.args = (f"{err.kind}: {err.message}",)
    if os.environ.get("ZYLA_DEBUG", "") not in ("", "0") and detail not in _GENERIC_METHOD_ERRORS:
        err.hint = (err.hint + "\n" if err.hint else "") + f"(Python: {detail})"


# ---- method listings (help mode, MethodError) -----------------------------------------------


def closest_methods(name: str, types: list, methods: list, n: int = 3) -> list[str]:
    """The `n` methods closest to a call with argument `types` (most matching argument
    types, then the same number of arguments), each as `method_lines` writes it."""
    from lang.core import values as V

    def score(m: Any) -> tuple[int, int]:
        arity_ok = m.nreq <= len(types) and (m.vararg or len(types) <= len(m.sig))
        matches = 0
        for t, s in zip(types, m.sig, strict=False):
            try:
                matches += bool(V.issubtype(t, s, {}))
            except Exception:
                pass
        return (-matches, 0 if arity_ok else 1)

    shown = [m for m in methods if m.fn is not None or m.sig]
    ranked = sorted(shown, key=score)[:n]
    return [_method_line(m, name) for m in ranked]


def method_lines(gf: Any, name: str | None = None) -> list[str]:
    """One line per method of a generic function: `f(x::Float64, y) @ file.jl:3`."""

    name = name or getattr(gf, "name", "f")
    return [_method_line(m, name) for m in getattr(gf, "methods", [])]


def _method_line(m: Any, name: str) -> str:
    """`f(x::Float64, y) @ file.jl:3` for one method."""
    from lang.core import values as V

    fn = m.fn
    if fn is None:
        return m.signature_text(name) + " @ built-in"
    npos = len(fn.params) - fn.ncaptures - fn.nkw
    pnames = fn.params[fn.ncaptures: fn.ncaptures + npos]
    parts = []
    for i, p in enumerate(pnames):
        if fn.vararg and i == len(pnames) - 1:
            t = m.vararg_type
            parts.append(f"{p}{'' if t is V.AnyT else '::' + V.type_name(t)}...")
            continue
        t = m.sig[i] if i < len(m.sig) else V.AnyT
        tn = t.name if isinstance(t, V.TypeVar) else V.type_name(t)
        shown = p if not p.startswith("#") else ""
        parts.append(shown if tn == "Any" else f"{shown}::{tn}")
    kws = fn.params[len(fn.params) - fn.nkw:] if fn.nkw else []
    kw = "; " + ", ".join(k for k in kws if not k.startswith("#")) if kws else ""
    where = f" @ {os.path.basename(fn.file)}:{fn.span.line}" if fn.span.line else ""
    return f"{name}({', '.join(parts)}{kw}){where}"


# ---- offload explanations -------------------------------------------------------------------


def call_label(f: Any, args: list, kwargs: dict | None = None) -> str:
    """`f(::Vector{Float64}, ::Int64)`: a call as Julia names a method instance."""
    from lang.core import values as V
    from lang.core.functions import typeof

    name = getattr(f, "name", None) or V.type_name(typeof(f))
    parts = [f"::{V.type_name(typeof(a))}" for a in args]
    if kwargs:
        parts = [", ".join(parts)] if parts else []
        parts.append("; " + ", ".join(f"{k}::{V.type_name(typeof(v))}" for k, v in kwargs.items()))
        return f"{name}({''.join(parts)})"
    return f"{name}({', '.join(parts)})"


_WHERE = re.compile(r"\s*\(at (?P<file>.+):(?P<line>\d+)\)$")


def explain_call(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> str:
    """Whether `f(args...)` offloads to one XLA executable, and if not why: the construct
    and the source line that keep it on the host. Builds (and caches) the executable."""
    from backend.compile import compiled_call, wants_offload
    from lang.core.structure import OffloadError

    label = call_label(f, args, kwargs)
    auto = wants_offload(f, args)
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
                     "automatically (it has no array arguments); ZYLA_COMPILE=always offloads it.")
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
    from grammar import ast as A
    from grammar.parser import parse_expr
    from grammar.unparse import unparse

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
    from backend.dumps import typed_text

    try:
        text = typed_text(rt, f, list(args))
    except ZylaError as e:
        text = f"(types could not be inferred: {e.kind}: {e.message})"
    except Exception as e:  # abstract interpretation of a host-only construct
        first = str(e).splitlines()[0] if str(e) else ""
        text = f"(types could not be inferred: {type(e).__name__}: {first})"
    rt.stdout.write(text + "\n" + explain_call(rt, f, list(args)) + "\n")


# ---- compile notices --------------------------------------------------------------------------


def _notice_threshold() -> float:
    try:
        return float(os.environ.get("ZYLA_COMPILE_NOTICE", "2"))
    except ValueError:
        return 2.0


@contextmanager
def compile_notice(label: Callable[[], str], stream: Any = None) -> Iterator[None]:
    """Around a compile: once it has run longer than the threshold, print
    `compiling LABEL ...` on stderr; when it ends, `done in N s` (or why it stopped),
    only if announced.
    `label` is called only if the notice is printed. A negative threshold disables it."""
    threshold = _notice_threshold()
    if threshold < 0:
        yield
        return
    out = stream if stream is not None else sys.stderr
    said = threading.Event()
    lock = threading.Lock()
    finished = [False]

    def announce() -> None:
        with lock:
            if finished[0]:
                return
            try:
                out.write(f"compiling {label()} ...")
                out.flush()
            except Exception:
                return
            said.set()

    t0 = time.perf_counter()
    timer = threading.Timer(threshold, announce)
    timer.daemon = True
    if threshold == 0:
        announce()
    else:
        timer.start()
    outcome = "done in"
    try:
        yield
    except BaseException as e:
        from lang.core.structure import OffloadError

        outcome = "not compiled (runs on the host); stopped after" if isinstance(
            e, OffloadError) else "failed after"
        raise
    finally:
        timer.cancel()
        with lock:
            finished[0] = True
        if said.is_set():
            try:
                out.write(f" {outcome} {time.perf_counter() - t0:.1f} s\n")
                out.flush()
            except Exception:
                pass


# ---- installation -------------------------------------------------------------------------------


def install(rt: Any) -> None:
    """Register `Core.code_warntype` (the `@code_warntype` macro calls it)."""
    from lang.core.primitives import HostOnly, prim

    rt.builtins["Core.code_warntype"] = prim(
        "Core.code_warntype", lambda *a: code_warntype(rt, *a),
        HostOnly("printing runs on the host"), "nondifferentiable", lambda *a: None)
