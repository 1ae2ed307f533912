"""Views and broadcasting as Julia defines them (conformance arrayops.jl, broadcast.jl):
writes through a view reach its parent (and a view that cannot share memory refuses
writes), broadcast! calls f once per destination element, broadcasting refuses Dicts and
NamedTuples and collects Sets, and deleteat!/findmax check their arguments. Each check runs
on the host interpreter, the reference semantics."""

from __future__ import annotations

import pytest
from snippets import run_program

from grammar.errors import ZylaError
from lang.door.api import Zyla

PROGRAM = r"""
using Test
function writeview!(A)
    v = view(A, 1:2)
    v[2] = 100
    A
end
@testset "views write through" begin
    F = fill(1.0, 3, 3)
    fill!(view(F, 2, 1:3), 2)
    fill!(view(F, 1:2, 3), 3)
    @test F == [1 1 3; 2 2 3; 1 1 1]
    A = [1, 2, 3, 4]
    v = view(A, 2:3)
    v[1] = 20
    A[3] = 30
    @test A == [1, 20, 30, 4] && v == [20, 30]
    @views w = A[1:2]
    w .= 0
    @test A == [0, 0, 30, 4]
    x = @view A[end]
    x[] = 9
    @test A == [0, 0, 30, 9] && x isa Array{Int, 0}
    @test (@views A[2]) === 0
    M = reshape(collect(1:12), 3, 4)
    c = view(M, :, 2)
    c .*= 10
    @test M[:, 2] == [40, 50, 60]
    S = view(M, 1:2, 2:3)          # strided: linear writes go by position
    S[3] = -1
    S[1:2] = [-5, -6]
    @test M[1:2, 2:3] == [-5 -1; -6 8]
    T = M'
    T[2] = 77
    @test M[1, 2] == 77
    @test writeview!([1, 2, 3]) == [1, 100, 3] && writeview!([1, 2, 3]) == [1, 100, 3]
    @test view(M, 2:3) == [2, 3] && view(M, 1, :) == M[1, :]
    @test sum(view(Float64[1 2; 3 4], 1:2, 1:1)) == 4.0
    e = view(Any[], 2:2:0)
    e[:] = Any[]
    @test isempty(e)
    # a view by index arrays is a copy: writing into it is an error, never a lost write
    B = [1, 2, 3, 4]
    V = view(B, [1, 2])
    @test V == [1, 2]
    @test_throws ErrorException V[1] = 5
    @test_throws ErrorException V .= 3
    @test_throws ErrorException fill!(V, 3)
    @test B == [1, 2, 3, 4]
    # a reshaped range is not stored: writes are refused, as Julia's
    rr = reshape(1:20, 5, 4)
    for idx in ((3,), (2, 2))
        msg = try; rr[idx...] = 7; "no error"; catch err; err.msg; end
        @test msg == "indexed assignment fails for a reshaped range; consider calling collect"
    end
    @test_throws ErrorException vec(rr)[1] = 0
    @test_throws ErrorException fill!(rr, 0)
    c = collect(rr); c[1] = 100
    @test c[1] == 100 && rr[1] == 1 && sum(rr) == 210
end
@testset "broadcast! calls f per element" begin
    @test let n = 1; out = broadcast!(() -> (n += 1), zeros(2)); out == [2.0, 3.0]; end
    @test let n = 1; out = broadcast!(v -> (n += v), zeros(2), 1); out == [2.0, 3.0]; end
    gen = MersenneTwister(1234)
    buf = zeros(2)
    broadcast!(rand, buf, (gen,))
    gen = MersenneTwister(1234)
    @test buf == [rand(gen), rand(gen)]
    @test broadcast!(+, zeros(2, 3), [1, 2], [10 20 30]) == [11 21 31; 12 22 32]
    @test broadcast!(+, zeros(Int, 3), 1:3, Ref(5)) == [6, 7, 8]
    @test_throws DimensionMismatch broadcast!(+, zeros(2), [1, 2, 3])
end
@testset "broadcast containers" begin
    @test_throws ArgumentError broadcast(identity, Dict(1 => 2))
    @test_throws ArgumentError broadcast(identity, (a=1, b=2))
    @test_throws ArgumentError sin.(Dict(1 => 2))
    @test_throws MethodError broadcast(identity, Base)
    @test Set(exp.(Set([1, 2, 3]))) == Set(exp.([1, 2, 3]))
    @test length.(Ref(Dict(1 => 2))) == 1
    @test isa(abs.([]), Vector{Any}) && isa(abs.(Int[]), Vector{Int})
end
@testset "argument checks" begin
    v = [1:10;]
    @test_throws BoundsError deleteat!(v, Bool[])
    @test deleteat!(copy(v), [true; falses(9)]) == 2:10
    @test_throws MethodError findmax(Set(["abc"]))
    @test_throws MethodError findmin(Set([1]))
    @test findmax([3, 1, 5]) == (5, 3)
    @test_throws MethodError push!([1 2 3 4], 5)
end
@testset "findall" begin
    @test findall(in(NaN), [1.0, NaN, 2.0]) == [2] && findall(in(NaN), [1.0, 2.0, NaN]) == [3]
    zs = [1 + 1im, 1 - 1im]
    @test findall(in(1 + 1im), zs) == [1] && findall(in(zs), zs) == [1, 2]
    @test findall(in([1, 2]), 2) == [1] && findall(in([1, 2]), 3) == Int[]
    @test findall(in([2, 3]), [1 2; 3 4]) == [CartesianIndex(2, 1), CartesianIndex(1, 2)]
    @test findall(==(2), [1, 2, 2]) == [2, 3] && findall(in(Set([2])), [2, 1]) == [1]
    @test sort(findall(Dict(1 => false, 2 => true, 3 => true))) == [2, 3]
    @test findall(true) == [1] && findall(false) == Int[]
    @test findall(isodd, 1) == [1] && findall(isodd, 2) == Int[]
    # immutable parametric structs are Set elements and Dict keys by value
    @test (1 + 1im) in Set([1 + 1im]) && Dict(1 + 2im => 3)[1 + 2im] == 3
end
@testset "get, PermutedDimsArray, invperm" begin
    G = reshape(1:24, 3, 8)
    @test get(G, Vector{Int}[[2:4;], [9:-2:-13;]], 0) == get(G, (2:4, 9:-2:-13), 0)
    @test get([1, 2, 3], [2, 5], 0) == [2, 0]
    m = [1 2; 3 4]
    p = PermutedDimsArray(m, (2, 1))
    @test size(p) == (2, 2) && copy(p) == [1 3; 2 4]
    p[1, 2] = 30                      # a view: the write reaches m
    @test m == [1 2; 30 4]
    R = reshape(1:60, 3, 4, 5)
    @test strides(PermutedDimsArray(Array(R), (2, 1, 3))) == (3, 1, 12)
    @test PermutedDimsArray(R, [3, 1, 2]) == permutedims(R, [3, 1, 2])
    @test_throws ArgumentError PermutedDimsArray(R, (1, 1, 1))
    @test_throws ArgumentError permutedims(R, (1, 1, 1))
    @test invperm([2, 3, 1]) == [3, 1, 2] && invperm((2, 1)) == (2, 1)
    @test_throws ArgumentError invperm([1, 1])
end
@testset "hvcat and take!" begin
    mixed = [1 "two"; 3im 4.0; 5 6//1]
    @test mixed isa Matrix{Any} && size(mixed) == (3, 2)
    @test mixed[2] isa Complex{Int} && mixed[3] isa Int && mixed[5] isa Float64
    @test mixed[4] == "two" && mixed[6] isa Rational{Int}
    @test [1 2.0; 3 4] == [1.0 2.0; 3.0 4.0] && typeof(["a" "b"; "c" "d"]) == Matrix{String}
    buf = IOBuffer()
    broadcast(v -> print(buf, v), 1:5)
    @test take!(buf) == [0x31, 0x32, 0x33, 0x34, 0x35]
    write(buf, "hé")
    t = take!(buf)
    @test t isa Vector{UInt8} && String(t) == "hé" && isempty(take!(buf))
end
"""


