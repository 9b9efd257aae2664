/* The `hbp` format on SPX_DEV_CUDA: the hash-based partition of the paper
 * hbp-hash-partition-spmv (layout and kernels: hbp_kernels.h). Built on the
 * GPU by default (hbp_prep.cu, timed as the plan's preparation), or on the
 * host (prep=host, hbp_build.c) and uploaded.
 * Params:
 *  - rows=N: rows of a block, a power of two 32..4096. Default 1024, twice
 *    the paper's 512: the hash orders rows only inside a block, so more rows
 *    give it more rows of like length to group, and what a block costs in
 *    shared memory (the hash table of 9 N / 16 counters while building, the
 *    owner combine's N sums) fits the H100's 228 KB per multiprocessor many
 *    times over.
 *  - cols=M|all: columns of a block. Default: all (one column block, so no
 *    combine at all) while x fits in the L2 (H100: 50 MB, 6.5M fp64 columns),
 *    else the largest power of two whose x segment takes a quarter of the L2
 *    (1M fp64 columns), so that the warps, running the blocks of one column
 *    block together, keep its x segment in L2. The paper takes M = 4096 so
 *    that a warp's x segment (32 KB of fp64) fills the 48 KB of shared memory
 *    of its GPUs; on the H100 such segments would leave 7 warps per
 *    multiprocessor, x of the matrices (up to 2M columns) lives in
 *    the L2 anyway, and with C > 1 every row piece costs a partial sum
 *    written and read back (about 22 bytes against 10-12 per entry): for
 *    rows of a few entries scattered over all columns (R-MAT, circuit, power
 *    law) pieces are as many as entries. Narrower blocks are parameters to
 *    measure: cols=65536 (16-bit columns), cols=4096 (the paper's, x staged in
 *    shared memory, see xseg). Hypotheses for the H100 run, not yet
 *    measurements.
 *  - tile=T: steps of a lane tile (and entries per thread of a coop tile);
 *    0: one tile per group, the paper's kernel. Default 128.
 *  - combine=owner|paper: how the partial y of the column blocks of a row
 *    block are added when C > 1: owner (default), a thread block per row block
 *    adds its blocks' rows in column order in shared memory, reading one sum
 *    per row piece; paper, every block writes a dense segment of N sums and a
 *    thread per row adds them (the paper's combine; implies tile=0).
 *  - prep=hash|sort|host: the rows' order inside a block by the hash on the
 *    GPU (default), by CUB's segmented sort on the GPU (the paper's sort
 *    baseline), or by the hash on the host.
 *  - fixed=P: each warp first runs P% of its equal share of tiles (default
 *    50), then draws tiles from the ticket.
 *  - xseg=auto|on|off: stage x segments in shared memory for blocks of at
 *    least M/2 entries when a warp's segment takes at most 16 KB (auto), for
 *    every block (on; segments of at most 48 KB), or never.
 *  - xtype=float|half (fp16 plans), pdl=on|off (default on, sm_90+).
 *  - values=auto|stored|iso (core/iso.h; default auto): a matrix whose values
 *    are all one number v (spx_matrix_iso) is multiplied as
 *    y = (alpha * v) * (pattern(A) x) + beta * y by the kernels stamped with
 *    no values; the build still places them (prep time), the plan then frees
 *    them: 8 bytes a nonzero fewer held and read in fp64. fp16 keeps v in
 *    float, so it need not fit half.
 * Declines (SPX_ERR_UNSUPPORTED) 64-bit columns, 2^31 rows or more, more
 * than 2^26 blocks, and fp16 values beyond half's range.
 * New values (spx_plan_update_values): placed through the lanes' first
 * entries the build keeps (hbp_kernels.h; 4 bytes a lane, no slot map); an
 * iso plan takes one number in place and stores varied values from then on
 * (values=iso refuses them); a plan of more than 2^31 - 1 entries, which
 * keeps no first entries, refuses them. */
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/iso.h"
#include "core/matrix.h"
#include "cuda/csr/csr_kernels.h"
#include "cuda/gateway.h"
#include "cuda/hbp/hbp_kernels.h"
#include "cuda/values/values.h"
#include "plan/format.h"

