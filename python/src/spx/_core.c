/* spx._core: the CPython binding of libspx. Three types and a few functions;
 * the Python layer (spx/__init__.py) gives them their friendly shape.
 *
 * Matrix: an spx_matrix. From caller arrays (wrap: the objects are kept
 * alive by the Matrix, their buffers used in place: scipy's CSR arrays,
 * int32 indptr included, are not copied), from CUDA device addresses
 * (wrap_device: cupyx's CSR arrays, kept alive by the Matrix, read in place
 * by CUDA csr plans), from a file or a generator spec (owned by SpX).
 * Plan: an spx_plan of a Matrix (kept alive by the Plan).
 * MultiPlan: an spx_multi_plan of a Matrix (kept alive by it): parts on CPU
 * threads or GPUs, host vectors; its calls run one at a time (a lock).
 * Vectors: objects with the buffer protocol (NumPy arrays, host memory) or
 * an int, a device address (CuPy's data.ptr) for CUDA plans.
 * SpMM's dense X and Y, SDDMM's X, Y and Z, and the B and X of CG on k
 * columns (spx_cg_many): buffers with strides (row-major, any row stride,
 * adjacent columns: NumPy arrays and their column slices, no copy) or, for
 * CUDA plans, objects with __cuda_array_interface__ (CuPy arrays).
 * The GIL is released during plan creation, SpMV, SpMM, SDDMM, SpGEMM and the
 * solvers (a MultiPlan's on host vectors, through resident vectors made per
 * solve).
 * Errors raise spx.SpxError(status, name, message). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
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
    PyObject_HEAD
    spx_matrix *A;
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
    Py_BEGIN_ALLOW_THREADS
    st = spx_matrix_wrap(rows, cols, m->views[0].buf, rb, m->views[1].buf, cb, d->buf,
                         f64 ? SPX_F64 : SPX_F32, &m->A);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) {
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
    Py_BEGIN_ALLOW_THREADS
    st = spx_matrix_wrap_device(rows, cols, (const void *)(uintptr_t)rp, rbits,
                                (const void *)(uintptr_t)ci, 32, (const void *)(uintptr_t)v,
                                m->vtype, &m->A);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) {
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
    Py_BEGIN_ALLOW_THREADS
    st = spx_matrix_read(path, &A);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) return raise_status(st);
    return (PyObject *)matrix_new(A);
}

static PyObject *core_generate(PyObject *self, PyObject *args)
{
    const char *spec;
    spx_matrix *A = NULL;
    spx_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "s", &spec)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = spx_generate(spec, &A);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) return raise_status(st);
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
    PyObject_HEAD
    spx_plan *P;
    MatrixObject *matrix;
    int64_t rows, cols;
    spx_type vtype; /* the vectors' type: F64 double, else float */
    int cuda;
    spx_operation operation;
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
    if (strcmp(s, "cpu") == 0)
        *d = SPX_DEV_CPU;
    else if (strcmp(s, "cuda") == 0)
        *d = SPX_DEV_CUDA;
    else
        return 0;
    return 1;
}

static int precision_of(const char *s, spx_type *t)
{
    if (strcmp(s, "f64") == 0)
        *t = SPX_F64;
    else if (strcmp(s, "f32") == 0)
        *t = SPX_F32;
    else if (strcmp(s, "f16") == 0)
        *t = SPX_F16;
    else
        return 0;
    return 1;
}

/* *o from the arguments plan and multi_plan share; ValueError for an
 * unknown device or precision. */
static int plan_opts_of(spx_plan_opts *o, const char *format, const char *device,
                        const char *precision, const char *params, long long calls, int transpose)
{
    *o = spx_plan_opts_default();
    if (!device_of(device, &o->device) || !precision_of(precision, &o->precision)) {
        PyErr_SetString(PyExc_ValueError,
                        "device is 'cpu' or 'cuda', precision 'f64', 'f32', 'f16'");
        return -1;
    }
    o->format = format;
    o->params = params;
    o->expected_calls = calls;
    o->op = transpose ? SPX_OP_T : SPX_OP_N;
    return 0;
}

/* plan(matrix, operation, format, device, precision, params, expected_calls, threads, transpose) */
static PyObject *core_plan(PyObject *self, PyObject *args)
{
    MatrixObject *m;
    int operation, threads, transpose;
    const char *format, *device, *precision, *params;
    long long calls;
    spx_plan_opts o;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!issszLip", &MatrixType, &m, &operation, &format, &device,
                          &precision, &params, &calls, &threads, &transpose))
        return NULL;
    if (plan_opts_of(&o, format, device, precision, params, calls, transpose) < 0) return NULL;
    o.threads = threads;
    PlanObject *p = PyObject_New(PlanObject, &PlanType);
    if (!p) return NULL;
    p->P = NULL;
    p->matrix = m;
    Py_INCREF(m);
    p->dtype = NULL;
    spx_status st;
    Py_BEGIN_ALLOW_THREADS
    st = spx_plan_create(m->A, (spx_operation)operation, &o, &p->P);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) {
        Py_DECREF(p);
        return raise_status(st);
    }
    spx_plan_dims(p->P, &p->rows, &p->cols);
    p->vtype = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    p->cuda = o.device == SPX_DEV_CUDA;
    p->operation = spx_plan_operation(p->P);
    p->dtype = PyUnicode_FromString(p->vtype == SPX_F64 ? "float64" : "float32");
    return (PyObject *)p;
}

/* A host buffer of n entries of type t (F64: double, else float) into view;
 * ValueError (nothing held) for another length, type or layout. */
static int host_vector(spx_type t, PyObject *o, int64_t n, int writable, Py_buffer *view)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, view, flags) < 0) return -1;
    char want = t == SPX_F64 ? 'd' : 'f';
    if (view->ndim != 1 || view->len != (Py_ssize_t)(n * (t == SPX_F64 ? 8 : 4)) || !view->format ||
        view->format[0] != want) {
        PyBuffer_Release(view);
        PyErr_Format(PyExc_ValueError, "expected a contiguous %s vector of %lld entries",
                     want == 'd' ? "float64" : "float32", (long long)n);
        return -1;
    }
    return 0;
}

/* y = op(A)*x of a plan p (Plan or MultiPlan) into a new NumPy vector of n
 * entries of dtype, y's buffer from apply(p, x, y); xv (the host x) is
 * released. */
