/* Device matrices (spx_matrix_wrap_device) on a GPU. A host matrix's CSR
 * arrays are put in device memory (spx__cuda_upload: cudaMalloc and a copy)
 * with 32- or 64-bit row offsets and fp64 or fp32 values, wrapped, and
 * planned on CUDA with csr (stream and vector kernels) and auto in both
 * precisions; y is compared with the long-double reference on the host
 * matrix (fp32 values: its float copy), with y poisoned with NaN when
 * beta = 0 (it must not be read). The plan reads the caller's columns and
 * values in place (its device arrays are the caller's; a value changed on
 * the device is seen by the next product); every host path refuses the
 * matrix with SPX_ERR_UNSUPPORTED; destroying the matrix and its plan leaves
 * the caller's arrays as they were. Cases: 0 x 0, m x 0, nnz = 0, empty
 * rows, one row of 10,000 entries, rectangular random, varied row lengths.
 * SpMM plans of a device matrix too (csr and auto, against CPU ref).
 * Exits with 77 (SKIPPED) without a GPU (tests/test_wrap.c checks the
 * refusal of spx_matrix_wrap_device there).
 *
 * Tolerance (as tests/test_gpu.c): |y - ref|_inf <= tol * max_i (|alpha|
 * |A| |x| + |beta| |y0|)_i, fp64 tol = 64 * 2^-53, fp32 64 * 2^-24 against
 * the reference on the float-rounded x, y0 and values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "plan/format.h"

#define TOL64 (64.0 * 0x1.0p-53)
#define TOL32 (64.0 * 0x1.0p-24)

static const char *type_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : "f32";
}

/* A host matrix's CSR on the device, wrapped. */
typedef struct dev_csr {
    spx_matrix *A; /* the device matrix over rp, ci, v */
    void *rp, *ci, *v;
    int rp_bits;
    spx_type vt;
} dev_csr;

static void dev_csr_free(dev_csr *d)
{
    spx_matrix_destroy(d->A);
    spx__cuda_free(d->rp);
    spx__cuda_free(d->ci);
    spx__cuda_free(d->v);
    memset(d, 0, sizeof *d);
}

/* H's arrays (fp64, 32-bit columns) in device memory: offsets of rp_bits,
 * values of vt; then spx_matrix_wrap_device. 1 when all went well. */
static int put_on_device(const spx_matrix *H, int rp_bits, spx_type vt, dev_csr *d)
{
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type ht;
    int64_t m, n, nnz;
    memset(d, 0, sizeof *d);
    d->rp_bits = rp_bits;
    d->vt = vt;
    spx_matrix_dims(H, &m, &n, &nnz);
    if (!CHECK_STATUS(spx_matrix_csr(H, &rp, &ci, &bits, &v, &ht), SPX_OK) || bits != 32 ||
        ht != SPX_F64)
        return 0;
    int32_t *rp32 = malloc(((size_t)m + 1) * sizeof *rp32);
    float *vf = malloc(((size_t)nnz + 1) * sizeof *vf);
    for (int64_t i = 0; i <= m; i++)
        rp32[i] = (int32_t)rp[i];
    for (int64_t k = 0; k < nnz; k++)
        vf[k] = (float)((const double *)v)[k];
    const size_t es = vt == SPX_F64 ? sizeof(double) : sizeof(float);
    int ok =
        CHECK_STATUS(spx__cuda_upload(&d->rp, rp_bits == 32 ? (const void *)rp32 : (const void *)rp,
                                      ((size_t)m + 1) * (size_t)(rp_bits / 8), "test"),
                     SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&d->ci, ci, (size_t)nnz * sizeof(int32_t), "test"), SPX_OK) &&
        CHECK_STATUS(
            spx__cuda_upload(&d->v, vt == SPX_F64 ? v : (const void *)vf, (size_t)nnz * es, "test"),
            SPX_OK) &&
        CHECK_STATUS(spx_matrix_wrap_device(m, n, d->rp, rp_bits, d->ci, 32, d->v, vt, &d->A),
                     SPX_OK);
    free(rp32);
    free(vf);
    return ok;
}

/* y = alpha*A*x + beta*y0 on device vectors of the plan's type t (x, y0 in
 * double on the host, already rounded to t); y0 NULL: y holds NaN (beta =
 * 0 must not read it). y_out: the result in double. */
