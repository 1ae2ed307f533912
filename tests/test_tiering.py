"""The tiering policy (backend.tiering): calls of Zyla functions made at any depth of
host-run code may run compiled — inside functions, `@elapsed` blocks, comprehensions and
loops — cold ones stay on the interpreter, and a host call that runs long without an
effect is restarted compiled. Every test compares with the interpreter alone
(`compile_mode = "never"`), the reference semantics."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from backend import tiering
from grammar.errors import ZylaError
from lang.core import interp as core_interp
from lang.door.api import Zyla

ROOT = Path(__file__).resolve().parent.parent


def builds(z: Zyla) -> int:
    cache = getattr(z.rt, "compile_cache", None)
    return cache.builds if cache is not None else 0


def run_both(src: str, names: list[str]) -> tuple[Zyla, list, list]:
    """Run `src` with the policy and on the interpreter alone; the values of `names`."""
    tiered = Zyla()
    tiered.eval(src)
    host = Zyla()
    host.rt.compile_mode = "never"
    host.eval(src)
    return tiered, [tiered.eval(n) for n in names], [host.eval(n) for n in names]


def decided(z: Zyla, fname: str, verdict: str) -> list[str]:
    return [d for d in tiering.decisions(z.rt) if d.startswith(fname + "(") and verdict in d]


# --- @elapsed and @time are blocks -----------------------------------------------------------

def test_elapsed_is_a_block_not_a_scope() -> None:
    z = Zyla()
    z.eval("""
function f()
    t = @elapsed begin
        s = 0.0
        for i in 1:10
            s += i
        end
    end
    (s, t)
end
t2 = @elapsed r = 40 + 2
u = f()
""")
    assert z.eval("r") == 42
    s, t = z.eval("u")
    assert s == 55.0 and 0.0 <= t < 10.0
    assert 0.0 <= z.eval("t2") < 10.0


def test_time_prints_and_returns_the_value(capsys: pytest.CaptureFixture) -> None:
    z = Zyla()
    z.eval("v = @time w = 2 * 21\n")
    assert z.eval("v") == 42 and z.eval("w") == 42
    out = capsys.readouterr().out
    assert out.strip().endswith("seconds")  # (nothing compiled: no compilation share)


def test_time_reports_the_share_spent_compiling(capsys: pytest.CaptureFixture) -> None:
    """As Julia's `@time`: a first call that builds an executable reports the percentage of
    its time spent compiling; the second call of the same signature reports none."""
    z = Zyla()
    z.eval("f(x) = sum(x .* 2.5)\nx = collect(1.0:64.0)\n")
    z.eval("@time f(x)\n")
    first = capsys.readouterr().out.strip()
    z.eval("@time f(x)\n")
    second = capsys.readouterr().out.strip()
    share = float(first.split("(")[1].split("%")[0])
    assert first.endswith("% compilation time)") and 50.0 < share <= 100.0, first
    assert second.endswith("seconds"), second


# --- offload at depth ----------------------------------------------------------------------

STEP = """
W = reshape(collect(1.0:90000.0) ./ 90000.0, 300, 300)
x = collect(1.0:300.0) ./ 300.0
step(W, x) = W .- 0.01 .* (W * x) * x'
function train(W, n)
    losses = Float64[]
    for i in 1:n
        W = step(W, x)
        push!(losses, sum(W))
    end
    W, losses
end
Wn, losses = train(W, 3)
"""


def test_a_big_call_inside_a_host_function_runs_compiled() -> None:
    z, got, want = run_both(STEP, ["Wn", "losses"])
    assert decided(z, "step", "compile (array work")
    # push! into a host vector: train stays on the host, known before any trace
    assert decided(z, "train", "host (a loop changes the length of an array it carries")
    assert "train" not in z.rt.offload_reasons
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)


def test_calls_in_elapsed_comprehensions_and_do_blocks_run_compiled() -> None:
    src = """
A = reshape(collect(1.0:65536.0), 256, 256) ./ 65536.0
work() = sum(A * A)
function timed()
    t = @elapsed v = work()
    v
end
a = timed()
b = [work() for i in 1:2]
c = Float64[]
foreach([1, 2]) do i
    push!(c, work() + i)
end
"""
    z, got, want = run_both(src, ["a", "b", "c"])
    assert decided(z, "work", "compile (array work")
    assert builds(z) == 1  # one signature, one executable, whatever the depth
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)


def test_a_function_of_no_arguments_reading_global_arrays_compiles_at_top_level() -> None:
    z = Zyla()
    z.eval("X = ones(100, 100)\ntotal() = sum(X .* 2.0)\nv = total()\n")
    assert z.eval("v") == 20000.0
    assert decided(z, "total", "compile (array work")


def test_cold_small_calls_at_depth_stay_on_the_interpreter() -> None:
    z = Zyla()
    z.eval("""
