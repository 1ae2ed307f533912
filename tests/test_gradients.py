"""Gradients of every differentiable primitive and of control flow, checked independently.

DESIGN.md, "Testing habits": each case is a small Zyla function reducing to a scalar,
called on hypothesis-drawn Float64 inputs. For every drawn input:

- the compiled primal equals the host primal;
- the host gradient (`Zyla.gradient`) matches central finite differences of the host primal;
- it matches `jax.grad` of the lowered primal (`Zyla.jax_primal`): JAX's AD knows nothing of
  Zyla's, so it is an independent oracle (not for `while` loops: JAX cannot reverse them);
- the compiled gradient equals the host gradient, structure (`nothing`s) included.

Shapes are fixed per case so that each case compiles once; hypothesis draws values.
`CASES` lists, per case, the primitives whose pullbacks it exercises:
tests/test_primitive_table.py checks that every differentiable primitive is covered and
that the declared primitives really are differentiated.

A case that fails because Zyla is wrong carries `bug="..."` and runs as a strict xfail.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from lang.api import Zyla

jax.config.update("jax_enable_x64", True)

# --- argument trees --------------------------------------------------------------------------
# Arguments are Python floats and ints, Float64 numpy arrays (numpy shape = Julia size),
# tuples, dicts (NamedTuples) and `Struct`s (Zyla structs built from their fields).


@dataclass(frozen=True)
class Struct:
    """A Zyla struct argument `name(fields...)`; its gradient is a dict of its fields."""

    name: str
    fields: dict

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.fields.items())})"


def is_float_leaf(x: Any) -> bool:
    if isinstance(x, np.ndarray):
        return x.dtype == np.float64
    return isinstance(x, float | np.floating)


def leaves(tree: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    """(path, value) of every Float64 leaf, depth first (the order of backend.structure.split)."""
    if is_float_leaf(tree):
        return [(path, tree)]
    if isinstance(tree, tuple):
        return [lv for i, x in enumerate(tree) for lv in leaves(x, path + (i,))]
    if isinstance(tree, dict):
        return [lv for k, x in tree.items() for lv in leaves(x, path + (k,))]
    if isinstance(tree, Struct):
        return leaves(tree.fields, path)
    return []


def statics(tree: Any) -> tuple:
    """The non-float values of a tree (ints, bools): they are compile-time constants."""
    if is_float_leaf(tree):
        return ()
    if isinstance(tree, tuple):
        return tuple(s for x in tree for s in statics(x))
    if isinstance(tree, dict):
        return statics(tuple(tree.values()))
    if isinstance(tree, Struct):
        return statics(tuple(tree.fields.values()))
    return (tree,)


def replace(tree: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    k, rest = path[0], path[1:]
    if isinstance(tree, tuple):
        return tuple(replace(x, rest, value) if i == k else x for i, x in enumerate(tree))
    if isinstance(tree, dict):
        return {j: replace(x, rest, value) if j == k else x for j, x in tree.items()}
    if isinstance(tree, Struct):
        return Struct(tree.name, replace(tree.fields, path, value))
    raise TypeError(f"cannot replace inside {tree!r}")


def gradient_tree(tree: Any, grads: dict, path: tuple = ()) -> Any:
    """The expected gradient of `tree` (Zygote's conventions) from per-leaf gradients:
    `None` for non-float values, tuples for tuples, dicts for NamedTuples and structs."""
    if is_float_leaf(tree):
        return grads[path]
    if isinstance(tree, tuple):
        return tuple(gradient_tree(x, grads, path + (i,)) for i, x in enumerate(tree))
    if isinstance(tree, dict):
        return {k: gradient_tree(x, grads, path + (k,)) for k, x in tree.items()}
    if isinstance(tree, Struct):
        return gradient_tree(tree.fields, grads, path)
    return None


def finite_differences(f: Callable[[tuple], float], args: tuple, rel_step: float = 1e-6) -> tuple:
    """Central differences of the scalar f(args) with respect to every Float64 element."""
    grads = {}
    for path, v in leaves(args):
        if isinstance(v, np.ndarray):
            g = np.zeros_like(v)
            for i in np.ndindex(v.shape):
                h = rel_step * max(1.0, abs(v[i]))
                up, down = v.copy(), v.copy()
                up[i] += h
                down[i] -= h
                g[i] = (f(replace(args, path, up)) - f(replace(args, path, down))) / (2 * h)
            grads[path] = g
        else:
            h = rel_step * max(1.0, abs(v))
            grads[path] = (f(replace(args, path, v + h)) - f(replace(args, path, v - h))) / (2 * h)
    return gradient_tree(args, grads)


def assert_tree_close(actual: Any, expected: Any, rtol: float, atol: float,
                      none_is_zero: bool = False, where: str = "grad") -> None:
    """Compare gradient trees. `None` must match `None` exactly unless `none_is_zero`
    (an oracle that cannot tell structural zeros: then `None` must be all zeros)."""
    if expected is None or actual is None:
        if none_is_zero:
            other = actual if expected is None else expected
            zeros = [v for _, v in leaves(other if not isinstance(other, dict) else tuple(other.values()))]
            if other is None or all(np.all(np.asarray(v) == 0) for v in zeros):
                return
        assert actual is None and expected is None, f"{where}: got {actual!r}, expected {expected!r}"
        return
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), \
            f"{where}: got {actual!r}, expected a {len(expected)}-tuple"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_tree_close(a, e, rtol, atol, none_is_zero, f"{where}[{i + 1}]")
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: got {actual!r}, expected a NamedTuple (dict)"
        assert set(actual) <= set(expected), f"{where}: unexpected fields {set(actual) - set(expected)}"
        for k, e in expected.items():
            assert_tree_close(actual.get(k), e, rtol, atol, none_is_zero, f"{where}.{k}")
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{where}: shape {a.shape}, expected {e.shape}"
    assert a.dtype.kind == "f", f"{where}: dtype {a.dtype}, expected a float"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=where)


# --- strategies ----------------------------------------------------------------------------------


def fl(lo: float = -2.0, hi: float = 2.0) -> st.SearchStrategy[float]:
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def away0(lo: float = 0.2, hi: float = 2.0) -> st.SearchStrategy[float]:
    """Floats with lo <= |x| <= hi, either sign."""
    return st.builds(lambda s, v: s * v, st.sampled_from([-1.0, 1.0]), fl(lo, hi))


def arr(*shape: int, lo: float = -2.0, hi: float = 2.0) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=fl(lo, hi))


def arr_away0(*shape: int, lo: float = 0.2, hi: float = 2.0) -> st.SearchStrategy[np.ndarray]:
    signs = hnp.arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0]))
    return st.builds(np.multiply, signs, arr(*shape, lo=lo, hi=hi))


def distinct(*shape: int) -> st.SearchStrategy[np.ndarray]:
    """Arrays whose elements are pairwise at least 0.5 apart (no ties for max/min)."""
    n = int(np.prod(shape))
    return st.builds(lambda p, e: (np.array(p, dtype=np.float64) + e.reshape(-1)).reshape(shape) - n / 2,
                     st.permutations(range(n)), arr(n, lo=0.0, hi=0.5))


def apart(*shape: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Two arrays whose elements differ by at least 0.1 everywhere (no ties for max.(a, b))."""
    return st.builds(lambda a, d: (a, a + d), arr(*shape), arr_away0(*shape, lo=0.1, hi=1.0))


def args(*strategies: st.SearchStrategy) -> st.SearchStrategy[tuple]:
    return st.tuples(*strategies)


# --- the cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """`src` defines `F` (renamed per case); `draw` draws its argument tuple."""

    name: str
    src: str
    draw: st.SearchStrategy[tuple]
    prims: tuple[str, ...] = ()
    jax_oracle: bool = True  # False where jax.grad cannot reverse the lowering (while loops)
    guard: Callable[..., bool] | None = None  # inputs away from kinks (assumed)
    examples: int = 4
    bug: str | None = None  # a known Zyla bug: run as a strict xfail

    @property
    def fname(self) -> str:
        return "F_" + self.name

    @property
    def source(self) -> str:
        return re.sub(r"\bF\b", self.fname, self.src)


PRELUDE = """
struct Affine
    W
    b
end
(m::Affine)(x) = m.W * x .+ m.b
struct Pt
    x
    y
end
"""


def unary(name: str, lo: float = -2.0, hi: float = 2.0, **kw: Any) -> Case:
    """f(x) on a scalar and f.(v) on a vector, through one function."""
    return Case(name, f"F(x, v) = {name}(x) + sum({name}.(v) .* [1.0, -2.0, 3.0])",
                args(fl(lo, hi), arr(3, lo=lo, hi=hi)), (name,), **kw)


def trip_count_same(step: Callable[[tuple], int]) -> Callable[..., bool]:
    """A guard: the loop's trip count does not change within finite-difference reach."""

    def ok(*a: Any) -> bool:
        n = step(a)
        for path, v in leaves(a):
            if isinstance(v, np.ndarray):
                continue
            for s in (-1e-5, 1e-5):
                if step(replace(a, path, v + s * max(1.0, abs(v)))) != n:
                    return False
        return True

    return ok


def _grow_trips(a: tuple) -> int:
    x, c = a
    s, n = 1.0, 0
    while s < c:
        s, n = s * 1.5 + x, n + 1
    return n


def _early_trips(a: tuple) -> int:
    (x,) = a
    for i in range(10):
        x = x * 1.1 + 0.1
        if x > 3:
            return i
    return 10


UNARY = [
    unary("sin"), unary("cos"), unary("tan", -1.2, 1.2), unary("exp"),
    unary("log", 0.1, 5.0), unary("sqrt", 0.1, 5.0), unary("tanh"), unary("sinh"),
    unary("cosh"), unary("log1p", -0.5, 5.0), unary("expm1"), unary("asin", -0.9, 0.9),
    unary("acos", -0.9, 0.9), unary("atan", -3.0, 3.0), unary("log2", 0.1, 5.0),
    unary("log10", 0.1, 5.0), unary("abs2"),
    Case("abs", "F(x, v) = abs(x) + sum(abs.(v) .* [1.0, -2.0, 3.0])",
         args(away0(), arr_away0(3)), ("abs",)),
    Case("neg", "F(x, v) = -x * 2.0 + Core.neg(x) ^ 3 + sum(-v .* [1.0, 2.0, 3.0]) + sum(Core.neg(v) .^ 3)",
         args(fl(), arr(3)), ("-", "Core.neg")),
]

ARITH = [
    Case("add", "F(x, y, a, b) = x + y + x + sum(a + b) * y + sum(a .+ b .* b) + sum(a .+ x)",
         args(fl(), fl(), arr(3), arr(3)), ("+",)),
    Case("add3", "F(x, y, a, b) = (x + y + x * y) * 2.0 + sum(a + b + a)",
         args(fl(), fl(), arr(2, 2), arr(2, 2)), ("+",)),
    Case("sub", "F(x, y, a, b) = (x - y) * x + sum((a - b) .* a) + sum(a .- x) + sum(x .- a .* b)",
         args(fl(), fl(), arr(3), arr(3)), ("-",)),
    Case("mul_scalar", "F(x, y, a) = x * y * x + sum(x * a) * y + sum(a * y .* a) + sum(a .* a .* x)",
         args(fl(), fl(), arr(3)), ("*",)),
    Case("matvec", "F(A, v) = sum(tanh.(A * v))", args(arr(2, 3), arr(3)), ("*",)),
    Case("matmat", "F(A, B) = sum(sin.(A * B))", args(arr(2, 3), arr(3, 4)), ("*",)),
    Case("matmat3", "F(A, B, v) = sum(A * B * v .* [1.0, 2.0])",
         args(arr(2, 3), arr(3, 4), arr(4)), ("*",)),
    Case("outer", "F(u, v) = sum(sin.(u * v'))", args(arr(2), arr(3)), ("*", "adjoint")),
    Case("dot_adjoint", "F(u, v) = u' * v + v' * (v .* u)", args(arr(3), arr(3)), ("*", "adjoint")),
    Case("div", "F(x, y, a, b) = x / y + sum(a / y) + sum(a ./ b) + sum(x ./ b) + sum(b ./ x)",
         args(fl(), away0(0.5, 2.0), arr(3), arr_away0(3, lo=0.5)), ("/",)),
    Case("pow_int", "F(x, a) = x ^ 2 + x ^ 3 * 0.5 + x ^ 0 + sum(a .^ 3) + sum(a .^ 2 .* a)",
         args(fl(), arr(3)), ("^",)),
    Case("pow_float", "F(x, y, a) = x ^ 1.5 + x ^ y + 2.0 ^ y + sum(a .^ 2.5) + sum(a .^ y)",
         args(fl(0.2, 3.0), fl(-2.0, 2.0), arr(3, lo=0.2, hi=3.0)), ("^",)),
    Case("rem_x", "F(x, a) = x % 1.0 + rem(x * 2.0, 1.5) + mod(-x, 1.0) + sum(mod.(a, 1.0) .* a)",
         args(fl(2.2, 2.7), arr(3, lo=0.2, hi=0.8)), ("%", "rem", "mod")),
    Case("rem_divisor", "F(x, y) = x % y + rem(x, y)", args(fl(2.2, 2.7), fl(1.0, 1.05)), ("%", "rem"),
         bug="rem(x, y) / x % y give `nothing` for y; d/dy is -trunc(x / y)"),
    Case("mod_divisor", "F(x, y) = mod(x, y)", args(fl(2.2, 2.7), fl(1.0, 1.05)), ("mod",),
         bug="mod(x, y) gives `nothing` for y; d/dy is -floor(x / y)"),
    Case("max_min", "F(x, y, ab) = max(x, y) * 2.0 + min(x, y) ^ 2 + max(x, 0.5) + "
         "sum(max.(ab[1], ab[2]) .^ 2) + sum(min.(ab[1], ab[2]) .* ab[1]) + sum(max.(ab[1], 0.3))",
         args(fl(), fl(), apart(3)), ("max", "min"),
         guard=lambda x, y, ab: abs(x - y) > 1e-3 and abs(x - 0.5) > 1e-3 and np.all(abs(ab[0] - 0.3) > 1e-3)),
    Case("max3", "F(x, y, w) = max(x, y, w) + min(x, y, w) * 2.0", args(fl(), fl(), fl()), ("max", "min"),
         guard=lambda x, y, w: min(abs(x - y), abs(y - w), abs(x - w)) > 1e-3,
         bug="max(x, y, w) / min with 3 arguments: the pullback rule takes only 2 (MethodError)"),
    Case("clamp", "F(x, a) = clamp(x, -1.0, 1.0) * x + sum(clamp.(a, -0.5, 0.5) .* a)",
         args(away0(0.1, 2.0), arr(3)), ("max", "min"),
         guard=lambda x, a: abs(abs(x) - 1) > 1e-3 and np.all(abs(abs(a) - 0.5) > 1e-3)),
    Case("ifelse", "F(c, x, y, a) = ifelse(c, x * 2.0, y ^ 2) + ifelse(x > y, sin(x), cos(y)) + "
         "sum(ifelse.(a .> 0.0, a .^ 2, 3.0 .* a))",
         args(st.booleans(), fl(), fl(), arr_away0(3)), ("ifelse",),
         guard=lambda c, x, y, a: abs(x - y) > 1e-3),
]

ARRAYS = [
    Case("fill", "F(x) = sum(fill(x, 3) .* [1.0, 2.0, 3.0]) + sum(fill(x ^ 2, 2, 2))", args(fl()), ("fill",)),
    Case("copy_collect", "F(a) = sum(copy(a) .* a) + sum(collect(a) .^ 3)", args(arr(3)), ("copy", "collect")),
    Case("reshape", "F(a, W) = sum(reshape(a, 2, 3) .* W) + sum(reshape(a, (3, 2)) .^ 2) + "
         "sum(reshape(a, :, 2) * W)", args(arr(6), arr(2, 3)), ("reshape", "*")),
    Case("vec", "F(A, w) = sum(vec(A) .* w) + sum(vec(A) .^ 3)", args(arr(2, 3), arr(6)), ("vec",)),
    Case("permutedims", "F(A, W) = sum(permutedims(A) .* W) + sum(permutedims(A) * A)",
         args(arr(2, 3), arr(3, 2)), ("permutedims", "*")),
    Case("permutedims3", "F(T, W) = sum(permutedims(T, (2, 3, 1)) .* W)",
         args(arr(2, 3, 4), arr(3, 4, 2)), ("permutedims",)),
    Case("permutedims_vec", "F(v, W) = sum(permutedims(v) .* W)", args(arr(3), arr(1, 3)), ("permutedims",)),
    Case("adjoint", "F(A, v, W) = sum(A' .* W) + sum(v' * A') + sum(transpose(A) .* W .* W)",
         args(arr(2, 3), arr(3), arr(3, 2)), ("adjoint", "transpose")),
    Case("sum", "F(A) = sum(A) ^ 2 + sum(sum(A; dims=1) .^ 2) + sum(sum(A; dims=2) .* [1.0, 2.0])",
         args(arr(2, 3)), ("Core.sum",)),
    Case("prod", "F(A) = prod(A) + sum(prod(A; dims=1) .^ 2) + prod(A[1, :])",
         args(arr_away0(2, 3, lo=0.5, hi=1.5)), ("Core.prod",)),
    Case("prod_zero", "F(a) = prod(a)", args(st.builds(lambda a: np.concatenate([[0.0], a]), arr(2))),
         ("Core.prod",), bug="prod pullback is dz .* z ./ x: NaN when an element is 0"),
    Case("maximum", "F(A) = maximum(A) ^ 2 + minimum(A) * 3.0 + sum(maximum(A; dims=1) .^ 2) + "
         "sum(minimum(A; dims=2) .* [1.0, 2.0])", args(distinct(2, 3)), ("Core.maximum", "Core.minimum")),
    Case("findmax", "F(a) = findmax(a)[1] ^ 2 + findmin(a)[1] * 3.0", args(distinct(4)), ("findmax", "findmin")),
    Case("cumsum", "F(a, w) = sum(cumsum(a) .* w)", args(arr(4), arr(4)), ("cumsum",)),
    Case("cumsum_dims", "F(A, W) = sum(cumsum(A; dims=1) .* W) + sum(cumsum(A; dims=2) .* W .* W)",
         args(arr(2, 3), arr(2, 3)), ("cumsum",),
         bug="cumsum(A; dims=d) pullback ignores dims (reverse/cumsum along the wrong dimension)"),
    Case("reverse", "F(a, w) = sum(reverse(a) .* w) + sum(reverse(a) .^ 3)", args(arr(4), arr(4)), ("reverse",)),
    Case("vcat", "F(x, a, b, A, B) = sum(vcat(a, b) .* [1.0, 2.0, 3.0, 4.0, 5.0]) + "
         "sum(vcat(x, a, 2x) .^ 2) + sum(vcat(A, B) .* vcat(B, A))",
         args(fl(), arr(2), arr(3), arr(2, 3), arr(1, 3)), ("vcat",)),
    Case("hcat", "F(x, a, b, A) = sum(hcat(a, b) .* [1.0 2.0; 3.0 4.0]) + sum(hcat(A, a, A) .^ 2) + "
         "sum(hcat(x, 2x, x ^ 2) .* x)", args(fl(), arr(2), arr(2), arr(2, 3)), ("hcat",)),
    Case("hvcat", "F(x, y) = sum([x y; 2x x * y] .^ 2 .* [1.0 2.0; 3.0 4.0])", args(fl(), fl()),
         ("Core.hvcat",)),
    Case("hvcat_blocks", "F(A, u, v, s) = sum([A u; v' s] .* [1.0 2.0 3.0; 4.0 5.0 6.0; 7.0 8.0 9.0])",
         args(arr(2, 2), arr(2), arr(2), fl()), ("Core.hvcat",)),
    Case("vect", "F(x, y) = sum([x, y, x * y] .^ 2 .* [1.0, 2.0, 3.0]) + sum(Float64[x, 2y] .* [x, y])",
         args(fl(), fl()), ("Core.vect", "Core.typed_vect")),
    Case("getindex_int", "F(a, A) = a[2] * a[1] + A[2, 3] ^ 2 + A[end, 1] + A[5] * a[end]",
         args(arr(3), arr(2, 3)), ("getindex",)),
    Case("getindex_range", "F(a, A) = sum(a[2:3] .^ 2) + sum(A[:, 2] .* A[1, :][1:2]) + sum(A[1, 2:end] .^ 3) "
         "+ sum(a[3:-1:1] .* [1.0, 2.0, 3.0])", args(arr(4), arr(2, 3)), ("getindex",)),
    Case("getindex_repeat", "F(a, A) = sum(a[[1, 1, 3]] .^ 2) + sum(A[[2, 2], [1, 3]] .* [1.0 2.0; 3.0 4.0])",
         args(arr(3), arr(2, 3)), ("getindex",)),
    Case("getindex_colon", "F(A) = sum(A[:] .* [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) + sum(A[:, :] .^ 2)",
         args(arr(2, 3)), ("getindex",)),
]

STRUCTURED = [
    Case("tuple", "function F(x, y)\n t = (x, y * 2.0)\n a, b = t\n a * b + t[1] ^ 2 + t[2]\nend",
         args(fl(), fl()), ("tuple", "Core.indexed_iterate", "getindex")),
    Case("tuple_arg", "F(t, v) = t[1] * t[2] + sum(v .* t[1])", args(args(fl(), fl()), arr(2)),
         ("getindex",)),
    Case("tuple_arg_destructure", "function F(t)\n a, (b, c) = t\n a * b - c ^ 2\nend",
         args(args(fl(), args(fl(), fl()))), ("Core.indexed_iterate",)),
    Case("namedtuple", "function F(x, y)\n nt = (a = x, b = y ^ 2)\n nt.a * nt.b + nt.a\nend",
         args(fl(), fl()), ("Core.namedtuple", "getproperty")),
    Case("namedtuple_arg", "F(p) = p.a * sin(p.b) + sum(p.v .^ 2)",
         st.builds(lambda a, b, v: ({"a": a, "b": b, "v": v},), fl(), fl(), arr(2)), ("getproperty",)),
    Case("struct_field", "F(p, s) = p.x * p.y ^ 2 + s * p.x",
         st.builds(lambda x, y, s: (Struct("Pt", {"x": x, "y": y}), s), fl(), fl(), fl()), ("getproperty",)),
    Case("struct_construct", "function F(x, y)\n p = Pt(x, y * x)\n p.x + p.y ^ 2\nend", args(fl(), fl()),
         ("getproperty",)),
    Case("callable_struct", "F(m, x) = sum(tanh.(m(x)))",
         st.builds(lambda W, b, x: (Struct("Affine", {"W": W, "b": b}), x), arr(2, 3), arr(2), arr(3)),
         ("getproperty", "*", "+")),
    Case("int_arg", "F(x, n) = x * n + x ^ n", args(fl(), st.integers(0, 4)), ("*", "^")),
]

CONTROL = [
    Case("if", "F(x) = x > 0 ? sin(x) * x : x ^ 3", args(away0(0.01, 2.0)), ("sin", "^"), examples=6),
    Case("if_else_array", "function F(a, c)\n if c\n  s = sum(a .^ 2)\n else\n  s = prod(a)\n end\n s * 2.0\nend",
         args(arr_away0(3, lo=0.5, hi=1.5), st.booleans()), ("Core.sum", "Core.prod"), examples=6),
    Case("if_elseif", "function F(x)\n if x < -1.0\n  y = -x ^ 2\n elseif x < 1.0\n  y = sin(x)\n else\n"
         "  y = exp(x)\n end\n 2.0 * y\nend", args(fl(-3.0, 3.0)), ("sin", "exp"), examples=8,
         guard=lambda x: abs(abs(x) - 1.0) > 1e-3),
    Case("for_power", "function F(x, n)\n s = 1.0\n for i in 1:n\n  s = s * x\n end\n s\nend",
         args(fl(), st.integers(0, 6)), ("*",), examples=8),
    Case("for_nested", "function F(x, a)\n s = 0.0\n for i in 1:3\n  for j in 1:2\n"
         "   s = s + a[i] * x ^ j + i * j * sin(s)\n  end\n end\n s\nend",
         args(fl(-1.0, 1.0), arr(3, lo=-1.0, hi=1.0)), ("*", "getindex", "sin")),
    Case("for_accumulate_array", "function F(A, x)\n h = x\n for k in 1:3\n  h = tanh.(A * h)\n end\n sum(h)\nend",
         args(arr(3, 3, lo=-1.0, hi=1.0), arr(3)), ("tanh", "*")),
    Case("while_grow", "function F(x, c)\n s = 1.0\n while s < c\n  s = s * 1.5 + x\n end\n s * x\nend",
         args(fl(0.1, 1.0), fl(1.5, 30.0)), ("*", "+"), jax_oracle=False, examples=6,
         guard=trip_count_same(_grow_trips)),
    Case("while_newton", "function F(a)\n x = a\n while abs(x * x - a) > 1e-12 * a\n"
         "  x = (x + a / x) / 2\n end\n x\nend", args(fl(0.5, 10.0)), ("/", "+"), jax_oracle=False),
    Case("break_continue", "function F(x)\n s = 0.0\n for i in 1:10\n  if i > 6\n   break\n  end\n"
         "  if i % 2 == 0\n   continue\n  end\n  s = s + x ^ i\n end\n s\nend", args(fl(-1.5, 1.5)), ("^", "+")),
    Case("early_return", "function F(x)\n for i in 1:10\n  x = x * 1.1 + 0.1\n  if x > 3.0\n"
         "   return x ^ 2\n  end\n end\n return x\nend", args(fl(-1.0, 3.0)), ("^", "*"),
         guard=trip_count_same(_early_trips), examples=6),
    Case("closure", "function F(x, y)\n g = t -> t * y + x\n g(x) * g(y)\nend", args(fl(), fl()), ("*",)),
    Case("closure_local_fn", "function F(x)\n a = 2x\n h(t) = a * sin(t)\n h(x) + h(a)\nend", args(fl()),
         ("sin",)),
    Case("closure_higher_order", "apply_twice(f, x) = f(f(x))\nF(x, y) = apply_twice(t -> t * y + sin(t), x)",
         args(fl(), fl()), ("sin",)),
    Case("map_tuple", "F(x, y) = sum(map(t -> t ^ 2, (x, y)) .* (1.0, 2.0))", args(fl(), fl()), ("^",)),
]


def nested(name: str, inner: str, draw: st.SearchStrategy, prims: tuple[str, ...] = (), **kw: Any) -> Case:
    """A second derivative: F(x, w) = sum(gradient(inner, x)[1] .* w) — its gradient in x is a
    Hessian-vector product, checked against finite differences of the first derivative."""
    return Case(name, f"F(x, w) = sum(gradient({inner}, x)[1] .* w)", draw, prims, **kw)


NESTED = [
    Case("d2_scalar", "g(x) = sin(x) * x ^ 3 + exp(x) / (1.0 + x ^ 2) + tanh(x) * log(x)\n"
         "F(x) = gradient(g, x)[1]", args(fl(0.2, 3.0)), ("sin", "^", "exp", "/", "tanh", "log")),
    Case("d2_anon", "F(x) = gradient(t -> gradient(s -> s ^ 4 * cos(s), t)[1], x)[1]", args(fl()),
         ("^", "cos")),
    nested("d2_bcast", "y -> sum(sin.(y) .* y .+ y .^ 3)", args(arr(3), arr(3)),
           ("sin", "Core.unbroadcast", "Core.broadcast_to")),
    nested("d2_matvec", "y -> sum(tanh.(A * y))", args(arr(3), arr(3)), ("*", "tanh")),
    nested("d2_getindex", "y -> sum(y[2:3] .^ 3) + y[1] * y[3]", args(arr(3), arr(3)), ("Core.getindex_back",)),
    nested("d2_permutedims", "y -> sum(permutedims(y) .^ 3)", args(arr(3), arr(3)), ("Core.permute_back",)),
    nested("d2_vcat", "y -> sum(vcat(y, 2 .* y) .^ 3)", args(arr(2), arr(2)), ("Core.vcat_back",)),
    nested("d2_hcat", "y -> sum(hcat(y, y .^ 2) .^ 2)", args(arr(2), arr(2)), ("Core.hcat_back",)),
    nested("d2_vect", "y -> sum([y[1], y[2] * y[1]] .^ 3)", args(arr(2), arr(2)), ("Core.vect_back",)),
    Case("d2_convert", "F(x) = gradient(t -> Float64(t) ^ 3 + sum(Float64.([t, 2t]) .^ 2), x)[1]",
         args(fl()), ("Core.convert_cot",)),
    Case("d3_scalar", "F(x) = gradient(t -> gradient(s -> gradient(r -> r ^ 5 + sin(r), s)[1], t)[1], x)[1]",
         args(fl()), ("Core.prepend_nothing", "Core.tail_cot")),
    nested("d2_hvcat", "y -> sum([y[1] y[2]; y[2] y[1]] .^ 3)", args(arr(2), arr(2)), ("Core.hvcat",),
           bug="Core.hvcat_back is NONDIFF: second derivatives through [a b; c d] are dropped"),
    nested("d2_findmax", "y -> findmax(y)[1] ^ 3", args(distinct(3), arr(3)), ("findmax",),
           bug="Core.findext_back is NONDIFF: second derivatives through findmax are dropped"),
]

CASES: list[Case] = UNARY + ARITH + ARRAYS + STRUCTURED + CONTROL + NESTED

# `A` for d2_matvec: a fixed global matrix (read by compiled code as an input)
GLOBALS = "A = [1.0 -0.5 0.25; 0.5 2.0 -1.0; 0.0 0.3 1.5]\n"


# --- the session -------------------------------------------------------------------------------


class Session:
    """One Zyla session with the prelude; case sources and JAX oracles made on first use."""

    def __init__(self) -> None:
        self.z = Zyla()
        self.z.eval(PRELUDE + GLOBALS)
        self.defined: set[str] = set()
        self.oracles: dict[tuple, Callable[..., Any]] = {}

    def define(self, case: Case) -> str:
        if case.name not in self.defined:
            self.z.eval(case.source)
            self.defined.add(case.name)
        return case.fname

    def zargs(self, a: Any) -> Any:
        """Python arguments as API arguments (structs constructed in Zyla)."""
        if isinstance(a, Struct):
            return self.z.call(a.name, *(self.zargs(v) for v in a.fields.values()))
        if isinstance(a, tuple):
            return tuple(self.zargs(v) for v in a)
        if isinstance(a, dict):
            return {k: self.zargs(v) for k, v in a.items()}
        return a

    def primal(self, case: Case, a: tuple, compiled: bool = False) -> Any:
        return self.z.call(self.define(case), *self.zargs(a), compiled=compiled)

    def gradient(self, case: Case, a: tuple, compiled: bool = False) -> tuple:
        return self.z.gradient(self.define(case), *self.zargs(a), compiled=compiled)

    def jax_gradient(self, case: Case, a: tuple) -> tuple:
        """jax.grad of the lowered primal, as a tree like `a` (jitted per static values)."""
        lv = leaves(a)
        key = (case.name, statics(a))
        g = self.oracles.get(key)
        if g is None:
            primal = self.z.jax_primal(self.define(case), *self.zargs(a))
            g = self.oracles[key] = jax.jit(jax.grad(primal, argnums=tuple(range(len(lv)))))
        out = g(*(v for _, v in lv))
        return gradient_tree(a, {p: np.asarray(d) for (p, _), d in zip(lv, out, strict=True)})


_SESSION: list[Session] = []


def session() -> Session:
    if not _SESSION:
        _SESSION.append(Session())
    return _SESSION[0]


# --- the checks ----------------------------------------------------------------------------------

FD_RTOL, FD_ATOL = 1e-5, 1e-6
JAX_RTOL, JAX_ATOL = 1e-9, 1e-12
COMPILED_RTOL, COMPILED_ATOL = 1e-10, 1e-13


def check_case(s: Session, case: Case, a: tuple) -> None:
    if case.guard is not None:
        assume(case.guard(*a))
    y = s.primal(case, a)
    assert isinstance(y, float), f"{case.name}: primal is {y!r}, not a Float64"
    y_c = s.primal(case, a, compiled=True)
    np.testing.assert_allclose(y_c, y, rtol=COMPILED_RTOL, atol=COMPILED_ATOL, err_msg="compiled primal")

    g = s.gradient(case, a)
    assert isinstance(g, tuple) and len(g) == len(a)
    fd = finite_differences(lambda b: s.primal(case, b), a)
    scale = max([1.0] + [float(np.max(np.abs(v))) for _, v in leaves(fd)])
    assert_tree_close(g, fd, FD_RTOL, FD_ATOL * scale, none_is_zero=True, where="AD vs finite differences")
    if case.jax_oracle and leaves(a):
        assert_tree_close(g, s.jax_gradient(case, a), JAX_RTOL, JAX_ATOL * scale, none_is_zero=True,
                          where="AD vs jax.grad")
    g_c = s.gradient(case, a, compiled=True)
    assert_tree_close(g_c, g, COMPILED_RTOL, COMPILED_ATOL * scale, where="compiled vs host gradient")


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=f"BUG: {case.bug}")] if case.bug else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_gradient(case: Case) -> None:
    s = session()

    @settings(max_examples=case.examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(case.draw)
    def run(a: tuple) -> None:
        check_case(s, case, a)

    run()


def test_case_names_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


# --- Zygote's conventions, stated exactly ----------------------------------------------------------


@pytest.mark.parametrize("compiled", [False, True], ids=["host", "compiled"])
def test_conventions(compiled: bool) -> None:
    z = session().z
    z.eval("""
    conv_const(x) = 3.0
    conv_int(x, n) = x * n
    conv_tuple(t) = t[1] * t[2]
    conv_unused(x, y) = 2.0 * x
    conv_affine(m, x) = sum(m(x))
    """)
    assert z.gradient("conv_const", 1.5, compiled=compiled) == (None,)
    assert z.gradient("conv_const", np.ones(3), compiled=compiled) == (None,)
    assert z.gradient("conv_int", 1.5, 4, compiled=compiled) == (4.0, None)
    assert z.gradient("conv_tuple", (2.0, 3.0), compiled=compiled) == ((3.0, 2.0),)
    assert z.gradient("conv_unused", 2.0, 5.0, compiled=compiled) == (2.0, None)
    m = z.call("Affine", np.eye(2), np.zeros(2))
    gm, gx = z.gradient("conv_affine", m, np.array([1.0, 2.0]), compiled=compiled)
    assert isinstance(gm, dict) and set(gm) == {"W", "b"}
    np.testing.assert_array_equal(gm["W"], [[1.0, 2.0], [1.0, 2.0]])
    np.testing.assert_array_equal(gm["b"], [1.0, 1.0])
    np.testing.assert_array_equal(gx, [1.0, 1.0])
