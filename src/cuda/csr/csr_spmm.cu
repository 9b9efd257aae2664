/* CSR SpMM on the GPU, Y = alpha*A*X + beta*Y with X and Y dense and
 * row-major (csr_kernels.h): values V (double, float, half, or none for iso
 * plans: iso.cuh), sums and X, Y of type T (double for fp64 plans, float
 * otherwise).
 *
 * Columns of Y are cut into tiles of G*C: in a tile, lane l of a group of G
 * lanes holds columns l, l + G, ..., l + (C-1)G, so that each nonzero's row
 * of X is read by the group as C coalesced loads. G is the smallest power of
 * two from 4 to 32 that covers k, C grows (1, 2, 4) once k passes 32.
 *  - Rows of up to SPX__CUDA_SPMM_LONG nonzeros: a group a row; its lanes load
 *    G of the row's columns and values at once, then take them one after the
 *    other (shuffles), each adding v * X(col, its columns).
 *  - Longer rows (the plan's list): a thread block of SPMM_WARPS warps a row
 *    and tile; warp w sums the w-th of SPMM_WARPS equal slices of the row,
 *    and warp 0 adds the warps' sums in order from shared memory.
 * Each sum over a slice runs the slice's nonzeros in order, and the slices
 * depend on the row's length alone: the bits of column j do not depend on
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

/* acc[c] += sum over nonzeros [b, e) of v_e * X(col_e, j + cG), c < C, in
 * order: the group (G lanes from lane g0 of the warp, mask its lanes) loads
 * G columns and values at once, then takes them one by one from the lane
 * that holds them. j is this lane's first column (j >= k: not summed, but
 * it still loads and shuffles with its group). */
template <typename V, typename T, int G, int C>
__device__ __forceinline__ void spmm_group_sum(const int32_t *__restrict__ ci,
                                               const V *__restrict__ val, const T *__restrict__ X,
                                               int64_t ldx, int64_t k, int64_t b, int64_t e,
                                               int lane, unsigned mask, int64_t j, T acc[C])
{
    for (int64_t base = b; base < e; base += G) {
        const int n = e - base < G ? (int)(e - base) : G;
        int c_mine = 0;
        V v_mine{};
        if (lane < n) {
            c_mine = __ldcs(ci + base + lane);
            v_mine = spx__load_val(val, base + lane);
        }
#pragma unroll 4
        for (int t = 0; t < n; t++) {
            const int col = __shfl_sync(mask, c_mine, t, G);
            const V v = shfl_val<G>(mask, v_mine, t);
            const T *xr = X + (int64_t)col * ldx + j;
#pragma unroll
            for (int c = 0; c < C; c++)
                if (j + c * G < k) acc[c] += spx__times(v, __ldg(xr + c * G));
        }
    }
}

/* Rows of up to long_len nonzeros: group r of the grid takes row r / tiles,
 * tile r % tiles; longer rows are left to spmm_long_kernel. */
template <typename V, typename T, int G, int C>
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
        const int64_t row = r / tiles, j = (r % tiles) * (G * C) + lane;
        const int64_t b = __ldg(rp + row), e = __ldg(rp + row + 1);
        if (e - b > long_len) continue; /* the same for the whole group */
        T acc[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            acc[c] = T(0);
        spmm_group_sum<V, T, G, C>(ci, val, X, ldx, k, b, e, lane, mask, j, acc);
        T *y = Y + row * ldy + j;
#pragma unroll
        for (int c = 0; c < C; c++)
            if (j + c * G < k) y[c * G] = spmm_finish(acc[c], alpha, beta, y + c * G);
    }
}

/* Long rows: block b takes long row b / tiles, tile b % tiles; warp w sums
 * slice w of the row (SPMM_WARPS slices of equal length), warp 0 adds the
 * slices' sums in order and writes Y. */
