/* SELL-C-sigma against the long-double reference, across chunk heights C,
 * sorting windows sigma, kernels (every ISA this CPU has), thread counts and
 * precisions. Tolerance: |y - ref|_inf <= 16 * sqrt(rmax + 1) * eps * s, with
 * s = max_i (|alpha| |A| |x| + |beta| |y0|)_i, eps of the plan's precision and
 * rmax the longest row (accumulation error grows with row length, about as its
 * square root for these random values; the factor 16 absorbs the rest). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cpu/isa.h"

static const char *const isas[] = {"scalar", "avx2", "avx512"};
static int have_isa[3];

typedef struct matrix_case {
    const char *name;
    spx_matrix *A;
} matrix_case;

/* One plan (format sell, params, precision t, threads) checked for three
 * (alpha, beta) pairs; beta = 0 runs with NaN in y. Returns nonzero if all pass. */
static int check_plan(const matrix_case *mc, const char *params, spx_type t, int threads)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(mc->A, &rows, &cols, &nnz);
    const double eps = t == SPX_F64 ? 0x1p-52 : 0x1p-23;
    const double tol = 16.0 * sqrt((double)spx_test_longest_row(mc->A, SPX_OP_N) + 1.0) * eps;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "sell";
    o.params = params;
    o.precision = t;
    o.threads = threads;
    spx_plan *P = NULL;
    if (!CHECK_STATUS(spx_plan_create(mc->A, SPX_OP_SPMV, &o, &P), SPX_OK)) return 0;
    size_t n = (size_t)(rows > cols ? rows : cols) + 1;
    double *x = malloc(n * sizeof *x), *y0 = malloc(n * sizeof *y0);
    double *ref = malloc(n * sizeof *ref), *scale = malloc(n * sizeof *scale);
    double *y = malloc(n * sizeof *y);
    float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf);
    uint64_t seed = 42;
    for (size_t i = 0; i < n; i++) {
        x[i] = spx_test_rand(&seed);
        y0[i] = spx_test_rand(&seed);
        if (t == SPX_F32) x[i] = (float)x[i], y0[i] = (float)y0[i];
        xf[i] = (float)x[i];
    }
    static const double ab[3][2] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}};
    int ok = 1;
    for (int k = 0; k < 3 && ok; k++) {
        double alpha = ab[k][0], beta = ab[k][1];
        spx_test_reference(mc->A, SPX_OP_N, alpha, x, beta, y0, ref, scale);
        for (int64_t i = 0; i < rows; i++) {
            y[i] = beta == 0.0 ? NAN : y0[i];
            yf[i] = (float)y[i];
        }
        ok &= CHECK_STATUS(spx_spmv(P, alpha, t == SPX_F64 ? (void *)x : (void *)xf, beta,
                                    t == SPX_F64 ? (void *)y : (void *)yf),
                           SPX_OK);
        if (t == SPX_F32)
            for (int64_t i = 0; i < rows; i++)
                y[i] = yf[i];
        ok &=
            spx_test_close(y, ref, scale, rows, tol, "%s params=%s %s threads=%d alpha=%g beta=%g",
                           mc->name, params, t == SPX_F64 ? "f64" : "f32", threads, alpha, beta);
    }
    free(x), free(y0), free(ref), free(scale), free(y), free(xf), free(yf);
    spx_plan_destroy(P);
    return ok;
}

/* Every (C, sigma, isa) combination the CPU runs, fp64 and fp32, 1-3 threads,
 * with long rows kept in the chunks (long=0) or summed apart (rows above 16,
 * or above 4096 for the matrix with the row of 100000), with and without the
 * x prefetch (xpf). */
static void check_sweep(const matrix_case *mc, int full)
{
    static const int cs[] = {1, 2, 4, 8, 16, 32, 64};
    static const long sigmas[] = {1, 4, 256, 1L << 30};
    char params[96];
    for (int i = 0; i < 3; i++) {
        if (!have_isa[i]) continue;
        for (size_t a = 0; a < sizeof cs / sizeof *cs; a++)
            for (size_t b = 0; b < sizeof sigmas / sizeof *sigmas; b++) {
                if (!full && (cs[a] == 1 || cs[a] == 64 || sigmas[b] == 4)) continue;
                snprintf(params, sizeof params, "c=%d,sigma=%ld,isa=%s,long=%d,xpf=%d", cs[a],
                         sigmas[b], isas[i], full ? 16 * (int)(b % 2) : 4096 * (int)(b % 2),
                         (int)(a % 2));
                int th = 1 + (int)((a + b) % 3);
                check_plan(mc, params, SPX_F64, th);
                check_plan(mc, params, SPX_F32, th);
            }
    }
    check_plan(mc, NULL, SPX_F64, 0);
    check_plan(mc, NULL, SPX_F32, 0);
}

