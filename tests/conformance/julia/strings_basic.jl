# Facts from JuliaLang/julia test/strings/basic.jl (ported for Zyla's conformance suite).
#
# String macros did not parse when this was ported, so their expansions are written out:
# s"..." is Base.SubstitutionString("..."), lazy"a$(x)b" is LazyString("a", x, "b"),
# b"..." is codeunits("..."), MIME"text/plain"() is MIME("text/plain").

using Test
using Random

@testset "constructors" begin
    bytes = [0x61, 0x62, 0x63, 0x21]
    @test String(bytes) == "abc!" && isempty(bytes)
    @test String("abc!") == "abc!"
    @test String(0x61:0x63) == "abc"

    bytes = [0x61, 0x62, 0x63, 0x21]
    words = copy(reinterpret(UInt32, bytes))
    @test String(reinterpret(UInt8, words)) == "abc!" && !isempty(words)
    # (left out: @allocations counts and the Memory behind a Vector, `v32.ref.mem`)

    # emptying the vector a String was made from leaves the String alone
    buf = IOBuffer()
    write(buf, "ab")
    taken = take!(buf)
    str = String(taken)
    resize!(taken, 0)
    empty!(taken)
    @test str == "ab"
    resize!(taken, 1)
    @test str == "ab"

    @test isempty(string())
    @test !isempty("abc")
    @test !isempty("∀∃")
    @test !isempty(GenericString("∀∃"))
    @test isempty(GenericString(""))
    @test !isempty(GenericString("abc"))
    @test eltype(GenericString) == Char
    @test firstindex("abc") == 1
    @test cmp("ab", "abc") == -1
    @test typemin(String) === ""
    @test typemin("abc") === ""
    @test "abc" === "abc"
    @test "ab" !== "abc"
    @test string("ab", 'c') === "abc"
    @test string() === ""
    @test string(SubString("123", 2)) === "23"
    @test string("∀∃", SubString("1∀∃", 2)) === "∀∃∀∃"
    @test string("∀∃", "1∀∃") === "∀∃1∀∃"
    @test string(SubString("∀∃"), SubString("1∀∃", 2)) === "∀∃∀∃"
    @test string(Base.SubstitutionString("123")) === Base.SubstitutionString("123")
    @test string("123", 'α', SubString("1∀∃", 2), 'a', "foo") === "123α∀∃afoo"
    egal_pair(a, b) = (a === b, a !== b)
    @test egal_pair(string("ab", 'c'), "abc") === (true, false)
    let samples = ["", "a", "a b c", "до свидания"]
        for a in samples, b in samples
            @test (a === b) == (objectid(a) == objectid(b))
        end
    end
end

@testset "takestring!" begin
    bytes = [0x61, 0x62, 0x63]
    @test takestring!(bytes) == "abc"
    @test isempty(bytes)
    # (left out: the check that the vector's Memory was replaced, `v.ref.mem`)
    for vec in [UInt8[], [0x01, 0x02, 0x03], collect(codeunits("æøå"))]
        before = copy(vec)
        got = takestring!(vec)
        @test isempty(vec)
        @test codeunits(got) == before
    end
end

@testset "{starts,ends}with" begin
    @test startswith("abcd", 'a')
    @test startswith('a')("abcd")
    @test startswith("abcd", "a")
    @test startswith("a")("abcd")
    @test startswith("abcd", "ab")
    @test startswith("ab")("abcd")
    @test !startswith("ab", "abcd")
    @test !startswith("abcd")("ab")
    @test !startswith("abcd", "bc")
    @test !startswith("bc")("abcd")
    @test endswith("abcd", 'd')
    @test endswith('d')("abcd")
    @test endswith("abcd", "d")
    @test endswith("d")("abcd")
    @test endswith("abcd", "cd")
    @test endswith("cd")("abcd")
    @test !endswith("abcd", "dc")
    @test !endswith("dc")("abcd")
    @test !endswith("cd", "abcd")
    @test !endswith("abcd")("cd")
    @test startswith("ab\0cd", "ab\0c")
    @test startswith("ab\0c")("ab\0cd")
    @test !startswith("ab\0cd", "ab\0d")
    @test !startswith("ab\0d")("ab\0cd")

    # prefixes made of partial characters
    whole = "∀"
    two = String(codeunits(whole)[1:2])
    one = String(codeunits(whole)[1:1])
    for (a, b, c) in ((whole, two, one), (SubString(whole), SubString(two), SubString(one)))
        @test !startswith(a, b)
        @test !startswith(b)(a)
        @test !startswith(a, c)
        @test !startswith(c)(a)
        @test !startswith(b, c)
        @test !startswith(c)(b)
        @test startswith(a, a)
        @test startswith(a)(a)
        @test startswith(b, b)
        @test startswith(b)(b)
        @test startswith(c, c)
        @test startswith(c)(c)
    end
    a = "x∀y"
    b = SubString("x\xe2\x88y", 1, 2)
    c = SubString("x\xe2y", 1, 2)
    @test !startswith(a, b)
    @test !startswith(b)(a)
    @test !startswith(a, c)
    @test !startswith(c)(a)
    @test !startswith(b, c)
    @test !startswith(c)(b)
    @test startswith(a, a)
    @test startswith(a)(a)
    @test startswith(b, b)
    @test startswith(b)(b)
    @test startswith(c, c)
    @test startswith(c)(c)

    # suffixes made of partial characters
    whole = "∀"
    two = String(codeunits(whole)[2:3])
    one = String(codeunits(whole)[3:3])
    for (a, b, c) in ((whole, two, one), (SubString(whole), SubString(two), SubString(one)))
        @test !endswith(a, b)
        @test !endswith(b)(a)
        @test !endswith(a, c)
        @test !endswith(c)(a)
        @test endswith(b, c)
        @test endswith(c)(b)
        @test endswith(a, a)
        @test endswith(a)(a)
        @test endswith(b, b)
        @test endswith(b)(b)
        @test endswith(c, c)
        @test endswith(c)(c)
    end
    a = "x∀y"
    b = SubString("x\x88\x80y", 2, 4)
    c = SubString("x\x80y", 2, 3)
    @test !endswith(a, b)
    @test !endswith(b)(a)
    @test !endswith(a, c)
    @test !endswith(c)(a)
    @test endswith(b, c)
    @test endswith(c)(b)
    @test endswith(a, a)
    @test endswith(a)(a)
    @test endswith(b, b)
    @test endswith(b)(b)
    @test endswith(c, c)
    @test endswith(c)(c)

    # #40616 startswith on an IO
    let word = "JuliaLang", io = IOBuffer(word)
        for pre in ("Julia", "July", word^2, "Ju", 'J', 'x', ('j', 'J'))
            @test startswith(io, pre) == startswith(word, pre)
        end
    end
