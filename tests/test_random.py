"""Random numbers in compiled code (lang.core.builtins_random): `rand`/`randn` and dropout's
mask draw inside the executable, from a key each call takes from the global RNG.

Checked: two calls draw differently, `Random.seed!` reproduces them, calls never
recompile; every draw of a loop, a nested loop, a `while` condition and a broadcast gets
its own numbers; the draws have the distribution asked for; a compiled training step with
dropout uses one mask for its forward and backward passes; what stays on the host says so.
"""

from __future__ import annotations

import numpy as np
import pytest

from lang.core.structure import OffloadError
from lang.door.api import Zyla

SRC = """
using Random, Statistics, Flux
vec_u(n) = rand(n)
mat_n32(x) = x .+ randn(Float32, 3, 2)
dice(n) = rand(1:6, n)
function per_iteration(t)
    v = zeros(t)
    for i in 1:t
        v[i] = randn()
    end
    v
end
function nested(m, n)
    M = zeros(n, m)
    for j in 1:m
        for i in 1:n
            M[i, j] = rand()
        end
    end
    M
end
function geometric(x)
    k = 0
    while rand() < 0.75
        k += 1
    end
    k + x
end
per_element(x) = map(v -> v + rand(), x)
two_draws(n) = (rand(n), rand(n))
perm(n) = randperm(n)
"""


@pytest.fixture(scope="module")
def z() -> Zyla:
    s = Zyla()
    s.eval(SRC)
    return s


def builds(z: Zyla) -> int:
    return z.rt.compile_cache.builds


def test_calls_draw_anew_and_a_seed_reproduces_them(z: Zyla) -> None:
    z.eval("Random.seed!(7)")
    a = z.call("vec_u", 5, compiled=True)
    n0 = builds(z)
    b = z.call("vec_u", 5, compiled=True)
    assert not np.array_equal(a, b)
    z.eval("Random.seed!(7)")
    assert np.array_equal(z.call("vec_u", 5, compiled=True), a)
    assert np.array_equal(z.call("vec_u", 5, compiled=True), b)
    assert builds(z) == n0  # only the key changes between calls: no recompilation


def test_element_types_shapes_and_distributions(z: Zyla) -> None:
    y = z.call("mat_n32", np.zeros((3, 2), np.float32), compiled=True)
    assert y.dtype == np.float32 and y.shape == (3, 2) and len(np.unique(y)) == 6
    u = z.call("vec_u", 20000, compiled=True)
    assert u.dtype == np.float64 and 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    d = z.call("dice", 6000, compiled=True)
    assert d.dtype == np.int64 and set(np.unique(d)) == {1, 2, 3, 4, 5, 6}
    assert np.abs(np.bincount(d)[1:] / 6000 - 1 / 6).max() < 0.03


def test_every_loop_iteration_draws_its_own_numbers(z: Zyla) -> None:
    v = z.call("per_iteration", 5000, compiled=True)
    assert len(np.unique(v)) == 5000
    assert abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05
    # consecutive draws are uncorrelated
    assert abs(np.corrcoef(v[:-1], v[1:])[0, 1]) < 0.05
    m = z.call("nested", 40, 30, compiled=True)
    assert m.shape == (30, 40) and len(np.unique(m)) == 1200


def test_a_while_condition_draws_in_every_iteration(z: Zyla) -> None:
    ks = np.array([z.call("geometric", 0, compiled=True) for _ in range(400)])
    # P(k) = 0.25 * 0.75^k: mean 3
    assert len(np.unique(ks)) > 5 and abs(ks.mean() - 3) < 0.6


def test_broadcast_elements_and_separate_calls_draw_apart(z: Zyla) -> None:
    y = z.call("per_element", np.zeros(1000), compiled=True)
    assert len(np.unique(y)) == 1000
    a, b = z.call("two_draws", 100, compiled=True)
    assert not np.array_equal(a, b)


