/* csr: OpenMP CSR SpMV split by nonzeros, not rows. Rows are dealt to threads
 * in contiguous ranges holding about nnz/T nonzeros each; rows longer than
 * long_len (too long for one thread's share) are summed by all threads in
 * slices.
 *
 * Parameter values=auto|stored|iso (core/iso.h; default auto): an iso plan
 * (auto on a matrix whose values are all one number, spx_matrix_iso) stores
 * and reads no values and computes y = (alpha * v) * (pattern(A) x) + beta * y,
 * v folded into alpha once per call; iso on a matrix that is not iso is
 * SPX_ERR_BAD_PARAM.
 *
 * The plan borrows A's row offsets and columns, and with stored values of
 * the plan's precision A's values too (zero copy). Row offsets are read in
 * the width A holds them: a caller's 32-bit offsets (spx_matrix_wrap) by
 * kernels of their own (csr_kernels.h), never widened. A caller who wrapped
 * arrays (spx_matrix_wrap_csr) and changes values after planning sees the
 * change in the next product of such a plan. An iso plan has folded the
 * value at planning and does not see it; neither does a plan of the other
 * precision (it holds a converted copy), nor one made with op T or reorder=
 * (the plan layer prepares a transposed or permuted copy). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/iso.h"
#include "core/memcopy.h"
#include "core/matrix.h"
#include "core/threads.h"
#include "cpu/sddmm.h"
#include "cpu/spmm.h"
#include "plan/format.h"

typedef struct csr_state {
    int64_t rows;
    const void *rowptr; /* rows+1 offsets, int32_t when row_bits == 32, else int64_t */
    int row_bits;       /* 32: A wraps a caller's 32-bit offsets, read in place */
    const void *colidx;
    int col_bits;
    const void *values; /* NULL for an iso plan */
    void *owned_values; /* converted copy when precision != A's value type */
    int iso;            /* values=iso: no values read, iso_value folded into alpha */
    double iso_value;
    spx__values_mode mode; /* the values= parameter the plan was made with */
    spx_type precision;
    int threads;
    int64_t *part;    /* threads+1 row boundaries */
    int64_t long_len; /* rows longer than this are split across threads */
    int64_t nlong;
    int64_t *long_rows;
    int sddmm; /* an SDDMM plan: the pattern alone (no values, no partition) */
} csr_state;

/* Prefetch distance and block of the kernel (csr_kernel.h), in elements, and
 * the cache line. 256 ahead: 2 KiB of fp64 values, 1 KiB of int32 columns
 * (32 elements ahead gave 43 ms, 128 gave 36 ms, 256 and 512 35 ms, none 44 ms
 * on the 7-point Laplacian of 200^3 in a stand-alone test, 2 threads, 4 KiB
 * pages; bench/results/cpu-large-2026-11-22.md). */
#define CSR_PF_AHEAD 256
#define CSR_PF_BLOCK 512
#define CSR_LINE 64
#if defined(__GNUC__)
#define CSR_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define CSR_PREFETCH(p) ((void)(p))
#endif

/* The kernels (csr_kernel.h, csr_kernels.h): csr_kernels_o64 and _o32 by
 * [iso][precision F32][64-bit columns]. */
typedef void (*csr_kernel)(const csr_state *s, double alpha, const void *x, double beta, void *y,
                           double *partial);

#define SPX_OFF int64_t
#define CSR_OFF_NAME o64
#include "cpu/csr_kernels.h"
#define SPX_OFF int32_t
#define CSR_OFF_NAME o32
#include "cpu/csr_kernels.h"

/* Row offset i of the plan's offsets, whatever their width. */
static int64_t row_off(const csr_state *s, int64_t i)
{
    return s->row_bits == 32 ? (int64_t)((const int32_t *)s->rowptr)[i]
                             : ((const int64_t *)s->rowptr)[i];
}

