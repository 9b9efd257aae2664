/* spx_float_to_half and spx_half_to_float (src/core/half.c) against the
 * compiler's _Float16 conversions (round to nearest even, as CUDA's
 * __float2half_rn) over every 65,537th float bit pattern and the edges:
 * zeros, the overflow threshold 65520, the subnormal range, ties, infinities
 * and NaN; every half converts to float and back to itself. Without
 * _Float16 (not x86-64 gcc 12+ or clang), the fixed expectations alone.
 * Also spx_plan_x_type of CPU plans (their x is never half) and of no plan. */
#include <math.h>
#include <string.h>

#include "common.h"
#include "spx.h"

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint16_t to_half(float f)
{
    uint16_t h;
    spx_float_to_half(&f, &h, 1);
    return h;
}

static float to_float(uint16_t h)
{
    float f;
    spx_half_to_float(&h, &f, 1);
    return f;
}

/* Fixed values: (float, its half's bits). */
static void check_fixed(void)
{
    static const struct {
        float f;
        uint16_t h;
    } t[] = {
        {0.0f, 0x0000},
        {-0.0f, 0x8000},
        {1.0f, 0x3c00},
        {-2.0f, 0xc000},
        {65504.0f, 0x7bff},
        {65519.99f, 0x7bff},
        {65520.0f, 0x7c00},
        {1e9f, 0x7c00},
        {-1e9f, 0xfc00},
        {0x1p-14f, 0x0400},
        {0x1p-24f, 0x0001},
        {0x1p-25f, 0x0000},
        {0x1.000002p-25f, 0x0001},
        {0x1.8p-24f, 0x0002},        /* tie 1.5 -> 2 */
        {0x1.4p-23f, 0x0002},        /* 2.5 units ties to 2 */
        {1.0f + 0x1p-11f, 0x3c00},   /* tie to even: down */
        {1.0f + 0x1.8p-10f, 0x3c02}, /* 1.5 ulp ties up to 2 */
        {0x1.ffep-15f, 0x0400},      /* rounds up to the least normal */
        {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint16_t h = to_half(t[i].f);
        if (!CHECK(h == t[i].h)) printf("  %a -> 0x%04x, want 0x%04x\n", t[i].f, h, t[i].h);
    }
    uint16_t nan = to_half(NAN);
    CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0);
    CHECK(isnan(to_float(nan)));
}

/* Every half back and forth (NaNs stay NaN). */
static void check_round_trip(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {
        float f = to_float((uint16_t)h);
        int nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
        if (nan ? !isnan(f) : to_half(f) != h) bad++;
    }
    CHECK(bad == 0);
}

static void check_against_compiler(void)
{
#if defined(__FLT16_MAX__)
    int bad = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 65537) {
        float f = float_of((uint32_t)u);
        if (isnan(f)) continue;
        _Float16 c = (_Float16)f;
        uint16_t want;
        memcpy(&want, &c, sizeof want);
        if (to_half(f) != want && bad++ < 5)
            printf("  %a -> 0x%04x, _Float16 0x%04x\n", f, to_half(f), want);
        if ((float)c != to_float(want)) bad++;
    }
    CHECK(bad == 0);
#else
    printf("no _Float16: compiler comparison skipped\n");
#endif
}

static void check_cpu_x_types(void)
{
    static const int64_t rp[] = {0, 1, 2};
    static const int32_t ci[] = {0, 1};
    static const double v[] = {1.0, 2.0};
    static const spx_type want[] = {SPX_F64, SPX_F32, SPX_F32}; /* for F64, F32, F16 */
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, v, &A), SPX_OK)) return;
    for (int t = SPX_F64; t <= SPX_F16; t++) {
        spx_plan_opts o = spx_plan_opts_default();
        spx_plan *P = NULL;
        o.format = "csr";
        o.precision = (spx_type)t;
        if (spx_plan_create(A, SPX_OP_SPMV, &o, &P) == SPX_OK) CHECK(spx_plan_x_type(P) == want[t]);
        spx_plan_destroy(P);
    }
    CHECK(spx_plan_x_type(NULL) == SPX_F64);
    spx_matrix_destroy(A);
}

int main(void)
{
    check_cpu_x_types();
    check_fixed();
    check_round_trip();
    check_against_compiler();
    return spx_test_finish();
}
