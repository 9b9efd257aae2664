/* A device's halo read straight from its peers' memory by its own threads
 * (multi_cuda.h, spx__cuda_pull): one launch for up to SPX__CUDA_PULL_RANGES
 * copies, each loaded over NVLink (or PCIe) by every SM of the reader at
 * once, instead of one copy-engine transfer after another on its stream.
 *
 * A range's source and destination are the same lines of two full-length
 * vector buffers, so they are equally (mis)aligned: the bytes before the
 * first 16-byte boundary and after the last go one entry at a time, the rest
 * 16 bytes a load (a range whose two ends are not equally aligned goes one
 * entry at a time). */
#include <cuda_runtime.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/multi/multi_cuda.h"

#define PULL_BLOCK 256

/* Entries [lo, hi) of a range, one each, of es bytes (4 or 8). */
static __device__ void copy_entries(char *dst, const char *src, size_t lo, size_t hi, int es,
                                    size_t first, size_t stride)
{
    for (size_t k = lo + first; k < hi; k += stride) {
        if (es == 8)
            ((unsigned long long *)dst)[k] = ((const unsigned long long *)src)[k];
        else
            ((unsigned int *)dst)[k] = ((const unsigned int *)src)[k];
    }
}

/* Range blockIdx.y: its unaligned head and tail entries, then its aligned
 * middle as uint4, every thread of the range's blocks striding over both. */
__global__ void __launch_bounds__(PULL_BLOCK)
    pull_kernel(const __grid_constant__ spx__cuda_pull_table s)
{
    const spx__cuda_pull_range r = s.r[blockIdx.y];
    const int es = s.es;
    char *dst = (char *)r.dst;
    const char *src = (const char *)r.src;
    const size_t n = (size_t)r.n, first = (size_t)blockIdx.x * blockDim.x + threadIdx.x,
                 stride = (size_t)gridDim.x * blockDim.x;
    size_t head = (16 - ((size_t)dst & 15)) % 16 / (size_t)es; /* entries to the 16-byte boundary */
    if (head > n || (((size_t)dst ^ (size_t)src) & 15))
        head = n; /* unequal alignment: one by one */
    const size_t vecs = (n - head) * (size_t)es / 16, tail = head + vecs * 16 / (size_t)es;
    copy_entries(dst, src, 0, head, es, first, stride);
    copy_entries(dst, src, tail, n, es, first, stride);
    uint4 *d = (uint4 *)(dst + head * (size_t)es);
    const uint4 *v = (const uint4 *)(src + head * (size_t)es);
    for (size_t k = first; k < vecs; k += stride)
        d[k] = v[k];
}

extern "C" spx_status spx__cuda_pull(const spx__cuda_pull_table *s, void *stream)
{
    int64_t longest = 0;
    for (int k = 0; k < s->n; k++)
        if (s->r[k].n > longest) longest = s->r[k].n;
    if (longest <= 0) return SPX_OK;
    const int64_t want = (longest * s->es / 16 + PULL_BLOCK - 1) / PULL_BLOCK + 1;
    const int most = s->blocks > 0 ? s->blocks : 1;
    const dim3 grid((unsigned)(want < most ? want : most), (unsigned)s->n);
    pull_kernel<<<grid, PULL_BLOCK, 0, (cudaStream_t)stream>>>(*s);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return spx__error(SPX_ERR_DEVICE, "CUDA halo pull launch failed: %s",
                          cudaGetErrorString(e));
    return SPX_OK;
}
