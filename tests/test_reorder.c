/* reorder=rcm|degree|none, the plan parameter of every SpMV format: every CPU
 * (and, part "cuda", CUDA) format and precision x mode x op N/T x beta
 * 0/nonzero against the long-double
 * reference (tolerance (16 + sqrt(longest row)) * u, as the conformance suite)
 * on hand-made, disconnected, empty-row and (part "shared", tests/common.h)
 * shared matrices; the orderings
 * are bijections (degree: nonincreasing degrees; rcm: a shuffled band gets its
 * bandwidth back); P A P^T holds A(perm[k], perm[l]) at (k, l); bad
 * parameters are rejected; for a fixed thread count the results are the same
 * bits from plan to plan and from concurrent calls on one plan.
 * vectors=permuted: spx_plan_permutation gives a bijection (the identity
 * without an ordering), and every CPU format, precision, op and beta called
 * with x[perm], y[perm] returns the same bits as the original-order plan's
 * y, permuted; vectors=permuted without rcm or degree is rejected. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"
#include "core/matrix.h"
#include "core/order.h"

static const char *const modes[] = {"reorder=none", "reorder=rcm", "reorder=degree"};
#define NMODES 3

/* 7 x 7, unsymmetric pattern, one empty row (6) and an entry in its column. */
static spx_matrix *hand_made(void)
{
    int64_t ri[] = {0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 2, 0};
    int64_t ci[] = {0, 3, 2, 4, 5, 1, 3, 4, 0, 5, 6, 6};
    double v[] = {2, 1, -1, 0.5, 3, 4, -3, 1, -2, 1, 7, -0.25};
    return spx_test_coo_matrix(7, 7, 12, ri, ci, v);
}

/* 64 x 64 in four kinds of vertex by i % 4: two chains (one with a diagonal),
 * diagonal-only vertices, and vertices with neither row nor column entries. */
static spx_matrix *disconnected(void)
{
    int64_t ri[256], ci[256], n = 0;
    double v[256];
    for (int64_t i = 0; i < 64; i++) {
        if (i % 4 == 0 && i + 4 < 64) ri[n] = i, ci[n] = i + 4, v[n++] = 1.0 + (double)i;
        if (i % 4 == 0 && i >= 4) ri[n] = i, ci[n] = i - 4, v[n++] = -1.0;
        if (i % 4 == 1) ri[n] = i, ci[n] = i, v[n++] = 3.0;
        if (i % 4 == 1 && i + 8 < 64) ri[n] = i + 8, ci[n] = i, v[n++] = 0.5 * (double)i;
        if (i % 4 == 2) ri[n] = i, ci[n] = i, v[n++] = -2.0;
    }
    return spx_test_coo_matrix(64, 64, n, ri, ci, v);
}

/* 500 x 500 random unsymmetric, rows i % 3 == 0 empty, the others of 1 + i % 9. */
static spx_matrix *empty_rows(void)
{
    int64_t len[500];
    for (int64_t i = 0; i < 500; i++)
        len[i] = i % 3 == 0 ? 0 : 1 + i % 9;
    return spx_test_rows_matrix(500, 500, len, 7);
}

/* c_p of the conformance suite for sums of at most rmax products (fp16
 * values: their own rounding on top). */
static double tolerance(spx_type t, int64_t rmax)
{
    double c = (16.0 + sqrt((double)rmax)) * (t == SPX_F64 ? 0x1p-53 : 0x1p-24);
    return t == SPX_F16 ? c + 0x1p-10 : c;
}

static const char *precision_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

/* x rounded to IEEE half when the params ask for a half x (the reference then
 * multiplies the same numbers the plan reads). */
static void round_x_to_half(double *x, int64_t n, const char *params)
{
    if (!params || !strstr(params, "xtype=half")) return;
    for (int64_t j = 0; j < n; j++) {
        float f = (float)x[j];
        uint16_t h;
        spx_float_to_half(&f, &h, 1);
        spx_half_to_float(&h, &f, 1);
        x[j] = f;
    }
}

/* One product on the plan's device: host vectors (copied for a CUDA plan);
 * xv holds floats where the plan reads half x (converted here). */
