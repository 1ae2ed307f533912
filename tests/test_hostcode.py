"""Translated host code (lang.core.hostcode) against the interpreter loop it replaces.

Every test runs the same program twice: once with bodies translated into Python code (the
default) and once on the interpreter loop alone (`interp.translates = False`), and
compares values, errors (kind, message, line) and printed output. Random scalar programs
(hypothesis) cover Int64 wrap-around, Float64 and mixed arithmetic, comparisons, `if`,
`for` and `while` with `break`/`continue`, calls of one to three arguments and recursion;
the fixed cases cover what a cache could get wrong: a name rebound, a method added, a
global reassigned after the code that reads it was translated.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from snippets import evaluated, host_runtime

from backend import tiering
from grammar.errors import ZylaError
from lang.core.show import jl_show
from lang.door.api import Zyla


def outcome(src: str, expr: str, translate: bool) -> tuple[str, Any]:
    """What evaluating `src` then `expr` gives: ("value", shown), or ("error", ...)."""
    return evaluated(host_runtime(translate), (src, "prog.jl"), (expr, "call.jl"))


def same(src: str, expr: str) -> tuple[str, Any]:
    a = outcome(src, expr, True)
    b = outcome(src, expr, False)
    assert a == b, f"translated: {a}\ninterpreted: {b}\n{src}\n{expr}"
    return a


def translated(z: Zyla, name: str) -> bool:
    """Whether the first method of `name` runs as translated code."""
    fn = z.rt.lookup(name).methods[0].fn
    return fn.host_code is not None and fn.host_code[1] is not None


# --- random scalar programs ------------------------------------------------------------------

_LITERALS = ["0", "1", "2", "-3", "7", "4611686018427387904", "9223372036854775807",
             "-9223372036854775807", "0.5", "-1.25", "1.0e300", "true", "false"]
_ARITH = ["+", "-", "*"]
_CMP = ["<", "<=", ">", ">=", "==", "!="]
# (typed host code calls Python's math for these; Julia's DomainError outside their domain)
_MATH = ["sin", "sqrt", "abs", "log", "exp", "atanh"]


@st.composite
def expressions(draw: Any, names: tuple[str, ...], depth: int = 0) -> str:
    kind = draw(st.integers(0, 9 if depth < 3 else 1))
    if kind == 0:
        return draw(st.sampled_from(_LITERALS))
    if kind == 1:
        return draw(st.sampled_from(names))
    a = draw(expressions(names, depth + 1))
    b = draw(expressions(names, depth + 1))
    if kind <= 5:
        return f"({a} {draw(st.sampled_from(_ARITH))} {b})"
    if kind <= 7:
        c = draw(expressions(names, depth + 1))
        return f"({a} {draw(st.sampled_from(_CMP))} {b} ? {c} : {a})"
    if kind == 8:
        return f"(-{a})" if depth % 2 else f"{draw(st.sampled_from(_MATH))}({a})"
    return f"h({a}, {b})" if depth % 2 else f"({a} / {b})"


@st.composite
def programs(draw: Any) -> str:
    names = ("a", "b", "i", "acc")
    h = draw(expressions(("x", "y")))
    body = draw(expressions(names))
    cond = draw(expressions(names))
    stop = draw(st.sampled_from(["break", "continue", "acc = acc - 1"]))
    loop = draw(st.sampled_from(["for i in 1:n", "for i in n:-1:1",
                                 "i = 0\n    while i < n\n        i += 1"]))
    # (a recursion on Float64s is specialised: its one-use values are folded into their
    # uses, where operator precedence and the order of calls matter)
    step = draw(expressions(("x", "0.75")))
    return f"""q(x, k) = k < 1 ? x : q({step}, k - 1) + 0.5
h(x, y) = (x < y ? x - y : y * 2) + {h}
function g(a, b, n)
    acc = 0
    {loop}
        if {cond} > a
            {stop}
        end
        acc = {body}
    end
    return acc
