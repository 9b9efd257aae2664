/* The CUDA sell format's slices (src/cuda/sell/sell_build.c), built on the
 * host and decoded back against A's CSR: perm is a permutation of the rows
 * sorted by length inside each window, every row's entries sit at its lane
 * in consecutive steps of its slice, every other slot is padding (value 0,
 * sentinel column), slices are as long as their longest row, 16-bit offsets
 * add to their step's base, and spx__cuda_sell_measure agrees with the
 * build. The refill of spx_plan_update_values reads the layout through
 * helpers of sell_kernels.h that its device kernels share: the row offsets
 * it finds from the padding and the entry it puts in each slot are checked
 * against A here. Runs without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "cuda/sell/sell_kernels.h"

#define C SPX__CUDA_SELL_C

static int64_t len_of(const spx_matrix *A, int64_t r)
{
    return r < 0 ? 0 : A->rowptr[r + 1] - A->rowptr[r];
}

static int64_t row_at(const spx_matrix *A, const spx__cuda_sell *S, int64_t i)
{
    if (S->perm) return S->perm[i];
    return i < A->rows ? i : -1;
}

/* 1 when perm holds each row once, -1 past the rows, lengths not increasing
 * inside each window of S->sigma rows. */
static int perm_ok(const spx_matrix *A, const spx__cuda_sell *S)
{
    if (!S->perm) return S->sigma == 1;
    if (S->sigma % C) return 0;
    char *seen = calloc((size_t)A->rows + 1, 1);
    int ok = 1;
    for (int64_t i = 0; i < C * S->n_slices && ok; i++) {
        const int64_t r = S->perm[i];
        if (i >= A->rows) {
            ok = r == -1;
            continue;
        }
        ok = r >= 0 && r < A->rows && !seen[r] && r / S->sigma == i / S->sigma;
        if (ok) seen[r] = 1;
        if (ok && i % S->sigma) ok = len_of(A, S->perm[i - 1]) >= len_of(A, r);
    }
    free(seen);
    return ok;
}

/* The column of entry e of step k, -1 for padding. */
static int64_t column(const spx__cuda_sell *S, int64_t k, int64_t e)
{
    if (S->index == SPX__CUDA_SELL_U16)
        return S->off[e] == SPX__CUDA_SELL_U16_PAD ? -1 : (int64_t)S->base[k] + S->off[e];
    return S->col[e];
}

static double value(const spx__cuda_sell *S, const spx_matrix *A, int64_t e)
{
    return A->vtype == SPX_F64 ? ((const double *)S->values)[e]
                               : (double)((const float *)S->values)[e];
}

/* 1 when S decodes back to A exactly. */
static int decodes(const spx_matrix *A, const spx__cuda_sell *S)
{
    if (S->n_slices != (A->rows + C - 1) / C || S->sptr[0] != 0) return 0;
    if (S->sptr[S->n_slices] != S->n_steps || !perm_ok(A, S)) return 0;
    for (int64_t s = 0; s < S->n_slices; s++) {
        int64_t longest = 0;
        for (int l = 0; l < C; l++) {
            const int64_t r = row_at(A, S, C * s + l), n = len_of(A, r);
            if (n > longest) longest = n;
            for (int64_t j = 0; j < S->sptr[s + 1] - S->sptr[s]; j++) {
                const int64_t k = S->sptr[s] + j, e = C * k + l;
                if (j < n) {
                    const int64_t a = A->rowptr[r] + j;
                    if (column(S, k, e) != A->col32[a] || value(S, A, e) != spx__val(A, a))
                        return 0;
                } else if (column(S, k, e) != -1 || value(S, A, e) != 0.0) {
                    return 0;
                }
            }
        }
        if (S->sptr[s + 1] - S->sptr[s] != longest) return 0;
    }
    return 1;
}

/* The row offsets as an update's refill finds them from S alone
 * (sell_kernels.h): each lane's row length, its slots before the padding,
 * summed in row order; NULL when u16's offsets packed with values (as fp16
 * plans keep them) give other lengths. */
