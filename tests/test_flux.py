"""The Flux-compatible library (lang/core/stdlib/flux.jl over lang/core/primitives_nn.py).

Numerical kernels are checked against independent references: convolution and pooling
against direct loops written here in numpy with Julia's indexing (which also checks the
reversed array layout), their gradients against central finite differences and against
`jax.grad` of the lowered primal; optimisers against the update formulas of
Optimisers.jl written out in numpy. Layers, modes, losses, data loading, training and the
progress bar are checked for Flux's behaviour. Arrays cross the Python API with numpy
shape = Julia size (lang.door.api).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import jax
import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.door.api import Zyla

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(1234)


@pytest.fixture(scope="module")
def z() -> Zyla:
    s = Zyla()
    s.eval("using Flux, Random, Statistics")
    s.eval("struct OptModel\n    w\n    b\nend")
    return s


# --- references (Julia semantics, numpy shape = Julia size) -------------------------------------


def ref_conv(
    x: np.ndarray, w: np.ndarray, stride: tuple, pad: tuple, dil: tuple, flipped: bool
) -> np.ndarray:
    """NNlib's conv by its definition: x (W, H, C, N), w (k1, k2, C, O), pad (lo1, hi1,
    lo2, hi2)."""
    if not flipped:
        w = w[::-1, ::-1]
    xp = np.pad(x, [(pad[0], pad[1]), (pad[2], pad[3]), (0, 0), (0, 0)])
    k1, k2, _, o = w.shape
    o1 = (xp.shape[0] - dil[0] * (k1 - 1) - 1) // stride[0] + 1
    o2 = (xp.shape[1] - dil[1] * (k2 - 1) - 1) // stride[1] + 1
    y = np.zeros((o1, o2, o, x.shape[3]))
    for i, j, a, b in itertools.product(range(o1), range(o2), range(k1), range(k2)):
        patch = xp[i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]]  # (C, N)
        y[i, j] += w[a, b].T @ patch
    return y


def ref_pool(x: np.ndarray, k: tuple, stride: tuple, pad: int, op: str) -> np.ndarray:
    fill = -np.inf if op == "max" else 0.0
    xp = np.pad(x, [(pad, pad), (pad, pad), (0, 0), (0, 0)], constant_values=fill)
    o1 = (xp.shape[0] - k[0]) // stride[0] + 1
    o2 = (xp.shape[1] - k[1]) // stride[1] + 1
    y = np.zeros((o1, o2) + x.shape[2:])
    for i, j in itertools.product(range(o1), range(o2)):
        win = xp[i * stride[0] : i * stride[0] + k[0], j * stride[1] : j * stride[1] + k[1]]
        y[i, j] = win.max(axis=(0, 1)) if op == "max" else win.sum(axis=(0, 1)) / (k[0] * k[1])
    return y


def finite_differences(f: Any, args: list, rel: float = 1e-6) -> list:
    out = []
    for n, a in enumerate(args):
        g = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            h = rel * max(1.0, abs(a[i]))
            up = [b.copy() for b in args]
            down = [b.copy() for b in args]
            up[n][i] += h
            down[n][i] -= h
            g[i] = (f(*up) - f(*down)) / (2 * h)
        out.append(g)
    return out


# --- convolution and pooling ---------------------------------------------------------------------

CONV_CASES = [  # stride, pad (lo1, hi1, lo2, hi2), dilation, flipped
    ((1, 1), (0, 0, 0, 0), (1, 1), False),
    ((2, 1), (1, 1, 1, 1), (1, 1), False),
    ((1, 2), (1, 0, 2, 1), (2, 1), True),
    ((3, 2), (2, 2, 0, 1), (2, 2), False),
]


@pytest.mark.parametrize("stride,pad,dil,flipped", CONV_CASES)
def test_conv_matches_its_definition(
    z: Zyla, stride: tuple, pad: tuple, dil: tuple, flipped: bool
) -> None:
    x = RNG.standard_normal((9, 8, 3, 2))
    w = RNG.standard_normal((3, 2, 3, 4))
    name = f"conv_case{CONV_CASES.index((stride, pad, dil, flipped))}"
    z.eval(
        f"{name}(x, w) = conv(x, w; stride={stride}, pad={pad}, dilation={dil}, "
        f"flipped={str(flipped).lower()})"
    )
    ref = ref_conv(x, w, stride, pad, dil, flipped)
    np.testing.assert_allclose(z.call(name, x, w), ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(z.call(name, x, w, compiled=True), ref, rtol=1e-10, atol=1e-10)


def test_pooling_matches_its_definition(z: Zyla) -> None:
    x = RNG.standard_normal((7, 6, 3, 2))
    z.eval("""
        pools(x) = (maxpool(x, (2, 2)), maxpool(x, (3, 2); pad=1, stride=(2, 1)),
                    meanpool(x, (2, 3)), meanpool(x, (3, 3); pad=1, stride=2))
    """)
    want = (
        ref_pool(x, (2, 2), (2, 2), 0, "max"),
        ref_pool(x, (3, 2), (2, 1), 1, "max"),
        ref_pool(x, (2, 3), (2, 3), 0, "mean"),
        ref_pool(x, (3, 3), (2, 2), 1, "mean"),
    )
    for got in (z.call("pools", x), z.call("pools", x, compiled=True)):
        for g, r in zip(got, want, strict=True):
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)


NN_LOSS = """
nn_loss(x, w, v, u) =
    sum(conv(x, w; stride=(2, 1), pad=1) .^ 2) +
    sum(conv(x, w; pad=(1, 0, 2, 1), dilation=(2, 1), flipped=true) .* 0.5) +
    sum(conv(v, u; stride=2, pad=(0, 1)) .^ 2) +
    sum(maxpool(x, (3, 2); pad=1, stride=1) .^ 2) +
    sum(meanpool(tanh.(x), (2, 3); stride=(1, 2)) .^ 3) +
    sum(Core.meanpool(x, (4, 4), 1, 0) .^ 2)
