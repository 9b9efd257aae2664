/* The CUDA CSR format's prepared form and its kernel launcher (csr_spmv.cu;
 * stubs.c without CUDA).
 *
 * y = alpha*A*x + beta*y over the device CSR. Rows of length <= long_len are
 * done by groups of `group` lanes (1..32, a power of two chosen from the mean
 * row length), one row per group. Longer rows are cut into chunks of at most
 * SPX__CUDA_CSR_CHUNK nonzeros; a warp sums each chunk into partial[c], then
 * a warp per long row adds its chunks in order (deterministic) and writes y. */
#ifndef SPX_CUDA_CSR_KERNELS_H
#define SPX_CUDA_CSR_KERNELS_H

#include <stdint.h>

#include "cuda/gateway.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_CSR_CHUNK 1024

typedef struct spx__cuda_csr_plan {
    spx__cuda_csr A;     /* device CSR; values in the plan's precision */
    spx_type precision;  /* F64: double x, y; F32: float; F16: half values, float x, y */
    int group;           /* lanes per row for rows up to long_len: 1, 2, 4, 8, 16, 32 */
    int64_t long_len;    /* rows longer than this go to the chunk kernels */
    int64_t n_long;      /* number of long rows */
    int64_t n_chunks;    /* chunks over all long rows */
    int64_t *long_rows;  /* device, n_long: row index of each long row */
    int64_t *long_first; /* device, n_long+1: first chunk of each long row */
    int64_t *chunk_beg;  /* device, n_chunks: first nonzero of each chunk */
    int64_t *chunk_end;  /* device, n_chunks: one past its last nonzero */
    void *partial;       /* device, n_chunks sums (double for F64, else float);
                            scratch written by each call, so calls on one plan are
                            ordered by its one stream */
    void *stream;        /* cudaStream_t of the plan (NULL = default stream) */
} spx__cuda_csr_plan;

/* Launch the kernels for y = alpha*A*x + beta*y on p->stream (asynchronous);
 * beta == 0 never reads y. x and y are device vectors of the plan's precision. */
spx_status spx__cuda_csr_spmv(const spx__cuda_csr_plan *p, double alpha, const void *x,
                              double beta, void *y);

#ifdef __cplusplus
}
#endif
#endif
