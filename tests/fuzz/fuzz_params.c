/* libFuzzer harness: plan parameters. The input up to its first NUL is
 * o.params for every registered CPU SpMV format (and auto) on one small fixed
 * matrix; the byte after the NUL, when there is one, picks the options:
 * bit 0 fp32, bit 1 op T, bit 2 beta != 0, bit 3 one thread.
 *
 * A plan that is made must compute y = alpha op(A) x + beta y against a
 * long-double reference (vectors=permuted plans in their own order), and
 * with beta = 0 must not read y (it holds NaN); a refused one must say why. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define N 48

static spx_matrix *A;
static double x[N], y0[N];

void spx_fuzz_setup(void)
{
    int64_t ri[N * N], ci[N * N], nnz = 0;
    double v[N * N];
    uint64_t s = 12345;
    /* Row 0 dense, rows 5 and 6 empty, the rest a diagonal and a few others. */
    for (int64_t i = 0; i < N; i++) {
        for (int64_t j = 0; j < N; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int keep = i == 0 || (i != 5 && i != 6 && (i == j || (s >> 59) < 3));
            if (!keep) continue;
            ri[nnz] = i;
            ci[nnz] = j;
            v[nnz++] = (double)(int64_t)(s >> 54) / 512.0 - 1.0;
        }
        x[i] = 1.0 + (double)i / 7.0;
        y0[i] = 0.5 - (double)i / 11.0;
    }
    spx_fuzz_require(spx_matrix_from_coo(N, N, nnz, ri, ci, v, &A) == SPX_OK, "fixed matrix");
}

/* y = alpha op(A) x + beta y0 in long double, and each row's scale. */
static void reference(int trans, double alpha, double beta, double *y, double *scale)
{
    const int64_t *rp;
    const void *cv, *vv;
    int bits;
    spx_type t;
    long double acc[N] = {0}, mag[N] = {0};
    spx_matrix_csr(A, &rp, &cv, &bits, &vv, &t);
    const int32_t *col = cv;
    const double *val = vv;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t r = trans ? col[k] : i, c = trans ? i : col[k];
            acc[r] += (long double)val[k] * x[c];
            mag[r] += fabsl((long double)val[k] * x[c]);
        }
    for (int i = 0; i < N; i++) {
        y[i] = (double)(alpha * acc[i] + beta * y0[i]);
        scale[i] = (double)(fabs(alpha) * mag[i] + fabs(beta) * fabs(y0[i]));
    }
}

/* Run P once and compare with the reference; perm maps the plan's order. */
static void check_plan(const spx_plan *P, int f32, int trans, double beta)
{
    const double alpha = 1.25;
    double ref[N], scale[N], xd[N], yd[N], smax = 0.0, err = 0.0;
    float xf[N], yf[N];
    int64_t perm[N];
    spx_fuzz_require(spx_plan_permutation(P, perm) == SPX_OK, "permutation");
    const char *desc = spx_plan_describe(P);
    int permuted = desc && strstr(desc, "vectors=permuted") != NULL;
    for (int k = 0; k < N; k++) {
        int64_t i = permuted ? perm[k] : k;
        xd[k] = x[i];
        yd[k] = beta != 0.0 ? y0[i] : NAN;
        xf[k] = (float)xd[k];
        yf[k] = (float)yd[k];
    }
    reference(trans, alpha, beta, ref, scale);
    spx_status st = f32 ? spx_spmv(P, alpha, xf, beta, yf) : spx_spmv(P, alpha, xd, beta, yd);
    spx_fuzz_require(st == SPX_OK, "spx_spmv fails on a plan that was made");
    for (int k = 0; k < N; k++) {
        int64_t i = permuted ? perm[k] : k;
        double d = fabs((f32 ? (double)yf[k] : yd[k]) - ref[i]);
        err = isnan(d) ? INFINITY : fmax(err, d);
        smax = scale[i] > smax ? scale[i] : smax;
    }
    spx_fuzz_require(err <= (f32 ? 1e-5 : 1e-13) * N * smax, "y differs from the reference");
}

static void try_format(const char *format, const char *params, unsigned opt)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = (spx_plan *)&P;
    o.format = format;
    o.params = params;
    o.precision = opt & 1 ? SPX_F32 : SPX_F64;
    o.op = opt & 2 ? SPX_OP_T : SPX_OP_N;
    o.threads = opt & 8 ? 1 : 0;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st != SPX_OK) {
        spx_fuzz_failed(st, P);
        return;
    }
    spx_plan_bytes(P);
    spx_fuzz_require(spx_plan_format(P) != NULL, "a plan without a format name");
    check_plan(P, (int)(opt & 1), o.op == SPX_OP_T, opt & 4 ? -0.75 : 0.0);
    spx_plan_destroy(P);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *params = spx_fuzz_string(data, size);
    size_t used = strlen(params);
    unsigned opt = used + 1 < size ? data[used + 1] : 0;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        spx_fuzz_require(spx_format_get(i, &f) == SPX_OK, "registry");
        if ((f.devices & SPX_DEV_CPU) && (f.operations & (1u << SPX_OP_SPMV)))
            try_format(f.name, params, opt);
    }
    try_format("auto", params, opt);
    free(params);
    return 0;
}
