"""Several processes (`zyla run --processes P`, backend/distributed.py, lang/door/processes.py)
on JAX's distributed runtime with the CPU's gloo collectives, on this machine.

A data-parallel training program run as 2 processes × 2 devices gives the loss, the
gradient and five Adam steps of the same program on one device (to Float32 rounding), its
mesh spans the four devices of both processes and its step's HLO holds the all-reduce; a job
whose process is killed mid-run ends, with an error naming that process, within 60 s;
the options of a job another launcher started are checked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """
using Flux
Random.seed!(7)
model = Chain(Dense(4 => 8, tanh), Dense(8 => 2))
x = Zyla.shard_batch(randn(Float32, 4, 8))
y = Zyla.shard_batch(randn(Float32, 2, 8))
loss(m, x, y) = Flux.mse(m(x), y)
opt = Flux.setup(Adam(0.01), model)
println("devices ", Zyla.ndevices(), " ", Zyla.nprocesses())
g = gradient(m -> loss(m, x, y), model)[1]
println("loss0 ", loss(model, x, y))
println("grad ", sum(g.layers[1].weight), " ", sum(g.layers[2].bias))
function step!(m, opt, x, y)
    l, gs = Flux.withgradient(mm -> loss(mm, x, y), m)
    Flux.update!(opt, m, gs[1])
    l
end
for i in 1:5
    println("step ", step!(model, opt, x, y))
end
println("w ", sum(model.layers[1].weight), " ", sum(model.layers[2].weight))
@code_hlo step!(model, opt, x, y)
"""


def zyla(*args: str, timeout: int = 240) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_COMPILE", "XLA_FLAGS")}
    return subprocess.run([sys.executable, "-m", "lang.door.cli", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


def numbers(out: str) -> dict[str, list[float]]:
    got = {}
    for line in out.splitlines():
        key, *vals = line.split() or [""]
        if key in ("loss0", "grad", "step", "w"):
            got.setdefault(key, []).extend(float(v) for v in vals)
    return got


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("dist") / "train.jl"
    p.write_text(PROGRAM)
    return p


def test_two_processes_of_two_devices_train_as_one_device(program: Path) -> None:
    one = zyla("run", str(program))
    assert one.returncode == 0, one.stderr[-3000:]
    job = zyla("run", "--processes", "2", "--devices", "2", str(program))
    assert job.returncode == 0, job.stderr[-3000:]
    assert "devices 1 1" in one.stdout
    assert "devices 4 2" in job.stdout  # the mesh spans both processes' devices
    assert job.stdout.count("loss0") == 1  # only process 0 prints
    assert "all-reduce" in job.stdout  # the gradient's sum over the batch spans processes
    a, b = numbers(one.stdout), numbers(job.stdout)
    assert a.keys() == b.keys() == {"loss0", "grad", "step", "w"}
    for k in a:
        assert len(a[k]) == len(b[k])
        for u, v in zip(a[k], b[k], strict=True):
            assert v == pytest.approx(u, rel=1e-5, abs=1e-6), (k, a[k], b[k])


def test_a_killed_process_ends_the_job_with_an_error(tmp_path: Path) -> None:
    prog = tmp_path / "long.jl"
    prog.write_text('x = Zyla.shard_batch(randn(4, 8))\nf(x) = sum(x .^ 2)\n'
                    'println("ready")\nfor i in 1:10^9\n    f(x)\nend\n')
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_COMPILE", "XLA_FLAGS")}
    job = subprocess.Popen([sys.executable, "-m", "lang.door.cli", "run", "--processes", "2",
                            "--devices", "2", str(prog)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert job.stdout is not None
    assert job.stdout.readline().strip() == "ready"
    victim = _process_of(prog, 1)
    os.kill(victim, signal.SIGKILL)
    t0 = time.monotonic()
    try:
        _, err = job.communicate(timeout=60)
    finally:
        job.kill()
    assert time.monotonic() - t0 < 60
    assert job.returncode == 1
    assert "ERROR: process 1 of 2 was killed" in err
    assert _process_of(prog, 0, missing_ok=True) is None  # the other one was stopped


def _process_of(prog: Path, index: int, missing_ok: bool = False) -> int | None:
    """The pid of the job's process `index` running `prog` (from /proc)."""
    for _ in range(200):
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                argv = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if str(prog).encode() in argv and b"--process-id" in argv:
                if argv[argv.index(b"--process-id") + 1] == str(index).encode():
                    return int(d.name)
        if missing_ok:
            return None
        time.sleep(0.05)
    raise AssertionError(f"process {index} of the job not found")


