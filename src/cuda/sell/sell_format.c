/* The `sell` format on SPX_DEV_CUDA: SELL-32-sigma, a warp per slice of 32
 * rows and a lane per row (layout: sell_kernels.h), built on the host and
 * uploaded once at analyze. Meant for matrices whose rows have about the same
 * length and whose columns sit near the diagonal (stencils, FEM meshes): the
 * loads are coalesced without shared memory, and with index=u16 a nonzero's
 * column costs 2 bytes instead of 4. Rows of very different lengths in one
 * slice pad it, and a slice is one warp's work: a matrix whose longest slice
 * has more than LONG_SLICE steps and LONG_SLICE_RATIO times the mean is
 * declined (SPX_ERR_UNSUPPORTED: use csr or dasp).
 * Params:
 *  - sigma=N: sort rows by decreasing length inside windows of N rows
 *    (rounded up to a multiple of 32; 1 keeps the row order and needs no
 *    permutation). Default: 1 when the slices in row order hold at least
 *    MIN_OCCUPANCY of nonzeros among their stored entries, else SIGMA_SORT,
 *    else the whole matrix sorted.
 *  - index=auto|u16|u32: columns as 16-bit offsets from each step's base
 *    (u16; SPX_ERR_UNSUPPORTED when a step spans more) or as 32-bit indices.
 *    auto (the default): u16 where every step fits, else u32.
 *  - xtype=float|half (fp16 plans: x as float, the default, or IEEE half).
 *  - pdl=on|off (default on where the device has it, sm_90+).
 *  - values=auto|stored|iso (core/iso.h; default auto): a matrix whose
 *    values are all one number v is uploaded without values and multiplied
 *    as y = (alpha * v) * (pattern(A) x) + beta * y; iso on a matrix that is
 *    not iso is SPX_ERR_BAD_PARAM.
 * fp16 values beyond half's range are declined, as in csr (an iso plan keeps
 * its value in float and takes them).
 * New values (spx_plan_update_values) are refilled on the device through the
 * layout the product reads (sell_kernels.h): no slot map, nothing kept. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/iso.h"
#include "core/matrix.h"
#include "cuda/csr/csr_kernels.h"
#include "cuda/gateway.h"
#include "cuda/sell/sell_kernels.h"
#include "cuda/values/values.h"
#include "plan/format.h"

#define MIN_OCCUPANCY 0.8
#define SIGMA_SORT 4096
/* A slice is one warp's work: a slice of more than LONG_SLICE steps and
 * LONG_SLICE_RATIO times the mean holds its warp long after the others end.
 * On an H100 such matrices ran 30-300x slower than csr (R-MAT scale 20 9.4
 * ms against 0.34, a circuit-like matrix with rows of 200000 33 ms against
 * 0.11, c-62 with rows of up to 5060 0.60 ms against 0.006;
 * bench/results/gpu-sell-2026-11-22.md), so they are declined. */
#define LONG_SLICE 4096
#define LONG_SLICE_RATIO 64

typedef struct sell_params {
    long sigma; /* 0: chosen from the occupancy */
    int index;  /* SPX__CUDA_SELL_AUTO, _U16 or _U32 */
    int pdl;
    int x_half;
    spx__values_mode values;
} sell_params;

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    sell_params *p = ctx;
    if (strcmp(key, "sigma") == 0) return spx__param_int(key, value, 1, INT32_MAX, &p->sigma);
    if (strcmp(key, "pdl") == 0) return spx__param_on_off(key, value, &p->pdl);
    if (strcmp(key, "xtype") == 0) return spx__param_xtype(key, value, &p->x_half);
    if (strcmp(key, "values") == 0) return spx__param_values("sell (cuda)", value, &p->values);
    if (strcmp(key, "index") == 0) {
        if (strcmp(value, "auto") == 0)
            p->index = SPX__CUDA_SELL_AUTO;
        else if (strcmp(value, "u16") == 0)
            p->index = SPX__CUDA_SELL_U16;
        else if (strcmp(value, "u32") == 0)
            p->index = SPX__CUDA_SELL_U32;
        else
            return spx__error(SPX_ERR_BAD_PARAM, "sell (cuda): index=%s is not auto, u16 or u32",
                              value);
        return SPX_OK;
    }
    return spx__error(SPX_ERR_BAD_PARAM, "sell (cuda): unknown parameter '%s'", key);
}

