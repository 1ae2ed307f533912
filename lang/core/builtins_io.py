"""Input/output built-ins: IO streams (`stdout`, `stderr`, `devnull`, `IOBuffer`),
`print`/`println`/`show`/`write` with an optional stream first, `sprint`, `@printf` /
`@sprintf`, `flush`, `take!`.

Every write goes through an `IOStream` object, so a program can pass `stdout` or an
`IOBuffer` wherever Julia code takes an `io::IO`. `stdout` writes to the runtime's
stdout object (which tests capture); `stderr` to the process's stderr.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import numeric as N
from lang.core import values as V
from lang.core.functions import GenericFunction, typeof
from lang.core.primitives import NONDIFF, HostOnly, prim, string_text
from lang.core.printf import format_values
from lang.core.show import (
    CUSTOM_DISPLAY,
    CUSTOM_PRINT,
    CUSTOM_SHOW,
    DEFAULT_DISPLAYSIZE,
    jl_display,
    jl_show,
    jl_string,
)

IOT = V.JType("IO", V.AnyT, abstract=True)
IOStreamT = V.JType("IOStream", IOT)
IOBufferT = V.JType("IOBuffer", IOT)
DevNullT = V.JType("Base.DevNull", IOT)

PRINTING = HostOnly("printing runs on the host")


class IOStream:
    """A stream that Julia code writes to: `write(s)` appends text."""

    jtype = IOStreamT
    compact = False  # (an `IOContext` property: `sprint(show, x; context=:compact => true)`)

    def __init__(self, name: str, sink: Any) -> None:
        self.name = name
        self.sink = sink  # a callable returning the object with .write / .flush

    def write(self, s: str) -> None:
        self.sink().write(s)

    def flush(self) -> None:
        out = self.sink()
        if hasattr(out, "flush"):
            out.flush()

    def jl_show(self) -> str:
        return f"IOStream(<{self.name}>)"


class IOBuffer(IOStream):
    """`IOBuffer()`: an in-memory stream; `take!`/`String(take!(io))` read it back.
    `IOBuffer(data)` (a String or a Vector{UInt8}) holds data, read-only unless
    `write=true`, as Julia's."""

    jtype = IOBufferT

    def __init__(self, data: Any = None, *, maxsize: Any = None, write: Any = None,
                 **_options: Any) -> None:
        self.parts: list[str] = [] if data is None else [_buffer_text(data)]
        self.room = None if maxsize is None else int(maxsize)  # `IOBuffer(maxsize=n)`
        self.writable = data is None if write is None else bool(write)
        # the read position and the length, in characters: reading goes on from the
        # position; a write moves it to the end, as Julia's one pointer of an IOBuffer()
        self.pos = 0
        self.size = sum(len(p) for p in self.parts)
        super().__init__("buffer", lambda: self)

    def text(self) -> str:
        """Everything the buffer holds, read or not (its pieces joined once)."""
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def content(self) -> str:
        """What the buffer holds from its read position on."""
        return self.text()[self.pos:]

    def readline(self) -> str:
        """The next line, with its newline (if it has one), read off the buffer ("" at
        its end)."""
        t = self.text()
        k = t.find("\n", self.pos) + 1 or len(t)
        line, self.pos = t[self.pos:k], k
        return line

    def read_bytes(self, n: int) -> bytes:
        """The next n bytes (fewer at the end), read off the buffer."""
        t = self.text()
        rest = t[self.pos:].encode("utf-8", "surrogateescape")
        taken = rest[:n].decode("utf-8", "surrogateescape")
        self.parts = [t[:self.pos] + taken + rest[n:].decode("utf-8", "surrogateescape")]
        self.pos += len(taken)
        self.size = len(self.parts[0])
        return rest[:n]

    def seek(self, pos: int) -> None:
        """Julia's `seek(io, pos)`: reading goes on from byte pos (from 0, clamped to the
        data as Julia's) of what the buffer holds."""
        data = self.text().encode("utf-8", "surrogateescape")
        self.pos = len(data[:min(max(pos, 0), len(data))].decode("utf-8", "surrogateescape"))

    def write(self, s: str) -> None:
        if not self.writable:
            raise ZylaError("ArgumentError", "ensureroom failed, IOBuffer is not writeable")
        if self.room is not None:  # (counted in characters; Julia counts bytes)
            s = s[:max(self.room, 0)]
            self.room -= len(s)
        self.parts.append(s)
        self.size += len(s)
        self.pos = self.size

    def take(self) -> str:
        """All the buffer holds, what was read included (Julia's `take!` of a seekable
        buffer), emptying it."""
        t = self.text()
        self.parts, self.pos, self.size = [], 0, 0
        return t

    def jl_show(self) -> str:
        return "IOBuffer()"


