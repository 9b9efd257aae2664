/* spx_matrix_wrap: a matrix over caller-owned CSR arrays of either index
 * width and value type. Values are borrowed as they are (fp64 or fp32), and
 * row offsets of either width: 32-bit ones stay the caller's (rowptr32) and
 * are read in place by the csr format and the core's scans; a format that
 * needs 64-bit offsets asks spx__matrix_rowptr, which widens them once into
 * a copy kept with the matrix. Columns are 32-bit whenever the column count
 * fits (formats rely on it), so 64-bit columns of a narrow matrix are
 * narrowed into a copy of nnz entries owned by the matrix; the common case
 * (scipy's int32 indptr and indices) copies nothing. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

spx_status spx__check_wrap_args(int64_t rows, int64_t cols, const void *rowptr, int rowptr_bits,
                                int col_bits, spx_type vtype)
{
    if (!rowptr) return spx__error(SPX_ERR_INVALID_ARG, "row offsets are NULL");
    if (rows < 0 || cols < 0 || rows == INT64_MAX)
        return spx__error(SPX_ERR_INVALID_ARG, "bad size %lld x %lld", (long long)rows,
                          (long long)cols);
    if ((rowptr_bits != 32 && rowptr_bits != 64) || (col_bits != 32 && col_bits != 64))
        return spx__error(SPX_ERR_INVALID_ARG, "index widths are 32 or 64 bits, not %d and %d",
                          rowptr_bits, col_bits);
    if (vtype != SPX_F64 && vtype != SPX_F32)
        return spx__error(SPX_ERR_UNSUPPORTED, "wrapped values are fp64 or fp32");
    if (col_bits == 32 && cols > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "32-bit column indices cannot address %lld columns", (long long)cols);
    return SPX_OK;
}

/* 32-bit columns borrowed; 64-bit ones borrowed for a wide matrix, else
 * narrowed into a copy (an index beyond 32 bits is then out of range). */
static spx_status columns(spx_matrix *M, const void *colidx, int bits)
{
    const int64_t *c64 = colidx;
    spx_status st;
    M->col_bits = bits == 64 && M->cols > INT32_MAX ? 64 : 32;
    if (bits == 32) {
        M->col32 = (int32_t *)colidx;
        return SPX_OK;
    }
    if (M->col_bits == 64) {
        M->col64 = (int64_t *)colidx;
        return SPX_OK;
    }
    st = spx__alloc((void **)&M->owned_col32, (size_t)M->nnz, sizeof(int32_t), "column indices");
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < M->nnz; k++) {
        if (c64[k] < 0 || c64[k] >= M->cols)
            return spx__error(SPX_ERR_INDEX_RANGE, "column index %lld at entry %lld is outside 0..%lld",
                              (long long)c64[k], (long long)k, (long long)M->cols - 1);
        M->owned_col32[k] = (int32_t)c64[k];
    }
    M->col32 = M->owned_col32;
    return SPX_OK;
}

spx_status spx_matrix_wrap(int64_t rows, int64_t cols, const void *rowptr, int rowptr_bits,
                           const void *colidx, int col_bits, const void *values, spx_type vtype,
                           spx_matrix **A)
{
    spx_matrix *M = NULL;
    spx_status st;
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *A = NULL;
    SPX_TRY(spx__check_wrap_args(rows, cols, rowptr, rowptr_bits, col_bits, vtype));
    SPX_TRY(spx__calloc((void **)&M, 1, sizeof *M, "matrix header"));
    M->magic = SPX__MATRIX_MAGIC;
    M->rows = rows;
    M->cols = cols;
    if (rowptr_bits == 32)
        M->rowptr32 = rowptr;
    else
        M->rowptr = (int64_t *)rowptr; /* SpX never writes through a matrix's arrays */
    M->nnz = spx__row_off(M, rows);
    if (M->nnz < 0) SPX_TRY(spx__error(SPX_ERR_BAD_ROWPTR, "negative nonzero count"));
    if (M->nnz > 0 && (!colidx || !values))
        SPX_TRY(spx__error(SPX_ERR_INVALID_ARG, "column indices or values are NULL"));
    SPX_TRY(columns(M, colidx, col_bits));
    M->vtype = vtype;
    M->values = (void *)values;
    M->owns_arrays = 0;
    SPX_TRY(spx_matrix_validate(M));
    *A = M;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx_matrix_destroy(M);
    return st;
}

spx_status spx__matrix_rowptr(const spx_matrix *A, const int64_t **rowptr)
{
    /* The widened copy is a cache, not part of the matrix: kept through a
     * const handle, published once with compare-exchange (release), read
     * with acquire. A thread that loses the race frees its copy. (GCC's
     * atomic builtins on a plain field, as for iso_state: matrix.h is also
     * read by the C++ of the CUDA part.) */
    spx_matrix *M = (spx_matrix *)A;
    int64_t *have = __atomic_load_n(&M->rowptr, __ATOMIC_ACQUIRE), *mine = NULL;
    *rowptr = NULL;
    if (A->dev.on) return spx__check_matrix(A, "host row offsets");
    if (!have) {
        spx_status st =
            spx__alloc((void **)&mine, (size_t)A->rows + 1, sizeof *mine, "widened row offsets");
        if (st != SPX_OK) return st;
        for (int64_t i = 0; i <= A->rows; i++)
            mine[i] = A->rowptr32[i];
        if (__atomic_compare_exchange_n(&M->rowptr, &have, mine, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            have = mine;
        else
            spx__free(mine);
    }
    *rowptr = have;
    return SPX_OK;
}
