/* The C gateway to SpX's CUDA code. The C core includes no CUDA header: it
 * calls these extern "C" functions, built by nvcc from src/cuda/, or, in a
 * build without CUDA, from stubs.c where each returns SPX_ERR_NOT_COMPILED.
 * Every CUDA error becomes SPX_ERR_DEVICE with CUDA's message (a failed
 * allocation SPX_ERR_OOM with the bytes). Streams and events are passed as
 * void*: a cudaStream_t (NULL = the default stream) and a cudaEvent_t.
 * This header only grows: names once published are never changed. */
#ifndef SPX_CUDA_GATEWAY_H
#define SPX_CUDA_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 without CUDA or without a GPU). */
int spx__cuda_device_count(void);

/* Device memory; failure reports the bytes. */
spx_status spx__cuda_alloc(void **dptr, size_t bytes, const char *what);
void spx__cuda_free(void *dptr);
/* Copies; to_device nonzero: host -> device, else device -> host. */
spx_status spx__cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
spx_status spx__cuda_sync(void *stream);

/* ---- added for the CSR format, the DASP kernels and the bench */

/* Name, multiprocessor count and L2 bytes of the current device (outputs may be NULL). */
spx_status spx__cuda_device_info(char *name, size_t name_len, int *sm_count, size_t *l2_bytes);
/* Device -> device copy, ordered on stream (asynchronous). */
spx_status spx__cuda_copy_d2d(void *dst, const void *src, size_t bytes, void *stream);
/* Host <-> device copy ordered on stream (asynchronous for pinned host memory). */
spx_status spx__cuda_copy_async(void *dst, const void *src, size_t bytes, int to_device,
                                void *stream);
/* Set bytes of device memory to the byte value, ordered on stream. */
spx_status spx__cuda_memset(void *dptr, int value, size_t bytes, void *stream);
/* Host -> device copy through pinned staging buffers (src/cuda/staged.cu), ordered
 * on stream and finished on return; arrays under spx__cuda_stage_min bytes (a
 * test hook, default 32 MiB) take the plain cudaMemcpy. */
spx_status spx__cuda_copy_staged(void *dst, const void *src, size_t bytes, void *stream);
extern size_t spx__cuda_stage_min;
/* *dptr = a new device copy of bytes of host memory (alloc + copy; freed on failure). */
spx_status spx__cuda_upload(void **dptr, const void *host, size_t bytes, const char *what);
/* *dptr = a new device array of n values of type t (SPX_F64: double, SPX_F32:
 * float, SPX_F16: IEEE half) converted from n host values of type from
 * (SPX_F64 or SPX_F32); the conversion runs on the device, round to nearest. */
spx_status spx__cuda_upload_values(void **dptr, const void *host, spx_type from, int64_t n,
                                   spx_type t, const char *what);

/* Timing events: create, record on a stream, elapsed milliseconds between two
 * recorded events (waits for stop), destroy (NULL is a no-op). */
spx_status spx__cuda_event_create(void **event);
spx_status spx__cuda_event_record(void *event, void *stream);
spx_status spx__cuda_event_elapsed(void *start, void *stop, float *ms);
void spx__cuda_event_destroy(void *event);

/* 1 when the current device runs programmatic dependent launches (compute
 * capability 9.0 or newer: a kernel may start while the one before ends), else 0. */
int spx__cuda_can_overlap_launches(void);

/* A matrix's CSR on the device: 64-bit row offsets, 32-bit columns, values of
 * vtype (double, float or half). Owned by whoever uploaded it. */
typedef struct spx__cuda_csr {
    int64_t rows, cols, nnz;
    int64_t *rowptr; /* rows+1, device */
    int32_t *colidx; /* nnz, device */
    void *values;    /* nnz of vtype, device */
    spx_type vtype;
} spx__cuda_csr;

/* Upload A's CSR with values converted to t. SPX_ERR_UNSUPPORTED when A has
 * 64-bit column indices. On failure nothing stays allocated and *d is zeroed. */
spx_status spx__cuda_csr_upload(const spx_matrix *A, spx_type t, spx__cuda_csr *d);
void spx__cuda_csr_free(spx__cuda_csr *d); /* frees the arrays, zeroes *d */
size_t spx__cuda_csr_bytes(const spx__cuda_csr *d);

#ifdef __cplusplus
}
#endif
#endif
