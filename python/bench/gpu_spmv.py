"""SpX from Python against cupyx on the GPU, same process (issue 18).

For each matrix: the CSR on the GPU as a cupyx.scipy.sparse matrix, then
  cupyx    A @ x                          (cuSPARSE underneath)
  spx csr  spx.plan(A) @ x on spx.matrix(A): the cupyx arrays used in place
           (spx_matrix_wrap_device), so only csr takes it
  spx auto spx.plan on the host copy with device="cuda": AUTO's format, the
           matrix uploaded once at plan time
each with the same cupy x, y allocated per call as cupyx does; the time per
call is the median of 7 batches, each batch timed with CUDA events around
`calls` calls. The results are checked against cupyx (relative error).
Run: python3 python/bench/gpu_spmv.py [file.mtx | gen:SPEC ...]"""
import sys

import cupy
import cupyx.scipy.sparse as csp
import numpy as np
import scipy.io

import spx


def time_calls(fn, calls, batches=7):
    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(batches):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / calls)
    times.sort()
    return times[len(times) // 2]


def load(path):
    if path.startswith("gen:"):
        return spx.generate(path[4:]).to_scipy()
    return scipy.io.mmread(path).tocsr()


def main(paths):
    ratios = {"csr": [], "auto": []}
    print("%-22s %10s %10s %10s %10s %8s %8s  %s" % (
        "matrix", "nnz", "cupyx ms", "spx csr", "spx auto", "csr x", "auto x", "auto's format"))
    for p in paths:
        a = load(p)
        a.sort_indices()
        d = csp.csr_matrix(a)
        x = cupy.asarray(np.random.default_rng(1).uniform(-1, 1, a.shape[1]))
        on_device = spx.plan(spx.matrix(d), format="csr", device="cuda")
        auto = spx.plan(a, device="cuda", expected_calls=1000)
        ref = d @ x
        scale = float(cupy.abs(ref).max()) or 1.0
        for P in (on_device, auto):
            err = float(cupy.abs(P @ x - ref).max()) / scale
            if err > 1e-10:
                raise SystemExit("%s: %s differs from cupyx by %.3g" % (p, P.format, err))
        calls = max(20, int(3e9 / max(a.nnz, 1) / 1000))
        t_cupyx = time_calls(lambda: d @ x, calls)
        t_csr = time_calls(lambda: on_device @ x, calls)
        t_auto = time_calls(lambda: auto @ x, calls)
        print("%-22s %10d %10.4f %10.4f %10.4f %7.2fx %7.2fx  %s" % (
            p.split("/")[-1][:22], a.nnz, t_cupyx, t_csr, t_auto, t_cupyx / t_csr,
            t_cupyx / t_auto, auto.format))
        ratios["csr"].append(t_cupyx / t_csr)
        ratios["auto"].append(t_cupyx / t_auto)
    for k, v in ratios.items():
        if v:
            print("spx %s over cupyx: geometric mean %.2fx over %d matrices (%.2fx to %.2fx)" % (
                k, float(np.exp(np.mean(np.log(v)))), len(v), min(v), max(v)))


if __name__ == "__main__":
    main(sys.argv[1:] or ["gen:lap3d7:64", "gen:rmat:scale=16,ef=16,sym=1"])
