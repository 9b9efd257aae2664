/* The dasp F64 mma shapes (src/cuda/dasp/dasp_kernels.cu, param mma) on a
 * GPU: mma=8|16 put 2 or 4 chunks of a batch through one mma.sync m16n8k8 /
 * m16n8k16 (A's rows 8..15 zero) instead of one m8n8k4 per chunk: the same
 * products, summed in an order the PTX ISA leaves to the hardware, so y may
 * differ from mma=4's by rounding: each must be within C_F64 of the long-double
 * reference (tests/common.h) and within 2 C_F64 of mma=4; the rows that differ
 * from mma=4 at all are counted and printed (none on an H100). A second plan
 * of the same params gives the same bits; F16 ignores mma (its default's
 * bits). On matrices with long rows (several tasks, partial batches), heavy
 * row-blocks, medium rows of 5..68 (light row-blocks of 1..17 chunks, every
 * batch remainder), short rows, a varied random matrix, with pass2 and loop
 * variants, and (part "shared", tests/common.h) the shared matrices (not with
 * SPX_TEST_QUICK=1, the mode for compute-sanitizer). Bad values are refused.
 * Without a GPU it skips (test_core checks that CUDA plans are refused).
 *
 * Also the register caps of the F64 m8n8k4 kernel (param regs=54|48|40|auto):
 * the same code under ptxas register limits, so regs=48, 40 and auto must give
 * regs=54's bits exactly (and be within C_F64 of the reference), on every
 * matrix above (both betas) and on two of medium rows sized to fall between
 * one and two waves of the uncapped kernel on an H100 (5000 and 6000 warps:
 * auto caps the first at 48 registers there, not the second; not with
 * SPX_TEST_QUICK=1);
 * F16 ignores regs.
 *
 * Tolerance, |y - ref|_inf <= c * (|alpha||A||x| + |beta||y0|)_inf: F64
 * c = C_F64 = 32 * 2^-53 (as tests/test_dasp.c); F16 (values in half, fp32
 * sums) c = C_F16 = 2^-11 + 128 * 2^-24 on matrices with values far from
 * half's subnormals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"

#define C_F64 (32.0 * 0x1p-53)
#define C_F16 (0x1p-11 + 128.0 * 0x1p-24)

static int quick(void)
{
    const char *q = getenv("SPX_TEST_QUICK");
    return q && *q == '1';
}

/* A test matrix (tests/common.h) with its values moved into [0.25, 1) in
 * size, signs kept: no half subnormals. */
static spx_matrix *no_subnormals(spx_matrix *A)
{
    double *v = A ? (double *)A->values : NULL;
    for (int64_t k = 0; A && k < A->nnz; k++)
        v[k] = copysign(0.25 + 0.75 * fabs(v[k]), v[k]);
    return A;
}

/* Row lengths pat[i % np]. */
static spx_matrix *pattern(int64_t rows, int64_t cols, const int64_t *pat, int np,
                           uint64_t seed)
{
    return no_subnormals(spx_test_pattern_matrix(rows, cols, pat, np, seed));
}

/* Lengths floor(maxlen^u) - 1, u uniform: many short rows, a long tail. */
static spx_matrix *varied(int64_t rows, int64_t cols, double maxlen, uint64_t seed)
{
    return no_subnormals(spx_test_varied_matrix(rows, cols, maxlen, seed));
}

/* One problem: x, y0, the reference and its scale, in double. */
typedef struct problem {
    const spx_matrix *A;
    const char *name;
    int64_t m, n;
    double alpha, beta, smax;
    double *x, *y0, *ref, *scale;
} problem;