#define DEFAULT_ROWS 1024
#define DEFAULT_TILE 128
#define DEFAULT_FIXED 50
#define L2_SHARE 4     /* x larger than the L2: segments of a quarter of it */
#define SEG_AUTO 16384 /* xseg=auto: bytes of a warp's x segment at most */
#define SEG_ON 49152   /* xseg=on: at most */

enum { PREP_HASH, PREP_SORT, PREP_HOST };
enum { XSEG_AUTO, XSEG_ON, XSEG_OFF };

typedef struct hbp_params {
    long rows, cols, tile, fixed; /* cols 0: all; tile -1: the default */
    int combine, prep, xseg, pdl, x_half;
    spx__values_mode values;
} hbp_params;

/* One of the names in `names` (count n): its index into *out. */
static spx_status param_choice(const char *key, const char *value, const char *const *names, int n,
                               int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return SPX_OK;
        }
    return spx__error(SPX_ERR_BAD_PARAM, "hbp (cuda): %s=%s is not one of %s|%s%s%s", key, value,
                      names[0], names[1], n > 2 ? "|" : "", n > 2 ? names[2] : "");
}

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    static const char *const combines[] = {"owner", "paper"};
    static const char *const preps[] = {"hash", "sort", "host"};
    static const char *const xsegs[] = {"auto", "on", "off"};
    hbp_params *p = ctx;
    if (strcmp(key, "rows") == 0)
        return spx__param_int(key, value, 32, SPX__HBP_MAX_ROWS, &p->rows);
    if (strcmp(key, "cols") == 0) {
        if (strcmp(value, "all") == 0) {
            p->cols = 0;
            return SPX_OK;
        }
        return spx__param_int(key, value, 1, INT32_MAX, &p->cols);
    }
    if (strcmp(key, "tile") == 0) {
        spx_status st = spx__param_int(key, value, 0, 65536, &p->tile);
        if (st == SPX_OK && p->tile > 0 && p->tile < 8)
            return spx__error(SPX_ERR_BAD_PARAM, "hbp (cuda): tile=%ld is not 0 or 8..65536",
                              p->tile);
        return st;
    }
    if (strcmp(key, "fixed") == 0) return spx__param_int(key, value, 0, 100, &p->fixed);
    if (strcmp(key, "combine") == 0) {
        int c = 0;
        spx_status st = param_choice(key, value, combines, 2, &c);
        p->combine = c ? SPX__HBP_PAPER : SPX__HBP_OWNER;
        return st;
    }
    if (strcmp(key, "prep") == 0) return param_choice(key, value, preps, 3, &p->prep);
    if (strcmp(key, "xseg") == 0) return param_choice(key, value, xsegs, 3, &p->xseg);
    if (strcmp(key, "pdl") == 0) return spx__param_on_off(key, value, &p->pdl);
    if (strcmp(key, "xtype") == 0) return spx__param_xtype(key, value, &p->x_half);
    if (strcmp(key, "values") == 0) return spx__param_values("hbp (cuda)", value, &p->values);
    return spx__error(SPX_ERR_BAD_PARAM, "hbp (cuda): unknown parameter '%s'", key);
}

static size_t x_bytes(const spx_plan_opts *o, int x_half)
{
    return o->precision == SPX_F64 ? 8 : x_half ? 2 : 4;
}

/* cols= when not given (all: asked for every column): every column while x
 * fits the L2 (or the L2 size is unknown), else x segments of a quarter of
 * it, a power of two. */
static spx_status default_cols(const spx_matrix *A, int all, size_t xs, int64_t *M)
{
    size_t l2 = 0;
    int64_t quarter = 1;
    spx_status st = all ? SPX_OK : spx__cuda_device_info(NULL, 0, NULL, &l2);
    if (st != SPX_OK) return st;
    while ((double)(2 * quarter) * (double)xs <= (double)l2 / L2_SHARE)
        quarter *= 2;
    all = all || l2 == 0 || (double)A->cols * (double)xs <= (double)l2 || A->cols <= quarter;
    *M = all ? (A->cols > 0 ? A->cols : 1) : quarter;
    return SPX_OK;
}