static spx_status product(const spx_plan *P, double alpha, const void *xv, int64_t in, double beta,
                          void *yv)
{
    if (spx_plan_device(P) == SPX_DEV_CPU) return spx_spmv(P, alpha, xv, beta, yv);
    if (spx_plan_x_type(P) != SPX_F16) return spx_spmv_host(P, alpha, xv, beta, yv);
    uint16_t *xh = malloc(sizeof *xh * (size_t)(in + 1));
    spx_float_to_half(xv, xh, in);
    spx_status st = spx_spmv_host(P, alpha, xh, beta, yv);
    free(xh);
    return st;
}

/* One product of format fmt with params on A on device dev, checked against
 * the reference. */
static void run_product(const spx_matrix *A, const char *name, const char *fmt, spx_device dev,
                        spx_type prec, const char *params, spx_op op, double beta)
{
    const int64_t out = op == SPX_OP_N ? A->rows : A->cols, in = op == SPX_OP_N ? A->cols : A->rows;
    const size_t es = prec == SPX_F64 ? sizeof(double) : sizeof(float);
    double *x = calloc((size_t)(in + 1), sizeof(double)),
           *y0 = calloc((size_t)(out + 1), sizeof(double));
    double *ref = malloc(sizeof(double) * (size_t)(out + 1)),
           *scale = malloc(sizeof(double) * (size_t)(out + 1));
    double *y = malloc(sizeof(double) * (size_t)(out + 1));
    void *xv = malloc(es * (size_t)(in + 1)), *yv = malloc(es * (size_t)(out + 1));
    uint64_t seed = (uint64_t)A->nnz * 17 + (uint64_t)op;
    const double alpha = op == SPX_OP_N ? 1.25 : -0.75;
    for (int64_t j = 0; j < in; j++)
        x[j] = prec == SPX_F64 ? spx_test_rand(&seed) : (float)spx_test_rand(&seed);
    for (int64_t i = 0; i < out; i++)
        y0[i] = beta == 0.0       ? NAN
                : prec == SPX_F64 ? spx_test_rand(&seed)
                                  : (float)spx_test_rand(&seed);
    round_x_to_half(x, in, params);
    spx_test_reference(A, op, alpha, x, beta, y0, ref, scale);
    for (int64_t j = 0; j < in; j++)
        prec == SPX_F64 ? (void)(((double *)xv)[j] = x[j]) : (void)(((float *)xv)[j] = (float)x[j]);
    for (int64_t i = 0; i < out; i++)
        prec == SPX_F64 ? (void)(((double *)yv)[i] = y0[i])
                        : (void)(((float *)yv)[i] = (float)y0[i]);
    spx_plan_opts o = spx_plan_opts_default();
    o.format = fmt;
    o.precision = prec;
    o.op = op;
    o.params = params;
    o.device = dev;
    spx_plan *P = NULL;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_ERR_UNSUPPORTED) { /* a format may decline, with a reason */
        CHECK(strlen(spx_last_error()) > 0);
    } else if (CHECK_STATUS(st, SPX_OK) &&
               CHECK_STATUS(product(P, alpha, xv, in, beta, yv), SPX_OK)) {
        for (int64_t i = 0; i < out; i++)
            y[i] = prec == SPX_F64 ? ((double *)yv)[i] : ((float *)yv)[i];
        spx_test_close(y, ref, scale, out, tolerance(prec, spx_test_longest_row(A, op)),
                       "%s %s %s %s op%s beta=%g on %s", fmt, params,
                       dev == SPX_DEV_CPU ? "cpu" : "cuda", precision_name(prec),
                       op == SPX_OP_N ? "N" : "T", beta, name);
    }
    spx_plan_destroy(P);
    free(x), free(y0), free(ref), free(scale), free(y), free(xv), free(yv);
}

