/* AXC and AXT SpMV (Coronado-Barrientos et al., "A new AXT format for an
 * efficient SpMV product using AVX-512 instructions and CUDA", 2021): the
 * prepared form shared by the layout builder (axt_build.c), the kernels
 * (axt_kern*.c, one body in axt_body.h stamped per ISA and precision) and the
 * formats (axt.c).
 *
 * Storage: ax[] is a sequence of slabs. A slab holds THW matrix values, then
 * THW "x slots": with x=refresh the gathered x values (the paper's layout; a
 * refresh at the start of every spmv rewrites them from col[]), with x=live
 * the THW 32-bit column indices the kernel gathers x through. Padding slots
 * hold value 0 and column -1 (masked out of every gather, so an Inf in x never
 * meets a padded zero). A tile is TH slabs (2*THW*TH elements in the paper's
 * count). Variants:
 *   axc      rows padded to whole slabs ("bricks" of HBRS = THW); brp[r] is
 *            row r's first slab. Unit of work: a row.
 *   axt-uh1  the same slabs without brp; rwp[s] is slab s's row. Unit: slab.
 *   axt-uh   TH > 1: each lane column of a tile holds TH consecutive entries
 *            of one row (column-major, zero padded); a row of n entries takes
 *            ceil(n/TH) columns; rwp[t*THW + l] is column l's row. Unit: tile.
 *   axt-ch1  entries packed in row order without padding, THW per slab, in
 *            blocks of BS; hdr[e] is nonzero at the start of each block and of
 *            each row: ((row + 1) << obits) | offset to the segment's last
 *            entry in the block. Unit: block.
 *   axt-ch   packed like ch1 but column-major inside tiles of TH x THW; the
 *            hdr offset counts slabs down the column. Unit: tile.
 * Rows of a unit sequence never decrease, so each thread's contiguous range of
 * units yields (row, partial) pairs in row order (see spx__axt_sink).
 *
 * Departures from the paper: no atomics (carries, see axt.c); hdr holds
 * row + 1, since the paper's row 0 at offset 0 would read as "no head"; ch1
 * and ch sum segments with a scan restarting at heads rather than the fast
 * segmented sum (a difference of prefix sums loses accuracy to the whole
 * block's magnitude); uh1 sums a row's consecutive slabs in one vector before
 * reducing; x=live (column indices in the tile's second half) is added. */
#ifndef SPX_CPU_AXT_H
#define SPX_CPU_AXT_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/isa.h"
#include "spx.h"

#if defined(__GNUC__)
#define SPX__AXT_INLINE static inline __attribute__((always_inline))
#else
#define SPX__AXT_INLINE static inline
#endif

/* Software prefetch distance along ax[] (and col[] of x=refresh): the
 * kernels prefetch every slab line this many bytes ahead, past the 4 KiB page
 * boundaries where the hardware prefetchers stop; ax[] and col[] hold that
 * much slack beyond their last slab. */
#define SPX__AXT_PF_BYTES 2048
#if defined(__GNUC__)
#define SPX__AXT_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define SPX__AXT_PREFETCH(p) ((void)(p))
#endif

enum { SPX__AXC = 0, SPX__AXT_UH1, SPX__AXT_UH, SPX__AXT_CH1, SPX__AXT_CH, SPX__AXT_NVAR };

#define SPX__AXT_MAX_THW 64    /* lanes per slab */
#define SPX__AXT_MAX_TH 256    /* slabs per tile */
#define SPX__AXT_MAX_BS 1024   /* entries per ch1 block */
#define SPX__AXT_MAX_TILE 4096 /* TH * THW of a ch tile (kernel scratch) */

/* Partial sums a thread could not write alone: its first and last row. */
typedef struct spx__axt_carry {
    int64_t row[2];
    double sum[2];
    int n;
} spx__axt_carry;

/* Where a thread's (row, partial) pairs go. Rows strictly inside the thread's
 * range are written to y at once; its first and last rows (which neighbours
 * may share) go to carry, merged after the parallel region in thread order;
 * rows of its range that nothing touches (empty rows) are scaled by beta. */
typedef struct spx__axt_sink {
    double alpha, beta;
    void *y;
    int f32;
    int open;
    int64_t next; /* first row not yet written, deferred or filled */
    int64_t cur;
    double acc;
    spx__axt_carry *carry;
} spx__axt_sink;

struct spx__axt;
typedef void (*spx__axt_run_fn)(const struct spx__axt *a, int64_t u0, int64_t u1, const void *x,
                                spx__axt_sink *s);
typedef void (*spx__axt_refresh_fn)(const struct spx__axt *a, int64_t s0, int64_t s1,
                                    const void *x);

typedef struct spx__axt_kernel {
    spx__axt_run_fn run;
    int vl; /* lanes per vector: THW must be a multiple */
    spx__isa isa;
} spx__axt_kernel;

/* Kernels by [variant][precision: 0 f64, 1 f32], BLIS style: the portable
 * table, then each ISA up to the chosen one overrides what it has. */
typedef struct spx__axt_kernels {
    spx__axt_kernel run[SPX__AXT_NVAR][2];
    spx__axt_refresh_fn refresh[2];
    int refresh_vl[2];
} spx__axt_kernels;

