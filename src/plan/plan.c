/* Plans: a matrix prepared by one registered format on one device for one
 * operation. The plan layer resolves AUTO, transposes for op T (formats only
 * compute A*x), applies the reorder= parameter of SpMV plans, times the
 * preprocessing, offers host vectors for device plans, and checks the
 * operands of SpGEMM. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/keep.h"
#include "core/matrix.h"
#include "cuda/gateway.h"
#include "cuda/values/values.h"
#include "plan/format.h"
#include "plan/entry_map.h"
#include "plan/reorder.h"

#define SPX__PLAN_MAGIC 0x5350585f504c414eull /* "SPX_PLAN" */

struct spx_plan_s {
    uint64_t magic;
    const spx_format_ops *ops;
    spx_operation operation;
    void *state;
    spx_plan_opts opts;
    int64_t out_len, in_len;  /* length of y and x: rows and cols of op(A) */
    int64_t nnz;              /* SDDMM: A's entries, the length of Z */
    spx_matrix *transposed;   /* A^T for op T, kept while the state may borrow it */
    spx__reorder *reorder;    /* params reorder=: P and A' = P op(A) P^T, or NULL */
    /* spx_plan_update_values when the format saw another matrix than A (op T,
     * reorder=): entry_map[e] = where A's entry e went (plan/entry_map.h),
     * built with the plan for CUDA plans and on the first update for CPU
     * plans, from source (A, which a CPU plan's caller keeps alive) */
    int32_t *entry_map;
    /* CUDA plans, from their first update on: the inverse, on the device
     * (format_entry[k] = A's entry at the format's place k), entry_map freed */
    int32_t *format_entry;
    int maps_entries; /* the format's matrix is not A: updates go through entry_map */
    const spx_matrix *source;
    double prep_ms;
    char describe[1024]; /* room for the longest format description (hbp: about 450) */
    spx__keep solve_keep; /* a solver's workspace for the next solve (solve/solve.c) */
};

spx_plan_opts spx_plan_opts_default(void)
{
    spx_plan_opts o;
    memset(&o, 0, sizeof o);
    o.format = "auto";
    o.device = SPX_DEV_CPU;
    o.precision = SPX_F64;
    o.op = SPX_OP_N;
    return o;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static spx_status check_plan(const spx_plan *P)
{
    if (!P) return spx__error(SPX_ERR_BAD_HANDLE, "plan handle is NULL");
    if (P->magic != SPX__PLAN_MAGIC)
        return spx__error(SPX_ERR_BAD_HANDLE, "plan handle is freed or not a plan");
    return SPX_OK;
}

static spx_status check_opts(const spx_plan_opts *o)
{
    if (o->device != SPX_DEV_CPU && o->device != SPX_DEV_CUDA)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown device %d", (int)o->device);
    if (o->precision != SPX_F64 && o->precision != SPX_F32 && o->precision != SPX_F16)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown precision %d", (int)o->precision);
    if (o->op != SPX_OP_N && o->op != SPX_OP_T)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown op %d", (int)o->op);
    if (o->threads < 0 || o->expected_calls < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "negative thread count or expected calls");
    return SPX_OK;
}

static const char *precision_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

static const char *operation_name(spx_operation op)
{
    return op == SPX_OP_SPMV     ? "SpMV"
           : op == SPX_OP_SPGEMM ? "SpGEMM"
           : op == SPX_OP_SPMM   ? "SpMM"
                                 : "SDDMM";
}

/* The names of the formats that take a device matrix for op, ", "-separated. */
static const char *device_matrix_formats(spx_operation op, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; spx__formats[i]; i++)
        if (spx__formats[i]->device_matrix &&
            (spx__format_operations(spx__formats[i]) & SPX__OP_BIT(op)) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     spx__formats[i]->name);
    return buf;
}

/* A device matrix (spx_matrix_wrap_device) has no host arrays: it is planned
 * for SpMV, SpMM, SDDMM (of op N) or SpGEMM on CUDA alone (reorder= is refused
 * by reorder.c, formats that do not take it by resolve_format). */
static spx_status check_device_matrix(const spx_matrix *A, spx_operation op, const spx_plan_opts *o)
{
    char names[128];
    if (!A->dev.on) return SPX_OK;
    device_matrix_formats(op, names, sizeof names);
    if (o->device != SPX_DEV_CUDA)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "a device matrix (spx_matrix_wrap_device) has no host arrays: CPU plans "
                          "read them; plan it on SPX_DEV_CUDA (auto, or format %s)",
                          names);
    if (o->op != SPX_OP_N)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "a device matrix (spx_matrix_wrap_device) has no host arrays: op T "
                          "transposes A on the host; transpose it on the GPU and plan op N");
    return SPX_OK;
}

/* The format for o: the named one, or AUTO's pick; SPX_ERR_NO_FORMAT saying
 * what is missing (no such name, or no kernel for this operation, device and
 * precision); SPX_ERR_UNSUPPORTED for a format that does not take a device
 * matrix A. */
