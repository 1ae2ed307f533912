"""Model benchmarks: VGG19, the MLP and a LeNet-style CNN in Zyla (bench/models.jl, with the
Flux-style library) against the same networks in plain JAX, with the same weights.

The JAX networks are built from the Zyla model's own arrays (`layer_spec`): Zyla keeps a
Julia array of size (m, n, ...) as a numpy array of reversed shape, so a Flux image batch
(W, H, C, N) is NCHW in numpy, a Conv weight (kW, kH, Cin, Cout) is OIHW, and a Dense
weight (out, in) is (in, out) — JAX uses them as they are (Flux's Conv flips its kernel:
the JAX side gets the flipped copy, made once outside the timing). Before timing, each
pair is checked to compute the same values.

Both sides are timed as a user calls them: Zyla's `compiled_call` takes host arrays and
returns host arrays; the JAX side calls the jitted function and converts every result with
`np.asarray` (so both end with host arrays).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from common import BENCH, Row, field, interleaved, jax_setup, row, zyla_session

MODELS_JL = (BENCH / "models.jl").read_text()
ETA = 0.01


# --- the Zyla side --------------------------------------------------------------------------

def zyla_model(prelude: str, build: str) -> tuple[Any, Any]:
    """(runtime, model): models.jl loaded after `prelude`, then `model = <build>` run."""
    rt = zyla_session(MODELS_JL + f"\nRandom.seed!(0)\nmodel = {build}\n", "models.jl", prelude)
    return rt, rt.lookup("model")


def layer_spec(model: Any) -> tuple[list[tuple], list[tuple]]:
    """The static description and the parameter arrays of a Zyla Chain, for JAX:
    spec items are ("conv", pad, relu), ("pool",), ("flatten",), ("dense", relu)."""
    spec: list[tuple] = []
    params: list[tuple] = []
    for layer in field(model, "layers"):
        kind = getattr(getattr(layer, "type", None), "name", None)
        if kind == "Conv":
            act = getattr(field(layer, "σ"), "name", "identity")
            pad = field(layer, "pad")
            pad = pad if isinstance(pad, int) else pad[0]
            w = field(layer, "weight")
            spec.append(("conv", pad, act.endswith("relu")))
            params.append((np.ascontiguousarray(w[:, :, ::-1, ::-1]), field(layer, "bias")))
        elif kind == "MaxPool":
            spec.append(("pool",))
        elif kind == "Dense":
            act = getattr(field(layer, "σ"), "name", "identity")
            spec.append(("dense", act.endswith("relu")))
            params.append((field(layer, "weight"), field(layer, "bias")))
        elif getattr(layer, "name", None) == "flatten":
            spec.append(("flatten",))
        else:
            raise ValueError(f"bench: unexpected layer {layer!r}")
    return spec, params


# --- the JAX side ---------------------------------------------------------------------------

def jax_functions(spec: list[tuple]) -> dict[str, Any]:
    """Plain-JAX forward, loss, gradient and SGD step of the network `spec` describes."""
    jax = jax_setup()
    import jax.numpy as jnp
    from jax import lax

    def forward(params: list, x: Any) -> Any:
        k = 0
        for item in spec:
            if item[0] == "conv":
                w, b = params[k]
                k += 1
                p = item[1]
                x = lax.conv_general_dilated(x, w, (1, 1), ((p, p), (p, p)),
                                             dimension_numbers=("NCHW", "OIHW", "NCHW"))
                x = x + b[None, :, None, None]
                if item[2]:
                    x = jnp.maximum(x, 0)
            elif item[0] == "pool":
                x = lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
            elif item[0] == "flatten":
                x = x.reshape(x.shape[0], -1)
            else:
                w, b = params[k]
                k += 1
                x = x @ w + b
                if item[1]:
                    x = jnp.maximum(x, 0)
        return x

    def loss(params: list, x: Any, y: Any) -> Any:
        z = forward(params, x)
        return -jnp.sum(y * jax.nn.log_softmax(z, axis=1)) / z.shape[0]

    def step(params: list, x: Any, y: Any) -> Any:
        g = jax.grad(loss)(params, x, y)
        return jax.tree_util.tree_map(lambda p, d: p - jnp.asarray(ETA, p.dtype) * d, params, g)

    return {"forward": forward, "loss": loss, "grad": jax.grad(loss), "step": step}


def to_host(tree: Any) -> Any:
    jax = jax_setup()
    return jax.tree_util.tree_map(np.asarray, tree)


def relative_error(a: Any, b: Any) -> float:
    """The largest difference of a and b relative to b's largest entry."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    scale = max(float(np.max(np.abs(b))), 1e-30)
    return float(np.max(np.abs(a - b))) / scale


