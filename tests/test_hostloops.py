"""Loop specialisations (lang.core.hostcode `_Gen.loop_entry`, lang.core.hostkeys): a
`for` loop written again for the kinds of the values it uses from outside (a Dict{String,
Int64}, a vector of SubStrings, a Float64 vector, a range), against the interpreter loop.

Each program runs translated and on the interpreter loop alone (tests/test_hostcode.py's
`same`), and the test checks that the loop's specialisation was made and ran. The cases
are those where such code could go wrong: an element not of the kind the loop was written
for (the loop goes on in its general code, where it stopped), a vector changed while it is
iterated, an error inside the loop (its location and trace), Int64 wrap-around in a count,
a `return` or `break` out of the loop, and a method added to `get` after the loop ran.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from snippets import evaluated, host_runtime

from lang.core import hostcode
from lang.door.api import Zyla

#: the two runtimes of each program in the running test (translated, interpreter loop
#: only), made at its first call: a runtime is not freed, so a test's calls share them
#: (later calls also meet the loops' specialisations that earlier ones made)
_PAIRS: dict[str, tuple[Zyla, Zyla]] = {}


@pytest.fixture(autouse=True)
def _fresh_pairs() -> Any:
    _PAIRS.clear()
    yield
    _PAIRS.clear()


def _runtime(src: str, translate: bool) -> Zyla:
    z = host_runtime(translate)
    with contextlib.redirect_stdout(io.StringIO()):
        z.rt.run_source(src, "prog.jl")
    return z


def same(src: str, expr: str) -> tuple[str, Any]:
    """What `expr` gives after `src`, translated and on the interpreter loop alone: the
    value shown and the output, or the error's kind, message, line and trace; the two
    must agree."""
    pair = _PAIRS.get(src)
    if pair is None:  # (the translated one last: the primitives' table is the newest
        # runtime's, and translated code writes a primitive inline only if it is its own)
        interpreted = _runtime(src, False)
        pair = _PAIRS[src] = (_runtime(src, True), interpreted)
    a, b = (evaluated(z, (expr, "call.jl")) for z in pair)
    assert a == b, f"translated: {a}\ninterpreted: {b}\n{src}\n{expr}"
    return a


class Made(list):
    """The loop specialisations made while a test runs (None where one did not
    translate), and how many of their runs stopped at an element of another kind."""

    stopped = 0


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Made:
    out = Made()
    real = hostcode._loop_spec

    def spy(*a: Any, **k: Any) -> Any:
        spec = real(*a, **k)
        out.append(spec)
        if spec is None:
            return None

        def run(*b: Any) -> Any:
            r = spec(*b)
            if r[0] is not hostcode._DONE:
                out.stopped += 1
            return r

        return run

    monkeypatch.setattr(hostcode, "_loop_spec", spy)
    return out


COUNT = """
function count_words(lines)
    counts = Dict{String,Int}()
    for line in lines
        for w in split(line)
            counts[w] = get(counts, w, 0) + 1
        end
    end
    counts
end
function words(n)
    ws = String[]
    for i in 1:n
        push!(ws, "w" * string(i % 7) * (i % 3 == 0 ? " x  y" : " z"))
    end
    ws
end
shown(c) = join(sort([k * "=" * string(v) for (k, v) in c]), ",")
"""


def test_a_word_count_runs_specialised(made: Made, monkeypatch: pytest.MonkeyPatch) -> None:
    # the words are the split's texts: no SubString is made for them
    texts: list[int] = []
    real = hostcode.split_texts
    monkeypatch.setattr(hostcode, "split_texts", lambda s: texts.append(1) or real(s))
    kind, (value, _) = same(COUNT, "shown(count_words(words(40)))")
    assert kind == "value" and "x=13" in value
    assert made and all(made), "the loops' specialisations were made"
    assert len(texts) >= 30


def test_split_pieces_read_otherwise_stay_substrings(made: Made) -> None:
    # a piece read as more than a key, a Dict whose keys are not Strings, a value whose
    # type is not the Dict's: the pieces are SubStrings as the interpreter's
    src = COUNT + """
function lengths(lines)
    d = Dict{String,Int}()
    for line in lines
        for w in split(line)
            d[w] = get(d, w, 0) + length(w) + (typeof(w) == SubString{String} ? 100 : 0)
        end
    end
    d
end
function anykeys(lines)
    d = Dict{Any,Int}()
    for line in lines
        for w in split(line)
            d[w] = get(d, w, 0) + 1
        end
    end
    join(sort([string(typeof(k)) * string(v) for (k, v) in d]), ",")
