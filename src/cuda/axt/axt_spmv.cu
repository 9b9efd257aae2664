/* AXC / AXT SpMV kernels, y = alpha*A*x + beta*y (layouts, work split and the
 * chain of launches: axt_cuda.h; where each partial sum goes: axt_lane.h).
 *
 * Stamped out for T = double or float (values, x, y and sums alike), LIVE
 * (x gathered through the slabs' columns, or read from the slabs' x copy that
 * the refresh kernel wrote) and ATOMIC (combine=atomic: the paper's atomicAdd
 * of each partial; else ordered). The matrix (ax values, columns, rwp, hdr)
 * is loaded with the streaming hint before the PDL wait; x, the x copy in
 * ax[], y and the carries only through spx__pdl_after pointers, x with
 * spx__ld_fresh (cuda/pdl.cuh). A lane loads STEPS slabs (axc, uh1) or
 * BATCH entries of its column (uh, ch) before it gathers their x, to keep
 * that many loads in flight. */
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/axt/axt_cuda.h"
#include "cuda/axt/axt_lane.h"
#include "cuda/gateway.h"
#include "cuda/pdl.cuh"

#define BLOCK 256 /* threads of the warp kernels' blocks */
#define WARPS (BLOCK / 32)
/* Warp kernels' blocks resident on a multiprocessor: 4 caps them at 64
 * registers (fp64 axc with x=refresh and fp64 ch spill 12 and 24 bytes). */
#ifndef SPX_AXT_MIN_BLOCKS
#define SPX_AXT_MIN_BLOCKS 4
#endif
#define MIN_BLOCKS SPX_AXT_MIN_BLOCKS
#define FULL 0xffffffffu
#define STEPS 4     /* slabs (axc) or two-slab steps (uh1) loaded before gathering */
#define BATCH 4     /* entries of a lane's column (uh, ch) loaded before gathering */
#define MAX_BS 1024 /* ch1: threads of a block */
#define MAX_GRID (1u << 30)

/* The plan's arrays and sizes as the kernels take them. */
template <typename T> struct axt_args {
    const unsigned char *ax;
    const int32_t *col, *rwp, *empty;
    const uint32_t *hdr;
    const int64_t *brp;
    int64_t *carry_row;
    T *carry_sum;
    int64_t sb, nslab, nunits, per, workers, rows, nnz, n_empty;
    int thw, th, bs, obits;
    T alpha, beta;
};

template <typename T> __device__ __forceinline__ T finish(T sum, const axt_args<T> &a, const T *yr)
{
    return a.beta == T(0) ? a.alpha * sum : a.alpha * sum + a.beta * *yr;
}

/* Value of lane l of slab s. */
template <typename T>
__device__ __forceinline__ T slab_value(const axt_args<T> &a, int64_t s, int l)
{
    return __ldcs((const T *)(a.ax + s * a.sb) + l);
}

/* x=live: the column of lane l of slab s, -1 in padding. */
template <typename T>
__device__ __forceinline__ int slab_col(const axt_args<T> &a, int64_t s, int l)
{
    return __ldcs((const int32_t *)(a.ax + s * a.sb + (int64_t)a.thw * sizeof(T)) + l);
}

/* The x operand of lane l of slab s, after the wait: x[c] (0 for padding,
 * whose x is not read, so an infinite x never meets a padded zero), or the
 * slab's x copy (axa: ax after the wait; the refresh kernel wrote it). */
template <typename T, bool LIVE>
__device__ __forceinline__ T slab_x(const axt_args<T> &a, int64_t s, int l, int c, const T *xa,
                                    const unsigned char *axa)
{
    if constexpr (LIVE)
        return c >= 0 ? spx__ld_fresh(xa + c) : T(0);
    else
        return __ldcs((const T *)(axa + s * a.sb + (int64_t)a.thw * sizeof(T)) + l);
}

/* Sum over groups of `width` lanes (32 or 16) by a butterfly: every lane of
 * the group ends with the same bits (each step adds a pair both ways). */
template <typename T> __device__ __forceinline__ T group_sum(T v, int width)
{
    for (int d = width / 2; d >= 1; d /= 2)
        v += __shfl_xor_sync(FULL, v, d);
    return v;
}

/* Inclusive scan of v over the warp, restarting at the lanes with head set. */
template <typename T> __device__ __forceinline__ T seg_scan(T v, int head, int lane)
{
    int f = head;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const T vu = __shfl_up_sync(FULL, v, d);
        const int fu = __shfl_up_sync(FULL, f, d);
        if (lane >= d) {
            v = SPX__AXT_SEG(vu, v, f);
            f |= fu;
        }
    }
    return v;
}

