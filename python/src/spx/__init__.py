"""SpX from Python: sparse matrix products on CPUs and GPUs.

    import scipy.sparse, numpy as np, spx
    A = spx.matrix(scipy.sparse.random(1000, 1000, 0.01, format="csr"))
    P = spx.plan(A)                 # format "auto", device "cpu", precision "f64"
    y = P @ np.ones(1000)           # SpMV; the GIL is released while it runs
    S = spx.plan(A, operation="spmm")
    Y = S @ np.ones((1000, 8))      # SpMM: dense row-major X (cols x k) gives Y (rows x k)
    x, info = spx.cg(P, b)          # Krylov solvers on any plan, MultiPlans too; on a CUDA
                                    # plan b may be NumPy (copied once) or CuPy (in place)
    X, info = spx.cg(S, np.ones((1000, 8)))  # CG of 8 right-hand sides at once (SpMM plan)
    w, v, info = spx.eigsh(P, k=4, which="SA")  # Lanczos, for symmetric A (as scipy's eigsh)
    D = spx.plan(A, operation="sddmm")
    z = D.sddmm(X, X)               # SDDMM: X X^T at A's entries, a vector of A.nnz values
    C = spx.sddmm(A, X, X)          # the same, as a scipy CSR matrix of A's pattern

A matrix made from a scipy CSR matrix (sorted indices, float64 or float32,
int32 or int64 indices) uses its arrays in place: no copy of the row offsets,
columns or values is made (csr plans read int32 indptr as it is; formats that
need 64-bit offsets widen them once, kept with the matrix). Other scipy
formats are converted to CSR first. CUDA plans take NumPy arrays (copied
to the device per call, for convenience) or CuPy arrays (device memory, no
host round trip) through `matvec`.

An SpMM plan (operation="spmm": formats "ref" and "csr" on the CPU, "csr"
on CUDA) multiplies dense row-major blocks: P @ X for X of shape (cols, k),
and P.matmat(X, Y, alpha, beta) in place. X and Y are used where they are,
with their row stride as SpX's leading dimension, so that a column slice
Y[:, a:b] of a C-order array is written without a copy; arrays of another
dtype or whose columns are not adjacent (Fortran order, X[:, ::2]) are
refused (ValueError), not copied. A 1-D x is one column (k = 1) and gives
a 1-D y.

An SDDMM plan (operation="sddmm": "ref" and "csr" on the CPU, "csr" on
CUDA) samples a dense product at A's pattern: P.sddmm(X, Y, Z, alpha, beta)
computes, for each stored entry e = (i, j) of A in its CSR order,
Z[e] = alpha * X[i] . Y[j] + beta*Z[e], X (rows x k) and Y (cols x k) taken
as SpMM's X (no copy, the same refusals), Z a contiguous vector of nnz(A)
entries, new or written in place. A's values are not read. spx.sddmm(A, X, Y)
plans once and returns a CSR matrix of A's pattern with Z as its values.

spx.multi_plan(A, parts) cuts A into parts of equal nonzeros (MSREP: pcsr,
pcsc, pcoo, or rows of equal count), each an ordinary plan on a CPU thread or
a GPU, and multiplies host vectors with one call (spx_multi_spmv); spx.cg,
spx.bicgstab, spx.gmres and spx.eigsh take it too (spx_multi_cg, spx_multi_bicgstab,
spx_multi_gmres, spx_multi_eigsh on resident vectors).

A matrix made from a cupyx.scipy.sparse matrix stays on the GPU
(spx_matrix_wrap_device): its CUDA csr plans read cupyx's indices and data
in place, with no copy and no host round trip (the row offsets are read once
while planning); it has no host arrays, so CPU plans, SpGEMM, transposed
plans and to_scipy refuse it (SpxError).
"""
import numpy as np

from . import _core
from ._core import SpxError

