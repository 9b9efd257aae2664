/* CSR SDDMM on the GPU (csr_kernels.h): for each entry e = (i, j) of A,
 * Z[e] = alpha * X(i, :) . Y(j, :) + beta * Z[e], X and Y dense row-major of
 * T (double for fp64 plans, float otherwise), Z of T in A's entry order.
 *
 * A group of G lanes computes one entry's dot; lane l of the group takes the
 * columns c = p*G*W + l*W + w (pass p, w < W: W = 16 bytes of T), summing
 * them in the order p, w into its own sum, and the group then adds its G
 * sums by a butterfly of shuffles (offsets G/2, ..., 1; each addition
 * commutes, so every lane ends with the same bits). G is the smallest power
 * of two from 1 to 32 with G*W >= k. The order depends on k alone: where X
 * or Y is not aligned for 16-byte loads the lanes load the same columns one
 * by one.
 *
 * A warp takes a tile of U * 32/G consecutive entries (U: sddmm_unroll): its groups take
 * neighbouring entries (so they mostly share a row of X, which the loads then
 * share too) and each group U of them at once (U loads of Y in flight). Each
 * entry's row comes from the plan's row array (4 bytes an entry, built once
 * by sddmm_rows_kernel) rather than a search.
 *
 * fp16 plans with xtype=half read X and Y as IEEE half (W = 8 a 16-byte
 * load), each entry converted to float, the sums and Z in float. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/csr/csr_kernels.h"
#include "cuda/pdl.cuh"

#define SDDMM_BLOCK 256 /* threads a block: 8 warps */
/* Entries a group computes at once: 4 while an entry's dot is one pass of
 * its G lanes' loads, 2 for G = 32 (k over 32 fp64 or 64 fp32 entries).
 * Measured on an H200 (bench/results/sddmm-2026-11-27.md, run C, fp64, ms):
 * 2, 4, 8 at once took lap3d7:128 k = 128 2.95, 3.41, 4.13; k = 32 1.11,
 * 1.04, 1.33; the power-law generator k = 8 0.60, 0.55, 0.73 (8 costs
 * registers, so fewer warps). -D SDDMM_UNROLL=N sets it for every G. */
template <int G> __host__ __device__ constexpr int sddmm_unroll()
{
#ifdef SDDMM_UNROLL
    return SDDMM_UNROLL;
#else
    return G == 32 ? 2 : 4;
#endif
}
/* Half X and Y hold 8 entries a load: 2 entries at once (the registers of 4
 * would hold 64 floats of operands). Not measured against 4. */
template <int G, typename TI> __host__ __device__ constexpr int sddmm_unroll_for()
{
    return sizeof(TI) == 2 ? 2 : sddmm_unroll<G>();
}

/* row[e] = i for the entries e of row i: a warp a row, its lanes striding
 * over the row's entries. */
__global__ void sddmm_rows_kernel(int64_t rows, const int64_t *__restrict__ rowptr,
                                  int32_t *__restrict__ row)
{
    const int lane = threadIdx.x & 31;
    const int64_t step = (int64_t)gridDim.x * (SDDMM_BLOCK / 32);
    for (int64_t i = ((int64_t)blockIdx.x * SDDMM_BLOCK + threadIdx.x) / 32; i < rows; i += step)
        for (int64_t e = rowptr[i] + lane, end = rowptr[i + 1]; e < end; e += 32)
            row[e] = (int32_t)i;
}

/* One entry of X or Y as T (a half converted to float). */
template <typename T> __device__ __forceinline__ T entry_as(const T *p)
{
    return __ldg(p);
}
__device__ __forceinline__ float entry_as(const __half *p)
{
    return __half2float(__ldg(p));
}

/* out[w] = p[w] as T, w < W, p aligned to W entries of TI: one load of 16
 * bytes (VEC), or W loads of one entry, those at columns c + w >= k reading
 * 0. */
