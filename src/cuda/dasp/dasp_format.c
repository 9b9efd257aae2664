/* The `dasp` format on SPX_DEV_CUDA, F64 and F16 (layout in dasp.h): the
 * layout computed on the host at analyze, the values and columns placed on the
 * device, the host copy dropped.
 * Params: prep=gpu|host (where the values and columns are scattered into
 * their slots: gpu, the default, uploads A's CSR once and scatters it on the
 * device, converting to half there for F16; host scatters them on the host
 * and uploads the packed arrays, the reference: both give the same bits;
 * the layout itself, O(rows), is computed on the host either way),
 * thr=0..100 (percent of an 8x4 block's slots a regular medium block
 * must exceed; the paper's 75), loop=0|1|2|4 (medium row-blocks per warp;
 * 0: the paper's rule on the count of medium rows), pass2=-1|0|1 (1: a second
 * launch adds the partial sums of long rows and heavy row-blocks; 0: the last
 * task of each does, in the same launch, after a fence and an atomic; -1, the
 * default: a second launch when there are more than DASP_TWO_PASS_TASKS tasks.
 * Measured on an H100: the second launch costs about 2 us on small matrices,
 * the fences cost more than that past a few thousand tasks: R-MAT scale 20
 * took 325 us with pass2=0 and 263 us with pass2=1, c-62 8.1 against 10.8).
 * mma=4|8|16: F64 chunks per mma.sync, m8n8k4 (the default), m16n8k8 or
 * m16n8k16 (F16 keeps its tf32 m16n8k4): the same bits on an H100, slower
 * there (64 registers instead of 54: bench/results/gpu-dasp-mma-2026-11-22.md).
 * regs=auto|54|48|40: registers of the F64 m8n8k4 main kernel: 54 is the kernel
 * as compiled (no cap; 54 on sm_90), 48 and 40 capped through __launch_bounds__
 * (40 and 48 resident warps per SM instead of 36, a few bytes of spills), the
 * same bits; auto (the default) takes 48 where the uncapped kernel needs just
 * over one wave of warps on this GPU and the capped one fits in one (the rule
 * in dasp_kernels.cu, pick_regs; measured on an H100: cage11 +8-10%, and 40
 * registers slower everywhere: bench/results/gpu-dasp-regs-2026-11-22.md);
 * F16 and mma=8|16 are never capped.
 * pdl=on|off: on (the default where the device has it, sm_90+), a call's
 * kernel is scheduled while the kernel before it ends, and waits for it
 * before its first load (cuda/pdl.cuh).
 * xtype=float|half (F16): x as float (the default, split into two tf32 parts,
 * two mma per chunk) or as IEEE half (exact in tf32: one mma per chunk, and
 * 2 bytes a read instead of 4).
 * values=auto|stored|iso (core/iso.h; default auto): a matrix whose values
 * are all one number v (spx_matrix_iso) is placed without values and
 * multiplied as y = (alpha * v) * (pattern(A) x) + beta * y: every entry's
 * A operand is 1 (a padding entry still gives 0, its x operand being 0), 8
 * bytes a slot fewer in fp64, 2 in fp16; fp16 keeps v in float, so it need
 * not fit half. With v = 1 the sums are the stored path's, bit for bit.
 * New values (spx_plan_update_values): scattered into the plan's slots on the
 * device by the walk of its row lists (dasp.h: no slot map, A's row offsets
 * kept instead, 8 bytes a row), so either prep gives a new plan's bits; an
 * iso plan takes one number in place and varied values by storing them from
 * then on (values=iso refuses them). */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/iso.h"
#include "core/matrix.h"
#include "cuda/dasp/dasp.h"
#include "cuda/gateway.h"
#include "cuda/values/values.h"
#include "plan/auto_order.h"
#include "plan/format.h"

#define DASP_TWO_PASS_TASKS 8192

typedef struct dasp_params {
    long threshold, loop, two_pass, mma;
    long regs;     /* 0 (auto), 54, 48 or 40 */
    int prep_host; /* prep=host */
    int pdl;       /* pdl=on|off */
    int x_half;    /* xtype=half */
    spx__values_mode values;
} dasp_params;

