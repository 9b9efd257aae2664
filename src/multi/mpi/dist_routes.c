/* A distributed plan's two exchanges (dist.h), computed once:
 *   x halo:   this rank needs x at its halo columns; their owners learn
 *             which of their entries to send it (PETSc's VecScatter);
 *   partials: this rank has sums for rows owned elsewhere; their owners
 *             learn which of their rows each sender's entries add to.
 * Both are the same pairing: sorted global indices, grouped by owner (a run
 * each, since owners hold consecutive ranges in rank order), sent to their
 * owners once (an all-to-all of counts, then of the indices). Every local
 * step is agreed on before the next collective one. */
#include <limits.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/mpi/dist.h"

/* The route from the ranks that sent counts (count[q] > 0). */
static spx_status route_from(const int *count, int size, spx__dist_route *r)
{
    spx_status st;
    r->n = 0;
    for (int q = 0; q < size; q++) r->n += count[q] > 0;
    SPX_TRY(spx__alloc((void **)&r->peer, (size_t)r->n, sizeof *r->peer, "exchange peers"));
    SPX_TRY(spx__alloc((void **)&r->off, (size_t)r->n + 1, sizeof *r->off, "exchange offsets"));
    r->off[0] = 0;
    for (int q = 0, j = 0; q < size; q++)
        if (count[q] > 0) {
            r->peer[j] = q;
            r->off[j + 1] = r->off[j] + count[q];
            j++;
        }
cleanup:
    return st;
}

/* Entries of idx (sorted) per owning rank, and the route to the owners. */
static spx_status group_by_owner(const int64_t *idx, int64_t n, const int64_t *start, int size,
                                 int *count, spx__dist_route *r)
{
    int64_t k = 0;
    for (int q = 0; q < size; q++) {
        int64_t b = k;
        while (k < n && idx[k] < start[q + 1]) k++;
        if (k - b > INT_MAX)
            return spx__error(SPX_ERR_OVERFLOW, "%lld entries for one rank do not fit an MPI count",
                              (long long)(k - b));
        count[q] = (int)(k - b);
    }
    return route_from(count, size, r);
}

/* Displacements of counts; SPX_ERR_OVERFLOW past an MPI count. */
static spx_status displacements(const int *count, int size, int *displ, int64_t *total)
{
    int64_t t = 0;
    for (int q = 0; q < size; q++) {
        if (t > INT_MAX) break;
        displ[q] = (int)t;
        t += count[q];
    }
    *total = t;
    if (t > INT_MAX)
        return spx__error(SPX_ERR_OVERFLOW, "%lld exchanged entries do not fit an MPI count",
                          (long long)t);
    return SPX_OK;
}

typedef struct pairing {
    int *count_out, *count_in, *displ_out, *displ_in;
} pairing;

/* See the file's comment: `mine` routes idx to owners, `theirs` routes the
 * entries other ranks refer to, *local their indices here (- start[rank]). */
static spx_status pair_up(const spx_dist_matrix *D, const int64_t *idx, int64_t n,
                          const int64_t *start, spx__dist_route *mine, spx__dist_route *theirs,
                          int64_t **local)
{
    MPI_Comm comm = D->comm;
    pairing p;
    int64_t total = 0, sent = 0;
    spx_status st;
    memset(&p, 0, sizeof p);
    st = spx__alloc((void **)&p.count_out, 4 * (size_t)D->size, sizeof(int), "exchange counts");
    if (st == SPX_OK) {
        p.count_in = p.count_out + D->size;
        p.displ_out = p.count_in + D->size;
        p.displ_in = p.displ_out + D->size;
        st = group_by_owner(idx, n, start, D->size, p.count_out, mine);
    }
    if (st == SPX_OK) st = displacements(p.count_out, D->size, p.displ_out, &sent);
    SPX_TRY(spx__dist_agree(comm, st));
    st = spx__dist_mpi(MPI_Alltoall(p.count_out, 1, MPI_INT, p.count_in, 1, MPI_INT, comm),
                       "MPI_Alltoall");
    if (st == SPX_OK) st = displacements(p.count_in, D->size, p.displ_in, &total);
    if (st == SPX_OK) st = spx__alloc((void **)local, (size_t)total, sizeof **local, "exchange lists");
    SPX_TRY(spx__dist_agree(comm, st));
    st = spx__dist_mpi(MPI_Alltoallv(idx, p.count_out, p.displ_out, MPI_INT64_T, *local,
                                     p.count_in, p.displ_in, MPI_INT64_T, comm),
                       "MPI_Alltoallv");
    SPX_TRY(spx__dist_agree(comm, st));
    for (int64_t k = 0; k < total; k++) (*local)[k] -= start[D->rank];
    SPX_TRY(spx__dist_agree(comm, route_from(p.count_in, D->size, theirs)));
cleanup:
    spx__free(p.count_out);
    return st;
}

static spx_status alloc_buffers(spx_dist_plan *P)
{
    spx_status st;
    size_t es = P->es;
    int64_t peers = P->halo_in.n + P->halo_out.n, partial_peers = P->part_in.n + P->part_out.n;
    SPX_TRY(spx__alloc(&P->x_halo, (size_t)P->halo, es, "x halo"));
    SPX_TRY(spx__alloc(&P->x_send, (size_t)P->halo_out.off[P->halo_out.n], es, "x sent"));
    SPX_TRY(spx__alloc(&P->f, (size_t)P->foreign, es, "partial sums sent"));
    SPX_TRY(spx__alloc(&P->f_recv, (size_t)P->part_in.off[P->part_in.n], es, "partial sums received"));
    SPX_TRY(spx__alloc((void **)&P->req, (size_t)(peers > partial_peers ? peers : partial_peers),
                       sizeof *P->req, "MPI requests"));
cleanup:
    return st;
}

spx_status spx__dist_routes(spx_dist_plan *P, const int64_t *halo_cols, const int64_t *foreign_rows)
{
    const spx_dist_matrix *D = P->D;
    spx_status st;
    SPX_TRY(pair_up(D, halo_cols, P->halo, D->col_start, &P->halo_in, &P->halo_out, &P->send_idx));
    SPX_TRY(pair_up(D, foreign_rows, P->foreign, D->row_start, &P->part_out, &P->part_in,
                    &P->recv_idx));
    st = spx__dist_agree(D->comm, alloc_buffers(P));
cleanup:
    return st;
}