__all__ = ["SpxError", "Matrix", "Plan", "MultiPlan", "matrix", "read_mtx", "generate", "plan",
           "multi_plan", "spgemm", "sddmm", "formats", "device_available", "cg", "bicgstab",
           "gmres", "eigsh", "bench", "NotConverged"]

SPMV, SPGEMM, SPMM, SDDMM = 0, 1, 2, 3
_TYPES = {0: "f64", 1: "f32", 2: "f16"}
_DEVICES = {1: "cpu", 2: "cuda"}
_OPERATIONS = {0: "spmv", 1: "spgemm", 2: "spmm", 3: "sddmm"}
_OVERLAP = {"auto": 0, "on": 1, "off": -1}  # spx_multi_opts.overlap


class NotConverged(SpxError):
    """A solver reached its iteration limit; .x and .info hold the last iterate."""


class Matrix:
    """An SpX matrix (CSR). Keep it alive while plans of it exist (plans do)."""

    def __init__(self, core, source=None):
        self._m = core
        self._source = source  # the scipy (or cupyx) matrix whose arrays are used in place

    @property
    def device(self):
        """Where its arrays are: "cpu", or "cuda" for a cupyx matrix's."""
        return self._m.placement()[0]

    @property
    def shape(self):
        r, c, _ = self._m.shape()
        return (r, c)

    @property
    def nnz(self):
        return self._m.shape()[2]

    def to_scipy(self):
        """A scipy CSR copy."""
        import scipy.sparse as sp
        indptr, indices, bits, data, kind = self._m.arrays()
        r, c, _ = self._m.shape()
        return sp.csr_matrix((np.frombuffer(data, dtype=np.float64 if kind == "d" else np.float32),
                              np.frombuffer(indices, dtype=np.int32 if bits == 32 else np.int64),
                              np.frombuffer(indptr, dtype=np.int64)), shape=(r, c))

    def __repr__(self):
        r, c = self.shape
        return "spx.Matrix(%d x %d, nnz=%d)" % (r, c, self.nnz)


def _is_cupyx(a):
    return type(a).__module__.startswith("cupyx")


def _device_csr(a):
    """A cupyx sparse matrix as spx_matrix_wrap_device takes it, on the GPU:
    CSR (cupyx converts CSC and COO), sorted indices (only unsorted ones are
    sorted, in a copy: the caller's matrix is not changed), float64 or float32
    data, int32 indices (cupyx's) and int32 or int64 indptr."""
    if a.format != "csr":
        a = a.tocsr()
    if not a.has_sorted_indices:
        a = a.copy()
        a.sort_indices()
    if a.dtype not in (np.float64, np.float32):
        a = a.astype(np.float64)
    if a.indices.dtype != np.int32 or a.indptr.dtype not in (np.int32, np.int64):
        raise TypeError("cupyx CSR: indices must be int32, indptr int32 or int64")
    return a


def _device_matrix(a):
    a = _device_csr(a)
    arrays = (a.indptr, a.indices, a.data)
    return Matrix(_core.wrap_device(a.shape[0], a.shape[1], _device_pointer(a.indptr),
                                    a.indptr.dtype.itemsize * 8, _device_pointer(a.indices),
                                    _device_pointer(a.data), a.dtype == np.float64, arrays), a)


def _host_csr(a):
    import scipy.sparse as sp
    if not sp.issparse(a):
        raise TypeError("spx.matrix takes a scipy.sparse or cupyx.scipy.sparse matrix")
    if a.format != "csr":
        a = a.tocsr()
    if not a.has_sorted_indices:
        a = a.sorted_indices()
    if a.dtype not in (np.float64, np.float32):
        a = a.astype(np.float64)
    return a


def matrix(a):
    """An SpX Matrix from a scipy or cupyx sparse matrix. CSR with sorted
    indices and float64/float32 data is used without copying; a cupyx matrix
    stays on the GPU (see the module's help)."""
    if _is_cupyx(a):
        return _device_matrix(a)
    a = _host_csr(a)
    return Matrix(_core.wrap(a.shape[0], a.shape[1], a.indptr, a.indices, a.data), a)