end
fib(k) = k < 2 ? k : fib(k - 1) + fib(k - 2)
"""


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
@given(programs(), st.sampled_from(["(1, 2)", "(3, -4)", "(9223372036854775806, 2)",
                                    "(0.5, 2)", "(true, 1.5)"]))
def test_random_scalar_programs_agree(src: str, args: str) -> None:
    a, b = args.strip("()").split(", ")
    # called three times: the first call runs on the interpreter loop, the later ones
    # (and every call of the recursive fib) as translated code
    same(src, f"(g({a}, {b}, 5), g({a}, {b}, 6), g({b}, {a}, 3), fib(12), q(0.25, 3), "
              "q(-1.5, 2))")


# --- calls, errors, output ---------------------------------------------------------------------

def test_fib_recursion_and_output() -> None:
    src = """
fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
function report(n)
    for k in 1:n
        println(k, " ", fib(k))
    end
    fib(n)
end
"""
    kind, (value, out) = same(src, "report(15)")
    assert value == "610" and out.splitlines()[-1] == "15 610"


def test_error_location_and_trace() -> None:
    src = """
function inner(t, k)
    s = 0
    for j in 1:k
        s += t[j]
    end
    s
end
outer(t, k) = inner(t, k) + 1
"""
    calls = "outer((1, 2), 2); outer((1, 2), 2); outer((1, 2), 3)"
    kind, (ekind, msg, line, trace) = same(src, calls)
    assert kind == "error" and ekind == "BoundsError" and line == 5 and trace[:3] == [5, 4, 9]


def test_method_error_names_the_call() -> None:
    src = 'k(x) = x + 1\nfunction m(v)\n    k(1); k(2)\n    k(v)\nend\n'
    kind, (ekind, msg, line, _) = same(src, 'm(1); m("s")')
    assert ekind == "MethodError" and "+(::String, ::Int64)" in msg and line == 1


def test_int64_wraps_around() -> None:
    src = "f(x) = x + 1\ng(x) = x * 3\nfunction twice(x)\n    f(x); f(x)\nend\n"
    assert same(src, "(twice(9223372036854775807), g(g(g(2^62))))")[1][0] == \
        "(-9223372036854775808, -4611686018427387904)"


def test_keywords_optional_and_varargs() -> None:
    src = """
kw(x; scale = 2) = x * scale
opt(x, y = 10) = x + y
va(xs...) = length(xs)
function use(n)
    s = 0
    for i in 1:n
        s += kw(i; scale = 3) + kw(i) + opt(i) + opt(i, 1) + va(i, i, i) + va()
    end
    s
end
"""
    assert same(src, "(use(3), use(4))")[1][0] == "(84, 126)"  # 7i + 14 per step


def test_closures_and_captured_state() -> None:
    src = """
function counter(n)
    c = 0
    bump = () -> (c += 1)
    for i in 1:n
        bump()
    end
    c
end
adder(a) = x -> x + a
"""
    assert same(src, "(counter(5), counter(7), map(adder(2), [1, 2]))")[1][0] == "(5, 7, [3, 4])"


# --- specialisations: bodies translated for Int64/Float64/Bool arguments -----------------------

def specialised(z: Zyla, name: str) -> dict:
    """The specialisations made of the first method of `name`, by argument types (their
    code: `raw`, not the wrapper that takes the depth argument)."""
    run = z.rt.lookup(name).methods[0].fn.host_code[1]
    return {k: v.raw for k, v in run.__globals__["SPECS"].items() if v}


def test_self_recursion_runs_specialised() -> None:
    src = "fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)\n"
    assert same(src, "(fib(1), fib(2), fib(20), fib(20.0))")[1][0] == "(1, 1, 6765, 6765.0)"
    z = Zyla()
    z.eval(src + "fib(3); fib(20); fib(5.0)")
    assert set(specialised(z, "fib")) == {int, float}
    assert z.rt.lookup("fib").methods[0].fn.recursed
    # the self-calls' result type is found (Int64 for Int64 arguments): the sum of two of
    # them is written inline, and nothing in the body goes through a general call
    names = specialised(z, "fib")[int].__code__.co_names
    assert "SELF" in names and not {"CALL_TYPED", "CALL_NAMED", "CALL_VALUE"} & set(names)


def test_a_specialisation_sees_its_method_replaced() -> None:
    """A method redefined, or one added for the same types, after the body was
    specialised: later calls, self-calls included, run the new definition."""
    z = Zyla()
    z.eval("down(n) = n <= 0 ? 0 : down(n - 1) + 1\ndown(3); down(10)")
    assert int in specialised(z, "down")
    z.eval("down(n::Int) = n <= 0 ? 100 : down(n - 1) + 2")
    assert z.eval("down(3)") == 106
    z.eval("cnt(n) = n <= 0 ? 0 : cnt(n - 1) + 1\ncnt(3); cnt(10); cnt(1.0)")
    z.eval("cnt(n::Int) = -1")  # (Float64 arguments still take the first method)
    assert z.eval("(cnt(3), cnt(2.0), cnt(2.5))") == (-1, 2, 3)


def test_calls_of_leaf_functions_are_direct() -> None:
    """A specialised loop calls another function's specialisation directly when that one
    is a leaf (only inline arithmetic inside): no general call is left in the loop; the
    callee's result type carries on; a callee redefined, or given a method for the
    types, afterwards is seen; an error inside the callee is located as the interpreter
    locates it; mutual recursion goes the general way."""
    src = """sq(x) = x * x
