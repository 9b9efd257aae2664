/* spx_cg_many's blocks (many.h): OpenMP loops on the host, the device's
 * kernels (cuda/blas1/many.h) for a CUDA plan. Host dots: rows in blocks of
 * ROWS(k) (about 4096 entries a block whatever the thread count); each
 * block's column sums are a plain loop over its rows, stored apart, then
 * added in block order. */
#include "solve/many.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/threads.h"
#include "cuda/blas1/many.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h" /* pinned host memory */
#include "plan/format.h"
#include "solve/many_cols.h"

#define BLOCK_ENTRIES 4096

static int64_t block_rows(int64_t k)
{
    return k >= BLOCK_ENTRIES ? 1 : BLOCK_ENTRIES / k;
}

static int64_t row_blocks(const spx__bspace *s)
{
    return (s->n + block_rows(s->k) - 1) / block_rows(s->k);
}

static spx_status device_buffers(spx__bspace *s)
{
    const size_t col = SPX__CM_FIELDS * (size_t)s->k * sizeof(double);
    const size_t scratch = spx__cuda_many_scratch_doubles(s->n, s->k) * sizeof(double);
    spx_status st = spx__cuda_alloc((void **)&s->col, col, "solver column scalars");
    if (st == SPX_OK) st = spx__cuda_memset(s->col, 0, col, s->stream);
    if (st == SPX_OK) st = spx__cuda_alloc((void **)&s->scratch, scratch, "solver dot scratch");
    if (st == SPX_OK) st = spx__cuda_memset(s->scratch, 0, scratch, s->stream);
    if (st == SPX_OK)
        st = spx__cuda_host_alloc((void **)&s->ring, 2 * col, "solver column scalar copies");
    for (int i = 0; i < 2 && st == SPX_OK; i++)
        st = spx__cuda_event_create(&s->ring_ev[i]);
    return st;
}

spx_status spx__b_init(spx__bspace *s, const spx_plan *P, int64_t k)
{
    int64_t rows, cols;
    spx_status st = spx_plan_dims(P, &rows, &cols);
    memset(s, 0, sizeof *s);
    if (st != SPX_OK) return st;
    if (rows != cols)
        return spx__error(SPX_ERR_DIM_MISMATCH, "a solver needs a square matrix, not %lld x %lld",
                          (long long)rows, (long long)cols);
    s->t = spx_plan_x_type(P);
    if (s->t == SPX_F16)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "a solver keeps x and y of one type: make the plan without xtype=half");
    s->n = rows;
    s->k = k;
    s->cuda = spx_plan_device(P) == SPX_DEV_CUDA;
    s->stream = spx__plan_stream(P);
    if (s->cuda) {
        st = device_buffers(s);
    } else {
        st = spx__calloc((void **)&s->col, SPX__CM_FIELDS * (size_t)k, sizeof(double),
                         "solver column scalars");
        if (st == SPX_OK)
            st = spx__alloc((void **)&s->scratch, 2 * (size_t)(row_blocks(s) + 1) * (size_t)k,
                            sizeof(double), "solver dot sums");
    }
    if (st != SPX_OK) spx__b_free(s); /* a space is whole or nothing (k = 0) */
    return st;
}

void spx__b_free(spx__bspace *s)
{
    if (s->cuda) {
        spx__cuda_free(s->col);
        spx__cuda_free(s->scratch);
        spx__cuda_host_free(s->ring);
        for (int i = 0; i < 2; i++)
            spx__cuda_event_destroy(s->ring_ev[i]);
    } else {
        spx__free(s->col);
        spx__free(s->scratch);
    }
    memset(s, 0, sizeof *s);
}

size_t spx__b_entry_bytes(const spx__bspace *s)
{
    return s->t == SPX_F64 ? sizeof(double) : sizeof(float);
}

