"""spx's SDDMM from Python (P.sddmm, spx.sddmm) against NumPy's (X @ Y.T)[rows, cols]:
patterns with empty rows, no entries, a dense row, 64-bit indices; k = 0, 1, 7, 64;
alpha and beta; views used in place; refused layouts and dtypes; CUDA and CuPy
variants, skipped without a GPU or CuPy."""
import numpy as np
import pytest
import scipy.sparse as sp

import spx
from test_spx import FakeDeviceArray, heavy_row_csr, random_csr, run_threads


def empty_rows_csr(m, n, seed):
    """random_csr with every third row, the first and the last empty."""
    keep = (np.arange(m) % 3 != 0).astype(float)
    keep[-1] = 0.0
    a = (sp.diags(keep) @ random_csr(m, n, 0.1, seed)).tocsr()
    a.eliminate_zeros()
    a.sort_indices()
    return a


MATRICES = {
    "random": lambda: random_csr(300, 200, 0.05, 71),
    "int64": lambda: random_csr(250, 300, 0.05, 72, index=np.int64),
    "dense_row": lambda: heavy_row_csr(300, 200, 73),
    "empty_rows": lambda: empty_rows_csr(200, 150, 74),
    "no_entries": lambda: sp.csr_matrix((40, 30)),
}


def entries(a):
    """The row and column of each stored entry of CSR a, in its order."""
    return np.repeat(np.arange(a.shape[0]), np.diff(a.indptr)), a.indices


def check(z, a, X, Y, alpha=1.0, beta=0.0, z0=None):
    """z against alpha * (X @ Y.T)[rows, cols] + beta * z0 in float64, within 16 eps
    of z's dtype times the largest alpha * |X| |Y|^T + |beta z0| over the entries."""
    rows, cols = entries(a)
    X64, Y64 = X.astype(np.float64), Y.astype(np.float64)
    if X64.ndim == 1:
        X64, Y64 = X64[:, None], Y64[:, None]
    ref = alpha * (X64 @ Y64.T)[rows, cols]
    scale = abs(alpha) * (np.abs(X64) @ np.abs(Y64).T)[rows, cols]
    if beta != 0.0:
        ref += beta * z0.astype(np.float64)
        scale += abs(beta) * np.abs(z0.astype(np.float64))
    assert z.shape == (a.nnz,)
    if a.nnz:
        err = np.abs(z.astype(np.float64) - ref).max()
        assert err <= 16 * np.finfo(z.dtype).eps * max(scale.max(), 1e-300), err


def operands(a, k, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (a.shape[0], k)).astype(dtype),
            rng.uniform(-1, 1, (a.shape[1], k)).astype(dtype))


def sddmm_plan(a, dtype=np.float64, **kw):
    return spx.plan(a, operation="sddmm", precision="f64" if dtype == np.float64 else "f32", **kw)


