/* What the GraphBLAS peers (graphblas.c: SpMV, graphblas_spgemm.c: SpGEMM,
 * graphblas_spmm.c: SpMM) share: GrB_init once, lazily, on the first
 * prepare (process-global; GrB_finalize is never called, the bench runs to
 * the end of the process), GraphBLAS's errors as bench messages, and a
 * GrB_Matrix from a CSR view. */
#ifndef SPX_BENCH_PEERS_GRAPHBLAS_PEER_H
#define SPX_BENCH_PEERS_GRAPHBLAS_PEER_H

#include <GraphBLAS.h>

#include "bench_internal.h"

spx_status grb_peer_fail(GrB_Info info, const char *call);
spx_status grb_peer_init(void);
/* GrB_Matrix_import_FP64 of A's CSR (GraphBLAS copies it, by row), then
 * GrB_Matrix_wait so that no pending work is left for the first product. */
spx_status grb_peer_matrix(const bench_csr *A, GrB_Matrix *M);
/* The same with values of precision t: GrB_FP64 for SPX_F64, GrB_FP32
 * (A's values rounded to float) for SPX_F32. */
spx_status grb_peer_matrix_of(const bench_csr *A, spx_type t, GrB_Matrix *M);

#define GRB_TRY(call)                                                                              \
    do {                                                                                           \
        GrB_Info info_ = (call);                                                                   \
        if (info_ != GrB_SUCCESS) BENCH_TRY(grb_peer_fail(info_, #call));                          \
    } while (0)

#endif
