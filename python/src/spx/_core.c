/* spx._core: the CPython binding of libspx. Two types and a few functions;
 * the Python layer (spx/__init__.py) gives them their friendly shape.
 *
 * Matrix: an spx_matrix. From caller arrays (wrap: the objects are kept
 * alive by the Matrix, their buffers used in place: scipy's CSR arrays,
 * int32 indptr included, are not copied), from CUDA device addresses
 * (wrap_device: cupyx's CSR arrays, kept alive by the Matrix, read in place
 * by CUDA csr plans), from a file or a generator spec (owned by SpX).
 * Plan: an spx_plan of a Matrix (kept alive by the Plan).
 * Vectors: objects with the buffer protocol (NumPy arrays, host memory) or
 * an int, a device address (CuPy's data.ptr) for CUDA plans.
 * The GIL is released during plan creation, SpMV, SpGEMM and the solvers.
 * Errors raise spx.SpxError(status, name, message). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "spx.h"

static PyObject *SpxError;
static PyObject *numpy_empty;

/* Raise SpxError for status st with SpX's message. */
static PyObject *raise_status(spx_status st)
{
    PyObject *args = Py_BuildValue("(iss)", (int)st, spx_status_name(st), spx_last_error());
    if (args) {
        PyErr_SetObject(SpxError, args);
        Py_DECREF(args);
    }
    return NULL;
}

/* ------------------------------------------------------------------ Matrix */

typedef struct {
    PyObject_HEAD spx_matrix *A;
    PyObject *keep; /* the wrapped arrays (host buffers, or device arrays), or NULL */
    Py_buffer views[3];
    int nviews;
    int on_device;  /* made by wrap_device */
    spx_type vtype; /* a device matrix's values (host matrices: ask spx_matrix_csr) */
} MatrixObject;

static void matrix_dealloc(MatrixObject *m)
{
    spx_matrix_destroy(m->A);
    for (int i = 0; i < m->nviews; i++)
        PyBuffer_Release(&m->views[i]);
    Py_XDECREF(m->keep);
    Py_TYPE(m)->tp_free((PyObject *)m);
}

static PyTypeObject MatrixType;

static MatrixObject *matrix_new(spx_matrix *A)
{
    MatrixObject *m = PyObject_New(MatrixObject, &MatrixType);
    if (!m) {
        spx_matrix_destroy(A);
        return NULL;
    }
    m->A = A;
    m->keep = NULL;
    m->nviews = 0;
    m->on_device = 0;
    m->vtype = SPX_F64;
    return m;
}

/* Index width of a buffer's items (4 or 8 bytes, integers). */
static int index_bits(const Py_buffer *b)
{
    if (b->itemsize == 4 && b->format && strchr("il", b->format[0])) return 32;
    if (b->itemsize == 8 && b->format && strchr("lq", b->format[0])) return 64;
    return 0;
}

