/* peer-graphblas: SuiteSparse:GraphBLAS GrB_mxv over the PLUS_TIMES fp64
 * semiring, CPU.
 *
 *   prepare: the GrB_Matrix of A (grb_peer_matrix); a descriptor carries the
 *            thread count (GxB_NTHREADS).
 *   spmv:    x and y are moved into full GrB_Vectors without copying
 *            (GxB_Vector_pack_Full, given back by GxB_Vector_unpack_Full), and
 *            y = alpha*A*x + beta*y is composed around GrB_mxv with the PLUS
 *            accumulator: y is first scaled by beta (set to 0 when beta == 0,
 *            never read), then y += A*x when alpha == 1, else t = 0, t += A*x,
 *            y += alpha*t with t a scratch vector of the call. The accumulator
 *            keeps y full even where a row of A is empty.
 *
 * Also the helpers of graphblas_peer.h, shared with peer-graphblas-spgemm,
 * peer-graphblas-spmm and peer-graphblas-sddmm.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphblas_peer.h"
#include "peers.h"

typedef struct grb_state {
    GrB_Matrix A;
    GrB_Descriptor desc;
    int64_t rows, cols, nnz;
    int threads;
} grb_state;

static const char *grb_info_name(GrB_Info info)
{
    switch (info) {
    case GrB_NO_VALUE: return "GrB_NO_VALUE";
    case GrB_UNINITIALIZED_OBJECT: return "GrB_UNINITIALIZED_OBJECT";
    case GrB_NULL_POINTER: return "GrB_NULL_POINTER";
    case GrB_INVALID_VALUE: return "GrB_INVALID_VALUE";
    case GrB_INVALID_INDEX: return "GrB_INVALID_INDEX";
    case GrB_DOMAIN_MISMATCH: return "GrB_DOMAIN_MISMATCH";
    case GrB_DIMENSION_MISMATCH: return "GrB_DIMENSION_MISMATCH";
    case GrB_OUTPUT_NOT_EMPTY: return "GrB_OUTPUT_NOT_EMPTY";
    case GrB_NOT_IMPLEMENTED: return "GrB_NOT_IMPLEMENTED";
    case GrB_PANIC: return "GrB_PANIC";
    case GrB_OUT_OF_MEMORY: return "GrB_OUT_OF_MEMORY";
    case GrB_INSUFFICIENT_SPACE: return "GrB_INSUFFICIENT_SPACE";
    case GrB_INVALID_OBJECT: return "GrB_INVALID_OBJECT";
    case GrB_INDEX_OUT_OF_BOUNDS: return "GrB_INDEX_OUT_OF_BOUNDS";
    case GrB_EMPTY_OBJECT: return "GrB_EMPTY_OBJECT";
    default: return "unknown GrB_Info";
    }
}

spx_status grb_peer_fail(GrB_Info info, const char *call)
{
    return bench_fail(info == GrB_OUT_OF_MEMORY ? SPX_ERR_OOM : SPX_ERR_UNSUPPORTED,
                      "peer-graphblas: %s failed: %s (%d)", call, grb_info_name(info), (int)info);
}

spx_status grb_peer_init(void)
{
    static int done;
    GrB_Info info = GrB_SUCCESS;
#pragma omp critical(spx_peer_graphblas_init)
    if (!done) {
        info = GrB_init(GrB_NONBLOCKING);
        done = info == GrB_SUCCESS;
    }
    return info == GrB_SUCCESS ? SPX_OK : grb_peer_fail(info, "GrB_init");
}

static void grb_destroy(void *state)
{
    grb_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Descriptor_free(&s->desc);
    free(s);
}

/* A's values as floats (*owned NULL when they already are; else free *owned). */
static spx_status values_f32(const bench_csr *A, const float **vals, float **owned)
{
    *owned = NULL;
    if (A->vtype == SPX_F32) {
        *vals = A->values;
        return SPX_OK;
    }
    spx_status st = bench_alloc((void **)owned, (size_t)A->nnz, sizeof **owned, "values as f32");
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < A->nnz; k++)
        (*owned)[k] = (float)bench_val(A, k);
    *vals = *owned;
    return SPX_OK;
}

