/* The CUDA SpGEMM formats (tsparse fp16 and fp64, gpu-rows fp64 and fp32)
 * against the CPU reference gustavson, on the GPU (SKIP with 77 without
 * one): 0x0, empty rows, one dense row, rectangular A*B with B != A, random
 * and generated products, the shared matrices, tsparse in small row panels
 * (params panel_rows=), gpu-rows' long rows (dense and hash accumulators,
 * long=) and row panels (panel_nnz=), the sort of a row's filled slots or
 * whole table (sort=), C copied back in staged chunks, one plan for several
 * B, AUTO's pick, the declines,
 * and with SPX_TEST_LARGE=1 a product of more than 2^31 intermediate
 * products. SPX_TEST_QUICK=1 (compute-sanitizer) keeps the small products;
 * SPX_TEST_PART=long runs the long rows alone (racecheck);
 * shared matrices missing from SPX_MATRICES are skipped with a line.
 *
 * Entry (i, j) of a result c against the reference r (gustavson in fp64, its
 * pattern the symbolic product), with s = (|A||B|)_ij, k the longest row of A
 * and u_p the unit roundoff:
 *   fp64: |c - r| <= 2 (16 + sqrt(k)) u_64 s  (both sums of k products);
 *   fp32 (gpu-rows): inputs rounded to float, sums in float:
 *         |c - r| <= (2 u_32 + (16 + sqrt(k)) u_32) s;
 *   fp16 (tsparse): inputs rounded to half, products exact and summed in
 *         fp32: |c - r| <= (2 u_16 + (16 + sqrt(k)) u_32) s + 2^-24 e, where
 *         e = sum over k of |a_ik| + |b_kj| covers half's subnormals (an
 *         input's error is at most max(u_16 |x|, 2^-25)).
 * tsparse drops the entries whose value is exactly 0: an entry of r missing
 * from c must satisfy the bound with c = 0; every entry of c is in r's
 * pattern and is not 0. gpu-rows keeps r's pattern exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"

#define U64 0x1p-53
#define U32 0x1p-24
#define U16 0x1p-11

typedef struct product_case {
    const spx_matrix *A, *B;
    spx_matrix *R, *S, *E; /* reference, |A||B|, sum of |a_ik| + |b_kj| */
    int64_t k;             /* longest row of A */
} product_case;

typedef struct variant {
    const char *format;
    spx_type precision;
} variant;

static int quick; /* SPX_TEST_QUICK=1: small products only */

static const variant variants[] = {
    {"tsparse", SPX_F16}, {"tsparse", SPX_F64}, {"gpu-rows", SPX_F64}, {"gpu-rows", SPX_F32}};

static const char *precision_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

/* A copy of M with values f(v): |v| or 1. */
static spx_matrix *mapped(const spx_matrix *M, int ones)
{
    const int64_t *rp;
    const void *ci, *cv;
    int bits;
    spx_type vt;
    int64_t m, n, nnz;
    spx_matrix *X = NULL;
    spx_matrix_dims(M, &m, &n, &nnz);
    spx_matrix_csr(M, &rp, &ci, &bits, &cv, &vt);
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    for (int64_t q = 0; q < nnz; q++)
        v[q] = ones ? 1.0 : fabs(vt == SPX_F64 ? ((const double *)cv)[q] : ((const float *)cv)[q]);
    CHECK_STATUS(spx_matrix_create_csr(m, n, rp, ci, v, &X), SPX_OK);
    free(v);
    return X;
}

static int64_t longest_row(const spx_matrix *M)
{
    const int64_t *rp;
    int64_t m, k = 0;
    spx_matrix_dims(M, &m, NULL, NULL);
    spx_matrix_csr(M, &rp, NULL, NULL, NULL, NULL);
    for (int64_t i = 0; i < m; i++)
        if (rp[i + 1] - rp[i] > k) k = rp[i + 1] - rp[i];
    return k;
}