spx_status spx__b_alloc(const spx__bspace *s, void **v, const char *what)
{
    size_t entries = (size_t)s->n * (size_t)s->k, bytes = entries * spx__b_entry_bytes(s);
    spx_status st;
    *v = NULL;
    if (!s->cuda) return spx__calloc(v, entries ? entries : 1, spx__b_entry_bytes(s), what);
    if ((st = spx__cuda_alloc(v, bytes ? bytes : 1, what)) != SPX_OK) return st;
    if ((st = spx__cuda_memset(*v, 0, bytes, s->stream)) != SPX_OK) {
        spx__cuda_free(*v);
        *v = NULL;
    }
    return st;
}

void spx__b_release(const spx__bspace *s, void *v)
{
    if (s->cuda)
        spx__cuda_free(v);
    else
        spx__free(v);
}

/* Each loop's pragma on a line of its own, which clang-format would join to the loop. */
/* clang-format off */
#define HOST_BLOCK_OPS(T)                                                                   \
    static void copy_##T(int64_t n, int64_t k, const T *src, int64_t lds, T *dst,          \
                         int64_t ldd)                                                       \
    {                                                                                       \
        int nt = spx__threads_for(n * k, SPX__VECTOR_GRAIN);                                \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t i = 0; i < n; i++)                                                     \
            memcpy(dst + i * ldd, src + i * lds, (size_t)k * sizeof(T));                    \
    }                                                                                       \
    static void diag_##T(int64_t n, int64_t k, const T *d, const T *src, T *dst)           \
    {                                                                                       \
        int nt = spx__threads_for(n * k, SPX__VECTOR_GRAIN);                                \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t i = 0; i < n; i++)                                                     \
            for (int64_t j = 0; j < k; j++)                                                 \
                dst[i * k + j] = d[i] * src[i * k + j];                                     \
    }                                                                                       \
    /* sums[(b*2 + q)*k + j]: block b's sum of column j of pair q */                        \
    static void dots_##T(const spx__bspace *s, int pairs, const T *const *a,               \
                         const T *const *b, double *sums)                                   \
    {                                                                                       \
        const int64_t n = s->n, k = s->k, rows = block_rows(k), blocks = row_blocks(s);     \
        int nt = spx__threads_for(n * k, SPX__VECTOR_GRAIN);                                \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t bl = 0; bl < blocks; bl++) {                                           \
            const int64_t end = (bl + 1) * rows < n ? (bl + 1) * rows : n;                  \
            for (int q = 0; q < pairs; q++) {                                               \
                double *acc = sums + (bl * 2 + q) * k;                                      \
                for (int64_t j = 0; j < k; j++) acc[j] = 0.0;                               \
                for (int64_t i = bl * rows; i < end; i++)                                   \
                    for (int64_t j = 0; j < k; j++)                                         \
                        acc[j] += (double)a[q][i * k + j] * (double)b[q][i * k + j];        \
            }                                                                               \
        }                                                                                   \
    }                                                                                       \
    static void step_##T(const spx__bspace *s, T *x, int64_t ldx, const T *p, T *r,        \
                         const T *q, const T *d, T *z, const double *alpha,                 \
                         const unsigned char *live, const unsigned char *moves,             \
                         double *sums)                                                      \
    {                                                                                       \
        const int64_t n = s->n, k = s->k, rows = block_rows(k), blocks = row_blocks(s);     \
        int nt = spx__threads_for(n * k, SPX__VECTOR_GRAIN);                                \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t bl = 0; bl < blocks; bl++) {                                           \
            const int64_t end = (bl + 1) * rows < n ? (bl + 1) * rows : n;                  \
            double *rr = sums + bl * 2 * k, *rz = rr + k;                                   \
            for (int64_t j = 0; j < k; j++) rr[j] = rz[j] = 0.0;                            \
            for (int64_t i = bl * rows; i < end; i++)                                       \
                for (int64_t j = 0; j < k; j++) {                                           \
                    const int64_t e = i * k + j;                                            \
                    if (!live[j]) continue;                                                 \
                    T ri = r[e];                                                            \
                    if (moves[j]) {                                                         \
                        T *xi = &x[i * ldx + j];                                            \
                        *xi = (T)(alpha[j] * (double)p[e] + 1.0 * (double)*xi);             \
                        ri = (T)(-1.0 * alpha[j] * (double)q[e] + 1.0 * (double)ri);        \
                        r[e] = ri;                                                          \
                    }                                                                       \
                    rr[j] += (double)ri * (double)ri;                                       \
                    if (d) {                                                                \
                        const T zi = d[i] * ri;                                             \
                        z[e] = zi;                                                          \
                        rz[j] += (double)ri * (double)zi;                                   \
                    }                                                                       \
                }                                                                           \
        }                                                                                   \
    }                                                                                       \
    static void direction_##T(int64_t n, int64_t k, const double *col, const T *z, T *p)   \
    {                                                                                       \
        int nt = spx__threads_for(n * k, SPX__VECTOR_GRAIN);                                \
        _Pragma("omp parallel for schedule(static) num_threads(nt)")                        \
        for (int64_t i = 0; i < n; i++)                                                     \
            for (int64_t j = 0; j < k; j++)                                                 \
                if (col[SPX__CM_LIVE * k + j] != 0.0)                                       \
                    p[i * k + j] = (T)(1.0 * (double)z[i * k + j] +                         \
                                       1.0 * col[SPX__CM_BETA * k + j] * (double)p[i * k + j]); \
    }
