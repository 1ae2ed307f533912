"""MLDatasets from local files (lang/core/datasets.py, stdlib/datasets.jl): MNIST-format
IDX files (plain or gzipped) and CIFAR-10 binary batches, written here with known
contents, read back in MLDatasets' layout (`features[x, y, n]`, targets 0-9); missing
files name themselves and the folders searched; `dir = ...` goes through the permission
gate, `$ZYLA_DATA` is the user's own data folder."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.door.wiring import Runtime


def _idx(array: np.ndarray) -> bytes:
    head = bytes([0, 0, 8, array.ndim]) + b"".join(int(n).to_bytes(4, "big")
                                                     for n in array.shape)
    return head + array.astype(np.uint8).tobytes()


@pytest.fixture()
def images() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return (rng.integers(0, 256, size=(6, 28, 28), dtype=np.uint8),
            np.array([5, 0, 4, 1, 9, 2], dtype=np.uint8))


def _mnist(folder: Path, imgs: np.ndarray, labels: np.ndarray, split: str = "train",
           zipped: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pre = "train" if split == "train" else "t10k"
    (folder / f"{pre}-images-idx3-ubyte").write_bytes(_idx(imgs))
    data = _idx(labels)
    if zipped:
        (folder / f"{pre}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(data))
    else:
        (folder / f"{pre}-labels-idx1-ubyte").write_bytes(data)


def test_mnist_layout_and_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 images: tuple) -> None:
    imgs, labels = images
    _mnist(tmp_path / "data" / "MNIST", imgs, labels)
    monkeypatch.chdir(tmp_path)
    rt = Runtime()
    rt.run_source("using MLDatasets\nd = MNIST(split = :train)\nx = d[3]\nb = d[2:4]", "m.jl")
    feats = rt.run_source("d.features", "m.jl")
    # Julia's features[x, y, n] is pixel (row y, column x) of image n: the host layout
    # (axes reversed) is the file's bytes as they are
    np.testing.assert_allclose(feats, imgs.astype(np.float32) / 255, rtol=1e-6)
    assert rt.run_source("(size(d.features), eltype(d.features), length(d))", "m.jl") == (
        (28, 28, 6), rt.lookup("Float32"), 6)
    assert rt.run_source("d.features[5, 2, 3] * 255", "m.jl") == pytest.approx(imgs[2, 1, 4])
    assert rt.run_source("(size(x.features), x.targets, size(b.features), b.targets)",
                         "m.jl")[:3] == ((28, 28), 4, (28, 28, 3))
    assert list(rt.run_source("d.targets", "m.jl")) == labels.tolist()


def test_cifar10_channels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(1)
    folder = tmp_path / "data" / "CIFAR10" / "cifar-10-batches-bin"
    folder.mkdir(parents=True)
    recs = rng.integers(0, 256, size=(4, 3073), dtype=np.uint8)
    recs[:, 0] = [3, 8, 0, 9]
    (folder / "test_batch.bin").write_bytes(recs.tobytes())
    monkeypatch.chdir(tmp_path)
    rt = Runtime()
    rt.run_source("using MLDatasets\nc = CIFAR10(:test)", "c.jl")
    assert rt.run_source("(size(c.features), c.targets)", "c.jl")[0] == (32, 32, 3, 4)
    assert list(rt.run_source("c.targets", "c.jl")) == [3, 8, 0, 9]
    # green (channel 2) at row 5, column 7 of image 2: byte 1 + 1024 + 4 * 32 + 6
    assert rt.run_source("c.features[7, 5, 2, 2] * 255", "c.jl") == pytest.approx(
        recs[1, 1 + 1024 + 4 * 32 + 6])


def test_missing_files_are_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZYLA_DATA", raising=False)
    with pytest.raises(ZylaError) as info:
        Runtime().run_source("using MLDatasets\nFashionMNIST(split = :test)", "f.jl")
    err = info.value
    assert "t10k-images-idx3-ubyte" in err.message and "data/FashionMNIST" in err.message
    assert "ZYLA_DATA" in (err.hint or "")


def test_data_folder_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          images: tuple) -> None:
    """$ZYLA_DATA is outside the current folder and still readable (the user named it);
    the same folder passed by the program as `dir` is refused by the gate."""
    imgs, labels = images
    _mnist(tmp_path / "store" / "MNIST", imgs, labels, "test", zipped=False)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("ZYLA_DATA", str(tmp_path / "store"))
    rt = Runtime()
    assert rt.run_source("using MLDatasets\nlength(MNIST(:test))", "e.jl") == 6
    monkeypatch.delenv("ZYLA_DATA")
    with pytest.raises(ZylaError) as info:
        Runtime().run_source(f'using MLDatasets\nMNIST(:test; dir = "{tmp_path}/store/MNIST")',
                             "e.jl")
    assert info.value.kind == "SystemError" and "not allowed" in info.value.message


def test_missing_files_are_caught_as_system_errors(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   images: tuple) -> None:
    """A program falls back to its own copy when the user has no MNIST: the error is a
    `SystemError` value (Julia's fields; the runtime's message is its `prefix`)."""
    imgs, labels = images
    _mnist(tmp_path / "mine", imgs, labels, "test")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ZYLA_DATA", raising=False)
    rt = Runtime()
    src = """using MLDatasets
    caught = nothing
    d = try
        MNIST(split = :test)
    catch e
        e isa SystemError || rethrow()
        global caught = e
        MNIST(split = :test, dir = "mine")
    end
    """
    rt.run_source(src, "s.jl")
    assert rt.run_source("length(d)", "s.jl") == 6
    prefix, shown = rt.run_source("(caught.prefix, sprint(showerror, caught))", "s.jl")
    assert "t10k-images-idx3-ubyte" in prefix and shown == f"SystemError: {prefix}"
    assert rt.run_source('sprint(showerror, SystemError("opening file", 2))', "s.jl") == (
        "SystemError: opening file: No such file or directory")
    assert rt.run_source('SystemError("x").errnum', "s.jl") == 0


def test_iris_and_boston_housing_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """UCI's iris.data and housing.data as matrices with one observation per column
    (MLDatasets' `as_df = false`); the DataFrame default is a clear error; a short row
    names its line; a missing file names itself."""
    rng = np.random.default_rng(3)
    meas = np.round(rng.uniform(0.1, 8.0, size=(6, 4)), 1)
    names = ["Iris-setosa"] * 2 + ["Iris-versicolor"] * 2 + ["Iris-virginica"] * 2
    (tmp_path / "data" / "Iris").mkdir(parents=True)
    (tmp_path / "data" / "Iris" / "iris.data").write_text(
        "".join(",".join(f"{v:.1f}" for v in row) + f",{n}\n" for row, n in zip(meas, names,
                                                                                 strict=True))
        + "\n")
    house = np.round(rng.uniform(0, 100, size=(5, 14)), 4)
    (tmp_path / "data" / "BostonHousing").mkdir(parents=True)
    (tmp_path / "data" / "BostonHousing" / "housing.data").write_text(
        "".join(" " + "  ".join(f"{v:.4f}" for v in row) + "\n" for row in house))
    monkeypatch.chdir(tmp_path)
    rt = Runtime()
    rt.run_source("using MLDatasets\nd = Iris(as_df = false)\nb = BostonHousing(as_df = false)",
                  "t.jl")
    assert rt.run_source("(size(d.features), size(d.targets), length(d), d[5].targets)",
                         "t.jl") == ((4, 6), (1, 6), 6, ["Iris-virginica"])
    np.testing.assert_allclose(rt.run_source("d.features[:, 3]", "t.jl"), meas[2])
    assert rt.run_source("size(b.features), size(b.targets)", "t.jl") == ((13, 5), (1, 5))
    np.testing.assert_allclose(rt.run_source("b.features[:, 2]", "t.jl"), house[1, :13])
    np.testing.assert_allclose(rt.run_source("vec(b.targets)", "t.jl"), house[:, 13])
    for src, kind, text in [("Iris()", "ArgumentError", "as_df = false"),
                            ("BostonHousing()", "ArgumentError", "DataFrames")]:
        with pytest.raises(ZylaError) as e:
            rt.run_source(src, "t.jl")
        assert e.value.kind == kind and text in e.value.message
    (tmp_path / "data" / "Iris" / "iris.data").write_text("5.1,3.5,1.4,Iris-setosa\n")
    with pytest.raises(ZylaError) as e:
        rt.run_source("Iris(as_df = false)", "t.jl")
    assert e.value.kind == "ArgumentError" and "iris.data:1" in e.value.message
    with pytest.raises(ZylaError) as e:
        rt.run_source('Iris(as_df = false, dir = "nowhere")', "t.jl")
    assert e.value.kind == "SystemError" and "iris.data" in e.value.message
