/* The CUDA CSR format's prepared form and its kernel launcher (csr_spmv.cu;
 * stubs.c without CUDA).
 *
 * y = alpha*A*x + beta*y over the device CSR, rows split by length:
 *  - stream kernel (default): rows of length <= long_len (256) are cut, in order,
 *    into row blocks of at most SPX__CUDA_CSR_BLOCK rows and
 *    SPX__CUDA_CSR_STREAM_NNZ nonzeros (or _NNZ_MIN with blocknnz=1024), each
 *    described by 4 int64 (first row, end row, first nonzero, end nonzero) so
 *    that a thread block issues its nonzeros' loads (coalesced, 8 or 4 per
 *    thread, all in flight at once) and its
 *    row offsets' in the same round trip. It puts the products a_k * x[col_k]
 *    in shared memory, then sums each row with 2^j lanes per row (as many as
 *    the block's row count allows, at most 32);
 *  - vector kernel (kernel=vector): rows of length <= long_len are done by
 *    groups of `group` lanes (1..32, a power of two from the mean row length);
 *  - long rows (> long_len) are cut into chunks at the multiples of
 *    SPX__CUDA_CSR_CHUNK (so every chunk but a row's first starts aligned;
 *    with long < 256 a long row may be one chunk); a warp sums each chunk into partial[c] (with the
 *    stream kernel, in the same launch: its first thread blocks; after the
 *    vector kernel, in a launch of their own), then counts it in
 *    long_done[r] (fence, then atomic add); the warp whose count is the
 *    row's last adds the row's partials in chunk order (lane l: chunks l,
 *    l + 32, ...; then shuffles) and writes y, and sets long_done[r] back
 *    to 0. No second pass: one launch a call with the stream kernel;
 *  - warp kernel (kernel=warp): rows of length <= long_len (at most
 *    SPX__CUDA_CSR_SEGMENT) cut, in order, into warp segments of at most 32
 *    rows and SPX__CUDA_CSR_SEGMENT nonzeros (records as the row blocks'),
 *    each loaded from the multiple of SPX__CUDA_CSR_ALIGN at or before its
 *    first nonzero (whole 32-byte sectors of columns), gathered and summed
 *    by one warp with no block barrier; long rows as the stream kernel's,
 *    in the same launch;
 *  - lean kernel (kernel=lean, fp16 plans only; no default picks it): the warp
 *    kernel's segments and chunks, the same records, in 32 registers a
 *    thread (8 thread blocks a multiprocessor) where the warp kernel takes
 *    48 (5): each warp takes chunks, then segments, in one loop, with its
 *    nonzeros in pairs (8-byte column and 4-byte half2 value loads);
 *  - index=dict (stream kernel, csr_dict.c): the row blocks' columns as
 *    one-byte codes into a dictionary of diagonals per block, col = row +
 *    dict[code], and the rows' ends as 16-bit offsets into their block;
 *  - values=iso (every kernel): a matrix of one value v is stored without
 *    values, the kernels sum x[col] alone and alpha * v scales the sums;
 *  - spx_plan_update_values: the values are in A's CSR order (A.values) but
 *    for index=dict's row blocks, whose values sit at their codes' places
 *    (dict_values): those are refilled block by block from the values in CSR
 *    order, each block's first nonzero in A kept at analyze (dict_first, 8
 *    bytes a row block of up to 2048 nonzeros; no slot map).
 * Every sum has a fixed order: results do not change from call to call. */
#ifndef SPX_CUDA_CSR_KERNELS_H
#define SPX_CUDA_CSR_KERNELS_H

#include <stdint.h>

#include "cuda/gateway.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_CSR_CHUNK 256           /* a multiple of 32 */
#define SPX__CUDA_CSR_ALIGN 8             /* a warp segment's loads start at a multiple of 8 */
/* Most nonzeros of a warp segment: from its aligned start, a warp's 8 loads
 * a lane cover it. */
