"""VGG19 on an accelerator: the batch-100 forward pass that XLA.jl's paper ran in 0.23 s on a
TPU, with Zyla and plain JAX in the same process.

    python bench/gpu.py [--batch 100] [--reps 10] [--forward-only] [--dump-hlo DIR]
                        [--out FILE]
    python bench/gpu.py --loop-compile

Meant for a GPU machine (JAX's default backend decides where it runs; on a CPU it runs too,
use a small --batch there). VGG19 (224×224, Float32) is built with the Flux-style library
(bench/models.jl); the plain-JAX network gets the same weights (bench/models.py). Before
timing, the two forward passes (and with --grad the gradients) are compared; the measured
difference is printed beside the times. Times are medians of interleaved calls after a
warm-up that also compiles: "call" is what a user sees (host array out), "device" is the
JAX executable alone (`block_until_ready`, no copy to the host).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import interleaved, jax_setup, time_once  # noqa: E402
from models import Pair, _data, relative_error  # noqa: E402

PAPER_TPU_S = 0.23  # XLA.jl: VGG19 forward, batch 100, one TPU


def loop_compile_lines(reps: int = 3) -> list[str]:
    """Compile time of a loop with 10 and 100000 iterations on this backend: Zyla's
    (bench/compile_bench.py) and the same loop in plain JAX (`fori_loop`, constant trip
    count), fresh functions each time so nothing is cached."""
    from compile_bench import loop_compile_row
    from jax import lax

    jax = jax_setup()
    x = jax.numpy.linspace(-1, 1, 100)

    def jax_seconds(n: int) -> float:
        def loopn(x: object) -> object:
            return lax.fori_loop(0, n, lambda i, s: jax.numpy.sin(s) * 0.5 + x, x).sum()

        t0 = time.perf_counter()
        jax.jit(loopn).lower(x).compile()
        return time.perf_counter() - t0

    jt = {n: sorted(jax_seconds(n) for _ in range(reps))[reps // 2] for n in (10, 100000)}
    z = loop_compile_row(reps)
    return ["", "| loop compile (trace + XLA compile) | 10 iterations ms | 100000 ms | ratio |",
            "| --- | --- | --- | --- |",
            f"| Zyla | {z.peer:.0f} | {z.zyla:.0f} | {z.ratio:.2f} |",
            f"| plain JAX fori_loop | {jt[10] * 1e3:.0f} | {jt[100000] * 1e3:.0f} | "
            f"{jt[100000] / jt[10]:.2f} |"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--side", type=int, default=224)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--forward-only", action="store_true", help="skip the gradient")
    ap.add_argument("--loop-compile", action="store_true",
                    help="only the compile time of a 10- vs 100000-iteration loop")
    ap.add_argument("--dump-hlo", default="", metavar="DIR",
                    help="write both forward passes' optimised HLO text into DIR")
    ap.add_argument("--out", default="", help="write the markdown table here")
    args = ap.parse_args()
    lines = loop_compile_lines() if args.loop_compile else vgg_lines(args)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


def vgg_lines(args: argparse.Namespace) -> list[str]:
    """The VGG19 comparison's report, as markdown lines."""
    jax = jax_setup()
    dev = jax.devices()[0]
    lines = [f"# VGG19 on {dev.platform}: {getattr(dev, 'device_kind', dev)}", "",
             f"JAX {jax.__version__}; batch {args.batch}, {args.side}×{args.side}, Float32; "
             f"default matmul precision: {jax.config.jax_default_matmul_precision or 'default'}"
             "; medians of {0} interleaved calls after a warm-up.".format(args.reps), ""]
    x, y = _data((args.batch, 3, args.side, args.side), 1000)
    t0 = time.perf_counter()
    p = Pair(f"side, batch = {args.side}, {args.batch}\n", "vgg(vgg19_config, side, 1000)", x, y)
    lines.append(f"model built in Zyla in {time.perf_counter() - t0:.1f} s")
    cz = time_once(p.z_forward)
    cj = time_once(p.j_forward)
    lines.append(f"first forward call (trace + compile + run): Zyla {cz:.1f} s, JAX {cj:.1f} s")
    err = relative_error(p.z_forward(), p.j_forward())
    jdev = p.jit["forward"]

    def j_device() -> object:
        return jdev(p.params, p.jx).block_until_ready()

    j_device()
    fz, fj = interleaved(p.z_forward, p.j_forward, args.reps, warmup=1)
    _, fd = interleaved(p.z_forward, j_device, max(3, args.reps // 2), warmup=0)
    if args.dump_hlo:
        from backend.compile import lower_text

        d = Path(args.dump_hlo)
        d.mkdir(parents=True, exist_ok=True)
        (d / "zyla_forward.hlo.txt").write_text(
            lower_text(p.rt, p.rt.lookup("forward"), [p.model, p.x]))
        (d / "jax_forward.hlo.txt").write_text(jdev.lower(p.params, p.jx).compile().as_text())
    rows = [("forward, call (host array out)", fz, fj),
            ("forward, JAX executable alone", None, fd)]
    if not args.forward_only:
        gz0 = time_once(p.z_grad)
        gj0 = time_once(p.j_grad)
        lines.append(f"first gradient call: Zyla {gz0:.1f} s, JAX {gj0:.1f} s")
        zg, jg = p.z_grad(), p.j_grad()
        p.errors = {}
        try:
            p._compare_params(zg, jg, "gradient")
            gerr = p.errors["gradient"]
        except AssertionError as e:
            gerr = float("nan")
            lines.append(f"gradient comparison failed: {e}")
        gz, gj = interleaved(p.z_grad, p.j_grad, max(3, args.reps // 2), warmup=1)
        rows.append(("forward+backward, cross-entropy (gradients to host)", gz, gj))
        lines.append(f"gradients agree to {gerr:.1e} of each array's largest entry")
    lines += [f"forward outputs agree to {err:.1e} of the largest", "",
              "| what | Zyla ms | JAX ms | Zyla/JAX |", "| --- | --- | --- | --- |"]
    for name, z, j in rows:
        zs = f"{z * 1e3:.2f}" if z is not None else "—"
        ratio = f"{z / j:.3f}" if z is not None else "—"
        lines.append(f"| {name} | {zs} | {j * 1e3:.2f} | {ratio} |")
    if args.batch == 100 and args.side == 224:
        lines += ["", f"XLA.jl's paper: {PAPER_TPU_S * 1e3:.0f} ms on one TPU (2018). Here: "
                  f"Zyla {fz * 1e3:.1f} ms per call, {PAPER_TPU_S / fz:.1f}× faster."]
    try:
        from backend import costmodel

        lines += ["", "Cost-model choices in this run:", "```", costmodel.format_report(), "```"]
    except Exception as e:  # the report is optional
        lines.append(f"(no cost-model report: {e})")
    return lines


if __name__ == "__main__":
    sys.exit(main())