def _buffer_text(data: Any) -> str:
    """The text of `IOBuffer(data)`'s data: a String's, or a Vector{UInt8}'s bytes."""
    if isinstance(data, str):
        return data
    if isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.ndim == 1:
        return data.tobytes().decode("utf-8", "surrogateescape")
    raise ZylaError("MethodError", f"no method matching IOBuffer(::{V.type_name(typeof(data))})")


class DevNull(IOStream):
    jtype = DevNullT

    def __init__(self) -> None:
        super().__init__("devnull", lambda: self)

    def write(self, s: str) -> None:
        return None

    def jl_show(self) -> str:
        return "devnull"


IOContextT = V.JType("IOContext", IOT)


class IOContext(IOStream):
    """`IOContext(io, key => value, ...)`: the stream io with properties that printing
    reads (`:compact`, `:limit`, `:displaysize`); what is written to it goes to io."""

    jtype = IOContextT

    def __init__(self, io: IOStream, props: dict[str, Any]) -> None:
        super().__init__(io.name, io.sink)
        self.io = io
        self.props = props
        self.compact = bool(props.get("compact", False))

    def write(self, s: str) -> None:
        self.io.write(s)

    def jl_show(self) -> str:
        return f"IOContext({self.io.jl_show()})"


def _symbol_pair(p: Any) -> tuple[str, Any] | None:
    """A `:key => value` Pair as (key name, value); None for anything else."""
    if (isinstance(p, V.StructValue) and p.type.family.name == "Pair"
            and isinstance(p.fields[0], V.Symbol)):
        return p.fields[0].name, p.fields[1]
    return None


def _context_props(context: Any) -> dict[str, Any]:
    """The properties of an IOContext's settings: an IO (its properties), a `:key =>
    value` Pair or a tuple of them (as `IOContext(io, ...)` and `sprint`'s `context`
    take them); nothing gives none. Anything else is Julia's MethodError."""
    if context is None:
        return {}
    if isinstance(context, IOContext):
        return dict(context.props)
    if isinstance(context, IOStream):
        return {"compact": True} if context.compact else {}
    props: dict[str, Any] = {}
    for p in context if isinstance(context, tuple) else (context,):
        kv = (p.props.items() if isinstance(p, IOContext) else
              () if isinstance(p, IOStream) else (_symbol_pair(p),))
        for item in kv:
            if item is None:
                raise ZylaError("MethodError", "no method matching IOContext(::IO, "
                                f"::{V.type_name(typeof(p))})")
            props[item[0]] = item[1]
    return props


def _io_context(io: Any, *settings: Any) -> IOContext:
    """`IOContext(io, settings...)`: io (an IOContext's stream, keeping its properties)
    with the properties of each setting added, later ones replacing earlier ones."""
    if not isinstance(io, IOStream):
        raise ZylaError("MethodError", f"no method matching IOContext(::{V.type_name(typeof(io))})")
    props = _context_props(io) if isinstance(io, IOContext) else {}
    props.update(_context_props(settings))
    return IOContext(io.io if isinstance(io, IOContext) else io, props)


def _io_get(io: Any, key: Any, default: Any) -> Any:
    """`get(io, :key, default)`: an IOContext's property, else default."""
    if isinstance(io, IOContext) and isinstance(key, V.Symbol) and key.name in io.props:
        return io.props[key.name]
    if isinstance(io, IOStream) and key == V.Symbol("compact") and io.compact:
        return True
    return default


def _text(*xs: Any) -> str:
    return jl_string(*xs)


def _split_io(rt: Any, xs: tuple) -> tuple[IOStream, tuple]:
    if xs and isinstance(xs[0], IOStream):
        return xs[0], xs[1:]
    return rt.jl_stdout, xs


def _zyla_method(rt: Any, name: str, types: list) -> Any:
    """The Zyla-defined method of the built-in function `name` for argument types
    `types`, or None (no such function, no method, or a primitive's)."""
    gf = rt.builtins.get(name) if rt is not None else None
    if not isinstance(gf, GenericFunction):
        return None
    try:
        m = gf.dispatch(types)
    except Exception:
        return None
    return m if m.fn is not None else None


def custom_show(x: Any) -> str | None:
    """The text of a Zyla-defined `show(io, x)` method for x's type, or None (then the
    default printing applies)."""
    rt = current.runtime()
    m = _zyla_method(rt, "show", [IOBufferT, typeof(x)])
    if m is None:
        return None
    buf = IOBuffer()
    rt.interp.invoke(m, [buf, x], None)
    return buf.take()


def _show_string(x: Any) -> str | None:
    """Base's `show` of an AbstractString struct without a show method of its own (a
    program's string type): its characters, quoted as a String's."""
    text = string_text(x) if isinstance(x, V.StructValue) else None
    return None if text is None else jl_show(text)


