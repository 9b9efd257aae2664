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
 * and adding them outweighs the halved matrix; sym_suits weighs that.
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
#include "core/llc.h"
#include "core/matrix.h"
#include "core/memcopy.h"
#include "core/threads.h"
#include "plan/format.h"

typedef struct sym_state {
    int64_t n;
    int64_t *rowptr;   /* L's n+1 offsets */
    int32_t *col;      /* L's columns */
    void *val;         /* L's values, of the plan's precision */
    void *diag;        /* D, n values */
    uint8_t *has_diag; /* 1 where A stores a_ii (spx_plan_update_values skips it else) */
    spx_type precision;
    int64_t prefetch; /* parameter prefetch=: entries of L read ahead (0: none) */
    int threads;
    int64_t *part;   /* threads+1 row boundaries */
    int64_t *lo;     /* per thread: the lowest column its rows' mirror terms reach */
    int64_t *buf_at; /* threads+1: thread t's buffer is [buf_at[t], buf_at[t+1]) */
    void *scratch;   /* buf_at[threads] numbers, for one call at a time */
    atomic_int scratch_busy;
    /* Built by the first update_values: A's row offsets and, per entry of L,
     * the position in A's CSR order of its mirror a_ji. */
    int64_t *a_rowptr;
    int64_t *mirror;
} sym_state;

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

/* Entries of L prefetched ahead of the pass (parameter prefetch=N, 0: none):
 * 256 as csr's kernel (2 KiB of fp64 values). */
#define SYM_PREFETCH_AHEAD 256
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

static size_t elem_size(const sym_state *s)
{
    return s->precision == SPX_F32 ? sizeof(float) : sizeof(double);
}

static int64_t l_nnz(const sym_state *s)
{
    return s->rowptr[s->n];
}

static void sym_destroy(void *state)
{
    sym_state *s = state;
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
static spx_status build_offsets(sym_state *s, const spx_matrix *A)
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
static spx_status build_entries(sym_state *s, const spx_matrix *A)
{
    spx_status st;
    const int64_t n = s->n, nl = l_nnz(s);
    const size_t es = elem_size(s);
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
static int64_t row_at_work(const sym_state *s, int64_t target)
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
static spx_status build_partition(sym_state *s)
{
    spx_status st;
    const int T = s->threads;
    const int64_t work = l_nnz(s) + s->n;
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
    return spx__alloc(&s->scratch, (size_t)(s->buf_at[T] > 0 ? s->buf_at[T] : 1), elem_size(s),
                      "sym mirror buffers");
}

static spx_status sym_param(void *ctx, const char *key, const char *value)
{
    if (strcmp(key, "prefetch") == 0) return spx__param_int(key, value, 0, 1 << 20, ctx);
    return spx__error(SPX_ERR_BAD_PARAM, "sym: unknown parameter '%s' (prefetch)", key);
}

static spx_status sym_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    sym_state *s = NULL;
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
    s->threads =
        o->threads > 0 ? o->threads : spx__threads_for(l_nnz(s) + s->n, SPX__SPMV_GRAIN / 2);
    SPX_TRY(build_partition(s));
    *state = s;
    return SPX_OK;
cleanup:
    sym_destroy(s);
    return st;
}

/* y_i += the buffers of the threads above t, in thread order, over t's rows. */
static void add_buffers(const sym_state *s, int t, const void *buf, void *y)
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
    sym_state *s = state;
    const int T = s->threads;
    const size_t es = elem_size(s);
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

/* A's row offsets and each L entry's mirror position, from L alone: row i of
 * A is L's row i, then a_ii where stored, then the entries a_ij, j > i,
 * which are the mirrors of L's column i in row order. */
static spx_status build_mirror_map(sym_state *s)
{
    const int64_t n = s->n, nl = l_nnz(s);
    int64_t *next = NULL;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&s->a_rowptr, (size_t)n + 1, sizeof(int64_t), "sym A rows"));
    SPX_TRY(spx__alloc((void **)&s->mirror, (size_t)(nl > 0 ? nl : 1), sizeof(int64_t),
                       "sym mirror map"));
    SPX_TRY(spx__calloc((void **)&next, (size_t)n + 1, sizeof(int64_t), "sym mirror map"));
    for (int64_t p = 0; p < nl; p++)
        next[s->col[p]]++; /* entries above the diagonal in row col[p] */
    s->a_rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t above = next[i];
        next[i] = s->a_rowptr[i] + (s->rowptr[i + 1] - s->rowptr[i]) + s->has_diag[i];
        s->a_rowptr[i + 1] = next[i] + above;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++)
            s->mirror[p] = next[s->col[p]]++;
    st = SPX_OK;
