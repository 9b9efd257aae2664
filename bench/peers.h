/* Peers: other libraries' SpMV behind the same ops struct as SpX's formats,
 * so that `spx bench --peers` runs them in the same process, on the same
 * matrix and the same x, checked against the same reference. Each peer is
 * one file in bench/peers/ defining a spx_format_ops (name "peer-lib-variant"),
 * compiled in when its library is found (bench/CMakeLists.txt). */
#ifndef SPX_BENCH_PEERS_H
#define SPX_BENCH_PEERS_H

#include "plan/format.h"

/* Peers compiled into this build, NULL-terminated (bench/peers.c). */
extern const spx_format_ops *const spx_bench_peers[];

#endif
