"""Julia's fixed-width integers: Int8…Int128 and UInt8…UInt128 with their own arithmetic
(wrapping at their width), promotion, literals, printing and conversions, on the host and
(all but the 128-bit ones, which numpy and XLA lack) in compiled code.

The reference model is plain Python integers reduced to the type's width; the facts in
the tables are Julia's (Base's promotion rules, `show` of unsigned values in hex).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.compile import compiled_call
from grammar.errors import ZylaError
from lang.core import values as V
from lang.door.wiring import Runtime

# name: (bits, signed)
TYPES = {"Int8": (8, True), "Int16": (16, True), "Int32": (32, True), "Int64": (64, True),
         "Int128": (128, True), "UInt8": (8, False), "UInt16": (16, False),
         "UInt32": (32, False), "UInt64": (64, False), "UInt128": (128, False)}


def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def julia_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@pytest.fixture(scope="module")
def rt() -> Runtime:
    r = Runtime()
    r.run_source("""
add(a, b) = a + b
sub(a, b) = a - b
mul(a, b) = a * b
quo(a, b) = div(a, b)
rm(a, b) = rem(a, b)
md(a, b) = mod(a, b)
band(a, b) = a & b
bor(a, b) = a | b
bxor(a, b) = xor(a, b)
shl(a, n) = a << n
shr(a, n) = a >> n
lshr(a, n) = a >>> n
neg(a) = -a
bnot(a) = ~a
""", "ops.jl")
    return r


def _value(rt: Runtime, name: str, v: int) -> object:
    """A Zyla value of type `name` holding v (a hex literal where a decimal one would be
    wider than Int128)."""
    if v == -(1 << 127):
        return rt.run_source(f"typemin({name})", "v.jl")
    return rt.run_source(f"{name}({v if v < 1 << 127 else hex(v)})", "v.jl")


REFERENCE = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "quo": julia_div, "rm": lambda a, b: a - b * julia_div(a, b), "md": lambda a, b: a % b,
    "band": lambda a, b: a & b, "bor": lambda a, b: a | b, "bxor": lambda a, b: a ^ b,
}


@st.composite
def typed_pair(draw: st.DrawFn) -> tuple[str, int, int]:
    name = draw(st.sampled_from(sorted(TYPES)))
    bits, signed = TYPES[name]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    edge = st.sampled_from([lo, hi, 0, 1, -1 if signed else 2, lo + 1, hi - 1])
    value = st.one_of(st.integers(lo, hi), edge)
    return name, draw(value), draw(value)


@settings(max_examples=300, deadline=None)
@given(case=typed_pair(), op=st.sampled_from(sorted(REFERENCE)))
def test_arithmetic_wraps_at_the_types_width(rt: Runtime, case: tuple[str, int, int],
                                            op: str) -> None:
    name, a, b = case
    bits, signed = TYPES[name]
    x, y = _value(rt, name, a), _value(rt, name, b)
    f = rt.lookup(op)
    if op in ("quo", "rm", "md") and (b == 0 or (op == "quo" and signed and b == -1
                                                 and a == -(1 << (bits - 1)))):
        with pytest.raises(ZylaError) as info:
            rt.interp.call_value(f, [x, y])
        assert info.value.kind == "DivideError"
        return
    got = rt.interp.call_value(f, [x, y])
    assert V.type_name(_typeof(got)) == name
    assert int(got) == wrap(REFERENCE[op](a, b), bits, signed)


def _typeof(x: object) -> V.JType:
    from lang.core.functions import typeof

    return typeof(x)


@settings(max_examples=200, deadline=None)
@given(case=typed_pair(), n=st.integers(0, 140), op=st.sampled_from(["shl", "shr", "lshr"]))
def test_shifts_and_complement(rt: Runtime, case: tuple[str, int, int], n: int, op: str) -> None:
    name, a, _ = case
    bits, signed = TYPES[name]
    x = _value(rt, name, a)
    got = rt.interp.call_value(rt.lookup(op), [x, n])
    unsigned = a & ((1 << bits) - 1)
    want = {"shl": a << n, "shr": a >> n, "lshr": unsigned >> n}[op]
    assert int(got) == wrap(want, bits, signed) and V.type_name(_typeof(got)) == name
    assert int(rt.interp.call_value(rt.lookup("bnot"), [x])) == wrap(~a, bits, signed)
    assert int(rt.interp.call_value(rt.lookup("neg"), [x])) == wrap(-a, bits, signed)


@settings(max_examples=120, deadline=None)
@given(case=typed_pair(), op=st.sampled_from(["add", "sub", "mul", "quo", "band", "bxor"]))
def test_compiled_code_agrees_with_the_host(rt: Runtime, case: tuple[str, int, int],
                                           op: str) -> None:
    name, a, b = case
    if TYPES[name][0] == 128 or (op == "quo" and (b == 0 or b == -1)):
        return  # no 128-bit integers in XLA; division errors are tested above
    x, y = _value(rt, name, a), _value(rt, name, b)
    f = rt.lookup(op)
    host = rt.interp.call_value(f, [x, y])
    comp = compiled_call(rt, f, [x, y])
    assert int(comp) == int(host) and np.asarray(comp).dtype == np.asarray(host).dtype


@pytest.mark.parametrize(("src", "typ", "shown"), [
    ("0x1", "UInt8", "0x01"), ("0x001", "UInt16", "0x0001"), ("0x0000_0001", "UInt32",
                                                              "0x00000001"),
    ("0x1_0000_0000", "UInt64", "0x0000000100000000"), ("0b101", "UInt8", "0x05"),
    ("0o777", "UInt16", "0x01ff"), ("0x00000000000000001", "UInt128",
                                    "0x00000000000000000000000000000001"),
    ("9223372036854775808", "Int128", "9223372036854775808"),
    ("-0x01", "UInt8", "0xff"), ("~0x01", "UInt8", "0xfe"), ("0x01 - 0x02", "UInt8", "0xff"),
    ("Int8(127) + Int8(1)", "Int8", "-128"), ("UInt8(200) + 1", "Int64", "201"),
    ("UInt8(2) + Int8(1)", "UInt8", "0x03"), ("UInt16(2) + Int8(1)", "UInt16", "0x0003"),
    ("Int16(2) + UInt8(1)", "Int16", "3"), ("UInt64(1) + 1", "UInt64", "0x0000000000000002"),
    ("Int128(1) + UInt64(1)", "Int128", "2"), ("Int128(1) + UInt128(1)", "UInt128",
                                               "0x00000000000000000000000000000002"),
    ("Int8(1) + 1.5f0", "Float32", "2.5f0"), ("Int128(1) + 0.5", "Float64", "1.5"),
    ("true + 0x01", "UInt8", "0x02"), ("typemax(UInt64)", "UInt64", "0xffffffffffffffff"),
    ("typemin(Int8)", "Int8", "-128"), ("typemax(Int128) + 1", "Int128",
                                        "-170141183460469231731687303715884105728"),
    ("300 % UInt8", "UInt8", "0x2c"), ("-1 % UInt8", "UInt8", "0xff"),
    ("UInt8(255) % Int8", "Int8", "-1"), ("Int128(2)^100", "Int128",
                                          "1267650600228229401496703205376"),
    ("sum(UInt8[200, 100])", "UInt64", "0x000000000000012c"), ("UInt8('a')", "UInt8", "0x61"),
    ("Char(0x61)", "Char", "'a'"), ("collect(0x01:0x03)", "Vector{UInt8}",
                                    "UInt8[0x01, 0x02, 0x03]"),
    ("Int8[1, -2]", "Vector{Int8}", "Int8[1, -2]"), ("codeunits(\"ab\")", "Vector{UInt8}",
                                                      "UInt8[0x61, 0x62]"),
    ("promote_type(Int8, UInt8)", "Type{UInt8}", "UInt8"),
    ("promote(UInt8(1), Int16(2))", "Tuple{Int16, Int16}", "(1, 2)"),
    ("gcd(0x0c, 0x12)", "UInt8", "0x06"), ("lcm(4, 6)", "Int64", "12"),
])
def test_types_values_and_show(rt: Runtime, src: str, typ: str, shown: str) -> None:
    assert rt.run_source(f"string(typeof({src}))", "t.jl") == typ
    assert rt.run_source(f"repr({src})", "t.jl") == shown


@pytest.mark.parametrize(("src", "printed"), [
    ("0xff", "255"), ("UInt128(1) << 127", "170141183460469231731687303715884105728"),
    ("string(-255, base = 16, pad = 4)", "-00ff"), ("bitstring(0x05)", "00000101"),
    ("count_ones(-1)", "64"), ("leading_zeros(0x01)", "7"), ("trailing_zeros(Int16(8))", "3"),
    ("leading_ones(0xf0)", "4"), ("trailing_ones(7)", "3"), ("sizeof(Int16(1))", "2"),
    ("sizeof(UInt128(1))", "16"), ("count_zeros(0x0f)", "4"),
])
def test_print_and_bit_functions(rt: Runtime, src: str, printed: str) -> None:
    assert rt.run_source(f"string({src})", "t.jl") == printed


@pytest.mark.parametrize(("src", "kind"), [
    ("UInt8(300)", "InexactError"), ("UInt8(-1)", "InexactError"), ("Int8(128)", "InexactError"),
    ("Int64(Int128(2)^70)", "InexactError"), ("UInt128(-1)", "InexactError"),
    ("Int128(2.5)", "InexactError"), ("UInt8(1) ÷ UInt8(0)", "DivideError"),
    ("typemin(Int128) ÷ Int128(-1)", "DivideError"), ("p = -1; Int8(2)^p", "DomainError"),
    ("Char(0x110000)", "InexactError"),
    # (a literal wider than Int128 is a BigInt now: tests/test_numbers.py)
])
def test_errors(rt: Runtime, src: str, kind: str) -> None:
    with pytest.raises(ZylaError) as info:
        rt.run_source(src, "t.jl")
    assert info.value.kind == kind