@pytest.mark.parametrize("args, says", [
    (["--coordinator", "localhost:1", "run", "x.jl"], "go together"),
    (["--coordinator", "localhost:1", "--process-id", "2", "--num-processes", "2", "run",
      "x.jl"], "less than"),
    (["--processes", "0", "run", "x.jl"], "positive number of processes"),
])
def test_job_options_are_checked(args: list[str], says: str) -> None:
    r = zyla(*args, timeout=60)
    assert r.returncode != 0 and says in r.stderr + r.stdout


MODEL_PARALLEL = """
using Flux
Random.seed!(3)
W = randn(Float32, 8, 4)
b = zeros(Float32, 8)
V = randn(Float32, 2, 8)
Zyla.shard(W, (:model, nothing))
Zyla.shard(V, (nothing, :model))
x = Zyla.shard_batch(randn(Float32, 4, 6))
loss(W, b, V, x) = sum(abs2, V * tanh.(W * x .+ b))
g = gradient(loss, W, b, V, x)
println("devices ", Zyla.ndevices())
println("loss0 ", loss(W, b, V, x))
println("grad ", sum(g[1]), " ", sum(abs, g[1]), " ", sum(g[3]), " ", sum(abs, g[3]))
@code_hlo loss(W, b, V, x)
"""


def test_a_weight_split_over_the_model_axis_has_the_one_device_gradient(
        tmp_path: Path) -> None:
    """A 2-D mesh (`--devices 4 --model 2`: batch 2 × model 2): W's rows and V's columns
    split over `model`, x's batch over `batch`; the partitioned executable holds each
    device's quarter or half (its parameters' shapes), and loss and gradients are the
    one-device ones."""
    prog = tmp_path / "mp.jl"
    prog.write_text(MODEL_PARALLEL)
    one = zyla("run", str(prog))
    two = zyla("run", "--devices", "4", "--model", "2", str(prog))
    assert one.returncode == 0 and two.returncode == 0, two.stderr[-3000:]
    assert "devices 4" in two.stdout
    entry = next(ln for ln in two.stdout.splitlines() if ln.startswith("ENTRY"))
    # W (8×4) split along its first dimension by 2 → numpy [4, 4]; V (2×8) along its
    # second → [4, 2]; x (4×6) along the batch by 2 → [3, 4]
    for shape in ("f32[4,4]", "f32[4,2]", "f32[3,4]"):
        assert shape in entry, entry
    a, b = numbers(one.stdout), numbers(two.stdout)
    for k in ("loss0", "grad"):
        for u, v in zip(a[k], b[k], strict=True):
            assert v == pytest.approx(u, rel=1e-5, abs=1e-5), (k, a[k], b[k])


def test_a_split_that_does_not_divide_names_the_array_and_dimension(tmp_path: Path) -> None:
    prog = tmp_path / "bad.jl"
    prog.write_text("W = Zyla.shard(randn(3, 4), (:model, nothing))\n"
                    "f(W) = sum(W .^ 2)\nprintln(f(W))\n")
    r = zyla("run", "--devices", "4", "--model", "2", str(prog))
    assert r.returncode == 1
    assert "dimension 1 of a 3×4 array (3) must be divisible by the number of devices " \
           "along `model` (2)" in r.stderr


@pytest.mark.parametrize("process_id, says", [
    ("1", "cannot reach the job's coordinator at localhost:"),
    ("0", "the job did not start: 2 processes were to join at localhost:"),
])
def test_a_job_that_does_not_come_together_ends_with_an_error(
        tmp_path: Path, process_id: str, says: str) -> None:
    """No coordinator to reach (process 1), or a peer that never comes (process 0): a
    clear error within the join timeout, not JAX's abort with a C++ stack trace."""
    import socket

    with socket.socket() as s:  # (a port nothing listens on)
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    prog = tmp_path / "one.jl"
    prog.write_text("println(1)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_COMPILE", "XLA_FLAGS")}
    env["ZYLA_JOIN_TIMEOUT"] = "3"
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "lang.door.cli", "--coordinator",
                        f"localhost:{port}", "--process-id", process_id, "--num-processes", "2",
                        "run", str(prog)], capture_output=True, text=True, timeout=60,
                       cwd=ROOT, env=env)
    assert time.monotonic() - t0 < 30
    assert r.returncode == 1 and says in r.stderr, r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "stack trace" not in r.stderr


