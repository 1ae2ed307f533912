"""IR text: golden printer output, parser round trip, and the verifier (DESIGN.md, decision 2).

Golden files live in tests/golden/: `CASE.ir` is the printed IR of every top-level
statement of a small source (each statement's thunk with the method bodies it defines),
`CASE.fwd.ir` the forward function and adjoints that autodiff makes for the source's `f`.
On a mismatch the test prints a diff; `ZYLA_UPDATE_GOLDEN=1 pytest tests/test_ir.py`
rewrites the files (read the diff first: a golden file is a claim that the IR is right).
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from autodiff.reverse import forward
from grammar.ast import Span
from grammar.errors import SourceFile, ZylaError
from grammar.parser import parse
from lang.core.functions import GenericFunction
from lang.core.ir import IR_PASSES, Function, Op, Region, Value, format_function, format_module
from lang.core.irparse import IRLiteral, parse_function, parse_module
from lang.core.lower import COLON, UNDEF, Lowerer
from lang.core.values import (
    AnyT,
    ArrayT,
    Char,
    Float64T,
    Int64T,
    JType,
    NamedTuple,
    RealT,
    Symbol,
    TypeVar,
    apply_type,
)
from lang.core.verify import verify, verify_module
from lang.door.wiring import Runtime

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ZYLA_UPDATE_GOLDEN") == "1"
STDLIB = Path(__file__).parent.parent / "lang" / "stdlib"

CASES: dict[str, str] = {
    "straight": """
function f(x, y)
    a = x * y + 1.0
    b = sin(a) / 2
    a - b
end
""",
    "ifelse": """
function f(x)
    if x > 1.0
        y = x * 2
    elseif x < -1.0
        y = -x
    else
        y = x ^ 2
    end
    y + 1
end
""",
    "merge3": """
function f(x, k)
    a = 0.0
    b = 1.0
    if k == 1
        a = x
    elseif k == 2
        b = x
    else
        a = 2x
        b = 3x
    end
    a * b
end
""",
    "for": """
function f(x, n)
    s = 0.0
    for i in 1:n
        s += x * i
    end
    s
end
""",
    "nestedfor": """
function f(A)
    s = 0.0
    for i in 1:size(A, 1)
        for j in 1:size(A, 2)
            s += A[i, j] * i
        end
    end
    s
end
""",
    "while": """
function f(x)
    y = x
    while y < 100.0
        y = y * 2
    end
    y
end
""",
    "forcontinue": """
function f(xs)
    s = 0.0
    for x in xs
        if x < 0
            continue
        end
        s += x
    end
    s
end
""",
    # break/continue in a `while`
    "breakcontinue": """
function f(n)
    s = 0
    i = 0
    while true
        i += 1
        if i > n
            break
        end
        if iseven(i)
            continue
        end
        s += i
    end
    s
end
""",
    "earlyreturn": """
function f(xs, t)
    for (i, x) in enumerate(xs)
        if x > t
            return i
        end
    end
    return 0
end
""",
    "closure": """
function f(x)
    a = 1.0
    g = y -> a * y
    a = 2.0
    g(x)
end
""",
    "kwargs": """
function f(x, y=2; scale=1.0, shift)
    scale * (x + y) + shift
end
""",
    "struct": """
struct Affine
    W
    b::Float64
end
(m::Affine)(x) = m.W * x .+ m.b
""",
    # loop nests as the nest pass (backend/nests.py) rewrites them: a matmul mapped to one
    # contraction, and a prefix sum it must leave alone, with the reason
    "nest_matmul": """
function f(C, A, B)
    for j in 1:size(B, 2), i in 1:size(A, 1)
        s = 0.0
        for p in 1:size(A, 2)
            s += A[i, p] * B[p, j]
        end
        C[i, j] = s
    end
    C
end
""",
    "nest_prefix": """
function f(y, x)
    s = 0.0
    for i in eachindex(x)
        s += x[i]
        y[i] = s
    end
    y
end
""",
    "selfref": """
struct Link
    val::Int
    next::Union{Link,Nothing}
