"""CG and BiCGSTAB on the CPU from Python, ms an iteration, for an A/B of two
builds of spx (each installed in its own venv, run alternately by the caller):
lap3d7:M, b = ones, x0 = 0, a fixed 100 iterations (rtol 0, NotConverged
expected), median of 3 solves after a warm-up.
Run: python3 cpu_solve_iters.py [M (96)] [LABEL]"""
import sys, time
import numpy as np, scipy.sparse as sp
import spx

def lap3d7(m):
    one = sp.identity(m, format="csr")
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m), format="csr")
    return (sp.kron(sp.kron(t, one), one) + sp.kron(sp.kron(one, t), one)
            + sp.kron(sp.kron(one, one), t)).tocsr()

m = int(sys.argv[1]) if len(sys.argv) > 1 else 96
a = lap3d7(m)
b = np.ones(a.shape[0])
P = spx.plan(a)
for name, fn in (("cg", spx.cg), ("bicgstab", spx.bicgstab)):
    ts = []
    for r in range(4):
        t0 = time.perf_counter()
        try:
            fn(P, b, rtol=0.0, max_iters=100)
        except spx.NotConverged:
            pass
        ts.append(time.perf_counter() - t0)
    ts = sorted(ts[1:])
    print("%s %s lap3d7:%d: %.3f ms an iteration" % (sys.argv[2] if len(sys.argv) > 2 else "", name, m, ts[1] * 10))
