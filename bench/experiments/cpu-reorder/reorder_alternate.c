/* One process, rounds alternating (cpu-reorder-2026-11-22.md): STREAM triad;
 * FORMAT on A; FORMAT on A' = P A P^T as a plain plan (the kernel alone);
 * FORMAT with reorder=MODE (kernel + gather of x + scatter of y); the gather
 * bound of A and of A' (bench library). P is the ordering a plan with
 * reorder=MODE computes (spx_plan_permutation), A' is built from A's
 * triplets. Medians over the rounds. Public API and the bench library only:
 * target reorder_alternate of -DSPX_BUILD_EXPERIMENTS=ON.
 * Usage: reorder_alternate SPEC FORMAT CALLS ROUNDS (SPEC for spx_generate,
 * ROUNDS <= 9). */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "spx.h"

enum { NP = 5, NG = 3, MAXR = 9 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* *B = P A P^T for the ordering of a csr plan made with params ("reorder=rcm"). */
static spx_status reordered(const spx_matrix *A, const char *params, spx_matrix **B)
{
    int64_t n, nnz, *perm = NULL, *inv = NULL, *ri = NULL, *ci = NULL;
    double *v = NULL;
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "csr";
    o.params = params;
    spx_matrix_dims(A, &n, NULL, &nnz);
    perm = malloc((size_t)n * sizeof *perm);
    inv = malloc((size_t)n * sizeof *inv);
    ri = malloc((size_t)nnz * sizeof *ri);
    ci = malloc((size_t)nnz * sizeof *ci);
    v = malloc((size_t)nnz * sizeof *v);
    spx_status st = perm && inv && ri && ci && v ? SPX_OK : SPX_ERR_OOM;
    if (st == SPX_OK) st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st == SPX_OK) st = spx_plan_permutation(P, perm);
    if (st == SPX_OK) st = spx_matrix_to_coo(A, ri, ci, v);
    if (st == SPX_OK) {
        for (int64_t k = 0; k < n; k++)
            inv[perm[k]] = k;
        for (int64_t k = 0; k < nnz; k++) {
            ri[k] = inv[ri[k]];
            ci[k] = inv[ci[k]];
        }
        st = spx_matrix_from_coo(n, n, nnz, ri, ci, v, B);
    }
    spx_plan_destroy(P);
    free(perm);
    free(inv);
    free(ri);
    free(ci);
    free(v);
    return st;
}

int main(int argc, char **argv)
{
    spx_matrix *A = NULL, *B[3] = {NULL, NULL, NULL};
    if (argc < 5 || spx_generate(argv[1], &A) != SPX_OK) {
        fprintf(stderr, "usage: reorder_alternate SPEC FORMAT CALLS ROUNDS\n");
        return 1;
    }
    const char *fmt = argv[2];
    int calls = atoi(argv[3]), rounds = atoi(argv[4]);
    int64_t n, nnz;
    spx_matrix_dims(A, &n, NULL, &nnz);
    rounds = rounds < 1 ? 1 : rounds > MAXR ? MAXR : rounds;
    if (reordered(A, "reorder=rcm", &B[1]) != SPX_OK ||
        reordered(A, "reorder=degree", &B[2]) != SPX_OK) {
        fprintf(stderr, "reorder: %s\n", spx_last_error());
        return 1;
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
        if (spx_plan_create(M[i], SPX_OP_SPMV, &o, &P[i]) != SPX_OK) {
            printf("%s\n", spx_last_error());
            return 1;
        }
    }
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double t[NP][MAXR], g[NG][MAXR], s[MAXR];
    if (!x || !y) return 1;
    for (int64_t i = 0; i < n; i++)
        x[i] = 1.0, y[i] = 0.0;
    for (int r = 0; r < rounds; r++) {
        size_t ab;
        spx_bench_stream_triad(&s[r], &ab);
        for (int i = 0; i < NP; i++) {
            spx_spmv(P[i], 1, x, 0, y);
            double t0 = spx_bench_now();
            for (int k = 0; k < calls; k++)
                spx_spmv(P[i], 1, x, 0, y);
            t[i][r] = (spx_bench_now() - t0) / calls * 1e3;
        }
        for (int i = 0; i < NG; i++) {
            spx_bench_record rec;
            spx_bench_gather(A, gpar[i], 0, &rec);
            g[i][r] = rec.t.median_ms;
        }
        printf("round %d: stream %.1f", r, s[r]);
        for (int i = 0; i < NP; i++)
            printf(" | %.2f", t[i][r]);
        for (int i = 0; i < NG; i++)
            printf(" | g %.2f", g[i][r]);
        printf("\n");
    }
    double model = spx_bench_model_bytes(n, n, nnz, SPX_F64), st = median(s, rounds);
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
    for (int i = 0; i < NP; i++)
        spx_plan_destroy(P[i]);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B[1]);
    spx_matrix_destroy(B[2]);
    free(x);
    free(y);
    return 0;
}