/* Reference, scale and subnormal term of A*B (E only when half is checked). */
static int case_prepare(product_case *pc, const spx_matrix *A, const spx_matrix *B)
{
    spx_matrix *aa = mapped(A, 0), *ab = mapped(B, 0), *pa = mapped(A, 1), *pb = mapped(B, 1);
    spx_matrix *E1 = NULL, *E2 = NULL;
    memset(pc, 0, sizeof *pc);
    pc->A = A;
    pc->B = B;
    pc->k = longest_row(A);
    int ok = CHECK_STATUS(spx_spgemm(A, B, NULL, &pc->R), SPX_OK) &
             CHECK_STATUS(spx_spgemm(aa, ab, NULL, &pc->S), SPX_OK) &
             CHECK_STATUS(spx_spgemm(aa, pb, NULL, &E1), SPX_OK) &
             CHECK_STATUS(spx_spgemm(pa, ab, NULL, &E2), SPX_OK);
    if (ok) { /* E = E1 + E2, the same pattern */
        const void *v1, *v2;
        int64_t nnz;
        spx_matrix_dims(E1, NULL, NULL, &nnz);
        spx_matrix_csr(E1, NULL, NULL, NULL, &v1, NULL);
        spx_matrix_csr(E2, NULL, NULL, NULL, &v2, NULL);
        for (int64_t q = 0; q < nnz; q++) ((double *)v1)[q] += ((const double *)v2)[q];
        pc->E = E1;
        E1 = NULL;
    }
    spx_matrix_destroy(aa);
    spx_matrix_destroy(ab);
    spx_matrix_destroy(pa);
    spx_matrix_destroy(pb);
    spx_matrix_destroy(E1);
    spx_matrix_destroy(E2);
    return ok;
}

static void case_free(product_case *pc)
{
    spx_matrix_destroy(pc->R);
    spx_matrix_destroy(pc->S);
    spx_matrix_destroy(pc->E);
}

static double bound(const product_case *pc, spx_type t, double s, double e)
{
    const double sums = 16.0 + sqrt((double)pc->k);
    if (t == SPX_F64) return 2.0 * sums * U64 * s;
    if (t == SPX_F32) return (2.0 + sums) * U32 * s;
    return (2.0 * U16 + sums * U32) * s + 0x1p-24 * e;
}

/* Mismatches of C against the reference; *worst the largest error / bound. */
static int64_t compare(const product_case *pc, const spx_matrix *C, spx_type t, int compacted,
                       double *worst)
{
    const int64_t *rr, *cr;
    const void *rcol, *ccol, *rv, *cv, *sv, *ev;
    int rbits, cbits;
    int64_t m, n, cm, cn, bad = 0;
    spx_matrix_dims(pc->R, &m, &n, NULL);
    spx_matrix_dims(C, &cm, &cn, NULL);
    *worst = 0.0;
    if (cm != m || cn != n || spx_matrix_validate(C) != SPX_OK) return 1;
    spx_matrix_csr(pc->R, &rr, &rcol, &rbits, &rv, NULL);
    spx_matrix_csr(C, &cr, &ccol, &cbits, &cv, NULL);
    spx_matrix_csr(pc->S, NULL, NULL, NULL, &sv, NULL);
    spx_matrix_csr(pc->E, NULL, NULL, NULL, &ev, NULL);
    const int32_t *rc = rcol, *cc = ccol;
    const double *r = rv, *c = cv, *s = sv, *e = ev;
    for (int64_t i = 0; i < m; i++) {
        int64_t q = cr[i];
        for (int64_t p = rr[i]; p < rr[i + 1]; p++) {
            const int here = q < cr[i + 1] && cc[q] == rc[p];
            const double got = here ? c[q] : 0.0, tol = bound(pc, t, s[p], e[p]);
            const double err = fabs(got - r[p]);
            if (here && compacted && got == 0.0) bad++;
            if (!here && !compacted) bad++;
            if (!(err <= tol)) bad++;
            else if (tol > 0.0 && err / tol > *worst) *worst = err / tol;
            q += here;
        }
        bad += cr[i + 1] - q; /* entries outside the reference's pattern */
    }
    return bad;
}

static spx_plan_opts cuda_opts(const char *format, spx_type t, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = t;
    o.params = params;
    return o;
}

/* Every variant on the case (or only those of format `only`); declines are
 * reported and counted as passes only for fp16 values spanning more than
 * half's normal range and fp32 products beyond float's (gpu-rows on xenon1,
 * values to 3.2e28). */
