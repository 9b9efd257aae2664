/* gustavson's memo for spx_spgemm_numeric (spgemm_memo.h), the CPU side of
 * what gpu-rows does on the GPU (cuda/spgemm/rows_memo.cu).
 *
 * The memo lists, for each entry e of C, the entries of A (pa) and of B (pb)
 * whose products it sums: eoff[e] .. eoff[e + 1] - 1 in pa and pb, in the
 * order of A's row (the order the product's gather adds them, so the sums
 * come out the same bits as a new product's). Row i's products fill exactly
 * its entries' lists, which begin at rowoff[i] = the products of the rows
 * before it, so each row is built alone (OpenMP over rows):
 *   1. count: C's row columns mapped to their places (pos, one array of B's
 *      columns a thread), each product counted on its entry; a product off
 *      C's row, or an entry no product reaches, means C's pattern is not
 *      A*B's (C's entries are the symbolic product's);
 *   2. eoff from the counts, row by row;
 *   3. fill: pa and pb in A's row order.
 * 8 bytes a product and 8 an entry of C, held by C (spx_matrix_destroy
 * frees them). A call hashes B's pattern (its offsets and columns, as the
 * GPU's hash does) and rebuilds the memo when the plan or that hash is not
 * the memo's; then c_e = sum of a[pa] * b[pb] over e's list. Products of
 * more than MEMO_MAX_PER_ENTRY an entry get no lists (a declined memo,
 * kept so that later calls know): the gather is faster there. */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cpu/spgemm_memo.h"

/* Products an entry of C past which the memo is not built. On this 2-core
 * machine (spgemm-numeric-cpu-2026-11-26.md) the memo's call against the
 * gather's: cage11 (2.3 products an entry) 13.4 against 24.5 ms, R-MAT 13
 * (2.0) 12.8 against 23.4, delaunay_n16 (1.8) 5.3 against 13.5; but
 * bcsstk28 (19) 7.5 against 6.6 and a band (12.8, rows of runs) 10.1 against
 * 5.4: 8 bytes streamed a product lose to a gather that stays in cache. */
#define MEMO_MAX_PER_ENTRY 8

typedef struct cpu_memo {
    uint64_t serial, hash; /* the plan and B's pattern it was built for */
    int64_t nnz_c, products;
    int64_t *eoff;         /* nnz_c + 1; NULL: declined (too many products an entry) */
    uint32_t *pa, *pb;     /* products */
} cpu_memo;

void spx__cpu_memo_free(void *memo)
{
    cpu_memo *m = memo;
    if (!m) return;
    spx__free(m->eoff);
    spx__free(m->pa);
    spx__free(m->pb);
    spx__free(m);
}

/* splitmix64's finaliser. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* B's pattern as one number: the sum of a mix of each offset's and each
 * column's position and value. */
static uint64_t pattern_hash(const spx_matrix *B, const int64_t *brp, int threads)
{
    uint64_t h = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : h)
    for (int64_t k = 0; k <= B->rows; k++)
        h += mix64((uint64_t)k * 0x9e3779b97f4a7c15ull ^ mix64((uint64_t)brp[k]));
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : h)
    for (int64_t k = 0; k < B->nnz; k++)
        h += mix64(((uint64_t)k * 2 + 1) * 0x9e3779b97f4a7c15ull ^ mix64((uint64_t)spx__col(B, k)));
    return h;
}

/* What a build reads: the three matrices' offsets. */
typedef struct memo_job {
    const spx_matrix *A, *B, *C;
    const int64_t *arp, *brp, *crp;
    int64_t *rowoff; /* A's rows + 1: products before each row */
    uint32_t *cnt;   /* nnz(C): products an entry (step 1), then its fill cursor */
    cpu_memo *m;
    int threads;
} memo_job;

/* pos[j] = the place of column j in C's row i (or -1: set back after). */
static void map_row(const memo_job *J, int64_t i, int64_t *pos, int64_t to)
{
    for (int64_t k = J->crp[i]; k < J->crp[i + 1]; k++)
        pos[spx__col(J->C, k)] = to < 0 ? -1 : k;
}