"""


def test_nn_gradients_against_finite_differences_and_jax(z: Zyla) -> None:
    """Every geometry option of conv and pooling, 1-D and 2-D, in one function: the host
    gradient (numpy shifted slices) against finite differences, the compiled one (XLA
    convolutions) against it, and both against jax.grad of the lowered primal."""
    z.eval(NN_LOSS)
    x = RNG.standard_normal((5, 4, 2, 2))
    w = RNG.standard_normal((3, 2, 2, 3))
    v = RNG.standard_normal((7, 2, 3))
    u = RNG.standard_normal((3, 2, 2))
    args = [x, w, v, u]
    g = z.gradient("nn_loss", *args)
    fd = finite_differences(lambda *a: z.call("nn_loss", *a), args)
    for a, b in zip(g, fd, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    primal = z.jax_primal("nn_loss", *args)
    oracle = jax.grad(primal, argnums=(0, 1, 2, 3))(*args)
    for a, b in zip(g, oracle, strict=True):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-9)
    for a, b in zip(z.gradient("nn_loss", *args, compiled=True), g, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_conv_second_derivatives(z: Zyla) -> None:
    """Nested AD through conv: the rules of conv_data_back/conv_filter_back, compiled,
    against JAX differentiating the lowered primal twice."""
    z.eval("""
        conv_inner(x, w) = sum(conv(x, w; stride=2, pad=1) .^ 2)
        conv_outer(x, w) = sum(gradient(conv_inner, x, w)[2] .^ 2)
    """)
    x = RNG.standard_normal((5, 5, 2, 1))
    w = RNG.standard_normal((3, 3, 2, 2))
    g = z.gradient("conv_outer", x, w, compiled=True)
    inner = z.jax_primal("conv_inner", x, w)
    oracle = jax.grad(lambda x, w: (jax.grad(inner, argnums=1)(x, w) ** 2).sum(), argnums=(0, 1))(
        x, w
    )
    for a, b in zip(g, oracle, strict=True):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-9)


def test_conv_errors_name_the_mismatch(z: Zyla) -> None:
    z.eval("bad_conv(x, w) = conv(x, w)")
    with pytest.raises(ZylaError, match="3 channels but the kernel expects 2"):
        z.call("bad_conv", np.zeros((5, 5, 3, 1)), np.zeros((3, 3, 2, 4)))
    with pytest.raises(ZylaError, match="does not fit"):
        z.call("bad_conv", np.zeros((2, 2, 2, 1)), np.zeros((3, 3, 2, 4)))


# --- activations and losses ----------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0),
    "leakyrelu": lambda x: np.where(x > 0, x, 0.01 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "sigmoid": _sigmoid,
    "σ": _sigmoid,
    "tanh": np.tanh,
    "softplus": lambda x: np.log1p(np.exp(x)),
    "swish": lambda x: x * _sigmoid(x),
    "logsigmoid": lambda x: np.log(_sigmoid(x)),
    "relu6": lambda x: np.clip(x, 0, 6),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_values_and_float32(z: Zyla, name: str) -> None:
    x = np.array([-3.0, -0.5, 0.25, 2.0, 7.0])
    np.testing.assert_allclose(z.eval(f"{name}.({x.tolist()})"), ACTIVATIONS[name](x), rtol=1e-12)
    y = z.eval(f"{name}.(Float32{x.tolist()})")
    assert y.dtype == np.float32
    assert z.eval(f"typeof({name}(1.5f0))") is not None
    assert z.eval(f"{name}(1.5f0) isa Float32")


def test_activations_broadcast_without_an_element_loop(z: Zyla) -> None:
    """relu/sigmoid/gelu on Float32 arrays dispatch to vectorised elementwise primitives,
    so broadcasting them takes no per-element call (checked by the dispatch, not by a clock)."""
    from lang.core.functions import elementwise_primitive

    x = RNG.standard_normal((30, 20)).astype(np.float32)
    for name in ("relu", "sigmoid", "gelu"):
        assert elementwise_primitive(z.eval(name), (x,)) is not None, name
    z.eval("big = rand(Float32, 1000, 1000)")
    big = np.asarray(z.eval("big"))
    got = z.eval("(sum(relu.(big)), sum(sigmoid.(big)))")
    np.testing.assert_allclose(got, (np.maximum(big, 0).sum(), _sigmoid(big).sum()), rtol=1e-4)


def test_softmax_and_losses(z: Zyla) -> None:
    x = RNG.standard_normal((4, 5))
    y = np.eye(4)[:, RNG.integers(0, 4, 5)]
    p = _sigmoid(RNG.standard_normal((4, 5)))
    t = (RNG.random((4, 5)) > 0.5).astype(float)
    sm = np.exp(x) / np.exp(x).sum(axis=0)
    np.testing.assert_allclose(z.call("softmax", x), sm, rtol=1e-12)
    np.testing.assert_allclose(
        z.call(z.eval("x -> softmax(x; dims=2)"), x),
        np.exp(x) / np.exp(x).sum(axis=1, keepdims=True),
        rtol=1e-12,
    )
    np.testing.assert_allclose(z.call("logsoftmax", x), np.log(sm), rtol=1e-12)
    checks = {
        "Flux.mse": ((x, p), np.mean((x - p) ** 2)),
        "Flux.mae": ((x, p), np.mean(np.abs(x - p))),
        "Flux.crossentropy": ((sm, y), -np.sum(y * np.log(sm + np.finfo(float).eps)) / 5),
        "Flux.logitcrossentropy": ((x, y), -np.sum(y * np.log(sm)) / 5),
        "Flux.binarycrossentropy": (
            (p, t),
            np.mean(
                -t * np.log(p + np.finfo(float).eps) - (1 - t) * np.log(1 - p + np.finfo(float).eps)
            ),
        ),
        "Flux.logitbinarycrossentropy": (
            (x, t),
            np.mean(-t * np.log(_sigmoid(x)) - (1 - t) * np.log(1 - _sigmoid(x))),
        ),
    }
    for name, (a, want) in checks.items():
        assert z.call(name, *a) == pytest.approx(want, rel=1e-10), name
    z.eval("sum_mse(a, b) = Flux.mse(a, b; agg=sum)")
    assert z.call("sum_mse", x, p) == pytest.approx(np.sum((x - p) ** 2), rel=1e-12)


def test_onehot_and_onecold(z: Zyla) -> None:
    assert (
        z.eval("Flux.onehotbatch([2, 0, 1, 2], 0:2)")
        == np.array([[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]], dtype=bool)
    ).all()
    assert list(z.eval("Flux.onehot(:b, (:a, :b, :c))")) == [False, True, False]
    assert list(z.eval("Flux.onecold([0.1 0.9; 0.8 0.05; 0.1 0.05])")) == [2, 1]
    assert list(z.eval('Flux.onecold([0.1 0.9; 0.8 0.05; 0.1 0.05], ["x", "y", "z"])')) == [
        "y",
        "x",
    ]
    assert list(z.eval('Flux.onehotbatch(["a", "c"], ("a", "b", "c"))')[:, 1]) == [
        False,
        False,
        True,
    ]
    with pytest.raises(ZylaError, match="Value 5 not found in labels"):
        z.eval("Flux.onehotbatch([1, 5], 1:3)")


# --- layers --------------------------------------------------------------------------------------


def test_dense_and_chain(z: Zyla) -> None:
    z.eval("""
        Random.seed!(0)
        d = Dense(3 => 5, relu)
        c = Chain(Dense(3 => 4, tanh), Dense(4 => 2), softmax)
    """)
    W = z.eval("d.weight")
    assert W.shape == (5, 3) and W.dtype == np.float32
    assert np.all(np.abs(W) <= math.sqrt(6 / 8) + 1e-6)  # Glorot uniform's bound
    assert z.eval("d.bias").dtype == np.float32 and not z.eval("d.bias").any()
    x = RNG.random((3, 7)).astype(np.float32)
    y = z.call("d", x)
    np.testing.assert_allclose(y, np.maximum(W @ x, 0), rtol=1e-6)
    assert y.dtype == np.float32
    assert z.call("c", x).shape == (2, 7)
    np.testing.assert_allclose(z.call("c", x).sum(axis=0), np.ones(7), rtol=1e-6)
    assert z.eval("c[2] isa Dense") and z.eval("length(c)") == 3
    assert z.eval("c[1:2](ones(Float32, 3)) == c[2](c[1](ones(Float32, 3)))")
    assert z.eval("Dense(3 => 2; bias=false).bias") is False
    assert z.eval("size(Dense(3 => 2)(rand(Float32, 3, 4, 5)))") == (2, 4, 5)


def test_conv_layer_is_a_true_convolution(z: Zyla) -> None:
    """Flux's Conv flips its kernel; CrossCor does not: with the same weight reversed they
    agree, and both match the reference (bias and activation included)."""
    z.eval("""
        Random.seed!(1)
        cl = Conv((3, 2), 2 => 4, relu; stride=(1, 2), pad=1)
    """)
    w = z.eval("cl.weight")
    assert w.shape == (3, 2, 2, 4) and w.dtype == np.float32
    x = RNG.standard_normal((6, 5, 2, 3)).astype(np.float32)
    ref = np.maximum(
        ref_conv(x.astype(float), w.astype(float), (1, 2), (1, 1, 1, 1), (1, 1), False), 0
    )
    np.testing.assert_allclose(z.call("cl", x), ref, rtol=1e-5, atol=1e-5)
    z.eval("cc = CrossCor((3, 2), 2 => 4, relu; stride=(1, 2), pad=1)")
    wc = z.eval("cc.weight")
    ref_c = np.maximum(
        ref_conv(x.astype(float), wc.astype(float), (1, 2), (1, 1, 1, 1), (1, 1), True), 0
    )
    np.testing.assert_allclose(z.call("cc", x), ref_c, rtol=1e-5, atol=1e-5)
    assert z.eval("size(Conv((3, 3), 1 => 2; pad=SamePad())(rand(Float32, 7, 6, 1, 2)))") == (
        7,
        6,
        2,
        2,
    )
    assert z.eval(
        "size(Conv((5, 5), 1 => 2; pad=SamePad(), dilation=2)(rand(Float32, 9, 8, 1, 1)))"
    ) == (9, 8, 2, 1)
    assert z.eval("size(Conv((3,), 2 => 5; stride=2)(rand(Float32, 11, 2, 4)))") == (5, 5, 4)
    with pytest.raises(ZylaError, match="groups"):  # (groups must divide the channels)
        z.eval("Conv((3, 3), 3 => 4; groups=2)")


def test_conv_transpose_inverts_the_shape_of_conv(z: Zyla) -> None:
    z.eval("""
        Random.seed!(2)
        ct = ConvTranspose((3, 3), 4 => 2; stride=2, pad=1)
        xt = rand(Float32, 5, 5, 4, 3)
    """)
    assert z.eval("size(ct(xt))") == (9, 9, 2, 3)
    assert z.eval("size(Conv((3, 3), 2 => 4; stride=2, pad=1)(ct(xt)))") == (5, 5, 4, 3)
    # its gradient is the forward convolution's adjoint: check one entry by finite differences
    z.eval("ct_loss(x) = sum(ct(x) .^ 2)")
    x = RNG.standard_normal((5, 5, 4, 3)).astype(np.float32)
    g = z.gradient("ct_loss", x)[0]
    h = 1e-2
    e = np.zeros_like(x)
    e[2, 1, 3, 0] = h
    fd = (z.call("ct_loss", x + e) - z.call("ct_loss", x - e)) / (2 * h)
    assert g[2, 1, 3, 0] == pytest.approx(fd, rel=1e-2)


def test_pooling_layers(z: Zyla) -> None:
    x = RNG.standard_normal((6, 4, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(
        z.call(z.eval("MaxPool((2, 2))"), x), ref_pool(x, (2, 2), (2, 2), 0, "max")
    )
    np.testing.assert_allclose(
        z.call(z.eval("MeanPool((3, 2); stride=1)"), x),
        ref_pool(x, (3, 2), (1, 1), 0, "mean"),
        rtol=1e-6,
        atol=1e-6,  # Float32 sums of O(1) values; a window that cancels has no relative bound
    )
    np.testing.assert_allclose(
        z.call(z.eval("GlobalMeanPool()"), x),
        x.mean(axis=(0, 1), keepdims=True),
        rtol=1e-5,
        atol=1e-6,
    )
    np.testing.assert_allclose(
        z.call(z.eval("GlobalMaxPool()"), x), x.max(axis=(0, 1), keepdims=True)
    )
    np.testing.assert_allclose(
        z.call(z.eval("AdaptiveMeanPool((3, 2))"), x),
        ref_pool(x, (2, 2), (2, 2), 0, "mean"),
        rtol=1e-6,
        atol=1e-6,
    )
    assert z.call("Flux.flatten", x).shape == (72, 2)


def test_batchnorm_modes_and_running_statistics(z: Zyla) -> None:
    """Test mode uses the running statistics, train mode the batch's; the automatic mode
    trains inside `gradient` only; the statistics update the same compiled and on the host."""
    z.eval("""
        Random.seed!(3)
        bn = BatchNorm(2)
        xb = rand(Float32, 2, 64) .* 3 .+ 5
    """)
    x = z.eval("xb")
    # outside gradient: test mode with μ = 0, σ² = 1
    np.testing.assert_allclose(z.eval("bn(xb)"), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    # inside gradient: batch statistics, and the running ones move by momentum 0.1
    z.eval("gbn = gradient(m -> sum(m(xb) .^ 2), bn)[1]")
    mu, var = x.mean(axis=1), x.var(axis=1)
    np.testing.assert_allclose(z.eval("bn.μ"), 0.1 * mu, rtol=1e-5)
    np.testing.assert_allclose(z.eval("bn.σ²"), 0.9 + 0.1 * var * 64 / 63, rtol=1e-5)
    assert z.eval("gbn.μ === nothing && gbn.γ isa Vector{Float32}")
    # the compiled gradient updates them identically
    z.eval("bn2 = BatchNorm(2)")
    z.eval("gbn2 = gradient(m -> sum(m(xb) .^ 2), bn2)")  # a top-level call: compiled
    np.testing.assert_allclose(z.eval("bn2.μ"), 0.1 * mu, rtol=1e-5)
    z.rt.compile_mode = "never"
    z.eval("gbn3 = gradient(m -> sum(m(xb) .^ 2), bn2)")
    z.rt.compile_mode = "auto"
    np.testing.assert_allclose(z.eval("bn2.μ"), 0.19 * mu, rtol=1e-5)
    # explicit modes
    z.eval("Flux.trainmode!(bn)")
    y = z.eval("bn(xb)")
    np.testing.assert_allclose(y.mean(axis=1), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(axis=1), 1, rtol=1e-3)
    z.eval("Flux.testmode!(bn)")
    assert not np.allclose(z.eval("bn(xb)").mean(axis=1), 0, atol=1e-3)
    z.eval("Flux.testmode!(bn, :auto)")
    assert z.eval("NNlib.getmode(bn.mode) === nothing")


def test_dropout_modes(z: Zyla) -> None:
    z.eval("""
        Random.seed!(4)
        dr = Dropout(0.25)
        ones_ = ones(Float32, 100, 40)
    """)
    assert (z.eval("dr(ones_)") == 1).all()  # outside gradient: inactive
    z.eval("gdr = gradient(x -> sum(dr(x)), ones_)[1]")  # inside gradient: active
    g = z.eval("gdr")
    assert set(np.unique(g)) == {0.0, np.float32(1 / 0.75)}
    assert abs((g == 0).mean() - 0.25) < 0.03
    z.eval("Flux.trainmode!(dr)")
    y = z.eval("dr(ones_)")
    assert abs((y == 0).mean() - 0.25) < 0.03
    z.eval("Flux.testmode!(dr)")
    assert (z.eval("dr(ones_)") == 1).all()


def test_layernorm_and_embedding(z: Zyla) -> None:
    x = RNG.standard_normal((5, 3)).astype(np.float32) * 4 + 2
    y = z.call(z.eval("LayerNorm(5)"), x)
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(y.var(axis=0), 1, rtol=1e-3)
    z.eval("Random.seed!(5); emb = Embedding(10 => 4)")
    W = z.eval("emb.weight")
    assert W.shape == (4, 10) and W.dtype == np.float32
    np.testing.assert_allclose(z.eval("emb(3)"), W[:, 2])
    np.testing.assert_allclose(z.eval("emb([3, 1, 3])"), W[:, [2, 0, 2]])
    assert z.eval("size(emb([1 2; 3 4]))") == (4, 2, 2)
    g = z.eval("gradient(m -> sum(m([3, 1, 3])), emb)[1].weight")
    assert (g[:, 2] == 2).all() and (g[:, 0] == 1).all() and (g[:, 1] == 0).all()


def test_recurrent_cells_and_layers(z: Zyla) -> None:
    """RNN/LSTM/GRU layers equal their cells run step by step; the LSTM's gradient
    through time compiles (a scan) and equals the host's."""
    z.eval("""
        Random.seed!(6)
        xs = rand(Float32, 3, 5, 2)
        function by_hand(cell, xs)
            state = initialstates(cell)
            hs = []
            for t in 1:size(xs, 2)
                h, state = cell(xs[:, t, :], state)  # Flux 0.16: (output, new state)
                push!(hs, h)
            end
            hs
        end
        rnn = RNN(3 => 4)
        lstm = LSTM(3 => 4)
        gru = GRU(3 => 4)
        lstm_loss(m, x) = sum(m(x) .^ 2)
    """)
    z.rt.compile_mode = "never"  # the layers against their cells: on the host
    for layer in ("rnn", "lstm", "gru"):
        y = z.eval(f"{layer}(xs)")
        assert y.shape == (4, 5, 2) and y.dtype == np.float32
        assert z.eval(
            f"hs = by_hand({layer}.cell, xs); "
            f"all(isapprox({layer}(xs)[:, t, :], hs[t]; rtol=1e-6) for t in 1:5)"
        )
    z.rt.compile_mode = "auto"
    h, (h2, c) = z.eval("LSTMCell(3 => 4)(rand(Float32, 3))")
    assert h.shape == (4,) and c.shape == (4,) and (h == h2).all()
    # return_state: the outputs and the last state, which equals the last output for a GRU
    y, hl = z.eval("GRU(3 => 4; return_state = true)(xs)")
    assert y.shape == (4, 5, 2) and (hl == y[:, 4, :]).all()  # numpy (batch, len, out)
    g_host = z.rt.interp.call_value(
        z.rt.lookup("gradient"), [z.rt.lookup("lstm_loss"), z.rt.lookup("lstm"), z.rt.lookup("xs")]
    )
    z.eval("g_lstm = gradient(lstm_loss, lstm, xs)")  # top-level: compiled
    assert "gradient" not in z.rt.offload_reasons
    g_c = z.eval("g_lstm")
    np.testing.assert_allclose(g_c[0]["cell"]["Wi"], g_host[0].get("cell").get("Wi").T, rtol=1e-5)
    np.testing.assert_allclose(g_c[1], g_host[1].T, rtol=1e-5)


