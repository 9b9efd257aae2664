/* cuSPARSE peers: y = alpha*A*x + beta*y through cusparseSpMV, behind the
 * bench's peer interface (bench/peers.h), on cuSPARSE and the CUDA runtime
 * directly (default stream).
 *   peer-cusparse-csr   CSR, CUSPARSE_SPMV_ALG_DEFAULT
 *   peer-cusparse-csr2  CSR, CUSPARSE_SPMV_CSR_ALG2 (deterministic row split)
 *   peer-cusparse-bsr   BSR (row-major blocks) of block size 2, 4 or 8, the
 *                       fastest of those tried, chosen at prepare by timing
 *                       10 calls each after a warm-up; a size whose blocks
 *                       hold more than 4x the nonzeros is not tried.
 *   peer-cusparse-csr-h fp16 only: CSR, ALG_DEFAULT, for a user who keeps x
 *                       in half (see below).
 * fp64 and fp32 run in their own type. fp16 (peer-cusparse-csr): SpX's
 * fp16 is half values with fp32 x and y, a combination cuSPARSE 13.0 refuses
 * ("type combination of matA (CUDA_R_16F), vecX (CUDA_R_32F), vecY
 * (CUDA_R_32F), compute (CUDA_R_32F) is not supported", H100, 2026-11-22).
 * The peer runs the supported one instead: A, x and y in half, fp32 compute.
 * Each call converts the float x to a half copy, with beta != 0 the float y
 * to a half copy, runs cusparseSpMV on the copies and converts the half y
 * back to float: two or three small kernels counted in the peer's time
 * (6n + 6m bytes more, 12m with beta, plus the launches). x and y rounded to half make
 * its result differ from SpX's fp16 by about 2^-11 relative. Like SpX's
 * fp16 formats it declines (SPX_ERR_UNSUPPORTED) a matrix with a value beyond
 * half's range (65504) rather than compute with infinities.
 * peer-cusparse-csr-h times cusparseSpMV alone, as a user holding x in half
 * would call it: A and x in half, y in the caller's float, fp32 compute (a
 * mixed combination cuSPARSE lists for SpMV). The format interface hands the
 * peer float x, so x goes to a half copy at the first call with that x
 * pointer and is reused while the pointer stays: the bench passes one
 * unchanged x to the checked call and every timed call, so the conversion
 * falls in the (untimed) check. The peer thus assumes x unchanged between
 * calls with the same pointer (and its spmv records that pointer: one call
 * at a time per state); it is a bench peer, not an SpMV for general use, and
 * a call with another x converts again. y stays float, as SpX's: a user
 * keeping y in half too would write 2m bytes less. One product at prepare
 * turns a combination cuSPARSE refuses only at the call into a decline there.
 * Its error is x's rounding to half, at most 2^-11 of (|A||x|)_inf, inside
 * fp16's 1e-2 (the bench checks the first call, the one that converts x).
 * 32-bit indices (nnz below 2^31). The handle, descriptors, buffer (its size
 * asked first) and cusparseSpMV_preprocess are done at prepare and freed at
 * destroy. For BSR, x and y are copied through padded vectors when m or n is
 * not a multiple of the block size, and that copy is part of each call. */
#define DISABLE_CUSPARSE_DEPRECATED /* csr2bsr is the documented conversion */
#include <cuda_fp16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cusparse_peer.h"

