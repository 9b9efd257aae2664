/* sym (src/cpu/sym.c): SpMV of a symmetric matrix from its lower half.
 *   - against the long-double reference, fp64 and fp32, 1, 2, 3, 4 and 7
 *     threads, with and without prefetch, on matrices whose mirror terms stay
 *     near the diagonal (band 40), spread over every column (band n), with
 *     empty rows and rows without a diagonal entry, and a Laplacian;
 *     three (alpha, beta) pairs, beta = 0 with NaN in y;
 *   - the same bits every call, and from a second plan, for a thread count;
 *   - two calls at once on one plan (the second takes buffers of its own):
 *     each gives the bits of a call alone;
 *   - op T computes op N;
 *   - declines: not square, pattern or values not symmetric;
 *   - spx_plan_update_values: new symmetric values give a new plan's bits,
 *     asymmetric ones are refused and leave the plan as it was;
 *   - AUTO's rule on a matrix past a cache said small (SPX_LLC_BYTES).
 * Tolerance as test_sell.c: 16 sqrt(rmax + 1) eps of the plan's precision,
 * relative to max_i (|alpha| |A| |x| + |beta| |y0|)_i. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct sym_case {
    const char *name;
    spx_matrix *A;
} sym_case;

static spx_plan *make_plan(const spx_matrix *A, spx_type t, int threads, const char *params,
                           spx_op op)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "sym";
    o.precision = t;
    o.threads = threads;
    o.params = params;
    o.op = op;
    spx_plan *P = NULL;
    if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) return NULL;
    return P;
}

/* y = alpha A x + beta y0 by P, into y (as doubles); t the plan's type. */
static int run(const spx_plan *P, spx_type t, int64_t n, double alpha, const double *x, double beta,
               const double *y0, double *y)
{
    float *xf = calloc((size_t)(n + 1), sizeof *xf), *yf = calloc((size_t)(n + 1), sizeof *yf);
    for (int64_t i = 0; i < n; i++) {
        y[i] = beta == 0.0 ? NAN : y0[i];
        xf[i] = (float)x[i];
        yf[i] = (float)y[i];
    }
    int ok = CHECK_STATUS(spx_spmv(P, alpha, t == SPX_F64 ? (const void *)x : (const void *)xf,
                                   beta, t == SPX_F64 ? (void *)y : (void *)yf),
                          SPX_OK);
    if (t == SPX_F32)
        for (int64_t i = 0; i < n; i++)
            y[i] = yf[i];
    free(xf), free(yf);
    return ok;
}

static double *random_vector(int64_t n, uint64_t seed, spx_type t)
{
    double *v = malloc(sizeof *v * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = t == SPX_F32 ? (float)spx_test_rand(&seed) : spx_test_rand(&seed);
    return v;
}

/* One plan against the reference for three (alpha, beta), and its bits
 * again from the same plan and from a second one. */
static void check_plan(const sym_case *c, spx_type t, int threads, const char *params, spx_op op)
{
    int64_t n, cols, nnz;
    spx_matrix_dims(c->A, &n, &cols, &nnz);
    spx_plan *P = make_plan(c->A, t, threads, params, op),
             *Q = make_plan(c->A, t, threads, params, op);
    if (!P || !Q) {
        spx_plan_destroy(P), spx_plan_destroy(Q);
        return;
    }
    const double eps = t == SPX_F64 ? 0x1p-52 : 0x1p-23;
    const double tol = 16.0 * sqrt((double)spx_test_longest_row(c->A, SPX_OP_N) + 1.0) * eps;
    double *x = random_vector(n, 7, t), *y0 = random_vector(n, 8, t);
    double *y = malloc(sizeof *y * (size_t)(n + 1)), *again = malloc(sizeof *y * (size_t)(n + 1));
    double *ref = malloc(sizeof *ref * (size_t)(n + 1)),
           *scale = malloc(sizeof *ref * (size_t)(n + 1));
    static const double ab[3][2] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0}};
    for (int k = 0; k < 3; k++) {
        spx_test_reference(c->A, SPX_OP_N, ab[k][0], x, ab[k][1], y0, ref, scale);
        run(P, t, n, ab[k][0], x, ab[k][1], y0, y);
        spx_test_close(y, ref, scale, n, tol, "%s %s threads=%d params=%s op=%s alpha=%g beta=%g",
                       c->name, t == SPX_F64 ? "f64" : "f32", threads, params ? params : "-",
                       op == SPX_OP_T ? "T" : "N", ab[k][0], ab[k][1]);
        run(P, t, n, ab[k][0], x, ab[k][1], y0, again);
        CHECK(memcmp(y, again, sizeof *y * (size_t)n) == 0);
        run(Q, t, n, ab[k][0], x, ab[k][1], y0, again);
        CHECK(memcmp(y, again, sizeof *y * (size_t)n) == 0);
    }
    free(x), free(y0), free(y), free(again), free(ref), free(scale);
    spx_plan_destroy(P), spx_plan_destroy(Q);
}

