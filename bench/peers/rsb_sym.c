/* peer-librsb-sym: librsb's SpMV of a symmetric matrix from its lower
 * triangle (librsb's own symmetric storage), fp64, CPU: the peer of SpX's
 * sym format. A = L + D + L^T, the RSB matrix holds L + D (col <= row) with
 * RSB_FLAG_LOWER_SYMMETRIC and librsb adds the mirror terms itself.
 *
 *   prepare: declines (SPX_ERR_UNSUPPORTED) a matrix that is not square or
 *            not exactly symmetric (every a_ij has an a_ji of the same stored
 *            value; binary search in the sorted rows, O(nnz log) on the
 *            thread count), then copies L + D into an RSB matrix
 *            (rsb_mtx_alloc_from_csr_const, 32-bit offsets) and tunes it as
 *            peer-librsb does (rsb_tune_spmm, one right-hand side); all of it
 *            is timed preprocessing, as sym's own check is.
 *   spmv:    rsb_spmv(N, alpha, A, x, beta, y) after setting the thread
 *            count (librsb's global option).
 */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "peers.h"
#include "rsb_peer.h"

typedef struct rsb_sym_state {
    struct rsb_mtx_t *mtx;
    rsb_int_t threads;
    int64_t stored; /* entries of L + D */
    double speedup; /* tuning's reported gain */
} rsb_sym_state;