def read_mtx(path):
    """Read a .mtx, .mtx.gz or .spx file."""
    return Matrix(_core.read(str(path)))


def generate(spec):
    """A generated matrix, e.g. "lap3d7:64" or "rmat:scale=16,ef=16,sym=1"."""
    return Matrix(_core.generate(spec))


def _as_matrix(a):
    return a if isinstance(a, Matrix) else matrix(a)


def _device_pointer(v):
    """The device address of a CuPy-like array, or None for host arrays."""
    iface = getattr(v, "__cuda_array_interface__", None)
    return None if iface is None else iface["data"][0]


def _array_module(v):
    """numpy for host arrays, cupy for device arrays: where new arrays beside v go."""
    if _device_pointer(v) is None:
        return np
    import cupy
    return cupy


class _Operator:
    """What Plan and MultiPlan share: the matrix (kept alive while the plan
    lives), the shape of op(A), the device and the vectors' dtype."""

    def __init__(self, A, core):
        self.matrix = A
        self._p = core
        info = core.info()
        self.shape = (info["rows"], info["cols"])
        self.device = info["device"]
        self.dtype = np.dtype(info["dtype"])  # of x and y

    def as_linear_operator(self):
        """A scipy.sparse.linalg.LinearOperator whose matvec is this plan."""
        from scipy.sparse.linalg import LinearOperator
        return LinearOperator(self.shape, dtype=self.dtype,
                              matvec=lambda v: self @ np.ascontiguousarray(v, dtype=self.dtype).ravel())