static void problem_init(problem *p, const spx_matrix *A, const char *name, double alpha,
                         double beta)
{
    uint64_t seed = 77;
    p->A = A;
    p->name = name;
    p->alpha = alpha;
    p->beta = beta;
    spx_matrix_dims(A, &p->m, &p->n, NULL);
    p->x = malloc(sizeof(double) * (size_t)(p->n + 1));
    p->y0 = malloc(sizeof(double) * (size_t)(p->m + 1));
    p->ref = malloc(sizeof(double) * (size_t)(p->m + 1));
    p->scale = malloc(sizeof(double) * (size_t)(p->m + 1));
    /* float-exact x and y0, so that the F16 plans see the same vectors */
    for (int64_t j = 0; j < p->n; j++) p->x[j] = (float)spx_test_rand(&seed);
    for (int64_t i = 0; i < p->m; i++)
        p->y0[i] = beta == 0.0 ? NAN : (float)spx_test_rand(&seed);
    spx_test_reference(A, SPX_OP_N, alpha, p->x, beta, p->y0, p->ref, p->scale);
    p->smax = 0.0;
    for (int64_t i = 0; i < p->m; i++) p->smax = p->scale[i] > p->smax ? p->scale[i] : p->smax;
}

static void problem_free(problem *p)
{
    free(p->x), free(p->y0), free(p->ref), free(p->scale);
}