@pytest.mark.parametrize("name", sorted(MATRICES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fmt", ["csr", "ref", "auto"])
@pytest.mark.parametrize("k", [0, 1, 7, 64])
def test_sddmm_matches_numpy(name, dtype, fmt, k):
    a = MATRICES[name]()
    X, Y = operands(a, k, dtype, 75)
    P = sddmm_plan(a, dtype, format=fmt)
    assert P.operation == "sddmm" and P.info()["operation"] == "sddmm"
    assert P.shape == a.shape and P.dtype == dtype and P.format in ("csr", fmt)
    z = P.sddmm(X, Y)
    assert isinstance(z, np.ndarray) and z.dtype == dtype
    check(z, a, X, Y)
    assert np.array_equal(P.sddmm(X, Y), z)  # the same bits every call
    z0 = np.random.default_rng(76).uniform(-1, 1, a.nnz).astype(dtype)
    Z = z0.copy()
    assert P.sddmm(X, Y, Z, alpha=2.0, beta=-0.5) is Z
    check(Z, a, X, Y, 2.0, -0.5, z0)


def test_sddmm_same_bits_for_any_thread_count():
    a = heavy_row_csr(500, 400, 77)
    for k in (1, 7, 64):
        X, Y = operands(a, k, np.float64, 78)
        z = sddmm_plan(a, format="csr", threads=1).sddmm(X, Y)
        for threads in (2, 3, 8):
            assert np.array_equal(sddmm_plan(a, format="csr", threads=threads).sddmm(X, Y), z)


@pytest.mark.parametrize("fmt", ["csr", "ref"])
def test_sddmm_strided_views_in_place(fmt):
    a = random_csr(120, 90, 0.1, 79)
    P = sddmm_plan(a, format=fmt)
    rng = np.random.default_rng(80)
    wide_x, wide_y = rng.uniform(-1, 1, (120, 11)), rng.uniform(-1, 1, (90, 12))
    X, Y = wide_x[:, 2:9], wide_y[:, 4:11]  # k = 7, ldx = 11, ldy = 12
    want = P.sddmm(np.ascontiguousarray(X), np.ascontiguousarray(Y))
    check(want, a, X, Y)
    assert np.array_equal(P.sddmm(X, Y), want)  # the bits of contiguous copies
    buf = np.full(a.nnz + 8, 7.0)
    Z = buf[3:3 + a.nnz]  # a contiguous slice, written in place
    assert P.sddmm(X, Y, Z) is Z and np.array_equal(Z, want)
    assert (buf[:3] == 7.0).all() and (buf[3 + a.nnz:] == 7.0).all()
    every_other = rng.uniform(-1, 1, (240, 7))[::2]  # ldx = 14
    assert np.array_equal(P.sddmm(every_other, Y),
                          P.sddmm(np.ascontiguousarray(every_other), np.ascontiguousarray(Y)))
    z1 = P.sddmm(wide_x[:, 0], wide_y[:, 0])  # 1-D strided views: one column each
    assert np.array_equal(z1, P.sddmm(wide_x[:, :1], wide_y[:, :1]))
    check(z1, a, wide_x[:, 0], wide_y[:, 0])
    square = sddmm_plan(random_csr(60, 60, 0.1, 81), format=fmt)
    both = rng.uniform(-1, 1, (60, 10))
    same = square.sddmm(both, both)  # X = Y: both are read only
    check(same, square.matrix.to_scipy(), both, both)
    assert np.array_equal(square.sddmm(both[:, :5], both[:, 5:]),
                          square.sddmm(both[:, :5].copy(), both[:, 5:].copy()))


@pytest.mark.parametrize("fmt", ["csr", "ref"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sddmm_beta_zero_does_not_read_z(fmt, dtype):
    a = random_csr(100, 80, 0.1, 82)
    P = sddmm_plan(a, dtype, format=fmt)
    X, Y = operands(a, 7, dtype, 83)
    Z = np.full(a.nnz, np.nan, dtype=dtype)
    assert np.array_equal(P.sddmm(X, Y, Z), P.sddmm(X, Y))
    Z = np.full(a.nnz, np.nan, dtype=dtype)
    P.sddmm(X, Y, Z, alpha=0.0, beta=0.0)
    assert (Z == 0).all()
    z0 = np.random.default_rng(84).uniform(-1, 1, a.nnz).astype(dtype)
    Z = z0.copy()
    P.sddmm(X, Y, Z, alpha=0.0, beta=1.0)  # Z unchanged
    assert np.array_equal(Z, z0)
    empty_x, empty_y = np.ones((100, 0), dtype), np.ones((80, 0), dtype)
    P.sddmm(empty_x, empty_y, Z, beta=3.0)  # k = 0: Z = beta*Z
    assert np.array_equal(Z, (3.0 * z0.astype(np.float64)).astype(dtype))


def test_sddmm_reads_the_pattern_alone():
    a = random_csr(100, 80, 0.1, 85)
    nan = a.copy()
    nan.data[:] = np.nan
    X, Y = operands(a, 7, np.float64, 86)
    for fmt in ("csr", "ref"):
        assert np.array_equal(sddmm_plan(nan, format=fmt).sddmm(X, Y),
                              sddmm_plan(a, format=fmt).sddmm(X, Y))


def test_sddmm_one_shot():
    a = random_csr(150, 120, 0.05, 87)
    X, Y = operands(a, 7, np.float64, 88)
    C = spx.sddmm(a, X, Y)
    assert isinstance(C, sp.csr_matrix) and C.shape == a.shape and C.dtype == np.float64
    assert np.array_equal(C.indptr, a.indptr) and np.array_equal(C.indices, a.indices)
    assert not np.shares_memory(C.indices, a.indices)  # a copy of the pattern
    assert not np.shares_memory(C.indptr, a.indptr)
    check(C.data, a, X, Y)
    z0 = np.random.default_rng(89).uniform(-1, 1, a.nnz)
    Z = z0.copy()
    C = spx.sddmm(a, X, Y, alpha=0.5, beta=2.0, Z=Z, format="ref")
    assert np.shares_memory(C.data, Z)  # Z's values, written in place
    check(Z, a, X, Y, 0.5, 2.0, z0)
    C32 = spx.sddmm(a, X.astype(np.float32), Y.astype(np.float32))  # f32 from X's dtype
    assert C32.dtype == np.float32
    check(C32.data, a, X.astype(np.float32), Y.astype(np.float32))
    with pytest.raises(ValueError, match="X must be a float64 array"):
        spx.sddmm(a, X.astype(np.float32), Y, precision="f64")
    with pytest.raises(ValueError, match="reads Z"):
        spx.sddmm(a, X, Y, beta=1.0)
    dense = (X @ Y.T) * (a.toarray() != 0)
    shuffled = a.copy()  # unsorted indices: Z follows the sorted copy spx.matrix makes
    order = np.concatenate([np.arange(s, e)[::-1] for s, e in zip(a.indptr[:-1], a.indptr[1:])])
    shuffled.indices, shuffled.data = a.indices[order], a.data[order]
    shuffled.has_sorted_indices = False
    C = spx.sddmm(shuffled, X, Y)
    assert C.has_sorted_indices and np.allclose(C.toarray(), dense, rtol=0, atol=1e-13)
    G = spx.generate("lap2d5:12")  # no scipy source: the pattern from to_scipy
    g = G.to_scipy()
    Xg, Yg = operands(g, 3, np.float64, 90)
    C = spx.sddmm(G, Xg, Yg)
    assert np.array_equal(C.indices, g.indices) and np.array_equal(C.indptr, g.indptr)
    check(C.data, g, Xg, Yg)
    C = spx.sddmm(sp.csr_matrix((5, 4)), np.ones((5, 2)), np.ones((4, 2)))
    assert C.shape == (5, 4) and C.nnz == 0


def test_sddmm_errors():
    a = random_csr(40, 30, 0.2, 91)
    P = sddmm_plan(a)
    X, Y, nnz = np.ones((40, 3)), np.ones((30, 3)), a.nnz
    bad = [
        (lambda: P.sddmm(np.ones((41, 3)), Y), r"X must have 40 rows \(A's rows\), not 41"),
        (lambda: P.sddmm(X, np.ones((31, 3))), r"Y must have 30 rows \(A's columns\), not 31"),
        (lambda: P.sddmm(X, np.ones((30, 4))), "X has 3 columns and Y 4"),
        (lambda: P.sddmm(X.astype(np.float32), Y), "X must be a float64 array"),
        (lambda: P.sddmm(X, Y.astype(np.int64)), "Y must be a float64 array"),
        (lambda: P.sddmm(X, Y, np.ones(nnz, np.float32)), "Z must be a float64 array"),
        (lambda: sddmm_plan(a, np.float32).sddmm(X, Y), "X must be a float32 array"),
        (lambda: P.sddmm(np.asfortranarray(X), Y), "X's columns must be adjacent"),
        (lambda: P.sddmm(X, np.asfortranarray(Y)), "Y's columns must be adjacent"),
        (lambda: P.sddmm(np.ones((40, 6))[:, ::2], Y), "X's columns must be adjacent"),
        (lambda: P.sddmm(X[::-1], Y), "rows must be"),
        (lambda: P.sddmm(np.ones((40, 3, 2)), Y), "1-D or 2-D, not 3-D"),
        (lambda: P.sddmm(X, Y, np.ones(nnz + 1)), "Z must be a vector of %d entries" % nnz),
        (lambda: P.sddmm(X, Y, np.ones((nnz, 1))), "Z must be a vector"),
        (lambda: P.sddmm(X, Y, np.ones(2 * nnz)[::2]), "Z's entries must be adjacent"),
        (lambda: P.sddmm(X, Y, beta=0.5), "reads Z"),
        (lambda: P.sddmm(FakeDeviceArray((40, 3)), FakeDeviceArray((30, 3)),
                         FakeDeviceArray((nnz,))),
         'device arrays take a plan made with device="cuda"'),
        (lambda: P.sddmm(X, Y, FakeDeviceArray((nnz,))), 'device="cuda"'),
        (lambda: P.sddmm(X, FakeDeviceArray((30, 3), strides=(48, 16))), "adjacent"),
        (lambda: spx.plan(a).sddmm(X, Y), 'sddmm takes an SDDMM plan: .*operation="sddmm"'),
        (lambda: spx.plan(a, operation="spmm").sddmm(X, Y), "sddmm takes an SDDMM plan"),
        (lambda: P @ np.ones(30), r"P.sddmm\(X, Y\)"),
        (lambda: P.matmat(Y, X), 'operation="spmm"'),
    ]
    for call, match in bad:
        with pytest.raises(ValueError, match=match):
            call()
    buf = np.ones(40 * 3 + 30 * 3 + nnz)  # [X | Y | Z]
    Xb, Yb = buf[:120].reshape(40, 3), buf[120:210].reshape(30, 3)
    P.sddmm(Xb, Yb, buf[210:])  # one buffer, no byte shared: fine
    for z, names in [(buf[100:100 + nnz], "X and Z"), (buf[209:209 + nnz], "Y and Z")]:
        with pytest.raises(ValueError, match=names + " must not share memory"):
            P.sddmm(Xb, Yb, z)
    wide = np.ones((40, 3 + nnz))  # X's rows step over a gap that holds Z: not shared
    P.sddmm(wide[:, :3], Y, wide[5, 3:])
    check(wide[5, 3:], a, wide[:, :3], Y)
    with pytest.raises(ValueError, match="X and Z must not share memory"):
        P.sddmm(wide[:, :3], Y, wide[5, 2:2 + nnz])
    Zro = np.ones(nnz)
    Zro.flags.writeable = False
    with pytest.raises((ValueError, BufferError)):
        P.sddmm(X, Y, Zro)
    X.flags.writeable = False  # X and Y read-only are fine
    P.sddmm(X, Y)
    with pytest.raises(TypeError):
        P.sddmm([[1.0] * 3] * 40, Y)
    with pytest.raises(ValueError, match="operation is 'spmv', 'spmm', 'sddmm' or 'spgemm'"):
        spx.plan(a, operation="SDDMM")
    for kw, status in [(dict(transpose=True), "SPX_ERR_UNSUPPORTED"),
                       (dict(format="sell"), "SPX_ERR_NO_FORMAT"),
                       (dict(params="reorder=rcm"), "SPX_ERR_BAD_PARAM")]:
        with pytest.raises(spx.SpxError) as e:
            spx.plan(a, operation="sddmm", **kw)
        assert e.value.args[1] == status, kw
    sddmm = {f["name"] for f in spx.formats() if "sddmm" in f["operations"]}
    assert {"csr", "ref"} <= sddmm


def test_sddmm_threads_share_a_plan():
    a = heavy_row_csr(2000, 1500, 92)
    P = sddmm_plan(a, format="csr")
    rng = np.random.default_rng(93)
    pairs = [(rng.uniform(-1, 1, (2000, 16)), rng.uniform(-1, 1, (1500, 16))) for _ in range(4)]
    refs = [P.sddmm(X, Y) for X, Y in pairs]
    bad = [0] * 4

    def work(i):  # the GIL is released during each product; CPU plans take concurrent calls
        Z = np.empty(a.nnz)
        for _ in range(20):
            P.sddmm(*pairs[i], Z)
            bad[i] += not np.array_equal(Z, refs[i])

    run_threads(work, 4)
    assert bad == [0] * 4


@pytest.mark.skipif(spx.device_available("cuda"), reason="a CUDA device is here")
def test_sddmm_cuda_plan_needs_a_gpu():
    with pytest.raises(spx.SpxError):
        spx.plan(random_csr(20, 20, 0.2, 94), operation="sddmm", device="cuda")


def cuda_sddmm_plan(a, dtype):
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    P = sddmm_plan(a, dtype, device="cuda")
    assert P.device == "cuda" and P.format == "csr" and P.operation == "sddmm"
    return P


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sddmm_cuda_numpy_arrays(dtype):
    """NumPy X, Y and Z on a CUDA plan: spx_sddmm_host (copies, waits)."""
    a = heavy_row_csr(3000, 2000, 95, dtype)
    P = cuda_sddmm_plan(a, dtype)
    cpu = sddmm_plan(a, dtype, format="ref")
    for k in (0, 1, 7, 64):
        X, Y = operands(a, k, dtype, 96)
        z = P.sddmm(X, Y)
        assert isinstance(z, np.ndarray) and z.dtype == dtype
        check(z, a, X, Y)
        wide = np.ones((3000, k + 4), dtype)
        wide[:, 2:2 + k] = X
        assert np.array_equal(P.sddmm(wide[:, 2:2 + k], Y), z)  # a view: the same bits
        Z = np.full(a.nnz, np.nan, dtype)
        P.sddmm(X, Y, Z)  # beta = 0 never reads Z
        assert np.array_equal(Z, z)
        z0 = cpu.sddmm(X, Y)
        P.sddmm(X, Y, Z, alpha=2.0, beta=-0.5)
        check(Z, a, X, Y, 2.0, -0.5, z0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sddmm_cuda_cupy_arrays(dtype):
    """CuPy X, Y and Z on a CUDA plan: spx_sddmm on device memory, views in place."""
    a = heavy_row_csr(3000, 2000, 97, dtype)
    P = cuda_sddmm_plan(a, dtype)
    cupy = pytest.importorskip("cupy")
    for k in (0, 1, 7, 64):
        Xh, Yh = operands(a, k, dtype, 98)
        X, Y = cupy.asarray(Xh), cupy.asarray(Yh)
        z = P.sddmm(X, Y)
        assert isinstance(z, cupy.ndarray) and z.dtype == dtype and z.shape == (a.nnz,)
        check(z.get(), a, Xh, Yh)
        assert np.array_equal(z.get(), P.sddmm(Xh, Yh))  # one kernel for device and host
        wide = cupy.ones((3000, k + 3), dtype)
        wide[:, 1:1 + k] = X
        Z = cupy.full(a.nnz, 0.25, dtype)
        assert P.sddmm(wide[:, 1:1 + k], Y, Z, 2.0, 4.0) is Z
        check(Z.get(), a, Xh, Yh, 2.0, 4.0, np.full(a.nnz, 0.25, dtype))
    with pytest.raises(ValueError, match="must both be host arrays or both device arrays"):
        P.sddmm(X, Yh)
    with pytest.raises(ValueError, match="must both be host arrays or both device arrays"):
        P.sddmm(X, Y, np.empty(a.nnz, dtype))
    with pytest.raises(ValueError, match="columns must be adjacent"):
        P.sddmm(cupy.asfortranarray(X), Y)
    with pytest.raises(ValueError, match="must be a"):
        P.sddmm(X.astype(np.float16), Y)


def test_sddmm_cupyx_one_shot():
    """spx.sddmm of a cupyx matrix and CuPy X, Y: a cupyx CSR matrix, on the GPU."""
    if not spx.device_available("cuda"):
        pytest.skip("no CUDA device")
    cupy = pytest.importorskip("cupy")
    cusp = pytest.importorskip("cupyx.scipy.sparse")
    a = random_csr(500, 400, 0.02, 99)
    Xh, Yh = operands(a, 7, np.float64, 100)
    for A in (cusp.csr_matrix(a), a):  # a device matrix, or a host one planned on the GPU
        C = spx.sddmm(A, cupy.asarray(Xh), cupy.asarray(Yh))
        assert isinstance(C, cusp.csr_matrix) and C.shape == a.shape
        assert np.array_equal(C.indptr.get(), a.indptr)
        assert np.array_equal(C.indices.get(), a.indices)
        check(C.data.get(), a, Xh, Yh)
