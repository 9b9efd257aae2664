/* Test helpers (see common.h). */
#include "common.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

long spx_test_passed, spx_test_failed, spx_test_skipped;

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

void spx_test_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    spx_test_skipped++;
}

int spx_test_finish(void)
{
    if (spx_test_skipped)
        printf("%ld passed, %ld failed, %ld skipped\n", spx_test_passed, spx_test_failed,
               spx_test_skipped);
    else
        printf("%ld passed, %ld failed\n", spx_test_passed, spx_test_failed);
    if (spx_test_failed) return 1;
    if (spx_test_passed) return 0;
    if (spx_test_skipped) return 77;
    printf("no check ran and nothing was skipped\n");
    return 1;
}

int spx_test_part(const char *part)
{
    const char *p = getenv("SPX_TEST_PART");
    if (!p || !*p) return part == NULL;
    return strcmp(p, "all") == 0 || (part && strcmp(p, part) == 0);
}

int spx_test_require_cuda(const char *what)
{
    char why[512];
    if (spx_device_available(SPX_DEV_CUDA)) return 1;
    snprintf(why, sizeof why, "no CUDA device (none seen, or built without CUDA): %s", what);
    spx_test_skip(why);
    return 0;
}

int spx_test_format(int i, spx_operation op, const char **name, unsigned *devices,
                    unsigned *precisions)
{
    spx_format_info fi;
    if (spx_format_get(i, &fi) != SPX_OK || !(fi.operations & (1u << op))) return 0;
    *name = fi.name;
    *devices = fi.devices;
    *precisions = fi.precisions;
    return 1;
}

int spx_test_spmv_format(int i, const char **name, unsigned *devices, unsigned *precisions)
{
    return spx_test_format(i, SPX_OP_SPMV, name, devices, precisions);
}

const char *spx_test_matrices_dir(void)
{
    static int looked;
    static const char *found;
    static const char fallback[] = "../../shared/matrices";
    const char *d = getenv("SPX_MATRICES");
    char probe[4096];
    if (looked) return found;
    looked = 1;
    if (!d || !*d) d = getenv("SPX_TEST_MATRICES"); /* configured: tests/CMakeLists.txt */
    if (!d || !*d) d = fallback;
    snprintf(probe, sizeof probe, "%s/README.md", d);
    FILE *f = fopen(probe, "r");
    if (!f) {
        snprintf(probe, sizeof probe,
                 "shared matrices not found at %s (set SPX_MATRICES, or configure with "
                 "-DSPX_TEST_MATRICES=DIR)",
                 d);
        spx_test_skip(probe);
        return NULL;
    }
    fclose(f);
    found = d;
    return found;
}

spx_matrix *spx_test_read_matrix(const char *dir, const char *name)
{
    char path[4096];
    spx_matrix *A = NULL;
    snprintf(path, sizeof path, "%s/%s%s", dir, name, strchr(name, '.') ? "" : ".mtx");
    if (!CHECK_STATUS(spx_matrix_read(path, &A), SPX_OK)) fprintf(stderr, "  %s\n", path);
    return A;
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

/* Uniform in [0, 1). */
static double unit(uint64_t *state)
{
    return 0.5 * (spx_test_rand(state) + 1.0);
}

/* Uniform integer in [0, n), n > 0. */
static int64_t below(uint64_t *state, int64_t n)
{
    int64_t k = (int64_t)(unit(state) * (double)n);
    return k < n ? k : n - 1;
}

/* ------------------------------------------------------------ test matrices */

spx_matrix *spx_test_coo_matrix(int64_t rows, int64_t cols, int64_t nnz, const int64_t *ri,
                                const int64_t *ci, const double *v)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(rows, cols, nnz, ri, ci, v, &A), SPX_OK);
    return A;
}