void spx__axt_kernels_portable(spx__axt_kernels *k);
void spx__axt_kernels_avx2(spx__axt_kernels *k);
void spx__axt_kernels_avx512(spx__axt_kernels *k);

typedef struct spx__axt {
    int variant;
    spx_type type;
    size_t vsize;    /* bytes of one value */
    int live;        /* x=live: slabs hold column indices */
    int thw, th, bs; /* th: slabs per tile (1 for axc, uh1, ch1); bs: ch1 block */
    int obits;       /* hdr offset bits */
    int64_t rows, cols, nnz;
    int64_t nslab;      /* slabs stored */
    int64_t nunits;     /* rows (axc), slabs (uh1), tiles (uh, ch), blocks (ch1) */
    int64_t unit_slabs; /* slabs per unit (not axc) */
    size_t sb;          /* bytes per slab */
    unsigned char *ax;  /* nslab * sb */
    int32_t *col;       /* x=refresh: nslab * thw columns, -1 for padding */
    int32_t *rwp;       /* uh1: nslab rows; uh: tiles * thw rows */
    uint32_t *hdr;      /* ch1, ch: nslab * thw headers */
    int64_t *brp;       /* axc: rows + 1 slab offsets */
    int nthreads;
    int64_t *ubound; /* nthreads + 1 unit bounds */
    int64_t *own;    /* nthreads + 1 row bounds: thread t fills empty rows of [own[t], own[t+1]) */
    int64_t *ufirst; /* axc, uh1, uh: nthreads + 1, entry thread t's units start at (the first
                        spx__axt_refill counts them); NULL before */
    spx__axt_run_fn run;
    spx__axt_refresh_fn refresh;
    spx__isa isa;       /* ISA of the run kernel */
    spx__isa isa_asked; /* ISA the plan asked for (param or active) */
    spx__isa isa_top;   /* highest ISA kernels may use: min(asked, active) */
    int isa_lowered;    /* the isa param asked above what may run */
} spx__axt;

/* Lay A out as a->variant with a->thw, th, bs, live, type, vsize set (and
 * a->nthreads > 0, the threads that place the entries); fills the arrays ax,
 * col (x=refresh), rwp, hdr, brp, and nslab, nunits, unit_slabs, sb, obits.
 * The one layout builder of the CPU formats and the CUDA ones (THW 16 or 32,
 * src/cuda/axt/); ax[] and col[] hold SPX__AXT_PF_BYTES of zeroed slack past
 * the last slab. On failure the caller frees with spx__axt_free_arrays. */
spx_status spx__axt_layout(const spx_matrix *A, spx__axt *a);
/* spx__axt_layout, then the units split among a->nthreads CPU threads
 * (ubound, own; a->nthreads lowered to the units when fewer). */
spx_status spx__axt_build(const spx_matrix *A, spx__axt *a);
void spx__axt_free_arrays(spx__axt *a);
/* New values for a built a (spx__axt_build; spx_plan_update_values): vals[k],
 * of a->type, into the slot entry k of the matrix went to; padding keeps its
 * 0 and the columns are untouched. Runs on a->nthreads threads, each on its
 * spmv units. */
spx_status spx__axt_refill(spx__axt *a, const void *vals);

/* Row of the first entry of unit u. */
int64_t spx__axt_unit_row(const spx__axt *a, int64_t u);

/* ---------------------------------------------------------------- the sink */

SPX__AXT_INLINE void spx__axt_put(const spx__axt_sink *s, int64_t r, double v)
{
    if (s->f32) {
        float *y = s->y;
        double b = s->beta == 0.0 ? 0.0 : s->beta * (double)y[r];
        y[r] = (float)(s->alpha * v + b);
    } else {
        double *y = s->y;
        y[r] = s->beta == 0.0 ? s->alpha * v : s->alpha * v + s->beta * y[r];
    }
}

/* Rows [s->next, end) have no entries: y = beta*y (0 when beta == 0). */
SPX__AXT_INLINE void spx__axt_fill(spx__axt_sink *s, int64_t end)
{
    int64_t r = s->next;
    if (r >= end) return;
    if (s->f32) {
        float *y = s->y;
        for (; r < end; r++)
            y[r] = s->beta == 0.0 ? 0.0f : (float)(s->beta * (double)y[r]);
    } else {
        double *y = s->y;
        for (; r < end; r++)
            y[r] = s->beta == 0.0 ? 0.0 : s->beta * y[r];
    }
    s->next = end;
}

SPX__AXT_INLINE void spx__axt_defer(spx__axt_sink *s)
{
    spx__axt_carry *c = s->carry;
    c->row[c->n] = s->cur;
    c->sum[c->n] = s->acc;
    c->n++;
}

/* Add partial v to row r; rows arrive in nondecreasing order. */
SPX__AXT_INLINE void spx__axt_emit(spx__axt_sink *s, int64_t r, double v)
{
    if (s->open && r == s->cur) {
        s->acc += v;
        return;
    }
    if (s->open) {
        if (s->carry->n == 0)
            spx__axt_defer(s);
        else
            spx__axt_put(s, s->cur, s->acc);
        s->next = s->cur + 1;
    }
    spx__axt_fill(s, r);
    s->cur = r;
    s->acc = v;
    s->open = 1;
}

#endif
