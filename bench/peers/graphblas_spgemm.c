/* peer-graphblas-spgemm: SuiteSparse:GraphBLAS GrB_mxm over the PLUS_TIMES
 * fp64 semiring, C = A*B, CPU.
 *
 *   prepare: the GrB_Matrix of A and of B (grb_peer_matrix); a descriptor
 *            carries the thread count (GxB_NTHREADS).
 *   spgemm:  a new C (replacing the previous one), GrB_mxm with no mask and no
 *            accumulator, then GrB_Matrix_wait so the product is finished
 *            (no pending work) when the call returns.
 *   result:  C exported by rows (GrB_Matrix_export_FP64, CSR; an iso C's one
 *            value repeated), as a new SpX matrix from triplets (GraphBLAS may
 *            leave a row's columns unsorted).
 */
#include <omp.h>
#include <stdlib.h>

#include "graphblas_peer.h"
#include "peers.h"

typedef struct grb_spgemm_state {
    GrB_Matrix A, B, C;
    GrB_Descriptor desc;
    GrB_Index rows, cols;
} grb_spgemm_state;

static void grb_spgemm_destroy(void *state)
{
    grb_spgemm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Matrix_free(&s->B);
    GrB_Matrix_free(&s->C);
    GrB_Descriptor_free(&s->desc);
    free(s);
}

static spx_status grb_spgemm_prepare(const spx_matrix *A, const spx_matrix *B,
                                     const spx_bench_peer_opts *o, void **state)
{
    grb_spgemm_state *s = NULL;
    bench_csr a, b;
    spx_status st;
    BENCH_TRY(bench_csr_view(A, &a));
    BENCH_TRY(bench_csr_view(B, &b));
    BENCH_TRY(grb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-graphblas-spgemm state"));
    s->rows = (GrB_Index)a.rows;
    s->cols = (GrB_Index)b.cols;
    BENCH_TRY(grb_peer_matrix(&a, &s->A));
    BENCH_TRY(grb_peer_matrix(&b, &s->B));
    GRB_TRY(GrB_Descriptor_new(&s->desc));
    GRB_TRY(GxB_Desc_set(s->desc, GxB_NTHREADS, o->threads > 0 ? o->threads : omp_get_max_threads()));
    *state = s;
    return SPX_OK;
cleanup:
    grb_spgemm_destroy(s);
    return st;
}

static spx_status grb_spgemm_op(void *state)
{
    grb_spgemm_state *s = state;
    spx_status st = SPX_OK;
    GrB_Matrix_free(&s->C);
    GRB_TRY(GrB_Matrix_new(&s->C, GrB_FP64, s->rows, s->cols));
    GRB_TRY(GrB_mxm(s->C, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, s->A, s->B, s->desc));
    GRB_TRY(GrB_Matrix_wait(s->C, GrB_MATERIALIZE));
cleanup:
    return st;
}

static spx_status grb_spgemm_result(void *state, spx_matrix **C)
{
    grb_spgemm_state *s = state;
    GrB_Index np = 0, ni = 0, nv = 0, *ap = NULL, *ai = NULL;
    int64_t *ri = NULL;
    double *ax = NULL;
    spx_status st = SPX_OK;
    *C = NULL;
    GRB_TRY(GrB_Matrix_exportSize(&np, &ni, &nv, GrB_CSR_FORMAT, s->C));
    BENCH_TRY(bench_alloc((void **)&ap, (size_t)np, sizeof *ap, "GraphBLAS C offsets"));
    BENCH_TRY(bench_alloc((void **)&ai, (size_t)ni, sizeof *ai, "GraphBLAS C columns"));
    BENCH_TRY(bench_alloc((void **)&ax, (size_t)(nv > ni ? nv : ni), sizeof *ax,
                          "GraphBLAS C values"));
    GRB_TRY(GrB_Matrix_export_FP64(ap, ai, ax, &np, &ni, &nv, GrB_CSR_FORMAT, s->C));
    for (GrB_Index k = nv; k < ni; k++) /* an iso C exports one value */
        ax[k] = ax[0];
    BENCH_TRY(bench_alloc((void **)&ri, (size_t)ni, sizeof *ri, "GraphBLAS C rows"));
    for (GrB_Index i = 0; i + 1 < np; i++)
        for (GrB_Index k = ap[i]; k < ap[i + 1]; k++)
            ri[k] = (int64_t)i;
    BENCH_TRY(bench_lib(spx_matrix_from_coo((int64_t)s->rows, (int64_t)s->cols, (int64_t)ni, ri,
                                            (const int64_t *)ai, ax, C)));
cleanup:
    free(ap);
    free(ai);
    free(ax);
    free(ri);
    return st;
}

static size_t grb_spgemm_bytes(const void *state)
{
    const grb_spgemm_state *s = state;
    size_t a = 0, b = 0;
    if (GxB_Matrix_memoryUsage(&a, s->A) != GrB_SUCCESS) a = 0;
    if (GxB_Matrix_memoryUsage(&b, s->B) != GrB_SUCCESS) b = 0;
    return sizeof *s + a + b;
}

const spx_bench_peer spx_peer_graphblas_spgemm = {
    .name = "peer-graphblas-spgemm",
    .operation = SPX_OP_SPGEMM,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = grb_spgemm_prepare,
    .spgemm = grb_spgemm_op,
    .result = grb_spgemm_result,
    .bytes = grb_spgemm_bytes,
    .destroy = grb_spgemm_destroy,
};
