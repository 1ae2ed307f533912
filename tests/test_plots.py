"""`using UnicodePlots`: line plots, scatter plots and histograms drawn in the terminal,
and saved as text or PNG."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.core.safety import configure
from lang.door.wiring import Runtime


@pytest.fixture(scope="module")
def rt() -> Runtime:
    r = Runtime()
    r.run_source("using UnicodePlots\n", "p.jl")
    return r


def test_lineplot_frame_limits_and_labels(rt: Runtime) -> None:
    plt = rt.run_source('lineplot([1.0, 4.0, 2.0]; title="loss", xlabel="step", name="train",'
                        " width=20, height=5)", "p.jl")
    text = plt.render()
    lines = text.splitlines()
    assert lines[0].strip() == "loss"
    assert lines[1].strip() == "┌" + "─" * 20 + "┐"
    assert lines[2].lstrip().startswith("4 │") and lines[2].endswith("│ train")
    assert lines[6].lstrip().startswith("1 │")
    assert lines[8].split() == ["1", "3"]
    assert lines[9].strip() == "step"
    body = "".join(ln.split("│")[1] for ln in lines[2:7])
    assert any("\u2800" < c <= "\u28ff" for c in body)  # braille dots were drawn


def test_lineplot_bang_and_scatter(rt: Runtime) -> None:
    plt = rt.run_source("p = lineplot(1:10, (1:10) .^ 2; name=\"a\")\n"
                        "lineplot!(p, 1:10, 1:10; name=\"b\")\np", "p.jl")
    assert len(plt.series) == 2 and "│ b" in plt.render()
    sc = rt.run_source("scatterplot([1.0, 2.0], [3.0, 1.0])", "p.jl")
    assert not sc.series[0].lines


def test_histogram_counts(rt: Runtime) -> None:
    h = rt.run_source("histogram([1.0, 1.0, 2.0, 3.0, 3.0, 3.0]; nbins=3)", "p.jl")
    lines = h.render().splitlines()
    assert [int(ln.rsplit(" ", 1)[1]) for ln in lines[1:4]] == [2, 1, 3]
    assert lines[-1].strip() == "Frequency"


def test_savefig_png_and_text(rt: Runtime, tmp_path: Path) -> None:
    png, txt = tmp_path / "loss.png", tmp_path / "loss.txt"
    configure(rt, None, allow_write=[str(tmp_path)])
    rt.run_source(f'p = lineplot([3.0, 1.0, 2.0])\nsavefig(p, "{png}")\nsavefig(p, "{txt}")\n',
                  "p.jl")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    idat = data[data.index(b"IDAT") + 4: data.index(b"IEND") - 8]
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, 1 + 3 * width)
    pixels = raw[:, 1:].reshape(height, width, 3)
    assert (pixels[1:-1, 1:-1] != 255).any()  # the line was drawn
    assert txt.read_text().startswith("   ┌") or "┌" in txt.read_text()


@pytest.mark.parametrize("src", ['lineplot(Float64[])', 'lineplot([1.0], [1.0, 2.0])',
                                 'lineplot([1.0]; width=0)', 'histogram(["a"])',
                                 'lineplot([1.0]; ylim=(2, 1))', 'savefig(1, "x.png")'])
def test_bad_arguments_are_clean_errors(rt: Runtime, src: str) -> None:
    with pytest.raises(ZylaError) as info:
        rt.run_source(src, "p.jl")
    assert info.value.kind != "InternalError"


def test_help_for_plots(rt: Runtime) -> None:
    from lang.door.docs import help_text

    assert "training loss curve" in help_text(rt, "lineplot")
