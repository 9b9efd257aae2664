/* tsparse: the tile products on the tensor cores (the method: tsparse.h).
 *
 * A warp takes the tiles of C c1 = 2w and c2 = 2w + 1 (one thread block of
 * the paper is one warp here; eight share a block) and runs their task lists
 * side by side, one task of each per step, the shorter padded with empty
 * tiles. With g = lane / 4 and t = lane % 4:
 *
 *   fp16, mma.sync m16n8k16 (half in, fp32 accumulation):
 *     A = [A1 0; 0 A2] (16x16), B = [B1; B2] (16x8), A*B = [A1 B1; A2 B2]:
 *     a0 = (A1[g][2t], A1[g][2t+1]), a1 = a2 = 0, a3 = (A2[g][2t], A2[g][2t+1]),
 *     b0 = (B1[2t][g], B1[2t+1][g]), b1 = (B2[2t][g], B2[2t+1][g]),
 *     d0, d1 = C1[g][2t], C1[g][2t+1]; d2, d3 = C2[g][2t], C2[g][2t+1]:
 *     one mma gives both tile products (the paper's two tiles on the
 *     diagonal of a 16x16 fragment; its 16x16x16 shape would compute a
 *     16x16 C whose off-diagonal blocks are zero, this shape only the two
 *     diagonal blocks).
 *   fp64, mma.sync m8n8k4 (DMMA): a tile product is two mma, k = 0..3 then
 *     4..7: a = A[g][t] (A[g][t+4]), b = B[t][g] (B[t+4][g]), d0, d1 =
 *     C[g][2t], C[g][2t+1]; a step is four mma, two a tile of C (skipped
 *     for an empty padding task: the test is the same in every lane).
 *
 * Element (r, c) of a tile is bit 8r + c; its value is loaded when the bit
 * is set, at the tile's offset plus the bit's rank, else 0. A lane loads the
 * task pairs and bitmaps of 32 steps at once, and each step takes them from
 * that lane with shuffles, so the dependent loads of a step are its values
 * only. Lane l's two results of a tile of C are its bits 2l and 2l + 1:
 * they are written at their rank in C's pattern, and two ballots of "value
 * not 0" interleaved give the tile's bitmap of nonzeros. The sums of one
 * mma are in the order the hardware takes (the PTX ISA leaves it open); a
 * tile of C sums its tasks in increasing K. */
#include <cuda_fp16.h>

#include "cpu/tile8.h"
#include "cuda/spgemm/tsparse_dev.cuh"

namespace spx_tsparse {

#define BLOCK 256
#define WARPS (BLOCK / 32)

/* One task's tiles: bitmaps and first values of its tile of A and of B. */
struct task_meta {
    uint64_t abits, bbits;
    int64_t aoff, boff;
};

static __device__ __forceinline__ task_meta load_meta(bool valid, const uint64_t *pair,
                                                      int64_t t, const spx__cuda_tiles &A,
                                                      const spx__cuda_tiles &B)
{
    task_meta m = {0, 0, 0, 0};
    if (valid) {
        const uint64_t pr = pair[t];
        const int64_t ta = (int64_t)(pr >> 32), tb = (int64_t)(pr & 0xffffffffu);
        m.abits = A.bits[ta];
        m.bbits = B.bits[tb];
        m.aoff = A.off[ta];
        m.boff = B.off[tb];
    }
    return m;
}

static __device__ __forceinline__ task_meta from_lane(const task_meta &m, int src)
{
    task_meta x;
    x.abits = __shfl_sync(FULL, m.abits, src);
    x.bbits = __shfl_sync(FULL, m.bbits, src);
    x.aoff = __shfl_sync(FULL, m.aoff, src);
    x.boff = __shfl_sync(FULL, m.boff, src);
    return x;
}

/* Value of bit b of a tile (0 when absent). */
template <typename V>
static __device__ __forceinline__ V element(const V *val, uint64_t bits, int64_t off, int b)
{
    return bits >> b & 1 ? val[off + spx__tile8_rank(bits, b)] : V(0);
}

struct path_f16 {
    using V = __half;
    using W = float;
    /* bits b0 and b1 of a tile in one register, b0 in the low half */
    static __device__ __forceinline__ uint32_t two(const __half *val, uint64_t bits, int64_t off,
                                                   int b0, int b1)
    {
        const __half lo = element(val, bits, off, b0), hi = element(val, bits, off, b1);
        return (uint32_t)__half_as_ushort(lo) | (uint32_t)__half_as_ushort(hi) << 16;
    }
    static __device__ __forceinline__ void step(float d[4], int g, int t, const __half *av,
                                                const __half *bv, const task_meta &m1,
                                                const task_meta &m2)
    {
        const uint32_t a0 = two(av, m1.abits, m1.aoff, 8 * g + 2 * t, 8 * g + 2 * t + 1);
        const uint32_t a3 = two(av, m2.abits, m2.aoff, 8 * g + 2 * t, 8 * g + 2 * t + 1);
        const uint32_t b0 = two(bv, m1.bbits, m1.boff, 16 * t + g, 16 * t + 8 + g);
        const uint32_t b1 = two(bv, m2.bbits, m2.boff, 16 * t + g, 16 * t + 8 + g);
        const uint32_t zero = 0;
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a0), "r"(zero), "r"(zero), "r"(a3), "r"(b0), "r"(b1));
    }
};

