/* The matrix object: CSR, 64-bit row offsets (or a caller's 32-bit ones,
 * borrowed), 32- or 64-bit column indices, fp64 or fp32 values. Internal
 * layout shared by every part of SpX.
 *
 * Row offsets: read one with spx__row_off (either width, never allocates),
 * or take the 64-bit array with spx__matrix_rowptr (widens a matrix's 32-bit
 * offsets once, kept with it). rowptr is read directly only by the code that
 * builds a matrix it owns.
 *
 * A device matrix (spx_matrix_wrap_device, core/wrap_device.c) holds the
 * caller's CUDA device arrays in dev and no host arrays at all (rowptr,
 * rowptr32, col32, col64 and values NULL): spx__check_matrix refuses it to
 * every host path, and only formats with device_matrix set (plan/format.h)
 * take it. A device C of a GPU SpGEMM is the same with dev.owned set: its
 * arrays are SpX's, freed by spx_matrix_destroy. */
#ifndef SPX_CORE_MATRIX_H
#define SPX_CORE_MATRIX_H

#include <stdint.h>

#include "spx.h"

#define SPX__MATRIX_MAGIC 0x5350584d41545249ull /* "SPXMATRI" */

struct spx_matrix_s {
    uint64_t magic;
    int64_t rows, cols, nnz;
    /* rows+1 offsets, rowptr[0] == 0. A matrix wrapping 32-bit offsets holds
     * the caller's in rowptr32 (borrowed) and rowptr NULL until
     * spx__matrix_rowptr widens them (the copy owned by the matrix); else
     * rowptr32 is NULL. */
    int64_t *rowptr;
    const int32_t *rowptr32;
    int32_t *col32;    /* column indices when col_bits == 32, else NULL */
    int64_t *col64;    /* column indices when col_bits == 64, else NULL */
    int col_bits;      /* 32 when cols <= INT32_MAX, else 64 */
    spx_type vtype;    /* SPX_F64 or SPX_F32 */
    void *values;      /* nnz values of vtype */
    int owns_arrays;   /* 0 for spx_matrix_wrap_csr and spx_matrix_wrap */
    int64_t *owned_rowptr; /* offsets a header owns while borrowing the other arrays (a
                              part's lines view, multi/partition.c), else NULL */
    int32_t *owned_col32;  /* spx_matrix_wrap of 64-bit columns that fit 32 bits: the
                              narrowed copy col32 points to, else NULL */
    /* spx_matrix_iso's answer, kept for matrices that own their values
     * (core/iso.c): SPX__ISO_UNKNOWN until the first call, then _YES with the
     * value in iso_value or _NO. Written once, read and written atomically,
     * so concurrent plans of one matrix may ask. */
    int iso_state;
    double iso_value;
    /* spx_spgemm_numeric on a device C of gpu-rows (cuda/spgemm/rows_memo.cu):
     * the product whose pattern C was found to have, as the plan's serial
     * (0: none yet) and the hash of B's pattern; and the memo of that
     * product, device memory listing each entry's products (one cudaMalloc
     * of memo_bytes, NULL where none was built), freed with C. */
    struct {
        uint64_t serial, hash;
        void *memo;
        size_t memo_bytes;
        int64_t products, n_long; /* the memo's products and entries of many */
        void *host_memo;          /* a host C's memo (cpu/spgemm_memo.c), or NULL */
        void (*host_memo_free)(void *); /* and what frees it */
    } numeric;
    /* spx_matrix_wrap_device: the caller's arrays on the GPU, borrowed; on == 0
     * for every other matrix. owned: SpX allocated them (a product's C:
     * spx__matrix_device_adopt) and spx_matrix_destroy frees them: 1 with
     * spx__cuda_alloc (cudaMalloc; spx__cuda_free), 2 from a stream-ordered
     * pool (spx__cuda_free_pooled). */
    struct {
        int on;
        int owned;
        const void *rowptr; /* rows+1 offsets of rowptr_bits (32 or 64) */
        int rowptr_bits;
        const int32_t *col32; /* nnz columns (may be NULL when nnz == 0) */
        const void *values;   /* nnz values of vtype (may be NULL when nnz == 0) */
    } dev;
};

enum { SPX__ISO_UNKNOWN = 0, SPX__ISO_YES = 1, SPX__ISO_NO = 2 };

