/* The CUDA `sell` format's slices, built on the host (layout: sell_kernels.h).
 * Plain C, no CUDA: the host build is tested without a GPU
 * (tests/test_cuda_sell_build.c). */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/sell/sell_kernels.h"

#define C SPX__CUDA_SELL_C

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

/* perm (32 * slices): rows sorted by decreasing length, ties by row, inside
 * windows of sigma rows (a multiple of 32, so no slice straddles two); -1
 * past the rows. Sorted as keys (INT32_MAX - length) << 32 | row. */
static spx_status sorted_perm(const spx_matrix *A, int64_t sigma, int64_t n_slices, int32_t **out)
{
    int32_t *perm = NULL;
    uint64_t *key = NULL;
    spx_status st = SPX_OK;
    *out = NULL;
    SPX_TRY(spx__alloc((void **)&perm, (size_t)(C * n_slices), sizeof *perm, "cuda sell perm"));
    SPX_TRY(spx__alloc((void **)&key, (size_t)(sigma < A->rows ? sigma : A->rows) + 1, sizeof *key,
                       "cuda sell sort keys"));
    for (int64_t w0 = 0; w0 < A->rows; w0 += sigma) {
        const int64_t w1 = w0 + sigma < A->rows ? w0 + sigma : A->rows;
        for (int64_t r = w0; r < w1; r++)
            key[r - w0] = (uint64_t)(INT32_MAX - row_len(A, r)) << 32 | (uint64_t)r;
        qsort(key, (size_t)(w1 - w0), sizeof *key, cmp_u64);
        for (int64_t r = w0; r < w1; r++)
            perm[r] = (int32_t)(key[r - w0] & 0xffffffffu);
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

/* Steps over all slices, and 1 in *u16_fits when each step's columns fit
 * index=u16 (*bad_slice, *bad_step: the first that does not, else -1). */
static void count_steps(const spx_matrix *A, const int32_t *perm, int64_t n_slices, int64_t *steps,
                        int *u16_fits, int64_t *bad_slice, int64_t *bad_step)
{
    *steps = 0;
    *u16_fits = 1;
    *bad_slice = *bad_step = -1;
    for (int64_t s = 0; s < n_slices; s++) {
        const int64_t L = slice_steps(A, perm, s);
        for (int64_t j = 0; j < L && *u16_fits; j++) {
            int32_t lo, hi;
            step_range(A, perm, s, j, &lo, &hi);
            if ((int64_t)hi - lo > SPX__CUDA_SELL_U16_SPAN) {
                *u16_fits = 0;
                *bad_slice = s;
                *bad_step = j;
            }
        }
        *steps += L;
    }
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

/* Entry j of slice s's lanes into step k = sptr[s] + j of out: value, then
 * column (u32) or offset from the step's base (u16); padding past a row's end. */
static void fill_step(const spx_matrix *A, spx__cuda_sell *out, int64_t s, int64_t j)
{
    const int64_t k = out->sptr[s] + j;
    int32_t lo = 0, hi = 0;
    if (out->index == SPX__CUDA_SELL_U16) {
        step_range(A, out->perm, s, j, &lo, &hi);
        out->base[k] = lo;
    }
    for (int l = 0; l < C; l++) {
        const int64_t r = lane_row(A, out->perm, s, l), e = C * k + l;
        const int64_t a = j < row_len(A, r) ? spx__row_off(A, r) + j : -1;
        put_value(A, out, e, a);
        if (out->index == SPX__CUDA_SELL_U16)
            out->off[e] = a >= 0 ? (uint16_t)(A->col32[a] - lo) : SPX__CUDA_SELL_U16_PAD;
        else
            out->col[e] = a >= 0 ? A->col32[a] : -1;
    }
}

spx_status spx__cuda_sell_build(const spx_matrix *A, int64_t sigma, int index, spx__cuda_sell *out)
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
    for (int64_t s = 0; s < out->n_slices; s++) {
        const int64_t L = slice_steps(A, out->perm, s);
        out->sptr[s + 1] = out->sptr[s] + L;
        for (int64_t j = 0; j < L; j++)
            fill_step(A, out, s, j);
    }
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
