/* A device matrix as the SpGEMM kernels read it (device_view.h). */
#include <stdio.h>

#include "core/error.h"
#include "cuda/spgemm/device_view.h"

spx_status spx__cuda_device_view(const spx_matrix *M, const char *who, spx__cuda_csr *view,
                                 spx__cuda_csr *held)
{
    spx_status st = SPX_OK;
    char what[96];
    const spx__cuda_csr sizes = {M->rows, M->cols, M->nnz, NULL, NULL, NULL, SPX_F64};
    *held = sizes;
    if (M->dev.rowptr_bits == 32)
        SPX_TRY(spx__cuda_widen_offsets(&held->rowptr, M->dev.rowptr, M->rows + 1));
    if (M->vtype != SPX_F64 && M->nnz > 0) {
        snprintf(what, sizeof what, "%s: device values as fp64", who);
        SPX_TRY(spx__cuda_convert_values(&held->values, M->dev.values, M->vtype, M->nnz, SPX_F64,
                                         what));
    }
    *view = sizes;
    view->rowptr = held->rowptr ? held->rowptr : (int64_t *)M->dev.rowptr;
    view->colidx = (int32_t *)M->dev.col32; /* read only, as every operand */
    view->values = held->values ? held->values : (void *)M->dev.values;
    return SPX_OK;
cleanup:
    spx__cuda_csr_free(held);
    return st;
}
