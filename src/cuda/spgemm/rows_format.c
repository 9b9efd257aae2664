/* The `gpu-rows` format on SPX_DEV_CUDA: SpGEMM C = A*B row by row with
 * hash accumulators in shared memory, rows binned by their products (the
 * method: rows.h). The plan holds A's CSR on the device; each product
 * uploads B, counts, allocates C exactly, fills it and copies it back. C
 * keeps the symbolic pattern (explicit zeros where products cancel), fp64
 * values, sorted columns. Precisions fp64 and fp32 (values and sums in
 * float). Parameters long=auto|dense|hash (rows.h: how rows of more than
 * 2048 products or entries accumulate; default auto) and prefault=on|off
 * (C's host pages touched while the GPU computes, the default, or left to
 * the copy: for measuring it) and panel_nnz=N (at most N entries of C on the
 * device at once: row panels, as when C does not fit it) and
 * wide=auto|on|off|dense (numeric bins of few rows of many products: by B's
 * columns, the default; a block of threads a row; a warp as for the others;
 * or the long rows' dense accumulators where B's columns allow: rows_run.cu)
 * and sort=filled|table (a numeric row's filled slots sorted, the default,
 * or its whole table as before: rows_hash.cu) and pool=keep|release
 * (scratch and a device C from SpX's stream-ordered pool, which keeps 64
 * MB across host waits, the default; or the device's default pool and
 * cudaMalloc, as before: spgemm_dev.cuh) and rank=on|off (long rows whose
 * dense sums pass shared memory summed in C through a bitmap's ranks, the
 * default, or in a global row of sums as before: rows_rank.cu). fp32 declines a product whose terms
 * could pass float's range (max|A| max|B| > FLT_MAX): on the H100 xenon1 squared (values up
 * to 3.2e28) came out as infinities in every entry. Device operands (spx_matrix_wrap_device), f64
 * only: a device A is read in place (its 32-bit row offsets widened, fp32 values converted, into
 * arrays of the plan), so is a device B in each product (the same, for the product), and a device B
 * gives a device C (rows_run.cu). spx_spgemm_numeric with a device B and C: from a memo of C's
 * products that C holds (rows_memo.cu), or with memo=off (for measuring) the numeric phase into C's
 * arrays; a host B: the whole product again. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/spgemm/device_view.h"
#include "cuda/spgemm/rows.h"
#include "plan/format.h"

extern const spx_format_ops spx__format_gpu_rows;

static void rows_destroy(void *state)
{
    spx__cuda_rows_plan *p = state;
    if (!p) return;
    spx__cuda_csr_free(&p->held);
    spx__free(p);
}

static double max_abs(const spx_matrix *M)
{
    double m = 0.0;
    for (int64_t k = 0; k < M->nnz; k++)
        if (fabs(spx__val(M, k)) > m) m = fabs(spx__val(M, k));
    return m;
}

typedef struct rows_params {
    int long_rows;     /* SPX__ROWS_LONG_* */
    int prefault;      /* prefault=on|off */
    long panel_nnz;    /* panel_nnz=N, 0: from the free memory */
    int wide;          /* wide=auto|on|off|dense: SPX__ROWS_WIDE_* */
    int sort_table;    /* sort=table (1) or filled (0) */
    int pool_keep;     /* pool=keep (1) or release (0) */
    int memo;          /* memo=on|off */
    int rank;          /* rank=on|off */
} rows_params;

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    rows_params *prm = ctx;
    static const char *const modes[] = {"auto", "dense", "hash"};
    if (strcmp(key, "prefault") == 0) return spx__param_on_off(key, value, &prm->prefault);
    if (strcmp(key, "memo") == 0) return spx__param_on_off(key, value, &prm->memo);
    if (strcmp(key, "rank") == 0) return spx__param_on_off(key, value, &prm->rank);
    if (strcmp(key, "wide") == 0) {
        static const char *const wide[] = {"off", "on", "dense", "auto"};
        for (int k = 0; k < 4; k++)
            if (strcmp(value, wide[k]) == 0) {
                prm->wide = k;
                return SPX_OK;
            }
        return spx__error(SPX_ERR_BAD_PARAM, "gpu-rows: wide=%s; auto, on, off or dense", value);
    }
    if (strcmp(key, "sort") == 0) {
        if (strcmp(value, "filled") == 0 || strcmp(value, "table") == 0) {
            prm->sort_table = strcmp(value, "table") == 0;
            return SPX_OK;
        }
        return spx__error(SPX_ERR_BAD_PARAM, "gpu-rows: sort=%s; filled or table", value);
    }
    if (strcmp(key, "pool") == 0) {
        if (strcmp(value, "keep") == 0 || strcmp(value, "release") == 0) {
            prm->pool_keep = strcmp(value, "keep") == 0;
            return SPX_OK;
        }
        return spx__error(SPX_ERR_BAD_PARAM, "gpu-rows: pool=%s; keep or release", value);
    }
    if (strcmp(key, "panel_nnz") == 0)
        return spx__param_int(key, value, 1, LONG_MAX, &prm->panel_nnz);
    if (strcmp(key, "long") != 0)
        return spx__error(
            SPX_ERR_BAD_PARAM,
            "gpu-rows: unknown parameter '%s' (long, prefault, panel_nnz, wide, sort, pool, "
            "memo, rank)",
            key);
    for (int k = 0; k < 3; k++)
        if (strcmp(value, modes[k]) == 0) {
            prm->long_rows = k;
            return SPX_OK;
        }
    return spx__error(SPX_ERR_BAD_PARAM, "gpu-rows: long=%s; auto, dense or hash", value);
}