end

@testset "SubStrings and Views" begin
    letters = "abcdefg"
    @testset "basic unit range" begin
        @test SubString(letters, 2:4) == "bcd"
        vw = view(letters, 2:4)
        @test vw == "bcd"
        @test vw isa SubString
        @test parent(vw) === letters
        @test parentindices(vw) == (2:4,)
        @test (@view letters[4:end]) == "defg"
        @test (@view letters[4:end]) isa SubString
    end

    @testset "other AbstractUnitRanges" begin
        @test SubString(letters, Base.OneTo(3)) == "abc"
        @test view(letters, Base.OneTo(4)) == "abcd"
        @test view(letters, Base.OneTo(4)) isa SubString
    end

    @testset "views but not view" begin
        @test_throws MethodError (@view letters[[1, 3, 5]])
        @test (@views (letters[[1, 3, 5]])) isa String

        @test_throws MethodError (@view letters[3])
        @test (@views (letters[3])) isa Char

        @test (@views (letters[3], letters[1:2], letters[[1, 4]])) isa Tuple{Char,SubString,String}
        @test (@views (letters[3], letters[1:2], letters[[1, 4]])) == ('c', "ab", "ad")
    end
    # left out: the ":noshift constructor" testset (an internal SubString constructor)
end

@testset "filter specialization on String issue #32460" begin
    drop = ['작', 'Ï', 'z', 'ξ']
    @test filter(ch -> ch ∉ drop,
                 GenericString("J'étais n작작é pour plaiÏre à toute âξme un peu fière")) ==
          "J'étais né pour plaire à toute âme un peu fière"
    @test filter(ch -> ch ∉ drop,
                 "J'étais n작작é pour plaiÏre à toute âξme un peu fière") ==
          "J'étais né pour plaire à toute âme un peu fière"
    @test filter(ch -> ch ∈ ['f', 'o'], GenericString("foobar")) == "foo"
end

@testset "string iteration, and issue #1454" begin
    acute = "é"
    chars = vcat(acute...)
    @test length(chars) == 1
    @test chars[1] == acute[1]

    sv = "s\u2200"
    @test sv[1:end] == sv
end

@testset "sizeof" begin
    @test sizeof("abc") == 3
    @test sizeof("\u2222") == 3
end

@testset "strings/basic.jl: issue #3597 indexing a GenericString" begin
    @test string(GenericString("Test")[1:1], "X") === "TX"
end

@testset "parsing Int types" begin
    let bs, num
        for T = (UInt8, Int8, UInt16, Int16, UInt32, Int32, UInt64, Int64, UInt128, Int128, BigInt),
                bs = 2:62,
                _ = 1:10
            num = (T != BigInt) ? rand(T) : BigInt(rand(Int128))
            @test parse(T, string(num, base = bs), base = bs) == num
        end
    end
end

@testset "issue #6027 - make symbol with invalid char" begin
    sm = Symbol(Char(0xdcdb))
    @test string(sm) == string(Char(0xdcdb))
    @test String(sm) == string(Char(0xdcdb))
    # (the Meta.lower check is left out)
end

@testset "Symbol and gensym" begin
    @test Symbol("asdf") === :asdf
    @test Symbol(:abc, "def", 'g', "hi", 0) === :abcdefghi0
    @test :a < :b
    @test startswith(string(gensym("asdf")), "##asdf#")
    @test gensym("asdf") != gensym("asdf")
    @test gensym() != gensym()
    @test startswith(string(gensym()), "##")
    @test_throws ArgumentError Symbol("ab\0")
    @test_throws ArgumentError gensym("ab\0")
end

@testset "issue #6949" begin
    io = IOBuffer()
    parts = split("1 2 3")
    local written = 0
    for p in parts
        written += write(io, p)
    end
    @test written === 3
    @test String(take!(io)) == "123"
    # (the Base.return_types check is left out: inference)
end

@testset "issue #7248" begin
    @test_throws BoundsError length("hello", 1, -1)
    @test_throws BoundsError prevind("hello", 0, 1)
    @test_throws BoundsError length("hellø", 1, -1)
    @test_throws BoundsError prevind("hellø", 0, 1)
    @test_throws BoundsError length("hello", 1, 10)
    @test nextind("hello", 0, 10) == 10
    @test_throws BoundsError length("hellø", 1, 10) == 9
    @test nextind("hellø", 0, 10) == 11
    @test_throws BoundsError checkbounds("hello", 0)
    @test_throws BoundsError checkbounds("hello", 6)
    @test_throws BoundsError checkbounds("hello", 0:3)
    @test_throws BoundsError checkbounds("hello", 4:6)
    @test_throws BoundsError checkbounds("hello", [0:3;])
    @test_throws BoundsError checkbounds("hello", [4:6;])
    @test checkbounds("hello", 1) === nothing
    @test checkbounds("hello", 5) === nothing
    @test checkbounds("hello", 1:3) === nothing
    @test checkbounds("hello", 3:5) === nothing
    @test checkbounds("hello", [1:3;]) === nothing
    @test checkbounds("hello", [3:5;]) === nothing
    @test checkbounds(Bool, "hello", 0) === false
    @test checkbounds(Bool, "hello", 1) === true
    @test checkbounds(Bool, "hello", 5) === true
    @test checkbounds(Bool, "hello", 6) === false
    @test checkbounds(Bool, "hello", 0:5) === false
    @test checkbounds(Bool, "hello", 1:6) === false
    @test checkbounds(Bool, "hello", 1:5) === true
    @test checkbounds(Bool, "hello", [0:5;]) === false
    @test checkbounds(Bool, "hello", [1:6;]) === false
    @test checkbounds(Bool, "hello", [1:5;]) === true
