"""Regressions for Base math and reductions (the conformance files
tests/conformance/julia/{math,reduce,functional}.jl).

Expected values follow Julia: a sum of negative zeros only is `-0.0` (IEEE's additive
identity is -0.0), compiled or not; the product of characters is their string
(`prod(Char[]) == ""`); an array of element type `Union{}` has nothing to sum
(`ArgumentError`).
"""

from __future__ import annotations

import pytest

from grammar.errors import ZylaError
from lang.door.wiring import Runtime


@pytest.fixture(scope="module")
def rt() -> Runtime:
    return Runtime()


@pytest.mark.parametrize("mode", ["never", "always"])
def test_sum_of_negative_zeros_keeps_the_sign(rt: Runtime, mode: str) -> None:
    was, rt.compile_mode = rt.compile_mode, mode
    try:
        got = rt.run_source(
            "sumzeros(x) = sum(x)\n"
            "repr((sumzeros([-0.0, -0.0, -0.0]), sumzeros([-0.0, 0.0]), sumzeros(Float64[]),"
            " sumzeros(Float32[-0.0, -0.0]), sumzeros([1.5, -0.0, 2.0])))", "t.jl")
    finally:
        rt.compile_mode = was
    assert got == "(-0.0, 0.0, 0.0, -0.0f0, 3.5)"


def test_prod_of_chars_is_a_string(rt: Runtime) -> None:
    got = rt.run_source("repr((prod(Char[]), prod(Char['a']), prod(Char['a', 'b']),"
                        " reduce(*, Char[])))", "t.jl")
    assert got == '("", "a", "ab", "")'


@pytest.mark.parametrize("src", ["sum(Union{}[])", "prod(Union{}[])"])
def test_reducing_union_bottom_arrays_throws(rt: Runtime, src: str) -> None:
    with pytest.raises(ZylaError) as e:
        rt.run_source(src, "t.jl")
    assert e.value.kind == "ArgumentError"


def test_collect_joins_nothing_and_missing_into_a_union(rt: Runtime) -> None:
    got = rt.run_source(
        'mixed = Union{String, Nothing}["a", nothing]\n'
        'h(s::Nothing) = s\nh(s::String) = s == "a"\n'
        "(typeof(map(identity, mixed)) == Vector{Union{Nothing, String}},"
        " typeof(collect(h(s) for s in mixed)) == Vector{Union{Nothing, Bool}},"
        " typeof([x for x in Any[1.5, missing]]) == Vector{Union{Missing, Float64}},"
        " typeof(map(identity, Any[1, \"a\"])) == Vector{Any})", "t.jl")
    assert got == (True, True, True, True)


def test_pair_arrow_as_a_function_value(rt: Runtime) -> None:
    got = rt.run_source("pairs_of(x) = collect(Base.Generator(=>, x, x))\n"
                        "d = Dict(1 =>\n 2)\n"
                        "repr((pairs_of((1, 2)), map(=>, [1], [3]), d[1]))", "t.jl")
    assert got == "([1 => 1, 2 => 2], [1 => 3], 2)"


def test_generic_methods_for_a_programs_number_types(rt: Runtime) -> None:
    got = rt.run_source(
        "struct Fur <: Number\n val::Float64\nend\n"
        "Base.isless(a::Fur, b::Fur) = isless(a.val, b.val)\n"
        "Base.abs(a::Fur) = Fur(abs(a.val))\nBase.float(a::Fur) = a\n"
        "Base.isinf(a::Fur) = isinf(a.val)\nBase.iszero(a::Fur) = iszero(a.val)\n"
        "Base.:*(a::Fur, b::Fur) = Fur(a.val * b.val)\n"
        "Base.:+(a::Fur, b::Fur) = Fur(a.val + b.val)\n"
        "Base.:/(a::Fur, b::Fur) = Fur(a.val / b.val)\nBase.sqrt(a::Fur) = Fur(sqrt(a.val))\n"
        "struct Wrap <: Real\n x::Float64\nend\nBase.isfinite(a::Wrap) = isfinite(a.x)\n"
        "(max(Fur(1), Fur(3)).val, min(Fur(2), Fur(1), Fur(5)).val, hypot(Fur(3), Fur(-4)).val,"
        " hypot(Fur(0), Fur(0)).val, isnan(Wrap(1.0)), isinf(Wrap(Inf)), isinf(Wrap(2.0)))",
        "t.jl")
    assert got == (3.0, 1.0, 5.0, 0.0, False, True, False)


def test_float_fallbacks_and_complex_cosc(rt: Runtime) -> None:
    got = rt.run_source(
        "struct F22{T<:AbstractFloat} <: AbstractFloat\n x::T\nend\n"
        "Base.:^(a::Number, b::F22) = a^(b.x)\n"
        "(exp2(F22(1.5)) === 2^1.5, exp10(F22(0.5)) === 10^0.5, float(F22(1.0)) === F22(1.0),"
        " exp2(0.5f0) === sqrt(2f0), cosc(complex(1, 0)) == -1, cosc(0.5 + 0im) ≈ cosc(0.5))",
        "t.jl")
    assert got == (True, True, True, True, True, True)


def test_broadcast_over_array_structs(rt: Runtime) -> None:
    got = rt.run_source(
        "using LinearAlgebra\n"
        "M = [0.1 0.2; 0.3 0.4]\nSM = Symmetric(M)\n"
        "struct TwiceV <: AbstractVector{Float64}\n n::Int\nend\n"
        "Base.size(v::TwiceV) = (v.n,)\nBase.getindex(v::TwiceV, i::Int) = 2.0 * i\n"
        "(atanh.(SM) ≈ atanh.([0.1 0.2; 0.2 0.4]), typeof(SM .+ 1) == Matrix{Float64},"
        " sqrt.(TwiceV(2)) == [sqrt(2.0), 2.0])", "t.jl")
    assert got == (True, True, True)


def test_atan2_folds_the_quadrant_as_base_math(rt: Runtime) -> None:
    got = rt.run_source(
        "pilo(::Type{Float32}) = -8.7422777f-8\npilo(::Type{Float64}) = 1.2246467991473532e-16\n"
        "ok(T) = (atan(T(1235.2341234), -T(2.5)) === T(pi) - (atan(abs(T(1235.2341234) / "
        "-T(2.5))) - pilo(T)), atand(one(T), one(T)) === T(45), atan(T(0), -one(T)) === T(pi),"
        " atan(-T(0), T(1)) === -T(0), atan(T(1), T(0)) === T(pi) / 2,"
        " atan.(T[3, -3], T[-4, -4]) == [atan(T(3), T(-4)), atan(T(-3), T(-4))])\n"
        "(ok(Float32), ok(Float64))", "t.jl")
    assert got == ((True,) * 6, (True,) * 6)


def test_for_outer_sets_the_enclosing_variable(rt: Runtime) -> None:
    got = rt.run_source(
        "function outer_loops()\n i = 0\n k = 0\n"
        " for outer i = 1:2, j = 1:0\n end\n"
        " for outer k in 1:5\n  k > 2 && break\n end\n"
        " s = 0\n for outer in [1, 2]\n  s += outer\n end\n"
        " (i, k, s)\nend\nouter_loops()", "t.jl")
    assert got == (2, 3, 3)


def test_complex_log_of_subnormal_parts(rt: Runtime) -> None:
    re, im = rt.run_source("z = log(Complex(5e-324, 5e-324))\n(real(z), imag(z))", "t.jl")
    assert abs(re - (-744.0934983311014)) < 1e-12 * 744 and abs(im - 0.7853981633974483) < 1e-15