/* The default sigma: the first of 1, SIGMA_SORT, all rows whose slices hold at
 * least MIN_OCCUPANCY nonzeros among their entries. */
static spx_status default_sigma(const spx_matrix *A, int64_t *sigma)
{
    static const int64_t tries[] = {1, SIGMA_SORT};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        int64_t entries = 0;
        int fits = 0;
        spx_status st = spx__cuda_sell_measure(A, tries[i], &entries, &fits);
        if (st != SPX_OK) return st;
        if (entries == 0 || (double)A->nnz >= MIN_OCCUPANCY * (double)entries) {
            *sigma = tries[i];
            return SPX_OK;
        }
    }
    *sigma = A->rows > 1 ? A->rows : 1;
    return SPX_OK;
}

/* SPX_ERR_UNSUPPORTED when h's longest slice would hold its warp far longer
 * than the mean slice (see LONG_SLICE). */
static spx_status check_balance(const spx__cuda_sell *h)
{
    int64_t longest = 0;
    for (int64_t s = 0; s < h->n_slices; s++)
        if (h->sptr[s + 1] - h->sptr[s] > longest) longest = h->sptr[s + 1] - h->sptr[s];
    const double mean = h->n_slices ? (double)h->n_steps / (double)h->n_slices : 0.0;
    if (longest > LONG_SLICE && (double)longest > LONG_SLICE_RATIO * mean)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "sell (cuda): a slice of %lld steps against a mean of %.1f would hold "
                          "one warp for the whole call (rows of very different lengths); use "
                          "csr or dasp",
                          (long long)longest, mean);
    return SPX_OK;
}

static void sell_destroy(void *state)
{
    spx__cuda_sell_plan *p = state;
    if (!p) return;
    spx__cuda_free(p->S.sptr);
    spx__cuda_free(p->S.perm);
    spx__cuda_free(p->S.col);
    spx__cuda_free(p->S.off);
    spx__cuda_free(p->S.base);
    spx__cuda_free(p->S.values);
    spx__cuda_free(p->S.packed);
    spx__free(p);
}

/* fp16 with u16: the device's halves and offsets into one array of words
 * (sell_kernels.h); the two arrays are freed. */
static spx_status pack_half(spx__cuda_sell *d, int64_t entries)
{
    spx_status st = spx__cuda_sell_pack(d->values, d->off, entries, &d->packed);
    if (st != SPX_OK) return st;
    spx__cuda_free(d->values);
    spx__cuda_free(d->off);
    d->values = NULL;
    d->off = NULL;
    return SPX_OK;
}

/* h's arrays to the device, values converted from A's type to the plan's
 * (none for an iso plan). */
