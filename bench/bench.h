/* The benchmark driver behind `spx bench`: every registered format (and, on
 * request, every peer of bench/peers.h) on every device and precision asked,
 * on one matrix, each checked against a reference and timed. Uses the public
 * API (spx.h) only.
 *
 * SpMV (spx_bench_run): one record per format, device and precision; `auto`
 * (SpX's AUTO rule, not a registered format) runs when --format names it or
 * no --format is given without --param, and its record names the format it
 * picked:
 *   prep_ms      plan creation (spx_plan_prep_ms; peers: prepare, own clock)
 *   first_ms     the first call after preparation, alone (cold caches, lazy
 *                initialisation: what a user who multiplies once sees); it is
 *                also the call that is checked
 *   max_rel_err  |y - y_ref|_inf / (|A| |x|)_inf, x uniform in [-1, 1] (fixed
 *                seed) rounded to the precision, y_ref from `ref` in fp64
 *   ok           max_rel_err <= tolerance: f64 1e-12, f32 1e-5, f16 1e-2
 *   t            time per call over >= 10 batches, a batch being enough calls
 *                for >= 50 ms (CUDA: the batch ends with a device sync); the
 *                same x every call, y = A*x (alpha 1, beta 0): the median, the
 *                fastest and slowest batch and the quartiles
 *   gflops       2*nnz / median time
 *   gbs          model bytes / median time, model of DESIGN.md for fp64 CSR
 *                12*nnz + 4*(m+1) + 8*n + 8*m, values and vectors scaled to the
 *                precision (f32: 4-byte values and vectors, f16: 2-byte values,
 *                4-byte vectors)
 *   bytes        memory the prepared form holds
 *   breakeven    calls after which the format has paid its extra preparation
 *                against csr on the same device and precision:
 *                (prep - prep_csr) / (t_csr - t) when faster, else never
 *   breakeven_peer  the same against the fastest peer of the run (SpX formats)
 *
 * SpGEMM (spx_bench_spgemm_run): see the record below and bench_spgemm.c. */
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
    int batches;                /* timed batches; 0: 10 */
    int peers;                  /* nonzero: also every peer of the operation */
    int threads;                /* CPU threads for SpX plans; 0: OpenMP default */
    const char *params;         /* format parameters passed to SpX formats, or NULL */
    int tune;                   /* nonzero: let formats tune (counted in prep_ms) */
    FILE *progress;             /* progress lines ("bench: csr f64 cpu ..."), or NULL */
    int progress_tty;           /* nonzero: rewrite one line with \r */
    int resident;               /* SpGEMM: also rows `F[resident]` for CUDA f64 and f16: A
                                   and B device matrices before timing, C left on the device;
                                   2: those rows (and peers) alone */
    int numeric;                /* SpGEMM with resident: also rows `F[numeric]`, timing
                                   spx_spgemm_numeric (repeated products, one pattern) */
} spx_bench_opts;

/* Time per call over the timed batches, in milliseconds. */
typedef struct spx_bench_spread {
    double median_ms, min_ms, max_ms; /* median, fastest and slowest batch */
    double q1_ms, q3_ms;              /* quartiles */
    int batches;
    int64_t calls; /* per batch */
} spx_bench_spread;

typedef struct spx_bench_record {
    const char *format; /* registry or peer name (static storage) */
    const char *params; /* a format's bench variant ("x=refresh", static), or NULL */
    const char *chosen; /* format "auto": the format AUTO picked (static), else NULL */
    spx_device device;
    spx_type precision;
    int64_t nnz;
    spx_bench_spread t;
    double first_ms, gflops, gbs, prep_ms;
    size_t bytes;
    double max_rel_err;
    double load1;      /* 1-minute load average when the record was timed (-1: unknown) */
    int ok;            /* status == SPX_OK and max_rel_err within tolerance */
    double breakeven;  /* calls; INFINITY: never; NAN: not applicable (csr, no csr) */
    double breakeven_peer;    /* the same against the fastest peer of the group; NAN: none */
    const char *fastest_peer; /* that peer's name, or NULL */
    spx_status status; /* SPX_OK, or the failure that left the record without numbers */
    char error[256];   /* the message of that failure */
} spx_bench_record;

/* Message of the bench's last failure on this thread (a library failure's
 * spx_last_error(), or the bench's own). */
const char *spx_bench_last_error(void);

/* A record's name for tables: "axc", for a bench variant "axc[x=refresh]", for
 * AUTO "auto:sell" (its pick). */
void spx_bench_label(const char *format, const char *params, const char *chosen, char *buf,
                     size_t len);

/* "f64", "f32", "f16"; "cpu", "cuda". */
const char *spx_bench_precision_name(spx_type t);
const char *spx_bench_device_name(spx_device d);

/* Tolerance on max_rel_err for a precision. */
double spx_bench_tolerance(spx_type t);

/* Bytes an SpMV moves in the DESIGN.md model, for m x n with nnz entries. */
double spx_bench_model_bytes(int64_t m, int64_t n, int64_t nnz, spx_type t);

/* Run the SpMV benchmark on A. *records (free with free()) holds *count
 * records; a format that fails has a record with its status. Returns an error
 * only when nothing could be measured (no reference, no memory). */