static void run_variants(const product_case *pc, const char *name, const char *only,
                         const char *params)
{
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        const variant *w = &variants[v];
        if (only && strcmp(only, w->format) != 0) continue;
        spx_plan_opts o = cuda_opts(w->format, w->precision, params);
        spx_matrix *C = NULL;
        double worst = 0.0;
        spx_status st = spx_spgemm(pc->A, pc->B, &o, &C);
        if (st == SPX_ERR_UNSUPPORTED &&
            ((w->precision == SPX_F16 && strstr(spx_last_error(), "half's normal range")) ||
             (w->precision == SPX_F32 && strstr(spx_last_error(), "pass float's range")))) {
            printf("%-9s %s %-28s declined: %s\n", w->format, precision_name(w->precision), name,
                   spx_last_error());
            continue;
        }
        if (!CHECK_STATUS(st, SPX_OK)) {
            fprintf(stderr, "  %s %s on %s: %s\n", w->format, precision_name(w->precision), name,
                    spx_last_error());
            continue;
        }
        const int64_t bad = compare(pc, C, w->precision, strcmp(w->format, "tsparse") == 0, &worst);
        int64_t nnz = 0;
        spx_matrix_dims(C, NULL, NULL, &nnz);
        printf("%-9s %s %-28s nnz(C) %-10lld worst error %.3f of the bound, %lld mismatches\n",
               w->format, precision_name(w->precision), name, (long long)nnz, worst,
               (long long)bad);
        CHECK(bad == 0);
        spx_matrix_destroy(C);
    }
}

static void product_check(const spx_matrix *A, const spx_matrix *B, const char *name)
{
    product_case pc;
    if (case_prepare(&pc, A, B)) run_variants(&pc, name, NULL, NULL);
    case_free(&pc);
}

static spx_matrix *generated(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

/* Rows i % 3 == 0 empty, the others random; row 7 dense in the second. */
static spx_matrix *shaped(int64_t m, int64_t n, int dense_row, uint64_t seed)
{
    int64_t cap = m * 12 + n, nnz = 0;
    int64_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
    double *v = malloc(sizeof *v * (size_t)cap);
    for (int64_t i = 0; i < m; i++) {
        const int64_t len = i == 7 && dense_row ? n : i % 3 == 0 ? 0 : 1 + i % 11;
        for (int64_t q = 0; q < len; q++, nnz++) {
            ri[nnz] = i;
            ci[nnz] = len == n ? q : (int64_t)((spx_test_rand(&seed) + 1.0) * 0.5 * (double)n) % n;
            v[nnz] = spx_test_rand(&seed);
        }
    }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(m, n, nnz, ri, ci, v, &A), SPX_OK);
    free(ri);
    free(ci);
    free(v);
    return A;
}

static void test_edges(void)
{
    spx_matrix *Z = NULL, *Zr = NULL, *Zb = NULL;
    CHECK_STATUS(spx_matrix_from_coo(0, 0, 0, NULL, NULL, NULL, &Z), SPX_OK);
    product_check(Z, Z, "0x0");
    CHECK_STATUS(spx_matrix_from_coo(9, 5, 0, NULL, NULL, NULL, &Zr), SPX_OK);
    CHECK_STATUS(spx_matrix_from_coo(5, 13, 0, NULL, NULL, NULL, &Zb), SPX_OK);
    product_check(Zr, Zb, "9x5 * 5x13, no entries");
    spx_matrix *E = shaped(301, 211, 0, 1), *D = shaped(211, 301, 1, 2);
    product_check(E, D, "empty rows * one dense row");
    product_check(D, E, "one dense row * empty rows");
    spx_matrix_destroy(Z);
    spx_matrix_destroy(Zr);
    spx_matrix_destroy(Zb);
    spx_matrix_destroy(E);
    spx_matrix_destroy(D);
}