template <typename V, typename T, int C>
__global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_long_kernel(int64_t n_long, int64_t tiles, const int64_t *__restrict__ long_rows,
                     const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                     const V *__restrict__ val, const T *__restrict__ X, int64_t ldx,
                     T *__restrict__ Y, int64_t ldy, int64_t k, T alpha, T beta)
{
    __shared__ T part[SPMM_WARPS][32 * C];
    const int lane = threadIdx.x & 31, w = threadIdx.x / 32;
    for (int64_t r = blockIdx.x; r < n_long * tiles; r += gridDim.x) {
        const int64_t row = __ldg(long_rows + r / tiles), j = (r % tiles) * (32 * C) + lane;
        const int64_t b = __ldg(rp + row), len = __ldg(rp + row + 1) - b;
        T acc[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            acc[c] = T(0);
        spmm_group_sum<V, T, 32, C>(ci, val, X, ldx, k, b + len * w / SPMM_WARPS,
                                    b + len * (w + 1) / SPMM_WARPS, lane, 0xffffffffu, j, acc);
#pragma unroll
        for (int c = 0; c < C; c++)
            part[w][lane + 32 * c] = acc[c];
        __syncthreads();
        if (w == 0) {
            T *y = Y + row * ldy + j;
#pragma unroll
            for (int c = 0; c < C; c++) {
                T sum = T(0);
                for (int s = 0; s < SPMM_WARPS; s++)
                    sum += part[s][lane + 32 * c];
                if (j + c * 32 < k) y[c * 32] = spmm_finish(sum, alpha, beta, y + c * 32);
            }
        }
        __syncthreads(); /* part is reused by the block's next row */
    }
}

/* Blocks for n items of per_block each, capped (the kernels loop). */
static unsigned spmm_grid(int64_t n, int64_t per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/* The short rows' kernel for G lanes a group and C columns a lane, then the
 * long rows' for C. */
template <typename V, typename T, int G, int C>
static void launch_tiles(const spx__cuda_csr_plan *p, int64_t k, T alpha, const T *X, int64_t ldx,
                         T beta, T *Y, int64_t ldy)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const int64_t tiles = (k + G * C - 1) / (G * C);
    const V *val = (const V *)p->A.values;
    spx__launch(spmm_rows_kernel<V, T, G, C>, spmm_grid(p->A.rows * tiles, SPMM_BLOCK / G),
                SPMM_BLOCK, s, 0, p->A.rows, tiles, p->A.rowptr, p->A.colidx, val, X, ldx, Y, ldy,
                k, alpha, beta, (int64_t)SPX__CUDA_SPMM_LONG);
    if (p->spmm_n_long == 0) return;
    const int64_t long_tiles = (k + 32 * C - 1) / (32 * C);
    spx__launch(spmm_long_kernel<V, T, C>, spmm_grid(p->spmm_n_long * long_tiles, 1), SPMM_BLOCK, s,
                0, p->spmm_n_long, long_tiles, p->spmm_long, p->A.rowptr, p->A.colidx, val, X, ldx,
                Y, ldy, k, alpha, beta);
}

/* G and C for k: G the smallest power of two from 4 covering k (up to 32),
 * then C = 2 up to 64 columns, 4 beyond (tiles of 128). */
template <typename V, typename T>
static void launch_for_k(const spx__cuda_csr_plan *p, int64_t k, double alpha, const void *X,
                         int64_t ldx, double beta, void *Y, int64_t ldy)
{
    const T a = (T)alpha, b = (T)beta;
    const T *x = (const T *)X;
    T *y = (T *)Y;
    if (k <= 4)
        launch_tiles<V, T, 4, 1>(p, k, a, x, ldx, b, y, ldy);
    else if (k <= 8)
        launch_tiles<V, T, 8, 1>(p, k, a, x, ldx, b, y, ldy);
    else if (k <= 16)
        launch_tiles<V, T, 16, 1>(p, k, a, x, ldx, b, y, ldy);
    else if (k <= 32)
        launch_tiles<V, T, 32, 1>(p, k, a, x, ldx, b, y, ldy);
    else if (k <= 64)
        launch_tiles<V, T, 32, 2>(p, k, a, x, ldx, b, y, ldy);
    else
        launch_tiles<V, T, 32, 4>(p, k, a, x, ldx, b, y, ldy);
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