/* ------------------------------------------------- a warp's running row */

template <typename T> struct run_sum {
    spx__axt_run s;
    T acc;
    int64_t c0row; /* the warp's first row, once complete, and its sum */
    T c0sum;
};

template <typename T> __device__ __forceinline__ run_sum<T> run_start()
{
    run_sum<T> q = {spx__axt_run_new(), T(0), -1, T(0)};
    return q;
}

/* Partial v of row r, in the warp's row order (warp-uniform arguments). */
template <typename T>
__device__ __forceinline__ void emit(run_sum<T> &q, int64_t r, T v, const axt_args<T> &a, T *y,
                                     int lane)
{
    int64_t done = -1;
    const int act = spx__axt_run_emit(&q.s, r, &done);
    if (act == SPX__AXT_ADD) {
        q.acc += v;
        return;
    }
    if (act == SPX__AXT_TO_CARRY) {
        q.c0row = done;
        q.c0sum = q.acc;
    }
    if (act == SPX__AXT_TO_Y && lane == 0) {
        T *ya = spx__pdl_after(y);
        ya[done] = finish(q.acc, a, ya + done);
    }
    q.acc = v;
}

/* ordered: emit; atomic: the paper's atomicAdd of the partial. */
template <typename T, bool ATOMIC>
__device__ __forceinline__ void put(run_sum<T> &q, int64_t r, T v, const axt_args<T> &a, T *y,
                                    int lane)
{
    if constexpr (ATOMIC) {
        if (lane == 0) atomicAdd(spx__pdl_after(y) + r, a.alpha * v);
    } else {
        emit(q, r, v, a, y, lane);
    }
}

/* The end of producer w's range: its first and last rows to its carry slots. */
template <typename T>
__device__ __forceinline__ void end_range(const run_sum<T> &q, const axt_args<T> &a, int64_t w,
                                          int lane)
{
    if (lane != 0) return;
    int64_t *cr = spx__pdl_after(a.carry_row);
    T *cs = spx__pdl_after(a.carry_sum);
    const int slot = spx__axt_run_end(&q.s);
    cr[2 * w] = slot == 0 ? q.s.cur : slot == 1 ? q.c0row : -1;
    cs[2 * w] = slot == 0 ? q.acc : q.c0sum;
    cr[2 * w + 1] = slot == 1 ? q.s.cur : -1;
    cs[2 * w + 1] = q.acc;
}

/* The frame of the warp kernels (uh1, uh, ch): warp w takes units [u0, u1)
 * of `units`, units(q, u0, u1, lane) hands their partials in row order to
 * the running row q, whose first and last rows end in w's carry slots
 * (ordered). Every thread waits before it exits (cuda/pdl.cuh). */
template <typename T, bool ATOMIC, typename F>
__device__ __forceinline__ void over_ranges(const axt_args<T> &a, int64_t units, F units_of)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * WARPS;
    spx__pdl_let_next_start();
    for (int64_t w = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; w < a.workers; w += stride) {
        int64_t u0, u1;
        spx__axt_range(w, a.per, units, &u0, &u1);
        run_sum<T> q = run_start<T>();
        units_of(q, u0, u1, lane);
        if constexpr (!ATOMIC) end_range(q, a, w, lane);
    }
    spx__pdl_wait();
}

/* ------------------------------------------------------------------- axc */

/* A warp per row: lanes sum their lanes of the row's slabs, one reduction. */
template <typename T, bool LIVE>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) axc_kernel(axt_args<T> a, const T *x, T *y)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * WARPS;
    spx__pdl_let_next_start();
    for (int64_t r = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; r < a.rows; r += stride) {
        const int64_t s0 = __ldg(a.brp + r), s1 = __ldg(a.brp + r + 1);
        T sum = T(0);
        for (int64_t s = s0; s < s1; s += STEPS) { /* s, s1: the same for the warp */
            T v[STEPS], xv[STEPS];
            int c[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                v[j] = T(0);
                c[j] = -1;
                if (s + j < s1) {
                    v[j] = slab_value(a, s + j, lane);
                    if constexpr (LIVE) c[j] = slab_col(a, s + j, lane);
                }
            }
            const T *xa = spx__pdl_after(x);
            const unsigned char *axa = spx__pdl_after(a.ax);
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                xv[j] = s + j < s1 ? slab_x<T, LIVE>(a, s + j, lane, c[j], xa, axa) : T(0);
#pragma unroll
            for (int j = 0; j < STEPS; j++)
                if (s + j < s1) sum += v[j] * xv[j];
        }
        sum = group_sum(sum, 32);
        T *ya = spx__pdl_after(y);
        if (lane == 0) ya[r] = finish(sum, a, ya + r);
    }
    spx__pdl_wait(); /* a warp without rows */
}