/* The build options from the parameters (tile= with combine=paper and
 * xseg=on's segment checked here, the block shape by spx__hbp_check). */
static spx_status build_opts(const spx_matrix *A, const spx_plan_opts *po, const hbp_params *p,
                             spx__hbp_opts *o)
{
    const size_t xs = x_bytes(po, p->x_half);
    if (p->combine == SPX__HBP_PAPER && p->tile > 0)
        return spx__error(SPX_ERR_BAD_PARAM,
                          "hbp (cuda): combine=paper runs whole groups (tile=0), not tile=%ld",
                          p->tile);
    o->N = p->rows;
    o->M = p->cols;
    if (p->cols <= 0) {
        spx_status st = default_cols(A, p->cols == 0, xs, &o->M);
        if (st != SPX_OK) return st;
    }
    o->T = p->combine == SPX__HBP_PAPER ? 0 : p->tile >= 0 ? p->tile : DEFAULT_TILE;
    o->combine = p->combine;
    o->order = p->prep == PREP_SORT ? SPX__HBP_SORT : SPX__HBP_HASH;
    o->vtype = po->precision;
    const double seg = (double)o->M * (double)xs;
    if (p->xseg == XSEG_ON && (o->M > SPX__HBP_COL16 || seg > SEG_ON))
        return spx__error(SPX_ERR_BAD_PARAM,
                          "hbp (cuda): xseg=on needs x segments of at most %d bytes; cols=%lld "
                          "makes %.0f",
                          SEG_ON, (long long)o->M, seg);
    o->stage_min = p->xseg == XSEG_ON ? 1
                   : p->xseg == XSEG_AUTO && o->M <= SPX__HBP_COL16 && seg <= SEG_AUTO
                       ? (o->M + 1) / 2
                       : 0;
    return SPX_OK;
}

static void hbp_destroy(void *state)
{
    spx__cuda_hbp_plan *p = state;
    if (!p) return;
    spx__hbp_free_device(&p->H);
    spx__cuda_free(p->partial);
    spx__cuda_free(p->ticket);
    spx__free(p);
}

#define UPLOAD(field, n, what)                                                                     \
    SPX_TRY(spx__cuda_upload((void **)&d->field, h->field, (size_t)(n) * sizeof *h->field, what))

/* A host layout's arrays to the device, values converted to the plan's type. */
static spx_status upload_layout(const spx__hbp *h, spx_type t, spx__hbp *d)
{
    spx_status st = SPX_OK;
    *d = *h;
    d->blk_r = d->blk_c = NULL;
    d->blk_group = d->group_entry = d->group_tile = d->rb_ptr = NULL;
    d->lane_row = NULL;
    d->lane_len = NULL;
    d->tiles = NULL;
    d->multi = d->rb_list = NULL;
    d->col = d->values = NULL;
    d->lane_first = NULL;
    d->vtype = t;
    UPLOAD(blk_r, h->n_blocks, "cuda hbp block rows");
    UPLOAD(blk_c, h->n_blocks, "cuda hbp block columns");
    UPLOAD(blk_group, h->n_blocks + 1, "cuda hbp block groups");
    UPLOAD(group_entry, h->n_groups + 1, "cuda hbp group entries");
    UPLOAD(group_tile, h->n_groups + 1, "cuda hbp group tiles");
    UPLOAD(lane_row, SPX__HBP_W * h->n_groups, "cuda hbp lane rows");
    UPLOAD(lane_len, SPX__HBP_W * h->n_groups, "cuda hbp lane lengths");
    UPLOAD(tiles, h->n_tiles, "cuda hbp tiles");
    UPLOAD(multi, h->n_multi, "cuda hbp multi");
    if (h->rb_ptr) {
        UPLOAD(rb_ptr, h->R + 1, "cuda hbp row blocks");
        UPLOAD(rb_list, h->n_blocks, "cuda hbp row block lists");
    }
    if (h->lane_first) UPLOAD(lane_first, SPX__HBP_W * h->n_groups, "cuda hbp lane first entries");
    SPX_TRY(
        spx__cuda_upload(&d->col, h->col, (size_t)h->nnz * (h->col16 ? 2 : 4), "cuda hbp columns"));
    SPX_TRY(spx__cuda_upload_values(&d->values, h->values, h->vtype, h->nnz, t, "cuda hbp values"));
    return SPX_OK;
cleanup:
    spx__hbp_free_device(d);
    return st;
}

