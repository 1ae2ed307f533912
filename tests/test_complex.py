"""Complex numbers (lang/core/stdlib/complex.jl, lang/core/complexes.py, show.py's printing).

Expected values follow Julia's documented behaviour: `im` is a `Complex{Bool}`, mixed
arithmetic promotes (`1 + 2im` is a Complex{Int64}, `1.0 + im` a ComplexF64), printing
is `3 + 4im` / `1.0 - 2.5im` / `ComplexF64[1.0 + 2.0im, 0.0 + 3.0im]`, a real function
outside its domain still throws (`sqrt(-1.0)`), and Zygote's gradient of a real function
of a complex input is `∂f/∂re + ∂f/∂im * im`. Arithmetic and elementary functions are
checked against Python's complex numbers (cmath) on hypothesis-drawn inputs, gradients
against finite differences.
"""

from __future__ import annotations

import cmath
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.core.complexes import is_complex
from lang.door.wiring import Runtime


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return Runtime()


def as_py(z: object) -> complex:
    """A Zyla Complex (or real) as a Python complex."""
    if is_complex(z):
        re_, im_ = z.fields  # type: ignore[attr-defined]
        return complex(float(re_), float(im_))
    return complex(float(z))  # type: ignore[arg-type]


def lit(z: complex) -> str:
    """Zyla source for a ComplexF64 with exactly these parts."""
    return f"Complex({z.real!r}, {z.imag!r})"


@pytest.mark.parametrize(("src", "expected"), [
    ("3 + 4im", "3 + 4im"), ("1.0 - 2.5im", "1.0 - 2.5im"), ("im", "im"),
    ("2im", "0 + 2im"), ("2.5im", "0.0 + 2.5im"), ("1im", "0 + 1im"), ("-im", "0 - 1im"),
    ("im * im", "-1 + 0im"), ("im^2", "-1 + 0im"), ("(2.0 + 3im)^2", "-5.0 + 12.0im"),
    ("Complex(true, false)", "Complex(true,false)"), ("Complex(NaN, NaN)", "NaN + NaN*im"),
    ("Complex(1.0, -Inf)", "1.0 - Inf*im"), ("ComplexF32(1, 2)", "1.0f0 + 2.0f0im"),
    ("[1 + 2im, 3im]", "Complex{Int64}[1 + 2im, 0 + 3im]"),
    ("[1.0 + 2im, 3im]", "ComplexF64[1.0 + 2.0im, 0.0 + 3.0im]"),
    ("[im, 1]", "Complex{Int64}[0 + 1im, 1 + 0im]"),
    ("zeros(ComplexF64, 2)", "ComplexF64[0.0 + 0.0im, 0.0 + 0.0im]"),
    ("sqrt(complex(-1.0))", "0.0 + 1.0im"), ("sqrt(-4.0 - 0.0im)", "0.0 - 2.0im"),
    ("sqrt(3 + 4im)", "2.0 + 1.0im"), ("conj(1 + 3im)", "1 - 3im"),
    ("complex(7)", "7 + 0im"), ("Complex(1, 2.0)", "1.0 + 2.0im"), ("ComplexF64(1)", "1.0 + 0.0im"),
    ("inv(2im)", "0.0 - 0.5im"), ("(1 + 2im) / (3 + 4im)", "0.44 + 0.08im"),
    ("round(3.14 + 4.5im)", "3.0 + 4.0im"), ("sum([1 + 2im, 3im])", "1 + 5im"),
    ("prod([1 + 2im, 3im])", "-6 + 3im"),
    ("[1 + 2im, 3im] .* 2", "Complex{Int64}[2 + 4im, 0 + 6im]"),
    ("im * [1.0, 2.0]", "ComplexF64[0.0 + 1.0im, 0.0 + 2.0im]"),
    ("real([1 + 2im, 3im])", "[1, 0]"), ("imag([1 + 2im, 3im])", "[2, 3]"),
    ("reim(1 + 3im)", "(1, 3)"), ("(1 + 2im)^-1", "0.2 - 0.4im"),
    # the adjoint conjugates, transpose does not; dot conjugates its first argument
    ("(1 + 2im)'", "1 - 2im"), ("transpose(1 + 2im)", "1 + 2im"),
    ("[1 + 2im, 3im]'", "Complex{Int64}[1 - 2im 0 - 3im]"),
    ("[1+2im 3im; 1 2]'", "Complex{Int64}[1 - 2im 1 + 0im; 0 - 3im 2 + 0im]"),
    ("dot([1 + 2im, 3im], [1 + 2im, 3im])", "14 + 0im"),
    # products of complex matrices and vectors
    ("[1+2im 3im; 1 2] * [1 + 2im, 3im]", "Complex{Int64}[-12 + 4im, 1 + 8im]"),
    ("[1 + 2im, 3im]' * [1 + 2im, 3im]", "14 + 0im"),
    ("[1 + 2im, 3im] * [1 + 2im, 3im]'", "Complex{Int64}[5 + 0im 6 - 3im; 6 + 3im 9 + 0im]"),
    ("[1.0, 2.0]' * [1 + 2im, 3im]", "1.0 + 8.0im"),
    # powers: real bases keep exact parts, the promoted type of base and power
    ("(-1 + 0im)^0.5", "0.0 + 1.0im"), ("(-1 - 0.0im)^0.5", "0.0 - 1.0im"),
    ("(2.0 + 0im)^(-0.5)", "0.7071067811865476 - 0.0im"), ("(1 + 2im)^2.0", "-3.0 + 4.0im"),
    ("typeof(ComplexF32(1, 2)^2.0)", "ComplexF64"), ("typeof(ComplexF32(1, 2)^2)", "ComplexF32"),
])
def test_values_print_as_julias(rt: Runtime, src: str, expected: str) -> None:
    assert rt.run_source(f"repr({src})", "t.jl") == expected


