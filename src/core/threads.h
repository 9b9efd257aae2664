/* OpenMP team sizes by the work a loop has: one thread per grain units of
 * work (entries of a vector, nonzeros of a matrix), at least 1 and at most
 * omp_get_max_threads(). Waking a team costs microseconds, more on a host of
 * many cores that are shared or throttled: there a solve of a 1000-row
 * matrix, whose vector operations each woke 64 threads, ran over 60 s where
 * 4 threads took 0.11 s (4 x H200 host, run KB, 2026-11-27). */
#ifndef SPX_CORE_THREADS_H
#define SPX_CORE_THREADS_H

#include <omp.h>
#include <stdint.h>

/* Vector operations: entries a thread, at least (some 100 us of memory
 * traffic on one core). */
#define SPX__VECTOR_GRAIN 32768
/* SpMV: nonzeros a thread, at least. */
#define SPX__SPMV_GRAIN 8192

static inline int spx__threads_for(int64_t work, int64_t grain)
{
    int64_t most = omp_get_max_threads(), want = work / grain;
    return (int)(want < 1 ? 1 : want < most ? want : most);
}

#endif