static spx_status upload(const spx__cuda_sell *h, spx_type from, spx__cuda_sell_plan *p)
{
    spx__cuda_sell *d = &p->S;
    const size_t entries = (size_t)(SPX__CUDA_SELL_C * h->n_steps);
    spx_status st = SPX_OK;
    *d = *h;
    d->sptr = NULL;
    d->perm = NULL;
    d->col = NULL;
    d->off = NULL;
    d->base = NULL;
    d->values = NULL;
    d->packed = NULL;
    SPX_TRY(spx__cuda_upload((void **)&d->sptr, h->sptr,
                             ((size_t)h->n_slices + 1) * sizeof *h->sptr,
                             "cuda sell slice starts"));
    if (h->perm)
        SPX_TRY(spx__cuda_upload((void **)&d->perm, h->perm,
                                 (size_t)(SPX__CUDA_SELL_C * h->n_slices) * sizeof *h->perm,
                                 "cuda sell perm"));
    if (h->index == SPX__CUDA_SELL_U16) {
        SPX_TRY(spx__cuda_upload((void **)&d->off, h->off, entries * sizeof *h->off,
                                 "cuda sell offsets"));
        SPX_TRY(spx__cuda_upload((void **)&d->base, h->base, (size_t)h->n_steps * sizeof *h->base,
                                 "cuda sell step bases"));
    } else {
        SPX_TRY(spx__cuda_upload((void **)&d->col, h->col, entries * sizeof *h->col,
                                 "cuda sell columns"));
    }
    if (p->iso) return SPX_OK;
    SPX_TRY(spx__cuda_upload_values(&d->values, h->values, from, (int64_t)entries, p->precision,
                                    "cuda sell values"));
    if (p->precision == SPX_F16 && h->index == SPX__CUDA_SELL_U16)
        SPX_TRY(pack_half(d, (int64_t)entries));
cleanup:
    return st;
}

static spx_status sell_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_sell_plan *p = NULL;
    spx__cuda_sell h;
    sell_params prm = {0, SPX__CUDA_SELL_AUTO, 1, 0, SPX__VALUES_AUTO};
    int64_t sigma = 0;
    int iso = 0;
    double iso_value = 0.0;
    spx_status st;
    memset(&h, 0, sizeof h);
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    SPX_TRY(spx__check_xtype(prm.x_half, o->precision, "sell (cuda)"));
    SPX_TRY(spx__values_choose(A, prm.values, o->precision, "sell (cuda)", &iso, &iso_value));
    if (o->precision == SPX_F16 && !iso) SPX_TRY(spx__cuda_check_half_range(A, "sell (cuda)"));
    if (prm.sigma > 0)
        sigma = prm.sigma;
    else
        SPX_TRY(default_sigma(A, &sigma));
    SPX_TRY(spx__cuda_sell_build(A, sigma, prm.index, !iso, &h));
    SPX_TRY(check_balance(&h));
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "cuda sell plan"));
    p->precision = o->precision;
    p->x_half = prm.x_half;
    p->stream = o->stream;
    p->pdl = prm.pdl && spx__cuda_can_overlap_launches();
    p->iso = iso;
    p->iso_value = iso_value;
    p->values_mode = prm.values;
    SPX_TRY(upload(&h, A->vtype, p));
    spx__cuda_sell_free_host(&h);
    *state = p;
    return SPX_OK;
cleanup:
    spx__cuda_sell_free_host(&h);
    sell_destroy(p);
    return st;
}

static spx_status sell_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    return spx__cuda_sell_spmv(state, alpha, x, beta, y);
}

/* An iso plan's first stored values, fresh (the slots' values, the plan's
 * value type), as analyze's upload leaves them: S.values, or with fp16 and
 * index=u16 packed with the offsets (pack_half). On failure the plan stays
 * iso and fresh is the caller's to free. */
static spx_status start_storing(spx__cuda_sell_plan *p, void *fresh)
{
    spx__cuda_sell *S = &p->S;
    spx_status st = SPX_OK;
    S->values = fresh;
    if (p->precision == SPX_F16 && S->index == SPX__CUDA_SELL_U16)
        st = pack_half(S, SPX__CUDA_SELL_C * S->n_steps);
    if (st != SPX_OK) {
        S->values = NULL;
        return st;
    }
    p->iso = 0;
    return SPX_OK;
}

/* New values (spx_plan_update_values), a new plan's choice
 * (spx__cuda_update_decide): an iso plan takes one number in place; other
 * values are converted into a scratch array in CSR order (the gateway, as
 * analyze's upload converts), then refilled into the slots (sell_kernels.h),
 * into a new array for an iso plan, which stores them from then on. */
