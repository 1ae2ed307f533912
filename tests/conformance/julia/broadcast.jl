# Facts from JuliaLang/julia test/broadcast.jl (ported for Zyla's conformance suite).
# Upstream version: commit 6cb0a42f7f640d79e56b14a0da101123b241fd13 (a Julia 1.5-era file).
using Test, Random

# Left out: module TestBroadcastInternals (Base.Broadcast internals `_bcs`, `combine_axes`,
# `check_broadcast_axes`, `check_broadcast_shape`, `newindex`).

# A strided view holding the same values as `x`: `x` is copied onto the even positions of a
# parent twice as large in every dimension.
function stridedcopy(x::AbstractVector)
    parentarr = similar(x, eltype(x), tuple(([size(x)...] * 2)...))
    v = view(parentarr, 2:2:length(parentarr))
    v[:] = x[:]
    v
end
function stridedcopy(x::AbstractMatrix)
    parentarr = similar(x, eltype(x), tuple(([size(x)...] * 2)...))
    v = view(parentarr, 2:2:size(parentarr, 1), 2:2:size(parentarr, 2))
    for c = 1:size(x, 2)
        for r = 1:size(x, 1)
            v[r, c] = x[r, c]
        end
    end
    v
end
function stridedcopy(x::AbstractArray{T,3}) where T
    parentarr = similar(x, eltype(x), tuple(([size(x)...] * 2)...))
    v = view(parentarr, 2:2:size(parentarr, 1), 2:2:size(parentarr, 2), 2:2:size(parentarr, 3))
    for p = 1:size(x, 3)
        for c = 1:size(x, 2)
            for r = 1:size(x, 1)
                v[r, c, p] = x[r, c, p]
            end
        end
    end
    v
end

# the dotted call and `BitArray(broadcast(...))` must agree
samebits(f::Function, args...) = (@test f.(args...) == BitArray(broadcast(f, args...)))

@testset "broadcast: broadcast, broadcast! and dotted operators on arrays and strided views" begin
    for wrap in (identity, stridedcopy)
        @test broadcast(+, wrap([1 0; 0 1]), wrap([1, 4])) == [2 1; 4 5]
        @test broadcast(+, wrap([1 0; 0 1]), wrap([1  4])) == [2 4; 1 5]
        @test broadcast(+, wrap([1  0]), wrap([1, 4])) == [2 1; 5 4]
        @test broadcast(+, wrap([1, 0]), wrap([1  4])) == [2 5; 1 4]
        @test broadcast(+, wrap([1, 0]), wrap([1, 4])) == [2, 4]
        @test broadcast(+, wrap([1, 0]), 2) == [3, 2]

        @test broadcast(+, wrap([1 0; 0 1]), wrap([1, 4])) == wrap([2 1; 4 5])
        @test wrap([1 0; 0 1]) .+ wrap([1  4]) == wrap([2 4; 1 5])
        @test wrap([1  0]) .+ wrap([1, 4]) == wrap([2 1; 5 4])
        @test wrap([1, 0]) .+ wrap([1  4]) == wrap([2 5; 1 4])
        @test wrap([1, 0]) .+ wrap([1, 4]) == wrap([2, 4])
        @test wrap([1]) .+ wrap([]) == wrap([])

        B = wrap([1 0; 0 1]); @test broadcast!(+, B, B, wrap([1, 4])) == wrap([2 1; 4 5])
        B = wrap([1 0; 0 1]); @test broadcast!(+, B, B, wrap([1  4])) == wrap([2 4; 1 5])
        B = wrap([1  0]); @test_throws DimensionMismatch broadcast!(+, B, B, wrap([1, 4]))
        B = wrap([1  0]); @test broadcast!(+, B, B, wrap([1  4])) == wrap([2 4])
        B = wrap([1  0]); @test broadcast!(+, B, B, 2) == wrap([3 2])

        @test wrap([1 2]) .* wrap([3, 4]) == [3 6; 4 8]
        @test wrap([24.0 12.0]) ./ wrap([2.0, 3.0]) == [12 6; 8 4]
        @test wrap([1 2]) ./ wrap([3, 4]) == [1/3 2/3; 1/4 2/4]
        @test wrap([1 2]) .\ wrap([3, 4]) == [3 1.5; 4 2]
        @test wrap([3 4]) .^ wrap([1, 2]) == [3 4; 9 16]
        @test wrap(BitArray([true false])) .* wrap(BitArray([true, true])) == [true false; true false]
        @test wrap(BitArray([true false])) .^ wrap(BitArray([false, true])) == [true true; true false]
        @test wrap(BitArray([true false])) .^ wrap([0, 3]) == [true true; true false]
    end
