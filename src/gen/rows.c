/* Row-wise CSR builder shared by the generators whose rows are known one at a
 * time (stencils, banded, random, power-law, circuit, scale-up):
 *   1. per block of BLOCK rows: sum and max of len(i);
 *   2. rowptr by a prefix sum over blocks (64-bit, overflow checked);
 *   3. each row filled by fill(i) into a per-thread buffer of max len + work, then
 *      copied into 32- or 64-bit column indices.
 * Rows are independent, so the result does not depend on the thread count. */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "gen/gen.h"

/* Rows per block of the length pass, and per chunk of the fill; the fuzz
 * build lowers both so that small matrices take several threads. */
#ifndef SPX__GEN_ROW_BLOCK
#define SPX__GEN_ROW_BLOCK 4096
#endif
#ifndef SPX__GEN_ROW_CHUNK
#define SPX__GEN_ROW_CHUNK 64
#endif
#define BLOCK ((int64_t)SPX__GEN_ROW_BLOCK)

/* Sums and maxima of the row lengths per block of rows. */
static void block_sums(const spx__gen_rows *g, int64_t nblocks, int64_t *sum, int64_t *maxlen)
{
    int64_t mx = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : mx)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t end = (b + 1) * BLOCK < g->rows ? (b + 1) * BLOCK : g->rows, s = 0;
        for (int64_t i = b * BLOCK; i < end; i++) {
            int64_t l = g->len(g->ctx, i);
            s += l;
            if (l > mx) mx = l;
        }
        sum[b] = s;
    }
    *maxlen = mx;
}

/* rowptr from the lengths again, each block starting at its prefix offset. */
static void fill_rowptr(const spx__gen_rows *g, int64_t nblocks, const int64_t *start,
                        int64_t *rowptr)
{
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t end = (b + 1) * BLOCK < g->rows ? (b + 1) * BLOCK : g->rows, off = start[b];
        for (int64_t i = b * BLOCK; i < end; i++) {
            rowptr[i] = off;
            off += g->len(g->ctx, i);
        }
    }
    rowptr[g->rows] = start[nblocks];
}

static void fill_rows(const spx__gen_rows *g, spx_matrix *M, int64_t *scratch, int64_t room)
{
    double *val = (double *)M->values;
#pragma omp parallel for schedule(dynamic, SPX__GEN_ROW_CHUNK)
    for (int64_t i = 0; i < g->rows; i++) {
        int64_t *col = scratch + (size_t)omp_get_thread_num() * (size_t)room;
        int64_t off = M->rowptr[i], n = M->rowptr[i + 1] - off;
        g->fill(g->ctx, i, col, val + off);
        if (M->col_bits == 32)
            for (int64_t k = 0; k < n; k++) M->col32[off + k] = (int32_t)col[k];
        else
            memcpy(M->col64 + off, col, (size_t)n * sizeof *col);
    }
}

spx_status spx__gen_build_rows(const spx__gen_rows *g, spx_matrix **A)
{
    spx_status st = SPX_OK;
    int64_t nblocks = (g->rows + BLOCK - 1) / BLOCK, maxlen = 0, nnz = 0;
    int64_t *sum = NULL, *scratch = NULL;
    spx_matrix *M = NULL;
    size_t scratch_len;
    SPX_TRY(spx__alloc((void **)&sum, (size_t)nblocks + 1, sizeof *sum, "generator row blocks"));
    block_sums(g, nblocks, sum, &maxlen);
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t s = sum[b];
        sum[b] = nnz;
        SPX_TRY(spx__add_i64(nnz, s, &nnz, "generated nonzeros"));
    }
    sum[nblocks] = nnz;
    SPX_TRY(spx__add_i64(maxlen, g->work, &maxlen, "generator row buffers"));
    SPX_TRY(spx__mul_size((size_t)omp_get_max_threads(), (size_t)maxlen, &scratch_len,
                          "generator row buffers"));
    SPX_TRY(spx__gen_check_size(g->gen, g->rows, g->cols, nnz, 8.0 * (double)scratch_len));
    SPX_TRY(spx__alloc((void **)&scratch, scratch_len, sizeof *scratch, "generator row buffers"));
    SPX_TRY(spx__matrix_alloc(g->rows, g->cols, nnz, SPX_F64, &M));
    fill_rowptr(g, nblocks, sum, M->rowptr);
    fill_rows(g, M, scratch, maxlen);
    *A = M;
    M = NULL;
cleanup:
    spx_matrix_destroy(M);
    spx__free(scratch);
    spx__free(sum);
    return st;
}

static void insertion_sort(int64_t *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int64_t x = v[i], j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Quicksort with median-of-three pivots, recursing on the smaller side. */
static void sort_i64(int64_t *v, int64_t n)
{
    while (n > 24) {
        int64_t a = v[0], b = v[n / 2], c = v[n - 1];
        int64_t p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        int64_t i = 0, j = n - 1;
        while (i <= j) {
            while (v[i] < p) i++;
            while (v[j] > p) j--;
            if (i <= j) {
                int64_t t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (j + 1 < n - i) {
            sort_i64(v, j + 1);
            v += i;
            n -= i;
        } else {
            sort_i64(v + i, n - i);
            n = j + 1;
        }
    }
    insertion_sort(v, n);
}

int64_t spx__gen_sort_unique(int64_t *v, int64_t n)
{
    int64_t k = 0;
    sort_i64(v, n);
    for (int64_t i = 0; i < n; i++)
        if (k == 0 || v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

int64_t spx__gen_sample_work(int64_t n)
{
    return n <= ((int64_t)1 << 27) ? n / 64 + 1 : 0; /* 16 MB a thread at most */
}

/* Distinct draws marked in a bitmap of n bits, read back in order. */
static void sample_bitmap(spx__rng *r, int64_t n, int64_t L, int64_t *col, uint64_t *bits)
{
    int64_t words = n / 64 + 1, got = 0;
    memset(bits, 0, (size_t)words * sizeof *bits);
    while (got < L) {
        int64_t j = spx__rng_below(r, n);
        uint64_t m = 1ull << (j & 63);
        if (!(bits[j >> 6] & m)) {
            bits[j >> 6] |= m;
            got++;
        }
    }
    for (int64_t w = 0, k = 0; w < words; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) col[k++] = w * 64 + __builtin_ctzll(b);
}

/* Sampling: over half of [0, n): selection sampling (Knuth's algorithm S,
 * one pass); over n/64 with room for a bitmap: distinct draws in the bitmap;
 * otherwise draw L, sort, drop repeats and draw the missing ones again, which
 * takes few rounds because repeats are rare when L is small against n. */
void spx__gen_sample_sorted(spx__rng *r, int64_t n, int64_t L, int64_t *col, int64_t work)
{
    if (L * 2 > n || (L * 4 > n && work < n / 64 + 1)) {
        int64_t got = 0;
        for (int64_t t = 0; t < n && got < L; t++)
            if ((double)(n - t) * spx__rng_unit(r) < (double)(L - got)) col[got++] = t;
        return;
    }
    if (L * 64 > n && work >= n / 64 + 1) {
        sample_bitmap(r, n, L, col, (uint64_t *)(col + L));
        return;
    }
    int64_t got = 0;
    while (got < L) {
        for (int64_t k = got; k < L; k++) col[k] = spx__rng_below(r, n);
        got = spx__gen_sort_unique(col, L);
    }
}
