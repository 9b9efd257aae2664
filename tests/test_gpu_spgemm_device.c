/* GPU SpGEMM with device operands (issue 13): A and B put in device memory
 * (spx__cuda_upload: cudaMalloc and a copy) with 64- or 32-bit row offsets
 * and fp64 or fp32 values, wrapped (spx_matrix_wrap_device), multiplied by
 * gpu-rows (named, or auto) into a device C that SpX owns; C read back
 * through spx_matrix_device_csr and compared with the CPU reference
 * (gustavson) of the host matrices. Also: a host A with a device B (device
 * C), a device A with a host B (host C), one plan for several B, AUTO's
 * pick, 0 x 0, no entries, m x 0 times 0 x n, rectangular products, the
 * declines (CPU plans, f32, dimensions: SPX_ERR_UNSUPPORTED naming
 * gpu-rows or f64, SPX_ERR_NO_FORMAT for auto in f32, the mismatch), C
 * past panel_nnz (SPX_ERR_OOM: a device C is allocated whole), C's arrays
 * from SpX's pool (the default) and from cudaMalloc (pool=release), and
 * that spx_matrix_destroy gives a device C's memory back (the device's free
 * bytes, less the 64 MB SpX's pool may keep; compute-sanitizer --leak-check
 * full too). tsparse (f64, f16) with device operands: the same bits as its
 * product of the host matrices, AUTO's pick for a device A by its tiles
 * (sampled on the device), and its declines found by the device's scan of
 * the values (f16 beyond half's range, infinities). spx_spgemm_numeric:
 * gpu-rows from its memo of C's products (built and C's pattern checked
 * the first time; the same bits from call to call) and, with memo=off, by
 * its numeric phase alone into C (the pattern checked the first time, C's
 * key after), a B of another pattern refused with C kept,
 * and the whole-product path (tsparse with a device C: the same bits as its
 * new product; gpu-rows with host operands). SPX_TEST_PART=rows, tsparse
 * or numeric runs one part alone. SPX_TEST_QUICK=1
 * (compute-sanitizer) runs fewer and smaller products. SKIP (77) without a
 * GPU.
 *
 * Entry (i, j) of C against the reference r, with s = (|A||B|)_ij, k the
 * longest row of A and u = 2^-53 (as tests/test_gpu_spgemm.c, fp64; values
 * given as fp32 are compared with the reference of their float copies):
 *   |c - r| <= 2 (16 + sqrt(k)) u s, and C's pattern is r's exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"
#include "cuda/spgemm/rows.h"

#define U64 0x1p-53

static int quick; /* SPX_TEST_QUICK=1 (compute-sanitizer): fewer, smaller products */

/* A host matrix's CSR put on the device and wrapped. */
typedef struct on_device {
    spx_matrix *M; /* the device matrix */
    void *rp, *ci, *v;
} on_device;

static void on_device_free(on_device *d)
{
    spx_matrix_destroy(d->M);
    spx__cuda_free(d->rp);
    spx__cuda_free(d->ci);
    spx__cuda_free(d->v);
    memset(d, 0, sizeof *d);
}

/* H (fp64, 32-bit columns) on the device with offsets of rp_bits and values
 * of vt. 1 when it went well. */
static int upload(const spx_matrix *H, int rp_bits, spx_type vt, on_device *d)
{
    const int64_t *rp;
    const void *ci, *v;
    int bits = 0;
    int64_t m, n, nnz;
    memset(d, 0, sizeof *d);
    spx_matrix_dims(H, &m, &n, &nnz);
    if (!CHECK_STATUS(spx_matrix_csr(H, &rp, &ci, &bits, &v, NULL), SPX_OK) || !CHECK(bits == 32))
        return 0;
    int32_t *rp32 = malloc(((size_t)m + 1) * sizeof *rp32);
    float *vf = malloc(((size_t)nnz + 1) * sizeof *vf);
    for (int64_t i = 0; i <= m; i++)
        rp32[i] = (int32_t)rp[i];
    for (int64_t q = 0; q < nnz; q++)
        vf[q] = (float)((const double *)v)[q];
    const void *offsets = rp_bits == 32 ? (const void *)rp32 : (const void *)rp;
    const void *values = vt == SPX_F32 ? (const void *)vf : v;
    const size_t es = vt == SPX_F32 ? sizeof(float) : sizeof(double);
    int ok =
        CHECK_STATUS(spx__cuda_upload(&d->rp, offsets, ((size_t)m + 1) * (size_t)(rp_bits / 8),
                                      "test offsets"),
                     SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&d->ci, ci, (size_t)nnz * 4, "test columns"), SPX_OK) &&
        CHECK_STATUS(spx__cuda_upload(&d->v, values, (size_t)nnz * es, "test values"), SPX_OK) &&
        CHECK_STATUS(spx_matrix_wrap_device(m, n, d->rp, rp_bits, d->ci, 32, d->v, vt, &d->M),
                     SPX_OK);
    free(rp32);
    free(vf);
    if (!ok) on_device_free(d);
    return ok;
}