@pytest.mark.parametrize(("src", "expected"), [
    ("im", "Complex{Bool}"), ("1 + 2im", "Complex{Int64}"), ("1.0 + im", "ComplexF64"),
    ("2 * im", "Complex{Int64}"), ("1 - im", "Complex{Int64}"), ("Complex(1, 2.0)", "ComplexF64"),
    ("ComplexF32(1)", "ComplexF32"), ("complex(1f0, 2)", "ComplexF32"), ("abs(3 + 4im)", "Float64"),
    ("[1 + 2im, 3im]", "Vector{Complex{Int64}}"), ("[1.0 + im 2; 3 4]", "Matrix{ComplexF64}"),
    ("real(1 + 2im)", "Int64"), ("promote_type(ComplexF32, Float64)", "Type{ComplexF64}"),
    ("complex(Int)", "Type{Complex{Int64}}"), ("(1 + 2im) / 2", "ComplexF64"),
])
def test_types_and_promotion(rt: Runtime, src: str, expected: str) -> None:
    assert rt.run_source(f"string(typeof({src}))", "t.jl") == expected


@pytest.mark.parametrize(("src", "expected"), [
    ("im^2 == -1", True), ("1 + 0im == 1.0", True), ("1 + 1im == 1", False),
    ("isequal(1.0 + 0im, 1.0)", True), ("isequal(Complex(0.0, 0.0), Complex(-0.0, 0.0))", False),
    ("isreal(1 + 0im)", True), ("isreal(1 - 3im)", False), ("iszero(0im)", True),
    ("isone(1 + 0im)", True), ("isapprox(1.0 + 2im, 1.0 + 2.0000000001im)", True),
    ("1 + 2im ≈ 1 + 2.1im", False), ("exp(im * π) ≈ -1", True), ("cis(π / 2) ≈ im", True),
    ("abs2(1 + 2im)", 5), ("abs(3 + 4im)", 5.0), ("angle(-1 + 0im)", math.pi),
    ("Bool(Complex(1, 0))", True), ("Float64(2 + 0im)", 2.0), ("hypot(3 + 4im, 12)", 13.0),
    ("1 + 2im in [1 + 2im, 3im]", True), ("[1.0 + 2im, 3im] ≈ [1.0 + 2im, 3.0000000001im]", True),
    ("[1.0 + 2im] ≈ [1.0 + 2.1im]", False), ("isapprox([1.0 + 2im], [1.1 + 2im]; atol=0.2)", True),
    ("[1 + 2im] == [1 + 2im]", True), ("length(unique([1 + 2im, 1 + 2im, 3im]))", 2),
])
def test_predicates_and_reals(rt: Runtime, src: str, expected: object) -> None:
    assert rt.run_source(src, "t.jl") == expected


