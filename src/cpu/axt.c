/* The formats axc, axt-uh1, axt-uh, axt-ch1 and axt-ch (layouts in axt.h):
 * parameters, kernel choice per ISA, the plan-time tuner, and the spmv driver
 *   y = alpha*A*x + beta*y.
 * Parameters: x=refresh|live, isa=scalar|avx2|avx512 (can only lower what may
 * run), thw (hbrs for axc) = lanes per slab, th (uh, ch) = slabs per tile,
 * bs (ch1) = entries per block. Defaults: x=live (measured 2-5x faster than
 * refresh on this project's CPU), thw = one vector (8 fp64 / 16 fp32 lanes on
 * AVX-512, 4 / 8 on AVX2, 8 / 16 portable), th=4 (uh) or 64 (ch), bs=512.
 * o->tune times a few th / bs, THW and THW/2, and both x modes at plan time.
 *
 * spmv: thread t takes units [ubound[t], ubound[t+1]) (with x=refresh it
 * first rewrites the x slots of those units); rows inside its range are
 * written at once, its first and last rows go to a carry merged after the
 * parallel region in thread order. The result is bitwise reproducible for a
 * fixed thread count and changes with it (the split changes the sums' order).
 * With x=refresh spmv writes the plan's ax[]: such a plan must not serve two
 * threads at once; with x=live it is read-only and may.
 *
 * New values (spx_plan_update_values) are written into the value halves of
 * the slabs by spx__axt_refill (axt_build.c), which finds each entry's slot
 * from what the plan keeps (no slot map, no copy of A's row offsets). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/threads.h"
#include "cpu/axt.h"
#include "plan/format.h"

static const char *const variant_names[SPX__AXT_NVAR] = {"axc", "axt-uh1", "axt-uh", "axt-ch1",
                                                         "axt-ch"};

/* Parameters as given; -1 = not given. */
typedef struct axt_params {
    int variant;
    long thw, th, bs;
    int live, isa;
} axt_params;

static spx_status parse_one(void *ctx, const char *key, const char *value)
{
    axt_params *p = ctx;
    const char *name = variant_names[p->variant];
    int v = p->variant;
    if (strcmp(key, "x") == 0) {
        if (strcmp(value, "live") != 0 && strcmp(value, "refresh") != 0)
            return spx__error(SPX_ERR_BAD_PARAM, "%s: x=%s is not refresh or live", name, value);
        p->live = strcmp(value, "live") == 0;
        return SPX_OK;
    }
    if (strcmp(key, "isa") == 0) {
        p->isa = spx__isa_parse(value);
        if (p->isa < 0)
            return spx__error(SPX_ERR_BAD_PARAM, "%s: isa=%s is not scalar, avx2 or avx512", name,
                              value);
        return SPX_OK;
    }
    if (strcmp(key, v == SPX__AXC ? "hbrs" : "thw") == 0)
        return spx__param_int(key, value, 1, SPX__AXT_MAX_THW, &p->thw);
    if (strcmp(key, "th") == 0 && v != SPX__AXC) {
        long hi = v == SPX__AXT_UH || v == SPX__AXT_CH ? SPX__AXT_MAX_TH : 1;
        return spx__param_int(key, value, 1, hi, &p->th);
    }
    if (strcmp(key, "bs") == 0 && v == SPX__AXT_CH1)
        return spx__param_int(key, value, 1, SPX__AXT_MAX_BS, &p->bs);
    return spx__error(SPX_ERR_BAD_PARAM, "%s: unknown parameter '%s'", name, key);
}

/* Kernel table up to isa (BLIS style: portable, then overrides). */
static void kernels_for(spx__isa isa, spx__axt_kernels *k)
{
    spx__axt_kernels_portable(k);
    if (isa >= SPX__ISA_AVX2) spx__axt_kernels_avx2(k);
    if (isa >= SPX__ISA_AVX512) spx__axt_kernels_avx512(k);
}

