/* Row bookkeeping of the CUDA AXC / AXT kernels (axt_spmv.cu), shared with
 * their host emulation (tests/test_cuda_axt_build.c): plain C, compiled as
 * __host__ __device__ under nvcc. Which partial sum belongs to which row, and
 * which of them goes straight to y, to a worker's carry or on to the next
 * piece, is decided here and only here; the kernels and the emulation add
 * the numbers in the order these functions say.
 *
 * Every producer of partial sums (a warp over a range of units, or a thread
 * block over one ch1 block) sees rows in nondecreasing order. Under
 * combine=ordered it writes y itself for the rows it holds entirely; its
 * first row and its last row, which its neighbours may share, go to its two
 * carry slots (row -1: unused); a second pass adds the carried partials of
 * each row in producer order (spx__axt_combine_first), so every y entry is
 * written once, by one thread, and the same bits come out of every call. */
#ifndef SPX_CUDA_AXT_LANE_H
#define SPX_CUDA_AXT_LANE_H

#include <stdint.h>

#ifdef __CUDACC__
#define SPX__AXT_HD __host__ __device__
#else
#define SPX__AXT_HD
#endif

/* The segmented-scan operator: the running sum a, then b, which starts a new
 * segment when fb is set (Sengupta et al.'s segmented scan). */
#define SPX__AXT_SEG(a, b, fb) ((fb) ? (b) : (a) + (b))

/* A warp's running row: partial sums of row cur are added while rows repeat;
 * a row left behind is complete within the warp's range unless it was the
 * warp's first (it may have begun in the range before): that one is carried. */
typedef struct spx__axt_run {
    int64_t cur;
    int open, flushed;
} spx__axt_run;

/* What a partial of row r does with the running sum acc (of *done). */
enum { SPX__AXT_ADD, SPX__AXT_START, SPX__AXT_TO_CARRY, SPX__AXT_TO_Y };

static inline SPX__AXT_HD spx__axt_run spx__axt_run_new(void)
{
    spx__axt_run s = {-1, 0, 0};
    return s;
}

/* ADD: acc += v. START: acc = v. TO_CARRY / TO_Y: row *done is complete here,
 * with sum acc: into carry slot 0 / into y; then acc = v. */
static inline SPX__AXT_HD int spx__axt_run_emit(spx__axt_run *s, int64_t r, int64_t *done)
{
    if (s->open && r == s->cur) return SPX__AXT_ADD;
    const int act = !s->open ? SPX__AXT_START : s->flushed ? SPX__AXT_TO_Y : SPX__AXT_TO_CARRY;
    *done = s->cur;
    s->flushed |= s->open;
    s->cur = r;
    s->open = 1;
    return act;
}

/* At the end of the range: the carry slot of the open row (0 or 1), or -1
 * when the range had no entries. */
static inline SPX__AXT_HD int spx__axt_run_end(const spx__axt_run *s)
{
    return !s->open ? -1 : s->flushed ? 1 : 0;
}

/* ch1: where the segment of head thread i, ending at thread last, goes in a
 * block of nvalid entries: the block's first segment to carry slot 0, its
 * last to slot 1, the rows between (whole inside the block) to y. */
enum { SPX__AXT_DEST_Y, SPX__AXT_DEST_CARRY0, SPX__AXT_DEST_CARRY1 };

static inline SPX__AXT_HD int spx__axt_ch1_dest(int i, int last, int nvalid)
{
    return i == 0               ? SPX__AXT_DEST_CARRY0
           : last == nvalid - 1 ? SPX__AXT_DEST_CARRY1
                                : SPX__AXT_DEST_Y;
}

/* ch: lane l of a tile has walked its column (TH entries of the packed order)
 * and found nseg segments (0: a column of padding, only at the very end), the
 * first of row rf with sum sf, the last of row rl with sum sl, those between
 * written to y. Across the lanes, the last segments chain into the next
 * lane's first while the row repeats: a segmented scan S of sl, a new chain
 * at the lanes for which ch_starts_chain holds. rl_prev is lane l-1's rl,
 * rf_next lane l+1's rf, last the highest lane with a segment. */
