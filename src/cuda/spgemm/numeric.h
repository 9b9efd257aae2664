/* Repeated GPU SpGEMM with one pattern (spx_spgemm_numeric), the device side
 * (numeric.cu): a device C whose values are taken from a new product T when
 * T has C's pattern, for the formats that run the whole product again
 * (plan/spgemm_numeric.c). gpu-rows' own numeric phase is in rows_run.cu.
 * csr_refill: T and C device matrices of SpX's GPU SpGEMM layout (64-bit
 * offsets, 32-bit columns, fp64 values; SPX_ERR_UNSUPPORTED for another C);
 * SPX_ERR_INVALID_ARG, C untouched, where their offsets or columns differ;
 * waits for the copy. */
#ifndef SPX_CUDA_SPGEMM_NUMERIC_H
#define SPX_CUDA_SPGEMM_NUMERIC_H

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_SPGEMM_NUMERIC_API(S, Q, V)                                                      \
    S(spx__cuda_csr_refill, (const spx_matrix *T, spx_matrix *C))

SPX__CUDA_DECLARE(SPX__CUDA_SPGEMM_NUMERIC_API)

#ifdef __cplusplus
}
#endif
#endif