def _close(a: Any, b: Any, what: str, tol: float = 2e-3) -> float:
    """relative_error(a, b), asserted < tol."""
    err = relative_error(a, b)
    assert err < tol, f"{what}: Zyla and JAX differ (max error {err:.2e} of the largest entry)"
    return err


# Float32 gradients through VGG19's 19 layers summed in different orders (the cost model
# may pick other convolution formulations than JAX's) differ by up to ~1e-2 of the largest
# entry; the measured difference is reported with the rows
GRAD_TOL = 2e-2


class Pair:
    """One network on both sides, with data, ready to time."""

    def __init__(self, prelude: str, build: str, x: np.ndarray, y: np.ndarray) -> None:
        from backend.compile import compiled_call

        jax = jax_setup()
        self.call = compiled_call
        self.rt, self.model = zyla_model(prelude, build)
        self.spec, params = layer_spec(self.model)
        self.x, self.y = x, y  # Zyla layout = JAX layout (batch first)
        self.jf = jax_functions(self.spec)
        self.params = jax.tree_util.tree_map(jax.numpy.asarray, params)
        self.jx, self.jy = jax.numpy.asarray(x), jax.numpy.asarray(y)
        self.jit = {k: jax.jit(f) for k, f in self.jf.items()}
        self.eta = np.float32(ETA)

    def z(self, name: str, *args: Any) -> Any:
        return self.call(self.rt, self.rt.lookup(name), list(args))

    # the timed calls
    def z_forward(self) -> Any:
        return self.z("forward", self.model, self.x)

    def j_forward(self) -> Any:
        return np.asarray(self.jit["forward"](self.params, self.jx))

    def z_grad(self) -> Any:
        return self.z("lossgrad", self.model, self.x, self.y)

    def j_grad(self) -> Any:
        return to_host(self.jit["grad"](self.params, self.jx, self.jy))

    def z_step(self) -> Any:
        return self.z("train_step", self.model, self.x, self.y, self.eta)

    def j_step(self) -> Any:
        return to_host(self.jit["step"](self.params, self.jx, self.jy))

    def check(self, what: tuple[str, ...]) -> dict[str, float]:
        """Assert that both sides compute the same forward pass, loss and gradients;
        return the largest relative differences seen ({"forward": e, "grad": e, ...})."""
        self.errors: dict[str, float] = {}
        if "forward" in what:
            self.errors["forward"] = _close(self.z_forward(), self.j_forward(), "forward")
        if "loss" in what:
            zl = self.z("loss", self.model, self.x, self.y)
            jl = float(self.jf["loss"](self.params, self.jx, self.jy))
            assert abs(zl - jl) <= 1e-3 * max(1.0, abs(jl)), ("loss", zl, jl)
        if "grad" in what:
            zg = self.z_grad()
            jg = self.j_grad()
            self._compare_params(zg, jg, "gradient")
        if "step" in what:
            zm = self.z_step()
            jm = self.j_step()
            self._compare_params(zm, jm, "SGD step")
        return self.errors

    def _compare_params(self, ztree: Any, jparams: list, what: str) -> None:
        """Compare a Zyla gradient/model tree (NamedTuples or structs) with JAX's list."""
        layers = ztree.get("layers") if hasattr(ztree, "get") else field(ztree, "layers")
        k = 0
        for item, zl in zip(self.spec, layers, strict=True):
            if item[0] not in ("conv", "dense"):
                continue
            zw = zl.get("weight") if hasattr(zl, "get") else field(zl, "weight")
            zb = zl.get("bias") if hasattr(zl, "get") else field(zl, "bias")
            jw, jb = jparams[k]
            if item[0] == "conv":
                jw = np.asarray(jw)[:, :, ::-1, ::-1]
            e = max(_close(zw, jw, f"{what}: weight of layer {k + 1}", GRAD_TOL),
                    _close(zb, jb, f"{what}: bias of layer {k + 1}", GRAD_TOL))
            self.errors[what] = max(self.errors.get(what, 0.0), e)
            k += 1


