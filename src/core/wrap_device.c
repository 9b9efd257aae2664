/* spx_matrix_wrap_device: a matrix over a caller's CSR arrays in CUDA device
 * memory (cupyx.scipy.sparse's, or any cudaMalloc'd ones), borrowed as they
 * are. The header holds no host array (matrix.h): every host path refuses it
 * (spx__check_matrix), and only formats that take device matrices plan it.
 * Validation is what costs no pass over the nonzeros: each array is device
 * memory of the current device, and the row offsets, copied to the host
 * (rows+1 entries), start at 0 and never decrease; nnz is the last. The
 * columns are not read: their range, order and duplicates are the caller's
 * promise.
 * Also the device matrices SpX owns (a GPU SpGEMM's C: adopt) and the
 * accessor of any device matrix's arrays (spx_matrix_device_csr). */
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/gateway.h"

/* spx_matrix_wrap's checks, and 32-bit columns (the kernels read them in
 * place). */
static spx_status check_wrap_args(int64_t rows, int64_t cols, const void *rowptr, int rowptr_bits,
                                  int col_bits, spx_type vtype)
{
    spx_status st = spx__check_wrap_args(rows, cols, rowptr, rowptr_bits, col_bits, vtype);
    if (st == SPX_OK && col_bits != 32)
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "spx_matrix_wrap_device takes 32-bit column indices (the CUDA kernels "
                        "read them in place), not 64-bit ones");
    return st;
}

/* The row offsets, copied to the host and checked; *nnz the last. */
static spx_status check_offsets(const void *rowptr, int bits, int64_t rows, int64_t *nnz)
{
    int64_t *h = NULL;
    spx_status st = SPX_OK;
    SPX_TRY(spx__alloc((void **)&h, (size_t)rows + 1, sizeof *h, "row offsets (host copy)"));
    SPX_TRY(spx__cuda_offsets_to_host(h, rowptr, bits, rows + 1));
    if (h[0] != 0)
        SPX_TRY(
            spx__error(SPX_ERR_BAD_ROWPTR, "row offsets start at %lld, not 0", (long long)h[0]));
    for (int64_t i = 0; i < rows; i++)
        if (h[i + 1] < h[i])
            SPX_TRY(spx__error(SPX_ERR_BAD_ROWPTR, "row offsets of row %lld run from %lld to %lld",
                               (long long)i, (long long)h[i], (long long)h[i + 1]));
    *nnz = h[rows];
cleanup:
    spx__free(h);
    return st;
}

/* A device matrix's header over the arrays (borrowed unless the caller sets
 * dev.owned). */
static void fill_header(spx_matrix *M, int64_t rows, int64_t cols, int64_t nnz, const void *rowptr,
                        int rowptr_bits, const void *colidx, const void *values, spx_type vtype)
{
    M->magic = SPX__MATRIX_MAGIC;
    M->rows = rows;
    M->cols = cols;
    M->nnz = nnz;
    M->col_bits = 32;
    M->vtype = vtype;
    M->owns_arrays = 0;
    M->dev.on = 1;
    M->dev.rowptr = rowptr;
    M->dev.rowptr_bits = rowptr_bits;
    M->dev.col32 = colidx;
    M->dev.values = values;
}

spx_status spx_matrix_wrap_device(int64_t rows, int64_t cols, const void *rowptr, int rowptr_bits,
                                  const void *colidx, int col_bits, const void *values,
                                  spx_type vtype, spx_matrix **A)
{
    spx_matrix *M = NULL;
    int64_t nnz = 0;
    spx_status st = SPX_OK;
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *A = NULL;
    SPX_TRY(check_wrap_args(rows, cols, rowptr, rowptr_bits, col_bits, vtype));
    if (!spx__cuda_compiled())
        SPX_TRY(spx__error(SPX_ERR_NOT_COMPILED,
                           "spx_matrix_wrap_device: SpX was built without CUDA (SPX_CUDA=OFF)"));
    if (spx__cuda_device_count() == 0)
        SPX_TRY(spx__error(SPX_ERR_NO_DEVICE, "spx_matrix_wrap_device: no CUDA device is "
                                              "available (no GPU seen, or no usable driver)"));
    SPX_TRY(spx__cuda_device_array(rowptr, "row offsets"));
    SPX_TRY(check_offsets(rowptr, rowptr_bits, rows, &nnz));
    if (nnz > 0) {
        if (!colidx || !values)
            SPX_TRY(spx__error(SPX_ERR_INVALID_ARG, "column indices or values are NULL"));
        SPX_TRY(spx__cuda_device_array(colidx, "column indices"));
        SPX_TRY(spx__cuda_device_array(values, "values"));
    }
    SPX_TRY(spx__calloc((void **)&M, 1, sizeof *M, "matrix header"));
    fill_header(M, rows, cols, nnz, rowptr, rowptr_bits, colidx, values, vtype);
    *A = M;
    spx__clear_error();
cleanup:
    return st;
}

spx_status spx__matrix_device_adopt(int64_t rows, int64_t cols, int64_t nnz, int64_t *rowptr,
                                    int32_t *col32, void *values, spx_type vtype, int pooled,
                                    spx_matrix **A)
{
    spx_matrix *M = NULL;
    spx_status st = spx__calloc((void **)&M, 1, sizeof *M, "device matrix header");
    *A = NULL;
    if (st != SPX_OK) {
        void *a[] = {rowptr, col32, values};
        for (int k = 0; k < 3; k++)
            if (pooled)
                spx__cuda_free_pooled(a[k]);
            else
                spx__cuda_free(a[k]);
        return st;
    }
    fill_header(M, rows, cols, nnz, rowptr, 64, col32, values, vtype);
    M->dev.owned = pooled ? 2 : 1;
    *A = M;
    return SPX_OK;
}

spx_status spx_matrix_device_csr(const spx_matrix *A, const void **rowptr, int *rowptr_bits,
                                 const void **colidx, const void **values, spx_type *vtype)
{
    spx_status st = spx__check_matrix_handle(A);
    if (st != SPX_OK) return st;
    if (!A->dev.on)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_matrix_device_csr: a host matrix; its arrays are spx_matrix_csr's "
                          "(or spx_matrix_row_offsets')");
    if (rowptr) *rowptr = A->dev.rowptr;
    if (rowptr_bits) *rowptr_bits = A->dev.rowptr_bits;
    if (colidx) *colidx = A->dev.col32;
    if (values) *values = A->dev.values;
    if (vtype) *vtype = A->vtype;
    return SPX_OK;
}
