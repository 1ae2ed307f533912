"""Compile latency: the stages of building one executable, a loop's trip count, and the time
to the first gradient of a fresh `zyla run`.

Stages of a compiled call, timed with Zyla's internals (the same calls `compiled_call` and
`backend.compile.lower_text` make):
- parse: `Runtime.parse` of the model's source and of the Flux library `using Flux` loads;
- lower: `Lowerer.lower_toplevel` of the same (AST to SSA IR, methods included);
- infer: `backend.compile.build`'s first pass (`jax.eval_shape` of the IR interpreter: the
  types and shapes of every value, the global arrays read, the inputs written) minus the
  AD and cost-model time inside it;
- AD: `autodiff.reverse.Transform.run` (source-to-source reverse mode, run lazily while
  tracing, cached per function);
- cost model: calibration measurements of convolution/pooling lowerings made while
  tracing (zero once cached on disk);
- JAX trace: `jax.jit(...).lower(...)` of the traced function (the IR interpreted again
  with jax.lax calls, into StableHLO);
- XLA compile: `.compile()` of that.
The JAX peer is `jax.jit(f).lower(...)` (its trace) and `.compile()` of the same model.
Before measuring, the persistent XLA cache is off (ZYLA_XLA_CACHE=off, set by run.py), so
every XLA compile is real.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from common import BENCH, ROOT, Row, build_call, jax_setup, row


@contextmanager
def _timing(owner: Any, name: str, acc: dict, key: str,
            library: Callable[..., bool] | None = None) -> Iterator[None]:
    """Add the time spent in owner.name (a method, not re-entered) to acc[key], and also
    to acc[key + " (library)"] when `library(*args)` says the call is on library code."""
    orig = getattr(owner, name)

    def timed(*a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return orig(*a, **k)
        finally:
            dt = time.perf_counter() - t0
            acc[key] = acc.get(key, 0.0) + dt
            if library is not None and library(*a):
                acc[key + " (library)"] = acc.get(key + " (library)", 0.0) + dt

    setattr(owner, name, timed)
    try:
        yield
    finally:
        setattr(owner, name, orig)


def _calibration() -> float:
    try:
        from backend import costmodel
    except ImportError:
        return 0.0
    return costmodel.calibration_seconds()


def zyla_stages(load: Callable[[], Any], fname: str, args_of: Callable[[Any], list]) -> dict:
    """Seconds per stage of loading a program and compiling one call of `fname`.

    `load()` returns a fresh runtime that has run the program; `args_of(rt)` the call's
    arguments. Once-per-process costs are paid first (the parser's tables load on the
    first parse), and the garbage collector is paused while the stages run, as `timeit`
    does: a full collection of a heap left by earlier benchmarks once landed inside the
    lowering stage (200 ms)."""
    import gc

    from grammar.parser import parse

    parse("warm_up(x) = x + 1\n", "warm_up.jl")
    gc.collect()
    gc.disable()
    try:
        return _zyla_stages(load, fname, args_of)
    finally:
        gc.enable()


def _zyla_stages(load: Callable[[], Any], fname: str, args_of: Callable[[Any], list]) -> dict:
    from autodiff import reverse
    from lang.core.lower import Lowerer
    from lang.door.wiring import Runtime

    acc: dict[str, float] = {}
    def parsing_library(_rt: Any, _text: str, filename: str) -> bool:
        return "stdlib" in str(filename)

    def lowering_library(lo: Any, _stmt: Any) -> bool:
        return "stdlib" in str(getattr(getattr(lo, "source", None), "name", ""))

    with _timing(Runtime, "parse", acc, "parse", parsing_library), \
            _timing(Lowerer, "lower_toplevel", acc, "lower", lowering_library):
        rt = load()
    f = rt.lookup(fname)
    args = args_of(rt)
    with _timing(reverse.Transform, "run", acc, "AD"):
        from backend import compile as C
        from backend.compile import EARLY_TRACE

        cal0 = _calibration()
        ad0 = acc.get("AD", 0.0)
        early0 = EARLY_TRACE["seconds"]
        t0 = time.perf_counter()
        entry, key, leaves = build_call(rt, f, args)
        # building traces under jax.jit (its first pass, when that is the executable's
        # trace, and the cost model's whole-program check): the trace the first call
        # reuses, so that time is the JAX trace stage's
        early = EARLY_TRACE["seconds"] - early0
        t_infer = time.perf_counter() - t0 - early
        cal1 = _calibration()
        ad1 = acc.get("AD", 0.0)
        # when the first pass was the executable's trace (no globals read, no inputs
        # written), the AD transforms ran inside that early trace
        ad_early = (ad1 - ad0) if not entry.global_names and not entry.writes else 0.0
        t0 = time.perf_counter()
        lowered = C.lower_entry(rt, entry, key, leaves)
        t_trace = time.perf_counter() - t0
        cal2 = _calibration()
        ad2 = acc.get("AD", 0.0)
    t0 = time.perf_counter()
    # a compile option at its default value makes this a real compile: the cost model's
    # whole-program check may already have compiled the same module in this process
    # (it counts as calibration), and JAX would return that executable from memory
    lowered.compile({"xla_embed_ir_in_executable": False})
    t_xla = time.perf_counter() - t0
    return {
        "library": acc.get("parse (library)", 0.0) + acc.get("lower (library)", 0.0),
        "parse": acc.get("parse", 0.0),
        "lower": acc.get("lower", 0.0),
        "infer": t_infer - (ad1 - ad0 - ad_early) - (cal1 - cal0),
        "AD": ad2 - ad0,
        "cost model": cal2 - cal0,
        "JAX trace": t_trace + early - ad_early - (ad2 - ad1) - (cal2 - cal1),
        "XLA compile": t_xla,
    }


def jax_stages(make: Callable[[], tuple[Callable, tuple]]) -> dict:
    """Trace and XLA-compile seconds of a fresh jax.jit of `make()`'s function (the
    garbage collector paused, as for Zyla's stages)."""
    import gc

    jax = jax_setup()
    fn, args = make()
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        lowered = jax.jit(fn).lower(*args)
        t1 = time.perf_counter()
        lowered.compile()
        t2 = time.perf_counter()
    finally:
        gc.enable()
    return {"JAX trace": t1 - t0, "XLA compile": t2 - t1}