/* clang-format on */
HOST_BLOCK_OPS(double)
HOST_BLOCK_OPS(float)

spx_status spx__b_copy(const spx__bspace *s, const void *src, int64_t lds, void *dst, int64_t ldd)
{
    if (s->n == 0 || s->k == 0) return SPX_OK;
    if (s->cuda) return spx__cuda_bcopy(s->n, s->k, s->t, src, lds, dst, ldd, s->stream);
    if (s->t == SPX_F64)
        copy_double(s->n, s->k, src, lds, dst, ldd);
    else
        copy_float(s->n, s->k, src, lds, dst, ldd);
    return SPX_OK;
}

spx_status spx__b_diag(const spx__bspace *s, const void *d, const void *src, void *dst)
{
    if (s->n == 0 || s->k == 0) return SPX_OK;
    if (s->cuda) return spx__cuda_bdiag(s->n, s->k, s->t, d, src, dst, s->stream);
    if (s->t == SPX_F64)
        diag_double(s->n, s->k, d, src, dst);
    else
        diag_float(s->n, s->k, d, src, dst);
    return SPX_OK;
}

/* col[field[q]][j] = the blocks' sums of pair q, column j, in block order. */
static void add_blocks(const spx__bspace *s, int pairs, const int *field)
{
    const int64_t blocks = row_blocks(s), k = s->k;
    for (int q = 0; q < pairs; q++)
        for (int64_t j = 0; j < k; j++) {
            double sum = 0.0;
            for (int64_t bl = 0; bl < blocks; bl++)
                sum += s->scratch[(bl * 2 + q) * k + j];
            s->col[field[q] * k + j] = sum;
        }
}

spx_status spx__b_dots(const spx__bspace *s, int pairs, const void *const *a, const void *const *b,
                       const int *field)
{
    if (pairs < 1 || pairs > 2)
        return spx__error(SPX_ERR_INVALID_ARG, "%d column dots at once, not 1 or 2", pairs);
    if (s->k == 0) return SPX_OK;
    if (s->cuda)
        return spx__cuda_bdots(s->n, s->k, s->t, pairs, a, b, field, s->col, s->scratch, s->stream);
    if (s->t == SPX_F64)
        dots_double(s, pairs, (const double *const *)a, (const double *const *)b, s->scratch);
    else
        dots_float(s, pairs, (const float *const *)a, (const float *const *)b, s->scratch);
    add_blocks(s, pairs, field);
    return SPX_OK;
}

