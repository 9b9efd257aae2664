/* The C gateway to SpX's CUDA code. The C core includes no CUDA header: it
 * calls these extern "C" functions, built by nvcc from src/cuda/, or, in a
 * build without CUDA, from stubs.c where each returns SPX_ERR_NOT_COMPILED.
 * Every CUDA error becomes SPX_ERR_DEVICE with CUDA's message. */
#ifndef SPX_CUDA_GATEWAY_H
#define SPX_CUDA_GATEWAY_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif
#endif
