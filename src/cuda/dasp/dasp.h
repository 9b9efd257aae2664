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
 * The row-level layout is computed on the host (OpenMP). Entry s (0 <= s < len)
 * of row i is at slot
 *   slot + 32 * (s / 4) + s % 4   for s < reg (medium rows' regular part: 4 of
 *                                 each 32 slots),
 *   rest + s - reg                otherwise (contiguous),
 * (spx__dasp_slot) with (slot, rest, reg) the row's placement; every other slot
 * is padding. The values and columns are scattered either on the host
 * (spx__dasp_pack: the reference), by a map of each row's placement (map_slot,
 * map_rest, map_reg), or on the device from A's CSR (spx__dasp_pack_layout,
 * then spx__dasp_upload, which fills by dasp_fill.cu when the packing has no
 * val/col), which reads the placements from the row lists and offsets the
 * kernels keep anyway (spx__dasp_walk, below); the two give the same bits.
 * Values are converted to fp16 for SPX_F16.
 *
 * New values (spx_plan_update_values, spx__dasp_update) are scattered by that
 * same walk, for either fill: the device plan keeps A's row offsets for it,
 * 8 bytes a row, rather than a map of each slot's CSR entry, 4 bytes a slot
 * (R-MAT scale 18, 15 entries a row: +4% of an fp64 plan's bytes, +8% fp16,
 * +12% iso, where the map would add 32%, 62% and 90%; a 5-point stencil:
 * +12/22/30% against 30/54/74%). */
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
    /* irr_ptr as the device keeps it: per row-block its first irregular entry
     * (from irr0), then per row-block the 8 rows' counts, a byte each (at most
     * SPX__DASP_IRR_MAX < 32, so 8 of them sum below 256): 2 * n_rowblocks */
    int64_t *irr_words;
    /* where each row's entries go (see above), for the host scatter only
     * (spx__dasp_pack; NULL from spx__dasp_pack_layout); rows entries each */
    int64_t *map_slot, *map_rest;
    uint16_t *map_reg;              /* 0..SPX__DASP_MAX_LEN */
    const spx_matrix *A;            /* borrowed until the upload: the matrix packed (its
                                       row offsets; its CSR for a device fill) */
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

/* A packing's row lists and offsets (host arrays, or their device copies in a
 * device plan) and A's row offsets, from which spx__dasp_walk_row reads where
 * every row's entries go. The walk's places are those of the row lists:
 *   q < 8 * n_rowblocks: row q % 8 of medium row-block q / 8 (med_row[q]);
 *   then the 1&3 pieces' rows (row13: 16 per block), the 2&2 pieces' (row22:
 *   16 per block), the rows of 4 and 3 (row4: 8 per block), the singletons
 *   (single_row); a place holding -1 is padding.
 * Long rows, few and long, are placed apart (spx__dasp_walk_long); empty rows
 * have no entries to place. */
typedef struct spx__dasp_walk {
    const int64_t *rowptr; /* rows + 1: A's row offsets */
    const int32_t *long_row, *med_row, *row13, *row22, *row4, *single_row;
    const int64_t *long_task_ptr, *task_chunk, *rb_ptr;
    const int64_t *irr_base;  /* per row-block: first irregular entry, from irr0 */
    const uint64_t *irr_len8; /* per row-block: byte i = row i's irregular count */
    int64_t n_long, n_rowblocks, n_blk13, n_blk22, n_blk4, n_single;
    int64_t med_chunk0, irr0, chunk13, chunk22, chunk4, single0;
} spx__dasp_walk;

/* Places of the walk (long rows apart). */
static inline SPX__DASP_HD int64_t spx__dasp_walk_len(const spx__dasp_walk *w)
{
    return 8 * w->n_rowblocks + 16 * (w->n_blk13 + w->n_blk22) + 8 * w->n_blk4 + w->n_single;
}

/* First slot of piece p of short blocks from chunk c0: row p % 8 of chunk
 * c0 + p / 8. */
static inline SPX__DASP_HD int64_t spx__dasp_piece_slot(int64_t c0, int64_t p)
{
    return (c0 + p / 8) * SPX__DASP_CHUNK + (p % 8) * 4;
}

/* Row i = q % 8 of medium row-block b = q / 8: slots 4i..4i+3 of each of the
 * block's chunks (reg 4 a chunk: a row shorter than that ends inside them,
 * in the slots the host's min(len, 4 * chunks) gives it), then its irregular
 * entries after rows 0..i-1's (byte i-1 of lens * 0x0101..01 sums bytes
 * 0..i-1, as the kernels' irr_load does). */
static inline SPX__DASP_HD int32_t spx__dasp_walk_medium(const spx__dasp_walk *w, int64_t q,
                                                         int64_t *slot, int64_t *rest, int64_t *reg)
{
    int64_t b = q / 8, i = q % 8;
    uint64_t upto = w->irr_len8[b] * 0x0101010101010101ull;
    *slot = (w->med_chunk0 + w->rb_ptr[b]) * SPX__DASP_CHUNK + 4 * i;
    *reg = 4 * (w->rb_ptr[b + 1] - w->rb_ptr[b]);
    *rest = w->irr0 + w->irr_base[b] + (i ? (int64_t)((upto >> (8 * i - 8)) & 0xff) : 0);
    return w->med_row[q];
}

