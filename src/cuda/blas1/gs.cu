/* GMRES's classical Gram-Schmidt pass on the device (gs.h): one launch for
 * up to SPX__CUDA_GS_CHUNK subtracted vectors and SPX__CUDA_GS_CHUNK dots
 * plus the norm. Thread t of block j visits entries j*THREADS + t + m*stride
 * (m = 0, 1, ...), as blas1's dots do; a block's sums go by warp shuffles
 * (a fixed tree) and then warp by warp in order into scratch, and the last
 * block to finish (a ticket taken after a fence) sums the block sums in
 * block order the same way. */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/blas1/gs.h"
#include "cuda/blas1/kernels.cuh"

#define CHUNK SPX__CUDA_GS_CHUNK
#define THREADS SPX__BLAS1_THREADS
#define WARPS (THREADS / 32)

/* One launch: w -= sum_{q < nsub} sub_c[q] sub_v[q], then dot_out[d] =
 * dot_v[d] . w for d < ndot, and *nrm = w . w where nrm is non-NULL. */
struct gs_launch {
    const void *sub_v[CHUNK];
    const void *dot_v[CHUNK];
    const double *sub_c;
    double *dot_out, *nrm;
    int nsub, ndot;
};

/* Each of R sums of the block: s[d][w] = warp w's sum of acc[d] (a fixed
 * shuffle tree); then thread d < R returns sum_w s[d][w] in warp order. */
template <int R> static __device__ double block_sums(const double *acc, double (*s)[WARPS])
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int d = 0; d < R; d++) {
        double v = acc[d];
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) s[d][warp] = v;
    }
    __syncthreads();
    double total = 0.0;
    if ((int)threadIdx.x < R)
        for (int j = 0; j < WARPS; j++)
            total += s[threadIdx.x][j];
    __syncthreads(); /* s is free again */
    return total;
}

/* K dots at most (a template constant, so the sums stay in registers), the
 * norm's sum after them. */
template <typename T, int K>
__global__ void __launch_bounds__(THREADS)
    gs_pass(int64_t n, gs_launch a, T *w, double *partial, unsigned *ticket)
{
    constexpr int R = K + 1;
    __shared__ double c[CHUNK];
    __shared__ double s[R][WARPS];
    __shared__ bool last;
    if ((int)threadIdx.x < a.nsub) c[threadIdx.x] = a.sub_c[threadIdx.x];
    __syncthreads();
    double acc[R];
#pragma unroll
    for (int d = 0; d < R; d++)
        acc[d] = 0.0;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        double wi = (double)w[i];
        if (a.nsub > 0) {
#pragma unroll
            for (int q = 0; q < CHUNK; q++)
                if (q < a.nsub) wi -= c[q] * (double)((const T *)a.sub_v[q])[i];
            const T rounded = (T)wi;
            w[i] = rounded;
            wi = (double)rounded;
        }
#pragma unroll
        for (int d = 0; d < K; d++)
            if (d < a.ndot) acc[d] += (double)((const T *)a.dot_v[d])[i] * wi;
        acc[K] += wi * wi;
    }
    if (a.ndot == 0 && !a.nrm) return; /* a subtraction alone: nothing to sum */
    double mine = block_sums<R>(acc, s);
    if ((int)threadIdx.x < R) {
        partial[threadIdx.x * gridDim.x + blockIdx.x] = mine;
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
#pragma unroll
    for (int d = 0; d < R; d++) {
        double v = 0.0;
        for (unsigned j = threadIdx.x; j < gridDim.x; j += THREADS)
            v += __ldcg(&partial[d * gridDim.x + j]);
        acc[d] = v;
    }
    mine = block_sums<R>(acc, s);
    if ((int)threadIdx.x < a.ndot) a.dot_out[threadIdx.x] = mine;
    if ((int)threadIdx.x == K && a.nrm) *a.nrm = mine;
    if (threadIdx.x == 0) *ticket = 0;
}

template <typename T, int K>
static void launch_k(int64_t n, const gs_launch &a, void *w, double *scratch, cudaStream_t st)
{
    unsigned *ticket = (unsigned *)(scratch + SPX__CUDA_GS_SCRATCH - 1);
    gs_pass<T, K><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, a, (T *)w, scratch, ticket);
}

/* The smallest instance that holds a's dots. */
template <typename T>
static void launch(int64_t n, const gs_launch &a, void *w, double *scratch, cudaStream_t st)
{
    if (a.ndot <= 1)
        launch_k<T, 1>(n, a, w, scratch, st);
    else if (a.ndot <= 4)
        launch_k<T, 4>(n, a, w, scratch, st);
    else if (a.ndot <= 8)
        launch_k<T, 8>(n, a, w, scratch, st);
    else if (a.ndot <= 16)
        launch_k<T, 16>(n, a, w, scratch, st);
    else
        launch_k<T, CHUNK>(n, a, w, scratch, st);
}

static int64_t chunk_of(int64_t left)
{
    return left < CHUNK ? left : CHUNK;
}

/* Launches in order: the subtraction a chunk at a time, the last of them
 * with the first chunk of dots and the norm, then the other chunks of dots. */
extern "C" spx_status spx__cuda_vgs(int64_t n, spx_type t, int64_t k, const void *const *V, void *w,
                                    const double *sub, double *dots, double *nrm, double *scratch,
                                    void *stream)
{
    const int64_t nsub = sub ? k : 0, ndot = dots ? k : 0;
    int64_t s0 = 0, d0 = 0;
    if (k < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "gram-schmidt over %lld vectors", (long long)k);
    do {
        gs_launch a = {};
        a.nsub = (int)chunk_of(nsub - s0);
        for (int q = 0; q < a.nsub; q++)
            a.sub_v[q] = V[s0 + q];
        a.sub_c = sub ? sub + s0 : NULL;
        s0 += a.nsub;
        if (s0 == nsub) { /* w is final after this launch's subtraction */
            a.ndot = (int)chunk_of(ndot - d0);
            for (int d = 0; d < a.ndot; d++)
                a.dot_v[d] = V[d0 + d];
            a.dot_out = dots ? dots + d0 : NULL;
            a.nrm = d0 == 0 ? nrm : NULL;
            d0 += a.ndot;
        }
        if (t == SPX_F64)
            launch<double>(n, a, w, scratch, (cudaStream_t)stream);
        else
            launch<float>(n, a, w, scratch, (cudaStream_t)stream);
        spx_status st = spx__blas1_launch_status("gram-schmidt kernel");
        if (st != SPX_OK) return st;
    } while (s0 < nsub || d0 < ndot);
    return SPX_OK;
}