class Plan(_Operator):
    """A matrix prepared by one format on one device for one operation
    (spx.plan): "spmv", "spmm", "sddmm" or "spgemm" (.operation)."""

    def __init__(self, A, core):
        super().__init__(A, core)
        self.operation = core.info()["operation"]

    def _vector(self, x):
        """x, for an SpMV plan: a 2-D operand is refused, naming SpMM."""
        if getattr(x, "ndim", 1) > 1:
            raise ValueError("@ and matvec take 1-D vectors on a plan made for %s, not %d-D "
                             "arrays; for dense X (cols x k) make the plan with "
                             "spx.plan(A, operation=\"spmm\")" % (self.operation, x.ndim))
        return x

    def __matmul__(self, x):
        """y = A @ x (SpMV), or Y = A @ X (SpMM plans: X of shape (cols, k) gives Y of
        shape (rows, k); a 1-D x gives a 1-D y). NumPy operands give NumPy results,
        CuPy operands (CUDA plans) CuPy results."""
        if self.operation == "sddmm":
            raise ValueError("an SDDMM plan multiplies two dense operands: P.sddmm(X, Y)")
        if self.operation == "spmm":
            if _device_pointer(x) is None or self.device != "cuda":
                return self._p @ x
            import cupy
            return self.matmat(x, cupy.empty(self.shape[:1] + x.shape[1:2], dtype=self.dtype))
        ptr = _device_pointer(self._vector(x))
        if ptr is None:
            return self._p @ x
        _device_vector(x, self.dtype, self.shape[1])
        import cupy
        y = cupy.empty(self.shape[0], dtype=x.dtype)
        self._p.matvec(ptr, _device_pointer(y))
        return y

    def matvec(self, x, y, alpha=1.0, beta=0.0):
        """y = alpha*A*x + beta*y in place (NumPy arrays, or CuPy arrays for CUDA plans).
        On an SpMM plan, matmat of one column."""
        if self.operation == "spmm":
            return self.matmat(x, y, alpha, beta)
        px, py = _device_pointer(self._vector(x)), _device_pointer(self._vector(y))
        self._p.matvec(x if px is None else px, y if py is None else py, alpha, beta)
        return y

    def matmat(self, X, Y, alpha=1.0, beta=0.0):
        """Y = alpha*A@X + beta*Y in place for a plan made with operation="spmm"
        (spx_spmm; spx_spmm_host for NumPy arrays on a CUDA plan); returns Y.
        X (cols, k) and Y (rows, k): NumPy arrays, or CuPy arrays for CUDA plans, of the
        plan's dtype, row-major with adjacent columns and any row stride (the leading
        dimension), so that column slices of wider arrays are used without a copy;
        1-D arrays are one column. beta = 0 never reads Y. The GIL is released during
        the product; with CuPy arrays a CUDA plan returns before the product ends (it
        runs on the plan's stream), as matvec does."""
        self._p.matmat(X, Y, alpha, beta)
        return Y

    def sddmm(self, X, Y, Z=None, alpha=1.0, beta=0.0):
        """Z[e] = alpha * X[i] . Y[j] + beta*Z[e] for each stored entry e = (i, j) of A,
        in the CSR order of the plan's matrix (a scipy matrix's after its indices are
        sorted), for a plan made with operation="sddmm" (spx_sddmm; spx_sddmm_host for
        NumPy arrays on a CUDA plan); returns Z. X (rows, k) and Y (cols, k) as matmat's X:
        the plan's dtype, row-major with adjacent columns and any row stride, used in
        place (a 1-D array is one column). Z: a contiguous vector of nnz entries sharing
        no memory with X or Y, written in place; None gives a new one (NumPy, or CuPy for
        CuPy X), which beta != 0 cannot read. A's values are not read. With CuPy arrays a
        CUDA plan returns before the product ends (it runs on the plan's stream)."""
        if Z is None:
            if beta != 0:
                raise ValueError("beta = %r reads Z: pass Z (a vector of nnz entries)" % beta)
            Z = _array_module(X).empty(self.matrix.nnz, self.dtype)
        self._p.sddmm(X, Y, Z, alpha, beta)
        return Z

    def update_values(self, values):
        """New values for the plan's matrix, its pattern unchanged (spx_plan_update_values):
        the next step of a Newton solve, a layer's weights after a training step. values:
        a contiguous vector of nnz entries of the plan's dtype, in the CSR order of the
        plan's matrix (a scipy matrix's .data after its indices are sorted): a NumPy
        array, or a CuPy array for CUDA plans. The plan refills its own copy, without the
        preprocessing of a new plan, and then multiplies as a plan made from the matrix
        with these values would, bit for bit (a plan that stores values keeps storing
        them when the new values are all one number). The matrix itself is not changed.
        SDDMM plans read no values (nothing to do); SpGEMM plans refuse (spx.Error).
        Returns the plan."""
        self._p.update_values(values)
        return self

    @property
    def format(self):
        return self._p.info()["format"]

    def spgemm(self, B):
        """C = A*B as an spx.Matrix, for a plan made with operation="spgemm"."""
        return Matrix(self._p.spgemm(_as_matrix(B)._m))

    def spgemm_numeric(self, B, C):
        """C's values again (in place) for a B of the pattern of the B that made C
        (spx_spgemm_numeric: repeated products with one pattern); returns C."""
        self._p.spgemm_numeric(_as_matrix(B)._m, C._m)
        return C

    def info(self):
        """format, prep_ms, bytes, describe, device, rows, cols, dtype, operation"""
        return self._p.info()


def _device_vector(v, dtype, n):
    """v, a CuPy vector whose address alone goes to SpX: refused (ValueError) unless
    contiguous, of n entries of dtype."""
    if v.dtype != dtype or v.shape != (n,) or not v.flags.c_contiguous:
        raise ValueError("expected a contiguous %s vector of %d entries" % (dtype, n))
    return v


def _host_vector(v):
    if _device_pointer(v) is not None:
        raise TypeError("a multi plan takes host (NumPy) vectors; copy device arrays to the host")
    return v


