"""Vectors of Strings and SubStrings store what Julia stores: a value written into an
array whose element type is String or SubString{String} (`setindex!`, `.=`, `push!`,
`append!`, `insert!`, `pushfirst!`, `prepend!`, `splice!`, `fill!`, `copy!`, a typed
literal) is converted to it (lang.core.strings `TEXT_CONVERTS`), or is Julia's
MethodError; a concatenation of both is a Vector{AbstractString}; `empty(v)` keeps v's
element type."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door.api import Zyla
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


STRUCTS = r"""
using Test
struct Point; x::Float64; y::Float64; end
mutable struct MP; a::Int; end
abstract type Shape end
struct Sq <: Shape; a::Int; end
struct Ci <: Shape; r::Int; end
function stores(p)
    @test_throws MethodError push!(p, 3)
    @test_throws MethodError p[1] = 7
    @test_throws MethodError setindex!(p, 7, 1)
    @test_throws MethodError insert!(p, 1, 3)
    @test_throws MethodError pushfirst!(p, 3)
    @test_throws MethodError append!(p, [1, 2])
    @test_throws MethodError fill!(p, 3)
    @test_throws MethodError p .= 3
    @test_throws MethodError copyto!(p, [1])
    @test_throws MethodError p[1:1] = [3]
    @test_throws MethodError p[[1]] = [3]
    length(p)
end
p = [Point(1, 2)]; m = [MP(1)]
@test stores(p) == 1 && p == [Point(1, 2)] && stores(m) == 1 && m[1].a == 1
@test_throws MethodError p[1] = 7
@test_throws MethodError push!(p, 3)
@test_throws MethodError p .= 3
v = Vector{Point}(undef, 2); v[1] = Point(1, 2)
@test v[1] == Point(1, 2)
@test_throws MethodError v[2] = 1
s = Shape[Sq(1)]; push!(s, Ci(2)); s[1] = Ci(3)
@test s == [Ci(3), Ci(2)]
@test_throws MethodError push!(s, 3)
@test_throws MethodError s[1] = 3
@test_throws MethodError convert(Point, 3)
@test_throws MethodError convert(Shape, 3)
@test_throws MethodError convert(AbstractString, 3)
@test_throws MethodError convert(Union{Int, String}, 2.5)
@test convert(Union{Int, Nothing}, 2.0) === 2 && convert(Union{Missing, Float64}, 1) === 1.0
@test convert(Union{Int, Nothing}, nothing) === nothing && convert(Real, 3) === 3
function typed_local()
    local q::Point = 3
    q
end
@test_throws MethodError typed_local()
vv = [[1, 2], [3]]; vv[1] = [4.0]
@test vv == [[4], [3]] && typeof(vv[1]) == Vector{Int64}
@test_throws InexactError vv[1] = [1.5]
u = Union{Int, Nothing}[1, nothing]; u[1] = 2.0
@test u[1] === 2
pp = Pair{Int, Int}[1 => 2]; pp[1] = 3 => 4.0; push!(pp, 5.0 => 6)
@test pp == [3 => 4, 5 => 6] && pp[1].second === 4 && pp[2].first === 5
@test_throws InexactError pp[1] = 1 => 2.5
@test_throws MethodError pp[1] = 3
Base.convert(::Type{Point}, x::Int) = Point(x, x)
function grow(p)
    push!(p, 3); p[1] = 7; insert!(p, 1, 2); pushfirst!(p, 1); append!(p, [5, 6])
    p[5:6] = [8, 9]; copyto!(p, [4])
    p
end
P(xs...) = [Point(x, x) for x in xs]
@test grow([Point(0, 0)]) == P(4, 2, 7, 3, 8, 9)
q = [Point(0, 0)]
push!(q, 3); q[1] = 7; insert!(q, 1, 2); pushfirst!(q, 1); append!(q, [5, 6])
@test q == P(1, 2, 7, 3, 5, 6)
fill!(q, 3); @test q == P(3, 3, 3, 3, 3, 3)
q .= 4; q[1:2] .= 5; @test q == P(5, 5, 4, 4, 4, 4)
Base.convert(::Type{Point}, x::String) = 5
@test_throws TypeError push!(q, "a")
@test_throws TypeError q[1] = "a"
@test q == P(5, 5, 4, 4, 4, 4)
"""


def test_struct_vectors_convert_what_is_stored() -> None:
    """A Vector of a struct type (plain, mutable, abstract) stores only values of it, at
    top level and in a function: `convert(T, x)` of the program's methods, Julia's
    MethodError without one, its TypeError where convert gives no T."""
    run_program(STRUCTS)


UNDEFINED = r"""
using Test
v = Vector{String}(undef, 3); v[2] = "b"
@test !isassigned(v, 1) && isassigned(v, 2) && !isassigned(v, 4) && !isassigned(v, 0)
@test_throws UndefRefError v[1]
@test sprint(show, v) == "[#undef, \"b\", #undef]"
@test string(v) == "[#undef, \"b\", #undef]"
try
    v[3]