/* Every format of dev and precision x mode (x op x beta when full) on A. */
static void run_formats(const spx_matrix *A, const char *name, spx_device dev, int full)
{
    for (int f = 0; f < spx_format_count(); f++) {
        const char *fmt;
        unsigned devices, precisions;
        if (!spx_test_spmv_format(f, &fmt, &devices, &precisions)) continue;
        if (!(devices & dev)) continue;
        for (int p = SPX_F64; p <= SPX_F16; p++) {
            if (!(precisions & (1u << p)) || (!full && p != SPX_F64)) continue;
            for (int m = 0; m < NMODES; m++) {
                spx_type t = (spx_type)p;
                run_product(A, name, fmt, dev, t, modes[m], SPX_OP_N, 0.0);
                if (!full) continue;
                run_product(A, name, fmt, dev, t, modes[m], SPX_OP_N, -0.5);
                run_product(A, name, fmt, dev, t, modes[m], SPX_OP_T, 0.0);
                run_product(A, name, fmt, dev, t, modes[m], SPX_OP_T, 2.0);
            }
        }
    }
}

/* Row lengths plus column lengths of A, in the order perm. */
static void check_degrees(const spx_matrix *A, const int64_t *perm)
{
    int64_t *deg = calloc((size_t)A->rows + 1, sizeof *deg);
    for (int64_t i = 0; i < A->rows; i++)
        deg[i] += A->rowptr[i + 1] - A->rowptr[i];
    for (int64_t k = 0; k < A->nnz; k++)
        deg[spx__col(A, k)]++;
    int ok = 1;
    for (int64_t k = 1; k < A->rows; k++)
        ok &= deg[perm[k - 1]] > deg[perm[k]] ||
              (deg[perm[k - 1]] == deg[perm[k]] && perm[k - 1] < perm[k]);
    CHECK(ok);
    free(deg);
}

/* Both orderings are bijections; B = P A P^T has A(perm[k], perm[l]) at (k, l). */
static void check_orderings(const spx_matrix *A, const char *name)
{
    int64_t *perm = malloc(sizeof *perm * (size_t)(A->rows + 1));
    for (int mode = SPX__ORDER_RCM; mode <= SPX__ORDER_DEGREE; mode++) {
        if (!CHECK_STATUS(spx__order_compute(A, (spx__order_mode)mode, 0, perm), SPX_OK)) continue;
        if (!CHECK_STATUS(spx__order_check(perm, A->rows), SPX_OK))
            fprintf(stderr, "  %s on %s is not a permutation\n",
                    spx__order_name((spx__order_mode)mode), name);
        if (mode == SPX__ORDER_DEGREE) check_degrees(A, perm);
        spx_matrix *B = NULL;
        if (!CHECK_STATUS(spx__order_permute(A, perm, 0, &B), SPX_OK)) continue;
        CHECK_STATUS(spx_matrix_validate(B), SPX_OK);
        int ok = B->nnz == A->nnz;
        for (int64_t k = 0; ok && k < B->rows; k++) {
            const int64_t i = perm[k], len = A->rowptr[i + 1] - A->rowptr[i];
            ok = B->rowptr[k + 1] - B->rowptr[k] == len;
            for (int64_t e = B->rowptr[k]; ok && e < B->rowptr[k + 1]; e++) {
                int64_t j = perm[spx__col(B, e)], a = A->rowptr[i];
                while (a < A->rowptr[i + 1] && spx__col(A, a) != j)
                    a++;
                ok = a < A->rowptr[i + 1] && spx__val(A, a) == spx__val(B, e);
            }
        }
        if (!CHECK(ok))
            fprintf(stderr, "  P A P^T of %s wrong on %s\n", spx__order_name((spx__order_mode)mode),
                    name);
        spx_matrix_destroy(B);
    }
    free(perm);
}

/* A band of half-width 3 under a random symmetric relabelling: RCM brings the
 * bandwidth back to at most twice the band's. */