class MultiPlan(_Operator):
    """A matrix cut into parts, each an ordinary plan on a CPU thread or a GPU
    (spx.multi_plan). Vectors are host arrays: x goes to the parts and their
    results are merged into y in part order, so that a fixed part count gives
    the same bits every call. Calls on one plan run one at a time."""

    def __init__(self, A, core):
        super().__init__(A, core)
        self.partition = self._p.info()["partition"]

    def __matmul__(self, x):
        return self._p @ _host_vector(x)

    def matvec(self, x, y, alpha=1.0, beta=0.0):
        """y = alpha*A*x + beta*y in place (NumPy arrays); returns y."""
        self._p.matvec(_host_vector(x), _host_vector(y), alpha, beta)
        return y

    def times(self):
        """Where the time went, in ms (spx_multi_timing): convert_ms, partition_ms and
        prepare_ms of the plan's creation; distribute_ms, spmv_ms, merge_ms and call_ms
        of the last product (a phase of the parts: the slowest part's)."""
        return self._p.times()

    def parts(self):
        """Each part (spx_multi_part_info): device (-1: a CPU thread, else a CUDA
        device), format, first and count (the lines it covers: rows of op(A), columns
        for pcsc), nnz, shared_first, shared_last, bytes, numa_node, overlapped."""
        return self._p.parts()

    def info(self):
        """partition, parts, device, rows, cols, dtype"""
        return self._p.info()


def plan(A, format="auto", device=None, precision=None, params=None, expected_calls=0,
         threads=0, transpose=False, operation="spmv"):
    """Prepare A (an spx.Matrix, a scipy or a cupyx sparse matrix) for an operation:
    "spmv" (P @ x, matvec), "spmm" (P @ X, matmat: dense X of k columns), "sddmm"
    (P.sddmm(X, Y): X Y^T at A's entries) or "spgemm".
    device: "cpu" or "cuda", by default where A is; precision: "f64", "f32" or "f16",
    by default "f64", or for a matrix on the GPU its values' own (so that they are
    read in place)."""
    op = {name: code for code, name in _OPERATIONS.items()}.get(operation)
    if op is None:
        raise ValueError("operation is 'spmv', 'spmm', 'sddmm' or 'spgemm', not %r"
                         % (operation,))
    A = _as_matrix(A)
    where, own = A._m.placement()
    device = where if device is None else device
    precision = (own if where == "cuda" else "f64") if precision is None else precision
    return Plan(A, _core.plan(A._m, op, format, device, precision, params, int(expected_calls),
                              int(threads), bool(transpose)))


def multi_plan(A, parts, partition="pcsr", device="cpu", spread=True, format="auto",
               precision=None, overlap="auto", params=None, expected_calls=0, transpose=False):
    """Cut A (an spx.Matrix or a scipy sparse matrix) into `parts` parts (1..256)
    and plan each (spx_multi_plan_create). partition: "pcsr", "pcsc", "pcoo" (equal
    nonzeros) or "rows" (equal rows). device "cpu": a thread a part; "cuda": with
    spread, part i on GPU i mod the GPU count, else all on GPU 0, a stream each.
    format: each part's ("auto" chooses per part); precision "f64" (default),
    "f32" or "f16"; overlap "auto", "on" or "off" (spx_multi_opts.overlap: row
    parts on several GPUs multiply their own columns while their halo arrives)."""
    A = _as_matrix(A)
    if overlap not in _OVERLAP:
        raise ValueError("overlap is 'auto', 'on' or 'off'")
    return MultiPlan(A, _core.multi_plan(A._m, partition, int(parts), device, bool(spread),
                                         format, "f64" if precision is None else precision,
                                         params, int(expected_calls), bool(transpose),
                                         _OVERLAP[overlap]))


def spgemm(A, B=None, format="auto", device="cpu", threads=0):
    """C = A*B (B defaults to A) as a scipy CSR matrix."""
    A = _as_matrix(A)
    B = A if B is None else _as_matrix(B)
    p = _core.plan(A._m, SPGEMM, format, device, "f64", None, 0, int(threads), False)
    return Matrix(p.spgemm(B._m)).to_scipy()


