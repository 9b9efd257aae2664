/* Triplets to CSR, with the symmetric kinds expanded.
 *
 * Symmetric and hermitian (real) entries (i, j, v) with i != j also give
 * (j, i, v); skew-symmetric ones give (j, i, -v). Entries may be stored in
 * either triangle; the diagonal is never doubled. If a file stores both (i, j)
 * and (j, i) of a symmetric matrix, each position gets the sum of both.
 *
 * 1. row lengths, mirrors included, give the row offsets;
 * 2. entries are scattered in file order (a counting sort by row, stable)
 *    straight into the matrix; for files stored column by column (as
 *    SuiteSparse's are) every row then comes out sorted, which is checked;
 * 3. otherwise the entries are scattered again into a scratch CSR with
 *    64-bit columns, each row is sorted by column and its duplicates summed
 *    in file order, and the matrix gets exactly the distinct entries. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "io/mtx.h"

/* Below this many entries the row passes run on one thread. The fuzz build
 * lowers it so that small inputs take the parallel passes. */
#ifndef SPX__BUILD_PARALLEL
#define SPX__BUILD_PARALLEL 100000
#endif

typedef struct scratch {
    int64_t *rp;   /* rows+1 offsets of every entry, mirrors included */
    int64_t *next; /* per row: scatter cursor, then distinct entries kept */
    int64_t *col;
    double *val;
} scratch;

static int mirror_sign(const spx__mtx_header *h)
{
    return h->symmetry == SPX__MTX_GENERAL ? 0 : h->symmetry == SPX__MTX_SKEW ? -1 : 1;
}

static spx_status count_rows(const spx__mtx_header *h, const spx__mtx_triplets *t, scratch *s)
{
    int mirror = mirror_sign(h) != 0;
    spx_status st =
        spx__calloc((void **)&s->rp, (size_t)h->rows + 1, sizeof(int64_t), "row counts");
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < t->n; k++) {
        if (t->ri[k] < 0) continue;
        s->rp[t->ri[k] + 1]++;
        if (mirror && t->ri[k] != t->ci[k]) s->rp[t->ci[k] + 1]++;
    }
    for (int64_t i = 0; i < h->rows; i++)
        s->rp[i + 1] += s->rp[i];
    return SPX_OK;
}

/* Counting sort by row into (col32 or col64, val) laid out by s->rp. */
static void scatter(const spx__mtx_header *h, const spx__mtx_triplets *t, scratch *s,
                    int32_t *col32, int64_t *col64, double *val)
{
    int sign = mirror_sign(h);
    memcpy(s->next, s->rp, (size_t)h->rows * sizeof(int64_t));
    for (int64_t k = 0; k < t->n; k++) {
        int64_t i = t->ri[k], j = t->ci[k], p;
        double v = t->v ? t->v[k] : 1.0;
        if (i < 0) continue;
        p = s->next[i]++;
        if (col32)
            col32[p] = (int32_t)j;
        else
            col64[p] = j;
        val[p] = v;
        if (sign && i != j) {
            p = s->next[j]++;
            if (col32)
                col32[p] = (int32_t)i;
            else
                col64[p] = i;
            val[p] = sign * v;
        }
    }
}

/* Every row strictly increasing (sorted, no duplicates)? */
static int rows_strictly_increasing(const spx_matrix *A)
{
    int64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static) if (A->nnz > SPX__BUILD_PARALLEL)
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t k = A->rowptr[i] + 1; k < A->rowptr[i + 1]; k++)
            bad += spx__col(A, k - 1) >= spx__col(A, k);
    return bad == 0;
}

static void swap_entries(int64_t *col, double *val, int64_t a, int64_t b)
{
    int64_t c = col[a];
    double v = val[a];
    col[a] = col[b];
    val[a] = val[b];
    col[b] = c;
    val[b] = v;
}

static void sift_down(int64_t *col, double *val, int64_t root, int64_t n)
{
    for (int64_t child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && col[child + 1] > col[child]) child++;
        if (col[root] >= col[child]) return;
        swap_entries(col, val, root, child);
    }
}

