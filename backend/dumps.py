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


def code_hlo(rt: Any, f: Any, *args: Any) -> None:
    rt.stdout.write(lower_text(rt, f, list(args)) + "\n")


def install(rt: Any) -> None:
    for name, impl in (("code_ir", code_ir), ("code_typed", code_typed),
                       ("code_adjoint", code_adjoint), ("code_hlo", code_hlo)):
        rt.builtins[f"Core.{name}"] = prim(
            f"Core.{name}", lambda *a, _impl=impl: _impl(rt, *a),
            HostOnly("printing runs on the host"), "nondifferentiable", lambda *a: None)
