/* spx_matrix_wrap: caller's CSR arrays of every index width and value type,
 * row offsets of either width, values and 32-bit columns used in place (at
 * the caller's addresses), 64-bit columns of a narrow matrix narrowed into a
 * copy; products right; bad arrays refused like every constructor.
 * 32-bit row offsets: every CPU format, each precision, op N and T, on a
 * fresh wrap against the reference; csr and ref read them in place (no
 * widened copy is made), other formats widen them once, also when several
 * threads plan the matrix at the same time.
 * spx_matrix_wrap_device without a GPU to take it: SPX_ERR_NOT_COMPILED
 * without CUDA, SPX_ERR_NO_DEVICE without a GPU, host arrays refused with
 * one (tests/test_gpu_device_matrix.c has the rest). */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "cuda/gateway.h"

/* [1 0 2; 0 0 0; 3 4 0] */
static const int64_t rp64[] = {0, 2, 2, 4};
static const int32_t rp32[] = {0, 2, 2, 4};
static const int32_t ci32[] = {0, 2, 0, 1};
static const int64_t ci64[] = {0, 2, 0, 1};
static const double v64[] = {1, 2, 3, 4};
static const float v32[] = {1, 2, 3, 4};

static void check_product(const spx_matrix *A)
{
    spx_plan *P = NULL;
    double x[3] = {1, 10, 100}, y[3] = {-1, -1, -1};
    if (!CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, NULL, &P), SPX_OK)) return;
    CHECK_STATUS(spx_spmv(P, 1.0, x, 0.0, y), SPX_OK);
    CHECK(y[0] == 201 && y[1] == 0 && y[2] == 43);
    spx_plan_destroy(P);
}

static void test_every_width(void)
{
    for (int rb = 32; rb <= 64; rb += 32)
        for (int cb = 32; cb <= 64; cb += 32)
            for (int t = 0; t < 2; t++) {
                spx_matrix *A = NULL;
                const void *rp = rb == 32 ? (const void *)rp32 : (const void *)rp64;
                const void *ci = cb == 32 ? (const void *)ci32 : (const void *)ci64;
                const void *v = t == 0 ? (const void *)v64 : (const void *)v32;
                if (!CHECK_STATUS(
                        spx_matrix_wrap(3, 3, rp, rb, ci, cb, v, t == 0 ? SPX_F64 : SPX_F32, &A),
                        SPX_OK))
                    continue;
                const int64_t *arp;
                const void *aci, *av, *held;
                int bits, held_bits;
                spx_type vt;
                check_product(A);
                CHECK_STATUS(spx_matrix_row_offsets(A, &held, &held_bits), SPX_OK);
                CHECK(held == rp && held_bits == rb); /* the caller's offsets, either width */
                spx_matrix_csr(A, &arp, &aci, &bits, &av, &vt);
                CHECK(av == v && bits == 32); /* narrow: 64-bit columns narrowed */
                CHECK(cb == 32 ? aci == ci : aci != ci);
                /* 64-bit offsets asked of a 32-bit wrap: a widened copy, kept */
                CHECK(rb == 32 ? (void *)arp != rp && memcmp(arp, rp64, sizeof rp64) == 0
                               : arp == rp64);
                CHECK(vt == (t == 0 ? SPX_F64 : SPX_F32));
                CHECK_STATUS(spx_matrix_row_offsets(A, &held, &held_bits), SPX_OK);
                CHECK(held == rp && held_bits == rb);
                spx_matrix_destroy(A);
            }
}

/* ---- 32-bit offsets through every CPU format */

static const char *precision_name(spx_type p)
{
    return p == SPX_F64 ? "f64" : p == SPX_F32 ? "f32" : "f16";
}

/* y of a CPU plan P of precision p, y = alpha op(A) x + beta y0, as doubles. */
static spx_status product(const spx_plan *P, spx_type p, double alpha, const double *x, int64_t in,
                          double beta, const double *y0, int64_t out, double *y)
{
    size_t es = p == SPX_F64 ? sizeof(double) : sizeof(float);
    void *xv = malloc(es * (size_t)(in + 1)), *yv = malloc(es * (size_t)(out + 1));
    for (int64_t j = 0; j < in; j++)
        if (p == SPX_F64)
            ((double *)xv)[j] = x[j];
        else
            ((float *)xv)[j] = (float)x[j];
    for (int64_t i = 0; i < out; i++)
        if (p == SPX_F64)
            ((double *)yv)[i] = y0[i];
        else
            ((float *)yv)[i] = (float)y0[i];
    spx_status st = spx_spmv(P, alpha, xv, beta, yv);
    for (int64_t i = 0; i < out; i++)
        y[i] = p == SPX_F64 ? ((double *)yv)[i] : ((float *)yv)[i];
    free(xv);
    free(yv);
    return st;
}

