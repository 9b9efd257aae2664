/* The MPI executor's objects (include/spx_mpi.h).
 *
 * A distributed matrix: the communicator (a duplicate that returns MPI
 * errors), the partition kind, the global shape, every rank's owned ranges
 * of y (row_start) and x (col_start), and this rank's part as a CSR view of
 * lines (rows; columns of A for pcsc) [line_begin, line_end) whose other
 * index is global.
 *
 * A distributed plan splits the part's nonzeros by where their row and
 * column are owned into four ordinary plans (any registered format, AUTO
 * each), with rows and columns renumbered:
 *   own rows x own columns      y   += A_oo x          x: the caller's
 *   own rows x halo columns     y   += A_oh x_halo     x_halo: received
 *   other rows x own columns    f    = A_fo x          f: partial sums sent
 *   other rows x halo columns   f   += A_fh x_halo        to their owners
 * Halo columns are numbered in global order, so the entries from one owner
 * are one run of x_halo; likewise rows owned elsewhere in f. A product posts
 * the halo receives and sends, multiplies the own-column blocks meanwhile,
 * waits, multiplies the halo blocks, sends f, and adds what other ranks sent
 * for its rows in rank order. With vectors resident on a GPU rank's device
 * the same steps run there: the entries sent are gathered on the GPU, and
 * only they, the halo, and the partial sums cross to the host for MPI. */
#ifndef SPX_MULTI_MPI_DIST_H
#define SPX_MULTI_MPI_DIST_H

#include <mpi.h>

#include "io/mtx.h"
#include "multi/partition.h"
#include "spx_mpi.h"

#define SPX__DIST_MATRIX_MAGIC 0x5350584449535452ull /* "SPXDISTR" */
#define SPX__DIST_PLAN_MAGIC 0x53505844504c414eull   /* "SPXDPLAN" */

struct spx_dist_matrix_s {
    uint64_t magic;
    MPI_Comm comm;
    int rank, size;
    spx_partition kind;
    int64_t rows, cols, nnz;
    int64_t *row_start, *col_start; /* size+1: rank r owns y[row_start[r], row_start[r+1]) */
    spx__part part;                 /* this rank's lines and their CSR view */
    spx_matrix *source;             /* what the view points into when made here (A^T, or
                                       the lines read from a file), else NULL */
    int64_t *coo_lines;             /* from_global pcoo: the row of each nonzero */
};

enum { SPX__DIST_OO, SPX__DIST_OH, SPX__DIST_FO, SPX__DIST_FH, SPX__DIST_BLOCKS };

/* One direction of an exchange: with n peers, entries [off[k], off[k+1])
 * of a buffer go to (come from) rank peer[k]. */
typedef struct spx__dist_route {
    int n;
    int *peer;
    int64_t *off;
} spx__dist_route;

struct spx_dist_plan_s {
    uint64_t magic;
    const spx_dist_matrix *D;
    spx_type vtype;
    size_t es;
    MPI_Datatype mpi_type;
    int64_t own_rows, own_cols, halo, foreign;
    spx_matrix *block[SPX__DIST_BLOCKS];
    spx_plan *plan[SPX__DIST_BLOCKS];
    spx__dist_route halo_in, halo_out; /* x entries: received into x_halo, sent from x_send */
    int64_t *send_idx;                 /* own x index of each entry sent */
    spx__dist_route part_out, part_in; /* partial sums: sent from f, received into f_recv */
    int64_t *recv_idx;                 /* own y index of each partial received */
    void *x_halo, *x_send, *f, *f_recv;
    MPI_Request *req;                      /* room for every peer of both exchanges */
    int device;                            /* CUDA device, or -1 */
    void *stream, *dx, *dx_halo, *dy, *df; /* GPU ranks: device copies of the vectors */
    /* GPU ranks, for resident vectors (spx_dist_spmv_device): send_idx and
     * recv_idx as 32-bit device maps (NULL when an index does not fit), the
     * gathered x entries sent and the partial sums received */
    int32_t *dsend_map, *drecv_map;
    void *dx_send, *df_recv;
    int pinned; /* GPU ranks: x_halo, x_send, f, f_recv are pinned host memory */
    /* GPU ranks of one host, resident calls (dist_ipc.c): per peer of each
     * route, where this rank copies the peer's entries from, the peer's
     * x_send or f mapped here (NULL: they come through the host), and
     * whether a peer copies ours so (then only a ready message is sent) */
    int ipc;                           /* the arrays below are set */
    const void **halo_src, **part_src; /* halo_in.n, part_in.n entries */
    void **ipc_maps;                   /* the mappings to close, ipc_nmaps of them */
    int ipc_nmaps;
    char *halo_out_ipc, *part_out_ipc; /* halo_out.n, part_out.n entries */
    int halo_out_host, part_out_host;  /* some out-peer takes the host path */
    int ipc_pull; /* this GPU's threads read the mapped peers' entries (spx__cuda_pull,
                     one launch), not one copy a peer: where its kernels may read every
                     mapping and SPX_DIST_PULL=0 is not set (4 H200s, R-MAT 22: 0.358
                     against 0.380-0.390 ms a call; bench/results/overlap-rule-2026-11-27.md) */
    spx_dist_info info;
};

