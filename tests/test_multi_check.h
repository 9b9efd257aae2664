/* Shared by the multi-device tests (test_multi.c with CPU parts,
 * test_gpu_multi.c with GPU parts): one plan's calls against the long-double
 * reference within (32 + rmax) eps (|alpha| |op(A)| |x| + |beta| |y|) (fp16
 * values: plus 2^-10), beta 0 over NaN and beta over y, and the same bits
 * on a second call. Resident vectors also: parts of one device share one
 * buffer (parts of different devices do not), and row kinds in fp64 give
 * the host path's bits (a shared line is the same sum in the same order).
 * pcsc's spans (check_pcsc_spans): each part's output is the rows its
 * columns touch (part 0's all of y), rows outside every span come out as
 * exactly beta*y (0 over NaN with beta 0), host and resident, the same bits
 * call after call. */
#ifndef SPX_TEST_MULTI_CHECK_H
#define SPX_TEST_MULTI_CHECK_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "multi/multi.h"

static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static int64_t longest_line(const spx_matrix *A, spx_op op)
{
    int64_t m, n, nnz, most = 0;
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type t;
    spx_matrix_dims(A, &m, &n, &nnz);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &t);
    int64_t *count = calloc((size_t)(op == SPX_OP_N ? m : n) + 1, sizeof *count);
    for (int64_t i = 0; i < m; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int64_t j = bits == 32 ? ((const int32_t *)ci)[k] : ((const int64_t *)ci)[k];
            int64_t c = ++count[op == SPX_OP_N ? i : j];
            most = c > most ? c : most;
        }
    free(count);
    return most;
}

static int same_side(const spx_multi_plan *P)
{
    spx_multi_part_info a, b;
    for (int i = 1; i < spx_multi_plan_parts(P); i++) {
        spx_multi_plan_part(P, 0, &a);
        spx_multi_plan_part(P, i, &b);
        if ((a.device >= 0) != (b.device >= 0)) return 0;
    }
    return 1;
}

static void to_double(const void *v, spx_type t, int64_t n, double *d)
{
    for (int64_t i = 0; i < n; i++) d[i] = t == SPX_F64 ? ((const double *)v)[i] : ((const float *)v)[i];
}

/* Parts i and j use one buffer of v exactly when they are on one device. */
static void check_sharing(spx_multi_plan *P, const spx_multi_vector *v)
{
    for (int i = 0; i < spx_multi_plan_parts(P); i++)
        for (int j = 0; j < i; j++) {
            spx_multi_part_info a, b;
            spx_multi_plan_part(P, i, &a);
            spx_multi_plan_part(P, j, &b);
            int shared = spx__multi_vector_at(v, i, 0) == spx__multi_vector_at(v, j, 0);
            if (!CHECK(shared == (a.device == b.device)))
                fprintf(stderr, "  parts %d (device %d) and %d (device %d): %s buffer\n", i,
                        a.device, j, b.device, shared ? "one" : "not one");
        }
}

/* The phases of the last resident call. */
static void check_times(spx_multi_plan *P)
{
    spx_multi_timing t;
    CHECK_STATUS(spx_multi_times(P, &t), SPX_OK);
    CHECK(t.distribute_ms >= 0 && t.spmv_ms >= 0 && t.merge_ms >= 0);
    CHECK(t.call_ms >= t.spmv_ms);
}

/* Resident vectors (square op(A), parts all on GPUs or all on the CPU):
 * y = 1.25 A x + beta y against the reference, a second call's bits, (row
 * kinds in fp64) the host path's bits yh[b], then z = A y with y's buffers
 * as x (halos refilled from owners' lines). */
