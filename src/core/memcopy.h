/* memcpy split across the OpenMP threads: for large host copies (the staging
 * of uploads to the GPU), where one core's copy rate is the bottleneck. */
#ifndef SPX_CORE_MEMCOPY_H
#define SPX_CORE_MEMCOPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[0..n) = src[0..n), the regions must not overlap. Below 1 MiB one thread. */
void spx__parallel_memcpy(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif
#endif
