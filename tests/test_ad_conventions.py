"""Zygote's conventions beyond Float64 arrays, with hypothesis-drawn inputs: integer
arguments get gradients, loops over `zip` and `enumerate` and comprehensions over them
hand their elements' cotangents back, arrays of arrays and of NamedTuples differentiate,
`map` over three arrays, Bool outputs give `nothing`, and `f'` is the derivative. Each
gradient is checked against `jax.grad` of the same computation written in JAX, and
against central finite differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snippets import session

from lang.core.numeric import configure_jax
from lang.door.api import Zyla

configure_jax()

SRC = """
poly(n) = 3n^2 - 2n + 7
scaled(x, n) = x * n + n^2
function dotzip(a, b)
    s = 0.0
    for (x, y) in zip(a, b)
        s += x * y
    end
    s
end
weighted(v) = sum([k * e^2 for (k, e) in enumerate(v)])
nested(x) = sum(sum, [x, 2 .* x])
fields(x) = sum(p -> p.a * p.b, [(a = x[i], b = x[i]^2) for i in 1:length(x)])
three(a, b, c) = sum(map((x, y, z) -> x * y * z, a, b, c))
positive(x) = x > 0.0
function loopprod(xs)
    s = 1
    for x in xs
        s *= x
    end
    s
end
scaledsum(s, v) = sum(vi -> vi * s, v)
squares(v) = sum(map(x -> x^2, v))
"""

def z() -> Zyla:
    return session(__name__, SRC)


SETTINGS = settings(max_examples=15, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
floats = st.floats(-3, 3, allow_nan=False, allow_subnormal=False)
vectors = st.lists(floats, min_size=1, max_size=5).map(np.array)


def fd(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@SETTINGS
@given(st.integers(-1000, 1000))
def test_an_integer_argument_gets_its_derivative(n: int) -> None:
    (g,) = z().gradient("poly", n)
    assert g == 6 * n - 2
    assert g == jax.grad(lambda x: 3 * x ** 2 - 2 * x + 7)(float(n))


@SETTINGS
@given(floats, st.integers(-50, 50))
def test_mixed_float_and_integer_arguments(x: float, n: int) -> None:
    gx, gn = z().gradient("scaled", x, n)
    jx, jn = jax.grad(lambda a, b: a * b + b ** 2, argnums=(0, 1))(x, float(n))
    np.testing.assert_allclose([gx, gn], [jx, jn], rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.lists(floats, min_size=n, max_size=n).map(np.array),
    st.lists(floats, min_size=n, max_size=n).map(np.array))))
def test_a_loop_over_zip(ab: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = ab
    ga, gb = z().gradient("dotzip", a, b)
    np.testing.assert_allclose(ga, b, rtol=1e-12)
    np.testing.assert_allclose(gb, a, rtol=1e-12)


@SETTINGS
@given(vectors)
def test_a_comprehension_over_enumerate(v: np.ndarray) -> None:
    (g,) = z().gradient("weighted", v)
    want = jax.grad(lambda w: jnp.sum(jnp.arange(1, w.size + 1) * w ** 2))(jnp.asarray(v))
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, fd(lambda w: z().call("weighted", w), v), rtol=1e-5,
                               atol=1e-6)


@SETTINGS
@given(vectors)
def test_arrays_of_arrays_and_of_named_tuples(x: np.ndarray) -> None:
    (g,) = z().gradient("nested", x)
    np.testing.assert_allclose(g, np.full_like(x, 3.0))
    (g,) = z().gradient("fields", x)
    np.testing.assert_allclose(g, jax.grad(lambda w: jnp.sum(w ** 3))(jnp.asarray(x)),
                               rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.integers(1, 4).flatmap(lambda n: st.lists(
    st.lists(floats, min_size=n, max_size=n).map(np.array), min_size=3, max_size=3)))
def test_map_over_three_arrays(abc: list[np.ndarray]) -> None:
    a, b, c = abc
    got = z().gradient("three", a, b, c)
    for g, want in zip(got, (b * c, a * c, a * b), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(floats)
def test_bool_output_and_derivative_syntax(x: float) -> None:
    assert z().gradient("positive", x) == (None,)
    zz = z()
    zz.rt.globals["x0"] = x
    np.testing.assert_allclose(zz.eval("sin'(x0)"), np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(zz.eval("(y -> 5y + 3)'(x0)"), 5.0)


ints = st.lists(st.integers(-9, 9), min_size=1, max_size=5).map(lambda v: np.array(v, np.int64))


@SETTINGS
@given(ints, st.integers(-5, 5))
def test_integer_arrays_get_float_gradients(v: np.ndarray, s: int) -> None:
    """An Int array's gradient is a Float64 array (Zygote's), through a loop over its
    elements, a function passed to sum and one mapped over it; each against jax.grad of
    the same computation on floats."""
    x = v.astype(np.float64)
    (g,) = z().gradient("loopprod", v)
    np.testing.assert_allclose(g, jax.grad(lambda w: jnp.prod(w))(jnp.asarray(x)), atol=1e-9)
    gs, gv = z().gradient("scaledsum", s, v)
    assert gv.dtype == np.float64
    np.testing.assert_allclose(gv, np.full(v.shape, float(s)))
    assert gs == float(v.sum())
    (g,) = z().gradient("squares", v)
    np.testing.assert_allclose(g, jax.grad(lambda w: jnp.sum(w ** 2))(jnp.asarray(x)))


def test_gradients_flow_through_tuple_conversion() -> None:
    """`Tuple(v)` of an array or a tuple passes the cotangent back (it was `nothing`),
    checked against finite differences."""
    z = Zyla()
    z.eval("f(v) = (t = Tuple(v); t[1] * t[2] + sin(t[2]))\ng(x) = Tuple([x, 2x])[2]")
    v = np.array([0.3, 1.7])
    (gv,) = z.gradient("f", v)
    h = 1e-6
    fd = [(z.call("f", v + h * e) - z.call("f", v - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(gv, fd, rtol=1e-6)
    assert z.eval("gradient(g, 1.5)") == (2.0,)
    assert z.eval("gradient(t -> sum(Tuple(t)), (1.0, 2.0))") == ((1.0, 1.0),)


_BY_MODE: dict[str, Zyla] = {}


def _gradient_in(mode: str, f: str, arg: str) -> object:
    """gradient(f, arg) in a session whose calls run as `mode` says ("never": on the
    host, "always": compiled)."""
    z = _BY_MODE.get(mode)
    if z is None:
        z = _BY_MODE[mode] = Zyla()
        z.rt.compile_mode = mode
    return z.eval(f"gradient({f}, {arg})")


@settings(SETTINGS, max_examples=8)
@given(st.lists(st.one_of(floats, st.integers(-5, 5)), min_size=1, max_size=4).map(tuple),
       floats)
def test_the_gradient_of_a_collected_tuple_is_a_tuple(t: tuple, s: float) -> None:
    """`collect(t)` of a tuple: its cotangent is a tuple (compiled code gave a Vector),
    also inside a tuple argument; against jax.grad of the same function."""
    lit = "(" + ", ".join(map(repr, t)) + ",)"
    want = jax.grad(lambda w: jnp.sum(w ** 2) + w[0])(jnp.asarray(t, dtype=float))
    want_s = jax.grad(lambda w, c: jnp.sum(w) * c, argnums=(0, 1))(
        jnp.asarray(t, dtype=float), s)
    for mode in ("never", "always"):
        (g,) = _gradient_in(mode, "t -> sum(abs2, collect(t)) + t[1]", lit)
        assert type(g) is tuple and len(g) == len(t), (mode, g)
        np.testing.assert_allclose(g, want, rtol=1e-12)
        ((gt, gs),) = _gradient_in(mode, "p -> sum(collect(p[1])) * p[2]", f"({lit}, {s!r})")
        assert type(gt) is tuple, (mode, gt)
        np.testing.assert_allclose(gt, want_s[0], rtol=1e-12)
        np.testing.assert_allclose(gs, want_s[1], rtol=1e-12)


_LAYERS = """
abstract type AbstractLayer end
struct Affine <: AbstractLayer
    w::Float64
    b::Float64