end
""",
}

AD_CASES = ("ifelse", "for", "while")


# --- helpers -----------------------------------------------------------------------------


def lower_source(name: str, text: str) -> list[Function]:
    """One thunk per top-level statement, lowered with a fresh Lowerer (no runtime). The
    registered IR passes run on the `nest_` cases only: the others show the lowering
    itself (their loops would otherwise be rewritten into tensor operations)."""
    lo = Lowerer(SourceFile(f"{name}.jl", text))
    saved = list(IR_PASSES)
    if not name.startswith("nest_"):
        IR_PASSES.clear()
    try:
        return [lo.lower_toplevel(st) for st in parse(text, f"{name}.jl").stmts]
    finally:
        IR_PASSES[:] = saved


@cache
def case_modules(name: str) -> tuple[str, ...]:
    """The printed module of each top-level thunk of a case."""
    return tuple(format_module(t) for t in lower_source(name, CASES[name]))


def method_fn(name: str, fname: str = "f") -> Function:
    for t in lower_source(name, CASES[name]):
        for op in t.body.ops:
            if op.name == "method" and op.attrs["name"] == fname:
                return op.attrs["func"]
    raise LookupError(fname)


def check_golden(path: Path, text: str) -> None:
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
        return
    if not path.exists():
        pytest.fail(f"{path} is missing; run with ZYLA_UPDATE_GOLDEN=1 to create it")
    want = path.read_text()
    if text != want:
        diff = "\n".join(difflib.unified_diff(
            want.splitlines(), text.splitlines(), f"{path.name} (golden)", "current", lineterm=""))
        pytest.fail(f"IR differs from {path}:\n{diff}\n(ZYLA_UPDATE_GOLDEN=1 regenerates)")


def roundtrip(text: str) -> str:
    """Parse a module text and print it back (first function as the module root)."""
    fns = parse_module(text)
    return format_module(fns[0])


def assert_roundtrip(text: str, what: str) -> None:
    back = roundtrip(text)
    if back != text:
        diff = "\n".join(difflib.unified_diff(
            text.splitlines(), back.splitlines(), "printed", "reparsed", lineterm=""))
        pytest.fail(f"round trip of {what} changed the text:\n{diff}")


@cache
def runtime() -> Runtime:
    return Runtime()


def stdlib_functions() -> Iterator[tuple[str, Function]]:
    """Every method body of the standard library's generic functions, and the forward
    function of each (where autodiff can make one)."""
    seen: set[int] = set()
    for name, g in runtime().builtins.items():
        if not isinstance(g, GenericFunction) or id(g) in seen:
            continue
        seen.add(id(g))
        for k, m in enumerate(g.methods):
            if m.fn is None:
                continue
            yield f"{name}[{k}]", m.fn
            try:
                fwd = forward(m.fn)
            except Exception:  # noqa: BLE001 - not every method is differentiable
                continue
            yield f"{name}[{k}]#fwd", fwd


def stdlib_thunks() -> Iterator[tuple[str, Function]]:
    """The top-level thunks of the stdlib sources (method, struct, global ops)."""
    for path in sorted(STDLIB.glob("*.jl")):
        text = path.read_text()
        lo = Lowerer(SourceFile(str(path), text))
        for st in parse(text, str(path)).stmts:
            yield f"{path.name}:{st.span.line}", lo.lower_toplevel(st)


# --- (a) golden IR -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_ir(name: str) -> None:
    check_golden(GOLDEN / f"{name}.ir", "\n\n".join(case_modules(name)) + "\n")


@pytest.mark.parametrize("name", AD_CASES)
def test_golden_forward_ir(name: str) -> None:
    check_golden(GOLDEN / f"{name}.fwd.ir", format_module(forward(method_fn(name))) + "\n")


def test_continue_in_for_loop() -> None:
    src = """
function g(xs)
    s = 0.0
    for x in xs
        if x < 0
            continue
        end
        s += x
    end
    s
end
g((1.0, -5.0, 2.0))
"""
    rt = Runtime()
    rt.compile_mode = "never"  # the host interpreter is the reference semantics
    assert rt.run_source(src, "continue.jl") == 3.0


# --- (b) round trip ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_roundtrip_cases(name: str) -> None:
    for k, text in enumerate(case_modules(name)):
        assert_roundtrip(text, f"{name} statement {k + 1}")
    if name in AD_CASES:
        assert_roundtrip(format_module(forward(method_fn(name))), f"{name} forward")


def test_roundtrip_stdlib() -> None:
    n = 0
    for what, fn in stdlib_functions():
        assert_roundtrip(format_module(fn), what)
        n += 1
    assert n > 20  # the standard library really was covered


def test_roundtrip_stdlib_toplevel() -> None:
    for what, fn in stdlib_thunks():
        assert_roundtrip(format_module(fn), what)


def test_parse_keeps_ids_counter_spans_and_flags() -> None:
    text = case_modules("struct")[1]
    thunk, call = parse_module(text)
    assert call.name == "#call" and call.self_arg and call.params == ["m", "x"]
    assert [a.id for a in call.body.args] == [0, 1]
    assert call.counter == 9 and thunk.counter == 3
    method = thunk.body.ops[2]
    assert method.attrs["func"] is call  # @name resolves to the parsed function
    assert method.span == Span(6, 0)  # the sources start with a blank line
    assert call.body.ops[-1].span == Span(0, 0)
    getprop = call.body.ops[2]
    assert getprop.operands[0] is call.body.args[0]  # one Value object per id
    assert call.body.ops[1].attrs["value"] == Symbol("W")
    assert call.body.ops[2].attrs == {"fn": "getproperty", "kw": (), "splat": ()}


def test_parse_forward_reference_and_several_functions() -> None:
    text = """func @main(%0) [x] {
  %1 = closure @inner(%0) [name="inner"]
  return(%1)
}

