/* A slot on a handle where an operation keeps what it allocated, for the
 * next call on the same handle to reuse (a solver's vectors and buffers on
 * its plan: allocating them again, pinned host memory most of all, cost a
 * 100-iteration CG on lap3d7:64 a third of its time on one H200). Taken
 * and given back atomically, so that two calls at once never share it: the
 * second finds the slot empty and allocates its own, and what is given back
 * to a full slot is freed. Freed with the handle. */
#ifndef SPX_CORE_KEEP_H
#define SPX_CORE_KEEP_H

#include <stddef.h>

typedef struct spx__keep {
    void *held;               /* NULL: empty */
    void (*free_fn)(void *p); /* frees what is held */
} spx__keep;

/* What the slot held (NULL: nothing), the slot left empty. */
static inline void *spx__keep_take(spx__keep *k)
{
    return __atomic_exchange_n(&k->held, NULL, __ATOMIC_ACQ_REL);
}

/* p into the slot, or freed with free_fn when the slot is full. */
static inline void spx__keep_give(spx__keep *k, void *p, void (*free_fn)(void *))
{
    void *empty = NULL;
    __atomic_store_n(&k->free_fn, free_fn, __ATOMIC_RELEASE);
    if (!__atomic_compare_exchange_n(&k->held, &empty, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        free_fn(p);
}

/* Free what the slot holds (the handle's destroy). */
static inline void spx__keep_free(spx__keep *k)
{
    void *p = spx__keep_take(k);
    if (p) k->free_fn(p);
}

#endif
