/* IEEE binary16 (half) <-> binary32 (float) by bits (spx.h).
 *
 * Half: sign, 5 exponent bits (bias 15), 10 fraction bits; normal values
 * 2^-14 .. 65504, subnormals m * 2^-24 (m = 1 .. 1023). Float: bias 127, 23
 * fraction bits, so a normal half is a float whose exponent is rebiased by
 * 112 (0x38000000 in the float's bits) and whose fraction drops its low 13
 * bits, rounded to nearest even. */
#include <string.h>

#include "spx.h"

#define F32_INF 0x7f800000u
#define F32_HALF_OVERFLOW 0x477ff000u      /* 65520: halfway past 65504, rounds to infinity */
#define F32_HALF_MIN_NORMAL 0x38800000u    /* 2^-14 */
#define F32_HALF_MIN_ROUNDS_UP 0x33000001u /* just above 2^-25: rounds to 2^-24 */
#define REBIAS 0x38000000u                 /* (127 - 15) << 23 */

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* q = m / 2^shift rounded to nearest, ties to even (1 <= shift <= 31). */
static uint32_t shift_round_even(uint32_t m, int shift)
{
    uint32_t q = m >> shift, rest = m & ((1u << shift) - 1u), mid = 1u << (shift - 1);
    return q + (rest > mid || (rest == mid && (q & 1u)));
}

static uint16_t half_of(float f)
{
    const uint32_t u = bits_of(f), a = u & 0x7fffffffu;
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > F32_INF) /* NaN: quiet, keeping the fraction's top bits */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= F32_HALF_OVERFLOW) return (uint16_t)(sign | 0x7c00u);
    if (a >= F32_HALF_MIN_NORMAL) /* a carry out of the fraction bumps the exponent */
        return (uint16_t)(sign | shift_round_even(a - REBIAS, 13));
    if (a < F32_HALF_MIN_ROUNDS_UP) return sign; /* 2^-25 itself ties to 0 */
    /* subnormal half: a = 2^(e - 150) * m with m the 24-bit significand;
     * in units of 2^-24 that is m / 2^(126 - e), 14 <= 126 - e <= 24; a
     * result of 1024 is the smallest normal half, correctly encoded */
    const int e = (int)(a >> 23);
    return (uint16_t)(sign | shift_round_even((a & 0x7fffffu) | 0x800000u, 126 - e));
}

static float float_of_half(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
    if (exp == 0x1f) return float_of(sign | F32_INF | (frac << 13)); /* inf, NaN */
    if (exp != 0) return float_of(sign | ((((exp << 10) | frac) << 13) + REBIAS));
    const float sub = (float)frac * 0x1p-24f; /* subnormal or zero, exact */
    return sign ? -sub : sub;
}

void spx_float_to_half(const float *src, uint16_t *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = half_of(src[i]);
}

void spx_half_to_float(const uint16_t *src, float *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = float_of_half(src[i]);
}
