/* The crew's workers (crew.h). Each worker has a ring of RING operations:
 * the poster writes slot posted % RING, then publishes posted + 1 (release);
 * the worker reads posted (acquire), runs slot done % RING, then publishes
 * done + 1 (release), which the poster reads (acquire) before it reuses a
 * slot or returns from wait. One poster thread at a time. */
#include "multi/crew.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"

#define RING 64
#define SPINS_BEFORE_YIELD 2000

typedef struct worker {
    spx__crew *crew;
    int index;
    pthread_t thread;
    int started;
    unsigned char *ring; /* RING operations */
    _Atomic uint64_t posted, done;
    spx_status status; /* first failure since the last wait (the worker's to write) */
    char message[512];
} worker;

struct spx__crew {
    int n;
    size_t op_bytes;
    spx__crew_fn fn;
    void *ctx;
    _Atomic int stop;
    worker *w;
};

static void relax(unsigned *spins)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (++*spins >= SPINS_BEFORE_YIELD) {
        *spins = 0;
        sched_yield();
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    spx__crew *c = w->crew;
    uint64_t done = 0;
    unsigned spins = 0;
    for (;;) {
        uint64_t posted = atomic_load_explicit(&w->posted, memory_order_acquire);
        if (posted == done) {
            if (atomic_load_explicit(&c->stop, memory_order_acquire)) break;
            relax(&spins);
            continue;
        }
        spins = 0;
        const void *op = w->ring + (size_t)(done % RING) * c->op_bytes;
        if (w->status == SPX_OK) {
            spx_status st = c->fn(c->ctx, w->index, op);
            if (st != SPX_OK) {
                snprintf(w->message, sizeof w->message, "%s", spx_last_error());
                w->status = st;
            }
        }
        atomic_store_explicit(&w->done, ++done, memory_order_release);
    }
    return NULL;
}

void spx__crew_post(spx__crew *c, int w_index, const void *op)
{
    worker *w = &c->w[w_index];
    uint64_t posted = atomic_load_explicit(&w->posted, memory_order_relaxed);
    unsigned spins = 0;
    while (posted - atomic_load_explicit(&w->done, memory_order_acquire) >= RING)
        relax(&spins);
    memcpy(w->ring + (size_t)(posted % RING) * c->op_bytes, op, c->op_bytes);
    atomic_store_explicit(&w->posted, posted + 1, memory_order_release);
}

spx_status spx__crew_wait(spx__crew *c)
{
    spx_status st = SPX_OK;
    for (int i = 0; i < c->n; i++) {
        worker *w = &c->w[i];
        uint64_t posted = atomic_load_explicit(&w->posted, memory_order_relaxed);
        unsigned spins = 0;
        while (atomic_load_explicit(&w->done, memory_order_acquire) != posted)
            relax(&spins);
        if (w->status != SPX_OK && st == SPX_OK)
            st = spx__error(w->status, "%s", w->message);
        w->status = SPX_OK; /* the worker is idle: its fields are the poster's until the next post */
    }
    return st;
}

void spx__crew_stop(spx__crew *c)
{
    if (!c) return;
    atomic_store_explicit(&c->stop, 1, memory_order_release);
    for (int i = 0; c->w && i < c->n; i++) {
        if (c->w[i].started) pthread_join(c->w[i].thread, NULL);
        spx__free(c->w[i].ring);
    }
    spx__free(c->w);
    spx__free(c);
}

spx_status spx__crew_start(int n, size_t op_bytes, spx__crew_fn fn, void *ctx, spx__crew **out)
{
    spx__crew *c = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(spx__calloc((void **)&c, 1, sizeof *c, "solver crew"));
    c->n = n;
    c->op_bytes = op_bytes;
    c->fn = fn;
    c->ctx = ctx;
    atomic_init(&c->stop, 0);
    SPX_TRY(spx__calloc((void **)&c->w, (size_t)n, sizeof *c->w, "solver crew"));
    for (int i = 0; i < n; i++) {
        worker *w = &c->w[i];
        w->crew = c;
        w->index = i;
        atomic_init(&w->posted, 0);
        atomic_init(&w->done, 0);
        SPX_TRY(spx__alloc((void **)&w->ring, RING, op_bytes, "solver crew ring"));
        if (pthread_create(&w->thread, NULL, work, w) != 0) {
            st = spx__error(SPX_ERR_OOM, "solver crew: no thread %d of %d", i + 1, n);
            goto cleanup;
        }
        w->started = 1;
    }
    *out = c;
    return SPX_OK;
cleanup:
    spx__crew_stop(c);
    return st;
}
