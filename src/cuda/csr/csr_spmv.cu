/* CSR SpMV kernels, y = alpha*A*x + beta*y (layout and row split: csr_kernels.h).
 *
 * One body per kernel, stamped out for the value type V (double, float, half)
 * and the accumulation and vector type T (double for double values, float
 * otherwise). The matrix arrays are read once per call, so they are loaded
 * with the streaming hint (__ldcs: evict first) to leave L2 to x, which is
 * gathered through the read-only cache (__ldg). beta == 0 never reads y. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/csr/csr_kernels.h"

#define BLOCK SPX__CUDA_CSR_BLOCK
#define CHUNK_ITEMS (SPX__CUDA_CSR_CHUNK / 32)
/* Thread blocks per multiprocessor the stream kernel with chunks is built
 * for: with row blocks of 2048, 64 registers for fp64 (what the row blocks
 * alone take; left free, the compiler would take 74 and fit only 3), 48 for
 * float sums; with 1024, 48. */
#define STREAM_MIN_BLOCKS(T, NNZ) (NNZ < 2048 ? 5 : sizeof(T) == 8 ? 4 : 5)

template <typename T> __device__ __forceinline__ T finish(T sum, T alpha, T beta, const T *y)
{
    return beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
}

/* Sum of the group's lanes (width G, aligned in the warp) into its lane 0. */
template <int G, typename T> __device__ __forceinline__ T group_sum(T v, unsigned mask)
{
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1)
        v += __shfl_down_sync(mask, v, off, G);
    return v;
}

/* Rows up to long_len: G lanes per row, lanes stride through the row. */
template <typename V, typename T, int G>
__global__ void __launch_bounds__(BLOCK)
    csr_group_kernel(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                     const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
                     T beta, int64_t long_len)
{
    const int lane = threadIdx.x & (G - 1);
    const unsigned mask =
        G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x & 31) & ~(G - 1));
    const int64_t step = (int64_t)gridDim.x * (BLOCK / G);
    for (int64_t row = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / G; row < rows; row += step) {
        const int64_t beg = __ldg(rp + row), end = __ldg(rp + row + 1);
        if (end - beg > long_len) continue; /* same for the whole group */
        T sum = T(0);
#pragma unroll 4
        for (int64_t k = beg + lane; k < end; k += G)
            sum += T(__ldcs(val + k)) * __ldg(x + __ldcs(ci + k));
        sum = group_sum<G>(sum, mask);
        if (lane == 0) y[row] = finish(sum, alpha, beta, y + row);
    }
}

/* A row block's rows from their products: row i's are prod[off(i) ..
 * off(i + 1)), summed by nt = 2^j lanes (as many as nt * nrows <= BLOCK
 * allows, at most 32) in a fixed order, then y[r0 + i] written. */
template <typename T, typename Off>
__device__ __forceinline__ void sum_rows(const T *prod, Off off, int nrows, int64_t r0,
                                         T *__restrict__ y, T alpha, T beta)
{
    int nt = 1;
    while (nt < 32 && 2 * nt * nrows <= BLOCK)
        nt *= 2;
    const int row = threadIdx.x / nt, lane = threadIdx.x & (nt - 1);
    if (row >= nrows) return; /* the same for the nt lanes of a row */
    const unsigned mask =
        nt == 32 ? 0xffffffffu : ((1u << nt) - 1u) << ((threadIdx.x & 31) & ~(nt - 1));
    const int end = off(row + 1);
    T sum = T(0);
    for (int k = off(row) + lane; k < end; k += nt)
        sum += prod[k];
    for (int d = nt / 2; d > 0; d >>= 1)
        sum += __shfl_down_sync(mask, sum, d, nt);
    if (lane == 0) y[r0 + row] = finish(sum, alpha, beta, y + r0 + row);
}

/* Rows up to long_len, in row blocks (csr_kernels.h): this thread block's
 * row blocks first, first + step, ... The block's bounds come from one
 * 32-byte record (every thread reads it: a broadcast), so the loads of its
 * nonzeros and of its row offsets (as offsets into the block, int32 in shared
 * memory) go out together; then the x gathers; products go to shared memory
 * and each row is summed by nt = 2^j lanes (nt * rows <= BLOCK). Three round
 * trips to memory per row block instead of four; with fewer thread blocks
 * than row blocks (p->grid), each loads the record of its next row block
 * while it works on this one: two. */
