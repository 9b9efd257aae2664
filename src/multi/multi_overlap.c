/* Row parts across GPUs multiply while their halo arrives (multi.h). Part
 * p's entries are cut by column: those in the lines its device's parts own
 * (x's entries its resident buffer holds before the halo), and the rest:
 *   y_p = alpha*A_own*x + beta*y_p          on its stream, at the call's start;
 *   y_p[piece] += alpha*A_rest*x[piece]     once the halo is in,
 * the rest in two pieces of its lines, [0, cut0) and [cut1, n): outside the
 * longest run of lines with no entry of the rest, which its plans would only
 * read and write again (on a stencil cut in slabs, the two faces). The
 * rounding is that of two sums of a line, not one: a host-vector call of
 * the plan runs the same plans and gives the same bits.
 *
 * Where: resident-capable plans (square) of row kinds whose parts are on
 * several GPUs, unsplit parts with entries; by default (spx_multi_opts.
 * overlap 0) a part whose span of x holds at least nnz/13 entries that
 * other GPUs own (SPX__MULTI_OVERLAP_SHARE), 1: every such part, -1: none.
 * Measured on 4 H200s (runs IA, IB, 2026-11-27; resident calls replayed as
 * graphs, ms): R-MAT scale 22 (halo 3M entries a part of 32M nonzeros)
 * pcsr 0.315 overlapped against 0.365 not, rows 0.299 against 0.354; but
 * lap3d7:250 (125K of 27M) pcsr 0.147-0.163 against 0.144-0.151: a halo of
 * 0.017 ms hides less than the split's second pass over its faces costs.
 * The threshold, pcsr on 4 H200s, call overlapped / not (runs JB, JC, bench/
 * results/overlap-rule-2026-11-27.md): halo 1/10 of nnz (R-MAT 22, 21 ef 16)
 * 0.82-0.96; 1/15 (R-MAT 22, 21 ef 24) 0.98-1.02; 1/20, 1/37, 1/67 (R-MAT 21 ef 32,
 * 20 ef 64, 19 ef 128) 1.02-1.08; lap3d7:24 and :64 (1/20, 1/55; 0.03-0.05 ms calls)
 * 1.2-1.4. Memory: the two cuts are
 * copies of the part's CSR on the host (12 bytes a nonzero with 32-bit columns and fp64 values),
 * its plans' device arrays about what one plan of the part would hold. */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "plan/format.h"
#include "multi/multi.h"

/* The lines part i's device owns: own(q) of every part q of its group. */
static void owned_lines(const spx_multi_plan *P, int i, spx__multi_owned *o)
{
    o->n = 0;
    for (int q = 0; q < P->parts; q++)
        if (P->part[q].group == P->part[i].group) {
            spx__multi_own(P, q, &o->lo[o->n], &o->hi[o->n]);
            o->n++;
        }
}

static int is_owned(const spx__multi_owned *o, int64_t j)
{
    for (int k = 0; k < o->n; k++)
        if (o->lo[k] <= j && j < o->hi[k]) return 1;
    return 0;
}

/* The entries of x in [lo, hi) that o does not hold. */
static int64_t not_owned(const spx__multi_owned *o, int64_t lo, int64_t hi)
{
    int64_t n = hi > lo ? hi - lo : 0;
    for (int k = 0; k < o->n; k++) {
        int64_t a = o->lo[k] > lo ? o->lo[k] : lo, b = o->hi[k] < hi ? o->hi[k] : hi;
        n -= b > a ? b - a : 0;
    }
    return n;
}

int spx__multi_overlaps(const spx_multi_plan *P, const spx__multi_part *p)
{
    if (P->overlap < 0 || P->kind == SPX_PART_PCSC || P->groups < 2 || P->rows != P->cols ||
        !spx__multi_on_gpu(P) || p->split || !p->part.view || p->part.view->nnz == 0)
        return 0;
    if (P->overlap > 0) return 1;
    spx__multi_owned o;
    owned_lines(P, (int)(p - P->part), &o);
    return not_owned(&o, p->span_lo, p->span_hi) * SPX__MULTI_OVERLAP_SHARE >= p->part.view->nnz;
}

/* Lines [r0, r1) of the part's CSR v with the entries whose column is owned
 * (want 1) or not (want 0), a copy; columns stay A's. */
