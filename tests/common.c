/* Test helpers (see common.h). */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

long spx_test_passed, spx_test_failed;

int spx_test_check(int ok, const char *what, const char *file, int line)
{
    if (ok) {
        spx_test_passed++;
    } else {
        spx_test_failed++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
    return ok;
}

int spx_test_check_status(spx_status got, spx_status want, const char *what,
                          const char *file, int line)
{
    int ok = got == want;
    if (ok) {
        spx_test_passed++;
    } else {
        spx_test_failed++;
        fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", file, line, what,
                spx_status_name(got), spx_status_name(want), spx_last_error());
    }
    return ok;
}

int spx_test_finish(void)
{
    printf("%ld passed, %ld failed\n", spx_test_passed, spx_test_failed);
    return spx_test_failed == 0 ? 0 : 1;
}

const char *spx_test_matrices_dir(void)
{
    const char *d = getenv("SPX_MATRICES");
    static const char fallback[] = "../../shared/matrices";
    char probe[4096];
    if (!d || !*d) d = fallback;
    snprintf(probe, sizeof probe, "%s/README.md", d);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("SKIP: shared matrices not found at %s (set SPX_MATRICES)\n", d);
        return NULL;
    }
    fclose(f);
    return d;
}

const char *spx_test_data_dir(void)
{
    const char *d = getenv("SPX_TEST_DATA");
    return d && *d ? d : ".";
}

double spx_test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

void spx_test_reference(const spx_matrix *A, spx_op op, double alpha, const double *x,
                        double beta, const double *y0, double *y, double *scale)
{
    int64_t rows, cols, nnz;
    const int64_t *rp;
    const void *ci, *vv;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &vv, &vt);
    int64_t out_len = op == SPX_OP_N ? rows : cols;
    long double *acc = calloc((size_t)out_len + 1, sizeof *acc);
    long double *mag = calloc((size_t)out_len + 1, sizeof *mag);
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            double a = vt == SPX_F64 ? ((const double *)vv)[k] : ((const float *)vv)[k];
            int64_t r = op == SPX_OP_N ? i : j, c = op == SPX_OP_N ? j : i;
            acc[r] += (long double)a * x[c];
            mag[r] += fabsl((long double)a * x[c]);
        }
    }
    for (int64_t r = 0; r < out_len; r++) {
        long double b = beta == 0.0 ? 0.0L : (long double)beta * y0[r];
        y[r] = (double)(alpha * acc[r] + b);
        scale[r] = (double)(fabsl(alpha * mag[r]) + fabsl(b));
    }
    free(acc);
    free(mag);
}

double spx_test_rel_err(const double *y, const double *ref, const double *scale, int64_t n)
{
    double err = 0.0, s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(y[i]) && !isnan(ref[i])) return NAN;
        double e = fabs(y[i] - ref[i]);
        if (e > err) err = e;
        if (scale[i] > s) s = scale[i];
    }
    return s > 0.0 ? err / s : err;
}

int spx_test_spmv_format(int i, const char **name, unsigned *devices, unsigned *precisions)
{
    spx_format_info fi;
    if (spx_format_get(i, &fi) != SPX_OK || !(fi.operations & (1u << SPX_OP_SPMV))) return 0;
    *name = fi.name;
    *devices = fi.devices;
    *precisions = fi.precisions;
    return 1;
}
