"""Diagnostics: bad programs reach the user as `ERROR:` + kind + message, `FILE:LINE:COL`,
the source line with a caret, and a hint where one helps — never a Python traceback.

Each bad program runs through the CLI's own entry point (`lang.door.cli.run_file`) in this
process (a subprocess per case would spend most of its time starting up); a few cases
also run through the real console script. Also here: the hint helpers, `zyla explain`,
`@code_warntype` and the long-compile notice.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from backend import notice
from grammar.errors import SourceFile, ZylaError, format_error
from lang.core import hints as D
from lang.door import diagnostics
from lang.door.cli import command, dispatch, run_file

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Bad:
    """A bad program: the error kind, a piece of its message, the line (and column)
    reported, and a piece of the hint (None: no hint required)."""

    source: str
    kind: str
    message: str
    line: int
    hint: str | None = None
    col: int | None = None


CASES: dict[str, Bad] = {
    # --- syntax ---------------------------------------------------------------------------
    "missing_end_function": Bad("function f(x)\n    y = x + 1\n    return y\n\nprintln(f(1))\n",
                                "ParseError", 'missing "end" for "function" opened at line 1', 1),
    "missing_end_if": Bad('x = 1\nif x > 0\n    println("pos")\nprintln("done")\n',
                          "ParseError", 'missing "end" for "if" opened at line 2', 2),
    "missing_end_for": Bad("for i in 1:3\n    println(i)\n", "ParseError",
                           'missing "end" for "for"', 1),
    "missing_end_struct": Bad("struct Point\n    x::Float64\n    y::Float64\np = Point(1.0, 2.0)\n",
                              "ParseError", 'missing "end" for "struct"', 1),
    "missing_end_nested": Bad("begin\n    for i in 1:3\n        x = i\nend\n", "ParseError",
                              'missing "end"', 1),
    "extra_end": Bad("f(x) = x\nend\n", "ParseError", 'unexpected "end"', 2),
    "unbalanced_paren": Bad("y = (1 + 2\nz = 3\n", "ParseError",
                            'missing ")" for "(" opened at line 1, column 5', 1, col=5),
    "unbalanced_bracket": Bad("v = [1, 2, 3\nprintln(v)\n", "ParseError",
                              'missing "]" for "["', 1, col=5),
    "wrong_closer": Bad("v = [1, 2)\n", "ParseError", 'expected "]" to close "["', 1, col=10),
    "assign_in_if": Bad('x = 1\nif x = 1\n    println("one")\nend\n', "ParseError",
                        'unexpected "="', 2, "use `==`", col=6),
    "assign_in_while": Bad("i = 0\nwhile i = 3\n    i += 1\nend\n", "ParseError",
                           'unexpected "="', 2, "use `==`"),
    "assign_in_elseif": Bad("x = 2\nif x == 1\n    1\nelseif x = 2\n    2\nend\n", "ParseError",
                            'unexpected "="', 4, "use `==`"),
    "string_unterminated": Bad('println("hello)\n', "ParseError", "unterminated string", 1),
    "char_too_long": Bad("c = 'ab'\n", "ParseError", "character literal", 1, "one character"),
    "bad_operator": Bad("y = 2 +* 3\n", "ParseError", 'unexpected "*"', 1, col=8),
    "bad_macro_token": Bad("x = 1 @@ 2\n", "ParseError", "macro name", 1),
    # --- unsupported Julia constructs -------------------------------------------------------
    # (macros, quotes, eval and @generated exist since the macro system: their misuses)
    "generated": Bad("@generated function g(x::T) where T\n    return :(x)\nend\n",
                     "ErrorException", "@generated is supported for", 1),
    "generated_short": Bad("@generated g(x = 1) = x\n", "ErrorException",
                           "@generated is supported for", 1),
    "ccall": Bad("r = ccall(:clock, Int32, ())\n", "UndefVarError", "`ccall` not defined", 1,
                 "calling C", col=5),
    "quote_block": Bad("ex = quote\n    x + 1\nend\ny = $ex\n", "SyntaxError",
                       '"$" expression outside quote', 4, col=5),
    "quote_colon": Bad("ex = :(a + b)\nex.head = :foo_head\neval(ex)\n", "ErrorException",
                       "head :foo_head", 3),
    "goto": Bad("function f()\n    @goto done\n    @label done\nend\nf()\n", "UndefVarError",
                "@goto", 2, "break"),
    "eval_call": Bad("eval(:(undefined_xyz + 1))\n", "UndefVarError", "`undefined_xyz`", 1),
    "meta_parse": Bad('Meta.parse("1 +")\n', "Meta.ParseError", "end of input", 1),
    "macro_def": Bad('macro twice(ex)\n    error("bad")\nend\n@twice 1\n', "LoadError",
                     "ErrorException: bad", 4),
    "backtick": Bad("run(`ls`)\n", "ParseError", "'`'", 1, "--allow-shell"),
    "threads": Bad("Threads.@threads for i in 1:2\n    i\nend\n", "UndefVarError", "@threads",
                   1, "threads"),
    # --- names ---------------------------------------------------------------------------------
    "undef_typo": Bad("function total(values)\n    s = 0.0\n    for v in values\n        s += v\n"
                      "    end\n    return s\nend\nprintln(totl([1.0, 2.0]))\n", "UndefVarError",
                      "`totl` not defined", 8, "did you mean `total`", col=9),
    "undef_local_typo": Bad("function f(alpha)\n    return alpah * 2\nend\nf(1.0)\n",
                            "UndefVarError", "`alpah`", 2, "`alpha`", col=12),
    "undef_builtin_typo": Bad("println(sqr(4.0))\n", "UndefVarError", "`sqr`", 1, "`sqrt`"),
    "undef_case": Bad("Println(1)\n", "UndefVarError", "`Println`", 1, "`println`"),
    "undef_macro": Bad("@tset 1 == 1\n", "UndefVarError", "@tset", 1, "`@test`"),
    "undef_global_in_function": Bad("function f()\n    return learning_rate * 2\nend\n"
                                    "learning_rat = 0.1\nf()\n", "UndefVarError",
                                    "learning_rate", 2, "learning_rat"),
    "undef_module_member": Bad("Base.sqrtt(2.0)\n", "UndefVarError", "sqrtt", 1, "sqrt"),
    # --- methods -------------------------------------------------------------------------------
    "method_error_arity": Bad("g(x, y) = x + y\ng(1)\n", "MethodError",
                              "no method matching g(::Int64)", 2, "g(x, y) @"),
    "method_error_type": Bad('h(x::Float64) = 2x\nh(x::Vector{Float64}) = 2 .* x\nh("s")\n',
                             "MethodError", "no method matching h(::String)", 3,
                             "h(x::Float64) @"),
    "method_error_builtin": Bad('sin("a")\n', "MethodError", "no method matching sin(::String)", 1),
    "method_error_nothing": Bad("x = nothing + 1\n", "MethodError",
                                "no method matching +(::Nothing, ::Int64)", 1),
    "kw_unknown": Bad("f(x; scale=1.0) = scale * x\nf(1.0; scal=2.0)\n", "MethodError",
                      "unsupported keyword argument scal", 2, "`scale`"),
    "not_callable": Bad("x = 3\nx(2)\n", "MethodError", "not callable", 2),
    "inner_ctor_no_match": Bad("struct I\n    lo::Float64\n    I(lo) = new(lo)\nend\nI(1.0, 2.0)\n",
                               "MethodError", "no method matching I(::Float64, ::Float64)", 5,
                               "I(::Any)", col=1),
    "new_outside_struct": Bad("f(x) = x\ny = new(1, 2)\n", "SyntaxError",
                              "`new` is only available inside an inner constructor", 2, col=5),
    "new_in_function": Bad("make(x) = new(x)\n", "SyntaxError", "inner constructor", 1, col=11),
    "new_partial": Bad("mutable struct M\n    a::Float64\n    b::Float64\n    M(a) = new(a)\n"
                       "end\nM(1.0)\n", "ErrorException", "M has 2 field(s) but new got 1", 4,
                       "fewer arguments than fields", col=12),
    "new_without_params": Bad("struct Q{T}\n    x::T\n    Q(x) = new(x)\nend\n", "SyntaxError",
                              'too few type parameters specified in "new{...}"', 3, "new{...}",
                              col=12),
    "struct_body_callable": Bad("struct S\n    x\n    (s::S)(y) = y\nend\n", "SyntaxError",
                                "callable-object method defined inside `struct S`", 3),
    "struct_ctor_arity": Bad("struct P\n    a::Float64\n    b::Float64\nend\nP(1.0)\n",
                             "MethodError", "no method matching P", 5, "2 arguments"),
    # --- shapes and indices --------------------------------------------------------------------
    "dim_mismatch_matmul": Bad("A = ones(2, 3)\nB = ones(2, 3)\nC = A * B\n", "DimensionMismatch",
                               "(2,3)", 3, col=5),
    "dim_mismatch_matvec": Bad("A = ones(2, 3)\nv = ones(2)\nprintln(A * v)\n",
                               "DimensionMismatch", "length 2", 3),
    "dim_mismatch_bcast": Bad("a = [1.0, 2.0, 3.0]\nb = [1.0, 2.0]\nc = a .+ b\n",
                              "DimensionMismatch", "(3,), (2,)", 3),
    "dim_mismatch_add": Bad("x = ones(3) + ones(4)\n", "DimensionMismatch", "(3,)", 1),
    "bounds_vector": Bad("v = [1, 2, 3]\nv[5]\n", "BoundsError",
                         "3-element Vector{Int64} at index [5]", 2),
    "bounds_matrix": Bad("M = zeros(2, 2)\nM[3, 1] = 1.0\n", "BoundsError",
                         "2×2 Matrix{Float64} at index [3, 1]", 2),
    "bounds_in_function": Bad("function get(v, i)\n    return v[i]\nend\nget([1.0, 2.0], 0)\n",
                              "BoundsError", "at index [0]", 2, col=12),
    "tuple_bounds": Bad("t = (1, 2)\nt[3]\n", "BoundsError", "index [3]", 2),
    "reshape_size": Bad("reshape([1, 2, 3], 2, 2)\n", "DimensionMismatch", "(2, 2)", 1),
    # --- values --------------------------------------------------------------------------------
    "field_error": Bad("struct P\n    a::Float64\nend\np = P(1.0)\np.b\n", "FieldError",
                       "no field `b`", 5),
    "immutable_set": Bad("struct P\n    a::Float64\nend\np = P(1.0)\np.a = 2.0\n",
                         "ErrorException", "immutable", 5),
    "type_error_cond": Bad('if 1\n    println("x")\nend\n', "TypeError", "non-boolean", 1),
    "domain_error": Bad("y = sqrt(-1.0)\n", "DomainError", "sqrt", 1),
    "inexact": Bad("Int(2.5)\n", "InexactError", "2.5", 1),
    "error_call": Bad('function check(x)\n    x > 0 || error("x must be positive")\n    x\nend\n'
                      "check(-1)\n", "ErrorException", "x must be positive", 2),
    "assert_fail": Bad('@assert 1 == 2 "math is broken"\n', "AssertionError", "math is broken", 1),
    "stack_overflow": Bad("f(x) = f(x + 1)\nf(1)\n", "StackOverflowError", "recursion", 1),
    "include_missing": Bad('include("nope.jl")\n', "SystemError", "No such file", 1),
    "include_directory": Bad('include(".")\n', "SystemError", "not a regular file", 1),
    # --- automatic differentiation -------------------------------------------------------------
    "ad_nonscalar": Bad("y = 1\ngradient(x -> x .* 2, [1.0, 2.0])\n", "AD error",
                        "must be a real number", 2, "jacobian"),
    "ad_mutation_global": Bad("const G = [1.0, 2.0]\nfunction f(x)\n    G[1] = x\n"
                              "    sum(G) * x\nend\ngradient(f, 1.0)\n", "AD error",
                              "not a local variable", 3, "copy"),
    # --- safety ----------------------------------------------------------------------------------
    "run_refused": Bad('run(Cmd(["echo", "hi"]))\n', "ErrorException", "disabled", 1,
                       "--allow-shell"),
}

_AT = re.compile(r"^  at (?P<file>.+):(?P<line>\d+):(?P<col>\d+)$", re.M)


def run_case(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, bad: Bad) -> str:
    path = tmp_path / f"{name}.jl"
    path.write_text(bad.source)
    code = run_file(str(path), [])
    err = capsys.readouterr().err
    assert code == 1, err
    return err


def test_at_least_forty_bad_programs() -> None:
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_program(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    bad = CASES[name]
    err = run_case(tmp_path, capsys, name, bad)
    assert "Traceback" not in err and "InternalError" not in err, err
    # a compile notice may come first (the AD cases try to compile and give up)
    first = next(ln for ln in err.splitlines() if ln.startswith("ERROR:"))
    assert first.startswith(f"ERROR: {bad.kind}: "), err
    assert bad.message in first, err
    m = _AT.search(err)
    assert m is not None, err
    assert m.group("file").endswith(f"{name}.jl"), err
    assert int(m.group("line")) == bad.line, err
    if bad.col is not None:
        assert int(m.group("col")) == bad.col, err
    # the quoted source line and a caret under the reported column
    lines = err.splitlines()
    i = next(k for k, ln in enumerate(lines) if _AT.match(ln))
    quoted = lines[i + 1]
    src_line = bad.source.splitlines()[bad.line - 1]
    assert quoted.endswith(src_line), err
    caret = lines[i + 2]
    bar = quoted.index("| ") + 2
    assert caret.index("^") - bar == int(m.group("col")) - 1, err
    if bad.hint is not None:
        assert "hint:" in err and bad.hint in err, err


def test_console_script_reports_without_traceback(tmp_path: Path) -> None:
    """The real `zyla` command, for a syntax error and a run-time error."""
    cmd = command()
    env = {k: v for k, v in os.environ.items() if k not in ("ZYLA_DEBUG", "ZYLA_COMPILE")}
    env["JAX_PLATFORMS"] = "cpu"
    for name in ("assign_in_if", "undef_typo"):
        path = tmp_path / f"{name}.jl"
        path.write_text(CASES[name].source)
        res = subprocess.run(cmd + ["run", str(path)], capture_output=True, text=True,
                             timeout=120, env=env)
        assert res.returncode == 1
        assert "Traceback" not in res.stderr
        assert f"{name}.jl:{CASES[name].line}:" in res.stderr
        assert "hint:" in res.stderr


# --- the helpers -----------------------------------------------------------------------------


def test_edit_distance() -> None:
    assert D.edit_distance("kitten", "sitting") == 3
    assert D.edit_distance("ab", "ba") == 1  # a transposition
    assert D.edit_distance("", "abc") == 3
    assert D.edit_distance("same", "same") == 0
    assert D.edit_distance("abcdef", "uvwxyz", limit=2) == 3  # stops early, > limit


def test_closest_names() -> None:
    names = ["total", "totals", "print", "println", "sqrt", "sum"]
    assert D.closest_names("totl", names)[0] == "total"
    assert D.closest_names("Println", names) == ["println"] + D.closest_names("Println", names)[1:]
    assert D.closest_names("zzzzzz", names) == []


def test_enrich_never_overwrites_a_hint() -> None:
    e = ZylaError("UndefVarError", "`x` not defined", hint="keep me")
    assert diagnostics.enrich(e).hint == "keep me"


def test_error_inside_library_points_at_user_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "lib.jl"
    path.write_text("g(x) = [x, x]\ny = 2\ngradient(g, 1.0)\n")
    assert run_file(str(path), []) == 1
    err = capsys.readouterr().err
    assert "lib.jl:3:1" in err
    assert "raised inside Zyla's library" in err


def test_format_error_multiline_hint() -> None:
    e = ZylaError("MethodError", "no method", hint="closest candidates are:\n  f(x)")
    e.located(None, None)
    out = format_error(e)
    assert out.splitlines()[1] == "  hint: closest candidates are:"
    assert out.splitlines()[2].strip() == "f(x)"


def test_caret_under_tabs() -> None:
    from grammar.ast import Span

    e = ZylaError("UndefVarError", "`y` not defined", Span(1, 3), SourceFile("t.jl", "\t\ty\n"))
    lines = format_error(e).splitlines()
    assert lines[-1].endswith("| \t\t^")


# --- explain, @code_warntype, compile notices ----------------------------------------------------

EXPLAIN_SRC = """\
function noisy(x)
    s = sum(x)
    println("s = ", s)
    return s