func @inner(%0, %1) [x, y] captures=1 {
  %2 = call "+"(%0, %1)
  return(%2)
}"""
    main, inner = parse_module(text)
    assert main.body.ops[0].attrs["func"] is inner
    assert inner.ncaptures == 1
    assert format_module(main) == text
    assert parse_function(text) is not None


def test_parsed_ir_runs() -> None:
    """Parsed IR is real IR: the interpreter runs the primal and its pullback."""
    rt = runtime()
    f = parse_module(case_modules("for")[0])[1]
    assert rt.interp.run_function(f, [2.0, 3]) == 12.0
    fwd = parse_module(format_module(forward(method_fn("for"))))[0]
    y, back = rt.interp.run_function(fwd, [2.0, 3])
    assert y == 12.0
    assert rt.interp.call_value(back, [1.0]) == (None, 6.0, None)


def _const_fn(values: list[object]) -> Function:
    fn = Function("consts", Region([]), [])
    for v in values:
        op = Op("const", [], [fn.new_value()], {"value": v})
        fn.body.ops.append(op)
    fn.body.ops.append(Op("return", [fn.body.ops[0].results[0]]))
    return fn


ATTR_VALUES: list[object] = [
    0, -7, 2**70, 1.5, -0.0, 1e-300, 1.0e20, 123456.0, float("inf"), float("-inf"),
    np.float32(0.1), np.float32(1e-8), np.float32(3.0), np.float32("-inf"), np.float16(0.5),
    'a"b\\c\nd$e\tf', "", "αβ", Char("x"), Char("'"), Char("\n"),
    Symbol("x"), Symbol("+"), Symbol("=="), Symbol("a b"), Symbol("push!"),
    COLON, UNDEF, None, True, False,
    (), (1,), (1, ("a", Symbol("b")), None), NamedTuple(("a", "b"), (1, 2.0)),
    NamedTuple(("a",), ((1, 2),)),
    AnyT, Float64T, Int64T, apply_type(ArrayT, (Float64T, 1)), apply_type(ArrayT, (Int64T, 3)),
    TypeVar("T"), TypeVar("S", RealT),
]


def test_attribute_values_roundtrip() -> None:
    fn = _const_fn(ATTR_VALUES + [float("nan"), np.float32("nan")])
    text = format_function(fn)
    back = parse_function(text)
    assert format_function(back) == text
    got = [op.attrs["value"] for op in back.body.ops[:-1]]
    for want, have in zip(ATTR_VALUES, got, strict=False):
        assert type(have) is type(want), (want, have)
        if isinstance(want, TypeVar):
            assert (have.name, have.ub) == (want.name, want.ub)
        else:
            assert have == want or have is want, (want, have)
    nan64, nan32 = got[-2:]
    assert isinstance(nan64, float) and math.isnan(nan64)
    assert isinstance(nan32, np.float32) and math.isnan(nan32)


def test_unknown_types_become_literals_that_print_the_same() -> None:
    affine = JType("Affine", AnyT)
    fn = _const_fn([affine, apply_type(ArrayT, (affine, 1))])
    text = format_function(fn)
    consts = [op.attrs["value"] for op in parse_function(text).body.ops[:2]]
    assert consts == [IRLiteral("Affine"), IRLiteral("Vector{Affine}")]
    known = parse_function(text, types={"Affine": affine}).body.ops
    assert known[0].attrs["value"] is affine
    assert known[1].attrs["value"] == apply_type(ArrayT, (affine, 1))


def test_typed_values_roundtrip() -> None:
    fn = _const_fn([1.0, "x"])
    fn.body.ops[0].results[0].type = Float64T
    fn.body.ops[1].results[0].type = apply_type(ArrayT, (Float64T, 2))
    text = format_function(fn, types=True)
    assert "%0::Float64 = const 1.0" in text and "%1::Matrix{Float64}" in text
    back = parse_function(text)
    assert format_function(back, types=True) == text
    assert back.body.ops[0].results[0].type is Float64T


def test_quoted_names_and_header_flags() -> None:
    x = Value(0)
    fn = Function('odd name"', Region([x, Value(1)]), ["a b", "#kw"], nkw=1, vararg=True,
                  self_arg=True, counter=2)
    fn.body.ops.append(Op("return", [x]))
    text = format_function(fn)
    assert text.startswith('func @"odd name\\""(%0, %1) ["a b", #kw] kw=1 vararg self {')
    back = parse_function(text)
    assert (back.name, back.params, back.nkw, back.vararg, back.self_arg) == (
        'odd name"', ["a b", "#kw"], 1, True, True)
    assert format_function(back) == text


# --- parse errors ----------------------------------------------------------------------------


def parse_error(text: str) -> ZylaError:
    with pytest.raises(ZylaError) as info:
        parse_module(text)
    assert info.value.kind == "IRParseError"
    return info.value


def test_parse_errors() -> None:
    e = parse_error("func @f(%0) [x] {\n  %1 = call \"g\"(%0\n  return(%1)\n}")
    assert "`)`" in e.message and e.span == Span(3, 3)
    e = parse_error("func @f() [] {\n  %0 = closure @nowhere() [name=\"g\"]\n  return(%0)\n}")
    assert "@nowhere names no function" in e.message and e.span == Span(2, 16)
    e = parse_error('func @f() [] {\n  %0 = const "abc\n')
    assert "unterminated string" in e.message and e.span == Span(2, 14)
    e = parse_error("func @f() [] {\n  %0 = const 1\n")
    assert "ends inside a region" in e.message
    e = parse_error("func @f() [] {\n  %0 = const 1 %1 = const 2\n  return(%0)\n}")
    assert "end of the `const` op" in e.message and e.span == Span(2, 16)
    e = parse_error("func @f() [] {\n  return(%0)\n}\n\nfunc @f() [] {\n  return(%0)\n}")
    assert "defined twice" in e.message and e.span == Span(5, 1)
    e = parse_error("fun @f() [] {\n}")
    assert "expected `func`" in e.message and e.span == Span(1, 1)
    e = parse_error("func @f() [] wat {\n}")
    assert "function flag" in e.message
    e = parse_error("func @f() [] {\n  %0 = const 1 [a=1, a=2]\n  return(%0)\n}")
    assert "given twice" in e.message


# --- (c) the verifier ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_verify_cases(name: str) -> None:
    for t in lower_source(name, CASES[name]):
        verify_module(t)
    for text in case_modules(name):
        verify_module(parse_module(text))
    if name in AD_CASES:
        verify_module(forward(method_fn(name)))


def test_verify_stdlib() -> None:
    for _, fn in stdlib_functions():
        verify_module(fn)
        verify_module(parse_module(format_module(fn)))
    for _, fn in stdlib_thunks():
        verify_module(fn)


GOOD = """func @f(%0, %1) [x, n] {
  %2 = const 0.0
  %3 = const 1
  %4 = call ":"(%3, %1)
  %7 = for(%4, %2) {
  ^(%5, %6):
    %8 = call ">"(%5, %3)
    %10, %11 = if(%8) {
      %9 = call "*"(%0, %5)
      yield(%9, %9)
    } {
      yield(%6, %6)
    }
    yield(%11)
  }  # line 3
  %12 = closure @g(%7) [name="g"]
  return(%12)
}

