"""The parser (grammar.parser, grammar.lexer, grammar/julia.lark): Julia text → AST shapes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar import ast as A
from grammar.errors import ZylaError, format_error
from grammar.lexer import LexInput
from grammar.parser import (
    ZylaParseError,
    _new_session,
    _subparse,
    get_parser,
    parse,
    parse_expr,
    parse_incomplete,
)
from grammar.tables import load_parser

ACCEPTANCE = Path(__file__).resolve().parents[2] / "shared" / "acceptance"
ACCEPTANCE_FILES = sorted(ACCEPTANCE.glob("*.jl")) + sorted(ACCEPTANCE.glob("errors/*.jl"))
UNCLOSED = ACCEPTANCE / "errors" / "syntax_unclosed.jl"
#: acceptance programs known not to pass yet (the list `make test` gives the acceptance run)
XFAIL_NAMES = {line.strip() for line in (Path(__file__).with_name("acceptance_xfail.txt"))
               .read_text(encoding="utf-8").splitlines() if line.strip() and line[0] != "#"}


def _known_failing(path: Path) -> bool:
    return path.relative_to(ACCEPTANCE).with_suffix("").as_posix() in XFAIL_NAMES


def _acceptance_case(path: Path) -> object:
    if _known_failing(path):
        return pytest.param(path, marks=pytest.mark.xfail(
            reason="listed in tests/acceptance_xfail.txt", strict=False))
    return path


# ---- AST builders -----------------------------------------------------------------------


def I(name: str) -> A.Ident:  # noqa: E743
    return A.Ident(name)


def N(value: object) -> A.Literal:
    if isinstance(value, bool):
        return A.Literal(value, "Bool")
    if isinstance(value, int):
        return A.Literal(value, "Int64")
    assert isinstance(value, float)
    return A.Literal(value, "Float64")


def S(text: str) -> A.Literal:
    return A.Literal(text, "String")


def C(op: str | A.Node, *args: A.Node, kwargs: list[A.Kwarg] | None = None) -> A.Call:
    func = I(op) if isinstance(op, str) else op
    return A.Call(func, list(args), kwargs or [])


def B(op: str | A.Node, *args: A.Node) -> A.Broadcast:
    func = I(op) if isinstance(op, str) else op
    return A.Broadcast(func, list(args))


def P(name: str | None, type: A.Node | None = None, default: A.Node | None = None,
      vararg: bool = False) -> A.Param:
    return A.Param(name, type, default, vararg)


def one(src: str) -> A.Node:
    """The single statement of `src`."""
    return parse_expr(src)


def stmts(src: str) -> list[A.Node]:
    return parse(src).stmts


def parse_error(src: str) -> ZylaParseError:
    with pytest.raises(ZylaParseError) as info:
        parse(src, "t.jl")
    err = info.value
    assert err.kind == "ParseError"
    return err


# ---- the acceptance programs -------------------------------------------------------------


@pytest.mark.skipif(not ACCEPTANCE.is_dir(), reason="acceptance programs not found")
@pytest.mark.parametrize("path", [_acceptance_case(p) for p in ACCEPTANCE_FILES if p != UNCLOSED],
                         ids=lambda p: p.name)
def test_acceptance_file_parses(path: Path) -> None:
    program = parse(path.read_text(encoding="utf-8"), str(path))
    assert program.stmts
    assert program.file == str(path)
    assert program.source.startswith(path.read_text(encoding="utf-8")[:20])


@pytest.mark.skipif(not UNCLOSED.is_file(), reason="acceptance programs not found")
def test_acceptance_unclosed_paren_is_reported() -> None:
    err = parse_error(UNCLOSED.read_text(encoding="utf-8"))
    assert err.span is not None and err.span.line in (3, 4)
    assert '"("' in err.message and "line 3" in err.message
    assert "t.jl:3:9" in format_error(err)


def reference_parse(text: str) -> list[A.Node]:
    """Parse with Lark's own LALR loop (the lexer then reads Lark's ParserState)."""
    job = LexInput(text, "<ref>", subparse=_subparse)
    with _new_session(job.source) as session:
        stmts = get_parser().parse(job, start="program")  # type: ignore[arg-type]
        session.check()
        return stmts


@pytest.mark.skipif(not ACCEPTANCE.is_dir(), reason="acceptance programs not found")
@pytest.mark.parametrize("path", [_acceptance_case(p) for p in ACCEPTANCE_FILES if p != UNCLOSED],
                         ids=lambda p: p.name)
def test_fast_driver_agrees_with_lark(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert parse(text).stmts == reference_parse(text)


def test_grammar_has_no_conflicts() -> None:
    load_parser(None, strict=True)  # strict: any shift/reduce conflict raises


# ---- precedence ------------------------------------------------------------------------

x, y, z, a, b, c = I("x"), I("y"), I("z"), I("a"), I("b"), I("c")

PRECEDENCE = [
    ("1 + 2 * 3", C("+", N(1), C("*", N(2), N(3)))),
    ("a - b - c", C("-", C("-", a, b), c)),
    ("a / b * c", C("*", C("/", a, b), c)),
    ("a ÷ b % c", C("%", C("÷", a, b), c)),
    ("a \\ b ⋅ c", C("⋅", C("\\", a, b), c)),
    ("a * b // c", C("*", a, C("//", b, c))),
    ("a // b << c", C("<<", C("//", a, b), c)),
    ("a << b * c", C("<<", a, C("*", b, c))),  # Julia 1.x: + < << < * < // < ^
    ("a + b << c", C("+", a, C("<<", b, c))),
    ("a → b → c", C("→", a, C("→", b, c))),
    ("a && b → c < d", A.And(a, C("→", b, A.Comparison([c, I("d")], ["<"])))),
    ("a ⊢ b", A.Comparison([a, b], ["⊢"])),
    ("a ↑ b ↑ c", C("↑", a, C("↑", b, c))),
    ("[a, b]c", C("*", A.VectorLit([a, b]), c)),
    ("a << b ^ c", C("<<", a, C("^", b, c))),
    ("-2^2", C("-", C("^", N(2), N(2)))),
    ("-x^2", C("-", C("^", x, N(2)))),
    ("2^3^2", C("^", N(2), C("^", N(3), N(2)))),
    ("2^-1", C("^", N(2), N(-1))),
    ("2x^2", C("*", N(2), C("^", x, N(2)))),
    ("-2x", C("-", C("*", N(2), x))),
    ("1 / 2x", C("/", N(1), C("*", N(2), x))),
    ("-x'", C("-", C("adjoint", x))),
    ("2x'", C("*", N(2), C("adjoint", x))),
    ("x'y", C("*", C("adjoint", x), y)),
    ("-3", N(-3)),
    ("-1.5", N(-1.5)),
    ("a:b:c", C(":", a, b, c)),
    ("a:b", C(":", a, b)),
    ("1:n-1", C(":", N(1), C("-", I("n"), N(1)))),
    ("a + 1:b * 2", C(":", C("+", a, N(1)), C("*", b, N(2)))),
    ("1:10 |> sum", C("|>", C(":", N(1), N(10)), I("sum"))),
    ("a |> f |> g", C("|>", C("|>", a, I("f")), I("g"))),
    ("x |> f == y", A.Comparison([C("|>", x, I("f")), y], ["=="])),
    ("1 < 2 < 3", A.Comparison([N(1), N(2), N(3)], ["<", "<"])),
    ("a == b", A.Comparison([a, b], ["=="])),
    ("a === b !== c", A.Comparison([a, b, c], ["===", "!=="])),
    ("a ≤ b ≥ c ≠ x ≈ y", A.Comparison([a, b, c, x, y], ["≤", "≥", "≠", "≈"])),
    ("x ∈ a", A.Comparison([x, a], ["∈"])),
    ("T <: Real", A.Comparison([I("T"), I("Real")], ["<:"])),
    ("x .< y", A.Comparison([x, y], [".<"])),
    ("x in a", C("in", x, a)),
    ("x isa Int", C("isa", x, I("Int"))),
    ("a && b || c", A.Or(A.And(a, b), c)),
    ("a || b && c", A.Or(a, A.And(b, c))),
    ("a && b && c", A.And(a, A.And(b, c))),
    ("a < b && b < c", A.And(A.Comparison([a, b], ["<"]), A.Comparison([b, c], ["<"]))),
    ("!a && b", A.And(C("!", a), b)),
    ("c ? a : b", A.Ternary(c, a, b)),
    ("c ? a : b ? x : y", A.Ternary(c, a, A.Ternary(b, x, y))),
    ("c ? 1:2 : 3:4", A.Ternary(c, C(":", N(1), N(2)), C(":", N(3), N(4)))),
    ("a || b ? x : y", A.Ternary(A.Or(a, b), x, y)),
    ("a => b", C("=>", a, b)),
    ("a => b => c", C("=>", a, C("=>", b, c))),
    ("c ? a : b => x", C("=>", A.Ternary(c, a, b), x)),
    ("x::Int", A.TypeAssert(x, I("Int"))),
    ("x::T ^ 2", C("^", A.TypeAssert(x, I("T")), N(2))),
    ("a.b^2", C("^", A.Dot(a, "b"), N(2))),
    ("x = y = 1", A.Assign(x, A.Assign(y, N(1)))),
    ("x = a || b", A.Assign(x, A.Or(a, b))),
    ("x = c ? a : b", A.Assign(x, A.Ternary(c, a, b))),
    ("a .+ b .* c", B("+", a, B("*", b, c))),
    ("x .^ 2", B("^", x, N(2))),
    (".-x", B("-", x)),
    ("2 * -3", C("*", N(2), N(-3))),
    ("√x + 1", C("+", C("√", x), N(1))),
    ("a | b & c", C("|", a, C("&", b, c))),
]


@pytest.mark.parametrize(("src", "expected"), PRECEDENCE, ids=[p[0] for p in PRECEDENCE])
def test_precedence(src: str, expected: A.Node) -> None:
    assert one(src) == expected


# ---- lexical cases --------------------------------------------------------------------


LEXICAL = [
    # call paren vs grouping paren, juxtaposition
    ("f(x)", C(I("f"), x)),
    ("2x", C("*", N(2), x)),
    ("2(x+1)", C("*", N(2), C("+", x, N(1)))),
    ("(x-1)y", C("*", C("-", x, N(1)), y)),
    ("(x-1)(y)", C(C("-", x, N(1)), y)),
    ("2.5x", C("*", N(2.5), x)),
    ("2π", C("*", N(2), I("π"))),
    # index vs vector, end, bare colon
    ("a[1]", A.Index(a, [N(1)])),
    ("x[end]", A.Index(x, [A.EndMarker()])),
    ("x[end-1]", A.Index(x, [C("-", A.EndMarker(), N(1))])),
    ("x[2:end]", A.Index(x, [C(":", N(2), A.EndMarker())])),
    ("x[(end - 1)]", A.Index(x, [C("-", A.EndMarker(), N(1))])),
    ("A[1, :]", A.Index(I("A"), [N(1), A.Colon()])),
    ("A[:, 2]", A.Index(I("A"), [A.Colon(), N(2)])),
    ("x[:]", A.Index(x, [A.Colon()])),
    ("x[i][j]", A.Index(A.Index(x, [I("i")]), [I("j")])),
    ("x[1:1, :]", A.Index(x, [C(":", N(1), N(1)), A.Colon()])),
    ("[1, 2]'", C("adjoint", A.VectorLit([N(1), N(2)]))),
    ("\"abc\"[1]", A.Index(S("abc"), [N(1)])),
    # horizontal separators and rows
    ("[a -b]", A.MatrixLit([[a, C("-", b)]])),
    ("[a - b]", A.VectorLit([C("-", a, b)])),
    ("[a-b]", A.VectorLit([C("-", a, b)])),
    ("[a +b]", A.MatrixLit([[a, C("+", b)]])),
    ("[1 -1]", A.MatrixLit([[N(1), N(-1)]])),
    ("[1 2; 3 4]", A.MatrixLit([[N(1), N(2)], [N(3), N(4)]])),
    ("[1 2 3]", A.MatrixLit([[N(1), N(2), N(3)]])),
    ("[1; 2]", A.MatrixLit([[N(1)], [N(2)]])),
    ("[1 2\n 3 4]", A.MatrixLit([[N(1), N(2)], [N(3), N(4)]])),
    ("[\n 1 2\n 3 4\n]", A.MatrixLit([[N(1), N(2)], [N(3), N(4)]])),
    ("[1, 2,\n 3]", A.VectorLit([N(1), N(2), N(3)])),
    ("[1,\n 2]", A.VectorLit([N(1), N(2)])),
    ("[f(x)\n for x in a]", A.Comprehension(C(I("f"), x), [(x, a)])),
    ("[f(x) g(x)]", A.MatrixLit([[C(I("f"), x), C(I("g"), x)]])),
    ("[x' y']", A.MatrixLit([[C("adjoint", x), C("adjoint", y)]])),
    ("[a :b]", A.MatrixLit([[a, A.Literal("b", "Symbol")]])),
    ("[1:3 4:6]", A.MatrixLit([[C(":", N(1), N(3)), C(":", N(4), N(6))]])),
    ("[]", A.VectorLit([])),
    ("[x...]", A.VectorLit([A.Splat(x)])),
    ("Float64[]", A.VectorLit([], I("Float64"))),
    ("Float32[1, 2]", A.VectorLit([N(1), N(2)], I("Float32"))),
    ("Float64[1 2; 3 4]", A.MatrixLit([[N(1), N(2)], [N(3), N(4)]], I("Float64"))),
    ("Vector{Int}[]", A.VectorLit([], A.Curly(I("Vector"), [I("Int")]))),
    ("r[]", A.Index(I("r"), [])),
    # adjoint vs character literal
    ("x'", C("adjoint", x)),
    ("x''", C("adjoint", C("adjoint", x))),
    ("(a+b)'", C("adjoint", C("+", a, b))),
    ("'a'", A.Literal("a", "Char")),
    ("'\\n'", A.Literal("\n", "Char")),
    ("'\\''", A.Literal("'", "Char")),
    ("'σ'", A.Literal("σ", "Char")),
    ("['a' 'b']", A.MatrixLit([[A.Literal("a", "Char"), A.Literal("b", "Char")]])),
    # symbols and colons
    (":x", A.Literal("x", "Symbol")),
    ("f(:x, :y)", C(I("f"), A.Literal("x", "Symbol"), A.Literal("y", "Symbol"))),
    ("x ? :a : :b", A.Ternary(x, A.Literal("a", "Symbol"), A.Literal("b", "Symbol"))),
    # dotted operators and broadcast calls
    ("f.(x)", B(I("f"), x)),
    ("f.(x, y)", B(I("f"), x, y)),
    ("x.^2", B("^", x, N(2))),
    ("a .== b", A.Comparison([a, b], [".=="])),
    ("a ./ b", B("/", a, b)),
    ("(x -> 2x).(1:3)", B(A.Lambda([P("x")], C("*", N(2), x)), C(":", N(1), N(3)))),
    ("y .= x", A.BroadcastAssign(y, x)),
    ("y .+= x", A.OpAssign(y, ".+", x)),
    ("m.W", A.Dot(I("m"), "W")),
    ("x.a.b", A.Dot(A.Dot(x, "a"), "b")),
    ("Flux.mse(a, b)", C(A.Dot(I("Flux"), "mse"), a, b)),
    # unicode operators and names
    ("a ÷ b", C("÷", a, b)),
    ("a ⋅ b", C("⋅", a, b)),
    ("√x", C("√", x)),
    ("σ + ŷ + x̄ + ȳ + x′ + y₁",
     C("+", C("+", C("+", C("+", C("+", I("σ"), I("ŷ")), I("x̄")), I("ȳ")), I("x′")),
       I("y₁"))),
    ("seed!(0)", C(I("seed!"), N(0))),
    ("a!=b", A.Comparison([a, b], ["!="])),
    # operators as values
    ("map(+, a, b)", C(I("map"), I("+"), a, b)),
    ("reduce(*, a)", C(I("reduce"), I("*"), a)),
    # numbers
    ("1", N(1)),
    ("1.0", N(1.0)),
    ("1e-3", N(1e-3)),
    ("1.5e3", N(1500.0)),
    ("1f0", A.Literal(1.0, "Float32")),
    ("2.5f-3", A.Literal(2.5e-3, "Float32")),
    ("0x1F", A.Literal(31, "UInt8")),
    ("0b101", A.Literal(5, "UInt8")),
    ("1_000", N(1000)),
    (".5", N(0.5)),
    ("true", N(True)),
    ("nothing", A.Literal(None, "Nothing")),
    # strings
    ('"abc"', S("abc")),
    ('"a\\tb\\n\\"q\\" \\$x \\u03c3"', S('a\tb\n"q" $x σ')),
    ('"x = $x"', A.StringInterp(["x = ", x])),
    ('"$(x^2)!"', A.StringInterp([C("^", x, N(2)), "!"])),
    ('"a $(f("b $c")) d"', A.StringInterp(["a ", C(I("f"), A.StringInterp(["b ", c])), " d"])),
    ('"""\n    a\n      b\n    """', S("a\n  b\n")),
    ('"""x"y"""', S('x"y')),
    ('"""\n  $x\n  y"""', A.StringInterp([x, "\ny"])),
    # comments
    ("x #= a #= nested =# comment =# + 1", C("+", x, N(1))),
    ("x + 1 # trailing", C("+", x, N(1))),
]