/* The layout on the device: built there from the uploaded CSR, or on the host. */
static spx_status make_layout(const spx_matrix *A, const spx__hbp_opts *o, int prep,
                              spx__cuda_hbp_plan *p)
{
    spx__hbp h;
    spx__cuda_csr d;
    spx_status st = SPX_OK;
    memset(&h, 0, sizeof h);
    memset(&d, 0, sizeof d);
    if (prep == PREP_HOST) {
        SPX_TRY(spx__hbp_build(A, o, &h));
        SPX_TRY(upload_layout(&h, o->vtype, &p->H));
    } else {
        SPX_TRY(spx__cuda_csr_upload(A, o->vtype, &d));
        SPX_TRY(spx__cuda_hbp_build(&d, o, &p->H, &p->times));
    }
cleanup:
    spx__hbp_free_host(&h);
    spx__cuda_csr_free(&d);
    return st;
}

/* The grid of the kernels p launches (iso or not) and each warp's fixed share. */
static spx_status fit_grid(spx__cuda_hbp_plan *p)
{
    spx_status st = spx__cuda_hbp_grid(p);
    if (st != SPX_OK) return st;
    p->fixed = (int64_t)((double)p->fixed_pct / 100.0 * (double)p->H.n_tiles / (double)p->warps);
    return SPX_OK;
}

/* Partial sums, the ticket, the grid and the fixed share. */
static spx_status make_schedule(spx__cuda_hbp_plan *p)
{
    const spx__hbp *H = &p->H;
    const size_t acc = p->precision == SPX_F64 ? 8 : 4;
    const int64_t n = H->combine == SPX__HBP_PAPER ? H->n_blocks * H->N : SPX__HBP_W * H->n_tiles;
    spx_status st = SPX_OK;
    SPX_TRY(spx__cuda_alloc(&p->partial, (size_t)(n > 0 ? n : 1) * acc, "cuda hbp partial sums"));
    SPX_TRY(spx__cuda_alloc((void **)&p->ticket, 2 * sizeof *p->ticket, "cuda hbp ticket"));
    SPX_TRY(spx__cuda_memset(p->ticket, 0, 2 * sizeof *p->ticket, NULL));
    SPX_TRY(spx__cuda_sync(NULL));
    p->stage = H->n_staged > 0;
    SPX_TRY(fit_grid(p));
cleanup:
    return st;
}

static spx_status hbp_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_hbp_plan *p = NULL;
    hbp_params prm = {DEFAULT_ROWS, -1, -1, DEFAULT_FIXED,   SPX__HBP_OWNER, PREP_HASH,
                      XSEG_AUTO,    1,  0,  SPX__VALUES_AUTO};
    spx__hbp_opts bo;
    int iso = 0;
    double iso_value = 0.0;
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &prm));
    SPX_TRY(spx__check_xtype(prm.x_half, o->precision, "hbp (cuda)"));
    SPX_TRY(spx__values_choose(A, prm.values, o->precision, "hbp (cuda)", &iso, &iso_value));
    if (o->precision == SPX_F16 && !iso) SPX_TRY(spx__cuda_check_half_range(A, "hbp (cuda)"));
    SPX_TRY(build_opts(A, o, &prm, &bo));
    SPX_TRY(spx__hbp_check(A, &bo));
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "cuda hbp plan"));
    p->precision = o->precision;
    p->x_half = prm.x_half;
    p->stream = o->stream;
    p->pdl = prm.pdl && spx__cuda_can_overlap_launches();
    p->prep = prm.prep;
    p->values_mode = prm.values;
    p->fixed_pct = (int)prm.fixed;
    SPX_TRY(make_layout(A, &bo, prm.prep, p));
    if (iso) { /* the kernels read no values */
        spx__cuda_free(p->H.values);
        p->H.values = NULL;
        p->iso = 1;
        p->iso_value = iso_value;
    }
    SPX_TRY(make_schedule(p));
    *state = p;
    return SPX_OK;
