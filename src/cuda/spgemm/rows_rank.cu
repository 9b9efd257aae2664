/* gpu-rows: the long rows' numeric phase summed in C itself, placed by the
 * ranks of a bitmap (bin 8 where B's columns pass a dense row of sums in
 * shared memory but fit a bitmap: rank=on, the default).
 *
 * A block of RANK_BLOCK threads takes a row i at a time:
 * 1. its products' columns set bits in a bitmap of B's columns in shared
 *    memory (atomicOr), as the symbolic phase does;
 * 2. the bitmap is read in column order: word w's rank, the entries of C(i,:)
 *    in the words before it, is kept as the rank of its warp's first word
 *    (group[w / 32], int32) plus the entries of the words before it in its
 *    warp (within[w], uint16, at most 31 * 32); C's columns are written and
 *    its values zeroed at their ranks;
 * 3. the products again, each added (atomicAdd, fp64) to C's value at
 *    rank(col) = group + within + popc(word & bits below col);
 * 4. the bitmap cleared for the next row.
 * The dense row of sums this replaces (rows_dense.cu, rank=off) is `cols`
 * doubles a block in global memory: 8 MB a block for R-MAT 20, 1 GB for
 * the grid, far past the L2 cache, so each product's atomicAdd went to DRAM.
 * bin 8 of R-MAT 20 (ef 1) squared, 370M products into 294M entries, took
 * 51.4 of a 63.6 ms numeric phase that way (run CM, H100). Summed in C, a
 * block's working set is its row of C, nnz(C(i,:)) doubles, which the L2
 * holds; the price is walking the products twice.
 * fp32 plans sum their float products in C's doubles here. */
#include <limits.h>

#include "cuda/spgemm/rows_group.cuh"

namespace spx_rows
{

#define RANK_BLOCK 1024

/* Shared memory of a block, for B of cols columns: scratch, then the
 * bitmap (words uint32), within (words uint16) and group (words / 32 int32,
 * words rounded up to a warp's). */
static __host__ __device__ int64_t rank_words(int64_t cols)
{
    return (cols + 1023) / 1024 * 32;
}

template <typename V> static __host__ __device__ size_t rank_bytes(int64_t cols)
{
    const size_t w = (size_t)rank_words(cols);
    return sizeof(scratch<RANK_BLOCK, V>) + w * sizeof(uint32_t) + w * sizeof(uint16_t) +
           w / 32 * sizeof(int32_t);
}

struct rank_view {
    uint32_t *bits;
    uint16_t *within;
    int32_t *group;
};

template <typename V> static __device__ rank_view rank_layout(unsigned char *smem, int64_t cols)
{
    const int64_t w = rank_words(cols);
    rank_view r;
    r.bits = (uint32_t *)(smem + sizeof(scratch<RANK_BLOCK, V>));
    r.within = (uint16_t *)(r.bits + w);
    r.group = (int32_t *)(r.within + w);
    return r;
}

/* Step 2: ranks of row i's words, C's columns at them and zeros for its
 * values. A pass of the block takes RANK_BLOCK words, a warp 32 of them
 * (one group). */
template <typename V>
static __device__ void rank_row(int64_t i, const hash_job &J, int64_t words, rank_view R,
                                scratch<RANK_BLOCK, V> *sc)
{
    const int tid = threadIdx.x, lane = tid & 31;
    const int64_t row0 = J.rowptr[i] - J.cbase;
    int64_t next = 0; /* entries of C(i,:) before the pass */
    for (int64_t w0 = 0; w0 < words; w0 += RANK_BLOCK) {
        const int64_t w = w0 + tid; /* words is a multiple of 32: a warp is all in or out */
        uint32_t b = w < words ? R.bits[w] : 0u;
        const int64_t c = __popc(b);
        const int64_t incl = group_inclusive<RANK_BLOCK>(c, sc->warp_sums);
        const int64_t excl = next + incl - c; /* C(i,:)'s entries before word w */
        const int64_t first = __shfl_sync(FULL, excl, 0);
        if (w < words) {
            R.within[w] = (uint16_t)(excl - first);
            if (lane == 0) R.group[w / 32] = (int32_t)excl;
        }
        for (int64_t pos = row0 + excl; b; b &= b - 1, pos++) {
            J.ccol[pos] = (int32_t)(w * 32 + (__ffs(b) - 1));
            J.cval[pos] = 0.0;
        }
        if (tid == RANK_BLOCK - 1) sc->total = incl;
        __syncthreads();
        next += sc->total;
        __syncthreads(); /* every thread has read total before the next pass sets it */
    }
}

/* C(i,:)'s slot of column col, set in the bitmap. */
static __device__ __forceinline__ int64_t rank_of(int32_t col, rank_view R)
{
    const int32_t w = col >> 5;
    const uint32_t below = R.bits[w] & ((1u << (col & 31)) - 1u);
    return (int64_t)R.group[w >> 5] + R.within[w] + __popc(below);
}

template <typename V>
__global__ void __launch_bounds__(RANK_BLOCK) rank_kernel(hash_job J, int64_t cols)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int64_t words = rank_words(cols);
    auto *sc = (scratch<RANK_BLOCK, V> *)smem;
    const rank_view R = rank_layout<V>(smem, cols);
    const V *bv = (const V *)J.B.val;
    for (int64_t e = threadIdx.x; e < words; e += RANK_BLOCK)
        R.bits[e] = 0u;
    __syncthreads();
    for (int64_t r = blockIdx.x; r < J.nrows; r += gridDim.x) {
        const int64_t i = J.rows[r];
        for_products<RANK_BLOCK, false, V>(i, J, INT_MAX, sc, [&](int32_t col, V, int64_t) {
            atomicOr(&R.bits[col >> 5], 1u << (col & 31));
            return true;
        });
        rank_row<V>(i, J, words, R, sc);
        double *val = J.cval + (J.rowptr[i] - J.cbase);
        for_products<RANK_BLOCK, true, V>(i, J, INT_MAX, sc, [&](int32_t col, V a, int64_t kb) {
            atomicAdd(&val[rank_of(col, R)], (double)(a * bv[kb]));
            return true;
        });
        for (int64_t e = threadIdx.x; e < words; e += RANK_BLOCK)
            R.bits[e] = 0u;
        __syncthreads();
    }
}

bool rank_fits(int64_t cols)
{
    return cols <= DENSE_MAX_COLS &&
           rank_bytes<double>(cols) <=
               (size_t)device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
}

template <typename V> static spx_status launch_rank(const hash_job &J, int64_t cols, cudaStream_t s)
{
    const size_t smem = rank_bytes<V>(cols);
    auto kernel = rank_kernel<V>;
    int per_sm = 0;
    spx_status st = cuda_ok(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
        "gpu-rows rank shared memory");
    if (st != SPX_OK) return st;
    st = cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, RANK_BLOCK, smem),
                 "gpu-rows rank occupancy");
    if (st != SPX_OK) return st;
    int64_t grid =
        (int64_t)(per_sm > 0 ? per_sm : 1) * device_attribute(cudaDevAttrMultiProcessorCount);
    if (grid > J.nrows) grid = J.nrows;
    kernel<<<(unsigned)grid, RANK_BLOCK, smem, s>>>(J, cols);
    return launched("gpu-rows rank numeric kernel");
}

spx_status numeric_rank(const hash_job &J, int64_t cols, spx_type precision, cudaStream_t s)
{
    if (J.nrows == 0) return SPX_OK;
    if (precision == SPX_F32) return launch_rank<float>(J, cols, s);
    return launch_rank<double>(J, cols, s);
}

} // namespace spx_rows
