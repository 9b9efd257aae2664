/* A barrier of flags among the streams of several GPUs (multi_cuda.h,
 * spx__cuda_barrier): one thread a member, no event between devices.
 *
 * Why: inside a CUDA graph each dependency from one device's stream to
 * another's costs about 1.4 us, one after another. On 4 H200s a step where
 * every GPU waits for every other (12 such edges) took 17-20 us, a ring of
 * 4 edges 8 us, while this barrier took 4.0 us; on 3 GPUs 6.5 us against
 * 3.7; on 2, events win: 2.7 us against 3.4
 * (bench/experiments/msrep/graph_barrier.cu, run NC).
 *
 * Member me of n counts its barriers: epoch e is its count plus one. It
 * stores e into its flag in every peer's array (a system-scope release:
 * the work its stream finished before, and its own writes, are visible to
 * whoever reads the flag), then waits until every peer's flag in its own
 * array has reached e (acquire). Every member passes the same number of
 * barriers, so the epochs agree. A member that waits more than its
 * timeout (30 s by default) sets *late (pinned host memory) and goes on, so
 * a GPU that never comes gives an error, not a hang. */
#include <cuda/atomic>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/multi/multi_cuda.h"

typedef unsigned long long u64;
typedef cuda::atomic_ref<u64, cuda::thread_scope_system> flag_ref;

static __device__ u64 now_ns(void)
{
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Until flag reaches e, or the wait passes timeout ns from start: 0 then. */
static __device__ int wait_for(u64 *flag, u64 e, u64 start, u64 timeout)
{
    flag_ref f(*flag);
    for (unsigned spins = 0; f.load(cuda::memory_order_acquire) < e; spins++)
        if ((spins & 1023) == 1023 && now_ns() - start > timeout) return 0;
    return 1;
}

__global__ void barrier_kernel(const __grid_constant__ spx__cuda_barrier_args a)
{
    u64 *count = a.mine + a.n; /* this member's own count, after the n flags */
    const u64 e = *count + 1;
    *count = e;
    for (int h = 0; h < a.n; h++)
        if (h != a.me) flag_ref(*a.peer[h]).store(e, cuda::memory_order_release);
    const u64 start = now_ns();
    for (int h = 0; h < a.n; h++)
        if (h != a.me && !wait_for(a.mine + h, e, start, a.timeout_ns)) {
            cuda::atomic_ref<int, cuda::thread_scope_system>(*a.late).store(
                1, cuda::memory_order_relaxed);
            return;
        }
}

extern "C" spx_status spx__cuda_barrier(const spx__cuda_barrier_args *a, void *stream)
{
    if (a->n < 1 || a->n > SPX__CUDA_BARRIER_MAX || a->me < 0 || a->me >= a->n)
        return spx__error(SPX_ERR_INVALID_ARG, "barrier member %d of %d", a->me, a->n);
    barrier_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*a);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "CUDA barrier launch failed: %s", cudaGetErrorString(e));
    return SPX_OK;
}
