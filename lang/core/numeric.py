"""Julia's numeric semantics shared by both tiers: element types, promotion, casting.

Works on host values (Python int/float/bool, numpy.float32, numpy arrays) and on JAX
values (traced arrays; a 0-d JAX array is a Julia scalar). `xp` is the array namespace:
numpy on the host, jax.numpy in the compiled tier.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np


def _round_each_product() -> None:
    """Julia rounds `a * b` before `+ c`; XLA:CPU always lets LLVM fuse the two into one
    fused multiply-add (rounded once), and no setting turns only that off, so 27% of
    `s * 0.9 + t` came out one bit away from Julia's. Its code generator is limited to
    AVX (no FMA instructions) before JAX starts, unless ZYLA_FMA=1 allows the fusion
    (JAX's own behaviour, faster in small products and loops: docs/PERFORMANCE.md) or
    XLA_FLAGS already names an instruction set. Only x86-64 has that choice."""
    import os
    import platform

    if os.environ.get("ZYLA_FMA", "0").strip() not in ("", "0"):
        return
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_max_isa" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_max_isa=AVX").strip()


_round_each_product()


def _quiet_xla_logs() -> None:
    """XLA writes its own log lines to stderr (\"Constant folding an instruction is taking
    > 1s\" when a large static range is folded): not a program's output, and its errors
    reach Zyla as exceptions anyway. Silenced before JAX starts, unless the user set
    TF_CPP_MIN_LOG_LEVEL."""
    import os

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


_quiet_xla_logs()

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
OBJ = np.dtype(object)
#: element types whose numpy `item`/`tolist` gives the host values (Python numbers)
PY_ITEM_DTYPES = frozenset((F64, I64, BOOL))

# Julia's promotion of the element types Zyla has: Bool is below every number; of two
# integer types the wider wins, and of two of the same width the unsigned one
# (promote_type(Int8, UInt8) is UInt8, promote_type(UInt8, Int16) Int16); every float type
# is above every integer type (promote_type(Int64, Float16) is Float16), the wider float
# wins. The rank is (kind, bits, unsigned).
def _rank(d: np.dtype) -> tuple[int, int, int] | None:
    if d.kind == "b":
        return (0, 0, 0)
    if d.kind in "iu":
        return (1, d.itemsize, d.kind == "u")
    if d.kind == "f":
        return (2, d.itemsize, 0)
    return None


_RANK = {np.dtype(t): _rank(np.dtype(t)) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64)}


# ZYLA_MATMUL_PRECISION: how XLA may compute Float32 matrix products and convolutions.
# Julia's Float32 is IEEE single precision (CUDA.jl's default math mode keeps it), so the
# default is "highest"; on a GPU "default" lets XLA use TensorFloat-32 (about 10 bits of
# mantissa in the products) for speed, as plain JAX does. The CPU computes in Float32
# whatever the setting.
MATMUL_PRECISIONS = ("highest", "high", "default")
_configured = False


def matmul_precision() -> str:
    """The precision ZYLA_MATMUL_PRECISION asks for (unknown values: "highest")."""
    import os

    want = os.environ.get("ZYLA_MATMUL_PRECISION", "highest").strip().lower()
    return want if want in MATMUL_PRECISIONS else "highest"


def configure_jax() -> None:
    """Set JAX up as Zyla's semantics need it, once: 64-bit types (Julia's Int and
    Float64) and the Float32 matrix-product precision (matmul_precision)."""
    global _configured
    if _configured:
        return
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_default_matmul_precision", matmul_precision())
    # JAX walks the whole Python stack to shorten the traceback of every exception that
    # leaves a trace; a compile tried deep inside host recursion spent seconds there, and
    # Zyla never shows a JAX traceback
    jax.config.update("jax_traceback_filtering", "off")
    # a buffer XLA could not reuse for a result is a missed optimisation, not the user's
    # business: JAX's warning would print Python text among the program's output
    warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
    _configured = True


def jax_numpy() -> types.ModuleType:
    configure_jax()
    import jax.numpy as jnp

    return jnp


def dtype_of(x: Any) -> np.dtype:
    """The Julia element type of a value, as a numpy dtype (object if not numeric)."""
    t = type(x)
    if t is float:
        return F64
    if t is bool:
        return BOOL
    if t is int:
        return I64
    d = getattr(x, "dtype", None)
    if d is not None:
        return np.dtype(d)
    return OBJ


def is_float_dtype(d: np.dtype) -> bool:
    return d.kind == "f"


def promote(d1: np.dtype, d2: np.dtype) -> np.dtype:
    """Julia's promote_type for the element types Zyla has (see _rank)."""
    if d1 == d2:
        return d1
    r1, r2 = _RANK.get(d1), _RANK.get(d2)
    if r1 is None or r2 is None:
        return OBJ
    return d1 if r1 >= r2 else d2


def arith_dtype(d1: np.dtype, d2: np.dtype) -> np.dtype:
    """Result type of +, -, *: Bool arithmetic gives Int."""
    d = promote(d1, d2)
    return I64 if d == BOOL else d


def float_dtype(d: np.dtype) -> np.dtype:
    """The float type a value of type d becomes under `/`, `sqrt`, `exp`..."""
    return d if d.kind == "f" else F64


def is_scalar(x: Any) -> bool:
    t = type(x)
    if t is float or t is int or t is bool:
        return True
    return getattr(x, "ndim", None) == 0 or isinstance(x, np.generic)


def host_scalar(x: Any) -> Any:
    """Normalise a numpy scalar to the host representation (float, int, bool, float32)."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.generic):
        if isinstance(x, np.floating):
            return float(x) if x.dtype == F64 else x
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, np.integer):
            # Int64 is a Python int; Int32 and the others keep their type, as in Julia
            return int(x) if x.dtype == I64 else x
    return x


def cast(x: Any, d: np.dtype, xp: Any) -> Any:
    """Convert a value to element type d (scalars stay scalars)."""
    if dtype_of(x) == d:
        return x
    if xp is np:
        if d == F64 and not isinstance(x, np.ndarray):
            return float(x)
        if d == I64 and not isinstance(x, np.ndarray):
            return int(x)
        if d == BOOL and not isinstance(x, np.ndarray):
            return bool(x)
        with np.errstate(over="ignore"):  # Float32(1e300) is Inf32, as in Julia
            return x.astype(d) if isinstance(x, np.ndarray) else d.type(x)
    return xp.asarray(x, dtype=d)


def xp_for(*xs: Any) -> Any:
    """numpy for host values, jax.numpy as soon as one value is a JAX array."""
    for x in xs:
        if hasattr(x, "aval") or type(x).__module__.startswith("jax"):
            return jax_numpy()
    return np