static void check_rcm_band(void)
{
    const int64_t n = 2000, bw = 3;
    int64_t *lab = malloc(sizeof *lab * (size_t)n), *perm = malloc(sizeof *perm * (size_t)n);
    int64_t *ri = malloc(sizeof *ri * (size_t)n * 7), *ci = malloc(sizeof *ci * (size_t)n * 7),
            nnz = 0;
    uint64_t s = 3;
    for (int64_t i = 0; i < n; i++)
        lab[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)((spx_test_rand(&s) + 1.0) * 0.5 * (double)i), t = lab[i];
        lab[i] = lab[j], lab[j] = t;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i - bw; j <= i + bw; j++)
            if (j >= 0 && j < n) ri[nnz] = lab[i], ci[nnz++] = lab[j];
    spx_matrix *A = spx_test_coo_matrix(n, n, nnz, ri, ci, NULL), *B = NULL;
    CHECK(spx__order_bandwidth(A) > n / 2);
    if (CHECK_STATUS(spx__order_compute(A, SPX__ORDER_RCM, 0, perm), SPX_OK) &&
        CHECK_STATUS(spx__order_permute(A, perm, 0, &B), SPX_OK)) {
        int64_t got = spx__order_bandwidth(B);
        if (!CHECK(got <= 2 * bw)) fprintf(stderr, "  rcm bandwidth %lld\n", (long long)got);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    free(lab), free(perm), free(ri), free(ci);
}

/* 1500 components of two vertices (more breadth-first searches than the
 * 1-byte marks have stamps): each pair stays adjacent, bandwidth 1. */
static void check_rcm_pairs(void)
{
    const int64_t n = 3000;
    int64_t *ri = malloc(sizeof *ri * (size_t)n), *ci = malloc(sizeof *ci * (size_t)n);
    int64_t *perm = malloc(sizeof *perm * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        ri[i] = i, ci[i] = i ^ 1;
    spx_matrix *A = spx_test_coo_matrix(n, n, n, ri, ci, NULL), *B = NULL;
    if (CHECK_STATUS(spx__order_compute(A, SPX__ORDER_RCM, 0, perm), SPX_OK) &&
        CHECK_STATUS(spx__order_check(perm, n), SPX_OK) &&
        CHECK_STATUS(spx__order_permute(A, perm, 0, &B), SPX_OK))
        CHECK(spx__order_bandwidth(B) == 1);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    free(ri), free(ci), free(perm);
}

static void check_permutation_check(void)
{
    int64_t good[] = {2, 0, 1}, repeated[] = {0, 0, 2}, outside[] = {0, 3, 1};
    CHECK_STATUS(spx__order_check(good, 3), SPX_OK);
    CHECK_STATUS(spx__order_check(repeated, 3), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx__order_check(outside, 3), SPX_ERR_INVALID_ARG);
}

static spx_status plan_with(const spx_matrix *A, const char *fmt, const char *params,
                            spx_device dev, spx_plan **P)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = fmt;
    o.params = params;
    o.device = dev;
    return spx_plan_create(A, SPX_OP_SPMV, &o, P);
}

static void check_bad_params(const spx_matrix *square)
{
    int64_t ri[] = {0, 1, 2}, ci[] = {3, 0, 1};
    spx_matrix *wide = spx_test_coo_matrix(3, 4, 3, ri, ci, NULL);
    spx_plan *P = NULL;
    CHECK_STATUS(plan_with(square, "csr", "reorder=foo", SPX_DEV_CPU, &P), SPX_ERR_BAD_PARAM);
    CHECK(strstr(spx_last_error(), "foo") != NULL);
    CHECK_STATUS(plan_with(square, "csr", "reorder=rcm,reorder=none", SPX_DEV_CPU, &P),
                 SPX_ERR_BAD_PARAM);
    CHECK_STATUS(plan_with(wide, "sell", "reorder=rcm", SPX_DEV_CPU, &P), SPX_ERR_BAD_PARAM);
    CHECK(strstr(spx_last_error(), "square") != NULL);
    CHECK_STATUS(plan_with(square, "sell", "reorder=degree,bogus=1", SPX_DEV_CPU, &P),
                 SPX_ERR_BAD_PARAM);
    CHECK(P == NULL);
    if (CHECK_STATUS(plan_with(wide, "csr", "reorder=none", SPX_DEV_CPU, &P), SPX_OK))
        spx_plan_destroy(P);
    if (CHECK_STATUS(plan_with(square, "sell", "sigma=1,reorder=rcm,c=4", SPX_DEV_CPU, &P),
                     SPX_OK)) {
        CHECK(strstr(spx_plan_describe(P), "reorder=rcm") != NULL);
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(wide);
}

/* Entry k of dst = entry perm[k] of src, es bytes each. */
static void permute_vector(void *dst, const void *src, const int64_t *perm, int64_t n, size_t es)
{
    for (int64_t k = 0; k < n; k++)
        memcpy((char *)dst + (size_t)k * es, (const char *)src + (size_t)perm[k] * es, es);
}

static spx_plan *plan_threads(const spx_matrix *A, const char *fmt, spx_device dev, spx_type prec,
                              spx_op op, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = dev;
    o.format = fmt;
    o.precision = prec;
    o.op = op;
    o.params = params;
    o.threads = 3;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st != SPX_ERR_UNSUPPORTED) CHECK_STATUS(st, SPX_OK);
    return P;
}

