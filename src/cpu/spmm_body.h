/* SpMM row kernels (spmm.h), included once per (value type, column type) by
 * spmm_portable.c, spmm_avx2.c and spmm_avx512.c, which the build compiles
 * for their instruction set: SPMM_FN (name prefix), SPMM_VAL (double or
 * float), SPMM_IDX (int32_t or int64_t), SPMM_TILE (columns a tile), all
 * undefined at the end.
 *
 * A tile's sums are up to four vectors of 64 bytes (GCC's vector types: the
 * compiler maps them onto the instruction set's registers, one zmm, two ymm
 * or four xmm each), local variables so that they stay in registers across
 * the row's nonzeros; the columns past the last whole vector take one vector
 * of 32 bytes, one of 16, then one by one (fp32 at k = 8 summed column by
 * column ran at 0.54x Eigen on a 16-core Xeon, lap3d27:48). Either way a column's sum takes the
 * row's nonzeros in order, with the same operations (the compiler contracts v * x + s into an FMA
 * in both where the instruction set has one). */
#include <string.h>

#define SPMM_CAT2(a, b) a##b
#define SPMM_CAT(a, b) SPMM_CAT2(a, b)
#define SPMM_VEC SPMM_CAT(SPMM_FN, _vec)
#define SPMM_VECTORS SPMM_CAT(SPMM_FN, _vectors)
#define SPMM_SCALARS SPMM_CAT(SPMM_FN, _scalars)
#define SPMM_HALF SPMM_CAT(SPMM_FN, _half)
#define SPMM_QUARTER SPMM_CAT(SPMM_FN, _quarter)
#define SPMM_HALF_VEC SPMM_CAT(SPMM_FN, _half_vec)
#define SPMM_QUARTER_VEC SPMM_CAT(SPMM_FN, _quarter_vec)
#define SPMM_TILE_SUM SPMM_CAT(SPMM_FN, _tile)
#define SPMM_OFF SPMM_CAT(SPMM_FN, _off)
#define SPMM_ROWS SPMM_CAT(SPMM_FN, _rows)
#define SPMM_NARROW SPMM_CAT(SPMM_FN, _narrow)
#define SPMM_SLICE SPMM_CAT(SPMM_FN, _slice)
#define SPMM_LANES ((int64_t)(64 / sizeof(SPMM_VAL)))

typedef SPMM_VAL SPMM_VEC __attribute__((vector_size(64)));

/* s += v * (the vector at p), p unaligned (a macro: a function returning a
 * 64-byte vector would change the ABI where AVX-512 is off). */
#define SPMM_ADD(s, v, p)                                                                          \
    do {                                                                                           \
        SPMM_VEC x_;                                                                               \
        memcpy(&x_, (p), sizeof x_);                                                               \
        (s) += (v)*x_;                                                                             \
    } while (0)

/* sum[0, nv * LANES) = sum over e in [b, e1) of a_e * X(col_e, j0 + j), nv
 * vectors (1..4, a constant where this is inlined). */
static inline __attribute__((always_inline)) void SPMM_VECTORS(const spx__spmm_args *a, int64_t b,
                                                               int64_t e1, int64_t j0, const int nv,
                                                               SPMM_VAL *restrict sum)
{
    const SPMM_IDX *restrict col = a->col;
    const SPMM_VAL *restrict val = a->val;
    const SPMM_VAL *restrict X = (const SPMM_VAL *)a->X + j0;
    SPMM_VEC s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
    for (int64_t e = b; e < e1; e++) {
        const SPMM_VAL v = val ? val[e] : (SPMM_VAL)1;
        const SPMM_VAL *restrict xr = X + (int64_t)col[e] * a->ldx;
        if (SPX__SPMM_PF > 0 && e + SPX__SPMM_PF < a->nnz) { /* X's row SPX__SPMM_PF ahead */
            const SPMM_VAL *ahead = X + (int64_t)col[e + SPX__SPMM_PF] * a->ldx;
            for (int q = 0; q < nv; q++)
                __builtin_prefetch(ahead + q * SPMM_LANES, 0, 3);
        }
        SPMM_ADD(s0, v, xr);
        if (nv > 1) SPMM_ADD(s1, v, xr + SPMM_LANES);
        if (nv > 2) SPMM_ADD(s2, v, xr + 2 * SPMM_LANES);
        if (nv > 3) SPMM_ADD(s3, v, xr + 3 * SPMM_LANES);
    }
    memcpy(sum, &s0, sizeof s0);
    if (nv > 1) memcpy(sum + SPMM_LANES, &s1, sizeof s1);
    if (nv > 2) memcpy(sum + 2 * SPMM_LANES, &s2, sizeof s2);
    if (nv > 3) memcpy(sum + 3 * SPMM_LANES, &s3, sizeof s3);
}

