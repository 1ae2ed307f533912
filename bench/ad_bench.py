"""Autodiff benchmarks: memory of a long loop's gradient with and without `@checkpoint`,
and the cost of a gradient relative to the forward pass, next to JAX's same ratio."""

from __future__ import annotations

from typing import Any

import numpy as np

LOOP_SRC = """
function plain(x, n)
    s = x
    t = 0.0
    for i in 1:n
        s = tanh.(s .* 0.9 .+ x)
        t += sum(s)
    end
    t
end
function ckpt(x, n)
    s = x
    t = 0.0
    @checkpoint for i in 1:n
        s = tanh.(s .* 0.9 .+ x)
        t += sum(s)
    end
    t
end
grad_plain(x, n) = gradient(plain, x, n)[1]
grad_ckpt(x, n) = gradient(ckpt, x, n)[1]
"""


def executable_memory(rt: Any, f: Any, args: list) -> int:
    """Bytes of temporary buffers XLA allocates for the executable of f(args...), which an
    earlier compiled_call made (lowered again with the same inputs, as lower_text does)."""
    from backend import compile as C

    key, leaves, _muts = C._signature(rt, f, args, None)
    comp = C.lower_entry(rt, C.cached_entry(rt, f, args), key, leaves).compile()
    return int(comp.memory_analysis().temp_size_in_bytes)


def checkpoint_memory(n: int = 10000, width: int = 100) -> list[tuple[str, float, float, str]]:
    from backend.compile import compiled_call
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.run_source(LOOP_SRC, "bench_loop.jl")
    x = np.linspace(-1, 1, width)
    rows = []
    mems = {}
    for name in ("grad_plain", "grad_ckpt"):
        f = rt.lookup(name)
        g = compiled_call(rt, f, [x, n])  # also proves it runs
        mems[name] = (executable_memory(rt, f, [x, n]), g)
    np.testing.assert_allclose(mems["grad_plain"][1], mems["grad_ckpt"][1], rtol=1e-9)
    plain, ck = mems["grad_plain"][0], mems["grad_ckpt"][0]
    rows.append((f"gradient of a {n}-step loop (state: {width} floats): XLA temp memory",
                 ck / 1e6, plain / 1e6, "MB, @checkpoint vs plain"))
    return rows
