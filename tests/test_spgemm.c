/* spx_spgemm on the CPU: hand-computed products, explicit zeros from
 * cancellation, empty and rectangular shapes, A*I == I*A == A, random matrices
 * against a naive dense product (pattern exact, values within 1e-13 of the sum
 * of |products|), both accumulators (acc=dense, acc=hash), rows of runs
 * (bands, dense blocks, rows of B with and without gaps; runs=off) and
 * several thread counts, fp32 input, a 2^31-1 column B, errors, every allocation failing in
 * turn, and (part "shared", tests/common.h) A*A of shared matrices against an
 * independent sequential sparse product written here (nnz and columns exact,
 * values within 1e-12 relative). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"

/* Accumulators (and rows of runs off) and thread counts every product is run with. */
static const char *const acc_params[] = {NULL, "acc=dense", "acc=hash", "runs=off"};
static const int thread_counts[] = {1, 2, 4};

static spx_plan_opts opts(const char *params, int threads)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.params = params;
    o.threads = threads;
    return o;
}

/* C against the naive dense product of A and B (tests/common.h): pattern
 * exact, values within 1e-13 of sum |a_ik b_kj|. */
static int check_against_dense(const spx_matrix *A, const spx_matrix *B, const spx_matrix *C)
{
    return spx_test_spgemm_matches(A, B, C, 1e-13);
}

/* About density * m * n random entries; the seed moves on. */
static spx_matrix *random_matrix(int64_t m, int64_t n, double density, uint64_t *seed)
{
    return spx_test_random_matrix(m, n, (int64_t)(density * (double)(m * n)) + 1, (*seed)++);
}

/* C = A*B under every accumulator and thread count, each checked densely. */
static void check_all_ways(const spx_matrix *A, const spx_matrix *B, const char *what)
{
    for (size_t a = 0; a < sizeof acc_params / sizeof *acc_params; a++) {
        for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
            spx_plan_opts o = opts(acc_params[a], thread_counts[t]);
            spx_matrix *C = NULL;
            if (CHECK_STATUS(spx_spgemm(A, B, &o, &C), SPX_OK) &&
                !CHECK(check_against_dense(A, B, C)))
                fprintf(stderr, "  %s with %s, %d threads\n", what,
                        acc_params[a] ? acc_params[a] : "default", thread_counts[t]);
            spx_matrix_destroy(C);
        }
    }
}

