"""The compile tier: offloading a call to one XLA executable, cached by signature.

`compiled_call(rt, f, args, kwargs)` splits the arguments into array leaves and a static
skeleton (types, shapes, host integers and booleans, closure bodies) — the signature —
and runs the cached executable for it, building it on a miss: the call is traced by a
`JaxInterpreter` inside `jax.jit`. Global arrays the code reads become inputs of the
executable (not constants), so later in-place updates of those arrays are seen. A
`while` loop's AD tape that overflows its capacity triggers a rebuild with a larger one.
Only array values may change between calls of one signature: they never cause a new trace
or XLA compile (`CompileCache.traces` / `.builds` count them).

In-place semantics. A call may write into the caller's arrays (`x .-= step`, Flux's
`update!`) and into fields of the caller's mutable structs (an optimiser `Leaf`'s state).
The executable computes the new values functionally and returns them; the host then
writes them into the caller's objects, so the caller sees Julia's semantics. The old
device buffers of written arrays are donated to the executable, and the new buffers are
kept as those arrays' device copies (`device_leaf`), so a training step does not copy its
parameters in again on the next call. Writes inside a compiled loop or branch, and writes
into arguments that share memory, are not lowered: such calls run on the host.

Multi-device (backend.sharding): with a mesh, inputs are placed batch-sharded or
replicated and XLA's SPMD partitioner partitions the executable; in a job of several
processes, a call that splits no input runs on this process's device (`S.on_mesh`).

When a call cannot be offloaded the reason is kept (`explain`) and the host runs it.
"""

from __future__ import annotations

import ctypes
import os
import re
import stat
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autodiff import runtime as ad_runtime
from backend import costmodel
from backend import sharding as S
from backend.lower_jax import CHECK, INTERRUPT, JaxInterpreter
from backend.notice import compile_notice
from grammar.errors import ZylaError
from lang.core import numeric as N
from lang.core import values as V
from lang.core.builtins_random import KEY_INPUT, host_key
from lang.core.functions import GenericFunction, call_label, typeof
from lang.core.interp import Interpreter
from lang.core.primitives import Primitive
from lang.core.primitives_array import MUTATING
from lang.core.structure import (
    OffloadError,
    _join,
    _split,
    _unid,
    is_adjoint_row,
    is_array_value,
    type_key,
)


@dataclass
class Entry:
    """One compiled signature: the jitted function and what the host does around a call.

    Positions in `writes` and `out_alias` index the executable's inputs: the global arrays
    (`global_names`) first, then the call's distinct array leaves."""

    jitted: Any
    global_names: list[str]
    out_skel: Any = None
    out_alias: list[int] = field(default_factory=list)  # per result: input passed through or -1
    writes: tuple[int, ...] = ()  # inputs written in place (their new values follow the results)
    donated: tuple[int, ...] = ()  # the same, as positions among the distinct leaves
    # (mutable struct, field, skeleton of its new value, number of leaves)
    field_writes: list[tuple[int, int, Any, int]] = field(default_factory=list)
    n_out: int = 0
    has_flag: bool = False  # the last output is a tape-overflow flag
    # it has a loop of data-dependent length: wait for it so that Ctrl-C is seen
    interruptible: bool = False
    last_seconds: float = 0.0  # how long its last call took (see call_interruptibly)
    plain: bool = False  # none of the above: no globals, writes or flag (the fast path)
    capacity: int = 64
    trace_seconds: float = 0.0
    traces: int = 0
    calls: int = 0


class CompileCache:
    """The executables of one runtime, by call signature, and counters of real work:
    `traces` counts traces of the call under jax.jit (a JAX retrace counts again),
    `builds` the executables built (each is traced and XLA-compiled once)."""

    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.entries: dict[Any, Entry] = {}
        self.failures: dict[Any, str] = {}
        self.fast: dict[Any, tuple[Any, Any]] = {}  # cheap key -> (f, full key)
        self.last_reason: str | None = None
        self.traces = 0
        self.builds = 0


def _cache(rt: Any) -> CompileCache:
    c = getattr(rt, "compile_cache", None)
    if c is None:
        c = rt.compile_cache = CompileCache(rt)
    return c


# --- device copies of host arrays -----------------------------------------------------------

# Lowering writes into the caller's arrays and mutable structs (on by default; ZYLA_INPLACE=0
# restores the old behaviour, where such calls run on the host, for comparisons)
INPLACE = os.environ.get("ZYLA_INPLACE", "1") != "0"

# host -> device copies made by device_leaf (for measurements): count and bytes
TRANSFERS = {"count": 0, "bytes": 0}
# seconds spent tracing executables under jax.jit while building them (the first pass, when
# it is the executable's trace, and the whole-program check's lowering): the trace the
# first call would make anyway, done early (benchmarks count it as the JAX trace stage)
EARLY_TRACE = {"seconds": 0.0}

# id(host array) -> (weakref, write version, sharding or None, device array)
_DEVICE: dict[int, tuple[Any, int, Any, Any]] = {}
_DEVICE_MIN_SIZE = 1024


def device_leaf(x: Any, sharding: Any = None) -> Any:
    """The device buffer of a host array argument, reused across calls while the array is
    alive and unwritten (writes bump lang.core.values.write_version), so repeated calls with
    the same parameters do not copy them in every time. Small arrays and scalars go in as
    they are unless a sharding is asked for."""
    t = type(x)
    if t is float:  # passed as it is: jax.jit's fastest path (see _abstract)
        return x
    if t is not np.ndarray or (x.size < _DEVICE_MIN_SIZE and sharding is None):
        return x
    key = id(x)
    hit = _DEVICE.get(key)
    ver = V.write_version(x)
    if (hit is not None and hit[0]() is x and hit[1] == ver and hit[2] == sharding
            and not hit[3].is_deleted()):
        return hit[3]
    import jax

    d = jax.device_put(x, sharding) if sharding is not None else jax.device_put(x)
    TRANSFERS["count"] += 1
    TRANSFERS["bytes"] += x.nbytes
    _remember(x, d, sharding)
    return d


def _remember(x: np.ndarray, d: Any, sharding: Any = None) -> None:
    """Record `d` as the device copy of host array `x` at its current write version."""
    key = id(x)
    _DEVICE[key] = (weakref.ref(x, lambda _r, k=key: _DEVICE.pop(k, None)),
                    V.write_version(x), sharding, d)


# outputs at least this large are returned in their own buffers, not copied (_to_host)
_ALIAS_MIN_BYTES = 1 << 16


