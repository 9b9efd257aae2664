/* The formats axc, axt-uh1, axt-uh, axt-ch1 and axt-ch on SPX_DEV_CUDA
 * (layouts and kernels: axt_cuda.h), fp64 and fp32: laid out on the host by
 * the CPU formats' builder, uploaded once at analyze.
 * Params:
 *  - x=live|refresh: the slabs' second half holds column indices, x gathered
 *    in the kernel (live, the default), or the gathered x itself, rewritten
 *    from x by a refresh kernel at the start of every call (the paper's
 *    layout; such a call writes the plan: calls on one plan are serialized,
 *    as for every CUDA plan);
 *  - th=N (axt-uh, axt-ch: slabs per tile, 1..256; axt-uh1, axt-ch1: 1).
 *    axt-uh's default is the th of 2..32 whose layout is smallest (below:
 *    its time follows its bytes); axt-ch's is 8 (the paper's V100 tables
 *    chose 4-8 for uh and 4 for ch);
 *  - bs=N (axt-ch1: entries per block = threads per thread block, a multiple
 *    of 32 up to 1024; default 512, or the largest of 256, 128, 64, 32 whose
 *    header bits leave room for the row index);
 *  - combine=ordered|atomic (not axc, whose warps own their rows): ordered
 *    (default) writes each y entry once, the rows producers share summed by a
 *    second pass in producer order, so calls give the same bits; atomic is the
 *    paper's atomicAdd of each partial onto y scaled by beta first;
 *  - pdl=on|off (default on where the device has it, sm_90+).
 * New values (spx_plan_update_values) rewrite the slabs' values where the
 * layout put A's, found from the layout itself (axt_cuda.h: no slot map).
 * Declines (SPX_ERR_UNSUPPORTED) 64-bit columns, more than 2^31-1 rows, and
 * for ch1 / ch rows beyond the header's row bits. AUTO takes axc for small
 * matrices of long rows (axc_suits) and never the axt-* variants: on the
 * H100 they are never the fastest format (csr, sell or dasp is). */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/axt/axt_host.h"
#include "cuda/gateway.h"
#include "plan/format.h"

#define MAX_AUTO_TH_UH 32
#define DEFAULT_TH_CH 8
#define ROW_HIST 1024 /* row lengths counted in a table; longer rows one by one */
#define DEFAULT_BS 512
#define MAX_BS 1024
#define WARPS_PER_SM 64 /* a full multiprocessor: 2048 threads */
#define FALLBACK_SMS 132
#define FALLBACK_L2 ((size_t)50 << 20) /* the H100's L2 */
#define MIN_TH_SAVING 0.075            /* of the th=4 layout's bytes */

static const char *const names[SPX__CUDA_AXT_NVAR] = {"axc", "axt-uh1", "axt-uh", "axt-ch1",
                                                      "axt-ch"};

typedef struct axt_params {
    int variant;
    long th, bs; /* 0: default */
    int live, atomic, pdl;
} axt_params;

static spx_status parse_x(axt_params *p, const char *value)
{
    if (strcmp(value, "live") != 0 && strcmp(value, "refresh") != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "%s (cuda): x=%s is not live or refresh",
                          names[p->variant], value);
    p->live = strcmp(value, "live") == 0;
    return SPX_OK;
}

static spx_status parse_combine(axt_params *p, const char *value)
{
    if (p->variant == SPX__CUDA_AXC)
        return spx__error(SPX_ERR_BAD_PARAM,
                          "axc (cuda): no combine parameter (a warp owns each row)");
    if (strcmp(value, "ordered") != 0 && strcmp(value, "atomic") != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "%s (cuda): combine=%s is not ordered or atomic",
                          names[p->variant], value);
    p->atomic = strcmp(value, "atomic") == 0;
    return SPX_OK;
}

static spx_status parse_bs(axt_params *p, const char *key, const char *value)
{
    spx_status st = spx__param_int(key, value, SPX__CUDA_AXT_WARP, MAX_BS, &p->bs);
    if (st == SPX_OK && p->bs % SPX__CUDA_AXT_WARP != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "axt-ch1 (cuda): bs=%ld is not a multiple of 32",
                          p->bs);
    return st;
}

