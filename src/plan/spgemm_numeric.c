/* spx_spgemm_numeric by the whole product, for the formats and operand
 * places without a numeric phase of their own: C' = A*B, then C's values
 * from C' where C' has C's pattern (the same row offsets and columns), C'
 * freed. A device C is compared and filled on the device
 * (spx__cuda_csr_refill). */
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/spgemm/numeric.h"
#include "plan/format.h"

/* Whether host matrices T and C have the same row offsets and columns. */
static int same_host_pattern(const spx_matrix *T, const spx_matrix *C)
{
    if (T->rows != C->rows || T->cols != C->cols || T->nnz != C->nnz) return 0;
    for (int64_t i = 0; i <= C->rows; i++)
        if (spx__row_off(T, i) != spx__row_off(C, i)) return 0;
    for (int64_t k = 0; k < C->nnz; k++)
        if (spx__col(T, k) != spx__col(C, k)) return 0;
    return 1;
}

/* C's values = T's, in C's value type. */
static void copy_host_values(const spx_matrix *T, spx_matrix *C)
{
    for (int64_t k = 0; k < C->nnz; k++)
        if (C->vtype == SPX_F64)
            ((double *)C->values)[k] = spx__val(T, k);
        else
            ((float *)C->values)[k] = (float)spx__val(T, k);
}

static spx_status refill_host(const spx_matrix *T, spx_matrix *C)
{
    spx_status st = spx__check_matrix(C, "spx_spgemm_numeric (C)");
    if (st != SPX_OK) return st;
    if (!same_host_pattern(T, C))
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_spgemm_numeric: A*B has %lld entries in another pattern than C's "
                          "%lld: B's pattern is not the one that made C (or exact zeros fell "
                          "elsewhere, for a format that drops them)",
                          (long long)T->nnz, (long long)C->nnz);
    copy_host_values(T, C);
    return SPX_OK;
}

spx_status spx__spgemm_refill(const spx_format_ops *f, void *state, const spx_matrix *B,
                              spx_matrix *C)
{
    spx_matrix *T = NULL;
    spx_status st = f->spgemm(state, B, &T);
    if (st == SPX_OK) st = C->dev.on ? spx__cuda_csr_refill(T, C) : refill_host(T, C);
    spx_matrix_destroy(T);
    return st;
}
