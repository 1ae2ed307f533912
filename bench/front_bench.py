"""Front-end throughput and call overhead.

- Parser: `grammar.parser.parse` on the generated 10000-line file of bench/parser_input.py
  (lines per second; median of timed runs after a warm-up run that also loads the tables).
- Dispatch: calling an already compiled function on a small array from Python, Zyla's
  `backend.compile.compiled_call` against a `jax.jit` function (both take and return host
  numpy arrays), and, for reference, the same call made from Zyla code (`f(x)` at top
  level, which the interpreter offloads).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from common import Row, interleaved, jax_setup, row, zyla_session


def _source(lines: int) -> tuple[str, str]:
    """(text, where it came from): bench/parser_input.generate, or a fallback."""
    try:
        import parser_input

        return parser_input.generate(lines), "bench/parser_input.py"
    except ImportError:
        block = [
            "function f{k}(x::AbstractVector, n::Int=3; scale=0.5f0)",
            "    s = zero(eltype(x))",
            "    for i in 1:n",
            "        s += sum(abs2, x .* scale) / (i + 1)",
            "    end",
            "    return s > 1 ? s : -s",
            "end",
            "g{k}(a, b) = [a b; b a] * [1.0, 2.0]",
        ]
        out: list[str] = []
        k = 0
        while len(out) < lines:
            out += [s.format(k=k) for s in block]
            k += 1
        return "\n".join(out[:lines]) + "\n", "fallback generator in bench/front_bench.py"


def bench_parser(quick: bool, reps: int) -> list[Row]:
    from grammar.parser import parse

    lines = 2000 if quick else 10000
    text, origin = _source(lines)
    parse(text, "bench.jl")
    ts = []
    for _ in range(max(3, min(reps, 5))):
        t0 = time.perf_counter()
        parse(text, "bench.jl")
        ts.append(time.perf_counter() - t0)
    rate = lines / statistics.median(ts)
    return [row("front", f"parser throughput, generated {lines}-line file", rate, None,
                "lines/s", "≥ 50000", f"source: {origin}", ratio=rate, peer_name="—")]


DISPATCH_JL = "addone(x) = x .+ 1.0\n"


def bench_dispatch(quick: bool, reps: int) -> list[Row]:
    from backend.compile import compiled_call

    jax = jax_setup()
    rt = zyla_session(DISPATCH_JL, "dispatch.jl")
    f = rt.lookup("addone")
    x = np.arange(10.0)
    jf = jax.jit(lambda v: v + 1.0)

    def zcall() -> np.ndarray:
        return compiled_call(rt, f, [x])

    def jcall() -> np.ndarray:
        return np.asarray(jf(x))

    def zlang() -> np.ndarray:
        return rt.interp.call_value(f, [x])

    assert np.array_equal(zcall(), jcall()) and np.array_equal(zlang(), jcall())
    inner = 200 if quick else 500
    zt, jt = interleaved(zcall, jcall, reps, warmup=50, inner=inner)
    lt, jt2 = interleaved(zlang, jcall, reps, warmup=50, inner=inner)
    assert rt.compile_cache.entries, "the interpreter did not offload addone"
    return [
        row("front", "dispatch: call a compiled function on 10 Float64 from Python "
            "(compiled_call vs jax.jit)", zt * 1e6, jt * 1e6, "µs", "≤ 1.5"),
        row("front", "dispatch: the same call made from Zyla code (interpreter offloads)",
            lt * 1e6, jt2 * 1e6, "µs"),
    ]