CHECKPOINT_SAVE = """
using Flux, JLD2
Random.seed!(7)
model = Chain(Dense(4 => 8, tanh), Dense(8 => 2))
x = Zyla.shard_batch(randn(Float32, 4, 8))
y = Zyla.shard_batch(randn(Float32, 2, 8))
loss(m, x, y) = Flux.mse(m(x), y)
opt = Flux.setup(Adam(0.01), model)
for i in 1:3
    g = gradient(m -> loss(m, x, y), model)[1]
    Flux.update!(opt, model, g)
end
jldsave("ckpt.jld2"; model_state = Flux.state(model), opt_state = opt)
println("loss0 ", loss(model, x, y))
"""

CHECKPOINT_LOAD = """
using Flux, JLD2
Random.seed!(7)
model = Chain(Dense(4 => 8, tanh), Dense(8 => 2))
x = randn(Float32, 4, 8)
y = randn(Float32, 2, 8)
loss(m, x, y) = Flux.mse(m(x), y)
Flux.loadmodel!(model, JLD2.load("ckpt.jld2", "model_state"))
opt = JLD2.load("ckpt.jld2", "opt_state")
println("loss0 ", loss(model, x, y))
g = gradient(m -> loss(m, x, y), model)[1]
Flux.update!(opt, model, g)
println("step ", loss(model, x, y))
"""


def test_a_checkpoint_of_a_job_restores_on_one_process(tmp_path: Path) -> None:
    """Model and Adam state saved by a 2-process job (only process 0 writes the file)
    load in a one-process run: the same loss, and the next step goes on as a one-device
    run's fourth step would (the same seed and data)."""
    (tmp_path / "save.jl").write_text(CHECKPOINT_SAVE)
    (tmp_path / "load.jl").write_text(CHECKPOINT_LOAD)
    (tmp_path / "four.jl").write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_COMPILE", "XLA_FLAGS")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "lang.door.cli", *args],
                              capture_output=True, text=True, timeout=240, cwd=tmp_path,
                              env=env)

    job = run("run", "--processes", "2", "--devices", "2", "save.jl")
    assert job.returncode == 0, job.stderr[-3000:]
    assert [p.name for p in tmp_path.glob("*.jld2")] == ["ckpt.jld2"]
    back = run("run", "load.jl")
    assert back.returncode == 0, back.stderr[-3000:]
    saved, loaded = numbers(job.stdout), numbers(back.stdout)
    assert loaded["loss0"][0] == pytest.approx(saved["loss0"][0], rel=1e-6)
    one = numbers(run("run", "four.jl").stdout)  # steps 1-5 on one device
    assert loaded["step"][0] == pytest.approx(one["step"][4], rel=1e-5)


LOCAL_BATCH = """
using Flux
Random.seed!(7)
model = Chain(Dense(4 => 8, tanh), Dense(8 => 2))
X = randn(Float32, 4, 8)
Y = randn(Float32, 2, 8)
xl, yl = Zyla.process_part((X, Y))
x = Zyla.local_batch(xl)
y = Zyla.local_batch(yl)
println("local ", size(xl, 2), " of ", size(x, 2))
loss(m, x, y) = Flux.mse(m(x), y)
opt = Flux.setup(Adam(0.01), model)
function step!(m, opt, x, y)
    l, gs = Flux.withgradient(mm -> loss(mm, x, y), m)
    Flux.update!(opt, m, gs[1])
    l
end
for i in 1:5
    println("step ", step!(model, opt, x, y))
end
"""


def test_each_process_holds_its_part_of_the_batch(tmp_path: Path) -> None:
    """`Zyla.process_part` gives each process its block of the observations and
    `Zyla.local_batch` makes the parts one batch of the job (its value is the whole batch):
    five Adam steps equal the one-process run on the whole batch."""
    prog = tmp_path / "local.jl"
    prog.write_text(LOCAL_BATCH)
    one = zyla("run", str(prog))
    job = zyla("run", "--processes", "2", "--devices", "2", str(prog))
    assert one.returncode == 0 and job.returncode == 0, job.stderr[-3000:]
    assert "local 8 of 8" in one.stdout and "local 4 of 8" in job.stdout
    a, b = numbers(one.stdout)["step"], numbers(job.stdout)["step"]
    assert len(a) == len(b) == 5
    for u, v in zip(a, b, strict=True):
        assert v == pytest.approx(u, rel=1e-5)