def _to_host(x: Any, one_cpu: bool | None = None) -> Any:
    """An executable's output as a writable host array. A large output of a one-device
    CPU executable is its own buffer: nothing else refers to it (outputs are fresh
    buffers), so the host may write into it, as Julia's arrays allow, without the copy a
    writable array would otherwise cost (a gradient of VGG19's 143M parameters: about a
    second on this machine). A later call that writes such an array in place donates a
    copy of the buffer, not the buffer (_run). Others are copied. `one_cpu`: whether the
    executable ran on one CPU device, when the caller knows (see _results)."""
    if one_cpu is None:
        if not getattr(x, "is_fully_addressable", True):  # (spread over several processes)
            a = S.distributed.to_host(x)
            return N.host_scalar(a[()]) if a.ndim == 0 else a
        one_cpu = _single_cpu(x)
    if one_cpu and x.ndim and x.nbytes >= _ALIAS_MIN_BYTES:
        return _alias(x)
    a = np.asarray(x)  # on the CPU, a read-only view (JAX arrays are immutable)
    if a.ndim == 0:
        return N.host_scalar(a[()])
    return a.copy()


def _alias(x: Any) -> np.ndarray:
    """A writable host array over device array x's own memory (x: one CPU device, in the
    default dense row-major layout, as jax.jit's outputs are), once x is computed. The
    array's base is a ctypes block whose `owner` keeps x, and so the memory, alive. (Made
    from the buffer's address: a third of the cost of np.asarray's view and a writable
    copy of its array interface, 0.1 ms a step for a training step's six results.)"""
    dt = np.dtype(x.dtype)
    x.block_until_ready()  # (the address is known before the executable has written it)
    block = (ctypes.c_char * x.nbytes).from_address(x.unsafe_buffer_pointer())
    block.owner = x
    return np.ndarray(x.shape, dt, buffer=block)


def _out(x: Any, one_cpu: bool | None = None) -> Any:
    """An executable's result as a host value (_to_host), a large array remembered with
    its device buffer, so that passing it to the next call (a training step's new
    parameters) copies nothing in."""
    h = _to_host(x, one_cpu)
    if type(h) is np.ndarray and h.size >= _DEVICE_MIN_SIZE:
        _remember(h, x, _sharding_of(x))
    return h


def _results(outs: Any, alias: Any, inputs: list) -> list:
    """The host values of one executable's results: an input passed through unchanged
    (`alias[i]` its position among `inputs`, or -1) is the caller's array itself, the rest
    go through _out. The results live on the executable's devices: when the first is on
    one CPU device, all are (asked once, not of each)."""
    one_cpu = (bool(outs) and _single_cpu(outs[0])) or None
    return [inputs[alias[i]] if alias[i] >= 0 and type(inputs[alias[i]]) is np.ndarray
            else _out(x, one_cpu) for i, x in enumerate(outs)]


def output_buffer(x: Any) -> Any:
    """The device array whose memory host array x is (x a large result, see _alias), or
    None."""
    base = getattr(x, "base", None)
    return base.owner if isinstance(base, ctypes.Array) else None


def _backs(d: Any, x: Any) -> bool:
    """Whether device array d is host array x's own memory (x came from _to_host)."""
    return output_buffer(x) is d


def _single_cpu(x: Any) -> bool:
    sh = getattr(x, "sharding", None)
    if sh is None or len(sh.device_set) != 1:
        return False
    return next(iter(sh.device_set)).platform == "cpu"


# --- signatures -------------------------------------------------------------------------------

#: skeleton kinds that only a trace can call: a broadcast's vmapped pullback, a pullback
#: chosen among a branch's alternatives at run time
_TRACE_ONLY = frozenset({"bback", "union"})


def _refuse_trace_only(skel: Any) -> None:
    """Raise OffloadError when a result's skeleton holds a pullback only a trace can call
    (the host could not call it: `pullback(a -> real.(a), A)` then `back(dy)` on the
    host): such a call runs on the host."""
    if type(skel) is not tuple or not skel:
        return
    if type(skel[0]) is str and skel[0] in _TRACE_ONLY:
        raise OffloadError("a pullback made inside compiled code is returned: the call "
                           "runs on the host")
    for part in skel:
        _refuse_trace_only(part)


def _split_value(v: Any, leaves: list, muts: list, memo: dict) -> Any:
    """structure.split's skeleton of v (integers static), extended to mutable structs: the
    first occurrence of one is ("mut", k, type, fields), later ones ("mref", k); `muts[k]`
    is the object. Without mutable structs the skeleton equals structure.split's."""
    t = type(v)
    if t is tuple:
        return ("tuple", tuple(_split_value(x, leaves, muts, memo) for x in v))
    if t is V.NamedTuple:
        return ("nt", v.names, tuple(_split_value(x, leaves, muts, memo) for x in v.values))
    if t is V.StructValue:
        if not v.type.mutable:
            return ("struct", type_key(v.type),
                    tuple(_split_value(x, leaves, muts, memo) for x in v.fields))
        if not INPLACE:
            raise OffloadError(f"mutable struct {v.type.name} cannot enter compiled code")
        k = memo.get(id(v))
        if k is not None:
            return ("mref", k)
        k = memo[id(v)] = len(muts)
        muts.append(v)
        return ("mut", k, type_key(v.type),
                tuple(_split_value(x, leaves, muts, memo) for x in v.fields))
    return _split(v, leaves, True)


def _join_value(s: Any, it: Any, muts: list) -> Any:
    """The inverse of _split_value. A "mut" skeleton makes a new struct (at trace time, the
    stand-in for the caller's) unless `muts` already holds object k (the caller's own)."""
    k = s[0]
    if k == "tuple":
        return tuple(_join_value(c, it, muts) for c in s[1])
    if k == "nt":
        return V.NamedTuple(s[1], tuple(_join_value(c, it, muts) for c in s[2]))
    if k == "struct":
        return V.StructValue(_unid(s[1]), [_join_value(c, it, muts) for c in s[2]])
    if k == "mut":
        fields = [_join_value(c, it, muts) for c in s[3]]
        if s[1] < len(muts):
            return muts[s[1]]
        obj = V.StructValue(_unid(s[2]), fields)
        muts.append(obj)
        return obj
    if k == "mref":
        return muts[s[1]]
    return _join(s, it)


def _fast_key(f: Any, args: list) -> tuple[tuple, list] | None:
    """A cheap key for the common call shapes (a Zyla function of distinct arrays, numbers,
    and tuples and immutable structs of them, such as a Flux model) and the call's leaves,
    or None. Equal cheap keys imply equal full signatures (checked when one is recorded):
    a struct type or a function is keyed by identity, and the recorded full key holds the
    object, so that its id is not reused while the record lives."""
    if type(f) is not GenericFunction:
        return None
    key: list = [id(f)]
    leaves: list = []
    for a in args:
        if not _fast_part(a, key, leaves):
            return None
    if not _distinct(leaves):
        return None
    return tuple(key), leaves


