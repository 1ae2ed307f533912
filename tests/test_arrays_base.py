"""Base's arrays and reductions as Julia defines them (issue 18): element types of object
arrays, dispatch on `::Vector`/`::typeof(+)`, reductions of empty collections, signed zeros,
three-valued `==`/any/all with missing, and the array helpers the conformance suite needed.
Each check runs on the host interpreter (the reference semantics); a few also compile."""

from __future__ import annotations

import numpy as np
import pytest
from snippets import run_program

from lang.door.api import Zyla

PROGRAM = r"""
using Test
struct G26; v; end
Base.isless(a::G26, b::G26) = isless(a.v, b.v)
f_vs(v::Vector{String}) = :strings
f_vs(v) = :other
two(a::AbstractVector, b::AbstractVector) = 2
tv(x::T, v::AbstractVector) where T = T
a ⊕ b = a + 2b
@testset "arrays base" begin
    # object arrays know their element type
    @test typeof(["a", "b"]) == Vector{String} && f_vs(["a", "b"]) === :strings
    @test typeof(String[]) == Vector{String} && typeof(Any["a"]) == Vector{Any}
    @test typeof(["a", 1]) == Vector{Any} && typeof([(1, 2), (3, 4)]) == Vector{Tuple{Int, Int}}
    @test typeof(["a", "b"][1:1]) == Vector{String} && typeof(["a" "b"; "c" "d"]) == Matrix{String}
    @test typeof(fill("x", 2)) == Vector{String} && typeof(map(string, [1, 2])) == Vector{String}
    @test eltype(["a"]) == String && eltype(Set([1])) == Int
    s = String[]; push!(s, "a")
    @test s == ["a"] && typeof(s) == Vector{String}
    @test_throws MethodError push!(s, 1)
    @test repr(Any["a"]) == "Any[\"a\"]"
    # each `::Vector` argument has its own element type
    @test two([1], [1.0]) == 2 && tv(1.0, [1]) == Float64
    # T[] with T a variable; typed comprehensions keep their shape
    T = Int8
    @test typeof(T[]) == Vector{Int8} && typeof(T[1, 2]) == Vector{Int8}
    @test Int[i + j for i in 1:2, j in 1:3] == [2 3 4; 3 4 5]
    @test typeof(Vector{Int}()) == Vector{Int} && typeof(Vector()) == Vector{Any}
    v = [1, 2, 3]
    @test Vector(1:3) isa Vector{Int} && Array(v) !== v && Array(v) == v
    # missing in ==, any, all; non-Bool elements are a TypeError
    @test ismissing([1, missing] == [1, missing]) && ([2, missing] == [1, missing]) === false
    @test any([missing, true]) === true && ismissing(any([missing, false]))
    @test all([missing, false]) === false
    @test_throws TypeError any([1, 1])
    @test_throws TypeError count([1])
    # reductions: dispatch on typeof(op), empty collections, small integers, signed zeros
    @test reduce(+, Int16[]) === Int16(0) && foldr(+, Int16[]) === Int16(0)
    @test reduce(+, Int8[100, 100]) === Int8(-56)
    @test reduce(+, 1) == 1 && mapreduce(-, +, [-10 -9 -3]) == 22
    @test mapreduce(*, +, [2, 3], [4, 5]) == 23
    @test mapreduce(abs2, +, Float64[]) === 0.0 && sum(abs, Int8[]) === 0
    @test_throws ArgumentError sum(sin, Int[])
    @test_throws ArgumentError foldl(&, Int[])
    @test_throws MethodError sum(abs, Any[])
    @test_throws MethodError zero(Any)
    @test sum(Int8(3)) === 3 && prod([true, true]) === true
    @test maximum([0.0, -0.0]) === 0.0 && minimum([0.0, -0.0]) === -0.0
    @test sum(Float64[]) === 0.0 && sum([-0.0]) === -0.0
    @test maximum(Int[]; init=-1) == -1 && extrema(abs2, [1, -3]) == (1, 9)
    @test maximum([G26(1), G26(3), G26(2)]) == G26(3)
    @test invoke(sum, Tuple{Any}, [1, 2]) == 3
    @test true ⊻ true == false && 1 ⊕ 2 == 5
    # broadcasting
    @test broadcast(-, [1 2]) == [-1 -2] && broadcast(+, [true]) isa Vector{Int}
    @test broadcast(+, 1.0, (0, -2.0), [1]) == [2.0, 0.0]
    @test broadcast(==, [1], AbstractArray) == [false]
    @test (1, 2, 3) .+ (1,) == (2, 3, 4) && (1,) .+ () == ()
    @test_throws DimensionMismatch (1, 2) .+ (1, 2, 3)
    @test map(x -> (x,), [3, 1]) == [(3,), (1,)]
    # array helpers
    @test first(2:1) == 2 && last(2:1) == 1
    @test reverse([1 2; 3 4]) == [4 3; 2 1] && reverse([2 3 1]; dims=2) == [1 3 2]
    @test reverse([1:10;], 3, 6) == [1, 2, 6, 5, 4, 3, 7, 8, 9, 10]
    @test_throws ArgumentError reverse([1, 2]; dims=2)
    @test isdiag([1 0; 0 4]) && !istriu([1 2; 3 4]) && istril([1 0; 3 4])
    @test get(reshape(1:24, 3, 8), -1:1, 0) == [0, 0, 1]
    x = [1, 2, 3]
    @test_throws ArgumentError x[1:2] = 0
    x[1:2] = [5, 6]
    @test x == [5, 6, 3]
    M = zeros(2, 2); M[[1 2], [1 2]] .= 1
    @test M == ones(2, 2)
end
"""


def test_arrays_base_program() -> None:
    run_program(PROGRAM)


def test_compiled_agrees() -> None:
    """The compiled tier: reverse over every dimension and along dims (with gradients),
    and a broadcast whose results are tuples (runs on the host: an array of tuples)."""
    z = Zyla()
    z.eval("""
    rev(A) = sum(reverse(A) .* [1.0 2.0; 3.0 4.0]) + sum(reverse(A; dims=2) .^ 2)
    tup(v) = map(x -> (x, 2x), v)
    """)
    assert z.eval("rev([1.0 2.0; 3.0 4.0])") == pytest.approx(20.0 + 30.0)
    g = z.eval("gradient(rev, [1.0 2.0; 3.0 4.0])[1]")
    # reverse(W) from the first term, 2A from the second
    np.testing.assert_allclose(np.asarray(g), np.array([[6.0, 7.0], [8.0, 9.0]]))
    assert z.eval("tup([1, 2]) == [(1, 2), (2, 4)]") is True