/* [1 2 0; 0 0 3] * [1 0; 0 1; 4 5] = [1 2; 12 15], array by array. */
static void test_hand(void)
{
    const int64_t arp[] = {0, 2, 3}, brp[] = {0, 1, 2, 4};
    const int32_t aci[] = {0, 1, 2}, bci[] = {0, 1, 0, 1};
    const double av[] = {1, 2, 3}, bv[] = {1, 1, 4, 5};
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    CHECK_STATUS(spx_matrix_create_csr(2, 3, arp, aci, av, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_create_csr(3, 2, brp, bci, bv, &B), SPX_OK);
    CHECK_STATUS(spx_spgemm(A, B, NULL, &C), SPX_OK);
    int64_t m, p, nnz;
    const int64_t *rp;
    const void *ci, *cv;
    int bits;
    spx_type vt;
    CHECK_STATUS(spx_matrix_dims(C, &m, &p, &nnz), SPX_OK);
    CHECK(m == 2 && p == 2 && nnz == 4);
    spx_matrix_csr(C, &rp, &ci, &bits, &cv, &vt);
    const int32_t *c32 = ci;
    const double *v = cv;
    CHECK(bits == 32 && vt == SPX_F64);
    CHECK(rp[0] == 0 && rp[1] == 2 && rp[2] == 4);
    CHECK(c32[0] == 0 && c32[1] == 1 && c32[2] == 0 && c32[3] == 1);
    CHECK(v[0] == 1 && v[1] == 2 && v[2] == 12 && v[3] == 15);
    spx_matrix_destroy(C);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* [1 1] * [1; -1] = [0], kept as an explicit zero; [0 5; 1 0]^2 = diag(5, 5)
 * built from unsorted product columns. */
static void test_cancellation_and_order(void)
{
    const int64_t arp[] = {0, 2}, brp[] = {0, 1, 2};
    const int32_t aci[] = {0, 1}, bci[] = {0, 0};
    const double av[] = {1, 1}, bv[] = {1, -1};
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    CHECK_STATUS(spx_matrix_create_csr(1, 2, arp, aci, av, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_create_csr(2, 1, brp, bci, bv, &B), SPX_OK);
    for (size_t a = 0; a < sizeof acc_params / sizeof *acc_params; a++) {
        spx_plan_opts o = opts(acc_params[a], 0);
        int64_t nnz = -1;
        const void *cv;
        CHECK_STATUS(spx_spgemm(A, B, &o, &C), SPX_OK);
        spx_matrix_dims(C, NULL, NULL, &nnz);
        spx_matrix_csr(C, NULL, NULL, NULL, &cv, NULL);
        CHECK(nnz == 1 && ((const double *)cv)[0] == 0.0);
        spx_matrix_destroy(C);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);

    /* Row 0 of A has columns 1 then 2; B row 1 holds column 3, row 2 column 0:
     * the product row is gathered as 3, 0 and must come out sorted. */
    const int64_t rp3[] = {0, 2, 2, 3, 4};
    const int32_t ci3[] = {1, 2, 3, 0};
    const double v3[] = {2, 3, 5, 7};
    CHECK_STATUS(spx_matrix_create_csr(4, 4, rp3, ci3, v3, &A), SPX_OK);
    check_all_ways(A, A, "unsorted gather");
    spx_matrix_destroy(A);
}

/* Shapes with a zero dimension or no entries. */
static void test_empty(void)
{
    const int64_t dims[][3] = {{0, 0, 0}, {3, 0, 4}, {0, 3, 2}, {2, 3, 0}, {4, 5, 6}};
    for (size_t t = 0; t < sizeof dims / sizeof *dims; t++) {
        int64_t m = dims[t][0], n = dims[t][1], p = dims[t][2];
        spx_matrix *A = NULL, *B = NULL, *C = NULL;
        CHECK_STATUS(spx_matrix_from_coo(m, n, 0, NULL, NULL, NULL, &A), SPX_OK);
        CHECK_STATUS(spx_matrix_from_coo(n, p, 0, NULL, NULL, NULL, &B), SPX_OK);
        check_all_ways(A, B, "empty");
        CHECK_STATUS(spx_spgemm(A, B, NULL, &C), SPX_OK);
        int64_t cm = -1, cp = -1, cnnz = -1;
        spx_matrix_dims(C, &cm, &cp, &cnnz);
        CHECK(cm == m && cp == p && cnnz == 0);
        spx_matrix_destroy(C);
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
    uint64_t seed = 7; /* entries in A, none in B (and the reverse): empty rows */
    spx_matrix *A = random_matrix(6, 5, 0.5, &seed), *Z = NULL, *R = random_matrix(3, 4, 0.5, &seed);
    CHECK_STATUS(spx_matrix_from_coo(5, 3, 0, NULL, NULL, NULL, &Z), SPX_OK);
    check_all_ways(A, Z, "empty B");
    check_all_ways(Z, R, "empty A");
    spx_matrix_destroy(A);
    spx_matrix_destroy(Z);
    spx_matrix_destroy(R);
}

static int same_matrix(const spx_matrix *X, const spx_matrix *Y)
{
    int64_t m, n, nnz, m2, n2, nnz2;
    spx_matrix_dims(X, &m, &n, &nnz);
    spx_matrix_dims(Y, &m2, &n2, &nnz2);
    if (m != m2 || n != n2 || nnz != nnz2) return 0;
    int64_t *r1 = malloc(sizeof *r1 * (size_t)(4 * nnz + 4)), *c1 = r1 + nnz + 1,
            *r2 = c1 + nnz + 1, *c2 = r2 + nnz + 1;
    double *v1 = malloc(sizeof *v1 * (size_t)(2 * nnz + 2)), *v2 = v1 + nnz + 1;
    spx_matrix_to_coo(X, r1, c1, v1);
    spx_matrix_to_coo(Y, r2, c2, v2);
    int same = 1;
    for (int64_t k = 0; k < nnz && same; k++)
        same = r1[k] == r2[k] && c1[k] == c2[k] && v1[k] == v2[k];
    free(r1);
    free(v1);
    return same;
}

static spx_matrix *identity(int64_t n)
{
    int64_t *ri = malloc(sizeof *ri * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) ri[i] = i;
    spx_matrix *I = NULL;
    CHECK_STATUS(spx_matrix_from_coo(n, n, n, ri, ri, NULL, &I), SPX_OK);
    free(ri);
    return I;
}

/* A*I == A and I*A == A exactly (products by 1, one term each). */
static void test_identity(void)
{
    uint64_t seed = 11;
    spx_matrix *A = random_matrix(37, 53, 0.2, &seed), *I53 = identity(53), *I37 = identity(37);
    for (size_t a = 0; a < sizeof acc_params / sizeof *acc_params; a++) {
        spx_plan_opts o = opts(acc_params[a], 2);
        spx_matrix *C = NULL, *D = NULL;
        CHECK_STATUS(spx_spgemm(A, I53, &o, &C), SPX_OK);
        CHECK_STATUS(spx_spgemm(I37, A, &o, &D), SPX_OK);
        CHECK(same_matrix(C, A));
        CHECK(same_matrix(D, A));
        spx_matrix_destroy(C);
        spx_matrix_destroy(D);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(I53);
    spx_matrix_destroy(I37);
}

/* Random rectangular products, sparse to dense, against the dense product. */
static void test_random(void)
{
    const int64_t shapes[][3] = {{1, 1, 1}, {1, 40, 1}, {40, 1, 40}, {13, 7, 29},
                                 {50, 60, 70}, {120, 80, 30}, {64, 64, 64}};
    const double dens[] = {0.02, 0.1, 0.5, 1.0};
    uint64_t seed = 2026;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        for (size_t d = 0; d < sizeof dens / sizeof *dens; d++) {
            spx_matrix *A = random_matrix(shapes[s][0], shapes[s][1], dens[d], &seed);
            spx_matrix *B = random_matrix(shapes[s][1], shapes[s][2], dens[(d + s) % 4], &seed);
            check_all_ways(A, B, "random");
            spx_matrix_destroy(A);
            spx_matrix_destroy(B);
        }
    }
}

/* Enough work for several threads and chunks: rows from empty to dense. */
static void test_parallel_split(void)
{
    uint64_t seed = 5;
    int64_t m = 300, n = 200, p = 250, len[300];
    for (int64_t i = 0; i < m; i++)
        len[i] = i % 5 == 0 ? 0 : i % 17 == 1 ? n : (i * 7) % 23;
    spx_matrix *A = spx_test_rows_matrix(m, n, len, seed), *B = random_matrix(n, p, 0.3, &seed);
    check_all_ways(A, B, "parallel split");
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* Rows of runs: a band times itself (every row of B one run), in fp64 and
 * fp32; a band times a B whose odd rows have a gap (rows of A mixing runs
 * and not); a band times a shifted band (runs that touch but do not
 * overlap); dense blocks. */
static void test_runs(void)
{
    spx_matrix *A = NULL, *A32 = NULL, *G = NULL, *S = NULL;
    if (!CHECK_STATUS(spx_generate("banded:n=300,bw=5", &A), SPX_OK)) return;
    check_all_ways(A, A, "band x band");
    CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &A32), SPX_OK);
    check_all_ways(A32, A32, "fp32 band x band");
    int64_t len[300];
    for (int64_t i = 0; i < 300; i++)
        len[i] = 7;
    uint64_t seed = 77;
    G = spx_test_rows_matrix(300, 40, len, seed); /* random columns: gaps */
    check_all_ways(A, G, "band x rows with gaps");
    int64_t n = 0, ri[1200], ci[1200];
    for (int64_t i = 0; i < 300; i++)
        for (int64_t d = 0; d < 4; d++, n++)
            ri[n] = i, ci[n] = (i / 4) * 4 + d; /* 4-wide blocks */
    CHECK_STATUS(spx_matrix_from_coo(300, 300, n, ri, ci, NULL, &S), SPX_OK);
    check_all_ways(A, S, "band x blocks");
    check_all_ways(S, S, "blocks x blocks");
    spx_matrix_destroy(A);
    spx_matrix_destroy(A32);
    spx_matrix_destroy(G);
    spx_matrix_destroy(S);
}

/* fp32 operands: computed in fp64 from the fp32 values, returned fp64. */
static void test_fp32(void)
{
    uint64_t seed = 3;
    spx_matrix *A = random_matrix(20, 30, 0.3, &seed), *B = random_matrix(30, 25, 0.3, &seed);
    spx_matrix *A32 = NULL, *B32 = NULL;
    CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &A32), SPX_OK);
    CHECK_STATUS(spx_matrix_copy(B, SPX_F32, &B32), SPX_OK);
    check_all_ways(A32, B32, "fp32 x fp32");
    check_all_ways(A, B32, "fp64 x fp32");
    check_all_ways(A32, B, "fp32 x fp64");
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(A32);
    spx_matrix_destroy(B32);
}

/* B with 2^31 - 1 columns: the default must not allocate a dense accumulator
 * of that width (16 bytes a column); the product is checked entry by entry. */
static void test_wide(void)
{
    const int64_t arp[] = {0, 2, 3}, brp[] = {0, 2, 3, 4};
    const int32_t aci[] = {0, 2, 1}, bci[] = {5, 2147483646, 2147483646, 5};
    const double av[] = {2, 3, 4}, bv[] = {1, 10, 100, 1000};
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    CHECK_STATUS(spx_matrix_wrap_csr(2, 3, arp, aci, av, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_wrap_csr(3, 2147483647, brp, bci, bv, &B), SPX_OK);
    spx_plan_opts o = opts(NULL, 4);
    CHECK_STATUS(spx_spgemm(A, B, &o, &C), SPX_OK);
    int64_t nnz = 0, cols = 0;
    const int64_t *rp;
    const void *ci, *cv;
    int bits;
    spx_matrix_dims(C, NULL, &cols, &nnz);
    spx_matrix_csr(C, &rp, &ci, &bits, &cv, NULL);
    const int32_t *c = ci;
    const double *v = cv;
    /* row 0 = 2*B(0,:) + 3*B(2,:) = (5: 2 + 3000, 2^31-2: 20); row 1 = 4*B(1,:) */
    CHECK(cols == 2147483647 && nnz == 3 && bits == 32);
    CHECK(rp[1] == 2 && c[0] == 5 && c[1] == 2147483646 && c[2] == 2147483646);
    CHECK(v[0] == 3002 && v[1] == 20 && v[2] == 400);
    spx_matrix_destroy(C);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

static void test_errors(void)
{
    uint64_t seed = 9;
    spx_matrix *A = random_matrix(4, 5, 0.5, &seed), *B = random_matrix(4, 5, 0.5, &seed);
    spx_matrix *C = (spx_matrix *)&seed;
    CHECK_STATUS(spx_spgemm(A, B, NULL, &C), SPX_ERR_DIM_MISMATCH);
    CHECK(C == NULL);
    CHECK_STATUS(spx_spgemm(A, NULL, NULL, &C), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_spgemm(NULL, B, NULL, &C), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_spgemm(A, B, NULL, NULL), SPX_ERR_INVALID_ARG);
    spx_plan_opts o = opts(NULL, 0);
    o.device = SPX_DEV_CUDA; /* CUDA formats compute it: refused only without a GPU */
    spx_status st = spx_spgemm(A, A, &o, &C);
    if (spx_device_available(SPX_DEV_CUDA))
        CHECK_STATUS(st, SPX_ERR_DIM_MISMATCH);
    else
        CHECK(st == SPX_ERR_NO_DEVICE || st == SPX_ERR_NOT_COMPILED);
    o = opts("acc=tree", 0); /* the plan refuses the parameter before it sees B */
    CHECK_STATUS(spx_spgemm(B, B, &o, &C), SPX_ERR_BAD_PARAM);
    spx_matrix *At = NULL;
    CHECK_STATUS(spx_matrix_transpose(A, &At), SPX_OK);
    CHECK_STATUS(spx_spgemm(A, At, &o, &C), SPX_ERR_BAD_PARAM);
    o = opts("tiles=8", 0);
    CHECK_STATUS(spx_spgemm(A, At, &o, &C), SPX_ERR_BAD_PARAM);
    o = opts(NULL, -1);
    CHECK_STATUS(spx_spgemm(A, At, &o, &C), SPX_ERR_INVALID_ARG);
    CHECK(C == NULL);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(At);
}

/* Each allocation of a product fails in turn: SPX_ERR_OOM and no result. */
/* One SpGEMM plan of A multiplies several B; the plan answers for SpGEMM
 * only; auto takes gustavson on the CPU. */
static void test_plan(void)
{
    uint64_t seed = 31;
    spx_matrix *A = random_matrix(30, 20, 0.2, &seed);
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    double x[20] = {0}, y[30];
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_OK)) {
        CHECK(strcmp(spx_plan_format(P), "gustavson") == 0);
        CHECK(spx_plan_operation(P) == SPX_OP_SPGEMM);
        for (int k = 0; k < 3; k++) {
            spx_matrix *B = random_matrix(20, 10 + 7 * k, 0.3, &seed), *C = NULL;
            if (CHECK_STATUS(spx_spgemm_run(P, B, &C), SPX_OK)) CHECK(check_against_dense(A, B, C));
            spx_matrix_destroy(C);
            C = (spx_matrix *)&seed;
            CHECK_STATUS(spx_spgemm_run(P, A, &C), SPX_ERR_DIM_MISMATCH);
            CHECK(C == NULL);
            spx_matrix_destroy(B);
        }
        CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, y), SPX_ERR_INVALID_ARG);
    }
    spx_plan_destroy(P);
    P = NULL;
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        spx_matrix *C = NULL;
        CHECK_STATUS(spx_spgemm_run(P, A, &C), SPX_ERR_INVALID_ARG);
    }
    spx_plan_destroy(P);
    o.format = "csr";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_ERR_NO_FORMAT);
    o.format = "gustavson";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_NO_FORMAT);
    o.op = SPX_OP_T;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_plan_create(A, (spx_operation)7, NULL, &P), SPX_ERR_INVALID_ARG);
    o.op = SPX_OP_N;
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMM, &o, &P), SPX_ERR_NO_FORMAT)) /* gustavson */
        CHECK(strstr(spx_last_error(), "has no cpu f64 SpMM kernel") != NULL);
    spx_matrix_destroy(A);
}

