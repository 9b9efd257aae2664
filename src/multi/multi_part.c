/* One part of a multi-device plan (multi.h), at plan time in its own thread:
 * its view (boundaries are set before, spx__multi_mark_splits), its span, on
 * its device a stream and events (start); then its plan (a split part's two,
 * a pcsc part with alone rows three pieces) and its output buffer (finish);
 * the leaders' x buffers once every part exists; its product; and its
 * release. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "plan/auto_order.h"
#include "plan/format.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"
#include "multi/numa.h"

void spx__multi_note(spx__multi_part *p, spx_status st)
{
    p->status = st;
    p->message[0] = '\0';
    if (st != SPX_OK) snprintf(p->message, sizeof p->message, "%s", spx_last_error());
}

spx_status spx__multi_failure(const spx_multi_plan *P, const char *step)
{
    for (int i = 0; i < P->parts; i++)
        if (P->part[i].status != SPX_OK)
            return spx__error(P->part[i].status, "multi %s, part %d of %d: %s", step, i, P->parts,
                              P->part[i].message);
    return SPX_OK;
}

int spx__multi_device_save(const spx_multi_plan *P)
{
    int d = -1;
    if (P && P->any_cuda && spx__cuda_get_device(&d) != SPX_OK) d = -1;
    return d;
}

void spx__multi_device_restore(int device)
{
    if (device >= 0) spx__cuda_set_device(device);
}

/* What x the part reads, what of y it writes, and whether it carries beta.
 * pcsc: part i's output is y[span_lo, span_hi), the rows its columns touch,
 * but part 0's, which carries beta for the whole of y, is all of y (its plan
 * writes its span; it scales the rest). */
static void set_ranges(const spx_multi_plan *P, spx__multi_part *p, int i)
{
    const spx__part *q = &p->part;
    if (P->kind == SPX_PART_PCSC) {
        p->x_begin = q->line_begin;
        p->x_len = q->line_end - q->line_begin;
        p->y_begin = i == 0 ? 0 : p->span_lo;
        p->y_len = i == 0 ? P->rows : p->span_hi - p->span_lo;
        p->beta_share = i == 0;
    } else {
        p->x_begin = 0;
        p->x_len = P->cols;
        p->y_begin = q->line_begin;
        p->y_len = q->line_end - q->line_begin;
        p->beta_share = 1;
    }
}

/* A CPU part writes straight into y where no other part writes its entries:
 * a row part sharing no line, pcsc's part 0 (the others add to it). */
static int writes_into_y(const spx_multi_plan *P, const spx__multi_part *p, int i)
{
    if (p->device >= 0) return 0;
    if (P->kind == SPX_PART_PCSC) return i == 0;
    return !p->part.shared_first && !p->part.shared_last;
}

/* The smallest and largest index its entries touch: x's columns for row
 * kinds, y's rows for pcsc (the view's column indices either way). */
static void set_span(spx__multi_part *p)
{
    const spx_matrix *v = p->part.view;
    int64_t lo = INT64_MAX, hi = -1;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) schedule(static)
    for (int64_t k = 0; k < v->nnz; k++) {
        int64_t j = spx__col(v, k);
        lo = j < lo ? j : lo;
        hi = j > hi ? j : hi;
    }
    p->span_lo = hi < 0 ? 0 : lo;
    p->span_hi = hi < 0 ? 0 : hi + 1;
}

static spx_status cuda_setup(spx__multi_part *p, int i)
{
    spx_status st;
    SPX_TRY(spx__cuda_set_device(p->device));
    SPX_TRY(spx__cuda_stream_create(&p->stream));
    for (int e = 0; e < SPX__MULTI_EVENTS; e++) SPX_TRY(spx__cuda_event_create(&p->ev[e]));
    for (int e = 0; e < 2 && p->leader == i; e++) SPX_TRY(spx__cuda_event_create(&p->ev_x[e]));
cleanup:
    return st;
}

