# Facts from JuliaLang/julia test/functional.jl (ported for Zyla's conformance suite).
# Upstream keeps almost all of these facts outside testsets; they are grouped here by topic.
# The groups that use syntax Zyla's parser rejects (a generator as a later call argument, `=>`
# as a function value, `for ... for ...` comprehensions, `for outer`, defining `(:)`) are in
# functional_syntax.jl, so that a ParseError there does not void the testsets here.

@testset "functional.jl: map over arrays and ranges" begin
    @test isequal(map(v -> "$v"[end:end], 9:11), ["9", "0", "1"])
    let buf = [1.0, 2.0]
        map!(sin, buf, buf)
        @test isequal(buf, sin.([1.0, 2.0]))
    end
    @test isequal(map(sqrt, 1:5), [sqrt(k) for k in 1:5])
    @test isequal(map(sqrt, 2:6), [sqrt(k) for k in 2:6])
end

@testset "functional.jl: map over a range visits the first value once (#4453)" begin
    let sink = IOBuffer(maxsize=3)
        map(v -> print(sink, v), 1:2)
        @test String(take!(sink)) == "12"
    end
end

@testset "functional.jl: map over Vector{Union{}} (#6719)" begin
    @test isequal(typeof(map(v -> v, Vector{Union{}}(undef, 0))), Vector{Union{}})
end

@testset "functional.jl: map over tuples" begin
    @test map((a, b) -> a + b, (1, 2, 3), (4, 5, 6)) == (5, 7, 9)
    @test map((a, b) -> a + b,
              (100001, 100002, 100003),
              (100004, 100005, 100006)) == (200005, 200007, 200009)
end

@testset "functional.jl: map over strings" begin
    @test map(ch -> Char(ch + 1), "abcDEF") == "bcdEFG"
end

@testset "functional.jl: element type of map and collect (#10633, #25433)" begin
    @test isa(map(Integer, Any[1, 2]), Vector{Int})
    @test isa(map(Integer, Any[]), Vector{Integer})
    @test collect(w for w in [1] if w > 0) isa Vector{Int}
end

@testset "functional.jl: filter" begin
    @test isequal(filter(v -> (v > 1), [0 1 2 3 2 1 0]), [2, 3, 2])
    @test isequal(filter(v -> (v > 10), [0 1 2 3 2 1 0]), [])
    @test isequal(filter(w -> length(w) == 3, ["abcd", "efg", "hij", "klmn", "opq"]),
                  ["efg", "hij", "opq"])
end

@testset "functional.jl: collect" begin
    @test size(collect(1)) == size(1)
    @test isa(collect(Any, [1, 2]), Vector{Any})
end

@testset "functional.jl: foreach" begin
    let seen = []
        foreach(() -> push!(seen, 0))
        @test seen == [0]
        seen = []
        foreach(v -> push!(seen, v), [1, 5, 10])
        @test seen == [1, 5, 10]
        seen = []
        foreach((xs...) -> push!(seen, xs), [2, 4, 6], [10, 20, 30])
        @test seen == [(2, 10), (4, 20), (6, 30)]
    end
end

@testset "functional.jl: generators (#4470, #14848)" begin
    @test sum(k / 2 for k = 1:2) == 1.5
    @test collect(2k for k = 2:5) == [4, 6, 8, 10]
    @test collect((a + 10b for a = 1:2, b = 3:4)) == [31 41; 32 42]
    @test collect((a + 10b for a = 1:2, b = 3:4, c = 1:1)) == reshape([31 41; 32 42], (2, 2, 1))

    let doubled = collect(Base.Generator(v -> 2v, Real[1.5, 2.5]))
        @test doubled == [3, 5]
        @test isa(doubled, Vector{Float64})
    end

    let check_iter(gen) = (@test size(gen.iter) == (2, 3))
        check_iter(a + b for a = 1:2, b = 3:5)
    end

    @test collect(Base.Generator(+, [1, 2], [10, 20])) == [11, 22]
end

@testset "functional.jl: generator ndims (#16394)" begin
    let cases = [((k for k = 1:5),                             1),
                 ((k for k = 1:5, l = 1:5),                    2),
                 ((k for k = 1:5, l = 1:5, m = 1:5),           3),
                 ((k for k = Array{Int,0}(undef)),             0),
                 ((k for k = Vector{Int}(undef, 1)),           1),
                 ((k for k = Matrix{Int}(undef, 1, 2)),        2),
                 ((k for k = Array{Int}(undef, 1, 2, 3)),      3)]
        for (gen, nd) in cases
            @test ndims(gen) == ndims(collect(gen)) == nd
        end
    end
end

@testset "functional.jl: generators with destructuring" begin
    let d1 = Dict(:a => 1, :b => 2), d2 = Dict(3 => 4, 5 => 6)
        @test Dict(val => (key,) for (key, val) in d1) == Dict(2 => (:b,), 1 => (:a,))
        @test Dict((p, q) => (r, s) for (p, r) in d1, (q, s) in d2) ==
              Dict((:a, 5) => (1, 6), (:b, 5) => (2, 6), (:a, 3) => (1, 4), (:b, 3) => (2, 4))
    end
end

@testset "functional.jl: generator variables do not leak" begin
    let i = 1
        local g = (i + j for i = 2:2, j = 3:3)
        @test first(g) == 5
        @test i == 1
    end
end