half(x) = x / 2
function total(n)
    s = 0.0
    for i in 1:n
        s += sq(half(i * 1.0)) + sq(i)
    end
    s
end
root(x) = sqrt(x - 2.0)
function roots(n)
    s = 0.0
    for i in 1:n
        s += root(i * 1.0)
    end
    s
end
ev(n) = n == 0 ? true : od(n - 1)
od(n) = n == 0 ? false : ev(n - 1)
function evens(n)
    c = 0
    for i in 1:n
        c += ev(i) ? 1 : 0
    end
    c
end
"""
    assert same(src, "(total(4), total(4), evens(9), evens(9))")[1][0] == "(37.5, 37.5, 4, 4)"
    kind, (ekind, _, line, trace) = same(src, "roots(2); roots(1)")
    assert kind == "error" and ekind == "DomainError" and line == 10 and 14 in trace
    z = Zyla()
    z.eval(src + "total(3); total(4)")
    names = specialised(z, "total")[int].__code__.co_names
    assert not {"CALL_TYPED", "CALL_NAMED", "CALL_VALUE"} & set(names)
    z.eval("sq(x) = x + 1")
    assert z.eval("total(2)") == (1.5 + 2) + (2 + 3)
    z.eval("sq(x::Int) = 0")
    assert z.eval("total(2)") == 1.5 + 2


def test_deep_self_recursion_is_a_stack_overflow() -> None:
    src = "endless(n) = endless(n + 1) + 1\nsmall(n) = n == 0 ? 0 : small(n - 1) + 1\n"
    kind, (ekind, _, line, _) = same(src, "endless(0)")
    assert kind == "error" and ekind == "StackOverflowError" and line == 1
    assert same(src, "small(900)")[1][0] == "900"


def test_loop_carried_types_that_change() -> None:
    """A carried value that starts as an Int64 and becomes a Float64, one that stays an
    Int64 and wraps around, a Bool flag, and `while` over Float64s."""
    src = """
function mixed(n)
    x = 0
    k = 9223372036854775800
    seen = false
    for i in 1:n
        x = x + 0.5
        k = k + i
        seen = !seen
    end
    (x, k, seen)
end
function halve(x)
    steps = 0
    while x > 1.0
        x = x / 2
        steps += 1
    end
    (x, steps)
end
"""
    got = same(src, "(mixed(5), mixed(5), halve(1000.0), halve(1000), halve(1000.0))")
    assert got[1][0] == ("((2.5, -9223372036854775801, true), (2.5, -9223372036854775801, "
                         "true), (0.9765625, 10), (0.9765625, 10), (0.9765625, 10))")


@pytest.mark.parametrize("expr", ["scalar_math(-1.0)", "scalar_math(0.0)", "scalar_math(Inf)",
                                  "scalar_math(2)", "scalar_math(NaN)", "scalar_math(-0.0)"])
def test_scalar_math_in_specialised_code(expr: str) -> None:
    """Python's math where the primitive would give math's result, the primitive itself
    elsewhere: log at its pole, sqrt outside its domain (DomainError), sin of Inf, NaN."""
    src = """
