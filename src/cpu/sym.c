/* sym: SpMV of a symmetric matrix from half of it. A = L + D + L^T, L
 * strictly lower, D the diagonal: the plan stores L in CSR (int32 columns)
 * and D apart, so a product reads 6 of csr's 12 bytes a nonzero in fp64 (4
 * of 8 in fp32), and computes in one pass over L
 *   y_i = alpha * (d_i x_i + sum_{j<i} l_ij x_j) + beta * y_i + sum_{k>i} l_ki (alpha x_k),
 * each entry l_ij read once for its row's sum (x_j gathered) and for its
 * mirror term (y_j += l_ij * alpha x_i). The kernel: sym_body.h.
 *
 * Threads: rows go to threads in contiguous ranges of about equal work (L's
 * entries plus one a row). Thread t owns rows [r_t, r_{t+1}) and its mirror
 * terms land on rows j < i: in its own range on y_j itself (row j was written
 * earlier in the pass, rows go up), below r_t in its buffer over [lo_t, r_t),
 * lo_t the lowest column of its rows. After a barrier each thread adds to its
 * rows the buffers of the threads above it, in thread order: the bits depend
 * on the thread count, not on scheduling. The buffers hold sum_t (r_t - lo_t)
 * numbers: a few bandwidths on a banded or RCM-ordered matrix, up to T n / 2
 * on one whose entries spread over all columns (random graphs), where zeroing
 * and adding them outweighs the halved matrix; AUTO weighs that (sym_auto.c).
 *
 * Declines (SPX_ERR_UNSUPPORTED) a matrix that is not square, not exactly
 * symmetric (spx__matrix_symmetric: pattern and values), or of 2^31 rows or
 * more. Op T is op N. The plan keeps no pointer into A. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/threads.h"
#include "cpu/sym.h"
#include "plan/format.h"

/* What a thread's pass reads and writes (sym_body.h). */
typedef struct sym_args {
    const int64_t *rowptr; /* L's rows+1 offsets */
    const int32_t *col;    /* L's columns, ascending within a row */
    const void *val;       /* L's values: double for fp64 plans, float for fp32 */
    const void *diag;      /* D, of the same type */
    double alpha, beta;
    const void *x;
    void *y;
    int64_t prefetch; /* entries of L ahead (0: none) */
} sym_args;

/* Entries of L prefetched ahead of the pass (parameter prefetch=N, 0: none).
 * None by default: over three rounds on the 16-core host, prefetch=256 (csr's
 * distance) was 0.97x-1.02x on three matrices and 0.70x-0.94x on four
 * (bench/results/sym-2026-11-28.md, run 8). */
#define SYM_PREFETCH_AHEAD 0
#define SYM_LINE 64
#if defined(__GNUC__)
#define SYM_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define SYM_PREFETCH(p) ((void)(p))
#endif

#define SYM_FN sym_rows_f64
#define SYM_VAL double
#include "cpu/sym_body.h"
#define SYM_FN sym_rows_f32
#define SYM_VAL float
#include "cpu/sym_body.h"

static void sym_destroy(void *state)
{
    spx__sym_state *s = state;
    if (!s) return;
    spx__free(s->rowptr);
    spx__free(s->col);
    spx__free(s->val);
    spx__free(s->diag);
    spx__free(s->has_diag);
    spx__free(s->part);
    spx__free(s->lo);
    spx__free(s->buf_at);
    spx__free(s->scratch);
    spx__free(s->a_rowptr);
    spx__free(s->mirror);
    spx__free(s);
}

static spx_status check_matrix(const spx_matrix *A)
{
    if (A->rows != A->cols)
        return spx__error(SPX_ERR_UNSUPPORTED, "sym: A is %lld x %lld, not square",
                          (long long)A->rows, (long long)A->cols);
    if (A->rows >= INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "sym: %lld rows do not fit its 32-bit columns",
                          (long long)A->rows);
    if (!spx__matrix_symmetric(A))
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "sym: A is not symmetric (an entry a_ij without a_ji of the same "
                          "value); sym stores half of A = A^T");
    return SPX_OK;
}

