"""The AD API beyond `gradient`: checkpointing, ignored derivatives, forward mode via the
transposed pullback, Jacobians and Hessians, nested AD, custom rules, Zygote's names,
mutation, and reverse mode through data-dependent `while` loops compiled to one XLA
executable. Every expected value is computed independently (finite differences or
closed forms)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grammar.errors import ZylaError
from lang.door.api import Zyla

SRC = r"""
f(x) = sin(x) * x + x^3
g_ckpt(x) = @checkpoint f(x)

function loop_plain(x, n)
    s = x
    t = zero(eltype(x))
    for i in 1:n
        s = tanh.(s .* 0.9 .+ x)
        t += sum(s)
    end
    t
end

function loop_ckpt(x, n)
    s = x
    t = zero(eltype(x))
    @checkpoint for i in 1:n
        s = tanh.(s .* 0.9 .+ x)
        t += sum(s)
    end
    t
end

h_ignore(x) = x * ignore_derivatives(() -> x^2)
h_ignore_macro(x) = x * @ignore_derivatives x^2

function decay(x, c, r)
    # a while loop whose trip count depends on the data: shrink x until it is below c
    n = 0
    while x > c
        x = x * r + 0.001 * sin(x)
        n += 1
    end
    x * n
end
function trips(x, c, r)
    n = 0
    while x > c
        x = x * r + 0.001 * sin(x)
        n += 1
    end
    n
end
grad_decay(x, c, r) = gradient(decay, x, c, r)[1]

sq(x) = x .^ 2
third(x) = x^4 / 12

struct Scale
    a
end
(s::Scale)(x) = s.a * x

using ChainRulesCore
myexp(x) = exp(x)
function ChainRulesCore.rrule(::typeof(myexp), x)
    y = myexp(x)
    back(dy) = (NoTangent(), @thunk(dy * y))
    return y, back
end
mysq(x) = x^2
function ChainRulesCore.rrule(::typeof(mysq), x)
    mysq_back(dy) = (ZeroTangent(), 2 * dy * x)
    return mysq(x), mysq_back
end

function swapper(a, b, n)
    for i in 1:n
        a, b = b, a * 1.5
    end
    a + 2b
end

function fanout(x)
    s = zero(x)
    for i in 1:50
        s += x * i
    end
    s
end

function accumulate_into(x)
    y = zeros(length(x))
    for i in eachindex(x)
        y[i] = x[i]^2
        if i > 1
            y[i] += y[i - 1]
        end
    end
    sum(y)
end

fwdkw(args...; a = nothing, kw...) = getkw(a, args...; kw...)
getkw(args...; x = 1, idx = Colon(), kw...) = x[idx]
mutable struct MutBox
    v
end
glob = 0.0
function addglobal(x)
    global glob += x
    glob
end
alias_write(v) = (w = v; w[1] = 5.0; sum(w .* v))
alias_set!(v) = (v[1] = 3.0 * v[2]; nothing)
alias_callee(v) = (alias_set!(v); sum(v .* v))
alias_result(v) = (w = v; w[1] = 5.0; v)
alias_branch(v, c) = (z = v; if c > 0; v[1] = 2.0; end; sum(z .* v))
function branch_write(v, c)
    if c > 0
        v[1] = 2 * v[2]
    else
        v[2] = 1.0
    end
    sum(v .* v)
end

# nested reverse AD through loops (hessian_reverse differentiates the adjoint's tape walk)
function lp_static(x)
    s = x
    t = 0.0
    for i in 1:4
        s = sin.(s) .* x .+ s[1] * 0.3
        t += sum(s .^ 2) / i
    end
    t
end
function lp_dynamic(x, c)
    # the trip count comes from a while loop: a run-time length when compiled
    n = 0
    s = 1.0
    while s < c
        s = s * 2.0
        n += 1
    end
    t = x
    for i in 1:n
        t = tanh.(t .* x) .+ t[2]
    end
    sum(t .^ 2)
