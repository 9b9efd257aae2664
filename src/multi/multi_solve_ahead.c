/* The multi solvers' registers on the GPUs, so that a solve across GPUs is
 * queued ahead as a one-GPU solve is (solve.h's spx__solve_iterate).
 *
 * Each GPU (group) keeps a register file (scalars.h). A part's dots go to
 * its partial sums on its device (the `partial` of its vspace); once every
 * part's are queued, each group's lead stream waits for all of them (the
 * leads meet: spx__multi_meet, by events or a barrier of flags) and one
 * thread there sums them in part order into its registers (the host's order,
 * so the same bits) and runs the program: every GPU holds the same values,
 * and updates read their coefficients from their own GPU's file. Every
 * part's stream then waits for its own group's sum, whose registers it
 * reads next. Its next dots go to its other buffer of partial sums, so they
 * need not wait for the other groups' sums that read the last ones; the
 * dots after those reuse this buffer, and come after every group's sum of
 * it: each group's sum of the dots in between waited for every part, and
 * each part for its own group's. Group 0 publishes its registers
 * for the host (a ring of pinned copies, an event each). A product is
 * replayed without a host wait (spx__multi_graph's no_wait) and every
 * stream waits for it. Needs every part on a GPU and every GPU reaching the
 * others' memory; the crew stays off: one thread issues everything, so an
 * event is always recorded before it is waited for. SPX_MULTI_AHEAD=0 keeps
 * the registers on the host. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi_solve_space.h"

/* Every part on a GPU, every pair of GPUs reaching each other. */
static int can_go_ahead(const spx_multi_plan *P)
{
    const char *env = getenv("SPX_MULTI_AHEAD");
    if ((env && strcmp(env, "0") == 0) || !spx__multi_on_gpu(P)) return 0;
    for (int g = 0; g < P->groups; g++)
        for (int h = 0; h < P->groups; h++) {
            int a = P->group[g].device, b = P->group[h].device;
            if (g == h) continue;
            if (spx__cuda_enable_peer(a, b) != SPX_OK || !spx__cuda_peer_on(a, b)) {
                spx__clear_error();
                return 0;
            }
        }
    return 1;
}

static spx_status part_buffers(spx__multi_space *m, spx__multi_ahead *a, int i)
{
    const size_t bytes = 2 * SPX__V_MAX_DOTS * sizeof(double);
    spx_status st = spx__cuda_set_device(m->P->part[i].device);
    if (st == SPX_OK) st = spx__cuda_alloc((void **)&a->partial[i], bytes, "solver partial dots");
    if (st == SPX_OK) st = spx__cuda_memset(a->partial[i], 0, bytes, m->P->part[i].stream);
    if (st == SPX_OK) st = spx__cuda_event_create(&a->dot_ev[i]);
    return st;
}

static spx_status group_buffers(spx__multi_space *m, spx__multi_ahead *a, int g)
{
    const spx__multi_group *G = &m->P->group[g];
    const int parts = m->P->parts;
    const size_t bytes = SPX__S_REGS * sizeof(double);
    double **both = NULL; /* buffer b of part i at [b * parts + i] */
    spx_status st = spx__calloc((void **)&both, 2 * (size_t)parts, sizeof *both, "solver dots");
    for (int i = 0; st == SPX_OK && i < parts; i++) {
        both[i] = a->partial[i];
        both[parts + i] = a->partial[i] + SPX__V_MAX_DOTS;
    }
    if (st == SPX_OK) st = spx__cuda_set_device(G->device);
    if (st == SPX_OK) st = spx__cuda_alloc((void **)&a->regs[g], bytes, "solver registers");
    if (st == SPX_OK) st = spx__cuda_memset(a->regs[g], 0, bytes, m->P->part[G->lead].stream);
    if (st == SPX_OK) st = spx__cuda_event_create(&a->comb_ev[g]);
    if (st == SPX_OK)
        st = spx__cuda_upload(&a->table[g], both, 2 * (size_t)parts * sizeof *both,
                              "solver dot table");
    spx__free(both);
    return st;
}

