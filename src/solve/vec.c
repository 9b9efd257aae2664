/* Solver vectors on the host (OpenMP loops) or on the device (cuda/blas1).
 * Host dot: the vector is cut into blocks of VEC_BLOCK entries whatever the
 * thread count; each block's sum is taken in host_dot.h's fixed lanes and the
 * block sums are added in block order, so the result is the same bits for
 * any schedule. */
#include "solve/vec.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/threads.h"
#include "solve/host_dot.h"
#include "cuda/blas1/blas1.h"
#include "cuda/multi/multi_cuda.h" /* pinned host memory */
#include "plan/format.h"

#define VEC_BLOCK 4096

/* The registers, zero, and their published copies (vec.h). */
static spx_status register_file(spx__vspace *s)
{
    const size_t regs = SPX__S_REGS * sizeof(double);
    spx_status st;
    if (!spx__v_regs_on_device(s)) {
        st = spx__calloc((void **)&s->regs, SPX__S_REGS, sizeof(double), "solver registers");
        if (st == SPX_OK)
            st = spx__calloc((void **)&s->ring, SPX__V_RING * SPX__S_REGS, sizeof(double),
                             "solver register copies");
        return st;
    }
    st = spx__cuda_alloc((void **)&s->regs, regs, "solver registers");
    if (st == SPX_OK) st = spx__cuda_memset(s->regs, 0, regs, s->stream);
    if (st == SPX_OK)
        st = spx__cuda_host_alloc((void **)&s->ring, SPX__V_RING * regs, "solver register copies");
    for (int k = 0; k < SPX__V_RING && st == SPX_OK; k++)
        st = spx__cuda_event_create(&s->ring_ev[k]);
    return st;
}

spx_status spx__vspace_init(const spx_plan *P, spx__vspace *s)
{
    int64_t rows, cols;
    spx_status st = spx_plan_dims(P, &rows, &cols);
    memset(s, 0, sizeof *s);
    if (st != SPX_OK) return st;
    if (spx_plan_operation(P) != SPX_OP_SPMV)
        return spx__error(SPX_ERR_INVALID_ARG, "a solver needs an SpMV plan");
    if (rows != cols)
        return spx__error(SPX_ERR_DIM_MISMATCH, "a solver needs a square matrix, not %lld x %lld",
                          (long long)rows, (long long)cols);
    s->n = rows;
    s->t = spx_plan_x_type(P);
    if (s->t == SPX_F16)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "a solver keeps x and y of one type: make the plan without xtype=half");
    s->cuda = spx_plan_device(P) == SPX_DEV_CUDA;
    s->stream = spx__plan_stream(P);
    if (s->cuda && (st = spx__vspace_dot_buffers(s)) != SPX_OK) return st;
    return register_file(s);
}

spx_status spx__vspace_init_op(int64_t n, spx_type t, int cuda, void *stream, const spx__vreduce *r,
                               spx__vspace *s)
{
    spx_status st;
    memset(s, 0, sizeof *s);
    if (t != SPX_F64 && t != SPX_F32)
        return spx__error(SPX_ERR_UNSUPPORTED, "a solver's vectors are double or float");
    s->n = n;
    s->t = t;
    s->reduce = r;
    s->cuda = cuda;
    s->stream = stream;
    if (cuda && (st = spx__vspace_dot_buffers(s)) != SPX_OK) return st;
    return register_file(s);
}

int64_t spx__v_global_n(const spx__vspace *s)
{
    return s->reduce ? s->reduce->n_global : s->n;
}

spx_status spx__vspace_dot_buffers(spx__vspace *s)
{
    _Static_assert(SPX__V_MAX_DOTS <= SPX__CUDA_DOTS_MAX, "one launch");
    size_t bytes = SPX__CUDA_DOT_SCRATCH * sizeof(double);
    spx_status st = spx__cuda_alloc((void **)&s->scratch, bytes, "solver dot scratch");
    if (st == SPX_OK) st = spx__cuda_memset(s->scratch, 0, bytes, s->stream);
    if (st == SPX_OK)
        st = spx__cuda_host_alloc((void **)&s->dots, SPX__V_MAX_DOTS * sizeof(double),
                                  "solver dot results");
    return st;
}

spx_status spx__vspace_init_multi(spx_multi_plan *P, spx__vspace *s)
{
    memset(s, 0, sizeof *s);
    spx_status st = spx__multi_space_init(P, &s->multi, &s->n, &s->t);
    return st == SPX_OK ? register_file(s) : st;
}