@testset "functional.jl: generator fields and iteration" begin
    let gen = (v for v in 1:10)
        @test gen.iter == 1:10
        @test gen.f(first(1:10)) == iterate(gen)[1]
        for (u, w) in zip(1:10, gen)
            @test u == w
        end
    end

    let gen = (a * b for a in 1:10, b in 1:10)
        @test collect(gen) == Vector(1:10) .* Vector(1:10)'
        @test first(gen) == 1
        @test collect(gen)[1:10] == 1:10
    end

    let gen = Base.Generator(+, 1:10, 1:10, 1:10)
        @test first(gen) == 3
        @test collect(gen) == 3:3:30
    end
end

# testset "functional.jl: generators with guards": in functional_syntax.jl (it uses syntax Zyla does not parse)
# testset "functional.jl: Generator with => as its function (#22907)": in functional_syntax.jl
# (it uses syntax Zyla does not parse)

# testset "functional.jl: comprehensions with nested loops (#4867)": in functional_syntax.jl (it uses syntax Zyla does not parse)
@testset "functional.jl: generator variables are fresh each iteration (#330)" begin
    @test map(collect, (((t = (i, j); i = nothing; t) for j = 1:i) for i = 1:3)) ==
        [[(1, 1)],
         [(2, 1), (nothing, 2)],
         [(3, 1), (nothing, 2), (nothing, 3)]]
end

@testset "functional.jl: assigning to a loop variable" begin
    let pushed = []
        for a = 1:3, b = 1:3
            push!(pushed, a)
            a = 0
        end
        @test pushed == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    end
end

# testset "functional.jl: comprehension variables are fresh each iteration (#330)": in functional_syntax.jl (it uses syntax Zyla does not parse)
# testset "functional.jl: for outer": in functional_syntax.jl (it uses syntax Zyla does not parse)
# testset "functional.jl: four nested loops with a guard (#18707)": in functional_syntax.jl (it uses syntax Zyla does not parse)
@testset "map/collect return type on generators with $T" for T in (Nothing, Missing)
    strs = ["a", "b"]
    got = collect(s for s in strs)
    @test got isa Vector{String}
    got = map(identity, strs)
    @test got isa Vector{String}
    got = collect(s isa T for s in strs)
    @test got isa Vector{Bool}
    got = map(s -> s isa T, strs)
    @test got isa Vector{Bool}
    mixed = Union{String, T}["a", T()]
    h(s::Union{Nothing, Missing}) = s
    h(s::String) = s == "a"
    got = collect(s for s in mixed)
    @test got isa Vector{Union{String, T}}
    got = map(identity, mixed)
    @test got isa Vector{Union{String, T}}
    got = collect(s isa T for s in mixed)
    @test got isa Vector{Bool}
    got = map(s -> s isa T, mixed)
    @test got isa Vector{Bool}
    got = collect(h(s) for s in mixed)
    @test got isa Vector{Union{Bool, T}}
    got = map(h, mixed)
    @test got isa Vector{Union{Bool, T}}
end

# testset "inference of collect with unstable eltype" left out: it checks
# Core.Compiler.return_type (inference).

# testset "functional.jl: comprehensions use the local `:`": in functional_syntax.jl (it uses syntax Zyla does not parse)

# The testsets below use syntax Zyla's parser rejects (the runner parses them one by one).

@testset "functional.jl: generators with guards" begin
    let gen = (v for v in 1:10 if v % 2 == 0),
        gen2 = Iterators.filter(v -> v % 2 == 0, v for v in 1:10)
        @test collect(gen) == collect(gen2)
        @test collect(gen) == 2:2:10
    end

    let gen = ((a, b) for a in 1:10, b in 1:10 if a % 2 == 0 && b % 2 == 0),
        gen2 = Iterators.filter(p -> p[1] % 2 == 0 && p[2] % 2 == 0, (a, b) for a in 1:10, b in 1:10)
        @test collect(gen) == collect(gen2)
    end
end

@testset "functional.jl: Generator with => as its function (#22907)" begin
    let pairs_of(x) = collect(Base.Generator(=>, x, x))
        @test pairs_of((1, 2)) == [1=>1, 2=>2]
    end
end

@testset "functional.jl: comprehensions with nested loops (#4867)" begin
    @test [(a, b) for a = 1:3 for b = 1:a] == [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]
    @test [(a, b) for a = 1:3 for b = 1:a if b > 1] == [(2, 2), (3, 2), (3, 3)]
end

@testset "functional.jl: comprehension variables are fresh each iteration (#330)" begin
    @test [(t = (i, j); i = nothing; t) for i = 1:3 for j = 1:i] ==
        [(1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]
end

@testset "functional.jl: for outer" begin
    let i, j
        for outer i = 1:2, j = 1:0
        end
        @test i == 2
        @test !@isdefined(j)
    end
end

@testset "functional.jl: four nested loops with a guard (#18707)" begin
    @test [(q, d, n, p) for q = 0:25:100
                        for d = 0:10:100-q
                        for n = 0:5:100-q-d
                        for p = 100-q-d-n
                        if p < n < d < q] == [(50, 30, 15, 5), (50, 30, 20, 0), (50, 40, 10, 0), (75, 20, 5, 0)]
end

@testset "functional.jl: comprehensions use the local `:`" begin
    let m = rand(2, 2)
        (:)(a, b) = m
        @test Float64[ i for i = 1:2 ] == m
        @test Float64[ i + j for i = 1:2, j = 1:2 ] == cat(cat(m[1] .+ m, m[2] .+ m; dims=3),
                                                         cat(m[3] .+ m, m[4] .+ m; dims=3); dims=4)
    end

    let (:)(a, b) = (i for i in Base.:(:)(1, 10) if i % 2 == 0)
        @test Int8[ i for i = 1:2 ] == [2, 4, 6, 8, 10]
    end
end
