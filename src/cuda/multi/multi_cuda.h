/* The CUDA side of MSREP's multi-device executor (src/multi/): a device per
 * host thread, a stream per part, ordering between parts' streams, copies
 * between devices, and the column partitions' reduction on the device
 * (y += x, elementwise, so that partial vectors are summed in part order and
 * the result is the same bits every call).
 * - set_device, get_device: the CUDA device current for the calling host
 *   thread (the executor puts the caller's back when it returns);
 * - stream_create: a non-blocking stream on the current device;
 * - stream_wait: work later queued on stream waits for event (any device);
 * - copy_peer: bytes from src on src_device to dst on dst_device, on stream;
 * - enable_peer: let device reach peer's memory directly (NVLink or PCIe
 *   peer to peer) where the two can, so that peer copies need no staging;
 *   a no-op where they cannot or already do; peer_on: whether device
 *   reaches peer's memory so (enabled by SpX), so that its kernels may read it;
 * - pci_bus_id: the device's PCI address ("0000:1b:00.0"), len bytes at most;
 * - vector_add: y[i] += x[i], n entries of t (SPX_F64 double, else float);
 * - partial_sum: pcsc's parts on one GPU, table[0..parts) and runs[0..nruns)
 *   (spx__multi_run, device memory): for every line r of a run, its owner q,
 *     y[r] = s + sum over i in part order of v_i[r] where span_lo <= r < span_hi,
 *   s = beta*y[r] (rounded once to t) and every i, or with beta == 0, v_q[r]
 *   (0 outside q's span) and every i but q; part in_y's partial is y itself
 *   (-1: none), written over its span only, read there before its line is
 *   written; longest: the most lines of a run;
 * - owner_sum: pcsc across GPUs, lines of one owner q on q's device, the
 *   same sums as partial_sum's: s->t[0..s->n) the parts whose spans reach
 *   q's lines, in part order, each read in place (this device's memory or a
 *   peer's it reaches), s->own q's entry (-1: none); the lines summed are
 *   s->lo[k]..s->hi[k] for k < s->runs (lines left out are final already);
 *   one launch instead of a scale and an add per part;
 * - pull: the copies of s, each from a peer's memory this device reaches
 *   (peer_on) or its own, by this device's threads, one launch on stream
 *   (src/cuda/multi/pull.cu): the halo of resident calls across GPUs;
 * - barrier: one member's part of a barrier of flags among several GPUs'
 *   streams (below), cheaper than events between devices from 3 GPUs on;
 * - capture_begin: work queued from this host thread on stream (and on the
 *   streams that wait for its events) is recorded, not run, until
 *   capture_end, which makes it an executable graph (*exec; NULL and an
 *   error when the capture failed: a call that may not be captured, such as
 *   an allocation or a wait for the host, was made meanwhile);
 * - graph_launch: run exec on stream; graph_destroy: free it;
 * - host_alloc: *p = bytes of pinned host memory, reachable from every
 *   device (the MPI executor's exchange buffers), NULL and SPX_ERR_OOM on
 *   failure; host_free: free it (NULL: nothing);
 * - ipc_handle: handle (SPX__CUDA_IPC_BYTES) names the device allocation at
 *   dptr for another process on this host (src/cuda/multi/ipc.cu);
 *   ipc_open: *dptr = that allocation mapped here, on the current device
 *   (peer access enabled as needed), NULL and an error when it cannot be;
 *   ipc_readable: whether kernels on device may read such a mapping (its
 *   memory is on device, or on a peer device reaches; 0 when unknown);
 *   ipc_close: unmap it. */
#ifndef SPX_CUDA_MULTI_H
#define SPX_CUDA_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/gateway.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pcsc on one device: lines [lo, hi) that owner merges (its own lines but
 * every part's alone rows: src/multi/multi_alone.c). */
typedef struct spx__multi_run {
    int64_t lo, hi;
    int owner;
} spx__multi_run;

/* One pcsc part's partial y as partial_sum reads it. */
typedef struct spx__cuda_partial {
    const void *v;             /* its partial y on the device: row r at v[r - base] */
    int64_t base;              /* the row of v[0] (its output's first) */
    int64_t span_lo, span_hi;  /* the lines it reaches */
} spx__cuda_partial;

/* pcsc across GPUs: the partials one owner sums and the runs of lines it
 * sums (owner_sum), passed by value; an owner reached by more parts, or with
 * more runs, merges by adds (multi_resident_merge.c). */
