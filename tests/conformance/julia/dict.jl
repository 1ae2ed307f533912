# Facts from JuliaLang/julia test/dict.jl (ported for Zyla's conformance suite).
# (Read from a current mirror of the master branch of JuliaLang/julia.)

using Test
using Random

@testset "Pair" begin
    pr = Pair(10, 20)
    @test pr == (10 => 20)
    @test isequal(pr, 10 => 20)
    st1 = iterate(pr)
    @test st1[1] == 10
    @test iterate(pr, st1[2])[1] == 20
    @test iterate(pr, iterate(pr, st1[2])[2]) === nothing
    @test firstindex(pr) == 1
    @test lastindex(pr) == length(pr) == 2
    @test Base.indexed_iterate(pr, 1, nothing) == (10, 2)
    @test Base.indexed_iterate(pr, 2, nothing) == (20, 3)
    @test (1 => 2) < (2 => 3)
    @test (2 => 2) < (2 => 3)
    @test !((2 => 3) < (2 => 3))
    @test (2 => 3) < (4 => 3)
    @test (1 => 100) < (4 => 1)
    @test pr[1] == 10
    @test pr[2] == 20
    @test_throws BoundsError pr[3]
    @test_throws BoundsError pr[false]
    @test pr[true] == 10
    @test pr[2.0] == 20
    @test pr[0x01] == 10
    @test_throws InexactError pr[2.3]
    @test first(pr) == 10
    @test last(pr) == 20
    @test eltype(pr) == Int
    @test eltype(4 => 5.6) == Union{Int,Float64}
    @test vcat(1 => 2.0, 1.0 => 2) == [1.0 => 2.0, 1.0 => 2.0]
end

@testset "Dict" begin
    tbl = Dict()
    for k = 1:10000
        tbl[k] = k + 1
    end
    for k = 1:10000
        @test tbl[k] == k + 1
    end
    for k = 1:2:10000
        delete!(tbl, k)
    end
    for k = 1:2:10000
        tbl[k] = k + 1
    end
    for k = 1:10000
        @test tbl[k] == k + 1
    end
    for k = 1:10000
        delete!(tbl, k)
    end
    @test isempty(tbl)
    tbl[77] = 100
    @test tbl[77] == 100
    for k = 1:10000
        tbl[k] = k + 1
    end
    for k = 1:2:10000
        delete!(tbl, k)
    end
    for k = 10001:20000
        tbl[k] = k + 1
    end
    for k = 2:2:10000
        @test tbl[k] == k + 1
    end
    for k = 10000:20000
        @test tbl[k] == k + 1
    end
    tbl = Dict{Any,Any}("a" => 3)
    @test tbl["a"] == 3
    tbl["a", "b"] = 4
    @test tbl["a", "b"] == tbl[("a", "b")] == 4
    tbl["a", "b", "c"] = 4
    @test tbl["a", "b", "c"] == tbl[("a", "b", "c")] == 4

    @testset "eltype, keytype and valtype" begin
        @test eltype(tbl) == Pair{Any,Any}
        @test keytype(tbl) == Any
        @test valtype(tbl) == Any

        sf = Dict{AbstractString,Float64}()
        @test eltype(sf) == Pair{AbstractString,Float64}
        @test keytype(sf) == AbstractString
        @test valtype(sf) == Float64
        @test keytype(Dict{AbstractString,Float64}) === AbstractString
        @test valtype(Dict{AbstractString,Float64}) === Float64
    end
    # an error thrown while building is passed on
    @test_throws DomainError Dict((sqrt(q[1]), sqrt(q[2])) for q in zip(-1:2, -1:2))
end

@testset "dict.jl: keys after pop!, KeyError, comprehension over keys" begin
    let dd = Dict(3 => 3, 5 => 5, 8 => 8, 6 => 6)
        pop!(dd, 5)
        for key in keys(dd)
            Dict{Int,Int}(dd)
            @test key in [3, 8, 6]
        end
    end
    let empt = Dict()
        saw_keyerror = false
        try
            empt["a"]
        catch err
            saw_keyerror = isa(err, KeyError)
        end
        @test saw_keyerror
    end
    one_key = Dict("a" => 0)
    @test isa([k for k in filter(s -> length(s) == 1, collect(keys(one_key)))], Vector{String})
end

@testset "typeof" begin
    da = Dict(((1, 2), (3, 4)))
    @test da[1] === 2
    @test da[3] === 4
    db = Dict(1 => 2, 3 => 4)
    dc = Dict((1 => 2, 3 => 4))
    @test da == db == dc
    @test typeof(da) == typeof(db) == typeof(dc) == Dict{Int,Int}

    da = Dict(((1, 2), (3, "b")))
    @test da[1] === 2
    @test da[3] == "b"
    db = Dict(1 => 2, 3 => "b")
    dc = Dict((1 => 2, 3 => "b"))
    @test da == db == dc
    @test typeof(da) == typeof(db) == typeof(dc) == Dict{Int,Any}

    da = Dict(((1, 2), ("a", 4)))
    @test da[1] === 2
    @test da["a"] === 4
    db = Dict(1 => 2, "a" => 4)
    dc = Dict((1 => 2, "a" => 4))
    @test da == db == dc
    @test typeof(da) == typeof(db) == typeof(dc) == Dict{Any,Int}

    da = Dict(((1, 2), ("a", "b")))
    @test da[1] === 2
    @test da["a"] == "b"
    db = Dict(1 => 2, "a" => "b")
    dc = Dict((1 => 2, "a" => "b"))
    @test da == db == dc
    @test typeof(da) == typeof(db) == typeof(dc) == Dict{Any,Any}
end

@testset "dict.jl: first of a Dict" begin
    @test_throws ArgumentError first(Dict())
    @test first(Dict(:f => 2)) == (:f => 2)
end

