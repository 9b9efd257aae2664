/* What the CUDA SpGEMM formats (tsparse, gpu-rows) share on the device side
 * (spgemm_dev.cu): stream-ordered memory (cudaMallocAsync, so that the many
 * short-lived buffers of a product cost no device-wide synchronisation; a
 * failure is SPX_ERR_OOM with the bytes), CUB's prefix sum, copies to the
 * host, and C's CSR moved into a new host matrix. Every function runs on
 * the stream s; those that return host values wait for it. */
#ifndef SPX_CUDA_SPGEMM_DEV_CUH
#define SPX_CUDA_SPGEMM_DEV_CUH

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
}

namespace spgemm_dev {

constexpr unsigned FULL = 0xffffffffu; /* every lane of a warp */

spx_status dev_alloc(void **p, size_t bytes, const char *what, cudaStream_t s);
/* Which pool dev_alloc takes from on the calling thread: SpX's own pool of
 * the current device, which keeps up to POOL_KEEP bytes it holds unused
 * across synchronisations (on, the default), or the device's default pool,
 * whose release threshold of 0 gives every unused byte back at each host
 * wait, so that the next allocation maps memory again (off: gpu-rows'
 * pool=release, for measuring). Returns the previous setting. */
bool pool_keep(bool on);
bool pool_kept(void);
template <typename T> spx_status dev_alloc_n(T **p, int64_t n, const char *what, cudaStream_t s)
{
    return dev_alloc((void **)p, (size_t)(n > 0 ? n : 1) * sizeof(T), what, s);
}
void dev_free(void *p, cudaStream_t s); /* NULL is a no-op */

/* SPX_ERR_DEVICE naming what when the last launch failed. */
spx_status launched(const char *what);
/* The same for a runtime call's result. */
spx_status cuda_ok(cudaError_t e, const char *what);

/* out[0..n] = exclusive prefix sum of in[0..n-1], out[n] the total (out has
 * n + 1 entries and is not in). */
spx_status exclusive_sum(const int64_t *in, int64_t *out, int64_t n, cudaStream_t s);
/* *value = src[0] on the host (waits). */
spx_status fetch_i64(const int64_t *src, int64_t *value, cudaStream_t s);
/* bytes from the device to the host (waits). */
spx_status download(void *dst, const void *src, size_t bytes, cudaStream_t s);

/* C's CSR from the device (rowptr rows + 1 entries starting at 0, 32-bit
 * columns, double values) to the host in steps, so that the host's part
 * overlaps the GPU's: a new host matrix for C (nnz entries, fp64, 32-bit
 * columns), the pages of its columns and values touched by every core
 * (spx__parallel_touch, which overwrites them: call it while the GPU still
 * computes C; the row offsets are left alone), and C's arrays copied into
 * it. */
spx_status host_csr_alloc(int64_t rows, int64_t cols, int64_t nnz, spx_matrix **C);
/* bytes from the device to the host through the pinned staging pair (a
 * plain copy for small ones); waits. */
spx_status download_to_host(void *dst, const void *src, size_t bytes, cudaStream_t s);
void host_csr_touch(spx_matrix *C);
spx_status csr_download(spx_matrix *C, const int64_t *rowptr, const int32_t *col,
                        const double *val, cudaStream_t s);

/* Blocks of `block` threads for n threads, at least 1, at most 2^31 - 1
 * (kernels loop past it). */
unsigned blocks_for(int64_t n, int block);

/* Patterns of repeated products (numeric.cu), each waiting for s:
 * pattern_hash: a 64-bit hash of a CSR pattern (rows + 1 offsets, nnz
 * columns): the sum over every offset and column of a mix of its position
 * and value, so blocks may add their parts in any order;
 * counts_match: whether cnt[i] == rowptr[i + 1] - rowptr[i] for every row;
 * row_counts: cnt[i] = rowptr[i + 1] - rowptr[i] (no wait). */
spx_status pattern_hash(const int64_t *rowptr, const int32_t *col, int64_t rows, int64_t nnz,
                        cudaStream_t s, uint64_t *hash);
/* The same hash into work[0], queued on s (no wait): work holds HASH_WORDS
 * words, the last two 0 before (zero them once) and after. */
constexpr int HASH_WORDS = 3;
spx_status pattern_hash_queue(const int64_t *rowptr, const int32_t *col, int64_t rows, int64_t nnz,
                              unsigned long long *work, cudaStream_t s);
spx_status counts_match(const int64_t *cnt, const int64_t *rowptr, int64_t rows, cudaStream_t s,
                        bool *match);
spx_status row_counts(const int64_t *rowptr, int64_t rows, int64_t *cnt, cudaStream_t s);

/* Bytes of device memory free now. */
size_t free_bytes(void);

/* Phase timing for finding where a product's time goes: with the
 * environment variable SPX_SPGEMM_TRACE set (to anything), trace() waits
 * for s and prints to stderr "spgemm trace: PHASE MS", the wall time since
 * the previous trace() (or trace_start()) of this thread. Off, it costs one
 * cached test and changes nothing. */
void trace_start(void);
void trace(const char *phase, cudaStream_t s);

} // namespace spgemm_dev

#endif
