/* AUTO: choose a format for a matrix from its statistics. The rule per device
 * lives beside that device's formats (src/cpu/auto_cpu.c, src/cuda/auto_cuda.c). */
#include "plan/format.h"

const char *spx__auto_cpu(const spx_matrix *A, const spx_plan_opts *o);
const char *spx__auto_cuda(const spx_matrix *A, const spx_plan_opts *o);

const char *spx__auto_format(const spx_matrix *A, const spx_plan_opts *o)
{
    return o->device == SPX_DEV_CUDA ? spx__auto_cuda(A, o) : spx__auto_cpu(A, o);
}