@pytest.mark.parametrize(("src", "expected"), LEXICAL, ids=[p[0] for p in LEXICAL])
def test_lexical(src: str, expected: A.Node) -> None:
    assert one(src) == expected


def test_newlines_end_statements_only_where_complete() -> None:
    assert stmts("a +\nb") == [C("+", a, b)]
    assert stmts("a\n+b") == [a, C("+", b)]
    assert stmts("x = \n 1") == [A.Assign(x, N(1))]
    assert stmts("f(a,\n  b)") == [C(I("f"), a, b)]
    assert stmts("c ?\n a :\n b") == [A.Ternary(c, a, b)]
    assert stmts("a; b;; c") == [a, b, c]
    assert stmts("\n\n# only a comment\n\n") == []
    assert stmts("x = 1\r\ny = 2\r\n") == [A.Assign(x, N(1)), A.Assign(y, N(2))]
    assert stmts("x = 1 #= a\nmultiline =# + 2") == [A.Assign(x, C("+", N(1), N(2)))]


# ---- constructs -----------------------------------------------------------------------


def test_long_function() -> None:
    f = one("function f(x, y; k=1, kws...)\n    x + y\nend")
    assert f == A.FunctionDef(
        "f", [P("x"), P("y")], A.Block([C("+", x, y)]),
        kwparams=[P("k", default=N(1)), P("kws", vararg=True)])
    assert f.span == A.Span(1, 1)


