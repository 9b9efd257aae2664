/* The combine step of a resident call on one device (multi.h), after every
 * part's product; the same sums, in the same order, as adding across
 * devices (multi_resident_merge.c) does:
 *   row kinds  y[k] += ghost for the split parts in part order (every part
 *              with a shared first line is split on one device); on a GPU
 *              each split part adds its own on its stream instead
 *              (multi_resident.c);
 *   pcsc       for each line r of owner q but the parts' alone rows (final
 *              in y already: multi_alone.c; P->runs lists the others):
 *                y[r] = s + v_i[r] for i in part order, where part i's rows
 *                reach r, s = beta*y[r] (rounded once to the vectors' type),
 *                or with beta == 0, s = v_q[r] and q skipped;
 *              part 0's partial is y itself with beta == 0 (each line read
 *              before it is written); part i's partial covers its span
 *              only (out[r - y_begin]; part 0's in y is written over its
 *              span, the rest holding the old y, never read).
 * pcsc on a GPU: one kernel on the first part's stream (multi_cuda.h); on
 * the CPU loops, pcsc's runs in parallel (a line is summed whole by one
 * thread, so the thread count does not change the bits). Against a buffer
 * per part, pcsc pays here one pass over the lines of every owner but part
 * 0 (its partial is in its own buffer, not in y's) and the parts' spans:
 * about 2n entries moved plus the spans. */
#include <string.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

/* Whether part p's span reaches row r. */
static int reaches(const spx__multi_part *p, int64_t r)
{
    return p->span_lo <= r && r < p->span_hi;
}

/* cut[0..6) clamped to [b, e) and sorted: the runs of lines between them
 * are each inside or outside every span that cut them. */
static void sort_cuts(int64_t *cut, int64_t b, int64_t e)
{
    for (int i = 0; i < 6; i++)
        cut[i] = cut[i] < b ? b : cut[i] > e ? e : cut[i];
    for (int i = 1; i < 6; i++)
        for (int j = i; j > 0 && cut[j] < cut[j - 1]; j--) {
            int64_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
}

/* The CPU's pcsc sums go by runs of lines, one partial at a time (in part
 * order per line, as above): owner q's lines start as beta*y, or with
 * beta == 0 as v_q where its span reaches, else 0 (q != 0: plus part 0's
 * partial, in y over part 0's span), then every other part's partial is
 * added where it reaches. Part i's partial holds row r at out[r - y_begin]. */
#define SPX__COMBINE(T)                                                                            \
    static void ghosts_##T(const spx_multi_plan *P, T *y)                                          \
    {                                                                                              \
        for (int i = 0; i < P->parts; i++)                                                         \
            if (P->part[i].split) y[P->part[i].part.line_begin] += *(const T *)P->part[i].slot;    \
    }                                                                                              \
    /* y[s, t) = (with_v ? v_q : 0) + (with_y: part 0 in y), v_q[r] = v[r - base]. */              \
    static void run_##T(const T *v, int64_t base, int with_v, int with_y, int64_t s, int64_t t,    \
                        T *y)                                                                      \
    {                                                                                              \
        if (with_v && with_y) {                                                                    \
            for (int64_t r = s; r < t; r++)                                                        \
                y[r] = v[r - base] + y[r];                                                         \
        } else if (with_v) {                                                                       \
            memcpy(y + s, v + (s - base), (size_t)(t - s) * sizeof(T));                            \
        } else if (with_y) {                                                                       \
            for (int64_t r = s; r < t; r++)                                                        \
                y[r] = (T)0 + y[r];                                                                \
        } else {                                                                                   \
            memset(y + s, 0, (size_t)(t - s) * sizeof(T));                                         \
        }                                                                                          \
    }                                                                                              \
    static void start_##T(const spx_multi_plan *P, int q, double beta, int64_t b, int64_t e, T *y) \
    {                                                                                              \
        const spx__multi_part *o = &P->part[q], *p0 = &P->part[0];                                 \
        if (beta != 0.0) {                                                                         \
            for (int64_t r = b; r < e; r++)                                                        \
                y[r] = (T)(beta * (double)y[r]);                                                   \
        } else if (q == 0) {                                                                       \
            (void)spx__multi_scale_outside(P, y, b, e, o->span_lo, o->span_hi, 0.0, NULL);         \
        } else {                                                                                   \
            int64_t cut[6] = {b, e, o->span_lo, o->span_hi, p0->span_lo, p0->span_hi};             \
            sort_cuts(cut, b, e);                                                                  \
            for (int c = 0; c < 5; c++)                                                            \
                if (cut[c] < cut[c + 1])                                                           \
                    run_##T(o->out, o->y_begin, reaches(o, cut[c]), reaches(p0, cut[c]), cut[c],   \
                            cut[c + 1], y);                                                        \
        }                                                                                          \
    }                                                                                              \
    static void partials_##T(const spx_multi_plan *P, const spx__multi_run *run, double beta,      \
                             T *y)                                                                 \
    {                                                                                              \
        const int q = run->owner;                                                                  \
        const int64_t b = run->lo, e = run->hi;                                                    \
        start_##T(P, q, beta, b, e, y);                                                            \
        for (int i = beta == 0.0 ? 1 : 0; i < P->parts; i++) {                                     \
            const spx__multi_part *p = &P->part[i];                                                \
            const T *v = p->out;                                                                   \
            int64_t lo = p->span_lo > b ? p->span_lo : b, hi = p->span_hi < e ? p->span_hi : e;    \
            for (int64_t r = lo; (beta != 0.0 || i != q) && r < hi; r++)                           \
                y[r] += v[r - p->y_begin];                                                         \
        }                                                                                          \
    }
SPX__COMBINE(double)
SPX__COMBINE(float)

static void combine_host(const spx_multi_plan *P, double beta, void *y)
{
    if (P->kind != SPX_PART_PCSC) {
        if (P->vtype == SPX_F64)
            ghosts_double(P, y);
        else
            ghosts_float(P, y);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(P->parts)
    for (int k = 0; k < P->nruns; k++)
        if (P->vtype == SPX_F64)
            partials_double(P, &P->runs[k], beta, y);
        else
            partials_float(P, &P->runs[k], beta, y);
}

/* The longest run of lines merged: the combine kernel's grid. */
static int64_t longest_run(const spx_multi_plan *P)
{
    int64_t most = 0;
    for (int k = 0; k < P->nruns; k++)
        if (P->runs[k].hi - P->runs[k].lo > most) most = P->runs[k].hi - P->runs[k].lo;
    return most;
}

spx_status spx__multi_combine(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    const spx__multi_group *G = &P->group[0];
    int in_y = spx__multi_partial_in_y(P, 0, beta) ? 0 : -1;
    void *y0 = spx__multi_vector_at(y, 0, 0);
    int rows = P->kind != SPX_PART_PCSC;
    if (rows && G->ghosts == 0) return SPX_OK;
    if (!rows && P->parts == 1 && in_y == 0) /* y is part 0's partial: 0 where it does not reach */
        return spx__multi_scale_outside(P, y0, 0, P->rows, P->part[0].span_lo, P->part[0].span_hi,
                                        0.0, P->part[0].stream);
    if (G->device < 0) {
        combine_host(P, beta, y0);
        return SPX_OK;
    }
    return spx__cuda_partial_sum(y0, beta, G->partials, P->parts, G->runs, P->nruns, in_y,
                                 longest_run(P), P->vtype, P->part[0].stream);
}
