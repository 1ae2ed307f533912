"""Plots.jl's figures (`using Plots`): series and attributes kept on the host, drawn as
PNG, SVG or PDF files by matplotlib (its Agg canvas, imported only when a file is
written) and in the terminal with UnicodePlots' braille canvas (lang.door.plots).

    plot([x,] y; label, title, xlabel, ylabel, xlims, ylims, xscale, yscale, legend,
         lw, color, linestyle, marker, markersize, alpha, size, seriestype, layout)
    plot(f, lo, hi)   plot(x, f)   plot(p1, p2; layout = (1, 2))
    plot!([p,] ...)   scatter(...)  scatter!(...)  histogram(x; bins)  heatmap([x, y,] z)
    bar(x, y)   title!/xlabel!/ylabel!/xlims!/ylims!([p,] v)   savefig([p,] "loss.png")

As in Plots.jl, a matrix `y` is one series per column, a 1×n matrix of labels or
colours gives each series its own, the `!` forms change the current plot (the last one
made or changed) unless a plot is passed first, and `savefig(path)` writes the current
plot, its format from the file's extension (`.png`, `.svg`, `.pdf`; `.txt` writes the
terminal drawing). The REPL and `display` show a plot in the terminal; `println(p)`
prints `Plot{Plots.GRBackend() n=1}` as Plots does. A keyword Plots.jl knows that is not
drawn here is ignored with a warning, as Plots warns for a backend's unsupported
attributes; files are written through the permission gate (lang.core.safety).
"""

from __future__ import annotations

import io
import math
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import current
from lang.core import values as V
from lang.core.builtins import _warn_once
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.door import plots as U

# every attribute name this module reads, under Plots.jl's aliases
_ALIASES = {
    "label": ("label", "lab", "labels"),
    "color": ("color", "c", "seriescolor", "linecolor", "lc", "markercolor", "mc", "colour"),
    "linewidth": ("linewidth", "lw", "w", "width", "lws"),
    "linestyle": ("linestyle", "ls", "style", "l"),
    "marker": ("marker", "markershape", "shape", "m"),
    "markersize": ("markersize", "ms", "msize"),
    "alpha": ("alpha", "α", "opacity", "seriesalpha"),
    "seriestype": ("seriestype", "st", "t", "typ"),
    "bins": ("bins", "bin", "nbins", "nbin"),
    "normalize": ("normalize", "norm", "normed", "normalized"),
    "title": ("title",),
    "xlabel": ("xlabel", "xlab", "xguide"),
    "ylabel": ("ylabel", "ylab", "yguide"),
    "xlims": ("xlims", "xlim", "xlimits"),
    "ylims": ("ylims", "ylim", "ylimits"),
    "xscale": ("xscale",),
    "yscale": ("yscale",),
    "legend": ("legend", "leg", "key", "legends"),
    "grid": ("grid",),
    "size": ("size", "windowsize", "wsize"),
    "dpi": ("dpi",),
    "layout": ("layout",),
    "colorbar": ("colorbar", "cbar", "cb"),
    "fmt": ("fmt", "format"),
    "xaxis": ("xaxis",),
    "yaxis": ("yaxis",),
}
_CANONICAL = {alias: name for name, aliases in _ALIASES.items() for alias in aliases}
_SERIES_ATTRS = ("label", "color", "linewidth", "linestyle", "marker", "markersize", "alpha",
                 "seriestype", "bins", "normalize")
_SERIES_TYPES = {"line": "line", "path": "line", "lines": "line", "scatter": "scatter",
                 "histogram": "histogram", "hist": "histogram", "bar": "bar",
                 "heatmap": "heatmap", "steppost": "step", "steppre": "step", "sticks": "sticks"}
_LINESTYLES = {"solid": "-", "dash": "--", "dot": ":", "dashdot": "-.", "dashdotdot": "-."}
_MARKERS = {"circle": "o", "rect": "s", "square": "s", "diamond": "D", "utriangle": "^",
            "dtriangle": "v", "cross": "+", "xcross": "x", "x": "x", "+": "+", "star5": "*",
            "hexagon": "h", "pentagon": "p", "none": "", "auto": "o"}
