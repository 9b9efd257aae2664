/* The bench's own CUDA helper (bench_cuda.cu, compiled by nvcc; in a build
 * without CUDA, bench_cuda_stubs.c answers SPX_ERR_NOT_COMPILED): device
 * memory and copies for the vectors the bench hands CUDA plans, and a device
 * sync that ends a timed batch. It calls the CUDA runtime directly, on the
 * current GPU (GPU 0 unless set_device chose another: an MPI rank's) and
 * the default stream, the ones SpX's CUDA plans use by default. A failure
 * is a bench_fail message with CUDA's text (SPX_ERR_DEVICE, SPX_ERR_OOM). */
#ifndef SPX_BENCH_CUDA_H
#define SPX_BENCH_CUDA_H

#include <stddef.h>

#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

spx_status bench_cuda_alloc(void **p, size_t bytes, const char *what); /* *p NULL on failure */
void bench_cuda_free(void *p);                                         /* NULL: nothing */
/* bytes from src to dst: host to device when to_device, else device to host. */
spx_status bench_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
/* A new device copy of bytes at host src (*dst NULL on failure). */
spx_status bench_cuda_upload(void **dst, const void *src, size_t bytes, const char *what);
spx_status bench_cuda_sync(void);
spx_status bench_cuda_set_device(int device); /* the calling thread's current GPU */

#ifdef __cplusplus
}
#endif
#endif
