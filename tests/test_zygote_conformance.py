"""Regressions from Zygote's conformance files (tests/conformance/zygote/): gradients
checked against central finite differences, Zygote's cotangent conventions, and clear
errors where a gradient is not computed (never `nothing`, NaN or a wrong number)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from snippets import session

from grammar.errors import ZylaError
from lang.door.api import Zyla

SRC = """
using Statistics
using Zygote
red_mean(a) = sum(sin.(mean(a; dims=[1, 2])))
red_max(a) = sum(sin.(maximum(a; dims=[1, 2])))
red_var(a) = sum(sin.(var(a; dims=[1, 2])))
red_std_mean(a) = sum(sin.(std(a; dims=1, mean=mean(a; dims=1))))
red_prod(a) = sum(sin.(prod(a; dims=(2, 3))))
red_cumsum(v) = sum(sin.(cumsum(v; dims=3)))
zip_map(v) = sum(map(*, v, [1.0, 2.0, 3.0]))
mixed_map(a, b) = sum(map(*, a, b))
"""

def z() -> Zyla:
    return session(__name__, SRC)


def fd(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        out.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def check_fd(name: str, x: np.ndarray) -> None:
    (g,) = z().gradient(name, x)
    np.testing.assert_allclose(g, fd(lambda w: z().call(name, w), x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["red_mean", "red_max", "red_var", "red_prod"])
def test_reductions_over_a_vector_or_tuple_of_dims(name: str) -> None:
    check_fd(name, np.random.default_rng(0).random((2, 3, 4)) + 0.5)


def test_var_and_std_take_a_given_mean() -> None:
    check_fd("red_std_mean", np.random.default_rng(1).random((2, 3)))
    assert z().eval("a = rand(3, 2); var(a; mean=mean(a)) ≈ var(a)")


def test_cumsum_along_a_dimension_beyond_ndims() -> None:
    v = np.random.default_rng(2).random(5)
    assert z().eval("v = [1.0, 2.0, 3.0]; cumsum(v; dims=3) == v")
    check_fd("red_cumsum", v)


def test_map_zips_collections_of_different_shapes() -> None:
    # Julia's map stops at the shortest collection, in column-major order; it never
    # broadcasts a vector against a row
    assert z().eval("map(*, [1, 2, 3], [1 2 3]) == [1, 4, 9]")
    assert z().eval("map(*, (1, 2, 3, 4, 5), [1, 2, 3]) == [1, 4, 9]")
    assert z().eval("map(+, [1 2; 3 4], [1, 10, 100, 1000], zeros(3, 1)) == [2.0, 13.0, 102.0]")
    with pytest.raises(ZylaError, match="DimensionMismatch"):
        z().eval("map(+, [1 2; 3 4], [1 2 3; 3 4 5])")
    np.testing.assert_allclose(z().gradient("zip_map", np.ones(5))[0], [1, 2, 3, 0, 0])
    ga, gb = z().gradient("mixed_map", np.arange(1.0, 4.0), np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(ga, [1, 3, 2])
    np.testing.assert_allclose(gb, [[1, 3], [2, 0]])
    # a tuple zipped with an array: its cotangent a tuple (was `nothing`)
    assert z().eval("gradient(t -> map(+, t, [1, 2, 3])[1], (4, 5, 6, 99)) == "
                    "((1.0, 0.0, 0.0, nothing),)")
    assert z().eval("gradient(t -> map(+, t, (1, 2, 3))[1], [4, 5, 6]) == ([1, 0, 0],)")


def test_fill_of_a_tuple_adds_its_cotangents() -> None:
    # (the elements' tuple cotangents were concatenated: (1.0, nothing, 1.0, nothing, ...))
    assert z().eval("gradient(t -> sum(x -> x[1], fill(t, 3)), (1.0, 2.0)) == ((3.0, nothing),)")
    assert z().eval("gradient(t -> sum(x -> x.a, fill(t, 3)), (a = 1.0, b = 2.0)) == "
                    "((a = 3.0, b = nothing),)")
    assert z().eval("gradient(t -> fill(t, 3)[1][1], (1, 2)) === ((1.0, nothing),)")


def test_prod_of_a_tuple_has_a_tuple_cotangent() -> None:
    assert z().eval("gradient(t -> prod(t), (1, 2, 3))[1] == (6, 3, 2)")
    assert z().eval("gradient(t -> prod(t), (1.0, 2.0, 3.0))[1] isa Tuple")


def test_a_real_cotangent_of_a_complex_result() -> None:
    # the real part of a complex cotangent: d/da real(conj(im) * 1) = 0
    assert z().eval("Zygote.pullback(a -> a[1] * im, [1.0, 2.0])[2](1.0)[1] == [0.0, 0.0]")
    assert z().eval("Zygote.pullback(a -> a[1] * im, [1.0, 2.0])[2](1.0im)[1] == [1.0, 0.0]")


def test_a_nothing_cotangent_of_getindex_is_zero_not_nan() -> None:
    # (a built-in rule whose cotangents are all zero gives one `nothing`, as Zygote's)
    assert z().eval("Zygote.pullback(getindex, [1.0, 2.0, 3.0], [1])[2]([nothing]) "
                    "=== nothing")
    assert z().eval("Zygote.pullback(getindex, [1.0, 2.0, 3.0], [1, 2])[2]([nothing, 2.0])[1]"
                    " == [0.0, 2.0, 0.0]")


def test_abs_of_a_complex_zero_has_gradient_zero() -> None:
    # ChainRules: d|z| = real(dΩ) * z / |z|, with 0 at z = 0 (it was NaN)
    assert z().eval("gradient(abs, 0.0 + 0.0im) == (0.0 + 0.0im,)")
    assert z().eval("gradient(x -> sum(abs.(x)), [0.0im, 3.0 + 4.0im])[1] ≈ [0.0, 0.6 + 0.8im]")
    assert z().eval("jvp(abs, 0.0 + 0.0im, 1.0 + 0.0im) == (0.0, 0.0)")
    assert z().eval("jvp(abs, 3.0 + 4.0im, 0.0 + 1.0im)[2] ≈ 0.8")
    assert z().eval("hessian(x -> abs(complex(x[1], x[2])), [3.0, 4.0]) ≈ "
                    "[0.128 -0.096; -0.096 0.072]")


def test_reductions_over_a_named_tuple_use_its_values() -> None:
    # sum/prod/maximum/collect of a NamedTuple returned the NamedTuple itself
    assert z().eval("nt = (a = 2.0, b = 3.0); (sum(nt), prod(nt), maximum(nt), minimum(nt)) "
                    "== (5.0, 6.0, 3.0, 2.0)")
    assert z().eval("collect((a = 2.0, b = 3.0)) == [2.0, 3.0]")
    assert z().eval("reduce(+, (a = 2.0, b = 3.0)) == 5.0")
    assert z().eval("map(v -> v^2, (a = 2.0, b = 3.0)) === (a = 4.0, b = 9.0)")
    assert z().eval("gradient(nt -> prod(nt), (a = 2.0, b = 3.0)) == ((a = 3.0, b = 2.0),)")
    assert z().eval("gradient(nt -> sum(map(v -> v^2, nt)), (a = 2.0, b = 3.0)) == "
                    "((a = 4.0, b = 6.0),)")
    assert z().eval("gradient(x -> sum(collect((a = x, b = 2x))), 1.0) == (3.0,)")


def test_the_named_tuple_constructor_passes_cotangents_by_name() -> None:
    assert z().eval("gradient(x -> NamedTuple{(:a, :b)}((x, 2x)).b, 1.0) == (2.0,)")
    assert z().eval("gradient(x -> NamedTuple{(:b, :a)}((a = x, b = 3x))[1], 1.0) == (3.0,)")


def test_complex_arrays_of_different_element_types_compare_by_value() -> None:
    # (`[0.0 + 4.0im] == [4im]` was false: a ComplexF64 beside a Complex{Int64} struct)
    assert z().eval("[0.0 + 4.0im, 0.0im] == [4im, 0]")
    assert z().eval("[4im, 0] == [0.0 + 4.0im, 0.0im]")
    assert z().eval("Complex(1, 2) == Complex(1.0, 2.0)")
    assert not z().eval("[0.0 + 4.0im] == [4im + 1]")
    assert z().eval("gradient(v -> sum(z -> z.im^2, v), [1 + 2im, 3])[1] == [4im, 0]")


def test_a_complex_power_differentiates_in_a_whole_exponent() -> None:
    # z^p with a whole p is computed by squaring: its p-derivative was `nothing`
    want = "real((-234 + 2im) * log(5 - 7im))"
    assert z().eval(f"gradient(p -> real((1 + 3im) * (5 + 7im)^p), 2)[1] ≈ {want}")
    assert z().eval(f"gradient(p -> real((1 + 3im) * (5 + 7im)^p), 2.0)[1] ≈ {want}")
    assert z().eval("gradient(z -> real(z^3), 2 + 1im)[1] ≈ 9 - 12im")
    g = z().eval("gradient(x -> real(x^(2 + 1im)), 1.5)[1]")
    f = lambda x: (x ** (2 + 1j)).real  # noqa: E731
    assert abs(g - (f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6) < 1e-6


def test_cat_with_val_dims_and_block_diagonal_dims() -> None:
    assert z().eval("cat([1, 2], [3, 4]; dims=Val(2)) == [1 3; 2 4]")
    assert z().eval("cat([1 2], [3 4]; dims=(1, 2)) == [1 2 0 0; 0 0 3 4]")
    assert z().eval("size(cat(rand(0, 5, 3), rand(2, 5, 3), rand(2, 5, 3); dims=(1, 2))) == "
                    "(4, 15, 3)")
    assert z().eval("using GradCheck; gradcheck((a, b) -> sum(sin.(cat(a, b; dims=(1, 2)))), "
                    "rand(2, 3), rand(1, 2))")
    assert z().eval("gradcheck((a, b) -> sum(sin.(cat(a, b; dims=Val(3)))), rand(2), rand(2))")


def test_a_dense_cotangent_of_diagonal_is_projected_not_sliced() -> None:
    # (a dense dM gave dM's first column, a compiled struct pullback iterating its rows)
    assert z().eval("using LinearAlgebra; dM = [1.0 2.0; 3.0 4.0]; "
                    "Zygote.pullback(Diagonal, [1.0, 2.0])[2](dM)[1] == [1.0, 4.0]")
    assert z().eval("Zygote.pullback(Diagonal, [1.0, 2.0])[2](Diagonal([5.0, 6.0]))[1] == "
                    "[5.0, 6.0]")
    # a struct without such a projection refuses a dense cotangent
    z().eval("struct WrapZ{T}\n x::T\nend")
    with pytest.raises(ZylaError, match="does not fit a struct"):
        z().eval("Zygote.pullback(WrapZ, [1.0, 2.0])[2]([1.0 2.0; 3.0 4.0])")


def test_symmetric_and_hermitian_cotangents_and_broadcasts() -> None:
    # a complex Hermitian's lower triangle is the conjugate (it was the transpose)
    assert z().eval("H = Hermitian([1.0 2im; 3 4]); H[2, 1] == -2im && "
                    "Matrix(H) == [1.0 2im; -2im 4]")
    # a dense cotangent goes to the stored triangle (it was refused, or garbage before)
    assert z().eval("Zygote.pullback(Symmetric, [1.0 2.0; 3.0 4.0], :U)[2]([1.0 2.0; 3.0 4.0])"
                    "[1] == [1.0 5.0; 0.0 4.0]")
    assert z().eval("Zygote.pullback(Symmetric, [1.0 2.0; 3.0 4.0], :L)[2]([1.0 2.0; 3.0 4.0])"
                    "[1] == [1.0 0.0; 5.0 4.0]")
    assert z().eval("Zygote.pullback(Symmetric, [1.0 2.0; 3.0 4.0])[2](Diagonal([1.0, 2.0]))[1]"
                    " isa Diagonal")
    assert z().eval("typeof(sin.(Diagonal([1.0, 2.0]))) <: Diagonal && "
                    "exp.(Diagonal([1.0, 2.0])) == [exp(1.0) 1.0; 1.0 exp(2.0)]")
    assert z().eval("A = [0.3 0.5 0.1; 0.2 0.9 0.4; 0.7 0.6 0.8]; "
                    "gradcheck(a -> sum(sin.(Symmetric(a, :L))), A) && "
                    "gradcheck((a, b) -> sum(abs2.(Matrix(Hermitian(complex.(a, b))) * "
                    "[1.0, 2.0, 3.0])), A, A')")


def test_sum_of_an_array_of_arrays_and_kron_of_three() -> None:
    # sum over a map of a closure capturing a vector: each element's cotangent is dz
    # (it was a numpy broadcasting error)
    z().eval("function mapclos(y)\n times_y = t -> t * y\n sum(map(times_y, 1:5))\nend")
    assert z().eval("gradient(y -> sum(mapclos(y)), [1.0, 2.0, 3.0]) == ([15.0, 15.0, 15.0],)")
    assert z().eval("gradient(v -> sum(sum([v, 2v]) .^ 2), [1.0, 2.0]) == ([18.0, 36.0],)")
    # a sum of tuples is a MethodError, as in Julia (numpy concatenated them)
    with pytest.raises(ZylaError, match="MethodError"):
        z().eval("sum([(1.0, 2.0), (3.0, 1.0)])")
    assert z().eval("using LinearAlgebra; "
                    "kron([1, 2], [1, 10], [1, 100]) == kron(kron([1, 2], [1, 10]), [1, 100])")
    assert z().eval("using GradCheck; gradcheck((a, b, c) -> sum(sin.(kron(a, b, c))), [0.1, 0.2], "
                    "[0.3, 0.4, 0.5], [0.6, 0.7])")


def test_broadcasting_an_operator_over_arrays_of_arrays() -> None:
    # each element's call differentiated by `*`'s own rule (the elementwise rule
    # multiplied two vectors: a MethodError)
    assert z().eval("gradient(v -> sum(sum, [v] .* [1, 2, 3]), [4, 5]) == ([6.0, 6.0],)")
    assert z().eval("gradient(v -> sum(sum, (v,) .* [1, 2, 3]), [4, 5]) == ([6.0, 6.0],)")
    assert z().eval("gradient(v -> sum(v .* [1, 2]), [4.0, 5.0]) == ([1.0, 2.0],)")


def test_a_closure_reassigning_a_captured_variable_is_differentiated() -> None:
    # reads and writes of the box are walked in reverse (an Int box got no gradient, a
    # Float one was refused); map runs a stateful function's pullbacks last first
    z().eval("function statemap(v)\n acc = 0\n add(t) = (acc += t)\n sum(map(add, v))\nend")
    assert z().eval("gradient(statemap, 1:4) == ([4, 3, 2, 1],)")
    z().eval("function twice_box(x)\n s = x\n g = () -> (s *= 2)\n g()\n s * x\nend")
    assert z().eval("gradient(twice_box, 1.5) == (6.0,)")
    assert z().eval("y, b = Zygote.pullback(twice_box, 1.5); b(1.0) == (6.0,) && "
                    "b(2.0) == (12.0,)")
    z().eval("function loop_box(x)\n s = x\n for i in 1:3\n  g = () -> (s = s * x)\n  g()\n"
             " end\n s\nend")
    check_fd("loop_box", np.array(1.3))
    assert z().eval("gradient(v -> (acc = 0.0; sum([(acc += t; acc * t) for t in v]); 0.0), "
                    "[1.0, 2.0]) == (nothing,)")
    # a write that reverse mode does not see (a built-in ran the closure) is refused
    z().eval("fe_box(x) = (s = x; foreach(v -> (s += v * x), [1.0, 2.0]); s)")
    with pytest.raises(ZylaError, match="reassigns"):
        z().eval("gradient(fe_box, 2.0)")


def test_types_with_an_anonymous_bound_compare_equal() -> None:
    # (each `<:Real` was its own type variable: `Complex{<:Real} == Complex{<:Real}` false)
    assert z().eval("Complex{<:Real} == Complex{<:Real} && Vector{<:Real} == Vector{<:Real}")
    assert not z().eval("Vector{<:Real} == Vector{<:Integer} || Vector{<:Real} == Vector{Real}")
    assert z().eval("tyfun() = Complex{<:Real}; Zygote.pullback(tyfun)[1] == Complex{<:Real}")


def test_an_integer_argument_keeps_its_tangent_in_forward_mode() -> None:
    # (jvp dropped an integer's tangent: jvp(Float64, 1, 1.7) gave 0.0, hessian(x -> x^3, 2)
    # gave 0.0; ChainRules' frules and Zygote propagate it)
    assert z().eval("jvp(Float64, 1, 1.7) == (1.0, 1.7) && jvp(x -> 2x, 1, 1.5) == (2, 3.0)")
    assert z().eval("jvp(sin, 1, 1.0)[2] ≈ cos(1.0) && hessian(x -> x^3, 2) == 12")
    assert z().eval("jvp(x -> sum(x .^ 2), [1, 2], [1.0, 0.5]) == (5, 4.0)")


def test_a_complex_tangent_reaches_its_fields_in_forward_mode() -> None:
    # (a Complex tangent's field was dropped: jvp(z -> z.im, 2.0 + 0im, 0.3 + 0.4im) gave 0.0)
    assert z().eval("jvp(z -> z.im, complex(2.0), 0.3 + 0.4im) == (0.0, 0.4)")
    assert z().eval("jvp(angle, complex(2.0), 0.3 + 0.4im)[2] ≈ 0.2")
    # a real primal with a complex tangent: the complex plane's derivative
    assert z().eval("jvp(angle, 2.0, 0.3 + 0.4im)[2] ≈ 0.2 && jvp(angle, 2.0, 0.3)[2] == 0")


def test_a_complex_cotangent_adds_to_its_fields_cotangent() -> None:
    # (a Complex from abs's rule beside `z.re`'s (re = 1.0, im = nothing) was a MethodError)
    assert z().eval("w = -1.1 + 0.7im; gradient(z -> z.re + abs(z), w)[1] ≈ 1 + w / abs(w)")
    assert z().eval("using GradCheck; gradcheck(p -> real(sign(complex(p[1], p[2]))) + "
                    "2imag(sign(complex(p[1], p[2]))), [-1.1, 0.7])")


def test_chainrules_api_rules_of_functions_without_a_derivative() -> None:
    assert z().eval("using ChainRulesCore; last(rrule(zero, 0.1)) === last(rrule(one, 0.2f0))")
    assert z().eval("rrule(angle, 0.5)[2](0.2)[2] === ZeroTangent() && "
                    "frule((ZeroTangent(), 0.3), angle, -1.2)[2] === ZeroTangent()")
    assert z().eval("rrule(typejoin, Array{Float32, 4}, Array{Float32, 3}) !== nothing && "
                    "rrule(Base.depwarn, \"message\", :f) !== nothing")
    z().eval("mutable struct MDemoZ\n x::Float64\nend")
    assert z().eval("m = MDemoZ(3.5); setfield!(m, 1, 5.0) == 5.0 && m.x == 5.0 && "
                    "gradient(v -> setfield!(MDemoZ(1.0), :x, v), 2.0) == (1.0,)")


def test_user_rrules_take_complex_cotangents_and_give_tangent_structs() -> None:
    # a user rrule's pullback gets a complex result's cotangent as a Complex (it got the
    # (re, im) NamedTuple: `sum` of those was a MethodError); `Tangent{P}(; x = ...)` is the
    # struct's cotangent; two Complex cotangents add; a real argument's gradient is real
    z().eval("""
