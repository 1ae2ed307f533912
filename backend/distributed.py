"""Several processes on JAX's distributed runtime (`zyla run --processes P`, docs/SHARDING.md).

Every process runs the same program (SPMD on the host side too): the same file, the
same arguments, the same random seed, so their host values agree. `initialize` joins
the job through `jax.distributed.initialize` (on the CPU with gloo collectives), after
which `jax.devices()` lists every process's devices and backend.sharding's mesh spans
them all: a compiled call takes its inputs as global arrays (each process supplies the
shards its devices hold, from its own copy of the value) and its all-reduces cross the
process boundary. `to_host` makes a result a host value again: a replicated result is
read from a local device; a split one is gathered from every process.

A process that dies or cannot be reached ends the job: the launcher (`lang.door.cli`,
`--processes`) stops the others when one exits with an error, and JAX's heartbeat
(`HEARTBEAT_S`) ends processes whose peer vanished without a launcher (several hosts).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from typing import Any

from grammar.errors import ZylaError

#: seconds without a heartbeat before the coordination service gives a process up
HEARTBEAT_S = 10
#: seconds a process waits for all the others to join (ZYLA_JOIN_TIMEOUT overrides)
JOIN_TIMEOUT_S = 60

_state = {"processes": 1, "index": 0}


def initialize(coordinator: str, num_processes: int, process_id: int) -> None:
    """Join the job (before any compiled call): one of `num_processes` processes, number
    `process_id`, the coordinator (process 0's service) at `coordinator` (HOST:PORT).
    A job that does not come together within the join timeout ends this process with an
    error saying so (JAX itself would abort with a C++ stack trace)."""
    import jax

    limit = float(os.environ.get("ZYLA_JOIN_TIMEOUT", JOIN_TIMEOUT_S))
    if process_id != 0:
        _reach(coordinator, limit)
    done = threading.Event()

    def watchdog() -> None:
        if not done.wait(limit):
            print(f"ERROR: the job did not start: {num_processes} processes were to join at "
                  f"{coordinator}, and not all of them did within {limit:g} s",
                  file=sys.stderr, flush=True)
            os._exit(1)

    threading.Thread(target=watchdog, daemon=True).start()
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # (CPU devices' own)
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=num_processes,
                               process_id=process_id,
                               initialization_timeout=int(limit) + 30,
                               heartbeat_timeout_seconds=HEARTBEAT_S)
    done.set()
    _state["processes"] = num_processes
    _state["index"] = process_id


def _reach(coordinator: str, limit: float) -> None:
    """Wait until the coordinator accepts connections, at most `limit` seconds."""
    host, _, port = coordinator.rpartition(":")
    deadline = time.monotonic() + limit
    while True:
        try:
            with socket.create_connection((host or "localhost", int(port)), timeout=1.0):
                return
        except (OSError, ValueError):
            if time.monotonic() >= deadline:
                raise ZylaError("SystemError", f"cannot reach the job's coordinator at "
                                f"{coordinator} (waited {limit:g} s)",
                                hint="start process 0 of the job, or check the address") \
                    from None
            time.sleep(0.2)


def process_count() -> int:
    return _state["processes"]


def process_index() -> int:
    return _state["index"]


def to_host(x: Any) -> Any:
    """A result of a compiled call as host data (numpy), also when it is spread over
    several processes' devices."""
    import numpy as np

    if getattr(x, "is_fully_addressable", True):
        return np.asarray(x)
    if x.sharding.is_fully_replicated:
        return np.asarray(x.addressable_data(0))
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.process_allgather(x, tiled=True))