cleanup:
    hbp_destroy(p);
    return st;
}

static spx_status hbp_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const spx__cuda_hbp_plan *p = state;
    return spx__cuda_hbp_spmv(p, p->iso ? alpha * p->iso_value : alpha, x, beta, y);
}

/* dst (the layout's nnz values of the plan's type) from the caller's values
 * (CSR order): converted by the shared gather (values.h; host values copied
 * over first) unless they are device values of the plan's type already, then
 * placed by the build's scatter. */
static spx_status place_values(const spx__cuda_hbp_plan *p, void *dst, const void *values,
                               int on_device)
{
    const spx_type from = p->precision == SPX_F64 ? SPX_F64 : SPX_F32;
    const int64_t nnz = p->H.nnz;
    const size_t vs = p->precision == SPX_F64 ? 8 : p->precision == SPX_F32 ? 4 : 2;
    const void *src = values;
    void *csr = NULL;
    spx_status st = SPX_OK;
    if (!on_device || p->precision != from) {
        SPX_TRY(spx__cuda_alloc(&csr, (size_t)(nnz > 0 ? nnz : 1) * vs, "cuda hbp new values"));
        SPX_TRY(spx__cuda_values_gather(csr, p->precision, nnz, NULL, values, from, nnz, on_device,
                                        p->stream));
        src = csr;
    }
    SPX_TRY(spx__cuda_hbp_values(&p->H, dst, src, p->stream));
cleanup:
    spx__cuda_free(csr);
    return st;
}

/* New values (spx_plan_update_values), decided as a new plan of them would be
 * (spx__cuda_update_decide, csr_kernels.h): an iso plan takes one number in
 * place; other values go to the plan's array, and an iso plan stores them
 * from then on, in an array of its own and with the grid of the stored
 * kernels (fit first, so that a refusal leaves the plan as it was). */
static spx_status hbp_update_values(void *state, const void *values, int on_device)
{
    spx__cuda_hbp_plan *p = state;
    spx__cuda_hbp_plan stored; /* p once it stores values: the stored kernels' grid */
    const size_t vs = p->precision == SPX_F64 ? 8 : p->precision == SPX_F32 ? 4 : 2;
    void *fresh = NULL;
    int iso = 0;
    double v = 0.0;
    spx_status st;
    if (!p->H.lane_first && p->H.nnz > 0)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "hbp (cuda): %lld entries, more than 2^31 - 1, keep no entry map; make "
                          "a new plan",
                          (long long)p->H.nnz);
    SPX_TRY(spx__cuda_update_decide(values, on_device, p->H.nnz, p->precision, p->iso,
                                    p->values_mode, p->stream, "hbp (cuda)", &iso, &v));
    if (iso) {
        p->iso_value = v;
        return SPX_OK;
    }
    if (!p->iso) return place_values(p, p->H.values, values, on_device);
    stored = *p;
    stored.iso = 0;
    SPX_TRY(fit_grid(&stored));
    SPX_TRY(spx__cuda_alloc(&fresh, (size_t)(p->H.nnz > 0 ? p->H.nnz : 1) * vs, "cuda hbp values"));
    SPX_TRY(place_values(p, fresh, values, on_device));
    stored.H.values = fresh;
    *p = stored;
    return SPX_OK;
cleanup:
    spx__cuda_free(fresh);
    return st;
}

static size_t hbp_bytes(const void *state)
{
    const spx__cuda_hbp_plan *p = state;
    const spx__hbp *H = &p->H;
    const size_t val = p->iso ? 0 : p->precision == SPX_F64 ? 8 : p->precision == SPX_F32 ? 4 : 2;
    const size_t acc = p->precision == SPX_F64 ? 8 : 4;
    const size_t np = H->combine == SPX__HBP_PAPER ? (size_t)(H->n_blocks * H->N)
                                                   : (size_t)(SPX__HBP_W * H->n_tiles);
    return (size_t)H->nnz * (val + (H->col16 ? 2 : 4)) + (size_t)H->n_blocks * 20 +
           (size_t)H->n_groups * (SPX__HBP_W * 6 + 16) +
           (H->lane_first ? (size_t)H->n_groups * SPX__HBP_W * 4 : 0) +
           (size_t)H->n_tiles * sizeof(spx__hbp_tile) + (size_t)H->n_multi * 4 +
           (H->rb_ptr ? (size_t)H->R * 8 : 0) + np * acc + 8;
}