func @g(%0, %1) [s, y] captures=1 {
  %4 = while(%1) {
  ^(%2):
    %5 = call "<"(%2, %0)
    yield(%5)
  } {
  ^(%3):
    %6 = default(%3) {
      %7 = const 1.0
      yield(%7)
    }
    yield(%6)
  }
  %8, %9 = pcall "f"(%4) [kw=("k",)]
  return(%4)
}"""

# (old text, new text, expected message fragment)
BROKEN: list[tuple[str, str, str]] = [
    ('%4 = call ":"(%3, %1)', '%4 = call ":"(%3, %13)', "operand %13 is never defined"),
    ("%2 = const 0.0\n  %3 = const 1", "%2 = const 0.0\n  %3 = call \"g\"(%4)\n  %30 = const 1",
     "operand %4 is not visible here"),
    ("  return(%12)\n}\n\nfunc @g", "  return(%9)\n}\n\nfunc @g", "operand %9 is not visible"),
    ("%3 = const 1\n", "%3 = const 1\n  %2 = const 2\n", "%2 is defined twice"),
    ("^(%5, %6):", "^(%5, %2):", "%2 is defined twice"),
    ("  yield(%11)\n  }  # line 3", "  }  # line 3", "does not end in `yield`"),
    ("      yield(%9, %9)\n", "      yield(%9, %9)\n      %40 = const 1\n",
     "terminator in the middle"),
    ("      yield(%6, %6)", "      return(%6)", "`return` ends a region of `if`"),
    ("  return(%12)\n}\n\nfunc @g", "  yield(%12)\n}\n\nfunc @g", "`yield` ends the function body"),
    ("      yield(%6, %6)", "      yield(%6)", "the else region yields 1 values, expected 2"),
    ("%10, %11 = if(%8)", "%10, %11 = if(%8, %8)", "has 2 operands, expected 1"),
    ("} {\n      yield(%6, %6)\n    }", "}", "has 1 regions, expected 2"),
    ("^(%5, %6):", "^(%5, %6, %20):", "the body has 3 arguments, expected 2"),
    ("%7 = for(%4, %2) {", "%7 = for(%4, %2) [tape=true] {",
     "has 1 results, expected 2 (one per carried value, plus the tape)"),
    ("%7 = for(%4, %2) {", "%7, %30 = for(%4, %2) [tape=true] {",
     "the body yields 1 values, expected 2"),
    ("%7 = for(%4, %2) {", "%7 = for() {", "expected at least 1"),
    ("    yield(%5)\n  } {", "    yield(%5, %5)\n  } {", "the condition yields 2 values"),
    ("  ^(%3):\n", "  ^(%3, %30):\n", "the body has 2 arguments, expected 1"),
    ('%4 = call ":"(%3, %1)', "%4 = call(%3, %1)", "missing attribute `fn`"),
    ('%8, %9 = pcall "f"(%4)', '%8 = pcall "f"(%4)', "has 1 results, expected 2"),
    ('%8, %9 = pcall "f"(%4)', '%8, %9 = call "f"(%4)', "has 2 results, expected 1"),
    ('%8, %9 = pcall "f"(%4)', '%8, %9 = pcall "f"()', "1 keyword names for 0 argument"),
    ('%8, %9 = pcall "f"(%4) [kw=("k",)]', '%8, %9 = pcallv(%4) [splat=(0,)]',
     "splat index 0 is not a positional argument"),
    ('%8, %9 = pcall "f"(%4) [kw=("k",)]', '%8, %9 = pcall "f"(%4, %0) [kw=("k",), splat=(1,)]',
     "splat index 1 is not a positional argument"),
    ('%8, %9 = pcall "f"(%4)', "%8, %9 = pcallv()", "expected at least 1"),
    ("%12 = closure @g(%7)", "%12 = closure @g(%7, %7)",
     "@g has 1 captures but the closure gives 2"),
    ("%2 = const 0.0", "%2 = const 0.0(%1)", "has 1 operands, expected 0"),
    ("%3 = const 1", "%3 = const", "missing attribute `value`"),
    ("%6 = default(%3) {", "%6 = default(%3, %3) {", "has 2 operands, expected 1"),
    ("      %7 = const 1.0", "      %7 = frobnicate()", "unknown op `frobnicate`"),
    ("[x, n] {", "[x] {", "1 parameter names but 2 body arguments"),
]


def test_good_text_verifies() -> None:
    verify_module(parse_module(GOOD))


@pytest.mark.parametrize(("old", "new", "message"), BROKEN, ids=[b[2][:40] for b in BROKEN])
def test_verify_rejects(old: str, new: str, message: str) -> None:
    assert GOOD.count(old) == 1, old
    fns = parse_module(GOOD.replace(old, new))
    with pytest.raises(ZylaError) as info:
        verify_module(fns)
    assert info.value.kind == "IRVerifyError"
    assert message in info.value.message
    assert "in @" in info.value.message


def test_verify_error_names_the_op_and_its_line() -> None:
    fns = parse_module(GOOD.replace("%7 = for(%4, %2) {", "%7 = for(%4, %2) [tape=true] {"))
    with pytest.raises(ZylaError) as info:
        verify(fns[0])
    assert "op `%7 = for(%4, %2) [tape=true] {...}`" in info.value.message
    assert info.value.span == Span(3, 0)


def test_verify_counter() -> None:
    f = parse_function(GOOD)
    f.counter = 5
    with pytest.raises(ZylaError, match="counter is 5"):
        verify(f)