/* B's pattern with values v_k * scale + k (k the entry's place). */
static spx_matrix *revalued(const spx_matrix *B, double scale)
{
    int64_t m, n, nnz;
    spx_matrix_dims(B, &m, &n, &nnz);
    int64_t *ri = malloc(sizeof *ri * (size_t)(2 * nnz + 2)), *cj = ri + nnz + 1;
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    spx_matrix *R = NULL;
    spx_matrix_to_coo(B, ri, cj, v);
    for (int64_t k = 0; k < nnz; k++)
        v[k] = v[k] * scale + (double)k;
    CHECK_STATUS(spx_matrix_from_coo(m, n, nnz, ri, cj, v, &R), SPX_OK);
    free(ri);
    free(v);
    return R;
}

/* spx_spgemm_numeric on the CPU with params (gustavson from its memo, or
 * with memo=off its numeric phase alone): the same bits as a new product of
 * the revalued B, and of B again (the memo kept: B's pattern); a B of
 * another pattern, a C of another shape or place refused, C left as it was. */
static void numeric_case(const char *params, int threads, const char *a_spec, const char *b_spec)
{
    spx_matrix *A = NULL, *B = NULL, *B2 = NULL, *other = NULL;
    spx_matrix *C = NULL, *C2 = NULL, *before = NULL, *tiny = NULL, *first = NULL;
    spx_plan *P = NULL, *S = NULL;
    spx_plan_opts o = opts(params, threads);
    if (!CHECK_STATUS(spx_generate(a_spec, &A), SPX_OK) ||
        !CHECK_STATUS(spx_generate(b_spec, &B), SPX_OK))
        goto done;
    int64_t bm, bn, bnz;
    char spec[96];
    spx_matrix_dims(B, &bm, &bn, &bnz);
    snprintf(spec, sizeof spec, "random:m=%lld,n=%lld,nnz=%lld,seed=99", (long long)bm,
             (long long)bn, (long long)(bnz / 2 + 1));
    B2 = revalued(B, -1.5);
    if (!CHECK_STATUS(spx_generate(spec, &other), SPX_OK) ||
        !CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_OK) ||
        !CHECK_STATUS(spx_spgemm_run(P, B, &C), SPX_OK) ||
        !CHECK_STATUS(spx_matrix_copy(C, SPX_F64, &first), SPX_OK))
        goto done;
    CHECK_STATUS(spx_spgemm_run(P, B2, &C2), SPX_OK);
    if (CHECK_STATUS(spx_spgemm_numeric(P, B2, C), SPX_OK) && !CHECK(same_matrix(C, C2)))
        fprintf(stderr, "  numeric %s x %s, %s, %d threads\n", a_spec, b_spec,
                params ? params : "default", threads);
    CHECK_STATUS(spx_matrix_copy(C, SPX_F64, &before), SPX_OK);
    if (CHECK_STATUS(spx_spgemm_numeric(P, B, C), SPX_OK)) /* the memo again: B's pattern */
        CHECK(same_matrix(C, first));
    if (CHECK_STATUS(spx_spgemm_numeric(P, B2, C), SPX_OK)) CHECK(same_matrix(C, before));
    if (CHECK_STATUS(spx_spgemm_numeric(P, other, C), SPX_ERR_INVALID_ARG))
        CHECK(strstr(spx_last_error(), "another pattern") != NULL);
    CHECK(same_matrix(C, before));
    if (CHECK_STATUS(spx_generate("random:m=1,n=1,nnz=1,seed=1", &tiny), SPX_OK))
        CHECK_STATUS(spx_spgemm_numeric(P, B2, tiny), SPX_ERR_DIM_MISMATCH);
    CHECK_STATUS(spx_spgemm_numeric(P, B2, NULL), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_spgemm_numeric(NULL, B2, C), SPX_ERR_BAD_HANDLE);
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, NULL, &S), SPX_OK))
        CHECK_STATUS(spx_spgemm_numeric(S, B2, C), SPX_ERR_INVALID_ARG);
