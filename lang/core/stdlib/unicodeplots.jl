# UnicodePlots: plots drawn with Unicode characters in the terminal (`using UnicodePlots`).
# The drawing runs on the host (lang/door/plots.py).

"""
    lineplot([x,] y; title="", xlabel="", ylabel="", name="", width=40, height=15, xlim, ylim)

A line plot of `y` against `x` (default `1:length(y)`), drawn with braille characters:
the REPL displays it, `println` prints it and `savefig(plt, "file.png")` writes it as an
image. A training loss curve: `lineplot(losses; title="loss", xlabel="step")`.
"""
const lineplot = UnicodePlots.lineplot

"""
    scatterplot([x,] y; title="", xlabel="", ylabel="", name="", width=40, height=15)

Points of `y` against `x`, not joined.
"""
const scatterplot = UnicodePlots.scatterplot

"""
    lineplot!(plt, [x,] y; name="")

Add another series to a plot made by `lineplot` or `scatterplot`.
"""
const lineplot! = UnicodePlots.lineplot!

"""
    histogram(x; nbins=10, title="", width=40)

The counts of the values of `x` in `nbins` equal bins, as horizontal bars.
"""
const histogram = UnicodePlots.histogram

"""
    savefig(plt, path)

Write a plot to `path`: a PNG image when `path` ends in `.png`, otherwise its text.
"""
const savefig = UnicodePlots.savefig
