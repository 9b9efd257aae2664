/* The kept pair of pinned staging buffers (stage_pool.h). */
#include <atomic>
#include <cuda_runtime.h>

#include "cuda/stage_pool.h"

static std::atomic<char *> kept{nullptr};

char *spx__stage_take(void)
{
    char *pair = kept.exchange(nullptr);
    if (pair) return pair;
    /* portable: pinned for every device's context */
    if (cudaHostAlloc((void **)&pair, SPX__STAGE_PAIR, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return pair;
}

void spx__stage_give(char *pair)
{
    char *none = nullptr;
    if (pair && !kept.compare_exchange_strong(none, pair)) cudaFreeHost(pair);
}
