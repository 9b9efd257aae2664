/* SpX over MPI: one matrix distributed over the ranks of a communicator
 * (libspx_mpi, built when MPI is found; link it before libspx).
 *
 * Each rank holds one part of A, cut by a partition kind of spx.h (pcsr,
 * pcoo and rows: row ranges, pcsr and pcoo by equal nonzeros; pcsc: column
 * ranges by equal nonzeros), on its CPU or its GPU. Vectors are distributed
 * too: each rank owns a range of y (rows) and a range of x (columns), given
 * by spx_dist_matrix_layout; for a square matrix both are the same range.
 * A part that touches rows or columns owned elsewhere gets, before each
 * product, only the x entries its columns need (a halo computed once at plan
 * time, like PETSc's VecScatter), and sends the partial sums of rows owned
 * elsewhere to their owners, who add them in rank order: for a fixed number
 * of ranks the result is the same bits every call. The halo exchange runs
 * while the rank multiplies the block of its own columns.
 *
 * Every function taking a communicator or a distributed object is
 * collective. A failure on any rank (bad input, no memory, an MPI error) is
 * returned on every rank with the failing rank's status and message, and no
 * rank is left waiting. MPI errors are SPX_ERR_IO with MPI's text. MPI must
 * be initialised by the caller. */
#ifndef SPX_MPI_H
#define SPX_MPI_H

#include <mpi.h>

#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spx_dist_matrix_s spx_dist_matrix;
typedef struct spx_dist_plan_s spx_dist_plan;

/* Every rank holds the same A; each keeps its own part (pcsr, pcoo, rows: a
 * view into A, which must outlive D; pcsc: of A^T, made here). More ranks
 * than rows (pcsc: columns) is SPX_ERR_INVALID_ARG on every rank. */
spx_status spx_dist_matrix_from_global(MPI_Comm comm,           /* in: duplicated */
                                       const spx_matrix *A,     /* in: borrowed, every rank */
                                       spx_partition kind,      /* in */
                                       spx_dist_matrix **D);    /* out: owned by the caller */

/* A Matrix Market coordinate file read in parallel: rank r parses the
 * r-th slice of the file's bytes (a .mtx.gz file: rank 0 inflates it and
 * sends each rank its slice, never holding the whole file), the entries
 * travel to the ranks that hold them (symmetric files mirrored, duplicates
 * summed), so no rank holds more than its part and O(rows + columns)
 * counts. pcoo is cut as pcsr (its boundaries are the same). */
spx_status spx_dist_read_mtx(MPI_Comm comm, const char *path, spx_partition kind,
                             spx_dist_matrix **D /* out */);

/* Collective (it frees D's communicator); NULL is a no-op. */
void spx_dist_matrix_destroy(spx_dist_matrix *D);

/* What this rank holds and owns. */
typedef struct spx_dist_layout {
    int64_t rows, cols, nnz;    /* the whole matrix */
    int64_t row_begin, row_end; /* the entries of y this rank owns */
    int64_t col_begin, col_end; /* the entries of x this rank owns */
    int64_t local_nnz;          /* nonzeros of its part */
    int rank, size;
} spx_dist_layout;
spx_status spx_dist_matrix_layout(const spx_dist_matrix *D, spx_dist_layout *l /* out */);

/* Plan this rank's part with o (format, "auto" per block, precision,
 * threads, params; device SPX_DEV_CUDA: the GPU numbered by the rank's
 * place on its node, modulo the GPUs there). op must be SPX_OP_N. D must
 * outlive P. */
spx_status spx_dist_plan_create(const spx_dist_matrix *D, const spx_plan_opts *o,
                                spx_dist_plan **P /* out: owned by the caller */);
/* NULL is a no-op. Not collective, except for a GPU plan (device
 * SPX_DEV_CUDA): its ranks may map each other's device buffers (resident
 * calls between ranks of one host copy device to device, without a
 * CUDA-aware MPI), so every rank destroys it, as it created it. */
void spx_dist_plan_destroy(spx_dist_plan *P);

/* y = alpha*A*x + beta*y on distributed host vectors of the plan's precision
 * (double for F64, float otherwise): x holds this rank's x entries
 * (col_end - col_begin of them), y its y entries (row_end - row_begin);
 * beta == 0: y is not read. A length that differs from the layout on any
 * rank is SPX_ERR_DIM_MISMATCH on every rank. */
spx_status spx_dist_spmv(spx_dist_plan *P, double alpha, const void *x, int64_t x_len,
                         double beta, void *y, int64_t y_len);

/* The same product on vectors resident on this rank's GPU (a plan made
 * with device SPX_DEV_CUDA): x and y are device memory of the GPU
 * spx_dist_plan_device names, of the same lengths and types as above. Only
 * the x entries other ranks need and the partial sums of rows owned
 * elsewhere move: device to device between ranks of one host (CUDA IPC,
 * set up by spx_dist_plan_create; SPX_DIST_IPC=0 in the environment turns
 * it off; the receiving GPU's threads read its peers' entries, or with
 * SPX_DIST_PULL=0 one copy a peer by the copy engines), else through pinned host buffers and MPI
 * (no CUDA-aware MPI needed); y is complete when the call returns, and the same bits as
 * spx_dist_spmv gives. A CPU plan, host memory or another device's memory
 * is SPX_ERR_INVALID_ARG (a CPU plan: SPX_ERR_UNSUPPORTED) on every rank,
 * as is a call where some ranks call spx_dist_spmv and others this. */