static spx_status resolve_format(const spx_matrix *A, spx_operation op, const spx_plan_opts *o,
                                 const spx_format_ops **ops)
{
    const char *name = o->format && *o->format ? o->format : "auto";
    const char *dev = o->device == SPX_DEV_CUDA ? "cuda" : "cpu";
    char names[128];
    if (strcmp(name, "auto") == 0) {
        *ops = spx__auto_format(A, op, o);
        if (*ops) return SPX_OK;
        const spx_format_ops *any = spx__format_find_any(op, o->device, o->precision, A->dev.on);
        if (any)
            return spx__error(SPX_ERR_NO_FORMAT,
                              "auto: every format computing %s on %s in %s%s declines this "
                              "matrix; name one (format '%s') for its reason",
                              operation_name(op), dev, precision_name(o->precision),
                              A->dev.on ? " for a device matrix" : "", any->name);
        return spx__error(SPX_ERR_NO_FORMAT, "no format computes %s on %s in %s%s yet",
                          operation_name(op), dev, precision_name(o->precision),
                          A->dev.on ? " for a device matrix" : "");
    }
    *ops = spx__format_find(name, op, o->device, o->precision);
    if (*ops && A->dev.on && !(*ops)->device_matrix)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "format '%s' does not take a device matrix (spx_matrix_wrap_device): it "
                          "builds its layout from host arrays; %s formats that take one: %s",
                          name, operation_name(op), device_matrix_formats(op, names, sizeof names));
    if (*ops) return SPX_OK;
    for (int i = 0; spx__formats[i]; i++)
        if (strcmp(spx__formats[i]->name, name) == 0)
            return spx__error(SPX_ERR_NO_FORMAT, "format '%s' has no %s %s %s kernel", name, dev,
                              precision_name(o->precision), operation_name(op));
    return spx__error(SPX_ERR_NO_FORMAT, "no format named '%s' (see spx formats)", name);
}

/* A CUDA plan needs CUDA built in and a GPU. */
static spx_status check_device(const spx_plan_opts *o)
{
    if (o->device != SPX_DEV_CUDA || spx__cuda_device_count() > 0) return SPX_OK;
    if (!spx__cuda_compiled())
        return spx__error(SPX_ERR_NOT_COMPILED, "SpX was built without CUDA (SPX_CUDA=OFF)");
    return spx__error(SPX_ERR_NO_DEVICE,
                      "no CUDA device is available (no GPU seen, or no usable driver)");
}

/* A known operation that some registered format computes on o's device (a
 * request nothing in the table can serve is said so before any device or
 * format check). */
static spx_status check_operation(spx_operation op, const spx_plan_opts *o)
{
    unsigned served = 0;
    if (op != SPX_OP_SPMV && op != SPX_OP_SPGEMM && op != SPX_OP_SPMM && op != SPX_OP_SDDMM)
        return spx__error(SPX_ERR_INVALID_ARG, "unknown operation %d", (int)op);
    if (op == SPX_OP_SPGEMM && o->op != SPX_OP_N)
        return spx__error(SPX_ERR_UNSUPPORTED, "SpGEMM computes A*B; transpose A first");
    if (op == SPX_OP_SDDMM && o->op != SPX_OP_N)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "SDDMM samples A's own entries, in A's order; op T is refused (plan "
                          "the transpose of A instead)");
    for (int i = 0; spx__formats[i]; i++)
        if (spx__format_operations(spx__formats[i]) & SPX__OP_BIT(op))
            served |= spx__formats[i]->devices;
    if (!(served & (unsigned)o->device))
        return spx__error(SPX_ERR_NO_FORMAT, "no format computes %s on %s yet",
                          operation_name(op), o->device == SPX_DEV_CUDA ? "cuda" : "cpu");
    return SPX_OK;
}

/* SpGEMM: the format prepares A alone. */
static spx_status create_spgemm(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P)
{
    spx_status st;
    if ((st = resolve_format(A, SPX_OP_SPGEMM, o, &P->ops)) != SPX_OK) return st;
    P->out_len = A->rows;
    P->in_len = A->cols;
    return P->ops->spgemm_analyze(A, o, &P->state);
}

/* For spx_plan_update_values of a plan whose format saw another matrix than
 * A (op T, reorder=): a CUDA plan builds its entry map now (A may go after
 * spx_plan_create), a CPU plan keeps A to build it on the first update. */
static spx_status prepare_entry_map(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P)
{
    spx_status st = SPX_OK;
    P->nnz = A->nnz;
    P->maps_entries = o->op == SPX_OP_T || spx__reorder_has_order(P->reorder);
    if (!P->maps_entries || !P->ops->update_values) {
        spx__free(spx__reorder_take_entry_map(P->reorder)); /* no update will need it */
        return SPX_OK;
    }
    if (o->device == SPX_DEV_CPU)
        P->source = A;
    else if (o->op == SPX_OP_N) /* the ordering's own map, recorded while it permuted */
        P->entry_map = spx__reorder_take_entry_map(P->reorder);
    else if (A->nnz <= INT32_MAX) /* else updates are refused */
        st = spx__entry_map_build(A, 1, P->reorder, o->threads, &P->entry_map);
    spx__free(spx__reorder_take_entry_map(P->reorder)); /* the plan's map holds it now */
    return st;
}