void spx__vspace_free(spx__vspace *s)
{
    if (s->cuda) {
        spx__cuda_free(s->scratch);
        spx__cuda_host_free(s->dots);
    }
    if (spx__v_regs_on_device(s)) {
        spx__cuda_free(s->regs);
        spx__cuda_host_free(s->ring);
        for (int k = 0; k < SPX__V_RING; k++)
            spx__cuda_event_destroy(s->ring_ev[k]);
    } else {
        spx__free(s->regs);
        spx__free(s->ring);
    }
    memset(s->ring_ev, 0, sizeof s->ring_ev);
    s->scratch = s->dots = s->regs = s->ring = NULL;
    spx__multi_space_free(s->multi);
    s->multi = NULL;
}

size_t spx__v_entry_bytes(const spx__vspace *s)
{
    return s->t == SPX_F64 ? sizeof(double) : sizeof(float);
}

spx_status spx__v_alloc(const spx__vspace *s, void **v, const char *what)
{
    size_t bytes = (size_t)s->n * spx__v_entry_bytes(s);
    spx_status st;
    *v = NULL;
    if (s->multi) return spx__multi_v_alloc(s->multi, v, what);
    if (!s->cuda) return spx__calloc(v, (size_t)s->n, spx__v_entry_bytes(s), what);
    if ((st = spx__cuda_alloc(v, bytes, what)) != SPX_OK) return st;
    st = spx__cuda_memset(*v, 0, bytes, s->stream);
    if (st != SPX_OK) {
        spx__cuda_free(*v);
        *v = NULL;
    }
    return st;
}

spx_status spx__v_zero(const spx__vspace *s, void *v)
{
    if (s->multi) return spx__multi_v_zero(s->multi, v);
    if (s->cuda) return spx__cuda_memset(v, 0, (size_t)s->n * spx__v_entry_bytes(s), s->stream);
    if (s->n > 0) memset(v, 0, (size_t)s->n * spx__v_entry_bytes(s));
    return SPX_OK;
}

void spx__v_free(const spx__vspace *s, void *v)
{
    if (s->multi)
        spx__multi_v_free(s->multi, v);
    else if (s->cuda)
        spx__cuda_free(v);
    else
        spx__free(v);
}

/* Each loop's pragma on a line of its own, which clang-format would join to the loop. */
/* clang-format off */
#define HOST_DOT(T)                                                                         \
    static double host_dot_##T(int64_t n, const T *a, const T *b, double *block_sums)     \
    {                                                                                       \
        int64_t blocks = (n + VEC_BLOCK - 1) / VEC_BLOCK;                                   \
        double total = 0.0;                                                                 \
        int nt = spx__threads_for(n, SPX__VECTOR_GRAIN);                                    \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t k = 0; k < blocks; k++) {                                              \
            int64_t end = (k + 1) * VEC_BLOCK < n ? (k + 1) * VEC_BLOCK : n;                \
            const int64_t lo = k * VEC_BLOCK;                                               \
            block_sums[k] = spx__block_dot_##T(a + lo, b + lo, end - lo);                   \
        }                                                                                   \
        for (int64_t k = 0; k < blocks; k++)                                                \
            total += block_sums[k];                                                         \
        return total;                                                                       \
    }
/* clang-format on */
HOST_DOT(double)
HOST_DOT(float)

static spx_status check_dots(int k)
{
    if (k >= 1 && k <= SPX__V_MAX_DOTS) return SPX_OK;
    return spx__error(SPX_ERR_INVALID_ARG, "%d dots at once, not 1..%d", k, SPX__V_MAX_DOTS);
}

spx_status spx__v_dots_queue(const spx__vspace *s, int k, const void *const *a,
                             const void *const *b)
{
    spx_status st = check_dots(k);
    if (st == SPX_OK && s->cuda)
        st = spx__cuda_vdots(s->n, s->t, k, a, b, s->scratch, s->dots, s->stream);
    return st;
}