/* Position of column j in row i of v, or -1 (rows are sorted). */
static int64_t find_in_row(const bench_csr *v, int64_t i, int64_t j)
{
    int64_t lo = v->rowptr[i], hi = v->rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, c = bench_col(v, mid);
        if (c == j) return mid;
        if (c < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The first column j of row i whose a_ij has no a_ji of the same value, or
 * -1. Values compare as doubles, exact for fp32 too. */
static int64_t asymmetric_col(const bench_csr *v, int64_t i)
{
    for (int64_t k = v->rowptr[i]; k < v->rowptr[i + 1]; k++) {
        int64_t j = bench_col(v, k);
        if (j == i) continue;
        int64_t q = find_in_row(v, j, i);
        if (q < 0 || bench_val(v, q) != bench_val(v, k)) return j;
    }
    return -1;
}

/* SPX_OK when v is square and exactly symmetric, else SPX_ERR_UNSUPPORTED
 * naming the first row that is not mirrored. */
static spx_status check_symmetric(const bench_csr *v, int threads)
{
    int64_t bad = INT64_MAX;
    if (v->rows != v->cols)
        return bench_fail(SPX_ERR_UNSUPPORTED,
                          "peer-librsb-sym: A is %lld x %lld, not square (symmetric storage)",
                          (long long)v->rows, (long long)v->cols);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024) reduction(min : bad)
    for (int64_t i = 0; i < v->rows; i++)
        if (i < bad && asymmetric_col(v, i) >= 0) bad = i;
    if (bad == INT64_MAX) return SPX_OK;
    long long i = (long long)bad, j = (long long)asymmetric_col(v, bad);
    return bench_fail(SPX_ERR_UNSUPPORTED,
                      "peer-librsb-sym: A is not symmetric (a(%lld,%lld) has no equal "
                      "a(%lld,%lld)); symmetric storage needs pattern and values mirrored",
                      i, j, j, i);
}

/* The RSB matrix of L + D, v's entries with col <= row (a prefix of each
 * sorted row), flagged lower symmetric; SPX_ERR_UNSUPPORTED when v's sizes
 * pass librsb's 32-bit indices. */
static spx_status lower_matrix(const bench_csr *v, rsb_sym_state *s)
{
    rsb_coo_idx_t *rp = NULL, *ja = NULL;
    double *va = NULL;
    rsb_err_t e = RSB_ERR_NO_ERROR;
    spx_status st = SPX_OK;
    if (v->col_bits != 32 || v->rows > INT_MAX || v->nnz > INT_MAX)
        return bench_fail(SPX_ERR_UNSUPPORTED,
                          "peer-librsb-sym: %lld x %lld with %lld nonzeros exceeds its 32-bit "
                          "indices",
                          (long long)v->rows, (long long)v->cols, (long long)v->nnz);
    const int32_t *col = v->colidx;
    BENCH_TRY(
        bench_alloc((void **)&rp, (size_t)v->rows + 1, sizeof *rp, "peer-librsb-sym offsets"));
    rp[0] = 0;
    for (int64_t i = 0; i < v->rows; i++) {
        int64_t k = v->rowptr[i];
        while (k < v->rowptr[i + 1] && col[k] <= i)
            k++;
        rp[i + 1] = rp[i] + (rsb_coo_idx_t)(k - v->rowptr[i]);
    }
    s->stored = rp[v->rows];
    BENCH_TRY(bench_alloc((void **)&ja, (size_t)s->stored, sizeof *ja, "peer-librsb-sym columns"));
    BENCH_TRY(bench_alloc((void **)&va, (size_t)s->stored, sizeof *va, "peer-librsb-sym values"));
    for (int64_t i = 0; i < v->rows; i++)
        for (int64_t q = rp[i], k = v->rowptr[i]; q < rp[i + 1]; q++, k++) {
            ja[q] = col[k];
            va[q] = bench_val(v, k);
        }
    s->mtx = rsb_mtx_alloc_from_csr_const(
        va, rp, ja, (rsb_nnz_idx_t)s->stored, RSB_NUMERICAL_TYPE_DOUBLE, (rsb_coo_idx_t)v->rows,
        (rsb_coo_idx_t)v->cols, RSB_DEFAULT_BLOCKING, RSB_DEFAULT_BLOCKING,
        RSB_FLAG_DEFAULT_RSB_MATRIX_FLAGS | RSB_FLAG_LOWER_SYMMETRIC, &e);
    if (!s->mtx) st = rsb_peer_fail(e, "rsb_mtx_alloc_from_csr_const (lower symmetric)");
cleanup:
    free(rp);
    free(ja);
    free(va);
    return st;
}

static void rsb_sym_destroy(void *state)
{
    rsb_sym_state *s = state;
    if (!s) return;
    if (s->mtx) rsb_mtx_free(s->mtx);
    free(s);
}

static spx_status rsb_sym_prepare(const spx_matrix *A, const spx_matrix *B,
                                  const spx_bench_peer_opts *o, void **state)
{
    rsb_sym_state *s = NULL;
    bench_csr v;
    spx_status st;
    (void)B;
    BENCH_TRY(bench_csr_view(A, &v));
    int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    BENCH_TRY(check_symmetric(&v, threads));
    BENCH_TRY(rsb_peer_init());
    BENCH_TRY(bench_calloc((void **)&s, 1, sizeof *s, "peer-librsb-sym state"));
    s->threads = threads;
    BENCH_TRY(lower_matrix(&v, s));
    BENCH_TRY(rsb_peer_tune_spmv(&s->mtx, s->threads, &s->speedup));
    *state = s;
    return SPX_OK;
cleanup:
    rsb_sym_destroy(s);
    return st;
}

static spx_status rsb_sym_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const rsb_sym_state *s = state;
    return rsb_peer_spmv(s->mtx, s->threads, alpha, x, beta, y);
}

static size_t rsb_sym_bytes(const void *state)
{
    const rsb_sym_state *s = state;
    return sizeof *s + rsb_peer_bytes(s->mtx);
}

static void rsb_sym_describe(const void *state, char *buf, size_t len)
{
    const rsb_sym_state *s = state;
    rsb_blk_idx_t leaves = 0;
    rsb_mtx_get_info(s->mtx, RSB_MIF_LEAVES_COUNT__TO__RSB_BLK_INDEX_T, &leaves);
    snprintf(buf, len, "threads=%d leaves=%d stored=%lld tuned_speedup=%.2f", (int)s->threads,
             (int)leaves, (long long)s->stored, s->speedup);
}

const spx_bench_peer spx_peer_rsb_sym = {
    .name = "peer-librsb-sym",
    .operation = SPX_OP_SPMV,
    .devices = SPX_DEV_CPU,
    .precisions = BENCH_TYPE_BIT(SPX_F64),
    .prepare = rsb_sym_prepare,
    .spmv = rsb_sym_spmv,
    .bytes = rsb_sym_bytes,
    .destroy = rsb_sym_destroy,
    .describe = rsb_sym_describe,
};
