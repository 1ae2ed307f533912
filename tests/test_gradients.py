"""Gradients of every differentiable primitive and of control flow, checked independently.

DESIGN.md, "Testing habits": each case is a small Zyla function reducing to a scalar,
called on hypothesis-drawn Float64 inputs. For every drawn input:

- the compiled primal equals the host primal;
- the host gradient (`Zyla.gradient`) matches central finite differences of the primal
  (evaluated by the compiled executable, which is fast and equals the host primal);
- it matches `jax.grad` of the lowered primal (`Zyla.jax_primal`): JAX's AD knows nothing of
  Zyla's, so it is an independent oracle (not for `while` loops: JAX cannot reverse them);
- the compiled gradient equals the host gradient, `nothing`s included.

Shapes are fixed per case so that each case compiles once; hypothesis draws values.
Each case lists the primitives whose pullbacks it exercises: tests/test_primitive_table.py
checks that every differentiable primitive is covered and that the lists are true.

A case that fails because Zyla is wrong carries `bug="..."` and runs as a strict xfail.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from snippets import zyla_recursion_limit

from grammar.errors import ZylaError
from lang.door.api import Zyla

jax.config.update("jax_enable_x64", True)

# --- argument trees ------------------------------------------------------------------------
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
    """(path, value) of every Float64 leaf, depth first (lang.core.structure.split's order)."""
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
    """The non-float values of a tree (ints, bools): compile-time constants."""
    if is_float_leaf(tree):
        return ()
    if isinstance(tree, tuple | dict | Struct):
        items = tree.fields if isinstance(tree, Struct) else tree
        return tuple(s for x in (items.values() if isinstance(items, dict) else items)
                     for s in statics(x))
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
    """The gradient of `tree` in Zygote's conventions, from per-leaf gradients: `None` for
    non-float values, tuples for tuples, dicts for NamedTuples and structs."""
    if is_float_leaf(tree):
        return grads[path]
    if isinstance(tree, tuple):
        return tuple(gradient_tree(x, grads, path + (i,)) for i, x in enumerate(tree))
    if isinstance(tree, dict):
        return {k: gradient_tree(x, grads, path + (k,)) for k, x in tree.items()}
    if isinstance(tree, Struct):
        return gradient_tree(tree.fields, grads, path)
    return None


def finite_differences(f: Callable[[tuple], float], args: tuple, rel: float = 1e-6) -> tuple:
    """Central differences of the scalar f(args) with respect to every Float64 element."""
    grads = {}
    for path, v in leaves(args):
        if isinstance(v, np.ndarray):
            g = np.zeros_like(v)
            for i in np.ndindex(v.shape):
                h = rel * max(1.0, abs(v[i]))
                up, down = v.copy(), v.copy()
                up[i] += h
                down[i] -= h
                g[i] = (f(replace(args, path, up)) - f(replace(args, path, down))) / (2 * h)
            grads[path] = g
        else:
            h = rel * max(1.0, abs(v))
            grads[path] = (f(replace(args, path, v + h)) - f(replace(args, path, v - h))) / (2 * h)
    return gradient_tree(args, grads)


def all_zero(tree: Any) -> bool:
    if isinstance(tree, dict):
        tree = tuple(tree.values())
    return all(np.all(np.asarray(v) == 0) for _, v in leaves(tree))


def assert_tree_close(actual: Any, expected: Any, rtol: float, atol: float,
                      none_is_zero: bool = False, where: str = "grad") -> None:
    """Compare gradient trees. `None` must match `None`, unless `none_is_zero` (an oracle
    that has no structural zeros), where `None` must stand for zeros."""
    if expected is None or actual is None:
        if none_is_zero and all_zero(actual if expected is None else expected):
            return
        assert actual is None and expected is None, f"{where}: {actual!r}, expected {expected!r}"
        return
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), \
            f"{where}: {actual!r}, expected a {len(expected)}-tuple"
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            assert_tree_close(a, e, rtol, atol, none_is_zero, f"{where}[{i + 1}]")
        return
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r}, expected a NamedTuple (dict)"
        assert set(actual) <= set(expected), f"{where}: fields {set(actual) - set(expected)}"
        for k, e in expected.items():
            assert_tree_close(actual.get(k), e, rtol, atol, none_is_zero, f"{where}.{k}")
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.shape == e.shape, f"{where}: shape {a.shape}, expected {e.shape}"
    assert a.dtype.kind == "f", f"{where}: dtype {a.dtype}, expected a float"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=where)


# --- strategies ------------------------------------------------------------------------------


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

    def build(perm: list[int], noise: np.ndarray) -> np.ndarray:
        return (np.array(perm, dtype=np.float64) + noise - n / 2).reshape(shape)

    return st.builds(build, st.permutations(range(n)), arr(n, lo=0.0, hi=0.5))


