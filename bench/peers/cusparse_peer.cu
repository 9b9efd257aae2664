/* The helpers of cusparse_peer.h: errors, device memory, and A's CSR on the
 * device for the cuSPARSE peers. */
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cusparse_peer.h"

spx_status cusparse_peer_sp_fail(cusparseStatus_t s, const char *call)
{
    spx_status st = s == CUSPARSE_STATUS_NOT_SUPPORTED            ? SPX_ERR_UNSUPPORTED
                    : s == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES ? SPX_ERR_OOM
                    : s == CUSPARSE_STATUS_ALLOC_FAILED           ? SPX_ERR_OOM
                                                                  : SPX_ERR_DEVICE;
    return bench_fail(st, "cuSPARSE %s failed: %s (%s)", call, cusparseGetErrorName(s),
                      cusparseGetErrorString(s));
}

spx_status cusparse_peer_cu_fail(cudaError_t e, const char *call)
{
    return bench_fail(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "CUDA %s failed: %s", call, cudaGetErrorString(e));
}

spx_status cusparse_peer_alloc(void **p, size_t bytes, const char *what)
{
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaSuccess) return SPX_OK;
    *p = NULL;
    return bench_fail(e == cudaErrorMemoryAllocation ? SPX_ERR_OOM : SPX_ERR_DEVICE,
                      "cuSPARSE peer: cudaMalloc of %zu bytes for %s: %s", bytes, what,
                      cudaGetErrorString(e));
}

void cusparse_peer_free(void *p)
{
    if (p) cudaFree(p);
}

size_t cusparse_peer_value_bytes(spx_type t)
{
    return t == SPX_F64 ? 8 : t == SPX_F32 ? 4 : 2;
}

/* A's values in t on the host (fp16 through spx_float_to_half). */
static spx_status host_values(const bench_csr &A, spx_type t, std::vector<unsigned char> &out)
{
    out.resize((size_t)A.nnz * cusparse_peer_value_bytes(t));
    if (t == SPX_F64) {
        double *d = reinterpret_cast<double *>(out.data());
        for (int64_t k = 0; k < A.nnz; k++)
            d[k] = bench_val(&A, k);
        return SPX_OK;
    }
    std::vector<float> f((size_t)A.nnz);
    for (int64_t k = 0; k < A.nnz; k++) {
        double v = bench_val(&A, k);
        if (t == SPX_F16 && !(v <= 65504.0 && v >= -65504.0))
            return bench_fail(SPX_ERR_UNSUPPORTED,
                              "cuSPARSE peer f16: value %g (entry %lld) is beyond half's range",
                              v, (long long)k);
        f[(size_t)k] = (float)v;
    }
    if (t == SPX_F32)
        std::memcpy(out.data(), f.data(), f.size() * sizeof(float));
    else
        spx_float_to_half(f.data(), reinterpret_cast<uint16_t *>(out.data()), A.nnz);
    return SPX_OK;
}

spx_status cusparse_peer_upload(const bench_csr &A, spx_type t, void **rp, void **ci, void **val)
{
    spx_status st = SPX_OK;
    *rp = *ci = *val = NULL;
    if (A.nnz > INT32_MAX || A.rows >= INT32_MAX || A.cols > INT32_MAX || A.col_bits != 32)
        return bench_fail(SPX_ERR_UNSUPPORTED,
                          "cuSPARSE peer: 32-bit indices only (nnz %lld, %lld rows)",
                          (long long)A.nnz, (long long)A.rows);
    try {
        std::vector<int32_t> rp32((size_t)A.rows + 1);
        std::vector<unsigned char> vals;
        for (int64_t i = 0; i <= A.rows; i++)
            rp32[(size_t)i] = (int32_t)A.rowptr[i];
        BENCH_TRY(host_values(A, t, vals));
        BENCH_TRY(cusparse_peer_alloc(rp, rp32.size() * sizeof(int32_t), "CSR offsets"));
        BENCH_TRY(cusparse_peer_alloc(ci, (size_t)A.nnz * sizeof(int32_t), "CSR columns"));
        BENCH_TRY(cusparse_peer_alloc(val, vals.size(), "CSR values"));
        CU_TRY(cudaMemcpy(*rp, rp32.data(), rp32.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
        CU_TRY(cudaMemcpy(*ci, A.colidx, (size_t)A.nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
        CU_TRY(cudaMemcpy(*val, vals.data(), vals.size(), cudaMemcpyHostToDevice));
    } catch (const std::bad_alloc &) {
        st = bench_fail(SPX_ERR_OOM, "cuSPARSE peer: out of host memory staging A");
    }
cleanup:
    if (st != SPX_OK) {
        cusparse_peer_free(*rp);
        cusparse_peer_free(*ci);
        cusparse_peer_free(*val);
        *rp = *ci = *val = NULL;
    }
    return st;
}
