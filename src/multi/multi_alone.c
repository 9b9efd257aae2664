/* pcsc's alone rows (multi.h), at plan time once every part's span is
 * known: for each part the longest run of its span that no other part's
 * span reaches, kept where it is at least half the span; then the lines
 * each owner still merges (its own lines less every alone run). Only for
 * plans whose parts share one device group: there a resident call's y is
 * one buffer that a part's alone rows can be written into. */
#include "core/alloc.h"
#include "core/error.h"
#include "multi/multi.h"

/* [lo[k], hi[k]) for k < n sorted by lo (insertion: at most 64 runs). */
static void sort_runs(int64_t *lo, int64_t *hi, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && lo[j] < lo[j - 1]; j--) {
            int64_t t = lo[j];
            lo[j] = lo[j - 1];
            lo[j - 1] = t;
            t = hi[j];
            hi[j] = hi[j - 1];
            hi[j - 1] = t;
        }
}

/* The longest run of [b, e) outside every [lo[k], hi[k]) (sorted by lo):
 * [*a, *z), empty when there is none. */
static void longest_gap(int64_t b, int64_t e, const int64_t *lo, const int64_t *hi, int n,
                        int64_t *a, int64_t *z)
{
    int64_t at = b;
    *a = *z = b;
    for (int k = 0; k <= n && at < e; k++) {
        int64_t next = k < n && lo[k] < e ? lo[k] : e;
        if (next - at > *z - *a) {
            *a = at;
            *z = next;
        }
        if (k < n && hi[k] > at) at = hi[k];
    }
}

static void alone_of(spx_multi_plan *P, int i)
{
    spx__multi_part *p = &P->part[i];
    int64_t lo[SPX_MULTI_MAX_PARTS], hi[SPX_MULTI_MAX_PARTS], a, z;
    int n = 0;
    p->alone_lo = p->alone_hi = 0;
    if (p->span_hi <= p->span_lo) return;
    for (int j = 0; j < P->parts; j++) {
        const spx__multi_part *q = &P->part[j];
        if (j == i || q->span_hi <= q->span_lo) continue;
        lo[n] = q->span_lo;
        hi[n++] = q->span_hi;
    }
    sort_runs(lo, hi, n);
    longest_gap(p->span_lo, p->span_hi, lo, hi, n, &a, &z);
    if (2 * (z - a) < p->span_hi - p->span_lo) return;
    p->alone_lo = a;
    p->alone_hi = z;
}

/* Owner q's own lines less the alone runs (sorted in lo, hi; disjoint: a
 * part's alone rows are outside every other span) appended to P->runs. */
static void runs_of(spx_multi_plan *P, int q, const int64_t *lo, const int64_t *hi, int n)
{
    int64_t b, e;
    spx__multi_own(P, q, &b, &e);
    for (int k = 0; k <= n && b < e; k++) {
        int64_t next = k < n && lo[k] < e ? lo[k] : e;
        if (next > b) P->runs[P->nruns++] = (spx__multi_run){b, next, q};
        if (k < n && hi[k] > b) b = hi[k];
    }
}

spx_status spx__multi_alone_rows(spx_multi_plan *P)
{
    int64_t lo[SPX_MULTI_MAX_PARTS], hi[SPX_MULTI_MAX_PARTS];
    int n = 0;
    if (P->kind != SPX_PART_PCSC || P->groups != 1) return SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        alone_of(P, i);
        if (P->part[i].alone_hi > P->part[i].alone_lo) {
            lo[n] = P->part[i].alone_lo;
            hi[n++] = P->part[i].alone_hi;
        }
    }
    sort_runs(lo, hi, n);
    spx_status st = spx__alloc((void **)&P->runs, (size_t)P->parts * (size_t)(n + 1),
                               sizeof *P->runs, "pcsc merge runs");
    if (st != SPX_OK) return st;
    P->nruns = 0;
    for (int q = 0; q < P->parts; q++)
        runs_of(P, q, lo, hi, n);
    return SPX_OK;
}
