"""Julia's printing of values (lang.core.show): print, show and REPL display formats."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lang.core.show import format_float, jl_display, jl_print, jl_show
from lang.core.values import (
    AnyT,
    ArrayT,
    Char,
    Float32T,
    Float64T,
    Int64T,
    JType,
    ModuleValue,
    NamedTuple,
    Range,
    StructValue,
    Symbol,
)

f32 = np.float32


def struct_type(name: str, fields: list[str], mutable: bool = False) -> JType:
    t = JType(name, AnyT)
    t.fields = fields
    t.is_struct = True
    t.mutable = mutable
    return t


AFFINE = struct_type("Affine", ["W", "b"])
SINGLETON = struct_type("Relu", [])


def obj_vector(*items: object) -> np.ndarray:
    """A Vector of arbitrary Julia values (numpy would otherwise unpack nested sequences)."""
    a = np.empty(len(items), dtype=object)
    for k, x in enumerate(items):
        a[k] = x
    return a


def jl_matrix(rows: list[list]) -> np.ndarray:
    """A host array for the Julia matrix written row by row (storage is transposed)."""
    return np.array(rows).T.copy()


# --- floats ------------------------------------------------------------------------------

FLOAT64_SHOW = [
    (3.5, "3.5"),
    (1.0, "1.0"),
    (-1.0, "-1.0"),
    (0.1, "0.1"),
    (0.0, "0.0"),
    (-0.0, "-0.0"),
    (math.inf, "Inf"),
    (-math.inf, "-Inf"),
    (math.nan, "NaN"),
    (1.0e-5, "1.0e-5"),
    (0.0001, "0.0001"),
    (0.00024414062, "0.00024414062"),
    (1.5e-10, "1.5e-10"),
    (2.5e-100, "2.5e-100"),
    (7 / 2, "3.5"),
    (1 / 3, "0.3333333333333333"),
    (12.0, "12.0"),
    (123456.0, "123456.0"),
    (100000.0, "100000.0"),
    (524288.0, "524288.0"),
    (512000.0, "512000.0"),
    (1.0e6, "1.0e6"),
    (1.234567e6, "1.234567e6"),
    (8388608.0, "8.388608e6"),
    (1.0e15, "1.0e15"),
    (1.0e15 + 1.0, "1.000000000000001e15"),
    (9007199254740992.0, "9.007199254740992e15"),
    (1.2345678901234567, "1.2345678901234567"),
    (-2.109808898695963e16, "-2.109808898695963e16"),
    (1.7976931348623157e308, "1.7976931348623157e308"),
    (5.0e-324, "5.0e-324"),
    (2.2250738585072014e-308, "2.2250738585072014e-308"),
]


@pytest.mark.parametrize(("x", "text"), FLOAT64_SHOW)
def test_float64_show_and_print(x: float, text: str) -> None:
    assert jl_show(x) == text
    assert jl_print(x) == text
    assert jl_show(np.float64(x)) == text


FLOAT32_CASES = [  # (value, print, show); digits from Julia's own Ryu tests
    (f32(1) / f32(3), "0.33333334", "0.33333334f0"),
    (f32(1.0), "1.0", "1.0f0"),
    (f32(-0.0), "-0.0", "-0.0f0"),
    (f32(0.0), "0.0", "0.0f0"),
    (f32(1.0e-5), "1.0e-5", "1.0f-5"),
    (f32(200.0), "200.0", "200.0f0"),
    (f32(3.0540412e5), "305404.12", "305404.12f0"),
    (f32(8.0990312e3), "8099.0312", "8099.0312f0"),
    (f32(2.4414062e-4), "0.00024414062", "0.00024414062f0"),
    (f32(3.355445e7), "3.355445e7", "3.355445f7"),
    (f32(8.999999e9), "9.0e9", "9.0f9"),
    (f32(4103.9003), "4103.9004", "4103.9004f0"),
    (f32(5.3399997e9), "5.3399997e9", "5.3399997f9"),
    (f32(6.0898e-39), "6.0898e-39", "6.0898f-39"),
    (f32(1.4e-45), "1.0e-45", "1.0f-45"),
    (f32(3.4028235e38), "3.4028235e38", "3.4028235f38"),
    (f32(math.inf), "Inf", "Inf32"),
    (f32(-math.inf), "-Inf", "-Inf32"),
    (f32(math.nan), "NaN", "NaN32"),
]


@pytest.mark.parametrize(("x", "printed", "shown"), FLOAT32_CASES)
def test_float32(x: np.float32, printed: str, shown: str) -> None:
    assert jl_print(x) == printed
    assert jl_show(x) == shown


def test_float16() -> None:
    assert jl_show(np.float16(1.0)) == "Float16(1.0)"
    assert jl_print(np.float16(1.0)) == "1.0"
    assert jl_show(np.float16(0.5)) == "Float16(0.5)"
    assert jl_show(np.float16(1000.0)) == "Float16(1.0e3)"
    assert jl_show(np.float16(math.nan)) == "NaN16"


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1 / 3, "0.333333"),
        (123456.7, "1.23457e5"),
        (123456.0, "123456.0"),
        (1234567.0, "1.23457e6"),
        (0.1, "0.1"),
        (2.0, "2.0"),
        (1.0e-5, "1.0e-5"),
        (0.99999999, "1.0"),
        (f32(1) / f32(3), "0.333333"),
    ],
)
def test_compact_floats(x: float, text: str) -> None:
    assert format_float(x, compact=True) == text


def _parse_julia_float(text: str) -> float:
    """Read back Julia's float syntax: `1.5`, `1.0e-5`, `1.0f0`, `1.0f-5`, `Inf32`, `NaN`."""
    special = text.removesuffix("32").removesuffix("16")
    if special.lstrip("-") in ("Inf", "NaN"):
        return float(special)
    return float(text.removesuffix("f0").replace("f", "e"))


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_float64_show_round_trips(x: float) -> None:
    text = jl_show(x)
    back = _parse_julia_float(text)
    assert back == x or (math.isnan(back) and math.isnan(x))
    assert math.copysign(1.0, back) == math.copysign(1.0, x) or math.isnan(x)
    assert "f" not in text.removesuffix("Inf")
    # shortest: as many significant digits as Python's own shortest repr
    if math.isfinite(x) and x != 0:
        mantissa = text.lstrip("-").split("e")[0].replace(".", "").strip("0")
        ref = np.format_float_scientific(abs(x), unique=True, trim="-").split("e")[0]
        assert len(mantissa) == len(ref.replace(".", "").strip("0"))


