"""The benchmark suite itself (bench/run.py) runs: `--quick` (small sizes, few repetitions)
measures every group without an error, so a change that breaks a benchmark's use of the
compiler's internals shows in `make test`, not only in the next `make bench`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quick_benchmark_run_measures_every_group(tmp_path: Path) -> None:
    out = tmp_path / "quick.md"
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env.setdefault("JAX_PLATFORMS", "cpu")
    p = subprocess.run([sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--out",
                        str(out)], capture_output=True, text=True, timeout=600, env=env,
                       cwd=ROOT)
    text = out.read_text() if out.exists() else ""
    assert p.returncode == 0, p.stderr[-3000:]
    assert "failed before its rows were measured" not in text
    for row in ("VGG19 forward", "MLP 784-512-512-10", "LeNet-5", "mandel", "randmatstat",
                "parser throughput", "dispatch", "XLA temp memory"):
        assert row in text, row