/* A device C copied to a new host matrix through spx_matrix_device_csr
 * (64-bit offsets, fp64 values, as gpu-rows gives it); NULL on failure. */
static spx_matrix *download(const spx_matrix *C)
{
    const void *rp = NULL, *ci = NULL, *v = NULL;
    int bits = 0;
    spx_type vt = SPX_F32;
    int64_t m, n, nnz;
    spx_matrix *H = NULL;
    spx_matrix_dims(C, &m, &n, &nnz);
    if (!CHECK_STATUS(spx_matrix_device_csr(C, &rp, &bits, &ci, &v, &vt), SPX_OK) ||
        !CHECK(bits == 64 && vt == SPX_F64 && rp != NULL))
        return NULL;
    int64_t *hrp = malloc(((size_t)m + 1) * sizeof *hrp);
    int32_t *hci = malloc(((size_t)nnz + 1) * sizeof *hci);
    double *hv = malloc(((size_t)nnz + 1) * sizeof *hv);
    if (CHECK_STATUS(spx__cuda_copy(hrp, rp, ((size_t)m + 1) * sizeof *hrp, 0), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy(hci, ci, (size_t)nnz * sizeof *hci, 0), SPX_OK) &&
        CHECK_STATUS(spx__cuda_copy(hv, v, (size_t)nnz * sizeof *hv, 0), SPX_OK))
        CHECK_STATUS(spx_matrix_create_csr(m, n, hrp, hci, hv, &H), SPX_OK);
    free(hrp);
    free(hci);
    free(hv);
    return H;
}

/* M with its values rounded to float (vt F32) or as they are, and |M|. */
static spx_matrix *valued(const spx_matrix *M, spx_type vt, int absolute)
{
    const int64_t *rp;
    const void *ci, *cv;
    int64_t m, n, nnz;
    spx_matrix *X = NULL;
    spx_matrix_dims(M, &m, &n, &nnz);
    spx_matrix_csr(M, &rp, &ci, NULL, &cv, NULL);
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    for (int64_t q = 0; q < nnz; q++) {
        const double x = ((const double *)cv)[q];
        v[q] = vt == SPX_F32 ? (double)(float)x : x;
        if (absolute) v[q] = fabs(v[q]);
    }
    CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &X), SPX_OK);
    free(v);
    return X;
}

/* C (host) against the reference of A*B (host, values as vt rounds them):
 * same shape and pattern, each value within the bound. */
static int matches(const spx_matrix *A, const spx_matrix *B, spx_type vt, const spx_matrix *C,
                   const char *name)
{
    spx_matrix *a = valued(A, vt, 0), *b = valued(B, vt, 0), *aa = valued(A, vt, 1),
               *ab = valued(B, vt, 1), *R = NULL, *S = NULL;
    const int64_t *rr, *cr, *arp;
    const void *rc, *cc, *rv, *cv, *sv;
    int64_t m, n, cm, cn, am, k = 0, bad = 0;
    int ok = CHECK_STATUS(spx_spgemm(a, b, NULL, &R), SPX_OK) &
             CHECK_STATUS(spx_spgemm(aa, ab, NULL, &S), SPX_OK);
    if (ok) {
        spx_matrix_dims(R, &m, &n, NULL);
        spx_matrix_dims(C, &cm, &cn, NULL);
        ok = CHECK(cm == m && cn == n) && CHECK_STATUS(spx_matrix_validate(C), SPX_OK);
    }
    if (ok) {
        spx_matrix_dims(A, &am, NULL, NULL);
        spx_matrix_csr(A, &arp, NULL, NULL, NULL, NULL);
        for (int64_t i = 0; i < am; i++)
            if (arp[i + 1] - arp[i] > k) k = arp[i + 1] - arp[i];
        spx_matrix_csr(R, &rr, &rc, NULL, &rv, NULL);
        spx_matrix_csr(C, &cr, &cc, NULL, &cv, NULL);
        spx_matrix_csr(S, NULL, NULL, NULL, &sv, NULL);
        const double f = 2.0 * (16.0 + sqrt((double)k)) * U64;
        for (int64_t i = 0; i < m; i++) {
            bad += cr[i + 1] - cr[i] != rr[i + 1] - rr[i];
            for (int64_t p = rr[i]; p < rr[i + 1] && cr[i + 1] - cr[i] == rr[i + 1] - rr[i]; p++) {
                const int64_t q = cr[i] + (p - rr[i]);
                const double err = fabs(((const double *)cv)[q] - ((const double *)rv)[p]);
                bad += ((const int32_t *)cc)[q] != ((const int32_t *)rc)[p];
                bad += !(err <= f * ((const double *)sv)[p]);
            }
        }
        printf("%-44s nnz(C) %lld, %lld mismatches\n", name, (long long)cr[m], (long long)bad);
        ok = CHECK(bad == 0);
    }
    spx_matrix_destroy(a), spx_matrix_destroy(b), spx_matrix_destroy(aa);
    spx_matrix_destroy(ab), spx_matrix_destroy(R), spx_matrix_destroy(S);
    return ok;
}

