/* SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop 2014): the prepared
 * form shared by the format (sell.c) and its kernels (sell_kernels.c,
 * sell_avx2.c, sell_avx512.c).
 *
 * Rows are sorted by decreasing length inside windows of sigma consecutive
 * rows; sorted row p is original row perm[p]. Sorted rows are cut into chunks
 * of C; chunk c holds sorted rows c*C .. c*C+C-1 and is padded to its longest
 * row, width w_c = (chunk_ptr[c+1] - chunk_ptr[c]) / C. Inside a chunk the
 * storage is column-major: element j of the chunk's lane l is at
 * chunk_ptr[c] + j*C + l. Padding has value 0 and column 0 and lies beyond
 * rowlen[p]; kernels never load x for it, so Inf or NaN in x cannot reach a
 * row that does not hold that column. rowlen and perm are padded with zeros to
 * nchunks*C entries; perm is NULL when sigma == 1 (identity).
 *
 * Long rows (longer than long_min) would pad their whole chunk to their
 * length and run with one lane of C busy; they stay in the chunks with length
 * 0 (so the chunk pass writes beta*y there) and are kept as a small CSR of
 * their own (long_row, long_ptr, long_col, long_val), summed after the chunk
 * pass by threads sharing their elements evenly: y[r] += alpha * (row r) x.
 *
 * An iso plan (core/iso.h) stores no values: val and long_val are NULL, its
 * kernels (stamped from the same bodies) sum x[col] alone, and the caller
 * folds iso_value into alpha. New values (spx_plan_update_values) refill val
 * and long_val through A's row offsets, rebuilt from rowlen, perm and the long
 * rows' lengths (sell.c); an iso plan given varied ones starts storing them.
 *
 * Kernels prefetch col and val (and long_col, long_val) SPX__SELL_PF_AHEAD
 * elements ahead of the element they read: past 4 KiB page boundaries, where
 * the hardware prefetchers stop. The arrays hold that many elements of slack
 * beyond their end, so the prefetch addresses stay inside them (col's slack
 * is column 0). With xpf they also prefetch x through the columns
 * SPX__SELL_XPF_AHEAD elements ahead: a gather of x values that miss the cache
 * waits for all its lanes, a prefetch does not.
 */
#ifndef SPX_CPU_SELL_H
#define SPX_CPU_SELL_H

#include <stdint.h>

#include "core/iso.h"
#include "spx.h"

/* C is a power of two up to this (a chunk's lanes fit one stack array). */
#define SPX__SELL_CMAX 64
/* Prefetch distance in elements (2 KiB of fp64 values, 1 KiB of columns). */
#define SPX__SELL_PF_AHEAD 256
/* With xpf, x[col[k]] is prefetched for the element this many ahead (its
 * column was prefetched SPX__SELL_PF_AHEAD - SPX__SELL_XPF_AHEAD before). */
#define SPX__SELL_XPF_AHEAD 64
#if defined(__GNUC__)
#define SPX__SELL_PREFETCH(p) __builtin_prefetch((p), 0, 3)
#else
#define SPX__SELL_PREFETCH(p) ((void)(p))
#endif

typedef struct spx__sell spx__sell;

/* y[perm[p]] = alpha * (A x)[perm[p]] + beta * y[perm[p]] for the sorted rows
 * of chunks c0 .. c1-1; beta == 0 never reads y. x and y are double or float
 * as S->type says. */
typedef void (*spx__sell_kernel)(const spx__sell *S, int64_t c0, int64_t c1, double alpha,
                                 const void *x, double beta, void *y);
/* A long row's partial sum from a slice that shares the row with a neighbour. */
typedef struct spx__sell_carry {
    int64_t row; /* -1: none */
    double sum;  /* alpha * the slice's part of the row */
} spx__sell_carry;

/* y[r] += alpha * (elements e0 .. e1-1 of the long rows' CSR, row r's part)
 * for each long row r the slice holds whole; a row cut by e0 goes to
 * carry[0], one cut by e1 to carry[1] (row -1 when none), for the caller to
 * add in slice order: the result does not depend on scheduling. */
typedef void (*spx__sell_long_kernel)(const spx__sell *S, int64_t e0, int64_t e1, double alpha,
                                      const void *x, void *y, spx__sell_carry carry[2]);

struct spx__sell {
    int64_t rows, cols, nnz;
    int64_t C, sigma, nchunks;
    int64_t stored;     /* chunk_ptr[nchunks]: elements incl. padding */
    spx_type type;      /* SPX_F64 or SPX_F32 values, x and y */
    int isa;            /* kernel in use: 0 portable, 1 avx2, 2 avx512 */
    int threads;        /* OpenMP threads, 0 = default */
    int xpf;            /* 1: kernels prefetch x[col] ahead (x far beyond the cache) */
    int iso;            /* values=iso: no values stored, iso_value folded into alpha */
    double iso_value;
    int64_t *chunk_ptr; /* nchunks+1 element offsets, multiples of C */
    int32_t *col;       /* stored column indices */
    void *val;          /* stored values, double or float; NULL when iso */
    int32_t *rowlen;    /* nchunks*C lengths of sorted rows */
    int32_t *perm;      /* nchunks*C original row of each sorted row, or NULL */
    spx__sell_kernel kernel;
    int64_t long_min;        /* rows longer than this are long rows */
    int64_t nlong, long_nnz; /* long rows and their elements */
    int32_t *long_row;       /* nlong original rows, increasing */
    int64_t *long_ptr;       /* nlong+1 offsets into long_col and long_val */
    int32_t *long_col;       /* long_nnz columns */
    void *long_val;          /* long_nnz values, double or float; NULL when iso */
    spx__sell_long_kernel long_kernel;
    /* the values= parameter the plan was made with (an update's iso test) */
    spx__values_mode mode;
};

/* Kernels by ISA, type and values (iso nonzero: the iso kernel); NULL where a
 * kernel cannot serve this C (the SIMD ones need C to be a multiple of their
 * vector width). */
spx__sell_kernel spx__sell_kernel_portable(spx_type t, int64_t C, int iso);
spx__sell_kernel spx__sell_kernel_avx2(spx_type t, int64_t C, int iso);
spx__sell_kernel spx__sell_kernel_avx512(spx_type t, int64_t C, int iso);
spx__sell_long_kernel spx__sell_long_portable(spx_type t, int iso);

#endif