static spx_status parse_one(void *ctx, const char *key, const char *value)
{
    axt_params *p = ctx;
    const int v = p->variant;
    if (strcmp(key, "x") == 0) return parse_x(p, value);
    if (strcmp(key, "combine") == 0) return parse_combine(p, value);
    if (strcmp(key, "pdl") == 0) return spx__param_on_off(key, value, &p->pdl);
    if (strcmp(key, "th") == 0 && v != SPX__CUDA_AXC) {
        const long hi = v == SPX__CUDA_AXT_UH || v == SPX__CUDA_AXT_CH ? SPX__AXT_MAX_TH : 1;
        return spx__param_int(key, value, 1, hi, &p->th);
    }
    if (strcmp(key, "bs") == 0 && v == SPX__CUDA_AXT_CH1) return parse_bs(p, key, value);
    return spx__error(SPX_ERR_BAD_PARAM, "%s (cuda): unknown parameter '%s'", names[v], key);
}

/* ch1's default block: the largest up to DEFAULT_BS whose offset bits leave
 * the header room for rows + 1. */
static int default_bs(int64_t rows)
{
    int bs = DEFAULT_BS, bits = 9;
    while (bs > SPX__CUDA_AXT_WARP && (uint64_t)rows + 1 > (UINT32_MAX >> bits)) {
        bs /= 2;
        bits--;
    }
    return bs;
}

static void axt_destroy(void *state)
{
    spx__cuda_axt_plan *p = state;
    if (!p) return;
    spx__cuda_free(p->ax);
    spx__cuda_free(p->col);
    spx__cuda_free(p->rwp);
    spx__cuda_free(p->hdr);
    spx__cuda_free(p->brp);
    spx__cuda_free(p->empty);
    spx__cuda_free(p->carry_row);
    spx__cuda_free(p->carry_sum);
    spx__free(p);
}

/* h's arrays to the device; the carries allocated (ordered, not axc). */
static spx_status upload(const spx__cuda_axt_host *h, spx__cuda_axt_plan *p)
{
    const spx__axt *L = &h->L;
    const size_t cells = (size_t)L->nslab * (size_t)L->thw;
    spx_status st;
    SPX_TRY(spx__cuda_upload((void **)&p->ax, L->ax, (size_t)L->nslab * L->sb, "cuda axt ax[]"));
    if (L->col)
        SPX_TRY(spx__cuda_upload((void **)&p->col, L->col, cells * sizeof(int32_t),
                                 "cuda axt refresh columns"));
    if (L->variant == SPX__AXT_UH1)
        SPX_TRY(spx__cuda_upload((void **)&p->rwp, L->rwp, (size_t)L->nslab * sizeof(int32_t),
                                 "cuda axt rwp[]"));
    if (L->variant == SPX__AXT_UH)
        SPX_TRY(spx__cuda_upload((void **)&p->rwp, L->rwp,
                                 (size_t)L->nunits * (size_t)L->thw * sizeof(int32_t),
                                 "cuda axt rwp[]"));
    if (L->hdr)
        SPX_TRY(
            spx__cuda_upload((void **)&p->hdr, L->hdr, cells * sizeof(uint32_t), "cuda axt hdr[]"));
    if (L->brp)
        SPX_TRY(spx__cuda_upload((void **)&p->brp, L->brp, ((size_t)L->rows + 1) * sizeof(int64_t),
                                 "cuda axc brp[]"));
    if (h->empty)
        SPX_TRY(spx__cuda_upload((void **)&p->empty, h->empty, (size_t)h->n_empty * sizeof(int32_t),
                                 "cuda axt empty rows"));
    if (!p->atomic && p->variant != SPX__CUDA_AXC) {
        SPX_TRY(spx__cuda_alloc((void **)&p->carry_row, 2 * (size_t)h->workers * sizeof(int64_t),
                                "cuda axt carry rows"));
        SPX_TRY(spx__cuda_alloc(&p->carry_sum, 2 * (size_t)h->workers * L->vsize,
                                "cuda axt carry sums"));
    }
cleanup:
    return st;
}