template <typename V, typename T, int NNZ>
__device__ __forceinline__ void
stream_blocks(int64_t first, int64_t step, int64_t n_blocks, const longlong2 *__restrict__ blk,
              const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
              const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
              T beta)
{
    constexpr int ITEMS = NNZ / BLOCK;
    __shared__ T prod[NNZ];
    __shared__ int off[BLOCK + 1];
    int64_t b = first;
    longlong2 rows, nz, next_rows = {0, 0}, next_nz = {0, 0};
    if (b < n_blocks) {
        next_rows = __ldg(blk + 2 * b);
        next_nz = __ldg(blk + 2 * b + 1);
    }
    for (; b < n_blocks; b += step) {
        rows = next_rows;
        nz = next_nz;
        if (b + step < n_blocks) { /* the next row block's record, while this one runs */
            next_rows = __ldg(blk + 2 * (b + step));
            next_nz = __ldg(blk + 2 * (b + step) + 1);
        }
        const int64_t r0 = rows.x, base = nz.x;
        const int nrows = (int)(rows.y - r0), nnz = (int)(nz.y - base);
        int col[ITEMS];
        V v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const int k = threadIdx.x + j * BLOCK;
            if (k < nnz) {
                col[j] = __ldcs(ci + base + k);
                v[j] = __ldcs(val + base + k);
            }
        }
        for (int i = threadIdx.x; i <= nrows; i += BLOCK)
            off[i] = (int)(__ldcs(rp + r0 + i) - base);
        T xg[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; j++)
            if (threadIdx.x + j * BLOCK < nnz) xg[j] = __ldg(x + col[j]);
#pragma unroll
        for (int j = 0; j < ITEMS; j++) {
            const int k = threadIdx.x + j * BLOCK;
            if (k < nnz) prod[k] = T(v[j]) * xg[j];
        }
        __syncthreads();
        sum_rows(
            prod, [&](int i) { return off[i]; }, nrows, r0, y, alpha, beta);
        __syncthreads(); /* prod and off are reused by the next row block */
    }
}

/* Long rows, first pass: a warp per chunk of at most SPX__CUDA_CSR_CHUNK
 * nonzeros, CHUNK_ITEMS per lane, GROUP of them (all by default) in flight
 * before their products; the sum's order does not depend on GROUP. Thread
 * block `block` of `n_block` doing chunks. */
template <typename V, typename T, int GROUP = CHUNK_ITEMS>
__device__ __forceinline__ void
chunk_warps(int64_t block, int64_t n_block, int64_t n_chunks, const int64_t *__restrict__ cbeg,
            const int64_t *__restrict__ cend, const int32_t *__restrict__ ci,
            const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ partial)
{
    const int lane = threadIdx.x & 31;
    const int64_t step = n_block * (BLOCK / 32);
    for (int64_t c = (block * BLOCK + threadIdx.x) / 32; c < n_chunks; c += step) {
        const int64_t beg0 = cbeg[c] + lane, end = cend[c];
        T sum = T(0);
#pragma unroll
        for (int j0 = 0; j0 < CHUNK_ITEMS; j0 += GROUP) {
            const int64_t beg = beg0 + 32 * j0;
            int col[GROUP];
            V v[GROUP];
            T xg[GROUP];
#pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (beg + 32 * j < end) {
                    col[j] = __ldcs(ci + beg + 32 * j);
                    v[j] = __ldcs(val + beg + 32 * j);
                }
#pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (beg + 32 * j < end) xg[j] = __ldg(x + col[j]);
#pragma unroll
            for (int j = 0; j < GROUP; j++)
                if (beg + 32 * j < end) sum += T(v[j]) * xg[j];
        }
        sum = group_sum<32>(sum, 0xffffffffu);
        if (lane == 0) partial[c] = sum;
    }
}

/* The row blocks alone (no long rows). */
template <typename V, typename T, int NNZ>
__global__ void __launch_bounds__(BLOCK)
    csr_stream_kernel(int64_t n_blocks, const longlong2 *__restrict__ blk,
                      const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                      const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ y,
                      T alpha, T beta)
{
    stream_blocks<V, T, NNZ>(blockIdx.x, gridDim.x, n_blocks, blk, rp, ci, val, x, y, alpha, beta);
}

