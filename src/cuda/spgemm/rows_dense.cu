/* gpu-rows: dense accumulators for the long rows (bin 8: more than 2048
 * products in the symbolic phase, more than 2048 entries of C in the
 * numeric one), where B has at most DENSE_MAX_COLS columns.
 *
 * A block of DENSE_BLOCK threads takes a row at a time and walks its
 * products (rows_group.cuh). A bitmap of B's columns in shared memory marks
 * the columns met (atomicOr); the numeric kernel adds each product into a
 * dense row of sums indexed by column: in shared memory when it fits beside
 * the bitmap, else the block's own row of `cols` sums in global memory.
 * Symbolic: the row's count is the number of bits a thread turned on.
 * Numeric: the bitmap is read in column order, 32 columns a thread, and a
 * prefix sum of the words' popcounts places each entry, so C's columns come
 * out sorted without a sort; each entry's sum is written and zeroed, and the
 * bitmap cleared, so the next row starts from zeros.
 * Against the global hash tables (rows_hash.cu) this trades a bitonic sort
 * of 2^ceil(log2(2 nnz)) slots a row in global memory for a pass over
 * cols / 32 bitmap words. */
#include <limits.h>

#include "cuda/spgemm/rows_group.cuh"

namespace spx_rows {

#define DENSE_BLOCK 1024
#define DENSE_MEMORY_SHARE 0.5 /* of the free device memory, at most, for global sums */

/* Shared memory of a block: scratch, the bitmap of cols bits and, when the
 * sums are shared, cols sums from a 16-byte boundary (an odd count of words
 * would leave doubles misaligned). */
template <typename V> static __host__ __device__ size_t sums_offset(int64_t cols)
{
    const size_t end = sizeof(scratch<DENSE_BLOCK, V>) + (size_t)((cols + 31) / 32) * 4;
    return (end + 15) / 16 * 16;
}

template <typename V> static __host__ __device__ size_t dense_bytes(int64_t cols, bool acc_shared)
{
    return sums_offset<V>(cols) + (acc_shared ? (size_t)cols * sizeof(V) : 0);
}

/* Row i's columns into bits (and, numeric, its products into acc). The
 * columns this thread turned on are returned (symbolic). */
template <bool NUMERIC, typename V>
static __device__ int mark_row(int64_t i, const hash_job &J, uint32_t *bits, V *acc,
                               scratch<DENSE_BLOCK, V> *sc)
{
    const V *bv = (const V *)J.B.val;
    int found = 0;
    for_products<DENSE_BLOCK, NUMERIC, V>(i, J, INT_MAX, sc, [&](int32_t col, V a, int64_t kb) {
        const uint32_t m = 1u << (col & 31);
        const uint32_t old = atomicOr(&bits[col >> 5], m);
        if (NUMERIC) atomicAdd(&acc[col], a * bv[kb]);
        found += !(old & m);
        return true;
    });
    return found;
}

/* C(i,:) from the bitmap and the sums, in column order; clears both. */
template <typename V>
static __device__ void write_row(int64_t i, const hash_job &J, int64_t words, uint32_t *bits,
                                 V *acc, scratch<DENSE_BLOCK, V> *sc)
{
    const int tid = threadIdx.x;
    int64_t next = J.rowptr[i] - J.cbase; /* C's slot of the pass's first entry */
    for (int64_t w0 = 0; w0 < words; w0 += DENSE_BLOCK) {
        const int64_t w = w0 + tid;
        uint32_t b = w < words ? bits[w] : 0u;
        const int64_t c = __popc(b);
        const int64_t incl = group_inclusive<DENSE_BLOCK>(c, sc->warp_sums);
        for (int64_t pos = next + incl - c; b; b &= b - 1, pos++) {
            const int64_t col = w * 32 + (__ffs(b) - 1);
            J.ccol[pos] = (int32_t)col;
            J.cval[pos] = (double)acc[col];
            acc[col] = V(0);
        }
        if (w < words) bits[w] = 0u;
        if (tid == DENSE_BLOCK - 1) sc->total = incl;
        __syncthreads();
        next += sc->total;
        __syncthreads(); /* every thread has read total before the next pass sets it */
    }
}

/* Blocks loop over the listed rows; `global_acc` holds gridDim.x rows of
 * cols zeros (numeric, sums not in shared memory). */
template <bool NUMERIC, bool ACC_SHARED, typename V>
__global__ void __launch_bounds__(DENSE_BLOCK)
    dense_kernel(hash_job J, int64_t cols, V *global_acc)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const int64_t words = (cols + 31) / 32;
    auto *sc = (scratch<DENSE_BLOCK, V> *)smem;
    uint32_t *bits = (uint32_t *)(smem + sizeof *sc);
    V *acc = ACC_SHARED ? (V *)(smem + sums_offset<V>(cols)) : global_acc + (size_t)blockIdx.x * cols;
    for (int64_t e = threadIdx.x; e < words; e += DENSE_BLOCK) bits[e] = 0u;
    if (NUMERIC && ACC_SHARED)
        for (int64_t e = threadIdx.x; e < cols; e += DENSE_BLOCK) acc[e] = V(0);
    for (int64_t r = blockIdx.x; r < J.nrows; r += gridDim.x) {
        const int64_t i = J.rows[r];
        if (threadIdx.x == 0) sc->count = 0;
        __syncthreads();
        const int found = mark_row<NUMERIC, V>(i, J, bits, acc, sc);
        if (NUMERIC) {
            write_row<V>(i, J, words, bits, acc, sc);
            continue;
        }
        atomicAdd(&sc->count, found);
        for (int64_t e = threadIdx.x; e < words; e += DENSE_BLOCK) bits[e] = 0u;
        __syncthreads();
        if (threadIdx.x == 0) J.cnt[i] = sc->count;
    }
}