/* SpMV: op T transposes, reorder= permutes, then the format prepares. */
static spx_status create_spmv(const spx_matrix *A, spx_plan_opts *o, spx_plan *P);
/* SpMM: op T transposes, then the format prepares. */
static spx_status create_spmm(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P);
/* SDDMM: the format prepares A's pattern. */
static spx_status create_sddmm(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P);

spx_status spx_plan_create(const spx_matrix *A, spx_operation operation,
                           const spx_plan_opts *opts, spx_plan **out)
{
    spx_plan_opts o = opts ? *opts : spx_plan_opts_default();
    spx_plan *P = NULL;
    spx_status st = spx__check_matrix_handle(A);
    if (st != SPX_OK) return st;
    if (!out) return spx__error(SPX_ERR_INVALID_ARG, "output plan pointer is NULL");
    *out = NULL;
    SPX_TRY(check_opts(&o));
    SPX_TRY(check_operation(operation, &o));
    SPX_TRY(check_device(&o));
    SPX_TRY(check_device_matrix(A, operation, &o));
    SPX_TRY(spx__calloc((void **)&P, 1, sizeof *P, "plan"));
    P->magic = SPX__PLAN_MAGIC;
    P->operation = operation;
    P->opts = o;
    P->opts.format = NULL; /* the caller's string is not kept */
    P->opts.params = NULL;
    double t0 = now_ms();
    if (operation == SPX_OP_SPGEMM)
        SPX_TRY(create_spgemm(A, &o, P));
    else if (operation == SPX_OP_SPMM)
        SPX_TRY(create_spmm(A, &o, P));
    else if (operation == SPX_OP_SDDMM)
        SPX_TRY(create_sddmm(A, &o, P));
    else
        SPX_TRY(create_spmv(A, &o, P));
    P->prep_ms = now_ms() - t0;
    *out = P;
    spx__clear_error();
    return SPX_OK;
cleanup:
    spx_plan_destroy(P);
    return st;
}

static spx_status create_spmv(const spx_matrix *A, spx_plan_opts *o, spx_plan *P)
{
    spx_status st = SPX_OK;
    const spx_matrix *M = A;
    if (o->op == SPX_OP_T) {
        SPX_TRY(spx_matrix_transpose(A, &P->transposed));
        M = P->transposed;
    }
    SPX_TRY(spx__reorder_create(M, o, &P->reorder)); /* strips reorder= from o->params */
    if (spx__reorder_matrix(P->reorder)) {
        M = spx__reorder_matrix(P->reorder);
        spx_matrix_destroy(P->transposed);
        P->transposed = NULL;
    }
    SPX_TRY(resolve_format(M, SPX_OP_SPMV, o, &P->ops));
    P->out_len = M->rows;
    P->in_len = M->cols;
    SPX_TRY(P->ops->analyze(M, o, &P->state));
    spx__reorder_prepared(P->reorder, P->ops->borrows_matrix);
    SPX_TRY(prepare_entry_map(A, o, P));
    if (!P->ops->borrows_matrix && P->transposed) {
        spx_matrix_destroy(P->transposed);
        P->transposed = NULL;
    }
cleanup:
    return st;
}

/* SpMM and SDDMM plans take no reorder= or vectors= (the permutation of SpMV
 * plans); ctx: the operation's name. */
static spx_status no_reorder_key(void *ctx, const char *key, const char *value)
{
    (void)value;
    if (strcmp(key, "reorder") == 0 || strcmp(key, "vectors") == 0)
        return spx__error(SPX_ERR_BAD_PARAM, "%s= is for SpMV plans; %s plans keep A's order", key,
                          (const char *)ctx);
    return SPX_OK;
}

static spx_status create_spmm(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P)
{
    spx_status st = SPX_OK;
    const spx_matrix *M = A;
    SPX_TRY(spx__params_each(o->params, no_reorder_key, (void *)"SpMM"));
    if (o->op == SPX_OP_T) {
        SPX_TRY(spx_matrix_transpose(A, &P->transposed));
        M = P->transposed;
    }
    SPX_TRY(resolve_format(M, SPX_OP_SPMM, o, &P->ops));
    P->out_len = M->rows;
    P->in_len = M->cols;
    SPX_TRY((P->ops->spmm_analyze ? P->ops->spmm_analyze : P->ops->analyze)(M, o, &P->state));
    SPX_TRY(prepare_entry_map(A, o, P));
    if (!P->ops->borrows_matrix && P->transposed) {
        spx_matrix_destroy(P->transposed);
        P->transposed = NULL;
    }
cleanup:
    return st;
}

static spx_status create_sddmm(const spx_matrix *A, const spx_plan_opts *o, spx_plan *P)
{
    spx_status st = spx__params_each(o->params, no_reorder_key, (void *)"SDDMM");
    if (st == SPX_OK) st = resolve_format(A, SPX_OP_SDDMM, o, &P->ops);
    if (st != SPX_OK) return st;
    P->out_len = A->rows;
    P->in_len = A->cols;
    P->nnz = A->nnz;
    return (P->ops->sddmm_analyze ? P->ops->sddmm_analyze : P->ops->analyze)(A, o, &P->state);
}