FRONT = ("parse", "lower", "infer", "AD")


def _model_stage_rows(label: str, zs: dict, js: dict) -> list[Row]:
    front = sum(zs[k] for k in FRONT)
    # cost-model calibration is a one-time cost per machine (kept on disk), shown apart
    ztotal = sum(v for k, v in zs.items() if k not in ("cost model", "library"))
    detail = ", ".join(f"{k} {v * 1e3:.0f}" for k, v in zs.items() if k != "library")
    lib = zs["library"]
    detail += (f"; of parse+lower, {lib * 1e3:.0f} ms is the Flux library `using Flux` "
               f"loads: without it the front end is {(front - lib) * 1e3:.0f} ms, ratio "
               f"{(front - lib) / zs['XLA compile']:.2f}")
    return [
        row("compile", f"{label}: Zyla front end (parse+lower+infer+AD) vs its XLA compile",
            front * 1e3, zs["XLA compile"] * 1e3, "ms", "≤ 0.25",
            f"Zyla stages (ms): {detail}", peer_name="XLA compile"),
        row("compile", f"{label}: Zyla all stages (without cost-model calibration) vs JAX "
            "trace+compile", ztotal * 1e3, (js["JAX trace"] + js["XLA compile"]) * 1e3, "ms",
            note=f"JAX (ms): trace {js['JAX trace'] * 1e3:.0f}, "
                 f"XLA compile {js['XLA compile'] * 1e3:.0f}; Zyla's cost-model calibration "
                 f"{zs['cost model']:.1f} s (once per machine and shape, cached on disk)"),
    ]


def bench_compile(quick: bool, reps: int) -> tuple[list[Row], dict]:
    """Rows, and the stage tables {model: (zyla stages, jax stages)} for RESULTS.md."""
    import models

    rows: list[Row] = []
    tables: dict[str, tuple[dict, dict]] = {}

    # --- MLP: the SGD step
    def mlp_load() -> Any:
        return models.zyla_model("", "mlp()")[0]

    x, y = models._data((128, 784), 10)
    zs = zyla_stages(mlp_load, "train_step",
                     lambda rt: [rt.lookup("model"), x, y, np.float32(models.ETA)])
    p = models.mlp_pair()

    def mlp_jax() -> tuple[Callable, tuple]:
        fs = models.jax_functions(p.spec)
        return fs["step"], (p.params, p.jx, p.jy)

    js = jax_stages(mlp_jax)
    rows += _model_stage_rows("MLP SGD step", zs, js)
    tables["MLP 784-512-512-10 SGD step"] = (zs, js)

    # --- VGG19: forward + backward
    prelude, build, size, vx, vy = models.vgg_setup(quick)

    loaded: list = []

    def vgg_load() -> Any:
        rt = models.zyla_model(prelude, build)[0]
        loaded.append(rt)
        return rt

    zs = zyla_stages(vgg_load, "lossgrad", lambda rt: [rt.lookup("model"), vx, vy])
    vspec, vparams = models.layer_spec(loaded[0].lookup("model"))

    def vgg_jax() -> tuple[Callable, tuple]:
        return models.jax_functions(vspec)["grad"], (vparams, vx, vy)

    js = jax_stages(vgg_jax)
    rows += _model_stage_rows(f"VGG19 forward+backward, {size}", zs, js)
    tables[f"VGG19 forward+backward ({size})"] = (zs, js)

    rows.append(loop_compile_row(reps))
    rows += first_gradient_rows(quick)
    return rows, tables


