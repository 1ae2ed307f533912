"""Terminal plots in the style of Julia's UnicodePlots (`using UnicodePlots`).

    lineplot(y)                 lineplot(x, y; title="", xlabel="", ylabel="", name="",
    lineplot!(plt, x, y)        width=40, height=15, xlim=(lo, hi), ylim=(lo, hi))
    scatterplot(x, y)           histogram(x; nbins=10, title="", width=40)
    savefig(plt, "loss.png")    savefig(plt, "loss.txt")

A line or scatter plot is drawn on a braille canvas (each character cell holds 2×4
dots), with a frame, the y range on the left, the x range below and the series names on
the right; a histogram is a horizontal bar chart of counts per bin. A plot is a host
value that the REPL displays and `println` prints; `savefig` writes it as text, or as a
PNG image (drawn here and encoded with zlib; no extra dependency).
"""

from __future__ import annotations

import math
import struct
import zlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import safety
from lang.core import values as V
from lang.core.primitives import NONDIFF, HostOnly, prim

PlotT = V.JType("Plot", V.AnyT)

_BRAILLE = 0x2800
#: The bit of each dot of a braille cell, indexed [column][row].
_DOTS = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


def _numbers(x: Any, what: str) -> np.ndarray:
    """A Zyla vector, range or tuple of reals as a float64 numpy vector."""
    if isinstance(x, V.Range):
        x = x.to_array()
    if isinstance(x, tuple):
        x = np.array(x, dtype=object)
    try:
        a = np.asarray(x, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError", f"{what} must be a vector of real numbers") from None
    return a


def _fmt(v: float) -> str:
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else str(v)
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.2e}"
    return f"{v:.4g}"


