/* Unit tests of the matrix object on small hand-computed matrices: creation,
 * wrapping, triplets with duplicates, validation errors, transpose, COO/CSC
 * export, value conversion, bad handles, and plans of the reference format. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* A = [1 0 2; 0 0 0; 3 4 0; 0 0 5] */
static const int64_t rp[] = {0, 2, 2, 4, 5};
static const int32_t ci[] = {0, 2, 0, 1, 2};
static const double va[] = {1, 2, 3, 4, 5};

static void test_create_and_view(void)
{
    spx_matrix *A = NULL;
    int64_t r, c, n;
    const int64_t *p;
    const void *cols, *vals;
    int bits;
    spx_type t;
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, ci, va, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_dims(A, &r, &c, &n), SPX_OK);
    CHECK(r == 4 && c == 3 && n == 5);
    CHECK_STATUS(spx_matrix_csr(A, &p, &cols, &bits, &vals, &t), SPX_OK);
    CHECK(bits == 32 && t == SPX_F64 && p != rp && p[4] == 5);
    CHECK(((const double *)vals)[3] == 4.0 && ((const int32_t *)cols)[1] == 2);
    spx_matrix_destroy(A);

    CHECK_STATUS(spx_matrix_wrap_csr(4, 3, rp, ci, va, &A), SPX_OK);
    CHECK_STATUS(spx_matrix_csr(A, &p, &cols, NULL, &vals, NULL), SPX_OK);
    CHECK(p == rp && cols == ci && vals == va); /* zero copy */
    spx_matrix_destroy(A);

    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, ci, NULL, &A), SPX_OK); /* pattern: ones */
    spx_matrix_csr(A, NULL, NULL, NULL, &vals, NULL);
    CHECK(((const double *)vals)[4] == 1.0);
    spx_matrix_destroy(A);
}

