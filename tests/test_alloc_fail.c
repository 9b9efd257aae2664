/* Allocation-failure injection: each operation is run with its 1st, 2nd, ...
 * allocation failing until it succeeds untouched. Every injected failure must
 * come back as SPX_ERR_OOM (no crash, no other status, no output), and nothing
 * may leak: the ASan build's leak checker fails this test otherwise. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"

typedef spx_status (*operation)(const spx_matrix *A, const char *arg);

static spx_status op_from_coo(const spx_matrix *A, const char *arg)
{
    int64_t ri[] = {2, 0, 1, 2, 0}, ci[] = {1, 2, 0, 1, 0};
    spx_matrix *B = NULL;
    (void)A, (void)arg;
    spx_status st = spx_matrix_from_coo(3, 4, 5, ri, ci, NULL, &B);
    spx_matrix_destroy(B);
    return st;
}

static spx_status op_transpose(const spx_matrix *A, const char *arg)
{
    spx_matrix *T = NULL;
    (void)arg;
    spx_status st = spx_matrix_transpose(A, &T);
    spx_matrix_destroy(T);
    return st;
}

static spx_status op_copy_f32(const spx_matrix *A, const char *arg)
{
    spx_matrix *T = NULL;
    (void)arg;
    spx_status st = spx_matrix_copy(A, SPX_F32, &T);
    spx_matrix_destroy(T);
    return st;
}

/* Plan creation and one product with format arg, op N and op T. */
static spx_status op_plan(const spx_matrix *A, const char *arg)
{
    int64_t rows, cols;
    spx_matrix_dims(A, &rows, &cols, NULL);
    double *x = calloc((size_t)(rows + cols + 1), sizeof *x);
    double *y = calloc((size_t)(rows + cols + 1), sizeof *y);
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = arg;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_spmv(P, 1.0, x, 0.0, y);
    spx_plan_destroy(P);
    P = NULL;
    o.op = SPX_OP_T;
    if (st == SPX_OK) st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    spx_plan_destroy(P);
    free(x);
    free(y);
    return st;
}

/* op_plan on a fresh wrap of A's arrays with 32-bit row offsets (offsets32):
 * the widened copy a format asks for may fail too. */
static const int32_t *offsets32;

static spx_status op_plan_wrap32(const spx_matrix *A, const char *arg)
{
    int64_t rows, cols;
    const void *ci, *v;
    int bits;
    spx_type t;
    spx_matrix *W = NULL;
    spx_matrix_dims(A, &rows, &cols, NULL);
    spx_matrix_csr(A, NULL, &ci, &bits, &v, &t);
    spx_status st = spx_matrix_wrap(rows, cols, offsets32, 32, ci, bits, v, t, &W);
    if (st == SPX_OK) st = op_plan(W, arg);
    spx_matrix_destroy(W);
    return st;
}

static spx_status op_read(const spx_matrix *A, const char *arg)
{
    spx_matrix *B = NULL;
    (void)A;
    spx_status st = spx_matrix_read(arg, &B);
    spx_matrix_destroy(B);
    return st;
}

static spx_status op_generate(const spx_matrix *A, const char *arg)
{
    spx_matrix *B = NULL;
    (void)A;
    spx_status st = spx_generate(arg, &B);
    spx_matrix_destroy(B);
    return st;
}

static spx_status op_spgemm(const spx_matrix *A, const char *arg)
{
    spx_matrix *C = NULL;
    (void)arg;
    spx_status st = spx_spgemm(A, A, NULL, &C);
    spx_matrix_destroy(C);
    return st;
}

static spx_status op_stats(const spx_matrix *A, const char *arg)
{
    spx_stats s;
    (void)arg;
    return spx_matrix_stats(A, &s);
}

/* Run op with the n-th allocation failing, n = 1, 2, ... until it succeeds. */
static void walk(const char *what, operation op, const spx_matrix *A, const char *arg)
{
    long n;
    for (n = 1; n < 100000; n++) {
        spx__alloc_fail_at(n);
        spx_status st = op(A, arg);
        long made = spx__alloc_fail_at(0);
        if (st == SPX_OK && made < n) break; /* ran without reaching the failure */
        if (st == SPX_OK) continue;          /* the failing allocation was optional */
        if (!CHECK_STATUS(st, SPX_ERR_OOM)) {
            fprintf(stderr, "  %s %s: allocation %ld failing gave another status\n", what,
                    arg ? arg : "", n);
            return;
        }
    }
    CHECK(op(A, arg) == SPX_OK);
    printf("%-10s %-24s %ld allocations failed in turn\n", what, arg ? arg : "", n - 1);
}

int main(void)
{
    /* A square matrix with empty rows, a long row and duplicates summed. */
    int64_t ri[64], ci[64];
    double v[64];
    int n = 0;
    for (int k = 0; k < 40; k++, n++)
        ri[n] = 3, ci[n] = k, v[n] = k + 1;
    for (int k = 0; k < 24; k++, n++)
        ri[n] = (k * 7) % 40, ci[n] = (k * 13) % 40, v[n] = -k;
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_matrix_from_coo(40, 40, n, ri, ci, v, &A), SPX_OK))
        return spx_test_finish();
    /* A + A^T, for the formats that take only symmetric matrices (sym). */
    int64_t sri[128], sci[128];
    double sv[128];
    for (int k = 0; k < n; k++) {
        sri[k] = ri[k], sci[k] = ci[k], sv[k] = v[k];
        sri[n + k] = ci[k], sci[n + k] = ri[k], sv[n + k] = v[k];
    }
    spx_matrix *S = NULL;
    CHECK_STATUS(spx_matrix_from_coo(40, 40, 2 * n, sri, sci, sv, &S), SPX_OK);

    walk("from_coo", op_from_coo, A, NULL);
    walk("transpose", op_transpose, A, NULL);
    walk("copy", op_copy_f32, A, NULL);
    walk("stats", op_stats, A, NULL);
    walk("spgemm", op_spgemm, A, NULL);
    walk("generate", op_generate, A, "lap2d5:6");
    walk("generate", op_generate, A, "rmat:scale=6,ef=4,seed=3");
    char path[4096];
    snprintf(path, sizeof path, "%s/alloc_fail.mtx", spx_test_data_dir());
    walk("read", op_read, A, path);
    const int64_t *rp;
    int32_t rp32[41];
    spx_matrix_csr(A, &rp, NULL, NULL, NULL, NULL);
    for (int i = 0; i <= 40; i++)
        rp32[i] = (int32_t)rp[i];
    offsets32 = rp32;
    for (int f = 0; f < spx_format_count(); f++) {
        const char *name;
        unsigned devices, precisions;
        if (spx_test_spmv_format(f, &name, &devices, &precisions) && (devices & SPX_DEV_CPU) &&
            (precisions & 1u)) {
            if (op_plan(A, name) != SPX_ERR_UNSUPPORTED) { /* sym declines A */
                walk("plan", op_plan, A, name);
                walk("plan int32", op_plan_wrap32, A, name);
            }
            if (S) walk("plan A+A^T", op_plan, S, name);
        }
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(S);
    return spx_test_finish();
}
