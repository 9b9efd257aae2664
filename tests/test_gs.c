/* GMRES's classical Gram-Schmidt pass (src/solve/vec_gs.h) against a
 * long-double reference, on a CPU plan's space and (part "cuda") a CUDA
 * plan's: n from 1 to 100003 entries, k from 0 to 70 basis vectors (the
 * device's launches hold 32), fp64 and fp32:
 *   pass 1: c[dots + i] = V_i . w and c[nrm] = w . w;
 *   pass 2: w -= sum c[sub + i] V_i with the dots and the norm of the new w;
 *   put: coefficients from the host, then w = 0 - V y;
 * each entry of w and each sum within a few roundings of the reference,
 * the same bits when a pass is run again, the offsets checked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cuda/gateway.h"
#include "solve/vec_gs.h"

/* n x n diagonal: any square SpMV plan gives a space. */
static spx_plan *square_plan(int64_t n, spx_device dev, spx_type t, spx_matrix **A)
{
    int64_t *ri = malloc((size_t)n * sizeof *ri);
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    for (int64_t i = 0; i < n; i++)
        ri[i] = i;
    *A = spx_test_coo_matrix(n, n, n, ri, ri, NULL);
    o.device = dev;
    o.precision = t;
    o.format = "csr";
    if (*A) CHECK_STATUS(spx_plan_create(*A, SPX_OP_SPMV, &o, &P), SPX_OK);
    free(ri);
    return P;
}

/* v's n entries as doubles. */
static void to_host(const spx__vspace *s, const void *v, double *out)
{
    const size_t es = spx__v_entry_bytes(s), bytes = (size_t)s->n * es;
    void *h = malloc(bytes ? bytes : 1);
    if (s->cuda)
        CHECK_STATUS(spx__cuda_copy(h, v, bytes, 0), SPX_OK);
    else
        memcpy(h, v, bytes);
    for (int64_t i = 0; i < s->n; i++)
        out[i] = s->t == SPX_F64 ? ((double *)h)[i] : (double)((float *)h)[i];
    free(h);
}

/* The sums of pass 1 or 2 against long double: |got - want| within a few
 * roundings of the sum of |terms| (the entries are in [-1, 1)). */
static int sums_ok(const double *got, const double *const *Vh, const double *wh, int64_t k,
                   int64_t n, double eps)
{
    int ok = 1;
    for (int64_t i = 0; i <= k; i++) {
        long double want = 0.0L, mag = 0.0L;
        for (int64_t e = 0; e < n; e++) {
            const double a = i < k ? Vh[i][e] : wh[e];
            want += (long double)a * wh[e];
            mag += fabsl((long double)a * wh[e]);
        }
        ok &= fabs(got[i] - (double)want) <= eps * (double)mag + 1e-300;
    }
    return ok;
}

