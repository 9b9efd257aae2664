/* Would a degree ordering make a matrix's gathers of x local? Two statistics
 * of a square matrix, from the public API alone, for a rule that could let
 * AUTO order by degree (gpu-reorder-2026-11-25.md: it paid only on R-MAT):
 *
 *   top1   the share of nonzeros in the 1% of columns with the most entries
 *          (hot columns: a degree ordering packs them together);
 *   sect   over blocks of 32 consecutive rows, the distinct 32-byte sectors
 *          of an fp64 x (4 entries) they read, over their nonzeros: about 1
 *          when every gather reads its own sector, low when rows share them;
 *          before, and after P A P^T with P by decreasing degree (row plus
 *          column counts, ties by index: src/core/order.c's degree order).
 *
 * sect before / sect after over 1 predicts fewer sectors per nonzero.
 * Usage: x_locality SPEC... (a .mtx path or a generator spec, as spx_generate
 * and spx_matrix_read take). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx.h"

#define BLOCK_ROWS 32
#define SECTOR_SHIFT 2 /* 4 doubles a 32-byte sector */

typedef struct csr {
    int64_t n, nnz;
    const int64_t *rp;
    const int32_t *col;
} csr;

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct sectors over nonzeros, blocks of BLOCK_ROWS rows taken in the
 * order row_of[0..n) (NULL: 0..n-1), columns renamed by new_col (NULL: kept). */
static double sectors_per_nonzero(const csr *A, const int64_t *row_of, const int64_t *new_col,
                                  int32_t *buf)
{
    int64_t distinct = 0;
    for (int64_t b = 0; b < A->n; b += BLOCK_ROWS) {
        int64_t k = 0;
        for (int64_t r = b; r < b + BLOCK_ROWS && r < A->n; r++) {
            const int64_t i = row_of ? row_of[r] : r;
            for (int64_t p = A->rp[i]; p < A->rp[i + 1]; p++) {
                const int64_t c = new_col ? new_col[A->col[p]] : A->col[p];
                buf[k++] = (int32_t)(c >> SECTOR_SHIFT);
            }
        }
        qsort(buf, (size_t)k, sizeof *buf, cmp_i32);
        for (int64_t q = 0; q < k; q++)
            distinct += q == 0 || buf[q] != buf[q - 1];
    }
    return A->nnz ? (double)distinct / (double)A->nnz : 0.0;
}

/* perm by decreasing degree (row plus column counts), ties by index: a
 * stable counting sort; inv[perm[k]] = k. */
static void degree_order(const csr *A, int64_t *perm, int64_t *inv)
{
    int64_t *deg = calloc((size_t)A->n, sizeof *deg), most = 0;
    for (int64_t i = 0; i < A->n; i++)
        deg[i] = A->rp[i + 1] - A->rp[i];
    for (int64_t p = 0; p < A->nnz; p++)
        deg[A->col[p]]++;
    for (int64_t i = 0; i < A->n; i++)
        most = deg[i] > most ? deg[i] : most;
    int64_t *start = calloc((size_t)most + 2, sizeof *start);
    for (int64_t i = 0; i < A->n; i++)
        start[most - deg[i] + 1]++;
    for (int64_t b = 0; b <= most; b++)
        start[b + 1] += start[b];
    for (int64_t i = 0; i < A->n; i++)
        perm[start[most - deg[i]]++] = i;
    for (int64_t k = 0; k < A->n; k++)
        inv[perm[k]] = k;
    free(start);
    free(deg);
}

/* The share of nonzeros in the 1% of columns with the most entries. */
static double top_percent_share(const csr *A)
{
    int64_t *count = calloc((size_t)A->n, sizeof *count), most = 0;
    for (int64_t p = 0; p < A->nnz; p++)
        count[A->col[p]]++;
    for (int64_t i = 0; i < A->n; i++)
        most = count[i] > most ? count[i] : most;
    int64_t *columns_of = calloc((size_t)most + 1, sizeof *columns_of); /* by entry count */
    for (int64_t i = 0; i < A->n; i++)
        columns_of[count[i]]++;
    int64_t want = A->n / 100, taken = 0, entries = 0;
    for (int64_t d = most; d >= 0 && taken < want; d--) {
        const int64_t t = columns_of[d] < want - taken ? columns_of[d] : want - taken;
        taken += t;
        entries += t * d;
    }
    free(columns_of);
    free(count);
    return A->nnz ? (double)entries / (double)A->nnz : 0.0;
}

/* SPEC: gen:SPEC or a generator spec (spx_generate), else a .mtx path. */
static spx_status load(const char *spec, spx_matrix **A)
{
    if (strncmp(spec, "gen:", 4) == 0) return spx_generate(spec + 4, A);
    return strstr(spec, ".mtx") ? spx_matrix_read(spec, A) : spx_generate(spec, A);
}

static int measure(const char *spec)
{
    spx_matrix *M = NULL;
    csr A;
    int bits = 0;
    int64_t rows = 0, cols = 0, longest = 0;
    if (load(spec, &M) != SPX_OK || spx_matrix_dims(M, &rows, &cols, &A.nnz) != SPX_OK ||
        spx_matrix_csr(M, &A.rp, (const void **)&A.col, &bits, NULL, NULL) != SPX_OK ||
        bits != 32 || rows != cols) {
        fprintf(stderr, "%s: %s\n", spec, rows != cols ? "not square" : spx_last_error());
        spx_matrix_destroy(M);
        return 1;
    }
    A.n = rows;
    for (int64_t i = 0; i < A.n; i++)
        longest = A.rp[i + 1] - A.rp[i] > longest ? A.rp[i + 1] - A.rp[i] : longest;
    int64_t *perm = malloc((size_t)A.n * sizeof *perm), *inv = malloc((size_t)A.n * sizeof *inv);
    int32_t *buf = malloc((size_t)(longest * BLOCK_ROWS + 1) * sizeof *buf);
    degree_order(&A, perm, inv);
    const double before = sectors_per_nonzero(&A, NULL, NULL, buf);
    const double after = sectors_per_nonzero(&A, perm, inv, buf);
    printf("%-48.48s nnz %10lld mean_row %6.2f top1 %.3f sect %.3f -> degree %.3f ratio %.2f\n",
           spec, (long long)A.nnz, A.n ? (double)A.nnz / (double)A.n : 0.0, top_percent_share(&A),
           before, after, after > 0 ? before / after : 0.0);
    free(buf);
    free(inv);
    free(perm);
    spx_matrix_destroy(M);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0;
    for (int a = 1; a < argc; a++)
        bad |= measure(argv[a]);
    return bad;
}