/* CUDA f64 plan options of format with params. */
static spx_plan_opts f64_on_gpu(const char *format, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA, o.format = format, o.params = params;
    return o;
}

/* A*B with both on the device (offsets of rp_bits, values of vt), format
 * `format` with params: C a device matrix, checked. */
static void device_product(const spx_matrix *A, const spx_matrix *B, int rp_bits, spx_type vt,
                           const char *format, const char *params, const char *name)
{
    on_device a = {0}, b = {0};
    spx_matrix *C = NULL, *H = NULL;
    spx_plan_opts o = f64_on_gpu(format, params);
    char label[128];
    snprintf(label, sizeof label, "%s, %d-bit offsets, %s, %s%s%s", name, rp_bits,
             vt == SPX_F32 ? "f32 values" : "f64", format, params ? " " : "", params ? params : "");
    if (upload(A, rp_bits, vt, &a) && upload(B, rp_bits, vt, &b) &&
        CHECK_STATUS(spx_spgemm(a.M, b.M, &o, &C), SPX_OK)) {
        CHECK_STATUS(spx_matrix_csr(C, NULL, NULL, NULL, NULL, NULL), SPX_ERR_UNSUPPORTED);
        if ((H = download(C)) != NULL) matches(A, B, vt, H, label);
    } else {
        fprintf(stderr, "  %s: %s\n", label, spx_last_error());
    }
    spx_matrix_destroy(C);
    spx_matrix_destroy(H);
    on_device_free(&a);
    on_device_free(&b);
}

/* spx_generate(spec), checked; NULL on failure. */
static spx_matrix *gen(const char *spec)
{
    spx_matrix *M = NULL;
    return CHECK_STATUS(spx_generate(spec, &M), SPX_OK) ? M : NULL;
}