def sddmm(A, X, Y, alpha=1.0, beta=0.0, Z=None, format="auto", device=None, precision=None,
          params=None, threads=0):
    """X Y^T sampled at A's entries: a CSR matrix of A's pattern (A's indices sorted;
    its values are not read) whose entry e = (i, j) is alpha * X[i] . Y[j] + beta*Z[e],
    through one SDDMM plan (P.sddmm, whose X, Y and Z it takes). scipy's csr_matrix for
    NumPy X and Y; cupyx's for CuPy ones, planned on device "cuda" unless told. Its
    values are Z (written in place when given; beta != 0 needs it), its row offsets and
    columns copies of A's. precision: by default X's ("f32" for float32, "f64" for
    float64). For repeated products keep a plan: spx.plan(A, operation="sddmm")."""
    A = _as_matrix(A)
    if device is None and _device_pointer(X) is not None:
        device = "cuda"
    if precision is None:
        precision = {"float32": "f32", "float64": "f64"}.get(str(getattr(X, "dtype", "")))
    P = plan(A, format, device, precision, params, threads=threads, operation="sddmm")
    return _with_pattern(A, P.sddmm(X, Y, Z, alpha, beta))


def _with_pattern(A, values):
    """A CSR matrix of A's shape and pattern (copied) with these values (used as they
    are): cupyx's for CuPy values, else scipy's."""
    src = A._source if A._source is not None else A.to_scipy()
    if _device_pointer(values) is not None:
        import cupy
        import cupyx.scipy.sparse as csp
        return csp.csr_matrix((values, cupy.array(src.indices), cupy.array(src.indptr)),
                              shape=A.shape)
    import scipy.sparse as sp
    if _is_cupyx(src):
        src = src.get()
    return sp.csr_matrix((values, src.indices.copy(), src.indptr.copy()), shape=A.shape)


def formats():
    """The registered formats: name, devices, precisions, operations."""
    out = []
    for f in _core.formats():
        out.append({"name": f["name"],
                    "devices": [n for b, n in _DEVICES.items() if f["devices"] & b],
                    "precisions": [n for b, n in _TYPES.items() if f["precisions"] & (1 << b)],
                    "operations": [n for b, n in _OPERATIONS.items() if f["operations"] & (1 << b)]})
    return out


def device_available(device):
    return _core.device_available(device)


def _converged(status, message, x, info):
    """(x, info) of a solve, or NotConverged carrying them."""
    if status == 0:
        return x, info
    err = NotConverged(status, "SPX_ERR_NOT_CONVERGED", message)
    err.x, err.info = x, info
    raise err


def _solve_many(kind, P, B, x0, rtol, max_iters, jacobi, keep_workspace):
    """cg of the k columns of a 2-D B at once: spx_cg_many on an SpMM plan."""
    if kind != "cg":
        raise ValueError("%s takes a 1-D b: there is no %s of k columns at once (spx.cg "
                         "solves the columns of a 2-D b together)" % (kind, kind))
    if isinstance(P, MultiPlan):
        raise ValueError("a MultiPlan solves one right-hand side (a 1-D b); for a 2-D b "
                         "use a plan made with spx.plan(A, operation=\"spmm\")")
    if not isinstance(P, Plan):
        P = plan(P, operation="spmm")
    elif P.operation != "spmm":
        raise ValueError("cg of a 2-D b (n x k) takes a plan made with operation=\"spmm\", "
                         "not %r: spx.plan(A, operation=\"spmm\")" % P.operation)
    shape = (P.shape[1], B.shape[1])  # b's, for the square A a solve takes
    if x0 is not None and np.shape(x0) != shape:
        raise ValueError("x0 must have shape %s, as b, not %s" % (shape, np.shape(x0)))
    xp = _array_module(B)
    X = xp.zeros(shape, P.dtype) if x0 is None else xp.array(x0, dtype=P.dtype, order="C")
    status, iters, rel, ms, history, message = P._p.solve_many(
        kind, B, X, rtol, int(max_iters), bool(jacobi), bool(keep_workspace))
    info = {"iters": iters, "rel_residual": rel, "ms": ms, "history": history}
    return _converged(status, message, X, info)


