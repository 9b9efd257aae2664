/* Conformance: every registered format, on every device this machine has and
 * every precision the format declares, against the long-double reference, on
 * edge cases (0x0, m x 0, 0 x n, nnz = 0, empty rows, one dense row, a row of
 * 100,000 nonzeros, unsorted and duplicate input, rectangular) and on every
 * shared matrix (skipped with a message when the folder is absent).
 *
 * Tolerance, per precision p (unit roundoff u_p):
 *   |y - ref|_inf <= c_p * (|alpha| |op(A)| |x| + |beta| |y0|)_inf,
 *   c_p = (16 + sqrt(rmax)) * u_p, rmax the longest row of op(A):
 *   rounding of a sum of rmax products grows like sqrt(rmax) u for the
 *   unstructured values used here; u_f64 = 2^-53, u_f32 = 2^-24; for f16
 *   (values rounded to half, products summed in fp32) c = 2^-10 + that of f32.
 * A NaN placed in y must not leak when beta = 0; every entry must be written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct test_case {
    char name[96];
    spx_matrix *A;
} test_case;

#define MAX_CASES 64
static test_case cases[MAX_CASES];
static int ncases;

static void add_case(const char *name, spx_matrix *A)
{
    if (!A || ncases == MAX_CASES) {
        spx_matrix_destroy(A);
        return;
    }
    snprintf(cases[ncases].name, sizeof cases[ncases].name, "%s", name);
    cases[ncases++].A = A;
}

/* A rows x cols matrix from triplets (checked). */
static spx_matrix *from_coo(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                            const int64_t *ci, const double *v)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(rows, cols, nnz, ri, ci, v, &A), SPX_OK);
    return A;
}

/* Random matrix with row i holding len(i) entries at random columns. */
static spx_matrix *random_rows(int64_t rows, int64_t cols, int64_t (*len)(int64_t i, uint64_t *s),
                               uint64_t seed)
{
    int64_t cap = 0;
    uint64_t s = seed;
    for (int64_t i = 0; i < rows; i++) cap += len(i, &s);
    int64_t *ri = malloc(sizeof *ri * (size_t)(cap + 1)), *ci = malloc(sizeof *ci * (size_t)(cap + 1));
    double *v = malloc(sizeof *v * (size_t)(cap + 1));
    int64_t n = 0;
    s = seed;
    uint64_t r = seed ^ 0x5bd1e995u;
    for (int64_t i = 0; i < rows; i++) {
        int64_t l = len(i, &s);
        for (int64_t k = 0; k < l; k++) {
            ri[n] = i;
            ci[n] = (int64_t)((spx_test_rand(&r) + 1.0) * 0.5 * (double)cols) % (cols ? cols : 1);
            v[n++] = spx_test_rand(&r);
        }
    }
    spx_matrix *A = from_coo(rows, cols, n, ri, ci, v);
    free(ri);
    free(ci);
    free(v);
    return A;
}

static int64_t len_varied(int64_t i, uint64_t *s)
{
    double u = (spx_test_rand(s) + 1.0) * 0.5;
    return i % 7 == 3 ? 0 : (int64_t)(u * u * u * 40.0);
}
static int64_t len_one_dense(int64_t i, uint64_t *s)
{
    (void)s;
    return i == 17 ? 3000 : i % 5;
}
static int64_t len_very_long(int64_t i, uint64_t *s)
{
    (void)s;
    return i == 2 ? 100000 : (i % 3 == 0 ? 0 : 3);
}
static int64_t len_every_class(int64_t i, uint64_t *s)
{
    static const int64_t lens[] = {0, 1, 2, 3, 4, 5, 8, 31, 64, 255, 256, 257, 1000, 4, 3, 1};
    (void)s;
    return lens[i % 16];
}

