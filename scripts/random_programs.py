"""Differential testing with random programs: host = compiled = finite differences = jax.grad.

    python scripts/random_programs.py N [--jobs J] [--seed S] [--compiled-every K]
                                        [--show K] [--known-bugs]

Draws N random well-typed Zyla programs (lang.door.randprog) and runs each one on the host
interpreter (value and gradient), checks its gradient against central finite differences
and, for programs without `while`, its value and gradient against `jax.value_and_grad`
of the lowered primal; every K-th program (default: all) also runs as one compiled XLA
executable of `withgradient` (value and gradient), compared with the host. Prints the
counts per outcome and up to `--show` examples of each disagreement (as Zyla source).
Exit status 1 if any program disagreed. J worker processes (default: the number of
CPUs) each check a share of the programs.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

AGREE = ("agree", "skipped")


def _worker(job: tuple[int, int, int, int, bool]) -> tuple[collections.Counter, list]:
    """Check `count` programs drawn from seed `seed`, every `compiled_every`-th one also
    compiled (0: none); (counts, disagreements)."""
    index, count, seed, compiled_every, known_bugs = job
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["ZYLA_COMPILE_NOTICE"] = "-1"
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from lang.door import randprog as R
    from lang.door.wiring import Runtime

    rt = Runtime()
    counts: collections.Counter = collections.Counter()
    bad: list = []

    @hseed(seed * 1000 + index)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(R.programs(known_bugs=known_bugs))
    def run(prog: R.Program) -> None:
        compiled = compiled_every > 0 and counts["programs"] % compiled_every == 0
        try:
            out = R.check(rt, prog, compiled=compiled)
        except Exception as e:  # an internal error is a finding, not the end of the batch
            out = R.Outcome("crash", f"{type(e).__name__}: {e}")
        counts["programs"] += 1
        counts[out.status] += 1
        counts["with while"] += prog.has_while
        counts["compiled"] += out.compiled
        counts["jax.grad oracle"] += out.oracle
        if out.status not in AGREE:
            bad.append((out.status, prog.source, prog.call_source(), out.detail[:400]))

    run()
    return counts, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of programs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compiled-every", type=int, default=1, metavar="K",
                    help="compile every K-th program (0: none; compiling costs ~2 s a program)")
    ap.add_argument("--show", type=int, default=3, help="examples shown per disagreement")
    ap.add_argument("--known-bugs", action="store_true",
                    help="also draw constructs that hit known bugs (lang.door.randprog.KNOWN_BUGS)")
    args = ap.parse_args(argv)
    # programs per task (a fresh hypothesis run, with its own seed, each)
    chunk = max(1, min(100, -(-args.n // (4 * max(1, args.jobs)))))
    jobs = [(i, min(chunk, args.n - i * chunk), args.seed, args.compiled_every, args.known_bugs)
            for i in range((args.n + chunk - 1) // chunk)]
    t0 = time.time()
    total: collections.Counter = collections.Counter()
    bad: list = []
    ctx = mp.get_context("spawn")
    with ctx.Pool(max(1, args.jobs), maxtasksperchild=10) as pool:
        for counts, b in pool.imap_unordered(_worker, jobs):
            total.update(counts)
            bad.extend(b)
            print(f"  {total['programs']} programs, {len(bad)} disagreements "
                  f"({time.time() - t0:.0f} s)", flush=True)
    print(f"\n{total['programs']} random programs in {time.time() - t0:.0f} s "
          f"({args.jobs} processes)")
    for key in ("agree", "skipped", "with while", "compiled", "jax.grad oracle"):
        print(f"  {key:18} {total[key]}")
    kinds = collections.Counter(s for s, *_ in bad)
    print(f"  {'disagreements':18} {len(bad)}" + (f"  {dict(kinds)}" if bad else ""))
    shown: collections.Counter = collections.Counter()
    for status, src, call, detail in bad:
        if shown[status] >= args.show:
            continue
        shown[status] += 1
        print(f"\n--- {status}: {detail}\n{src}{call}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
