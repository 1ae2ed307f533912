"""Every program in examples/ runs to completion (examples are tests).

Each example has a `--fast` variant (fewer epochs or smaller sizes) that these tests run
in-process, so that they can also check that the example's gradient steps really ran as
compiled XLA executables (the runtime keeps why a call could not be offloaded). The
examples assert their own final metric (accuracy, loss); the tests read it back from the
output too. train_mlp.jl (`make run`'s example) runs at full size; `zyla run` itself is
exercised on fizzbuzz.jl.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lang.door.wiring import Runtime

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.jl"))
ZYLA = [sys.executable, "-m", "lang.door.cli"]

# the functions whose top-level calls must run compiled in each example, with how many
# compiled calls at least; and a pattern for the metric the example prints with a bound
COMPILED = {
    "cnn_digits.jl": {"withgradient": 80},
    "mlp_digits.jl": {"gradient": 60},
    "xor.jl": {"withgradient": 180},
    "char_rnn.jl": {"lossgrad": 30},
    "vgg.jl": {"forward": 4, "lossgrad": 4},
    "mlp_mnist.jl": {"gradient": 100},
    "conv_autosize.jl": {"withgradient": 120},
    "vae.jl": {"withgradient": 240},
}
METRICS = {
    "cnn_digits.jl": (r"test accuracy ([\d.]+)%$", lambda v: v >= 80),
    "mlp_digits.jl": (r"test accuracy ([\d.]+)%$", lambda v: v >= 85),
    "xor.jl": (r"accuracy after training: ([\d.]+)", lambda v: v > 0.85),
    "fizzbuzz.jl": (r"accuracy on 1:100: ([\d.]+)", lambda v: v >= 0.9),
    "char_rnn.jl": (r"trained .* loss ([\d.]+)$", lambda v: v < 3.5),
    "vgg.jl": (r"→ ([\d.]+)", lambda v: v < 2.4),
    "micro.jl": (r"(all results as in perf.jl)", lambda v: True),
    "finetune_digits.jl": (r"test accuracy ([\d.]+)%$", lambda v: v >= 75),
    "mlp_mnist.jl": (r"test accuracy ([\d.]+)%$", lambda v: v >= 85),
    "conv_autosize.jl": (r"test accuracy ([\d.]+)%$", lambda v: v >= 85),
    # the negative ELBO per test image after training; predicting the mean image scores 27.1
    "vae.jl": (r"test loss [\d.]+ → ([\d.]+)$", lambda v: v < 28),
}


def run_in_process(path: Path, args: list[str]) -> tuple[str, Runtime]:
    """Run an example as `zyla run path args...` does, in this process."""
    rt = Runtime()
    rt.current_file = str(path)
    rt.globals["ARGS"] = np.array(args, dtype=object)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rt.run_source(path.read_text(), str(path))
    return out.getvalue(), rt


def compiled_calls(rt: Runtime, name: str) -> int:
    """How many times a compiled executable of a top-level call of `name` ran."""
    total = 0
    for (skel, _world), entry in rt.compile_cache.entries.items():
        f = skel[1][0]
        if f[0] == "const" and getattr(f[1], "name", None) == name:
            total += entry.calls
    return total


def test_there_are_examples() -> None:
    assert EXAMPLES, "examples/ must hold at least one program"
    assert set(METRICS) <= {p.name for p in EXAMPLES}


# train_mlp.jl and fizzbuzz.jl have tests of their own below
IN_PROCESS = [p for p in EXAMPLES if p.name not in ("train_mlp.jl", "fizzbuzz.jl")]


@pytest.mark.parametrize("path", IN_PROCESS, ids=lambda p: p.name)
def test_example_runs_fast_and_compiles(path: Path) -> None:
    out, rt = run_in_process(path, ["--fast"])
    if path.name in METRICS:
        pattern, ok = METRICS[path.name]
        found = re.findall(pattern, out, flags=re.M)
        assert found, f"{path.name} printed no metric:\n{out[-2000:]}"
        value = found[-1]
        assert ok(float(value) if value[0].isdigit() else value), (
            f"{path.name}: {value}\n{out[-2000:]}"
        )
    for name, least in COMPILED.get(path.name, {}).items():
        assert name not in rt.offload_reasons, f"{name} ran on the host: {rt.offload_reasons[name]}"
        assert compiled_calls(rt, name) >= least, f"{name}: too few compiled calls"


def test_zyla_run_runs_fizzbuzz() -> None:
    """The command line on an example with arguments (the other examples run in-process;
    that Flux.train! compiles its steps is checked in tests/test_flux.py)."""
    r = subprocess.run(
        ZYLA + ["run", str(ROOT / "examples" / "fizzbuzz.jl"), "--fast"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    assert "1 2 fizz 4 buzz fizz 7 8 fizz buzz 11 fizz 13 14 fizzbuzz" in r.stdout
    assert "accuracy on 1:100: 1.0" in r.stdout


def test_training_example_loss_falls() -> None:
    out, rt = run_in_process(ROOT / "examples" / "train_mlp.jl", [])
    losses = [float(line.split()[-1]) for line in out.splitlines() if "loss" in line]
    assert len(losses) >= 3
    assert losses[-1] < 0.2 * losses[0], losses
    assert "gradient" not in rt.offload_reasons and compiled_calls(rt, "gradient") == 400
