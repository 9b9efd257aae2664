/* Where every GPU group of a multi plan must wait for every other
 * (spx__multi_meet): before a merge reads the parts' products, before a
 * solver sums the parts' dots, before a solver's product reads its peers'
 * x. Two ways, the same order:
 *   events  each lead's stream waits for an event of every other part's:
 *           groups x (parts - 1) edges between devices;
 *   flags   each lead waits for its own group's parts (one device), then
 *           the leads pass a barrier of flags (src/cuda/multi/barrier.cu).
 * An edge between devices inside a CUDA graph costs about 1.4 us, one after
 * another: on 4 H200s the events took 17-20 us, the flags 4.0 us; on 3 GPUs
 * 6.5 against 3.7; on 2 the events win, 2.7 against 3.4 (run NC,
 * bench/experiments/msrep/graph_barrier.cu). So flags from 3 GPU groups
 * on, where every GPU reaches every other's memory; SPX_MULTI_BARRIER=events
 * or =flags (from 2 groups) chooses.
 *
 * Every meet launches one barrier on every lead, so their counts agree; a
 * launch that fails on one lead breaks that, and the plan goes back to
 * events (broken). So does a barrier that waited too long (late), which
 * spx__multi_barrier_late reports once, dropping the resident call's
 * recorded graph (it holds the barriers). */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"

struct spx__multi_barrier {
    unsigned long long **mine; /* group g's counters on its device: groups + 1 */
    int *late;                 /* pinned host: a member waited too long */
    int broken;                /* the counts may disagree: events from now on */
    unsigned long long timeout_ns;
    int skip; /* tests: the group whose next barrier is not launched, -1: none */
};

/* Flags wanted and possible: 2 to SPX__CUDA_BARRIER_MAX GPU groups (3 by
 * default), every pair reaching each other's memory. */
static int wants_flags(const spx_multi_plan *P)
{
    const char *env = getenv("SPX_MULTI_BARRIER");
    int least = env && strcmp(env, "flags") == 0 ? 2 : 3;
    if ((env && strcmp(env, "events") == 0) || P->groups < least ||
        P->groups > SPX__CUDA_BARRIER_MAX || !spx__multi_on_gpu(P))
        return 0;
    for (int g = 0; g < P->groups; g++)
        for (int h = 0; h < P->groups; h++)
            if (g != h && !spx__cuda_peer_on(P->group[g].device, P->group[h].device)) return 0;
    return 1;
}

spx_status spx__multi_barrier_prepare(spx_multi_plan *P)
{
    spx__multi_barrier *b = NULL;
    spx_status st = SPX_OK;
    if (P->barrier || !wants_flags(P)) return SPX_OK;
    const size_t bytes = ((size_t)P->groups + 1) * sizeof(unsigned long long);
    SPX_TRY(spx__calloc((void **)&b, 1, sizeof *b, "barrier"));
    SPX_TRY(spx__calloc((void **)&b->mine, (size_t)P->groups, sizeof *b->mine, "barrier"));
    for (int g = 0; g < P->groups; g++) {
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        SPX_TRY(spx__cuda_alloc((void **)&b->mine[g], bytes, "barrier flags"));
        SPX_TRY(spx__cuda_memset(b->mine[g], 0, bytes, NULL));
        SPX_TRY(spx__cuda_sync(NULL));
    }
    SPX_TRY(spx__cuda_host_alloc((void **)&b->late, sizeof *b->late, "barrier"));
    *b->late = 0;
    b->timeout_ns = SPX__CUDA_BARRIER_NS;
    b->skip = -1;
    P->barrier = b;
    b = NULL;
cleanup:
    if (b) {
        P->barrier = b;
        spx__multi_barrier_destroy(P);
    }
    return st;
}

void spx__multi_barrier_destroy(spx_multi_plan *P)
{
    spx__multi_barrier *b = P->barrier;
    if (!b) return;
    for (int g = 0; b->mine && g < P->groups; g++)
        if (b->mine[g] && spx__cuda_set_device(P->group[g].device) == SPX_OK)
            spx__cuda_free(b->mine[g]);
    spx__cuda_host_free(b->late);
    spx__free(b->mine);
    spx__free(b);
    P->barrier = NULL;
}

int spx__multi_flags_on(const spx_multi_plan *P)
{
    return P->barrier && !P->barrier->broken;
}

/* Lead of group g waits for its own group's other parts (one device). */
static spx_status lead_waits_group(const spx_multi_plan *P, int g)
{
    const int lead = P->group[g].lead;
    spx_status st = spx__cuda_set_device(P->group[g].device);
    for (int i = 0; st == SPX_OK && i < P->parts; i++)
        if (i != lead && P->part[i].group == g)
            st = spx__cuda_stream_wait(P->part[lead].stream, P->part[i].ev[SPX__MULTI_MEET]);
    return st;
}

static spx_status meet_by_flags(const spx_multi_plan *P)
{
    spx__multi_barrier *b = P->barrier;
    spx_status st = SPX_OK;
    for (int g = 0; g < P->groups; g++) {
        spx__cuda_barrier_args a = {.mine = b->mine[g],
                                    .late = b->late,
                                    .timeout_ns = b->timeout_ns,
                                    .me = g,
                                    .n = P->groups};
        for (int h = 0; h < P->groups; h++)
            a.peer[h] = b->mine[h] + g;
        if ((st = lead_waits_group(P, g)) == SPX_OK && g != b->skip)
            st = spx__cuda_barrier(&a, P->part[P->group[g].lead].stream);
        if (st != SPX_OK) {
            b->broken = g > 0; /* the leads before g passed one barrier more */
            return st;
        }
    }
    b->skip = -1;
    return SPX_OK;
}

static spx_status meet_by_events(const spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    for (int g = 0; g < P->groups; g++) {
        const int lead = P->group[g].lead;
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        for (int i = 0; i < P->parts; i++)
            if (i != lead)
                SPX_TRY(
                    spx__cuda_stream_wait(P->part[lead].stream, P->part[i].ev[SPX__MULTI_MEET]));
    }
cleanup:
    return st;
}

spx_status spx__multi_meet(const spx_multi_plan *P)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < P->parts; i++) {
        SPX_TRY(spx__cuda_set_device(P->part[i].device));
        SPX_TRY(spx__cuda_event_record(P->part[i].ev[SPX__MULTI_MEET], P->part[i].stream));
    }
    return spx__multi_flags_on(P) ? meet_by_flags(P) : meet_by_events(P);
cleanup:
    return st;
}

void spx__multi_barrier_test(spx_multi_plan *P, int skip, unsigned long long timeout_ns)
{
    if (!P->barrier) return;
    P->barrier->skip = skip;
    P->barrier->timeout_ns = timeout_ns;
}

spx_status spx__multi_barrier_late(spx_multi_plan *P)
{
    spx__multi_barrier *b = P->barrier;
    if (!b || !*(volatile int *)b->late) return SPX_OK;
    *b->late = 0;
    b->broken = 1;
    int caller = spx__multi_device_save(P);
    for (int i = 0; i < P->parts; i++) /* nothing of the recorded call still running */
        if (spx__cuda_set_device(P->part[i].device) == SPX_OK) spx__cuda_sync(P->part[i].stream);
    spx__multi_graph_free(P); /* a recorded call holds the barriers: record again */
    spx__multi_device_restore(caller);
    return spx__error(SPX_ERR_DEVICE,
                      "the GPUs of a multi plan did not meet at a barrier within %.3g s (a GPU "
                      "stopped?); the plan orders its GPUs by events from now on",
                      (double)b->timeout_ns / 1e9);
}
