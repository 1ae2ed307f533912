"""Benchmarks: Zyla against the same model hand-written in plain JAX, in one process.

MLP 784-512-512-10 (relu, softmax cross-entropy), Float32, batch 128:
- forward: Zyla compiled call vs `jax.jit(forward)`;
- gradient step: Zyla `gradient(m -> loss(m, x, y), model)` compiled vs
  `jax.jit(jax.value_and_grad(loss))` (both differentiate with respect to the parameters).

Both sides are measured the way a user calls them: Zyla's timing includes moving the
arguments in and the gradients out as host arrays; JAX's includes `block_until_ready`
and copying the result to the host (`np.asarray`) so both end with host arrays. Medians
of repeated runs; ratios are Zyla/JAX (lower is better). Writes bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

MLP_SRC = """
struct MLP
    W1
    b1
    W2
    b2
    W3
    b3
end
relu(x) = max.(x, 0f0)
(m::MLP)(x) = m.W3 * relu(m.W2 * relu(m.W1 * x .+ m.b1) .+ m.b2) .+ m.b3
function logitcrossentropy(z, y)
    m = maximum(z; dims=1)
    lse = m .+ log.(sum(exp.(z .- m); dims=1))
    -sum(y .* (z .- lse)) / size(z, 2)
end
loss(m, x, y) = logitcrossentropy(m(x), y)
forward(m, x) = m(x)
grad_step(m, x, y) = gradient(m -> loss(m, x, y), m)[1]
"""


def timeit(f: Callable[[], Any], reps: int, warmup: int = 3) -> float:
    for _ in range(warmup):
        f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def mlp_bench(reps: int) -> list[tuple[str, float, float]]:
    import jax
    import jax.numpy as jnp

    from backend.compile import compiled_call
    from lang import values as V
    from lang.runtime import Runtime

    rng = np.random.default_rng(0)
    sizes = [(784, 512), (512, 512), (512, 10)]
    Ws = [(rng.standard_normal((o, i)) * np.sqrt(2 / i)).astype(np.float32) for i, o in sizes]
    bs = [np.zeros(o, np.float32) for _, o in sizes]
    x = rng.standard_normal((784, 128)).astype(np.float32)  # Julia size (784, 128)
    labels = rng.integers(0, 10, 128)
    y = np.zeros((10, 128), np.float32)
    y[labels, np.arange(128)] = 1

    # --- Zyla: Julia arrays are stored with reversed axes (see lang.values)
    rt = Runtime()
    rt.run_source(MLP_SRC, "bench_mlp.jl")
    T = rt.lookup("MLP")
    model = V.StructValue(T, [np.ascontiguousarray(a.T) if a.ndim == 2 else a for a in
                              (Ws[0], bs[0], Ws[1], bs[1], Ws[2], bs[2])])
    zx, zy = np.ascontiguousarray(x.T), np.ascontiguousarray(y.T)
    zstep, zloss, zfwd = rt.lookup("grad_step"), rt.lookup("loss"), rt.lookup("forward")

    def zyla_fwd() -> Any:
        return compiled_call(rt, zfwd, [model, zx])

    def zyla_grad() -> Any:
        return compiled_call(rt, zstep, [model, zx, zy])

    # --- plain JAX, written the idiomatic way (batch-major)
    params = [(jnp.asarray(W.T), jnp.asarray(b)) for W, b in zip(Ws, bs)]
    jx, jy = jnp.asarray(x.T), jnp.asarray(y.T)

    def jforward(params: Any, x: Any) -> Any:
        h = x
        for k, (W, b) in enumerate(params):
            h = h @ W + b
            if k < len(params) - 1:
                h = jnp.maximum(h, 0)
        return h

    def jloss(params: Any, x: Any, y: Any) -> Any:
        z = jforward(params, x)
        return -jnp.sum(y * jax.nn.log_softmax(z, axis=1)) / z.shape[0]

    jf = jax.jit(jforward)
    jg = jax.jit(jax.value_and_grad(jloss))

    def jax_fwd() -> Any:
        return np.asarray(jf(params, jx))

    def jax_grad() -> Any:
        v, g = jg(params, jx, jy)
        return float(v), jax.tree_util.tree_map(np.asarray, g)

    # the two must compute the same thing
    zl = compiled_call(rt, zloss, [model, zx, zy])
    jl = float(jloss(params, jx, jy))
    assert abs(zl - jl) < 1e-3 * max(1.0, abs(jl)), (zl, jl)

    rows = []
    for name, zf, jfun in (("MLP forward", zyla_fwd, jax_fwd), ("MLP gradient step", zyla_grad, jax_grad)):
        # interleave to share machine noise
        zt, jt = [], []
        for _ in range(3):
            zt.append(timeit(zf, reps))
            jt.append(timeit(jfun, reps))
        rows.append((name, statistics.median(zt), statistics.median(jt)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    import jax

    import ad_bench

    rows = mlp_bench(args.reps)
    mem = ad_bench.checkpoint_memory()
    lines = [
        "# Zyla benchmark results",
        "",
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        f"- python {platform.python_version()}, jax {jax.__version__}, numpy {np.__version__}",
        f"- method: medians of {args.reps} runs (after warm-up), three interleaved rounds; "
        "ratio = Zyla / JAX in the same process (lower is better)",
        "",
        "## Speed against plain JAX",
        "",
        "| benchmark | Zyla (ms) | plain JAX (ms) | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, z, j in rows:
        lines.append(f"| {name} (784-512-512-10, batch 128, Float32) | {z * 1e3:.3f} | {j * 1e3:.3f} | {z / j:.2f} |")
    fz = {n: z for n, z, _ in rows}
    fj = {n: j for n, _, j in rows}
    lines += [
        "",
        "## Gradient cost relative to the forward pass",
        "",
        "| model | Zyla grad/forward | JAX grad/forward |",
        "|---|---:|---:|",
        f"| MLP 784-512-512-10, batch 128 | {fz['MLP gradient step'] / fz['MLP forward']:.2f} | "
        f"{fj['MLP gradient step'] / fj['MLP forward']:.2f} |",
        "",
        "## Memory of reverse mode through a long loop",
        "",
        "| benchmark | with @checkpoint | without | ratio |",
        "|---|---:|---:|---:|",
    ]
    for name, ck, plain, unit in mem:
        lines.append(f"| {name} ({unit}) | {ck:.3f} | {plain:.3f} | {ck / plain:.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        (ROOT / "bench" / "RESULTS.md").write_text(text)


if __name__ == "__main__":
    main()
