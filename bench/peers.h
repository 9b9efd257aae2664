/* Peers: other libraries' SpMV, SpGEMM, SpMM and SDDMM behind one small
 * interface of the bench's own, so that `spx bench --peers` runs them in the
 * same process, on the same matrix and the same x (SpMV), B (SpGEMM), X
 * (SpMM) or X and Y (SDDMM), checked against the same reference. Each peer
 * is one file in bench/peers/ defining a spx_bench_peer (name
 * "peer-lib-variant"), compiled in when its library is found
 * (bench/CMakeLists.txt). Peers read the public matrix through
 * spx_matrix_csr (bench_csr_view) and report failures with bench_fail. */
#ifndef SPX_BENCH_PEERS_H
#define SPX_BENCH_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

typedef struct spx_bench_peer_opts {
    spx_type precision;
    int threads; /* CPU threads; 0: OpenMP's default */
} spx_bench_peer_opts;

/* What the prepare of an SpMM or SDDMM peer receives: its o points to the
 * `base` of one of these (the bench passes one to the peers of SPX_OP_SPMM
 * and SPX_OP_SDDMM only), so that descriptors, workspace and tuning are made
 * for the calls to come, which all have this shape. */
typedef struct spx_bench_spmm_peer_opts {
    spx_bench_peer_opts base;
    int64_t k, ldx, ldy; /* columns of X and Y, their leading dimensions */
} spx_bench_spmm_peer_opts;

typedef struct spx_bench_peer {
    const char *name;        /* "peer-cusparse-csr", ... */
    spx_operation operation; /* SPX_OP_SPMV, SPX_OP_SPGEMM, SPX_OP_SPMM or SPX_OP_SDDMM */
    unsigned devices;        /* SPX_DEV_CPU or SPX_DEV_CUDA */
    unsigned precisions;     /* bit (1u << spx_type) per precision */
    /* Prepare A (SpMV, SpMM, SDDMM; B is NULL) or A and B (SpGEMM) in the
     * peer's own form (SpMM, SDDMM: o is a spx_bench_spmm_peer_opts). */
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
    /* SpMM: Y = alpha*A*X + beta*Y, X (cols x k) and Y (rows x k) dense and
     * row-major with leading dimensions ldx and ldy, of the element type and
     * on the device of spmv's vectors, beta == 0 not reading Y; called with
     * the shape given to prepare (a peer may refuse another with
     * SPX_ERR_INVALID_ARG). */
    spx_status (*spmm)(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                       double beta, void *Y, int64_t ldy);
    /* SDDMM: Z = alpha*(X*Y^T at A's entries) + beta*Z, X (rows x k) and Y
     * (cols x k) dense and row-major with leading dimensions ldx and ldy, Z
     * one value per entry of A in A's CSR order, of the element type and on
     * the device of spmv's vectors, beta == 0 not reading Z; called with the
     * shape given to prepare. A peer with sddmm_values keeps the product in
     * its own form instead and leaves Z alone. */
    spx_status (*sddmm)(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                        const void *Y, int64_t ldy, double beta, void *Z);
    /* Optional, SDDMM: the last product's values into the host array Z, in
     * A's order, for the check (not timed); NULL when sddmm writes Z. */
    spx_status (*sddmm_values)(void *state, void *Z);
} spx_bench_peer;

/* SpMM and SDDMM peers that prepared for one shape: SPX_OK when a call's k,
 * ldx and ldy are those of *prepared, else SPX_ERR_INVALID_ARG naming both
 * (bench_fail). */
spx_status bench_spmm_peer_shape(const char *peer, const spx_bench_spmm_peer_opts *prepared,
                                 int64_t k, int64_t ldx, int64_t ldy);

/* Peers compiled into this build, NULL-terminated (bench/peers.c). */
extern const spx_bench_peer *const spx_bench_peers[];

#endif