static void check_case(const sym_case *c)
{
    static const int threads[] = {1, 2, 3, 4, 7};
    for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
        check_plan(c, SPX_F64, threads[k], k % 2 ? "prefetch=256" : NULL, SPX_OP_N);
        check_plan(c, SPX_F32, threads[k], k % 2 ? NULL : "prefetch=3", SPX_OP_N);
    }
    check_plan(c, SPX_F64, 3, NULL, SPX_OP_T);
    check_plan(c, SPX_F64, 0, NULL, SPX_OP_N);
}

/* Two calls at once on one plan. */
typedef struct concurrent_call {
    const spx_plan *P;
    int64_t n;
    const double *x;
    double *y;
    int rounds;
} concurrent_call;

static void *call_many(void *arg)
{
    concurrent_call *c = arg;
    for (int r = 0; r < c->rounds; r++)
        if (spx_spmv(c->P, 1.0, c->x, 0.0, c->y + (size_t)r * (size_t)c->n) != SPX_OK) break;
    return NULL;
}

static void check_concurrent(const spx_matrix *A)
{
    int64_t n, cols, nnz;
    spx_matrix_dims(A, &n, &cols, &nnz);
    spx_plan *P = make_plan(A, SPX_F64, 3, NULL, SPX_OP_N);
    if (!P) return;
    enum { ROUNDS = 20 };
    double *x = random_vector(n, 11, SPX_F64), *alone = malloc(sizeof *alone * (size_t)n);
    double *ys[2];
    concurrent_call calls[2];
    pthread_t th[2];
    CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, alone), SPX_OK);
    for (int k = 0; k < 2; k++) {
        ys[k] = calloc((size_t)n * ROUNDS, sizeof(double));
        calls[k] = (concurrent_call){P, n, x, ys[k], ROUNDS};
        pthread_create(&th[k], NULL, call_many, &calls[k]);
    }
    int same = 1;
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        for (int r = 0; r < ROUNDS; r++)
            same &= memcmp(ys[k] + (size_t)r * (size_t)n, alone, sizeof *alone * (size_t)n) == 0;
        free(ys[k]);
    }
    CHECK(same);
    free(x), free(alone);
    spx_plan_destroy(P);
}