static void test_generated(void)
{
    static const char *const pairs[][2] = {
        {"random:m=417,n=150,nnz=3500,seed=41", "random:m=150,n=611,nnz=4200,seed=42"},
        {"random:m=2500,nnz=24000,seed=43", "random:m=2500,nnz=21000,seed=44"},
        {"rmat:scale=12,ef=6,values=random", "rmat:scale=12,ef=6,values=random"},
        {"lap3d27:11", "lap3d27:11"},
        {"banded:n=2800,bw=60", "banded:n=2800,bw=60"},
        {"powerlaw:n=3500,avg=18,seed=45", "powerlaw:n=3500,avg=18,seed=46"},
        {"random:m=64,n=3011,density=1,seed=47", "random:m=3011,n=40,nnz=9000,seed=48"},
        /* rows of C of about 5000 entries: the numeric phase's long rows */
        {"random:m=40,n=500,density=0.5,seed=49", "random:m=500,n=5000,nnz=50000,seed=50"},
    };
    const size_t last = sizeof pairs / sizeof *pairs - 1;
    for (size_t t = 0; t < (quick ? 2 : last + 1); t++) {
        spx_matrix *A = gen(pairs[t][0]), *B = gen(pairs[t][1]);
        char name[40];
        snprintf(name, sizeof name, "%.30s", pairs[t][0]);
        if (A && B) {
            device_product(A, B, 64, SPX_F64, "gpu-rows", NULL, name);
            device_product(A, B, 32, SPX_F64, "auto", NULL, name);
            if (t < 2) device_product(A, B, 32, SPX_F32, "gpu-rows", NULL, name);
            if (t < 3) device_product(A, B, 64, SPX_F64, "gpu-rows", "pool=release", name);
            if (t == last) device_product(A, B, 64, SPX_F64, "gpu-rows", "long=hash", name);
        }
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
}

/* 0 x 0; 9x5 * 5x13 with no entries; 7x0 * 0x4; no entries in A, some in B. */
static void test_empty(void)
{
    struct {
        int64_t m, k, n;
        const char *b;
        const char *name;
    } cases[] = {{0, 0, 0, NULL, "0x0 * 0x0"},
                 {9, 5, 13, NULL, "9x5 * 5x13, no entries"},
                 {7, 0, 4, NULL, "7x0 * 0x4"},
                 {6, 30, 0, "random:m=30,n=20,nnz=90,seed=13", "6x30 (no entries) * 30x20"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        spx_matrix *A = NULL, *B = NULL;
        CHECK_STATUS(spx_matrix_from_coo(cases[c].m, cases[c].k, 0, NULL, NULL, NULL, &A), SPX_OK);
        if (cases[c].b)
            B = gen(cases[c].b);
        else
            CHECK_STATUS(spx_matrix_from_coo(cases[c].k, cases[c].n, 0, NULL, NULL, NULL, &B),
                         SPX_OK);
        if (A && B) device_product(A, B, 64, SPX_F64, "gpu-rows", NULL, cases[c].name);
        if (A && B) device_product(A, B, 32, SPX_F64, "auto", NULL, cases[c].name);
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
}

/* Host A with a device B: a device C; a device A with a host B: a host C;
 * one plan of a device A for two device B, both C alive at once. */
static void test_mixed(void)
{
    spx_matrix *A = gen("random:m=500,n=300,nnz=4000,seed=21");
    spx_matrix *B1 = gen("random:m=300,n=410,nnz=3000,seed=22");
    spx_matrix *B2 = gen("powerlaw:n=300,avg=12,seed=23");
    spx_plan_opts o = f64_on_gpu("gpu-rows", NULL), au = f64_on_gpu("auto", NULL);
    spx_plan *P = NULL;
    spx_matrix *C = NULL, *C2 = NULL, *H = NULL, *H2 = NULL;
    on_device a = {0}, b1 = {0}, b2 = {0};
    if (!A || !B1 || !B2 || !upload(A, 32, SPX_F64, &a) || !upload(B1, 64, SPX_F64, &b1) ||
        !upload(B2, 32, SPX_F64, &b2))
        goto done;
    /* host A, device B */
    if (CHECK_STATUS(spx_spgemm(A, b1.M, &o, &C), SPX_OK) && (H = download(C)))
        matches(A, B1, SPX_F64, H, "host A * device B: device C");
    spx_matrix_destroy(C), spx_matrix_destroy(H);
    C = H = NULL;
    /* device A, host B: C on the host */
    if (CHECK_STATUS(spx_spgemm(a.M, B1, &o, &C), SPX_OK))
        matches(A, B1, SPX_F64, C, "device A * host B: host C");
    spx_matrix_destroy(C);
    C = NULL;
    /* one plan (auto: gpu-rows), two device B */
    if (CHECK_STATUS(spx_plan_create(a.M, SPX_OP_SPGEMM, &au, &P), SPX_OK)) {
        CHECK(strcmp(spx_plan_format(P), "gpu-rows") == 0);
        if (CHECK_STATUS(spx_spgemm_run(P, b1.M, &C), SPX_OK) &&
            CHECK_STATUS(spx_spgemm_run(P, b2.M, &C2), SPX_OK) && (H = download(C)) &&
            (H2 = download(C2))) {
            matches(A, B1, SPX_F64, H, "one plan, first device B");
            matches(A, B2, SPX_F64, H2, "one plan, second device B");
        }
        CHECK(strstr(spx_plan_describe(P), "device matrix") != NULL);
    }
done:
    spx_plan_destroy(P);
    spx_matrix_destroy(C), spx_matrix_destroy(C2), spx_matrix_destroy(H), spx_matrix_destroy(H2);
    on_device_free(&a), on_device_free(&b1), on_device_free(&b2);
    spx_matrix_destroy(A), spx_matrix_destroy(B1), spx_matrix_destroy(B2);
}

/* status want, and the last error naming `word`. */
static void check_error(spx_status got, spx_status want, const char *word, const char *what)
{
    if (!CHECK_STATUS(got, want))
        fprintf(stderr, "  %s\n", what);
    else if (!CHECK(strstr(spx_last_error(), word) != NULL))
        fprintf(stderr, "  %s: '%s' lacks '%s'\n", what, spx_last_error(), word);
}

/* The declines, and C past panel_nnz. */
static void test_declines(void)
{
    spx_matrix *A = gen("random:m=200,n=150,nnz=2000,seed=31");
    spx_matrix *B = gen("random:m=150,n=120,nnz=1500,seed=32");
    spx_matrix *C = NULL;
    spx_plan *P = NULL;
    on_device a = {0}, b = {0};
    if (!A || !B || !upload(A, 64, SPX_F64, &a) || !upload(B, 64, SPX_F64, &b)) goto done;
    spx_plan_opts f32 = f64_on_gpu("gpu-rows", NULL);
    f32.precision = SPX_F32;
    spx_plan_opts cpu = spx_plan_opts_default(), tiny = f64_on_gpu("gpu-rows", "panel_nnz=10");
    check_error(spx_spgemm(A, b.M, &cpu, &C), SPX_ERR_UNSUPPORTED, "gpu-rows", "CPU, device B");
    check_error(spx_spgemm(a.M, B, &cpu, &C), SPX_ERR_UNSUPPORTED, "device matrix",
                "CPU, device A");
    check_error(spx_spgemm(a.M, b.M, &f32, &C), SPX_ERR_UNSUPPORTED, "f64", "f32, device A");
    check_error(spx_spgemm(A, b.M, &f32, &C), SPX_ERR_UNSUPPORTED, "f64", "f32, device B");
    f32.format = "auto"; /* gpu-rows does not answer AUTO for a device A in f32 */
    check_error(spx_spgemm(a.M, b.M, &f32, &C), SPX_ERR_NO_FORMAT, "device matrix", "auto f32");
    check_error(spx_spgemm(b.M, b.M, &tiny, &C), SPX_ERR_DIM_MISMATCH, "rows", "150x120 * 150x120");
    check_error(spx_spgemm(a.M, b.M, &tiny, &C), SPX_ERR_OOM, "panel_nnz",
                "device C past panel_nnz");
    CHECK(C == NULL);
    /* a host B is multiplied in panels of 10 entries instead */
    if (CHECK_STATUS(spx_spgemm(a.M, B, &tiny, &C), SPX_OK))
        matches(A, B, SPX_F64, C, "device A * host B, panel_nnz=10");
    spx_matrix_destroy(C);
    C = NULL;
    check_error(spx_matrix_device_csr(A, NULL, NULL, NULL, NULL, NULL), SPX_ERR_UNSUPPORTED,
                "host matrix", "spx_matrix_device_csr of a host matrix");
    CHECK_STATUS(spx_matrix_device_csr(NULL, NULL, NULL, NULL, NULL, NULL), SPX_ERR_BAD_HANDLE);
    /* a borrowed device matrix's accessor gives the caller's arrays */
    const void *rp = NULL, *ci = NULL, *v = NULL;
    int bits = 0;
    if (CHECK_STATUS(spx_matrix_device_csr(a.M, &rp, &bits, &ci, &v, NULL), SPX_OK))
        CHECK(rp == a.rp && bits == 64 && ci == a.ci && v == a.v);
done:
    spx_plan_destroy(P);
    on_device_free(&a), on_device_free(&b);
    spx_matrix_destroy(A), spx_matrix_destroy(B);
}

/* X and Y the same matrix, bit for bit (host matrices, fp64). */
static int same_bits(const spx_matrix *X, const spx_matrix *Y, const char *name)
{
    const int64_t *xr, *yr;
    const void *xc, *yc, *xv, *yv;
    int64_t xm, xn, xz, ym, yn, yz;
    spx_matrix_dims(X, &xm, &xn, &xz);
    spx_matrix_dims(Y, &ym, &yn, &yz);
    if (!CHECK(xm == ym && xn == yn && xz == yz)) return 0;
    spx_matrix_csr(X, &xr, &xc, NULL, &xv, NULL);
    spx_matrix_csr(Y, &yr, &yc, NULL, &yv, NULL);
    const int same = memcmp(xr, yr, ((size_t)xm + 1) * sizeof *xr) == 0 &&
                     memcmp(xc, yc, (size_t)xz * sizeof(int32_t)) == 0 &&
                     memcmp(xv, yv, (size_t)xz * sizeof(double)) == 0;
    printf("%-44s nnz(C) %lld, %s\n", name, (long long)xz, same ? "same bits" : "DIFFERENT");
    return CHECK(same);
}

/* tsparse of precision t with device operands (offsets of rp_bits, values
 * of vt): device A * device B (a device C) and device A * host B (a host C)
 * against the same plan's product of the host matrices, bit for bit (the
 * same tiles, tasks and mma; the host product itself is checked against the
 * reference in test_gpu_spgemm). */
static void tsparse_product(const spx_matrix *A, const spx_matrix *B, int rp_bits, spx_type vt,
                            spx_type t, const char *name)
{
    spx_matrix *Ah = valued(A, vt, 0), *Bh = valued(B, vt, 0), *R = NULL, *C = NULL, *H = NULL,
               *C2 = NULL;
    spx_plan_opts o = f64_on_gpu("tsparse", NULL);
    on_device a = {0}, b = {0};
    char label[128];
    o.precision = t;
    snprintf(label, sizeof label, "tsparse %s, %s, %d-bit offsets, %s",
             t == SPX_F16 ? "f16" : "f64", name, rp_bits,
             vt == SPX_F32 ? "f32 values" : "f64 values");
    if (Ah && Bh && CHECK_STATUS(spx_spgemm(Ah, Bh, &o, &R), SPX_OK) &&
        upload(A, rp_bits, vt, &a) && upload(B, rp_bits, vt, &b)) {
        if (CHECK_STATUS(spx_spgemm(a.M, b.M, &o, &C), SPX_OK) && (H = download(C)))
            same_bits(R, H, label);
        if (CHECK_STATUS(spx_spgemm(a.M, Bh, &o, &C2), SPX_OK))
            same_bits(R, C2, "  device A, host B");
    } else {
        fprintf(stderr, "  %s: %s\n", label, spx_last_error());
    }
    spx_matrix_destroy(Ah), spx_matrix_destroy(Bh), spx_matrix_destroy(R);
    spx_matrix_destroy(C), spx_matrix_destroy(H), spx_matrix_destroy(C2);
    on_device_free(&a), on_device_free(&b);
}

/* An m x n matrix of two entries: v at (0, 0) and 1 at (m-1, n-1). */
static spx_matrix *two_entries(int64_t m, int64_t n, double v)
{
    int64_t ri[2] = {0, m - 1}, ci[2] = {0, n - 1};
    double vals[2] = {v, 1.0};
    spx_matrix *M = NULL;
    CHECK_STATUS(spx_matrix_from_coo(m, n, 2, ri, ci, vals, &M), SPX_OK);
    return M;
}

static void test_tsparse(void)
{
    static const char *const pairs[][2] = {
        {"random:m=417,n=150,nnz=3500,seed=41", "random:m=150,n=611,nnz=4200,seed=42"},
        {"lap3d27:11", "lap3d27:11"},
        {"banded:n=2800,bw=60", "banded:n=2800,bw=60"},
        {"rmat:scale=12,ef=6,values=random", "rmat:scale=12,ef=6,values=random"},
    };
    for (size_t p = 0; p < (quick ? 2 : sizeof pairs / sizeof *pairs); p++) {
        spx_matrix *A = gen(pairs[p][0]), *B = gen(pairs[p][1]);
        char name[40];
        snprintf(name, sizeof name, "%.30s", pairs[p][0]);
        if (A && B) {
            tsparse_product(A, B, 64, SPX_F64, SPX_F64, name);
            tsparse_product(A, B, 32, SPX_F64, SPX_F16, name);
            if (p < 2) tsparse_product(A, B, 32, SPX_F32, SPX_F64, name);
            if (p < 2) tsparse_product(A, B, 64, SPX_F32, SPX_F16, name);
        }
        spx_matrix_destroy(A), spx_matrix_destroy(B);
    }
    spx_matrix *E = NULL, *F = NULL;
    CHECK_STATUS(spx_matrix_from_coo(0, 0, 0, NULL, NULL, NULL, &E), SPX_OK);
    CHECK_STATUS(spx_matrix_from_coo(9, 5, 0, NULL, NULL, NULL, &F), SPX_OK);
    spx_matrix *G = gen("random:m=5,n=13,nnz=20,seed=7");
    if (E) tsparse_product(E, E, 64, SPX_F64, SPX_F64, "0x0");
    if (F && G) tsparse_product(F, G, 32, SPX_F64, SPX_F16, "9x5 (no entries) * 5x13");
    spx_matrix_destroy(E), spx_matrix_destroy(F), spx_matrix_destroy(G);

    /* AUTO for a device A: tsparse from 40 entries a tile (sampled on the device) */
    spx_matrix *band = gen("banded:n=2800,bw=60"), *sparse = gen("random:m=900,nnz=9000,seed=5");
    spx_plan_opts au = f64_on_gpu("auto", NULL);
    on_device db = {0}, ds = {0};
    spx_plan *P = NULL;
    if (band && sparse && upload(band, 32, SPX_F64, &db) && upload(sparse, 64, SPX_F64, &ds)) {
        if (CHECK_STATUS(spx_plan_create(db.M, SPX_OP_SPGEMM, &au, &P), SPX_OK))
            CHECK(strcmp(spx_plan_format(P), "tsparse") == 0);
        spx_plan_destroy(P);
        P = NULL;
        if (CHECK_STATUS(spx_plan_create(ds.M, SPX_OP_SPGEMM, &au, &P), SPX_OK))
            CHECK(strcmp(spx_plan_format(P), "gpu-rows") == 0);
        spx_plan_destroy(P);
    }
    on_device_free(&db), on_device_free(&ds);
    spx_matrix_destroy(band), spx_matrix_destroy(sparse);

    /* declines, the device's scan of the values: f16 beyond half's range, an infinity */
    spx_matrix *A = gen("random:m=60,n=40,nnz=300,seed=3"), *wide = two_entries(40, 30, 1e-12),
               *inf = two_entries(40, 30, INFINITY), *C = NULL;
    spx_plan_opts h = f64_on_gpu("tsparse", NULL), d = f64_on_gpu("tsparse", NULL);
    h.precision = SPX_F16;
    on_device w = {0}, f = {0};
    if (A && wide && inf && upload(wide, 64, SPX_F64, &w) && upload(inf, 32, SPX_F64, &f)) {
        check_error(spx_spgemm(A, w.M, &h, &C), SPX_ERR_UNSUPPORTED, "half's normal range",
                    "tsparse f16, device B of values 1e-12 to 1");
        check_error(spx_spgemm(A, f.M, &d, &C), SPX_ERR_UNSUPPORTED, "not finite",
                    "tsparse f64, device B holding an infinity");
        check_error(spx_spgemm(f.M, wide, &d, &C), SPX_ERR_UNSUPPORTED, "not finite",
                    "tsparse f64, device A holding an infinity");
        CHECK(C == NULL);
    }
    on_device_free(&w), on_device_free(&f);
    spx_matrix_destroy(A), spx_matrix_destroy(wide), spx_matrix_destroy(inf);
}

/* M's pattern with values v_k * scale + 1 (fp64). */
static spx_matrix *revalued(const spx_matrix *M, double scale)
{
    const int64_t *rp;
    const void *ci, *cv;
    int64_t m, n, nnz;
    spx_matrix *X = NULL;
    spx_matrix_dims(M, &m, &n, &nnz);
    spx_matrix_csr(M, &rp, &ci, NULL, &cv, NULL);
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    for (int64_t q = 0; q < nnz; q++)
        v[q] = ((const double *)cv)[q] * scale + 1.0;
    CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &X), SPX_OK);
    free(v);
    return X;
}

/* spx_spgemm_numeric with gpu-rows device to device (params): C of A*B, then
 * its values again for B2 (B's pattern, other values; offsets of rp_bits):
 * the first call checks C's pattern, the second (B again) takes C's key;
 * each C against the reference. Then a B of another pattern (random, half
 * B's entries: rows of C of other lengths) refused, C unchanged, and a host
 * B refused for a device C. */
static void numeric_device(const spx_matrix *A, const spx_matrix *B, int rp_bits,
                           const char *params, const char *name)
{
    spx_matrix *B2 = revalued(B, -0.75), *B3 = NULL, *C = NULL, *H = NULL, *before = NULL,
               *after = NULL, *first = NULL;
    spx_plan_opts o = f64_on_gpu("gpu-rows", params);
    spx_plan *P = NULL;
    on_device a = {0}, b = {0}, b2 = {0}, b3 = {0};
    char label[128];
    snprintf(label, sizeof label, "numeric %s, %d-bit offsets%s%s", name, rp_bits,
             params ? ", " : "", params ? params : "");
    if (!upload(A, 64, SPX_F64, &a) || !upload(B, rp_bits, SPX_F64, &b) ||
        !upload(B2, rp_bits, SPX_F64, &b2) ||
        !CHECK_STATUS(spx_plan_create(a.M, SPX_OP_SPGEMM, &o, &P), SPX_OK) ||
        !CHECK_STATUS(spx_spgemm_run(P, b.M, &C), SPX_OK))
        goto done;
    if (CHECK_STATUS(spx_spgemm_numeric(P, b2.M, C), SPX_OK) && (first = download(C)))
        matches(A, B2, SPX_F64, first, label);
    if (CHECK_STATUS(spx_spgemm_numeric(P, b.M, C), SPX_OK) && (H = download(C)))
        matches(A, B, SPX_F64, H, "  again, B's values (C's key)");
    spx_matrix_destroy(H);
    H = NULL;
    if (first && CHECK_STATUS(spx_spgemm_numeric(P, b2.M, C), SPX_OK) && (H = download(C)) &&
        !(params && strstr(params, "memo=off"))) /* the memo's sums are in a fixed order */
        same_bits(first, H, "  B2's values again: the same bits");
    int64_t bm, bn, bnz;
    char spec[96];
    spx_matrix_dims(B, &bm, &bn, &bnz);
    snprintf(spec, sizeof spec, "random:m=%lld,n=%lld,nnz=%lld,seed=99", (long long)bm,
             (long long)bn, (long long)(bnz / 2 + 1));
    if (bm > 0 && bn > 0 && (B3 = gen(spec)) && upload(B3, 64, SPX_F64, &b3) &&
        (before = download(C))) {
        if (CHECK_STATUS(spx_spgemm_numeric(P, b3.M, C), SPX_ERR_INVALID_ARG))
            CHECK(strstr(spx_last_error(), "not the one that made C") != NULL);
        if ((after = download(C))) same_bits(before, after, "  another pattern refused, C kept");
    }
    CHECK_STATUS(spx_spgemm_numeric(P, B2, C), SPX_ERR_INVALID_ARG);
done:
    spx_plan_destroy(P);
    spx_matrix_destroy(B2), spx_matrix_destroy(B3), spx_matrix_destroy(C);
    spx_matrix_destroy(H), spx_matrix_destroy(before), spx_matrix_destroy(after);
    spx_matrix_destroy(first);
    on_device_free(&a), on_device_free(&b), on_device_free(&b2), on_device_free(&b3);
}

/* spx_spgemm_numeric by the whole product (plan/spgemm_numeric.c): tsparse
 * with a device C, the same bits as tsparse's new product of B2; gpu-rows
 * with host operands, against the reference. */
static void numeric_whole(const spx_matrix *A, const spx_matrix *B, const char *name)
{
    spx_matrix *B2 = revalued(B, 2.5), *C = NULL, *R = NULL, *H = NULL, *HR = NULL, *Ch = NULL;
    spx_plan_opts t = f64_on_gpu("tsparse", NULL), g = f64_on_gpu("gpu-rows", NULL);
    spx_plan *P = NULL, *Q = NULL;
    on_device a = {0}, b = {0}, b2 = {0};
    char label[128];
    if (!upload(A, 64, SPX_F64, &a) || !upload(B, 64, SPX_F64, &b) || !upload(B2, 64, SPX_F64, &b2))
        goto done;
    snprintf(label, sizeof label, "numeric tsparse, device C, %s", name);
    if (CHECK_STATUS(spx_plan_create(a.M, SPX_OP_SPGEMM, &t, &P), SPX_OK) &&
        CHECK_STATUS(spx_spgemm_run(P, b.M, &C), SPX_OK) &&
        CHECK_STATUS(spx_spgemm_run(P, b2.M, &R), SPX_OK) &&
        CHECK_STATUS(spx_spgemm_numeric(P, b2.M, C), SPX_OK) && (H = download(C)) &&
        (HR = download(R)))
        same_bits(HR, H, label);
    snprintf(label, sizeof label, "numeric gpu-rows, host C, %s", name);
    if (!quick && /* quick runs under compute-sanitizer --leak-check: a host C comes back
                     through the process's pinned pair, kept until the process ends */
        CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &g, &Q), SPX_OK) &&
        CHECK_STATUS(spx_spgemm_run(Q, B, &Ch), SPX_OK) &&
        CHECK_STATUS(spx_spgemm_numeric(Q, B2, Ch), SPX_OK))
        matches(A, B2, SPX_F64, Ch, label);