def test_arrayops_broadcast_program() -> None:
    run_program(PROGRAM)


FUSION = r"""
using Test, Random
@testset "nested dotted calls fuse into one broadcast" begin
    seen = Int[]
    rec(v) = (push!(seen, v); v + 2)
    @test rec.(rec.(rec.(1:3))) == [7, 8, 9]
    @test seen == [1, 3, 5, 2, 4, 6, 3, 5, 7]     # element by element, not call by call
    empty!(seen)
    @. rec(rec(1:2))
    @test seen == [1, 3, 2, 4]
    empty!(seen)
    @test rec.([1, 2]) .+ rec.([10, 20]) == [15, 26] && seen == [1, 10, 2, 20]
    trail = Int[]
    ⊕ = (a, b) -> (c = a + 2b; push!(trail, c); c)   # an operator as a variable
    @test [1, 2] .⊕ [10, 11] .⊕ [100, 200] == [221, 424]
    @test trail == [21, 221, 24, 424]
    @test (v -> v + 1).((v -> v + 2).(1:3)) == 4:6
    @test .-rec.([1]) == [-3] && ([1, 2] .|> rec .|> rec) == [5, 6]
end
@testset ".= calls the function once per destination element" begin
    buf = zeros(3)
    gen = MersenneTwister(7)
    buf .= rand.((gen,))
    gen = MersenneTwister(7)
    @test buf == [rand(gen), rand(gen), rand(gen)]
    @test_throws DimensionMismatch zeros(2) .= rand.(zeros(3))
end
@testset "keywords splatted from pairs and tuples" begin
    addkw(a; y=0) = a + y
    @test addkw(1; [(:y, 1)]...) == 2 && addkw(1; [:y => 2]...) == 3
    @test addkw(1; pairs((y=4,))...) == 5 && addkw(1; Dict(:y => 5)...) == 6
    @test addkw.([1, 2]; [(:y, 1)]...) == [2, 3]
    @test_throws TypeError addkw(1; ["y" => 1]...)
    @test_throws ArgumentError addkw(1; [1]...)
end
"""


