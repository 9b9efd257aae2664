/* The CUDA `sell` format's slices, built on the host (layout: sell_kernels.h).
 * Plain C, no CUDA: the host build is tested without a GPU
 * (tests/test_cuda_sell_build.c). Slices are counted and filled by the
 * host's cores (OpenMP) past PAR_MIN slices; windows of sigma rows are
 * sorted each by one core, the whole matrix as one window by a counting
 * sort on the row lengths. NotreDame_www x32 (10.4M rows) took 1.8 s to
 * plan on one core of the H100 machine (run CQ), 19x csr's plan. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/sell/sell_kernels.h"

#define C SPX__CUDA_SELL_C
#define PAR_MIN 4096 /* slices (or windows) from which the loops run on every core */

static int64_t row_len(const spx_matrix *A, int64_t r)
{
    return r < 0 ? 0 : spx__row_off(A, r + 1) - spx__row_off(A, r);
}

/* The row of lane l of slice s: perm's, or 32s + l in row order; -1 past the rows. */
static int64_t lane_row(const spx_matrix *A, const int32_t *perm, int64_t s, int l)
{
    const int64_t i = C * s + l;
    if (perm) return perm[i];
    return i < A->rows ? i : -1;
}

/* Steps of slice s: its longest row. */
static int64_t slice_steps(const spx_matrix *A, const int32_t *perm, int64_t s)
{
    int64_t len = 0;
    for (int l = 0; l < C; l++) {
        const int64_t n = row_len(A, lane_row(A, perm, s, l));
        if (n > len) len = n;
    }
    return len;
}

/* Smallest and largest column of step j of slice s (entry j of each lane's row
 * that has one; a slice's step j < its steps always has one). */
