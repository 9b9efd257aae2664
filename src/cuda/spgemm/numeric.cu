/* Repeated products with one pattern, the device side (numeric.h, and the
 * pattern helpers of spgemm_dev.cuh). Every kernel is a grid-stride loop of
 * HELPER_BLOCK threads over at most HELPER_GRID blocks: one pass over the
 * arrays, a flag or a sum set by atomics (integer sums: any order gives the
 * same bits). */
#include "cuda/spgemm/numeric.h"
#include "cuda/spgemm/spgemm_dev.cuh"

namespace spgemm_dev {

#define HELPER_BLOCK 256
#define HELPER_GRID 4096

static unsigned helper_grid(int64_t n)
{
    const unsigned b = blocks_for(n, HELPER_BLOCK);
    return b < HELPER_GRID ? b : HELPER_GRID;
}

/* splitmix64's finaliser: each input bit flips about half the output bits. */
static __device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The term of value v at position k of the array numbered `array`. */
static __device__ __forceinline__ uint64_t term(uint64_t array, int64_t k, uint64_t v)
{
    return mix64(((uint64_t)k * 2 + array) * 0x9e3779b97f4a7c15ull ^ mix64(v));
}

/* work[0] = the sum of the terms of rowptr[0..rows] (array 0) and
 * col[0..nnz) (array 1). work[1] and work[2] (the blocks' running sum and
 * the count of blocks done) are 0 on entry and again on exit: the last
 * block to finish takes the sum and clears them, so a kernel alone hashes
 * again into the same words (no memset between calls). */
__global__ void hash_terms(const int64_t *__restrict__ rowptr, const int32_t *__restrict__ col,
                           int64_t rows, int64_t nnz, unsigned long long *work)
{
    uint64_t h = 0;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k <= rows + nnz; k += stride)
        h += k <= rows ? term(0, k, (uint64_t)rowptr[k]) : term(1, k - rows - 1, (uint32_t)col[k - rows - 1]);
    __shared__ uint64_t warp_sums[HELPER_BLOCK / 32];
    for (int d = 16; d > 0; d /= 2) h += __shfl_down_sync(FULL, h, d);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = h;
    __syncthreads();
    if (threadIdx.x == 0) { /* one atomic a block: adds to one word are serialised */
        for (int w = 1; w < HELPER_BLOCK / 32; w++) h += warp_sums[w];
        atomicAdd(&work[1], (unsigned long long)h);
        __threadfence();
        if (atomicAdd(&work[2], 1ull) == gridDim.x - 1) { /* every block's sums are in */
            work[0] = atomicExch(&work[1], 0ull);
            atomicExch(&work[2], 0ull);
        }
    }
}

/* *differ = 1 where some cnt[i] is not rowptr[i + 1] - rowptr[i]. */
__global__ void compare_counts(const int64_t *__restrict__ cnt, const int64_t *__restrict__ rowptr,
                               int64_t rows, int *differ)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride)
        if (cnt[i] != rowptr[i + 1] - rowptr[i]) *differ = 1;
}

__global__ void counts_of(const int64_t *__restrict__ rowptr, int64_t rows, int64_t *cnt)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += stride)
        cnt[i] = rowptr[i + 1] - rowptr[i];
}

/* *differ = 1 where a[0..n) and b[0..n) differ. */
template <typename T>
__global__ void compare_arrays(const T *__restrict__ a, const T *__restrict__ b, int64_t n,
                               int *differ)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
        if (a[k] != b[k]) *differ = 1;
}

/* A flag on the device for the compare kernels: zeroed, then read back. */
struct device_flag {
    int *d = NULL;
    cudaStream_t s;
    explicit device_flag(cudaStream_t stream) : s(stream) {}
    ~device_flag() { dev_free(d, s); }
    spx_status make()
    {
        spx_status st = dev_alloc_n(&d, 1, "SpGEMM pattern check", s);
        return st != SPX_OK ? st : cuda_ok(cudaMemsetAsync(d, 0, sizeof *d, s), "SpGEMM pattern check");
    }
    spx_status read(bool *set) const
    {
        int v = 0;
        spx_status st = download(&v, d, sizeof v, s);
        *set = v != 0;
        return st;
    }
};

spx_status pattern_hash_queue(const int64_t *rowptr, const int32_t *col, int64_t rows, int64_t nnz,
                              unsigned long long *work, cudaStream_t s)
{
    hash_terms<<<helper_grid(rows + 1 + nnz), HELPER_BLOCK, 0, s>>>(rowptr, col, rows, nnz, work);
    return launched("SpGEMM pattern hash");
}