/* The plans' permutations agree and are a bijection; a vectors=permuted call
 * on x[perm], y0[perm] gives the bits of the original-order call, permuted. */
static void compare_permuted(spx_plan *P, spx_plan *Q, int64_t n, size_t es, double beta,
                             const char *what)
{
    int64_t *perm = malloc(sizeof *perm * (size_t)(n + 1)),
            *qperm = malloc(sizeof *qperm * (size_t)(n + 1));
    char *x = malloc(es * (size_t)(n + 1)), *y = malloc(es * (size_t)(n + 1));
    char *xp = malloc(es * (size_t)(n + 1)), *yp = malloc(es * (size_t)(n + 1));
    char *want = malloc(es * (size_t)(n + 1));
    uint64_t s = (uint64_t)n + 5;
    for (int64_t i = 0; i < n; i++) {
        double a = spx_test_rand(&s), b = spx_test_rand(&s);
        float fa = (float)a, fb = (float)b;
        memcpy(x + (size_t)i * es, es == sizeof a ? (void *)&a : (void *)&fa, es);
        memcpy(y + (size_t)i * es, es == sizeof b ? (void *)&b : (void *)&fb, es);
    }
    CHECK_STATUS(spx_plan_permutation(P, perm), SPX_OK);
    CHECK_STATUS(spx_plan_permutation(Q, qperm), SPX_OK);
    CHECK(memcmp(perm, qperm, sizeof *perm * (size_t)n) == 0);
    CHECK_STATUS(spx__order_check(perm, n), SPX_OK);
    permute_vector(xp, x, perm, n, es);
    permute_vector(yp, y, perm, n, es);
    CHECK_STATUS(product(P, 0.75, x, n, beta, y), SPX_OK);
    CHECK_STATUS(product(Q, 0.75, xp, n, beta, yp), SPX_OK);
    permute_vector(want, y, perm, n, es);
    if (!CHECK(memcmp(yp, want, es * (size_t)n) == 0))
        fprintf(stderr, "  vectors=permuted differs from the original order: %s\n", what);
    free(perm), free(qperm), free(x), free(y), free(xp), free(yp), free(want);
}

/* Every format of dev and precision x rcm, degree x op N, T x beta 0, -0.5. */
static void check_permuted(const spx_matrix *A, const char *name, spx_device dev)
{
    static const char *const orig[] = {"reorder=rcm", "reorder=degree"};
    static const char *const perm[] = {"reorder=rcm,vectors=permuted",
                                       "vectors=permuted,reorder=degree"};
    for (int f = 0; f < spx_format_count(); f++) {
        const char *fmt;
        unsigned devices, precisions;
        if (!spx_test_spmv_format(f, &fmt, &devices, &precisions)) continue;
        for (int p = SPX_F64; (devices & dev) && p <= SPX_F16; p++) {
            for (int c = 0; (precisions & (1u << p)) && c < 4; c++) {
                spx_op op = c & 1 ? SPX_OP_T : SPX_OP_N;
                spx_plan *P = plan_threads(A, fmt, dev, (spx_type)p, op, orig[c / 2]);
                spx_plan *Q = plan_threads(A, fmt, dev, (spx_type)p, op, perm[c / 2]);
                char what[160];
                snprintf(what, sizeof what, "%s %s %s %s op%c on %s", fmt, perm[c / 2],
                         dev == SPX_DEV_CPU ? "cpu" : "cuda", precision_name((spx_type)p),
                         op == SPX_OP_T ? 'T' : 'N', name);
                if (P && Q) {
                    size_t es = p == SPX_F64 ? sizeof(double) : sizeof(float);
                    compare_permuted(P, Q, A->rows, es, 0.0, what);
                    compare_permuted(P, Q, A->rows, es, -0.5, what);
                    CHECK(spx_plan_bytes(Q) < spx_plan_bytes(P) || A->rows == 0);
                }
                spx_plan_destroy(P);
                spx_plan_destroy(Q);
            }
        }
    }
}

