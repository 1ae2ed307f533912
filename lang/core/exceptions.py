"""Exceptions as Julia values: `throw`, `rethrow`, `try`/`catch`/`finally`, `showerror`.

Errors raised by the runtime are `ZylaError`s (a kind and a message). When Julia code
catches one, it becomes a value of the Base exception struct of that kind (declared in
lang/core/stdlib/base.jl: `ErrorException(msg)`, `ArgumentError(msg)`, `DomainError(val, msg)`,
`BoundsError(a, i)`, ...), so `e isa ErrorException`, `e.msg` and dispatch on the type
work; a kind without a declared struct gets a struct type with one field `msg`. The
runtime's message is kept on the value, so `sprint(showerror, e)` shows what the runtime
said. A value thrown with `throw(x)` is caught as itself.
"""

from __future__ import annotations

import os
import re
from typing import Any

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.show import jl_print, jl_show, jl_string

#: struct types made for error kinds that Base does not declare, one per kind
_ADHOC: dict[str, V.JType] = {}

#: exceptions being handled (innermost last), for `rethrow()`
_HANDLING: list[ZylaError] = []




# kinds of errors the runtime raises that Julia code catches as another type: an AD error
# is an ErrorException, as Zygote's are `error(...)`s
_CAUGHT_AS = {"AD error": "ErrorException"}


def _exception_type(kind: str) -> V.JType:
    rt = current.runtime()
    t = rt.builtins.get(kind)
    if t is None and kind in _CAUGHT_AS:
        t = rt.lookup(_CAUGHT_AS[kind])
    if isinstance(t, V.JType) and t.is_struct:
        return t
    t = _ADHOC.get(kind)
    if t is None:
        t = _ADHOC[kind] = V.JType(kind, V.ExceptionT)
        t.fields, t.field_types, t.is_struct = ["msg"], [V.StringT], True
    return t


_VAR_NAMED = re.compile(r"`([^`]+)` not defined")


def exception_value(e: ZylaError) -> Any:
    """The Julia value a `catch` binds for the error e."""
    if e.value is not None:
        return e.value
    t = _exception_type(e.kind)
    # the runtime's message goes to the field Julia keeps it in (`msg`; SystemError's `prefix`)
    known = e.fields or {}
    fields = [known[f] if f in known else e.message if f in ("msg", "prefix") else None
              for f in t.fields]
    if "var" in t.fields:  # UndefVarError's variable, named in its message
        m = _VAR_NAMED.match(e.message)
        fields[t.fields.index("var")] = V.Symbol(m.group(1)) if m else None
    v = V.StructValue(t, fields)
    v.zyla_message = e.message
    return v


def _field(v: V.StructValue, name: str) -> Any:
    return v.getfield(name) if name in v.type.fields else None


def _show(x: Any) -> str:
    return jl_show(x)


def _print(x: Any) -> str:
    return jl_print(x)


def _domain(v: V.StructValue) -> str:
    msg = _field(v, "msg")
    head = f"DomainError with {_show(_field(v, 'val'))}"
    return f"{head}:\n{_print(msg)}" if msg else head


def _method(v: V.StructValue) -> str:
    """`MethodError(f, args)`'s message: `no method matching f(::T1, ::T2)`."""
    args = _field(v, "args")
    types = ", ".join(f"::{V.type_name(typeof(a))}" for a in (args if isinstance(args, tuple)
                                                               else ()))
    return f"MethodError: no method matching {_print(_field(v, 'f'))}({types})"


_MESSAGES = {
    "ErrorException": lambda v: _print(_field(v, "msg")),
    "MethodError": _method,
    "DomainError": _domain,
    "KeyError": lambda v: f"KeyError: key {_show(_field(v, 'key'))} not found",
    "UndefVarError": lambda v: f"UndefVarError: `{_print(_field(v, 'var'))}` not defined",
    "DivideError": lambda v: "DivideError: integer division error",
    "UndefRefError": lambda v: "UndefRefError: access to undefined reference",
    "StackOverflowError": lambda v: "StackOverflowError:",
    "InexactError": lambda v: f"InexactError: {_print(_field(v, 'func'))}("
                              + ("" if _print(_field(v, "func")) == _print(_field(v, "T"))
                                 else f"{_print(_field(v, 'T'))}, ")
                              + f"{_show(_field(v, 'val'))})",
    "SystemError": lambda v: f"SystemError: {_print(_field(v, 'prefix'))}"
    + (f": {os.strerror(int(_field(v, 'errnum')))}" if _field(v, "errnum") else ""),
    "BoundsError": lambda v: "BoundsError" if _field(v, "a") is None else
    f"BoundsError: attempt to access {_show(_field(v, 'a'))} at index [{_print(_field(v, 'i'))}]",
}


def error_message(v: Any) -> str:
    """What `showerror(io, e)` writes for an exception value."""
    if not isinstance(v, V.StructValue):
        return _print(v)
    kind = v.type.name
    hidden = getattr(v, "zyla_message", None)
    if hidden is not None:
        return hidden if kind == "ErrorException" else f"{kind}: {hidden}"
    fmt = _MESSAGES.get(kind)
    if fmt is not None:
        return fmt(v)
    if (v.type.fields == ["msg"] and V.issubtype(v.type, V.ExceptionT)
            and v.type.family is current.runtime().builtins.get(kind)):
        return f"{kind}: {_print(v.fields[0])}"
    return _show(v)


def throw(x: Any) -> None:
    """`throw(x)`: raise any value; it is caught as itself."""
    if isinstance(x, ZylaError):
        raise x
    if isinstance(x, V.StructValue):
        msg = error_message(x)
        prefix = x.type.name + ": "
        raise ZylaError(x.type.name, msg[len(prefix):] if msg.startswith(prefix) else msg, value=x)

    raise ZylaError("ErrorException", jl_string(x), value=x)


def rethrow(*x: Any) -> None:
    """`rethrow()` inside a `catch` block re-raises the exception being handled."""
    if x:
        throw(x[0])
    if not _HANDLING:
        raise ZylaError("ErrorException", "rethrow() not allowed outside a catch block")
    raise _HANDLING[-1]


class Jump:
    """A `break`/`continue`/`return` leaving a `try` or `catch` body (lang.core.tryjumps):
    what its closure returns, for the code after the `try` to carry out."""

    __slots__ = ("kind", "value")

    def __init__(self, kind: int, value: Any = None) -> None:
        self.kind, self.value = kind, value


JUMP_BUILTINS = {
    "Core.jump": Jump,
    "Core.isjump": lambda x: type(x) is Jump,
    "Core.jumpkind": lambda j: j.kind,
    "Core.jumpvalue": lambda j: j.value,
}


def trycatch(interp: Any, body: Any, handler: Any, fin: Any) -> Any:
    """`try body catch e handler finally fin end` (handler/fin None when absent)."""
    try:
        return interp.call_value(body, [])
    except ZylaError as e:
        if handler is None:
            raise
        _HANDLING.append(e)
        try:
            return interp.call_value(handler, [exception_value(e)])
        finally:
            _HANDLING.pop()
    finally:
        if fin is not None:
            interp.call_value(fin, [])


def matches(e: ZylaError, t: Any) -> bool:
    """Whether the error e is an instance of the exception type t (`@test_throws T`)."""
    if isinstance(t, V.JType):
        return V.issubtype(typeof(exception_value(e)), t)
    return False
