"""spx from Python against scipy: SpMV, zero copy, SpGEMM, solvers, errors,
threads. The shared matrices (SPX_MATRICES, default ../shared/matrices beside
the checkout) are used when present, else skipped."""
import gc
import os
import pathlib
import threading
import weakref

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spx

ROOT = pathlib.Path(__file__).resolve().parents[2]
MATRICES = pathlib.Path(os.environ.get("SPX_MATRICES", ROOT.parent / "shared" / "matrices"))


def rel_err(y, ref, A, x):
    scale = (abs(A) @ np.abs(x)).max()
    return np.abs(y - ref).max() / max(scale, 1e-300)


def random_csr(m, n, density, seed, dtype=np.float64, index=np.int32):
    a = sp.random(m, n, density, format="csr", random_state=seed, dtype=dtype)
    a.indptr = a.indptr.astype(index)
    a.indices = a.indices.astype(index)
    return a


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_spmv_matches_scipy(dtype, index):
    a = random_csr(300, 200, 0.05, 1, dtype, index)
    x = np.random.default_rng(2).uniform(-1, 1, 200).astype(dtype)
    for fmt in ["auto", "csr", "sell", "ref"]:
        P = spx.plan(a, format=fmt, precision="f64" if dtype == np.float64 else "f32")
        y = P @ x
        assert y.dtype == dtype
        tol = 8 * np.finfo(dtype).eps
        assert rel_err(y, a @ x, a, x) <= tol, fmt


def test_zero_copy():
    a = random_csr(100, 100, 0.1, 3)
    A = spx.matrix(a)
    indptr_at, indices_at, data_at = A._m.addresses()
    assert indptr_at == a.indptr.ctypes.data  # the same buffer, not a copy
    assert indices_at == a.indices.ctypes.data
    assert data_at == a.data.ctypes.data
    a.data[:] = 2.0  # seen through the wrap: the arrays are shared
    P = spx.plan(A, format="csr")
    assert np.allclose(P @ np.ones(100), a @ np.ones(100))


def test_int32_indptr_not_copied():
    a = random_csr(400, 300, 0.05, 7)  # scipy's default: int32 indptr and indices
    assert a.indptr.dtype == np.int32 and a.indices.dtype == np.int32
    A = spx.matrix(a)
    indptr_at, indices_at, data_at = A._m.addresses()
    assert indptr_at == a.indptr.ctypes.data  # the caller's offsets, not a widened copy
    assert indices_at == a.indices.ctypes.data
    assert data_at == a.data.ctypes.data
    x = np.random.default_rng(8).uniform(-1, 1, 300)
    for fmt in ["csr", "auto"]:
        P = spx.plan(A, format=fmt)
        assert rel_err(P @ x, a @ x, a, x) <= 8 * np.finfo(np.float64).eps, fmt
    assert "offsets=int32-borrowed" in spx.plan(A, format="csr").info()["describe"]
    assert A._m.addresses()[0] == a.indptr.ctypes.data


@pytest.mark.parametrize("through", ["matrix", "core"])
def test_wrapped_arrays_kept_alive(through):
    a = random_csr(500, 500, 0.02, 9)
    x = np.random.default_rng(10).uniform(-1, 1, 500)
    want = a @ x
    alive = weakref.ref(a.indptr)
    if through == "matrix":
        A = spx.matrix(a)
    else:  # the C object alone holds the arrays
        A = spx.Matrix(spx._core.wrap(500, 500, a.indptr, a.indices, a.data))
    P = spx.plan(A, format="csr")
    del a
    gc.collect()
    assert alive() is not None
    np.ones(1 << 20)  # would reuse the arrays' memory, had they been freed
    assert np.allclose(P @ x, want, rtol=0, atol=1e-12)
    assert np.allclose(spx.plan(A, format="sell") @ x, want, rtol=0, atol=1e-12)
    del A
    gc.collect()
    assert np.allclose(P @ x, want, rtol=0, atol=1e-12)  # the plan holds the Matrix
    del P
    gc.collect()
    assert alive() is None  # released with the last plan


