"""CG of k right-hand sides from Python on the GPU: spx.cg of a CuPy B (n x k) on
one SpMM plan (spx_cg_many) against k solves of one column each, same process.

For each SPD matrix and k: B uniform in [-1, 1) (n x k, C order, float64), x0 = 0,
rtol 1e-8, no preconditioner, and
  many   spx.cg(S, B), S = spx.plan(A, operation="spmm", device="cuda"): each
         column its own CG, the k products one SpMM an iteration
  1-D    spx.cg(P, b_j) for j < k, P = spx.plan(A, device="cuda") (SpMV, format
         auto), b_j a contiguous copy of column j made before timing
  cupyx  cupyx.scipy.sparse.linalg.cg(d, b_j) for j < k (cuSPARSE SpMV)
each timed as a whole by the wall clock (the GPU synchronized), the median of
--repeats after a warm-up (many: one solve of all k; the loops: one column).
Printed: the times, how many times faster many is (1-D / many, cupyx / many),
each method's iterations over the columns (min-max), the largest difference of
its X from many's (max |X - X_many| / max |X_many|) and its largest true
relative residual ||b_j - A x_j|| / ||b_j||. A result that disagrees (X more than
1e-5 off many's, a residual above 10 rtol, many's iterations more than 1 off the
1-D solve's in a column) ends the run (SystemExit) after its row.
Run: python3 python/bench/gpu_cg_many.py [--k K[,K...]] [--repeats R] [SPEC ...]
(SPEC an spx generator; default lap3d7:64 lap3d7:100 lap3d27:64, k 1,8,32)."""
import inspect
import sys
import time

import cupy
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import numpy as np

import spx

RTOL = 1e-8
MAX_ITERS = 5000
X_TOL = 1e-5  # CG answers at rtol 1e-8 on these matrices (condition <= 5e3)
ROW = "%-11s %3s %9.2f %9.2f %9.2f %7s %7s %9s %9s %9s %9s %9s %9s  %s"


def timed(fn, repeats):
    """fn() repeats times: (the median ms, the last result)."""
    sync = cupy.cuda.Device().synchronize
    times = []
    for _ in range(repeats):
        sync()
        t0 = time.perf_counter()
        out = fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2], out


def spx_many(S, B):
    X, info = spx.cg(S, B, rtol=RTOL, max_iters=MAX_ITERS)
    return X, info["iters"]


def spx_columns(P, cols):
    xs, iters = [], []
    for b in cols:
        x, info = spx.cg(P, b, rtol=RTOL, max_iters=MAX_ITERS)
        xs.append(x)
        iters.append(info["iters"])
    return xs, iters


TOL_NAME = "rtol" if "rtol" in inspect.signature(cla.cg).parameters else "tol"


def cupyx_columns(d, cols):
    xs, iters = [], []
    for b in cols:
        count = [0]
        x, code = cla.cg(d, b, maxiter=MAX_ITERS, **{TOL_NAME: RTOL},
                         callback=lambda _: count.__setitem__(0, count[0] + 1))
        if code != 0:
            raise SystemExit("cupyx cg did not converge (info %d)" % code)
        xs.append(x)
        iters.append(count[0])
    return xs, iters


def residual(d, B, X):
    """The largest ||b_j - A x_j|| / ||b_j|| over the columns."""
    r = cupy.linalg.norm(B - d @ X, axis=0) / cupy.linalg.norm(B, axis=0)
    return float(r.max())


def one(spec, S, P, d, k, repeats):
    """One row of the table, and what disagrees in it: S and P the SpMM and SpMV plans
    of the matrix, d its cupyx copy."""
    B = cupy.asarray(np.random.default_rng(k).uniform(-1, 1, (S.shape[0], k)))
    cols = [cupy.ascontiguousarray(B[:, j]) for j in range(k)]
    spx_many(S, B)
    spx_columns(P, cols[:1])
    cupyx_columns(d, cols[:1])
    ms_many, (Xm, it_many) = timed(lambda: spx_many(S, B), repeats)
    ms_one, (x1, it_one) = timed(lambda: spx_columns(P, cols), repeats)
    ms_cupyx, (xc, it_cupyx) = timed(lambda: cupyx_columns(d, cols), repeats)
    X1, Xc = cupy.stack(x1, axis=1), cupy.stack(xc, axis=1)
    scale = float(cupy.abs(Xm).max()) or 1.0
    diff = [float(cupy.abs(X - Xm).max()) / scale for X in (X1, Xc)]
    res = [residual(d, B, X) for X in (Xm, X1, Xc)]
    span = lambda it: "%d-%d" % (min(it), max(it))
    text = ROW % (spec, k, ms_many, ms_one, ms_cupyx, "%.2fx" % (ms_one / ms_many),
                  "%.2fx" % (ms_cupyx / ms_many), span(it_many), span(it_one), span(it_cupyx),
                  "%.1e" % diff[0], "%.1e" % diff[1], "%.1e" % max(res), P.format)
    failures = []
    if max(diff) > X_TOL:
        failures.append("X differs from many's by %.3g (1-D) and %.3g (cupyx)" % tuple(diff))
    if max(res) > 10 * RTOL:
        failures.append("residuals many %.3g, 1-D %.3g, cupyx %.3g" % tuple(res))
    off = [j for j in range(k) if abs(it_many[j] - it_one[j]) > 1]
    if off:
        failures.append("column %d: many took %d iterations, 1-D %d" % (
            off[0], it_many[off[0]], it_one[off[0]]))
    return text, ["%s k=%d: %s" % (spec, k, f) for f in failures]



def main(args):
    ks, repeats = [1, 8, 32], 3
    while args[:1] in (["--k"], ["--repeats"]):
        if args[0] == "--k":
            ks = [int(k) for k in args[1].split(",")]
        else:
            repeats = int(args[1])
        args = args[2:]
    specs = args or ["lap3d7:64", "lap3d7:100", "lap3d27:64"]
    t0 = time.perf_counter()
    print("device: %s; spx.cg of k columns at once (many) against k 1-D solves; rtol %g, "
          "median of %d" % (cupy.cuda.runtime.getDeviceProperties(
              cupy.cuda.Device().id)["name"].decode(), RTOL, repeats))
    print(ROW.replace(".2f", "s") % (
        "matrix", "k", "many ms", "1-D ms", "cupyx ms", "1-D x", "cupyx x", "it many",
        "it 1-D", "it cupyx", "dX 1-D", "dX cupyx", "residual", "1-D format"))
    for spec in specs:
        A = spx.generate(spec)
        d = csp.csr_matrix(A.to_scipy())
        S = spx.plan(A, operation="spmm", device="cuda", expected_calls=1000)
        P = spx.plan(A, device="cuda", expected_calls=1000)
        for k in ks:
            text, failures = one(spec, S, P, d, k, repeats)
            print(text, flush=True)
            if failures:
                raise SystemExit("results disagree:\n  " + "\n  ".join(failures))
    print("total %.1f s" % (time.perf_counter() - t0))


if __name__ == "__main__":
    main(sys.argv[1:])
