/* The combine step of a resident call on one device (multi.h), after every
 * part's product; the same sums, in the same order, as adding across
 * devices (multi_resident_merge.c) does:
 *   row kinds  y[k] += ghost for the split parts in part order (every part
 *              with a shared first line is split on one device); on a GPU
 *              each split part adds its own on its stream instead
 *              (multi_resident.c);
 *   pcsc       for each line r of owner q:
 *                y[r] = s + v_i[r] for i in part order, where part i's rows
 *                reach r, s = beta*y[r] (rounded once to the vectors' type),
 *                or with beta == 0, s = v_q[r] and q skipped;
 *              part 0's partial is y itself with beta == 0 (each line read
 *              before it is written).
 * pcsc on a GPU: one kernel on the first part's stream (multi_cuda.h); on
 * the CPU loops, pcsc's owners in parallel (a line is summed whole by one
 * thread, so the thread count does not change the bits). Against a buffer
 * per part, pcsc pays here one pass over the lines of every owner but part
 * 0 (its partial is in its own buffer, not in y's): about 2n entries moved. */
#include <string.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

/* The CPU's pcsc sums go by runs of lines, one partial at a time (in part
 * order per line, as above): owner q's lines start as beta*y, or with
 * beta == 0 as v_q (q != 0: plus part 0's partial, in y, where it reaches),
 * then every other part's partial is added where it reaches. */
#define SPX__COMBINE(T)                                                                            \
    static void ghosts_##T(const spx_multi_plan *P, T *y)                                          \
    {                                                                                              \
        for (int i = 0; i < P->parts; i++)                                                         \
            if (P->part[i].split) y[P->part[i].part.line_begin] += *(const T *)P->part[i].slot;    \
    }                                                                                              \
    static void start_##T(const spx_multi_plan *P, int q, double beta, int64_t b, int64_t e, T *y) \
    {                                                                                              \
        const T *mine = P->part[q].out;                                                            \
        int64_t lo = P->part[0].span_lo, hi = P->part[0].span_hi;                                  \
        lo = lo < b ? b : lo > e ? e : lo;                                                         \
        hi = hi < lo ? lo : hi > e ? e : hi;                                                       \
        if (beta != 0.0) {                                                                         \
            for (int64_t r = b; r < e; r++)                                                        \
                y[r] = (T)(beta * (double)y[r]);                                                   \
        } else if (q > 0) {                                                                        \
            memcpy(y + b, mine + b, (size_t)(lo - b) * sizeof(T));                                 \
            for (int64_t r = lo; r < hi; r++)                                                      \
                y[r] = mine[r] + y[r];                                                             \
            memcpy(y + hi, mine + hi, (size_t)(e - hi) * sizeof(T));                               \
        }                                                                                          \
    }                                                                                              \
    static void partials_##T(const spx_multi_plan *P, int q, double beta, T *y)                    \
    {                                                                                              \
        int64_t b, e;                                                                              \
        spx__multi_own(P, q, &b, &e);                                                              \
        start_##T(P, q, beta, b, e, y);                                                            \
        for (int i = beta == 0.0 ? 1 : 0; i < P->parts; i++) {                                     \
            const spx__multi_part *p = &P->part[i];                                                \
            const T *v = p->out;                                                                   \
            int64_t lo = p->span_lo > b ? p->span_lo : b, hi = p->span_hi < e ? p->span_hi : e;    \
            for (int64_t r = lo; (beta != 0.0 || i != q) && r < hi; r++)                           \
                y[r] += v[r];                                                                      \
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
    for (int q = 0; q < P->parts; q++)
        if (P->vtype == SPX_F64)
            partials_double(P, q, beta, y);
        else
            partials_float(P, q, beta, y);
}

/* The most lines a part owns: the combine kernel's grid. */
static int64_t longest_own(const spx_multi_plan *P)
{
    int64_t most = 0;
    for (int q = 0; q < P->parts; q++) {
        int64_t b, e;
        spx__multi_own(P, q, &b, &e);
        most = e - b > most ? e - b : most;
    }
    return most;
}

spx_status spx__multi_combine(const spx_multi_plan *P, double beta, spx_multi_vector *y)
{
    const spx__multi_group *G = &P->group[0];
    int in_y = spx__multi_partial_in_y(P, 0, beta) ? 0 : -1;
    void *y0 = spx__multi_vector_at(y, 0, 0);
    int rows = P->kind != SPX_PART_PCSC;
    if ((rows && G->ghosts == 0) || (!rows && P->parts == 1 && in_y == 0)) return SPX_OK;
    if (G->device < 0) {
        combine_host(P, beta, y0);
        return SPX_OK;
    }
    return spx__cuda_partial_sum(y0, beta, G->partials, P->parts, in_y, longest_own(P), P->vtype,
                                 P->part[0].stream);
}
