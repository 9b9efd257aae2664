/* peer-graphblas-spmm: SuiteSparse:GraphBLAS GrB_mxm over the PLUS_TIMES
 * semiring, Y = alpha*A*X + beta*Y with X (cols x k) and Y (rows x k) dense
 * row-major, fp64 and fp32, CPU.
 *
 *   prepare: the GrB_Matrix of A in the precision (grb_peer_matrix_of), empty
 *            GrB_Matrix shells of X's and Y's shape, and a descriptor with the
 *            thread count (GxB_NTHREADS). A full GraphBLAS matrix has no
 *            leading dimension: ldx or ldy other than k is declined
 *            (SPX_ERR_UNSUPPORTED).
 *   spmm:    X and Y are moved into the shells without copying
 *            (GxB_Matrix_pack_FullR, given back by GxB_Matrix_unpack_FullR),
 *            and Y = alpha*A*X + beta*Y is composed around GrB_mxm with the
 *            PLUS accumulator as peer-graphblas's SpMV is: Y = beta*Y (set to
 *            0 when beta == 0, never read), then Y += A*X when alpha == 1,
 *            else T = 0, T += A*X, Y += alpha*T with T a scratch of the call.
 *            The accumulator keeps Y full where a row of A is empty, and
 *            GraphBLAS updates it in place (checked: the array it gives back
 *            must be the one it was given).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "graphblas_peer.h"
#include "peers.h"

typedef struct grb_spmm_state {
    GrB_Matrix A, X, Y; /* X and Y: empty between calls */
    GrB_Descriptor desc;
    GrB_BinaryOp plus;
    GrB_Semiring semiring;
    spx_type precision;
    int64_t rows, cols, nnz;
    int threads;
    spx_bench_spmm_peer_opts shape; /* the calls' shape */
} grb_spmm_state;

static void grb_spmm_destroy(void *state)
{
    grb_spmm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Matrix_free(&s->X);
    GrB_Matrix_free(&s->Y);
    GrB_Descriptor_free(&s->desc);
    free(s);
}

static size_t element_bytes(const grb_spmm_state *s)
{
    return s->precision == SPX_F32 ? sizeof(float) : sizeof(double);
}

static spx_status grb_spmm_prepare(const spx_matrix *A, const spx_matrix *B,
                                   const spx_bench_peer_opts *o, void **state)
{
    const spx_bench_spmm_peer_opts *so = (const spx_bench_spmm_peer_opts *)o;
    const int f32 = o->precision == SPX_F32;
    GrB_Type type = f32 ? GrB_FP32 : GrB_FP64;
    grb_spmm_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(grb_peer_full_shape("peer-graphblas-spmm", so));
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(grb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-graphblas-spmm state"));
    s->plus = f32 ? GrB_PLUS_FP32 : GrB_PLUS_FP64;
    s->semiring = f32 ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    s->precision = f32 ? SPX_F32 : SPX_F64;
    s->rows = v.rows;
    s->cols = v.cols;
    s->nnz = v.nnz;
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    s->shape = *so;
    BENCH_TRY(grb_peer_matrix_of(&v, s->precision, &s->A));
    GRB_TRY(GrB_Matrix_new(&s->X, type, (GrB_Index)v.cols, (GrB_Index)so->k));
    GRB_TRY(GrB_Matrix_new(&s->Y, type, (GrB_Index)v.rows, (GrB_Index)so->k));
    GRB_TRY(GrB_Descriptor_new(&s->desc));
    GRB_TRY(GxB_Desc_set(s->desc, GxB_NTHREADS, s->threads));
    *state = s;
    return SPX_OK;
cleanup:
    grb_spmm_destroy(s);
    return st;
}

/* Y += A*X: the body of grb_peer_with_full. */
static spx_status grb_product(void *ctx)
{
    grb_spmm_state *s = ctx;
    spx_status st = SPX_OK;
    GRB_TRY(GrB_mxm(s->Y, NULL, s->plus, s->semiring, s->A, s->X, s->desc));
cleanup:
    return st;
}

/* Y += A*X through GrB_mxm with the PLUS accumulator, on the caller's X and Y. */
static spx_status grb_accumulate(grb_spmm_state *s, const void *X, void *Y)
{
    const size_t k = (size_t)s->shape.k, e = element_bytes(s);
    GrB_Matrix *const shells[2] = {&s->X, &s->Y};
    void *const arrays[2] = {(void *)(uintptr_t)X, Y};
    const size_t bytes[2] = {(size_t)s->cols * k * e, (size_t)s->rows * k * e};
    return grb_peer_with_full(shells, arrays, bytes, s->desc, grb_product, s);
}

/* y = alpha*x + beta*y over n entries of precision t (x NULL: y = beta*y),
 * never reading y when beta == 0. */
static void axpby(spx_type t, int64_t n, double alpha, const void *x, double beta, void *y,
                  int threads)
{
    const int f32 = t == SPX_F32;
    const float *xf = x;
    const double *xd = x;
    float *yf = y;
    double *yd = y;
#pragma omp parallel for schedule(static) num_threads(threads) if (n > 100000)
    for (int64_t i = 0; i < n; i++) {
        double v = beta == 0.0 ? 0.0 : beta * (f32 ? yf[i] : yd[i]);
        if (x) v += alpha * (f32 ? xf[i] : xd[i]);
        if (f32)
            yf[i] = (float)v;
        else
            yd[i] = v;
    }
}

static spx_status grb_spmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                              double beta, void *Y, int64_t ldy)
{
    grb_spmm_state *s = state;
    const int64_t n = s->rows * k;
    void *T = NULL;
    spx_status st;
    BENCH_TRY(bench_spmm_peer_shape("peer-graphblas-spmm", &s->shape, k, ldx, ldy));
    if (beta != 1.0) axpby(s->precision, n, 0.0, NULL, beta, Y, s->threads);
    if (s->nnz == 0 || k == 0 || alpha == 0.0) return SPX_OK;
    if (alpha == 1.0) return grb_accumulate(s, X, Y);
    BENCH_TRY(bench_calloc(&T, (size_t)n, element_bytes(s), "peer-graphblas-spmm scratch"));
    BENCH_TRY(grb_accumulate(s, X, T));
    axpby(s->precision, n, alpha, T, 1.0, Y, s->threads);
cleanup:
    free(T);
    return st;
}

static size_t grb_spmm_bytes(const void *state)
{
    const grb_spmm_state *s = state;
    size_t b = 0;
    if (GxB_Matrix_memoryUsage(&b, s->A) != GrB_SUCCESS) b = 0;
    return sizeof *s + b;
}

static void grb_spmm_describe(const void *state, char *buf, size_t len)
{
    const grb_spmm_state *s = state;
    snprintf(buf, len, "threads=%d k=%lld", s->threads, (long long)s->shape.k);
}

const spx_bench_peer spx_peer_graphblas_spmm = {
    .name = "peer-graphblas-spmm",
    .operation = SPX_OP_SPMM,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    .prepare = grb_spmm_prepare,
    .bytes = grb_spmm_bytes,
    .destroy = grb_spmm_destroy,
    .describe = grb_spmm_describe,
    .spmm = grb_spmm_op,
};
