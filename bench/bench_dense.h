/* What the SpMM and SDDMM benches share (bench_dense.c). Their operands are
 * dense with k columns, row-major with leading dimension k, and ride in the
 * SpMV bench's group (bench_group) as vectors: its x holds the inputs
 * (SpMM's X; SDDMM's X, then Y at y_offset), its y the output (SpMM's Y,
 * SDDMM's Z), with the same conversion to float and the same device
 * buffers. A case is an SpX format, `auto` or a peer of the operation:
 * prepare, the first product alone on an output filled with NaN (beta = 0
 * must not read it), checked against the reference, then the batches of
 * bench_timing.c, every call alpha 1, beta 0. Formats' bench variants are
 * SpMV parameter sets and do not run here. */
#ifndef SPX_BENCH_DENSE_H
#define SPX_BENCH_DENSE_H

#include <stdint.h>

#include "bench_internal.h"

typedef struct bench_dense_group {
    bench_group v;      /* x: the inputs, y: the output; y_ref and scale as SpMV's */
    spx_operation op;   /* SPX_OP_SPMM or SPX_OP_SDDMM */
    int64_t k;          /* columns of the dense operands */
    int64_t y_offset;   /* SDDMM: the entry of v.x where Y starts (X starts at 0) */
    double model_bytes; /* bytes a call moves in the operation's model; 0: none (gbs NAN) */
} bench_dense_group;

/* n entries uniform in [-1, 1) from a 64-bit LCG started at seed (its top 53
 * bits), rounded to t's element type, into out. */
void bench_dense_fill(double *out, int64_t n, spx_type t, uint64_t seed);

/* *P: a plan of `ref` (cpu, f64) for op, the reference; its absence
 * (SPX_ERR_NO_FORMAT) is said as such, since nothing can be checked without it. */
spx_status bench_dense_reference_plan(const spx_matrix *A, spx_operation op, spx_plan **P);

/* For each device of o->devices: g's buffers there, then one case per format
 * computing g->op on that device in g's precision, `auto`, and with
 * o->peers every peer of g->op; their records appended at r + *count. g->v's
 * A, precision, rows, cols, nnz, x_ref, y_ref and scale must be set. */
spx_status bench_dense_run_devices(bench_dense_group *g, const spx_bench_opts *o,
                                   spx_bench_record *r, int *count);

/* One precision of an operation: its operands, reference and
 * bench_dense_run_devices, the records appended at r + *count. */
typedef spx_status (*bench_dense_precision_fn)(const spx_matrix *A, int64_t k, spx_type t,
                                               const spx_bench_opts *o, spx_bench_record *r,
                                               int *count);

/* The records of every precision of o by run (free *records with free()).
 * what names the operation in the message for k < 1. */
spx_status bench_dense_run(const spx_matrix *A, int64_t k, const char *what,
                           bench_dense_precision_fn run, const spx_bench_opts *o,
                           spx_bench_record **records, int *count);

#endif
