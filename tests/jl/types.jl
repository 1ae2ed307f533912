# Parametric, mutable and keyword structs, abstract types, `where`, Vararg and splatting.
using Test

struct Bar{T}
    a::T
end
mutable struct Counter
    n::Int
end
Base.@kwdef struct Config
    lr::Float64 = 0.1
    epochs::Int = 10
    name::String = "run"
end
Base.@kwdef struct Req
    a::Int
    b::Int = a + 1
end
abstract type Animal end
abstract type Pet <: Animal end
struct Dog <: Pet
    name::String
end
struct Fish <: Animal end
sound(a::Animal) = "..."
sound(d::Dog) = "woof"
kind(p::Pet) = "pet"
kind(a::Animal) = "animal"
const LIMIT = 3
payload(b::Bar{T}) where T = T
makezeros(x::T, n) where {T<:Real} = zeros(T, n)
eltype_of(v::Vector{T}) where T = T
firsttwo(xs::AbstractArray{T}) where {T<:Number} = T[xs[1], xs[2]]
nargs(xs...) = length(xs)
total(a, rest...) = a + sum(rest)
typed_sum(xs::Int...) = sum(xs)

# Union types, and a struct whose field type names the struct itself
describe(x::Union{Nothing,Int}) = x === nothing ? "none" : "int"
describe(x) = "other"
twice(x::Union{Float64,Float32}) = 2x
struct Link
    val::Int
    next::Union{Link,Nothing}
end
chainlength(l::Nothing) = 0
chainlength(l::Link) = 1 + chainlength(l.next)

# keyword varargs
kwinner(x; a=1, b=2) = x + a + b
kwforward(x; kw...) = kwinner(x; kw...)
kwcollect(; kws...) = kws
kwmixed(x; scale=1.0, rest...) = (scale * x, length(rest), keys(rest))

# `global` declarations: in a top-level loop and inside functions
gsum = 0
for i in 1:3
    global gsum += i
end
gcount = 0
function gbump!()
    global gcount += 1
    return gcount
end
function gdefine()
    global gnew = 5
end
function gscale()
    global gcount
    gcount = gcount * 10
end

# inner constructors and `new`
struct Interval
    lo::Float64
    hi::Float64
    Interval(lo, hi) = lo <= hi ? new(lo, hi) : error("empty interval")
end
struct Pos{T}
    x::T
    function Pos{T}(x) where {T}
        x > 0 || throw(ArgumentError("not positive"))
        new{T}(x)
    end
end
Pos(x::T) where {T} = Pos{T}(x)
mutable struct Tally
    n::Int
    Tally() = new(0)
    Tally(n::Int) = new(n)
    Tally(s::String; scale=1) = new(length(s) * scale)
end
struct Pt2{T<:Real}
    x::T
    y::T
    Pt2{T}(x, y) where {T<:Real} = new(x, y)  # a plain `new` builds a Pt2{T}
end
Pt2(x::T, y::T) where {T<:Real} = Pt2{T}(x, y)
Pt2(x::Real, y::Real) = Pt2(float(x), float(y))
struct Scaled
    v::Vector{Float64}
    function Scaled(v::Vector{<:Real}; by = 1.0)
        w = [by * x for x in v]
        new(w)
    end
end
struct Wrapped
    x
    Wrapped(x) = new(x)
    Wrapped(x, y) = new(x + y)
end
area(i::Interval) = i.hi - i.lo

# type parameters given by a bound: `Vector{<:Real}`
sumreal(xs::Vector{<:Real}) = sum(xs)
sumreal(xs) = "not real"
floaty(xs::AbstractArray{<:AbstractFloat}) = "float"
floaty(xs::AbstractArray) = "other"
nkeys(d::Dict{String, <:Any}) = length(d)
bothreal(a::Vector{<:Real}, b::Vector{<:Real}) = length(a) + length(b)
struct Holder
    xs::Vector{<:Real}
end

