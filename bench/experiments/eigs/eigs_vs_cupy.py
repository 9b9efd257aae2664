"""spx.eigsh (Lanczos, full reorthogonalisation, no restart) against CuPy's
cupyx.scipy.sparse.linalg.eigsh (thick-restart Lanczos) on one GPU, in one process:
for each matrix and end (LA, SA), k eigenvalues to tol, each solver run R times
alternately after one untimed warm-up; the median wall time of a call (the plan or
the CuPy matrix made beforehand, not timed), the eigenvalues' largest relative
difference between the two, and spx's steps.

Usage: python3 eigs_vs_cupy.py [--k K (5)] [--tol T (1e-8)] [--rounds R (5)]
       [--max-steps M (400)] SPEC_OR_MTX ..."""
import sys
import time

import cupy
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cl
import numpy as np

import spx


def arg(name, default, cast):
    if name in sys.argv:
        i = sys.argv.index(name)
        v = sys.argv[i + 1]
        del sys.argv[i:i + 2]
        return cast(v)
    return default


def load(source):
    m = spx.generate(source[4:]) if source.startswith("gen:") else spx.read_mtx(source)
    return m.to_scipy().tocsr().astype(np.float64)


def timed(f):
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    out = f()
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t) * 1e3, out


def main():
    k = arg("--k", 5, int)
    tol = arg("--tol", 1e-8, float)
    rounds = arg("--rounds", 5, int)
    steps = arg("--max-steps", 400, int)
    print("k=%d tol=%g rounds=%d max_steps=%d, %s" % (k, tol, rounds, steps,
          cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()))
    for source in sys.argv[1:]:
        a = load(source)
        P = spx.plan(a, device="cuda")
        g = csp.csr_matrix(a)
        for which in ("LA", "SA"):
            def ours():
                try:
                    w, info = spx.eigsh(P, k=k, which=which, tol=tol, max_steps=steps,
                                        return_eigenvectors=False)
                except spx.NotConverged as e:
                    w, info = e.w, dict(e.info, failed=True)
                return w, info

            def theirs():
                return cupy.asnumpy(cl.eigsh(g, k=k, which=which, tol=tol,
                                             return_eigenvectors=False))
            ours()
            theirs()
            t_ours, t_theirs = [], []
            for _ in range(rounds):
                ms, (w, info) = timed(ours)
                t_ours.append(ms)
                ms, wc = timed(theirs)
                t_theirs.append(ms)
            wc = np.sort(wc)
            diff = np.max(np.abs(w - wc) / np.maximum(np.abs(wc), 1e-300))
            mo, mt = np.median(t_ours), np.median(t_theirs)
            print("%-24s %s n=%-8d spx %9.2f ms (%d steps, %d/%d converged%s)  cupy %9.2f ms"
                  "  cupy/spx %.2f  max rel diff %.1e  %s" % (
                      source, which, a.shape[0], mo, info["steps"], info["converged"], k,
                      ", not converged" if info.get("failed") else "", mt, mt / mo, diff,
                      " ".join("%.10g" % x for x in w[:3])), flush=True)


if __name__ == "__main__":
    main()