/* sum[0, w) for the w entries of one vector of TYPE (32 or 16 bytes) from
 * column j0: the columns left past the whole 64-byte vectors. */
#define SPMM_ONE_VECTOR(NAME, TYPE)                                                                \
    static void NAME(const spx__spmm_args *a, int64_t b, int64_t e1, int64_t j0,                   \
                     SPMM_VAL *restrict sum)                                                       \
    {                                                                                              \
        const SPMM_IDX *restrict col = a->col;                                                     \
        const SPMM_VAL *restrict val = a->val;                                                     \
        const SPMM_VAL *restrict X = (const SPMM_VAL *)a->X + j0;                                  \
        TYPE s = {0};                                                                              \
        for (int64_t e = b; e < e1; e++) {                                                         \
            const SPMM_VAL v = val ? val[e] : (SPMM_VAL)1;                                         \
            TYPE x;                                                                                \
            memcpy(&x, X + (int64_t)col[e] * a->ldx, sizeof x);                                    \
            s += v * x;                                                                            \
        }                                                                                          \
        memcpy(sum, &s, sizeof s);                                                                 \
    }
typedef SPMM_VAL SPMM_HALF_VEC __attribute__((vector_size(32)));
typedef SPMM_VAL SPMM_QUARTER_VEC __attribute__((vector_size(16)));
SPMM_ONE_VECTOR(SPMM_HALF, SPMM_HALF_VEC)
SPMM_ONE_VECTOR(SPMM_QUARTER, SPMM_QUARTER_VEC)

/* sum[j] for j0 + j, j < n (n < LANES / 4), column by column. */
static void SPMM_SCALARS(const spx__spmm_args *a, int64_t b, int64_t e1, int64_t j0, int64_t n,
                         SPMM_VAL *restrict sum)
{
    const SPMM_IDX *restrict col = a->col;
    const SPMM_VAL *restrict val = a->val;
    const SPMM_VAL *restrict X = (const SPMM_VAL *)a->X + j0;
    for (int64_t j = 0; j < n; j++) {
        SPMM_VAL s = 0;
        for (int64_t e = b; e < e1; e++)
            s += (val ? val[e] : (SPMM_VAL)1) * X[(int64_t)col[e] * a->ldx + j];
        sum[j] = s;
    }
}

/* sum[j] = sum over e in [b, e1) of a_e * X(col_e, j0 + j), j < n <= SPMM_TILE:
 * whole 64-byte vectors, then one of 32 bytes, one of 16, then columns one by
 * one (the order of each column's sum is the same in all of them). */
static void SPMM_TILE_SUM(const spx__spmm_args *a, int64_t b, int64_t e1, int64_t j0, int64_t n,
                          SPMM_VAL *restrict sum)
{
    const int64_t nv = n / SPMM_LANES;
    int64_t done = nv * SPMM_LANES;
    switch (nv) {
    case 4: SPMM_VECTORS(a, b, e1, j0, 4, sum); break;
    case 3: SPMM_VECTORS(a, b, e1, j0, 3, sum); break;
    case 2: SPMM_VECTORS(a, b, e1, j0, 2, sum); break;
    case 1: SPMM_VECTORS(a, b, e1, j0, 1, sum); break;
    default: break;
    }
    if (n - done >= SPMM_LANES / 2) {
        SPMM_HALF(a, b, e1, j0 + done, sum + done);
        done += SPMM_LANES / 2;
    }
    if (n - done >= SPMM_LANES / 4) {
        SPMM_QUARTER(a, b, e1, j0 + done, sum + done);
        done += SPMM_LANES / 4;
    }
    if (n > done) SPMM_SCALARS(a, b, e1, j0 + done, n - done, sum + done);
}

static int64_t SPMM_OFF(const spx__spmm_args *a, int64_t i)
{
    return a->row_bits == 32 ? (int64_t)((const int32_t *)a->rowptr)[i]
                             : ((const int64_t *)a->rowptr)[i];
}

/* y_i(j) = alpha * s + beta * y_i(j) (beta == 0: y not read). */
#define SPMM_PUT(y, j, s)                                                                          \
    do {                                                                                           \
        if (a->beta == 0.0)                                                                        \
            (y)[j] = alpha * (s);                                                                  \
        else                                                                                       \
            (y)[j] = alpha * (s) + beta * (y)[j];                                                  \
    } while (0)

