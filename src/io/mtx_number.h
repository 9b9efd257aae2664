/* Matrix Market number fields, parsed in place.
 *
 * Text layout: a field is a maximal run of non-blank characters; blanks are
 * space, tab, CR, VT and FF; every line ends in '\n' (the loaders put a '\n'
 * sentinel after the last byte, and SPX__MTX_PAD readable bytes after that).
 * A parser reads one field at *pp, and on
 * success leaves *pp on the blank or '\n' that ends it.
 *
 * Integers: [+-]digits. Decimals: [+-](digits[.digits] | .digits)[(e|E)[+-]digits],
 * and the words nan, inf, infinity (any case, optional sign), which is what
 * "%.17g" writes for those values, so files SpX writes read back. A decimal
 * whose value overflows double (1e400) is a bad number; one that underflows
 * reads as the nearest subnormal or zero, as strtod gives it.
 *
 * Exact fast path: with m the significant digits as an integer (at most 19)
 * and k the decimal exponent, m * 10^k is exact in double when m <= 2^53 and
 * |k| <= 22 (both operands exact, one rounding). For |k| <= 27 the x87 long
 * double (64-bit significand) holds m and 10^k exactly; its one rounding
 * followed by the rounding to double is correct unless the long double lands
 * exactly on a midpoint between two doubles (low 11 bits 0x400), which is
 * checked. Anything else goes to strtod on a copy of the field.
 */
#ifndef SPX_IO_MTX_NUMBER_H
#define SPX_IO_MTX_NUMBER_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
#define SPX__MTX_X87 1
#else
#define SPX__MTX_X87 0
#endif

/* Readable bytes a loader leaves after the '\n' sentinel (eight-digit reads). */
#define SPX__MTX_PAD 8

/* Outcome of a field parse. */
enum { SPX__NUM_OK = 0, SPX__NUM_BAD = 1, SPX__NUM_RANGE = 2 };

static inline int spx__mtx_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline int spx__mtx_field_end(char c)
{
    return c == '\n' || spx__mtx_blank(c);
}

static inline const char *spx__mtx_skip_blank(const char *p)
{
    while (spx__mtx_blank(*p))
        p++;
    return p;
}

static inline unsigned spx__mtx_digit(char c)
{
    return (unsigned)(c - '0');
}

/* Eight digits at p as a number, or -1 if any of them is not a digit. The
 * buffer must have 8 readable bytes at p (the loaders pad it). SWAR: all
 * eight bytes are checked and combined in three multiply steps. */
