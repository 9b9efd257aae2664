/* peer-librsb-spgemm: librsb's sparse * sparse product rsb_spmsp, fp64, CPU.
 *
 *   prepare: A and B copied into RSB matrices (rsb_peer_matrix), untuned.
 *   spgemm:  C = 1*A * 1*B by rsb_spmsp (N, N), a new RSB matrix replacing the
 *            previous C, on the thread count (librsb's global option, set
 *            before each call).
 *   result:  C's CSR (rsb_mtx_get_csr), as a new SpX matrix from triplets
 *            (librsb's rows need not come sorted).
 */
#include <omp.h>
#include <stdlib.h>

#include "peers.h"
#include "rsb_peer.h"

typedef struct rsb_spgemm_state {
    struct rsb_mtx_t *A, *B, *C;
    rsb_int_t threads;
} rsb_spgemm_state;

static void rsb_spgemm_destroy(void *state)
{
    rsb_spgemm_state *s = state;
    if (!s) return;
    if (s->A) rsb_mtx_free(s->A);
    if (s->B) rsb_mtx_free(s->B);
    if (s->C) rsb_mtx_free(s->C);
    free(s);
}

static spx_status rsb_spgemm_prepare(const spx_matrix *A, const spx_matrix *B,
                                     const spx_bench_peer_opts *o, void **state)
{
    rsb_spgemm_state *s = NULL;
    bench_csr a, b;
    spx_status st;
    BENCH_TRY(bench_csr_view(A, &a));
    BENCH_TRY(bench_csr_view(B, &b));
    BENCH_TRY(rsb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-librsb-spgemm state"));
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    BENCH_TRY(rsb_peer_matrix(&a, &s->A));
    BENCH_TRY(rsb_peer_matrix(&b, &s->B));
    *state = s;
    return SPX_OK;
cleanup:
    rsb_spgemm_destroy(s);
    return st;
}

static spx_status rsb_spgemm_op(void *state)
{
    rsb_spgemm_state *s = state;
    const double one = 1.0;
    rsb_err_t e = RSB_ERR_NO_ERROR;
    spx_status st = rsb_peer_threads(s->threads);
    if (st != SPX_OK) return st;
    if (s->C) rsb_mtx_free(s->C);
    s->C = rsb_spmsp(RSB_NUMERICAL_TYPE_DOUBLE, RSB_TRANSPOSITION_N, &one, s->A,
                     RSB_TRANSPOSITION_N, &one, s->B, &e);
    return s->C ? SPX_OK : rsb_peer_fail(e, "rsb_spmsp");
}

static spx_status rsb_spgemm_result(void *state, spx_matrix **C)
{
    rsb_spgemm_state *s = state;
    rsb_coo_idx_t rows = 0, cols = 0;
    rsb_nnz_idx_t nnz = 0, *rp = NULL;
    rsb_coo_idx_t *ja = NULL;
    int64_t *ri = NULL, *ci = NULL;
    double *va = NULL;
    spx_status st;
    *C = NULL;
    rsb_mtx_get_info(s->C, RSB_MIF_MATRIX_ROWS__TO__RSB_COO_INDEX_T, &rows);
    rsb_mtx_get_info(s->C, RSB_MIF_MATRIX_COLS__TO__RSB_COO_INDEX_T, &cols);
    rsb_mtx_get_info(s->C, RSB_MIF_MATRIX_NNZ__TO__RSB_NNZ_INDEX_T, &nnz);
    BENCH_TRY(bench_alloc((void **)&rp, (size_t)rows + 1, sizeof *rp, "librsb C offsets"));
    BENCH_TRY(bench_alloc((void **)&ja, (size_t)nnz, sizeof *ja, "librsb C columns"));
    BENCH_TRY(bench_alloc((void **)&va, (size_t)nnz, sizeof *va, "librsb C values"));
    BENCH_TRY(bench_alloc((void **)&ri, (size_t)nnz, sizeof *ri, "librsb C rows"));
    BENCH_TRY(bench_alloc((void **)&ci, (size_t)nnz, sizeof *ci, "librsb C columns"));
    rsb_err_t e = rsb_mtx_get_csr(RSB_NUMERICAL_TYPE_DOUBLE, s->C, va, rp, ja,
                                  RSB_FLAG_C_INDICES_INTERFACE);
    if (e != RSB_ERR_NO_ERROR) BENCH_TRY(rsb_peer_fail(e, "rsb_mtx_get_csr"));
    for (rsb_coo_idx_t i = 0; i < rows; i++)
        for (rsb_nnz_idx_t k = rp[i]; k < rp[i + 1]; k++) {
            ri[k] = i;
            ci[k] = ja[k];
        }
    BENCH_TRY(bench_lib(spx_matrix_from_coo(rows, cols, nnz, ri, ci, va, C)));
cleanup:
    free(rp);
    free(ja);
    free(va);
    free(ri);
    free(ci);
    return st;
}

static size_t rsb_spgemm_bytes(const void *state)
{
    const rsb_spgemm_state *s = state;
    size_t a = 0, b = 0;
    if (rsb_mtx_get_info(s->A, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &a) != RSB_ERR_NO_ERROR) a = 0;
    if (rsb_mtx_get_info(s->B, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &b) != RSB_ERR_NO_ERROR) b = 0;
    return sizeof *s + a + b;
}

const spx_bench_peer spx_peer_rsb_spgemm = {
    .name = "peer-librsb-spgemm",
    .operation = SPX_OP_SPGEMM,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = rsb_spgemm_prepare,
    .spgemm = rsb_spgemm_op,
    .result = rsb_spgemm_result,
    .bytes = rsb_spgemm_bytes,
    .destroy = rsb_spgemm_destroy,
};
