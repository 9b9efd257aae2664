/* DASP (Lu and Liu, SC'23): SpMV on the tensor cores' 8x4 blocks.
 *
 * Rows are classed by length len (MAX_LEN = 256):
 *   long    len > 256: cut into chunks of 32 (one 8x4 block each, zero padded), and
 *           the chunks into tasks of at most TASK_CHUNKS; a warp computes one
 *           task's partial sum (two or more mma per 64 entries, as the paper's
 *           groups) into a scratch array; the partials of a row are added in task
 *           order, so the result does not depend on the order warps run in, by
 *           the warp that finishes the row's last task (an atomic counter per row,
 *           after a fence) or, with two_pass, by a second launch: no races;
 *   medium  5 <= len <= 256 (a row of exactly 256 is medium, the paper's
 *           4 < len <= MAX_LEN): stable-sorted by decreasing length, cut into
 *           row-blocks of 8; chunk k of a row-block holds slots 4k..4k+3 of its 8
 *           rows (an 8x4 block, row-major); the leading chunks holding more than
 *           threshold * 32 nonzeros are the regular part (tensor cores), the rest
 *           of each row the irregular part (CSR, CUDA cores). A warp takes
 *           loop_num row-blocks (1, 2, 4 at 59,990 and 400,000 medium rows). Two
 *           bounds on one warp's serial work, beyond the paper: a row keeps at
 *           most IRR_MAX irregular entries (more leading chunks become regular,
 *           padded), and a row-block of more than HEAVY_CHUNKS chunks ("heavy";
 *           they lead, as lengths decrease) is cut into tasks of TASK_CHUNKS whose
 *           8 partial sums per row are added as a long row's are;
 *   short   len 1..4: pieced into 4-slot rows of 8x4 blocks: a 1 with a 3, a 2
 *           with a 2, rows of 4 (and 3s left over, padded); 1s left over are
 *           singletons done one per thread;
 *   empty   y = beta*y (0 when beta == 0).
 * A block's 32 entries are stored row-major, so lane l of a warp loads entry l:
 * for mma m8n8k4 that is A[l/4][l%4], and B[l%4][l/4] = x[col of entry l], so
 * the diagonal C[i][i] is the dot product of the block's row i with x (lane
 * 4i + i/2, accumulator i%2). Padding entries have column -1 and value 0 and
 * contribute exactly 0 (x is not read for them, so inf in x cannot leak).
 *
 * The row-level layout is computed on the host (OpenMP), with a map of where
 * each row's entries go: entry s (0 <= s < len) of row i is at slot
 *   map_slot[i] + 32 * (s / 4) + s % 4   for s < map_reg[i] (medium rows'
 *                                        regular part: 4 of each 32 slots),
 *   map_rest[i] + s - map_reg[i]          otherwise (contiguous);
 * every other slot is padding. The values and columns are then scattered by
 * that map either on the host (spx__dasp_pack: the reference) or on the
 * device from A's CSR (spx__dasp_pack_layout, then spx__dasp_upload, which
 * fills by dasp_fill.cu when the packing has no val/col); the two give the
 * same bits. Values are converted to fp16 for SPX_F16. */
#ifndef SPX_CUDA_DASP_H
#define SPX_CUDA_DASP_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__DASP_MAX_LEN 256   /* longest medium row */
#define SPX__DASP_CHUNK 32      /* entries of one 8x4 block */
#define SPX__DASP_TASK_CHUNKS 8 /* chunks of a long row or heavy row-block per warp */
#define SPX__DASP_IRR_MAX 8     /* most irregular entries a medium row keeps */
#define SPX__DASP_HEAVY_CHUNKS 16 /* a medium row-block of more chunks is heavy */

typedef struct spx__dasp_host {
    int64_t rows, cols, nnz;
    int loop_num;     /* row-blocks of medium rows per warp: 1, 2 or 4 */
    int threshold;    /* percent of a block's 32 slots a regular block must exceed */
    int two_pass;     /* task partials added by a second launch, not the last task */
    int mma;          /* F64 chunks per mma: 4 (m8n8k4; 0 too), 8 (m16n8k8), 16 (m16n8k16) */
    int regs;         /* F64 m8n8k4 main kernel's registers: 0 auto, 54, 48 or 40 */
    int pdl;          /* launches may overlap the kernel before (cuda/pdl.cuh) */
    int iso;          /* no values on the device: every entry's value is 1 (the
                         format folds A's one value into alpha); padding still
                         gives 0 through its column -1 */
    /* Segments of val/col, in chunks of 32 entries, then singletons, then the
     * medium rows' irregular entries. */
    int64_t n_chunks;               /* all 8x4 blocks of every class */
    int64_t n_entries;              /* n_chunks * 32 + n_single + n_irreg */
    double *val;                    /* n_entries values (0 for padding) */
    int32_t *col;                   /* n_entries columns (-1 for padding) */
    /* long rows: chunks [0, long_chunks) */
    int64_t n_long, n_tasks, long_chunks;
    int32_t *long_row;              /* n_long original rows */
    int64_t *long_task_ptr;         /* n_long + 1: tasks of each long row */
    int32_t *task_row;              /* n_tasks: long row (0..n_long-1) of each task */
    int64_t *task_chunk;            /* n_tasks + n_htasks + 1: first chunk of each
                                       task, long rows' then heavy row-blocks' */
    /* medium rows: row-blocks of 8, regular chunks from med_chunk0 */
    int64_t n_medium, n_rowblocks, med_chunk0, n_regular, n_irreg;
    int32_t *med_row;               /* 8 * n_rowblocks original rows, -1 padding */
    int64_t *rb_ptr;                /* n_rowblocks + 1: chunk offsets from med_chunk0 */
    int64_t *irr_ptr;               /* 8 * n_rowblocks + 1: entries from irr0 */
    int64_t irr0;                   /* first irregular entry in val/col */
    int64_t n_heavy, n_htasks;      /* heavy row-blocks [0, n_heavy) and their tasks */
    int64_t *hv_task_ptr;           /* n_heavy + 1: tasks of each heavy row-block */
    int32_t *hv_block;              /* n_htasks: row-block of each heavy task */
    /* short rows: blocks of 8 pieces; row ids per piece slot, -1 padding */
    int64_t n_blk13, n_blk22, n_blk4, chunk13, chunk22, chunk4;
    int32_t *row13;                 /* 16 per block: (row of the 1, row of the 3) */
    int32_t *row22;                 /* 16 per block: (first 2, second 2) */
    int32_t *row4;                  /* 8 per block */
    int64_t n_single, single0;      /* singletons at entries [single0, +n_single) */
    int32_t *single_row;
    /* class counts for describe() */
    int64_t n_short, n_len1, n_len2, n_len3, n_len4;
    int64_t n_empty;
    int32_t *empty_row;
    /* where each row's entries go (see above); rows entries each */
    int64_t *map_slot, *map_rest;
    uint16_t *map_reg;              /* 0..SPX__DASP_MAX_LEN */
    const spx_matrix *A;            /* borrowed: the matrix packed, for a device fill */
} spx__dasp_host;

