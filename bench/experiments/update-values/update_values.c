/* spx_plan_update_values against a new plan, in one process: for each format
 * of the device and precision, the plan's creation (spx_plan_prep_ms), an
 * update with host values and (CUDA plans) with device values, the SpMV
 * the plan then runs, and a device-to-device copy of the values (what
 * cuSPARSE, which reads the caller's CSR arrays, needs for new values: the
 * floor). Each update is checked once: the updated plan's y must be the
 * bits of a new plan made from the matrix with those values.
 *
 *   update_values MATRIX DEVICE PREC FORMATS [REPS]
 *   update_values gen:lap3d7:100 cuda f64 csr,sell,dasp,hbp 20
 *
 * MATRIX: a file, or gen:SPEC (spx_generate). Times are medians of REPS
 * calls in ms (CUDA: each call waited for). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "spx.h"

static int failed(spx_status st, const char *what)
{
    if (st == SPX_OK) return 0;
    fprintf(stderr, "%s: %s: %s\n", what, spx_status_name(st), spx_last_error());
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* A copy of A with values v (of the plan's vector type). */
static spx_matrix *with_values(const spx_matrix *A, const void *v, spx_type prec)
{
    const int64_t *rp;
    const void *ci;
    int col_bits;
    int64_t rows, cols, nnz;
    spx_matrix *B = NULL;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    if (spx_matrix_csr(A, &rp, &ci, &col_bits, NULL, NULL) != SPX_OK || col_bits != 32) return NULL;
    double *d = malloc(sizeof(double) * (size_t)(nnz + 1));
    for (int64_t e = 0; e < nnz; e++)
        d[e] = prec == SPX_F64 ? ((const double *)v)[e] : (double)((const float *)v)[e];
    spx_matrix_create_csr(rows, cols, rp, ci, d, &B);
    free(d);
    return B;
}

/* Median ms of reps calls of spx_plan_update_values (device: values in
 * device memory; waited for by the call itself). */
static double time_updates(spx_plan *P, const void *v, int device, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps), ms;
    for (int r = 0; r < reps; r++) {
        double t0 = spx_bench_now();
        spx_status st = device ? spx_plan_update_values(P, v) : spx_plan_update_values_host(P, v);
        t[r] = 1e3 * (spx_bench_now() - t0);
        if (st != SPX_OK) {
            failed(st, "spx_plan_update_values");
            free(t);
            return -1.0;
        }
    }
    ms = median(t, reps);
    free(t);
    return ms;
}

/* Median ms of reps SpMV calls (x and y where the plan's vectors live). */
static double time_spmv(const spx_plan *P, const void *x, void *y, int cuda, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps), ms;
    for (int r = 0; r < reps; r++) {
        double t0 = spx_bench_now();
        spx_spmv(P, 1.0, x, 0.0, y);
        if (cuda) cudaDeviceSynchronize();
        t[r] = 1e3 * (spx_bench_now() - t0);
    }
    ms = median(t, reps);
    free(t);
    return ms;
}

typedef struct run {
    spx_matrix *A, *B;
    spx_type prec;
    int cuda, reps;
    int64_t rows, cols, nnz;
    size_t es;
    void *v, *dv, *dv2; /* new values: host; device; a second device array */
    void *x, *y, *yb;   /* x and y where the plans' vectors live; yb host */
} run;

/* y of plan P as host bytes into out. */
static void y_of(const run *r, const spx_plan *P, void *out)
{
    spx_spmv(P, 1.0, r->x, 0.0, r->y);
    if (r->cuda)
        cudaMemcpy(out, r->y, r->es * (size_t)r->rows, cudaMemcpyDeviceToHost);
    else
        memcpy(out, r->y, r->es * (size_t)r->rows);
}

static void one_format(const run *r, const char *format)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL, *F = NULL;
    o.format = format;
    o.device = r->cuda ? SPX_DEV_CUDA : SPX_DEV_CPU;
    o.precision = r->prec;
    if (failed(spx_plan_create(r->A, SPX_OP_SPMV, &o, &P), format)) return;
    double prep = spx_plan_prep_ms(P);
    double host = time_updates(P, r->v, 0, r->reps);
    double dev = r->cuda ? time_updates(P, r->dv, 1, r->reps) : -1.0;
    double spmv = time_spmv(P, r->x, r->y, r->cuda, r->reps);
    const char *bits = "no new plan";
    if (spx_plan_create(r->B, SPX_OP_SPMV, &o, &F) == SPX_OK) {
        void *a = malloc(r->es * (size_t)(r->rows + 1)), *b = malloc(r->es * (size_t)(r->rows + 1));
        y_of(r, P, a);
        y_of(r, F, b);
        bits = memcmp(a, b, r->es * (size_t)r->rows) == 0 ? "same" : "DIFFER";
        free(a), free(b);
    }
    printf("%-10s %10.3f %10.3f %10.3f %10.4f %9.1fx %9.1fx  %s  %s\n", format, prep, host, dev,
           spmv, prep / (r->cuda ? dev : host), (r->cuda ? dev : host) / spmv, bits,
           spx_plan_format(P));
    spx_plan_destroy(P);
    spx_plan_destroy(F);
}

