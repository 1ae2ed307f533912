"""Vectors of Strings and SubStrings store what Julia stores: a value written into an
array whose element type is String or SubString{String} (`setindex!`, `.=`, `push!`,
`append!`, `insert!`, `pushfirst!`, `prepend!`, `splice!`, `fill!`, `copy!`, a typed
literal) is converted to it (lang.core.strings `TEXT_CONVERTS`), or is Julia's
MethodError; a concatenation of both is a Vector{AbstractString}; `empty(v)` keeps v's
element type."""

from __future__ import annotations

from tests.snippets import run_program

CONVERSIONS = r"""
using Test
sub = split("c d")[1]
w = ["x", "y"]; w[1] = sub
@test typeof(w[1]) == String && w == ["c", "y"]
v = String[]; push!(v, sub); @test typeof(v[1]) == String && v == ["c"]
u = String["q"]; append!(u, split("a b"))
@test u == ["q", "a", "b"] && all(x -> typeof(x) == String, u)
t = String["a", "b"]; insert!(t, 1, sub); pushfirst!(t, sub); prepend!(t, split("p q"))
splice!(t, 1, split("r s")); fill!(view(t, 5:6), sub); t .= t; t[1:2] = split("e f")
@test t == ["e", "f", "q", "c", "c", "c", "b"] && all(x -> typeof(x) == String, t)
copy!(t, split("g h")); @test t == ["g", "h"] && all(x -> typeof(x) == String, t)
l = String[sub, "z"]; @test all(x -> typeof(x) == String, l)
M = fill("a", 2, 2); M[1, 2] = sub; M[4] = sub; @test all(x -> typeof(x) == String, M)
s = split("a b c"); s[2] = "zz"; push!(s, "w")
@test typeof(s[2]) == SubString{String} && typeof(s[4]) == SubString{String}
@test s == ["a", "zz", "c", "w"] && parent(s[2]) == "zz"
@test_throws MethodError s[3] = 7
@test_throws MethodError w[1] = 'c'
@test_throws MethodError w[1] = ["x"]
@test_throws MethodError push!(v, 1)
@test_throws MethodError append!(u, [1])
@test_throws MethodError fill!(w, :a)
@test s == ["a", "zz", "c", "w"] && v == ["c"] && w == ["c", "y"]
@test typeof(vcat(String[], [sub])) == Vector{AbstractString}
@test typeof(hcat(["a"], [sub])) == Matrix{AbstractString}
@test typeof(vcat([1], [nothing])) == Vector{Union{Nothing, Int64}}
@test typeof(vcat([1], ["a"])) == Vector{Any}
e = empty(split("a b")); push!(e, "x")
@test typeof(e) == Vector{SubString{String}} && typeof(e[1]) == SubString{String}
@test_throws MethodError push!(e, 1)
"""


def test_text_vectors_convert_what_is_stored() -> None:
    """Every way of storing a value converts it to String / SubString{String} or raises
    Julia's MethodError; concatenations promote their element types."""
    run_program(CONVERSIONS)