cleanup:
    spx__free(next);
    if (st != SPX_OK) {
        spx__free(s->a_rowptr);
        spx__free(s->mirror);
        s->a_rowptr = NULL;
        s->mirror = NULL;
    }
    return st;
}

/* The first L entry whose value differs from its mirror's (== in the
 * plan's type, as spx__matrix_symmetric compares), or -1. */
static int64_t first_asymmetric(const sym_state *s, const void *values)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t i = 0; i < s->n; i++) {
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1] && p < bad; p++) {
            const int64_t at = s->a_rowptr[i] + (p - s->rowptr[i]);
            const int same =
                s->precision == SPX_F32
                    ? ((const float *)values)[at] == ((const float *)values)[s->mirror[p]]
                    : ((const double *)values)[at] == ((const double *)values)[s->mirror[p]];
            if (!same) bad = p;
        }
    }
    return bad == INT64_MAX ? -1 : bad;
}

static int64_t row_of_entry(const sym_state *s, int64_t p)
{
    int64_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->rowptr[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* New values (host memory, A's CSR order): checked to be symmetric, as a new
 * plan would check them, then L's and D's taken. */
static spx_status sym_update_values(void *state, const void *values, int on_device)
{
    sym_state *s = state;
    const size_t es = elem_size(s);
    spx_status st;
    (void)on_device; /* a CPU plan: host memory */
    if (!s->mirror && (st = build_mirror_map(s)) != SPX_OK) return st;
    const int64_t bad = first_asymmetric(s, values);
    if (bad >= 0) {
        const int64_t i = row_of_entry(s, bad);
        return spx__error(SPX_ERR_INVALID_ARG,
                          "sym: the new values are not symmetric: a_%lld,%lld differs from "
                          "a_%lld,%lld; the plan keeps its values",
                          (long long)i, (long long)s->col[bad], (long long)s->col[bad],
                          (long long)i);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < s->n; i++) {
        const int64_t len = s->rowptr[i + 1] - s->rowptr[i];
        const char *row = (const char *)values + (size_t)s->a_rowptr[i] * es;
        memcpy((char *)s->val + (size_t)s->rowptr[i] * es, row, (size_t)len * es);
        if (s->has_diag[i])
            memcpy((char *)s->diag + (size_t)i * es, row + (size_t)len * es, es);
        else
            memset((char *)s->diag + (size_t)i * es, 0, es);
    }
    return SPX_OK;
}

static size_t sym_bytes(const void *state)
{
    const sym_state *s = state;
    const size_t es = elem_size(s), n = (size_t)s->n, nl = (size_t)l_nnz(s), T = (size_t)s->threads;
    return sizeof *s + (n + 1) * sizeof(int64_t) + nl * (sizeof(int32_t) + es) + n * (es + 1) +
           (3 * T + 2) * sizeof(int64_t) + (size_t)s->buf_at[T] * es +
           (s->mirror ? (n + 1 + nl) * sizeof(int64_t) : 0);
}

/* AUTO (bench/results/sym-2026-11-28.md): sym when all of
 *   fp64                        (in fp32 sell's vector kernel was as fast or
 *                                faster on most matrices measured),
 *   csr's bytes (12 a nonzero) past the last-level cache and SYM_BYTES_MIN
 *                               (where memory is the bound: with the matrix
 *                                in the 300 MB cache of the 16-core host,
 *                                sell's vector kernel was 1.0-1.5x sym's
 *                                scalar one; past it sym was 1.4-1.9x sell
 *                                there on 8 and 16 threads, and 1.5x on the
 *                                2-core VM),
 *   mean row >= SYM_ROW_MIN,
 *   mirror terms near the diagonal: the threads' buffers under nnz / 16
 *                                numbers (zeroed, added to and read: 24 bytes
 *                                each against the 6 a nonzero sym saves) and
 *                                the mean distance of a row's first entry to
 *                                the diagonal under SYM_REACH_MAX rows (on a
 *                                random graph, y's scattered updates and the
 *                                buffers made sym 0.5-0.7x sell; on c-62,
 *                                whose rows reach far, 0.13-0.25x),
 *   expected calls unknown or at least SYM_REPAY_CALLS,
 *   A's values not all one number (iso plans of csr and sell read 4 bytes a
 *                                nonzero, sym 6), and
 *   A symmetric (checked last: a whole pass over A),
 * answering SYM_EXPECTED_GAIN, above sell's 1.5. */
#define SYM_BYTES_MIN (64.0 * 1048576.0)
#define SYM_ROW_MIN 6.0
#define SYM_REACH_MAX 65536.0
#define SYM_REPAY_CALLS 30
#define SYM_EXPECTED_GAIN 1.6

/* The buffers and mean reach analyze would give with T threads, from A's
 * row offsets and first columns alone (rows split by A's entries). */
static void estimate_reach(const spx_matrix *A, int T, double *buffers, double *mean_reach)
{
    double total = 0.0, reach = 0.0;
    for (int t = 0; t < T; t++) {
        const int64_t r0 = A->rows * t / T, r1 = A->rows * (t + 1) / T;
        int64_t lo = r0;
        for (int64_t i = r0; i < r1; i++) {
            if (spx__row_off(A, i) == spx__row_off(A, i + 1)) continue;
            const int64_t j = spx__col(A, spx__row_off(A, i));
            if (j < lo) lo = j;
            reach += (double)(j < i ? i - j : 0);
        }
        total += (double)(r0 - lo);
    }
    *buffers = total;
    *mean_reach = A->rows ? reach / (double)A->rows : 0.0;
}

static double sym_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    double buffers, reach;
    if (f->o->precision != SPX_F64 || A->rows != A->cols || A->rows >= INT32_MAX) return 0.0;
    const double bytes = 12.0 * (double)A->nnz;
    if (f->rave < SYM_ROW_MIN || bytes < SYM_BYTES_MIN || bytes < (double)spx__llc_bytes())
        return 0.0;
    if (f->o->expected_calls > 0 && f->o->expected_calls < SYM_REPAY_CALLS) return 0.0;
    const int T = f->o->threads > 0 ? f->o->threads
                                    : spx__threads_for(A->nnz / 2 + A->rows, SPX__SPMV_GRAIN / 2);
    estimate_reach(A, T, &buffers, &reach);
    if (buffers > (double)A->nnz / 16.0 || reach > SYM_REACH_MAX) return 0.0;
    if (spx_matrix_iso(A, NULL)) return 0.0; /* csr and sell read no values then */
    return spx__matrix_symmetric(A) ? SYM_EXPECTED_GAIN : 0.0;
}

/* The pass without software prefetch, measured in the same bench run. */
static const char *const sym_bench_variants[] = {"prefetch=0", NULL};

static void sym_describe(const void *state, char *buf, size_t len)
{
    const sym_state *s = state;
    snprintf(buf, len, "threads=%d lower=%lld mirror_buffers=%lld prefetch=%lld", s->threads,
             (long long)l_nnz(s), (long long)s->buf_at[s->threads], (long long)s->prefetch);
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
    .update_values = sym_update_values,
    .bench_variants = sym_bench_variants,
    .suits = sym_suits,
};