#define SPX__CUDA_CSR_SEGMENT (SPX__CUDA_CSR_CHUNK - SPX__CUDA_CSR_ALIGN + 1)
#define SPX__CUDA_CSR_BLOCK 256           /* threads per block, rows per row block */
#define SPX__CUDA_CSR_STREAM_NNZ 2048     /* nonzeros per row block (default) */
#define SPX__CUDA_CSR_STREAM_NNZ_MIN 1024 /* blocknnz=1024 */
#define SPX__CUDA_CSR_DICT 256            /* most dictionary entries of a row block */
/* SpMM (csr_spmm.cu): rows of more nonzeros than SPX__CUDA_SPMM_LONG are cut
 * into chunks of SPX__CUDA_SPMM_CHUNK (from the row's start), a warp each,
 * whose sums of up to SPX__CUDA_SPMM_PASS columns at a time go to partial
 * sums and are added in chunk order. */
#ifndef SPX__CUDA_SPMM_LONG /* -D for experiments (C and CUDA flags alike) */
#define SPX__CUDA_SPMM_LONG 256
#endif
#ifndef SPX__CUDA_SPMM_CHUNK
#define SPX__CUDA_SPMM_CHUNK 256
#endif
#define SPX__CUDA_SPMM_PASS 64
enum {
    SPX__CUDA_CSR_STREAM = 0,
    SPX__CUDA_CSR_VECTOR = 1,
    SPX__CUDA_CSR_WARP = 2,
    SPX__CUDA_CSR_LEAN = 3 /* fp16 plans */
};

/* index=dict: row blocks whose nonzeros name their column by a one-byte code
 * into the block's dictionary of offsets col - row (csr_dict.c). Host arrays
 * as built, or device arrays in a plan. */
typedef struct spx__csr_dict {
    int64_t n_blocks;  /* row blocks */
    int64_t n_entries; /* dictionary entries over all blocks */
    int64_t n_codes;   /* length of code: the blocks' nonzeros, each block padded to 8 */
    int64_t *blk;      /* 4 * n_blocks: first row, end row, first code, end code (the
                          first a multiple of 8; end - first the block's nonzeros) */
    int32_t *dstart;   /* n_blocks + 1: each block's first entry in dict */
    int32_t *dict;     /* n_entries: offsets col - row */
    uint8_t *code;     /* n_codes: each nonzero's entry in its block's dictionary, in
                          the block's order; 0 in the gaps */
    uint16_t *roff;    /* rows: each row's end, counted from its block's first nonzero */
    uint8_t *grow;     /* n_codes / 8: the row of codes 8g, counted from its block's first
                          row (0 in the gaps) */
} spx__csr_dict;

/* Row blocks of A (rows up to long_len <= SPX__CUDA_CSR_DICT entries, at most
 * cap nonzeros a block) with their dictionaries, on the host. *fits = 0 and
 * nothing allocated when the blocks would need more than max_entries entries
 * (a bound for a rule that takes dict only when it is compact; the format
 * passes INT64_MAX: index=dict is asked for). */
spx_status spx__csr_dict_build(const spx_matrix *A, int64_t long_len, int64_t cap,
                               int64_t max_entries, spx__csr_dict *out, int *fits);
void spx__csr_dict_free(spx__csr_dict *d); /* host arrays; zeroes *d */

