"""Random numbers: Julia's `Random` on the host, and the same draws inside compiled code.

The host draws from a numpy generator (`RNG`; the global one is `GLOBAL_RNG[0]`, reseeded
by `Random.seed!`). Julia's streams differ from numpy's; what Zyla keeps is that a seed
makes a program's draws reproducible.

Compiled code draws with JAX's counter-based generator. An executable that draws reads one
extra input, a key the host takes from the global RNG at every call (`host_key`), so two
calls of one executable draw different numbers, and a seed makes them reproducible, with
no recompilation. Inside the executable every draw gets its own key, derived from that
input by the draw's position in the program (see `JaxInterpreter.rng_key`): the serial
number of the draw within its loop body, and for each enclosing loop the loop's serial
number and the iteration. No generator state travels through loops or branches, so a
loop that draws carries nothing more. The compiled tier's numbers are not the host's
numbers for the same seed (different generators), as with Flux on the CPU and on a GPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import numeric as N
from lang.core import values as V
from lang.core.primitives import NONDIFF, HostOnly, as_array, prim
from lang.core.primitives_array import collect_results
from lang.core.structure import OffloadError

# the name under which an executable's input key travels with its global arrays
KEY_INPUT = "Core.rng_key"


class RNG:
    """A seeded random number generator (Julia's streams differ; a seed is deterministic)."""

    def __init__(self, seed: int | None = None) -> None:
        self.gen = np.random.default_rng(seed)
        self.jtype = V.JType("MersenneTwister", V.AnyT)

    def jl_show(self) -> str:
        return "MersenneTwister()"


GLOBAL_RNG = [RNG(None)]


class GlobalRNG(RNG):
    """`Random.GLOBAL_RNG` and `Random.default_rng()`: a handle on the global generator
    (drawing from it is drawing from `GLOBAL_RNG[0]`, whatever `seed!` made it since)."""

    def __init__(self, name: str) -> None:  # (no generator of its own)
        self.name = name
        self.jtype = V.JType(name, V.AnyT)

    @property
    def gen(self) -> np.random.Generator:  # type: ignore[override]
        return GLOBAL_RNG[0].gen

    @gen.setter
    def gen(self, g: np.random.Generator) -> None:
        GLOBAL_RNG[0].gen = g

    def jl_show(self) -> str:
        return f"{self.name}()"


GLOBAL_HANDLE = GlobalRNG("Random._GLOBAL_RNG")
TASK_LOCAL = GlobalRNG("TaskLocalRNG")


def host_key() -> np.ndarray:
    """A fresh key for one call of an executable that draws, from the global RNG."""
    return GLOBAL_RNG[0].gen.integers(0, 2**32, size=2, dtype=np.uint32)


def _seed(*args: Any) -> Any:
    if args and isinstance(args[0], RNG):
        args[0].gen = np.random.default_rng(args[1] if len(args) > 1 else None)
        return args[0]
    GLOBAL_RNG[0] = RNG(args[0] if args else None)
    return GLOBAL_RNG[0]


def _rng_args(args: tuple) -> tuple[RNG, tuple]:
    if args and isinstance(args[0], RNG):
        return args[0], args[1:]
    return GLOBAL_RNG[0], args


def _dtype_and_shape(args: tuple, default: np.dtype) -> tuple[np.dtype, tuple]:
    """`(T, dims...)`, `(T, (dims...))`, `(dims...)`: the element type and the stored
    shape (Julia's dimensions reversed)."""
    d = default
    if args and isinstance(args[0], V.JType):
        d = V.JTYPE_TO_DTYPE[args[0]]
        args = args[1:]
    dims = args[0] if args and isinstance(args[0], tuple) else args
    return d, tuple(reversed(dims))


def _host_scalar_or_array(v: Any, d: np.dtype, shape: tuple) -> Any:
    if not shape:
        return N.host_scalar(np.asarray(v).astype(d)[()])
    return np.asarray(v).astype(d)


def _rand(*args: Any) -> Any:
    rng, args = _rng_args(args)
    g = rng.gen
    if args and isinstance(args[0], V.Range):
        r = args[0]
        dims = args[1] if len(args) == 2 and isinstance(args[1], tuple) else args[1:]
        shape = tuple(reversed(dims))  # rand(r, dims...) or rand(r, (dims...))
        idx = g.integers(0, r.length, size=shape or None)
        if shape:
            return np.vectorize(lambda k: r[int(k)])(idx).astype(N.dtype_of(r.start))
        return r[int(idx)]
    if args and isinstance(args[0], (np.ndarray, tuple, str)):
        items = list(current.runtime().iterate(args[0]))
        if not items:
            raise ZylaError("ArgumentError", "collection must be non-empty")
        dims = args[1] if len(args) == 2 and isinstance(args[1], tuple) else args[1:]
        if not dims:
            return items[int(g.integers(0, len(items)))]
        shape = tuple(int(k) for k in dims)  # rand(v, dims...): an array of draws from v
        picks = [items[int(k)] for k in g.integers(0, len(items), size=int(np.prod(shape)))]
        out = collect_results(picks, (len(picks),))
        return out.reshape(tuple(reversed(shape))) if len(shape) > 1 else out
    d, shape = _dtype_and_shape(args, N.F64)
    shape = tuple(int(s) for s in shape)
    if d == N.BOOL:
        v = g.random(shape or None) < 0.5
    elif d.kind in "iu":  # every bit pattern of the type equally likely, as Julia's
        v = np.asarray(g.integers(0, 2**64, dtype=np.uint64, size=shape or None)).astype(d)
    else:
        v = g.random(shape or None)
    return _host_scalar_or_array(v, d, shape)


def _randn(*args: Any) -> Any:
    rng, args = _rng_args(args)
    d, shape = _dtype_and_shape(args, N.F64)
    shape = tuple(int(s) for s in shape)
    return _host_scalar_or_array(rng.gen.standard_normal(shape or None), d, shape)


def _randexp(*args: Any) -> Any:
    rng, args = _rng_args(args)
    d, shape = _dtype_and_shape(args, N.F64)
    shape = tuple(int(s) for s in shape)
    return _host_scalar_or_array(rng.gen.standard_exponential(shape or None), d, shape)


def _randperm(*args: Any) -> Any:
    rng, args = _rng_args(args)
    return rng.gen.permutation(int(args[0])).astype(np.int64) + 1


def _shuffle(*args: Any) -> Any:
    rng, args = _rng_args(args)
    x = as_array(args[0])
    if isinstance(x, np.ndarray):
        out = x.copy()
        if out.ndim == 1:
            rng.gen.shuffle(out)
            return out
        perm = rng.gen.permutation(out.shape[0])
        return out[perm]
    return x


# --- compiled draws --------------------------------------------------------------------------


def _static_shape(shape: tuple) -> tuple[int, ...]:
    if any(hasattr(s, "aval") for s in shape):
        raise OffloadError("the size of a random array must be known when compiling "
                           "(an integer argument, not an array element)")
    return tuple(int(s) for s in shape)


def _global_only(args: tuple) -> tuple:
    """The arguments of a compiled draw without a handle on the global generator; an
    explicit RNG object keeps the draw on the host."""
    if args and isinstance(args[0], GlobalRNG):
        return args[1:]
    if args and isinstance(args[0], RNG):
        raise OffloadError("drawing from an explicit RNG object runs on the host (compiled "
                           "code draws from the global RNG)")
    return args


def _rand_jax(interp: Any, *args: Any) -> Any:
    """`rand` inside compiled code (see the module docstring)."""
    import jax

    args = _global_only(args)
    jnp = interp.jnp
    if args and isinstance(args[0], V.Range):
        r = args[0]
        shape = _static_shape(tuple(reversed(args[1:])))
        k = jax.random.randint(interp.rng_key(), shape, 0, r.length, dtype=jnp.int64)
        return jnp.asarray(r.at(k, jnp), dtype=N.dtype_of(r.start))
    if args and (hasattr(args[0], "shape") and np.ndim(args[0]) > 0):
        flat = jnp.reshape(jnp.asarray(args[0]), (-1,))
        return flat[jax.random.randint(interp.rng_key(), (), 0, flat.shape[0])]
    if args and isinstance(args[0], tuple):
        raise OffloadError("`rand` of a tuple's elements runs on the host")
    d, shape = _dtype_and_shape(args, N.F64)
    shape = _static_shape(shape)
    key = interp.rng_key()
    if d == N.BOOL:
        return jax.random.bernoulli(key, 0.5, shape)
    if d.kind == "i":
        return jax.random.randint(key, shape, -(2**62), 2**62, dtype=jnp.int64).astype(d)
    return jax.random.uniform(key, shape, dtype=d)


def _randn_jax(interp: Any, *args: Any) -> Any:
    import jax

    args = _global_only(args)
    d, shape = _dtype_and_shape(args, N.F64)
    return jax.random.normal(interp.rng_key(), _static_shape(shape), dtype=d)


def _randexp_jax(interp: Any, *args: Any) -> Any:
    import jax

    args = _global_only(args)
    d, shape = _dtype_and_shape(args, N.F64)
    return jax.random.exponential(interp.rng_key(), _static_shape(shape), dtype=d)


def uniform_jax(interp: Any, shape: tuple, dtype: np.dtype) -> Any:
    """Uniform [0, 1) draws of the given stored shape inside compiled code (for library
    primitives that draw, like dropout's mask)."""
    import jax

    return jax.random.uniform(interp.rng_key(), shape, dtype=dtype)


# --- replaying draws (checkpointing) -----------------------------------------------------------
# A checkpointed call runs twice, forward and again in the backward pass, and both runs must
# draw the same numbers (dropout's masks): `Core.rng_snapshot()` takes a seed (host) or a key
# (compiled) from the global generator, and `Core.with_rng(s, f, args...)` calls f drawing
# from a generator made from it, so two calls with one snapshot draw alike.


def _snapshot_host() -> int:
    return int(GLOBAL_RNG[0].gen.integers(0, 2**63))


def _snapshot_jax(interp: Any) -> Any:
    """A key as one Int64 (its two 32-bit words), a scalar like the host's seed, so that it
    travels through tapes and closures as any number does."""
    import jax
    from jax import lax

    jnp = interp.jnp
    kd = lax.convert_element_type(jax.random.key_data(interp.rng_key()), np.uint64)
    return lax.bitcast_convert_type((kd[0] << 32) | kd[1], jnp.int64)


@contextmanager
def host_rng_scope(s: Any) -> Iterator[None]:
    """The host draws from a generator seeded by the snapshot s; the global generator is
    the same afterwards as before."""
    saved = GLOBAL_RNG[0]
    GLOBAL_RNG[0] = RNG(int(s) if np.ndim(s) == 0 else np.asarray(s).astype(np.uint64).tolist())
    try:
        yield
    finally:
        GLOBAL_RNG[0] = saved


def with_rng_host(interp: Any, s: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """f(args...) drawing from a generator seeded by the snapshot s."""
    with host_rng_scope(s):
        return interp.call_value(f, list(args), kwargs or None)


def with_rng_jax(interp: Any, s: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
    """with_rng_host inside compiled code: f's draws derive from the key s."""
    with interp.rng_scope(s):
        return interp.call_value(f, list(args), kwargs or None)


def install(rt: Any) -> None:
    """Register the `Random` functions in `rt.builtins`."""
    b = rt.builtins
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    b["Core.is_rng"] = prim("Core.is_rng", lambda x: isinstance(x, RNG), HostOnly(
        "random-number generators are host values"), NONDIFF, lambda *a, **k: V.BoolT)
    b["rand"] = prim("rand", lambda interp, *a: _rand(*a), _rand_jax, NONDIFF, anyt,
                     needs_interp=True)
    b["randn"] = prim("randn", lambda interp, *a: _randn(*a), _randn_jax, NONDIFF, anyt,
                      needs_interp=True)
    b["randexp"] = prim("randexp", lambda interp, *a: _randexp(*a), _randexp_jax, NONDIFF,
                        anyt, needs_interp=True)
    b["Random.randexp"] = b["randexp"]
    b["Random.GLOBAL_RNG"] = GLOBAL_HANDLE
    host = HostOnly("the generator's state lives on the host")
    b["Random.default_rng"] = prim("Random.default_rng", lambda: TASK_LOCAL, host, NONDIFF,
                                   anyt)
    for name, f in (("Random.seed!", _seed), ("randperm", _randperm), ("shuffle", _shuffle)):
        b[name] = prim(name, f, host, NONDIFF, anyt)
    b["seed!"] = b["Random.seed!"]
    b["Random.MersenneTwister"] = prim("Random.MersenneTwister", lambda seed=None: RNG(seed),
                                       host, NONDIFF, anyt)
    b["MersenneTwister"] = b["Random.MersenneTwister"]
    b["Core.rng_snapshot"] = prim("Core.rng_snapshot", lambda interp: _snapshot_host(),
                                  _snapshot_jax, NONDIFF, anyt, needs_interp=True)
    b["Core.with_rng"] = prim("Core.with_rng", with_rng_host, with_rng_jax, "WITH_RNG", anyt,
                              needs_interp=True)