def test_short_functions() -> None:
    assert one("f(x) = x^2") == A.FunctionDef("f", [P("x")], A.Block([C("^", x, N(2))]))
    assert one("f(x::Integer, ::typeof(g), y=1) = x") == A.FunctionDef(
        "f", [P("x", I("Integer")), P(None, C(I("typeof"), I("g"))), P("y", default=N(1))],
        A.Block([x]))
    assert one("add(a, b...) = a") == A.FunctionDef(
        "add", [P("a"), P("b", vararg=True)], A.Block([a]))
    assert one("f(xs::T...) where T = 1").params == [P("xs", I("T"), vararg=True)]
    assert one("f(x)::Float64 = x").return_type == I("Float64")
    assert one("f(x::T) where T = x").where == [I("T")]
    assert one("f(x::T) where {T<:Real} = x").where == [A.Comparison([I("T"), I("Real")],
                                                                    ["<:"])]
    assert one("f(x; k::Int=1) = x").kwparams == [P("k", I("Int"), N(1))]
    assert one("f(x) =\n  x").body == A.Block([x])


def test_anonymous_functions() -> None:
    assert one("x -> x + 1") == A.Lambda([P("x")], C("+", x, N(1)))
    assert one("(x, y) -> x * y") == A.Lambda([P("x"), P("y")], C("*", x, y))
    assert one("() -> 1") == A.Lambda([], N(1))
    assert one("(x::Int) -> x") == A.Lambda([P("x", I("Int"))], x)
    assert one("x -> y -> x") == A.Lambda([P("x")], A.Lambda([P("y")], x))
    assert one("function (x)\n  x\nend") == A.Lambda([P("x")], A.Block([x]))
    assert one("function (x, y)\n  x\nend") == A.Lambda([P("x"), P("y")], A.Block([x]))
    assert one("function ()\n  1\nend") == A.Lambda([], A.Block([N(1)]))
    assert one("h = x -> x") == A.Assign(I("h"), A.Lambda([P("x")], x))


