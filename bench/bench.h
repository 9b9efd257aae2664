/* The benchmark driver behind `spx bench`: every registered format (and, on
 * request, every peer of bench/peers.h) on every device and precision asked,
 * on one matrix and one x, each checked against the `ref` format and timed.
 *
 * One record per format, device and precision; `auto` (SpX's AUTO rule, not a
 * registered format) runs when --format names it or no --format is given
 * without --param, and its record names the format it picked:
 *   prep_ms      plan creation (spx_plan_prep_ms; peers: analyze, own clock)
 *   max_rel_err  |y - y_ref|_inf / (|A| |x|)_inf, x uniform in [-1, 1] (fixed
 *                seed) rounded to the precision, y_ref from `ref` in fp64
 *   ok           max_rel_err <= tolerance: f64 1e-12, f32 1e-5, f16 1e-2
 *   median_ms    median over >= 10 batches of the time per call, a batch being
 *                enough calls for >= 50 ms (CUDA: the batch ends with a device
 *                sync); the same x every call, y = A*x (alpha 1, beta 0)
 *   gflops       2*nnz / median time
 *   gbs          model bytes / median time, model of DESIGN.md for fp64 CSR
 *                12*nnz + 4*(m+1) + 8*n + 8*m, values and vectors scaled to the
 *                precision (f32: 4-byte values and vectors, f16: 2-byte values,
 *                4-byte vectors)
 *   bytes        memory the prepared form holds
 *   breakeven    calls after which the format has paid its extra preparation
 *                against csr on the same device and precision:
 *                (prep - prep_csr) / (t_csr - t) when faster, else never
 *   breakeven_peer  the same against the fastest peer of the run (SpX formats) */
#ifndef SPX_BENCH_BENCH_H
#define SPX_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spx.h"

typedef struct spx_bench_opts {
    const char *const *formats; /* names to run, NULL-terminated; NULL: all registered */
    unsigned devices;           /* SPX_DEV_CPU | SPX_DEV_CUDA, available ones only */
    unsigned precisions;        /* bit (1u << spx_type) per precision */
    int64_t calls;              /* calls per timed batch; 0: enough for 50 ms */
    int peers;                  /* nonzero: also every entry of spx_bench_peers */
    int threads;                /* CPU threads for SpX plans; 0: OpenMP default */
    const char *params;         /* format parameters passed to SpX formats, or NULL */
    int tune;                   /* nonzero: let formats tune (counted in prep_ms) */
    FILE *progress;             /* progress lines ("bench: csr f64 cpu ..."), or NULL */
    int progress_tty;           /* nonzero: rewrite one line with \r */
} spx_bench_opts;

typedef struct spx_bench_record {
    const char *format; /* registry or peer name (static storage) */
    const char *params; /* a format's bench variant ("x=refresh", static), or NULL */
    const char *chosen; /* format "auto": the format AUTO picked (static), else NULL */
    spx_device device;
    spx_type precision;
    int64_t nnz;
    double median_ms, gflops, gbs, prep_ms;
    size_t bytes;
    double max_rel_err;
    int ok;            /* status == SPX_OK and max_rel_err within tolerance */
    double breakeven;  /* calls; INFINITY: never; NAN: not applicable (csr, no csr) */
    double breakeven_peer;    /* the same against the fastest peer of the group; NAN: none */
    const char *fastest_peer; /* that peer's name, or NULL */
    spx_status status; /* SPX_OK, or the failure that left the record without numbers */
    char error[256];   /* spx_last_error() of that failure */
} spx_bench_record;

/* A record's name for tables: "axc", for a bench variant "axc[x=refresh]", for
 * AUTO "auto:sell" (its pick). */
void spx_bench_label(const spx_bench_record *r, char *buf, size_t len);

/* "f64", "f32", "f16"; "cpu", "cuda". */
const char *spx_bench_precision_name(spx_type t);
const char *spx_bench_device_name(spx_device d);

/* Tolerance on max_rel_err for a precision. */
double spx_bench_tolerance(spx_type t);

/* Bytes an SpMV moves in the DESIGN.md model, for m x n with nnz entries. */
double spx_bench_model_bytes(int64_t m, int64_t n, int64_t nnz, spx_type t);

/* Run the benchmark on A. *records (free with spx__free) holds *count records;
 * a format that fails has a record with its status. Returns an error only when
 * nothing could be measured (no reference, no memory). */
spx_status spx_bench_run(const spx_matrix *A, const spx_bench_opts *o, spx_bench_record **records,
                         int *count);

/* One row per record; stream_gbs > 0 adds each gbs as % of it. */
void spx_bench_print_table(FILE *f, const char *matrix, const spx_bench_record *r, int n,
                           double stream_gbs);
/* A JSON array of one object per record. */
void spx_bench_write_json(FILE *f, const char *matrix, const spx_bench_record *r, int n);

/* STREAM triad a[i] = b[i] + s*c[i] with OpenMP over arrays of max(3 x the
 * last-level cache, 64M) doubles; best of 10. *gbs counts 3 arrays of traffic
 * per element (write-allocate would add a fourth). */
spx_status spx_bench_stream_triad(double *gbs, size_t *array_bytes);

/* The gather bound (bench/bench_gather.c): s += x[col[k]] over every nonzero
 * of A (of P A P^T with params' reorder=rcm|degree) on threads (0: OpenMP's),
 * timed like a format, as record "gather" (params "reorder=MODE" or NULL):
 * median_ms, gflops = 2 nnz / t, gbs = bytes model / t (the SpMV's rate at
 * the speed of its gather alone), prep_ms = the ordering, bytes = 4 nnz + 8 n.
 * A failure is also in the record. */
spx_status spx_bench_gather(const spx_matrix *A, const char *params, int threads,
                            spx_bench_record *r);

/* Bytes of the highest-level cache of CPU 0 (Linux sysfs), 0 if unknown. */
size_t spx_bench_llc_bytes(void);

/* Monotonic clock in seconds (CLOCK_MONOTONIC). */
double spx_bench_now(void);

/* JSON output helpers: a quoted, escaped string; a number (null if not finite). */
void spx_bench_json_string(FILE *f, const char *s);
void spx_bench_json_number(FILE *f, double v);

/* ---- internal to bench/: one device and precision, and one case in it */

#include "plan/format.h"

/* What the cases of one device and precision share: x and y where the device
 * reads them (host memory or CUDA memory), in the precision's element type
 * (double for f64, float for f32 and f16), and the reference. */
typedef struct spx__bench_group {
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
} spx__bench_group;

/* x, y_ref and scale for precision t (x_ref, y_ref: free with spx__free). */
spx_status spx__bench_reference(const spx_matrix *A, spx_type t, double **x_ref, double **y_ref,
                                double *scale);
/* The vectors of g for its device and precision (x_ref, y_ref, scale set). */
spx_status spx__bench_group_init(spx__bench_group *g);
void spx__bench_group_free(spx__bench_group *g);

/* Measure one case into r: the SpX format named `format` (with a bench
 * variant's parameters, or NULL for the run's), or the peer. */
void spx__bench_case(const spx__bench_group *g, const spx_bench_opts *o, const char *format,
                     const char *variant, const spx_format_ops *peer, spx_bench_record *r);

#endif
