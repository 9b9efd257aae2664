/* peer-librsb: librsb's Recursive Sparse Blocks SpMV, fp64, CPU.
 *
 *   analyze: CSR copied into an RSB matrix (rsb_mtx_alloc_from_csr_const, 32-bit
 *            offsets), then rsb_tune_spmm for one right-hand side with the plan's
 *            thread count, which may replace the matrix by a re-blocked clone;
 *            the tuning is part of the timed preprocessing.
 *   spmv:    rsb_spmv(N, alpha, A, x, beta, y); librsb itself does not read y
 *            when beta == 0 (checked with NaN in y on multi-leaf matrices).
 *
 * librsb keeps process-global state: rsb_lib_init runs once, lazily, on the
 * first analyze (never rsb_lib_exit: the bench runs to the end of the
 * process), and the executing thread count RSB_IO_WANT_EXECUTING_THREADS is
 * global, so it is set again before each tuning and each product.
 */
#include <limits.h>
#include <omp.h>
#include <rsb.h>
#include <stdio.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "peers.h"

typedef struct rsb_state {
    struct rsb_mtx_t *mtx;
    int64_t rows, cols;
    rsb_int_t threads;
    double speedup; /* tuning's reported gain */
} rsb_state;

static spx_status rsb_fail(rsb_err_t e, const char *call)
{
    char msg[160];
    rsb_strerror_r(e, msg, sizeof msg);
    return spx__error(e == RSB_ERR_ENOMEM ? SPX_ERR_OOM : SPX_ERR_UNSUPPORTED,
                      "peer-librsb: %s failed: %s (error 0x%x)", call, msg, (unsigned)e);
}

static spx_status rsb_init_once(void)
{
    static int done;
    rsb_err_t e = RSB_ERR_NO_ERROR;
#pragma omp critical(spx_peer_rsb_init)
    if (!done) {
        e = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
        done = e == RSB_ERR_NO_ERROR;
    }
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_fail(e, "rsb_lib_init");
}

static spx_status rsb_set_threads(rsb_int_t n)
{
    rsb_err_t e = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &n);
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_fail(e, "setting RSB_IO_WANT_EXECUTING_THREADS");
}

static void rsb_destroy(void *state)
{
    rsb_state *s = state;
    if (!s) return;
    if (s->mtx) rsb_mtx_free(s->mtx);
    spx__free(s);
}

/* The RSB matrix from A's CSR (values converted to double if needed). */
static spx_status rsb_build(const spx_matrix *A, rsb_state *s)
{
    rsb_coo_idx_t *rp = NULL;
    const void *vals;
    void *owned = NULL;
    rsb_err_t e = RSB_ERR_NO_ERROR;
    spx_status st;
    SPX_TRY(spx__values_as(A, SPX_F64, &vals, &owned));
    SPX_TRY(spx__alloc((void **)&rp, (size_t)A->rows + 1, sizeof *rp, "peer-librsb offsets"));
    for (int64_t i = 0; i <= A->rows; i++)
        rp[i] = (rsb_coo_idx_t)A->rowptr[i];
    s->mtx = rsb_mtx_alloc_from_csr_const(
        vals, rp, A->col32, (rsb_nnz_idx_t)A->nnz, RSB_NUMERICAL_TYPE_DOUBLE,
        (rsb_coo_idx_t)A->rows, (rsb_coo_idx_t)A->cols, RSB_DEFAULT_BLOCKING, RSB_DEFAULT_BLOCKING,
        RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS, &e);
    if (!s->mtx) st = rsb_fail(e, "rsb_mtx_alloc_from_csr_const");
cleanup:
    spx__free(rp);
    spx__free(owned);
    return st;
}

static spx_status rsb_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    rsb_state *s = NULL;
    spx_status st;
    if (A->col_bits != 32 || A->rows > INT_MAX || A->nnz > INT_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "peer-librsb: %lld x %lld with %lld nonzeros exceeds its 32-bit indices",
                          (long long)A->rows, (long long)A->cols, (long long)A->nnz);
    SPX_TRY(rsb_init_once());
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "peer-librsb state"));
    s->rows = A->rows;
    s->cols = A->cols;
    s->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    SPX_TRY(rsb_build(A, s));
    SPX_TRY(rsb_set_threads(s->threads));
    const double one = 1.0, zero = 0.0;
    rsb_real_t sf = 1.0;
    rsb_err_t e = rsb_tune_spmm(&s->mtx, &sf, NULL, 0, 0.0, RSB_TRANSPOSITION_N, &one, NULL, 1,
                                RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, NULL, 0, &zero, NULL, 0);
    if (e != RSB_ERR_NO_ERROR) SPX_TRY(rsb_fail(e, "rsb_tune_spmm"));
    s->speedup = sf;
    *state = s;
    return SPX_OK;
cleanup:
    rsb_destroy(s);
    return st;
}

static spx_status rsb_spmv_op(void *state, double alpha, const void *x, double beta, void *y)
{
    rsb_state *s = state;
    spx_status st = rsb_set_threads(s->threads);
    if (st != SPX_OK) return st;
    rsb_err_t e = rsb_spmv(RSB_TRANSPOSITION_N, &alpha, s->mtx, x, 1, &beta, y, 1);
    return e == RSB_ERR_NO_ERROR ? SPX_OK : rsb_fail(e, "rsb_spmv");
}

static size_t rsb_bytes(const void *state)
{
    const rsb_state *s = state;
    size_t b = 0;
    if (rsb_mtx_get_info(s->mtx, RSB_MIF_TOTAL_SIZE__TO__SIZE_T, &b) != RSB_ERR_NO_ERROR) b = 0;
    return sizeof *s + b;
}

static void rsb_describe(const void *state, char *buf, size_t len)
{
    const rsb_state *s = state;
    rsb_blk_idx_t leaves = 0;
    rsb_mtx_get_info(s->mtx, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves);
    snprintf(buf, len, "threads=%d leaves=%d tuned_speedup=%.2f", (int)s->threads, (int)leaves,
             s->speedup);
}

const spx_format_ops spx_peer_rsb = {
    .name = "peer-librsb",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64),
    .analyze = rsb_analyze,
    .spmv = rsb_spmv_op,
    .bytes = rsb_bytes,
    .destroy = rsb_destroy,
    .describe = rsb_describe,
    .borrows_matrix = 0,
};
