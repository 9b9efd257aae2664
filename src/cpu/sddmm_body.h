/* SDDMM entry kernels (sddmm.h), included once per (value type, column type)
 * by sddmm_portable.c, sddmm_avx2.c and sddmm_avx512.c, which the build
 * compiles for their instruction set: SDDMM_FN (the kernel's name), SDDMM_VAL
 * (double or float), SDDMM_IDX (int32_t or int64_t), all undefined at the end.
 *
 * The sums are GCC vectors of 64 bytes (one zmm, two ymm or four xmm each,
 * as the instruction set has), so every build sums in the order sddmm.h
 * states; the compiler contracts x * y + s into an FMA where it has one. */
#include <stdint.h>
#include <string.h>

#define SDDMM_CAT2(a, b) a##b
#define SDDMM_CAT(a, b) SDDMM_CAT2(a, b)
#define SDDMM_VEC SDDMM_CAT(SDDMM_FN, _vec)
#define SDDMM_HALF SDDMM_CAT(SDDMM_FN, _half)
#define SDDMM_QUARTER SDDMM_CAT(SDDMM_FN, _quarter)
#define SDDMM_DOT SDDMM_CAT(SDDMM_FN, _dot)
#define SDDMM_OFF SDDMM_CAT(SDDMM_FN, _off)
#define SDDMM_LANES ((int64_t)(64 / sizeof(SDDMM_VAL)))

typedef SDDMM_VAL SDDMM_VEC __attribute__((vector_size(64)));
typedef SDDMM_VAL SDDMM_HALF __attribute__((vector_size(32)));
typedef SDDMM_VAL SDDMM_QUARTER __attribute__((vector_size(16)));

/* s += (the vector at x) * (the vector at y), unaligned (a macro: a function
 * returning a 64-byte vector would change the ABI where AVX-512 is off). */
#define SDDMM_ADD(s, x, y) SDDMM_ADD_AS(SDDMM_VEC, s, x, y)
#define SDDMM_ADD_AS(TYPE, s, x, y)                                                                \
    do {                                                                                           \
        TYPE x_, y_;                                                                               \
        memcpy(&x_, (x), sizeof x_);                                                               \
        memcpy(&y_, (y), sizeof y_);                                                               \
        (s) += x_ * y_;                                                                            \
    } while (0)

/* x[0, k) . y[0, k) in the order of sddmm.h. */
static inline __attribute__((always_inline)) SDDMM_VAL
SDDMM_DOT(const SDDMM_VAL *restrict x, const SDDMM_VAL *restrict y, int64_t k)
{
    const int64_t L = SDDMM_LANES;
    SDDMM_VEC s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    int64_t c = 0;
    for (; c + 4 * L <= k; c += 4 * L) {
        SDDMM_ADD(s0, x + c, y + c);
        SDDMM_ADD(s1, x + c + L, y + c + L);
        SDDMM_ADD(s2, x + c + 2 * L, y + c + 2 * L);
        SDDMM_ADD(s3, x + c + 3 * L, y + c + 3 * L);
    }
    for (; c + L <= k; c += L)
        SDDMM_ADD(s0, x + c, y + c);
    SDDMM_HALF h = {0};
    SDDMM_QUARTER q = {0};
    if (c + L / 2 <= k) {
        SDDMM_ADD_AS(SDDMM_HALF, h, x + c, y + c);
        c += L / 2;
    }
    if (c + L / 4 <= k) {
        SDDMM_ADD_AS(SDDMM_QUARTER, q, x + c, y + c);
        c += L / 4;
    }
    SDDMM_VAL t = 0;
    for (; c < k; c++)
        t += x[c] * y[c];
    /* s0's halves into h, h's halves into q, then q's lanes pairwise (the
     * vectors that took no columns are skipped: for short dots the folds cost
     * more than the products) */
    if (k >= L) {
        s0 = (s0 + s1) + (s2 + s3);
        SDDMM_HALF lo, hi;
        memcpy(&lo, &s0, sizeof lo);
        memcpy(&hi, (const char *)&s0 + sizeof lo, sizeof hi);
        h = (lo + hi) + h;
    }
    if (k >= L / 2) {
        SDDMM_QUARTER qlo, qhi;
        memcpy(&qlo, &h, sizeof qlo);
        memcpy(&qhi, (const char *)&h + sizeof qlo, sizeof qhi);
        q = (qlo + qhi) + q;
    }
    SDDMM_VAL lane[16 / sizeof(SDDMM_VAL)];
    memcpy(lane, &q, sizeof lane);
    for (int64_t w = L / 8; w >= 1; w /= 2) /* pairwise: lane l += lane l + w */
        for (int64_t l = 0; l < w; l++)
            lane[l] += lane[l + w];
    return lane[0] + t;
}

static int64_t SDDMM_OFF(const spx__sddmm_args *a, int64_t i)
{
    return a->row_bits == 32 ? (int64_t)((const int32_t *)a->rowptr)[i]
                             : ((const int64_t *)a->rowptr)[i];
}

static void SDDMM_FN(const spx__sddmm_args *a, int64_t i0, int64_t e0, int64_t e1)
{
    const SDDMM_IDX *restrict col = a->col;
    const SDDMM_VAL *restrict X = a->X;
    const SDDMM_VAL *restrict Y = a->Y;
    SDDMM_VAL *restrict Z = a->Z;
    const SDDMM_VAL alpha = (SDDMM_VAL)a->alpha, beta = (SDDMM_VAL)a->beta;
    int64_t i = i0, end = SDDMM_OFF(a, i0 + 1);
    const int64_t ybytes = a->k * (int64_t)sizeof(SDDMM_VAL);
    const int64_t yb = ybytes < SPX__SDDMM_PF_BYTES ? ybytes : SPX__SDDMM_PF_BYTES;
    for (int64_t e = e0; e < e1; e++) {
        while (e >= end)
            end = SDDMM_OFF(a, ++i + 1); /* skips empty rows */
        if (e + SPX__SDDMM_PF < e1) {    /* Y's row SPX__SDDMM_PF entries ahead: the lines of its
                                            first yb bytes */
            const char *ahead = (const char *)(Y + (int64_t)col[e + SPX__SDDMM_PF] * a->ldy);
            for (const char *p = (const char *)((uintptr_t)ahead & ~(uintptr_t)63); p < ahead + yb;
                 p += 64)
                __builtin_prefetch(p, 0, 3);
        }
        const SDDMM_VAL d = SDDMM_DOT(X + i * a->ldx, Y + (int64_t)col[e] * a->ldy, a->k);
        Z[e] = beta == 0 ? alpha * d : alpha * d + beta * Z[e];
    }
}

#undef SDDMM_ADD
#undef SDDMM_ADD_AS
#undef SDDMM_HALF
#undef SDDMM_QUARTER
#undef SDDMM_LANES
#undef SDDMM_OFF
#undef SDDMM_DOT
#undef SDDMM_VEC
#undef SDDMM_CAT
#undef SDDMM_CAT2
#undef SDDMM_FN
#undef SDDMM_VAL
#undef SDDMM_IDX