static spx_status sell_update_values(void *state, const void *values, int on_device)
{
    spx__cuda_sell_plan *p = state;
    spx__cuda_sell *S = &p->S;
    const size_t es = p->precision == SPX_F64 ? 8 : p->precision == SPX_F32 ? 4 : 2;
    const int64_t entries = SPX__CUDA_SELL_C * S->n_steps;
    void *csr = NULL, *fresh = NULL;
    int iso = 0;
    double v = 0.0;
    spx_status st = spx__cuda_update_decide(values, on_device, S->nnz, p->precision, p->iso,
                                            p->values_mode, p->stream, "sell (cuda)", &iso, &v);
    if (st != SPX_OK) return st;
    if (iso) {
        p->iso_value = v;
        return SPX_OK;
    }
    SPX_TRY(spx__cuda_alloc(&csr, (size_t)(S->nnz > 0 ? S->nnz : 1) * es,
                            "cuda sell new values in CSR order"));
    SPX_TRY(spx__cuda_values_gather(csr, p->precision, S->nnz, NULL, values,
                                    p->precision == SPX_F64 ? SPX_F64 : SPX_F32, S->nnz, on_device,
                                    p->stream));
    if (p->iso)
        SPX_TRY(
            spx__cuda_alloc(&fresh, (size_t)(entries > 0 ? entries : 1) * es, "cuda sell values"));
    if (fresh)
        SPX_TRY(spx__cuda_sell_refill(p, csr, fresh, 0));
    else
        SPX_TRY(spx__cuda_sell_refill(p, csr, S->packed ? (void *)S->packed : S->values,
                                      S->packed != NULL));
    if (fresh) SPX_TRY(start_storing(p, fresh));
    fresh = NULL;
cleanup:
    spx__cuda_free(csr);
    spx__cuda_free(fresh);
    return st;
}

static size_t sell_bytes(const void *state)
{
    const spx__cuda_sell_plan *p = state;
    const spx__cuda_sell *S = &p->S;
    const size_t entries = (size_t)(SPX__CUDA_SELL_C * S->n_steps);
    const size_t val = p->iso ? 0 : p->precision == SPX_F64 ? 8 : p->precision == SPX_F32 ? 4 : 2;
    /* value and index of an entry, then per step and per slice */
    const size_t entry =
        val + (S->index == SPX__CUDA_SELL_U16 ? sizeof(uint16_t) : sizeof(int32_t));
    const size_t step = S->index == SPX__CUDA_SELL_U16 ? sizeof(int32_t) : 0;
    const size_t slice =
        sizeof(int64_t) + (S->perm ? (size_t)SPX__CUDA_SELL_C * sizeof(int32_t) : 0);
    return entries * entry + (size_t)S->n_steps * step + ((size_t)S->n_slices + 1) * slice;
}

static void sell_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_sell_plan *p = state;
    const spx__cuda_sell *S = &p->S;
    const double entries = (double)SPX__CUDA_SELL_C * (double)S->n_steps;
    char values[48] = "values=stored";
    if (p->iso) snprintf(values, sizeof values, "values=iso value=%.17g", p->iso_value);
    snprintf(buf, len,
             "C=%d slices=%lld steps=%lld occupancy=%.3f sigma=%lld index=%s pdl=%s%s %s",
             SPX__CUDA_SELL_C, (long long)S->n_slices, (long long)S->n_steps,
             entries > 0 ? (double)S->nnz / entries : 1.0, (long long)S->sigma,
             S->packed                        ? "u16 (packed with the values)"
             : S->index == SPX__CUDA_SELL_U16 ? "u16"
                                              : "u32",
             p->pdl ? "on" : "off", p->x_half ? " xtype=half" : "", values);
}

static spx_type sell_x_type(const void *state)
{
    const spx__cuda_sell_plan *p = state;
    return p->x_half ? SPX_F16 : p->precision == SPX_F64 ? SPX_F64 : SPX_F32;
}