@given(st.floats(width=32, allow_nan=True, allow_infinity=True))
def test_float32_show_round_trips(x: float) -> None:
    v = np.float32(x)
    for text in (jl_show(v), jl_print(v)):
        back = np.float32(_parse_julia_float(text))
        assert back == v or (np.isnan(back) and np.isnan(v))
        assert np.signbit(back) == np.signbit(v) or np.isnan(v)
    shown = jl_show(v)
    assert shown.endswith(("f0", "Inf32", "NaN32")) or "f" in shown.removeprefix("-")


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_fixed_or_exponent_rule(x: float) -> None:
    """Fixed notation exactly when the decimal point falls in -4 < pt <= 6."""
    text = jl_show(x)
    if x == 0:
        assert text in ("0.0", "-0.0")
        return
    pt = math.floor(math.log10(abs(float(text)))) + 1  # digits before the point
    assert ("e" not in text) == (-4 < pt <= 6)


# --- scalars, strings, symbols, containers ----------------------------------------------

PRINT_SHOW = [  # (value, print, show)
    (3, "3", "3"),
    (-42, "-42", "-42"),
    (np.int64(7), "7", "7"),
    (np.int32(7), "7", "7"),
    (True, "true", "true"),
    (False, "false", "false"),
    (np.bool_(True), "true", "true"),
    (None, "nothing", "nothing"),
    ("a", "a", '"a"'),
    ("", "", '""'),
    ('say "hi"\n', 'say "hi"\n', '"say \\"hi\\"\\n"'),
    ("cost: $5", "cost: $5", '"cost: \\$5"'),
    ("tab\tback\\slash", "tab\tback\\slash", '"tab\\tback\\\\slash"'),
    ("\x00a\x00" + "1", "\x00a\x001", '"\\0a\\x001"'),
    ("\x1b[1m\x7f", "\x1b[1m\x7f", '"\\e[1m\\x7f"'),
    ("αβ∇", "αβ∇", '"αβ∇"'),
    (Char("a"), "a", "'a'"),
    (Char("'"), "'", "'\\''"),
    (Char('"'), '"', "'\"'"),
    (Char("\n"), "\n", "'\\n'"),
    (Char("\0"), "\0", "'\\0'"),
    (Char("α"), "α", "'α'"),
    (Symbol("x"), "x", ":x"),
    (Symbol("push!"), "push!", ":push!"),
    (Symbol("+"), "+", ":+"),
    (Symbol("=="), "==", ":(==)"),
    (Symbol("a b"), "a b", 'Symbol("a b")'),
    ((1, "a"), '(1, "a")', '(1, "a")'),
    ((1,), "(1,)", "(1,)"),
    ((), "()", "()"),
    ((1.0, (2, Symbol("s"))), "(1.0, (2, :s))", "(1.0, (2, :s))"),
    ((f32(1), f32(2.5)), "(1.0f0, 2.5f0)", "(1.0f0, 2.5f0)"),
    (NamedTuple(("a", "b"), (1, 2.0)), "(a = 1, b = 2.0)", "(a = 1, b = 2.0)"),
    (NamedTuple(("a",), (1,)), "(a = 1,)", "(a = 1,)"),
    (NamedTuple((), ()), "NamedTuple()", "NamedTuple()"),
    (NamedTuple(("s",), ("x",)), '(s = "x",)', '(s = "x",)'),
    (NamedTuple(("W", "b"), (None, f32(1))), "(W = nothing, b = 1.0f0)",
     "(W = nothing, b = 1.0f0)"),
    (ModuleValue("Test"), "Test", "Test"),
    (ArrayT[Float64T, 2], "Matrix{Float64}", "Matrix{Float64}"),
    (ArrayT[Float32T, 1], "Vector{Float32}", "Vector{Float32}"),
    (Int64T, "Int64", "Int64"),
]  # fmt: skip


