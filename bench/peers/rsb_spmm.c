/* peer-librsb-spmm: librsb's rsb_spmm, Y = alpha*A*X + beta*Y with X and Y
 * dense row-major (RSB_FLAG_WANT_ROW_MAJOR_ORDER), fp64, CPU.
 *
 *   prepare: CSR copied into an RSB matrix (rsb_peer_matrix), then
 *            rsb_tune_spmm for the calls' k and leading dimensions on the
 *            thread count (librsb's own temporary X and Y), which may replace
 *            the matrix by a re-blocked clone; counted in prep_ms.
 *   spmm:    rsb_spmm(N, alpha, A, k, row-major, X, ldx, beta, Y, ldy) after
 *            setting the thread count (librsb's global option).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "peers.h"
#include "rsb_peer.h"

typedef struct rsb_spmm_state {
    struct rsb_mtx_t *mtx;
    rsb_int_t threads;
    spx_bench_spmm_peer_opts shape; /* the calls' shape, tuned for */
    double speedup;                 /* tuning's reported gain */
} rsb_spmm_state;

static void rsb_spmm_destroy(void *state)
{
    rsb_spmm_state *s = state;
    if (s && s->mtx) rsb_mtx_free(s->mtx);
    free(s);
}

/* Tune for the calls' shape (librsb's nrhs and leading dimensions are
 * 32-bit: a larger one is declined). */
static spx_status tune_for(rsb_spmm_state *s, const spx_bench_spmm_peer_opts *o)
{
    const double one = 1.0, zero = 0.0;
    rsb_real_t speedup = 1.0;
    if (o->k > RSB_MAX_MATRIX_DIM || o->ldx > RSB_MAX_MATRIX_NNZ || o->ldy > RSB_MAX_MATRIX_NNZ)
        return bench_fail(SPX_ERR_UNSUPPORTED, "peer-librsb-spmm: k = %lld exceeds its indices",
                          (long long)o->k);
    s->shape = *o;
    rsb_err_t e = rsb_tune_spmm(&s->mtx, &speedup, NULL, 0, 0.0, RSB_TRANSPOSITION_N, &one, NULL,
                                (rsb_coo_idx_t)o->k, RSB_FLAG_WANT_ROW_MAJOR_ORDER, NULL,
                                (rsb_nnz_idx_t)o->ldx, &zero, NULL, (rsb_nnz_idx_t)o->ldy);
    s->speedup = speedup;
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_peer_fail(e, "rsb_tune_spmm");
}

static spx_status rsb_spmm_prepare(const spx_matrix *A, const spx_matrix *B,
                                   const spx_bench_peer_opts *o, void **state)
{
    rsb_spmm_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(rsb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-librsb-spmm state"));
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    BENCH_TRY(rsb_peer_matrix(&v, &s->mtx));
    BENCH_TRY(rsb_peer_threads(s->threads));
    BENCH_TRY(tune_for(s, (const spx_bench_spmm_peer_opts *)o));
    *state = s;
    return SPX_OK;
cleanup:
    rsb_spmm_destroy(s);
    return st;
}

static spx_status rsb_spmm_op(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                              double beta, void *Y, int64_t ldy)
{
    rsb_spmm_state *s = state;
    spx_status st = bench_spmm_peer_shape("peer-librsb-spmm", &s->shape, k, ldx, ldy);
    if (st == SPX_OK) st = rsb_peer_threads(s->threads);
    if (st != SPX_OK) return st;
    rsb_err_t e = rsb_spmm(RSB_TRANSPOSITION_N, &alpha, s->mtx, (rsb_coo_idx_t)k,
                           RSB_FLAG_WANT_ROW_MAJOR_ORDER, X, (rsb_nnz_idx_t)ldx, &beta, Y,
                           (rsb_nnz_idx_t)ldy);
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_peer_fail(e, "rsb_spmm");
}

static size_t rsb_spmm_bytes(const void *state)
{
    const rsb_spmm_state *s = state;
    size_t b = 0;
    rsb_err_t e = rsb_mtx_get_info(s->mtx, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &b);
    return sizeof *s + (e == RSB_ERR_NO_ERROR ? b : 0);
}

static void rsb_spmm_describe(const void *state, char *buf, size_t len)
{
    const rsb_spmm_state *s = state;
    rsb_blk_idx_t leaves = 0;
    rsb_mtx_get_info(s->mtx, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves);
    snprintf(buf, len, "threads=%d leaves=%d, tuned for k=%lld: speedup %.2f", (int)s->threads,
             (int)leaves, (long long)s->shape.k, s->speedup);
}

const spx_bench_peer spx_peer_rsb_spmm = {
    .name = "peer-librsb-spmm",
    .operation = SPX_OP_SPMM,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = rsb_spmm_prepare,
    .bytes = rsb_spmm_bytes,
    .destroy = rsb_spmm_destroy,
    .describe = rsb_spmm_describe,
    .spmm = rsb_spmm_op,
};