typedef struct spx__cuda_csr_plan {
    spx__cuda_csr A;     /* device CSR; values in the plan's precision */
    spx_type precision;  /* F64: double x, y; F32: float; F16: half values, float y */
    int x_half;          /* F16 with xtype=half: x in IEEE half, else float */
    int kernel;          /* for rows up to long_len: SPX__CUDA_CSR_STREAM, _VECTOR, _WARP or
                            _LEAN (F16 plans only) */
    int group;           /* vector kernel: lanes per row, 1, 2, 4, 8, 16, 32 */
    int64_t long_len;    /* rows longer than this go to the chunk kernels */
    int64_t block_nnz;   /* stream kernel: most nonzeros of a row block (2048, or
                            1024 with blocknnz=1024) */
    int64_t seq;         /* stream kernel: most products a lane adds in turn in a row
                            block of several rows (0: no bound; csr_format.c) */
    int64_t n_blocks;    /* stream kernel: row blocks; warp and lean kernels: warp segments */
    int64_t grid;        /* stream kernel: thread blocks (looping over the row
                            blocks), 0 for one per row block */
    int64_t *blk;        /* device, 4 * n_blocks: first row, end row, first nonzero,
                            end nonzero of each row block (warp segment) */
    int64_t n_long;      /* number of long rows */
    int64_t n_chunks;    /* chunks over all long rows */
    int64_t *long_rows;  /* device, n_long: row index of each long row */
    int64_t *long_first; /* device, n_long+1: first chunk of each long row */
    int64_t *chunk_beg;  /* device, n_chunks: first nonzero of each chunk */
    int64_t *chunk_end;  /* device, n_chunks: one past its last nonzero */
    int64_t *chunk_long; /* device, n_chunks: the long row (0..n_long-1) of each chunk */
    void *partial;       /* device, n_chunks sums (double for F64, else float);
                            scratch written by each call, so calls on one plan are
                            ordered by its one stream */
    unsigned *long_done; /* device, n_long: chunks of each long row summed so far in the
                            running call; zero at plan time and between calls (the
                            row's last chunk resets it), which the one stream keeps
                            true: a call's counts come after the call before ended */
    void *stream;        /* cudaStream_t of the plan (NULL = default stream) */
    int pdl;             /* launches may overlap the kernel before (cuda/pdl.cuh) */
    int index_dict;      /* stream kernel's row blocks read dict (A.rowptr unused; A.colidx
                            only for long rows, NULL without them) */
    spx__csr_dict dict;  /* device arrays; dict.blk is unused (blk holds the blocks) */
    void *dict_values;   /* device, dict.n_codes values in the blocks' order (0 in the gaps) */
    int64_t *dict_first; /* device, n_blocks (index=dict): each row block's first nonzero
                            in A's CSR order, where its values come from on an update */
    int grid_fit;        /* index=dict without ctas=: grid is dict_grid's, for the kernels
                            of the plan's values (redone when an iso plan starts storing) */
    int values_mode;     /* values=: SPX__VALUES_AUTO, _STORED or _ISO (core/iso.h) */
    int iso;             /* values=iso (core/iso.h): A.values and dict_values are NULL,
                            the kernels read no values and iso_value is folded into
                            alpha (double for F64, a float's value otherwise) */
    double iso_value;
    int device_matrix;       /* A is a device matrix (spx_matrix_wrap_device): A's arrays are
                                the caller's, never freed here, but for the two below */
    int64_t *widened_rowptr; /* device, rows+1: the caller's 32-bit offsets as int64
                                (A.rowptr points here), else NULL */
    void *converted_values;  /* device, nnz: the plan's own values (A.values points here):
                                the caller's in the plan's precision, or those of an
                                update (never written into the caller's); else NULL */
    int64_t spmm_n_long;     /* SpMM plans: rows longer than SPX__CUDA_SPMM_LONG */
    int64_t *spmm_long;      /* device, spmm_n_long: their indices, in order */
    int64_t *spmm_long_first; /* device, spmm_n_long + 1: each long row's first chunk */
    int64_t spmm_n_chunks;    /* chunks of SPX__CUDA_SPMM_CHUNK over the long rows */
    int64_t *spmm_chunk_long; /* device, spmm_n_chunks: each chunk's long row (0..n_long-1) */
    void *spmm_partial;       /* device, spmm_n_chunks * SPX__CUDA_SPMM_PASS sums (double
                                 for F64, else float): scratch of each call */
    int sddmm;                /* an SDDMM plan: A.rowptr and A.colidx alone, and: */
    int32_t *sddmm_row;       /* device, nnz: each entry's row */
} spx__cuda_csr_plan;

