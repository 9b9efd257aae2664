/* The rules both hbp builders follow (host hbp_build.c, device hbp_prep.cu),
 * written once for both compilers: the hash of a row's length, the
 * threads a coop tile gives each row, and how a group's steps are cut into
 * tiles (layout: hbp_kernels.h).
 *
 * Hash (the paper's three parts; a, c sampled from the matrix, b, d from the
 * block height N):
 *   aggregation  g = min(len >> a, 8): lengths within 2^a of each other share
 *                a class; a is chosen so that 90% of the pieces (rows' entries
 *                in a block) land in classes 0..7 (the paper's "0 to 8",
 *                with the few longer ones clamped to 8);
 *   dispersion   g * b with b = N / 16: each class owns b slots of the
 *                block's hash table;
 *   linear map   (len >> c) & (d - 1) with c = max(0, a - log2 b) and d =
 *                2^(a - c) <= b: the length's bits below the class, as finely
 *                as the class's b slots allow (a modulo, as in the paper).
 * key = g * b + that, in [0, 9 b). Rows are placed by key, ties in row order. */
#ifndef SPX_CUDA_HBP_RULES_H
#define SPX_CUDA_HBP_RULES_H

#include <stdint.h>

#include "cuda/hbp/hbp_kernels.h"

#ifdef __CUDACC__
#define SPX__HBP_HD __host__ __device__
#else
#define SPX__HBP_HD
#endif

#define SPX__HBP_CLASSES 9 /* aggregation classes 0..8 */
#define SPX__HBP_BINS 32   /* length histogram: floor(log2 len), len >= 1 */

#ifdef __cplusplus
extern "C" {
#endif

/* The hash of a set of pieces from their histogram (bin i: pieces with
 * floor(log2 len) == i), for blocks of N rows. */
spx__hbp_hash spx__hbp_hash_of(const int64_t hist[SPX__HBP_BINS], int64_t N);

#ifdef __cplusplus
}
#endif

static inline SPX__HBP_HD uint32_t spx__hbp_key(spx__hbp_hash h, uint32_t len)
{
    uint32_t g = len >> h.a;
    if (g > SPX__HBP_CLASSES - 1) g = SPX__HBP_CLASSES - 1;
    return g * (uint32_t)h.b + ((len >> h.c) & (uint32_t)(h.d - 1));
}

static inline SPX__HBP_HD int spx__hbp_bin(uint32_t len)
{
    int b = 0;
    while (len >>= 1)
        b++;
    return b;
}

/* Threads per row of a coop tile with a rows: the largest power of two g
 * with g a <= 32; 1 (a lane tile) for a > 16. */
static inline SPX__HBP_HD int spx__hbp_coop_threads(uint32_t a)
{
    int g = 1;
    if (a == 0 || a > 16) return 1;
    while (2u * (uint32_t)g * a <= SPX__HBP_W)
        g *= 2;
    return g;
}

/* A tile's steps and kind, as the rule cuts them. */
typedef struct spx__hbp_span {
    uint32_t s0, s1;
    uint16_t alive; /* 0: lane tile */
} spx__hbp_span;

static inline SPX__HBP_HD int64_t spx__hbp_emit(spx__hbp_span *out, int64_t n, uint32_t s0,
                                                uint32_t s1, uint16_t alive)
{
    if (out) {
        out[n].s0 = s0;
        out[n].s1 = s1;
        out[n].alive = alive;
    }
    return n + 1;
}

/* Lane tiles of at most T steps over [s0, s1), after the n spans so far. */
static inline SPX__HBP_HD int64_t spx__hbp_lane_tiles(uint32_t s0, uint32_t s1, uint32_t T,
                                                      spx__hbp_span *out, int64_t n)
{
    for (uint32_t s = s0; s < s1;) {
        const uint32_t e = s1 - s > T ? s + T : s1;
        n = spx__hbp_emit(out, n, s, e, 0);
        s = e;
    }
    return n;
}

/* The tiles of a group whose lane lengths len[0..31] do not increase
 * (spans into out when not NULL); returns their count, at least 1. Steps
 * where a <= 16 lanes have entries, for T steps or more, become coop tiles
 * of at most g T steps (g = spx__hbp_coop_threads(a)): each of a row's g
 * threads then reads at most T entries. The other steps become lane tiles of
 * at most T steps. T == 0, or a group without entries: one lane tile. */
static inline SPX__HBP_HD int64_t spx__hbp_group_tiles(const uint32_t *len, int64_t T,
                                                       spx__hbp_span *out)
{
    const uint32_t steps = len[0], t = (uint32_t)T;
    uint32_t cur = 0;
    int64_t n = 0;
    if (steps == 0 || T == 0) return spx__hbp_emit(out, 0, 0, steps, 0);
    for (uint32_t a = SPX__HBP_W; a >= 1; a--) {
        /* steps [k0, k1) have exactly a lanes with entries */
        const uint32_t k0 = a == SPX__HBP_W ? 0 : len[a], k1 = len[a - 1];
        const uint32_t g = (uint32_t)spx__hbp_coop_threads(a);
        if (k1 <= k0 || g == 1 || k1 - k0 < t) continue;
        n = spx__hbp_lane_tiles(cur, k0, t, out, n);
        for (uint32_t s = k0; s < k1;) {
            const uint32_t e = k1 - s > g * t ? s + g * t : k1;
            n = spx__hbp_emit(out, n, s, e, (uint16_t)a);
            s = e;
        }
        cur = k1;
    }
    return spx__hbp_lane_tiles(cur, steps, t, out, n);
}

/* Entries of a group's lanes before step s: sum of min(len[l], s). */
static inline SPX__HBP_HD int64_t spx__hbp_entries_before(const uint32_t *len, uint32_t s)
{
    int64_t e = 0;
    for (int l = 0; l < SPX__HBP_W; l++)
        e += len[l] < s ? len[l] : s;
    return e;
}

#endif
