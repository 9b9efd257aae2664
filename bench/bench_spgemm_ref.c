/* The reference of the SpGEMM bench: C = A*B row by row (Gustavson), each row
 * in a dense accumulator of long doubles over B's columns, with a stamp per
 * column (the last row that touched it). Two passes over the rows, OpenMP
 * threads taking rows dynamically: count each row's distinct columns (and
 * its products), then fill the columns, sort them, and write the sums and the
 * sums of |a_ik| |b_kj|. Threads are limited so that the accumulators (32
 * bytes a column each) stay under 256 MB. Independent of SpX's formats: the
 * bench checks them against it.
 *
 * The check walks each row of C and of the reference together (both sorted). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench_spgemm.h"

#define REF_ACC_BYTES ((size_t)256 << 20)

typedef struct ref_acc {
    long double *sum;
    double *abs;
    int64_t *stamp; /* row + 1 of the last touch, 0: never */
} ref_acc;

static int ref_threads(int64_t cols)
{
    size_t per = (size_t)(cols > 0 ? cols : 1) * (sizeof(long double) + 2 * sizeof(double));
    size_t most = REF_ACC_BYTES / per;
    int t = omp_get_max_threads();
    return most < 1 ? 1 : most < (size_t)t ? (int)most : t;
}

static spx_status acc_alloc(ref_acc *a, int64_t cols)
{
    spx_status st;
    memset(a, 0, sizeof *a);
    BENCH_TRY(bench_alloc((void **)&a->sum, (size_t)cols, sizeof *a->sum, "reference sums"));
    BENCH_TRY(bench_alloc((void **)&a->abs, (size_t)cols, sizeof *a->abs, "reference scales"));
    BENCH_TRY(bench_calloc((void **)&a->stamp, (size_t)cols, sizeof *a->stamp, "reference stamps"));
cleanup:
    return st;
}

static void acc_free(ref_acc *a)
{
    free(a->sum);
    free(a->abs);
    free(a->stamp);
}

/* Row i of A*B into the accumulator; its new columns appended to cols (when
 * not NULL); returns how many columns were new, *products the row's products. */
static int64_t accumulate_row(const bench_csr *A, const bench_csr *B, int64_t i, ref_acc *a,
                              int64_t *cols, int64_t *products)
{
    int64_t fresh = 0, prods = 0;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
        int64_t k = bench_col(A, e);
        long double av = bench_val(A, e);
        prods += B->rowptr[k + 1] - B->rowptr[k];
        for (int64_t f = B->rowptr[k]; f < B->rowptr[k + 1]; f++) {
            int64_t j = bench_col(B, f);
            long double p = av * (long double)bench_val(B, f);
            if (a->stamp[j] != i + 1) {
                a->stamp[j] = i + 1;
                a->sum[j] = 0.0L;
                a->abs[j] = 0.0;
                if (cols) cols[fresh] = j;
                fresh++;
            }
            a->sum[j] += p;
            a->abs[j] += (double)fabsl(p);
        }
    }
    *products = prods;
    return fresh;
}

static int compare_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Pass 1: r->rowptr[i + 1] = distinct columns of row i; the products. */
static spx_status count_rows(const bench_csr *A, const bench_csr *B, bench_spgemm_ref *r)
{
    spx_status st = SPX_OK;
    int64_t products = 0;
#pragma omp parallel num_threads(ref_threads(B->cols)) reduction(+ : products)
    {
        ref_acc a;
        spx_status mine = acc_alloc(&a, B->cols);
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < A->rows; i++) {
            int64_t p = 0;
            if (mine == SPX_OK) r->rowptr[i + 1] = accumulate_row(A, B, i, &a, NULL, &p);
            products += p;
        }
        acc_free(&a);
#pragma omp critical(bench_ref_status)
        if (mine != SPX_OK) st = mine;
    }
    r->products = products;
    return st;
}

/* Pass 2: each row's sorted columns, sums and scales at its offset. */
static spx_status fill_rows(const bench_csr *A, const bench_csr *B, bench_spgemm_ref *r)
{
    spx_status st = SPX_OK;
#pragma omp parallel num_threads(ref_threads(B->cols))
    {
        ref_acc a;
        spx_status mine = acc_alloc(&a, B->cols);
#pragma omp for schedule(dynamic, 256)
        for (int64_t i = 0; i < A->rows; i++) {
            int64_t p, *cols = r->col + r->rowptr[i];
            if (mine != SPX_OK) continue;
            int64_t n = accumulate_row(A, B, i, &a, cols, &p);
            qsort(cols, (size_t)n, sizeof *cols, compare_i64);
            for (int64_t e = 0; e < n; e++) {
                r->val[r->rowptr[i] + e] = (double)a.sum[cols[e]];
                r->scale[r->rowptr[i] + e] = a.abs[cols[e]];
            }
        }
        acc_free(&a);
#pragma omp critical(bench_ref_status)
        if (mine != SPX_OK) st = mine;
    }
    return st;
}

