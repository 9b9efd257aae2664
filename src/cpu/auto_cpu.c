/* AUTO on the CPU: csr until the SIMD formats' rule is measured (issue 3). */
#include "plan/format.h"

const char *spx__auto_cpu(const spx_matrix *A, const spx_plan_opts *o)
{
    (void)A;
    (void)o;
    return "csr";
}
