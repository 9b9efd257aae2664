/* Device-side helpers of the CUDA SpGEMM formats (spgemm_dev.cuh).
 *
 * C to the host: a copy from the device into pageable memory goes through
 * the driver's small pinned buffers and one core (about 6 GB/s on the H100
 * machine, src/cuda/staged.cu), and C is the largest thing a product moves.
 * Arrays of DOWNLOAD_STAGE_MIN bytes or more (or spx__cuda_stage_min, the
 * tests' hook) come back as upload_staged's mirror: chunk k lands in pinned
 * buffer k % 2 (the process's kept pair, cuda/stage_pool.h) while every core
 * copies chunk k - 1 out of the other into C (spx__parallel_memcpy, which
 * also spreads the first touch of C's fresh pages over the cores). The
 * threshold is low because the pair is kept: a 1 MiB array costs one pinned
 * copy at the link's rate and one parallel memcpy. */
#include <cub/device/device_scan.cuh>
#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern "C" {
#include "core/memcopy.h"
}
#include "cuda/gateway.h"
#include "cuda/stage_pool.h"
#include "cuda/spgemm/spgemm_dev.cuh"

#define STAGE SPX__STAGE
#define DOWNLOAD_STAGE_MIN ((size_t)1 << 20)

namespace spgemm_dev {

/* Bytes SpX's pools keep unused across synchronisations: a product of a few
 * million entries (C and its scratch) runs in memory the one before it
 * mapped. */
#define POOL_KEEP ((uint64_t)64 << 20)
#define POOL_DEVICES 64

static thread_local bool keep_on = true;

bool pool_keep(bool on)
{
    const bool was = keep_on;
    keep_on = on;
    return was;
}

bool pool_kept(void) { return keep_on; }

/* SpX's pool of device d (created once; NULL where it cannot be: then the
 * default pool). */
static cudaMemPool_t pool_of(int d)
{
    static std::mutex lock;
    static cudaMemPool_t pools[POOL_DEVICES];
    static bool tried[POOL_DEVICES];
    if (d < 0 || d >= POOL_DEVICES) return NULL;
    std::lock_guard<std::mutex> hold(lock);
    if (!tried[d]) {
        tried[d] = true;
        cudaMemPoolProps props = {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        uint64_t keep = POOL_KEEP;
        if (cudaMemPoolCreate(&pools[d], &props) != cudaSuccess ||
            cudaMemPoolSetAttribute(pools[d], cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
            if (pools[d]) cudaMemPoolDestroy(pools[d]);
            pools[d] = NULL;
            cudaGetLastError();
        }
    }
    return pools[d];
}

spx_status dev_alloc(void **p, size_t bytes, const char *what, cudaStream_t s)
{
    int d = -1;
    cudaMemPool_t pool = NULL;
    *p = NULL;
    if (keep_on && cudaGetDevice(&d) == cudaSuccess) pool = pool_of(d);
    cudaError_t e = pool ? cudaMallocFromPoolAsync(p, bytes ? bytes : 1, pool, s)
                         : cudaMallocAsync(p, bytes ? bytes : 1, s);
    if (e == cudaSuccess) return SPX_OK;
    cudaGetLastError();
    *p = NULL;
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "cudaMallocAsync of %zu bytes for %s failed: %s", bytes, what,
                      cudaGetErrorString(e));
}

void dev_free(void *p, cudaStream_t s)
{
    if (p) cudaFreeAsync(p, s);
}

spx_status cuda_ok(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return SPX_OK;
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE, "%s: %s",
                      what, cudaGetErrorString(e));
}

spx_status launched(const char *what) { return cuda_ok(cudaGetLastError(), what); }

/* out[n] = out[n - 1] + in[n - 1]: the total after an exclusive scan. */
__global__ void scan_total(const int64_t *in, int64_t *out, int64_t n)
{
    out[n] = out[n - 1] + in[n - 1];
}

spx_status exclusive_sum(const int64_t *in, int64_t *out, int64_t n, cudaStream_t s)
{
    void *tmp = NULL;
    size_t bytes = 0;
    spx_status st;
    if (n == 0) return cuda_ok(cudaMemsetAsync(out, 0, sizeof *out, s), "prefix sum");
    SPX_TRY(cuda_ok(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n, s), "prefix sum"));
    SPX_TRY(dev_alloc(&tmp, bytes, "prefix sum scratch", s));
    SPX_TRY(cuda_ok(cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n, s), "prefix sum"));
    scan_total<<<1, 1, 0, s>>>(in, out, n);
    SPX_TRY(launched("prefix sum total"));
cleanup:
    dev_free(tmp, s);
    return st;
}

