"""String macros (`r"..."`, `s"..."`, `v"..."`, `b"..."`, `raw"..."`, `big"..."`,
`MIME"..."`), regular expressions on Python's `re` (lang/core/regexes.py,
lang/core/stdlib/regex.jl) and `replace`: the facts are Julia 1.10's."""

from __future__ import annotations

import pytest

from grammar import ast as A
from grammar.errors import ZylaError, format_error
from grammar.parser import parse
from grammar.unparse import unparse
from tests.snippets import printed, session


def _z():
    return session("test_regex")


def _first(src: str) -> A.Node:
    return parse(src, "t").stmts[0]


def test_string_macros_parse_raw() -> None:
    """`name"text"flags` is `@name_str("text", "flags")`; the text is raw: no `$`, a
    backslash escapes only a quote (and the backslashes before one); a triple-quoted one
    is dedented. `p => x -> e` is `p => (x -> e)`."""
    m = _first(r'r"a+\d$x"im')
    assert isinstance(m, A.MacroCall) and m.name == "r_str"
    assert [a.value for a in m.args] == ["a+\\d$x", "im"]  # type: ignore[attr-defined]
    assert _first(r'raw"a\\b\"c\\"').args[0].value == 'a\\\\b"c\\'  # type: ignore[attr-defined]
    assert _first('r"""\n   a\n   b"""').args[0].value == "a\nb"  # type: ignore[attr-defined]
    assert _first('v"1.6"').name == "v_str"  # type: ignore[attr-defined]
    call = _first('MIME"text/plain"()')
    assert isinstance(call, A.Call) and isinstance(call.func, A.MacroCall)
    assert unparse(_first(r'occursin(r"a\"b"i, x)')) == r'occursin(r"a\"b"i, x)'  # (@test)
    pair = _first("p = 'a' => d -> d")
    assert isinstance(pair.value.args[1], A.Lambda)  # type: ignore[attr-defined]


def test_match_search_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    z = _z()
    out = printed(z, r'''
        m = match(r"(\d+)-(?<y>\d+)|(z)", "ab 12-345")
        println(m, " ", m.offset, " ", m.offsets, " ", m[1], " ", m[:y], " ", repr(m.captures))
        println(match(r"z", "abc") === nothing, " ", keys(m), " ", haskey(m, :y))
        println(collect(eachmatch(r"a*", "baa")),
                " ", length(collect(eachmatch(r"aa", "aaaa"; overlap = true))))
        println(findfirst(r"β+", "αββγ"), " ", findall(r"a", "banana"),
                " ", findnext(r"a", "banana", 3))
        println(match(r"γ", "αβγ").offset, " ", match(r"b", SubString("xxab", 3)).offset)
        println(occursin(r"^a.c$", "abc"), startswith("abc", r"a."), endswith("abc", r"b"),
                contains("abc", r"C"i), count(r"\d", "a1b2"), occursin.(r"a", ["a", "b"]))
        println(split("a, b,c", r",\s*"), " ", split("a1b2", r"\d"; keepempty = false))
        println(r"a\"b"ims, " ", Regex("a.b", "si"), " ", r"a" == Regex("a"), " ", typeof(r"a"))
        println(match(r"(?<n>a)\k<n>[[:digit:]]\z", "xaa1").match, " ", occursin(r"a\Z", "a\n"),
                " ", match(r"a{,2}", "a{,2}").match, " ", match(r"^b"m, "a\nb").match)''', capsys)
    assert out.splitlines() == [
        'RegexMatch("12-345", 1="12", y="345", 3=nothing) 4 [4, 7, 0] 12 345 '
        'Union{Nothing, SubString{String}}["12", "345", nothing]',
        'true Union{Int64, String}[1, "y", 3] true',
        'RegexMatch[RegexMatch(""), RegexMatch("aa"), RegexMatch("")] 3',
        "3:5 UnitRange{Int64}[2:2, 4:4, 6:6] 4:4",
        "5 2",
        "truetruefalsetrue2Bool[1, 0]",
        'SubString{String}["a", "b", "c"] SubString{String}["a", "b"]',
        'r"a\\"b"ims r"a.b"is true Regex',
        "aa1 true a{,2} b",
    ]