@pytest.mark.parametrize(("x", "printed", "shown"), PRINT_SHOW)
def test_print_and_show(x: object, printed: str, shown: str) -> None:
    assert jl_print(x) == printed
    assert jl_show(x) == shown


ARRAYS = [  # (value, show); print is the same for arrays
    (np.array([1.0, 2.5]), "[1.0, 2.5]"),
    (np.array([1, 2, 3]), "[1, 2, 3]"),
    (np.array([1.0, 2.0], dtype=np.float32), "Float32[1.0, 2.0]"),
    (np.array([1.0e-5, 2.0], dtype=np.float32), "Float32[1.0f-5, 2.0]"),
    (np.array([1, 2], dtype=np.int32), "Int32[1, 2]"),
    (np.array([True, False]), "Bool[1, 0]"),
    (np.zeros(0), "Float64[]"),
    (np.zeros(0, dtype=np.int64), "Int64[]"),
    (np.zeros(0, dtype=np.float32), "Float32[]"),
    (np.array([], dtype=object), "Any[]"),
    (np.array([1, "a"], dtype=object), 'Any[1, "a"]'),
    (np.array(["a", "b"], dtype=object), '["a", "b"]'),
    (np.array(["a", "b"]), '["a", "b"]'),
    (np.array([Symbol("a"), Symbol("b")], dtype=object), "[:a, :b]"),
    (np.array([f32(1), f32(2)], dtype=object), "Float32[1.0, 2.0]"),
    (np.array([None, 1], dtype=object), "Any[nothing, 1]"),
    (obj_vector(np.array([1.0]), np.array([2.0, 3.0])), "[[1.0], [2.0, 3.0]]"),
    (obj_vector(np.zeros(0), np.array([2.0])), "[Float64[], [2.0]]"),
    (obj_vector(np.array([f32(1)]), np.array([f32(2)])), "Vector{Float32}[[1.0], [2.0]]"),
    (obj_vector(np.array([f32(1)]), np.array([1.0])), "Any[Float32[1.0], [1.0]]"),
    (obj_vector(jl_matrix([[1, 2]]), jl_matrix([[3, 4]])), "[[1 2], [3 4]]"),
    (obj_vector(np.array([True])), "Vector{Bool}[[1]]"),
    (jl_matrix([[1, 2], [3, 4]]), "[1 2; 3 4]"),
    (jl_matrix([[1.0, 2.0], [3.0, 4.0]]), "[1.0 2.0; 3.0 4.0]"),
    (jl_matrix([[1.0, 2.0], [3.0, 4.0]]).astype(np.float32), "Float32[1.0 2.0; 3.0 4.0]"),
    (jl_matrix([[True, False]]), "Bool[1 0]"),
    (jl_matrix([[1.0, 2.0, 3.0]]), "[1.0 2.0 3.0]"),
    (jl_matrix([[1.0], [2.0]]), "[1.0; 2.0;;]"),
    (jl_matrix([[5]]), "[5;;]"),
    (np.zeros((3, 0)), "Matrix{Float64}(undef, 0, 3)"),
    (np.zeros((0, 2)), "Matrix{Float64}(undef, 2, 0)"),
    (np.arange(1, 9).reshape(2, 2, 2), "[1 3; 2 4;;; 5 7; 6 8]"),
    (np.arange(1, 5).reshape(1, 2, 2), "[1 3; 2 4;;;]"),
    (np.arange(1, 5).reshape(2, 2, 1, 1), "[1;;; 2;;;; 3;;; 4]"),
    (np.arange(1, 5).reshape(1, 1, 2, 2), "[1 3; 2 4;;;;]"),
    (np.arange(1, 17).reshape(2, 2, 2, 2),
     "[1 3; 2 4;;; 5 7; 6 8;;;; 9 11; 10 12;;; 13 15; 14 16]"),
    (np.arange(1, 9).reshape(2, 2, 2).astype(np.float32),
     "Float32[1.0 3.0; 2.0 4.0;;; 5.0 7.0; 6.0 8.0]"),
    (np.zeros((2, 0, 3)), "Array{Float64, 3}(undef, 3, 0, 2)"),
    (np.array(2.5), "fill(2.5)"),
    (obj_vector((1, 2.0), (3, 4.0)), "[(1, 2.0), (3, 4.0)]"),
    (obj_vector((f32(1),), (f32(2),)), "Tuple{Float32}[(1.0,), (2.0,)]"),
    (obj_vector((True, 1)), "Tuple{Bool, Int64}[(1, 1)]"),
    (obj_vector(NamedTuple(("a",), (1,))), "[(a = 1,)]"),
    (obj_vector(NamedTuple(("a",), (f32(1),))), "@NamedTuple{a::Float32}[(a = 1.0,)]"),
    (obj_vector(Range(1, 1, 3, True)), "UnitRange{Int64}[1:3]"),
    (obj_vector(ArrayT[Float64T, 1], Int64T), "DataType[Vector{Float64}, Int64]"),
]  # fmt: skip