def apart(*shape: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Two arrays differing by at least 0.1 everywhere (no ties for max.(a, b))."""
    return st.builds(lambda a, d: (a, a + d), arr(*shape), arr_away0(*shape, lo=0.1, hi=1.0))


def args(*strategies: st.SearchStrategy) -> st.SearchStrategy[tuple]:
    return st.tuples(*strategies)


# --- the cases -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """`src` defines the function `F` (renamed per case); `draw` draws its argument tuple."""

    name: str
    src: str
    draw: st.SearchStrategy[tuple]
    prims: tuple[str, ...] = ()  # primitives whose pullbacks the gradient runs
    jax_oracle: bool = True  # False where jax.grad cannot reverse the lowering (while)
    guard: Callable[..., bool] | None = None  # keeps inputs away from kinks (assumed)
    examples: int = 3
    witnesses: tuple[tuple, ...] = ()  # explicit inputs, e.g. one per branch
    offload: bool = True  # False: a construct that runs on the host by design (no compile)
    bug: str | None = None  # a known Zyla bug: a strict xfail

    @property
    def fname(self) -> str:
        return "F_" + self.name

    @property
    def source(self) -> str:
        return re.sub(r"\bF\b", self.fname, textwrap.dedent(self.src).strip())


PRELUDE = """
using Flux
using MLUtils
using LinearAlgebra
struct Affine
    W
    b
end
(m::Affine)(x) = m.W * x .+ m.b
struct Pt
    x
    y
end
M = [1.0 -0.5 0.25; 0.5 2.0 -1.0; 0.0 0.3 1.5]
K = reshape([0.5, -1.0, 0.25, 2.0, 1.5, -0.5, 1.0, 0.75], 2, 2, 1, 2)
"""


REAL = ("sin", "cos", "tan", "exp", "expm1", "sinh", "cosh", "tanh", "asin", "acos", "atan",
        "asinh", "atanh")
POSITIVE = ("log", "log2", "log10", "log1p", "sqrt", "cbrt")
NNLIB = ("relu", "relu6", "hardtanh", "sigmoid", "hardsigmoid", "softplus", "logsigmoid",
         "swish", "softsign", "gelu", "selu", "leakyrelu", "elu")
KINKS = np.array([0.0, -1.0, 1.0, -3.0, 3.0, 6.0])  # where NNlib's activations bend
# the start of the reason of a known bug that the last commit (c76623b) did not have
REGRESSION = "regression in uncommitted work, passes at c76623b: "


def unary_terms(fns: tuple[str, ...], x: str, v: str) -> str:
    """f(x) + f.(v) for each f, weighted apart so that errors cannot cancel."""
    return " +\n    ".join(f"{k + 1}.0 * {f}({x}) + sum({f}.({v}) .* [1.0, -{k + 2}.0, 0.5])"
                          for k, f in enumerate(fns))


def trip_count_same(trips: Callable[[tuple], int]) -> Callable[..., bool]:
    """A guard: the loop's trip count does not change within finite-difference reach."""

    def ok(*a: Any) -> bool:
        n = trips(a)
        return all(trips(replace(a, path, v + s * max(1.0, abs(v)))) == n
                   for path, v in leaves(a) for s in (-1e-5, 1e-5))

    return ok


UNARY = [
    # every elementwise function in one Zyla function: one compilation for all of them
    Case("unary", "F(x, v, p, q, s, u) =\n    " + " +\n    ".join([
        unary_terms(REAL, "x", "v"), unary_terms(POSITIVE, "p", "q"),
        unary_terms(("acosh",), "p + 1.2", "q .+ 1.2"),
        "atan(x, p) + sum(atan.(v, q) .* [1.0, 2.0, 3.0])",
        "abs(s) + abs2(s) * 2.0 + sum(abs.(u) .* [1.0, -2.0, 3.0]) + sum(abs2.(u) .* u)",
        "Core.neg(s) ^ 3 + sum(-u .* [1.0, 2.0, 3.0]) + sum(Core.neg(u) .^ 3) - s * 2.0"]),
        args(fl(-0.9, 0.9), arr(3, lo=-0.9, hi=0.9), fl(0.1, 5.0), arr(3, lo=0.1, hi=5.0),
             away0(), arr_away0(3)),
        REAL + POSITIVE + ("acosh", "Core.atan2", "abs", "abs2", "-", "Core.neg")),
    Case("nnlib", "F(x, v) =\n    " + unary_terms(NNLIB, "x", "v") + " +\n    " +
        "sum(leakyrelu.(v, 0.2) .* v) + sum(elu.(v, 0.5) .* v) + leakyrelu(x, 0.3)",
        args(fl(-7.0, 7.0), arr(3, lo=-7.0, hi=7.0)), tuple(f"NNlib.{f}" for f in NNLIB),
        guard=lambda x, v: bool(np.all(abs(np.append(v, x)[:, None] - KINKS) > 1e-3))),
]

ARITH = [
    Case("arith", """
         F(x, y, a, b, P, Q, A, B, u, v) =
             x + y + x + sum(a + b) * y + sum(a .+ b .* b) + sum(a .+ x) +
             (x + y + x * y) * 2.0 + sum((P + Q + P) .^ 2) +
             (x - y) * x + sum((a - b) .* a) + sum(a .- x) + sum(x .- a .* b) +
             x * y * x + sum(x * a) * y + sum(a * y .* a) + sum(a .* a .* x) +
             sum(tanh.(A * u)) + sum(sin.(A * B)) + sum(A * B * v .* [1.0, 2.0]) +
             sum(sin.(u * v'))
         """, args(fl(), fl(), arr(3), arr(3), arr(2, 2), arr(2, 2), arr(2, 3), arr(3, 4), arr(3),
                   arr(4)),
         ("+", "-", "*", "adjoint")),
    Case("div_pow", """
         F(x, y, a, b, p, e) = x / y + sum(a / y) + sum(a ./ b) + sum(y ./ b) + sum(b ./ y) +
             x ^ 2 + x ^ 3 * 0.5 + x ^ 0 + x ^ -2 + sum(a .^ 3) + sum(a .^ 2 .* a) +
             p ^ 1.5 + p ^ e + 2.0 ^ e + sum(abs.(a) .^ 2.5) + sum(abs.(a) .^ e)
         """, args(away0(0.2, 2.0), away0(0.5, 2.0), arr_away0(3), arr_away0(3, lo=0.5),
                   fl(0.2, 3.0), fl()),
         ("/", "^")),
    Case("rem", """
         F(x, a) = x % 1.0 + rem(x, 1.5) * 2.0 + mod(-x, 1.0) * 3.0 + sum(mod.(a, 1.0) .* a)
         """, args(fl(2.2, 2.7), arr(3, lo=0.2, hi=0.8)), ("%", "rem", "mod")),
    Case("max_min", """
         F(x, y, ab) = max(x, y) * 2.0 + min(x, y) ^ 2 + clamp(x, -1.0, 1.0) +
             sum(max.(ab[1], ab[2]) .^ 2) + sum(min.(ab[1], ab[2]) .* ab[1]) +
             sum(max.(ab[1], 0.3)) + sum(min.(0.3, ab[2]) .* ab[2]) +
             sum(clamp.(ab[1], -0.5, 0.5) .* ab[2])
         """, args(fl(), fl(), apart(3)), ("max", "min"),
         guard=lambda x, y, ab: abs(x - y) > 1e-3 and abs(abs(x) - 1.0) > 1e-3 and bool(
             np.all(abs(np.concatenate(ab) - 0.3) > 1e-3) and
             np.all(abs(abs(ab[0]) - 0.5) > 1e-3))),
    Case("ifelse", """
         F(x, y, a) = ifelse(x > 0.0, x * 2.0, y ^ 2) + ifelse(x > y, sin(x), cos(y)) +
             sum(ifelse.(a .> 0.0, a .^ 2, 3.0 .* a))
         """, args(away0(0.01, 2.0), fl(), arr_away0(3)), ("ifelse",),
         guard=lambda x, y, a: abs(x - y) > 1e-3),
    Case("linalg", """
         F(A, b, C) = det(A) + sum(inv(A) .* C) + sum((A \\ b) .* [1.0, -2.0, 0.5]) +
             det(A * A')
         """, st.builds(lambda e, b, C: (2.0 * np.eye(3) + e, b, C),
                        arr(3, 3, lo=-0.5, hi=0.5), arr(3), arr(3, 3)),
         ("det", "Core.matinv", "\\")),
    Case("pinv", """
         F(A, B) = sum(pinv(A) .* B) + sum(pinv(A') .^ 2)
         """, st.builds(lambda e, B: (np.array([[2.0, 0.0, 0.5], [0.0, 1.5, 0.0]]) + e, B),
                        arr(2, 3, lo=-0.3, hi=0.3), arr(3, 2)),
         ("Core.matpinv",)),
    Case("eigen_symmetric", """
         F(X, B) = sum(eigvals(Symmetric(X)) .* [1.0, -2.0, 0.5]) +
             sum(eigen(Symmetric(X, :L)).vectors .* B) + eigen(Hermitian(X)).values[3] ^ 2
         """, st.builds(lambda e, B: (np.diag([1.0, 2.5, 4.0]) + e, B),
                        arr(3, 3, lo=-0.3, hi=0.3), arr(3, 3)),
         ("Core.eigh_vals", "Core.eigh_vecs")),
    Case("cholesky", """
         F(Y, B) = (C = cholesky((Y + Y') / 2 + 3.0 * I); sum(C.U .* B) + sum(C.L .^ 2) +
             logdet(C) + sum(C \\ [1.0, 2.0, 3.0]))
         """, args(arr(3, 3, lo=-1.0, hi=1.0), arr(3, 3)), ("Core.chol_upper",)),
    Case("svdvals", """
         F(A, x) = sum(svdvals(A) .* [2.0, 0.5]) + svdvals(A * x)[1] + logdet(A' * A) +
             sum(kron(A, [1.0 -1.0]) .^ 2)
         """, st.builds(lambda e, x: (np.array([[3.0, 0.0], [0.0, 1.0], [0.0, 0.0]]) + e, x),
                        arr(3, 2, lo=-0.3, hi=0.3), fl(0.5, 2.0)),
         ("svdvals",)),
    Case("uniform_scaling", """
         F(A, s, t) = sum((A + s * I) .* [1.0 2.0; 3.0 4.0]) + sum((t * I - A) .^ 2) +
             sum((A - I * s) .* A)
         """, args(arr(2, 2), fl(), fl()), ("Core.eye_like",)),
    # once known bugs, now regression tests
    Case("dot_adjoint", "F(u, v) = u' * v + v' * v + u' * v * 2.0 + sum((v')' .* u)",
         args(arr(3), arr_away0(3)),
         ("*", "adjoint")),
    Case("rem_divisor", "F(x, y) = x % y + rem(x, y) + mod(x, y)",
         args(fl(2.2, 2.7), fl(1.0, 1.05)), ("%", "rem", "mod")),
    Case("max3", "F(x, y, w) = max(x, y, w) + min(x, y, w) * 2.0", args(fl(), fl(), fl()),
         ("max", "min"), guard=lambda x, y, w: min(abs(x - y), abs(y - w), abs(x - w)) > 1e-3),
]

ARRAYS = [
    Case("shapes", """
         F(x, a, W, A, T, V, v) = sum(fill(x, 3) .* [1.0, 2.0, 3.0]) + sum(fill(x ^ 2, 2, 2)) +
             sum(copy(a) .* a) + sum(collect(a) .^ 3) +
             sum(reshape(a, 2, 3) .* W) + sum(reshape(a, (3, 2)) .^ 2) +
             sum(reshape(a, :, 2) * W) + sum(vec(A) .* a) + sum(vec(A) .^ 3) +
             sum(permutedims(A) .* W') + sum(permutedims(A) * A) +
             sum(permutedims(T, (2, 3, 1)) .* V) +
             sum(A' .* W') + sum(v' * A') + sum(transpose(A) .* W' .* W') +
             sum(repeat(v, 2) .^ 3) + sum(repeat(A, 1, 2) .^ 2) + sum(repeat(A; inner=(2, 1)) .^ 3)
         """, args(fl(), arr(6), arr(2, 3), arr(2, 3), arr(2, 3, 4), arr(3, 4, 2), arr(3)),
         ("fill", "copy", "collect", "reshape", "vec", "permutedims", "adjoint", "transpose",
          "Core.repeat_outer", "Core.repeat_inner")),
    Case("reductions", """
         F(A, P, D, a, w) = sum(A) ^ 2 + sum(sum(A; dims=1) .^ 2) +
             sum(sum(A; dims=2) .* [1.0, 2.0]) +
             prod(P) + sum(prod(P; dims=1) .^ 2) + prod(P[1, :]) +
             maximum(D) ^ 2 + minimum(D) * 3.0 + sum(maximum(D; dims=1) .^ 2) +
             sum(minimum(D; dims=2) .* [1.0, 2.0]) +
             findmax(a)[1] ^ 2 + findmin(a)[1] * 3.0 +
             sum(cumsum(a) .* w) + sum(reverse(a) .* w) + sum(reverse(a) .^ 3) +
             sum(reverse(A) .* D) + sum(reverse(A; dims=2) .^ 2 .* D) +
             reverse((a[1], a[2] ^ 2))[1] * 3.0
         """, args(arr(2, 3), arr_away0(2, 3, lo=0.5, hi=1.5), distinct(2, 3), distinct(4), arr(4)),
         ("Core.sum", "Core.prod", "Core.maximum", "Core.minimum", "findmax", "findmin",
          "cumsum", "reverse", "Core.reverse_all", "Core.reverse_dims")),
    Case("concat", """
         F(x, y, a, b, A, B) = sum(vcat(a, b) .* [1.0, 2.0, 3.0, 4.0]) +
             sum(vcat(x, a, 2x) .^ 2) + sum(vcat(A, B) .* vcat(B, A)) +
             sum(hcat(a, b) .* [1.0 2.0; 3.0 4.0]) + sum(hcat(B', a, B') .^ 2) +
             sum(hcat(x, 2x, x ^ 2) .* x) +
             sum([x y; 2x x * y] .^ 2 .* [1.0 2.0; 3.0 4.0]) +
             sum([A' a; b' x] .* [1.0 2.0 3.0; 4.0 5.0 6.0; 7.0 8.0 9.0]) +
             sum([x, y, x * y] .^ 2 .* [1.0, 2.0, 3.0]) + sum(Float64[x, 2y] .* [x, y])
         """, args(fl(), fl(), arr(2), arr(2), arr(2, 2), arr(1, 2)),
         ("vcat", "hcat", "Core.hvcat", "Core.vect", "Core.typed_vect")),
    Case("cat", """
         F(A, B) = sum(cat(A, B; dims=3) .^ 2 .* reshape(1.0:12.0, 2, 3, 2)) +
             sum(cat(A, B; dims=1) .* cat(B, A; dims=1)) + sum(cat(A, B .^ 2; dims=2) .^ 2)
         """, args(arr(2, 3), arr(2, 3)), ("Core.cat",)),
    Case("conv", "F(X, W) = sum(conv(X, W) .^ 2) + sum(conv(X, W; stride=2, pad=1) .* 0.5)",
         args(arr(4, 4, 1, 1), arr(2, 2, 1, 2)), ("Core.conv",)),
    # pooling lowers to a generic lax.reduce_window, which jax.grad cannot differentiate
    Case("pool", """
         F(D, X) = sum(maxpool(D, (2, 2)) .^ 2) + sum(maxpool(D, (3, 3); stride=1) .^ 3) +
             sum(meanpool(X, (2, 2)) .^ 2)
         """, args(distinct(4, 4, 1, 1), arr(4, 4, 1, 1)), ("Core.maxpool", "Core.meanpool"),
         jax_oracle=False),
    Case("getobs_device", """
         F(X) = sum(getobs(X, 2:3) .^ 2) + sum(getobs(X, [1, 1]) .* X[:, 1]) +
             sum(Flux.gpu(X) .* Flux.cpu(X .^ 2))
         """, args(arr(2, 4)), ("MLUtils.getobs", "Flux.gpu", "Flux.cpu")),
    Case("shard_batch", """
         F(X) = sum(Zyla.shard_batch(X) .^ 2 .* X)
         """, args(arr(2, 4)), ("Zyla.shard_batch",)),
    Case("local_batch", """
         F(X) = sum(Zyla.local_batch(X) .^ 2 .* X)
         """, args(arr(2, 4)), ("Zyla.local_batch",)),
    Case("shard", """
         F(W, x) = sum(tanh.(Zyla.shard(W, (:model, nothing)) * x))
         """, args(arr(2, 4), arr(4)), ("Zyla.shard",)),
    Case("getindex", """
         F(a, A) = a[2] * a[1] + A[2, 3] ^ 2 + A[end, 1] + A[5] * a[end] + sum(a[2:3] .^ 2) +
             sum(A[:, 2] .* A[1, :][1:2]) + sum(A[1, 2:end] .^ 3) +
             sum(a[4:-1:2] .* [1.0, 2.0, 3.0]) + sum(A[:] .* [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) +
             sum(A[:, :] .^ 2) +
             sum(a[[1, 1, 3]] .^ 2) + sum(A[[2, 2], 1] .* [1.0, 2.0]) +
             sum(A[2, [1, 3, 3]] .^ 2) + sum(A[:, [3, 1]] .* A[:, [1, 1]])
         """, args(arr(4), arr(2, 3)), ("getindex",)),
    # once known bugs, now regression tests
    Case("hvcat_vector_blocks", """
         F(a, b) = sum([a b; b a] .* [1.0 2.0; 3.0 4.0; 5.0 6.0; 7.0 8.0])
         """, args(arr(2), arr(2)), ("Core.hvcat",)),
    Case("permutedims_vec", "F(v, W) = sum(permutedims(v) .* W)", args(arr(3), arr(1, 3)),
         ("permutedims",)),
    Case("cumsum_dims", "F(A, W) = sum(cumsum(A; dims=1) .* W) + sum(cumsum(A; dims=2) .* W)",
         args(arr(2, 3), arr_away0(2, 3)), ("cumsum",)),
    Case("prod_zero", "F(a) = prod(a)",
         args(st.builds(lambda a: np.concatenate([[0.0], a]), arr(2))), ("Core.prod",)),
    # second derivatives of prod (its Hessian was taken as zero), with a zero among the
    # entries half the time, over all entries and along each dimension
    Case("d2_prod", """
         G(y) = prod(y) + sum(prod(reshape(y, 2, 2); dims=1) .* [1.0 2.0]) +
             sum(prod(reshape(y, 2, 2); dims=2) .* [3.0, -1.0])
         F(x, w) = sum(gradient(G, x)[1] .* w)
         """, args(st.one_of(arr(4), st.builds(lambda a: np.concatenate([[0.0], a]), arr(3))),
                   arr(4)), ("Core.prod", "Core.prod_back")),
    Case("getindex_two_vectors", "F(A) = sum(A[[2, 2], [1, 3]] .* [1.0 2.0; 3.0 4.0])",
         args(arr(2, 3)), ("getindex",)),
]

STRUCTURED = [
    # a positional argument with a default is differentiated whether passed or defaulted
    # (a default computed from another argument included), next to keyword arguments
    Case("optional_args", """
         opt_args(a, b=2a, c=1.0; k=3.0) = a * b + c * k
         F(x, y) = opt_args(x) + opt_args(x, y) + opt_args(x, y, y; k=x) + opt_args(y, x; k=y)
         """, args(fl(-2.0, 2.0), fl(-2.0, 2.0)), ("*", "+")),
    Case("tuples", """
         function F(x, y, t, u, v)
             s = (x, y * 2.0)
             a, b = s
             p, (q, r) = u
             m = map(z -> z ^ 2, (x, y))
             w = Core.tail((x, y * 2.0, x * y))
             a * b + s[1] ^ 2 + s[2] + t[1] * t[2] + sum(v .* t[1]) + p * q - r ^ 2 +
                 m[1] + 2.0 * m[2] * x + w[1] * w[2]
         end
         """, args(fl(), fl(), args(fl(), fl()), args(fl(), args(fl(), fl())), arr(2)),
         ("tuple", "Core.indexed_iterate", "getindex", "Core.tail")),
    Case("structs", """
         function F(nt, pt, s, m, x)
             p = Pt(s, s * pt.y)
             nt.a * sin(nt.b) + sum(nt.v .^ 2) + pt.x * pt.y ^ 2 + s * pt.x + p.x + p.y ^ 2 +
                 sum(tanh.(m(x)))
         end
         """, st.builds(lambda a, b, v, x, y, s, W, c, z: (
             {"a": a, "b": b, "v": v}, Struct("Pt", {"x": x, "y": y}), s,
             Struct("Affine", {"W": W, "b": c}), z),
             fl(), fl(), arr(2), fl(), fl(), fl(), arr(2, 3), arr(2), arr(3)),
         ("getproperty", "*", "+", "tanh")),
    # argument destructuring (issue 18): the unpacked parts of a tuple or NamedTuple
    # argument get their cotangents, as Zygote's
    # `gradient(((a, b),) -> a * b, (2.0, 3.0)) == ((3.0, 2.0),)`
    Case("destructured_args", """
         dstr_h((a, b), c) = a * b + c ^ 2
         dstr_nt((; a, b)) = a * sin(b)
         function F(x, y, t, nt)
             f = ((p, q),) -> p * p * q
             dstr_h((x, y), t[1]) + f(t) + dstr_nt(nt) + dstr_h(t, x * y) +
                 sum(map(((k, v),) -> k * v, ((x, y), (y, 2.0))))
         end
         """, st.builds(lambda x, y, t, a, b: (x, y, t, {"a": a, "b": b}),
                        fl(), fl(), args(fl(), fl()), fl(), fl()),
         ("*", "+", "sin")),
    # keyword arguments of a dotted call (issue 18) reach every call; their values get
    # cotangents like captured variables, the broadcast arguments like any broadcast's
    Case("broadcast_keywords", """
         bkw(x, y; a = 1.0, b = 2.0) = a * x * y + b * sin(x)
         F(x, v, w) = sum(bkw.(v, w; a = x)) + sum(bkw.(v, x; b = x * 2.0)) +
             sum(@. bkw(v * x, w; a = 2.0)) + sum(bkw.(v, w, b = x) .* w)
         """, args(fl(), arr(3), arr(3)), ("*", "+", "sin")),
    # real and conj are identities on reals, imag a constant zero (issue 18)
    Case("real_parts", """
         F(x, v) = real(x) * conj(x) + imag(x) + sum(conj(v) .* real(v) .+ imag(v)) +
             sum(real.(v) .* x)
         """, args(fl(), arr(3)), ("*", "+")),
    # splatting: an array splatted into a call gets an array cotangent of its shape (zeros
    # where the callee gives none), a tuple a tuple; n-ary `*` differentiates every factor
    Case("splats", """
         three(a, b, c) = a * b + c
         F(v, M, t, x) = +(v...) * x + *(v...) + *(M...) + three(v...) + max(t...) * *(x, t...)
         """, args(arr(3), arr(2, 2, lo=0.5, hi=1.5), distinct(2), fl()), ("*", "+", "max")),
    Case("inner_constructor", """
         struct IvG
             lo::Float64
             hi::Float64
             IvG(lo, hi; scale = 1.0) = lo <= hi ? new(lo * scale, hi * scale) : new(hi, lo)
         end
         struct PosG{T}
             x::T
             PosG{T}(x) where {T} = new{T}(x ^ 2 + one(T))
         end
         PosG(x::T) where {T} = PosG{T}(x)
         function F(x, y)
             i = IvG(x, y; scale = 1.5)
             p = PosG(x * y)
             q = PosG{Float64}(y)
             i.hi * sin(i.lo) + p.x * q.x
         end
         """, args(fl(), fl()), ("*", "sin", "^"),
         guard=lambda x, y: abs(x - y) > 1e-3, witnesses=((0.5, 1.5), (1.5, -0.5))),
    Case("higher_order_array", """
         h_ho(t) = t ^ 2 + sin(t)
         F(a, b) = sum(h_ho.(a)) + sum(map(h_ho, a) .* b[2]) + sum((t -> t * b[1]).(a)) +
             sum([t ^ 2 * b[2] for t in a]) + reduce(+, a .^ 2) + foldl((s, t) -> s * t, a) +
             mapreduce(t -> t ^ 2, +, a)
         """, args(arr(3), arr(2)), ("^", "sin", "*", "Core.iter_array")),
    Case("filter_host", """
         F(a) = sum([sin(t) for t in a if t > 0]) + sum(filter(t -> t < 0, a) .^ 3)
         """, args(arr_away0(4)), ("sin", "^"), offload=False,
         witnesses=((np.array([0.5, -0.7, 1.2, -0.3]),),)),
    Case("checkpointed", """
         g_ck(t, s) = sum(sin.(t) .^ 2) * s
         F(x, s) = checkpointed(t -> sum(sin.(t) .^ 2), x) + checkpointed(g_ck, x, s) +
             (@checkpoint g_ck(x .* 2.0, s))
         """, args(arr(3), fl()), ("checkpointed",)),
    Case("checkpoint_differentiated_again", """
         ck_in(t) = sum(sin.(t) .^ 2 .* t)
         F(x) = sum(gradient(t -> checkpointed(ck_in, t), x)[1] .* x)
         """, args(arr(3)), ("Core.with_rng",)),
    Case("mutation", """
         function F(x, s, v)
             y = copy(x)
             y[2] = s * 2.0
             y[3:4] .= v
             q = similar(x)
             q .= y .* x
             sum(q .* [1.0, 2.0, 3.0, 4.0]) + sum(y .^ 2) + identity(s) ^ 2
         end
         """, args(arr(4), fl(), arr(2)),
         ("Core.setindex_fn", "Core.setindex_broadcast_fn", "Core.broadcast_assign_fn",
          "identity")),
    Case("nest_matmul", """
         function F(A, B, v)
             r = copy(v)
             C = zeros(size(A, 1), size(B, 2))
             for j in 1:size(B, 2), i in 1:size(A, 1)
                 s = 0.0
                 for p in 1:size(A, 2)
                     s += A[i, p] * B[p, j]
                 end
                 C[i, j] = s
             end
             for i in axes(C, 1), j in axes(C, 2)
                 r[i] += sin(C[i, j])
             end
             sum(C .^ 2) + sum(r .* r)
         end
         """, args(arr(3, 2), arr(2, 3), arr(3)),
         ("Core.contract1", "Core.contract2", "Core.nest_read", "Core.nest_write")),
    Case("nest_window", """
         function F(x, w)
             y = zeros(size(x, 1) - 1, size(x, 2) - 1)
             for j in 1:size(y, 2), i in 1:size(y, 1)
                 s = 0.0
                 for dj in 1:2, di in 1:2
                     s += x[i + di - 1, j + dj - 1] * w[di, dj]
                 end
                 y[i, j] = s
             end
             sum(sin.(y))
         end
         """, args(arr(4, 3), arr(2, 2)), ("Core.contract_read",)),
    Case("push_append", """
         function F(x, s, v)
             y = copy(x)
             push!(y, s * 2.0)
             append!(y, v .^ 2)
             sum(y .* [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]) + sum(y .^ 2)
         end
         """, args(arr(4), fl(), arr(2)), ("Core.push_fn", "Core.append_fn")),
    # once known bugs, now regression tests
    Case("namedtuple", """
         function F(x, y)
             nt = (a = x, b = y ^ 2)
             nt.a * nt.b + nt.a
         end
         """, args(fl(), fl()), ("Core.namedtuple", "getproperty")),
    Case("sum_tuple", "F(x, y) = sum((x, y ^ 2))", args(fl(), fl()), ("Core.sum",)),
    # a tuple broadcasts like a vector (down the columns of a matrix); its cotangent is a
    # tuple
    Case("broadcast_tuple", """
         F(x, y) = sum((x, y) .* (1.0, 2.0)) + sum((x, y) .* [1.0 2.0; 3.0 4.0]) +
             sum(sin.((x, y)) .* (y, 2.0))
         """, args(fl(), fl()), ("*", "sin")),
    Case("first_last", "F(x) = first((x, 2.0)) * last((1.0, x))", args(fl()), ()),
    Case("first_last_array", "F(a) = first(a) * last(a) ^ 2", args(arr(3)), ()),
]


def _exit_trips(a: tuple) -> int:
    x = a[0]
    for i in range(10):
        x = x * 1.1 + 0.1
        if x > 3:
            return i
    return 10


def _grow_d2_trips(y: np.ndarray) -> int:
    s, n = y, 0
    while s.sum() < 6.0:
        s, n = s * 1.5 + y * s[1], n + 1
    return n


def _grow_d2_stable(y: np.ndarray) -> bool:
    """The trip count of grow_d2 does not change within finite-difference reach of y."""
    n = _grow_d2_trips(y)
    for i in range(y.size):
        for s in (-1e-5, 1e-5):
            z = y.copy()
            z[i] += s * max(1.0, abs(z[i]))
            if _grow_d2_trips(z) != n:
                return False
    return True


def _grow_trips(a: tuple) -> int:
    x, c = a[0], a[1]
    s, n = 1.0, 0
    while s < c:
        s, n = s * 1.5 + x, n + 1
    return n


CONTROL = [
    Case("if", """
         function F(x, a)
             if a[1] > 0.0
                 s = sum(a .^ 2)
             else
                 s = prod(a)
             end
             if x < -1.0
                 y = -x ^ 2
             elseif x < 1.0
                 y = sin(x)
             else
                 y = exp(x)
             end
             (x > 0 ? tanh(x) * x : x ^ 3) + s * 2.0 + 2.0 * y
         end
         """, args(away0(0.01, 3.0), arr_away0(3, lo=0.5, hi=1.5)),
         ("sin", "exp", "tanh", "^", "Core.sum", "Core.prod"), examples=5,
         guard=lambda x, a: abs(abs(x) - 1.0) > 1e-3,
         witnesses=((-2.0, np.array([0.6, 0.7, 0.8])), (-0.5, np.array([-0.6, 0.7, 0.8])),
                    (0.5, np.array([0.6, -0.7, 0.8])), (2.0, np.array([-0.6, -0.7, 0.8])))),
    Case("for_power", """
         function F(x, n)
             s = 1.0
             for i in 1:n
                 s = s * x
             end
             # (n's own gradient, x^n log|x| as ChainRules gives an integer power, is not
             # one finite differences can check: the power is held fixed here)
             s + x ^ ignore_derivatives(n) * 2.0
         end
         """, args(away0(0.1, 2.0), st.integers(1, 6)), ("*", "^"), examples=2),
    Case("for_array_state", """
         function F(A, v)
             h = v
             for k in 1:3
                 h = tanh.(A * h)
             end
             sum(h)
         end
         """, args(arr(3, 3, lo=-1.0, hi=1.0), arr(3)), ("*", "tanh")),
    Case("for_nested", """
         function F(x, a)
             s = 0.0
             for i in 1:3
                 for j in 1:2
                     s = s + a[i] * x ^ j + i * j * sin(s)
                 end
             end
             s
         end
         """, args(fl(-1.0, 1.0), arr(3, lo=-1.0, hi=1.0)), ("*", "getindex", "sin")),
    Case("while", """
         function F(x, c, a)
             s = 1.0
             while s < c
                 s = s * 1.5 + x
             end
             r = a + 1.0
             while abs(r * r - a) > 1e-12 * a
                 r = (r + a / r) / 2
             end
             s * x + r
         end
         """, args(fl(0.1, 1.0), fl(1.5, 30.0), fl(0.5, 10.0)), ("*", "+", "/"),
         jax_oracle=False, examples=5, guard=trip_count_same(_grow_trips)),
    Case("loop_exits", """
         function exit_early(x)
             for i in 1:10
                 x = x * 1.1 + 0.1
                 if x > 3.0
                     return x ^ 2
                 end
             end
             return x
         end
         function F(x, y)
             s = 0.0
             for i in 1:10
                 if i > 6
                     break
                 end
                 if i % 2 == 0
                     continue
                 end
                 s = s + y ^ i
             end
             s + exit_early(x)
         end
         """, args(fl(-1.0, 3.0), fl(-1.5, 1.5)), ("^", "+", "*"),
         guard=trip_count_same(_exit_trips), examples=4),
    Case("closures", """
         apply_twice(f, x) = f(f(x))
         function F(x, y)
             g = t -> t * y + x
             a = 2x
             h(t) = a * sin(t)
             g(x) * g(y) + h(x) + h(a) + apply_twice(t -> t * y + sin(t), x)
         end
         """, args(fl(), fl()), ("*", "sin")),
    Case("for_over_array", """
         function F(a)
             s = 0.0
             for t in a
                 s = s + t ^ 2
             end
             s
         end
         """, args(arr_away0(3)), ("^",)),
    # once known bugs, now regression tests
    Case("for_zero_trips", """
         function F(x, n)
             s = x
             for i in 1:n
                 s = s * x
             end
             s
         end
         """, args(fl(), st.just(0)), ()),
]


def nested(name: str, inner: str, draw: st.SearchStrategy, prims: tuple[str, ...],
           **kw: Any) -> Case:
    """A second derivative: F(x, w) = sum(gradient(inner, x)[1] .* w); its gradient in x is
    a Hessian-vector product, checked against finite differences of the first derivative."""
    return Case(name, f"F(x, w) = sum(gradient({inner}, x)[1] .* w)", draw, prims, **kw)


NESTED = [
    Case("d2_scalar", """
         g_d2(x) = sin(x) * x ^ 3 + exp(x) * tanh(x) + x ^ 2 * cos(x)
         F(x) = gradient(g_d2, x)[1] + gradient(s -> s ^ 4 * cos(s) + s * s, x)[1]
         """, args(fl()), ("sin", "cos", "^", "*", "exp", "tanh")),
    Case("d2_arrays", """
         g_arrays(y) = sum(sin.(y) .* y .+ y .^ 3) + sum(tanh.(M * y)) +
             sum(permutedims(reshape(y, 3, 1)) .^ 3) + sum(vcat(y, 2 .* y) .^ 3) +
             sum(hcat(y, y .^ 2) .^ 2)
         F(x, w) = sum(gradient(g_arrays, x)[1] .* w)
         """, args(arr(3), arr(3)),
         ("sin", "tanh", "*", "Core.unbroadcast", "Core.broadcast_to", "Core.permute_back",
          "Core.vcat_back", "Core.hcat_back")),
    Case("d2_nn", """
         g_nn(Y, W) = sum(conv(Y, W) .^ 2) +
             sum(maxpool(Y, (2, 2)) .^ 3) + sum(meanpool(Y, (2, 2)) .^ 3) +
             sum(getobs(Y, 1:1) .^ 3) + sum(selu.(Y) .^ 2) + sum(elu.(Y) .^ 2)
         function F(X, W, w1, w2)
             gx, gw = gradient(g_nn, X, W)
             sum(gx .* w1) + sum(gw .* w2)
         end
         """, args(distinct(3, 3, 1, 1), arr(2, 2, 1, 2), arr(3, 3, 1, 1), arr(2, 2, 1, 2)),
         ("Core.conv_data_back", "Core.conv_filter_back", "Core.maxpool_back",
          "Core.meanpool_back", "MLUtils.getobs_back",
          "NNlib.selu_deriv", "NNlib.elu_deriv"), jax_oracle=False,  # pooling: see "pool"
         # elu's and selu's second derivatives jump at 0: keep X off it
         guard=lambda X, W, w1, w2: bool(np.all(np.abs(X) > 1e-3))),
    Case("d2_cat", "F(Y, W) = sum(gradient(y -> sum(cat(y, y .^ 2; dims=3) .^ 2), Y)[1] .* W)",
         args(arr(3, 3, 1, 1), arr(3, 3, 1, 1)), ("Core.cat_back",)),
    Case("d2_gelu", "F(x) = gradient(t -> gelu(t), x)[1]", args(fl()), ("NNlib.gelu",)),
    # an rrule's pullback receives its cotangent through Core.complex_cot (a Complex from
    # its fields' NamedTuple; a real one as it is): a second derivative through hypot (whose
    # rule is an rrule of the library) pulls back through that
    Case("d2_rrule", "F(x, y) = gradient(t -> hypot(t, y) * t, x)[1]",
         args(fl(0.5, 2.0), fl(0.5, 2.0)), ("Core.complex_cot",), jax_oracle=False,
         offload=False),
    # once known bugs, now regression tests
    Case("d2_div", """
         g_div(x) = exp(x) / (1.0 + x ^ 2) + log(x) * x + sqrt(x) / x + atan(x)
         F(x) = gradient(g_div, x)[1]
         """, args(fl(0.2, 3.0)), ("/", "log", "sqrt", "atan")),
    Case("d2_indexing", """
         function write_d2(y)
             z = copy(y)
             z[2] = y[1] ^ 2
             sum(z .^ 3)
         end
         g_index(y) = sum(y[2:3] .^ 3) + y[1] * y[3] + sum([y[1], y[2] * y[1]] .^ 3) +
             write_d2(y)
         F(x, w) = sum(gradient(g_index, x)[1] .* w)
         """, args(arr(3), arr(3)),
         ("Core.getindex_back", "Core.vect_back", "Core.setindex_fn", "Core.zero_at")),
    # loop nests mapped to tensor operations (backend/nests.py): the first order goes
    # through the contractions, affine reads and writes; the second through their rules'
    # own rules (a read's pullback is a scatter, whose pullback is a read again)
    Case("d2_nest_sum", """
         function cube_sum(A)
             s = 0.0
             for i in 1:size(A, 1), j in 1:size(A, 2)
                 s += A[i, j] * A[i, j] * sin(A[i, j])
             end
             s
         end
         F(A, W) = sum(gradient(cube_sum, A)[1] .* W)
         """, args(arr(3, 2), arr(3, 2)), ("Core.contract2", "Core.nest_read_back")),
    Case("d2_nest_window", """
         function window_sum(x, w)
             s = 0.0
             for i in 1:length(x) - 1, d in 1:2
                 s += x[i + d - 1] * w[d]
             end
             s ^ 2
         end
         F(x, w, v) = sum(gradient(window_sum, x, w)[1] .* v)
         """, args(arr(4), arr(2), arr(4)), ("Core.contract_read", "Core.nest_read_back")),
    Case("d2_nest_write", """
         function cube_write(A)
             C = zeros(size(A))
             for j in 1:size(A, 2), i in 1:size(A, 1)
                 C[i, j] = A[i, j] ^ 3
             end
             sum(C .* C)
         end
         F(A, W) = sum(gradient(cube_write, A)[1] .* W)
         """, args(arr(3, 2), arr(3, 2)), ("Core.nest_zero_at", "Core.nest_read_back")),
    Case("d2_repeat", "F(x, w) = sum(gradient(y -> sum(repeat(y, 2) .^ 3) + "
                      "sum(repeat(y; inner=2) .^ 3), x)[1] .* w)",
         args(arr(3), arr(3)), ("Core.repeat_outer_back", "Core.repeat_inner_back")),
    Case("d2_convert", """
         F(x) = gradient(t -> Float64(t) ^ 3 + sum(Float64.([t, 2t]) .^ 2), x)[1]
         """, args(fl()), ("Core.convert_cot",)),
    # forward over reverse's tangent of a conversion (an integer's float tangent kept)
    Case("convert_tangent",
         "F(x) = Core.convert_tangent(x, x ^ 3) + Core.convert_tangent(2, x ^ 2)",
         args(fl()), ("Core.convert_tangent",)),
    Case("d3_scalar", "F(x) = gradient(t -> gradient(s -> s ^ 5 + sin(s), t)[1], x)[1]",
         args(fl()), ("Core.prepend_nothing",)),
    # the pullback of prepend_nothing's rule (tail_cot's rule), which nested AD reaches at
    # the fourth order, called directly (a fourth-order case takes minutes to compile)
    Case("d2_prepend", "F(x) = gradient(t -> Core.prepend_nothing((t ^ 3, sin(t)))[2] ^ 2, x)[1]",
         args(fl()), ("Core.tail_cot",)),
    Case("d3_maxpool", """
         g_mp(y) = sum(gradient(z -> sum(maxpool(z, (2, 2)) .^ 4), y)[1] .^ 2)
         F(X) = sum(gradient(g_mp, X)[1])
         """, args(distinct(4, 4, 1, 1)), ("Core.maxpool_gather",), jax_oracle=False),
    Case("d2_hvcat", """
         function F(x, y)
             g = gradient((s, t) -> sum([s t; t s] .^ 3), x, y)
             g[1] + 2.0 * g[2]
         end
         """, args(away0(), away0()), ("Core.hvcat", "Core.hvcat_back")),
    nested("d2_cumsum", "y -> sum(cumsum(y) .^ 3)", args(arr(3), arr(3)),
           ("cumsum", "Core.cumsum_back")),
    # second derivatives through loops: the adjoint's walk over the tape is differentiated
    Case("d2_for_static", """
         function loop_d2(y)
             s = y
             t = 0.0
             for i in 1:3
                 s = sin.(s) .* y .+ s[1] * 0.5
                 t = t + sum(s .^ 2) * i
             end
             t
         end
         F(x, w) = sum(gradient(loop_d2, x)[1] .* w)
         """, args(arr(3, lo=-1.0, hi=1.0), arr(3)), ("sin", "*", "getindex", "^")),
    Case("d2_for_scalar", """
         function power_d2(y, n)
             s = y
             for i in 1:n
                 s = s * y + sin(s)
             end
             s
         end
         F(x, n) = gradient(t -> power_d2(t, n), x)[1]
         """, args(fl(-1.0, 1.0), st.integers(0, 4)), ("*", "sin"), examples=2,
         witnesses=((0.5, 0), (-0.7, 1), (0.9, 4))),
    Case("d2_for_dynamic", """
         function dyn_d2(y, c)
             n = 0
             s = 1.0
             while s < c
                 s = s * 2.0
                 n += 1
             end
             t = y
             for i in 1:n
                 t = tanh.(t .* y) .+ t[2]
             end
             sum(t .^ 2)
         end
         F(x, c, w) = sum(gradient(y -> dyn_d2(y, c), x)[1] .* w)
         """, args(arr(3, lo=-1.0, hi=1.0), fl(1.5, 20.0), arr(3)), ("tanh", "*", "getindex"),
         jax_oracle=False,  # the trip count is a while loop's: jax.grad cannot reverse it
         # the trip count jumps where c is a power of two (a finite difference in c across it
         # is not a derivative)
         guard=lambda x, c, w: abs(np.log2(c) - round(np.log2(c))) > 1e-3),
    Case("d2_while", """
         function grow_d2(y)
             s = y
             while sum(s) < 6.0
                 s = s .* 1.5 .+ y .* s[2]
             end
             sum(s .* y)
         end
         F(x, w) = sum(gradient(grow_d2, x)[1] .* w)
         """, args(arr(3, lo=0.3, hi=1.0), arr(3)), ("*", "+", "getindex"),
         jax_oracle=False, guard=lambda x, w: _grow_d2_stable(x), examples=4),
    Case("d2_for_over_array", """
         function elems_d2(y)
             s = 0.0
             for t in y
                 s = s * t + t ^ 3 * y[1]
             end
             s
         end
         F(x, w) = sum(gradient(elems_d2, x)[1] .* w)
         """, args(arr(3), arr(3)), ("*", "^", "getindex")),
    Case("iterators_take_drop", """
         F(x) = sum(Iterators.take(x, 2)) * 2.0 + sum(v -> v^2, Iterators.drop(x, 1)) +
             sum(sin(v) for v in Iterators.take(x, 9))
         """, args(arr(4)), offload=False),
    Case("columns_of_a_comprehension", """
         F(m) = first([m[:, j] for j in 1:3][2]) * 2.0 +
             sum(c -> first(c) * last(c), eachcol(m)) + [2 .* m[:, j] for j in 1:3][3][2]
         """, args(arr(3, 3)), offload=False),
    Case("d2_nested_loops", """
         function nest_d2(y)
             s = y
             for i in 1:2
                 for j in 1:3
                     s = s * cos(y) + j * sin(s)
                 end
             end
             s
         end
         F(x) = gradient(nest_d2, x)[1]
         """, args(fl(-1.0, 1.0)), ("*", "cos", "sin")),
    nested("d2_findmax", "y -> findmax(y)[1] ^ 3 + findmin(y)[1] ^ 2 * y[2]",
           args(distinct(3), arr_away0(3)), ("findmax", "findmin", "Core.findext_back")),
]

CASES: list[Case] = UNARY + ARITH + ARRAYS + STRUCTURED + CONTROL + NESTED


# --- the session ----------------------------------------------------------------------------


class Session:
    """One Zyla session with the prelude; case sources and JAX oracles made on first use."""

    def __init__(self) -> None:
        self.z = Zyla()
        self.z.eval(PRELUDE)
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
        """jax.grad of the lowered primal, as a tree like `a` (compiled once per case and
        static values, by XLA without optimisation passes: it compiles faster)."""
        lv = leaves(a)
        xs = [v for _, v in lv]
        key = (case.name, statics(a))
        g = self.oracles.get(key)
        if g is None:
            primal = self.z.jax_primal(self.define(case), *self.zargs(a))
            grad = jax.jit(jax.grad(primal, argnums=tuple(range(len(lv)))))
            g = self.oracles[key] = grad.lower(*xs).compile(
                compiler_options={"xla_backend_optimization_level": 0})
        out = g(*xs)
        return gradient_tree(a, {p: np.asarray(d) for (p, _), d in zip(lv, out, strict=True)})


_SESSION: list[Session] = []


def session() -> Session:
    if not _SESSION:
        _SESSION.append(Session())
    return _SESSION[0]


# --- the checks -----------------------------------------------------------------------------

FD_RTOL, FD_ATOL = 1e-5, 1e-6
JAX_RTOL, JAX_ATOL = 1e-9, 1e-12
COMPILED_RTOL, COMPILED_ATOL = 1e-10, 1e-13


def check_case(s: Session, case: Case, a: tuple) -> None:
    if case.guard is not None:
        assume(case.guard(*a))
    y = s.primal(case, a)
    assert isinstance(y, float), f"{case.name}: primal is {y!r}, not a Float64"
    if case.offload:
        y_c = s.primal(case, a, compiled=True)
        np.testing.assert_allclose(y_c, y, rtol=COMPILED_RTOL, atol=COMPILED_ATOL,
                                   err_msg="compiled primal")

    g = s.gradient(case, a)
    assert isinstance(g, tuple) and len(g) == len(a), f"gradient {g!r}"
    fd = finite_differences(lambda b: s.primal(case, b, compiled=case.offload), a)
    scale = max([1.0] + [float(np.max(np.abs(v))) for _, v in leaves(fd)])
    assert_tree_close(g, fd, FD_RTOL, FD_ATOL * scale, none_is_zero=True,
                      where="AD vs finite differences")
    if not case.offload:
        return
    if case.jax_oracle and leaves(a):
        assert_tree_close(g, s.jax_gradient(case, a), JAX_RTOL, JAX_ATOL * scale,
                          none_is_zero=True, where="AD vs jax.grad")
    g_c = s.gradient(case, a, compiled=True)
    assert_tree_close(g_c, g, COMPILED_RTOL, COMPILED_ATOL * scale,
                      where="compiled vs host gradient")


def _param(case: Case) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=f"BUG: {case.bug}")] if case.bug else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_gradient(case: Case) -> None:
    s = session()

    def run(a: tuple) -> None:
        with zyla_recursion_limit():
            check_case(s, case, a)

    test = given(case.draw)(run)
    for w in case.witnesses:  # inputs hypothesis might miss: every branch, for instance
        test = example(w)(test)
    # no shrinking: a failure is reported as drawn (shrinking recompiles, for minutes)
    settings(max_examples=case.examples, deadline=None, database=None,
             phases=[Phase.explicit, Phase.generate],
             suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])(test)()