/* The kernels for a->thw: the highest ISA up to a->isa_top with a vector
 * width dividing THW (the portable one divides every THW). */
static void pick_kernels(spx__axt *a)
{
    int ti = a->type == SPX_F64 ? 0 : 1;
    a->run = NULL;
    a->refresh = NULL;
    for (int i = (int)a->isa_top; i >= 0; i--) {
        spx__axt_kernels k;
        kernels_for((spx__isa)i, &k);
        spx__axt_kernel kern = k.run[a->variant][ti];
        if (!a->run && a->thw % kern.vl == 0) {
            a->run = kern.run;
            a->isa = kern.isa;
        }
        if (!a->refresh && a->thw % k.refresh_vl[ti] == 0) a->refresh = k.refresh[ti];
    }
}

/* A plan's fixed choices before layout: ISA, THW, kernels, BS. */
static spx_status choose(const axt_params *p, const spx_plan_opts *o, int64_t nnz, spx__axt *a)
{
    spx__isa active = spx__isa_active();
    spx__axt_kernels k;
    int ti = o->precision == SPX_F64 ? 0 : 1;
    a->isa_asked = p->isa >= 0 ? (spx__isa)p->isa : active;
    a->isa_lowered = a->isa_asked > active;
    a->isa_top = a->isa_lowered ? active : a->isa_asked;
    kernels_for(a->isa_top, &k);
    int vl = k.run[p->variant][ti].vl;
    a->variant = p->variant;
    a->type = o->precision;
    a->vsize = o->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    a->thw = (int)(p->thw > 0 ? p->thw : vl > 1 ? vl : ti == 0 ? 8 : 16);
    pick_kernels(a);
    a->th = 1;
    a->nthreads = o->threads > 0 ? o->threads : spx__threads_for(nnz, SPX__SPMV_GRAIN);
    if (p->variant == SPX__AXT_CH1) {
        long bs = p->bs > 0 ? p->bs : 512 / a->thw * a->thw;
        if (bs < a->thw || bs % a->thw != 0)
            return spx__error(SPX_ERR_BAD_PARAM, "axt-ch1: bs=%ld is not a multiple of thw=%d", bs,
                              a->thw);
        a->bs = (int)bs;
    }
    return SPX_OK;
}

static spx_status check_th(const spx__axt *a)
{
    if (a->variant == SPX__AXT_CH && (long)a->th * a->thw > SPX__AXT_MAX_TILE)
        return spx__error(SPX_ERR_BAD_PARAM, "axt-ch: th*thw = %ld exceeds %d",
                          (long)a->th * a->thw, SPX__AXT_MAX_TILE);
    return SPX_OK;
}

static void axt_destroy(void *state)
{
    spx__axt *a = state;
    if (!a) return;
    spx__axt_free_arrays(a);
    spx__free(a);
}

/* A copy of the choices in base with th, bs and live set, laid out for A. */
static spx_status build_one(const spx_matrix *A, const spx__axt *base, int thw, int th, int bs,
                            int live, spx__axt **out)
{
    spx_status st;
    spx__axt *a = NULL;
    SPX_TRY(spx__calloc((void **)&a, 1, sizeof *a, "axt plan"));
    *a = *base;
    a->thw = thw;
    pick_kernels(a);
    a->th = th;
    a->bs = bs;
    a->live = live;
    SPX_TRY(check_th(a));
    SPX_TRY(spx__axt_build(A, a));
    *out = a;
    return SPX_OK;
cleanup:
    axt_destroy(a);
    return st;
}

/* ------------------------------------------------------------------ spmv */

static void scale_rows(const spx__axt *a, double beta, void *y)
{
    spx__axt_sink s = {.beta = beta, .y = y, .f32 = a->type == SPX_F32};
    spx__axt_fill(&s, a->rows);
}