/* Row at place q < spx__dasp_walk_len(w) (-1: padding) and its placement. */
static inline SPX__DASP_HD int32_t spx__dasp_walk_row(const spx__dasp_walk *w, int64_t q,
                                                      int64_t *slot, int64_t *rest, int64_t *reg)
{
    int64_t n13 = 16 * w->n_blk13, n22 = 16 * w->n_blk22, n4 = 8 * w->n_blk4;
    if (q < 8 * w->n_rowblocks) return spx__dasp_walk_medium(w, q, slot, rest, reg);
    q -= 8 * w->n_rowblocks;
    *slot = 0;
    *reg = 0;
    if (q < n13) { /* the 1 at the piece's slot 0, the 3 at 1 */
        *rest = spx__dasp_piece_slot(w->chunk13, q / 2) + q % 2;
        return w->row13[q];
    }
    q -= n13;
    if (q < n22) { /* the two 2s at slots 0 and 2 */
        *rest = spx__dasp_piece_slot(w->chunk22, q / 2) + 2 * (q % 2);
        return w->row22[q];
    }
    q -= n22;
    if (q < n4) {
        *rest = spx__dasp_piece_slot(w->chunk4, q);
        return w->row4[q];
    }
    q -= n4;
    *rest = w->single0 + q;
    return w->single_row[q];
}

/* Long row r (long_row[r]): its entries in order from its first task's first
 * chunk (slot 0, reg 0: all contiguous from the slot returned). */
static inline SPX__DASP_HD int64_t spx__dasp_walk_long(const spx__dasp_walk *w, int64_t r)
{
    return w->task_chunk[w->long_task_ptr[r]] * SPX__DASP_CHUNK;
}

/* Pack A (rows and columns must fit int32). threshold: percent (0..100, the
 * paper's 75); loop_num: 0 picks the paper's rule (1, 2, 4 at 59,990 and
 * 400,000 medium rows). */
spx_status spx__dasp_pack(const spx_matrix *A, int threshold, int loop_num,
                          spx__dasp_host **h);
/* The same without val/col and the row map (NULL): the layout only, for the
 * device fill. Both set h->A = A (borrowed until the upload). */
spx_status spx__dasp_pack_layout(const spx_matrix *A, int threshold, int loop_num,
                                 spx__dasp_host **h);
void spx__dasp_host_free(spx__dasp_host *h);

/* Device copy of a packing; opaque to C. */
typedef struct spx__dasp_dev spx__dasp_dev;

/* The dasp method's gateway (cuda/gateway.h; dasp_fill.cu, dasp_kernels.cu):
 * - fill: val (n_entries doubles for SPX_F64, halves for SPX_F16; NULL for
 *   an iso packing, whose values are not read) and col (n_entries), device
 *   arrays, from h->A's CSR uploaded once and scattered by the walk w (device
 *   arrays), padding (column -1, value 0) elsewhere; on stream, finished on
 *   return; a value beyond half's range for SPX_F16 is SPX_ERR_UNSUPPORTED
 *   naming it;
 * - refill: nnz new values (A's CSR order; double for SPX_F64, float for
 *   SPX_F16; device memory when on_device, else host memory, copied over)
 *   into val (as fill's) by the walk w, the padding and columns untouched;
 *   finished on return; for SPX_F16 a value beyond half's range is
 *   SPX_ERR_UNSUPPORTED naming it, checked before val is written;
 * - dev_alloc: device memory of the dasp layer (*p NULL for 0 bytes); failure
 *   is SPX_ERR_OOM with the bytes; dev_fail_at: test hook, the n-th dasp
 *   device allocation from now fails (n >= 1; 0 disables), returns the count
 *   made since the last call;
 * - upload: h for precision t (SPX_F64, or SPX_F16: IEEE half values, one
 *   beyond half's range a decline naming it; h->iso: no values at all) to run
 *   on stream (NULL: default); keeps A's row offsets for update;
 * - update: new values as refill takes them into d's own (an iso d gets a
 *   value array and stores values from then on: d multiplies as a d uploaded
 *   with these values, stored); SPX_ERR_UNSUPPORTED (fp16 range) leaves d as
 *   it was;
 * - spmv: y = alpha*A*x + beta*y with device vectors (double for F64, float
 *   for F16; x in IEEE half for F16 with x_half), asynchronous on the plan's
 *   stream; the long-row scratch is the plan's, so calls on one plan must not
 *   run concurrently on different streams;
 * - bytes, free: the device copy's memory;
 * - download: for tests, the device's val (8 or 2 bytes each; none for an iso
 *   plan) and col arrays into host buffers of *n entries (*n = the count held;
 *   NULL buffers: only *n). */
#define SPX__CUDA_DASP_API(S, Q, V)                                                                \
    S(spx__dasp_fill, (const spx__dasp_host *h, const spx__dasp_walk *w, spx_type t, void *stream, \
                       void *val, int32_t *col))                                                   \
    S(spx__dasp_refill, (const spx__dasp_walk *w, int64_t nnz, const void *values, int on_device,  \
                         spx_type t, void *stream, void *val))                                     \
    S(spx__dasp_dev_alloc, (void **p, size_t bytes, const char *what))                             \
    Q(long, spx__dasp_dev_fail_at, (long n), 0)                                                    \
    S(spx__dasp_upload, (const spx__dasp_host *h, spx_type t, void *stream, spx__dasp_dev **d))    \
    S(spx__dasp_update, (spx__dasp_dev * d, const void *values, int on_device))                    \
    S(spx__dasp_spmv,                                                                              \
      (const spx__dasp_dev *d, double alpha, const void *x, double beta, void *y, int x_half))     \
    Q(size_t, spx__dasp_bytes, (const spx__dasp_dev *d), 0)                                        \
    S(spx__dasp_download, (const spx__dasp_dev *d, void *val, int32_t *col, int64_t *n))           \
    V(spx__dasp_free, (spx__dasp_dev * d))

SPX__CUDA_DECLARE(SPX__CUDA_DASP_API)

#ifdef __cplusplus
}
#endif
#endif