spx_status grb_peer_matrix_of(const bench_csr *A, spx_type t, GrB_Matrix *M)
{
    GrB_Index *cols = NULL;
    const GrB_Index rows = (GrB_Index)A->rows, ncols = (GrB_Index)A->cols, nnz = (GrB_Index)A->nnz;
    const GrB_Index *rowptr = (const GrB_Index *)A->rowptr;
    const double *vals;
    const float *vals32;
    double *owned = NULL;
    float *owned32 = NULL;
    spx_status st;
    BENCH_TRY(bench_alloc((void **)&cols, (size_t)A->nnz, sizeof *cols, "peer-graphblas columns"));
    for (int64_t k = 0; k < A->nnz; k++)
        cols[k] = (GrB_Index)bench_col(A, k);
    if (t == SPX_F32) {
        BENCH_TRY(values_f32(A, &vals32, &owned32));
        GRB_TRY(GrB_Matrix_import_FP32(M, GrB_FP32, rows, ncols, rowptr, cols, vals32, rows + 1,
                                       nnz, nnz, GrB_CSR_FORMAT));
    } else {
        BENCH_TRY(bench_values_f64(A, &vals, &owned));
        GRB_TRY(GrB_Matrix_import_FP64(M, GrB_FP64, rows, ncols, rowptr, cols, vals, rows + 1, nnz,
                                       nnz, GrB_CSR_FORMAT));
    }
    GRB_TRY(GrB_Matrix_wait(*M, GrB_MATERIALIZE));
cleanup:
    free(cols);
    free(owned);
    free(owned32);
    return st;
}

spx_status grb_peer_matrix(const bench_csr *A, GrB_Matrix *M)
{
    return grb_peer_matrix_of(A, SPX_F64, M);
}

/* The array at p (bytes long) into the empty shell M, by row. */
static spx_status pack_full(GrB_Matrix M, void *p, size_t bytes, GrB_Descriptor desc)
{
    spx_status st = SPX_OK;
    GRB_TRY(GxB_Matrix_pack_FullR(M, &p, (GrB_Index)bytes, false, desc));
cleanup:
    return st;
}

/* Take p back out of *M, leaving the shell empty. If GraphBLAS cannot give
 * it back, *M is dropped (NULL) rather than freed: freeing it would free p. */
static spx_status unpack_full(GrB_Matrix *M, const void *p, GrB_Descriptor desc)
{
    void *q = NULL;
    GrB_Index size = 0;
    bool iso = false;
    GrB_Info info = GxB_Matrix_unpack_FullR(*M, &q, &size, &iso, desc);
    if (info != GrB_SUCCESS) {
        *M = NULL;
        return grb_peer_fail(info, "GxB_Matrix_unpack_FullR");
    }
    if (q != p || iso)
        return bench_fail(SPX_ERR_UNSUPPORTED, "peer-graphblas: a dense matrix came back %s",
                          iso ? "iso" : "in another array");
    return SPX_OK;
}

spx_status grb_peer_full_shape(const char *peer, const spx_bench_spmm_peer_opts *so)
{
    if (so->ldx == so->k && so->ldy == so->k) return SPX_OK;
    return bench_fail(SPX_ERR_UNSUPPORTED,
                      "%s: ldx %lld, ldy %lld: a full GraphBLAS matrix has no leading dimension "
                      "(only k = %lld)",
                      peer, (long long)so->ldx, (long long)so->ldy, (long long)so->k);
}

spx_status grb_peer_with_full(GrB_Matrix *const shells[2], void *const arrays[2],
                              const size_t bytes[2], GrB_Descriptor desc,
                              spx_status (*body)(void *ctx), void *ctx)
{
    int packed = 0;
    spx_status st, back[2] = {SPX_OK, SPX_OK};
    for (; packed < 2; packed++)
        BENCH_TRY(pack_full(*shells[packed], arrays[packed], bytes[packed], desc));
    st = body(ctx);
cleanup:
    for (int i = 0; i < packed; i++)
        back[i] = unpack_full(shells[i], arrays[i], desc);
    return st != SPX_OK ? st : back[0] != SPX_OK ? back[0] : back[1];
}