spx_status spx__b_cols(const spx__bspace *s, int step, int64_t it, double rtol, int jacobi)
{
    if (s->k == 0) return SPX_OK;
    if (s->cuda) return spx__cuda_bcols(s->k, s->col, step, it, rtol, jacobi, s->stream);
    for (int64_t j = 0; j < s->k; j++)
        spx__cm_apply(s->col, s->k, j, step, it, rtol, jacobi);
    return SPX_OK;
}

/* The host step: each column's alpha and whether it moves, then the loops. */
static spx_status host_step(const spx__bspace *s, void *x, int64_t ldx, const void *p, void *r,
                            const void *q, const void *d, void *z)
{
    double *alpha = NULL;
    unsigned char *live = NULL, *moves = NULL;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&alpha, (size_t)s->k, sizeof *alpha, "step coefficients"));
    SPX_TRY(spx__alloc((void **)&live, 2 * (size_t)s->k, 1, "step columns"));
    moves = live + s->k;
    for (int64_t j = 0; j < s->k; j++) {
        live[j] = s->col[SPX__CM_LIVE * s->k + j] != 0.0;
        moves[j] = (unsigned char)spx__cm_moves(s->col, s->k, j, &alpha[j]);
    }
    if (s->t == SPX_F64)
        step_double(s, x, ldx, p, r, q, d, z, alpha, live, moves, s->scratch);
    else
        step_float(s, x, ldx, p, r, q, d, z, alpha, live, moves, s->scratch);
    add_blocks(s, d ? 2 : 1, (const int[2]){SPX__CM_RR_NEW, SPX__CM_RZ_NEW});
cleanup:
    spx__free(alpha);
    spx__free(live);
    return st;
}

spx_status spx__b_cg_step(const spx__bspace *s, int64_t it, double rtol, void *x, int64_t ldx,
                          const void *p, void *r, const void *q, const void *d, void *z)
{
    if (s->k == 0) return SPX_OK;
    if (s->cuda)
        return spx__cuda_bcg_step(s->n, s->k, s->t, s->col, it, rtol, x, ldx, p, r, q, d, z,
                                  s->scratch, s->stream);
    spx_status st = host_step(s, x, ldx, p, r, q, d, z);
    return st == SPX_OK ? spx__b_cols(s, SPX__CM_TURN, it, rtol, d != NULL) : st;
}

spx_status spx__b_direction(const spx__bspace *s, const void *z, void *p)
{
    if (s->n == 0 || s->k == 0) return SPX_OK;
    if (s->cuda) return spx__cuda_bdirection(s->n, s->k, s->t, s->col, z, p, s->stream);
    if (s->t == SPX_F64)
        direction_double(s->n, s->k, s->col, z, p);
    else
        direction_float(s->n, s->k, s->col, z, p);
    return SPX_OK;
}

static double *ring_slot(const spx__bspace *s, int64_t slot)
{
    return s->ring + (size_t)(slot & 1) * SPX__CM_FIELDS * (size_t)s->k;
}

spx_status spx__b_publish(const spx__bspace *s, int64_t slot)
{
    if (!s->cuda || s->k == 0) return SPX_OK;
    spx_status st = spx__cuda_copy_async(
        ring_slot(s, slot), s->col, SPX__CM_FIELDS * (size_t)s->k * sizeof(double), 0, s->stream);
    return st == SPX_OK ? spx__cuda_event_record(s->ring_ev[slot & 1], s->stream) : st;
}

spx_status spx__b_read(const spx__bspace *s, int64_t slot, const double **c)
{
    *c = s->col;
    if (!s->cuda || s->k == 0) return SPX_OK;
    *c = ring_slot(s, slot);
    return spx__cuda_event_sync(s->ring_ev[slot & 1]);
}
