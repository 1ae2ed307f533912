"""A representative Zyla/Julia source file for parser benchmarks, and its throughput.

`generate(lines)` builds a deterministic file of exactly `lines` lines in the style of
`examples/*.jl` and `lang/core/stdlib/*.jl`: struct definitions (plain, mutable, parametric,
with supertypes), callable structs, long and short method definitions with keyword
arguments, type annotations and `where`, loops, `if`/`elseif`/`else`, broadcasting
(dotted operators, `f.(x)`, `.=`), indexing with ranges and `end`, matrix and typed
vector literals, comprehensions and generators, string interpolation, named tuples,
closures and do-blocks, `let`/`try`, macros, comments (line and block) and expressions
spread over several lines. Every generated file parses with `grammar.parser.parse`.

`measure()` returns the throughput of `grammar.parser.parse` on such a file, in lines per
second: the median of several timed runs after a warm-up run (which also builds or loads
the LALR tables). Both are used by the benchmark suite; run this file to print a figure.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The seed of the generator: the same `lines` always gives the same text.
SEED = 20261122

_ACTIVATIONS = ("relu", "tanh", "sigmoid", "softplus", "gelu", "identity", "σ")
_REDUCERS = ("sum", "maximum", "minimum", "prod")
_TYPES = ("Float32", "Float64", "Int", "AbstractArray", "AbstractMatrix", "Real")


class _Names:
    """Fresh, deterministic identifiers and random choices for one generated file."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def pick(self, options: tuple[str, ...]) -> str:
        return self.rng.choice(options)

    def num(self) -> str:
        return self.rng.choice(("1", "2", "0.5", "1f-3", "0.01", "3", "1e-8", "0.9f0"))


# ---- templates: each returns a list of source lines ------------------------------------


def _struct_block(nm: _Names) -> list[str]:
    name = nm.fresh("Layer")
    act = nm.pick(_ACTIVATIONS)
    return [
        f"# {name}: an affine map followed by {act}",
        f"struct {name}",
        "    weight::Matrix{Float32}",
        "    bias::Vector{Float32}",
        "    σ",
        "end",
        f"{name}(nin::Integer, nout::Integer; σ={act}, scale=0.1f0) =",
        f"    {name}(randn(Float32, nout, nin) .* scale, zeros(Float32, nout), σ)",
        f"(l::{name})(x::AbstractVecOrMat) = l.σ.(l.weight * x .+ l.bias)",
        "",
    ]


def _param_struct_block(nm: _Names) -> list[str]:
    name = nm.fresh("State")
    return [
        f"mutable struct {name}{{T<:Real}} <: AbstractState",
        "    step::Int",
        "    lr::T",
        "    momentum::Vector{T}",
        "end",
        f"{name}(lr::T, n) where {{T}} = {name}{{T}}(0, lr, zeros(T, n))",
        "",
    ]


def _train_function(nm: _Names) -> list[str]:
    name = nm.fresh("train_epoch")
    red = nm.pick(_REDUCERS)
    return [
        f"function {name}(model, xs, ys; lr=0.01, epochs::Int=10, verbose=false)",
        "    losses = Float64[]",
        "    for epoch in 1:epochs",
        "        total = 0.0",
        "        for (x, y) in zip(xs, ys)",
        "            l, g = withgradient(m -> loss(m, x, y), model)",
        "            model = update(model, g[1]; lr=lr)",
        "            total += l",
        "        end",
        "        push!(losses, total / length(xs))",
        "        if verbose && epoch % 5 == 0",
        '            println("epoch $epoch: loss $(round(losses[end]; digits=4))")',
        "        elseif isnan(total)",
        '            error("diverged at epoch ", epoch)',
        "        else",
        "            continue",
        "        end",
        "    end",
        f"    return model, {red}(losses) / length(losses)",
        "end",
        "",
    ]