end

@testset "issue #15624 (indexing with out of bounds empty range)" begin
    @test ""[10:9] == ""
    @test "hello"[10:9] == ""
    @test "hellø"[10:9] == ""
    @test SubString("hello", 1, 5)[10:9] == ""
    @test SubString("hello", 1, 0)[10:9] == ""
    @test SubString("hellø", 1, 5)[10:9] == ""
    @test SubString("hellø", 1, 0)[10:9] == ""
    @test SubString("", 1, 0)[10:9] == ""
    @test_throws BoundsError SubString("", 1, 6)
    @test_throws BoundsError SubString("", 1, 1)
end

@testset "issue #22500 (using `get()` to index strings with default returns)" begin
    zh = "我很喜欢Julia"
    @test get(zh, 1, 'X') == '我'
    @test get(zh, 13, 'X') == 'J'
    @test get(zh, -1, 'X') == 'X'
    @test get(zh, 1000, 'X') == 'X'
    @test_throws StringIndexError get(zh, 2, 'X')
end

@testset "issue #7764" begin
    twice = repeat("Σβ", 2)
    sb = "Σβ"
    ssb = SubString(sb, 1, lastindex(sb))

    @test repeat(ssb, 2) == "ΣβΣβ"
    @test lastindex(twice) == 7
    @test iterate(twice, 3) == ('β', 5)
    @test iterate(twice, 7) == ('β', 9)
    @test twice[7] == 'β'
    @test_throws StringIndexError twice[8]
end

@testset "strings/basic.jl: first and last of a Char range (JSON.jl#82)" begin
    @test first('\x00':'\x7f') === '\x00'
    @test last('\x00':'\x7f') === '\x7f'
end

@testset "make sure substrings do not accept code unit if it is not start of codepoint" begin
    comb = "x\u0302"
    @test comb[1:2] == comb
    @test_throws BoundsError comb[0:3]
    @test_throws BoundsError comb[1:4]
    @test_throws StringIndexError comb[1:3]
end

@testset "issue #9781" begin
    @test parse(Float64, "1\n") == 1.0
    @test [parse(Float64, t) for t in split("0,1\n", ",")][2] == 1.0
    @test_throws ArgumentError parse(Float64, split("0,1 X\n", ",")[2])
    @test parse(Float32, "1\n") == 1.0
    @test [parse(Float32, t) for t in split("0,1\n", ",")][2] == 1.0
    @test_throws ArgumentError parse(Float32, split("0,1 X\n", ",")[2])
end

struct tstStringType <: AbstractString
    data::Vector{UInt8}
end

@testset "AbstractString functions" begin
    # (upstream wraps the bytes of "12" with unsafe_wrap; a copy of them serves here)
    ts = tstStringType(Vector{UInt8}("12"))
    @test_throws MethodError ncodeunits(ts)
    @test_throws MethodError codeunit(ts)
    @test_throws MethodError codeunit(ts, 1)
    @test_throws MethodError codeunit(ts, true)
    @test_throws MethodError isvalid(ts, 1)
    @test_throws MethodError isvalid(ts, true)
    @test_throws MethodError iterate(ts, 1)
    @test_throws MethodError iterate(ts, true)
    @test_throws MethodError lastindex(ts)

    gs = GenericString("12")
    @test string(gs) isa GenericString

    @test Array{UInt8}(gs) == [49, 50]
    @test Array{Char,1}(gs) == ['1', '2']

    @test gs[1] == '1'
    @test gs[1:1] == "1"
    @test gs[[1]] == "1"

    @test Base.SubstitutionString("∀∃")[big(1)] == '∀'
    @test_throws StringIndexError GenericString("∀∃")[Int8(2)]
    @test_throws BoundsError GenericString("∀∃")[UInt16(10)]

    @test first(eachindex("foobar")) === 1
    @test first(eachindex("")) === 1
    @test last(eachindex("foobar")) === lastindex("foobar")
    @test iterate(eachindex("foobar"), 7) === nothing
    @test Int == eltype(Base.EachStringIndex) ==
                 eltype(Base.EachStringIndex{String}) ==
                 eltype(Base.EachStringIndex{GenericString}) ==
                 eltype(eachindex("foobar")) == eltype(eachindex(gs))
    for S in (GenericString, String)
        @test map(uppercase, S("foó")) == "FOÓ"
        @test map(ch -> 'ó', S("")) == ""
        @test map(ch -> 'ó', S("x")) == "ó"
        @test map(ch -> 'ó', S("xxx")) == "óóó"
    end
    @test nextind("fóobar", 0, 3) == 4

    @test Symbol(gs) === Symbol("12")

    @test eltype(gs) == Char
    @test firstindex(gs) == 1
    @test sizeof(gs) == 2
    @test ncodeunits(gs) == 2
    @test length(gs) == 2
    @test length(GenericString("")) == 0

    @test nextind(1:1, 1) == 2
    @test nextind([1], 1) == 2

    @test length(gs, 1, 2) == 2

    # strings are not promoted to one type
    let mixed = [Base.SubstitutionString("12"), GenericString("12"), SubString("123", 1, 2)]
        @test all(t -> t == "12", mixed)
        @test mixed isa Vector{AbstractString}
    end
    @test endswith(GenericString("abcd"), GenericString("cd"))
    @test startswith(GenericString("abcd"), GenericString("ab"))
