"""The conformance suite (tests/conformance, lang/door/conformance.py): every ported
testset listed in tests/conformance/passing.txt still passes, and the runner counts a
testset that fails or errors as not passed while the file goes on.

`scripts/conformance.py --write` regenerates passing.txt and the table in docs/COVERAGE.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lang.door import conformance as C

PASSING = [k for k in (C.PASSING.read_text().splitlines() if C.PASSING.exists() else [])
           if k.strip()]
FILES = sorted({k.split(": ", 1)[0] for k in PASSING})
#: the files that run for most of a minute or more: their testsets are dealt out to this
#: many tests (each runs the file's statements between testsets, and every n-th testset),
#: so that one test does not hold a test process for minutes at the end of the suite
SPLIT = {"chainrules/arraymath.jl": 3, "julia/numbers.jl": 3, "zygote/gradcheck.jl": 2}
CASES = [(rel, k) for rel in FILES for k in range(SPLIT.get(rel, 1))]


@pytest.mark.parametrize(("rel", "share"), CASES,
                         ids=[f"{rel}#{k + 1}" if rel in SPLIT else rel for rel, k in CASES])
def test_ported_testsets_that_passed_still_pass(rel: str, share: int) -> None:
    # (only the testsets that passed: a failing one may run until the statement limit)
    mine = [k for k in PASSING if k.startswith(rel + ": ")][share::SPLIT.get(rel, 1)]
    result = C.run_file(C.SUITE_DIR / rel, only=set(mine))
    passed = {result.key(t.name) for t in result.testsets if t.passed}
    lost = [k for k in mine if k not in passed]
    why = {result.key(t.name): t.why for t in result.testsets if not t.passed}
    assert not lost, "\n".join(f"{k}\n  {why.get(k, 'not run (set-up error?)')}" for k in lost)


def test_the_runner_counts_each_testset_on_its_own(tmp_path: Path) -> None:
    suite = tmp_path / "demo"
    suite.mkdir()
    f = suite / "demo.jl"
    f.write_text('using Test\nx = [1, 2, 3]\n'
                 '@testset "passes" begin\n    @test sum(x) == 6\nend\n'
                 '@testset "fails" begin\n    @test 1 + 1 == 3\nend\n'
                 'y = undefined_name + 1\n'
                 '@testset "errors" begin\n    @test undefined_thing(1) == 2\nend\n'
                 '@testset "passes" begin\n    @test x[end] == 3\nend\n')
    r = C.run_file(f)
    assert [(t.name, t.passed) for t in r.testsets] == [
        ("passes", True), ("fails", False), ("errors", False), ("passes #2", True)]
    assert "Evaluated: 2 == 3" in r.testsets[1].why
    assert "undefined_thing" in r.testsets[2].why
    assert len(r.setup_errors) == 1 and "undefined_name" in r.setup_errors[0]
    assert C.summary([r]) == {"demo": (2, 4)}