def test_qualified_callable_and_nested_methods() -> None:
    src = """function ChainRulesCore.rrule(::typeof(mysquare), x)
    y = mysquare(x)
    mysquare_pullback(ȳ) = (NoTangent(), 3 * ȳ * x)
    return y, mysquare_pullback
end"""
    f = one(src)
    assert isinstance(f, A.FunctionDef)
    assert f.name == "ChainRulesCore.rrule"
    assert f.params == [P(None, C(I("typeof"), I("mysquare"))), P("x")]
    inner = f.body.stmts[1]
    assert isinstance(inner, A.FunctionDef) and inner.name == "mysquare_pullback"
    assert inner.params == [P("ȳ")]
    assert f.body.stmts[2] == A.Return(A.TupleLit([y, I("mysquare_pullback")]))
    assert one("Base.show(io::IO, x::T) = 1").name == "Base.show"
    m = one("(m::Affine)(x) = m.W * x")
    assert isinstance(m, A.FunctionDef) and m.name is None
    assert m.receiver == P("m", I("Affine")) and m.params == [P("x")]
    m2 = one("function (m::Affine)(x)\n    m.W\nend")
    assert isinstance(m2, A.FunctionDef) and m2.receiver == P("m", I("Affine"))
    assert one("(::Affine)(x) = 1").receiver == P(None, I("Affine"))


def test_calls_and_keyword_arguments() -> None:
    assert one("f(x; k=1)") == C(I("f"), x, kwargs=[A.Kwarg("k", N(1))])
    assert one("f(x, k=1)") == C(I("f"), x, kwargs=[A.Kwarg("k", N(1))])
    assert one("f(xs...)") == C(I("f"), A.Splat(I("xs")))
    assert one("f(; k)") == C(I("f"), kwargs=[A.Kwarg("k", I("k"))])
    # Julia's implicit keyword names: `f(; k, a.h)` is `f(; k=k, h=a.h)`
    assert one("f(; k, a.h)") == C(I("f"), kwargs=[A.Kwarg("k", I("k")),
                                                   A.Kwarg("h", A.Dot(a, "h"))])
    assert one("f(x; kws...)") == C(I("f"), x, kwargs=[A.Kwarg(None, A.Splat(I("kws")))])
    assert one("f()") == C(I("f"))
    assert one("f(a,)") == C(I("f"), a)
    assert one("sum(A; dims=1)") == C(I("sum"), I("A"), kwargs=[A.Kwarg("dims", N(1))])
    assert one("include(\"file.jl\")") == C(I("include"), S("file.jl"))


def test_do_blocks() -> None:
    lam = A.Lambda([P("v")], A.Block([A.OpAssign(I("s"), "+", I("v"))]))
    assert one("foreach(xs) do v\n    s += v\nend") == C(I("foreach"), lam, I("xs"))
    assert one("f(x) do\n 1\nend") == C(I("f"), A.Lambda([], A.Block([N(1)])), x)
    assert one("map(xs) do a, b\n a\nend").args[0].params == [P("a"), P("b")]
    r = one("withgradient(model) do m\n  loss(m)\nend")
    assert isinstance(r.args[0], A.Lambda) and r.args[1] == I("model")


def test_destructured_parameters() -> None:
    # Julia's argument destructuring: the parameter gets a hidden name, and the body starts
    # by unpacking it into local variables
    g = one("g((a, b)) = a + b")
    arg = A.Param("#arg0", pattern=A.TupleLit([a, b]))
    assert g.params == [arg]
    assert g.body == A.Block([A.Local([a, b]), A.Assign(A.TupleLit([a, b]), I("#arg0")),
                              C("+", a, b)])
    h = one("h(x, ((a, _), c)::Tuple) = c")
    assert h.params[1] == A.Param("#arg1", I("Tuple"), pattern=A.TupleLit(
        [A.TupleLit([a, I("_")]), I("c")]))
    assert h.body.stmts[:3] == [
        A.Local([I("#arg1_0"), I("c"), a]),
        A.Assign(A.TupleLit([I("#arg1_0"), I("c")]), I("#arg1")),
        A.Assign(A.TupleLit([a, I("_")]), I("#arg1_0"))]
    nt = one("f((; a, b)) = a")
    assert nt.body.stmts[:3] == [A.Local([a, b]), A.Assign(a, A.Dot(I("#arg0"), "a")),
                                 A.Assign(b, A.Dot(I("#arg0"), "b"))]
    lam = one("((k, v),) -> k * v")
    assert lam.params == [A.Param("#arg0", pattern=A.TupleLit([I("k"), I("v")]))]
    assert lam.body.stmts[-1] == C("*", I("k"), I("v"))
    # `(k, v) -> ...` and `((k, v)) -> ...` take two parameters, as in Julia
    assert one("((k, v)) -> k").params == [P("k"), P("v")]
    do = one("map(xs) do (k, v), w\n k\nend").args[0]
    assert [p.name for p in do.params] == ["#arg0", "w"]
    assert one("map(xs) do (k)\n k\nend").args[0].params == [P("k")]
    assert "slurping" in parse_error("g((a, b...)) = b").message
    assert "invalid parameter" in parse_error("g((1, 2)) = 3").message
    assert "do-block parameter" in parse_error("map(xs) do (1, 2)\n 1\nend").message
    assert "cannot be destructured" in parse_error("g(; (a, b)) = a").message


