/* Block operations on the device for spx_cg_many (src/solve/many.h): n x k
 * row-major blocks of type t (SPX_F64 double, SPX_F32 float), leading
 * dimension k unless given, and the columns' scalars col (solve/many_cols.h,
 * device memory), on a stream.
 *
 * Column dots sum in double in a fixed order: the k columns go in chunks of
 * up to SPX__CUDA_MANY_THREADS (grid y), a block's threads are rows x
 * columns of its chunk, the grid's G blocks (x) stride the rows; a block's
 * sums are folded by a fixed tree, then the G block sums by the last block
 * of the chunk to finish (a ticket), in a fixed order. G is set by n and k alone,
 * so a result is the same bits call to call.
 * - scratch_doubles: the doubles of scratch for n and k (zero before its
 *   first use; one stream at a time);
 * - bcopy: dst = src, leading dimensions lds, ldd;
 * - bdiag: dst(i, j) = d(i) * src(i, j);
 * - bdots: col[field[q]*k + j] = a[q](:, j) . b[q](:, j), q < pairs <= 2;
 * - bcols: the step of many_cols.h on every column;
 * - bcg_step: CG's step of every live column (x with leading dimension
 *   ldx), its dots rr_new (and rz_new, with d) and the turn of iteration it;
 * - bdirection: p = z + beta p for every live column. */
#ifndef SPX_CUDA_BLAS1_MANY_H
#define SPX_CUDA_BLAS1_MANY_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_MANY_THREADS 256

#define SPX__CUDA_MANY_API(S, Q, V)                                                                \
    Q(size_t, spx__cuda_many_scratch_doubles, (int64_t n, int64_t k), 0)                           \
    S(spx__cuda_bcopy, (int64_t n, int64_t k, spx_type t, const void *src, int64_t lds, void *dst, \
                        int64_t ldd, void *stream))                                                \
    S(spx__cuda_bdiag,                                                                             \
      (int64_t n, int64_t k, spx_type t, const void *d, const void *src, void *dst, void *stream)) \
    S(spx__cuda_bdots,                                                                             \
      (int64_t n, int64_t k, spx_type t, int pairs, const void *const *a, const void *const *b,    \
       const int *field, double *col, double *scratch, void *stream))                              \
    S(spx__cuda_bcols,                                                                             \
      (int64_t k, double *col, int step, int64_t it, double rtol, int jacobi, void *stream))       \
    S(spx__cuda_bcg_step, (int64_t n, int64_t k, spx_type t, double *col, int64_t it, double rtol, \
                           void *x, int64_t ldx, const void *p, void *r, const void *q,            \
                           const void *d, void *z, double *scratch, void *stream))                 \
    S(spx__cuda_bdirection,                                                                        \
      (int64_t n, int64_t k, spx_type t, const double *col, const void *z, void *p, void *stream))

SPX__CUDA_DECLARE(SPX__CUDA_MANY_API)

#ifdef __cplusplus
}
#endif
#endif