void spx_plan_destroy(spx_plan *P)
{
    if (!P || P->magic != SPX__PLAN_MAGIC) return;
    spx__keep_free(&P->solve_keep); /* on the plan's stream: before the plan goes */
    if (P->state) P->ops->destroy(P->state);
    spx__reorder_destroy(P->reorder);
    spx_matrix_destroy(P->transposed);
    spx__free(P->entry_map);
    spx__cuda_free(P->format_entry);
    P->magic = 0;
    spx__free(P);
}

/* Entry checks of a product: a live SpMV plan, and vectors wherever they have
 * entries. */
static spx_status check_call(const spx_plan *P, const void *x, const void *y)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (P->operation != SPX_OP_SPMV)
        return spx__error(SPX_ERR_INVALID_ARG, "the plan was made for %s, not SpMV",
                          operation_name(P->operation));
    if ((P->in_len > 0 && !x) || (P->out_len > 0 && !y))
        return spx__error(SPX_ERR_INVALID_ARG, "x or y is NULL");
    return SPX_OK;
}

spx_status spx_spmv(const spx_plan *P, double alpha, const void *x, double beta, void *y)
{
    spx_status st = check_call(P, x, y);
    if (st != SPX_OK || P->out_len == 0) return st;
    return spx__reorder_spmv(P->reorder, P->ops, P->state, alpha, x, spx_plan_x_type(P), beta,
                             y);
}

/* Device plans with host vectors: copy x (and y when beta reads it) over on
 * the plan's stream, run, copy y back, wait. Convenience, not speed: the
 * device vectors are allocated per call. */
static spx_status spmv_staged(const spx_plan *P, double alpha, const void *x, double beta,
                              void *y)
{
    size_t es = P->opts.precision == SPX_F64 ? sizeof(double) : sizeof(float);
    spx_type xt = spx_plan_x_type(P);
    size_t xes = xt == SPX_F64 ? sizeof(double) : xt == SPX_F32 ? sizeof(float) : sizeof(uint16_t);
    size_t xb = (size_t)P->in_len * xes, yb = (size_t)P->out_len * es;
    void *dx = NULL, *dy = NULL;
    spx_status st;
    SPX_TRY(spx__cuda_alloc(&dx, xb, "x on the device"));
    SPX_TRY(spx__cuda_alloc(&dy, yb, "y on the device"));
    SPX_TRY(spx__cuda_copy_async(dx, x, xb, 1, P->opts.stream));
    if (beta != 0.0) SPX_TRY(spx__cuda_copy_async(dy, y, yb, 1, P->opts.stream));
    SPX_TRY(spx__reorder_spmv(P->reorder, P->ops, P->state, alpha, dx, xt, beta, dy));
    SPX_TRY(spx__cuda_copy_async(y, dy, yb, 0, P->opts.stream));
    SPX_TRY(spx__cuda_sync(P->opts.stream));
cleanup:
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    return st;
}

spx_status spx_spmv_host(const spx_plan *P, double alpha, const void *x, double beta, void *y)
{
    spx_status st = check_call(P, x, y);
    if (st != SPX_OK || P->out_len == 0) return st;
    if (P->opts.device == SPX_DEV_CPU)
        return spx__reorder_spmv(P->reorder, P->ops, P->state, alpha, x, spx_plan_x_type(P), beta,
                                 y);
    return spmv_staged(P, alpha, x, beta, y);
}

/* ------------------------------------------------------------ new values */

/* Entry checks of an update: a live plan of an operation that reads A's
 * values through a format that takes new ones, and values wherever A has
 * entries. */
static spx_status check_update(const spx_plan *P, const void *values)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (P->operation == SPX_OP_SPGEMM)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_plan_update_values: an SpGEMM plan takes no new values of A; "
                          "make a new plan (spx_spgemm_numeric renews B's)");
    if (P->nnz > 0 && !values)
        return spx__error(SPX_ERR_INVALID_ARG, "spx_plan_update_values: values is NULL");
    if (P->operation != SPX_OP_SDDMM && !P->ops->update_values)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_plan_update_values: format '%s' cannot take new values; make "
                          "a new plan",
                          P->ops->name);
    return SPX_OK;
}

/* A CUDA plan's first mapped update: the entry map inverted and moved to
 * the device, where later updates gather through it (the host map freed). */
static spx_status upload_format_entry(spx_plan *P)
{
    const int64_t n = P->nnz;
    int32_t *inv = NULL;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&inv, (size_t)(n > 0 ? n : 1), sizeof *inv,
                       "the plan's entry map, inverted"));
#pragma omp parallel for schedule(static) if (n > 65536)
    for (int64_t e = 0; e < n; e++)
        inv[P->entry_map[e]] = (int32_t)e;
    SPX_TRY(spx__cuda_upload((void **)&P->format_entry, inv, (size_t)n * sizeof *inv,
                             "the plan's entry map on the device"));
    spx__free(P->entry_map);
    P->entry_map = NULL;