/* wrap(rows, cols, indptr, indices, data): a Matrix over the three arrays. */
static PyObject *core_wrap(PyObject *self, PyObject *args)
{
    long long rows, cols;
    PyObject *objs[3];
    (void)self;
    if (!PyArg_ParseTuple(args, "LLOOO", &rows, &cols, &objs[0], &objs[1], &objs[2])) return NULL;
    MatrixObject *m = matrix_new(NULL);
    if (!m) return NULL;
    for (int i = 0; i < 3; i++) {
        if (PyObject_GetBuffer(objs[i], &m->views[i], PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            Py_DECREF(m);
            return NULL;
        }
        m->nviews++;
    }
    int rb = index_bits(&m->views[0]), cb = index_bits(&m->views[1]);
    Py_buffer *d = &m->views[2];
    int f64 = d->itemsize == 8 && d->format && d->format[0] == 'd';
    int f32 = d->itemsize == 4 && d->format && d->format[0] == 'f';
    if (!rb || !cb || !(f64 || f32)) {
        Py_DECREF(m);
        PyErr_SetString(PyExc_TypeError,
                        "indptr and indices must be int32 or int64, data float64 or float32");
        return NULL;
    }
    spx_status st;
    Py_BEGIN_ALLOW_THREADS st = spx_matrix_wrap(rows, cols, m->views[0].buf, rb, m->views[1].buf,
                                                cb, d->buf, f64 ? SPX_F64 : SPX_F32, &m->A);
    Py_END_ALLOW_THREADS if (st != SPX_OK)
    {
        Py_DECREF(m);
        return raise_status(st);
    }
    m->keep = PyTuple_Pack(3, objs[0], objs[1], objs[2]);
    return (PyObject *)m;
}

/* wrap_device(rows, cols, indptr, indptr_bits, indices, data, f64, keep): a
 * Matrix over CSR arrays at device addresses (int32 indices; data float64
 * when f64, else float32); keep (the arrays' owners) lives as long as it. */
static PyObject *core_wrap_device(PyObject *self, PyObject *args)
{
    long long rows, cols;
    unsigned long long rp, ci, v;
    int rbits, f64;
    PyObject *keep;
    spx_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "LLKiKKpO", &rows, &cols, &rp, &rbits, &ci, &v, &f64, &keep))
        return NULL;
    MatrixObject *m = matrix_new(NULL);
    if (!m) return NULL;
    m->on_device = 1;
    m->vtype = f64 ? SPX_F64 : SPX_F32;
    Py_BEGIN_ALLOW_THREADS st = spx_matrix_wrap_device(
        rows, cols, (const void *)(uintptr_t)rp, rbits, (const void *)(uintptr_t)ci, 32,
        (const void *)(uintptr_t)v, m->vtype, &m->A);
    Py_END_ALLOW_THREADS if (st != SPX_OK)
    {
        Py_DECREF(m);
        return raise_status(st);
    }
    Py_INCREF(keep);
    m->keep = keep;
    return (PyObject *)m;
}

static PyObject *core_read(PyObject *self, PyObject *args)
{
    const char *path;
    spx_matrix *A = NULL;
    spx_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &path)) return NULL;
    Py_BEGIN_ALLOW_THREADS st = spx_matrix_read(path, &A);
    Py_END_ALLOW_THREADS if (st != SPX_OK) return raise_status(st);
    return (PyObject *)matrix_new(A);
}

static PyObject *core_generate(PyObject *self, PyObject *args)
{
    const char *spec;
    spx_matrix *A = NULL;
    spx_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &spec)) return NULL;
    Py_BEGIN_ALLOW_THREADS st = spx_generate(spec, &A);
    Py_END_ALLOW_THREADS if (st != SPX_OK) return raise_status(st);
    return (PyObject *)matrix_new(A);
}

static PyObject *matrix_shape(MatrixObject *m, PyObject *unused)
{
    int64_t r, c, z;
    (void)unused;
    spx_matrix_dims(m->A, &r, &c, &z);
    return Py_BuildValue("(LLL)", (long long)r, (long long)c, (long long)z);
}

/* (indptr bytes, indices bytes, index bits, data bytes, 'd' or 'f'): copies. */
static PyObject *matrix_arrays(MatrixObject *m, PyObject *unused)
{
    int64_t r, c, z;
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type t;
    (void)unused;
    spx_matrix_dims(m->A, &r, &c, &z);
    spx_status st = spx_matrix_csr(m->A, &rp, &ci, &bits, &v, &t); /* widens 32-bit offsets */
    if (st != SPX_OK) return raise_status(st);
    size_t vs = t == SPX_F64 ? 8 : 4;
    return Py_BuildValue("(y#y#iy#s)", (const char *)rp, (Py_ssize_t)((r + 1) * 8),
                         (const char *)ci, (Py_ssize_t)(z * (bits / 8)), bits, (const char *)v,
                         (Py_ssize_t)(z * (Py_ssize_t)vs), t == SPX_F64 ? "d" : "f");
}

/* Addresses of the CSR arrays as SpX holds them, the row offsets in their
 * own width (to check that a wrap copied nothing). */
static PyObject *matrix_addresses(MatrixObject *m, PyObject *unused)
{
    const void *rp, *ci, *v;
    int rbits, bits;
    spx_type t;
    spx_status st;
    (void)unused;
    if ((st = spx_matrix_row_offsets(m->A, &rp, &rbits)) != SPX_OK ||
        (st = spx_matrix_csr(m->A, NULL, &ci, &bits, &v, &t)) != SPX_OK)
        return raise_status(st);
    return Py_BuildValue("(KKK)", (unsigned long long)(uintptr_t)rp,
                         (unsigned long long)(uintptr_t)ci, (unsigned long long)(uintptr_t)v);
}