def test_replace_strings(capsys: pytest.CaptureFixture[str]) -> None:
    """Base's algorithm: the earliest match of any pair (the first pair on a tie), no
    empty match right after a match; a function gets the match (a Char for a Char
    pattern); only a SubstitutionString substitutes groups."""
    out = printed(_z(), r'''
        println(replace("abc", "b" => "x", "c" => "y"), " ", replace("aaa", "a" => "b"; count = 2))
        println(replace("abc", r"x*" => "-"), " ", replace("abc", r"b*" => "-"),
                " ", replace("abc", "" => "-"))
        println(replace("a1b22", r"\d" => d -> string(parse(Int, d) + 1)),
                " ", replace("abc", 'a' => uppercase))
        println(replace("a.b,c", ['.', ','] => "_"),
                " ", replace("abc", isletter => "x"; count = 2))
        println(replace("2023-01-15", r"(?<y>\d+)-(?<m>\d+)-(\d+)" => s"\3/\g<m>/\g<y>\\\\"),
                " ", replace("ab", r"(a)" => "\\1"), " ", replace("αβγ", r"β" => "b"))
        println(replace.(split("The quick"), r"[aeiou]"i => "_"), " ", repr(s"a\1"))
        println(chopprefix("abcd", r"a."), " ", chopsuffix("αβγ", r"γ"))''', capsys)
    assert out.splitlines() == [
        "axy bba",
        "-a-b-c- -a-c- -a-b-c-",
        "a2b33 Abc",
        "a_b_c xxc",
        "15/01/2023\\ \\1b αbγ",
        '["Th_", "q__ck"] s"a\\\\1"',
        "cd αβ",
    ]
    z = _z()
    with pytest.raises(ZylaError, match="PCRE error: unknown substring"):
        z.eval(r'replace("ab", r"a" => s"\2")')
    with pytest.raises(ZylaError, match="DomainError"):
        z.eval('replace("ab", "a" => "b"; count = -1)')


def test_replace_collections(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(_z(), '''
        println(replace([1, 2, 1, 3], 1 => 0), " ", replace([1, 2], 1 => 3.5),
                " ", replace((1, 2, 1), 1 => 9))
        println(replace(x -> 2x, [1, 2, 3]), " ", replace([1, 2, 1, 1], 1 => 0; count = 2))
        a = [1, 2, 1]; replace!(a, 1 => 7); b = [1, 2, 3]; replace!(x -> x + 1, b); println(a, b)
        println(replace([1, 2], 1 => nothing), " ", promote_type(Missing, Float64),
                " ", replace(Set([1, 2]), 1 => 3) == Set([3, 2]),
                " ", replace(Dict(1 => 2), (1 => 2) => (1 => 5)) == Dict(1 => 5))''',
                  capsys)
    assert out.splitlines() == [
        "[0, 2, 0, 3] [3.5, 2.0] (9, 2, 9)", "[2, 4, 6] [0, 2, 0, 1]", "[7, 2, 7][2, 3, 4]",
        "Union{Nothing, Int64}[nothing, 2] Union{Missing, Float64} true true"]


def test_version_mime_big_raw_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(_z(), r'''
        v = v"1.6.2"
        println(v, " ", repr(v), " ", repr(v.major), " ", typeof(v), " ", v"1.6" < v,
                " ", v"1.10" > v"1.9")
        println(v"1.6.0" == v"1.6", " ", v"1.0.0-rc1" < v"1.0.0",
                " ", repr(v"1.2.3-rc.1+b2"), " ", VERSION >= v"1.6")
        println(raw"a\b\"c$x", " ", b"ab\x01", " ", typeof(big"12345678901234567890123"),
                " ", typeof(big"1.5"))
        println(MIME"text/plain", " ", repr(MIME"text/plain"()),
                " ", MIME"text/html"() == MIME("text/html"))
        struct RegexTestFoo end
        Base.show(io::IO, ::MIME"text/plain", ::RegexTestFoo) = print(io, "Foo!")
        display(RegexTestFoo())''', capsys)
    assert out.splitlines() == [
        '1.6.2 v"1.6.2" 0x00000001 VersionNumber true true',
        'true true v"1.2.3-rc.1+b2" true',
        'a\\b"c$x UInt8[0x61, 0x62, 0x01] BigInt BigFloat',
        'MIME{Symbol("text/plain")} MIME type text/plain true',
        "Foo!",
    ]


def test_malformed_regex_is_a_clear_error() -> None:
    """A pattern Python cannot compile, or a PCRE construct Zyla does not translate, is an
    ErrorException pointing at the literal: never Python's `re.error` text."""
    z = _z()
    with pytest.raises(ZylaError) as e:
        z.eval('println(1)\nx = r"a(b"\n')
    err = format_error(e.value)
    assert err.startswith("ERROR: ErrorException: PCRE compilation error: missing closing "
                          "parenthesis at offset 3"), err
    assert ":2:5" in err and 'x = r"a(b"' in err and "    ^" in err, err
    for src, message in [(r'r"\p{L}+"', r"\\p is not supported"),
                         ('r"a"q', "ArgumentError: unknown regex flag: q"),
                         (r'r"a)"', "unmatched closing parenthesis")]:
        with pytest.raises(ZylaError, match=message) as e:
            z.eval(src)
        assert "position" not in str(e.value), e.value
