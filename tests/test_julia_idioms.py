"""Julia as real files write it (issue 18's silent wrong answers and issue 19's small
Base and Logging functions): each case is what Julia 1.11 prints for the same code."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from snippets import session

from grammar.errors import ZylaError
from lang.door.api import Zyla

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    # array literals, indexing, operators
    ("println(size([1; 2; 3]), [1; 2; 3] isa Vector{Int})", "(3,)true"),
    ("println([1:3;] == [1, 2, 3], size([[1, 2]; [3]]))", "true(3,)"),
    ("w = [10, 20, 30]; println(w[begin], w[begin+1:end])", "10[20, 30]"),
    ("x = 3; println(2^3x, ' ', 2x^2, ' ', (2^3)x, ' ', 2^3^2)", "512 18 24 512"),
    ("println(1 << 3, ' ', -8 >> 1, ' ', -8 >>> 60, ' ', 1 << 64, ' ', 8 >> -2)", "8 -4 15 0 32"),
    ("println([1.0, 4.0, 9.0] .|> sqrt, .-[1, 2])", "[1.0, 2.0, 3.0][-1, -2]"),
    # Julia 1.x precedence: `+` < `<<` < `*` < `//` (`1 << 2 * 3` was `(1 << 2) * 3`)
    ("println(1 << 2 * 3, ' ', 2 * 8 >> 1, ' ', 1 + 2 << 3, ' ', 1 << 2 + 1)", "64 8 17 5"),
    ("println([1, 2]pi, ' ', [2, 3][1]pi)",
     "[3.141592653589793, 6.283185307179586] 6.283185307179586"),
    # Julia's operator characters, each at its precedence (comparison, arrow, times, power)
    ("⊢(a, b) = a + b; →(a, b) = (a, b); ↑(a, b) = a^b; ⊚(a, b) = a * b; "
     "println(2 ⊢ 3, 1 → 2 → 3, 2 ↑ 3 ↑ 2, ' ', 1 + 2 ⊚ 3, [1, 2] .⊢ 1, true && 1 → 2)",
     "5(1, (2, 3))512 7[2, 3](1, 2)"),
    ("f = +; ⊗(a, b) = a * b; g = ⊗; println(f(1, 2), g(2, 3), [1, 2] ∋ 2, 3 ∊ [3], [1] ∌ 1)",
     "36truetruefalse"),
    ("@Base.kwdef struct Kw; a::Int = 1; end; println(Kw(), Kw(a = 2))", "Kw(1)Kw(2)"),
    # call methods of any type, and of an abstract type for every struct below it
    ("(a::Float64)(b) = a * b; x = 2.0; h(f, y) = f(y); println(x(3), ' ', h(x, 4), ' ', "
     "[x(i) for i in 1:2])", "6.0 8.0 [2.0, 4.0]"),
    ("abstract type L end; struct A <: L; w; end; struct B <: L; w; end; (l::L)(x) = l.w * x; "
     "(b::B)(x) = -x; println(A(2)(3), ' ', B(2)(3), ' ', map(A(3), [1, 2]))", "6 -3 [3, 6]"),
    ("r = map([1, 2]) do x x + 1 end[2]; println(r)", "3"),
    # more of Base (missing before: UndefVarError)
    ('println(titlecase("the QUICK fox\'s"), ndigits(0), ndigits(-123), ndigits(255; base = 16))',
     "The Quick Fox'S132"),
    ('println(rsplit("a.b.c", "."; limit = 2), '
     'rsplit("a  b  c", " "; limit = 2, keepempty = false))',
     'SubString{String}["a.b", "c"]SubString{String}["a  b ", "c"]'),
    ("println(isqrt(10), isqrt(big(10)^40), partialsort([3, 1, 2], 2), allequal([1, 1]), "
     "allequal([1, 2]))", "31000000000000000000002truefalse"),
    ("v = [1, 2, 1, 3]; unique!(v); r = zeros(1, 3); sum!(r, [1 2 3; 4 5 6]); "
     "m = zeros(2); maximum!(m, [1 5; 7 2]); println(v, r, m)", "[1, 2, 3][5.0 7.0 9.0][5.0, 7.0]"),
    ('println(splitext("a/b.tar.gz"), supertype(Int64), hasfield(Pair{Int,Int}, :first), '
     "ismutable([1]), ismutable((1,)), Threads.nthreads(), (@elapsed sleep(0.002)) >= 0.002)",
     '("a/b.tar", ".gz")Signedtruetruefalse1true'),
    ("c = sin ∘ cos; println(typeof(c), ' ', c, ' ', sin ∘ (cos ∘ tan), ' ', "
     "c(1.0) == sin(cos(1.0)))",
     "ComposedFunction{typeof(sin), typeof(cos)} sin ∘ cos sin ∘ (cos ∘ tan) true"),
    ("using Zygote; g = gradient(sin ∘ cos, 0.5)[1]; "
     "h = gradient(x -> sum((exp ∘ sin).(x)), [0.5])[1]; "
     "println(g ≈ -cos(cos(0.5)) * sin(0.5), h ≈ [exp(sin(0.5)) * cos(0.5)])", "truetrue"),
    ('print(fieldtypes(typeof((a = 1, b = "s"))), fieldcount(Pair))',
     "(Int64, String)2"),
    ("using Test; println(@inferred(sin(0.0)), ' ', @inferred Float64 cos(0.0))", "0.0 1.0"),
    # identifiers compare after NFC and Julia's character map (µ is μ)
    ("e\u0301 = 5; \u00b5 = 2; println(\u00e9, \u03bc, :\u00b5 == :\u03bc)", "52true"),
    ("println(1 // 2 + 1 // 3, ' ', typeof(3 // 4), ' ', (1 // 2) * 4, ' ', 1 // 2 + 0.25)",
     "5//6 Rational{Int64} 2//1 0.75"),
    ("println('a' + 1, ' ', 'd' - 'a', ' ', Int('a'), ' ', 'b' - 1)", "b 3 97 a"),
    ("println(typemax(Int) + 1 == typemin(Int), ' ', 2^64)", "true 0"),
    # immutable structs are values: keys of a Dict or a Set by their contents (===)
    ("struct Pt; x::Int; y::Int; end; d = Dict(Pt(1, 2) => 7); "
     "println(d[Pt(1, 2)], haskey(d, Pt(2, 1)), length(Set([Pt(1, 2), Pt(1, 2)])), "
     "length(unique([Pt(0, 0), Pt(0, 0), Pt(0, 1)])))", "7false12"),
    ("mutable struct Mb; a::Int; end; println(length(Set([Mb(1), Mb(1)])))", "2"),
    ("struct Fl; v::Float64; end; "
     "println(length(Set([Fl(NaN), Fl(NaN), Fl(0.0), Fl(-0.0), Fl(1.0)])))", "4"),
    ("struct Wr; v::Any; end; println(length(Set([Wr(1), Wr(1.0), Wr((1, 2)), Wr((1, 2))])))",
     "3"),
    # comprehensions with several `for` clauses (flattened), a generator as a last argument
    ("println([(i, j) for i in 1:3 for j in 1:i], [(a, b) for a = 1:3 for b = 1:a if b > 1])",
     "[(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)][(2, 2), (3, 2), (3, 3)]"),
    ("println(sum(x * y for x in 1:3 for y in 1:x), collect(Iterators.filter(iseven, v for v in "
     "1:6)), [(a, b, c) for a in 1:2 for b in a:2 for c in b:2])",
     "25[2, 4, 6][(1, 1, 1), (1, 1, 2), (1, 2, 2), (2, 2, 2)]"),
    ("println(collect((i, j, k) for i in 1:2 for j in 1:i, k in 1:2))",
     "[(1, 1, 1), (1, 1, 2), (2, 1, 1), (2, 2, 1), (2, 1, 2), (2, 2, 2)]"),
    # functions, methods, scopes
    ("g(x)::Float64 = x + 1; println(g(1) === 2.0)", "true"),
    ("kw = (a; b = 1) -> a + b; println(kw(1), ' ', kw(1; b = 5))", "2 6"),
    ("linear(in, out) = (out, in); println(linear(3, 2))", "(2, 3)"),
    ('k(xs::AbstractArray...) = "a"; k(d::Integer...) = "i"; println(k([1.0]), k(1, 2))', "ai"),
    ("function t(); s = 0.0; r = [(s += x; s * x) for x in [1.0, 2.0]]; (r, s); end; "
     "println(t())", "([1.0, 6.0], 3.0)"),
    ("println(get((5, 6, 7), 1, 0), get([10, 20], 2, 0), get([10, 20], 3, 0))", "5200"),
    ("println(Pair{Int,Float64}(1, 2).second, ' ', typeof(1 => 2.0), ' ', [1 => 2])",
     "2.0 Pair{Int64, Float64} [1 => 2]"),
    ("h(x, v) = x + length(v); println(h.([1, 2], ([10, 20, 30],)))", "[4, 5]"),
    ("x = [1.0, 2.0]; f(x) = broadcast(sum, (x, x)); println(f(x))", "(3.0, 3.0)"),
    ("println(typeof(exp10(1f0)), ' ', exp10(2))", "Float32 100.0"),
    # range in its keyword and positional forms
    ("println(range(0, 1, length=5), ' ', range(1, 10, 4), ' ', range(1; length=3))",
     "0.0:0.25:1.0 1.0:3.0:10.0 1:3"),
    ("println(range(1, 10; step=3), ' ', range(stop=10, length=3), ' ', range(2, 4))",
     "1:3:10 8:10 2:4"),
    ("r = range(0, 2; length=5); println(length(r), ' ', r[end], ' ', collect(r)[2])",
     "5 2.0 0.5"),
    # small Base functions
    ("println(only([3]), ' ', something(nothing, 2), ' ', trues(2), falses(1))",
     "3 2 Bool[1, 1]Bool[0]"),
    ("println(findall([true, false, true]), findall(x -> x > 1, [1, 2, 3]))", "[1, 3][2, 3]"),
    ("println(isequal(NaN, NaN), isequal(-0.0, 0.0), signbit(-0.0), signbit(2))",
     "truefalsetruefalse"),
    ("a = [[1]]; b = deepcopy(a); b[1][1] = 2; println(a, circshift([1, 2, 3], 1))",
     "[[1]][3, 1, 2]"),
    ('println(summary([1, 2]), " | ", summary([1 2; 3 4]))',
     "2-element Vector{Int64} | 2×2 Matrix{Int64}"),
    ("r = Ref(1); r[] = 2; r[] += 3; println(r[], ' ', typeof(r))", "5 Ref{Int64}"),
    ("a = fill(3.0); a[] = 4.0; println(a[])", "4.0"),
    # what real model files use (the model zoo's programs)
    ("println(findfirst(x -> x > 1, [1, 2, 3]), findfirst([false, true]), "
     "findlast(iseven, [2, 4, 5]), findfirst(==(9), [1]) === nothing)", "222true"),
    ("println(Float32[x for x in 1:3], collect(Float32, -1:0.5:0))",
     "Float32[1.0, 2.0, 3.0]Float32[-1.0, -0.5, 0.0]"),
    ("struct Pt; a; b; end; println(getfield(Pt(1, 2), :b), getfield(Pt(1, 2), 1), "
     "getfield((5, 6), 2))", "216"),
    ("mk(::Type{T}, x) where T = T(x); println(mk(Float32, 2), ' ', typeof(mk(Float32, 2)))",
     "2.0 Float32"),
    ("p = (0:1) .=> [1.5, 2.5]; println(p, ' ', Dict([:a, :b] .=> [1, 2])[:b])",
     "[0 => 1.5, 1 => 2.5] 2"),
    ("println((+).(Ref(10), [1, 2]), ' ', length.(Ref([1, 2, 3])))", "[11, 12] 3"),
    ("using Flux; o = AdamW(eta = 0.01, lambda = 0.1); println(o.eta, ' ', o.lambda, ' ', "
     "Flux.get_device())", "0.01 0.1 CPUDevice()"),
    ("using Parameters\n@with_kw struct Hyp\n lr::Float64 = 0.1\n n::Int = 3\nend\n"
     "println(Hyp(n = 5).lr, ' ', Hyp(n = 5).n)", "0.1 5"),
    ("using StatsBase; println(wsample(['a', 'b'], [0.0, 1.0]), ' ', wsample([1.0, 0.0]))",
     "b 1"),
    ("using Flux; x = [1.0, 2.0]; Flux.Optimise.update!(x, [0.5, 0.5]); println(x)",
     "[0.5, 1.5]"),
    ('using MLUtils; println(chunk("abcdefg", 3), numobs("abc"))', '["abc", "def", "g"]3'),
    # keyword arguments of a dotted call reach every call, evaluated once (issue 18)
    ("println(isapprox.([1.0, 2.0], [1.0, 2.1]; atol = 0.2), round.([1.234, 5.678]; digits = 1))",
     "Bool[1, 1][1.2, 5.7]"),
    ("x = [1.234, 5.678]; println(@. round(x * 2; digits = 1) + 1, ' ', round.(x, digits = 2))",
     "[3.5, 12.4] [1.23, 5.68]"),
    ("s(x; a = 1.0) = x * sum(a); y = [1.0, 2.0]; println(@. s(y; a = y * 2))", "[6.0, 12.0]"),
    ("c = Ref(0); k() = (c[] += 1; 0.5); println(isapprox.([1.0, 2.0], [1.2, 2.4]; atol = k()), "
     "' ', c[])", "Bool[1, 1] 1"),
    ("kw = (digits = 2,); s(x, y; a = 1) = a * x + y; println(round.([1.2345]; kw...), ' ', "
     "s.([1, 2], 10; a = 3))", "[1.23] [13, 16]"),
    # argument destructuring (issue 18)
    ("g((a, b)) = a + b; h((a, b), c) = a * b + c; println(g((1, 2)), ' ', h((2, 3), 4), ' ', "
     "map(((k, v),) -> k * v, [(1, 2), (3, 4)]))", "3 10 [2, 12]"),
    ("q = ((x, y),) -> x + y; f((; a, b)) = a - b; println(q((1, 2)), ' ', f((b = 2, a = 5)))",
     "3 3"),
    ("n(((a, b), c)) = (a + b) * c; u((_, y)) = y; println(n(((1, 2), 3)), ' ', u((1, 2)))",
     "9 2"),
    ("r = map([(1, 2), (3, 4)]) do (a, b)\n a - b\nend\nprintln(r)", "[-1, -1]"),
    ("function o(); a = 1; g((a, b)) = a + b; (g((5, 6)), a); end; println(o())", "(11, 1)"),
    ("using Zygote; println(gradient(((a, b),) -> a * b, (2.0, 3.0)))", "((3.0, 2.0),)"),
    # `;;`: concatenation along the second dimension (issue 18)
    ("println([1.0;;], ' ', size([1 2;;]), ' ', [1;2;;], ' ', [1;2;;3;4])",
     "[1.0;;] (1, 2) [1; 2;;] [1 3; 2 4]"),
    ("println(typeof([1.0;;]), ' ', size([[1, 2];;]), ' ', [1;;2], ' ', Float32[1;;])",
     "Matrix{Float64} (2, 1) [1 2] Float32[1.0;;]"),
    # real, imag and conj of real numbers and arrays (issue 18)
    ("println(real(3) == 3, imag(2.0) == 0.0, conj([1, 2]) == [1, 2], ' ', imag([1.5, 2.0]), "
     "' ', real(Float32), ' ', imag(2), ' ', conj(2.5))", "truetruetrue [0.0, 0.0] Float32 0 2.5"),
    # Base functions programs call: join with a last delimiter and into an IO, binomial, diff
    ("io = IOBuffer(); join(io, [1, 2], \"+\"); println(join([1, 2, 3], \", \", \" and \"), ' ', "
     "String(take!(io)), ' ', binomial(10, 3), ' ', binomial(-3, 3), ' ', "
     "typeof(binomial(Int8(10), Int8(3))), ' ', diff([1, 4, 9]), ' ', diff([1 2; 4 8]; dims=2))",
     "1, 2 and 3 1+2 120 -10 Int8 [3, 5] [1; 4;;]"),
    ("try; binomial(100, 50); catch e; println(e); end",
     'OverflowError("binomial(100, 50) overflows")'),
    # the element type of a map over nothing is inferred (abstract interpretation), as
    # Julia's; Any where it cannot be told (it was Float64 whatever f gave)
    ("println(typeof(map(x -> x + 1, Int[])), typeof([x > 0 for x in Float64[]]), "
     "typeof(map((a, b) -> a * b, Int[], Float32[])), typeof([x^2 for x in 1:0]), "
     "typeof(map(x -> (print(x); x), Int[])))",
     "Vector{Int64}Vector{Bool}Vector{Float32}Vector{Int64}Vector{Any}"),
    ("A = [1 2 3; 4 5 6]; println(rotl90(A), rotr90(A), rot180(A), rotl90(A, 3) == rotr90(A))",
     "[3 6; 2 5; 1 4][4 1; 5 2; 6 3][6 5 4; 3 2 1]true"),
    # getfield reads the field itself, past a getproperty method that calls it
    ("struct GF; x; end; Base.getproperty(a::GF, s::Symbol) = getfield(a, s) + 1; "
     "println(GF(1).x, getfield(GF(5), 1))", "25"),
]


@pytest.mark.parametrize("code, want", CASES, ids=[c[0][:40] for c in CASES])
def test_prints_what_julia_prints(code: str, want: str, capsys: pytest.CaptureFixture) -> None:
    Zyla().eval(code.replace("' '", '" "'))
    assert capsys.readouterr().out.strip() == want


def test_show_of_a_tuple_and_of_nested_comparisons(capsys: pytest.CaptureFixture) -> None:
    Zyla().eval("a, b = 1, 2\n@show a, b\np = [0.7, 0.2]; t = [true, true]\n"
                "@show sum((p .> 0.5) .== t)\n")
    assert capsys.readouterr().out == "(a, b) = (1, 2)\nsum((p .> 0.5) .== t) = 1\n"


@pytest.mark.parametrize("code", ["max(0, [1, 4, 9])", "min([1.0, 2.0], 3)", "max(1, 2, [3])"])
def test_max_and_min_of_an_array_are_a_method_error(code: str) -> None:
    """Julia has no max(::Int, ::Vector) (it was elementwise here): the error names the
    elementwise and the reducing forms."""
    with pytest.raises(ZylaError, match="MethodError") as info:
        Zyla().eval(code)
    assert "imum(x)" in (info.value.hint or "")


AMBIGUOUS = [
    # (definitions, an ambiguous call, the method that resolves it, what the call then
    # gives): neither method is more specific; Julia 1.11 says "MethodError:
    # f(::Int64, ::Int64) is ambiguous" (Zyla took the first one)
    ("f(x::Int, y) = 1; f(x, y::Int) = 2", "f(1, 1)", "f(x::Int, y::Int) = 3", 3),
    ("g(x::Vector, y) = 1; g(x, y::Int) = 2", "g([1.0], 3)", "g(x::Vector, y::Int) = 3", 3),
    ("abstract type L end; struct D <: L end; (d::D)(x) = 1; (l::L)(x::Float64) = 2",
     "D()(1.0)", "(d::D)(x::Float64) = 3", 3),
]


@pytest.mark.parametrize("defs, call, resolve, then", AMBIGUOUS)
def test_an_ambiguous_call_is_a_method_error(defs: str, call: str, resolve: str,
                                             then: int) -> None:
    z = Zyla()
    z.eval(defs)
    with pytest.raises(ZylaError, match="MethodError") as info:
        z.eval(call)
    assert "is ambiguous" in str(info.value)
    z.eval(resolve)
    assert z.eval(call) == then


def test_test_nowarn(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(ZylaError, match="1 failed"):
        Zyla().eval('using Test\n@testset "w" begin\n@test_nowarn 1 + 1\n'
                    'x = @test_nowarn sqrt(4.0)\n@test x == 2.0\n@test_nowarn @warn "hi"\nend\n')
    assert "Test Failed" in capsys.readouterr().out


def test_a_local_read_before_it_is_assigned_is_an_error() -> None:
    with pytest.raises(ZylaError, match="`s` not defined in local scope"):
        Zyla().eval("s = 0.0; r = [(s += x; s * x) for x in [1.0, 2.0]]")


def test_logging_macros_print_as_julia_does(capsys: pytest.CaptureFixture) -> None:
    Zyla().eval('x = 5\n@info "hello"\n@info "hi" y=1 x\n@warn "careful" b="s"\n'
                '@debug "not shown"\n@error "bad"\n', filename="log.jl")
    assert capsys.readouterr().err == (
        "[ Info: hello\n"
        "┌ Info: hi\n│   y = 1\n└   x = 5\n"
        '┌ Warning: careful\n│   b = "s"\n└ @ Main log.jl:4\n'
        "┌ Error: bad\n└ @ Main log.jl:6\n")


def test_program_file_and_folders(tmp_path: Path) -> None:
    prog = tmp_path / "p.jl"
    prog.write_text('println(PROGRAM_FILE == @__FILE__, " ", basename(PROGRAM_FILE))\n'
                    'mkpath("out/a"); mkdir("out/b"); println(isdir("out/a"), ispath("out/b"))\n'
                    'mkdir(".hidden")\n')
    env = {**os.environ, "ZYLA_XLA_CACHE": "off"}
    out = subprocess.run([sys.executable, "-m", "lang.door.cli", "run", str(prog)],
                         cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=120)
    assert out.stdout == "true p.jl\ntruetrue\n", out.stderr
    assert "creating a folder '.hidden' is not allowed" in out.stderr
    assert not (tmp_path / ".hidden").exists()


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.integers(-2**63, 2**63 - 1), st.integers(-70, 70))
def test_shifts_wrap_as_int64(a: int, n: int) -> None:
    z = _z()
    got = z.eval(f"({a} << {n}, {a} >> {n}, {a} >>> {n})")

    def wrap(v: int) -> int:
        return ((v + 2**63) % 2**64) - 2**63

    def shl(v: int, k: int) -> int:
        return shr(v, -k) if k < 0 else (0 if k >= 64 else wrap(v << k))

    def shr(v: int, k: int) -> int:
        return shl(v, -k) if k < 0 else ((-1 if v < 0 else 0) if k >= 64 else v >> k)

    def ushr(v: int, k: int) -> int:
        return shl(v, -k) if k < 0 else (0 if k >= 64 else wrap((v % 2**64) >> k))

    assert got == (shl(a, n), shr(a, n), ushr(a, n))


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.integers(-50, 50), st.integers(1, 50), st.integers(-50, 50), st.integers(1, 50))
def test_rational_arithmetic_is_exact(a: int, b: int, c: int, d: int) -> None:
    z = _z()
    got = z.eval(f"r = ({a} // {b}) + ({c} // {d}) * ({a} // {b}); "
                 f"(numerator(r), denominator(r), r < {c} // {d})")
    want = Fraction(a, b) + Fraction(c, d) * Fraction(a, b)
    assert got == (want.numerator, want.denominator, want < Fraction(c, d))


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.floats(allow_nan=False), st.floats(-1e3, 1e3, allow_nan=False))
def test_float_squares_and_cubes_are_products(x: float, y: float) -> None:
    # Julia's x^2 and x^3 of a Float64 are x*x and x*x*x exactly, written as literals or
    # with the power in a variable, in a loop written for Float64s too
    z = _z()
    z.eval("sq(v, n) = (s = 0.0; for t in v; s += t^2 - t^n * t; end; s)")
    got = z.eval(f"x = {x!r}; n = 2; m = 3; (x^2, x^n, x^3, x^m, sq([{y!r}, {x!r}], 2))")
    want = (x * x, x * x, x * x * x, x * x * x, (y * y - y * y * y) + (x * x - x * x * x))
    assert got == pytest.approx(want, nan_ok=True, rel=0, abs=0)


def _z() -> Zyla:
    return session(__name__)


def test_an_index_that_is_a_call_keeps_its_keywords(capsys: pytest.CaptureFixture) -> None:
    """`x[sortperm(x; rev=true)]` once dropped the keyword (a silent wrong answer)."""
    Zyla().eval("x = [3.0, 1.0, 2.0]\nprintln(x[sortperm(x; rev=true)], x[min(end, 5)])\n"
                "println(sort([3, 1, 2]; rev=true), sort([3, 1]; by=v -> -v))\n")
    assert capsys.readouterr().out == "[3.0, 2.0, 1.0]2.0\n[3, 2, 1][3, 1]\n"


@settings(max_examples=20, deadline=None, database=None, derandomize=True)
@given(st.lists(st.floats(-5, 5, allow_nan=False, allow_subnormal=False), min_size=1,
                max_size=6, unique=True))
def test_sort_differentiates_through_its_permutation(vals: list[float]) -> None:
    import numpy as np

    z = _z()
    x = np.array(vals)
    w = np.arange(1.0, len(vals) + 1)
    z.rt.globals["xs"], z.rt.globals["ws"] = x, w
    (g,) = z.eval("gradient(v -> sum(sort(v) .* ws), xs)")
    want = np.empty_like(x)
    want[np.argsort(x, kind="stable")] = w  # each element's weight is its rank's
    np.testing.assert_allclose(g, want)


def test_cd_moves_relative_paths_within_what_may_be_read(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f.txt").write_text("hi")
    monkeypatch.chdir(tmp_path)
    z = Zyla()
    assert z.eval('cd("sub"); (pwd(), read("f.txt", String))') == (str(tmp_path / "sub"), "hi")
    with pytest.raises(ZylaError) as info:
        z.eval('cd("/etc")')
    assert info.value.kind == "SystemError"
    assert os.getcwd() == str(tmp_path / "sub")


def test_evalpoly_by_horners_rule() -> None:
    z = Zyla()
    assert z.eval("evalpoly(2.0, (1.0, 2.0, 3.0))") == 1.0 + 2.0 * 2 + 3.0 * 4
    assert z.eval("evalpoly(3, [1, 0, 1])") == 10
    assert z.eval("evalpoly(0.5, ())") == 0.0


def test_broadcast_over_an_iterator_collects_it(capsys: pytest.CaptureFixture) -> None:
    """Julia's broadcastable collects an iterator: one call per element (a partition's
    part), never one call on the whole iterator."""
    z = Zyla()
    z.eval("using Statistics; l = collect(1.0:8.0)\n"
           "println(mean.(Iterators.partition(l, 4)), length.(Iterators.partition(l, 3)), "
           "(x -> 2x).(Iterators.take(1:10, 3)))")
    assert capsys.readouterr().out.strip() == "[2.5, 6.5][3, 3, 2][2, 4, 6]"


# issue 18 (Julia conformance): silent wrong answers fixed, each line what Julia prints
CONFORMANCE_LINES = [
    ("println([(t = (i, j); i = nothing; t) for i = 1:2 for j = 1:i])",
     "[(1, 1), (2, 1), (2, 2)]"),
    ("x = 3; println(try Base.x catch e; e isa UndefVarError end)", "true"),
    ("println(round(1.15, digits=1), ' ', round(-0.04, digits=1), ' ', round(-0.4), ' ', "
     "round(123.456, sigdigits=2), ' ', floor(1.99, digits=1))", "1.2 -0.0 -0.0 120.0 1.9"),
    ("println(fld(0.3, 0.01), ' ', div(0.3, 0.01), ' ', fld(1.1, 0.1), ' ', cld(1.1, 0.1), ' ', "
     "eps(floatmax()))", "29.0 29.0 11.0 12.0 1.99584030953472e292"),
    ("function t(); r(v) = push!(acc, v); acc = []; r(1); acc = []; r(2); acc; end; "
     "println(t() == [2])", "true"),
    ("i = 5; g() = (let i = i; i += 1; i end); println(g(), ' ', i)", "6 5"),
    ("struct It; n::Int; end; Base.iterate(i::It, s=1) = s > i.n ? nothing : (s, s + 1); "
     "println(sum(It(3)), ' ', maximum(It(3)))", "6 3"),
    ("b = [(1, 3) (1, 4); (2, 3) (2, 4)]; println(size(b), ' ', b[1], ' ', [(1, 2); (3, 4)])",
     "(2, 2) (1, 3) [(1, 2), (3, 4)]"),
    ("println(eachindex(Dict(:a => 1)) == keys(Dict(:a => 1)), ' ', "
     "try Dict{String,Vector{Int}}()[\"b\"] = 1 catch e; typeof(e) end)", "true MethodError"),
    ("println(length(rand([1, 2], 3)), ' ', typeof(zero(Int128(3))), ' ', powermod(2, 10, 7), "
     "' ', Dict{Float64, Int}(1 => 2), ' ', typeof(merge(Dict(1 => 2), Dict(2 => 1.0im))))",
     "3 Int128 2 Dict{Float64, Int64}(1.0 => 2) Dict{Int64, ComplexF64}"),
    ("println(typeof(Dict(1 => 1, 2 => nothing)), ' ', split(\"a  b\", ' '))",
     "Dict{Int64, Union{Nothing, Int64}} SubString{String}[\"a\", \"\", \"b\"]"),
]


def test_conformance_fixes_print_what_julia_prints(capsys: pytest.CaptureFixture) -> None:
    z = Zyla()
    for code, want in CONFORMANCE_LINES:
        z.eval(code.replace("' '", '" "'))
        assert capsys.readouterr().out.strip() == want, code


def test_conformance_additions(capsys: pytest.CaptureFixture) -> None:
    """Base functions added for the conformance suites (issue 18)."""
    z = Zyla()
    z.eval("""
    using Base.Iterators
    println(Base.front((1, 2, 3)), Base.tail((1, 2, 3)), Base.setindex((1, 2), 3, 1),
            Base.fill_to_length((1, 2), 0, Val(3)), circshift((1, 2, 3), 1), (1, 2) < (1, 3))
    println(accumulate(+, (1, 2, 3); init=10), (1, 9)[:], (5, 6)[[]], hash((1,)) == hash((true,)),
            hash(0.0) != hash(-0.0), bswap(0x0102), ' ',
            reinterpret(UInt64, 1.0) == 0x3ff0000000000000)
    p = 10 => 20; a, b = p
    println(p[1], p[2], length(p), first(p), (1 => 2) < (2 => 0), pop!(Dict(3 => 4)))
    st = Stateful([1, 1, 2, 3]); for v in st; v == 1 || break; end
    println(peek(st), sum(st), isempty(st), length(flatten(1:4)), collect(flatmap(x -> 1:x, 1:2)))
    println(collect(product(1:2, 3:4)), size(product(1:2, [1 2; 3 4])), length(product()),
            first(product(countfrom(1), 1:2), 3))
    println(round(-2.5, RoundNearestTiesAway), div(7, 2, RoundNearest), rem(7.0, 2.0, RoundNearest),
            rem(-7, 3, RoundFromZero), signbit(-1//2), widen(Int32(1)) === 1, tryparse(Int, "x"),
            parse(Int, " 0x1f "), nextprod([2, 3], 7), clamp!([1, 9], 2, 6))
    """)
    assert capsys.readouterr().out.replace("' '", "").split("\n")[:6] == [
        "(1, 2)(2, 3)(3, 2)(1, 2, 0)(3, 1, 2)true",
        "(11, 13, 16)(1, 9)()truetrue513 true",
        "1020210true3 => 4",
        "33true4[1, 1, 2]",
        "[(1, 3) (1, 4); (2, 3) (2, 4)](2, 2, 2)1[(1, 1), (2, 1), (3, 1)]",
        "-3.04-1.02truetruenothing318[2, 6]"]


def test_dotted_operators_as_function_values() -> None:
    """`.+` as a value is the function that broadcasts `+` (Julia's BroadcastFunction):
    mapped, reduced, differentiated, and as Flux's PairwiseFusion connection."""
    z = Zyla()
    assert list(z.eval("map(.+, [1, 2], [3, 4])")) == [4, 6]
    assert [list(v) for v in z.eval("map(.*, [[1, 2]], [[3, 4]])")] == [[3, 8]]
    assert list(z.eval("reduce(.+, [[1, 2], [3, 4]])")) == [4, 6]
    assert list(z.eval("gradient(x -> sum(map(.*, x, x)), [1.0, 2.0])[1]")) == [2.0, 4.0]
    assert z.eval("using Flux; pf = PairwiseFusion(.+, x -> 2x, x -> 3x); "
                  "pf(([1.0], [10.0]))") == ([2.0], [36.0])


def test_findall_and_cartesian_indices_of_arrays(capsys: pytest.CaptureFixture) -> None:
    """findall over a matrix gives CartesianIndexes in column-major order (typed even when
    empty); CartesianIndices iterate and collect in the same order, offset ranges too."""
    z = Zyla()
    z.eval("""
    A = [true false true; false true false]
    println(findall(A))
    println(findall(iseven, [1 2; 4 3]), findall(x -> x > 1, zeros(2, 2, 2)))
    println(collect(CartesianIndices((2, 2))))
    println([I for I in CartesianIndices((1:2, 3:4))])
    B = rand(30, 40)
    println(findall(B .> 0.5) == [I for I in CartesianIndices(B) if B[I] > 0.5])
    println([B[I] for I in findall(B .> 0.5)] == B[B .> 0.5])
    """)
    assert capsys.readouterr().out.split("\n")[:6] == [
        "CartesianIndex{2}[CartesianIndex(1, 1), CartesianIndex(2, 2), CartesianIndex(1, 3)]",
        "CartesianIndex{2}[CartesianIndex(2, 1), CartesianIndex(1, 2)]CartesianIndex{3}[]",
        "CartesianIndex{2}[CartesianIndex(1, 1) CartesianIndex(1, 2); "
        "CartesianIndex(2, 1) CartesianIndex(2, 2)]",
        "CartesianIndex{2}[CartesianIndex(1, 3) CartesianIndex(1, 4); "
        "CartesianIndex(2, 3) CartesianIndex(2, 4)]",
        "true", "true"]


def test_a_failing_comparison_test_evaluates_its_operands_once(
        capsys: pytest.CaptureFixture) -> None:
    """`@test (c[] += 1) == 5` evaluates `c[] += 1` once, as Julia does (the operands shown
    under "Evaluated" were computed a second time: c[] was 2 after), and shows the
    expression and the operator as Julia does."""
    z = Zyla()
    with pytest.raises(ZylaError, match="1 failed"):
        z.eval('using Test\nc = Ref(0)\n@testset "once" begin\n@test (c[] += 1) == 5\n'
               '@test (c[] += 1) == 2\nend\n')
    out = capsys.readouterr().out
    assert "Expression: (c[] += 1) == 5\n   Evaluated: 1 == 5" in out, out
    assert z.eval("c[]") == 2