def test_concatenation_along_the_second_dimension() -> None:
    hcat = A.Dot(I("Base"), "hcat")
    assert one("[1.0;;]") == C(hcat, N(1.0))
    assert one("[1 2;;]") == C(hcat, A.MatrixLit([[N(1), N(2)]]))
    assert one("[1;2;;]") == C(hcat, A.MatrixLit([[N(1)], [N(2)]]))
    assert one("[1;2;;3;4]") == C(hcat, A.MatrixLit([[N(1)], [N(2)]]),
                                  A.MatrixLit([[N(3)], [N(4)]]))
    assert one("[a;;b]") == C(hcat, a, b)
    assert one("Float64[1;;]") == C(A.Curly(I("Matrix"), [I("Float64")]), C(hcat, N(1)))
    assert "third dimension" in parse_error("[1;;;]").message
    assert parse_incomplete("[1;;")


def test_assignments() -> None:
    assert one("a, b = b, a") == A.Assign(A.TupleLit([a, b]), A.TupleLit([b, a]))
    assert one("(a, b) = t") == A.Assign(A.TupleLit([a, b]), I("t"))
    assert one("x::Int = 1") == A.Assign(A.TypeAssert(x, I("Int")), N(1))
    assert one("x[i] = 1") == A.Assign(A.Index(x, [I("i")]), N(1))
    assert one("m.W = 1") == A.Assign(A.Dot(I("m"), "W"), N(1))
    for op in ["+", "-", "*", "/", "^", "÷"]:
        assert one(f"y {op}= 2") == A.OpAssign(y, op, N(2))
    assert one("B[1, :] .= 1.0") == A.BroadcastAssign(A.Index(I("B"), [N(1), A.Colon()]),
                                                      N(1.0))
    assert one("x = (a = 1)") == A.Assign(x, A.Assign(a, N(1)))


def test_tuples_and_named_tuples() -> None:
    assert one("(a, b)") == A.TupleLit([a, b])
    assert one("(a,)") == A.TupleLit([a])
    assert one("()") == A.TupleLit([])
    assert one("(a)") == a
    assert one("(a = 1, b = 2)") == A.NamedTupleLit(["a", "b"], [N(1), N(2)])
    assert one("(a = 1,)") == A.NamedTupleLit(["a"], [N(1)])
    assert one("(; a, b)") == A.NamedTupleLit(["a", "b"], [a, b])
    assert one("(x for x in a)") == A.Comprehension(x, [(x, a)], generator=True)


def test_comprehensions_and_generators() -> None:
    assert one("[f(x) for x in a]") == A.Comprehension(C(I("f"), x), [(x, a)])
    assert one("[x for x in a if c]") == A.Comprehension(x, [(x, a)], c)
    ij = one("[i + j for i in 1:2, j in 1:3]")
    assert ij == A.Comprehension(C("+", I("i"), I("j")),
                                 [(I("i"), C(":", N(1), N(2))), (I("j"), C(":", N(1), N(3)))])
    assert one("sum(x^2 for x in a)") == C(
        I("sum"), A.Comprehension(C("^", x, N(2)), [(x, a)], generator=True))
    assert one("[x for (i, x) in a]").iterators == [(A.TupleLit([I("i"), x]), a)]
    assert one("[x for x ∈ a]").iterators == [(x, a)]
    assert one("Float64[x for x in a]") == C(
        I("collect"), I("Float64"), A.Comprehension(x, [(x, a)], generator=True))


def test_control_flow() -> None:
    src = "if a\n  1\nelseif b\n  2\nelse\n  3\nend"
    assert one(src) == A.If(a, A.Block([N(1)]), A.If(b, A.Block([N(2)]), A.Block([N(3)])))
    assert one("if a; 1; end") == A.If(a, A.Block([N(1)]))
    rng = C(":", N(1), I("n"))
    body = A.Block([I("s")])
    assert one("for i in 1:n\n s\nend") == A.For([(I("i"), rng)], body)
    assert one("for i = 1:n\n s\nend") == A.For([(I("i"), rng)], body)
    assert one("for i ∈ 1:n\n s\nend") == A.For([(I("i"), rng)], body)
    assert one("for i in 1:n, j in 1:i\n s\nend").iterators == [
        (I("i"), rng), (I("j"), C(":", N(1), I("i")))]
    assert one("for (i, x) in enumerate(a)\nend").iterators == [
        (A.TupleLit([I("i"), x]), C(I("enumerate"), a))]
    assert one("while x < 3\n x += 1\nend") == A.While(
        A.Comparison([x, N(3)], ["<"]), A.Block([A.OpAssign(x, "+", N(1))]))
    assert stmts("while true\n break\n continue\nend")[0].body == A.Block(
        [A.Break(), A.Continue()])
    assert one("function f()\n return\nend").body == A.Block([A.Return()])
    assert one("begin\n u = 4\n u + 1\nend") == A.Block(
        [A.Assign(I("u"), N(4)), C("+", I("u"), N(1))])
    assert one("let a = 2, b = 3\n a * b\nend") == A.Let(
        [A.Assign(a, N(2)), A.Assign(b, N(3))], A.Block([C("*", a, b)]))
    assert one("let\n 1\nend") == A.Let([], A.Block([N(1)]))
    assert one("z = let a = 2\n a\nend") == A.Assign(z, A.Let([A.Assign(a, N(2))],
                                                              A.Block([a])))
    assert one("x = if c\n 1\nelse\n 2\nend") == A.Assign(
        x, A.If(c, A.Block([N(1)]), A.Block([N(2)])))
    assert one("x > 0 && return x") == A.And(A.Comparison([x, N(0)], [">"]), A.Return(x))
    assert one("c || continue") == A.Or(c, A.Continue())
    assert one("a && b || return") == A.Or(A.And(a, b), A.Return())