# --- optimisers ----------------------------------------------------------------------------------


def _adam(
    x: np.ndarray,
    g: np.ndarray,
    st: dict,
    eta: float,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
) -> np.ndarray:
    m, v, t = st.get("m", 0 * x), st.get("v", 0 * x), st.get("t", 0) + 1
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    st.update(m=m, v=v, t=t)
    return eta * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)


def _steps(rule: str) -> Any:
    """Optimisers.jl's update for one rule, as a function (x, g, state) -> step."""
    if rule == "Descent(0.1)":
        return lambda x, g, st: 0.1 * g
    if rule == "Momentum(0.01, 0.9)":

        def momentum(x: np.ndarray, g: np.ndarray, st: dict) -> np.ndarray:
            st["v"] = 0.9 * st.get("v", 0 * x) + 0.01 * g
            return st["v"]

        return momentum
    if rule == "Nesterov(0.01, 0.9)":

        def nesterov(x: np.ndarray, g: np.ndarray, st: dict) -> np.ndarray:
            v = st.get("v", 0 * x)
            step = -0.81 * v + 1.9 * 0.01 * g
            st["v"] = 0.9 * v - 0.01 * g
            return step

        return nesterov
    if rule == "RMSProp(0.01, 0.9)":

        def rmsprop(x: np.ndarray, g: np.ndarray, st: dict) -> np.ndarray:
            st["a"] = 0.9 * st.get("a", 0 * x) + 0.1 * g * g
            return 0.01 * g / (np.sqrt(st["a"]) + 1e-8)

        return rmsprop
    if rule == "Adam(0.01)":
        return lambda x, g, st: _adam(x, g, st, 0.01)
    if rule == "AdamW(0.01, (0.9, 0.999), 0.1)":
        return lambda x, g, st: _adam(x, g, st, 0.01) + 0.01 * 0.1 * x
    if rule == "OptimiserChain(WeightDecay(0.1), ClipGrad(0.5), Descent(0.1))":
        return lambda x, g, st: 0.1 * np.clip(g + 0.1 * x, -0.5, 0.5)
    if rule == "OptimiserChain(ClipNorm(1.0), Descent(0.1))":
        return lambda x, g, st: 0.1 * g * min(1.0, 1.0 / np.linalg.norm(g))
    raise KeyError(rule)


