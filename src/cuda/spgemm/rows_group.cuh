/* gpu-rows: how a group of GROUP threads (a warp, or a whole block) walks
 * the products of one row of A, shared by the hash kernels (rows_hash.cu)
 * and the dense ones (rows_dense.cu).
 *
 * The row's entries of A come in chunks of GROUP: thread q loads entry q's B
 * row start and length, a prefix sum over the group places the chunk's
 * products end to end, and thread q then takes products q, q + GROUP, ...,
 * finding each one's entry of A by a binary search over the chunk's
 * offsets. So short and long rows of B keep every thread busy. */
#ifndef SPX_CUDA_SPGEMM_ROWS_GROUP_CUH
#define SPX_CUDA_SPGEMM_ROWS_GROUP_CUH

#include "cuda/spgemm/rows_dev.cuh"

namespace spx_rows {

template <int GROUP> static __device__ __forceinline__ void group_sync()
{
    if constexpr (GROUP == 32) __syncwarp();
    else __syncthreads();
}

/* Per group, in shared memory. */
template <int GROUP, typename V> struct scratch {
    int64_t off[GROUP]; /* first product of entry q of the chunk */
    int64_t bs[GROUP];  /* its B row's first entry */
    V a[GROUP];         /* its value */
    int64_t warp_sums[32];
    int64_t total;      /* products of the chunk; dense write-out: entries of a pass;
                           compaction: filled slots of a chunk */
    int count;          /* symbolic: columns found; hash: past the limit, gave up */
};

/* Inclusive prefix sum over the group (GROUP = 32 or the block). */
template <int GROUP>
static __device__ __forceinline__ int64_t group_inclusive(int64_t v, int64_t *warp_sums)
{
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        const int64_t u = __shfl_up_sync(FULL, v, d);
        if (lane >= d) v += u;
    }
    if constexpr (GROUP > 32) {
        const int w = threadIdx.x / 32;
        if (lane == 31) warp_sums[w] = v;
        __syncthreads();
        if (w == 0) {
            int64_t x = lane < GROUP / 32 ? warp_sums[lane] : 0;
            for (int d = 1; d < 32; d <<= 1) {
                const int64_t u = __shfl_up_sync(FULL, x, d);
                if (lane >= d) x += u;
            }
            if (lane < GROUP / 32) warp_sums[lane] = x;
        }
        __syncthreads();
        if (w > 0) v += warp_sums[w - 1];
        __syncthreads();
    }
    return v;
}

/* visit(col, a, kb) for every product A(i,k) * B(k,col) of row i (kb: the
 * entry of B, a = A(i,k)); a thread leaves its share of a chunk when visit
 * returns false, and the group stops after a chunk once sc->count > limit.
 * Ends with the group synchronised. */
template <int GROUP, bool VALUES, typename V, typename Visit>
static __device__ void for_products(int64_t i, const hash_job &J, int limit,
                                    scratch<GROUP, V> *sc, Visit visit)
{
    const int tid = threadIdx.x % GROUP;
    const V *av = (const V *)J.A.val;
    const int64_t a0 = J.A.rp[i], a1 = J.A.rp[i + 1];
    for (int64_t c0 = a0; c0 < a1; c0 += GROUP) {
        const int64_t j = c0 + tid;
        int64_t len = 0, bs = 0;
        V a = V(0);
        if (j < a1) {
            const int32_t k = J.A.col[j];
            bs = J.B.rp[k];
            len = J.B.rp[k + 1] - bs;
            if (VALUES) a = av[j];
        }
        const int64_t incl = group_inclusive<GROUP>(len, sc->warp_sums);
        sc->off[tid] = incl - len;
        sc->bs[tid] = bs;
        sc->a[tid] = a;
        if (tid == GROUP - 1) sc->total = incl;
        group_sync<GROUP>();
        for (int64_t p = tid; p < sc->total; p += GROUP) {
            int lo = 0, hi = GROUP; /* the first entry whose products start after p */
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (sc->off[mid] <= p) lo = mid + 1;
                else hi = mid;
            }
            const int64_t kb = sc->bs[lo - 1] + (p - sc->off[lo - 1]);
            if (!visit(J.B.col[kb], sc->a[lo - 1], kb)) break;
        }
        group_sync<GROUP>();
        if (sc->count > limit) break;
    }
}

} // namespace spx_rows

#endif