static void check_resident(const spx_matrix *A, spx_plan_opts o, spx_multi_plan *P,
                           spx_partition kind, const void *xv, const double *x, const double *y0,
                           void *const yh[2], double tol)
{
    int64_t n;
    spx_matrix_dims(A, &n, NULL, NULL);
    spx_multi_vector *vx = NULL, *vy = NULL, *vz = NULL;
    if (!same_side(P)) {
        CHECK_STATUS(spx_multi_vector_create(P, &vx), SPX_ERR_UNSUPPORTED);
        return;
    }
    spx_type t = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    void *y = malloc(es * (size_t)(n + 1)), *y2 = malloc(es * (size_t)(n + 1));
    double *yd = malloc(sizeof *yd * (size_t)(n + 1)), *ref = malloc(sizeof *ref * (size_t)(n + 1));
    double *scale = malloc(sizeof *scale * (size_t)(n + 1));
    if (!CHECK_STATUS(spx_multi_vector_create(P, &vx), SPX_OK) ||
        !CHECK_STATUS(spx_multi_vector_create(P, &vy), SPX_OK) ||
        !CHECK_STATUS(spx_multi_vector_create(P, &vz), SPX_OK))
        goto done;
    check_sharing(P, vx);
    CHECK_STATUS(spx_multi_vector_set(vx, xv), SPX_OK);
    CHECK_STATUS(spx_multi_spmv_resident(P, 1.0, vx, 0.0, vx), SPX_ERR_INVALID_ARG);
    const double betas[] = {0.0, -0.75};
    for (int b = 0; b < 2; b++) {
        for (int k = 0; k < 2; k++) {
            for (int64_t i = 0; i < n; i++) { /* the start of y, in y2 */
                double v = b == 0 ? NAN : y0[i];
                if (t == SPX_F64) ((double *)y2)[i] = v; else ((float *)y2)[i] = (float)v;
            }
            CHECK_STATUS(spx_multi_vector_set(vy, y2), SPX_OK);
            CHECK_STATUS(spx_multi_spmv_resident(P, 1.25, vx, betas[b], vy), SPX_OK);
            CHECK_STATUS(spx_multi_vector_get(vy, k ? y2 : y), SPX_OK);
        }
        CHECK(memcmp(y, y2, es * (size_t)n) == 0);
        if (t == SPX_F64 && kind != SPX_PART_PCSC && !CHECK(memcmp(y, yh[b], es * (size_t)n) == 0))
            fprintf(stderr, "  resident, %d parts, beta %g: not the host path's bits\n",
                    spx_multi_plan_parts(P), betas[b]);
        check_times(P);
        to_double(y, t, n, yd);
        spx_test_reference(A, o.op, 1.25, x, betas[b], y0, ref, scale);
        double err = spx_test_rel_err(yd, ref, scale, n);
        if (!CHECK(err <= tol))
            fprintf(stderr, "  resident, %d parts, op %d, beta %g: error %g > %g\n",
                    spx_multi_plan_parts(P), (int)o.op, betas[b], err, tol);
    }
    /* y holds 1.25 A x - 0.75 y0 (as the vectors' type): z = A y. */
    CHECK_STATUS(spx_multi_spmv_resident(P, 1.0, vy, 0.0, vz), SPX_OK);
    CHECK_STATUS(spx_multi_vector_get(vz, y2), SPX_OK);
    to_double(y, t, n, yd);
    spx_test_reference(A, o.op, 1.0, yd, 0.0, y0, ref, scale);
    to_double(y2, t, n, yd);
    double err = spx_test_rel_err(yd, ref, scale, n);
    if (!CHECK(err <= tol))
        fprintf(stderr, "  resident A y, %d parts, op %d: error %g > %g\n", spx_multi_plan_parts(P),
                (int)o.op, err, tol);
done:
    spx_multi_vector_destroy(vx);
    spx_multi_vector_destroy(vy);
    spx_multi_vector_destroy(vz);
    free(y), free(y2), free(yd), free(ref), free(scale);
}

/* One plan: two calls against the reference (beta 0 over NaN, then beta
 * over y0), a third repeating the second's bits. */
static void check_plan(const spx_matrix *A, spx_plan_opts o, spx_multi_opts m)
{
    int64_t rows, cols;
    spx_matrix_dims(A, &rows, &cols, NULL);
    int64_t out = o.op == SPX_OP_N ? rows : cols, in = o.op == SPX_OP_N ? cols : rows;
    size_t es = o.precision == SPX_F64 ? sizeof(double) : sizeof(float);
    double eps = o.precision == SPX_F64 ? 0x1p-53 : 0x1p-24;
    double tol = (32.0 + (double)longest_line(A, o.op)) * eps + (o.precision == SPX_F16 ? 0x1p-10 : 0);
    double *x = malloc(sizeof *x * (size_t)(in + 1)), *y0 = malloc(sizeof *y0 * (size_t)(out + 1));
    double *ref = malloc(sizeof *ref * (size_t)(out + 1)), *scale = malloc(sizeof *scale * (size_t)(out + 1));
    double *yd = malloc(sizeof *yd * (size_t)(out + 1));
    void *xv = malloc(es * (size_t)(in + 1)), *y = malloc(es * (size_t)(out + 1)), *y2 = malloc(es * (size_t)(out + 1));
    void *yh[2] = {malloc(es * (size_t)(out + 1)), malloc(es * (size_t)(out + 1))}; /* per beta */
    uint64_t seed = 7;
    for (int64_t j = 0; j < in; j++) x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < out; i++) y0[i] = spx_test_rand(&seed);
    if (o.precision != SPX_F64) { /* the reference sees the rounded inputs */
        for (int64_t j = 0; j < in; j++) ((float *)xv)[j] = (float)x[j], x[j] = ((float *)xv)[j];
        for (int64_t i = 0; i < out; i++) y0[i] = (float)y0[i];
    } else {
        memcpy(xv, x, sizeof *x * (size_t)in);
    }
    spx_multi_plan *P = NULL;
    if (!CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK)) goto done;
    const double betas[] = {0.0, -0.75};
    for (int b = 0; b < 2; b++) {
        for (int64_t i = 0; i < out; i++) {
            double v = b == 0 ? NAN : y0[i];
            if (o.precision == SPX_F64) ((double *)y)[i] = v; else ((float *)y)[i] = (float)v;
        }
        memcpy(y2, y, es * (size_t)out);
        CHECK_STATUS(spx_multi_spmv(P, 1.25, xv, betas[b], y), SPX_OK);
        CHECK_STATUS(spx_multi_spmv(P, 1.25, xv, betas[b], y2), SPX_OK);
        CHECK(memcmp(y, y2, es * (size_t)out) == 0);
        memcpy(yh[b], y, es * (size_t)out);
        for (int64_t i = 0; i < out; i++)
            yd[i] = o.precision == SPX_F64 ? ((double *)y)[i] : ((float *)y)[i];
        spx_test_reference(A, o.op, 1.25, x, betas[b], y0, ref, scale);
        double err = spx_test_rel_err(yd, ref, scale, out);
        if (!CHECK(err <= tol))
            fprintf(stderr, "  %s, %d parts, op %d, beta %g: error %g > %g\n",
                    spx_partition_name(m.partition), m.parts, (int)o.op, betas[b], err, tol);
    }
    if (in == out) check_resident(A, o, P, m.partition, xv, x, y0, yh, tol);
