/* What the librsb peers (rsb.c: SpMV, rsb_spgemm.c: SpGEMM) share: the
 * library's one-time start, its errors as bench messages, and an RSB matrix
 * from a CSR view. librsb keeps process-global state: rsb_lib_init runs once,
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

#endif
