/* peer-cusparse-spmm: cuSPARSE's generic SpMM, Y = alpha*A*X + beta*Y, A in
 * CSR (32-bit indices), X and Y dense row-major (CUSPARSE_ORDER_ROW) with the
 * k and leading dimensions of the prepare, on the GPU (default stream).
 *
 *   fp64, fp32: A, X, Y and the sums in the precision.
 *   fp16:       A and X in half, Y in float, fp32 compute: cuSPARSE's SpMM
 *               takes A and X of one type, and SpX's fp16 is half A with
 *               float X and Y. Each call converts the caller's float X to the
 *               peer's half copy first (one kernel in its time, 6 bytes more
 *               an entry of X), as peer-cusparse-csr converts x; X's rounding
 *               makes its result differ from SpX's fp16 by about 2^-11
 *               relative. Declines (SPX_ERR_UNSUPPORTED) a value beyond half's
 *               range (cusparse_peer_upload), or a cuSPARSE refusing the types.
 *
 *   prepare: A on the device; then each of CUSPARSE_SPMM_CSR_ALG2 (the one
 *            cuSPARSE documents for row-major X and Y), ALG3 and ALG1 gets a
 *            descriptor of A of its own, its buffer (size asked first) and
 *            cusparseSpMM_preprocess, and is timed on zero scratch X and Y of
 *            the prepared shape (bench_time_calls: a warm-up batch, then 3
 *            batches of 10 calls, each ended by a device sync); the fastest is
 *            kept with its buffer, the others are freed, and one that
 *            cuSPARSE refuses is passed over (none left: the peer declines
 *            with the last refusal). All of it is in prep_ms; describe names
 *            the algorithm kept and each one's time.
 *   spmm:    the descriptors of X and Y pointed at the caller's arrays (fp16:
 *            X's half copy), then cusparseSpMM. No allocation, no sync.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>

#include "cusparse_peer.h"

namespace
{

/* The algorithms tried, in this order (ties keep the earlier). */
const cusparseSpMMAlg_t algs[] = {CUSPARSE_SPMM_CSR_ALG2, CUSPARSE_SPMM_CSR_ALG3,
                                  CUSPARSE_SPMM_CSR_ALG1};
const char *const alg_names[] = {"csr_alg2", "csr_alg3", "csr_alg1"};
const int n_algs = 3;

struct spmm_peer {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A; /* the kept algorithm's descriptor */
    cusparseDnMatDescr_t X, Y;
    void *rp, *ci, *val; /* A on the device */
    void *buf;           /* the kept algorithm's buffer */
    void *x_half;        /* fp16: X's half copy, else NULL */
    size_t buf_bytes, bytes;
    int64_t rows, cols, nnz;
    spx_bench_spmm_peer_opts shape; /* the calls' k and leading dimensions */
    cudaDataType vt, xt, yt, ct;    /* A's values, X, Y, compute */
    int alg;                        /* index in algs */
    double ms[n_algs];              /* each algorithm's time per call at prepare; NAN: refused */
};

size_t type_bytes(cudaDataType t)
{
    return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2;
}

__global__ void x_to_half(int64_t n, const float *__restrict__ in, __half *__restrict__ out)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float2half_rn(in[i]);
}

/* An algorithm's descriptor of A and buffer, freed (NULL: nothing). */
void drop(cusparseSpMatDescr_t *A, void **buf)
{
    if (*A) cusparseDestroySpMat(*A);
    cusparse_peer_free(*buf);
    *A = NULL;
    *buf = NULL;
}

void peer_free(spmm_peer *p)
{
    if (!p) return;
    drop(&p->A, &p->buf);
    if (p->X) cusparseDestroyDnMat(p->X);
    if (p->Y) cusparseDestroyDnMat(p->Y);
    if (p->h) cusparseDestroy(p->h);
    void *arrays[] = {p->rp, p->ci, p->val, p->x_half};
    for (void *a : arrays)
        cusparse_peer_free(a);
    free(p);
}

