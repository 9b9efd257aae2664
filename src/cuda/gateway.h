/* The C gateway to SpX's CUDA code. The C core includes no CUDA header: it
 * calls these extern "C" functions, built by nvcc from src/cuda/, or, in a
 * build without CUDA, from stubs.c where each returns SPX_ERR_NOT_COMPILED.
 * Every CUDA error becomes SPX_ERR_DEVICE with CUDA's message (a failed
 * allocation SPX_ERR_OOM with the bytes). Streams and events are passed as
 * void*: a cudaStream_t (NULL = the default stream) and a cudaEvent_t. */
#ifndef SPX_CUDA_GATEWAY_H
#define SPX_CUDA_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the C core reaches CUDA. Each method lists its gateway functions once,
 * in its own header, as an X-macro of three kinds of entry:
 *   S(name, params)               returns spx_status;
 *   Q(type, name, params, value)  returns a plain value (a count, bytes);
 *   V(name, params)               returns nothing (frees).
 * The list declares the functions (SPX__CUDA_DECLARE) and, in a build without
 * CUDA, stamps out their stubs (src/cuda/stubs.c): an S stub returns
 * SPX_ERR_NOT_COMPILED, a Q stub its value, a V stub does nothing. A stub
 * writes no outputs, so callers initialise what they free. Adding a method's
 * launcher: one line in its list; adding a method: its list, and one line in
 * stubs.c. */
#define SPX__CUDA_DECL_S(name, params) spx_status name params;
#define SPX__CUDA_DECL_Q(type, name, params, value) type name params;
#define SPX__CUDA_DECL_V(name, params) void name params;
#define SPX__CUDA_DECLARE(list) list(SPX__CUDA_DECL_S, SPX__CUDA_DECL_Q, SPX__CUDA_DECL_V)

/* A matrix's CSR on the device: 64-bit row offsets, 32-bit columns, values of
 * vtype (double, float or half). Owned by whoever uploaded it. */
typedef struct spx__cuda_csr {
    int64_t rows, cols, nnz;
    int64_t *rowptr; /* rows+1, device */
    int32_t *colidx; /* nnz, device */
    void *values;    /* nnz of vtype, device */
    spx_type vtype;
} spx__cuda_csr;

/* The runtime every method uses (src/cuda/runtime.cu, staged.cu):
 * - compiled: 1 in a build with CUDA (the stub answers 0);
 * - device_count: usable CUDA devices (0 without CUDA or without a GPU);
 * - alloc, free: device memory; failure reports the bytes;
 * - copy: to_device nonzero host -> device, else device -> host; sync: wait
 *   for a stream; stream_idle: 1 when everything queued on it has run (a
 *   test's check that a call waited);
 * - device_info: name, multiprocessor count and L2 bytes (outputs may be NULL);
 * - copy_d2d, copy_async, memset: ordered on a stream (async for pinned host);
 * - copy_staged: host -> device through pinned staging buffers, finished on
 *   return; arrays under spx__cuda_stage_min bytes take the plain cudaMemcpy;
 * - upload: *dptr = a new device copy of host bytes (freed on failure);
 * - upload_values: *dptr = n device values of type t (F64 double, F32 float,
 *   F16 half) converted on the device from n host values of type from;
 * - event_*: timing events; elapsed waits for stop; sync waits for event;
 * - can_overlap_launches: 1 when the device runs programmatic dependent
 *   launches (compute capability 9.0 or newer);
 * - convert_values: as upload_values from n device values (a new array; the
 *   source is the caller's);
 * - csr_upload: A's CSR with values converted to t (SPX_ERR_UNSUPPORTED for
 *   64-bit columns; nothing left allocated on failure); csr_free zeroes *d;
 * - device_array: SPX_OK when p is device (or managed) memory of the current
 *   device, else SPX_ERR_INVALID_ARG naming `what` (spx_matrix_wrap_device);
 * - offsets_to_host: n row offsets of `bits` (32 or 64) from the device into
 *   the host's dst, widened to int64;
 * - widen_offsets: *dptr = a new device array of n int64 from n device int32;
 * - free_pooled: memory of a stream-ordered pool (a device C of gpu-rows,
 *   spgemm_dev.cuh) back to its pool, after a wait for its device, as
 *   cudaFree waits. */
#define SPX__CUDA_RUNTIME_API(S, Q, V)                                                             \
    Q(int, spx__cuda_compiled, (void), 0)                                                          \
    Q(int, spx__cuda_device_count, (void), 0)                                                      \
    S(spx__cuda_alloc, (void **dptr, size_t bytes, const char *what))                              \
    V(spx__cuda_free, (void *dptr))                                                                \
    V(spx__cuda_free_pooled, (void *dptr))                                                         \
    S(spx__cuda_copy, (void *dst, const void *src, size_t bytes, int to_device))                   \
    S(spx__cuda_sync, (void *stream))                                                              \
    Q(int, spx__cuda_stream_idle, (void *stream), 1)                                               \
    S(spx__cuda_device_info, (char *name, size_t name_len, int *sm_count, size_t *l2_bytes))       \
    S(spx__cuda_copy_d2d, (void *dst, const void *src, size_t bytes, void *stream))                \
    S(spx__cuda_copy_async,                                                                        \
      (void *dst, const void *src, size_t bytes, int to_device, void *stream))                     \
    S(spx__cuda_memset, (void *dptr, int value, size_t bytes, void *stream))                       \
    S(spx__cuda_copy_staged, (void *dst, const void *src, size_t bytes, void *stream))             \
    S(spx__cuda_upload, (void **dptr, const void *host, size_t bytes, const char *what))           \
    S(spx__cuda_upload_values,                                                                     \
      (void **dptr, const void *host, spx_type from, int64_t n, spx_type t, const char *what))     \
    S(spx__cuda_convert_values,                                                                    \
      (void **dptr, const void *dev, spx_type from, int64_t n, spx_type t, const char *what))      \
    S(spx__cuda_event_create, (void **event))                                                      \
    S(spx__cuda_event_record, (void *event, void *stream))                                         \
    S(spx__cuda_event_elapsed, (void *start, void *stop, float *ms))                               \
    S(spx__cuda_event_sync, (void *event))                                                         \
    V(spx__cuda_event_destroy, (void *event))                                                      \
    Q(int, spx__cuda_can_overlap_launches, (void), 0)                                              \
    S(spx__cuda_csr_upload, (const spx_matrix *A, spx_type t, spx__cuda_csr *d))                   \
    V(spx__cuda_csr_free, (spx__cuda_csr * d))                                                     \
    Q(size_t, spx__cuda_csr_bytes, (const spx__cuda_csr *d), 0)                                    \
    S(spx__cuda_device_array, (const void *p, const char *what))                                   \
    S(spx__cuda_offsets_to_host, (int64_t * dst, const void *src, int bits, int64_t n))            \
    S(spx__cuda_widen_offsets, (int64_t * *dptr, const int32_t *src, int64_t n))

SPX__CUDA_DECLARE(SPX__CUDA_RUNTIME_API)

/* Arrays of at least this many bytes go through copy_staged's pinned buffers
 * (default 32 MiB; a test hook; src/cuda/stage_min.c). */
extern size_t spx__cuda_stage_min;

#ifdef __cplusplus
}
#endif
#endif