static void build_cases(void)
{
    int64_t ri[] = {2, 0, 1, 2, 0, 2, 0}, ci[] = {1, 2, 0, 1, 0, 3, 2};
    double v[] = {1.5, -2.0, 3.0, 0.25, 4.0, -1.0, 0.5}; /* unsorted; (2,1) and (0,2) twice */
    add_case("0x0", from_coo(0, 0, 0, NULL, NULL, NULL));
    add_case("5x0", from_coo(5, 0, 0, NULL, NULL, NULL));
    add_case("0x5", from_coo(0, 5, 0, NULL, NULL, NULL));
    add_case("nnz=0 6x4", from_coo(6, 4, 0, NULL, NULL, NULL));
    add_case("unsorted+duplicates 3x4", from_coo(3, 4, 7, ri, ci, v));
    add_case("1x1", from_coo(1, 1, 1, ri + 1, ri + 1, v));
    add_case("empty rows + varied 500x500", random_rows(500, 500, len_varied, 1));
    add_case("one dense row 40x3000", random_rows(40, 3000, len_one_dense, 2));
    add_case("row of 100000 6x100000", random_rows(6, 100000, len_very_long, 3));
    add_case("every row class 160x1200", random_rows(160, 1200, len_every_class, 4));
    add_case("rectangular 300x1700", random_rows(300, 1700, len_varied, 5));
    add_case("rectangular 1700x90", random_rows(1700, 90, len_varied, 6));
    add_case("random 20000x20000", random_rows(20000, 20000, len_varied, 7));
}

static void load_shared(void)
{
    static const char *files[] = {
        "1138_bus", "NotreDame_www", "TSOPF_RS_b39_c30", "bcsstk13", "bcsstk21", "bcsstk28",
        "bfly", "blckhole", "c-62", "cage11", "can_1072", "cavity19", "cryg2500",
        "delaunay_n16", "dwt_2680", "gemat12", "lund_a", "olm1000", "pores_1", "rajat01",
        "sherman3", "sinc18", "watt_2", "west0067", "xenon1", "zenios"};
    const char *dir = spx_test_matrices_dir();
    if (!dir) return;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char path[4096];
        spx_matrix *A = NULL;
        snprintf(path, sizeof path, "%s/%s.mtx", dir, files[f]);
        if (CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) add_case(files[f], A);
    }
}

static double unit_roundoff(spx_type p) { return p == SPX_F64 ? 0x1p-53 : 0x1p-24; }

static int64_t longest_row(const spx_matrix *A, spx_op op)
{
    int64_t rows, cols, nnz, best = 0;
    const int64_t *rp;
    const void *ci;
    int bits;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, NULL, NULL);
    if (op == SPX_OP_N) {
        for (int64_t i = 0; i < rows; i++)
            if (rp[i + 1] - rp[i] > best) best = rp[i + 1] - rp[i];
        return best;
    }
    int64_t *count = calloc((size_t)cols + 1, sizeof *count);
    for (int64_t k = 0; k < nnz; k++) {
        int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
        if (++count[j] > best) best = count[j];
    }
    free(count);
    return best;
}