static spx_status alloc_output(const spx_multi_plan *P, spx__multi_part *p, int i)
{
    spx_status st = SPX_OK;
    size_t bytes = (size_t)p->y_len * P->es;
    if (p->device >= 0) {
        SPX_TRY(spx__cuda_alloc(&p->out, bytes, "a part's partial y"));
        if (P->kind == SPX_PART_PCSC && !P->gpu_reduce)
            SPX_TRY(spx__alloc(&p->host_out, (size_t)p->y_len, P->es, "a part's partial y"));
    } else if (!writes_into_y(P, p, i)) {
        SPX_TRY(spx__alloc(&p->out, (size_t)p->y_len, P->es, "a part's partial y"));
    }
cleanup:
    return st;
}

static int is_auto(const char *format)
{
    return !format || !*format || strcmp(format, "auto") == 0;
}

/* A plan of M in format `name`; where that format declines M and `fallback`
 * is set, AUTO's (with no params: those were the named format's). */
static spx_status plan_as(const spx_matrix *M, spx_plan_opts po, const char *name, int fallback,
                          spx_plan **out)
{
    po.format = name;
    spx_status st = spx_plan_create(M, SPX_OP_SPMV, &po, out);
    if (st != SPX_ERR_UNSUPPORTED || !fallback) return st;
    po.format = "auto";
    po.params = NULL;
    return spx_plan_create(M, SPX_OP_SPMV, &po, out);
}

/* A split part: its lines but the first, in the format the whole part would
 * get (AUTO asked about the whole view, so that the lines keep their
 * kernel), then its piece of the first line in the format that plan has. */
static spx_status make_split(spx__multi_part *p, const spx_plan_opts *po)
{
    spx_status st;
    const char *name = po->format;
    int64_t n = p->part.line_end - p->part.line_begin;
    if (is_auto(name)) {
        const spx_format_ops *f = spx__auto_format(p->part.view, SPX_OP_SPMV, po);
        name = f ? f->name : "auto";
    }
    SPX_TRY(spx__part_lines_view(&p->part, 1, n - 1, &p->split_view[0]));
    SPX_TRY(spx__part_lines_view(&p->part, 0, 1, &p->split_view[1]));
    SPX_TRY(plan_as(p->split_view[0], *po, name, is_auto(po->format), &p->plan));
    SPX_TRY(plan_as(p->split_view[1], *po, spx_plan_format(p->plan), 1, &p->ghost));
cleanup:
    return st;
}

static spx_status check_x_type(const spx_multi_plan *P, const spx_plan *plan)
{
    if (!plan || spx_plan_x_type(plan) == P->vtype) return SPX_OK;
    return spx__error(SPX_ERR_UNSUPPORTED,
                      "multi plans take x of the vectors' type (params xtype=half: no)");
}

/* pcsc: the part's CSR (block columns of A as rows) with its columns, A's
 * rows, shifted by -span_lo and span_hi - span_lo of them, so that its plan
 * writes y[span_lo, span_hi) only. The shifted indices are a copy the part
 * owns (4 bytes a nonzero, 8 where the span passes 2^31 - 1 rows); offsets
 * and values stay borrowed. A part without nonzeros keeps its view (its plan
 * is never called). */
static spx_status make_span_view(spx__multi_part *p)
{
    const spx_matrix *v = p->part.view;
    int64_t lo = p->span_lo, width = p->span_hi - p->span_lo;
    int bits = width <= INT32_MAX ? 32 : 64;
    spx_matrix *w = NULL;
    spx_status st;
    SPX_TRY(spx__alloc(&p->span_cols, (size_t)v->nnz, (size_t)bits / 8, "pcsc span columns"));
    int32_t *c32 = bits == 32 ? p->span_cols : NULL;
    int64_t *c64 = bits == 64 ? p->span_cols : NULL;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < v->nnz; k++) {
        int64_t j = spx__col(v, k) - lo;
        if (c32)
            c32[k] = (int32_t)j;
        else
            c64[k] = j;
    }
    SPX_TRY(spx__calloc((void **)&w, 1, sizeof *w, "pcsc span header"));
    w->magic = SPX__MATRIX_MAGIC;
    w->rows = v->rows;
    w->cols = width;
    w->nnz = v->nnz;
    w->rowptr = v->rowptr;
    w->col_bits = bits;
    w->col32 = c32;
    w->col64 = c64;
    w->vtype = v->vtype;
    w->values = v->values;
    p->span_view = w;
    return SPX_OK;
