/* CSR SpMM on the GPU, Y = alpha*A*X + beta*Y with X and Y dense and
 * row-major (csr_kernels.h): values V (double, float, half, or none for iso
 * plans: iso.cuh), sums and X, Y of type T (double for fp64 plans, float
 * otherwise).
 *
 * Columns of Y are cut into tiles of G*C*W: in a tile, lane l of a group of
 * G lanes loads W neighbouring entries (16 bytes where k and ldx are
 * multiples of W and X is aligned, else W = 1) at C places G*W apart, so that
 * each nonzero's row of X is read by the group as C coalesced loads. G is
 * the smallest power of two from 4 to 32 that covers k/W, C grows (1, 2, 4)
 * once k/W passes 32.
 *  - Rows of up to SPX__CUDA_SPMM_LONG nonzeros: a group a row; its lanes load
 *    G of the row's columns and values at once, then take them one after the
 *    other (shuffles), each adding v * X(col, its columns).
 *  - Longer rows (the plan's list) are cut into chunks of
 *    SPX__CUDA_SPMM_CHUNK nonzeros from the row's start, a group of lanes
 *    each (as a short row's, at most 64 columns a pass), whose sums go to the
 *    plan's partial sums; a warp a row then adds its chunks' sums in chunk
 *    order. (A thread block a long
 *    row, 8 slices, took 16.6 ms on the power-law generator of 1M rows at k =
 *    32 on an H100, 0.17x cuSPARSE: a row of 10^5 nonzeros is a chain of
 *    dependent steps however it is sliced, and 8 slices are too few.)
 * Each sum over a row or a chunk runs its nonzeros in order, and the chunks
 * depend on the row alone: the bits of column j do not depend on
 * k, the tile or the call. beta == 0 never reads Y. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/csr/csr_kernels.h"
#include "cuda/csr/iso.cuh"
#include "cuda/pdl.cuh"

#define SPMM_BLOCK 256 /* threads a block: 8 warps */
#define SPMM_WARPS (SPMM_BLOCK / 32)
/* A group's nonzeros in flight at once: 8 for fp64 sums, 4 for fp32 (run SD,
 * H100, k = 32 unless said, ms: 8 against 4 took fp64 power law 1M 2.089
 * against 2.164, R-MAT 20 1.695 against 1.855, k = 8 1.109 against 1.140,
 * lap3d7:128 0.688 against 0.724, circuit 1.721 against 1.756; fp32 1.459
 * against 1.452, 1.177 against 1.207, 0.939 against 0.925, 0.355 against
 * 0.344). -D SPMM_UNROLL=N sets both, for experiments. */
#ifdef SPMM_UNROLL
template <typename T> constexpr int spmm_unroll = SPMM_UNROLL;
#elif defined(SPMM_UNROLL_F32)
template <typename T> constexpr int spmm_unroll = sizeof(T) == 8 ? 8 : SPMM_UNROLL_F32;
#else
template <typename T> constexpr int spmm_unroll = sizeof(T) == 8 ? 8 : 4;
#endif

template <typename T> __device__ __forceinline__ T spmm_finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* Value v of lane t of the group of G lanes (iso plans: none to pass). */
template <int G, typename V> __device__ __forceinline__ V shfl_val(unsigned mask, V v, int t)
{
    return __shfl_sync(mask, v, t, G);
}
template <int G> __device__ __forceinline__ spx__iso_val shfl_val(unsigned, spx__iso_val v, int)
{
    return v;
}

/* out[0, W) = X[0, W) (p aligned to W entries): one load of 4, 8 or 16 bytes. */
template <int W, typename T> __device__ __forceinline__ void load_w(const T *p, T out[W])
{
    if constexpr (W == 1) {
        out[0] = __ldg(p);
    } else if constexpr (W == 2 && sizeof(T) == 8) {
        const double2 d = __ldg(reinterpret_cast<const double2 *>(p));
        out[0] = d.x, out[1] = d.y;
    } else if constexpr (W == 2) {
        const float2 f = __ldg(reinterpret_cast<const float2 *>(p));
        out[0] = f.x, out[1] = f.y;
    } else {
        static_assert(W == 4 && sizeof(T) == 4, "16-byte loads of floats");
        const float4 f = __ldg(reinterpret_cast<const float4 *>(p));
        out[0] = f.x, out[1] = f.y, out[2] = f.z, out[3] = f.w;
    }
}