/* Collective agreement on a step's outcome: SPX_OK on every rank when it
 * succeeded everywhere, else on every rank the lowest failing rank's
 * status, with its message (prefixed with its rank on the others). */
spx_status spx__dist_agree(MPI_Comm comm, spx_status st);
/* The same, and SPX_ERR_INVALID_ARG on every rank (naming `what`) when the
 * ranks passed different values; one MPI_Allreduce when all went well. */
spx_status spx__dist_agree_same(MPI_Comm comm, spx_status st, int value, const char *what);
/* An MPI return code as a status (SPX_ERR_IO with MPI's text naming call). */
spx_status spx__dist_mpi(int rc, const char *call);
#define SPX__MPI_TRY(call) SPX_TRY(spx__dist_mpi((call), #call))

/* MPI datatype of an entry of type t (double or float). */
MPI_Datatype spx__dist_type(spx_type t);

/* A new distributed matrix on comm (duplicated, MPI errors returned) with
 * its shape and kind; ranges and part are set by the caller. */
spx_status spx__dist_matrix_new(MPI_Comm comm, spx_partition kind, int64_t rows, int64_t cols,
                                int64_t nnz, spx_dist_matrix **D);
/* The check every creator makes first: a known kind, at most one rank per
 * line (row; column for pcsc). */
spx_status spx__dist_check_shape(int size, spx_partition kind, int64_t rows, int64_t cols);
/* Once the part is set: every rank's owned ranges (all-gathered). */
spx_status spx__dist_ranges(spx_dist_matrix *D);

/* spx_dist_read_mtx of a .gz file (dist_read_gz.c), collective: every rank
 * gets the header (*h, checked against the rank count for kind) and its
 * slice of whole lines of the entry section (*buf, *len; a '\n' sentinel
 * and SPX__MTX_PAD zero bytes after it; slices in rank order are the file's
 * order), rank 0 inflating the stream; the status agreed on every rank. */
spx_status spx__dist_gz_slices(MPI_Comm comm, const char *path, spx_partition kind,
                               spx__mtx_header *h, char **buf, size_t *len);

/* The plan's four blocks from D's part, and the global indices of its halo
 * columns (P->halo of them) and of its rows owned elsewhere (P->foreign),
 * ascending (spx__free them). */
spx_status spx__dist_blocks(spx_dist_plan *P, int64_t **halo_cols, int64_t **foreign_rows);
/* The plan's two exchanges (routes, index lists, buffers): collective. */
spx_status spx__dist_routes(spx_dist_plan *P, const int64_t *halo_cols,
                            const int64_t *foreign_rows);
/* *diag = this rank's owned rows' diagonal entries A(i,i) (0 where none is
 * stored; a pattern matrix's are 1), collective (dist_diag.c); free with
 * spx__free. */
spx_status spx__dist_diagonal(const spx_dist_matrix *D, double **diag);

/* Collective, GPU ranks: map the exchange buffers of peers on the same
 * host for resident calls. Every rank or none uses the mappings: a failure
 * anywhere leaves the host path everywhere (SPX_OK; an MPI error is
 * returned). ipc_free undoes it. */
spx_status spx__dist_ipc_setup(spx_dist_plan *P);
void spx__dist_ipc_free(spx_dist_plan *P);

void spx__dist_route_free(spx__dist_route *r);
double spx__dist_now_ms(void);

#endif