end

@testset "issue #10307" begin
    @test typeof(map(t -> parse(Int16, t), AbstractString[])) == Vector{Int16}

    for T in [Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Int128, UInt128]
        for extreme in [typemax(T), typemin(T)]
            txt = "$extreme"
            @test tryparse(T, txt) == extreme
        end
    end

    for T in [Int8, Int16, Int32, Int64, Int128]
        for extreme in [typemax(T), typemin(T)]
            over = "$(extreme)0"
            @test tryparse(T, over) === nothing
        end
    end
end

@testset "issue #11142" begin
    # (the pointer / unsafe_string half is left out)
    @test tryparse(BigInt, "1234567890") == BigInt(1234567890)
    @test tryparse(BigInt, "1234567890-") === nothing

    @test tryparse(Float64, "64") == 64.0
    @test tryparse(Float64, "64o") === nothing
    @test tryparse(Float32, "32") == 32.0f0
    @test tryparse(Float32, "32o") === nothing
end

@testset "tryparse invalid chars" begin
    @test tryparse(UInt8, "\xb5") === nothing
    @test tryparse(UInt8, "100\xb5") === nothing
end

@testset "issue #10994: handle embedded NUL chars for string parsing" begin
    for T in [BigInt, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Int128, UInt128]
        @test_throws ArgumentError parse(T, "1\0")
    end
    for T in [BigInt, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Int128, UInt128, Float64, Float32]
        @test tryparse(T, "1\0") === nothing
    end
    # (the Cstring / ccall / unsafe_string checks are left out: pointers)
end

@testset "iteration" begin
    fancy = "ḟøøƀäṙ"
    @test [ch for ch in fancy] == ['ḟ', 'ø', 'ø', 'ƀ', 'ä', 'ṙ']
    @test [k for k in eachindex(fancy)] == [1, 4, 6, 8, 10, 12]
    @test [e for e in enumerate(fancy)] == [(1, 'ḟ'), (2, 'ø'), (3, 'ø'), (4, 'ƀ'), (5, 'ä'), (6, 'ṙ')]
end

@testset "isvalid edge conditions" begin
    for (code, ok) in ((0, true), (0xd7ff, true),
                       (0xd800, false), (0xdfff, false),
                       (0xe000, true), (0xffff, true),
                       (0x10000, true), (0x10ffff, true),
                       (0x110000, false))
        @test isvalid(Char, code) == ok
    end
    for (txt, ok) in (("\x00", true),
                      ("\x7f", true),
                      ("\x80", false),
                      ("\xbf", false),
                      ("\xc0", false),
                      ("\xff", false),
                      ("\xc0\x80", false),
                      ("\xc1\x80", false),
                      ("\xc2\x80", true),
                      ("\xc2\xc0", false),
                      ("\xed\x9f\xbf", true),
                      ("\xed\xa0\x80", false),
                      ("\xed\xbf\xbf", false),
                      ("\xee\x80\x80", true),
                      ("\xef\xbf\xbf", true),
                      ("\xf0\x90\x80\x80", true),
                      ("\xf4\x8f\xbf\xbf", true),
                      ("\xf4\x90\x80\x80", false),
                      ("\xf5\x80\x80\x80", false),
                      ("\ud800\udc00", false),
                      ("\udbff\udfff", false),
                      ("\ud800\u0100", false),
                      ("\udc00\u0100", false),
                      ("\udc00\ud800", false))
        @test isvalid(String, txt) == ok == isvalid(String(txt))
        @test isvalid(txt[1]) == ok
    end

    # issue #11203
    @test isvalid(String, UInt8[]) == true == isvalid("")

    # single bytes: ASCII valid, anything else alone invalid
    for (rng, ok) in ((0:0x7f, true), (0x80:0xff, false))
        for byte in rng
            @test isvalid(String, UInt8[byte]) == ok
        end
    end
    # overlong two-byte leads
    for byte = 0xc0:0xc1
        @test isvalid(String, UInt8[byte, 0x80]) == false
    end
    # two-byte sequences
    for byte = 0xc2:0xdf
        for (rng, ok) in ((0x00:0x7f, false), (0x80:0xbf, true), (0xc0:0xff, false))
            for cont in rng
                @test isvalid(String, UInt8[byte, cont]) == ok
            end
        end
    end
    # short three-byte sequences
    @test isvalid(String, UInt8[0xe0]) == false
    for (rng, ok) in ((0x00:0x9f, false), (0xa0:0xbf, true), (0xc0:0xff, false))
        for cont in rng
            @test isvalid(String, UInt8[0xe0, cont]) == false
            seq = UInt8[0xe0, cont, 0x80]
            @test isvalid(String, seq) == ok
            @test isvalid(String, @view(seq[1:end])) == ok
        end
    end
    # three-byte sequences
    for leads in (0xe1:0xec, 0xee:0xef)
        for byte in leads
            @test isvalid(String, UInt8[byte]) == false
            for (rng, ok) in ((0x00:0x7f, false), (0x80:0xbf, true), (0xc0:0xff, false))
                for cont in rng
                    @test isvalid(String, UInt8[byte, cont]) == false
                    @test isvalid(String, UInt8[byte, cont, 0x80]) == ok
                end
            end
        end
    end
    # 0xed: hangul, or the start of a surrogate
    for (rng, ok) in ((0x00:0x7f, false), (0x80:0x9f, true), (0xa0:0xff, false))
        for cont in rng
            @test isvalid(String, UInt8[0xed, cont]) == false
            @test isvalid(String, UInt8[0xed, cont, 0x80]) == ok
        end
    end
    # four-byte sequences
    for byte = 0xf0:0xf4
        if byte == 0xf0
            table = ((0x00:0x8f, false), (0x90:0xbf, true), (0xc0:0xff, false))
        elseif byte == 0xf4
            table = ((0x00:0x7f, false), (0x80:0x8f, true), (0x90:0xff, false))
        else
            table = ((0x00:0x7f, false), (0x80:0xbf, true), (0xc0:0xff, false))
        end
        for (rng, ok) in table
            for cont in rng
                @test isvalid(String, UInt8[byte, cont]) == false
                @test isvalid(String, UInt8[byte, cont, 0x80]) == false
                @test isvalid(String, UInt8[byte, cont, 0x80, 0x80]) == ok
            end
        end
    end
    # five-, six- and seven-byte forms are invalid
    for byte = 0xf8:0xfb
        @test isvalid(String, UInt8[byte, 0x80, 0x80, 0x80, 0x80]) == false
    end
    for byte = 0xfc:0xfd
        @test isvalid(String, UInt8[byte, 0x80, 0x80, 0x80, 0x80, 0x80]) == false
    end
    @test isvalid(String, UInt8[0xfe, 0x80, 0x80, 0x80, 0x80, 0x80]) == false
    @test isvalid(lstrip("blablabla")) == true
    @test isvalid(SubString(String(UInt8[0xfe, 0x80, 0x80, 0x80, 0x80, 0x80]), 1, 2)) == false
    # Chars
    @test isvalid('a')
    @test isvalid('柒')
    @test !isvalid("\xff"[1])
    @test !isvalid("\xc0\x80"[1])
    @test !isvalid("\xf0\x80\x80\x80"[1])
    @test !isvalid('\ud800')
    @test isvalid('\ud7ff')
    @test !isvalid('\udfff')
    @test isvalid('\ue000')