/* Row blocks and long rows' chunks in one launch: thread blocks [0,
 * chunk_grid) do the chunks (first, as a long row's may be the last to end),
 * the others the row blocks. The branch is the same for a whole thread
 * block, so the row blocks' __syncthreads are safe. */
template <typename V, typename T, int NNZ>
__global__ void __launch_bounds__(BLOCK, STREAM_MIN_BLOCKS(T, NNZ))
    csr_stream_chunk_kernel(int64_t n_blocks, const longlong2 *__restrict__ blk,
                            const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                            const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ y,
                            T alpha, T beta, unsigned chunk_grid, int64_t n_chunks,
                            const int64_t *__restrict__ cbeg, const int64_t *__restrict__ cend,
                            T *__restrict__ partial)
{
    if (blockIdx.x < chunk_grid)
        chunk_warps<V, T>(blockIdx.x, chunk_grid, n_chunks, cbeg, cend, ci, val, x, partial);
    else
        stream_blocks<V, T, NNZ>(blockIdx.x - chunk_grid, gridDim.x - chunk_grid, n_blocks, blk, rp,
                                 ci, val, x, y, alpha, beta);
}

/* ---- The pipelined stream kernel (pipe=1 or 2; layout: csr_kernels.h).
 * A stage holds one row block's values, columns and row offsets, each the
 * 16-byte-aligned superset of its range (cp.async copies whole granules):
 * element k of the block sits at index shift + k, shift = (first byte % 16) /
 * element size. Sizes: NNZ * sizeof(V) + 16, NNZ * 4 + 16 and (BLOCK + 2) * 8
 * bytes (the offsets of BLOCK rows and their end). The products overwrite the
 * stage in place (each thread reads element k, then writes its product there):
 * doubles over the values, floats over the columns for half values. */
template <typename V, int NNZ> struct pipe_stage {
    static constexpr int VAL = NNZ * (int)sizeof(V) + 16;
    static constexpr int COL = NNZ * 4 + 16;
    static constexpr int ROW = (BLOCK + 2) * 8;
    static constexpr int BYTES = VAL + COL + ROW;
};

/* Thread blocks per multiprocessor the shared memory allows (228 KB, 1 KB
 * reserved per block; two stages of 26.7 KB for fp64 with 2048 nonzeros: 4,
 * fp32 6), at most 6, given to __launch_bounds__: registers (40) do not cut
 * it further, and 7 or 8 (fp16, 32 registers) spilled. */
#define PIPE_FIT(V, NNZ) (233472 / (2 * pipe_stage<V, NNZ>::BYTES + 1024))
#define PIPE_MIN_BLOCKS(V, NNZ) (PIPE_FIT(V, NNZ) < 6 ? PIPE_FIT(V, NNZ) : 6)

__device__ __forceinline__ uint64_t evict_first_policy()
{
    uint64_t pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

__device__ __forceinline__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* Bytes [lo, hi) of an array of `bytes` bytes as 16-byte granules from g0 =
 * lo rounded down: `full` bytes of whole granules inside the array, then, when
 * the range reaches a granule holding the array's end, `tail` (< 16) bytes up
 * to that end. */
struct pipe_span {
    int64_t g0;
    int full, tail;
};

__device__ __forceinline__ pipe_span span_of(int64_t bytes, int64_t lo, int64_t hi)
{
    pipe_span r = {lo & ~(int64_t)15, 0, 0};
    if (lo >= hi) return r;
    const int64_t gend = (hi + 15) & ~(int64_t)15, whole = bytes & ~(int64_t)15;
    r.full = (int)((gend < whole ? gend : whole) - r.g0);
    r.tail = gend > whole ? (int)(bytes - whole) : 0;
    return r;
}

/* The span's whole granules into dst: one cp.async of 16 bytes per granule
 * (BULK false, every thread; src-size is given, 16: on the H100 the form with
 * a cache policy and no src-size ran into an illegal instruction in the fp32
 * kernel) or one bulk copy completing on the mbarrier bar
 * (BULK true, thread 0, which has set the barrier's byte count); the tail by
 * plain 2-byte loads and stores (every element size is a multiple of 2),
 * ordered for the readers by the __syncthreads after the wait. */
template <bool BULK>
__device__ __forceinline__ void copy_span(unsigned char *dst, const void *arr, pipe_span sp,
                                          uint64_t pol, unsigned bar)
{
    const unsigned char *src = (const unsigned char *)arr + sp.g0;
    if (BULK) {
        if (threadIdx.x == 0 && sp.full > 0)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                         ".L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(dst)),
                         "l"(src), "r"(sp.full), "r"(bar), "l"(pol)
                         : "memory");
    } else {
        for (int i = threadIdx.x * 16; i < sp.full; i += BLOCK * 16)
            asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;" ::"r"(
                             smem_addr(dst + i)),
                         "l"(src + i), "r"(16), "l"(pol)
                         : "memory");
    }
    if ((int)threadIdx.x < sp.tail / 2)
        ((unsigned short *)(dst + sp.full))[threadIdx.x] =
            __ldcs((const unsigned short *)(src + sp.full) + threadIdx.x);
}