typedef spx_status (*apply_fn)(PyObject *p, void *x, void *y);
static PyObject *product(PyObject *p, apply_fn apply, Py_buffer *xv, int64_t n, PyObject *dtype)
{
    Py_buffer yv;
    PyObject *y = PyObject_CallFunction(numpy_empty, "(LO)", (long long)n, dtype);
    if (y && PyObject_GetBuffer(y, &yv, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) Py_CLEAR(y);
    spx_status st = y ? apply(p, xv->buf, yv.buf) : SPX_OK;
    PyBuffer_Release(xv);
    if (!y) return NULL;
    PyBuffer_Release(&yv);
    if (st != SPX_OK) {
        Py_DECREF(y);
        return raise_status(st);
    }
    return y;
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
    if (host_vector(p->vtype, o, n, writable, view) < 0) return -1;
    *ptr = view->buf;
    *host = 1;
    return 0;
}

/* y = alpha*op(A)*x + beta*y; host buffers through spx_spmv_host on CUDA plans. */
static spx_status spmv_any(PlanObject *p, double alpha, void *x, double beta, void *y, int host)
{
    spx_status st;
    Py_BEGIN_ALLOW_THREADS
    if (host && p->cuda)
        st = spx_spmv_host(p->P, alpha, x, beta, y);
    else
        st = spx_spmv(p->P, alpha, x, beta, y);
    Py_END_ALLOW_THREADS
    return st;
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
        PyErr_SetString(PyExc_ValueError,
                        "x and y must both be host arrays or both device addresses");
        return NULL;
    }
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

/* A dense SpMM operand, X or Y: shape[0] rows of shape[1] entries (a 1-D
 * array is one column), row i at ptr + i*strides[0] bytes. Host memory held
 * through view, or device memory described by __cuda_array_interface__. */
typedef struct {
    char *ptr;
    int ndim, host, typed, readonly; /* typed: of the plan's element type */
    Py_ssize_t itemsize, shape[2], strides[2];
    Py_buffer view;
} dense;

static void dense_release(dense *d)
{
    if (d->host) PyBuffer_Release(&d->view);
    d->host = 0;
}

/* *d from a __cuda_array_interface__ dict (versions 2 and 3: data is
 * (address, read-only), strides None for C order, no mask); want is the
 * plan's typestr. */
static int device_dense(PyObject *iface, const char *want, dense *d)
{
    PyObject *data = PyDict_Check(iface) ? PyDict_GetItemString(iface, "data") : NULL;
    PyObject *shape = data ? PyDict_GetItemString(iface, "shape") : NULL;
    PyObject *strides = data ? PyDict_GetItemString(iface, "strides") : NULL;
    PyObject *type = data ? PyDict_GetItemString(iface, "typestr") : NULL;
    PyObject *mask = data ? PyDict_GetItemString(iface, "mask") : NULL;
    if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 || !shape ||
        !PyTuple_Check(shape) || !type || !PyUnicode_Check(type) || (mask && mask != Py_None) ||
        (strides && strides != Py_None &&
         (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape)))) {
        PyErr_SetString(PyExc_ValueError, "a malformed __cuda_array_interface__");
        return -1;
    }
    const char *ts = PyUnicode_AsUTF8(type);
    if (!ts) return -1;
    d->host = 0;
    d->ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    d->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    d->ndim = (int)PyTuple_GET_SIZE(shape);
    d->typed = strcmp(ts, want) == 0;
    d->itemsize = strlen(ts) > 2 ? atoi(ts + 2) : 0;
    for (int i = 0; i < d->ndim && i < 2; i++)
        d->shape[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
    for (int i = d->ndim - 1; i >= 0 && i < 2; i--) /* C order, unless strides says */
        d->strides[i] = i == d->ndim - 1 ? d->itemsize : d->shape[i + 1] * d->itemsize;
    for (int i = 0; strides && strides != Py_None && i < d->ndim && i < 2; i++)
        d->strides[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, i));
    return PyErr_Occurred() ? -1 : 0;
}

/* *d from a host buffer (strided: views need not be contiguous). */
static int host_dense(PyObject *o, int writable, char want, dense *d)
{
    int flags = PyBUF_STRIDES | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(o, &d->view, flags) < 0) return -1;
    d->host = 1;
    d->ptr = d->view.buf;
    d->readonly = 0;
    d->ndim = d->view.ndim;
    d->itemsize = d->view.itemsize;
    d->typed = d->view.format && d->view.format[0] == want && d->itemsize == (want == 'd' ? 8 : 4);
    for (int i = 0; i < d->ndim && i < 2; i++) {
        d->shape[i] = d->view.shape[i];
        d->strides[i] = d->view.strides[i];
    }
    return 0;
}

/* Entries from one row to the next of d (k columns), as spx_spmm's ldx and
 * ldy: the row stride where there are two rows and a column to step over,
 * else k; -1 where the rows are not k entries apart or more. */
static int64_t dense_ld(const dense *d, int64_t k)
{
    Py_ssize_t s = d->strides[0];
    if (d->shape[0] < 2 || k == 0) return k;
    return s % d->itemsize == 0 && s / d->itemsize >= k ? s / d->itemsize : -1;
}

static const char *plan_dtype(const PlanObject *p)
{
    return p->vtype == SPX_F64 ? "float64" : "float32";
}

/* o as *d: a device array (__cuda_array_interface__) or a host buffer,
 * writable when asked; d->typed tells whether it is of plan p's type. */