/* One plan of format f in precision p and op on a fresh 32-bit wrap of S,
 * its product against the reference on S (c_p of test_conformance.c). csr
 * and ref must read the offsets in place: no widened copy after them.
 * Returns 1 when the format declined. */
static int wrapped_product(const spx_matrix *S, const char *f, spx_type p, spx_op op)
{
    int64_t rows, cols;
    int32_t *rp32 = NULL;
    spx_matrix_dims(S, &rows, &cols, NULL);
    const int64_t in = op == SPX_OP_N ? cols : rows, out = op == SPX_OP_N ? rows : cols;
    double *x = malloc(sizeof *x * (size_t)(in + 1)), *y0 = malloc(sizeof *y0 * (size_t)(out + 1));
    double *y = malloc(sizeof *y * (size_t)(out + 1)),
           *ref = malloc(sizeof *ref * (size_t)(out + 1));
    double *scale = malloc(sizeof *scale * (size_t)(out + 1));
    uint64_t seed = 11;
    for (int64_t j = 0; j < in; j++)
        x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < out; i++)
        y0[i] = spx_test_rand(&seed);
    spx_test_reference(S, op, -1.5, x, 0.5, y0, ref, scale);
    spx_matrix *W = spx_test_wrap32(S, &rp32);
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = f;
    o.precision = p;
    o.op = op;
    o.threads = 8; /* csr splits the dense row across threads (its long-row path) */
    spx_status st = W ? spx_plan_create(W, SPX_OP_SPMV, &o, &P) : SPX_ERR_INVALID_ARG;
    if (st != SPX_ERR_UNSUPPORTED && CHECK_STATUS(st, SPX_OK) &&
        CHECK_STATUS(product(P, p, -1.5, x, in, 0.5, y0, out, y), SPX_OK)) {
        double tol =
            (16.0 + sqrt((double)spx_test_longest_row(S, op))) * (p == SPX_F64 ? 0x1p-53 : 0x1p-24);
        spx_test_close(y, ref, scale, out, tol, "%s %s op%s on 32-bit offsets", f,
                       precision_name(p), op == SPX_OP_N ? "N" : "T");
        int in_place = op == SPX_OP_N && (strcmp(f, "csr") == 0 || strcmp(f, "ref") == 0);
        if (in_place && !CHECK(W->rowptr == NULL))
            fprintf(stderr, "  %s %s: the 32-bit offsets were widened\n", f, precision_name(p));
        if (in_place && strcmp(f, "csr") == 0)
            CHECK(strstr(spx_plan_describe(P), "offsets=int32-borrowed") != NULL);
        const void *held;
        int bits;
        spx_matrix_row_offsets(W, &held, &bits);
        CHECK(held == rp32 && bits == 32);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(W);
    free(rp32), free(x), free(y0), free(y), free(ref), free(scale);
    return st == SPX_ERR_UNSUPPORTED;
}

/* A dense row (10,000 entries: csr's long-row slices with 8 threads) among
 * short and empty ones. */
static void test_cpu_formats_on_32bit_offsets(void)
{
    static const spx_type precs[] = {SPX_F64, SPX_F32};
    spx_matrix *S = spx_test_dense_row_matrix(3000, 10000, 17, 30, 5);
    spx_matrix *Sym = spx_test_symmetric_matrix(2000, 8, 2000, 5); /* for sym */
    if (!S || !Sym) {
        spx_matrix_destroy(S), spx_matrix_destroy(Sym);
        return;
    }
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        unsigned devices, precisions;
        if (!spx_test_spmv_format(i, &name, &devices, &precisions) || !(devices & SPX_DEV_CPU))
            continue;
        int runs = 0, declined = 0;
        for (int p = 0; p < 2; p++) {
            if (!(precisions & (1u << precs[p]))) continue;
            for (int op = 0; op < 2; op++, runs += 2) {
                declined += wrapped_product(S, name, precs[p], op ? SPX_OP_T : SPX_OP_N);
                declined += wrapped_product(Sym, name, precs[p], op ? SPX_OP_T : SPX_OP_N);
            }
        }
        if (!CHECK(declined < runs))
            fprintf(stderr, "  %s declined every product on 32-bit offsets\n", name);
    }
    spx_matrix_destroy(S);
    spx_matrix_destroy(Sym);
}

/* ---- several threads planning one 32-bit wrap at once */

#define PLANNERS 4

typedef struct planner {
    const spx_matrix *W;
    pthread_barrier_t *start;
    const double *x;
    double *y;
    int64_t rows;
    spx_status st;
} planner;

/* A sell plan (which needs 64-bit offsets) of W and one product. */
static void *plan_sell(void *arg)
{
    planner *t = arg;
    spx_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "sell";
    o.threads = 1;
    pthread_barrier_wait(t->start);
    t->st = spx_plan_create(t->W, SPX_OP_SPMV, &o, &P);
    if (t->st == SPX_OK) t->st = spx_spmv(P, 1.0, t->x, 0.0, t->y);
    spx_plan_destroy(P);
    return NULL;
}