/* (device, precision): "cpu" or "cuda" (a device matrix), "f64" or "f32". */
static PyObject *matrix_placement(MatrixObject *m, PyObject *unused)
{
    spx_type t = m->vtype;
    (void)unused;
    if (!m->on_device) spx_matrix_csr(m->A, NULL, NULL, NULL, NULL, &t);
    return Py_BuildValue("(ss)", m->on_device ? "cuda" : "cpu", t == SPX_F64 ? "f64" : "f32");
}

static PyMethodDef matrix_methods[] = {
    {"shape", (PyCFunction)matrix_shape, METH_NOARGS, "(rows, cols, nnz)"},
    {"arrays", (PyCFunction)matrix_arrays, METH_NOARGS, "copies of the CSR arrays as bytes"},
    {"addresses", (PyCFunction)matrix_addresses, METH_NOARGS, "addresses of the CSR arrays"},
    {"placement", (PyCFunction)matrix_placement, METH_NOARGS, "(device, precision)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject MatrixType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spx._core.Matrix",
    .tp_basicsize = sizeof(MatrixObject),
    .tp_dealloc = (destructor)matrix_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an SpX matrix (CSR)",
    .tp_methods = matrix_methods,
};

/* -------------------------------------------------------------------- Plan */

typedef struct {
    PyObject_HEAD spx_plan *P;
    MatrixObject *matrix;
    int64_t rows, cols;
    spx_type vtype; /* the vectors' type: F64 double, else float */
    int cuda;
    PyObject *dtype; /* "float64" or "float32" */
} PlanObject;

static void plan_dealloc(PlanObject *p)
{
    spx_plan_destroy(p->P);
    Py_XDECREF(p->matrix);
    Py_XDECREF(p->dtype);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyTypeObject PlanType;

static int device_of(const char *s, spx_device *d)
{
    if (strcmp(s, "cpu") == 0) *d = SPX_DEV_CPU;
    else if (strcmp(s, "cuda") == 0) *d = SPX_DEV_CUDA;
    else return 0;
    return 1;
}

static int precision_of(const char *s, spx_type *t)
{
    if (strcmp(s, "f64") == 0) *t = SPX_F64;
    else if (strcmp(s, "f32") == 0) *t = SPX_F32;
    else if (strcmp(s, "f16") == 0) *t = SPX_F16;
    else return 0;
    return 1;
}

/* plan(matrix, operation, format, device, precision, params, expected_calls, threads, transpose) */
static PyObject *core_plan(PyObject *self, PyObject *args)
{
    MatrixObject *m;
    int operation, threads, transpose;
    const char *format, *device, *precision, *params;
    long long calls;
    spx_plan_opts o = spx_plan_opts_default();
    (void)self;
    if (!PyArg_ParseTuple(args, "O!issszLip", &MatrixType, &m, &operation, &format, &device,
                          &precision, &params, &calls, &threads, &transpose))
        return NULL;
    if (!device_of(device, &o.device) || !precision_of(precision, &o.precision)) {
        PyErr_SetString(PyExc_ValueError, "device is 'cpu' or 'cuda', precision 'f64', 'f32', 'f16'");
        return NULL;
    }
    o.format = format;
    o.params = params;
    o.expected_calls = calls;
    o.threads = threads;
    o.op = transpose ? SPX_OP_T : SPX_OP_N;
    PlanObject *p = PyObject_New(PlanObject, &PlanType);
    if (!p) return NULL;
    p->P = NULL;
    p->matrix = m;
    Py_INCREF(m);
    p->dtype = NULL;
    spx_status st;
    Py_BEGIN_ALLOW_THREADS st = spx_plan_create(m->A, (spx_operation)operation, &o, &p->P);
    Py_END_ALLOW_THREADS if (st != SPX_OK)
    {
        Py_DECREF(p);
        return raise_status(st);
    }
    spx_plan_dims(p->P, &p->rows, &p->cols);
    p->vtype = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    p->cuda = o.device == SPX_DEV_CUDA;
    p->dtype = PyUnicode_FromString(p->vtype == SPX_F64 ? "float64" : "float32");
    return (PyObject *)p;
}

/* A vector argument: a device address (int) or a host buffer of n entries of
 * the plan's type. *host tells which; view is filled for buffers. */
static int vector_arg(PlanObject *p, PyObject *o, int64_t n, int writable, Py_buffer *view,
                      void **ptr, int *host)
{
    if (PyLong_Check(o)) {
        *ptr = PyLong_AsVoidPtr(o);
        *host = 0;
        return PyErr_Occurred() ? -1 : 0;
    }
    if (PyObject_GetBuffer(o, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    char want = p->vtype == SPX_F64 ? 'd' : 'f';
    if (view->len != (Py_ssize_t)(n * (p->vtype == SPX_F64 ? 8 : 4)) || !view->format ||
        view->format[0] != want) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "expected a contiguous %s vector of %lld entries",
                     want == 'd' ? "float64" : "float32", (long long)n);
        return -1;
    }
    *ptr = view->buf;
    *host = 1;
    return 0;
}

/* y = alpha*op(A)*x + beta*y; host buffers through spx_spmv_host on CUDA plans. */
static spx_status spmv_any(PlanObject *p, double alpha, void *x, double beta, void *y, int host)
{
    spx_status st;
    Py_BEGIN_ALLOW_THREADS if (host && p->cuda) st = spx_spmv_host(p->P, alpha, x, beta, y);
    else st = spx_spmv(p->P, alpha, x, beta, y);
    Py_END_ALLOW_THREADS return st;
}

/* matvec(x, y, alpha, beta) */
static PyObject *plan_matvec(PlanObject *p, PyObject *args)
{
    PyObject *xo, *yo;
    double alpha = 1.0, beta = 0.0;
    Py_buffer xv, yv;
    void *x, *y;
    int xh, yh;
    if (!PyArg_ParseTuple(args, "OO|dd", &xo, &yo, &alpha, &beta)) return NULL;
    if (vector_arg(p, xo, p->cols, 0, &xv, &x, &xh) < 0) return NULL;
    if (vector_arg(p, yo, p->rows, 1, &yv, &y, &yh) < 0) {
        if (xh) PyBuffer_Release(&xv);
        return NULL;
    }
    spx_status st = xh != yh ? SPX_ERR_INVALID_ARG : spmv_any(p, alpha, x, beta, y, xh);
    if (xh) PyBuffer_Release(&xv);
    if (yh) PyBuffer_Release(&yv);
    if (xh != yh) {
        PyErr_SetString(PyExc_ValueError, "x and y must both be host arrays or both device addresses");
        return NULL;
    }
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

/* P @ x for a host array x: a new NumPy y. */
static PyObject *plan_matmul(PyObject *a, PyObject *b)
{
    if (!PyObject_TypeCheck(a, &PlanType)) Py_RETURN_NOTIMPLEMENTED;
    PlanObject *p = (PlanObject *)a;
    Py_buffer xv, yv;
    void *x;
    int xh;
    if (vector_arg(p, b, p->cols, 0, &xv, &x, &xh) < 0) return NULL;
    if (!xh) {
        PyErr_SetString(PyExc_TypeError, "P @ x takes a host array; use matvec for device vectors");
        return NULL;
    }
    PyObject *y = PyObject_CallFunction(numpy_empty, "(LO)", (long long)p->rows, p->dtype);
    if (!y || PyObject_GetBuffer(y, &yv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&xv);
        Py_XDECREF(y);
        return NULL;
    }
    spx_status st = spmv_any(p, 1.0, x, 0.0, yv.buf, 1);
    PyBuffer_Release(&xv);
    PyBuffer_Release(&yv);
    if (st != SPX_OK) {
        Py_DECREF(y);
        return raise_status(st);
    }
    return y;
}

/* libspx's test hook (plan/format.h): the device arrays a CUDA csr plan
 * reads as A's row offsets, columns and values. The extension links the
 * static library (python/CMakeLists.txt), so the internal symbol is here. */
void spx__plan_device_arrays(const spx_plan *P, const void **rowptr, const void **colidx,
                             const void **values);

/* device_arrays() -> (rowptr, colidx, values) addresses, 0 where none: to
 * check that a plan of a device matrix uses the caller's arrays. */
static PyObject *plan_device_arrays(PlanObject *p, PyObject *unused)
{
    const void *rp, *ci, *v;
    (void)unused;
    spx__plan_device_arrays(p->P, &rp, &ci, &v);
    return Py_BuildValue("(KKK)", (unsigned long long)(uintptr_t)rp,
                         (unsigned long long)(uintptr_t)ci, (unsigned long long)(uintptr_t)v);
}

static PyObject *plan_info(PlanObject *p, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("{s:s,s:d,s:n,s:s,s:s,s:L,s:L,s:O}", "format", spx_plan_format(p->P),
                         "prep_ms", spx_plan_prep_ms(p->P), "bytes", (Py_ssize_t)spx_plan_bytes(p->P),
                         "describe", spx_plan_describe(p->P), "device", p->cuda ? "cuda" : "cpu",
                         "rows", (long long)p->rows, "cols", (long long)p->cols, "dtype",
                         p->dtype);
}

/* spgemm(B): C = A*B for an SpGEMM plan. */
static PyObject *plan_spgemm(PlanObject *p, PyObject *args)
{
    MatrixObject *b;
    spx_matrix *C = NULL;
    spx_status st;
    if (!PyArg_ParseTuple(args, "O!", &MatrixType, &b)) return NULL;
    Py_BEGIN_ALLOW_THREADS st = spx_spgemm_run(p->P, b->A, &C);
    Py_END_ALLOW_THREADS if (st != SPX_OK) return raise_status(st);
    return (PyObject *)matrix_new(C);
}

/* spgemm_numeric(B, C): C's values again for B of the pattern that made C. */
static PyObject *plan_spgemm_numeric(PlanObject *p, PyObject *args)
{
    MatrixObject *b, *c;
    spx_status st;
    if (!PyArg_ParseTuple(args, "O!O!", &MatrixType, &b, &MatrixType, &c)) return NULL;
    Py_BEGIN_ALLOW_THREADS st = spx_spgemm_numeric(p->P, b->A, c->A);
    Py_END_ALLOW_THREADS if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

/* solve(kind, A, b, x, rtol, max_iters, jacobi) -> (status, iters, rel_residual, ms, history) */
static PyObject *plan_solve(PlanObject *p, PyObject *args)
{
    const char *kind;
    MatrixObject *A;
    PyObject *bo, *xo;
    double rtol;
    long long max_iters;
    int jacobi;
    Py_buffer bv, xv;
    void *b, *x;
    int bh, xh;
    if (!PyArg_ParseTuple(args, "sO!OOdLp", &kind, &MatrixType, &A, &bo, &xo, &rtol, &max_iters,
                          &jacobi))
        return NULL;
    if (max_iters < 0 || max_iters > ((long long)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "max_iters out of range");
        return NULL;
    }
    if (vector_arg(p, bo, p->rows, 0, &bv, &b, &bh) < 0) return NULL;
    if (vector_arg(p, xo, p->rows, 1, &xv, &x, &xh) < 0) {
        if (bh) PyBuffer_Release(&bv);
        return NULL;
    }
    double *hist = PyMem_Malloc(((size_t)max_iters + 1) * sizeof(double));
    spx_solve_opts o = spx_solve_opts_default();
    spx_solve_info info = {0, 0.0, 0.0};
    spx_status st = SPX_ERR_INVALID_ARG;
    o.rtol = rtol;
    o.max_iters = max_iters;
    o.jacobi = jacobi;
    o.history = hist;
    int is_cg = strcmp(kind, "cg") == 0;
    /* CPU plans take host arrays, CUDA plans device addresses */
    int placed = p->cuda ? !bh && !xh : bh && xh;
    if (hist && placed) {
        Py_BEGIN_ALLOW_THREADS st = is_cg ? spx_cg(p->P, A->A, b, x, &o, &info)
                                          : spx_bicgstab(p->P, A->A, b, x, &o, &info);
        Py_END_ALLOW_THREADS
    }
    if (bh) PyBuffer_Release(&bv);
    if (xh) PyBuffer_Release(&xv);
    if (!hist) return PyErr_NoMemory();
    PyObject *h = PyList_New(0);
    for (int64_t i = 0; h && i <= info.iters && (st == SPX_OK || st == SPX_ERR_NOT_CONVERGED); i++) {
        PyObject *f = PyFloat_FromDouble(hist[i]);
        PyList_Append(h, f);
        Py_XDECREF(f);
    }
    PyMem_Free(hist);
    if (!placed) {
        Py_XDECREF(h);
        PyErr_SetString(PyExc_ValueError,
                        "b and x: host arrays for CPU plans, device addresses for CUDA plans");
        return NULL;
    }
    if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED) {
        Py_XDECREF(h);
        return raise_status(st);
    }
    return Py_BuildValue("(iLddN)", (int)st, (long long)info.iters, info.rel_residual, info.ms, h);
}

static PyMethodDef plan_methods[] = {
    {"matvec", (PyCFunction)plan_matvec, METH_VARARGS, "y = alpha*A*x + beta*y"},
    {"info", (PyCFunction)plan_info, METH_NOARGS, "format, prep_ms, bytes, describe, ..."},
    {"spgemm", (PyCFunction)plan_spgemm, METH_VARARGS, "C = A*B"},
    {"spgemm_numeric", (PyCFunction)plan_spgemm_numeric, METH_VARARGS,
     "C's values again for B of C's pattern"},
    {"solve", (PyCFunction)plan_solve, METH_VARARGS, "cg or bicgstab"},
    {"device_arrays", (PyCFunction)plan_device_arrays, METH_NOARGS,
     "device addresses of the matrix arrays a CUDA csr plan reads (a test hook)"},
    {NULL, NULL, 0, NULL}};

static PyNumberMethods plan_number = {.nb_matrix_multiply = plan_matmul};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spx._core.Plan",
    .tp_basicsize = sizeof(PlanObject),
    .tp_dealloc = (destructor)plan_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an SpX plan",
    .tp_methods = plan_methods,
    .tp_as_number = &plan_number,
};

/* ---------------------------------------------------------------- registry */

static PyObject *core_formats(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) != SPX_OK) continue;
        PyObject *d = Py_BuildValue("{s:s,s:I,s:I,s:I}", "name", f.name, "devices", f.devices,
                                    "precisions", f.precisions, "operations", f.operations);
        if (d) PyList_Append(list, d);
        Py_XDECREF(d);
    }
    return list;
}