cleanup:
    spx__free(inv);
    return st;
}

/* A CUDA plan's mapped update: A's values (host or device) gathered into the
 * format's order on the device, then the format's hook. */
static spx_status update_mapped_cuda(spx_plan *P, const void *values, int on_device)
{
    const spx_type vt = P->opts.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    const size_t es = vt == SPX_F64 ? sizeof(double) : sizeof(float);
    void *ordered = NULL;
    spx_status st;
    if (!P->format_entry) SPX_TRY(upload_format_entry(P));
    SPX_TRY(spx__cuda_alloc(&ordered, (size_t)P->nnz * es, "new values in the format's order"));
    SPX_TRY(spx__cuda_values_gather(ordered, vt, P->nnz, P->format_entry, values, vt, P->nnz,
                                    on_device, P->opts.stream));
    st = P->ops->update_values(P->state, ordered, 1);
cleanup:
    spx__cuda_free(ordered);
    return st;
}

/* An update of a plan whose format saw A^T or P op(A) P^T: A's values put
 * in the format's order through the entry map (a CPU plan's built on its
 * first update; a CUDA plan's on the device), then the format's hook. */
static spx_status update_mapped(spx_plan *P, const void *values, int on_device)
{
    const size_t es = P->opts.precision == SPX_F64 ? sizeof(double) : sizeof(float);
    const size_t n = (size_t)P->nnz;
    unsigned char *ordered = NULL;
    const unsigned char *src = values;
    spx_status st;
    if (!P->entry_map && !P->format_entry && !P->source)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "spx_plan_update_values: a CUDA plan of op T or reorder= holds at most "
                          "2^31 - 1 entries to take new values, not %lld; make a new plan",
                          (long long)P->nnz);
    if (P->opts.device == SPX_DEV_CUDA) return update_mapped_cuda(P, values, on_device);
    if (!P->entry_map)
        SPX_TRY(spx__entry_map_build(P->source, P->opts.op == SPX_OP_T, P->reorder, P->opts.threads,
                                     &P->entry_map));
    SPX_TRY(spx__alloc((void **)&ordered, n ? n : 1, es, "new values in the format's order"));
    const int32_t *map = P->entry_map;
    if (es == sizeof(double)) {
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t e = 0; e < (int64_t)n; e++)
            ((double *)ordered)[map[e]] = ((const double *)src)[e];
    } else {
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t e = 0; e < (int64_t)n; e++)
            ((float *)ordered)[map[e]] = ((const float *)src)[e];
    }
    st = P->ops->update_values(P->state, ordered, 0);
cleanup:
    spx__free(ordered);
    return st;
}

/* Both entry points: values in device memory (on_device: a CUDA plan's
 * spx_plan_update_values) or host memory. SDDMM plans read no values. */
static spx_status update_values(spx_plan *P, const void *values, int on_device)
{
    spx_status st = check_update(P, values);
    if (st != SPX_OK || P->operation == SPX_OP_SDDMM || P->nnz == 0) return st;
    st = P->maps_entries ? update_mapped(P, values, on_device)
                         : P->ops->update_values(P->state, values, on_device);
    if (st == SPX_OK) spx__clear_error();
    return st;
}

spx_status spx_plan_update_values(spx_plan *P, const void *values)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    return update_values(P, values, P->opts.device == SPX_DEV_CUDA);
}

spx_status spx_plan_update_values_host(spx_plan *P, const void *values)
{
    return update_values(P, values, 0);
}

/* Entry checks of an SpMM call: a live SpMM plan, k >= 0, leading
 * dimensions of at least k, X and Y wherever they have entries. */
static spx_status check_spmm_call(const spx_plan *P, int64_t k, const void *X, int64_t ldx,
                                  const void *Y, int64_t ldy)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (P->operation != SPX_OP_SPMM)
        return spx__error(SPX_ERR_INVALID_ARG, "the plan was made for %s, not SpMM",
                          operation_name(P->operation));
    if (k < 0) return spx__error(SPX_ERR_INVALID_ARG, "spx_spmm: k = %lld < 0", (long long)k);
    if (ldx < k || ldy < k)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_spmm: ldx = %lld and ldy = %lld must be at least k = %lld",
                          (long long)ldx, (long long)ldy, (long long)k);
    size_t cells;
    if (spx__mul_size((size_t)(P->in_len > P->out_len ? P->in_len : P->out_len),
                      (size_t)(ldx > ldy ? ldx : ldy), &cells, "spx_spmm: X or Y") != SPX_OK ||
        cells > (size_t)INT64_MAX / sizeof(double))
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_spmm: %lld x %lld entries are more than memory can index",
                          (long long)(P->in_len > P->out_len ? P->in_len : P->out_len),
                          (long long)(ldx > ldy ? ldx : ldy));
    if (k > 0 && ((P->in_len > 0 && !X) || (P->out_len > 0 && !Y)))
        return spx__error(SPX_ERR_INVALID_ARG, "spx_spmm: X or Y is NULL");
    return SPX_OK;
}

