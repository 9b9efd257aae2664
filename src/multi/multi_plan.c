/* Multi-device plans (multi.h): checks, devices and their groups, the kind's
 * source (A, A^T for op T, the CSC for pcsc, row indices for pcoo), then
 * every part made in a thread of its own, then the leaders' x buffers. */
#include <omp.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/multi.h"
#include "plan/format.h"

double spx__multi_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

spx_multi_opts spx_multi_opts_default(void)
{
    spx_multi_opts m;
    memset(&m, 0, sizeof m);
    m.partition = SPX_PART_PCSR;
    m.parts = 1;
    return m;
}

static spx_status check_request(const spx_plan_opts *o, const spx_multi_opts *m)
{
    if ((unsigned)m->partition > (unsigned)SPX_PART_ROWS)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown partition kind %d", (int)m->partition);
    if (m->parts < 1 || m->parts > SPX_MULTI_MAX_PARTS)
        return spx__error(SPX_ERR_INVALID_ARG, "%d parts: a multi plan takes 1..%d", m->parts,
                          SPX_MULTI_MAX_PARTS);
    if (o->device != SPX_DEV_CPU && o->device != SPX_DEV_CUDA)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown device %d", (int)o->device);
    int gpus = spx__cuda_device_count();
    for (int i = 0; m->devices && i < m->parts; i++) {
        int d = m->devices[i];
        if (d < SPX_MULTI_CPU)
            return spx__error(SPX_ERR_INVALID_ARG, "part %d: device %d is neither a GPU nor "
                              "SPX_MULTI_CPU", i, d);
        if (d >= 0 && !spx__cuda_compiled())
            return spx__error(SPX_ERR_NOT_COMPILED,
                              "part %d is on GPU %d but SpX was built without CUDA", i, d);
        if (d >= gpus)
            return spx__error(gpus ? SPX_ERR_INVALID_ARG : SPX_ERR_NO_DEVICE,
                              "part %d is on GPU %d but %d CUDA device%s available", i, d, gpus,
                              gpus == 1 ? " is" : "s are");
    }
    return SPX_OK;
}

/* The device of each part: the caller's list, or o's device round robin. */
static spx_status assign_devices(spx_multi_plan *P, const spx_plan_opts *o,
                                 const spx_multi_opts *m)
{
    int gpus = spx__cuda_device_count();
    if (!m->devices && o->device == SPX_DEV_CUDA && gpus == 0)
        return spx__error(spx__cuda_compiled() ? SPX_ERR_NO_DEVICE : SPX_ERR_NOT_COMPILED,
                          "a CUDA multi plan without a usable GPU%s",
                          spx__cuda_compiled() ? "" : " (SpX was built without CUDA)");
    for (int i = 0; i < P->parts; i++) {
        int d = m->devices ? m->devices[i] : o->device == SPX_DEV_CUDA ? i % gpus : SPX_MULTI_CPU;
        P->part[i].device = d;
        P->part[i].leader = i;
        for (int j = 0; d >= 0 && j < i; j++)
            if (P->part[j].device == d) {
                P->part[i].leader = j;
                break;
            }
        if (d >= 0) P->any_cuda = 1;
    }
    P->gpu_reduce = P->kind == SPX_PART_PCSC;
    for (int i = 0; i < P->parts; i++)
        if (P->part[i].device < 0) P->gpu_reduce = 0;
    return spx__multi_groups_create(P);
}

/* Row of each nonzero of M, its row-sorted COO (pcoo's source). */
static spx_status coo_lines(const spx_matrix *M, int64_t **out)
{
    spx_status st = spx__alloc((void **)out, (size_t)M->nnz, sizeof **out, "pcoo row indices");
    if (st != SPX_OK) return st;
    int64_t *r = *out;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < M->rows; i++)
        for (int64_t k = spx__row_off(M, i); k < spx__row_off(M, i + 1); k++)
            r[k] = i;
    return SPX_OK;
}

/* The matrix the parts cut: A or A^T (row kinds cut op(A), pcsc its CSC). */
static spx_status make_source(spx_multi_plan *P, const spx_matrix *A, spx_op op,
                              const spx_matrix **M)
{
    spx_status st = SPX_OK;
    double t0 = spx__multi_now_ms();
    int transpose = (P->kind == SPX_PART_PCSC) == (op == SPX_OP_N);
    *M = A;
    if (transpose) {
        SPX_TRY(spx_matrix_transpose(A, &P->source));
        *M = P->source;
    }
    if (P->kind == SPX_PART_PCOO) SPX_TRY(coo_lines(*M, &P->coo_lines));
    P->times.convert_ms = spx__multi_now_ms() - t0;
cleanup:
    return st;
}

/* pcsc parts under AUTO take AUTO's pick for A as a whole, per device kind
 * among the parts (op N: op(A) is A itself). A part is a block of A's
 * columns, its rows A's rows cut short: judged alone, AUTO took csr for the
 * blocks of R-MAT scale 20 where dasp, its pick for A, ran 4 parts in 0.319
 * ms against 0.414 (one H100, run AE of 2026-11-26). */
