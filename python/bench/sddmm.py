"""SpX SDDMM from Python against NumPy (and CuPy) fancy indexing, same process.

For each matrix A and width k: X (rows x k) and Y (cols x k), C order, float64,
and the rows and columns of A's entries (found once, as a user keeps them); then
  numpy    (X[rows] * Y[cols]).sum(axis=1)            the way one writes it today
  einsum   np.einsum("ij,ij->i", X[rows], Y[cols])    the same, no product temporary
  spx      P.sddmm(X, Y), P = spx.plan(A, operation="sddmm"): AUTO's format
  spx 1t   the same with threads=1 (NumPy's indexing and sums run on one thread)
each allocating its result per call; ms per call, the median of 7 batches of
about 0.2 s each (overhead.per_call). With
CuPy and a CUDA device, the same on the GPU (else a line says why not):
  cupy     (X[rows] * Y[cols]).sum(axis=1) on cupy arrays
  spx      P.sddmm(X, Y) of a CUDA plan on the same cupy arrays
timed with CUDA events (gpu_spmv.time_calls). Every result is checked against
numpy's first (relative error). spx's threads are OpenMP's (its plan's describe
says how many).
Run: python3 python/bench/sddmm.py [--k K[,K...]] [file.mtx | gen:SPEC | random:M:N:NNZ ...]"""
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

from overhead import per_call

import spx


def load(spec):
    """A sorted scipy CSR matrix: gen:SPEC (spx.generate), random:M:N:NNZ (about NNZ
    uniform entries, scipy.sparse.random) or a .mtx file."""
    if spec.startswith("gen:"):
        return spx.generate(spec[4:]).to_scipy()
    if spec.startswith("random:"):
        m, n, nnz = (int(v) for v in spec[7:].split(":"))
        return sp.random(m, n, nnz / (m * n), format="csr", random_state=np.random.default_rng(1))
    a = scipy.io.mmread(spec).tocsr()
    a.sort_indices()
    return a


def ms_per_call(fn):
    t0 = time.perf_counter()
    fn()
    return per_call(fn, max(3, int(0.2 / (time.perf_counter() - t0))))[0] / 1e3


def checked(name, z, ref):
    err = float(abs(z - ref).max()) / (float(abs(ref).max()) or 1.0) if ref.size else 0.0
    if err > 1e-12:
        raise SystemExit("%s differs from numpy by %.3g" % (name, err))


def cpu_times(a, rows, cols, X, Y):
    P = spx.plan(a, operation="sddmm", expected_calls=1000)
    P1 = spx.plan(a, operation="sddmm", expected_calls=1000, threads=1)
    ref = (X[rows] * Y[cols]).sum(axis=1)
    checked("spx " + P.format, P.sddmm(X, Y), ref)
    fns = [lambda: (X[rows] * Y[cols]).sum(axis=1),
           lambda: np.einsum("ij,ij->i", X[rows], Y[cols]),
           lambda: P.sddmm(X, Y), lambda: P1.sddmm(X, Y)]
    return [ms_per_call(f) for f in fns], P


def gpu_times(a, rows, cols, X, Y):
    import cupy
    from gpu_spmv import time_calls
    Xd, Yd, rd, cd = (cupy.asarray(v) for v in (X, Y, rows, cols))
    P = spx.plan(a, operation="sddmm", device="cuda", expected_calls=1000)
    ref = (X[rows] * Y[cols]).sum(axis=1)
    checked("cupy", (Xd[rd] * Yd[cd]).sum(axis=1).get(), ref)
    checked("spx cuda " + P.format, P.sddmm(Xd, Yd).get(), ref)
    calls = max(10, int(3e9 / max(a.nnz * X.shape[1], 1) / 100))
    return [time_calls(lambda: (Xd[rd] * Yd[cd]).sum(axis=1), calls),
            time_calls(lambda: P.sddmm(Xd, Yd), calls)], P


def gpu_missing():
    """Why the GPU part does not run, or None."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        return "no CuPy"
    return None if spx.device_available("cuda") else "no CUDA device (or SpX built without CUDA)"


def main(args):
    ks = [8, 32]
    if args[:1] == ["--k"]:
        ks = [int(k) for k in args[1].split(",")]
        args = args[2:]
    specs = args or ["gen:lap3d7:52", "gen:rmat:scale=16,ef=8,sym=1",
                     "random:200000:200000:1000000"]
    why_not = gpu_missing()
    head = "%-28s %9s %4s" % ("matrix", "nnz", "k")
    print("CPU, ms per call:")
    print(head + " %9s %9s %9s %9s %8s %8s  %s" % ("numpy", "einsum", "spx", "spx 1t",
                                                   "/numpy", "/einsum", "spx's plan"))
    gpu_rows = []
    for spec in specs:
        a = load(spec)
        rows, cols = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr)), a.indices
        for k in ks:
            rng = np.random.default_rng(k)
            X, Y = rng.uniform(-1, 1, (a.shape[0], k)), rng.uniform(-1, 1, (a.shape[1], k))
            (t_np, t_es, t_spx, t_one), P = cpu_times(a, rows, cols, X, Y)
            name = "%-28s %9d %4d" % (spec[:28], a.nnz, k)
            print(name + " %9.3f %9.3f %9.3f %9.3f %7.2fx %7.2fx  %s: %s" % (
                t_np, t_es, t_spx, t_one, t_np / t_spx, t_es / t_spx, P.format,
                P.info()["describe"]))
            if why_not is None:
                (t_cp, t_spx), P = gpu_times(a, rows, cols, X, Y)
                gpu_rows.append(name + " %9.4f %9.4f %7.2fx  %s" % (t_cp, t_spx, t_cp / t_spx,
                                                                   P.format))
    if why_not is not None:
        print("GPU part not run: %s" % why_not)
        return
    print("\nGPU, ms per call:")
    print(head + " %9s %9s %8s  %s" % ("cupy", "spx", "/cupy", "spx's format"))
    print("\n".join(gpu_rows))


if __name__ == "__main__":
    main(sys.argv[1:])