cleanup:
    return st;
}

/* A pcsc part's plan of v: in the format AUTO picked for A (pcsc_formats in
 * multi_plan.c) unless that format declines v (then AUTO for v). */
static spx_status pcsc_plan(const spx_multi_plan *P, const spx__multi_part *p,
                            const spx_plan_opts *po, const spx_matrix *v, spx_plan **out)
{
    const char *whole = P->pcsc_format[p->device >= 0];
    if (!whole) return spx_plan_create(v, SPX_OP_SPMV, po, out);
    spx_plan_opts wo = *po;
    wo.format = whole;
    spx_status st = spx_plan_create(v, SPX_OP_SPMV, &wo, out);
    return st == SPX_ERR_UNSUPPORTED ? spx_plan_create(v, SPX_OP_SPMV, po, out) : st;
}

/* pcsc: the part's CSR restricted to its entries of A's rows [lo, hi), those
 * rows (its columns) shifted by -lo and hi - lo of them; a copy (offsets,
 * columns, values), every one of the part's rows kept. */
static spx_status make_piece(const spx_matrix *v, int64_t lo, int64_t hi, spx_matrix **out)
{
    const int64_t base = spx__row_off(v, 0);
    const size_t es = v->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t nnz = 0, q = 0;
    spx_matrix *w = NULL;
    spx_status st;
    for (int64_t k = 0; k < v->nnz; k++)
        nnz += spx__col(v, k) >= lo && spx__col(v, k) < hi;
    SPX_TRY(spx__matrix_alloc(v->rows, hi - lo, nnz, v->vtype, &w));
    for (int64_t r = 0; r < v->rows; r++) {
        for (int64_t k = spx__row_off(v, r) - base; k < spx__row_off(v, r + 1) - base; k++) {
            int64_t j = spx__col(v, k);
            if (j < lo || j >= hi) continue;
            if (w->col_bits == 32)
                w->col32[q] = (int32_t)(j - lo);
            else
                w->col64[q] = j - lo;
            memcpy((char *)w->values + (size_t)q * es, (const char *)v->values + (size_t)k * es,
                   es);
            q++;
        }
        w->rowptr[r + 1] = q;
    }
    *out = w;
    return SPX_OK;
cleanup:
    spx_matrix_destroy(w);
    return st;
}

/* pcsc with alone rows (multi.h): pieces 0, 1 and 2 of its span, each with
 * a plan (piece 1's is p->plan, its view p->span_view); an empty end has
 * none. Every row of a piece is written by its plan, entries or not. */
static spx_status make_pieces(const spx_multi_plan *P, spx__multi_part *p, const spx_plan_opts *po)
{
    const int64_t cut[4] = {p->span_lo, p->alone_lo, p->alone_hi, p->span_hi};
    spx_matrix **view[3] = {&p->end_view[0], &p->span_view, &p->end_view[1]};
    spx_plan **plan[3] = {&p->end_plan[0], &p->plan, &p->end_plan[1]};
    spx_status st = SPX_OK;
    for (int k = 0; k < 3; k++) {
        if (cut[k + 1] <= cut[k]) continue;
        SPX_TRY(make_piece(p->part.view, cut[k], cut[k + 1], view[k]));
        SPX_TRY(pcsc_plan(P, p, po, *view[k], plan[k]));
    }
cleanup:
    return st;
}

/* The part's plan: o's format, precision and params (AUTO's own degree
 * ordering kept off: spx__params_unordered); pcsc parts are CSC views, i.e.
 * CSRs of the transposed block, planned with op T (pcsc_plan), in pieces
 * where it has alone rows. */