LOOP_JL = """
function loopn(x, n)
    s = x
    for i in 1:n
        s = sin.(s) .* 0.5 .+ x
    end
    sum(s)
end
"""


def compile_seconds(rt: Any, f: Any, args: list) -> float:
    """Seconds to build the executable of f(args...) without running it: the first
    (abstract) trace, the trace under jax.jit and the XLA compile."""
    from backend import compile as C

    t0 = time.perf_counter()
    entry, key, leaves = build_call(rt, f, args)
    C.lower_entry(rt, entry, key, leaves).compile()
    return time.perf_counter() - t0


def loop_compile_row(reps: int) -> Row:
    """Trace + XLA compile of the same loop with 10 and with 100000 iterations (the trip
    count is a compile-time constant; the loop must not be unrolled)."""
    from common import zyla_session

    from backend.compile import compiled_call

    x = np.linspace(-1, 1, 100)
    times: dict[int, list[float]] = {10: [], 100000: []}
    for _ in range(max(3, min(reps, 5))):
        for n in (10, 100000):
            rt = zyla_session(LOOP_JL, "loop.jl")  # fresh: nothing cached
            times[n].append(compile_seconds(rt, rt.lookup("loopn"), [x, n]))
    # the executable really runs the loop: compare with numpy
    rt = zyla_session(LOOP_JL, "loop.jl")
    r = compiled_call(rt, rt.lookup("loopn"), [x, 100000])
    s = x.copy()
    for _ in range(100000):
        s = np.sin(s) * 0.5 + x
    assert abs(r - s.sum()) < 1e-9 * max(1.0, abs(s.sum())), (r, s.sum())
    big, small = statistics.median(times[100000]), statistics.median(times[10])
    return row("compile", "compile time of a loop, 100000 vs 10 iterations (trace + XLA "
               "compile, not run)", big * 1e3, small * 1e3, "ms", "≤ 1.2",
               peer_name="10 iterations")


FIRST_GRAD_JL = BENCH / "first_grad.jl"
FIRST_GRAD_PY = '''
import time, numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)
sizes = [(784, 512), (512, 512), (512, 10)]
params = [(jnp.asarray((rng.random((i, o), dtype=np.float32) - 0.5) * 0.1),
           jnp.zeros(o, jnp.float32)) for i, o in sizes]
x = jnp.asarray(rng.standard_normal((128, 784)).astype(np.float32))
y = jax.nn.one_hot(rng.integers(0, 10, 128), 10, dtype=jnp.float32)
def loss(params, x, y):
    h = x
    for k, (W, b) in enumerate(params):
        h = h @ W + b
        if k < 2:
            h = jnp.maximum(h, 0)
    return -jnp.sum(y * jax.nn.log_softmax(h, axis=1)) / x.shape[0]
g = jax.jit(jax.grad(loss))(params, x, y)
print(float(jnp.sum(g[0][0])))
'''


def _run_timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def first_gradient_rows(quick: bool) -> list[Row]:
    """Wall time of a fresh `zyla run` of a file whose first gradient is the MLP's, cold
    (empty persistent XLA cache) and warm (second run, cache filled), against a fresh
    Python process doing the same in JAX."""
    from lang.door.cli import command

    zyla = command()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, ZYLA_XLA_CACHE=cache)
        cold = _run_timed(zyla + ["run", str(FIRST_GRAD_JL)], env)
        warm = _run_timed(zyla + ["run", str(FIRST_GRAD_JL)], env)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(FIRST_GRAD_PY)
    try:
        jt = _run_timed([sys.executable, fh.name], dict(os.environ))
    finally:
        os.unlink(fh.name)
    return [
        row("compile", "time to first gradient, fresh `zyla run` (MLP), cold XLA cache",
            cold, jt, "s", note="peer: a fresh `python` running the same in JAX",
            peer_name="JAX process"),
        row("compile", "time to first gradient, fresh `zyla run`, persistent XLA cache warm",
            warm, cold, "s", peer_name="cold run",
            note="second run of the same file: XLA compilation skipped"),
    ]
