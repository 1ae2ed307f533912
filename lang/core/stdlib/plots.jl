# Plots: Plots.jl's plotting functions (`using Plots`). Figures are kept on the host and
# drawn by lang/door/figures.py: files through matplotlib, the terminal with braille.

"""
    plot([x,] y; label, title, xlabel, ylabel, xlims, ylims, lw, color, linestyle, marker, ...)
    plot(f, lo, hi)

A new plot (the current one from now on): one series per vector, per column of a matrix,
or of a function over a range. `savefig("loss.png")` writes it; the REPL shows it.
"""
const plot = Plots.plot

"""
    plot!([p,] args...; kw...)

Add series or attributes to the current plot (or to `p`).
"""
const plot! = Plots.plot!
const scatter = Plots.scatter
const scatter! = Plots.scatter!

"""
    histogram(x; bins, normalize, label, ...)

The counts of the values of `x` per bin, as bars.
"""
const histogram = Plots.histogram
const histogram! = Plots.histogram!

"""
    heatmap([x, y,] z; title, ...)

The matrix `z` as coloured cells: `z[i, j]` at row `y[i]`, column `x[j]`.
"""
const heatmap = Plots.heatmap
const heatmap! = Plots.heatmap!
const bar = Plots.bar
const bar! = Plots.bar!
const title! = Plots.title!
const xlabel! = Plots.xlabel!
const ylabel! = Plots.ylabel!
const xlims! = Plots.xlims!
const ylims! = Plots.ylims!

"""
    savefig([p,] path)

Write the current plot (or `p`) to `path`: PNG, SVG or PDF by the extension, or the
terminal drawing for `.txt`.
"""
const savefig = Plots.savefig
const png = Plots.png
const current = Plots.current

# the backend chooser of Plots.jl: one backend here (files through matplotlib)
gr(; kw...) = nothing