/* A device matrix that owns its arrays: rows+1 64-bit row offsets, nnz
 * 32-bit columns and values of vtype, all allocated on the current device
 * with spx__cuda_alloc (cudaMalloc; pooled 0) or from a stream-ordered pool
 * (pooled 1). Takes them whatever happens: on failure (the header's
 * allocation) they are freed. (core/wrap_device.c) */
spx_status spx__matrix_device_adopt(int64_t rows, int64_t cols, int64_t nnz, int64_t *rowptr,
                                    int32_t *col32, void *values, spx_type vtype, int pooled,
                                    spx_matrix **A);

/* Check a handle on entry to a path that reads A's arrays on the host:
 * SPX_ERR_BAD_HANDLE for NULL or a bad magic, SPX_ERR_UNSUPPORTED naming
 * `who` for a device matrix. */
spx_status spx__check_matrix(const spx_matrix *A, const char *who);

/* The arguments of spx_matrix_wrap (and spx_matrix_wrap_device) that need no
 * array read: sizes, index widths, value type. (core/wrap.c) */
spx_status spx__check_wrap_args(int64_t rows, int64_t cols, const void *rowptr, int rowptr_bits,
                                int col_bits, spx_type vtype);

/* The handle alone (any matrix, device ones included): for paths that read
 * no array (spx_matrix_dims) or dispatch on where A lives (spx_plan_create). */
spx_status spx__check_matrix_handle(const spx_matrix *A);

/* New matrix owning freshly allocated arrays (values uninitialized, rowptr
 * uninitialized); col_bits chosen from cols. */
spx_status spx__matrix_alloc(int64_t rows, int64_t cols, int64_t nnz, spx_type vtype,
                             spx_matrix **A);

/* Row offset i of A (0 <= i <= rows), whatever its width: reads 32-bit
 * offsets in place. For scans outside the kernels. */
static inline int64_t spx__row_off(const spx_matrix *A, int64_t i)
{
    return A->rowptr32 ? (int64_t)A->rowptr32[i] : A->rowptr[i];
}

/* Distinct 8-column tiles (column / 8) of rows [r0, r1) (at most 8 rows) by
 * merging their sorted columns: each step takes the smallest tile left and
 * skips it in every row. (core/stats.c) */
int64_t spx__block_tiles8(const spx_matrix *A, int64_t r0, int64_t r1);

/* A's rows+1 offsets as 64-bit integers in *rowptr: A->rowptr, or for a
 * matrix wrapping 32-bit offsets their copy, widened on the first call and
 * kept with A until spx_matrix_destroy (concurrent plans of A may ask: one
 * copy is kept, the others freed). SPX_ERR_OOM when the copy cannot be made.
 * (core/wrap.c) */
spx_status spx__matrix_rowptr(const spx_matrix *A, const int64_t **rowptr);

/* Column index k of A, whatever its width. */
static inline int64_t spx__col(const spx_matrix *A, int64_t k)
{
    return A->col_bits == 32 ? (int64_t)A->col32[k] : A->col64[k];
}

/* Value k of A as double, whatever its type. */
static inline double spx__val(const spx_matrix *A, int64_t k)
{
    return A->vtype == SPX_F64 ? ((const double *)A->values)[k]
                               : (double)((const float *)A->values)[k];
}

/* Values of A as an array of type t: *out borrows A's array when the type
 * matches (*owned = NULL), else points at a converted copy (*owned = it,
 * free with spx__free). */
spx_status spx__values_as(const spx_matrix *A, spx_type t, const void **out, void **owned);
/* 1 when A == A^T exactly (square, and every a_ij has a_ji stored with the
 * same value, compared in A's value type), else 0 (stats.c). */
int spx__matrix_symmetric(const spx_matrix *A);
/* The first position of A's row i whose column is j or more (row i's end
 * when none; rows are sorted), by binary search (stats.c). */
int64_t spx__row_first_at_least(const spx_matrix *A, int64_t i, int64_t j);

/* Build a CSR matrix from triplets that may be unsorted and repeated;
 * duplicates summed. Arrays are borrowed. Used by the readers and generators. */
spx_status spx__csr_from_triplets(int64_t rows, int64_t cols, int64_t nnz,
                                  const int64_t *ri, const int64_t *ci, const double *v,
                                  spx_matrix **A);

#endif