static void pcsc_formats(spx_multi_plan *P, const spx_matrix *A, const spx_plan_opts *o)
{
    if (P->kind != SPX_PART_PCSC || o->op != SPX_OP_N) return;
    if (o->format && *o->format && strcmp(o->format, "auto") != 0) return;
    for (int cuda = 0; cuda < 2; cuda++) {
        int present = 0;
        for (int i = 0; i < P->parts; i++) present |= (P->part[i].device >= 0) == cuda;
        if (!present) continue;
        spx_plan_opts w = *o;
        w.device = cuda ? SPX_DEV_CUDA : SPX_DEV_CPU;
        const spx_format_ops *f = spx__auto_format(A, SPX_OP_SPMV, &w);
        P->pcsc_format[cuda] = f ? f->name : NULL;
    }
    spx__clear_error();
}

/* Every part in a thread of its own, its boundaries and split set before:
 * views and spans, then (pcsc's alone rows known) plans; the slowest part's
 * phases are the plan's. */
static spx_status make_parts(spx_multi_plan *P, const spx_matrix *M, const spx_plan_opts *o)
{
    spx__multi_mark_splits(P, M);
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
    for (int i = 0; i < P->parts; i++)
        spx__multi_note(&P->part[i], spx__multi_part_start(P, M, i));
    spx_status st = spx__multi_failure(P, "plan");
    if (st == SPX_OK) st = spx__multi_alone_rows(P);
    if (st != SPX_OK) return st;
#pragma omp parallel for schedule(static, 1) num_threads(P->parts)
    for (int i = 0; i < P->parts; i++)
        spx__multi_note(&P->part[i], spx__multi_part_finish(P, o, i));
    st = spx__multi_failure(P, "plan");
    if (st != SPX_OK) return st;
    for (int i = 0; i < P->parts; i++) {
        if (P->part[i].partition_ms > P->times.partition_ms)
            P->times.partition_ms = P->part[i].partition_ms;
        if (P->part[i].prepare_ms > P->times.prepare_ms)
            P->times.prepare_ms = P->part[i].prepare_ms;
    }
    return spx__multi_leaders(P);
}

spx_status spx_multi_plan_create(const spx_matrix *A, const spx_plan_opts *opts,
                                 const spx_multi_opts *mopts, spx_multi_plan **out)
{
    spx_plan_opts o = opts ? *opts : spx_plan_opts_default();
    spx_multi_opts m = mopts ? *mopts : spx_multi_opts_default();
    spx_multi_plan *P = NULL;
    const spx_matrix *M = NULL;
    int caller = -1;
    spx_status st = spx__check_matrix(A, "spx_multi_plan_create");
    if (st != SPX_OK) return st;
    if (!out) return spx__error(SPX_ERR_INVALID_ARG, "output plan pointer is NULL");
    *out = NULL;
    SPX_TRY(check_request(&o, &m));
    SPX_TRY(spx__calloc((void **)&P, 1, sizeof *P, "multi plan"));
    P->magic = SPX__MULTI_MAGIC;
    P->kind = m.partition;
    P->parts = m.parts;
    P->graph.off = m.no_graph != 0;
    P->overlap = m.overlap;
    P->vtype = o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    P->es = P->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    P->rows = o.op == SPX_OP_N ? A->rows : A->cols;
    P->cols = o.op == SPX_OP_N ? A->cols : A->rows;
    SPX_TRY(spx__calloc((void **)&P->part, (size_t)P->parts, sizeof *P->part, "multi parts"));
    SPX_TRY(assign_devices(P, &o, &m));
    caller = spx__multi_device_save(P);
    SPX_TRY(make_source(P, A, o.op, &M));
    pcsc_formats(P, A, &o);
    SPX_TRY(make_parts(P, M, &o));
    spx__multi_device_restore(caller);
    *out = P;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx__multi_device_restore(caller);
    spx_multi_plan_destroy(P);
    return st;
}

void spx_multi_plan_destroy(spx_multi_plan *P)
{
    if (!P || P->magic != SPX__MULTI_MAGIC) return;
    spx__keep_free(&P->solve_keep); /* on the parts' streams: before the parts go */
    int caller = spx__multi_device_save(P);
    spx__multi_graph_destroy(P);
    if (P->reduce_buf) {
        spx__cuda_set_device(P->part[0].device);
        spx__cuda_free(P->reduce_buf);
    }
    spx__multi_groups_destroy(P);
    for (int i = 0; P->part && i < P->parts; i++) spx__multi_part_destroy(P, i);
    spx__multi_device_restore(caller);
    spx__free(P->part);
    spx_matrix_destroy(P->source);
    spx__free(P->coo_lines);
    spx__free(P->runs);
    P->magic = 0;
    spx__free(P);
}
