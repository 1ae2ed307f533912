"""Julia's strings: byte (UTF-8 code unit) indices, SubString, StringIndexError, and
string literals' byte escapes. The facts are Julia's (Base's String methods)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door.wiring import Runtime


@pytest.fixture(scope="module")
def rt() -> Runtime:
    r = Runtime()
    r.run_source('s = "αβc"\n', "strings.jl")
    return r


def value(rt: Runtime, src: str) -> str:
    """`repr` of src's value, as Julia prints it."""
    return rt.run_source(f"repr({src})", "t.jl")


# (expression, Julia's repr of its value)
FACTS = [
    ("s[1]", "'α'"), ("s[3]", "'β'"), ("s[5]", "'c'"), ("s[end]", "'c'"),
    ("length(s)", "3"), ("lastindex(s)", "5"), ("firstindex(s)", "1"),
    ("ncodeunits(s)", "5"), ("sizeof(s)", "5"), ("codeunit(s, 1)", "0xce"),
    ("s[1:3]", '"αβ"'), ("s[3:end]", '"βc"'), ("s[4:3]", '""'),
    ("collect(eachindex(s))", "[1, 3, 5]"), ("collect(keys(s))", "[1, 3, 5]"),
    ("collect(pairs(s))", "[1 => 'α', 3 => 'β', 5 => 'c']"),
    ("[c for c in s]", "['α', 'β', 'c']"), ("iterate(s, 3)", "('β', 5)"),
    ("iterate(s, 6)", "nothing"),
    ("thisind(s, 2)", "1"), ("thisind(s, 6)", "6"), ("nextind(s, 1)", "3"),
    ("nextind(s, 0)", "1"), ("nextind(s, 5)", "6"), ("nextind(s, 1, 3)", "6"),
    ("prevind(s, 5)", "3"), ("prevind(s, 6)", "5"), ("prevind(s, 1)", "0"),
    ("prevind(s, 4, 2)", "1"), ("isvalid(s, 2)", "false"), ("isvalid(s, 3)", "true"),
    ("length(s, 2, 5)", "3"), ("length(s, 3, 4)", "1"),
    ("findfirst('c', s)", "5"), ("findfirst(isequal('β'), s)", "3"),
    ("findlast('α', s)", "1"), ("findnext('c', s, 3)", "5"), ("findprev('α', s, 3)", "1"),
    ("findfirst(\"βc\", s)", "3:5"), ("findall('c', s)", "[5]"),
    ("findfirst('z', s)", "nothing"), ("findlast('β', \"xβ\")", "2"),
    ("findfirst('∀', \"\\xe2\\x88\\xe2\\x88\\x80\")", "3"), ("findprev('c', s, 6)", "nothing"),
    ("get(s, 3, 'X')", "'β'"), ("get(s, 9, 'X')", "'X'"),
    ("SubString(s, 3)", '"βc"'), ("typeof(SubString(s, 3))", "SubString{String}"),
    ("SubString(s, 3)[3]", "'c'"), ("SubString(s, 3) == \"βc\"", "true"),
    ('hash(SubString("abc", 1)) == hash("abc")', "true"),
    ("lastindex(SubString(s, 1, 3))", "3"), ("SubString(s, 3, 2)", '""'),
    # ASCII strings keep their one-byte characters
    ('"abc"[2]', "'b'"), ('"abc"[2:3]', '"bc"'), ('lastindex("abc")', "3"),
    # byte escapes in literals are bytes: two of them may spell one character
    ('"\\xce\\xb1" == "α"', "true"), ('codeunits("\\xff")', "UInt8[0xff]"),
    ('length("\\xc0\\x80")', "1"), ('nextind("\\xe2\\x88z", 1)', "3"),
    ('"\\101"', '"A"'),
    # validity, by Julia's rules of UTF-8
    ('isvalid("\\xc0\\x80")', "false"), ('isvalid("αβ")', "true"),
    ("isvalid(String, UInt8[0xe0, 0xa0, 0x80])", "true"), ("isvalid(Char, 0xd800)", "false"),
    ("reinterpret(UInt32, 'α')", "0xceb10000"),
    ('"a\\xbaA"[2] == reinterpret(Char, UInt32(0xba) << 24)', "true"),
    # a prefix or suffix ends at a character boundary
    ('startswith("\\xe2\\x88", "\\xe2")', "false"), ('startswith("αβ", "α")', "true"),
    ('endswith("∀", "\\x88\\x80")', "false"), ('endswith("x∀", "∀")', "true"),
    # functions that return SubStrings
    ('strip("  aβ  ")', '"aβ"'), ('typeof(strip(" a "))', "SubString{String}"),
    ("lstrip(\"xxab\", 'x')", '"ab"'), ('chop("αβγ")', '"αβ"'),
    ('chop("αβγ", head=1, tail=1)', '"β"'), ('chomp("ab\\r\\n")', '"ab"'),
    ('chopsuffix("αβγ", "γ")', '"αβ"'), ('uppercasefirst("αβ")', '"Αβ"'),
    ('parent(view("abcdefg", 2:4))', '"abcdefg"'),
    ('sprint(summary, "foα")', '"4-codeunit String"'),
    ("isspace('\\u2003')", "true"), ("isspace('\\x1c')", "false"), ("isdigit('٣')", "false"),
    ("isnumeric('٣')", "true"), ("isletter('β')", "true"), ("isprint('\\n')", "false"),
    ("repeat('α', 3)", '"ααα"'), ('"abc"[:]', '"abc"'),
    # strings that wrap another: its indices and characters
    ('GenericString("∀α")[4]', "'α'"), ('lastindex(GenericString("∀α"))', "4"),
    ('GenericString("ab") == "ab"', "true"), ('string(GenericString("ab"), "c")', '"abc"'),
    ('thisind(Base.SubstitutionString("∀α"), 2)', "1"),
    ('Array{UInt8}(GenericString("12"))', "UInt8[0x31, 0x32]"),
    ('Vector{Char}("αb")', "['α', 'b']"),
    # parsing past the type's range is nothing (tryparse), not a wider integer
    ('tryparse(Int64, "92233720368547758070")', "nothing"),
    ("string(12345, base=62)", '"3D7"'), ('parse(Int, "3D7", base=62)', "12345"),
    ('parse(Int, "zz", base=36)', "1295"),
    ("LazyString(1 + 2, \" is 3\")", '"3 is 3"'), ('typeof(LazyString("a"))', "LazyString"),
    ('transcode(UInt16, "𒃵a")', "UInt16[0xd808, 0xdcf5, 0x0061]"),
    ('transcode(String, transcode(Int32, "αβ"))', '"αβ"'),
    ('first(eachindex(""))', "1"), ('eltype(eachindex("ab"))', "Int64"),
    ('"∀∃"[big(4)]', "'∃'"),
    # split: SubStrings, any delimiter Julia takes (Chars, a predicate), limit, keepempty
    ("split(\"a,b;c\", [',', ';'])", 'SubString{String}["a", "b", "c"]'),
    ('split("a b", isspace)', 'SubString{String}["a", "b"]'),
    ('split("a,b,c", ",", limit=2)', 'SubString{String}["a", "b,c"]'),
    ('split("a,,b", ",", keepempty=false)', 'SubString{String}["a", "b"]'),
    ('split("abc", "")', 'SubString{String}["a", "b", "c"]'),
    ('parentindices(split("αβ,γ", ",")[2])', "(6:7,)"),
    # randstring(rng, n) draws n characters (it joined n random floats)
    ('let r = randstring(MersenneTwister(1), 3); (length(r), all(isletter(c) || isdigit(c) '
     'for c in r)); end', "(3, true)"),
    # `local x` of a for loop's own variable keeps its value
    ('let out = []; for s in ("ab", "c"); local s; push!(out, s); end; out; end', '["ab", "c"]'),
]