@pytest.mark.parametrize(("src", "kind"), [
    ("sqrt(-1.0)", "DomainError"), ("n = -1; (1 + 2im)^n", "DomainError"),
    ("Float64(1 + 2im)", "InexactError"), ("Bool(im)", "InexactError"),
    ("convert(Int, 1 + 2im)", "InexactError"),
])
def test_errors_are_julias(rt: Runtime, src: str, kind: str) -> None:
    with pytest.raises(ZylaError) as e:
        rt.run_source(src, "t.jl")
    assert e.value.kind == kind


FINITE = st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False)
COMPLEX = st.builds(complex, FINITE, FINITE)


def close(a: complex, b: complex, tol: float = 1e-12) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


@settings(max_examples=40, deadline=None)
@given(COMPLEX, COMPLEX)
def test_arithmetic_matches_cmath(rt: Runtime, z: complex, w: complex) -> None:
    for op in ("+", "-", "*"):
        got = as_py(rt.run_source(f"{lit(z)} {op} {lit(w)}", "t.jl"))
        assert close(got, eval(f"z {op} w")), op  # noqa: S307 (the three operators above)
    if abs(w) > 1e-6:
        assert close(as_py(rt.run_source(f"{lit(z)} / {lit(w)}", "t.jl")), z / w)
    n = 3
    assert close(as_py(rt.run_source(f"{lit(z)}^{n}", "t.jl")), z ** n, 1e-11)


@settings(max_examples=40, deadline=None)
@given(st.builds(complex, st.floats(-5, 5), st.floats(-5, 5)))
@example(complex(2, 5e-324))  # (an angle that underflows: cmath.phase raises there)
def test_elementary_functions_match_cmath(rt: Runtime, z: complex) -> None:
    for name, ref in (("exp", cmath.exp), ("sin", cmath.sin), ("cos", cmath.cos),
                      ("sqrt", cmath.sqrt)):
        got = as_py(rt.run_source(f"{name}({lit(z)})", "t.jl"))
        assert close(got, ref(z), 1e-12), name
    if z != 0:
        assert close(as_py(rt.run_source(f"log({lit(z)})", "t.jl")), cmath.log(z), 1e-12)
        # (Julia's angle is atan(imag, real); cmath.phase raises where that underflows)
        assert math.isclose(rt.run_source(f"angle({lit(z)})", "t.jl"),
                            math.atan2(z.imag, z.real), abs_tol=1e-15)
    assert math.isclose(rt.run_source(f"abs({lit(z)})", "t.jl"), abs(z), rel_tol=1e-15)


def test_sqrt_branch_cut_follows_the_sign_of_zero(rt: Runtime) -> None:
    assert as_py(rt.run_source("sqrt(Complex(-4.0, 0.0))", "t.jl")) == 2j
    got = as_py(rt.run_source("sqrt(Complex(-4.0, -0.0))", "t.jl"))
    assert got == -2j and math.copysign(1.0, got.imag) == -1.0


def _fd_grad(f: object, z: complex, h: float = 1e-6) -> complex:
    dre = (f(z + h) - f(z - h)) / (2 * h)  # type: ignore[operator]
    dim = (f(z + 1j * h) - f(z - 1j * h)) / (2 * h)  # type: ignore[operator]
    return complex(dre, dim)


@settings(max_examples=15, deadline=None)
@given(st.builds(complex, st.floats(-2, 2), st.floats(-2, 2)))
def test_gradients_follow_zygote_convention(rt: Runtime, z: complex) -> None:
    """gradient(f, z) of a real f is ∂f/∂re + ∂f/∂im * im (Zygote's convention)."""
    for src, ref in (("z -> abs2(z)", lambda u: abs(u) ** 2),
                     ("z -> real(z * z)", lambda u: (u * u).real),
                     ("z -> abs2(sin(z))", lambda u: abs(cmath.sin(u)) ** 2),
                     ("z -> imag(exp(z)) + 3 * real(z)", lambda u: cmath.exp(u).imag + 3 * u.real),
                     ("z -> real(1 / (z + 3))", lambda u: (1 / (u + 3)).real),
                     ("z -> imag((z + 2im) / (3 - z))", lambda u: ((u + 2j) / (3 - u)).imag),
                     ("z -> imag(1 - z) + abs(z + 3)", lambda u: (1 - u).imag + abs(u + 3))):
        g = rt.run_source(f"gradient({src}, {lit(z)})[1]", "t.jl")
        assert is_complex(g)
        assert close(as_py(g), _fd_grad(ref, z), 1e-6), src


