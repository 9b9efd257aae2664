/* Does a one-byte code into a per-plan table of values pay in CPU CSR SpMV
 * when a matrix holds few distinct values (issue 20: bcsstk21 has 14,
 * olm1000 6)?
 *
 * For each matrix (a file or gen:SPEC), fp64, the same OpenMP CSR kernel
 * (rows split into equal-nonzero ranges per thread, software prefetch of the
 * streamed arrays 256 elements ahead as csr.c does) stamped three times:
 *   stored   sum += val[k] * x[col[k]]            12 bytes a nonzero
 *   dict     sum += table[code[k]] * x[col[k]]    5 bytes (table in L1)
 *   pattern  sum += x[col[k]]                     4 bytes: the iso floor
 * and SpX's csr plans with values=stored and values=iso beside them. Rounds
 * alternate the variants (one batch of calls each, a round after the other)
 * so that the load of a shared machine falls on all alike; each variant's
 * median, min and max over the rounds. dict must give stored's bits (the
 * table holds the same doubles); pattern is a timing floor (its numbers are
 * right only for a matrix of ones).
 * Usage: iso_dict M... ; env ISO_DICT_ROUNDS (default 15), ISO_DICT_MS
 * (default 20: the batch length aimed at). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spx.h"

#define PF_AHEAD 256

typedef struct csr_view {
    int64_t rows, cols, nnz;
    const int64_t *rp;
    const int32_t *col;
    const double *val;
    uint8_t *code;   /* dict: nnz codes, or NULL when over 256 values */
    double table[256];
    int distinct;    /* distinct values (257: more than 256) */
    int64_t *part;   /* threads + 1 row bounds */
    int threads;
} csr_view;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

#define KERNEL(name, TERM, PREFETCH)                                                               \
    static void name(const csr_view *v, const double *restrict x, double *restrict y)             \
    {                                                                                              \
        const int64_t *restrict rp = v->rp;                                                        \
        const int32_t *restrict col = v->col;                                                      \
        const double *restrict val = v->val;                                                       \
        const uint8_t *restrict code = v->code;                                                    \
        const double *restrict table = v->table;                                                   \
        (void)val, (void)code, (void)table;                                                        \
        _Pragma("omp parallel num_threads(v->threads)")                                            \
        {                                                                                          \
            const int t = omp_get_thread_num();                                                    \
            for (int64_t i = v->part[t]; i < v->part[t + 1]; i++) {                                \
                double sum = 0.0;                                                                  \
                const int64_t e = rp[i + 1];                                                       \
                if (e + PF_AHEAD < v->nnz) PREFETCH(e + PF_AHEAD);                                 \
                for (int64_t k = rp[i]; k < e; k++)                                                \
                    sum += TERM(k);                                                                \
                y[i] = sum;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }

#define TERM_STORED(k) val[k] * x[col[k]]
#define TERM_DICT(k) table[code[k]] * x[col[k]]
#define TERM_PATTERN(k) x[col[k]]
#define PF_STORED(p) (__builtin_prefetch(val + (p)), __builtin_prefetch(col + (p)))
#define PF_DICT(p) (__builtin_prefetch(code + (p)), __builtin_prefetch(col + (p)))
#define PF_PATTERN(p) __builtin_prefetch(col + (p))
KERNEL(spmv_stored, TERM_STORED, PF_STORED)
KERNEL(spmv_dict, TERM_DICT, PF_DICT)
KERNEL(spmv_pattern, TERM_PATTERN, PF_PATTERN)

/* Distinct values of v->val into table and codes; distinct = 257 when more
 * than 256 (no codes). A linear search of the table: fine for a harness. */
static void build_dict(csr_view *v)
{
    v->distinct = 0;
    v->code = malloc((size_t)v->nnz + 1);
    for (int64_t k = 0; k < v->nnz; k++) {
        int c = 0;
        while (c < v->distinct && memcmp(&v->table[c], &v->val[k], sizeof(double)) != 0)
            c++;
        if (c == v->distinct) {
            if (v->distinct == 256) {
                v->distinct = 257;
                free(v->code);
                v->code = NULL;
                return;
            }
            v->table[v->distinct++] = v->val[k];
        }
        v->code[k] = (uint8_t)c;
    }
}

static void split_rows(csr_view *v)
{
    v->part = malloc(((size_t)v->threads + 1) * sizeof *v->part);
    for (int t = 0; t <= v->threads; t++) {
        const int64_t target = v->nnz / v->threads * t + v->nnz % v->threads * t / v->threads;
        int64_t lo = 0, hi = v->rows;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (v->rp[mid] < target) lo = mid + 1;
            else hi = mid;
        }
        v->part[t] = t == v->threads ? v->rows : lo;
    }
}

typedef struct variant {
    const char *name;
    void (*own)(const csr_view *, const double *, double *);
    spx_plan *plan;
    double ms[64]; /* per call, one entry per round */
} variant;

static void call(const variant *w, const csr_view *v, const double *x, double *y)
{
    if (w->own)
        w->own(v, x, y);
    else
        spx_spmv(w->plan, 1.0, x, 0.0, y);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static spx_plan *csr_plan(const spx_matrix *A, const char *params, int threads)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.format = "csr";
    o.params = params;
    o.threads = threads;
    if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) != SPX_OK) {
        fprintf(stderr, "csr %s: %s\n", params, spx_last_error());
        return NULL;
    }
    return P;
}