done:
    spx_multi_plan_destroy(P);
    free(x), free(y0), free(ref), free(scale), free(yd), free(xv), free(y), free(y2);
    free(yh[0]), free(yh[1]);
}

/* v[i] = beta 0: NaN, else y0[i], in type t. */
static void fill_start(void *v, spx_type t, double beta, const double *y0, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double s = beta == 0.0 ? NAN : y0[i];
        if (t == SPX_F64)
            ((double *)v)[i] = s;
        else
            ((float *)v)[i] = (float)s;
    }
}

/* Rows outside every span hold exactly beta*y0 (as a product rounded once to
 * t; 0 for beta 0); every row is a number. */
static void check_outside(const spx_multi_plan *P, const void *y, spx_type t, double beta,
                          const double *y0, const char *what)
{
    int64_t bad = 0, nan = 0;
    for (int64_t r = 0; r < P->rows; r++) {
        int inside = 0;
        for (int i = 0; i < P->parts && !inside; i++)
            inside = P->part[i].span_lo <= r && r < P->part[i].span_hi;
        double got = t == SPX_F64 ? ((const double *)y)[r] : ((const float *)y)[r];
        double want = beta == 0.0    ? 0.0
                      : t == SPX_F64 ? beta * y0[r]
                                     : (double)(float)(beta * (double)(float)y0[r]);
        nan += got != got;
        bad += !inside && memcmp(&got, &want, sizeof got) != 0;
    }
    if (!CHECK(bad == 0 && nan == 0))
        fprintf(stderr,
                "  pcsc %s, %d parts, beta %g: %lld rows outside the spans not beta*y, "
                "%lld NaN\n",
                what, P->parts, beta, (long long)bad, (long long)nan);
}

/* pcsc of `parts` parts: outputs are the spans, three calls give one set of
 * bits, rows outside every span get beta*y (host and, square, resident
 * vectors). Returns how many parts have a span narrower than y. */