def _fast_part(a: Any, key: list, leaves: list) -> bool:
    """Add a's part of the cheap key and its leaves (in _split_value's order); False for a
    value the cheap key does not cover."""
    t = type(a)
    if t is np.ndarray:
        if a.dtype.hasobject:
            return False
        key.append((a.dtype, a.shape))
        leaves.append(a)
    elif t is float or t is np.float32 or t is np.float64:
        key.append(t)
        leaves.append(a)
    elif t is int or t is bool:
        key.append((t, a))
    elif t is V.StructValue:
        if a.type.mutable:
            return False
        key.append(("struct", id(a.type), len(a.fields)))
        return all(_fast_part(x, key, leaves) for x in a.fields)
    elif t is tuple:
        key.append(("tuple", len(a)))
        return all(_fast_part(x, key, leaves) for x in a)
    elif t is GenericFunction or t is Primitive:
        key.append(("fn", id(a)))
    else:
        return False
    return True


def _signature(rt: Any, f: Any, args: list, kwargs: dict | None) -> tuple[Any, list, list]:
    """(key, leaves, mutable structs) of a call. The key is (skeleton, extra): extra is the
    world age, widened to (world, duplicates, sharded inputs) when either is present."""
    leaves: list = []
    muts: list = []
    kw = V.NamedTuple(tuple(kwargs or {}), tuple((kwargs or {}).values()))
    skel = _split_value((f, tuple(args), kw), leaves, muts, {})
    return (skel, _extra(rt, leaves)), leaves, muts


def _extra(rt: Any, leaves: list) -> Any:
    """The part of the key beyond the skeleton: the world age (redefining a method
    invalidates what was compiled before, as Julia's world age does), which leaves are the
    same array object, and which are batch-sharded."""
    world = getattr(rt, "world", 0)
    dups = None
    arrays = [id(x) for x in leaves if type(x) is np.ndarray]
    if len(arrays) > 1 and len(set(arrays)) != len(arrays):
        first: dict[int, int] = {}
        dups = tuple(first.setdefault(id(x), i) if type(x) is np.ndarray else i
                     for i, x in enumerate(leaves))
    marks = None
    if S.active():
        marks = tuple((i, S.mark_of(x)) for i, x in enumerate(leaves) if S.is_marked(x))
    if dups is None and marks is None:
        return world
    return (world, dups, marks)


def _distinct(leaves: list) -> bool:
    """Whether no array object occurs twice among the leaves."""
    if len(leaves) < 2:
        return True
    ids = [id(x) for x in leaves if type(x) is np.ndarray]
    return len(set(ids)) == len(ids)


def _unique(leaves: list, extra: Any) -> list:
    """The distinct leaves (the executable's array inputs after the globals)."""
    if type(extra) is int or extra[1] is None:
        return leaves
    dups = extra[1]
    return [x for i, x in enumerate(leaves) if dups[i] == i]


# --- the call ---------------------------------------------------------------------------------

