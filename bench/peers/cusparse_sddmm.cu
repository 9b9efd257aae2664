/* peer-cusparse-sddmm: cuSPARSE's generic SDDMM,
 * C = alpha*(op(A)*op(B)) o spy(C) + beta*C, on the GPU (default stream),
 * fp64 and fp32 (A, B, C and the sums in the precision), with
 *   A = X, rows x k, row-major (CUSPARSE_ORDER_ROW, leading dimension ldx),
 *       op N;
 *   B = Y^T, k x cols: Y (cols x k, row-major, ldy) read where it lies is the
 *       column-major k x cols matrix Y^T with leading dimension ldy
 *       (CUSPARSE_ORDER_COL), op N; so op(A)*op(B) = X*Y^T, and both are read
 *       along k, contiguously; or B = Y row-major (cols x k, ldy) with op T,
 *       the same product on the same memory. Both are prepared and timed
 *       (three calls each on the scratch arrays, in prep_ms) and the faster
 *       is kept, as a user tuning cuSPARSE would; one cuSPARSE refuses
 *       (CUSPARSE_STATUS_NOT_SUPPORTED) is skipped. describe says which;
 *   C = A's pattern in CSR (32-bit indices), its values the caller's Z (one
 *       an entry, in A's order).
 * CUSPARSE_SDDMM_ALG_DEFAULT is the one SDDMM algorithm cuSPARSE has. No f16:
 * cuSPARSE's would take X and Y in half, SpX's f16 SDDMM takes them in float.
 *
 *   prepare: A's CSR on the device (cusparse_peer_upload; its values serve as
 *            C's until the first call), descriptors of X and Y on zeroed
 *            scratch arrays of the prepared shape, cusparseSDDMM_bufferSize,
 *            the buffer, then cusparseSDDMM_preprocess, which the calls may
 *            read: all of it in prep_ms, none in the call. The scratch is
 *            freed.
 *   sddmm:   the descriptors pointed at the caller's X, Y and Z
 *            (cusparseDnMatSetValues, cusparseSpMatSetValues: cuSPARSE lets
 *            matA, matB and C's values change after the preprocessing, not
 *            C's indices), then cusparseSDDMM. No allocation, no sync.
 */
#include <cstdio>
#include <cstdlib>

#include "cusparse_peer.h"

