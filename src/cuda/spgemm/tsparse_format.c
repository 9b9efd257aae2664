/* The `tsparse` format on SPX_DEV_CUDA: SpGEMM C = A*B on 8x8 bitmap tiles
 * with the tensor cores (the method and its steps: tsparse.h). The plan
 * holds A in tiles on the device; each product builds B's tiles, the task
 * list, C's pattern by counting and its values by mma, in row panels of A
 * when the device's free memory asks for it.
 *
 * Precisions: SPX_F16 (A and B rounded to half, products summed in fp32:
 * the paper's mixed mode) and SPX_F64 (DMMA). C comes back in fp64 with
 * sorted columns, and without the entries whose value is exactly 0: values
 * are compacted after cancellation (gustavson keeps such entries as explicit
 * zeros; the pattern here is its pattern minus those).
 * fp16 scaling: A's values are multiplied by 2^ea and B's by 2^eb before
 * they are rounded to half, the powers that bring each matrix's largest
 * |value| just under half's largest (65504), and C's values by 2^-(ea+eb)
 * after the fp32 sums; powers of two are exact, so this changes nothing but
 * which values half can hold (xenon1, values 5e23-3e28, runs in fp16).
 * Declines (SPX_ERR_UNSUPPORTED, naming the value): a value that is not
 * finite (a tile's empty slots are 0 in the fragments, and 0 times an
 * infinity would be NaN), and in fp16 a matrix whose nonzero values span
 * more than half's normal range (2^-14 to 65504, about 2^30): its smallest
 * would keep fewer than half's 11 bits (under 2^-24 it becomes 0), and
 * entries of C made only of such values would come out wrong or vanish
 * (TSOPF_RS_b39_c30, values 2.5e-14 to 646, on the H200 before this
 * decline: 349869 entries of C lost, error 1.0).
 * Params: panel_rows=N: a panel holds at most N rows of A (rounded up to a
 * multiple of 8); by default panels are cut by the free memory only.
 * Device operands (spx_matrix_wrap_device), f64 and f16: a device A or B is
 * read in place (its values' range checked by a scan on the device), and a
 * device B gives a device C, made in one panel (SPX_ERR_OOM, saying so,
 * where that does not fit). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/spgemm/tsparse.h"
#include "plan/format.h"

static spx_status parse_param(void *ctx, const char *key, const char *value)
{
    long *panel_rows = ctx;
    if (strcmp(key, "panel_rows") == 0) return spx__param_int(key, value, 1, INT32_MAX, panel_rows);
    return spx__error(SPX_ERR_BAD_PARAM, "tsparse has no parameter '%s' (it knows panel_rows)",
                      key);
}

#define HALF_MAX 65504.0
#define HALF_MIN_NORMAL 0x1p-14 /* 6.1e-05 */

/* What the checks need of M's values: the first entry that is not finite
 * (-1: none), the largest finite |v| and the smallest nonzero |v| (+infinity:
 * none), the value at the first bad entry (host matrices; NaN for a device
 * matrix, whose range is found on the device). */
typedef struct value_facts {
    int64_t bad;
    double big, small, bad_value;
} value_facts;

static spx_status facts_of(const spx_matrix *M, value_facts *f)
{
    f->bad = -1;
    f->big = 0.0;
    f->small = INFINITY;
    f->bad_value = NAN;
    if (M->dev.on) return spx__cuda_tsparse_range(M, &f->big, &f->small, &f->bad);
    for (int64_t k = 0; k < M->nnz; k++) {
        const double v = spx__val(M, k), a = fabs(v);
        if (!isfinite(v)) {
            f->bad = k, f->bad_value = v;
            return SPX_OK;
        }
        if (a > f->big) f->big = a;
        if (a != 0.0 && a < f->small) f->small = a;
    }
    return SPX_OK;
}

/* fp16: the power of two that takes the largest |value| just under
 * HALF_MAX (0 for a matrix of zeros). */
static int half_exponent(double big)
{
    int eb;
    if (big == 0.0) return 0;
    frexp(HALF_MAX / big, &eb); /* HALF_MAX / big in [2^(eb-1), 2^eb) */
    return eb - 1;
}

/* Whether tsparse can multiply M in precision t (see the declines above),
 * and in fp16 M's power of two (*e; 0 otherwise). */