function scalar_math(x)
    s = 0.0
    for i in 1:2
        s += sin(x) + cos(x) / (i + x)
        s += log(abs(x) + 0.0) * 0 + sqrt(x) + exp(x)
    end
    s
end
"""
    same(src, f"{expr}; {expr}")


# --- what a translated body must see change ---------------------------------------------------

#: (definitions and warm-up calls, the function they translate, then changes: each an
#: evaluated change and what an expression gives after it)
CHANGES = [
    ("g(x) = 1\nf(x) = g(x) + 0\nf(1); f(1)", "f",
     [("g(x) = 2", "f(1)", 2), ("g(x::Float64) = 3", "(f(1), f(1.0))", (2, 3))]),
    ("c = 1\nread_c() = c\nread_c(); read_c()", "read_c",
     [("c = 5", "read_c()", 5), ('c = "s"', "read_c()", "s")]),
    ("op = sin\napply_op(x) = op(x)\napply_op(0.0); apply_op(0.0)", "apply_op",
     [("op = cos", "apply_op(0.0)", 1.0)]),
]


@pytest.mark.parametrize("setup, name, changes", CHANGES,
                         ids=["redefined method", "reassigned global", "rebound callee"])
def test_a_change_after_translation_is_seen(setup: str, name: str, changes: list) -> None:
    z = Zyla()
    z.eval(setup)
    assert translated(z, name)
    for change, expr, want in changes:
        z.eval(change)
        assert z.eval(expr) == want, change


def test_operator_extended_for_a_new_type() -> None:
    """A method of `+` added after a body that adds Ints was translated: the Ints still
    add, and the new type uses its method."""
    z = Zyla()
    z.eval("add(a, b) = a + b\nadd(1, 2); add(1, 2)")
    assert translated(z, "add")
    z.eval("struct P\n  v::Int\nend\nBase.:+(a::P, b::P) = P(a.v + b.v + 100)")
    assert z.eval("(add(1, 2), add(P(1), P(2)).v)") == (3, 103)


def test_run_state_is_not_part_of_the_ir() -> None:
    """What a pickle (the front-end cache) or a copy of a body keeps: not its translation."""
    z = Zyla()
    z.eval("f(x) = x + 1\nf(1); f(2)")
    fn = z.rt.lookup("f").methods[0].fn
    assert fn.host_code is not None
    assert not {"host_code", "host_runs"} & set(fn.__getstate__())


def test_closure_types_follow_julia() -> None:
    """Closures of one lambda share a type when their captured values' types agree (as
    in Julia, where the type is the lambda's, parameterised by the captures), so that
    dispatch on them is cached once, not per closure made."""
    z = Zyla()
    z.eval("mk(a) = x -> x + a\nf1 = mk(1); f2 = mk(2); f3 = mk(2.0)")
    assert z.eval("(typeof(f1) == typeof(f2), typeof(f1) == typeof(f3), f1 === f2)") == (
        True, False, False)


# --- fast forms of common host operations -----------------------------------------------------

def test_fast_forms_agree_with_the_interpreter() -> None:
    """Field reads, vector indexing (Float64, Int64, Bool, Float32, objects), `length`, and
    `==` of Chars and Strings are written inline in translated code: they give what the
    interpreter gives, out-of-bounds indices included (BoundsError at the same line)."""
    src = """struct P
    x::Float64
    y::Int
end
function walk(v, w, b, f, t, s)
    acc = 0.0
    k = 0
    for i in 1:length(v)
        acc += v[i].x * w[i] + f[i] + (b[i] ? 1 : 0)
        k += v[i].y + length(w)
    end
    c = 0
    for ch in s
        c += ch == ',' ? 1 : 0
    end
    (acc, k, c, t[1] == "ab", t[2] == "ab", typeof(f[1]), v[end].x)
