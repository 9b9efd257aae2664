/* A read-only view of a public matrix's CSR arrays (spx_matrix_csr), and its
 * values as doubles for peers that take fp64 only. */
#include <stdlib.h>

#include "bench_internal.h"

spx_status bench_csr_view(const spx_matrix *A, bench_csr *v)
{
    spx_status st = bench_lib(spx_matrix_dims(A, &v->rows, &v->cols, &v->nnz));
    if (st != SPX_OK) return st;
    return bench_lib(
        spx_matrix_csr(A, &v->rowptr, &v->colidx, &v->col_bits, &v->values, &v->vtype));
}

spx_status bench_values_f64(const bench_csr *v, const double **vals, double **owned)
{
    *owned = NULL;
    if (v->vtype == SPX_F64) {
        *vals = v->values;
        return SPX_OK;
    }
    spx_status st = bench_alloc((void **)owned, (size_t)v->nnz, sizeof **owned, "values as f64");
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < v->nnz; k++)
        (*owned)[k] = bench_val(v, k);
    *vals = *owned;
    return SPX_OK;
}