end

# left out: "NULL pointers are handled consistently by String" (pointers)

@testset "ascii for ASCII strings and non-ASCII strings" begin
    @test ascii("Hello, world") == "Hello, world"
    @test typeof(ascii("Hello, world")) == String
    @test ascii(GenericString("Hello, world")) == "Hello, world"
    @test typeof(ascii(GenericString("Hello, world"))) == String
    @test_throws ArgumentError ascii("Hello, ∀")
    @test_throws ArgumentError ascii(GenericString("Hello, ∀"))
end

@testset "issue #17271: lastindex() doesn't throw an error even with invalid strings" begin
    @test lastindex("\x90") == 1
    @test lastindex("\xce") == 1
end

@testset "strings/basic.jl: issue #17624 indexing a String with a colon" begin
    @test "abc"[:] == "abc"
end

@testset "issue #18280: next/nextind must return past String's underlying data" begin
    for str in ("Hello", "Σ", "こんにちは", "😊😁")
        local str
        @test iterate(str, lastindex(str))[2] > sizeof(str)
        @test nextind(str, lastindex(str)) > sizeof(str)
    end
end

# a string whose indices are character positions, not UTF-8 offsets
mutable struct CharStr <: AbstractString
    chars::Vector{Char}
    CharStr(x) = new(collect(x))
end
Base.iterate(x::CharStr) = iterate(x.chars)
Base.iterate(x::CharStr, i::Int) = iterate(x.chars, i)
Base.lastindex(x::CharStr) = lastindex(x.chars)
Base.length(x::CharStr) = length(x.chars)

@testset "cmp without UTF-8 indexing" begin
    @test "áB" != CharStr("áá")
    @test cmp("áB", CharStr("áá")) == -1
    @test cmp("\U1f596\U1f596", CharStr("\U1f596")) == 1
    @test cmp(CharStr("\U1f596"), "\U1f596\U1f596") == -1
end

@testset "repeat" begin
    repeat(GenericString("x"), 1)
    @test repeat("xx", 3) === repeat(SubString("xx", 2), 6) === repeat("x", 6) === repeat('x', 6) === repeat(GenericString("x"), 6) === "xxxxxx"
    @test repeat("αα", 3) === repeat(SubString("αα", 3), 6) === repeat("α", 6) === repeat('α', 6) === repeat(GenericString("α"), 6) === "αααααα"
    @test repeat("x", 1) === repeat('x', 1) === "x"^1 == 'x'^1 === GenericString("x")^1 === "x"
    @test repeat("x", 0) === repeat('x', 0) === "x"^0 == 'x'^0 === GenericString("x")^0 === ""

    for triple in ["xxx", "ååå", "∀∀∀", "🍕🍕🍕"]
        ch = triple[1]
        single = string(ch)
        @test_throws ArgumentError repeat(ch, -1)
        @test_throws ArgumentError repeat(single, -1)
        @test_throws ArgumentError repeat(triple, -1)
        for T in (Int, UInt)
            @test repeat(ch, T(0)) === ""
            @test repeat(single, T(0)) === ""
            @test repeat(triple, T(0)) === ""
            @test repeat(ch, T(1)) === single
            @test repeat(single, T(1)) === single
            @test repeat(triple, T(1)) === triple
            @test repeat(ch, T(3)) === triple
            @test repeat(single, T(3)) === triple
            @test repeat(triple, T(3)) === triple * triple * triple
        end
    end
    # issue #32160
    @test_throws OutOfMemoryError repeat('x', typemax(Csize_t))
end

@testset "issue #12495: check that logical indexing attempt raises ArgumentError" begin
    @test_throws ArgumentError "abc"[[true, false, true]]
    @test_throws ArgumentError "abc"[BitArray([true, false, true])]
end

@testset "issue #46039 enhance StringIndexError display" begin
    @test sprint(showerror, StringIndexError("αn", 2)) == "StringIndexError: invalid index [2], valid nearby indices [1]=>'α', [3]=>'n'"
    @test sprint(showerror, StringIndexError("α\n", 2)) == "StringIndexError: invalid index [2], valid nearby indices [1]=>'α', [3]=>'\\n'"
end

@testset "concatenation" begin
    @test "ab" * "cd" == "abcd"
    @test 'a' * "bc" == "abc"
    @test "ab" * 'c' == "abc"
    @test 'a' * 'b' == "ab"
    @test 'a' * "b" * 'c' == "abc"
    @test "a" * 'b' * 'c' == "abc"