@pytest.mark.parametrize(("x", "shown"), ARRAYS)
def test_array_show(x: np.ndarray, shown: str) -> None:
    assert jl_show(x) == shown
    assert jl_print(x) == shown


def test_element_is_a_transposed_read() -> None:
    a = np.zeros((3, 2))  # Julia 2×3
    a[2, 1] = 7.0  # A[2, 3]
    assert jl_show(a) == "[0.0 0.0 0.0; 0.0 0.0 7.0]"


@pytest.mark.parametrize(
    ("r", "shown"),
    [
        (Range(1, 1, 10, True), "1:10"),
        (Range(1, 1, 0, True), "1:0"),
        (Range(5, 1, 0, True), "5:4"),
        (Range(1, 2, 5), "1:2:9"),
        (Range(10, -1, 10), "10:-1:1"),
        (Range(1, 1, 3), "1:1:3"),
        (Range(1.0, 1.0, 5), "1.0:1.0:5.0"),
        (Range(0.0, 0.25, 5), "0.0:0.25:1.0"),
        (Range(0.1, 0.1, 3), "0.1:0.1:0.3"),
        (Range(0.0, 0.1, 11), "0.0:0.1:1.0"),
        (Range(0.0, 1 / 3, 4), "0.0:0.3333333333333333:1.0"),
        (Range(0.3, -0.1, 4), "0.3:-0.1:0.0"),
        (Range(1.0, 1.0, 0), "1.0:1.0:0.0"),
        (Range(f32(1), f32(1), 3), "1.0f0:1.0f0:3.0f0"),
    ],
)
def test_range(r: Range, shown: str) -> None:
    assert jl_show(r) == shown
    assert jl_print(r) == shown
    assert jl_display(r) == shown