spx_status spx_spmm(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                    double beta, void *Y, int64_t ldy)
{
    spx_status st = check_spmm_call(P, k, X, ldx, Y, ldy);
    if (st != SPX_OK || k == 0 || P->out_len == 0) return st;
    return P->ops->spmm(P->state, k, alpha, X, ldx, beta, Y, ldy);
}

/* Device SpMM plans with host X and Y: copied over whole (leading
 * dimensions kept), run, Y copied back, waited for. */
static spx_status spmm_staged(const spx_plan *P, int64_t k, double alpha, const void *X,
                              int64_t ldx, double beta, void *Y, int64_t ldy)
{
    size_t es = P->opts.precision == SPX_F64 ? sizeof(double) : sizeof(float);
    size_t xb = ((size_t)(P->in_len - 1) * (size_t)ldx + (size_t)k) * es;
    size_t yb = ((size_t)(P->out_len - 1) * (size_t)ldy + (size_t)k) * es;
    void *dx = NULL, *dy = NULL;
    spx_status st;
    if (P->in_len == 0) xb = 0; /* A has no columns: X is not read */
    if (xb) SPX_TRY(spx__cuda_alloc(&dx, xb, "X on the device"));
    SPX_TRY(spx__cuda_alloc(&dy, yb, "Y on the device"));
    if (xb) SPX_TRY(spx__cuda_copy_async(dx, X, xb, 1, P->opts.stream));
    /* Y's entries past column k are not the product's: copied over and back as they are. */
    SPX_TRY(spx__cuda_copy_async(dy, Y, yb, 1, P->opts.stream));
    SPX_TRY(P->ops->spmm(P->state, k, alpha, dx, ldx, beta, dy, ldy));
    SPX_TRY(spx__cuda_copy_async(Y, dy, yb, 0, P->opts.stream));
    SPX_TRY(spx__cuda_sync(P->opts.stream));
cleanup:
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    return st;
}

spx_status spx_spmm_host(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                         double beta, void *Y, int64_t ldy)
{
    spx_status st = check_spmm_call(P, k, X, ldx, Y, ldy);
    if (st != SPX_OK || k == 0 || P->out_len == 0) return st;
    if (P->opts.device == SPX_DEV_CPU)
        return P->ops->spmm(P->state, k, alpha, X, ldx, beta, Y, ldy);
    return spmm_staged(P, k, alpha, X, ldx, beta, Y, ldy);
}

/* Entry checks of an SDDMM call: a live SDDMM plan, k >= 0, leading
 * dimensions of at least k, X, Y and Z wherever they have entries. */
static spx_status check_sddmm_call(const spx_plan *P, int64_t k, const void *X, int64_t ldx,
                                   const void *Y, int64_t ldy, const void *Z)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (P->operation != SPX_OP_SDDMM)
        return spx__error(SPX_ERR_INVALID_ARG, "the plan was made for %s, not SDDMM",
                          operation_name(P->operation));
    if (k < 0) return spx__error(SPX_ERR_INVALID_ARG, "spx_sddmm: k = %lld < 0", (long long)k);
    if (ldx < k || ldy < k)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_sddmm: ldx = %lld and ldy = %lld must be at least k = %lld",
                          (long long)ldx, (long long)ldy, (long long)k);
    size_t cells;
    int64_t n = P->in_len > P->out_len ? P->in_len : P->out_len;
    if (spx__mul_size((size_t)n, (size_t)(ldx > ldy ? ldx : ldy), &cells, "spx_sddmm: X or Y") !=
            SPX_OK ||
        cells > (size_t)INT64_MAX / sizeof(double))
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_sddmm: %lld x %lld entries are more than memory can index",
                          (long long)n, (long long)(ldx > ldy ? ldx : ldy));
    if (P->nnz > 0 && !Z) return spx__error(SPX_ERR_INVALID_ARG, "spx_sddmm: Z is NULL");
    if (P->nnz > 0 && k > 0 && (!X || !Y))
        return spx__error(SPX_ERR_INVALID_ARG, "spx_sddmm: X or Y is NULL");
    return SPX_OK;
}

spx_status spx_sddmm(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                     const void *Y, int64_t ldy, double beta, void *Z)
{
    spx_status st = check_sddmm_call(P, k, X, ldx, Y, ldy, Z);
    if (st != SPX_OK || P->nnz == 0) return st;
    return P->ops->sddmm(P->state, k, alpha, X, ldx, Y, ldy, beta, Z);
}

/* Bytes of a row-major block of n rows, k columns and leading dimension ld
 * (0 when it has no entries: not read). */
static size_t block_bytes(int64_t n, int64_t k, int64_t ld, size_t es)
{
    return n > 0 && k > 0 ? ((size_t)(n - 1) * (size_t)ld + (size_t)k) * es : 0;
}

/* Device SDDMM plans with host X, Y and Z: copied over (leading dimensions
 * kept; Z only when beta reads it), run, Z copied back, waited for. X and Y
 * are of spx_plan_x_type (half with xtype=half), Z of the vector type. */