def _solve(kind, P, b, x0, rtol, max_iters, jacobi, keep_workspace, restart=0):
    if np.ndim(b) == 2:
        return _solve_many(kind, P, b, x0, rtol, max_iters, jacobi, keep_workspace)
    if isinstance(P, MultiPlan):
        for v in (b, x0):
            _host_vector(v)
    elif not isinstance(P, Plan):
        P = plan(P)
    cupy_side = _device_pointer(b) is not None
    if cupy_side:
        import cupy
        _device_vector(b, P.dtype, P.shape[0])
        x = cupy.zeros_like(b) if x0 is None else cupy.array(x0, dtype=P.dtype)
        args = (_device_pointer(b), _device_pointer(_device_vector(x, P.dtype, P.shape[0])))
    else:
        b = np.ascontiguousarray(b, dtype=P.dtype)
        x = np.zeros_like(b) if x0 is None else np.array(x0, dtype=P.dtype)
        args = (b, x)
    status, iters, rel, ms, history, replayed = P._p.solve(
        kind, args[0], args[1], rtol, int(max_iters), bool(jacobi), bool(keep_workspace),
        int(restart))
    info = {"iters": iters, "rel_residual": rel, "ms": ms, "history": history,
            "replayed": replayed}
    return _converged(status, "%s: relative residual %.3g after %d iterations"
                      % (kind, rel, iters), x, info)


def cg(P, b, x0=None, rtol=1e-8, max_iters=1000, jacobi=False, keep_workspace=True):
    """Conjugate gradients on plan P (or a matrix, planned with auto). Returns (x, info):
    info["iters"], ["rel_residual"] (||b - A x|| / ||b||, recomputed from x), ["ms"] (the
    solve's wall time), ["history"] (the relative residual after each iteration, [0]
    before the first) and ["replayed"] (iterations replayed from one recorded CUDA graph:
    multi plans on GPUs). On a CUDA plan b may be NumPy (copied to the device and x back)
    or CuPy (used in place: a contiguous vector of the plan's dtype, else a ValueError, as
    for a column B[:, j] of a C-order block). P may be a MultiPlan (spx_multi_cg): b and x0
    are then NumPy vectors, copied into resident vectors of the plan for the solve and x
    copied back. keep_workspace: the plan keeps the solve's work vectors and buffers for its
    next solve (spx_solve_opts).

    A 2-D b (n x k) is k right-hand sides solved at once (spx_cg_many): each column its own
    CG (its own scalars and stop, the math of the 1-D solve), the k products one SpMM per
    iteration. P is then a plan made with operation="spmm" (a matrix is planned so, an SpMV
    plan or a MultiPlan is a ValueError). b is used in place as P @ X takes X: the plan's
    dtype, NumPy, or CuPy for a CUDA plan, row-major with adjacent columns and any row
    stride (a column slice of a wider array; Fortran order is a ValueError, not a copy).
    x (returned) is a new C-order array of b's shape, NumPy or CuPy as b is, from x0 (any
    layout, copied) or zeros. info["iters"] and ["rel_residual"] are lists of the k columns' (the iteration
    a column stopped in; its residual recomputed from x), ["ms"] the whole solve's, and
    ["history"] the largest relative residual over the columns after each iteration (to the
    last column's stop).
    NotConverged when a column is above rtol after max_iters (.x and .info hold every
    column's last iterate); SpxError SPX_ERR_BREAKDOWN when a column breaks down."""
    return _solve("cg", P, b, x0, rtol, max_iters, jacobi, keep_workspace)


