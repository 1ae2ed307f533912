"""User macros and code as data (lang/core/exprs.py): `quote`, `:(...)`, `$`, `Expr`,
`macro`, hygiene and `esc`, `eval`/`@eval`, `Meta.parse`, `@macroexpand`. Each case is
what Julia prints for the same code."""

from __future__ import annotations

import pytest
from snippets import printed, session

from grammar.errors import ZylaError
from lang.door.api import Zyla

MACROS = """
macro sayhello(name)
    return :( println("Hello, ", $name) )
end
macro twice(ex)
    quote
        $(esc(ex))
        $(esc(ex))
    end
end
macro myassert(ex)
    return :( $(esc(ex)) ? nothing : throw(AssertionError($(string(ex)))) )
end
macro settmp(ex)
    quote
        t = 10
        $(esc(ex)) + t
    end
end
macro setesc()
    :( $(esc(:t)) = 99 )
end
macro sq(ex)
    :( $(esc(ex)) * $(esc(ex)) )
end
macro foo_str(s)
    uppercase(s)
end
macro mysum(xs...)
    :( +($(xs...)) )
end
macro outer(x)
    :( @mysum($(esc(x)), 1) )
end
macro loopsum(n)
    quote
        s = 0
        for i in 1:$(esc(n))
            s += i
        end
        s
    end
end
helper(x) = x + 1000
macro callhelper(ex)
    :( helper($(esc(ex))) )
end
macro line()
    __source__.line
end
module MacroMod
macro double(x)
    :(2 * $(esc(x)))
end
end
"""


def _z() -> Zyla:
    return session("macros", MACROS)


@pytest.mark.parametrize("code, want", [
    # shapes
    ("println(:(a + b).args == [:+, :a, :b], ' ', :(a + b).head)", "true call"),
    ("println(:(f(x; k = 1)).args[2].head, ' ', :(f(x; k = 1)).args[2].args[1].head)",
     "parameters kw"),
    ("println(:(a + b + c).args, ' ', :(a < b < c).head, ' ', :(a && b).head)",
     "Any[:+, :a, :b, :c] comparison &&"),
    ("println(:(a.b).args, ' ', :(f.(x)).head, ' ', :(x .+ y).args[1], ' ', :(a[i]).head)",
     "Any[:a, :(:b)] . .+ ref"),
    ("println(:(x += 1).head, ' ', :([1, 2]).head, ' ', :([1 2]).head, ' ', :([1; 2]).head)",
     "+= vect hcat vcat"),
    ("println(:(x -> x + 1).head, ' ', :(x::Int).head, ' ', :(T{A}).head, ' ', :(\"a $x\").head)",
     "-> :: curly string"),
    ("println(:a === :(a), ' ', :(1), ' ', typeof(:(:a)), ' ', Expr(:call, :+, 1, 2) == :(1 + 2))",
     "true 1 QuoteNode true"),
    ("q = quote x end; println(typeof(q), ' ', q.head, ' ', typeof(q.args[1]), ' ', q.args[2])",
     "Expr block LineNumberNode x"),
    # printing
    ("println(:(a + b * 2), ' ', repr(:(a + b * 2)), ' ', string(:((a + b) * c)))",
     "a + b * 2 :(a + b * 2) (a + b) * c"),
    ("println(repr(:(x -> x + 1)), ' ', repr(:(f(x, y))), ' ', repr(:(a[i])), ' ', :(-(a + b)))",
     ":(x -> x + 1) :(f(x, y)) :(a[i]) -(a + b)"),
    ("println(repr(:(f(x; k = 1))), ' ', repr(:(:a)), ' ', QuoteNode(:a), ' ', repr(:(x ^ 2)))",
     ":(f(x; k = 1)) :(:a) :a :(x ^ 2)"),
    ("show(quote\n    x = 1\n    f(x)\nend)",
     "quote\n    #= <python>:2 =#\n    x = 1\n    #= <python>:3 =#\n    f(x)\nend"),
    ("print(quote\n    if x > 1\n        y = 2\n    end\nend)",
     "begin\n    #= <python>:2 =#\n    if x > 1\n        #= <python>:3 =#\n        y = 2\n"
     "    end\nend"),
    ("dump(:(a + 1))", "Expr\n  head: Symbol call\n  args: Array{Any}((3,))\n    1: Symbol +\n"
     "    2: Symbol a\n    3: Int64 1"),
    # interpolation, mutation, copy
    ("v = [1, 2, 3]; e = :(sum($v) + 1); println(e, ' ', eval(e))", "sum([1, 2, 3]) + 1 7"),
    ("xs = [:a, :b]; println(:(f($(xs...))), ' ', :(g($(1 + 2))))", "f(a, b) g(3)"),
    ("ex = :(f(1)); ex.args[1] = :g; push!(ex.args, 3); println(ex)", "g(1, 3)"),
    ("e1 = :(a + b); e2 = copy(e1); push!(e2.args, :c); println(e1, ' ', e2, ' ', e1 == e2)",
     "a + b a + b + c false"),
    ("q = quote quote $x end end; println(q.args[2].head, ' ', q.args[2].args[1].args[2].head)",
     "quote $"),
    ("d = Dict(:(a + b) => 1); println(haskey(d, :(a + b)), ' ', :(a + b) in Set([:(a + b)]),"
     " ' ', hash(:(a + b)) == hash(:(a + b)), ' ', haskey(d, :(a + c)))", "true true true false"),
    # Meta, gensym, Symbol
    ("ex = Meta.parse(\"1 + 2 * 3\"); println(ex, ' ', eval(ex), ' ', Meta.isexpr(ex, :call))",
     "1 + 2 * 3 7 true"),
    ("println(repr(Meta.quot(:x)), ' ', Meta.isexpr(:(a+b), :call, 3), ' ', Symbol(\"x\"), ' ',"
     " typeof(gensym()))", ":(:x) true x Symbol"),
    # user macros
    ("@sayhello \"human\"", "Hello, human"),
    ("@twice println(\"hi\")", "hi\nhi"),
    ("@myassert 1 == 1; try @myassert 1 == 2 catch e println(e) end",
     'AssertionError("1 == 2")'),
    ("t = 1; println(@settmp(t), ' ', t)", "11 1"),  # hygiene: the macro's t is its own
    ("t = 1; @setesc; println(t)", "99"),  # esc: the caller's t
    ("println(foo\"abc\")", "ABC"),
    ("println(@macroexpand @sayhello \"x\")", 'println("Hello, ", "x")'),
    ("println(macroexpand(Main, :(@sq(y))))", "y * y"),
    ("println(@__MODULE__)", "Main"),
    ("println(@mysum(1, 2, 3), ' ', @outer(5), ' ', MacroMod.@double(21), ' ', @line)",
     "6 6 42 1"),
    # hygiene: the loop's s and i are the macro's; the macro's `helper` is the global
    # one even where the caller has a local of that name
    ("s = -1; i = -2; println(@loopsum(4), ' ', s, ' ', i)", "10 -1 -2"),
    ("k(helper) = @callhelper(helper) * 2; println(k(1))", "2002"),
    ("eval(Expr(:(=), :xx, 5)); println(xx, ' ', :(=) === Symbol(\"=\"), ' ', :(::))",
     "5 true ::"),
    ("mk(n) = @eval $(Symbol(\"fn\", n))() = $n; mk(1); mk(2); println(fn1(), fn2())", "12"),
    ("println(repr(:(try x catch e y end)))", ":(try\n      #= <python>:1 =#\n      x\n"
     "  catch e\n      #= <python>:1 =#\n      y\n  end)"),
    # `(a + b) + c` is two calls, `a + b + c` one; both print as Julia prints them
    ("println(:((a + b) + c).args, ' ', :((a + b) + c), ' ', :(a - b - c), ' ', :(1:n-1))",
     "Any[:+, :(a + b), :c] (a + b) + c (a - b) - c 1:n - 1"),
])
def test_macros_and_code_values(code: str, want: str, capsys: pytest.CaptureFixture) -> None:
    assert printed(_z(), code, capsys) == want