typedef struct dasp_state {
    spx__dasp_dev *dev;
    spx__dasp_host shape; /* counts only: the arrays are freed after upload */
    int prep_host;
    int x_half;    /* F16 with xtype=half: x in IEEE half */
    spx_type prec; /* SPX_F64 or SPX_F16 */
    int iso;       /* values=iso: no values on the device */
    double iso_value; /* A's one value, folded into alpha */
    spx__values_mode values; /* the param values= */
    void *stream;            /* the plan's */
} dasp_state;

/* A power of two in [lo, hi]. */
static spx_status param_pow2(const char *key, const char *value, long lo, long hi, long *out)
{
    spx_status st = spx__param_int(key, value, lo, hi, out);
    if (st == SPX_OK && (*out & (*out - 1)) != 0)
        return spx__error(SPX_ERR_BAD_PARAM, "dasp: %s=%ld (a power of two, %ld to %ld)", key, *out,
                          lo, hi);
    return st;
}

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    dasp_params *p = ctx;
    if (strcmp(key, "thr") == 0) return spx__param_int(key, value, 0, 100, &p->threshold);
    if (strcmp(key, "loop") == 0) {
        spx_status st = spx__param_int(key, value, 0, 4, &p->loop);
        if (st == SPX_OK && p->loop == 3)
            return spx__error(SPX_ERR_BAD_PARAM, "dasp: loop=3 (0, 1, 2 or 4)");
        return st;
    }
    if (strcmp(key, "pass2") == 0) return spx__param_int(key, value, -1, 1, &p->two_pass);
    if (strcmp(key, "prep") == 0) {
        if (strcmp(value, "gpu") != 0 && strcmp(value, "host") != 0)
            return spx__error(SPX_ERR_BAD_PARAM, "dasp: prep=%s is not gpu or host", value);
        p->prep_host = strcmp(value, "host") == 0;
        return SPX_OK;
    }
    if (strcmp(key, "pdl") == 0) return spx__param_on_off(key, value, &p->pdl);
    if (strcmp(key, "xtype") == 0) return spx__param_xtype(key, value, &p->x_half);
    if (strcmp(key, "values") == 0) return spx__param_values("dasp", value, &p->values);
    if (strcmp(key, "mma") == 0) return param_pow2(key, value, 4, 16, &p->mma);
    if (strcmp(key, "regs") == 0) {
        if (strcmp(value, "auto") == 0) return p->regs = 0, SPX_OK;
        spx_status st = spx__param_int(key, value, 40, 54, &p->regs);
        if (st == SPX_OK && p->regs != 40 && p->regs != 48 && p->regs != 54)
            return spx__error(SPX_ERR_BAD_PARAM, "dasp: regs=%ld (auto, 54, 48 or 40)", p->regs);
        return st;
    }
    return spx__error(SPX_ERR_BAD_PARAM, "dasp: unknown parameter '%s'", key);
}

static void dasp_destroy(void *state)
{
    dasp_state *s = state;
    if (!s) return;
    spx__dasp_free(s->dev);
    spx__free(s);
}

static spx_status dasp_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    dasp_params prm = {75, 0, -1, 4, 0, 0, 1, 0, SPX__VALUES_AUTO};
    spx__dasp_host *h = NULL;
    dasp_state *s = NULL;
    int iso = 0;
    double iso_value = 0.0;
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    SPX_TRY(spx__check_xtype(prm.x_half, o->precision, "dasp"));
    SPX_TRY(spx__values_choose(A, prm.values, o->precision, "dasp", &iso, &iso_value));
    if (prm.mma != 4 && (prm.regs == 48 || prm.regs == 40))
        SPX_TRY(spx__error(SPX_ERR_BAD_PARAM, "dasp: regs=%ld needs mma=4", prm.regs));
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "dasp plan"));
    SPX_TRY((prm.prep_host ? spx__dasp_pack : spx__dasp_pack_layout)(A, (int)prm.threshold,
                                                                     (int)prm.loop, &h));
    h->two_pass =
        prm.two_pass >= 0 ? (int)prm.two_pass : h->n_tasks + h->n_htasks > DASP_TWO_PASS_TASKS;
    h->mma = (int)prm.mma;
    h->regs = (int)prm.regs;
    h->pdl = prm.pdl && spx__cuda_can_overlap_launches();
    h->iso = iso;
    SPX_TRY(spx__dasp_upload(h, o->precision, o->stream, &s->dev));
    s->shape = *h;
    s->shape.A = NULL;
    s->prep_host = prm.prep_host;
    s->x_half = prm.x_half;
    s->prec = o->precision;
    s->iso = iso;
    s->iso_value = iso_value;
    s->values = prm.values;
    s->stream = o->stream;
    *state = s;
    s = NULL;
