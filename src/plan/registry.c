/* The format registry: every format SpX has, in the order the bench lists them.
 * Adding a format: one file defining its spx_format_ops, one line here. */
#include <string.h>

#include "plan/format.h"

extern const spx_format_ops spx__format_ref;
extern const spx_format_ops spx__format_csr;
extern const spx_format_ops spx__format_coo;
extern const spx_format_ops spx__format_sell;
extern const spx_format_ops spx__format_sym;
extern const spx_format_ops spx__format_cuda_csr;
extern const spx_format_ops spx__format_cuda_sell;
extern const spx_format_ops spx__format_dasp;
extern const spx_format_ops spx__format_cuda_hbp;
extern const spx_format_ops spx__format_axc;
extern const spx_format_ops spx__format_axt_uh1;
extern const spx_format_ops spx__format_axt_uh;
extern const spx_format_ops spx__format_axt_ch1;
extern const spx_format_ops spx__format_axt_ch;
extern const spx_format_ops spx__format_cuda_axc;
extern const spx_format_ops spx__format_cuda_axt_uh1;
extern const spx_format_ops spx__format_cuda_axt_uh;
extern const spx_format_ops spx__format_cuda_axt_ch1;
extern const spx_format_ops spx__format_cuda_axt_ch;
extern const spx_format_ops spx__format_gustavson;
extern const spx_format_ops spx__format_tsparse;
extern const spx_format_ops spx__format_gpu_rows;

const spx_format_ops *const spx__formats[] = {
    &spx__format_ref,
    &spx__format_csr,
    &spx__format_coo,
    &spx__format_sell,
    &spx__format_sym,
    &spx__format_cuda_csr,
    &spx__format_cuda_sell,
    &spx__format_dasp,
    &spx__format_cuda_hbp,
    &spx__format_axc,
    &spx__format_axt_uh1,
    &spx__format_axt_uh,
    &spx__format_axt_ch1,
    &spx__format_axt_ch,
    &spx__format_cuda_axc,
    &spx__format_cuda_axt_uh1,
    &spx__format_cuda_axt_uh,
    &spx__format_cuda_axt_ch1,
    &spx__format_cuda_axt_ch,
    &spx__format_gustavson,
    &spx__format_tsparse,
    &spx__format_gpu_rows,
    NULL,
};

unsigned spx__format_operations(const spx_format_ops *f)
{
    return (f->spmv ? SPX__OP_BIT(SPX_OP_SPMV) : 0u) |
           (f->spgemm ? SPX__OP_BIT(SPX_OP_SPGEMM) : 0u) |
           (f->spmm ? SPX__OP_BIT(SPX_OP_SPMM) : 0u) | (f->sddmm ? SPX__OP_BIT(SPX_OP_SDDMM) : 0u);
}

/* Whether f computes op on d in t (for a device matrix: and takes one). */
static int computes(const spx_format_ops *f, spx_operation op, spx_device d, spx_type t,
                    int device_matrix)
{
    return (f->devices & (unsigned)d) && (f->precisions & SPX__TYPE_BIT(t)) &&
           (spx__format_operations(f) & SPX__OP_BIT(op)) && (!device_matrix || f->device_matrix);
}

const spx_format_ops *spx__format_find(const char *name, spx_operation op, spx_device d,
                                       spx_type t)
{
    for (int i = 0; spx__formats[i]; i++)
        if (strcmp(spx__formats[i]->name, name) == 0 && computes(spx__formats[i], op, d, t, 0))
            return spx__formats[i];
    return NULL;
}

const spx_format_ops *spx__format_find_any(spx_operation op, spx_device d, spx_type t,
                                           int device_matrix)
{
    for (int i = 0; spx__formats[i]; i++)
        if (computes(spx__formats[i], op, d, t, device_matrix)) return spx__formats[i];
    return NULL;
}