end

@testset "broadcast: getindex. and setindex!. with a Ref-like tuple argument" begin
    for wrap in (identity, stridedcopy)
        M = wrap([11 12; 21 22])
        @test getindex.((M,), [2 1; 1 2], wrap([1, 2])) == [21 11; 12 22]
        @test_throws BoundsError getindex.((M,), [2 1; 1 2], wrap([1, -1]))
        @test_throws BoundsError getindex.((M,), [2 1; 1 2], wrap([1, 2]), [2])
        @test getindex.((M,), [2 1; 1 2], wrap([2, 1]), [1]) == [22 12; 11 21]

        B = wrap(zeros(2, 2))
        setindex!.((B,), wrap([21 11; 12 22]), [2 1; 1 2], wrap([1, 2]))
        @test B == M
        setindex!.((B,), 5, [1, 2], [2 2])
        @test B == [11 5; 21 5]
        setindex!.((B,), 7, [1, 2], [1 2])
        @test B == fill(7, 2, 2)
        B = wrap(zeros(3, 3))
        setindex!.((B,), 10:12, 1:3, 1:3)
        @test B == [10 0 0; 0 11 0; 0 0 12]
        @test_throws BoundsError setindex!.((B,), 7, [1, -1], [1 2])
    end
end

@testset "broadcast: elementwise comparisons agree with BitArray(broadcast(...))" begin
    d1, d2, d3 = 21, 32, 17
    vals = 1:5
    for wrap in (identity, stridedcopy)
        for op in ((==), (<), (!=), (<=))
            samebits(op, wrap([1 0; 0 1]), wrap([1, 4]))
            samebits(op, wrap([1 0; 0 1]), wrap([1  4]))
            samebits(op, wrap([0, 1]), wrap([1  4]))
            samebits(op, wrap([0  1]), wrap([1, 4]))
            samebits(op, wrap([1, 0]), wrap([1, 4]))
            samebits(op, wrap(rand(vals, d1, d2, d3)), wrap(rand(vals, d1, d2, d3)))
            samebits(op, wrap(rand(vals,  1, d2, d3)), wrap(rand(vals, d1,  1, d3)))
            samebits(op, wrap(rand(vals,  1, d2,  1)), wrap(rand(vals, d1,  1, d3)))
            samebits(op, wrap(bitrand(d1, d2, d3)), wrap(bitrand(d1, d2, d3)))
        end
    end
end

@testset "broadcast: ranges and row vectors" begin
    one1 = 1:1
    five = 1:5
    recips = [1, 1/2, 1/3, 1/4, 1/5]
    @test one1 .* five == [1:5;]
    @test one1 ./ five == recips
    row = [1:2;]'
    @test row .* five == [1:5 2:2:10]
    @test row ./ five ≈ [recips 2recips]
    @test row ./ [five;] ≈ [recips 2recips]
    # (@inferred and Base.return_types checks left out: inference)
    @test broadcast(+, [0, 1.2], reshape([0, -2], 1, 1, 2)) == reshape([0 -2; 1.2 -0.8], 2, 1, 2)
end

@testset "broadcast: f.(args...) syntax (#15032)" begin
    let xs = [1, 3.2, 4.7], ys = [3.5, pi, 1e-4], s = 0.2342
        @test sin.(xs) == broadcast(sin, xs)
        @test sin.(s) == broadcast(sin, s)
        @test sin.(3.2) == broadcast(sin, 3.2) == sin(3.2)
        @test factorial.(3) == broadcast(factorial, 3)
        @test atan.(xs, ys) == broadcast(atan, xs, ys)
        @test atan.(xs, ys') == broadcast(atan, xs, ys')
        @test atan.(xs, s) == broadcast(atan, xs, s)
        @test atan.(s, ys') == broadcast(atan, s, ys')
    end