static spx_status check_values(const spx_matrix *M, spx_type t, const char *which, int *e)
{
    value_facts f;
    spx_status st = facts_of(M, &f);
    *e = 0;
    if (st != SPX_OK) return st;
    if (f.bad >= 0)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "tsparse: value %g (entry %lld of %s) is not finite; a tile's empty "
                          "slots would turn it into NaN",
                          f.bad_value, (long long)f.bad, which);
    if (t != SPX_F16) return SPX_OK;
    *e = half_exponent(f.big);
    if (f.small == INFINITY || ldexp(f.small, *e) >= HALF_MIN_NORMAL) return SPX_OK;
    return spx__error(SPX_ERR_UNSUPPORTED,
                      "tsparse f16: the values of %s span more than half's normal range "
                      "(2^-14 to 65504): scaled by 2^%d for its largest, value %g would keep "
                      "fewer than 11 bits; use f64",
                      which, *e, f.small);
}

static void tsparse_destroy(void *state)
{
    spx__cuda_tsparse_plan *p = state;
    if (!p) return;
    spx__cuda_tsparse_tiles_free(&p->A);
    spx__free(p->ptr_host);
    spx__free(p);
}

static spx_status tsparse_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    spx__cuda_tsparse_plan *p = NULL;
    long panel_rows = 0;
    int a_exp = 0;
    spx_status st;
    *state = NULL;
    SPX_TRY(spx__params_each(o->params, parse_param, &panel_rows));
    SPX_TRY(check_values(A, o->precision, "A", &a_exp));
    SPX_TRY(spx__calloc((void **)&p, 1, sizeof *p, "tsparse plan"));
    p->precision = o->precision;
    p->a_exp = a_exp;
    p->panel_rows = panel_rows;
    p->stream = o->stream;
    SPX_TRY(spx__cuda_tsparse_tiles(A, o->precision, a_exp, o->stream, &p->A));
    SPX_TRY(spx__alloc((void **)&p->ptr_host, (size_t)p->A.trows + 1, sizeof *p->ptr_host,
                       "tsparse tile row offsets"));
    SPX_TRY(spx__cuda_copy(p->ptr_host, p->A.ptr, ((size_t)p->A.trows + 1) * sizeof *p->ptr_host,
                           0));
    *state = p;
    return SPX_OK;
cleanup:
    tsparse_destroy(p);
    return st;
}

static spx_status tsparse_multiply(void *state, const spx_matrix *B, spx_matrix **C)
{
    spx__cuda_tsparse_plan *p = state;
    int panels = 0, b_exp = 0;
    spx_status st = check_values(B, p->precision, "B", &b_exp);
    if (st != SPX_OK) return st;
    st = spx__cuda_tsparse_multiply(p, B, b_exp, C, &panels);
    if (st == SPX_OK) __atomic_store_n(&p->last_panels, panels, __ATOMIC_RELAXED);
    return st;
}

static size_t tsparse_bytes(const void *state)
{
    const spx__cuda_tsparse_plan *p = state;
    const size_t val = p->precision == SPX_F16 ? 2 : 8, tile = 4 + 4 + 8 + 8;
    return (size_t)p->A.ntiles * tile + (size_t)p->A.nnz * val +
           2 * ((size_t)p->A.trows + 1) * sizeof(int64_t);
}

static void tsparse_describe(const void *state, char *buf, size_t len)
{
    const spx__cuda_tsparse_plan *p = state;
    const int panels = __atomic_load_n(&p->last_panels, __ATOMIC_RELAXED);
    char cap[64] = "";
    if (p->panel_rows > 0) snprintf(cap, sizeof cap, ", at most %lld rows", (long long)p->panel_rows);
    snprintf(buf, len, "tiles=%lld density=%.2f %s; last product: %d row panel%s%s",
             (long long)p->A.ntiles,
             p->A.ntiles ? (double)p->A.nnz / (double)p->A.ntiles : 0.0,
             p->precision == SPX_F16 ? "fp16 mma m16n8k16 (fp32 sums)" : "fp64 mma m8n8k4",
             panels, panels == 1 ? "" : "s", cap);
}