static PyObject *core_device_available(PyObject *self, PyObject *args)
{
    const char *s;
    spx_device d;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &s)) return NULL;
    if (!device_of(s, &d)) {
        PyErr_SetString(PyExc_ValueError, "device is 'cpu' or 'cuda'");
        return NULL;
    }
    return PyBool_FromLong(spx_device_available(d));
}

static PyMethodDef core_methods[] = {
    {"wrap", core_wrap, METH_VARARGS, "Matrix over CSR arrays (no copy)"},
    {"wrap_device", core_wrap_device, METH_VARARGS,
     "Matrix over CSR arrays in CUDA device memory (no copy)"},
    {"read", core_read, METH_VARARGS, "Matrix from a .mtx, .mtx.gz or .spx file"},
    {"generate", core_generate, METH_VARARGS, "Matrix from a generator spec"},
    {"plan", core_plan, METH_VARARGS, "a Plan of a Matrix"},
    {"formats", core_formats, METH_NOARGS, "the registered formats"},
    {"device_available", core_device_available, METH_VARARGS, "is the device usable"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "spx._core",
                                         "The CPython binding of libspx.", -1, core_methods};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return NULL;
    numpy_empty = PyObject_GetAttrString(np, "empty");
    Py_DECREF(np);
    if (!numpy_empty || PyType_Ready(&MatrixType) < 0 || PyType_Ready(&PlanType) < 0) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    SpxError = PyErr_NewException("spx.SpxError", NULL, NULL);
    Py_INCREF(&MatrixType);
    Py_INCREF(&PlanType);
    if (PyModule_AddObject(m, "SpxError", SpxError) < 0 ||
        PyModule_AddObject(m, "Matrix", (PyObject *)&MatrixType) < 0 ||
        PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0)
        return NULL;
    return m;
}
