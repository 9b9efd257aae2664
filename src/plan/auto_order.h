/* AUTO's degree ordering of CUDA SpMV plans (the rule and its measurements:
 * auto_order.c). */
#ifndef SPX_PLAN_AUTO_ORDER_H
#define SPX_PLAN_AUTO_ORDER_H

#include "spx.h"

/* 1 when a plan of M with o (format auto, no reorder= given) should order M
 * by degree; O(nnz) on the plan's threads, for matrices past the size floor. */
int spx__auto_orders(const spx_matrix *M, const spx_plan_opts *o);

/* The share of M's nonzeros in its 1% of columns with the most entries, as
 * AUTO's rules read it: from a sample of max(2^20, 4 a column) nonzeros
 * (spx__hot_share_sampled), O(cols + samples) instead of a count of every
 * nonzero's column; -1 when it cannot be counted. */
double spx__auto_hot_share(const spx_matrix *M);

/* The params of a plan AUTO must not order: the parts of a multi-device or
 * distributed plan, so that every part count multiplies A in the same order
 * (N parts then compare with one; the ordering is not done across parts).
 * *out: "reorder=none" before params, owned by the caller; NULL where
 * params name reorder= or vectors= already (take them as they are). */
spx_status spx__params_unordered(const char *params, char **out);

#endif
