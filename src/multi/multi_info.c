/* What a multi-device plan tells about itself: its times and its parts. */
#include <string.h>

#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

static spx_status check_plan(const spx_multi_plan *P)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL");
    if (P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is freed or not a multi plan");
    return SPX_OK;
}

/* Elapsed ms from `from` to `to` (0 when not known). */
static double since(void *from, void *to)
{
    float ms = 0.0f;
    return spx__cuda_event_elapsed(from, to, &ms) == SPX_OK ? ms : 0.0;
}

/* Several GPUs (multi_resident_devices.c), each phase the slowest group's,
 * every pair of events on one device: halo ev[0]..ev[1] of the group's
 * lead, a part's product the lead's ev[1]..its ev[2] (an overlapping part's
 * from ev[0], the halo inside), the merge the lead's ev[4]..ev[3]. */
static void groups_phase_times(const spx_multi_plan *P, spx_multi_timing *t)
{
    for (int g = 0; g < P->groups; g++) {
        const spx__multi_part *lead = &P->part[P->group[g].lead];
        if (spx__cuda_set_device(P->group[g].device) != SPX_OK) return;
        double halo = since(lead->ev[0], lead->ev[1]), merge = since(lead->ev[4], lead->ev[3]);
        t->distribute_ms = halo > t->distribute_ms ? halo : t->distribute_ms;
        t->merge_ms = merge > t->merge_ms ? merge : t->merge_ms;
        for (int i = 0; i < P->parts; i++) {
            const spx__multi_part *p = &P->part[i];
            double spmv = p->group == g ? since(lead->ev[p->overlap ? 0 : 1], p->ev[2]) : 0.0;
            t->spmv_ms = spmv > t->spmv_ms ? spmv : t->spmv_ms;
        }
    }
}

/* A resident call's phases on GPUs from its events (multi_resident.c); on
 * one GPU the slowest part's product since the start, and what ends after
 * it (ghost adds, pcsc's sum). Read here, not per call, to keep the queries
 * off it. A replayed graph (multi_graph.c) has only its whole time: SpMV,
 * halo and merge in it. */
static void gpu_phase_times(const spx_multi_plan *P, spx_multi_timing *t)
{
    const spx__multi_part *lead = &P->part[0];
    int caller = spx__multi_device_save(P);
    double end = 0.0;
    t->distribute_ms = t->spmv_ms = t->merge_ms = 0.0;
    if (spx__cuda_set_device(lead->device) != SPX_OK) return;
    if (P->graph.replayed || P->groups > 1) {
        if (P->graph.replayed)
            t->spmv_ms = since(P->graph.start, P->graph.end);
        else
            groups_phase_times(P, t);
        spx__multi_device_restore(caller);
        return;
    }
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        double spmv = since(lead->ev[0], p->ev[2]);
        double done = p->split ? since(lead->ev[0], p->ev[1]) : spmv;
        t->spmv_ms = spmv > t->spmv_ms ? spmv : t->spmv_ms;
        end = done > end ? done : end;
    }
    if (P->kind == SPX_PART_PCSC) end = since(lead->ev[0], lead->ev[3]);
    t->merge_ms = end > t->spmv_ms ? end - t->spmv_ms : 0.0;
    spx__multi_device_restore(caller);
}

spx_status spx_multi_times(const spx_multi_plan *P, spx_multi_timing *t)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (!t) return spx__error(SPX_ERR_INVALID_ARG, "spx_multi_times: NULL output");
    *t = P->times;
    if (P->times_on_gpu) {
        gpu_phase_times(P, t);
        spx__clear_error(); /* a failed query leaves zeros, not an error */
    }
    return SPX_OK;
}

/* A CSR copy's arrays (0: none). */
static size_t csr_bytes(const spx_matrix *M)
{
    if (!M) return 0;
    return (size_t)M->nnz * (size_t)(M->col_bits / 8 + (M->vtype == SPX_F64 ? 8 : 4)) +
           ((size_t)M->rows + 1) * sizeof(int64_t);
}

int spx_multi_plan_parts(const spx_multi_plan *P)
{
    return P && P->magic == SPX__MULTI_MAGIC ? P->parts : 0;
}

spx_status spx_multi_plan_part(const spx_multi_plan *P, int i, spx_multi_part_info *info)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (!info) return spx__error(SPX_ERR_INVALID_ARG, "spx_multi_plan_part: NULL output");
    if (i < 0 || i >= P->parts)
        return spx__error(SPX_ERR_INVALID_ARG, "part %d of a plan of %d parts", i, P->parts);
    const spx__multi_part *p = &P->part[i];
    memset(info, 0, sizeof *info);
    info->device = p->device;
    info->format = spx_plan_format(p->plan);
    info->first = p->part.line_begin;
    info->count = p->part.line_end - p->part.line_begin;
    info->nnz = p->part.nz_end - p->part.nz_begin;
    info->shared_first = p->part.shared_first;
    info->shared_last = p->part.shared_last;
    info->bytes = spx_plan_bytes(p->plan) + (p->ghost ? spx_plan_bytes(p->ghost) : 0);
    if (p->span_view && p->alone_hi <= p->alone_lo) /* pcsc: its plan's matrix's shifted rows */
        info->bytes += (size_t)p->span_view->nnz * (size_t)(p->span_view->col_bits / 8);
    const spx_matrix *piece[3] = {p->end_view[0], p->alone_hi > p->alone_lo ? p->span_view : NULL,
                                  p->end_view[1]};
    for (int k = 0; k < 3; k++) /* pcsc with alone rows: its pieces' plans and copies */
        if (piece[k])
            info->bytes += (k == 1 ? 0 : spx_plan_bytes(p->end_plan[k / 2])) +
                           (size_t)piece[k]->nnz * (size_t)(piece[k]->col_bits / 8 +
                                                            (piece[k]->vtype == SPX_F64 ? 8 : 4)) +
                           ((size_t)piece[k]->rows + 1) * sizeof(int64_t);
    for (int k = 0; k < 2; k++) /* overlap: the rest's plans, and the CSR copies of the cut */
        info->bytes +=
            (p->rest_plan[k] ? spx_plan_bytes(p->rest_plan[k]) : 0) + csr_bytes(p->rest_view[k]);
    info->bytes += csr_bytes(p->own_view);
    info->numa_node = p->numa_node;
    info->overlapped = p->overlap;
    return SPX_OK;
}