def test_matvec_alpha_beta_and_transpose():
    a = random_csr(50, 70, 0.2, 4)
    x, y0 = np.ones(70), np.full(50, 3.0)
    P = spx.plan(a)
    y = y0.copy()
    P.matvec(x, y, 2.0, -1.0)
    assert np.allclose(y, 2.0 * (a @ x) - y0)
    y = np.full(50, np.nan)
    P.matvec(x, y, 1.0, 0.0)  # beta = 0 never reads y
    assert np.isfinite(y).all()
    PT = spx.plan(a, transpose=True)
    assert np.allclose(PT @ np.ones(50), a.T @ np.ones(50))


def test_linear_operator_and_formats():
    a = random_csr(80, 80, 0.1, 5) + sp.identity(80) * 10
    op = spx.plan(a).as_linear_operator()
    b = np.ones(80)
    x, info = sla.gmres(op, b, rtol=1e-10)
    assert info == 0 and np.linalg.norm(a @ x - b) <= 1e-8 * np.linalg.norm(b)
    names = {f["name"] for f in spx.formats()}
    assert {"csr", "sell", "gustavson"} <= names
    assert "spgemm" in next(f for f in spx.formats() if f["name"] == "gustavson")["operations"]


def test_spgemm_numeric_repeats_with_new_values():
    a = sp.random(60, 40, density=0.1, format="csr", random_state=5)
    b = sp.random(40, 50, density=0.1, format="csr", random_state=6)
    P = spx.plan(a, operation="spgemm")
    C = P.spgemm(b)
    b2 = b.copy()
    b2.data = b2.data * -2.0 + 1.0
    P.spgemm_numeric(b2, C)
    want = (a @ b2).toarray()
    assert np.allclose(C.to_scipy().toarray(), want, rtol=1e-13, atol=1e-13)
    other = sp.random(40, 50, density=0.05, format="csr", random_state=7)
    with pytest.raises(spx.SpxError):
        P.spgemm_numeric(other, C)
    assert np.allclose(C.to_scipy().toarray(), want, rtol=1e-13, atol=1e-13)


def test_spgemm_matches_scipy():
    a, b = random_csr(60, 40, 0.1, 6), random_csr(40, 50, 0.1, 7)
    c = spx.spgemm(a, b)
    ref = (a @ b).tocsr()
    assert c.shape == ref.shape
    assert abs(c - ref).max() <= 1e-12 * max(abs(ref).max(), 1)


def test_read_generate_roundtrip(tmp_path):
    A = spx.generate("lap3d7:6")
    s = A.to_scipy()
    assert s.shape == (216, 216) and s.nnz == A.nnz
    path = tmp_path / "m.mtx"
    scipy.io.mmwrite(str(path), s)
    B = spx.read_mtx(path)
    assert (B.to_scipy() != s).nnz == 0


def test_errors_carry_spx_message():
    a = random_csr(10, 10, 0.3, 8)
    with pytest.raises(spx.SpxError) as e:
        spx.plan(a, format="nonesuch")
    assert e.value.args[1] == "SPX_ERR_NO_FORMAT" and "nonesuch" in e.value.args[2]
    with pytest.raises(spx.SpxError) as e:
        spx.read_mtx("/nonexistent.mtx")
    assert e.value.args[1] == "SPX_ERR_IO"
    with pytest.raises(ValueError):
        spx.plan(a) @ np.ones(11)
    with pytest.raises(spx.SpxError):
        spx.plan(a, params="bogus=1", format="csr")


def lap3d7(m):
    one = sp.identity(m, format="csr")
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m), format="csr")
    return (sp.kron(sp.kron(t, one), one) + sp.kron(sp.kron(one, t), one)
            + sp.kron(sp.kron(one, one), t)).tocsr()


