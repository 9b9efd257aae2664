/* The device pieces of tsparse (the method: tsparse.h), one file each:
 * tsparse_tiles.cu (CSR -> tiles, tiles of C -> CSR), tsparse_tasks.cu (task
 * list, tiles of C, counting), tsparse_mma.cu (the tile products),
 * tsparse_run.cu (the gateway: panels, memory, host copies). */
#ifndef SPX_CUDA_SPGEMM_TSPARSE_DEV_CUH
#define SPX_CUDA_SPGEMM_TSPARSE_DEV_CUH

#include "cuda/spgemm/spgemm_dev.cuh"
#include "cuda/spgemm/tsparse.h"

namespace spx_tsparse {

using namespace spgemm_dev;

/* T = the tiles of M (a device CSR with values of the tiles' type, half or
 * double); nothing stays allocated on failure. */
spx_status tiles_build(const spx__cuda_csr *M, cudaStream_t s, spx__cuda_tiles *T);
void tiles_free(spx__cuda_tiles *T, cudaStream_t s);

/* offset[t] for every tile t of A: the tasks of the tiles before t (the
 * surviving pairs of each tile, summed); offset has A->ntiles + 1 entries,
 * the last the total. */
spx_status task_offsets(const spx__cuda_tiles *A, const spx__cuda_tiles *B, cudaStream_t s,
                        int64_t *offset);

/* The sorted tasks of tile rows [I0, I1) of A and their tiles of C. */
struct panel_tasks {
    int64_t n;        /* tasks */
    int32_t *key;     /* n: J of the task's tile of B */
    uint64_t *pair;   /* n: tile of A << 32 | tile of B */
    int64_t nc;       /* tiles of C */
    int64_t *cstart;  /* nc + 1: first task of each tile of C */
};
/* Write, sort and group the n tasks of tile rows [I0, I1) of A, whose tiles
 * are [a0, a1); offset as made by task_offsets, base = offset[a0]. */
spx_status tasks_build(const spx__cuda_tiles *A, const spx__cuda_tiles *B, int64_t I0, int64_t I1,
                       int64_t a0, int64_t a1, const int64_t *offset, int64_t base, int64_t n,
                       cudaStream_t s, panel_tasks *P);
void tasks_free(panel_tasks *P, cudaStream_t s);

/* The tiles of C of a panel: pattern bits (counting), values at off in bit
 * order (float for fp16 plans, double for fp64), nz the bits whose value is
 * not 0 (after the multiply). */
struct ctiles {
    int64_t n, nvals;
    int32_t *row, *col;
    uint64_t *bits, *nz;
    int64_t *off;     /* n + 1 */
    void *val;        /* nvals */
};
/* Counting: row, col, bits and off of P's tiles of C, nvals; val is not
 * allocated yet. */
spx_status ctiles_count(const spx__cuda_tiles *A, const spx__cuda_tiles *B, const panel_tasks *P,
                        cudaStream_t s, ctiles *C);
/* The tile products into C->val and C->nz (allocated by the caller). */
spx_status ctiles_multiply(const spx__cuda_tiles *A, const spx__cuda_tiles *B,
                           const panel_tasks *P, spx_type precision, cudaStream_t s, ctiles *C);
/* Rows [8 I0, min(8 I1, rows)) of C in CSR on the host, entries of value 0
 * dropped (cols: C's columns). */
spx_status ctiles_to_host(const ctiles *C, int64_t I0, int64_t I1, int64_t rows, int64_t cols,
                          spx_type precision, double unscale, cudaStream_t s, spx_matrix **piece);
/* All rows of C (one panel) as a new device matrix D (64-bit offsets, fp64
 * values, entries of value 0 dropped) whose arrays come from SpX's pool
 * (pool_kept) or cudaMalloc; waits for s. */
spx_status ctiles_to_device(const ctiles *C, int64_t rows, int64_t cols, spx_type precision,
                            double unscale, cudaStream_t s, spx_matrix **D);
void ctiles_free(ctiles *C, cudaStream_t s);

} // namespace spx_tsparse

#endif