static const char *combine_name(int c)
{
    return c == SPX__HBP_DIRECT ? "none" : c == SPX__HBP_OWNER ? "owner" : "paper";
}

static void hbp_describe(const void *state, char *buf, size_t len)
{
    static const char *const preps[] = {"hash", "sort", "host"};
    const spx__cuda_hbp_plan *p = state;
    const spx__hbp *H = &p->H;
    const int64_t fixed = p->fixed * p->warps;
    char values[48] = "values=stored";
    if (p->iso) snprintf(values, sizeof values, "values=iso value=%.17g", p->iso_value);
    snprintf(buf, len,
             "blocks=%lldx%lld of %lldx%lld stored=%lld staged=%lld combine=%s groups=%lld "
             "tiles=%lld tile=%lld multi=%lld hash a=%d b=%d c=%d d=%d order=%s prep=%s "
             "sd=%.3f->%.3f warps=%lld fixed=%lld/warp (%lld tiles) competitive=%lld "
             "prep_ms partition=%.3f order=%.3f layout=%.3f total=%.3f cols=%s pdl=%s%s %s",
             (long long)H->R, (long long)H->C, (long long)H->N, (long long)H->M,
             (long long)H->n_blocks, (long long)H->n_staged, combine_name(H->combine),
             (long long)H->n_groups, (long long)H->n_tiles, (long long)H->T, (long long)H->n_multi,
             H->hash.a, H->hash.b, H->hash.c, H->hash.d,
             H->order == SPX__HBP_SORT ? "sort" : "hash", preps[p->prep], H->sd_before, H->sd_after,
             (long long)p->warps, (long long)p->fixed, (long long)fixed,
             (long long)(H->n_tiles - fixed), p->times.partition_ms, p->times.order_ms,
             p->times.layout_ms, p->times.total_ms, H->col16 ? "u16" : "u32", p->pdl ? "on" : "off",
             p->x_half ? " xtype=half" : "", values);
}

static spx_type hbp_x_type(const void *state)
{
    const spx__cuda_hbp_plan *p = state;
    return p->x_half ? SPX_F16 : p->precision == SPX_F64 ? SPX_F64 : SPX_F32;
}

/* No suits hook: AUTO never picks hbp. Measured on an H100 (2026-11-25,
 * bench/results/gpu-h100-80gb-hbm3-2026-11-25.txt and hbp-h100-2026-11-25/),
 * hbp was slower than SpX's csr on every matrix: fp64 geometric mean 0.56x
 * cuSPARSE CSR over the 14 benchmark matrices (csr 1.61x), the circuit-like
 * matrix 0.30x (0.39 ms against csr's 0.114), R-MAT scale 20 0.70x (dasp
 * 1.02x), R-MAT scale 18 0.64x csr with every variant between 0.14x and 0.69x
 * (prep=sort, tile=32, rows=512..2048, fixed=0..100, cols=4096 and 65536,
 * combine=owner|paper; the paper's kernel, tile=0, 0.02x). The first rule
 * (circuit-like matrices of 4M+ entries) made AUTO pick it on the circuit
 * matrix and cost AUTO's fp64 mean 1.61x -> 1.53x, so it was removed. */

/* The stored path beside the iso default, measured in the same bench run. */
static const char *const hbp_bench_variants[] = {"values=stored", NULL};

const spx_format_ops spx__format_cuda_hbp = {
    .name = "hbp",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32) | SPX__TYPE_BIT(SPX_F16),
    .analyze = hbp_analyze,
    .spmv = hbp_spmv,
    .bytes = hbp_bytes,
    .destroy = hbp_destroy,
    .describe = hbp_describe,
    .update_values = hbp_update_values,
    .borrows_matrix = 0,
    .x_type = hbp_x_type,
    .bench_variants = hbp_bench_variants,
};