/* y (double, m) of a dasp plan with params at precision t; 0 if it failed. */
static int run(const problem *p, spx_type t, const char *params, double *y)
{
    int f = t == SPX_F16;
    size_t es = f ? sizeof(float) : sizeof(double);
    void *xv = malloc(es * (size_t)(p->n + 1)), *yv = malloc(es * (size_t)(p->m + 1));
    for (int64_t j = 0; j < p->n; j++)
        if (f) ((float *)xv)[j] = (float)p->x[j];
        else ((double *)xv)[j] = p->x[j];
    for (int64_t i = 0; i < p->m; i++)
        if (f) ((float *)yv)[i] = (float)p->y0[i];
        else ((double *)yv)[i] = p->y0[i];
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "dasp";
    o.device = SPX_DEV_CUDA;
    o.precision = t;
    o.params = params;
    spx_plan *P = NULL;
    int ok = CHECK_STATUS(spx_plan_create(p->A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
             CHECK_STATUS(spx_spmv_host(P, p->alpha, xv, p->beta, yv), SPX_OK);
    if (!ok) fprintf(stderr, "  dasp %s on %s failed: %s\n", params, p->name, spx_last_error());
    for (int64_t i = 0; ok && i < p->m; i++) y[i] = f ? ((float *)yv)[i] : ((double *)yv)[i];
    spx_plan_destroy(P);
    free(xv);
    free(yv);
    return ok;
}

/* max |a - b| / smax, NaN if either has a NaN; *differ: rows not bit-equal. */
static double distance(const problem *p, const double *a, const double *b, int64_t *differ)
{
    double d = 0.0;
    *differ = 0;
    for (int64_t i = 0; i < p->m; i++) {
        if (isnan(a[i]) || isnan(b[i])) return NAN;
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0) ++*differ;
        double e = fabs(a[i] - b[i]);
        d = e > d ? e : d;
    }
    return p->smax > 0.0 ? d / p->smax : d;
}

/* The F64 shapes on p: each against the reference, mma=8|16 within 2 C_F64
 * of mma=4 (differing rows counted and shown), a second plan bit-equal. */
static void check_f64(const problem *p)
{
    static const char *const shapes[] = {"mma=4", "mma=8", "mma=16"};
    double *base = malloc(sizeof(double) * (size_t)(p->m + 1));
    double *y = malloc(sizeof(double) * (size_t)(p->m + 1));
    double *v = malloc(sizeof(double) * (size_t)(p->m + 1));
    for (int k = 0; k < 3; k++) {
        double *out = k == 0 ? base : y;
        if (!run(p, SPX_F64, shapes[k], out)) continue;
        double err = spx_test_rel_err(out, p->ref, p->scale, p->m);
        spx_test_close(out, p->ref, p->scale, p->m, C_F64, "%s on %s", shapes[k], p->name);
        int64_t differ = 0;
        if (k > 0) {
            double d = distance(p, y, base, &differ);
            if (!CHECK(d <= 2 * C_F64))
                fprintf(stderr, "  %s on %s: %.3g from mma=4\n", shapes[k], p->name, d);
            printf("  %-22s %-7s error %.2e, %lld of %lld rows differ from mma=4 (%.2e)\n",
                   p->name, shapes[k], err, (long long)differ, (long long)p->m, d);
        }
        if (!run(p, SPX_F64, shapes[k], v)) continue;
        double d = distance(p, v, out, &differ);
        if (!CHECK(differ == 0))
            fprintf(stderr, "  %s on %s: %lld rows differ in a second plan (%.3g)\n", shapes[k],
                    p->name, (long long)differ, d);
    }
    free(base);
    free(y);
    free(v);
}

/* regs=48|40|auto: regs=54's bits; each within C_F64 of the reference. */
static void check_regs(const problem *p)
{
    static const char *const caps[] = {"regs=54", "regs=48", "regs=40", "regs=auto"};
    double *base = malloc(sizeof(double) * (size_t)(p->m + 1));
    double *y = malloc(sizeof(double) * (size_t)(p->m + 1));
    for (int k = 0; k < 4; k++) {
        double *out = k == 0 ? base : y;
        if (!run(p, SPX_F64, caps[k], out)) {
            if (k == 0) break;
            continue;
        }
        spx_test_close(out, p->ref, p->scale, p->m, C_F64, "%s on %s", caps[k], p->name);
        if (k == 0) continue;
        int64_t differ = 0;
        double d = distance(p, y, base, &differ);
        if (!CHECK(differ == 0))
            fprintf(stderr, "  %s on %s: %lld rows differ from regs=54 (%.3g)\n", caps[k],
                    p->name, (long long)differ, d);
    }
    free(base);
    free(y);
}

/* F16 ignores mma and regs: its default's bits. */
static void check_f16(const problem *p)
{
    static const char *const params[] = {"mma=8", "mma=16", "regs=40"};
    double *base = malloc(sizeof(double) * (size_t)(p->m + 1));
    double *v = malloc(sizeof(double) * (size_t)(p->m + 1));
    if (run(p, SPX_F16, NULL, base)) {
        spx_test_close(base, p->ref, p->scale, p->m, C_F16, "f16 on %s", p->name);
        for (int k = 0; k < 3; k++) {
            int64_t differ = 0;
            if (!run(p, SPX_F16, params[k], v)) continue;
            double d = distance(p, v, base, &differ);
            if (!CHECK(differ == 0))
                fprintf(stderr, "  f16 %s on %s: %lld rows differ (%.3g)\n", params[k], p->name,
                        (long long)differ, d);
        }
    }
    free(base);
    free(v);
}

/* Both precisions, beta != 0 and beta == 0 (y0 NaN: must not leak). */
static void check_all(const char *name, spx_matrix *A, int f16)
{
    if (!A) return;
    problem p;
    problem_init(&p, A, name, 1.5, -0.5);
    check_f64(&p);
    check_regs(&p);
    if (f16) check_f16(&p);
    problem_free(&p);
    problem_init(&p, A, name, -1.0, 0.0);
    check_f64(&p);
    check_regs(&p);
    problem_free(&p);
    spx_matrix_destroy(A);
}

/* Also with the task partials added by a second launch, and loop_num 1 and 4. */
static void check_modes(void)
{
    spx_matrix *A = varied(6000, 9000, 900.0, 31);
    static const char *const params[] = {"mma=16,pass2=1",  "mma=8,pass2=1",  "mma=16,pass2=0",
                                         "mma=16,loop=1",   "mma=16,loop=4",  "mma=8,loop=2",
                                         "regs=40,pass2=1", "regs=48,pass2=0", "regs=40,loop=4",
                                         "regs=48,loop=2"};
    problem p;
    problem_init(&p, A, "varied 6000, modes", 2.0, 0.5);
    double *y = malloc(sizeof(double) * (size_t)(p.m + 1));
    for (int k = 0; k < 10; k++) {
        if (!run(&p, SPX_F64, params[k], y)) continue;
        spx_test_close(y, p.ref, p.scale, p.m, C_F64, "%s", params[k]);
    }
    free(y);
    problem_free(&p);
    spx_matrix_destroy(A);
}

static void check_bad_params(void)
{
    static const int64_t one[] = {7};
    spx_matrix *A = pattern(16, 16, one, 1, 5);
    static const char *const bad[] = {"mma=0",          "mma=2",          "mma=6",
                                      "mma=12",         "mma=32",         "mma=-4",
                                      "mma=",           "mma=x",          "regs=0",
                                      "regs=32",        "regs=50",        "regs=56",
                                      "regs=",          "regs=max",       "mma=8,regs=48",
                                      "mma=16,regs=40", "regs=40,mma=16", "regs=64"};
    static const char *const good[] = {"regs=auto", "regs=54", "mma=16,regs=54", "regs=40",
                                       "regs=48,mma=4"};
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "dasp";
    o.device = SPX_DEV_CUDA;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        spx_plan *P = NULL;
        o.params = bad[k];
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM))
            fprintf(stderr, "  %s accepted\n", bad[k]);
        CHECK(P == NULL);
        spx_plan_destroy(P);
    }
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        spx_plan *P = NULL;
        o.params = good[k];
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
            fprintf(stderr, "  %s refused: %s\n", good[k], spx_last_error());
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