g(v) = v .+ 1.0
function outer()
    s = 0.0
    for i in 1:3
        s += sum(g([1.0, 2.0, 3.0]))
    end
    s
end
r = outer()
""")
    assert z.eval("r") == 27.0
    assert builds(z) == 0


def test_a_repl_style_one_liner_compiles_nothing() -> None:
    z = Zyla()
    assert z.eval("1 + 1") == 2
    z.eval("h(x) = x * 2\n")
    assert z.eval("h(3.0)") == 6.0
    assert builds(z) == 0


def test_recursion_is_not_offloaded() -> None:
    z, got, want = run_both("fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)\nr = fib(18)\n", ["r"])
    assert got == want == [2584]
    assert builds(z) == 0


def test_never_mode_runs_everything_on_the_host() -> None:
    z = Zyla()
    z.rt.compile_mode = "never"
    z.eval(STEP)
    assert builds(z) == 0


# --- hot and long calls ---------------------------------------------------------------------

HOT = """
function wiggle(a)
    s = a
    for i in 1:2000
        s = s + sin(s) * 0.001
    end
    s
end
function driver(n)
    t = 0.0
    for k in 1:n
        t += wiggle(k * 0.1)
    end
    t
end
r = driver(40)
"""


def test_a_hot_function_compiles_after_some_interpreted_calls(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiering, "LONG_SECONDS", 1e9)  # the hot rule alone
    # (40 calls of 2000 steps take ~40 ms on the translated host code: a lower bar than
    # the policy's, so that the rule is what this test sees)
    monkeypatch.setattr(tiering, "HOT_SECONDS", 0.002)
    z, got, want = run_both(HOT, ["r"])
    hot = decided(z, "wiggle", "compile (hot:")
    assert hot, tiering.decisions(z.rt)
    assert builds(z) == 1  # a Float64 argument is a run-time input: one executable
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-12)


LONG = """
function slow(w)
    s = 0.0
    @sequential for i in 1:30000
        s += sin(w * i) / i
    end
    s
end
r = slow(0.5)
g = gradient(slow, 0.25)[1]
"""


def test_a_long_host_call_is_restarted_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    # (30000 steps take ~15 ms on the translated host code: shorter than the policy's
    # bars, which are lowered here so that the restart is what this test sees)
    monkeypatch.setattr(tiering, "LONG_SECONDS", 0.003)
    monkeypatch.setattr(tiering, "COMPILE_SECONDS", 0.0)
    monkeypatch.setattr(tiering, "JAX_IMPORT_SECONDS", 0.0)
    z, got, want = run_both(LONG, ["r", "g"])
    assert decided(z, "slow", "restarted")
    assert decided(z, "gradient", "restarted")
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_a_call_with_an_effect_is_not_restarted(capsys: pytest.CaptureFixture) -> None:
    z = Zyla()
    z.eval("""
log = Float64[]
function noisy(w)
    println("start")
    push!(log, w)
    s = 0.0
    for i in 1:30000
        s += sin(w * i) / i
    end
    s
end
r = noisy(0.5)
""")
    assert capsys.readouterr().out == "start\n"  # printed once: the call was not replayed
    assert list(z.eval("log")) == [0.5]
    assert not decided(z, "noisy", "restarted")


def test_a_restart_passes_through_the_users_try() -> None:
    z, got, want = run_both("""
function guarded(w)
    try
        s = 0.0
        for i in 1:30000
            s += sin(w * i) / i
        end
        s
    catch e
        -1.0
    end
end
r = guarded(0.5)
""", ["r"])
    np.testing.assert_allclose(got, want, rtol=1e-9)


# --- differential: random inputs, calls at depth and restarts in the mix ---------------------

MIX = """
function inner(v, k)
    s = 0.0
    for i in 1:k
        s += v[(i - 1) % length(v) + 1] * i
    end
    s