namespace
{

enum peer_kind { PEER_CSR, PEER_CSR2, PEER_BSR };

struct peer {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *rp, *ci, *val, *buf; /* device */
    void *xpad, *ypad;         /* BSR: padded x and y; fp16: half x (and y); or NULL */
    const void *x_src;         /* csr-h: the caller's x that xpad holds in half */
    int64_t m, n, mpad, npad;
    int bs;     /* BSR block size, 0 for CSR */
    int half_x; /* csr-h: x converted once per x pointer (see the header) */
    spx_type prec;
    cudaDataType vt, ct, xt, yt; /* value, compute, x and y descriptors' types */
    cusparseSpMVAlg_t alg;
    cudaStream_t stream;
    size_t bytes;
};

/* Bytes of one element of the caller's x and y (fp16: float). */
size_t vsize(spx_type t)
{
    return t == SPX_F64 ? 8 : 4;
}

/* Bytes of one element of a descriptor's type. */
size_t tsize(cudaDataType t)
{
    return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2;
}

/* fp16: float -> half and half -> float conversions of the vectors, one
 * element per thread (the peer's own, see the header). */
__global__ void to_half(int64_t n, const float *__restrict__ in, __half *__restrict__ out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2half_rn(in[i]);
}

__global__ void to_float(int64_t n, const __half *__restrict__ in, float *__restrict__ out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __half2float(in[i]);
}

unsigned blocks_for(int64_t n)
{
    return (unsigned)((n + 255) / 256);
}

void peer_free(peer *p)
{
    if (!p) return;
    if (p->A) cusparseDestroySpMat(p->A);
    if (p->x) cusparseDestroyDnVec(p->x);
    if (p->y) cusparseDestroyDnVec(p->y);
    if (p->h) cusparseDestroy(p->h);
    cusparse_peer_free(p->rp);
    cusparse_peer_free(p->ci);
    cusparse_peer_free(p->val);
    cusparse_peer_free(p->buf);
    cusparse_peer_free(p->xpad);
    cusparse_peer_free(p->ypad);
    free(p);
}

/* csr-h: one product on the zero x copy, so that a type combination cuSPARSE
 * refuses only at the call is refused here, at prepare. */
spx_status half_x_trial(peer *p)
{
    spx_status st = SPX_OK;
    float a32 = 1.0f, b32 = 0.0f;
    SP_TRY(cusparseSpMV(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &a32, p->A, p->x, &b32, p->y, p->ct,
                        p->alg, p->buf));
    CU_TRY(cudaStreamSynchronize(p->stream));
cleanup:
    return st;
}

/* Vector descriptors on the padded or plain vectors, the buffer (size asked
 * first), and the preprocessing. */
spx_status finish_setup(peer *p)
{
    spx_status st = SPX_OK;
    size_t bytes = 0;
    double a64 = 1.0, b64 = 0.0;
    float a32 = 1.0f, b32 = 0.0f;
    const void *alpha = p->ct == CUDA_R_64F ? (const void *)&a64 : (const void *)&a32;
    const void *beta = p->ct == CUDA_R_64F ? (const void *)&b64 : (const void *)&b32;
    size_t xs = tsize(p->xt), ys = tsize(p->yt); /* fp16: half copies */
    BENCH_TRY(cusparse_peer_alloc(&p->xpad, (size_t)(p->npad + 1) * xs, "cuSPARSE x"));
    BENCH_TRY(cusparse_peer_alloc(&p->ypad, (size_t)(p->mpad + 1) * ys, "cuSPARSE y"));
    CU_TRY(cudaMemset(p->xpad, 0, (size_t)(p->npad + 1) * xs));
    SP_TRY(cusparseCreateDnVec(&p->x, p->npad, p->xpad, p->xt));
    SP_TRY(cusparseCreateDnVec(&p->y, p->mpad, p->ypad, p->yt));
    SP_TRY(cusparseSpMV_bufferSize(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, p->A, p->x, beta,
                                   p->y, p->ct, p->alg, &bytes));
    BENCH_TRY(cusparse_peer_alloc(&p->buf, bytes, "cuSPARSE SpMV buffer"));
    {
        /* Optional step: a layout or algorithm without it answers NOT_SUPPORTED. */
        cusparseStatus_t s = cusparseSpMV_preprocess(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                                                     p->A, p->x, beta, p->y, p->ct, p->alg, p->buf);
        if (s != CUSPARSE_STATUS_SUCCESS && s != CUSPARSE_STATUS_NOT_SUPPORTED) {
            st = cusparse_peer_sp_fail(s, "cusparseSpMV_preprocess");
            goto cleanup;
        }
    }
    p->bytes += bytes;
    if (p->half_x) {
        /* x's half copy stays; y is the caller's */
        BENCH_TRY(half_x_trial(p));
        cusparse_peer_free(p->ypad);
        p->ypad = NULL;
        p->bytes += (size_t)p->npad * xs;
    } else if (p->prec != SPX_F16 && p->mpad == p->m && p->npad == p->n) {
        /* no padding: run on the caller's vectors */
        cusparse_peer_free(p->xpad);
        cusparse_peer_free(p->ypad);
        p->xpad = p->ypad = NULL;
    } else {
        p->bytes += (size_t)p->npad * xs + (size_t)p->mpad * ys;
    }
cleanup:
    return st;
}

spx_status new_peer(const spx_bench_peer_opts *o, peer **out)
{
    spx_status st = bench_calloc((void **)out, 1, sizeof(peer), "cuSPARSE peer");
    if (st != SPX_OK) return st;
    peer *p = *out;
    p->prec = o->precision;
    p->vt = p->ct = p->xt = p->yt = o->precision == SPX_F64 ? CUDA_R_64F : CUDA_R_32F;
    if (o->precision == SPX_F16) p->vt = p->xt = p->yt = CUDA_R_16F; /* fp32 compute */
    p->stream = 0;
    SP_TRY(cusparseCreate(&p->h));
    SP_TRY(cusparseSetStream(p->h, p->stream));
cleanup:
    return st;
}

/* CSR with algorithm alg; half_x: the csr-h peer (fp16, float y). */
spx_status csr_prepare(const spx_matrix *M, const spx_bench_peer_opts *o, void **state,
                       cusparseSpMVAlg_t alg, int half_x)
{
    peer *p = NULL;
    bench_csr v, *A = &v;
    spx_status st;
    *state = NULL;
    BENCH_TRY(bench_csr_view(M, &v));
    BENCH_TRY(new_peer(o, &p));
    p->alg = alg;
    p->half_x = half_x;
    if (half_x) p->yt = CUDA_R_32F;
    p->m = p->mpad = A->rows;
    p->n = p->npad = A->cols;
    BENCH_TRY(cusparse_peer_upload(*A, o->precision, &p->rp, &p->ci, &p->val));
    p->bytes = ((size_t)A->rows + 1) * 4 + (size_t)A->nnz * (4 + cusparse_peer_value_bytes(o->precision));
    SP_TRY(cusparseCreateCsr(&p->A, A->rows, A->cols, A->nnz, p->rp, p->ci, p->val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             p->vt));
    BENCH_TRY(finish_setup(p));
    *state = p;
    return SPX_OK;
cleanup:
    peer_free(p);
    return st;
}

spx_status csr_default_prepare(const spx_matrix *A, const spx_matrix *, const spx_bench_peer_opts *o,
                               void **state)
{
    return csr_prepare(A, o, state, CUSPARSE_SPMV_ALG_DEFAULT, 0);
}

spx_status csr_alg2_prepare(const spx_matrix *A, const spx_matrix *, const spx_bench_peer_opts *o,
                            void **state)
{
    return csr_prepare(A, o, state, CUSPARSE_SPMV_CSR_ALG2, 0);
}

spx_status csr_half_x_prepare(const spx_matrix *A, const spx_matrix *, const spx_bench_peer_opts *o,
                              void **state)
{
    return csr_prepare(A, o, state, CUSPARSE_SPMV_ALG_DEFAULT, 1);
}

/* fp16: x (and y when beta != 0) to half, cuSPARSE on the half copies, y back. */
spx_status half_spmv(peer *p, const void *pa, const void *x, const void *pb, void *y)
{
    spx_status st = SPX_OK;
    const bool beta0 = *(const float *)pb == 0.0f;
    if (p->n > 0)
        to_half<<<blocks_for(p->n), 256, 0, p->stream>>>(p->n, (const float *)x, (__half *)p->xpad);
    if (!beta0 && p->m > 0)
        to_half<<<blocks_for(p->m), 256, 0, p->stream>>>(p->m, (const float *)y, (__half *)p->ypad);
    CU_TRY(cudaGetLastError());
    SP_TRY(cusparseSpMV(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, p->A, p->x, pb, p->y, p->ct,
                        p->alg, p->buf));
    if (p->m > 0)
        to_float<<<blocks_for(p->m), 256, 0, p->stream>>>(p->m, (const __half *)p->ypad,
                                                          (float *)y);
    CU_TRY(cudaGetLastError());
cleanup:
    return st;
}

/* csr-h: x to half only when its pointer changes (see the header), then
 * cusparseSpMV alone, into the caller's float y. */
spx_status half_x_spmv(peer *p, const void *pa, const void *x, const void *pb, void *y)
{
    spx_status st = SPX_OK;
    if (x != p->x_src && p->n > 0) {
        to_half<<<blocks_for(p->n), 256, 0, p->stream>>>(p->n, (const float *)x, (__half *)p->xpad);
        CU_TRY(cudaGetLastError());
    }
    p->x_src = x;
    SP_TRY(cusparseDnVecSetValues(p->y, y));
    SP_TRY(cusparseSpMV(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, p->A, p->x, pb, p->y, p->ct,
                        p->alg, p->buf));
cleanup:
    return st;
}

spx_status peer_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    peer *p = (peer *)state;
    spx_status st = SPX_OK;
    double a64 = alpha, b64 = beta;
    float a32 = (float)alpha, b32 = (float)beta;
    const void *pa = p->ct == CUDA_R_64F ? (const void *)&a64 : (const void *)&a32;
    const void *pb = p->ct == CUDA_R_64F ? (const void *)&b64 : (const void *)&b32;
    size_t es = vsize(p->prec);
    if (p->half_x) return half_x_spmv(p, pa, x, pb, y);
    if (p->prec == SPX_F16) return half_spmv(p, pa, x, pb, y);
    if (p->xpad) { /* BSR with padding: x and y through the padded vectors */
        CU_TRY(cudaMemcpyAsync(p->xpad, x, (size_t)p->n * es, cudaMemcpyDeviceToDevice, p->stream));
        if (beta != 0.0)
            CU_TRY(cudaMemcpyAsync(p->ypad, y, (size_t)p->m * es, cudaMemcpyDeviceToDevice,
                                   p->stream));
    } else {
        SP_TRY(cusparseDnVecSetValues(p->x, (void *)x));
        SP_TRY(cusparseDnVecSetValues(p->y, y));
    }
    SP_TRY(cusparseSpMV(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, p->A, p->x, pb, p->y, p->ct,
                        p->alg, p->buf));
    if (p->ypad)
        CU_TRY(cudaMemcpyAsync(y, p->ypad, (size_t)p->m * es, cudaMemcpyDeviceToDevice, p->stream));
cleanup:
    return st;
}

