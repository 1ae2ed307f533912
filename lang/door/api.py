"""Zyla from Python: load code, call its functions on numpy arrays, differentiate, compile.

Arrays cross the boundary with their Julia size equal to their numpy shape: a numpy
array of shape (m, n) is the Julia m×n matrix (internally Zyla stores it with the axes
reversed, see lang.core.values; the conversion here is a transpose).

    z = Zyla()
    z.eval("f(x) = sum(x .^ 2)")
    z.call("f", np.array([1.0, 2.0]))          # 5.0, on the host interpreter
    z.call("f", x, compiled=True)              # the same, as one XLA executable
    z.gradient("f", x)                         # (array([2., 4.]),)
    z.jax_primal("f", x)                       # a JAX function of the arguments: an oracle
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from backend.compile import compiled_call
from backend.lower_jax import JaxInterpreter
from lang.core import current
from lang.core import values as V
from lang.core.functions import Closure
from lang.core.safety import configure, set_program
from lang.core.structure import join, split
from lang.door.wiring import Runtime


def to_zyla(x: Any) -> Any:
    """A Python/numpy value as a Zyla host value."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return to_zyla(x[()])
        return np.ascontiguousarray(np.transpose(x))
    if isinstance(x, np.floating) and x.dtype == np.float64:
        return float(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, tuple):
        return tuple(to_zyla(v) for v in x)
    if isinstance(x, list):
        return tuple(to_zyla(v) for v in x)
    if isinstance(x, dict):
        return V.NamedTuple(tuple(x), tuple(to_zyla(v) for v in x.values()))
    return x


def from_zyla(x: Any) -> Any:
    """A Zyla host value as Python/numpy (arrays get numpy shape = Julia size)."""
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            out = np.empty(x.size, dtype=object)
            for i, v in enumerate(x.reshape(-1)):  # (one by one: tuples stay elements)
                out[i] = from_zyla(v)
            return out.reshape(x.shape).T
        return np.ascontiguousarray(np.transpose(x))
    if isinstance(x, V.Range):
        return x.to_array()
    if isinstance(x, tuple):
        return tuple(from_zyla(v) for v in x)
    if isinstance(x, V.NamedTuple):
        return {k: from_zyla(v) for k, v in zip(x.names, x.values, strict=False)}
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return from_zyla(np.asarray(x)) if np.ndim(x) else np.asarray(x)[()]
    return x


class Zyla:
    """One Zyla session (its own globals). Its programs pass the same file gate as
    `zyla run` (lang.core.safety); `allow_read`/`allow_write` add paths, as the CLI's
    `--allow-read`/`--allow-write` do."""

    def __init__(self, allow_read: Sequence[str] = (), allow_write: Sequence[str] = (),
                 allow_shell: bool = False) -> None:
        self.rt = Runtime()
        self.rt.current_file = "<python>"
        configure(self.rt, None, [str(p) for p in allow_read], [str(p) for p in allow_write],
                  allow_shell)

    def eval(self, code: str, filename: str = "<python>") -> Any:
        current.make_current(self.rt)
        return from_zyla(self.rt.run_source(code, filename))

    def load(self, path: str) -> None:
        """Run the file at `path`; its folder becomes readable, as for `zyla run`."""
        current.make_current(self.rt)
        self.rt.current_file = path
        set_program(self.rt, path)
        with open(path, encoding="utf-8") as f:
            self.rt.run_source(f.read(), path)

    def function(self, name: str) -> Any:
        return self.rt.lookup(name)

    def _f(self, f: str | Any) -> Any:
        return self.rt.lookup(f) if isinstance(f, str) else f

    def call(self, f: str | Any, *args: Any, compiled: bool = False,
             tiered: bool = False) -> Any:
        """f(args...) on the host interpreter alone, or (`compiled`) as one XLA
        executable, or (`tiered`) as a call made by a program runs: on the host, with the
        calls it makes at any depth compiled where the tiering policy says so."""
        current.make_current(self.rt)  # (another Zyla may have been made since)
        fn = self._f(f)
        zargs = [to_zyla(a) for a in args]
        if compiled:
            return from_zyla(compiled_call(self.rt, fn, zargs))
        if tiered:
            return from_zyla(self.rt.interp.call_value(fn, zargs))
        with self.rt.interp.host_only():
            return from_zyla(self.rt.interp.call_value(fn, zargs))

    def gradient(self, f: str | Any, *args: Any, compiled: bool = False) -> tuple:
        """Zygote's `gradient(f, args...)`: a tuple with `None` for non-differentiable args."""
        return self.call(self.rt.lookup("gradient"), self._f(f), *args, compiled=compiled)

    def pullback(self, f: str | Any, *args: Any) -> tuple[Any, Callable[[Any], tuple]]:
        current.make_current(self.rt)
        y, back = self.rt.interp.call_value(self.rt.lookup("pullback"),
                                            [self._f(f)] + [to_zyla(a) for a in args])
        return from_zyla(y), lambda dy: from_zyla(self.rt.interp.call_value(back, [to_zyla(dy)]))

    def jax_primal(self, f: str | Any, *example: Any) -> Callable[..., Any]:
        """f lowered to a JAX-traceable function of its (array/float) arguments, without
        jit: JAX's own AD of it (`jax.grad`) is an oracle independent of Zyla's AD."""
        fn = self._f(f)
        zex = [to_zyla(a) for a in example]
        leaves, skel = split((fn, tuple(zex)), static_ints=True)
        rt = self.rt

        def primal(*xs: Any) -> Any:
            import jax.numpy as jnp

            interp = JaxInterpreter(rt, early_exit=False)
            lv = [jnp.transpose(jnp.asarray(x)) if np.ndim(x) else x for x in xs]
            g, a = join(skel, lv)
            return interp.call_value(g, list(a))

        return primal

    def explain(self, f: str) -> str | None:
        """Why the last call of `f` ran on the host instead of compiled (None if it did not)."""
        return self.rt.offload_reasons.get(f)


_ = Closure