@pytest.mark.parametrize(("src", "want"), FACTS)
def test_byte_indices(rt: Runtime, src: str, want: str) -> None:
    assert value(rt, src) == want


# (expression, the error kind Julia throws)
ERRORS = [
    ("s[2]", "StringIndexError"), ("s[1:2]", "StringIndexError"),
    ("s[2:3]", "StringIndexError"), ("s[6]", "BoundsError"), ("s[0]", "BoundsError"),
    ("s[1:7]", "BoundsError"), ("SubString(s, 2)", "StringIndexError"),
    ("nextind(s, 2, 0)", "StringIndexError"), ("nextind(s, 6)", "BoundsError"),
    ("prevind(s, 0)", "BoundsError"), ("findnext('c', s, 2)", "StringIndexError"),
    ("iterate(s, 2)", "StringIndexError"), ("get(s, 2, 'X')", "StringIndexError"),
    ("s[[true, false, true]]", "ArgumentError"), ('Symbol("ab\\0")', "ArgumentError"),
    ("repeat('x', -1)", "ArgumentError"), ('repeat("x", -1)', "ArgumentError"),
    ("isdigit(\"1\")", "MethodError"), ('parse(Int64, "92233720368547758070")', "OverflowError"),
    ('Matrix{UInt8}("ab")', "MethodError"),
    ('parse(Int, "zz", base=63)', "ArgumentError"),
    ('split("a b", 3)', "MethodError"),
]


@pytest.mark.parametrize(("src", "kind"), ERRORS)
def test_index_errors(rt: Runtime, src: str, kind: str) -> None:
    with pytest.raises(ZylaError) as e:
        value(rt, src)
    assert e.value.kind == kind