/* --------------------------------------------------------------- axt-uh1 */

/* A warp over slabs [u0, u1) of 16 lanes, two a step (half warp each): a
 * slab's sum by a butterfly within its half, then the slabs in order. */
template <typename T, bool LIVE, bool ATOMIC>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) uh1_kernel(axt_args<T> a, const T *x, T *y)
{
    over_ranges<T, ATOMIC>(a, a.nslab, [&](run_sum<T> &q, int64_t u0, int64_t u1, int lane) {
        const int half = lane >> 4, hl = lane & 15;
        for (int64_t s = u0; s < u1; s += 2 * STEPS) {
            T v[STEPS], xv[STEPS];
            int c[STEPS], r[STEPS];
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                const int64_t sl = s + 2 * j + half;
                v[j] = T(0);
                c[j] = -1;
                r[j] = -1;
                if (sl < u1) {
                    v[j] = slab_value(a, sl, hl);
                    if constexpr (LIVE) c[j] = slab_col(a, sl, hl);
                    r[j] = __ldg(a.rwp + sl);
                }
            }
            const T *xa = spx__pdl_after(x);
            const unsigned char *axa = spx__pdl_after(a.ax);
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                const int64_t sl = s + 2 * j + half;
                xv[j] = sl < u1 ? slab_x<T, LIVE>(a, sl, hl, c[j], xa, axa) : T(0);
            }
#pragma unroll
            for (int j = 0; j < STEPS; j++) {
                const T p = group_sum(v[j] * xv[j], 16);
                const T p0 = __shfl_sync(FULL, p, 0), p1 = __shfl_sync(FULL, p, 16);
                const int r0 = __shfl_sync(FULL, r[j], 0), r1 = __shfl_sync(FULL, r[j], 16);
                if (s + 2 * j < u1) put<T, ATOMIC>(q, r0, p0, a, y, lane);
                if (s + 2 * j + 1 < u1) put<T, ATOMIC>(q, r1, p1, a, y, lane);
            }
        }
    });
}

/* ---------------------------------------------------------------- axt-uh */

/* Lane l's sum down its column of TH slabs of tile t. */
template <typename T, bool LIVE>
__device__ __forceinline__ T column_sum(const axt_args<T> &a, const T *x, int64_t t, int lane)
{
    const int64_t base = t * a.th;
    T sum = T(0);
    for (int f0 = 0; f0 < a.th; f0 += BATCH) {
        T v[BATCH], xv[BATCH];
        int c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            v[j] = T(0);
            c[j] = -1;
            if (f0 + j < a.th) {
                v[j] = slab_value(a, base + f0 + j, lane);
                if constexpr (LIVE) c[j] = slab_col(a, base + f0 + j, lane);
            }
        }
        const T *xa = spx__pdl_after(x);
        const unsigned char *axa = spx__pdl_after(a.ax);
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            xv[j] = f0 + j < a.th ? slab_x<T, LIVE>(a, base + f0 + j, lane, c[j], xa, axa) : T(0);
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            if (f0 + j < a.th) sum += v[j] * xv[j];
    }
    return sum;
}

/* uh, ordered: the 32 column sums of a tile, of rows r (nondecreasing across
 * the lanes), summed per row by a segmented scan; rows inside the tile to y,
 * its first and last rows on to the running row. */
template <typename T>
__device__ __forceinline__ void uh_tile_rows(run_sum<T> &q, int r, T sum, const axt_args<T> &a,
                                             T *y, int lane)
{
    const int rp = __shfl_up_sync(FULL, r, 1), rn = __shfl_down_sync(FULL, r, 1);
    const int head = lane == 0 || r != rp, tail = lane == 31 || rn != r;
    const T S = seg_scan(sum, head, lane);
    const int r0 = __shfl_sync(FULL, r, 0), rl = __shfl_sync(FULL, r, 31);
    if (tail && spx__axt_tile_inner(r, r0, rl)) {
        T *ya = spx__pdl_after(y);
        ya[r] = finish(S, a, ya + r);
    }
    const int k0 = __ffs(__ballot_sync(FULL, tail)) - 1;
    const T first = __shfl_sync(FULL, S, k0), last = __shfl_sync(FULL, S, 31);
    emit(q, r0, first, a, y, lane);
    if (rl != r0) emit(q, rl, last, a, y, lane);
}