RULES = [
    "Descent(0.1)",
    "Momentum(0.01, 0.9)",
    "Nesterov(0.01, 0.9)",
    "RMSProp(0.01, 0.9)",
    "Adam(0.01)",
    "AdamW(0.01, (0.9, 0.999), 0.1)",
    "OptimiserChain(WeightDecay(0.1), ClipGrad(0.5), Descent(0.1))",
    "OptimiserChain(ClipNorm(1.0), Descent(0.1))",
]


@pytest.mark.parametrize("rule", RULES)
def test_optimiser_rules_match_optimisers_jl(z: Zyla, rule: str) -> None:
    x0 = RNG.standard_normal((3, 2))
    grads = [RNG.standard_normal((3, 2)) * 2 for _ in range(3)]
    model = z.call("OptModel", x0, np.array([1.0, -1.0]))
    state = z.call(z.eval(f"m -> Flux.setup({rule}, m)"), model)
    update = z.eval("(s, m, g) -> Flux.update!(s, m, (w = g, b = nothing))")
    step = _steps(rule)
    x, st = x0.copy(), {}
    for g in grads:
        z.call(update, state, model, g)
        x = x - step(x, g, st)
    np.testing.assert_allclose(
        z.rt.interp.call_value(z.rt.lookup("getproperty"), [model, z.eval(":w")]).T,
        x,
        rtol=1e-10,
        atol=1e-12,
    )


