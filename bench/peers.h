/* Peers: other libraries' SpMV and SpGEMM behind one small interface of the
 * bench's own, so that `spx bench --peers` runs them in the same process, on
 * the same matrix and the same x (SpMV) or B (SpGEMM), checked against the
 * same reference. Each peer is one file in bench/peers/ defining a
 * spx_bench_peer (name "peer-lib-variant"), compiled in when its library is
 * found (bench/CMakeLists.txt). Peers read the public matrix through
 * spx_matrix_csr (bench_csr_view) and report failures with bench_fail. */
#ifndef SPX_BENCH_PEERS_H
#define SPX_BENCH_PEERS_H

#include <stddef.h>

#include "spx.h"

typedef struct spx_bench_peer_opts {
    spx_type precision;
    int threads; /* CPU threads; 0: OpenMP's default */
} spx_bench_peer_opts;

typedef struct spx_bench_peer {
    const char *name;        /* "peer-cusparse-csr", ... */
    spx_operation operation; /* SPX_OP_SPMV or SPX_OP_SPGEMM */
    unsigned devices;        /* SPX_DEV_CPU or SPX_DEV_CUDA */
    unsigned precisions;     /* bit (1u << spx_type) per precision */
    /* Prepare A (SpMV; B is NULL) or A and B (SpGEMM) in the peer's own form. */
    spx_status (*prepare)(const spx_matrix *A, const spx_matrix *B, const spx_bench_peer_opts *o,
                          void **state);
    /* SpMV: y = alpha*A*x + beta*y on the device's vectors (double for f64,
     * float for f32 and f16), beta == 0 not reading y. */
    spx_status (*spmv)(void *state, double alpha, const void *x, double beta, void *y);
    /* SpGEMM: C = A*B in the peer's own form, kept in the state (replacing
     * the previous C); the device is synchronized when it returns. */
    spx_status (*spgemm)(void *state);
    /* SpGEMM: the last C as a new host matrix, for the check (not timed). */
    spx_status (*result)(void *state, spx_matrix **C);
    size_t (*bytes)(const void *state); /* memory the prepared form holds */
    void (*destroy)(void *state);
    /* Optional: what the peer chose ("alg=ALG3"), into buf. */
    void (*describe)(const void *state, char *buf, size_t len);
} spx_bench_peer;

/* Peers compiled into this build, NULL-terminated (bench/peers.c). */
extern const spx_bench_peer *const spx_bench_peers[];

#endif