/* A warp over tiles [u0, u1) of TH x 32: lane l sums column l, of row
 * rwp[t*32 + l]. */
template <typename T, bool LIVE, bool ATOMIC>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) uh_kernel(axt_args<T> a, const T *x, T *y)
{
    over_ranges<T, ATOMIC>(a, a.nunits, [&](run_sum<T> &q, int64_t u0, int64_t u1, int lane) {
        for (int64_t t = u0; t < u1; t++) {
            const int r = __ldg(a.rwp + t * 32 + lane);
            const T sum = column_sum<T, LIVE>(a, x, t, lane);
            if constexpr (ATOMIC)
                atomicAdd(spx__pdl_after(y) + r, a.alpha * sum);
            else
                uh_tile_rows(q, r, sum, a, y, lane);
        }
    });
}

/* ---------------------------------------------------------------- axt-ch */

/* Lane l's walk down its column of tile t: nseg segments, the first of row
 * rf and sum sf, the last of row rl and sum sl; segments between (whole rows)
 * go to y (ordered), every segment atomically (atomic). */
template <typename T> struct column_walk {
    int nseg, rf, rl;
    T sf, sl;
};

template <typename T, bool ATOMIC>
__device__ __forceinline__ void close_segment(column_walk<T> &c, const axt_args<T> &a, T *y)
{
    T *ya = spx__pdl_after(y);
    if constexpr (ATOMIC)
        atomicAdd(ya + c.rl, a.alpha * c.sl);
    else if (c.nseg == 1)
        c.sf = c.sl;
    else
        ya[c.rl] = finish(c.sl, a, ya + c.rl);
}

template <typename T, bool LIVE, bool ATOMIC>
__device__ __forceinline__ column_walk<T> walk_column(const axt_args<T> &a, const T *x, T *y,
                                                      int64_t t, int lane)
{
    const int64_t base = t * a.th;
    column_walk<T> c = {0, -1, -1, T(0), T(0)};
    for (int f0 = 0; f0 < a.th; f0 += BATCH) {
        T v[BATCH], xv[BATCH];
        int col[BATCH];
        uint32_t h[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            v[j] = T(0);
            col[j] = -1;
            h[j] = 0;
            if (f0 + j < a.th) {
                v[j] = slab_value(a, base + f0 + j, lane);
                if constexpr (LIVE) col[j] = slab_col(a, base + f0 + j, lane);
                h[j] = __ldcs(a.hdr + (base + f0 + j) * 32 + lane);
            }
        }
        const T *xa = spx__pdl_after(x);
        const unsigned char *axa = spx__pdl_after(a.ax);
#pragma unroll
        for (int j = 0; j < BATCH; j++)
            xv[j] = f0 + j < a.th ? slab_x<T, LIVE>(a, base + f0 + j, lane, col[j], xa, axa) : T(0);
#pragma unroll
        for (int j = 0; j < BATCH; j++) {
            if (f0 + j >= a.th) continue;
            const T p = v[j] * xv[j];
            if (!h[j]) {
                c.sl += p;
                continue;
            }
            if (c.nseg >= 1) close_segment<T, ATOMIC>(c, a, y);
            c.sl = p;
            c.rl = (int)(h[j] >> a.obits) - 1;
            if (c.nseg == 0) c.rf = c.rl;
            c.nseg++;
        }
    }
    if (c.nseg == 1) c.sf = c.sl;
    return c;
}

/* ch, ordered: the columns' first and last segments of a tile joined across
 * the lanes (axt_lane.h: chains by a segmented scan of the last segments). */