catch e
    @test e isa UndefRefError
    @test sprint(showerror, e) == "UndefRefError: access to undefined reference"
end
v[1] = "a"; v[3] = "c"
@test v == ["a", "b", "c"] && join(v, "-") == "a-b-c"
s = similar(["x", "y"])
@test typeof(s) == Vector{String} && !isassigned(s, 1) && !isassigned(s, 2)
@test_throws UndefRefError s[2]
@test isassigned(similar([1, 2]), 2)                  # numbers: no undefined slots
r = resize!(["q"], 3)
@test r[1] == "q" && !isassigned(r, 2)
@test_throws UndefRefError r[3]
M = Matrix{Any}(undef, 2, 2); M[1, 2] = 7
@test isassigned(M, 1, 2) && !isassigned(M, 2, 1) && M[1, 2] == 7
@test_throws UndefRefError M[2, 1]
@test_throws UndefRefError M[4]
n = Vector{Union{Nothing,String}}(nothing, 2)        # `nothing`s, not undefined slots
@test isassigned(n, 1) && n[1] === nothing
f(v, i) = v[i]
@test_throws UndefRefError f(Vector{String}(undef, 2), 2)
g(v) = (t = 0; for i in 1:length(v); t += length(v[i]); end; t)
w = Vector{String}(undef, 4); w[1] = "ab"; w[2] = "c"
@test_throws UndefRefError g(w)
w[3] = "d"; w[4] = "ef"
@test g(w) == 6
u = Vector{String}(undef, 2); u[2] = "b"
@test_throws UndefRefError (for x in u; print(x); end)
@test_throws UndefRefError u == copy(u)             # no values to compare
@test_throws UndefRefError u == u
@test isequal(u, u) && isassigned(copy(u), 2) && !isassigned(deepcopy(u), 1)
# a Union of plain-data types with Nothing or Missing: its slots start as that value
x = Vector{Union{Missing,Int}}(undef, 3)
@test all(ismissing, x) && isassigned(x, 1) && all(ismissing, similar(x))
@test all(isnothing, Vector{Union{Nothing,Float64}}(undef, 2))
@test ismissing(resize!(Union{Missing,Int}[1], 2)[2])
@test !isassigned(Vector{Union{Nothing,String}}(undef, 2), 1)   # String: a reference
"""


def test_undefined_slots_are_read_as_julia_reads_them() -> None:
    """An array slot never assigned (`Array{T}(undef, …)` of a non-number T, `similar` of
    such an array, the slots `resize!` adds) is Julia's `#undef`: `isassigned` is false,
    a read is UndefRefError (in a function, a loop, compiled or not), `show` writes
    `#undef`. (It was `nothing`, and `similar(["x"])` held the Int 0.)"""
    run_program(UNDEFINED)


@pytest.fixture(scope="module")
def undef_z() -> Zyla:
    z = Zyla()
    z.eval("using Test\nread_at(v, i) = v[i]\n")
    return z


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.none(), st.text("abc", max_size=3)), min_size=1, max_size=6),
       st.sampled_from(["String", "Any", "Vector{Float64}"]))
def test_undefined_slots_follow_the_writes(undef_z: Zyla, slots: list, eltype: str) -> None:
    """A vector made with `undef` and written at some indices: exactly those are
    assigned, reads elsewhere are UndefRefError, through a function and at top level."""
    vals = {"String": lambda s: f'"{s}"', "Any": lambda s: f'"{s}"',
            "Vector{Float64}": lambda s: f"[{float(len(s))}]"}[eltype]
    writes = "".join(f"v[{i + 1}] = {vals(s)}\n" for i, s in enumerate(slots) if s is not None)
    mask = ", ".join("true" if s is not None else "false" for s in slots)
    try:
        undef_z.eval(f"""v = Vector{{{eltype}}}(undef, {len(slots)})
{writes}for (i, m) in enumerate([{mask}])
    @test isassigned(v, i) == m
    if m
        @test read_at(v, i) == v[i]
    else
        @test_throws UndefRefError read_at(v, i)
        @test_throws UndefRefError v[i]
    end
end
""")
    except ZylaError as e:
        pytest.fail(str(e))