def test_case_names_unique() -> None:
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))


# --- Zygote's conventions, stated exactly ---------------------------------------------------

CONVENTIONS = """
conv_const(x) = 3.0
conv_int(x, n) = x * n
conv_tuple(t) = t[1] * t[2]
conv_unused(x, y) = 2.0 * x
conv_affine(m, x) = sum(m(x))
conv_bool(x, c) = c ? x : 2x
"""
HOST_AND_COMPILED = pytest.mark.parametrize("compiled", [False, True], ids=["host", "compiled"])


def conventions() -> Zyla:
    s = session()
    if "conventions" not in s.defined:
        s.z.eval(CONVENTIONS)
        s.defined.add("conventions")
    return s.z


@HOST_AND_COMPILED
def test_constant_function_gradient_is_nothing(compiled: bool) -> None:
    z = conventions()
    assert z.gradient("conv_const", 1.5, compiled=compiled) == (None,)
    assert z.gradient("conv_const", np.ones(3), compiled=compiled) == (None,)


@HOST_AND_COMPILED
def test_unused_argument_gradient_is_nothing(compiled: bool) -> None:
    assert conventions().gradient("conv_unused", 2.0, 5.0, compiled=compiled) == (2.0, None)


@HOST_AND_COMPILED
def test_integer_argument_gets_a_gradient(compiled: bool) -> None:
    """As in Zygote: an integer is a number like any other (`gradient(x -> 3x, 2)` is
    `(3.0,)`); only Booleans get `nothing`."""
    assert conventions().gradient("conv_int", 1.5, 4, compiled=compiled) == (4.0, 1.5)