spx_status bench_spgemm_reference(const spx_matrix *A, const spx_matrix *B, bench_spgemm_ref *r)
{
    bench_csr a, b;
    spx_status st;
    memset(r, 0, sizeof *r);
    BENCH_TRY(bench_csr_view(A, &a));
    BENCH_TRY(bench_csr_view(B, &b));
    if (a.cols != b.rows)
        BENCH_TRY(bench_fail(SPX_ERR_DIM_MISMATCH, "bench: A is %lld x %lld but B has %lld rows",
                             (long long)a.rows, (long long)a.cols, (long long)b.rows));
    r->rows = a.rows;
    r->cols = b.cols;
    BENCH_TRY(bench_calloc((void **)&r->rowptr, (size_t)a.rows + 1, sizeof *r->rowptr,
                           "reference row offsets"));
    BENCH_TRY(count_rows(&a, &b, r));
    for (int64_t i = 0; i < a.rows; i++)
        r->rowptr[i + 1] += r->rowptr[i];
    r->nnz = r->rowptr[a.rows];
    BENCH_TRY(bench_alloc((void **)&r->col, (size_t)r->nnz, sizeof *r->col, "reference columns"));
    BENCH_TRY(bench_alloc((void **)&r->val, (size_t)r->nnz, sizeof *r->val, "reference values"));
    BENCH_TRY(bench_alloc((void **)&r->scale, (size_t)r->nnz, sizeof *r->scale, "reference scales"));
    BENCH_TRY(fill_rows(&a, &b, r));
    return SPX_OK;
cleanup:
    bench_spgemm_ref_free(r);
    return st;
}

void bench_spgemm_ref_free(bench_spgemm_ref *r)
{
    free(r->rowptr);
    free(r->col);
    free(r->val);
    free(r->scale);
    memset(r, 0, sizeof *r);
}

/* |c - ref| relative to scale: 0 for equal, INFINITY for a difference on a
 * zero scale or a NaN. */
static double entry_error(double c, double ref, double scale)
{
    double d = fabs(c - ref);
    if (isnan(d)) return INFINITY;
    return scale > 0.0 ? d / scale : d > 0.0 ? INFINITY : 0.0;
}

/* Row i: C's entries against the reference's; *worst and *dropped updated. */
static int check_row(const bench_csr *c, const bench_spgemm_ref *r, int64_t i, double *worst,
                     int64_t *dropped)
{
    int64_t e = c->rowptr[i], f = r->rowptr[i];
    while (e < c->rowptr[i + 1] || f < r->rowptr[i + 1]) {
        int64_t cj = e < c->rowptr[i + 1] ? bench_col(c, e) : INT64_MAX;
        int64_t rj = f < r->rowptr[i + 1] ? r->col[f] : INT64_MAX;
        double err;
        if (cj < rj) return 0; /* outside the symbolic product */
        if (rj < cj) {
            err = entry_error(0.0, r->val[f], r->scale[f]);
            (*dropped)++;
            f++;
        } else {
            err = entry_error(bench_val(c, e), r->val[f], r->scale[f]);
            e++;
            f++;
        }
        if (err > *worst) *worst = err;
    }
    return 1;
}

spx_status bench_spgemm_check(const spx_matrix *C, const bench_spgemm_ref *r, double *err,
                              int64_t *dropped, int64_t *nnz_c)
{
    bench_csr c;
    spx_status st = bench_csr_view(C, &c);
    *err = INFINITY;
    *dropped = 0;
    *nnz_c = c.nnz;
    if (st != SPX_OK) return st;
    if (c.rows != r->rows || c.cols != r->cols)
        return bench_fail(SPX_ERR_DIM_MISMATCH, "bench: C is %lld x %lld, A*B is %lld x %lld",
                          (long long)c.rows, (long long)c.cols, (long long)r->rows,
                          (long long)r->cols);
    if ((st = bench_lib(spx_matrix_validate(C))) != SPX_OK) return st;
    double worst = 0.0;
    for (int64_t i = 0; i < c.rows; i++)
        if (!check_row(&c, r, i, &worst, dropped)) return SPX_OK; /* *err stays INFINITY */
    *err = worst;
    return SPX_OK;
}