def test_broadcast_fusion_and_keyword_splats() -> None:
    run_program(FUSION)


LOCALS = r"""
using Test
@testset "local declarations of shared variables" begin
    local A, B
    A = fill(1, 2)
    B = [3, 4]
    @test A == [1, 1]                 # (each declared variable has a box of its own)
    B = 5
    A = 1:2
    @test A == 1:2 && B == 5
end
function later()
    local x
    k = () -> x
    first = try
        k()
    catch e
        e isa UndefVarError
    end
    x = 5
    (first, k())
end
@testset "a closure sees a declared local assigned after it" begin
    @test later() == (true, 5)
end
"""


def test_local_declarations_with_closures() -> None:
    run_program(LOCALS)


SHAPES = r"""
using Test, LinearAlgebra
@testset "repeat counts, block-diagonal cat and reshape to N dimensions" begin
    M = [1 2; 3 4]
    @test repeat([1, 2]; inner=[2], outer=[2]) == [1, 1, 2, 2, 1, 1, 2, 2]
    @test repeat(M; inner=(2, 2), outer=[1, 1]) == [1 1 2 2; 1 1 2 2; 3 3 4 4; 3 3 4 4]
    @test_throws ArgumentError repeat(M; inner=2, outer=(2, 2))
    @test_throws ArgumentError repeat(M; inner=(2, 2), outer=(2,))
    @test cat(1, 2, 3.0; dims=[1, 2]) == diagm(0 => [1, 2, 3.0])
    @test cat(M, M; dims=[1, 3])[3:4, 1:2, 2] == M
    R = reshape(1:24, 2, 3, 4)
    @test reshape(R, Val(2)) == reshape(1:24, 2, 12) && size(reshape(M, Val(3))) == (2, 2, 1)
    @test reshape(M, Val(2)) === M && reshape(M, Val(1)) == [1, 3, 2, 4]
    @test [10, 20, 30][Any[3, 1]] == [30, 10]
    @test_throws ArgumentError [10, 20, 30][Any[1, "x"]]
    @test_throws ErrorException view(zeros(2, 2), [CartesianIndex(1, 1)], :)
end
@testset "Hermitian checks and block matrices" begin
    @test ishermitian([1 im; -im 1]) && !ishermitian([1 im; im 1]) && issymmetric([1 im; im 1])
    @test ishermitian(2.0) && !ishermitian(1 + im)
    B = [[1 2; 3 4] for i = 1:2, j = 1:2]
    @test B'[1, 2] == [1 3; 2 4] && transpose(B)[2, 1] == [1 3; 2 4]
    @test (B * B)[1, 1] == [14 20; 30 44]
    v = [[1, 2], [3, 4]]
    @test v' * v == 30 && B * v == [[16, 36], [16, 36]]
    F = [randn(2, 2) for i = 1:2, j = 1:2]
    @test issymmetric(F' * F)
    C = [complex.(randn(2, 2), randn(2, 2)) for i = 1:2, j = 1:2]
    @test ishermitian(C' * C) && typeof(C[1, 2]) == Matrix{ComplexF64}
    @test typeof(C[1:1, 2]) == Vector{Matrix{ComplexF64}}
end
"""