@testset "constructing Dicts from iterators" begin
    gd = Dict(k => k for k = 1:3)
    @test isa(gd, Dict{Int,Int})
    @test gd == Dict(1 => 1, 2 => 2, 3 => 3)
    gd = Dict(k == 1 ? (1 => 2) : (2.0 => 3.0) for k = 1:2)
    @test isa(gd, Dict{Real,Real})
    @test gd == Dict{Real,Real}(2.0 => 3.0, 1 => 2)

    # issue #39117
    @test Dict(t[1] => t[2] for t in zip((1, "2"), (2, "2"))) == Dict{Any,Any}(1 => 2, "2" => "2")

    @testset "issue #33147" begin
        # upstream compares with the exception Base._throw_dict_kv_error() throws, an ArgumentError
        @test_throws ArgumentError Dict(k for k in 1:2)
        @test_throws ArgumentError Dict(nothing for k in 1:2)
        @test_throws ArgumentError Dict(() for k in 1:2)
        @test_throws ArgumentError Dict((k, k, k) for k in 1:2)
        @test_throws ArgumentError Dict(nothing)
        @test_throws ArgumentError Dict((1,))
        @test_throws ArgumentError Dict(1:2)
        @test_throws ArgumentError Dict(((),))
        @test_throws ArgumentError IdDict(((),))
        @test_throws ArgumentError IdDict(nothing)
        # (the WeakKeyDict lines are left out: WeakKeyDict is not ported)
        @test Dict(1:0) isa Dict
        @test Dict(()) isa Dict
        try
            Dict(k => error("$k") for k in 1:3)
        catch ex
            @test ex isa ErrorException
            # (the Base.current_exceptions() count, task-level exception stack, is left out)
        end
    end
end

@testset "empty tuple ctor" begin
    et = Dict(())
    @test length(et) == 0
end

@testset "type of Dict constructed from varargs of Pairs" begin
    @test Dict(1 => 1, 2 => 2.0) isa Dict{Int,Real}
    @test Dict(1 => 1, 2.0 => 2) isa Dict{Real,Int}
    @test Dict(1 => 1.0, 2.0 => 2) isa Dict{Real,Real}

    for S in (Nothing, Missing)
        @test Dict(1 => 1, 2 => S()) isa Dict{Int,Union{Int,S}}
        @test Dict(1 => S(), 2 => 2) isa Dict{Int,Union{Int,S}}
        @test Dict(1 => 1, S() => 2) isa Dict{Union{Int,S},Int}
        @test Dict(S() => 1, 2 => 2) isa Dict{Union{Int,S},Int}
    end
end

# left out: `Dict("a"=>2)[Base.secret_table_token]` (an internal sentinel of Dict's table)

@testset "issue #1821" begin
    sv = Dict{String,Vector{Int}}()
    sv["a"] = [1, 2]
    @test_throws MethodError sv["b"] = 1
    @test isa(repr(sv), AbstractString)
end

@testset "issue #2344" begin
    local pick
    choosekey(d, key) = key
    choosekey(d::AbstractDict{K,V}, key) where {K<:AbstractString,V} = string(key)
    pick(x) = choosekey(x, :y)
    @test pick(Dict(:x => [1, 2, 5])) === :y
    @test pick(Dict("x" => [1, 2, 5])) == "y"
end

mutable struct I1438T
    id
end
import Base.hash
hash(x::I1438T, h::UInt) = hash(x.id, h)

@testset "issue #1438" begin
    order = [26, 28, 29, 30, 31, 32, 33, 34, 35, 36, -32, -35, -34, -28, 37, 38, 39, 40, -30,
             -31, 41, 42, 43, 44, -33, -36, 45, 46, 47, 48, -37, -38, 49, 50, 51, 52, -46, -50, 53]
    objs = [I1438T(n) for n = 1:53]
    st = Set()
    for n in order
        if n > 0
            ob = objs[n]
            push!(st, ob)
            @test in(ob, st)
        else
            delete!(st, objs[-n])
        end
    end
end

@testset "equality" for same in (isequal, ==)
    @test same(Dict(), Dict())
    @test same(Dict(1 => 1), Dict(1 => 1))
    @test !same(Dict(1 => 1), Dict())
    @test !same(Dict(1 => 1), Dict(1 => 2))
    @test !same(Dict(1 => 1), Dict(2 => 1))

    rows = [(rand(1:1000), randstring(2)) for _ in 1:1001]

    first_d = Dict{Int,AbstractString}()
    for (k, v) in rows
        first_d[k] = v
    end
    rows = collect(first_d)
    for a in 1:length(rows)
        b = rand(1:length(rows))
        rows[a], rows[b] = rows[b], rows[a]
    end
    # the same pairs inserted in another order give an equal Dict
    second_d = Dict{Int,AbstractString}()
    for (k, v) in rows
        second_d[k] = v
    end

    @test same(first_d, second_d)
    third_d = copy(second_d)
    fourth_d = copy(second_d)
    delete!(first_d, rows[rand(1:length(rows))][1])
    @test !same(first_d, second_d)
    third_d[rows[rand(1:length(rows))][1]] = randstring(3)
    !same(first_d, third_d)
    fourth_d[1001] = randstring(3)
    @test !same(first_d, fourth_d)

    @test same(Dict(), sizehint!(Dict(), 96))

    # Dicts of different types
    @test !same(Dict(1 => 2), Dict("dog" => "bone"))
    @test same(Dict{Int,Int}(), Dict{AbstractString,AbstractString}())
end

@testset "sizehint!" begin
    sh = Dict()
    sizehint!(sh, UInt(3))
    @test sh == Dict()
    sizehint!(sh, 5)
    @test isempty(sh)
end