static spx_status run_device(const spx_plan *P, spx_type t, double alpha, const double *x,
                             int64_t n, double beta, const double *y0, int64_t m, double *y_out)
{
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    char *hx = malloc(((size_t)n + 1) * es), *hy = malloc(((size_t)m + 1) * es);
    void *dx = NULL, *dy = NULL;
    spx_status st = SPX_OK;
    for (int64_t i = 0; i < n; i++)
        if (t == SPX_F64)
            ((double *)hx)[i] = x[i];
        else
            ((float *)hx)[i] = (float)x[i];
    for (int64_t i = 0; i < m; i++)
        if (t == SPX_F64)
            ((double *)hy)[i] = y0 ? y0[i] : NAN;
        else
            ((float *)hy)[i] = y0 ? (float)y0[i] : NAN;
    SPX_TRY(spx__cuda_upload(&dx, hx, (size_t)n * es, "test x"));
    SPX_TRY(spx__cuda_upload(&dy, hy, (size_t)m * es, "test y"));
    SPX_TRY(spx_spmv(P, alpha, dx, beta, dy));
    SPX_TRY(spx__cuda_sync(NULL));
    SPX_TRY(spx__cuda_copy(hy, dy, (size_t)m * es, 0));
    for (int64_t i = 0; i < m; i++)
        y_out[i] = t == SPX_F64 ? ((double *)hy)[i] : (double)((float *)hy)[i];
cleanup:
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    free(hx);
    free(hy);
    return st;
}

/* Two products of P (alpha = 1.5, beta = 0 over NaN; alpha = -0.75, beta =
 * 2) against the reference on R, the matrix as the plan multiplies it. */
static void check_products(const spx_plan *P, const spx_matrix *R, spx_type t, const char *what)
{
    int64_t m, n;
    spx_matrix_dims(R, &m, &n, NULL);
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(((size_t)m + 1) * sizeof *y0);
    double *y = malloc(((size_t)m + 1) * sizeof *y), *ref = malloc(((size_t)m + 1) * sizeof *ref);
    double *scale = malloc(((size_t)m + 1) * sizeof *scale);
    uint64_t seed = 7 + (uint64_t)m;
    for (int64_t i = 0; i < n; i++)
        x[i] = t == SPX_F64 ? spx_test_rand(&seed) : (double)(float)spx_test_rand(&seed);
    for (int64_t i = 0; i < m; i++)
        y0[i] = t == SPX_F64 ? spx_test_rand(&seed) : (double)(float)spx_test_rand(&seed);
    static const double ab[2][2] = {{1.5, 0.0}, {-0.75, 2.0}};
    for (int k = 0; k < 2; k++) {
        const double alpha = ab[k][0], beta = ab[k][1];
        spx_test_reference(R, SPX_OP_N, alpha, x, beta, y0, ref, scale);
        if (!CHECK_STATUS(run_device(P, t, alpha, x, n, beta, beta == 0.0 ? NULL : y0, m, y),
                          SPX_OK))
            continue;
        spx_test_close(y, ref, scale, m, t == SPX_F64 ? TOL64 : TOL32, "%s alpha=%g beta=%g (%s)",
                       what, alpha, beta, spx_plan_describe(P));
    }
    free(x);
    free(y0);
    free(y);
    free(ref);
    free(scale);
}

/* One plan of d (format, precision t, params) checked: csr chosen, the
 * caller's columns (and values of t, and 64-bit offsets) in place, the
 * description saying so, the products right. H: the host matrix, Hf its
 * float copy. */
static void check_plan(const dev_csr *d, const spx_matrix *H, const spx_matrix *Hf,
                       const char *format, spx_type t, const char *params, const char *what)
{
    char label[256];
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = t;
    o.params = params;
    snprintf(label, sizeof label, "%s: %s %s %s offsets=%d values=%s", what, format, type_name(t),
             params ? params : "", d->rp_bits, type_name(d->vt));
    if (!CHECK_STATUS(spx_plan_create(d->A, SPX_OP_SPMV, &o, &P), SPX_OK)) {
        fprintf(stderr, "  %s: %s\n", label, spx_last_error());
        return;
    }
    const void *rp, *ci, *v;
    spx__plan_device_arrays(P, &rp, &ci, &v);
    CHECK(strcmp(spx_plan_format(P), "csr") == 0);
    CHECK(strstr(spx_plan_describe(P), "matrix=device") != NULL);
    CHECK(ci == d->ci);
    CHECK(t == d->vt ? v == d->v : v != d->v && v != NULL);
    CHECK(d->rp_bits == 64 ? rp == d->rp : rp != d->rp && rp != NULL);
    check_products(P, t == SPX_F32 || d->vt == SPX_F32 ? Hf : H, t, label);
    spx_plan_destroy(P);
}