#ifdef __CUDACC__
#define SPX__DASP_HD __host__ __device__
#else
#define SPX__DASP_HD
#endif

/* Slot of entry s of a row mapped to (slot, rest, reg), as above: the one
 * placement rule of the host and device fills. */
static inline SPX__DASP_HD int64_t spx__dasp_slot(int64_t slot, int64_t rest, int64_t reg,
                                                  int64_t s)
{
    return s < reg ? slot + SPX__DASP_CHUNK * (s >> 2) + (s & 3) : rest + (s - reg);
}

/* Pack A (rows and columns must fit int32). threshold: percent (0..100, the
 * paper's 75); loop_num: 0 picks the paper's rule (1, 2, 4 at 59,990 and
 * 400,000 medium rows). */
spx_status spx__dasp_pack(const spx_matrix *A, int threshold, int loop_num,
                          spx__dasp_host **h);
/* The same without val/col (NULL): the layout and the row map only, h->A = A
 * (borrowed until the upload), for the device fill. */
spx_status spx__dasp_pack_layout(const spx_matrix *A, int threshold, int loop_num,
                                 spx__dasp_host **h);
void spx__dasp_host_free(spx__dasp_host *h);

/* Device copy of a packing; opaque to C. */
typedef struct spx__dasp_dev spx__dasp_dev;

/* The dasp method's gateway (cuda/gateway.h; dasp_fill.cu, dasp_kernels.cu):
 * - fill: val (n_entries doubles for SPX_F64, halves for SPX_F16; NULL for
 *   an iso packing, whose values are not read) and col (n_entries), device
 *   arrays, from h->A's CSR uploaded once and scattered by h's row map,
 *   padding (column -1, value 0) elsewhere; on stream, finished on return; a
 *   value beyond half's range for SPX_F16 is SPX_ERR_UNSUPPORTED naming it;
 * - dev_alloc: device memory of the dasp layer (*p NULL for 0 bytes); failure
 *   is SPX_ERR_OOM with the bytes; dev_fail_at: test hook, the n-th dasp
 *   device allocation from now fails (n >= 1; 0 disables), returns the count
 *   made since the last call;
 * - upload: h for precision t (SPX_F64, or SPX_F16: IEEE half values, one
 *   beyond half's range a decline naming it; h->iso: no values at all) to run
 *   on stream (NULL: default);
 * - spmv: y = alpha*A*x + beta*y with device vectors (double for F64, float
 *   for F16; x in IEEE half for F16 with x_half), asynchronous on the plan's
 *   stream; the long-row scratch is the plan's, so calls on one plan must not
 *   run concurrently on different streams;
 * - bytes, free: the device copy's memory;
 * - download: for tests, the device's val (8 or 2 bytes each; none for an iso
 *   plan) and col arrays into host buffers of *n entries (*n = the count held;
 *   NULL buffers: only *n). */
#define SPX__CUDA_DASP_API(S, Q, V)                                                           \
    S(spx__dasp_fill,                                                                         \
      (const spx__dasp_host *h, spx_type t, void *stream, void *val, int32_t *col))           \
    S(spx__dasp_dev_alloc, (void **p, size_t bytes, const char *what))                        \
    Q(long, spx__dasp_dev_fail_at, (long n), 0)                                               \
    S(spx__dasp_upload, (const spx__dasp_host *h, spx_type t, void *stream, spx__dasp_dev **d)) \
    S(spx__dasp_spmv,                                                                         \
      (const spx__dasp_dev *d, double alpha, const void *x, double beta, void *y, int x_half)) \
    Q(size_t, spx__dasp_bytes, (const spx__dasp_dev *d), 0)                                   \
    S(spx__dasp_download, (const spx__dasp_dev *d, void *val, int32_t *col, int64_t *n))      \
    V(spx__dasp_free, (spx__dasp_dev *d))

SPX__CUDA_DECLARE(SPX__CUDA_DASP_API)

#ifdef __cplusplus
}
#endif
#endif