/* AUTO. The paper's criteria (its Table 2: nnz(A) > 300000 and a mean row
 * over 42) did not hold on the H100 against gpu-rows: both matrices of the
 * benchmark set meeting them (banded n=100000 bw=25, sinc18) ran faster
 * with gpu-rows (whole A*A 29.2 against 33.4 ms, 52.0 against 53.9), and
 * the three where tsparse f64 won have dense 8x8 tiles: TSOPF_RS_b39_c30
 * (19.2 entries a tile; 6.2 against 8.9 ms), bcsstk28 (29.7; 2.57 against
 * 2.77), cavity19 (16.3; 1.50 against 1.56), while every matrix of 4-10
 * entries a tile went to gpu-rows by 1.1-1.7x (bench/results/
 * h100-2026-11-26.md, run M). So tsparse answers above gpu-rows (1) where A
 * has at least MIN_TILE_DENSITY entries a non-empty tile and at most
 * MAX_NNZ entries (banded, 45 a tile but 5.1M entries, lost); elsewhere
 * 0.5, chosen only where it is the one format of the precision (fp16);
 * never for values it would decline. The rule is fitted to these 13
 * products. The density is sampled: DENSITY_SAMPLE blocks of 8 rows evenly
 * spaced, their tiles counted by merging the rows' sorted columns
 * (spx__block_tiles8; for a device A the same merge on the device), so that
 * AUTO's cost stays small beside a product of 2 ms (a first version sorting
 * 512 blocks' tiles with qsort added 4-6 ms to bcsstk28 and cavity19).
 * Device to device (A, B and C on the GPU: no B upload, no C download,
 * where tsparse's share of the time is larger) the same 13 products gave
 * gpu-rows the lead at 16-30 entries a tile (TSOPF 0.80 against 1.26 ms,
 * bcsstk28 0.51 against 0.86, cavity19 0.43 against 0.64) and tsparse the
 * lead only on the band of 45 a tile (2.76 against 7.61 ms; run BA,
 * bench/results/h100-2026-11-26e.md): for a device A tsparse answers above
 * gpu-rows from MIN_DEVICE_TILE_DENSITY entries a tile, whatever its size. */
#define MIN_TILE_DENSITY 16.0
#define MIN_DEVICE_TILE_DENSITY 40.0
#define MAX_NNZ 2000000
#define DENSITY_SAMPLE 64
#define EXPECTED_GAIN 1.5
#define ONLY_CHOICE 0.5

/* Mean entries a non-empty 8x8 tile of A over DENSITY_SAMPLE row blocks
 * evenly spaced (all of them for a small matrix). */
static double sampled_tile_density(const spx_matrix *A)
{
    const int64_t blocks = (A->rows + 7) / 8;
    const int64_t step = blocks > DENSITY_SAMPLE ? blocks / DENSITY_SAMPLE : 1;
    int64_t entries = 0, tiles = 0;
    for (int64_t b = 0; b < blocks; b += step) {
        const int64_t r0 = 8 * b, r1 = r0 + 8 < A->rows ? r0 + 8 : A->rows;
        entries += spx__row_off(A, r1) - spx__row_off(A, r0);
        tiles += spx__block_tiles8(A, r0, r1);
    }
    return tiles ? (double)entries / (double)tiles : 0.0;
}

/* A device A's sampled density (tsparse_run.cu), 0 when the scan fails. */
static double device_density(const spx_matrix *A)
{
    double d = 0.0;
    if (spx__cuda_tsparse_sampled_density(A, DENSITY_SAMPLE, &d) != SPX_OK) {
        spx__clear_error();
        return 0.0;
    }
    return d;
}

static double tsparse_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    int e;
    if (A->col_bits != 32 || check_values(A, f->o->precision, "A", &e) != SPX_OK) {
        spx__clear_error();
        return 0.0;
    }
    if (A->dev.on)
        return device_density(A) >= MIN_DEVICE_TILE_DENSITY ? EXPECTED_GAIN : ONLY_CHOICE;
    return f->nnz <= MAX_NNZ && sampled_tile_density(A) >= MIN_TILE_DENSITY ? EXPECTED_GAIN
                                                                              : ONLY_CHOICE;
}

const spx_format_ops spx__format_tsparse = {
    .name = "tsparse",
    .devices = SPX_DEV_CUDA,
    .precisions = SPX__TYPE_BIT(SPX_F64) | SPX__TYPE_BIT(SPX_F16),
    .spgemm_analyze = tsparse_analyze,
    .spgemm = tsparse_multiply,
    .bytes = tsparse_bytes,
    .destroy = tsparse_destroy,
    .describe = tsparse_describe,
    .borrows_matrix = 0,
    .suits = tsparse_suits,
    .device_matrix = 1, /* device A and B; a device B gives a device C */
};
