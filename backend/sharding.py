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
device) it does nothing. In a job of several processes, `local_batch(part)` is the job's
whole batch, gathered from every process's part, to host and compiled code alike.

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
from lang.core.show import jl_show
from lang.core.structure import OffloadError

AXIS = "batch"
MODEL = "model"

_requested: int = 1
_model: int = 1  # devices along the mesh's "model" axis (--model M); 1: a one-axis mesh
_mesh: Any = None
# ids of host arrays marked as split (with their PartitionSpec entries in numpy axis
# order: ("batch",) for shard_batch), dropped when the array dies
_MARKED: dict[int, tuple[weakref.ref, tuple]] = {}


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


def request_model_split(m: int) -> None:
    """`--model M`: a two-axis mesh, ("batch", "model"), with M devices along "model"
    (the devices' count must be a multiple of M)."""
    global _model, _mesh
    if m < 1 or _requested % m:
        raise ZylaError("ArgumentError", f"--model {m}: the number of devices "
                        f"({_requested}) must be a multiple of it")
    _model = m
    _mesh = None


def mesh() -> Any:
    """The active mesh, or None when running on one device (the default). With several
    processes (backend.distributed) it spans every process's devices; with --model M it
    has two axes, ("batch", "model")."""
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
        grid = np.array(devices[:device_count()])
        if _model > 1:
            _mesh = Mesh(grid.reshape(device_count() // _model, _model), (AXIS, MODEL))
        else:
            _mesh = Mesh(grid, (AXIS,))
    return _mesh


def active() -> bool:
    """Whether compiled calls run sharded over several devices."""
    return device_count() > 1


def device_count() -> int:
    """The devices of the mesh: this process's, times the processes of the job."""
    return _requested * distributed.process_count()


def on_mesh(inputs: list) -> bool:
    """Whether a compiled call with these host inputs (its arguments' leaves and the
    globals it reads) runs as one executable over the mesh. With one process: whenever
    there is a mesh. With several: only when an input is split over the mesh (`shard_batch`,
    `shard`, `local_batch`). An executable over several processes takes its replicated
    inputs from every process and requires them equal, but a value no input splits is
    held whole by each process, and each process may hold its own (a timing, a value of
    `Zyla.process_index()`): such a call runs on this process's device alone, on this
    process's values, as the host would run it, and costs no cross-process traffic."""
    if not active():
        return False
    return distributed.process_count() == 1 or any(is_marked(x) for x in inputs)


def spec_for(x: Any, marked: bool | None = None) -> Any:
    """The NamedSharding of an input: as its mark says (split along the mesh axes it
    names: `shard_batch`'s is the batch axis, numpy axis 0), else replicated. Each split
    dimension must divide evenly; the error names the dimension (Julia's) and the size."""
    from jax.sharding import NamedSharding, PartitionSpec

    m = mesh()
    spec = mark_of(x) if marked is None or marked else None
    if marked and spec is None:
        spec = (AXIS,)
    if spec is None or np.ndim(x) == 0:
        return NamedSharding(m, PartitionSpec())
    shape = np.shape(x)
    for axis, name in enumerate(spec):
        if name is None:
            continue
        parts = int(m.shape[name])
        if shape[axis] % parts:
            what = (f"shard_batch: the batch dimension (the last) of a {size_text(x)} array"
                    if spec == (AXIS,) else
                    f"Zyla.shard: dimension {np.ndim(x) - axis} of a {size_text(x)} array")
            raise ZylaError(
                "DimensionMismatch",
                f"{what} ({shape[axis]}) must be divisible by the number of devices along "
                f"`{name}` ({parts})")
    return NamedSharding(m, PartitionSpec(*spec))


def size_text(x: Any) -> str:
    """An array's size as Julia writes it: `784×128`, `20` (a vector)."""
    return "×".join(str(n) for n in reversed(np.shape(x)))


def mark_of(x: Any) -> tuple | None:
    """The split an array was marked with (numpy axis order), or None."""
    hit = _MARKED.get(id(x))
    return hit[1] if hit is not None and hit[0]() is x else None


def is_marked(x: Any) -> bool:
    return mark_of(x) is not None


def _remember_mark(x: Any, spec: tuple) -> Any:
    key = id(x)

    def forget(_r: Any, k: int = key) -> None:
        _MARKED.pop(k, None)

    _MARKED[key] = (weakref.ref(x, forget), spec)
    return x


def local_batch(x: Any) -> Any:
    """`Zyla.local_batch(x)`: x is this process's part of a batch split over the job's
    processes (the parts of processes 0, 1, ... in order along the batch, Julia's last
    dimension), and the value is the job's WHOLE batch, marked as `shard_batch`'s, in every
    process: a new array gathered from every process's part (a collective, so every
    process calls it at the same point of the program, as SPMD code does). Host code
    (`sum`, `size`, indexing, printing, a call the tiering policy runs on the host) and
    compiled calls thus see one value; a process keeping only its part of a data set
    gathers one batch at a time. One process: `shard_batch` (x itself)."""
    if distributed.process_count() == 1:
        return mark(x, "Zyla.local_batch")
    return mark(_gather_parts(_batch_array(x, "Zyla.local_batch")))


def _gather_parts(x: np.ndarray) -> np.ndarray:
    """The job's whole batch from every process's part x: the parts of processes 0, 1, ...
    concatenated along the batch (numpy axis 0). The parts must agree in size and element
    type, and hold numbers (a DimensionMismatch or ArgumentError, in every process, says
    which)."""
    from jax.experimental import multihost_utils

    what = f"{size_text(x)}{'-element' if x.ndim == 1 else ''} {V.type_name(typeof(x))}"
    parts = _gather_text(what)
    if len(set(parts)) > 1:
        raise ZylaError("DimensionMismatch", "Zyla.local_batch: the processes' parts of a "
                        "batch must have one size and element type, got " + ", ".join(
                            f"{t} on process {i}" for i, t in enumerate(parts)))
    if x.dtype.kind not in "biufc":
        raise ZylaError("ArgumentError", f"Zyla.local_batch in a job of several processes "
                        f"needs an array of numbers, got a {what}")
    whole = multihost_utils.process_allgather(np.ascontiguousarray(x), tiled=True)
    return np.ascontiguousarray(whole, dtype=x.dtype)


#: bytes of the text each process gives `_gather_text`
_TEXT_BYTES = 128


def _gather_text(text: str) -> list[str]:
    """Every process's `text` (at most _TEXT_BYTES bytes of UTF-8), in process order."""
    from jax.experimental import multihost_utils

    raw = np.zeros(_TEXT_BYTES, dtype=np.uint8)
    data = text.encode()[:_TEXT_BYTES]
    raw[:len(data)] = np.frombuffer(data, dtype=np.uint8)
    rows = np.asarray(multihost_utils.process_allgather(raw))
    return [bytes(r).rstrip(b"\0").decode(errors="replace") for r in rows]


def process_part(x: Any) -> Any:
    """`Zyla.process_part(data)`: this process's share of the observations (the last
    dimension) of an array, or of each array of a tuple: the `index`-th of `processes`
    equal blocks (the count must divide evenly)."""
    if isinstance(x, tuple):
        return tuple(process_part(v) for v in x)
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        raise ZylaError("MethodError", "Zyla.process_part needs arrays, got a "
                        f"{V.type_name(typeof(x))}")
    p, i = distributed.process_count(), distributed.process_index()
    n = x.shape[0]
    if n % p:
        raise ZylaError("DimensionMismatch", f"Zyla.process_part: {n} observations do not "
                        f"split evenly over {p} processes")
    return np.ascontiguousarray(x[i * (n // p):(i + 1) * (n // p)])


def mark(x: Any, who: str = "shard_batch") -> Any:
    """`Zyla.shard_batch(x)` on the host: mark the array object, return it."""
    return _remember_mark(_batch_array(x, who), (AXIS,))


def _batch_array(x: Any, who: str) -> np.ndarray:
    """x, an array with a batch dimension; else `who`'s MethodError."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        raise ZylaError("MethodError", f"{who} needs an array whose last dimension is "
                        f"the batch, got a {V.type_name(typeof(x))}")
    return x


def shard(x: Any, dims: Any) -> Any:
    """`Zyla.shard(W, (:model, nothing))` on the host: split W's dimensions along the named
    mesh axes (one entry per Julia dimension, `nothing` for a whole one); return W."""
    if not isinstance(x, np.ndarray) or x.ndim == 0:
        raise ZylaError("MethodError", "Zyla.shard needs an array, got a "
                        f"{V.type_name(typeof(x))}")
    return _remember_mark(x, _shard_spec(x, dims))


def _shard_spec(x: Any, dims: Any) -> tuple:
    """Zyla.shard's entries (Julia's dimension order) as a PartitionSpec's (numpy order)."""
    names = dims if isinstance(dims, tuple) else (dims,)
    if len(names) != np.ndim(x):
        raise ZylaError("DimensionMismatch", f"Zyla.shard: a {size_text(x)} array needs one "
                        f"entry per dimension ({np.ndim(x)}), got {len(names)}")
    spec = []
    for n in reversed(names):  # numpy axes: Julia's dimensions reversed
        if n is None:
            spec.append(None)
        elif isinstance(n, V.Symbol) and str(n.name) in (AXIS, MODEL):
            spec.append(str(n.name))
        else:
            raise ZylaError("ArgumentError", "Zyla.shard: each entry is :batch, :model or "
                            f"nothing, got {jl_show(n)}")
    return tuple(spec)


def _constrain(xp: Any, x: Any, spec: tuple | None = None) -> Any:
    """`shard_batch`/`shard` inside compiled code: a sharding constraint (nothing on one
    device)."""
    if not active() or np.ndim(x) == 0:
        return x
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    return jax.lax.with_sharding_constraint(
        x, spec_for(x, True) if spec is None else NamedSharding(mesh(), PartitionSpec(*spec)))


def _constrain_batch(x: Any) -> Any:
    """`shard_batch(v)` inside compiled code: v's batch split over the mesh."""
    return _constrain(None, x)


def _per_process(name: str, jax_impl: Any) -> Any:
    """The lowering of a primitive whose value depends on this process (`local_batch`
    gathers the processes' parts, `process_part` takes this process's): `jax_impl` with one
    process; with several an OffloadError, so that the call runs on the host, where it
    means what it means at top level (an executable over the job's processes is one
    program for all of them; one on this process's device alone could not gather)."""
    def lower(*args: Any) -> Any:
        if distributed.process_count() > 1:
            raise OffloadError(f"`{name}` in a job of several processes runs on the host")
        return jax_impl(*args)
    return lower


prim("Zyla.shard_batch", mark, _constrain_batch, "(dy, y, x) -> (dy,)",
     lambda *a: V.AnyT)
prim("Zyla.shard", shard,
     lambda x, dims: _constrain(None, x, _shard_spec(x, dims)) if active() else x,
     "(dy, y, x, dims) -> (dy, nothing)", lambda *a: V.AnyT)
# the cotangent of local_batch's whole batch, for this process's part: its block of it
prim("Zyla.local_batch", local_batch, _per_process("Zyla.local_batch", _constrain_batch),
     "(dy, y, x) -> (dy === nothing || Zyla.nprocesses() == 1 ? dy : Zyla.process_part(dy),)",
     lambda *a: V.AnyT)
prim("Zyla.process_part", process_part, _per_process("Zyla.process_part", lambda x: x),
     NONDIFF, lambda *a: V.AnyT)
prim("Zyla.ndevices", device_count, device_count, NONDIFF, lambda *a: V.Int64T)
prim("Zyla.nprocesses", distributed.process_count, distributed.process_count, NONDIFF,
     lambda *a: V.Int64T)
prim("Zyla.process_index", distributed.process_index, distributed.process_index, NONDIFF,
     lambda *a: V.Int64T)
