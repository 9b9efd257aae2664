/* Device groups of a multi-device plan (multi.h): the parts of one device,
 * which share resident vectors' buffers there. At plan time: the groups,
 * every part's boundaries and which parts are split (their first line is
 * shared with another part of their device, so that no two parts of a group
 * write one line of a shared y). With the plan's first resident vector: each
 * group's ghost slots (one entry per split part, in part order), on one GPU
 * the pcsc table the combine kernel reads, across devices the halo lists
 * (what a group's parts read that other groups own, merged into disjoint
 * ranges) and each part's landing scratch, and peer access between GPUs. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

spx_status spx__multi_groups_create(spx_multi_plan *P)
{
    spx_status st =
        spx__calloc((void **)&P->group, (size_t)P->parts, sizeof *P->group, "device groups");
    if (st != SPX_OK) return st;
    for (int i = 0; i < P->parts; i++) {
        spx__multi_part *p = &P->part[i];
        int g = 0;
        while (g < P->groups && P->group[g].device != p->device)
            g++;
        if (g == P->groups) {
            P->group[g].device = p->device;
            P->group[g].lead = i;
            P->groups++;
        }
        P->group[g].parts++;
        p->group = g;
    }
    return SPX_OK;
}

static int touches(const spx__part *q, int64_t line)
{
    return q->line_begin <= line && line < q->line_end;
}

void spx__multi_mark_splits(spx_multi_plan *P, const spx_matrix *M)
{
    for (int i = 0; i < P->parts; i++)
        spx__part_bounds(M, P->coo_lines, P->kind, P->parts, i, &P->part[i].part);
    for (int i = 0; P->kind != SPX_PART_PCSC && i < P->parts; i++) {
        spx__multi_part *p = &P->part[i];
        for (int j = 0; p->part.shared_first && j < P->parts && !p->split; j++)
            p->split = j != i && P->part[j].device == p->device &&
                       touches(&P->part[j].part, p->part.line_begin);
    }
}

spx_status spx__multi_alloc_on(const spx_multi_plan *P, int i, int64_t n, void **out,
                               const char *what)
{
    const spx__multi_part *p = &P->part[i];
    if (p->device < 0) return spx__calloc(out, (size_t)n, P->es, what);
    spx_status st = spx__cuda_set_device(p->device);
    if (st != SPX_OK) return st;
    return spx__cuda_alloc(out, (size_t)n * P->es, what);
}

/* Group g's ghost slots, one per split part in part order. */
static spx_status make_slots(spx_multi_plan *P, int g)
{
    spx__multi_group *G = &P->group[g];
    G->ghosts = 0;
    for (int i = 0; i < P->parts; i++) G->ghosts += P->part[i].group == g && P->part[i].split;
    if (G->ghosts == 0) return SPX_OK;
    if (!G->slots) {
        spx_status st = spx__multi_alloc_on(P, G->lead, G->ghosts, &G->slots, "ghost slots");
        if (st != SPX_OK) return st;
    }
    for (int i = 0, k = 0; i < P->parts; i++)
        if (P->part[i].group == g && P->part[i].split)
            P->part[i].slot = (char *)G->slots + (size_t)k++ * P->es;
    return SPX_OK;
}

/* One GPU, pcsc: where each part's partial y is and what it covers, and the
 * lines the merge sums. */
static spx_status make_partials(spx_multi_plan *P)
{
    spx__cuda_partial t[SPX_MULTI_MAX_PARTS];
    if (P->group[0].partials) return SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        const spx__multi_part *p = &P->part[i];
        t[i].v = p->out;
        t[i].base = p->y_begin;
        t[i].span_lo = p->span_lo;
        t[i].span_hi = p->span_hi;
    }
    spx_status st = spx__cuda_set_device(P->group[0].device);
    if (st == SPX_OK)
        st = spx__cuda_upload(&P->group[0].partials, t, (size_t)P->parts * sizeof *t,
                              "pcsc partials");
    if (st == SPX_OK && P->nruns > 0)
        st = spx__cuda_upload(&P->group[0].runs, P->runs, (size_t)P->nruns * sizeof *P->runs,
                              "pcsc merge runs");
    return st;
}

/* The entries of x part i reads, [*lo, *hi): the span of its columns for row
 * kinds, its columns for pcsc. */
static void reads(const spx_multi_plan *P, int i, int64_t *lo, int64_t *hi)
{
    const spx__multi_part *p = &P->part[i];
    int rows = P->kind != SPX_PART_PCSC;
    *lo = rows ? p->span_lo : p->x_begin;
    *hi = rows ? p->span_hi : p->x_begin + p->x_len;
}

