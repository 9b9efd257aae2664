/* Conversions: triplets -> CSR, CSR -> CSR of the transpose (= CSC), and
 * export to COO and CSC arrays. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

/* Stable counting sort of the entry numbers in `in` (n of them) by key[],
 * keys in 0..nkeys-1: out receives them grouped by key, ptr the nkeys+1 starts. */
static void counting_sort(const int64_t *key, const int64_t *in, int64_t n, int64_t nkeys,
                          int64_t *ptr, int64_t *out)
{
    memset(ptr, 0, ((size_t)nkeys + 1) * sizeof *ptr);
    for (int64_t t = 0; t < n; t++) ptr[key[in ? in[t] : t] + 1]++;
    for (int64_t i = 0; i < nkeys; i++) ptr[i + 1] += ptr[i];
    for (int64_t t = 0; t < n; t++) {
        int64_t k = in ? in[t] : t;
        out[ptr[key[k]]++] = k;
    }
    for (int64_t i = nkeys; i > 0; i--) ptr[i] = ptr[i - 1];
    ptr[0] = 0;
}

/* Entries sorted by column, then stably by row, so each row's columns ascend;
 * equal (row, column) neighbours are then summed. */
spx_status spx__csr_from_triplets(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                  const int64_t *ci, const double *v, spx_matrix **out)
{
    int64_t *colptr = NULL, *by_col = NULL, *by_row = NULL, *rowptr = NULL;
    spx_matrix *A = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__alloc((void **)&colptr, (size_t)cols + 1, sizeof(int64_t), "column counts"));
    SPX_TRY(spx__alloc((void **)&rowptr, (size_t)rows + 1, sizeof(int64_t), "row counts"));
    SPX_TRY(spx__alloc((void **)&by_col, (size_t)nnz, sizeof(int64_t), "entry order"));
    SPX_TRY(spx__alloc((void **)&by_row, (size_t)nnz, sizeof(int64_t), "entry order"));
    counting_sort(ci, NULL, nnz, cols, colptr, by_col);
    counting_sort(ri, by_col, nnz, rows, rowptr, by_row);
    spx__free(colptr);
    colptr = NULL;
    spx__free(by_col);
    by_col = NULL;

    int64_t unique = 0;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t t = rowptr[i]; t < rowptr[i + 1]; t++)
            if (t == rowptr[i] || ci[by_row[t]] != ci[by_row[t - 1]]) unique++;
    SPX_TRY(spx__matrix_alloc(rows, cols, unique, SPX_F64, &A));
    double *val = A->values;
    int64_t w = -1;
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t t = rowptr[i]; t < rowptr[i + 1]; t++) {
            int64_t k = by_row[t];
            double x = v ? v[k] : 1.0;
            if (t > rowptr[i] && ci[k] == ci[by_row[t - 1]]) {
                val[w] += x;
                continue;
            }
            w++;
            if (A->col_bits == 32)
                A->col32[w] = (int32_t)ci[k];
            else
                A->col64[w] = ci[k];
            val[w] = x;
        }
        A->rowptr[i + 1] = w + 1;
    }
    *out = A;
    A = NULL;
cleanup:
    spx__free(colptr);
    spx__free(rowptr);
    spx__free(by_col);
    spx__free(by_row);
    spx_matrix_destroy(A);
    return st;
}

spx_status spx_matrix_transpose(const spx_matrix *A, spx_matrix **AT)
{
    spx_matrix *T = NULL;
    int64_t *next = NULL;
    spx_status st = spx__check_matrix(A);
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
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
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
    spx_status st = spx__check_matrix(A);
    if (st != SPX_OK) return st;
    if (A->nnz > 0 && (!ri || !ci))
        return spx__error(SPX_ERR_INVALID_ARG, "coordinate arrays are NULL");
    for (int64_t i = 0; i < A->rows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            ri[k] = i;
            ci[k] = spx__col(A, k);
            if (v) v[k] = spx__val(A, k);
        }
    return SPX_OK;
}

spx_status spx_matrix_to_csc(const spx_matrix *A, int64_t *colptr, int64_t *rowidx, double *v)
{
    spx_matrix *T = NULL;
    spx_status st = spx__check_matrix(A);
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
