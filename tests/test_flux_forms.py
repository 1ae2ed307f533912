"""Flux as its documentation writes it (issue 19): a one-layer `Chain`, a `Chain` of a
vector of layers (its gradient equals the tuple form's), and `train!` given a rule
instead of an optimiser state (a fresh state, with Flux's warning, once)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snippets import session

from lang.door.api import Zyla

SRC = """
using Flux, Random
Random.seed!(3)
one_layer = Chain(Dense(2 => 1))
as_vector = Chain([Dense(2 => 3, tanh), Dense(3 => 1)])
as_tuple = Chain(as_vector.layers...)
lossv(x) = sum(as_vector(x))
grads(m, x) = gradient(m -> sum(m(x)), m)[1]
"""

def z() -> Zyla:
    return session(__name__, SRC)


def test_a_one_layer_chain_applies_its_layer() -> None:
    x = np.arange(6, dtype=np.float32).reshape(3, 2)  # 2×3 in Julia
    zz = z()
    zz.rt.globals["x1"] = np.ascontiguousarray(x)
    assert zz.eval("size(one_layer(x1))") == (1, 3)
    np.testing.assert_allclose(zz.eval("one_layer(x1)"), zz.eval("one_layer.layers[1](x1)"))


@settings(max_examples=10, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.floats(-2, 2, allow_subnormal=False), min_size=4, max_size=4))
def test_a_vector_chain_differentiates_as_the_tuple_chain(vals: list[float]) -> None:
    zz = z()
    zz.rt.globals["xg"] = np.array(vals, dtype=np.float32).reshape(2, 2)
    gv = zz.eval("grads(as_vector, xg)")
    gt = zz.eval("grads(as_tuple, xg)")
    for lv, lt in zip(gv["layers"], gt["layers"], strict=True):
        np.testing.assert_allclose(lv["weight"], lt["weight"], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(lv["bias"], lt["bias"], rtol=1e-6, atol=1e-7)
    assert zz.eval("lossv(xg)") == pytest.approx(zz.eval("sum(as_tuple(xg))"), rel=1e-6)


def test_train_with_a_rule_makes_a_state_and_warns_once(capsys: pytest.CaptureFixture) -> None:
    zz = Zyla()
    zz.eval("""
using Flux, Random
Random.seed!(1)
model = Chain(Dense(2 => 3, relu), Dense(3 => 1))
X = rand(Float32, 2, 16)
Y = sum(X; dims=1)
data = [(X, Y)]
loss(m, x, y) = Flux.mse(m(x), y)
before = loss(model, X, Y)
for epoch in 1:20
    Flux.train!(loss, model, data, Descent(0.1))
end
after = loss(model, X, Y)
""")
    assert zz.eval("after") < zz.eval("before")
    err = capsys.readouterr().err
    assert err.count("[ Warning: train!(loss, model, data, rule) makes a new optimiser") == 1


def test_typed_matrix_literal() -> None:
    zz = z()
    assert zz.eval("typeof(Float32[1 2; 3 4])") is not None
    assert zz.eval('string(typeof(Float32[1 2; 3 4]))') == "Matrix{Float32}"
    np.testing.assert_array_equal(zz.eval("Float32[1 2; 3 4]"), [[1, 2], [3, 4]])