/* The ring and the product's event, on part 0's device. */
static spx_status host_side(spx__multi_space *m, spx__multi_ahead *a)
{
    spx_status st = spx__cuda_set_device(m->P->part[0].device);
    if (st == SPX_OK)
        st = spx__cuda_host_alloc((void **)&a->ring, SPX__V_RING * SPX__S_REGS * sizeof(double),
                                  "solver register copies");
    for (int k = 0; k < SPX__V_RING && st == SPX_OK; k++)
        st = spx__cuda_event_create(&a->ring_ev[k]);
    if (st == SPX_OK) st = spx__cuda_event_create(&a->done);
    return st;
}

spx_status spx__multi_ahead_create(spx__multi_space *m)
{
    const spx_multi_plan *P = m->P;
    spx__multi_ahead *a = NULL;
    spx_status st;
    if (!can_go_ahead(P)) return SPX_OK;
    SPX_TRY(spx__calloc((void **)&a, 1, sizeof *a, "solver registers"));
    m->ahead = a;
    SPX_TRY(spx__calloc((void **)&a->regs, (size_t)P->groups, sizeof *a->regs, "solver registers"));
    SPX_TRY(spx__calloc((void **)&a->table, (size_t)P->groups, sizeof *a->table, "solver"));
    SPX_TRY(spx__calloc((void **)&a->comb_ev, (size_t)P->groups, sizeof *a->comb_ev, "solver"));
    SPX_TRY(spx__calloc((void **)&a->partial, (size_t)P->parts, sizeof *a->partial, "solver"));
    SPX_TRY(spx__calloc((void **)&a->dot_ev, (size_t)P->parts, sizeof *a->dot_ev, "solver"));
    for (int i = 0; i < P->parts; i++)
        SPX_TRY(part_buffers(m, a, i));
    for (int g = 0; g < P->groups; g++)
        SPX_TRY(group_buffers(m, a, g));
    SPX_TRY(host_side(m, a));
    for (int i = 0; i < P->parts; i++) {
        m->part[i].regs = a->regs[P->part[i].group];
        m->part[i].partial = a->partial[i];
    }
cleanup:
    return st;
}

void spx__multi_ahead_destroy(spx__multi_space *m)
{
    spx__multi_ahead *a = m->ahead;
    spx_multi_plan *P = m->P;
    if (!a) return;
    for (int i = 0; i < P->parts; i++) {
        m->part[i].regs = m->part[i].partial = NULL; /* borrowed: not the part's to free */
        if (spx__cuda_set_device(P->part[i].device) != SPX_OK) continue;
        spx__cuda_sync(P->part[i].stream);
        if (a->partial) spx__cuda_free(a->partial[i]);
        if (a->dot_ev) spx__cuda_event_destroy(a->dot_ev[i]);
    }
    for (int g = 0; g < P->groups; g++) {
        if (spx__cuda_set_device(P->group[g].device) != SPX_OK) continue;
        if (a->regs) spx__cuda_free(a->regs[g]);
        if (a->table) spx__cuda_free(a->table[g]);
        if (a->comb_ev) spx__cuda_event_destroy(a->comb_ev[g]);
    }
    if (spx__cuda_set_device(P->part[0].device) == SPX_OK) {
        spx__cuda_graph_destroy(a->iteration);
        spx__cuda_host_free(a->ring);
        for (int k = 0; k < SPX__V_RING; k++)
            spx__cuda_event_destroy(a->ring_ev[k]);
        spx__cuda_event_destroy(a->done);
    }
    spx__free(a->regs);
    spx__free(a->table);
    spx__free(a->comb_ev);
    spx__free(a->partial);
    spx__free(a->dot_ev);
    spx__free(a);
    m->ahead = NULL;
}

int spx__multi_v_ahead(const spx__multi_space *m)
{
    return m->ahead != NULL;
}

/* After every part's dots (k of them; none: the program alone): each
 * group's sum and program, group 0's registers published as slot's copy
 * (slot >= 0), every stream after its group's sum; dots summed, the next
 * go to the other buffer. */
