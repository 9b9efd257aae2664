/* The CUDA `hbp` format: hash-based partition SpMV (the paper
 * hbp-hash-partition-spmv: 2D blocks, rows reordered inside each block by a
 * nonlinear hash of their length, warps that take a fixed share of the work
 * and then compete for the rest). hbp_build.c builds the layout on the host,
 * hbp_prep.cu on the GPU (the same arrays, bit for bit), hbp_spmv.cu runs it,
 * hbp_format.c is the registered format.
 *
 * Partition. A is cut into blocks of N rows by M columns (R row blocks, C
 * column blocks). A block's slots are rows of its row block: with C == 1
 * (direct) or combine=paper every row of the row block (empty rows too, as
 * the paper's zero rows), with combine=owner only the rows that have entries
 * in the block (pieces). Blocks are stored in column-major order (column
 * block outer), as the warps take them: blocks of one column block together.
 * Only blocks with entries are stored, except with C == 1, where every row
 * block is one block.
 *
 * Hash order (hbp_rules.h). Inside a block the slots are ordered by key(len)
 * = b * min(len >> a, 8) + ((len >> c) & (d - 1)) (aggregation, dispersion,
 * linear mapping), ties in row order; prep=sort orders them by decreasing
 * length instead. The ordered slots are cut into groups of 32 (a warp's
 * lanes); inside a group the lanes hold the rows by decreasing length (ties in
 * hash order), so the rows with entries at step k are lanes 0..alive(k)-1.
 *
 * Entries, no padding: a group's entries are stored column-major, step by
 * step: step k holds entry k of each lane that has one, in lane order, so the
 * entry of lane l at step k sits at base(k) + l with base(k) = group start +
 * alive(0) + ... + alive(k-1). The paper's add_sign (distance to the row's
 * next entry, -1 at its last), zero_row, begin_nnz and output_hash (lane_row)
 * follow from lane_len (spx__hbp_paper_arrays derives them; the tests decode
 * the layout with them). Columns are 16-bit offsets from the block's first
 * column when M <= 65536 (col16), else 32-bit columns.
 *
 * Tiles. A group's steps are cut into tiles, each one warp's task: lane
 * tiles of at most T steps (a lane per row, lane l reads its entries at
 * base(k) + l), and coop tiles over steps where a constant a <= 16 lanes
 * have entries (g = 32/a rounded down to a power of two threads per row, so a
 * long row is read by g threads at once). T = 0 (the paper's kernel): one
 * lane tile per group. A tile with flag DIRECT (C == 1, the group's only
 * tile) writes y; flag PAPER writes the block's dense partial segment
 * partial[pbase + row]; otherwise lane l's sum over the tile goes to
 * partial[pbase + l] when the lane has entries in the tile (len > s0). The
 * combine then sums them in a fixed order: a warp per multi-tile group (C ==
 * 1), a thread block per row block reducing its blocks in column order in
 * shared memory (owner), or a thread per row over its row block's dense
 * segments in column order (paper). No float atomics: results are the same
 * bits on every call.
 *
 * New values (spx_plan_update_values). Entry k of lane l's row piece is A's
 * entry lane_first[l] + k (lane_first: the piece's first entry in A, kept
 * from the build), so the walk that placed the values at prep places new
 * ones: hbp_values runs the prep's scatter over the tiles, values only. 4
 * bytes a lane, where a slot map would take 4 bytes an entry; the layout
 * keeps no row offsets, and rebuilding the first entries from the lanes'
 * lengths would take a sort of every row's pieces by row and column block
 * at each update.
 *
 * Schedule. Tiles are in block order; with W warps, warp w first runs tiles
 * [w F, (w + 1) F) (its fixed share: consecutive tiles, mostly of one column
 * block), then draws tiles W F.. from an atomic ticket; the last warp to finish
 * resets the ticket for the next call. A tile with flag STAGE stages its
 * column block's x segment in the warp's shared memory (kept while the warp's
 * next tiles share the column block). */
#ifndef SPX_CUDA_HBP_KERNELS_H
#define SPX_CUDA_HBP_KERNELS_H

#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__HBP_W 32                 /* lanes of a group */
#define SPX__HBP_ROW_PAD 0xFFFFu      /* lane_row of a lane without a row */
#define SPX__HBP_MAX_ROWS 4096        /* most rows of a block (lane_row is 16-bit) */
#define SPX__HBP_COL16 65536          /* most columns of a block with 16-bit columns */
#define SPX__HBP_MAX_BLOCKS (1 << 26) /* most blocks C * R (dense counts while building) */

