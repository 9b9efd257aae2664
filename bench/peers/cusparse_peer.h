/* What the cuSPARSE peers (cusparse.cu: SpMV, cusparse_spgemm.cu: SpGEMM,
 * cusparse_spmm.cu: SpMM, cusparse_sddmm.cu: SDDMM) share, on cuSPARSE and
 * the CUDA runtime directly: errors as bench messages (a CUDA allocation
 * failure and cuSPARSE's INSUFFICIENT_RESOURCES are SPX_ERR_OOM,
 * NOT_SUPPORTED is SPX_ERR_UNSUPPORTED), A's CSR on the device with 32-bit
 * offsets and columns and values in the precision, and alpha and beta in
 * the compute type. */
#ifndef SPX_BENCH_PEERS_CUSPARSE_PEER_H
#define SPX_BENCH_PEERS_CUSPARSE_PEER_H

#include <cuda_runtime.h>
#include <cusparse.h>

extern "C" {
#include "bench_internal.h"
#include "peers.h"
}

spx_status cusparse_peer_sp_fail(cusparseStatus_t s, const char *call);
spx_status cusparse_peer_cu_fail(cudaError_t e, const char *call);

#define SP_TRY(call)                                                                               \
    do {                                                                                           \
        cusparseStatus_t s_ = (call);                                                              \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                       \
            st = cusparse_peer_sp_fail(s_, #call);                                                 \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

#define CU_TRY(call)                                                                               \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            st = cusparse_peer_cu_fail(e_, #call);                                                 \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

/* cudaMalloc of bytes (at least 1), *p NULL on failure. */
spx_status cusparse_peer_alloc(void **p, size_t bytes, const char *what);
void cusparse_peer_free(void *p); /* NULL: nothing */

/* A's CSR on the device: int32 offsets (rows + 1) and columns, values in t
 * (fp16: IEEE half, declining a value beyond half's range). SPX_ERR_UNSUPPORTED
 * when A needs 64-bit indices. Frees what it made on failure. */
spx_status cusparse_peer_upload(const bench_csr &A, spx_type t, void **rp, void **ci, void **val);

/* Bytes of one value of type t on the device (f64 8, f32 4, f16 2). */
size_t cusparse_peer_value_bytes(spx_type t);

/* alpha or beta as cuSPARSE reads it (host pointer mode), in the compute
 * type ct: double for CUDA_R_64F, else float. */
struct cusparse_peer_scalar {
    double d;
    float f;
    explicit cusparse_peer_scalar(double v) : d(v), f((float)v) {}
    const void *in(cudaDataType ct) const
    {
        return ct == CUDA_R_64F ? (const void *)&d : (const void *)&f;
    }
};

#endif
