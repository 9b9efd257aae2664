/* gpu-rows: the hash kernels, one body for every bin (the method: rows.h).
 *
 * A group of GROUP threads (a warp, eight rows a block, or a whole block)
 * takes a row i of A and a table of T slots (a power of two; keys int32,
 * EMPTY = INT32_MAX; numeric: sums of the value type beside them), in shared
 * memory or, for the rows too large for it, in global memory. The group
 * walks the row's products as rows_group.cuh says; a product's column
 * claims a slot (linear probing from a mixed hash of the
 * column, atomicCAS on an empty key) and, numeric, adds its value there
 * (atomicAdd).
 * Symbolic: the row's count is the number of slots claimed; in bin 8 a
 * thread stops once a claim of its own passes BIG_LIMIT columns, so at most
 * GROUP claims pass it and the table never fills; such a row's count is -1
 * and its index goes to the list for the global tables.
 * Numeric: the table's filled slots are moved to its front (a prefix sum of
 * the filled flags, chunk after chunk), sorted by key with a bitonic network
 * over the next power of two (EMPTY pads it, last), and the first
 * nnz(C(i,:)) slots written to C. Sorting the whole table instead (at most
 * half full by the binning, often a quarter) cost delaunay_n16 squared's
 * numeric bin of 128 slots 263 us against 40 us for its symbolic pass on
 * the same rows (run AK, ncu: 2800 warp instructions a row for about 40
 * products, the sort's 28 stages the most of them). */
#include <limits.h>

#include "cuda/spgemm/rows_group.cuh"