@testset "types" begin
    @testset "parametric structs" begin
        b = Bar{Float64}(1)
        @test b.a === 1.0
        @test typeof(b) == Bar{Float64}
        @test typeof(Bar(2)) == Bar{Int64}
        @test Bar("s") isa Bar{String}
        @test Bar(2) isa Bar
        @test payload(Bar(2.5f0)) == Float32
    end
    @testset "mutable struct" begin
        c = Counter(0)
        for i in 1:3
            c.n += i
        end
        @test c.n == 6
        @test_throws ErrorException (Bar(1).a = 2)
    end
    @testset "kwdef" begin
        @test Config().lr == 0.1
        c = Config(epochs=3)
        @test c.epochs == 3 && c.name == "run"
        @test Req(a=1).b == 2
        @test_throws UndefKeywordError Req(b=1)
    end
    @testset "abstract types and dispatch" begin
        @test sound(Dog("rex")) == "woof"
        @test sound(Fish()) == "..."
        @test kind(Dog("a")) == "pet"
        @test kind(Fish()) == "animal"
        @test Dog <: Animal
        @test !(Fish <: Pet)
        @test Dog("x") isa Animal
    end
    @testset "const and where" begin
        @test LIMIT == 3
        z = makezeros(1.0f0, 2)
        @test eltype(z) == Float32 && length(z) == 2
        @test eltype_of([1, 2]) == Int64
        @test firsttwo([1.5, 2.5, 3.5]) == [1.5, 2.5]
        @test_throws MethodError makezeros("a", 2)
    end
    @testset "varargs and splatting" begin
        @test nargs() == 0
        @test nargs(1, 2, 3) == 3
        t = (1, 2, 3)
        @test nargs(t...) == 3
        @test total(1, 2, 3) == 6
        @test total([10, 20]...) == 30
        @test typed_sum(1, 2) == 3
        @test max([4, 9, 2]...) == 9
        @test [t..., 4] == [1, 2, 3, 4]
    end
    @testset "keyword varargs" begin
        @test kwforward(1) == 4
        @test kwforward(1; b=10) == 12
        @test kwforward(1; a=0, b=0) == 1
        @test kwcollect(a=1, b="x") == (a = 1, b = "x")
        @test kwcollect() == NamedTuple()
        @test kwmixed(2.0; scale=3.0, c=1, d=2) == (6.0, 2, (:c, :d))
        @test kwmixed(2.0) == (2.0, 0, ())
        @test [k for (k, v) in pairs(kwcollect(p=1, q=2))] == [:p, :q]
        @test_throws MethodError kwforward(1; c=3)
        @test NamedTuple([:a => 1, :b => 2]) == (a = 1, b = 2)
        @test NamedTuple{(:x, :y)}((1, 2.0)) == (x = 1, y = 2.0)
    end
    @testset "global declarations" begin
        @test gsum == 6
        gbump!(); gbump!()
        @test gcount == 2
        gdefine()
        @test gnew == 5
        gscale()
        @test gcount == 20
    end
    @testset "Union" begin
        @test describe(nothing) == "none"
        @test describe(3) == "int"
        @test describe(2.5) == "other"
        @test twice(1.5) === 3.0
        @test twice(1.5f0) === 3.0f0
        @test_throws MethodError twice(1)
        @test 1 isa Union{Int,String} && "a" isa Union{Int,String}
        @test !(1.0 isa Union{Int,String})
        @test Int <: Union{Int,Nothing}
        @test !(Union{Int,Nothing} <: Int)
        @test Union{Int,Nothing} <: Union{Int,Nothing,String}
        @test Union{Int} === Int
        @test Union{Int,Nothing} == Union{Nothing,Int}
        @test Union{Int,Union{Float64,Int}} == Union{Int,Float64}
        @test string(Union{Int,Float64}) == "Union{Int64, Float64}"
        @test string(Union{}) == "Union{}"
        @test Union{} <: Int
        @test chainlength(Link(1, Link(2, Link(3, nothing)))) == 3
        @test Link(1, nothing).next === nothing
    end
    @testset "inner constructors" begin
        i = Interval(1, 2)
        @test i.lo === 1.0 && i.hi === 2.0
        @test area(Interval(0.5, 2.0)) == 1.5
        @test_throws ErrorException Interval(3.0, 2.0)
        @test_throws MethodError Interval(1.0, 2.0, 3.0)
        @test_throws MethodError Interval(1.0)
        p = Pos(2.5)
        @test p isa Pos{Float64} && p.x == 2.5
        q = Pos{Float64}(3)
        @test q isa Pos{Float64} && q.x === 3.0
        @test Pos(2) isa Pos{Int64}
        @test_throws ArgumentError Pos(-1)
        @test_throws ArgumentError Pos{Float64}(0)
        c = Tally()
        c.n += 2
        @test c.n == 2
        @test Tally(5).n == 5
        @test Tally("abc"; scale=2).n == 6
        @test Tally("ab").n == 2
        @test_throws MethodError Tally(1.5)
        @test Pt2(1, 2.5) isa Pt2{Float64}
        @test Pt2(1, 2) isa Pt2{Int64}
        @test Pt2{Float64}(1, 2).y === 2.0
        @test Scaled([1, 2]).v == [1.0, 2.0]
        @test Scaled([1.0, 2.0]; by = 3).v == [3.0, 6.0]
        @test_throws MethodError Scaled(["a"])
        @test Wrapped(1).x == 1 && Wrapped(1, 2).x == 3
        try
            Interval(2.0, 1.0)
        catch e
            @test e.msg == "empty interval"
        end
        @test gradient(x -> Interval(x, 2x).hi, 1.0) == (2.0,)
        @test gradient(x -> Pos{Float64}(x).x * Pos(x).x, 3.0) == (6.0,)
        @test gradient(x -> Tally(3).n * x, 2.0) == (3.0,)
    end
    @testset "bounded type parameters" begin
        @test sumreal([1.0, 2.0]) == 3.0
        @test sumreal([1, 2]) == 3
        @test sumreal(["a"]) == "not real"
        @test floaty([1.0]) == "float"
        @test floaty(Float32[1]) == "float"
        @test floaty([1]) == "other"
        @test nkeys(Dict("a" => 1, "b" => 2.0)) == 2
        @test_throws MethodError nkeys(Dict(1 => 2))
        @test bothreal([1.0], [1, 2]) == 3
        @test [1.0] isa Vector{<:Real}
        @test [1] isa AbstractVector{<:Integer}
        @test !([1] isa AbstractArray{<:AbstractFloat})
        @test !(["a"] isa Vector{<:Real})
        @test Dict("a" => 1) isa Dict{String, <:Any}
        @test Vector{Float64} <: Vector{<:Real}
        @test !(Vector{String} <: Vector{<:Real})
        @test string(Vector{<:Real}) == "Vector{<:Real}"
        @test Holder([1, 2]).xs == [1, 2]
    end
    @testset "(a; b) blocks" begin
        x = (println("hi"); 3)
        @test x == 3
        v = (a = 1; b = 2; a + b)
        @test v == 3
        @test a == 1 && b == 2
        y = (z = 4; z * 2;)
        @test y == 8
        @test (1;) == 1
        nt = (; a, b)
        @test nt == (a = 1, b = 2)
        @test (; a = 5) == (a = 5,)
        f(v) = (w = 2v; w + 1)
        @test f(1) == 3
    end
    @testset "operators called by name" begin
        @test *(2, 3) == 6
        xs = [2, 3, 4]
        y = *(xs...)
        @test y == 24
        t = (1, 2)
        @test +(t...) == 3
        @test -(5, 2) == 3
        z = /(6, 3)
        @test z == 2.0
        @test (*)(2, 3) == 6
    end
end