/* One format x device x precision x op x (alpha, beta) on one case. */
static void run_one(const test_case *tc, const char *fmt, spx_device dev, spx_type prec,
                    spx_op op, double alpha, double beta)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(tc->A, &rows, &cols, &nnz);
    int64_t out = op == SPX_OP_N ? rows : cols, in = op == SPX_OP_N ? cols : rows;
    double *x = malloc(sizeof(double) * (size_t)(in + 1));
    double *y0 = malloc(sizeof(double) * (size_t)(out + 1));
    double *ref = malloc(sizeof(double) * (size_t)(out + 1));
    double *scale = malloc(sizeof(double) * (size_t)(out + 1));
    double *y = malloc(sizeof(double) * (size_t)(out + 1));
    void *xv = malloc(sizeof(double) * (size_t)(in + 1)), *yv = malloc(sizeof(double) * (size_t)(out + 1));
    uint64_t seed = (uint64_t)nnz * 31 + (uint64_t)prec;
    for (int64_t j = 0; j < in; j++) {
        x[j] = spx_test_rand(&seed);
        if (prec != SPX_F64) x[j] = (float)x[j];
    }
    for (int64_t i = 0; i < out; i++) y0[i] = beta == 0.0 ? NAN : spx_test_rand(&seed);
    for (int64_t i = 0; i < out; i++)
        if (prec != SPX_F64 && beta != 0.0) y0[i] = (float)y0[i];
    spx_test_reference(tc->A, op, alpha, x, beta, y0, ref, scale);
    for (int64_t j = 0; j < in; j++) {
        if (prec == SPX_F64) ((double *)xv)[j] = x[j];
        else ((float *)xv)[j] = (float)x[j];
    }
    for (int64_t i = 0; i < out; i++) {
        if (prec == SPX_F64) ((double *)yv)[i] = y0[i];
        else ((float *)yv)[i] = (float)y0[i];
    }
    spx_plan_opts o = spx_plan_opts_default();
    o.format = fmt;
    o.device = dev;
    o.precision = prec;
    o.op = op;
    spx_plan *P = NULL;
    spx_status st = spx_plan_create(tc->A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_ERR_UNSUPPORTED) { /* a format may decline, with a reason */
        CHECK(strlen(spx_last_error()) > 0);
        goto done;
    }
    if (!CHECK_STATUS(st, SPX_OK)) {
        fprintf(stderr, "  plan %s on %s\n", fmt, tc->name);
        goto done;
    }
    if (!CHECK_STATUS(spx_spmv_host(P, alpha, xv, beta, yv), SPX_OK)) goto done;
    for (int64_t i = 0; i < out; i++)
        y[i] = prec == SPX_F64 ? ((double *)yv)[i] : ((float *)yv)[i];
    double c = (16.0 + sqrt((double)longest_row(tc->A, op))) * unit_roundoff(prec);
    if (prec == SPX_F16) c += 0x1p-10;
    double err = spx_test_rel_err(y, ref, scale, out);
    if (!CHECK(err <= c))
        fprintf(stderr, "  %s %s %s op%s alpha=%g beta=%g on %s: error %.3g > %.3g\n", fmt,
                dev == SPX_DEV_CPU ? "cpu" : "cuda",
                prec == SPX_F64 ? "f64" : prec == SPX_F32 ? "f32" : "f16",
                op == SPX_OP_N ? "N" : "T", alpha, beta, tc->name, err, c);
done:
    spx_plan_destroy(P);
    free(x), free(y0), free(ref), free(scale), free(y), free(xv), free(yv);
}

int main(void)
{
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    static const spx_device devs[] = {SPX_DEV_CPU, SPX_DEV_CUDA};
    build_cases();
    int hand_cases = ncases;
    load_shared();
    if (!spx_device_available(SPX_DEV_CUDA))
        printf("SKIP: no CUDA device here: CUDA formats are not run\n");
    for (int f = 0; f < spx_format_count(); f++) {
        const char *name;
        unsigned devices, precisions;
        if (!spx_test_spmv_format(f, &name, &devices, &precisions)) continue;
        for (int d = 0; d < 2; d++) {
            if (!(devices & devs[d]) || !spx_device_available(devs[d])) continue;
            for (int p = 0; p < 3; p++) {
                if (!(precisions & (1u << precs[p]))) continue;
                long failed_before = spx_test_failed;
                for (int c = 0; c < ncases; c++) {
                    run_one(&cases[c], name, devs[d], precs[p], SPX_OP_N, 1.0, 0.0);
                    if (c >= hand_cases) continue; /* shared matrices: one product each */
                    run_one(&cases[c], name, devs[d], precs[p], SPX_OP_N, -1.5, 0.5);
                    run_one(&cases[c], name, devs[d], precs[p], SPX_OP_T, 0.75, -2.0);
                }
                printf("%-10s %-4s %-3s %s\n", name, devs[d] == SPX_DEV_CPU ? "cpu" : "cuda",
                       precs[p] == SPX_F64 ? "f64" : precs[p] == SPX_F32 ? "f32" : "f16",
                       spx_test_failed == failed_before ? "ok" : "FAILED");
            }
        }
    }
    for (int c = 0; c < ncases; c++) spx_matrix_destroy(cases[c].A);
    return spx_test_finish();
}