/* First row r with rowptr[r] >= target (rows+1 offsets, nondecreasing). */
static int64_t lower_row(const csr_state *s, int64_t target)
{
    int64_t lo = 0, hi = s->rows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_off(s, mid) < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void csr_destroy(void *state)
{
    csr_state *s = state;
    if (!s) return;
    spx__free(s->owned_values);
    spx__free(s->part);
    spx__free(s->long_rows);
    spx__free(s);
}

static spx_status find_long_rows(csr_state *s)
{
    spx_status st;
    int64_t n = 0;
    for (int64_t i = 0; i < s->rows; i++)
        if (row_off(s, i + 1) - row_off(s, i) > s->long_len) n++;
    s->nlong = n;
    st = spx__alloc((void **)&s->long_rows, (size_t)n, sizeof(int64_t), "csr long rows");
    if (st != SPX_OK) return st;
    n = 0;
    for (int64_t i = 0; i < s->rows; i++)
        if (row_off(s, i + 1) - row_off(s, i) > s->long_len) s->long_rows[n++] = i;
    size_t cells;
    return spx__mul_size((size_t)s->nlong, (size_t)s->threads, &cells, "csr partial sums");
}

/* A's row offsets in the width A holds them: a caller's 32-bit ones in place. */
static spx_status take_offsets(csr_state *s, const spx_matrix *A)
{
    const int64_t *rp64 = NULL;
    s->row_bits = A->rowptr32 ? 32 : 64;
    if (A->rowptr32) {
        s->rowptr = A->rowptr32;
        return SPX_OK;
    }
    spx_status st = spx__matrix_rowptr(A, &rp64);
    s->rowptr = rp64;
    return st;
}

static spx_status csr_param(void *ctx, const char *key, const char *value)
{
    if (strcmp(key, "values") == 0) return spx__param_values("csr (cpu)", value, ctx);
    return spx__error(SPX_ERR_BAD_PARAM, "csr (cpu): unknown parameter '%s' (values)", key);
}

static spx_status csr_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    csr_state *s = NULL;
    spx__values_mode values = SPX__VALUES_AUTO;
    spx_status st;
    SPX_TRY(spx__params_each(o->params, csr_param, &values));
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "csr plan"));
    s->rows = A->rows;
    SPX_TRY(take_offsets(s, A));
    s->col_bits = A->col_bits;
    s->colidx = A->col_bits == 32 ? (const void *)A->col32 : (const void *)A->col64;
    s->precision = o->precision;
    s->mode = values;
    SPX_TRY(spx__values_choose(A, values, o->precision, "csr (cpu)", &s->iso, &s->iso_value));
    if (!s->iso) SPX_TRY(spx__values_as(A, o->precision, &s->values, &s->owned_values));
    s->threads = o->threads > 0 ? o->threads : spx__threads_for(A->nnz, SPX__SPMV_GRAIN);
    int T = s->threads;
    SPX_TRY(spx__alloc((void **)&s->part, (size_t)T + 1, sizeof(int64_t), "csr partition"));
    for (int t = 0; t <= T; t++)
        s->part[t] = t == T ? A->rows : lower_row(s, A->nnz / T * t + A->nnz % T * t / T);
    /* A row longer than half a thread's share would unbalance the split. */
    s->long_len = T > 1 ? (A->nnz / T / 2 > 4096 ? A->nnz / T / 2 : 4096) : INT64_MAX;
    SPX_TRY(find_long_rows(s));
    *state = s;
    return SPX_OK;
cleanup:
    csr_destroy(s);
    return st;
}

/* The plan is read-only during spmv: the long rows' slice sums live in a
 * per-call buffer, so one plan serves concurrent calls. */
static spx_status csr_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const csr_state *s = state;
    double *partial = NULL;
    spx_status st = spx__alloc((void **)&partial, (size_t)s->nlong * (size_t)s->threads,
                               sizeof(double), "csr partial sums");
    if (st != SPX_OK) return st;
    const csr_kernel(*k)[2][2] = s->row_bits == 32 ? csr_kernels_o32 : csr_kernels_o64;
    k[s->iso][s->precision == SPX_F32][s->col_bits == 64](s, s->iso ? alpha * s->iso_value : alpha,
                                                          x, beta, y, partial);
    spx__free(partial);
    return SPX_OK;
}

/* SpMM: thread t computes the rows it owns, [part[t], part[t+1]), but the
 * long rows, whose slices every thread sums (rows of k sums each) and one
 * thread adds in thread order, as csr_spmv does: the bits depend on T, not
 * on scheduling nor on k. */