static spx_status sddmm_staged(const spx_plan *P, int64_t k, double alpha, const void *X,
                               int64_t ldx, const void *Y, int64_t ldy, double beta, void *Z)
{
    size_t es = P->opts.precision == SPX_F64 ? sizeof(double) : sizeof(float);
    size_t xs = spx_plan_x_type(P) == SPX_F16 ? 2 : es; /* X and Y in half: xtype=half */
    size_t xb = block_bytes(P->out_len, k, ldx, xs), yb = block_bytes(P->in_len, k, ldy, xs);
    size_t zb = (size_t)P->nnz * es;
    void *dx = NULL, *dy = NULL, *dz = NULL;
    spx_status st;
    if (xb) SPX_TRY(spx__cuda_alloc(&dx, xb, "X on the device"));
    if (yb) SPX_TRY(spx__cuda_alloc(&dy, yb, "Y on the device"));
    SPX_TRY(spx__cuda_alloc(&dz, zb, "Z on the device"));
    if (xb) SPX_TRY(spx__cuda_copy_async(dx, X, xb, 1, P->opts.stream));
    if (yb) SPX_TRY(spx__cuda_copy_async(dy, Y, yb, 1, P->opts.stream));
    if (beta != 0.0) SPX_TRY(spx__cuda_copy_async(dz, Z, zb, 1, P->opts.stream));
    SPX_TRY(P->ops->sddmm(P->state, k, alpha, dx, ldx, dy, ldy, beta, dz));
    SPX_TRY(spx__cuda_copy_async(Z, dz, zb, 0, P->opts.stream));
    SPX_TRY(spx__cuda_sync(P->opts.stream));
cleanup:
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    spx__cuda_free(dz);
    return st;
}

spx_status spx_sddmm_host(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                          const void *Y, int64_t ldy, double beta, void *Z)
{
    spx_status st = check_sddmm_call(P, k, X, ldx, Y, ldy, Z);
    if (st != SPX_OK || P->nnz == 0) return st;
    if (P->opts.device == SPX_DEV_CPU)
        return P->ops->sddmm(P->state, k, alpha, X, ldx, Y, ldy, beta, Z);
    return sddmm_staged(P, k, alpha, X, ldx, Y, ldy, beta, Z);
}

/* A device B (spx_matrix_wrap_device) goes to the formats that take device
 * matrices alone (the format decides what else it needs: gpu-rows, f64). */
static spx_status check_device_b(const spx_plan *P, const spx_matrix *B)
{
    char names[128];
    if (!B->dev.on || P->ops->device_matrix) return SPX_OK;
    return spx__error(SPX_ERR_UNSUPPORTED,
                      "spx_spgemm_run (B): a device matrix (spx_matrix_wrap_device) has no host "
                      "arrays and the plan's format '%s' reads them; SpGEMM of a device B: plan "
                      "A on SPX_DEV_CUDA with format %s (auto picks it for a device A)",
                      P->ops->name, device_matrix_formats(SPX_OP_SPGEMM, names, sizeof names));
}

/* The plan and B of an SpGEMM call: a plan for SpGEMM, B a matrix its format
 * takes, with as many rows as A has columns. */
static spx_status check_spgemm_call(const spx_plan *P, const spx_matrix *B)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if ((st = spx__check_matrix_handle(B)) != SPX_OK) return st;
    if (P->operation != SPX_OP_SPGEMM)
        return spx__error(SPX_ERR_INVALID_ARG, "the plan was made for %s, not SpGEMM",
                          operation_name(P->operation));
    if ((st = check_device_b(P, B)) != SPX_OK) return st;
    if (P->in_len != B->rows)
        return spx__error(SPX_ERR_DIM_MISMATCH,
                          "A is %lld x %lld but B has %lld rows (A*B needs %lld)",
                          (long long)P->out_len, (long long)P->in_len, (long long)B->rows,
                          (long long)P->in_len);
    return SPX_OK;
}

spx_status spx_spgemm_run(const spx_plan *P, const spx_matrix *B, spx_matrix **C)
{
    if (!C) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *C = NULL;
    spx_status st = check_spgemm_call(P, B);
    if (st != SPX_OK) return st;
    if ((st = P->ops->spgemm(P->state, B, C)) == SPX_OK) spx__clear_error();
    return st;
}

/* C of an spx_spgemm_numeric call: A*B's shape, where B lives. */
static spx_status check_numeric_c(const spx_plan *P, const spx_matrix *B, const spx_matrix *C)
{
    spx_status st = spx__check_matrix_handle(C);
    if (st != SPX_OK) return st;
    if (C->rows != P->out_len || C->cols != B->cols)
        return spx__error(
            SPX_ERR_DIM_MISMATCH, "spx_spgemm_numeric: C is %lld x %lld but A*B is %lld x %lld",
            (long long)C->rows, (long long)C->cols, (long long)P->out_len, (long long)B->cols);
    if (!C->dev.on != !B->dev.on)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_spgemm_numeric: C is a %s matrix but B a %s one (a device B "
                          "gives a device C, a host B a host C)",
                          C->dev.on ? "device" : "host", B->dev.on ? "device" : "host");
    return SPX_OK;
}