done:
    spx_plan_destroy(P), spx_plan_destroy(Q);
    spx_matrix_destroy(B2), spx_matrix_destroy(C), spx_matrix_destroy(R);
    spx_matrix_destroy(H), spx_matrix_destroy(HR), spx_matrix_destroy(Ch);
    on_device_free(&a), on_device_free(&b), on_device_free(&b2);
}

static void test_numeric(void)
{
    static const char *const pairs[][2] = {
        {"random:m=417,n=150,nnz=3500,seed=41", "random:m=150,n=611,nnz=4200,seed=42"},
        {"rmat:scale=12,ef=6,values=random", "rmat:scale=12,ef=6,values=random"},
        {"banded:n=2800,bw=60", "banded:n=2800,bw=60"},
        /* rows of C of about 5000 entries: the numeric phase's long rows */
        {"random:m=40,n=500,density=0.5,seed=49", "random:m=500,n=5000,nnz=50000,seed=50"},
    };
    for (size_t t = 0; t < (quick ? 2 : sizeof pairs / sizeof *pairs); t++) {
        spx_matrix *A = gen(pairs[t][0]), *B = gen(pairs[t][1]);
        char name[40];
        snprintf(name, sizeof name, "%.30s", pairs[t][0]);
        if (A && B) {
            numeric_device(A, B, 64, NULL, name);
            numeric_device(A, B, 64, "memo=off", name);
            if (t == 1) numeric_device(A, B, 32, "long=hash,memo=off", name);
            if (t == 1) numeric_device(A, B, 32, NULL, name);
            if (t < 3) numeric_whole(A, B, name);
        }
        spx_matrix_destroy(A), spx_matrix_destroy(B);
    }
    spx_matrix *E = NULL;
    CHECK_STATUS(spx_matrix_from_coo(0, 0, 0, NULL, NULL, NULL, &E), SPX_OK);
    if (E) numeric_device(E, E, 64, NULL, "0x0");
    spx_matrix_destroy(E);
}

