/* One plan, several threads: formats documented as read-only during spmv
 * and spmm (ref, csr, coo, sell, and the AXT variants with their default
 * x=live; SpMM and SDDMM: ref and csr, with X and Y of 5 columns) must
 * give, from concurrent calls on one plan, the same bits as a lone call, and
 * the same bits call after call (the order of partial sums is fixed for a
 * fixed thread count). The matrix has long rows, which csr, coo and sell sum
 * in slices across threads. Solves too: CG from several threads on one
 * plan, which keeps one solve's workspace (core/keep.h: the others make
 * their own), each the bits of a lone solve. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define CALLERS 4
#define CALLS 12
#define SPMM_K 5 /* SpMM's columns */

typedef struct caller {
    const spx_plan *P;
    const double *x, *want;
    int64_t n, k; /* n: entries of the result; k: columns of SpMM's and SDDMM's blocks */
    spx_operation op;
    int mismatches;
} caller;

/* y = 1.25 A x (SpMV), Y = 1.25 A X with X of k columns (SpMM), or Z =
 * 1.25 X X'^T at A's entries, X and X' both x's first rows of k (SDDMM). */
static spx_status product(const spx_plan *P, spx_operation op, const double *x, int64_t k,
                          double *y)
{
    if (op == SPX_OP_SDDMM) return spx_sddmm(P, k, 1.25, x, k, x, k, 0.0, y);
    return op == SPX_OP_SPMM ? spx_spmm(P, k, 1.25, x, k, 0.0, y, k) : spx_spmv(P, 1.25, x, 0.0, y);
}

static const char *op_name(spx_operation op)
{
    return op == SPX_OP_SDDMM ? "sddmm" : op == SPX_OP_SPMM ? "spmm" : "spmv";
}

static void *call_many(void *arg)
{
    caller *c = arg;
    const size_t n = (size_t)c->n;
    double *y = malloc(sizeof *y * n);
    for (int k = 0; k < CALLS; k++) {
        if (product(c->P, c->op, c->x, c->k, y) != SPX_OK || memcmp(y, c->want, sizeof *y * n) != 0)
            c->mismatches++;
    }
    free(y);
    return NULL;
}

typedef struct solver_thread {
    const spx_plan *P;
    const spx_matrix *A;
    const double *b, *want;
    int64_t n;
    int mismatches;
} solver_thread;

static void *solve_many(void *arg)
{
    solver_thread *c = arg;
    double *x = malloc(sizeof *x * (size_t)c->n);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 1e-10;
    o.jacobi = 1;
    for (int k = 0; k < CALLS / 2; k++) {
        memset(x, 0, sizeof *x * (size_t)c->n);
        if (spx_cg(c->P, c->A, c->b, x, &o, NULL) != SPX_OK ||
            memcmp(x, c->want, sizeof *x * (size_t)c->n) != 0)
            c->mismatches++;
    }
    free(x);
    return NULL;
}

static void check_solves(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap3d7:14", &A), SPX_OK);
    const int64_t n = 14 * 14 * 14;
    spx_plan *P = NULL;
    spx_plan_opts po = spx_plan_opts_default();
    po.format = "csr";
    po.threads = 1; /* the same sums in every thread */
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &po, &P), SPX_OK);
    double *b = malloc(sizeof *b * (size_t)n), *want = calloc((size_t)n, sizeof *want);
    for (int64_t i = 0; i < n; i++)
        b[i] = 1.0 + (double)(i % 5);
    spx_solve_opts o = spx_solve_opts_default();
    o.rtol = 1e-10;
    o.jacobi = 1;
    CHECK_STATUS(spx_cg(P, A, b, want, &o, NULL), SPX_OK);
    pthread_t t[CALLERS];
    solver_thread c[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
        c[i] = (solver_thread){P, A, b, want, n, 0};
        pthread_create(&t[i], NULL, solve_many, &c[i]);
    }
    for (int i = 0; i < CALLERS; i++) {
        pthread_join(t[i], NULL);
        CHECK(c[i].mismatches == 0);
    }
    printf("cg from %d threads on one plan: %s\n", CALLERS,
           c[0].mismatches + c[1].mismatches ? "MISMATCH" : "same bits");
    free(b);
    free(want);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

/* 20000 x 60000: rows of 0..9 entries, and rows 7 and 12345 of 50,000. */
static spx_matrix *matrix_with_long_rows(void)
{
    int64_t *len = malloc(sizeof *len * 20000);
    for (int64_t i = 0; i < 20000; i++)
        len[i] = (i == 7 || i == 12345) ? 50000 : i % 10;
    spx_matrix *A = spx_test_rows_matrix(20000, 60000, len, 42);
    free(len);
    return A;
}

/* Concurrent products of the format (SpMV; SpMM and SDDMM with blocks of k
 * columns; x holds enough entries for any) against a lone one. */
static void check_format(const spx_matrix *A, const char *format, spx_operation op, const double *x,
                         int64_t k)
{
    spx_plan_opts o = spx_plan_opts_default();
    int64_t rows, nnz;
    o.format = format;
    o.threads = 3;
    spx_plan *P = NULL;
    spx_matrix_dims(A, &rows, NULL, &nnz);
    if (!CHECK_STATUS(spx_plan_create(A, op, &o, &P), SPX_OK)) return;
    const int64_t n = op == SPX_OP_SDDMM ? nnz : op == SPX_OP_SPMM ? rows * k : rows;
    double *want = malloc(sizeof *want * (size_t)n);
    CHECK_STATUS(product(P, op, x, k, want), SPX_OK);
    caller c[CALLERS];
    pthread_t th[CALLERS];
    for (int t = 0; t < CALLERS; t++) {
        c[t] = (caller){P, x, want, n, k, op, 0};
        CHECK(pthread_create(&th[t], NULL, call_many, &c[t]) == 0);
    }
    int mismatches = 0;
    for (int t = 0; t < CALLERS; t++) {
        pthread_join(th[t], NULL);
        mismatches += c[t].mismatches;
    }
    if (!CHECK(mismatches == 0))
        fprintf(stderr, "  %s %s: %d of %d concurrent calls differ from a lone call\n", format,
                op_name(op), mismatches, CALLERS * CALLS);
    else
        printf("%-8s %s %d concurrent calls, identical bits\n", format, op_name(op),
               CALLERS * CALLS);
    free(want);
    spx_plan_destroy(P);
}

int main(void)
{
    static const char *formats[] = {"ref",     "csr",    "coo",     "sell",  "axc",
                                    "axt-uh1", "axt-uh", "axt-ch1", "axt-ch"};
    spx_matrix *A = matrix_with_long_rows();
    int64_t cols;
    spx_matrix_dims(A, NULL, &cols, NULL);
    double *x = malloc(sizeof *x * (size_t)cols * SPMM_K);
    uint64_t s = 7;
    for (int64_t j = 0; j < cols * SPMM_K; j++)
        x[j] = spx_test_rand(&s);
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++)
        check_format(A, formats[f], SPX_OP_SPMV, x, 0);
    check_format(A, "ref", SPX_OP_SPMM, x, SPMM_K); /* the SpMM formats, long rows split for csr */
    check_format(A, "csr", SPX_OP_SPMM, x, SPMM_K);
    check_format(A, "ref", SPX_OP_SDDMM, x, SPMM_K); /* X = Y: A is 20000 x 60000 */
    check_format(A, "csr", SPX_OP_SDDMM, x, SPMM_K);
    free(x);
    spx_matrix_destroy(A);
    check_solves();
    return spx_test_finish();
}