static int64_t *found_offsets(const spx_matrix *A, const spx__cuda_sell *S)
{
    const size_t entries = (size_t)(C * S->n_steps);
    int64_t *rp = calloc((size_t)A->rows + 2, sizeof *rp);
    uint32_t *packed = S->off ? malloc(entries * sizeof *packed + 1) : NULL;
    int ok = rp != NULL;
    for (size_t e = 0; packed && e < entries; e++)
        packed[e] = (uint32_t)S->off[e] << 16 | 0x3c00u; /* half 1.0 */
    for (int64_t s = 0; ok && s < S->n_slices; s++)
        for (int l = 0; l < C; l++) {
            const int64_t r = spx__cuda_sell_lane_row(S->perm, A->rows, C * s + l);
            const int64_t k0 = S->sptr[s], k1 = S->sptr[s + 1];
            if (r < 0) continue;
            rp[r + 1] = spx__cuda_sell_lane_len(S->col, S->off, NULL, k0, k1, l);
            if (packed)
                ok = ok && rp[r + 1] == spx__cuda_sell_lane_len(NULL, NULL, packed, k0, k1, l);
        }
    for (int64_t r = 0; ok && r < A->rows; r++)
        rp[r + 1] += rp[r];
    free(packed);
    if (!ok) free(rp);
    return ok ? rp : NULL;
}

/* 1 when the refill's reading of the layout is S's: the row offsets it
 * finds are A's, and through them every slot holds the value and column of
 * its source entry (the lane's row's entries in order), padding slots
 * value 0 and the sentinel column, and every entry of A is the source of
 * exactly one slot. */
static int refills(const spx_matrix *A, const spx__cuda_sell *S)
{
    int64_t *rp = found_offsets(A, S);
    char *seen = calloc((size_t)A->nnz + 1, 1);
    int ok = rp && seen;
    for (int64_t r = 0; ok && r <= A->rows; r++)
        ok = rp[r] == A->rowptr[r];
    for (int64_t s = 0; ok && s < S->n_slices; s++) {
        const int64_t k0 = S->sptr[s], L = S->sptr[s + 1] - k0;
        for (int l = 0; ok && l < C; l++) {
            const int64_t r = spx__cuda_sell_lane_row(S->perm, A->rows, C * s + l);
            const int64_t first = r >= 0 ? rp[r] : 0, len = r >= 0 ? rp[r + 1] - first : 0;
            for (int64_t j = 0; ok && j < L; j++) {
                const int64_t e = C * (k0 + j) + l, a = j < len ? first + j : -1;
                if (a < 0) {
                    ok = column(S, k0 + j, e) == -1 && value(S, A, e) == 0.0;
                    continue;
                }
                ok = a < A->nnz && !seen[a] && column(S, k0 + j, e) == A->col32[a] &&
                     value(S, A, e) == spx__val(A, a);
                if (ok) seen[a] = 1;
            }
        }
    }
    for (int64_t a = 0; ok && a < A->nnz; a++)
        ok = seen[a];
    free(rp);
    free(seen);
    return ok;
}

/* 1 when S2 (a build of A's pattern with other values) has S's layout: an
 * update keeps the plan's layout, and a new plan of the new values has it
 * too. */
static int same_layout(const spx__cuda_sell *S, const spx__cuda_sell *S2)
{
    const size_t entries = (size_t)(C * S->n_steps);
    if (S2->n_slices != S->n_slices || S2->n_steps != S->n_steps || S2->index != S->index ||
        S2->sigma != S->sigma || !S2->perm != !S->perm)
        return 0;
    if (memcmp(S2->sptr, S->sptr, ((size_t)S->n_slices + 1) * sizeof *S->sptr)) return 0;
    if (S->perm && memcmp(S2->perm, S->perm, (size_t)(C * S->n_slices) * sizeof *S->perm)) return 0;
    if (S->index == SPX__CUDA_SELL_U16)
        return !memcmp(S2->off, S->off, entries * sizeof *S->off) &&
               !memcmp(S2->base, S->base, (size_t)S->n_steps * sizeof *S->base);
    return !memcmp(S2->col, S->col, entries * sizeof *S->col);
}

/* The refill for new values: A with values 1, 2, 3, ... (every one
 * different, so a slot given the wrong entry shows), built with S's
 * parameters, keeps S's layout and refills through S's. */
static void check_refill(const spx_matrix *A, const char *what, int64_t sigma, int index,
                         const spx__cuda_sell *S)
{
    spx_matrix *A2 = NULL;
    spx__cuda_sell S2;
    if (!CHECK(refills(A, S)))
        printf("  %s sigma=%lld index=%d: the refill misreads the layout\n", what, (long long)sigma,
               index);
    if (!CHECK_STATUS(spx_matrix_copy(A, SPX_F64, &A2), SPX_OK)) return;
    for (int64_t e = 0; e < A2->nnz; e++)
        ((double *)A2->values)[e] = (double)(e + 1);
    if (CHECK_STATUS(spx__cuda_sell_build(A2, sigma, index, 1, &S2), SPX_OK)) {
        if (!CHECK(same_layout(S, &S2) && refills(A2, &S2)))
            printf("  %s sigma=%lld index=%d: new values change the layout or misread it\n", what,
                   (long long)sigma, index);
        spx__cuda_sell_free_host(&S2);
    }
    spx_matrix_destroy(A2);
}

