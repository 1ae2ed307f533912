"""Measured choice among lowerings that compute the same primitive (DESIGN.md, decision 6).

A primitive with several JAX lowerings (a convolution as one XLA convolution, as shifted
slices plus one dot, ...) registers them here with `register`; at trace time its lowering
asks `choose(op, key, ...)` which one to emit for this shape. The answer is, in order:

1. a forced choice: `force(...)` in this process, else the op's environment variable
   (`ZYLA_CONV_LOWERING`, `ZYLA_POOL_LOWERING`, see `register`);
2. an earlier measurement of the same key on this machine (this process, or the disk cache);
3. a fresh measurement: each candidate is jitted alone on zeros of the operands' shapes
   and dtypes, run in interleaved rounds, and the one with the smallest time wins (over
   the default only by a margin, `MARGIN`); the result goes to the disk cache, so a later
   process reuses it without measuring;
4. the op's default, when measuring is off, the problem is below `ZYLA_COSTMODEL_MIN_WORK`
   or this process has spent its calibration budget.

Per-op winners need not make the fastest program (XLA fuses and lays out the whole
executable), so an executable in which some op got a non-default lowering is also built
with the defaults (and with the defaults for the gradient ops only) and timed once on its
inputs; the fastest is kept, and the verdict cached (`choose_program`, called from
backend/compile.py).

Environment:
- `ZYLA_COSTMODEL=off` never measures (forced choices and the default only; the disk cache
  is still read); unset, it measures on the CPU backend only (`_measuring_on`);
- `ZYLA_COSTMODEL_CACHE=PATH` relocates the JSON cache (default
  `$XDG_CACHE_HOME/zyla/costmodel.json`, else `~/.cache/zyla/costmodel.json`); `none`
  keeps choices in memory only;
- `ZYLA_COSTMODEL_BUDGET=SECONDS` bounds the calibration time of one process (default 120);
- `ZYLA_COSTMODEL_MIN_WORK=N` skips measuring problems of less work than N (default 1e7,
  in the op's own unit: FLOPs for convolutions, window reads for pooling): below it a
  wrong choice costs well under a millisecond, less than measuring it would;
- `ZYLA_COSTMODEL_PROXY_WORK=N` measures problems of more work than N (default 6e9) on a
  batch cut down to about that much work (`proxy_specs`); the times recorded are then
  those of the smaller batch (`batch_fraction` in the cache record).

Cache entries are keyed by the machine (CPU model, core count, JAX version, backend,
XLA_FLAGS) and by the key string the op gives (op, shapes, dtype, geometry).
`report()` lists every choice this process made (for benchmark tables).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import platform
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lang.core import choices

DEFAULT_BUDGET_S = 120.0
DEFAULT_MIN_WORK = 1e7
DEFAULT_PROXY_WORK = 6e9
MIN_ROUNDS = 3  # timed rounds of the candidates that survive pruning
MAX_ROUNDS = 30
TARGET_S = 0.5  # more rounds, up to MAX_ROUNDS, while one key has taken less than this
PRUNE = 3.0  # after the first timed round, candidates PRUNE x slower than the best stop
KEY_CAP_S = 20.0  # no new round of one key after this much time
# another lowering replaces the default only when it measured at most MARGIN x the
# default's time: timings on a shared machine jitter by 10-20%, and a wrong switch on a
# near tie costs more than it could gain
MARGIN = 0.9


@dataclass
class OpInfo:
    """A primitive's lowerings: all `names` (any can be forced), the `measured` ones the
    automatic choice is made among (in measuring order), the `default`, and the
    environment variable that forces a choice for its family."""

    op: str
    names: tuple[str, ...]
    default: str
    env: str
    measured: tuple[str, ...]


@dataclass
class Choice:
    """One decision: which lowering `op` uses for `key`, and why."""

    op: str
    key: str
    choice: str
    source: str  # "forced", "measured", "cache", "default"
    times_ms: dict[str, float] = field(default_factory=dict)
    calibration_s: float = 0.0


OPS: dict[str, OpInfo] = {}
_forced: dict[str, str] = {}
_memory: dict[str, dict[str, Any]] = {}  # key -> cache record, this process
_made: dict[tuple[str, str], Choice] = {}  # (op, key) -> the choice made in this process
_lock = threading.Lock()
_spent = [0.0]
_measured_count = [0]
_recorders: list[list[Choice]] = []  # open `recording()` blocks
_programs: list[dict[str, Any]] = []  # whole-program checks made in this process


def register(
    op: str, names: Sequence[str], default: str, env: str, measured: Sequence[str] | None = None
) -> None:
    """Declare `op`'s lowerings (`default` among `names`), forced by the variable `env`;
    the automatic choice measures only `measured` (default: all), so lowerings that never
    win on the machines tried can stay available to force without costing calibration."""
    chosen = tuple(names if measured is None else measured)
    if default not in chosen or not set(chosen) <= set(names):
        raise ValueError(f"bad lowerings for {op}: {names}, measured {chosen}")
    OPS[op] = OpInfo(op, tuple(names), default, env, chosen)


# --- forcing -------------------------------------------------------------------------------------


def _parse_env(info: OpInfo) -> str | None:
    """The lowering `info.env` forces for `info.op`, or None for `auto`.

    The variable holds `auto`, one name (applied to every op of the family that has that
    lowering), or `op=name` pairs separated by commas."""
    raw = os.environ.get(info.env, "").strip()
    if raw in ("", "auto"):
        return None
    if "=" not in raw:
        family = [o for o in OPS.values() if o.env == info.env]
        if not any(raw in o.names for o in family):
            names = sorted({n for o in family for n in o.names})
            raise ValueError(f"{info.env}={raw!r}: not one of auto, {', '.join(names)}")
        return raw if raw in info.names else None
    for part in raw.split(","):
        op, _, name = part.partition("=")
        op, name = op.strip(), name.strip()
        if op not in OPS or OPS[op].env != info.env:
            raise ValueError(f"{info.env}: unknown op {op!r}")
        if name != "auto" and name not in OPS[op].names:
            raise ValueError(f"{info.env}: {op} has no lowering {name!r} ({OPS[op].names})")
        if op == info.op:
            return None if name == "auto" else name
    return None


def forced(op: str) -> str | None:
    """The lowering forced for `op` (by `force` or its environment variable), if any."""
    if op in _forced:
        return _forced[op]
    return _parse_env(OPS[op])


@contextlib.contextmanager
def force(**choices: str) -> Iterator[None]:
    """Force lowerings inside a `with` block: `force(conv="im2col", conv_filter_back="xla")`.

    Only executables traced inside the block are affected (compiled code is cached)."""
    for op, name in choices.items():
        if op not in OPS or name not in OPS[op].names:
            raise ValueError(f"no lowering {name!r} for {op!r}")
    saved = dict(_forced)
    _forced.update(choices)
    try:
        yield
    finally:
        _forced.clear()
        _forced.update(saved)


# --- the disk cache ------------------------------------------------------------------------------


def cache_path() -> Path | None:
    """Where choices persist (None: memory only)."""
    env = os.environ.get("ZYLA_COSTMODEL_CACHE")
    if env:
        return None if env.lower() == "none" else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "zyla" / "costmodel.json"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


_machine: list[str] = []


def machine_key() -> str:
    """What a measurement depends on besides the problem: hardware and software."""
    if not _machine:
        import jax
        import jaxlib

        dev = jax.devices()[0]
        _machine.append(
            f"{platform.machine()}|{_cpu_model()}|cores={os.cpu_count()}|jax={jax.__version__}"
            f"|jaxlib={jaxlib.__version__}|{dev.platform}:{dev.device_kind}"
            f"|XLA_FLAGS={os.environ.get('XLA_FLAGS', '')}"
        )
    return _machine[0]


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _disk_lookup(key: str) -> dict[str, Any] | None:
    path = cache_path()
    if path is None:
        return None
    rec = _read_cache(path).get(machine_key(), {}).get(key)
    return rec if isinstance(rec, dict) and "choice" in rec else None


def _disk_store(key: str, rec: dict[str, Any]) -> None:
    """Merge one record into the cache file, replacing the file atomically. Other
    processes write too: the read-merge-replace holds an exclusive lock on a lock file
    beside it, so no process's record is lost to another's write."""
    path = cache_path()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_name(path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            data = _read_cache(path)
            data.setdefault(machine_key(), {})[key] = rec
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".costmodel", suffix=".json")
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache directory only costs a re-measurement next time


# --- measuring -----------------------------------------------------------------------------------


def budget_s() -> float:
    return float(os.environ.get("ZYLA_COSTMODEL_BUDGET", DEFAULT_BUDGET_S))


def calibration_seconds() -> float:
    """Seconds this process has spent measuring."""
    return _spent[0]


def measurements() -> int:
    """How many keys this process has measured (a cache hit is not a measurement)."""
    return _measured_count[0]


def _measuring_on() -> bool:
    """ZYLA_COSTMODEL=on|off; unset, measuring is on where JAX's backend is the CPU only.
    The lowerings besides XLA's own exist for XLA:CPU's weak convolution gradients; on a
    GPU the defaults are cuDNN's convolutions, and calibration there was measured not to
    pay (an H200, VGG19 batch 100: calibrating 5 shapes took 49 s of a 61 s first compile,
    and the forward pass it built ran 75 ms against 64 ms with the defaults)."""
    raw = os.environ.get("ZYLA_COSTMODEL")
    if raw is None:
        import jax

        return jax.default_backend() == "cpu"
    return raw.lower() not in ("off", "0", "false", "no")


def measure(
    candidates: dict[str, Callable[..., Any]], specs: Sequence[tuple[tuple[int, ...], Any]]
) -> dict[str, float]:
    """Seconds per call of each candidate (a function of arrays of the given (shape, dtype)
    specs), each jitted alone and run on zeros, the minimum over interleaved rounds: a
    warm-up round and one timed round for every candidate; then candidates slower than
    PRUNE x the best are dropped, and the rest run further rounds, at least MIN_ROUNDS in
    all, more (up to MAX_ROUNDS) while the key has taken less than TARGET_S (cheap problems
    get many samples, which a loaded machine needs). Candidates that fail to compile are
    left out."""
    import jax
    import numpy as np

    structs = [jax.ShapeDtypeStruct(s, d) for s, d in specs]
    compiled: dict[str, Any] = {}
    for name, fn in candidates.items():
        try:
            compiled[name] = jax.jit(fn).lower(*structs).compile()
        except Exception:  # noqa: BLE001 - a candidate XLA rejects is simply not a choice
            continue
    with jax.ensure_compile_time_eval():  # concrete buffers, even while tracing a caller
        dev = [jax.device_put(np.zeros(s, d)) for s, d in specs]
    best: dict[str, float] = {}

    def once(name: str) -> float:
        t0 = time.perf_counter()
        jax.block_until_ready(compiled[name](*dev))
        return time.perf_counter() - t0

    t_start = time.perf_counter()
    for name in compiled:
        once(name)  # warm-up
    for name in compiled:
        best[name] = once(name)
    if not best:
        return best
    lead = min(best.values())
    alive = [n for n in compiled if best[n] <= PRUNE * lead]
    rounds = 1
    while rounds < MAX_ROUNDS:
        elapsed = time.perf_counter() - t_start
        if rounds >= MIN_ROUNDS and elapsed > TARGET_S or elapsed > KEY_CAP_S:
            break
        for name in alive:
            best[name] = min(best[name], once(name))
        rounds += 1
    return best


def proxy_specs(
    specs: Sequence[tuple[tuple[int, ...], Any]],
    batch_axes: Sequence[int | None] | None,
    work: float,
) -> tuple[list[tuple[tuple[int, ...], Any]], float]:
    """The operands to measure on: for a problem of more work than ZYLA_COSTMODEL_PROXY_WORK
    whose operands share a batch axis, the same problem with the batch cut so that its
    work is about that much (the lowerings' costs grow linearly in the batch, and
    measuring the whole of a large layer's candidates would take minutes). Returns the
    specs and the fraction of the batch kept."""
    proxy = float(os.environ.get("ZYLA_COSTMODEL_PROXY_WORK", DEFAULT_PROXY_WORK))
    if batch_axes is None or work <= proxy:
        return list(specs), 1.0
    batch = {s[a] for (s, _), a in zip(specs, batch_axes, strict=True) if a is not None}
    if len(batch) != 1:
        return list(specs), 1.0
    n = batch.pop()
    m = max(1, min(n, math.ceil(n * proxy / work)))
    out = [
        (s if a is None else s[:a] + (m,) + s[a + 1 :], d)
        for (s, d), a in zip(specs, batch_axes, strict=True)
    ]
    return out, m / n


def choose(
    op: str,
    key: str,
    build: Callable[[str], Callable[..., Any]],
    specs: Sequence[tuple[tuple[int, ...], Any]],
    work: float,
    applicable: Callable[[str], bool] = lambda name: True,
    batch_axes: Sequence[int | None] | None = None,
) -> str:
    """The lowering of `op` to emit for the problem `key` (see the module docstring).

    `build(name)` returns candidate `name` as a function of arrays with the (shape, dtype)
    `specs`; `work` sizes the problem (compared with ZYLA_COSTMODEL_MIN_WORK);
    `applicable(name)` says whether a lowering handles this problem at all. A forced
    lowering that is not applicable falls back to the automatic choice. `batch_axes`
    (one per operand, None where an operand has none) lets a large problem be measured
    on a smaller batch (`proxy_specs`); the candidates must then accept any batch size."""
    info = OPS[op]
    full = f"{op}|{key}"
    pick = forced(op)
    if pick is not None and applicable(pick):
        return _note(op, key, pick, "forced")
    names = [n for n in info.measured if applicable(n)]
    with _lock:
        rec = _memory.get(full) or _disk_lookup(full)
        if rec is not None and rec["choice"] in names:
            _memory[full] = rec
            return _note(op, key, rec["choice"], "cache", rec.get("times_ms", {}))
        default = info.default if info.default in names else names[0]
        min_work = float(os.environ.get("ZYLA_COSTMODEL_MIN_WORK", DEFAULT_MIN_WORK))
        if (
            not _measuring_on()
            or len(names) == 1
            or work < min_work
            or _spent[0] >= budget_s()
        ):
            return _note(op, key, default, "default")
        t0 = time.perf_counter()
        mspecs, kept = proxy_specs(specs, batch_axes, work)
        secs = measure({n: build(n) for n in names}, mspecs)
        took = time.perf_counter() - t0
        _spent[0] += took
        _measured_count[0] += 1
        if not secs:
            return _note(op, key, default, "default")
        pick = min(secs, key=lambda n: secs[n])
        if default in secs and secs[pick] > MARGIN * secs[default]:
            pick = default
        times = {n: round(s * 1e3, 4) for n, s in secs.items()}
        rec = {"choice": pick, "times_ms": times, "calibration_s": round(took, 3),
               "batch_fraction": kept, "date": time.strftime("%Y-%m-%dT%H:%M:%S")}
        _memory[full] = rec
        _disk_store(full, rec)
        return _note(op, key, pick, "measured", times, took)


def _note(
    op: str, key: str, choice: str, source: str, times: dict[str, float] | None = None,
    took: float = 0.0,
) -> str:
    _made.pop((op, key), None)  # the latest decision goes last
    made = Choice(op, key, choice, source, dict(times or {}), took)
    _made[(op, key)] = made
    for rec in _recorders:
        rec.append(made)
    return choice


def calibration_of(choices: Sequence[Choice]) -> float:
    """Seconds spent measuring for these choices (0 for those read from a cache)."""
    return sum(c.calibration_s for c in choices)


@contextlib.contextmanager
def recording() -> Iterator[list[Choice]]:
    """The choices made inside the block (a trace), in order."""
    rec: list[Choice] = []
    _recorders.append(rec)
    try:
        yield rec
    finally:
        _recorders.remove(rec)


def program_variants(choices: Sequence[Choice]) -> dict[str, dict[str, str]]:
    """Alternatives to the per-op choices made in one program, as `force` arguments:
    "default" puts every op chosen otherwise than its default back to the default, and,
    when both kinds differ, "forward" does so only for the gradient ops (`*_back`),
    keeping the forward ops' choices. Empty when everything is a default or forced."""
    moved = {c.op for c in choices if c.source != "forced" and c.choice != OPS[c.op].default}
    if not moved:
        return {}
    out = {"default": {op: OPS[op].default for op in moved}}
    back = {op for op in moved if op.endswith("_back")}
    if back and back != moved:
        out["forward"] = {op: OPS[op].default for op in back}
    return out


# --- whole programs ------------------------------------------------------------------------------
#
# Each op's lowering is measured alone, but XLA fuses and lays out a whole program: on
# some machines a set of per-op winners makes a slower training step than the defaults
# (LeNet's step on an AMD EPYC: 16.8 ms with the per-op choices, 13.6 ms with native
# convolutions). So an executable in which the cost model chose anything but the defaults
# is compiled both ways and timed on its real inputs once; the faster program is kept,
# and the verdict is cached on disk by a hash of the program's text.


def choose_program(text: str, variants: dict[str, Callable[[], Callable[[], Any]]],
                   rounds: int = 5) -> str:
    """Which of several compiled variants of one program runs fastest: a key of
    `variants`, whose first key is the cost model's per-op choices (kept on a tie).

    `text` identifies the program (its StableHLO with the per-op choices); each variant
    compiles when called and returns a function that runs it once and waits for it (on
    fresh inputs when the program consumes them). All run alternately: a warm-up round
    (timed too when a run takes over 0.5 s), then `rounds` rounds at most, stopping after
    three once 2 s have gone, or after one once 10 s have (a large model); the minimum
    times are compared. Off (the first variant) when measuring is off or
    the calibration budget is spent."""
    import hashlib

    names = list(variants)
    digest = hashlib.sha1(text.encode()).hexdigest()[:20]
    full = f"program|{digest}"
    with _lock:
        rec = _memory.get(full) or _disk_lookup(full)
    if rec is not None and rec["choice"] in names:
        _memory[full] = rec
        _programs.append({**rec, "source": "cache"})
        return str(rec["choice"])
    if not _measuring_on() or _spent[0] >= budget_s():
        return names[0]
    t0 = time.perf_counter()
    runs = {n: make() for n, make in variants.items()}
    best: dict[str, float] = {}
    for k in range(rounds + 1):  # round 0 warms up; its times count only for slow programs
        for name, run in runs.items():
            t = time.perf_counter()
            run()
            if k > 0 or time.perf_counter() - t > 0.5:
                best[name] = min(best.get(name, math.inf), time.perf_counter() - t)
        elapsed = time.perf_counter() - t0
        if k >= 3 and elapsed > 2.0 or k >= 1 and elapsed > 10.0:
            break
    took = time.perf_counter() - t0
    _spent[0] += took
    pick = min(names, key=lambda n: (best[n], names.index(n)))
    rec = {"choice": pick, "times_ms": {n: round(v * 1e3, 4) for n, v in best.items()},
           "calibration_s": round(took, 3), "date": time.strftime("%Y-%m-%dT%H:%M:%S")}
    _memory[full] = rec
    _disk_store(full, rec)
    _programs.append({**rec, "source": "measured"})
    return pick


def program_report() -> list[dict[str, Any]]:
    """The whole-program checks of this process: choice, times (ms), source."""
    return list(_programs)


def report() -> list[Choice]:
    """Every choice this process made, the latest per (op, key), oldest first."""
    return list(_made.values())


def format_report(choices: Sequence[Choice] | None = None) -> str:
    """`report()` as a Markdown table: op, problem, chosen lowering, why, candidate times."""
    rows = ["| op | problem | lowering | source | candidates (ms) |", "|---|---|---|---|---|"]
    for c in report() if choices is None else choices:
        ranked = sorted(c.times_ms.items(), key=lambda kv: kv[1])
        times = ", ".join(f"{n} {t:.3g}" for n, t in ranked)
        rows.append(f"| {c.op} | {c.key} | {c.choice} | {c.source} | {times} |")
    return "\n".join(rows)


def reset(memory: bool = True) -> None:
    """Forget this process's choices (and, with `memory`, its in-memory cache) and the
    calibration time spent: for tests and benchmarks that compare settings."""
    _made.clear()
    _programs.clear()
    if memory:
        _memory.clear()
    _spent[0] = 0.0
    _measured_count[0] = 0


# the lowerings that lang's primitives offer are chosen here from now on
choices.install(choose, register)
