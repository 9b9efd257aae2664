/* The solvers' vectors on a multi-device plan (multi_solve.h). Part i owns
 * lines [lo_i, lo_i + n_i) of every resident vector (spx__multi_own; they
 * tile 0..n-1), in the buffer of its device; an operation runs as vec.c's
 * on each part's lines, on its device and stream. dot adds the parts' sums
 * in part order, each summed as vec.c sums (fixed blocks on the host,
 * cuda/blas1 on a GPU), so it is the same bits every call for a fixed part
 * count; the dots of an operation are queued on every part before the host
 * waits for any, so the devices sum at once and the host waits once a part.
 * A resident product reads lines other parts own (its halo): where the call
 * forks every part's stream from part 0's (spx__multi_call_forks), part 0's
 * stream waits for an event of every other part's before it, with no host
 * wait; else the host waits for every part's stream.
 * Across GPUs a crew (crew.h) has a thread per GPU issue its parts'
 * operations, so the GPUs' launches and waits happen at once: the solver's
 * thread posts each operation and goes on, and waits for the crew at a dot
 * (for the sums) and before it touches the streams itself (a product, a new
 * vector, a freed one). On 2 H200s (run KC, CG, 100 iterations) lap3d27:128
 * took 0.223-0.225 ms an iteration against 0.255-0.264 without the crew;
 * lap3d7:200 0.359-0.363 against 0.354-0.364. */
#include "multi/multi_solve.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/blas1/blas1.h"
#include "cuda/gateway.h"
#include "multi/multi_solve_space.h"

/* An operation on every part's lines: y = alpha*a[0] + beta*y + gamma*b[0]
 * (AXPBY; b[0] unused with gamma == 0), y = a[0] .* b[0] (MUL), or
 * sums[i][j] = a[j] . b[j] over part i's lines, j < k (DOTS). */
typedef enum { OP_AXPBY, OP_MUL, OP_DOTS } op_kind;

typedef struct space_op {
    op_kind kind;
    int k;
    double alpha, beta, gamma;
    const void *a[SPX__V_MAX_DOTS], *b[SPX__V_MAX_DOTS];
    void *y;
} space_op;

void spx__multi_space_free(spx__multi_space *m)
{
    if (!m) return;
    spx__crew_stop(m->crew);
    spx__multi_ahead_destroy(m);
    int caller = m->part ? spx__multi_device_save(m->P) : -1;
    for (int i = 0; m->part && i < m->P->parts; i++) {
        if (m->part[i].cuda && spx__cuda_set_device(m->P->part[i].device) != SPX_OK) continue;
        spx__vspace_free(&m->part[i]);
        if (m->ready) spx__cuda_event_destroy(m->ready[i]);
    }
    if (m->part) spx__multi_device_restore(caller);
    spx__free(m->part);
    spx__free(m->lo);
    spx__free(m->ready);
    spx__free(m->sums);
    spx__free(m);
}

/* Part i's space: its own lines, its stream, its dot buffers and an event
 * on its device. */
static spx_status part_space(const spx_multi_plan *P, int i, spx__vspace *s, int64_t *lo,
                             void **ready)
{
    const spx__multi_part *p = &P->part[i];
    int64_t e;
    spx__multi_own(P, i, lo, &e);
    memset(s, 0, sizeof *s);
    s->n = e - *lo;
    s->t = P->vtype;
    s->cuda = p->device >= 0;
    s->stream = p->stream;
    if (!s->cuda) return SPX_OK;
    spx_status st = spx__cuda_set_device(p->device);
    if (st != SPX_OK) {
        s->cuda = 0; /* nothing to free */
        return st;
    }
    st = spx__vspace_dot_buffers(s);
    return st == SPX_OK ? spx__cuda_event_create(ready) : st;
}

static spx_status run_group(void *ctx, int g, const void *op);

/* Several GPUs: a thread each. SPX_MULTI_CREW=0: none, every operation
 * issued by the solver's thread, part after part; =1: a crew whatever the
 * devices (CPU parts, one group: how the tests run it without a GPU). */
