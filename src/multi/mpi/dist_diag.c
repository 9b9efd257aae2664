/* The diagonal of a distributed square matrix by rows owned (dist.h): each
 * rank adds the diagonal entries of its part in rows it owns, and sends
 * those of rows owned elsewhere (a boundary row of pcsr or pcoo, any row of
 * pcsc) to their owners as (row, value) pairs, which add them in rank
 * order: the same bits on every call for a fixed rank count. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "multi/mpi/dist.h"

/* The rank owning global row r (row_start ascending, size + 1 entries). */
static int owner(const spx_dist_matrix *D, int64_t r)
{
    int lo = 0, hi = D->size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (D->row_start[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

typedef struct pair {
    double row, value; /* row as a double: exact below 2^53 */
} pair;

/* Each diagonal entry of the part: added into d where owned, else counted
 * (out NULL) or put into out at its owner's next slot (fill). */
static void scan(const spx_dist_matrix *D, double *d, int *count, pair *out, int *fill)
{
    const spx_matrix *v = D->part.view;
    const int64_t yb = D->row_start[D->rank], ye = D->row_start[D->rank + 1];
    for (int64_t j = 0; j < v->rows; j++)
        for (int64_t k = v->rowptr[j]; k < v->rowptr[j + 1]; k++) {
            const int64_t line = D->part.line_begin + j, other = spx__col(v, k);
            if (line != other) continue;
            const double a = v->values ? spx__val(v, k) : 1.0;
            if (line >= yb && line < ye) {
                if (!out) d[line - yb] += a;
            } else {
                const int o = owner(D, line);
                if (!out)
                    count[o]++;
                else
                    out[fill[o]++] = (pair){(double)line, a};
            }
        }
}

spx_status spx__dist_diagonal(const spx_dist_matrix *D, double **diag)
{
    const int size = D->size;
    const int64_t yb = D->row_start[D->rank], n = D->row_start[D->rank + 1] - yb;
    int *cnt = NULL, *rcnt = NULL, *sdis = NULL, *rdis = NULL, *fill = NULL;
    pair *out = NULL, *in = NULL;
    double *d = NULL;
    spx_status st = SPX_OK;
    if (D->rows != D->cols)
        st = spx__error(SPX_ERR_DIM_MISMATCH, "the Jacobi diagonal needs a square matrix");
    if (st == SPX_OK) st = spx__calloc((void **)&d, (size_t)n + 1, sizeof *d, "diagonal");
    if (st == SPX_OK) st = spx__calloc((void **)&cnt, (size_t)size * 5, sizeof *cnt, "counts");
    if (st == SPX_OK) {
        rcnt = cnt + size, sdis = rcnt + size, rdis = sdis + size, fill = rdis + size;
        scan(D, d, cnt, NULL, NULL);
    }
    SPX_TRY(spx__dist_agree(D->comm, st));
    SPX__MPI_TRY(MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, D->comm));
    int ns = 0, nr = 0;
    for (int r = 0; r < size; r++) {
        sdis[r] = ns, rdis[r] = nr, fill[r] = ns;
        ns += cnt[r], nr += rcnt[r];
        cnt[r] *= 2, rcnt[r] *= 2; /* pairs as doubles */
        sdis[r] *= 2, rdis[r] *= 2;
    }
    st = spx__alloc((void **)&out, (size_t)ns + 1, sizeof *out, "diagonal entries sent");
    if (st == SPX_OK)
        st = spx__alloc((void **)&in, (size_t)nr + 1, sizeof *in, "diagonal entries received");
    SPX_TRY(spx__dist_agree(D->comm, st));
    scan(D, NULL, NULL, out, fill);
    SPX__MPI_TRY(MPI_Alltoallv(out, cnt, sdis, MPI_DOUBLE, in, rcnt, rdis, MPI_DOUBLE, D->comm));
    for (int k = 0; k < nr; k++) /* in rank order */
        d[(int64_t)in[k].row - yb] += in[k].value;
    *diag = d;
    d = NULL;
cleanup:
    spx__free(d);
    spx__free(cnt);
    spx__free(out);
    spx__free(in);
    return st;
}