/* spx_plan_permutation: the identity without an ordering; errors; bad
 * combinations of vectors= and reorder=. */
static void check_permutation_api(const spx_matrix *A)
{
    int64_t perm[7] = {-1, -1, -1, -1, -1, -1, -1};
    spx_plan *P = NULL;
    CHECK(A->rows == 7);
    for (int m = 0; m < 2; m++) {
        if (!CHECK_STATUS(
                plan_with(A, "sell", m ? "reorder=none,vectors=original" : NULL, SPX_DEV_CPU, &P),
                SPX_OK))
            continue;
        CHECK_STATUS(spx_plan_permutation(P, perm), SPX_OK);
        for (int64_t k = 0; k < 7; k++)
            CHECK(perm[k] == k);
        CHECK_STATUS(spx_plan_permutation(P, NULL), SPX_ERR_INVALID_ARG);
        spx_plan_destroy(P);
    }
    CHECK_STATUS(spx_plan_permutation(NULL, perm), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(plan_with(A, "csr", "vectors=permuted", SPX_DEV_CPU, &P), SPX_ERR_BAD_PARAM);
    CHECK(strstr(spx_last_error(), "vectors=permuted needs reorder=rcm or degree") != NULL);
    CHECK_STATUS(plan_with(A, "csr", "reorder=none,vectors=permuted", SPX_DEV_CPU, &P),
                 SPX_ERR_BAD_PARAM);
    CHECK_STATUS(plan_with(A, "csr", "reorder=rcm,vectors=inverse", SPX_DEV_CPU, &P),
                 SPX_ERR_BAD_PARAM);
    CHECK(strstr(spx_last_error(), "inverse") != NULL);
    CHECK_STATUS(
        plan_with(A, "csr", "reorder=rcm,vectors=permuted,vectors=original", SPX_DEV_CPU, &P),
        SPX_ERR_BAD_PARAM);
    CHECK(P == NULL);
    if (CHECK_STATUS(plan_with(A, "sell", "c=4,vectors=permuted,reorder=degree", SPX_DEV_CPU, &P),
                     SPX_OK)) {
        CHECK(strstr(spx_plan_describe(P), "reorder=degree vectors=permuted") != NULL);
        spx_plan_destroy(P);
    }
}

typedef struct caller {
    const spx_plan *P;
    const double *x, *want;
    int64_t rows;
    int mismatches;
} caller;

static void *call_many(void *arg)
{
    caller *c = arg;
    double *y = malloc(sizeof *y * (size_t)c->rows);
    for (int k = 0; k < 10; k++)
        if (spx_spmv(c->P, 1.0, c->x, 0.0, y) != SPX_OK ||
            memcmp(y, c->want, sizeof *y * (size_t)c->rows) != 0)
            c->mismatches++;
    free(y);
    return NULL;
}

/* Two plans (3 threads) give the same bits; so do 4 callers on one plan. */
static void check_bits(const spx_matrix *A, const char *fmt, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = fmt;
    o.params = params;
    o.threads = 3;
    spx_plan *P = NULL, *Q = NULL;
    double *x = malloc(sizeof *x * (size_t)A->cols), *y1 = malloc(sizeof *y1 * (size_t)A->rows);
    double *y2 = malloc(sizeof *y2 * (size_t)A->rows);
    uint64_t s = 11;
    for (int64_t j = 0; j < A->cols; j++)
        x[j] = spx_test_rand(&s);
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &Q), SPX_OK)) {
        CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, y1), SPX_OK);
        CHECK_STATUS(spx_spmv(Q, 1.0, x, 0.0, y2), SPX_OK);
        CHECK(memcmp(y1, y2, sizeof *y1 * (size_t)A->rows) == 0);
        caller c[4];
        pthread_t th[4];
        int mismatches = 0;
        for (int t = 0; t < 4; t++) {
            c[t] = (caller){P, x, y1, A->rows, 0};
            CHECK(pthread_create(&th[t], NULL, call_many, &c[t]) == 0);
        }
        for (int t = 0; t < 4; t++) {
            pthread_join(th[t], NULL);
            mismatches += c[t].mismatches;
        }
        if (!CHECK(mismatches == 0))
            fprintf(stderr, "  %s %s: %d of 40 concurrent calls differ\n", fmt, params, mismatches);
    }
    spx_plan_destroy(P);
    spx_plan_destroy(Q);
    free(x), free(y1), free(y2);
}