/* acc[cW + w] += sum over nonzeros [b, e) of v_e * X(col_e, j + cGW + w),
 * c < C, w < W, in order: the group (G lanes, mask its lanes) loads G
 * columns and values at once, then takes them one by one from the lane that
 * holds them, each lane loading W neighbouring entries of X's row at once.
 * j is this lane's first column; columns at or past k are not summed (the
 * launcher takes W > 1 only where k is a multiple of W), but the lane still
 * loads and shuffles with its group. */
template <typename V, typename T, int G, int C, int W>
__device__ __forceinline__ void spmm_group_sum(const int32_t *__restrict__ ci,
                                               const V *__restrict__ val, const T *__restrict__ X,
                                               int64_t ldx, int64_t k, int64_t b, int64_t e,
                                               int lane, unsigned mask, int64_t j, T acc[C * W])
{
    for (int64_t base = b; base < e; base += G) {
        const int n = e - base < G ? (int)(e - base) : G;
        int c_mine = 0;
        V v_mine{};
        if (lane < n) {
            c_mine = __ldcs(ci + base + lane);
            v_mine = spx__load_val(val, base + lane);
        }
#pragma unroll spmm_unroll<T>
        for (int t = 0; t < n; t++) {
            const int col = __shfl_sync(mask, c_mine, t, G);
            const V v = shfl_val<G>(mask, v_mine, t);
            const T *xr = X + (int64_t)col * ldx + j;
#pragma unroll
            for (int c = 0; c < C; c++)
                if (j + c * G * W < k) {
                    T x[W];
                    load_w<W>(xr + c * G * W, x);
#pragma unroll
                    for (int w = 0; w < W; w++)
                        acc[c * W + w] += spx__times(v, x[w]);
                }
        }
    }
}

/* Rows of up to long_len nonzeros: group r of the grid takes row r / tiles,
 * tile r % tiles (G*C*W columns); longer rows are left to the chunks. */
template <typename V, typename T, int G, int C, int W>
__global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_rows_kernel(int64_t rows, int64_t tiles, const int64_t *__restrict__ rp,
                     const int32_t *__restrict__ ci, const V *__restrict__ val,
                     const T *__restrict__ X, int64_t ldx, T *__restrict__ Y, int64_t ldy,
                     int64_t k, T alpha, T beta, int64_t long_len)
{
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask =
        G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
    const int64_t step = (int64_t)gridDim.x * (SPMM_BLOCK / G);
    for (int64_t r = ((int64_t)blockIdx.x * SPMM_BLOCK + threadIdx.x) / G; r < rows * tiles;
         r += step) {
        const int64_t row = r / tiles, j = (r % tiles) * (G * C * W) + lane * W;
        const int64_t b = __ldg(rp + row), e = __ldg(rp + row + 1);
        if (e - b > long_len) continue; /* the same for the whole group */
        T acc[C * W];
#pragma unroll
        for (int a = 0; a < C * W; a++)
            acc[a] = T(0);
        spmm_group_sum<V, T, G, C, W>(ci, val, X, ldx, k, b, e, lane, mask, j, acc);
        T *y = Y + row * ldy + j;
#pragma unroll
        for (int c = 0; c < C; c++)
#pragma unroll
            for (int w = 0; w < W; w++)
                if (j + c * G * W + w < k)
                    y[c * G * W + w] = spmm_finish(acc[c * W + w], alpha, beta, y + c * G * W + w);
    }
}

/* Long rows' chunks, columns [j0, j0 + G*W) (a pass): group c of G lanes
 * sums chunk c (SPX__CUDA_SPMM_CHUNK nonzeros from its row's start, the last
 * fewer) into partial[c][0, G*W), lane l holding columns j0 + lW + w. */