/* Step 1 for row i; 0 when its products are not exactly C's row. */
static int count_row(const memo_job *J, int64_t i, int64_t *pos)
{
    int ok = 1;
    map_row(J, i, pos, 0);
    for (int64_t q = J->arp[i]; q < J->arp[i + 1]; q++) {
        const int64_t k = spx__col(J->A, q);
        for (int64_t kb = J->brp[k]; kb < J->brp[k + 1]; kb++) {
            const int64_t e = pos[spx__col(J->B, kb)];
            if (e < 0) ok = 0;
            else J->cnt[e]++;
        }
    }
    for (int64_t e = J->crp[i]; e < J->crp[i + 1]; e++) ok &= J->cnt[e] > 0;
    map_row(J, i, pos, -1);
    return ok;
}

/* Steps 2-3 for row i: its entries' list starts, then its products. */
static void fill_row(const memo_job *J, int64_t i, int64_t *pos)
{
    int64_t start = J->rowoff[i];
    for (int64_t e = J->crp[i]; e < J->crp[i + 1]; e++) {
        J->m->eoff[e] = start;
        start += J->cnt[e];
        J->cnt[e] = 0;
    }
    map_row(J, i, pos, 0);
    for (int64_t q = J->arp[i]; q < J->arp[i + 1]; q++) {
        const int64_t k = spx__col(J->A, q);
        for (int64_t kb = J->brp[k]; kb < J->brp[k + 1]; kb++) {
            const int64_t e = pos[spx__col(J->B, kb)], t = J->m->eoff[e] + J->cnt[e]++;
            J->m->pa[t] = (uint32_t)q;
            J->m->pb[t] = (uint32_t)kb;
        }
    }
    map_row(J, i, pos, -1);
}

/* rowoff: the products before each row of A (a serial prefix). */
static void row_offsets(memo_job *J)
{
    const int64_t m = J->A->rows;
#pragma omp parallel for num_threads(J->threads) schedule(static)
    for (int64_t i = 0; i < m; i++) {
        int64_t f = 0;
        for (int64_t q = J->arp[i]; q < J->arp[i + 1]; q++) {
            const int64_t k = spx__col(J->A, q);
            f += J->brp[k + 1] - J->brp[k];
        }
        J->rowoff[i + 1] = f;
    }
    J->rowoff[0] = 0;
    for (int64_t i = 0; i < m; i++) J->rowoff[i + 1] += J->rowoff[i];
}

/* Step 1 (fill 0) or steps 2-3 (fill 1) over every row, OpenMP threads
 * each with its column map; *ok 0 when some row's products are not C's row. */
static spx_status rows_pass(memo_job *J, int fill, int *ok)
{
    const int64_t m = J->A->rows, p = J->B->cols;
    int good = 1, oom = 0;
#pragma omp parallel num_threads(J->threads) reduction(& : good) reduction(| : oom)
    {
        int64_t *pos = NULL;
        if (spx__alloc((void **)&pos, (size_t)p + 1, sizeof *pos, "SpGEMM memo columns") != SPX_OK)
            oom = 1;
        for (int64_t j = 0; pos && j < p; j++) pos[j] = -1;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < m; i++) {
            if (!pos) continue;
            if (fill) fill_row(J, i, pos);
            else good &= count_row(J, i, pos);
        }
        spx__free(pos);
    }
    *ok = good;
    return oom ? spx__error(SPX_ERR_OOM, "SpGEMM memo: column maps") : SPX_OK;
}

/* Steps 1-3: the fill runs only once every row matched C's (its lists
 * would otherwise point outside them); *match 0 when one did not. */
static spx_status build_rows(memo_job *J, int *match)
{
    int ignored = 1;
    spx_status st = rows_pass(J, 0, match);
    if (st != SPX_OK || !*match) return st;
    if ((st = rows_pass(J, 1, &ignored)) != SPX_OK) return st;
    J->m->eoff[J->C->nnz] = J->m->products;
    return SPX_OK;
}