/* H on the device in every width and type, planned every way. */
static void check_matrix(const spx_matrix *H, const char *what)
{
    spx_matrix *Hf = NULL;
    if (!CHECK_STATUS(spx_matrix_copy(H, SPX_F32, &Hf), SPX_OK)) return;
    for (int rb = 32; rb <= 64; rb += 32)
        for (int vt = SPX_F64; vt <= SPX_F32; vt++) {
            dev_csr d;
            if (put_on_device(H, rb, (spx_type)vt, &d))
                for (int t = SPX_F64; t <= SPX_F32; t++) {
                    check_plan(&d, H, Hf, "csr", (spx_type)t, NULL, what);
                    check_plan(&d, H, Hf, "auto", (spx_type)t, NULL, what);
                    check_plan(&d, H, Hf, "csr", (spx_type)t, "kernel=vector", what);
                }
            dev_csr_free(&d);
        }
    spx_matrix_destroy(Hf);
}

static void test_matrices(void)
{
    static const int64_t gaps[] = {0, 3, 0, 0, 7, 1};
    struct {
        spx_matrix *H;
        const char *what;
    } c[] = {
        {spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL), "0 x 0"},
        {spx_test_coo_matrix(5, 0, 0, NULL, NULL, NULL), "5 x 0"},
        {spx_test_coo_matrix(4, 6, 0, NULL, NULL, NULL), "nnz 0"},
        {spx_test_pattern_matrix(50, 40, gaps, 6, 3), "empty rows"},
        {spx_test_dense_row_matrix(64, 10000, 5, 3, 4), "a row of 10000"},
        {spx_test_random_matrix(2000, 1500, 20000, 5), "random 2000 x 1500"},
        {spx_test_varied_matrix(3000, 3000, 3000.0, 6), "varied rows"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (c[i].H) check_matrix(c[i].H, c[i].what);
        spx_matrix_destroy(c[i].H);
    }
}

/* A plan reads the caller's values in place: new values written on the
 * device after planning are in the next product. And the plan needs the
 * arrays, not the header: it runs after spx_matrix_destroy, which leaves the
 * arrays as they were. */
static void test_in_place(void)
{
    spx_matrix *H = spx_test_random_matrix(300, 200, 3000, 8), *H2 = NULL;
    dev_csr d = {0};
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    if (!H || !put_on_device(H, 32, SPX_F64, &d)) goto done;
    o.device = SPX_DEV_CUDA;
    if (!CHECK_STATUS(spx_plan_create(d.A, SPX_OP_SPMV, &o, &P), SPX_OK)) goto done;
    int64_t nnz;
    const void *v;
    spx_matrix_dims(H, NULL, NULL, &nnz);
    spx_matrix_csr(H, NULL, NULL, NULL, &v, NULL);
    double *twice = malloc(((size_t)nnz + 1) * sizeof *twice);
    for (int64_t k = 0; k < nnz; k++)
        twice[k] = 2.0 * ((const double *)v)[k];
    CHECK_STATUS(spx__cuda_copy(d.v, twice, (size_t)nnz * sizeof *twice, 1), SPX_OK);
    CHECK_STATUS(spx_matrix_copy(H, SPX_F64, &H2), SPX_OK);
    if (H2) {
        void *v2;
        spx_matrix_csr(H2, NULL, NULL, NULL, (const void **)&v2, NULL);
        memcpy(v2, twice, (size_t)nnz * sizeof *twice); /* H2: H with values doubled */
        check_products(P, H2, SPX_F64, "values changed on the device after planning");
    }
    spx_matrix_destroy(d.A);
    d.A = NULL;
    if (H2) check_products(P, H2, SPX_F64, "the plan after spx_matrix_destroy");
    spx_plan_destroy(P);
    double *back = malloc(((size_t)nnz + 1) * sizeof *back);
    CHECK_STATUS(spx__cuda_copy(back, d.v, (size_t)nnz * sizeof *back, 0), SPX_OK);
    CHECK(memcmp(back, twice, (size_t)nnz * sizeof *back) == 0);
    free(back);
    free(twice);
done:
    dev_csr_free(&d);
    spx_matrix_destroy(H);
    spx_matrix_destroy(H2);
}