static spx_status combine(const spx__multi_space *m, int k, const int *dst, const spx__sprog *p,
                          int64_t slot)
{
    const spx_multi_plan *P = m->P;
    const spx__multi_ahead *a = m->ahead;
    const int r = (int)(slot % SPX__V_RING);
    spx_status st;
    SPX_TRY(spx__multi_meet(P));
    for (int g = 0; g < P->groups; g++) {
        void *lead = P->part[P->group[g].lead].stream;
        double *copy = g == 0 && slot >= 0 ? a->ring + r * SPX__S_REGS : NULL;
        SPX_TRY(spx__cuda_set_device(P->group[g].device));
        const double *const *table = (const double *const *)a->table[g] + a->buffer * P->parts;
        SPX_TRY(spx__cuda_vcombine(a->regs[g], table, P->parts, k, dst, p, copy, lead));
        if (copy) SPX_TRY(spx__cuda_event_record(a->ring_ev[r], lead));
        SPX_TRY(spx__cuda_event_record(a->comb_ev[g], lead));
    }
    for (int i = 0; i < P->parts; i++) {
        SPX_TRY(spx__cuda_set_device(P->part[i].device));
        SPX_TRY(spx__cuda_stream_wait(P->part[i].stream, a->comb_ev[P->part[i].group]));
    }
    if (k > 0) spx__multi_ahead_use_buffer(m, !a->buffer);
cleanup:
    return st;
}

/* The operation's part on part i's lines, its device current (parts
 * without lines skipped: their partial sums stay 0). */
typedef spx_status (*part_fn)(const spx__multi_space *m, int i, const void *ctx);

static spx_status each_part(const spx__multi_space *m, part_fn f, const void *ctx)
{
    int caller = spx__multi_device_save(m->P);
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++)
        if (m->part[i].n > 0 && (st = spx__cuda_set_device(m->P->part[i].device)) == SPX_OK)
            st = f(m, i, ctx);
    spx__multi_device_restore(caller);
    return st;
}

/* A combine on the calling thread's device afterwards restored. */
static spx_status combined(const spx__multi_space *m, int k, const int *dst, const spx__sprog *p,
                           int64_t slot)
{
    int caller = spx__multi_device_save(m->P);
    spx_status st = combine(m, k, dst, p, slot);
    spx__multi_device_restore(caller);
    return st;
}

spx_status spx__multi_v_scalars(const spx__multi_space *m, const spx__sprog *p)
{
    return combined(m, 0, NULL, p, -1);
}

typedef struct dots_args {
    int k;
    const void *const *a, *const *b;
} dots_args;

static spx_status part_dots(const spx__multi_space *m, int i, const void *ctx)
{
    const dots_args *d = ctx;
    const void *ai[SPX__V_MAX_DOTS], *bi[SPX__V_MAX_DOTS];
    for (int j = 0; j < d->k; j++) {
        ai[j] = spx__multi_lines(m, d->a[j], i);
        bi[j] = spx__multi_lines(m, d->b[j], i);
    }
    return spx__v_dots_regs(&m->part[i], d->k, ai, bi, NULL, NULL, -1);
}

spx_status spx__multi_v_dots_regs(const spx__multi_space *m, int k, const void *const *a,
                                  const void *const *b, const int *dst, const spx__sprog *p,
                                  int64_t slot)
{
    const dots_args d = {k, a, b};
    spx_status st = each_part(m, part_dots, &d);
    return st == SPX_OK ? combined(m, k, dst, p, slot) : st;
}

spx_status spx__multi_v_snapshot(const spx__multi_space *m, int64_t slot, double *regs)
{
    const int r = (int)(slot % SPX__V_RING);
    spx_status st = spx__cuda_event_sync(m->ahead->ring_ev[r]);
    if (st == SPX_OK) st = spx__multi_barrier_late(m->P);
    if (st == SPX_OK) memcpy(regs, m->ahead->ring + r * SPX__S_REGS, SPX__S_REGS * sizeof *regs);
    return st;
}

typedef struct lincomb_args {
    const spx__coef *c;
    const void *x, *z;
    void *y;
} lincomb_args;

static spx_status part_lincomb(const spx__multi_space *m, int i, const void *ctx)
{
    const lincomb_args *l = ctx;
    return spx__v_lincomb(&m->part[i], l->c[0], spx__multi_lines(m, l->x, i), l->c[1],
                          spx__multi_lines(m, l->y, i), l->c[2],
                          l->z ? spx__multi_lines(m, l->z, i) : NULL);
}

