/* The matrix object: creation from CSR (copy or wrap) and from triplets,
 * validation, accessors, copy with value conversion. Layout in matrix.h. */
#include "core/matrix.h"

#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"

spx_status spx__check_matrix_handle(const spx_matrix *A)
{
    if (!A) return spx__error(SPX_ERR_BAD_HANDLE, "matrix handle is NULL");
    if (A->magic != SPX__MATRIX_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "matrix handle is freed or not a matrix");
    return SPX_OK;
}

spx_status spx__check_matrix(const spx_matrix *A, const char *who)
{
    spx_status st = spx__check_matrix_handle(A);
    if (st != SPX_OK || !A->dev.on) return st;
    return spx__error(SPX_ERR_UNSUPPORTED,
                      "%s: a device matrix (spx_matrix_wrap_device, or a GPU SpGEMM's C) has no "
                      "host arrays: it is read on the GPU only, by CUDA SpMV and SpGEMM plans "
                      "(spx_plan_create, SPX_DEV_CUDA)",
                      who);
}

static size_t type_size(spx_type t) { return t == SPX_F32 ? sizeof(float) : sizeof(double); }

static spx_status check_dims(int64_t rows, int64_t cols, int64_t nnz)
{
    if (rows < 0 || cols < 0 || nnz < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "negative size (%lld x %lld, %lld nonzeros)",
                          (long long)rows, (long long)cols, (long long)nnz);
    if (rows == INT64_MAX)
        return spx__error(SPX_ERR_OVERFLOW, "row count %lld leaves no room for offsets",
                          (long long)rows);
    return SPX_OK;
}

spx_status spx__matrix_alloc(int64_t rows, int64_t cols, int64_t nnz, spx_type vtype,
                             spx_matrix **out)
{
    spx_status st = check_dims(rows, cols, nnz);
    spx_matrix *A = NULL;
    *out = NULL;
    if (st != SPX_OK) return st;
    if (vtype != SPX_F64 && vtype != SPX_F32)
        return spx__error(SPX_ERR_UNSUPPORTED, "matrices hold fp64 or fp32 values");
    SPX_TRY(spx__calloc((void **)&A, 1, sizeof *A, "matrix header"));
    A->rows = rows;
    A->cols = cols;
    A->nnz = nnz;
    A->vtype = vtype;
    A->col_bits = cols <= INT32_MAX ? 32 : 64;
    A->owns_arrays = 1;
    A->magic = SPX__MATRIX_MAGIC;
    SPX_TRY(spx__alloc((void **)&A->rowptr, (size_t)rows + 1, sizeof(int64_t), "row offsets"));
    A->rowptr[0] = 0;
    if (A->col_bits == 32)
        SPX_TRY(spx__alloc((void **)&A->col32, (size_t)nnz, sizeof(int32_t), "column indices"));
    else
        SPX_TRY(spx__alloc((void **)&A->col64, (size_t)nnz, sizeof(int64_t), "column indices"));
    SPX_TRY(spx__alloc(&A->values, (size_t)nnz, type_size(vtype), "values"));
    *out = A;
    return SPX_OK;
cleanup:
    spx_matrix_destroy(A);
    return st;
}

void spx_matrix_destroy(spx_matrix *A)
{
    if (!A || A->magic != SPX__MATRIX_MAGIC) return;
    spx__free(A->owned_rowptr);
    spx__free(A->owned_col32);
    if (A->rowptr32) spx__free(A->rowptr); /* the widened copy, if one was made */
    spx__cuda_free(A->numeric.memo);
    if (A->numeric.host_memo_free) A->numeric.host_memo_free(A->numeric.host_memo);
    if (A->dev.on && A->dev.owned) {
        void *a[] = {(void *)A->dev.rowptr, (void *)A->dev.col32, (void *)A->dev.values};
        for (int k = 0; k < 3; k++)
            if (A->dev.owned == 2)
                spx__cuda_free_pooled(a[k]);
            else
                spx__cuda_free(a[k]);
    }
    if (A->owns_arrays) {
        spx__free(A->rowptr);
        spx__free(A->col32);
        spx__free(A->col64);
        spx__free(A->values);
    }
    A->magic = 0;
    spx__free(A);
}