/* A call that must refuse a device matrix with the message that says why. */
static void check_refused(spx_status st, const char *what)
{
    if (!CHECK_STATUS(st, SPX_ERR_UNSUPPORTED) ||
        !CHECK(strstr(spx_last_error(), "device matrix") != NULL))
        fprintf(stderr, "  %s: %s\n", what, spx_last_error());
}

static spx_status plan_of(const spx_matrix *A, spx_operation op, spx_device dev, const char *format,
                          spx_type t, spx_op transpose, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = dev;
    o.format = format;
    o.precision = t;
    o.op = transpose;
    o.params = params;
    spx_status st = spx_plan_create(A, op, &o, &P);
    spx_plan_destroy(P);
    return st;
}

/* Every public entry that reads a matrix's arrays on the host refuses a
 * device matrix, and so does every plan but CUDA csr SpMV of op N. */
static void test_refusals(void)
{
    spx_matrix *H = spx_test_random_matrix(40, 40, 300, 9), *B = NULL;
    dev_csr d = {0};
    spx_stats s;
    int64_t r = -1, c = -1, z = -1, rp[41], ri[400], ci[400];
    double v[400], value = 1.0;
    const int64_t *rp64;
    const void *p;
    int bits;
    if (!H || !put_on_device(H, 64, SPX_F64, &d)) goto done;
    CHECK_STATUS(spx_matrix_dims(d.A, &r, &c, &z), SPX_OK);
    CHECK(r == 40 && c == 40 && z > 0 && z <= 300);
    check_refused(spx_matrix_csr(d.A, &rp64, NULL, NULL, NULL, NULL), "spx_matrix_csr");
    check_refused(spx_matrix_csr(d.A, NULL, &p, &bits, NULL, NULL), "spx_matrix_csr (columns)");
    check_refused(spx_matrix_row_offsets(d.A, &p, &bits), "spx_matrix_row_offsets");
    check_refused(spx_matrix_validate(d.A), "spx_matrix_validate");
    check_refused(spx_matrix_copy(d.A, SPX_F64, &B), "spx_matrix_copy");
    CHECK(B == NULL);
    check_refused(spx_matrix_transpose(d.A, &B), "spx_matrix_transpose");
    check_refused(spx_matrix_to_coo(d.A, ri, ci, v), "spx_matrix_to_coo");
    check_refused(spx_matrix_to_csc(d.A, rp, ri, v), "spx_matrix_to_csc");
    check_refused(spx_matrix_stats(d.A, &s), "spx_matrix_stats");
    CHECK(spx_matrix_iso(d.A, &value) == 0 && value == 0.0);
    CHECK(strstr(spx_last_error(), "device matrix") != NULL);
    /* refused before the file is opened (else: SPX_ERR_IO, no such folder) */
    check_refused(spx_matrix_write_mtx(d.A, "no-such-folder/m.mtx"), "write_mtx");
    check_refused(spx_matrix_write_bin(d.A, "no-such-folder/m.spx"), "write_bin");
    check_refused(spx_matrix_write(d.A, "no-such-folder/m.spx"), "spx_matrix_write");
    check_refused(spx_spgemm_stats(d.A, H, NULL), "spx_spgemm_stats (A)");
    spx_spgemm_info info;
    check_refused(spx_spgemm_stats(H, d.A, &info), "spx_spgemm_stats (B)");
    check_refused(spx_spgemm(d.A, H, NULL, &B), "spx_spgemm (A)");
    check_refused(spx_spgemm(H, d.A, NULL, &B), "spx_spgemm (B)");
    CHECK(B == NULL);
    spx_multi_plan *M = NULL;
    check_refused(spx_multi_plan_create(d.A, NULL, NULL, &M), "spx_multi_plan_create");

    /* plans: CPU ones, op T, SpGEMM, reorder=, fp16 and the host-built layouts of csr */
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CPU, "auto", SPX_F64, SPX_OP_N, NULL),
                  "CPU auto");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F64, SPX_OP_T, NULL), "op T");
    check_refused(plan_of(d.A, SPX_OP_SPGEMM, SPX_DEV_CPU, "auto", SPX_F64, SPX_OP_N, NULL),
                  "CPU SpGEMM");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F64, SPX_OP_N, "reorder=rcm"),
                  "reorder=rcm");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F16, SPX_OP_N, NULL),
                  "csr fp16");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "auto", SPX_F16, SPX_OP_N, NULL),
                  "auto fp16");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F64, SPX_OP_N, "index=dict"),
                  "csr index=dict");
    check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F64, SPX_OP_N, "values=iso"),
                  "csr values=iso");
    CHECK_STATUS(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, "csr", SPX_F64, SPX_OP_N, "values=auto"),
                 SPX_OK);
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        unsigned dev, prec;
        if (!spx_test_spmv_format(i, &name, &dev, &prec)) continue;
        const spx_type t = prec & (1u << SPX_F64) ? SPX_F64 : SPX_F32;
        if (dev & SPX_DEV_CPU)
            check_refused(plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CPU, name, t, SPX_OP_N, NULL), name);
        if ((dev & SPX_DEV_CUDA) && strcmp(name, "csr") != 0) {
            spx_status st = plan_of(d.A, SPX_OP_SPMV, SPX_DEV_CUDA, name, t, SPX_OP_N, NULL);
            check_refused(st, name);
            CHECK(strstr(spx_last_error(), "csr") != NULL);
        }
    }

    /* the solvers' Jacobi preconditioner reads A's diagonal on the host */
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    void *db = NULL, *dx = NULL;
    double ones[40];
    for (int i = 0; i < 40; i++)
        ones[i] = 1.0;
    o.device = SPX_DEV_CUDA;
    if (CHECK_STATUS(spx_plan_create(d.A, SPX_OP_SPMV, &o, &P), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&db, ones, sizeof ones, "b"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&dx, ones, sizeof ones, "x"), SPX_OK)) {
        spx_solve_opts so = spx_solve_opts_default();
        so.jacobi = 1;
        check_refused(spx_cg(P, d.A, db, dx, &so, NULL), "spx_cg jacobi");
        check_refused(spx_bicgstab(P, d.A, db, dx, &so, NULL), "spx_bicgstab jacobi");
    }
    spx__cuda_free(db);
    spx__cuda_free(dx);
    spx_plan_destroy(P);
