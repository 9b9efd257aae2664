/* MSREP's multi-device executor: a plan of plans. op(A) is cut into parts
 * (partition.h), each an ordinary single-device plan of any registered
 * format (AUTO per part) on the CPU or on a CUDA device (several parts on
 * one GPU each get a stream), made and driven by a host thread of its own.
 *
 * Split parts (row kinds): a part whose first line is shared with a part on
 * its own device (its owner, or another part touching that line) has two
 * plans: its own lines (the rest) and its piece of the shared line (the
 * ghost), both in the format AUTO picks for the whole part, so that parts of
 * one device never write the same line of a shared y. Where the part writes
 * a buffer of its lines, the ghost goes to entry 0 and the rest after it: the
 * same layout, and for row-local formats the same bits, as one plan.
 *
 * A call y = alpha*op(A)*x + beta*y with host vectors:
 *   distribute  the first part on each GPU (its leader) copies the x entries
 *               that GPU's parts read; a part whose output is not y itself
 *               starts it from y where it owns beta's share (below);
 *   spmv        every part runs its plan: out = alpha*A_part*x_part + b*out;
 *   merge       row kinds (pcsr, pcoo, rows): a part owns its lines but a
 *               shared first one; interior lines are copied to y, a shared
 *               line is the sum of its parts' values in part order. pcsc:
 *               part i gives a partial y over its span, the rows its
 *               columns touch [span_lo, span_hi), and runs with b = 0; part
 *               0 owns beta: its output is all of y, its span from its plan
 *               and the other rows beta*y (0 with beta == 0, y unread); y =
 *               ((out_0 + out_1) + ...) in part order, each part's over its
 *               span, on part 0's GPU when every part is on a GPU (peer
 *               copies between devices), else on the host.
 * pcsc's spans: a part's plan is of its CSC block with A's rows shifted by
 * -span_lo and span_hi - span_lo columns, so its SpMV writes its span only
 * (nothing for a part without nonzeros). The shifted row indices are a copy
 * the part owns: 4 bytes a nonzero of A (8 where a span passes 2^31 - 1
 * rows); offsets and values stay borrowed from the CSC.
 * pcsc's alone rows (plans whose parts share one device): the rows of a
 * part's span that no other part's span reaches, [alone_lo, alone_hi) (the
 * longest such run; set where it is at least half the span), are a plan of
 * their own, its two ends two more (pieces 0 and 2, either may be empty).
 * A resident call writes the alone rows straight into y with the caller's
 * beta, as the merge would have (beta*y plus one partial), and merges only
 * the other lines (P->runs): on a banded matrix cut in column blocks, the
 * merge of about 2n entries becomes one of the overlaps. The pieces' CSRs
 * are copies (rows, shifted columns and values: 12 bytes a nonzero). Host
 * vector calls write all three into the part's output as one span.
 * Sums in a fixed order and per-part plans that repeat their bits: for a
 * fixed part count, y is the same bits every call.
 *
 * A call with resident vectors (spx_multi_vector, multi_resident.c) keeps x
 * and y on the parts' devices. The parts of one device form a group
 * (multi_groups.c) that shares one full-length buffer of each vector there;
 * part i owns the lines own(i) (its lines but a shared first one; the owned
 * lines tile 0..n-1), held in its group's buffer:
 *   distribute  each group copies into its x buffer, from the groups that
 *               own them, the entries of x its parts read (the span of their
 *               columns for row kinds, their columns for pcsc): nothing when
 *               every part is on one device; a GPU that reaches its peers'
 *               memory reads them with its own threads, one launch;
 *   spmv        row kinds write their lines into y's buffer: a split part its
 *               own lines, its ghost into a slot of its group; an unsplit
 *               part with a shared first line (its owner on another device)
 *               writes it as a ghost starting from 0; pcsc writes its partial
 *               y over its span into its output buffer (beta == 0: the
 *               group's first part of a one-part group, or of a one-device
 *               plan, into y's buffer, the rest of which keeps the old y);
 *   merge       row kinds: each ghost is added to its owner's line, in part
 *               order; pcsc: owner q sets y(own(q)) = beta*y + the parts'
 *               partial y over own(q) (only where their rows reach), in part
 *               order (beta == 0: its own partial where it reaches, 0
 *               elsewhere, then the others in part order; never the old y).
 *               One GPU: the calling thread queues every part (the first
 *               call of an x, y, alpha and beta is recorded as a CUDA graph
 *               that later ones replay: multi_graph.c); a split part
 *               adds its ghost on its own stream once the part before has
 *               written the line (an event), pcsc's partials are summed by
 *               one kernel behind the parts; one host wait. CPU parts: a
 *               thread each, then loops (multi_combine.c). Several devices:
 *               a thread per group, then the calling thread merges, through
 *               peer copies (multi_resident_merge.c). */