template <typename T>
__device__ __forceinline__ void ch_tile_rows(run_sum<T> &q, const column_walk<T> &c,
                                             const axt_args<T> &a, T *y, int lane)
{
    const int rl_prev = __shfl_up_sync(FULL, c.rl, 1), rf_next = __shfl_down_sync(FULL, c.rf, 1);
    const int last = 31 - __clz(__ballot_sync(FULL, c.nseg >= 1)); /* lane 0 always has one */
    const int start = spx__axt_ch_starts_chain(lane, c.nseg, c.rf, rl_prev);
    const T S = seg_scan(c.nseg >= 1 ? c.sl : T(0), start, lane);
    const T Sprev = __shfl_up_sync(FULL, S, 1);
    const T t1 = spx__axt_ch_first_closes(lane, c.nseg, c.rf, rl_prev) ? Sprev + c.sf : c.sf;
    const int ends = spx__axt_ch_chain_ends(lane, last, c.nseg, c.rl, rf_next);
    const int r0 = __shfl_sync(FULL, c.rf, 0), rL = __shfl_sync(FULL, c.rl, last);
    T *ya = spx__pdl_after(y);
    if (c.nseg >= 2 && spx__axt_tile_inner(c.rf, r0, rL)) ya[c.rf] = finish(t1, a, ya + c.rf);
    if (ends && spx__axt_tile_inner(c.rl, r0, rL)) ya[c.rl] = finish(S, a, ya + c.rl);
    const T lastv = __shfl_sync(FULL, S, last);
    const int own1 = c.nseg >= 2 && c.rf == r0, own2 = ends && c.rl == r0;
    const int k = __ffs(__ballot_sync(FULL, own1 || own2)) - 1;
    const T first = __shfl_sync(FULL, own1 ? t1 : S, k);
    if (r0 == rL) {
        emit(q, r0, lastv, a, y, lane);
    } else {
        emit(q, r0, first, a, y, lane);
        emit(q, rL, lastv, a, y, lane);
    }
}

/* A warp over tiles [u0, u1) of TH x 32 packed entries, column-major. */
template <typename T, bool LIVE, bool ATOMIC>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) ch_kernel(axt_args<T> a, const T *x, T *y)
{
    over_ranges<T, ATOMIC>(a, a.nunits, [&](run_sum<T> &q, int64_t u0, int64_t u1, int lane) {
        for (int64_t t = u0; t < u1; t++) {
            const column_walk<T> c = walk_column<T, LIVE, ATOMIC>(a, x, y, t, lane);
            if constexpr (ATOMIC) {
                if (c.nseg >= 1) atomicAdd(spx__pdl_after(y) + c.rl, a.alpha * c.sl);
            } else {
                ch_tile_rows(q, c, a, y, lane);
            }
        }
    });
}

/* --------------------------------------------------------------- axt-ch1 */

/* A block of BS threads per block of BS packed entries (thread i: entry i,
 * lane i % 32 of slab i / 32): segmented scans per warp, the warps' open sums
 * chained by warp 0 (cin[w]: the open segment's sum entering warp w), each
 * head's segment sum read at its last entry. */
template <typename T, bool LIVE, bool ATOMIC>
__global__ void __launch_bounds__(MAX_BS) ch1_kernel(axt_args<T> a, const T *x, T *y)
{
    __shared__ T sc[MAX_BS];
    __shared__ T wtail[32], cin[32];
    __shared__ int whead[32];
    const int i = threadIdx.x, lane = i & 31, wi = i >> 5, nw = a.bs >> 5;
    const uint32_t omask = (1u << a.obits) - 1u;
    spx__pdl_let_next_start();
    for (int64_t u = blockIdx.x; u < a.nunits; u += gridDim.x) {
        const int64_t e = u * a.bs + i, slab = e >> 5;
        const T v = slab_value(a, slab, lane);
        int c = -1;
        if constexpr (LIVE) c = slab_col(a, slab, lane);
        const uint32_t h = __ldcs(a.hdr + e);
        const T *xa = spx__pdl_after(x);
        const unsigned char *axa = spx__pdl_after(a.ax);
        const T p = v * slab_x<T, LIVE>(a, slab, lane, c, xa, axa);
        const int head = h != 0;
        const T S = seg_scan(p, head, lane);
        const int any_head = __ballot_sync(FULL, head) != 0;
        if (lane == 31) {
            wtail[wi] = S;
            whead[wi] = any_head;
        }
        sc[i] = S;
        __syncthreads();
        if (wi == 0) {
            const T W = seg_scan(lane < nw ? wtail[lane] : T(0), lane < nw ? whead[lane] : 0, lane);
            const T Wprev = __shfl_up_sync(FULL, W, 1);
            if (lane < nw) cin[lane] = lane == 0 ? T(0) : Wprev;
        }
        __syncthreads();
        if (head) {
            const int last = i + (int)(h & omask), lw = last >> 5;
            const T total = lw != wi ? sc[last] + cin[lw] : sc[last];
            const int64_t row = (int64_t)(h >> a.obits) - 1;
            T *ya = spx__pdl_after(y);
            if constexpr (ATOMIC) {
                atomicAdd(ya + row, a.alpha * total);
            } else {
                const int64_t left = a.nnz - u * a.bs;
                const int nvalid = left < a.bs ? (int)left : a.bs;
                const int dest = spx__axt_ch1_dest(i, last, nvalid);
                if (dest == SPX__AXT_DEST_Y) {
                    ya[row] = finish(total, a, ya + row);
                } else {
                    int64_t *cr = spx__pdl_after(a.carry_row);
                    T *cs = spx__pdl_after(a.carry_sum);
                    const int64_t k = 2 * u + (dest == SPX__AXT_DEST_CARRY1);
                    cr[k] = row;
                    cs[k] = total;
                    if (dest == SPX__AXT_DEST_CARRY0 && last == nvalid - 1) cr[2 * u + 1] = -1;
                }
            }
        }
        __syncthreads(); /* sc, wtail, cin are the next block's */
    }
    spx__pdl_wait();
}