spx_status spx_bench_run(const spx_matrix *A, const spx_bench_opts *o, spx_bench_record **records,
                         int *count);

/* One row per record; stream_gbs > 0 adds each gbs as % of it. */
void spx_bench_print_table(FILE *f, const char *matrix, const spx_bench_record *r, int n,
                           double stream_gbs);
/* A JSON array of one object per record. */
void spx_bench_write_json(FILE *f, const char *matrix, const spx_bench_record *r, int n);
/* Warning lines (count returned) for the records whose slowest batch took
 * more than 1.5x the fastest, and for a load average above the threads used:
 * the table's ratios are then not to be trusted. */
int spx_bench_print_warnings(FILE *f, const spx_bench_record *r, int n, int threads);

/* ---- SpGEMM: C = A*B, every format computing SPX_OP_SPGEMM and the SpGEMM peers */

typedef struct spx_bench_spgemm_record {
    const char *format, *params, *chosen; /* as in spx_bench_record */
    char detail[64]; /* a peer's choice ("alg=ALG3"), or "" */
    char label[96];  /* resident rows: "PARAMS,resident" (params points here) */
    spx_device device;
    spx_type precision;
    int64_t nnz_a, nnz_b, nnz_c; /* nnz_c: this result's entries (-1: none) */
    int64_t products;            /* intermediate products sum_k nnz(A(:,k)) nnz(B(k,:)) */
    double prep_ms;  /* plan creation (peers: prepare A and B in their own form) */
    double first_ms; /* the first product on the prepared plan, alone (the one checked) */
    spx_bench_spread run;   /* the product on a prepared plan (spx_spgemm_run), C freed */
    spx_bench_spread whole; /* plan, product and frees, as a user calls it once */
    double gflops, gflops_whole; /* 2 * products / median time */
    size_t bytes;                /* memory the prepared plan holds */
    double max_rel_err; /* max |c_ij - ref_ij| / (|A||B|)_ij over the reference's pattern */
    int64_t dropped;    /* entries of the reference's pattern absent from C (zeros within
                           the tolerance: a format that compacts exact zeros) */
    double load1;
    int ok;
    spx_status status;
    char error[256];
} spx_bench_spgemm_record;

/* C = A*B (B = A when B is NULL) with every SpGEMM format on every device and
 * precision of o (and the SpGEMM peers with o->peers), each checked against a
 * long-double reference product and timed. *records: free with free(). */
spx_status spx_bench_spgemm_run(const spx_matrix *A, const spx_matrix *B, const spx_bench_opts *o,
                                spx_bench_spgemm_record **records, int *count);
void spx_bench_spgemm_print_table(FILE *f, const char *matrix, const spx_bench_spgemm_record *r,
                                  int n);
void spx_bench_spgemm_write_json(FILE *f, const char *matrix, const char *b,
                                 const spx_bench_spgemm_record *r, int n);
int spx_bench_spgemm_print_warnings(FILE *f, const spx_bench_spgemm_record *r, int n, int threads);

/* ---- bandwidth ceilings */

/* STREAM triad a[i] = b[i] + s*c[i] with OpenMP over arrays of max(3 x the
 * last-level cache, 64M) doubles; best of 10. *gbs counts 3 arrays of traffic
 * per element (write-allocate would add a fourth). */
spx_status spx_bench_stream_triad(double *gbs, size_t *array_bytes);

/* GPU 0's device-to-device copy bandwidth (bytes read + written): median of
 * 20 copies of 1 GiB after 3 warm-up copies, CUDA events around each. */
spx_status spx_bench_cuda_copy(double *gbs);

/* GPU 0's name, L2 bytes and multiprocessors (any output may be NULL). */
spx_status spx_bench_cuda_device(char *name, size_t len, size_t *l2_bytes, int *sms);

/* The gather bound (bench/bench_gather.c): s += x[col[k]] over every nonzero
 * of A (of P A P^T with params' reorder=rcm|degree) on threads (0: OpenMP's),
 * timed like a format, as record "gather" (params "reorder=MODE" or NULL):
 * t, gflops = 2 nnz / t, gbs = bytes model / t (the SpMV's rate at the speed
 * of its gather alone), prep_ms = the ordering, bytes = 4 nnz + 8 n. A failure
 * is also in the record. */
spx_status spx_bench_gather(const spx_matrix *A, const char *params, int threads,
                            spx_bench_record *r);

/* Bytes of the highest-level cache of CPU 0 (Linux sysfs), 0 if unknown. */
size_t spx_bench_llc_bytes(void);

/* Monotonic clock in seconds (CLOCK_MONOTONIC). */
double spx_bench_now(void);

/* The peers compiled in (bench/peers.h): how many, and the i-th's name, with
 * its operation, devices and precisions (outputs may be NULL); NULL past the end. */
int spx_bench_peer_count(void);
const char *spx_bench_peer_name(int i, spx_operation *op, unsigned *devices,
                                unsigned *precisions);

/* JSON output helpers: a quoted, escaped string; a number (null if not finite). */
void spx_bench_json_string(FILE *f, const char *s);
void spx_bench_json_number(FILE *f, double v);

#endif