static void run_thread(const spx__axt *a, int t, double alpha, const void *x, double beta, void *y,
                       spx__axt_carry *carry)
{
    int64_t u0 = a->ubound[t], u1 = a->ubound[t + 1];
    if (!a->live) {
        int64_t s0 = a->variant == SPX__AXC ? a->brp[u0] : u0 * a->unit_slabs;
        int64_t s1 = a->variant == SPX__AXC ? a->brp[u1] : u1 * a->unit_slabs;
        a->refresh(a, s0, s1, x);
    }
    spx__axt_sink s = {.alpha = alpha,
                       .beta = beta,
                       .y = y,
                       .f32 = a->type == SPX_F32,
                       .next = a->own[t],
                       .carry = carry};
    carry->n = 0;
    a->run(a, u0, u1, x, &s);
    if (s.open) {
        spx__axt_defer(&s);
        s.next = s.cur + 1;
    }
    spx__axt_fill(&s, a->own[t + 1]);
}

/* The carried rows, in thread order: partials of one row are added in order. */
static void merge(const spx__axt *a, const spx__axt_carry *c, double alpha, double beta, void *y)
{
    spx__axt_sink s = {.alpha = alpha, .beta = beta, .y = y, .f32 = a->type == SPX_F32};
    for (int t = 0; t < a->nthreads; t++)
        for (int i = 0; i < c[t].n; i++) {
            if (s.open && c[t].row[i] == s.cur) {
                s.acc += c[t].sum[i];
                continue;
            }
            if (s.open) spx__axt_put(&s, s.cur, s.acc);
            s.cur = c[t].row[i];
            s.acc = c[t].sum[i];
            s.open = 1;
        }
    if (s.open) spx__axt_put(&s, s.cur, s.acc);
}

static spx_status axt_spmv(void *state, double alpha, const void *x, double beta, void *y)
{
    const spx__axt *a = state;
    spx__axt_carry local[64], *carry = local;
    if (a->nthreads == 0) {
        scale_rows(a, beta, y);
        return SPX_OK;
    }
    if (a->nthreads > 64) {
        spx_status st =
            spx__alloc((void **)&carry, (size_t)a->nthreads, sizeof *carry, "axt carry");
        if (st != SPX_OK) return st;
    }
    const int T = a->nthreads;
#pragma omp parallel num_threads(T)
    {
        int n = omp_get_num_threads();
        for (int t = omp_get_thread_num(); t < T; t += n)
            run_thread(a, t, alpha, x, beta, y, &carry[t]);
    }
    merge(a, carry, alpha, beta, y);
    if (carry != local) spx__free(carry);
    return SPX_OK;
}

/* New values (spx_plan_update_values: host memory, the plan's type, in A's
 * CSR order) into the slots A's entries went to (spx__axt_refill). These
 * formats have no iso path: values of one number are stored like any. */
static spx_status axt_update_values(void *state, const void *values, int on_device)
{
    (void)on_device; /* a CPU plan: host memory */
    return spx__axt_refill(state, values);
}

/* ----------------------------------------------------------------- tuner */

