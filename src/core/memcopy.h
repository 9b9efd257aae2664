/* memcpy split across the OpenMP threads: for large host copies (the staging
 * of uploads to the GPU), where one core's copy rate is the bottleneck; and
 * the first touch of fresh memory, split the same way. */
#ifndef SPX_CORE_MEMCOPY_H
#define SPX_CORE_MEMCOPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[0..n) = src[0..n), the regions must not overlap. Below 1 MiB one thread. */
void spx__parallel_memcpy(void *dst, const void *src, size_t n);

/* Write one byte of every 4 KiB page of p[0..n) (its contents are then
 * unspecified), all threads: fresh memory's page faults and zeroing taken
 * now, beside other work, instead of inside a later copy into it. On the
 * H100 machine's host a staged copy from the GPU ran at 17 GB/s into fresh
 * memory and 44 GB/s into touched memory; the touch alone ran at 26 GB/s
 * (bench/experiments/gpu-download). */
void spx__parallel_touch(void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