def test_repeat_cat_reshape_and_block_matrices() -> None:
    run_program(SHAPES)


PRINTS = r"""
using Test
@testset "a Ref prints as the RefValue it is" begin
    buf = IOBuffer()
    broadcast(v -> print(buf, v), [Ref(1.0)])
    @test String(take!(buf)) == "Base.RefValue{Float64}(1.0)"
    @test repr(Ref("a")) == "Base.RefValue{String}(\"a\")"
end
@testset "arrays of abstract element types divided by a number" begin
    @test eltype(Number[2, 2.0, 4//2, 2+0im] / 2) == Number
    @test eltype(Real[2, 2.0, 4//2] / 2) == Real && eltype(Real[2, 2.0, 4//2] / 2.0) == Float64
    @test Any[1, 2.0] / 2 == [0.5, 1.0]
end
"""


def test_ref_printing_and_abstract_division() -> None:
    run_program(PRINTS)


CALL_DESTINATIONS = r"""
using Test
calls = Ref(0)
counted(x) = (calls[] += 1; x)
@testset ".op= into the array a call returns, evaluated once" begin
    p = [1.0, 2.0, 3.0, 4.0]
    view(counted(p), 1:3) .+= [10, 20, 30]
    @test p == [11.0, 22.0, 33.0, 4.0] && calls[] == 1
    one_ = [1]
    one_[[1, 1]] .+= 1
    @test one_ == [2]
    @test_throws ErrorException view(p, [1, 3]) .= 0     # (a view that is a copy)
end
"""


def test_dotted_update_of_a_call_destination() -> None:
    run_program(CALL_DESTINATIONS)


WRITES = r"""
using Test
@testset "writes into ranges and into elements that are not arrays" begin
    r = 1:3
    @test_throws CanonicalIndexError r[1] = 5
    mixed = [[1, 2, 3], 4:5, 6]
    mixed[1] .= 0
    @test mixed[1] == [0, 0, 0]
    @test_throws Base.CanonicalIndexError mixed[2] .= 0
    @test_throws MethodError mixed[3] .= 0
    @test mixed[3] == 6
end
"""


def test_writes_into_ranges_and_scalar_elements() -> None:
    run_program(WRITES)