/* BSR of block size bs from the int32 CSR on the device. SPX_ERR_UNSUPPORTED
 * when the blocks would hold more than 4x the nonzeros. */
spx_status bsr_build(const bench_csr *A, const spx_bench_peer_opts *o, int bs, const void *rp,
                     const void *ci, const void *val, peer **out)
{
    peer *p = NULL;
    cusparseMatDescr_t dA = NULL, dC = NULL;
    spx_status st;
    int bnnz = 0;
    int64_t mb = (A->rows + bs - 1) / bs, nb = (A->cols + bs - 1) / bs;
    *out = NULL;
    BENCH_TRY(new_peer(o, &p));
    p->alg = CUSPARSE_SPMV_BSR_ALG1;
    p->bs = bs;
    p->m = A->rows;
    p->n = A->cols;
    p->mpad = mb * bs;
    p->npad = nb * bs;
    SP_TRY(cusparseCreateMatDescr(&dA));
    SP_TRY(cusparseCreateMatDescr(&dC));
    BENCH_TRY(cusparse_peer_alloc(&p->rp, (size_t)(mb + 1) * sizeof(int), "BSR row offsets"));
    SP_TRY(cusparseXcsr2bsrNnz(p->h, CUSPARSE_DIRECTION_ROW, (int)A->rows, (int)A->cols, dA,
                               (const int *)rp, (const int *)ci, bs, dC, (int *)p->rp, &bnnz));
    if ((double)bnnz * bs * bs > 4.0 * (double)(A->nnz > 0 ? A->nnz : 1)) {
        st = bench_fail(SPX_ERR_UNSUPPORTED, "BSR %d: %d blocks hold over 4x the nonzeros", bs,
                        bnnz);
        goto cleanup;
    }
    BENCH_TRY(cusparse_peer_alloc(&p->ci, (size_t)bnnz * sizeof(int), "BSR column indices"));
    BENCH_TRY(cusparse_peer_alloc(&p->val, (size_t)bnnz * bs * bs * vsize(o->precision), "BSR values"));
    if (o->precision == SPX_F64)
        SP_TRY(cusparseDcsr2bsr(p->h, CUSPARSE_DIRECTION_ROW, (int)A->rows, (int)A->cols, dA,
                                (const double *)val, (const int *)rp, (const int *)ci, bs, dC,
                                (double *)p->val, (int *)p->rp, (int *)p->ci));
    else
        SP_TRY(cusparseScsr2bsr(p->h, CUSPARSE_DIRECTION_ROW, (int)A->rows, (int)A->cols, dA,
                                (const float *)val, (const int *)rp, (const int *)ci, bs, dC,
                                (float *)p->val, (int *)p->rp, (int *)p->ci));
    p->bytes =
        (size_t)(mb + 1) * 4 + (size_t)bnnz * 4 + (size_t)bnnz * bs * bs * vsize(o->precision);
    SP_TRY(cusparseCreateBsr(&p->A, mb, nb, bnnz, bs, bs, p->rp, p->ci, p->val, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, p->vt,
                             CUSPARSE_ORDER_ROW));
    BENCH_TRY(finish_setup(p));
    CU_TRY(cudaStreamSynchronize(p->stream));
    *out = p;
    p = NULL;
cleanup:
    if (dA) cusparseDestroyMatDescr(dA);
    if (dC) cusparseDestroyMatDescr(dC);
    peer_free(p);
    return st;
}

