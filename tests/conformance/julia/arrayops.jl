# Facts from JuliaLang/julia test/arrayops.jl (ported for Zyla's conformance suite).
# Upstream version: commit 075d5be7f3ffc461ef4481ebd12498df914071a9; ported up to "multi-array eachindex".
using Test, Random, LinearAlgebra

@testset "basics" begin
    @test length([1, 2, 3]) == 3
    @test count(!iszero, [1, 2, 3]) == 3

    let ones4 = fill(1., 4), twice = ones4 + ones4, none = ones4 - ones4, thrice = ones4 + ones4 + ones4
        @test twice[1] === 2. && twice[2] === 2. && twice[3] === 2. && twice[4] === 2.
        @test none[1] === 0. && none[2] === 0. && none[3] === 0. && none[4] === 0.
        @test thrice[1] === 3. && thrice[2] === 3. && thrice[3] === 3. && thrice[4] === 3.
    end

    @test length((1,)) == 1
    @test length((1, 2)) == 2

    @test isequal(1 .+ [1, 2, 3], [2, 3, 4])
    @test isequal([1, 2, 3] .+ 1, [2, 3, 4])
    @test isequal(1 .- [1, 2, 3], [0, -1, -2])
    @test isequal([1, 2, 3] .- 1, [0, 1, 2])

    @test isequal(5 * [1, 2, 3], [5, 10, 15])
    @test isequal([1, 2, 3] * 5, [5, 10, 15])
    @test isequal(1 ./ [1, 2, 5], [1.0, 0.5, 0.2])
    @test isequal([1, 2, 3] / 5, [0.2, 0.4, 0.6])

    @test isequal(2 .% [1, 2, 3], [0, 0, 2])
    @test isequal([1, 2, 3] .% 2, [1, 0, 1])
    @test isequal(2 .÷ [1, 2, 3], [2, 1, 0])
    @test isequal([1, 2, 3] .÷ 2, [0, 1, 1])
    @test isequal(-2 .% [1, 2, 3], [0, 0, -2])
    @test isequal([-1, -2, -3] .% 2, [-1, 0, -1])
    @test isequal(-2 .÷ [1, 2, 3], [-2, -1, 0])
    @test isequal([-1, -2, -3] .÷ 2, [0, -1, -1])

    @test isequal(1 .<< [1, 2, 5], [2, 4, 32])
    @test isequal(128 .>> [1, 2, 5], [64, 32, 4])
    @test isequal(2 .>> 1, 1)
    @test isequal(1 .<< 1, 2)
    @test isequal([1, 2, 5] .<< [1, 2, 5], [2, 8, 160])
    @test isequal([10, 20, 50] .>> [1, 2, 5], [5, 5, 1])

    M = fill(1., 2, 2)
    M[1, 1] = 1
    M[1, 2] = 2
    M[2, 1] = 3
    M[2, 2] = 4
    Mt = copy(M')
    @test M[1, 1] == 1. && M[1, 2] == 2. && M[2, 1] == 3. && M[2, 2] == 4.
    @test Mt[1, 1] == 1. && Mt[2, 1] == 2. && Mt[1, 2] == 3. && Mt[2, 2] == 4.
    M[[1 2 3 4]] .= 0
    @test M == zeros(2, 2)
    M[[1 2], [1 2]] .= 1
    @test M == fill(1., 2, 2)
    M[[1 2], 1] .= 0
    @test M[1, 1] == 0. && M[1, 2] == 1. && M[2, 1] == 0. && M[2, 2] == 1.
    M[:, [1 2]] .= 2
    @test M == fill(2., 2, 2)

    A5 = Array{Float64}(undef, 2, 2, 2, 2, 2)
    A5[1, 1, 1, 1, 1] = 10
    A5[1, 2, 1, 1, 2] = 20
    A5[1, 1, 2, 2, 1] = 30

    @test A5[1, 1, 1, 1, 1] == 10
    @test A5[1, 2, 1, 1, 2] == 20
    @test A5[1, 1, 2, 2, 1] == 30

    flat = reshape(A5, (32,))
    @test flat[1] == 10
    @test flat[19] == 20
    @test flat[13] == 30
    @test_throws DimensionMismatch reshape(flat, (5, 7))
    @test_throws DimensionMismatch reshape(flat, (35,))
    @test_throws ArgumentError reinterpret(Any, flat)
    words = ["hello", "world"]
    @test_throws ArgumentError reinterpret(Float32, words)
    @test_throws ArgumentError resize!(Float64[], -2)

    flat = rand(32)
    A5 = reshape(flat, (2, 2, 2, 2, 2))
    @test ndims(A5) == 5
    @test A5[2, 1, 2, 2, 1] == flat[14]
    @test A5[2, 2, 2, 2, 2] == flat[end]

    @test_throws DimensionMismatch reshape(1:3, 4)

    # issue #23107: constructors copy
    v = [1, 2, 3]
    @test typeof(v)(v) !== v
    @test Array(v) !== v
    @test Array{eltype(v)}(v) !== v
    @test Vector(v) !== v
end

@testset "reshaping SubArrays" begin
    row = Array(reshape(1:5, 1, 5))
    @testset "linearfast" begin
        sv = view(row, :, 2:4)
        rs = reshape(sv, (length(sv),))
        @test length(rs) == 3
        @test rs[1] == 2
        @test rs[3, 1] == 4
        # (indexing with Base.ReshapedIndex left out: Base internal)
        @test parent(reshape(rs, (1, 3))) === rs.parent === sv
        @test parentindices(rs) == (1:1, 1:3)
        @test reshape(rs, (3,)) === rs
        @test convert(Array{Int,1}, rs) == [2, 3, 4]
        @test_throws MethodError convert(Array{Int,2}, rs)
        @test convert(Array{Int}, rs) == [2, 3, 4]
        # (Base.unsafe_convert(Ptr{Int}, ...) left out: pointers)
        @test isa(rs, StridedArray)
    end
    @testset "linearslow" begin
        sv = view(row, :, [2, 3, 5])
        rs = reshape(sv, length(sv))
        @test length(rs) == 3
        @test rs[1] == 2
        @test rs[3, 1] == 5
        # (indexing with Base.ReshapedIndex left out: Base internal)
        @test parent(reshape(rs, (1, 3))) === rs.parent === sv
        @test parentindices(rs) == (1:1, 1:3)
        @test reshape(rs, (3,)) === rs
        @test convert(Array{Int,1}, rs) == [2, 3, 5]
        @test_throws MethodError convert(Array{Int,2}, rs)
        @test convert(Array{Int}, rs) == [2, 3, 5]
        # (Base.unsafe_convert(Ptr{Int}, ...) left out: pointers)
        rs[2] = -1
        @test row[3] == -1
        row = zeros(0, 5)
        sv = view(row, :, [2, 3, 5])
        @test length(reshape(sv, length(sv))) == 0
    end
end

@testset "reshape(a, Val(N))" begin
    full = fill(1, 3, 3)
    part = view(full, 1:2, 1:2)
    for N in (1, 3)
        @test isa(reshape(full, Val(N)), Array{Int,N})
        @test isa(reshape(part, Val(N)), Base.ReshapedArray{Int,N})
    end
end

@testset "zero-dimensional reshapes" begin
    @test reshape([1]) == fill(1)
    @test reshape([1]) isa Array{Int,0}
    @test reshape(1:1) == fill(1)
    @test reshape(1:1) isa Base.ReshapedArray{Int, 0}
    @test reshape([1], Val(0)) == fill(1)
    @test reshape([1], Val(0)) isa Array{Int,0}
    @test reshape(1:1, Val(0)) == fill(1)
    @test reshape(1:1, Val(0)) isa Base.ReshapedArray{Int, 0}
    @test_throws DimensionMismatch reshape([1, 2])
    @test_throws DimensionMismatch reshape([1, 2], Val(0))
    @test_throws DimensionMismatch reshape(1:2)
    @test_throws DimensionMismatch reshape(1:2, Val(0))
end

@testset "sizehint!" begin
    buf = zeros(40)
    resize!(buf, 1)
    sizehint!(buf, 1)
    @test length(buf) == 1

    buf = zeros(40)
    resize!(buf, 20)
    sizehint!(buf, 1)
    @test length(buf) == 20

    buf = [1:10;]
    sizehint!(buf, 20)
    @test length(buf) == length([1:10;])
    @test buf == [1:10;]

    buf = [1:10;]
    resize!(buf, 5)
    sizehint!(buf, 5)
    @test length(buf) == 5
    @test buf == [1:5;]
end

@testset "reshape with colon" begin
    let R = range(1, stop=60, length=60)
        @test size(reshape(R, :))         == (60,)
        @test size(reshape(R, :, 1))      == (60, 1)
        @test size(reshape(R, (:, 2)))    == (30, 2)
        @test size(reshape(R, 3, :))      == (3, 20)
        @test size(reshape(R, 2, 3, :))   == (2, 3, 10)
        @test size(reshape(R, (2, :, 5))) == (2, 6, 5)
        @test_throws DimensionMismatch reshape(R, 7, :)
        @test_throws DimensionMismatch reshape(R, :, 2, 3, 4)
        @test_throws DimensionMismatch reshape(R, (:, :))

        Q = rand(2, 2, 2, 2)
        @test size(reshape(Q, :)) == (16,)
        @test size(reshape(Q, :, 4)) == (4, 4)
        @test size(reshape(Q, (2, 1, :))) == (2, 1, 8)
        @test_throws DimensionMismatch reshape(Q, 3, :)
        @test_throws DimensionMismatch reshape(Q, :, :, 2, 2)
    end
end

struct Zero26163 <: AbstractArray{Int,0}; end
Base.size(::Zero26163) = ()
Base.getindex(::Zero26163) = 0
struct One26163 <: AbstractArray{Int,1}; end
Base.size(::One26163) = (1,)
Base.getindex(::One26163, ::Int) = 0

@testset "reshape of custom zero- and one-dimensional arrays" begin
    z0 = Zero26163()
    o1 = One26163()
    @test z0 == reshape(o1, ()) == fill(0, ())
    @test reshape(z0, 1) == o1 == [0]
    @test reshape(z0, 1, 1) == reshape(o1, 1, 1) == fill(0, 1, 1)
    @test occursin("1-element reshape", summary(reshape(z0, 1)))
    @test occursin("0-dimensional reshape", summary(reshape(o1, ())))
end

@testset "arrayops: reshaping a range to its own length gives the range" begin
    @test reshape(1:5, (5,)) === 1:5
    @test reshape(1:5, 5) === 1:5
end

@testset "setindex! on a reshaped range" begin
    rr = reshape(1:20, 5, 4)
    # (the Base.ReshapedIndex(1) index of upstream left out: Base internal)
    for idx in ((3,), (2, 2))
        try
            rr[idx...] = 7
            error("wrong error")
        catch err
            @test err.msg == "indexed assignment fails for a reshaped range; consider calling collect"
        end
    end
end

@testset "reshape isbitsunion Arrays (issue #28611)" begin
    vals = Union{Float64,Missing}[]
    for k in 1:10 push!(vals, k) end
    vals[5] = missing
    m25 = reshape(vals, 2, 5)
    for (I, k) in zip(CartesianIndices((2, 5)), 1:10)
        @test m25[I] === vals[k]
    end
    mc = copy(m25)
    @test mc isa Array{Union{Float64, Missing}, 2}
    m52 = reshape(mc, 5, 2)
    for (I, J) in zip(CartesianIndices((2, 5)), CartesianIndices((5, 2)))
        @test mc[I] === m52[J]
    end

    for T in (Any, Union{Float64,String})
        u = Array{T}(undef, 4)
        @test reshape(u, (2, 2)) isa Array{T,2}
        u = Array{T}(undef, 4, 1)
        @test reshape(u, (2, 2)) isa Array{T,2}
    end
end

# Left out: testset "conversion from ReshapedArray to Array (#18262)" (it builds arrays with
# the internal constructor Base.ReshapedArray(parent, dims, mi)).

@testset "operations with IndexLinear ReshapedArray" begin
    # (the first block, built with the internal constructor Base.ReshapedArray(b, (4,3), ())
    # and indexed with Base.ReshapedIndex, left out: Base internals)
    cube = rand(1, 1, 8, 8, 1)
    @test dropdims(cube, dims=1) == dropdims(cube, dims=(1,)) == reshape(cube, (1, 8, 8, 1))
    @test dropdims(cube, dims=(1, 5)) == dropdims(cube, dims=(5, 1)) == reshape(cube, (1, 8, 8))
    @test dropdims(cube, dims=(1, 2, 5)) == dropdims(cube, dims=(5, 2, 1)) == reshape(cube, (8, 8))
    @test_throws UndefKeywordError dropdims(cube)
    @test_throws ArgumentError dropdims(cube, dims=0)
    @test_throws ArgumentError dropdims(cube, dims=(1, 1))
    @test_throws ArgumentError dropdims(cube, dims=(1, 2, 1))
    @test_throws ArgumentError dropdims(cube, dims=(1, 1, 2))
    @test_throws ArgumentError dropdims(cube, dims=3)
    @test_throws ArgumentError dropdims(cube, dims=4)
    @test_throws ArgumentError dropdims(cube, dims=6)

    dims3 = (5, 8, 7)
    R = reshape(1:prod(dims3), dims3...)
    @test R[2:6] == [2:6;]
    @test R[1:3, 2, 2:4] == cat(46:48, 86:88, 126:128; dims=2)
    @test R[:, 7:-3:1, 5] == [191 176 161; 192 177 162; 193 178 163; 194 179 164; 195 180 165]
    @test reshape(R, Val(2))[:, 3:9] == reshape(11:45, 5, 7)
    sel = (2, 2:3, 2:2:5)
    dest = zeros(Int, map(maximum, sel)...)
    dest[sel...] = R[sel...]
    @test dest == cat(zeros(Int, 2, 3), [0 0 0; 0 47 52], zeros(Int, 2, 3), [0 0 0; 0 127 132]; dims=3)

    @test cat(1, 2, 3., 4., 5.; dims=[1, 2]) == diagm(0 => [1, 2, 3., 4., 5.])
    blk = [1 2; 3 4]
    bd = cat(blk, blk; dims=[1, 3])
    @test bd[1:2, 1:2, 1] == blk
    @test bd[1:2, 1:2, 2] == zero(blk)
    @test bd[3:4, 1:2, 1] == zero(blk)
    @test bd[3:4, 1:2, 2] == blk

    sq = rand(2, 2)
    slice = sq[1, :]
    @test isequal(size(slice), (2,))
    slice = sq[:, 1]
    @test isequal(size(slice), (2,))

    sq = rand(5, 5)
    slice = sq[2:3, 2]
    @test slice[1] == sq[2, 2] && slice[2] == sq[3, 2]

    Z = zeros(4, 5)
    Z[:, 3] = 1:4
    @test Z == [0 0 1 0 0; 0 0 2 0 0; 0 0 3 0 0; 0 0 4 0 0]
    Z[2, :] = 11:15
    @test Z == [0 0 1 0 0; 11 12 13 14 15; 0 0 3 0 0; 0 0 4 0 0]
    Z[[3, 1], [2, 4]] = [21 22; 23 24]
    @test Z == [0 23 1 24 0; 11 12 13 14 15; 0 21 3 22 0; 0 0 4 0 0]
    Z[4, [2, 3]] .= 7
    @test Z == [0 23 1 24 0; 11 12 13 14 15; 0 21 3 22 0; 0 7 7 0 0]

    @test isequal(reshape(reshape(1:27, 3, 3, 3), Val(2))[1, :], [1, 4, 7, 10, 13, 16, 19, 22, 25])
end

@testset "find(in(b), a)" begin
    # unsorted
    hay = [3, 5, -7, 6]
    needles = [4, 6, 2, -7, 1]
    @test findall(in(needles), hay) == [3, 4]
    @test findall(in(Int[]), hay) == Int[]
    @test findall(in(hay), Int[]) == Int[]
    @test findall(in(needles), reshape(hay, 2, 2)) == [CartesianIndex(1, 2), CartesianIndex(2, 2)]

    # sorted
    hay = [1, 2, 3, 4, 5, 10]
    needles = [2, 3, 4, 6]
    @test findall(in(needles), hay) == [2, 3, 4]
    @test findall(in(hay), needles) == [1, 2, 3]
    @test findall(in(Int[]), hay) == Int[]
    @test findall(in(hay), Int[]) == Int[]
    @test findall(in(needles), reshape(hay, 3, 2)) ==
        [CartesianIndex(2, 1), CartesianIndex(3, 1), CartesianIndex(1, 2)]
    @test findall(in(hay), reshape(needles, 2, 2)) ==
        [CartesianIndex(1, 1), CartesianIndex(2, 1), CartesianIndex(1, 2)]

    hay = Vector(1:3:15)
    needles = Vector(2:4:10)
    @test findall(in(needles), hay) == [4]
    @test findall(in(needles), [hay[1:4]; hay[4:end]]) == [4, 5]

    @test findall(in(NaN), [1.0, NaN, 2.0]) == [2]
    @test findall(in(NaN), [1.0, 2.0, NaN]) == [3]

    @testset "findall(in(x), b) for uncomparable element types" begin
        zs = [1 + 1im, 1 - 1im]
        @test findall(in(1 + 1im), zs) == [1]
        @test findall(in(zs), zs)       == [1, 2]
    end

    @test findall(in([1, 2]), 2) == [1]
    @test findall(in([1, 2]), 3) == []

    @test sort(findall(Dict(1 => false, 2 => true, 3 => true))) == [2, 3]

    @test findall(true) == [1]
    @test findall(false) == Int[]

    @test findall(isodd, 1) == [1]
    @test findall(isodd, 2) == Int[]
end

# Left out: testset "setindex! return type" (Base.return_types: inference).

@testset "construction" begin
    @test typeof(Vector{Int}(undef, 3)) == Vector{Int}
    @test typeof(Vector{Int}()) == Vector{Int}
    @test typeof(Vector(undef, 3)) == Vector{Any}
    @test typeof(Vector()) == Vector{Any}
    @test typeof(Matrix{Int}(undef, 2, 3)) == Matrix{Int}
    @test typeof(Matrix(undef, 2, 3)) == Matrix{Any}

    @test size(Vector{Int}(undef, 3)) == (3,)
    @test size(Vector{Int}()) == (0,)
    @test size(Vector(undef, 3)) == (3,)
    @test size(Vector()) == (0,)
    @test size(Matrix{Int}(undef, 2, 3)) == (2, 3)
    @test size(Matrix(undef, 2, 3)) == (2, 3)

    @test_throws MethodError Matrix()
    @test_throws MethodError Matrix{Int}()
    @test_throws MethodError Array{Int,3}()
end

@testset "get" begin
    G = reshape(1:24, 3, 8)
    got = get(G, 32, -12)
    @test got == -12
    got = get(G, 14, -12)
    @test got == 14
    got = get(G, (2, 4), -12)
    @test got == 11
    got = get(G, (4, 4), -12)
    @test got == -12
    many = get(G, -5:5, NaN32)
    @test eltype(many) == Float32
    @test Base.elsize(many) == sizeof(Float32)
    @test !all(isinteger, many)
    @test isnan.(many) == [trues(6); falses(5)]
    @test many[7:11] == [1:5;]
    many = get(G, (2:4, 9:-2:-13), 0)
    expect = zeros(Int, 3, 12)
    expect[1:2, 2:5] = G[2:3, 7:-2:1]
    @test many == expect
    many2 = get(G, Vector{Int}[[2:4;], [9:-2:-13;]], 0)
    @test many == many2
end

@testset "arrays as dequeues" begin
    dq = Any[1]
    push!(dq, 2, 3, 8)
    @test dq[1] == 1 && dq[2] == 2 && dq[3] == 3 && dq[4] == 8
    top = pop!(dq)
    @test top == 8
    top = pop!(dq)
    @test top == 3
    @test length(dq) == 2
    emptyq = Any[]
    @test_throws ArgumentError pop!(emptyq)
    @test_throws ArgumentError popfirst!(emptyq)
    pushfirst!(dq, 4, 7, 5)
    @test dq[1] == 4 && dq[2] == 7 && dq[3] == 5 && dq[4] == 1 && dq[5] == 2
    top = popfirst!(dq)
    @test top == 4
    @test length(dq) == 4

    base = [3, 7, 6]
    @test_throws BoundsError insert!(base, 0, 5)
    for k = 1:4
        cp = copy(base)
        @test insert!(cp, k, 5) === cp
        @test cp == [base[1:(k-1)]; 5; base[k:end]]
    end
    @test_throws BoundsError insert!(base, 5, 5)
end

@testset "concatenation" begin
    @test isequal([fill(1., 2, 2)  fill(2., 2, 1)], [1. 1 2; 1 1 2])
    @test isequal([fill(1., 2, 2); fill(2., 1, 2)], [1. 1; 1 1; 2 2])
end

@testset "typed array literals" begin
    typed = Float64[1 2 3]
    plain = [1. 2. 3.]
    @test size(typed) == size(plain)
    for k = 1:3 @test typed[k] === plain[k] end
    typed = Float64[1; 2; 3]
    plain = [1., 2., 3.]
    @test size(typed) == size(plain)
    for k = 1:3 @test typed[k] === plain[k] end
    typed = Float64[1 2 3; 4 5 6]
    plain = [1. 2. 3.; 4. 5. 6.]
    @test size(typed) == size(plain)
    for k = 1:length(typed) @test typed[k] === plain[k] end

    same_array(p, q) = eltype(p) == eltype(q) && p == q
    @test same_array(UInt8[1:3; 4], [0x1, 0x2, 0x3, 0x4])
    @test_throws MethodError UInt8[1:3]
    @test_throws MethodError UInt8[1:3,]
    @test_throws MethodError UInt8[1:3, 4:6]
    rv = Vector{UnitRange{Int}}(undef, 1); rv[1] = 1:3
    @test same_array([1:3,], rv)
    rv = Vector{UnitRange{Int}}(undef, 2); rv[1] = 1:3; rv[2] = 4:6
    @test same_array([1:3, 4:6], rv)
end

@testset "typed hvcat" begin
    X = Float64[1 2 3; 4 5 6]
    X32 = Float32[X X; X X]
    @test eltype(X32) <: Float32
    for i = [1, 3], j = [1, 4]
        @test X32[i:(i+1), j:(j+2)] == X
    end
end

@testset "fallback hvcat" begin
    mixed = [1 "two"; 3im 4.0; 5 6//1]
    @test mixed[2] isa Complex{Int}
    @test mixed[3] isa Int
    @test mixed[5] isa Float64
    @test mixed[6] isa Rational{Int}
end

@testset "cat issue #27326" begin
    @test [Int; 1] == [Int, 1]
    @test [Int 1] == reshape([Int, 1], 1, :)
    @test [Int 1; String 2] == reshape([Int, String, 1, 2], 2, 2)
end

@testset "end" begin
    X = [ i + 2j for i = 1:5, j = 1:5 ]
    @test X[end, end] == 15
    @test X[end]     == 15
    @test X[2, end] == 12
    @test X[end, 2] == 9
    @test X[end-1, 2] == 8
    idx = [2, 1, 4, 3]
    @test X[idx[end], 1] == 5
    @test X[end, idx[end]] == 11
end

@testset "findall, findfirst, findnext, findlast, findprev" begin
    v = [0, 1, 2, 3, 0, 1, 2, 3]
    @test findall(!iszero, v) == [2, 3, 4, 6, 7, 8]
    @test findall(v .== 2) == [3, 7]
    @test findall(isodd, v) == [2, 4, 6, 8]
    @test findfirst(!iszero, v) == 2
    @test findfirst(v .== 0) == 1
    @test findfirst(v .== 5) == nothing
    @test findfirst(Dict(1 => false, 2 => true)) == 2
    @test findfirst(isequal(3), [1, 2, 4, 1, 2, 3, 4]) == 6
    @test findfirst(!isequal(1), [1, 2, 4, 1, 2, 3, 4]) == 2
    @test findfirst(isodd, [2, 4, 6, 3, 9, 2, 0]) == 4
    @test findfirst(isodd, [2, 4, 6, 2, 0]) == nothing
    @test findnext(!iszero, v, 4) == 4
    @test findnext(!iszero, v, 5) == 6
    @test findnext(!iszero, v, 1) == 2
    @test findnext(isequal(1), v, 4) == 6
    @test findnext(isequal(5), v, 4) == nothing
    @test findlast(!iszero, v) == 8
    @test findlast(v .== 0) == 5
    @test findlast(v .== 5) == nothing
    @test findlast(isequal(3), [1, 2, 4, 1, 2, 3, 4]) == 6
    @test findlast(isodd, [2, 4, 6, 3, 9, 2, 0]) == 5
    @test findlast(isodd, [2, 4, 6, 2, 0]) == nothing
    @test findprev(!iszero, v, 4) == 4
    @test findprev(!iszero, v, 5) == 4
    @test findprev(!iszero, v, 1) == nothing
    @test findprev(isequal(1), v, 4) == 2
    @test findprev(isequal(1), v, 8) == 6
    @test findprev(isodd, [2, 4, 5, 3, 9, 2, 0], 7) == 5
    @test findprev(isodd, [2, 4, 5, 3, 9, 2, 0], 2) == nothing
    @test findfirst(isequal(0x00), [0x01, 0x00]) == 2
    @test findlast(isequal(0x00), [0x01, 0x00]) == 2
    @test findnext(isequal(0x00), [0x00, 0x01, 0x00], 2) == 3
    @test findprev(isequal(0x00), [0x00, 0x01, 0x00], 2) == 1
end

@testset "find with Matrix" begin
    M = [1 2 0; 3 4 0]
    @test findall(isodd, M) == [CartesianIndex(1, 1), CartesianIndex(2, 1)]
    @test findall(!iszero, M) == [CartesianIndex(1, 1), CartesianIndex(2, 1),
                                  CartesianIndex(1, 2), CartesianIndex(2, 2)]
    @test findfirst(isodd, M) == CartesianIndex(1, 1)
    @test findlast(isodd, M) == CartesianIndex(2, 1)
    @test findnext(isodd, M, CartesianIndex(1, 1)) == CartesianIndex(1, 1)
    @test findprev(isodd, M, CartesianIndex(2, 1)) == CartesianIndex(2, 1)
    @test findnext(isodd, M, CartesianIndex(1, 2)) === nothing
    @test findprev(iseven, M, CartesianIndex(2, 1)) === nothing
end

@testset "findmin findmax argmin argmax" begin
    @test argmax([10, 12, 9, 11]) == 2
    @test argmin([10, 12, 9, 11]) == 3
    @test findmin([NaN, 3.2, 1.8]) === (NaN, 1)
    @test findmax([NaN, 3.2, 1.8]) === (NaN, 1)
    @test findmin([NaN, 3.2, 1.8, NaN]) === (NaN, 1)
    @test findmax([NaN, 3.2, 1.8, NaN]) === (NaN, 1)
    @test findmin([3.2, 1.8, NaN, 2.0]) === (NaN, 3)
    @test findmax([3.2, 1.8, NaN, 2.0]) === (NaN, 3)

    # ranges (#14085)
    @test findmax(4:9) == (9, 6)
    @test argmax(4:9) == 6
    @test findmin(4:9) == (4, 1)
    @test argmin(4:9) == 1
    @test findmax(5:-2:1) == (5, 1)
    @test argmax(5:-2:1) == 1
    @test findmin(5:-2:1) == (1, 3)
    @test argmin(5:-2:1) == 3

    # non-numbers and signed zeros (#23094)
    @test_throws MethodError findmax(Set(["abc"]))
    @test findmin(["abc", "a"]) === ("a", 2)
    @test_throws MethodError findmax([Set([1]), Set([2])])
    @test findmin([0.0, -0.0]) === (-0.0, 2)
    @test findmax([0.0, -0.0]) === (0.0, 1)
    @test findmin([-0.0, 0.0]) === (-0.0, 1)
    @test findmax([-0.0, 0.0]) === (0.0, 2)
    @test isnan(findmin([NaN, NaN, 0.0/0.0])[1])
    @test findmin([NaN, NaN, 0.0/0.0])[2] == 1
    @test isnan(findmax([NaN, NaN, 0.0/0.0])[1])
    @test findmax([NaN, NaN, 0.0/0.0])[2] == 1

    # matrices give CartesianIndex
    @test argmax([10 12; 9 11]) === CartesianIndex(1, 2)
    @test argmin([10 12; 9 11]) === CartesianIndex(2, 1)
    @test findmax([10 12; 9 11]) === (12, CartesianIndex(1, 2))
    @test findmin([10 12; 9 11]) === (9, CartesianIndex(2, 1))
end

@testset "permutedims" begin
    # the number of dimensions is kept
    dimsp = randperm(5)
    permq = randperm(5)
    T = rand(dimsp...)
    Tp = permutedims(T, permq)
    @test isequal(size(Tp), tuple(dimsp[permq]...))

    # a hand-made case
    src = zeros(1, 2, 3)
    for k = 1:6
        src[k] = k
    end
    want = zeros(3, 1, 2)
    for k = 1:3
        want[k] = k * 2 - 1
        want[k+3] = k * 2
    end
    @test isequal(want, permutedims(src, [3, 1, 2]))
    @test isequal(want, permutedims(src, (3, 1, 2)))

    # a view
    sq = rand(5, 5)
    sv = view(sq, 2:3, 2:3)
    pv = permutedims(sv, [2, 1])
    @test pv[1, 1] == sq[2, 2] && pv[1, 2] == sq[3, 2]
    @test pv[2, 1] == sq[2, 3] && pv[2, 2] == sq[3, 3]

    # a view that is not strided
    R = reshape(1:60, 3, 4, 5)
    sv = view(R, :, [1, 2, 4], [1, 5])
    dense = convert(Array, sv)
    for perm in ([1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1])
        @test permutedims(sv, perm) == permutedims(dense, perm)
        @test PermutedDimsArray(sv, perm) == permutedims(dense, perm)
    end
    @test_throws ArgumentError permutedims(R, (1, 1, 1))
    @test_throws ArgumentError permutedims(sv, (1, 1, 1))
    @test_throws ArgumentError PermutedDimsArray(R, (1, 1, 1))
    @test_throws ArgumentError PermutedDimsArray(sv, (1, 1, 1))
    pd = PermutedDimsArray(dense, (3, 2, 1))
    # (pointer(...) checks left out: pointers)
    @test strides(pd) == (9, 3, 1)
    pa = PermutedDimsArray(Array(R), (2, 1, 3))
    @test strides(pa) == (3, 1, 12)

    for Q in [rand(1, 2, 3, 4), rand(2, 2, 2, 2), rand(5, 6, 5, 6), rand(1, 1, 1, 1)]
        perm = randperm(4)
        @test isequal(Q, permutedims(permutedims(Q, perm), invperm(perm)))
        @test isequal(Q, permutedims(permutedims(Q, invperm(perm)), perm))
    end

    m = [1 2; 3 4]
    @test permutedims(m) == [1 3; 2 4]

    col = [1, 2, 3]
    @test permutedims(col) == [1 2 3]

    lazy = PermutedDimsArray([1 2; 3 4], (2, 1))
    @test size(lazy) == (2, 2)
    @test copy(lazy) == [1 3; 2 4]
    flat = [0, 0, 0, 0]
    copyto!(flat, lazy)
    @test flat == [1, 2, 3, 4]
end

@testset "circshift" begin
    @test circshift(1:5, -1) == circshift(1:5, 4) == circshift(1:5, -6) == [2, 3, 4, 5, 1]
    @test circshift(1:5, 1) == circshift(1:5, -4) == circshift(1:5, 6)  == [5, 1, 2, 3, 4]
    v = [1:5;]
    @test_throws ArgumentError Base.circshift!(v, v, 1)
    w = copy(v)
    @test Base.circshift!(w, v, 1) == [5, 1, 2, 3, 4]
end

# a type whose hash is always the same, so every element collides
struct SameHash
    x::Float64
end
Base.hash(::SameHash, h::UInt) = h

@testset "arrayops: unique along dims" begin
    let A, B, C, D
        # every row and column unique
        A = fill(1., 10, 10)
        A[diagind(A)] = shuffle!([1:10;])
        @test unique(A, dims=1) == A
        @test unique(A, dims=2) == A

        # each row repeated 10 times
        B = A[shuffle!(repeat(1:10, 10)), :]
        C = unique(B, dims=1)
        @test sortslices(C, dims=1) == sortslices(A, dims=1)
        @test unique(B, dims=2) == B
        @test unique(B', dims=2)' == C

        # along the third dimension
        D = cat(B, B, dims=3)
        @test unique(D, dims=1) == cat(C, C, dims=3)
        @test unique(D, dims=3) == cat(B, dims=3)

        # with hash collisions
        @test map(s -> s.x, unique(map(SameHash, B), dims=1)) == C
    end
end

@testset "large matrices transpose" begin
    for k = 1:3
        big_ = rand(200, 300)
        @test isequal(copy(big_'), permutedims(big_, [2, 1]))
    end
end

@testset "repeat" begin
    local A, A1, A2, A3, R, T
    A = fill(1, 2, 3, 4)
    A1 = reshape(repeat([1, 2], 1, 12), 2, 3, 4)
    A2 = reshape(repeat([1 2 3], 2, 4), 2, 3, 4)
    A3 = reshape(repeat([1 2 3 4], 6, 1), 2, 3, 4)
    @test isequal(cumsum(A, dims=1), A1)
    @test isequal(cumsum(A, dims=2), A2)
    @test isequal(cumsum(A, dims=3), A3)

    # unsigned counts (#20112)
    A3 = reshape(repeat([1 2 3 4], UInt32(6), UInt32(1)), 2, 3, 4)
    @test isequal(cumsum(A, dims=3), A3)
    @test repeat([1, 2, 3, 4], UInt32(1)) == [1, 2, 3, 4]
    @test repeat([1 2], UInt32(2)) == repeat([1 2], UInt32(2), UInt32(1))

    # (#20564)
    @test_throws MethodError repeat(1, 2, 3)
    @test repeat([1, 2], 1, 2, 3) == repeat([1, 2], outer = (1, 2, 3))

    # zero-dimensional arrays (#29020)
    @test repeat(collect(5), outer=(2, 2)) == [5 5; 5 5]
    @test repeat(ones(Int64), inner=(1, 2), outer=(2, 2)) == [1 1 1 1; 1 1 1 1]

    # more counts than dimensions (#29614)
    @test repeat(ones(2, 2), 1, 1, 1) == ones(2, 2, 1)
    @test repeat(ones(2, 2), 2, 2, 2) == ones(4, 4, 2)
    @test repeat(ones(2), 2, 2, 2) == ones(4, 2, 2)
    @test repeat(ones(2, 2), inner=(1, 1, 1), outer=(2, 2, 2)) == ones(4, 4, 2)

    @test repeat([1, 2]) == [1, 2]
    @test repeat([1, 2], inner=1) == [1, 2]
    @test repeat([1, 2], outer=1) == [1, 2]
    @test repeat([1, 2], inner=(1,)) == [1, 2]
    @test repeat([1, 2], outer=(1,)) == [1, 2]
    @test repeat([1, 2], inner=[1]) == [1, 2]
    @test repeat([1, 2], outer=[1]) == [1, 2]
    @test repeat([1, 2], inner=1, outer=1) == [1, 2]
    @test repeat([1, 2], inner=(1,), outer=(1,)) == [1, 2]
    @test repeat([1, 2], inner=[1], outer=[1]) == [1, 2]

    @test repeat([1, 2], inner=2) == [1, 1, 2, 2]
    @test repeat([1, 2], outer=2) == [1, 2, 1, 2]
    @test repeat([1, 2], inner=(2,)) == [1, 1, 2, 2]
    @test repeat([1, 2], outer=(2,)) == [1, 2, 1, 2]
    @test repeat([1, 2], inner=[2]) == [1, 1, 2, 2]
    @test repeat([1, 2], outer=[2]) == [1, 2, 1, 2]

    @test repeat([1, 2], inner=2, outer=2) == [1, 1, 2, 2, 1, 1, 2, 2]
    @test repeat([1, 2], inner=(2,), outer=(2,)) == [1, 1, 2, 2, 1, 1, 2, 2]
    @test repeat([1, 2], inner=[2], outer=[2]) == [1, 1, 2, 2, 1, 1, 2, 2]

    @test repeat([1, 2], inner = (1, 1), outer = (1, 1)) == reshape([1, 2], (2, 1))
    @test repeat([1, 2], inner = (2, 1), outer = (1, 1)) == reshape([1, 1, 2, 2], (4, 1))
    @test repeat([1, 2], inner = (1, 2), outer = (1, 1)) == [1 1; 2 2]
    @test repeat([1, 2], inner = (1, 1), outer = (2, 1)) == reshape([1, 2, 1, 2], (4, 1))
    @test repeat([1, 2], inner = (1, 1), outer = (1, 2)) == [1 1; 2 2]

    M = [1 2; 3 4]
    @test repeat(M, inner = (1, 1), outer = (1, 1)) == [1 2; 3 4]
    @test repeat(M, inner = (1, 1), outer = (2, 1)) == [1 2; 3 4; 1 2; 3 4]
    @test repeat(M, inner = (1, 1), outer = (1, 2)) == [1 2 1 2; 3 4 3 4]
    @test repeat(M, inner = (1, 1), outer = (2, 2)) == [1 2 1 2; 3 4 3 4; 1 2 1 2; 3 4 3 4]
    @test repeat(M, inner = (2, 1), outer = (1, 1)) == [1 2; 1 2; 3 4; 3 4]
    @test repeat(M, inner = (2, 1), outer = (2, 1)) == [1 2; 1 2; 3 4; 3 4; 1 2; 1 2; 3 4; 3 4]
    @test repeat(M, inner = (2, 1), outer = (1, 2)) == [1 2 1 2; 1 2 1 2; 3 4 3 4; 3 4 3 4]
    @test repeat(M, inner = (2, 1), outer = (2, 2)) ==
        [1 2 1 2; 1 2 1 2; 3 4 3 4; 3 4 3 4; 1 2 1 2; 1 2 1 2; 3 4 3 4; 3 4 3 4]
    @test repeat(M, inner = (1, 2), outer = (1, 1)) == [1 1 2 2; 3 3 4 4]
    @test repeat(M, inner = (1, 2), outer = (2, 1)) == [1 1 2 2; 3 3 4 4; 1 1 2 2; 3 3 4 4]
    @test repeat(M, inner = (1, 2), outer = (1, 2)) == [1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4]
    @test repeat(M, inner = (1, 2), outer = (2, 2)) ==
        [1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4; 1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4]
    @test repeat(M, inner = (2, 2), outer = [1, 1]) == [1 1 2 2; 1 1 2 2; 3 3 4 4; 3 3 4 4]
    @test repeat(M, inner = (2, 2), outer = (2, 1)) ==
        [1 1 2 2; 1 1 2 2; 3 3 4 4; 3 3 4 4; 1 1 2 2; 1 1 2 2; 3 3 4 4; 3 3 4 4]
    @test repeat(M, inner = (2, 2), outer = (1, 2)) ==
        [1 1 2 2 1 1 2 2; 1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4; 3 3 4 4 3 3 4 4]
    @test repeat(M, inner = (2, 2), outer = (2, 2)) ==
        [1 1 2 2 1 1 2 2; 1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4; 3 3 4 4 3 3 4 4;
         1 1 2 2 1 1 2 2; 1 1 2 2 1 1 2 2; 3 3 4 4 3 3 4 4; 3 3 4 4 3 3 4 4]
    @test_throws ArgumentError repeat(M, inner=2, outer=(2, 2))
    @test_throws ArgumentError repeat(M, inner=(2, 2), outer=2)
    @test_throws ArgumentError repeat(M, inner=(2,), outer=(2, 2))
    @test_throws ArgumentError repeat(M, inner=(2, 2), outer=(2,))

    A = reshape(1:8, 2, 2, 2)
    R = repeat(A, inner = (1, 1, 2), outer = (1, 1, 1))
    T = reshape([1:4; 1:4; 5:8; 5:8], 2, 2, 4)
    @test R == T
    A = Array{Int}(undef, 2, 2, 2)
    A[:, :, 1] = [1 2; 3 4]
    A[:, :, 2] = [5 6; 7 8]
    R = repeat(A, inner = (2, 2, 2), outer = (2, 2, 2))
    @test R[1, 1, 1] == 1
    @test R[2, 2, 2] == 1
    @test R[3, 3, 3] == 8
    @test R[4, 4, 4] == 8
    @test R[5, 5, 5] == 1
    @test R[6, 6, 6] == 1
    @test R[7, 7, 7] == 8
    @test R[8, 8, 8] == 8

    @test repeat(1:2) == [1, 2]
    @test repeat(1:2, inner=1) == [1, 2]
    @test repeat(1:2, inner=2) == [1, 1, 2, 2]
    @test repeat(1:2, outer=1) == [1, 2]
    @test repeat(1:2, outer=2) == [1, 2, 1, 2]
    @test repeat(1:2, inner=(3,), outer=(2,)) == [1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2]

    # arrays of arrays
    @test repeat([[1], [2]], inner=2) == [[1], [1], [2], [2]]
    @test repeat([[1], [2]], outer=2) == [[1], [2], [1], [2]]
    @test repeat([[1], [2]], inner=2, outer=2) == [[1], [1], [2], [2], [1], [1], [2], [2]]

    @test size(repeat([1], inner=(0,))) == (0,)
    @test size(repeat([1], outer=(0,))) == (0,)
    @test size(repeat([1 1], inner=(0, 1))) == (0, 2)
    @test size(repeat([1 1], outer=(1, 0))) == (1, 0)
    @test size(repeat([1 1], inner=(2, 0), outer=(2, 1))) == (4, 0)
    @test size(repeat([1 1], inner=(2, 0), outer=(0, 1))) == (0, 0)

    A = rand(4, 4)
    for s in Any[A[1:2:4, 1:2:4], view(A, 1:2:4, 1:2:4)]
        cs = cumsum(s, dims=1)
        @test cs[1, 1] == A[1, 1]
        @test cs[2, 1] == A[1, 1] + A[3, 1]
        @test cs[1, 2] == A[1, 3]
        @test cs[2, 2] == A[1, 3] + A[3, 3]

        cs = cumsum(s, dims=2)
        @test cs[1, 1] == A[1, 1]
        @test cs[2, 1] == A[3, 1]
        @test cs[1, 2] == A[1, 1] + A[1, 3]
        @test cs[2, 2] == A[3, 1] + A[3, 3]
    end

    @test repeat(BitMatrix(Matrix(I, 2, 2)), inner = (2, 1), outer = (1, 2)) ==
          repeat(Matrix(I, 2, 2), inner = (2, 1), outer = (1, 2))
end

@testset "indexing with bools" begin
    @test (1:5)[[true, false, true, false, true]] == [1, 3, 5]
    @test [1:5;][[true, false, true, false, true]] == [1, 3, 5]
    @test_throws BoundsError (1:5)[[true, false, true, false]]
    @test_throws BoundsError (1:5)[[true, false, true, false, true, false]]
    @test_throws BoundsError [1:5;][[true, false, true, false]]
    @test_throws BoundsError [1:5;][[true, false, true, false, true, false]]
    v = [1:5;]
    v[[true, false, true, false, true]] .= 6
    @test v == [6, 2, 6, 4, 6]
    v[[true, false, true, false, true]] = [7, 8, 9]
    @test v == [7, 2, 8, 4, 9]
    @test_throws DimensionMismatch (v[[true, false, true, false, true]] = [7, 8, 9, 10])
    G = reshape(1:15, 3, 5)
    @test G[[true, false, true], [false, false, true, true, false]] == [7 10; 9 12]
    @test_throws BoundsError G[[true, false], [false, false, true, true, false]]
    @test_throws BoundsError G[[true, false, true], [false, true, true, false]]
    @test_throws BoundsError G[[true, false, true, true], [false, false, true, true, false]]
    @test_throws BoundsError G[[true, false, true], [false, false, true, true, false, true]]
    F = fill(1, 3, 5)
    @test_throws DimensionMismatch F[2, [true, false, true, true, false]] = 2:5
    F[2, [true, false, true, true, false]] = 2:4
    @test F == [1 1 1 1 1; 2 1 3 4 1; 1 1 1 1 1]
    @test_throws DimensionMismatch F[[true, false, true], 5] = [19]
    @test_throws DimensionMismatch F[[true, false, true], 5] = 19:21
    F[[true, false, true], 5] .= 7
    @test F == [1 1 1 1 7; 2 1 3 4 1; 1 1 1 1 7]

    C3 = cat(1, 2, 3; dims=3)
    @test C3[:, :, [true, false, true]] == reshape([1, 3], 1, 1, 2)  # issue #5454
end

@testset "arrayops: cumsum of a row along dims=1 (#2342)" begin
    @test isequal(cumsum([1 2 3], dims=1), [1 2 3])
end

@testset "set-like operations" begin
    @test isequal(union([1, 2, 3], [4, 3, 4]), [1, 2, 3, 4])
    @test isequal(union(['e', 'c', 'a'], ['b', 'a', 'd']), ['e', 'c', 'a', 'b', 'd'])
    @test isequal(union([1, 2, 3], [4, 3], [5]), [1, 2, 3, 4, 5])
    @test isequal(union([1, 2, 3]), [1, 2, 3])
    @test isequal(union([1, 2, 3], Int64[]), Int64[1, 2, 3])
    @test isequal(union([1, 2, 3], Float64[]), Float64[1.0, 2, 3])
    @test isequal(union(Int64[], [1, 2, 3]), Int64[1, 2, 3])
    @test isequal(union(Int64[]), Int64[])
    @test isequal(intersect([1, 2, 3], [4, 3, 4]), [3])
    @test isequal(intersect(['e', 'c', 'a'], ['b', 'a', 'd']), ['a'])
    @test isequal(intersect([1, 2, 3], [3, 1], [2, 1, 3]), [1, 3])
    @test isequal(intersect([1, 2, 3]), [1, 2, 3])
    @test isequal(intersect([1, 2, 3], Int64[]), Int64[])
    @test isequal(intersect([1, 2, 3], Float64[]), Float64[])
    @test isequal(intersect(Int64[], [1, 2, 3]), Int64[])
    @test isequal(intersect(Int64[]), Int64[])
    @test isequal(setdiff([1, 2, 3, 4], [2, 5, 4]), [1, 3])
    @test isequal(setdiff([1, 2, 3, 4], [7, 8, 9]), [1, 2, 3, 4])
    @test isequal(setdiff([1, 2, 3, 4], Int64[]), Int64[1, 2, 3, 4])
    @test isequal(setdiff([1, 2, 3, 4], [1, 2, 3, 4, 5]), Int64[])
    @test isequal(symdiff([1, 2, 3], [4, 3, 4]), [1, 2])
    @test isequal(symdiff(['e', 'c', 'a'], ['b', 'a', 'd']), ['e', 'c', 'b', 'd'])
    @test isequal(symdiff([1, 2, 3], [4, 3], [5]), [1, 2, 4, 5])
    @test isequal(symdiff([1, 2, 3, 4, 5], [1, 2, 3], [3, 4]), [3, 5])
    @test isequal(symdiff([1, 2, 3]), [1, 2, 3])
    @test isequal(symdiff([1, 2, 3], Int64[]), Int64[1, 2, 3])
    @test isequal(symdiff([1, 2, 3], Float64[]), Float64[1.0, 2, 3])
    @test isequal(symdiff(Int64[], [1, 2, 3]), Int64[1, 2, 3])
    @test isequal(symdiff(Int64[]), Int64[])
    @testset "tuples" begin # Issue #25338
        @test union((1, 2), (3)) == [1, 2, 3]
        un = union((1, 0x2), [3])
        @test eltype(un) == Integer
        @test un == [1, 2, 3]
        @test intersect((1, 2), (3, 2)) == [2]
        @test setdiff((1, 2), (3, 2)) == [1]
        @test symdiff((1, 2), (3, 2)) == [1, 3]
    end
end

@testset "mapslices" begin
    local sq, b, c, m
    sq = rand(5, 5)
    bycol = mapslices(sort, sq, dims=[1])
    byrow = mapslices(sort, sq, dims=[2])
    for k = 1:5
        @test bycol[:, k] == sort(sq[:, k])
        @test vec(byrow[k, :]) == sort(vec(sq[k, :]))
    end

    # issue #3613
    b = mapslices(sum, fill(1., 2, 3, 4), dims=[1, 2])
    @test size(b) === (1, 1, 4)
    @test all(b .== 6)

    # issue #5141: empty dims maps over every element
    c1 = mapslices(s -> maximum(-s), sq, dims=[])
    @test c1 == -sq

    # elements other than numbers
    @test mapslices(prod, ["1" "2"; "3" "4"], dims=1) == ["13" "24"]
    @test mapslices(prod, ["1"], dims=1) == ["1"]

    # issue #5177
    c = fill(1, 2, 3, 4)
    m1 = mapslices(s -> fill(1, 2, 3), c, dims=[1, 2])
    m2 = mapslices(s -> fill(1, 2, 4), c, dims=[1, 3])
    m3 = mapslices(s -> fill(1, 3, 4), c, dims=[2, 3])
    @test size(m1) == size(m2) == size(m3) == size(c)

    n1 = mapslices(s -> fill(1, 6), c, dims=[1, 2])
    n2 = mapslices(s -> fill(1, 6), c, dims=[1, 3])
    n3 = mapslices(s -> fill(1, 6), c, dims=[2, 3])
    n1a = mapslices(s -> fill(1, 1, 6), c, dims=[1, 2])
    n2a = mapslices(s -> fill(1, 1, 6), c, dims=[1, 3])
    n3a = mapslices(s -> fill(1, 1, 6), c, dims=[2, 3])
    @test size(n1a) == (1, 6, 4) && size(n2a) == (1, 3, 6)  && size(n3a) == (2, 1, 6)
    @test size(n1) == (6, 1, 4) && size(n2) == (6, 3, 1)  && size(n3) == (2, 6, 1)

    # a mutating function does not change the input
    src = fill(1, 3, 4)
    m = mapslices(s -> fill!(s, 0), src, dims=2)
    @test m == zeros(3, 4)
    @test src == fill(1, 3, 4)

    # issue #18524
    m = mapslices(s -> tuple(s), [1 2; 3 4], dims=1)
    @test m[1, 1] == ([1, 3],)
    @test m[1, 2] == ([2, 4],)

    # (issue #21123, mapslices(nnz, sparse(...)), left out: SparseArrays)
end

@testset "single multidimensional index" begin
    sq = rand(6, 6)
    idx = [1 4 5; 4 2 6; 5 6 3]
    picked = sq[idx]
    @test size(picked) == size(idx)
    for k = 1:length(picked)
        @test picked[k] == sq[idx[k]]
    end
    v = [1, 3, 5]
    rowidx = [1 3]
    v[rowidx] .= 8
    @test v == [8, 3, 8]
end

@testset "assigning an array into itself and other aliasing issues" begin
    v = [1, 3, 5]
    perm = [3, 1, 2]
    v[perm] = v
    @test v == [3, 5, 1]
    v = [3, 2, 1]
    v[v] = [4, 5, 6]
    @test v == [6, 5, 4]

    A = [1, 2, 3, 4]
    V = view(A, A)
    @test V == A
    V[1] = 2
    @test V == A == [2, 2, 3, 4]
    V[1] = 2^30
    @test V == A == [2^30, 2, 3, 4]

    A = [2, 1, 4, 3]
    V = view(A, :)
    A[V] = (1:4) .+ 2^30
    @test A == [2, 1, 4, 3] .+ 2^30

    A = [2, 1, 4, 3]
    R = reshape(view(A, :), 2, 2)
    A[R] = (1:4) .+ 2^30
    @test A == [2, 1, 4, 3] .+ 2^30

    A = [2, 1, 4, 3]
    R = reshape(A, 2, 2)
    A[R] = (1:4) .+ 2^30
    @test A == [2, 1, 4, 3] .+ 2^30

    # the same with broadcasting
    v = [1, 3, 5]
    perm = [3, 1, 2]
    v[perm] .= v
    @test v == [3, 5, 1]
    v = [3, 2, 1]
    v[v] .= [4, 5, 6]
    @test v == [6, 5, 4]

    A = [2, 1, 4, 3]
    V = view(A, :)
    A[V] .= (1:4) .+ 2^30
    @test A == [2, 1, 4, 3] .+ 2^30

    A = [2, 1, 4, 3]
    R = reshape(view(A, :), 2, 2)
    A[R] .= reshape((1:4) .+ 2^30, 2, 2)
    @test A == [2, 1, 4, 3] .+ 2^30

    A = [2, 1, 4, 3]
    R = reshape(A, 2, 2)
    A[R] .= reshape((1:4) .+ 2^30, 2, 2)
    @test A == [2, 1, 4, 3] .+ 2^30
end

# Left out: testset "Base.mightalias unit tests" (Base internal).

@testset "lexicographic comparison" begin
    @test cmp([1.0], [1]) == 0
    @test cmp([1], [1.0]) == 0
    @test cmp([1, 1], [1, 1]) == 0
    @test cmp([1, 1], [2, 1]) == -1
    @test cmp([2, 1], [1, 1]) == 1
    @test cmp([1, 1], [1, 2]) == -1
    @test cmp([1, 2], [1, 1]) == 1
    @test cmp([1], [1, 1]) == -1
    @test cmp([1, 1], [1]) == 1
end

@testset "sort on arrays" begin
    local sq = rand(3, 3)

    rows = sortslices(sq, dims=1)
    @test isless(rows[1, :], rows[2, :])
    @test isless(rows[2, :], rows[3, :])

    cols = sortslices(sq, dims=2)
    @test isless(cols[:, 1], cols[:, 2])
    @test isless(cols[:, 2], cols[:, 3])

    # a mutating function does not change the input
    src = fill(1, 3, 4)
    m = mapslices(s -> fill!(s, 0), src, dims=2)
    @test m == zeros(3, 4)
    @test src == fill(1, 3, 4)

    rows = sortslices(sq, dims=1, rev=true)
    @test isless(rows[2, :], rows[1, :])
    @test isless(rows[3, :], rows[2, :])

    cols = sortslices(sq, dims=2, rev=true)
    @test isless(cols[:, 2], cols[:, 1])
    @test isless(cols[:, 3], cols[:, 2])

    srt = sort(sq, dims=1)
    @test issorted(srt[:, 1])
    @test issorted(srt[:, 2])
    @test issorted(srt[:, 3])
    @test sort!(copy(sq), dims=1) == srt

    srt = sort(sq, dims=2)
    @test issorted(srt[1, :])
    @test issorted(srt[2, :])
    @test issorted(srt[3, :])
    @test sort!(copy(sq), dims=2) == srt

    local cube = rand(21, 21, 2)

    cs = sort(cube, dims=1)
    for k in 1:21
        @test issorted(cs[:, k, 1])
        @test issorted(cs[:, k, 2])
    end
    @test sort!(copy(cube), dims=1) == cs

    cs = sort(cube, dims=2)
    for k in 1:21
        @test issorted(cs[k, :, 1])
        @test issorted(cs[k, :, 2])
    end
    @test sort!(copy(cube), dims=2) == cs

    cs = sort(cube, dims=3)
    @test all(cs[:, :, 1] .<= cs[:, :, 2])
    @test sort!(copy(cube), dims=3) == cs
end

@testset "higher dimensional sortslices" begin
    H = permutedims(reshape([4 3; 2 1; 'A' 'B'; 'C' 'D'], (2, 2, 2)), (1, 3, 2))
    @test sortslices(H, dims=(1, 2)) ==
        permutedims(reshape([1 3; 2 4; 'D' 'B'; 'C' 'A'], (2, 2, 2)), (1, 3, 2))
    @test sortslices(H, dims=(2, 1)) ==
        permutedims(reshape([1 2; 3 4; 'D' 'C'; 'B' 'A'], (2, 2, 2)), (1, 3, 2))
    K = reshape(1:8, (2, 2, 2))
    @test sortslices(K, dims=(3, 1))[:, :, 1] == [1 3; 5 7]
    @test sortslices(K, dims=(1, 3)) == K
end

@testset "fill" begin
    @test fill!(Float64[1.0], -0.0)[1] === -0.0
    F = fill(1., 3, 3)
    S = view(F, 2, 1:3)
    fill!(S, 2)
    S = view(F, 1:2, 3)
    fill!(S, 3)
    @test F == [1 1 3; 2 2 3; 1 1 1]
    # (Base.return_types check left out: inference)
    U = Vector{Union{UInt8,Int8}}(undef, 3)
    fill!(U, UInt8(3))
    @test U == [0x03, 0x03, 0x03]
    # the same array in every slot (#9964)
    VV = Array{Vector{Float64}}(undef, 2)
    fill!(VV, [1, 2])
    @test VV[1] == [1, 2]
    @test VV[1] === VV[2]
    # byte arrays
    @test_throws InexactError fill!(UInt8[0], -1)
    @test_throws InexactError fill!(UInt8[0], 300)
    @test_throws InexactError fill!(Int8[0], 200)
    @test fill!(UInt8[0, 0], 200) == [200, 200]
    @test fill!(Int8[0, 0], -2) == [-2, -2]
end

@testset "splice!" begin
    for idx in Any[1, 2, 5, 9, 10, 1:0, 2:1, 1:1, 2:2, 1:2, 2:4, 9:8, 10:9, 9:9, 10:10,
                   8:9, 9:10, 6:9, 7:10]
        for repl in Any[[], [11], [11, 22], [11, 22, 33, 44, 55]]
            local v
            v = [1:10;]
            orig = copy(v)
            @test splice!(v, idx, repl) == orig[idx]
            @test v == [orig[1:(first(idx)-1)]; repl; orig[(last(idx)+1):end]]
        end
    end
end

@testset "filter!" begin
    # a Vector
    v = Vector(1:10)
    filter!(x -> x > 5, v)
    @test v == 6:10

    # another AbstractVector
    bits = rand(10) .> 0.5
    @test isa(bits, BitArray)
    filter!(x -> x, bits)
    @test all(bits)

    # an empty array
    nothing_here = []
    filter!(x -> x > 5, nothing_here)
    @test isempty(nothing_here)

    # (the OffsetArray cases left out: OffsetArrays)
end

@testset "deleteat!" begin
    for idx in Any[1, 2, 5, 9, 10, 1:0, 2:1, 1:1, 2:2, 1:2, 2:4, 9:8, 10:9, 9:9, 10:10,
                   8:9, 9:10, 6:9, 7:10]
        # integer indices as an AbstractArray
        v = [1:10;]; orig = copy(v)
        @test deleteat!(v, idx) == [orig[1:(first(idx)-1)]; orig[(last(idx)+1):end]]

        # integer indices as another iterable
        v = [1:10;]; orig = copy(v)
        @test deleteat!(v, (k for k in idx)) == [orig[1:(first(idx)-1)]; orig[(last(idx)+1):end]]

        # a logical mask
        v = [1:10;]; orig = copy(v)
        @test deleteat!(v, map(in(idx), 1:length(v))) == [orig[1:(first(idx)-1)]; orig[(last(idx)+1):end]]
    end
    v = [1:10;]
    @test deleteat!(v, 11:10) == [1:10;]
    @test deleteat!(v, [1, 3, 5, 7:10...]) == [2, 4, 6]
    @test_throws BoundsError deleteat!(v, 13)
    @test_throws BoundsError deleteat!(v, [1, 13])
    @test_throws ArgumentError deleteat!(v, [5, 3])
    @test_throws BoundsError deleteat!(v, 5:20)
    @test_throws BoundsError deleteat!(v, Bool[])
    @test_throws BoundsError deleteat!(v, [true])
    @test_throws BoundsError deleteat!(v, falses(11))

    @test_throws BoundsError deleteat!([], 1)
    @test_throws BoundsError deleteat!([], [1])
    @test_throws BoundsError deleteat!([], [2])
    @test deleteat!([], []) == []
    @test deleteat!([], Bool[]) == []
end

@testset "comprehensions" begin
    X = [ i + 2j for i = 1:5, j = 1:5 ]
    @test X[2, 3] == 8
    @test X[4, 5] == 14
    @test isequal(fill(3., 2, 2), [3. 3.; 3. 3.])
    # an element type that is a Union
    narrow_or_wide(x) = (x < 2) ? Int32(x) : Int64(x)
    build() = [ narrow_or_wide(k) for k = 1:2 ]
    let got = build()
        @test got[1] == 1 && got[2] == 2
    end
    @test isequal([1, 2, 3], [a for (a, b) in enumerate(2:4)])
    @test isequal([2, 3, 4], [b for (a, b) in enumerate(2:4)])

    @test [s for s in Union{String, Nothing}["a", nothing]] isa Vector{Union{String, Nothing}}
    @test [s for s in Union{String, Missing}["a", missing]] isa Vector{Union{String, Missing}}

    @testset "comprehension in let-bound function" begin
        @test_throws DomainError (10 .^ [-1])[1] == 0.1
        @test (10 .^ [-1.])[1] == 0.1

        let x⊙y = sum([x[k] * y[k] for k = 1:length(x)])
            @test [1, 2] ⊙ [3, 4] == 11
        end
    end
end

module Mod24002
s1() = 1
y = Int[i for i in 1:10]
end

@testset "arrayops: comprehension at module top level (#24002)" begin
    @test Mod24002.y == [1:10;]
    @test Mod24002.s1() == 1
end

@testset "pairs" begin
    A14 = [11 13; 12 14]
    @test [a for (a, b) in pairs(IndexLinear(),    A14)] == LinearIndices(axes(A14)) == [1 3; 2 4]
    @test [a for (a, b) in pairs(IndexCartesian(), A14)] == CartesianIndices(axes(A14)) == CartesianIndex.(1:2, reshape(1:2, 1, :))
    @test [b for (a, b) in pairs(IndexLinear(),    A14)] == A14
    @test [b for (a, b) in pairs(IndexCartesian(), A14)] == A14
end

@testset "reverse" begin
    @test reverse([2, 3, 1]) == [1, 3, 2]
    @test reverse([1:10;], 1, 4) == [4, 3, 2, 1, 5, 6, 7, 8, 9, 10]
    @test reverse([1:10;], 3, 6) == [1, 2, 6, 5, 4, 3, 7, 8, 9, 10]
    @test reverse([1:10;], 6, 10) == [1, 2, 3, 4, 5, 10, 9, 8, 7, 6]
    @test reverse(1:10, 1, 4) == [4, 3, 2, 1, 5, 6, 7, 8, 9, 10]
    @test reverse(1:10, 3, 6) == [1, 2, 6, 5, 4, 3, 7, 8, 9, 10]
    @test reverse(1:10, 6, 10) == [1, 2, 3, 4, 5, 10, 9, 8, 7, 6]
    @test reverse!([1:10;]) == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]
    @test reverse!([1:10;], 1, 4) == [4, 3, 2, 1, 5, 6, 7, 8, 9, 10]
    @test reverse!([1:10;], 3, 6) == [1, 2, 6, 5, 4, 3, 7, 8, 9, 10]
    @test reverse!([1:10;], 6, 10) == [1, 2, 3, 4, 5, 10, 9, 8, 7, 6]
    @test reverse!([1:10;], 11) == [1:10;]
    @test_throws BoundsError reverse!([1:10;], 1, 11)
    @test reverse!(Any[]) == Any[]
end

@testset "reverse dim" begin
    @test isequal(reverse([2, 3, 1], dims=1), [1, 3, 2])
    @test_throws ArgumentError reverse([2, 3, 1], dims=2)
    @test isequal(reverse([2 3 1], dims=1), [2 3 1])
    @test isequal(reverse([2 3 1], dims=2), [1 3 2])
    @test_throws ArgumentError reverse([2, 3, 1], dims=-1)
    @test isequal(reverse(1:10, dims=1), 10:-1:1)
    @test_throws ArgumentError reverse(1:10, dims=2)
    @test_throws ArgumentError reverse(1:10, dims=-1)
    @test isequal(reverse(Matrix{Int}(undef, 0, 0), dims=1), Matrix{Int}(undef, 0, 0))  # issue #5872

    rect = rand(5, 3)
    @test reverse(reverse(rect, dims=2), dims=2) == rect
    @test_throws ArgumentError reverse(rect, dims=3)
    @test reverse(["a" "b"; "c" "d"], dims = 2) == ["b" "a"; "d" "c"]
end

@testset "isdiag, istril, istriu" begin
    @test isdiag(3)
    @test istril(4)
    @test istriu(5)
    @test !isdiag([1 2; 3 4])
    @test !istril([1 2; 3 4])
    @test !istriu([1 2; 3 4])
    @test isdiag([1 0; 0 4])
    @test istril([1 0; 3 4])
    @test istriu([1 2; 0 4])
end

@testset "arrayops: cumsum and cumprod of a vector of matrices (#4228)" begin
    let mats = [[k k; k k] for k = 1:2]
        @test cumsum(mats) == Any[[1 1; 1 1], [3 3; 3 3]]
        @test cumprod(mats) == Any[[1 1; 1 1], [4 4; 4 4]]
    end
end

@testset "prepend/append" begin
    # PR #4627
    v = [1, 2]
    @test append!(v, v) == [1, 2, 1, 2]
    @test prepend!(v, v) == [1, 2, 1, 2, 1, 2, 1, 2]

    # iterators with a length
    @test append!([1, 2], (9, 8)) == [1, 2, 9, 8] == push!([1, 2], (9, 8)...)
    @test prepend!([1, 2], (9, 8)) == [9, 8, 1, 2] == pushfirst!([1, 2], (9, 8)...)
    @test append!([1, 2], ()) == [1, 2] == prepend!([1, 2], ())
    # iterators without a length
    evens = (k for k = 1:10 if iseven(k))
    @test append!([1, 2], evens) == [1, 2, 2, 4, 6, 8, 10] == push!([1, 2], evens...)
    @test prepend!([1, 2], evens) == [2, 4, 6, 8, 10, 1, 2] == pushfirst!([1, 2], evens...)
    evens = (k for k = 1:2:10 if iseven(k)) # empty
    @test append!([1, 2], evens) == [1, 2] == push!([1, 2], evens...)
    @test prepend!([1, 2], evens) == [1, 2] == pushfirst!([1, 2], evens...)

    # (the OffsetArray cases left out: OffsetArrays)
end

@testset "arrayops: append! of a Set" begin
    let v = [1, 2]
        st = Set([1, 2, 3])
        @test sort(append!(v, st)) == [1, 1, 2, 2, 3]
    end
end

@testset "cases where shared arrays can/can't be grown" begin
    M = [1 3; 2 4]
    flat = reshape(M, 4)
    @test push!(flat, 5) == [1, 2, 3, 4, 5]
    @test pop!(flat) == 5
    row = reshape(flat, 1, 4)
    @test_throws MethodError push!(row, 5)

    P = [NaN]; Q = [NaN]
    @test !(P == P)
    @test isequal(P, P)
    @test P === P
    @test !(P == Q)
    @test isequal(P, Q)
    @test P !== Q
end

# Left out: the loop of Base.return_types checks for getindex/setindex! (inference).

@testset "arrayops: dot of pushed vector (#6645), adjoint of empty (#6977, #6996), map join (#6541)" begin
    let w = Float64[]
        for k = 1:5
            push!(w, 1.0)
        end
        @test dot(zeros(5), w) == 0.0
    end
    @test size([]') == (1, 0)
    @test copy(adjoint(Any[ 1 2; 3 4 ])) == copy(transpose(Any[ 1 2; 3 4 ]))
    @test map(join, ["z", "я"]) == ["z", "я"]
end

@testset "arrayops: block matrices" begin
    let B = [randn(2, 2) for i = 1:2, j = 1:2]
        @test issymmetric(B'B)
    end
    let B = [complex.(randn(2, 2), randn(2, 2)) for i = 1:2, j = 1:2]
        @test ishermitian(B'B)
    end
end

# Left out: issue #7197 (Base._ind2sub, Base internal).

@testset "arrayops: indexin (#8622)" begin
    @test indexin([1, 3, 5, 7], [5, 4, 3]) == [nothing, 3, 1, nothing]
    @test indexin([1 3; 5 7], [5 4; 3 2]) == [nothing CartesianIndex(2, 1); CartesianIndex(1, 1) nothing]
    @test indexin((2 * x + 1 for x in 0:3), [5, 4, 3, 5, 6]) == [nothing, 3, 1, nothing]
    @test indexin(6, [1, 3, 6, 6, 2]) == fill(3, ())
    @test indexin([6], [1, 3, 6, 6, 2]) == [3]
    @test indexin([3], 2:5) == [2]
    @test indexin([3.0], 2:5) == [2]
end

@testset "arrayops: size of given dimensions (#6828, #18459)" begin
    let v10 = Array{Float64}(undef, 10)
        @test size(v10) == (10,)
        @test size(v10, 1) == 10
        @test (size(v10, 2), size(v10, 1)) == (1, 10)
        m23 = Array{Float64}(undef, 2, 3)
        @test size(m23) == (2, 3)
        @test (size(m23, 4), size(m23, 3), size(m23, 2), size(m23, 1)) == (1, 1, 3, 2)
        a9 = Array{Float64}(undef, 9, 8, 7, 6, 5, 4, 3, 2, 1)
        @test size(a9, 1) == 9
        @test size(a9, 4) == 6
        @test size(a9) == (9, 8, 7, 6, 5, 4, 3, 2, 1)

        # Array{T,N} constructors
        w10 = Vector{Float64}(undef, 10)
        @test size(v10) == size(w10)
        n23 = Matrix{Float64}(undef, 2, 3)
        @test size(m23) == size(n23)
        b9 = Array{Float64,9}(undef, 9, 8, 7, 6, 5, 4, 3, 2, 1)
        @test size(a9) == size(b9)
    end
end

# Left out: the Base.@nexprs check (Base.Cartesian macro internals).

@testset "Multidimensional iterators" begin
    for arr in ([1:5;], reshape([2]))
        n = 0
        for I in eachindex(arr)
            n += 1
        end
        @test n == length(arr)
        n = 0
        for el in arr
            n += 1
        end
        @test n == length(arr)
    end
end

function itersum(A)
    s = 0.0
    for a in A
        s += a
    end
    s
end

function indexsum(A)
    s = 0.0
    @inbounds for I in eachindex(A)
        s += A[I]
    end
    s
end

@testset "linear indexing" begin
    v = [1:5;]
    @test isa(Base.IndexStyle(v), Base.IndexLinear)
    vv = view(v, :)
    @test isa(Base.IndexStyle(vv), Base.IndexLinear)
    @test isa(Base.IndexStyle(trues(2)), Base.IndexLinear)
    @test isa(Base.IndexStyle(BitArray{2}), Base.IndexLinear)
    padded = fill(99, 10)
    padded[1:2:9] = v
    shp = [5]
    for k = 1:10
        A = reshape(v, tuple(shp...))
        @test itersum(A) == 15
        @test indexsum(A) == 15
        AA = reshape(padded, tuple(2, shp...))
        B = view(AA, 1:1, ntuple(i -> Colon(), k)...)
        @test isa(Base.IndexStyle(B), Base.IteratorsMD.IndexCartesian)
        @test itersum(B) == 15
        @test indexsum(B) == 15
        pushfirst!(shp, 1)
    end

    v = [1:10;]
    shp = [2, 5]
    for k = 2:10
        A = reshape(v, tuple(shp...))
        @test itersum(A) == 55
        @test indexsum(A) == 55
        B = view(A, ntuple(i -> Colon(), k)...)
        @test itersum(B) == 55
        @test indexsum(B) == 55
        insert!(shp, 2, 1)
    end

    z = reshape([2])
    @test itersum(z) == 2
    @test indexsum(z) == 2

    e = Matrix{Float64}(undef, 0, 5)
    ev = view(e, :, :)
    @test itersum(ev) == 0
    e = Matrix{Float64}(undef, 5, 0)
    ev = view(e, :, :)
    @test itersum(ev) == 0
end

@testset "CartesianIndex" begin
    for a in (copy(reshape(1:60, 3, 4, 5)),
              view(copy(reshape(1:60, 3, 4, 5)), 1:3, :, :),
              view(copy(reshape(1:60, 3, 4, 5)), CartesianIndex.(1:3, (1:4)'), :),
              view(copy(reshape(1:60, 3, 4, 5)), :, CartesianIndex.(1:4, (1:5)')))
        @test a[CartesianIndex{3}(2, 3, 4)] == 44
        a[CartesianIndex{3}(2, 3, 3)] = -1
        @test a[CartesianIndex{3}(2, 3, 3)] == -1
        @test a[2, CartesianIndex{2}(3, 4)] == 44
        a[1, CartesianIndex{2}(3, 4)] = -2
        @test a[1, CartesianIndex{2}(3, 4)] == -2
        @test a[CartesianIndex{1}(2), 3, CartesianIndex{1}(4)] == 44
        a[CartesianIndex{1}(2), 3, CartesianIndex{1}(3)] = -3
        @test a[CartesianIndex{1}(2), 3, CartesianIndex{1}(3)] == -3

        @test a[:, :, CartesianIndex((1,))] == (@view a[:, :, CartesianIndex((1,))]) == a[:, :, 1]
        @test a[CartesianIndex((1,)), [1, 2], :] == (@view a[CartesianIndex((1,)), [1, 2], :]) == a[1, [1, 2], :]
        @test a[CartesianIndex((2,)), 3:4, :] == (@view a[CartesianIndex((2,)), 3:4, :]) == a[2, 3:4, :]
        @test a[[CartesianIndex(1, 3), CartesianIndex(2, 4)], 3:3] ==
              (@view a[[CartesianIndex(1, 3), CartesianIndex(2, 4)], 3:3]) == reshape([a[1, 3, 3]; a[2, 4, 3]], 2, 1)

        @test a[[CartesianIndex()], :, :, :] == (@view a[[CartesianIndex()], :, :, :]) == reshape(a, 1, 3, 4, 5)
        @test a[:, [CartesianIndex()], :, :] == (@view a[:, [CartesianIndex()], :, :]) == reshape(a, 3, 1, 4, 5)
        @test a[:, :, [CartesianIndex()], :] == (@view a[:, :, [CartesianIndex()], :]) == reshape(a, 3, 4, 1, 5)
        @test a[:, :, :, [CartesianIndex()]] == (@view a[:, :, :, [CartesianIndex()]]) == reshape(a, 3, 4, 5, 1)
        a2 = reshape(a, Val(2))
        @test a2[[CartesianIndex()], :, :]   == (@view a2[[CartesianIndex()], :, :])   == reshape(a, 1, 3, 20)
        @test a2[:, [CartesianIndex()], :]   == (@view a2[:, [CartesianIndex()], :])   == reshape(a, 3, 1, 20)
        @test a2[:, :, [CartesianIndex()]]   == (@view a2[:, :, [CartesianIndex()]])   == reshape(a, 3, 20, 1)
        a1 = reshape(a, Val(1))
        @test a1[[CartesianIndex()], :]      == (@view a1[[CartesianIndex()], :])      == reshape(a, 1, 60)
        @test a1[:, [CartesianIndex()]]      == (@view a1[:, [CartesianIndex()]])      == reshape(a, 60, 1)

        @test_throws BoundsError a[[CartesianIndex(1, 5), CartesianIndex(2, 4)], 3:3]
        @test_throws BoundsError a[1:4, [CartesianIndex(1, 3), CartesianIndex(2, 4)]]
        @test_throws BoundsError @view a[[CartesianIndex(1, 5), CartesianIndex(2, 4)], 3:3]
        @test_throws BoundsError @view a[1:4, [CartesianIndex(1, 3), CartesianIndex(2, 4)]]
    end

    for a in (view(zeros(3, 4, 5), :, :, :),
              view(zeros(3, 4, 5), 1:3, :, :))
        a[CartesianIndex{3}(2, 3, 3)] = -1
        @test a[CartesianIndex{3}(2, 3, 3)] == -1
        a[1, CartesianIndex{2}(3, 4)] = -2
        @test a[1, CartesianIndex{2}(3, 4)] == -2
        a[CartesianIndex{1}(2), 3, CartesianIndex{1}(3)] = -3
        @test a[CartesianIndex{1}(2), 3, CartesianIndex{1}(3)] == -3
        a[[CartesianIndex(1, 3), CartesianIndex(2, 4)], 3:3] .= -4
        @test a[1, 3, 3] == -4
        @test a[2, 4, 3] == -4
    end

    I1 = CartesianIndex((2, 3, 0))
    I2 = CartesianIndex((-1, 5, 2))
    @test -I1 == CartesianIndex((-2, -3, 0))
    @test I1 + I2 == CartesianIndex((1, 8, 2))
    @test I2 + I1 == CartesianIndex((1, 8, 2))
    @test I1 - I2 == CartesianIndex((3, -2, -2))
    @test I2 - I1 == CartesianIndex((-3, 2, 2))
    @test I1 + 1 * oneunit(I1) == CartesianIndex((3, 4, 1))
    @test I1 - 2 * oneunit(I1) == CartesianIndex((0, 1, -2))

    @test zero(CartesianIndex{2}) == CartesianIndex((0, 0))
    @test zero(CartesianIndex((2, 3))) == CartesianIndex((0, 0))
    @test oneunit(CartesianIndex{2}) == CartesianIndex((1, 1))
    @test oneunit(CartesianIndex((2, 3))) == CartesianIndex((1, 1))

    @test min(CartesianIndex((2, 3)), CartesianIndex((5, 2))) == CartesianIndex((2, 2))
    @test max(CartesianIndex((2, 3)), CartesianIndex((5, 2))) == CartesianIndex((5, 3))

    @test Tuple(I1) == (2, 3, 0)

    # constructing at a given dimensionality
    @test length(CartesianIndex{3}()) == 3
    @test length(CartesianIndex{3}(1, 2)) == 3
    @test length(CartesianIndex{3}((1, 2))) == 3
    @test length(CartesianIndex{3}(1, 2, 3)) == 3
    @test length(CartesianIndex{3}((1, 2, 3))) == 3
    @test_throws ArgumentError CartesianIndex{3}(1, 2, 3, 4)
    @test_throws ArgumentError CartesianIndex{3}((1, 2, 3, 4))

    @test length(I1) == 3

    @test isless(CartesianIndex((1, 1)), CartesianIndex((2, 1)))
    @test isless(CartesianIndex((1, 1)), CartesianIndex((1, 2)))
    @test isless(CartesianIndex((2, 1)), CartesianIndex((1, 2)))
    @test !isless(CartesianIndex((1, 2)), CartesianIndex((2, 1)))

    # (the spzeros block left out: SparseArrays)
    @test 2 * CartesianIndex{3}(1, 2, 3) == CartesianIndex{3}(2, 4, 6)
    @test CartesianIndex{3}(1, 2, 3) * 2 == CartesianIndex{3}(2, 4, 6)
    @test_throws ErrorException iterate(CartesianIndex{3}(1, 2, 3))
    @test CartesianIndices(CartesianIndex{3}(1, 2, 3)) == CartesianIndices((1, 2, 3))
    @test Tuple{}(CartesianIndices{0,Tuple{}}(())) == ()

    R = CartesianIndices(map(Base.IdentityUnitRange, (2:5, 3:5)))
    @test eltype(R) <: CartesianIndex{2}
    @test eltype(typeof(R)) <: CartesianIndex{2}
    @test eltype(CartesianIndices{2}) <: CartesianIndex{2}
    allidx = collect(R)
    @test allidx[1] == CartesianIndex{2}(2, 3)
    @test allidx[2] == CartesianIndex{2}(3, 3)
    @test allidx[4] == CartesianIndex{2}(5, 3)
    @test allidx[5] == CartesianIndex{2}(2, 4)
    @test allidx[12] == CartesianIndex{2}(5, 5)
    @test length(allidx) == 12
    @test length(R) == 12
    @test ndims(R) == 2
    @test in(CartesianIndex((2, 3)), R)
    @test in(CartesianIndex((3, 3)), R)
    @test in(CartesianIndex((3, 5)), R)
    @test in(CartesianIndex((5, 5)), R)
    @test !in(CartesianIndex((1, 3)), R)
    @test !in(CartesianIndex((3, 2)), R)
    @test !in(CartesianIndex((3, 6)), R)
    @test !in(CartesianIndex((6, 5)), R)

    @test convert(NTuple{2,UnitRange}, R) === (2:5, 3:5)
    @test convert(Tuple{Vararg{UnitRange}}, R) === (2:5, 3:5)

    lo = CartesianIndex(2, 3)
    hi = CartesianIndex(5, 4)
    @test lo:hi === CartesianIndices((2:5, 3:4))
end

@testset "arrayops: hash of a CartesianIndex differs from its tuple's" begin
    # (the Base.IteratorsMD.cartindexhash_seed check left out: Base internal)
    @test hash(CartesianIndex(1, 2)) != hash((1, 2))
end

@testset "itr, iterate" begin
    rng = 2:3
    itr = eachindex(rng)
    st = iterate(itr)
    @test st !== nothing
    st = iterate(itr, st[2])
    @test st !== nothing
    val, _ = st
    st = iterate(itr, st[2])
    @test st === nothing
    @test rng[val] == 3
    # (the sparse(2:3:8) half left out: SparseArrays)
end

@testset "arrayops: iterating CartesianIndices, empty or not" begin
    CI = CartesianIndices((1, 3))
    @test iterate(CI) !== nothing
    CI = CartesianIndices((0, 3))
    @test iterate(CI) === nothing
    CI = CartesianIndices((3, 0))
    @test iterate(CI) === nothing
end

@testset "multi-array eachindex" begin
    local p = zeros(2, 2)
    local q = view(zeros(3, 2), 1:2, :)
    @test eachindex(Base.IndexCartesian(), p, q) == CartesianIndices((2, 2))
    @test eachindex(Base.IndexLinear(), p, q) == 1:4
    @test eachindex(p, q) == CartesianIndices((2, 2))
    @test eachindex(p, p) == 1:4
    @test_throws DimensionMismatch eachindex(p, rand(3, 3))
    @test_throws DimensionMismatch eachindex(q, rand(3, 3))
end