static void hand_cases(void)
{
    /* long rows: several tasks, a last task of 1..7 chunks, short rows beside */
    static const int64_t longs[] = {100000, 10000, 3000, 257, 1, 1000, 4, 2337, 300, 0};
    check_all("long rows", pattern(40, 200000, longs, 10, 1), 1);
    /* heavy row-blocks: rows of 129..256, 8 of them are >16 chunks */
    static const int64_t heavy[] = {256, 250, 240, 230, 200, 180, 150, 129};
    check_all("heavy row-blocks", pattern(400, 5000, heavy, 8, 2), 1);
    /* medium rows: light row-blocks of 1..16 chunks, all batch remainders */
    static const int64_t medium[] = {5, 6, 7, 8, 9, 12, 13, 16, 17, 20, 24, 28, 31, 33, 40, 64};
    check_all("medium rows", pattern(2000, 3000, medium, 16, 3), 1);
    for (int64_t len = 5; len <= 68; len += 9) { /* one length each: 2..17 chunks a block */
        int64_t l[1] = {len};
        check_all("medium, one length", pattern(96, 800, l, 1, 4 + (uint64_t)len), 0);
    }
    /* short rows: every piecing case, singletons, empty rows */
    static const int64_t shorts[] = {1, 2, 3, 4, 3, 1, 2, 0, 1, 3, 4, 4};
    check_all("short rows", pattern(1000, 700, shorts, 12, 5), 1);
    check_all("varied 20000", varied(20000, 30000, 2000.0, 6), 1);
    /* rows of 8: one warp per row-block of 8 rows (loop 1 below 59,990 rows);
     * 5000 and 6000 warps, between 1 and 2 waves of 36 warps on 132 SMs */
    static const int64_t eight[] = {8};
    if (quick()) return;
    check_all("medium, 5000 warps", pattern(40000, 40000, eight, 1, 7), 0);
    check_all("medium, 6000 warps", pattern(48000, 48000, eight, 1, 8), 0);
}

static void shared_cases(void)
{
    static const char *const names[] = {"xenon1", "TSOPF_RS_b39_c30", "cage11", "NotreDame_www",
                                        "sinc18", "c-62", "bcsstk28", "delaunay_n16"};
    const char *dir = spx_test_matrices_dir();
    for (size_t k = 0; dir && k < sizeof names / sizeof *names; k++) {
        spx_matrix *A = spx_test_read_matrix(dir, names[k]);
        if (!A) continue;
        problem p;
        problem_init(&p, A, names[k], 1.5, -0.5);
        check_f64(&p);
        check_regs(&p);
        problem_free(&p);
        spx_matrix_destroy(A);
    }
}

int main(void)
{
    if (!spx_test_require_cuda("dasp kernel variants not run")) return spx_test_finish();
    if (spx_test_part(NULL)) {
        check_bad_params();
        hand_cases();
        check_modes();
    }
    if (spx_test_part("shared")) {
        if (quick())
            spx_test_skip("SPX_TEST_QUICK: shared matrices not run");
        else
            shared_cases();
    }
    return spx_test_finish();
}
