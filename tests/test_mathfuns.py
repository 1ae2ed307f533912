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
