/* Race probe for programmatic dependent launch (src/cuda/pdl.cuh): chains of
 * `STEPS` back-to-back calls on one stream, each call's x and y being the
 * y of the calls before (v = a A u + 0.5 v, then u = a A v + 0.5 u, ...), run
 * REPEAT times with pdl=on per format and parameter set; each final u is
 * compared bit for bit with the pdl=off chain. Prints, per set, the runs that
 * differed and the most entries that differed. Not part of the build;
 * compiled by hand on the GPU machine against libspx.a (see
 * gpu-pdl-2026-11-22.md). Usage: gpu-pdl-stress [n] [repeat]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx.h"
#include "cuda/gateway.h"

#define STEPS 40

/* Rows of 0..39 entries, every 97th of 300..999 (long rows for csr's chunks
 * and dasp's long tasks), values in [-1, 1) scaled by 1 / the largest row sum. */
static spx_matrix *chain_matrix(int64_t n, double *a)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += i % 97 == 0 ? 300 + i % 700 : i % 40;
    int64_t *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v), most = 0.0;
    uint64_t s = 88172645463325252ull;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t len = i % 97 == 0 ? 300 + i % 700 : i % 40;
        double sum = 0.0;
        for (int64_t j = 0; j < len; j++, k++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            ri[k] = i;
            ci[k] = (int64_t)(j * (n / (len ? len : 1)) + (int64_t)(s % 7)) % n;
            v[k] = (double)(s >> 11) * 0x1.0p-52 - 1.0;
            sum += fabs(v[k]);
        }
        if (sum > most) most = sum;
    }
    spx_matrix *A = NULL;
    if (spx_matrix_from_coo(n, n, nnz, ri, ci, v, &A) != SPX_OK) A = NULL;
    free(ri);
    free(ci);
    free(v);
    *a = 1.0 / most;
    return A;
}

static int chain(const spx_matrix *A, const char *format, const char *params, double a,
                 const double *u0, int64_t n, double *out)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    void *u = NULL, *v = NULL;
    size_t bytes = (size_t)n * sizeof(double);
    int ok = 0;
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.params = params;
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) == SPX_OK && spx__cuda_upload(&u, u0, bytes, "u") == SPX_OK &&
        spx__cuda_upload(&v, u0, bytes, "v") == SPX_OK) {
        ok = 1;
        for (int k = 0; k < STEPS && ok; k++)
            ok = (k % 2 ? spx_spmv(P, a, v, 0.5, u) : spx_spmv(P, a, u, 0.5, v)) == SPX_OK;
        ok = ok && spx__cuda_sync(NULL) == SPX_OK &&
             spx__cuda_copy(out, STEPS % 2 ? v : u, bytes, 0) == SPX_OK;
    }
    if (!ok) fprintf(stderr, "%s %s: %s\n", format, params, spx_last_error());
    spx__cuda_free(u);
    spx__cuda_free(v);
    spx_plan_destroy(P);
    return ok;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 20000;
    int repeat = argc > 2 ? atoi(argv[2]) : 20;
    static const char *formats[] = {"csr", "csr", "csr", "dasp", "dasp"};
    static const char *sets[] = {"", "blocknnz=2048", "kernel=vector", "pass2=0", "pass2=1"};
    double a;
    spx_matrix *A = chain_matrix(n, &a);
    double *u0 = malloc((size_t)n * sizeof *u0), *off = malloc((size_t)n * sizeof *off),
           *on = malloc((size_t)n * sizeof *on);
    if (!A || !u0 || !off || !on) return 1;
    for (int64_t i = 0; i < n; i++)
        u0[i] = sin((double)i);
    int bad = 0;
    for (size_t f = 0; f < sizeof sets / sizeof sets[0]; f++) {
        char p_on[96], p_off[96];
        snprintf(p_on, sizeof p_on, "%s%spdl=on", sets[f], *sets[f] ? "," : "");
        snprintf(p_off, sizeof p_off, "%s%spdl=off", sets[f], *sets[f] ? "," : "");
        if (!chain(A, formats[f], p_off, a, u0, n, off)) return 1;
        int runs = 0;
        int64_t most = 0;
        for (int r = 0; r < repeat; r++) {
            if (!chain(A, formats[f], p_on, a, u0, n, on)) return 1;
            int64_t d = 0;
            for (int64_t i = 0; i < n; i++)
                d += memcmp(&on[i], &off[i], sizeof on[i]) != 0;
            runs += d > 0;
            if (d > most) most = d;
        }
        printf("%-5s %-14s n=%lld: %d of %d pdl=on chains differ from pdl=off (most %lld "
               "entries)\n",
               formats[f], *sets[f] ? sets[f] : "(defaults)", (long long)n, runs, repeat,
               (long long)most);
        bad += runs;
    }
    spx_matrix_destroy(A);
    free(u0);
    free(off);
    free(on);
    return bad ? 2 : 0;
}