static void test_generated(void)
{
    static const char *const pairs[][2] = {
        {"random:m=333,n=129,nnz=3000,seed=3", "random:m=129,n=517,nnz=4000,seed=4"},
        {"random:m=2000,nnz=20000,seed=5", "random:m=2000,nnz=20000,seed=6"},
        {"rmat:scale=11,ef=8,values=random", "rmat:scale=11,ef=8,values=random"},
        {"lap3d27:12", "lap3d27:12"},
        {"banded:n=3000,bw=45", "banded:n=3000,bw=45"},
        {"powerlaw:n=4000,avg=20,seed=7", "powerlaw:n=4000,avg=20,seed=8"},
        {"random:m=64,n=64,density=1,seed=9", "random:m=64,n=64,density=1,seed=10"},
    };
    for (size_t t = 0; t < (quick ? 2 : sizeof pairs / sizeof *pairs); t++) {
        spx_matrix *A = generated(pairs[t][0]), *B = generated(pairs[t][1]);
        char name[64];
        snprintf(name, sizeof name, "%.28s", pairs[t][0]);
        if (A && B) product_check(A, B, name);
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
}

static void test_shared(void)
{
    static const char *const names[] = {
        "1138_bus",  "NotreDame_www", "TSOPF_RS_b39_c30", "bcsstk13",  "bcsstk21", "bcsstk28",
        "bfly",      "blckhole",      "c-62",             "cage11",    "can_1072", "cavity19",
        "cryg2500",  "delaunay_n16",  "dwt_2680",         "gemat12",   "lund_a",   "olm1000",
        "pores_1",   "rajat01",       "sherman3",         "sinc18",    "watt_2",   "west0067",
        "xenon1",    "zenios"};
    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    for (size_t t = 0; t < sizeof names / sizeof *names; t++) {
        char path[4096];
        spx_matrix *A = NULL;
        snprintf(path, sizeof path, "%s/%s.mtx", dir, names[t]);
        FILE *f = fopen(path, "r");
        if (!f) {
            printf("%s: not in %s, skipped\n", names[t], dir);
            continue;
        }
        fclose(f);
        if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) product_check(A, A, names[t]);
        spx_matrix_destroy(A);
    }
}

/* tsparse in panels of 8 and 24 rows (and the default), the description
 * saying how many. */
static void test_panels(void)
{
    spx_matrix *A = generated("random:m=203,n=150,nnz=2500,seed=11");
    spx_matrix *B = generated("random:m=150,n=177,nnz=2000,seed=12");
    static const char *const params[] = {"panel_rows=8", "panel_rows=24", "panel_rows=1000"};
    static const int panels[] = {26, 9, 1};
    product_case pc;
    if (case_prepare(&pc, A, B)) {
        for (size_t q = 0; q < sizeof params / sizeof *params; q++) {
            run_variants(&pc, params[q], "tsparse", params[q]);
            spx_plan_opts o = cuda_opts("tsparse", SPX_F64, params[q]);
            spx_plan *P = NULL;
            spx_matrix *C = NULL;
            char want[32];
            snprintf(want, sizeof want, "%d row panel", panels[q]);
            if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_OK) &&
                CHECK_STATUS(spx_spgemm_run(P, B, &C), SPX_OK) &&
                !CHECK(strstr(spx_plan_describe(P), want) != NULL))
                fprintf(stderr, "  %s: %s\n", params[q], spx_plan_describe(P));
            spx_matrix_destroy(C);
            spx_plan_destroy(P);
        }
    }
    case_free(&pc);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* gpu-rows' long rows (more than 2048 products and entries of C): dense
 * accumulators with the sums in shared memory (6030 columns: an odd count of
 * bitmap words), summed in C through the bitmap's ranks (40000 columns, fp64,
 * and the most columns the bitmap takes, 2^20) and in a global row of sums
 * (rank=off), against the hash tables (long=hash); rows of 513-2048 entries
 * (3011 columns: shared hash tables either way); past 2^20 columns AUTO
 * takes the hash tables and long=dense declines. */
