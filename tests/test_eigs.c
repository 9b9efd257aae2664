/* spx_eigsh (thick-restart Lanczos, src/solve/lanczos.c) and its dense
 * eigensolver (src/solve/symeig.h):
 * - symeig: random symmetric matrices of 1..40: A q = lambda q within a few
 *   roundings of ||A||, Q orthogonal, ascending;
 * - the 1D Laplacian (2, -1) of 100 rows, whose eigenvalues are
 *   2 - 2 cos(j pi / 101): the 4 largest and the 4 smallest, values within
 *   1e-9 relative, vectors unit, orthogonal and with ||A v - lambda v||
 *   <= 1e-6 |lambda|;
 * - lap3d7:8: the smallest eigenvalue 3 (2 - 2 cos(pi / 9));
 * - a random symmetric matrix of 150 rows against cyclic Jacobi in long
 *   double (both ends, k = 3);
 * - restarts: a basis of 10 for k = 2 on 1D Laplacians of 100 and 400 rows;
 * - copies: lap2d5:20's 4 smallest and largest hold a double eigenvalue,
 *   found twice with orthonormal vectors (once with skip_copies);
 * - few directions: 2 I (one Krylov dimension) and three copies of a 1D
 *   Laplacian (every eigenvalue thrice): the start vector's Krylov space is
 *   exhausted before k, fresh start vectors find the rest; with a basis
 *   too small for them, SPX_ERR_BREAKDOWN on 2 I;
 * - spx_multi_eigsh: lap2d5:20's 4 smallest (copies included) on 3 parts
 *   of each partition, vectors into resident vectors, the same bits twice;
 *   a vector of another plan, a NULL plan;
 * - the same bits twice; max_steps too few: SPX_ERR_NOT_CONVERGED with the
 *   best values; bad k, which, tol, basis, NULL values, a non-square plan;
 * - part "cuda": the same on CUDA plans (fp64, and fp32 to 1e-4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"
#include "solve/symeig.h"

#define PI 3.14159265358979323846

static void test_symeig(void)
{
    uint64_t seed = 7;
    int ok = 1;
    for (int64_t m = 1; m <= 40; m++) {
        double *a = malloc((size_t)(m * m) * sizeof *a), *a0 = malloc((size_t)(m * m) * sizeof *a0);
        double *z = malloc((size_t)(m * m) * sizeof *z), *w = malloc((size_t)m * sizeof *w);
        double norm = 0.0;
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i <= j; i++) {
                const double v = spx_test_rand(&seed) * (m % 3 ? 1.0 : 1e3);
                a0[i + j * m] = a0[j + i * m] = v;
                norm += 2.0 * fabs(v);
            }
        memcpy(a, a0, (size_t)(m * m) * sizeof *a);
        ok &= CHECK(spx__symeig(m, a, w, z) == 0);
        for (int64_t j = 0; j < m; j++) {
            for (int64_t i = 0; i < m; i++) { /* (A q_j - lambda_j q_j)_i */
                double r = -w[j] * z[i + j * m];
                for (int64_t l = 0; l < m; l++)
                    r += a0[i + l * m] * z[l + j * m];
                ok &= fabs(r) <= 1e-13 * norm;
            }
            for (int64_t l = 0; l < m; l++) {
                double dot = 0.0;
                for (int64_t i = 0; i < m; i++)
                    dot += z[i + j * m] * z[i + l * m];
                ok &= fabs(dot - (j == l)) <= 1e-13 * (double)m;
            }
            ok &= j == 0 || w[j - 1] <= w[j];
        }
        free(a);
        free(a0);
        free(z);
        free(w);
    }
    CHECK(ok);
}

/* The 1D Laplacian of n rows: 2 on the diagonal, -1 beside it. */
static spx_matrix *laplacian_1d(int64_t n)
{
    int64_t *ri = malloc((size_t)(3 * n) * sizeof *ri), *ci = malloc((size_t)(3 * n) * sizeof *ci);
    double *v = malloc((size_t)(3 * n) * sizeof *v);
    int64_t nz = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t d = -1; d <= 1; d++)
            if (i + d >= 0 && i + d < n) {
                ri[nz] = i;
                ci[nz] = i + d;
                v[nz++] = d ? -1.0 : 2.0;
            }
    spx_matrix *A = spx_test_coo_matrix(n, n, nz, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return A;
}