spx_status pattern_hash(const int64_t *rowptr, const int32_t *col, int64_t rows, int64_t nnz,
                        cudaStream_t s, uint64_t *hash)
{
    unsigned long long *work = NULL, h = 0;
    spx_status st;
    SPX_TRY(dev_alloc_n(&work, HASH_WORDS, "SpGEMM pattern hash", s));
    SPX_TRY(cuda_ok(cudaMemsetAsync(work, 0, HASH_WORDS * sizeof *work, s), "SpGEMM pattern hash"));
    SPX_TRY(pattern_hash_queue(rowptr, col, rows, nnz, work, s));
    SPX_TRY(download(&h, work, sizeof h, s));
    *hash = (uint64_t)h;
cleanup:
    dev_free(work, s);
    return st;
}

spx_status counts_match(const int64_t *cnt, const int64_t *rowptr, int64_t rows, cudaStream_t s,
                        bool *match)
{
    device_flag f(s);
    bool differ = false;
    spx_status st;
    SPX_TRY(f.make());
    compare_counts<<<helper_grid(rows), HELPER_BLOCK, 0, s>>>(cnt, rowptr, rows, f.d);
    SPX_TRY(launched("SpGEMM pattern check"));
    SPX_TRY(f.read(&differ));
    *match = !differ;
cleanup:
    return st;
}

spx_status row_counts(const int64_t *rowptr, int64_t rows, int64_t *cnt, cudaStream_t s)
{
    counts_of<<<helper_grid(rows), HELPER_BLOCK, 0, s>>>(rowptr, rows, cnt);
    return launched("SpGEMM row counts");
}

/* Whether device CSR patterns T and C (64-bit offsets, 32-bit columns) are
 * equal; waits. */
static spx_status same_pattern(const spx_matrix *T, const spx_matrix *C, cudaStream_t s,
                               bool *same)
{
    device_flag f(s);
    bool differ = false;
    spx_status st;
    *same = false;
    if (T->rows != C->rows || T->cols != C->cols || T->nnz != C->nnz) return SPX_OK;
    SPX_TRY(f.make());
    compare_arrays<<<helper_grid(C->rows + 1), HELPER_BLOCK, 0, s>>>(
        (const int64_t *)T->dev.rowptr, (const int64_t *)C->dev.rowptr, C->rows + 1, f.d);
    SPX_TRY(launched("SpGEMM pattern check"));
    if (C->nnz > 0) {
        compare_arrays<<<helper_grid(C->nnz), HELPER_BLOCK, 0, s>>>(T->dev.col32, C->dev.col32,
                                                                     C->nnz, f.d);
        SPX_TRY(launched("SpGEMM pattern check"));
    }
    SPX_TRY(f.read(&differ));
    *same = !differ;
cleanup:
    return st;
}

} // namespace spgemm_dev

using namespace spgemm_dev;

extern "C" spx_status spx__cuda_csr_refill(const spx_matrix *T, spx_matrix *C)
{
    const cudaStream_t s = 0;
    bool same = false;
    spx_status st;
    if (!T->dev.on || T->dev.rowptr_bits != 64 || T->vtype != SPX_F64)
        return spx__error(SPX_ERR_DEVICE, "spx_spgemm_numeric: the product is not a device C");
    if (C->dev.rowptr_bits != 64 || C->vtype != SPX_F64)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_spgemm_numeric: a device C has 64-bit row offsets and fp64 "
                          "values, as spx_spgemm_run makes it (this one: %d-bit, %s)",
                          C->dev.rowptr_bits, C->vtype == SPX_F32 ? "fp32" : "fp64");
    if ((st = same_pattern(T, C, s, &same)) != SPX_OK) return st;
    if (!same)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_spgemm_numeric: A*B has %lld entries in another pattern than C's "
                          "%lld: B's pattern is not the one that made C (or exact zeros fell "
                          "elsewhere, for a format that drops them)",
                          (long long)T->nnz, (long long)C->nnz);
    if (C->nnz == 0) return SPX_OK;
    st = cuda_ok(cudaMemcpyAsync((void *)C->dev.values, T->dev.values,
                                 (size_t)C->nnz * sizeof(double), cudaMemcpyDeviceToDevice, s),
                 "spx_spgemm_numeric: C's values");
    return st != SPX_OK ? st : cuda_ok(cudaStreamSynchronize(s), "spx_spgemm_numeric");
}
