"""Flux.Losses beyond the basic set (lang/core/stdlib/flux.jl).

Each loss is checked against its documented Flux formula written out here in numpy, on
drawn inputs; gradients are checked against central finite differences. Bad keywords
must raise a Zyla error (Flux's ArgumentError / DomainError), never a value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from backend.compile import compiled_call
from grammar.errors import ZylaError
from lang.door.api import Zyla
from lang.door.gradcheck import grad_leaves

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


# --- layers: containers, Bilinear, embeddings, grouped and transposed convolutions --------------

def _host_and_compiled_gradients(z: Zyla, f: str, *names: str) -> None:
    """gradient(f, args...) on the interpreter and as one XLA executable agree leaf by leaf."""
    rt = z.rt
    args = [rt.lookup(n) for n in names]
    grad = rt.lookup("gradient")
    with rt.interp.host_only():
        host = rt.interp.call_value(grad, [rt.lookup(f)] + args)
    comp = compiled_call(rt, grad, [rt.lookup(f)] + args)
    for a, gh, gc in zip(args, host, comp, strict=True):
        hs, cs = grad_leaves(a, gh), grad_leaves(a, gc)
        assert len(hs) == len(cs) and any(np.abs(h).sum() > 0 for h in hs)
        for h, c in zip(hs, cs, strict=True):
            np.testing.assert_allclose(c, h, rtol=1e-9, atol=1e-12)


def test_containers_and_embeddings(z: Zyla) -> None:
    """Named and Vector Chains, Parallel, PairwiseFusion, Bilinear, Embedding(padding_idx),
    EmbeddingBag and destructure: values, gradients (finite differences), compiled."""
    z.eval("""using GradCheck
        sq(m, a...) = sum(abs2, m(a...))
        nch = f64(Chain(enc = Dense(2 => 3, tanh), dec = Dense(3 => 2)))
        vch = Chain([nch[1], nch[2]])
        par = f64(Parallel(vcat, a = Dense(2 => 3, tanh), b = Dense(1 => 2)))
        pf = f64(PairwiseFusion(+, Dense(2 => 3, tanh), Dense(3 => 2)))
        bl = f64(Flux.Bilinear((3, 2) => 4, tanh))
        emb = f64(Embedding(5 => 3; padding_idx = 2))
        bag = f64(EmbeddingBag(5 => 3, maximum))
        xa, xb, xc = randn(2, 4), randn(1, 4), randn(3, 4)""")
    assert z.eval("nch[:enc] === nch.layers.enc === nch[1] && nch(xa) ≈ vch(xa)")
    assert z.eval("Flux.activations(nch, xa) == (nch[1](xa), nch(xa))")
    assert z.eval("gradient(m -> sq(m, xa), nch)[1].layers.dec.bias ≈ "
                  "gradient(m -> sq(m, xa), vch)[1].layers[2].bias")
    assert z.eval("par(xa, xb) == vcat(par[:a](xa), par[:b](xb)) && "
                  "Parallel(/, abs)(3, -4) ≈ 0.75")
    assert z.eval("PairwiseFusion(vcat, v -> v .+ 1, v -> v .+ 2)(7) == (8, [10, 9])")
    assert z.eval("bl(xc, xa) ≈ tanh.([sum(bl.weight[o, i, j] * xc[i, b] * xa[j, b] "
                  "for i in 1:3, j in 1:2) for o in 1:4, b in 1:4] .+ bl.bias)")
    assert z.eval("all(emb([1, 2, 3])[:, 2] .== 0) && emb(Flux.OneHotVector(4, 5)) ≈ emb(4)")
    assert z.eval("bag([1, 3, 2, 4], [1, 3]) ≈ hcat(bag([1, 3]), bag([2, 4]))")
    assert z.eval("flat, re = Flux.destructure(nch); length(flat) == 17 && "
                  "re(flat)(xa) ≈ nch(xa) && re(2 .* flat).layers.dec.bias ≈ 2 .* nch[2].bias")
    z.eval("loss2(m, a, b) = sum(abs2, m((a, b))[2])")
    for f, args in [("sq", "nch, xa"), ("loss2", "pf, xa, xc"), ("sq", "par, xa, xb"),
                    ("sq", "bl, xc, xa"), ("sq", "f64(Flux.Bilinear(3 => 2)), xc"),
                    ("sq", "emb, [1 2; 2 4]"),
                    ("sq", "bag, [1 2; 3 3; 5 1]"), ("sq", "bag, [1, 2, 2, 4], [1, 3]"),
                    ("v -> sum(abs2, re(v)(xa))", "flat")]:
        assert z.eval(f"gradcheck({f}, {args}; oracle = false)"), (f, args)
    # the padding column gets no gradient; Float64 input to Float32 layers has one
    assert z.eval("all(gradient(m -> sq(m, [2, 2, 3]), emb)[1].weight[:, 2] .== 0)")
    assert z.eval("gradient(x -> sum(Dense(2 => 3)(x)), [1.0, 2.0])[1] isa Vector{Float64}")
    _host_and_compiled_gradients(z, "loss2", "pf", "xa", "xc")
    _host_and_compiled_gradients(z, "sq", "par", "xa", "xb")
    _host_and_compiled_gradients(z, "sq", "bl", "xc", "xa")
    for src, err in [("Chain(layers = Dense(2 => 2))", "ArgumentError"),
                     ("Parallel(hcat, connection = sin)", "ArgumentError"),
                     ("Parallel(+, sin, cos)(1, 2, 3)", "ArgumentError"),
                     ("Flux.Bilinear(rand(3, 4), false)", "ArgumentError"),
                     ("Embedding(5 => 2; padding_idx = 6)", "ArgumentError"),
                     ("bag(3)", "ErrorException"), ("bag([1, 2], [2])", "ArgumentError"),
                     ("re(ones(3))", "DimensionMismatch")]:
        with pytest.raises(ZylaError) as e:
            z.eval(src)
        assert e.value.kind == err, src


def test_grouped_depthwise_and_transposed_convolutions(z: Zyla) -> None:
    """groups against an ungrouped convolution with a block-diagonal kernel; ConvTranspose's
    outpad against the padding it replaces, SamePad with stride (negative padding: zeros
    around the output); gradients against finite differences, compiled against host."""
    z.eval("""using GradCheck
        sq(m, a...) = sum(abs2, m(a...))
        cx = randn(7, 4, 2)
        gc = f64(Conv((3,), 4 => 6, tanh; groups = 2, stride = 2, pad = 1))
        W = zeros(3, 4, 6)
        W[:, 1:2, 1:3] = gc.weight[:, :, 1:3]; W[:, 3:4, 4:6] = gc.weight[:, :, 4:6]
        ct = f64(ConvTranspose((3,), 4 => 6, relu; groups = 2, stride = 2, pad = 1, outpad = 1))
        Wt = zeros(3, 6, 4)
        Wt[:, 1:3, 1:2] = ct.weight[:, :, 1:2]; Wt[:, 4:6, 3:4] = ct.weight[:, :, 3:4]
        cs = f64(ConvTranspose((2,), 4 => 3; stride = 3, pad = SamePad()))
        dw = f64(DepthwiseConv((2,), 2 => 4; pad = 1))""")
    assert z.eval("gc(cx) ≈ Conv(W, gc.bias, tanh; stride = 2, pad = 1)(cx)")
    assert z.eval("size(ct(cx)) == (14, 6, 2) && "
                  "ct(cx) ≈ ConvTranspose(Wt, ct.bias, relu; stride = 2, pad = (1, 0))(cx)")
    assert z.eval("cs.pad == (0, -1) && cs(cx) ≈ cat(ConvTranspose(cs.weight, cs.bias; "
                  "stride = 3)(cx), zeros(1, 3, 2) .+ reshape(cs.bias, 1, 3, 1); dims = 1)")
    assert z.eval("dw isa Conv && dw.groups == 2 && size(dw.weight) == (2, 1, 4) && "
                  "size(DepthwiseConv(rand(2, 3, 4, 5, 6), rand(30)).weight) == (2, 3, 4, 1, 30)")
    assert z.eval("(Flux._channels_in(ct), Flux._channels_out(ct)) == (4, 6) && "
                  "Flux._channels_in(gc) == 4")
    assert z.eval('occursin("groups=2", sprint(show, ct))')
    for m, x in [("gc", "cx"), ("ct", "cx"), ("cs", "cx"), ("dw", "cx[:, 1:2, :]")]:
        assert z.eval(f"gradcheck(sq, {m}, {x}; oracle = false)"), m
    _host_and_compiled_gradients(z, "sq", "gc", "cx")
    _host_and_compiled_gradients(z, "sq", "ct", "cx")
    _host_and_compiled_gradients(z, "sq", "cs", "cx")
    for src, err in [("Conv((2,), 3 => 4; groups = 2)", "AssertionError"),
                     ("DepthwiseConv((2, 2), 3 => 10)", "AssertionError"),
                     ("Conv((3,), 1 => 1; init = (_...) -> rand(3, 1))", "DimensionMismatch"),
                     ("gc(randn(7, 3, 2))", "DimensionMismatch")]:
        with pytest.raises(ZylaError) as e:
            z.eval(src)
        assert e.value.kind == err, src


def test_upsample_and_pixel_shuffle(z: Zyla) -> None:
    """NNlib's documented examples; gradients against finite differences, compiled."""
    z.eval("""using GradCheck
        ux = reshape(Float32[1 2 3; 4 5 6], (2, 3, 1, 1))
        px = [10i + j + channel / 10 for i in 1:2, j in 1:3, channel in 1:4, batch in 1:1]
        ua = randn(3, 2, 4, 1)
        uloss(a) = sum(abs2, Upsample(:bilinear; scale = (2, 3))(a)) +
                   sum(abs2, PixelShuffle(2)(a .* a)[:, :, 1, 1] .* (1:4)')
        ubil = Float32[1 1.25 1.5 1.75 2 2.25 2.5 2.75 3; 2 2.25 2.5 2.75 3 3.25 3.5 3.75 4;
                       3 3.25 3.5 3.75 4 4.25 4.5 4.75 5; 4 4.25 4.5 4.75 5 5.25 5.5 5.75 6]""")
    assert z.eval("upsample_bilinear(ux, (2, 3))[:, :, 1, 1] == ubil == "
                  "Upsample(:bilinear; size = (4, 9))(ux)[:, :, 1, 1]")
    assert z.eval("size(upsample_bilinear(ux, (2.5, 3.5))) == (5, 10, 1, 1)")
    assert z.eval("Upsample(2)(ux)[:, :, 1, 1] == repeat(ux[:, :, 1, 1]; inner = (2, 2))")
    assert z.eval("PixelShuffle(2)(px)[:, :, 1, 1] ≈ [11.1 11.3 12.1 12.3 13.1 13.3; "
                  "11.2 11.4 12.2 12.4 13.2 13.4; 21.1 21.3 22.1 22.3 23.1 23.3; "
                  "21.2 21.4 22.2 22.4 23.2 23.4]")
    assert z.eval("pixel_shuffle([i + c / 10 for i in 1:3, c in 1:6, b in 1:1], 2)[:, :, 1] ≈ "
                  "[1.1 1.3 1.5; 1.2 1.4 1.6; 2.1 2.3 2.5; 2.2 2.4 2.6; 3.1 3.3 3.5; 3.2 3.4 3.6]")
    assert z.eval("Upsample(:trilinear; scale = (1, 1, 3))(reshape([0.0, 3.0], 1, 1, 2, 1, 1))"
                  "[1, 1, :, 1, 1] ≈ (0:5) .* 0.6")
    for f, x in [("uloss", "ua"), ("a -> sum(abs2, Upsample(3)(a) .* (1:9))", "randn(3, 2, 1)")]:
        assert z.eval(f"gradcheck({f}, {x}; oracle = false)"), f
    np.testing.assert_allclose(z.gradient("uloss", z.eval("ua"), compiled=True)[0],
                               z.gradient("uloss", z.eval("ua"))[0], rtol=1e-9)
    for src in ["PixelShuffle(2)(randn(2, 2, 3, 1))", "Upsample(:cubic; scale = 2)",
                "Upsample(:nearest; scale = 2, size = (4, 4))",
                "Upsample(:nearest; size = (3, 3))(ux)"]:
        with pytest.raises(ZylaError) as e:
            z.eval(src)
        assert e.value.kind == "ArgumentError", src


