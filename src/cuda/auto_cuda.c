/* AUTO on CUDA: sell, dasp or csr, from the row-length statistics.
 *
 * sell (SELL-32 with 16-bit column offsets, cuda/sell/sell_kernels.h) for
 * banded matrices of SELL_MIN_NNZ or more nonzeros: every step of 32 rows
 * fits index=u16 and the slices in row order hold at least SELL_OCCUPANCY of
 * nonzeros among their entries. Measured on an H100
 * (bench/results/gpu-sell-2026-11-22.md), time of sell against csr: lap3d7
 * at 3.5M, 6.9M, 55.8M nonzeros fp64 0.0142/0.0210, 0.0284/0.0368,
 * 0.2624/0.3095 ms, fp16 0.0061/0.0085, 0.0127/0.0230, 0.1267/0.1704;
 * lap3d27 at 3.2M, 6.9M, 23.4M fp64 0.0088/0.0155, 0.0265/0.0361,
 * 0.0883/0.1055, fp16 0.0074/0.0079, 0.0107/0.0218, 0.0410/0.0654. On the
 * shared matrices of 0.1M-1.2M nonzeros (L2-resident, launch-bound) csr was
 * 1.3-2x faster, hence the floor.
 *
 * Measured on an H100 with pdl=on (the default: a call's matrix loads overlap
 * the end of the kernel before; bench/results/gpu-pdl-2026-11-22.md), ratio
 * of each format to cuSPARSE CSR in the same process:
 *  - csr beat dasp on all ten shared matrices of 100k+ nonzeros, those dasp
 *    used to win included (TSOPF_RS_b39_c30 1.88x vs 1.84x, xenon1 1.69x vs
 *    1.46x, c-62 1.38x vs 0.97x: mean row 18, 24 and 13.4, c-62 with rows of
 *    up to 5060), and on lap3d27:96 (23.4M nonzeros, 1.14x vs 1.02x);
 *  - dasp keeps the R-MAT graphs (rows longer than 256 and a mean row of
 *    28-30): scale 20 1.02x vs 0.77x (fp16 1.04x vs 0.81x), scale 17 1.09x vs
 *    0.77x (bench/results/gpu-h100-80gb-hbm3-2026-11-22-r3.txt), where csr's
 *    row blocks of mixed short and long rows leave lanes idle; the bound of 16
 *    on the mean row sits between c-62 (13.4, csr) and those (not measured in
 *    between).
 * dasp's preparation costs more (5 to 40 ms against 1 to 4 on those matrices,
 * 150+ ms at 10M+ nonzeros), so with expected_calls given and below 10,000:
 * csr. A format lacking the precision falls back to csr in the plan layer. */
#include "core/matrix.h"
#include "cuda/sell/sell_kernels.h"
#include "plan/format.h"

#define SELL_MIN_NNZ 3000000
#define SELL_OCCUPANCY 0.9

#define DASP_MIN_NNZ 500000
#define DASP_LONG_ROW 256

static int has_long_row(const spx_matrix *A)
{
    for (int64_t i = 0; i < A->rows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > DASP_LONG_ROW) return 1;
    return 0;
}

/* 1 when A's slices in row order fit sell's index=u16 and hold at least
 * SELL_OCCUPANCY of nonzeros among their entries. */
static int sell_fits(const spx_matrix *A)
{
    int64_t entries = 0;
    int u16 = 0;
    if (spx__cuda_sell_measure(A, 1, &entries, &u16) != SPX_OK) return 0;
    return u16 && (double)A->nnz >= SELL_OCCUPANCY * (double)entries;
}

const char *spx__auto_cuda(const spx_matrix *A, const spx_plan_opts *o)
{
    if (A->rows == 0 || A->nnz < DASP_MIN_NNZ) return "csr";
    if (o->expected_calls > 0 && o->expected_calls < 10000) return "csr";
    if (A->nnz >= SELL_MIN_NNZ && A->col_bits == 32 && sell_fits(A)) return "sell";
    double rave = (double)A->nnz / (double)A->rows;
    if (rave > 32.0 || rave < 16.0) return "csr";
    return has_long_row(A) ? "dasp" : "csr";
}