#ifndef SPX_MULTI_MULTI_H
#define SPX_MULTI_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "core/keep.h"
#include "cuda/multi/multi_cuda.h" /* spx__multi_run */
#include "multi/partition.h"

#define SPX__MULTI_MAGIC 0x5350584d554c5449ull /* "SPXMULTI" */
#define SPX__MULTI_EVENTS                                                                          \
    6 /* start, after init (halo), after SpMV, after copy back (merge),                            \
         merge start (several GPUs), meet (spx__multi_meet) */
#define SPX__MULTI_MEET 5

typedef struct spx__multi_part {
    spx__part part;          /* boundaries and CSR view */
    int device;              /* SPX_MULTI_CPU or a CUDA device */
    int leader;              /* CUDA: the first part on its device (uploads x) */
    int group;               /* its device's group (P->group) */
    int numa_node;           /* node its host memory is placed on (numa.h); -1: none */
    int split;               /* row kinds: its shared first line has a plan of its own */
    spx_plan *plan;          /* the part's plan (split: of its lines but the first) */
    spx_plan *ghost;         /* split: the plan of its piece of its first line */
    spx_matrix *split_view[2]; /* split: the CSRs of plan and ghost, owned */
    spx_matrix *span_view;     /* pcsc with nonzeros: its CSR, columns shifted by -span_lo, owned
                                  (with alone rows: piece 1's, columns shifted by -alone_lo) */
    void *span_cols;           /* and those columns (32-bit, 64 past 2^31 - 1), owned */
    int64_t alone_lo, alone_hi; /* pcsc on one device: the rows only its span reaches (multi.h;
                                   none: equal); plan is then piece 1's */
    spx_plan *end_plan[2];      /* pieces 0 and 2: rows [span_lo, alone_lo), [alone_hi, span_hi)
                                   (NULL without nonzeros) */
    spx_matrix *end_view[2];    /* their CSRs, owned */
    int overlap;                /* row kinds across GPUs: plan is of its entries in its device's
                                   own columns, rest_plan of the others (multi_overlap.c) */
    spx_matrix *own_view;       /* overlap: plan's CSR, owned */
    int64_t rest_cut[2];        /* overlap: the rest's pieces, its lines [0, cut[0]) and
                                   [cut[1], n) */
    spx_plan *rest_plan[2];     /* and their plans (NULL: an empty piece) */
    spx_matrix *rest_view[2];   /* and CSRs, owned */
    void *slot;              /* split, resident calls: its ghost, in its group's slots */
    void *stream;            /* CUDA: the part's stream */
    int64_t x_begin, x_len;  /* the entries of x it reads */
    int64_t y_begin, y_len;  /* its output: entries y_begin.. of y (pcsc: its span; part 0
                                all of y, its plan writing its span) */
    double beta_share;       /* 1: its output starts from y (times beta); 0: from nothing */
    void *out;               /* partial y (device memory on a GPU); NULL: writes into y */
    void *host_out;          /* pcsc reduced on the host, GPU part: out copied back here */
    void *x_dev;             /* leaders: x[x_lo, x_hi) on their device */
    int64_t x_lo, x_hi;
    void *ev[SPX__MULTI_EVENTS];
    void *ev_x[2];           /* leaders: around the upload of x */
    unsigned char edge[2][8];/* row kinds: its first and last line's values (vector type) */
    int64_t span_lo, span_hi;/* the indices its entries touch, [lo, hi): x's for row kinds,
                                y's for pcsc (none: 0, 0) */
    void *scratch;           /* resident calls across devices: max(1, |own|) entries on its
                                device, where other devices' values for its lines land */
    double partition_ms, prepare_ms;
    double distribute_ms, spmv_ms, merge_ms; /* last call */
    spx_status status;       /* last step's status in the part's thread */
    char message[256];       /* and its message */
} spx__multi_part;