end

@testset "broadcast: eltype of abstract-eltype arrays divided by a scalar (#14725, #16164)" begin
    let q = Number[2, 2.0, 4//2, 2+0im] / 2
        @test eltype(q) == Number
    end
    let q = Real[2, 2.0, 4//2] / 2
        @test eltype(q) == Real
    end
    let q = Real[2, 2.0, 4//2] / 2.0
        @test eltype(q) == Float64
    end
    let q = broadcast(Float32, [3, 4, 5])
        @test eltype(q) == Float32
    end
end

@testset "broadcast: scalars" begin
    @test sin.(1) === broadcast(sin, 1) === sin(1)
    @test (() -> 1234).() === broadcast(() -> 1234) === 1234
end

@testset "broadcast: result container and element types (#4883)" begin
    @test isa(broadcast(tuple, [1 2 3], ["a", "b", "c"]), Matrix{Tuple{Int,String}})
    @test isa(broadcast((p, q) -> (p == 1 ? 1.0 : p, q), [1 2 3], ["a", "b", "c"]), Matrix{Tuple{Real,String}})
    let lens = length.(["foo", "bar"])
        @test isa(lens, Vector{Int})
        @test lens == [3, 3]
    end
    let sines = sin.([1, 2])
        @test isa(sines, Vector{Float64})
        @test sines ≈ [0.8414709848078965, 0.9092974268256817]
    end
end

@testset "broadcast: loop fusion (#17300)" begin
    @test (v -> v + 1).((v -> v + 2).((v -> v + 3).(1:10))) == 7:16
    let M = [sqrt(i) + j for i = 1:3, j = 1:4]
        @test atan.(log.(M), sum(M, dims=1)) == broadcast(atan, broadcast(log, M), sum(M, dims=1))
    end
    let z = sin.(1:10)
        @test atan.((v -> v + 1).(z), (v -> v + 2).(z)) == broadcast(atan, z .+ 1, z .+ 2)
        @test sin.(atan.([z .+ 1, z .+ 2]...)) == sin.(atan.(z .+ 1, z .+ 2)) == @. sin(atan(z + 1, z + 2))
        @test sin.(atan.(z, 3.7)) == broadcast(v -> sin(atan(v, 3.7)), z)
        @test atan.(z, 3.7) == broadcast(v -> atan(v, 3.7), z) == broadcast(atan, z, 3.7)
    end
    # side effects show the order of the fused calls
    let seen = Int[]
        rec(v) = begin; push!(seen, v); v + 2; end
        rec.(rec.(rec.(1:3)))
        @test seen == [1, 3, 5, 2, 4, 6, 3, 5, 7]
        empty!(seen)
        @. rec(rec(rec(1:3)))
        @test seen == [1, 3, 5, 2, 4, 6, 3, 5, 7]
    end
end

@testset "broadcast: fusion with splatted arguments" begin
    let z = sin.(1:10), wrapped = [z]
        @test cos.(z) == cos.(wrapped...)
        @test atan.(z, z) == atan.(wrapped..., wrapped...) == atan.([z, z]...)
        @test atan.(z, cos.(z)) == atan.(wrapped..., cos.(z)) == broadcast(atan, z, cos.(wrapped...)) == broadcast(atan, wrapped..., cos.(wrapped...))
        @test ((rest...) -> cos(rest[1])).(z) == cos.(z) == ((first, rest...) -> cos(first)).(z)
    end
    @test atan.(3, 4) == atan(3, 4) == (() -> atan(3, 4)).()
end

@testset "broadcast: fusion with keyword arguments" begin
    let v = [1:4;]
        addkw(a; y=0) = a + y
        @test addkw.(v) == v
        @test addkw.(v, y=1) == addkw.(v; y=1) == addkw.(v; [(:y, 1)]...) == v .+ 1 == [2, 3, 4, 5]
        @test addkw.(sin.(v), y=1) == addkw.(sin.(v); y=1) == sin.(v) .+ 1
        @test sin.(addkw.(v, y=1)) == sin.(addkw.(v; y=1)) == sin.(v .+ 1)
    end
end

@testset "broadcast: dotted unary operator in a comprehension (#23236)" begin
    let flags = [[true, false], [false, true]]
        @test [.!f for f in flags] == [[false, true], [true, false]]
    end
end

@testset "broadcast: the @. macro" begin
    # $ escapes a call from being dotted
    let v = [4, -9, 1, -16]
        @test [2, 3, 4, 5] == @.(1 + sqrt($sort(abs(v))))
    end
    # with let
    @test [1, 4, 9] == @. let w = [1, 2, 3]; w^2; end
    # with a for loop: the assignment becomes y .= y.^2
    let base = [1, 2, 3], alias = base
        @. for k = 1:3
            alias = alias^2
        end
        @test base == [1, 256, 6561]
    end
    # with a function definition
    let v = [1, 2, 3]
        @. sq(w) = w^2
        @test sq(v) == [1, 4, 9]
    end
end

@testset "broadcast: @. with chained comparisons (#23622)" begin
    let v = [1, 2, 3]
        @test (1 .< v .< 3) == @.(1 < v < 3) == (@. 1 .< v .< 3) == [false, true, false]
        @test (v .=== 1:3 .=== [1, 2, 3]) == @.(v === 1:3 === [1, 2, 3]) == [true, true, true]
    end
end

@testset "broadcast: fused in-place assignment (#17510)" begin
    let orig = [1:4;], ref = orig
        ref .= 2:5
        @test ref === orig == [2:5;]
        ref .= factorial.(orig)
        @test ref === orig == [2, 6, 24, 120]
        ref .= 7
        @test ref === orig == [7, 7, 7, 7]
        ref .= factorial.(3)
        @test ref === orig == [6, 6, 6, 6]
        nine() = 9
        ref .= nine.()
        @test ref === orig == [9, 9, 9, 9]
        ref .-= 1
        @test ref === orig == [8, 8, 8, 8]
        @. ref -= 1:4
        @test ref === orig == [7, 6, 5, 4]
        orig[1:2] .= 1
        @test ref === orig == [1, 1, 5, 4]
        @. orig[1:2] .+= [2, 3]
        @test ref === orig == [3, 4, 5, 4]
        @. orig[:] .= 0
        @test ref === orig == [0, 0, 0, 0]
        @. orig[2:end] = 1:3
        @test ref === orig == [0, 1, 2, 3]
    end
end

@testset "broadcast: .= into indexed containers" begin
    let nested = [[4, 5], [6, 7]]
        nested[1] .= 3
        @test nested == [[3, 3], [6, 7]]
    end
    let d = Dict(:foo => [1, 3, 7], (3, 4) => [5, 9])
        d[:foo] .+= 2
        @test d[:foo] == [3, 5, 9]
        d[3, 4] .-= 1
        @test d[3, 4] == [4, 8]
    end
    # a local named `identity` must not be what `.=` calls
    let identity = error, v = [1, 2, 3]
        v .= 1
        @test v == [1, 1, 1]
    end
end

# Left out: the Meta.lower checks that scalars are inlined into a thunk (lowering internals).

@testset "broadcast: fused binary operators (#17623)" begin
    @test [true] .* [true] == [true]
    @test [1, 2, 3] .|> (v -> v + 1) == [2, 3, 4]
    let trail = Int[], ⊕ = (a, b) -> let c = a + 2b; push!(trail, c); c; end
        @test [1, 2, 3] .⊕ [10, 11, 12] .⊕ [100, 200, 300] == [221, 424, 627]
        @test trail == [21, 221, 24, 424, 27, 627]   # order shows the fusion
    end
end

@testset "broadcast: fused unary operators" begin
    @test .√[3, 4, 5] == sqrt.([3, 4, 5])
    @test .![true, true, false] == [false, false, true]
    @test .-[1, 2, 3] == -[1, 2, 3] == .+[-1, -2, -3] == [-1, -2, -3]
end

@testset "broadcast: Bool promotes to Int under + (#16988)" begin
    # (Base.promote_op(+, Bool) === Int left out: Base internal)
    @test isa(broadcast(+, [true]), Array{Int,1})
end

@testset "broadcast: splatting a vector of vectors (#17304)" begin
    let vs = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
        @test max.(vs...) == broadcast(max, vs...) == [7, 8, 9]
    end
end

@testset "broadcast: result element type (#17314)" begin
    @test broadcast(v -> log(log(log(v))), [1000]) == [log(log(log(1000)))]
    let g = v -> v < 0 ? false : v
        @test eltype(broadcast(g, 1:3)) === Int
        @test eltype(broadcast(g, -1:1)) === Integer
        @test eltype(broadcast(g, Int[])) == Union{Bool,Int}
    end
    let buf = IOBuffer()
        broadcast(v -> print(buf, v), 1:5)
        @test take!(buf) == [0x31, 0x32, 0x33, 0x34, 0x35]
    end
end

@testset "broadcast: ranges with scalars (#18176)" begin
    let add3(a, b, c) = a + b + c
        @test add3.(1.0:2, 3, 4) == add3.(3.0, 1.0:2, 4.0) == broadcast(add3, 3, 4, 1.0:2)
    end
end

@testset "broadcast: empty Vector{Any} (#17984)" begin
    let empt = []
        @test isa(abs.(empt), Array{Any,1})
    end
end

@testset "broadcast: types, strings and tuples as arguments (#16966)" begin
    @test parse.(Int, "1") == 1
    @test parse.(Int, ["1", "2"]) == [1, 2]
    @test trunc.((Int,), [1.2, 3.4]) == [1, 3]
    @test abs.((1, -2)) == (1, 2)
    @test broadcast(+, 1.0, (0, -2.0)) == (1.0, -1.0)
    @test broadcast(+, 1.0, (0, -2.0), [1]) == [2.0, 0.0]
    @test broadcast(*, ["Hello"], ", ", ["World"], "!") == ["Hello, World!"]
    let str = "foo"
        @test str .* ["bar", "baz"] == ["foobar", "foobaz"] == "foo" .* ["bar", "baz"]
    end
end

struct OddCtor18623 end
OddCtor18623(a) = a
OddCtor18623(a, b) = (a, b)

@testset "broadcast: constructors that do not return their type (#18623)" begin
    @test broadcast(OddCtor18623, 1:3) == [1, 2, 3]
    @test broadcast(OddCtor18623, 1:3, 4:6) == [(1, 4), (2, 5), (3, 6)]
    @test typeof(Int.(Number[1, 2, 3])) === typeof((v -> Int(v)).(Number[1, 2, 3]))
    @test broadcast(CartesianIndex, 1:2) == [CartesianIndex(1), CartesianIndex(2)]
    @test broadcast(CartesianIndex, 1:2, 3:4) == [CartesianIndex(1, 3), CartesianIndex(2, 4)]
end

@testset "broadcast: muladd, tuple and round with a type (#18622, #19419)" begin
    @test broadcast(muladd, [1.0], [2.0], [3.0]) == [5.0]
    @test broadcast(tuple, 1:3, 4:6, 7:9) == [(1, 4, 7), (2, 5, 8), (3, 6, 9)]
    @test broadcast(round, Int, [1]) == [1]
end

@testset "broadcast: closure over a scalar argument" begin
    let
        addn(A, n) = broadcast(v -> +(v, n), A)
        @test addn([1.0], 1) == [2.0]
        # (Broadcast.combine_eltypes check left out: Base internal)
    end
end

@testset "broadcast: Ref as a 0-dimensional container" begin
    # ((-).(C_NULL, C_NULL) left out: pointers)
    @test (+).(1, Ref(2)) == 3
    @test (+).(Ref(1), Ref(2)) == 3
    @test (+).([[0, 2], [1, 3]], Ref{Vector{Int}}([1, -1])) == [[1, 1], [2, 2]]
end

@testset "broadcast: broadcast! calls f once per element (#12277, #19722, #19799)" begin
    # (the lambda bodies are parenthesised: Zyla does not parse `() -> n += 1`)
    @test let n = 1; out = broadcast!(() -> (n += 1), zeros(2)); out[1] != out[2]; end
    @test let n = 1; out = broadcast!(v -> (n += v), zeros(2), 1); out[1] != out[2]; end
end

# Left out: testset "broadcasting for custom AbstractArray" (custom BroadcastStyle /
# ArrayStyle precedence rules of AbstractArray subtypes: the broadcasting interface internals).

@testset "broadcast: only one container layer is peeled off" begin
    @test getindex.([Ref(1), Ref(2)]) == [1, 2]
    let buf = IOBuffer()
        broadcast(v -> print(buf, v), [Ref(1.0)])
        @test String(take!(buf)) == "Base.RefValue{Float64}(1.0)"
    end
end

# Left out: the Broadcast.combine_eltypes closure check (#19641, Base internal).

@testset "broadcast resulting in BitArray" begin
    let h(b) = b ? true : "false"
        bits = h.([true])
        @test bits isa BitArray
        @test bits == [true]
        strs = h.([false])
        @test strs isa Array{String}
        @test strs == ["false"]
        @test h.([true, false]) == [true, "false"]
    end
end

@testset "treat type arguments as scalars, DataArrays issue 229" begin
    # (Broadcast.combine_styles(Broadcast.broadcastable(AbstractArray)) check left out:
    # Base.Broadcast internal)
    @test broadcast(==, [1], AbstractArray) == BitArray([false])
    @test broadcast(==, 1, AbstractArray) == false
end

@testset "broadcasting falls back to iteration (issues #26421, #19577, #23746)" begin
    @test_throws ArgumentError broadcast(identity, Dict(1 => 2))
    @test_throws ArgumentError broadcast(identity, (a=1, b=2))
    @test_throws ArgumentError length.(Dict(1 => BitSet(1:2), 2 => BitSet(1:3)))
    @test_throws MethodError broadcast(identity, Base)

    @test broadcast(identity, Iterators.filter(iseven, 1:10)) == 2:2:10
    dk = Dict([1, 2] => 1.1, [3, 2] => 0.1)
    @test length.(keys(dk)) == [2, 2]
    @test Set(exp.(Set([1, 2, 3]))) == Set(exp.([1, 2, 3]))
end

@testset "broadcast: .= where source and destination shapes differ (#19895)" begin
    let n = 5
        @test iszero(fill(1, n, n) .= zeros(n, n))
        @test iszero(fill(1, n, n) .= zeros(n, 1))
        @test iszero(fill(1, n, n) .= zeros(1, n))
        @test iszero(fill(1, n, n) .= zeros(1, 1))
    end
end

@testset "test broadcast for matrix of matrices" begin
    blocks = fill([0 0; 0 0], 4, 4)
    blocks[1:3, 1:3] .= [[1 1; 1 1]]
    @test all(blocks[1:3, 1:3] .== [[1 1; 1 1]])
end

@testset "eltype confusion (#21325)" begin
    pick(c::Char, n::Int) = 0
    pick(s::String, n::Int) = "hello"
    @test broadcast(pick, "x", [1, 2, 3]) == ["hello", "hello", "hello"]

    @test isequal([Set([1]), Set([2])] .∪ Ref(Set([3])), [Set([1, 3]), Set([2, 3])])
end

# a minimal object that opts into broadcasting through axes/getindex/broadcastable
struct Wrap26601{T}
    inner::T
end
Base.axes(w::Wrap26601) = axes(w.inner)
Base.getindex(w::Wrap26601, i...) = getindex(w.inner, i...)
Base.ndims(::Type{Wrap26601{T}}) where {T} = ndims(T)
Base.Broadcast.broadcastable(w::Wrap26601) = w

@testset "barebones custom object broadcasting" begin
    for arr in (rand(Float64, ()), rand(5), rand(5, 5), rand(5, 5, 5))
        w = Wrap26601(arr)
        @test w .* 2 == arr .* 2
        @test w .* (1:5) == arr .* (1:5)
        @test w .* reshape(1:25, 5, 5) == arr .* reshape(1:25, 5, 5)
        @test sqrt.(w) == sqrt.(arr)
        @test w .* (1, 2, 3, 4, 5) == arr .* (1, 2, 3, 4, 5)
    end
end

@testset "broadcast resulting in tuples" begin
    let tup = (0, 1, 2), one_ = 1
        @test broadcast(+, tup, one_) == (1, 2, 3)
    end
    @test (1, 2, 3) .+ (1,) == (1,) .+ (1, 2, 3) == (2, 3, 4)
    @test (1,) .+ () == () .+ (1,) == () .+ () == ()
    @test (1, 2) .+ (1, 2) == (2, 4)
    @test_throws DimensionMismatch (1, 2) .+ (1, 2, 3)
end

@testset "broadcasted assignment from tuples and tuple styles (#33020)" begin
    dest = zeros(3)
    @test_throws DimensionMismatch dest .= (1, 2)
    @test_throws DimensionMismatch dest .= sqrt.((1, 2))
    dest .= (1,)
    @test all(==(1), dest)
    dest .= sqrt.((2,))
    @test all(==(√2), dest)
    dest = zeros(3, 2)
    @test_throws DimensionMismatch dest .= (1, 2)
    @test_throws DimensionMismatch dest .= sqrt.((1, 2))
    dest .= (1,)
    @test all(==(1), dest)
    dest .= sqrt.((2,))
    @test all(==(√2), dest)
    dest .= (1, 2, 3)
    @test dest == [1 1; 2 2; 3 3]
end

@testset "scalar .=" begin
    # Upstream (Julia 1.5) expected ErrorException for `.=` into a range; since Julia 1.8
    # setindex! on a range throws Base.CanonicalIndexError.
    mixed = [[1, 2, 3], 4:5, 6]
    mixed[1] .= 0
    @test mixed[1] == [0, 0, 0]
    @test_throws Base.CanonicalIndexError mixed[2] .= 0
    @test_throws MethodError mixed[3] .= 0
    mixed = [[1, 2, 3], 4:5]
    mixed[1] .= 0
    @test mixed[1] == [0, 0, 0]
    @test_throws Base.CanonicalIndexError mixed[2] .= 0
end

@testset "broadcast: convert.(Any, ...) (#22180) and ceil over tuples (#24944)" begin
    @test convert.(Any, [1, 2]) == [1, 2]
    let k = 1
        @test ceil.(Int, k ./ (1,)) == (1,)
        @test ceil.(Int, 1 ./ (1,)) == (1,)
    end
end

@testset "deprecated scalar-fill .=" begin
    ones10 = fill(1, 10)
    @test_throws ArgumentError ones10[1:5] = 0

    r = randn(10)
    @test_throws ArgumentError r[r .> 0.0] = 0.0
end

@testset "broadcast: many splats in one dotted call" begin
    let parts = [[1, 4], [2, 5], [3, 6]]
        total = .+(parts..., .*(parts..., parts...)..., parts[1]..., parts[2]..., parts[3]...)
        @test total == [14463, 14472]

        out = zeros(2)
        out .= .+(parts..., .*(parts..., parts...)..., parts[1]..., parts[2]..., parts[3]...)
        @test out == Float64[14463, 14472]
    end
end

@generated function dbl21094(dest, src)
    quote
        dest .= src .+ src
        dest
    end
end

@testset "broadcast: .= inside a generated function (#21094)" begin
    @test dbl21094([0.0], [1.0]) == [2.0]
end

# Left out: issue #22053 (a custom Broadcast.Style with its own copy method: broadcasting
# interface internals).

@testset "broadcast: .= of nothing and of a tuple into a matrix" begin
    let anys = Any[1, 2]
        anys .= nothing
        @test anys[1] == anys[2] == nothing
    end
    let M = zeros(2, 3)
        M .= (1, 2)
        @test M == [1 1 1; 2 2 2]
    end
end

# Left out: issue #27988 (Broadcast.cat_nested / Broadcast.flatten inference and isbits:
# Base.Broadcast internals).

@testset "broadcast: several splats in one fused call (#26127)" begin
    let mul(args...) = *(args...)
        a, b, c = (1, 2), 3, (4, 5)
        @test mul.(a..., b, c...) == broadcast(mul, a..., b, c...) == 120
        @test mul.(a..., mul.(a..., b, c...), b, c...) == broadcast(mul, a..., broadcast(mul, a..., b, c...), b, c...) == 120 * 120
    end
end

@testset "Issue #27911: Broadcasting over collections with big indices" begin
    @test iszero.(Int128(0):Int128(2)) == [true, false, false]
    @test iszero.((Int128(0):Int128(2)) .- 1) == [false, true, false]
    @test iszero.(big(0):big(2)) == [true, false, false]
    @test iszero.((big(0):big(2)) .- 1) == [false, true, false]
end

@testset "Issue #27775: Broadcast!ing over nested scalar operations" begin
    buf = zeros(2)
    buf .= 1 ./ (1 + 2)
    @test buf == [1/3, 1/3]
    buf .= 1 ./ (1 .+ 3)
    @test buf == [1/4, 1/4]
    buf .= sqrt.(1 ./ 2)
    @test buf == [sqrt(1/2), sqrt(1/2)]
    gen = MersenneTwister(1234)
    buf .= rand.((gen,))
    gen = MersenneTwister(1234)
    @test buf == [rand(gen), rand(gen)]
    @test buf[1] != buf[2]
    gen = MersenneTwister(1234)
    broadcast!(rand, buf, (gen,))
    gen = MersenneTwister(1234)
    @test buf == [rand(gen), rand(gen)]
    @test buf[1] != buf[2]
end

@testset "broadcast: the pair operator (#27446)" begin
    let names = ["foo", "bar"], vals = [1, 2]
        @test Dict(names .=> vals) == Dict("foo" => 1, "bar" => 2)
    end
end

@testset "broadcast: Broadcasted objects are iterable and indexable" begin
    bc = Broadcast.instantiate(Broadcast.broadcasted(+, zeros(5), 5))
    @test eachindex(bc) === Base.OneTo(5)
    @test length(bc) === 5
    @test ndims(bc) === 1
    @test ndims(typeof(bc)) === 1
    @test bc[1] === bc[CartesianIndex((1,))] === 5.0
    @test copy(bc) == [e for e in bc] == collect(bc)
    @test eltype(copy(bc)) == eltype([e for e in bc]) == eltype(collect(bc))
    @test ndims(copy(bc)) == ndims([e for e in bc]) == ndims(collect(bc)) == ndims(bc)

    bc = Broadcast.instantiate(Broadcast.broadcasted(+, zeros(5), 5 * ones(1, 4)))
    @test eachindex(bc) === CartesianIndices((Base.OneTo(5), Base.OneTo(4)))
    @test length(bc) === 20
    @test ndims(bc) === 2
    @test ndims(typeof(bc)) === 2
    @test bc[1, 1] == bc[CartesianIndex((1, 1))] === 5.0
    @test copy(bc) == [e for e in bc] == collect(bc)
    @test eltype(copy(bc)) == eltype([e for e in bc]) == eltype(collect(bc))
    @test ndims(copy(bc)) == ndims([e for e in bc]) == ndims(collect(bc)) == ndims(bc)
end

@testset "broadcast: .+= into a view and into repeated indices (#31295)" begin
    let one_ = [1]
        one_[[1, 1]] .+= 1
        @test one_ == [2]
    end
    let p = rand(5), q = rand(5), saved = copy(p)
        view(identity(p), 1:3) .+= view(q, 1:3)
        @test p == [(saved + q)[1:3]; saved[4:5]]
    end
end

@testset "broadcast: a Pair argument is treated as a scalar" begin
    @test replace.(split("The quick brown fox jumps over the lazy dog"), r"[aeiou]"i => "_") ==
          ["Th_", "q__ck", "br_wn", "f_x", "j_mps", "_v_r", "th_", "l_zy", "d_g"]
end

@testset "broadcast: scalars then a tuple (#28680)" begin
    @test 1 .+ 1 .+ (1, 2) == (3, 4)
end

# Left out: the @allocated check of PR #35260 (allocation counts) and the @macroexpand
# checks of @. with <: and >: (macro expansion internals).