def _limits(a: np.ndarray, given: Any) -> tuple[float, float]:
    if given is not None:
        lo, hi = (float(v) for v in given)
    else:
        finite = a[np.isfinite(a)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    return lo, hi


@dataclass
class Series:
    x: np.ndarray
    y: np.ndarray
    name: str
    lines: bool  # connect the points (lineplot) or not (scatterplot)


@dataclass(eq=False)
class Plot:
    """A line/scatter plot: series on a braille canvas of `width`×`height` characters."""

    series: list[Series] = field(default_factory=list)
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    width: int = 40
    height: int = 15
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None

    jtype = PlotT

    def limits(self) -> tuple[float, float, float, float]:
        xs = np.concatenate([s.x for s in self.series]) if self.series else np.zeros(1)
        ys = np.concatenate([s.y for s in self.series]) if self.series else np.zeros(1)
        x0, x1 = _limits(xs, self.xlim)
        y0, y1 = _limits(ys, self.ylim)
        return x0, x1, y0, y1

    def dots(self, cols: int, rows: int) -> list[np.ndarray]:
        """Per series, a rows×cols boolean grid of the dots it sets."""
        x0, x1, y0, y1 = self.limits()
        out = []
        for s in self.series:
            grid = np.zeros((rows, cols), dtype=bool)
            ok = np.isfinite(s.x) & np.isfinite(s.y)
            px = np.round((s.x - x0) / (x1 - x0) * (cols - 1))
            py = np.round((y1 - s.y) / (y1 - y0) * (rows - 1))
            pts = [(int(a), int(b)) for a, b, k in zip(px, py, ok, strict=True) if k]
            prev = None
            for p in pts:
                if s.lines and prev is not None:
                    for q in _segment(prev, p):
                        _set(grid, q)
                _set(grid, p)
                prev = p
            out.append(grid)
        return out

    def render(self) -> str:
        w, h = self.width, self.height
        grids = self.dots(2 * w, 4 * h)
        canvas = [[0] * w for _ in range(h)]
        for grid in grids:
            ys, xs = np.nonzero(grid)
            for r, c in zip(ys, xs, strict=True):
                canvas[r // 4][c // 2] |= _DOTS[c % 2][r % 4]
        x0, x1, y0, y1 = self.limits()
        top, bottom = _fmt(y1), _fmt(y0)
        pad = max(len(top), len(bottom), len(self.ylabel))
        lines = []
        if self.title:
            lines.append(" " * (pad + 2) + self.title.center(w).rstrip())
        lines.append(" " * (pad + 1) + "┌" + "─" * w + "┐")
        names = [s.name for s in self.series if s.name]
        for r in range(h):
            row = "".join(chr(_BRAILLE + b) if b else " " for b in canvas[r])
            label = top if r == 0 else bottom if r == h - 1 else (
                self.ylabel if r == h // 2 else "")
            side = f" {names[r]}" if r < len(names) else ""
            lines.append(f"{label.rjust(pad)} │{row}│{side}".rstrip())
        lines.append(" " * (pad + 1) + "└" + "─" * w + "┘")
        left, right = _fmt(x0), _fmt(x1)
        lines.append(" " * (pad + 1) + left + " " * max(1, w + 2 - len(left) - len(right)) + right)
        if self.xlabel:
            lines.append(" " * (pad + 2) + self.xlabel.center(w).rstrip())
        return "\n".join(lines)

    def jl_show(self) -> str:
        return self.render()

    jl_print = jl_show
    jl_display = jl_show


def _set(grid: np.ndarray, p: tuple[int, int]) -> None:
    x, y = p
    if 0 <= y < grid.shape[0] and 0 <= x < grid.shape[1]:
        grid[y, x] = True


def _segment(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The grid points on the segment a–b (Bresenham's line)."""
    (x0, y0), (x1, y1) = a, b
    n = max(abs(x1 - x0), abs(y1 - y0), 1)
    if n > 100_000:
        return []
    return [(round(x0 + (x1 - x0) * i / n), round(y0 + (y1 - y0) * i / n)) for i in range(n + 1)]


@dataclass(eq=False)
class Histogram:
    """Counts of values per bin, drawn as horizontal bars."""

    edges: np.ndarray
    counts: np.ndarray
    title: str = ""
    width: int = 40

    jtype = PlotT

    def render(self) -> str:
        labels = [f"[{_fmt(a)}, {_fmt(b)}{']' if i == len(self.counts) - 1 else ')'}"
                  for i, (a, b) in enumerate(zip(self.edges[:-1], self.edges[1:], strict=True))]
        pad = max((len(s) for s in labels), default=0)
        top = int(self.counts.max()) if self.counts.size else 0
        lines = []
        if self.title:
            lines.append(" " * (pad + 2) + self.title.center(self.width).rstrip())
        lines.append(" " * (pad + 1) + "┌" + " " * self.width + "┐")
        for label, c in zip(labels, self.counts, strict=True):
            n = 0 if top == 0 else round(int(c) / top * (self.width - len(str(top)) - 2))
            bar = "▇" * n + f" {int(c)}"
            lines.append(f"{label.rjust(pad)} ┤{bar}")
        lines.append(" " * (pad + 1) + "└" + " " * self.width + "┘")
        lines.append(" " * (pad + 2) + "Frequency".center(self.width).rstrip())
        return "\n".join(lines)

    def jl_show(self) -> str:
        return self.render()

    jl_print = jl_show
    jl_display = jl_show


# ---- the language's functions -----------------------------------------------------------------


def _size(v: Any, what: str, lo: int, hi: int) -> int:
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError", f"{what} must be an integer") from None
    if not lo <= n <= hi:
        raise ZylaError("ArgumentError", f"{what} must be between {lo} and {hi}, got {n}")
    return n


def _opt_lim(v: Any, what: str) -> tuple[float, float] | None:
    if v is None:
        return None
    try:
        lo, hi = (float(x) for x in v)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError", f"{what} must be a pair (lo, hi)") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise ZylaError("ArgumentError", f"{what} must satisfy lo < hi, got ({lo}, {hi})")
    return lo, hi


def _xy(args: tuple, fname: str) -> tuple[np.ndarray, np.ndarray]:
    if len(args) == 1:
        y = _numbers(args[0], "y")
        return np.arange(1, y.size + 1, dtype=np.float64), y
    if len(args) == 2:
        x, y = _numbers(args[0], "x"), _numbers(args[1], "y")
        if x.size != y.size:
            raise ZylaError("DimensionMismatch", f"{fname}: x has {x.size} values, y has {y.size}")
        return x, y
    raise ZylaError("MethodError", f"no method matching {fname} with {len(args)} arguments",
                    hint=f"{fname}(y) or {fname}(x, y)")


def make_plot(lines: bool, *args: Any, title: str = "", xlabel: str = "", ylabel: str = "",
              name: str = "", width: Any = 40, height: Any = 15, xlim: Any = None,
              ylim: Any = None) -> Plot:
    """`lineplot(...)` (lines=True) or `scatterplot(...)`."""
    fname = "lineplot" if lines else "scatterplot"
    x, y = _xy(args, fname)
    if x.size == 0:
        raise ZylaError("ArgumentError", f"{fname}: nothing to plot (empty data)")
    return Plot([Series(x, y, str(name), lines)], str(title), str(xlabel), str(ylabel),
                _size(width, "width", 5, 400), _size(height, "height", 2, 200),
                _opt_lim(xlim, "xlim"), _opt_lim(ylim, "ylim"))


def add_series(p: Any, *args: Any, name: str = "") -> Plot:
    """`lineplot!(plt, [x,] y; name)`: another series on the same canvas."""
    if not isinstance(p, Plot):
        raise ZylaError("MethodError", "lineplot! expects a plot made by lineplot or scatterplot")
    x, y = _xy(args, "lineplot!")
    p.series.append(Series(x, y, str(name), True))
    return p


def make_histogram(x: Any, nbins: Any = 10, title: str = "", width: Any = 40) -> Histogram:
    a = _numbers(x, "x")
    a = a[np.isfinite(a)]
    if a.size == 0:
        raise ZylaError("ArgumentError", "histogram: no finite values")
    n = _size(nbins, "nbins", 1, 1000)
    counts, edges = np.histogram(a, bins=n)
    return Histogram(edges, counts, str(title), _size(width, "width", 10, 400))


def savefig(p: Any, path: Any) -> None:
    """Write a plot to `path`: a PNG image if it ends in `.png`, else its text."""
    if not isinstance(p, (Plot, Histogram)):
        raise ZylaError("MethodError", "savefig expects a plot")
    if not isinstance(path, str) or not path:
        raise ZylaError("ArgumentError", "savefig needs a file name")
    write_file(path, png_bytes(p) if path.lower().endswith(".png") else
               (p.render() + "\n").encode())
    return None


def write_file(path: str, data: bytes) -> None:
    """Write a drawing's bytes to `path` through the permission gate (lang.core.safety)."""
    target = safety.writable(path)
    try:
        with open(target, "wb") as f:
            f.write(data)
    except OSError as e:
        raise ZylaError("SystemError", f"writing {path!r}: {e.strerror}") from None


# ---- PNG ----------------------------------------------------------------------------------------

_COLORS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14)]


def png_bytes(p: Plot | Histogram, scale: int = 3) -> bytes:
    """The plot as a PNG image: white background, a frame, each series in its colour
    (a line plot) or bars (a histogram)."""
    if isinstance(p, Histogram):
        w, h = 4 * p.width, 12 * len(p.counts)
        img = np.full((h + 2, w + 2, 3), 255, dtype=np.uint8)
        top = max(int(p.counts.max()), 1)
        for i, c in enumerate(p.counts):
            n = int(round(int(c) / top * w))
            img[1 + 12 * i + 2: 1 + 12 * i + 10, 1: 1 + n] = _COLORS[0]
    else:
        cols, rows = 2 * p.width * scale, 4 * p.height * scale
        img = np.full((rows + 2, cols + 2, 3), 255, dtype=np.uint8)
        for k, grid in enumerate(p.dots(cols, rows)):
            img[1:-1, 1:-1][grid] = _COLORS[k % len(_COLORS)]
    img[0, :], img[-1, :], img[:, 0], img[:, -1] = 0, 0, 0, 0
    return _encode_png(img)


def _encode_png(img: np.ndarray) -> bytes:
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[r].tobytes() for r in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def install(rt: Any) -> None:
    """Register `UnicodePlots.*` (the stdlib file binds the short names on `using`)."""
    host = HostOnly("plots are drawn on the host")
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    for name, fn in (("UnicodePlots.lineplot", lambda *a, **k: make_plot(True, *a, **k)),
                     ("UnicodePlots.scatterplot", lambda *a, **k: make_plot(False, *a, **k)),
                     ("UnicodePlots.lineplot!", add_series),
                     ("UnicodePlots.histogram", make_histogram),
                     ("UnicodePlots.savefig", savefig)):
        rt.builtins[name] = prim(name, fn, host, NONDIFF, anyt)