/* Y = alpha*A*X + beta*Y with the descriptors as they point. */
spx_status product(spmm_peer *p, double alpha, double beta)
{
    spx_status st = SPX_OK;
    const cusparse_peer_scalar a(alpha), b(beta);
    SP_TRY(cusparseSpMM(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                        a.in(p->ct), p->A, p->X, b.in(p->ct), p->Y, p->ct, algs[p->alg], p->buf));
cleanup:
    return st;
}

/* One product on the scratch X and Y of the prepare (bench_call_fn). */
spx_status scratch_product(void *ctx)
{
    return product(static_cast<spmm_peer *>(ctx), 1.0, 0.0);
}

/* Algorithm c in p->A and p->buf: descriptor, buffer, preprocessing, then
 * its time per call in *ms. */
spx_status try_alg(spmm_peer *p, int c, double *ms)
{
    spx_status st = SPX_OK;
    const cusparse_peer_scalar one(1.0), zero(0.0);
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    bench_stats s;
    p->alg = c;
    SP_TRY(cusparseCreateCsr(&p->A, p->rows, p->cols, p->nnz, p->rp, p->ci, p->val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             p->vt));
    SP_TRY(cusparseSpMM_bufferSize(p->h, N, N, one.in(p->ct), p->A, p->X, zero.in(p->ct), p->Y,
                                   p->ct, algs[c], &p->buf_bytes));
    BENCH_TRY(cusparse_peer_alloc(&p->buf, p->buf_bytes, "cuSPARSE SpMM buffer"));
    SP_TRY(cusparseSpMM_preprocess(p->h, N, N, one.in(p->ct), p->A, p->X, zero.in(p->ct), p->Y,
                                   p->ct, algs[c], p->buf));
    BENCH_TRY(bench_time_calls(scratch_product, p, 1, 10, 3, &s));
    *ms = 1e3 * s.median;
cleanup:
    return st;
}

/* Every algorithm of algs in turn; the fastest stays in p (see the header). */
spx_status pick_alg(spmm_peer *p)
{
    cusparseSpMatDescr_t best_A = NULL;
    void *best_buf = NULL;
    size_t best_bytes = 0;
    int best = -1;
    spx_status st = SPX_OK;
    for (int c = 0; c < n_algs; c++) {
        st = try_alg(p, c, &p->ms[c]);
        if (st != SPX_OK) p->ms[c] = NAN;
        if (st == SPX_OK && (best < 0 || p->ms[c] < p->ms[best])) {
            drop(&best_A, &best_buf);
            best_A = p->A;
            best_buf = p->buf;
            best_bytes = p->buf_bytes;
            best = c;
            p->A = NULL;
            p->buf = NULL;
        }
        drop(&p->A, &p->buf);
    }
    if (best < 0) return st; /* the last refusal's status and message */
    p->A = best_A;
    p->buf = best_buf;
    p->buf_bytes = best_bytes;
    p->alg = best;
    p->bytes += best_bytes;
    return SPX_OK;
}