def test_gradient_examples(rt: Runtime) -> None:
    assert rt.run_source("gradient(z -> abs2(z), 1 + 2im)[1] == 2 + 4im", "t.jl") is True
    assert rt.run_source("gradient(x -> abs(x * im + 1), 2.0)[1]", "t.jl") == pytest.approx(
        2 / math.sqrt(5))
    got = rt.run_source("repr(gradient(v -> sum(abs2, v), [1.0 + 2im, 3im])[1])", "t.jl")
    assert got == "ComplexF64[2.0 + 4.0im, 0.0 + 6.0im]"
    # an integer complex input has a float gradient; complex numbers inside structs
    assert rt.run_source("gradient(z -> z.re, 2 + 3im) === (1.0 + 0.0im,)", "t.jl") is True
    assert rt.run_source("repr(gradient(r -> abs2(r.x) + 7 * r.x.re, Ref(1 + im)))",
                         "t.jl") == "((x = 9.0 + 2.0im,),)"
    assert rt.run_source("gradient(z -> abs2(z * real(z)), 4 + 5im)[1] == 456.0 + 160.0im",
                         "t.jl") is True


def test_compiled_tier_keeps_complex_on_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """With every call compiled, a function building complex numbers from arrays still
    gives the array of complex numbers (never a complex number of arrays)."""
    monkeypatch.setenv("ZYLA_COMPILE", "always")
    r = Runtime()
    r.run_source("g(v) = im .* v\nh(z) = z * z\n", "c.jl")
    assert r.run_source("repr(g([1.0, 2.0]))", "t.jl") == "ComplexF64[0.0 + 1.0im, 0.0 + 2.0im]"
    assert r.run_source("repr(h(1.0 + 2im))", "t.jl") == "-3.0 + 4.0im"


def test_display_aligns_on_the_sign(rt: Runtime) -> None:
    from lang.core.show import jl_display

    m = rt.run_source("[1.5+2im 3im; -1-1im 2]", "t.jl")
    assert jl_display(m, limit=False) == (
        "2×2 Matrix{ComplexF64}:\n  1.5+2.0im  0.0+3.0im\n -1.0-1.0im  2.0+0.0im")
    v = rt.run_source("[1+2im, 3im]", "t.jl")
    assert jl_display(v, limit=False) == "2-element Vector{Complex{Int64}}:\n 1 + 2im\n 0 + 3im"


INVERSES = (("asinh", cmath.asinh), ("acosh", cmath.acosh), ("atanh", cmath.atanh),
            ("asin", cmath.asin), ("acos", cmath.acos), ("atan", cmath.atan),
            ("sqrt", cmath.sqrt), ("log", cmath.log))
# points on and beside the branch cuts, with both signs of zero (C99 and Julia agree there)
CUT_POINTS = (complex(2.0, 0.0), complex(2.0, -0.0), complex(-2.0, 0.0), complex(-2.0, -0.0),
              complex(0.0, 2.0), complex(-0.0, 2.0), complex(0.0, -2.0), complex(-0.0, -2.0),
              complex(0.5, 0.0), complex(-0.5, -0.0), 0.5 + 0.25j, -2.1 - 3.1j, -3 + 4j)


@pytest.mark.parametrize("z", CUT_POINTS)
def test_inverse_functions_on_their_principal_branches(rt: Runtime, z: complex) -> None:
    for name, ref in INVERSES:
        got = as_py(rt.run_source(f"{name}({lit(z)})", "t.jl"))
        want = ref(z)
        assert close(got, want, 1e-13), (name, z, got, want)
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            assert math.copysign(1.0, g) == math.copysign(1.0, w), (name, z, got, want)


def test_sinpi_cospi_are_exact_at_whole_multiples(rt: Runtime) -> None:
    assert as_py(rt.run_source("sinpi(Complex(1.0, 0.0))", "t.jl")) == 0j
    assert as_py(rt.run_source("cospi(Complex(0.5, 0.0))", "t.jl")).real == 0.0
    got = as_py(rt.run_source("sinpi(Complex(0.3, 0.7))", "t.jl"))
    assert close(got, cmath.sin(math.pi * (0.3 + 0.7j)), 1e-14)