MAPSLICES = r"""
using Test
@testset "mapslices over any dimensions" begin
    c = fill(1, 2, 3, 4)
    @test size(mapslices(sum, fill(1.0, 2, 3, 4), dims=[1, 2])) === (1, 1, 4)
    @test all(mapslices(sum, fill(1.0, 2, 3, 4), dims=[1, 2]) .== 6)
    @test size(mapslices(s -> fill(1, 6), c, dims=[1, 3])) == (6, 3, 1)
    @test size(mapslices(s -> fill(1, 1, 6), c, dims=[2, 3])) == (2, 1, 6)
    @test mapslices(s -> maximum(-s), [1 2; 3 4], dims=[]) == [-1 -2; -3 -4]
    @test mapslices(prod, ["1" "2"; "3" "4"], dims=1) == ["13" "24"]
    @test mapslices(s -> tuple(s), [1 2; 3 4], dims=1)[1, 2] == ([2, 4],)
    @test mapslices(sum, [1 2; 3 4], dims=2) == reshape([3, 7], 2, 1)
    @test_throws DimensionMismatch mapslices(s -> s[1] == 1 ? [1] : [1, 2], [1 2; 3 4], dims=1)
    @test_throws ArgumentError mapslices(sum, [1 2; 3 4], dims=0)
end
"""


def test_mapslices_over_any_dimensions() -> None:
    run_program(MAPSLICES)


SORTSLICES = r"""
using Test
@testset "sortslices over several dimensions" begin
    K = reshape(collect(1:8), (2, 2, 2))
    @test sortslices(K, dims=(3, 1))[:, :, 1] == [1 3; 5 7]
    @test sortslices(K, dims=(1, 3)) == K
    @test sortslices(K, dims=(1, 2))[:, :, 1] == [1 3; 2 4]
    @test sortslices(reshape([4, 3, 2, 1, 8, 7, 6, 5], 2, 2, 2), dims=(2, 1))[1, 2, :] == [2, 6]
    C = cat([3 1; 1 2], [0 0; 5 5]; dims=3)
    @test sortslices(C, dims=3, by=x -> -sum(x))[:, :, 1] == [0 0; 5 5]
    @test sortslices([3 1; 1 2; 2 9], dims=1, rev=true) == [3 1; 2 9; 1 2]
    @test_throws ArgumentError sortslices([1 2; 3 4], dims=0)
end
"""


def test_sortslices_over_several_dimensions() -> None:
    run_program(SORTSLICES)


PAIRS = r"""
using Test
@testset "pairs of arrays and LinearIndices" begin
    A14 = [11 13; 12 14]
    @test [a for (a, b) in pairs(A14)] == CartesianIndex.(1:2, reshape(1:2, 1, :))
    @test [a for (a, b) in pairs(IndexLinear(), A14)] == LinearIndices(axes(A14)) == [1 3; 2 4]
    @test [b for (a, b) in pairs(Base.IndexCartesian(), A14)] == A14
    @test [a for (a, b) in pairs([5, 6])] == [1, 2]
    @test_throws ErrorException pairs(fill(7))
    @test CartesianIndices((2, 2)) == CartesianIndex.(1:2, reshape(1:2, 1, :))
    @test CartesianIndices((2, 2)) != [1 2; 3 4]
    l = LinearIndices((2, 3))
    @test l[2, 3] == 6 && l[4] == 4 && size(l) == (2, 3) && [x for x in l] == [1 3 5; 2 4 6]
    @test_throws BoundsError l[7]
    @test_throws ArgumentError LinearIndices((2:3,))
end
"""


def test_pairs_of_arrays_and_linear_indices() -> None:
    run_program(PAIRS)