def test_adjust_changes_the_learning_rate(z: Zyla) -> None:
    z.eval("""
        pa = [1.0, 2.0]
        sa = Flux.setup(Descent(0.1), (pa,))
        Flux.adjust!(sa, 0.5)
        Flux.update!(sa, (pa,), ([1.0, 1.0],))
    """)
    np.testing.assert_allclose(z.eval("pa"), [0.5, 1.5])


def test_a_chain_iterates_over_its_layers(z: Zyla) -> None:
    z.eval("""
        cm = Chain(Dense(2 => 3, relu), Dense(3 => 1))
        shapes = [size(l.weight) for l in cm]
        n = 0
        for l in cm
            n += length(l.bias)
        end
    """)
    assert list(z.eval("shapes")) == [(3, 2), (1, 3)]
    assert z.eval("n") == 4
    assert z.eval("size(cm[end].weight)") == (1, 3)
    assert z.eval("length(cm)") == 2


def test_a_users_rule_subtypes_abstract_rule(z: Zyla) -> None:
    """Optimisers.jl's interface for a new rule: a subtype of AbstractRule with `init`
    (the state of a parameter) and `apply!` (the new state and the step); with an
    OptimiserChain too. The steps are checked against the rule written out by hand."""
    z.eval("""
        struct DecayDescent <: Optimisers.AbstractRule
            eta::Float64
        end
        Optimisers.init(o::DecayDescent, x::AbstractArray) = 1
        function Optimisers.apply!(o::DecayDescent, state, x, dx)
            η = o.eta / sqrt(state)
            return state + 1, η .* dx
        end
        ra = [1.0, 2.0]
        sr = Optimisers.setup(DecayDescent(0.5), (ra,))
        for k in 1:3
            Optimisers.update!(sr, (ra,), ([1.0, -2.0],))
        end
        rb = [1.0]
        sc = Optimisers.setup(OptimiserChain(ClipGrad(0.25), DecayDescent(1.0)), (rb,))
        Optimisers.update!(sc, (rb,), ([3.0],))
        Optimisers.update!(sc, (rb,), ([3.0],))
    """)
    steps = sum(0.5 / np.sqrt(k) for k in (1, 2, 3))
    np.testing.assert_allclose(z.eval("ra"), [1.0 - steps, 2.0 + 2 * steps])
    assert z.eval("sr[1].state") == 4
    assert z.eval("DecayDescent(0.1) isa Optimisers.AbstractRule") is True
    assert z.eval("Adam() isa Optimisers.AbstractRule") is True
    np.testing.assert_allclose(z.eval("rb"), [1.0 - 0.25 - 0.25 / np.sqrt(2)])