end
"""
    args = ('[P(1.5, 2), P(-0.5, 3)], [2, 3], [true, false], Float32[0.25, 0.5], '
            '["ab", "cd"], "a,b,,c"')
    got = same(src, f"walk({args}); walk({args})")
    assert got[1][0] == "(3.25, 9, 3, true, false, Float32, -0.5)"
    kind, (ekind, _, line, _) = same(src, "walk([P(1.0, 1)], [1], [true], Float32[1], "
                                          "[\"a\", \"b\"], \"\"); walk([P(1.0, 1), P(1.0, 1)],"
                                          " [1], [true], Float32[1], [\"a\", \"b\"], \"\")")
    assert kind == "error" and ekind == "BoundsError" and line == 9


def test_fast_forms_step_aside_for_user_methods() -> None:
    """A method the program adds to `getproperty`, `getindex` or `length` for its own
    type is called, also from code translated before it was added."""
    z = Zyla()
    z.eval("struct Q\n  a::Int\nend\nstruct R\n  a::Int\nend\n"
           "readall(v) = (s = 0; for q in v; s += q.a; end; s)\nreadall([Q(1), Q(2)]); "
           "readall([Q(1), Q(2)])")
    assert translated(z, "readall")
    z.eval("Base.getproperty(r::R, s::Symbol) = 100")
    assert z.eval("(readall([Q(1), Q(2)]), readall([R(1), R(2)]))") == (3, 200)


def test_a_cheap_function_whose_compiled_calls_are_slower_goes_back_to_the_host() -> None:
    """The tiering policy times compiled calls made at depth and sends a function back to
    the host when they are slower than its host calls were (each call of an executable
    costs tens of microseconds; a function of two small structs costs less on the host)."""
    pol = tiering.Policy()
    fn = Zyla().rt.lookup("sin").methods[0].fn  # (any body: the rule only reads the times)
    st = tiering.Stats(fn, calls=10, host_seconds=10 * 20e-6)
    for _ in range(tiering.COMPARE_WARMUP + tiering.COMPARE_CALLS - 1):
        tiering._compare(pol, st, "f", [], None, "in g", 5e-6)
    assert not st.never  # (faster so far)
    slow = tiering.Stats(fn, calls=10, host_seconds=10 * 20e-6)
    for _ in range(tiering.COMPARE_WARMUP + tiering.COMPARE_CALLS):
        tiering._compare(pol, slow, "f", [], None, "in g", 200e-6)
    assert "slower than its host calls" in slow.never


def test_fast_forms_look_into_unions() -> None:
    """A method whose parameter is a Union of structs takes no Char or String, so the
    standard library's `==(a::WrappedString, b::WrappedString)` leaves the fast `==` of
    Chars and Strings in place (without it, `ch == ','` in a loop over a string went the
    generic way, 13x slower); a Union with String in it does take strings."""
    from lang.core.hostcode import _takes

    z = Zyla()
    z.eval("struct UA\n  a::Int\nend\nstruct UB\n  b::Int\nend")
    structs = z.eval("Union{UA, UB}")
    with_string = z.eval("Union{UA, String}")
    assert not _takes(structs, "text") and _takes(structs, "struct")
    assert _takes(with_string, "text")
    z.eval("==(a::Union{UA, String}, b::Union{UA, String}) = true\n"
           "count_commas(s) = (c = 0; for ch in s; if ch == ','; c += 1; end; end; c)")
    assert z.eval('count_commas("a,b")') == 1  # (the user's method takes no Char)
    assert z.eval('"x" == "y"')  # (the user's method, for two Strings)


def test_inline_powers_roots_and_remainders_agree_with_the_interpreter() -> None:
    """`x^n` (Float64 x, Int64 n), `sqrt(x)`, `a % b` (non-negative Int64 a, positive
    b) and `string(a, b)` of Strings and Int64s are written inline in translated code;
    overflow, a zero to a negative power, a negative square root, negative remainders and
    other values to `string` give what the interpreter gives. A vector
    of objects is indexed inline although Base has `getindex(::Number, ::Integer)` (no
    array is a Number), and a struct without constructors of its own is built directly
    until one is defined."""
    src = """struct Pt
    x::Float64
end
f(x, n) = x^n
g(x) = sqrt(x)
r(a, b) = a % b
function walk(v)
    s = 0.0
    for i in 1:length(v)
        s += v[i].x^2 + sqrt(v[i].x) + (i % 3)
    end
    s
