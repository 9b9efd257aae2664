/* Programmatic dependent launch (Hopper, sm_90+): the next kernel on a stream
 * may start before this one ends.
 *
 * A kernel launched with pdl = 1 is scheduled once every thread block of the
 * kernel before it has called spx__pdl_let_next_start() (or exited), so its
 * thread blocks can load what no earlier kernel writes (the matrix) while the
 * earlier one finishes. spx__pdl_wait() then blocks until the earlier kernel
 * has completed and its writes are visible: every read of x, y or scratch and
 * every write comes after it, through pointers passed through
 * spx__pdl_after(). Each thread calls spx__pdl_wait() before it exits, also when it has no work, so
 * a kernel never completes before the one it follows (the next kernel waits on this one alone).
 * Without pdl, or on an older device, both calls do nothing. */
#ifndef SPX_CUDA_PDL_CUH
#define SPX_CUDA_PDL_CUH

#include <cuda_runtime.h>

static __device__ __forceinline__ void spx__pdl_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* spx__pdl_wait(), then p again through the same asm: every access through
 * the returned pointer depends on the wait. A plain "memory" clobber is not
 * enough: the compiler takes data behind a const __restrict__ pointer to be
 * unchanging during the kernel and may turn plain loads of it into
 * ld.global.nc (see spx__ld_fresh) or issue them before the wait. */
template <typename P> static __device__ __forceinline__ P *spx__pdl_after(P *p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned long long a = (unsigned long long)p;
    asm volatile("griddepcontrol.wait;" : "+l"(a)::"memory");
    return (P *)a;
#else
    return p;
#endif
}

static __device__ __forceinline__ void spx__pdl_let_next_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* A load of x (or of anything an earlier kernel writes) after the wait:
 * ld.global.ca, cached in L1 like __ldg, but not ld.global.nc. ptxas takes
 * .nc data to be constant for the kernel's life and moves .nc loads above
 * griddepcontrol.wait (seen in csr's SASS: LDG.E.64.CONSTANT of x above
 * ACQBULK; 20 of 20 chains of gpu-pdl-stress differed); it keeps these
 * after it (0 of 20). */
template <typename T> static __device__ __forceinline__ T spx__ld_fresh(const T *p)
{
    return __ldca(p);
}

/* kernel<<<grid, block, 0, stream>>>(args...), allowed to overlap the kernel
 * before it when pdl is nonzero. The launch error, if any, is left for
 * cudaGetLastError. */
template <typename... Params, typename... Args>
static void spx__launch(void (*kernel)(Params...), unsigned grid, unsigned block,
                        cudaStream_t stream, int pdl, Args... args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    cudaLaunchKernelEx(&cfg, kernel, (Params)args...);
}

#endif