/* The floor for a CUDA plan: a device-to-device copy of nnz values. */
static void copy_floor(const run *r)
{
    double *t = malloc(sizeof(double) * (size_t)r->reps);
    for (int i = 0; i < r->reps; i++) {
        double t0 = spx_bench_now();
        cudaMemcpy(r->dv2, r->dv, r->es * (size_t)r->nnz, cudaMemcpyDeviceToDevice);
        cudaDeviceSynchronize();
        t[i] = 1e3 * (spx_bench_now() - t0);
    }
    printf("%-10s %10s %10s %10.3f   (cudaMemcpy of the values, device to device)\n", "copy", "",
           "", median(t, r->reps));
    free(t);
}

int main(int argc, char **argv)
{
    run r = {0};
    if (argc < 5) {
        fprintf(stderr, "usage: %s MATRIX cpu|cuda f64|f32|f16 FORMATS [REPS]\n", argv[0]);
        return 2;
    }
    r.cuda = strcmp(argv[2], "cuda") == 0;
    r.prec = strcmp(argv[3], "f64") == 0   ? SPX_F64
             : strcmp(argv[3], "f32") == 0 ? SPX_F32
                                           : SPX_F16;
    r.reps = argc > 5 ? atoi(argv[5]) : 10;
    r.es = r.prec == SPX_F64 ? sizeof(double) : sizeof(float);
    spx_status st = strncmp(argv[1], "gen:", 4) == 0 ? spx_generate(argv[1] + 4, &r.A)
                                                     : spx_matrix_read(argv[1], &r.A);
    if (failed(st, argv[1])) return 1;
    spx_matrix_dims(r.A, &r.rows, &r.cols, &r.nnz);
    r.v = malloc(r.es * (size_t)(r.nnz + 1));
    uint64_t s = 12345;
    for (int64_t e = 0; e < r.nnz; e++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double d = (double)(s >> 11) * 0x1p-53 * 2.0 - 1.0;
        if (r.prec == SPX_F64)
            ((double *)r.v)[e] = d;
        else
            ((float *)r.v)[e] = (float)d;
    }
    r.B = with_values(r.A, r.v, r.prec);
    size_t xb = r.es * (size_t)(r.cols + 1), yb = r.es * (size_t)(r.rows + 1);
    void *xh = malloc(xb);
    for (int64_t j = 0; j < r.cols; j++) {
        if (r.prec == SPX_F64)
            ((double *)xh)[j] = 1.0 / (double)(j % 7 + 1);
        else
            ((float *)xh)[j] = 1.0f / (float)(j % 7 + 1);
    }
    if (r.cuda) {
        cudaMalloc(&r.dv, r.es * (size_t)(r.nnz + 1));
        cudaMalloc(&r.dv2, r.es * (size_t)(r.nnz + 1));
        cudaMemcpy(r.dv, r.v, r.es * (size_t)r.nnz, cudaMemcpyHostToDevice);
        cudaMalloc(&r.x, xb);
        cudaMalloc(&r.y, yb);
        cudaMemcpy(r.x, xh, xb, cudaMemcpyHostToDevice);
    } else {
        r.x = xh;
        r.y = malloc(yb);
    }
    printf("# %s: %lld x %lld, %lld nonzeros, %s %s, medians of %d\n", argv[1], (long long)r.rows,
           (long long)r.cols, (long long)r.nnz, argv[2], argv[3], r.reps);
    printf("%-10s %10s %10s %10s %10s %10s %10s  %s\n", "format", "prep_ms", "upd_host", "upd_dev",
           "spmv_ms", "prep/upd", "upd/spmv", "bits vs new plan");
    char *list = malloc(strlen(argv[4]) + 1);
    strcpy(list, argv[4]);
    for (char *f = strtok(list, ","); f; f = strtok(NULL, ","))
        one_format(&r, f);
    if (r.cuda) copy_floor(&r);
    free(list);
    return 0;
}
