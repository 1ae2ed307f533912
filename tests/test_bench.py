"""The benchmark suite itself (bench/run.py) runs: `--quick` (small sizes, few repetitions)
measures every group without an error, so a change that breaks a benchmark's use of the
compiler's internals shows in `make test`, not only in the next `make bench`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_run_measures_its_groups(tmp_path: Path) -> None:
    out = tmp_path / "quick.md"
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    # (two repetitions a comparison: every row of these groups runs; the timings are not
    # the point. The `user` group's programs run in tests/test_bench.py's scalar-row test
    # and through tests/test_examples.py; the whole group ran 70-130 s of the suite's time)
    groups = "front,mlp,cnn,micro,memory,compile,vgg"
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--reps", "2",
                        "--vgg-reps", "1", "--only", groups, "--out", str(out)],
                       capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    text = out.read_text() if out.exists() else ""
    assert p.returncode == 0, p.stderr[-3000:]
    assert "failed before its rows were measured" not in text
    for row in ("VGG19 forward", "MLP 784-512-512-10", "LeNet-5", "mandel", "randmatstat",
                "parser throughput", "dispatch", "XLA temp memory"):
        assert row in text, row


def test_gpu_script_runs_on_a_small_batch(tmp_path: Path) -> None:
    """bench/gpu.py (run on GPU machines, bench/gpu_check.sh) at a size this CPU runs in
    seconds: both forward passes agree and the table and the loop-compile rows are made."""
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    out = tmp_path / "gpu.md"
    script = str(ROOT / "bench" / "gpu.py")
    p = subprocess.run([sys.executable, script, "--batch", "1", "--side", "32", "--reps", "2",
                        "--forward-only", "--dump-hlo", str(tmp_path / "hlo"), "--out",
                        str(out)], capture_output=True, text=True, timeout=600, env=env,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    text = out.read_text()
    assert "| forward, call (host array out) |" in text
    err = float(text.split("forward outputs agree to ")[1].split()[0])
    assert err < 1e-4, text
    assert (tmp_path / "hlo" / "zyla_forward.hlo.txt").read_text().startswith("HloModule")
    p = subprocess.run([sys.executable, script, "--loop-compile"], capture_output=True,
                       text=True, timeout=600, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "| plain JAX fori_loop |" in p.stdout


def test_the_user_groups_scalar_programs_run() -> None:
    """bench/user_bench.py's scalar rows (fib, the `sin` loop, the word count, the host-only
    programs, the gradient loop) at their quick sizes, through `zyla run`."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import user_bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    rows = user_bench.scalar_rows(True)
    assert len(rows) >= 8 and all(r.zyla > 0 and r.peer > 0 for r in rows)
