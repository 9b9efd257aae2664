/* What the GraphBLAS peers (graphblas.c: SpMV, graphblas_spgemm.c: SpGEMM,
 * graphblas_spmm.c: SpMM, graphblas_sddmm.c: SDDMM) share: GrB_init once,
 * lazily, on the first prepare (process-global; GrB_finalize is never
 * called, the bench runs to the end of the process), GraphBLAS's errors as
 * bench messages, a GrB_Matrix from a CSR view, and the caller's dense
 * arrays seen as GrB_Matrix objects for one call. */
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

/* SPX_OK when the dense operands of the shape so have leading dimension k,
 * else SPX_ERR_UNSUPPORTED naming peer: a full GraphBLAS matrix has none. */
spx_status grb_peer_full_shape(const char *peer, const spx_bench_spmm_peer_opts *so);

/* body(ctx) with arrays[i] (bytes[i] long, row-major) moved into the empty
 * shells *shells[i] (GrB_Matrix_new of their type and shape) without copying
 * (GxB_Matrix_pack_FullR, O(1)) and taken back after it
 * (GxB_Matrix_unpack_FullR), for i = 0, 1: the caller's dense operands as
 * full GrB_Matrix objects for one call, the shells empty again after. An
 * array GraphBLAS does not give back as it was given is a failure; a shell it
 * cannot unpack is dropped (NULL) rather than freed: freeing it would free
 * the caller's array. */
spx_status grb_peer_with_full(GrB_Matrix *const shells[2], void *const arrays[2],
                              const size_t bytes[2], GrB_Descriptor desc,
                              spx_status (*body)(void *ctx), void *ctx);

#define GRB_TRY(call)                                                                              \
    do {                                                                                           \
        GrB_Info info_ = (call);                                                                   \
        if (info_ != GrB_SUCCESS) BENCH_TRY(grb_peer_fail(info_, #call));                          \
    } while (0)

#endif
