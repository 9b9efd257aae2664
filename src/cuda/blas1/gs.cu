/* GMRES's classical Gram-Schmidt pass on the device (gs.h): a launch takes
 * up to SPX__CUDA_GS_CHUNK vectors, loads each of their entries once into
 * registers, and subtracts them, dots them with w, or both (the dots of the
 * new w), plus w's norm. On the H200 the pass moves 73-82% of the DRAM
 * bandwidth on 4M-entry vectors (ncu, run gs2); a first version that loaded
 * each entry once for the subtraction and again for the dots (32-vector
 * launches) moved 38%. Thread t of block j visits entries j*THREADS + t + m*stride
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
/* Blocks an SM holds at least. 2 leaves the 16-vector instance its 118
 * registers; 3 capped it at 80 (a few spills), and GMRES(30) on the H200
 * then took 0.97-1.14x the time (lap3d27:64, lap3d7:100 and :160, run gs2). */
#ifndef SPX__GS_MIN_BLOCKS
#define SPX__GS_MIN_BLOCKS 2
#endif

/* One launch over nv <= CHUNK vectors v: with sub_c, w -= sum_{q < nv}
 * sub_c[q] v[q]; then with dot_out, dot_out[d] = v[d] . w for d < nv; with
 * nrm, *nrm = w . w. An entry of each vector is loaded once for both. */
struct gs_launch {
    const void *v[CHUNK];
    const double *sub_c;
    double *dot_out, *nrm;
    int nv;
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

/* K vectors at most (a template constant, so their entries and the sums
 * stay in registers), the norm's sum after the dots'. */
template <typename T, int K>
__global__ void __launch_bounds__(THREADS, SPX__GS_MIN_BLOCKS)
    gs_pass(int64_t n, gs_launch a, T *w, double *partial, unsigned *ticket)
{
    constexpr int R = K + 1;
    __shared__ double c[CHUNK];
    __shared__ double s[R][WARPS];
    __shared__ bool last;
    if (a.sub_c && (int)threadIdx.x < a.nv) c[threadIdx.x] = a.sub_c[threadIdx.x];
    __syncthreads();
    double acc[R];
#pragma unroll
    for (int d = 0; d < R; d++)
        acc[d] = 0.0;
    const int64_t stride = (int64_t)gridDim.x * THREADS;
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        T val[K];
#pragma unroll
        for (int q = 0; q < K; q++)
            val[q] = q < a.nv ? ((const T *)a.v[q])[i] : (T)0;
        double wi = (double)w[i];
        if (a.sub_c) {
#pragma unroll
            for (int q = 0; q < K; q++)
                if (q < a.nv) wi -= c[q] * (double)val[q];
            const T rounded = (T)wi;
            w[i] = rounded;
            wi = (double)rounded;
        }
#pragma unroll
        for (int d = 0; d < K; d++)
            acc[d] += (double)val[d] * wi; /* 0 past nv */
        acc[K] += wi * wi;
    }
    if (!a.dot_out && !a.nrm) return; /* a subtraction alone: nothing to sum */
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
    if (a.dot_out && (int)threadIdx.x < a.nv) a.dot_out[threadIdx.x] = mine;
    if ((int)threadIdx.x == K && a.nrm) *a.nrm = mine;
    if (threadIdx.x == 0) *ticket = 0;
}

template <typename T, int K>
static void launch_k(int64_t n, const gs_launch &a, void *w, double *scratch, cudaStream_t st)
{
    unsigned *ticket = (unsigned *)(scratch + SPX__CUDA_GS_SCRATCH - 1);
    gs_pass<T, K><<<SPX__CUDA_DOT_BLOCKS, THREADS, 0, st>>>(n, a, (T *)w, scratch, ticket);
}

/* The smallest instance that holds a's vectors. */
template <typename T>
static void launch(int64_t n, const gs_launch &a, void *w, double *scratch, cudaStream_t st)
{
    if (a.nv <= 4)
        launch_k<T, 4>(n, a, w, scratch, st);
    else if (a.nv <= 8)
        launch_k<T, 8>(n, a, w, scratch, st);
    else
        launch_k<T, CHUNK>(n, a, w, scratch, st);
}

/* Launch chunk c of V (CHUNK vectors from c * CHUNK; none for c < 0). */
static spx_status launch_chunk(int64_t n, spx_type t, int64_t k, const void *const *V, int64_t c,
                               void *w, const double *sub, double *dots, double *nrm,
                               double *scratch, void *stream)
{
    gs_launch a = {};
    const int64_t first = c * CHUNK;
    a.nv = c < 0 ? 0 : (int)(k - first < CHUNK ? k - first : CHUNK);
    for (int q = 0; q < a.nv; q++)
        a.v[q] = V[first + q];
    a.sub_c = sub ? sub + first : NULL;
    a.dot_out = dots ? dots + first : NULL;
    a.nrm = nrm;
    if (t == SPX_F64)
        launch<double>(n, a, w, scratch, (cudaStream_t)stream);
    else
        launch<float>(n, a, w, scratch, (cudaStream_t)stream);
    return spx__blas1_launch_status("gram-schmidt kernel");
}

/* Launches in order: the subtraction a chunk at a time, the last chunk's
 * with that chunk's dots and the norm (w is final then); then the other
 * chunks' dots; the norm alone where no launch took it. */
extern "C" spx_status spx__cuda_vgs(int64_t n, spx_type t, int64_t k, const void *const *V, void *w,
                                    const double *sub, double *dots, double *nrm, double *scratch,
                                    void *stream)
{
    const int64_t chunks = (k + CHUNK - 1) / CHUNK;
    spx_status st = SPX_OK;
    if (k < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "gram-schmidt over %lld vectors", (long long)k);
    for (int64_t c = 0; sub && c < chunks && st == SPX_OK; c++) {
        const int final = c == chunks - 1;
        st = launch_chunk(n, t, k, V, c, w, sub, final ? dots : NULL, final ? nrm : NULL, scratch,
                          stream);
    }
    if (sub && chunks > 0) nrm = NULL; /* taken */
    for (int64_t c = 0; dots && c < chunks - (sub ? 1 : 0) && st == SPX_OK; c++) {
        st = launch_chunk(n, t, k, V, c, w, NULL, dots, nrm, scratch, stream);
        nrm = NULL;
    }
    if (nrm && st == SPX_OK) st = launch_chunk(n, t, k, V, -1, w, NULL, NULL, nrm, scratch, stream);
    return st;
}