def test_cg_against_scipy():
    a = lap3d7(16)
    b = np.ones(a.shape[0])
    count = [0]
    xs, info = sla.cg(a, b, rtol=1e-10, callback=lambda _: count.__setitem__(0, count[0] + 1))
    assert info == 0
    x, info = spx.cg(spx.plan(a), b, rtol=1e-10)
    assert abs(info["iters"] - count[0]) <= 3
    assert np.linalg.norm(b - a @ x) <= 2e-10 * np.linalg.norm(b)
    assert len(info["history"]) == info["iters"] + 1
    with pytest.raises(spx.NotConverged) as e:
        spx.cg(spx.plan(a), b, rtol=1e-12, max_iters=3)
    assert e.value.info["iters"] == 3


def test_bicgstab_nonsymmetric():
    a = (lap3d7(8) + sp.diags([0.3], [1], shape=(512, 512))).tocsr()
    b = np.ones(512)
    x, info = spx.bicgstab(spx.plan(a), b, rtol=1e-10, jacobi=True)
    assert np.linalg.norm(b - a @ x) <= 2e-10 * np.linalg.norm(b)


def test_threads_share_a_plan():
    a = random_csr(2000, 2000, 0.005, 9)
    P = spx.plan(a, format="csr")
    x = np.random.default_rng(3).uniform(size=2000)
    ref = P @ x
    out = [None] * 4

    def work(i):
        for _ in range(50):
            out[i] = P @ x

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(o, ref) for o in out)


def test_bench_records():
    recs = spx.bench(spx.generate("lap2d5:30"), ["csr", "sell", "auto"], calls=5, batches=3)
    assert [r["format"] for r in recs] == ["csr", "sell", "auto"]
    assert all(r["status"] == "SPX_OK" and r["min_ms"] <= r["median_ms"] <= r["max_ms"]
               for r in recs)
    assert max(r["max_rel_err"] for r in recs) < 1e-14


@pytest.mark.skipif(not (MATRICES / "README.md").exists(), reason="shared matrices not found")
def test_shared_matrices():
    for path in sorted(MATRICES.glob("*.mtx")):
        a = scipy.io.mmread(str(path)).tocsr()
        x = np.random.default_rng(4).uniform(-1, 1, a.shape[1])
        y = spx.plan(a) @ x
        assert rel_err(y, a @ x, a, x) <= 16 * np.finfo(np.float64).eps, path.name


@pytest.mark.skipif(not spx.device_available("cuda"), reason="no CUDA device")
def test_cupy_vectors():
    cupy = pytest.importorskip("cupy")
    a = random_csr(500, 400, 0.02, 10)
    P = spx.plan(a, device="cuda")
    x = cupy.asarray(np.random.default_rng(5).uniform(-1, 1, 400))
    y = P @ x
    assert isinstance(y, cupy.ndarray)
    assert rel_err(y.get(), a @ x.get(), a, x.get()) <= 16 * np.finfo(np.float64).eps
    b = cupy.ones(a.shape[0])
    sym = lap3d7(10)
    xs, info = spx.cg(spx.plan(sym, device="cuda"), cupy.ones(1000), rtol=1e-10)
    assert np.linalg.norm(1 - sym @ xs.get()) <= 2e-10 * np.sqrt(1000)


@pytest.mark.skipif(spx.device_available("cuda"), reason="a CUDA device is here")
def test_wrap_device_needs_a_gpu():
    # no GPU (or a build without CUDA): refused before the addresses are read
    with pytest.raises(spx.SpxError) as e:
        spx._core.wrap_device(2, 2, 0x1000, 32, 0x2000, 0x3000, True, ())
    assert e.value.args[1] in ("SPX_ERR_NOT_COMPILED", "SPX_ERR_NO_DEVICE")


