"""spx.bench: SpMV per format from Python, every format on one x in one process.

Each format's plan is made once; then `batches` batches of `calls` products
y = A*x are timed with time.perf_counter (CUDA plans: CuPy vectors, synchronized
after each batch). A record holds the median and the spread (min, max) of the
per-call time over the batches, the first call alone, the preparation time and
the maximum relative error against the first format's result."""
import time

import numpy as np

from . import _core


def _formats_for(device, precision):
    bits = {"cpu": 1, "cuda": 2}[device]
    tbit = 1 << {"f64": 0, "f32": 1, "f16": 2}[precision]
    return [f["name"] for f in _core.formats()
            if f["devices"] & bits and f["precisions"] & tbit and f["operations"] & 1]


def run(A, formats=None, device="cpu", precision="f64", calls=200, batches=10):
    from . import plan, _as_matrix
    A = _as_matrix(A)
    names = list(formats) if formats else _formats_for(device, precision) + ["auto"]
    n = A.shape[1]
    dtype = np.float64 if precision == "f64" else np.float32
    x = np.random.default_rng(1).uniform(-1, 1, n).astype(dtype)
    sync = lambda: None
    if device == "cuda":
        import cupy
        x = cupy.asarray(x)
        sync = cupy.cuda.runtime.deviceSynchronize
    records, ref = [], None
    for name in names:
        rec = {"format": name, "device": device, "precision": precision}
        try:
            P = plan(A, format=name, device=device, precision=precision)
        except _core.SpxError as e:
            rec["status"] = e.args[1]
            records.append(rec)
            continue
        t0 = time.perf_counter()
        y = P @ x
        sync()
        rec["first_ms"] = (time.perf_counter() - t0) * 1e3
        per_call = []
        for _ in range(batches):
            t0 = time.perf_counter()
            for _ in range(calls):
                P.matvec(x, y)
            sync()
            per_call.append((time.perf_counter() - t0) * 1e3 / calls)
        per_call.sort()
        yh = y.get() if hasattr(y, "get") else y
        if ref is None:
            ref = yh.astype(np.float64)
        scale = max(np.abs(ref).max(), 1e-300)
        info = P.info()
        rec.update({"chosen": info["format"], "median_ms": per_call[len(per_call) // 2],
                    "min_ms": per_call[0], "max_ms": per_call[-1], "prep_ms": info["prep_ms"],
                    "bytes": info["bytes"], "gflops": 2.0 * A.nnz / (per_call[len(per_call) // 2] * 1e6),
                    "max_rel_err": float(np.abs(yh - ref).max() / scale), "status": "SPX_OK"})
        records.append(rec)
    return records