end
function halves(lines)
    d = Dict{String,Float64}()
    for line in lines
        for w in split(line)
            d[w] = get(d, w, 0) + 0.5
        end
    end
    d
end
"""
    kind, (value, _) = same(src, "(shown(lengths(words(40))), anykeys(words(40)), "
                                 "shown(halves(words(40))))")
    assert kind == "value" and "x=1313" in value and "SubString{String}13" in value
    assert made and all(made)


def test_an_element_of_another_kind_goes_on_in_the_general_loop(made: Made) -> None:
    # a vector of SubStrings one of whose elements is a String: the specialised loop
    # stops there and the general one counts the rest (the count is the interpreter's)
    src = COUNT + """
function tally(ws)
    counts = Dict{String,Int}()
    for w in ws
        counts[w] = get(counts, w, 0) + 1
    end
    counts
end
"""
    # (an undefined element: its read is Julia's UndefRefError, on both paths)
    expr = """v = Vector{SubString{String}}(undef, 60)
for i in 1:59
    v[i] = split("a b c")[mod1(i, 3)]
end
tally(v)"""
    same(src, expr)
    assert made and all(made) and made.stopped == 1
    ws = "split(join([\"a\", \"b\", \"c\"][mod1.(1:60, 3)], \" \"))"
    kind, (value, _) = same(src, f"shown(tally({ws}))")
    assert kind == "value" and value == '"a=20,b=20,c=20"'


def test_changes_while_iterating_errors_and_wrap_around(made: Made) -> None:
    src = """
function grow(v)
    s = 0.0
    for x in v
        if length(v) < 80
            push!(v, x + 1.0)
        end
        s += x
    end
    s
end
function overflow(ws)
    d = Dict{String,Int}()
    d["a"] = typemax(Int) - 20
    for w in ws
        d[w] = get(d, w, 0) + 1
    end
    d["a"]
end
function failing(ws)
    d = Dict{String,Int}()
    for w in ws
        d[w] = get(d, w, 0) + 1
        d[w] > 30 && error("too many ", w)
    end
    d
end
function early(ws)
    d = Dict{String,Int}()
    for w in ws
        w == "q" && return length(d)
        d[w] = get(d, w, 0) + 1
    end
    -1
end
"""
    assert same(src, "grow(collect(1.0:40.0))")[0] == "value"
    kind, (value, _) = same(src, "overflow(split(\"a \" ^ 50))")
    assert kind == "value" and value == "-9223372036854775779"
    kind, (ekind, msg, line, trace) = same(src, "failing(split(\"b \" ^ 50))")
    assert kind == "error" and ekind == "ErrorException" and line == 24
    assert same(src, "early(split(\"a b c \" ^ 20 * \"q\"))")[1][0] == "3"
    assert made and all(made)


def test_a_method_added_to_get_is_seen(made: Made) -> None:
    # the loop's specialisation writes `get` as the Dict's own; a method added after it
    # ran takes the calls from then on
    src = COUNT + """
function tally(ws)
    d = Dict{String,Int}()
    for w in ws
        d[w] = get(d, w, 0) + 1
    end
    d
end
ws = split("a b " ^ 40)
"""
    expr = """r1 = shown(tally(ws))
Base.get(d::Dict{String,Int}, k::SubString{String}, t::Int) = 100
(r1, shown(tally(ws)))"""
    kind, (value, _) = same(src, expr)
    assert kind == "value" and value == '("a=40,b=40", "a=101,b=101")'
    assert made and all(made)


@settings(max_examples=12, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(["a", "bb", "ccc", "é", "x y", "", "δδ", "  "]),
                min_size=0, max_size=50),
       st.sampled_from(["0", "1.5", "-2"]))
def test_random_word_lists_agree(words: list[str], start: str) -> None:
    src = COUNT + """
function weigh(ws, start)
    d = Dict{String,Float64}()
    n = 0
    for w in ws
        for p in split(w)
            d[p] = get(d, p, start) + 0.5
            n += 1
        end
    end
    (n, shown(d))
end
"""
    lines = "[" + ", ".join(f'"{w}"' for w in words) + "]"
    same(src, f"(weigh(String{lines}, {start}), weigh(repeat(String{lines}, 3), {start}), "
              f"shown(count_words(String{lines})))")


def test_numeric_vectors_pushed_read_and_measured(made: Made) -> None:
    # push! of the element type is stored as it is, of another type converted; an index
    # out of bounds is the BoundsError at its line; Int64 sums wrap around
    src = """