@testset "equality special cases" begin
    @test Dict(1 => 0.0) == Dict(1 => -0.0)
    @test !isequal(Dict(1 => 0.0), Dict(1 => -0.0))

    @test Dict(0.0 => 1) != Dict(-0.0 => 1)
    @test !isequal(Dict(0.0 => 1), Dict(-0.0 => 1))

    @test Dict(1 => NaN) != Dict(1 => NaN)
    @test isequal(Dict(1 => NaN), Dict(1 => NaN))

    @test Dict(NaN => 1) == Dict(NaN => 1)
    @test isequal(Dict(NaN => 1), Dict(NaN => 1))

    @test ismissing(Dict(1 => missing) == Dict(1 => missing))
    @test isequal(Dict(1 => missing), Dict(1 => missing))
    dm = Dict(1 => missing)
    @test ismissing(dm == dm)
    dm = Dict(1 => [missing])
    @test ismissing(dm == dm)
    dm = Dict(1 => NaN)
    @test dm != dm
    @test isequal(dm, dm)

    @test Dict(missing => 1) == Dict(missing => 1)
    @test isequal(Dict(missing => 1), Dict(missing => 1))
end

@testset "get!" begin
    sq(x) = x^2
    gd = Dict(8 => 19)
    @test get!(gd, 8, 5) == 19
    @test get!(gd, 19, 2) == 2

    @test get!(gd, 42) do
        sq(2)
    end == 4

    @test get!(gd, 42) do
        sq(200)
    end == 4

    @test get(gd, 13) do
        sq(4)
    end == 16

    @test gd == Dict(8 => 19, 19 => 2, 42 => 4)
end

@testset "getkey" begin
    gk = Dict(1 => 2, 3 => 6, 5 => 10)
    @test getkey(gk, 1, 7) == 1
    @test getkey(gk, 4, 6) == 6
    @test getkey(gk, "1", 8) == 8
end

@testset "show" begin
    for dd in (Dict("\n" => "\n", "1" => "\n", "\n" => "2"),
               Dict(string(k) => k for k = 1:30),
               Dict(reshape(1:k^2, k, k) => reshape(1:k^2, k, k) for k = 1:24),
               Dict(String(Char['α':'α'+k;]) => String(Char['α':'α'+k;]) for k = (1:10) * 10),
               Dict("key" => zeros(0, 0)))
        for ncols in (12, 40, 80), nrows in (2, 10, 24)
            buf = IOBuffer()
            ctx = Base.IOContext(buf, :limit => true, :displaysize => (nrows, ncols))
            Base.show(ctx, MIME("text/plain"), dd)
            lines = split(String(take!(buf)), '\n')
            for ln in lines[2:end]
                @test textwidth(ln) <= ncols
            end
            @test length(lines) <= nrows

            for fn in (keys, values)
                buf = IOBuffer()
                ctx = Base.IOContext(buf, :limit => true, :displaysize => (nrows, ncols))
                Base.show(ctx, MIME("text/plain"), fn(dd))
                lines = split(String(take!(buf)), '\n')
                for ln in lines[2:end]
                    @test textwidth(ln) <= ncols
                end
                @test length(lines) <= nrows
            end
        end
        Base.show(IOBuffer(), dd)
        @test !isempty(summary(dd))
        @test !isempty(summary(keys(dd)))
        @test !isempty(summary(values(dd)))
    end
    # an empty Dict
    buf = IOBuffer()
    de = Dict{Int,String}()
    show(buf, de)
    txt = String(take!(buf))
    @test txt == "Dict{$(Int), String}()"
    close(buf)
end

struct RainbowString
    s::String
    bold::Bool
    other::Bool
    valid::Bool
    offset::Int
end
RainbowString(s, bold=false, other=false, valid=true) = RainbowString(s, bold, other, valid, 0)

function Base.show(io::IO, rbs::RainbowString)
    for (i, ch) in enumerate(rbs.s)
        if i ≤ rbs.offset
            print(io, ch)
            continue
        end
        color = rbs.other ? string("\033[4", rand(1:7), 'm') : Base.text_colors[rand(0:255)]
        if rbs.bold
            printstyled(io, color, ch; bold=true)
        else
            print(io, color, ch)
        end
        if rbs.valid
            print(io, '\033', '[', rbs.other ? "0" : "39", 'm')
        end
    end
end

@testset "Display with colors" begin
    shown(d, rows, cols) = sprint(io -> show(io, MIME("text/plain"), d);
                                  context=(:displaysize => (rows, cols), :color => true, :limit => true))
    d1 = Dict([randstring(8) => [RainbowString(randstring(8)) for i in 1:10] for j in 1:5]...)
    ls = split(shown(d1, 30, 80), '\n')
    @test all(endswith("\033[0m…"), ls[2:end])
    @test all(x -> length(x) > 100, ls[2:end])

    s2 = shown(Dict(:foo => RainbowString("bar")), 30, 80)
    @test !occursin('…', s2)
    @test endswith(s2, "\033[0m")

    s3 = shown(Dict(:foo => RainbowString("bar", true)), 30, 80)
    @test !occursin('…', s3)
    @test endswith(s3, "\033[0m")

    s4 = shown(Dict(RainbowString(randstring(8), true) => nothing), 30, 20)
    @test endswith(s4, "\033[0m… => nothing")

    s5 = shown(Dict(RainbowString(randstring(30), false, true, false) => nothing), 30, 30)
    @test endswith(s5, "\033[0m… => nothing")

    d6 = Dict(randstring(8) => RainbowString(randstring(30), true, true, false) for _ in 1:3)
    ls6 = split(shown(d6, 30, 30), '\n')
    @test all(endswith("\033[0m…"), ls6[2:end])
    @test all(x -> length(x) > 100, ls6[2:end])
    ls6w = split(shown(d6, 30, 80), '\n')
    @test all(endswith("\033[0m"), ls6w[2:end])

    s7 = shown(Dict(randstring(8) => RainbowString(randstring(30))), 30, 20)
    l7 = split(s7, '\n')[2]
    @test endswith(l7, "\033[0m…")
    @test length(l7) > 100

    d8 = Dict(:x => RainbowString(randstring(10), false, false, false, 6))
    l8 = split(shown(d8, 30, 14), '\n')[2]
    @test !occursin("\033[", l8)
    @test length(l8) == 14
    l8w = split(shown(d8, 30, 16), '\n')[2]
    @test endswith(l8w, "\033[0m…")
    @test length(l8w) > 20

    s9 = shown(Dict(:x => RainbowString(repeat('苹', 5), false, true, false)), 30, 15)
    @test endswith(s9, "\033[0m…")
    @test count('苹', s9) == 3

    s10 = shown(Dict(:xy => RainbowString(repeat('苹', 5), false, true, false)), 30, 15)
    @test endswith(s10, "\033[0m…")
    @test count('苹', s10) == 2

    d11 = Dict(RainbowString("abcdefgh", false, true, false) => 0, "123456" => 1)
    _, la, lb = split(shown(d11, 30, 80), '\n')
    @test endswith(la, "h\033[0m => 0") || endswith(lb, "h\033[0m => 0")
    @test endswith(la, "6\" => 1") || endswith(lb, "6\" => 1")

    d12 = Dict(RainbowString(repeat(Char(48 + i), 4), (i & 1) == 1, (i & 2) == 2, (i & 4) == 4) => i for i in 1:8)
    @test !occursin('…', shown(d12, 30, 80))

    s13 = shown(Dict(RainbowString("foo\nbar") => 74), 30, 80)
    @test count('\n', s13) == 1
    @test occursin('…', s13)