@HOST_AND_COMPILED
def test_bool_argument_gradient_is_nothing(compiled: bool) -> None:
    z = conventions()
    assert z.gradient("conv_bool", 1.5, True, compiled=compiled) == (1.0, None)
    assert z.gradient("conv_bool", 1.5, False, compiled=compiled) == (2.0, None)


@HOST_AND_COMPILED
def test_tuple_argument_gradient_is_tuple(compiled: bool) -> None:
    g = conventions().gradient("conv_tuple", (2.0, 3.0), compiled=compiled)
    assert g == ((3.0, 2.0),)


@HOST_AND_COMPILED
def test_struct_gradient_is_namedtuple(compiled: bool) -> None:
    z = conventions()
    m = z.call("Affine", np.eye(2), np.zeros(2))
    gm, gx = z.gradient("conv_affine", m, np.array([1.0, 2.0]), compiled=compiled)
    assert isinstance(gm, dict) and set(gm) == {"W", "b"}
    np.testing.assert_array_equal(gm["W"], [[1.0, 2.0], [1.0, 2.0]])
    np.testing.assert_array_equal(gm["b"], [1.0, 1.0])
    np.testing.assert_array_equal(gx, [1.0, 1.0])


def test_third_derivative_of_prod_is_refused() -> None:
    """prod's second derivative is exact (Core.prod_pair); a third is refused with an
    error rather than taken as zero."""
    z = Zyla()
    z.eval("""
    g3(x) = gradient(y -> sum(hessian_reverse(prod, y)), x)[1]
    h2(x) = hessian_reverse(prod, x)
    """)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(z.call("h2", x), [[0, 12, 8, 6], [12, 0, 4, 3],
                                                 [8, 4, 0, 2], [6, 3, 2, 0]])
    with pytest.raises(ZylaError, match="third and higher derivatives of prod"):
        z.call("g3", x)


