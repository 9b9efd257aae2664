/* The gateway's CUDA runtime half (see gateway.h): device memory, copies,
 * streams, events, and the upload of a matrix's CSR arrays. Each CUDA error
 * becomes SPX_ERR_DEVICE with cudaGetErrorString; a failed cudaMalloc is
 * SPX_ERR_OOM with the bytes. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <string.h>

extern "C" {
#include "core/error.h"
#include "core/matrix.h"
}
#include "cuda/gateway.h"

static spx_status cuda_fail(cudaError_t e, const char *call)
{
    return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "CUDA %s failed: %s", call, cudaGetErrorString(e));
}

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) return cuda_fail(e_, #call);                                        \
    } while (0)

extern "C" int spx__cuda_compiled(void) { return 1; }

extern "C" int spx__cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" spx_status spx__cuda_alloc(void **dptr, size_t bytes, const char *what)
{
    if (!dptr) return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_alloc: NULL output");
    *dptr = NULL;
    cudaError_t e = cudaMalloc(dptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cudaGetLastError();
        *dptr = NULL;
        return spx__error(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                          "cudaMalloc of %zu bytes for %s failed: %s", bytes,
                          what ? what : "device buffer", cudaGetErrorString(e));
    }
    return SPX_OK;
}

extern "C" void spx__cuda_free(void *dptr)
{
    if (dptr) cudaFree(dptr);
}

extern "C" void spx__cuda_free_pooled(void *dptr)
{
    if (!dptr) return;
    int here = -1;
    cudaPointerAttributes a = {};
    cudaGetDevice(&here);
    const bool other = cudaPointerGetAttributes(&a, dptr) == cudaSuccess && a.device >= 0 &&
                       a.device != here;
    if (other) cudaSetDevice(a.device);
    cudaDeviceSynchronize();
    cudaFreeAsync(dptr, 0);
    if (other) cudaSetDevice(here);
    cudaGetLastError();
}

extern "C" spx_status spx__cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    if (bytes == 0) return SPX_OK;
    CUDA_CHECK(
        cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    /* From pageable memory cudaMemcpy may return once the bytes are staged,
     * before the DMA lands; kernels on non-blocking streams (the multi
     * plans') are not ordered behind it, so wait for it here. */
    if (to_device) CUDA_CHECK(cudaStreamSynchronize(0));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_sync(void *stream)
{
    CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream));
    return SPX_OK;
}

extern "C" int spx__cuda_stream_idle(void *stream)
{
    cudaError_t e = cudaStreamQuery((cudaStream_t)stream);
    if (e != cudaSuccess && e != cudaErrorNotReady) cudaGetLastError();
    return e == cudaSuccess;
}

extern "C" spx_status spx__cuda_device_info(char *name, size_t name_len, int *sm_count,
                                            size_t *l2_bytes)
{
    int dev = 0;
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    if (name && name_len) {
        size_t i = 0;
        for (; i + 1 < name_len && p.name[i]; i++)
            name[i] = p.name[i];
        name[i] = '\0';
    }
    if (sm_count) *sm_count = p.multiProcessorCount;
    if (l2_bytes) *l2_bytes = (size_t)p.l2CacheSize;
    return SPX_OK;
}

extern "C" int spx__cuda_can_overlap_launches(void)
{
    int dev = 0, major = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
        return 0;
    return major >= 9;
}