end

@testset "Issue #15739" begin
    pp = Dict((1 => 2) => (3 => 45), (3 => 10) => (10 => 11))
    buf = IOBuffer()
    show(IOContext(buf, :compact => true), pp)
    out = String(take!(buf))
    @test occursin("Dict", out)
    @test occursin("(1=>2)=>(3=>45)", out)
    @test occursin("(3=>10)=>(10=>11)", out)
end

mutable struct Alpha end
Base.show(io::IO, ::Alpha) = print(io, "α")

@testset "issue #9463" begin
    buf = IOBuffer()
    ctx = Base.IOContext(buf, :limit => true, :displaysize => (10, 20))
    Base.show(ctx, MIME("text/plain"), Dict(Alpha() => 1))
    local out = String(take!(buf))
    @test !occursin("…", out)
    @test endswith(out, "α => 1")
end

@testset "issue #2540" begin
    cd = Dict{Any,Any}(Dict(c => 1 for c in ['a', 'b', 'c']))
    @test cd == Dict('a' => 1, 'b' => 1, 'c' => 1)
end

@testset "issue #2629" begin
    sd = Dict{AbstractString,AbstractString}(Dict(s => "foo" for s in ["a", "b", "c"]))
    @test sd == Dict("a" => "foo", "b" => "foo", "c" => "foo")
end

@testset "issue #5886" begin
    counts = Dict()
    for k in 1:11
        counts[k] = 1
    end
    for k in keys(counts)
        counts[k] += 1
    end
end

@testset "issue #8877" begin
    fa = Dict("foo" => 0.0, "bar" => 42.0)
    fb = Dict("フー" => 17, "バー" => 4711)
    @test typeof(merge(fa, fb)) === Dict{String,Float64}
end

@testset "issue 9295" begin
    pd = Dict()
    @test push!(pd, 'a' => 1) === pd
    @test pd['a'] == 1
    @test push!(pd, 'b' => 2, 'c' => 3) === pd
    @test pd['b'] == 2
    @test pd['c'] == 3
    @test push!(pd, 'd' => 4, 'e' => 5, 'f' => 6) === pd
    @test pd['d'] == 4
    @test pd['e'] == 5
    @test pd['f'] == 6
    @test length(pd) == 6
end

mutable struct T10647{T}; x::T; end

@testset "issue #10647" begin
    selfref = IdDict()
    selfref[1] = selfref
    selfref[selfref] = 2
    selfref[3] = T10647(selfref)
    @test isequal(selfref, selfref)
    show(IOBuffer(), selfref)
    Base.show(Base.IOContext(IOBuffer(), :limit => true), selfref)
    Base.show(IOBuffer(), selfref)
    Base.show(Base.IOContext(IOBuffer(), :limit => true), selfref)
end

@testset "IdDict{Any,Any} and partial inference" begin
    idd = IdDict{Any,Any}()
    idd[1] = idd
    idd[idd] = 2

    emp = empty(idd)
    @test isempty(emp)
    @test isa(emp, IdDict{Any,Any})

    @test length(idd) == 2
    @test 1 in keys(idd)
    @test idd in keys(idd)
    @test idd[1] === idd
    @test idd[idd] === 2

    cp = copy(idd)
    @test length(cp) == length(idd)
    @test isequal(cp, idd)
    @test cp !== idd

    cp = empty!(cp)
    @test length(cp) == 0
    @test length(idd) == 2

    ordinary = Dict('a' => 1, 'b' => 1, 'c' => 3)
    @test idd != ordinary
    @test !isequal(idd, ordinary)

    @test length(IdDict{Any,Any}(1 => 2, 1.0 => 3)) == 2
    @test length(Dict(1 => 2, 1.0 => 3)) == 1

    g = IdDict{Any,Any}(k => k for k = 1:3)
    @test isa(g, IdDict{Any,Any})
    @test g == IdDict{Any,Any}(1 => 1, 2 => 2, 3 => 3)

    g = IdDict{Any,Any}(Pair(1, 1), Pair(2, 2), Pair(3, 3))
    @test isa(g, IdDict{Any,Any})
    @test g == IdDict{Any,Any}(1 => 1, 2 => 2, 3 => 3)
    @test eltype(g) == Pair{Any,Any}

    g = IdDict{Any,Int32}(:hi => 7)
    let box = Ref{Any}(1.5)
        getbox() = box[]
        @test get!(getbox, g, :hi) === Int32(7)
        @test_throws InexactError(:Int32, Int32, 1.5) get!(getbox, g, :hello)
    end
end