int device_attribute(cudaDeviceAttr a)
{
    int dev = 0, v = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&v, a, dev);
    return v;
}

bool dense_fits(int64_t cols)
{
    return cols <= DENSE_MAX_COLS &&
           dense_bytes<double>(cols, false) <=
               (size_t)device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
}

template <bool NUMERIC, bool ACC_SHARED, typename V>
static spx_status launch_dense(const hash_job &J, int64_t cols, cudaStream_t s)
{
    const size_t smem = dense_bytes<V>(cols, ACC_SHARED && NUMERIC);
    auto kernel = dense_kernel<NUMERIC, ACC_SHARED, V>;
    V *acc = NULL;
    int per_sm = 0;
    spx_status st;
    SPX_TRY(cuda_ok(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem),
                    "gpu-rows dense shared memory"));
    SPX_TRY(cuda_ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, DENSE_BLOCK,
                                                                  smem),
                    "gpu-rows dense occupancy"));
    {
        int64_t grid = (int64_t)(per_sm > 0 ? per_sm : 1) *
                       device_attribute(cudaDevAttrMultiProcessorCount);
        if (grid > J.nrows) grid = J.nrows;
        if (NUMERIC && !ACC_SHARED) { /* each block's row of sums, zeroed once */
            const int64_t fit =
                (int64_t)(DENSE_MEMORY_SHARE * (double)free_bytes() / ((double)cols * sizeof(V)));
            if (fit < grid) grid = fit > 1 ? fit : 1;
            SPX_TRY(dev_alloc_n(&acc, grid * cols, "gpu-rows dense sums", s));
            SPX_TRY(cuda_ok(cudaMemsetAsync(acc, 0, (size_t)(grid * cols) * sizeof(V), s),
                            "gpu-rows dense sums"));
        }
        kernel<<<(unsigned)grid, DENSE_BLOCK, smem, s>>>(J, cols, acc);
        SPX_TRY(launched(NUMERIC ? "gpu-rows dense numeric kernel" : "gpu-rows dense symbolic kernel"));
    }
cleanup:
    dev_free(acc, s);
    return st;
}

spx_status symbolic_dense(const hash_job &J, int64_t cols, cudaStream_t s)
{
    if (J.nrows == 0) return SPX_OK;
    return launch_dense<false, false, float>(J, cols, s);
}

/* Sums in shared memory when they fit beside the bitmap; else summed in C
 * through the bitmap's ranks (rank, where they fit: rows_rank.cu) or in a
 * global row of sums. */
template <typename V>
static spx_status numeric_dense_as(const hash_job &J, int64_t cols, bool rank, cudaStream_t s)
{
    const size_t limit = (size_t)device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    if (dense_bytes<V>(cols, true) <= limit) return launch_dense<true, true, V>(J, cols, s);
    if (rank && rank_fits(cols))
        return numeric_rank(J, cols, sizeof(V) == sizeof(float) ? SPX_F32 : SPX_F64, s);
    return launch_dense<true, false, V>(J, cols, s);
}

spx_status numeric_dense(const hash_job &J, int64_t cols, spx_type precision, bool rank,
                         cudaStream_t s)
{
    if (J.nrows == 0) return SPX_OK;
    if (precision == SPX_F32) return numeric_dense_as<float>(J, cols, rank, s);
    return numeric_dense_as<double>(J, cols, rank, s);
}

} // namespace spx_rows