extern "C" spx_status spx__cuda_copy_d2d(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0) return SPX_OK;
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_copy_async(void *dst, const void *src, size_t bytes, int to_device,
                                           void *stream)
{
    if (bytes == 0) return SPX_OK;
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes,
                               to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                               (cudaStream_t)stream));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_memset(void *dptr, int value, size_t bytes, void *stream)
{
    if (bytes == 0) return SPX_OK;
    CUDA_CHECK(cudaMemsetAsync(dptr, value, bytes, (cudaStream_t)stream));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_upload(void **dptr, const void *host, size_t bytes,
                                       const char *what)
{
    spx_status st = spx__cuda_alloc(dptr, bytes, what);
    if (st != SPX_OK) return st;
    st = spx__cuda_copy_staged(*dptr, host, bytes, NULL);
    if (st != SPX_OK) {
        spx__cuda_free(*dptr);
        *dptr = NULL;
    }
    return st;
}

/* ---- value conversion on the device: out[i] = (To)in[i] */

template <typename To> __device__ To convert_to(double v);
template <> __device__ double convert_to<double>(double v)
{
    return v;
}
template <> __device__ float convert_to<float>(double v)
{
    return (float)v;
}
template <> __device__ __half convert_to<__half>(double v)
{
    return __double2half(v);
}

template <typename From, typename To>
__global__ void convert_kernel(To *out, const From *in, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = convert_to<To>((double)in[i]);
}

static size_t type_size(spx_type t)
{
    return t == SPX_F64 ? sizeof(double) : t == SPX_F32 ? sizeof(float) : sizeof(__half);
}

template <typename From>
static void launch_convert(void *out, const void *in, int64_t n, spx_type t)
{
    int blocks = (int)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    if (blocks < 1) blocks = 1;
    const From *src = (const From *)in;
    if (t == SPX_F64)
        convert_kernel<From, double><<<blocks, 256>>>((double *)out, src, n);
    else if (t == SPX_F32)
        convert_kernel<From, float><<<blocks, 256>>>((float *)out, src, n);
    else
        convert_kernel<From, __half><<<blocks, 256>>>((__half *)out, src, n);
}

static int values_args_ok(void **dptr, const void *src, spx_type from, int64_t n, spx_type t)
{
    return dptr && (n == 0 || src) && n >= 0 && (from == SPX_F64 || from == SPX_F32) &&
           (t == SPX_F64 || t == SPX_F32 || t == SPX_F16);
}

extern "C" spx_status spx__cuda_convert_values(void **dptr, const void *dev, spx_type from,
                                               int64_t n, spx_type t, const char *what)
{
    if (!values_args_ok(dptr, dev, from, n, t))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_convert_values: bad argument");
    void *out = NULL;
    spx_status st = SPX_OK;
    *dptr = NULL;
    SPX_TRY(spx__cuda_alloc(&out, (size_t)n * type_size(t), what));
    if (n > 0) {
        if (from == SPX_F64)
            launch_convert<double>(out, dev, n, t);
        else
            launch_convert<float>(out, dev, n, t);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            st = cuda_fail(e, "value conversion kernel");
            goto cleanup;
        }
    }
    *dptr = out;
    out = NULL;
cleanup:
    spx__cuda_free(out);
    return st;
}

extern "C" spx_status spx__cuda_upload_values(void **dptr, const void *host, spx_type from,
                                              int64_t n, spx_type t, const char *what)
{
    if (!values_args_ok(dptr, host, from, n, t))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_upload_values: bad argument");
    *dptr = NULL;
    if (from == t) return spx__cuda_upload(dptr, host, (size_t)n * type_size(t), what);
    void *staged = NULL;
    spx_status st = spx__cuda_upload(&staged, host, (size_t)n * type_size(from), what);
    if (st == SPX_OK) st = spx__cuda_convert_values(dptr, staged, from, n, t, what);
    spx__cuda_free(staged);
    return st;
}

/* ---- events */

extern "C" spx_status spx__cuda_event_create(void **event)
{
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    *event = (void *)e;
    return SPX_OK;
}

extern "C" spx_status spx__cuda_event_record(void *event, void *stream)
{
    CUDA_CHECK(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_event_elapsed(void *start, void *stop, float *ms)
{
    CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)stop));
    CUDA_CHECK(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)stop));
    return SPX_OK;
}

extern "C" spx_status spx__cuda_event_sync(void *event)
{
    CUDA_CHECK(cudaEventSynchronize((cudaEvent_t)event));
    return SPX_OK;
}

extern "C" void spx__cuda_event_destroy(void *event)
{
    if (event) cudaEventDestroy((cudaEvent_t)event);
}

/* ---- CSR upload */