@testset "IdDict" begin
    idd = IdDict()
    idd[1] = idd
    idd[idd] = 2

    emp = empty(idd)
    @test isempty(emp)
    @test isa(emp, IdDict)

    @test length(idd) == 2
    @test 1 in keys(idd)
    @test idd in keys(idd)
    @test idd[1] === idd
    @test idd[idd] === 2

    cp = copy(idd)
    @test length(cp) == length(idd)
    @test isequal(cp, idd)
    @test cp !== idd

    cp = empty!(cp)
    @test length(cp) == 0
    @test length(idd) == 2

    ordinary = Dict('a' => 1, 'b' => 1, 'c' => 3)
    @test idd != ordinary
    @test !isequal(idd, ordinary)

    @test length(IdDict(1 => 2, 1.0 => 3)) == 2
    @test length(Dict(1 => 2, 1.0 => 3)) == 1

    g = IdDict(k => k for k = 1:3)
    @test isa(g, IdDict)
    @test g == IdDict(1 => 1, 2 => 2, 3 => 3)

    g = IdDict(Pair(1, 1), Pair(2, 2), Pair(3, 3))
    @test isa(g, IdDict)
    @test g == IdDict(1 => 1, 2 => 2, 3 => 3)
    @test eltype(g) == Pair{Int,Int}
    @test_throws KeyError g[:a]
    @test_throws TypeError g[:a] = 1
    @test_throws MethodError g[1] = :a

    # copy constructor
    g = IdDict(Pair(1, 1), Pair(2, 2), Pair(3, 3))
    @test collect(values(IdDict{Int,Float64}(g))) == collect(values(g))
    @test_throws TypeError IdDict{Float64,Int}(g)

    # other constructors
    @test typeof(IdDict(1 => 1, :a => 2)) == IdDict{Any,Int}
    @test typeof(IdDict(1 => 1, 1 => :a)) == IdDict{Int,Any}
    @test typeof(IdDict(:a => 1, 1 => :a)) == IdDict{Any,Any}
    @test typeof(IdDict(())) == IdDict{Any,Any}

    # returned values (upstream wraps these calls in @inferred)
    g = IdDict(Pair(1, 1), Pair(2, 2), Pair(3, 3))
    @test 1 == g[1]
    setindex!(g, -1, 10)
    @test g[10] == -1
    @test 1 == g[1]
    @test get(g, -111, nothing) === nothing
    @test 1 == get(g, 1, 1)
    @test pop!(g, -111, nothing) === nothing
    @test 1 == pop!(g, 1)

    # get! and delete!
    g = IdDict(Pair(:a, 1), Pair(:b, 2), Pair(3, 3))
    @test get!(g, "a", -1) == -1
    @test g["a"] == -1
    @test get!(g, "a", "b") == -1
    @test_throws MethodError get!(g, "b", "b")
    @test delete!(g, "a") === g
    @test !haskey(g, "a")
    @test_throws TypeError get!(IdDict{Symbol,Any}(), 2, "b")
    @test get!(IdDict{Int,Int}(), 1, 2.0) === 2
    @test get!(() -> 2.0, IdDict{Int,Int}(), 1) === 2

    # sizehint! (the checks of the internal table `.ht` and Base.rehash! are left out)
    g = IdDict()
    @test sizehint!(g, 10^4) === g
    g = IdDict()
    for rep = 1:30, k = 1:10^4
        g[k] = k
    end
    for k = 1:10^4
        @test g[k] == k
    end

    # filter!
    g = IdDict(1 => 1, 2 => 3, 3 => 2)
    filter!(p -> isodd(p[2]), g)
    @test g[1] == 1
    @test g[2] == 3
    @test !haskey(g, 3)

    # not an iterator of tuples or pairs
    @test_throws ArgumentError IdDict([1, 2, 3, 4])
    # an error thrown while building is passed on
    @test_throws DomainError IdDict((sqrt(q[1]), sqrt(q[2])) for q in zip(-1:2, -1:2))
end

@testset "issue 30165, get! for IdDict" begin
    sq(x) = x^2
    gd = IdDict(8 => 19)
    @test get!(gd, 8, 5) == 19
    @test get!(gd, 19, 2) == 2

    @test get!(gd, 42) do
        sq(2)
    end == 4

    @test get!(gd, 42) do
        sq(200)
    end == 4

    @test get(gd, 13) do
        sq(4)
    end == 16

    @test gd == IdDict(8 => 19, 19 => 2, 42 => 4)
end

# left out: "issue #26833, deletion from IdDict" (builds objectid hash collisions of the
# IdDict table: IdDict internals)

@testset "Issue #7944" begin
    gd = Dict{Int,Int}()
    get!(gd, 0) do
        gd[0] = 1
    end
    @test length(gd) == 1
end

@testset "iteration" begin
    it = Dict('a' => 1, 'b' => 1, 'c' => 3)
    @test [it[k] for k in keys(it)] == [it[k] for k in eachindex(it)] ==
          [v for (k, v) in it] == [it[p[1]] for (n, p) in enumerate(it)]
end

@testset "consistency of dict iteration order (issue #56841)" begin
    rd = Dict(randn() => randn() for _ = 1:100)
    # (upstream destructures the do-block argument: `do (d, k, v, p)`)
    @test all(zip(rd, keys(rd), values(rd), pairs(rd))) do quad
        pr, k, v, pp = quad
        pr == pp && first(pr) == first(pp) == k && last(pr) == last(pp) == v
    end
end

@testset "generators, similar" begin
    gs = Dict(:a => "a")
end

@testset "Issue 12451" begin
    @test_throws ArgumentError Dict(0)
    @test_throws ArgumentError Dict([1])
    @test_throws ArgumentError Dict([(1, 2), 0])
end

@testset "dict.jl: other errors pass through the Dict constructor" begin
    @test_throws InexactError Dict(convert(Int, 1.5) for k = 1:1)
    # (the same check for WeakKeyDict is left out)
end

# left out: "ImmutableDict" (Base.ImmutableDict, an internal type)

@testset "filtering" begin
    fd = Dict(zip(1:1000, 1:1000))
    evenkey = p -> iseven(p.first)
    @test filter(evenkey, fd) == filter!(evenkey, copy(fd)) ==
          invoke(filter!, Tuple{Function,AbstractDict}, evenkey, copy(fd)) ==
          Dict(zip(2:2:1000, 2:2:1000))
    fd = Dict(zip(-1:3, -1:3))
    bigroot = p -> sqrt(p.second) > 2
    @test_throws DomainError filter(bigroot, fd)