/* Issue the copies of row block (rows, nz) into stage st: per-thread cp.async
 * (one commit group) or, BULK, three bulk copies whose bytes thread 0 first
 * announces on the stage's mbarrier bar. */
template <typename V, int NNZ, bool BULK>
__device__ __forceinline__ void
pipe_issue(unsigned char *st, longlong2 rows, longlong2 nz, int64_t n_rows, int64_t nnz_all,
           const int64_t *rp, const int32_t *ci, const V *val, uint64_t pol, unsigned bar)
{
    typedef pipe_stage<V, NNZ> S;
    const int64_t vs = (int64_t)sizeof(V);
    const pipe_span sv = span_of(nnz_all * vs, nz.x * vs, nz.y * vs);
    const pipe_span sc = span_of(nnz_all * 4, nz.x * 4, nz.y * 4);
    const pipe_span sr = span_of((n_rows + 1) * 8, rows.x * 8, (rows.y + 1) * 8);
    if (BULK && threadIdx.x == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
                     "r"(sv.full + sc.full + sr.full)
                     : "memory");
    copy_span<BULK>(st, val, sv, pol, bar);
    copy_span<BULK>(st + S::VAL, ci, sc, pol, bar);
    copy_span<BULK>(st + S::VAL + S::COL, rp, sr, pol, bar);
    if (!BULK) asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Wait until the stage's copies have landed: BULK, phase `parity` of its
 * mbarrier; else this thread's cp.async groups (and the records'). */
template <bool BULK> __device__ __forceinline__ void pipe_wait(unsigned bar, unsigned parity)
{
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    if (BULK)
        asm volatile("{\n .reg .pred p;\n wait%=:\n"
                     " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                     " @!p bra wait%=;\n}" ::"r"(bar),
                     "r"(parity)
                     : "memory");
}

/* One row block from its stage: products in place, then each row summed by
 * nt = 2^j lanes as in stream_blocks. Ends with the stage's products read;
 * the caller's next __syncthreads frees it. */
template <typename V, typename T, int NNZ>
__device__ __forceinline__ void pipe_compute(unsigned char *st, longlong2 rows, longlong2 nz,
                                             const T *__restrict__ x, T *__restrict__ y, T alpha,
                                             T beta)
{
    typedef pipe_stage<V, NNZ> S;
    constexpr int ITEMS = NNZ / BLOCK;
    const int64_t r0 = rows.x, base = nz.x;
    const int nrows = (int)(rows.y - r0), nnz = (int)(nz.y - base);
    const V *val = (const V *)st + (int)((base * (int64_t)sizeof(V)) & 15) / (int)sizeof(V);
    const int32_t *col = (const int32_t *)(st + S::VAL) + (int)(base & 3);
    const int64_t *off = (const int64_t *)(st + S::VAL + S::COL) + (int)(r0 & 1);
    T *prod = sizeof(V) == sizeof(T) ? (T *)val : (T *)col;
    T xg[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const int k = threadIdx.x + j * BLOCK;
        if (k < nnz) xg[j] = __ldg(x + col[k]);
    }
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        const int k = threadIdx.x + j * BLOCK;
        if (k < nnz) prod[k] = T(val[k]) * xg[j];
    }
    __syncthreads();
    sum_rows(
        prod, [&](int i) { return (int)(off[i] - base); }, nrows, r0, y, alpha, beta);
}