_SCALES = {"identity": "linear", "log10": "log", "log": "log", "ln": "log", "log2": "log"}
_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def _name(v: Any) -> Any:
    """A Symbol's name; other values unchanged."""
    return v.name if isinstance(v, V.Symbol) else v


@dataclass
class Series:
    kind: str  # a value of _SERIES_TYPES
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray | None = None  # a heatmap's values, rows along y
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class Panel:
    """One set of axes: its series and the axes' attributes (title, labels, limits)."""

    series: list[Series] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class Figure:
    """A Plots.jl plot: panels laid out on a grid of `layout` rows and columns."""

    panels: list[Panel] = field(default_factory=lambda: [Panel()])
    layout: tuple[int, int] = (1, 1)
    size: tuple[int, int] = (600, 400)
    dpi: int = 100

    jtype = U.PlotT

    def nseries(self) -> int:
        return sum(len(p.series) for p in self.panels)

    def jl_show(self) -> str:
        return f"Plot{{Plots.GRBackend() n={self.nseries()}}}"

    jl_print = jl_show

    def jl_display(self) -> str:
        return "\n\n".join(_terminal(p) for p in self.panels)


# --- the current plot -----------------------------------------------------------------------

_CURRENT: weakref.WeakKeyDictionary[Any, Figure] = weakref.WeakKeyDictionary()


def _current() -> Figure:
    fig = _CURRENT.get(current.runtime())
    if fig is None:
        raise ZylaError("ErrorException", "No current plot/subplot",
                        hint="make one first with plot(...)")
    return fig


def _set_current(fig: Figure) -> Figure:
    _CURRENT[current.runtime()] = fig
    return fig


# --- arguments ------------------------------------------------------------------------------


def _attributes(kw: dict[str, Any], fname: str) -> dict[str, Any]:
    """Keywords under their canonical names; unknown ones warned about and dropped."""
    out: dict[str, Any] = {}
    for k, v in kw.items():
        name = _CANONICAL.get(k)
        if name is None:
            _warn_once(f"plots:{k}", f"{fname}: the keyword `{k}` is not supported by Zyla's "
                       "Plots; it is ignored")
            continue
        out[name] = _name(v)
    return out


def _columns(a: Any, what: str) -> list[np.ndarray]:
    """The series of a plot argument: a vector or range is one, a matrix one per column,
    a vector of vectors one per element."""
    if isinstance(a, np.ndarray) and a.dtype == object and a.ndim == 1:
        return [U._numbers(v, what) for v in a]
    if isinstance(a, np.ndarray) and a.ndim == 2:  # Julia n×k: numpy (k, n)
        return [np.asarray(row, dtype=np.float64) for row in a]
    if isinstance(a, np.ndarray) and a.ndim > 2:
        raise ZylaError("ArgumentError", f"{what} must be a vector or a matrix, got "
                        f"{a.ndim} dimensions")
    return [U._numbers(a, what)]


def _callable(v: Any) -> bool:
    return not isinstance(v, (np.ndarray, V.Range, tuple, list, str, int, float, bool))


def _apply(f: Any, xs: np.ndarray) -> np.ndarray:
    interp = current.runtime().interp
    return np.array([float(interp.call_value(f, [float(x)])) for x in xs], dtype=np.float64)


