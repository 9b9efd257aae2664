/* The device pieces of gpu-rows (the method: rows.h): the hash kernels
 * (rows_hash.cu) and the pipeline that bins the rows and launches them
 * (rows_run.cu). */
#ifndef SPX_CUDA_SPGEMM_ROWS_DEV_CUH
#define SPX_CUDA_SPGEMM_ROWS_DEV_CUH

#include "cuda/spgemm/rows.h"
#include "cuda/spgemm/spgemm_dev.cuh"

namespace spx_rows {

using namespace spgemm_dev;

/* Bins of rows by their bound b (products in the symbolic phase, entries of
 * C in the numeric one): bin 0 holds b = 0, bin k = 1..7 holds b <= 2^(k+4)
 * (a shared table of 2^(k+5) slots, at most half full), bin 8 the rest. */
constexpr int BINS = 9;
constexpr int BIG = BINS - 1;
constexpr int64_t bin_bound(int k) { return (int64_t)1 << (k + 4); }
constexpr int64_t bin_slots(int k) { return (int64_t)1 << (k + 5); }
/* Symbolic, bin 8: a shared table of 8192 keys, given up past 6144 columns. */
constexpr int64_t BIG_SLOTS = 8192;
constexpr int BIG_LIMIT = 6144;

struct csr_in {
    const int64_t *rp;
    const int32_t *col;
    const void *val; /* double or float */
};

/* One launch's work: rows[0..nrows) of A (row indices), and per phase its
 * outputs. Global tables: row r's table is toff[r] - tbase .. toff[r + 1] -
 * tbase of gkeys (and gvals). */
struct hash_job {
    csr_in A, B;
    const int32_t *rows;
    int64_t nrows;
    int64_t *cnt;               /* symbolic: distinct columns (-1: gave up) */
    int32_t *over;              /* symbolic: rows that gave up */
    unsigned long long *n_over; /* their count */
    const int64_t *rowptr;      /* numeric: C's row offsets */
    int32_t *ccol;              /* C's entries cbase.. (a row panel's) */
    double *cval;
    int64_t cbase;
    const int64_t *toff;
    int64_t tbase;
    int32_t *gkeys;
    void *gvals;
    int sort_table; /* numeric: sort the whole table (sort=table), not its filled slots */
};

/* Bins 1..8 with shared tables (numeric: 1..7; wide: a block of 256
 * threads a row where a warp would take it); the global tables. */
spx_status symbolic_shared(int bin, const hash_job &J, cudaStream_t s);
spx_status numeric_shared(int bin, const hash_job &J, bool wide, spx_type precision,
                          cudaStream_t s);
spx_status symbolic_global(const hash_job &J, cudaStream_t s);
spx_status numeric_global(const hash_job &J, spx_type precision, cudaStream_t s);

/* The long rows with dense accumulators instead (rows_dense.cu): for B of
 * at most DENSE_MAX_COLS columns whose bitmap fits a block's shared memory
 * (dense_fits). */
constexpr int64_t DENSE_MAX_COLS = (int64_t)1 << 20;
/* An attribute of the current device (rows_dense.cu). */
int device_attribute(cudaDeviceAttr a);
bool dense_fits(int64_t cols);
spx_status symbolic_dense(const hash_job &J, int64_t cols, cudaStream_t s);
spx_status numeric_dense(const hash_job &J, int64_t cols, spx_type precision, bool rank,
                         cudaStream_t s);

/* The long rows' numeric phase summed in C through a bitmap's ranks
 * (rows_rank.cu), for B of at most DENSE_MAX_COLS columns whose bitmap and
 * ranks fit a block's shared memory (rank_fits); numeric_dense takes it
 * (rank) where its sums would not fit shared memory. */
bool rank_fits(int64_t cols);
spx_status numeric_rank(const hash_job &J, int64_t cols, spx_type precision, cudaStream_t s);

/* spx_spgemm_numeric's memo of a device C (rows_memo.cu). build: the list
 * of each entry's products for A*B, checking on the way that C's pattern
 * is A*B's (*match), held by C; *built false (nothing done) where the memo
 * would pass 2^32 products or entries or the memory it may take. run: C's
 * values from the memo, B's pattern hashed on the device first (*hash);
 * *same false, C untouched, where that is not the memo's hash. */
spx_status memo_build(const spx__cuda_csr &A, const spx__cuda_csr &B, spx_matrix *C,
                      cudaStream_t s, bool *built, bool *match);
spx_status memo_run(const spx__cuda_csr &A, const spx__cuda_csr &B, spx_matrix *C,
                    cudaStream_t s, bool *same, uint64_t *hash);

} // namespace spx_rows

#endif