cleanup:
    spx__dasp_host_free(h);
    dasp_destroy(s);
    return st;
}

static spx_status dasp_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const dasp_state *s = state;
    return spx__dasp_spmv(s->dev, s->iso ? alpha * s->iso_value : alpha, x, beta, y, s->x_half);
}

/* Whether the plan's nnz new values (double for F64, float for F16; device
 * memory when on_device) are all one number, *v. */
static spx_status values_iso(const dasp_state *s, const void *values, int on_device, int *iso,
                             double *v)
{
    int64_t n = s->shape.nnz;
    spx_type from = s->prec == SPX_F64 ? SPX_F64 : SPX_F32;
    void *host = NULL;
    spx_status st = SPX_OK;
    if (on_device) {
        SPX_TRY(spx__alloc(&host, (size_t)(n > 0 ? n : 1),
                           from == SPX_F64 ? sizeof(double) : sizeof(float),
                           "dasp: new values on the host"));
        SPX_TRY(spx__cuda_values_to_host(host, values, from, 1, n, s->stream));
        values = host;
    }
    spx__values_iso_array(values, n, s->prec, iso, v);
cleanup:
    spx__free(host);
    return st;
}

/* New values (spx_plan_update_values): an iso plan takes one number in place
 * (folded into alpha) and varied values into a value array of its own,
 * stored from then on (values=iso refuses them); a stored plan refills its
 * slots (spx__dasp_update). A refusal leaves the plan as it was. */
static spx_status dasp_update_values(void *state, const void *values, int on_device)
{
    dasp_state *s = state;
    spx_status st = SPX_OK;
    if (s->iso) {
        int iso = 0;
        double v = 0.0;
        SPX_TRY(values_iso(s, values, on_device, &iso, &v));
        if (iso) {
            s->iso_value = v;
            return SPX_OK;
        }
        if (s->values == SPX__VALUES_ISO)
            return spx__error(SPX_ERR_UNSUPPORTED,
                              "dasp: the plan was made with values=iso and the new values are "
                              "not all one number; make it with values=stored or auto");
    }
    SPX_TRY(spx__dasp_update(s->dev, values, on_device));
    s->iso = 0;
cleanup:
    return st;
}

static spx_type dasp_x_type(const void *state)
{
    const dasp_state *s = state;
    return s->x_half ? SPX_F16 : s->prec == SPX_F64 ? SPX_F64 : SPX_F32;
}

static size_t dasp_bytes(const void *state)
{
    const dasp_state *s = state;
    return sizeof *s + spx__dasp_bytes(s->dev);
}

static void dasp_describe(const void *state, char *buf, size_t len)
{
    const dasp_state *s = state;
    const spx__dasp_host *h = &s->shape;
    double slots = (double)h->n_entries;
    char values[48] = "values=stored";
    if (s->iso) snprintf(values, sizeof values, "values=iso value=%.17g", s->iso_value);
    snprintf(buf, len,
             "long=%lld tasks=%lld medium=%lld rowblocks=%lld heavy=%lld htasks=%lld "
             "regular_blocks=%lld "
             "irregular_nnz=%lld loop=%d thr=%d pass2=%d short=%lld pieces13=%lld pieces22=%lld "
             "rows4=%lld single=%lld empty=%lld fill=%.3f prep=%s%s %s",
             (long long)h->n_long, (long long)h->n_tasks, (long long)h->n_medium,
             (long long)h->n_rowblocks, (long long)h->n_heavy, (long long)h->n_htasks,
             (long long)h->n_regular, (long long)h->n_irreg, h->loop_num, h->threshold, h->two_pass,
             (long long)h->n_short, (long long)(h->n_len1 < h->n_len3 ? h->n_len1 : h->n_len3),
             (long long)((h->n_len2 + 1) / 2),
             (long long)(h->n_len4 + h->n_len3 - (h->n_len1 < h->n_len3 ? h->n_len1 : h->n_len3)),
             (long long)h->n_single, (long long)h->n_empty,
             slots > 0 ? (double)h->nnz / slots : 1.0, s->prep_host ? "host" : "gpu",
             s->x_half ? " xtype=half" : "", values);
}