static void copy_shape(const spx__cuda_axt_host *h, spx__cuda_axt_plan *p)
{
    const spx__axt *L = &h->L;
    p->thw = L->thw;
    p->th = L->th;
    p->bs = L->bs;
    p->obits = L->obits;
    p->rows = L->rows;
    p->cols = L->cols;
    p->nnz = L->nnz;
    p->nslab = L->nslab;
    p->nunits = L->nunits;
    p->sb = (int64_t)L->sb;
    p->per_worker = h->per_worker;
    p->workers = h->workers;
    p->n_empty = h->n_empty;
}

/* Layout bytes of axt-uh with th slabs per tile: a row of n entries takes
 * ceil(n / th) lane columns of th slots (zero padded), each column a 4-byte
 * row index (rwp), each slot a value and its x slot; rows counted by length
 * in hist[0..ROW_HIST), the longer ones listed in longer[0..n_longer). */
static double uh_bytes(int th, const int64_t *hist, const int64_t *longer, int64_t n_longer,
                       double slot)
{
    double columns = 0.0;
    for (int64_t n = 1; n < ROW_HIST; n++)
        columns += (double)hist[n] * (double)((n + th - 1) / th);
    for (int64_t k = 0; k < n_longer; k++)
        columns += (double)((longer[k] + th - 1) / th);
    return columns * ((double)th * slot + 4.0);
}

/* axt-uh's default th: 4, unless the matrix streams from DRAM (the th=4
 * layout is larger than L2) and the th of 2..MAX_AUTO_TH_UH with the
 * smallest layout (ties to the smaller) saves at least MIN_TH_SAVING of its
 * bytes. On the H100 a DRAM-bound call follows the bytes (th sweep,
 * bench/results/axt-cuda-2026-11-25/): lap3d27:96, rows of 27, th=4 13.5
 * B/nnz 0.124 ms, th=9 12.5 B/nnz 0.110 ms, th=27 12.4 B/nnz 0.107 ms. An
 * L2-resident call does not, and a smaller saving did not pay either
 * (pending-gpu-2026-11-25, smallest layout over th=4: lap3d7:200 0.85x the
 * bytes, 0.85x the time; cavity19 0.97x the bytes, 1.31x the time;
 * NotreDame_www x20, 316 MB, 0.93x the bytes, 1.05x the time). O(rows) for
 * the table, then O(ROW_HIST) per candidate. */
static spx_status smallest_uh_th(const spx_matrix *A, size_t slot, int *th)
{
    int64_t *hist = NULL, *longer = NULL, n_longer = 0;
    spx_status st;
    *th = 4;
    SPX_TRY(spx__calloc((void **)&hist, ROW_HIST, sizeof *hist, "axt-uh row lengths"));
    for (int64_t i = 0; i < A->rows; i++) {
        const int64_t n = spx__row_off(A, i + 1) - spx__row_off(A, i);
        if (n < ROW_HIST)
            hist[n]++;
        else
            n_longer++;
    }
    SPX_TRY(spx__alloc((void **)&longer, (size_t)n_longer + 1, sizeof *longer, "axt-uh rows"));
    n_longer = 0;
    for (int64_t i = 0; i < A->rows; i++)
        if (spx__row_off(A, i + 1) - spx__row_off(A, i) >= ROW_HIST)
            longer[n_longer++] = spx__row_off(A, i + 1) - spx__row_off(A, i);
    const double bytes4 = uh_bytes(4, hist, longer, n_longer, (double)slot);
    double best = uh_bytes(2, hist, longer, n_longer, (double)slot);
    int best_th = 2;
    for (int t = 3; t <= MAX_AUTO_TH_UH; t++) {
        const double b = uh_bytes(t, hist, longer, n_longer, (double)slot);
        if (b < best) best = b, best_th = t;
    }
    size_t l2 = 0;
    if (spx__cuda_device_info(NULL, 0, NULL, &l2) != SPX_OK) l2 = FALLBACK_L2;
    if (bytes4 > (double)l2 && best <= (1.0 - MIN_TH_SAVING) * bytes4) *th = best_th;
cleanup:
    spx__free(hist);
    spx__free(longer);
    return st;
}

