/* The CUDA `sell` format: SELL-32-sigma, a warp per slice of 32 rows, a lane
 * per row (sell_build.c builds it on the host, sell_spmv.cu runs it;
 * sell_stubs.c without CUDA).
 *
 * Layout. Rows, in the order perm (identity with sigma = 1; else sorted by
 * decreasing length inside windows of sigma rows), are cut into slices of
 * SPX__CUDA_SELL_C = 32. Slice s has L_s = its longest row's length steps,
 * steps [sptr[s], sptr[s + 1]) of the whole matrix; step k stores one entry
 * per lane at entries 32k + lane, so the 32 lanes' loads of a step are one
 * coalesced run, and for a banded matrix their x reads are too (one row
 * apart). Entry j of a row is at step sptr[s] + j. Lanes past their row's
 * end hold padding: value 0 and a sentinel column, which the kernel skips
 * (no x read, so padding never turns an infinite x into NaN).
 *
 * Columns, index=u32: col[e] (int32), sentinel -1. index=u16: base[k] + off[e]
 * with one int32 base per step (the smallest column of the step) and 16-bit
 * offsets, sentinel 0xFFFF; it needs every step's columns to span at most
 * 65534 (banded matrices: lap3d7:200's rows reach 40000 either side of the
 * diagonal, but one step's 32 rows sit together). 6 bytes a nonzero become 4
 * in fp16 (10 in fp64 instead of 12), and no row offsets are read. fp16 plans
 * with u16 keep value and offset of an entry in one 32-bit word, packed[e] =
 * off << 16 | half bits, so that one load fetches both.
 *
 * values=iso: a matrix of one value v is uploaded without values (fp16 with
 * u16 then keeps its offsets alone, 2 bytes an entry), the kernel sums
 * x[col] alone and alpha * v scales the sums.
 *
 * New values (spx_plan_update_values) are refilled on the device from the
 * arrays the product reads, with nothing kept for it: a lane's row is as
 * long as its slots before the padding (the sentinel column), so the row
 * offsets are a prefix sum of those lengths in row order (perm), and the
 * lane of row r takes entries rowptr[r] .. rowptr[r + 1] - 1 at steps
 * sptr[s], sptr[s] + 1, ... of its slice (the helpers below, read by the
 * kernels and by the host check in tests/test_cuda_sell_build.c). A slot map
 * would hold 4 bytes a slot, 32 * n_steps >= nnz of them, and row offsets
 * kept on the device 8 bytes a row; the update instead reads the column
 * array once more and scans the rows (scratch of 16 bytes a row while it
 * runs).
 *
 * Every row is summed by one lane in its entries' order: results do not
 * change from call to call. */
#ifndef SPX_CUDA_SELL_KERNELS_H
#define SPX_CUDA_SELL_KERNELS_H

#include <stdint.h>

#include "cuda/gateway.h"
#include "spx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPX__CUDA_SELL_C 32            /* rows a slice: a warp's lanes */
#define SPX__CUDA_SELL_U16_PAD 0xFFFF  /* index=u16: padding's offset */
#define SPX__CUDA_SELL_U16_SPAN 0xFFFE /* index=u16: the most col - base */

enum { SPX__CUDA_SELL_AUTO = -1, SPX__CUDA_SELL_U32 = 0, SPX__CUDA_SELL_U16 = 1 };

#ifdef __CUDACC__
#define SPX__CUDA_SELL_HD __host__ __device__
#else
#define SPX__CUDA_SELL_HD
#endif

/* The layout as an update's refill reads it (sell_spmv.cu), on the host in
 * tests/test_cuda_sell_build.c:
 * - lane_row: the row at global lane i = 32 s + l of slice s: perm[i], or i
 *   in row order without perm; -1 past the rows;
 * - padding: whether slot e holds padding, by its sentinel column (col -1,
 *   off 0xFFFF, or a packed word's high half 0xFFFF; the first of col, off
 *   and packed that is not NULL is read);
 * - lane_len: the length of the row at lane l of the slice of steps [k0,
 *   k1): its slots that are not padding, which come first. */
static inline SPX__CUDA_SELL_HD int64_t spx__cuda_sell_lane_row(const int32_t *perm, int64_t rows,
                                                                int64_t i)
{
    return perm ? (int64_t)perm[i] : i < rows ? i : -1;
}

static inline SPX__CUDA_SELL_HD int spx__cuda_sell_padding(const int32_t *col, const uint16_t *off,
                                                           const uint32_t *packed, int64_t e)
{
    if (col) return col[e] < 0;
    if (off) return off[e] == SPX__CUDA_SELL_U16_PAD;
    return packed[e] >> 16 == SPX__CUDA_SELL_U16_PAD;
}