namespace spx_rows {

#define EMPTY INT32_MAX
#define WARP_BLOCK 256 /* threads a block for the warp-per-row bins */

static __device__ __forceinline__ int64_t first_slot(int32_t col, int64_t mask)
{
    uint32_t h = (uint32_t)col;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return (int64_t)h & mask;
}

/* The slot holding col, claimed when col is new (*added). Every probe is an
 * atomicCAS, so that no thread reads a key another may be writing. */
static __device__ __forceinline__ int64_t claim(int32_t *keys, int64_t mask, int32_t col,
                                                bool *added)
{
    for (int64_t s = first_slot(col, mask);; s = (s + 1) & mask) {
        const int32_t old = atomicCAS(&keys[s], EMPTY, col);
        *added = old == EMPTY;
        if (old == EMPTY || old == col) return s;
    }
}

/* Row i's products into the table (keys, vals of T slots). */
template <int GROUP, bool NUMERIC, typename V>
static __device__ void hash_row(int64_t i, const hash_job &J, int32_t *keys, V *vals, int64_t T,
                                int limit, scratch<GROUP, V> *sc)
{
    const int tid = threadIdx.x % GROUP;
    const V *bv = (const V *)J.B.val;
    for (int64_t e = tid; e < T; e += GROUP) {
        keys[e] = EMPTY;
        if (NUMERIC) vals[e] = V(0);
    }
    if (tid == 0) sc->count = 0;
    group_sync<GROUP>();
    for_products<GROUP, NUMERIC, V>(i, J, limit, sc, [&](int32_t col, V a, int64_t kb) {
        bool added;
        const int64_t s = claim(keys, T - 1, col, &added);
        if (NUMERIC) atomicAdd(&vals[s], a * bv[kb]);
        else if (added && atomicAdd(&sc->count, 1) >= limit) return false;
        return true;
    });
}

/* Ascending sort of the table by key, values alongside. */
template <int GROUP, typename V>
static __device__ void bitonic(int32_t *keys, V *vals, int64_t T)
{
    const int tid = threadIdx.x % GROUP;
    for (int64_t k = 2; k <= T; k <<= 1) {
        for (int64_t d = k >> 1; d > 0; d >>= 1) {
            for (int64_t x = tid; x < T; x += GROUP) {
                const int64_t y = x ^ d;
                if (y <= x) continue;
                const int32_t kx = keys[x], ky = keys[y];
                if ((x & k) == 0 ? kx > ky : kx < ky) {
                    keys[x] = ky;
                    keys[y] = kx;
                    const V t = vals[x];
                    vals[x] = vals[y];
                    vals[y] = t;
                }
            }
            group_sync<GROUP>();
        }
    }
}

/* Moves the filled slots of the table (keys not EMPTY, values alongside) to
 * its front in slot order and sets the keys after them, up to the next power
 * of two P, to EMPTY; returns P. A chunk's slots are all read before any is
 * written, and each goes to a slot at or before its own. */
template <int GROUP, typename V>
static __device__ int64_t compact(int32_t *keys, V *vals, int64_t T, scratch<GROUP, V> *sc)
{
    const int tid = threadIdx.x % GROUP;
    int64_t filled = 0;
    for (int64_t x0 = 0; x0 < T; x0 += GROUP) {
        const int64_t x = x0 + tid;
        const int32_t k = x < T ? keys[x] : EMPTY;
        const V v = x < T ? vals[x] : V(0);
        const int64_t full = k != EMPTY;
        const int64_t incl = group_inclusive<GROUP>(full, sc->warp_sums);
        if (tid == GROUP - 1) sc->total = incl;
        group_sync<GROUP>();
        if (full) {
            keys[filled + incl - 1] = k;
            vals[filled + incl - 1] = v;
        }
        filled += sc->total;
        group_sync<GROUP>();
    }
    int64_t P = 1;
    while (P < filled) P <<= 1;
    for (int64_t x = filled + tid; x < P; x += GROUP) keys[x] = EMPTY;
    group_sync<GROUP>();
    return P;
}

template <int GROUP> constexpr int rows_per_block() { return GROUP == 32 ? WARP_BLOCK / 32 : 1; }

/* Shared bytes of one group: its table (none for global tables) and scratch. */
template <int GROUP, bool NUMERIC, typename V>
static __host__ __device__ size_t group_bytes(int64_t T)
{
    return (size_t)T * (sizeof(int32_t) + (NUMERIC ? sizeof(V) : 0)) + sizeof(scratch<GROUP, V>);
}

template <int GROUP, bool NUMERIC, bool GLOBAL, typename V>
__global__ void __launch_bounds__(GROUP == 32 ? WARP_BLOCK : GROUP)
    hash_kernel(hash_job J, int64_t T, int limit)
{
    extern __shared__ __align__(16) unsigned char smem[];
    constexpr int PER_BLOCK = rows_per_block<GROUP>();
    const int g = GROUP == 32 ? threadIdx.x / 32 : 0, tid = threadIdx.x % GROUP;
    const int64_t table = GLOBAL ? 0 : T;
    unsigned char *mine = smem + (size_t)g * group_bytes<GROUP, NUMERIC, V>(table);
    scratch<GROUP, V> *sc = (scratch<GROUP, V> *)(mine + group_bytes<GROUP, NUMERIC, V>(table) -
                                                  sizeof(scratch<GROUP, V>));
    for (int64_t r = (int64_t)blockIdx.x * PER_BLOCK + g; r < J.nrows;
         r += (int64_t)gridDim.x * PER_BLOCK) {
        const int64_t i = J.rows[r];
        int32_t *keys = (int32_t *)mine;
        V *vals = (V *)(mine + (size_t)T * sizeof(int32_t));
        int64_t t = T;
        if (GLOBAL) {
            t = J.toff[r + 1] - J.toff[r];
            keys = J.gkeys + (J.toff[r] - J.tbase);
            vals = (V *)J.gvals + (J.toff[r] - J.tbase);
        }
        hash_row<GROUP, NUMERIC, V>(i, J, keys, vals, t, limit, sc);
        if (NUMERIC) {
            bitonic<GROUP, V>(keys, vals, J.sort_table ? t : compact<GROUP, V>(keys, vals, t, sc));
            const int64_t out = J.rowptr[i] - J.cbase, n = J.rowptr[i + 1] - J.rowptr[i];
            for (int64_t e = tid; e < n; e += GROUP) {
                J.ccol[out + e] = keys[e];
                J.cval[out + e] = (double)vals[e];
            }
        } else if (tid == 0) {
            const bool gave_up = sc->count > limit;
            J.cnt[i] = gave_up ? -1 : sc->count;
            if (gave_up) J.over[atomicAdd(J.n_over, 1ull)] = (int32_t)i;
        }
        group_sync<GROUP>();
    }
}

template <int GROUP, bool NUMERIC, bool GLOBAL, typename V>
static spx_status launch(const hash_job &J, int64_t T, int limit, cudaStream_t s)
{
    if (J.nrows == 0) return SPX_OK;
    constexpr int PER_BLOCK = rows_per_block<GROUP>();
    const size_t bytes = PER_BLOCK * group_bytes<GROUP, NUMERIC, V>(GLOBAL ? 0 : T);
    auto kernel = hash_kernel<GROUP, NUMERIC, GLOBAL, V>;
    spx_status st = cuda_ok(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
        "gpu-rows shared memory");
    if (st != SPX_OK) return st;
    kernel<<<blocks_for(J.nrows, PER_BLOCK), PER_BLOCK * GROUP, bytes, s>>>(J, T, limit);
    return launched(NUMERIC ? "gpu-rows numeric kernel" : "gpu-rows symbolic kernel");
}

/* Threads a row for a shared table of T slots: a warp up to 512 (wide: 256
 * threads), then a quarter of the slots (at most 1024). */
template <bool NUMERIC, typename V>
static spx_status launch_shared(int64_t T, int limit, const hash_job &J, cudaStream_t s,
                                bool wide = false)
{
    if (T <= 512 && wide) return launch<256, NUMERIC, false, V>(J, T, limit, s);
    if (T <= 512) return launch<32, NUMERIC, false, V>(J, T, limit, s);
    if (T == 1024) return launch<256, NUMERIC, false, V>(J, T, limit, s);
    if (T == 2048) return launch<512, NUMERIC, false, V>(J, T, limit, s);
    return launch<1024, NUMERIC, false, V>(J, T, limit, s);
}

spx_status symbolic_shared(int bin, const hash_job &J, cudaStream_t s)
{
    if (bin == BIG) return launch_shared<false, float>(BIG_SLOTS, BIG_LIMIT, J, s);
    return launch_shared<false, float>(bin_slots(bin), INT_MAX, J, s);
}

spx_status numeric_shared(int bin, const hash_job &J, bool wide, spx_type precision,
                          cudaStream_t s)
{
    if (precision == SPX_F32)
        return launch_shared<true, float>(bin_slots(bin), INT_MAX, J, s, wide);
    return launch_shared<true, double>(bin_slots(bin), INT_MAX, J, s, wide);
}

spx_status symbolic_global(const hash_job &J, cudaStream_t s)
{
    return launch<1024, false, true, float>(J, 0, INT_MAX, s);
}

spx_status numeric_global(const hash_job &J, spx_type precision, cudaStream_t s)
{
    if (precision == SPX_F32) return launch<1024, true, true, float>(J, 0, INT_MAX, s);
    return launch<1024, true, true, double>(J, 0, INT_MAX, s);
}

} // namespace spx_rows