/* Median-free quick timing: 10 calls after 2 warm-up calls, on scratch vectors. */
spx_status bsr_time(peer *p, void *x, void *y, float *ms)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    spx_status st;
    for (int i = 0; i < 2; i++)
        BENCH_TRY(peer_spmv(p, 1.0, x, 0.0, y));
    CU_TRY(cudaEventCreate(&e0));
    CU_TRY(cudaEventCreate(&e1));
    CU_TRY(cudaEventRecord(e0, p->stream));
    for (int i = 0; i < 10; i++)
        BENCH_TRY(peer_spmv(p, 1.0, x, 0.0, y));
    CU_TRY(cudaEventRecord(e1, p->stream));
    CU_TRY(cudaEventSynchronize(e1));
    CU_TRY(cudaEventElapsedTime(ms, e0, e1));
cleanup:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return st;
}

spx_status bsr_prepare(const spx_matrix *M, const spx_matrix *, const spx_bench_peer_opts *o,
                       void **state)
{
    static const int sizes[] = {2, 4, 8};
    void *rp = NULL, *ci = NULL, *val = NULL, *x = NULL, *y = NULL;
    peer *best = NULL;
    bench_csr v, *A = &v;
    float best_ms = 0.0f;
    spx_status st;
    *state = NULL;
    BENCH_TRY(bench_csr_view(M, &v));
    BENCH_TRY(cusparse_peer_upload(*A, o->precision, &rp, &ci, &val));
    BENCH_TRY(cusparse_peer_alloc(&x, (size_t)(A->cols + 1) * vsize(o->precision), "BSR timing x"));
    BENCH_TRY(cusparse_peer_alloc(&y, (size_t)(A->rows + 1) * vsize(o->precision), "BSR timing y"));
    CU_TRY(cudaMemset(x, 0, (size_t)(A->cols + 1) * vsize(o->precision)));
    for (int k = 0; k < 3; k++) {
        peer *p = NULL;
        float ms = 0.0f;
        st = bsr_build(A, o, sizes[k], rp, ci, val, &p);
        if (st == SPX_ERR_UNSUPPORTED) continue;
        if (st != SPX_OK) goto cleanup;
        st = bsr_time(p, x, y, &ms);
        if (st != SPX_OK) {
            peer_free(p);
            goto cleanup;
        }
        if (!best || ms < best_ms) {
            peer_free(best);
            best = p;
            best_ms = ms;
        } else {
            peer_free(p);
        }
    }
    if (!best) {
        st = bench_fail(SPX_ERR_UNSUPPORTED, "BSR: every block size fills over 4x the nonzeros");
        goto cleanup;
    }
    *state = best;
    best = NULL;
    st = SPX_OK;
cleanup:
    peer_free(best);
    cusparse_peer_free(rp);
    cusparse_peer_free(ci);
    cusparse_peer_free(val);
    cusparse_peer_free(x);
    cusparse_peer_free(y);
    return st;
}

