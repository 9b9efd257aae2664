"""spx from Python against scipy: SpMV, SpMM, zero copy, SpGEMM, solvers, errors,
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


def test_solves_on_one_plan():
    """Solves in turn on one plan, which keeps their workspace, give the bits of each
    on a plan of its own; keep_workspace=False too. No graph replays on a CPU plan."""
    a = lap3d7(10)
    b = np.random.default_rng(5).uniform(-1, 1, a.shape[0])
    P = spx.plan(a, format="csr")
    for solve, jacobi, keep in [(spx.cg, False, True), (spx.bicgstab, True, True),
                                (spx.cg, True, False), (spx.cg, False, True)]:
        x, info = solve(P, b, rtol=1e-10, jacobi=jacobi, keep_workspace=keep)
        xf, infof = solve(spx.plan(a, format="csr"), b, rtol=1e-10, jacobi=jacobi)
        assert np.array_equal(x, xf) and info["iters"] == infof["iters"]
        assert info["replayed"] == 0


def test_bicgstab_nonsymmetric():
    a = (lap3d7(8) + sp.diags([0.3], [1], shape=(512, 512))).tocsr()
    b = np.ones(512)
    x, info = spx.bicgstab(spx.plan(a), b, rtol=1e-10, jacobi=True)
    assert np.linalg.norm(b - a @ x) <= 2e-10 * np.linalg.norm(b)


def test_gmres_nonsymmetric():
    a = (lap3d7(8) + sp.diags([0.3], [1], shape=(512, 512))).tocsr()
    b = np.ones(512)
    for restart, jacobi in [(30, False), (5, True), (1000, False)]:
        x, info = spx.gmres(spx.plan(a), b, rtol=1e-10, jacobi=jacobi, restart=restart)
        assert np.linalg.norm(b - a @ x) <= 2e-10 * np.linalg.norm(b)
        h = info["history"]
        assert all(h[i + 1] <= h[i] * (1 + 1e-12) for i in range(len(h) - 1))
    with pytest.raises(ValueError):
        spx.gmres(spx.plan(a), b, restart=0)
    with pytest.raises(spx.NotConverged):
        spx.gmres(spx.plan(a), b, rtol=1e-12, max_iters=3)


def run_threads(work, n):
    """work(0), ..., work(n - 1) at once, each in a thread; back when all are done."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_threads_share_a_plan():
    a = random_csr(2000, 2000, 0.005, 9)
    P = spx.plan(a, format="csr")
    x = np.random.default_rng(3).uniform(size=2000)
    ref = P @ x
    out = [None] * 4

    def work(i):
        for _ in range(50):
            out[i] = P @ x

    run_threads(work, 4)
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


@pytest.mark.skipif(not spx.device_available("cuda"), reason="no CUDA device")
@pytest.mark.parametrize("solver", ["cg", "bicgstab"])
def test_cuda_plan_solves_numpy_vectors(solver):
    sym = lap3d7(10)
    xh, info = getattr(spx, solver)(spx.plan(sym, device="cuda"), np.ones(1000), rtol=1e-10)
    assert isinstance(xh, np.ndarray) and info["iters"] > 0
    assert np.linalg.norm(1 - sym @ xh) <= 2e-10 * np.sqrt(1000)


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


def test_cupyx_matrix_spmm_in_place():
    """An SpMM plan of a cupyx matrix reads its arrays in place (spx_matrix_wrap_device)."""
    cupy, cusp = cupyx_or_skip()
    a = heavy_row_csr(600, 500, 13)  # a dense row: the long rows' chunks
    d = cusp.csr_matrix(a)
    S = spx.plan(spx.matrix(d), operation="spmm")
    assert S.device == "cuda" and S.format == "csr"
    _, ci, v = S._p.device_arrays()
    assert ci == d.indices.data.ptr and v == d.data.data.ptr
    Xh = np.random.default_rng(14).uniform(-1, 1, (500, 6))
    Y = S @ cupy.asarray(Xh)
    assert isinstance(Y, cupy.ndarray) and Y.shape == (600, 6)
    assert rel_err(Y.get(), spmm_reference(a, Xh), a, Xh) <= 16 * np.finfo(np.float64).eps


def test_cupyx_matrix_refused_on_host_paths():
    cupy, cusp = cupyx_or_skip()
    A = spx.matrix(cusp.csr_matrix(random_csr(50, 50, 0.1, 19)))
    for call in (lambda: spx.plan(A, device="cpu"), lambda: spx.plan(A, transpose=True),
                 lambda: spx.plan(A, format="sell"), lambda: spx.spgemm(A), A.to_scipy,
                 A._m.addresses):
        with pytest.raises(spx.SpxError) as e:
            call()
        assert e.value.args[1] == "SPX_ERR_UNSUPPORTED" and "device matrix" in e.value.args[2]


PARTITIONS = ["pcsr", "pcsc", "pcoo", "rows"]