spx_matrix *spx_test_random_matrix(int64_t rows, int64_t cols, int64_t nnz, uint64_t seed)
{
    if (rows == 0 || cols == 0) nnz = 0;
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)),
            *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    for (int64_t k = 0; k < nnz; k++) {
        ri[k] = below(&seed, rows);
        ci[k] = below(&seed, cols);
        v[k] = spx_test_rand(&seed);
    }
    spx_matrix *A = spx_test_coo_matrix(rows, cols, nnz, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

spx_matrix *spx_test_rows_matrix(int64_t rows, int64_t cols, const int64_t *len, uint64_t seed)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows; i++)
        nnz += len[i] < cols ? len[i] : cols;
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)),
            *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    int64_t n = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t l = len[i] < cols ? len[i] : cols;
        for (int64_t k = 0; k < l; k++, n++) { /* [lo, hi): entry k's own columns */
            int64_t lo = k * cols / l, hi = (k + 1) * cols / l;
            ri[n] = i;
            ci[n] = lo + below(&seed, hi - lo);
            v[n] = spx_test_rand(&seed);
        }
    }
    spx_matrix *A = spx_test_coo_matrix(rows, cols, nnz, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

/* Row lengths from len(i, u, arg), u uniform in [0, 1) per row, then spread rows. */
static spx_matrix *rows_by(int64_t rows, int64_t cols, int64_t (*len)(int64_t, double, double),
                           double arg, uint64_t seed)
{
    int64_t *l = malloc(sizeof *l * (size_t)(rows + 1));
    uint64_t s = seed ^ 0x5bd1e995u;
    for (int64_t i = 0; i < rows; i++)
        l[i] = len(i, unit(&s), arg);
    spx_matrix *A = spx_test_rows_matrix(rows, cols, l, seed);
    free(l);
    return A;
}

static int64_t len_uniform(int64_t i, double u, double maxlen)
{
    (void)i;
    return (int64_t)(u * (maxlen + 1.0));
}

static int64_t len_varied(int64_t i, double u, double maxlen)
{
    (void)i;
    return (int64_t)floor(exp(u * log(maxlen))) - 1;
}

spx_matrix *spx_test_pattern_matrix(int64_t rows, int64_t cols, const int64_t *pat, int np,
                                    uint64_t seed)
{
    int64_t *l = malloc(sizeof *l * (size_t)(rows + 1));
    for (int64_t i = 0; i < rows; i++)
        l[i] = pat[i % np];
    spx_matrix *A = spx_test_rows_matrix(rows, cols, l, seed);
    free(l);
    return A;
}

spx_matrix *spx_test_uniform_rows_matrix(int64_t rows, int64_t cols, int64_t maxlen, uint64_t seed)
{
    return rows_by(rows, cols, len_uniform, (double)maxlen, seed);
}

spx_matrix *spx_test_varied_matrix(int64_t rows, int64_t cols, double maxlen, uint64_t seed)
{
    return rows_by(rows, cols, len_varied, maxlen, seed);
}

spx_matrix *spx_test_symmetric_matrix(int64_t n, int64_t per_row, int64_t band, uint64_t seed)
{
    const size_t most = (size_t)(n * (2 * per_row + 1));
    int64_t *ri = malloc(sizeof *ri * (most + 1)), *ci = malloc(sizeof *ci * (most + 1));
    double *v = malloc(sizeof *v * (most + 1));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t lo = i > band ? i - band : 0;
        for (int64_t k = 0; i % 7 != 0 && i > lo && k < per_row; k++) {
            const int64_t j = lo + (int64_t)((spx_test_rand(&seed) * 0.5 + 0.5) * (double)(i - lo));
            const double a = spx_test_rand(&seed);
            ri[nnz] = i, ci[nnz] = j, v[nnz++] = a; /* a repeated j sums on both sides */
            ri[nnz] = j, ci[nnz] = i, v[nnz++] = a;
        }
        if (i % 3 != 0) ri[nnz] = i, ci[nnz] = i, v[nnz++] = 4.0 + spx_test_rand(&seed);
    }
    spx_matrix *A = spx_test_coo_matrix(n, n, nnz, ri, ci, v);
    free(ri), free(ci), free(v);
    return A;
}

spx_matrix *spx_test_dense_row_matrix(int64_t rows, int64_t cols, int64_t dense, int64_t short_max,
                                      uint64_t seed)
{
    int64_t *l = malloc(sizeof *l * (size_t)(rows + 1));
    for (int64_t i = 0; i < rows; i++)
        l[i] = i == dense ? cols : i % (short_max + 1);
    spx_matrix *A = spx_test_rows_matrix(rows, cols, l, seed);
    free(l);
    return A;
}

spx_matrix *spx_test_wrap32(const spx_matrix *A, int32_t **rp32)
{
    int64_t rows, cols, nnz;
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type vt;
    spx_matrix *W = NULL;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &vt);
    *rp32 = malloc(sizeof **rp32 * (size_t)(rows + 1));
    for (int64_t i = 0; i <= rows; i++)
        (*rp32)[i] = (int32_t)rp[i];
    if (!CHECK_STATUS(spx_matrix_wrap(rows, cols, *rp32, 32, ci, bits, v, vt, &W), SPX_OK)) {
        free(*rp32);
        *rp32 = NULL;
    }
    return W;
}

