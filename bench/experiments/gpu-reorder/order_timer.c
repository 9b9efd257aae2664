/* Where reorder=degree's plan time goes (gpu-reorder-locality-2026-11-26.md):
 * for each matrix, the degree ordering (spx__order_compute), P A P^T
 * (spx__order_permute), and whole plans with and without reorder=degree
 * (format and device from the command line), on every core OpenMP gives.
 * Usage: order_timer FORMAT cpu|cuda SPEC... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/matrix.h"
#include "core/order.h"
#include "spx.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

/* Plan time of A with params, ms (negative when the plan fails). */
static double plan_ms(const spx_matrix *A, const char *format, spx_device dev, const char *params)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = format;
    o.device = dev;
    o.params = params;
    const double t0 = now_ms();
    const spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    const double t = now_ms() - t0;
    if (st != SPX_OK) fprintf(stderr, "  plan %s: %s\n", params ? params : "", spx_last_error());
    spx_plan_destroy(P);
    return st == SPX_OK ? t : -1.0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: order_timer FORMAT cpu|cuda SPEC...\n");
        return 2;
    }
    const spx_device dev = strcmp(argv[2], "cuda") == 0 ? SPX_DEV_CUDA : SPX_DEV_CPU;
    for (int a = 3; a < argc; a++) {
        spx_matrix *A = NULL, *B = NULL;
        if (spx_generate(argv[a], &A) != SPX_OK) {
            fprintf(stderr, "%s: %s\n", argv[a], spx_last_error());
            continue;
        }
        int64_t *perm = malloc((size_t)A->rows * sizeof *perm);
        plan_ms(A, argv[1], dev, NULL); /* the device and its modules warmed up */
        const double t0 = now_ms();
        const spx_status s1 = spx__order_compute(A, SPX__ORDER_DEGREE, 0, perm);
        const double t1 = now_ms();
        const spx_status s2 = s1 == SPX_OK ? spx__order_permute(A, perm, 0, &B) : s1;
        const double t2 = now_ms();
        const double plain = plan_ms(A, argv[1], dev, NULL);
        const double ordered = plan_ms(A, argv[1], dev, "reorder=degree");
        printf("%-40.40s nnz %10lld order %8.1f ms permute %8.1f ms (%s) plan %s %8.1f ms, "
               "with reorder=degree %8.1f ms\n",
               argv[a], (long long)A->nnz, t1 - t0, t2 - t1, s2 == SPX_OK ? "ok" : "failed",
               argv[1], plain, ordered);
        spx_matrix_destroy(B);
        spx_matrix_destroy(A);
        free(perm);
    }
    return 0;
}