static void step_range(const spx_matrix *A, const int32_t *perm, int64_t s, int64_t j, int32_t *lo,
                       int32_t *hi)
{
    *lo = INT32_MAX;
    *hi = INT32_MIN;
    for (int l = 0; l < C; l++) {
        const int64_t r = lane_row(A, perm, s, l);
        if (j >= row_len(A, r)) continue;
        const int32_t c = A->col32[spx__row_off(A, r) + j];
        if (c < *lo) *lo = c;
        if (c > *hi) *hi = c;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* perm[0..rows): every row by decreasing length, ties by row: a counting
 * sort (stable) on the lengths, bucket b holding the rows of length b and
 * starting after every row longer. */
static spx_status sort_all_rows(const spx_matrix *A, int32_t *perm)
{
    int64_t longest = 0, *start = NULL;
    spx_status st = SPX_OK;
    for (int64_t r = 0; r < A->rows; r++)
        if (row_len(A, r) > longest) longest = row_len(A, r);
    SPX_TRY(spx__calloc((void **)&start, (size_t)longest + 2, sizeof *start, "cuda sell buckets"));
    for (int64_t r = 0; r < A->rows; r++)
        start[row_len(A, r)]++;
    for (int64_t b = longest, before = 0; b >= 0; b--) { /* counts -> starts */
        const int64_t n = start[b];
        start[b] = before;
        before += n;
    }
    for (int64_t r = 0; r < A->rows; r++)
        perm[start[row_len(A, r)]++] = (int32_t)r;
cleanup:
    spx__free(start);
    return st;
}

/* Rows [w0, w1) into perm[w0..w1) by decreasing length, ties by row: a
 * counting sort when the window's rows are at most WINDOW_BUCKETS - 1 long
 * (buckets on the stack), else keys (INT32_MAX - length) << 32 | row in
 * key[w0..w1), sorted. */
#define WINDOW_BUCKETS 4096
static void sort_window(const spx_matrix *A, int64_t w0, int64_t w1, int32_t *perm, uint64_t *key)
{
    int64_t longest = 0;
    for (int64_t r = w0; r < w1; r++)
        if (row_len(A, r) > longest) longest = row_len(A, r);
    if (longest >= WINDOW_BUCKETS) {
        for (int64_t r = w0; r < w1; r++)
            key[r] = (uint64_t)(INT32_MAX - row_len(A, r)) << 32 | (uint64_t)r;
        qsort(key + w0, (size_t)(w1 - w0), sizeof *key, cmp_u64);
        for (int64_t r = w0; r < w1; r++)
            perm[r] = (int32_t)(key[r] & 0xffffffffu);
        return;
    }
    int32_t start[WINDOW_BUCKETS];
    memset(start, 0, (size_t)(longest + 1) * sizeof *start);
    for (int64_t r = w0; r < w1; r++)
        start[row_len(A, r)]++;
    for (int64_t b = longest, before = 0; b >= 0; b--) { /* counts -> starts */
        const int32_t n = start[b];
        start[b] = (int32_t)before;
        before += n;
    }
    for (int64_t r = w0; r < w1; r++)
        perm[w0 + start[row_len(A, r)]++] = (int32_t)r;
}

/* perm (32 * slices): rows sorted by decreasing length, ties by row, inside
 * windows of sigma rows (a multiple of 32, so no slice straddles two); -1
 * past the rows. Windows on every core (sort_window), the whole matrix by
 * sort_all_rows. */
static spx_status sorted_perm(const spx_matrix *A, int64_t sigma, int64_t n_slices, int32_t **out)
{
    int32_t *perm = NULL;
    uint64_t *key = NULL;
    spx_status st = SPX_OK;
    const int64_t windows = (A->rows + sigma - 1) / sigma;
    *out = NULL;
    SPX_TRY(spx__alloc((void **)&perm, (size_t)(C * n_slices), sizeof *perm, "cuda sell perm"));
    if (windows <= 1) {
        SPX_TRY(sort_all_rows(A, perm));
    } else {
        SPX_TRY(spx__alloc((void **)&key, (size_t)A->rows, sizeof *key, "cuda sell sort keys"));
#pragma omp parallel for schedule(dynamic, 16) if (windows > PAR_MIN / 32)
        for (int64_t w = 0; w < windows; w++) {
            const int64_t w0 = w * sigma, w1 = w0 + sigma < A->rows ? w0 + sigma : A->rows;
            sort_window(A, w0, w1, perm, key);
        }
    }
    for (int64_t i = A->rows; i < C * n_slices; i++)
        perm[i] = -1;
    *out = perm;
    perm = NULL;
cleanup:
    spx__free(perm);
    spx__free(key);
    return st;
}

/* sigma as used: 1 (also for a matrix without rows), or rounded up to a
 * multiple of 32 and at most the rows rounded so. */
static int64_t window_rows(const spx_matrix *A, int64_t sigma)
{
    if (sigma <= 1 || A->rows == 0) return 1;
    const int64_t all = (A->rows + C - 1) / C * C;
    const int64_t w = (sigma + C - 1) / C * C;
    return w < all ? w : all;
}

static spx_status check_input(const spx_matrix *A)
{
    if (A->col_bits != 32)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "sell (cuda): needs 32-bit column indices; the matrix has %lld columns",
                          (long long)A->cols);
    if (A->rows > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "sell (cuda): %lld rows, more than 2^31 - 1",
                          (long long)A->rows);
    return SPX_OK;
}

/* The first step of slice s whose columns do not fit index=u16, else -1. */
static int64_t first_wide_step(const spx_matrix *A, const int32_t *perm, int64_t s, int64_t L)
{
    for (int64_t j = 0; j < L; j++) {
        int32_t lo, hi;
        step_range(A, perm, s, j, &lo, &hi);
        if ((int64_t)hi - lo > SPX__CUDA_SELL_U16_SPAN) return j;
    }
    return -1;
}

/* Steps over all slices, and 1 in *u16_fits when each step's columns fit
 * index=u16 (*bad_slice, *bad_step: the first that does not, else -1).
 * Slices on every core; a slice is checked up to its first wide step, and
 * none once a core has found one in an earlier slice of its share. */
static void count_steps(const spx_matrix *A, const int32_t *perm, int64_t n_slices, int64_t *steps,
                        int *u16_fits, int64_t *bad_slice, int64_t *bad_step)
{
    int64_t total = 0, first_bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(+ : total) reduction(min : first_bad) \
    if (n_slices > PAR_MIN)
    for (int64_t s = 0; s < n_slices; s++) {
        const int64_t L = slice_steps(A, perm, s);
        if (first_bad == INT64_MAX && first_wide_step(A, perm, s, L) >= 0) first_bad = s;
        total += L;
    }
    *steps = total;
    *u16_fits = first_bad == INT64_MAX;
    *bad_slice = *u16_fits ? -1 : first_bad;
    *bad_step =
        *u16_fits ? -1 : first_wide_step(A, perm, first_bad, slice_steps(A, perm, first_bad));
}

spx_status spx__cuda_sell_measure(const spx_matrix *A, int64_t sigma, int64_t *entries,
                                  int *u16_fits)
{
    int32_t *perm = NULL;
    spx_status st = SPX_OK;
    int64_t steps = 0, bad_s, bad_j;
    SPX_TRY(check_input(A));
    const int64_t n_slices = (A->rows + C - 1) / C, w = window_rows(A, sigma);
    if (w > 1) SPX_TRY(sorted_perm(A, w, n_slices, &perm));
    count_steps(A, perm, n_slices, &steps, u16_fits, &bad_s, &bad_j);
    *entries = C * steps;
cleanup:
    spx__free(perm);
    return st;
}

/* Value a of A into slot e of out's values (0 for a < 0: padding). */
static void put_value(const spx_matrix *A, spx__cuda_sell *out, int64_t e, int64_t a)
{
    if (A->vtype == SPX_F64)
        ((double *)out->values)[e] = a < 0 ? 0.0 : ((const double *)A->values)[a];
    else
        ((float *)out->values)[e] = a < 0 ? 0.0f : ((const float *)A->values)[a];
}

/* Slice s into steps k0 = sptr[s] .. sptr[s + 1] of out: each step's base
 * (u16: its smallest column), then lane by lane (its row read in order)
 * entry j of the row into step k0 + j: value, then column (u32) or offset
 * from the step's base (u16); padding past the row's end. */
static void fill_slice(const spx_matrix *A, spx__cuda_sell *out, int64_t s)
{
    const int64_t k0 = out->sptr[s], L = out->sptr[s + 1] - k0;
    const int u16 = out->index == SPX__CUDA_SELL_U16;
    for (int64_t j = 0; u16 && j < L; j++) {
        int32_t lo, hi;
        step_range(A, out->perm, s, j, &lo, &hi);
        out->base[k0 + j] = lo;
    }
    for (int l = 0; l < C; l++) {
        const int64_t r = lane_row(A, out->perm, s, l), len = row_len(A, r);
        const int64_t first = r >= 0 ? spx__row_off(A, r) : 0;
        for (int64_t j = 0; j < L; j++) {
            const int64_t e = C * (k0 + j) + l, a = j < len ? first + j : -1;
            if (out->values) put_value(A, out, e, a);
            if (u16)
                out->off[e] =
                    a >= 0 ? (uint16_t)(A->col32[a] - out->base[k0 + j]) : SPX__CUDA_SELL_U16_PAD;
            else
                out->col[e] = a >= 0 ? A->col32[a] : -1;
        }
    }
}

spx_status spx__cuda_sell_build(const spx_matrix *A, int64_t sigma, int index, int values,
                                spx__cuda_sell *out)
{
    spx_status st = SPX_OK;
    int fits = 0;
    int64_t steps = 0, bad_s, bad_j;
    memset(out, 0, sizeof *out);
    SPX_TRY(check_input(A));
    out->rows = A->rows;
    out->cols = A->cols;
    out->nnz = A->nnz;
    out->index = index;
    out->n_slices = (A->rows + C - 1) / C;
    out->sigma = window_rows(A, sigma);
    if (out->sigma > 1) SPX_TRY(sorted_perm(A, out->sigma, out->n_slices, &out->perm));
    count_steps(A, out->perm, out->n_slices, &steps, &fits, &bad_s, &bad_j);
    if (index == SPX__CUDA_SELL_AUTO)
        index = out->index = fits ? SPX__CUDA_SELL_U16 : SPX__CUDA_SELL_U32;
    if (index == SPX__CUDA_SELL_U16 && !fits) {
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "sell (cuda): index=u16: step %lld of slice %lld (rows from %lld) spans "
                        "more than %d columns; use index=u32",
                        (long long)bad_j, (long long)bad_s,
                        (long long)lane_row(A, out->perm, bad_s, 0), SPX__CUDA_SELL_U16_SPAN);
        goto cleanup;
    }
    out->n_steps = steps;
    const size_t n_entries = (size_t)(C * steps);
    const size_t es = A->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    SPX_TRY(spx__alloc((void **)&out->sptr, (size_t)out->n_slices + 1, sizeof *out->sptr,
                       "cuda sell slice starts"));
    if (values)
        SPX_TRY(spx__alloc(&out->values, n_entries ? n_entries : 1, es, "cuda sell values"));
    if (index == SPX__CUDA_SELL_U16) {
        SPX_TRY(spx__alloc((void **)&out->off, n_entries ? n_entries : 1, sizeof *out->off,
                           "cuda sell offsets"));
        SPX_TRY(spx__alloc((void **)&out->base, steps ? (size_t)steps : 1, sizeof *out->base,
                           "cuda sell step bases"));
    } else {
        SPX_TRY(spx__alloc((void **)&out->col, n_entries ? n_entries : 1, sizeof *out->col,
                           "cuda sell columns"));
    }
    out->sptr[0] = 0;
#pragma omp parallel for schedule(static) if (out->n_slices > PAR_MIN)
    for (int64_t s = 0; s < out->n_slices; s++)
        out->sptr[s + 1] = slice_steps(A, out->perm, s);
    for (int64_t s = 0; s < out->n_slices; s++)
        out->sptr[s + 1] += out->sptr[s];
#pragma omp parallel for schedule(dynamic, 64) if (out->n_slices > PAR_MIN)
    for (int64_t s = 0; s < out->n_slices; s++)
        fill_slice(A, out, s);
    return SPX_OK;
cleanup:
    spx__cuda_sell_free_host(out);
    return st;
}

void spx__cuda_sell_free_host(spx__cuda_sell *s)
{
    if (!s) return;
    spx__free(s->sptr);
    spx__free(s->perm);
    spx__free(s->col);
    spx__free(s->off);
    spx__free(s->base);
    spx__free(s->values);
    memset(s, 0, sizeof *s);
}
