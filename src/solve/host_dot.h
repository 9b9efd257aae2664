/* The dot product of one block of a solve's host vectors, sum_e a[e] b[e]
 * in double, in a fixed order that lets the CPU overlap its additions.
 *
 * A single running sum is one chain of dependent additions: each waits for
 * the one before (4 cycles), so a block in L1 was summed at a quarter of an
 * entry a cycle, slower than memory streams it. Here entry e goes to lane
 * e % DOT_LANES, the lanes are independent chains (vector registers), and
 * they are added as a fixed tree at the end:
 *   dot = ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)).
 * The order depends only on the block's length, never on the thread count,
 * so callers that add block sums in block order keep their bits from run to
 * run. */
#ifndef SPX_SOLVE_HOST_DOT_H
#define SPX_SOLVE_HOST_DOT_H

#include <stdint.h>

#define SPX__DOT_LANES 8

/* Each loop's pragma on a line of its own, which clang-format would join to the loop. */
/* clang-format off */
#define SPX__HOST_BLOCK_DOT(T)                                                              \
    static inline double spx__block_dot_##T(const T *a, const T *b, int64_t len)            \
    {                                                                                       \
        double lane[SPX__DOT_LANES] = {0.0};                                                \
        int64_t e = 0;                                                                      \
        for (; e + SPX__DOT_LANES <= len; e += SPX__DOT_LANES) {                            \
            _Pragma("omp simd")                                                             \
            for (int l = 0; l < SPX__DOT_LANES; l++)                                        \
                lane[l] += (double)a[e + l] * (double)b[e + l];                             \
        }                                                                                   \
        for (int l = 0; e + l < len; l++)                                                   \
            lane[l] += (double)a[e + l] * (double)b[e + l];                                 \
        return ((lane[0] + lane[4]) + (lane[1] + lane[5])) +                                \
               ((lane[2] + lane[6]) + (lane[3] + lane[7]));                                 \
    }
/* clang-format on */
SPX__HOST_BLOCK_DOT(double)
SPX__HOST_BLOCK_DOT(float)

#endif
