"""SpX SpMM from Python against cupyx on the GPU, same process.

For each matrix and block width k: X (cols x k, C order, float64) and
  cupyx    A @ X                          (cuSPARSE's SpMM underneath)
  spx      spx.plan(A, operation="spmm", device="cuda") @ X: AUTO's format, the
           matrix uploaded once at plan time (an SpMM plan takes host arrays)
each allocating its Y per call; the time per call is the median of 7 batches,
each timed with CUDA events around `calls` calls. The results are checked
against cupyx (relative error).
Run: python3 python/bench/gpu_spmm.py [--k K[,K...]] [file.mtx | gen:SPEC ...]"""
import sys

import cupy
import cupyx.scipy.sparse as csp
import numpy as np

from gpu_spmv import load, time_calls

import spx


def one(path, a, d, k):
    X = cupy.asarray(np.random.default_rng(1).uniform(-1, 1, (a.shape[1], k)))
    P = spx.plan(a, operation="spmm", device="cuda", expected_calls=1000)
    ref = d @ X
    scale = float(cupy.abs(ref).max()) or 1.0
    err = float(cupy.abs(P @ X - ref).max()) / scale
    if err > 1e-10:
        raise SystemExit("%s k=%d: spx %s differs from cupyx by %.3g" % (path, k, P.format, err))
    calls = max(10, int(3e9 / max(a.nnz * k, 1) / 100))
    t_cupyx = time_calls(lambda: d @ X, calls)
    t_spx = time_calls(lambda: P @ X, calls)
    return t_cupyx, t_spx, P.format


def main(args):
    ks = [32]
    if args[:1] == ["--k"]:
        ks = [int(k) for k in args[1].split(",")]
        args = args[2:]
    ratios = []
    print("%-22s %10s %5s %10s %10s %8s  %s" % ("matrix", "nnz", "k", "cupyx ms", "spx ms",
                                               "spx x", "spx's format"))
    for p in args or ["gen:lap3d7:64", "gen:rmat:scale=16,ef=16,sym=1"]:
        a = load(p)
        a.sort_indices()
        d = csp.csr_matrix(a)
        for k in ks:
            t_cupyx, t_spx, fmt = one(p, a, d, k)
            print("%-22s %10d %5d %10.4f %10.4f %7.2fx  %s" % (
                p.split("/")[-1][:22], a.nnz, k, t_cupyx, t_spx, t_cupyx / t_spx, fmt))
            ratios.append(t_cupyx / t_spx)
    if ratios:
        print("spx over cupyx: geometric mean %.2fx over %d runs (%.2fx to %.2fx)" % (
            float(np.exp(np.mean(np.log(ratios)))), len(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main(sys.argv[1:])