int64_t spx_test_longest_row(const spx_matrix *A, spx_op op)
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

/* ---------------------------------------------------------------- references */

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

int spx_test_close(const double *y, const double *ref, const double *scale, int64_t n, double tol,
                   const char *fmt, ...)
{
    double err = spx_test_rel_err(y, ref, scale, n);
    int ok = err <= tol; /* false for NaN */
    if (ok) {
        spx_test_passed++;
        return 1;
    }
    spx_test_failed++;
    va_list ap;
    va_start(ap, fmt);
    fputs("  ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, ": error %.3g > %.3g\n", err, tol);
    return 0;
}

/* Dense copy (row-major) and pattern of a small matrix. */
static double *to_dense(const spx_matrix *A, unsigned char **pattern)
{
    int64_t m, n, nnz;
    spx_matrix_dims(A, &m, &n, &nnz);
    double *d = calloc((size_t)(m * n + 1), sizeof *d);
    int64_t *ri = malloc(sizeof *ri * (size_t)(nnz + 1)),
            *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    spx_matrix_to_coo(A, ri, ci, v);
    *pattern = calloc((size_t)(m * n + 1), 1);
    for (int64_t k = 0; k < nnz; k++) {
        d[ri[k] * n + ci[k]] = v[k];
        (*pattern)[ri[k] * n + ci[k]] = 1;
    }
    free(ri), free(ci), free(v);
    return d;
}

int spx_test_spgemm_matches(const spx_matrix *A, const spx_matrix *B, const spx_matrix *C,
                            double tol)
{
    int64_t m, n, n2, p, cm, cp, cnnz;
    unsigned char *pa, *pb;
    const int64_t *rp;
    const void *ci, *cv;
    int bits;
    spx_type vt;
    spx_matrix_dims(A, &m, &n, NULL);
    spx_matrix_dims(B, &n2, &p, NULL);
    spx_matrix_dims(C, &cm, &cp, &cnnz);
    spx_matrix_csr(C, &rp, &ci, &bits, &cv, &vt);
    int ok = cm == m && cp == p && n == n2 && vt == SPX_F64 && spx_matrix_validate(C) == SPX_OK;
    if (!ok) return 0;
    double *a = to_dense(A, &pa), *b = to_dense(B, &pb);
    int64_t want_nnz = 0;
    for (int64_t i = 0; i < m && ok; i++) {
        int64_t k = rp[i];
        for (int64_t j = 0; j < p; j++) {
            double s = 0.0, mag = 0.0;
            int structural = 0;
            for (int64_t l = 0; l < n; l++) {
                structural |= pa[i * n + l] & pb[l * p + j];
                s += a[i * n + l] * b[l * p + j];
                mag += fabs(a[i * n + l] * b[l * p + j]);
            }
            if (!structural) continue;
            want_nnz++;
            int64_t col = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            ok = k < rp[i + 1] && col == j && fabs(((const double *)cv)[k] - s) <= tol * mag;
            if (!ok) break;
            k++;
        }
        ok = ok && k == rp[i + 1];
    }
    ok = ok && want_nnz == cnnz;
    free(a), free(b), free(pa), free(pb);
    return ok;
}

/* -div(grad u) + c du/dx on an m x m grid, central differences: nonsymmetric. */
spx_matrix *spx_test_convection_diffusion(int64_t m, double c)
{
    int64_t n = m * m, k = 0;
    int64_t *ri = malloc((size_t)(5 * n) * sizeof *ri), *ci = malloc((size_t)(5 * n) * sizeof *ci);
    double *v = malloc((size_t)(5 * n) * sizeof *v);
    spx_matrix *A = NULL;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            int64_t r = i * m + j;
            const int64_t nb[4][2] = {{i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
            const double w[4] = {-1.0, -1.0, -1.0 - c / 2, -1.0 + c / 2};
            ri[k] = r, ci[k] = r, v[k++] = 4.0;
            for (int q = 0; q < 4; q++)
                if (nb[q][0] >= 0 && nb[q][0] < m && nb[q][1] >= 0 && nb[q][1] < m)
                    ri[k] = r, ci[k] = nb[q][0] * m + nb[q][1], v[k++] = w[q];
        }
    CHECK_STATUS(spx_matrix_from_coo(n, n, k, ri, ci, v, &A), SPX_OK);
    free(ri);
    free(ci);
    free(v);
    return A;
}