namespace
{

/* How B = Y^T is described, in the order tried. */
struct y_layout {
    cusparseOrder_t order;
    cusparseOperation_t op;
    const char *name;
};
const y_layout layouts[] = {
    {CUSPARSE_ORDER_COL, CUSPARSE_OPERATION_NON_TRANSPOSE, "B = Y^T column-major, op N"},
    {CUSPARSE_ORDER_ROW, CUSPARSE_OPERATION_TRANSPOSE, "B = Y row-major, op T"},
};
const int n_layouts = 2;

struct sddmm_peer {
    cusparseHandle_t h;
    cusparseDnMatDescr_t X, Y;
    cusparseSpMatDescr_t C;
    void *rp, *ci, *val; /* A's CSR on the device */
    void *buf;
    size_t buf_bytes, bytes;
    int64_t rows, cols, nnz;
    spx_bench_spmm_peer_opts shape; /* the calls' k and leading dimensions */
    cudaDataType t;                 /* every value and the sums */
    int layout;                     /* index in layouts */
};

/* The descriptors and the buffer, freed (NULL: nothing). */
void drop(sddmm_peer *p)
{
    if (p->X) cusparseDestroyDnMat(p->X);
    if (p->Y) cusparseDestroyDnMat(p->Y);
    if (p->C) cusparseDestroySpMat(p->C);
    cusparse_peer_free(p->buf);
    p->X = p->Y = NULL;
    p->C = NULL;
    p->buf = NULL;
}

void peer_free(sddmm_peer *p)
{
    if (!p) return;
    drop(p);
    if (p->h) cusparseDestroy(p->h);
    void *arrays[] = {p->rp, p->ci, p->val};
    for (void *a : arrays)
        cusparse_peer_free(a);
    free(p);
}

/* ms of three calls of the prepared SDDMM on the scratch arrays. */
spx_status time_layout(sddmm_peer *p, float *ms)
{
    spx_status st = SPX_OK;
    const cusparse_peer_scalar one(1.0), zero(0.0);
    cudaEvent_t a = NULL, b = NULL;
    CU_TRY(cudaEventCreate(&a));
    CU_TRY(cudaEventCreate(&b));
    CU_TRY(cudaEventRecord(a));
    for (int r = 0; r < 3; r++)
        SP_TRY(cusparseSDDMM(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, layouts[p->layout].op,
                             one.in(p->t), p->X, p->Y, zero.in(p->t), p->C, p->t,
                             CUSPARSE_SDDMM_ALG_DEFAULT, p->buf));
    CU_TRY(cudaEventRecord(b));
    CU_TRY(cudaEventSynchronize(b));
    CU_TRY(cudaEventElapsedTime(ms, a, b));
cleanup:
    if (a) cudaEventDestroy(a);
    if (b) cudaEventDestroy(b);
    return st;
}

/* The descriptors on X and Y of the prepared shape, B as layouts[p->layout]
 * says; the buffer, asked for first, and the preprocessing. */
spx_status preprocess(sddmm_peer *p, void *X, void *Y)
{
    spx_status st = SPX_OK;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, opb = layouts[p->layout].op;
    const cusparse_peer_scalar one(1.0), zero(0.0);
    const int64_t k = p->shape.k;
    SP_TRY(cusparseCreateDnMat(&p->X, p->rows, k, p->shape.ldx, X, p->t, CUSPARSE_ORDER_ROW));
    if (layouts[p->layout].order == CUSPARSE_ORDER_COL)
        SP_TRY(cusparseCreateDnMat(&p->Y, k, p->cols, p->shape.ldy, Y, p->t, CUSPARSE_ORDER_COL));
    else
        SP_TRY(cusparseCreateDnMat(&p->Y, p->cols, k, p->shape.ldy, Y, p->t, CUSPARSE_ORDER_ROW));
    SP_TRY(cusparseCreateCsr(&p->C, p->rows, p->cols, p->nnz, p->rp, p->ci, p->val,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                             p->t));
    SP_TRY(cusparseSDDMM_bufferSize(p->h, N, opb, one.in(p->t), p->X, p->Y, zero.in(p->t), p->C,
                                    p->t, CUSPARSE_SDDMM_ALG_DEFAULT, &p->buf_bytes));
    BENCH_TRY(cusparse_peer_alloc(&p->buf, p->buf_bytes, "cuSPARSE SDDMM buffer"));
    SP_TRY(cusparseSDDMM_preprocess(p->h, N, opb, one.in(p->t), p->X, p->Y, zero.in(p->t), p->C,
                                    p->t, CUSPARSE_SDDMM_ALG_DEFAULT, p->buf));
    CU_TRY(cudaDeviceSynchronize());
cleanup:
    return st;
}

spx_status sddmm_prepare(const spx_matrix *M, const spx_matrix *, const spx_bench_peer_opts *o,
                         void **state)
{
    const spx_bench_spmm_peer_opts *so = reinterpret_cast<const spx_bench_spmm_peer_opts *>(o);
    sddmm_peer *p = NULL;
    void *xs = NULL, *ys = NULL; /* scratch X and Y */
    size_t e, xb, yb;
    bench_csr v;
    spx_status st;
    int best = -1; /* the faster layout */
    float best_ms = 0.0f;
    *state = NULL;
    BENCH_TRY(bench_csr_view(M, &v));
    BENCH_TRY(bench_calloc((void **)&p, 1, sizeof(sddmm_peer), "cuSPARSE SDDMM peer"));
    p->rows = v.rows;
    p->cols = v.cols;
    p->nnz = v.nnz;
    p->shape = *so;
    p->t = o->precision == SPX_F64 ? CUDA_R_64F : CUDA_R_32F;
    e = cusparse_peer_value_bytes(o->precision);
    SP_TRY(cusparseCreate(&p->h));
    BENCH_TRY(cusparse_peer_upload(v, o->precision, &p->rp, &p->ci, &p->val));
    xb = (size_t)(p->rows * so->ldx) * e;
    yb = (size_t)(p->cols * so->ldy) * e;
    BENCH_TRY(cusparse_peer_alloc(&xs, xb, "cuSPARSE SDDMM scratch X"));
    BENCH_TRY(cusparse_peer_alloc(&ys, yb, "cuSPARSE SDDMM scratch Y"));
    CU_TRY(cudaMemset(xs, 0, xb));
    CU_TRY(cudaMemset(ys, 0, yb));
    for (int l = 0; l < n_layouts; l++) { /* each layout cuSPARSE takes, timed */
        float ms = 0.0f;
        p->layout = l;
        st = preprocess(p, xs, ys);
        if (st == SPX_OK) st = time_layout(p, &ms);
        drop(p);
        if (st == SPX_ERR_UNSUPPORTED) continue; /* refused: the next one */
        if (st != SPX_OK) goto cleanup;
        if (best < 0 || ms < best_ms) best = l, best_ms = ms;
    }
    if (best < 0) goto cleanup; /* every layout refused: the last refusal's status */
    p->layout = best;
    BENCH_TRY(preprocess(p, xs, ys));
    p->bytes = ((size_t)v.rows + 1) * 4 + (size_t)v.nnz * (4 + e) + p->buf_bytes;
    *state = p;
    p = NULL;
cleanup:
    cusparse_peer_free(xs);
    cusparse_peer_free(ys);
    peer_free(p);
    return st;
}

spx_status sddmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx, const void *Y,
                    int64_t ldy, double beta, void *Z)
{
    sddmm_peer *p = static_cast<sddmm_peer *>(state);
    const cusparse_peer_scalar a(alpha), b(beta);
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    spx_status st = bench_spmm_peer_shape("peer-cusparse-sddmm", &p->shape, k, ldx, ldy);
    if (st != SPX_OK) return st;
    SP_TRY(cusparseDnMatSetValues(p->X, const_cast<void *>(X)));
    SP_TRY(cusparseDnMatSetValues(p->Y, const_cast<void *>(Y)));
    SP_TRY(cusparseSpMatSetValues(p->C, Z));
    SP_TRY(cusparseSDDMM(p->h, N, layouts[p->layout].op, a.in(p->t), p->X, p->Y, b.in(p->t), p->C,
                         p->t, CUSPARSE_SDDMM_ALG_DEFAULT, p->buf));
cleanup:
    return st;
}

size_t sddmm_bytes(const void *state)
{
    return static_cast<const sddmm_peer *>(state)->bytes;
}

void sddmm_destroy(void *state)
{
    peer_free(static_cast<sddmm_peer *>(state));
}

void sddmm_describe(const void *state, char *buf, size_t len)
{
    const sddmm_peer *p = static_cast<const sddmm_peer *>(state);
    std::snprintf(buf, len,
                  "alg=default, A = X row-major, %s (the faster layout), k=%lld, buffer %zu bytes",
                  layouts[p->layout].name, (long long)p->shape.k, p->buf_bytes);
}

} // namespace

extern "C" const spx_bench_peer spx_peer_cusparse_sddmm = {
    "peer-cusparse-sddmm",
    SPX_OP_SDDMM,
    SPX_DEV_CUDA,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    sddmm_prepare,
    NULL,
    NULL,
    NULL,
    sddmm_bytes,
    sddmm_destroy,
    sddmm_describe,
    NULL,
    sddmm_op,
    NULL,
};
