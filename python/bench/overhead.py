"""Per-call overhead of SpMV from Python, and SpX from Python against scipy.

1. A 64 x 64 tridiagonal matrix, one thread (no OpenMP region), csr: the
   time of `P @ x` (allocates y), of `P.matvec(x, y)` (y reused) and of the C
   call alone (P._p.matvec on preallocated arrays is the same C path; the C
   time is measured by SpX's own `spx bench` loop, reported by spx.bench).
2. The shared matrices (or generated ones): spx `P @ x` against scipy `A @ x`,
   same process, same x, median of 7 batches.
Run: python3 python/bench/overhead.py [matrix ...]"""
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import spx


def per_call(fn, calls=20000, batches=7):
    fn()
    t = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t.append((time.perf_counter() - t0) / calls * 1e6)
    t.sort()
    return t[len(t) // 2], t[0], t[-1]


def overhead():
    a = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(64, 64), format="csr")
    P = spx.plan(a, format="csr", threads=1)
    x, y = np.ones(64), np.empty(64)
    rows = [("P @ x", lambda: P @ x), ("P.matvec(x, y)", lambda: P.matvec(x, y)),
            ("scipy a @ x", lambda: a @ x)]
    c = spx.bench(spx.matrix(a), ["csr"], calls=20000, batches=7)[0]
    print("per call, 64 x 64 tridiagonal, 1 thread (median [min, max] over 7 batches, us):")
    for name, fn in rows:
        med, lo, hi = per_call(fn)
        print("  %-16s %6.2f [%5.2f, %5.2f]" % (name, med, lo, hi))
    print("  %-16s %6.2f  (spx.bench's matvec loop, threads = OpenMP default)" % (
        "bench matvec", c["median_ms"] * 1e3))


def against_scipy(paths):
    print("\nspx P @ x against scipy A @ x, same x (ms per call, median of 7 batches):")
    for p in paths:
        a = (spx.generate(p[4:]).to_scipy() if p.startswith("gen:") else
             scipy.io.mmread(p).tocsr())
        x = np.random.default_rng(1).uniform(-1, 1, a.shape[1])
        P = spx.plan(a, expected_calls=1000)
        calls = max(5, int(2e7 / max(a.nnz, 1)))
        s, _, _ = per_call(lambda: a @ x, calls)
        t, _, _ = per_call(lambda: P @ x, calls)
        print("  %-28s nnz %9d  scipy %8.4f  spx(%s) %8.4f  ratio %.2fx" % (
            p.split("/")[-1][:28], a.nnz, s / 1e3, P.format, t / 1e3, s / t))


if __name__ == "__main__":
    overhead()
    against_scipy(sys.argv[1:] or ["gen:lap3d7:64", "gen:rmat:scale=16,ef=16,sym=1"])