end
outer(v, k) = inner(v, k) + sum(inner(v .* j, k) for j in 1:2)
wrapper(v, k) = outer(v, k)
"""


@settings(max_examples=8, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-10, 10, allow_subnormal=False), min_size=1, max_size=6),
       st.integers(0, 3000))
def test_tiered_runs_equal_the_interpreter(vals: list[float], k: int) -> None:
    """`outer`'s calls at depth each compile; then, as a call at depth with little array
    work, `outer` runs on the host until the watch restarts it compiled."""
    v = np.array(vals)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tiering, "BIG_ELEMENTS", 1)  # every call at depth compiles
        z = Zyla()
        z.eval(MIX)
        at_depth = z.call("outer", v, k, tiered=True)
        assert builds(z) >= 1
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tiering, "LONG_SECONDS", 0.0)  # restarted at the first watch,
        mp.setattr(tiering, "COMPILE_SECONDS", 0.0)  # however little is left
        mp.setattr(tiering, "JAX_IMPORT_SECONDS", 0.0)
        mp.setattr(core_interp, "TICKS", 64)
        z = Zyla()
        z.eval(MIX)
        restarted = z.call("wrapper", v, k, tiered=True)
        if k >= 64:
            assert decided(z, "outer", "restarted")
    host = Zyla()
    host.rt.compile_mode = "never"
    host.eval(MIX)
    want = host.call("outer", v, k)
    np.testing.assert_allclose(at_depth, want, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(restarted, want, rtol=1e-12, atol=1e-9)


# --- explaining -------------------------------------------------------------------------

def test_zyla_explain_env_prints_each_decision(tmp_path: Path) -> None:
    prog = tmp_path / "p.jl"
    prog.write_text("A = ones(300, 300)\nwork() = sum(A)\nf() = work()\nprintln(f())\n")
    env = {"ZYLA_EXPLAIN": "1", "ZYLA_XLA_CACHE": "off", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "lang.door.cli", "run", str(prog)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "90000.0"
    assert "zyla tier: work() in f: compile (array work: at least 65,536 elements)" in out.stderr


def test_loop_progress_of_a_nest() -> None:
    # (entries: iterations done, trip count, start time)
    assert core_interp.loop_progress([[1, 2, 0.0], [5, 10, 0.0]]) == 0.75  # 1 of 2, half
    assert core_interp.loop_progress([[0, 4, 0.0]]) == 0.0
    assert core_interp.loop_progress([[3, 4, 0.0], [0, -1, 0.0]]) is None  # a while inside


def test_time_left_counts_from_the_running_loops_start() -> None:
    """What ran before the running loop (another loop) does not make the estimate of
    what is left of this one larger; a loop without measurable progress is looked at
    again later (0.0: not restarted now)."""
    assert tiering._time_left([[1, 4, 10.0]], 10.5) == pytest.approx(1.5)
    assert tiering._time_left([[0, 4, 0.0]], 100.0) == 0.0
    assert tiering._time_left([[1, -1, 0.0]], 100.0) is None


def test_a_call_about_to_finish_is_not_restarted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiering, "LONG_SECONDS", 0.0)
    monkeypatch.setattr(tiering, "COMPILE_SECONDS", 1e9)  # compiling never pays off
    monkeypatch.setattr(core_interp, "TICKS", 64)
    z, got, want = run_both(LONG.split("g = ")[0], ["r"])
    assert not decided(z, "slow", "restarted")
    assert builds(z) == 0
    assert got == want


def test_zyla_explain_lists_where_the_calls_ran(tmp_path: Path) -> None:
    prog = tmp_path / "p.jl"
    prog.write_text("A = ones(300, 300)\nwork() = sum(A)\nf() = work()\nprintln(f())\n"
                    "g(x) = x + 1\nprintln(g(1))\n")
    env = {"ZYLA_XLA_CACHE": "off", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "lang.door.cli", "explain", str(prog)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[2:] == [
        "where the calls ran (each decision the first time it was made):",
        "  work() in f: compile (array work: at least 65,536 elements)"]


@settings(max_examples=10, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-10, 10, allow_subnormal=False), min_size=1, max_size=5),
       st.integers(0, 200))
def test_a_tuple_indexed_at_run_time_compiles(vals: list[float], k: int) -> None:
    """`t[i]` with i a loop variable: compiled (the elements stacked), equal to the host;
    past the end it is Julia's BoundsError, not a clamped read."""
    from backend.compile import compiled_call

    z = Zyla()
    z.eval(MIX)
    t = tuple(vals)
    got = compiled_call(z.rt, z.rt.lookup("inner"), [t, k])
    with z.rt.interp.host_only():
        want = z.rt.interp.call_value(z.rt.lookup("inner"), [t, k])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
    z.eval("function summed(v, k)\n s = 0.0\n for i in 1:k\n s += v[i]\n end\n s\nend\n")
    with pytest.raises(ZylaError, match="attempt to access"):
        compiled_call(z.rt, z.rt.lookup("summed"), [t, len(t) + 1])


# --- on-stack replacement of a long host loop ---------------------------------------------------

