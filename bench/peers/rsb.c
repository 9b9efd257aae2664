/* peer-librsb: librsb's Recursive Sparse Blocks SpMV, fp64, CPU.
 *
 *   prepare: CSR copied into an RSB matrix (rsb_mtx_alloc_from_csr_const, 32-bit
 *            offsets), then rsb_tune_spmm for one right-hand side with the
 *            thread count, which may replace the matrix by a re-blocked clone;
 *            the tuning is part of the timed preprocessing.
 *   spmv:    rsb_spmv(N, alpha, A, x, beta, y); librsb itself does not read y
 *            when beta == 0 (checked with NaN in y on multi-leaf matrices).
 *
 * Also the helpers of rsb_peer.h, shared with peer-librsb-spgemm.
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "peers.h"
#include "rsb_peer.h"

typedef struct rsb_state {
    struct rsb_mtx_t *mtx;
    rsb_int_t threads;
    double speedup; /* tuning's reported gain */
} rsb_state;

spx_status rsb_peer_fail(rsb_err_t e, const char *call)
{
    char msg[160];
    rsb_strerror_r(e, msg, sizeof msg);
    return bench_fail(e == RSB_ERR_ENOMEM ? SPX_ERR_OOM : SPX_ERR_UNSUPPORTED,
                      "peer-librsb: %s failed: %s (error 0x%x)", call, msg, (unsigned)e);
}

spx_status rsb_peer_init(void)
{
    static int done;
    rsb_err_t e = RSB_ERR_NO_ERROR;
#pragma omp critical(spx_peer_rsb_init)
    if (!done) {
        e = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
        done = e == RSB_ERR_NO_ERROR;
    }
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_peer_fail(e, "rsb_lib_init");
}

spx_status rsb_peer_threads(rsb_int_t n)
{
    rsb_err_t e = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &n);
    return e == RSB_ERR_NO_ERROR ? SPX_OK
                                 : rsb_peer_fail(e, "setting RSB_IO_WANT_EXECUTING_THREADS");
}

spx_status rsb_peer_matrix(const bench_csr *A, struct rsb_mtx_t **m)
{
    rsb_coo_idx_t *rp = NULL;
    const double *vals;
    double *owned = NULL;
    rsb_err_t e = RSB_ERR_NO_ERROR;
    spx_status st;
    *m = NULL;
    if (A->col_bits != 32 || A->rows > INT_MAX || A->cols > INT_MAX || A->nnz > INT_MAX)
        return bench_fail(SPX_ERR_UNSUPPORTED,
                          "peer-librsb: %lld x %lld with %lld nonzeros exceeds its 32-bit indices",
                          (long long)A->rows, (long long)A->cols, (long long)A->nnz);
    BENCH_TRY(bench_values_f64(A, &vals, &owned));
    BENCH_TRY(bench_alloc((void **)&rp, (size_t)A->rows + 1, sizeof *rp, "peer-librsb offsets"));
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (rsb_coo_idx_t)A->rowptr[i];
    *m = rsb_mtx_alloc_from_csr_const(vals, rp, A->colidx, (rsb_nnz_idx_t)A->nnz,
                                      RSB_NUMERICAL_TYPE_DOUBLE, (rsb_coo_idx_t)A->rows,
                                      (rsb_coo_idx_t)A->cols, RSB_DEFAULT_BLOCKING,
                                      RSB_DEFAULT_BLOCKING, RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS, &e);
    if (!*m) st = rsb_peer_fail(e, "rsb_mtx_alloc_from_csr_const");
cleanup:
    free(rp);
    free(owned);
    return st;
}

static void rsb_destroy(void *state)
{
    rsb_state *s = state;
    if (!s) return;
    if (s->mtx) rsb_mtx_free(s->mtx);
    free(s);
}

static spx_status rsb_prepare(const spx_matrix *A, const spx_matrix *B,
                              const spx_bench_peer_opts *o, void **state)
{
    rsb_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(bench_csr_view(A, &v));
    BENCH_TRY(rsb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-librsb state"));
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    BENCH_TRY(rsb_peer_matrix(&v, &s->mtx));
    BENCH_TRY(rsb_peer_tune_spmv(&s->mtx, s->threads, &s->speedup));
    *state = s;
    return SPX_OK;
cleanup:
    rsb_destroy(s);
    return st;
}

spx_status rsb_peer_tune_spmv(struct rsb_mtx_t **m, rsb_int_t threads, double *speedup)
{
    spx_status st = rsb_peer_threads(threads);
    if (st != SPX_OK) return st;
    const double one = 1.0, zero = 0.0;
    rsb_real_t sf = 1.0;
    rsb_err_t e = rsb_tune_spmm(m, &sf, NULL, 0, 0.0, RSB_TRANSPOSITION_N, &one, NULL, 1,
                                RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, NULL, 0, &zero, NULL, 0);
    if (e != RSB_ERR_NO_ERROR) return rsb_peer_fail(e, "rsb_tune_spmm");
    *speedup = sf;
    return SPX_OK;
}

spx_status rsb_peer_spmv(struct rsb_mtx_t *m, rsb_int_t threads, double alpha, const void *x,
                         double beta, void *y)
{
    spx_status st = rsb_peer_threads(threads);
    if (st != SPX_OK) return st;
    rsb_err_t e = rsb_spmv(RSB_TRANSPOSITION_N, &alpha, m, x, 1, &beta, y, 1);
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_peer_fail(e, "rsb_spmv");
}

size_t rsb_peer_bytes(const struct rsb_mtx_t *m)
{
    size_t b = 0;
    if (rsb_mtx_get_info(m, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &b) != RSB_ERR_NO_ERROR) b = 0;
    return b;
}

static spx_status rsb_spmv_op(void *state, double alpha, const void *x, double beta, void *y)
{
    const rsb_state *s = state;
    return rsb_peer_spmv(s->mtx, s->threads, alpha, x, beta, y);
}

static size_t rsb_bytes(const void *state)
{
    const rsb_state *s = state;
    return sizeof *s + rsb_peer_bytes(s->mtx);
}

static void rsb_describe(const void *state, char *buf, size_t len)
{
    const rsb_state *s = state;
    rsb_blk_idx_t leaves = 0;
    rsb_mtx_get_info(s->mtx, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves);
    snprintf(buf, len, "threads=%d leaves=%d tuned_speedup=%.2f", (int)s->threads, (int)leaves,
             s->speedup);
}

const spx_bench_peer spx_peer_rsb = {
    .name = "peer-librsb",
    .operation = SPX_OP_SPMV,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = rsb_prepare,
    .spmv = rsb_spmv_op,
    .bytes = rsb_bytes,
    .destroy = rsb_destroy,
    .describe = rsb_describe,
};
