"""The benchmark suite of issue 5: Zyla against its peers, in one process, one table.

    .venv/bin/python bench/run.py                 # everything; writes bench/RESULTS.md
    .venv/bin/python bench/run.py --quick         # smoke run (small sizes, ~2 min), prints
    .venv/bin/python bench/run.py --only micro,front   # some groups, prints

Groups: vgg, mlp, cnn, micro, compile, front (parser + dispatch), memory, user (`.jl`
programs run through `zyla run` as a user runs them: bench/user_bench.py). Only a full run
(all groups, full sizes) writes bench/RESULTS.md, unless --out names a file. Each
comparison is timed in the same process, the two sides interleaved call by call, and the
medians compared (see bench/common.py); every pair is checked to compute the same values
before it is timed. Ratios are Zyla/peer (lower is better) except where the target says
"≥" (speed-ups over CPython, parser lines per second).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

# every XLA compile this process times must be real: no persistent cache
os.environ["ZYLA_XLA_CACHE"] = "off"

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from common import BENCH, ROOT, Row, jax_setup, row  # noqa: E402

GROUPS = ("front", "mlp", "cnn", "micro", "memory", "compile", "vgg", "user")


def _group(name: str) -> Callable[[bool, int], Any]:
    import compile_bench
    import front_bench
    import micro
    import models
    import user_bench

    def front(quick: bool, reps: int) -> list[Row]:
        return front_bench.bench_parser(quick, reps) + front_bench.bench_dispatch(quick, reps)

    def memory(quick: bool, reps: int) -> list[Row]:
        import ad_bench

        out = []
        for label, ck, plain, unit in ad_bench.checkpoint_memory(2000 if quick else 10000):
            out.append(row("memory", label, ck, plain, "MB", note=unit,
                           peer_name="without @checkpoint"))
        return out

    return {
        "vgg": models.bench_vgg, "mlp": models.bench_mlp, "cnn": models.bench_cnn,
        "micro": micro.bench_micro, "compile": compile_bench.bench_compile,
        "front": front, "memory": memory, "user": user_bench.bench_user,
    }[name]


def _fmt(v: float | None) -> str:
    if v is None:
        return "—"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _status(r: Row) -> str:
    if not r.target:
        return ""
    if r.met is None:
        return "**not met** (not measured)"
    return "met" if r.met else "**not met**"


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{mem}; {platform.platform()}"


def _versions() -> str:
    import jax
    import jaxlib

    return (f"Python {platform.python_version()}, JAX {jax.__version__}, "
            f"jaxlib {jaxlib.__version__}, numpy {np.__version__}, "
            f"XLA backend {jax.default_backend()} ({len(jax.devices())} device)")


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                               text=True, check=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def markdown(rows: list[Row], stages: dict, meta: dict) -> str:
    lines = [
        "# Zyla benchmark results (issue 5)",
        "",
        f"- date: {meta['date']}; total wall time of the run: {meta['total']:.0f} s "
        f"({meta['mode']})",
        f"- machine: {meta['machine']}",
        f"- load average (1, 5, 15 min): {meta['load0']} at the start, {meta['load1']} at the end",
        f"- software: {meta['versions']}; Zyla at commit {meta['commit']}",
        f"- GPU: {meta['gpu']}",
        f"- per group (s): {meta['groups']}",
        "- method: each comparison runs both sides in this one process; calls are timed",
        "  alternately (Zyla, peer, Zyla, ...) after warm-up calls that absorb compilation, and",
        "  the medians are compared. Both sides start from host numpy arrays and end with host",
        "  numpy arrays. Every pair is checked to compute the same values (same weights, same",
        "  data) before timing. Ratio = Zyla / peer, lower is better, except for the rows",
        "  whose target reads ≥ (speed-up over CPython = CPython / Zyla; parser lines/s).",
        f"  Repetitions per comparison: {meta['reps']} (VGG19: {meta['vgg_reps']}).",
        "",
        "| # | benchmark | Zyla | peer | unit | ratio | target | status |",
        "|---:|---|---:|---:|---|---:|---|---|",
    ]
    notes: list[str] = []
    for i, r in enumerate(rows, 1):
        name = r.name
        if r.note:
            notes.append(f"{len(notes) + 1}. (row {i}) {r.note}")
            name += f" [{len(notes)}]"
        peer = _fmt(r.peer) + (f" ({r.peer_name})" if r.peer is not None else "")
        lines.append(f"| {i} | {name} | {_fmt(r.zyla)} | {peer} | {r.unit} | {_fmt(r.ratio)} | "
                     f"{r.target} | {_status(r)} |")
    if notes:
        lines += ["", "Notes:", ""] + notes
    if stages:
        keys = ["parse", "lower", "library", "infer", "AD", "cost model", "JAX trace",
                "XLA compile"]
        heads = [k if k != "library" else "(of parse+lower: Flux library)" for k in keys]
        lines += ["", "## Compile latency by stage (ms)", "",
                  "| model | " + " | ".join(heads) + " | JAX: trace | JAX: XLA compile |",
                  "|---|" + "---:|" * (len(keys) + 2)]
        for model, (zs, js) in stages.items():
            lines.append(f"| {model} (Zyla) | "
                         + " | ".join(_fmt(zs.get(k, 0.0) * 1e3) for k in keys)
                         + f" | {_fmt(js['JAX trace'] * 1e3)} | {_fmt(js['XLA compile'] * 1e3)} |")
        lines += ["", "parse and lower cover the model file and the Flux library `using Flux`",
                  "loads; infer is the first (abstract) trace of the IR; AD and cost-model",
                  "calibration happen during it and are shown apart; the JAX trace is the",
                  "second trace under jax.jit (see bench/compile_bench.py)."]
    if meta.get("costmodel"):
        lines += ["", "## Lowering choices the cost model made in this run", "", "```",
                  meta["costmodel"], "```"]
    if meta.get("errors"):
        lines += ["", "## Groups that failed", ""] + [f"- {e}" for e in meta["errors"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, few repetitions")
    ap.add_argument("--only", default="", help=f"comma-separated groups of {', '.join(GROUPS)}")
    ap.add_argument("--reps", type=int, default=0, help="repetitions per comparison")
    ap.add_argument("--vgg-reps", type=int, default=0, help="repetitions of the VGG19 pairs")
    ap.add_argument("--out", default="", help="write the markdown here")
    args = ap.parse_args()
    groups = [g.strip() for g in args.only.split(",") if g.strip()] or list(GROUPS)
    for g in groups:
        if g not in GROUPS:
            ap.error(f"unknown group {g!r}; groups: {', '.join(GROUPS)}")
    reps = args.reps or (5 if args.quick else 15)
    vgg_reps = args.vgg_reps or (2 if args.quick else 5)
    full = not args.quick and groups == list(GROUPS)
    out = Path(args.out) if args.out else (BENCH / "RESULTS.md" if full else None)

    jax = jax_setup()
    t_start = time.perf_counter()
    load0 = _load()
    rows: list[Row] = []
    stages: dict = {}
    errors: list[str] = []
    timing: list[str] = []
    for g in groups:
        t0 = time.perf_counter()
        print(f"== {g}", file=sys.stderr, flush=True)
        try:
            res = _group(g)(args.quick, vgg_reps if g == "vgg" else reps)
        except Exception as e:  # one broken group must not lose the others' numbers
            traceback.print_exc()
            msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            errors.append(f"{g}: {msg}")
            res = [row(g, f"group `{g}` failed before its rows were measured", None, None, "",
                       "(its targets)", f"error: {msg}")]
        if isinstance(res, tuple):
            res, st = res
            stages.update(st)
        for r in res:
            print(f"   {r.name}: {_fmt(r.zyla)} vs {_fmt(r.peer)} {r.unit}, ratio {_fmt(r.ratio)}"
                  f" {r.target} {_status(r)}", file=sys.stderr, flush=True)
        rows += res
        timing.append(f"{g} {time.perf_counter() - t0:.0f}")
    order = {g: i for i, g in enumerate(("vgg", "mlp", "cnn", "micro", "compile", "front",
                                          "memory"))}
    rows.sort(key=lambda r: order.get(r.group, 99))
    cm = ""
    try:
        from backend import costmodel

        cm = costmodel.format_report()
        progs = costmodel.program_report()
        if progs:
            cm += ("\n\nwhole-program checks (per-op choices vs defaults vs defaults for the "
                   "gradient ops only; ms per run of the executable):\n")
            cm += "\n".join(f"- {p['choice']} ({p['source']}): " + ", ".join(
                f"{n} {t:.3g}" for n, t in sorted(p["times_ms"].items(), key=lambda kv: kv[1]))
                for p in progs)
    except Exception:  # the report is optional
        cm = ""
    meta = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "total": time.perf_counter() - t_start,
        "mode": "full run" if full else ("quick run" if args.quick else "partial run")
        + f", groups: {', '.join(groups)}",
        "machine": _machine(), "versions": _versions(), "commit": _commit(),
        "load0": load0, "load1": _load(), "groups": ", ".join(timing),
        "reps": reps, "vgg_reps": vgg_reps,
        "gpu": ("none in this run (CPU only). VGG19 forward, batch 100, on an H200 "
                "(session 13, bench/gpu_user.sh), through `zyla run` as a user writes it: "
                "12.4 ms with TensorFloat-32 (plain JAX 12.7–12.9 ms), 84 ms in IEEE Float32 "
                "(JAX 102–108 ms); the paper's 230 ms on a TPU; see docs/PERFORMANCE.md, GPU"
                if jax.default_backend() == "cpu" else jax.default_backend()),
        "costmodel": cm, "errors": errors,
    }
    text = markdown(rows, stages, meta)
    print(text)
    if out is not None:
        out.write_text(text)
        print(f"written to {out}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
