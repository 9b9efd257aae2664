"""spx.eigsh (thick-restart Lanczos, full reorthogonalisation) against the peer a
user would otherwise call, in one process: on --device cuda CuPy's
cupyx.scipy.sparse.linalg.eigsh (thick-restart Lanczos), on --device cpu SciPy's
scipy.sparse.linalg.eigsh (ARPACK, implicitly restarted Lanczos). For each matrix
and end (LA, SA), k eigenvalues to tol, each solver run R times alternately after
one untimed warm-up; the median wall time of a call (the plan or the peer's matrix
made beforehand, not timed), the eigenvalues' largest relative difference between
the two, and spx's products, restarts and fresh starts (its search for copies of
multiple eigenvalues; --skip-copies turns it off).

Usage: python3 eigs_vs_peer.py [--device cuda|cpu (cuda)] [--k K (5)] [--tol T (1e-8)]
       [--rounds R (5)] [--max-steps M (10000 products)] [--basis B (0: spx's default)]
       [--which LA,SA] [--skip-copies 0|1 (0)] SPEC_OR_MTX ..."""
import sys
import time

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


def cuda_peer():
    """(name, make(a) -> matrix, solve(matrix, k, which, tol) -> values, sync)"""
    import cupy
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cl

    def solve(g, k, which, tol):
        return cupy.asnumpy(cl.eigsh(g, k=k, which=which, tol=tol, return_eigenvectors=False))
    name = "cupy on " + cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return name, csp.csr_matrix, solve, cupy.cuda.Device().synchronize


def cpu_peer():
    import scipy.sparse.linalg as sl

    def solve(a, k, which, tol):
        return sl.eigsh(a, k=k, which=which, tol=tol, return_eigenvectors=False)
    return "scipy (ARPACK) on the CPU", (lambda a: a), solve, (lambda: None)


def timed(f, sync):
    sync()
    t = time.perf_counter()
    out = f()
    sync()
    return (time.perf_counter() - t) * 1e3, out


def main():
    device = arg("--device", "cuda", str)
    k = arg("--k", 5, int)
    tol = arg("--tol", 1e-8, float)
    rounds = arg("--rounds", 5, int)
    steps = arg("--max-steps", 10000, int)
    basis = arg("--basis", 0, int)
    ends = arg("--which", "LA,SA", str).split(",")
    skip = arg("--skip-copies", 0, int)
    name, make, solve, sync = cuda_peer() if device == "cuda" else cpu_peer()
    print("k=%d tol=%g rounds=%d max_steps=%d basis=%d skip_copies=%d, peer: %s" % (
        k, tol, rounds, steps, basis, skip, name))
    for source in sys.argv[1:]:
        a = load(source)
        P = spx.plan(a, device=device)
        g = make(a)
        for which in ends:
            def ours():
                try:
                    w, info = spx.eigsh(P, k=k, which=which, tol=tol, max_steps=steps,
                                        basis=basis, skip_copies=bool(skip),
                                        return_eigenvectors=False)
                except spx.NotConverged as e:
                    w, info = e.w, dict(e.info, failed=True)
                return w, info

            def theirs():
                """(values, whether the peer said it converged)"""
                try:
                    return np.sort(solve(g, k, which, tol)), True
                except Exception as e:  # ARPACK's ArpackNoConvergence keeps what converged
                    got = np.sort(np.asarray(getattr(e, "eigenvalues", []), dtype=float))
                    return np.concatenate([got, np.full(k - got.size, np.nan)]), False
            ours()
            theirs()
            t_ours, t_theirs = [], []
            for _ in range(rounds):
                ms, (w, info) = timed(ours, sync)
                t_ours.append(ms)
                ms, (wp, peer_ok) = timed(theirs, sync)
                t_theirs.append(ms)
            diff = np.nanmax(np.abs(w - wp) / np.maximum(np.abs(wp), 1e-300))
            mo, mt = np.median(t_ours), np.median(t_theirs)
            print("%-24s %s n=%-8d spx %9.2f ms (%d products, %d restarts, %d fresh, %d/%d converged%s)"
                  "  peer %9.2f ms%s  peer/spx %.2f  max rel diff %.1e  spx %s  peer %s" % (
                      source, which, a.shape[0], mo, info["steps"], info["restarts"], info["fresh_starts"],
                      info["converged"], k, ", not converged" if info.get("failed") else "",
                      mt, "" if peer_ok else " (not converged)", mt / mo, diff, " ".join("%.10g" % x for x in w[:3]),
                      " ".join("%.10g" % x for x in wp[:3])), flush=True)


if __name__ == "__main__":
    main()