spx_status download(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    spx_status st;
    if (bytes == 0) return SPX_OK;
    if ((st = cuda_ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s), "copy to host")))
        return st;
    return cuda_ok(cudaStreamSynchronize(s), "copy to host");
}

/* Chunks of src to buf[k % 2], each copied out to dst while the next one
 * moves; returns the first failing call's error. */
static cudaError_t chunks_to_host(char *dst, const char *src, size_t bytes, char *buf[2],
                                  cudaEvent_t done[2], cudaStream_t s)
{
    cudaError_t e = cudaSuccess;
    size_t prev = 0, prev_n = 0;
    for (size_t off = 0, i = 0; off < bytes && e == cudaSuccess; off += STAGE, i ^= 1) {
        const size_t n = bytes - off < STAGE ? bytes - off : STAGE;
        e = cudaMemcpyAsync(buf[i], src + off, n, cudaMemcpyDeviceToHost, s);
        if (e == cudaSuccess) e = cudaEventRecord(done[i], s);
        if (e == cudaSuccess && off > 0 && (e = cudaEventSynchronize(done[i ^ 1])) == cudaSuccess)
            spx__parallel_memcpy(dst + prev, buf[i ^ 1], prev_n);
        prev = off;
        prev_n = n;
    }
    if (e == cudaSuccess && (e = cudaStreamSynchronize(s)) == cudaSuccess)
        spx__parallel_memcpy(dst + prev, buf[(bytes - 1) / STAGE % 2], prev_n);
    return e;
}

spx_status download_to_host(void *dst, const void *src, size_t bytes, cudaStream_t s)
{
    char *pinned = NULL;
    cudaEvent_t done[2] = {NULL, NULL};
    if ((bytes < DOWNLOAD_STAGE_MIN && bytes < spx__cuda_stage_min) ||
        !(pinned = spx__stage_take())) {
        cudaGetLastError(); /* no pinned memory: the driver's own staging */
        return download(dst, src, bytes, s);
    }
    char *buf[2] = {pinned, pinned + STAGE};
    cudaError_t e = cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming);
    if (e == cudaSuccess) e = chunks_to_host((char *)dst, (const char *)src, bytes, buf, done, s);
    if (e != cudaSuccess) cudaStreamSynchronize(s); /* buffers idle */
    for (int i = 0; i < 2; i++)
        if (done[i]) cudaEventDestroy(done[i]);
    spx__stage_give(pinned);
    return cuda_ok(e, "staged copy to host");
}

spx_status fetch_i64(const int64_t *src, int64_t *value, cudaStream_t s)
{
    return download(value, src, sizeof *value, s);
}

spx_status host_csr_alloc(int64_t rows, int64_t cols, int64_t nnz, spx_matrix **C)
{
    spx_status st = spx__matrix_alloc(rows, cols, nnz, SPX_F64, C);
    if (st == SPX_OK && (*C)->col_bits != 32) {
        spx_matrix_destroy(*C);
        *C = NULL;
        st = spx__error(SPX_ERR_UNSUPPORTED, "SpGEMM on cuda: C needs 32-bit columns");
    }
    return st;
}

void host_csr_touch(spx_matrix *C)
{
    spx__parallel_touch(C->col32, (size_t)C->nnz * sizeof *C->col32);
    spx__parallel_touch(C->values, (size_t)C->nnz * sizeof(double));
}

spx_status csr_download(spx_matrix *C, const int64_t *rowptr, const int32_t *col,
                        const double *val, cudaStream_t s)
{
    spx_status st;
    SPX_TRY(download_to_host(C->rowptr, rowptr, ((size_t)C->rows + 1) * sizeof *rowptr, s));
    SPX_TRY(download_to_host(C->col32, col, (size_t)C->nnz * sizeof *col, s));
    SPX_TRY(download_to_host(C->values, val, (size_t)C->nnz * sizeof(double), s));
cleanup:
    return st;
}

unsigned blocks_for(int64_t n, int block)
{
    const int64_t b = (n + block - 1) / block;
    return (unsigned)(b < 1 ? 1 : b > INT32_MAX ? INT32_MAX : b);
}

size_t free_bytes(void)
{
    size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return free;
}

static bool tracing(void)
{
    static const int on = getenv("SPX_SPGEMM_TRACE") != NULL ? 1 : 0;
    return on;
}

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static thread_local double trace_last;

void trace_start(void)
{
    if (tracing()) trace_last = wall_ms();
}

void trace(const char *phase, cudaStream_t s)
{
    if (!tracing()) return;
    cudaStreamSynchronize(s);
    const double now = wall_ms();
    fprintf(stderr, "spgemm trace: %-34s %9.3f ms\n", phase, now - trace_last);
    trace_last = now;
}

} // namespace spgemm_dev