end

struct MyString <: AbstractString
    str::String
end
struct MyInt <: Integer
    val::UInt
end

const hashoffset = [UInt(190)]

# (upstream does `import Base.==` first; that spelling does not parse here)
Base.hash(s::MyString) = hash(s.str) + hashoffset[]
Base.lastindex(s::MyString) = lastindex(s.str)
Base.iterate(s::MyString, v::Int=1) = iterate(s.str, v)
Base.isequal(a::MyString, b::MyString) = isequal(a.str, b.str)
==(a::MyString, b::MyString) = (a.str == b.str)

Base.hash(v::MyInt) = v.val + hashoffset[]
Base.lastindex(v::MyInt) = lastindex(v.val)
Base.iterate(v::MyInt, i...) = iterate(v.val, i...)
Base.isequal(a::MyInt, b::MyInt) = isequal(a.val, b.val)
==(a::MyInt, b::MyInt) = (a.val == b.val)

@testset "issue #15077" begin
    let keylist = [
            "FINO_emv5.0", "FINO_ema0.1", "RATE_ema1.0", "NIBPM_ema1.0",
            "SAO2_emv5.0", "O2FLOW_ema5.0", "preop_Neuro/Psych_", "gender_",
            "FIO2_ema0.1", "PEAK_ema5.0", "preop_Reproductive_denies", "O2FLOW_ema0.1",
            "preop_Endocrine_denies", "preop_Respiratory_",
            "NIBPM_ema0.1", "PROPOFOL_MCG/KG/MIN_decay5.0", "NIBPD_ema1.0", "NIBPS_ema5.0",
            "anesthesiaStartTime", "NIBPS_ema1.0", "RESPRATE_ema1.0", "PEAK_ema0.1",
            "preop_GU_denies", "preop_Cardiovascular_", "PIP_ema5.0", "preop_ENT_denies",
            "preop_Skin_denies", "preop_Renal_denies", "asaCode_IIIE", "N2OFLOW_emv5.0",
            "NIBPD_emv5.0",
            "NIBPM_ema5.0", "preop_Respiratory_complete", "ETCO2_ema5.0",
            "RESPRATE_ema0.1", "preop_Functional Status_<2", "preop_Renal_symptoms",
            "ECGRATE_ema5.0", "FIO2_emv5.0", "RESPRATE_emv5.0", "7wu3ty0a4fs", "BVO",
            "4UrCWXUsaT"]
        local plain = Dict{AbstractString,Int}()
        for n = 1:length(keylist)
            plain[keylist[n]] = n
        end
        for n = 1:length(keylist)
            @test plain[keylist[n]] == n
        end
        # every hash value modulo the table size
        for off = 0:1023
            local wrapped = Dict{MyString,Int}()
            hashoffset[] = off
            for n = 1:length(keylist)
                wrapped[MyString(keylist[n])] = n
            end
            for n = 1:length(keylist)
                @test wrapped[MyString(keylist[n])] == n
            end
        end
    end

    let keylist = UInt16[0xb800, 0xa501, 0xcdff, 0x6303, 0xe40a, 0xcf0e, 0xf3df, 0xae99, 0x9913, 0x741c,
                         0xd01f, 0xc822, 0x9723, 0xb7a0, 0xea25, 0x7423, 0x6029, 0x202a, 0x822b, 0x492c,
                         0xd02c, 0x862d, 0x8f34, 0xe529, 0xf938, 0x4f39, 0xd03a, 0x473b, 0x1e3b, 0x1d3a,
                         0xcc39, 0x7339, 0xcf40, 0x8740, 0x813d, 0xe640, 0xc443, 0x6344, 0x3744, 0x2c3d,
                         0x8c48, 0xdf49, 0x5743]
        for off = 0:1023
            local wrapped = Dict{MyInt,Int}()
            hashoffset[] = off
            for n = 1:length(keylist)
                wrapped[MyInt(keylist[n])] = n
            end
            for n = 1:length(keylist)
                @test wrapped[MyInt(keylist[n])] == n
            end
        end
    end
end

@testset "dict.jl: #18213 Dict of a matrix and a string" begin
    # upstream only builds it (checking that no deprecation is triggered)
    @test Dict(1 => rand(2, 3), 'c' => "asdf") isa Dict
end

# left out: "WeakKeyDict" (weak references and GC), the OncePerId checks (once-per-key
# initialisers, concurrency machinery) and the WeakKeyDict soundness check #38727 (GC)

import Base.PersistentDict

@testset "PersistentDict" begin
    # left out: the nested "HAMT HashState" testset (internals of the hash trie and
    # Core.Compiler effects)
    @testset "basics" begin
        pd = PersistentDict{Int,Int}()
        @test_throws KeyError pd[1]
        @test length(pd) == 0
        @test isempty(pd)

        pd = PersistentDict{Int,Int}(1 => 2.0)
        @test pd[1] == 2

        pd = PersistentDict(1 => 2)
        @test pd[1] == 2

        pd = PersistentDict(pd, 1 => 3.0)
        @test pd[1] == 3

        pd = PersistentDict(pd, 1, 1)
        @test pd[1] == 1
        @test get(pd, 2, 1) == 1
        @test get(() -> 1, pd, 2) == 1

        @test (1 => 1) ∈ pd
        @test (1 => 2) ∉ pd
        @test (2 => 1) ∉ pd

        @test haskey(pd, 1)
        @test !haskey(pd, 2)

        pd2 = PersistentDict{Int,Int}(pd, 1 => 2)
        @test pd[1] == 1
        @test pd2[1] == 2

        pd3 = Base.delete(pd2, 1)
        @test_throws KeyError pd3[1]
        @test pd3 == Base.delete(pd3, 1)
        # (a check of the internal `.trie` field is left out)

        pd = PersistentDict(pd, 1, 3)
        @test pd[1] == 3
        @test pd2[1] == 2

        @test length(pd) == 1
        @test length(pd2) == 1

        pd = PersistentDict(1 => 2, 2 => 3, 4 => 1)
        @test eltype(pd) == Pair{Int,Int}
        @test pd[1] == 2
        @test pd[2] == 3
        @test pd[4] == 1
    end

    @testset "objectid" begin
        cell = [0]
        pd = PersistentDict{Any,Int}(cell => 1, [1] => 2)
        @test pd[cell] == 1
        cell[1] = 1
        @test pd[cell] == 1

        cell[1] = 0
        pd = PersistentDict{Any,Int}((cell,) => 1, ([1],) => 2)
        @test pd[(cell,)] == 1

        cell[1] = 1
        @test pd[(cell,)] == 1
    end

    @testset "stress" begin
        N = 2^14
        pd = PersistentDict{Int,Int}()
        for k in 1:N
            pd = PersistentDict(pd, k, k)
        end
        @test length(pd) == N
        length(collect(pd)) == N
        sorted = sort!(collect(pd))
        @test sorted[1] == (1 => 1)
        @test sorted[end] == (N => N)

        pd = Base.delete(pd, 16384)
        @test !haskey(pd, 16384)
        for k in 1:N
            pd = Base.delete(pd, k)
        end
        @test isempty(pd)
    end