template <typename V, typename T, int G, int W>
__global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_chunk_kernel(int64_t n_chunks, const int64_t *__restrict__ chunk_long,
                      const int64_t *__restrict__ long_first, const int64_t *__restrict__ long_rows,
                      const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                      const V *__restrict__ val, const T *__restrict__ X, int64_t ldx, int64_t k,
                      int64_t j0, T *__restrict__ partial)
{
    static_assert(G * W <= SPX__CUDA_SPMM_PASS, "a pass fits a chunk's partial sums");
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask =
        G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
    const int64_t step = (int64_t)gridDim.x * (SPMM_BLOCK / G);
    for (int64_t c = ((int64_t)blockIdx.x * SPMM_BLOCK + threadIdx.x) / G; c < n_chunks;
         c += step) {
        const int64_t r = __ldg(chunk_long + c), row = __ldg(long_rows + r);
        const int64_t b = __ldg(rp + row) + (c - __ldg(long_first + r)) * SPX__CUDA_SPMM_CHUNK;
        const int64_t end = __ldg(rp + row + 1);
        T acc[W];
#pragma unroll
        for (int w = 0; w < W; w++)
            acc[w] = T(0);
        spmm_group_sum<V, T, G, 1, W>(ci, val, X, ldx, k, b,
                                      end - b < SPX__CUDA_SPMM_CHUNK ? end
                                                                     : b + SPX__CUDA_SPMM_CHUNK,
                                      lane, mask, j0 + lane * W, acc);
#pragma unroll
        for (int w = 0; w < W; w++)
            partial[c * SPX__CUDA_SPMM_PASS + lane * W + w] = acc[w];
    }
}

/* Long rows, columns [j0, j0 + width) (width <= 64): warp r adds long row
 * r's chunk sums in chunk order and writes Y. */
template <typename T>
__global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_reduce_kernel(int64_t n_long, const int64_t *__restrict__ long_rows,
                       const int64_t *__restrict__ long_first, const T *__restrict__ partial,
                       T *__restrict__ Y, int64_t ldy, int64_t k, int64_t j0, int width, T alpha,
                       T beta)
{
    const int lane = threadIdx.x & 31;
    const int64_t step = (int64_t)gridDim.x * SPMM_WARPS;
    for (int64_t r = ((int64_t)blockIdx.x * SPMM_BLOCK + threadIdx.x) / 32; r < n_long;
         r += step) {
        const int64_t c0 = __ldg(long_first + r), c1 = __ldg(long_first + r + 1);
        T *y = Y + __ldg(long_rows + r) * ldy + j0 + lane;
#pragma unroll
        for (int q = 0; q < SPX__CUDA_SPMM_PASS / 32; q++) {
            if (lane + 32 * q >= width || j0 + lane + 32 * q >= k) break;
            T sum = T(0);
            for (int64_t c = c0; c < c1; c++)
                sum += partial[c * SPX__CUDA_SPMM_PASS + lane + 32 * q];
            y[32 * q] = spmm_finish(sum, alpha, beta, y + 32 * q);
        }
    }
}

/* Blocks for n items of per_block each, capped (the kernels loop). */
static unsigned spmm_grid(int64_t n, int64_t per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/* The short rows' kernel for G lanes a group, C loads of W entries a lane,
 * then the long rows' chunks in passes, and their sums. */
template <typename V, typename T, int G, int C, int W>
static void launch_tiles(const spx__cuda_csr_plan *p, int64_t k, T alpha, const T *X,
                         int64_t ldx, T beta, T *Y, int64_t ldy)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const int64_t tiles = (k + G * C * W - 1) / (G * C * W);
    const V *val = (const V *)p->A.values;
    spx__launch(spmm_rows_kernel<V, T, G, C, W>, spmm_grid(p->A.rows * tiles, SPMM_BLOCK / G),
                SPMM_BLOCK, s, 0, p->A.rows, tiles, p->A.rowptr, p->A.colidx, val, X, ldx, Y, ldy,
                k, alpha, beta, (int64_t)SPX__CUDA_SPMM_LONG);
    if (p->spmm_n_long == 0) return;
    /* the long rows' chunks in passes of up to 64 columns: G*W of them, G
     * lanes a chunk as for the short rows, at most 64 / W */
    constexpr int CG = G * W <= SPX__CUDA_SPMM_PASS ? G : SPX__CUDA_SPMM_PASS / W;
    T *partial = (T *)p->spmm_partial;
    for (int64_t j0 = 0; j0 < k; j0 += CG * W) {
        spx__launch(spmm_chunk_kernel<V, T, CG, W>, spmm_grid(p->spmm_n_chunks, SPMM_BLOCK / CG),
                    SPMM_BLOCK, s, 0, p->spmm_n_chunks, p->spmm_chunk_long, p->spmm_long_first,
                    p->spmm_long, p->A.rowptr, p->A.colidx, val, X, ldx, k, j0, partial);
        spx__launch(spmm_reduce_kernel<T>, spmm_grid(p->spmm_n_long, SPMM_WARPS), SPMM_BLOCK, s, 0,
                    p->spmm_n_long, p->spmm_long, p->spmm_long_first, (const T *)partial, Y, ldy, k,
                    j0, CG * W, alpha, beta);
    }
}

