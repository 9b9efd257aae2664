/* Timer for the staged uploads (src/cuda/staged.cu), one process: a 512 MiB
 * upload and the CUDA csr plan of gen:lap3d27:96 and gen:lap3d7:200 (f64),
 * alternating the staged path and the plain cudaMemcpy (spx__cuda_stage_min
 * raised) for 5 rounds; medians in ms. Not part of the build; compiled by
 * hand on the GPU machine (see gpu-staged-upload-2026-11-22.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spx.h"
#include "cuda/gateway.h"

#define ROUNDS 5

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof *v, cmp);
    return v[ROUNDS / 2];
}

static double upload_ms(const void *host, size_t bytes)
{
    void *d = NULL;
    double t0 = now_ms();
    if (spx__cuda_upload(&d, host, bytes, "timer") != SPX_OK) return -1.0;
    double t = now_ms() - t0;
    spx__cuda_free(d);
    return t;
}

static double plan_ms(const spx_matrix *A)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = "csr";
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) != SPX_OK) return -1.0;
    double t = spx_plan_prep_ms(P);
    spx_plan_destroy(P);
    return t;
}

int main(void)
{
    size_t bytes = (size_t)512 << 20, staged_min = spx__cuda_stage_min;
    unsigned char *host = malloc(bytes);
    const char *specs[] = {"lap3d27:96", "lap3d7:200"};
    spx_matrix *A[2] = {NULL, NULL};
    if (!host) return 1;
    memset(host, 7, bytes);
    for (int m = 0; m < 2; m++)
        if (spx_generate(specs[m], &A[m]) != SPX_OK) return 1;
    upload_ms(host, bytes); /* CUDA's start */
    double up[2][ROUNDS], pl[2][2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int staged = 0; staged < 2; staged++) {
            spx__cuda_stage_min = staged ? staged_min : (size_t)-1;
            up[staged][r] = upload_ms(host, bytes);
            for (int m = 0; m < 2; m++)
                pl[m][staged][r] = plan_ms(A[m]);
        }
    printf("what                         plain_ms  staged_ms  ratio\n");
    double a = median(up[0]), b = median(up[1]);
    printf("upload 512 MiB               %8.1f   %8.1f  %5.2f  (%.1f / %.1f GB/s)\n", a, b, a / b,
           bytes / a / 1e6, bytes / b / 1e6);
    for (int m = 0; m < 2; m++) {
        a = median(pl[m][0]);
        b = median(pl[m][1]);
        printf("csr plan %-18s  %8.1f   %8.1f  %5.2f\n", specs[m], a, b, a / b);
    }
    for (int m = 0; m < 2; m++)
        spx_matrix_destroy(A[m]);
    free(host);
    return 0;
}
