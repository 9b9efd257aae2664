/* The SpMM bench, Y = A*X with X dense (A's columns x k) and Y (A's rows x
 * k), both row-major with leading dimension k: every format computing
 * SPX_OP_SPMM, `auto`, and with --peers every SpMM peer, on each device and
 * precision asked (bench_spmm.c, the cases of bench_dense.c), and its report
 * (bench_dense_report.c).
 * Its records are the SpMV mode's (bench.h) with these meanings:
 *   prep_ms      plan creation (peers: prepare, own clock, with what they
 *                make for k: descriptors, workspace, tuning)
 *   first_ms     the first product alone, on Y filled with NaN (beta = 0
 *                must not read it); the product checked
 *   max_rel_err  max |Y - Y_ref| / max (|A| |X|), X uniform in [-1, 1)
 *                (fixed seed) rounded to the precision, Y_ref from `ref`
 *                on the CPU in fp64; ok within spx_bench_tolerance
 *   t            time per call Y = A*X (alpha 1, beta 0), batches as SpMV's
 *   gflops       2*nnz*k / median time
 *   bytes        memory the prepared form holds
 * gbs and the break-evens are not measured (NAN). The table's x column is
 * computed when printed: the median time of the first peer that ran on the
 * same device and precision over the row's. */
#ifndef SPX_BENCH_SPMM_H
#define SPX_BENCH_SPMM_H

#include <stdint.h>
#include <stdio.h>

#include "bench.h"

/* Run the SpMM bench on A with k columns. *records (free with free()) holds
 * *count records; a case that fails has a record with its status. Returns an
 * error only when nothing could be measured (no reference, no memory). */
spx_status spx_bench_spmm_run(const spx_matrix *A, int64_t k, const spx_bench_opts *o,
                              spx_bench_record **records, int *count);

/* One row per record (k: the run's); warnings as spx_bench_print_warnings. */
void spx_bench_spmm_print_table(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                int n);
/* A JSON array of one object per record ("operation": "spmm"). */
void spx_bench_spmm_write_json(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                               int n);

#endif