/* ------------------------------------------------- refresh, scale, combine */

/* x=refresh: every x slot of ax[] from x through col[] (0 for padding). */
template <typename T>
__global__ void __launch_bounds__(BLOCK)
    refresh_kernel(unsigned char *ax, const int32_t *col, int64_t cells, int lg_thw, int64_t sb,
                   const T *x)
{
    spx__pdl_let_next_start();
    unsigned char *axw = spx__pdl_after(ax); /* the call before may still read it */
    const T *xa = spx__pdl_after(x);
    const int thw = 1 << lg_thw;
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < cells; i += stride) {
        const int c = __ldcs(col + i);
        T *slot = (T *)(axw + (i >> lg_thw) * sb + (int64_t)thw * sizeof(T)) + (i & (thw - 1));
        *slot = c >= 0 ? spx__ld_fresh(xa + c) : T(0);
    }
}

/* combine=atomic: y = beta*y (0 when beta == 0, y not read) before the atomics. */
template <typename T>
__global__ void __launch_bounds__(BLOCK) scale_kernel(int64_t rows, T beta, T *y)
{
    spx__pdl_let_next_start();
    T *ya = spx__pdl_after(y);
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < rows; i += stride)
        ya[i] = beta == T(0) ? T(0) : beta * ya[i];
}

/* combine=ordered, second pass: each carried row summed in producer order by
 * the thread of its first carry entry; rows without entries y = beta*y. */
template <typename T> __global__ void __launch_bounds__(BLOCK) combine_kernel(axt_args<T> a, T *y)
{
    spx__pdl_let_next_start();
    const int64_t *cr = spx__pdl_after((const int64_t *)a.carry_row);
    const T *cs = spx__pdl_after((const T *)a.carry_sum);
    T *ya = spx__pdl_after(y);
    const int64_t n = 2 * a.workers, stride = (int64_t)gridDim.x * BLOCK;
    const int64_t first = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    for (int64_t k = first; k < n; k += stride) {
        if (!spx__axt_combine_first(cr, k)) continue;
        const int64_t r = cr[k];
        T acc = cs[k];
        for (int64_t j = k + 1; j < n; j++) {
            const int64_t rj = cr[j];
            if (rj < 0) continue;
            if (rj != r) break;
            acc += cs[j];
        }
        ya[r] = finish(acc, a, ya + r);
    }
    for (int64_t k = first; k < a.n_empty; k += stride) {
        const int64_t r = __ldg(a.empty + k);
        ya[r] = a.beta == T(0) ? T(0) : a.beta * ya[r];
    }
}

/* ---------------------------------------------------------------- launch */

static unsigned grid_for(int64_t items, int64_t per_block)
{
    const int64_t b = (items + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b > MAX_GRID ? MAX_GRID : b);
}

template <typename T>
static axt_args<T> args_of(const spx__cuda_axt_plan *p, double alpha, double beta)
{
    axt_args<T> a;
    a.ax = p->ax;
    a.col = p->col;
    a.rwp = p->rwp;
    a.empty = p->empty;
    a.hdr = p->hdr;
    a.brp = p->brp;
    a.carry_row = p->carry_row;
    a.carry_sum = (T *)p->carry_sum;
    a.sb = p->sb;
    a.nslab = p->nslab;
    a.nunits = p->nunits;
    a.per = p->per_worker;
    a.workers = p->workers;
    a.rows = p->rows;
    a.nnz = p->nnz;
    a.n_empty = p->n_empty;
    a.thw = p->thw;
    a.th = p->th;
    a.bs = p->bs;
    a.obits = p->obits;
    a.alpha = (T)alpha;
    a.beta = (T)beta;
    return a;
}