def test_compiled_dropout_step_uses_one_mask_forward_and_backward() -> None:
    z = Zyla()
    z.eval("""
        using Flux, Random
        Random.seed!(3)
        dr = Dropout(0.25)
        f(x) = sum(dr(x) .* x)
        g(x) = gradient(f, x)[1]
    """)
    x = np.full((200, 50), 2.0, dtype=np.float32)
    gr = z.call("g", x, compiled=True)
    # d/dx sum(mask .* x .* x) = 2 mask .* x, mask in {0, 1/0.75}
    assert set(np.unique(gr)) == {0.0, np.float32(2 * 2.0 / 0.75)}
    assert abs((gr == 0).mean() - 0.25) < 0.02
    assert not np.array_equal(gr, z.call("g", x, compiled=True))


def test_compiled_dropout_inside_a_model_argument() -> None:
    """A Dropout layer of a model passed to the executable (its `p` is then a traced
    field, as in `withgradient(m -> loss(m(x)), model)`) draws its mask in compiled code."""
    z = Zyla()
    z.eval("""
        using Flux, Random
        Random.seed!(3)
        model = Chain(Dropout(0.25))
        Flux.trainmode!(model)
        gx(m, x) = gradient(x -> sum(m(x) .* x), x)[1]
    """)
    x = np.full((200, 50), 2.0, dtype=np.float32)
    gr = z.call("gx", z.rt.lookup("model"), x, compiled=True)
    assert set(np.unique(gr)) == {0.0, np.float32(2 * 2.0 / 0.75)}
    assert abs((gr == 0).mean() - 0.25) < 0.02


def test_what_stays_on_the_host_says_why(z: Zyla) -> None:
    assert sorted(z.call("perm", 10)) == list(range(1, 11))
    # not folded into a constant of the executable: refused, with the reason
    with pytest.raises(OffloadError, match="randperm"):
        z.call("perm", 10, compiled=True)


CKPT_SRC = """
using Flux, Random
Random.seed!(3)
ckdr = Dropout(0.5)
Flux.trainmode!(ckdr)
masked(x) = sum(ckdr(x) .* x)
ck_masked(x) = @checkpoint masked(x)
vg_masked(x) = withgradient(ck_masked, x)
smooth(x) = sum(sin.(x) .^ 2 .* x)
ck_smooth(x) = @checkpoint smooth(x)
"""


@pytest.mark.parametrize("compiled", [False, True])
def test_a_checkpointed_call_draws_the_same_numbers_when_recomputed(compiled: bool) -> None:
    """The backward pass of `@checkpoint` recomputes the forward; its dropout mask must be
    the forward's, or the gradient is not the value's: with f = sum(mask .* x .* x),
    f = sum(∇f .* x) / 2 holds only for one mask."""
    z = Zyla()
    z.eval(CKPT_SRC)
    x = np.full(400, 2.0)
    r = z.call("vg_masked", x, compiled=compiled)
    grad = r["grad"][0]
    assert set(np.unique(grad)) == {0.0, 8.0}
    assert r["val"] == (grad * x).sum() / 2


def test_second_derivatives_through_a_checkpoint() -> None:
    """Forward over reverse (`hessian`) and reverse over reverse (`hessian_reverse`)
    through the replayed recomputation equal those of the plain function, on the host and
    compiled (both were an `UndefVarError: CHECKPOINT` before)."""
    z = Zyla()
    z.eval(CKPT_SRC)
    x = np.array([0.3, -1.2, 0.8])
    plain = z.eval(f"hessian(smooth, {x.tolist()})")
    np.testing.assert_allclose(z.eval(f"hessian(ck_smooth, {x.tolist()})"), plain, rtol=1e-12)
    np.testing.assert_allclose(z.eval(f"hessian_reverse(ck_smooth, {x.tolist()})"), plain,
                               rtol=1e-12)
    for h in ("hessian", "hessian_reverse"):
        np.testing.assert_allclose(z.call(h, z.rt.lookup("ck_smooth"), x, compiled=True),
                                   plain, rtol=1e-12)
