"""Views and broadcasting as Julia defines them (conformance arrayops.jl, broadcast.jl):
writes through a view reach its parent (and a view that cannot share memory refuses
writes), broadcast! calls f once per destination element, broadcasting refuses Dicts and
NamedTuples and collects Sets, and deleteat!/findmax check their arguments. Each check runs
on the host interpreter, the reference semantics."""

from __future__ import annotations

from snippets import run_program

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