/* The product kernel of p's variant. */
template <typename T, bool LIVE, bool ATOMIC>
static void launch_main(const spx__cuda_axt_plan *p, const axt_args<T> &a, const T *x, T *y)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    const unsigned warps = grid_for(p->workers, WARPS);
    switch (p->variant) {
    case SPX__CUDA_AXT_UH1:
        spx__launch(uh1_kernel<T, LIVE, ATOMIC>, warps, BLOCK, s, p->pdl, a, x, y);
        break;
    case SPX__CUDA_AXT_UH:
        spx__launch(uh_kernel<T, LIVE, ATOMIC>, warps, BLOCK, s, p->pdl, a, x, y);
        break;
    case SPX__CUDA_AXT_CH:
        spx__launch(ch_kernel<T, LIVE, ATOMIC>, warps, BLOCK, s, p->pdl, a, x, y);
        break;
    default:
        spx__launch(ch1_kernel<T, LIVE, ATOMIC>, grid_for(p->nunits, 1), (unsigned)p->bs, s, p->pdl,
                    a, x, y);
        break;
    }
}

template <typename T, bool LIVE>
static void launch_live(const spx__cuda_axt_plan *p, const axt_args<T> &a, const T *x, T *y)
{
    cudaStream_t s = (cudaStream_t)p->stream;
    if (p->variant == SPX__CUDA_AXC) {
        spx__launch(axc_kernel<T, LIVE>, grid_for(p->rows, WARPS), BLOCK, s, p->pdl, a, x, y);
        return;
    }
    if (p->atomic)
        spx__launch(scale_kernel<T>, grid_for(p->rows, BLOCK), BLOCK, s, p->pdl, p->rows, a.beta,
                    y);
    if (p->workers > 0 && p->atomic) launch_main<T, LIVE, true>(p, a, x, y);
    if (p->workers > 0 && !p->atomic) launch_main<T, LIVE, false>(p, a, x, y);
    const int64_t tail = 2 * p->workers > p->n_empty ? 2 * p->workers : p->n_empty;
    if (!p->atomic && tail > 0)
        spx__launch(combine_kernel<T>, grid_for(tail, BLOCK), BLOCK, s, p->pdl, a, y);
}

template <typename T>
static void launch(const spx__cuda_axt_plan *p, double alpha, const void *x, double beta, void *y)
{
    const axt_args<T> a = args_of<T>(p, alpha, beta);
    const int64_t cells = p->nslab * p->thw;
    if (!p->live && cells > 0)
        spx__launch(refresh_kernel<T>, grid_for(cells, BLOCK), BLOCK, (cudaStream_t)p->stream,
                    p->pdl, p->ax, (const int32_t *)p->col, cells, p->thw == 16 ? 4 : 5, p->sb,
                    (const T *)x);
    if (p->live)
        launch_live<T, true>(p, a, (const T *)x, (T *)y);
    else
        launch_live<T, false>(p, a, (const T *)x, (T *)y);
}

extern "C" spx_status spx__cuda_axt_spmv(const spx__cuda_axt_plan *p, double alpha, const void *x,
                                         double beta, void *y)
{
    if (!p || (p->rows > 0 && !y) || (p->cols > 0 && p->nnz > 0 && !x))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda axt spmv: NULL plan or vector");
    if (p->rows == 0) return SPX_OK;
    if (p->precision == SPX_F64)
        launch<double>(p, alpha, x, beta, y);
    else
        launch<float>(p, alpha, x, beta, y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "cuda axt spmv launch failed: %s", cudaGetErrorString(e));
    return SPX_OK;
}

/* ---------------------------------------------------------- new values */

/* Where the cells' columns are: the slabs' second half (x=live) or col[]. */
struct cell_columns {
    const unsigned char *ax;
    const int32_t *col; /* x=refresh, else NULL */
    int64_t sb, vsize;
    int thw;
};

/* The column of lane l of slab s (-1: padding). */
__device__ __forceinline__ int32_t column_of(const cell_columns &c, int64_t s, int l)
{
    if (c.col) return c.col[s * c.thw + l];
    return reinterpret_cast<const int32_t *>(c.ax + s * c.sb + c.thw * c.vsize)[l];
}