/* h[0..*n) of one source, sorted by lo and merged where they overlap or meet. */
static void merge_ranges(spx__multi_halo *h, int *n)
{
    for (int a = 1; a < *n; a++)
        for (int b = a; b > 0 && h[b].lo < h[b - 1].lo; b--) {
            spx__multi_halo t = h[b];
            h[b] = h[b - 1];
            h[b - 1] = t;
        }
    int m = 0;
    for (int a = 0; a < *n; a++) {
        if (m > 0 && h[a].lo <= h[m - 1].hi) {
            if (h[a].hi > h[m - 1].hi) h[m - 1].hi = h[a].hi;
        } else {
            h[m++] = h[a];
        }
    }
    *n = m;
}

/* Whether group g's GPU reads its halo itself (spx__cuda_pull): it reaches
 * every source's memory, and SPX_MULTI_PULL=0 does not ask for copy engines
 * (for comparisons). */
static int can_pull(const spx_multi_plan *P, int g)
{
    const spx__multi_group *G = &P->group[g];
    const char *env = getenv("SPX_MULTI_PULL");
    if (G->device < 0 || (env && strcmp(env, "0") == 0)) return 0;
    for (int h = 0; h < G->halos; h++)
        if (!spx__cuda_peer_on(G->device, P->part[G->halo[h].src].device)) return 0;
    return 1;
}

/* Group g's halo: for each part q of another group, in part order, the lines
 * of own(q) its parts read. */
static spx_status make_halo(spx_multi_plan *P, int g)
{
    spx__multi_group *G = &P->group[g];
    if (G->halo) return SPX_OK;
    spx_status st = spx__alloc((void **)&G->halo, (size_t)G->parts * (size_t)P->parts,
                               sizeof *G->halo, "halo ranges");
    if (st != SPX_OK) return st;
    for (int q = 0; q < P->parts; q++) {
        if (P->part[q].group == g) continue;
        int64_t b, e;
        int n = 0;
        spx__multi_own(P, q, &b, &e);
        for (int i = 0; i < P->parts; i++) {
            int64_t lo, hi;
            if (P->part[i].group != g) continue;
            reads(P, i, &lo, &hi);
            spx__multi_halo r = {q, lo > b ? lo : b, hi < e ? hi : e};
            if (r.hi > r.lo) G->halo[G->halos + n++] = r;
        }
        merge_ranges(G->halo + G->halos, &n);
        G->halos += n;
    }
    G->pull = can_pull(P, g);
    G->pull_blocks = SPX__MULTI_PULL_BLOCKS;
    for (int i = 0; i < P->parts; i++)
        if (P->part[i].group == g && P->part[i].overlap)
            G->pull_blocks = SPX__MULTI_PULL_BLOCKS_BESIDE;
    return SPX_OK;
}

/* Across devices: each part's landing scratch, and peer access between GPUs. */
static spx_status prepare_devices(spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        int64_t b, e;
        spx__multi_own(P, i, &b, &e);
        if (!P->part[i].scratch)
            SPX_TRY(spx__multi_alloc_on(P, i, e - b > 1 ? e - b : 1, &P->part[i].scratch,
                                        "resident scratch"));
        for (int j = 0; spx__multi_on_gpu(P) && j < P->parts; j++)
            SPX_TRY(spx__cuda_enable_peer(P->part[i].device, P->part[j].device));
    }
    for (int g = 0; g < P->groups; g++) {
        SPX_TRY(make_halo(P, g));
        if (P->group[g].device >= 0 && !P->group[g].halo_stream) {
            SPX_TRY(spx__cuda_set_device(P->group[g].device));
            SPX_TRY(spx__cuda_stream_create(&P->group[g].halo_stream));
        }
    }
    SPX_TRY(spx__multi_barrier_prepare(P));
cleanup:
    return st;
}

/* Each step keeps what an earlier, failed attempt made. */
spx_status spx__multi_resident_prepare(spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    if (P->resident_ready) return SPX_OK;
    for (int i = 0; P->kind == SPX_PART_PCSC && i < P->parts; i++)
        if (!P->part[i].out)
            SPX_TRY(
                spx__multi_alloc_on(P, i, P->part[i].y_len, &P->part[i].out, "a part's partial y"));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(make_slots(P, g));
    if (P->groups > 1) SPX_TRY(prepare_devices(P));
    if (P->groups == 1 && P->kind == SPX_PART_PCSC && spx__multi_on_gpu(P))
        SPX_TRY(make_partials(P));
    P->resident_ready = 1;
cleanup:
    return st;
}

void spx__multi_groups_destroy(spx_multi_plan *P)
{
    spx__multi_barrier_destroy(P);
    for (int g = 0; P->group && g < P->groups; g++) {
        spx__multi_group *G = &P->group[g];
        if (G->device < 0) {
            spx__free(G->slots);
        } else {
            spx__cuda_set_device(G->device);
            spx__cuda_free(G->slots);
            spx__cuda_free(G->partials);
            spx__cuda_free(G->runs);
            spx__cuda_stream_destroy(G->halo_stream);
        }
        spx__free(G->halo);
    }
    spx__free(P->group);
    P->group = NULL;
}