/* Plan creation and a product, op N and T, with reorder=mode on A. */
static spx_status plan_and_product(const spx_matrix *A, const char *params)
{
    double x[64] = {0}, y[64] = {0};
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = "csr";
    o.params = params;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_spmv(P, 1.0, x, 0.5, y);
    spx_plan_destroy(P);
    P = NULL;
    o.op = SPX_OP_T;
    if (st == SPX_OK) st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_spmv(P, 1.0, x, 0.0, y);
    spx_plan_destroy(P);
    return st;
}

/* The n-th allocation failing, n = 1, 2, ...: SPX_ERR_OOM each time (the ASan
 * build's leak checker sees the rest), then success. */
static void check_alloc_failures(const spx_matrix *A, const char *params)
{
    long n;
    for (n = 1; n < 10000; n++) {
        spx__alloc_fail_at(n);
        spx_status st = plan_and_product(A, params);
        long made = spx__alloc_fail_at(0);
        if (st == SPX_OK && made < n) break;
        if (st != SPX_OK && !CHECK_STATUS(st, SPX_ERR_OOM)) {
            fprintf(stderr, "  %s: allocation %ld failing gave another status\n", params, n);
            return;
        }
    }
    CHECK(n > 5);
    CHECK_STATUS(plan_and_product(A, params), SPX_OK);
}

static void check_shared(void)
{
    static const char *const files[] = {"west0067.mtx", "1138_bus.mtx", "rajat01.mtx",
                                        "delaunay_n16.mtx"};
    const char *dir = spx_test_matrices_dir();
    for (size_t f = 0; dir && f < sizeof files / sizeof files[0]; f++) {
        spx_matrix *A = spx_test_read_matrix(dir, files[f]);
        if (!A) continue;
        check_orderings(A, files[f]);
        run_formats(A, files[f], SPX_DEV_CPU, 0);
        spx_matrix_destroy(A);
    }
}

/* Everything but the shared matrices. */
static void default_part(void)
{
    spx_matrix *hand = hand_made(), *disc = disconnected(), *empty = empty_rows(), *big = NULL;
    spx_matrix *none = spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL);
    const struct {
        const spx_matrix *A;
        const char *name;
    } cases[] = {{hand, "hand-made 7x7"},
                 {disc, "disconnected 64x64"},
                 {empty, "empty rows 500x500"},
                 {none, "0x0"}};
    check_permutation_check();
    check_rcm_band();
    check_rcm_pairs();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        check_orderings(cases[c].A, cases[c].name);
        run_formats(cases[c].A, cases[c].name, SPX_DEV_CPU, 1);
    }
    check_bad_params(hand);
    check_permutation_api(hand);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        check_permuted(cases[c].A, cases[c].name, SPX_DEV_CPU);
    check_alloc_failures(disc, "reorder=rcm");
    check_alloc_failures(disc, "reorder=rcm,vectors=permuted");
    check_alloc_failures(disc, "reorder=degree");
    CHECK_STATUS(spx_generate("rmat:scale=16,ef=8,sym=1,values=random", &big), SPX_OK);
    for (int m = 1; big && m < NMODES; m++) {
        check_bits(big, "csr", modes[m]);
        check_bits(big, "sell", modes[m]);
    }
    if (big) check_permuted(big, "rmat scale 16", SPX_DEV_CPU);
    if (big) check_bits(big, "sell", "reorder=degree,vectors=permuted");
    spx_matrix_destroy(hand), spx_matrix_destroy(disc), spx_matrix_destroy(empty);
    spx_matrix_destroy(none), spx_matrix_destroy(big);
}