end
lp_dyn(x) = lp_dynamic(x, 5.0 + x[3])
function lp_while(x)
    s = x
    while sum(s) < 6.0
        s = s .* 1.5 .+ x .* s[2]
    end
    sum(s .* x)
end
function lp_elems(x)
    s = 0.0
    for t in x
        s = s * t + t^3 * x[1]
    end
    s
end
function lp_nested(x)
    s = x
    for i in 1:2
        for j in 1:3
            s = s .* cos.(x) .+ j * sin(s[1])
        end
    end
    sum(s)
end
hvp(f, x, w) = sum(gradient(f, x)[1] .* w)
function lp_scalar(x, n)
    s = x
    for i in 1:n
        s = sin(s) * x + s * 0.5
    end
    s
end
function wl_scalar(x)
    s = x
    while s < 5.0
        s = s * 1.5 + x * s
    end
    s * x
end
d2_lp_scalar(x, n) = gradient(a -> gradient(b -> lp_scalar(b, n), a)[1], x)[1]
d3_lp_scalar(x, n) = gradient(a -> d2_lp_scalar(a, n), x)[1]
d2_wl_scalar(x) = gradient(a -> gradient(wl_scalar, a)[1], x)[1]
d3_wl_scalar(x) = gradient(d2_wl_scalar, x)[1]

function push_local(x)
    v = Float64[]
    for i in eachindex(x)
        push!(v, 2 * x[i])
    end
    sum(v .* v)
