/* New values into a CUDA plan's own arrays (spx_plan_update_values): the
 * conversion and gather every CUDA format's update_values hook shares
 * (values.cu). A format keeps its slots in its own order; map says which of
 * the caller's values (the matrix's CSR order) each slot takes:
 *     dst[s] = (t) src[map[s]]   for map[s] >= 0,   0 for map[s] < 0 (padding),
 * and dst[s] = (t) src[s] without a map. src is the caller's array of type
 * from (double or float), in device memory when src_on_device, else host
 * memory (copied over first); dst holds t (double, float or IEEE half, the
 * conversion rounding to nearest as the formats' uploads do). Both return
 * when src has been read and dst written (the plan's stream waited for).
 *
 * - values_gather: as above, n slots of dst; a map of n int32 in device
 *   memory (a format keeps one where its slots are not in CSR order: 4
 *   bytes a slot, so a plan of more than INT32_MAX entries refuses
 *   updates), or NULL (then n <= src_n); src holds src_n values;
 * - values_to_host: n values of type from at src (device or host) into the
 *   host's dst (a copy when src is already there), for hooks that decide
 *   on the host (an iso state checking whether the new values are all one
 *   number);
 * - values_beyond_half: *first = the first k < n whose value (of type from,
 *   device memory) is NaN or beyond half's range (|v| > 65504), n when none:
 *   an fp16 plan's check of new values where they are, without copying them
 *   to the host. */
#ifndef SPX_CUDA_VALUES_H
#define SPX_CUDA_VALUES_H

#include "cuda/gateway.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_VALUES_API(S, Q, V)                                                              \
    S(spx__cuda_values_gather,                                                                     \
      (void *dst, spx_type t, int64_t n, const int32_t *map, const void *src, spx_type from,       \
       int64_t src_n, int src_on_device, void *stream))                                            \
    S(spx__cuda_values_to_host,                                                                    \
      (void *dst, const void *src, spx_type from, int src_on_device, int64_t n, void *stream))     \
    S(spx__cuda_values_beyond_half,                                                                \
      (const void *src, spx_type from, int64_t n, void *stream, int64_t *first))

SPX__CUDA_DECLARE(SPX__CUDA_VALUES_API)

#ifdef __cplusplus
}
#endif
#endif
