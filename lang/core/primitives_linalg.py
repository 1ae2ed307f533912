"""Primitives under LinearAlgebra's factorizations (lang/core/stdlib/linalg.jl builds
`eigen`, `cholesky`, `svd`, `qr`, `Diagonal` and `Symmetric` on them): symmetric
eigendecomposition, Cholesky, SVD and QR factors, and the masks their rules use.

Each is one function over `xp` (numpy on the host, jax.numpy in the compiled tier).
Arrays use the reversed layout of lang.core.values: a Julia m×n matrix M is stored as the
n×m array Mᵀ, so each function turns its argument into M (`_m`) and its result back.

Symmetric inputs are symmetrized as (A + Aᵀ)/2 in both tiers (jax.numpy.linalg.eigh and
cholesky do so by default), so the derivative is that of a function of the whole matrix
and a finite difference of any entry agrees with it. Eigenvectors and singular vectors
are only defined up to sign: both tiers flip each so that its entry of largest magnitude
(the last of equal ones) is positive, so host and compiled code agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grammar.errors import ZylaError
from lang.core import numeric as N
from lang.core import values as V
from lang.core.functions import typeof
from lang.core.primitives import (
    DOMAINS,
    MATRIX_DIVISION,
    NONDIFF,
    HostOnly,
    _div,
    _result,
    as_array,
    dim_mismatch,
    is_array,
    jl_size,
    prim,
)
from lang.core.primitives import numeric_prim as numeric


def _float(xp: Any, x: Any) -> Any:
    x = as_array(x, xp)
    if not is_array(x) or x.ndim != 2:
        raise dim_mismatch(f"expected a matrix, got an argument of size {jl_size(x)}")
    return N.cast(x, N.float_dtype(N.dtype_of(x)), xp)


def _square(xp: Any, x: Any) -> Any:
    x = _float(xp, x)
    if x.shape[0] != x.shape[1]:
        raise dim_mismatch(f"matrix is not square: dimensions are {jl_size(x)}")
    return x


def _m(x: Any) -> Any:
    """The Julia matrix a stored array holds (and back: the transpose both ways)."""
    return x.T


def _sym(x: Any) -> Any:
    return (x + x.T) / 2


def _sign_fix(xp: Any, v: Any) -> Any:
    """±1 per column of v: the sign that makes the column's largest entry in magnitude
    (the last of those within a relative 1e-8 of it) positive."""
    mags = xp.abs(v)
    top = xp.max(mags, axis=0, keepdims=True)
    near = mags >= top * (1 - 1e-8)
    n = v.shape[0]
    last = n - 1 - xp.argmax(near[::-1], axis=0)
    pick = xp.take_along_axis(v, last[None, :], axis=0)[0]
    return xp.where(pick < 0, -1.0, 1.0).astype(v.dtype)


def _eigh(xp: Any, x: Any) -> tuple[Any, Any]:
    a = _sym(_square(xp, x))
    w, v = xp.linalg.eigh(a)
    return w, v * _sign_fix(xp, v)[None, :]


def eigh_vals(xp: Any, x: Any) -> Any:
    """The eigenvalues of the symmetric part of x, ascending."""
    return _eigh(xp, x)[0]


def eigh_vecs(xp: Any, x: Any) -> Any:
    """The orthonormal eigenvectors (columns, in the order of eigh_vals) of x's symmetric
    part."""
    return _m(_eigh(xp, x)[1])


def eig_gaps(xp: Any, w: Any) -> Any:
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal (0 where the two are equal), the
    matrix of the eigenvector derivative."""
    w = as_array(w, xp)
    d = w[None, :] - w[:, None]
    safe = xp.where(d == 0, 1.0, d)
    return _m(xp.where(d == 0, 0.0, 1.0 / safe))