def custom_print(x: Any) -> str | None:
    """The text `print(x)` writes for a struct: by a Zyla-defined `print(io, x)` method
    for x's type, else, for an AbstractString, its characters (Base's generic print);
    None for anything else (then print writes what show does)."""
    if not isinstance(x, V.StructValue):
        return None
    rt = current.runtime()
    m = _zyla_method(rt, "print", [IOBufferT, typeof(x)])
    if m is None:
        return string_text(x)
    buf = IOBuffer()
    rt.interp.invoke(m, [buf, x], None)
    return buf.take()


CUSTOM_SHOW.append(custom_show)
CUSTOM_SHOW.append(_show_string)
CUSTOM_PRINT.append(custom_print)


def custom_display(x: Any) -> str | None:
    """The text of a Zyla-defined `show(io, ::MIME"text/plain", x)` or
    `Core.display_text(x)` method for x's type (what the REPL's `display` shows), or
    None."""
    rt = current.runtime()
    mime = rt.builtins.get("MIME") if rt is not None else None
    if isinstance(mime, V.JType):
        plain = V.apply_type(mime, (V.Symbol("text/plain"),))
        m = _zyla_method(rt, "show", [IOBufferT, plain, typeof(x)])
        if m is not None:
            buf = IOBuffer()
            rt.interp.invoke(m, [buf, V.StructValue(plain, []), x], None)
            return buf.take()
    m = _zyla_method(rt, "Core.display_text", [typeof(x)])
    return None if m is None else str(rt.interp.invoke(m, [x], None))


CUSTOM_DISPLAY.append(custom_display)


class Stdin:
    """Julia's `stdin`: what the user piped or typed into the program (read, never
    written; the permission gate is for files)."""

    jtype = V.JType("Base.TTY", V.AnyT)

    def jl_show(self) -> str:
        return "Base.TTY(RawFD(0) open, 0 bytes waiting)"


STDIN = Stdin()


def _mime_name(m: Any) -> str:
    """The MIME type name of `show(io, mime, x)`'s mime: a String or a `MIME(name)`."""
    if isinstance(m, str):
        return m
    if isinstance(m, V.StructValue) and m.type.family.name == "MIME":
        return str(getattr(m.type.params[0], "name", m.type.params[0]))
    raise ZylaError("MethodError", f"no method matching show(::IO, ::{typeof(m).name}, ::Any)")


def _show_mime(mime: str, x: Any, io: IOStream) -> str:
    """`show(io, MIME(mime), x)`: for "text/plain" what the REPL displays (compact: as
    two-argument show; an IOContext's `:limit` and `:displaysize` limit it as the REPL's
    display); Zyla writes no other MIME type."""
    if mime != "text/plain":
        raise ZylaError("MethodError", f'no method matching show(::IO, ::MIME{{Symbol("{mime}")}}'
                        f", ::{typeof(x).name})")
    if io.compact:
        return jl_show(x, True)
    size = _io_get(io, V.Symbol("displaysize"), None)
    size = tuple(int(n) for n in size) if isinstance(size, tuple) and len(size) == 2 else None
    return jl_display(x, limit=bool(_io_get(io, V.Symbol("limit"), False)),
                      displaysize=size or DEFAULT_DISPLAYSIZE)


def _read_number(io: Any, t: V.JType) -> Any:
    """`read(io, T)` of a bits number type T from an IOBuffer: its next sizeof(T) bytes,
    as the machine stores T (little-endian), read off the buffer; an EOFError where the
    buffer holds fewer."""
    d = V.JTYPE_TO_DTYPE.get(t)
    if not isinstance(io, IOBuffer) or d is None or d.kind not in "biuf":
        raise ZylaError("MethodError", f"no method matching read(::{typeof(io).name}, "
                        f"::Type{{{V.type_name(t)}}})")
    if len(io.content().encode("utf-8", "surrogateescape")) < d.itemsize:
        raise ZylaError("EOFError", "read end of file")
    data = io.read_bytes(d.itemsize)
    return N.host_scalar(np.frombuffer(data, dtype=d.newbyteorder("<"))[0])


def _take_bytes(io: Any) -> np.ndarray:
    """`take!(io)`: the bytes written to io (a Vector{UInt8}, as Julia's), emptying it."""
    return np.frombuffer(io.take().encode("utf-8", "surrogateescape"), dtype=np.uint8).copy()


def _io_content(io: Any) -> str:
    """What an IOBuffer holds (streams that cannot be read back are Julia's MethodError)."""
    if not isinstance(io, IOBuffer):
        raise ZylaError("MethodError", f"no method matching peek(::{V.type_name(typeof(io))})")
    return io.content()