static int wants_crew(const spx_multi_plan *P)
{
    const char *env = getenv("SPX_MULTI_CREW");
    if (env && strcmp(env, "0") == 0) return 0;
    if (env && strcmp(env, "1") == 0) return 1;
    return spx__multi_on_gpu(P) && P->groups > 1;
}

spx_status spx__multi_space_init(spx_multi_plan *P, spx__multi_space **out, int64_t *n, spx_type *t)
{
    spx__multi_space *m = NULL;
    spx_status st;
    *out = NULL;
    *n = P->rows;
    *t = P->vtype;
    if (P->rows != P->cols)
        return spx__error(SPX_ERR_DIM_MISMATCH, "a solver needs a square matrix, not %lld x %lld",
                          (long long)P->rows, (long long)P->cols);
    int caller = spx__multi_device_save(P);
    SPX_TRY(spx__calloc((void **)&m, 1, sizeof *m, "multi solver space"));
    m->P = P;
    SPX_TRY(
        spx__calloc((void **)&m->part, (size_t)P->parts, sizeof *m->part, "multi solver parts"));
    SPX_TRY(spx__calloc((void **)&m->lo, (size_t)P->parts, sizeof *m->lo, "multi solver parts"));
    SPX_TRY(
        spx__calloc((void **)&m->ready, (size_t)P->parts, sizeof *m->ready, "multi solver events"));
    SPX_TRY(spx__calloc((void **)&m->sums, (size_t)P->parts, sizeof *m->sums, "multi solver dots"));
    for (int i = 0; i < P->parts; i++)
        SPX_TRY(part_space(P, i, &m->part[i], &m->lo[i], &m->ready[i]));
    SPX_TRY(spx__multi_ahead_create(m));
    if (!m->ahead && wants_crew(P))
        SPX_TRY(spx__crew_start(P->groups, sizeof(space_op), run_group, m, &m->crew));
    spx__multi_device_restore(caller);
    *out = m;
    return SPX_OK;
cleanup:
    spx__multi_device_restore(caller);
    spx__multi_space_free(m);
    return st;
}

spx_status spx__multi_v_check(const spx__multi_space *m, const void *v)
{
    return spx__multi_vector_check(m->P, (const spx_multi_vector *)v);
}

static void *lines(const spx__multi_space *m, const void *v, int i)
{
    return spx__multi_lines(m, v, i);
}

/* Make part i's device current for an operation on its lines; 0: nothing to do there. */
static int enter(const spx__multi_space *m, int i, spx_status *st)
{
    if (m->part[i].n == 0) return 0;
    if (m->part[i].cuda) *st = spx__cuda_set_device(m->P->part[i].device);
    return *st == SPX_OK;
}

/* Part i's lines of the k vectors v[j]. */
static void lines_of(const spx__multi_space *m, int i, int k, const void *const *v,
                     const void **out)
{
    for (int j = 0; j < k; j++)
        out[j] = lines(m, v[j], i);
}

/* op on part i, its device current; DOTS queued only. */
static spx_status part_op(const spx__multi_space *m, int i, const space_op *op)
{
    const void *ai[SPX__V_MAX_DOTS], *bi[SPX__V_MAX_DOTS];
    switch (op->kind) {
    case OP_AXPBY:
        return spx__v_axpbypcz(&m->part[i], op->alpha, lines(m, op->a[0], i), op->beta,
                               lines(m, op->y, i), op->gamma,
                               op->gamma != 0.0 ? lines(m, op->b[0], i) : NULL);
    case OP_MUL:
        return spx__v_mul(&m->part[i], lines(m, op->a[0], i), lines(m, op->b[0], i),
                          lines(m, op->y, i));
    default:
        lines_of(m, i, op->k, op->a, ai);
        lines_of(m, i, op->k, op->b, bi);
        return spx__v_dots_queue(&m->part[i], op->k, ai, bi);
    }
}