/* This thread block's row blocks first, first + step, ...: block i + 1's
 * copies go out (into the other stage) before block i's gathers and sums and
 * are waited for at the top of the next iteration, whose __syncthreads also
 * frees the stage for block i + 2 (BULK: after a proxy fence, as the products
 * were written there by the threads and the bulk copy writes through the
 * async proxy; stage s's barrier completes phase k at its k-th use). The
 * records travel by cp.async in three shared slots (iteration i reads slot
 * i % 3 for its sums and (i + 1) % 3 for its copies, and fills (i + 2) % 3),
 * so no record is held in registers. */
template <typename V, typename T, int NNZ, bool BULK>
__device__ __forceinline__ void
pipe_blocks(int64_t first, int64_t step, int64_t n_blocks, const longlong2 *__restrict__ blk,
            int64_t n_rows, int64_t nnz_all, const int64_t *__restrict__ rp,
            const int32_t *__restrict__ ci, const V *__restrict__ val, const T *__restrict__ x,
            T *__restrict__ y, T alpha, T beta)
{
    typedef pipe_stage<V, NNZ> S;
    extern __shared__ __align__(16) unsigned char pipe_smem[];
    __shared__ longlong2 rec[3][2];
    __shared__ uint64_t bars[2];
    if (first >= n_blocks) return;
    const uint64_t pol = evict_first_policy();
    const unsigned bar0 = smem_addr(&bars[0]), bar1 = smem_addr(&bars[1]);
    if (threadIdx.x < 2)
        rec[0][threadIdx.x] = __ldg(blk + 2 * first + threadIdx.x);
    else if (threadIdx.x < 4 && first + step < n_blocks)
        rec[1][threadIdx.x - 2] = __ldg(blk + 2 * (first + step) + threadIdx.x - 2);
    if (BULK && threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar0) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar1) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    pipe_issue<V, NNZ, BULK>(pipe_smem, rec[0][0], rec[0][1], n_rows, nnz_all, rp, ci, val, pol,
                             bar0);
    int s = 0, r = 0;
    unsigned use = 0; /* iteration count: stage s's use is use / 2 */
    for (int64_t b = first; b < n_blocks; b += step, use++) {
        pipe_wait<BULK>(s ? bar1 : bar0, (use >> 1) & 1);
        if (BULK) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        const int rn = r == 2 ? 0 : r + 1, ra = rn == 2 ? 0 : rn + 1;
        if (b + step < n_blocks) {
            if (threadIdx.x < 2 && b + 2 * step < n_blocks) {
                asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(
                                 smem_addr(&rec[ra][threadIdx.x])),
                             "l"(blk + 2 * (b + 2 * step) + threadIdx.x)
                             : "memory");
                asm volatile("cp.async.commit_group;" ::: "memory");
            }
            pipe_issue<V, NNZ, BULK>(pipe_smem + (s ^ 1) * S::BYTES, rec[rn][0], rec[rn][1], n_rows,
                                     nnz_all, rp, ci, val, pol, s ? bar0 : bar1);
        }
        pipe_compute<V, T, NNZ>(pipe_smem + s * S::BYTES, rec[r][0], rec[r][1], x, y, alpha, beta);
        s ^= 1;
        r = rn;
    }
}

/* Long rows' chunks in thread blocks [0, chunk_grid) (none when 0), the
 * pipelined row blocks in the others (copies by cp.async, or BULK by the
 * bulk copy engine); the branch is the same for a whole thread block. */
template <typename V, typename T, int NNZ, bool BULK>
__global__ void __launch_bounds__(BLOCK, PIPE_MIN_BLOCKS(V, NNZ))
    csr_pipe_kernel(int64_t n_blocks, const longlong2 *__restrict__ blk, int64_t n_rows,
                    int64_t nnz_all, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                    const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ y, T alpha,
                    T beta, unsigned chunk_grid, int64_t n_chunks, const int64_t *__restrict__ cbeg,
                    const int64_t *__restrict__ cend, T *__restrict__ partial)
{
    if (blockIdx.x < chunk_grid)
        chunk_warps<V, T, 2>(blockIdx.x, chunk_grid, n_chunks, cbeg, cend, ci, val, x, partial);
    else
        pipe_blocks<V, T, NNZ, BULK>(blockIdx.x - chunk_grid, gridDim.x - chunk_grid, n_blocks, blk,
                                     n_rows, nnz_all, rp, ci, val, x, y, alpha, beta);
}

