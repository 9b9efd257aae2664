/* AUTO's degree ordering of CUDA SpMV plans (the rule and its measurements:
 * auto_order.c). */
#ifndef SPX_PLAN_AUTO_ORDER_H
#define SPX_PLAN_AUTO_ORDER_H

#include "spx.h"

/* 1 when a plan of M with o (format auto, no reorder= given) should order M
 * by degree; O(nnz) on the plan's threads, for matrices past the size floor. */
int spx__auto_orders(const spx_matrix *M, const spx_plan_opts *o);

#endif