/* th of the variant: the caller's, or its default. */
static spx_status variant_th(int variant, const axt_params *prm, const spx_matrix *A,
                             spx_type precision, int *th)
{
    const size_t vsize = precision == SPX_F64 ? sizeof(double) : sizeof(float);
    *th = 1;
    if (prm->th)
        *th = (int)prm->th;
    else if (variant == SPX__CUDA_AXT_CH)
        *th = DEFAULT_TH_CH;
    else if (variant == SPX__CUDA_AXT_UH) /* x=refresh: the x value, and its column in col[] */
        return smallest_uh_th(A, prm->live ? vsize + 4 : 2 * vsize + 4, th);
    return SPX_OK;
}

static int64_t target_warps(void)
{
    int sms = 0;
    if (spx__cuda_device_info(NULL, 0, &sms, NULL) != SPX_OK || sms <= 0) sms = FALLBACK_SMS;
    return (int64_t)sms * WARPS_PER_SM;
}

static spx_status axt_analyze(int variant, const spx_matrix *A, const spx_plan_opts *o,
                              void **state)
{
    axt_params prm = {variant, 0, 0, 1, 0, 1};
    spx__cuda_axt_host h;
    spx__cuda_axt_plan *p = NULL;
    int th = 1;
    spx_status st;
    memset(&h, 0, sizeof h);
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_one, &prm));
    SPX_TRY(variant_th(variant, &prm, A, o->precision, &th));
    const spx__cuda_axt_shape s = {
        .variant = variant,
        .type = o->precision,
        .live = prm.live,
        .th = th,
        .bs = (int)(prm.bs ? prm.bs : default_bs(A->rows)),
        .threads = o->threads,
        .target_warps = target_warps(),
    };
    SPX_TRY(spx__cuda_axt_build(A, &s, &h));
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "cuda axt plan"));
    p->variant = variant;
    p->precision = o->precision;
    p->live = prm.live;
    p->atomic = prm.atomic;
    p->pdl = prm.pdl && spx__cuda_can_overlap_launches();
    p->stream = o->stream;
    copy_shape(&h, p);
    SPX_TRY(upload(&h, p));
    spx__cuda_axt_host_free(&h);
    *state = p;
    return SPX_OK;
cleanup:
    spx__cuda_axt_host_free(&h);
    axt_destroy(p);
    return st;
}

static spx_status axt_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    return spx__cuda_axt_spmv(state, alpha, x, beta, y);
}

/* New values (spx_plan_update_values): the caller's device values, or host
 * values copied over on the plan's stream, into the slabs' value cells (of
 * the plan's type, as the values: no conversion). These formats have no iso
 * path: every update stores its values. */
static spx_status axt_update_values(void *state, const void *values, int on_device)
{
    const spx__cuda_axt_plan *p = state;
    const size_t vsize = p->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    void *staged = NULL;
    spx_status st = SPX_OK;
    if (!on_device) {
        SPX_TRY(spx__cuda_alloc(&staged, (size_t)(p->nnz > 0 ? p->nnz : 1) * vsize,
                                "cuda axt new values"));
        SPX_TRY(spx__cuda_copy_async(staged, values, (size_t)p->nnz * vsize, 1, p->stream));
    }
    SPX_TRY(spx__cuda_axt_values(p, on_device ? values : staged));
cleanup:
    spx__cuda_free(staged);
    return st;
}

/* Device memory held: ax[], the refresh columns, rwp / hdr / brp, the empty
 * rows and the carries. */
static size_t axt_bytes(const void *state)
{
    const spx__cuda_axt_plan *p = state;
    const size_t cells = (size_t)p->nslab * (size_t)p->thw;
    const size_t vsize = p->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    size_t n = (size_t)p->nslab * (size_t)p->sb + (size_t)p->n_empty * sizeof(int32_t);
    if (p->col) n += cells * sizeof(int32_t);
    if (p->hdr) n += cells * sizeof(uint32_t);
    if (p->variant == SPX__CUDA_AXT_UH1) n += (size_t)p->nslab * sizeof(int32_t);
    if (p->variant == SPX__CUDA_AXT_UH) n += (size_t)p->nunits * (size_t)p->thw * sizeof(int32_t);
    if (p->brp) n += ((size_t)p->rows + 1) * sizeof(int64_t);
    if (p->carry_row) n += 2 * (size_t)p->workers * (sizeof(int64_t) + vsize);
    return n;
}