function grown(n, x)
    v = Float64[]
    for i in 1:n
        push!(v, i * x)
    end
    w = Int[]
    for i in 1:n
        push!(w, i % 3 == 0 ? 9223372036854775000 : i)
    end
    flags = Bool[]
    for i in 1:n
        push!(flags, i % 2 == 0)
    end
    s = 0.0
    t = 0
    c = 0
    for i in 1:length(v)
        s += v[i] * v[i]
        t += w[i]
        c += flags[i] ? 1 : 0
    end
    (s, t, c, length(v))
end
function reads(v, k)
    s = 0.0
    for i in 1:k
        s += v[i]
    end
    s
end
"""
    kind, (value, _) = same(src, "(grown(40, 0.5), grown(40, 2))")
    assert kind == "value" and value.startswith("((5535.0, ")
    kind, (ekind, msg, line, trace) = same(src, "reads(collect(1.0:40.0), 41)")
    assert kind == "error" and ekind == "BoundsError" and line == 28
    assert made and all(made)


def test_remainders_and_interpolation_in_loops(made: Made) -> None:
    src = """
function rems(n, m)
    s = 0
    parts = String[]
    for i in -n:n
        s += i % m + (-i) % 7 + i % -3
        push!(parts, "r$(i % m)")
    end
    (s, join(parts, ",")[1:40])
end
"""
    kind, (value, _) = same(src, "(rems(40, 7), rems(40, -5))")
    assert kind == "value"
    kind, (ekind, _, line, _) = same(src, "rems(40, 0)")
    assert kind == "error" and ekind == "DivideError" and line == 6
    assert made and all(made)


def test_ranges_run_in_chunks_keep_breaks_and_returns() -> None:
    # a specialisation runs a range of Int64s as ranges of TICKS (1024) elements: the
    # lengths around a chunk's, steps both ways, `break`, `continue` and `return` inside
    src = """
function walk(n, step, stop)
    acc = 0
    for i in 1:step:n
        i == stop && break
        i % 5 == 0 && continue
        acc += i
    end
    for j in n:-step:1
        acc -= j % 3
    end
    acc
end
function first_over(n, limit)
    s = 0.0
    for i in 1:n
        s += sqrt(i)
        s > limit && return i
    end
    -1
end
"""
    calls = ", ".join(f"walk({n}, {st}, {stop})" for n in (0, 1, 1023, 1024, 1025, 3000)
                      for st in (1, 3) for stop in (-1, 1024, 2049))
    kind, (value, _) = same(src, f"({calls}, first_over(5000, 1.0e4), first_over(3000, 1.0e9))")
    assert kind == "value"


STRUCTS = """
struct P
    x::Float64
    k::Int
    on::Bool
end
struct Seg
    a::P
    b::P
end
mutable struct M
    v::Float64
end
struct Q{T}
    t::T
end
struct Own
    x::Float64
    Own(x) = new(2x)
end
gap(p::P, q::P) = sqrt((p.x - q.x)^2 + (p.k - q.k)^2) + (p.on ? 1 : 0)
len(s::Seg) = gap(s.a, s.b)
bump(m::M) = (m.v = 3; m.v + 1)
qval(q::Q) = q.t * 2
function walk(ps)
    s = 0.0
    n = 0
    for i in 2:length(ps)
        s += gap(ps[i], ps[i - 1]) + len(Seg(ps[i], ps[i - 1]))
        n += ps[i].k
    end
    (s, n)
end
function build(xs)
    ps = P[]
    for (i, x) in enumerate(xs)
        push!(ps, P(x, i % 4, x > 0.5))
    end
    ps
end
owns(n) = sum([Own(i * 1.0).x for i in 1:n])
"""


@settings(max_examples=10, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=0, max_size=45))
def test_arrays_of_structs_agree(xs: list[float]) -> None:
    lit = "Float64[" + ", ".join(repr(x) for x in xs) + "]"
    same(STRUCTS, f"(walk(build({lit})), walk(build({lit})), bump(M(1.5)), bump(M(2.5)), "
                  f"qval(Q(3)), qval(Q(1.5)), owns(3), owns(40))")


def test_struct_specialisations_see_methods_added_later() -> None:
    # field reads written as the struct's own see a getproperty added later; a
    # constructor added later leaves the structs made as before
    expr = """r1 = walk(build(collect(0.0:0.25:10.0)))