def test_one_line_blocks() -> None:
    ret = A.If(A.Comparison([x, N(0)], [">"]), A.Block([A.Return(x)]))
    assert one("if x > 0 return x end") == ret
    assert one("for i in a s += i end") == A.For([(I("i"), a)],
                                                 A.Block([A.OpAssign(I("s"), "+", I("i"))]))
    assert one("while c f(x) end") == A.While(c, A.Block([C(I("f"), x)]))
    assert one("function f(x) x end") == A.FunctionDef("f", [P("x")], A.Block([x]))
    assert one("if a b elseif c x else y end") == A.If(
        a, A.Block([b]), A.If(c, A.Block([x]), A.Block([y])))
    assert one("if a end") == A.If(a, A.Block([]))
    assert one("map(a) do v f(v) end") == C(I("map"), A.Lambda([P("v")], A.Block(
        [C(I("f"), I("v"))])), a)
    assert one("for x in a if c f(x) end end").body == A.Block(
        [A.If(c, A.Block([C(I("f"), x)]))])


def test_try_throw() -> None:
    src = "try\n f()\ncatch e\n g(e)\nfinally\n h()\nend"
    assert one(src) == A.Try(A.Block([C(I("f"))]), "e", A.Block([C(I("g"), I("e"))]),
                             A.Block([C(I("h"))]))
    assert one("try\n f()\ncatch\n 1\nend") == A.Try(A.Block([C(I("f"))]), None,
                                                    A.Block([N(1)]))
    assert one("try\n f()\nfinally\n 1\nend") == A.Try(A.Block([C(I("f"))]), None, None,
                                                      A.Block([N(1)]))
    assert one("throw(x)") == C(I("throw"), x)


def test_types() -> None:
    assert one("Vector{Float64}") == A.Curly(I("Vector"), [I("Float64")])
    assert one("Dict{String, Int}") == A.Curly(I("Dict"), [I("String"), I("Int")])
    assert one("struct Affine\n    W\n    b\nend") == A.StructDef("Affine", [("W", None),
                                                                        ("b", None)])
    assert one("struct Affine W; b end") == A.StructDef("Affine", [("W", None), ("b", None)])
    assert one("mutable struct P\n x::Float64\nend") == A.StructDef(
        "P", [("x", I("Float64"))], mutable=True)
    assert one("struct Foo{T} <: Bar x::T end") == A.StructDef(
        "Foo", [("x", I("T"))], params=[I("T")], supertype=I("Bar"))
    assert one("abstract type A end") == A.AbstractTypeDef("A")
    assert one("abstract type B <: A end") == A.AbstractTypeDef("B", I("A"))
    kw = one("Base.@kwdef struct K\n    a::Int = 1\n    b\nend")
    assert kw == A.MacroCall("kwdef", [A.Kwarg("a", N(1)),
                                       A.StructDef("K", [("a", I("Int")), ("b", None)])])
    assert one("module M\n x = 1\nend") == A.ModuleDef("M", A.Block([A.Assign(x, N(1))]))


def test_inner_constructors() -> None:
    s = one("struct I\n    lo::Float64\n    I(lo) = new(lo)\nend")
    assert s == A.StructDef("I", [("lo", I("Float64"))], constructors=[
        A.FunctionDef("I", [P("lo")], A.Block([C("new", I("lo"))]))])
    p = one("struct P{T}\n    x::T\n    function P{T}(x) where {T}\n        new{T}(x)\n"
            "    end\nend")
    assert p.constructors == [A.FunctionDef(
        "P", [P("x")], A.Block([A.Call(A.Curly(I("new"), [I("T")]), [x])]), where=[I("T")],
        type_params=[I("T")])]
    assert one("P{T}(x::T) where T = 1").type_params == [I("T")]
    assert stmts("mutable struct C; n::Int; C() = new(0); end")[0].constructors[0].params == []
    with pytest.raises(ZylaParseError, match="expected a field"):
        parse("struct S\n    1 + 2\nend", "t.jl")


def test_bounded_type_parameters() -> None:
    real = C("<:", I("Real"))
    assert one("Vector{<:Real}") == A.Curly(I("Vector"), [real])
    assert one("Dict{String, <:Any}") == A.Curly(I("Dict"), [I("String"), C("<:", I("Any"))])
    assert one("f(xs::Vector{<:Real}) = 1").params == [P("xs", A.Curly(I("Vector"), [real]))]


def test_paren_blocks() -> None:
    assert one("(a; b)") == A.Block([a, b])
    assert one("(a = 1; b = 2; a + b)") == A.Block([A.Assign(a, N(1)), A.Assign(b, N(2)),
                                                    C("+", a, b)])
    assert one("(a;)") == A.Block([a])
    assert one("x = (f(a); 3)") == A.Assign(x, A.Block([C("f", a), N(3)]))
    assert one("(; a, b)") == A.NamedTupleLit(["a", "b"], [a, b])
    assert one("(; a = 1)") == A.NamedTupleLit(["a"], [N(1)])


def test_operators_called_by_name() -> None:
    assert one("y = *(xs...)") == A.Assign(I("y"), C("*", A.Splat(I("xs"))))
    assert one("y = *(2, 3)") == A.Assign(I("y"), C("*", N(2), N(3)))
    assert one("y = -(xs...)") == A.Assign(I("y"), C("-", A.Splat(I("xs"))))
    assert one("y = a *(b)") == A.Assign(I("y"), C("*", a, b))
    assert one("y = -(a)") == A.Assign(I("y"), C("-", a))