end
struct Shifted <: AbstractLayer
    w::Float64
    b::Float64
end
(l::AbstractLayer)(x) = l.w * x + l.b
(s::Shifted)(x) = s.w * x - s.b
"""


@settings(SETTINGS, max_examples=6)
@given(floats, floats, floats)
def test_a_callable_defined_on_an_abstract_supertype(w: float, b: float, x: float) -> None:
    """`(l::AbstractLayer)(x)` is the call method of every struct below it (it was "not
    callable"); a subtype's own method is more specific. Values and gradients on both
    tiers, against jax.grad."""
    def ref(p: jnp.ndarray, sign: float) -> jnp.ndarray:
        return jnp.tanh(p[0] * x + sign * p[1])

    for mode in ("never", "always"):
        if mode not in _BY_MODE:
            _gradient_in(mode, "identity", "1.0")
        _BY_MODE[mode].eval(_LAYERS)
        for name, sign in (("Affine", 1.0), ("Shifted", -1.0)):
            want = jax.grad(ref)(jnp.asarray([w, b]), sign)
            (g,) = _gradient_in(mode, f"l -> tanh(l({x!r}))", f"{name}({w!r}, {b!r})")
            np.testing.assert_allclose([g["w"], g["b"]], want, rtol=1e-9, atol=1e-300)
            y = _BY_MODE[mode].eval(f"{name}({w!r}, {b!r})({x!r})")
            assert y == w * x + sign * b, (mode, name, y)


@settings(SETTINGS, max_examples=6)
@given(floats, floats)
def test_the_gradient_through_a_callable_number(a: float, b: float) -> None:
    """`(a::Float64)(b) = a * sin(b)`: reverse and forward mode through a call of a number
    (it was "cannot differentiate a call of Float64"), both tiers, against jax.grad."""
    ga, gb = jax.grad(lambda p, q: p * jnp.sin(q) + p, argnums=(0, 1))(a, b)
    for mode in ("never", "always"):
        if mode not in _BY_MODE:
            _gradient_in(mode, "identity", "1.0")
        z = _BY_MODE[mode]
        z.eval("(a::Float64)(b) = a * sin(b)")
        g = z.eval(f"gradient((p, q) -> p(q) + p, {a!r}, {b!r})")
        np.testing.assert_allclose(g, (ga, gb), rtol=1e-12, atol=1e-300)
        (j,) = z.eval(f"jacobian(p -> [p({b!r}), p(2.0)], {a!r})")
        np.testing.assert_allclose(np.asarray(j).ravel(), [np.sin(b), np.sin(2.0)],
                                   rtol=1e-12)