def _readline(io: Any = STDIN, keep: bool = False) -> str:
    """`readline()` / `readline(stdin)` / `readline(io::IOBuffer)`: the next line of
    standard input or of the buffer ("" at its end), without its newline unless `keep`."""
    if isinstance(io, IOBuffer):
        line = io.readline()
    elif io is STDIN:
        line = sys.stdin.readline()
    else:
        raise ZylaError("MethodError", "readline: only readline(stdin) and readline(::IOBuffer) "
                        "are supported; read a file with readlines(path)")
    if keep:
        return line
    return line[:-2] if line.endswith("\r\n") else line.removesuffix("\n")


def _buffer(io: Any, what: str) -> IOBuffer:
    """io, an IOBuffer (the streams Zyla reads from; others are Julia's MethodError)."""
    if not isinstance(io, IOBuffer):
        raise ZylaError("MethodError", f"no method matching {what}(::{V.type_name(typeof(io))})")
    return io


def _eof(io: Any) -> bool:
    """`eof(io)`: whether nothing is left to read from the buffer."""
    b = _buffer(io, "eof")
    return b.pos >= b.size


def _seek(io: Any, pos: Any) -> Any:
    """`seek(io, pos)`: io, read on from byte pos."""
    _buffer(io, "seek").seek(int(pos))
    return io


def install(rt: Any) -> None:
    """Register the IO built-ins in `rt.builtins` (replacing the stdout-only printers)."""
    rt.jl_stdout = IOStream("stdout", lambda: rt.stdout)
    b = rt.builtins

    def host(name: str, f: Any, needs_interp: bool = False) -> None:
        b[name] = prim(name, f, PRINTING, NONDIFF, lambda *a, **k: V.AnyT,
                       needs_interp=needs_interp)

    def print_(*xs: Any) -> None:
        io, xs = _split_io(rt, xs)
        io.write(_text(*xs))

    def println_(*xs: Any) -> None:
        io, xs = _split_io(rt, xs)
        io.write(_text(*xs) + "\n")

    def show_(*xs: Any) -> None:
        io, xs = _split_io(rt, xs)
        if len(xs) == 2:  # show(io, mime, x)
            io.write(_show_mime(_mime_name(xs[0]), xs[1], io))
        else:
            io.write(jl_show(xs[-1], io.compact))

    def display_(*xs: Any) -> None:
        io, xs = _split_io(rt, xs)
        io.write(jl_display(xs[-1], limit=False) + "\n")

    def write_(io: Any, *xs: Any) -> int:
        s = _text(*xs)
        io.write(s)
        return len(V.string_bytes(s))

    def flush_(io: Any = None) -> None:
        (io or rt.jl_stdout).flush()

    def printf_(*xs: Any) -> None:
        io, xs = _split_io(rt, xs)
        io.write(format_values(_text(xs[0]), xs[1:], _text))

    def sprintf_(fmt: Any, *xs: Any) -> str:
        return format_values(_text(fmt), xs, _text)

    def sprint_(interp: Any, f: Any, *xs: Any, context: Any = None, sizehint: Any = 0,
                **kw: Any) -> str:
        buf = IOBuffer()
        props = _context_props(context)
        interp.call_value(f, [IOContext(buf, props) if props else buf, *xs], kw or None)
        return buf.take()

    host("print", print_)
    host("println", println_)
    host("show", show_)
    host("display", display_)
    host("write", write_)
    host("flush", flush_)
    host("Printf.printf", printf_)
    host("Printf.@printf", printf_)
    host("sprint", sprint_, needs_interp=True)
    b["Printf.sprintf"] = prim("Printf.sprintf", sprintf_, HostOnly("strings are host values"),
                               NONDIFF, lambda *a, **k: V.StringT)
    b["Printf.format"] = b["Printf.sprintf"]
    b["IOBuffer"] = prim("IOBuffer", IOBuffer, HostOnly("streams are host values"), NONDIFF,
                         lambda *a, **k: IOBufferT)
    host("Core.io_content", _io_content)
    b["IOContext"] = prim("IOContext", _io_context, HostOnly("streams are host values"),
                          NONDIFF, lambda *a, **k: IOContextT)
    host("Core.io_get", _io_get)
    host("Core.read_number", _read_number)
    b["take!"] = prim("take!", _take_bytes, HostOnly("streams are host values"), NONDIFF,
                      lambda *a, **k: V.AnyT)
    b["IO"] = IOT
    b["stdout"] = rt.jl_stdout
    b["stdin"] = STDIN
    host("readline", _readline)
    host("eof", _eof)
    host("seek", _seek)
    b["stderr"] = IOStream("stderr", lambda: sys.stderr)
    b["devnull"] = DevNull()