def test_string_index_error_message(rt: Runtime) -> None:
    got = rt.run_source('sprint(showerror, StringIndexError("αn", 2))', "t.jl")
    assert got == "StringIndexError: invalid index [2], valid nearby indices [1]=>'α', [3]=>'n'"
    caught = rt.run_source('try; "αβ"[2]; catch e; (e isa StringIndexError, e.index); end',
                           "t.jl")
    assert caught == (True, 2)



def test_textwidth(rt: Runtime) -> None:
    """`textwidth` of a String or a Char was a MethodError: the terminal columns, wide
    East Asian characters two, combining marks and controls none."""
    got = rt.run_source('(textwidth("苹a"), textwidth(\'x\'), textwidth("e\u0301"), '
                        'textwidth("\t"), textwidth(""), textwidth(SubString("苹果", 4)))',
                        "t.jl")
    assert got == (3, 1, 1, 0, 0, 2)


def test_codeunits_are_read_only(rt: Runtime) -> None:
    """`cu = codeunits(s); cu[1] = 0x00` changed a copy that s never saw (Julia's
    CodeUnits has no setindex!: a CanonicalIndexError); String(cu) still reads them."""
    got = rt.run_source('cu = codeunits("∀x"); e = try; cu[1] = 0x00; catch err; err; end\n'
                        'c = copy(cu); c[1] = 0x01\n'
                        '(e isa CanonicalIndexError, cu[1], String(cu), String(cu), c[1])', "t.jl")
    assert got == (True, 0xE2, "∀x", "∀x", 1)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=" \t\n\x0b\x0c\rab\x1c\x85é", max_size=14))
def test_split_on_whitespace_agrees_with_the_isspace_predicate(rt: Runtime, text: str) -> None:
    """`split(s)` (its ASCII strings take a regex path) gives the SubStrings that
    `split(s, isspace; keepempty = false)` gives, at the same offsets into s."""
    rt.globals["s"] = text
    got = rt.run_source("split(s)", "t.jl")
    want = rt.run_source("split(s, isspace; keepempty = false)", "t.jl")
    assert [(str(p), p.offset) for p in got] == [(str(p), p.offset) for p in want]


# --- string types a program defines, views, prefixes (conformance: strings_basic.jl) ------

_CHARSTR = """
mutable struct CharStr <: AbstractString
    chars::Vector{Char}
    CharStr(x) = new(collect(x))
end
Base.iterate(x::CharStr) = iterate(x.chars)
Base.iterate(x::CharStr, i::Int) = iterate(x.chars, i)
Base.lastindex(x::CharStr) = lastindex(x.chars)
Base.length(x::CharStr) = length(x.chars)
"""


def test_a_programs_string_type_prints_compares_and_hashes_by_its_characters() -> None:
    """Base's generic AbstractString methods read a string type by its `iterate`: it
    printed as its struct fields and compared unequal to an equal String (silently)."""
    z = Runtime()
    z.run_source(_CHARSTR + 'c = CharStr("áá")', "t.jl")
    got = z.run_source('(String(c), string(c), repr(c), c == "áá", "áB" == c, '
                       'isequal(c, "áá"), hash(c) == hash("áá"), cmp("áB", c), '
                       'cmp(CharStr("🖖"), "🖖🖖"), c < "b")', "t.jl")
    assert got == ("áá", "áá", '"áá"', True, False, True, True, -1, -1, False)


def test_a_print_method_is_what_string_and_println_write() -> None:
    z = Runtime()
    z.run_source('struct P; a; end; Base.print(io::IO, p::P) = print(io, "P!")\n'
                 'Base.show(io::IO, p::P) = print(io, "Pshow")', "t.jl")
    assert z.run_source('(string(P(1)), "$(P(1))", repr(P(1)))', "t.jl") == ("P!", "P!",
                                                                             "Pshow")


def test_views_of_a_string_are_substrings_of_unit_ranges_only(rt: Runtime) -> None:
    got = rt.run_source('x = "abcdefg"; y = @views (x[3], x[1:2], x[[1, 4]], x[1:2:5]); '
                        'repr((y, typeof(y[2]), typeof(y[3])))', "t.jl")
    assert got == '((\'c\', "ab", "ad", "ace"), SubString{String}, String)'
    for src in ('view("abc", [1, 2])', 'view("abc", 2)', 'view("abc", 1:1:2)',
                '@view "abcde"[[1, 3]]'):
        with pytest.raises(ZylaError) as e:
            rt.run_source(src, "t.jl")
        assert e.value.kind == "MethodError" and "no method matching view(::String" in str(e.value)