/* AUTO: dasp for matrices of DASP_MIN_NNZ or more nonzeros with rows longer
 * than DASP_LONG_ROW and a mean row of 16 to 32, when the caller expects
 * enough calls to repay its preparation (5 to 40 ms against csr's 1 to 4 on
 * the shared matrices, 150+ ms at 10M+ nonzeros). Measured on an H100 with
 * pdl=on (bench/results/gpu-pdl-2026-11-22.md), ratio to cuSPARSE CSR in one
 * process:
 *  - csr beat dasp on all ten shared matrices of 100k+ nonzeros, those dasp
 *    used to win included (TSOPF_RS_b39_c30 1.88x vs 1.84x, xenon1 1.69x vs
 *    1.46x, c-62 1.38x vs 0.97x: mean row 18, 24 and 13.4, c-62 with rows of
 *    up to 5060), and on lap3d27:96 (23.4M nonzeros, 1.14x vs 1.02x);
 *  - dasp keeps the R-MAT graphs (rows longer than 256 and a mean row of
 *    28-30): scale 20 1.02x vs 0.77x (fp16 1.04x vs 0.81x), scale 17 1.09x vs
 *    0.77x (bench/results/gpu-h100-80gb-hbm3-2026-11-22-r3.txt), where csr's
 *    row blocks of mixed short and long rows leave lanes idle: about 1.3x csr.
 *    The bound of 16 on the mean row sits between c-62 (13.4, csr) and those.
 *  - but not the power-law generator, whose rows are as long and as spread
 *    (mean 16-20, rows up to 10^5) and whose columns are uniform: in one
 *    process (bench/results/csr-warp-2026-11-27.md, run FB) dasp took
 *    0.0826 ms against csr's 0.0782 at 500k rows (cuSPARSE 0.0739), 0.3388
 *    against 0.3065 at 2M, and tied at 1M rows of mean 20 (0.1941 against
 *    0.1950; fp16 0.1814 against 0.1728). What sets R-MAT apart is its hot
 *    columns: the 1% of the columns with the most entries hold 39-49% of its
 *    nonzeros (spx__hot_share), 2% of the power-law generator's, so dasp
 *    asks for DASP_HOT_SHARE. No shared matrix passes the other conditions
 *    (TSOPF's rows stop at 32), so they do not see this one. */
#define DASP_MIN_NNZ 500000
#define DASP_LONG_ROW 256
#define DASP_REPAY_CALLS 10000
#define DASP_EXPECTED_GAIN 1.25
#define DASP_HOT_SHARE 0.1
/* The hot share is sampled (spx__auto_hot_share). Counting every nonzero's
 * column added about 30 ms to AUTO's plan of the power-law generator at
 * 500k rows (csr's whole plan: 10 ms) and 70-120 ms to R-MAT 20's on the
 * H100 machine's 16 threads (auto prep_ms, run FA against FB). Sampled, on
 * the 2-core build machine idle: 3.0 against 12.1 ms (500k rows), 13
 * against 45 ms (R-MAT 20), reading 0.027 and 0.493 where the exact shares
 * are 0.017 and 0.487. */

static double dasp_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    if (f->rows == 0 || f->nnz < DASP_MIN_NNZ) return 0.0;
    if (f->o->expected_calls > 0 && f->o->expected_calls < DASP_REPAY_CALLS) return 0.0;
    if (f->rave < 16.0 || f->rave > 32.0 || f->rmax <= DASP_LONG_ROW) return 0.0;
    const double hot = spx__auto_hot_share(A); /* -1: not counted, keep dasp */
    return hot >= 0.0 && hot < DASP_HOT_SHARE ? 0.0 : DASP_EXPECTED_GAIN;
}

/* The stored path beside the iso default, measured in the same bench run. */
static const char *const dasp_bench_variants[] = {"values=stored", NULL};

const spx_format_ops spx__format_dasp = {
    .name = "dasp",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F16),
    .analyze = dasp_analyze,
    .spmv = dasp_spmv,
    .bytes = dasp_bytes,
    .destroy = dasp_destroy,
    .describe = dasp_describe,
    .update_values = dasp_update_values,
    .borrows_matrix = 0,
    .x_type = dasp_x_type,
    .bench_variants = dasp_bench_variants,
    .suits = dasp_suits,
};