def test_jacobians_and_keyword_methods_differentiate_again() -> None:
    """A Jacobian (and so hessian_reverse) differentiates again (its rows were stacked by
    a non-differentiable helper: the third derivative came out `nothing`), and nested
    reverse mode through a method with keyword arguments passed by name (`sum`, `prod`,
    `f(x; k)`) no longer runs past the end of its cotangent tuple."""
    from lang.door.api import Zyla

    z = Zyla()
    z.eval("""
    cube(y) = sum(y .^ 3)
    kw(x; k=1.0) = sum(x .^ 2) * k
    third(x) = gradient(y -> sum(hessian_reverse(cube, y)), x)[1]
    jac2(x) = gradient(y -> sum(jacobian(v -> v .^ 2, y)[1]), x)[1]
    hsum(x) = hessian_reverse(sum, x)
    hkw(x) = hessian_reverse(kw, x)
    hprod(x) = hessian_reverse(prod, x)
    """)
    x = np.array([0.5, -1.5, 2.0])
    for compiled in (False, True):
        np.testing.assert_allclose(z.call("third", x, compiled=compiled), 6.0 * np.ones(3))
        np.testing.assert_allclose(z.call("jac2", x, compiled=compiled), 2.0 * np.ones(3))
        np.testing.assert_allclose(z.call("hsum", x, compiled=compiled), np.zeros((3, 3)))
        np.testing.assert_allclose(z.call("hkw", x, compiled=compiled), 2.0 * np.eye(3))
        np.testing.assert_allclose(z.call("hprod", x, compiled=compiled),
                                   [[0, 2.0, -1.5], [2.0, 0, 0.5], [-1.5, 0.5, 0]])