def test_struct_show() -> None:
    w = jl_matrix([[1.0, 2.0], [3.0, 4.0]])
    m = StructValue(AFFINE, [w, np.array([0.5, -0.5])])
    assert jl_show(m) == "Affine([1.0 2.0; 3.0 4.0], [0.5, -0.5])"
    assert jl_print(m) == "Affine([1.0 2.0; 3.0 4.0], [0.5, -0.5])"
    assert jl_display(m) == "Affine([1.0 2.0; 3.0 4.0], [0.5, -0.5])"
    nested = StructValue(AFFINE, [m, (f32(1), "s")])
    assert jl_show(nested) == 'Affine(Affine([1.0 2.0; 3.0 4.0], [0.5, -0.5]), (1.0f0, "s"))'
    assert jl_show(StructValue(SINGLETON, [])) == "Relu()"
    assert jl_show(np.array([StructValue(SINGLETON, [])], dtype=object)) == "[Relu()]"
    assert jl_show(np.array([m], dtype=object)).startswith("Affine[Affine(")
    assert jl_show(StructValue(AFFINE, [True, 1])) == "Affine(true, 1)"


def test_hooks_and_fallback() -> None:
    class Fn:
        def jl_show(self) -> str:
            return "f"

        def jl_display(self) -> str:
            return "f (generic function with 1 method)"

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    assert jl_show(Fn()) == "f"
    assert jl_print(Fn()) == "f"
    assert jl_display(Fn()) == "f (generic function with 1 method)"
    assert jl_show((Fn(), 1)) == "(f, 1)"
    assert jl_show(Opaque()) == "<opaque>"


# --- display -----------------------------------------------------------------------------

DISPLAY = [
    (None, ""),
    (3, "3"),
    (3.5, "3.5"),
    (f32(1) / f32(3), "0.33333334f0"),
    ("a\n", '"a\\n"'),
    (Symbol("x"), ":x"),
    ((1, "a"), '(1, "a")'),
    (True, "true"),
    (Char("a"), "'a': ASCII/Unicode U+0061 (category Ll: Letter, lowercase)"),
    (Char("α"), "'α': Unicode U+03B1 (category Ll: Letter, lowercase)"),
    (ArrayT[Float64T, 2], "Matrix{Float64} (alias for Array{Float64, 2})"),
    (Int64T, "Int64"),
    (np.array([1.0, 2.5, 3.0]), "3-element Vector{Float64}:\n 1.0\n 2.5\n 3.0"),
    (np.array([1, 20, 300]), "3-element Vector{Int64}:\n   1\n  20\n 300"),
    (np.array([-1.5, 10.25]), "2-element Vector{Float64}:\n -1.5\n 10.25"),
    (np.array([1 / 3, 1.0]), "2-element Vector{Float64}:\n 0.3333333333333333\n 1.0"),
    (np.array([1.0, 2.0], dtype=np.float32), "2-element Vector{Float32}:\n 1.0\n 2.0"),
    (np.array([True, False]), "2-element Vector{Bool}:\n 1\n 0"),
    (np.array(["a", "bc"], dtype=object), '2-element Vector{String}:\n "a"\n "bc"'),
    # Julia aligns "Inf" on its "f" (its alignment regex splits at [.eEfF])
    (np.array([1.0, math.inf, math.nan]), "3-element Vector{Float64}:\n   1.0\n  Inf\n NaN"),
    (np.zeros(0), "Float64[]"),
    (np.zeros((3, 0)), "0×3 Matrix{Float64}"),
    (jl_matrix([[1, 2], [3, 4]]), "2×2 Matrix{Int64}:\n 1  2\n 3  4"),
    (jl_matrix([[1.0, -2.5], [3.25, 4.0]]), "2×2 Matrix{Float64}:\n 1.0   -2.5\n 3.25   4.0"),
    (jl_matrix([[1 / 3, 2.0], [1.0, 3.0]]), "2×2 Matrix{Float64}:\n 0.333333  2.0\n 1.0       3.0"),
    (jl_matrix([[1.0], [2.0]]), "2×1 Matrix{Float64}:\n 1.0\n 2.0"),
    (jl_matrix([[10, -1]]), "1×2 Matrix{Int64}:\n 10  -1"),
    (np.arange(1, 9).reshape(2, 2, 2),
     "2×2×2 Array{Int64, 3}:\n[:, :, 1] =\n 1  3\n 2  4\n\n[:, :, 2] =\n 5  7\n 6  8"),
    (np.array(2.5), "0-dimensional Array{Float64, 0}:\n2.5"),
]  # fmt: skip