static inline int64_t spx__mtx_eight(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    if (((x & 0xF0F0F0F0F0F0F0F0ull) |
         (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) != 0x3333333333333333ull)
        return -1;
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8);
    x = ((x & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
         ((x >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
        32;
    return (int64_t)x;
#else
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (spx__mtx_digit(p[i]) > 9) return -1;
        v = v * 10 + spx__mtx_digit(p[i]);
    }
    return v;
#endif
}

/* Digits at *pp accumulated into *m (wrapping past 19 digits, which the
 * caller sees in the count); returns how many. */
static inline int64_t spx__mtx_digits(const char **pp, uint64_t *m)
{
    const char *p = *pp, *s = p;
    uint64_t v = *m;
    int64_t eight;
    while ((eight = spx__mtx_eight(p)) >= 0) {
        v = v * 100000000u + (uint64_t)eight;
        p += 8;
    }
    for (; spx__mtx_digit(*p) <= 9; p++)
        v = v * 10 + spx__mtx_digit(*p);
    *m = v;
    *pp = p;
    return p - s;
}

/* Integer field; SPX__NUM_RANGE when it does not fit int64. Up to 18 digits
 * cannot overflow; longer ones are checked again one digit at a time. */
static inline int spx__mtx_int(const char **pp, int64_t *out)
{
    const char *p = *pp, *digits;
    int neg = 0;
    uint64_t v = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    digits = p;
    if (spx__mtx_digits(&p, &v) == 0 || !spx__mtx_field_end(*p)) return SPX__NUM_BAD;
    *pp = p;
    if (p - digits > 18) {
        v = 0;
        for (const char *q = digits; q < p; q++) {
            unsigned d = spx__mtx_digit(*q);
            if (v > (UINT64_MAX - d) / 10) return SPX__NUM_RANGE;
            v = v * 10 + d;
        }
        if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return SPX__NUM_RANGE;
    }
    *out = neg ? (v == 0 ? 0 : -(int64_t)(v - 1) - 1) : (int64_t)v;
    return SPX__NUM_OK;
}

/* strtod on a copy of [s, e) (syntax already checked); in mtx_number.c. */
int spx__mtx_real_slow(const char *s, const char *e, double *out);

/* nan, inf, infinity at p (after the sign), any case; length matched or 0. */
static inline size_t spx__mtx_special(const char *p, double *out)
{
    static const char *const words[3] = {"infinity", "inf", "nan"};
    for (int w = 0; w < 3; w++) {
        size_t n = strlen(words[w]), i = 0;
        while (i < n && (p[i] | 0x20) == words[w][i])
            i++;
        if (i == n && spx__mtx_field_end(p[n])) {
            *out = w == 2 ? (double)NAN : (double)INFINITY;
            return n;
        }
    }
    return 0;
}

/* m * 10^k, exactly rounded, or 0 when the fast paths do not apply. */
static inline int spx__mtx_scale_exact(uint64_t m, int64_t k, double *out)
{
    static const double p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (m <= (1ull << 53) && k >= -22 && k <= 22) {
        *out = k < 0 ? (double)m / p10[-k] : (double)m * p10[k];
        return 1;
    }
#if SPX__MTX_X87
    static const long double lp10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                         1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                         1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                         1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (k >= -27 && k <= 27) {
        long double x = k < 0 ? (long double)m / lp10[-k] : (long double)m * lp10[k];
        uint64_t sig;
        memcpy(&sig, &x, sizeof sig);
        if ((sig & 0x7ff) == 0x400) return 0;
        *out = (double)x;
        return 1;
    }
#endif
    return 0;
}

/* Decimal field (see the file comment). */
static inline int spx__mtx_real(const char **pp, double *out)
{
    const char *s = *pp, *p = s;
    int neg = 0;
    uint64_t m = 0;
    int64_t k = 0, sig, zeros = 0, frac;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    for (; *p == '0'; p++)
        zeros++;
    sig = spx__mtx_digits(&p, &m);
    if (*p == '.') {
        p++;
        if (sig == 0)
            for (; *p == '0'; p++, k--)
                zeros++;
        frac = spx__mtx_digits(&p, &m);
        sig += frac;
        k -= frac;
    }
    if (sig + zeros == 0) {
        size_t n = spx__mtx_special(p, out);
        if (n == 0 || p[-1] == '.') return SPX__NUM_BAD;
        if (neg) *out = -*out;
        *pp = p + n;
        return SPX__NUM_OK;
    }
    if (*p == 'e' || *p == 'E') {
        int eneg = 0;
        int64_t e = 0;
        p++;
        if (*p == '+' || *p == '-') eneg = *p++ == '-';
        if (spx__mtx_digit(*p) > 9) return SPX__NUM_BAD;
        for (; spx__mtx_digit(*p) <= 9; p++)
            if (e < 100000) e = e * 10 + spx__mtx_digit(*p);
        k += eneg ? -e : e;
    }
    if (!spx__mtx_field_end(*p)) return SPX__NUM_BAD;
    *pp = p;
    if (sig == 0) {
        *out = neg ? -0.0 : 0.0;
        return SPX__NUM_OK;
    }
    if (sig <= 19 && spx__mtx_scale_exact(m, k, out)) {
        if (neg) *out = -*out;
        return SPX__NUM_OK;
    }
    return spx__mtx_real_slow(s, p, out);
}

#endif