static void test_validation(void)
{
    spx_matrix *A = (spx_matrix *)0x1;
    int64_t bad_start[] = {1, 2, 2, 4, 5};
    int64_t decreasing[] = {0, 2, 1, 4, 5};
    int32_t out_of_range[] = {0, 3, 0, 1, 2};
    int32_t unsorted[] = {2, 0, 0, 1, 2};
    int32_t duplicate[] = {0, 0, 0, 1, 2};
    CHECK_STATUS(spx_matrix_create_csr(4, 3, bad_start, ci, va, &A), SPX_ERR_BAD_ROWPTR);
    CHECK(A == NULL);
    CHECK_STATUS(spx_matrix_create_csr(4, 3, decreasing, ci, va, &A), SPX_ERR_BAD_ROWPTR);
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, out_of_range, va, &A), SPX_ERR_INDEX_RANGE);
    CHECK(strstr(spx_last_error(), "column 3") != NULL);
    CHECK_STATUS(spx_matrix_wrap_csr(4, 3, rp, unsorted, va, &A), SPX_ERR_UNSORTED);
    CHECK_STATUS(spx_matrix_wrap_csr(4, 3, rp, duplicate, va, &A), SPX_ERR_DUPLICATE);
    CHECK_STATUS(spx_matrix_create_csr(-1, 3, rp, ci, va, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_create_csr(4, 3, NULL, ci, va, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, ci, va, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_dims(NULL, NULL, NULL, NULL), SPX_ERR_BAD_HANDLE);
    int64_t garbage[16] = {0};
    CHECK_STATUS(spx_matrix_dims((spx_matrix *)garbage, NULL, NULL, NULL), SPX_ERR_BAD_HANDLE);
    int64_t ri[] = {0, 5}, cj[] = {0, 0};
    CHECK_STATUS(spx_matrix_from_coo(4, 3, 2, ri, cj, NULL, &A), SPX_ERR_INDEX_RANGE);
}

static void test_coo_and_transpose(void)
{
    /* Triplets of A, out of order, with (2,0) split into 1 + 2. */
    int64_t ri[] = {3, 2, 0, 2, 0, 2}, cj[] = {2, 1, 2, 0, 0, 0};
    double v[] = {5, 4, 2, 1, 1, 2};
    spx_matrix *A = NULL, *T = NULL;
    CHECK_STATUS(spx_matrix_from_coo(4, 3, 6, ri, cj, v, &A), SPX_OK);
    const int64_t *p;
    const void *cols, *vals;
    spx_matrix_csr(A, &p, &cols, NULL, &vals, NULL);
    CHECK(memcmp(p, rp, sizeof rp) == 0 && memcmp(cols, ci, sizeof ci) == 0);
    CHECK(memcmp(vals, va, sizeof va) == 0);

    CHECK_STATUS(spx_matrix_transpose(A, &T), SPX_OK);
    int64_t tr, tc, tn;
    spx_matrix_dims(T, &tr, &tc, &tn);
    CHECK(tr == 3 && tc == 4 && tn == 5);
    static const int64_t trp[] = {0, 2, 3, 5};
    static const int32_t tci[] = {0, 2, 2, 0, 3};
    static const double tva[] = {1, 3, 4, 2, 5};
    spx_matrix_csr(T, &p, &cols, NULL, &vals, NULL);
    CHECK(memcmp(p, trp, sizeof trp) == 0 && memcmp(cols, tci, sizeof tci) == 0);
    CHECK(memcmp(vals, tva, sizeof tva) == 0);

    int64_t cr[5], cc[5], colptr[4], rowidx[5];
    double cv[5], csv[5];
    CHECK_STATUS(spx_matrix_to_coo(A, cr, cc, cv), SPX_OK);
    CHECK(cr[2] == 2 && cc[2] == 0 && cv[2] == 3.0 && cr[4] == 3);
    CHECK_STATUS(spx_matrix_to_csc(A, colptr, rowidx, csv), SPX_OK);
    CHECK(memcmp(colptr, trp, sizeof trp) == 0 && rowidx[1] == 2 && csv[3] == 2.0);

    spx_matrix *F = NULL;
    spx_type t;
    CHECK_STATUS(spx_matrix_copy(A, SPX_F32, &F), SPX_OK);
    spx_matrix_csr(F, NULL, NULL, NULL, &vals, &t);
    CHECK(t == SPX_F32 && ((const float *)vals)[4] == 5.0f);
    spx_matrix_destroy(F);
    spx_matrix_destroy(T);
    spx_matrix_destroy(A);
}

static void test_plans(void)
{
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, ci, va, &A), SPX_OK);
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "ref";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    double x[3] = {1, 2, 3}, y[4] = {NAN, NAN, NAN, NAN};
    CHECK_STATUS(spx_spmv(P, 2.0, x, 0.0, y), SPX_OK);
    CHECK(y[0] == 14 && y[1] == 0 && y[2] == 22 && y[3] == 30);
    CHECK_STATUS(spx_spmv(P, 1.0, x, -1.0, y), SPX_OK);
    CHECK(y[0] == -7 && y[3] == -15);
    CHECK(strcmp(spx_plan_format(P), "ref") == 0 && spx_plan_prep_ms(P) >= 0.0);
    CHECK(spx_plan_bytes(P) > 0);
    spx_plan_destroy(P);

    o.op = SPX_OP_T; /* y = A^T x, length 3 */
    double xt[4] = {1, 1, 1, 1}, yt[3];
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    CHECK_STATUS(spx_spmv(P, 1.0, xt, 0.0, yt), SPX_OK);
    CHECK(yt[0] == 4 && yt[1] == 4 && yt[2] == 7);
    spx_plan_destroy(P);

    o = spx_plan_opts_default();
    o.format = "no-such-format";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_NO_FORMAT);
    o.format = "csr";
    o.precision = SPX_F16;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_NO_FORMAT);
    static const char *const unparsed[] = {"csr", "coo", "ref"}; /* formats without params */
    for (size_t i = 0; i < sizeof unparsed / sizeof unparsed[0]; i++) {
        o = spx_plan_opts_default();
        o.format = unparsed[i];
        o.params = "th=8";
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_BAD_PARAM);
        CHECK(P == NULL && strstr(spx_last_error(), "th") != NULL);
        o.params = "reorder=none"; /* the plan layer's, not the format's */
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
        spx_plan_destroy(P);
        P = NULL;
    }
    o = spx_plan_opts_default();
    o.device = (spx_device)7;
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_ERR_INVALID_ARG);
    o = spx_plan_opts_default();
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK); /* auto */
    CHECK(spx_plan_format(P) != NULL);
    CHECK_STATUS(spx_spmv(P, 1.0, NULL, 0.0, y), SPX_ERR_INVALID_ARG);
    spx_plan_destroy(P);
    CHECK_STATUS(spx_spmv(NULL, 1.0, x, 0.0, y), SPX_ERR_BAD_HANDLE);
    o.device = SPX_DEV_CUDA;
    if (!spx_device_available(SPX_DEV_CUDA)) {
        P = (spx_plan *)&o;
        spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
        /* built without CUDA: not compiled; built with it, no GPU: no device */
        CHECK(st == SPX_ERR_NOT_COMPILED || st == SPX_ERR_NO_DEVICE);
        CHECK(st != SPX_ERR_NO_DEVICE || strstr(spx_last_error(), "no CUDA device") != NULL);
        CHECK(P == NULL);
    }
    spx_matrix_destroy(A);
}

/* A plan of a few nonzeros wakes no team of threads (core/threads.h): one
 * thread whatever OMP_NUM_THREADS says. */
static void test_small_plans_one_thread(void)
{
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    CHECK_STATUS(spx_matrix_create_csr(4, 3, rp, ci, va, &A), SPX_OK);
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "csr";
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    CHECK(strstr(spx_plan_describe(P), "threads=1 ") != NULL);
    spx_plan_destroy(P);
    o.threads = 3; /* asked: kept */
    CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK);
    CHECK(strstr(spx_plan_describe(P), "threads=3 ") != NULL);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
}

int main(void)
{
    test_create_and_view();
    test_validation();
    test_coo_and_transpose();
    test_plans();
    test_small_plans_one_thread();
    CHECK(strcmp(spx_status_name(SPX_ERR_OOM), "SPX_ERR_OOM") == 0);
    return spx_test_finish();
}