/* The chunks alone (after the vector kernel). */
template <typename V, typename T>
__global__ void __launch_bounds__(BLOCK)
    csr_chunk_kernel(int64_t n_chunks, const int64_t *__restrict__ cbeg,
                     const int64_t *__restrict__ cend, const int32_t *__restrict__ ci,
                     const V *__restrict__ val, const T *__restrict__ x, T *__restrict__ partial)
{
    chunk_warps<V, T>(blockIdx.x, gridDim.x, n_chunks, cbeg, cend, ci, val, x, partial);
}

/* Long rows, second pass: a warp per row adds its chunks in a fixed order. */
template <typename T>
__global__ void __launch_bounds__(BLOCK)
    csr_long_finish_kernel(int64_t n_long, const int64_t *__restrict__ long_rows,
                           const int64_t *__restrict__ long_first, const T *__restrict__ partial,
                           T *__restrict__ y, T alpha, T beta)
{
    const int lane = threadIdx.x & 31;
    const int64_t step = (int64_t)gridDim.x * (BLOCK / 32);
    for (int64_t r = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; r < n_long; r += step) {
        T sum = T(0);
        for (int64_t c = long_first[r] + lane; c < long_first[r + 1]; c += 32)
            sum += partial[c];
        sum = group_sum<32>(sum, 0xffffffffu);
        if (lane == 0) {
            const int64_t row = long_rows[r];
            y[row] = finish(sum, alpha, beta, y + row);
        }
    }
}

/* Blocks for n work items of `per_block` items each, capped (the kernels loop). */
static unsigned grid_for(int64_t n, int64_t per_block)
{
    int64_t b = (n + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > (1 << 30) ? (1 << 30) : b);
}

template <typename V, typename T, int G>
static void launch_group(const spx__cuda_csr_plan *p, const T *x, T *y, T alpha, T beta)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    csr_group_kernel<V, T, G><<<grid_for(p->A.rows, BLOCK / G), BLOCK, 0, s>>>(
        p->A.rows, p->A.rowptr, p->A.colidx, (const V *)p->A.values, x, y, alpha, beta,
        p->long_len);
}

template <typename V, typename T>
static void launch_vector(const spx__cuda_csr_plan *p, const T *x, T *y, T alpha, T beta)
{
    switch (p->group) {
    case 1: launch_group<V, T, 1>(p, x, y, alpha, beta); break;
    case 2: launch_group<V, T, 2>(p, x, y, alpha, beta); break;
    case 4: launch_group<V, T, 4>(p, x, y, alpha, beta); break;
    case 8: launch_group<V, T, 8>(p, x, y, alpha, beta); break;
    case 16: launch_group<V, T, 16>(p, x, y, alpha, beta); break;
    default: launch_group<V, T, 32>(p, x, y, alpha, beta); break;
    }
}

/* The stream kernel, with the long rows' chunks when there are any. */
template <typename V, typename T, int NNZ>
static void launch_stream(const spx__cuda_csr_plan *p, const T *x, T *y, T alpha, T beta,
                          unsigned chunk_grid)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned stream_grid = p->n_blocks == 0                       ? 0
                                 : p->grid > 0 && p->grid < p->n_blocks ? (unsigned)p->grid
                                                                        : grid_for(p->n_blocks, 1);
    if (chunk_grid == 0 && stream_grid > 0)
        csr_stream_kernel<V, T, NNZ>
            <<<stream_grid, BLOCK, 0, s>>>(p->n_blocks, (const longlong2 *)p->blk, p->A.rowptr,
                                           p->A.colidx, (const V *)p->A.values, x, y, alpha, beta);
    else if (chunk_grid > 0)
        csr_stream_chunk_kernel<V, T, NNZ><<<chunk_grid + stream_grid, BLOCK, 0, s>>>(
            p->n_blocks, (const longlong2 *)p->blk, p->A.rowptr, p->A.colidx,
            (const V *)p->A.values, x, y, alpha, beta, chunk_grid, p->n_chunks, p->chunk_beg,
            p->chunk_end, (T *)p->partial);
}

/* The pipelined kernel, with the long rows' chunks when there are any: as
 * many persistent thread blocks as fit (the occupancy of this instantiation,
 * asked once, times the multiprocessors) or p->grid, at most one per row
 * block. */
