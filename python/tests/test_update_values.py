"""P.update_values (spx_plan_update_values) from Python: a plan given new values multiplies
as a plan made from the matrix with those values does, bit for bit, and as scipy does within
rounding; the wrapped scipy arrays stay as they were; op T, SpMM, CuPy values on CUDA plans;
refused dtypes, lengths, layouts and SpGEMM plans. CUDA cases skip without a GPU or CuPy."""
import numpy as np
import pytest
import scipy.sparse as sp

import spx
from test_spx import random_csr, rel_err

CPU_FORMATS = ["auto", "csr", "coo", "sell", "axc", "axt-uh", "ref"]


def new_values(a, seed, dtype):
    return np.random.default_rng(seed).uniform(-1, 1, a.nnz).astype(dtype)


def with_data(a, data):
    b = a.copy()
    b.data = data.copy()
    return b


@pytest.mark.parametrize("fmt", CPU_FORMATS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cpu_update_matches_a_new_plan(fmt, dtype):
    a = random_csr(400, 400, 0.03, 21, dtype)
    before = a.data.copy()
    prec = "f64" if dtype == np.float64 else "f32"
    P = spx.plan(a, format=fmt, precision=prec)
    v = new_values(a, 22, dtype)
    assert P.update_values(v) is P
    x = np.random.default_rng(23).uniform(-1, 1, 400).astype(dtype)
    b = with_data(a, v)
    y, y_new = P @ x, spx.plan(b, format=fmt, precision=prec) @ x
    assert np.array_equal(y, y_new), fmt
    assert rel_err(y, b @ x, b, x) <= 16 * np.finfo(dtype).eps
    assert np.array_equal(a.data, before)  # the caller's arrays are not written


def test_iso_matrix_then_varied_values():
    a = random_csr(300, 300, 0.05, 24)
    a.data[:] = 2.0  # all one number: csr takes its iso path
    P = spx.plan(a, format="csr")
    assert "values=iso" in P.info()["describe"]
    v = new_values(a, 25, np.float64)
    P.update_values(v)
    assert "values=stored" in P.info()["describe"]
    x = np.ones(300)
    b = with_data(a, v)
    assert np.array_equal(P @ x, spx.plan(b, format="csr") @ x)


def test_transposed_and_spmm_plans():
    a = random_csr(250, 180, 0.05, 26)
    v = new_values(a, 27, np.float64)
    b = with_data(a, v)
    PT = spx.plan(a, transpose=True)
    PT.update_values(v)
    x = np.random.default_rng(28).uniform(-1, 1, 250)
    assert np.array_equal(PT @ x, spx.plan(b, transpose=True) @ x)
    PM = spx.plan(a, operation="spmm")
    PM.update_values(v)
    X = np.random.default_rng(29).uniform(-1, 1, (180, 6))
    assert np.array_equal(PM @ X, spx.plan(b, operation="spmm") @ X)


def test_refused_arguments():
    a = random_csr(100, 100, 0.05, 30)
    P = spx.plan(a)
    with pytest.raises(ValueError, match="float64"):
        P.update_values(a.data.astype(np.float32))
    with pytest.raises(ValueError, match="entries"):
        P.update_values(np.ones(a.nnz + 1))
    with pytest.raises(ValueError, match="adjacent"):
        P.update_values(np.ones(2 * a.nnz)[::2])
    with pytest.raises(spx.SpxError) as e:
        spx.plan(a, operation="spgemm").update_values(a.data)
    assert e.value.args[1] == "SPX_ERR_UNSUPPORTED"
    S = spx.plan(a, operation="sddmm")
    assert S.update_values(a.data) is S  # SDDMM reads no values


def test_many_updates_stay_exact():
    """A training loop's pattern: the same plan, new weights each step."""
    a = random_csr(500, 300, 0.02, 31, np.float32)
    P = spx.plan(a, format="csr", precision="f32")
    x = np.random.default_rng(32).uniform(-1, 1, 300).astype(np.float32)
    for step in range(5):
        v = new_values(a, 40 + step, np.float32)
        P.update_values(v)
        b = with_data(a, v)
        assert rel_err(P @ x, b @ x, b, x) <= 16 * np.finfo(np.float32).eps


@pytest.mark.skipif(not spx.device_available("cuda"), reason="no CUDA device")
@pytest.mark.parametrize("fmt", ["auto", "csr", "sell", "dasp", "hbp"])
def test_cuda_update_with_cupy_values(fmt):
    cupy = pytest.importorskip("cupy")
    a = random_csr(3000, 3000, 0.003, 33)
    P = spx.plan(a, format=fmt, device="cuda")
    v = new_values(a, 34, np.float64)
    P.update_values(cupy.asarray(v))
    x = np.random.default_rng(35).uniform(-1, 1, 3000)
    b = with_data(a, v)
    y = P @ x
    assert np.array_equal(y, spx.plan(b, format=fmt, device="cuda") @ x), fmt
    assert rel_err(y, b @ x, b, x) <= 16 * np.finfo(np.float64).eps
    P.update_values(new_values(a, 36, np.float64))  # host values on a CUDA plan
    b = with_data(a, new_values(a, 36, np.float64))
    assert rel_err(P @ x, b @ x, b, x) <= 16 * np.finfo(np.float64).eps


def test_device_values_need_a_cuda_plan():
    class FakeDevice:
        __cuda_array_interface__ = {"data": (0x1000, False), "shape": (3,), "typestr": "<f8",
                                    "strides": None, "version": 3}
    a = sp.csr_matrix(np.eye(3))
    with pytest.raises(ValueError, match="CUDA plan"):
        spx.plan(a).update_values(FakeDevice())