def eig_general(x: Any) -> tuple:
    """`eigen` of a non-symmetric real matrix on the host: its eigenvalues (sorted as
    Julia's eigsortby sorts real ones) and unit eigenvectors, when all are real."""
    a = _m(_square(np, x))
    w, v = np.linalg.eig(a)
    if np.any(np.imag(w) != 0):
        raise ZylaError("ArgumentError",
                        "eigen of a non-symmetric matrix with complex eigenvalues is not "
                        "supported (Zyla has no complex arrays); eigen(Symmetric(A)) gives "
                        "the eigenvalues of a symmetric matrix")
    w, v = np.real(w), np.real(v)
    order = np.argsort(w, kind="stable")
    return w[order], _m(v[:, order])


def chol_upper(xp: Any, x: Any) -> Any:
    """The upper Cholesky factor U (A = U'U) of the Hermitian positive definite x; the host
    raises Julia's PosDefException otherwise."""
    a = _square(xp, x)
    if xp is np:
        if not np.array_equal(a, a.T):
            raise ZylaError("PosDefException",
                            "matrix is not Hermitian; Cholesky factorization failed.")
        try:
            low = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise ZylaError("PosDefException",
                            "matrix is not positive definite; Cholesky factorization "
                            "failed.") from None
        return low  # U = Lᵀ, stored transposed: L
    return xp.linalg.cholesky(_sym(a))


def _not_posdef(x: Any) -> Any:
    """Compiled code's run-time check of `cholesky`'s argument (backend.lower_jax): when
    it is not symmetric or not positive definite the call runs again on the host, which
    raises Julia's PosDefException."""
    jnp = N.jax_numpy()
    return jnp.any(x != x.T) | jnp.any(jnp.isnan(jnp.linalg.cholesky(x)))


def chol_mask(xp: Any, u: Any) -> Any:
    """Φ's mask for a square matrix of u's size: 1 below the diagonal, 1/2 on it."""
    n = as_array(u, xp).shape[0]
    low = xp.tril(xp.ones((n, n)), -1) + 0.5 * xp.eye(n)
    return _m(low)


def is_symmetric(xp: Any, x: Any) -> Any:
    x = as_array(x, xp)
    return _result(xp.all(x == x.T), xp)


def _svd(xp: Any, x: Any) -> tuple[Any, Any, Any]:
    a = _m(_float(xp, x))
    u, s, vt = xp.linalg.svd(a, full_matrices=False)
    f = _sign_fix(xp, u)
    return u * f[None, :], s, vt * f[:, None]


def svdvals(xp: Any, x: Any) -> Any:
    """The singular values of x, descending."""
    return xp.linalg.svd(_float(xp, x), compute_uv=False)


def svd_u(xp: Any, x: Any) -> Any:
    return _m(_svd(xp, x)[0])


def svd_vt(xp: Any, x: Any) -> Any:
    return _m(_svd(xp, x)[2])


def qr_q(xp: Any, x: Any) -> Any:
    """The thin Q of Householder QR (LAPACK's signs, as Julia's `qr`)."""
    return _m(xp.linalg.qr(_m(_float(xp, x)), mode="reduced")[0])


def qr_r(xp: Any, x: Any) -> Any:
    return _m(xp.linalg.qr(_m(_float(xp, x)), mode="reduced")[1])


def tri_mask(xp: Any, x: Any, k: Any, upper: bool) -> Any:
    """The 0/1 mask of `triu(x, k)` (upper) or `tril(x, k)` for a matrix x, in x's type."""
    x = as_array(x, xp)
    if not is_array(x) or x.ndim != 2:
        raise dim_mismatch(f"expected a matrix, got an argument of size {jl_size(x)}")
    m, n = x.shape[1], x.shape[0]  # Julia size (m, n)
    ones = xp.ones((m, n), dtype=N.dtype_of(x) if N.dtype_of(x) != N.OBJ else float)
    mask = xp.triu(ones, int(k)) if upper else xp.tril(ones, int(k))
    return _m(mask)


# --- division by a matrix: `A \\ B` and `A / B` ------------------------------------------------


