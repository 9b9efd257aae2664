/* Device memory shared between processes of one host (multi_cuda.h): the
 * MPI executor's ranks on one node read each other's exchange buffers
 * directly, over NVLink or PCIe, instead of through host memory. */
#include <cuda_runtime.h>

#include <string.h>

extern "C" {
#include "core/error.h"
}
#include "cuda/multi/multi_cuda.h"

static_assert(sizeof(cudaIpcMemHandle_t) == SPX__CUDA_IPC_BYTES, "IPC handle size");

static spx_status ipc_fail(cudaError_t e, const char *call)
{
    cudaGetLastError();
    return spx__error(SPX_ERR_DEVICE, "CUDA %s failed: %s", call, cudaGetErrorString(e));
}

extern "C" spx_status spx__cuda_ipc_handle(const void *dptr, void *handle)
{
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, (void *)dptr);
    if (e != cudaSuccess) return ipc_fail(e, "cudaIpcGetMemHandle");
    memcpy(handle, &h, sizeof h);
    return SPX_OK;
}

extern "C" spx_status spx__cuda_ipc_open(const void *handle, void **dptr)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    *dptr = NULL;
    cudaError_t e = cudaIpcOpenMemHandle(dptr, h, cudaIpcMemLazyEnablePeerAccess);
    if (e != cudaSuccess) {
        *dptr = NULL;
        return ipc_fail(e, "cudaIpcOpenMemHandle");
    }
    return SPX_OK;
}

extern "C" int spx__cuda_ipc_readable(const void *mapped, int device)
{
    cudaPointerAttributes a;
    int can = 0;
    if (cudaPointerGetAttributes(&a, mapped) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    if (a.device == device) return 1;
    if (a.device < 0 || cudaDeviceCanAccessPeer(&can, device, a.device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return can;
}

extern "C" void spx__cuda_ipc_close(void *dptr)
{
    if (dptr) cudaIpcCloseMemHandle(dptr);
}
