/* What the librsb peers (rsb.c and rsb_sym.c: SpMV, rsb_spmm.c: SpMM,
 * rsb_spgemm.c: SpGEMM) share: the library's one-time start, its errors as
 * bench messages, an RSB matrix from a CSR view, and the SpMV peers' tuning,
 * product and size. librsb keeps process-global state: rsb_lib_init runs once,
 * lazily, on the first prepare (never rsb_lib_exit: the bench runs to the end
 * of the process), and the executing thread count is global, so each peer
 * sets it again before its own calls. */
#ifndef SPX_BENCH_PEERS_RSB_PEER_H
#define SPX_BENCH_PEERS_RSB_PEER_H

#include <rsb.h>

#include "bench_internal.h"

spx_status rsb_peer_fail(rsb_err_t e, const char *call);
spx_status rsb_peer_init(void);
spx_status rsb_peer_threads(rsb_int_t n);
/* The RSB matrix of A (32-bit indices, values as doubles); SPX_ERR_UNSUPPORTED
 * when A's sizes pass them. */
spx_status rsb_peer_matrix(const bench_csr *A, struct rsb_mtx_t **m);
/* rsb_tune_spmm for SpMV (one right-hand side, op N) on threads threads;
 * *speedup: the gain it reports. */
spx_status rsb_peer_tune_spmv(struct rsb_mtx_t **m, rsb_int_t threads, double *speedup);
/* y = alpha*A*x + beta*y by rsb_spmv on threads threads. */
spx_status rsb_peer_spmv(struct rsb_mtx_t *m, rsb_int_t threads, double alpha, const void *x,
                         double beta, void *y);
/* The RSB matrix's bytes as librsb counts them (0 when it does not say). */
size_t rsb_peer_bytes(const struct rsb_mtx_t *m);

#endif