/* SPX_ERR_UNSUPPORTED for a device operand (`which`) of a plan whose
 * precision is not f64. */
static spx_status check_device_precision(spx_type precision, const char *which)
{
    if (precision == SPX_F64) return SPX_OK;
    return spx__error(SPX_ERR_UNSUPPORTED,
                      "gpu-rows: a device %s (spx_matrix_wrap_device) is multiplied in f64 only "
                      "(its values read as double, its range not scanned on the host); plan A "
                      "with precision f64",
                      which);
}

/* A on the device: uploaded into held (a host A), or read in place. */
static spx_status prepare_a(const spx_matrix *A, spx_type precision, spx__cuda_rows_plan *p)
{
    spx_status st = SPX_OK;
    if (!A->dev.on) {
        SPX_TRY(spx__cuda_csr_upload(A, precision, &p->held));
        p->A = p->held;
        return SPX_OK;
    }
    SPX_TRY(check_device_precision(precision, "A"));
    p->a_device = 1;
    SPX_TRY(spx__cuda_device_view(A, "gpu-rows", &p->A, &p->held));
cleanup:
    return st;
}

/* gpu-rows plans made so far in this process (their serials). */
static uint64_t plans_made;

static spx_status rows_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_rows_plan *p = NULL;
    rows_params prm = {SPX__ROWS_LONG_AUTO, 1, 0, SPX__ROWS_WIDE_AUTO, 0, 1, 1, 1};
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    if (A->rows >= INT32_MAX) {
        st = spx__error(SPX_ERR_UNSUPPORTED, "gpu-rows: %lld rows; at most 2^31 - 2",
                        (long long)A->rows);
        goto cleanup;
    }
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "gpu-rows plan"));
    p->precision = o->precision;
    p->long_rows = prm.long_rows;
    p->prefault = prm.prefault;
    p->panel_nnz = prm.panel_nnz;
    p->wide = prm.wide;
    p->sort_table = prm.sort_table;
    p->pool_keep = prm.pool_keep;
    p->memo = prm.memo;
    p->rank = prm.rank;
    p->stream = o->stream;
    p->serial = __atomic_add_fetch(&plans_made, 1, __ATOMIC_RELAXED);
    p->max_abs_a = o->precision == SPX_F32 && !A->dev.on ? max_abs(A) : 0.0;
    SPX_TRY(prepare_a(A, o->precision, p));
    *state = p;
    return SPX_OK;
cleanup:
    rows_destroy(p);
    return st;
}

/* C = A*B for a device B: B read in place (or widened and converted for
 * this product), C a device matrix. */
