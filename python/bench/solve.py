"""Time to solution of CG from Python: SpX against CuPy (GPU) and scipy (CPU).

lap3d7:M (M = 128 by default: 2,097,152 rows, 14.6M nonzeros), b = ones,
x0 = 0, relative residual 1e-8, no preconditioner, in one process:
  - GPU: spx.cg on a CUDA plan (format auto) with CuPy vectors, against
    cupyx.scipy.sparse.linalg.cg (cuSPARSE SpMV underneath), each run 3
    times after one warm-up solve, median wall time (synchronized);
  - CPU: spx.cg on a CPU plan against scipy.sparse.linalg.cg.
Iterations and the true residual of each answer are printed beside the times.
Run: python3 python/bench/solve.py [M] [--cpu-only|--gpu-only]"""
import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spx


def lap3d7(m):
    one = sp.identity(m, format="csr")
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m), format="csr")
    return (sp.kron(sp.kron(t, one), one) + sp.kron(sp.kron(one, t), one)
            + sp.kron(sp.kron(one, one), t)).tocsr()


def timed(fn, sync, runs=3):
    fn()
    sync()
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        sync()
        t.append(time.perf_counter() - t0)
    t.sort()
    return t[len(t) // 2] * 1e3, out


def gpu(a, rtol):
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cla
    sync = cupy.cuda.runtime.deviceSynchronize
    b = cupy.ones(a.shape[0])
    P = spx.plan(a, device="cuda", expected_calls=1000)
    ms_spx, (x, info) = timed(lambda: spx.cg(P, b, rtol=rtol, max_iters=5000), sync)
    da = csp.csr_matrix(a)
    count = [0]

    import inspect
    tol_name = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"

    def cupy_cg():
        count[0] = 0
        return cla.cg(da, b, maxiter=5000, callback=lambda _: count.__setitem__(0, count[0] + 1),
                      **{tol_name: rtol})

    ms_cupy, (xc, _) = timed(cupy_cg, sync)
    res = lambda v: float(np.linalg.norm(1 - a @ v.get()) / np.sqrt(a.shape[0]))
    print("GPU  spx.cg (%s): %9.1f ms  %5d iterations  residual %.2e" %
          (P.format, ms_spx, info["iters"], res(x)))
    print("GPU  cupyx cg:     %9.1f ms  %5d iterations  residual %.2e" % (ms_cupy, count[0], res(xc)))
    print("GPU  ratio cupyx / spx: %.2fx" % (ms_cupy / ms_spx))


def cpu(a, rtol):
    b = np.ones(a.shape[0])
    P = spx.plan(a, expected_calls=1000)
    ms_spx, (x, info) = timed(lambda: spx.cg(P, b, rtol=rtol, max_iters=5000), lambda: None, 1)
    count = [0]

    def scipy_cg():
        count[0] = 0
        return sla.cg(a, b, rtol=rtol, maxiter=5000,
                      callback=lambda _: count.__setitem__(0, count[0] + 1))

    ms_sci, (xs, _) = timed(scipy_cg, lambda: None, 1)
    res = lambda v: float(np.linalg.norm(b - a @ v) / np.linalg.norm(b))
    print("CPU  spx.cg (%s): %9.1f ms  %5d iterations  residual %.2e" %
          (P.format, ms_spx, info["iters"], res(x)))
    print("CPU  scipy cg:     %9.1f ms  %5d iterations  residual %.2e" % (ms_sci, count[0], res(xs)))
    print("CPU  ratio scipy / spx: %.2fx" % (ms_sci / ms_spx))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    m = int(args[0]) if args else 128
    a = lap3d7(m)
    print("lap3d7:%d: %d rows, %d nonzeros, rtol 1e-8" % (m, a.shape[0], a.nnz))
    if "--cpu-only" not in sys.argv and spx.device_available("cuda"):
        gpu(a, 1e-8)
    if "--gpu-only" not in sys.argv:
        cpu(a, 1e-8)
