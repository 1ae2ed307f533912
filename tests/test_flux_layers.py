"""Flux.Losses beyond the basic set (lang/core/stdlib/flux.jl).

Each loss is checked against its documented Flux formula written out here in numpy, on
drawn inputs; gradients are checked against central finite differences. Bad keywords
must raise a Zyla error (Flux's ArgumentError / DomainError), never a value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from grammar.errors import ZylaError
from lang.door.api import Zyla

RNG = np.random.default_rng(2026)
EPS = np.finfo(np.float64).eps


@pytest.fixture(scope="module")
def z() -> Zyla:
    s = Zyla()
    s.eval("using Flux")
    return s


def _bfl(p: np.ndarray, y: np.ndarray) -> float:
    """Flux binary_focal_loss, gamma=2, mean."""
    pe = p + EPS
    pt = y * pe + (1 - y) * (1 - pe)
    return float(np.mean((1 - pt) ** 2 * -np.log(pt)))


def _fl(p: np.ndarray, y: np.ndarray) -> float:
    """Flux focal_loss, gamma=2, dims=1, mean over columns."""
    pe = p + EPS
    return float(np.mean(np.sum(-y * (1 - pe) ** 2 * np.log(pe), axis=0)))


def _tversky(p: np.ndarray, y: np.ndarray, b: float = 0.7) -> float:
    """Flux tversky_loss."""
    num = np.sum(y * p) + 1
    den = np.sum(y * p + b * (1 - y) * p + (1 - b) * y * (1 - p)) + 1
    return float(1 - num / den)


REFS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "hinge_loss": lambda p, y: float(np.mean(np.maximum(0, 1 - p * y))),
    "squared_hinge_loss": lambda p, y: float(np.mean(np.maximum(0, 1 - p * y) ** 2)),
    "poisson_loss": lambda p, y: float(np.mean(p - y * np.log(p))),
    "dice_coeff_loss": lambda p, y: float(
        1 - (2 * np.sum(y * p) + 1) / (np.sum(y**2) + np.sum(p**2) + 1)),
    "tversky_loss": _tversky,
    "binary_focal_loss": _bfl,
    "focal_loss": _fl,
    "siamese_contrastive_loss": lambda p, y: float(
        np.mean((1 - y) * p**2 + y * np.maximum(0, 1 - p) ** 2)),
}


@pytest.mark.parametrize("name", sorted(REFS))
def test_loss_matches_flux_formula(z: Zyla, name: str) -> None:
    p = RNG.uniform(0.05, 0.95, size=(3, 4))
    y = (RNG.uniform(size=(3, 4)) > 0.5).astype(float)
    got = z.call(z.eval(f"Flux.{name}"), p, y)
    assert np.isclose(float(got), REFS[name](p, y), rtol=1e-10)


@pytest.mark.parametrize("name", sorted(REFS))
def test_loss_gradient_vs_finite_differences(z: Zyla, name: str) -> None:
    p = RNG.uniform(0.1, 0.9, size=(3, 2))
    y = (RNG.uniform(size=(3, 2)) > 0.5).astype(float)
    g = np.asarray(z.call(z.eval(f"(p, y) -> gradient(q -> Flux.{name}(q, y), p)[1]"), p, y))
    h = 1e-6
    fd = np.zeros_like(p)
    for i in np.ndindex(p.shape):
        d = np.zeros_like(p)
        d[i] = h
        fd[i] = (REFS[name](p + d, y) - REFS[name](p - d, y)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def test_flux_documented_values(z: Zyla) -> None:
    """Values from Flux's own tests (losses.jl)."""
    assert np.isclose(z.eval("Flux.tversky_loss([0 1.4 0.5 1.2], [1.0 0.5 0.3 2.4])"),
                      -0.06772009029345383)
    assert np.isclose(z.eval("Flux.dice_coeff_loss([0 1.4 0.5 1.2], [1.0 0.5 0.3 2.4])"),
                      0.2799999999999999)
    src = "Flux.siamese_contrastive_loss([0.6, 0.4, 0.1, 0.2, 0.7], [1, 0, 0, 1, 1])"
    assert np.isclose(z.eval(src), 0.21200000000000005)


def test_label_smoothing(z: Zyla) -> None:
    y = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    got = np.asarray(z.call(z.eval("y -> Flux.label_smoothing(y, 0.3)"), y))
    np.testing.assert_allclose(got, y * 0.7 + 0.3 / 3)
    got0 = np.asarray(z.eval("Flux.label_smoothing([0.0, 1.0], 0.2; dims=0)"))
    np.testing.assert_allclose(got0, [0.1, 0.9])


