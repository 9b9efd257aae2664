/* sym's spx_plan_update_values (sym.h): new values in A's CSR order, checked
 * to be symmetric as a new plan would check them, then L's and D's taken.
 * The first update builds A's row offsets and each L entry's mirror
 * position from L alone (no pointer into A is kept). */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cpu/sym.h"

/* A's row offsets and each L entry's mirror position, from L alone: row i of
 * A is L's row i, then a_ii where stored, then the entries a_ij, j > i,
 * which are the mirrors of L's column i in row order. */
static spx_status build_mirror_map(spx__sym_state *s)
{
    const int64_t n = s->n, nl = spx__sym_l_nnz(s);
    int64_t *next = NULL;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&s->a_rowptr, (size_t)n + 1, sizeof(int64_t), "sym A rows"));
    SPX_TRY(spx__alloc((void **)&s->mirror, (size_t)(nl > 0 ? nl : 1), sizeof(int64_t),
                       "sym mirror map"));
    SPX_TRY(spx__calloc((void **)&next, (size_t)n + 1, sizeof(int64_t), "sym mirror map"));
    for (int64_t p = 0; p < nl; p++)
        next[s->col[p]]++; /* entries above the diagonal in row col[p] */
    s->a_rowptr[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t above = next[i];
        next[i] = s->a_rowptr[i] + (s->rowptr[i + 1] - s->rowptr[i]) + s->has_diag[i];
        s->a_rowptr[i + 1] = next[i] + above;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1]; p++)
            s->mirror[p] = next[s->col[p]]++;
    st = SPX_OK;
cleanup:
    spx__free(next);
    if (st != SPX_OK) {
        spx__free(s->a_rowptr);
        spx__free(s->mirror);
        s->a_rowptr = NULL;
        s->mirror = NULL;
    }
    return st;
}

/* The first L entry whose value differs from its mirror's (== in the
 * plan's type, as spx__matrix_symmetric compares), or -1. */
static int64_t first_asymmetric(const spx__sym_state *s, const void *values)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t i = 0; i < s->n; i++) {
        for (int64_t p = s->rowptr[i]; p < s->rowptr[i + 1] && p < bad; p++) {
            const int64_t at = s->a_rowptr[i] + (p - s->rowptr[i]);
            const int same =
                s->precision == SPX_F32
                    ? ((const float *)values)[at] == ((const float *)values)[s->mirror[p]]
                    : ((const double *)values)[at] == ((const double *)values)[s->mirror[p]];
            if (!same) bad = p;
        }
    }
    return bad == INT64_MAX ? -1 : bad;
}

static int64_t row_of_entry(const spx__sym_state *s, int64_t p)
{
    int64_t lo = 0, hi = s->n;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s->rowptr[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* New values (host memory, A's CSR order): checked to be symmetric, as a new
 * plan would check them, then L's and D's taken. */
spx_status spx__sym_update_values(void *state, const void *values, int on_device)
{
    spx__sym_state *s = state;
    const size_t es = spx__sym_elem_size(s);
    spx_status st;
    (void)on_device; /* a CPU plan: host memory */
    if (!s->mirror && (st = build_mirror_map(s)) != SPX_OK) return st;
    const int64_t bad = first_asymmetric(s, values);
    if (bad >= 0) {
        const int64_t i = row_of_entry(s, bad);
        return spx__error(SPX_ERR_INVALID_ARG,
                          "sym: the new values are not symmetric: a_%lld,%lld differs from "
                          "a_%lld,%lld; the plan keeps its values",
                          (long long)i, (long long)s->col[bad], (long long)s->col[bad],
                          (long long)i);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < s->n; i++) {
        const int64_t len = s->rowptr[i + 1] - s->rowptr[i];
        const char *row = (const char *)values + (size_t)s->a_rowptr[i] * es;
        memcpy((char *)s->val + (size_t)s->rowptr[i] * es, row, (size_t)len * es);
        if (s->has_diag[i])
            memcpy((char *)s->diag + (size_t)i * es, row + (size_t)len * es, es);
        else
            memset((char *)s->diag + (size_t)i * es, 0, es);
    }
    return SPX_OK;
}
