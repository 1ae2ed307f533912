"""Base.Math functions and Base.FastMath (lang/core/stdlib/math.jl,
lang/core/primitives_math.py, @evalpoly in lang/core/macros.py).

Expected values follow Julia's documentation: `sind(30) == 0.5` and `cosd(90) == 0.0`
exactly, `frexp(8.0) == (0.5, 4)`, `modf(-3.5) == (-0.5, -3.0)`, `nextfloat`/`prevfloat`
step by one unit in the last place (a count steps several), `exponent(8.0) == 3`,
`clamp(300, UInt8) === 0xff`, the FastMath functions equal the ordinary ones. Bit-level
functions are checked against Python's math on hypothesis-drawn floats, the degree
functions against their radian versions, gradients against finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door.wiring import Runtime

finite = st.floats(allow_nan=False, allow_infinity=False)


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return Runtime()


@pytest.mark.parametrize(("src", "expected"), [
    ("sind(30)", "0.5"), ("sind(30.0)", "0.5"), ("sind(-150)", "-0.5"), ("cosd(60)", "0.5"),
    ("cosd(90)", "0.0"), ("sind(180)", "0.0"), ("sind(-180.0)", "-0.0"), ("sind(-0.0)", "-0.0"),
    ("cosd(270)", "0.0"), ("sind(90)", "1.0"), ("cosd(180)", "-1.0"), ("tand(45)", "1.0"),
    ("sind(30f0)", "0.5f0"), ("sincosd(90)", "(1.0, 0.0)"), ("sind(390)", "0.5"),
    ("asind(0.5)", repr(math.degrees(math.asin(0.5)))), ("atand(1.0, 1.0)", "45.0"),
    ("acosd(0.0)", "90.0"), ("atand(Inf32)", "90.0f0"),
    ("frexp(8.0)", "(0.5, 4)"), ("frexp(0.0)", "(0.0, 0)"), ("frexp(-3f0)", "(-0.75f0, 2)"),
    ("ldexp(0.5, 4)", "8.0"), ("ldexp(1.0, 2000)", "Inf"), ("ldexp(1f0, -200)", "0.0f0"),
    ("modf(3.5)", "(0.5, 3.0)"), ("modf(-3.5)", "(-0.5, -3.0)"), ("modf(-3.0)", "(-0.0, -3.0)"),
    ("modf(Inf)", "(0.0, Inf)"), ("modf(2)", "(0.0, 2.0)"),
    ("nextfloat(1.0)", "1.0000000000000002"), ("prevfloat(1.0)", "0.9999999999999999"),
    ("nextfloat(-0.0)", "5.0e-324"), ("prevfloat(0.0)", "-5.0e-324"),
    ("nextfloat(1.0, 2)", "1.0000000000000004"), ("prevfloat(1.0, -1)", "1.0000000000000002"),
    ("nextfloat(Inf)", "Inf"), ("nextfloat(floatmax(Float64))", "Inf"),
    ("prevfloat(-Inf)", "-Inf"), ("nextfloat(1f0)", "1.0000001f0"),
    ("issubnormal(5.0e-324)", "true"), ("issubnormal(1.0)", "false"),
    ("issubnormal(0.0)", "false"), ("issubnormal(1f-40)", "true"),
    ("exponent(8.0)", "3"), ("exponent(0.1)", "-4"), ("exponent(5.0e-324)", "-1074"),
    ("significand(12.0)", "1.5"), ("significand(-0.1)", "-1.6"), ("significand(0.0)", "0.0"),
    ("floatmin(Float64)", "2.2250738585072014e-308"), ("floatmax(Float32)", "3.4028235f38"),
    ("floatmin(1f0)", "1.1754944f-38"), ("maxintfloat(Float64)", "9.007199254740992e15"),
    ("eps(-1.0)", "2.220446049250313e-16"), ("eps(1.0)", "2.220446049250313e-16"),
    ("mod2pi(2pi)", "6.283185307179586"),  # Float64 2π is below 2π
    ("mod2pi(9*pi/4)", "0.7853981633974481"), ("mod2pi(-1.0)", repr(2 * math.pi - 1.0)),
    ("rem2pi(4.0)", "-2.2831853071795867"),  # 4 - 2π rounded once
    ("cosc(0)", "-0.0"), ("cosc(1.0)", "-1.0"), ("sinc(Inf)", "0.0"),
    ("Base.literal_pow(^, 3.0, Val(2))", "9.0"), ("Base.literal_pow(^, 2, Val(3))", "8"),
    ("clamp(300, UInt8) === UInt8(255)", "true"), ("clamp(-5, UInt8) === UInt8(0)", "true"),
    ("clamp(7, Int8) === Int8(7)", "true"),
    ("@evalpoly(2, 3, 4, 5, 6)", "79"), ("@evalpoly(1, 2)", "2"),
    ("get_zero_subnormals()", "false"), ("set_zero_subnormals(false)", "true"),
    ("set_zero_subnormals(true)", "false"),
    ("true^-2", "1.0"), ("false^-2", "Inf"), ("m = -2; true^m", "true"), ("false^3", "false"),
    ("false^0", "true"),
    ("Float32(1//3)", "0.33333334f0"), ("Float64(1//3)", "0.3333333333333333"),
    ("Int(6//2)", "3"), ("deg2rad(180f0)", "3.1415927f0"), ("rad2deg(Float32(pi))", "180.0f0"),
    ("Base.FastMath.add_fast(1, 2, 3)", "6"), ("Base.FastMath.mul_fast(2.0, 3.0)", "6.0"),
    ("Base.FastMath.pow_fast(2.0, 3)", "8.0"), ("Base.FastMath.sincos_fast(0.0)", "(0.0, 1.0)"),
    ("@fastmath 1.5 * 2.0 + 1.0", "4.0"),
    ("sech(0.5)", repr(1 / math.cosh(0.5))), ("coth(1.0)", repr(1 / math.tanh(1.0))),
    ("acot(2.0)", repr(math.atan(0.5))), ("asech(0.5)", repr(math.acosh(2.0))),
    ("acoth(2.0)", repr(math.atanh(0.5))), ("acsc(2.0)", repr(math.asin(0.5))),
])
def test_values(rt: Runtime, src: str, expected: str) -> None:
    assert rt.run_source(f"repr(begin; {src}; end)", "t.jl") == expected


@pytest.mark.parametrize(("src", "kind"), [
    ("nextfloat(1)", "MethodError"), ("frexp(3)", "MethodError"),
    ("exponent(0.0)", "DomainError"), ("exponent(Inf)", "DomainError"),
    ("sind(Inf)", "DomainError"), ("m = -1; false^m", "DomainError"),
    ("Int(1//2)", "InexactError"), ("ldexp(1.0, 2.5)", "MethodError"),
    ("clamp(1.5, UInt8)", "MethodError"),
])
def test_errors(rt: Runtime, src: str, kind: str) -> None:
    with pytest.raises(ZylaError) as e:
        rt.run_source(src, "t.jl")
    assert e.value.kind == kind


@settings(max_examples=40, deadline=None)
@given(finite)
def test_bit_functions_match_python(x: float) -> None:
    rt = _shared()
    m, e = rt.run_source(f"frexp({x!r})", "t.jl")
    assert (m, e) == math.frexp(x)
    assert rt.run_source(f"nextfloat({x!r})", "t.jl") == math.nextafter(x, math.inf)
    with np.errstate(over="ignore"):  # prevfloat(-floatmax) is -Inf
        below = float(np.nextafter(np.nextafter(np.nextafter(x, -np.inf), -np.inf), -np.inf))
    assert rt.run_source(f"prevfloat({x!r}, 3)", "t.jl") == below
    assert rt.run_source(f"issubnormal({x!r})", "t.jl") == (x != 0 and abs(x) < 2.0 ** -1022)
    if x != 0:
        assert rt.run_source(f"exponent({x!r})", "t.jl") == math.frexp(x)[1] - 1
        assert rt.run_source(f"ldexp(significand({x!r}), exponent({x!r}))", "t.jl") == x
    fr, i = rt.run_source(f"modf({x!r})", "t.jl")
    assert i == math.trunc(x) and fr + i == x and math.copysign(1, fr) == math.copysign(1, x)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=-1e4, max_value=1e4))
def test_degrees_match_radians(d: float) -> None:
    rt = _shared()
    s, c = rt.run_source(f"sincosd({d!r})", "t.jl")
    r = math.radians(math.fmod(d, 360.0))
    assert s == pytest.approx(math.sin(r), abs=1e-15)
    assert c == pytest.approx(math.cos(r), abs=1e-15)
    assert rt.run_source(f"Base.FastMath.sin_fast({d!r})", "t.jl") == math.sin(d)


@pytest.mark.parametrize(("f", "x"), [("sind", 20.0), ("cosd", 200.0), ("tand", 10.0),
                                      ("cosc", 0.3), ("cosc", 1e-4), ("asind", 0.3),
                                      ("sech", 0.5), ("acoth", 2.0), ("asec", 1.5),
                                      ("x -> modf(x)[1]", 2.3),
                                      ("Base.FastMath.exp_fast", 0.7),
                                      ("x -> Base.FastMath.pow_fast(x, 3)", 1.3)])
def test_gradients_match_finite_differences(rt: Runtime, f: str, x: float) -> None:
    (g,) = rt.run_source(f"gradient({f}, {x!r})", "t.jl")
    h = 1e-6
    fp = rt.run_source(f"({f})({x + h!r})", "t.jl")
    fm = rt.run_source(f"({f})({x - h!r})", "t.jl")
    assert g == pytest.approx((fp - fm) / (2 * h), rel=1e-5, abs=1e-8)


_RT: list[Runtime] = []


def _shared() -> Runtime:
    """One runtime for the hypothesis tests (a fixture cannot be used with @given)."""
    if not _RT:
        _RT.append(Runtime())
    return _RT[0]


# --- ChainRules' conventions for x ^ p, conversions and the other rules of this file --------

@pytest.mark.parametrize(("src", "expected"), [
    # ∂x and ∂p of x ^ p where x is zero (ChainRules' table), and p's gradient for an
    # integer p; the cotangent of an integer is a Float64
    ("pullback(^, 2.0, 2)[2](1)", "(4.0, 2.772588722239781)"),
    ("pullback(^, 0.0, 2)[2](1)", "(0.0, 0.0)"), ("pullback(^, -0.0, 2)[2](1)", "(0.0, 0.0)"),
    ("pullback(^, -0.0, 1)[2](1)", "(1.0, 0.0)"), ("pullback(^, 0.0, 0)[2](1)", "(0.0, NaN)"),
    ("pullback(^, -0.0, -1)[2](1)", "(-Inf, NaN)"), ("pullback(^, -0.0, -2)[2](1)", "(Inf, NaN)"),
    ("pullback(^, 0.0, 0.5)[2](1)", "(Inf, 0.0)"), ("pullback(^, 0.0, -1.5)[2](1)", "(-Inf, NaN)"),
    ("pullback(^, 0, 1)[2](1)", "(1.0, 0.0)"), ("pullback(^, -2.0, 3)[2](1.0)[2]",
                                               repr(-8.0 * math.log(2.0))),
    ("jvp(t -> t[1] ^ t[2], (0.0, 0), (1, 0))[2]", "0.0"),  # a zero tangent of p adds nothing
    ("jvp(t -> t[1] ^ t[2], (2.0, 2), (0, 1))[2]", "2.772588722239781"),
    ("gradient(x -> gradient(y -> y ^ 2, x)[1], 0.0)", "(2.0,)"),
    ("(-0.0)^-1", "-Inf"), ("(-0.0)^-3.0", "-Inf"), ("(-0.0)^-2", "Inf"), ("0.0^-1", "Inf"),
    # gradients keep the arguments' float types (an Int's is a Float64)
    ("pullback(+, 1.5f0, 2)[2](1f0)", "(1.0f0, 1.0)"), ("pullback(/, 2, 1.5f0)[2](1f0)",
                                                        "(0.6666666865348816, -0.8888889f0)"),
    ("gradient(x -> x * 2.0, 1f0)", "(2.0f0,)"), ("gradient(x -> x[1] * 2.5, [1, 2])",
                                                  "([2.5, 0.0],)"),
    ("pullback(\\, 2f0, 3f0)[2](1f0)", "(-0.75f0, 0.5f0)"),
    ("jvp(float, 1.0, 1.7)", "(1.0, 1.7)"), ("jvp(Float32, 2.0, 0.5)", "(2.0f0, 0.5f0)"),
    ("AbstractFloat(1)", "1.0"), ("AbstractFloat(1.5f0)", "1.5f0"), ("hypot(-3.0)", "3.0"),
    ("hypot(3 + 4im)", "5.0"), ("gradient(x -> *(x), 2.0)", "(1.0,)"),
    ("gradient(x -> ldexp(x, 3), 1.5)", "(8.0,)"), ("gradient(x -> ldexp(x, -1), 1f0)", "(0.5f0,)"),
    ("jvp(x -> ldexp(x, 20), 1.0, 1.0)", "(1.048576e6, 1.048576e6)"),
    ("gradient(mod2pi, 10.0)", "(1.0,)"), ("gradient(x -> rem2pi(x, RoundNearest), 10.0)",
                                          "(1.0,)"),
    # complex numbers: inverse degree functions, products of several, broadcasts
    ("asind(0.5 + 0.25im) == rad2deg(asin(0.5 + 0.25im))", "true"),
    ("*(2.0, 3.0, 1.0 + 2im)", "6.0 + 12.0im"), ("+(2.0, 3.0, 1.0 + 2im, 4)", "10.0 + 2.0im"),
    ("gradient((a, b) -> real(*(a, 2.0, b, 3.0)), 1.0 + 1im, 2.0 - 1im)",
     "(12.0 + 6.0im, 6.0 - 6.0im)"),
    ("gradient(y -> real(sum([1.0 + 2im, 3.0 - 1im] .* y)), 7.2 + 8.3im)", "(4.0 - 1.0im,)"),
    ("gradient(z -> real(sum([1.0 2.0; 3.0 4.0] .+ z)), [1.0 + 2im, 3.0 - 1im])",
     "(ComplexF64[2.0 + 0.0im, 2.0 + 0.0im],)"),
    ("[1.0, 2.0] - [1.0 + 1im, 2.0 - 1im]", "ComplexF64[0.0 - 1.0im, 0.0 + 1.0im]"),
    ("(2.0 + 0im) \\ [2.0 + 2im]", "ComplexF64[1.0 + 1.0im]"),
    ("round(1.26 + 2.34im, digits=1)", "1.3 + 2.3im"),
    ("merge((a = 1.0, b = 2.0), (b = 5.0, c = 3))", "(a = 1.0, b = 5.0, c = 3)"),
    ("gradient((x, y) -> merge(x, y).b * 2 + merge(x, y).a, (a = 1.0, b = 2.0), (b = 5.0,))",
     "((a = 1.0, b = nothing), (b = 2.0,))"),
])
def test_rule_conventions(rt: Runtime, src: str, expected: str) -> None:
    assert rt.run_source(f"repr(begin; {src}; end)", "t.jl") == expected


@settings(max_examples=15, deadline=None)
@given(st.floats(0.2, 3.0), st.integers(-3, 4), st.floats(-2.0, 2.0).filter(lambda p: p != 0))
def test_power_gradients_match_finite_differences(x: float, n: int, p: float) -> None:
    """∂x and ∂p of x ^ p for an integer and a real p (and x < 0 with an integer p, where
    ∂p is y log|x|, the real part of the complex logarithm's)."""
    rt = _shared()
    h = 1e-6
    for xx in (x, -x):
        gx, gp = rt.run_source(f"pullback(^, {xx!r}, {n})[2](1.0)", "t.jl")
        assert gx == pytest.approx(n * xx ** (n - 1), rel=1e-9)
        assert gp == pytest.approx(xx ** n * math.log(x), rel=1e-9, abs=1e-12)
    gx, gp = rt.run_source(f"gradient(^, {x!r}, {p!r})", "t.jl")
    assert gx == pytest.approx(((x + h) ** p - (x - h) ** p) / (2 * h), rel=1e-5, abs=1e-8)
    assert gp == pytest.approx((x ** (p + h) - x ** (p - h)) / (2 * h), rel=1e-5, abs=1e-8)


def test_testset_for_continue(rt: Runtime) -> None:
    """`continue` in the body of `@testset for` skips the rest of that iteration."""
    out = rt.run_source("""
    using Test
    seen = Int[]
    @testset "t $k" for k in 1:3
        k == 2 && continue
        push!(seen, k)
        @test true
    end
    seen
    """, "t.jl")
    assert list(out) == [1, 3]