/* Thread blocks of 256 a halo range takes when a GPU reads it from its
 * peers (spx__cuda_pull): alone, and beside an overlapped SpMV (multi_
 * overlap.c), which needs the SMs. On 4 H200s (run IB, 2026-11-27; R-MAT
 * scale 22: 24 MB a GPU) 512 a range took 0.136 ms, 128 0.097 and 32 0.098;
 * lap3d7:250's call was fastest with 128 (0.140-0.144 ms against 0.145-0.151
 * with 32), R-MAT's overlapped call with 32 (0.299-0.315 against
 * 0.342-0.352 with 128). */
#define SPX__MULTI_PULL_BLOCKS SPX__CUDA_PULL_BLOCKS
#define SPX__MULTI_PULL_BLOCKS_BESIDE 32

/* x[lo, hi) copied into a group's buffer from the group holding part src. */
typedef struct spx__multi_halo {
    int src;
    int64_t lo, hi;
} spx__multi_halo;

/* The parts of one device (resident vectors share its buffers). */
typedef struct spx__multi_group {
    int device;              /* SPX_MULTI_CPU or a CUDA device */
    int lead;                /* its first part: halo and merges run on its stream */
    int parts;               /* how many parts it has */
    int ghosts;              /* its split parts (resident calls) */
    void *slots;             /* their ghosts, in part order, on its device */
    void *partials;          /* pcsc on one GPU: spx__cuda_partial per part, device memory */
    void *runs;              /* and P->runs there */
    spx__multi_halo *halo;   /* several devices: what its parts read from other groups */
    int halos;
    int pull;          /* its GPU reads the halo from its peers itself (spx__cuda_pull),
                          else copies */
    int pull_blocks;   /* thread blocks a halo range: fewer beside an overlapped SpMV */
    void *halo_stream; /* several GPUs: its halo's stream, beside its parts' */
} spx__multi_group;

typedef struct spx__multi_barrier spx__multi_barrier;

/* A resident call on GPUs recorded as a CUDA graph, for the x and y buffers,
 * alpha and beta it was recorded with (multi_graph.c). */
typedef struct spx__multi_graph {
    int off;                 /* no_graph (spx_multi_opts, spx_multi_set_graph), or a
                                recording failed: queue parts */
    void *exec;              /* the executable graph, NULL: none yet */
    void **x, **y;           /* the device buffers it reads and writes, every group's (owned
                                arrays of P->groups: another vector may share one group's
                                buffer address with a freed one, not all of them) */
    double alpha, beta;
    void *start, *end;       /* events on part 0's stream around the last replay (the
                                parts' own events, recorded inside a graph, time nothing) */
    int replayed;            /* the last call was a replay: its times are start..end */
    int no_wait;             /* a replay is not waited for: a solve with its registers on the
                                GPUs orders its streams after it (multi_solve_ahead.c) */
    int capturing;           /* a solver's iteration is being recorded: a call is queued only,
                                neither replayed nor waited for (multi_solve_graph.c) */
} spx__multi_graph;

/* Queue a resident call on the parts' streams, joined into part 0's. */
typedef spx_status (*spx__multi_queue_fn)(const spx_multi_plan *P, double alpha,
                                          const spx_multi_vector *x, double beta,
                                          spx_multi_vector *y);
/* Run the call queue() describes: replay the graph recorded for the same x,
 * y, alpha and beta, else record one and run it; with no graph (off, or the
 * recording failed: off from then on) queue() itself. Waits for part 0's
 * stream. */
spx_status spx__multi_graph_run(spx_multi_plan *P, double alpha, const spx_multi_vector *x,
                                double beta, spx_multi_vector *y, spx__multi_queue_fn queue);
void spx__multi_graph_free(spx_multi_plan *P);    /* the graph; a new one may be recorded */
void spx__multi_graph_destroy(spx_multi_plan *P); /* the graph and its events */