static inline SPX__CUDA_SELL_HD int64_t spx__cuda_sell_lane_len(const int32_t *col,
                                                                const uint16_t *off,
                                                                const uint32_t *packed, int64_t k0,
                                                                int64_t k1, int l)
{
    int64_t n = 0;
    for (int64_t k = k0; k < k1; k++)
        n += !spx__cuda_sell_padding(col, off, packed, SPX__CUDA_SELL_C * k + l);
    return n;
}

/* The slices of A on the host (sell_build.c), or on the device in a plan. */
typedef struct spx__cuda_sell {
    int64_t rows, cols, nnz;
    int64_t n_slices; /* ceil(rows / 32) */
    int64_t n_steps;  /* sptr[n_slices]; entries = 32 * n_steps */
    int index;        /* SPX__CUDA_SELL_U32 or _U16 */
    int64_t sigma;    /* sorting window in rows; 1: rows in their order, perm NULL */
    int64_t *sptr;    /* n_slices + 1: each slice's first step */
    int32_t *perm;    /* 32 * n_slices (sigma > 1): the row of each lane, -1 past the end */
    int32_t *col;     /* u32: 32 * n_steps columns, -1 in the padding */
    uint16_t *off;    /* u16: 32 * n_steps offsets from base, 0xFFFF in the padding */
    int32_t *base;    /* u16: n_steps, each step's smallest column */
    void *values;     /* 32 * n_steps values, 0 in the padding: host, A's vtype (double
                         or float); device, the plan's precision (NULL when packed) */
    uint32_t *packed; /* device, fp16 with u16: 32 * n_steps words off << 16 | value
                         (values and off are then NULL) */
} spx__cuda_sell;

/* What spx__cuda_sell_build(A, sigma, ...) would make: its stored entries
 * (32 * steps) and whether every step's columns fit index=u16. Allocates
 * only the permutation, for sigma > 1. */
spx_status spx__cuda_sell_measure(const spx_matrix *A, int64_t sigma, int64_t *entries,
                                  int *u16_fits);

/* Build A's slices on the host: sigma >= 1 the sorting window (rounded up to
 * a multiple of 32, at most the rows so rounded), index SPX__CUDA_SELL_U32,
 * _U16 (SPX_ERR_UNSUPPORTED naming the step when a step's columns do not fit
 * 16 bits) or _AUTO (u16 when every step fits, else u32); values 0 leaves
 * out->values NULL (an iso plan: the columns alone). On failure nothing
 * stays allocated and *out is zeroed. */
spx_status spx__cuda_sell_build(const spx_matrix *A, int64_t sigma, int index, int values,
                                spx__cuda_sell *out);
void spx__cuda_sell_free_host(spx__cuda_sell *s); /* host arrays; zeroes *s */

typedef struct spx__cuda_sell_plan {
    spx__cuda_sell S;   /* device arrays */
    spx_type precision; /* F64: double x, y; F32: float; F16: half values, float y */
    int x_half;         /* F16 with xtype=half: x in IEEE half, else float */
    int pdl;            /* launches may overlap the kernel before (cuda/pdl.cuh) */
    void *stream;       /* cudaStream_t of the plan (NULL = default stream) */
    int iso;            /* values=iso (core/iso.h): S.values and S.packed are NULL (u16
                           keeps off), the kernel reads no values, iso_value is folded
                           into alpha */
    double iso_value;
    int values_mode; /* values=: SPX__VALUES_AUTO, _STORED or _ISO (core/iso.h) */
} spx__cuda_sell_plan;

/* The sell method's gateway (cuda/gateway.h; src/cuda/sell/sell_spmv.cu):
 * - pack: *packed = a new device array of n words off[i] << 16 | bits of
 *   vals[i] (n device halves and offsets);
 * - spmv: launch y = alpha*A*x + beta*y on p->stream (asynchronous); beta == 0
 *   never reads y; x and y are device vectors of the plan's precision (x in
 *   half with p->x_half);
 * - refill: an update's values, src (A's nnz values in CSR order, of the
 *   plan's value type: double, float or half), into dst's 32 * n_steps slots,
 *   0 in the padding (the row offsets found as above); packed: dst is
 *   p->S.packed, whose words keep their offsets (high 16 bits) and take the
 *   values' bits (low 16); on p->stream, waited for. */
#define SPX__CUDA_SELL_API(S, Q, V)                                                                \
    S(spx__cuda_sell_pack, (const void *vals, const uint16_t *off, int64_t n, uint32_t **packed))  \
    S(spx__cuda_sell_spmv,                                                                         \
      (const spx__cuda_sell_plan *p, double alpha, const void *x, double beta, void *y))           \
    S(spx__cuda_sell_refill, (const spx__cuda_sell_plan *p, const void *src, void *dst, int packed))

SPX__CUDA_DECLARE(SPX__CUDA_SELL_API)

#ifdef __cplusplus
}
#endif
#endif