static void check_generated(void)
{
    static const int64_t three[] = {3};
    matrix_case cases[] = {
        {"varied 1000x701 with empty rows", spx_test_varied_matrix(1000, 701, 41.0, 1)},
        {"one row of 100003 in 3001x100003", spx_test_dense_row_matrix(3001, 100003, 123, 2, 2)},
        {"wide 37x1001", spx_test_varied_matrix(37, 1001, 41.0, 3)},
        {"tall 1003x5", spx_test_pattern_matrix(1003, 5, three, 1, 4)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (!cases[i].A) continue;
        check_sweep(&cases[i], i != 1);
        spx_matrix_destroy(cases[i].A);
    }
}

/* 0x0, 5x0, 0x5 and nnz = 0: plans build and y = beta*y (0 when beta = 0). */
static void check_empty(void)
{
    static const int64_t dims[4][2] = {{0, 0}, {5, 0}, {0, 5}, {6, 4}};
    for (int d = 0; d < 4; d++) {
        spx_matrix *A = NULL;
        int64_t rp[8] = {0};
        CHECK_STATUS(spx_matrix_create_csr(dims[d][0], dims[d][1], rp, NULL, NULL, &A), SPX_OK);
        matrix_case mc = {"empty", A};
        check_plan(&mc, "c=4,sigma=8", SPX_F64, 2);
        check_plan(&mc, NULL, SPX_F32, 0);
        spx_matrix_destroy(A);
    }
}

/* Inf in x at a column only row 0 holds: padding must not turn other rows NaN. */
static void check_inf_isolated(void)
{
    int64_t rp[] = {0, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    int32_t ci[17] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(9, 9, rp, ci, NULL, &A), SPX_OK);
    double x[9] = {INFINITY, 1, 1, 1, 1, 1, 1, 1, 1}, y[9];
    char params[64];
    for (int i = 0; i < 3; i++) {
        if (!have_isa[i]) continue;
        snprintf(params, sizeof params, "c=8,sigma=1,isa=%s", isas[i]);
        spx_plan_opts o = spx_plan_opts_default();
        o.format = "sell";
        o.params = params;
        spx_plan *P = NULL;
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) continue;
        CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, y), SPX_OK);
        CHECK(isinf(y[0]));
        for (int r = 1; r < 9; r++)
            CHECK(y[r] == 1.0);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

static void check_params(void)
{
    int64_t rp[] = {0, 1, 2};
    int32_t ci[] = {0, 1};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, NULL, &A), SPX_OK);
    static const char *const bad[] = {"c=3", "c=0", "c=128", "sigma=0", "isa=sse", "k=1", "xpf=2"};
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "sell";
    spx_plan *P = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.params = bad[i];
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(P == NULL);
    }
    o.params = "c=8,sigma=16";
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        CHECK(strstr(spx_plan_describe(P), "beta=0.250") != NULL);
        CHECK(spx_plan_bytes(P) >= 8 * (sizeof(double) + sizeof(int32_t)));
        CHECK(strcmp(spx_plan_format(P), "sell") == 0);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

static void check_shared(void)
{
    static const char *const names[] = {"1138_bus", "bcsstk13", "bfly",         "c-62",
                                        "cage11",   "gemat12",  "rajat01",      "sherman3",
                                        "west0067", "zenios",   "NotreDame_www"};
    const char *dir = spx_test_matrices_dir();
    for (size_t i = 0; dir && i < sizeof names / sizeof *names; i++) {
        matrix_case mc = {names[i], spx_test_read_matrix(dir, names[i])};
        if (!mc.A) continue;
        check_plan(&mc, NULL, SPX_F64, 0);
        check_plan(&mc, NULL, SPX_F32, 0);
        check_plan(&mc, "c=4,sigma=1", SPX_F64, 2);
        check_plan(&mc, "c=16,sigma=1048576,isa=scalar", SPX_F64, 2);
        spx_matrix_destroy(mc.A);
    }
}

/* AUTO on the CPU (src/cpu/auto_cpu.c): sell, csr when few calls are expected
 * or only the portable kernels may run (SPX_ARCH=scalar). */
static void check_auto(void)
{
    int64_t rp[] = {0, 1, 2};
    int32_t ci[] = {0, 1};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, NULL, &A), SPX_OK);
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    const char *pick = spx__isa_active() == SPX__ISA_SCALAR ? "csr" : "sell";
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
        CHECK(strcmp(spx_plan_format(P), pick) == 0);
    spx_plan_destroy(P);
    o.expected_calls = 10;
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
        CHECK(strcmp(spx_plan_format(P), "csr") == 0);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

/* Which kernels this CPU runs: a plan with isa=X fails with BAD_PARAM if not. */
static void probe_isas(void)
{
    int64_t rp[] = {0, 1};
    int32_t ci[] = {0};
    spx_matrix *A = NULL;
    if (spx_matrix_create_csr(1, 1, rp, ci, NULL, &A) != SPX_OK) return;
    char params[32];
    for (int i = 0; i < 3; i++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        snprintf(params, sizeof params, "isa=%s", isas[i]);
        o.format = "sell";
        o.params = params;
        have_isa[i] = spx_plan_create(A, SPX_OP_SPMV, &o, &P) == SPX_OK;
        printf("sell kernel %s: %s\n", isas[i], have_isa[i] ? "tested" : "not on this CPU");
        spx_plan_destroy(P);
    }
    CHECK(have_isa[0]);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (spx_test_part("shared")) check_shared();
    if (spx_test_part(NULL)) {
        probe_isas();
        check_params();
        check_auto();
        check_empty();
        check_inf_isolated();
        check_generated();
    }
    return spx_test_finish();
}