Base.getproperty(p::P, s::Symbol) = s === :k ? 100 : s === :x ? 1.5 : false
r2 = walk(build(collect(0.0:0.25:10.0)))
P(x::Float64) = P(x, 1, true)
(r1, r2, walk(build(collect(0.0:0.25:10.0))), P(2.0))"""
    kind, (value, _) = same(STRUCTS + "# (methods are added to this program)\n", expr)
    assert kind == "value" and "4000" in value


PUSHES = """
struct Pt; x::Float64; y::Float64; end
dist(a::Pt, b::Pt) = sqrt((a.x - b.x)^2 + (a.y - b.y)^2)


function points(n)
    ps = Pt[]
    for i in 1:n
        push!(ps, Pt(i / 4, (i % 5) * 0.5))
    end
    ps
end
path(ps) = (s = 0.0; for i in 2:length(ps); s += dist(ps[i - 1], ps[i]); end; s)
function names(n)
    v = String[]
    for i in 1:n
        push!(v, "name$(i)")
    end
    v
end
function picks(n)
    v = String[]
    for i in 1:n
        if i % 3 == 0
            push!(v, "a$(i)")
        elseif i % 3 == 1
            push!(v, "b$(i)")
            push!(v, "c$(i)")
        end
    end
    v
end
const SEEN = Any[]
function fills(n, bad)
    v = Float64[]; push!(SEEN, v); s = 0
    for i in 1:n; push!(v, i / 2); s += 10 % (i - bad); end
    (s, length(v))
end
function until(out, n, bad)
    s = 0
    for i in 1:n
        push!(out, i * 0.5)
        s += 10 % (i - bad)
    end
    (s, length(out))
end
function aliased(n)
    v = Float64[]
    w = [v]
    c = 0
    for i in 1:n
        push!(v, i * 1.0)
        c += length(w[1])
    end
    c
end
"""


def test_pushes_collected_by_a_loop(made: Made, monkeypatch: pytest.MonkeyPatch) -> None:
    # a loop that only pushes onto a vector (in its body, or in branches of `if`s in it)
    # collects the values and pushes them at its chunks' ends and where it is left (in
    # order): the vector is whole at the end, after an error
    # inside the loop (DivideError at i == bad), and when it is read through another
    # name meanwhile (not collected); a vector with a view is not grown at all
    pushed: list[int] = []
    real = hostcode.push_many
    monkeypatch.setattr(hostcode, "push_many", lambda a, xs: pushed.append(len(xs)) or real(a, xs))
    for n in (0, 1, 1023, 1024, 1025, 2500):
        kind, (value, _) = same(PUSHES, f"(length(points({n})), path(points({n})), "
                                        f"join(names({n}), \",\")[max(1, end - 30):end], "
                                        f"aliased({n}), length(picks({n})), "
                                        f"join(picks({n}), \" \")[max(1, end - 40):end])")
        assert kind == "value", value
    assert sum(pushed) >= 2 * (1024 + 1025 + 2500) + (683 + 683 + 1667)
    kind, (value, _) = same(PUSHES, "v = [1.0]; (until(v, 1500, 0), length(v), v[end])")
    s = sum(10 % i for i in range(1, 1501))
    assert kind == "value" and value == f"(({s}, 1501), 1501, 750.0)", value
    kind, (value, _) = same(PUSHES, """v = Float64[]
caught = try until(v, 2000, 1100) catch e; sprint(showerror, e) end
(caught, length(v), v[end])""")
    assert kind == "value" and value == '("DivideError: integer division error", 1100, 550.0)'
    for n, bad in ((0, 0), (1023, 0), (1024, 0), (3000, 1500), (3000, 1024), (1025, 1025)):
        kind, (value, _) = same(PUSHES, f"""r = try fills({n}, {bad}) catch e; e end