def heavy_row_csr(m, n, seed, dtype=np.float64):
    """random_csr with one dense row, so that equal-nonzero parts share rows."""
    a = random_csr(m, n, 0.05, seed, dtype).tolil()
    a[m // 2, :] = np.random.default_rng(seed).uniform(-1, 1, n).astype(dtype)
    return a.tocsr()


def check_parts(P, lines, nnz, devices):
    """The parts tile the lines (rows of op(A), columns for pcsc) in order,
    neighbours sharing a line where they say so, and hold every nonzero."""
    parts = P.parts()
    assert len(parts) == P.info()["parts"]
    assert [q["device"] for q in parts] == devices
    assert sum(q["nnz"] for q in parts) == nnz
    end = 0
    for i, q in enumerate(parts):
        assert q["first"] == end - q["shared_first"]
        assert q["shared_first"] == (i > 0 and parts[i - 1]["shared_last"])
        assert q["format"] and q["bytes"] > 0
        end = q["first"] + q["count"]
    assert end == lines


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("partition", PARTITIONS)
def test_multi_plan_cpu_matches_scipy(partition, dtype):
    a = heavy_row_csr(300, 200, 21, dtype)
    x = np.random.default_rng(22).uniform(-1, 1, 200).astype(dtype)
    y0 = np.random.default_rng(23).uniform(-1, 1, 300).astype(dtype)
    tol = 16 * np.finfo(dtype).eps
    precision = "f64" if dtype == np.float64 else "f32"
    for parts in range(1, 5):
        P = spx.multi_plan(a, parts, partition=partition, device="cpu", precision=precision)
        assert P.shape == (300, 200) and P.dtype == dtype and P.partition == partition
        y = P @ x
        assert y.dtype == dtype and y.shape == (300,)
        assert rel_err(y, a @ x, a, x) <= tol, parts
        assert np.array_equal(P @ x, y)  # a fixed part count: the same bits every call
        y = y0.copy()
        assert P.matvec(x, y, 2.0, -0.5) is y
        assert rel_err(y, 2.0 * (a @ x) - 0.5 * y0, 2 * a, x) <= tol, parts
        check_parts(P, 200 if partition == "pcsc" else 300, a.nnz, [-1] * parts)
        t = P.times()
        assert set(t) == {"convert_ms", "partition_ms", "prepare_ms", "distribute_ms",
                          "spmv_ms", "merge_ms", "call_ms"}
        assert min(t.values()) >= 0 and t["call_ms"] > 0
    if partition == "pcsr":  # the dense row is cut between parts
        assert any(q["shared_first"] for q in spx.multi_plan(a, 4).parts())


@pytest.mark.parametrize("partition", PARTITIONS)
def test_multi_plan_transpose_and_formats(partition):
    a = heavy_row_csr(120, 90, 24)
    x = np.random.default_rng(25).uniform(-1, 1, 120)
    P = spx.multi_plan(a, 3, partition=partition, transpose=True)
    assert P.shape == (90, 120)
    assert rel_err(P @ x, a.T @ x, a.T, x) <= 16 * np.finfo(np.float64).eps
    for fmt in ["csr", "ref"]:
        P = spx.multi_plan(a, 2, partition=partition, format=fmt)
        assert rel_err(P @ x[:90], a @ x[:90], a, x[:90]) <= 16 * np.finfo(np.float64).eps
        assert all(q["format"] == fmt for q in P.parts()), fmt


def test_multi_plan_bad_input():
    a = random_csr(40, 30, 0.2, 26)
    for parts in (0, 257):
        with pytest.raises(spx.SpxError) as e:
            spx.multi_plan(a, parts)
        assert e.value.args[1] == "SPX_ERR_INVALID_ARG" and "parts" in e.value.args[2]
    with pytest.raises(spx.SpxError) as e:
        spx.multi_plan(a, 2, partition="nonesuch")
    assert e.value.args[1] == "SPX_ERR_INVALID_ARG" and "nonesuch" in e.value.args[2]
    with pytest.raises(spx.SpxError) as e:
        spx.multi_plan(a, 2, format="nonesuch")
    assert e.value.args[1] == "SPX_ERR_NO_FORMAT"
    with pytest.raises(ValueError):
        spx.multi_plan(a, 2, device="tpu")
    with pytest.raises(ValueError):
        spx.multi_plan(a, 2, overlap="sometimes")
    P = spx.multi_plan(a, 2)
    for x in (np.ones(31), np.ones(29), np.ones(30, dtype=np.float32)):
        with pytest.raises(ValueError, match="float64 vector of 30 entries"):
            P @ x
    with pytest.raises(ValueError):
        P @ np.ones((30, 2))[:, 0]  # not contiguous
    with pytest.raises(ValueError, match="float64 vector of 40 entries"):
        P.matvec(np.ones(30), np.ones(41))
    with pytest.raises(ValueError):
        P.matvec(np.ones(30), np.ones(40).astype(np.float32))
    y = np.ones(40)
    y.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        P.matvec(np.ones(30), y)
    P32 = spx.multi_plan(a, 2, precision="f32")
    with pytest.raises(ValueError, match="float32 vector of 30 entries"):
        P32 @ np.ones(30)


@pytest.mark.skipif(spx.device_available("cuda"), reason="a CUDA device is here")
@pytest.mark.parametrize("spread", [True, False])
def test_multi_plan_cuda_needs_a_gpu(spread):
    with pytest.raises(spx.SpxError) as e:
        spx.multi_plan(random_csr(40, 30, 0.2, 27), 2, device="cuda", spread=spread)
    assert e.value.args[1] in ("SPX_ERR_NOT_COMPILED", "SPX_ERR_NO_DEVICE")


def test_multi_plan_keeps_matrix_alive():
    a = random_csr(500, 500, 0.02, 28)
    x = np.random.default_rng(29).uniform(-1, 1, 500)
    want = a @ x
    alive = weakref.ref(a.indptr)
    P = spx.multi_plan(spx.matrix(a), 3, format="csr")  # CPU parts read a's arrays in place
    del a
    gc.collect()
    assert alive() is not None
    np.ones(1 << 20)  # would reuse the arrays' memory, had they been freed
    assert rel_err(P @ x, want, P.matrix.to_scipy(), x) <= 16 * np.finfo(np.float64).eps
    del P
    gc.collect()
    assert alive() is None


def test_multi_plan_threads_and_linear_operator():
    a = heavy_row_csr(2000, 2000, 30) + sp.identity(2000) * 10
    P = spx.multi_plan(a, 4, partition="pcsc")
    xs = np.random.default_rng(31).uniform(-1, 1, (4, 2000))
    refs = [P @ x for x in xs]
    bad = [0] * 4

    def work(i):  # one call at a time per plan (its scratch): the binding serializes them
        for _ in range(50):
            bad[i] += not np.array_equal(P @ xs[i], refs[i])

    run_threads(work, 4)
    assert bad == [0] * 4
    b = np.ones(2000)
    x, info = sla.gmres(P.as_linear_operator(), b, rtol=1e-10)
    assert info == 0 and np.linalg.norm(a @ x - b) <= 1e-8 * np.linalg.norm(b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("spread", [True, False])
def test_multi_plan_cuda_matches_scipy(spread, dtype):
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    a = heavy_row_csr(3000, 2000, 32, dtype)
    x = np.random.default_rng(33).uniform(-1, 1, 2000).astype(dtype)
    tol = 16 * np.finfo(dtype).eps
    precision = "f64" if dtype == np.float64 else "f32"
    for partition in PARTITIONS:
        for parts in range(1, 5):
            P = spx.multi_plan(a, parts, partition=partition, device="cuda", spread=spread,
                               precision=precision)
            assert P.device == "cuda"
            y = P @ x
            assert rel_err(y, a @ x, a, x) <= tol, (partition, parts)
            assert np.array_equal(P @ x, y)
            devices = [q["device"] for q in P.parts()]
            gpus = max(devices) + 1  # spread: round robin over the GPUs; else all on GPU 0
            assert devices == [i % gpus if spread else 0 for i in range(parts)], devices
            check_parts(P, 2000 if partition == "pcsc" else 3000, a.nnz, devices)


def scaled_lap3d7(m, seed):
    """D lap3d7(m) D, D a random positive diagonal: SPD, and Jacobi changes its iterates."""
    d = sp.diags(np.random.default_rng(seed).uniform(0.5, 2.0, m ** 3))
    return (d @ lap3d7(m) @ d).tocsr()


def check_multi_solve(solve, a, b, M, ref, jacobi, rtol=1e-10):
    """solve(M, b) converges to ref (spsolve) in about the iterations of one
    CPU plan, to about its x, and a second solve gives the same bits."""
    x, info = solve(M, b, rtol=rtol, jacobi=jacobi)
    assert x.dtype == np.float64 and x.shape == b.shape
    assert np.linalg.norm(b - a @ x) <= 2 * rtol * np.linalg.norm(b)
    assert np.linalg.norm(x - ref) <= 1e-7 * np.linalg.norm(ref)
    assert info["rel_residual"] <= 2 * rtol and info["ms"] > 0
    assert len(info["history"]) == info["iters"] + 1 and info["history"][0] == 1.0
    xs, infos = solve(spx.plan(a, format="csr"), b, rtol=rtol, jacobi=jacobi)
    assert abs(info["iters"] - infos["iters"]) <= infos["iters"] // 5 + 2, (info, infos)
    assert np.linalg.norm(x - xs) <= 1e-8 * np.linalg.norm(xs)
    again, info2 = solve(M, b, rtol=rtol, jacobi=jacobi)
    assert np.array_equal(x, again) and info2["iters"] == info["iters"]


@pytest.mark.parametrize("partition", PARTITIONS)
def test_multi_cg_cpu(partition):
    a = scaled_lap3d7(10, 40)
    b = np.random.default_rng(41).uniform(-1, 1, a.shape[0])
    ref = sla.spsolve(a.tocsc(), b)
    iters = [spx.cg(spx.plan(a), b, rtol=1e-10, jacobi=j)[1]["iters"] for j in (False, True)]
    assert iters[1] < iters[0] * 0.8  # Jacobi matters here
    for parts in range(1, 5):
        M = spx.multi_plan(a, parts, partition=partition, device="cpu")
        for jacobi in (False, True):
            check_multi_solve(spx.cg, a, b, M, ref, jacobi)
        x, info = spx.cg(M, list(b), x0=ref, rtol=1e-10)  # a list, as the single plan takes
        assert info["iters"] <= 1 and np.linalg.norm(x - ref) <= 1e-7 * np.linalg.norm(ref)


@pytest.mark.parametrize("partition", PARTITIONS)
def test_multi_bicgstab_cpu(partition):
    a = (scaled_lap3d7(8, 42) + sp.diags([0.3, -0.2], [1, -7], shape=(512, 512))).tocsr()
    b = np.random.default_rng(43).uniform(-1, 1, 512)
    ref = sla.spsolve(a.tocsc(), b)
    for parts in range(1, 5):
        M = spx.multi_plan(a, parts, partition=partition)
        for jacobi in (False, True):
            check_multi_solve(spx.bicgstab, a, b, M, ref, jacobi)
            check_multi_solve(spx.gmres, a, b, M, ref, jacobi)


def test_multi_solve_f32_statuses_and_errors():
    a = lap3d7(8)
    b = np.ones(512)
    x, info = spx.cg(spx.multi_plan(a, 3, precision="f32"), b, rtol=1e-5)
    assert x.dtype == np.float32 and np.linalg.norm(b - a @ x) <= 1e-4 * np.linalg.norm(b)
    M = spx.multi_plan(a, 3, partition="pcoo")
    for solve in (spx.cg, spx.bicgstab):
        with pytest.raises(spx.NotConverged) as one:
            solve(spx.plan(a), b, rtol=1e-12, max_iters=3)
        with pytest.raises(spx.NotConverged) as e:
            solve(M, b, rtol=1e-12, max_iters=3)
        assert e.value.info["iters"] == 3 and len(e.value.info["history"]) == 4
        # the last iterate comes back, as the single plan's does
        assert np.linalg.norm(e.value.x - one.value.x) <= 1e-12 * np.linalg.norm(one.value.x)
    with pytest.raises(spx.SpxError) as e:  # -A is not positive definite
        spx.cg(spx.multi_plan(-a, 2), b)
    assert e.value.args[1] == "SPX_ERR_BREAKDOWN"
    for bad in (np.ones(511), np.ones(513)):
        with pytest.raises(ValueError, match="float64 vector of 512 entries"):
            spx.cg(M, bad)
        with pytest.raises(ValueError, match="float64 vector of 512 entries"):
            spx.bicgstab(M, b, x0=bad)
    with pytest.raises(ValueError, match="max_iters"):
        spx.cg(M, b, max_iters=-1)
    with pytest.raises(spx.SpxError):  # resident vectors need a square op(A)
        spx.cg(spx.multi_plan(random_csr(40, 30, 0.2, 44), 2), np.ones(40))
    assert np.linalg.norm(b - a @ spx.cg(M, b)[0]) <= 2e-8 * np.linalg.norm(b)  # M still works


def test_multi_solve_threads_share_a_plan():
    a = scaled_lap3d7(8, 45)
    M = spx.multi_plan(a, 4, partition="pcsc")
    bs = np.random.default_rng(46).uniform(-1, 1, (4, 512))
    refs = [spx.cg(M, b, jacobi=True)[0] for b in bs]
    bad = [0] * 4

    def work(i):  # the plan's lock: one solve at a time, each its own resident vectors
        for _ in range(10):
            try:
                bad[i] += not np.array_equal(spx.cg(M, bs[i], jacobi=True)[0], refs[i])
            except spx.SpxError:  # in a thread, pytest would only warn of it
                bad[i] += 1

    run_threads(work, 4)
    assert bad == [0] * 4


@pytest.mark.parametrize("spread", [True, False])
def test_multi_solve_cuda(spread):
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    a = scaled_lap3d7(12, 47)
    n = a.shape[0]
    b = np.random.default_rng(48).uniform(-1, 1, n)
    ref = sla.spsolve(a.tocsc(), b)
    c = (a + sp.diags([0.3], [1], shape=(n, n))).tocsr()
    ref_c = sla.spsolve(c.tocsc(), b)
    for partition in PARTITIONS:
        for parts in range(1, 5):
            M = spx.multi_plan(a, parts, partition=partition, device="cuda", spread=spread)
            assert M.device == "cuda"
            for jacobi in (False, True):
                check_multi_solve(spx.cg, a, b, M, ref, jacobi)
            M = spx.multi_plan(c, parts, partition=partition, device="cuda", spread=spread)
            check_multi_solve(spx.bicgstab, c, b, M, ref_c, True)


def spmm_plan(a, dtype=np.float64, **kw):
    return spx.plan(a, operation="spmm", precision="f64" if dtype == np.float64 else "f32", **kw)


def spmm_reference(op, X):
    """op @ X in float64, whatever the operands' type."""
    return op.astype(np.float64) @ X.astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fmt", ["csr", "ref", "auto"])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("k", [1, 3, 40])
def test_spmm_matches_scipy(dtype, fmt, transpose, k):
    a = heavy_row_csr(300, 200, 50, dtype)
    op = (a.T if transpose else a).tocsr()
    rows, cols = op.shape
    rng = np.random.default_rng(51)
    X = rng.uniform(-1, 1, (cols, k)).astype(dtype)
    Y0 = rng.uniform(-1, 1, (rows, k)).astype(dtype)
    tol = 16 * np.finfo(dtype).eps
    P = spmm_plan(a, dtype, format=fmt, transpose=transpose)
    assert P.operation == "spmm" and P.shape == (rows, cols) and P.dtype == dtype
    assert P.format == ("csr" if fmt == "auto" else fmt)  # auto: csr for SpMM on the CPU
    Y = P @ X
    assert isinstance(Y, np.ndarray) and Y.dtype == dtype and Y.shape == (rows, k)
    assert rel_err(Y, spmm_reference(op, X), op, X) <= tol
    assert np.array_equal(P @ X, Y)  # the same bits every call
    Yab = Y0.copy()
    assert P.matmat(X, Yab, 2.0, -0.5) is Yab
    assert rel_err(Yab, 2.0 * spmm_reference(op, X) - 0.5 * Y0, 2 * op, X) <= tol
    y = P @ X[:, -1]  # 1-D (a strided view): one column, a 1-D result
    assert y.shape == (rows,) and np.array_equal(y, Y[:, -1])  # column bits do not depend on k


def test_spmm_empty_and_zero_columns():
    a = random_csr(30, 20, 0.2, 57)
    P = spmm_plan(a)
    assert (P @ np.ones((20, 0))).shape == (30, 0)
    Y = np.full((30, 2), 5.0)
    P.matmat(np.ones((20, 2)), Y, 0.0, 1.0)  # alpha 0, beta 1: Y unchanged
    assert (Y == 5.0).all()


@pytest.mark.parametrize("fmt", ["csr", "ref"])
def test_spmm_strided_views_in_place(fmt):
    a = random_csr(120, 90, 0.1, 52)
    P = spmm_plan(a, format=fmt)
    rng = np.random.default_rng(53)
    wide_x = rng.uniform(-1, 1, (90, 11))
    X = wide_x[:, 2:7]  # k = 5, ldx = 11
    wide_y = rng.uniform(-1, 1, (120, 12))
    before = wide_y.copy()
    Y = wide_y[:, 4:9]  # ldy = 12: written in place
    assert P.matmat(X, Y, 1.5, 0.25) is Y
    want = P.matmat(np.ascontiguousarray(X), before[:, 4:9].copy(), 1.5, 0.25)
    assert np.array_equal(wide_y[:, 4:9], want)  # the bits of contiguous copies
    ref = 1.5 * (a @ X) + 0.25 * before[:, 4:9]
    assert rel_err(want, ref, 1.5 * a, X) <= 16 * np.finfo(np.float64).eps
    assert np.array_equal(wide_y[:, :4], before[:, :4])  # columns past Y's are not touched
    assert np.array_equal(wide_y[:, 9:], before[:, 9:])
    rows_x = rng.uniform(-1, 1, (180, 5))[::2]  # every other row: ldx = 10
    rows_y = np.zeros((240, 5))
    P.matmat(rows_x, rows_y[1::2])
    assert np.array_equal(rows_y[1::2], P @ np.ascontiguousarray(rows_x)) and not rows_y[::2].any()
    y = wide_y[:, 0]  # 1-D views: one column with a row stride
    P.matvec(wide_x[:, 0], y)
    assert np.array_equal(wide_y[:, 0], P @ np.ascontiguousarray(wide_x[:, 0]))
    square = spmm_plan(random_csr(40, 40, 0.1, 58), format=fmt)
    both = rng.uniform(-1, 1, (40, 6))  # [X | Y] in one array: interleaved, not shared
    want = square @ np.ascontiguousarray(both[:, :3])
    square.matmat(both[:, :3], both[:, 3:])
    assert np.array_equal(both[:, 3:], want)


@pytest.mark.parametrize("fmt", ["csr", "ref"])
def test_spmm_beta_zero_does_not_read_y(fmt):
    a = random_csr(120, 90, 0.1, 59)
    P = spmm_plan(a, format=fmt)
    X = np.random.default_rng(60).uniform(-1, 1, (90, 3))
    Y = np.full((120, 3), np.nan)
    P.matmat(X, Y, 1.0, 0.0)
    assert np.array_equal(Y, P @ X)
    wide = np.full((120, 7), np.nan)
    P.matmat(X, wide[:, 2:5], 2.0, 0.0)
    assert np.array_equal(wide[:, 2:5], 2.0 * (P @ X))
    assert np.isnan(wide[:, :2]).all() and np.isnan(wide[:, 5:]).all()
    Y32 = np.full((120, 3), np.nan, dtype=np.float32)
    spmm_plan(a, np.float32, format=fmt).matmat(X.astype(np.float32), Y32)
    assert np.isfinite(Y32).all()


class FakeDeviceArray:
    """An object with __cuda_array_interface__ (no GPU memory behind it): the
    binding reads the interface, and refuses it on a CPU plan."""

    def __init__(self, shape, typestr="<f8", strides=None, **more):
        self.__cuda_array_interface__ = dict(shape=shape, typestr=typestr, strides=strides,
                                             data=(0x1000, False), version=3, **more)


def test_spmm_errors():
    a = random_csr(40, 30, 0.2, 54)
    P = spmm_plan(a)
    X, Y = np.ones((30, 3)), np.ones((40, 3))
    bad = [
        (lambda: P @ np.ones((31, 3)), r"X must have 30 rows \(op\(A\)'s columns\), not 31"),
        (lambda: P @ np.ones(29), "X must have 30 rows"),
        (lambda: P.matmat(X, np.ones((41, 3))), r"Y must have 40 rows \(op\(A\)'s rows\)"),
        (lambda: P.matmat(X, np.ones((40, 4))), "X has 3 columns and Y 4"),
        (lambda: P @ X.astype(np.float32), "X must be a float64 array"),
        (lambda: P.matmat(X, Y.astype(np.float32)), "Y must be a float64 array"),
        (lambda: P @ np.ones((30, 3), dtype=np.int64), "X must be a float64 array"),
        (lambda: P @ np.asfortranarray(X), "columns must be adjacent"),
        (lambda: P @ np.ones((30, 6))[:, ::2], "columns must be adjacent"),
        (lambda: P.matmat(X, np.ones((40, 6))[:, ::2]), "Y's columns must be adjacent"),
        (lambda: P @ X[::-1], "rows must be"),
        (lambda: P @ np.ones((30, 3, 2)), "1-D or 2-D, not 3-D"),
        (lambda: spmm_plan(a, np.float32) @ X, "X must be a float32 array"),
        (lambda: P.matmat(FakeDeviceArray((30, 3)), FakeDeviceArray((40, 3))),
         'device arrays take a plan made with device="cuda"'),
        (lambda: P.matmat(FakeDeviceArray((30, 3)), Y), 'device="cuda"'),
        (lambda: P @ FakeDeviceArray((30, 3)), 'device="cuda"'),
        (lambda: P.matmat(FakeDeviceArray((30, 3), "<f4"), Y), "X must be a float64 array"),
        (lambda: P.matmat(FakeDeviceArray((30, 3), strides=(48, 16)), Y), "adjacent"),
        (lambda: P.matmat(FakeDeviceArray((30, 3), mask=0), Y), "__cuda_array_interface__"),
    ]
    for call, match in bad:
        with pytest.raises(ValueError, match=match):
            call()
    square = spmm_plan(random_csr(30, 30, 0.2, 61))
    Z = np.ones((31, 6))
    for x, y in [(Z[:30], Z[:30]), (Z[:30, :3], Z[:30, 2:5]), (Z[:30, 0], Z[:30, 0]),
                 (Z[1:, :3], Z[:30, :3])]:  # X = Y must be written Y = A @ Y.copy()
        with pytest.raises(ValueError, match="must not share memory"):
            square.matmat(x, y)
    Yro = np.ones((40, 3))
    Yro.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        P.matmat(X, Yro)
    P.matmat(X, Y)  # X read-only is fine
    with pytest.raises(TypeError):
        P @ [[1.0] * 3 for _ in range(30)]


def test_spmm_plans_and_spmv_plans_apart():
    a = random_csr(40, 30, 0.2, 62)
    X, Y = np.ones((30, 3)), np.ones((40, 3))
    P = spx.plan(a)  # SpMV
    assert P.operation == "spmv" and P.info()["operation"] == "spmv"
    for call in (lambda: P @ X, lambda: P.matvec(X, Y), lambda: P.matvec(np.ones(30), Y),
                 lambda: P.matmat(X, Y), lambda: P @ np.ones((30, 1))):
        with pytest.raises(ValueError, match='operation="spmm"'):
            call()
    for name in ("nonesuch", "SpMM", "", None):  # refused, not taken for SpMV
        with pytest.raises(ValueError, match="operation is 'spmv', 'spmm', 'sddmm' or 'spgemm'"):
            spx.plan(a, operation=name)
    S = spx.plan(a, operation="spmm")
    assert S.info()["operation"] == "spmm"
    assert np.allclose(S.matvec(np.ones(30), np.zeros(40)), a @ np.ones(30), rtol=1e-14)
    assert spx.plan(a, operation="spgemm").operation == "spgemm"
    with pytest.raises(spx.SpxError) as e:
        spx.plan(a, operation="spmm", format="sell")
    assert e.value.args[1] == "SPX_ERR_NO_FORMAT"
    with pytest.raises(spx.SpxError) as e:
        spx.plan(a, operation="spmm", params="reorder=rcm")
    assert e.value.args[1] == "SPX_ERR_BAD_PARAM" and "reorder" in e.value.args[2]
    with pytest.raises(ValueError, match="vector of 30 entries"):  # MultiPlans take vectors
        spx.multi_plan(a, 2) @ np.ones((30, 1))
    spmm = {f["name"] for f in spx.formats() if "spmm" in f["operations"]}
    assert {"csr", "ref"} <= spmm


def test_spmm_threads_share_a_plan():
    a = heavy_row_csr(2000, 1500, 63)
    P = spmm_plan(a, format="csr")
    Xs = np.random.default_rng(64).uniform(-1, 1, (4, 1500, 8))
    refs = [P @ X for X in Xs]
    bad = [0] * 4

    def work(i):  # the GIL is released during each product; CPU plans take concurrent calls
        Y = np.empty((2000, 8))
        for _ in range(20):
            P.matmat(Xs[i], Y)
            bad[i] += not np.array_equal(Y, refs[i])

    run_threads(work, 4)
    assert bad == [0] * 4


def cuda_spmm_plan(a, dtype, **kw):
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    P = spmm_plan(a, dtype, device="cuda", **kw)
    assert P.device == "cuda" and P.format == "csr" and P.operation == "spmm"
    return P


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("transpose", [False, True])
def test_spmm_cuda_numpy_arrays(dtype, transpose):
    """NumPy X and Y on a CUDA plan: spx_spmm_host (copies, waits)."""
    a = heavy_row_csr(3000, 2000, 65, dtype)  # a row of 2000 nonzeros: a thread block's
    op = (a.T if transpose else a).tocsr()
    rows, cols = op.shape
    P = cuda_spmm_plan(a, dtype, transpose=transpose)
    rng = np.random.default_rng(66)
    tol = 16 * np.finfo(dtype).eps
    for k in (1, 3, 40):
        X = rng.uniform(-1, 1, (cols, k)).astype(dtype)
        Y = P @ X
        assert isinstance(Y, np.ndarray) and Y.dtype == dtype and Y.shape == (rows, k)
        assert rel_err(Y, spmm_reference(op, X), op, X) <= tol, k
        assert np.array_equal(P @ X[:, -1], Y[:, -1])  # 1-D: one column, the same bits
        wide = rng.uniform(-1, 1, (rows, k + 4)).astype(dtype)
        before = wide.copy()
        P.matmat(X, wide[:, 2:2 + k], 2.0, -0.5)
        want = 2.0 * spmm_reference(op, X) - 0.5 * before[:, 2:2 + k]
        assert rel_err(wide[:, 2:2 + k], want, 2 * op, X) <= tol, k
        assert np.array_equal(wide[:, :2], before[:, :2])
        assert np.array_equal(wide[:, 2 + k:], before[:, 2 + k:])
        nan = np.full((rows, k), np.nan, dtype=dtype)
        P.matmat(X, nan)  # beta = 0 never reads Y
        assert np.array_equal(nan, Y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_spmm_cuda_cupy_arrays(dtype):
    """CuPy X and Y on a CUDA plan: spx_spmm on their device memory, views in place."""
    a = heavy_row_csr(3000, 2000, 67, dtype)
    P = cuda_spmm_plan(a, dtype)
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(68)
    tol = 16 * np.finfo(dtype).eps
    for k in (1, 3, 40):
        Xh = rng.uniform(-1, 1, (2000, k)).astype(dtype)
        X = cupy.asarray(Xh)
        Y = P @ X
        assert isinstance(Y, cupy.ndarray) and Y.dtype == dtype and Y.shape == (3000, k)
        assert rel_err(Y.get(), spmm_reference(a, Xh), a, Xh) <= tol, k
        assert np.array_equal(Y.get(), P @ Xh)  # one kernel for device and host arrays
        y = P @ X[:, -1]  # a strided 1-D view: one column
        assert isinstance(y, cupy.ndarray) and y.shape == (3000,)
        assert np.array_equal(y.get(), Y[:, -1].get())
        wide_h = rng.uniform(-1, 1, (3000, k + 3)).astype(dtype)
        wide = cupy.asarray(wide_h)
        view = wide[:, 1:1 + k]  # ldy = k + 3, written in place
        assert P.matmat(X, view, 2.0, -0.5) is view
        got = wide.get()
        want = 2.0 * spmm_reference(a, Xh) - 0.5 * wide_h[:, 1:1 + k]
        assert rel_err(got[:, 1:1 + k], want, 2 * a, Xh) <= tol, k
        assert np.array_equal(got[:, :1], wide_h[:, :1])
        assert np.array_equal(got[:, 1 + k:], wide_h[:, 1 + k:])
    with pytest.raises(ValueError, match="must both be host arrays or both device arrays"):
        P.matmat(X, np.empty((3000, 40), dtype=dtype))
    with pytest.raises(ValueError, match="columns must be adjacent"):
        P @ cupy.asfortranarray(X)
    with pytest.raises(ValueError, match="must be a"):
        P @ X.astype(np.float16)


# CG of the k columns of a 2-D b at once (spx_cg_many on an SpMM plan)

def check_cg_columns(a, B, X, info, rtol, one_plan, x0=None, jacobi=False, cols=None):
    """X, info = spx.cg(S, B) against spx.cg of each column (of cols, default all) alone
    on one_plan (an SpMV plan of a): close, iterations within 1, residuals, info's shape."""
    k = B.shape[1]
    f64 = B.dtype == np.float64
    assert isinstance(X, np.ndarray) and X.shape == B.shape and X.dtype == B.dtype
    assert X.flags.c_contiguous
    assert len(info["iters"]) == k and len(info["rel_residual"]) == k and info["ms"] > 0
    assert len(info["history"]) == max(info["iters"]) + 1
    for j in range(k) if cols is None else cols:
        xj, one = spx.cg(one_plan, B[:, j], x0=None if x0 is None else x0[:, j], rtol=rtol,
                         jacobi=jacobi)
        assert abs(info["iters"][j] - one["iters"]) <= 1, (j, info["iters"], one["iters"])
        assert np.linalg.norm(X[:, j] - xj) <= (1e-8 if f64 else 1e-3) * np.linalg.norm(xj), j
        bj, xj64 = B[:, j].astype(np.float64), X[:, j].astype(np.float64)
        res = np.linalg.norm(bj - a @ xj64) / np.linalg.norm(bj)
        assert info["rel_residual"][j] <= 2 * rtol and res <= (2 if f64 else 10) * rtol, j


def test_cg_many_columns_match_one_at_a_time():
    A = spx.generate("lap3d7:10")
    a = A.to_scipy()
    n = a.shape[0]
    B = np.random.default_rng(70).uniform(-1, 1, (n, 4))
    B[:, 2] *= 1e-3  # columns of other sizes: each its own stop
    S = spx.plan(A, operation="spmm", format="csr")
    X, info = spx.cg(S, B, rtol=1e-10)
    check_cg_columns(a, B, X, info, 1e-10, spx.plan(A))
    ref = sla.spsolve(a.tocsc(), B)
    assert np.linalg.norm(X - ref) <= 1e-7 * np.linalg.norm(ref)
    for j in range(4):  # and scipy's CG on each column
        xs, code = sla.cg(a, B[:, j], rtol=1e-10)
        assert code == 0 and np.linalg.norm(X[:, j] - xs) <= 1e-7 * np.linalg.norm(xs)
    assert info["history"][0] == 1.0 and info["history"][-1] <= 1e-10
    for P in (A, a):  # a matrix is planned for SpMM (auto: csr on the CPU)
        again, info2 = spx.cg(P, B, rtol=1e-10)
        assert np.array_equal(again, X) and info2["iters"] == info["iters"]
    X1, info1 = spx.cg(S, B[:, :1], rtol=1e-10)  # k = 1 stays 2-D
    assert X1.shape == (n, 1) and len(info1["iters"]) == 1
    assert np.linalg.norm(X1[:, 0] - X[:, 0]) <= 1e-12 * np.linalg.norm(X[:, 0])
    X0, info0 = spx.cg(S, np.ones((n, 0)))  # no columns: nothing to do
    assert X0.shape == (n, 0) and info0["iters"] == [] and info0["history"] == []


def test_cg_many_strided_and_fortran_b():
    """b is read in place as P @ X reads X: any row stride, adjacent columns; Fortran
    order is refused, not copied. x0 is copied, any layout."""
    A = spx.generate("lap3d7:8")
    a = A.to_scipy()
    n = a.shape[0]
    S = spx.plan(A, operation="spmm")
    rng = np.random.default_rng(71)
    wide = rng.uniform(-1, 1, (n, 9))
    before = wide.copy()
    want, info = spx.cg(S, np.ascontiguousarray(wide[:, 2:6]), rtol=1e-10)
    X, info2 = spx.cg(S, wide[:, 2:6], rtol=1e-10)  # ldb = 9
    assert np.array_equal(X, want) and info2["iters"] == info["iters"]
    assert np.array_equal(wide, before)  # b is not written
    rows = rng.uniform(-1, 1, (2 * n, 3))
    X, _ = spx.cg(S, rows[::2], rtol=1e-10)  # every other row: ldb = 6
    assert np.array_equal(X, spx.cg(S, np.ascontiguousarray(rows[::2]), rtol=1e-10)[0])
    with pytest.raises(ValueError, match="columns must be adjacent"):
        spx.cg(S, np.asfortranarray(wide[:, 2:6]))
    with pytest.raises(ValueError, match="columns must be adjacent"):
        spx.cg(S, wide[:, ::2])
    x0 = np.asfortranarray(rng.uniform(-1, 1, (n, 4)))
    kept = x0.copy()
    X, _ = spx.cg(S, wide[:, 2:6], x0=x0, rtol=1e-10)
    assert X.flags.c_contiguous and np.array_equal(x0, kept)  # x0 copied, not written
    assert np.array_equal(X, spx.cg(S, wide[:, 2:6], x0=np.ascontiguousarray(kept), rtol=1e-10)[0])


def test_cg_many_x0_and_jacobi():
    a = scaled_lap3d7(8, 72)
    n = a.shape[0]
    rng = np.random.default_rng(73)
    B = rng.uniform(-1, 1, (n, 4))
    B[:, 1] = 0.0  # a zero column: x = 0 at once
    ref = sla.spsolve(a.tocsc(), B)
    x0 = rng.uniform(-1, 1, (n, 4))
    x0[:, 1] = 0.0
    x0[:, 3] = ref[:, 3]  # already solved: stops at once
    S, P = spx.plan(a, operation="spmm"), spx.plan(a)
    for jacobi in (False, True):
        X, info = spx.cg(S, B, x0=x0, rtol=1e-10, jacobi=jacobi)
        check_cg_columns(a, B, X, info, 1e-10, P, x0, jacobi, cols=(0, 2))
        assert info["iters"][1] == 0 and not X[:, 1].any() and info["rel_residual"][1] == 0.0
        assert info["iters"][3] <= 1 and info["rel_residual"][3] <= 1e-10
        assert np.linalg.norm(X - ref) <= 1e-7 * np.linalg.norm(ref)
    assert spx.cg(S, B, jacobi=True)[1]["iters"][0] < 0.8 * spx.cg(S, B)[1]["iters"][0]


def test_cg_many_f32():
    A = spx.generate("lap3d7:8")
    a = A.to_scipy()
    B = np.random.default_rng(74).uniform(-1, 1, (a.shape[0], 4)).astype(np.float32)
    S = spx.plan(A, operation="spmm", precision="f32")
    X, info = spx.cg(S, B, rtol=1e-5)
    check_cg_columns(a, B, X, info, 1e-5, spx.plan(A, precision="f32"))
    with pytest.raises(ValueError, match="B must be a float32 array"):
        spx.cg(S, B.astype(np.float64))
    with pytest.raises(ValueError, match="B must be a float64 array"):
        spx.cg(spx.plan(A, operation="spmm"), B)


def test_cg_many_not_converged_and_breakdown():
    a = lap3d7(8)
    B = np.random.default_rng(75).uniform(-1, 1, (512, 4))
    S = spx.plan(a, operation="spmm")
    with pytest.raises(spx.NotConverged) as e:
        spx.cg(S, B, rtol=1e-12, max_iters=2)
    info = e.value.info
    assert info["iters"] == [2] * 4 and len(info["history"]) == 3
    assert min(info["rel_residual"]) > 1e-12 and "4 of 4 columns" in e.value.args[2]
    assert e.value.x.shape == B.shape and e.value.x.any()  # every column's last iterate
    for j in range(4):  # each the 1-D solve's after 2 iterations
        with pytest.raises(spx.NotConverged) as one:
            spx.cg(spx.plan(a), B[:, j], rtol=1e-12, max_iters=2)
        assert np.linalg.norm(e.value.x[:, j] - one.value.x) <= 1e-12 * np.linalg.norm(one.value.x)
    with pytest.raises(spx.SpxError) as e:  # -A is not positive definite
        spx.cg(spx.plan(-a, operation="spmm"), B)
    assert e.value.args[1] == "SPX_ERR_BREAKDOWN" and not isinstance(e.value, spx.NotConverged)


def test_cg_many_errors():
    a = lap3d7(6)
    n = a.shape[0]
    B = np.ones((n, 3))
    S = spx.plan(a, operation="spmm")

    def core(B, X, kind="cg"):  # the binding below spx.cg, which makes X itself
        return S._p.solve_many(kind, B, X, 1e-8, 10, False, True)

    fake = FakeDeviceArray((n, 3))
    bad = [
        (lambda: spx.cg(spx.plan(a), B), r'operation="spmm", not \'spmv\''),
        (lambda: spx.cg(spx.plan(a, operation="spgemm"), B), 'operation="spmm"'),
        (lambda: spx.bicgstab(S, B), "bicgstab takes a 1-D b"),
        (lambda: spx.bicgstab(a, B), "bicgstab takes a 1-D b"),
        (lambda: spx.cg(spx.multi_plan(a, 2), B), "a MultiPlan solves one right-hand side"),
        (lambda: spx.cg(S, np.ones((n + 1, 3))), rf"B must have {n} rows \(op\(A\)'s rows\)"),
        (lambda: spx.cg(S, B, x0=np.ones((n, 2))), r"x0 must have shape \(216, 3\), as b, not"),
        (lambda: spx.cg(S, B, x0=np.ones(n)), "x0 must have shape"),
        (lambda: spx.cg(S, B, max_iters=-1), "max_iters"),
        (lambda: core(fake, fake), 'device arrays take a plan made with device="cuda"'),
        (lambda: core(B, fake), 'device="cuda"'),
        (lambda: core(B, np.zeros((n, 3)), "bicgstab"), "cg only"),
        (lambda: core(B, np.zeros((n, 2))), "B has 3 columns and X 2"),
        (lambda: core(B, B), "must not share memory"),
    ]
    for call, match in bad:
        with pytest.raises(ValueError, match=match):
            call()
    with pytest.raises(spx.SpxError) as e:  # a solver needs a square matrix
        spx.cg(random_csr(40, 30, 0.2, 76), np.ones((40, 2)))
    assert e.value.args[1] == "SPX_ERR_DIM_MISMATCH"
    with pytest.raises(spx.SpxError, match="SpMV plan"):  # 1-D b on an SpMM plan: the library's
        spx.cg(S, np.ones(n))
    assert np.linalg.norm(B - a @ spx.cg(S, B)[0]) <= 2e-8 * np.linalg.norm(B)  # S still works


def test_cg_many_workspace_and_threads():
    """Solves in turn on one SpMM plan (which keeps the workspace of the last k) give the
    bits of each on a plan of its own, and so do solves from threads at once (the GIL is
    released during each; a second solve at once allocates its own workspace)."""
    a = scaled_lap3d7(8, 77)
    rng = np.random.default_rng(78)
    Bs = [rng.uniform(-1, 1, (a.shape[0], k)) for k in (4, 2, 4, 1)]
    S = spx.plan(a, operation="spmm")
    refs = []
    for B, jacobi, keep in zip(Bs, (False, True, True, False), (True, True, False, True)):
        X, info = spx.cg(S, B, rtol=1e-10, jacobi=jacobi, keep_workspace=keep)
        Xf, infof = spx.cg(spx.plan(a, operation="spmm"), B, rtol=1e-10, jacobi=jacobi)
        assert np.array_equal(X, Xf) and info["iters"] == infof["iters"]
        refs.append(X)
    bad = [0] * 4

    def work(i):
        for _ in range(5):
            bad[i] += not np.array_equal(spx.cg(S, Bs[i], rtol=1e-10, jacobi=i in (1, 2))[0],
                                         refs[i])

    run_threads(work, 4)
    assert bad == [0] * 4


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cg_many_cuda(dtype):
    """CuPy B on a CUDA SpMM plan (spx_cg_many on device memory, a CuPy X) against NumPy B
    on the same plan (spx_cg_many_host: the same solve, the same bits) and a CPU plan
    (close, iterations within 1, as tests/test_solve_many.c's check_cuda); strided views,
    a cupyx matrix planned for SpMM, NotConverged and the errors."""
    a = lap3d7(12).astype(dtype)
    n = a.shape[0]
    S = cuda_spmm_plan(a, dtype)
    cupy = pytest.importorskip("cupy")
    cusp = pytest.importorskip("cupyx.scipy.sparse")
    f64 = dtype == np.float64
    rtol, xtol = (1e-10, 1e-7) if f64 else (1e-5, 1e-2)
    Bh = np.random.default_rng(80).uniform(-1, 1, (n, 6)).astype(dtype)
    B = cupy.asarray(Bh)
    for jacobi in (False, True):
        X, info = spx.cg(S, B, rtol=rtol, jacobi=jacobi)
        assert isinstance(X, cupy.ndarray) and X.shape == (n, 6) and X.dtype == dtype
        Xh, infoh = spx.cg(S, Bh, rtol=rtol, jacobi=jacobi)
        assert isinstance(Xh, np.ndarray) and np.array_equal(Xh, X.get())
        assert infoh["iters"] == info["iters"] and len(info["history"]) == max(info["iters"]) + 1
        Xc, infoc = spx.cg(spmm_plan(a, dtype), Bh, rtol=rtol, jacobi=jacobi)
        assert all(abs(g - c) <= 1 for g, c in zip(info["iters"], infoc["iters"])), (info, infoc)
        assert np.abs(Xh - Xc).max() <= xtol * np.abs(Xc).max()
        assert max(info["rel_residual"]) <= 2 * rtol
        res = np.linalg.norm(Bh - a @ Xh.astype(np.float64), axis=0) / np.linalg.norm(Bh, axis=0)
        assert res.max() <= (2 if f64 else 10) * rtol
    wide = cupy.asarray(np.random.default_rng(81).uniform(-1, 1, (n, 9)).astype(dtype))
    X, _ = spx.cg(S, wide[:, 3:7], x0=cupy.ones((n, 4), dtype=dtype), rtol=rtol)  # ldb = 9
    want, _ = spx.cg(S, cupy.ascontiguousarray(wide[:, 3:7]), x0=np.ones((n, 4)), rtol=rtol)
    assert isinstance(want, cupy.ndarray) and np.array_equal(X.get(), want.get())
    X, info = spx.cg(S, B, rtol=rtol)
    Xd, infod = spx.cg(spx.matrix(cusp.csr_matrix(a)), B, rtol=rtol)  # an SpMM plan on the GPU
    assert isinstance(Xd, cupy.ndarray)
    assert all(abs(d - g) <= 1 for d, g in zip(infod["iters"], info["iters"]))
    assert float(cupy.abs(Xd - X).max()) <= xtol * float(cupy.abs(X).max())
    with pytest.raises(spx.NotConverged) as e:
        spx.cg(S, B, rtol=1e-12, max_iters=2)
    assert isinstance(e.value.x, cupy.ndarray) and e.value.info["iters"] == [2] * 6
    with pytest.raises(ValueError, match="columns must be adjacent"):
        spx.cg(S, cupy.asfortranarray(B))
    with pytest.raises(ValueError, match='device arrays take a plan made with device="cuda"'):
        spx.cg(spmm_plan(a, dtype), B)
    P = spx.plan(a, device="cuda", precision="f64" if f64 else "f32")  # 1-D: SpMV plans
    x, _ = spx.cg(P, cupy.ascontiguousarray(B[:, 2]), rtol=rtol)
    assert np.abs(x.get() - Xc[:, 2]).max() <= xtol * np.abs(Xc).max()
    for bad in (B[:, 2], B[:, 2].astype(np.float16), B[:-1, 2].copy()):  # the address alone
        with pytest.raises(ValueError, match="expected a contiguous"):  # would be read
            spx.cg(P, bad)
    with pytest.raises(ValueError, match="expected a contiguous"):
        spx.cg(P, cupy.ascontiguousarray(B[:, 2]), x0=B[:-1, 3])  # x0 is copied, any stride