template <typename TI, typename T, int W, bool VEC>
__device__ __forceinline__ void load_cols(const TI *p, int64_t c, int64_t k, T out[W])
{
    if constexpr (VEC && sizeof(TI) == 8) {
        const double2 d = __ldg(reinterpret_cast<const double2 *>(p));
        out[0] = d.x, out[1] = d.y;
    } else if constexpr (VEC && sizeof(TI) == 4) {
        const float4 f = __ldg(reinterpret_cast<const float4 *>(p));
        out[0] = f.x, out[1] = f.y, out[2] = f.z, out[3] = f.w;
    } else if constexpr (VEC) { /* 8 halves */
        const uint4 u = __ldg(reinterpret_cast<const uint4 *>(p));
        const unsigned w4[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const float2 f =
                __half22float2(__halves2half2(__ushort_as_half((unsigned short)(w4[q] & 0xffffu)),
                                              __ushort_as_half((unsigned short)(w4[q] >> 16))));
            out[2 * q] = f.x, out[2 * q + 1] = f.y;
        }
    } else {
#pragma unroll
        for (int w = 0; w < W; w++)
            out[w] = c + w < k ? entry_as(p + w) : T(0);
    }
}

/* X and Y of TI, sums and Z of T. VEC: k, ldx and ldy multiples of W, X and
 * Y aligned to 16 bytes. */