static spx_status make_plan(const spx_multi_plan *P, spx__multi_part *p, const spx_plan_opts *o)
{
    spx_plan_opts po = *o;
    char *unordered = NULL;
    po.op = P->kind == SPX_PART_PCSC ? SPX_OP_T : SPX_OP_N;
    po.device = p->device >= 0 ? SPX_DEV_CUDA : SPX_DEV_CPU;
    po.stream = p->stream;
    spx_status st = spx__params_unordered(o->params, &unordered);
    if (unordered) po.params = unordered;
    if (st != SPX_OK) {
        /* nothing made */
    } else if (P->kind != SPX_PART_PCSC) {
        st = p->split ? make_split(p, &po)
             : spx__multi_overlaps(P, p)
                 ? spx__multi_overlap_plans(P, (int)(p - P->part), &po)
                 : spx_plan_create(p->part.view, SPX_OP_SPMV, &po, &p->plan);
    } else if (p->alone_hi > p->alone_lo) {
        st = make_pieces(P, p, &po);
    } else {
        if (p->span_hi > p->span_lo) st = make_span_view(p);
        if (st == SPX_OK)
            st = pcsc_plan(P, p, &po, p->span_view ? p->span_view : p->part.view, &p->plan);
    }
    if (st == SPX_OK) st = check_x_type(P, p->plan);
    if (st == SPX_OK) st = check_x_type(P, p->ghost);
    for (int k = 0; k < 2; k++) {
        if (st == SPX_OK) st = check_x_type(P, p->end_plan[k]);
        if (st == SPX_OK) st = check_x_type(P, p->rest_plan[k]);
    }
    spx__free(unordered);
    return st;
}

spx_status spx__multi_part_spmv(const spx_multi_plan *P, const spx__multi_part *p, int half,
                                double alpha, const void *x, double beta, void *first, void *rest)
{
    spx_status st = SPX_OK;
    if (p->overlap) {
        if (half != 1) st = spx_spmv(p->plan, alpha, x, beta, first);
        return st == SPX_OK && half != 0 ? spx__multi_overlap_rest(P, p, alpha, x, first) : st;
    }
    if (half == 0) return SPX_OK;
    if (!p->split) return spx_spmv(p->plan, alpha, x, beta, first);
    st = spx_spmv(p->ghost, alpha, x, beta, first);
    return st == SPX_OK ? spx_spmv(p->plan, alpha, x, beta, rest) : st;
}

spx_status spx__multi_pcsc_spmv(const spx_multi_plan *P, const spx__multi_part *p, double alpha,
                                const void *x, double beta, void *out, void *alone,
                                double alone_beta)
{
    if (!p->span_view) return SPX_OK;
    if (p->alone_hi <= p->alone_lo) return spx_spmv(p->plan, alpha, x, beta, out);
    char *o = out;
    spx_status st = SPX_OK;
    if (p->end_plan[0]) SPX_TRY(spx_spmv(p->end_plan[0], alpha, x, beta, o));
    if (alone)
        SPX_TRY(spx_spmv(p->plan, alpha, x, alone_beta, alone));
    else
        SPX_TRY(spx_spmv(p->plan, alpha, x, beta, o + (size_t)(p->alone_lo - p->span_lo) * P->es));
    if (p->end_plan[1])
        SPX_TRY(spx_spmv(p->end_plan[1], alpha, x, beta,
                         o + (size_t)(p->alone_hi - p->span_lo) * P->es));
cleanup:
    return st;
}

spx_status spx__multi_part_start(spx_multi_plan *P, const spx_matrix *M, int i)
{
    spx__multi_part *p = &P->part[i];
    spx_status st;
    spx__numa_saved numa;
    double t0 = spx__multi_now_ms();
    p->numa_node = spx__numa_node_of_part(p->device, i, P->parts);
    spx__numa_enter(p->numa_node, &numa); /* its host arrays are first written on its node */
    SPX_TRY(spx__part_build(M, P->coo_lines, &p->part));
    double t1 = spx__multi_now_ms();
    p->partition_ms = t1 - t0;
    set_span(p);
    set_ranges(P, p, i);
    if (p->device >= 0) SPX_TRY(cuda_setup(p, i));
    p->prepare_ms = spx__multi_now_ms() - t1;
cleanup:
    spx__numa_leave(&numa);
    return st;
}

