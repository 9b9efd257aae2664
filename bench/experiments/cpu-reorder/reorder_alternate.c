/* One process, rounds alternating: STREAM triad; FORMAT on A; FORMAT on A' = P A P^T as a plain
 * plan (the kernel alone); FORMAT with reorder=MODE (kernel + gather of x + scatter of y); the
 * gather bound of A and of A'. Medians over the rounds. Not part of the build (bench/results/);
 * built by hand against a build's libraries:
 *   gcc -O2 -fopenmp -I include -I src -I bench bench/results/cpu-reorder-alternate.c \
 *       build-reorder/bench/libspx_bench.a build-reorder/libspx.a -lrsb -lgraphblas -lm -lz \
 *       -lstdc++ -o alternate
 * Usage: alternate SPEC FORMAT CALLS ROUNDS (SPEC as for spx_generate, ROUNDS <= 9). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench.h"
#include "core/matrix.h"
#include "core/order.h"
enum { NP = 5, NG = 3, MAXR = 9 };
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
    double x = *(double *)a, y = *(double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
int main(int argc, char **argv)
{
    spx_matrix *A, *B[3] = {0};
    if (argc < 5 || spx_generate(argv[1], &A)) return 1;
    const char *fmt = argv[2];
    int calls = atoi(argv[3]), rounds = atoi(argv[4]);
    int64_t n = A->rows, *perm = malloc(8 * n);
    for (int m = 1; m <= 2; m++) {
        spx__order_compute(A, m, 0, perm);
        spx__order_permute(A, perm, 0, &B[m]);
    }
    const char *lab[NP] = {"A", "A'(rcm), plain plan", "reorder=rcm", "A'(degree), plain plan",
                           "reorder=degree"};
    const spx_matrix *M[NP] = {A, B[1], A, B[2], A};
    const char *par[NP] = {NULL, NULL, "reorder=rcm", NULL, "reorder=degree"};
    const char *gpar[NG] = {NULL, "reorder=rcm", "reorder=degree"};
    spx_plan *P[NP];
    for (int i = 0; i < NP; i++) {
        spx_plan_opts o = spx_plan_opts_default();
        o.format = fmt;
        o.params = par[i];
        if (spx_plan_create(M[i], &o, &P[i])) {
            printf("%s\n", spx_last_error());
            return 1;
        }
    }
    double *x = malloc(8 * n), *y = malloc(8 * n), t[NP][MAXR], g[NG][MAXR], s[MAXR];
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0, y[i] = 0.0;
    for (int r = 0; r < rounds; r++) {
        size_t ab;
        spx_bench_stream_triad(&s[r], &ab);
        for (int i = 0; i < NP; i++) {
            spx_spmv(P[i], 1, x, 0, y);
            double t0 = now();
            for (int k = 0; k < calls; k++)
                spx_spmv(P[i], 1, x, 0, y);
            t[i][r] = (now() - t0) / calls * 1e3;
        }
        for (int i = 0; i < NG; i++) {
            spx_bench_record rec;
            spx_bench_gather(A, gpar[i], 0, &rec);
            g[i][r] = rec.median_ms;
        }
        printf("round %d: stream %.1f", r, s[r]);
        for (int i = 0; i < NP; i++)
            printf(" | %.2f", t[i][r]);
        for (int i = 0; i < NG; i++)
            printf(" | g %.2f", g[i][r]);
        printf("\n");
    }
    double model = spx_bench_model_bytes(n, n, A->nnz, SPX_F64), st = median(s, rounds);
    printf("%s %s, %d rounds, median STREAM %.1f GB/s, model %.0f MB\n", argv[1], fmt, rounds, st,
           model * 1e-6);
    for (int i = 0; i < NP; i++) {
        double m = median(t[i], rounds);
        printf("  %-24s %8.2f ms  %5.1f%% STREAM\n", lab[i], m,
               100 * model / (m * 1e-3) * 1e-9 / st);
    }
    for (int i = 0; i < NG; i++) {
        double m = median(g[i], rounds);
        printf("  gather %-17s %8.2f ms  %5.1f%% STREAM\n", gpar[i] ? gpar[i] : "A", m,
               100 * model / (m * 1e-3) * 1e-9 / st);
    }
    return 0;
}