@pytest.mark.parametrize(("x", "text"), DISPLAY)
def test_display(x: object, text: str) -> None:
    assert jl_display(x) == text


def test_display_elides_long_vectors() -> None:
    text = jl_display(np.arange(1, 101))
    lines = text.split("\n")
    assert lines[0] == "100-element Vector{Int64}:"
    assert lines[1:11] == [f"{k:>4}" for k in range(1, 11)]
    assert lines[11] == "   ⋮"
    assert lines[12:] == [f"{k:>4}" for k in range(92, 101)]
    assert len(jl_display(np.arange(1, 101), limit=False).split("\n")) == 101


def test_display_elides_wide_matrices() -> None:
    a = jl_matrix([[float(i * 100 + j) for j in range(40)] for i in range(3)])
    lines = jl_display(a).split("\n")
    assert lines[0] == "3×40 Matrix{Float64}:"
    assert all("…" in line for line in lines[1:2])
    assert all(len(line) <= 80 for line in lines)
    assert lines[1].startswith("   0.0    1.0    2.0")
    assert lines[1].endswith("   38.0   39.0")
    assert lines[3].startswith(" 200.0  201.0")
    assert lines[2].count("…") == 0 and lines[1].count("…") == 1


def test_display_limits_nested_vectors() -> None:
    v = np.arange(1, 31)
    expected = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10  …  21, 22, 23, 24, 25, 26, 27, 28, 29, 30]"
    assert jl_display((v,)) == f"({expected},)"
    assert jl_show(v) == "[" + ", ".join(str(k) for k in range(1, 31)) + "]"


# --- the acceptance file 11_printing ---------------------------------------------------------


def test_acceptance_printing_values() -> None:
    """The value-printing lines of acceptance/11_printing.jl and its expected output."""
    assert jl_print(1 + 2) == "3"
    assert jl_print(7 / 2) == "3.5"
    assert jl_print(np.array([1.0, 2.5])) == "[1.0, 2.5]"
    assert jl_print((1, "a")) == '(1, "a")'
    assert jl_print(NamedTuple(("a", "b"), (1, 2.0))) == "(a = 1, b = 2.0)"
    x = 3
    assert f"x = {jl_print(x)}, x^2 = {jl_print(x**2)}" == "x = 3, x^2 = 9"
    assert f"x + 1 = {jl_show(x + 1)}" == "x + 1 = 4"
    assert jl_print(f32(1) / f32(3)) == "0.33333334"
    assert jl_print(ArrayT[Float64T, 2]) == "Matrix{Float64}"
    assert jl_print(True and False) == "false"
    assert jl_print(True) == "true"
    assert jl_print(Int64T) == "Int64"


def test_device_arrays_are_shown_as_host_arrays() -> None:
    jnp = pytest.importorskip("jax.numpy")
    assert jl_show(jnp.asarray(np.array([1.0, 2.5], dtype=np.float32))) == "Float32[1.0, 2.5]"
    assert jl_show(jnp.float32(2.0)) == "2.0f0"
    assert jl_print(jnp.float32(2.0)) == "2.0"
    assert jl_display(jnp.asarray(np.array([1, 2], dtype=np.int32))).startswith(
        "2-element Vector{Int32}:"
    )