end
"""


@pytest.fixture(scope="module")
def z() -> Zyla:
    zz = Zyla()
    zz.eval(SRC)
    return zz


def fd(f, x: float, h: float = 1e-6) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


@settings(max_examples=15, deadline=None)
@given(st.floats(-2, 2))
def test_checkpointed_call_matches_plain(z: Zyla, x: float) -> None:
    assert z.gradient("g_ckpt", x)[0] == pytest.approx(z.gradient("f", x)[0], rel=1e-12)


@pytest.mark.parametrize("n", [1, 7, 49, 50])
def test_checkpointed_loop_matches_plain_and_fd(z: Zyla, n: int) -> None:
    x = np.linspace(-1, 1, 5)
    gp = z.gradient("loop_plain", x, n)
    gc = z.gradient("loop_ckpt", x, n)
    assert gp[1] is None and gc[1] is None
    np.testing.assert_allclose(gc[0], gp[0], rtol=1e-10)
    e = np.zeros(5)
    e[2] = 1e-6
    num = (z.call("loop_plain", x + e, n) - z.call("loop_plain", x - e, n)) / 2e-6
    assert gp[0][2] == pytest.approx(num, rel=1e-5)
    np.testing.assert_allclose(z.gradient("loop_ckpt", x, n, compiled=True)[0], gp[0], rtol=1e-10)


def test_checkpoint_keeps_fewer_residuals(z: Zyla) -> None:
    """XLA's temporary memory for the gradient of a 2000-step loop: @checkpoint keeps
    about sqrt(n) states instead of n sets of residuals."""
    from backend.compile import compiled_call
    from lang.core import values as V
    from lang.core.structure import split

    x = np.linspace(-1, 1, 50)
    mem = {}
    for name in ("loop_plain", "loop_ckpt"):
        gf = z.rt.lookup("gradient")
        f = z.rt.lookup(name)
        compiled_call(z.rt, gf, [f, x, 2000])
        from backend.compile import cached_entry

        leaves, _ = split((gf, (f, x, 2000), V.NamedTuple((), ())), static_ints=True)
        entry = cached_entry(z.rt, gf, [f, x, 2000])
        from backend.compile import _global_values

        gvals = _global_values(z.rt, entry.global_names, draw=False)  # a checkpoint's key
        comp = entry.jitted.lower(gvals, [np.asarray(v) for v in leaves]).compile()
        mem[name] = comp.memory_analysis().temp_size_in_bytes
    assert mem["loop_ckpt"] * 5 < mem["loop_plain"], mem


def test_ignore_derivatives(z: Zyla) -> None:
    assert z.gradient("h_ignore", 3.0) == (9.0,)
    assert z.gradient("h_ignore_macro", 3.0) == (9.0,)


def test_jvp_and_pushforward(z: Zyla) -> None:
    y, t = z.eval("jvp(x -> [x[1] * x[2], sin(x[1])], [2.0, 3.0], [1.0, 0.5])")
    np.testing.assert_allclose(y, [6.0, np.sin(2.0)])
    np.testing.assert_allclose(t, [3.0 * 1.0 + 2.0 * 0.5, np.cos(2.0)])


def test_jacobian_and_hessians(z: Zyla) -> None:
    J = z.eval("jacobian(x -> [x[1]^2 * x[2], exp(x[2])], [2.0, 0.5])[1]")
    np.testing.assert_allclose(J, [[2 * 2.0 * 0.5, 4.0], [0.0, np.exp(0.5)]])
    H = z.eval("hessian(x -> x[1]^2 * x[2] + x[2]^3, [2.0, 0.5])")
    np.testing.assert_allclose(H, [[2 * 0.5, 2 * 2.0], [2 * 2.0, 6 * 0.5]])
    Hr = z.eval("hessian_reverse(x -> x[1]^2 * x[2] + x[2]^3, [2.0, 0.5])")
    np.testing.assert_allclose(Hr, H)


@settings(max_examples=10, deadline=None)
@given(st.floats(-1.5, 1.5))
def test_third_order_nested_gradient(z: Zyla, x: float) -> None:
    # d^3/dx^3 (x^4 / 12) = 2x
    d3 = z.eval(f"gradient(a -> gradient(b -> gradient(third, b)[1], a)[1], {x!r})")[0]
    assert d3 == pytest.approx(2 * x, abs=1e-9)


def test_gradient_of_closure_and_callable_struct(z: Zyla) -> None:
    g = z.eval("let a = 3.0; gradient(c -> c(2.0), x -> a * x)[1] end")
    assert g == {"a": 2.0}
    assert z.eval("gradient(s -> s(4.0), Scale(2.0))[1]") == {"a": 4.0}


def test_custom_rules_with_thunks_and_zero_tangents(z: Zyla) -> None:
    assert z.gradient("myexp", 1.0)[0] == pytest.approx(np.exp(1.0))
    assert z.gradient("mysq", 3.0) == (6.0,)
    # rules compose with nested AD: d2/dx2 mysq = 2
    assert z.eval("gradient(x -> gradient(mysq, x)[1], 3.0)") == (2.0,)


def test_zygote_names(z: Zyla) -> None:
    assert z.eval("using Zygote; Zygote.gradient(x -> 3x^2, 2.0)") == (12.0,)
    assert z.eval("Zygote.withgradient(x -> x^2, 3.0)") == {"val": 9.0, "grad": (6.0,)}


@pytest.mark.parametrize("n", [0, 1, 4])
def test_loop_carried_swap(z: Zyla, n: int) -> None:
    a, b = 1.3, -0.7
    num_a = fd(lambda t: z.call("swapper", t, b, n), a)
    num_b = fd(lambda t: z.call("swapper", a, t, n), b)
    ga, gb, gn = z.gradient("swapper", a, b, n)
    assert gn is None
    assert ga == pytest.approx(num_a, rel=1e-6, abs=1e-8)
    assert gb == pytest.approx(num_b, rel=1e-6, abs=1e-8)


def test_fan_out_accumulation(z: Zyla) -> None:
    assert z.gradient("fanout", 2.0) == (sum(range(1, 51)),)
    assert z.gradient("fanout", 2.0, compiled=True) == (sum(range(1, 51)),)


def test_mutation_reading_back_what_was_written(z: Zyla) -> None:
    x = np.array([1.0, 2.0, 3.0])
    # sum of prefix sums of squares: d/dx_i = 2 x_i (n - i + 1)
    expected = 2 * x * np.array([3, 2, 1])
    np.testing.assert_allclose(z.gradient("accumulate_into", x)[0], expected)
    np.testing.assert_allclose(z.gradient("accumulate_into", x, compiled=True)[0], expected)


@pytest.mark.parametrize("compiled", [False, True])
def test_writes_through_aliases_are_refused_never_wrong(z: Zyla, compiled: bool) -> None:
    """A write through one name read through another (Julia's aliasing) cannot be
    functionalised: an error, never the gradient of the unwritten values."""
    x = np.array([1.0, 2.0])
    for f in ("alias_write", "alias_callee"):
        with pytest.raises(Exception, match="AD error.*alias"):
            z.gradient(f, x.copy(), compiled=compiled)
    with pytest.raises(Exception, match="AD error.*alias"):
        z.gradient("alias_branch", x.copy(), 1.0, compiled=compiled)
    with pytest.raises(Exception, match="AD error.*alias"):
        z.eval("jacobian(alias_result, [1.0, 2.0])")
    # writes through the one name a function reads are differentiated (vs closed forms)
    np.testing.assert_allclose(z.gradient("alias_branch", x.copy(), -1.0)[0], 2 * x)
    np.testing.assert_allclose(z.gradient("branch_write", x.copy(), 1.0, compiled=compiled)[0],
                               [0.0, 2 * x[1] + 2 * 2 * x[1] * 2])
    np.testing.assert_allclose(z.gradient("branch_write", x.copy(), -1.0, compiled=compiled)[0],
                               [2 * x[0], 0.0])


# Zygote's conventions for values that are not arrays of floats: each expression is
# evaluated and compared with the closed form (Zygote's own answer)
ZYGOTE_FACTS = [
    ("gradient(x -> try; sqrt(-x); catch e; x^2; end, 2.0)[1]", 4.0),  # the handler ran
    ("gradient(x -> try; 3x; finally; nothing; end, 2.0)[1]", 3.0),
    ("gradient(v -> sum(fwdkw(; x = v, idx = 1:1)), ones(2))[1]", [1.0, 0.0]),  # kw... passed on
    ("gradient(x -> (d = Dict(); d[:x] = x; x * d[:x]), 2.0)[1]", 4.0),
    ("gradient(d -> d[:y] * 2, Dict(:y => 0.4))[1][:y]", 2.0),
    ("gradient(x -> Dict(:a => x, :b => 2x)[:b], 1.0)[1]", 2.0),
    ("gradient(x -> (x::Float64) * 3, 1.0)[1]", 3.0),
    ("gradient(x -> (x => 2).first * 10, 1.0)[1]", 10.0),
    ("gradient(xs -> sum([x^i for (i, x) in enumerate(xs)]), 1:3)[1]", [1.0, 4.0, 27.0]),
    ("gradient((p, q, r) -> sum((p, q, r)[[1, 2, 1]]), 1.0, 2.0, 3.0)", (2.0, 1.0, None)),
    ("gradient(t -> prod(t), (1.0, 2.0, 3.0))[1]", (6.0, 3.0, 2.0)),
    ("withgradient(v -> (sum(v), 2v), [1.0, 2.0]).grad[1]", [1.0, 1.0]),
    ("gradient((a, b) -> Zygote.hook(-, a) * b, 2.0, 3.0)", (-3.0, 2.0)),
    ("gradient((u, w) -> sum(a * b for (a, b) in Iterators.product(u, w)), [1.0, 2.0], [3.0])",
     ([3.0, 3.0], [3.0])),
    ("gradient((xs, ys) -> sum([x * y for x in xs, y in ys]), [1.0, 2.0], [1.0, 1.0, 1.0])",
     ([3.0, 3.0], [3.0, 3.0, 3.0])),
    ("gradient(v -> sum(v .+ Ref(v[1])), [1.0, 2.0, 3.0])[1]", [4.0, 1.0, 1.0]),
]
# where Zyla cannot follow the gradient: an error, never a lost gradient
ZYGOTE_REFUSED = [
    "gradient(x -> (r = Ref(1.0); r[] = 2x; r[] * 3), 1.0)",  # a mutable struct written
    "gradient(x -> (m = MutBox(x); m.v = m.v * 2; m.v), 1.0)",
    "gradient(addglobal, 1.0)",  # a number written into a global
    "jacobian(x -> [addglobal(x[1]), 0.0], [1.0])",
    "gradient(x -> sum(unique([x, 2x])), 1.0)",  # a built-in without a rule
    "gradient(x -> sum(Iterators.flatten(([x], [x]))), 1.0)",
    "gradient(x -> (d = Dict(:a => x); d2 = d; d[:a] = 2x; d2[:a]), 1.0)",  # alias of a Dict
]


@pytest.mark.parametrize("src, expected", ZYGOTE_FACTS, ids=range(len(ZYGOTE_FACTS)))
def test_zygote_facts_beyond_arrays(z: Zyla, src: str, expected: Any) -> None:
    got = z.eval(src)
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert g is None if e is None else np.allclose(g, e), (g, e)
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), expected)


@pytest.mark.parametrize("src", ZYGOTE_REFUSED, ids=range(len(ZYGOTE_REFUSED)))
def test_gradients_zyla_cannot_follow_are_refused(z: Zyla, src: str) -> None:
    with pytest.raises(ZylaError, match="AD error"):
        z.eval(src)


def test_push_into_a_local_array(z: Zyla) -> None:
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(z.gradient("push_local", x)[0], 8 * x)


def test_while_gradient_compiled_for_trip_counts_1_to_10000(z: Zyla) -> None:
    """One executable per signature (the tape grows by recompiling when a run overflows
    it) for trip counts from 1 to over 10000 in one process; gradients equal finite
    differences."""
    from backend.compile import compiled_call

    gd = z.rt.lookup("grad_decay")
    seen = []
    for x, c, r in ((1.5, 1.0, 0.5), (40.0, 1.0, 0.5), (3.0e3, 1.0e-3, 0.5), (1.0, 0.05, 0.99),
                    (1.0, 1.0e-4, 0.995), (1.0, 4.0e-5, 0.998)):
        n = z.call("trips", x, c, r, compiled=True)
        seen.append(n)
        g = compiled_call(z.rt, gd, [x, c, r])
        h = 1e-7 * max(1.0, abs(x))
        num = (z.call("decay", x + h, c, r, compiled=True)
               - z.call("decay", x - h, c, r, compiled=True)) / (2 * h)
        assert g == pytest.approx(num, rel=1e-4, abs=1e-7), (x, c, r, n)
        if n < 100:  # the host interpreter agrees (long loops are slow to interpret)
            assert g == pytest.approx(z.gradient("decay", x, c, r)[0], rel=1e-9)
    assert min(seen) == 1 and max(seen) >= 10000, seen


def test_code_hlo_of_while_gradient_is_one_module_with_a_loop(z: Zyla) -> None:
    from backend.compile import lower_text

    text = lower_text(z.rt, z.rt.lookup("grad_decay"), [1.0, 0.5, 0.9])
    assert text.count("HloModule") == 1
    assert text.count(" while(") >= 2  # the forward loop and the adjoint walk over its tape


# --- nested reverse AD through loops -------------------------------------------------------

LOOPS = {"lp_static": False, "lp_dyn": True, "lp_while": True, "lp_elems": False,
         "lp_nested": False}  # name: whether the lowered primal has a lax.while_loop


@pytest.mark.parametrize("name", list(LOOPS))
def test_hessian_reverse_through_loops(z: Zyla, name: str) -> None:
    """hessian_reverse (the reverse-mode Jacobian of the gradient) of functions whose
    only way to the result is a loop: static and run-time trip counts, a data-dependent
    while, iteration over an array's elements, nested loops. Checked against central
    differences of the compiled first gradient, against JAX's Hessian of the lowered
    primal, and compiled (one Hessian-vector product per column) against the host."""
    import jax

    x = np.array([0.4, 0.9, 0.3])
    f = z.function(name)
    H = np.asarray(z.call(z.rt.lookup("hessian_reverse"), f, x))
    assert H.shape == (3, 3)
    fd_cols = []
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1e-6
        up = z.gradient(name, x + e, compiled=True)[0]
        down = z.gradient(name, x - e, compiled=True)[0]
        fd_cols.append((up - down) / 2e-6)
    np.testing.assert_allclose(H, np.stack(fd_cols), rtol=1e-5, atol=1e-6)
    jax.config.update("jax_enable_x64", True)
    primal = z.jax_primal(name, x)
    # JAX cannot reverse a while loop: forward over forward there
    oracle = jax.jacfwd(jax.jacfwd(primal)) if LOOPS[name] else jax.hessian(primal)
    np.testing.assert_allclose(H, np.asarray(oracle(x)), rtol=1e-9, atol=1e-12)
    gradient = z.rt.lookup("gradient")
    hvp = z.function("hvp")
    for i in range(3):
        w = np.zeros(3)
        w[i] = 1.0
        g = z.call(gradient, hvp, f, x, w, compiled=True)
        assert g[0] is None
        np.testing.assert_allclose(g[1], H[i], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [1, 3])
def test_third_order_through_a_for_loop(z: Zyla, n: int) -> None:
    """d^3/dx^3 of a scalar loop: reverse over reverse over reverse, on the host, against
    central differences of the (compiled) second derivative and JAX's third derivative."""
    import jax

    x = 0.7
    d3 = z.call("d3_lp_scalar", x, n)
    num = fd(lambda t: z.call("d2_lp_scalar", t, n, compiled=True), x, h=1e-5)
    assert d3 == pytest.approx(num, rel=1e-6, abs=1e-8)
    primal = z.jax_primal("lp_scalar", x, n)
    d3_jax = jax.grad(jax.grad(jax.grad(lambda t: primal(t, n))))(x)
    assert d3 == pytest.approx(float(d3_jax), rel=1e-10, abs=1e-12)


def test_third_order_through_a_while_loop(z: Zyla) -> None:
    import jax

    x = 0.7
    d3 = z.call("d3_wl_scalar", x)
    num = fd(lambda t: z.call("d2_wl_scalar", t, compiled=True), x, h=1e-5)
    assert d3 == pytest.approx(num, rel=1e-6)
    primal = z.jax_primal("wl_scalar", x)
    d3_jax = jax.jacfwd(jax.jacfwd(jax.jacfwd(primal)))(x)
    assert d3 == pytest.approx(float(d3_jax), rel=1e-10)


@pytest.mark.parametrize("name", ["wl_scalar", "lp_elems"])
def test_second_order_loop_ir_verifies_and_round_trips(z: Zyla, name: str) -> None:
    """The forward function of a forward function (nested AD) has loops that record two
    tapes (`tape=2`: the primal pullbacks and their own); it and every adjoint it
    references verify, and its text parses back to the same text."""
    from autodiff.reverse import forward
    from lang.core.ir import format_module, walk_ops
    from lang.core.irparse import parse_module
    from lang.core.verify import verify_module

    f2 = forward(forward(z.function(name).methods[0].fn))
    assert any(op.attrs.get("tape") == 2 for op in walk_ops(f2.body)
               if op.name in ("for", "while"))
    verify_module(f2)
    text = format_module(f2)
    assert format_module(parse_module(text)[0]) == text
    verify_module(parse_module(text))