struct spx_multi_plan_s {
    uint64_t magic;
    spx_partition kind;
    int parts;
    spx_type vtype;          /* vectors: SPX_F64 double, else float */
    size_t es;               /* bytes a vector entry */
    int64_t rows, cols;      /* of op(A) */
    int any_cuda;
    int overlap;             /* spx_multi_opts.overlap: row parts across GPUs multiply while
                                the halo arrives, 0 where it pays (multi_overlap.c) */
    int gpu_reduce;          /* pcsc, every part on a GPU: summed on part 0's GPU */
    void *reduce_buf;        /* gpu_reduce across devices: a peer copy lands here */
    spx_matrix *source;      /* op T's A^T or pcsc's CSC when converted, owned */
    int64_t *coo_lines;      /* pcoo: the row of each nonzero, owned */
    spx__multi_part *part;
    int groups;              /* distinct devices among the parts */
    spx__multi_group *group;
    int resident_ready;      /* the groups' resident resources exist */
    int times_on_gpu;        /* the last call was a one-GPU or replayed resident call: its
                                times are read from its events when asked (multi_info.c) */
    spx__multi_graph graph;  /* GPUs, resident calls: the last call recorded (multi_graph.c) */
    const char *pcsc_format[2]; /* pcsc with format auto, op N: AUTO's pick for A as a whole,
                                   for CPU [0] and CUDA [1] parts (NULL: AUTO per part) */
    spx__multi_run *runs;       /* pcsc on one device: the lines the merge sums, owned */
    int nruns;
    spx_multi_timing times;
    spx__keep solve_keep; /* a solver's workspace for the next solve (solve/solve.c) */
    spx__multi_barrier *barrier; /* several GPUs: the leads' barrier of flags, NULL: events
                                    (multi_barrier.c) */
};

/* Record the status and message of a step that ran in part p's thread. */
void spx__multi_note(spx__multi_part *p, spx_status st);
/* The first part's failure, raised again on the calling thread; SPX_OK if none. */
spx_status spx__multi_failure(const spx_multi_plan *P, const char *step);

/* Plan time, on the calling thread: which parts are split (multi_groups.c). */
void spx__multi_mark_splits(spx_multi_plan *P, const spx_matrix *M);
/* Plan time, in part i's thread: boundaries, view, span, stream (start);
 * then, once every part's span is known and the alone rows set
 * (spx__multi_alone_rows, on the calling thread), its plans and buffers
 * (finish). */
spx_status spx__multi_part_start(spx_multi_plan *P, const spx_matrix *M, int i);
spx_status spx__multi_part_finish(spx_multi_plan *P, const spx_plan_opts *o, int i);
/* pcsc with one device group: each part's alone rows and P->runs. */
spx_status spx__multi_alone_rows(spx_multi_plan *P);
/* Plan time, on the calling thread after every part: leaders' x buffers. */
spx_status spx__multi_leaders(spx_multi_plan *P);
void spx__multi_part_destroy(spx_multi_plan *P, int i);

/* Part p's product into its lines: first = its first line's entry, rest =
 * the entries of the lines after it (one plan: rest must be first + 1). In
 * halves: half 0 what needs only x's entries its device owns (an overlapping
 * part's own columns; nothing for other parts), half 1 the rest (everything
 * for other parts); SPX__MULTI_WHOLE both. */
#define SPX__MULTI_WHOLE 2
spx_status spx__multi_part_spmv(const spx_multi_plan *P, const spx__multi_part *p, int half,
                                double alpha, const void *x, double beta, void *first, void *rest);

/* Overlapping row parts (multi_overlap.c): whether part p is one (plan
 * time, groups, splits and spans known; by default where its halo is at
 * least 1/SPX__MULTI_OVERLAP_SHARE of its nonzeros); its plans, in its thread; its rest's
 * product into its lines from first (+= alpha*A_rest*x, piece by piece). */
/* The columns a part's device owns: n ranges [lo[k], hi[k]). */
typedef struct spx__multi_owned {
    int64_t lo[SPX_MULTI_MAX_PARTS], hi[SPX_MULTI_MAX_PARTS];
    int n;
} spx__multi_owned;
/* The overlap's cut of a part's CSR v, copies with A's columns: *own, every
 * line with its entries of owned columns; rest[0] and rest[1], its lines
 * [0, cut[0]) and [cut[1], v->rows) with the other entries (left NULL where
 * empty), around the longest run of lines with none (none of a quarter of
 * the lines: cut[0] = cut[1] = rows, one piece). */