static void test_long_rows(void)
{
    static const struct {
        const char *a, *b, *params[3];
    } cases[] = {
        {"random:m=40,n=3000,density=0.5,seed=21",
         "random:m=3000,n=6030,nnz=60000,seed=22",
         {"long=dense", "long=hash"}},
        {"random:m=50,n=2000,nnz=2000,seed=29",
         "random:m=2000,n=3011,nnz=40000,seed=30",
         {"long=auto", "long=hash"}},
        {"random:m=30,n=3000,density=0.5,seed=23",
         "random:m=3000,n=40000,nnz=150000,seed=24",
         {"long=dense", "long=dense,rank=off", "long=hash"}},
        {"random:m=12,n=2000,density=0.5,seed=31",
         "random:m=2000,n=1048576,nnz=200000,seed=32",
         {"long=dense", "long=dense,rank=off", "long=hash"}},
        {"random:m=20,n=2000,density=0.5,seed=25",
         "random:m=2000,n=1048600,nnz=40000,seed=26",
         {"long=auto", "long=hash"}},
    };
    for (size_t t = 0; t < (quick ? 3 : sizeof cases / sizeof *cases); t++) {
        spx_matrix *A = generated(cases[t].a), *B = generated(cases[t].b);
        product_case pc;
        if (A && B && case_prepare(&pc, A, B)) {
            for (int q = 0; q < 3 && cases[t].params[q]; q++) {
                char name[64];
                snprintf(name, sizeof name, "%.18s %s", cases[t].b + 7, cases[t].params[q]);
                run_variants(&pc, name, "gpu-rows", cases[t].params[q]);
            }
            case_free(&pc);
        }
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
    /* B wider than the bitmap: long=dense says so */
    spx_matrix *A = generated("random:m=4,n=8,nnz=20,seed=27");
    spx_matrix *B = generated("random:m=8,n=1048600,nnz=40,seed=28");
    spx_plan_opts o = cuda_opts("gpu-rows", SPX_F64, "long=dense");
    spx_matrix *C = NULL;
    if (A && B && CHECK_STATUS(spx_spgemm(A, B, &o, &C), SPX_ERR_UNSUPPORTED))
        CHECK(strstr(spx_last_error(), "dense bitmap") != NULL);
    o.params = "long=sparse";
    if (A && B) CHECK_STATUS(spx_spgemm(A, B, &o, &C), SPX_ERR_BAD_PARAM);
    spx_matrix_destroy(C);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
}

/* gpu-rows in row panels (param panel_nnz: at most that many entries of C
 * on the device at once; a row longer than it is a panel of its own), the
 * description saying how many. */
static void test_row_panels(void)
{
    static const struct {
        const char *a, *b, *params;
        int min_panels;
    } cases[] = {
        {"lap3d27:10", "lap3d27:10", "panel_nnz=5000", 2},
        {"random:m=40,n=3000,density=0.5,seed=21", "random:m=3000,n=6030,nnz=60000,seed=22",
         "panel_nnz=20000", 2},
        {"random:m=203,n=150,nnz=2500,seed=11", "random:m=150,n=177,nnz=2000,seed=12",
         "panel_nnz=1", 150},
    };
    for (size_t t = 0; t < (quick ? 1 : sizeof cases / sizeof *cases); t++) {
        spx_matrix *A = generated(cases[t].a), *B = generated(cases[t].b);
        product_case pc;
        if (A && B && case_prepare(&pc, A, B)) {
            run_variants(&pc, cases[t].params, "gpu-rows", cases[t].params);
            spx_plan_opts o = cuda_opts("gpu-rows", SPX_F64, cases[t].params);
            spx_plan *P = NULL;
            spx_matrix *C = NULL;
            int panels = 0;
            const char *d;
            if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_OK) &&
                CHECK_STATUS(spx_spgemm_run(P, B, &C), SPX_OK)) {
                d = strstr(spx_plan_describe(P), "last product: ");
                if (d) panels = atoi(d + strlen("last product: "));
                if (!CHECK(panels >= cases[t].min_panels))
                    fprintf(stderr, "  %s: %s\n", cases[t].params, spx_plan_describe(P));
            }
            spx_matrix_destroy(C);
            spx_plan_destroy(P);
            case_free(&pc);
        }
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
}

/* gpu-rows' numeric rows sort only their filled slots (the default,
 * sort=filled) or their whole hash table (sort=table): both against the
 * reference, on rows of the shared-table bins and (long=hash, rows of more
 * than 2048 entries) the global tables. */
static void test_sort_modes(void)
{
    static const char *const cases[][2] = {
        {"lap3d27:10", "lap3d27:10"},
        {"random:m=300,n=2000,nnz=9000,seed=41", "random:m=2000,n=30000,nnz=200000,seed=42"},
    };
    static const char *const params[] = {"sort=filled", "sort=table", "sort=filled,long=hash",
                                         "sort=table,long=hash,pool=release"};
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        spx_matrix *A = generated(cases[t][0]), *B = generated(cases[t][1]);
        product_case pc;
        if (A && B && case_prepare(&pc, A, B)) {
            for (int q = 0; q < 4; q++) run_variants(&pc, params[q], "gpu-rows", params[q]);
            case_free(&pc);
        }
        spx_matrix_destroy(A);
        spx_matrix_destroy(B);
    }
    spx_matrix *A = generated("random:m=4,n=8,nnz=20,seed=27"), *C = NULL;
    spx_plan_opts o = cuda_opts("gpu-rows", SPX_F64, "sort=keys");
    if (A && CHECK_STATUS(spx_spgemm(A, A, &o, &C), SPX_ERR_BAD_PARAM))
        CHECK(strstr(spx_last_error(), "filled or table") != NULL);
    o.params = "pool=never";
    if (A && CHECK_STATUS(spx_spgemm(A, A, &o, &C), SPX_ERR_BAD_PARAM))
        CHECK(strstr(spx_last_error(), "keep or release") != NULL);
    spx_matrix_destroy(C);
    spx_matrix_destroy(A);
}