#define SPX__CUDA_OWNER_PARTS 8
#define SPX__CUDA_OWNER_RUNS 8
typedef struct spx__cuda_owner_table {
    spx__cuda_partial t[SPX__CUDA_OWNER_PARTS];
    int64_t lo[SPX__CUDA_OWNER_RUNS], hi[SPX__CUDA_OWNER_RUNS];
    int n;    /* entries of t */
    int own;  /* the owner's own entry, -1: none */
    int runs; /* entries of lo and hi */
} spx__cuda_owner_table;

/* Copies that a device's threads make from its peers' memory (pull): range
 * k copies r[k].n entries of es bytes (4 or 8) from r[k].src to r[k].dst. */
#define SPX__CUDA_PULL_RANGES 8
#define SPX__CUDA_PULL_BLOCKS 128 /* blocks a range alone (src/multi/multi.h: measured) */
typedef struct spx__cuda_pull_range {
    void *dst;
    const void *src;
    int64_t n;
} spx__cuda_pull_range;
typedef struct spx__cuda_pull_table {
    spx__cuda_pull_range r[SPX__CUDA_PULL_RANGES];
    int n;      /* ranges */
    int es;     /* bytes an entry */
    int blocks; /* thread blocks (of 256) a range at most */
} spx__cuda_pull_table;

#define SPX__CUDA_IPC_BYTES 64 /* sizeof(cudaIpcMemHandle_t) */

/* A barrier among the streams of n devices (barrier, src/cuda/multi/barrier.cu):
 * member me's kernel on its stream; the work queued after it on any member's
 * stream comes after the work queued before it on every member's. mine:
 * n + 1 counters on me's device, zero at first (n flags, one a member, then
 * me's own count); peer[h]: member h's counter for me (&its mine[me]);
 * late: an int of pinned host memory, set to 1 by a member that waited
 * more than timeout_ns (it then goes on; SPX__CUDA_BARRIER_NS by default). */
#define SPX__CUDA_BARRIER_MAX 16
#define SPX__CUDA_BARRIER_NS 30000000000ull /* 30 s */
typedef struct spx__cuda_barrier_args {
    unsigned long long *mine;
    unsigned long long *peer[SPX__CUDA_BARRIER_MAX];
    int *late;
    unsigned long long timeout_ns;
    int me, n;
} spx__cuda_barrier_args;

#define SPX__CUDA_MULTI_API(S, Q, V)                                                               \
    S(spx__cuda_set_device, (int device))                                                          \
    S(spx__cuda_get_device, (int *device))                                                         \
    S(spx__cuda_stream_create, (void **stream))                                                    \
    V(spx__cuda_stream_destroy, (void *stream))                                                    \
    S(spx__cuda_stream_wait, (void *stream, void *event))                                          \
    S(spx__cuda_copy_peer,                                                                         \
      (void *dst, int dst_device, const void *src, int src_device, size_t bytes, void *stream))    \
    S(spx__cuda_enable_peer, (int device, int peer))                                               \
    Q(int, spx__cuda_peer_on, (int device, int peer), 0)                                           \
    S(spx__cuda_pci_bus_id, (int device, char *id, int len))                                       \
    S(spx__cuda_vector_add, (void *y, const void *x, int64_t n, spx_type t, void *stream))         \
    S(spx__cuda_partial_sum,                                                                       \
      (void *y, double beta, const void *table, int parts, const void *runs, int nruns, int in_y,  \
       int64_t longest, spx_type t, void *stream))                                                 \
    S(spx__cuda_owner_sum,                                                                         \
      (void *y, double beta, const spx__cuda_owner_table *s, spx_type t, void *stream))            \
    S(spx__cuda_pull, (const spx__cuda_pull_table *s, void *stream))                               \
    S(spx__cuda_barrier, (const spx__cuda_barrier_args *a, void *stream))                          \
    S(spx__cuda_capture_begin, (void *stream))                                                     \
    S(spx__cuda_capture_end, (void *stream, void **exec))                                          \
    S(spx__cuda_graph_launch, (void *exec, void *stream))                                          \
    V(spx__cuda_graph_destroy, (void *exec))                                                       \
    S(spx__cuda_host_alloc, (void **p, size_t bytes, const char *what))                            \
    V(spx__cuda_host_free, (void *p))                                                              \
    S(spx__cuda_ipc_handle, (const void *dptr, void *handle))                                      \
    S(spx__cuda_ipc_open, (const void *handle, void **dptr))                                       \
    Q(int, spx__cuda_ipc_readable, (const void *mapped, int device), 0)                            \
    V(spx__cuda_ipc_close, (void *dptr))

SPX__CUDA_DECLARE(SPX__CUDA_MULTI_API)

#ifdef __cplusplus
}
#endif
#endif