spx_status spx__multi_overlap_cut(const spx_matrix *v, const spx__multi_owned *o, spx_matrix **own,
                                  spx_matrix *rest[2], int64_t cut[2]);
#define SPX__MULTI_OVERLAP_SHARE 13
int spx__multi_overlaps(const spx_multi_plan *P, const spx__multi_part *p);
spx_status spx__multi_overlap_plans(const spx_multi_plan *P, int i, const spx_plan_opts *po);
spx_status spx__multi_overlap_rest(const spx_multi_plan *P, const spx__multi_part *p, double alpha,
                                   const void *x, void *first);

/* pcsc part p's product into y[span_lo, span_hi), out pointing at row
 * span_lo, b = beta; with alone non-NULL (a resident call on one device)
 * its alone rows go there instead (row alone_lo first), b = alone_beta.
 * Nothing for a part without nonzeros (its span is empty). */
spx_status spx__multi_pcsc_spmv(const spx_multi_plan *P, const spx__multi_part *p, double alpha,
                                const void *x, double beta, void *out, void *alone,
                                double alone_beta);

/* Call time, in part i's thread. */
spx_status spx__multi_distribute_x(spx_multi_plan *P, int i, const void *x);
spx_status spx__multi_run_part(spx_multi_plan *P, int i, double alpha, const void *x,
                               double beta, void *y);
/* Call time, on the calling thread after every part. */
spx_status spx__multi_merge(spx_multi_plan *P, void *y);

double spx__multi_now_ms(void);

/* The lines part i owns, [*begin, *end): its lines but a shared first one. */
void spx__multi_own(const spx_multi_plan *P, int i, int64_t *begin, int64_t *end);

#define SPX__MULTI_VECTOR_MAGIC 0x5350584d56454354ull /* "SPXMVECT" */

struct spx_multi_vector_s {
    uint64_t magic;
    const spx_multi_plan *plan;
    int groups;
    int *device; /* group g's device, kept so that the vector frees without its plan */
    void **buf;  /* group g: n entries on its device (host memory for the CPU parts) */
};

/* SPX_OK for a live vector of P (any plan's when P is NULL). */
spx_status spx__multi_vector_check(const spx_multi_plan *P, const spx_multi_vector *v);
/* Entry k of the buffer of v that part i uses (its group's). */
void *spx__multi_vector_at(const spx_multi_vector *v, int i, int64_t k);
/* Where resident vectors live: every part on a GPU or every part on the CPU. */
static inline int spx__multi_on_gpu(const spx_multi_plan *P) { return P->part[0].device >= 0; }
/* Whether a resident call starts every part's stream after part 0's (one
 * GPU, or several replayed as a graph or queued from the calling thread),
 * so that work queued on part 0's stream before the call orders all of it
 * (multi_resident.c). */
int spx__multi_call_forks(const spx_multi_plan *P);
/* Resident-vector steps, on a part's device and stream (host memory for CPU
 * plans, where they finish before returning). */
spx_status spx__multi_move(const spx_multi_plan *P, void *dst, int dst_device, const void *src,
                           int src_device, int64_t n, void *stream);
spx_status spx__multi_add(const spx_multi_plan *P, void *y, const void *x, int64_t n,
                          void *stream);
spx_status spx__multi_scale(const spx_multi_plan *P, void *y, double beta, int64_t n,
                            void *stream);
/* spx__multi_scale of the rows of [b, e) outside [lo, hi) (all of them when
 * hi <= lo); y points at row 0. Where part 0 on its device applies beta. */
spx_status spx__multi_scale_outside(const spx_multi_plan *P, void *y, int64_t b, int64_t e,
                                    int64_t lo, int64_t hi, double beta, void *stream);
/* The calling thread's CUDA device when P has GPU parts (else -1), and back:
 * the executor sets devices on whatever thread runs a part, the caller's too. */
int spx__multi_device_save(const spx_multi_plan *P);
void spx__multi_device_restore(int device);