def compiled_call(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> Any:
    """Run f(args...) as one XLA executable (raises OffloadError if it cannot be). When a
    run-time check inside it fails (an index out of bounds), the call runs again on the
    host interpreter, the reference semantics, which raises Julia's error (`BoundsError`
    with the index, at the user's line) instead of returning what XLA computed."""
    try:
        return _compiled_call(rt, f, args, kwargs)
    except CheckFailed:
        return rt.interp.call_value(f, list(args), kwargs)


#: at most this many cheap keys are recorded (then the records start again)
_FAST_RECORDS = 512


def _compiled_call(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> Any:
    cache = _cache(rt)
    fast = None
    if not kwargs and not S.active():
        fast = _fast_key(f, args)
        if fast is not None:
            hit = cache.fast.get(fast[0])
            if hit is not None and hit[0] is f and hit[1] == getattr(rt, "world", 0):
                entry = hit[3]
                if entry.plain:
                    return _run_plain(entry, fast[1])
                return _run_cached(rt, cache, hit[2], fast[1], [])
    key, leaves, muts = _signature(rt, f, args, kwargs)
    if key in cache.entries or key in cache.failures:
        out = _run_cached(rt, cache, key, leaves, muts)
    else:
        # a long build (trace + XLA compile on the first run) is announced on stderr
        with compile_notice(lambda: call_label(f, args, kwargs)):
            out = _run_cached(rt, cache, key, leaves, muts)
    entry = cache.entries.get(key)
    if (fast is not None and entry is not None and not muts and type(key[1]) is int
            and len(fast[1]) == len(leaves)
            and all(a is b for a, b in zip(fast[1], leaves, strict=True))):
        if len(cache.fast) >= _FAST_RECORDS:  # (calls that make new struct types each time)
            cache.fast.clear()
        cache.fast[fast[0]] = (f, key[1], key, entry)
    return out


def _run_plain(entry: Entry, leaves: list) -> Any:
    """The fast path of _run: no globals, no writes, no overflow flag, no mutable structs."""
    args = ([], [device_leaf(x) for x in leaves])
    outs = call_interruptibly(entry, args) if entry.interruptible else entry.jitted(*args)
    entry.calls += 1
    skel = entry.out_skel
    alias = entry.out_alias
    if skel[0] == "arr" and alias[0] < 0:  # one array out: the common case, kept short
        return _out(outs[0])
    if not outs:  # the result is a constant of the trace
        return _join_value(skel, iter(()), [])
    host = _results(outs, alias, leaves)
    if skel[0] == "arr" or skel[0] == "num":
        return host[0]
    return _join_value(skel, iter(host), [])


def _run_cached(rt: Any, cache: CompileCache, key: Any, leaves: list, muts: list) -> Any:
    """Run the executable cached for `key`, building it first if needed."""
    if key in cache.failures:
        raise OffloadError(cache.failures[key])
    entry = cache.entries.get(key)
    capacity = 64
    while True:
        if entry is None:
            entry = _build_entry(rt, cache, key, leaves, muts, capacity)
        try:
            return _run(rt, cache, key, entry, leaves, muts)
        except _Overflow:
            capacity = entry.capacity * 4
            entry = None
            cache.entries.pop(key, None)
            cache.fast.clear()


def _build_entry(rt: Any, cache: CompileCache, key: Any, leaves: list, muts: list,
                 capacity: int) -> Entry:
    """Build and cache the executable for `key`; a failure is cached as OffloadError."""
    try:
        entry = build(rt, key, leaves, muts, capacity)
    except OffloadError as e:
        cache.failures[key] = str(e)
        raise
    except ZylaError as e:
        cache.failures[key] = f"{e.kind}: {e.message}"
        raise OffloadError(cache.failures[key]) from None
    except Exception as e:  # a construct JAX cannot trace
        cache.failures[key] = _describe(e)
        raise OffloadError(cache.failures[key]) from None
    cache.entries[key] = entry
    cache.builds += 1
    return entry


def prepare(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> None:
    """Trace f(args...) and cache its executable without running it (XLA compiles it on
    its first call); raises OffloadError when the call cannot be compiled."""
    cache = _cache(rt)
    key, leaves, muts = _signature(rt, f, args, kwargs)
    if key in cache.failures:
        raise OffloadError(cache.failures[key])
    if key not in cache.entries:
        with compile_notice(lambda: call_label(f, args, kwargs)):
            _build_entry(rt, cache, key, leaves, muts, 64)


#: A call of an executable with a data-dependent loop that took longer than this runs
#: its next call on a worker thread, so that Ctrl-C can end the wait (seconds).
INLINE_BELOW_S = 0.005


def call_interruptibly(entry: Entry, args: tuple) -> Any:
    """Run an executable that has a loop of data-dependent length. Its first call, and any
    call after one that took longer than INLINE_BELOW_S, runs on a worker thread while
    this thread waits in short steps, so that Ctrl-C (SIGINT) raises KeyboardInterrupt
    here instead of waiting for a loop that may never end; the executable's loops then
    stop within POLL_EVERY iterations and its results are dropped (the CLI exits, the
    REPL returns to its prompt). Calls that have been quick run inline, without the
    thread's cost (and cannot be interrupted)."""
    import jax

    t0 = time.perf_counter()
    if entry.calls > 0 and entry.last_seconds < INLINE_BELOW_S:
        outs = entry.jitted(*args)
        jax.block_until_ready(outs)
    else:
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["outs"] = jax.block_until_ready(entry.jitted(*args))
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                box["error"] = e
            finally:
                done.set()

        INTERRUPT.clear()
        threading.Thread(target=work, name="zyla-executable", daemon=True).start()
        try:
            while not done.wait(0.02):
                pass
        except KeyboardInterrupt:
            INTERRUPT.set()  # its loops see this and stop (lower_jax._interrupt_poll)
            raise
        if "error" in box:
            raise box["error"]
        if INTERRUPT.is_set():
            raise KeyboardInterrupt  # its loops stopped early: the results are not the answer
        outs = box["outs"]
    entry.last_seconds = time.perf_counter() - t0
    return outs


class _Overflow(Exception):
    """A while loop's tape overflowed: rebuild with a larger capacity."""


class CheckFailed(Exception):
    """A run-time check of the executable failed (an index out of bounds): its results
    are void, and the call runs again on the host, which raises Julia's error."""


def _describe(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _run(rt: Any, cache: CompileCache, key: Any, entry: Entry, leaves: list, muts: list) -> Any:
    """One call of a built executable: place the inputs, run, write back, convert."""
    extra = key[1]
    uniq = _unique(leaves, extra)
    host_in = _global_values(rt, entry.global_names) + uniq if entry.global_names else uniq
    if entry.writes and _shares_memory(host_in):
        raise OffloadError("the arguments share memory and the call writes into one of them")
    inputs = _place(host_in)
    ng = len(entry.global_names)
    for pos in (ng + d for d in entry.donated):
        if _backs(inputs[pos], host_in[pos]):
            # the host array is this buffer (_to_host): donate a copy, keep the buffer
            inputs[pos] = inputs[pos].copy()
    try:
        args = _arguments(entry, inputs)
        outs = call_interruptibly(entry, args) if entry.interruptible else entry.jitted(*args)
    except OffloadError as e:
        _fail(cache, key, entry, host_in, str(e))
        raise
    except Exception as e:
        msg = _describe(e)
        _fail(cache, key, entry, host_in, msg)
        raise OffloadError(msg) from None
    # (np.asarray(..).item(): a third of int()'s cost on a JAX scalar)
    flag = np.asarray(outs[-1]).item() if entry.has_flag else 0
    if flag:
        for pos in entry.writes:  # the donated buffers are gone; nothing was written back
            _DEVICE.pop(id(host_in[pos]), None)
        if flag & CHECK:
            raise CheckFailed()
        raise _Overflow()
    entry.calls += 1
    n = entry.n_out
    for pos, new in zip(entry.writes, outs[n:n + len(entry.writes)], strict=True):
        x = host_in[pos]
        x[...] = np.asarray(new).reshape(x.shape)
        V.note_write(x)
        _remember(x, new, _sharding_of(new))
    k = n + len(entry.writes)
    for si, fi, skel, m in entry.field_writes:
        vals = _results(outs[k:k + m], (-1,) * m, [])
        muts[si].fields[fi] = _join_value(skel, iter(vals), list(muts))
        k += m
    host = _results(outs[:n], entry.out_alias, host_in)
    return _join_value(entry.out_skel, iter(host), list(muts))


def _global_values(rt: Any, names: list[str], draw: bool = True) -> list:
    """The values of an executable's global inputs for one call: the global arrays it
    reads, and for code that draws random numbers a fresh key from the global RNG (or,
    with `draw=False`, a zero key, leaving the RNG as it is)."""
    return [(host_key() if draw else np.zeros(2, dtype=np.uint32)) if n == KEY_INPUT
            else rt.lookup(n) for n in names]


def _place(host_in: list) -> list:
    """The executable's inputs: device copies of the host arrays; for a call over the mesh
    (`S.on_mesh`: not a call of several processes that splits no input, which runs on
    this process's device), marked arrays split and the rest replicated."""
    if not S.on_mesh(host_in):
        return [device_leaf(x) for x in host_in]
    return [_mesh_leaf(x) for x in host_in]


def _mesh_leaf(x: Any) -> Any:
    """One input of an executable over the mesh. JAX requires a whole host array that
    goes to the devices of several processes to be equal on each (each supplies its part
    from its own copy) and asserts so; an array that is not (computed by each process on
    its own) is the user's ArgumentError."""
    if not _is_array(x):
        return device_leaf(x)
    try:
        return device_leaf(x, S.spec_for(x))
    except AssertionError:
        raise ZylaError(
            "ArgumentError",
            f"a {S.size_text(x)}{'-element' if x.ndim == 1 else ''} "
            f"{V.type_name(typeof(x))} given to a call over the "
            "job's processes (a call with an array split by `Zyla.shard_batch`, "
            "`Zyla.shard` or `Zyla.local_batch`) differs between the processes; such a "
            "call needs each of its arrays equal on every process",
            hint="compute with values each process has of its own (a timing, "
                 "`Zyla.process_index()`) in a call that splits no array") from None


def _arguments(entry: Entry, inputs: list) -> tuple:
    """The executable's arguments from its flat inputs: (global arrays, the distinct leaves
    it does not write, and, when it writes some, those, which are donated)."""
    ng = len(entry.global_names)
    g, u = inputs[:ng], inputs[ng:]
    if not entry.donated:
        return g, u
    d = set(entry.donated)
    return g, [x for i, x in enumerate(u) if i not in d], [u[i] for i in entry.donated]


def _sharding_of(d: Any) -> Any:
    """The sharding `device_leaf` is asked for when it places the array d holds: None
    for one device (a call that runs on this process's device alone, `S.on_mesh`)."""
    return d.sharding if S.active() and len(d.sharding.device_set) > 1 else None


#: why a call that changes the length of an array it was given runs on the host
_RESIZED_INPUT = ("the call changes the length of an array it was given (`push!`, ...): "
                  "compiled values keep their shapes")


def _is_array(x: Any) -> bool:
    return type(x) is np.ndarray and x.ndim > 0


def _fail(cache: CompileCache, key: Any, entry: Entry, host_in: list, msg: str) -> None:
    cache.failures[key] = msg
    cache.entries.pop(key, None)
    cache.fast.clear()
    for pos in entry.writes:
        _DEVICE.pop(id(host_in[pos]), None)


def _root(x: np.ndarray) -> np.ndarray:
    while isinstance(x.base, np.ndarray):
        x = x.base
    return x


def _shares_memory(host_in: list) -> bool:
    """Whether two distinct input arrays are views of one buffer (a write through one
    would have to show through the other)."""
    arrays = [x for x in host_in if type(x) is np.ndarray]
    if all(x.base is None for x in arrays):
        return False
    roots = [id(_root(x)) for x in arrays]
    return len(set(roots)) != len(roots)


# --- building -------------------------------------------------------------------------------

TRACE_RECURSION_LIMIT = 20000


def _room_for_tracing() -> None:
    """Tracing follows the program's calls on Python's stack (a Chain's layers are a
    recursion over a tuple: ~25 Python frames per layer): allow the depth the CLI does."""
    if sys.getrecursionlimit() < TRACE_RECURSION_LIMIT:
        sys.setrecursionlimit(TRACE_RECURSION_LIMIT)


_room_for_tracing()  # at import, and again by build (a caller may have lowered it)


def build(rt: Any, key: Any, leaves: list, muts: list, capacity: int) -> Entry:
    """Trace the call for `key` (once to learn the global arrays it reads and the inputs it
    writes, then under jax.jit) and return its entry; XLA compiles on the first call."""
    import jax

    jnp = N.jax_numpy()  # also turns on 64-bit types, which Julia semantics need
    enable_persistent_cache(default_only=True)
    _room_for_tracing()
    skel, extra = key
    dups = None if type(extra) is int else extra[1]
    uniq = _unique(leaves, extra)

    def make(global_names: list[str] | None, entry: Entry | None, probe: dict,
             discover: bool = False) -> Any:
        ng = len(global_names or [])
        retraced = [False]  # in discover mode the first trace is counted by the caller

        def traced(gvals: list, kept: list, donated: list) -> list:
            u = [_strong(x) for x in kept]
            for pos, x in zip(probe.get("donated", ()), donated, strict=True):
                u.insert(pos, x)
            inputs = list(gvals) + u
            if entry is not None and (not discover or retraced[0]):
                entry.traces += 1
                _cache(rt).traces += 1
            retraced[0] = True
            interp = InPlaceInterpreter(rt, capacity, list(inputs))
            if global_names is not None:
                interp.global_inputs = dict(zip(global_names, inputs[:ng], strict=True))
            if dups is None:
                lv = u
            else:  # the same array object everywhere it occurs
                first = [i for i, d in enumerate(dups) if d == i]
                at = {i: k for k, i in enumerate(first)}
                lv = [u[at[d]] for d in dups]
            proxies: list = []
            for host, traced in zip(leaves, lv, strict=False):
                if is_adjoint_row(host):  # an argument `v'` stays a row in the trace
                    interp.adjoint_rows[id(traced)] = traced
            f, args, kw = _join_value(skel, iter(lv), proxies)
            before = [list(p.fields) for p in proxies]
            kwargs = dict(zip(kw.names, kw.values, strict=True)) if kw.names else None
            out = interp.call_value(f, list(args), kwargs)
            out_leaves: list = []
            memo = {id(p): k for k, p in enumerate(proxies)}
            out_skel = _split_value(out, out_leaves, list(proxies), memo)
            _refuse_trace_only(out_skel)
            out_leaves = [interp.current(x) for x in out_leaves]
            writes = interp.written_inputs()
            for p in writes:  # (`push!(v, x)` on an argument: its caller's array grows)
                if np.shape(interp.latest_of(p)) != np.shape(inputs[p]):
                    raise OffloadError(_RESIZED_INPUT)
            fw_leaves: list = []
            fws: list = []
            for k, p in enumerate(proxies):
                for j, (old, new) in enumerate(zip(before[k], p.fields, strict=True)):
                    if new is not old:
                        n0 = len(fw_leaves)
                        fs = _split_value(new, fw_leaves, list(proxies), dict(memo))
                        fws.append((k, j, fs, len(fw_leaves) - n0))
            fw_leaves = [interp.current(x) for x in fw_leaves]
            if global_names is None or discover:
                probe["globals"] = list(dict.fromkeys(interp.global_reads))
                probe["writes"] = writes
            if global_names is not None:
                if not discover and writes != probe["writes"]:
                    raise OffloadError("writing into a global array runs on the host")
                entry.out_skel = out_skel
                entry.out_alias = [interp.input_position(x) for x in out_leaves]
                entry.writes = tuple(writes)
                entry.field_writes = fws
                entry.n_out = len(out_leaves)
            flags = interp.overflow_flags
            res = [jnp.asarray(x) for x in out_leaves]
            res += [interp.latest_of(p) for p in writes]
            res += [jnp.asarray(x) for x in fw_leaves]
            if flags:
                res.append(interp.flag_any(jnp.stack([jnp.asarray(f_) for f_ in flags])))
            if entry is not None:
                entry.has_flag = bool(flags)
                entry.interruptible = interp.unbounded_loops
                entry.plain = not (global_names or writes or fws or flags)
            return res

        if probe.get("donated"):
            return traced

        # without donated inputs, two parameters: no defaults, which keep jax.jit on its
        # fast C++ dispatch path
        def traced2(gvals: list, kept: list) -> list:
            return traced(gvals, kept, [])

        return traced2

    t0 = time.perf_counter()
    probe: dict = {}
    # pass 1, the trace under jax.jit of the call as if it read no global arrays and wrote
    # none of its inputs, which finds those it does read and write (and the lowerings the
    # cost model picks for its convolutions and pools); when there are none (the common
    # case) this trace is the executable's, which its first call reuses
    entry = Entry(None, [], capacity=capacity)
    first = jax.jit(make([], entry, probe, discover=True))
    t1 = time.perf_counter()
    with costmodel.recording() as made:
        first.trace([], [_abstract(x) for x in uniq])
    if not probe["globals"] and not probe["writes"]:
        EARLY_TRACE["seconds"] += time.perf_counter() - t1 - costmodel.calibration_of(made)
        entry.jitted = first
        entry.traces += 1
        _cache(rt).traces += 1
        _check_program(entry, made, uniq, lambda: make([], entry, probe), ())
        entry.trace_seconds = time.perf_counter() - t0
        return entry
    gnames = probe["globals"]
    ng = len(gnames)
    # pass 1 numbered the written inputs without globals; shift them past the globals
    probe["donated"] = tuple(probe["writes"])
    probe["writes"] = [p + ng for p in probe["writes"]]
    entry = Entry(None, gnames, capacity=capacity, donated=probe["donated"])
    donate = (2,) if entry.donated else ()
    entry.jitted = jax.jit(make(gnames, entry, probe), donate_argnums=donate)
    _check_program(entry, made, _global_values(rt, gnames, draw=False) + uniq,
                   lambda: make(gnames, entry, probe), donate)
    entry.trace_seconds = time.perf_counter() - t0
    return entry


def _check_program(entry: Entry, made: list, host_in: list, remake: Any,
                   donate: tuple) -> None:
    """When the cost model chose non-default lowerings in the executable, keep the
    fastest of it and its variants with defaults (see `_fastest_program`); `remake()`
    returns a fresh traced function of the call, to trace under other lowerings."""
    import jax

    alternatives = costmodel.program_variants(made)
    if not alternatives or S.active():
        return
    variants = {"chosen": entry.jitted}
    for name, choices in alternatives.items():
        variants[name] = jax.jit(_forcing(remake(), choices), donate_argnums=donate)
    entry.jitted = _fastest_program(entry, host_in, variants)


def _forcing(traced: Any, choices: dict[str, str]) -> Any:
    """`traced` (of two or three list parameters) traced with the lowerings `choices`."""
    def two(gvals: list, kept: list) -> list:
        with costmodel.force(**choices):
            return traced(gvals, kept)

    def three(gvals: list, kept: list, donated: list) -> list:
        with costmodel.force(**choices):
            return traced(gvals, kept, donated)

    return three if traced.__code__.co_argcount == 3 else two


def _fastest_program(entry: Entry, host_in: list, variants: dict[str, Any]) -> Any:
    """The fastest of jitted variants of one executable ("chosen": the cost model's
    per-op lowerings, then alternatives), timed on the call's own inputs (copies, as a
    variant may consume its donated inputs); see costmodel.choose_program. A program with
    host callbacks (printing, BatchNorm's running statistics) would repeat their side
    effects, so it keeps the per-op choices unchecked."""
    import jax

    chosen = variants["chosen"]

    def args() -> tuple:
        fresh = [jax.device_put(np.array(x)) if _is_array(x) else device_leaf(x)
                 for x in host_in]
        return _arguments(entry, fresh)

    t0 = time.perf_counter()
    try:
        lowered = chosen.lower(*args())
        text = lowered.as_text()
    except Exception:  # noqa: BLE001 - the first call reports what fails to trace
        return chosen
    finally:
        EARLY_TRACE["seconds"] += time.perf_counter() - t0
    if "callback" in text:
        return chosen

    def runner(jitted: Any) -> Any:
        def make() -> Any:
            compiled = (lowered if jitted is chosen else jitted.lower(*args())).compile()

            def run() -> None:
                jax.block_until_ready(compiled(*args()))
            return run
        return make

    try:
        pick = costmodel.choose_program(text, {n: runner(j) for n, j in variants.items()})
    except Exception:  # noqa: BLE001 - a variant that fails to compile is not a choice
        return chosen
    return variants[pick]


def _abstract(x: Any) -> Any:
    """The abstract value of an input. A Python float goes in as a Python float, which JAX
    types as a weak Float64 and dispatches faster than a numpy scalar; the trace makes it
    a strong Float64 (`_strong`), as Julia's Float64 is."""
    import jax

    if type(x) is float:
        return jax.ShapeDtypeStruct((), np.float64, weak_type=True)
    a = np.asarray(x)
    return jax.ShapeDtypeStruct(a.shape, a.dtype)


def _strong(x: Any) -> Any:
    """A weakly typed traced input (a Python float's) as a strong Float64."""
    aval = getattr(x, "aval", None)
    if aval is not None and getattr(aval, "weak_type", False):
        from jax import lax

        return lax.convert_element_type(x, aval.dtype)
    return x


# --- writes into the caller's arrays, lowered functionally ------------------------------------

def _prim_pullback_code() -> Any:
    return ad_runtime._prim_pullback.__code__


#: the primitives whose host result shares memory with their argument (a view of it)
_VIEWS = frozenset(("reshape", "vec", "adjoint", "transpose"))


class InPlaceInterpreter(JaxInterpreter):
    """A JaxInterpreter that lowers writes into the call's input arrays functionally.

    A write (`Core.broadcast_assign_fn(x, v)` and the other MUTATING primitives, or an
    optimiser's `Core.opt_commit!`) into an input array, or into a newer version of one,
    makes a new value; every later primitive that gets any version of that array gets the
    newest (Julia's aliasing: the caller's variables see the write), and the newest
    values are outputs of the executable, written back by the host. Under AD (a write the
    host makes into a copy) nothing is tracked, as on the host."""

    def __init__(self, rt: Any, capacity: int, inputs: list) -> None:
        super().__init__(rt, capacity)
        self.positions = {id(x): i for i, x in enumerate(inputs)}
        self.inputs = list(inputs)
        self.version_of: dict[int, int] = {}  # id of any written version -> its array's key
        self.newest: dict[int, Any] = {}  # key (input position, or negative for locals) -> value
        self.alive: list = []  # keeps every version alive, so no id is reused during the trace
        self.objs: dict[int, Any] = {}  # id -> every array a write made or wrote into
        self.exports: list = []  # the last nested trace's (see isolated)
        self.nested = 0
        self.nested_writes = 0
        # id of an array a primitive made during the trace -> the nesting depth (loop
        # bodies, branches, broadcasts) it was made at (kept alive in `alive`)
        self.born: dict[int, int] = {}
        self.ad_code = _prim_pullback_code()
        # ids of the arrays a primitive made that share memory with another on the host
        # (`reshape`, `vec`, `A'`): a write into one would reach the other there
        self.views: set[int] = set()
        self.handlers = {**self.handlers, "for": InPlaceInterpreter.op_for,
                         "while": InPlaceInterpreter.op_while}

    # --- versions ---

    def current(self, x: Any) -> Any:
        k = self.version_of.get(id(x))
        return x if k is None else self.newest[k]

    def latest_of(self, pos: int) -> Any:
        return self.newest[pos]

    def written_inputs(self) -> list[int]:
        return sorted(k for k in self.newest if k >= 0)

    def input_position(self, x: Any) -> int:
        k = self.version_of.get(id(x))
        if k is not None:
            return k if k >= 0 and self.newest[k] is x else -1
        return self.positions.get(id(x), -1)

    def callers(self, x: Any) -> bool:
        """Is x (a version of) one of the call's input arrays? (A local array written
        before has a version too, with a negative key.)"""
        k = self.version_of.get(id(x))
        return k >= 0 if k is not None else id(x) in self.positions

    def tracked(self, x: Any) -> bool:
        return id(x) in self.version_of or id(x) in self.positions

    def write(self, old: Any, new: Any, local: bool = False) -> None:
        """Record `new` as the value of the array `old` is a version of. `local`: the array
        was made in the loop body, branch or broadcast being traced (or is one of its
        variables), so a write into it inside that body needs no carry."""
        if not INPLACE:
            raise OffloadError("in-place updates of the caller's arrays run on the host")
        if self.nested and not local:
            raise OffloadError("writing into an array the caller passed in, inside a compiled "
                               "loop, branch or broadcast, runs on the host")
        k = self.version_of.get(id(old))
        if k is None:
            k = self.positions.get(id(old), -1 - len(self.newest))
        self.version_of[id(old)] = self.version_of[id(new)] = k
        self.objs[id(old)], self.objs[id(new)] = old, new
        self.newest[k] = new
        self.alive += [old, new]

    # --- hooks ---

    def call_primitive(self, p: Any, args: list, kwargs: dict | None) -> Any:
        if self.version_of and args:
            args = [self.current(a) for a in args]
        special = _SPECIAL.get(p.name)
        if special is not None:
            return special(self, p, args, kwargs)
        if p.name in MUTATING and self.nested:
            self.nested_writes += 1
        if (p.name in MUTATING and args and is_array_value(args[0])
                and sys._getframe(1).f_code is not self.ad_code):
            return self._write_call(p, args, kwargs)
        out = super().call_primitive(p, args, kwargs)
        if is_array_value(out):
            self.born[id(out)] = self.nested
            self.alive.append(out)
            if p.name in _VIEWS and args and is_array_value(args[0]):
                self.views.add(id(out))
        return out

    def _write_call(self, p: Any, args: list, kwargs: dict | None) -> Any:
        """A write into an array, as a new version of it that every later use of any
        version gets (Julia's aliasing: a callee's `v[1] = x` is seen by its caller)."""
        target = args[0]
        if id(target) in self.views:  # (the array it shares memory with would not see it)
            raise OffloadError("writing into a reshaped or transposed array (it shares "
                               "memory with the array it was made from) runs on the host")
        if self.callers(target):
            new = super().call_primitive(p, args, kwargs)
            self.write(target, new)
            return new
        if type(target) is np.ndarray:  # a constant of the trace: the write makes a traced one
            args = [self.jnp.asarray(target)] + list(args[1:])
        new = super().call_primitive(p, args, kwargs)
        self.write(target, new, local=True)
        self.born[id(new)] = self.nested
        return new

    def recursion_wrote(self, target: Any, new: Any) -> None:
        self.write(target, new, local=not self.callers(target))
        self.born[id(new)] = self.nested

    def born_here(self, values: Any) -> None:
        for v in values:
            if is_array_value(v):
                self.born.setdefault(id(v), self.nested)
                self.alive.append(v)

    def trace_state(self) -> Any:
        return (dict(self.version_of), dict(self.newest), dict(self.born), self.nested_writes)

    def restore_trace_state(self, saved: Any) -> None:
        self.version_of, self.newest, self.born, self.nested_writes = (
            dict(saved[0]), dict(saved[1]), dict(saved[2]), saved[3])

    def run_region(self, region: Any, env: dict, fn: Any) -> list:
        # a region's arguments (a loop body's variables) are made at its depth; its
        # results are the newest versions of the arrays it yields
        if region.args:
            self.born_here([env.get(a.id) for a in region.args])
        out = super().run_region(region, env, fn)
        return [self.current(v) for v in out] if self.version_of else out

    # A nested trace (loop body, branch, broadcast, probe) keeps its writes to itself: the
    # versions are put back when it ends, so none of its values outlives it. A write in it
    # into an array made outside it is an export: a branch's is linked to the `if`'s
    # result that carries the new value (`link_exports`); a loop body's or a broadcast's
    # cannot be carried out, and such a call runs on the host.

    def isolated(self, fn: Any, branch: bool = False) -> tuple[Any, Any]:
        saved = dict(self.version_of), dict(self.newest)
        self.nested += 1
        depth = self.nested
        try:
            res = super().isolated(fn)
            exports = self._exports(saved, depth)
        finally:
            self.nested -= 1
            self.version_of, self.newest = saved
        if exports and not branch:
            raise OffloadError("a write, inside a compiled loop or broadcast, into an array "
                               "made outside it (through a function call or another name) "
                               "runs on the host")
        self.exports = exports
        return res

    def _exports(self, saved: tuple, depth: int) -> list:
        """(array made outside the nested trace at `depth`, its newest value) for each
        such array the trace wrote into."""
        out = []
        for oid, k in self.version_of.items():
            if self.born.get(oid, -1) >= depth:
                continue
            before_k = saved[0].get(oid)
            before = saved[1][before_k] if before_k is not None else self.objs[oid]
            if self.newest[k] is not before:
                out.append((self.objs[oid], self.newest[k]))
        return out

    def link_exports(self, vals: Any, links: dict) -> None:
        exports, self.exports = self.exports, []
        for x, new in exports:
            pos = [j for j, v in enumerate(vals) if v is new] if type(vals) is tuple else []
            if not pos or links.get(id(x), (x, pos[0]))[1] != pos[0]:
                raise OffloadError("a write, inside a compiled branch, into an array made "
                                   "outside it that the branch does not give back runs on "
                                   "the host")
            links[id(x)] = (x, pos[0])

    def relink(self, links: dict, results: Any) -> None:
        for x, j in links.values():
            self.write(x, results[j], local=True)

    # A loop variable that starts as (a version of) an input array and is written inside
    # the loop body would be a write into the caller's array that the loop's functional
    # carry hides; the body's writes are counted and such a loop runs on the host. (A loop
    # over a tuple runs unrolled, not nested, so its writes are tracked as usual.)

    def op_for(self, op: Any, env: dict, fn: Any) -> Any:
        self._newest_operands(op, env)
        return self._guard_loop([env[v.id] for v in op.operands[1:]],
                                lambda: super(InPlaceInterpreter, self).op_for(op, env, fn))

    def op_while(self, op: Any, env: dict, fn: Any) -> Any:
        self._newest_operands(op, env)
        return self._guard_loop([env[v.id] for v in op.operands],
                                lambda: super(InPlaceInterpreter, self).op_while(op, env, fn))

    def _newest_operands(self, op: Any, env: dict) -> None:
        """A loop starts from the newest versions of the arrays it carries."""
        if self.version_of:
            for v in op.operands:
                env[v.id] = self.current(env[v.id])

    def _guard_loop(self, inits: list, run: Any) -> Any:
        if not any(self.tracked(v) for v in inits):
            return run()
        n0 = self.nested_writes
        out = run()
        if self.nested_writes != n0:
            raise OffloadError("a compiled loop that writes into an array the caller passed "
                               "in runs on the host")
        return out


def _offload_call(interp: InPlaceInterpreter, p: Any, args: list, kwargs: dict | None) -> Any:
    """`Core.offload_call(f, args...)` inside compiled code is just the call."""
    return interp.call_value(args[0], list(args[1:]), kwargs)


def _host_walk(interp: InPlaceInterpreter, p: Any, args: list, kwargs: dict | None) -> Any:
    """A host primitive that only walks and rearranges values, run at trace time."""
    return Interpreter.call_primitive(interp, p, args, kwargs)


def _opt_commit(interp: InPlaceInterpreter, p: Any, args: list, kwargs: dict | None) -> Any:
    """Flux's `Core.opt_commit!(leaves, xs, results)`: each leaf (a mutable struct) takes
    its new state, each parameter array its value minus the step, as writes."""
    leaves, xs, results = args
    jnp = interp.jnp
    for leaf, x, (state, step) in zip(leaves, xs, results, strict=True):
        leaf.fields[leaf.type.fields.index("state")] = state
        x = interp.current(x)
        new = x - jnp.reshape(jnp.asarray(step, dtype=x.dtype), x.shape)
        if interp.nested:
            raise OffloadError("update! inside a compiled loop or branch runs on the host")
        interp.write(x, new)
    return None


_SPECIAL = {
    "Core.offload_call": _offload_call,
    "Core.opt_gather": _host_walk,
    "Core.opt_commit!": _opt_commit,
}


# --- persistent compilation cache ------------------------------------------------------------

_PERSISTENT: list[str | None] = []
# the CLI sets this: `zyla run` keeps executables between runs unless ZYLA_XLA_CACHE=off
PERSISTENT_DEFAULT = False


def persistent_cache_dir() -> str | None:
    """Where XLA executables are kept between runs: $ZYLA_XLA_CACHE if set ("0", "off" or
    "" disable it), else $XDG_CACHE_HOME/zyla/xla (~/.cache/zyla/xla)."""
    env = os.environ.get("ZYLA_XLA_CACHE")
    if env is not None:
        return None if env.strip().lower() in ("", "0", "off", "no", "false") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "zyla", "xla")


def unsafe_folder(path: str) -> str | None:
    """Why others than this user could change what is in folder `path` (None if they
    cannot): it or a folder above it belongs to another user (root aside) or is writable
    by the group or by everyone (a world-writable folder with the sticky bit, like /tmp,
    only lets its owners rename their entries, so it is fine above the folder itself)."""
    me = os.geteuid()
    here = os.path.realpath(path)
    first = True
    while True:
        st = os.stat(here)
        if st.st_uid not in (me, 0):
            return f"{here} belongs to another user"
        shared = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if shared and (first or not st.st_mode & stat.S_ISVTX):
            return f"{here} is writable by other users"
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here, first = parent, False


def enable_persistent_cache(default_only: bool = False) -> str | None:
    """Turn on JAX's persistent compilation cache (once per process) and return its
    directory, or None when disabled. With default_only, only an explicit $ZYLA_XLA_CACHE
    turns it on (library use and tests stay hermetic; the CLI turns it on by default)."""
    if _PERSISTENT:
        return _PERSISTENT[0]
    if default_only and not PERSISTENT_DEFAULT and "ZYLA_XLA_CACHE" not in os.environ:
        return None
    path = persistent_cache_dir()
    _PERSISTENT.append(path)
    if path is None:
        return None
    import jax

    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        unsafe = unsafe_folder(path)
    except OSError:
        _PERSISTENT[0] = None
        return None
    if unsafe:
        # the cache holds machine code that is run as it is found: a folder others can
        # write into would let them run code as this user
        print(f"zyla: not keeping compiled code in {path}: {unsafe}", file=sys.stderr)
        _PERSISTENT[0] = None
        return None
    jax.config.update("jax_compilation_cache_dir", path)
    # every executable is worth keeping: the front end is fast, XLA is the slow part
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return path


# --- dumps and policy -----------------------------------------------------------------------

def cached_entry(rt: Any, f: Any, args: list) -> Entry:
    """The cache entry an earlier compiled_call(rt, f, args) made."""
    key, _leaves, _muts = _signature(rt, f, args, None)
    return _cache(rt).entries[key]


def lower_text(rt: Any, f: Any, args: list, optimized: bool = True) -> str:
    """The HLO text of the executable for f(args...), with its inputs placed as a call
    places them (so a sharded call shows its collectives)."""
    key, leaves, muts = _signature(rt, f, args, None)
    entry = build(rt, key, leaves, muts, 64)
    lowered = lower_entry(rt, entry, key, leaves)
    if optimized:
        return _without_debug_info(lowered.compile().as_text())
    return lowered.as_text()


def lower_entry(rt: Any, entry: Entry, key: Any, leaves: list) -> Any:
    """The jax `Lowered` of a built executable for the call signature `key` with array
    `leaves`, its inputs placed as a call places them (a zero key for code that draws)."""
    host_in = _global_values(rt, entry.global_names, draw=False) + _unique(leaves, key[1])
    return entry.jitted.lower(*_arguments(entry, _place(host_in)))


_HLO_METADATA = re.compile(r', metadata=\{(?:[^{}"]|"(?:[^"\\]|\\.)*")*\}')
_HLO_DEBUG_SECTIONS = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def _without_debug_info(text: str) -> str:
    """Optimised HLO text without the source-location tables and `metadata={...}` that
    point into the Python of the compiler (noise to a reader of the HLO)."""
    keep = []
    for line in text.splitlines():
        if line in _HLO_DEBUG_SECTIONS or re.match(r'\d+ [{"]', line):
            continue
        keep.append(_HLO_METADATA.sub("", line))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(keep))