def _as_jl_matrix(xp: Any, x: Any) -> Any:
    """The Julia matrix of a stored vector (a column) or matrix, in Julia's index order."""
    return x[:, None] if x.ndim == 1 else x.T


def _solve(xp: Any, a: Any, b: Any, square: bool) -> Any:
    """X with a X = b (Julia matrices): LU for a square a, else the minimum-norm
    least-squares solution pinv(a) b, as Julia's QR-based `\\` gives for a of full rank."""
    if square:
        if xp is np:
            try:
                return np.linalg.solve(a, b)
            except np.linalg.LinAlgError:
                raise ZylaError("SingularException", "matrix is singular") from None
        return xp.linalg.solve(a, b)
    if xp is np:
        return np.linalg.lstsq(a, b, rcond=None)[0]
    return xp.linalg.pinv(a) @ b


def _div_operands(xp: Any, a: Any, b: Any, op: str) -> tuple[Any, Any, Any]:
    a, b = as_array(a, xp), as_array(b, xp)
    for x in (a, b):
        if x.ndim > 2:
            raise ZylaError("MethodError", f"no method matching {op}(::Array{{_, {x.ndim}}}, _)")
    d = N.float_dtype(N.promote(N.dtype_of(a), N.dtype_of(b)))
    if d.kind != "f":
        raise ZylaError("MethodError", f"no method matching {op} for element types "
                        f"{N.dtype_of(a)} and {N.dtype_of(b)}")
    return N.cast(a, d, xp), N.cast(b, d, xp), d


def ldiv(xp: Any, a: Any, b: Any) -> Any:
    """`a \\ b`: b / a for a number a; for a matrix a the solution of a x = b (LU when a is
    square, else the least-squares or minimum-norm solution); for a vector a, pinv(a) b
    (a number when b is a vector, a 1×k row when b is a matrix)."""
    if not is_array(a):
        if is_array(b) or N.is_scalar(b):
            return _div(xp, b, a)
    if not (is_array(a) and is_array(b)):
        raise ZylaError("MethodError", f"no method matching \\(::{V.type_name(typeof(a))}, "
                        f"::{V.type_name(typeof(b))})")
    a, b, _ = _div_operands(xp, a, b, "\\")
    am, bm = _as_jl_matrix(xp, a), _as_jl_matrix(xp, b)
    if am.shape[0] != bm.shape[0]:
        raise dim_mismatch(f"arguments must have the same number of rows: got {jl_size(a)} "
                           f"and {jl_size(b)}")
    x = _solve(xp, am, bm, a.ndim == 2 and am.shape[0] == am.shape[1])
    if b.ndim == 1:
        return _result(x[0, 0], xp) if a.ndim == 1 else x[:, 0]
    return x.T


def rdiv(xp: Any, a: Any, b: Any) -> Any:
    """`a / b` for a vector or matrix b: the x with x b = a, that is (b' \\ a')' (LU when b
    is square, else least squares or minimum norm)."""
    a, b, _ = _div_operands(xp, a, b, "/")
    am, bm = _as_jl_matrix(xp, a), _as_jl_matrix(xp, b)
    if am.shape[1] != bm.shape[1]:
        raise dim_mismatch(f"arguments must have the same number of columns: got "
                           f"{jl_size(a)} and {jl_size(b)}")
    x = _solve(xp, bm.T, am.T, b.ndim == 2 and bm.shape[0] == bm.shape[1])
    return x  # (Xᵀ in Julia's index order is X in the stored, transposed layout)


# --- printing --------------------------------------------------------------------------------


def display_masked(x: Any, keep: Any, head: str) -> str:
    """A structured matrix as Julia's REPL displays it: `head`, then the rows of x aligned
    as a dense matrix's, the entries where `keep` is false replaced by a centred `⋅`."""
    from lang.core.show import display_structured

    return display_structured(np.asarray(as_array(x)), np.asarray(as_array(keep)), head)


