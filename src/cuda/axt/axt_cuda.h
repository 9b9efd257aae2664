/* The CUDA formats axc, axt-uh1, axt-uh, axt-ch1 and axt-ch: the CUDA half of
 * the AXT paper (Coronado-Barrientos et al., 2021), on the layout the CPU
 * formats use (src/cpu/axt.h, one builder: spx__axt_layout) with the tile
 * half width THW = 32 lanes of a warp (16 for axt-uh1). axt_build.c lays A
 * out on the host, axt_format.c holds the formats and uploads, axt_spmv.cu
 * runs them, axt_lane.h decides where each partial sum goes.
 *
 * ax[] is a sequence of slabs of sb bytes: THW values, then THW x slots
 * (x=live: int32 columns, -1 in padding; x=refresh: the gathered x, rewritten
 * from col[] by a refresh kernel at the start of every call). Work per variant:
 *   axc      a warp per row (HBRS = 32): its lanes sum the row's slabs, a
 *            butterfly reduction, lane 0 writes y (the paper's Listing 2).
 *   axt-uh1  THW = 16, a warp over a range of slabs, two slabs a step (one
 *            per half warp), reduced within the half (Listing 4).
 *   axt-uh   THW = 32, TH > 1: a warp over a range of tiles; lane l sums its
 *            column (TH entries of row rwp[t*32 + l]), Listing 6.
 *   axt-ch1  a thread block of BS threads per block of BS packed entries:
 *            a segmented scan of the products in registers (warp shuffles),
 *            the warps' open sums chained through shared memory (Listing 9).
 *   axt-ch   a warp over a range of tiles of TH x 32 packed entries, each lane
 *            down its column restarting at row heads, the columns' open sums
 *            chained by a segmented scan across the lanes (Listing 11).
 * Departures from the paper: sums restart at row heads instead of the fast
 * segmented sum (a difference of two prefix sums, whose error grows with the
 * whole block's magnitude rather than the row's); accumulation per lane over
 * a row's slabs with one reduction at the end (axc); and, by default, no
 * atomics: combine=ordered writes every y entry once (axt_lane.h), so calls
 * give the same bits; combine=atomic is the paper's (y scaled by beta first,
 * then atomicAdd of each partial), kept to measure what the order costs.
 *
 * A call is a chain of launches on the plan's stream, each allowed to start
 * under the one before (pdl=on, cuda/pdl.cuh): [refresh] [scale, atomic]
 * main [combine, ordered]. The carries are the plan's scratch and x=refresh
 * rewrites ax[]: calls on one plan must not run concurrently.
 *
 * New values (spx_plan_update_values) rewrite the value half of every slab,
 * a thread per cell taking the entry spx__axt_cell_entry names (axt_lane.h).
 * No slot map is kept (4 bytes a cell: a third more than an fp64 x=live
 * slab holds, a half more in fp32): each run of a slab or a tile column holds consecutive entries,
 * so the runs' first entries are a scan of their entries, counted from the columns the plan keeps
 * (-1 in padding), at each update (axc, uh1, uh; 8 bytes a run for the call), or follow from the
 * run's index (ch1, ch). */
#ifndef SPX_CUDA_AXT_CUDA_H
#define SPX_CUDA_AXT_CUDA_H

#include <stdint.h>

#include "cuda/axt/axt_lane.h"
#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same values as SPX__AXC ... SPX__AXT_CH of cpu/axt.h (axt_build.c checks). */
enum {
    SPX__CUDA_AXC = 0,
    SPX__CUDA_AXT_UH1,
    SPX__CUDA_AXT_UH,
    SPX__CUDA_AXT_CH1,
    SPX__CUDA_AXT_CH,
    SPX__CUDA_AXT_NVAR
};

#define SPX__CUDA_AXT_WARP 32    /* THW of every variant but axt-uh1 */
#define SPX__CUDA_AXT_UH1_THW 16 /* axt-uh1: two slabs a warp step */

/* A prepared matrix on the device (arrays device pointers). */
typedef struct spx__cuda_axt_plan {
    int variant;        /* SPX__CUDA_AXC ... */
    spx_type precision; /* F64: double values, x, y; F32: float */
    int live;           /* x=live: the x slots hold int32 columns */
    int atomic;         /* combine=atomic */
    int pdl;            /* launches may overlap the kernel before (cuda/pdl.cuh) */
    int thw, th, bs, obits;
    int64_t rows, cols, nnz;
    int64_t nslab, nunits;
    int64_t sb;         /* bytes per slab */
    int64_t per_worker; /* units of one producer: a warp (uh1, uh, ch), a block (ch1: 1) */
    int64_t workers;    /* producers (0 without entries); axc: rows, a warp each */
    int64_t n_empty;    /* rows without entries (not axc: its warps write them) */
    unsigned char *ax;  /* nslab * sb */
    int32_t *col;       /* x=refresh: nslab * thw columns, -1 in padding */
    int32_t *rwp;       /* uh1: nslab rows; uh: nunits * 32 */
    uint32_t *hdr;      /* ch1, ch: nslab * thw headers */
    int64_t *brp;       /* axc: rows + 1 slab offsets */
    int32_t *empty;     /* n_empty rows */
    int64_t *carry_row; /* ordered: 2 * workers, -1 unused */
    void *carry_sum;    /* ordered: 2 * workers values of the precision */
    void *stream;       /* cudaStream_t (NULL: the default stream) */
} spx__cuda_axt_plan;

/* The runs of a layout (axt_lane.h; first NULL: the scan is the caller's). */
static inline spx__axt_runs spx__axt_runs_of(int variant, int thw, int th, int64_t nnz,
                                             int64_t nslab, int64_t nunits)
{
    spx__axt_runs r;
    r.columns = variant == SPX__CUDA_AXT_UH || variant == SPX__CUDA_AXT_CH;
    r.packed = variant == SPX__CUDA_AXT_CH1 || variant == SPX__CUDA_AXT_CH;
    r.thw = thw;
    r.th = th;
    r.nnz = nnz;
    r.n = r.columns ? nunits * thw : nslab;
    r.first = NULL;
    return r;
}

/* The method's gateway (cuda/gateway.h; axt_spmv.cu):
 * - spmv: launch y = alpha*A*x + beta*y on p->stream (asynchronous); beta ==
 *   0 never reads y; x and y are device vectors of the plan's precision;
 * - values: every value cell of ax[] from src (A's nnz values of the plan's
 *   precision, device memory, CSR order), 0 in padding (axt_lane.h: the
 *   runs' scan in temporary device memory); on p->stream, waited for. */
#define SPX__CUDA_AXT_API(S, Q, V)                                                                 \
    S(spx__cuda_axt_spmv,                                                                          \
      (const spx__cuda_axt_plan *p, double alpha, const void *x, double beta, void *y))            \
    S(spx__cuda_axt_values, (const spx__cuda_axt_plan *p, const void *src))

SPX__CUDA_DECLARE(SPX__CUDA_AXT_API)

#ifdef __cplusplus
}
#endif
#endif
