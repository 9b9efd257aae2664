/* AUTO on the CPU: the format `format = auto` prepares.
 *
 * The rule, from measurements on AVX-512 (bench/results/cpu-auto.md):
 *   no AVX2 or AVX-512 kernels may run        -> csr   (sell's portable kernel
 *                                                      is about 1.3x slower)
 *   0 < expected_calls < AUTO_REPAY_CALLS     -> csr   (sell's preparation,
 *                                                      3-15 ns per nonzero, is
 *                                                      not repaid in so few calls)
 *   otherwise                                 -> sell
 * SELL-C-sigma (sigma = 4096, long rows summed apart) was the fastest CPU
 * format on every matrix measured: regular stencils, FEM, circuit and
 * power-law rows, 294 to 7.6M nonzeros, and again on five generated
 * matrices of 26M to 56M nonzeros (bench/results/cpu-large-2026-11-22.md;
 * break-even against csr 5 to 78 calls there). The row statistics that could steer a
 * choice (mean, spread and longest row) are absorbed inside sell: the sorting
 * window takes the spread, the long-row pass the longest rows. axc and the AXT
 * variants (axt-uh1, axt-uh, axt-ch1, axt-ch) were measured too and were never
 * the fastest, so AUTO does not pick them. csr is the fallback when the pick
 * lacks the plan's precision (src/plan/plan.c).
 */
#include "core/matrix.h"
#include "cpu/isa.h"
#include "plan/format.h"

/* Median of 31 measured break-evens of sell against csr: 46 calls. */
#define AUTO_REPAY_CALLS 50

const char *spx__auto_cpu(const spx_matrix *A, const spx_plan_opts *o)
{
    (void)A;
    if (spx__isa_active() == SPX__ISA_SCALAR) return "csr";
    if (o->expected_calls > 0 && o->expected_calls < AUTO_REPAY_CALLS) return "csr";
    return "sell";
}