def test_string_of_a_byte_vector_takes_its_bytes(rt: Runtime) -> None:
    got = rt.run_source('b = [0x61, 0x62]; w = copy(reinterpret(UInt32, [0x61, 0x62, 0x63, '
                        '0x21])); v = [0x61, 0x62, 0x63]; '
                        '(String(b), length(b), String(reinterpret(UInt8, w)), length(w), '
                        'String(view(v, 1:2)), length(v))', "t.jl")
    assert got == ("ab", 0, "abc!", 1, "ab", 3)


def test_typemin_typemax_of_strings_and_values(rt: Runtime) -> None:
    got = rt.run_source('(typemin(String), typemin("abc"), typemin(1), typemax(0x01), '
                        'typemin(Int8(3)))', "t.jl")
    assert got == ("", "", -(2 ** 63), 255, -128)


def test_objectid_agrees_with_egal(rt: Runtime) -> None:
    got = rt.run_source('a = [1]; (objectid("ab") == objectid("a" * "b"), objectid(a) == '
                        'objectid(a), objectid(a) == objectid([1]), objectid(1) == '
                        'objectid(1.0), typeof(objectid(2)) == UInt64)', "t.jl")
    assert got == (True, True, False, False, True)


def test_startswith_a_set_of_characters_and_an_iobuffer(rt: Runtime) -> None:
    """`startswith(s, ('j', 'J'))` compared s with the tuple's printed text: false."""
    got = rt.run_source('io = IOBuffer("JuliaLang"); (startswith("Julia", (\'j\', \'J\')), '
                        'endswith("Julia", [\'a\']), startswith("", (\'a\',)), '
                        'endswith("Julia", Set([\'x\'])), startswith(io, "Jul"), '
                        'startswith(io, (\'j\', \'J\')), startswith(io, "x"), '
                        'String(take!(io)))', "t.jl")
    assert got == (True, True, False, False, True, True, False, "JuliaLang")
    for src in ("startswith(1, 1)", 'occursin(1, "12")', 'write(IOBuffer("a"), "b")',
                'occursin("a", \'a\')', 'startswith(\'a\', "a")'):
        with pytest.raises(ZylaError) as e:
            rt.run_source(src, "t.jl")
        assert e.value.kind in ("MethodError", "ArgumentError")


def test_a_literal_of_several_string_types_is_a_vector_of_their_join(rt: Runtime) -> None:
    got = rt.run_source('(typeof([GenericString("1"), SubString("12", 1, 1)]), '
                        'typeof(["a", SubString("ab", 1, 1)]), typeof([1, nothing]), '
                        'typeof(["a", :b]), typeof([1, 1 // 2]))', "t.jl")
    assert [str(t) for t in got] == ["Vector{AbstractString}", "Vector{AbstractString}",
                                     "Vector{Union{Nothing, Int64}}", "Vector{Any}",
                                     "Vector{Any}"]


def test_a_dict_of_a_lazystring_key(rt: Runtime) -> None:
    got = rt.run_source('d = Dict(LazyString(1 + 2, " is 3") => 3); (d["3 is 3"], '
                        'string(typeof(d)))', "t.jl")
    assert got == (3, "Dict{LazyString, Int64}")


def test_char_ranges_and_char_order(rt: Runtime) -> None:
    """`'a':'e'` was a MethodError and `'a' < 'b'` had no isless; a Char range is a
    StepRange{Char, Int64} whose reductions and comparisons see its Chars (not itself as
    one value: `maximum('a':'e')` returned the range, `('a':'c') .== 'b'` was false)."""
    got = rt.run_source(
        "r = 'a':'e'; (string(typeof(r)), collect(r), first(r), last(r), length(r), "
        "'c' in r, 'z' in r, join(r), repr(reverse(r)), repr(r), collect('a':2:'k'), "
        "length('a':2:'j'), r[end], repr(r[2:3]), 'b' < 'c', max('a', 'c'), "
        "maximum(r), ndims(r), collect(('a':'c') .== 'b'), eltype(r), r == collect(r), "
        "String(Char['α':'α'+2;]), string(typeof(['a':'b';])), isempty('b':'a'), "
        "step(1:3), step(0:0.5:1), repr(r[3:2]), rand(r) in r)", "t.jl")
    chars = [str(c.value) for c in got[1]]
    assert chars == list("abcde") and [c.value for c in got[10]] == list("acegik")
    assert (got[0], got[2].value, got[3].value, got[4], got[5], got[6], got[7]) == (
        "StepRange{Char, Int64}", "a", "e", 5, True, False, "abcde")
    assert got[8:10] == ("'e':-1:'a'", "'a':1:'e'")
    assert (got[11], got[12].value, got[13], got[14], got[15].value) == (
        5, "e", "'b':1:'c'", True, "c")
    assert (got[16].value, got[17], list(got[18]), str(got[19]), got[20]) == (
        "e", 1, [False, True, False], "Char", True)
    assert got[21:] == ("αβγ", "Vector{Char}", True, 1, 0.5, "'c':1:'b'", True)