static void spmm_long_rows(const csr_state *s, const spx__spmm_args *a, double *partial)
{
    const int T = s->threads;
    const int64_t k = a->k;
#pragma omp for
    for (int64_t l = 0; l < s->nlong; l++) {
        const int64_t i = s->long_rows[l];
        double *restrict p = partial + (size_t)l * (size_t)T * (size_t)k;
        for (int t = 1; t < T; t++)
            for (int64_t j = 0; j < k; j++)
                p[j] += p[(size_t)t * (size_t)k + j];
        if (s->precision == SPX_F64) {
            double *y = (double *)a->Y + i * a->ldy;
            for (int64_t j = 0; j < k; j++)
                y[j] = a->beta == 0.0 ? a->alpha * p[j] : a->alpha * p[j] + a->beta * y[j];
        } else {
            float *y = (float *)a->Y + i * a->ldy;
            for (int64_t j = 0; j < k; j++)
                y[j] = a->beta == 0.0 ? (float)(a->alpha * p[j])
                                      : (float)(a->alpha * p[j] + a->beta * y[j]);
        }
    }
}

static spx_status csr_spmm(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                           double beta, void *Y, int64_t ldy)
{
    const csr_state *s = state;
    const int T = s->threads;
    const spx__spmm_kernel *kern = &spx__spmm_kernels()[s->precision == SPX_F32][s->col_bits == 64];
    const spx__spmm_args a = {.rowptr = s->rowptr,
                              .row_bits = s->row_bits,
                              .col = s->colidx,
                              .val = s->iso ? NULL : s->values,
                              .k = k,
                              .alpha = s->iso ? alpha * s->iso_value : alpha,
                              .beta = beta,
                              .X = X,
                              .ldx = ldx,
                              .Y = Y,
                              .ldy = ldy,
                              .long_len = s->long_len,
                              .nnz = row_off(s, s->rows)};
    double *partial = NULL;
    size_t cells = 0;
    spx_status st = spx__mul_size((size_t)s->nlong * (size_t)T, (size_t)k, &cells, "csr spmm");
    if (st == SPX_OK) st = spx__alloc((void **)&partial, cells, sizeof(double), "csr spmm sums");
    if (st != SPX_OK) return st;
#pragma omp parallel num_threads(T)
    {
        const int nt = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += nt) {
            kern->rows(&a, s->part[t], s->part[t + 1]);
            for (int64_t l = 0; l < s->nlong; l++) {
                const int64_t i = s->long_rows[l], b = row_off(s, i), len = row_off(s, i + 1) - b;
                kern->slice(&a, b + len * t / T, b + len * (t + 1) / T,
                            partial + ((size_t)l * (size_t)T + (size_t)t) * (size_t)k);
            }
        }
#pragma omp barrier
        spmm_long_rows(s, &a, partial);
    }
    spx__free(partial);
    return SPX_OK;
}

/* SDDMM: the pattern, borrowed as SpMV plans borrow it; no values. */
static spx_status csr_sddmm_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    csr_state *s = NULL;
    spx_status st;
    SPX_TRY(spx__params_none(o->params, "csr (cpu) SDDMM"));
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "csr SDDMM plan"));
    s->rows = A->rows;
    s->sddmm = 1;
    SPX_TRY(take_offsets(s, A));
    s->col_bits = A->col_bits;
    s->colidx = A->col_bits == 32 ? (const void *)A->col32 : (const void *)A->col64;
    s->precision = o->precision;
    s->threads = o->threads > 0 ? o->threads : spx__threads_for(A->nnz, SPX__SPMV_GRAIN);
    *state = s;
    return SPX_OK;
cleanup:
    csr_destroy(s);
    return st;
}

/* Thread t of T takes entries [nnz*t/T, nnz*(t+1)/T), whatever the rows
 * (each entry is its own dot: no sums cross threads, so the bits do not
 * depend on T). */