def test_macros() -> None:
    cmp = A.Comparison([a, b], ["≈"])
    assert one("@test a ≈ b atol=1e-8") == A.MacroCall(
        "test", [cmp, A.Assign(I("atol"), N(1e-8))])
    assert one("@test -2^2 == -4") == A.MacroCall(
        "test", [A.Comparison([C("-", C("^", N(2), N(2))), N(-4)], ["=="])])
    assert one("@test_throws ErrorException f(x)") == A.MacroCall(
        "test_throws", [I("ErrorException"), C(I("f"), x)])
    ts = one('@testset "name" begin\n    @test true\nend')
    assert ts == A.MacroCall("testset", [S("name"),
                                         A.Block([A.MacroCall("test", [N(True)])])])
    tf = one('@testset "n" for x in a\n  @test x\nend')
    assert tf == A.MacroCall("testset", [S("n"), A.For([(x, a)], A.Block(
        [A.MacroCall("test", [x])]))])
    assert one("@show x + 1") == A.MacroCall("show", [C("+", x, N(1))])
    assert one('@assert c "msg"') == A.MacroCall("assert", [c, S("msg")])
    assert one("y = @elapsed f(x)") == A.Assign(y, A.MacroCall("elapsed", [C(I("f"), x)]))
    assert one("@. y = a * x + b") == A.MacroCall(
        ".", [A.Assign(y, C("+", C("*", a, x), b))])
    assert one("@code_ir f(x)") == A.MacroCall("code_ir", [C(I("f"), x)])
    assert one("@m(a, b; k=1)") == A.MacroCall("m", [a, b, A.Assign(I("k"), N(1))])
    assert one("(@show x)") == A.MacroCall("show", [x])
    assert one("f(@show(x), y)") == C(I("f"), A.MacroCall("show", [x]), y)
    assert one("@test [x for x in a if c] == b").args[0].operands[1] == b
    assert stmts("@show x; y") == [A.MacroCall("show", [x]), y]
    assert stmts("@test x ==\n  y") == [A.MacroCall("test", [A.Comparison([x, y], ["=="])])]
    assert stmts("@time begin\n x\nend\ny") == [
        A.MacroCall("time", [A.Block([x])]), y]


def test_modules_and_declarations() -> None:
    assert one("using Test") == A.Using(["Test"])
    assert one("using Test, Random") == A.Using(["Test", "Random"])
    assert one("using Flux: Dense, Chain") == A.Using(["Flux"], ["Dense", "Chain"])
    assert one("import Foo") == A.Using(["Foo"], is_import=True)
    assert one("import Base: show") == A.Using(["Base"], ["show"], is_import=True)
    assert one("import A.b") == A.Using(["A.b"], is_import=True)
    assert one("const x = 1") == A.Const(A.Assign(x, N(1)))
    assert one("global x") == A.Global([x])
    assert one("local x, y") == A.Local([x, y])


def test_spans_are_first_tokens() -> None:
    program = parse("x = 1\n  y = f(a) + 2b\nfunction g()\n  1\nend\n")
    assign, assign2, fdef = program.stmts
    assert assign.span == A.Span(1, 1)
    assert assign2.span == A.Span(2, 3)
    plus = assign2.value
    assert plus.span == A.Span(2, 7)
    assert plus.args[1].span == A.Span(2, 14)
    assert plus.args[1].args[1].span == A.Span(2, 15)
    assert fdef.span == A.Span(3, 1)
    assert fdef.body.stmts[0].span == A.Span(4, 3)
    s = one('"ab $x"')
    assert s.parts[1].span == A.Span(1, 6)
    assert one('"""\n  $(f(y))"""').parts[0].span == A.Span(2, 5)


# ---- errors ---------------------------------------------------------------------------


def test_unclosed_block_names_keyword_and_line() -> None:
    err = parse_error("x = 1\nfunction f(x)\n    x\n")
    assert err.message == 'missing "end" for "function" opened at line 2'
    assert err.span == A.Span(2, 1) and err.incomplete
    assert 'missing "end" for "for"' in parse_error("for i in 1:3\n").message
    assert 'missing "end" for "struct"' in parse_error("struct A\n x\n").message


def test_unbalanced_brackets() -> None:
    err = parse_error("y = [1, 2\n")
    assert err.message == 'missing "]" for "[" opened at line 1, column 5'
    err = parse_error("f(x, [1, 2)")
    assert err.message == 'unexpected ")": expected "]" to close "[" opened at line 1, column 6'
    assert "no matching" in parse_error("x = 1)").message
    err = parse_error("begin\n  (x\nend")
    assert 'missing ")" for "("' in err.message and err.span == A.Span(2, 3)
    assert 'missing "end" for "begin"' in parse_error("f(begin x)").message


def test_unexpected_tokens_are_named() -> None:
    assert parse_error("f(a b)").message == 'unexpected identifier "b"'
    assert parse_error("x = = 1").message == 'unexpected "="'
    assert parse_error("end").message.startswith('unexpected "end"')
    assert parse_error("x = 1 +").message == "unexpected end of input"
    assert parse_error('"abc').message == "unterminated string literal"
    assert parse_error("#= abc").message.startswith("unterminated block comment")
    assert parse_error("1 = 2").message == "invalid assignment target"
    assert "method signature" in parse_error("g(::Int)").message
    assert "Base.@kwdef" in parse_error("struct A\n x = 1\nend").message
    assert "named and positional" in parse_error("(a = 1, b)").message
    err = parse_error('x = "a $ b"')
    assert err.hint is not None and "\\$" in err.hint


def test_parse_incomplete() -> None:
    for text in ["function f(x)", "x = (1 +", "x = 1 +", '"abc', "[1, 2", "begin\n x",
                 "if x\n 1\nelse", "x = [1 2\n", '"""\nabc', "foo(x) do y", "#= abc",
                 "@test x =="]:
        assert parse_incomplete(text), text
    for text in ["x = 1", "f(x) = x", "x = )", "end", "f(a b)", ""]:
        assert not parse_incomplete(text), text


TOKENS = ["x", "1", "+", "-", "*", "(", ")", "[", "]", ",", ";", "\n", " ", "=", "'", ":",
          "end", "if", "function", "for", "in", '"', "$", "@test", ".", "2x", "?", "->",
          "begin", "{", "}", "#", "...", "::", "'a'", "\"s\"", "do", "where"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=14))