spx_status spx__multi_part_finish(spx_multi_plan *P, const spx_plan_opts *o, int i)
{
    spx__multi_part *p = &P->part[i];
    spx_status st;
    spx__numa_saved numa;
    double t0 = spx__multi_now_ms();
    spx__numa_enter(p->numa_node, &numa);
    if (p->device >= 0) SPX_TRY(spx__cuda_set_device(p->device));
    SPX_TRY(make_plan(P, p, o));
    SPX_TRY(alloc_output(P, p, i));
    p->prepare_ms += spx__multi_now_ms() - t0;
cleanup:
    spx__numa_leave(&numa);
    return st;
}

/* Leader parts hold x[x_lo, x_hi): the union of what their device's parts
 * read; pcsc summed across GPUs needs a landing buffer on part 0's (the
 * longest span of another part). */
spx_status spx__multi_leaders(spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        spx__multi_part *l = &P->part[i];
        if (l->device < 0 || l->leader != i) continue;
        l->x_lo = P->cols;
        l->x_hi = 0;
        for (int j = i; j < P->parts; j++) {
            const spx__multi_part *p = &P->part[j];
            if (p->leader != i || p->x_len == 0) continue;
            if (p->x_begin < l->x_lo) l->x_lo = p->x_begin;
            if (p->x_begin + p->x_len > l->x_hi) l->x_hi = p->x_begin + p->x_len;
        }
        if (l->x_hi < l->x_lo) l->x_lo = l->x_hi = 0;
        SPX_TRY(spx__cuda_set_device(l->device));
        SPX_TRY(spx__cuda_alloc(&l->x_dev, (size_t)(l->x_hi - l->x_lo) * P->es, "x on a GPU"));
    }
    int64_t land = 0;
    for (int i = 1; P->gpu_reduce && i < P->parts; i++)
        if (P->part[i].device != P->part[0].device && P->part[i].y_len > land)
            land = P->part[i].y_len;
    if (land > 0) {
        SPX_TRY(spx__cuda_set_device(P->part[0].device));
        SPX_TRY(spx__cuda_alloc(&P->reduce_buf, (size_t)land * P->es, "pcsc sum buffer"));
    }
cleanup:
    return st;
}

void spx__multi_part_destroy(spx_multi_plan *P, int i)
{
    spx__multi_part *p = &P->part[i];
    if (p->device >= 0) spx__cuda_set_device(p->device);
    spx_plan_destroy(p->plan);
    spx_plan_destroy(p->ghost);
    for (int k = 0; k < 2; k++) {
        spx_plan_destroy(p->end_plan[k]);
        spx_matrix_destroy(p->end_view[k]);
        spx_plan_destroy(p->rest_plan[k]);
        spx_matrix_destroy(p->rest_view[k]);
    }
    spx_matrix_destroy(p->own_view);
    for (int v = 0; v < 2; v++) spx_matrix_destroy(p->split_view[v]);
    spx_matrix_destroy(p->span_view);
    spx__free(p->span_cols);
    if (p->device >= 0) {
        spx__cuda_free(p->out);
        spx__cuda_free(p->x_dev);
        spx__cuda_free(p->scratch);
        for (int e = 0; e < SPX__MULTI_EVENTS; e++) spx__cuda_event_destroy(p->ev[e]);
        for (int e = 0; e < 2; e++) spx__cuda_event_destroy(p->ev_x[e]);
        spx__cuda_stream_destroy(p->stream);
    } else {
        spx__free(p->out);
        spx__free(p->scratch);
    }
    spx__free(p->host_out);
    spx__part_free(&p->part);
    memset(p, 0, sizeof *p);
}