/* L's row offsets and the diagonal's presence, from A. */
static spx_status build_offsets(spx__sym_state *s, const spx_matrix *A)
{
    spx_status st;
    const int64_t n = s->n;
    if ((st = spx__alloc((void **)&s->rowptr, (size_t)n + 1, sizeof(int64_t), "sym rows")) !=
        SPX_OK)
        return st;
    if ((st = spx__alloc((void **)&s->has_diag, (size_t)(n > 0 ? n : 1), 1, "sym diagonal")) !=
        SPX_OK)
        return st;
    s->rowptr[0] = 0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t d = spx__row_first_at_least(A, i, i); /* L's row i ends there */
        s->rowptr[i + 1] = d - spx__row_off(A, i);
        s->has_diag[i] = d < spx__row_off(A, i + 1) && spx__col(A, d) == i;
    }
    for (int64_t i = 0; i < n; i++)
        s->rowptr[i + 1] += s->rowptr[i];
    return SPX_OK;
}

/* L's columns and values, and D, converted to the plan's precision. */
static spx_status build_entries(spx__sym_state *s, const spx_matrix *A)
{
    spx_status st;
    const int64_t n = s->n, nl = spx__sym_l_nnz(s);
    const size_t es = spx__sym_elem_size(s);
    if ((st = spx__alloc((void **)&s->col, (size_t)(nl > 0 ? nl : 1), sizeof(int32_t),
                         "sym columns")) != SPX_OK)
        return st;
    if ((st = spx__alloc(&s->val, (size_t)(nl > 0 ? nl : 1), es, "sym values")) != SPX_OK)
        return st;
    if ((st = spx__alloc(&s->diag, (size_t)(n > 0 ? n : 1), es, "sym diagonal")) != SPX_OK)
        return st;
    const int f32 = s->precision == SPX_F32;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const int64_t a0 = spx__row_off(A, i), len = s->rowptr[i + 1] - s->rowptr[i];
        for (int64_t k = 0; k < len; k++) {
            const int64_t p = s->rowptr[i] + k;
            s->col[p] = (int32_t)spx__col(A, a0 + k);
            if (f32)
                ((float *)s->val)[p] = (float)spx__val(A, a0 + k);
            else
                ((double *)s->val)[p] = spx__val(A, a0 + k);
        }
        const double d = s->has_diag[i] ? spx__val(A, a0 + len) : 0.0;
        if (f32)
            ((float *)s->diag)[i] = (float)d;
        else
            ((double *)s->diag)[i] = d;
    }
    return SPX_OK;
}

/* First row r with rowptr[r] + r >= target: rows weigh their entries of L
 * plus one (the diagonal and the write of y_i). */
static int64_t row_at_work(const spx__sym_state *s, int64_t target)
{
    int64_t lo = 0, hi = s->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->rowptr[mid] + mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The threads' row ranges, the lowest column each reaches, and their buffers. */
static spx_status build_partition(spx__sym_state *s)
{
    spx_status st;
    const int T = s->threads;
    const int64_t work = spx__sym_l_nnz(s) + s->n;
    if ((st = spx__alloc((void **)&s->part, (size_t)T + 1, sizeof(int64_t), "sym partition")) !=
        SPX_OK)
        return st;
    if ((st = spx__alloc((void **)&s->lo, (size_t)T, sizeof(int64_t), "sym partition")) != SPX_OK)
        return st;
    if ((st = spx__alloc((void **)&s->buf_at, (size_t)T + 1, sizeof(int64_t), "sym buffers")) !=
        SPX_OK)
        return st;
    for (int t = 0; t <= T; t++)
        s->part[t] = t == T ? s->n : row_at_work(s, work / T * t + work % T * t / T);
    s->buf_at[0] = 0;
    for (int t = 0; t < T; t++) {
        int64_t lo = s->part[t];
        for (int64_t i = s->part[t]; i < s->part[t + 1]; i++)
            if (s->rowptr[i] < s->rowptr[i + 1] && s->col[s->rowptr[i]] < lo)
                lo = s->col[s->rowptr[i]];
        s->lo[t] = lo;
        s->buf_at[t + 1] = s->buf_at[t] + (s->part[t] - lo);
    }
    return spx__alloc(&s->scratch, (size_t)(s->buf_at[T] > 0 ? s->buf_at[T] : 1),
                      spx__sym_elem_size(s), "sym mirror buffers");
}

static spx_status sym_param(void *ctx, const char *key, const char *value)
{
    if (strcmp(key, "prefetch") == 0) return spx__param_int(key, value, 0, 1 << 20, ctx);
    return spx__error(SPX_ERR_BAD_PARAM, "sym: unknown parameter '%s' (prefetch)", key);
}

static spx_status sym_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__sym_state *s = NULL;
    spx_status st;
    long prefetch = SYM_PREFETCH_AHEAD;
    SPX_TRY(spx__params_each(o->params, sym_param, &prefetch));
    SPX_TRY(check_matrix(A));
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "sym plan"));
    s->n = A->rows;
    s->precision = o->precision;
    s->prefetch = prefetch;
    atomic_init(&s->scratch_busy, 0);
    SPX_TRY(build_offsets(s, A));
    SPX_TRY(build_entries(s, A));
    s->threads = o->threads > 0 ? o->threads
                                : spx__threads_for(spx__sym_l_nnz(s) + s->n, SPX__SPMV_GRAIN / 2);
    SPX_TRY(build_partition(s));
    *state = s;
    return SPX_OK;