def test_freeze_and_thaw(z: Zyla) -> None:
    """A frozen part of the state tree leaves its parameters as they are; thawed, they
    move again; the rest moves throughout (Optimisers.freeze!/thaw!)."""
    z.eval("""
        fa, fb = [1.0, 2.0], [3.0]
        sf = Flux.setup(Descent(0.5), (fa, fb))
        Flux.freeze!(sf[1])
        Flux.update!(sf, (fa, fb), ([1.0, 1.0], [2.0]))
        Optimisers.thaw!(sf)
        Flux.update!(sf, (fa, fb), ([1.0, 1.0], [2.0]))
    """)
    np.testing.assert_allclose(z.eval("fa"), [0.5, 1.5])  # one step, after the thaw
    np.testing.assert_allclose(z.eval("fb"), [1.0])  # two steps


def test_outputsize_and_autosize(z: Zyla) -> None:
    z.eval("""
        am = @autosize (12, 12, 2, 5) Chain(Conv((3, 3), _ => 4, relu), MaxPool((2, 2)),
                                            Flux.flatten, Dense(_ => 3))
        an = @autosize (6,) Chain(Dense(_ => 4, tanh), Dense(_ => 2))
    """)
    assert z.eval("size(am[4].weight)") == (3, 100)  # 12 -> 10 -> 5: 5 * 5 * 4
    assert z.eval("Flux.outputsize(am, (12, 12, 2); padbatch=true)") == (3, 1)
    assert z.eval("(size(an[1].weight), size(an[2].weight))") == ((4, 6), (2, 4))
    assert z.eval("size(an(rand(Float32, 6, 7)))") == (2, 7)


