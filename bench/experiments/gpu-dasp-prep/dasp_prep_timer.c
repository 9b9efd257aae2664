/* The timer behind gpu-dasp-prep-2026-11-22.md: preparation time (plan
 * creation, spx_plan_prep_ms) of `dasp` with prep=host and prep=gpu and of the
 * CUDA `csr` plan, in one process, on each matrix and precision given; the
 * median of ROUNDS rounds, the three plans' order rotating per round, after one
 * warm-up plan (CUDA context). Also the host-only parts of dasp: the layout
 * with the row map (spx__dasp_pack_layout, what prep=gpu does on the host) and
 * the whole host packing (spx__dasp_pack); and whether the two dasp plans give
 * the same bits of y. For F16 a matrix with values beyond half's range is
 * timed as a copy scaled to at most 1 in size (as test_dasp does). Not part
 * of the build (bench/results is not globbed):
 *   gcc -O2 -Iinclude -Isrc bench/results/gpu-dasp-prep-timer.c -Lbuild-gpu -lspx \
 *       -Wl,-rpath,$PWD/build-gpu -o /tmp/prep-timer
 *   /tmp/prep-timer f64,f16 gen:lap3d27:96 matrices/xenon1.mtx ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/dasp/dasp.h"
#include "spx.h"

#define ROUNDS 3

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static const char *const formats[3] = {"csr", "dasp", "dasp"};
static const char *const params[3] = {NULL, "prep=host", "prep=gpu"};

/* Prep ms of plan kind k, or -1; y (if given) from one call. */
static double plan_ms(const spx_matrix *A, spx_type t, int k, const void *x, void *y)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = formats[k];
    o.params = params[k];
    o.device = SPX_DEV_CUDA;
    o.precision = t;
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) != SPX_OK) {
        printf("  %s %s: %s\n", formats[k], params[k] ? params[k] : "", spx_last_error());
        return -1.0;
    }
    double ms = spx_plan_prep_ms(P);
    if (y && spx_spmv_host(P, 1.0, x, 0.0, y) != SPX_OK) ms = -1.0;
    spx_plan_destroy(P);
    return ms;
}

static void run(const char *name, const spx_matrix *A, spx_type t)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    size_t es = t == SPX_F16 ? sizeof(float) : sizeof(double);
    char *x = calloc((size_t)n + 1, es), *y1 = calloc((size_t)m + 1, es);
    char *y2 = calloc((size_t)m + 1, es);
    for (int64_t j = 0; j < n; j++)
        if (t == SPX_F16) ((float *)x)[j] = (float)((j * 7919) % 2001 - 1000) / 1000.f;
        else ((double *)x)[j] = (double)((j * 7919) % 2001 - 1000) / 1000.0;
    double ms[3][ROUNDS], lay[ROUNDS], full[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int q = 0; q < 3; q++) {
            int k = (q + r) % 3;
            ms[k][r] = plan_ms(A, t, k, x, k == 1 && r == 0 ? y1 : k == 2 && r == 0 ? y2 : NULL);
        }
        spx__dasp_host *h = NULL;
        double t0 = now_ms();
        spx__dasp_pack_layout(A, 75, 0, &h);
        lay[r] = now_ms() - t0;
        spx__dasp_host_free(h);
        t0 = now_ms();
        spx__dasp_pack(A, 75, 0, &h);
        full[r] = now_ms() - t0;
        spx__dasp_host_free(h);
    }
    int same = memcmp(y1, y2, es * (size_t)m) == 0;
    printf("%-40s %s nnz=%-10lld csr %8.1f  dasp host %8.1f  dasp gpu %8.1f ms  "
           "(host layout %6.1f, host packing %6.1f)  y %s\n",
           name, t == SPX_F16 ? "f16" : "f64", (long long)nnz, median(ms[0], ROUNDS),
           median(ms[1], ROUNDS), median(ms[2], ROUNDS), median(lay, ROUNDS),
           median(full, ROUNDS), same ? "identical" : "DIFFERENT");
    fflush(stdout);
    free(x), free(y1), free(y2);
}

/* A copy of A with values scaled to at most 1 in size when some are beyond
 * half's range (65504), as test_dasp does for F16; else NULL. */
static spx_matrix *half_copy(const spx_matrix *A)
{
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    double *v = malloc(sizeof *v * (size_t)(nnz + 1)), big = 0.0;
    for (int64_t e = 0; e < nnz; e++) {
        v[e] = vt == SPX_F64 ? ((const double *)vv)[e] : ((const float *)vv)[e];
        big = v[e] > big ? v[e] : -v[e] > big ? -v[e] : big;
    }
    for (int64_t e = 0; e < nnz; e++) v[e] /= big;
    spx_matrix *S = NULL;
    if (big <= 65504.0 || bits != 32 || spx_matrix_create_csr(m, n, rp, ci, v, &S) != SPX_OK)
        S = NULL;
    free(v);
    return S;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s f64[,f16] MATRIX|gen:SPEC...\n", argv[0]);
        return 2;
    }
    spx_matrix *W = NULL;
    if (spx_generate("lap2d5:8", &W) == SPX_OK) plan_ms(W, SPX_F64, 0, NULL, NULL);
    spx_matrix_destroy(W);
    for (int i = 2; i < argc; i++) {
        spx_matrix *A = NULL;
        int gen = strncmp(argv[i], "gen:", 4) == 0;
        if ((gen ? spx_generate(argv[i] + 4, &A) : spx_matrix_read(argv[i], &A)) != SPX_OK) {
            printf("%s: %s\n", argv[i], spx_last_error());
            continue;
        }
        if (strstr(argv[1], "f64")) run(argv[i], A, SPX_F64);
        spx_matrix *S = strstr(argv[1], "f16") ? half_copy(A) : NULL;
        if (S) {
            char name[4096];
            snprintf(name, sizeof name, "%s (scaled)", argv[i]);
            run(name, S, SPX_F16);
        } else if (strstr(argv[1], "f16")) {
            run(argv[i], A, SPX_F16);
        }
        spx_matrix_destroy(S);
        spx_matrix_destroy(A);
    }
    return 0;
}