static int dense_get(PlanObject *p, PyObject *o, int writable, dense *d)
{
    PyObject *iface = PyObject_GetAttrString(o, "__cuda_array_interface__");
    if (iface) {
        int got = device_dense(iface, p->vtype == SPX_F64 ? "<f8" : "<f4", d);
        Py_DECREF(iface);
        return got;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return host_dense(o, writable, p->vtype == SPX_F64 ? 'd' : 'f', d);
}

/* Operand o of plan p as *d, with its k columns and its row stride ld in
 * entries: name is "X" or "Y", rows the rows it must have (role: which
 * dimension of op(A) that is), writable for Y. ValueError, nothing held, for
 * another element type, shape or layout. */
static int dense_arg(PlanObject *p, PyObject *o, int64_t rows, int writable, const char *name,
                     const char *role, dense *d, int64_t *k, int64_t *ld)
{
    if (dense_get(p, o, writable, d) < 0) return -1;
    *k = d->ndim == 2 ? d->shape[1] : 1;
    *ld = d->typed && (d->ndim == 1 || d->ndim == 2) ? dense_ld(d, *k) : 0;
    if (!d->typed)
        PyErr_Format(PyExc_ValueError, "%s must be a %s array (the plan's dtype)", name,
                     plan_dtype(p));
    else if (d->ndim != 1 && d->ndim != 2)
        PyErr_Format(PyExc_ValueError, "%s must be 1-D or 2-D, not %d-D", name, d->ndim);
    else if (d->shape[0] != rows)
        PyErr_Format(PyExc_ValueError, "%s must have %lld rows (%s), not %lld", name,
                     (long long)rows, role, (long long)d->shape[0]);
    else if (*k > 1 && d->strides[1] != d->itemsize)
        PyErr_Format(PyExc_ValueError,
                     "%s's columns must be adjacent (row-major, a unit column stride, as in "
                     "C order or a column slice of it): copy it with ascontiguousarray",
                     name);
    else if (*ld < 0)
        PyErr_Format(PyExc_ValueError,
                     "%s's rows must be a whole number of entries apart, at least k = %lld "
                     "and increasing: copy it with ascontiguousarray",
                     name, (long long)*k);
    else if (writable && d->readonly)
        PyErr_Format(PyExc_ValueError, "%s is read-only", name);
    else
        return 0;
    dense_release(d);
    return -1;
}

/* Memory an operand covers: rows runs of width bytes, ld bytes from the
 * start of one to the next, the first at at. */
typedef struct {
    long long at, rows, ld, width;
} span;

/* Operand d of k columns and row stride ld entries (from dense_arg) as a span. */
static span dense_span(const dense *d, int64_t k, int64_t ld)
{
    span s = {(long long)(intptr_t)d->ptr, d->shape[0], ld * d->itemsize, k * d->itemsize};
    return s;
}

/* Whether spans a and b share a byte (interleaved column slices of one array
 * do not). For each run of x, the one of fewer runs: the first run of y that
 * ends past its start must begin past its end. */
static int spans_overlap(span a, span b)
{
    span x = a.rows <= b.rows ? a : b, y = a.rows <= b.rows ? b : a;
    long long base = x.at - y.at; /* from y's start */
    if (!x.rows || !x.width || !y.width || base >= (y.rows - 1) * y.ld + y.width ||
        base + (x.rows - 1) * x.ld + x.width <= 0)
        return 0;
    for (long long i = 0; i < x.rows; i++) {
        long long at = base + i * x.ld, j = at < y.width ? 0 : (at - y.width) / y.ld + 1;
        if (j < y.rows && j * y.ld < at + x.width) return 1;
    }
    return 0;
}

/* ValueError (returns -1) where spans a and b (operands an and bn) share a
 * byte, which spx_spmm, spx_sddmm and spx_cg_many forbid of what they write. */
static int dense_apart(const char *an, span a, const char *bn, span b)
{
    if (!spans_overlap(a, b)) return 0;
    PyErr_Format(PyExc_ValueError, "%s and %s must not share memory", an, bn);
    return -1;
}

/* ValueError (returns -1) unless operands x and y (from dense_arg, named xn
 * and yn) can go to plan p together: both host arrays, or both device arrays
 * and a CUDA plan; as many columns (k and ky). */
static int dense_pair(PlanObject *p, const char *xn, const dense *x, int64_t k, const char *yn,
                      const dense *y, int64_t ky)
{
    if ((!x->host || !y->host) && !p->cuda)
        PyErr_SetString(PyExc_ValueError, "device arrays take a plan made with device=\"cuda\"");
    else if (x->host != y->host)
        PyErr_Format(PyExc_ValueError, "%s and %s must both be host arrays or both device arrays",
                     xn, yn);
    else if (k != ky)
        PyErr_Format(PyExc_ValueError, "%s has %lld columns and %s %lld: they must be the same", xn,
                     (long long)k, yn, (long long)ky);
    else
        return 0;
    return -1;
}

/* Y (yo) = alpha*op(A)*X + beta*Y of an SpMM plan p, the GIL released; x (X
 * from dense_arg, k columns, ld) is released. Host arrays through
 * spx_spmm_host on CUDA plans, device arrays (CUDA plans) through spx_spmm. */
static int spmm_into(PlanObject *p, dense *x, int64_t k, int64_t ldx, PyObject *yo, double alpha,
                     double beta)
{
    dense y;
    int64_t ky, ldy;
    spx_status st = SPX_OK;
    if (dense_arg(p, yo, p->rows, 1, "Y", "op(A)'s rows", &y, &ky, &ldy) < 0) {
        dense_release(x);
        return -1;
    }
    int bad = dense_pair(p, "X", x, k, "Y", &y, ky) < 0 ||
              dense_apart("X", dense_span(x, k, ldx), "Y", dense_span(&y, ky, ldy)) < 0;
    if (!bad) {
        Py_BEGIN_ALLOW_THREADS
        if (y.host && p->cuda)
            st = spx_spmm_host(p->P, k, alpha, x->ptr, ldx, beta, y.ptr, ldy);
        else
            st = spx_spmm(p->P, k, alpha, x->ptr, ldx, beta, y.ptr, ldy);
        Py_END_ALLOW_THREADS
    }
    dense_release(x);
    dense_release(&y);
    if (bad) return -1;
    if (st != SPX_OK) {
        raise_status(st);
        return -1;
    }
    return 0;
}

/* ValueError (returns -1) with message unless p was made for op. */
static int check_operation(PlanObject *p, spx_operation op, const char *message)
{
    if (p->operation == op) return 0;
    PyErr_SetString(PyExc_ValueError, message);
    return -1;
}

static int check_spmm_plan(PlanObject *p)
{
    return check_operation(p, SPX_OP_SPMM,
                           "dense X and Y take an SpMM plan: spx.plan(A, operation=\"spmm\")");
}

/* matmat(X, Y, alpha, beta): Y = alpha*op(A)*X + beta*Y in place, X and Y
 * host arrays or (CUDA plans) device arrays. */
static PyObject *plan_matmat(PlanObject *p, PyObject *args)
{
    PyObject *xo, *yo;
    double alpha = 1.0, beta = 0.0;
    dense x;
    int64_t k, ldx;
    if (!PyArg_ParseTuple(args, "OO|dd", &xo, &yo, &alpha, &beta) || check_spmm_plan(p) < 0 ||
        dense_arg(p, xo, p->cols, 0, "X", "op(A)'s columns", &x, &k, &ldx) < 0 ||
        spmm_into(p, &x, k, ldx, yo, alpha, beta) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* P @ X of an SpMM plan for a host X (1-D: one column): a new NumPy Y of
 * X's dimensions (a device X is refused: it would need a device Y). */
static PyObject *spmm_product(PlanObject *p, PyObject *xo)
{
    dense x;
    int64_t k, ldx;
    if (dense_arg(p, xo, p->cols, 0, "X", "op(A)'s columns", &x, &k, &ldx) < 0) return NULL;
    PyObject *y = x.ndim == 1
                      ? PyObject_CallFunction(numpy_empty, "(LO)", (long long)p->rows, p->dtype)
                      : PyObject_CallFunction(numpy_empty, "((LL)O)", (long long)p->rows,
                                              (long long)k, p->dtype);
    if (!y) {
        dense_release(&x);
        return NULL;
    }
    if (spmm_into(p, &x, k, ldx, y, 1.0, 0.0) < 0) Py_CLEAR(y);
    return y;
}

/* Z of an SDDMM plan p as *z: a vector of nnz adjacent entries of the plan's
 * type, writable. ValueError, nothing held, for another. */
static int sddmm_z_arg(PlanObject *p, PyObject *o, int64_t nnz, dense *z)
{
    if (dense_get(p, o, 1, z) < 0) return -1;
    if (!z->typed)
        PyErr_Format(PyExc_ValueError, "Z must be a %s array (the plan's dtype)", plan_dtype(p));
    else if (z->ndim != 1 || z->shape[0] != nnz)
        PyErr_Format(PyExc_ValueError, "Z must be a vector of %lld entries (one an entry of A)",
                     (long long)nnz);
    else if (nnz > 1 && z->strides[0] != z->itemsize)
        PyErr_SetString(PyExc_ValueError, "Z's entries must be adjacent (a contiguous vector)");
    else if (z->readonly)
        PyErr_SetString(PyExc_ValueError, "Z is read-only");
    else
        return 0;
    dense_release(z);
    return -1;
}

/* sddmm(X, Y, Z, alpha, beta): for each entry e = (i, j) of A in its CSR
 * order, Z[e] = alpha * X(i, :) . Y(j, :) + beta*Z[e], in place; X (A's rows
 * x k) and Y (A's columns x k) as matmat's X, Z a vector of nnz(A) entries
 * that shares no byte with them. Host arrays (through spx_sddmm_host on CUDA
 * plans) or, on CUDA plans, device arrays (spx_sddmm). */
static PyObject *plan_sddmm(PlanObject *p, PyObject *args)
{
    PyObject *xo, *yo, *zo;
    double alpha = 1.0, beta = 0.0;
    dense x = {0}, y = {0}, z = {0};
    int64_t k, ky, ldx, ldy, nnz;
    spx_status st = SPX_OK;
    if (!PyArg_ParseTuple(args, "OOO|dd", &xo, &yo, &zo, &alpha, &beta) ||
        check_operation(p, SPX_OP_SDDMM,
                        "sddmm takes an SDDMM plan: spx.plan(A, operation=\"sddmm\")") < 0)
        return NULL;
    spx_matrix_dims(p->matrix->A, NULL, NULL, &nnz);
    int ok = dense_arg(p, xo, p->rows, 0, "X", "A's rows", &x, &k, &ldx) == 0 &&
             dense_arg(p, yo, p->cols, 0, "Y", "A's columns", &y, &ky, &ldy) == 0 &&
             sddmm_z_arg(p, zo, nnz, &z) == 0 && dense_pair(p, "X", &x, k, "Y", &y, ky) == 0 &&
             dense_pair(p, "X", &x, k, "Z", &z, k) == 0 &&
             dense_apart("X", dense_span(&x, k, ldx), "Z", dense_span(&z, 1, 1)) == 0 &&
             dense_apart("Y", dense_span(&y, k, ldy), "Z", dense_span(&z, 1, 1)) == 0;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        if (z.host && p->cuda)
            st = spx_sddmm_host(p->P, k, alpha, x.ptr, ldx, y.ptr, ldy, beta, z.ptr);
        else
            st = spx_sddmm(p->P, k, alpha, x.ptr, ldx, y.ptr, ldy, beta, z.ptr);
        Py_END_ALLOW_THREADS
    }
    dense_release(&x);
    dense_release(&y);
    dense_release(&z);
    if (!ok) return NULL;
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

/* update_values(v): new values for the plan's matrix (spx_plan_update_values),
 * a contiguous vector of nnz(A) entries of the plan's dtype in A's CSR order:
 * host memory (spx_plan_update_values_host, any plan) or, for CUDA plans,
 * device memory (__cuda_array_interface__). */
static PyObject *plan_update_values(PlanObject *p, PyObject *args)
{
    PyObject *vo;
    dense v = {0};
    int64_t nnz;
    spx_status st = SPX_OK;
    int ok = 0;
    if (!PyArg_ParseTuple(args, "O", &vo)) return NULL;
    spx_matrix_dims(p->matrix->A, NULL, NULL, &nnz);
    if (dense_get(p, vo, 0, &v) < 0) return NULL;
    if (!v.typed)
        PyErr_Format(PyExc_ValueError, "values must be a %s array (the plan's dtype)",
                     plan_dtype(p));
    else if (v.ndim != 1 || v.shape[0] != nnz)
        PyErr_Format(PyExc_ValueError,
                     "values must be a vector of %lld entries (one an entry of A, in its CSR "
                     "order)",
                     (long long)nnz);
    else if (nnz > 1 && v.strides[0] != v.itemsize)
        PyErr_SetString(PyExc_ValueError, "values' entries must be adjacent (a contiguous vector)");
    else if (!v.host && !p->cuda)
        PyErr_SetString(PyExc_ValueError,
                        "values in device memory need a CUDA plan; pass a NumPy array");
    else
        ok = 1;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        st =
            v.host ? spx_plan_update_values_host(p->P, v.ptr) : spx_plan_update_values(p->P, v.ptr);
        Py_END_ALLOW_THREADS
    }
    dense_release(&v);
    if (!ok) return NULL;
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

static spx_status plan_apply(PyObject *p, void *x, void *y)
{
    return spmv_any((PlanObject *)p, 1.0, x, 0.0, y, 1);
}

/* P @ x for a host array x: a new NumPy y (SpMM plans: P @ X). */
static PyObject *plan_matmul(PyObject *a, PyObject *b)
{
    if (!PyObject_TypeCheck(a, &PlanType)) Py_RETURN_NOTIMPLEMENTED;
    PlanObject *p = (PlanObject *)a;
    Py_buffer xv;
    void *x;
    int xh;
    if (p->operation == SPX_OP_SPMM) return spmm_product(p, b);
    if (vector_arg(p, b, p->cols, 0, &xv, &x, &xh) < 0) return NULL;
    if (!xh) {
        PyErr_SetString(PyExc_TypeError, "P @ x takes a host array; use matvec for device vectors");
        return NULL;
    }
    return product(a, plan_apply, &xv, p->rows, p->dtype);
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
    static const char *const operations[] = {"spmv", "spgemm", "spmm", "sddmm"}; /* spx_operation */
    return Py_BuildValue("{s:s,s:d,s:n,s:s,s:s,s:L,s:L,s:O,s:s}", "format", spx_plan_format(p->P),
                         "prep_ms", spx_plan_prep_ms(p->P), "bytes",
                         (Py_ssize_t)spx_plan_bytes(p->P), "describe", spx_plan_describe(p->P),
                         "device", p->cuda ? "cuda" : "cpu", "rows", (long long)p->rows, "cols",
                         (long long)p->cols, "dtype", p->dtype, "operation",
                         p->operation <= SPX_OP_SDDMM ? operations[p->operation] : "unknown");
}

/* spgemm(B): C = A*B for an SpGEMM plan. */
static PyObject *plan_spgemm(PlanObject *p, PyObject *args)
{
    MatrixObject *b;
    spx_matrix *C = NULL;
    spx_status st;
    if (!PyArg_ParseTuple(args, "O!", &MatrixType, &b)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = spx_spgemm_run(p->P, b->A, &C);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) return raise_status(st);
    return (PyObject *)matrix_new(C);
}

/* spgemm_numeric(B, C): C's values again for B of the pattern that made C. */
static PyObject *plan_spgemm_numeric(PlanObject *p, PyObject *args)
{
    MatrixObject *b, *c;
    spx_status st;
    if (!PyArg_ParseTuple(args, "O!O!", &MatrixType, &b, &MatrixType, &c)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    st = spx_spgemm_numeric(p->P, b->A, c->A);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

/* solve(kind, b, x, rtol, max_iters, jacobi, keep)'s arguments, Plan's and
 * MultiPlan's: o's history a new array of max_iters + 1 entries, freed by
 * solve_result (or by the caller where it does not get there). */
/* The solvers Plan.solve names: "cg", "bicgstab", "gmres". */
enum { SOLVE_CG, SOLVE_BICGSTAB, SOLVE_GMRES };

/* solve's arguments (kind, b, x, rtol, max_iters, jacobi, keep[, restart]) into *method, *b, *x
 * and the options *o. */
static int solve_args(PyObject *args, int *method, PyObject **b, PyObject **x, spx_solve_opts *o)
{
    const char *kind;
    double rtol;
    long long max_iters, restart = 0;
    int jacobi, keep;
    if (!PyArg_ParseTuple(args, "sOOdLpp|L", &kind, b, x, &rtol, &max_iters, &jacobi, &keep,
                          &restart))
        return -1;
    if (max_iters < 0 || max_iters > ((long long)1 << 40) || restart < 0 ||
        restart > ((long long)1 << 30)) {
        PyErr_SetString(PyExc_ValueError, "max_iters or restart out of range");
        return -1;
    }
    *method = strcmp(kind, "cg") == 0         ? SOLVE_CG
              : strcmp(kind, "bicgstab") == 0 ? SOLVE_BICGSTAB
                                              : SOLVE_GMRES;
    *o = spx_solve_opts_default();
    o->restart = restart;
    o->rtol = rtol;
    o->max_iters = max_iters;
    o->jacobi = jacobi;
    o->keep_workspace = keep;
    o->history = PyMem_Malloc(((size_t)max_iters + 1) * sizeof(double));
    if (!o->history) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The first n entries of a solve's history as a list. */
static PyObject *history_list(const double *history, int64_t n)
{
    PyObject *h = PyList_New(0);
    for (int64_t i = 0; h && i < n; i++) {
        PyObject *f = PyFloat_FromDouble(history[i]);
        if (!f || PyList_Append(h, f) < 0) Py_CLEAR(h);
        Py_XDECREF(f);
    }
    return h;
}

/* (status, iters, rel_residual, ms, history, replayed) of a solve that ended with
 * SPX_OK or SPX_ERR_NOT_CONVERGED, else SpxError; frees o's history. */
static PyObject *solve_result(spx_status st, const spx_solve_info *info, spx_solve_opts *o)
{
    int ran = st == SPX_OK || st == SPX_ERR_NOT_CONVERGED;
    PyObject *h = ran ? history_list(o->history, info->iters + 1) : NULL;
    PyMem_Free(o->history);
    if (!ran) return raise_status(st);
    if (!h) return NULL;
    return Py_BuildValue("(iLddNL)", (int)st, (long long)info->iters, info->rel_residual, info->ms,
                         h, (long long)info->replayed);
}

/* solve(kind, b, x, rtol, max_iters, jacobi, keep) -> (status, iters, rel_residual, ms,
 * history, replayed);
 * the plan's matrix gives the Jacobi diagonal. */
static PyObject *plan_solve(PlanObject *p, PyObject *args)
{
    PyObject *bo, *xo;
    spx_solve_opts o;
    spx_solve_info info = {0, 0.0, 0.0, 0};
    spx_status st = SPX_ERR_INVALID_ARG;
    Py_buffer bv, xv;
    void *b, *x;
    int method, bh = 0, xh = 0;
    if (solve_args(args, &method, &bo, &xo, &o) < 0) return NULL;
    if (vector_arg(p, bo, p->rows, 0, &bv, &b, &bh) < 0 ||
        vector_arg(p, xo, p->rows, 1, &xv, &x, &xh) < 0) {
        if (bh) PyBuffer_Release(&bv);
        PyMem_Free(o.history);
        return NULL;
    }
    /* host arrays for any plan (spx_cg_host copies them for CUDA plans), or
     * device addresses for CUDA plans */
    int host = bh && xh, placed = host || (p->cuda && !bh && !xh);
    if (placed) {
        Py_BEGIN_ALLOW_THREADS
        if (host)
            st = (method == SOLVE_CG         ? spx_cg_host
                  : method == SOLVE_BICGSTAB ? spx_bicgstab_host
                                             : spx_gmres_host)(p->P, p->matrix->A, b, x, &o, &info);
        else
            st = (method == SOLVE_CG         ? spx_cg
                  : method == SOLVE_BICGSTAB ? spx_bicgstab
                                             : spx_gmres)(p->P, p->matrix->A, b, x, &o, &info);
        Py_END_ALLOW_THREADS
    }
    if (bh) PyBuffer_Release(&bv);
    if (xh) PyBuffer_Release(&xv);
    if (!placed) {
        PyMem_Free(o.history);
        PyErr_SetString(PyExc_ValueError,
                        "b and x: both host arrays, or both device arrays for CUDA plans");
        return NULL;
    }
    return solve_result(st, &info, &o);
}

/* Runs spx_eigsh on a plan (ctx) with host vectors (vec: NULL, or k * n). */
typedef spx_status (*eigsh_runner)(void *ctx, const spx_eig_opts *o, double *w, void *vec,
                                   spx_eig_info *info);

/* eigsh(k, smallest, tol, basis, max_steps, skip_copies, vectors) -> (status,
 * values, steps, restarts, fresh_starts, converged, max_residual, ms, message) of
 * run on a plan of rows rows and vector type vtype, vectors None or a writable
 * host array of k * n entries of that type (eigenvector after eigenvector);
 * status SPX_OK or SPX_ERR_NOT_CONVERGED (message SpX's), else SpxError. */
static PyObject *eigsh_call(int64_t rows, spx_type vtype, PyObject *args, eigsh_runner run,
                            void *ctx)
{
    PyObject *vo, *values;
    long long k, basis, max_steps;
    int smallest, skip_copies;
    double tol;
    Py_buffer vv;
    int vh = 0;
    void *vec = NULL;
    spx_eig_info info = {0, 0, 0, 0, 0.0, 0.0};
    spx_status st;
    if (!PyArg_ParseTuple(args, "LpdLLpO", &k, &smallest, &tol, &basis, &max_steps, &skip_copies,
                          &vo))
        return NULL;
    if (k < 1 || k > rows || max_steps < 0 || max_steps > ((long long)1 << 40) || basis < 0 ||
        basis > ((long long)1 << 30)) {
        PyErr_Format(PyExc_ValueError, "k must be 1..%lld, basis and max_steps >= 0",
                     (long long)rows);
        return NULL;
    }
    if (vo != Py_None) {
        if (host_vector(vtype, vo, rows * k, 1, &vv) < 0) return NULL;
        vec = vv.buf;
        vh = 1;
    }
    double *w = PyMem_Malloc((size_t)k * sizeof *w);
    if (!w) {
        if (vh) PyBuffer_Release(&vv);
        return PyErr_NoMemory();
    }
    spx_eig_opts o = spx_eig_opts_default();
    o.k = k;
    o.which = smallest ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
    o.tol = tol;
    o.max_steps = max_steps;
    o.basis = basis;
    o.skip_copies = skip_copies;
    Py_BEGIN_ALLOW_THREADS
    st = run(ctx, &o, w, vec, &info);
    Py_END_ALLOW_THREADS
    if (vh) PyBuffer_Release(&vv);
    if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED) {
        PyMem_Free(w);
        return raise_status(st);
    }
    values = PyList_New(k);
    for (long long j = 0; values && j < k; j++) {
        PyObject *f = PyFloat_FromDouble(w[j]);
        if (!f)
            Py_CLEAR(values);
        else
            PyList_SET_ITEM(values, j, f);
    }
    PyMem_Free(w);
    if (!values) return NULL;
    return Py_BuildValue("(iNLLLLdds)", (int)st, values, (long long)info.steps,
                         (long long)info.restarts, (long long)info.fresh_starts,
                         (long long)info.converged, info.max_residual, info.ms,
                         st == SPX_OK ? "" : spx_last_error());
}

static spx_status plan_eigsh_run(void *ctx, const spx_eig_opts *o, double *w, void *vec,
                                 spx_eig_info *info)
{
    return spx_eigsh_host(((PlanObject *)ctx)->P, o, w, vec, info);
}

static PyObject *plan_eigsh(PlanObject *p, PyObject *args)
{
    return eigsh_call(p->rows, p->vtype, args, plan_eigsh_run, p);
}

/* (status, iters, rel_residuals, ms, history, message) of spx_cg_many on k
 * columns of n rows that ended with SPX_OK or SPX_ERR_NOT_CONVERGED, else
 * SpxError: iters and rel_residuals list info's k entries; history runs to
 * the last column's stop (empty when nothing ran); message is SpX's for
 * SPX_ERR_NOT_CONVERGED, else empty. */
static PyObject *many_result(spx_status st, const spx_solve_info *info, int64_t k, int64_t n,
                             const double *history)
{
    int64_t last = -1;
    if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED) return raise_status(st);
    PyObject *iters = PyList_New(k), *rel = PyList_New(k);
    for (int64_t j = 0; iters && rel && j < k; j++) {
        PyObject *i = PyLong_FromLongLong(info[j].iters),
                 *r = PyFloat_FromDouble(info[j].rel_residual);
        if (i) PyList_SET_ITEM(iters, j, i);
        if (r) PyList_SET_ITEM(rel, j, r);
        if (!i || !r) Py_CLEAR(iters);
        if (info[j].iters > last) last = info[j].iters;
    }
    PyObject *h = iters && rel ? history_list(history, n > 0 ? last + 1 : 0) : NULL;
    if (!h) {
        Py_XDECREF(iters);
        Py_XDECREF(rel);
        return NULL;
    }
    return Py_BuildValue("(iNNdNs)", (int)st, iters, rel, k > 0 ? info[0].ms : 0.0, h,
                         st == SPX_OK ? "" : spx_last_error());
}

/* solve_many(kind, B, X, rtol, max_iters, jacobi, keep) -> many_result's tuple:
 * spx_cg_many ("cg" only) on an SpMM plan for B and X (in: the first guesses;
 * out: the solutions), n x k operands as matmat's X and Y: host arrays
 * through spx_cg_many_host, device arrays (CUDA plans) through spx_cg_many. */
static PyObject *plan_solve_many(PlanObject *p, PyObject *args)
{
    PyObject *bo, *xo, *out = NULL;
    spx_solve_opts o;
    spx_solve_info *info = NULL;
    spx_status st;
    dense b = {0}, x = {0};
    int64_t k, kx, ldb, ldx;
    int method;
    if (solve_args(args, &method, &bo, &xo, &o) < 0) return NULL;
    if (method != SOLVE_CG)
        PyErr_SetString(PyExc_ValueError, "k right-hand sides at once: cg only");
    else if (check_spmm_plan(p) == 0 &&
             dense_arg(p, bo, p->rows, 0, "B", "op(A)'s rows", &b, &k, &ldb) == 0 &&
             dense_arg(p, xo, p->cols, 1, "X", "op(A)'s columns", &x, &kx, &ldx) == 0 &&
             dense_pair(p, "B", &b, k, "X", &x, kx) == 0 &&
             dense_apart("B", dense_span(&b, k, ldb), "X", dense_span(&x, kx, ldx)) == 0 &&
             (info = PyMem_Calloc((size_t)k + 1, sizeof *info)) == NULL)
        PyErr_NoMemory();
    if (info) {
        Py_BEGIN_ALLOW_THREADS
        if (x.host)
            st = spx_cg_many_host(p->P, p->matrix->A, k, b.ptr, ldb, x.ptr, ldx, &o, info);
        else
            st = spx_cg_many(p->P, p->matrix->A, k, b.ptr, ldb, x.ptr, ldx, &o, info);
        Py_END_ALLOW_THREADS
        out = many_result(st, info, k, p->rows, o.history);
    }
    dense_release(&b);
    dense_release(&x);
    PyMem_Free(info);
    PyMem_Free(o.history);
    return out;
}

static PyMethodDef plan_methods[] = {
    {"matvec", (PyCFunction)plan_matvec, METH_VARARGS, "y = alpha*A*x + beta*y"},
    {"matmat", (PyCFunction)plan_matmat, METH_VARARGS, "Y = alpha*A*X + beta*Y (SpMM plans)"},
    {"sddmm", (PyCFunction)plan_sddmm, METH_VARARGS,
     "Z = alpha*(X*Y^T at A's entries) + beta*Z (SDDMM plans)"},
    {"info", (PyCFunction)plan_info, METH_NOARGS, "format, prep_ms, bytes, describe, ..."},
    {"update_values", (PyCFunction)plan_update_values, METH_VARARGS,
     "new values for the plan's matrix, same pattern (spx_plan_update_values)"},
    {"spgemm", (PyCFunction)plan_spgemm, METH_VARARGS, "C = A*B"},
    {"spgemm_numeric", (PyCFunction)plan_spgemm_numeric, METH_VARARGS,
     "C's values again for B of C's pattern"},
    {"solve", (PyCFunction)plan_solve, METH_VARARGS, "cg or bicgstab"},
    {"eigsh", (PyCFunction)plan_eigsh, METH_VARARGS, "Lanczos: the k extreme eigenvalues"},
    {"solve_many", (PyCFunction)plan_solve_many, METH_VARARGS,
     "cg of k right-hand sides (SpMM plans)"},
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

/* --------------------------------------------------------------- MultiPlan */

typedef struct {
    PyObject_HEAD
    spx_multi_plan *P;
    MatrixObject *matrix; /* CPU parts read its arrays in place */
    int64_t rows, cols;
    spx_type vtype; /* the vectors' type: F64 double, else float */
    spx_partition partition;
    int cuda;
    PyObject *dtype;         /* "float64" or "float32" */
    PyThread_type_lock lock; /* held by a call: one at a time per plan (scratch, times) */
} MultiPlanObject;

static void multi_dealloc(MultiPlanObject *p)
{
    spx_multi_plan_destroy(p->P);
    if (p->lock) PyThread_free_lock(p->lock);
    Py_XDECREF(p->matrix);
    Py_XDECREF(p->dtype);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyTypeObject MultiPlanType;

/* multi_plan(matrix, partition, parts, device, spread, format, precision,
 * params, expected_calls, transpose, overlap): parts on CPU threads (device
 * "cpu"), or on GPUs: all on GPU 0, a stream each, or with spread round
 * robin over the GPUs (spx_multi_opts.devices NULL). */
static PyObject *core_multi_plan(PyObject *self, PyObject *args)
{
    MatrixObject *m;
    const char *partition, *device, *format, *precision, *params;
    int parts, spread, transpose, overlap;
    long long calls;
    int on_gpu0[SPX_MULTI_MAX_PARTS] = {0};
    spx_plan_opts o;
    spx_multi_opts mo = spx_multi_opts_default();
    spx_status st;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!sispsszLpi", &MatrixType, &m, &partition, &parts, &device,
                          &spread, &format, &precision, &params, &calls, &transpose, &overlap))
        return NULL;
    if (plan_opts_of(&o, format, device, precision, params, calls, transpose) < 0) return NULL;
    if ((st = spx_partition_parse(partition, &mo.partition)) != SPX_OK) return raise_status(st);
    mo.parts = parts;
    mo.overlap = overlap;
    mo.devices = o.device == SPX_DEV_CUDA && !spread ? on_gpu0 : NULL;
    MultiPlanObject *p = PyObject_New(MultiPlanObject, &MultiPlanType);
    if (!p) return NULL;
    p->P = NULL;
    p->matrix = m;
    Py_INCREF(m);
    p->dtype = NULL;
    p->lock = PyThread_allocate_lock();
    if (!p->lock) {
        Py_DECREF(p);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    st = spx_multi_plan_create(m->A, &o, &mo, &p->P);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) {
        Py_DECREF(p);
        return raise_status(st);
    }
    spx_matrix_dims(m->A, transpose ? &p->cols : &p->rows, transpose ? &p->rows : &p->cols, NULL);
    p->vtype = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    p->partition = mo.partition;
    p->cuda = o.device == SPX_DEV_CUDA;
    p->dtype = PyUnicode_FromString(p->vtype == SPX_F64 ? "float64" : "float32");
    return (PyObject *)p;
}

/* y = alpha*op(A)*x + beta*y on host vectors, the GIL released. */
static spx_status multi_spmv(MultiPlanObject *p, double alpha, const void *x, double beta, void *y)
{
    spx_status st;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    st = spx_multi_spmv(p->P, alpha, x, beta, y);
    PyThread_release_lock(p->lock);
    Py_END_ALLOW_THREADS
    return st;
}

/* matvec(x, y, alpha, beta): host arrays */
static PyObject *multi_matvec(MultiPlanObject *p, PyObject *args)
{
    PyObject *xo, *yo;
    double alpha = 1.0, beta = 0.0;
    Py_buffer xv, yv;
    if (!PyArg_ParseTuple(args, "OO|dd", &xo, &yo, &alpha, &beta)) return NULL;
    if (host_vector(p->vtype, xo, p->cols, 0, &xv) < 0) return NULL;
    if (host_vector(p->vtype, yo, p->rows, 1, &yv) < 0) {
        PyBuffer_Release(&xv);
        return NULL;
    }
    spx_status st = multi_spmv(p, alpha, xv.buf, beta, yv.buf);
    PyBuffer_Release(&xv);
    PyBuffer_Release(&yv);
    if (st != SPX_OK) return raise_status(st);
    Py_RETURN_NONE;
}

static spx_status multi_apply(PyObject *p, void *x, void *y)
{
    return multi_spmv((MultiPlanObject *)p, 1.0, x, 0.0, y);
}

/* P @ x for a host array x: a new NumPy y. */
static PyObject *multi_matmul(PyObject *a, PyObject *b)
{
    if (!PyObject_TypeCheck(a, &MultiPlanType)) Py_RETURN_NOTIMPLEMENTED;
    MultiPlanObject *p = (MultiPlanObject *)a;
    Py_buffer xv;
    if (host_vector(p->vtype, b, p->cols, 0, &xv) < 0) return NULL;
    return product(a, multi_apply, &xv, p->rows, p->dtype);
}

/* spx_multi_cg, spx_multi_bicgstab or spx_multi_gmres (method) on host vectors b and x (in:
 * the first guess; out: the solution, also the last iterate of
 * SPX_ERR_NOT_CONVERGED) through two resident vectors of P, freed on every path. */
static spx_status multi_krylov(spx_multi_plan *P, const spx_matrix *A, int method, const void *b,
                               void *x, const spx_solve_opts *o, spx_solve_info *info)
{
    spx_multi_vector *rb = NULL, *rx = NULL;
    spx_status st;
    if ((st = spx_multi_vector_create(P, &rb)) == SPX_OK &&
        (st = spx_multi_vector_create(P, &rx)) == SPX_OK &&
        (st = spx_multi_vector_set(rb, b)) == SPX_OK &&
        (st = spx_multi_vector_set(rx, x)) == SPX_OK) {
        st = (method == SOLVE_CG         ? spx_multi_cg
              : method == SOLVE_BICGSTAB ? spx_multi_bicgstab
                                         : spx_multi_gmres)(P, A, rb, rx, o, info);
        if (st == SPX_OK || st == SPX_ERR_NOT_CONVERGED) {
            spx_status got = spx_multi_vector_get(rx, x);
            if (got != SPX_OK) st = got;
        }
    }
    spx_multi_vector_destroy(rb);
    spx_multi_vector_destroy(rx);
    return st;
}

/* solve(kind, b, x, rtol, max_iters, jacobi, keep) as Plan.solve, on host arrays
 * (x: in, the first guess; out, the solution); one call at a time per plan. */
static PyObject *multi_solve(MultiPlanObject *p, PyObject *args)
{
    PyObject *bo, *xo;
    spx_solve_opts o;
    spx_solve_info info = {0, 0.0, 0.0, 0};
    spx_status st;
    Py_buffer bv, xv;
    int method;
    if (solve_args(args, &method, &bo, &xo, &o) < 0) return NULL;
    if (host_vector(p->vtype, bo, p->rows, 0, &bv) < 0) {
        PyMem_Free(o.history);
        return NULL;
    }
    if (host_vector(p->vtype, xo, p->rows, 1, &xv) < 0) {
        PyBuffer_Release(&bv);
        PyMem_Free(o.history);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    st = multi_krylov(p->P, p->matrix->A, method, bv.buf, xv.buf, &o, &info);
    PyThread_release_lock(p->lock);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&bv);
    PyBuffer_Release(&xv);
    return solve_result(st, &info, &o);
}

/* spx_multi_eigsh with its eigenvectors in k resident vectors, then copied
 * into vec (host, eigenvector after eigenvector); the vectors are freed on
 * every path. One call at a time per plan. */
static spx_status multi_eigsh_run(void *ctx, const spx_eig_opts *o, double *w, void *vec,
                                  spx_eig_info *info)
{
    MultiPlanObject *p = ctx;
    const size_t bytes = (size_t)p->rows * (p->vtype == SPX_F64 ? sizeof(double) : sizeof(float));
    spx_multi_vector **v = vec ? calloc((size_t)o->k, sizeof *v) : NULL;
    spx_status st = vec && !v ? SPX_ERR_OOM : SPX_OK;
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    for (int64_t t = 0; v && st == SPX_OK && t < o->k; t++)
        st = spx_multi_vector_create(p->P, &v[t]);
    if (st == SPX_OK) st = spx_multi_eigsh(p->P, o, w, v, info);
    for (int64_t t = 0; v && (st == SPX_OK || st == SPX_ERR_NOT_CONVERGED) && t < o->k; t++) {
        spx_status got = spx_multi_vector_get(v[t], (char *)vec + (size_t)t * bytes);
        if (got != SPX_OK) st = got;
    }
    for (int64_t t = 0; v && t < o->k; t++)
        spx_multi_vector_destroy(v[t]);
    PyThread_release_lock(p->lock);
    free(v);
    return st;
}

static PyObject *multi_eigsh(MultiPlanObject *p, PyObject *args)
{
    return eigsh_call(p->rows, p->vtype, args, multi_eigsh_run, p);
}

/* spx_multi_timing as a dict: plan creation's phases and the last call's. */
static PyObject *multi_times(MultiPlanObject *p, PyObject *unused)
{
    spx_multi_timing t;
    spx_status st;
    (void)unused;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(p->lock, WAIT_LOCK);
    st = spx_multi_times(p->P, &t);
    PyThread_release_lock(p->lock);
    Py_END_ALLOW_THREADS
    if (st != SPX_OK) return raise_status(st);
    return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:d,s:d}", "convert_ms", t.convert_ms,
                         "partition_ms", t.partition_ms, "prepare_ms", t.prepare_ms,
                         "distribute_ms", t.distribute_ms, "spmv_ms", t.spmv_ms, "merge_ms",
                         t.merge_ms, "call_ms", t.call_ms);
}

/* spx_multi_part_info of each part, as dicts. */
static PyObject *multi_parts(MultiPlanObject *p, PyObject *unused)
{
    int n = spx_multi_plan_parts(p->P);
    PyObject *list = PyList_New(n);
    (void)unused;
    for (int i = 0; list && i < n; i++) {
        spx_multi_part_info in;
        spx_status st = spx_multi_plan_part(p->P, i, &in);
        if (st != SPX_OK) {
            Py_DECREF(list);
            return raise_status(st);
        }
        PyObject *d = Py_BuildValue(
            "{s:i,s:s,s:L,s:L,s:L,s:N,s:N,s:n,s:i,s:N}", "device", in.device, "format", in.format,
            "first", (long long)in.first, "count", (long long)in.count, "nnz", (long long)in.nnz,
            "shared_first", PyBool_FromLong(in.shared_first), "shared_last",
            PyBool_FromLong(in.shared_last), "bytes", (Py_ssize_t)in.bytes, "numa_node",
            in.numa_node, "overlapped", PyBool_FromLong(in.overlapped));
        if (d)
            PyList_SET_ITEM(list, i, d);
        else
            Py_CLEAR(list);
    }
    return list;
}

static PyObject *multi_info(MultiPlanObject *p, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue("{s:s,s:i,s:s,s:L,s:L,s:O}", "partition", spx_partition_name(p->partition),
                         "parts", spx_multi_plan_parts(p->P), "device", p->cuda ? "cuda" : "cpu",
                         "rows", (long long)p->rows, "cols", (long long)p->cols, "dtype", p->dtype);
}

static PyMethodDef multi_methods[] = {
    {"matvec", (PyCFunction)multi_matvec, METH_VARARGS, "y = alpha*A*x + beta*y (host arrays)"},
    {"times", (PyCFunction)multi_times, METH_NOARGS, "spx_multi_timing, in ms"},
    {"parts", (PyCFunction)multi_parts, METH_NOARGS, "spx_multi_part_info of each part"},
    {"info", (PyCFunction)multi_info, METH_NOARGS, "partition, parts, device, rows, cols, dtype"},
    {"solve", (PyCFunction)multi_solve, METH_VARARGS, "cg or bicgstab (host arrays)"},
    {"eigsh", (PyCFunction)multi_eigsh, METH_VARARGS, "Lanczos: the k extreme eigenvalues"},
    {NULL, NULL, 0, NULL}};

static PyNumberMethods multi_number = {.nb_matrix_multiply = multi_matmul};

static PyTypeObject MultiPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "spx._core.MultiPlan",
    .tp_basicsize = sizeof(MultiPlanObject),
    .tp_dealloc = (destructor)multi_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an SpX multi-device plan",
    .tp_methods = multi_methods,
    .tp_as_number = &multi_number,
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
    {"multi_plan", core_multi_plan, METH_VARARGS, "a MultiPlan of a Matrix (parts on devices)"},
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
    if (!numpy_empty || PyType_Ready(&MatrixType) < 0 || PyType_Ready(&PlanType) < 0 ||
        PyType_Ready(&MultiPlanType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    SpxError = PyErr_NewException("spx.SpxError", NULL, NULL);
    Py_INCREF(&MatrixType);
    Py_INCREF(&PlanType);
    Py_INCREF(&MultiPlanType);
    if (PyModule_AddObject(m, "SpxError", SpxError) < 0 ||
        PyModule_AddObject(m, "Matrix", (PyObject *)&MatrixType) < 0 ||
        PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0 ||
        PyModule_AddObject(m, "MultiPlan", (PyObject *)&MultiPlanType) < 0)
        return NULL;
    return m;
}