BROADCASTED = r"""
using Test
@testset "Broadcast.broadcasted" begin
    calls = Ref(0)
    bc = Broadcast.broadcasted(x -> (calls[] += 1; x + 1), [1 2; 3 4])
    @test bc[2, 1] == 4 && calls[] == 1
    @test size(bc) == (2, 2) && Broadcast.materialize(bc) == [2 3; 4 5]
    @test Broadcast.materialize(Broadcast.broadcasted(*, (1, 2), 3)) == (3, 6)
    @test_throws BoundsError Broadcast.broadcasted(+, [1, 2], 10)[3]
    @test_throws DimensionMismatch Broadcast.broadcasted(+, [1, 2], [1, 2, 3])
    @test_throws ArgumentError Broadcast.broadcasted(identity, Dict(1 => 2))
end
struct Wrapped{T}
    inner::T
end
Base.axes(w::Wrapped) = axes(w.inner)
Base.getindex(w::Wrapped, i...) = getindex(w.inner, i...)
Base.Broadcast.broadcastable(w::Wrapped) = w
struct Boxed
    x::Int
end
Broadcast.broadcastable(b::Boxed) = [b.x, b.x]
@testset "a struct that opts into broadcasting" begin
    @test Wrapped([1 2; 3 4]) .* 2 == [2 4; 6 8]
    @test sqrt.(Wrapped(fill(4.0))) == fill(2.0)
    @test Boxed(3) .+ [1, 2] == [4, 5]
end
@testset "an in-place assignment as a call's argument" begin
    v = [1, 2]
    @test iszero(fill(1, 2, 2) .= zeros(1, 2)) && sum(v .+= 1) == 5 && v == [2, 3]
    x = 1
    @test string(x += 2) == "3" && x == 3
end
"""


def test_broadcasted_is_lazy_and_checks_its_arguments() -> None:
    """`Broadcast.broadcasted` was undefined; an element of it calls f once, and shapes
    that do not broadcast or a Dict are errors, as Julia's. A struct with a
    `Broadcast.broadcastable` method broadcast was a MethodError; `f(a .= b)` and
    `f(x += 1)` were ParseErrors."""
    run_program(BROADCASTED)


DOT_MACRO_PARTS = r"""
using Test
v = [4, -9, 1, -16]
@test @.(1 + sqrt($sort(abs(v)))) == [2, 3, 4, 5]
x = [1.0, 4.0]
@test @.($(sum(x)) + x) == [6.0, 9.0]
@test @.((sqrt(x), x + 1)) == ([1.0, 2.0], [2.0, 5.0])
@test (@. let w = [1, 2, 3]; w^2; end) == [1, 4, 9]
base = [1, 2, 3]
@. for k = 1:2
    base = base^2
end
@test base == [1, 16, 81]
@. sq(w) = w^2
@test sq([1, 2]) == [1, 4]
@test (('a':'c') .== 'b') == [false, true, false]
"""


def test_dot_macro_interpolation_and_blocks() -> None:
    """`$` in `@.` was a ParseError; a `let`, `for`, short function or tuple inside `@.`
    was left undotted (a MethodError, or a tuple of whole-array calls)."""
    run_program(DOT_MACRO_PARTS)
    with pytest.raises(ZylaError, match="outside quote"):
        Zyla().eval("x = 1; $x + 1")


def test_array_display_on_a_small_screen() -> None:
    """On a screen of 2 rows a 30-element vector showed elements 1 to 28, `⋮` and 29
    (Python's floor division where Julia's `div` truncates); Julia prints ` …`."""
    got = Zyla().eval('f(n) = (b = IOBuffer(); show(IOContext(b, :limit => true, '
                      ':displaysize => (n, 12)), MIME("text/plain"), collect(1:30)); '
                      'String(take!(b))); (f(2), f(10))')
    assert got == ("30-element Vector{Int64}: \u2026",
                   "30-element Vector{Int64}:\n  1\n  2\n  3\n  \u22ee\n 29\n 30")


def test_a_type_broadcast_over_objects_converts_each() -> None:
    """`Int.([1//2, 3//2])` was [0, 1] and `Int.(Any[1.5, 2])` [1, 2] (numpy's truncating
    cast of the object array; Julia's InexactError); `Int.(['a', 'b'])` a MethodError."""
    z = Zyla()
    got = z.eval("(Int.(['a', 'b']), Int.(Any[1.0, 2]), map(Int, 'a':'c'))")
    assert [list(v) for v in got] == [[97, 98], [1, 2], [97, 98, 99]]
    for src in ("Int.([1//2, 3//2])", "Int.(Any[1.5, 2])"):
        with pytest.raises(ZylaError, match="InexactError"):
            z.eval(src)