/* DOTS: part i's sums into m->sums[i], once its device has them. */
static spx_status part_take(const spx__multi_space *m, int i, const space_op *op)
{
    const void *ai[SPX__V_MAX_DOTS], *bi[SPX__V_MAX_DOTS];
    lines_of(m, i, op->k, op->a, ai);
    lines_of(m, i, op->k, op->b, bi);
    return spx__v_dots_take(&m->part[i], op->k, ai, bi, m->sums[i]);
}

/* op on the parts of group g (every part: g < 0), each queued before any
 * is taken. */
static spx_status run_parts(const spx__multi_space *m, int g, const space_op *op)
{
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++) {
        if (g >= 0 && m->P->part[i].group != g) continue;
        memset(m->sums[i], 0, sizeof m->sums[i]); /* a part without lines adds 0 */
        if (enter(m, i, &st)) st = part_op(m, i, op);
    }
    for (int i = 0; st == SPX_OK && op->kind == OP_DOTS && i < m->P->parts; i++)
        if ((g < 0 || m->P->part[i].group == g) && enter(m, i, &st)) st = part_take(m, i, op);
    return st;
}

/* A crew worker's step: op on its GPU's parts. */
static spx_status run_group(void *ctx, int g, const void *op)
{
    return run_parts(ctx, g, op);
}

/* op on every part: handed to the crew (each GPU's parts by its thread;
 * DOTS waits for them), else by this thread. */
static spx_status run(const spx__multi_space *m, const space_op *op)
{
    if (m->crew) {
        for (int g = 0; g < m->P->groups; g++)
            spx__crew_post(m->crew, g, op);
        return op->kind == OP_DOTS ? spx__crew_wait(m->crew) : SPX_OK;
    }
    int caller = spx__multi_device_save(m->P);
    spx_status st = run_parts(m, -1, op);
    spx__multi_device_restore(caller);
    return st;
}

/* Before this thread uses the parts' streams or frees a vector: the crew's
 * operations are all queued (and their failures reported). */
static spx_status settle(const spx__multi_space *m)
{
    return m->crew ? spx__crew_wait(m->crew) : SPX_OK;
}

spx_status spx__multi_settle(const spx__multi_space *m)
{
    return settle(m);
}

int spx__multi_v_gpu(const spx__multi_space *m)
{
    return spx__multi_on_gpu(m->P);
}

spx_status spx__multi_v_axpbypcz(const spx__multi_space *m, double alpha, const void *x,
                                 double beta, void *y, double gamma, const void *z)
{
    space_op op = {
        .kind = OP_AXPBY, .alpha = alpha, .beta = beta, .gamma = gamma, .a = {x}, .b = {z}, .y = y};
    return run(m, &op);
}

spx_status spx__multi_v_mul(const spx__multi_space *m, const void *d, const void *x, void *y)
{
    space_op op = {.kind = OP_MUL, .a = {d}, .b = {x}, .y = y};
    return run(m, &op);
}

spx_status spx__multi_v_dots(const spx__multi_space *m, int k, const void *const *a,
                             const void *const *b, double *out)
{
    space_op op = {.kind = OP_DOTS, .k = k};
    for (int j = 0; j < k; j++) {
        op.a[j] = a[j];
        op.b[j] = b[j];
    }
    spx_status st = run(m, &op);
    for (int j = 0; j < k; j++) {
        out[j] = 0.0;
        for (int i = 0; i < m->P->parts; i++) /* part order */
            out[j] += m->sums[i][j];
    }
    return st;
}

spx_status spx__multi_v_zero(const spx__multi_space *m, void *v)
{
    spx_status st = settle(m);
    int caller = spx__multi_device_save(m->P);
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++)
        if (enter(m, i, &st))
            st = spx__multi_scale(m->P, lines(m, v, i), 0.0, m->part[i].n, m->part[i].stream);
    spx__multi_device_restore(caller);
    return st;
}

spx_status spx__multi_v_alloc(const spx__multi_space *m, void **v, const char *what)
{
    spx_multi_vector *w = NULL;
    spx_status st = settle(m);
    if (st == SPX_OK) st = spx_multi_vector_create(m->P, &w);
    (void)what; /* spx_multi_vector_create names its buffers */
    if (st == SPX_OK) st = spx__multi_v_zero(m, w);
    if (st != SPX_OK) spx_multi_vector_destroy(w);
    *v = st == SPX_OK ? w : NULL;
    return st;
}