end
mk(x) = Pt(x)
err(h, xs...) = try h(xs...) catch e; typeof(e) end
label(a, b) = (string(a, b), "at$(b)")
"""
    got = same(src, "p1 = mk(1); Pt(u::Int, w::Int) = Pt(u + w); "
                    "(f(2.0, 3), f(1e200, 2), f(0.0, -1), f(-0.0, -1), f(2.0, -2), g(4.0), "
                    "g(Inf), r(7, 3), r(-7, 3), r(7, -3), r(0, 5), "
                    "walk([Pt(1.0), Pt(4.0), Pt(9.0)]), p1, mk(2.5), Pt(1, 2), err(g, -1.0), "
                    'err(r, 1, 0), err(mk, "a"), label("a", -3), label(1, "b"), label(2, true), '
                    'label(SubString("xy", 1, 1), 0.5))')
    assert got[1][0] == ("(8.0, Inf, Inf, -Inf, 0.25, 2.0, Inf, 1, -1, 1, 0, 107.0, "
                         "Pt(1.0), Pt(2.5), Pt(3.0), DomainError, DivideError, MethodError, "
                         '("a-3", "at-3"), ("1b", "atb"), ("2true", "attrue"), ("x0.5", "at0.5"))')


def test_fast_forms_see_which_methods_take_their_values() -> None:
    """A method for other values leaves a fast form in place: `==(::StepRange{Char},
    ::StepRange{Char})` takes no Char or String (with it, `ch == ','` in a loop over a
    string went the generic way, 10x slower) and `getindex(::Number, ::Integer)` no
    array; `Any`, `AbstractChar` and `AbstractArray` parameters do take them."""
    from lang.core.hostcode import _takes

    z = Zyla()
    ev = z.eval
    assert not _takes(ev("StepRange{Char}"), "text") and not _takes(ev("Number"), "array")
    assert not _takes(ev("StepRange{Char}"), "array") and _takes(ev("Vector{Int}"), "array")
    assert _takes(ev("AbstractChar"), "text") and _takes(ev("AbstractString"), "text")
    assert _takes(ev("Any"), "text") and _takes(ev("AbstractArray"), "array")
    assert _takes(ev("Any"), "array") and _takes(ev("Number"), "int")


def test_push_of_a_non_number_onto_a_float_vector_is_a_method_error() -> None:
    """`push!(Float64[], nothing)` is Julia's MethodError (a numpy dtype equals None, so
    the quick path took `nothing` for a Float64 and stored a NaN); the vector keeps its
    length, also after `push!(v, "a")`. Numbers still go in as before."""
    z = Zyla()
    z.eval("v = Float64[1.0]")
    for bad in ("nothing", '"a"'):
        with pytest.raises(ZylaError) as e:
            z.eval(f"push!(v, {bad})")
        assert e.value.kind == "MethodError" and "Cannot `convert`" in e.value.message
    assert jl_show(z.eval("push!(v, 2); push!(v, 2.5); push!(Int[], true); v")) == (
        "[1.0, 2.0, 2.5]")


def test_push_index_store_and_char_forms_agree_with_the_interpreter() -> None:
    """The forms written for `push!` (any host vector: Float64, Int64, String, struct,
    Any; a value converted, or refused), `v[i]` (one guard for number and object
    vectors; a Float32 in a Vector{Any} stays a Float32), `d[k] = v` with a SubString key
    (stored as its String), `x == ','` against a Char constant (x a Char, a String or an
    Int) and `c += 1` at typemax(Int) (one comparison) give what the interpreter gives."""
    src = """struct P
    x::Float64
end
function grow(ns, c0)
    n = ns[1]  # (a vector argument: the general translation, not a specialisation)
    f = Float64[]; k = Int[]; s = String[]; p = P[]; a = Any[]
    for i in 1:n
        push!(f, i * 0.5); push!(k, i); push!(f, i); push!(s, "w$(i)")
        push!(p, P(i)); push!(a, i == 2 ? Float32(1.5) : "x")
    end
    d = Dict{String,Int}()
    for w in split("a b a")
        d[w] = get(d, w, 0) + 1
    end
    c = c0
    for x in Any['a', ',', "," , 44, ',']
        if x == ','
            c += 1
        end
    end
    (f[end], k[2], s[1], p[2].x, a[1], typeof(a[2]), sort(collect(keys(d))),
     typeof(first(keys(d))), d["a"], c, length(f))
