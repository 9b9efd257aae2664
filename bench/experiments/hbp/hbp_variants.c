/* hbp's parameter variants against CUDA csr, one process per matrix (so the
 * hash and sort preparations, the owner and paper combines and the block
 * shapes are timed side by side): for each matrix and precision, each plan's
 * preparation (spx_plan_prep_ms, and hbp's own device phases from its
 * describe: partition, order, layout), its first call, and the median of
 * BATCHES batches of calls of at least BATCH_MS each (device vectors, a sync
 * after each batch), then the describe line (blocks, hash a b c d, the
 * per-group row-length spread before and after hashing, fixed and
 * competitive tiles). Not part of the build:
 *   gcc -O2 -Iinclude -Isrc bench/experiments/hbp/hbp_variants.c -Lbuild-gpu -lspx \
 *       -Wl,-rpath,$PWD/build-gpu -lm -o /tmp/hbp-variants
 *   /tmp/hbp-variants f64,f16 gen:rmat:scale=20,ef=16,sym=1 matrices/c-62.mtx ...
 * HBP_VARIANTS (';'-separated parameter sets) replaces the default list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/gateway.h"
#include "spx.h"

#define BATCHES 5
#define BATCH_MS 10.0

static const char *const default_sets =
    "-;prep=sort;prep=host;tile=0;tile=32;cols=4096;cols=4096,combine=paper;cols=65536;"
    "rows=512;rows=2048;fixed=0;fixed=100;pdl=off";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Device x (of the plan's x type) and y for one precision. */
typedef struct vectors {
    void *x, *xh, *y; /* xh: x in half, for xtype=half */
} vectors;

static spx_status make_vectors(const spx_matrix *A, spx_type t, vectors *v)
{
    int64_t m, n;
    spx_matrix_dims(A, &m, &n, NULL);
    const size_t es = t == SPX_F64 ? 8 : 4;
    void *hx = malloc((size_t)n * es + 8);
    uint16_t *hh = malloc((size_t)n * 2 + 8);
    uint64_t s = 12345;
    spx_status st;
    for (int64_t j = 0; j < n; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double d = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        const float f = (float)d;
        if (t == SPX_F64)
            ((double *)hx)[j] = d;
        else
            ((float *)hx)[j] = f;
        spx_float_to_half(&f, &hh[j], 1);
    }
    st = spx__cuda_upload(&v->x, hx, (size_t)n * es, "x");
    if (st == SPX_OK) st = spx__cuda_upload(&v->xh, hh, (size_t)n * 2, "x half");
    if (st == SPX_OK) st = spx__cuda_alloc(&v->y, (size_t)m * es + 8, "y");
    free(hx);
    free(hh);
    return st;
}

/* One plan: prep, first call, median call; 0 when it could not run. */
static int time_plan(const spx_matrix *A, spx_type t, const char *format, const char *params,
                     const vectors *v, double *prep, double *first, double *median, char *desc,
                     size_t len)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    double b[BATCHES];
    o.device = SPX_DEV_CUDA;
    o.format = format;
    o.precision = t;
    o.params = params;
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    if (st != SPX_OK) {
        snprintf(desc, len, "not run: %s", spx_last_error());
        return 0;
    }
    const void *x = spx_plan_x_type(P) == SPX_F16 ? v->xh : v->x;
    *prep = spx_plan_prep_ms(P);
    double t0 = now_ms();
    st = spx_spmv(P, 1.0, x, 0.0, v->y);
    if (st == SPX_OK) st = spx__cuda_sync(NULL);
    *first = now_ms() - t0;
    int calls = 1;
    for (double dt = 0.0; st == SPX_OK && dt < BATCH_MS && calls < (1 << 20); calls *= 2) {
        t0 = now_ms();
        for (int k = 0; k < calls && st == SPX_OK; k++)
            st = spx_spmv(P, 1.0, x, 0.0, v->y);
        if (st == SPX_OK) st = spx__cuda_sync(NULL);
        dt = now_ms() - t0;
    }
    for (int i = 0; i < BATCHES && st == SPX_OK; i++) {
        t0 = now_ms();
        for (int k = 0; k < calls && st == SPX_OK; k++)
            st = spx_spmv(P, 1.0, x, 0.0, v->y);
        if (st == SPX_OK) st = spx__cuda_sync(NULL);
        b[i] = (now_ms() - t0) / calls;
    }
    qsort(b, BATCHES, sizeof *b, cmp_double);
    *median = b[BATCHES / 2];
    snprintf(desc, len, "%s", st == SPX_OK ? spx_plan_describe(P) : spx_last_error());
    spx_plan_destroy(P);
    return st == SPX_OK;
}

static void run_precision(const char *name, const spx_matrix *A, spx_type t, const char *sets)
{
    vectors v = {NULL, NULL, NULL};
    int64_t nnz;
    char buf[2048], desc[1024];
    double prep, first, med, csr_ms = 0.0;
    spx_matrix_dims(A, NULL, NULL, &nnz);
    const char *tn = t == SPX_F64 ? "f64" : "f16";
    if (make_vectors(A, t, &v) != SPX_OK) {
        printf("%s %s: vectors: %s\n", name, tn, spx_last_error());
        return;
    }
    if (time_plan(A, t, "csr", NULL, &v, &prep, &first, &med, desc, sizeof desc)) {
        csr_ms = med;
        printf("%-34s %s %-28s prep %9.3f ms first %8.4f ms median %8.4f ms %7.1f GF/s 1.00x\n",
               name, tn, "csr", prep, first, med, 2e-6 * (double)nnz / med);
    }
    snprintf(buf, sizeof buf, "%s%s", sets, t == SPX_F16 ? ";xtype=half" : "");
    for (char *save = NULL, *p = strtok_r(buf, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
        const char *params = strcmp(p, "-") == 0 ? NULL : p;
        char label[64];
        snprintf(label, sizeof label, "hbp[%s]", params ? params : "");
        if (!time_plan(A, t, "hbp", params, &v, &prep, &first, &med, desc, sizeof desc)) {
            printf("%-34s %s %-28s %s\n", name, tn, label, desc);
            continue;
        }
        printf("%-34s %s %-28s prep %9.3f ms first %8.4f ms median %8.4f ms %7.1f GF/s %.2fx\n"
               "    %s\n",
               name, tn, label, prep, first, med, 2e-6 * (double)nnz / med,
               csr_ms > 0.0 ? csr_ms / med : 0.0, desc);
        fflush(stdout);
    }
    spx__cuda_free(v.x);
    spx__cuda_free(v.xh);
    spx__cuda_free(v.y);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s f64[,f16] M... (files or gen:SPEC)\n", argv[0]);
        return 2;
    }
    const char *sets = getenv("HBP_VARIANTS") ? getenv("HBP_VARIANTS") : default_sets;
    for (int a = 2; a < argc; a++) {
        spx_matrix *A = NULL;
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        spx_status st = strncmp(argv[a], "gen:", 4) == 0 ? spx_generate(argv[a] + 4, &A)
                                                         : spx_matrix_read(argv[a], &A);
        if (st != SPX_OK) {
            printf("%s: %s\n", argv[a], spx_last_error());
            continue;
        }
        if (strstr(argv[1], "f64")) run_precision(name, A, SPX_F64, sets);
        if (strstr(argv[1], "f16")) run_precision(name, A, SPX_F16, sets);
        spx_matrix_destroy(A);
    }
    return 0;
}