end

# a long `*` chain of interpolated strings (upstream: a possible subtyping issue)
field_or_empty(dic, key) = haskey(dic, key) ? "$(dic[key])" : ""
function joined_fields(dic)
    out = field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") *
        "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") *
        "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") *
        "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") *
        "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "") * "," * field_or_empty(dic, "")
end

@testset "strings/basic.jl: long concatenation of interpolated strings" begin
    @test joined_fields(Dict()) == ",,,,,,,,,,,,,,,,,,"
end

@testset "thisind" begin
    let cases = Any["∀α>β:α+1>β", Base.SubstitutionString("∀α>β:α+1>β"),
                    SubString("123∀α>β:α+1>β123", 4, 18),
                    SubString(Base.SubstitutionString("123∀α>β:α+1>β123"), 4, 18)]
        for str in cases
            @test_throws BoundsError thisind(str, -2)
            @test_throws BoundsError thisind(str, -1)
            @test thisind(str, Int8(0)) == 0
            @test thisind(str, 0) == 0
            @test thisind(str, 1) == 1
            @test thisind(str, 2) == 1
            @test thisind(str, 3) == 1
            @test thisind(str, 4) == 4
            @test thisind(str, 5) == 4
            @test thisind(str, 6) == 6
            @test thisind(str, 15) == 15
            @test thisind(str, 16) == 15
            @test thisind(str, 17) == 17
            @test_throws BoundsError thisind(str, 18)
            @test_throws BoundsError thisind(str, 19)
        end
    end

    let cases = Any["", Base.SubstitutionString(""), SubString("123", 2, 1),
                    SubString(Base.SubstitutionString("123"), 2, 1)]
        for str in cases
            @test_throws BoundsError thisind(str, -1)
            @test thisind(str, 0) == 0
            @test thisind(str, 1) == 1
            @test_throws BoundsError thisind(str, 2)
        end
    end
end

@testset "prevind and nextind" begin
    for str in Any["∀α>β:α+1>β", GenericString("∀α>β:α+1>β")]
        @test_throws BoundsError prevind(str, 0)
        @test_throws BoundsError prevind(str, 0, 0)
        @test_throws BoundsError prevind(str, 0, 1)
        @test prevind(str, 1) == 0
        @test prevind(str, Int8(1), Int8(1)) == 0
        @test prevind(str, 1, 1) == 0
        @test prevind(str, 1, 0) == 1
        @test prevind(str, 2) == 1
        @test prevind(str, 2, 1) == 1
        @test prevind(str, 4) == 1
        @test prevind(str, 4, 1) == 1
        @test prevind(str, 5) == 4
        @test prevind(str, 5, 1) == 4
        @test prevind(str, 5, 2) == 1
        @test prevind(str, 5, 3) == 0
        @test prevind(str, 15) == 14
        @test prevind(str, 15, 1) == 14
        @test prevind(str, 15, 2) == 13
        @test prevind(str, 15, 3) == 12
        @test prevind(str, 15, 4) == 10
        @test prevind(str, 15, 10) == 0
        @test prevind(str, 15, 9) == 1
        @test prevind(str, 16) == 15
        @test prevind(str, 16, 1) == 15
        @test prevind(str, 16, 2) == 14
        @test prevind(str, 17) == 15
        @test prevind(str, 17, 1) == 15
        @test prevind(str, 17, 2) == 14
        @test_throws BoundsError prevind(str, 18)
        @test_throws BoundsError prevind(str, 18, 0)
        @test_throws BoundsError prevind(str, 18, 1)

        @test_throws BoundsError nextind(str, -1)
        @test_throws BoundsError nextind(str, -1, 0)
        @test_throws BoundsError nextind(str, -1, 1)
        @test nextind(str, 0, 2) == 4
        @test nextind(str, Int8(0), Int8(2)) == 4
        @test nextind(str, 0, 20) == 26
        @test nextind(str, 0, 10) == 15
        @test nextind(str, 1) == 4
        @test nextind(str, Int8(1)) == 4
        @test nextind(str, 1, 1) == 4
        @test nextind(str, 1, 2) == 6
        @test nextind(str, 1, 9) == 15
        @test nextind(str, 1, 10) == 17
        @test nextind(str, 2) == 4
        @test nextind(str, 2, 1) == 4
        @test nextind(str, 3) == 4
        @test nextind(str, 3, 1) == 4
        @test nextind(str, 4) == 6
        @test nextind(str, 4, 1) == 6
        @test nextind(str, 14) == 15
        @test nextind(str, 14, 1) == 15
        @test nextind(str, 15) == 17
        @test nextind(str, 15, 1) == 17
        @test nextind(str, 15, 2) == 18
        @test nextind(str, 16) == 17
        @test nextind(str, 16, 1) == 17
        @test nextind(str, 16, 2) == 18
        @test nextind(str, 16, 3) == 19
        @test_throws BoundsError nextind(str, 17)
        @test_throws BoundsError nextind(str, 17, 0)
        @test_throws BoundsError nextind(str, 17, 1)

        # n steps agree with n single steps
        for start in 0:ncodeunits(str)+1
            fwd = back = start
            for steps in 1:40
                if 1 ≤ back
                    back = prevind(str, back)
                    @test prevind(str, start, steps) == back
                end
                if fwd ≤ ncodeunits(str)
                    fwd = nextind(str, fwd)
                    @test nextind(str, start, steps) == fwd
                end
            end
        end
    end
    # left out: the nested "return type infers to `Int`" testset (inference)
end

