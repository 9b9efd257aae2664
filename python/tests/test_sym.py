"""The sym format (a symmetric matrix from its lower half) from Python: products on scipy's
symmetric matrices match scipy within rounding, fp64 and fp32, several thread counts; op T is
op N; new symmetric values give a new plan's bits and asymmetric ones are refused with the
plan kept; a matrix that is not symmetric is declined with a reason."""
import numpy as np
import pytest
import scipy.sparse as sp

import spx
from test_spx import rel_err


def symmetric_csr(n, density, seed, dtype=np.float64):
    a = sp.random(n, n, density, format="csr", random_state=seed, dtype=dtype)
    s = (a + a.T + sp.identity(n, dtype=dtype, format="csr")).tocsr()
    s.sort_indices()
    return s


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("threads", [1, 3])
def test_sym_matches_scipy(dtype, threads):
    a = symmetric_csr(700, 0.02, 31, dtype)
    prec = "f64" if dtype == np.float64 else "f32"
    P = spx.plan(a, format="sym", precision=prec, threads=threads)
    x = np.random.default_rng(32).uniform(-1, 1, 700).astype(dtype)
    y = P @ x
    assert rel_err(y, a @ x, a, x) <= 64 * np.finfo(dtype).eps
    assert np.array_equal(y, P @ x)  # the same bits every call
    T = spx.plan(a, format="sym", precision=prec, threads=threads, transpose=True)
    assert rel_err(T @ x, a @ x, a, x) <= 64 * np.finfo(dtype).eps


def test_sym_update_values():
    a = symmetric_csr(500, 0.03, 33)
    P = spx.plan(a, format="sym", threads=2)
    b = a.copy()
    b.data = b.data * 0.5 + 1.0  # (a + a.T) scaled: still symmetric
    x = np.random.default_rng(34).uniform(-1, 1, 500)
    P.update_values(b.data)
    assert np.array_equal(P @ x, spx.plan(b, format="sym", threads=2) @ x)
    before = P @ x
    bad = b.data.copy()
    bad[np.flatnonzero(b.indices != np.repeat(np.arange(500), np.diff(b.indptr)))[0]] += 1.0
    with pytest.raises(spx.SpxError, match="not symmetric"):
        P.update_values(bad)
    assert np.array_equal(P @ x, before)


def test_sym_declines_an_asymmetric_matrix():
    a = sp.random(300, 300, 0.05, format="csr", random_state=35)
    with pytest.raises(spx.SpxError, match="not symmetric"):
        spx.plan(a, format="sym")
    with pytest.raises(spx.SpxError, match="not square"):
        spx.plan(sp.random(30, 40, 0.2, format="csr", random_state=36), format="sym")
