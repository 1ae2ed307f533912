"""Write the 8×8 digits of data/digits.csv as MNIST-format IDX files in data/DigitsMNIST/.

    python scripts/make_digits_mnist.py

Real MNIST does not ship with Zyla; these files let `MLDatasets.MNIST(split=..., dir=...)`
(and examples/mlp_mnist.jl) run on the UCI digits that do (see data/README.md). Output:
MNIST's four standard file names, gzipped (as MNIST is distributed):

- `train-images-idx3-ubyte.gz`, `train-labels-idx1-ubyte.gz`: 1347 images;
- `t10k-images-idx3-ubyte.gz`, `t10k-labels-idx1-ubyte.gz`: the other 450.

The split is a permutation of the 1797 rows drawn by numpy's PCG64 with seed 0. Pixel
values 0..16 become bytes round(v * 255 / 16), so that MLDatasets' `features` (bytes / 255)
are v / 16 to within 1/510, as examples/digits_data.jl scales them. Each image's bytes are
its pixels row by row, as in the CSV file and in MNIST. The output is deterministic (gzip
headers carry no time stamp), so running the script again changes no file.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "data" / "digits.csv"
TARGET = ROOT / "data" / "DigitsMNIST"
NTEST = 450
SIDE = 8


def idx_bytes(array: np.ndarray) -> bytes:
    """An IDX file of unsigned bytes holding `array` (magic 0x00000800 + ndims, then each
    dimension as a big-endian 32-bit integer, then the data in C order)."""
    assert array.dtype == np.uint8 and 1 <= array.ndim <= 4
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += b"".join(struct.pack(">I", d) for d in array.shape)
    return header + array.tobytes(order="C")


def write_gz(path: Path, data: bytes) -> None:
    """Write `data` gzipped to `path`, with no time stamp (reproducible bytes)."""
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))


def main() -> None:
    """Read data/digits.csv, split it and write the four IDX files."""
    table = np.loadtxt(SOURCE, delimiter=",", dtype=np.int64)
    assert table.shape == (1797, SIDE * SIDE + 1), table.shape
    pixels, labels = table[:, :-1], table[:, -1]
    assert pixels.min() >= 0 and pixels.max() <= 16 and set(labels) == set(range(10))
    images = np.rint(pixels * (255 / 16)).astype(np.uint8).reshape(-1, SIDE, SIDE)
    perm = np.random.default_rng(0).permutation(len(labels))
    test, train = perm[:NTEST], perm[NTEST:]
    TARGET.mkdir(exist_ok=True)
    for prefix, rows in (("train", train), ("t10k", test)):
        write_gz(TARGET / f"{prefix}-images-idx3-ubyte.gz", idx_bytes(images[rows]))
        write_gz(TARGET / f"{prefix}-labels-idx1-ubyte.gz",
                 idx_bytes(labels[rows].astype(np.uint8)))
        print(f"{prefix}: {len(rows)} images")


if __name__ == "__main__":
    main()