LOCAL_BATCH_ON_THE_HOST = """
X = reshape(collect(1.0:16.0), 2, 8)
x = Zyla.local_batch(Zyla.process_part(X))
compiled(x) = sum(x .* 1.0)
host(x) = (println("on the host"); sum(x))
println("sums ", compiled(x), " ", host(x), " ", sum(x), " ", sum(x .+ 0))
println("size ", size(x), " ", length(x), " ", x[1], " ", x[end])
println(x)
twice(v) = sum(Zyla.local_batch(v) .* 2)
println("inside ", twice(X[:, 1:4] .+ 8 * Zyla.process_index()))
println("grad ", gradient(v -> sum(Zyla.local_batch(v) .^ 2), Zyla.process_part(X))[1])
Zyla.local_batch(ones(2 + Zyla.process_index()))
"""


def test_a_local_batch_is_the_whole_batch_on_the_host_too(tmp_path: Path) -> None:
    """`Zyla.local_batch(part)` is the job's whole batch to host code as to compiled code
    (issue 16: a call the tiering policy ran on the host, printing, size and broadcasting
    saw the process's half: 36.0 where a compiled call gave 136.0); the gradient for a
    part is its block; parts of different sizes are a DimensionMismatch at their line."""
    prog = tmp_path / "lb.jl"
    prog.write_text(LOCAL_BATCH_ON_THE_HOST)
    job = zyla("run", "--processes", "2", "--devices", "1", str(prog), timeout=120)
    out = job.stdout
    assert "on the host\nsums 136.0 136.0 136.0 136.0\n" in out, job.stderr[-3000:]
    assert "size (2, 8) 16 1.0 16.0\n" in out
    assert "[1.0 3.0 5.0 7.0 9.0 11.0 13.0 15.0; 2.0 4.0 6.0 8.0 10.0 12.0 14.0 16.0]" in out
    assert "inside 272.0\n" in out
    assert "grad [2.0 6.0 10.0 14.0; 4.0 8.0 12.0 16.0]" in out  # process 0's block
    assert job.returncode == 1
    assert ("DimensionMismatch: Zyla.local_batch: the processes' parts of a batch must have "
            "one size and element type, got 2-element Vector{Float64} on process 0, "
            "3-element Vector{Float64} on process 1") in job.stderr
    assert "lb.jl:12" in job.stderr and "Traceback" not in job.stderr


PROCESS_VALUES = """
p = Zyla.process_index()
v = [1.0, 5.0, 2.0, 8.0] .+ 10p
big = collect(1.0:2000.0) .* (p + 1)
t = Float64[]
for i in 1:5
    t0 = time()
    push!(t, time() - t0 + p)
end
@assert median(v) == 3.5 + 10p
@assert sum(big) == 2001000.0 * (p + 1)
@assert p <= median(t) < p + 1
println("median ", median(v), " sum ", sum(big))
x = Zyla.shard_batch(randn(4, 8))
f(x, w) = sum(x) + sum(w)
println("same ", f(x, ones(2000)) - sum(x))
f(x, big)
"""


def test_values_of_each_process_compute_in_that_process(tmp_path: Path) -> None:
    """Top-level calls on vectors each process computed on its own (a timing, one of
    `Zyla.process_index()`) split no array: each process gets its own median and sum (the
    `@assert`s run in both). Such a vector given to a call with a split array is an
    ArgumentError at its line, not JAX's assertion as an InternalError (issue 16)."""
    prog = tmp_path / "local.jl"
    prog.write_text(PROCESS_VALUES)
    job = zyla("run", "--processes", "2", "--devices", "1", str(prog), timeout=120)
    assert "median 3.5 sum 2.001e6" in job.stdout, job.stderr[-3000:]
    assert "same 2000.0" in job.stdout
    assert job.returncode == 1
    assert ("ArgumentError: a 2000-element Vector{Float64} given to a call over the job's "
            "processes") in job.stderr
    assert "local.jl:17" in job.stderr and "InternalError" not in job.stderr