size_t peer_bytes(const void *state)
{
    return ((const peer *)state)->bytes;
}

void peer_destroy(void *state)
{
    peer_free((peer *)state);
}

void peer_describe(const void *state, char *buf, size_t len)
{
    const peer *p = (const peer *)state;
    if (p->bs)
        snprintf(buf, len, "bs=%d%s", p->bs, p->xpad ? " padded" : "");
    else if (p->half_x)
        snprintf(buf, len, "alg=default half x (converted once per x), float y");
    else
        snprintf(buf, len, "alg=%s%s", p->alg == CUSPARSE_SPMV_CSR_ALG2 ? "csr_alg2" : "default",
                 p->prec == SPX_F16 ? " half x,y (converted each call)" : "");
}

const unsigned peer_precisions = BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32);

} // namespace

/* Every peer of this file: its name, precisions and prepare. */
#define PEER_OPS(name, precisions, prepare)                                                        \
    {                                                                                              \
        name, SPX_OP_SPMV, SPX_DEV_CUDA, precisions, prepare, peer_spmv, NULL, NULL, peer_bytes,   \
            peer_destroy, peer_describe                                                            \
    }

extern "C" const spx_bench_peer spx_peer_cusparse_csr =
    PEER_OPS("peer-cusparse-csr", peer_precisions | BENCH_TYPE_BIT(SPX_F16), csr_default_prepare);
extern "C" const spx_bench_peer spx_peer_cusparse_csr2 =
    PEER_OPS("peer-cusparse-csr2", peer_precisions, csr_alg2_prepare);
extern "C" const spx_bench_peer spx_peer_cusparse_bsr =
    PEER_OPS("peer-cusparse-bsr", peer_precisions, bsr_prepare);
extern "C" const spx_bench_peer spx_peer_cusparse_csr_h =
    PEER_OPS("peer-cusparse-csr-h", BENCH_TYPE_BIT(SPX_F16), csr_half_x_prepare);