static inline SPX__AXT_HD int spx__axt_ch_starts_chain(int l, int nseg, int64_t rf, int64_t rl_prev)
{
    return nseg >= 2 || (nseg == 1 && (l == 0 || rf != rl_prev));
}

/* Lane l's first segment ends a chain begun in earlier lanes: its row's sum
 * is S[l-1] + sf. */
static inline SPX__AXT_HD int spx__axt_ch_first_closes(int l, int nseg, int64_t rf, int64_t rl_prev)
{
    return nseg >= 2 && l > 0 && rf == rl_prev;
}

/* The chain through lane l's last segment ends at l: row rl's sum is S[l]. */
static inline SPX__AXT_HD int spx__axt_ch_chain_ends(int l, int last, int nseg, int64_t rl,
                                                     int64_t rf_next)
{
    return nseg >= 1 && (l == last || rf_next != rl);
}

/* A row summed inside a tile goes to y unless it is the tile's first row r0
 * or last row rl: those go on to the warp's running row (spx__axt_run), as
 * they may continue in the tiles beside. */
static inline SPX__AXT_HD int spx__axt_tile_inner(int64_t r, int64_t r0, int64_t rl)
{
    return r != r0 && r != rl;
}

/* combine=ordered, second pass: entry k of the carry rows (two per
 * producer, in producer order; -1 unused) is the first of its row, so the
 * thread that takes it adds the row's entries k, k+1, ... in order. */
static inline SPX__AXT_HD int spx__axt_combine_first(const int64_t *row, int64_t k)
{
    if (row[k] < 0) return 0;
    int64_t j = k - 1;
    while (j >= 0 && row[j] < 0)
        j--;
    return j < 0 || row[j] != row[k];
}

/* New values (spx_plan_update_values): the entry of A each value cell holds,
 * found from the layout alone. Every layout keeps A's entries in CSR order
 * in runs of cells: a slab's THW lanes (axc, uh1, ch1), or a tile's lane
 * column of TH slabs (uh, ch; run q is lane q % THW of tile q / THW), each
 * run its entries first, then padding (column -1). So cell i of run q holds
 * entry first[q] + i, first[] the exclusive scan of the runs' entries
 * (counted as cells whose column is not -1) where rows are padded to whole
 * runs (axc, uh1, uh), and q * per (per = THW or TH, the cells of a run)
 * where entries are packed (ch1, ch: no scan). */
typedef struct spx__axt_runs {
    int columns;          /* runs are tiles' lane columns (uh, ch), else slabs */
    int packed;           /* ch1, ch: run q starts at entry q * per */
    int thw, th;          /* lanes of a slab, slabs of a tile */
    int64_t nnz;          /* entries of A */
    int64_t n;            /* runs: slabs, or tiles * THW lane columns */
    const int64_t *first; /* not packed: n first entries (the scan), else NULL */
} spx__axt_runs;

/* Cells of a run. */
static inline SPX__AXT_HD int spx__axt_run_cells(spx__axt_runs r)
{
    return r.columns ? r.th : r.thw;
}

/* Cell i of run q: lane *l of slab *s. */
static inline SPX__AXT_HD void spx__axt_run_cell(spx__axt_runs r, int64_t q, int i, int64_t *s,
                                                 int *l)
{
    *s = r.columns ? q / r.thw * r.th + i : q;
    *l = r.columns ? (int)(q % r.thw) : i;
}

/* The entry of A in lane l of slab s, or -1 for padding; pad: the cell's
 * column is -1 (read only where not packed). */
static inline SPX__AXT_HD int64_t spx__axt_cell_entry(spx__axt_runs r, int64_t s, int l, int pad)
{
    const int64_t q = r.columns ? s / r.th * r.thw + l : s, i = r.columns ? s % r.th : l;
    if (!r.packed) return pad ? -1 : r.first[q] + i;
    const int64_t e = q * spx__axt_run_cells(r) + i;
    return e < r.nnz ? e : -1;
}

/* Units [*u0, *u1) of producer w, per units each, of n. */
static inline SPX__AXT_HD void spx__axt_range(int64_t w, int64_t per, int64_t n, int64_t *u0,
                                              int64_t *u1)
{
    *u0 = w * per;
    *u1 = *u0 + per < n ? *u0 + per : n;
}

#endif