enum { SPX__HBP_DIRECT = 0, SPX__HBP_OWNER = 1, SPX__HBP_PAPER = 2 }; /* combine */
enum { SPX__HBP_HASH = 0, SPX__HBP_SORT = 1 };                        /* slot order */
enum { SPX__HBP_TILE_DIRECT = 1, SPX__HBP_TILE_STAGE = 2, SPX__HBP_TILE_PAPER = 4 };

/* The hash's parameters (hbp_rules.h): a sampled from the pieces' lengths,
 * b = N / 16, c and d from a and b. */
typedef struct spx__hbp_hash {
    int a, b, c, d;
} spx__hbp_hash;

/* One warp's task: steps [s0, s1) of a group. 40 bytes. */
typedef struct spx__hbp_tile {
    int64_t entry; /* the entry of lane 0 at step s0 */
    int64_t pbase; /* partial index of its sums (DIRECT: unused) */
    int32_t group; /* its group: lanes at 32 * group */
    int32_t row0;  /* the first row of its row block */
    int32_t col0;  /* the first column of its column block */
    uint32_t s0, s1;
    uint16_t alive; /* coop tile: the lanes with entries at each step (1..16); 0: lane tile */
    uint16_t flags; /* SPX__HBP_TILE_* */
} spx__hbp_tile;

/* How to build: block shape, tile length, combine, order, staging. */
typedef struct spx__hbp_opts {
    int64_t N;         /* rows of a block: a power of two, 32..SPX__HBP_MAX_ROWS */
    int64_t M;         /* columns of a block, >= 1 */
    int64_t T;         /* steps of a lane tile (coop: per thread); 0: one tile per group */
    int combine;       /* SPX__HBP_OWNER or _PAPER, used when C > 1 */
    int order;         /* SPX__HBP_HASH or _SORT */
    int64_t stage_min; /* blocks of at least this many entries stage x (0: none) */
    spx_type vtype;    /* values' type: host build A's (F64, F32), device build the plan's */
} spx__hbp_opts;

/* The layout: host arrays (hbp_build.c) or device arrays (hbp_prep.cu, or
 * uploaded). Counts first, then arrays in schedule order. */
typedef struct spx__hbp {
    int64_t rows, cols, nnz;
    int64_t N, M, T, R, C;
    int combine, order, col16;
    spx__hbp_hash hash;
    int64_t n_blocks, n_groups, n_tiles, n_multi, n_staged;
    double sd_before, sd_after; /* mean over groups of the lanes' length standard
                                   deviation, groups in row order and in hash order */
    int32_t *blk_r, *blk_c;     /* n_blocks: row block and column block */
    int64_t *blk_group;         /* n_blocks + 1: first group of each block */
    int64_t *group_entry;       /* n_groups + 1: first entry of each group */
    int64_t *group_tile;        /* n_groups + 1: first tile of each group */
    uint16_t *lane_row;         /* 32 n_groups: row within the row block, or ROW_PAD */
    uint32_t *lane_len;         /* 32 n_groups: entries of the lane's row in the block */
    spx__hbp_tile *tiles;       /* n_tiles */
    int32_t *multi;             /* n_multi (direct): groups of more than one tile */
    int64_t *rb_ptr;            /* R + 1 (owner, paper): each row block's blocks in rb_list */
    int32_t *rb_list;           /* n_blocks: block ids, columns ascending per row block */
    void *col;                  /* nnz: uint16_t offsets from col0 (col16) or int32_t */
    void *values;               /* nnz of opts.vtype */
    int32_t *lane_first;        /* 32 n_groups: the first entry in A of each lane's row piece
                                   (0 for a pad), for new values; NULL when nnz > INT32_MAX */
    spx_type vtype;
} spx__hbp;

/* The counts of a layout of a rows x cols matrix with nnz entries built with
 * o (rows to vtype; arrays NULL), after checking o: rows= a power of two
 * 32..SPX__HBP_MAX_ROWS, cols= and tile= in range (SPX_ERR_BAD_PARAM), at
 * most SPX__HBP_MAX_BLOCKS blocks (SPX_ERR_UNSUPPORTED). Both builders start
 * from it. */
spx_status spx__hbp_shape(int64_t rows, int64_t cols, int64_t nnz, const spx__hbp_opts *o,
                          spx__hbp *h);