extern "C" spx_status spx__cuda_csr_upload(const spx_matrix *A, spx_type t, spx__cuda_csr *d)
{
    const int64_t *rowptr = NULL;
    if (!d) return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_csr_upload: NULL output");
    *d = spx__cuda_csr{};
    spx_status st = spx__check_matrix(A, "CSR upload to the GPU");
    if (st != SPX_OK) return st;
    if (A->col_bits != 32)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "CUDA formats need 32-bit column indices; the matrix has %lld "
                          "columns",
                          (long long)A->cols);
    d->rows = A->rows;
    d->cols = A->cols;
    d->nnz = A->nnz;
    d->vtype = t;
    SPX_TRY(spx__matrix_rowptr(A, &rowptr));
    SPX_TRY(spx__cuda_upload((void **)&d->rowptr, rowptr, (size_t)(A->rows + 1) * sizeof(int64_t),
                             "CSR row offsets"));
    SPX_TRY(spx__cuda_upload((void **)&d->colidx, A->col32, (size_t)A->nnz * sizeof(int32_t),
                             "CSR column indices"));
    SPX_TRY(spx__cuda_upload_values(&d->values, A->values, A->vtype, A->nnz, t, "CSR values"));
    return SPX_OK;
cleanup:
    spx__cuda_csr_free(d);
    return st;
}

extern "C" void spx__cuda_csr_free(spx__cuda_csr *d)
{
    if (!d) return;
    spx__cuda_free(d->rowptr);
    spx__cuda_free(d->colidx);
    spx__cuda_free(d->values);
    *d = spx__cuda_csr{};
}

extern "C" size_t spx__cuda_csr_bytes(const spx__cuda_csr *d)
{
    if (!d || !d->rowptr) return 0;
    return (size_t)(d->rows + 1) * sizeof(int64_t) + (size_t)d->nnz * sizeof(int32_t) +
           (size_t)d->nnz * type_size(d->vtype);
}

/* ---- a caller's device arrays (spx_matrix_wrap_device) */

extern "C" spx_status spx__cuda_device_array(const void *p, const char *what)
{
    cudaPointerAttributes a;
    int dev = 0;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return spx__error(SPX_ERR_INVALID_ARG, "%s (%p): not a CUDA pointer: %s", what, p,
                          cudaGetErrorString(e));
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return spx__error(SPX_ERR_INVALID_ARG, "%s (%p) is not CUDA device memory (%s)", what, p,
                          a.type == cudaMemoryTypeHost ? "pinned host memory" : "host memory");
    CUDA_CHECK(cudaGetDevice(&dev));
    if (a.type == cudaMemoryTypeDevice && a.device != dev)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "%s (%p) is on device %d; SpX works on the current device, %d", what, p,
                          a.device, dev);
    return SPX_OK;
}

extern "C" spx_status spx__cuda_offsets_to_host(int64_t *dst, const void *src, int bits, int64_t n)
{
    if (!dst || !src || n < 0 || (bits != 32 && bits != 64))
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_offsets_to_host: bad argument");
    CUDA_CHECK(cudaMemcpy(dst, src, (size_t)n * (size_t)(bits / 8), cudaMemcpyDeviceToHost));
    /* 32-bit offsets land in the first half of dst and are widened in place,
     * from the top down: writing entry i covers 32-bit slots 2i and 2i+1, none
     * of them below i, which are still to be read. */
    for (int64_t i = n - 1; bits == 32 && i >= 0; i--) {
        int32_t v;
        memcpy(&v, (const char *)dst + (size_t)i * sizeof v, sizeof v);
        dst[i] = v;
    }
    return SPX_OK;
}

__global__ void widen_kernel(int64_t *out, const int32_t *in, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = in[i];
}

extern "C" spx_status spx__cuda_widen_offsets(int64_t **dptr, const int32_t *src, int64_t n)
{
    if (!dptr || !src || n < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "spx__cuda_widen_offsets: bad argument");
    *dptr = NULL;
    int64_t *out = NULL;
    spx_status st =
        spx__cuda_alloc((void **)&out, (size_t)n * sizeof(int64_t), "widened row offsets");
    if (st != SPX_OK) return st;
    const int64_t blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
    if (n > 0) widen_kernel<<<(unsigned)blocks, 256>>>(out, src, n);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        spx__cuda_free(out);
        return cuda_fail(e, "row offset widening kernel");
    }
    *dptr = out;
    return SPX_OK;
}
