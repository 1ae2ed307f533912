"""Data-parallel execution over several devices: a one-axis device mesh, batch sharding.

A program run with `zyla run --devices N FILE.jl` (or after `configure(N)`) compiles every
offloaded call for a `jax.sharding.Mesh` of N devices with one axis, `"batch"`. Arrays
marked with `Zyla.shard_batch(x)` are split along their batch axis, Julia's last
dimension (numpy axis 0, as in Flux), with `NamedSharding(mesh, P("batch"))`; every other
array is replicated. XLA's SPMD partitioner then partitions the executable, which for a
gradient of a loss over a sharded batch means per-device partial gradients summed by an
all-reduce, so parameters stay replicated and identical on every device.

`shard_batch(x)` is the identity on values (it returns `x` itself) and marks the array
object: the mark travels with the array into compiled calls. Inside compiled code it is a
sharding constraint, so intermediate values can be marked too. Without a mesh (one
device) it does nothing.

On CPU the N devices are simulated: `XLA_FLAGS=--xla_force_host_platform_device_count=N`
must be set before JAX initialises, which `request_host_devices(N)` does (the CLI calls it
before anything imports JAX). docs/SHARDING.md has the user-facing story.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

import numpy as np

from backend import distributed
from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import NONDIFF, prim

AXIS = "batch"

_requested: int = 1
_mesh: Any = None
# ids of host arrays marked as batch-sharded, dropped when the array dies
_MARKED: dict[int, weakref.ref] = {}


def request_host_devices(n: int) -> None:
    """Ask for `n` devices before JAX starts: on the CPU platform, XLA simulates them.
    Raises ZylaError if n < 1 or if JAX already started with fewer devices."""
    global _requested, _mesh
    if n < 1:
        raise ZylaError("ArgumentError", f"--devices needs a positive number, got {n}")
    flag = f"--xla_force_host_platform_device_count={n}"
    flags = [f for f in os.environ.get("XLA_FLAGS", "").split()
             if not f.startswith("--xla_force_host_platform_device_count")]
    os.environ["XLA_FLAGS"] = " ".join(flags + [flag])
    _requested = n
    _mesh = None


def mesh() -> Any:
    """The active mesh, or None when running on one device (the default). With several
    processes (backend.distributed) it spans every process's devices."""
    global _mesh
    if device_count() <= 1:
        return None
    if _mesh is None:
        import jax
        from jax.sharding import Mesh

        devices = jax.devices()
        if len(devices) < device_count():
            raise ZylaError(
                "ArgumentError",
                f"--devices {_requested}: only {len(devices)} device(s) are available "
                f"({devices[0].platform}); on CPU, set XLA_FLAGS="
                f"--xla_force_host_platform_device_count={_requested} before JAX starts")
        _mesh = Mesh(np.array(devices[:device_count()]), (AXIS,))
    return _mesh


def active() -> bool:
    """Whether compiled calls run sharded over several devices."""
    return device_count() > 1


def device_count() -> int:
    """The devices of the mesh: this process's, times the processes of the job."""
    return _requested * distributed.process_count()


def spec_for(x: Any, marked: bool) -> Any:
    """The NamedSharding of an input: batch-sharded along numpy axis 0 if marked, else
    replicated."""
    from jax.sharding import NamedSharding, PartitionSpec

    m = mesh()
    if marked and np.ndim(x) > 0:
        n = np.shape(x)[0]
        if n % _requested:
            raise ZylaError(
                "DimensionMismatch",
                f"shard_batch: the batch dimension ({n}) must be divisible by the number of "
                f"devices ({device_count()})")
        return NamedSharding(m, PartitionSpec(AXIS))
    return NamedSharding(m, PartitionSpec())


def is_marked(x: Any) -> bool:
    ref = _MARKED.get(id(x))
    return ref is not None and ref() is x


def mark(x: Any) -> Any:
    """`Zyla.shard_batch(x)` on the host: mark the array object, return it."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        raise ZylaError("MethodError", "shard_batch needs an array whose last dimension is "
                        f"the batch, got a {V.type_name(_typeof(x))}")
    key = id(x)
    _MARKED[key] = weakref.ref(x, lambda _r, k=key: _MARKED.pop(k, None))
    return x


def _typeof(x: Any) -> Any:
    return typeof(x)


def _constrain(xp: Any, x: Any) -> Any:
    """`shard_batch` inside compiled code: a sharding constraint (nothing on one device)."""
    if not active() or np.ndim(x) == 0:
        return x
    import jax

    return jax.lax.with_sharding_constraint(x, spec_for(x, True))


prim("Zyla.shard_batch", mark, lambda x: _constrain(None, x), "(dy, y, x) -> (dy,)",
     lambda *a: V.AnyT)
prim("Zyla.ndevices", device_count, device_count, NONDIFF, lambda *a: V.Int64T)
prim("Zyla.nprocesses", distributed.process_count, distributed.process_count, NONDIFF,
     lambda *a: V.Int64T)
prim("Zyla.process_index", distributed.process_index, distributed.process_index, NONDIFF,
     lambda *a: V.Int64T)