spx_status spx_spgemm_numeric(const spx_plan *P, const spx_matrix *B, spx_matrix *C)
{
    spx_status st = check_spgemm_call(P, B);
    if (st == SPX_OK) st = check_numeric_c(P, B, C);
    if (st != SPX_OK) return st;
    st = P->ops->spgemm_numeric ? P->ops->spgemm_numeric(P->state, B, C)
                                : spx__spgemm_refill(P->ops, P->state, B, C);
    if (st == SPX_OK) spx__clear_error();
    return st;
}

spx_status spx_spgemm(const spx_matrix *A, const spx_matrix *B, const spx_plan_opts *o,
                      spx_matrix **C)
{
    spx_plan *P = NULL;
    spx_status st;
    if (!C) return spx__error(SPX_ERR_INVALID_ARG, "output matrix pointer is NULL");
    *C = NULL;
    if ((st = spx_plan_create(A, SPX_OP_SPGEMM, o, &P)) != SPX_OK) return st;
    st = spx_spgemm_run(P, B, C);
    spx_plan_destroy(P);
    return st;
}

spx_operation spx_plan_operation(const spx_plan *P)
{
    return check_plan(P) == SPX_OK ? P->operation : SPX_OP_SPMV;
}

double spx_plan_prep_ms(const spx_plan *P) { return check_plan(P) == SPX_OK ? P->prep_ms : -1.0; }

size_t spx_plan_bytes(const spx_plan *P)
{
    if (check_plan(P) != SPX_OK) return 0;
    size_t held = P->ops->bytes(P->state) + spx__reorder_bytes(P->reorder);
    if (P->entry_map) held += (size_t)P->nnz * sizeof *P->entry_map;
    if (P->format_entry) held += (size_t)P->nnz * sizeof *P->format_entry;
    if (P->transposed)
        held += (size_t)(P->transposed->rows + 1) * sizeof(int64_t) +
                (size_t)P->transposed->nnz * (sizeof(int32_t) + sizeof(double));
    return held;
}

spx_status spx_plan_permutation(const spx_plan *P, int64_t *perm)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (!perm && P->out_len > 0) return spx__error(SPX_ERR_INVALID_ARG, "perm is NULL");
    spx__reorder_permutation(P->reorder, P->out_len, perm);
    return SPX_OK;
}

const char *spx_plan_format(const spx_plan *P)
{
    return check_plan(P) == SPX_OK ? P->ops->name : NULL;
}

spx_device spx_plan_device(const spx_plan *P)
{
    return check_plan(P) == SPX_OK ? P->opts.device : SPX_DEV_CPU;
}

spx_status spx_plan_dims(const spx_plan *P, int64_t *rows, int64_t *cols)
{
    spx_status st = check_plan(P);
    if (st != SPX_OK) return st;
    if (rows) *rows = P->out_len;
    if (cols) *cols = P->in_len;
    return SPX_OK;
}

void *spx__plan_stream(const spx_plan *P) { return check_plan(P) == SPX_OK ? P->opts.stream : NULL; }

struct spx__keep *spx__plan_keep(const spx_plan *P)
{
    return check_plan(P) == SPX_OK ? &((spx_plan *)P)->solve_keep : NULL;
}

spx_type spx_plan_x_type(const spx_plan *P)
{
    if (check_plan(P) != SPX_OK) return SPX_F64;
    if (P->ops->x_type) return P->ops->x_type(P->state);
    return P->opts.precision == SPX_F64 ? SPX_F64 : SPX_F32;
}

void spx__plan_device_arrays(const spx_plan *P, const void **rowptr, const void **colidx,
                             const void **values)
{
    *rowptr = *colidx = *values = NULL;
    if (check_plan(P) == SPX_OK && P->ops->device_arrays)
        P->ops->device_arrays(P->state, rowptr, colidx, values);
}

const char *spx_plan_describe(const spx_plan *P)
{
    if (check_plan(P) != SPX_OK) return "";
    spx_plan *mut = (spx_plan *)P; /* the description buffer is a cache */
    mut->describe[0] = '\0';
    if (P->ops->describe) P->ops->describe(P->state, mut->describe, sizeof mut->describe);
    spx__reorder_describe(P->reorder, mut->describe, sizeof mut->describe);
    return P->describe;
}

int spx_format_count(void)
{
    int n = 0;
    while (spx__formats[n]) n++;
    return n;
}

spx_status spx_format_get(int i, spx_format_info *info)
{
    if (i < 0 || i >= spx_format_count())
        return spx__error(SPX_ERR_INVALID_ARG, "format index %d out of range", i);
    if (!info) return spx__error(SPX_ERR_INVALID_ARG, "spx_format_get: info is NULL");
    info->name = spx__formats[i]->name;
    info->devices = spx__formats[i]->devices;
    info->precisions = spx__formats[i]->precisions;
    info->operations = spx__format_operations(spx__formats[i]);
    info->variants = spx__formats[i]->bench_variants;
    return SPX_OK;
}

int spx_device_available(spx_device d)
{
    if (d == SPX_DEV_CPU) return 1;
    if (d == SPX_DEV_CUDA) return spx__cuda_device_count() > 0;
    return 0;
}