static void check_declines(void)
{
    int64_t ri[] = {0, 1, 1}, ci[] = {1, 0, 2};
    double v[] = {1.0, 1.0, 2.0}, w[] = {1.0, 2.0, 2.0};
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "sym";
    spx_plan *P = NULL;
    spx_matrix *rect = spx_test_coo_matrix(2, 3, 3, ri, ci, v);
    spx_matrix *pattern = spx_test_coo_matrix(3, 3, 3, ri, ci, v); /* (1,2) without (2,1) */
    spx_matrix *values = spx_test_coo_matrix(3, 3, 2, ri, ci, w);  /* a_01 = 1, a_10 = 2 */
    CHECK_STATUS(spx_plan_create(rect, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(strstr(spx_last_error(), "not square") != NULL);
    CHECK_STATUS(spx_plan_create(pattern, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(strstr(spx_last_error(), "not symmetric") != NULL);
    CHECK_STATUS(spx_plan_create(values, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK(P == NULL);
    int64_t lri[] = {0, 1, 2}, lci[] = {1, 0, 1}; /* (2,1) below without (1,2) */
    spx_matrix *lower = spx_test_coo_matrix(3, 3, 3, lri, lci, v);
    CHECK_STATUS(spx_plan_create(lower, SPX_OP_SPMV, &o, &P), SPX_ERR_UNSUPPORTED);
    spx_matrix_destroy(lower);
    o.params = "prefetch=-1";
    CHECK_STATUS(spx_plan_create(pattern, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    o.params = "sigma=4";
    CHECK_STATUS(spx_plan_create(pattern, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
    spx_matrix_destroy(rect), spx_matrix_destroy(pattern), spx_matrix_destroy(values);
}

/* New values: A's with every entry scaled by 1 + its row + column (kept
 * symmetric), then one mirror pair broken. */
static void check_update(const spx_matrix *A, spx_type t)
{
    int64_t n, cols, nnz;
    const int64_t *rp;
    const void *ci, *av;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &n, &cols, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &av, &vt);
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    double *nv = malloc(sizeof *nv * (size_t)(nnz + 1));
    void *tv = malloc(es * (size_t)(nnz + 1));
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            const int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            nv[k] = ((const double *)av)[k] * (double)(1 + i + j) * 0.125;
        }
    for (int64_t k = 0; k < nnz; k++)
        if (t == SPX_F64)
            ((double *)tv)[k] = nv[k];
        else
            ((float *)tv)[k] = (float)nv[k];
    spx_matrix *B = NULL;
    CHECK_STATUS(spx_matrix_create_csr(n, n, rp, ci, nv, &B), SPX_OK);
    spx_plan *P = make_plan(A, t, 3, NULL, SPX_OP_N),
             *Q = B ? make_plan(B, t, 3, NULL, SPX_OP_N) : NULL;
    double *x = random_vector(n, 5, t), *y0 = random_vector(n, 6, t);
    double *yp = malloc(sizeof *yp * (size_t)(n + 1)), *yq = malloc(sizeof *yq * (size_t)(n + 1));
    if (P && Q) {
        CHECK_STATUS(spx_plan_update_values(P, tv), SPX_OK);
        run(P, t, n, 1.5, x, -0.5, y0, yp);
        run(Q, t, n, 1.5, x, -0.5, y0, yq);
        CHECK(memcmp(yp, yq, sizeof *yp * (size_t)n) == 0);
        /* break the first entry below the diagonal's mirror pair */
        for (int64_t i = 0, done = 0; i < n && !done; i++)
            for (int64_t k = rp[i]; k < rp[i + 1] && !done; k++) {
                const int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
                if (j >= i) continue;
                if (t == SPX_F64)
                    ((double *)tv)[k] += 1.0;
                else
                    ((float *)tv)[k] += 1.0f;
                done = 1;
            }
        CHECK_STATUS(spx_plan_update_values(P, tv), SPX_ERR_INVALID_ARG);
        CHECK(strstr(spx_last_error(), "not symmetric") != NULL);
        run(P, t, n, 1.5, x, -0.5, y0, yp);
        CHECK(memcmp(yp, yq, sizeof *yp * (size_t)n) == 0);
    }
    spx_plan_destroy(P), spx_plan_destroy(Q), spx_matrix_destroy(B);
    free(nv), free(tv), free(x), free(y0), free(yp), free(yq);
}

/* AUTO's rule (src/cpu/sym_auto.c): a 27-point Laplacian of 82 MB in csr, with the
 * cache said to be 1 MiB (SPX_LLC_BYTES), goes to sym in fp64 on 2 and 8
 * threads, and not in fp32, for 10 expected calls, nor with a cache larger
 * than the matrix. */
static const char *auto_pick(const spx_matrix *A, spx_type t, int threads, int64_t calls)
{
    static char name[32];
    spx_plan_opts o = spx_plan_opts_default();
    o.precision = t;
    o.threads = threads;
    o.expected_calls = calls;
    spx_plan *P = NULL;
    name[0] = 0;
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
        snprintf(name, sizeof name, "%s", spx_plan_format(P));
    spx_plan_destroy(P);
    return name;
}

static void check_auto(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("lap3d27:64", &A), SPX_OK)) return;
    setenv("SPX_LLC_BYTES", "1048576", 1);
    CHECK(strcmp(auto_pick(A, SPX_F64, 8, 0), "sym") == 0);
    CHECK(strcmp(auto_pick(A, SPX_F64, 8, 1000), "sym") == 0);
    CHECK(strcmp(auto_pick(A, SPX_F64, 2, 0), "sym") == 0);
    CHECK(strcmp(auto_pick(A, SPX_F32, 8, 0), "sym") != 0);
    CHECK(strcmp(auto_pick(A, SPX_F64, 8, 10), "sym") != 0);
    setenv("SPX_LLC_BYTES", "1073741824", 1);
    CHECK(strcmp(auto_pick(A, SPX_F64, 8, 0), "sym") != 0);
    unsetenv("SPX_LLC_BYTES");
    spx_matrix_destroy(A);
}

int main(void)
{
    spx_matrix *lap = NULL;
    CHECK_STATUS(spx_generate("lap3d27:12", &lap), SPX_OK);
    sym_case cases[] = {
        {"band 40, 3000 rows", spx_test_symmetric_matrix(3000, 6, 40, 1)},
        {"spread, 2000 rows", spx_test_symmetric_matrix(2000, 5, 2000, 2)},
        {"one row", spx_test_symmetric_matrix(1, 3, 1, 3)},
        {"lap3d27:12", lap},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (!cases[k].A) continue;
        check_case(&cases[k]);
    }
    check_concurrent(cases[1].A);
    check_declines();
    check_update(cases[0].A, SPX_F64);
    check_update(cases[1].A, SPX_F32);
    check_auto();
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        spx_matrix_destroy(cases[k].A);
    return spx_test_finish();
}