def test_any_input_parses_or_raises_a_parse_error(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        parse(text)
    except ZylaParseError as e:
        assert e.kind == "ParseError" and e.source is not None
        assert e.span is None or e.span.line >= 1
    assert isinstance(parse_incomplete(text), bool)


def test_errors_are_zyla_errors() -> None:
    with pytest.raises(ZylaError):
        parse("f(")


# ---- precedence, property-based -----------------------------------------------------------

#: Julia's binary operator precedence (higher binds tighter) and associativity.
BINARY = {"||": 1, "&&": 2, "==": 3, "<": 3, "|>": 4, "+": 6, "-": 6, "<<": 7, "*": 8,
          "/": 8, "÷": 8, "//": 9, "^": 11}
UNARY_PREC = 10
RIGHT = {"||", "&&", "^"}


def reference_tree(operands: list[str], negated: list[bool], ops: list[str]) -> A.Node:
    """Precedence climbing over `operands[0] ops[0] operands[1] ...` (the expected AST)."""
    pos = 0

    def operand() -> A.Node:
        nonlocal pos
        name = operands[pos]
        neg = negated[pos]
        pos += 1
        if not neg:
            return I(name)
        inner = climb(I(name), UNARY_PREC + 1)  # unary minus binds looser than ^
        return C("-", inner)

    def climb(left: A.Node, min_prec: int) -> A.Node:
        while pos - 1 < len(ops) and BINARY[ops[pos - 1]] >= min_prec:
            op = ops[pos - 1]
            prec = BINARY[op]
            if prec == 3:  # a comparison chain
                items, chain = [left], []
                while pos - 1 < len(ops) and BINARY[ops[pos - 1]] == 3:
                    chain.append(ops[pos - 1])
                    items.append(climb(operand(), 4))
                left = A.Comparison(items, chain)
                continue
            right = climb(operand(), prec if op in RIGHT else prec + 1)
            if op == "&&":
                left = A.And(left, right)
            elif op == "||":
                left = A.Or(left, right)
            else:
                left = C(op, left, right)
        return left

    return climb(operand(), 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from(sorted(BINARY)), min_size=n - 1, max_size=n - 1),
    st.lists(st.booleans(), min_size=n, max_size=n))))
def test_operator_chains_follow_julias_precedence(case: tuple[list[str], list[bool]]) -> None:
    ops, negated = case
    operands = [f"v{i}" for i in range(len(negated))]
    text = ("-" if negated[0] else "") + operands[0]
    for op, name, neg in zip(ops, operands[1:], negated[1:], strict=True):
        text += f" {op} " + ("-" if neg else "") + name
    assert one(text) == reference_tree(operands, negated, ops), text


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TOKENS + ["a", "b", "2", "(x)", "[1 2]", "f(a; b=1)"]),
                max_size=12))
def test_fast_driver_agrees_with_lark_on_any_input(parts: list[str]) -> None:
    text = "".join(parts)
    try:
        fast: object = parse(text).stmts
    except ZylaParseError:
        fast = "error"
    try:
        reference: object = reference_parse(text)
    except Exception:  # Lark's loop raises Lark's own exceptions
        reference = "error"
    assert fast == reference


# ---- speed work: the fast paths must not change anything ----------------------------------


def _load_bench_input() -> object:
    """`bench/parser_input.py` (the benchmark's generated source), loaded by path."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "bench" / "parser_input.py"
    spec = importlib.util.spec_from_file_location("parser_input", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _with_spans(x: object) -> object:
    """An AST as nested tuples that include every node's span (`==` on nodes skips spans)."""
    import dataclasses

    if isinstance(x, A.Node):
        fields = tuple((f.name, _with_spans(getattr(x, f.name)))
                       for f in dataclasses.fields(x) if f.name not in ("span", "source"))
        return (type(x).__name__, x.span, fields)
    if isinstance(x, (list, tuple)):
        return tuple(_with_spans(y) for y in x)
    return x


def _token_stream(text: str) -> list[tuple[object, ...]]:
    """Every token the lexer gives the parser for `text`, with its position."""
    from lark.lexer import LexerState

    from grammar.lexer import JuliaLexer
    from grammar.parser import _Driver, _tables

    out: list[tuple[object, ...]] = []
    job = LexInput(text, "t.jl", subparse=_subparse)
    tables = _tables()
    with _new_session(job.source):
        driver = _Driver(tables, "program")

        def record():  # type: ignore[no-untyped-def]
            for tok in JuliaLexer(None).lex(LexerState(job), driver):
                out.append((tok.type, str(tok), repr(tok.value), tok.start_pos, tok.line,
                            tok.column, tok.end_line, tok.end_column, tok.end_pos))
                yield tok

        driver.run(record(), tables.end_states["program"])
    return out


def test_benchmark_input_is_deterministic_and_parses() -> None:
    bench = _load_bench_input()
    text = bench.generate(700)  # type: ignore[attr-defined]
    assert text == bench.generate(700)  # type: ignore[attr-defined]
    assert text.count("\n") == 700 and text.endswith("\n")
    assert len(parse(text).stmts) > 50


def test_fast_driver_agrees_with_lark_on_the_benchmark_input() -> None:
    text = _load_bench_input().generate(400)  # type: ignore[attr-defined]
    assert _with_spans(parse(text).stmts) == _with_spans(reference_parse(text))


def test_lexer_fast_path_gives_the_same_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """The main loop's shortcut (`_FAST_RE`) emits what the general methods would."""
    import re

    from grammar import lexer

    texts = [_load_bench_input().generate(400)]  # type: ignore[attr-defined]
    if ACCEPTANCE.is_dir():
        texts += [p.read_text(encoding="utf-8") for p in ACCEPTANCE_FILES
                  if p != UNCLOSED and not _known_failing(p)]
    fast = [_token_stream(t) for t in texts]
    # a pattern that only ever skips spaces: every token then takes the general path
    monkeypatch.setattr(lexer, "_FAST_RE", re.compile(r"([ \t\r]*)(?P<none>(?!))?"))
    assert [_token_stream(t) for t in texts] == fast


def test_parse_restores_the_garbage_collector() -> None:
    import gc

    assert gc.isenabled()
    parse("x = 1")
    assert gc.isenabled()
    with pytest.raises(ZylaParseError):
        parse("x = (")
    assert gc.isenabled()
    gc.disable()
    try:
        parse("x = 1")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_memoized_accepts_agrees_with_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_Driver.accepts` answers from its memo exactly what simulating would answer."""
    from grammar.parser import _Driver

    memoized = _Driver.accepts
    checked = []

    def checking(self: _Driver, ttype: str) -> bool:
        answer = memoized(self, ttype)
        act = self.actions[self.stack[-1]].get(ttype)
        if act is not None and act < 0:
            assert self._simulate(ttype, act)[0] == answer
            checked.append(ttype)
        return answer

    monkeypatch.setattr(_Driver, "accepts", checking)
    text = _load_bench_input().generate(300)  # type: ignore[attr-defined]
    parse(text)
    parse(text)  # the second time, answers come from the memo
    assert len(checked) > 100


def test_statement_lists_are_plain_lists() -> None:
    program = parse("\n\nx = 1\nfunction f()\n\n    x\nend\n")
    assert type(program.stmts) is list
    assert type(program.stmts[1].body.stmts) is list  # type: ignore[attr-defined]