static int check_pcsc_spans(const spx_matrix *A, spx_plan_opts o, int parts, const int *devices)
{
    spx_multi_opts m = spx_multi_opts_default();
    m.partition = SPX_PART_PCSC;
    m.parts = parts;
    m.devices = devices;
    spx_multi_plan *P = NULL;
    if (!CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK)) return 0;
    spx_type t = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t n = P->rows, narrow = 0;
    for (int i = 0; i < parts; i++) {
        const spx__multi_part *p = &P->part[i];
        CHECK(0 <= p->span_lo && p->span_lo <= p->span_hi && p->span_hi <= n);
        CHECK(p->y_begin == (i ? p->span_lo : 0) && p->y_len == (i ? p->span_hi - p->span_lo : n));
        narrow += p->span_hi - p->span_lo < n;
    }
    double *x = malloc(sizeof *x * (size_t)(P->cols + 1)),
           *y0 = malloc(sizeof *y0 * (size_t)(n + 1));
    void *xv = malloc(es * (size_t)(P->cols + 1)), *y[3];
    uint64_t seed = 11;
    for (int64_t j = 0; j < P->cols; j++)
        x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < n; i++)
        y0[i] = spx_test_rand(&seed);
    fill_start(xv, t, 1.0, x, P->cols);
    for (int k = 0; k < 3; k++)
        y[k] = malloc(es * (size_t)(n + 1));
    spx_multi_vector *vx = NULL, *vy = NULL;
    int resident = n == P->cols && same_side(P);
    if (resident)
        resident = CHECK_STATUS(spx_multi_vector_create(P, &vx), SPX_OK) &&
                   CHECK_STATUS(spx_multi_vector_create(P, &vy), SPX_OK) &&
                   CHECK_STATUS(spx_multi_vector_set(vx, xv), SPX_OK);
    const double betas[] = {0.0, -0.75, 1.0};
    for (int b = 0; b < 3; b++)
        for (int r = 0; r < 1 + resident; r++) {
            for (int k = 0; k < 3; k++) {
                fill_start(y[k], t, betas[b], y0, n);
                if (r) {
                    CHECK_STATUS(spx_multi_vector_set(vy, y[k]), SPX_OK);
                    CHECK_STATUS(spx_multi_spmv_resident(P, 1.25, vx, betas[b], vy), SPX_OK);
                    CHECK_STATUS(spx_multi_vector_get(vy, y[k]), SPX_OK);
                } else {
                    CHECK_STATUS(spx_multi_spmv(P, 1.25, xv, betas[b], y[k]), SPX_OK);
                }
            }
            const char *what = r ? "resident" : "host";
            if (!CHECK(memcmp(y[0], y[1], es * (size_t)n) == 0 &&
                       memcmp(y[0], y[2], es * (size_t)n) == 0))
                fprintf(stderr, "  pcsc %s, %d parts, beta %g: calls differ\n", what, parts,
                        betas[b]);
            check_outside(P, y[0], t, betas[b], y0, what);
        }
    spx_multi_vector_destroy(vx);
    spx_multi_vector_destroy(vy);
    spx_multi_plan_destroy(P);
    free(x), free(y0), free(xv), free(y[0]), free(y[1]), free(y[2]);
    return (int)narrow;
}

/* A banded n x n matrix (|i - j| <= w) with rows and columns [0, pad) and
 * [n - pad, n) empty: pcsc spans are narrow and miss both ends of y. */
static spx_matrix *banded(int64_t n, int64_t w, int64_t pad)
{
    int64_t cap = n * (2 * w + 1), k = 0;
    int64_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
    double *v = malloc(sizeof *v * (size_t)cap);
    for (int64_t i = pad; i < n - pad; i++)
        for (int64_t j = i - w; j <= i + w; j++)
            if (j >= pad && j < n - pad)
                ri[k] = i, ci[k] = j, v[k] = 1.0 + (double)((i + 3 * j) % 5) / 4.0, k++;
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(n, n, k, ri, ci, v, &A), SPX_OK);
    free(ri), free(ci), free(v);
    return A;
}

/* Every kind with 1..max_parts parts; devices: NULL or max_parts entries. */
static void check_all_kinds(const spx_matrix *A, spx_plan_opts o, int max_parts,
                            const int *devices)
{
    for (size_t k = 0; k < NKINDS; k++)
        for (int np = 1; np <= max_parts; np++) {
            spx_multi_opts m = spx_multi_opts_default();
            m.partition = kinds[k];
            m.parts = np;
            m.devices = devices;
            check_plan(A, o, m);
        }
}

/* pcsc where spans matter: a banded n x n matrix (narrow spans), one with
 * empty rows and columns at both ends (rows no span reaches) and a 40 x 40
 * one of 24 nonzeros (with `many` > 24 parts, parts without nonzeros), op N
 * and op T, 1..max_parts and `many` parts: against the reference
 * (check_plan) and check_pcsc_spans. */
static void check_pcsc_cases(spx_plan_opts o, int64_t n, int max_parts, int many,
                             const int *devices)
{
    spx_matrix *M[3] = {banded(n, 3, 0), banded(n / 4, 1, n / 16), banded(40, 0, 8)};
    for (int a = 0; a < 3; a++)
        for (int op = 0; M[a] && op < 2; op++) {
            o.op = op ? SPX_OP_T : SPX_OP_N;
            for (int np = 1; np <= max_parts + 1; np++) {
                int parts = np > max_parts ? many : np;
                spx_multi_opts m = spx_multi_opts_default();
                m.partition = SPX_PART_PCSC;
                m.parts = parts;
                m.devices = devices;
                check_plan(M[a], o, m);
                int narrow = check_pcsc_spans(M[a], o, parts, devices);
                if (!CHECK(parts == 1 || narrow == parts))
                    fprintf(stderr, "  pcsc, %d parts: %d spans narrower than y\n", parts, narrow);
            }
        }
    for (int a = 0; a < 3; a++)
        spx_matrix_destroy(M[a]);
}

static spx_matrix *generate(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

#endif
