/* What a multi-device plan tells about itself: its times and its parts. */
#include <string.h>

#include "core/error.h"
#include "multi/multi.h"

static spx_status check_plan(const spx_multi_plan *P)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is NULL");
    if (P->magic != SPX__MULTI_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "multi plan handle is freed or not a multi plan");
    return SPX_OK;
}

spx_status spx_multi_times(const spx_multi_plan *P, spx_multi_timing *t)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (!t) return spx__error(SPX_ERR_INVALID_ARG, "spx_multi_times: NULL output");
    *t = P->times;
    return SPX_OK;
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
    info->bytes = spx_plan_bytes(p->plan);
    info->numa_node = p->numa_node;
    return SPX_OK;
}