(r, length(SEEN[end]), isempty(SEEN[end]) ? 0.0 : SEEN[end][end])""")
        assert kind == "value" and (f", {n}, " in value if bad == 0 else
                                    value.startswith(f"(DivideError(), {bad}, ")), value
    kind, (ekind, _, line, _) = same(PUSHES, "until(Float64[], 2000, 1100)")
    assert kind == "error" and ekind == "DivideError" and line == 43
    kind, (ekind, msg, line, _) = same(PUSHES, "v = zeros(4); r = reshape(v, 2, 2); until(v, 9, 0)")
    assert kind == "error" and ekind == "ErrorException" and "shared data" in msg and line == 42
    assert made and all(made)


def test_a_struct_vector_element_of_another_kind_reruns_in_the_general_loop(made: Made) -> None:
    # `ps[i]` of a vector of Pts is read as a Pt (and `dist` called directly) after a
    # test that leaves the specialisation for the general loop, which runs the iteration
    # again, where the element is not a Pt (elements a resize! added: undefined slots,
    # whose read is an UndefRefError; Julia's slots of a plain-data struct hold whatever
    # the memory held, a value Zyla does not make up)
    kind, (value, _) = same(PUSHES, "path(points(300))")
    assert kind == "value"
    kind, (ekind, msg, line, _) = same(PUSHES, "ps = points(300); resize!(ps, 302); path(ps)")
    assert kind == "error" and ekind == "UndefRefError" and line == 13, (ekind, msg, line)
    assert made and all(made) and made.stopped >= 1
    # (the other kind of element that a Vector{Pt} can hold is an undefined slot: the
    # general loop goes on from it, and its read is the error, on the interpreter's line)


SHORT = """
function total(v, k)
    s = 0.0
    n = 0
    for x in v
        n += 1
        n > k && break
        s += x * 2
    end
    (s, n)
end
"""


@pytest.mark.parametrize("translates", [True, False])
def test_general_loops_are_written_when_first_needed(translates: bool,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a loop with an entry to its specialisations has its general form written when it
    # is first needed: for the entries of few iterations before a specialisation is
    # made, and after an element of another kind; where it does not translate so
    # (`translates`), the interpreter loop runs it
    resumed: list[bool] = []
    real = hostcode._loop_spec

    def spy(*a: Any, resume: bool = False, **k: Any) -> Any:
        if resume:
            resumed.append(True)
            if not translates:
                return None
        return real(*a, resume=resume, **k)

    monkeypatch.setattr(hostcode, "_loop_spec", spy)
    src = SHORT + f"# ({translates})\n"
    calls = ("total([1.0, 2.0], 5), total([3.0], 5), total(collect(1.0:40.0), 30), "
             "total(Any[1, 2.5, 3], 5), total(vcat(collect(1.0:40.0), [1]), 50), "
             "total([1.5, 2.5], 1)")
    kind, (value, _) = same(src, f"({calls})")
    assert kind == "value" and value.startswith("((6.0, 2), (6.0, 1), (930.0, 31), (13.0, 3)")
    kind, (ekind, _, line, trace) = same(src, 'total(vcat(collect(1.0:40.0), ["x"]), 50)')
    assert kind == "error" and ekind == "MethodError" and line == 8, (ekind, line, trace)
    assert resumed


#: `v[i + d]` for d in -3..3, one function each (`shifted_m3` ... `shifted_p3`; of struct
#: vectors: `fields_m3` ...): the offset is a constant where each is written
OFFSETS = "struct Q2\n    a::Float64\nend\n" + "".join(
    f"""function {name}_{'m' if d < 0 else 'p'}{abs(d)}(v, lo, hi)
    s = 0.0
    for i in lo:hi
        s += v[i + {d}]{field}
    end
    s
end
""" for d in range(-3, 4) for name, field in (("shifted", ""), ("fields", ".a"))) + """
tried(f, xs...) = try f(xs...) catch e; e end
thrice(f, xs...) = (tried(f, xs...), tried(f, xs...), tried(f, xs...))
"""


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(st.integers(0, 5), st.integers(-3, 3), st.integers(-3, 3), st.integers(0, 6))
def test_indexes_from_range_starts_keep_bounds(lo: int, width: int, d: int, n: int) -> None:
    """`v[i + d]` (d a constant) for `i` in `lo:hi` is read without a lower-bound test
    only where the range's start (0, 1, or 2 and above: its key) and d keep the index at
    1 or more, and without a length test, numpy's IndexError standing for it: every
    index out of bounds, 0 and negative ones included (which numpy would count from the
    end), is Julia's BoundsError, as on the interpreter, for Float64 vectors and struct
    vectors alike (a short loop is specialised at its third entry: each call is made
    three times)."""
    hi = lo + width
    floats = "Float64[" + ", ".join(f"{k}.5" for k in range(n)) + "]"
    structs = "[" + ", ".join(f"Q2({k}.25)" for k in range(n)) + "]"
    at = f"{'m' if d < 0 else 'p'}{abs(d)}"
    same(OFFSETS, f"thrice(shifted_{at}, {floats}, {lo}, {hi})")
    same(OFFSETS, f"thrice(fields_{at}, Q2{structs}, {lo}, {hi})")