def _xy_series(args: tuple, fname: str, span: tuple[float, float]
               ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(x, y) pairs from `y`, `x, y`, `f, lo, hi`, `x, f`, `f, xs` or `f` alone (over
    `span`: the panel's x extent so far, as Plots.jl does)."""
    if len(args) == 1 and _callable(args[0]):
        xs = np.linspace(span[0], span[1], 200)
        return [(xs, _apply(args[0], xs))]
    if len(args) == 3 and _callable(args[0]):
        lo, hi = float(args[1]), float(args[2])
        xs = np.linspace(lo, hi, 200)
        return [(xs, _apply(args[0], xs))]
    if len(args) == 1:
        ys = _columns(args[0], "y")
        return [(np.arange(1, y.size + 1, dtype=np.float64), y) for y in ys]
    if len(args) == 2:
        if _callable(args[0]):
            (xs,) = _columns(args[1], "x")
            return [(xs, _apply(args[0], xs))]
        xcols = _columns(args[0], "x")
        ycols = [_apply(args[1], xcols[0])] if _callable(args[1]) else _columns(args[1], "y")
        if len(xcols) == 1:
            xcols = xcols * len(ycols)
        if len(xcols) != len(ycols):
            raise ZylaError("DimensionMismatch", f"{fname}: {len(xcols)} x series and "
                            f"{len(ycols)} y series")
        for x, y in zip(xcols, ycols, strict=True):
            if x.size != y.size:
                raise ZylaError("DimensionMismatch",
                                f"{fname}: x has {x.size} values, y has {y.size}")
        return list(zip(xcols, ycols, strict=True))
    raise ZylaError("MethodError", f"no method matching {fname} with {len(args)} "
                    "positional arguments", hint=f"{fname}(y), {fname}(x, y) or "
                    f"{fname}(f, lo, hi)")


def _per_series(v: Any, i: int) -> Any:
    """A 1×n matrix attribute gives series i its own value (cycling), as in Plots.jl."""
    if isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[1] == 1:  # Julia 1×n
        return _name(v[i % v.shape[0], 0])
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype == object:
        return _name(v[i % v.size])
    return v


def _span(panel: Panel) -> tuple[float, float]:
    xs = [s.x for s in panel.series if s.x.size]
    if not xs:
        return (-5.0, 5.0)
    lo, hi = U._limits(np.concatenate(xs), None)
    return lo, hi


def _new_series(kind: str, args: tuple, attrs: dict[str, Any], fname: str,
                start: int, panel: Panel) -> list[Series]:
    kind = _SERIES_TYPES.get(str(attrs.get("seriestype", kind)), None) or kind
    if kind == "heatmap":
        return [_heatmap_series(args, fname)]
    if kind == "histogram":
        if len(args) != 1:
            raise ZylaError("MethodError", f"{fname} takes one vector of values")
        pairs = [(np.zeros(0), y) for y in _columns(args[0], "x")]
    else:
        pairs = _xy_series(args, fname, _span(panel))
    out = []
    for i, (x, y) in enumerate(pairs):
        own = {k: _per_series(attrs[k], i) for k in _SERIES_ATTRS if k in attrs}
        own.setdefault("label", f"y{start + i + 1}")
        out.append(Series(kind, x, y, None, own))
    return out


def _heatmap_series(args: tuple, fname: str) -> Series:
    if len(args) == 1:
        z = args[0]
    elif len(args) == 3:
        z = args[2]
    else:
        raise ZylaError("MethodError", f"{fname}(z) or {fname}(x, y, z)")
    if not (isinstance(z, np.ndarray) and z.ndim == 2):
        raise ZylaError("ArgumentError", f"{fname}: z must be a matrix")
    zz = np.asarray(z, dtype=np.float64).T  # Julia's z[i, j] at y = i, x = j
    ny, nx = zz.shape
    if len(args) == 3:
        (x,), (y,) = _columns(args[0], "x"), _columns(args[1], "y")
        if x.size != nx or y.size != ny:
            raise ZylaError("DimensionMismatch", f"{fname}: z is {ny}×{nx} but x has "
                            f"{x.size} values and y {y.size}")
    else:
        x, y = np.arange(1, nx + 1, dtype=np.float64), np.arange(1, ny + 1, dtype=np.float64)
    return Series("heatmap", x, y, zz, {"label": ""})


def _axis(attrs: dict[str, Any], axis: str) -> None:
    """Plots' `xaxis = (:log10, "iteration", (1, 100))`: a scale (a Symbol), a label (a
    String) and limits (a pair), in any order, each optional."""
    v = attrs.pop(axis + "axis", None)
    for part in v if isinstance(v, tuple) and not (
            len(v) == 2 and all(isinstance(e, int | float) for e in v)) else (v,):
        part = _name(part)
        if isinstance(part, str) and part in _SCALES:
            attrs[axis + "scale"] = part
        elif isinstance(part, str):
            attrs[axis + "label"] = part
        elif isinstance(part, tuple):
            attrs[axis + "lims"] = part


def _panel_attrs(panel: Panel, attrs: dict[str, Any]) -> None:
    _axis(attrs, "x")
    _axis(attrs, "y")
    for k in ("title", "xlabel", "ylabel", "xlims", "ylims", "xscale", "yscale", "legend",
              "grid", "colorbar"):
        if k in attrs:
            panel.attrs[k] = attrs[k]


def _figure_attrs(fig: Figure, attrs: dict[str, Any]) -> None:
    if "size" in attrs:
        w, h = (int(v) for v in attrs["size"])
        fig.size = (U._size(w, "size[1]", 50, 8000), U._size(h, "size[2]", 50, 8000))
    if "dpi" in attrs:
        fig.dpi = U._size(attrs["dpi"], "dpi", 10, 1200)


def _grid(n: int, layout: Any) -> tuple[int, int]:
    if layout is None:
        cols = math.ceil(math.sqrt(n))
        return math.ceil(n / cols), cols
    if isinstance(layout, int):
        return layout, 1
    r, c = (int(v) for v in layout)
    if r * c < n:
        raise ZylaError("ArgumentError", f"layout ({r}, {c}) has room for {r * c} plots, "
                        f"not {n}")
    return r, c


# --- the language's functions ---------------------------------------------------------------


def _add(fig: Figure, kind: str, args: tuple, kw: dict[str, Any], fname: str) -> Figure:
    attrs = _attributes(kw, fname)
    panel = fig.panels[-1]
    if args:
        panel.series += _new_series(kind, args, attrs, fname, fig.nseries(), panel)
    _panel_attrs(panel, attrs)
    _figure_attrs(fig, attrs)
    return _set_current(fig)


def _make(kind: str, fname: str) -> Any:
    def new(*args: Any, **kw: Any) -> Figure:
        if args and all(isinstance(a, Figure) for a in args):  # plot(p1, p2; layout)
            attrs = _attributes(kw, fname)
            fig = Figure([pn for a in args for pn in a.panels])
            fig.layout = _grid(len(fig.panels), attrs.get("layout"))
            _figure_attrs(fig, attrs)
            return _set_current(fig)
        return _add(Figure(), kind, args, kw, fname)

    def add(*args: Any, **kw: Any) -> Figure:
        if args and isinstance(args[0], Figure):
            return _add(args[0], kind, args[1:], kw, fname + "!")
        return _add(_current(), kind, args, kw, fname + "!")

    return new, add


def _setter(attr: str) -> Any:
    def set_(*args: Any) -> Figure:
        fig, rest = (args[0], args[1:]) if args and isinstance(args[0], Figure) else (
            _current(), args)
        if len(rest) == 1:
            value = rest[0]
        elif len(rest) == 2 and attr.endswith("lims"):
            value = (rest[0], rest[1])
        else:
            raise ZylaError("MethodError", f"{attr}!([plot,] value)")
        fig.panels[-1].attrs[attr] = _name(value)
        return _set_current(fig)

    return set_


def savefig(*args: Any) -> None:
    """`savefig([plot,] path)`: the file's format from its extension."""
    if len(args) == 2 and isinstance(args[0], U.Plot | U.Histogram):
        return U.savefig(*args)  # a UnicodePlots plot
    fig, path = (args[0], args[1]) if len(args) == 2 else (_current(), args[0] if args else None)
    if not isinstance(fig, Figure):
        raise ZylaError("MethodError", "savefig expects a plot")
    if not isinstance(path, str) or not path:
        raise ZylaError("ArgumentError", "savefig needs a file name")
    ext = path[path.rfind("."):].lower() if "." in path else ""
    if ext == ".txt":
        data = (fig.jl_display() + "\n").encode()
    elif ext in _FORMATS:
        data = render(fig, _FORMATS[ext])
    else:
        raise ZylaError("ArgumentError", f"savefig: unsupported file type {ext or '(none)'} "
                        f"of {path!r}", hint="use .png, .svg, .pdf or .txt")
    U.write_file(path, data)
    return None


def png(*args: Any) -> None:
    """`png([plot,] name)`: savefig to name.png (the extension added if missing)."""
    fig, name = (args[0], args[1]) if len(args) == 2 else (_current(), args[0])
    name = str(name)
    return savefig(fig, name if name.lower().endswith(".png") else name + ".png")


# --- drawing --------------------------------------------------------------------------------


def _color(v: Any) -> Any:
    if v is None or v == "auto":
        return None
    return str(v)


def _draw(ax: Any, s: Series, k: int, mfig: Any) -> None:
    """Series number k of its panel on matplotlib axes (each its own colour, as Plots)."""
    a = s.attrs
    label = str(a.get("label", "")) if a.get("label") not in (None, False) else ""
    style: dict[str, Any] = {"label": label or None,
                             "color": _color(a.get("color")) or f"C{k % 10}"}
    if "alpha" in a:
        style["alpha"] = float(a["alpha"])
    if s.kind in ("line", "step", "sticks"):
        style["linewidth"] = float(a.get("linewidth", 1.5))
        style["linestyle"] = _LINESTYLES.get(str(a.get("linestyle", "solid")), "-")
        if "marker" in a:
            style["marker"] = _MARKERS.get(str(a["marker"]), "o")
            style["markersize"] = float(a.get("markersize", 4))
        if s.kind == "step":
            ax.step(s.x, s.y, where="post", **style)
        elif s.kind == "sticks":
            ax.vlines(s.x, 0, s.y, **{k: v for k, v in style.items() if k != "linestyle"})
        else:
            ax.plot(s.x, s.y, **style)
    elif s.kind == "scatter":
        style["marker"] = _MARKERS.get(str(a.get("marker", "circle")), "o")
        style["s"] = float(a.get("markersize", 4)) ** 2
        ax.scatter(s.x, s.y, **style)
    elif s.kind == "histogram":
        bins = a.get("bins", "auto")
        bins = int(bins) if isinstance(bins, int | float) else (
            U._numbers(bins, "bins") if not isinstance(bins, str) else "auto")
        ax.hist(s.y[np.isfinite(s.y)], bins=bins, density=bool(a.get("normalize", False)),
                **style)
    elif s.kind == "bar":
        ax.bar(s.x, s.y, **style)
    elif s.kind == "heatmap":
        mesh = ax.pcolormesh(_edges(s.x), _edges(s.y), s.z, shading="flat")
        mfig.colorbar(mesh, ax=ax)


def _edges(c: np.ndarray) -> np.ndarray:
    """Cell edges around centres (a heatmap's x or y)."""
    if c.size == 1:
        return np.array([c[0] - 0.5, c[0] + 0.5])
    mid = (c[1:] + c[:-1]) / 2
    return np.concatenate([[2 * c[0] - mid[0]], mid, [2 * c[-1] - mid[-1]]])


def _style_axes(ax: Any, panel: Panel) -> None:
    a = panel.attrs
    ax.set_title(str(a.get("title", "")))
    ax.set_xlabel(str(a.get("xlabel", "")))
    ax.set_ylabel(str(a.get("ylabel", "")))
    for k, setter in (("xlims", ax.set_xlim), ("ylims", ax.set_ylim)):
        if isinstance(a.get(k), tuple | np.ndarray):
            setter(*U._opt_lim(a[k], k))
    for k, setter in (("xscale", ax.set_xscale), ("yscale", ax.set_yscale)):
        if k in a:
            setter(_SCALES.get(str(a[k]), "linear"))
    heat = any(s.kind == "heatmap" for s in panel.series)
    if a.get("grid", not heat):
        ax.grid(True, alpha=0.3)
    legend = a.get("legend", True)
    labelled = any(s.attrs.get("label") not in (None, "", False) for s in panel.series
                   if s.kind != "heatmap")
    if legend not in (False, "none") and labelled:
        ax.legend(loc="best" if legend in (True, "best") else str(legend).replace(
            "top", "upper ").replace("bottom", "lower ").strip())


def render(fig: Figure, fmt: str) -> bytes:
    """The figure as a file's bytes in format `fmt` (png, svg or pdf), drawn by matplotlib
    (no pyplot: no global state, no window)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    w, h = fig.size
    mfig = MplFigure(figsize=(w / 100, h / 100), dpi=fig.dpi)
    FigureCanvasAgg(mfig)
    rows, cols = fig.layout
    for i, panel in enumerate(fig.panels):
        ax = mfig.add_subplot(rows, cols, i + 1)
        for k, s in enumerate(panel.series):
            _draw(ax, s, k, mfig)
        _style_axes(ax, panel)
    mfig.tight_layout()
    buf = io.BytesIO()
    mfig.savefig(buf, format=fmt, dpi=fig.dpi)
    return buf.getvalue()


_SHADES = " ░▒▓█"


def _terminal(panel: Panel) -> str:
    """A panel drawn in the terminal: UnicodePlots' canvas for lines and points, its bars
    for a histogram, shaded blocks for a heatmap."""
    a = panel.attrs
    kinds = {s.kind for s in panel.series}
    if kinds == {"histogram"}:
        s = panel.series[0]
        bins = a.get("bins") if isinstance(a.get("bins"), int) else 10
        return U.make_histogram(s.y, nbins=bins, title=str(a.get("title", ""))).render()
    if "heatmap" in kinds:
        z = next(s.z for s in panel.series if s.kind == "heatmap")
        rows = [np.array_split(r, min(z.shape[1], 40), axis=1) for r in np.array_split(
            z[::-1], min(z.shape[0], 15))]
        lo, hi = float(np.nanmin(z)), float(np.nanmax(z))
        span = (hi - lo) or 1.0
        lines = [str(a.get("title", ""))] if a.get("title") else []
        for r in rows:
            lines.append("".join(_SHADES[min(4, int((float(np.nanmean(c)) - lo) / span * 5))]
                                 * 2 for c in r))
        lines.append(f"[{U._fmt(lo)}, {U._fmt(hi)}]")
        return "\n".join(lines)
    series = [U.Series(s.x, s.y, str(s.attrs.get("label", "")), s.kind != "scatter")
              for s in panel.series if s.kind in ("line", "scatter", "step", "sticks", "bar")]
    lims = {k: U._opt_lim(a[k], k) for k in ("xlims", "ylims")
            if isinstance(a.get(k), tuple | np.ndarray)}
    return U.Plot(series, str(a.get("title", "")), str(a.get("xlabel", "")),
                  str(a.get("ylabel", "")), xlim=lims.get("xlims"),
                  ylim=lims.get("ylims")).render()


def install(rt: Any) -> None:
    """Register `Plots.*` (the stdlib file plots.jl binds the short names on `using`)."""
    host = HostOnly("plots are drawn on the host")
    anyt = lambda *a, **k: V.AnyT  # noqa: E731
    table: dict[str, Any] = {"Plots.savefig": savefig, "Plots.png": png,
                             "Plots.current": _current}
    for kind, fname in (("line", "plot"), ("scatter", "scatter"),
                        ("histogram", "histogram"), ("heatmap", "heatmap"), ("bar", "bar")):
        new, add = _make(kind, fname)
        table[f"Plots.{fname}"], table[f"Plots.{fname}!"] = new, add
    for attr in ("title", "xlabel", "ylabel", "xlims", "ylims"):
        table[f"Plots.{attr}!"] = _setter(attr)
    for name, fn in table.items():
        rt.builtins[name] = prim(name, fn, host, NONDIFF, anyt)