struct MultZ{T}
    x::T
end
(m::MultZ)(y) = m.x * y
ChainRulesCore.rrule(m::MultZ, y) = (m(y), dΩ -> (Tangent{typeof(m)}(; x = dΩ * y'), m.x' * dΩ))
twovecz(x) = [x, x]
ChainRulesCore.rrule(::typeof(twovecz), x) = (twovecz(x), ȳ -> (NoTangent(), sum(ȳ)))
""")
    assert z().eval("gradient(x -> real(sum(twovecz(x * im))), 2.0) == (0.0,)")
    assert z().eval("gradient(x -> imag(sum(twovecz(x * im))), 2.0) == (2.0,)")
    assert z().eval("m = MultZ(0.3 + im); gradient((m, t) -> real(m(t[1])) + imag(m(t[2])), "
                    "m, (2.0, 3.0)) == ((x = 2.0 + 3.0im,), (0.3, 1.0))")


def test_rrule_and_frule_of_a_function_without_a_rule_are_nothing() -> None:
    # ChainRulesCore's fallbacks (they were MethodErrors); a built-in's own rule is found
    z().eval("struct NoRulesZ end")
    assert z().eval("using ChainRulesCore; frule(NoRulesZ, 1.0) === nothing && "
                    "rrule(NoRulesZ, 1.0) === nothing && rrule(x -> x, 1.0) === nothing")
    assert z().eval("y, pb = rrule(sin, 1.0); y == sin(1.0) && pb(2.0)[2] == 2cos(1.0)")
    assert z().eval("frule((NoTangent(), 2.0), sin, 1.0) == (sin(1.0), 2cos(1.0))")


def test_rational_division_is_differentiated_exactly() -> None:
    # (a Rational result was refused, and `//` had no rule)
    assert z().eval("gradient(//, 2, 3) === (1 // 3, -2 // 9)")
    assert z().eval("gradient((x, y) -> (x // y) * 2, 1 // 2, 3) == (2 // 3, -1 // 9)")
    assert z().eval("gradient(x -> float(x // 3), 2) == (1 / 3,)")


def test_pinv_and_its_gradient_match_finite_differences() -> None:
    # (pinv was undefined) Julia's cut-off drops a rank-deficient matrix's zero direction
    assert z().eval("using LinearAlgebra; pinv([1.0 2.0; 2.0 4.0]) ≈ [0.04 0.08; 0.08 0.16] "
                    "&& pinv(0.0) == 0.0 && gradient(pinv, 2.0) == (-0.25,)")
    # a wide and a tall matrix, against finite differences of the primal
    z().eval("pinv_w(A) = sum([0.5 -1.0; 2.0 0.3; -0.7 1.1] .* pinv(A))\n"
             "pinv_t(A) = sum([0.5 -1.0 0.2; 2.0 0.3 -0.4] .* pinv(A))")
    check_fd("pinv_w", np.array([[1.0, 0.3, -0.2], [0.4, 2.0, 0.1]]))
    check_fd("pinv_t", np.array([[1.0, 0.3], [-0.2, 0.4], [2.0, 0.1]]))


def test_lyap_solves_the_lyapunov_equation_and_matches_finite_differences() -> None:
    # (lyap was undefined) the X with A*X + X*A' + C = 0; its gradient against the primal's
    assert z().eval("using LinearAlgebra; lyA = [2.0 0.3 -0.1; 0.5 1.5 0.2; -0.3 0.1 3.0]; "
                    "lyC = [1.0 -0.4 0.2; 0.3 2.0 -1.0; 0.0 0.7 0.5]; X = lyap(lyA, lyC); "
                    "maximum(abs.(lyA * X + X * lyA' + lyC)) < 1e-12 && "
                    "lyap(3.1, 4.6) == -4.6 / 6.2")
    z().eval("lyap_a(A) = sum([1.0 2.0 -1.0; 0.5 0.0 3.0; -2.0 1.0 0.4] .* lyap(A, lyC))\n"
             "lyap_c(C) = sum([1.0 2.0 -1.0; 0.5 0.0 3.0; -2.0 1.0 0.4] .* lyap(lyA, C))")
    check_fd("lyap_a", np.array([[2.0, 0.3, -0.1], [0.5, 1.5, 0.2], [-0.3, 0.1, 3.0]]))
    check_fd("lyap_c", np.array([[1.0, -0.4, 0.2], [0.3, 2.0, -1.0], [0.0, 0.7, 0.5]]))


def test_hvcat_of_blocks_and_its_gradient() -> None:
    # (hvcat was undefined) rows given as a tuple or as one block-column count
    assert z().eval("hvcat((2, 1), [1 2], 3, [4 5 6]) == [1 2 3; 4 5 6] && "
                    "hvcat(3, 1, 2, 3, 4, 5, 6) == [1 2 3; 4 5 6]")
    assert z().eval("gradient(v -> hvcat((2, 2), v...)[2, 1], [1, 2, 3, 4])[1] == [0, 0, 1, 0]")
    assert z().eval("gradient(s -> hvcat(2, 1.0, 2.0, s, 3s)[2, 2], 4.0) == (3.0,)")
    with pytest.raises(ZylaError, match="ArgumentError"):
        z().eval("hvcat(2, 1, 2, 3)")


def test_time_macros_keep_the_gradient_of_their_value() -> None:
    # `@time ex` returned the report's value, which has no derivative: its gradient was
    # `nothing`, silently (6.0); `@timed` was undefined
    assert z().eval("gradient(x -> (@time x^2), 3.0) == (6.0,)")
    assert z().eval("gradient(x -> first(@timed x), 0) == (1,)")
    assert z().eval("gradient(x -> (@timed x^2).value, 3.0) == (6.0,)")
    assert z().eval("t = @timed sum(1:10); t.value == 55 && t.time isa Float64 && "
                    "keys(t) == (:value, :time)")


def test_base_corelogging_names_the_logging_functions() -> None:
    # (Base.CoreLogging was undefined) a log call inside a gradient keeps the gradient
    assert z().eval("""Base.CoreLogging.with_logger(Base.CoreLogging.NullLogger()) do
        gradient(x -> x > 0 ? 2x : (@warn "neg"; x), -1.0f0) == (1.0f0,) &&
            gradient(x -> (@info "msg" foo = x; x^2), 2.0f0) == (4.0f0,)
    end""")


def test_real_conj_imag_of_arrays_take_complex_cotangents() -> None:
    # a real array's gradient is real (ProjectTo); a complex cotangent of `real.(a)` raised
    # Python text, and `pullback` of a broadcast made in compiled code returned a pullback
    # the host could not call; `imag` of a real array has a zero gradient, not `nothing`
    assert z().eval("""A = [1.0 2.0; 3.0 4.0]; dy = [1.0+2.0im 3.0-1.0im; 0.5im 2.0+0.0im]
        all(fn -> begin
            y, back = Zygote.pullback(fn, A); y2, back2 = Zygote.pullback(a -> fn.(a), A)
            y == y2 && back(dy)[1] == back2(dy)[1] && back(dy)[1] isa Matrix{Float64}
        end, (real, conj, imag)) && Zygote.pullback(real, A)[2](dy)[1] == real.(dy) &&
        Zygote.pullback(imag, A)[2](dy)[1] == zeros(2, 2)""")


def test_pullback_conventions_of_map_and_built_in_rules() -> None:
    # Zygote's: `nothing` for a built-in rule given a zero cotangent, `()` for an empty
    # tuple mapped over, arrays of `nothing` for an array of `nothing` cotangents
    assert z().eval("Zygote.pullback(sin, 1.0)[2](nothing) === nothing")
    assert z().eval("Zygote.pullback(getindex, [[1.0], [2.0]], [1])[2]([nothing]) === nothing")
    assert z().eval("Zygote.pullback(map, -, ())[2](()) === (nothing, ()) && "
                    "Zygote.pullback(map, +, (), ())[2](()) === (nothing, (), ())")
    assert z().eval("out, pb = Zygote.pullback(map, +, [1.0, 2.0], [3.0, 4.0]); "
                    "g = pb(Vector{Nothing}(nothing, 2)); g[2] isa Vector{Nothing} && "
                    "g[3] == [nothing, nothing] && pb([1.0, 2.0]) == (nothing, [1.0, 2.0], "
                    "[1.0, 2.0])")


def test_arrays_filled_with_nothing() -> None:
    assert z().eval("v = Vector{Nothing}(nothing, 3); v isa Vector{Nothing} && "
                    "v == [nothing, nothing, nothing] && "
                    "size(Matrix{Union{Nothing, Int}}(nothing, 2, 3)) == (2, 3)")
    with pytest.raises(ZylaError, match="MethodError"):
        z().eval("Vector{Int}(nothing, 2)")
    # an array of objects returned by a compiled call kept no element type (Vector{Any})
    assert z().eval("fill_nothing_like(x) = fill(nothing, length(x)); "
                    "fill_nothing_like([1.0, 2.0]) isa Vector{Nothing}")


def test_randexp_and_the_global_rng_handles() -> None:
    # (randexp, Random.GLOBAL_RNG and Random.default_rng() were undefined)
    assert z().eval("""using Random
        Random.seed!(3); a = rand(Random.GLOBAL_RNG, 3); Random.seed!(3); b = rand(3)
        Random.seed!(3); c = randexp(Random.default_rng(), Float32, 2, 2)
        a == b && c isa Matrix{Float32} && all(c .>= 0) && randexp() >= 0 &&
            gradient(s -> sum(randexp(Float32, (1, 1))) + sum(randn(Random.GLOBAL_RNG, 2)),
                     1) == (nothing,)""")


def test_fieldnames_and_propertynames_of_named_tuples_and_structs() -> None:
    # fieldnames of a NamedTuple type was `()`; propertynames of a struct was undefined
    z().eval("struct PN537; a; b; end")
    assert z().eval("fieldnames(typeof((x = 1, y = 2))) == (:x, :y) && "
                    "fieldnames(Tuple{Int, Float64}) == (1, 2) && "
                    "propertynames((x = 1, y = 2)) == (:x, :y) && "
                    "propertynames(PN537(1, 2)) == (:a, :b)")


def test_nograd_functions_and_local_functions_defined_later() -> None:
    # `Zygote.@nograd f(x) = ...` was undefined; an inner function calling one defined
    # after it in the same body was an UndefVarError (Julia's locals are shared)
    assert z().eval("""function ng_outer(x)
            f(y) = g(y) * 2
            Zygote.@nograd g(y) = y^2
            f(x) + x
        end
        ng_outer(3.0) == 21.0 && gradient(ng_outer, 3.0) == (1.0,)""")


def test_gradcheck_is_not_fooled_by_a_kink_within_its_step() -> None:
    # Zygote #796: a loop that stops when |a - b| <= 1e-6 is the identity for |z| <= 1e-6;
    # a finite difference of step 1e-6 straddled the change (0.75, AD's 1.0 is right);
    # a wrong gradient still fails
    z().eval("""using GradCheck
        function mean_it796(z::Float64)
            a = 1.0
            b = 1.0 + z
            while abs(a - b) > 1e-6
                b, a = (a + b) / 2, b
            end
            return b
        end""")
    assert z().eval("gradcheck(mean_it796 ∘ first, [0.0]) && gradcheck(mean_it796 ∘ first, [2.0])")
    assert z().eval("""wrong796(x) = x^2
        ChainRulesCore.rrule(::typeof(wrong796), x) = (x^2, dy -> (NoTangent(), 3x * dy))
        !gradcheck(x -> wrong796(x[1]), [0.5])""")


def test_inverse_of_a_complex_matrix_and_its_pullback() -> None:
    # inv of a matrix of complex numbers raised Python text; its pullback is -Y' dY Y'
    z().eval("cB = [2.0+1im 0.5; 0.3im 3.0-1im]; cdY = [1.0+2im 0.5im; 0.2 1.0]")
    b = np.array([[2 + 1j, 0.5], [0.3j, 3 - 1j]])
    dy = np.array([[1 + 2j, 0.5j], [0.2, 1.0]])
    bi = np.linalg.inv(b)
    want = -(bi.conj().T @ dy @ bi.conj().T)
    for name, w in (("inv(cB)", bi), ("Zygote.pullback(inv, cB)[2](cdY)[1]", want)):
        got = z().eval(f"g = {name}; [real.(g) imag.(g)]")
        np.testing.assert_allclose(got[:, :2] + 1j * got[:, 2:], w, rtol=1e-12)
    with pytest.raises(ZylaError, match="DimensionMismatch"):
        z().eval("inv([1.0+1im 2.0 3.0; 4.0 5.0im 6.0])")


def test_nested_gradient_through_a_callable_struct_with_varargs() -> None:
    # the struct was bound as a capture of its method's forward function, so a vararg
    # method got it as a spare argument: `MethodError ... #fwd with 2 arguments`; `f ∘ g`
    # (a callable ComposedFunction) under hessian_reverse met the same
    zz = z()
    zz.eval("struct VarW; f; end; (w::VarW)(xs...) = w.f(xs...)")
    assert zz.eval("gradient(x -> gradient(VarW(y -> sum(y.^3)), x)[1][1], [1.0, 2.0]) == "
                   "([6.0, 0.0],)")
    assert zz.eval("hessian_reverse(sum ∘ (x -> x .^ 3), [1.0, 2.0]) == [6.0 0.0; 0.0 12.0]")
