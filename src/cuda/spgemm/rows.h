/* The CUDA `gpu-rows` SpGEMM: C = A*B row by row with hash accumulators, the
 * GPU baseline beside tsparse (the scheme of the hash-based GPU SpGEMMs the
 * tSparse paper measures against: Nsparse, spECK, cuSPARSE).
 *
 * 1. products f_i = sum over k in A(i,:) of nnz(B(k,:)), a thread a row;
 * 2. symbolic: rows binned by f_i; a bin of bound b takes a hash table of
 *    T = 2^ceil(log2(2b)) column keys in shared memory (a warp a row for
 *    T <= 512, a block a row above) and counts the distinct columns; rows of
 *    more than 2048 products (bin 8) set bits in a bitmap of B's columns in
 *    shared memory (rows_dense.cu) where B has at most 2^20 columns;
 *    otherwise they try a table of 8192 keys and stop at 6144 columns, and
 *    those that pass it go again with a table in global memory (2 min(f_i,
 *    cols) slots, rounded up to a power of two);
 * 3. the counts' prefix sum gives C's row offsets and its exact size;
 * 4. numeric: rows binned again by their exact count, tables of keys and
 *    sums (atomicAdd), shared memory up to 2048 entries a row (a bin of few
 *    rows of many products each takes, where a warp a row would leave the
 *    GPU idle, the dense accumulators below when B has at most 8192
 *    columns, else a block of 256 threads a row: rows_run.cu); each row's
 *    filled slots are moved to the table's front, sorted (bitonic over the
 *    next power of two) and written: columns sorted. Longer rows: the bitmap and a dense row of
 *    sums in shared memory when it fits, read out in column order, no sort;
 *    else the bitmap read out first, C's columns written at its ranks, and
 *    the products added into C's values at them (rows_rank.cu; rank=off:
 *    one row of cols sums per thread block in global memory);
 *    above 2^20 columns, hash tables in global memory;
 * When C does not fit the device, steps 4 and 5 run in row panels of
 * PANEL_SHARE of the free memory (param panel_nnz caps a panel's entries).
 * 5. C's CSR to the host (a host B; a device B leaves C on the device, in
 *    arrays allocated whole, no panels), into host arrays allocated once C's size is known
 *    and touched by the host's cores while the GPU runs step 4 (a copy into
 *    fresh memory ran at 17 GB/s, into touched memory at 44 GB/s on the H100
 *    machine: bench/experiments/gpu-download).
 * A group (warp or block) takes its row's entries of A in chunks as wide as
 * the group; a prefix sum over the chunk's B row lengths lets each thread
 * take every GROUP-th product of the chunk (a binary search finds its entry
 * of A), so short and long rows of B keep every thread busy. Sums are formed
 * by atomicAdd in an order that may change from run to run (the last bits
 * of C's values may too). C keeps the symbolic pattern (entries whose
 * products cancel are explicit zeros, as gustavson's).
 * Precisions: fp64 (double sums), fp32 (float values and sums); C in fp64. */
#ifndef SPX_CUDA_SPGEMM_ROWS_H
#define SPX_CUDA_SPGEMM_ROWS_H

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameter long=auto|dense|hash: bin 8 with dense bitmaps and sums where
 * B's columns allow them (auto), always (dense: SPX_ERR_UNSUPPORTED past
 * them), or with hash tables (hash). */
enum { SPX__ROWS_LONG_AUTO, SPX__ROWS_LONG_DENSE, SPX__ROWS_LONG_HASH };
/* Parameter wide=auto|off|on|dense: numeric bins of few rows of many
 * products take dense accumulators where B has at most 8192 columns, else a
 * block a row (auto); a warp a row like the others; always a block a row; or
 * dense accumulators wherever B's columns allow them (rows_run.cu). */
enum { SPX__ROWS_WIDE_OFF, SPX__ROWS_WIDE_ON, SPX__ROWS_WIDE_DENSE, SPX__ROWS_WIDE_AUTO };

typedef struct spx__cuda_rows_plan {
    spx__cuda_csr A;    /* device, values of the precision: held's arrays, or a device
                           matrix's read in place */
    spx__cuda_csr held; /* the arrays the plan owns: A uploaded (host A), or a device A's
                           widened offsets and converted values (NULL where read in place) */
    int a_device;       /* A was a device matrix (spx_matrix_wrap_device) */
    spx_type precision; /* SPX_F64 or SPX_F32 */
    double max_abs_a;   /* largest |a_ij| (fp32: products checked against float's range) */
    int long_rows;      /* SPX__ROWS_LONG_*: how bin 8 (rows of 2048+) accumulates */
    int prefault;       /* touch C's host pages while the numeric phase runs (step 5) */
    int64_t panel_nnz;  /* most entries of C a row panel holds on the device; 0: from the memory */
    int wide;           /* SPX__ROWS_WIDE_*: numeric bins of few long rows (rows_run.cu) */
    int sort_table;     /* sort=table: a numeric row sorts its whole hash table, not only
                           its filled slots (rows_hash.cu; for measuring) */
    int pool_keep;      /* pool=keep (1): scratch and a device C from SpX's pool, which
                           keeps memory across host waits; release (0): the default pool
                           and cudaMalloc, as before (spgemm_dev.cuh; for measuring) */
    int last_panels;    /* row panels of the last product (atomic: concurrent products) */
    int memo;           /* memo=on (1): spx_spgemm_numeric from a list of C's products
                           (rows_memo.cu); off (0): the numeric phase (for measuring) */
    int rank;           /* rank=on (1): long rows whose dense sums pass shared memory are
                           summed in C through a bitmap's ranks (rows_rank.cu); off (0):
                           in a row of sums in global memory (rows_dense.cu; for measuring) */
    uint64_t serial;    /* this plan among every gpu-rows plan of the process (a device C
                           keyed for spx_spgemm_numeric names it) */
    void *stream;       /* cudaStream_t (NULL: the default stream) */
} spx__cuda_rows_plan;

/* The gpu-rows gateway (src/cuda/spgemm/rows_run.cu): free_bytes: device
 * memory free now (a test hook: a destroyed device C gives its bytes back);
 * multiply: *C = A*B
 * (fp64 values, sorted columns): with Bdev NULL, B is a host matrix,
 * uploaded, and C a host matrix; else Bdev is B's arrays on the device
 * (rows_format.c: a device B read in place) and C a device matrix SpX owns
 * (spx__matrix_device_adopt), allocated whole (SPX_ERR_OOM when it does not
 * fit, or passes panel_nnz); numeric: C's values again for a device B
 * (Bdev) of the pattern that made the device C (spx_spgemm_numeric: the
 * numeric phase into C's arrays, after a symbolic check of C's pattern the
 * first time C meets this plan and B pattern). */
#define SPX__CUDA_ROWS_API(S, Q, V)                                                                \
    S(spx__cuda_rows_multiply, (const spx__cuda_rows_plan *p, const spx_matrix *B,                 \
                                const spx__cuda_csr *Bdev, spx_matrix **C))                        \
    S(spx__cuda_rows_numeric,                                                                      \
      (const spx__cuda_rows_plan *p, const spx__cuda_csr *Bdev, spx_matrix *C))                    \
    Q(size_t, spx__cuda_rows_free_bytes, (void), 0)

SPX__CUDA_DECLARE(SPX__CUDA_ROWS_API)

#ifdef __cplusplus
}
#endif
#endif