spx_status spx_dist_spmv_device(spx_dist_plan *P, double alpha, const void *x, int64_t x_len,
                                double beta, void *y, int64_t y_len);
/* The CUDA device of this rank's plan, or -1 for a CPU plan (or NULL). */
int spx_dist_plan_device(const spx_dist_plan *P);

/* CG, BiCGSTAB and GMRES (spx.h's spx_cg, spx_bicgstab, spx_gmres: the same
 * options, info and statuses) on a distributed plan of a square matrix:
 * b and x are this rank's host entries (row_end - row_begin of each, the
 * plan's precision), x the first guess in and the solution out. Products
 * by spx_dist_spmv (a GPU plan too, through host vectors); a dot is each
 * rank's sum gathered by every rank and added in rank order, so every rank
 * takes the same steps and, for a fixed rank count, a solve gives the same
 * bits every run (not the one-process bits: the sums are cut differently).
 * o->jacobi: the Jacobi preconditioner, its diagonal gathered from the
 * parts (no A needed). info->ms is this rank's wall time; history and
 * callback are each rank's (every rank sees the same residuals), and the
 * solve stops on every rank where any rank's callback asks. A length
 * that differs from the layout, a NULL vector or any rank's failure is
 * returned on every rank. */
spx_status spx_dist_cg(spx_dist_plan *P, const void *b, int64_t b_len, void *x, int64_t x_len,
                       const spx_solve_opts *o, spx_solve_info *info /* out, may be NULL */);
spx_status spx_dist_bicgstab(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                             int64_t x_len, const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_dist_gmres(spx_dist_plan *P, const void *b, int64_t b_len, void *x, int64_t x_len,
                          const spx_solve_opts *o, spx_solve_info *info);
/* The same solves on vectors resident on this rank's GPU (a plan made with
 * device SPX_DEV_CUDA; b and x device memory of spx_dist_plan_device's GPU):
 * products by spx_dist_spmv_device, vector operations on the GPU, each dot
 * brought to the host to be added over the ranks. The ranks' steps agree
 * as above; the bits may differ from the host-vector solve's (the GPU sums
 * in another order). A CPU plan is SPX_ERR_UNSUPPORTED, host memory
 * SPX_ERR_INVALID_ARG, on every rank. */
spx_status spx_dist_cg_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                              int64_t x_len, const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_dist_bicgstab_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                                    int64_t x_len, const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_dist_gmres_device(spx_dist_plan *P, const void *b, int64_t b_len, void *x,
                                 int64_t x_len, const spx_solve_opts *o, spx_solve_info *info);

/* spx_eigsh (spx.h: the same options, info and statuses) on a distributed
 * plan of a symmetric matrix: values (k doubles) on every rank, and vectors
 * (or NULL) this rank's entries of the k eigenvectors, row_end - row_begin
 * of each, one after another, in host memory (spx_dist_eigsh) or in the
 * memory of the rank's GPU (spx_dist_eigsh_device, a plan on a GPU). The
 * start vectors depend on the global index only, and the ranks' dots are
 * added in rank order, so every rank takes the same steps and a fixed rank
 * count gives the same bits every run. */
spx_status spx_dist_eigsh(spx_dist_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                          spx_eig_info *info /* out, may be NULL */);
spx_status spx_dist_eigsh_device(spx_dist_plan *P, const spx_eig_opts *o, double *values,
                                 void *vectors, spx_eig_info *info);

/* A distributed vector of the layout's rows (y) or columns (x), entries of
 * type t (SPX_F64 double, SPX_F32 float), gathered whole on root or
 * scattered from root (global: significant on root only). */
typedef enum spx_dist_axis { SPX_DIST_ROWS = 0, SPX_DIST_COLS = 1 } spx_dist_axis;
spx_status spx_dist_gather(const spx_dist_matrix *D, spx_dist_axis axis, spx_type t,
                           const void *local, void *global, int root);
spx_status spx_dist_scatter(const spx_dist_matrix *D, spx_dist_axis axis, spx_type t,
                            const void *global, void *local, int root);

/* This rank's share of the plan and of its last call. */
typedef struct spx_dist_info {
    int halo_sources, halo_targets; /* ranks it receives x from, sends x to */
    int64_t halo_recv, halo_send;   /* x entries received and sent per product */
    int64_t partial_send, partial_recv; /* partial sums of rows owned elsewhere */
    int64_t recv_bytes;       /* bytes this rank receives per product */
    int64_t allgather_bytes;  /* what an allgather of x would bring it */
    const char *exchange;     /* how resident calls (spx_dist_spmv_device) move what
                                 crosses ranks: "mpi" (pinned host buffers; every
                                 CPU plan), or with same-host ranks, whose buffers
                                 this rank's GPU maps, "ipc threads" (its threads read
                                 them) or "ipc copies" (one copy a peer); ranks on
                                 other hosts go through MPI either way */
    const char *formats[4];   /* the blocks' formats: own rows x own columns, own
                                 rows x halo, other ranks' rows x own columns,
                                 other ranks' rows x halo ("-": empty block) */
    double prep_ms;           /* plan creation, this rank */
    double local_ms;          /* last call: the blocks of its own columns */
    double halo_wait_ms;      /* last call: waiting for x entries after them */
    double remote_ms;         /* last call: the blocks of halo columns */
    double partial_ms;        /* last call: partial sums sent, received, added */
    double call_ms;           /* last call: the whole call */
} spx_dist_info;
spx_status spx_dist_plan_info(const spx_dist_plan *P, spx_dist_info *info /* out */);

#ifdef __cplusplus
}
#endif
#endif
