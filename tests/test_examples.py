"""Every program in examples/ runs to completion with `zyla run` (examples are tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.jl"))
ZYLA = [sys.executable, "-m", "lang.cli"]


def test_there_are_examples() -> None:
    assert EXAMPLES, "examples/ must hold at least one program"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path: Path) -> None:
    r = subprocess.run(ZYLA + ["run", str(path)], cwd=ROOT, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, f"{path.name} failed:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr


def test_training_example_loss_falls() -> None:
    r = subprocess.run(ZYLA + ["run", str(ROOT / "examples" / "train_mlp.jl")], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    losses = [float(line.split()[-1]) for line in r.stdout.splitlines() if "loss" in line]
    assert len(losses) >= 3
    assert losses[-1] < 0.2 * losses[0], losses
