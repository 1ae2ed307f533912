"""`@code_ir`, `@code_typed`, `@code_adjoint` and `@code_hlo`: what each stage made of a call.

`@code_typed` is abstract interpretation of the IR: the compile tier's interpreter runs
the method under `jax.eval_shape`, so every SSA value gets its Julia type (with array
ranks) without computing anything.
"""

from __future__ import annotations

from typing import Any

from autodiff.reverse import forward
from backend.compile import lower_text
from backend.lower_jax import JaxInterpreter
from grammar.errors import ZylaError
from lang.core import values as V
from lang.core.functions import Closure, GenericFunction, typeof
from lang.core.ir import Function, format_function, format_module
from lang.core.numeric import jax_numpy
from lang.core.primitives import HostOnly, prim
from lang.core.structure import join, split


def method_body(f: Any, args: list) -> Function:
    """The IR function a call f(args...) runs."""
    if isinstance(f, GenericFunction):
        m = f.dispatch([typeof(a) for a in args])
        if m.fn is None:
            raise ZylaError("ArgumentError", f"`{f.name}` is a built-in primitive; it has no IR")
        return m.fn
    if isinstance(f, Closure):
        return f.fn
    raise ZylaError("ArgumentError", f"no IR for a value of type {typeof(f)}")


def code_ir(rt: Any, f: Any, *args: Any) -> None:
    rt.stdout.write(format_module(method_body(f, list(args))) + "\n")


def code_adjoint(rt: Any, f: Any, *args: Any) -> None:
    rt.stdout.write(format_module(forward(method_body(f, list(args)))) + "\n")


def code_typed(rt: Any, f: Any, *args: Any) -> None:
    rt.stdout.write(typed_text(rt, f, list(args)) + "\n")


def typed_text(rt: Any, f: Any, args: list) -> str:
    import jax

    jax_numpy()  # 64-bit types before any array is made
    fn = method_body(f, args)
    leaves, skel = split((f, tuple(args)), static_ints=True)

    class Recorder(JaxInterpreter):
        def run_region(self, region: Any, env: dict, fn_: Function) -> list:
            out = super().run_region(region, env, fn_)
            if fn_ is fn:
                for a in region.args:
                    if a.id in env:
                        a.type = typeof(env[a.id])
                for op in region.ops:
                    for r in op.results:
                        if r.id in env:
                            r.type = typeof(env[r.id])
            return out

    def run(leaves_: list) -> Any:
        interp = Recorder(rt)
        g, a = join(skel, leaves_)
        out = interp.call_value(g, list(a))
        return split(out)[0]

    import jax.numpy as jnp

    jax.eval_shape(run, [jnp.asarray(x) for x in leaves])
    return format_function(fn, types=True)


def result_type(rt: Any, f: Any, elts: list) -> Any:
    """The type of `f(x1, ..., xn)` for numbers xi of the types elts (Julia's number
    types), by abstract interpretation (the compile tier's interpreter under
    `jax.eval_shape`: nothing is computed), or None where it cannot tell: f runs on the
    host (prints, or reads a Dict), gives something other than a number, or reassigns a
    variable it captured (its trace would leave a traced value in it)."""
    import jax

    if isinstance(f, Closure) and any(isinstance(c, V.Box) for c in f.captures):
        return None
    jax_numpy()
    specs = [jax.ShapeDtypeStruct((), V.JTYPE_TO_DTYPE[t]) for t in elts]

    def run(xs: list) -> Any:
        return JaxInterpreter(rt).call_value(f, list(xs))

    try:
        out = jax.eval_shape(run, specs)
    except Exception:  # noqa: BLE001 -- any failure of the trace means "cannot tell"
        return None
    if not isinstance(out, jax.ShapeDtypeStruct) or out.shape != ():
        return None
    return V.DTYPE_TO_JTYPE.get(out.dtype)


def code_hlo(rt: Any, f: Any, *args: Any) -> None:
    rt.stdout.write(lower_text(rt, f, list(args)) + "\n")


def install(rt: Any) -> None:
    for name, impl in (("code_ir", code_ir), ("code_typed", code_typed),
                       ("code_adjoint", code_adjoint), ("code_hlo", code_hlo)):
        rt.builtins[f"Core.{name}"] = prim(
            f"Core.{name}", lambda *a, _impl=impl: _impl(rt, *a),
            HostOnly("printing runs on the host"), "nondifferentiable", lambda *a: None)
