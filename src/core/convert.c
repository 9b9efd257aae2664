/* Conversions: triplets -> CSR, CSR -> CSR of the transpose (= CSC), and
 * export to COO and CSC arrays. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

/* One entry of a row being sorted: its column and the triplet it came from. */
typedef struct col_entry {
    int64_t col, k;
} col_entry;

/* Sort a[0..n) by (col, k): insertion sort for short rows, bottom-up merge
 * sort through tmp (n entries) for long ones. */
static void sort_row(col_entry *a, col_entry *tmp, int64_t n)
{
    if (n <= 32) {
        for (int64_t i = 1; i < n; i++) {
            col_entry e = a[i];
            int64_t j = i;
            for (; j > 0 && (a[j - 1].col > e.col || (a[j - 1].col == e.col && a[j - 1].k > e.k)); j--)
                a[j] = a[j - 1];
            a[j] = e;
        }
        return;
    }
    col_entry *src = a, *dst = tmp;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) dst[o++] = src[j].col < src[i].col ? src[j++] : src[i++];
            while (i < mid) dst[o++] = src[i++];
            while (j < hi) dst[o++] = src[j++];
        }
        col_entry *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* Entries bucketed by row (counting sort, stable), each row sorted by column,
 * then equal (row, column) neighbours summed. Memory is O(rows + nnz), never
 * O(cols), so very wide matrices are fine. */
spx_status spx__csr_from_triplets(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                  const int64_t *ci, const double *v, spx_matrix **out)
{
    int64_t *start = NULL;
    col_entry *ent = NULL, *tmp = NULL;
    spx_matrix *A = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__calloc((void **)&start, (size_t)rows + 2, sizeof(int64_t), "row counts"));
    SPX_TRY(spx__alloc((void **)&ent, (size_t)nnz, sizeof(col_entry), "entry order"));
    for (int64_t k = 0; k < nnz; k++) start[ri[k] + 2]++;
    int64_t longest = 0;
    for (int64_t i = 0; i < rows; i++) {
        if (start[i + 2] > longest) longest = start[i + 2];
        start[i + 2] += start[i + 1];
    }
    for (int64_t k = 0; k < nnz; k++) ent[start[ri[k] + 1]++] = (col_entry){ci[k], k};
    SPX_TRY(spx__alloc((void **)&tmp, (size_t)longest, sizeof(col_entry), "row sort buffer"));
    int64_t unique = 0;
    for (int64_t i = 0; i < rows; i++) {
        col_entry *row = ent + start[i];
        int64_t len = start[i + 1] - start[i];
        sort_row(row, tmp, len);
        for (int64_t t = 0; t < len; t++) unique += t == 0 || row[t].col != row[t - 1].col;
    }
    SPX_TRY(spx__matrix_alloc(rows, cols, unique, SPX_F64, &A));
    double *val = A->values;
    int64_t w = -1;
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t t = start[i]; t < start[i + 1]; t++) {
            double x = v ? v[ent[t].k] : 1.0;
            if (t > start[i] && ent[t].col == ent[t - 1].col) {
                val[w] += x;
                continue;
            }
            w++;
            if (A->col_bits == 32)
                A->col32[w] = (int32_t)ent[t].col;
            else
                A->col64[w] = ent[t].col;
            val[w] = x;
        }
        A->rowptr[i + 1] = w + 1;
    }
    *out = A;
    A = NULL;
cleanup:
    spx__free(start);
    spx__free(ent);
    spx__free(tmp);
    spx_matrix_destroy(A);
    return st;
}

spx_status spx_matrix_transpose(const spx_matrix *A, spx_matrix **AT)
{
    spx_matrix *T = NULL;
    int64_t *next = NULL;
    spx_status st = spx__check_matrix(A, "spx_matrix_transpose");
    if (st != SPX_OK) return st;
    if (!AT) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *AT = NULL;
    SPX_TRY(spx__matrix_alloc(A->cols, A->rows, A->nnz, A->vtype, &T));
    SPX_TRY(spx__calloc((void **)&next, (size_t)A->cols + 1, sizeof(int64_t), "column counts"));
    for (int64_t k = 0; k < A->nnz; k++) next[spx__col(A, k) + 1]++;
    for (int64_t j = 0; j < A->cols; j++) next[j + 1] += next[j];
    memcpy(T->rowptr, next, ((size_t)A->cols + 1) * sizeof(int64_t));
    size_t vs = A->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    for (int64_t i = 0; i < A->rows; i++) {
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++) {
            int64_t p = next[spx__col(A, k)]++;
            if (T->col_bits == 32)
                T->col32[p] = (int32_t)i;
            else
                T->col64[p] = i;
            memcpy((char *)T->values + (size_t)p * vs, (const char *)A->values + (size_t)k * vs, vs);
        }
    }
    *AT = T;
    T = NULL;
    spx__clear_error();
cleanup:
    spx__free(next);
    spx_matrix_destroy(T);
    return st;
}

spx_status spx_matrix_to_coo(const spx_matrix *A, int64_t *ri, int64_t *ci, double *v)
{
    spx_status st = spx__check_matrix(A, "spx_matrix_to_coo");
    if (st != SPX_OK) return st;
    if (A->nnz > 0 && (!ri || !ci))
        return spx__error(SPX_ERR_INVALID_ARG, "coordinate arrays are NULL");
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++) {
            ri[k] = i;
            ci[k] = spx__col(A, k);
            if (v) v[k] = spx__val(A, k);
        }
    return SPX_OK;
}

spx_status spx_matrix_to_csc(const spx_matrix *A, int64_t *colptr, int64_t *rowidx, double *v)
{
    spx_matrix *T = NULL;
    spx_status st = spx__check_matrix(A, "spx_matrix_to_csc");
    if (st != SPX_OK) return st;
    if (!colptr || (A->nnz > 0 && !rowidx))
        return spx__error(SPX_ERR_INVALID_ARG, "CSC arrays are NULL");
    SPX_TRY(spx_matrix_transpose(A, &T));
    memcpy(colptr, T->rowptr, ((size_t)T->rows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < T->nnz; k++) {
        rowidx[k] = spx__col(T, k);
        if (v) v[k] = spx__val(T, k);
    }
cleanup:
    spx_matrix_destroy(T);
    return st;
}