spx_status spx_matrix_validate(const spx_matrix *A)
{
    spx_status st = spx__check_matrix(A, "spx_matrix_validate");
    if (st != SPX_OK) return st;
    if (spx__row_off(A, 0) != 0)
        return spx__error(SPX_ERR_BAD_ROWPTR, "row offsets start at %lld, not 0",
                          (long long)spx__row_off(A, 0));
    for (int64_t i = 0; i < A->rows; i++) {
        int64_t b = spx__row_off(A, i), e = spx__row_off(A, i + 1);
        if (e < b || e > A->nnz)
            return spx__error(SPX_ERR_BAD_ROWPTR,
                              "row offsets of row %lld run from %lld to %lld (nnz %lld)",
                              (long long)i, (long long)b, (long long)e, (long long)A->nnz);
        for (int64_t k = b; k < e; k++) {
            int64_t j = spx__col(A, k);
            if (j < 0 || j >= A->cols)
                return spx__error(SPX_ERR_INDEX_RANGE,
                                  "column %lld of row %lld is outside 0..%lld", (long long)j,
                                  (long long)i, (long long)A->cols - 1);
            if (k > b && j <= spx__col(A, k - 1))
                return spx__error(j == spx__col(A, k - 1) ? SPX_ERR_DUPLICATE : SPX_ERR_UNSORTED,
                                  "row %lld: column %lld follows column %lld", (long long)i,
                                  (long long)j, (long long)spx__col(A, k - 1));
        }
    }
    if (spx__row_off(A, A->rows) != A->nnz)
        return spx__error(SPX_ERR_BAD_ROWPTR, "last row offset %lld differs from nnz %lld",
                          (long long)spx__row_off(A, A->rows), (long long)A->nnz);
    return SPX_OK;
}

/* Shared argument checks of the CSR constructors; nnz taken from rowptr. */
static spx_status check_csr_args(int64_t rows, int64_t cols, const int64_t *rowptr,
                                 const int32_t *colidx, spx_matrix **A, int64_t *nnz)
{
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *A = NULL;
    if (!rowptr) return spx__error(SPX_ERR_INVALID_ARG, "row offsets are NULL");
    spx_status st = check_dims(rows, cols, 0);
    if (st != SPX_OK) return st;
    if (cols > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "32-bit column indices cannot address %lld columns; use "
                          "spx_matrix_from_coo", (long long)cols);
    *nnz = rowptr[rows];
    if (*nnz < 0) return spx__error(SPX_ERR_BAD_ROWPTR, "negative nonzero count");
    if (*nnz > 0 && !colidx) return spx__error(SPX_ERR_INVALID_ARG, "column indices are NULL");
    return SPX_OK;
}

spx_status spx_matrix_create_csr(int64_t rows, int64_t cols, const int64_t *rowptr,
                                 const int32_t *colidx, const double *values, spx_matrix **A)
{
    int64_t nnz = 0;
    spx_matrix *M = NULL;
    spx_status st = check_csr_args(rows, cols, rowptr, colidx, A, &nnz);
    if (st != SPX_OK) return st;
    SPX_TRY(spx__matrix_alloc(rows, cols, nnz, SPX_F64, &M));
    memcpy(M->rowptr, rowptr, ((size_t)rows + 1) * sizeof *rowptr);
    if (nnz) memcpy(M->col32, colidx, (size_t)nnz * sizeof *colidx);
    double *v = M->values;
    for (int64_t k = 0; k < nnz; k++) v[k] = values ? values[k] : 1.0;
    SPX_TRY(spx_matrix_validate(M));
    *A = M;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx_matrix_destroy(M);
    return st;
}

spx_status spx_matrix_wrap_csr(int64_t rows, int64_t cols, const int64_t *rowptr,
                               const int32_t *colidx, const double *values, spx_matrix **A)
{
    /* spx_matrix_wrap's case of 64-bit offsets, 32-bit columns, fp64 values */
    return spx_matrix_wrap(rows, cols, rowptr, 64, colidx, 32, values, SPX_F64, A);
}

