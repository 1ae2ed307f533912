"""A job of several processes (`zyla run --processes P`, docs/SHARDING.md).

`launch` starts P local processes of `zyla run`, each told the coordinator's address, its
number and the job's size (`--coordinator HOST:PORT --process-id I --num-processes P`:
the options a process of a job started by another launcher, such as SLURM or mpirun, is
given directly), and one random seed for all, so that they compute the same host values.
Process 0 prints and writes files; the others' output goes nowhere and the files they
write go to a private folder removed when they end. The launcher waits for them: when one
ends with an error (or is killed), it stops the others and reports which one failed, so
a job never hangs on a dead peer.

`join` is a process's side: it joins the job (backend.distributed.initialize) before the
program runs, seeds the global random number generator with the job's seed and, in
every process but 0, sends standard output to nowhere and the files it writes to a
scratch folder (lang.core.safety.scratch_writes).
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time

from backend import distributed
from lang.core import builtins_random, safety

#: the job's seed, passed from the launcher to its processes
SEED_VARIABLE = "ZYLA_PROCESS_SEED"
#: seconds the launcher gives a process to end after it was asked to stop
STOP_GRACE_S = 5.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("localhost", 0))
        return int(s.getsockname()[1])


def launch(run_args: list[str], processes: int, devices: int | None,
           options: list[str]) -> int:
    """Run `zyla [options] run RUN_ARGS` as `processes` processes of one job; the exit
    status (1 when a process failed; the others are then stopped)."""
    port = _free_port()
    env = dict(os.environ)
    env[SEED_VARIABLE] = str(secrets.randbelow(2**31))
    children = []
    for i in range(processes):
        cmd = [sys.executable, "-m", "lang.door.cli", *options,
               "--coordinator", f"localhost:{port}", "--process-id", str(i),
               "--num-processes", str(processes)]
        if devices is not None:
            cmd += ["--devices", str(devices)]
        cmd += ["run", *run_args]
        children.append(subprocess.Popen(cmd, env=env,
                                         stdout=None if i == 0 else subprocess.DEVNULL))
    try:
        while True:
            codes = [c.poll() for c in children]
            failed = [(i, rc) for i, rc in enumerate(codes) if rc not in (None, 0)]
            if failed:
                i, rc = failed[0]
                _stop(children)
                how = f"was killed (signal {-rc})" if rc < 0 else f"exited with status {rc}"
                print(f"ERROR: process {i} of {processes} {how}; the other processes of the "
                      "job were stopped", file=sys.stderr, flush=True)
                return 1
            if all(rc == 0 for rc in codes):
                return 0
            time.sleep(0.05)
    except KeyboardInterrupt:
        _stop(children)
        return 130


def _stop(children: list[subprocess.Popen]) -> None:
    for c in children:
        if c.poll() is None:
            c.terminate()
    deadline = time.monotonic() + STOP_GRACE_S
    for c in children:
        try:
            c.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            c.kill()
            c.wait()


def join(coordinator: str, num_processes: int, process_id: int) -> None:
    """This process's part of a job (see the module docstring)."""
    distributed.initialize(coordinator, num_processes, process_id)
    seed = os.environ.get(SEED_VARIABLE)
    if seed is not None:
        builtins_random.GLOBAL_RNG[0] = builtins_random.RNG(int(seed))
    if process_id != 0:
        safety.scratch_writes()
        sys.stdout.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
