/* The sym format's prepared form (sym.c), shared with its update
 * (sym_update.c) and its AUTO rule (sym_auto.c). A = L + D + L^T: L strictly
 * lower in CSR with int32 columns, D the diagonal. */
#ifndef SPX_CPU_SYM_H
#define SPX_CPU_SYM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/format.h"
#include "spx.h"

typedef struct spx__sym_state {
    int64_t n;
    int64_t *rowptr;   /* L's n+1 offsets */
    int32_t *col;      /* L's columns */
    void *val;         /* L's values, of the plan's precision */
    void *diag;        /* D, n values */
    uint8_t *has_diag; /* 1 where A stores a_ii (spx_plan_update_values skips it else) */
    spx_type precision;
    int64_t prefetch; /* parameter prefetch=: entries of L read ahead (0: none) */
    int threads;
    int64_t *part;   /* threads+1 row boundaries */
    int64_t *lo;     /* per thread: the lowest column its rows' mirror terms reach */
    int64_t *buf_at; /* threads+1: thread t's buffer is [buf_at[t], buf_at[t+1]) */
    void *scratch;   /* buf_at[threads] numbers, for one call at a time */
    atomic_int scratch_busy;
    /* Built by the first update_values: A's row offsets and, per entry of L,
     * the position in A's CSR order of its mirror a_ji. */
    int64_t *a_rowptr;
    int64_t *mirror;
} spx__sym_state;

static inline size_t spx__sym_elem_size(const spx__sym_state *s)
{
    return s->precision == SPX_F32 ? sizeof(float) : sizeof(double);
}

static inline int64_t spx__sym_l_nnz(const spx__sym_state *s)
{
    return s->rowptr[s->n];
}

/* spx_plan_update_values (sym_update.c). */
spx_status spx__sym_update_values(void *state, const void *values, int on_device);
/* AUTO's rule (sym_auto.c). */
double spx__sym_suits(const spx_matrix *A, const spx__auto_facts *f);

#endif
