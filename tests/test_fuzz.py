"""Fuzzing (lang.door.fuzzing): random bytes, text, token sequences and mutated programs go
through the lexer, parser, lowering, IR verifier, interpreter and the CLI's error
report; only `ZylaError`s may come out, nothing may hang, and no report may show a
Python traceback. A small run here; `scripts/fuzz.py N` runs a large one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door import fuzzing as F
from lang.door.cli import command
from lang.door.wiring import Runtime

ROOT = Path(__file__).resolve().parents[1]
TEXTS = F.corpus()
_RT: list[Runtime] = []


def runtime() -> Runtime:
    if not _RT:
        rt = Runtime()
        rt.compile_mode = "never"
        _RT.append(rt)
    return _RT[0]


_SETTINGS = dict(deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                 suppress_health_check=list(HealthCheck))


@settings(max_examples=300, **_SETTINGS)
@given(F.inputs(TEXTS))
def test_front_end_never_fails_internally(text: str) -> None:
    finding = F.fuzz_one(text)
    assert finding is None, str(finding)


@settings(max_examples=40, **_SETTINGS)
@given(st.one_of(F.mutations(TEXTS), F.token_programs()))
def test_running_and_reporting_never_fail_internally(text: str) -> None:
    finding = F.fuzz_one(text, runtime(), run=True, report=True, run_limit=1.0)
    assert finding is None, str(finding)


# inputs that once crashed the front end (found by this fuzzer)
REGRESSIONS = ["¹", ".²", "a .¹", "0𩅄\n²", "٣", "@.", "@code_ir", "@time", "@test_throws 1",
               "@testset", "@assert", "local #= c =# @code_ir", "x = 1 @@ 2", "\x00", "`", "$",
               '"$(', "'", "#=", "function", "[1 2; 3", "f(x) = x; f.(", "Base.@", ":(", "...",
               "x'''", "1..2", "a ? b", "begin end end"]


@pytest.mark.parametrize("text", REGRESSIONS)
def test_regressions(text: str) -> None:
    finding = F.fuzz_one(text, runtime(), run=True, report=True, run_limit=1.0)
    assert finding is None, str(finding)


def test_nesting_past_the_recursion_limit_is_a_located_error() -> None:
    """A statement nested deeper than Python's recursion limit allows to lower (found by
    atheris: a long run of unary `+` before macro calls) is a StackOverflowError at the
    statement, under whatever limit the embedding process has."""

    text = "y = 2\n" + "+" * 2000 + "@S!@S!@S!@SS7+@DO"
    rt = runtime()
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        with pytest.raises(ZylaError) as e:
            rt.run_source(text, "deep.jl")
    finally:
        sys.setrecursionlimit(old)
    assert e.value.kind == "StackOverflowError" and e.value.span.line == 2
    assert F.fuzz_one(text, runtime(), report=True) is None


def test_a_hang_is_a_finding() -> None:
    """The time limit works: a stage that does not finish is reported, not waited for."""
    import time

    with pytest.raises(F._Timeout):
        with F.time_limit(0.2):
            time.sleep(5)


def test_cli_shows_no_traceback(tmp_path: Path) -> None:
    """The real `zyla run` on a few fuzzed files: exit 0 or 1, never a traceback."""
    cmd = command()
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG",)}
    env.update(JAX_PLATFORMS="cpu", ZYLA_COMPILE="never")
    samples: list[str] = []

    @settings(max_examples=3, **_SETTINGS)
    @given(F.inputs(TEXTS))
    def collect(text: str) -> None:
        samples.append(text)

    collect()
    paths = []
    for i, text in enumerate(samples + ["\x00\xff garbage", "function f(\n"]):
        p = tmp_path / f"fuzz{i}.jl"
        p.write_text(text, encoding="utf-8", errors="replace")
        paths.append(p)

    def run(p: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cmd + ["run", str(p)], capture_output=True, text=True,
                              timeout=60, env=env, errors="replace")

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, paths))
    for p, res in zip(paths, results, strict=True):
        assert res.returncode in (0, 1), (p.read_text(errors="replace"), res.stderr)
        assert "Traceback" not in res.stderr, res.stderr
        if res.returncode == 1:
            assert "ERROR:" in res.stderr, res.stderr


def test_the_file_gate_lets_no_fuzzed_program_out(tmp_path_factory: pytest.TempPathFactory,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Programs of random reads and writes (`read`, `readlines`, `readdlm`, `include`,
    `isfile`, `mkdir`, `mkpath`, `savefig`) with paths drawn from pieces that attackers
    use (`..`, links out, hidden names, `~`, `bin`, `.pth`, `/proc`, `/dev/zero`): none
    reads a secret outside the allowed folders, changes anything outside the current
    folder's tree or writes a hidden or executed file inside it, fails internally or
    hangs."""
    root = tmp_path_factory.mktemp("gate")
    work = F.gate_sandbox(root)
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(root / "home"))
    caches = tmp_path_factory.mktemp("caches")  # Zyla's own caches, outside the sandbox
    monkeypatch.setenv("XDG_CACHE_HOME", str(caches / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(caches / "config"))
    rt = Runtime()
    rt.compile_mode = "never"

    @settings(max_examples=60, **_SETTINGS)
    @given(F.gate_programs(root))
    def check(text: str) -> None:
        finding = F.gate_check(text, rt, root)
        assert finding is None, str(finding)

    check()
