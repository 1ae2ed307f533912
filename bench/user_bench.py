"""The user path: `.jl` programs written as users write them, run through `zyla run`.

Each program (bench/user/*.jl) times itself with `@elapsed` and prints `seconds T` (or
named medians); this module runs it as a user would, in a fresh process, and compares
with the peer measured here: plain JAX for the networks, CPython for the scalar
programs, and the harness row (the compiled call made directly) for the MLP step. The
scalar rows include the first call, compilation and all, as a user's run does.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from common import BENCH, ROOT, Row, median_seconds, row

USER = BENCH / "user"


def zyla_run(program: str, *args: Any, timeout: int = 900,
             env_extra: dict[str, str] | None = None,
             options: tuple[str, ...] = ()) -> dict[str, str]:
    """Run bench/user/PROGRAM through `zyla run [OPTIONS]` with ARGS; its `key value`
    lines."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.update(env_extra or {})
    env["ZYLA_XLA_CACHE"] = "off"  # every compile a user's first run pays is timed
    cmd = [sys.executable, "-m", "lang.door.cli", "run", *options, str(USER / program)]
    p = subprocess.run(cmd + [str(a) for a in args], capture_output=True, text=True,
                       timeout=timeout, cwd=ROOT, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"zyla run {program}: {p.stderr.strip()[-2000:]}")
    out = {}
    for line in p.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    return out


# --- CPython peers of the scalar programs ---------------------------------------------------

def py_fib(n: int) -> int:
    return n if n < 2 else py_fib(n - 1) + py_fib(n - 2)


def py_sinsum(n: int) -> float:
    acc = 0.0
    for i in range(1, n + 1):
        acc += math.sin(0.1 * i)
    return acc


def py_lines(nlines: int, nwords: int, vocab: int) -> list[str]:
    out, k = [], 1
    for _ in range(nlines):
        ws = []
        for _ in range(nwords):
            k = (k * 7919 + 13) % vocab
            ws.append("w" + str(k))
        out.append(" ".join(ws))
    return out


def py_count_words(lines: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in lines:
        for w in line.split():
            counts[w] = counts.get(w, 0) + 1
    return counts


def py_dgrad(w: float, n: int) -> float:
    """The derivative of sum(sin(w * i) for i in 1:n), written by hand."""
    g = 0.0
    for i in range(1, n + 1):
        g += i * math.cos(w * i)
    return g


class PyPoint:
    __slots__ = ("x", "y")

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y


def py_path_length(n: int) -> float:
    pts = []
    for i in range(1, n + 1):
        pts.append(PyPoint(i * 0.5, (i % 7) * 0.25))
    s = 0.0
    for i in range(1, len(pts)):
        a, b = pts[i], pts[i - 1]
        s += math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2)
    return s


def py_commas(n: int) -> int:
    parts = []
    for i in range(1, n + 1):
        parts.append(f"item{i}")
    c = 0
    for ch in ",".join(parts):
        if ch == ",":
            c += 1
    return c


def py_grown(n: int) -> float:
    v = []
    for i in range(1, n + 1):
        v.append(i * 0.5)
    s = 0.0
    for i in range(len(v)):
        s += v[i] * v[i]
    return s


#: a peer whose input is built before its timing starts: its builder from the peer's
#: arguments
_PEER_INPUTS: dict[str, Callable[..., tuple]] = {
    "py_count_words": lambda nlines, nwords: (py_lines(nlines, nwords, 500),),
}


def peer_best(name: str, args: tuple) -> tuple[float, Any]:
    """The CPython peer NAME on ARGS, timed here: the best of three runs (Zyla's side is
    one first call, which cannot be repeated; a slow run of the reference must not make a
    row look met) and its value."""
    f = globals()[name]
    inputs = _PEER_INPUTS.get(name, lambda *a: a)(*args)
    best, v = math.inf, None
    for _ in range(3):
        t0 = time.perf_counter()
        v = f(*inputs)
        best = min(best, time.perf_counter() - t0)
    return best, v