template <typename V, typename T, int NNZ, bool BULK>
static void launch_pipe(const spx__cuda_csr_plan *p, const T *x, T *y, T alpha, T beta,
                        unsigned chunk_grid)
{
    const int smem = 2 * pipe_stage<V, NNZ>::BYTES;
    static const int per_sm = [] {
        int n = 0;
        cudaFuncSetAttribute(csr_pipe_kernel<V, T, NNZ, BULK>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, csr_pipe_kernel<V, T, NNZ, BULK>, BLOCK,
                                                      smem);
        return n > 0 ? n : 1;
    }();
    const int64_t want = p->grid > 0 ? p->grid : per_sm * (p->sms > 0 ? p->sms : 1);
    const unsigned stream_grid = (unsigned)(want < p->n_blocks ? want : p->n_blocks);
    if (stream_grid + chunk_grid == 0) return;
    csr_pipe_kernel<V, T, NNZ, BULK>
        <<<chunk_grid + stream_grid, BLOCK, smem, (cudaStream_t)p->stream>>>(
            p->n_blocks, (const longlong2 *)p->blk, p->A.rows, p->A.nnz, p->A.rowptr, p->A.colidx,
            (const V *)p->A.values, x, y, alpha, beta, chunk_grid, p->n_chunks, p->chunk_beg,
            p->chunk_end, (T *)p->partial);
}

template <typename V, typename T, int NNZ>
static void launch_pipe_copy(const spx__cuda_csr_plan *p, const T *x, T *y, T alpha, T beta,
                             unsigned chunk_grid)
{
    if (p->pipe == 2)
        launch_pipe<V, T, NNZ, true>(p, x, y, alpha, beta, chunk_grid);
    else
        launch_pipe<V, T, NNZ, false>(p, x, y, alpha, beta, chunk_grid);
}

template <typename V, typename T>
static void launch_all(const spx__cuda_csr_plan *p, double alpha_d, const void *xv, double beta_d,
                       void *yv)
{
    const T *x = (const T *)xv;
    T *y = (T *)yv;
    const T alpha = (T)alpha_d, beta = (T)beta_d;
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned chunk_grid = p->n_long ? grid_for(p->n_chunks, BLOCK / 32) : 0;
    if (p->kernel == SPX__CUDA_CSR_VECTOR) {
        launch_vector<V, T>(p, x, y, alpha, beta);
        if (p->n_long)
            csr_chunk_kernel<V, T>
                <<<chunk_grid, BLOCK, 0, s>>>(p->n_chunks, p->chunk_beg, p->chunk_end, p->A.colidx,
                                              (const V *)p->A.values, x, (T *)p->partial);
    } else if (p->pipe && p->block_nnz < SPX__CUDA_CSR_STREAM_NNZ) {
        launch_pipe_copy<V, T, SPX__CUDA_CSR_STREAM_NNZ_MIN>(p, x, y, alpha, beta, chunk_grid);
    } else if (p->pipe) {
        launch_pipe_copy<V, T, SPX__CUDA_CSR_STREAM_NNZ>(p, x, y, alpha, beta, chunk_grid);
    } else if (p->block_nnz < SPX__CUDA_CSR_STREAM_NNZ) {
        launch_stream<V, T, SPX__CUDA_CSR_STREAM_NNZ_MIN>(p, x, y, alpha, beta, chunk_grid);
    } else {
        launch_stream<V, T, SPX__CUDA_CSR_STREAM_NNZ>(p, x, y, alpha, beta, chunk_grid);
    }
    if (p->n_long == 0) return;
    csr_long_finish_kernel<T><<<grid_for(p->n_long, BLOCK / 32), BLOCK, 0, s>>>(
        p->n_long, p->long_rows, p->long_first, (const T *)p->partial, y, alpha, beta);
}

extern "C" spx_status spx__cuda_csr_spmv(const spx__cuda_csr_plan *p, double alpha, const void *x,
                                         double beta, void *y)
{
    if (!p || (p->A.rows > 0 && !y) || (p->A.cols > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda csr spmv: NULL plan or vector");
    if (p->A.rows == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        launch_all<double, double>(p, alpha, x, beta, y);
    else if (p->precision == SPX_F32)
        launch_all<float, float>(p, alpha, x, beta, y);
    else
        launch_all<__half, float>(p, alpha, x, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda csr spmv launch failed: %s", cudaGetErrorString(e));
    return SPX_OK;
}