def bicgstab(P, b, x0=None, rtol=1e-8, max_iters=1000, jacobi=False, keep_workspace=True):
    """BiCGSTAB on plan P (or a matrix, or a MultiPlan as in cg). Returns (x, info) as cg
    does. b is 1-D: there is no BiCGSTAB of k columns at once (a 2-D b is a ValueError)."""
    return _solve("bicgstab", P, b, x0, rtol, max_iters, jacobi, keep_workspace)


def gmres(P, b, x0=None, rtol=1e-8, max_iters=1000, jacobi=False, keep_workspace=True,
          restart=30):
    """Restarted GMRES(restart) on plan P (or a matrix, or a MultiPlan as in cg), Jacobi on
    the right; any nonsingular A. Returns (x, info) as cg does; the residual never grows.
    b is 1-D (a 2-D b is a ValueError)."""
    if restart < 1:
        raise ValueError("restart must be at least 1, not %r" % (restart,))
    return _solve("gmres", P, b, x0, rtol, max_iters, jacobi, keep_workspace, restart)


def eigsh(P, k=1, which="LA", tol=1e-8, basis=0, max_steps=10000, return_eigenvectors=True,
          skip_copies=False):
    """The k eigenvalues at one end of the spectrum of symmetric A (plan P, a MultiPlan
    (spx_multi_eigsh), or a matrix, planned with auto) by thick-restart Lanczos with full reorthogonalisation (spx_eigsh),
    as scipy.sparse.linalg.eigsh: which "LA" (largest algebraic) or "SA" (smallest).
    Returns w, the eigenvalues in ascending order, and with return_eigenvectors also v
    (n x k, NumPy, of the plan's dtype), v[:, i] the unit eigenvector of w[i]; and info as
    a last item: {"steps" (products), "restarts", "fresh_starts", "converged",
    "max_residual" (the largest ||A v - w v|| / |w| Lanczos estimates), "ms"}. A pair is
    done when its estimate is at most tol. basis: Lanczos vectors before a restart (0:
    max(2k + 1, k + 32), CuPy's ncv; about 1.5 basis vectors on the plan's device);
    max_steps: products at most. One start vector spans one direction of each eigenspace,
    so once k pairs converge Lanczos runs again from fresh start vectors orthogonal to them
    until one finds nothing beyond the k-th: a multiple eigenvalue appears as often as it
    is repeated. skip_copies skips that (faster; a multiple eigenvalue may then appear
    once). NotConverged, carrying .w, .v and .info, when max_steps pass first."""
    if which not in ("LA", "SA"):
        raise ValueError('which is "LA" (largest) or "SA" (smallest), not %r' % (which,))
    if not isinstance(P, (Plan, MultiPlan)):
        P = plan(P)
    if isinstance(P, Plan) and P.operation != "spmv":
        raise ValueError("eigsh takes an SpMV plan, not %r" % P.operation)
    n = P.shape[0]
    vec = np.zeros(k * n, P.dtype) if return_eigenvectors and 1 <= k <= n else None
    status, values, steps, restarts, fresh, converged, worst, ms, message = P._p.eigsh(
        int(k), which == "SA", float(tol), int(basis), int(max_steps), bool(skip_copies), vec)
    order = np.argsort(values, kind="stable")
    w = np.asarray(values)[order]
    v = vec.reshape(k, n).T[:, order].copy() if vec is not None else None
    info = {"steps": steps, "restarts": restarts, "fresh_starts": fresh, "converged": converged,
            "max_residual": worst, "ms": ms}
    result = (w, v, info) if return_eigenvectors else (w, info)
    if status == 0:
        return result
    err = NotConverged(status, "SPX_ERR_NOT_CONVERGED", message)
    err.w, err.v, err.info = w, v, info
    raise err


def bench(A, formats=None, device="cpu", precision="f64", calls=200, batches=10):
    """Time y = A*x for each format (default: every format for the device, and auto)
    on one x in this process; records of median and spread per call in ms."""
    from .benchmark import run
    return run(A, formats, device, precision, calls, batches)