@pytest.mark.parametrize("src", [
    "Flux.label_smoothing([0.0, 1.0], 1.5)",
    "Flux.label_smoothing([0.0, 1.0], 0.2; dims=2)",
    "Flux.siamese_contrastive_loss([0.5], [1.0]; margin=-1)",
])
def test_bad_arguments_raise(z: Zyla, src: str) -> None:
    with pytest.raises(ZylaError):
        z.eval(src)


def test_xlogx_xlogy(z: Zyla) -> None:
    assert z.eval("xlogx(0)") == 0.0 and z.eval("xlogx(0) isa Float64")
    assert np.isnan(z.eval("xlogx(NaN)"))
    assert np.isclose(z.eval("xlogy(2, 3)"), 2 * np.log(3))
    assert z.eval("xlogy(0, 1)") == 0.0
    assert np.isnan(z.eval("xlogy(0, NaN)")) and np.isnan(z.eval("xlogy(NaN, 1)"))


@pytest.mark.parametrize("name", ["huber_loss", "tversky_loss", "mse", "hinge_loss"])
def test_float32_losses_stay_float32(z: Zyla, name: str) -> None:
    assert z.eval(f"Flux.{name}(Float32[0.3, 0.6], Float32[0.2, 0.9]) isa Float32")
    assert z.eval(f"eltype(gradient(p -> Flux.{name}(p, Float32[0.2, 0.9]), "
                  "Float32[0.3, 0.6])[1]) == Float32")


def test_huber_delta(z: Zyla) -> None:
    assert np.isclose(z.eval("Flux.huber_loss([1.0, 3.0], [1.5, 1.0])"), (0.125 + 1.5) / 2)
    assert np.isclose(z.eval("Flux.huber_loss([1.0, 3.0], [1.5, 1.0]; delta=2)"),
                      (0.125 + 2.0) / 2)


def test_isapprox_mixed_precision_uses_the_looser_rtol(z: Zyla) -> None:
    """Julia: the default rtol is the larger of the operands' sqrt(eps)."""
    assert z.eval("1.1277556f0 ≈ 1.1277571935622628")
    assert not z.eval("1.0 ≈ 1.0 + 1e-7")
    assert not z.eval("1.0f0 ≈ 1.001")


def test_test_throws_with_an_exception_value(z: Zyla) -> None:
    z.eval("using Test")
    call = 'Flux.siamese_contrastive_loss([0.5], [1.0]; margin=-1)'
    msg = '"Margin must be non-negative"'
    z.eval(f'@testset "ok" begin @test_throws DomainError(-1, {msg}) {call} end')
    with pytest.raises(ZylaError):
        z.eval(f'@testset "bad" begin @test_throws DomainError(-2, {msg}) {call} end')


def test_activations_and_its_gradient(z: Zyla) -> None:
    z.eval("anet = Chain(Dense(3 => 5, tanh), Dense(5 => 2)); ax = Float32[0.5, -1.0, 2.0]")
    assert z.eval("Flux.activations(anet, ax) == (anet[1](ax), anet(ax))")
    g1 = z.eval("gradient(c -> Flux.activations(c, ax)[2][1], anet)[1].layers[1].weight")
    g2 = z.eval("gradient(c -> c(ax)[1], anet)[1].layers[1].weight")
    np.testing.assert_allclose(np.asarray(g1), np.asarray(g2), rtol=1e-6)


def test_scale_and_maxout(z: Zyla) -> None:
    assert z.eval("Flux.Scale(2)([1 2]) == [1 2; 1 2]")
    assert z.eval("Flux.Scale(2, abs2; bias = false, init = ones)([1 2; 3 4]) == [1 4; 9 16]")
    assert z.eval("size(Flux.Scale(2, 3; bias = false)(rand(2, 1, 4))) == (2, 3, 4)")
    with pytest.raises(ZylaError):
        z.eval("Flux.Scale(10)(randn(2))")
    assert z.eval("mx = rand(40); Maxout(() -> identity, 4)(mx) == mx")
    z.eval("mo = Maxout(Dense([1.0 2.0], [0.0]), Dense([-1.0 0.5], [0.0]))")
    assert z.eval("mo([1.0, 1.0]) == [3.0]")
    g = z.eval("gradient(m -> sum(m([1.0, 1.0])), mo)[1].layers")
    np.testing.assert_allclose(np.asarray(g[0]["weight"]), [[1.0, 1.0]])
    gs = z.eval("gradient(s -> sum(s([1.0, 2.0])), Flux.Scale([3.0, 4.0], [0.5, 0.5]))[1]")
    np.testing.assert_allclose(np.asarray(gs["scale"]), [1.0, 2.0])
    np.testing.assert_allclose(np.asarray(gs["bias"]), [1.0, 1.0])