cleanup:
    sym_destroy(s);
    return st;
}

/* y_i += the buffers of the threads above t, in thread order, over t's rows. */
static void add_buffers(const spx__sym_state *s, int t, const void *buf, void *y)
{
    for (int u = t + 1; u < s->threads; u++) {
        const int64_t i0 = s->lo[u] > s->part[t] ? s->lo[u] : s->part[t];
        const int64_t i1 = s->part[t + 1] < s->part[u] ? s->part[t + 1] : s->part[u];
        if (s->precision == SPX_F32) {
            const float *b = (const float *)buf + s->buf_at[u] - s->lo[u];
            for (int64_t i = i0; i < i1; i++)
                ((float *)y)[i] += b[i];
        } else {
            const double *b = (const double *)buf + s->buf_at[u] - s->lo[u];
            for (int64_t i = i0; i < i1; i++)
                ((double *)y)[i] += b[i];
        }
    }
}

/* The plan's buffers serve one call at a time; a concurrent call takes its
 * own (the plan's state is not changed by a product). */
static spx_status sym_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    spx__sym_state *s = state;
    const int T = s->threads;
    const size_t es = spx__sym_elem_size(s);
    void *buf = s->scratch, *own = NULL;
    if (atomic_exchange(&s->scratch_busy, 1)) {
        spx_status st = spx__alloc(&own, (size_t)(s->buf_at[T] > 0 ? s->buf_at[T] : 1), es,
                                   "sym mirror buffers");
        if (st != SPX_OK) return st;
        buf = own;
    }
    const sym_args a = {.rowptr = s->rowptr,
                        .col = s->col,
                        .val = s->val,
                        .diag = s->diag,
                        .alpha = alpha,
                        .beta = beta,
                        .x = x,
                        .y = y,
                        .prefetch = s->prefetch};
#pragma omp parallel num_threads(T)
    {
        const int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            char *b = (char *)buf + (size_t)s->buf_at[t] * es;
            memset(b, 0, (size_t)(s->buf_at[t + 1] - s->buf_at[t]) * es);
            if (s->precision == SPX_F32)
                sym_rows_f32(&a, s->part[t], s->part[t + 1], b, s->lo[t]);
            else
                sym_rows_f64(&a, s->part[t], s->part[t + 1], b, s->lo[t]);
        }
#pragma omp barrier
        for (int t = omp_get_thread_num(); t < T; t += nt)
            add_buffers(s, t, buf, y);
    }
    if (own)
        spx__free(own);
    else
        atomic_store(&s->scratch_busy, 0);
    return SPX_OK;
}

static size_t sym_bytes(const void *state)
{
    const spx__sym_state *s = state;
    const size_t es = spx__sym_elem_size(s), n = (size_t)s->n, nl = (size_t)spx__sym_l_nnz(s),
                 T = (size_t)s->threads;
    return sizeof *s + (n + 1) * sizeof(int64_t) + nl * (sizeof(int32_t) + es) + n * (es + 1) +
           (3 * T + 2) * sizeof(int64_t) + (size_t)s->buf_at[T] * es +
           (s->mirror ? (n + 1 + nl) * sizeof(int64_t) : 0);
}

/* The pass with software prefetch, measured in the same bench run. */
static const char *const sym_bench_variants[] = {"prefetch=256", NULL};

static void sym_describe(const void *state, char *buf, size_t len)
{
    const spx__sym_state *s = state;
    snprintf(buf, len, "threads=%d lower=%lld mirror_buffers=%lld prefetch=%lld", s->threads,
             (long long)spx__sym_l_nnz(s), (long long)s->buf_at[s->threads],
             (long long)s->prefetch);
}

const spx_format_ops spx__format_sym = {
    .name = "sym",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = sym_analyze,
    .spmv = sym_spmv,
    .bytes = sym_bytes,
    .destroy = sym_destroy,
    .describe = sym_describe,
    .update_values = spx__sym_update_values,
    .bench_variants = sym_bench_variants,
    .suits = spx__sym_suits,
};