/* Eigenvalues of dense symmetric a (n x n, destroyed) by cyclic Jacobi in
 * long double, ascending into out. */
static void jacobi_eigenvalues(int64_t n, long double *a, double *out)
{
    for (int sweep = 0; sweep < 50; sweep++) {
        long double off = 0.0L;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++)
                off += a[p * n + q] * a[p * n + q];
        if (off < 1e-40L) break;
        for (int64_t p = 0; p < n; p++)
            for (int64_t q = p + 1; q < n; q++) {
                if (a[p * n + q] == 0.0L) continue;
                const long double theta = (a[q * n + q] - a[p * n + p]) / (2.0L * a[p * n + q]);
                const long double t =
                    (theta >= 0 ? 1.0L : -1.0L) / (fabsl(theta) + sqrtl(theta * theta + 1.0L));
                const long double c = 1.0L / sqrtl(t * t + 1.0L), s = t * c;
                for (int64_t k = 0; k < n; k++) { /* columns p, q */
                    const long double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int64_t k = 0; k < n; k++) { /* rows p, q */
                    const long double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
            }
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = (double)a[i * n + i];
    for (int64_t i = 1; i < n; i++) /* insertion sort */
        for (int64_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            const double t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
}

static spx_plan *plan_on(const spx_matrix *A, spx_device dev, spx_type t)
{
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = dev;
    o.precision = t;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    return P;
}

/* The k vectors (host copies, doubles): unit, orthogonal, and A v close to
 * lambda v by the reference product. */
static int vectors_ok(const spx_matrix *A, int64_t n, int64_t k, const double *values,
                      const double *vec, double tol)
{
    int ok = 1;
    double *av = malloc((size_t)n * sizeof *av), *scale = malloc((size_t)n * sizeof *scale);
    for (int64_t t = 0; t < k; t++) {
        const double *v = vec + t * n;
        double r = 0.0;
        spx_test_reference(A, SPX_OP_N, 1.0, v, 0.0, NULL, av, scale);
        for (int64_t i = 0; i < n; i++)
            r += (av[i] - values[t] * v[i]) * (av[i] - values[t] * v[i]);
        ok &= sqrt(r) <= tol * fmax(fabs(values[t]), 1e-300);
        for (int64_t u = 0; u <= t; u++) {
            double dot = 0.0;
            for (int64_t i = 0; i < n; i++)
                dot += v[i] * vec[u * n + i];
            ok &= fabs(dot - (u == t)) <= fmax(tol, 1e-10);
        }
    }
    free(av);
    free(scale);
    return ok;
}

/* spx_eigsh on P; vectors copied back as host doubles into vec (n x k). */
static spx_status eigsh_on(spx_plan *P, spx_type t, int64_t n, const spx_eig_opts *o,
                           double *values, double *vec, spx_eig_info *info)
{
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    const size_t bytes = (size_t)(n * o->k) * es;
    const int cuda = spx_plan_device(P) == SPX_DEV_CUDA;
    void *host = malloc(bytes), *dev = NULL;
    spx_status st = SPX_ERR_DEVICE;
    if (!cuda || spx__cuda_alloc(&dev, bytes, "test vectors") == SPX_OK) {
        st = spx_eigsh(P, o, values, cuda ? dev : host, info);
        if (cuda && spx__cuda_copy(host, dev, bytes, 0) != SPX_OK) st = SPX_ERR_DEVICE;
    }
    for (int64_t i = 0; i < n * o->k; i++)
        vec[i] = t == SPX_F64 ? ((double *)host)[i] : (double)((float *)host)[i];
    spx__cuda_free(dev);
    free(host);
    return st;
}

static void test_laplacian_1d(spx_device dev, spx_type t)
{
    const int64_t n = 100, k = 4;
    const double tol = t == SPX_F64 ? 1e-9 : 1e-4;
    spx_matrix *A = laplacian_1d(n);
    spx_plan *P = A ? plan_on(A, dev, t) : NULL;
    double values[4], again[4], *vec = malloc((size_t)(n * k) * sizeof *vec);
    double *vec2 = malloc((size_t)(n * k) * sizeof *vec2);
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    o.k = k;
    o.tol = t == SPX_F64 ? 1e-10 : 1e-5;
    for (int w = 0; P && w < 2; w++) {
        o.which = w ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
        if (!CHECK_STATUS(eigsh_on(P, t, n, &o, values, vec, &info), SPX_OK)) continue;
        printf("%s %s lap1d:%lld %s: %lld steps, %lld fresh starts, %.3g .. %.3g\n",
               dev == SPX_DEV_CUDA ? "cuda" : "cpu", t == SPX_F64 ? "f64" : "f32", (long long)n,
               w ? "smallest" : "largest", (long long)info.steps, (long long)info.fresh_starts,
               values[0], values[k - 1]);
        for (int64_t j = 0; j < k; j++) {
            const int64_t idx = w ? j + 1 : n - j; /* 2 - 2 cos(idx pi / (n + 1)) */
            const double want = 2.0 - 2.0 * cos((double)idx * PI / (double)(n + 1));
            CHECK(fabs(values[j] - want) <= tol * want);
        }
        CHECK(info.converged == k && info.max_residual <= o.tol && info.fresh_starts == 1);
        CHECK(vectors_ok(A, n, k, values, vec, t == SPX_F64 ? 1e-6 : 1e-2));
        CHECK_STATUS(eigsh_on(P, t, n, &o, again, vec2, &info), SPX_OK);
        CHECK(memcmp(values, again, sizeof values) == 0 &&
              memcmp(vec, vec2, (size_t)(n * k) * sizeof *vec) == 0);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    free(vec);
    free(vec2);
}

/* lap3d7:8's smallest eigenvalue, 3 (2 - 2 cos(pi / 9)), and a random
 * symmetric matrix's 3 largest and smallest against cyclic Jacobi. */
static void test_against_references(spx_device dev)
{
    spx_matrix *L = NULL, *S = spx_test_symmetric_matrix(150, 4, 20, 11);
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    double values[3];
    CHECK_STATUS(spx_generate("lap3d7:8", &L), SPX_OK);
    spx_plan *P = L ? plan_on(L, dev, SPX_F64) : NULL;
    o.which = SPX_EIG_SMALLEST;
    o.tol = 1e-10;
    if (P && CHECK_STATUS(spx_eigsh(P, &o, values, NULL, &info), SPX_OK))
        CHECK(fabs(values[0] - 3.0 * (2.0 - 2.0 * cos(PI / 9.0))) <= 1e-9 * values[0]);
    spx_plan_destroy(P);
    P = S ? plan_on(S, dev, SPX_F64) : NULL;
    if (P) {
        const int64_t n = 150;
        long double *a = calloc((size_t)(n * n), sizeof *a);
        double *ref = malloc((size_t)n * sizeof *ref), *col = malloc((size_t)n * sizeof *col);
        double *y = malloc((size_t)n * sizeof *y), *scale = malloc((size_t)n * sizeof *scale);
        for (int64_t j = 0; j < n; j++) { /* A's columns by the reference product */
            memset(col, 0, (size_t)n * sizeof *col);
            col[j] = 1.0;
            spx_test_reference(S, SPX_OP_N, 1.0, col, 0.0, NULL, y, scale);
            for (int64_t i = 0; i < n; i++)
                a[i * n + j] = y[i];
        }
        jacobi_eigenvalues(n, a, ref);
        o.k = 3;
        for (int w = 0; w < 2; w++) {
            o.which = w ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
            if (!CHECK_STATUS(spx_eigsh(P, &o, values, NULL, &info), SPX_OK)) continue;
            for (int64_t j = 0; j < 3; j++) {
                const double want = w ? ref[j] : ref[n - 1 - j];
                CHECK(fabs(values[j] - want) <= 1e-9 * fmax(fabs(want), 1.0));
            }
        }
        free(a);
        free(ref);
        free(col);
        free(y);
        free(scale);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(L);
    spx_matrix_destroy(S);
}

/* A small basis: thick restarts, the 2 largest and smallest of 1D
 * Laplacians to 1e-8 against 2 - 2 cos(j pi / (n + 1)). */
static void test_restarts(spx_device dev)
{
    for (int64_t n = 100; n <= 400; n *= 4) {
        spx_matrix *A = laplacian_1d(n);
        spx_plan *P = A ? plan_on(A, dev, SPX_F64) : NULL;
        spx_eig_opts o = spx_eig_opts_default();
        spx_eig_info info;
        double values[2];
        o.k = 2;
        o.basis = 10;
        for (int w = 0; P && w < 2; w++) {
            o.which = w ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
            if (!CHECK_STATUS(spx_eigsh(P, &o, values, NULL, &info), SPX_OK)) continue;
            printf("%s lap1d:%lld %s, basis 10: %lld steps, %lld restarts\n",
                   dev == SPX_DEV_CUDA ? "cuda" : "cpu", (long long)n, w ? "smallest" : "largest",
                   (long long)info.steps, (long long)info.restarts);
            CHECK(info.restarts > 0);
            for (int64_t j = 0; j < 2; j++) {
                const int64_t idx = w ? j + 1 : n - j;
                const double want = 2.0 - 2.0 * cos((double)idx * PI / (double)(n + 1));
                CHECK(fabs(values[j] - want) <= 1e-7 * want);
            }
        }
        spx_plan_destroy(P);
        spx_matrix_destroy(A);
    }
}

/* lap2d5:20: eigenvalues mu_i + mu_j, mu_i = 2 - 2 cos(i pi / 21), i, j in
 * 1..20, so (1, 2) and (2, 1) give a double one. The 4 smallest are those of
 * (1, 1), (1, 2) twice, (2, 2); the 4 largest those of (20, 20), (19, 20)
 * twice, (19, 19). With skip_copies the double one appears once and (1, 3)
 * (or (18, 20)) comes fourth. */
static void test_copies(spx_device dev)
{
    const int64_t n = 400, k = 4;
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap2d5:20", &A), SPX_OK);
    spx_plan *P = A ? plan_on(A, dev, SPX_F64) : NULL;
    double values[4], *vec = malloc((size_t)(n * k) * sizeof *vec), mu[21];
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    for (int i = 0; i <= 20; i++)
        mu[i] = 2.0 - 2.0 * cos((double)i * PI / 21.0);
    const int pairs[2][2][4][2] = {
        {{{1, 1}, {1, 2}, {1, 2}, {2, 2}}, {{1, 1}, {1, 2}, {2, 2}, {1, 3}}},
        {{{20, 20}, {19, 20}, {19, 20}, {19, 19}}, {{20, 20}, {19, 20}, {19, 19}, {18, 20}}}};
    o.k = k;
    o.tol = 1e-10;
    for (int w = 0; P && w < 2; w++)
        for (int skip = 0; skip < 2; skip++) {
            o.which = w ? SPX_EIG_LARGEST : SPX_EIG_SMALLEST;
            o.skip_copies = skip;
            if (!CHECK_STATUS(eigsh_on(P, SPX_F64, n, &o, values, vec, &info), SPX_OK)) continue;
            printf("%s lap2d5:20 %s%s: %lld steps, %lld fresh starts\n",
                   dev == SPX_DEV_CUDA ? "cuda" : "cpu", w ? "largest" : "smallest",
                   skip ? ", copies skipped" : "", (long long)info.steps,
                   (long long)info.fresh_starts);
            for (int64_t j = 0; j < k; j++) {
                const double want = mu[pairs[w][skip][j][0]] + mu[pairs[w][skip][j][1]];
                CHECK(fabs(values[j] - want) <= 1e-9 * want);
            }
            CHECK(skip ? info.fresh_starts == 0 : info.fresh_starts >= 2);
            CHECK(vectors_ok(A, n, k, values, vec, 1e-6));
        }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    free(vec);
}

/* blocks copies of the 1D Laplacian of n rows on the diagonal. */
static spx_matrix *laplacian_1d_blocks(int64_t n, int64_t blocks)
{
    const int64_t cap = 3 * n * blocks;
    int64_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    int64_t nz = 0;
    for (int64_t i = 0; i < n * blocks; i++)
        for (int64_t d = -1; d <= 1; d++)
            if (i % n + d >= 0 && i % n + d < n) {
                ri[nz] = i;
                ci[nz] = i + d;
                v[nz++] = d ? -1.0 : 2.0;
            }
    spx_matrix *A = spx_test_coo_matrix(n * blocks, n * blocks, nz, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return A;
}

static void test_few_directions(spx_device dev)
{
    const int64_t k = 4;
    double values[4], *vec = malloc((size_t)(90 * k) * sizeof *vec);
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    o.k = k;
    o.tol = 1e-10;
    for (int c = 0; c < 2; c++) {
        const int64_t n = c ? 90 : 50;
        spx_matrix *A = c ? laplacian_1d_blocks(30, 3) : NULL;
        if (!c) { /* 2 I */
            int64_t *idx = malloc((size_t)n * sizeof *idx);
            double *two = malloc((size_t)n * sizeof *two);
            for (int64_t i = 0; i < n; i++) {
                idx[i] = i;
                two[i] = 2.0;
            }
            A = spx_test_coo_matrix(n, n, n, idx, idx, two);
            free(idx);
            free(two);
        }
        spx_plan *P = A ? plan_on(A, dev, SPX_F64) : NULL;
        o.basis = 0;
        if (P && CHECK_STATUS(eigsh_on(P, SPX_F64, n, &o, values, vec, &info), SPX_OK)) {
            printf("%s %s: %lld steps, %lld fresh starts\n", dev == SPX_DEV_CUDA ? "cuda" : "cpu",
                   c ? "3 lap1d:30 blocks" : "2 I", (long long)info.steps,
                   (long long)info.fresh_starts);
            for (int64_t j = 0; j < k; j++) { /* 2; or 2 - 2 cos(i pi / 31), i = 30, 30, 30, 29 */
                const double want =
                    c ? 2.0 - 2.0 * cos((double)(j < 3 ? 30 : 29) * PI / 31.0) : 2.0;
                CHECK(fabs(values[j] - want) <= 1e-9 * want);
            }
            CHECK(info.converged == k && vectors_ok(A, n, k, values, vec, 1e-6));
        }
        o.basis = 5; /* not 2k + 1, not n: no room for fresh start vectors */
        if (P && !c) CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_BREAKDOWN);
        spx_plan_destroy(P);
        spx_matrix_destroy(A);
    }
    free(vec);
}

static spx_multi_plan *multi_on(const spx_matrix *A, spx_device dev, spx_partition kind)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_multi_opts m = spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    o.device = dev;
    m.partition = kind;
    m.parts = 3;
    CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK);
    return P;
}

static void test_multi(spx_device dev)
{
    const int64_t n = 400, k = 4;
    const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("lap2d5:20", &A), SPX_OK);
    double values[4], again[4], mu[3], *vec = malloc((size_t)(n * k) * sizeof *vec);
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    for (int i = 0; i < 3; i++)
        mu[i] = 2.0 - 2.0 * cos((double)i * PI / 21.0);
    const double want[4] = {2 * mu[1], mu[1] + mu[2], mu[1] + mu[2], 2 * mu[2]};
    o.k = k;
    o.which = SPX_EIG_SMALLEST;
    o.tol = 1e-10;
    for (int c = 0; A && c < 4; c++) {
        spx_multi_plan *P = multi_on(A, dev, kinds[c]), *Q = multi_on(A, dev, kinds[c]);
        spx_multi_vector *v[4] = {NULL, NULL, NULL, NULL}, *foreign = NULL;
        for (int64_t t = 0; P && t < k; t++)
            CHECK_STATUS(spx_multi_vector_create(P, &v[t]), SPX_OK);
        if (P && v[k - 1] && CHECK_STATUS(spx_multi_eigsh(P, &o, values, v, &info), SPX_OK)) {
            printf("%s multi (3 parts, partition %d) lap2d5:20: %lld steps, %lld fresh starts\n",
                   dev == SPX_DEV_CUDA ? "cuda" : "cpu", c, (long long)info.steps,
                   (long long)info.fresh_starts);
            for (int64_t t = 0; t < k; t++) {
                CHECK(fabs(values[t] - want[t]) <= 1e-9 * want[t]);
                CHECK_STATUS(spx_multi_vector_get(v[t], vec + t * n), SPX_OK);
            }
            CHECK(vectors_ok(A, n, k, values, vec, 1e-6));
            CHECK_STATUS(spx_multi_eigsh(P, &o, again, NULL, NULL), SPX_OK);
            CHECK(memcmp(values, again, sizeof values) == 0);
        }
        if (Q && v[k - 1] && CHECK_STATUS(spx_multi_vector_create(Q, &foreign), SPX_OK)) {
            spx_multi_vector *mixed[4] = {v[0], v[1], foreign, v[3]};
            CHECK_STATUS(spx_multi_eigsh(P, &o, values, mixed, NULL), SPX_ERR_INVALID_ARG);
        }
        for (int64_t t = 0; t < k; t++)
            spx_multi_vector_destroy(v[t]);
        spx_multi_vector_destroy(foreign);
        spx_multi_plan_destroy(P);
        spx_multi_plan_destroy(Q);
    }
    CHECK_STATUS(spx_multi_eigsh(NULL, &o, values, NULL, NULL), SPX_ERR_BAD_HANDLE);
    spx_matrix_destroy(A);
    free(vec);
}

static void test_statuses(void)
{
    spx_matrix *A = laplacian_1d(1000), *R = spx_test_random_matrix(5, 7, 10, 3);
    spx_plan *P = A ? plan_on(A, SPX_DEV_CPU, SPX_F64) : NULL, *PR = NULL;
    spx_eig_opts o = spx_eig_opts_default();
    spx_eig_info info;
    double values[2] = {0.0, 0.0};
    if (!P) return;
    o.k = 2;
    o.max_steps = 6; /* far too few for 1000 rows */
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, &info), SPX_ERR_NOT_CONVERGED);
    CHECK(info.steps == 6 && info.converged < 2 && values[0] > values[1] && values[0] < 4.0);
    o = spx_eig_opts_default();
    o.k = 0;
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_INVALID_ARG);
    o.k = 1001;
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_INVALID_ARG);
    o.k = 1;
    o.which = (spx_eig_which)7;
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_INVALID_ARG);
    o.which = SPX_EIG_LARGEST;
    o.tol = -1.0;
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_INVALID_ARG);
    o.tol = 1e-8;
    o.k = 2;
    o.basis = 2; /* at least k + 1 */
    CHECK_STATUS(spx_eigsh(P, &o, values, NULL, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_eigsh(P, NULL, NULL, NULL, NULL), SPX_ERR_INVALID_ARG);
    if (R && CHECK_STATUS(spx_plan_create(R, SPX_OP_SPMV, NULL, &PR), SPX_OK))
        CHECK_STATUS(spx_eigsh(PR, NULL, values, NULL, NULL), SPX_ERR_DIM_MISMATCH);
    spx_plan_destroy(PR);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    spx_matrix_destroy(R);
}

int main(void)
{
    if (spx_test_part(NULL)) {
        test_symeig();
        test_laplacian_1d(SPX_DEV_CPU, SPX_F64);
        test_laplacian_1d(SPX_DEV_CPU, SPX_F32);
        test_against_references(SPX_DEV_CPU);
        test_restarts(SPX_DEV_CPU);
        test_copies(SPX_DEV_CPU);
        test_few_directions(SPX_DEV_CPU);
        test_multi(SPX_DEV_CPU);
        test_statuses();
    }
    if (spx_test_part("cuda") && spx_test_require_cuda("eigsh on CUDA plans")) {
        test_laplacian_1d(SPX_DEV_CUDA, SPX_F64);
        test_laplacian_1d(SPX_DEV_CUDA, SPX_F32);
        test_against_references(SPX_DEV_CUDA);
        test_restarts(SPX_DEV_CUDA);
        test_copies(SPX_DEV_CUDA);
        test_few_directions(SPX_DEV_CUDA);
        test_multi(SPX_DEV_CUDA);
    }
    return spx_test_finish();
}