@testset "first and last" begin
    eps = "∀ϵ≠0: ϵ²>0"
    @test_throws ArgumentError first(eps, -1)
    @test first(eps, 0) == ""
    @test first(eps, 1) == "∀"
    @test first(eps, 2) == "∀ϵ"
    @test first(eps, 3) == "∀ϵ≠"
    @test first(eps, 4) == "∀ϵ≠0"
    @test first(eps, length(eps)) == eps
    @test first(eps, length(eps) + 1) == eps
    @test_throws ArgumentError last(eps, -1)
    @test last(eps, 0) == ""
    @test last(eps, 1) == "0"
    @test last(eps, 2) == ">0"
    @test last(eps, 3) == "²>0"
    @test last(eps, 4) == "ϵ²>0"
    @test last(eps, length(eps)) == eps
    @test last(eps, length(eps) + 1) == eps
end

@testset "invalid code point" begin
    bad = String([0x61, 0xba, 0x41])
    @test !isvalid(bad)
    @test bad[2] == reinterpret(Char, UInt32(0xba) << 24)
end

@testset "ncodeunits" begin
    for (str, n) in ["" => 0, "a" => 1, "abc" => 3,
                     "α" => 2, "abγ" => 4, "∀" => 3,
                     "∀x∃y" => 8, "🍕" => 4, "🍕∀" => 7]
        @test ncodeunits(str) == n
        @test ncodeunits(GenericString(str)) == n
    end
end

@testset "0-step nextind and prevind" begin
    for T in [String, SubString, Base.SubstitutionString, GenericString]
        emp = convert(T, "")
        @test nextind(emp, 0, 0) == 0
        @test_throws BoundsError nextind(emp, 1, 0)
        @test_throws BoundsError prevind(emp, 0, 0)
        @test prevind(emp, 1, 0) == 1

        str = convert(T, "∀x∃")
        @test nextind(str, 0, 0) == 0
        @test nextind(str, 1, 0) == 1
        @test_throws StringIndexError nextind(str, 2, 0)
        @test_throws StringIndexError nextind(str, 3, 0)
        @test nextind(str, 4, 0) == 4
        @test nextind(str, 5, 0) == 5
        @test_throws StringIndexError nextind(str, 6, 0)
        @test_throws StringIndexError nextind(str, 7, 0)
        @test_throws BoundsError nextind(str, 8, 0)

        @test_throws BoundsError prevind(str, 0, 0)
        @test prevind(str, 1, 0) == 1
        @test_throws StringIndexError prevind(str, 2, 0)
        @test_throws StringIndexError prevind(str, 3, 0)
        @test prevind(str, 4, 0) == 4
        @test prevind(str, 5, 0) == 5
        @test_throws StringIndexError prevind(str, 6, 0)
        @test_throws StringIndexError prevind(str, 7, 0)
        @test prevind(str, 8, 0) == 8
    end
end

@testset "Conversion to Type{Union{String, SubString{String}}}" begin
    plain = "abc"
    sub = SubString(plain)
    for T in [String, SubString{String}]
        from_plain = convert(T, plain)
        from_sub = convert(T, sub)
        if T == String
            @test from_plain === from_sub === plain
        elseif T == SubString{String}
            @test from_plain === from_sub === sub
        end
    end
end

# left out: the unsafe_wrap check of the bytes of "\xcc\xdd\xee\xff\x80" (unsafe_*)

@testset "strings/basic.jl: iterate and nextind over malformed UTF-8" begin
    # (string, index after the first character)
    table = [("a", 2), ("az", 2), ("a\xb1", 2), ("a\xb1z", 2), ("a\xb1\x83", 2),
             ("a\xb1\x83\x84", 2), ("a\xb1\x83\x84z", 2),
             ("\x81", 2), ("\x81z", 2), ("\x81\xb1", 2), ("\x81\xb1z", 2), ("\x81\xb1\x83", 2),
             ("\x81\xb1\x83\x84", 2), ("\x81\xb1\x83\x84z", 2),
             ("\xce", 2), ("\xcez", 2), ("\xce\xb1", 3), ("\xce\xb1z", 3), ("\xce\xb1\x83", 3),
             ("\xce\xb1\x83\x84", 3), ("\xce\xb1\x83\x84z", 3),
             ("\xe2", 2), ("\xe2z", 2), ("\xe2\x88", 3), ("\xe2\x88z", 3), ("\xe2\x88\x83", 4),
             ("\xe2\x88\x83z", 4), ("\xe2\x88\x83\x84", 4), ("\xe2\x88\x83\x84z", 4),
             ("\xf0", 2), ("\xf0z", 2), ("\xf0\x9f", 3), ("\xf0\x9fz", 3), ("\xf0\x9f\x98", 4),
             ("\xf0\x9f\x98z", 4), ("\xf0\x9f\x98\x84", 5), ("\xf0\x9f\x98\x84z", 5),
             ("\xf8", 2), ("\xf8z", 2), ("\xf8\x9f", 2), ("\xf8\x9fz", 2), ("\xf8\x9f\x98", 2),
             ("\xf8\x9f\x98z", 2), ("\xf8\x9f\x98\x84", 2), ("\xf8\x9f\x98\x84z", 2)]
    for (str, after) in table
        @test iterate(str, 1)[2] == after
        @test nextind(str, 1) == after
    end
end

@testset "strings/basic.jl: codeunit vectors" begin
    let str = "∀x∃y", cu = codeunits(str)
        @test cu isa Base.CodeUnits{UInt8,String}
        @test length(cu) == ncodeunits(str) == 8
        @test sizeof(cu) == sizeof(str)
        @test eltype(cu) === UInt8
        @test size(cu) == (length(cu),)
        @test strides(cu) == (1,)
        @test cu[1] == 0xe2
        @test cu[2] == 0x88
        @test cu[8] == 0x79
        @test_throws Base.CanonicalIndexError (cu[1] = 0x00)
        @test collect(cu) == codeunits("∀x∃y")
        @test Base.elsize(cu) == Base.elsize(typeof(cu)) == 1
        @test similar(typeof(cu), 3) isa Vector{UInt8}
    end
end