spx_status spmm_prepare(const spx_matrix *M, const spx_matrix *, const spx_bench_peer_opts *o,
                        void **state)
{
    const spx_bench_spmm_peer_opts *so = reinterpret_cast<const spx_bench_spmm_peer_opts *>(o);
    spmm_peer *p = NULL;
    void *xs = NULL, *ys = NULL; /* scratch X (fp16: kept as the half copy) and Y */
    size_t xb, yb;
    bench_csr v;
    spx_status st;
    *state = NULL;
    BENCH_TRY(bench_csr_view(M, &v));
    BENCH_TRY(bench_calloc((void **)&p, 1, sizeof(spmm_peer), "cuSPARSE SpMM peer"));
    p->rows = v.rows;
    p->cols = v.cols;
    p->nnz = v.nnz;
    p->shape = *so;
    p->vt = p->xt = p->yt = p->ct = o->precision == SPX_F64 ? CUDA_R_64F : CUDA_R_32F;
    if (o->precision == SPX_F16) p->vt = p->xt = CUDA_R_16F;
    SP_TRY(cusparseCreate(&p->h));
    BENCH_TRY(cusparse_peer_upload(v, o->precision, &p->rp, &p->ci, &p->val));
    p->bytes =
        ((size_t)v.rows + 1) * 4 + (size_t)v.nnz * (4 + cusparse_peer_value_bytes(o->precision));
    xb = (size_t)(p->cols * so->ldx) * type_bytes(p->xt);
    yb = (size_t)(p->rows * so->ldy) * type_bytes(p->yt);
    BENCH_TRY(cusparse_peer_alloc(&xs, xb, "cuSPARSE SpMM X"));
    BENCH_TRY(cusparse_peer_alloc(&ys, yb, "cuSPARSE SpMM scratch Y"));
    CU_TRY(cudaMemset(xs, 0, xb));
    SP_TRY(cusparseCreateDnMat(&p->X, p->cols, so->k, so->ldx, xs, p->xt, CUSPARSE_ORDER_ROW));
    SP_TRY(cusparseCreateDnMat(&p->Y, p->rows, so->k, so->ldy, ys, p->yt, CUSPARSE_ORDER_ROW));
    BENCH_TRY(pick_alg(p));
    if (o->precision == SPX_F16) {
        p->x_half = xs;
        p->bytes += xb;
        xs = NULL;
    }
    *state = p;
    p = NULL;
cleanup:
    cusparse_peer_free(xs);
    cusparse_peer_free(ys);
    peer_free(p);
    return st;
}

spx_status spmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx, double beta,
                   void *Y, int64_t ldy)
{
    spmm_peer *p = static_cast<spmm_peer *>(state);
    spx_status st = bench_spmm_peer_shape("peer-cusparse-spmm", &p->shape, k, ldx, ldy);
    if (st != SPX_OK) return st;
    if (p->x_half) {
        const int64_t n = p->cols > 0 ? (p->cols - 1) * ldx + k : 0;
        if (n > 0)
            x_to_half<<<(unsigned)((n + 255) / 256), 256>>>(n, (const float *)X,
                                                            (__half *)p->x_half);
        CU_TRY(cudaGetLastError());
    } else {
        SP_TRY(cusparseDnMatSetValues(p->X, const_cast<void *>(X)));
    }
    SP_TRY(cusparseDnMatSetValues(p->Y, Y));
    st = product(p, alpha, beta);
cleanup:
    return st;
}

size_t spmm_bytes(const void *state)
{
    return static_cast<const spmm_peer *>(state)->bytes;
}

void spmm_destroy(void *state)
{
    peer_free(static_cast<spmm_peer *>(state));
}

void spmm_describe(const void *state, char *buf, size_t len)
{
    const spmm_peer *p = static_cast<const spmm_peer *>(state);
    int used = std::snprintf(buf, len, "alg=%s (", alg_names[p->alg]);
    for (int c = 0; c < n_algs && used > 0 && (size_t)used < len; c++)
        used += std::isnan(p->ms[c]) ? std::snprintf(buf + used, len - (size_t)used, "%s%s refused",
                                                     c ? ", " : "", alg_names[c])
                                     : std::snprintf(buf + used, len - (size_t)used, "%s%s %.4f ms",
                                                     c ? ", " : "", alg_names[c], p->ms[c]);
    if (used > 0 && (size_t)used < len)
        std::snprintf(buf + used, len - (size_t)used, ")%s",
                      p->x_half ? "; half X (converted each call), float Y" : "");
}

} // namespace

extern "C" const spx_bench_peer spx_peer_cusparse_spmm = {
    "peer-cusparse-spmm",
    SPX_OP_SPMM,
    SPX_DEV_CUDA,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32) | BENCH_TYPE_BIT(SPX_F16),
    spmm_prepare,
    NULL,
    NULL,
    NULL,
    spmm_bytes,
    spmm_destroy,
    spmm_describe,
    spmm_op,
};