def test_an_array_of_arrays_from_a_comprehension_keeps_its_gradient() -> None:
    """Where the compile tier would stack the comprehension's columns into one matrix
    (its element 2 then a number) it refuses, and the host's gradient is the answer: a
    `gradient` at top level tries the compile tier first (it once returned `nothing`)."""
    z = Zyla()
    z.eval("a = [1.0 2.0; 3.0 4.0]")
    for src, want in [("a -> first([a[:, j] for j in 1:2][2])", [[0, 1], [0, 0]]),
                      ("a -> sum(first, eachcol(a))", [[1, 1], [0, 0]]),
                      ("a -> [a[:, j] for j in 1:2][2][2]", [[0, 0], [0, 1]])]:
        np.testing.assert_array_equal(z.eval(f"gradient({src}, a)[1]"), want, err_msg=src)


def test_a_gradient_through_a_reassigned_capture() -> None:
    """A closure or comprehension that reassigns a captured variable keeps it in a box,
    whose reads and writes reverse mode follows (it refused a gradient through one, and
    lost an integer's silently); a counter's is computed."""
    z = Zyla()
    np.testing.assert_array_equal(
        z.eval("gradient(x -> (s = 0.0; sum([(s += v; s * v) for v in x])), [1.0, 2.0])[1]"),
        [4.0, 5.0])
    z.eval("""
function counted(x)
    n = 0
    g = v -> (n += 1; v * 2)
    sum(map(g, x)) + 0 * n
end
""")
    np.testing.assert_array_equal(z.eval("gradient(counted, [1.0, 2.0])[1]"), [2.0, 2.0])
    # a loop variable of the caller, captured by the differentiated closure, is boxed too
    # (assigned in a loop, captured): a constant of the differentiation, not refused
    z.eval("""
function caller_loop(w)
    out = nothing
    for xx in [[3.0, 4.0]]
        x_dev = xx .* 1.0
        out = gradient(v -> sum(v .* x_dev), w)
    end
    out
end
""")
    np.testing.assert_array_equal(z.eval("caller_loop([1.0, 2.0])[1]"), [3.0, 4.0])