static spx_status cut_copy(const spx_matrix *v, const spx__multi_owned *o, int want, int64_t r0,
                           int64_t r1, spx_matrix **out)
{
    const int64_t base = spx__row_off(v, 0);
    const size_t es = v->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t nnz = 0, q = 0;
    spx_matrix *w = NULL;
    spx_status st;
    for (int64_t k = spx__row_off(v, r0) - base; k < spx__row_off(v, r1) - base; k++)
        nnz += is_owned(o, spx__col(v, k)) == want;
    SPX_TRY(spx__matrix_alloc(r1 - r0, v->cols, nnz, v->vtype, &w));
    for (int64_t r = r0; r < r1; r++) {
        for (int64_t k = spx__row_off(v, r) - base; k < spx__row_off(v, r + 1) - base; k++) {
            int64_t j = spx__col(v, k);
            if (is_owned(o, j) != want) continue;
            if (w->col_bits == 32)
                w->col32[q] = (int32_t)j;
            else
                w->col64[q] = j;
            memcpy((char *)w->values + (size_t)q * es, (const char *)v->values + (size_t)k * es,
                   es);
            q++;
        }
        w->rowptr[r - r0 + 1] = q;
    }
    *out = w;
    return SPX_OK;
cleanup:
    spx_matrix_destroy(w);
    return st;
}

static int has_rest(const spx_matrix *v, const spx__multi_owned *o, int64_t base, int64_t r)
{
    for (int64_t k = spx__row_off(v, r) - base; k < spx__row_off(v, r + 1) - base; k++)
        if (!is_owned(o, spx__col(v, k))) return 1;
    return 0;
}

/* The cuts of the rest's lines: [0, cut[0]) and [cut[1], n) around the
 * longest run of lines without an entry of the rest (a run under a quarter
 * of the lines is not worth a second launch: one piece, [0, n)). */
static void rest_cuts(const spx_matrix *v, const spx__multi_owned *o, int64_t cut[2])
{
    const int64_t base = spx__row_off(v, 0), n = v->rows;
    int64_t best_lo = 0, best_len = 0, run_lo = 0;
    for (int64_t r = 0; r <= n; r++) {
        if (r < n && !has_rest(v, o, base, r)) continue;
        if (r - run_lo > best_len) {
            best_len = r - run_lo;
            best_lo = run_lo;
        }
        run_lo = r + 1;
    }
    int cut_out = best_len > 0 && best_len >= n / 4;
    cut[0] = cut_out ? best_lo : n;
    cut[1] = cut_out ? best_lo + best_len : n;
}

/* A plan of M in format name; where name declines M, AUTO's. */
static spx_status plan_named(const spx_matrix *M, spx_plan_opts po, const char *name,
                             spx_plan **out)
{
    po.format = name;
    spx_status st = spx_plan_create(M, SPX_OP_SPMV, &po, out);
    if (st != SPX_ERR_UNSUPPORTED) return st;
    po.format = "auto";
    po.params = NULL;
    return spx_plan_create(M, SPX_OP_SPMV, &po, out);
}

spx_status spx__multi_overlap_cut(const spx_matrix *v, const spx__multi_owned *o, spx_matrix **own,
                                  spx_matrix *rest[2], int64_t cut[2])
{
    spx_status st;
    rest_cuts(v, o, cut);
    const int64_t lo[2] = {0, cut[1]}, hi[2] = {cut[0], v->rows};
    SPX_TRY(cut_copy(v, o, 1, 0, v->rows, own));
    for (int k = 0; k < 2; k++)
        if (hi[k] > lo[k]) SPX_TRY(cut_copy(v, o, 0, lo[k], hi[k], &rest[k]));
cleanup:
    return st;
}

spx_status spx__multi_overlap_plans(const spx_multi_plan *P, int i, const spx_plan_opts *po)
{
    spx__multi_part *p = &P->part[i];
    const spx_matrix *v = p->part.view;
    const char *name = po->format;
    spx__multi_owned o;
    spx_status st;
    owned_lines(P, i, &o);
    if (!name || !*name || strcmp(name, "auto") == 0) { /* AUTO asked about the whole part */
        const spx_format_ops *f = spx__auto_format(v, SPX_OP_SPMV, po);
        name = f ? f->name : "auto";
    }
    SPX_TRY(spx__multi_overlap_cut(v, &o, &p->own_view, p->rest_view, p->rest_cut));
    SPX_TRY(plan_named(p->own_view, *po, name, &p->plan));
    for (int k = 0; k < 2; k++)
        if (p->rest_view[k]) SPX_TRY(plan_named(p->rest_view[k], *po, name, &p->rest_plan[k]));
    p->overlap = 1;
cleanup:
    return st;
}

spx_status spx__multi_overlap_rest(const spx_multi_plan *P, const spx__multi_part *p, double alpha,
                                   const void *x, void *first)
{
    const int64_t at[2] = {0, p->rest_cut[1]};
    for (int k = 0; k < 2; k++) {
        if (!p->rest_plan[k]) continue;
        spx_status st =
            spx_spmv(p->rest_plan[k], alpha, x, 1.0, (char *)first + (size_t)at[k] * P->es);
        if (st != SPX_OK) return st;
    }
    return SPX_OK;
}