done:
    spx_plan_destroy(P);
    spx_plan_destroy(S);
    spx_matrix_destroy(A), spx_matrix_destroy(B), spx_matrix_destroy(B2);
    spx_matrix_destroy(other), spx_matrix_destroy(C), spx_matrix_destroy(C2);
    spx_matrix_destroy(before), spx_matrix_destroy(tiny), spx_matrix_destroy(first);
}

static void test_numeric(void)
{
    static const char *const pairs[][2] = {
        {"random:m=30,n=20,nnz=120,seed=41", "random:m=20,n=25,nnz=150,seed=42"},
        {"banded:n=400,bw=6", "banded:n=400,bw=6"},   /* rows of runs, memo: 6.8 an entry */
        {"banded:n=400,bw=20", "banded:n=400,bw=20"}, /* 20 an entry: no memo, the gather */
        {"rmat:scale=10,ef=8,values=random", "rmat:scale=10,ef=8,values=random"},
    };
    static const char *const params[] = {NULL,       "acc=dense", "acc=hash",
                                         "runs=off", "memo=off",  "acc=hash,memo=off"};
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++)
        for (size_t a = 0; a < sizeof params / sizeof *params; a++)
            numeric_case(params[a], 1 + (int)(a % 2), pairs[p][0], pairs[p][1]);
}