/* A fits hbp with o: 32-bit columns, fewer than 2^31 rows
 * (SPX_ERR_UNSUPPORTED), and spx__hbp_shape's checks. */
spx_status spx__hbp_check(const spx_matrix *A, const spx__hbp_opts *o);

/* Build A's layout on the host (o->vtype is ignored: A's values' type). On
 * failure nothing stays allocated and *out is zeroed. */
spx_status spx__hbp_build(const spx_matrix *A, const spx__hbp_opts *o, spx__hbp *out);
void spx__hbp_free_host(spx__hbp *h);   /* host arrays; zeroes *h */
void spx__hbp_free_device(spx__hbp *h); /* device arrays; zeroes *h */

/* The paper's arrays of a host layout: add_sign (nnz: distance from an entry
 * to the next entry of its row, -1 at the row's last) and zero_row (32
 * n_groups: -1 for a lane without entries, else the lanes without entries
 * before it in its group). Allocated here; free with spx__free. */
spx_status spx__hbp_paper_arrays(const spx__hbp *h, int8_t **add_sign, int8_t **zero_row);

/* Prep timings of a device build (CUDA events). */
typedef struct spx__hbp_times {
    float partition_ms; /* pieces, counts, blocks and their slots in row order */
    float order_ms;     /* slots ordered by hash (or by the segmented sort) */
    float layout_ms;    /* groups, tiles, entries scattered */
    float total_ms;
} spx__hbp_times;

typedef struct spx__cuda_hbp_plan {
    spx__hbp H;           /* device arrays */
    spx_type precision;   /* F64: double x, y; F32: float; F16: half values, float y */
    int x_half;           /* F16 with xtype=half: x in IEEE half, else float */
    int pdl;              /* launches may overlap the kernel before (cuda/pdl.cuh) */
    int stage;            /* some tile stages x: the kernel with per-warp x segments */
    int64_t grid;         /* thread blocks of the SpMV kernel (all resident at once) */
    int64_t warps;        /* warps of the grid */
    int64_t combine_grid; /* thread blocks of the owner combine (row blocks, capped) */
    int64_t fixed;        /* tiles each warp runs before drawing tickets */
    void *partial;        /* partial sums (double for F64, else float) */
    unsigned *ticket;     /* 2 counters: next competitive tile, warps done */
    void *stream;         /* cudaStream_t of the plan (NULL = default stream) */
    int prep;             /* 0 hash on the GPU, 1 sort on the GPU, 2 hash on the host */
    int iso;              /* values=iso: H.values NULL, every entry 1 */
    double iso_value;     /* A's one value, folded into alpha */
    int values_mode;      /* values=: SPX__VALUES_AUTO, _STORED or _ISO (core/iso.h) */
    int fixed_pct;        /* fixed=: the share of its tiles a warp runs first, in % */
    spx__hbp_times times;
} spx__cuda_hbp_plan;

/* The hbp method's gateway (cuda/gateway.h):
 * - build: the layout of the device CSR d (32-bit columns, values of o->vtype)
 *   into *out, device arrays, the same as spx__hbp_build would make with o
 *   (values converted); timings into *t; nothing left allocated on failure;
 * - grid: p->grid, p->warps and p->combine_grid for the kernels p will launch
 *   (as many thread blocks as fit the device at once);
 * - spmv: launch y = alpha*A*x + beta*y on p->stream (asynchronous); beta == 0
 *   never reads y; x and y device vectors of the plan's precision (x in half
 *   with p->x_half). Calls on one plan must be ordered by its stream (they
 *   share the partial sums and the ticket);
 * - values: dst (nnz of H->vtype, device, the layout's order) from src (A's
 *   nnz values of H->vtype, device, CSR order) through H->lane_first (not
 *   NULL), by the build's scatter; on stream, waited for. */
#define SPX__CUDA_HBP_API(S, Q, V)                                                                 \
    S(spx__cuda_hbp_build,                                                                         \
      (const spx__cuda_csr *d, const spx__hbp_opts *o, spx__hbp *out, spx__hbp_times *t))          \
    S(spx__cuda_hbp_grid, (spx__cuda_hbp_plan * p))                                                \
    S(spx__cuda_hbp_spmv,                                                                          \
      (const spx__cuda_hbp_plan *p, double alpha, const void *x, double beta, void *y))            \
    S(spx__cuda_hbp_values, (const spx__hbp *H, void *dst, const void *src, void *stream))

SPX__CUDA_DECLARE(SPX__CUDA_HBP_API)

#ifdef __cplusplus
}
#endif
#endif