def _data(shape: tuple, nclasses: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    y = np.zeros((shape[0], nclasses), np.float32)
    y[np.arange(shape[0]), rng.integers(0, nclasses, shape[0])] = 1
    return x, y


# --- the groups -----------------------------------------------------------------------------

def vgg_setup(quick: bool) -> tuple[str, str, str, np.ndarray, np.ndarray]:
    """(prelude, model expression, size label, x, y) of the VGG benchmark: VGG19 at
    224×224, batch 4, or for --quick a three-block stand-in at 32×32, batch 2."""
    side, batch = (32, 2) if quick else (224, 4)
    prelude = f"side, batch = {side}, {batch}\n"
    build = ("vgg(vgg_quick_config, side, 1000, 64)" if quick
             else "vgg(vgg19_config, side, 1000)")
    label = ("quick stand-in: 3 blocks, 32×32, batch 2" if quick
             else "224×224, batch 4")
    x, y = _data((batch, 3, side, side), 1000)
    return prelude, build, label, x, y


def vgg_pair(quick: bool) -> Pair:
    prelude, build, _label, x, y = vgg_setup(quick)
    return Pair(prelude, build, x, y)


def bench_vgg(quick: bool, reps: int) -> list[Row]:
    p = vgg_pair(quick)
    size = vgg_setup(quick)[2]
    err = p.check(("forward", "grad"))  # also compiles both sides
    n = max(2, reps // 4) if quick else reps
    fz, fj = interleaved(p.z_forward, p.j_forward, n, warmup=0)
    gz, gj = interleaved(p.z_grad, p.j_grad, n, warmup=0)
    return [
        row("vgg", f"VGG19 forward ({size}, Float32)", fz * 1e3, fj * 1e3, "ms", "≤ 1.0",
            f"outputs agree to {err['forward']:.1e} of the largest"),
        row("vgg", f"VGG19 forward+backward, cross-entropy ({size})", gz * 1e3, gj * 1e3, "ms",
            "≤ 0.7", f"every weight and bias gradient agrees to {err['gradient']:.1e} of its "
            "largest entry"),
        row("vgg", "VGG19 gradient/forward time (Zyla | JAX)", gz / fz, gj / fj, "×",
            note="ratio column: Zyla's grad/forward over JAX's"),
    ]


def mlp_pair() -> Pair:
    x, y = _data((128, 784), 10)
    return Pair("", "mlp()", x, y)


def lenet_pair(batch: int = 128) -> Pair:
    x, y = _data((batch, 1, 28, 28), 10)
    return Pair("", "lenet()", x, y)


def _train_rows(group: str, label: str, p: Pair, reps: int, inner: int, target: str) -> list[Row]:
    p.check(("forward", "loss", "grad", "step"))
    fz, fj = interleaved(p.z_forward, p.j_forward, reps, warmup=2, inner=inner)
    gz, gj = interleaved(p.z_grad, p.j_grad, reps, warmup=2, inner=inner)
    sz, sj = interleaved(p.z_step, p.j_step, reps, warmup=2, inner=inner)
    return [
        row(group, f"{label} forward", fz * 1e3, fj * 1e3, "ms"),
        row(group, f"{label} SGD step (gradient + update, one executable)", sz * 1e3, sj * 1e3,
            "ms", target),
        row(group, f"{label} gradient/forward time (Zyla | JAX)", gz / fz, gj / fj, "×",
            note="gradient alone vs forward; ratio column: Zyla's over JAX's"),
    ]


def bench_mlp(quick: bool, reps: int) -> list[Row]:
    return _train_rows("mlp", "MLP 784-512-512-10, batch 128, Float32:", mlp_pair(),
                       reps, 5, "≤ 1.0")


def bench_cnn(quick: bool, reps: int) -> list[Row]:
    return _train_rows("cnn", "LeNet-5 CNN, 28×28×1, batch 128, Float32:", lenet_pair(),
                       reps, 3, "≤ 0.7")
