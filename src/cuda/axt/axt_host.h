/* The host side of the CUDA AXC / AXT formats (axt_cuda.h): A laid out by the
 * CPU formats' builder (spx__axt_layout, cpu/axt.h) with THW 32 (16 for
 * axt-uh1), and what the kernels need beyond it: the rows without entries and
 * the split of the units among producers. C only (the CPU header is not
 * CUDA's); axt_build.c. */
#ifndef SPX_CUDA_AXT_HOST_H
#define SPX_CUDA_AXT_HOST_H

#include <stdint.h>

#include "cpu/axt.h"
#include "cuda/axt/axt_cuda.h"
#include "spx.h"

/* What to build. */
typedef struct spx__cuda_axt_shape {
    int variant;          /* SPX__CUDA_AXC ... */
    spx_type type;        /* SPX_F64 or SPX_F32 */
    int live;             /* x=live */
    int th;               /* uh, ch: slabs per tile (1 for the others) */
    int bs;               /* ch1: entries per block, a multiple of 32 */
    int threads;          /* host threads laying out (0: OpenMP's) */
    int64_t target_warps; /* uh1, uh, ch: about this many warps share the units */
} spx__cuda_axt_shape;

typedef struct spx__cuda_axt_host {
    spx__axt L;     /* the layout, host arrays (thw, th, bs, live as built) */
    int32_t *empty; /* n_empty rows without entries (not axc) */
    int64_t n_empty;
    int64_t per_worker; /* units a producer takes: a warp's range (uh1: even), 1 for ch1 */
    int64_t workers;    /* producers: warps, ch1 blocks; axc: rows; 0 without entries */
} spx__cuda_axt_host;

/* Lay A out for s (SPX_ERR_UNSUPPORTED for more than 2^31-1 rows, 64-bit
 * columns, or a header too narrow for the rows). On failure nothing stays
 * allocated and *h is zeroed. */
spx_status spx__cuda_axt_build(const spx_matrix *A, const spx__cuda_axt_shape *s,
                               spx__cuda_axt_host *h);
void spx__cuda_axt_host_free(spx__cuda_axt_host *h); /* zeroes *h */

/* The THW of a variant: 16 for axt-uh1, else 32. */
int spx__cuda_axt_thw(int variant);

#endif
