"""CPU plans: CG solves in turn on one plan, the workspace kept or made each solve (alternated)."""
import sys, time
import numpy as np, scipy.sparse as sp
import spx

def lap3d7(m):
    one = sp.identity(m, format="csr")
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m), format="csr")
    return (sp.kron(sp.kron(t, one), one) + sp.kron(sp.kron(one, t), one) + sp.kron(sp.kron(one, one), t)).tocsr()

for m in (int(a) for a in sys.argv[1:]):
    a = lap3d7(m)
    P = spx.plan(a, format="csr")
    b = np.ones(a.shape[0])
    times = {True: [], False: []}
    for r in range(7):
        for keep in (True, False):
            t0 = time.perf_counter()
            try:
                spx.cg(P, b, rtol=0.0, max_iters=100, keep_workspace=keep)
            except spx.NotConverged:
                pass
            times[keep].append((time.perf_counter() - t0) * 1e3 / 100)
    med = {k: sorted(v[1:])[len(v[1:]) // 2] for k, v in times.items()}
    print("lap3d7:%d (%d rows): ms an iteration, kept %.4f, made each solve %.4f (%.3fx)"
          % (m, a.shape[0], med[True], med[False], med[True] / med[False]))
