"""Data-parallel training over a device mesh (backend.sharding), and the persistent cache.

The test process's JAX already started with one CPU device, so every multi-device case runs
`zyla run --devices 8` in a subprocess with XLA_FLAGS=--xla_force_host_platform_device_count=8
(XLA simulates eight CPU devices). The same program runs on one device for comparison: the
loss, the gradient and the parameters after five compiled Adam steps must agree to float
tolerance, and the optimised HLO of the sharded step must hold the all-reduce that sums the
per-device gradients (and the one-device HLO none).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lang.door.cli import command as zyla_cmd

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300

PROGRAM = """\
using Flux
Random.seed!(1)
model = Chain(Dense(8 => 16, tanh), Dense(16 => 1))
x = Zyla.shard_batch(rand(Float32, 8, 64))
y = Zyla.shard_batch(rand(Float32, 1, 64))
loss(m, x, y) = sum(abs2.(m(x) .- y)) / size(y, 2)
lossgrad(m, x, y) = Flux.withgradient(mm -> loss(mm, x, y), m)
function step!(m, opt, x, y)
    l, gs = Flux.withgradient(mm -> loss(mm, x, y), m)
    Flux.update!(opt, m, gs[1])
    return l
end
l, gs = lossgrad(model, x, y)
println("devices ", Zyla.ndevices())
println("loss ", l)
println("grad ", join(string.(vec(gs[1].layers[1].weight)), " "))
opt = Flux.setup(Adam(0.01), model)
for i in 1:5
    println("step ", step!(model, opt, x, y))
end
println("W ", join(string.(vec(model.layers[2].weight)), " "))
println("=== HLO")
@code_hlo step!(model, opt, x, y)
"""


def run_zyla(args: list[str], devices: int | None, **env_extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE", "XLA_FLAGS")}
    env["JAX_PLATFORMS"] = "cpu"
    env.setdefault("ZYLA_XLA_CACHE", "off")
    if devices is not None:
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
    env.update(env_extra)
    return subprocess.run(zyla_cmd() + args, capture_output=True, text=True, timeout=TIMEOUT,
                          env=env, cwd=ROOT)


def parse(out: str) -> dict[str, object]:
    """The printed numbers by line label, and the HLO text after `=== HLO`."""
    head, _, hlo = out.partition("=== HLO\n")
    res: dict[str, object] = {"hlo": hlo, "step": []}
    for line in head.splitlines():
        label, _, rest = line.partition(" ")
        nums = np.array([float(v) for v in rest.split()])
        if label == "step":
            res["step"].append(float(nums[0]))  # type: ignore[union-attr]
        else:
            res[label] = nums
    return res


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, object]]:
    path = tmp_path_factory.mktemp("dp") / "dp.jl"
    path.write_text(PROGRAM)
    out = {}
    for n in (8, 1):
        args = ["run", "--devices", str(n), str(path)] if n > 1 else ["run", str(path)]
        res = run_zyla(args, n if n > 1 else None)
        assert res.returncode == 0, res.stderr
        assert "Traceback" not in res.stderr
        out[n] = parse(res.stdout)
    return out


def test_sharded_run_uses_eight_devices(runs: dict) -> None:
    assert runs[8]["devices"][0] == 8 and runs[1]["devices"][0] == 1


def test_sharded_loss_and_gradient_match_one_device(runs: dict) -> None:
    np.testing.assert_allclose(runs[8]["loss"], runs[1]["loss"], rtol=1e-5)
    np.testing.assert_allclose(runs[8]["grad"], runs[1]["grad"], rtol=1e-4, atol=1e-6)
    assert np.abs(runs[1]["grad"]).max() > 1e-3  # a gradient that says something


def test_sharded_training_steps_match_one_device(runs: dict) -> None:
    s8, s1 = runs[8]["step"], runs[1]["step"]
    assert len(s8) == len(s1) == 5
    np.testing.assert_allclose(s8, s1, rtol=1e-5)
    assert s8[-1] < s8[0]
    np.testing.assert_allclose(runs[8]["W"], runs[1]["W"], rtol=1e-4, atol=1e-6)


def test_sharded_hlo_has_the_all_reduce(runs: dict) -> None:
    hlo8, hlo1 = runs[8]["hlo"], runs[1]["hlo"]
    assert hlo8.count("HloModule") == 1
    assert re.search(r"\ball-reduce(-start)?\(", hlo8), hlo8[:2000]
    assert "num_partitions=8" in hlo8
    assert not re.search(r"\ball-reduce", hlo1)


def test_batch_not_divisible_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.jl"
    path.write_text("f(x) = sum(x .* 2.0)\nx = Zyla.shard_batch(rand(3, 10))\nprintln(f(x))\n")
    res = run_zyla(["run", "--devices", "4", str(path)], 4)
    assert res.returncode == 1
    assert "ERROR:" in res.stderr and "divisible" in res.stderr, res.stderr
    # which array (its size) and which dimension
    assert "the batch dimension (the last) of a 3×10 array (10)" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def test_devices_needs_a_positive_number() -> None:
    res = run_zyla(["run", "--devices", "zero", "x.jl"], None)
    assert res.returncode == 2 and "--devices needs a positive number" in res.stderr


PERSIST = """\
import numpy as np
import jax.monitoring

hits = [0]


def listen(event, **kwargs):
    hits[0] += event == "/jax/compilation_cache/cache_hits"


jax.monitoring.register_event_listener(listen)
from lang.door.api import Zyla
from lang.door.cli import command as zyla_cmd
z = Zyla()
z.eval("f(x) = sum(tanh.(x) .* 3.0)")
print(z.call("f", np.arange(5.0), compiled=True), hits[0])
"""


def test_persistent_cache_serves_the_second_process(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(JAX_PLATFORMS="cpu", ZYLA_XLA_CACHE=str(tmp_path / "xla"))
    outs = []
    for _ in range(2):
        res = subprocess.run([sys.executable, "-c", PERSIST], capture_output=True, text=True,
                             timeout=TIMEOUT, env=env, cwd=ROOT)
        assert res.returncode == 0, res.stderr
        value, hits = res.stdout.split()
        outs.append((float(value), int(hits)))
    assert outs[0][1] == 0 and outs[1][1] >= 1, outs  # the second run loaded the executable
    assert outs[0][0] == outs[1][0]
    assert any((tmp_path / "xla").iterdir())