done:
    dev_csr_free(&d);
    spx_matrix_destroy(H);
}

/* What spx_matrix_wrap_device checks: device memory, the offsets, the widths. */
static void test_wrap_checks(void)
{
    static const int64_t h_rp[] = {0, 2, 2, 4}, bad_rp[] = {0, 2, 1, 4}, late_rp[] = {1, 2, 2, 4};
    static const int32_t h_ci[] = {0, 2, 0, 1};
    static const double h_v[] = {1, 2, 3, 4};
    void *rp = NULL, *bad = NULL, *late = NULL, *ci = NULL, *v = NULL;
    spx_matrix *A = (spx_matrix *)&A;
    if (!CHECK_STATUS(spx__cuda_upload(&rp, h_rp, sizeof h_rp, "t"), SPX_OK) ||
        !CHECK_STATUS(spx__cuda_upload(&bad, bad_rp, sizeof bad_rp, "t"), SPX_OK) ||
        !CHECK_STATUS(spx__cuda_upload(&late, late_rp, sizeof late_rp, "t"), SPX_OK) ||
        !CHECK_STATUS(spx__cuda_upload(&ci, h_ci, sizeof h_ci, "t"), SPX_OK) ||
        !CHECK_STATUS(spx__cuda_upload(&v, h_v, sizeof h_v, "t"), SPX_OK))
        goto done;
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, h_rp, 64, ci, 32, v, SPX_F64, &A),
                 SPX_ERR_INVALID_ARG);
    CHECK(A == NULL);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, h_ci, 32, v, SPX_F64, &A),
                 SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, ci, 32, h_v, SPX_F64, &A),
                 SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, bad, 64, ci, 32, v, SPX_F64, &A), SPX_ERR_BAD_ROWPTR);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, late, 64, ci, 32, v, SPX_F64, &A),
                 SPX_ERR_BAD_ROWPTR);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, ci, 64, v, SPX_F64, &A), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, NULL, 32, v, SPX_F64, &A),
                 SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, ci, 32, v, SPX_F16, &A), SPX_ERR_UNSUPPORTED);
    CHECK(A == NULL);
    if (CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp, 64, ci, 32, v, SPX_F64, &A), SPX_OK)) {
        int64_t z = -1;
        spx_matrix_dims(A, NULL, NULL, &z);
        CHECK(z == 4);
    }
    spx_matrix_destroy(A);
    /* no nonzeros (rows 0 of rp): the columns and values may be NULL */
    A = NULL;
    CHECK_STATUS(spx_matrix_wrap_device(0, 3, rp, 64, NULL, 32, NULL, SPX_F32, &A), SPX_OK);
    spx_matrix_destroy(A);