/* G and C for nv loads of W entries a row: G the smallest power of two
 * covering nv (up to 32), then C = 2 up to 64 loads, 4 beyond. One or two
 * lanes a row for one or two loads: with 4 a row (the smallest before) k = 1
 * left 3 lanes in 4 idle, 0.084 ms a call on lap3d7:100 against csr SpMV's
 * 0.023 on an H200. */
template <typename V, typename T, int W>
static void launch_w(const spx__cuda_csr_plan *p, int64_t k, T a, const T *x, int64_t ldx, T b,
                     T *y, int64_t ldy)
{
    const int64_t nv = (k + W - 1) / W;
    if (nv <= 1)
        launch_tiles<V, T, 1, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 2)
        launch_tiles<V, T, 2, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 4)
        launch_tiles<V, T, 4, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 8)
        launch_tiles<V, T, 8, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 16)
        launch_tiles<V, T, 16, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 32)
        launch_tiles<V, T, 32, 1, W>(p, k, a, x, ldx, b, y, ldy);
    else if (nv <= 64)
        launch_tiles<V, T, 32, 2, W>(p, k, a, x, ldx, b, y, ldy);
    else
        launch_tiles<V, T, 32, 4, W>(p, k, a, x, ldx, b, y, ldy);
}

/* W = 16 bytes of entries a load where k and ldx are multiples of it and X
 * is aligned to it (so every load of a row is whole and aligned), else 1. */
template <typename V, typename T>
static void launch_for_k(const spx__cuda_csr_plan *p, int64_t k, double alpha, const void *X,
                         int64_t ldx, double beta, void *Y, int64_t ldy)
{
#ifdef SPMM_W_F32 /* fp32 entries a load, for experiments */
    constexpr int W = sizeof(T) == 8 ? 2 : SPMM_W_F32;
#else
    constexpr int W = 16 / sizeof(T);
#endif
    const T a = (T)alpha, b = (T)beta;
    const T *x = (const T *)X;
    T *y = (T *)Y;
    if (k % W == 0 && ldx % W == 0 && (uintptr_t)X % 16 == 0)
        launch_w<V, T, W>(p, k, a, x, ldx, b, y, ldy);
    else
        launch_w<V, T, 1>(p, k, a, x, ldx, b, y, ldy);
}

extern "C" spx_status spx__cuda_csr_spmm(const spx__cuda_csr_plan *p, int64_t k, double alpha,
                                         const void *X, int64_t ldx, double beta, void *Y,
                                         int64_t ldy)
{
    if (!p || p->index_dict || !p->A.rowptr)
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr spmm: not a plain CSR plan");
    if (p->A.rows == 0 || k == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        p->iso
            ? launch_for_k<spx__iso_val, double>(p, k, alpha * p->iso_value, X, ldx, beta, Y, ldy)
            : launch_for_k<double, double>(p, k, alpha, X, ldx, beta, Y, ldy);
    else if (p->precision == SPX_F32)
        p->iso ? launch_for_k<spx__iso_val, float>(p, k, alpha * p->iso_value, X, ldx, beta, Y, ldy)
               : launch_for_k<float, float>(p, k, alpha, X, ldx, beta, Y, ldy);
    else
        p->iso ? launch_for_k<spx__iso_val, float>(p, k, alpha * p->iso_value, X, ldx, beta, Y, ldy)
               : launch_for_k<__half, float>(p, k, alpha, X, ldx, beta, Y, ldy);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr spmm launch failed: %s", cudaGetErrorString(e));
    return SPX_OK;
}