spx_status spx__multi_v_lincomb(const spx__multi_space *m, const spx__coef *c, const void *x,
                                void *y, const void *z)
{
    const lincomb_args l = {c, x, z, y};
    return each_part(m, part_lincomb, &l);
}

static spx_status part_lincomb_dot(const spx__multi_space *m, int i, const void *ctx)
{
    const lincomb_args *l = ctx;
    return spx__v_lincomb_dot(&m->part[i], l->c[0], spx__multi_lines(m, l->x, i), l->c[1],
                              spx__multi_lines(m, l->y, i), l->c[2],
                              l->z ? spx__multi_lines(m, l->z, i) : NULL, 0, NULL, -1);
}

spx_status spx__multi_v_lincomb_dot(const spx__multi_space *m, const spx__coef *c, const void *x,
                                    void *y, const void *z, int dst, const spx__sprog *p,
                                    int64_t slot)
{
    const lincomb_args l = {c, x, z, y};
    spx_status st = each_part(m, part_lincomb_dot, &l);
    return st == SPX_OK ? combined(m, 1, &dst, p, slot) : st;
}

typedef struct cg_args {
    int a;
    void *x, *r, *z;
    const void *p, *q, *d;
} cg_args;

static spx_status part_cg_step(const spx__multi_space *m, int i, const void *ctx)
{
    const cg_args *c = ctx;
    return spx__v_cg_step(&m->part[i], c->a, spx__multi_lines(m, c->x, i),
                          spx__multi_lines(m, c->p, i), spx__multi_lines(m, c->r, i),
                          spx__multi_lines(m, c->q, i), c->d ? spx__multi_lines(m, c->d, i) : NULL,
                          c->d ? spx__multi_lines(m, c->z, i) : NULL, NULL, NULL, -1);
}

spx_status spx__multi_v_cg_step(const spx__multi_space *m, int a, void *x, const void *p, void *r,
                                const void *q, const void *d, void *z, const int *dst,
                                const spx__sprog *prog, int64_t slot)
{
    const cg_args c = {a, x, r, z, p, q, d};
    spx_status st = each_part(m, part_cg_step, &c);
    return st == SPX_OK ? combined(m, d ? 2 : 1, dst, prog, slot) : st;
}

static spx_status part_bicgstab_step(const spx__multi_space *m, int i, const void *ctx)
{
    const spx__bicgstab_step *b = ctx;
    const spx__bicgstab_step bi = {spx__multi_lines(m, b->x, i),
                                   spx__multi_lines(m, b->r, i),
                                   spx__multi_lines(m, b->phat, i),
                                   spx__multi_lines(m, b->shat, i),
                                   spx__multi_lines(m, b->s, i),
                                   spx__multi_lines(m, b->t, i),
                                   spx__multi_lines(m, b->rhat, i),
                                   b->alpha,
                                   b->omega,
                                   b->half};
    return spx__v_bicgstab_step(&m->part[i], &bi, NULL, NULL, -1);
}

spx_status spx__multi_v_bicgstab_step(const spx__multi_space *m, const spx__bicgstab_step *b,
                                      const int *dst, const spx__sprog *p, int64_t slot)
{
    spx_status st = each_part(m, part_bicgstab_step, b);
    return st == SPX_OK ? combined(m, 2, dst, p, slot) : st;
}

spx_status spx__multi_ahead_after_product(const spx__multi_space *m)
{
    const spx_multi_plan *P = m->P;
    int caller = spx__multi_device_save(P);
    spx_status st = spx__cuda_set_device(P->part[0].device);
    if (st == SPX_OK) st = spx__cuda_event_record(m->ahead->done, P->part[0].stream);
    for (int i = 1; st == SPX_OK && i < P->parts; i++)
        if ((st = spx__cuda_set_device(P->part[i].device)) == SPX_OK)
            st = spx__cuda_stream_wait(P->part[i].stream, m->ahead->done);
    spx__multi_device_restore(caller);
    return st;
}
