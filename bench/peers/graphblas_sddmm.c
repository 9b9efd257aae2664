/* peer-graphblas-sddmm: SuiteSparse:GraphBLAS GrB_mxm with A's pattern as a
 * structural mask, C<M, struct, replace> = X*Y' over the PLUS_TIMES
 * semiring: the sampled dense-dense product, fp64 and fp32, CPU. X (rows x
 * k) and Y (cols x k) are full matrices by row, so that the masked product
 * is a dot product of X(i, :) and Y(j, :) per entry (i, j) of M, which
 * SuiteSparse computes by its masked dot-product method (dot3) without
 * transposing either.
 *
 *   prepare: the mask M (grb_peer_matrix_of of A in the precision: its
 *            values are not read), an empty C, empty shells of X's and Y's
 *            shape, and a descriptor with GrB_DESC_RST1's settings (replace,
 *            structural mask, second input transposed) and the thread count
 *            (GxB_NTHREADS). ldx or ldy other than k is declined
 *            (SPX_ERR_UNSUPPORTED: a full GraphBLAS matrix has no leading
 *            dimension).
 *   sddmm:   timed: X and Y moved into the shells and back without copying
 *            (grb_peer_with_full, O(1)), GrB_mxm, and GrB_Matrix_wait on C
 *            (no work left pending for later). C is GraphBLAS's own matrix,
 *            its arrays replaced by each call (their allocation is in the
 *            time), and Z is not written: the product stays in C, as a
 *            GraphBLAS user has it. Only alpha 1, beta 0 (the bench's calls);
 *            others are declined.
 *   values:  not timed, for the check: C's entries (GrB_Matrix_extractTuples,
 *            by row with sorted columns) into Z in A's order. A's rows are
 *            sorted (SpX's constructors refuse others, SPX_ERR_UNSORTED), so
 *            the two orders agree entry by entry where C has A's pattern; an
 *            entry where they differ, or every entry when C's count differs
 *            from nnz(A), is NaN in Z, and the check fails.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "graphblas_peer.h"
#include "peers.h"

typedef struct grb_sddmm_state {
    GrB_Matrix M, C, X, Y; /* X and Y: empty between calls */
    GrB_Descriptor desc;
    GrB_Semiring semiring;
    spx_type precision;
    bench_csr a; /* A's pattern, the order of Z */
    int threads;
    spx_bench_spmm_peer_opts shape; /* the calls' shape */
} grb_sddmm_state;

static void grb_sddmm_destroy(void *state)
{
    grb_sddmm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->M);
    GrB_Matrix_free(&s->C);
    GrB_Matrix_free(&s->X);
    GrB_Matrix_free(&s->Y);
    GrB_Descriptor_free(&s->desc);
    free(s);
}

static size_t element_bytes(const grb_sddmm_state *s)
{
    return s->precision == SPX_F32 ? sizeof(float) : sizeof(double);
}

static spx_status grb_sddmm_prepare(const spx_matrix *A, const spx_matrix *B,
                                    const spx_bench_peer_opts *o, void **state)
{
    const spx_bench_spmm_peer_opts *so = (const spx_bench_spmm_peer_opts *)o;
    const int f32 = o->precision == SPX_F32;
    GrB_Type type = f32 ? GrB_FP32 : GrB_FP64;
    grb_sddmm_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(grb_peer_full_shape("peer-graphblas-sddmm", so));
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(grb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-graphblas-sddmm state"));
    s->semiring = f32 ? GrB_PLUS_TIMES_SEMIRING_FP32 : GrB_PLUS_TIMES_SEMIRING_FP64;
    s->precision = f32 ? SPX_F32 : SPX_F64;
    s->a = v;
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    s->shape = *so;
    BENCH_TRY(grb_peer_matrix_of(&v, s->precision, &s->M));
    GRB_TRY(GrB_Matrix_new(&s->C, type, (GrB_Index)v.rows, (GrB_Index)v.cols));
    GRB_TRY(GrB_Matrix_new(&s->X, type, (GrB_Index)v.rows, (GrB_Index)so->k));
    GRB_TRY(GrB_Matrix_new(&s->Y, type, (GrB_Index)v.cols, (GrB_Index)so->k));
    GRB_TRY(GrB_Descriptor_new(&s->desc));
    GRB_TRY(GrB_Descriptor_set(s->desc, GrB_OUTP, GrB_REPLACE));
    GRB_TRY(GrB_Descriptor_set(s->desc, GrB_MASK, GrB_STRUCTURE));
    GRB_TRY(GrB_Descriptor_set(s->desc, GrB_INP1, GrB_TRAN));
    GRB_TRY(GxB_Desc_set(s->desc, GxB_NTHREADS, s->threads));
    *state = s;
    return SPX_OK;
cleanup:
    grb_sddmm_destroy(s);
    return st;
}

/* C<M, struct, replace> = X*Y', finished: the body of grb_peer_with_full. */
static spx_status grb_masked_product(void *ctx)
{
    grb_sddmm_state *s = ctx;
    spx_status st = SPX_OK;
    GRB_TRY(GrB_mxm(s->C, s->M, NULL, s->semiring, s->X, s->Y, s->desc));
    GRB_TRY(GrB_Matrix_wait(s->C, GrB_MATERIALIZE));
cleanup:
    return st;
}

static spx_status grb_sddmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                               const void *Y, int64_t ldy, double beta, void *Z)
{
    grb_sddmm_state *s = state;
    const size_t e = element_bytes(s);
    GrB_Matrix *const shells[2] = {&s->X, &s->Y};
    void *const arrays[2] = {(void *)(uintptr_t)X, (void *)(uintptr_t)Y};
    const size_t bytes[2] = {(size_t)(s->a.rows * k) * e, (size_t)(s->a.cols * k) * e};
    spx_status st = bench_spmm_peer_shape("peer-graphblas-sddmm", &s->shape, k, ldx, ldy);
    (void)Z;
    if (st != SPX_OK) return st;
    if (alpha != 1.0 || beta != 0.0)
        return bench_fail(SPX_ERR_UNSUPPORTED,
                          "peer-graphblas-sddmm: alpha %g, beta %g: only alpha 1 and beta 0 (the "
                          "product stays in GraphBLAS's C)",
                          alpha, beta);
    return grb_peer_with_full(shells, arrays, bytes, s->desc, grb_masked_product, s);
}