def display_string(x: Any) -> str:
    """What `display(x)` writes, without the newline."""
    from lang.core.show import jl_display

    return jl_display(x, limit=False)


# --- registration -----------------------------------------------------------------------------

_REFUSE = ('(dz, z, A) -> dz === nothing ? (nothing,) : error("the derivative of {what} is not '
           'supported; differentiate through {ok}")')

numeric("Core.eigh_vals", eigh_vals,
        "(dz, z, A) -> ((V -> V * (dz .* V'))(Core.eigh_vecs(A)),)")
numeric("Core.eigh_vecs", eigh_vecs,
        "(dz, z, A) -> ((G -> (G + G') / 2)(z * (Core.eig_gaps(Core.eigh_vals(A)) .* (z' * dz)) * "
        "z'),)")
numeric("Core.eig_gaps", eig_gaps, NONDIFF)
numeric("Core.chol_upper", chol_upper,
        "(dz, z, A) -> ((P -> (G -> (G + G') / 2)((z \\ (z \\ P)')'))((z * dz') .* "
        "Core.chol_mask(z)),)")
numeric("Core.chol_mask", chol_mask, NONDIFF)
DOMAINS["Core.chol_upper"] = _not_posdef
numeric("Core.is_symmetric", is_symmetric, NONDIFF)
numeric("svdvals", svdvals, "(dz, z, A) -> (Core.svd_u(A) * (dz .* Core.svd_vt(A)),)")
numeric("Core.svd_u", svd_u, _REFUSE.format(what="svd(A).U", ok="svd(A).S or svdvals(A)"))
numeric("Core.svd_vt", svd_vt, _REFUSE.format(what="svd(A).V", ok="svd(A).S or svdvals(A)"))
numeric("Core.qr_q", qr_q, _REFUSE.format(what="qr(A).Q", ok="another function"))
numeric("Core.qr_r", qr_r, _REFUSE.format(what="qr(A).R", ok="another function"))
numeric("Core.tri_mask", tri_mask, NONDIFF)
numeric("\\", ldiv, "(dz, z, A, b) -> Core.ldiv_back(dz, z, A, b)")
MATRIX_DIVISION["/"] = rdiv
prim("Core.eig_general", eig_general,
     HostOnly("eigen of a non-symmetric matrix runs on the host"),
     '(dz, z, A) -> error("the derivative of eigen of a non-symmetric matrix is not supported; '
     'use eigen(Symmetric(A))")', lambda *a, **k: V.AnyT)
prim("Core.display_masked", display_masked, HostOnly("printing runs on the host"), NONDIFF,
     lambda *a, **k: V.StringT)
prim("Core.display_string", display_string, HostOnly("printing runs on the host"), NONDIFF,
     lambda *a, **k: V.StringT)

# Forward-mode rules, merged into lang.core.primitives_base.FORWARD.
FORWARD: dict[str, str] = {
    "Core.eigh_vals":
        "(d, z, A) -> (V -> vec(sum(V .* (((d[1] + d[1]') / 2) * V); dims=1)))(Core.eigh_vecs(A))",
    "Core.eigh_vecs":
        "(d, z, A) -> z * (Core.eig_gaps(Core.eigh_vals(A)) .* (z' * ((d[1] + d[1]') / 2) * z))",
    "Core.chol_upper":
        "(d, z, A) -> ((z' \\ (z' \\ ((d[1] + d[1]') / 2))') .* transpose(Core.chol_mask(z))) * z",
    "svdvals": "(d, z, A) -> vec(sum((Core.svd_u(A)' * d[1]) .* Core.svd_vt(A); dims=2))",
    "Core.svd_u": "noforward",
    "Core.svd_vt": "noforward",
    "Core.qr_q": "noforward",
    "Core.qr_r": "noforward",
    "Core.eig_general": "noforward",
    "\\": "(d, z, A, b) -> Core.ldiv_fwd(d[1], d[2], z, A, b)",
}