/* AUTO: sell for banded matrices of SELL_MIN_NNZ or more nonzeros whose
 * every step of 32 rows fits index=u16 and whose slices in row order hold at
 * least SELL_OCCUPANCY of nonzeros among their entries, when the caller
 * expects enough calls to repay the preparation. Measured on an H100
 * (bench/results/gpu-sell-2026-11-22.md), time of sell against csr: lap3d7
 * at 3.5M, 6.9M, 55.8M nonzeros fp64 0.0142/0.0210, 0.0284/0.0368,
 * 0.2624/0.3095 ms, fp16 0.0061/0.0085, 0.0127/0.0230, 0.1267/0.1704;
 * lap3d27 at 3.2M, 6.9M, 23.4M fp64 0.0088/0.0155, 0.0265/0.0361,
 * 0.0883/0.1055, fp16 0.0074/0.0079, 0.0107/0.0218, 0.0410/0.0654: 1.2x-1.8x.
 * On the shared matrices of 0.1M-1.2M nonzeros (L2-resident, launch-bound)
 * csr was 1.3-2x faster, hence the floor. Above dasp's answer, so a matrix
 * both would take goes to sell (as measured on the stencils), iso or not.
 * Also sell for graphs of short rows (mean row at most SELL_SHORT_ROWS, no
 * row past LONG_SLICE) whose slices, sorted in windows of SIGMA_SORT rows,
 * hold SELL_OCCUPANCY nonzeros: csr reads a row offset for every 3 entries
 * there. NotreDame_www x11 and x32 (10.2M and 29.8M nonzeros, mean row
 * 2.85; H100, run CQ, bench/results/gpu-iso-2026-11-26/, one process), sell
 * against csr: iso 0.054/0.076 and 0.141/0.218 ms (1.41x, 1.55x), stored
 * 0.086/0.100 and 0.233/0.288 (1.16x, 1.24x); NotreDame_www itself (0.93M)
 * is under the floor (csr 0.007, sell 0.008 ms). The plan then took 1.8 s
 * (x32) against csr's 0.09; the build now runs on every core and skips an
 * iso plan's values. */
#define SELL_MIN_NNZ 3000000
#define SELL_OCCUPANCY 0.9
#define SELL_SHORT_ROWS 4.0
#define SELL_REPAY_CALLS 10000
#define SELL_EXPECTED_GAIN 1.3

/* Whether A's slices in windows of sigma rows hold SELL_OCCUPANCY nonzeros;
 * *u16: every step fits index=u16. */
static int sell_full(const spx_matrix *A, int64_t sigma, int *u16)
{
    int64_t entries = 0;
    if (spx__cuda_sell_measure(A, sigma, &entries, u16) != SPX_OK) return 0;
    return (double)A->nnz >= SELL_OCCUPANCY * (double)entries;
}

static double sell_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    int u16 = 0;
    if (f->nnz < SELL_MIN_NNZ || A->col_bits != 32) return 0.0;
    if (f->o->expected_calls > 0 && f->o->expected_calls < SELL_REPAY_CALLS) return 0.0;
    if (sell_full(A, 1, &u16) && u16) return SELL_EXPECTED_GAIN; /* banded */
    if (f->rave > SELL_SHORT_ROWS || f->rmax > LONG_SLICE) return 0.0;
    return sell_full(A, SIGMA_SORT, &u16) ? SELL_EXPECTED_GAIN : 0.0; /* short-row graphs */
}

/* The stored path beside the iso default, measured in the same bench run. */
static const char *const sell_bench_variants[] = {"values=stored", NULL};

const spx_format_ops spx__format_cuda_sell = {
    .name = "sell",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32) | SPX__TYPE_BIT(SPX_F16),
    .analyze = sell_analyze,
    .spmv = sell_spmv,
    .update_values = sell_update_values,
    .bytes = sell_bytes,
    .destroy = sell_destroy,
    .describe = sell_describe,
    .borrows_matrix = 0,
    .x_type = sell_x_type,
    .bench_variants = sell_bench_variants,
    .suits = sell_suits,
};