spx_status spx_matrix_from_coo(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                               const int64_t *ci, const double *v, spx_matrix **A)
{
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *A = NULL;
    spx_status st = check_dims(rows, cols, nnz);
    if (st != SPX_OK) return st;
    if (nnz > 0 && (!ri || !ci))
        return spx__error(SPX_ERR_INVALID_ARG, "coordinate arrays are NULL");
    for (int64_t k = 0; k < nnz; k++) {
        if (ri[k] < 0 || ri[k] >= rows || ci[k] < 0 || ci[k] >= cols)
            return spx__error(SPX_ERR_INDEX_RANGE,
                              "entry %lld at (%lld, %lld) is outside the %lld x %lld matrix",
                              (long long)k, (long long)ri[k], (long long)ci[k],
                              (long long)rows, (long long)cols);
    }
    st = spx__csr_from_triplets(rows, cols, nnz, ri, ci, v, A);
    if (st == SPX_OK) spx__clear_error();
    return st;
}

spx_status spx_matrix_dims(const spx_matrix *A, int64_t *rows, int64_t *cols, int64_t *nnz)
{
    spx_status st = spx__check_matrix_handle(A);
    if (st != SPX_OK) return st;
    if (rows) *rows = A->rows;
    if (cols) *cols = A->cols;
    if (nnz) *nnz = A->nnz;
    return SPX_OK;
}

spx_status spx_matrix_csr(const spx_matrix *A, const int64_t **rowptr, const void **colidx,
                          int *col_bits, const void **values, spx_type *value_type)
{
    spx_status st = spx__check_matrix(A, "spx_matrix_csr");
    if (st != SPX_OK) return st;
    if (rowptr) st = spx__matrix_rowptr(A, rowptr);
    if (st != SPX_OK) return st;
    if (colidx) *colidx = A->col_bits == 32 ? (const void *)A->col32 : (const void *)A->col64;
    if (col_bits) *col_bits = A->col_bits;
    if (values) *values = A->values;
    if (value_type) *value_type = A->vtype;
    return SPX_OK;
}

spx_status spx_matrix_row_offsets(const spx_matrix *A, const void **rowptr, int *bits)
{
    spx_status st = spx__check_matrix(A, "spx_matrix_row_offsets");
    if (st != SPX_OK) return st;
    if (!rowptr || !bits) return spx__error(SPX_ERR_INVALID_ARG, "row offsets outputs are NULL");
    *rowptr = A->rowptr32 ? (const void *)A->rowptr32 : (const void *)A->rowptr;
    *bits = A->rowptr32 ? 32 : 64;
    return SPX_OK;
}

spx_status spx__values_as(const spx_matrix *A, spx_type t, const void **out, void **owned)
{
    *owned = NULL;
    if (t == A->vtype) {
        *out = A->values;
        return SPX_OK;
    }
    if (t != SPX_F64 && t != SPX_F32)
        return spx__error(SPX_ERR_UNSUPPORTED, "value conversion to type %d", (int)t);
    spx_status st = spx__alloc(owned, (size_t)A->nnz, type_size(t), "converted values");
    if (st != SPX_OK) return st;
    if (t == SPX_F64) {
        double *d = *owned;
        for (int64_t k = 0; k < A->nnz; k++) d[k] = ((const float *)A->values)[k];
    } else {
        float *f = *owned;
        for (int64_t k = 0; k < A->nnz; k++) f[k] = (float)((const double *)A->values)[k];
    }
    *out = *owned;
    return SPX_OK;
}

spx_status spx_matrix_copy(const spx_matrix *A, spx_type t, spx_matrix **B)
{
    spx_matrix *M = NULL;
    const void *vals = NULL;
    void *conv = NULL;
    spx_status st = spx__check_matrix(A, "spx_matrix_copy");
    if (st != SPX_OK) return st;
    if (!B) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *B = NULL;
    SPX_TRY(spx__matrix_alloc(A->rows, A->cols, A->nnz, t, &M));
    SPX_TRY(spx__values_as(A, t, &vals, &conv));
    for (int64_t i = 0; i <= A->rows; i++)
        M->rowptr[i] = spx__row_off(A, i);
    if (A->col_bits == 32)
        memcpy(M->col32, A->col32, (size_t)A->nnz * sizeof(int32_t));
    else
        memcpy(M->col64, A->col64, (size_t)A->nnz * sizeof(int64_t));
    memcpy(M->values, vals, (size_t)A->nnz * type_size(t));
    *B = M;
    M = NULL;
    spx__clear_error();
cleanup:
    spx__free(conv);
    spx_matrix_destroy(M);
    return st;
}