done:
    spx__cuda_free(rp);
    spx__cuda_free(bad);
    spx__cuda_free(late);
    spx__cuda_free(ci);
    spx__cuda_free(v);
}

/* SpMM of a device matrix: plans of csr and auto read the caller's columns in
 * place, and Y = 1.5 A X with X of 7 columns (host arrays, spx_spmm_host)
 * matches CPU ref on the host matrix (its float copy for fp32), on a matrix
 * with a row long enough for the chunked long rows. */
static void test_spmm(void)
{
    spx_matrix *H = spx_test_dense_row_matrix(500, 4000, 9, 20, 31), *Hf = NULL;
    int64_t m, n;
    if (!H || !CHECK_STATUS(spx_matrix_copy(H, SPX_F32, &Hf), SPX_OK)) goto done;
    spx_matrix_dims(H, &m, &n, NULL);
    for (int t = SPX_F64; t <= SPX_F32; t++)
        for (int rb = 32; rb <= 64; rb += 32) {
            dev_csr d = {0};
            if (!put_on_device(t == SPX_F64 ? H : Hf, rb, (spx_type)t, &d)) continue;
            const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
            char *X = malloc(es * (size_t)(n * 7 + 1)), *Y = calloc((size_t)(m * 7 + 1), es);
            char *R = calloc((size_t)(m * 7 + 1), es);
            uint64_t seed = 3;
            for (int64_t e = 0; e < n * 7; e++) {
                const double v = spx_test_rand(&seed);
                if (t == SPX_F64)
                    ((double *)X)[e] = v;
                else
                    ((float *)X)[e] = (float)v;
            }
            spx_plan_opts o = spx_plan_opts_default();
            spx_plan *ref = NULL;
            o.format = "ref";
            o.precision = (spx_type)t;
            CHECK_STATUS(spx_plan_create(t == SPX_F64 ? H : Hf, SPX_OP_SPMM, &o, &ref), SPX_OK);
            CHECK_STATUS(spx_spmm(ref, 7, 1.5, X, 7, 0.0, R, 7), SPX_OK);
            for (int f = 0; f < 2; f++) {
                spx_plan *P = NULL;
                const void *rp, *ci, *v;
                o.format = f ? "auto" : "csr";
                o.device = SPX_DEV_CUDA;
                if (!CHECK_STATUS(spx_plan_create(d.A, SPX_OP_SPMM, &o, &P), SPX_OK)) {
                    fprintf(stderr, "  spmm %s: %s\n", o.format, spx_last_error());
                    continue;
                }
                spx__plan_device_arrays(P, &rp, &ci, &v);
                CHECK(ci == d.ci && v == d.v);
                if (CHECK_STATUS(spx_spmm_host(P, 7, 1.5, X, 7, 0.0, Y, 7), SPX_OK)) {
                    double err = 0.0, scale = 0.0;
                    for (int64_t e = 0; e < m * 7; e++) {
                        const double y = t == SPX_F64 ? ((double *)Y)[e] : ((float *)Y)[e];
                        const double r = t == SPX_F64 ? ((double *)R)[e] : ((float *)R)[e];
                        err = fmax(err, fabs(y - r));
                        scale = fmax(scale, fabs(r));
                    }
                    if (!CHECK(err <= (t == SPX_F64 ? 1e-13 : 1e-5) * scale))
                        fprintf(stderr, "  spmm %s %s offsets=%d: %.3g from ref\n", o.format,
                                type_name((spx_type)t), rb, err / scale);
                }
                spx_plan_destroy(P);
                o.device = SPX_DEV_CPU;
            }
            spx_plan_destroy(ref);
            free(X), free(Y), free(R);
            dev_csr_free(&d);
        }
done:
    spx_matrix_destroy(H);
    spx_matrix_destroy(Hf);
}

int main(void)
{
    if (spx_test_require_cuda("device matrices")) {
        test_wrap_checks();
        test_matrices();
        test_in_place();
        test_refusals();
        test_spmm();
    }
    return spx_test_finish();
}
