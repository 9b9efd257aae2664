/* What the files of bench/ share and the spx program does not see: the
 * bench's own errors and allocation, a read-only CSR view of a public
 * spx_matrix, and the timing of batches of calls. The bench uses spx.h only
 * (no library internals), so it can link the static or the shared library.
 *
 * Errors: every function returns spx_status; the message of the last failure
 * is the bench's own (spx_bench_last_error, thread-local). bench_fail sets it
 * for a failure of the bench; bench_lib copies spx_last_error() into it after
 * a failed library call. One cleanup label per function: BENCH_TRY(call)
 * jumps there when call fails (needs a local `spx_status st`). */
#ifndef SPX_BENCH_INTERNAL_H
#define SPX_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "peers.h"

#define BENCH_TYPE_BIT(t) (1u << (unsigned)(t))

#define BENCH_TRY(call)                                                                            \
    do {                                                                                           \
        st = (call);                                                                               \
        if (st != SPX_OK) goto cleanup;                                                            \
    } while (0)

/* Record fmt as the bench's last error and return st. */
spx_status bench_fail(spx_status st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* st unchanged; when it is a failure, spx_last_error() becomes the bench's message. */
spx_status bench_lib(spx_status st);

/* malloc of n elements of size bytes, zeroed with bench_calloc; *p NULL on
 * failure (SPX_ERR_OOM naming what and the bytes, or SPX_ERR_OVERFLOW). Free
 * with free(). */
spx_status bench_alloc(void **p, size_t n, size_t size, const char *what);
spx_status bench_calloc(void **p, size_t n, size_t size, const char *what);

/* A public matrix's CSR arrays (spx_matrix_csr), borrowed. */
typedef struct bench_csr {
    int64_t rows, cols, nnz;
    const int64_t *rowptr;
    const void *colidx; /* int32_t when col_bits == 32, else int64_t */
    int col_bits;
    const void *values; /* double for SPX_F64, float for SPX_F32 */
    spx_type vtype;
} bench_csr;

spx_status bench_csr_view(const spx_matrix *A, bench_csr *v);

static inline int64_t bench_col(const bench_csr *v, int64_t k)
{
    return v->col_bits == 32 ? ((const int32_t *)v->colidx)[k] : ((const int64_t *)v->colidx)[k];
}

static inline double bench_val(const bench_csr *v, int64_t k)
{
    return v->vtype == SPX_F64 ? ((const double *)v->values)[k]
                               : (double)((const float *)v->values)[k];
}

/* Its values as doubles (*owned NULL when they already are; else free *owned). */
spx_status bench_values_f64(const bench_csr *v, const double **vals, double **owned);

/* ---- timing (bench_timing.c) */

/* One call of the thing timed; it may be asynchronous on a device. */
typedef spx_status (*bench_call_fn)(void *ctx);

/* Seconds per call over the timed batches. */
typedef struct bench_stats {
    double median, min, max, q1, q3; /* quartiles interpolated between batches */
    int batches;
    int64_t calls; /* per batch */
} bench_stats;

/* Batches of calls: calibration batches grow the call count (or run the fixed
 * count once) until one batch lasts >= 50 ms, which also warms caches and
 * clocks; then `batches` batches of that count, each ended by a device sync
 * when sync is set (CUDA: all its kernels are in its time). */
spx_status bench_time_calls(bench_call_fn call, void *ctx, int sync, int64_t fixed, int batches,
                            bench_stats *s);
/* Seconds of one call, synchronized when sync is set. */
spx_status bench_time_once(bench_call_fn call, void *ctx, int sync, double *seconds);

/* The stats into a record's fields (milliseconds). */
void bench_stats_to_ms(const bench_stats *s, spx_bench_spread *out);

/* 1-minute load average, or -1 when unknown. */
double bench_load1(void);

/* ---- SpMV: one device and precision, and one case in it */

/* What the cases of one device and precision share: x and y where the device
 * reads them (host memory or CUDA memory), in the precision's element type
 * (double for f64, float for f32 and f16), and the reference. */
typedef struct bench_group {
    const spx_matrix *A;
    spx_device device;
    spx_type precision;
    int64_t rows, cols, nnz;
    const double *x_ref; /* x rounded to the precision, as doubles (cols) */
    const double *y_ref; /* `ref` fp64 result for x_ref (rows) */
    double scale;        /* (|A| |x|)_inf, the denominator of max_rel_err */
    const void *x;       /* x where the device reads it, of the element type */
    void *y;             /* y there */
    void *y_host;        /* y copied back for the check (rows, element type) */
    void *x_conv;        /* host x as float for f32 and f16, else NULL */
    void *x_dev, *y_dev; /* CUDA copies, or NULL */
} bench_group;

/* x, y_ref and scale for precision t (x_ref, y_ref: free with free()). */
spx_status bench_reference(const spx_matrix *A, spx_type t, double **x_ref, double **y_ref,
                           double *scale);
/* The vectors of g for its device and precision (x_ref, y_ref, scale set). */
spx_status bench_group_init(bench_group *g);
void bench_group_free(bench_group *g);

/* Measure one case into r: the SpX format named `format` (with a bench
 * variant's parameters, or NULL for the run's), or the peer. */
void bench_case(const bench_group *g, const spx_bench_opts *o, const char *format,
                const char *variant, const spx_bench_peer *peer, spx_bench_record *r);

/* A progress line for r's stage ("prepare", "check", "time"). */
void bench_progress(const spx_bench_opts *o, const char *label, spx_type t, spx_device d,
                    const char *stage);

/* Records a run can have at most: every format and its bench variants, auto
 * and every peer, on each device and precision. */
size_t bench_record_capacity(void);

/* Is name selected by o->formats (NULL: all)? */
int bench_selected(const spx_bench_opts *o, const char *name);

#endif
