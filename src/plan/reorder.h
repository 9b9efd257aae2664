/* The plan parameter reorder=rcm|degree|none, handled once for every SpMV
 * format, CPU and CUDA: the plan stores A' = P A P^T (src/core/order.h) and builds its
 * format on A'; each product gathers x' = P x (and y' = P y when beta reads
 * y), runs y' = alpha A' x' + beta y', and scatters y = P^T y'. With
 * vectors=permuted the caller's x and y are x' and y' and a product is the
 * format's call on A' alone. */
#ifndef SPX_PLAN_REORDER_H
#define SPX_PLAN_REORDER_H

#include <stddef.h>

#include "plan/format.h"
#include "spx.h"

typedef struct spx__reorder spx__reorder;

/* When o->params has the key reorder or vectors: *R holds o->params without
 * them (o->params then points there, or is NULL when nothing is left) and, for
 * rcm and degree, A' = P M P^T. Without either key, *R = NULL and o is
 * unchanged, except where AUTO orders by itself (a CUDA plan of format auto:
 * auto_order.c): *R then holds reorder=degree. Errors: SPX_ERR_BAD_PARAM for an unknown mode or
 * vectors value, a repeated key, a non-square M, or vectors=permuted without rcm or degree. CUDA
 * plans (o->device) keep the permutation and x', y' on the device. */
spx_status spx__reorder_create(const spx_matrix *M, spx_plan_opts *o, spx__reorder **R);

/* A' to prepare the format on, or NULL (R NULL or reorder=none). */
const spx_matrix *spx__reorder_matrix(const spx__reorder *R);

/* After the format's analyze: frees A' unless the format borrows it. */
void spx__reorder_prepared(spx__reorder *R, int format_borrows);

/* y = alpha*op(A)*x + beta*y through the format's spmv on A'; x of type
 * xtype (spx_plan_x_type). CPU plans are thread-safe: the plan's vectors x',
 * y' go to one caller at a time (atomic try-lock), the others use vectors
 * allocated for the call. CUDA plans: device vectors, one call at a time. */
spx_status spx__reorder_spmv(spx__reorder *R, const spx_format_ops *ops, void *state, double alpha,
                             const void *x, spx_type xtype, double beta, void *y);

/* perm[k] = P's index in M of row k of A' for k < n (n = M's rows), the
 * identity when R is NULL or has no ordering. */
void spx__reorder_permutation(const spx__reorder *R, int64_t n, int64_t *perm);

/* 1 when R orders (rcm or degree), 0 for NULL or reorder=none. */
int spx__reorder_has_order(const spx__reorder *R);

/* map[e] = the index in A' = P M P^T's CSR order of entry e of M, the
 * matrix R ordered (nnz entries, the caller's; R orders; M->nnz <=
 * INT32_MAX): recorded when A' was made for CUDA plans, else computed from
 * M now (plan/entry_map.c). */
spx_status spx__reorder_entry_map(const spx__reorder *R, const spx_matrix *M, int threads,
                                  int32_t *map);
/* The recorded entry map, now the caller's (spx__free), or NULL; R keeps none. */
int32_t *spx__reorder_take_entry_map(spx__reorder *R);

size_t spx__reorder_bytes(const spx__reorder *R);

/* Appends " reorder=MODE" to buf (NUL-terminated, len bytes). */
void spx__reorder_describe(const spx__reorder *R, char *buf, size_t len);

void spx__reorder_destroy(spx__reorder *R); /* NULL is a no-op */

#endif