# --- data, training, progress --------------------------------------------------------------------


def test_dataloader(z: Zyla) -> None:
    z.eval("""
        Random.seed!(7)
        X = reshape(collect(1.0:30.0), 3, 10)
        Y = collect(1:10)
        batches = [b for b in Flux.DataLoader((X, Y); batchsize=4)]
        shuffled = [b for b in Flux.DataLoader((X, Y); batchsize=4, shuffle=true)]
        full = [b for b in Flux.DataLoader(X; batchsize=4, partial=false)]
        nothing
    """)
    assert z.eval("length(Flux.DataLoader((X, Y); batchsize=4))") == 3
    batches, shuffled, full = (z.rt.lookup(n) for n in ("batches", "shuffled", "full"))
    assert [b[1].tolist() for b in batches] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    assert z.eval("batches[1][1] == X[:, 1:4]")
    order = np.concatenate([b[1] for b in shuffled])
    assert sorted(order.tolist()) == list(range(1, 11)) and order.tolist() != list(range(1, 11))
    assert z.eval("all(b -> b[1] == X[:, b[2]], shuffled)")
    assert [z.eval(f"size(full[{k}])") for k in (1, 2)] == [(3, 4), (3, 4)] and len(full) == 2


def test_train_compiles_its_steps_and_learns(z: Zyla) -> None:
    z.eval("""
        Random.seed!(8)
        xt = rand(Float32, 2, 64)
        yt = xt[1:1, :] .- 2 .* xt[2:2, :]
        mt = Chain(Dense(2 => 8, tanh), Dense(8 => 1))
        lt(m, x, y) = Flux.mse(m(x), y)
        st = Flux.setup(Adam(0.02), mt)
        l0 = lt(mt, xt, yt)
        for epoch in 1:30
            Flux.train!(lt, mt, Flux.DataLoader((xt, yt); batchsize=16), st)
        end
        l1 = lt(mt, xt, yt)
    """)
    assert z.eval("l1 < 0.1 * l0")
    assert "withgradient" not in z.rt.offload_reasons
    calls = sum(
        e.calls
        for k, e in z.rt.compile_cache.entries.items()
        if getattr(k[0][1][0][1], "name", None) == "withgradient"
    )
    assert calls == 30 * 4


