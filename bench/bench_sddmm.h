/* The SDDMM bench, Z = X*Y^T sampled at A's entries (spx_sddmm) with X (A's
 * rows x k) and Y (A's columns x k) dense, row-major with leading dimension
 * k, and Z one value per entry of A in its CSR order: every format computing
 * SPX_OP_SDDMM, `auto`, and with --peers every SDDMM peer, on each device
 * and precision asked (bench_sddmm.c, the cases of bench_dense.c), and its
 * report (bench_dense_report.c). Its records are the SpMV mode's (bench.h)
 * with these meanings:
 *   prep_ms      plan creation (peers: prepare, own clock, with what they
 *                make for k: descriptors, workspace, preprocessing)
 *   first_ms     the first product alone, on Z filled with NaN (beta = 0
 *                must not read it); the product checked
 *   max_rel_err  max |Z - Z_ref| / max over entries (i, j) of
 *                sum_c |X(i, c)| |Y(j, c)|, X and Y uniform in [-1, 1)
 *                (fixed seeds) rounded to the precision, Z_ref from `ref` on
 *                the CPU in fp64; ok within spx_bench_tolerance
 *   t            time per call (alpha 1, beta 0), batches as SpMV's
 *   gflops       2*nnz*k / median time
 *   gbs          spx_bench_sddmm_model_bytes / median time
 *   bytes        memory the prepared form holds
 * The break-evens are not measured (NAN). The table's x column is the
 * median time of the first peer that ran on the same device and precision
 * over the row's. */
#ifndef SPX_BENCH_SDDMM_H
#define SPX_BENCH_SDDMM_H

#include <stdint.h>
#include <stdio.h>

#include "bench.h"

/* Run the SDDMM bench on A with k columns. *records (free with free()) holds
 * *count records; a case that fails has a record with its status. Returns an
 * error only when nothing could be measured (no reference, no memory). */
spx_status spx_bench_sddmm_run(const spx_matrix *A, int64_t k, const spx_bench_opts *o,
                               spx_bench_record **records, int *count);

/* Bytes an SDDMM call moves in the model: the pattern (8-byte row offsets
 * and 4- or 8-byte columns, as A stores them), Z written once (beta = 0: not
 * read), X and Y read once, values of t's element type (f64 8 bytes, else 4).
 * 0 for an invalid A. */
double spx_bench_sddmm_model_bytes(const spx_matrix *A, int64_t k, spx_type t);

/* One row per record (k: the run's); warnings as spx_bench_print_warnings. */
void spx_bench_sddmm_print_table(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                 int n);
/* A JSON array of one object per record ("operation": "sddmm"). */
void spx_bench_sddmm_write_json(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                int n);

#endif
