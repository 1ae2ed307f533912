"""Fuzz the lexer, parser, lowering, IR verifier, interpreter and the CLI's error reports.

    python scripts/fuzz.py N [--jobs J] [--seed S] [--run-every K] [--show K]
    python scripts/fuzz.py N --atheris          # coverage-guided, one process (if installed)

Draws N inputs with hypothesis (lang.door.fuzzing: random bytes, random text, random token
sequences, mutations of the acceptance files and examples) and pushes each through
parsing, lowering and IR verification; every K-th one (default 5) that lowers also runs,
once hypothesis has drawn them all, on the host interpreter (1 s limit; compiling is
off, `ZYLA_COMPILE=never`), and every error goes through the CLI's error report. Prints
the counts and every finding (an internal exception, invalid IR, a hang, a traceback in
a report); exit status 1 if there was any. Each worker process has a memory limit, so a
program that allocates without bound ends in an OutOfMemory error.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MEMORY_LIMIT = 6 << 30  # bytes of address space per worker


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass


def _worker(job: tuple[int, int, int, int]) -> tuple[dict, list[str]]:
    index, count, seed, run_every = job
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["ZYLA_COMPILE"] = "never"  # (each Runtime reads it: host interpreter only)
    os.environ["ZYLA_COMPILE_NOTICE"] = "-1"
    _limit_memory()
    sys.setrecursionlimit(20000)
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from lang.door import fuzzing as F
    from lang.door.wiring import Runtime

    texts = F.corpus()
    stats = F.Stats()
    findings: list[str] = []
    rt = Runtime()
    to_run: list[str] = []

    @hseed(seed * 100_003 + index)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(F.inputs(texts))
    def one(text: str) -> None:
        run = run_every > 0 and stats.inputs % run_every == 0
        lowered = stats.lowered
        try:
            f = F.fuzz_one(text, rt, report=True, stats=stats)
        except MemoryError:
            return
        if f is not None:
            findings.append(str(f))
        elif run and stats.lowered > lowered:
            to_run.append(text)

    one()
    # the programs run after hypothesis has drawn them all, not inside its test: a program
    # may use hypothesis itself (`@gradcheck`), which cannot run nested in another test
    for k, text in enumerate(to_run):
        if k % 100 == 99:  # a fresh runtime now and then (programs define things)
            rt = Runtime()
        try:
            f = F.run_one(text, rt, 1.0, stats, report=True)
        except MemoryError:
            rt = Runtime()
            continue
        if f is not None:
            findings.append(str(f))
    return asdict(stats), findings


def _atheris(n: int) -> int:
    try:
        import atheris
    except ImportError:
        print("atheris is not installed (pip install atheris)", file=sys.stderr)
        return 2
    with atheris.instrument_imports():
        from grammar import lexer, parser  # noqa: F401  (instrumented)
        from lang.door import fuzzing as F
    found: list[str] = []
    done = [0]

    def test_one(data: bytes) -> None:
        f = F.fuzz_one(data.decode("utf-8", "replace"), limit=5.0)
        if f is not None:
            found.append(str(f))
            print(f, flush=True)
        done[0] += 1
        if done[0] == n:  # libFuzzer exits the process itself after the last run
            print(f"atheris: {n} runs, {len(found)} findings", flush=True)

    atheris.Setup([sys.argv[0], f"-runs={n}", "-max_len=512"], test_one)
    atheris.Fuzz()
    return 1 if found else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of inputs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--run-every", type=int, default=5,
                    help="also run every K-th input on the interpreter (0: never)")
    ap.add_argument("--show", type=int, default=20, help="findings to print")
    ap.add_argument("--atheris", action="store_true", help="coverage-guided fuzzing with atheris")
    args = ap.parse_args(argv)
    if args.atheris:
        return _atheris(args.n)
    chunk = max(1, min(2000, -(-args.n // (4 * max(1, args.jobs)))))
    jobs = [(i, min(chunk, args.n - i * chunk), args.seed, args.run_every)
            for i in range((args.n + chunk - 1) // chunk)]
    t0 = time.time()
    total: dict[str, int] = {}
    findings: list[str] = []
    ctx = mp.get_context("spawn")
    with ctx.Pool(max(1, args.jobs), maxtasksperchild=2) as pool:
        for stats, found in pool.imap_unordered(_worker, jobs):
            for k, v in stats.items():
                total[k] = total.get(k, 0) + v
            findings.extend(found)
            print(f"  {total['inputs']} inputs, {len(findings)} findings "
                  f"({time.time() - t0:.0f} s)", flush=True)
    print(f"\n{total.get('inputs', 0)} fuzz inputs in {time.time() - t0:.0f} s "
          f"({args.jobs} processes)")
    for key in ("parsed", "lowered", "ran", "run_timeouts", "reported"):
        print(f"  {key:14} {total.get(key, 0)}")
    print(f"  {'findings':14} {len(findings)}")
    seen: set[str] = set()
    for f in findings:
        head = f.splitlines()[0]
        if head in seen or len(seen) >= args.show:
            continue
        seen.add(head)
        print("\n" + f[:2000])
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