/* Sort one row by column: insertion sort when short (stable), else heap sort. */
static void sort_row(int64_t *col, double *val, int64_t n)
{
    if (n <= 32) {
        for (int64_t a = 1; a < n; a++)
            for (int64_t b = a; b > 0 && col[b - 1] > col[b]; b--)
                swap_entries(col, val, b, b - 1);
        return;
    }
    for (int64_t r = n / 2; r-- > 0;)
        sift_down(col, val, r, n);
    for (int64_t end = n - 1; end > 0; end--) {
        swap_entries(col, val, 0, end);
        sift_down(col, val, 0, end);
    }
}

/* Sort the row if needed and sum runs of equal columns; returns the distinct count. */
static int64_t sort_and_merge(int64_t *col, double *val, int64_t n)
{
    int64_t w = 0;
    for (int64_t r = 1; r < n; r++) {
        if (col[r - 1] > col[r]) {
            sort_row(col, val, n);
            break;
        }
    }
    for (int64_t r = 0; r < n; r++) {
        if (w > 0 && col[w - 1] == col[r]) {
            val[w - 1] += val[r];
        } else {
            col[w] = col[r];
            val[w] = val[r];
            w++;
        }
    }
    return w;
}

static void copy_rows(const scratch *s, spx_matrix *A)
{
    double *v = (double *)A->values;
#pragma omp parallel for schedule(static) if (A->nnz > SPX__BUILD_PARALLEL)
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t from = s->rp[i], to = A->rowptr[i], n = s->next[i];
        if (A->col_bits == 32)
            for (int64_t k = 0; k < n; k++)
                A->col32[to + k] = (int32_t)s->col[from + k];
        else
            memcpy(A->col64 + to, s->col + from, (size_t)n * sizeof(int64_t));
        memcpy(v + to, s->val + from, (size_t)n * sizeof(double));
    }
}

/* Rows that were unsorted or had duplicates: sort and merge in the int64
 * scratch, then copy the distinct entries into a matrix of the exact size. */
static spx_status build_merged(const spx__mtx_header *h, const spx__mtx_triplets *t, scratch *s,
                               spx_matrix **A)
{
    spx_status st;
    int64_t total = s->rp[h->rows], nnz = 0;
    SPX_TRY(spx__alloc((void **)&s->col, (size_t)total, sizeof(int64_t), "scratch columns"));
    SPX_TRY(spx__alloc((void **)&s->val, (size_t)total, sizeof(double), "scratch values"));
    scatter(h, t, s, NULL, s->col, s->val);
#pragma omp parallel for schedule(dynamic, 1024) if (total > SPX__BUILD_PARALLEL)
    for (int64_t i = 0; i < h->rows; i++)
        s->next[i] = sort_and_merge(s->col + s->rp[i], s->val + s->rp[i], s->rp[i + 1] - s->rp[i]);
    for (int64_t i = 0; i < h->rows; i++)
        nnz += s->next[i];
    SPX_TRY(spx__matrix_alloc(h->rows, h->cols, nnz, SPX_F64, A));
    for (int64_t i = 0; i < h->rows; i++)
        (*A)->rowptr[i + 1] = (*A)->rowptr[i] + s->next[i];
    copy_rows(s, *A);
cleanup:
    return st;
}

spx_status spx__mtx_build(const spx__mtx_header *h, const spx__mtx_triplets *t, spx_matrix **A)
{
    spx_status st;
    scratch s = {NULL, NULL, NULL, NULL};
    spx_matrix *M = NULL;
    *A = NULL;
    SPX_TRY(count_rows(h, t, &s));
    SPX_TRY(spx__alloc((void **)&s.next, (size_t)h->rows + 1, sizeof(int64_t), "row cursors"));
    /* Usual case: scatter straight into the matrix and find every row in order. */
    SPX_TRY(spx__matrix_alloc(h->rows, h->cols, s.rp[h->rows], SPX_F64, &M));
    memcpy(M->rowptr, s.rp, ((size_t)h->rows + 1) * sizeof(int64_t));
    scatter(h, t, &s, M->col32, M->col64, (double *)M->values);
    if (!rows_strictly_increasing(M)) {
        spx_matrix_destroy(M);
        M = NULL;
        SPX_TRY(build_merged(h, t, &s, &M));
    }
    *A = M;
    M = NULL;
cleanup:
    spx_matrix_destroy(M);
    spx__free(s.rp);
    spx__free(s.next);
    spx__free(s.col);
    spx__free(s.val);
    return st;
}