def test_second_derivatives_through_layers(z: Zyla) -> None:
    """A layer called inside a nested gradient: forward-over-reverse and reverse-over-reverse
    Hessians agree with the same network written as a function of its arrays, and the
    gradient of a gradient penalty with respect to the model matches finite differences."""
    z.eval("""using GradCheck
        hnet = f64(Chain(Dense(3 => 4, tanh), Dense(4 => 2)))
        hx = [0.5, -1.0, 2.0]
        hplain(x) = sum(hnet[2].weight * tanh.(hnet[1].weight * x .+ hnet[1].bias) .+ hnet[2].bias)
        penalty(m) = sum(abs2, gradient(x -> sum(m(x)), hx)[1])
        hessians_agree() = (H = hessian(hplain, hx);
                            hessian(sum ∘ hnet, hx) ≈ H && hessian_reverse(sum ∘ hnet, hx) ≈ H)""")
    assert z.call("hessians_agree")  # (on the interpreter: compiling three Hessians is slow)
    assert z.eval("gradcheck(penalty, hnet; oracle = false)")


def test_multi_head_attention(z: Zyla) -> None:
    """MultiHeadAttention and dot_product_attention against attention written out head by
    head as comprehensions; the causal mask; gradients against finite differences and
    compiled against host; Flux's errors for sizes that do not split into heads."""
    z.eval("""using GradCheck
        mha = f64(MultiHeadAttention((3, 2, 4) => (6, 4) => 5; nheads = 2, bias = true))
        xq, xk, xv = randn(3, 4, 2), randn(2, 3, 2), randn(4, 3, 2)
        function by_hand(m, xq, xk, xv; causal = false)
            q, k, v = m.q_proj(xq), m.k_proj(xk), m.v_proj(xv)
            hq, hv = size(q, 1) ÷ m.nheads, size(v, 1) ÷ m.nheads
            x = zeros(size(v, 1), size(q, 2), size(q, 3))
            for b in 1:size(q, 3), h in 1:m.nheads, j in 1:size(q, 2)
                qs, vs = (h - 1) * hq .+ (1:hq), (h - 1) * hv .+ (1:hv)
                s = [causal && i > j ? -Inf : sum(k[qs, i, b] .* q[qs, j, b]) / sqrt(hq)
                     for i in 1:size(k, 2)]
                a = exp.(s .- maximum(s)) ./ sum(exp.(s .- maximum(s)))
                x[vs, j, b] = sum(a[i] .* v[vs, i, b] for i in 1:size(k, 2))
            end
            m.out_proj(x)
        end""")
    assert z.eval("y, α = mha(xq, xk, xv); size(y) == (5, 4, 2) && size(α) == (3, 4, 2, 2)")
    assert z.eval("mha(xq, xk, xv)[1] ≈ by_hand(mha, xq, xk, xv)")
    assert z.eval("all(sum(mha(xq, xk, xv)[2]; dims = 1) .≈ 1)")
    z.eval("self = f64(MultiHeadAttention(4; nheads = 2)); xs = randn(4, 3, 2)")
    assert z.eval("self(xs; mask = make_causal_mask(xs))[1] ≈ "
                  "by_hand(self, xs, xs, xs; causal = true)")
    assert z.eval("make_causal_mask(xs) == [true true true; false true true; false false true]")
    z.eval("att(m, a, b, c) = sum(abs2, m(a, b, c)[1])")
    assert z.eval("gradcheck(att, mha, xq, xk, xv; oracle = false)")
    _host_and_compiled_gradients(z, "att", "mha", "xq", "xk", "xv")
    for src in ["MultiHeadAttention(6; nheads = 4)",
                "dot_product_attention(xq, xq, xq; nheads = 2)"]:
        with pytest.raises(ZylaError) as e:
            z.eval(src)
        assert e.value.kind == "ArgumentError", src