static spx_status grb_prepare(const spx_matrix *A, const spx_matrix *B,
                              const spx_bench_peer_opts *o, void **state)
{
    grb_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(grb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-graphblas state"));
    s->rows = v.rows;
    s->cols = v.cols;
    s->nnz = v.nnz;
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    BENCH_TRY(grb_peer_matrix(&v, &s->A));
    GRB_TRY(GrB_Descriptor_new(&s->desc));
    GRB_TRY(GxB_Desc_set(s->desc, GxB_NTHREADS, s->threads));
    *state = s;
    return SPX_OK;
cleanup:
    grb_destroy(s);
    return st;
}

/* v (n values at p) as a full GrB_Vector; *out is NULL on failure. */
static spx_status grb_pack(GrB_Vector *out, void *p, int64_t n, GrB_Descriptor desc)
{
    GrB_Vector v = NULL;
    spx_status st = SPX_OK;
    *out = NULL;
    GRB_TRY(GrB_Vector_new(&v, GrB_FP64, (GrB_Index)n));
    GRB_TRY(GxB_Vector_pack_Full(v, &p, (GrB_Index)n * sizeof(double), false, desc));
    *out = v;
    return SPX_OK;
cleanup:
    GrB_Vector_free(&v);
    return st;
}

/* Take the caller's array back out of v and free v. If GraphBLAS cannot give
 * it back, v is leaked rather than freed: freeing it would free the array. */
static spx_status grb_unpack(GrB_Vector *v, GrB_Descriptor desc)
{
    void *p = NULL;
    GrB_Index size = 0;
    bool iso = false;
    spx_status st = SPX_OK;
    if (!*v) return SPX_OK;
    GRB_TRY(GxB_Vector_unpack_Full(*v, &p, &size, &iso, desc));
    GrB_Vector_free(v);
    if (iso) st = bench_fail(SPX_ERR_UNSUPPORTED, "peer-graphblas: result came back iso");
cleanup:
    *v = NULL;
    return st;
}

/* y = beta*y, never reading y when beta == 0. */
static void scale(double *y, int64_t n, double beta)
{
#pragma omp parallel for schedule(static) if (n > 100000)
    for (int64_t i = 0; i < n; i++)
        y[i] = beta == 0.0 ? 0.0 : beta * y[i];
}

/* y += A*x through GrB_mxv with the PLUS accumulator. */
static spx_status grb_accumulate(grb_state *s, const double *x, double *y)
{
    GrB_Vector u = NULL, w = NULL;
    spx_status st;
    BENCH_TRY(grb_pack(&u, (void *)(uintptr_t)x, s->cols, s->desc));
    BENCH_TRY(grb_pack(&w, y, s->rows, s->desc));
    GRB_TRY(GrB_mxv(w, NULL, GrB_PLUS_FP64, GrB_PLUS_TIMES_SEMIRING_FP64, s->A, u, s->desc));
cleanup:;
    spx_status su = grb_unpack(&u, s->desc), sw = grb_unpack(&w, s->desc);
    return st != SPX_OK ? st : su != SPX_OK ? su : sw;
}

static spx_status grb_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    grb_state *s = state;
    double *t = NULL;
    spx_status st = SPX_OK;
    if (beta != 1.0) scale(y, s->rows, beta);
    if (s->nnz == 0 || alpha == 0.0) return SPX_OK;
    if (alpha == 1.0) return grb_accumulate(s, x, y);
    BENCH_TRY(bench_calloc((void **)&t, (size_t)s->rows, sizeof *t, "peer-graphblas scratch"));
    BENCH_TRY(grb_accumulate(s, x, t));
    double *yd = y;
#pragma omp parallel for schedule(static) if (s->rows > 100000)
    for (int64_t i = 0; i < s->rows; i++)
        yd[i] += alpha * t[i];
cleanup:
    free(t);
    return st;
}

static size_t grb_bytes(const void *state)
{
    const grb_state *s = state;
    size_t b = 0;
    if (GxB_Matrix_memoryUsage(&b, s->A) != GrB_SUCCESS) b = 0;
    return sizeof *s + b;
}

static void grb_describe(const void *state, char *buf, size_t len)
{
    const grb_state *s = state;
    int sparsity = 0;
    GxB_Matrix_Option_get(s->A, GxB_SPARSITY_STATUS, &sparsity);
    snprintf(buf, len, "threads=%d sparsity=%s", s->threads,
             sparsity == GxB_HYPERSPARSE ? "hypersparse"
             : sparsity == GxB_SPARSE    ? "sparse"
             : sparsity == GxB_BITMAP    ? "bitmap"
                                         : "full");
}

const spx_bench_peer spx_peer_graphblas = {
    .name = "peer-graphblas",
    .operation = SPX_OP_SPMV,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = grb_prepare,
    .spmv = grb_spmv,
    .bytes = grb_bytes,
    .destroy = grb_destroy,
    .describe = grb_describe,
};