def _math_function(nm: _Names) -> list[str]:
    name = nm.fresh("normalize")
    a, b = nm.num(), nm.num()
    return [
        f"function {name}(x::AbstractArray{{T}}; dims=1, eps=T({a})) where {{T<:Real}}",
        "    μ = sum(x; dims=dims) ./ size(x, dims)",
        "    σ² = sum(abs2.(x .- μ); dims=dims) ./ size(x, dims)",
        f"    y = (x .- μ) ./ sqrt.(σ² .+ eps) .* {b}",
        "    y[1, :] .= 0",
        "    return y'",
        "end",
        "",
    ]


def _short_defs(nm: _Names) -> list[str]:
    f = nm.fresh("f")
    g = nm.fresh("g")
    act = nm.pick(_ACTIVATIONS)
    t = nm.pick(_TYPES)
    return [
        f"{f}(x) = 2x^2 - 3x + 1",
        f"{f}(x::{t}, y::{t}) = x * y' + {act}.(x)",
        f"{g}(xs...; kw...) = {f}(xs[1], xs[end]) + length(kw)",
        f"{g}(a, b=2; scale::Float64=1.0) = scale * (a + b) / 2 <= 10 ? a : b",
    ]


def _loop_block(nm: _Names) -> list[str]:
    acc = nm.fresh("acc")
    n = nm.rng.randint(3, 99)
    return [
        f"{acc} = zeros(Float32, {n}, {n})",
        f"for i in 1:{n}, j in 1:{n}",
        f"    {acc}[i, j] = i == j ? 1f0 : Float32(1 / (i + j - 1))",
        "end",
        "k = 0",
        f"while k < {n} && {acc}[k+1, 1] > 0.001",
        "    global k += 1",
        "end",
    ]


def _arrays_block(nm: _Names) -> list[str]:
    m = nm.fresh("M")
    v = nm.fresh("v")
    return [
        f"{m} = [1 2 3; 4 5 6; 7 8 9]",
        f"{v} = Float32[0.1, 0.2, 0.3, -0.4]",
        f"{v}2 = [x^2 for x in {v} if x > 0]",
        f"{m}t = {m}[2:end, [1, 3]] .+ {m}[:, 1]' .* 2",
        f"pairs_{v} = [(i, j) for i in 1:3, j in i:3]",
        f"total_{v} = sum(abs(x) for x in {v}) + maximum({m}[end, :])",
    ]


def _strings_block(nm: _Names) -> list[str]:
    name = nm.fresh("report")
    return [
        f"function {name}(io, name::String, values)",
        '    header = "== $(uppercase(name)) =="',
        "    println(io, header)",
        "    for (i, v) in enumerate(values)",
        '        println(io, "  [$i] ", name, " = $(round(v; digits=3)) ($(typeof(v)))")',
        "    end",
        "    sep = '-'",
        '    println(io, repeat(sep, length(header)), "\\n")',
        "end",
        "",
    ]


def _multiline_block(nm: _Names) -> list[str]:
    cfg = nm.fresh("config")
    act = nm.pick(_ACTIVATIONS)
    return [
        f"{cfg} = (lr = 1e-3, batchsize = 64, hidden = [128, 64],",
        f"    activation = {act}, seed = 42,",
        "    schedule = t -> 0.5 * (1 + cos(π * t / 100)))",
        f"model_{cfg} = Chain(Dense(784 => {cfg}.hidden[1], {act}),",
        f"                   Dense({cfg}.hidden[1] => {cfg}.hidden[2], {act}),",
        f"                   Dense({cfg}.hidden[2] => 10))",
        f"result_{cfg} = {cfg}.lr *",
        f"    {cfg}.batchsize +",
        "    sum([1, 2, 3])",
    ]


def _closures_block(nm: _Names) -> list[str]:
    name = nm.fresh("apply_all")
    red = nm.pick(_REDUCERS)
    return [
        f"function {name}(fs, x)",
        "    ys = map(f -> f(x), fs)",
        "    zs = map(ys) do y",
        f"        {red}(y .* y) |> sqrt",
        "    end",
        "    filter(z -> z > 0, zs)",
        "end",
        "",
    ]