/* C's arrays of more than one 16 MB chunk through the staged copy to the
 * host (the threshold, a test hook, lowered to 1 MB). */
static void test_staged_copy(void)
{
    const size_t saved = spx__cuda_stage_min;
    spx_matrix *A = generated("lap3d27:30");
    spx__cuda_stage_min = (size_t)1 << 20;
    if (A) product_check(A, A, "lap3d27:30, staged copy");
    spx__cuda_stage_min = saved;
    spx_matrix_destroy(A);
}

/* One plan, three B. */
static void test_plan_reuse(void)
{
    spx_matrix *A = generated("random:m=500,n=300,nnz=4000,seed=13");
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        spx_plan_opts o = cuda_opts(variants[v].format, variants[v].precision, NULL);
        spx_plan *P = NULL;
        if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPGEMM, &o, &P), SPX_OK)) continue;
        for (int k = 0; k < 3; k++) {
            char spec[96];
            snprintf(spec, sizeof spec, "random:m=300,n=%d,nnz=%d,seed=%d", 100 + 50 * k,
                     1000 * (k + 1), 20 + k);
            spx_matrix *B = generated(spec), *C = NULL;
            product_case pc;
            double worst;
            if (case_prepare(&pc, A, B) && CHECK_STATUS(spx_spgemm_run(P, B, &C), SPX_OK))
                CHECK(compare(&pc, C, variants[v].precision,
                              strcmp(variants[v].format, "tsparse") == 0, &worst) == 0);
            case_free(&pc);
            spx_matrix_destroy(C);
            spx_matrix_destroy(B);
        }
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

/* AUTO: tsparse for A of dense tiles and at most 2M entries, gpu-rows
 * elsewhere; fp16 has tsparse only. */
static void test_auto(void)
{
    spx_matrix *big = generated("banded:n=8000,bw=25"), *small = generated("lap2d5:50");
    spx_matrix *huge = generated("banded:n=50000,bw=25"); /* dense tiles, 2.55M entries */
    const struct {
        const spx_matrix *A;
        spx_type t;
        const char *want;
    } cases[] = {{big, SPX_F64, "tsparse"},
                 {huge, SPX_F64, "gpu-rows"},
                 {small, SPX_F64, "gpu-rows"},
                 {small, SPX_F32, "gpu-rows"},
                 {small, SPX_F16, "tsparse"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        spx_plan_opts o = cuda_opts("auto", cases[c].t, NULL);
        spx_plan *P = NULL;
        if (CHECK_STATUS(spx_plan_create(cases[c].A, SPX_OP_SPGEMM, &o, &P), SPX_OK) &&
            !CHECK(strcmp(spx_plan_format(P), cases[c].want) == 0))
            fprintf(stderr, "  auto %s: %s\n", precision_name(cases[c].t), spx_plan_format(P));
        spx_plan_destroy(P);
    }
    spx_matrix_destroy(big);
    spx_matrix_destroy(huge);
    spx_matrix_destroy(small);
}

/* C = X*Y in fp16 tsparse against the exact product of 2x2 diagonals
 * (every product below is exact in fp64 and within half's 11 bits). */
static void check_diagonal_f16(const double *x, const double *y)
{
    const int64_t rp[] = {0, 1, 2};
    const int32_t ci[] = {0, 1};
    spx_matrix *X = NULL, *Y = NULL, *C = NULL;
    spx_plan_opts h = cuda_opts("tsparse", SPX_F16, NULL);
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, x, &X), SPX_OK);
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, y, &Y), SPX_OK);
    if (CHECK_STATUS(spx_spgemm(X, Y, &h, &C), SPX_OK)) {
        const void *cols = NULL, *vals = NULL;
        const int64_t *r = NULL;
        int bits = 0;
        spx_type vt = SPX_F64;
        if (CHECK_STATUS(spx_matrix_csr(C, &r, &cols, &bits, &vals, &vt), SPX_OK) &&
            CHECK(r[2] == 2))
            for (int i = 0; i < 2; i++)
                if (!CHECK(((const double *)vals)[i] == x[i] * y[i]))
                    fprintf(stderr, "  f16 scaled: %g * %g gave %g\n", x[i], y[i],
                            ((const double *)vals)[i]);
    }
    spx_matrix_destroy(X), spx_matrix_destroy(Y), spx_matrix_destroy(C);
}