/* A thread per run: its entries, the cells not holding column -1. */
__global__ void __launch_bounds__(BLOCK)
    run_entries_kernel(spx__axt_runs runs, cell_columns c, int64_t *n)
{
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t q = (int64_t)blockIdx.x * BLOCK + threadIdx.x; q < runs.n; q += stride) {
        int64_t k = 0, s;
        int l;
        for (int i = 0; i < spx__axt_run_cells(runs); i++) {
            spx__axt_run_cell(runs, q, i, &s, &l);
            k += column_of(c, s, l) >= 0;
        }
        n[q] = k;
    }
}

/* A thread per cell: lane l of slab s takes the entry its run names. */
template <typename T>
__global__ void __launch_bounds__(BLOCK) values_kernel(unsigned char *ax, spx__axt_runs runs,
                                                       cell_columns c, int64_t cells, const T *src)
{
    const int64_t stride = (int64_t)gridDim.x * BLOCK;
    for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < cells; i += stride) {
        const int64_t s = i / runs.thw;
        const int l = (int)(i % runs.thw);
        const int pad = !runs.packed && column_of(c, s, l) < 0;
        const int64_t e = spx__axt_cell_entry(runs, s, l, pad);
        reinterpret_cast<T *>(ax + s * c.sb)[l] = e >= 0 ? src[e] : T(0);
    }
}

#define VALUES_TRY(call)                                                                           \
    do {                                                                                           \
        e = (call);                                                                                \
        if (e != cudaSuccess) goto cleanup;                                                        \
    } while (0)

/* runs.first: the exclusive scan of the runs' entries, in *tmp (CUB's
 * storage, then n counts and n first entries). */
static cudaError_t scan_runs(spx__axt_runs *runs, const cell_columns &c, void **tmp, cudaStream_t s)
{
    const int64_t n = runs->n;
    size_t bytes = 0, room;
    int64_t *count;
    cudaError_t e;
    VALUES_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (int64_t *)nullptr, (int64_t *)nullptr,
                                             n, s));
    room = (bytes + 255) / 256 * 256;
    VALUES_TRY(cudaMallocAsync(tmp, room + 2 * (size_t)n * sizeof(int64_t), s));
    count = (int64_t *)((char *)*tmp + room);
    run_entries_kernel<<<grid_for(n, BLOCK), BLOCK, 0, s>>>(*runs, c, count);
    VALUES_TRY(cudaGetLastError());
    VALUES_TRY(cub::DeviceScan::ExclusiveSum(*tmp, bytes, count, count + n, n, s));
    runs->first = count + n;
cleanup:
    return e;
}

extern "C" spx_status spx__cuda_axt_values(const spx__cuda_axt_plan *p, const void *src)
{
    if (!p || (p->nnz > 0 && !src))
        return spx__error(SPX_ERR_INVALID_ARG, "cuda axt values: bad arguments");
    const int64_t cells = p->nslab * p->thw;
    const cell_columns c = {
        p->ax, p->col, p->sb,
        p->precision == SPX_F64 ? (int64_t)sizeof(double) : (int64_t)sizeof(float), p->thw};
    spx__axt_runs runs = spx__axt_runs_of(p->variant, p->thw, p->th, p->nnz, p->nslab, p->nunits);
    cudaStream_t s = (cudaStream_t)p->stream;
    void *tmp = nullptr;
    cudaError_t e = cudaSuccess;
    if (cells == 0) return SPX_OK;
    if (!runs.packed) VALUES_TRY(scan_runs(&runs, c, &tmp, s));
    if (p->precision == SPX_F64)
        values_kernel<double>
            <<<grid_for(cells, BLOCK), BLOCK, 0, s>>>(p->ax, runs, c, cells, (const double *)src);
    else
        values_kernel<float>
            <<<grid_for(cells, BLOCK), BLOCK, 0, s>>>(p->ax, runs, c, cells, (const float *)src);
    VALUES_TRY(cudaGetLastError());
    VALUES_TRY(cudaStreamSynchronize(s));
cleanup:
    if (tmp) {
        cudaFreeAsync(tmp, s);
        cudaStreamSynchronize(s);
    }
    if (e != cudaSuccess)
        return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                          "cuda axt values: %s", cudaGetErrorString(e));
    return SPX_OK;
}