end
pushall(v, xs) = (for x in xs; push!(v, x); end; v)
"""
    got = same(src, "grow([3], 0); grow([3], typemax(Int) - 1)")
    assert got[1][0] == ('(3.0, 2, "w1", 2.0, "x", Float32, ["a", "b"], String, 2, '
                         '-9223372036854775808, 6)')
    assert same(src, "pushall(Int[], [1, 2]); pushall(Int[], Any[1, 2.0, true])")[1][0] == (
        "[1, 2, 1]")
    for bad in ('Int[], [1.5]', 'P[], [1.0]', 'String[], Any["a", 1]', 'view([1, 2], 1:2), [3]'):
        kind, err = same(src, f"pushall(Int[], [1]); pushall({bad})")
        assert kind == "error", (bad, err)


def test_fast_forms_step_aside_for_a_user_method_of_more_arguments() -> None:
    """A program's `get(d::Dict{String,Int}, k::String, default::Int)` is called from
    translated code (the fast `get` form looked at the first argument only and took a
    method of three parameters for one that cannot take its values: it read the Dict,
    1 where Julia gives 42 per key)."""
    src = """Base.get(d::Dict{String,Int}, k::String, default::Int) = 42
total(d, ks) = (s = 0; for k in ks; s += get(d, k, 0); end; s)
"""
    assert same(src, 'd = Dict("a" => 1); total(d, ["a", "b"]); total(d, ["a", "b"])'
                )[1][0] == "84"


def test_folded_expressions_keep_effects_bounds_and_locations() -> None:
    """Specialised code writes a value used once into its use (`SELF(n - 1) + SELF(n -
    2)`) and leaves out an Int64 overflow test where an `if` on the operand bounds it
    (`n - 1` where `n >= 2`): the effects of calls keep their order, a value that may
    wrap around still does, and an error inside a folded call is located at that call."""
    z = Zyla()
    z.eval("fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)\nfib(3); fib(10)")
    code = specialised(z, "fib")[int].__code__
    assert sorted(n for n in code.co_varnames if n.startswith("v")) == ["v0", "v9"]
    src = """
w(n, k) = k < 1 ? n - 1 : w(n, k - 1)
u(n) = n > 9223372036854775806 ? n + 1 : (n < 2 ? n : u(n - 1) + 1)
d(n) = n >= -9223372036854775807 ? (n <= 0 ? n : d(n - 1)) : n - 1
e(n) = n < 1 ? (println("base"); 0) : e(n - 1) + (println(n); 1)
e2(n) = n < 1 ? 0 : (println(n); e2(n - 1)) * 2 + e2(n - 2)
p(x, n) = n < 1 ? x : p((x + 1.0) / 2.0 - (x - 3.0) * (2.0 - x), n - 1)
"""
    calls = ("(w(typemin(Int), 2), w(typemin(Int), 3), u(typemax(Int)), u(5), u(6), "
             "d(3), d(4), d(typemin(Int)), e(3), e(4), e2(3), e2(4), p(0.5, 1), p(0.5, 2))")
    kind, (value, out) = same(src, calls)
    assert value == ("(9223372036854775807, 9223372036854775807, -9223372036854775808, "
                     "5, 6, 0, 0, 9223372036854775807, 3, 4, 0, 0, 4.5, 6.5)")
    assert out.startswith("base\n1\n2\n3\n")
    z = Zyla()
    z.rt.compile_mode = "never"
    with pytest.raises(ZylaError) as err:
        z.rt.run_source("m(n) = n < 0 ? 0 : 2 * m(n - 0) + 1\nm(2)", "prog.jl")
    assert err.value.kind == "StackOverflowError"
    assert (err.value.span.line, err.value.span.col) == (1, 24)  # (`m(n - 0)`, not `2 * …`)