@testset "issue #24388" begin
    # (the unsafe_wrap half is left out)
    str = "abc"
    bytes = Vector{UInt8}(str)
    bytes[1] = 0x40
    @test str == "abc"
end

@testset "strings/basic.jl: PR #25535 String of a view of bytes" begin
    let bytes = [0x40, 0x41, 0x42]
        @test String(view(bytes, 2:3)) == "AB"
    end
end

# left out: "issue #54369" (Base.StringMemory, the memory a String is built in)

@testset "strings/basic.jl: PR #25533 length agrees for String and GenericString" begin
    let rng = MersenneTwister(1), samples = ["∀εa∀aε" * String(rand(rng, UInt8, 100)) * "∀εa∀aε",
                                            String(rand(rng, UInt8, 200))]
        for str in samples, i in 1:ncodeunits(str)+1, j in 0:ncodeunits(str)
            @test length(str, i, j) == length(GenericString(str), i, j)
        end
        for i in 0:10, j in 1:100,
            str in [randstring(rng, i), randstring(rng, "∀∃α1", i), String(rand(rng, UInt8, i))]
            @test length(str) == length(GenericString(str))
        end
    end
end

@testset "conversion of SubString to the same type, issue #25525" begin
    sub = SubString("ab", 1, 1)
    same = convert(SubString{String}, sub)
    @test same === sub
    chop("ab") === chop.(["ab"])[1]
end

@testset "show StringIndexError" begin
    txt = "abcdefghκijklmno"
    err = StringIndexError(txt, 10)
    @test sprint(showerror, err) == "StringIndexError: invalid index [10], valid nearby indices [9]=>'κ', [11]=>'i'"
    txt = "κ"
    err = StringIndexError(txt, 2)
    @test sprint(showerror, err) == "StringIndexError: invalid index [2], valid nearby index [1]=>'κ'"
end

@testset "summary" begin
    @test sprint(summary, "foα") == "4-codeunit String"
    @test sprint(summary, SubString("foα", 2)) == "3-codeunit SubString{String}"
    @test sprint(summary, "") == "empty String"
end

@testset "isascii" begin
    n = 1
    @test isascii("S"^n) == true
    @test isascii("S"^(n - 1)) == true
    @test isascii("S"^(n + 1)) == true

    @test isascii("λ" * ("S"^(n))) == false
    @test isascii(("S"^(n)) * "λ") == false

    for p = 1:16
        n = 2^p
        @test isascii("S"^n) == true
        @test isascii("S"^(n - 1)) == true
        @test isascii("S"^(n + 1)) == true

        @test isascii("λ" * ("S"^(n))) == false
        @test isascii(("S"^(n)) * "λ") == false
        @test isascii("λ" * ("S"^(n - 1))) == false
        @test isascii(("S"^(n - 1)) * "λ") == false
        if n > 4
            @test isascii("λ" * ("S"^(n - 3))) == false
            @test isascii(("S"^(n - 3)) * "λ") == false
        end
    end
end

# upstream defines these two methods inside the next testset
Base.codeunit(::tstStringType) = UInt8
Base.codeunits(t::tstStringType) = t.data

@testset "Plug holes in test coverage" begin
    @test_throws MethodError checkbounds(Bool, "abc", [1.0, 2.0])

    apple = Vector{UInt8}("Apple")
    @test apple == [0x41, 0x70, 0x70, 0x6c, 0x65]

    wrapped = tstStringType(apple)
    @test hash(wrapped, UInt(1)) == hash("Apple", UInt(1))

    @test length("abc", 1, 3) == length("abc", UInt(1), UInt(3))

    @test isascii(GenericString("abc"))

    cu = Base.CodeUnits("abc")
    @test Base.IndexStyle(Base.CodeUnits) == IndexLinear()
    @test Base.elsize(cu) == sizeof(UInt8)
    # (the unsafe_convert / cconvert pointer check is left out)
end

@testset "LazyString" begin
    @test repr(LazyString(1 + 2, " is 3")) == "\"3 is 3\""
    let lz = Dict(LazyString(1 + 2, " is 3") => 3)
        @test lz["3 is 3"] == 3
    end
    lz = LazyString("1+2")
    @test isequal(lz, LazyString("1+2"))
    @test ncodeunits(lz) == ncodeunits("1+2")
    @test codeunit(lz) == UInt8
    @test codeunit(lz, 2) == 0x2b
    @test isvalid(lz, 1)
    @test lastindex(lz) == lastindex("1+2")
    # (the Base.infer_effects checks are left out: compiler effects)
    let num = 49248
        @test String(LazyString("PR n°", num)) == "PR n°49248"
    end
end

@testset "String Effects" begin
    # (all but one check here are Core.Compiler effects and are left out)
    @test_throws ArgumentError Symbol("a\0a")
end

# left out: "Ensure UTF-8 DFA can never leave invalid state", "Ensure  UTF-8 DFA stays in
# ASCII State for all ASCII" and "Validate UTF-8 DFA" (Base._isvalid_utf8_dfa, internals
# of String validation)

@testset "transcode" begin
    ascii_first = "zβγ"
    two_byte_first = "αβγ"
    three_byte_first = "आख"
    four_byte_first = "𒃵𒃰"
    @testset for str in (ascii_first, two_byte_first, three_byte_first, four_byte_first)
        @test transcode(String, str) === str
        @test transcode(String, transcode(UInt16, str)) == str
        @test transcode(String, transcode(UInt16, transcode(UInt8, str))) == str
        @test transcode(String, transcode(Int32, transcode(UInt8, str))) == str
        @test transcode(String, transcode(UInt32, transcode(UInt8, str))) == str
        @test transcode(String, transcode(UInt8, transcode(UInt16, str))) == str
    end
end

# left out: "cwstring" (Windows only)

@testset "eltype for AbstractString subtypes" begin
    @test eltype(String) == Char
    @test eltype(SubString{String}) == Char

    hb = codeunits("hello")
    @test eltype(hb) === UInt8
end