def test_eval_generates_methods(capsys: pytest.CaptureFixture) -> None:
    z = _z()
    code = """
    struct MyT; v::Float64; end
    for f in (:double, :triple)
        k = f === :double ? 2 : 3
        @eval $f(x::MyT) = $k * x.v
    end
    for op in (:sin, :cos)
        @eval myf(::Val{$(QuoteNode(op))}, x) = $op(x)
    end
    Core.eval(Main, :(answer = 42))
    println(double(MyT(1.5)), ' ', triple(MyT(1.0)), ' ', myf(Val(:cos), 0.0), ' ', answer)
    """
    assert printed(z, code, capsys) == "3.0 3.0 1.0 42"


def test_a_macro_in_a_function_compiled_and_differentiated() -> None:
    """Expansion happens before lowering: the host, the compiled tier and AD agree."""
    z = _z()
    z.eval("f(x) = @sq(x) + 1.0")
    assert z.call("f", 3.0) == 10.0
    assert float(z.call("f", 3.0, compiled=True)) == 10.0
    assert z.eval("gradient(x -> @sq(x), 3.0)") == (6.0,)


def test_user_macros_come_before_built_in_ones_and_generated_functions(
        capsys: pytest.CaptureFixture) -> None:
    z = session("macros_own_test")
    code = """
    macro test(ex)
        :(println("my test: ", $(string(ex))))
    end
    @test 1 == 2
    @generated function gen(x)
        x <: Integer ? :(x + 1) : :(x * 2)
    end
    println(gen(1), ' ', gen(1.5))
    """
    assert printed(z, code, capsys) == "my test: 1 == 2\n2 3.0"


@pytest.mark.parametrize("code, kind, text", [
    ("macro bad(x)\n    Expr(:foo_head, x)\nend\ny = 1\n@bad y", "LoadError", ":foo_head"),
    ("macro boom(x)\n    error(\"no good\")\nend\nz = @boom 1", "LoadError", "no good"),
    ("x = 1; $x + 1", "SyntaxError", '"$" expression outside quote'),
])
def test_bad_macros_are_clear_errors(code: str, kind: str, text: str) -> None:
    with pytest.raises(ZylaError) as info:
        _z().eval(code, "m.jl")
    assert info.value.kind == kind and text in info.value.message
    assert info.value.span is not None and info.value.span.line > 0