/* One widened copy is kept, the others freed (ASan's leak check fails this
 * test otherwise), and every thread gets the right product. */
static void test_concurrent_widening(void)
{
    int32_t *rp32 = NULL;
    int64_t rows, cols;
    spx_matrix *S = spx_test_varied_matrix(20000, 20000, 41.0, 9);
    spx_matrix *W = S ? spx_test_wrap32(S, &rp32) : NULL;
    if (!W) {
        spx_matrix_destroy(S);
        return;
    }
    spx_matrix_dims(S, &rows, &cols, NULL);
    double *x = malloc(sizeof *x * (size_t)cols), *ref = malloc(sizeof *ref * (size_t)rows);
    double *scale = malloc(sizeof *scale * (size_t)rows);
    uint64_t seed = 3;
    for (int64_t j = 0; j < cols; j++)
        x[j] = spx_test_rand(&seed);
    spx_test_reference(S, SPX_OP_N, 1.0, x, 0.0, NULL, ref, scale);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, PLANNERS);
    pthread_t id[PLANNERS];
    planner t[PLANNERS];
    for (int k = 0; k < PLANNERS; k++) {
        t[k] = (planner){W, &start, x, malloc(sizeof(double) * (size_t)rows), rows, SPX_OK};
        pthread_create(&id[k], NULL, plan_sell, &t[k]);
    }
    for (int k = 0; k < PLANNERS; k++) {
        pthread_join(id[k], NULL);
        if (CHECK_STATUS(t[k].st, SPX_OK))
            spx_test_close(t[k].y, ref, scale, rows, 0x1p-40, "sell planned by thread %d", k);
        free(t[k].y);
    }
    pthread_barrier_destroy(&start);
    CHECK(W->rowptr != NULL && W->rowptr32 == rp32);
    spx_matrix_destroy(W);
    spx_matrix_destroy(S);
    free(rp32), free(x), free(ref), free(scale);
}

static void test_refusals(void)
{
    spx_matrix *A = (spx_matrix *)&A;
    const int32_t unsorted[] = {2, 0, 0, 1}, dup[] = {0, 0, 0, 1}, far[] = {0, 3, 0, 1};
    const int32_t bad_rp[] = {0, 2, 1, 4}; /* row 1 ends before it starts */
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, unsorted, 32, v64, SPX_F64, &A), SPX_ERR_UNSORTED);
    CHECK(A == NULL);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, dup, 32, v64, SPX_F64, &A), SPX_ERR_DUPLICATE);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, far, 32, v64, SPX_F64, &A), SPX_ERR_INDEX_RANGE);
    CHECK_STATUS(spx_matrix_wrap(3, 3, bad_rp, 32, ci32, 32, v64, SPX_F64, &A), SPX_ERR_BAD_ROWPTR);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 16, ci32, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, ci32, 32, v64, SPX_F16, &A), SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_wrap(3, 3, NULL, 32, ci32, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, NULL, 32, v64, SPX_F64, &A), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(3, 3, rp32, 32, ci32, 32, v64, SPX_F64, NULL),
                 SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap(1, (int64_t)1 << 33, rp32, 32, ci32, 32, v64, SPX_F64, &A),
                 SPX_ERR_UNSUPPORTED);
}

/* Argument errors first; then what this build and machine say (the host
 * arrays here are never read). */
static void test_wrap_device_here(void)
{
    spx_matrix *A = (spx_matrix *)&A;
    spx_status here = !spx__cuda_compiled()                 ? SPX_ERR_NOT_COMPILED
                      : !spx_device_available(SPX_DEV_CUDA) ? SPX_ERR_NO_DEVICE
                                                            : SPX_ERR_INVALID_ARG;
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp32, 32, ci32, 32, v64, SPX_F64, NULL),
                 SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, NULL, 32, ci32, 32, v64, SPX_F64, &A),
                 SPX_ERR_INVALID_ARG);
    CHECK(A == NULL);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp32, 32, ci64, 64, v64, SPX_F64, &A),
                 SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp32, 32, ci32, 32, v64, SPX_F16, &A),
                 SPX_ERR_UNSUPPORTED);
    CHECK_STATUS(spx_matrix_wrap_device(3, 3, rp32, 32, ci32, 32, v64, SPX_F64, &A), here);
    CHECK(here != SPX_ERR_NOT_COMPILED || strstr(spx_last_error(), "without CUDA") != NULL);
    CHECK(here != SPX_ERR_NO_DEVICE || strstr(spx_last_error(), "no CUDA device") != NULL);
    CHECK(A == NULL);
}

int main(void)
{
    test_every_width();
    test_cpu_formats_on_32bit_offsets();
    test_concurrent_widening();
    test_refusals();
    test_wrap_device_here();
    return spx_test_finish();
}