/* Two calls of a CUDA plan with an ordering give the same bits. */
static void check_repeat_cuda(const spx_matrix *A, const char *fmt, const char *params)
{
    spx_plan *P = plan_threads(A, fmt, SPX_DEV_CUDA, SPX_F64, SPX_OP_N, params);
    double *x = malloc(sizeof *x * (size_t)A->cols), *y1 = malloc(sizeof *y1 * (size_t)A->rows),
           *y2 = malloc(sizeof *y2 * (size_t)A->rows);
    uint64_t s = 11;
    for (int64_t j = 0; j < A->cols; j++)
        x[j] = spx_test_rand(&s);
    if (P && CHECK_STATUS(spx_spmv_host(P, 1.0, x, 0.0, y1), SPX_OK) &&
        CHECK_STATUS(spx_spmv_host(P, 1.0, x, 0.0, y2), SPX_OK) &&
        !CHECK(memcmp(y1, y2, sizeof *y1 * (size_t)A->rows) == 0))
        fprintf(stderr, "  %s %s on CUDA: two calls differ\n", fmt, params);
    spx_plan_destroy(P);
    free(x), free(y1), free(y2);
}

/* reorder= on CUDA plans: every CUDA format and precision x mode x op x
 * beta, vectors=permuted against the original order (same bits), a half x,
 * repeated calls, the description. */
static void cuda_part(void)
{
    if (!spx_test_require_cuda("reorder= on CUDA plans not checked")) return;
    spx_matrix *hand = hand_made(), *disc = disconnected(), *empty = empty_rows(), *big = NULL;
    spx_matrix *none = spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL);
    CHECK_STATUS(spx_generate("rmat:scale=12,ef=8,sym=1,values=random", &big), SPX_OK);
    const struct {
        const spx_matrix *A;
        const char *name;
    } cases[] = {{hand, "hand-made 7x7"},
                 {disc, "disconnected 64x64"},
                 {empty, "empty rows 500x500"},
                 {none, "0x0"},
                 {big, "rmat scale 12"}};
    for (size_t c = 0; big && c < sizeof cases / sizeof cases[0]; c++) {
        run_formats(cases[c].A, cases[c].name, SPX_DEV_CUDA, 1);
        check_permuted(cases[c].A, cases[c].name, SPX_DEV_CUDA);
        for (int m = 1; m < NMODES; m++) {
            char params[64];
            snprintf(params, sizeof params, "%s,xtype=half", modes[m]);
            run_product(cases[c].A, cases[c].name, "csr", SPX_DEV_CUDA, SPX_F16, params,
                        SPX_OP_N, 0.5);
            run_product(cases[c].A, cases[c].name, "dasp", SPX_DEV_CUDA, SPX_F16, params,
                        SPX_OP_T, 0.0);
        }
    }
    for (int m = 1; big && m < NMODES; m++) {
        check_repeat_cuda(big, "csr", modes[m]);
        check_repeat_cuda(big, "auto", modes[m]);
    }
    spx_plan *P = NULL;
    if (CHECK_STATUS(plan_with(hand, "csr", "reorder=rcm", SPX_DEV_CUDA, &P), SPX_OK))
        CHECK(strstr(spx_plan_describe(P), "reorder=rcm") != NULL);
    spx_plan_destroy(P);
    spx_matrix_destroy(hand), spx_matrix_destroy(disc), spx_matrix_destroy(empty);
    spx_matrix_destroy(none), spx_matrix_destroy(big);
}

int main(void)
{
    if (spx_test_part("cuda")) cuda_part();
    if (spx_test_part("shared")) check_shared();
    if (spx_test_part(NULL)) default_part();
    return spx_test_finish();
}
