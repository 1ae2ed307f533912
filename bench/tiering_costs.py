"""The costs the tiering policy (backend/tiering.py) weighs, measured on this machine:

    .venv/bin/python bench/tiering_costs.py        # prints a markdown table

importing JAX, tracing and compiling a small function, a compiled call's overhead, an
interpreted call's and loop iteration's cost, and one array operation on the host
(numpy) and compiled, at the size where the policy compiles a call at depth at once.
docs/PERFORMANCE.md ("Tiering") records the figures and the thresholds chosen from them.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    import numpy as np

    code = "import time; t = time.perf_counter(); import jax; print(time.perf_counter() - t)"
    imp = statistics.median(float(subprocess.run([sys.executable, "-c", code],
                                                 capture_output=True, text=True).stdout)
                            for _ in range(3))

    from common import median_seconds

    from backend import compile as C
    from backend import tiering
    from lang.door.api import Zyla

    z = Zyla()
    sinloop = (ROOT / "bench" / "user" / "sinloop.jl").read_text()
    z.eval(sinloop[sinloop.index("function sinsum"):sinloop.index("t = @elapsed")])
    z.eval("addone(v) = v .+ 1.0\nscale(v) = 2.0 .* v .+ 1.0\n")
    rt = z.rt
    sinsum, addone, scale = (rt.lookup(n) for n in ("sinsum", "addone", "scale"))
    C.compiled_call(rt, addone, [np.ones(4)])  # JAX and the backend started
    t0 = time.perf_counter()
    C.compiled_call(rt, sinsum, [1000])
    compile_loop = time.perf_counter() - t0
    t0 = time.perf_counter()
    C.compiled_call(rt, scale, [np.ones(8)])
    compile_array = time.perf_counter() - t0
    small = np.ones(8)
    call_compiled = median_seconds(lambda: C.compiled_call(rt, scale, [small]), 200)
    with rt.interp.host_only():
        call_host = median_seconds(lambda: rt.interp.call_value(scale, [small]), 200)
        n = 20000
        loop_host = median_seconds(lambda: rt.interp.call_value(sinsum, [n]), 3) / n
    loop_compiled = median_seconds(lambda: C.compiled_call(rt, sinsum, [10 ** 6]), 5) / 10 ** 6
    big = np.ones(tiering.BIG_ELEMENTS)
    C.compiled_call(rt, scale, [big])
    big_compiled = median_seconds(lambda: C.compiled_call(rt, scale, [big]), 50)
    with rt.interp.host_only():
        big_host = median_seconds(lambda: rt.interp.call_value(scale, [big]), 50)

    rows = [
        ("importing JAX (a fresh process)", f"{imp * 1e3:.0f} ms"),
        ("trace + XLA compile + first run: a scalar loop function", f"{compile_loop * 1e3:.0f} ms"),
        ("trace + XLA compile + first run: a two-op array function",
         f"{compile_array * 1e3:.0f} ms"),
        ("a call of a compiled function (8 elements)", f"{call_compiled * 1e6:.0f} µs"),
        ("the same call on the interpreter", f"{call_host * 1e6:.0f} µs"),
        ("one iteration of `acc += sin(0.1i)`: interpreter", f"{loop_host * 1e6:.1f} µs"),
        ("the same iteration compiled", f"{loop_compiled * 1e9:.0f} ns"),
        (f"`2.0 .* v .+ 1.0` on {tiering.BIG_ELEMENTS:,} Float64: compiled",
         f"{big_compiled * 1e6:.0f} µs"),
        ("the same on the interpreter (numpy)", f"{big_host * 1e6:.0f} µs"),
    ]
    print("| cost | measured |\n|---|---:|")
    for name, v in rows:
        print(f"| {name} | {v} |")


if __name__ == "__main__":
    main()