def test_withgradient_do_block(z: Zyla) -> None:
    z.eval("""
        md = Dense(2 => 1)
        res = Flux.withgradient(md) do m
            sum(m([1.0f0, 2.0f0]))
        end
    """)
    val, grad = z.eval("res.val"), z.eval("res.grad[1]")
    assert val == pytest.approx(float(z.eval("sum(md.weight * [1.0f0, 2.0f0])")), rel=1e-6)
    np.testing.assert_allclose(grad["weight"], [[1.0, 2.0]])


def test_showprogress_draws_a_bar(z: Zyla, capfd: pytest.CaptureFixture[str]) -> None:
    z.eval("""
        acc = 0
        @showprogress "Training: " for i in 1:5
            global acc = acc + i
        end
        sq = @showprogress dt=0 map(x -> x^2, [1, 2, 3])
    """)
    err = capfd.readouterr().err
    assert z.eval("acc") == 15 and list(z.eval("sq")) == [1, 4, 9]
    assert "Training: 100%|" in err and "█" * 30 in err and "Time:" in err


def test_readdlm_and_dir(z: Zyla, tmp_path: Any) -> None:
    p = tmp_path / "t.csv"
    p.write_text("a,b,c\n1,2,3\n4,5,6\n")
    z.rt.safety_policy.allow_read.append(tmp_path.resolve())  # as --allow-read=tmp_path
    z.eval(f"dl, hdr = readdlm(\"{p}\", ',', Int; header=true)")
    assert (z.eval("dl") == np.array([[1, 2, 3], [4, 5, 6]])).all() and z.eval(
        "dl"
    ).dtype == np.int64
    assert list(z.eval("hdr").ravel()) == ["a", "b", "c"]
    assert z.eval(f"readdlm(\"{p}\", ',', Float32; skipstart=1)").dtype == np.float32
    with pytest.raises(ZylaError, match="SystemError"):
        z.eval("readdlm(\"/nonexistent/file.csv\", ',')")
    z.eval("dir_here() = @__DIR__")
    assert isinstance(z.eval("@__DIR__"), str)


def test_compiled_calls_see_in_place_updates(z: Zyla) -> None:
    """update! (and BatchNorm's running statistics) write into the model's arrays in
    place; the next compiled call must use the new values, not a cached device copy."""
    z.eval("""
        Random.seed!(9)
        mu = Chain(Dense(40 => 40, tanh), BatchNorm(40), Dense(40 => 1))
        xu = rand(Float32, 40, 64)
        lu(m, x) = sum(abs2, m(x))
        su = Flux.setup(Descent(0.1), mu)
        for i in 1:3
            gu = gradient(m -> lu(m, xu), mu)
            Flux.update!(su, mu, gu[1])
        end
        compiled_loss = lu(mu, xu)
        nothing
    """)
    host = z.rt.interp.call_value(z.rt.lookup("lu"), [z.rt.lookup("mu"), z.rt.lookup("xu")])
    assert z.eval("compiled_loss") == pytest.approx(float(host), rel=1e-5)


def test_flux016_recurrence_wrapper_and_the_removed_positional_form(z: Zyla) -> None:
    """Recurrence(cell) runs any cell over time as LSTM does; LSTM(2, 3) (Flux ≤ 0.14) is a
    clear error naming the form that replaced it, not a layer built from two integers."""
    y1, y2 = z.eval("Random.seed!(3); c = LSTMCell(2 => 3); xr = rand(Float32, 2, 4, 3);"
                    " (Recurrence(c)(xr), LSTM(c)(xr))")
    assert y1.shape == (3, 4, 3) and (y1 == y2).all()
    with pytest.raises(ZylaError, match=r"write LSTM\(2 => 3\)"):
        z.eval("LSTM(2, 3)")
    # Flux 0.16's reset!: a deprecation that returns the model unchanged
    assert z.eval("m_r = Chain(LSTM(3 => 4)); Flux.reset!(m_r) === m_r")


def test_trainstep_is_one_step_of_train(z: Zyla) -> None:
    """Flux.trainstep!(loss, model, batch, state) (Flux 0.16.11, also with a do block):
    the loss before the step, and the model updated as one train! step updates it."""
    out = z.eval("""
        Random.seed!(4)
        m1 = Dense(2 => 1); m2 = deepcopy(m1)
        xb, yb = rand(Float32, 2, 8), rand(Float32, 1, 8)
        s1, s2 = Flux.setup(Descent(0.1), m1), Flux.setup(Descent(0.1), m2)
        l0 = Flux.mse(m1(xb), yb)
        l = Flux.trainstep!(m1, (xb, yb), s1) do m, x, y
            Flux.mse(m(x), y)
        end
        Flux.train!((m, x, y) -> Flux.mse(m(x), y), m2, [(xb, yb)], s2)
        (l, l0, m1.weight, m2.weight)
    """)
    assert out[0] == pytest.approx(out[1], rel=1e-6)
    np.testing.assert_allclose(out[2], out[3], rtol=1e-6)