/* fp16 plans: SPX_ERR_UNSUPPORTED (a decline, naming `who` and the entry)
 * when a value of A is beyond half's range (|v| > 65504) or not a number,
 * rather than computing with infinities. Host code (csr_format.c). */
spx_status spx__cuda_check_half_range(const spx_matrix *A, const char *who);

/* What a CUDA plan with an iso path (csr, sell) does with the n new values
 * of an update (spx_plan_update_values: the plan's vector type, double for
 * F64 and float otherwise, in device memory when on_device), as a new plan
 * of them would decide, looked at on the host (read over on the plan's
 * stream) when the decision needs them (an iso plan, an fp16 plan):
 *  - an iso plan (was_iso) and values of one number: *iso = 1, *v the
 *    number (spx__values_iso_array), taken in place;
 *  - an iso plan made with values=iso (mode) and varied values:
 *    SPX_ERR_UNSUPPORTED;
 *  - an fp16 plan and a value beyond half's range or NaN: SPX_ERR_UNSUPPORTED,
 *    as analyze declines it (spx__cuda_check_half_range);
 *  - else SPX_OK, *iso = 0: the plan stores them.
 * who names the format in the messages. Host code (csr_format.c). */
spx_status spx__cuda_update_decide(const void *values, int on_device, int64_t n, spx_type precision,
                                   int was_iso, int mode, void *stream, const char *who, int *iso,
                                   double *v);

/* The csr method's gateway (cuda/gateway.h; src/cuda/csr/csr_spmv.cu):
 * - dict_grid: index=dict thread blocks, as many as fit the device at once
 *   (the kernel loops over the row blocks and loads the next one while it
 *   works on this one), at most n_blocks;
 * - spmv: launch y = alpha*A*x + beta*y on p->stream (asynchronous); beta == 0
 *   never reads y; x and y are device vectors of the plan's precision (x in
 *   half with p->x_half);
 * - spmm (csr_spmm.cu): launch Y = alpha*A*X + beta*Y on p->stream, X and Y
 *   device arrays of T (double for fp64 plans, float otherwise), row-major
 *   with leading dimensions ldx, ldy >= k >= 1; a plain CSR plan (not
 *   index=dict) with its long rows' chunks listed (spmm_*);
 * - sddmm_rows (csr_sddmm.cu): allocate and fill p->sddmm_row from A.rowptr
 *   (waits for it);
 * - sddmm: launch Z[e] = alpha * X(i, :) . Y(j, :) + beta*Z[e] over A's entries
 *   on p->stream, X, Y and Z device arrays of T (as spmm), k >= 0;
 * - dict_refill: index=dict's values from src (A's nnz values in CSR order, of
 *   the plan's value type: double, float or half) into dst (dict.n_codes, the
 *   blocks' order: block b's at blk[4b + 2], from src[dict_first[b]]); gaps
 *   untouched; on p->stream, waited for. */
#define SPX__CUDA_CSR_API(S, Q, V)                                                                 \
    S(spx__cuda_csr_dict_grid, (const spx__cuda_csr_plan *p, int64_t *grid))                       \
    S(spx__cuda_csr_spmv,                                                                          \
      (const spx__cuda_csr_plan *p, double alpha, const void *x, double beta, void *y))            \
    S(spx__cuda_csr_spmm, (const spx__cuda_csr_plan *p, int64_t k, double alpha, const void *X,    \
                           int64_t ldx, double beta, void *Y, int64_t ldy))                        \
    S(spx__cuda_csr_sddmm_rows, (spx__cuda_csr_plan * p))                                          \
    S(spx__cuda_csr_sddmm, (const spx__cuda_csr_plan *p, int64_t k, double alpha, const void *X,   \
                            int64_t ldx, const void *Y, int64_t ldy, double beta, void *Z))        \
    S(spx__cuda_csr_dict_refill, (const spx__cuda_csr_plan *p, void *dst, const void *src))

SPX__CUDA_DECLARE(SPX__CUDA_CSR_API)

#ifdef __cplusplus
}
#endif
#endif