static spx_status csr_sddmm(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                            const void *Y, int64_t ldy, double beta, void *Z)
{
    const csr_state *s = state;
    const int T = s->threads;
    const int64_t nnz = row_off(s, s->rows);
    const spx__sddmm_kernel kern = spx__sddmm_kernels()[s->precision == SPX_F32][s->col_bits == 64];
    const spx__sddmm_args a = {.rowptr = s->rowptr,
                               .row_bits = s->row_bits,
                               .col = s->colidx,
                               .k = k,
                               .alpha = alpha,
                               .beta = beta,
                               .X = X,
                               .ldx = ldx,
                               .Y = Y,
                               .ldy = ldy,
                               .Z = Z};
#pragma omp parallel for num_threads(T) schedule(static, 1)
    for (int t = 0; t < T; t++) {
        const int64_t e0 = nnz / T * t + nnz % T * t / T;
        const int64_t e1 = t + 1 == T ? nnz : nnz / T * (t + 1) + nnz % T * (t + 1) / T;
        if (e0 < e1) kern(&a, lower_row(s, e0 + 1) - 1, e0, e1);
    }
    return SPX_OK;
}

/* New values (spx_plan_update_values, host memory): an iso plan takes one
 * number in place, and varied ones into a copy of its own from then on
 * (values=auto; values=iso refuses them); a stored plan copies them into its
 * own array, leaving A's, which it may have read in place, alone. */
static spx_status csr_update_values(void *state, const void *values, int on_device)
{
    csr_state *s = state;
    const int64_t nnz = row_off(s, s->rows);
    const size_t es = s->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    (void)on_device; /* a CPU plan: host memory */
    if (s->iso) {
        int iso;
        double v;
        spx__values_iso_array(values, nnz, s->precision, &iso, &v);
        if (iso) {
            s->iso_value = v;
            return SPX_OK;
        }
        if (s->mode == SPX__VALUES_ISO)
            return spx__error(SPX_ERR_UNSUPPORTED,
                              "csr (cpu): the plan was made with values=iso and the new values "
                              "are not all one number; make it with values=stored or auto");
    }
    if (!s->owned_values) {
        spx_status st = spx__alloc(&s->owned_values, (size_t)(nnz > 0 ? nnz : 1), es,
                                   "csr (cpu): the plan's own values");
        if (st != SPX_OK) return st;
    }
    spx__parallel_memcpy(s->owned_values, values, (size_t)nnz * es);
    s->values = s->owned_values;
    s->iso = 0;
    return SPX_OK;
}

static size_t csr_bytes(const void *state)
{
    const csr_state *s = state;
    size_t vs = s->iso ? 0 : s->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    size_t nnz = (size_t)row_off(s, s->rows);
    if (s->sddmm) vs = 0;
    return sizeof *s + (size_t)(s->rows + 1) * (size_t)(s->row_bits / 8) +
           nnz * (size_t)(s->col_bits / 8) + nnz * vs +
           (s->part ? (size_t)(s->threads + 1) * sizeof(int64_t) : 0) +
           (size_t)s->nlong * sizeof(int64_t);
}

static void csr_describe(const void *state, char *buf, size_t len)
{
    const csr_state *s = state;
    const char *offsets = s->row_bits == 32 ? " offsets=int32-borrowed" : "";
    if (s->sddmm)
        snprintf(buf, len, "threads=%d sddmm (the pattern, entries split evenly)%s", s->threads,
                 offsets);
    else if (s->iso)
        snprintf(buf, len, "threads=%d long_rows=%lld values=iso value=%.17g%s", s->threads,
                 (long long)s->nlong, s->iso_value, offsets);
    else
        snprintf(buf, len, "threads=%d long_rows=%lld values=stored%s", s->threads,
                 (long long)s->nlong, offsets);
}

/* AUTO: the CPU baseline every other CPU format measures itself against. */
static double csr_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    (void)A;
    (void)f;
    return 1.0;
}

/* The stored path beside the iso default, measured in the same bench run. */
static const char *const csr_bench_variants[] = {"values=stored", NULL};

const spx_format_ops spx__format_csr = {
    .name = "csr",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .analyze = csr_analyze,
    .spmv = csr_spmv,
    .spmm = csr_spmm,
    .sddmm_analyze = csr_sddmm_analyze,
    .sddmm = csr_sddmm,
    .bytes = csr_bytes,
    .destroy = csr_destroy,
    .describe = csr_describe,
    .update_values = csr_update_values,
    .borrows_matrix = 1,
    .bench_variants = csr_bench_variants,
    .suits = csr_suits,
};