spx_status spx__v_dots_take(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                            double *out)
{
    double *sums = NULL;
    spx_status st = check_dots(k);
    if (st != SPX_OK) return st;
    if (s->cuda) {
        st = spx__cuda_sync(s->stream);
        for (int j = 0; j < k; j++)
            out[j] = st == SPX_OK ? s->dots[j] : 0.0;
        return s->reduce ? s->reduce->allsum(s->reduce->ctx, out, k, st) : st;
    }
    st = spx__alloc((void **)&sums, (size_t)(s->n / VEC_BLOCK + 1), sizeof *sums, "dot sums");
    for (int j = 0; j < k; j++)
        out[j] = st != SPX_OK      ? 0.0
                 : s->t == SPX_F64 ? host_dot_double(s->n, a[j], b[j], sums)
                                   : host_dot_float(s->n, a[j], b[j], sums);
    spx__free(sums);
    return s->reduce ? s->reduce->allsum(s->reduce->ctx, out, k, st) : st;
}

spx_status spx__v_dots(const spx__vspace *s, int k, const void *const *a, const void *const *b,
                       double *out)
{
    spx_status st = check_dots(k);
    if (st == SPX_OK && s->multi) return spx__multi_v_dots(s->multi, k, a, b, out);
    if (st == SPX_OK) st = spx__v_dots_queue(s, k, a, b);
    return st == SPX_OK ? spx__v_dots_take(s, k, a, b, out) : st;
}

spx_status spx__v_dot(const spx__vspace *s, const void *a, const void *b, double *out)
{
    return spx__v_dots(s, 1, &a, &b, out);
}

/* clang-format off */
#define HOST_LINCOMB(T)                                                                     \
    static void host_lincomb_##T(int64_t n, double alpha, const T *x, double beta, T *y,  \
                                 double gamma, const T *z)                                 \
    {                                                                                       \
        int nt = spx__threads_for(n, SPX__VECTOR_GRAIN);                                    \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t i = 0; i < n; i++) {                                                   \
            double v = alpha * (double)x[i];                                                \
            if (beta != 0.0) v += beta * (double)y[i];                                      \
            if (gamma != 0.0) v += gamma * (double)z[i];                                    \
            y[i] = (T)v;                                                                    \
        }                                                                                   \
    }
/* clang-format on */
HOST_LINCOMB(double)
HOST_LINCOMB(float)

spx_status spx__v_axpbypcz(const spx__vspace *s, double alpha, const void *x, double beta, void *y,
                           double gamma, const void *z)
{
    if (s->multi) return spx__multi_v_axpbypcz(s->multi, alpha, x, beta, y, gamma, z);
    if (s->cuda) return spx__cuda_vaxpbypcz(s->n, s->t, alpha, x, beta, y, gamma, z, s->stream);
    if (s->t == SPX_F64)
        host_lincomb_double(s->n, alpha, x, beta, y, gamma, z);
    else
        host_lincomb_float(s->n, alpha, x, beta, y, gamma, z);
    return SPX_OK;
}

spx_status spx__v_axpby(const spx__vspace *s, double alpha, const void *x, double beta, void *y)
{
    return spx__v_axpbypcz(s, alpha, x, beta, y, 0.0, NULL);
}

/* clang-format off */
#define HOST_MUL(T)                                                                         \
    static void host_mul_##T(int64_t n, const T *d, const T *x, T *y)                      \
    {                                                                                       \
        int nt = spx__threads_for(n, SPX__VECTOR_GRAIN);                                    \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t i = 0; i < n; i++)                                                     \
            y[i] = d[i] * x[i];                                                             \
    }
/* clang-format on */
HOST_MUL(double)
HOST_MUL(float)

spx_status spx__v_mul(const spx__vspace *s, const void *d, const void *x, void *y)
{
    if (s->multi) return spx__multi_v_mul(s->multi, d, x, y);
    if (s->cuda) return spx__cuda_vmul(s->n, s->t, d, x, y, s->stream);
    if (s->t == SPX_F64)
        host_mul_double(s->n, d, x, y);
    else
        host_mul_float(s->n, d, x, y);
    return SPX_OK;
}

spx_status spx__v_from_host(const spx__vspace *s, const double *host, void **v, const char *what)
{
    spx_status st;
    *v = NULL;
    if (s->multi) return spx__multi_v_from_host(s->multi, host, v, what);
    if (s->cuda) return spx__cuda_upload_values(v, host, SPX_F64, s->n, s->t, what);
    if ((st = spx__v_alloc(s, v, what)) != SPX_OK) return st;
    const int nt = spx__threads_for(s->n, SPX__VECTOR_GRAIN);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t i = 0; i < s->n; i++) {
        if (s->t == SPX_F64)
            ((double *)*v)[i] = host[i];
        else
            ((float *)*v)[i] = (float)host[i];
    }
    return SPX_OK;
}