/* Best of three timed calls after one warm-up, in seconds. */
static double time_plan(spx__axt *a, const void *x, void *y)
{
    double best = 1e300;
    axt_spmv(a, 1.0, x, 0.0, y);
    for (int i = 0; i < 3; i++) {
        double t0 = omp_get_wtime();
        axt_spmv(a, 1.0, x, 0.0, y);
        double dt = omp_get_wtime() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

/* The candidate sizes of the variant's free parameter (th or bs). */
static int candidates(const axt_params *p, const spx__axt *base, int *out)
{
    static const int uh_th[] = {2, 4, 8, 16}, ch_th[] = {16, 32, 64, 128},
                     ch1_bs[] = {128, 256, 512, 1024};
    const int *c = NULL;
    int n = 0;
    if (p->variant == SPX__AXT_UH && p->th < 0) c = uh_th;
    if (p->variant == SPX__AXT_CH && p->th < 0) c = ch_th;
    if (p->variant == SPX__AXT_CH1 && p->bs < 0) c = ch1_bs;
    for (int i = 0; c && i < 4; i++) {
        if (p->variant == SPX__AXT_CH && c[i] * base->thw > SPX__AXT_MAX_TILE) continue;
        if (p->variant == SPX__AXT_CH1 && c[i] % base->thw != 0) continue;
        out[n++] = c[i];
    }
    return n;
}

/* Try the candidate sizes, THW and THW/2, and both x modes, where not given;
 * keep the fastest. */
static spx_status tune(const spx_matrix *A, const axt_params *p, const spx__axt *base, int th,
                       spx__axt **best)
{
    spx_status st;
    int sizes[4], nsize = candidates(p, base, sizes);
    void *x = NULL, *y = NULL;
    double best_t = 1e300;
    spx__axt *cand = NULL;
    if (nsize == 0) sizes[nsize++] = p->variant == SPX__AXT_CH1 ? base->bs : th;
    SPX_TRY(spx__alloc(&x, (size_t)A->cols + 1, base->vsize, "axt tuning x"));
    SPX_TRY(spx__alloc(&y, (size_t)A->rows + 1, base->vsize, "axt tuning y"));
    for (int64_t j = 0; j < A->cols; j++) {
        if (base->type == SPX_F64)
            ((double *)x)[j] = 1.0 + (double)(j % 7) / 8.0;
        else
            ((float *)x)[j] = 1.0f + (float)(j % 7) / 8.0f;
    }
    /* half a vector's lanes pads less: it runs the next ISA's kernel */
    int thws[2] = {base->thw, base->thw / 2}, nthw = p->thw < 0 && base->thw >= 8 ? 2 : 1;
    for (int m = 0; m < 2; m++)
        for (int w = 0; w < nthw && (p->live < 0 || m == p->live); w++)
            for (int i = 0; i < nsize; i++) {
                int cth = p->variant == SPX__AXT_CH1 ? 1 : sizes[i];
                int cbs = p->variant == SPX__AXT_CH1 ? sizes[i] : base->bs;
                SPX_TRY(build_one(A, base, thws[w], cth, cbs, m, &cand));
                double dt = time_plan(cand, x, y);
                if (dt < best_t) {
                    best_t = dt;
                    axt_destroy(*best);
                    *best = cand;
                } else {
                    axt_destroy(cand);
                }
                cand = NULL;
            }
    st = SPX_OK;
cleanup:
    spx__free(x);
    spx__free(y);
    return st;
}

/* ---------------------------------------------------------------- analyze */

static spx_status axt_analyze(int variant, const spx_matrix *A, const spx_plan_opts *o,
                              void **state)
{
    spx_status st;
    axt_params p = {variant, -1, -1, -1, -1, -1};
    spx__axt base, *a = NULL;
    memset(&base, 0, sizeof base);
    if (A->col_bits == 64)
        return spx__error(SPX_ERR_UNSUPPORTED, "%s: 64-bit column indices (%lld columns)",
                          variant_names[variant], (long long)A->cols);
    SPX_TRY(spx__params_each(o->params, parse_one, &p));
    SPX_TRY(choose(&p, o, A->nnz, &base));
    int th = (int)(p.th > 0 ? p.th : variant == SPX__AXT_UH ? 4 : variant == SPX__AXT_CH ? 64 : 1);
    if (variant == SPX__AXT_CH && p.th < 0 && th * base.thw > SPX__AXT_MAX_TILE)
        th = SPX__AXT_MAX_TILE / base.thw;
    int live = p.live >= 0 ? p.live : 1;
    if (o->tune)
        SPX_TRY(tune(A, &p, &base, th, &a));
    else
        SPX_TRY(build_one(A, &base, base.thw, th, base.bs, live, &a));
    *state = a;
    return SPX_OK;
cleanup:
    axt_destroy(a);
    return st;
}

static size_t axt_bytes(const void *state)
{
    const spx__axt *a = state;
    size_t cells = (size_t)a->nslab * (size_t)a->thw;
    size_t n =
        sizeof *a + (size_t)a->nslab * a->sb + 2 * ((size_t)a->nthreads + 1) * sizeof(int64_t);
    if (a->col) n += cells * sizeof(int32_t);
    if (a->hdr) n += cells * sizeof(uint32_t);
    if (a->variant == SPX__AXT_UH1) n += (size_t)a->nslab * sizeof(int32_t);
    if (a->variant == SPX__AXT_UH) n += (size_t)a->nunits * (size_t)a->thw * sizeof(int32_t);
    if (a->brp) n += ((size_t)a->rows + 1) * sizeof(int64_t);
    if (a->ufirst) n += ((size_t)a->nthreads + 1) * sizeof(int64_t);
    return n;
}

static void axt_describe(const void *state, char *buf, size_t len)
{
    const spx__axt *a = state;
    char shape[48], isa[96];
    double stored = (double)a->nslab * a->thw;
    if (a->variant == SPX__AXC)
        snprintf(shape, sizeof shape, "hbrs=%d", a->thw);
    else if (a->variant == SPX__AXT_CH1)
        snprintf(shape, sizeof shape, "thw=%d bs=%d", a->thw, a->bs);
    else
        snprintf(shape, sizeof shape, "thw=%d th=%d", a->thw, a->th);
    if (a->isa == a->isa_asked)
        snprintf(isa, sizeof isa, "%s", spx__isa_name(a->isa));
    else
        snprintf(isa, sizeof isa, "%s (asked %s: %s)", spx__isa_name(a->isa),
                 spx__isa_name(a->isa_asked),
                 a->isa_lowered ? "not available" : "no kernel for this thw");
    const char *note = spx__isa_note();
    snprintf(buf, len, "%s %s x=%s isa=%s threads=%d beta=%.3f slabs=%lld%s%s",
             variant_names[a->variant], shape, a->live ? "live" : "refresh", isa, a->nthreads,
             stored > 0 ? (double)a->nnz / stored : 1.0, (long long)a->nslab, *note ? " " : "",
             note);
}

/* The bench times the paper's layout with its refresh step beside the live
 * default: both are correct for any x; refresh gathers x into ax[] per call. */
static const char *const axt_bench_variants[] = {"x=refresh", NULL};

#define SPX__AXT_FORMAT(ident, variant, str)                                                       \
    static spx_status analyze_##ident(const spx_matrix *A, const spx_plan_opts *o, void **s)       \
    {                                                                                              \
        return axt_analyze(variant, A, o, s);                                                      \
    }                                                                                              \
    const spx_format_ops spx__format_##ident = {                                                   \
        .name = str,                                                                               \
        .devices = SPX_DEV_CPU,                                                                    \
        .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F32),                             \
        .analyze = analyze_##ident,                                                                \
        .spmv = axt_spmv,                                                                          \
        .bytes = axt_bytes,                                                                        \
        .destroy = axt_destroy,                                                                    \
        .describe = axt_describe,                                                                  \
        .update_values = axt_update_values,                                                        \
        .borrows_matrix = 0,                                                                       \
        .bench_variants = axt_bench_variants,                                                      \
    };

SPX__AXT_FORMAT(axc, SPX__AXC, "axc")
SPX__AXT_FORMAT(axt_uh1, SPX__AXT_UH1, "axt-uh1")
SPX__AXT_FORMAT(axt_uh, SPX__AXT_UH, "axt-uh")
SPX__AXT_FORMAT(axt_ch1, SPX__AXT_CH1, "axt-ch1")
SPX__AXT_FORMAT(axt_ch, SPX__AXT_CH, "axt-ch")