def _once(name: str, args: tuple) -> tuple[float, Any]:
    """`peer_best` in a fresh Python process, as Zyla's side runs in one: in this process
    the collector walks every object the earlier groups left (the structs peer measured
    11.3 ms here after the VGG19 rows, 8.1 ms alone)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import user_bench; "
            "print(json.dumps(user_bench.peer_best(sys.argv[2], tuple(json.loads(sys.argv[3])))))")
    p = subprocess.run([sys.executable, "-c", code, str(BENCH), name, json.dumps(args)],
                       capture_output=True, text=True, timeout=600, check=True)
    t, v = json.loads(p.stdout.strip().splitlines()[-1])
    return float(t), v


def _alternate(program: str, args: tuple, peers: dict[str, tuple[str, tuple]],
               rounds: int) -> tuple[dict[str, float], dict[str, tuple[float, Any]], list]:
    """`zyla run` of bench/user/PROGRAM `rounds` times (fresh processes: a first call each
    time), each run followed by its CPython peers (`_once`: key -> (function, arguments)).
    Returns the medians over the rounds of the program's `seconds…` figures (in ms) and
    of each peer's time (ms, with its value), and the runs' outputs. Alternating by round
    puts the machine's drift over the minute (±30% on a shared machine) on both sides
    alike."""
    outs: list[dict[str, str]] = []
    times: dict[str, list[float]] = {k: [] for k in peers}
    values: dict[str, Any] = {}
    for _ in range(rounds):
        outs.append(zyla_run(program, *args))
        for k, (name, peer_args) in peers.items():
            t, values[k] = _once(name, peer_args)
            times[k].append(t * 1e3)
    ms = {k: statistics.median(float(o[k]) * 1e3 for o in outs)
          for k in outs[0] if k.startswith("seconds")}
    return ms, {k: (statistics.median(v), values[k]) for k, v in times.items()}, outs


def scalar_rows(quick: bool) -> list[Row]:
    """The first-call rows against CPython; each program runs three times (once when
    quick), alternating with its peers (`_alternate`)."""
    n_fib = 18 if quick else 24
    n_sin = 10 ** 4 if quick else 10 ** 6
    lines, words = (10, 100) if quick else (100, 1000)
    n_grad = 10 ** 3 if quick else 10 ** 5
    rounds = 1 if quick else 3
    rows = []
    ms, peer, outs = _alternate("fib.jl", (n_fib,), {"fib": ("py_fib", (n_fib,))}, rounds)
    t, v = peer["fib"]
    assert all(int(out["result"]) == v for out in outs), (outs, v)
    rows.append(row("user", f"fib({n_fib}) recursive, first call, `zyla run` vs CPython",
                    ms["seconds"], t, "ms", "≤ 2", peer_name="CPython"))
    ms, peer, outs = _alternate("sinloop.jl", (n_sin,), {"sin": ("py_sinsum", (n_sin,))},
                                rounds)
    t, v = peer["sin"]
    for out in outs:
        assert math.isclose(float(out["result"]), v, rel_tol=1e-9, abs_tol=1e-9), (out, v)
        assert math.isclose(float(out["result_seq"]), v, rel_tol=1e-9, abs_tol=1e-9), (out, v)
    rows.append(row("user", f"`sin` loop of {n_sin:,} in a function, first call, vs CPython",
                    ms["seconds"], t, "ms", "≤ 1.5", peer_name="CPython",
                    note="the loop is mapped to an array sum (docs/NESTS.md)"))
    rows.append(row("user", "the same `sin` loop kept as written (`@sequential`: the host "
                    "tier), first call, vs CPython", ms["seconds_seq"], t,
                    "ms", "≤ 1.5", peer_name="CPython"))
    text = py_lines(lines, words, 500)
    ms, peer, outs = _alternate("wordcount.jl", (lines, words),
                                {"count": ("py_count_words", (lines, words))}, rounds)
    t, counts = peer["count"]
    assert all(out["result"] == f"{len(counts)} {counts[text[0].split()[0]]}"
               for out in outs), (outs, len(counts))
    rows.append(row("user", f"word count with a Dict{{String,Int}} ({lines} × {words} words) "
                    "vs CPython", ms["seconds"], t, "ms", "≤ 3", peer_name="CPython"))
    n_mix = 2000 if quick else 20000
    parts = (
        ("points", py_path_length, f"a vector of {n_mix:,} structs built with `push!` "
                                   "and walked (a distance function per pair)"),
        ("commas", py_commas, f"{n_mix:,} strings built with interpolation, joined and "
                              "scanned character by character"),
        ("grown", py_grown, f"a Float64 vector grown by `push!` to {n_mix:,} and summed "
                            "by index"))
    ms, peer, outs = _alternate("hostmix.jl", (n_mix,),
                                {k: (f.__name__, (n_mix,)) for k, f, _ in parts}, rounds)
    for key, _f, what in parts:
        t, v = peer[key]
        assert all(math.isclose(float(out[key]), v, rel_tol=1e-9) for out in outs), (key, v)
        rows.append(row("user", f"host-only code: {what}, first call, `zyla run` vs CPython",
                        ms["seconds_" + key], t, "ms", "≤ 3", peer_name="CPython"))
    ms, peer, outs = _alternate("gradloop.jl", (n_grad,),
                                {"dgrad": ("py_dgrad", (0.5, n_grad))}, rounds)
    t, v = peer["dgrad"]
    for out in outs:
        assert math.isclose(float(out["result"]), v, rel_tol=1e-8), (out, v)
        assert math.isclose(float(out["result_seq"]), v, rel_tol=1e-8), (out, v)
    rows.append(row("user", f"gradient of a {n_grad:,}-step scalar loop, first call "
                    "(compile included) vs CPython's hand-written derivative loop",
                    ms["seconds"], t, "ms", "≤ 20", peer_name="CPython",
                    note="the loop is mapped to an array sum (docs/NESTS.md)"))
    rows.append(row("user", "the same gradient with the loop kept as written (`@sequential`: "
                    "a tape of scalar steps), first call, vs CPython",
                    ms["seconds_seq"], t, "ms", "≤ 20", peer_name="CPython"))
    return rows


# --- networks ----------------------------------------------------------------------------------

def mlp_rows(quick: bool, reps: int) -> list[Row]:
    """The MLP step through `zyla run`, against plain JAX and the harness's direct call in
    this process. The two sides run in different processes, so they cannot alternate call
    by call: they alternate by round (a `zyla run`, then the peers here), and each figure
    is the median of its rounds' medians, so that the machine's drift over a minute (seen
    at ±30% on a shared machine) falls on both sides alike. (Inside each run the program
    alternates its two ways, in a function and at top level, five times.)"""
    import models

    p = models.mlp_pair()
    p.check(("step",))
    fn, top, harness, jax_ms = [], [], [], []
    for _ in range(1 if quick else 3):
        out = zyla_run("mlp_step.jl", max(5, reps))
        fn.append(float(out["function_ms"]))
        top.append(float(out["toplevel_ms"]))
        harness.append(median_seconds(p.z_step, reps, warmup=2) * 1e3)
        jax_ms.append(median_seconds(p.j_step, reps, warmup=2) * 1e3)
    fn_ms, top_ms = statistics.median(fn), statistics.median(top)
    label = "MLP 784-512-512-10, batch 128, SGD step"
    return [
        row("user", f"{label}: timed with @elapsed inside a function vs the same step at "
            "top level (both `zyla run`, medians of rounds)", fn_ms, top_ms, "ms", "≤ 1.1",
            peer_name="top level"),
        row("user", f"{label}: inside a function (`zyla run`) vs plain JAX, alternating by "
            "round", fn_ms, statistics.median(jax_ms), "ms", "≤ 1.2"),
        row("user", f"{label}: the user path (`zyla run`, in a function) vs the harness "
            "row's direct compiled call", fn_ms, statistics.median(harness), "ms",
            peer_name="harness"),
    ]


def vgg_rows(quick: bool, reps: int) -> list[Row]:
    import models

    _prelude, _build, label, x, _y = models.vgg_setup(quick)
    batch, side = x.shape[0], x.shape[2]
    n = max(2, reps // 4) if quick else max(3, reps // 3)
    args = [side, batch, n] + (["quick"] if quick else [])
    out = zyla_run("vgg_forward.jl", *args)
    p = models.vgg_pair(quick)
    jax_s = median_seconds(p.j_forward, n)
    harness = median_seconds(p.z_forward, n)
    return [
        row("user", f"VGG19 forward ({label}): `work() = sum(model(x))` with globals "
            "(`zyla run`) vs plain JAX", float(out["seconds"]) * 1e3, jax_s * 1e3, "ms",
            "≤ 1.05"),
        row("user", f"VGG19 forward ({label}): the user path vs the harness row's direct "
            "compiled call", float(out["seconds"]) * 1e3, harness * 1e3, "ms",
            peer_name="harness"),
    ]


def nest_rows(quick: bool, reps: int) -> list[Row]:
    """Loop nests written as loops (bench/user/loopnests.jl), compiled, against the same
    computation with array operations in the same run, and against the nest run as
    written (`@sequential`, how loops were compiled before nests were mapped); the
    batched product against plain JAX (Zyla's `batched_mul` is itself that loop)."""
    import jax
    import jax.numpy as jnp

    n = 32 if quick else 256
    out = zyla_run("loopnests.jl", n, max(5, reps))
    for k, v in out.items():
        if k.startswith("check_"):
            assert float(v) < 1e-8 * n, (k, v)  # the loop and the array form agree
    ms = {k: float(v) for k, v in out.items() if k.endswith("_ms")}
    # the same kernels with every nest run as written (one timed call each)
    plain = zyla_run("loopnests.jl", n, 1, "plain", env_extra={"ZYLA_NESTS": "0"})
    as_written = {k: float(v) for k, v in plain.items() if k.endswith("_loop_ms")}
    rows = []
    names = {"matmul": f"matmul {n}³ (`A * B`)", "matvec": f"matrix-vector {n}² (`A * x`)",
             "rowsums": f"row sums {n}² (`sum(A; dims=2)`)",
             "conv": f"3×3 convolution of {n}×{n} (`conv`)"}
    for key, label in names.items():
        rows.append(row("nests", f"{label} written as loops vs the array operation, "
                        "compiled (`zyla run`)", ms[f"{key}_loop_ms"], ms[f"{key}_op_ms"],
                        "ms", "≤ 1.5", peer_name="array op"))
    b, m = max(2, n // 8), n // 4
    a3 = np.random.randn(b, m, m)
    f = jax.jit(lambda x, y: jnp.matmul(x, y))
    jax_ms = median_seconds(lambda: f(a3, a3).block_until_ready(), reps, warmup=2) * 1e3
    rows.append(row("nests", f"batched product {b} × {m}³ written as loops (`zyla run`) vs "
                    "plain JAX `matmul`", ms["batched_loop_ms"], jax_ms, "ms", "≤ 1.5"))
    rows.append(row("nests", f"gradient of the loop matmul {n}³ vs the gradient of `A * B`",
                    ms["grad_loop_ms"], ms["grad_op_ms"], "ms", "≤ 2", peer_name="array op"))
    rows.append(row("nests", f"matmul {n}³ written as loops: speed-up of the mapped nest over "
                    "the same loops compiled as written (`@sequential`, one call)",
                    ms["matmul_loop_ms"], ms["matmul_seq_ms"], "ms", "≥ 20×",
                    ratio=ms["matmul_seq_ms"] / ms["matmul_loop_ms"], peer_name="as written"))
    what = {"matvec": f"matrix-vector {n}²", "matvecbig": f"matrix-vector {4 * n}²",
            "rowsums": f"row sums {n}²", "conv": f"3×3 convolution of {n}×{n}",
            "batched": f"batched product {b} × {m}³"}
    for key, label in what.items():
        t, t0 = ms[f"{key}_loop_ms"], as_written[f"{key}_loop_ms"]
        rows.append(row("nests", f"{label} written as loops: speed-up of the mapped nest over "
                        "the loops compiled as written (ZYLA_NESTS=0, one call)", t, t0, "ms",
                        "≥ 20×", ratio=t0 / t, peer_name="as written"))
    return rows


def process_rows(quick: bool, reps: int) -> list[Row]:
    """The MLP step data-parallel over two devices: of two processes (one device each, on
    JAX's distributed runtime) against one process's two devices: the cost of the process
    boundary (no target)."""
    n = max(5, reps)
    two = zyla_run("mlp_step.jl", n, "shard", options=("--processes", "2", "--devices", "1"))
    one = zyla_run("mlp_step.jl", n, "shard", options=("--devices", "2"))
    assert math.isclose(float(two["loss"]), float(one["loss"]), rel_tol=1e-3), (two, one)
    return [row("user", "MLP 784-512-512-10, batch 128, SGD step split over 2 devices: "
                "2 processes × 1 device vs 1 process × 2 devices (`zyla run`)",
                float(two["function_ms"]), float(one["function_ms"]), "ms",
                peer_name="1 process")]


def bench_user(quick: bool, reps: int) -> list[Row]:
    np.random.seed(0)
    return (scalar_rows(quick) + mlp_rows(quick, reps) + vgg_rows(quick, reps)
            + nest_rows(quick, reps) + process_rows(quick, reps))