struct path_f64 {
    using V = double;
    using W = double;
    static __device__ __forceinline__ void mma(double &d0, double &d1, double a, double b)
    {
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                     "{%0, %1};"
                     : "+d"(d0), "+d"(d1)
                     : "d"(a), "d"(b));
    }
    /* d0, d1 += the tile product of task m (two mma). */
    static __device__ __forceinline__ void product(double &d0, double &d1, int g, int t,
                                                   const double *av, const double *bv,
                                                   const task_meta &m)
    {
        const double a_lo = element(av, m.abits, m.aoff, 8 * g + t);
        const double a_hi = element(av, m.abits, m.aoff, 8 * g + t + 4);
        const double b_lo = element(bv, m.bbits, m.boff, 8 * t + g);
        const double b_hi = element(bv, m.bbits, m.boff, 8 * (t + 4) + g);
        mma(d0, d1, a_lo, b_lo);
        mma(d0, d1, a_hi, b_hi);
    }
    static __device__ __forceinline__ void step(double d[4], int g, int t, const double *av,
                                                const double *bv, const task_meta &m1,
                                                const task_meta &m2)
    {
        if (m1.abits) product(d[0], d[1], g, t, av, bv, m1);
        if (m2.abits) product(d[2], d[3], g, t, av, bv, m2);
    }
};

/* Bits of x moved to the even positions of a 64-bit word. */
static __device__ __forceinline__ uint64_t spread(uint32_t x)
{
    uint64_t v = x;
    v = (v | v << 16) & 0x0000ffff0000ffffull;
    v = (v | v << 8) & 0x00ff00ff00ff00ffull;
    v = (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
    v = (v | v << 2) & 0x3333333333333333ull;
    v = (v | v << 1) & 0x5555555555555555ull;
    return v;
}

/* Lane l's results v0, v1 (bits 2l, 2l + 1) of tile c of C; every lane calls. */
template <typename W>
static __device__ __forceinline__ void store_tile(const ctiles &C, int64_t c, int lane, W v0,
                                                  W v1)
{
    const uint64_t S = C.bits[c];
    const int64_t off = C.off[c];
    const int b0 = 2 * lane, b1 = b0 + 1;
    const bool p0 = S >> b0 & 1, p1 = S >> b1 & 1;
    W *val = (W *)C.val;
    if (p0) val[off + spx__tile8_rank(S, b0)] = v0;
    if (p1) val[off + spx__tile8_rank(S, b1)] = v1;
    const unsigned lo = __ballot_sync(FULL, p0 && v0 != W(0));
    const unsigned hi = __ballot_sync(FULL, p1 && v1 != W(0));
    if (lane == 0) C.nz[c] = spread(lo) | spread(hi) << 1;
}

template <class Path>
__global__ void __launch_bounds__(BLOCK)
    multiply_kernel(panel_tasks P, spx__cuda_tiles A, spx__cuda_tiles B, ctiles C)
{
    using V = typename Path::V;
    using W = typename Path::W;
    const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const V *av = (const V *)A.val, *bv = (const V *)B.val;
    const int64_t npairs = (P.nc + 1) / 2, stride = (int64_t)gridDim.x * WARPS;
    for (int64_t w = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / 32; w < npairs; w += stride) {
        const int64_t c1 = 2 * w, c2 = c1 + 1, s1 = P.cstart[c1], n1 = P.cstart[c1 + 1] - s1;
        const bool second = c2 < P.nc;
        const int64_t s2 = second ? P.cstart[c2] : 0, n2 = second ? P.cstart[c2 + 1] - s2 : 0;
        const int64_t n = n1 > n2 ? n1 : n2;
        W d[4] = {0, 0, 0, 0};
        for (int64_t base = 0; base < n; base += 32) {
            const task_meta m1 = load_meta(base + lane < n1, P.pair, s1 + base + lane, A, B);
            const task_meta m2 = load_meta(base + lane < n2, P.pair, s2 + base + lane, A, B);
            const int steps = n - base < 32 ? (int)(n - base) : 32;
            for (int j = 0; j < steps; j++)
                Path::step(d, g, t, av, bv, from_lane(m1, j), from_lane(m2, j));
        }
        store_tile<W>(C, c1, lane, d[0], d[1]);
        if (second) store_tile<W>(C, c2, lane, d[2], d[3]);
    }
}

spx_status ctiles_multiply(const spx__cuda_tiles *A, const spx__cuda_tiles *B,
                           const panel_tasks *P, spx_type precision, cudaStream_t s, ctiles *C)
{
    if (P->nc == 0) return SPX_OK;
    const unsigned grid = blocks_for((P->nc + 1) / 2 * 32, BLOCK);
    if (precision == SPX_F16)
        multiply_kernel<path_f16><<<grid, BLOCK, 0, s>>>(*P, *A, *B, *C);
    else
        multiply_kernel<path_f64><<<grid, BLOCK, 0, s>>>(*P, *A, *B, *C);
    return launched("tsparse multiply kernel");
}

} // namespace spx_tsparse