/* A new memo of A*B for C; *m NULL (SPX_OK) where its memory is refused. */
static spx_status memo_build(memo_job *J, int *match)
{
    cpu_memo *m = NULL;
    spx_status st = SPX_OK;
    *match = 0;
    J->rowoff = NULL;
    J->cnt = NULL;
    J->m = NULL;
    SPX_TRY(spx__alloc((void **)&J->rowoff, (size_t)J->A->rows + 1, sizeof *J->rowoff,
                       "SpGEMM memo rows"));
    row_offsets(J);
    SPX_TRY(spx__calloc((void **)&m, 1, sizeof *m, "SpGEMM memo"));
    m->nnz_c = J->C->nnz;
    m->products = J->rowoff[J->A->rows];
    if (m->products > MEMO_MAX_PER_ENTRY * m->nnz_c) { /* declined: kept as such */
        *match = 1;
        J->m = m;
        m = NULL;
        goto cleanup;
    }
    SPX_TRY(spx__calloc((void **)&J->cnt, (size_t)m->nnz_c + 1, sizeof *J->cnt,
                        "SpGEMM memo counts"));
    SPX_TRY(spx__alloc((void **)&m->eoff, (size_t)m->nnz_c + 1, sizeof *m->eoff,
                       "SpGEMM memo entries"));
    SPX_TRY(spx__alloc((void **)&m->pa, (size_t)m->products + 1, sizeof *m->pa,
                       "SpGEMM memo products"));
    SPX_TRY(spx__alloc((void **)&m->pb, (size_t)m->products + 1, sizeof *m->pb,
                       "SpGEMM memo products"));
    J->m = m;
    SPX_TRY(build_rows(J, match));
    m = NULL; /* J->m's */
cleanup:
    spx__cpu_memo_free(m);
    spx__free(J->rowoff);
    spx__free(J->cnt);
    if (st != SPX_OK || !*match) {
        spx__cpu_memo_free(J->m);
        J->m = NULL;
    }
    return st;
}

/* c_e = sum over e's list of a[pa] * b[pb], in list order. */
static void memo_sums(const cpu_memo *m, const spx_matrix *A, const spx_matrix *B,
                      spx_matrix *C, int threads)
{
    const int both64 = A->vtype == SPX_F64 && B->vtype == SPX_F64;
    const double *av = A->values, *bv = B->values;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t e = 0; e < m->nnz_c; e++) {
        double sum = 0.0;
        for (int64_t t = m->eoff[e]; t < m->eoff[e + 1]; t++)
            sum += both64 ? av[m->pa[t]] * bv[m->pb[t]] : spx__val(A, m->pa[t]) * spx__val(B, m->pb[t]);
        if (C->vtype == SPX_F64) ((double *)C->values)[e] = sum;
        else ((float *)C->values)[e] = (float)sum;
    }
}

spx_status spx__cpu_spgemm_memo(const spx_matrix *A, const spx_matrix *B, spx_matrix *C,
                                uint64_t serial, int threads, int *handled)
{
    memo_job J = {A, B, C, NULL, NULL, NULL, NULL, NULL, NULL, 0};
    int match = 0;
    spx_status st = SPX_OK;
    *handled = 0;
    if (A->nnz >= (int64_t)UINT32_MAX || B->nnz >= (int64_t)UINT32_MAX) return SPX_OK;
    J.threads = threads > 0 ? threads : omp_get_max_threads();
    SPX_TRY(spx__matrix_rowptr(A, &J.arp));
    SPX_TRY(spx__matrix_rowptr(B, &J.brp));
    SPX_TRY(spx__matrix_rowptr(C, &J.crp));
    const uint64_t hash = pattern_hash(B, J.brp, J.threads);
    cpu_memo *m = C->numeric.host_memo;
    if (!m || m->serial != serial || m->hash != hash || m->nnz_c != C->nnz) {
        st = memo_build(&J, &match);
        if (st == SPX_ERR_OOM) { /* no memo: the caller gathers */
            spx__clear_error();
            return SPX_OK;
        }
        SPX_TRY(st);
        if (!match)
            return spx__error(SPX_ERR_INVALID_ARG,
                              "spx_spgemm_numeric: A*B has another pattern than C's: B's "
                              "pattern is not the one that made C");
        J.m->serial = serial;
        J.m->hash = hash;
        if (C->numeric.host_memo_free) C->numeric.host_memo_free(C->numeric.host_memo);
        C->numeric.host_memo = m = J.m;
        C->numeric.host_memo_free = spx__cpu_memo_free;
    }
    if (!m->eoff) return SPX_OK; /* declined for this product: the caller gathers */
    memo_sums(m, A, B, C, J.threads);
    *handled = 1;
cleanup:
    return st;
}
