/* A crew: n host threads, each running in order the operations posted to
 * it, so that a caller can hand each GPU's work to a thread of its own and
 * go on (a multi-device solve: multi_solve.c). Posting copies an operation
 * of op_bytes into the worker's ring and returns at once (it waits only
 * while the ring is full); wait returns once every worker has run every
 * operation posted before it. A worker that fails skips the operations
 * after its failure until the next wait, which returns the first failure's
 * status and message. Workers spin, pausing, while they have nothing to
 * run (a response in well under a microsecond; a crew lives for one solve),
 * and yield the core after a while. */
#ifndef SPX_MULTI_CREW_H
#define SPX_MULTI_CREW_H

#include <stddef.h>

#include "spx.h"

typedef struct spx__crew spx__crew;

/* Worker w runs op (a copy of what was posted to it); ctx as given to start. */
typedef spx_status (*spx__crew_fn)(void *ctx, int w, const void *op);

spx_status spx__crew_start(int n, size_t op_bytes, spx__crew_fn fn, void *ctx, spx__crew **out);
void spx__crew_post(spx__crew *c, int w, const void *op);
spx_status spx__crew_wait(spx__crew *c);
/* Waits for the workers, ends their threads and frees c (NULL: a no-op). */
void spx__crew_stop(spx__crew *c);

#endif
