/* AUTO's degree ordering of CUDA SpMV plans: where A's gathers of x would
 * become local under P A P^T by decreasing degree (src/core/order.c), a plan
 * of format auto without reorder= or vectors= takes reorder=degree
 * (reorder.c), and AUTO then picks the format for P A P^T.
 *
 * The rule (bench/results/gpu-reorder-locality-2026-11-26.md): a square
 * host matrix of AUTO_ORDER_MIN_NNZ nonzeros or more whose
 *   hot share, the nonzeros in the 1% of columns with the most entries, is
 *     at least AUTO_ORDER_HOT_SHARE (the ordering packs them together), and
 *   sectors per nonzero, the distinct 32-byte sectors of an fp64 x that
 *     blocks of 32 consecutive rows read over their nonzeros (sampled), are
 *     at least AUTO_ORDER_SECTORS (the given order is not local already).
 * Measured on the host: R-MAT 17-20 (ef 16) hot share 0.39-0.49, sectors
 * 0.90-0.97; the circuit and power-law generators 0.02 and 0.86-0.96
 * (random columns, no hot ones); NotreDame_www (x1, x32) 0.38 and 0.19
 * (power-law but already local); c-62, delaunay_n16, rajat01 x256,
 * lap3d27:64, xenon1 x3: hot share at most 0.19 and sectors at most 0.24.
 * The hot share is read from a sample since 2026-11-27 (spx__auto_hot_share):
 * on the 2-core build machine, idle, R-MAT 17-21 read 0.389-0.526 sampled,
 * within 0.01 of the exact count, and the power-law and circuit generators
 * 0.026-0.027 (0.015-0.021 exact); the exact count of every nonzero took
 * 45 ms for R-MAT 20 and 86 ms for the power-law generator at 2M rows, the
 * sample 13 and 38 ms.
 * On the H100 (gpu-reorder-2026-11-25.md and run CS) the ordering paid
 * only on R-MAT: dasp 1.18-1.20x cuSPARSE CSR instead of 1.02x and 0.99x
 * (scale 20, 21), dasp's iso path 1.43x and 1.41x instead of 1.16x and
 * 1.13x; elsewhere it lost (0.65-0.98x). R-MAT 18 (7.6M nonzeros) gained
 * 1.06x with dasp, hence the size floor. The ordering costs plan time: a
 * dasp plan with it took 261 ms for R-MAT 20 and 540 for R-MAT 21 on the
 * H100 machine (run CT after 34a7d71 and the row chunks of
 * spx__order_permute), against 20 and 33 ms without it and cuSPARSE's
 * 194 and 469 ms of setup; it repays itself against dasp unordered in
 * about 5500 calls, so a caller expecting fewer than
 * AUTO_ORDER_REPAY_CALLS (spx_plan_opts.expected_calls) does not get it.
 * The CPU is not measured against this rule and is left as it is. */
#include "plan/auto_order.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "core/order.h"

#define AUTO_ORDER_MIN_NNZ 10000000
#define AUTO_ORDER_REPAY_CALLS 5000
#define AUTO_ORDER_HOT_SHARE 0.25
#define AUTO_ORDER_SECTORS 0.6
#define SAMPLE_BLOCKS 256       /* blocks of rows whose sectors are counted */
#define BLOCK_ROWS 32           /* rows a block: a warp's worth of rows */
#define SECTOR_SHIFT 2          /* 4 doubles a 32-byte sector */
#define BLOCK_MAX_ENTRIES 16384 /* larger sampled blocks are skipped */

static int cmp_i32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Distinct x sectors over nonzeros in SAMPLE_BLOCKS blocks of BLOCK_ROWS
 * rows spread evenly over A; 0 when none could be counted. */
static double sectors_per_nonzero(const spx_matrix *A)
{
    const int64_t blocks = (A->rows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    const int64_t step = blocks > SAMPLE_BLOCKS ? blocks / SAMPLE_BLOCKS : 1;
    int32_t *sector = NULL;
    int64_t distinct = 0, seen = 0;
    if (spx__alloc((void **)&sector, BLOCK_MAX_ENTRIES, sizeof *sector, "auto order: sectors") !=
        SPX_OK)
        return 0.0;
    for (int64_t b = 0; b < blocks; b += step) {
        const int64_t r0 = b * BLOCK_ROWS,
                      r1 = r0 + BLOCK_ROWS < A->rows ? r0 + BLOCK_ROWS : A->rows;
        const int64_t p0 = spx__row_off(A, r0), n = spx__row_off(A, r1) - p0;
        if (n > BLOCK_MAX_ENTRIES) continue;
        for (int64_t p = 0; p < n; p++)
            sector[p] = A->col32[p0 + p] >> SECTOR_SHIFT;
        qsort(sector, (size_t)n, sizeof *sector, cmp_i32);
        for (int64_t p = 0; p < n; p++)
            distinct += p == 0 || sector[p] != sector[p - 1];
        seen += n;
    }
    spx__free(sector);
    return seen ? (double)distinct / (double)seen : 0.0;
}

#define HOT_SAMPLES ((int64_t)1 << 20)

double spx__auto_hot_share(const spx_matrix *M)
{
    return spx__hot_share_sampled(M, 4 * M->cols > HOT_SAMPLES ? 4 * M->cols : HOT_SAMPLES);
}

int spx__auto_orders(const spx_matrix *M, const spx_plan_opts *o)
{
    if (o->format && *o->format && strcmp(o->format, "auto") != 0) return 0;
    if (o->device != SPX_DEV_CUDA || M->dev.on || M->rows != M->cols || M->col_bits != 32) return 0;
    if (M->nnz < AUTO_ORDER_MIN_NNZ) return 0;
    if (o->expected_calls > 0 && o->expected_calls < AUTO_ORDER_REPAY_CALLS) return 0;
    return sectors_per_nonzero(M) >= AUTO_ORDER_SECTORS &&
           spx__auto_hot_share(M) >= AUTO_ORDER_HOT_SHARE;
}

spx_status spx__params_unordered(const char *params, char **out)
{
    static const char none[] = "reorder=none";
    *out = NULL;
    if (params && (strstr(params, "reorder") || strstr(params, "vectors"))) return SPX_OK;
    const size_t n = sizeof none + (params && *params ? strlen(params) + 1 : 0);
    spx_status st = spx__alloc((void **)out, n, 1, "unordered plan parameters");
    if (st != SPX_OK) return st;
    memcpy(*out, none, sizeof none);
    if (params && *params) {
        (*out)[sizeof none - 1] = ',';
        memcpy(*out + sizeof none, params, strlen(params) + 1);
    }
    return SPX_OK;
}
