"""LinearAlgebra's structured matrices and factorizations (lang/core/stdlib/linalg.jl over
lang/core/primitives_linalg.py): values checked against numpy, printing against what
Julia 1.11 prints. Their gradients are cases of tests/test_gradients.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grammar.errors import ZylaError
from lang.door.api import Zyla


@pytest.fixture(scope="module")
def z() -> Zyla:
    z = Zyla()
    z.eval("using LinearAlgebra")
    return z


def _run(src: str) -> str:
    """What the program `src` prints, run by the `zyla` command after `using LinearAlgebra`."""
    import subprocess
    import sys
    from pathlib import Path

    zyla = Path(sys.executable).parent / "zyla"
    r = subprocess.run([str(zyla), "-e", "using LinearAlgebra\n" + src], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


SETTINGS = settings(max_examples=5, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def square(n: int) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, (n, n), elements=st.floats(-2.0, 2.0, width=64))


def spd(n: int) -> st.SearchStrategy[np.ndarray]:
    return square(n).map(lambda b: b @ b.T + n * np.eye(n)).map(lambda a: (a + a.T) / 2)


# --- printing (Julia 1.11's output) --------------------------------------------------------


def test_printing() -> None:
    text = _run("""
    println(Matrix{Float64}(I, 2, 2))
    println(Matrix(1.0I, 3, 3))
    println(Matrix{Float32}(I, 2, 3))
    println(Matrix(I, 2, 2))
    D = Diagonal([1.0, 2.0])
    println(D)
    display(D)
    display(Diagonal([-1.5, 2.0, 30.25]))
    display(I(3))
    display(Symmetric([1.0 2.0; 3.0 4.0], :L))
    display(cholesky([4.0 2.0; 2.0 3.0]))
    display(eigen([2.0 1.0; 1.0 2.0]))
    """)
    assert text == (
        "[1.0 0.0; 0.0 1.0]\n"
        "[1.0 0.0 0.0; 0.0 1.0 0.0; 0.0 0.0 1.0]\n"
        "Float32[1.0 0.0 0.0; 0.0 1.0 0.0]\n"
        "Bool[1 0; 0 1]\n"
        "[1.0 0.0; 0.0 2.0]\n"
        "2×2 Diagonal{Float64, Vector{Float64}}:\n"
        " 1.0   ⋅ \n"
        "  ⋅   2.0\n"
        "3×3 Diagonal{Float64, Vector{Float64}}:\n"
        " -1.5   ⋅     ⋅ \n"
        "   ⋅   2.0    ⋅ \n"
        "   ⋅    ⋅   30.25\n"
        "3×3 Diagonal{Bool, Vector{Bool}}:\n"
        " 1  ⋅  ⋅\n"
        " ⋅  1  ⋅\n"
        " ⋅  ⋅  1\n"
        "2×2 Symmetric{Float64, Matrix{Float64}}:\n"
        " 1.0  3.0\n"
        " 3.0  4.0\n"
        "Cholesky{Float64, Matrix{Float64}}\n"
        "U factor:\n"
        "2×2 UpperTriangular{Float64, Matrix{Float64}}:\n"
        " 2.0  1.0\n"
        "  ⋅   1.41421\n"
        "Eigen{Float64, Float64, Matrix{Float64}, Vector{Float64}}\n"
        "values:\n"
        "2-element Vector{Float64}:\n"
        " 1.0\n"
        " 3.0\n"
        "vectors:\n"
        "2×2 Matrix{Float64}:\n"
        " -0.707107  0.707107\n"
        "  0.707107  0.707107\n")


def test_posdef_exception_text() -> None:
    import subprocess
    import sys
    from pathlib import Path

    zyla = Path(sys.executable).parent / "zyla"
    for m, what in (("[1.0 2.0; 2.0 1.0]", "positive definite"),
                    ("[1.0 2.0; 0.0 1.0]", "Hermitian")):
        r = subprocess.run([str(zyla), "-e", f"using LinearAlgebra; cholesky({m})"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode != 0
        assert f"PosDefException: matrix is not {what}; Cholesky factorization failed." in r.stderr


# --- values ----------------------------------------------------------------------------------


@SETTINGS
@given(hnp.arrays(np.float64, 3, elements=st.floats(0.5, 3.0) | st.floats(-3.0, -0.5)),
       square(3), hnp.arrays(np.float64, 3, elements=st.floats(-2.0, 2.0)))
def test_diagonal(z: Zyla, d: np.ndarray, a: np.ndarray, x: np.ndarray) -> None:
    z.eval("dg_ops(d, A, x) = (D = Diagonal(d); (D * x, D * A, A * D, D \\ x, Matrix(inv(D)), "
           "det(D), diag(D), D[1, 2], D[2, 2], size(D), Matrix(D), Matrix(D + D), "
           "D * x == Matrix(D) * x))")
    r = z.call("dg_ops", d, a, x)
    dm = np.diag(d)
    expect = (dm @ x, dm @ a, a @ dm, x / d, np.diag(1 / d), np.prod(d), d, 0.0, d[1], (3, 3),
              dm, 2 * dm, True)
    for got, want in zip(r, expect, strict=True):
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                   rtol=1e-12, atol=1e-12)


@SETTINGS
@given(square(3), hnp.arrays(np.float64, 3, elements=st.floats(-2.0, 2.0)))
def test_symmetric(z: Zyla, a: np.ndarray, x: np.ndarray) -> None:
    z.eval("sym_ops(A, x) = (S = Symmetric(A); L = Symmetric(A, :L); H = Hermitian(A); "
           "(Matrix(S), Matrix(L), S[3, 1], L[1, 3], S * x, L * x, Matrix(H), "
           "eigvals(S), eigen(L).values))")
    up = np.triu(a) + np.triu(a, 1).T
    lo = np.tril(a) + np.tril(a, -1).T
    r = z.call("sym_ops", a, x)
    expect = (up, lo, a[0, 2], a[2, 0], up @ x, lo @ x, up, np.linalg.eigvalsh(up),
              np.linalg.eigvalsh(lo))
    for got, want in zip(r, expect, strict=True):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-10)


@SETTINGS
@given(spd(3))
def test_eigen_symmetric(z: Zyla, a: np.ndarray) -> None:
    z.eval("""
    function eig_ops(A)
        vals, vecs = eigen(A)
        E = eigen(Symmetric(A))
        (vals, vecs, eigvals(A), eigvecs(A), E.values, E.vectors)
    end
    """)
    vals, vecs, ev, evecs, sv, svecs = z.call("eig_ops", a)
    np.testing.assert_allclose(vals, np.linalg.eigvalsh(a), rtol=1e-10, atol=1e-10)
    assert np.all(np.diff(vals) >= 0)  # ascending
    np.testing.assert_allclose(a @ vecs, vecs * vals, atol=1e-9)
    np.testing.assert_allclose(vecs.T @ vecs, np.eye(3), atol=1e-10)
    for x, y in ((ev, vals), (evecs, vecs), (sv, vals), (svecs, vecs)):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def test_eigen_nonsymmetric(z: Zyla) -> None:
    a = np.array([[1.0, 2.0], [0.0, 3.0]])
    vals, vecs = z.eval("(E = eigen([1.0 2.0; 0.0 3.0]); (E.values, E.vectors))")
    np.testing.assert_allclose(vals, [1.0, 3.0])
    np.testing.assert_allclose(a @ vecs, vecs * vals, atol=1e-12)
    with pytest.raises(ZylaError, match="complex eigenvalues is not supported"):
        z.eval("eigen([0.0 -1.0; 1.0 0.0])")


@SETTINGS
@given(spd(3), hnp.arrays(np.float64, 3, elements=st.floats(-2.0, 2.0)))
def test_cholesky(z: Zyla, a: np.ndarray, b: np.ndarray) -> None:
    z.eval("chol_ops(A, b) = (C = cholesky(A); (C.L, C.U, C \\ b, det(C), logdet(C)))")
    lo, up, x, d, ld = z.call("chol_ops", a, b)
    ref = np.linalg.cholesky(a)
    np.testing.assert_allclose(lo, ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(up, ref.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(d, np.linalg.det(a), rtol=1e-10)
    np.testing.assert_allclose(ld, np.log(np.linalg.det(a)), rtol=1e-10, atol=1e-12)


@SETTINGS
@given(hnp.arrays(np.float64, (3, 2), elements=st.floats(-2.0, 2.0)))
def test_svd_qr(z: Zyla, a: np.ndarray) -> None:
    z.eval("svd_ops(A) = (F = svd(A); Q = qr(A); (F.U, F.S, F.V, F.Vt, svdvals(A), "
           "Matrix(Q.Q), Q.R))")
    u, s, v, vt, sv, q, r = z.call("svd_ops", a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=1e-10)
    np.testing.assert_allclose(sv, s, atol=1e-12)
    np.testing.assert_allclose(u @ np.diag(s) @ vt, a, atol=1e-10)
    np.testing.assert_allclose(v, vt.T)
    np.testing.assert_allclose(u.T @ u, np.eye(2), atol=1e-10)
    assert q.shape == (3, 2) and r.shape == (2, 2)
    np.testing.assert_allclose(q @ r, a, atol=1e-10)
    np.testing.assert_allclose(np.tril(r, -1), 0.0)


def test_tr_kron_diagm(z: Zyla) -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.5, -1.0, 2.0]])
    t, k, kv, d1, d2, tu, tl = z.eval(
        "(A = [1.0 2.0; 3.0 4.0]; (tr(A), kron(A, [0.5 -1.0 2.0]), kron([1.0, 2.0], [3.0, 4.0]), "
        "diagm([1.0, 2.0]), diagm(0 => [1, 2], 1 => [3]), triu(A), tril(A, -1)))")
    assert t == 5.0
    np.testing.assert_allclose(k, np.kron(a, b))
    np.testing.assert_allclose(kv, np.kron([1.0, 2.0], [3.0, 4.0]))
    np.testing.assert_allclose(d1, np.diag([1.0, 2.0]))
    np.testing.assert_array_equal(d2, [[1, 3], [0, 2]])
    np.testing.assert_array_equal(tu, np.triu(a))
    np.testing.assert_array_equal(tl, np.tril(a, -1))


def test_factor_derivatives_are_refused(z: Zyla) -> None:
    """svd's U/V and qr's factors have no rule here: differentiating through them is an
    error, not a zero gradient; through the singular values it works."""
    a = np.array([[2.0, 0.5], [0.3, 1.0], [0.1, 0.2]])
    z.eval("gs(A) = gradient(B -> sum(svd(B).S), A)[1]\n"
           "gu(A) = gradient(B -> sum(svd(B).U), A)[1]\n"
           "gq(A) = gradient(B -> sum(Matrix(qr(B).Q)), A)[1]\n"
           "gr(A) = gradient(B -> sum(qr(B).R), A)[1]")
    u, _, vt = np.linalg.svd(a, full_matrices=False)
    g = z.call("gs", a)
    np.testing.assert_allclose(g, u @ vt, atol=1e-10)
    for f, what in (("gu", "svd"), ("gq", "qr"), ("gr", "qr")):
        with pytest.raises(ZylaError, match=f"the derivative of {what}"):
            z.call(f, a)


# --- division by a matrix: `\` and `/` of any shape, and their derivatives --------------------


def _full_rank(m: int, n: int) -> st.SearchStrategy[np.ndarray]:
    """An m×n matrix far from rank deficiency (a random one plus a multiple of the identity
    on its leading square)."""
    k = min(m, n)
    lift = np.zeros((m, n))
    lift[:k, :k] = 3.0 * np.eye(k)
    return hnp.arrays(np.float64, (m, n), elements=st.floats(-1.0, 1.0)).map(lambda a: a + lift)


def _lstsq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.lstsq(a, b, rcond=None)[0]


@settings(SETTINGS, max_examples=3)
@given(st.sampled_from([(3, 3), (5, 3), (3, 5)]).flatmap(
    lambda mn: st.tuples(_full_rank(*mn), hnp.arrays(np.float64, (mn[0], 2),
                                                     elements=st.floats(-2.0, 2.0)))))
def test_matrix_division_values(z: Zyla, ab: tuple) -> None:
    """A \\ B is the solution (square), least-squares (tall) or minimum-norm (wide)
    solution, as Julia's QR-based `\\`; B' / A' its transpose; host and compiled agree."""
    a, b = ab
    z.eval("ldiv_ops(A, B) = (A \\ B, A \\ B[:, 1], B' / A', B[:, 1]' / A')")
    want = _lstsq(a, b)
    for compiled in (False, True):
        x, xv, y, yv = z.call("ldiv_ops", a, b, compiled=compiled)
        np.testing.assert_allclose(x, want, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(xv, want[:, 0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(y, want.T, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(np.ravel(yv), want[:, 0], rtol=1e-9, atol=1e-9)


def test_vector_and_scalar_division(z: Zyla) -> None:
    """Julia's forms with a vector or a number: u \\ v is a number, u \\ B a row, u / v a
    matrix, a \\ A is A ./ a; an array under a number is a MethodError."""
    r = z.eval("(u = [1.0, 2.0]; (u \\ [2.0, 4.0], u \\ [2.0 4.0; 1.0 2.0], u / [2.0, 4.0], "
               "2.0 \\ [1.0, 3.0], 2 \\ 3, 2f0 \\ 3f0, [1.0 2.0; 3.0 4.0] / [1.0 2.0; 3.0 4.0]))")
    assert r[0] == pytest.approx(2.0)
    np.testing.assert_allclose(r[1], [[0.8, 1.6]])
    np.testing.assert_allclose(r[2], [[0.1, 0.2], [0.2, 0.4]])
    np.testing.assert_allclose(r[3], [0.5, 1.5])
    assert r[4] == 1.5 and r[5] == np.float32(1.5) and isinstance(r[5], np.float32)
    np.testing.assert_allclose(r[6], np.eye(2), atol=1e-12)
    for bad in ("[1.0, 2.0] \\ 3.0", "2.0 / [1.0, 2.0]"):
        with pytest.raises(ZylaError, match="MethodError"):
            z.eval(bad)
    with pytest.raises(ZylaError, match="SingularException"):
        z.eval("[1.0 2.0; 2.0 4.0] \\ [1.0, 2.0]")


@settings(SETTINGS, max_examples=3)
@given(st.sampled_from([(3, 3), (4, 2), (2, 4)]).flatmap(
    lambda mn: st.tuples(_full_rank(*mn), _full_rank(*mn))))
def test_matrix_division_gradients(z: Zyla, ab: tuple) -> None:
    """The pullbacks of `\\` and `/` (the derivative of the pseudo-inverse for a non-square
    matrix) against finite differences and jax.grad of the compiled primal."""
    from lang.door import testing as zt

    a, b = ab
    z.eval("ldiv_loss(A, B) = sum(sin.(A \\ B))\nrdiv_loss(A, B) = sum(sin.(A / B))")
    assert zt.gradcheck(z, "ldiv_loss", a, b)
    assert zt.gradcheck(z, "rdiv_loss", a, b)


def test_division_gradients_vectors_and_tangents(z: Zyla) -> None:
    """Vector forms, compiled gradients equal to the host's, and the jvp of `\\` and `/`
    against a finite difference."""
    from lang.door import testing as zt

    rng = np.random.default_rng(3)
    u, v, y = rng.normal(size=6), rng.normal(size=6), rng.normal(size=(6, 3))
    x = rng.normal(size=(6, 3))
    z.eval("vv(u, v) = sin(u \\ v) + sum(cos.(u / v))\nvm(u, Y) = sum(sin.(u \\ Y))\n"
           "mv(X, v) = sum(sin.(X \\ v))\n"
           "jv(A, B, dA, dB) = (jvp(t -> t[1] \\ t[2], (A, B), (dA, dB))[2], "
           "jvp(t -> t[1] / t[2], (B, A), (dB, dA))[2])")
    assert zt.gradcheck(z, "vv", u, v, oracle=False)
    assert zt.gradcheck(z, "vm", u, y, oracle=False)
    assert zt.gradcheck(z, "mv", x, v, oracle=False)
    host = z.gradient("mv", x, v)
    comp = z.gradient("mv", x, v, compiled=True)
    for hg, cg in zip(host, comp, strict=True):
        np.testing.assert_allclose(cg, hg, rtol=1e-9, atol=1e-12)
    a, b, da, db = (rng.normal(size=(5, 3)) + np.eye(5, 3) * 3, rng.normal(size=(5, 3)),
                    rng.normal(size=(5, 3)), rng.normal(size=(5, 3)))
    h = 1e-6
    jl, jr = z.call("jv", a, b, da, db)
    fd_l = (_lstsq(a + h * da, b + h * db) - _lstsq(a - h * da, b - h * db)) / (2 * h)
    np.testing.assert_allclose(jl, fd_l, rtol=1e-5, atol=1e-6)
    rd = lambda p, q: _lstsq(q.T, p.T).T  # noqa: E731  (p / q)
    fd_r = (rd(b + h * db, a + h * da) - rd(b - h * db, a - h * da)) / (2 * h)
    np.testing.assert_allclose(jr, fd_r, rtol=1e-5, atol=1e-6)


def test_muladd_sums_and_structured_arrays(z: Zyla) -> None:
    """muladd broadcasts its addend over a matrix product; `+`/`-` allow trailing
    dimensions of length 1 (and give each argument a gradient of its own shape); a
    Diagonal is the dense array it stands for to vec, maximum, comprehensions."""
    r = z.eval("(A = [1.0 2.0; 3.0 4.0]; (muladd(A, A, 1.0), muladd(A, [1.0, 1.0], [0.5, 0.5]), "
               "size([1.0, 2.0] + reshape([1.0, 2.0], 2, 1)), "
               "gradient((a, b) -> sum((a + b) .* [1.0 2.0]'), [1.0, 2.0], [3.0 4.0]'), "
               "gradient((a, b) -> sum(a - b), [1.0, 2.0], reshape([1.0, 2.0], 2, 1, 1))))")
    np.testing.assert_allclose(r[0], [[8.0, 11.0], [16.0, 23.0]])
    np.testing.assert_allclose(r[1], [3.5, 7.5])
    assert r[2] == (2, 1)
    ga, gb = r[3]
    assert ga.shape == (2,) and gb.shape == (2, 1)
    np.testing.assert_allclose(ga, [1.0, 2.0])
    assert r[4][0].shape == (2,) and r[4][1].shape == (2, 1, 1)
    with pytest.raises(ZylaError, match="DimensionMismatch"):
        z.eval("[1.0, 2.0] + [1.0 2.0]")
    with pytest.raises(ZylaError, match="DimensionMismatch"):
        z.eval("muladd([1.0 2.0; 3.0 4.0], [1.0, 1.0], [1.0, 2.0, 3.0])")
    d = z.eval("(D = Diagonal([1.0, -2.0, 3.0]); (vec(D), maximum(D), minimum(D), ndims(D), "
               "[2x for x in D], D[5], collect(D), Transpose([1.0 2.0]), "
               "LinearAlgebra.mat_mat_scalar([1.0 2.0; 3.0 4.0], [1.0 0.0; 0.0 1.0], 2.0)))")
    np.testing.assert_allclose(d[0], np.diag([1.0, -2.0, 3.0]).ravel())
    assert (d[1], d[2], d[3]) == (3.0, -2.0, 2)
    np.testing.assert_allclose(d[4], 2 * np.diag([1.0, -2.0, 3.0]))
    assert d[5] == -2.0
    np.testing.assert_allclose(d[6], np.diag([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(np.ravel(d[7]), [1.0, 2.0])
    np.testing.assert_allclose(d[8], [[2.0, 4.0], [6.0, 8.0]])
