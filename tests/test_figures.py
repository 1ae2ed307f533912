"""`using Plots`: Plots.jl's figures (lang/door/figures.py), their series and attributes,
the current plot, files written through matplotlib and the permission gate, and the
terminal drawing."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.core.safety import configure
from lang.door.figures import Figure
from lang.door.wiring import Runtime


@pytest.fixture()
def rt(tmp_path: Path) -> Runtime:
    r = Runtime()
    r.run_source("using Plots\n", "p.jl")
    configure(r, None, allow_write=[str(tmp_path)])
    return r


def _pixels(path: Path) -> np.ndarray:
    from matplotlib.image import imread

    return (imread(io.BytesIO(path.read_bytes()), format="png")[..., :3] * 255).round()


def test_series_of_a_matrix_labels_and_the_current_plot(rt: Runtime) -> None:
    p = rt.run_source('x = 1:4\np = plot(x, [x x .^ 2]; label=["lin" "sq"], title="t")\n'
                      'plot!(x, 2x; label="double", lw=3)\np', "p.jl")
    assert isinstance(p, Figure) and p.nseries() == 3
    (panel,) = p.panels
    assert [s.attrs["label"] for s in panel.series] == ["lin", "sq", "double"]
    np.testing.assert_array_equal(panel.series[1].y, [1, 4, 9, 16])
    np.testing.assert_array_equal(panel.series[2].y, [2, 4, 6, 8])
    assert panel.series[2].attrs["linewidth"] == 3 and panel.attrs["title"] == "t"
    assert rt.run_source("println(p)", "p.jl") is None
    assert p.jl_show() == "Plot{Plots.GRBackend() n=3}"
    # the ! forms change the current plot; a new plot replaces it
    q = rt.run_source('scatter([1.0, 2.0], [3.0, 4.0])\nxlabel!("step")\ncurrent()', "p.jl")
    assert q is not p and q.panels[0].attrs["xlabel"] == "step"
    assert q.panels[0].series[0].kind == "scatter"


def test_functions_are_evaluated_over_ranges(rt: Runtime) -> None:
    p = rt.run_source("plot(sin, 0, pi)\nplot!(x -> 2x)\nplot!(0:0.5:1, cos)\ncurrent()",
                      "p.jl")
    s1, s2, s3 = p.panels[0].series
    assert s1.x[0] == 0 and s1.x[-1] == pytest.approx(np.pi) and s1.x.size == 200
    np.testing.assert_allclose(s1.y, np.sin(s1.x))
    np.testing.assert_allclose(s2.x, s1.x)  # over the x extent of the plot so far
    np.testing.assert_allclose(s2.y, 2 * s1.x)
    np.testing.assert_allclose(s3.y, np.cos([0, 0.5, 1]))


def test_heatmap_orientation_and_histogram(rt: Runtime) -> None:
    h = rt.run_source("heatmap([1 2 3; 4 5 6])", "p.jl")
    s = h.panels[0].series[0]
    # Julia's z[i, j] is drawn at y = i, x = j: rows of s.z follow y
    np.testing.assert_array_equal(s.z, [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(s.x, [1, 2, 3])
    np.testing.assert_array_equal(s.y, [1, 2])
    g = rt.run_source("histogram([1.0, 2.0, 2.0, 3.0]; bins=3)", "p.jl")
    assert g.panels[0].series[0].kind == "histogram"
    assert g.panels[0].series[0].attrs["bins"] == 3


def test_files_png_svg_pdf_and_text(rt: Runtime, tmp_path: Path) -> None:
    rt.run_source(f'p = plot([0.0, 1.0], [0.5, 0.5]; color=:red, lw=8, ylims=(0, 1), '
                  f'size=(300, 200), title="Loss curve", xlabel="epoch", label="train")\n'
                  f'savefig("{tmp_path}/a.png")\nsavefig(p, "{tmp_path}/a.svg")\n'
                  f'savefig(p, "{tmp_path}/a.pdf")\nsavefig(p, "{tmp_path}/a.txt")\n'
                  f'png(p, "{tmp_path}/b")\n', "p.jl")
    px = _pixels(tmp_path / "a.png")
    assert px.shape == (200, 300, 3)  # size in pixels at the default 100 dpi
    red = (px[..., 0] > 200) & (px[..., 1] < 60) & (px[..., 2] < 60)
    rows = np.nonzero(red.sum(axis=1) > 100)[0]  # a long red horizontal line
    assert rows.size and 0.2 * 200 < rows.mean() < 0.8 * 200
    svg = (tmp_path / "a.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert (tmp_path / "a.pdf").read_bytes()[:5] == b"%PDF-"
    assert "┌" in (tmp_path / "a.txt").read_text()
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_layout_of_several_plots(rt: Runtime, tmp_path: Path) -> None:
    f = rt.run_source(f'g = plot(plot(1:3), histogram(randn(50)), heatmap(rand(3, 4)); '
                      f'layout=(1, 3), size=(900, 300))\nsavefig(g, "{tmp_path}/g.png")\ng',
                      "p.jl")
    assert f.layout == (1, 3) and len(f.panels) == 3
    assert _pixels(tmp_path / "g.png").shape == (300, 900, 3)


def test_terminal_display(rt: Runtime) -> None:
    p = rt.run_source('plot([1.0, 3.0, 2.0]; title="loss", label="train")', "p.jl")
    text = p.jl_display()
    assert text.splitlines()[0].strip() == "loss" and "train" in text
    assert any("\u2800" < c <= "\u28ff" for c in text)
    hm = rt.run_source("heatmap([0.0 1.0; 2.0 3.0])", "p.jl").jl_display()
    assert hm.splitlines()[-1] == "[0, 3]" and "█" in hm


def test_unknown_keyword_warns_and_is_ignored(rt: Runtime, capsys: pytest.CaptureFixture
                                              ) -> None:
    rt.run_source("plot([1.0, 2.0]; hover=\"x\")\nplot([1.0]; hover=\"y\")", "p.jl")
    err = capsys.readouterr()
    text = err.out + err.err
    assert text.count("the keyword `hover` is not supported") == 1


@pytest.mark.parametrize("src,kind", [
    ('savefig("x.png")', "ErrorException"),  # no current plot yet
    ('plot([1.0]); savefig("x.bmp")', "ArgumentError"),
    ("plot([1.0, 2.0], [1.0])", "DimensionMismatch"),
    ("plot(1, 2, 3, 4)", "MethodError"),
    ('heatmap([1.0, 2.0])', "ArgumentError"),
    ("plot(plot([1.0]), plot([2.0]); layout=(1, 1))", "ArgumentError"),
])
def test_bad_calls_are_clean_errors(src: str, kind: str) -> None:
    r = Runtime()
    r.run_source("using Plots\n", "p.jl")
    with pytest.raises(ZylaError) as info:
        r.run_source(src, "p.jl")
    assert info.value.kind == kind


def test_writing_needs_permission(tmp_path: Path) -> None:
    r = Runtime()
    r.run_source("using Plots\n", "p.jl")
    with pytest.raises(ZylaError) as info:
        r.run_source(f'plot([1.0]); savefig("{tmp_path}/no.png")', "p.jl")
    assert info.value.kind == "SystemError" and "is not allowed" in str(info.value)
    assert not (tmp_path / "no.png").exists()


def test_axis_attribute_tuples(rt: Runtime) -> None:
    p = rt.run_source('plot([1.0, 10.0, 100.0]; xaxis=(:log10, "iteration"), yaxis="loss")',
                      "p.jl")
    a = p.panels[0].attrs
    assert (a["xscale"], a["xlabel"], a["ylabel"]) == ("log10", "iteration", "loss")