static void bench_matrix(const char *name, const spx_matrix *A, int rounds, double batch_ms)
{
    csr_view v;
    const void *ci, *vals;
    int bits;
    spx_type vt;
    memset(&v, 0, sizeof v);
    spx_matrix_dims(A, &v.rows, &v.cols, &v.nnz);
    spx_matrix_csr(A, &v.rp, &ci, &bits, &vals, &vt);
    if (bits != 32 || vt != SPX_F64) {
        fprintf(stderr, "%s: needs 32-bit columns and fp64 values\n", name);
        return;
    }
    v.col = ci;
    v.val = vals;
    v.threads = omp_get_max_threads();
    build_dict(&v);
    split_rows(&v);
    double *x = malloc((size_t)(v.cols + 1) * sizeof *x);
    double *y = malloc((size_t)(v.rows + 1) * sizeof *y);
    double *y2 = malloc((size_t)(v.rows + 1) * sizeof *y2);
    for (int64_t j = 0; j < v.cols; j++)
        x[j] = 1.0 + (double)(j % 17) / 16.0;
    const int iso = spx_matrix_iso(A, NULL);
    variant w[5] = {{"stored", spmv_stored, NULL, {0}},
                    {"dict", v.code ? spmv_dict : NULL, NULL, {0}},
                    {"pattern", spmv_pattern, NULL, {0}},
                    {"spx-csr-stored", NULL, csr_plan(A, "values=stored", v.threads), {0}},
                    {"spx-csr-iso", NULL, iso ? csr_plan(A, "values=iso", v.threads) : NULL, {0}}};
    if (v.code) { /* dict gives stored's bits */
        spmv_stored(&v, x, y);
        spmv_dict(&v, x, y2);
        if (memcmp(y, y2, (size_t)v.rows * sizeof *y) != 0) printf("%s: dict differs!\n", name);
    }
    int calls = 1; /* per batch: doubled until a batch of the stored kernel takes batch_ms */
    for (int warm = 0; warm < 3; warm++)
        spmv_stored(&v, x, y);
    for (;;) {
        const double t0 = now_ms();
        for (int c = 0; c < calls; c++)
            spmv_stored(&v, x, y);
        if (now_ms() - t0 >= batch_ms || calls >= 1000000) break;
        calls *= 2;
    }
    if (rounds > 64) rounds = 64;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 5; k++) {
            if (!w[k].own && !w[k].plan) continue;
            call(&w[k], &v, x, y); /* warm */
            const double t0 = now_ms();
            for (int c = 0; c < calls; c++)
                call(&w[k], &v, x, y);
            w[k].ms[r] = (now_ms() - t0) / calls;
        }
    printf("%-28s rows=%lld nnz=%lld distinct=%s%d threads=%d calls/batch=%d\n", name,
           (long long)v.rows, (long long)v.nnz, v.distinct > 256 ? ">" : "",
           v.distinct > 256 ? 256 : v.distinct, v.threads, calls);
    double base = 0.0;
    for (int k = 0; k < 5; k++) {
        if (!w[k].own && !w[k].plan) continue;
        qsort(w[k].ms, (size_t)rounds, sizeof(double), cmp_double);
        const double med = w[k].ms[rounds / 2];
        if (k == 0) base = med;
        printf("  %-16s median %9.4f ms  min %9.4f  max %9.4f  stored/this %5.2fx  %6.2f GB/s "
               "(model)\n",
               w[k].name, med, w[k].ms[0], w[k].ms[rounds - 1], base / med,
               ((k == 0 || k == 3 ? 12.0 : k == 1 ? 5.0 : 4.0) * (double)v.nnz +
                8.0 * (double)(v.rows + 1) + 8.0 * (double)(v.rows + v.cols)) /
                   (med * 1e6));
        spx_plan_destroy(w[k].plan);
    }
    free(x), free(y), free(y2), free(v.code), free(v.part);
}

int main(int argc, char **argv)
{
    const char *r = getenv("ISO_DICT_ROUNDS"), *b = getenv("ISO_DICT_MS");
    const int rounds = r ? atoi(r) : 15;
    const double batch_ms = b ? atof(b) : 20.0;
    for (int a = 1; a < argc; a++) {
        spx_matrix *A = NULL;
        const spx_status st = strncmp(argv[a], "gen:", 4) == 0 ? spx_generate(argv[a] + 4, &A)
                                                                : spx_matrix_read(argv[a], &A);
        if (st != SPX_OK) {
            fprintf(stderr, "%s: %s\n", argv[a], spx_last_error());
            continue;
        }
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        bench_matrix(base, A, rounds > 0 ? rounds : 1, batch_ms);
        spx_matrix_destroy(A);
        fflush(stdout);
    }
    return 0;
}