/* Device groups (multi_groups.c): made at plan time; their resident
 * resources (ghost slots, the pcsc table, halos, landing scratch, peer
 * access) once, with the plan's first vector; freed with the plan. */
spx_status spx__multi_groups_create(spx_multi_plan *P);
spx_status spx__multi_resident_prepare(spx_multi_plan *P);
void spx__multi_groups_destroy(spx_multi_plan *P);
/* n entries on part i's device (host memory for a CPU part). */
spx_status spx__multi_alloc_on(const spx_multi_plan *P, int i, int64_t n, void **out,
                               const char *what);

/* Resident calls (multi_resident.c and the files below). */
/* Whether pcsc part i writes its partial y into y's buffer (else p->out). */
int spx__multi_partial_in_y(const spx_multi_plan *P, int i, double beta);
/* Row r of pcsc part i's partial y: in y's buffer (row r) or in p->out (row
 * r - y_begin); r must lie in its output. */
void *spx__multi_partial_at(const spx_multi_plan *P, int i, const spx_multi_vector *y, double beta,
                            int64_t r);
/* Part i's product on its group's buffers (multi.h: spmv), half 0, 1 or
 * SPX__MULTI_WHOLE as spx__multi_part_spmv's (pcsc: all in half 1). */
spx_status spx__multi_product(const spx_multi_plan *P, int i, int half, double alpha,
                              const spx_multi_vector *x, double beta, spx_multi_vector *y);
/* One device, after every part's product on the group's first stream:
 * ghosts into their owners' lines, or pcsc's partials into y (multi_combine.c). */
spx_status spx__multi_combine(const spx_multi_plan *P, double beta, spx_multi_vector *y);
/* Several devices (multi_resident_merge.c): the merge of the lines group g
 * owns, queued on its first part's stream, which every part's product must
 * precede (multi_resident_devices.c makes it wait for them). */
spx_status spx__multi_merge_queue(const spx_multi_plan *P, int g, double beta,
                                  spx_multi_vector *y);
/* Several devices (multi_resident_devices.c), group g on its streams:
 * its halo and its parts' products (fork: after part 0's ev[0], for a
 * graph); its merge, once every part's product is done. The whole call
 * queued from the calling thread, forked from part 0's stream and joined
 * back into it, so that it can be recorded as one CUDA graph. */
spx_status spx__multi_queue_group(const spx_multi_plan *P, int g, int fork, double alpha,
                                  const spx_multi_vector *x, double beta, spx_multi_vector *y);
spx_status spx__multi_merge_group(const spx_multi_plan *P, int g, double beta,
                                  spx_multi_vector *y);
spx_status spx__multi_queue_devices(const spx_multi_plan *P, double alpha,
                                    const spx_multi_vector *x, double beta, spx_multi_vector *y);
/* A solver's product across GPUs where the leads meet by flags: every lead
 * after every part's work so far (its x), each group's halo and products,
 * the leads meet again, each group's merge, and every part's stream after
 * its own group's merge (the lines it reads next are its group's); neither
 * forked from part 0 nor joined into it. */
spx_status spx__multi_queue_meeting(const spx_multi_plan *P, double alpha,
                                    const spx_multi_vector *x, double beta, spx_multi_vector *y);

/* The leads' meeting (multi_barrier.c): from here on every group lead's
 * stream is after the work queued so far on every part's stream, by events
 * or by a barrier of flags (spx__multi_flags_on). prepare: the flags where
 * they are wanted (3 GPU groups or more, SPX_MULTI_BARRIER), at resident
 * preparation; late: SPX_ERR_DEVICE once after a barrier waited too long. */
spx_status spx__multi_barrier_prepare(spx_multi_plan *P);
void spx__multi_barrier_destroy(spx_multi_plan *P);
int spx__multi_flags_on(const spx_multi_plan *P);
spx_status spx__multi_meet(const spx_multi_plan *P);
spx_status spx__multi_barrier_late(spx_multi_plan *P);
/* Tests only: group skip's next barrier is not launched (a GPU that never
 * comes; -1: none), and the barriers wait timeout_ns at most. */
void spx__multi_barrier_test(spx_multi_plan *P, int skip, unsigned long long timeout_ns);

#endif
