"""The compile tier: offloading a call to one XLA executable, cached by signature.

`compiled_call(rt, f, args, kwargs)` splits the arguments into array leaves and a static
skeleton (types, shapes, host integers and booleans, closure bodies) — the signature —
and runs the cached executable for it, building it on a miss: the call is traced by
`JaxInterpreter` inside `jax.jit`. Global arrays the code reads become inputs of the
executable (not constants), so later in-place updates of those arrays are seen. A
`while` loop's AD tape that overflows its capacity triggers a rebuild with a larger one.

When a call cannot be offloaded the reason is kept (`explain`) and the host runs it.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from backend.structure import OffloadError, join, split
from lang import numeric as N
from lang import values as V
from lang.errors import ZylaError
from lang.functions import Closure, GenericFunction


@dataclass
class Entry:
    """One compiled signature."""

    jitted: Any
    global_names: list[str]
    out_skel: list = field(default_factory=list)
    out_alias: list = field(default_factory=list)
    capacity: int = 64
    trace_seconds: float = 0.0
    calls: int = 0


class CompileCache:
    def __init__(self, rt: Any) -> None:
        self.rt = rt
        self.entries: dict[Any, Entry] = {}
        self.failures: dict[Any, str] = {}
        self.last_reason: str | None = None


def _cache(rt: Any) -> CompileCache:
    c = getattr(rt, "compile_cache", None)
    if c is None:
        c = rt.compile_cache = CompileCache(rt)
    return c


_DEVICE: dict[int, tuple[Any, int, Any]] = {}
_DEVICE_MIN_SIZE = 1024


def device_leaf(x: Any) -> Any:
    """The device buffer of a host array argument, reused across calls while the array is
    alive and unwritten (writes bump lang.values.write_version), so repeated calls with
    the same parameters do not copy them in every time."""
    if not isinstance(x, np.ndarray) or x.size < _DEVICE_MIN_SIZE:
        return np.asarray(x) if not hasattr(x, "aval") else x
    key = id(x)
    hit = _DEVICE.get(key)
    ver = V.write_version(x)
    if hit is not None and hit[0]() is x and hit[1] == ver:
        return hit[2]
    import jax

    d = jax.device_put(x)
    _DEVICE[key] = (weakref.ref(x, lambda _r, k=key: _DEVICE.pop(k, None)), ver, d)
    return d


def _to_host(x: Any) -> Any:
    a = np.asarray(x)
    if a.ndim == 0:
        return N.host_scalar(a[()])
    return np.array(a)  # a writable host copy in Julia's layout


def build(rt: Any, skel: Any, leaves: list, capacity: int) -> Entry:
    import jax

    from backend.lower_jax import JaxInterpreter

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def make(global_names: list[str] | None, entry: Entry | None) -> Any:
        def traced(gleaves: list, leaves_: list) -> Any:
            interp = JaxInterpreter(rt, capacity)
            if global_names is not None:
                interp.global_inputs = dict(zip(global_names, gleaves))
            f, args, kw = join(skel, leaves_)
            interp.input_ids = {id(x) for x in list(leaves_) + list(gleaves)}
            out = interp.call_value(f, list(args), dict(zip(kw.names, kw.values)) if kw.names else None)
            out_leaves, out_skel = split(out)
            if entry is not None:
                entry.out_skel[:] = [out_skel]
                # an output that is an input passed through (an accessor like `m.W`) must
                # be the caller's own array, not a copy: Julia's aliasing
                pos = {id(x): i for i, x in enumerate(leaves_)}
                entry.out_alias[:] = [pos.get(id(x), -1) for x in out_leaves]
            else:
                names_box.extend(interp.global_reads)
            flags = interp.overflow_flags
            over = jnp.any(jnp.stack([jnp.asarray(f_) for f_ in flags])) if flags else jnp.asarray(False)
            return [jnp.asarray(x) for x in out_leaves], over

        return traced

    names_box: list[str] = []
    t0 = time.perf_counter()
    # pass 1: find the global arrays the code reads
    jax.eval_shape(make(None, None), [], [jnp.asarray(x) for x in leaves])
    gnames = list(dict.fromkeys(names_box))
    entry = Entry(None, gnames, capacity=capacity)
    entry.jitted = jax.jit(make(gnames, entry))
    entry.trace_seconds = time.perf_counter() - t0
    return entry


def compiled_call(rt: Any, f: Any, args: list, kwargs: dict | None = None) -> Any:
    """Run f(args...) as one XLA executable (raises OffloadError if it cannot be)."""
    kw = V.NamedTuple(tuple(kwargs or {}), tuple((kwargs or {}).values()))
    leaves, skel = split((f, tuple(args), kw), static_ints=True)
    # redefining any method invalidates what was compiled before (Julia's world age)
    skel = (skel, getattr(rt, "world", 0))
    cache = _cache(rt)
    if skel in cache.entries or skel in cache.failures:
        return _run_cached(rt, cache, skel, leaves)
    from lang.diagnostics import call_label, compile_notice

    # a long build (trace + XLA compile on the first run) is announced on stderr
    with compile_notice(lambda: call_label(f, args, kwargs)):
        return _run_cached(rt, cache, skel, leaves)


def _run_cached(rt: Any, cache: CompileCache, skel: Any, leaves: list) -> Any:
    """Run the executable cached for `skel`, building it first if needed."""
    if skel in cache.failures:
        raise OffloadError(cache.failures[skel])
    entry = cache.entries.get(skel)
    capacity = 64
    while True:
        if entry is None:
            try:
                entry = build(rt, skel[0], leaves, capacity)
            except OffloadError as e:
                cache.failures[skel] = str(e)
                raise
            except ZylaError as e:
                cache.failures[skel] = f"{e.kind}: {e.message}"
                raise OffloadError(cache.failures[skel]) from None
            except Exception as e:  # a construct JAX cannot trace
                cache.failures[skel] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                raise OffloadError(cache.failures[skel]) from None
            cache.entries[skel] = entry
        gvals = [device_leaf(rt.lookup(n)) for n in entry.global_names]
        try:
            outs, over = entry.jitted(gvals, [device_leaf(x) for x in leaves])
        except OffloadError as e:
            cache.failures[skel] = str(e)
            cache.entries.pop(skel, None)
            raise
        except Exception as e:
            msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            cache.failures[skel] = msg
            cache.entries.pop(skel, None)
            raise OffloadError(msg) from None
        if bool(over):
            capacity = entry.capacity * 4
            entry = None
            cache.entries.pop(skel, None)
            continue
        entry.calls += 1
        alias = entry.out_alias
        host = [leaves[alias[i]] if alias and alias[i] >= 0 and isinstance(leaves[alias[i]], np.ndarray)
                else _to_host(x) for i, x in enumerate(outs)]
        return join(entry.out_skel[0], host)


def cached_entry(rt: Any, f: Any, args: list) -> Entry:
    """The cache entry an earlier compiled_call(rt, f, args) made."""
    leaves, skel = split((f, tuple(args), V.NamedTuple((), ())), static_ints=True)
    return _cache(rt).entries[(skel, getattr(rt, "world", 0))]


def lower_text(rt: Any, f: Any, args: list, optimized: bool = True) -> str:
    """The HLO text of the executable for f(args...)."""
    kw = V.NamedTuple((), ())
    leaves, skel = split((f, tuple(args), kw), static_ints=True)
    entry = build(rt, skel, leaves, 64)
    gvals = [rt.lookup(n) for n in entry.global_names]
    lowered = entry.jitted.lower(gvals, [np.asarray(x) for x in leaves])
    if optimized:
        return lowered.compile().as_text()
    return lowered.as_text()


def wants_offload(f: Any, args: list) -> bool:
    """The auto policy: offload calls of Zyla functions that do array work."""
    if not isinstance(f, (GenericFunction, Closure)):
        return False
    if isinstance(f, GenericFunction) and all(m.fn is None for m in f.methods):
        return False
    if not any(_has_array(a) for a in args):
        return False
    if isinstance(f, GenericFunction):
        # a built-in method (e.g. Base's `length` on an array, once a library has added
        # Zyla methods for its own types) is not worth an executable
        from lang.functions import typeof

        try:
            return f.dispatch([typeof(a) for a in args]).fn is not None
        except ZylaError:
            return False
    return True


def _has_array(v: Any) -> bool:
    if isinstance(v, np.ndarray):
        return v.dtype != object and v.size > 0
    if isinstance(v, (tuple, list)):
        return any(_has_array(x) for x in v)
    if isinstance(v, V.NamedTuple):
        return any(_has_array(x) for x in v.values)
    if isinstance(v, V.StructValue):
        return any(_has_array(x) for x in v.fields)
    if isinstance(v, Closure):
        return any(_has_array(x) for x in v.captures)
    return False


def try_offload(rt: Any, f: Any, args: list, kwargs: dict | None) -> tuple[bool, Any]:
    """(True, result) if the call ran compiled, (False, None) if the host must run it."""
    mode = rt.compile_mode
    if mode == "never":
        return False, None
    if mode != "always" and not wants_offload(f, args):
        return False, None
    try:
        return True, compiled_call(rt, f, args, kwargs)
    except OffloadError as e:
        name = getattr(f, "name", "function")
        rt.offload_reasons[name] = str(e)
        return False, None