void spx__multi_v_free(const spx__multi_space *m, void *v)
{
    settle(m); /* a failure there was the solve's to report */
    spx_multi_vector_destroy((spx_multi_vector *)v);
}

spx_status spx__multi_v_from_host(const spx__multi_space *m, const double *host, void **v,
                                  const char *what)
{
    const spx_multi_plan *P = m->P;
    void *typed = NULL;
    spx_status st = settle(m);
    *v = NULL;
    if (st == SPX_OK) st = spx__alloc(&typed, (size_t)P->rows + 1, P->es, what);
    if (st != SPX_OK) return st;
    for (int64_t k = 0; k < P->rows; k++)
        if (P->vtype == SPX_F64)
            ((double *)typed)[k] = host[k];
        else
            ((float *)typed)[k] = (float)host[k];
    spx_multi_vector *w = NULL;
    st = spx_multi_vector_create(m->P, &w);
    if (st == SPX_OK) st = spx_multi_vector_set(w, typed);
    if (st != SPX_OK) spx_multi_vector_destroy(w);
    spx__free(typed);
    *v = st == SPX_OK ? w : NULL;
    return st;
}

/* Part 0's stream waits for every other GPU part's work queued so far. */
static spx_status order_after_parts(const spx__multi_space *m)
{
    const spx_multi_plan *P = m->P;
    spx_status st = SPX_OK;
    for (int i = 1; i < P->parts; i++) {
        SPX_TRY(spx__cuda_set_device(P->part[i].device));
        SPX_TRY(spx__cuda_event_record(m->ready[i], P->part[i].stream));
    }
    SPX_TRY(spx__cuda_set_device(P->part[0].device));
    for (int i = 1; i < P->parts; i++)
        SPX_TRY(spx__cuda_stream_wait(P->part[0].stream, m->ready[i]));
cleanup:
    return st;
}

static spx_status wait_for_parts(const spx__multi_space *m)
{
    spx_status st = SPX_OK;
    for (int i = 0; st == SPX_OK && i < m->P->parts; i++)
        if (m->part[i].cuda && (st = spx__cuda_set_device(m->P->part[i].device)) == SPX_OK)
            st = spx__cuda_sync(m->part[i].stream);
    return st;
}

/* The product of a solve whose registers are on the GPUs and whose leads
 * meet by flags: queued, no fork, join or host wait (multi.h). */
static spx_status meeting_product(const spx__multi_space *m, double alpha, const void *x,
                                  double beta, void *y)
{
    int caller = spx__multi_device_save(m->P);
    spx_status st = spx__multi_queue_meeting(m->P, alpha, (const spx_multi_vector *)x, beta,
                                             (spx_multi_vector *)y);
    spx__multi_device_restore(caller);
    return st;
}

spx_status spx__multi_v_spmv(const spx__multi_space *m, double alpha, const void *x, double beta,
                             void *y)
{
    if (m->ahead && spx__multi_flags_on(m->P) && m->P->rows > 0 && x != y)
        return meeting_product(m, alpha, x, beta, y);
    spx_status st = settle(m);
    if (st == SPX_OK && spx__multi_on_gpu(m->P)) {
        int caller = spx__multi_device_save(m->P);
        st = spx__multi_call_forks(m->P) ? order_after_parts(m) : wait_for_parts(m);
        spx__multi_device_restore(caller);
    }
    if (st != SPX_OK) return st;
    /* the solve's product only: the plan, and the space kept on it, outlive
     * the solve, and a caller's own resident call waits as it always did */
    m->P->graph.no_wait = m->ahead != NULL;
    st = spx_multi_spmv_resident(m->P, alpha, (spx_multi_vector *)x, beta, (spx_multi_vector *)y);
    m->P->graph.no_wait = 0;
    return st == SPX_OK && m->ahead ? spx__multi_ahead_after_product(m) : st;
}
