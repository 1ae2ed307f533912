"""Saving and loading (lang/core/saving.py): JLD2's, BSON's and FileIO's names over one
data-only format. Models and optimiser states round-trip (the loaded model computes what
the saved one did, and training goes on from the loaded state as from the saved one);
the file holds data only (no pickle; a crafted tree cannot name code to run); writing
goes through the permission gate; files Zyla did not write are refused with a clear error.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door.wiring import Runtime


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(src: str) -> object:
    return Runtime().run_source(src, "model.jl")


MODEL = """
using Flux, JLD2
Random.seed!(3)
model = Chain(Dense(3 => 4, relu), Dense(4 => 2))
opt = Flux.setup(Adam(0.01), model)
x = rand(Float32, 3, 5)
loss(m) = sum(abs2, m(x))
g = gradient(loss, model)[1]
Flux.update!(opt, model, g)
"""


def test_a_model_and_its_optimiser_state_round_trip(work: Path) -> None:
    out = run(MODEL + """
jldsave("ckpt.jld2"; model, opt)
d = JLD2.load("ckpt.jld2")
m2, o2 = d["model"], d["opt"]
same_out = m2(x) == model(x)
# one more step from the saved state and from the loaded one: the same weights
Flux.update!(opt, model, gradient(loss, model)[1])
Flux.update!(o2, m2, gradient(loss, m2)[1])
(same_out, m2[1].weight == model[1].weight, m2[2].bias == model[2].bias,
 typeof(m2) == typeof(model), sort(collect(keys(d))))
""")
    assert out[:4] == (True, True, True, True) and list(out[4]) == ["model", "opt"]


def test_macros_and_bson_names(work: Path) -> None:
    out = run(MODEL + """
using BSON: @save, @load
y = model(x)
JLD2.@save "a.jld2" model x
BSON.@save "b.bson" model
model = nothing; x = nothing
@load "a.jld2" model x
b = BSON.load("b.bson")
(model(x) == y, b[:model](x) == y, load("a.jld2", "x") == x)
""")
    assert out == (True, True, True)


def test_dicts_and_plain_values(work: Path) -> None:
    out = run("""
using FileIO
d = Dict("n" => 3, "v" => [1.0, 2.0], "t" => (1, "a", :s, 'c', nothing),
         "nt" => (a = 1.5, b = Float32[1, 2]), "r" => 1:2:9, "q" => 3//4,
         "big" => Int128(2)^100, "inf" => -Inf, "m" => [1 2; 3 4], "f" => sin)
save("d.jld2", d)
e = load("d.jld2")
(e == d, typeof(e["nt"].b), e["m"][2, 1], load("d.jld2", "n", "q"))
""")
    assert out[0] is True and out[2] == 3 and out[3][0] == 3


@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(allow_nan=False, width=64), max_size=6),
       st.integers(-(2**63), 2**63 - 1), st.text(max_size=8),
       st.lists(st.tuples(st.integers(-5, 5), st.booleans()), max_size=3))
def test_random_values_round_trip(xs: list[float], n: int, s: str, ts: list) -> None:
    rt, folder = _round_trip_runtime()
    rt.globals["xs"] = np.array(xs, dtype=np.float64)
    rt.globals["n"] = n
    rt.globals["s"] = s
    rt.globals["ts"] = tuple(ts)
    path = f"{folder}/v.jld2"
    out = rt.run_source(f'jldsave("{path}"; xs, n, s, ts)\nload("{path}", "xs", "n", "s", "ts")',
                        "t.jl")
    np.testing.assert_array_equal(out[0], np.array(xs))
    assert out[1:] == (n, s, tuple(ts))


_RT: list = []


def _round_trip_runtime() -> tuple:
    """One runtime for the drawn examples, made in a folder of its own (the permission
    policy takes the current folder when a runtime starts)."""
    if not _RT:
        import os
        import tempfile

        folder = tempfile.mkdtemp(prefix="zyla-save-")
        cwd = os.getcwd()
        os.chdir(folder)
        try:
            rt = Runtime()
            rt.run_source("using JLD2", "t.jl")
        finally:
            os.chdir(cwd)
        _RT.append((rt, folder))
    return _RT[0]


def test_closures_are_not_saved(work: Path) -> None:
    with pytest.raises(ZylaError) as info:
        run('using JLD2\nf = x -> x + 1\njldsave("c.jld2"; f)')
    assert "cannot save" in info.value.message


def test_writing_goes_through_the_gate(work: Path) -> None:
    with pytest.raises(ZylaError) as info:
        run('using JLD2\njldsave("../outside.jld2"; a = 1)')
    assert info.value.kind == "SystemError"
    assert not (work.parent / "outside.jld2").exists()


def _crafted(path: Path, tree: dict, arrays: dict | None = None) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("zyla-save.json", json.dumps(tree))
        for name, data in (arrays or {}).items():
            z.writestr(name, data)
    path.write_bytes(buf.getvalue())


def test_a_crafted_file_cannot_run_code(work: Path) -> None:
    """A type name that is an expression, a function name that is not a function, a
    pickled array: each refused with an error, nothing run."""
    _crafted(work / "t.jld2", {"format": "zyla-save 1", "values": {
        "a": {"k": "type", "name": "run(`touch pwned`)", "params": []}}})
    with pytest.raises(ZylaError):
        run('using JLD2\nload("t.jld2")')
    _crafted(work / "f.jld2", {"format": "zyla-save 1", "values": {
        "a": {"k": "fn", "name": "ARGS"}}})
    with pytest.raises(ZylaError) as info:
        run('using JLD2\nload("f.jld2")')
    assert "not one here" in info.value.message
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    _crafted(work / "p.jld2", {"format": "zyla-save 1", "values": {
        "a": {"k": "arr", "ref": "a0.npy"}}}, {"a0.npy": pickled.getvalue()})
    with pytest.raises(ZylaError):
        run('using JLD2\nload("p.jld2")')
    assert not (work / "pwned").exists()


def test_a_file_zyla_did_not_write_is_refused(work: Path) -> None:
    (work / "julia.jld2").write_bytes(b"HDF5\x00not ours")
    with pytest.raises(ZylaError) as info:
        run('using JLD2\nload("julia.jld2")')
    assert "not a file Zyla saved" in info.value.message