end
quiet(x) = sum(x .^ 2)
scalar(x) = 2x
"""


@pytest.fixture(scope="module")
def explain_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("explain") / "model.jl"
    path.write_text(EXPLAIN_SRC)
    return path


def test_explain_names_construct_and_line(explain_file: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["explain", str(explain_file), "noisy([1.0, 2.0])"]) == 0
    out = capsys.readouterr().out
    assert "noisy(::Vector{Float64}) runs on the host interpreter" in out
    assert "`println`" in out
    assert "model.jl:3" in out and 'println("s = ", s)' in out


def test_explain_offloading_call(explain_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["explain", str(explain_file), "quiet(ones(3))"]) == 0
    out = capsys.readouterr().out
    assert "quiet(::Vector{Float64}) offloads to XLA" in out
    assert dispatch(["explain", str(explain_file), "scalar(2.0)"]) == 0
    out = capsys.readouterr().out
    assert "offloads to XLA" in out and "not offloaded automatically" in out


def test_explain_bad_call_is_a_clean_error(explain_file: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert dispatch(["explain", str(explain_file), "nosuch(1.0)"]) == 1
    err = capsys.readouterr().err
    assert "UndefVarError" in err and "Traceback" not in err
    assert dispatch(["explain", str(explain_file), "1 + "]) == 1
    assert "ParseError" in capsys.readouterr().err


def test_code_warntype(capsys: pytest.CaptureFixture[str]) -> None:
    from lang.door.wiring import Runtime

    rt = Runtime()
    rt.run_source(EXPLAIN_SRC + "@code_warntype noisy([1.0, 2.0])\n", "w.jl")
    out = capsys.readouterr().out
    assert "runs on the host interpreter" in out and "w.jl:3" in out


def test_compile_notice_announces_long_compiles() -> None:
    import time

    buf = io.StringIO()
    os.environ["ZYLA_COMPILE_NOTICE"] = "0.05"
    try:
        with notice.compile_notice(lambda: "f(::Vector{Float64})", stream=buf):
            time.sleep(0.3)
        with notice.compile_notice(lambda: "never shown", stream=buf):
            pass
    finally:
        del os.environ["ZYLA_COMPILE_NOTICE"]
    text = buf.getvalue()
    assert text.startswith("compiling f(::Vector{Float64}) ... done in ")
    assert text.endswith(" s\n") and "never shown" not in text


def test_compile_notice_from_compiled_call(capsys: pytest.CaptureFixture[str]) -> None:
    from lang.door.wiring import Runtime

    os.environ["ZYLA_COMPILE_NOTICE"] = "0"
    try:
        rt = Runtime()
        rt.run_source("h(x) = sum(x .* 3.0)\nh([1.0, 2.0])\n", "n.jl")
    finally:
        del os.environ["ZYLA_COMPILE_NOTICE"]
    err = capsys.readouterr().err
    assert "compiling h(::Vector{Float64}) ... done in" in err