/* fp16: values beyond half's range are scaled by a power of two (196608;
 * 2.9e25 and 3e24 as in xenon1; 2^-20), values spanning more than half's normal
 * range declined, in A and in B; an infinity declined in fp64. */
static void test_declines(void)
{
    const int64_t rp[] = {0, 1, 2}, bad_rp[] = {0, 2, 2};
    const int32_t ci[] = {0, 1}, bad_ci[] = {0, 1};
    const double ok[] = {1.0, 2.0}, wide[] = {1.0, 1e-10}, inf[] = {INFINITY, 1.0};
    const double big[] = {1.0, 0x1.8p17 /* 196608 */}, huge[] = {0x1.8p84, 0x1.4p81},
                 tiny[] = {0x1p-20, 0x1.8p-21};
    spx_matrix *G = NULL, *H = NULL, *I = NULL;
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, ok, &G), SPX_OK);
    CHECK_STATUS(spx_matrix_create_csr(2, 2, bad_rp, bad_ci, wide, &H), SPX_OK);
    CHECK_STATUS(spx_matrix_create_csr(2, 2, bad_rp, bad_ci, inf, &I), SPX_OK);
    spx_plan_opts h = cuda_opts("tsparse", SPX_F16, NULL), d = cuda_opts("tsparse", SPX_F64, NULL);
    spx_matrix *C = NULL;
    check_diagonal_f16(big, ok);
    check_diagonal_f16(huge, big);
    check_diagonal_f16(tiny, huge);
    if (CHECK_STATUS(spx_spgemm(H, G, &h, &C), SPX_ERR_UNSUPPORTED))
        CHECK(strstr(spx_last_error(), "normal range") != NULL &&
              strstr(spx_last_error(), "1e-10") != NULL);
    if (CHECK_STATUS(spx_spgemm(G, H, &h, &C), SPX_ERR_UNSUPPORTED))
        CHECK(strstr(spx_last_error(), "values of B") != NULL);
    CHECK_STATUS(spx_spgemm(I, G, &d, &C), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_spgemm(G, I, &d, &C), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_spgemm(H, G, &d, &C), SPX_OK); /* the wide range is fine in fp64 */
    spx_matrix_destroy(C);
    spx_matrix_destroy(G);
    spx_matrix_destroy(H);
    spx_matrix_destroy(I);
}

/* More than 2^31 intermediate products (about 2.5e9): A*A of a band of 101
 * entries a row over 250000 rows, fp64 formats against gustavson. */
static void test_large(void)
{
    spx_matrix *A = generated("banded:n=250000,bw=50");
    spx_spgemm_info info;
    product_case pc;
    if (!A) return;
    if (CHECK_STATUS(spx_spgemm_stats(A, A, &info), SPX_OK))
        CHECK(info.products > ((int64_t)1 << 31));
    printf("large: %lld intermediate products, nnz(C) %lld, %lld tile products\n",
           (long long)info.products, (long long)info.nnz_c, (long long)info.tile_products);
    if (case_prepare(&pc, A, A)) run_variants(&pc, "banded:n=250000,bw=50", NULL, NULL);
    case_free(&pc);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        printf("SKIP: no CUDA device: the CUDA SpGEMM formats are not run\n");
        return 77;
    }
    const char *q = getenv("SPX_TEST_QUICK"), *part = getenv("SPX_TEST_PART");
    quick = q && strcmp(q, "1") == 0;
    if (part && strcmp(part, "long") == 0) { /* the long rows alone (racecheck) */
        test_long_rows();
        return spx_test_finish();
    }
    test_edges();
    test_generated();
    test_shared();
    test_panels();
    test_long_rows();
    test_row_panels();
    test_sort_modes();
    if (!quick) test_staged_copy();
    test_plan_reuse();
    test_auto();
    test_declines();
    const char *large = getenv("SPX_TEST_LARGE");
    if (large && strcmp(large, "1") == 0) test_large();
    else printf("large product (2^31 intermediate products) not run: SPX_TEST_LARGE=1 runs it\n");
    return spx_test_finish();
}
