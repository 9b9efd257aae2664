/* The MPI executor's error handling: every collective step ends with an
 * agreement, so that a failure on one rank (bad input, no memory, an MPI
 * error) becomes the same status on every rank and nobody waits for a
 * message that will not come. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/error.h"
#include "multi/mpi/dist.h"

spx_status spx__dist_mpi(int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS) return SPX_OK;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "code %d", rc);
    return spx__error(SPX_ERR_IO, "%s failed: %s", call, text);
}

spx_status spx__dist_agree(MPI_Comm comm, spx_status st)
{
    int rank = 0, size = 1, mine, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = st == SPX_OK ? size : rank;
    int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return spx__dist_mpi(rc, "MPI_Allreduce (agreement)");
    if (first == size) return SPX_OK;
    struct {
        int status;
        char message[512];
    } what;
    memset(&what, 0, sizeof what);
    if (rank == first) {
        what.status = (int)st;
        snprintf(what.message, sizeof what.message, "%s", spx_last_error());
    }
    rc = MPI_Bcast(&what, (int)sizeof what, MPI_BYTE, first, comm);
    if (rc != MPI_SUCCESS) return spx__dist_mpi(rc, "MPI_Bcast (agreement)");
    if (rank == first) return st;
    return spx__error((spx_status)what.status, "rank %d: %s", first, what.message);
}

spx_status spx__dist_agree_same(MPI_Comm comm, spx_status st, int value, const char *what)
{
    int rank = 0, size = 1, mine[3], all[3];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine[0] = st == SPX_OK ? size : rank;
    mine[1] = value;  /* the least value */
    mine[2] = -value; /* minus the greatest */
    int rc = MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) return spx__dist_mpi(rc, "MPI_Allreduce (agreement)");
    if (all[0] != size) return spx__dist_agree(comm, st); /* a failure: its message, everywhere */
    if (all[1] != -all[2]) return spx__error(SPX_ERR_INVALID_ARG, "the ranks disagree: %s", what);
    return SPX_OK;
}

MPI_Datatype spx__dist_type(spx_type t) { return t == SPX_F64 ? MPI_DOUBLE : MPI_FLOAT; }

void spx__dist_route_free(spx__dist_route *r)
{
    spx__free(r->peer);
    spx__free(r->off);
    memset(r, 0, sizeof *r);
}

double spx__dist_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