/* Variant and shape, x mode, combine, occupancy beta = nnz / stored slots
 * (the paper's eq. 2), slabs, producers and pdl. */
static void axt_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_axt_plan *p = state;
    char shape[48];
    const double stored = (double)p->nslab * p->thw;
    if (p->variant == SPX__CUDA_AXC)
        snprintf(shape, sizeof shape, "hbrs=%d", p->thw);
    else if (p->variant == SPX__CUDA_AXT_CH1)
        snprintf(shape, sizeof shape, "thw=%d bs=%d", p->thw, p->bs);
    else
        snprintf(shape, sizeof shape, "thw=%d th=%d", p->thw, p->th);
    snprintf(buf, len, "%s %s x=%s combine=%s beta=%.3f slabs=%lld %s=%lld units/%s=%lld pdl=%s",
             names[p->variant], shape, p->live ? "live" : "refresh",
             p->variant == SPX__CUDA_AXC ? "none"
             : p->atomic                 ? "atomic"
                                         : "ordered",
             stored > 0 ? (double)p->nnz / stored : 1.0, (long long)p->nslab,
             p->variant == SPX__CUDA_AXT_CH1 ? "blocks" : "warps", (long long)p->workers,
             p->variant == SPX__CUDA_AXT_CH1 ? "block" : "warp", (long long)p->per_worker,
             p->pdl ? "on" : "off");
}

/* AUTO: axc for small matrices of long rows, where a warp per row beats
 * csr's row blocks. On the H100 (bench/results/axt-cuda-2026-11-25/, and the
 * same order in gpu-2026-11-25.md's run 3), axc against csr: cavity19 (4562
 * rows of 28.9 on average, 132k nonzeros) 0.0032 / 0.0039 ms, bcsstk28 (4410
 * rows of 49.7, 219k) 0.0037 / 0.0040; with more rows it loses: sinc18
 * (16428 rows of 57.7) 0.82x, xenon1 (48600 rows of 24.3) 0.33x, and every
 * matrix of short rows 0.06x-0.47x. Unmeasured below 100k nonzeros. */
#define AXC_MAX_ROWS 8192
#define AXC_MIN_ROW 24.0
#define AXC_MIN_NNZ 100000
#define AXC_EXPECTED_GAIN 1.1

static double axc_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    (void)A;
    if (f->rows > AXC_MAX_ROWS || f->nnz < AXC_MIN_NNZ || f->rave < AXC_MIN_ROW) return 0.0;
    return AXC_EXPECTED_GAIN;
}

#define SPX__CUDA_AXT_FORMAT(ident, variant, str, suits_hook)                                      \
    static spx_status analyze_##ident(const spx_matrix *A, const spx_plan_opts *o, void **s)       \
    {                                                                                              \
        return axt_analyze(variant, A, o, s);                                                      \
    }                                                                                              \
    const spx_format_ops spx__format_cuda_##ident = {                                              \
        .name = str,                                                                               \
        .devices = SPX_DEV_CUDA,                                                                   \
        .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),                             \
        .analyze = analyze_##ident,                                                                \
        .spmv = axt_spmv,                                                                          \
        .bytes = axt_bytes,                                                                        \
        .destroy = axt_destroy,                                                                    \
        .describe = axt_describe,                                                                  \
        .update_values = axt_update_values,                                                        \
        .borrows_matrix = 0,                                                                       \
        .suits = suits_hook,                                                                       \
    };

SPX__CUDA_AXT_FORMAT(axc, SPX__CUDA_AXC, "axc", axc_suits)
SPX__CUDA_AXT_FORMAT(axt_uh1, SPX__CUDA_AXT_UH1, "axt-uh1", NULL)
SPX__CUDA_AXT_FORMAT(axt_uh, SPX__CUDA_AXT_UH, "axt-uh", NULL)
SPX__CUDA_AXT_FORMAT(axt_ch1, SPX__CUDA_AXT_CH1, "axt-ch1", NULL)
SPX__CUDA_AXT_FORMAT(axt_ch, SPX__CUDA_AXT_CH, "axt-ch", NULL)