static void test_alloc_failure(void)
{
    uint64_t seed = 13;
    spx_matrix *A = random_matrix(30, 20, 0.3, &seed), *B = random_matrix(20, 25, 0.3, &seed);
    for (size_t a = 0; a < sizeof acc_params / sizeof *acc_params; a++) {
        spx_plan_opts o = opts(acc_params[a], 2);
        spx_status st = SPX_ERR_OOM;
        int failures = 0;
        for (long n = 1; n < 100 && st == SPX_ERR_OOM; n++) {
            spx_matrix *C = (spx_matrix *)&seed;
            spx__alloc_fail_at(n);
            st = spx_spgemm(A, B, &o, &C);
            spx__alloc_fail_at(0);
            if (st == SPX_ERR_OOM) {
                failures++;
                CHECK(C == NULL);
            } else {
                CHECK_STATUS(st, SPX_OK);
                CHECK(check_against_dense(A, B, C));
                spx_matrix_destroy(C);
            }
        }
        CHECK(failures >= 5); /* row counts, chunks, workspaces, C's arrays */
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* Independent C = A*A: a dense row of sums and flags per row, sequential,
 * columns collected by scanning the flags (so sorted); |sum| for the scale. */
static int check_square(const spx_matrix *A, const spx_matrix *C, const char *name)
{
    int64_t n, nnz, cnnz;
    spx_matrix_dims(A, &n, NULL, &nnz);
    spx_matrix_dims(C, NULL, NULL, &cnnz);
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)), *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    int64_t *rp = calloc((size_t)n + 1, sizeof *rp);
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    double *acc = calloc((size_t)n + 1, sizeof *acc), *mag = calloc((size_t)n + 1, sizeof *mag);
    unsigned char *hit = calloc((size_t)n + 1, 1);
    spx_matrix_to_coo(A, ri, ci, v);
    for (int64_t k = 0; k < nnz; k++) rp[ri[k] + 1]++;
    for (int64_t i = 0; i < n; i++) rp[i + 1] += rp[i];
    const int64_t *crp;
    const void *cci, *ccv;
    int bits;
    spx_matrix_csr(C, &crp, &cci, &bits, &ccv, NULL);
    const double *cv = ccv;
    int64_t want = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            for (int64_t q = rp[ci[k]]; q < rp[ci[k] + 1]; q++) {
                acc[ci[q]] += v[k] * v[q];
                mag[ci[q]] += fabs(v[k] * v[q]);
                hit[ci[q]] = 1;
            }
        int64_t out = crp[i];
        for (int64_t j = 0; j < n; j++) {
            if (!hit[j]) continue;
            want++;
            int64_t col = out < crp[i + 1] ? (bits == 32 ? ((const int32_t *)cci)[out]
                                                         : ((const int64_t *)cci)[out])
                                           : -1;
            if (col != j || fabs(cv[out] - acc[j]) > 1e-12 * mag[j]) bad++;
            out++;
            acc[j] = mag[j] = 0.0;
            hit[j] = 0;
        }
        if (out != crp[i + 1]) bad++;
    }
    printf("%-16s A*A: nnz %lld (reference %lld), %lld mismatches\n", name, (long long)cnnz,
           (long long)want, (long long)bad);
    free(ri);
    free(ci);
    free(rp);
    free(v);
    free(acc);
    free(mag);
    free(hit);
    return bad == 0 && want == cnnz;
}

static void test_shared(void)
{
    const char *dir = spx_test_matrices_dir();
    static const char *const names[] = {"1138_bus", "can_1072", "west0067"};
    for (size_t t = 0; dir && t < sizeof names / sizeof *names; t++) {
        spx_matrix *A = spx_test_read_matrix(dir, names[t]);
        if (!A) continue;
        for (size_t a = 0; a < sizeof acc_params / sizeof *acc_params; a++) {
            spx_plan_opts o = opts(acc_params[a], 2);
            spx_matrix *C = NULL;
            if (CHECK_STATUS(spx_spgemm(A, A, &o, &C), SPX_OK)) CHECK(check_square(A, C, names[t]));
            spx_matrix_destroy(C);
        }
        spx_matrix_destroy(A);
    }
}

int main(void)
{
    if (spx_test_part("shared")) test_shared();
    if (spx_test_part(NULL)) {
        test_hand();
        test_cancellation_and_order();
        test_empty();
        test_identity();
        test_random();
        test_parallel_split();
        test_runs();
        test_fp32();
        test_wide();
        test_errors();
        test_plan();
        test_numeric();
        test_alloc_failure();
    }
    return spx_test_finish();
}