def _let_try_block(nm: _Names) -> list[str]:
    name = nm.fresh("safe_div")
    return [
        f"function {name}(a, b)",
        "    let c = a, d = b",
        "        try",
        "            c / d",
        "        catch err",
        '            @warn "division failed" err',
        "            NaN",
        "        finally",
        "            nothing",
        "        end",
        "    end",
        "end",
        "",
    ]


def _macros_block(nm: _Names) -> list[str]:
    f = nm.fresh("check")
    return [
        f"{f}(x) = x ≈ 1.0 || x ∈ (2, 3)",
        f"@assert {f}(1.0) \"{f} failed\"",
        f"@show {f}(2) typeof(x -> x + 1)",
        f"@test {f}(3) == true",
        f"@test_throws ErrorException error(\"{f}\")",
    ]


def _comment_block(nm: _Names) -> list[str]:
    section = nm.fresh("section")
    return [
        f"# ---- {section}: helpers " + "-" * 40,
        "#= A block comment spanning lines,",
        "   describing the helpers below. =#",
        "",
    ]


def _optimiser_block(nm: _Names) -> list[str]:
    name = nm.fresh("adam_step!")
    return [
        f"function {name}(p, g, m, v, t; β1=0.9, β2=0.999, η=1e-3, ϵ=1e-8)",
        "    @. m = β1 * m + (1 - β1) * g",
        "    @. v = β2 * v + (1 - β2) * g^2",
        "    m̂ = m ./ (1 - β1^t)",
        "    v̂ = v ./ (1 - β2^t)",
        "    p .-= η .* m̂ ./ (sqrt.(v̂) .+ ϵ)",
        "    return (; p, m, v)",
        "end",
        "",
    ]


def _dict_block(nm: _Names) -> list[str]:
    d = nm.fresh("counts")
    return [
        f"{d} = Dict{{Symbol, Int}}(:a => 1, :b => 2)",
        f"for (k, v) in {d}",
        f"    {d}[k] = v + 1",
        "end",
        f"keys_{d} = sort(collect(keys({d})))",
    ]


_TEMPLATES: tuple[Callable[[_Names], list[str]], ...] = (
    _struct_block, _param_struct_block, _train_function, _math_function, _short_defs,
    _loop_block, _arrays_block, _strings_block, _multiline_block, _closures_block,
    _let_try_block, _macros_block, _comment_block, _optimiser_block, _dict_block,
)


def generate(lines: int = 10000) -> str:
    """A deterministic Zyla source file of exactly `lines` lines (each ending in a
    newline). Whole templates are emitted while they fit; the rest is padded with
    one-line statements so that the file always parses."""
    rng = random.Random(SEED)
    names = _Names(rng)
    out: list[str] = ["# generated by bench/parser_input.py", "using LinearAlgebra, Statistics"]
    while True:
        block = rng.choice(_TEMPLATES)(names)
        if len(out) + len(block) > lines:
            break
        out.extend(block)
    while len(out) < lines:
        out.append(f"pad{len(out)} = {names.num()} * {len(out)}")
    return "\n".join(out[:lines]) + "\n"


def measure(lines: int = 10000, repeats: int = 5) -> float:
    """Lines per second of `grammar.parser.parse` on `generate(lines)`: the median of
    `repeats` timed runs (wall-clock time), after one untimed warm-up run. Each run's
    AST is freed after its timer stops: freeing it is not part of parsing."""
    from grammar.parser import parse

    text = generate(lines)
    parse(text, "bench.jl")  # warm-up: tables, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        program = parse(text, "bench.jl")
        times.append(time.perf_counter() - t0)
        del program
    return lines / statistics.median(times)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    print(f"{measure(n):.0f} lines/s on a generated {n}-line file")
