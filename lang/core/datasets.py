"""Datasets from local files: the readers behind `MLDatasets.MNIST`, `FashionMNIST`,
`CIFAR10`, `Iris` and `BostonHousing` (lang/core/stdlib/datasets.jl builds the dataset
values).

Nothing is downloaded: the standard files are looked for in the folder the program names
(`dir = ...`, read through the permission gate), then in `$ZYLA_DATA/<Name>/` (a folder
the user names, readable like `--allow-read`), then in `./data/<Name>/`. Each file may be
gzipped. A dataset whose files are missing is an error naming the files and the folders.

Arrays come back in the host layout (lang.core.values: Julia's axes reversed), so the
bytes of an IDX file (images row by row) are the Julia array `28×28×N` whose `[:, :, n]`
is image n with x (the column) first, MLDatasets' WHN convention.
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import safety
from lang.core import values as V
from lang.core.primitives import NONDIFF, HostOnly, prim

#: per dataset and split: the files, and where to find them
_FILES = {
    ("MNIST", "train"): ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    ("MNIST", "test"): ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    ("CIFAR10", "train"): tuple(f"cifar-10-batches-bin/data_batch_{k}.bin" for k in range(1, 6)),
    ("CIFAR10", "test"): ("cifar-10-batches-bin/test_batch.bin",),
}
#: the tabular datasets: their one file (UCI's), and the number of numeric columns
_TABLES = {"Iris": ("iris.data", 4), "BostonHousing": ("housing.data", 14)}
_SOURCES = {"MNIST": "the MNIST files (yann.lecun.com/exdb/mnist or a mirror)",
            "Iris": "iris.data (archive.ics.uci.edu/dataset/53/iris)",
            "BostonHousing": "housing.data (the UCI Boston housing file, 506 rows of 14 numbers)",
            "FashionMNIST": "the Fashion-MNIST files (github.com/zalandoresearch/fashion-mnist)",
            "CIFAR10": "the CIFAR-10 binary version (cs.toronto.edu/~kriz/cifar.html)"}


def _folders(name: str, dir: Any) -> list[Path]:
    if dir is not None:
        return [Path(str(dir))]
    out = [r / name for r in safety.data_roots()]
    return out + [Path(os.getcwd()) / "data" / name]


def _find(folders: list[Path], fname: str) -> Path | None:
    for folder in folders:
        for cand in (folder / fname, folder / (fname + ".gz")):
            if cand.exists():
                return cand
    return None


def _read(path: Path) -> bytes:
    data = safety.read_bytes(str(path), "reading a dataset")
    if path.suffix == ".gz":
        limit = safety.max_read_bytes()
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as g:
            data = g.read(limit + 1)
        if len(data) > limit:
            raise ZylaError("SystemError", f"{path}: more than {limit} bytes once unpacked")
    return data


def _idx(data: bytes, path: Path) -> np.ndarray:
    """An IDX file's array of unsigned bytes (header: magic 0x0803/0x0801, sizes)."""
    if len(data) < 8 or data[0] != 0 or data[1] != 0 or data[2] != 8 or not 1 <= data[3] <= 4:
        raise ZylaError("ArgumentError", f"{path} is not an IDX file of unsigned bytes")
    nd = data[3]
    dims = [int.from_bytes(data[4 + 4 * k: 8 + 4 * k], "big") for k in range(nd)]
    start = 4 + 4 * nd
    n = int(np.prod(dims))
    if len(data) - start != n:
        raise ZylaError("ArgumentError", f"{path}: {len(data) - start} bytes of data, "
                        f"the header says {n}")
    return np.frombuffer(data, dtype=np.uint8, offset=start).reshape(dims).copy()


def _missing(name: str, files: list[str], folders: list[Path], what: str) -> ZylaError:
    return ZylaError("SystemError", f"{what} not found: {', '.join(files)} (or .gz) in "
                     f"{' or '.join(str(f) for f in folders)}",
                     hint=f"Zyla does not download: put {_SOURCES[name]} in ./data/{name}/,"
                          f" or in DIR/{name}/ with ZYLA_DATA=DIR, or pass dir = \"...\"")


def load_table(name: str, dir: Any = None) -> tuple:
    """(features as a Float64 matrix, one observation per column, targets) of a UCI
    table: Iris's four measurements and its class names (a Vector{String}), Boston
    housing's 13 columns and its median values (a Float64 vector)."""
    fname, ncols = _TABLES[name]
    folders = _folders(name, dir)
    path = _find(folders, fname)
    if path is None:
        raise _missing(name, [fname], folders, name)
    rows = []
    for k, line in enumerate(_read(path).decode("utf-8", "replace").splitlines()):
        fields = line.replace(",", " ").split()
        if not fields:
            continue
        if len(fields) != ncols + (name == "Iris"):
            raise ZylaError("ArgumentError", f"{path}:{k + 1}: {len(fields)} fields, "
                                             f"expected {ncols + (name == 'Iris')}")
        rows.append(fields)
    try:
        nums = np.array([[float(x) for x in r[:ncols]] for r in rows], dtype=np.float64)
    except ValueError as e:
        raise ZylaError("ArgumentError", f"{path}: {e}") from None
    if name == "Iris":
        labels = np.empty(len(rows), dtype=object)
        labels[:] = [r[ncols] for r in rows]
        return nums, labels  # (host layout of a 4×150 matrix: 150 rows of 4)
    return np.ascontiguousarray(nums[:, :13]), nums[:, 13].copy()


def load_dataset(name: str, split: Any, dir: Any = None) -> tuple:
    """(features as unsigned bytes in the host layout, targets as Int64s) of a dataset."""
    split_name = split.name if isinstance(split, V.Symbol) else str(split)
    key = ("MNIST" if name == "FashionMNIST" else name, split_name)
    files = _FILES.get(key)
    if files is None:
        raise ZylaError("ArgumentError", f"{name}: split must be :train or :test, got "
                        f":{split_name}")
    folders = _folders(name, dir)
    paths = [_find(folders, f) for f in files]
    if any(p is None for p in paths):
        missing = [f for f, p in zip(files, paths, strict=True) if p is None]
        raise _missing(name, missing, folders, f"{name} ({split_name})")
    if key[0] == "MNIST":
        images = _idx(_read(paths[0]), paths[0])
        labels = _idx(_read(paths[1]), paths[1])
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
            raise ZylaError("ArgumentError", f"{name}: the image and label files disagree")
        return images, labels.astype(np.int64)
    feats, targets = [], []
    for p in paths:
        raw = np.frombuffer(_read(p), dtype=np.uint8)
        if raw.size % 3073:
            raise ZylaError("ArgumentError", f"{p} is not a CIFAR-10 binary batch")
        rec = raw.reshape(-1, 3073)
        targets.append(rec[:, 0].astype(np.int64))
        # each record: 1024 red, 1024 green, 1024 blue bytes, row by row: (c, y, x)
        feats.append(rec[:, 1:].reshape(-1, 3, 32, 32))
    return np.concatenate(feats), np.concatenate(targets)


def install(rt: Any) -> None:
    for name, f in (("Core.load_dataset", load_dataset), ("Core.load_table", load_table)):
        rt.builtins[name] = prim(name, f, HostOnly("datasets are read on the host"), NONDIFF,
                                 lambda *a, **k: V.AnyT)
