"""spx.eigsh (Lanczos, spx_eigsh) against scipy.sparse.linalg.eigsh: both ends of a 1D
Laplacian and of a random symmetric matrix, fp64 and fp32, the vectors' residuals and
orthonormality; a double eigenvalue found twice (once with skip_copies) against numpy's
dense eigvalsh; a MultiPlan of 3 parts; the same bits twice; NotConverged carrying the best values; bad arguments;
on a CUDA plan when a GPU is here."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sl

import spx
from test_sym import symmetric_csr


def laplacian_1d(n, dtype=np.float64):
    e = np.ones(n - 1, dtype)
    return sp.diags([-e, 2 * np.ones(n, dtype), -e], [-1, 0, 1], format="csr")


@pytest.mark.parametrize("which", ["LA", "SA"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eigsh_matches_scipy(which, dtype):
    for a in (laplacian_1d(120, dtype), symmetric_csr(300, 0.02, 5, dtype)):
        prec = "f64" if dtype == np.float64 else "f32"
        w, v, info = spx.eigsh(spx.plan(a, precision=prec), k=3, which=which,
                               tol=1e-10 if dtype == np.float64 else 1e-5)
        ref = sl.eigsh(a.astype(np.float64), k=3, which=which, return_eigenvectors=False,
                       tol=1e-12)
        tol = 1e-9 if dtype == np.float64 else 1e-4
        assert np.allclose(w, np.sort(ref), rtol=tol, atol=tol * np.abs(ref).max())
        assert np.all(np.diff(w) >= 0) and v.shape == (a.shape[0], 3) and v.dtype == dtype
        r = a.astype(np.float64) @ v.astype(np.float64) - v.astype(np.float64) * w
        assert np.linalg.norm(r, axis=0).max() <= (1e-6 if dtype == np.float64 else 1e-2) * \
            np.abs(w).max()
        g = v.astype(np.float64).T @ v.astype(np.float64)
        assert np.abs(g - np.eye(3)).max() <= (1e-8 if dtype == np.float64 else 1e-4)
        assert info["converged"] == 3


@pytest.mark.parametrize("which", ["LA", "SA"])
def test_eigsh_finds_copies_of_a_double_eigenvalue(which):
    l1 = laplacian_1d(20)
    a = (sp.kron(l1, sp.eye(20)) + sp.kron(sp.eye(20), l1)).tocsr()  # (1, 2) = (2, 1)
    dense = np.linalg.eigvalsh(a.toarray())
    ref = dense[:4] if which == "SA" else dense[-4:]
    w, v, info = spx.eigsh(a, k=4, which=which, tol=1e-10)
    assert np.allclose(w, ref, rtol=1e-9) and info["fresh_starts"] >= 2
    assert np.abs(v.T @ v - np.eye(4)).max() <= 1e-8
    assert np.linalg.norm(a @ v - v * w, axis=0).max() <= 1e-6 * np.abs(w).max()
    w1, info = spx.eigsh(a, k=4, which=which, tol=1e-10, skip_copies=True,
                         return_eigenvectors=False)
    distinct = np.unique(np.round(dense, 9))
    assert np.allclose(w1, distinct[:4] if which == "SA" else distinct[-4:], rtol=1e-9)
    assert info["fresh_starts"] == 0


def test_eigsh_few_distinct_eigenvalues():
    a = sp.diags(np.r_[np.full(30, 2.0), np.full(10, 5.0)], format="csr")  # Krylov space: 2
    w, v, info = spx.eigsh(a, k=3, which="SA")
    assert np.allclose(w, [2.0, 2.0, 2.0]) and info["fresh_starts"] >= 2
    assert np.abs(v.T @ v - np.eye(3)).max() <= 1e-10
    w, v, info = spx.eigsh(a, k=12, which="LA", basis=25)
    assert np.allclose(w, [2.0, 2.0] + [5.0] * 10)


@pytest.mark.parametrize("partition", ["pcsr", "pcsc", "pcoo"])
def test_eigsh_on_a_multi_plan(partition):
    l1 = laplacian_1d(20)
    a = (sp.kron(l1, sp.eye(20)) + sp.kron(sp.eye(20), l1)).tocsr()
    ref = np.linalg.eigvalsh(a.toarray())[:4]
    M = spx.multi_plan(a, 3, partition=partition)
    w, v, info = spx.eigsh(M, k=4, which="SA", tol=1e-10)
    assert np.allclose(w, ref, rtol=1e-9) and info["converged"] == 4
    assert np.linalg.norm(a @ v - v * w, axis=0).max() <= 1e-6 * np.abs(w).max()
    w1, v1, _ = spx.eigsh(spx.plan(a), k=4, which="SA", tol=1e-10)
    assert np.allclose(w, w1, rtol=1e-12)


def test_eigsh_repeats_and_values_only():
    a = symmetric_csr(400, 0.02, 9)
    P = spx.plan(a)
    w1, v1, _ = spx.eigsh(P, k=2)
    w2, v2, _ = spx.eigsh(P, k=2)
    assert np.array_equal(w1, w2) and np.array_equal(v1, v2)
    w3, info = spx.eigsh(a, k=2, return_eigenvectors=False)
    assert np.array_equal(w3, w1) and info["converged"] == 2


def test_eigsh_restarts_with_a_small_basis():
    a = laplacian_1d(300)
    w, info = spx.eigsh(a, k=2, which="SA", basis=8, return_eigenvectors=False)
    ref = 2 - 2 * np.cos(np.arange(1, 3) * np.pi / 301)
    assert np.allclose(w, ref, rtol=1e-7) and info["restarts"] > 0
    with pytest.raises(spx.SpxError, match="basis"):
        spx.eigsh(a, k=2, basis=2)


def test_eigsh_not_converged_and_bad_arguments():
    a = laplacian_1d(2000)
    with pytest.raises(spx.NotConverged) as e:
        spx.eigsh(a, k=2, max_steps=5)
    assert e.value.info["steps"] == 5 and e.value.w.shape == (2,) and e.value.v.shape == (2000, 2)
    assert e.value.w[1] <= 4.0
    with pytest.raises(ValueError, match="which"):
        spx.eigsh(a, which="LM")
    with pytest.raises(ValueError, match="k must be"):
        spx.eigsh(a, k=0)
    with pytest.raises(spx.SpxError, match="square"):
        spx.eigsh(sp.random(5, 7, 0.5, format="csr", random_state=1))


@pytest.mark.skipif(not spx.device_available("cuda"), reason="no CUDA device")
def test_eigsh_on_cuda_matches_cpu():
    a = symmetric_csr(3000, 0.002, 13)
    wc, vc, _ = spx.eigsh(spx.plan(a), k=4, which="SA", tol=1e-10)
    wg, vg, info = spx.eigsh(spx.plan(a, device="cuda"), k=4, which="SA", tol=1e-10)
    assert np.allclose(wg, wc, rtol=1e-9, atol=1e-12) and info["converged"] == 4
    r = a @ vg - vg * wg
    assert np.linalg.norm(r, axis=0).max() <= 1e-6 * np.abs(wg).max()