static void check_space(const spx__vspace *s, int64_t k)
{
    const int64_t n = s->n;
    const double eps = s->t == SPX_F64 ? 1e-13 : 1e-5; /* entries rounded to float: 2^-24 each */
    double *w0 = malloc((size_t)n * sizeof *w0), *wh = malloc((size_t)n * sizeof *wh);
    double **Vh = calloc((size_t)k + 1, sizeof *Vh), *sums = malloc((size_t)(2 * k + 2) * 8);
    double *again = malloc((size_t)(2 * k + 2) * 8), *w2 = malloc((size_t)n * sizeof *w2);
    void **V = calloc((size_t)k + 1, sizeof *V), *w = NULL;
    spx__gs_buf b = {0};
    uint64_t seed = (uint64_t)(n * 131 + k);
    /* c: pass 1's dots at 0, its norm at k, pass 2's dots at k + 1, norm at 2k + 1 */
    int ok = CHECK_STATUS(spx__gs_buf_alloc(s, (size_t)(2 * k + 2), &b), SPX_OK);
    for (int64_t i = 0; i < n; i++)
        w0[i] = spx_test_rand(&seed);
    ok = ok && CHECK_STATUS(spx__v_from_host(s, w0, &w, "w"), SPX_OK);
    to_host(s, w, w0); /* as the space rounded it */
    for (int64_t q = 0; q < k && ok; q++) {
        Vh[q] = malloc((size_t)n * sizeof **Vh);
        for (int64_t i = 0; i < n; i++)
            Vh[q][i] = spx_test_rand(&seed);
        ok = CHECK_STATUS(spx__v_from_host(s, Vh[q], &V[q], "V"), SPX_OK);
        to_host(s, V[q], Vh[q]);
    }
    const void *const *Vc = (const void *const *)V;
    ok = ok && CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, -1, 0, k), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs_take(s, &b, sums), SPX_OK);
    if (ok) CHECK(sums_ok(sums, (const double *const *)Vh, w0, k, n, eps));
    /* pass 2 subtracts pass 1's dots from w */
    ok = ok && CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, 0, k + 1, 2 * k + 1), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs_take(s, &b, sums), SPX_OK);
    if (ok) {
        int entries = 1;
        to_host(s, w, wh);
        for (int64_t e = 0; e < n; e++) {
            long double want = w0[e], mag = fabs(w0[e]);
            for (int64_t q = 0; q < k; q++) {
                want -= (long double)sums[q] * Vh[q][e];
                mag += fabsl((long double)sums[q] * Vh[q][e]);
            }
            entries &= fabs(wh[e] - (double)want) <= eps * (double)mag;
        }
        CHECK(entries);
        CHECK(sums_ok(sums + k + 1, (const double *const *)Vh, wh, k, n, eps));
    }
    /* again from the same w: the same bits */
    memcpy(again, sums, (size_t)(2 * k + 2) * 8);
    spx__v_free(s, w);
    w = NULL;
    ok = ok && CHECK_STATUS(spx__v_from_host(s, w0, &w, "w"), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, -1, 0, k), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, 0, k + 1, 2 * k + 1), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs_take(s, &b, sums), SPX_OK);
    if (ok) {
        to_host(s, w, w2);
        CHECK(memcmp(sums, again, (size_t)(2 * k + 2) * 8) == 0);
        CHECK(memcmp(w2, wh, (size_t)n * sizeof *wh) == 0);
    }
    /* put: c[0..k) = y from the host, then w = 0 - V y */
    for (int64_t q = 0; q < k; q++)
        again[q] = spx_test_rand(&seed);
    ok = ok && CHECK_STATUS(spx__v_gs_put(s, &b, 0, again, k), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_zero(s, w), SPX_OK);
    ok = ok && CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, 0, -1, -1), SPX_OK);
    if (ok) {
        int entries = 1;
        to_host(s, w, wh);
        for (int64_t e = 0; e < n; e++) {
            long double want = 0.0L, mag = 0.0L;
            for (int64_t q = 0; q < k; q++) {
                want -= (long double)again[q] * Vh[q][e];
                mag += fabsl((long double)again[q] * Vh[q][e]);
            }
            entries &= fabs(wh[e] - (double)want) <= eps * (double)mag;
        }
        CHECK(entries);
    }
    CHECK_STATUS(spx__v_gs_put(s, &b, 2 * k, again, 3), SPX_ERR_INVALID_ARG);
    /* offsets past the buffer */
    CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, -1, k + 3, -1), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx__v_gs(s, &b, k, Vc, w, -1, -1, 2 * k + 2), SPX_ERR_INVALID_ARG);
    if (!ok || spx_test_failed)
        printf("  %s %s n=%lld k=%lld\n", s->cuda ? "cuda" : "cpu", s->t == SPX_F64 ? "f64" : "f32",
               (long long)n, (long long)k);
    for (int64_t q = 0; q < k; q++) {
        if (V[q]) spx__v_free(s, V[q]);
        free(Vh[q]);
    }
    if (w) spx__v_free(s, w);
    if (b.count) spx__gs_buf_free(s, &b);
    free(V);
    free(Vh);
    free(w0);
    free(wh);
    free(w2);
    free(sums);
    free(again);
}

static void check_device(spx_device dev)
{
    static const int64_t sizes[] = {1, 5000, 100003};
    static const int64_t ks[] = {0, 1, 3, 32, 33, 70};
    for (int t = 0; t < 2; t++)
        for (size_t a = 0; a < sizeof sizes / sizeof *sizes; a++) {
            spx_matrix *A = NULL;
            spx__vspace s;
            spx_plan *P = square_plan(sizes[a], dev, t ? SPX_F32 : SPX_F64, &A);
            if (P && CHECK_STATUS(spx__vspace_init(P, &s), SPX_OK)) {
                for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
                    check_space(&s, ks[j]);
                spx__vspace_free(&s);
            }
            spx_plan_destroy(P);
            spx_matrix_destroy(A);
        }
}

int main(void)
{
    if (spx_test_part(NULL)) check_device(SPX_DEV_CPU);
    if (spx_test_part("cuda") && spx_test_require_cuda("the device's Gram-Schmidt pass"))
        check_device(SPX_DEV_CUDA);
    return spx_test_finish();
}