template <typename TI, typename T, int G, int W, bool VEC>
__global__ void __launch_bounds__(SDDMM_BLOCK)
    sddmm_kernel(int64_t nnz, const int32_t *__restrict__ row, const int32_t *__restrict__ col,
                 const TI *__restrict__ X, int64_t ldx, const TI *__restrict__ Y, int64_t ldy,
                 int64_t k, T alpha, T beta, T *__restrict__ Z)
{
    constexpr int GROUPS = 32 / G; /* groups a warp */
    constexpr int U = sddmm_unroll_for<G, TI>();
    const int lane = threadIdx.x & 31, g = lane / G, l = lane % G;
    const int64_t warp = ((int64_t)blockIdx.x * SDDMM_BLOCK + threadIdx.x) / 32;
    const int64_t warps = (int64_t)gridDim.x * (SDDMM_BLOCK / 32);
    for (int64_t base = warp * (GROUPS * U); base < nnz; base += warps * (GROUPS * U)) {
        int64_t e[U];
        const TI *x[U], *y[U];
        T sum[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            e[u] = base + g + (int64_t)u * GROUPS;
            const int64_t ee = e[u] < nnz ? e[u] : nnz - 1; /* past the end: a real entry, unused */
            x[u] = X + (int64_t)__ldg(row + ee) * ldx + l * W;
            y[u] = Y + (int64_t)__ldg(col + ee) * ldy + l * W;
            sum[u] = T(0);
        }
        for (int64_t c = (int64_t)l * W; c - l * W < k; c += G * W) {
            T xv[U][W], yv[U][W];
#pragma unroll
            for (int u = 0; u < U; u++) {
                if (c < k) {
                    load_cols<TI, T, W, VEC>(x[u], c, k, xv[u]);
                    load_cols<TI, T, W, VEC>(y[u], c, k, yv[u]);
                } else {
#pragma unroll
                    for (int w = 0; w < W; w++)
                        xv[u][w] = yv[u][w] = T(0);
                }
                x[u] += G * W;
                y[u] += G * W;
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int w = 0; w < W; w++)
                    sum[u] = fma(xv[u][w], yv[u][w], sum[u]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
#pragma unroll
            for (int off = G / 2; off >= 1; off /= 2)
                sum[u] += __shfl_xor_sync(0xffffffffu, sum[u], off, G);
            if (l == 0 && e[u] < nnz)
                Z[e[u]] = beta == T(0) ? alpha * sum[u] : alpha * sum[u] + beta * Z[e[u]];
        }
    }
}

/* Blocks for n entries in tiles of per_block, capped (the kernel loops). */
static unsigned sddmm_grid(int64_t n, int64_t per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

template <typename TI, typename T, int G, int W>
static void launch_g(const spx__cuda_csr_plan *p, int64_t k, T alpha, const TI *X, int64_t ldx,
                     const TI *Y, int64_t ldy, T beta, T *Z)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned grid =
        sddmm_grid(p->A.nnz, (int64_t)SDDMM_BLOCK / G * sddmm_unroll_for<G, TI>());
    const bool vec = k % W == 0 && ldx % W == 0 && ldy % W == 0 && (uintptr_t)X % 16 == 0 &&
                     (uintptr_t)Y % 16 == 0;
    if (vec)
        spx__launch(sddmm_kernel<TI, T, G, W, true>, grid, SDDMM_BLOCK, s, 0, p->A.nnz,
                    p->sddmm_row, p->A.colidx, X, ldx, Y, ldy, k, alpha, beta, Z);
    else
        spx__launch(sddmm_kernel<TI, T, G, W, false>, grid, SDDMM_BLOCK, s, 0, p->A.nnz,
                    p->sddmm_row, p->A.colidx, X, ldx, Y, ldy, k, alpha, beta, Z);
}

/* G: the smallest power of two from 1 to 32 with G*W >= k, W entries of TI
 * in 16 bytes. */
template <typename TI, typename T>
static void launch_for_k(const spx__cuda_csr_plan *p, int64_t k, double alpha, const void *X,
                         int64_t ldx, const void *Y, int64_t ldy, double beta, void *Z)
{
    constexpr int W = 16 / sizeof(TI);
    const T a = (T)alpha, b = (T)beta;
    const TI *x = (const TI *)X, *y = (const TI *)Y;
    T *z = (T *)Z;
    const int64_t nv = (k + W - 1) / W;
    if (nv <= 1)
        launch_g<TI, T, 1, W>(p, k, a, x, ldx, y, ldy, b, z);
    else if (nv <= 2)
        launch_g<TI, T, 2, W>(p, k, a, x, ldx, y, ldy, b, z);
    else if (nv <= 4)
        launch_g<TI, T, 4, W>(p, k, a, x, ldx, y, ldy, b, z);
    else if (nv <= 8)
        launch_g<TI, T, 8, W>(p, k, a, x, ldx, y, ldy, b, z);
    else if (nv <= 16)
        launch_g<TI, T, 16, W>(p, k, a, x, ldx, y, ldy, b, z);
    else
        launch_g<TI, T, 32, W>(p, k, a, x, ldx, y, ldy, b, z);
}

extern "C" spx_status spx__cuda_csr_sddmm_rows(spx__cuda_csr_plan *p)
{
    spx_status st =
        spx__cuda_alloc((void **)&p->sddmm_row, (size_t)p->A.nnz * sizeof(int32_t), "SDDMM rows");
    if (st != SPX_OK || p->A.rows == 0) return st;
    cudaStream_t s = (cudaStream_t)p->stream;
    sddmm_rows_kernel<<<sddmm_grid(p->A.rows, SDDMM_BLOCK / 32), SDDMM_BLOCK, 0, s>>>(
        p->A.rows, p->A.rowptr, p->sddmm_row);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr SDDMM rows: %s", cudaGetErrorString(e));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_csr_sddmm(const spx__cuda_csr_plan *p, int64_t k, double alpha,
                                          const void *X, int64_t ldx, const void *Y, int64_t ldy,
                                          double beta, void *Z)
{
    if (!p || !p->sddmm_row)
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr sddmm: not an SDDMM plan");
    if (p->A.nnz == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        launch_for_k<double, double>(p, k, alpha, X, ldx, Y, ldy, beta, Z);
    else if (p->x_half)
        launch_for_k<__half, float>(p, k, alpha, X, ldx, Y, ldy, beta, Z);
    else
        launch_for_k<float, float>(p, k, alpha, X, ldx, Y, ldy, beta, Z);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr sddmm launch failed: %s",
                          cudaGetErrorString(e));
    return SPX_OK;
}
