/* spx_spgemm_stats: tSparse's Table 1 for C = A*B, on the CPU.
 *
 *   products  = sum over rows i of A, over k in A(i,:), of nnz(B(k,:));
 *   tiles, tile pairs, tile products after culling, tiles of C and nnz(C):
 *             the task list of A*B on 8x8 bitmap tiles (cpu/tile8.c), the
 *             pattern of each tile of C being the OR of its tasks' bitmap
 *             products, so nnz(C) is that of the symbolic product;
 *   density   = popcount of each tile bitmap of A: median, mean, population
 *             standard deviation, from a histogram of the 64 possible counts.
 * Counts are 64-bit; an intermediate product count past INT64_MAX is
 * SPX_ERR_OVERFLOW. */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "core/matrix.h"
#include "cpu/tile8.h"

/* Sum over A's entries a_ik of nnz(B(k,:)). */
static spx_status count_products(const spx_matrix *A, const spx_matrix *B, int64_t *out)
{
    int64_t total = 0;
    int overflow = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : total) reduction(| : overflow)
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t f = 0;
        for (int64_t q = spx__row_off(A, i); q < spx__row_off(A, i + 1); q++) {
            const int64_t k = spx__col(A, q);
            overflow |= __builtin_add_overflow(f, spx__row_off(B, k + 1) - spx__row_off(B, k), &f);
        }
        overflow |= __builtin_add_overflow(total, f, &total);
    }
    if (overflow)
        return spx__error(SPX_ERR_OVERFLOW, "intermediate products of A*B pass 64 bits");
    *out = total;
    return SPX_OK;
}

/* Median, mean and standard deviation of the entries per tile of T. */
static void density(const spx__tile8 *T, spx_spgemm_info *s)
{
    int64_t hist[65] = {0}, n = T->ntiles;
    double sum = 0.0, sq = 0.0;
    for (int64_t t = 0; t < n; t++) hist[spx__tile8_popc(T->bits[t])]++;
    for (int c = 1; c <= 64; c++) {
        sum += (double)c * (double)hist[c];
        sq += (double)c * (double)c * (double)hist[c];
    }
    s->density_median = s->density_mean = s->density_std = 0.0;
    if (n == 0) return;
    s->density_mean = sum / (double)n;
    const double var = sq / (double)n - s->density_mean * s->density_mean;
    s->density_std = var > 0.0 ? sqrt(var) : 0.0;
    /* the (n-1)/2-th and n/2-th counts in increasing order (0-based) */
    int64_t seen = 0, lo = -1, hi = -1;
    for (int c = 1; c <= 64 && hi < 0; c++) {
        seen += hist[c];
        if (lo < 0 && seen > (n - 1) / 2) lo = c;
        if (seen > n / 2) hi = c;
    }
    s->density_median = 0.5 * (double)(lo + hi);
}

spx_status spx_spgemm_stats(const spx_matrix *A, const spx_matrix *B, spx_spgemm_info *info)
{
    spx__tile8 ta, tb;
    spx__tile8_counts c;
    spx_spgemm_info s;
    spx_status st;
    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    memset(&s, 0, sizeof s);
    if ((st = spx__check_matrix(A, "spx_spgemm_stats")) != SPX_OK ||
        (st = spx__check_matrix(B, "spx_spgemm_stats (B)")) != SPX_OK) return st;
    if (!info) return spx__error(SPX_ERR_INVALID_ARG, "spx_spgemm_stats: NULL output");
    if (A->cols != B->rows)
        return spx__error(SPX_ERR_DIM_MISMATCH, "A is %lld x %lld but B has %lld rows",
                          (long long)A->rows, (long long)A->cols, (long long)B->rows);
    SPX_TRY(count_products(A, B, &s.products));
    SPX_TRY(spx__tile8_from_csr(A, 0, &ta));
    SPX_TRY(spx__tile8_from_csr(B, 0, &tb));
    SPX_TRY(spx__tile8_count(&ta, &tb, &c));
    s.nnz_c = c.cnnz;
    s.tiles_c = c.ctiles;
    s.tile_pairs = c.pairs;
    s.tile_products = c.tasks;
    s.tiles_a = ta.ntiles;
    s.tiles_b = tb.ntiles;
    density(&ta, &s);
    *info = s;
    spx__clear_error();
cleanup:
    spx__tile8_free(&ta);
    spx__tile8_free(&tb);
    return st;
}
