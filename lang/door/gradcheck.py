"""Gradient checks: reverse-mode AD against central finite differences and `jax.grad`.

`check(rt, f, args)` differentiates `f(args...)` (which must return a real number) with
Zyla's AD on the host and compares every partial derivative with a central finite
difference in the arguments' own precision, and — where the call can be traced to JAX —
with `jax.grad` of the lowered primal (JAX's AD knows nothing of Zyla's, so it is an
independent oracle). A partial derivative agrees when `|ad - ref| <= atol + rtol *
max(|ad|, |ref|)`; the result names the worst mismatch.

`run_property(rt, f, specs)` is the declarative form: it draws the arguments with
hypothesis from declared types, shapes and ranges (`ArgSpec`), checks each draw, shrinks
a failure to a minimal input and reports it as Zyla source. In the language:

    using GradCheck
    gradcheck(f, [1.0, 2.0], 0.5)                     # true / false
    @gradcheck f(x::Vector{Float64}(3) in (-1, 1), y::Float64 in (0.1, 2))  examples=100

Under `zyla gradcheck FILE.jl [FUNC]` the `@gradcheck` properties of the file are
collected while it runs (`Collector`) and run afterwards.

Differentiable leaves are the floating-point numbers and float arrays inside the
arguments (through tuples, NamedTuples and struct fields); integers, booleans and other
values are held fixed. Array leaves are in Zyla's internal layout (see lang.core.values);
element paths in reports use Julia's 1-based indices.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from backend.lower_jax import JaxInterpreter
from grammar import ast as A
from grammar.errors import ZylaError
from grammar.unparse import unparse
from lang.core import values as V
from lang.core.functions import Closure, GenericFunction, call_label, typeof
from lang.core.macros import MACROS
from lang.core.numeric import jax_numpy
from lang.core.primitives import NONDIFF, HostOnly, prim
from lang.core.show import jl_show
from lang.core.structure import is_adjoint_row
from lang.door.strategies import zyla_value

# ---- leaves -------------------------------------------------------------------------------------


def _is_float_array(v: Any) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


def _is_float(v: Any) -> bool:
    return type(v) is float or isinstance(v, np.floating)


def float_leaves(v: Any, path: str = "") -> list[tuple[str, Any]]:
    """The differentiable leaves of a value, in a fixed order, with their paths."""
    if _is_float(v) or _is_float_array(v):
        return [(path, v)]
    if isinstance(v, tuple):
        out: list[tuple[str, Any]] = []
        for i, x in enumerate(v):
            out += float_leaves(x, f"{path}[{i + 1}]")
        return out
    if isinstance(v, V.NamedTuple):
        out = []
        for k, x in zip(v.names, v.values, strict=False):
            out += float_leaves(x, f"{path}.{k}")
        return out
    if isinstance(v, V.StructValue):
        out = []
        for k, x in zip(v.type.fields, v.fields, strict=False):
            out += float_leaves(x, f"{path}.{k}")
        return out
    return []


def replace_leaves(v: Any, new: Iterator[Any]) -> Any:
    """`v` with its differentiable leaves replaced, in `float_leaves` order."""
    if _is_float(v) or _is_float_array(v):
        return next(new)
    if isinstance(v, tuple):
        return tuple(replace_leaves(x, new) for x in v)
    if isinstance(v, V.NamedTuple):
        return V.NamedTuple(v.names, tuple(replace_leaves(x, new) for x in v.values))
    if isinstance(v, V.StructValue):
        return V.StructValue(v.type, [replace_leaves(x, new) for x in v.fields])
    return v


def grad_leaves(v: Any, g: Any) -> list[np.ndarray]:
    """The cotangent `g` (Zygote's convention: `nothing` is zero, a struct's is a
    NamedTuple) as float64 arrays aligned with `float_leaves(v)`."""
    if _is_float(v) or _is_float_array(v):
        shape = np.shape(v)
        if g is None:
            return [np.zeros(shape)]
        if isinstance(g, V.Range):
            g = g.to_array()
        arr = np.asarray(g, dtype=np.float64)
        if arr.shape != shape:
            if arr.size == int(np.prod(shape)):
                arr = arr.reshape(shape)
            else:
                raise ZylaError("DimensionMismatch", f"gradient has shape {arr.shape[::-1]}, "
                                f"argument {tuple(shape)[::-1]}")
        return [arr]
    if isinstance(v, tuple):
        gs = g if isinstance(g, tuple) and len(g) == len(v) else (None,) * len(v)
        return [a for x, gx in zip(v, gs, strict=False) for a in grad_leaves(x, gx)]
    if isinstance(v, (V.NamedTuple, V.StructValue)):
        names = v.names if isinstance(v, V.NamedTuple) else v.type.fields
        vals = v.values if isinstance(v, V.NamedTuple) else v.fields
        gmap = dict(zip(g.names, g.values, strict=False)) if isinstance(g, V.NamedTuple) else {}
        if isinstance(g, V.StructValue):  # (a Complex's cotangent as a Complex)
            gmap = dict(zip(g.type.fields, g.fields, strict=False))
        return [a for k, x in zip(names, vals, strict=False) for a in grad_leaves(x, gmap.get(k))]
    return []


def _element_path(path: str, leaf: Any, k: int) -> str:
    """The Julia index of element k (flat, internal order) of an array leaf."""
    if not isinstance(leaf, np.ndarray) or leaf.ndim == 0:
        return path
    idx = np.unravel_index(k, leaf.shape)[::-1]
    return f"{path}[{', '.join(str(int(i) + 1) for i in idx)}]"


# ---- Zyla source of values ----------------------------------------------------------------------


def to_source(v: Any) -> str:
    """A value written as Zyla source that evaluates to it (for counterexamples)."""
    if isinstance(v, np.ndarray) and (v.ndim > 2 or (v.ndim == 2 and v.shape[0] == 1)):
        # (an n×1 matrix too: Julia writes it `[a; b;;]`, which Zyla does not parse)
        flat = np.ascontiguousarray(v).reshape(-1)
        size = ", ".join(str(d) for d in v.shape[::-1])
        return f"reshape({jl_show(flat)}, {size})"
    if isinstance(v, tuple):
        inner = ", ".join(to_source(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, V.NamedTuple):
        inner = ", ".join(f"{k} = {to_source(x)}" for k, x in zip(v.names, v.values, strict=False))
        return f"({inner},)" if len(v.names) == 1 else f"({inner})"
    if isinstance(v, V.StructValue):
        return f"{v.type.name}({', '.join(to_source(x) for x in v.fields)})"
    return jl_show(v)


# ---- checking one input -------------------------------------------------------------------------


@dataclass
class Mismatch:
    """One partial derivative: AD, the finite difference, the JAX oracle (if run)."""

    path: str
    ad: float
    fd: float
    oracle: float | None
    score: float  # |ad - ref| / (atol + rtol * max(|ad|, |ref|)); > 1 means disagreement

    def describe(self) -> str:
        parts = [f"AD = {_num(self.ad)}", f"finite differences = {_num(self.fd)}"]
        if self.oracle is not None:
            parts.append(f"jax.grad = {_num(self.oracle)}")
        return f"∂/∂{self.path}: " + ", ".join(parts)


def _num(x: float) -> str:
    """A number as Julia shows it, rounded to 10 significant digits (finite
    differences are not exact; the noise beyond that helps no one)."""
    x = float(x)
    return jl_show(float(f"{x:.10g}") if math.isfinite(x) else x)


@dataclass
class GradCheckResult:
    """The outcome of one gradient check. Truthy when AD agrees with the references."""

    ok: bool
    call: str
    worst: Mismatch | None = None
    checked: int = 0
    oracle: str = "not run"  # "agrees", "disagrees", or why it was not run
    error: str | None = None  # f or its gradient raised
    value: Any = None

    def __bool__(self) -> bool:
        return self.ok

    def report(self) -> str:
        """A few lines for a person: what was checked and, on failure, the worst
        mismatch."""
        if self.error is not None:
            return f"gradcheck {self.call}: error: {self.error}"
        head = (f"gradcheck {self.call}: {'passed' if self.ok else 'FAILED'} "
                f"({self.checked} partial derivative{'s' if self.checked != 1 else ''}; "
                f"jax.grad oracle: {self.oracle})")
        if self.worst is None:
            return head
        label = "worst mismatch" if not self.ok else "largest difference"
        return f"{head}\n  {label}: {self.worst.describe()}"

    __str__ = report

    def __repr__(self) -> str:
        return f"<GradCheckResult {self.report()}>"


def _scalar(y: Any) -> float | None:
    if isinstance(y, (bool, np.bool_)):
        return None
    if isinstance(y, (int, float, np.integer, np.floating)):
        return float(y)
    if isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind in "if":
        return float(y)
    return None


def _call(rt: Any, f: Any, args: list) -> Any:
    return rt.interp.call_value(f, list(args))


def _fd_step(x: float, dtype: np.dtype, eps: float | None) -> float:
    if eps is None:
        eps = 1e-6 if dtype == np.float64 else 1e-2
    return eps * max(1.0, abs(x))


def param_names(f: Any, args: list) -> list[str]:
    """The parameter names of the method `f(args...)` calls (`arg1`, ... if unknown)."""
    fallback = [f"arg{i + 1}" for i in range(len(args))]
    try:
        if isinstance(f, GenericFunction):
            fn = f.dispatch([typeof(a) for a in args]).fn
        elif isinstance(f, Closure):
            fn = f.fn
        else:
            return fallback
    except ZylaError:
        return fallback
    if fn is None:
        return fallback
    names = fn.params[fn.ncaptures: len(fn.params) - fn.nkw]
    out = [n if n and not n.startswith("#") else d for n, d in zip(names, fallback, strict=False)]
    return out + fallback[len(out):]


def check(rt: Any, f: Any, args: list, *, atol: float = 1e-5, rtol: float = 1e-4,
          eps: float | None = None, oracle: bool = True,
          names: list[str] | None = None) -> GradCheckResult:
    """Check Zyla's gradient of `f` at `args` (host values) against central finite
    differences and, if `oracle`, `jax.grad` of the lowered primal. Errors raised by `f`
    or by its gradient are reported in the result (not raised). `names` name the
    arguments in the report (default: the method's parameter names)."""
    call = call_label(f, args)
    try:
        y = _call(rt, f, args)
    except ZylaError as e:
        return GradCheckResult(False, call, error=f"{e.kind}: {e.message}")
    fy = _scalar(y)
    if fy is None:
        return GradCheckResult(False, call, error="f must return a real number, got a "
                               + V.type_name(typeof(y)))
    leaves = float_leaves(tuple(args))
    try:
        grads = rt.interp.call_value(rt.lookup("gradient"), [f] + list(args))
        ad = grad_leaves(tuple(args), tuple(grads) if isinstance(grads, tuple) else grads)
    except ZylaError as e:
        return GradCheckResult(False, call, error=f"gradient: {e.kind}: {e.message}", value=fy)
    fd = [_finite_differences(rt, f, args, i, leaf, eps) for i, (_, leaf) in enumerate(leaves)]
    orc: list[np.ndarray] | None = None
    note = "not run"
    if oracle and leaves:
        orc, note = jax_oracle(rt, f, args)
    worst: Mismatch | None = None
    ok = True
    checked = 0
    oracle_ok = True
    names = names or param_names(f, args)
    for i, (path, leaf) in enumerate(leaves):
        path = _named_path(path, names)
        a = np.asarray(ad[i], dtype=np.float64).reshape(-1)
        d = np.asarray(fd[i], dtype=np.float64).reshape(-1)
        o = np.asarray(orc[i], dtype=np.float64).reshape(-1) if orc is not None else None
        tol_a, tol_r = _tolerances(leaf, atol, rtol)
        if eps is None and any(_score(a[k], d[k], tol_a, tol_r) > 1 for k in range(a.size)):
            d = _closer(a, d, _fine_differences(rt, f, args, i, leaf), tol_a, tol_r)
        for k in range(a.size):
            checked += 1
            refs = [d[k]] + ([o[k]] if o is not None else [])
            scores = [_score(a[k], r, tol_a, tol_r) for r in refs]
            score = max(scores)
            if o is not None and scores[1] > 1:
                oracle_ok = False
            if scores[0] > 1 or (o is not None and scores[1] > 1):
                ok = False
            if worst is None or score > worst.score:
                worst = Mismatch(_element_path(path, leaf, k), float(a[k]), float(d[k]),
                                 None if o is None else float(o[k]), score)
    if orc is not None:
        note = "agrees" if oracle_ok else "disagrees"
    return GradCheckResult(ok, call, worst, checked, note, value=fy)


def _named_path(path: str, names: list[str]) -> str:
    """`[2][3]` (element 3 of the second argument) as `y[3]` with the argument's name."""
    end = path.find("]")
    if not path.startswith("[") or end < 0:
        return path
    i = int(path[1:end]) - 1
    return (names[i] if i < len(names) else f"arg{i + 1}") + path[end + 1:]


def _tolerances(leaf: Any, atol: float, rtol: float) -> tuple[float, float]:
    dt = leaf.dtype if isinstance(leaf, np.ndarray | np.floating) else np.dtype(np.float64)
    if dt != np.float64:  # Float32 arguments: finite differences are far less precise
        return max(atol, 1e-2), max(rtol, 1e-2)
    return atol, rtol


def _score(a: float, r: float, atol: float, rtol: float) -> float:
    if not (math.isfinite(a) and math.isfinite(r)):
        return 0.0 if (a == r or (math.isnan(a) and math.isnan(r))) else math.inf
    return abs(a - r) / (atol + rtol * max(abs(a), abs(r)))


def _fine_differences(rt: Any, f: Any, args: list, index: int, leaf: Any) -> np.ndarray:
    """Central differences of f in leaf number `index` with the step Zygote's own
    gradcheck takes, sqrt(eps) of the leaf's precision (relative to |x| beyond 1): a
    second estimate where the default step straddles a kink the derivative does not see
    (a loop's stopping test, Zygote #796)."""
    is_np = isinstance(leaf, np.ndarray | np.floating)
    dtype = np.dtype(leaf.dtype) if is_np else np.dtype(np.float64)
    fine = float(np.sqrt(np.finfo(dtype).eps))
    fd = _finite_differences(rt, f, args, index, leaf, fine)
    return np.asarray(fd, dtype=np.float64).reshape(-1)


def _closer(ad: np.ndarray, fd: np.ndarray, fine: np.ndarray, atol: float,
            rtol: float) -> np.ndarray:
    """Per element, whichever finite difference agrees better with AD."""
    return np.array([c if _score(x, c, atol, rtol) < _score(x, b, atol, rtol) else b
                     for x, b, c in zip(ad, fd, fine, strict=True)])


def _finite_differences(rt: Any, f: Any, args: list, index: int, leaf: Any,
                        eps: float | None) -> np.ndarray:
    """Central differences of f in every element of leaf number `index`."""
    return one_sided_differences(rt, f, args, index, leaf, eps, central_only=True)[0]


def one_sided_differences(rt: Any, f: Any, args: list, index: int, leaf: Any,
                          eps: float | None, *,
                          central_only: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(central, forward, backward) differences of f in every element of leaf number
    `index`. Where forward and backward differ, f has a kink there (e.g. a branch
    boundary within the step), so no finite difference is a derivative. With
    `central_only` the one-sided ones are not computed (returned as zeros)."""
    base = float_leaves(tuple(args))
    is_np = isinstance(leaf, np.ndarray | np.floating)
    dtype = np.dtype(leaf.dtype) if is_np else np.dtype(np.float64)
    flat = np.array(leaf, dtype=dtype).reshape(-1)
    central, forward, backward = np.zeros(flat.size), np.zeros(flat.size), np.zeros(flat.size)
    y0 = math.nan if central_only else (_scalar(_call(rt, f, list(args))) or 0.0)
    for k in range(flat.size):
        x = float(flat[k])
        h = _fd_step(x, dtype, eps)
        vals = []
        for sgn in (1.0, -1.0):
            pert = flat.copy()
            pert[k] = dtype.type(x + sgn * h)
            hk = float(pert[k]) - x
            new = _with_leaf(leaf, pert)
            items = [new if j == index else v for j, (_, v) in enumerate(base)]
            a2 = replace_leaves(tuple(args), iter(items))
            y = _scalar(_call(rt, f, list(a2)))
            vals.append((y if y is not None else math.nan, hk))
        (yp, hp), (ym, hm) = vals
        central[k] = (yp - ym) / (hp - hm) if hp != hm else 0.0
        if not central_only:
            forward[k] = (yp - y0) / hp if hp else 0.0
            backward[k] = (y0 - ym) / -hm if hm else 0.0
    return central, forward, backward


def _with_leaf(leaf: Any, flat: np.ndarray) -> Any:
    if isinstance(leaf, np.ndarray):  # (an ndarray subclass, `v'` of a vector, stays one)
        return flat.reshape(leaf.shape).view(type(leaf))
    if isinstance(leaf, np.floating):
        return leaf.dtype.type(flat[0])
    return float(flat[0])


def jax_oracle(rt: Any, f: Any, args: list) -> tuple[list[np.ndarray] | None, str]:
    """`jax.grad` of f lowered to JAX (an oracle independent of Zyla's AD), aligned with
    `float_leaves(args)`; (None, reason) when it does not apply (host-only constructs,
    `while` loops, which JAX cannot differentiate in reverse)."""
    _, grads, note = jax_value_and_grad(rt, f, args)
    return grads, note


def jax_value_and_grad(rt: Any, f: Any,
                       args: list) -> tuple[float | None, list[np.ndarray] | None, str]:
    """`jax.value_and_grad` of f lowered to JAX: (value, gradients aligned with
    `float_leaves(args)`, note); (None, None, reason) when it does not apply."""
    try:
        import jax
        import jax.numpy as jnp

        jax_numpy()  # (configures JAX as Zyla needs it)
        leaves = [v for _, v in float_leaves(tuple(args))]

        def primal(xs: list) -> Any:
            a2 = replace_leaves(tuple(args), iter(xs))
            interp = JaxInterpreter(rt, early_exit=False)
            for host, traced in zip(leaves, xs, strict=True):
                if is_adjoint_row(host):  # `v'` of a vector stays a row in the trace
                    interp.adjoint_rows[id(traced)] = traced
            y = interp.call_value(f, list(a2))
            return jnp.asarray(y, dtype=jnp.float64).reshape(())

        xs = [jnp.asarray(x) for x in leaves]
        # one executable, compiled without XLA's optimisation passes: much faster to build
        # than eager op-by-op dispatch of a fresh program, and it computes the same values
        vg = jax.jit(jax.value_and_grad(primal)).lower(xs).compile(
            compiler_options={"xla_backend_optimization_level": 0})
        value, grads = vg(xs)
        return float(value), [np.asarray(g, dtype=np.float64) for g in grads], "agrees"
    except ZylaError as e:
        return None, None, f"not applicable ({e.kind}: {e.message})"
    except Exception as e:  # an OffloadError or a JAX limitation
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "while_loop" in first or "Reverse-mode differentiation does not work" in first:
            first = "a while loop (JAX cannot differentiate it in reverse)"
        return None, None, f"not applicable ({first[:160]})"


# ---- declared properties ------------------------------------------------------------------------


@dataclass
class ArgSpec:
    """One declared argument: `x::Vector{Float64}(3) in (-1, 1)`. `size` is Julia's size
    (empty for a scalar); integers are drawn from the range and held fixed."""

    name: str
    eltype: str = "Float64"  # Float64 | Float32 | Int64 | Bool
    size: tuple[int, ...] = ()
    lo: float = -1.0
    hi: float = 1.0

    def source(self) -> str:
        if not self.size:
            t = self.eltype
        elif len(self.size) == 1:
            t = f"Vector{{{self.eltype}}}({self.size[0]})"
        elif len(self.size) == 2:
            t = f"Matrix{{{self.eltype}}}({self.size[0]}, {self.size[1]})"
        else:
            t = f"Array{{{self.eltype}}}({', '.join(map(str, self.size))})"
        return f"{self.name}::{t} in ({_num(self.lo)}, {_num(self.hi)})"


@dataclass
class PropertyResult:
    """The outcome of a declared property: examples tried, and on failure the shrunk
    counterexample (as Zyla source) and the check at it."""

    ok: bool
    name: str
    text: str
    examples: int = 0
    counterexample: str | None = None
    detail: GradCheckResult | None = None

    def __bool__(self) -> bool:
        return self.ok

    def report(self) -> str:
        if self.ok:
            return f"@gradcheck {self.text}: passed ({self.examples} examples)"
        n = self.examples
        lines = [f"@gradcheck {self.text}: FAILED at example {n} (then shrunk)"]
        if self.counterexample is not None:
            lines.append(f"  minimal counterexample: {self.counterexample}")
        if self.detail is not None:
            for line in self.detail.report().splitlines()[1:] or [self.detail.report()]:
                lines.append("  " + line.strip())
        return "\n".join(lines)


class _Failed(Exception):
    pass


def run_property(rt: Any, f: Any, specs: list[ArgSpec], *, text: str = "", examples: int = 50,
                 atol: float = 1e-5, rtol: float = 1e-4, eps: float | None = None,
                 oracle: bool = True, seed: int | None = 0) -> PropertyResult:
    """Check the gradient of f at inputs drawn from `specs`; on failure, hypothesis
    shrinks the input and the minimal one is reported. With `seed` (default 0) the run
    is reproducible; `seed=None` draws fresh inputs. The JAX oracle is consulted on the
    first example and on the counterexample (it needs a trace per call)."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    name = getattr(f, "name", "f")
    text = text or f"{name}({', '.join(s.source() for s in specs)})"
    strategy = st.tuples(*[zyla_value(s.eltype, s.size, s.lo, s.hi) for s in specs])
    last: list[Any] = [None, None]
    argnames = [s.name for s in specs]
    count = [0]
    failed_at = [0]  # the example that failed first (later calls are shrinking)

    @settings(max_examples=max(1, int(examples)), database=None, deadline=None,
              derandomize=seed is not None, suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False,
              phases=(Phase.explicit, Phase.generate, Phase.shrink))
    @given(strategy)
    def prop(vals: tuple) -> None:
        count[0] += 1
        res = check(rt, f, list(vals), atol=atol, rtol=rtol, eps=eps,
                    oracle=oracle and count[0] == 1, names=argnames)
        if not res.ok:
            last[0], last[1] = vals, res
            if failed_at[0] == 0:
                failed_at[0] = count[0]
            raise _Failed()

    runner = prop if seed is None else hseed(seed)(prop)
    try:
        runner()
    except _Failed:
        vals, res = last
        if oracle:  # the final report shows all three derivatives
            res = check(rt, f, list(vals), atol=atol, rtol=rtol, eps=eps, oracle=True,
                        names=argnames)
        cex = f"{name}({', '.join(to_source(v) for v in vals)})"
        return PropertyResult(False, name, text, failed_at[0], cex, res)
    return PropertyResult(True, name, text, count[0])


def specs_from_signature(gf: Any) -> list[ArgSpec] | None:
    """Argument specs derived from the first method of a generic function whose
    parameters are all floats or float arrays (vectors of length 3, 3×2 matrices);
    None if there is no such method."""
    for m in getattr(gf, "methods", []):
        fn = m.fn
        if fn is None or fn.vararg or m.nreq == 0:
            continue
        names = fn.params[fn.ncaptures: fn.ncaptures + m.nreq]
        specs = []
        for pname, t in zip(names, m.sig[: m.nreq], strict=False):
            spec = _spec_for_type(pname, t, V)
            if spec is None:
                break
            specs.append(spec)
        else:
            return specs
    return None


def _spec_for_type(name: str, t: Any, V: Any) -> ArgSpec | None:
    if isinstance(t, V.TypeVar):
        t = t.ub or V.AnyT
    if not isinstance(t, V.JType):
        return None
    fam = t.family
    if t is V.AnyT or fam in (V.Float64T, V.RealT, V.AbstractFloatT, V.NumberT):
        return ArgSpec(name, "Float64")
    if fam is V.Float32T:
        return ArgSpec(name, "Float32")
    if fam in (V.ArrayT, V.AbstractArrayT):
        elt = t.params[0] if t.params else V.Float64T
        rank = t.params[1] if len(t.params) > 1 and isinstance(t.params[1], int) else 1
        eltype = "Float32" if elt is V.Float32T else "Float64"
        floats = (V.Float64T, V.Float32T, V.AnyT, V.RealT, V.AbstractFloatT, V.NumberT)
        if isinstance(elt, V.JType) and elt not in floats:
            return None
        return ArgSpec(name, eltype, {1: (3,), 2: (3, 2)}.get(rank, (2,) * rank))
    return None


# ---- collecting properties under `zyla gradcheck` -----------------------------------------------


@dataclass
class Collector:
    """When set on the runtime (`rt.gradcheck_collector`), `@gradcheck` records its
    properties here instead of running them."""

    properties: list[tuple[Any, list[ArgSpec], dict, str, int]] = field(default_factory=list)


# ---- the language's entry points ----------------------------------------------------------------


def _jtype_name(t: Any) -> str:
    if isinstance(t, V.JType):
        fam = t.family
        for n, ft in (("Float64", V.Float64T), ("Float32", V.Float32T), ("Int64", V.Int64T),
                      ("Bool", V.BoolT)):
            if fam is ft:
                return n
    raise ZylaError("ArgumentError", f"@gradcheck: unsupported element type {V.type_name(t)}",
                    hint="declare Float64, Float32, Int or Bool elements")


def spec_from_values(name: str, container: Any, eltype: Any, size: tuple, lo: Any,
                     hi: Any) -> ArgSpec:
    """An ArgSpec from the values the `@gradcheck` macro passes at run time."""
    del container
    try:
        dims = tuple(int(d) for d in size)
    except (TypeError, ValueError):
        raise ZylaError("ArgumentError",
                        f"@gradcheck: the size of `{name}` must be integers") from None
    if any(d < 0 or d > 10_000 for d in dims):
        raise ZylaError("ArgumentError", f"@gradcheck: size {dims} of `{name}` is out of range")
    lo_f, hi_f = float(lo), float(hi)
    if not (math.isfinite(lo_f) and math.isfinite(hi_f)) or lo_f > hi_f:
        raise ZylaError("ArgumentError", f"@gradcheck: invalid range ({lo}, {hi}) for `{name}`")
    return ArgSpec(name, _jtype_name(eltype), dims, lo_f, hi_f)


def gradcheck_builtin(rt: Any, f: Any, args: tuple, atol: float, rtol: float, eps: Any,
                      oracle: bool, verbose: bool) -> bool:
    """`gradcheck(f, args...; atol, rtol, eps, oracle, verbose)` in the language: prints
    the report (with the worst mismatch) on failure, and on success too if `verbose`."""
    res = check(rt, f, list(args), atol=float(atol), rtol=float(rtol),
                eps=None if eps is None else float(eps), oracle=bool(oracle))
    if not res.ok or verbose:
        rt.stdout.write(res.report() + "\n")
    return res.ok


def property_builtin(rt: Any, f: Any, text: str, line: int, *specs: tuple, examples: int = 50,
                     atol: float = 1e-5, rtol: float = 1e-4, eps: Any = None,
                     oracle: bool = True, seed: Any = 0) -> bool:
    """What `@gradcheck f(x::T(dims) in (lo, hi), ...)` runs: check the property now,
    print the outcome and return whether it held (so `@test @gradcheck ...` works), or,
    under `zyla gradcheck`, record it for later and return true."""
    argspecs = [spec_from_values(*s) for s in specs]
    options = dict(examples=int(examples), atol=float(atol), rtol=float(rtol),
                   eps=None if eps is None else float(eps), oracle=bool(oracle),
                   seed=None if seed is None else int(seed))
    if not text:
        text = f"{getattr(f, 'name', 'f')}({', '.join(s.source() for s in argspecs)})"
    coll = getattr(rt, "gradcheck_collector", None)
    if coll is not None:
        coll.properties.append((f, argspecs, options, text, int(line)))
        return True
    res = run_property(rt, f, argspecs, text=text, **options)  # type: ignore[arg-type]
    rt.stdout.write(res.report() + "\n")
    return res.ok


def install(rt: Any) -> None:
    """Register `GradCheck.check`, `GradCheck.property` and the `@gradcheck` macro."""
    host = HostOnly("gradient checks run on the host")
    rt.builtins["GradCheck.check"] = prim(
        "GradCheck.check", lambda *a: gradcheck_builtin(rt, *a), host, NONDIFF,
        lambda *a, **k: V.BoolT)
    rt.builtins["GradCheck.property"] = prim(
        "GradCheck.property", lambda *a, **k: property_builtin(rt, *a, **k), host, NONDIFF,
        lambda *a, **k: V.BoolT)
    MACROS["gradcheck"] = lower_gradcheck_macro


# ---- the macro ----------------------------------------------------------------------------------

_OPTIONS = ("examples", "atol", "rtol", "eps", "oracle", "seed")


def lower_gradcheck_macro(lo: Any, n: Any) -> Any:
    """`@gradcheck f(x::Vector{Float64}(3) in (-1, 1), y::Float64 in (0.1, 2)) examples=100`
    → `GradCheck.property(f, text, line, ("x", Vector, Float64, (3,), -1, 1), ...; kw...)`.
    An argument without a type is a Float64; without a range it is drawn from (-1, 1)."""
    call = n.args[0] if n.args else None
    if not isinstance(call, A.Call) or (isinstance(call.func, A.Ident)
                                        and not call.func.name.isidentifier()):
        raise lo.err("@gradcheck needs a call like f(x::Float64 in (-1, 1))", n)
    vals = [lo.lower(call.func), lo.const(""), lo.const(n.span.line)]
    for a in call.args:
        vals.append(_lower_spec(lo, a, A))
    kwnames = []
    for opt in n.args[1:] + list(call.kwargs):
        target = getattr(opt, "target", None)
        key = target.name if isinstance(target, A.Ident) else getattr(opt, "name", None)
        if key not in _OPTIONS:
            raise lo.err(f"@gradcheck: unknown option {unparse(opt)}; options are "
                         + ", ".join(_OPTIONS), n)
        kwnames.append(key)
        vals.append(lo.lower(opt.value))
    return lo.call("GradCheck.property", vals, n.span, kw=tuple(kwnames))


def _lower_spec(lo: Any, a: Any, A: Any) -> Any:
    lo_v: Any = A.Literal(-1.0, "Float64")
    hi_v: Any = A.Literal(1.0, "Float64")
    if (isinstance(a, A.Call) and isinstance(a.func, A.Ident) and a.func.name in ("in", "∈")
            and len(a.args) == 2):
        a, rng = a.args
        lo_v, hi_v = _range_ends(lo, rng, A)
    elif isinstance(a, A.Comparison) and a.ops in (["in"], ["∈"]):
        a, rng = a.operands
        lo_v, hi_v = _range_ends(lo, rng, A)
    if isinstance(a, A.Ident):
        name, tnode, dims = a.name, A.Ident("Float64"), []
    elif isinstance(a, A.TypeAssert) and isinstance(a.value, A.Ident):
        name, tnode, dims = a.value.name, a.type, []
        if isinstance(tnode, A.Call):
            tnode, dims = tnode.func, list(tnode.args)
    else:
        raise lo.err("@gradcheck: declare each argument as `name::Type(size...) in (lo, hi)`", a)
    container, elt = _element_type(lo, tnode, dims, A)
    tup = A.TupleLit([A.Literal(name, "String"), container, elt, A.TupleLit(dims), lo_v, hi_v])
    return lo.lower(tup)


def _element_type(lo: Any, t: Any, dims: list, A: Any) -> tuple[Any, Any]:
    if isinstance(t, A.Curly) and isinstance(t.obj, A.Ident) and t.params:
        kind = t.obj.name
        rank = {"Vector": 1, "Matrix": 2}.get(kind)
        if kind not in ("Vector", "Matrix", "Array"):
            raise lo.err(f"@gradcheck: unsupported argument type {kind}", t)
        if rank is not None and len(dims) != rank:
            raise lo.err(f"@gradcheck: {kind} needs {rank} size{'s' if rank > 1 else ''}, "
                         f"e.g. {kind}{{Float64}}({', '.join(['3'] * rank)})", t)
        return A.Literal(kind, "String"), t.params[0]
    if dims:
        raise lo.err("@gradcheck: a scalar argument takes no size", t)
    return A.Literal("scalar", "String"), t


def _range_ends(lo: Any, rng: Any, A: Any) -> tuple[Any, Any]:
    if isinstance(rng, A.TupleLit) and len(rng.items) == 2:
        return rng.items[0], rng.items[1]
    if (isinstance(rng, A.Call) and isinstance(rng.func, A.Ident) and rng.func.name == ":"
            and len(rng.args) == 2):
        return rng.args[0], rng.args[1]
    raise lo.err("@gradcheck: a range is written `in (lo, hi)`", rng)