static spx_status multiply_device_b(const spx__cuda_rows_plan *p, const spx_matrix *B,
                                    spx_matrix **C)
{
    spx__cuda_csr view, held;
    spx_status st = check_device_precision(p->precision, "B");
    if (st != SPX_OK) return st;
    if ((st = spx__cuda_device_view(B, "gpu-rows", &view, &held)) != SPX_OK) return st;
    st = spx__cuda_rows_multiply(p, B, &view, C);
    spx__cuda_csr_free(&held);
    return st;
}

static spx_status rows_multiply(void *state, const spx_matrix *B, spx_matrix **C)
{
    const spx__cuda_rows_plan *p = state;
    if (B->dev.on) return multiply_device_b(p, B, C);
    if (p->precision == SPX_F32) {
        const double b = max_abs(B);
        if (p->max_abs_a * b > FLT_MAX)
            return spx__error(SPX_ERR_UNSUPPORTED,
                              "gpu-rows f32: products of up to %.3g x %.3g pass float's range; "
                              "use f64",
                              p->max_abs_a, b);
    }
    return spx__cuda_rows_multiply(state, B, NULL, C);
}

/* spx_spgemm_numeric: the numeric phase alone for a device B (and C);
 * the whole product again for a host B. */
static spx_status rows_numeric(void *state, const spx_matrix *B, spx_matrix *C)
{
    const spx__cuda_rows_plan *p = state;
    spx__cuda_csr view, held;
    if (!B->dev.on) return spx__spgemm_refill(&spx__format_gpu_rows, state, B, C);
    spx_status st = check_device_precision(p->precision, "B");
    if (st != SPX_OK) return st;
    if (C->dev.rowptr_bits != 64 || C->vtype != SPX_F64)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "gpu-rows: a device C of spx_spgemm_numeric has 64-bit row offsets "
                          "and fp64 values, as spx_spgemm_run makes it");
    if ((st = spx__cuda_device_view(B, "gpu-rows", &view, &held)) != SPX_OK) return st;
    st = spx__cuda_rows_numeric(p, &view, C);
    spx__cuda_csr_free(&held);
    return st;
}

/* The device arrays the plan owns (a device A's own are the caller's). */
static size_t rows_bytes(const void *state)
{
    const spx__cuda_rows_plan *p = state;
    const spx__cuda_csr *h = &p->held;
    const size_t value = p->precision == SPX_F32 ? sizeof(float) : sizeof(double);
    return (h->rowptr ? (size_t)(h->rows + 1) * sizeof(int64_t) : 0) +
           (h->colidx ? (size_t)h->nnz * sizeof(int32_t) : 0) +
           (h->values ? (size_t)h->nnz * value : 0);
}

static void rows_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_rows_plan *p = state;
    static const char *const modes[] = {"dense where B's columns allow", "dense", "hash"};
    const int panels = __atomic_load_n(&p->last_panels, __ATOMIC_RELAXED);
    snprintf(buf, len,
             "hash rows, %s sums, shared tables up to %d entries a row, longer rows %s; "
             "last product: %d row panel%s%s",
             p->precision == SPX_F32 ? "fp32" : "fp64", 2048, modes[p->long_rows], panels,
             panels == 1 ? "" : "s",
             p->a_device ? "; A: device matrix, columns read in place" : "");
}

/* AUTO: the CUDA SpGEMM baseline; tsparse answers above it only for A of
 * dense 8x8 tiles (tsparse_format.c). */
#define ROWS_ANSWER 1.0

static double rows_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    if (A->dev.on && f->o->precision != SPX_F64) return 0.0; /* device operands: f64 only */
    return A->rows < INT32_MAX && A->col_bits == 32 ? ROWS_ANSWER : 0.0;
}

const spx_format_ops spx__format_gpu_rows = {
    .name = "gpu-rows",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),
    .spgemm_analyze = rows_analyze,
    .spgemm = rows_multiply,
    .spgemm_numeric = rows_numeric,
    .bytes = rows_bytes,
    .destroy = rows_destroy,
    .describe = rows_describe,
    .borrows_matrix = 0,
    .suits = rows_suits,
    .device_matrix = 1, /* device A and B, f64; a device B gives a device C */
};