/* Rows [i0, i1) when every column is summed alone (k < LANES / 4, the
 * scalars of SPMM_TILE_SUM): NARROW rows at a time, column by column, so
 * that their sums are independent chains the core overlaps (one row's
 * chain alone left the k = 1 product at half the speed of csr SpMV). Each
 * sum takes its row's nonzeros in order by the same operation as
 * SPMM_SCALARS: the same bits. */
#define SPMM_NARROW_ROWS 4
static void SPMM_NARROW(const spx__spmm_args *a, int64_t i0, int64_t i1)
{
    const SPMM_IDX *restrict col = a->col;
    const SPMM_VAL *restrict val = a->val;
    const SPMM_VAL *restrict X = a->X;
    const SPMM_VAL alpha = (SPMM_VAL)a->alpha, beta = (SPMM_VAL)a->beta;
    for (int64_t i = i0; i < i1; i += SPMM_NARROW_ROWS) {
        int64_t b[SPMM_NARROW_ROWS], len[SPMM_NARROW_ROWS], most = 0;
        for (int r = 0; r < SPMM_NARROW_ROWS; r++) {
            b[r] = len[r] = 0;
            if (i + r >= i1) continue;
            b[r] = SPMM_OFF(a, i + r);
            len[r] = SPMM_OFF(a, i + r + 1) - b[r];
            if (len[r] > a->long_len) len[r] = -1; /* a long row: spx__spmm_slice's */
            most = len[r] > most ? len[r] : most;
        }
        for (int64_t j = 0; j < a->k; j++) {
            SPMM_VAL s[SPMM_NARROW_ROWS] = {0};
            for (int64_t t = 0; t < most; t++)
                for (int r = 0; r < SPMM_NARROW_ROWS; r++)
                    if (t < len[r]) {
                        const int64_t e = b[r] + t;
                        s[r] += (val ? val[e] : (SPMM_VAL)1) * X[(int64_t)col[e] * a->ldx + j];
                    }
            for (int r = 0; r < SPMM_NARROW_ROWS; r++)
                if (len[r] >= 0 && i + r < i1) {
                    SPMM_VAL *restrict y = (SPMM_VAL *)a->Y + (i + r) * a->ldy;
                    SPMM_PUT(y, j, s[r]);
                }
        }
    }
}

static void SPMM_ROWS(const spx__spmm_args *a, int64_t i0, int64_t i1)
{
    if (a->k < SPMM_LANES / 4) {
        SPMM_NARROW(a, i0, i1);
        return;
    }
    SPMM_VAL sum[SPMM_TILE];
    const SPMM_VAL alpha = (SPMM_VAL)a->alpha, beta = (SPMM_VAL)a->beta;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t b = SPMM_OFF(a, i), e = SPMM_OFF(a, i + 1);
        if (e - b > a->long_len) continue;
        SPMM_VAL *restrict y = (SPMM_VAL *)a->Y + i * a->ldy;
        for (int64_t j0 = 0; j0 < a->k; j0 += SPMM_TILE) {
            const int64_t n = a->k - j0 < SPMM_TILE ? a->k - j0 : SPMM_TILE;
            SPMM_TILE_SUM(a, b, e, j0, n, sum);
            for (int64_t j = 0; j < n; j++)
                SPMM_PUT(y, j0 + j, sum[j]);
        }
    }
}

static void SPMM_SLICE(const spx__spmm_args *a, int64_t b, int64_t e, double *out)
{
    SPMM_VAL sum[SPMM_TILE];
    for (int64_t j0 = 0; j0 < a->k; j0 += SPMM_TILE) {
        const int64_t n = a->k - j0 < SPMM_TILE ? a->k - j0 : SPMM_TILE;
        SPMM_TILE_SUM(a, b, e, j0, n, sum);
        for (int64_t j = 0; j < n; j++)
            out[j0 + j] = (double)sum[j];
    }
}

#undef SPMM_VEC
#undef SPMM_ADD
#undef SPMM_VECTORS
#undef SPMM_SCALARS
#undef SPMM_HALF
#undef SPMM_QUARTER
#undef SPMM_HALF_VEC
#undef SPMM_QUARTER_VEC
#undef SPMM_ONE_VECTOR
#undef SPMM_TILE_SUM
#undef SPMM_OFF
#undef SPMM_ROWS
#undef SPMM_NARROW
#undef SPMM_NARROW_ROWS
#undef SPMM_PUT
#undef SPMM_SLICE
#undef SPMM_LANES
#undef SPMM_CAT
#undef SPMM_CAT2
#undef SPMM_FN
#undef SPMM_VAL
#undef SPMM_IDX
#undef SPMM_TILE