def cupyx_or_skip():
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    cupy = pytest.importorskip("cupy")
    return cupy, pytest.importorskip("cupyx.scipy.sparse")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupyx_matrix_used_in_place(dtype):
    cupy, cusp = cupyx_or_skip()
    a = random_csr(600, 500, 0.02, 11, dtype)
    d = cusp.csr_matrix(a)
    A = spx.matrix(d)
    assert A.device == "cuda" and A.shape == a.shape and A.nnz == a.nnz
    P = spx.plan(A)  # device and precision follow the matrix
    assert P.device == "cuda" and P.dtype == dtype and P.format == "csr"
    assert "matrix=device" in P.info()["describe"]
    _, ci, v = P._p.device_arrays()
    assert ci == d.indices.data.ptr and v == d.data.data.ptr  # cupyx's arrays, no copy
    x = cupy.asarray(np.random.default_rng(12).uniform(-1, 1, 500).astype(dtype))
    y = P @ x
    assert isinstance(y, cupy.ndarray) and y.dtype == dtype
    tol = 16 * np.finfo(dtype).eps
    assert rel_err(y.get(), (d @ x).get(), a, x.get()) <= tol
    assert rel_err(P @ x.get(), (d @ x).get(), a, x.get()) <= tol  # host vectors too
    d.data *= 2  # read in place: the next product sees it
    assert rel_err((P @ x).get(), (d @ x).get(), 2 * a, x.get()) <= tol


def test_cupyx_matrix_other_precision_and_int64_offsets():
    cupy, cusp = cupyx_or_skip()
    a = random_csr(400, 300, 0.03, 13)
    d = cusp.csr_matrix(a)
    indptr = d.indptr.astype(cupy.int64)
    A = spx.Matrix(spx._core.wrap_device(400, 300, indptr.data.ptr, 64, d.indices.data.ptr,
                                         d.data.data.ptr, True, (indptr, d.indices, d.data)))
    x = cupy.asarray(np.random.default_rng(14).uniform(-1, 1, 300))
    P = spx.plan(A, format="csr")
    assert P._p.device_arrays() == (indptr.data.ptr, d.indices.data.ptr, d.data.data.ptr)
    assert rel_err((P @ x).get(), (d @ x).get(), a, x.get()) <= 16 * np.finfo(np.float64).eps
    P32 = spx.plan(A, precision="f32")  # values converted on the GPU, columns in place
    _, ci, v = P32._p.device_arrays()
    assert ci == d.indices.data.ptr and v != d.data.data.ptr
    y = P32 @ x.astype(cupy.float32)
    assert rel_err(y.get(), (d @ x).get(), a, x.get()) <= 64 * np.finfo(np.float32).eps


def test_cupyx_unsorted_sorted_in_a_copy():
    cupy, cusp = cupyx_or_skip()
    a = random_csr(200, 200, 0.05, 15)
    rows = np.repeat(np.arange(200), np.diff(a.indptr))
    order = np.lexsort((-a.indices, rows))  # each row's columns descending
    u = sp.csr_matrix((a.data[order], a.indices[order], a.indptr), shape=a.shape)
    d = cusp.csr_matrix(u)
    before = d.indices.get()
    A = spx.matrix(d)
    assert (d.indices.get() == before).all()  # the caller's matrix is not sorted in place
    x = cupy.asarray(np.random.default_rng(16).uniform(-1, 1, 200))
    y = spx.plan(A) @ x
    assert rel_err(y.get(), a @ x.get(), a, x.get()) <= 16 * np.finfo(np.float64).eps


def test_cupyx_arrays_kept_alive():
    cupy, cusp = cupyx_or_skip()
    a = random_csr(500, 500, 0.02, 17)
    x = cupy.asarray(np.random.default_rng(18).uniform(-1, 1, 500))
    want = a @ x.get()
    P = spx.plan(spx.matrix(cusp.csr_matrix(a)))
    gc.collect()
    cupy.ones(1 << 20)  # would reuse the arrays' memory, had they been freed
    assert rel_err((P @ x).get(), want, a, x.get()) <= 16 * np.finfo(np.float64).eps


def test_cupyx_matrix_refused_on_host_paths():
    cupy, cusp = cupyx_or_skip()
    A = spx.matrix(cusp.csr_matrix(random_csr(50, 50, 0.1, 19)))
    for call in (lambda: spx.plan(A, device="cpu"), lambda: spx.plan(A, transpose=True),
                 lambda: spx.plan(A, format="sell"), lambda: spx.spgemm(A), A.to_scipy,
                 A._m.addresses):
        with pytest.raises(spx.SpxError) as e:
            call()
        assert e.value.args[1] == "SPX_ERR_UNSUPPORTED" and "device matrix" in e.value.args[2]
