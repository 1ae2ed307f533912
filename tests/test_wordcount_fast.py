"""The fast word count (bench/user/wordcount.jl): `split` makes its SubStrings in C and
finds their offsets only when asked (lang/core/strings.py `_split_ascii_words`), and
translated host code stores a String key of a Dict{String, V} by one attribute check
(`JDict.string_exact`). The facts are Julia's."""

from __future__ import annotations

import pytest

from tests.snippets import printed, session


def test_split_pieces_know_their_parent_and_offset(capsys: pytest.CaptureFixture) -> None:
    z = session(__name__)
    code = """
    s = "ab  cd\\tef gh ab"
    w = split(s)
    keep = w[4]
    w = nothing
    for k in 1:50; split("zz yy xx ww " ^ 30); end   # (other pieces take the freed ids)
    c = deepcopy(split(s))
    println(keep, " ", parentindices(keep), " ", parent(keep) === s, " ",
            typeof(keep), " ", parentindices(c[2]), " ", parentindices(copy(split(s))[5]))
    m = match(r"d", split(s)[2]); println(m.offset, " ", parentindices(m.match))
    t = split(s)[3]; println(SubString(t, 2), " ", parentindices(SubString(t, 2)))
    """
    assert printed(z, code, capsys).splitlines() == [
        "gh (11:12,) true SubString{String} (5:6,) (14:15,)", "2 (6:6,)", "f (9:9,)"]


def test_split_of_a_substring_views_its_parent(capsys: pytest.CaptureFixture) -> None:
    # (Julia: SubString(s::SubString, i, j) is a SubString of s's parent)
    z = session(__name__)
    code = """
    s = SubString("xx a b", 4)
    println(parent(split(s)[1]), "|", parentindices(split(s)[2]), "|",
            parentindices(split(s, " ")[2]))
    u = SubString("αx a β", 3)
    println(u, "|", parentindices(split(u)[3]), "|", parentindices(split(u, ' ')[3]))
    """
    assert printed(z, code, capsys).splitlines() == [
        "xx a b|(6:6,)|(6:6,)", "x a β|(7:8,)|(7:8,)"]


def test_split_takes_julias_whitespace_only(capsys: pytest.CaptureFixture) -> None:
    # (Python's str.split() also splits at \x1c-\x1f; Julia's isspace does not)
    z = session(__name__)
    code = 'w = split("a\\x1cb \\x1f c\\td"); println(length(w), " ", parentindices(w[3]))'
    assert printed(z, code, capsys) == "4 (7:7,)"


def test_translated_dict_store_keeps_julias_key_and_value_types(
        capsys: pytest.CaptureFixture) -> None:
    z = session(__name__)
    code = """
    function tally(ws, d, v)
        for w in ws
            d[w] = v
        end
        d
    end
    ws = split("a b a")
    s = tally(ws, Dict{String,Int}(), 1)
    f = tally(ws, Dict{String,Float64}(), 1)
    b = tally(ws, Dict{String,Bool}(), 1)
    a = tally(ws, Dict{Any,Int}(), 2)
    i = tally(ws, Dict("x" => 1), 3)
    println(typeof(first(keys(s))), " ", s["a"], " ", f["b"], " ", typeof(b["a"]), " ",
            typeof(first(keys(a))), " ", i["a"], " ", typeof(first(keys(i))))
    """
    assert printed(z, code, capsys) == "String 1 1.0 Bool SubString{String} 3 String"