end

@testset "issue #19995, hash of dicts" begin
    @test hash(Dict(Dict(1 => 2) => 3, Dict(4 => 5) => 6)) != hash(Dict(Dict(4 => 5) => 3, Dict(1 => 2) => 6))
    ha = Dict(Dict(3 => 4, 2 => 3) => 2, Dict(1 => 2, 5 => 6) => 1)
    hb = Dict(Dict(1 => 2, 2 => 3, 5 => 6) => 1, Dict(3 => 4) => 2)
    @test hash(ha) != hash(hb)
end

mutable struct Foo_15776
    x::Vector{Pair{Tuple{Function,Vararg{Int}},Int}}
end

@testset "issue #15776, convert for pair" begin
    prs = [Pair((+, 1, 5, 7), 3), Pair((-, 6, 5, 3, 5, 8), 1)]
    foo = Foo_15776(prs)
    @test foo.x[1].first == (+, 1, 5, 7)
    @test foo.x[1].second == 3
    @test foo.x[2].first == (-, 6, 5, 3, 5, 8)
    @test foo.x[2].second == 1
end

@testset "issue #18708 error type for dict constructor" begin
    # `y` is defined nowhere
    @test_throws UndefVarError Dict(x => y for x in 1:10)
end

mutable struct Error19179 <: Exception
end

@testset "issue #19179 throwing error in dict constructor" begin
    @test_throws Error19179 Dict(k => throw(Error19179()) for k in 1:10)
end

@testset "dict.jl: issue #18090 pairs agree with zip of keys and values" begin
    let sqd = Dict(k => k^2 for k in 1:10_000)
        kv = zip(keys(sqd), values(sqd))
        for (pr, tp) in zip(sqd, kv)
            @test pr[1] == tp[1] && pr[2] == tp[2]
        end
    end
end

struct NonFunctionCallable end
(::NonFunctionCallable)(args...) = +(args...)

@testset "Dict merge" begin
    ma = Dict("A" => 1, "B" => 2)
    mb = Dict("B" => 3.0, "C" => 4.0)
    @test merge(ma, mb) == Dict("A" => 1, "B" => 3, "C" => 4)
    @test mergewith(+, ma, mb) == Dict("A" => 1, "B" => 5, "C" => 4)
    @test mergewith(*, ma, mb) == Dict("A" => 1, "B" => 6, "C" => 4)
    @test mergewith(-, ma, mb) == Dict("A" => 1, "B" => -1, "C" => 4)
    @test mergewith(NonFunctionCallable(), ma, mb) == Dict("A" => 1, "B" => 5, "C" => 4)
    @test foldl(mergewith(+), [ma, mb]; init=Dict{Union{},Union{}}()) ==
          Dict("A" => 1, "B" => 5, "C" => 4)
end

@testset "Dict merge!" begin
    ma = Dict("A" => 1, "B" => 2)
    mb = Dict("B" => 3, "C" => 4)
    merge!(ma, mb)
    @test ma == Dict("A" => 1, "B" => 3, "C" => 4)
    mergewith!(+, ma, mb)
    @test ma == Dict("A" => 1, "B" => 6, "C" => 8)
    mergewith!(*, ma, mb)
    @test ma == Dict("A" => 1, "B" => 18, "C" => 32)
    mergewith!(-, ma, mb)
    @test ma == Dict("A" => 1, "B" => 15, "C" => 28)
    mergewith!(NonFunctionCallable(), ma, mb)
    @test ma == Dict("A" => 1, "B" => 18, "C" => 32)
    @test foldl(mergewith!(+), [ma, mb]; init=empty(ma)) ==
          Dict("A" => 1, "B" => 21, "C" => 36)
    # the old three-argument merge!
    merge!(+, ma, mb)
    @test ma == Dict("A" => 1, "B" => 21, "C" => 36)
end

@testset "Dict reduce merge" begin
    function merge_both_ways(ins::Vector{<:Dict}, want)
        byreduce = reduce(merge, ins)
        bysplat = merge(ins...)
        W = typeof(want)
        @test byreduce == want
        @test bysplat == want
        @test typeof(byreduce) == W
        @test typeof(bysplat) == W
    end
    merge_both_ways([Dict(1 => 2), Dict(1.0 => 2.0)], Dict(1.0 => 2.0))
    merge_both_ways([Dict(1 => 2), Dict(2 => Complex(1.0, 1.0))],
                    Dict(2 => Complex(1.0, 1.0), 1 => Complex(2.0, 0.0)))
    merge_both_ways([Dict(1 => 2), Dict(3 => 4)], Dict(3 => 4, 1 => 2))
    merge_both_ways([Dict(3 => 4), Dict(:a => 5)], Dict(:a => 5, 3 => 4))
end