/* Build A with sigma and index, decode, compare with measure; want the status
 * and, for SPX_SELL_AUTO, the index it should pick (-1: do not check). */
static void check(const spx_matrix *A, const char *what, int64_t sigma, int index, spx_status want,
                  int want_index)
{
    spx__cuda_sell S;
    int64_t entries = -1;
    int fits = -1;
    const spx_status st = spx__cuda_sell_build(A, sigma, index, 1, &S);
    if (!CHECK_STATUS(st, want)) {
        printf("  %s sigma=%lld index=%d\n", what, (long long)sigma, index);
        spx__cuda_sell_free_host(&S);
        return;
    }
    if (st == SPX_OK) {
        if (!CHECK(decodes(A, &S)))
            printf("  %s sigma=%lld index=%d: does not decode\n", what, (long long)sigma, index);
        check_refill(A, what, sigma, index, &S);
        if (want_index >= 0 && !CHECK(S.index == want_index))
            printf("  %s sigma=%lld: index %d, want %d\n", what, (long long)sigma, S.index,
                   want_index);
        if (CHECK_STATUS(spx__cuda_sell_measure(A, sigma, &entries, &fits), SPX_OK)) {
            CHECK(entries == C * S.n_steps);
            CHECK(fits == (S.index == SPX__CUDA_SELL_U16) || index == SPX__CUDA_SELL_U32);
        }
    }
    spx__cuda_sell_free_host(&S);
}

static void check_spec(const char *spec, int want_index)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate(spec, &A), SPX_OK)) return;
    check(A, spec, 1, SPX__CUDA_SELL_AUTO, SPX_OK, want_index);
    check(A, spec, 1, SPX__CUDA_SELL_U32, SPX_OK, SPX__CUDA_SELL_U32);
    check(A, spec, 100, SPX__CUDA_SELL_AUTO, SPX_OK, -1); /* rounded up to 128 */
    check(A, spec, 1L << 30, SPX__CUDA_SELL_AUTO, SPX_OK, -1);
    spx_matrix_destroy(A);
}

int main(void)
{
    /* Banded: every step fits 16 bits, lap3d7:48 with rows 2304 either side. */
    check_spec("lap3d7:48", SPX__CUDA_SELL_U16);
    check_spec("lap3d27:12", SPX__CUDA_SELL_U16);
    check_spec("lap2d5:50", SPX__CUDA_SELL_U16);
    /* A Kronecker graph: rows of very different lengths, columns anywhere. */
    check_spec("rmat:scale=12,ef=8", -1);

    /* Columns spread over 200000: u16 is refused, auto falls back to u32. */
    spx_matrix *A = spx_test_uniform_rows_matrix(1000, 200000, 40, 7);
    if (A) {
        check(A, "random rows", 1, SPX__CUDA_SELL_U16, SPX_ERR_UNSUPPORTED, -1);
        check(A, "random rows", 1, SPX__CUDA_SELL_AUTO, SPX_OK, SPX__CUDA_SELL_U32);
        check(A, "random rows", 64, SPX__CUDA_SELL_U32, SPX_OK, SPX__CUDA_SELL_U32);
    }
    spx_matrix_destroy(A);
    /* ... and within 60000 they fit (span at most 65534). */
    A = spx_test_uniform_rows_matrix(333, 60000, 40, 9);
    if (A) check(A, "narrow random rows", 1, SPX__CUDA_SELL_AUTO, SPX_OK, SPX__CUDA_SELL_U16);
    spx_matrix_destroy(A);

    /* No rows; rows without entries; fewer rows than a slice. */
    static const int64_t rp0[] = {0, 0, 0, 0};
    static const int32_t ci0[] = {0};
    for (int s = 0; s < 2; s++) {
        A = NULL;
        if (CHECK_STATUS(spx_matrix_create_csr(s ? 3 : 0, 3, rp0, ci0, NULL, &A), SPX_OK)) {
            check(A, "empty", 1, SPX__CUDA_SELL_AUTO, SPX_OK, -1);
            check(A, "empty", 64, SPX__CUDA_SELL_U16, SPX_OK, SPX__CUDA_SELL_U16);
        }
        spx_matrix_destroy(A);
    }
    return spx_test_finish();
}