def test_hessian_dual_and_jacobian_element_types() -> None:
    """`Zygote.hessian_dual` (forward over reverse) was undefined; a Jacobian's element
    type is promote_type of x's and y's, as Zygote's (a Float32 function's is Float32)."""
    z = Zyla()
    z.rt.compile_mode = "never"  # (the host's answers; compiling them takes seconds)
    got = z.eval("using Zygote; f(x) = sum(x .^ 3)\n"
                 "(Zygote.hessian_dual(f, [1.0, 2.0]) == Zygote.hessian_reverse(f, [1.0, 2.0]),"
                 " Zygote.hessian_dual(f, [1.0, 2.0]) == [6.0 0.0; 0.0 12.0],"
                 " eltype(jacobian(x -> x .^ 2, Float32[1, 2])[1]),"
                 " eltype(jacobian(x -> [x[1], 2x[1], x[2]], Float32[1, 2])[1]),"
                 " eltype(jacobian(x -> 2x, [1, 2])[1]))")
    assert got[:2] == (True, True)
    assert [str(t) for t in got[2:]] == ["Float32", "Float32", "Float64"]


def test_gruv3_initialisers_and_operator_arguments(z: Zyla) -> None:
    """Flux 0.16's GRUv3Cell against its formula written out (the reset gate scales the
    recurrent term before a second recurrent matrix), GRUv3 over a sequence with a gradient
    against finite differences; `orthogonal` (orthonormal columns or rows, `gain`),
    `truncated_normal` within its bounds, `nfan`; an operator as the first argument of a
    call with keywords (`Parallel(+; a = ...)`, a ParseError before)."""
    z.eval("""using GradCheck, LinearAlgebra
        g3 = f64(GRUv3Cell(2 => 3)); g3x = [0.3, -0.7]; g3h = [0.1, 0.2, -0.4]
        sg(t) = 1 / (1 + exp(-t))
        g3r = sg.(g3.Wi[1:3, :] * g3x .+ g3.bias[1:3] .+ g3.Wh[1:3, :] * g3h)
        g3z = sg.(g3.Wi[4:6, :] * g3x .+ g3.bias[4:6] .+ g3.Wh[4:6, :] * g3h)
        g3t = tanh.(g3.Wi[7:9, :] * g3x .+ g3.bias[7:9] .+ g3.Wh_h̃ * (g3r .* (g3.Wh[7:9, :] * g3h)))
        g3seq = f64(GRUv3(2 => 3; return_state = true)); g3xs = randn(2, 4, 2)""")
    assert z.eval("g3(g3x, g3h)[1] ≈ (1 .- g3z) .* g3t .+ g3z .* g3h")
    assert z.eval("map(size, g3seq(g3xs)) == ((3, 4, 2), (3, 2))")
    assert z.eval("gradcheck(m -> sum(abs2, first(m(g3xs))), g3seq; oracle = false)")
    assert z.eval("W = Flux.orthogonal(5, 3); V = Flux.orthogonal(2, 4; gain = 2); "
                  "eltype(W) == Float32 && W' * W ≈ I(3) && V * V' ≈ 4I(2) && "
                  "size(Flux.orthogonal(2, 3, 4)) == (2, 3, 4)")
    assert z.eval("t = Flux.truncated_normal(500; std = 3); all(-2 .<= t .<= 2) && "
                  "Flux.nfan(3, 4) == (4, 3) && Flux.nfan((2, 2, 3, 4)) == (12, 16)")
    assert z.eval("p = Parallel(+; a = Dense(2 => 2), b = Dense(2 => 2)); "
                  "x = rand(Float32, 2); p(x) ≈ p.layers.a(x) + p.layers.b(x)")
