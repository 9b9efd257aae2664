/* The pinned staging buffers of the large host <-> device copies (staged.cu,
 * spgemm/spgemm_dev.cu): SPX__STAGE_PAIR bytes, two chunks of SPX__STAGE.
 * Pinning 32 MiB costs milliseconds (cudaHostAlloc, cudaFreeHost), as much
 * as a copy of C that it serves, so one pair is kept for the process once
 * made: take returns it when no other copy holds it, else a new pair (NULL
 * when pinned memory cannot be had); give keeps the pair, or frees it when
 * one is kept already. The kept pair (32 MiB of pinned host memory) lives
 * until the process ends. */
#ifndef SPX_CUDA_STAGE_POOL_H
#define SPX_CUDA_STAGE_POOL_H

#include <stddef.h>

#define SPX__STAGE ((size_t)16 << 20)
#define SPX__STAGE_PAIR (2 * SPX__STAGE)

char *spx__stage_take(void);
void spx__stage_give(char *pair);

#endif