/* C's value p into Z[e], or NaN when C's entry p is not A's entry e = (i, j). */
static void put(const grb_sddmm_state *s, void *Z, int64_t e, const void *V, GrB_Index p, int same)
{
    if (s->precision == SPX_F32)
        ((float *)Z)[e] = same ? ((const float *)V)[p] : NAN;
    else
        ((double *)Z)[e] = same ? ((const double *)V)[p] : NAN;
}

static spx_status grb_sddmm_values(void *state, void *Z)
{
    grb_sddmm_state *s = state;
    const bench_csr *a = &s->a;
    GrB_Index n = 0, *I = NULL, *J = NULL;
    void *V = NULL;
    spx_status st;
    GRB_TRY(GrB_Matrix_nvals(&n, s->C));
    if (n != (GrB_Index)a->nnz) {
        for (int64_t e = 0; e < a->nnz; e++)
            put(s, Z, e, NULL, 0, 0);
        return SPX_OK;
    }
    BENCH_TRY(bench_alloc((void **)&I, (size_t)n, sizeof *I, "peer-graphblas-sddmm rows"));
    BENCH_TRY(bench_alloc((void **)&J, (size_t)n, sizeof *J, "peer-graphblas-sddmm columns"));
    BENCH_TRY(bench_alloc(&V, (size_t)n, element_bytes(s), "peer-graphblas-sddmm values"));
    if (s->precision == SPX_F32)
        GRB_TRY(GrB_Matrix_extractTuples_FP32(I, J, V, &n, s->C));
    else
        GRB_TRY(GrB_Matrix_extractTuples_FP64(I, J, V, &n, s->C));
    for (int64_t i = 0; i < a->rows; i++)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; e++)
            put(s, Z, e, V, (GrB_Index)e,
                (GrB_Index)e < n && I[e] == (GrB_Index)i && J[e] == (GrB_Index)bench_col(a, e));
cleanup:
    free(I);
    free(J);
    free(V);
    return st;
}

static size_t grb_sddmm_bytes(const void *state)
{
    const grb_sddmm_state *s = state;
    size_t b = 0;
    if (GxB_Matrix_memoryUsage(&b, s->M) != GrB_SUCCESS) b = 0;
    return sizeof *s + b;
}

static void grb_sddmm_describe(const void *state, char *buf, size_t len)
{
    const grb_sddmm_state *s = state;
    snprintf(buf, len,
             "threads=%d k=%lld: C<M,struct,replace> = X*Y' by GrB_mxm, C GraphBLAS's own (its "
             "values copied out for the check, untimed)",
             s->threads, (long long)s->shape.k);
}

const spx_bench_peer spx_peer_graphblas_sddmm = {
    .name = "peer-graphblas-sddmm",
    .operation = SPX_OP_SDDMM,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    .prepare = grb_sddmm_prepare,
    .bytes = grb_sddmm_bytes,
    .destroy = grb_sddmm_destroy,
    .describe = grb_sddmm_describe,
    .sddmm = grb_sddmm_op,
    .sddmm_values = grb_sddmm_values,
};