/* spx_matrix_destroy frees a device C: products whose C are destroyed leave
 * the free bytes where they were; C kept alive take them. */
static void test_destroy_frees(void)
{
    enum { N = 12 };
    spx_matrix *A = gen(quick ? "banded:n=4000,bw=40" : "banded:n=20000,bw=40"), *C[N] = {NULL};
    spx_plan_opts o = f64_on_gpu("gpu-rows", NULL);
    spx_plan *P = NULL;
    on_device a = {0};
    int64_t nnz = 0;
    if (!A || !upload(A, 64, SPX_F64, &a)) goto done;
    if (!CHECK_STATUS(spx_plan_create(a.M, SPX_OP_SPGEMM, &o, &P), SPX_OK) ||
        !CHECK_STATUS(spx_spgemm_run(P, a.M, &C[0]), SPX_OK))
        goto done;
    spx_matrix_dims(C[0], NULL, NULL, &nnz);
    spx_matrix_destroy(C[0]);
    C[0] = NULL;
    const double c_bytes = (double)nnz * 12.0; /* about 39 MB (quick: 7.7 MB) */
    const double before = (double)spx__cuda_rows_free_bytes();
    for (int t = 0; t < N; t++) {
        spx_matrix *D = NULL;
        CHECK_STATUS(spx_spgemm_run(P, a.M, &D), SPX_OK);
        spx_matrix_destroy(D);
    }
    const double after = (double)spx__cuda_rows_free_bytes();
    for (int t = 0; t < N; t++)
        CHECK_STATUS(spx_spgemm_run(P, a.M, &C[t]), SPX_OK);
    const double held = (double)spx__cuda_rows_free_bytes();
    printf("device C of %.1f MB: free %.1f MB, after %d destroyed products %.1f MB, with %d kept "
           "%.1f MB\n",
           c_bytes * 1e-6, before * 1e-6, N, after * 1e-6, N, held * 1e-6);
    if (quick) { /* compute-sanitizer's own allocations move the free bytes: its leak check
                    is the check there */
        printf("quick: free bytes not checked\n");
    } else {
        CHECK(after + 3.0 * c_bytes >= before);
        CHECK(held + 0.5 * N * c_bytes <= before);
    }
done:
    for (int t = 0; t < N; t++)
        spx_matrix_destroy(C[t]);
    spx_plan_destroy(P);
    on_device_free(&a);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        printf("SKIP: no CUDA device: GPU SpGEMM of device matrices is not run\n");
        return 77;
    }
    const char *q = getenv("SPX_TEST_QUICK");
    quick = q && strcmp(q, "1") == 0;
    /* SPX_TEST_PART=rows, tsparse or numeric: one part alone (a racecheck in pieces) */
    const int all = spx_test_part(NULL);
    if (all || spx_test_part("rows")) {
        test_generated();
        test_empty();
        test_mixed();
        test_declines();
    }
    if (all || spx_test_part("tsparse")) test_tsparse();
    if (all || spx_test_part("numeric")) test_numeric();
    if (all || spx_test_part("rows")) test_destroy_frees();
    return spx_test_finish();
}