@testset "AbstractDict mergewith!" begin
    ia = IdDict(1 => 1, 2 => 2)
    ib = IdDict(2 => 3, 3 => 4)
    ic = IdDict{Int,Float64}(1 => 5, 3 => 6)
    acc = copy(ia)
    mergewith!(-, acc, ib)
    @test acc == IdDict(1 => 1, 2 => -1, 3 => 4)
    acc = copy(ia)
    mergewith!(-, acc, ic)
    @test acc == IdDict(1 => -4, 2 => 2, 3 => 6)
    acc = copy(ia)
    mergewith!(+, acc, ib, ic)
    @test acc == IdDict(1 => 6, 2 => 5, 3 => 10)
    mergewith(+, ia, ib, ic)
    acc = mergewith(+, ia, ib, ic)
    @test acc isa Dict{Int,Float64}
    @test acc == Dict(1 => 6, 2 => 5, 3 => 10)
end

@testset "misc error/io" begin
    md = Dict('a' => 1, 'b' => 1, 'c' => 3)
    @test_throws ErrorException 'a' in md
    ks = sprint(show, keys(md))
    @test 'a' ∈ ks
    @test 'b' ∈ ks
    @test 'c' ∈ ks
end

@testset "Dict pop!" begin
    pd = Dict(1 => 2, 3 => 4)
    @test pop!(pd, 1) == 2
    @test_throws KeyError pop!(pd, 1)
    @test pop!(pd, 1, 0) == 0
    @test pop!(pd) == (3 => 4)
    @test_throws ArgumentError pop!(pd)
end

@testset "keys as a set" begin
    kd = Dict(1 => 2, 3 => 4)
    @test keys(kd) isa AbstractSet
    @test empty(keys(kd)) isa AbstractSet
    let common = keys(kd) ∩ Set([1, 2])
        @test common isa AbstractSet
        @test common == Set([1])
    end
    @test Set(string(k) for k in keys(kd)) == Set(["1", "3"])
end

@testset "find" begin
    @test findall(isequal(1), Dict(:a => 1, :b => 2)) == [:a]
    @test sort(findall(isequal(1), Dict(:a => 1, :b => 1))) == [:a, :b]
    @test isempty(findall(isequal(1), Dict()))
    @test isempty(findall(isequal(1), Dict(:a => 2, :b => 3)))

    @test findfirst(isequal(1), Dict(:a => 1, :b => 2)) === :a
    @test findfirst(isequal(1), Dict(:a => 1, :b => 1, :c => 3)) in (:a, :b)
    @test findfirst(isequal(1), Dict()) === nothing
    @test findfirst(isequal(1), Dict(:a => 2, :b => 3)) === nothing
end

# left out: "Dict printing with limited rows" (all of it prints a Base.ImmutableDict)

@testset "copy!" begin
    dst = Dict(1 => 2, 2 => 3)
    for src = ([3 => 4], [0x3 => 0x4], [3 => 4, 5 => 6, 7 => 8], Pair{UInt,UInt}[3 => 4, 5 => 6, 7 => 8])
        @test dst === copy!(dst, Dict(src)) == Dict(src)
        # (the copy! from a Base.ImmutableDict is left out)
    end
    before = copy(dst)
    @test copy!(dst, dst) == before
end

# upstream defines this type and its methods inside the testset
mutable struct TestDict{K,V} <: AbstractDict{K,V}
    dict::Dict{K,V}
    function TestDict(args...)
        inner = Dict(args...)
        new{keytype(inner),valtype(inner)}(inner)
    end
end
Base.setindex!(td::TestDict, args...) = setindex!(td.dict, args...)
Base.getindex(td::TestDict, args...) = getindex(td.dict, args...)
Base.pairs(D::TestDict) = pairs(D.dict)

@testset "map!(f, values(dict))" begin
    @testset "AbstractDict & Fallback" begin
        td = TestDict(:a => 1, :b => 2)
        map!(v -> v - 1, values(td))
        @test td[:a] == 0
        @test td[:b] == 1
        @test sizehint!(td, 1) === td
    end
    @testset "Dict" begin
        td = Dict(:a => 1, :b => 2)
        map!(v -> v - 1, values(td))
        @test td[:a] == 0
        @test td[:b] == 1
    end
end

# left out: "shrinking" (sizes of the internal `slots` vector) and the getindex effects
# loop (Core.Compiler effects)

struct BadHash
    i::Int
end
Base.hash(::BadHash, ::UInt) = UInt(1)

@testset "maxprobe reset #51595" begin
    # (the checks of the internal fields `maxprobe` and `keys` are left out)
    bd = Dict(BadHash(k) => nothing for k in 1:20)
    empty!(bd)
    sizehint!(bd, 0)
    bd[BadHash(1)] = nothing
    @test !(BadHash(2) in keys(bd))
    bd = Dict(BadHash(k) => nothing for k in 1:20)
    for _ in 1:20
        pop!(bd)
    end
    sizehint!(bd, 0)
    bd[BadHash(1)] = nothing
    @test !(BadHash(2) in keys(bd))
end

@testset "dict.jl: issue #52066 an equal key replaces the stored key" begin
    let kd = Dict()
        kd[1] = 'a'
        kd[1.0] = 'b'
        @test only(kd) === Pair{Any,Any}(1.0, 'b')
    end
end

@testset "UnionAll `keytype` and `valtype` (issue #53115)" begin
    Kt = Int8
    Vt = Int16
    # (WeakKeyDict and Base.ImmutableDict are left out of upstream's list)
    kinds = (AbstractDict, IdDict, Dict, Base.PersistentDict, Iterators.Pairs)

    @testset "D: $D" for D ∈ kinds
        @test_throws MethodError keytype(D)
        @test_throws MethodError keytype(D{<:Any,Vt})
        @test keytype(D{Kt}) == Kt
        @test keytype(D{Kt,Vt}) == Kt

        @test_throws MethodError valtype(D)
        @test valtype(D{<:Any,Vt}) == Vt
        @test_throws MethodError valtype(D{Kt})
        @test valtype(D{Kt,Vt}) == Vt
    end
end