def quick_replacement(mp: pytest.MonkeyPatch) -> None:
    """Policy bars low enough that a loop of a few thousand steps is replaced."""
    mp.setattr(tiering, "LONG_SECONDS", 0.0)
    mp.setattr(tiering, "COMPILE_SECONDS", 0.0)
    mp.setattr(tiering, "JAX_IMPORT_SECONDS", 0.0)
    mp.setattr(core_interp, "TICKS", 64)


def replaced(z: Zyla, fname: str) -> list[str]:
    return [d for d in tiering.decisions(z.rt)
            if d.startswith(fname + ": the loop") and "replaced" in d]


OSR = """
function report(n, v)
    println("start ", n)
    s = 0.0
    c = 0
    for i in 1:n
        s += sin(0.1i) * v[(i - 1) % length(v) + 1]
        c += 1
    end
    k = 0
    x = 1.0
    while true
        k += 1
        x = x * 0.999 + 0.01
        if k >= n
            break
        end
    end
    t = 0.0
    for e in v
        t += e * e
    end
    (s, c, k, x, t)
end
"""


def test_a_long_loop_is_replaced_where_it_stands(capsys: pytest.CaptureFixture) -> None:
    """A call that printed cannot be restarted; its long loops (a `for` over a range, a
    `while` with `break`, a `for` over a vector) run the rest of their iterations
    compiled, and the call's result equals the interpreter's."""
    with pytest.MonkeyPatch.context() as mp:
        quick_replacement(mp)
        z = Zyla()
        z.eval(OSR + "v = collect(1.0:3000.0)\nr = report(3000, v)")
        got = z.eval("r")
        assert len(replaced(z, "report")) == 3, tiering.decisions(z.rt)
    assert capsys.readouterr().out == "start 3000\n"  # printed once: nothing replayed
    host = Zyla()
    host.rt.compile_mode = "never"
    host.eval(OSR + "v = collect(1.0:3000.0)\nr = report(3000, v)")
    want = host.eval("r")
    assert got[1:3] == want[1:3]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_loop_that_writes_into_an_array_stays_on_the_host() -> None:
    with pytest.MonkeyPatch.context() as mp:
        quick_replacement(mp)
        z = Zyla()
        z.eval("""
function fill_squares(x)
    println("go")
    s = 0
    @sequential for i in 1:length(x)
        x[i] = i * i
        s += i
    end
    s
end
x = zeros(2000)
r = fill_squares(x)
""")
        assert z.eval("r") == 2001000
        assert z.eval("x[2000]") == 4.0e6
        assert any("the loop" in d and "cannot compile" in d for d in tiering.decisions(z.rt))


@settings(max_examples=6, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.integers(0, 700), st.floats(-2, 2, allow_subnormal=False), st.integers(1, 9))
def test_replaced_loops_equal_the_interpreter(n: int, w: float, stop: int) -> None:
    """Wherever the replacement happens (every 64 steps here), the loop's results equal
    the interpreter's: carried tuples, integers, a `break` out of the middle."""
    src = f"""
function walk(n, w)
    println("")
    a = 0.0
    b = 0
    for i in 1:n
        a += cos(w * i)
        b += i % {stop}
        if b > 3 * i
            break
        end
    end
    acc = (0.0, 0)
    for i in 1:n
        x, y = acc
        acc = (x + sin(w * i), y + 1)
    end
    (a, b, acc...)
end
"""
    with pytest.MonkeyPatch.context() as mp:
        quick_replacement(mp)
        z = Zyla()
        z.eval(src)
        got = z.call("walk", n, w, tiered=True)
        if n >= 200:  # (the second loop at least; the first may break early)
            assert replaced(z, "walk"), tiering.decisions(z.rt)
    host = Zyla()
    host.rt.compile_mode = "never"
    host.eval(src)
    want = host.call("walk", n, w)
    assert (got[1], got[3]) == (want[1], want[3])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_hot_function_of_strings_and_integers_is_not_compiled() -> None:
    # (each new argument value would be a new executable: `split(line)` per line of a
    # word count was compiled eight times, 0.75 s of a 0.8 s count)
    z = Zyla()
    z.eval('words(s, k) = (n = 0; for i in 1:k; n += length(split(s)); end; n)\n'
           'function count_all()\n  t = 0\n  for j in 1:60\n'
           '    t += words(join(["w$(j)" for _ in 1:50], " "), 20)\n  end\n  t\nend\n'
           'r = count_all()')
    assert z.eval("r") == 60 * 20 * 50
    assert not decided(z, "words", "compile")
    assert builds(z) == 0
