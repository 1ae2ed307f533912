"""Regressions from the Zygote, ChainRules and Flux conformance files (tests/conformance/
{zygote,chainrules,flux}): ChainRules' zero tangent in muladd, complex tangents from `jvp`,
the element type of a forward-over-reverse Hessian at integer inputs, and Diagonal's
isapprox and dense form. Gradients are checked against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from snippets import session

from backend.lower_jax import _one_element_tuples
from lang.core.refusals import OffloadError
from lang.door.api import Zyla

SRC = """
using Zygote
using ChainRulesCore
using LinearAlgebra
W32 = Float32[0.5 -0.2 0.1; 0.3 0.4 -0.6]
f32(x) = sum(tanh.(W32 * Float32.(x)))
"""


def z() -> Zyla:
    zz = session(__name__, SRC)
    zz.rt.compile_mode = "never"  # (the host's answers; compiling them takes seconds)
    return zz


def test_muladd_with_a_zero_tangent() -> None:
    """ChainRulesCore's muladd with ZeroTangent() (here `nothing`): a zero factor gives the
    addend, a zero addend the product (was a MethodError on `+(::Float64, ::Nothing)`)."""
    got = z().eval("(muladd(2.0, 3.0, ZeroTangent()), muladd(ZeroTangent(), 3.0, 4.0),"
                   " muladd(2.0, ZeroTangent(), 4.0),"
                   " gradient(x -> muladd(x, 3.0, ZeroTangent()), 2.0)[1],"
                   " gradient(z -> muladd(ZeroTangent(), 3.0, z), 4.0)[1])")
    assert got == (6.0, 4.0, 4.0, 3.0, 1.0)


def test_jvp_of_a_complex_result_is_a_complex_number() -> None:
    """`jvp`'s tangent of a complex result is a complex number, as ChainRules' frules give
    it (was the NamedTuple `(re = ..., im = ...)` of its fields), also inside arrays."""
    zz = z()
    w, d = -1.1 + 0.3j, 0.2 + 0.7j
    re, im, t = zz.eval("(t = jvp(t -> exp(t[1]), (-1.1 + 0.3im,), (0.2 + 0.7im,))[2];"
                        " (real(t), imag(t), typeof(t)))")
    assert str(t) == "ComplexF64"
    h = 1e-6  # the directional derivative by central differences
    fd = (np.exp(w + h * d) - np.exp(w - h * d)) / (2 * h)
    assert abs(complex(re, im) - fd) < 1e-8
    assert zz.eval("jvp(t -> [2 * t[1], t[1]^2], (-1.1 + 0.3im,), (0.2 + 0.7im,))[2] isa "
                   "Vector{ComplexF64}")


def test_hessian_at_integer_inputs_keeps_the_gradient_float_type() -> None:
    """Forward over reverse at integer inputs of a Float32 function is a Float32 Hessian, as
    Zygote's Dual numbers give it (it was a Float64 matrix holding Float32's precision,
    which `≈` then compared at Float64's tolerance with hessian_reverse's)."""
    zz = z()
    h, t = zz.eval("H = hessian(f32, [1, 2, 3]); (H, eltype(H))")
    assert str(t) == "Float32"
    # the Hessian by central differences of the gradient
    eps, x0 = 1e-3, np.array([1.0, 2.0, 3.0])
    gs = np.asarray(zz.eval("[gradient(f32, x)[1] for x in (" + ", ".join(
        str((x0 + s * eps * e).tolist()) for e in np.eye(3) for s in (1, -1)) + ")]"))
    fd = np.stack([(gs[2 * i] - gs[2 * i + 1]) / (2 * eps) for i in range(3)], axis=1)
    np.testing.assert_allclose(np.asarray(h, dtype=np.float64), fd, rtol=1e-2, atol=1e-3)
    assert zz.eval("hessian(x -> sum(x .^ 3), [1, 2]) == [6.0 0.0; 0.0 12.0]")


def test_diagonal_isapprox_and_complex_dense_form() -> None:
    """A Diagonal ≈ a dense matrix (was a MethodError), the dense form of a complex
    Diagonal (was Python's TypeError text), of its own element type, and broadcasts of a
    Diagonal with an array, a number or a Diagonal (structured where f keeps zeros)."""
    zz = z()
    assert zz.eval("(Diagonal([1.0, 2.0]) ≈ [1.0 0.0; 0.0 2.0], [1.0 0.0; 0.0 2.0] ≈ "
                   "Diagonal([1.0, 2.0]), Diagonal([1.0, 2.0]) ≈ [1.0 0.1; 0.0 2.0])") \
        == (True, True, False)
    assert zz.eval("Matrix(Diagonal([-1.5 + 1im, 2.0 - 1im])) == "
                   "[-1.5+1im 0; 0 2.0-1im]")
    assert str(zz.eval("typeof(Matrix(Diagonal([1 + 2im, 3 + 0im])))")) \
        == "Matrix{Complex{Int64}}"
    # complex ones compare through broadcasting beside a dense matrix (was a MethodError)
    assert zz.eval("C = Diagonal([1.0 + 1im, 2.0 - 1im]); (C ≈ Matrix(C), Matrix(C) ≈ C,"
                   " C ≈ Matrix(C) .+ 0.1, C .- Matrix(C) == zeros(2, 2),"
                   " C .+ C isa Diagonal, Diagonal([1.0, 2.0]) .+ 1 == [2.0 1.0; 1.0 3.0])") \
        == (True, True, False, True, True, True)


def test_broadcast_over_a_ref_passes_its_contents() -> None:
    """`f.(Ref(v), xs)` differentiated: each call sees v, not the Ref (the pullback ran
    f(Ref(v), x): `length(mm)` was 1, a wrong value and gradient), and a Ref's cotangent
    is `(x = d,)`; as Zygote's features.jl "mutable struct, including Ref"."""
    zz = z()
    zz.eval("h_len(mm, x) = length(mm) * x; h_dot(mm, x) = sum(mm .* x)")
    y, g = zz.eval("(Zygote.pullback(x -> sum(h_len.(Ref([1.0, 2.0, 3.0]), x)), [1.0, 2.0])[1],"
                   " gradient(x -> sum(h_len.(Ref([1.0, 2.0, 3.0]), x)), [1.0, 2.0])[1])")
    assert y == 9.0
    np.testing.assert_allclose(g, [3.0, 3.0])
    assert zz.eval("gradient(r -> sum(sum, r .* [1, 2, 3]), Ref([4, 5])) == ((x = [6.0, 6.0],),)")
    assert zz.eval("gradient(v -> sum(sum.(Ref(v))), [4.0, 5.0]) == ([1.0, 1.0],)")
    m0 = np.array([0.3, -1.2])
    g = np.asarray(zz.eval("gradient(m -> sum(h_dot.(Ref(m), [1.0, 2.0]) .^ 2), "
                           f"{m0.tolist()})[1]"))

    def loss(m: np.ndarray) -> float:
        return float(sum((m * k).sum() ** 2 for k in (1.0, 2.0)))

    eps = 1e-6
    fd = np.array([(loss(m0 + eps * e) - loss(m0 - eps * e)) / (2 * eps) for e in np.eye(2)])
    np.testing.assert_allclose(g, fd, rtol=1e-6)


def test_compiled_broadcast_takes_a_one_tuple_as_its_element() -> None:
    """The compiled broadcast of a general function over a Ref (a 1-tuple) and arrays
    passes the tuple's one element to each call (it passed the tuple: `length(mm)` was 1
    in compiled code, 3 on the host); a longer tuple beside arrays runs on the host."""
    v = np.array([1.0, 2.0, 3.0])
    out = _one_element_tuples([(v,), np.array([1.0, 2.0]), 2.0])
    assert out[0] is v and out[2] == 2.0
    with pytest.raises(OffloadError):
        _one_element_tuples([(1.0, 2.0), np.array([1.0, 2.0])])


def test_triangles_are_zero_where_they_drop_entries() -> None:
    """tril/triu set the dropped entries to zero (they were A .* mask: NaN for an Inf or
    NaN entry, -0.0 for a negative one), and the triangular wrappers' constructors give
    those triangles (Zyla has no LowerTriangular type; Zygote's backsolve tests build
    them), differentiable."""
    zz = z()
    lo, up = zz.eval("A = [1.0 -2.0 Inf; 3.0 4.0 -5.0; NaN 1.0 2.0]; (tril(A), triu(A))")
    lo, up = np.asarray(lo), np.asarray(up)
    for m, dropped in ((lo, np.triu_indices(3, 1)), (up, np.tril_indices(3, -1))):
        assert (m[dropped] == 0).all() and not np.signbit(m[dropped]).any()
    assert np.isnan(lo[2, 0]) and up[0, 2] == np.inf
    assert zz.eval("B = [2.0 -1.0; 3.0 5.0]; (LowerTriangular(B) == tril(B),"
                   " UpperTriangular(B) == triu(B), UnitLowerTriangular(B) == [1.0 0.0; 3.0 1.0],"
                   " UnitUpperTriangular(B) == [1.0 -1.0; 0.0 1.0])") == (True,) * 4
    g = np.asarray(zz.eval("gradient(B -> sum(LowerTriangular(B) .* [1.0 2.0; 3.0 4.0]),"
                           " [2.0 -1.0; 3.0 5.0])[1]"))
    np.testing.assert_allclose(g, [[1.0, 0.0], [3.0, 4.0]])
