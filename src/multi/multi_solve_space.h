/* The multi solvers' vector space (multi_solve.c), shared with its
 * operations on registers kept on the GPUs (multi_solve_ahead.c). */
#ifndef SPX_MULTI_SOLVE_SPACE_H
#define SPX_MULTI_SOLVE_SPACE_H

#include "multi/crew.h"
#include "multi/multi.h"
#include "multi/multi_solve.h"
#include "solve/vec.h"

/* Registers on the GPUs (multi_solve_ahead.c), where every part is on a GPU
 * and every GPU reaches the others' memory. */
typedef struct spx__multi_ahead {
    double **regs;    /* group g's register file, on its device */
    double **partial; /* part i's dots, 2 buffers of SPX__V_MAX_DOTS on its device */
    void **table;     /* group g: the parts' buffer pointers, a device array there: buffer b
                         of part i at [b * parts + i] */
    int buffer;       /* the buffer the parts' next dots go to; dots that are combined
                         alternate between the two */
    int recorded_from; /* buffer at the start of a recording (multi_solve_graph.c) */
    void **dot_ev;     /* part i: its stream where a recording starts and ends */
    void **comb_ev;   /* group g: recorded after its combine */
    double *ring;     /* group 0's registers published, SPX__V_RING copies (pinned) */
    void *ring_ev[SPX__V_RING];
    void *done; /* part 0's device: recorded after a product */
    void *iteration; /* a solver's iteration recorded as a graph (multi_solve_graph.c), or NULL */
} spx__multi_ahead;

struct spx__multi_space {
    spx_multi_plan *P;
    spx__vspace *part; /* part i's own lines: count, type, device or host, stream, scratch */
    int64_t *lo;       /* part i's first own line */
    void **ready;      /* GPU part i: recorded on its stream before a product */
    double (*sums)[SPX__V_MAX_DOTS]; /* part i's sums of the last dots */
    spx__crew *crew;                 /* several GPUs: a thread each issues its parts' operations */
    spx__multi_ahead *ahead;         /* registers on the GPUs, or NULL: on the host */
};

/* Part i's own lines of v. */
static inline void *spx__multi_lines(const spx__multi_space *m, const void *v, int i)
{
    return spx__multi_vector_at((const spx_multi_vector *)v, i, m->lo[i]);
}

/* Every part's next dots into buffer b. */
static inline void spx__multi_ahead_use_buffer(const spx__multi_space *m, int b)
{
    m->ahead->buffer = b;
    for (int i = 0; i < m->P->parts; i++)
        m->part[i].partial = m->ahead->partial[i] + b * SPX__V_MAX_DOTS;
}

/* Before this thread queues on the parts' streams: the crew's operations
 * are all queued (and their failures reported). */
spx_status spx__multi_settle(const spx__multi_space *m);

/* m->ahead made where it can be (the crew then stays off), or left NULL. */
spx_status spx__multi_ahead_create(spx__multi_space *m);
void spx__multi_ahead_destroy(spx__multi_space *m);
/* After a product: every part's stream waits for it (it was not waited for). */
spx_status spx__multi_ahead_after_product(const spx__multi_space *m);

#endif
