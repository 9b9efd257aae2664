/* AUTO: the registry answers. Each format that computes the operation on the
 * device in the precision, and has a suits hook, says how well it suits A
 * (its expected speed relative to the device's baseline); the highest answer
 * wins, ties to the first in the table; for a device matrix only formats
 * that take one answer. The rules and the measurements behind them live
 * beside each format's code, never here. */
#include "core/matrix.h"
#include "cpu/isa.h"
#include "plan/format.h"

static spx__auto_facts facts_of(const spx_matrix *A, spx_operation op, const spx_plan_opts *o)
{
    spx__auto_facts f = {op, o, A->rows, A->cols, A->nnz, 0, 0.0, 0};
    for (int64_t i = 0; !A->dev.on && i < A->rows; i++) {
        int64_t len = spx__row_off(A, i + 1) - spx__row_off(A, i);
        if (len > f.rmax) f.rmax = len;
    }
    f.rave = A->rows ? (double)A->nnz / (double)A->rows : 0.0;
    f.simd = spx__isa_active() != SPX__ISA_SCALAR;
    return f;
}

const spx_format_ops *spx__auto_format(const spx_matrix *A, spx_operation op,
                                       const spx_plan_opts *o)
{
    spx__auto_facts f = facts_of(A, op, o);
    const spx_format_ops *best = NULL;
    double best_score = 0.0;
    for (int i = 0; spx__formats[i]; i++) {
        const spx_format_ops *c = spx__formats[i];
        if (!c->suits || (A->dev.on && !c->device_matrix) || !(c->devices & (unsigned)o->device) ||
            !(c->precisions & SPX__TYPE_BIT(o->precision)) ||
            !(spx__format_operations(c) & SPX__OP_BIT(op)))
            continue;
        double score = c->suits(A, &f);
        if (score > best_score) {
            best = c;
            best_score = score;
        }
    }
    return best;
}
