/* Row blocks with diagonal dictionaries, for the CUDA csr format's index=dict.
 *
 * A stencil or banded matrix repeats few diagonals: over a run of rows, the
 * offset d = col - row takes a handful of values. Each row block keeps its
 * distinct offsets (at most 256, int32, in order of first use) in a
 * dictionary, and each of its nonzeros a one-byte code into it:
 *     col_k = row(k) + dict[dstart[b] + code[k]].
 * The rows' ends are 16-bit offsets into their block (a block holds at most
 * 2048 nonzeros). Blocks start at multiples of 8 in the code array (and in
 * the plan's own value array), so that a thread loads 8 codes and 8 values
 * with vector loads; the gaps hold code 0 (and value 0). For each 8 codes
 * the row (counted in the block) of the first is kept too, so that a thread
 * finds its nonzeros' rows by stepping through the row ends from there. Index bytes per nonzero: 1
 * + 4 * entries / nnz, plus 2 per row, against CSR's 4, plus 8 per row. A block closes at
 * SPX__CUDA_CSR_BLOCK rows, `cap` nonzeros, 256 offsets or a row longer than long_len (which the
 * chunk kernels take, with its 32-bit columns). */
#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cuda/csr/csr_kernels.h"

#define SLOTS 1024 /* hash slots, a power of two over 2 * SPX__CUDA_CSR_DICT */

/* The offsets of the open block: an open-addressed hash set; a slot is in the
 * set when its gen matches the block's, so a new block costs one increment. */
typedef struct offset_set {
    int64_t key[SLOTS];
    uint32_t gen[SLOTS];
    uint8_t code[SLOTS];
    uint32_t now;
    int count;
} offset_set;

static void set_clear(offset_set *s)
{
    s->now++;
    s->count = 0;
}

/* Code of offset d, added when new; -1 when the set is full. */
static int set_code(offset_set *s, int64_t d)
{
    uint64_t h = ((uint64_t)d * 0x9E3779B97F4A7C15ull) >> 54; /* 10 bits */
    for (;; h = (h + 1) & (SLOTS - 1)) {
        if (s->gen[h] != s->now) break;
        if (s->key[h] == d) return s->code[h];
    }
    if (s->count == SPX__CUDA_CSR_DICT) return -1;
    s->gen[h] = s->now;
    s->key[h] = d;
    s->code[h] = (uint8_t)s->count;
    return s->count++;
}

/* One walk over A's rows: counts blocks and entries, and with out->blk set
 * fills every array. Returns 0 when `limit` entries are passed before the end
 * (the matrix has too many diagonals to gain from a dictionary). */
static int walk(const spx_matrix *A, const int64_t *rp, int64_t long_len, int64_t cap,
                int64_t limit, offset_set *s, spx__csr_dict *out)
{
    const int32_t *ci = A->col32;
    const int fill = out->blk != NULL;
    int64_t nb = 0, ne = 0, i = 0, pos = 0; /* pos: the open block's first code */
    while (i < A->rows) {
        if (rp[i + 1] - rp[i] > long_len) {
            i++;
            continue;
        }
        const int64_t start = i;
        set_clear(s);
        if (fill) out->dstart[nb] = (int32_t)ne;
        for (; i < A->rows && i - start < SPX__CUDA_CSR_BLOCK && rp[i + 1] - rp[i] <= long_len &&
               rp[i + 1] - rp[start] <= cap;
             i++) {
            const int before = s->count;
            int64_t k = rp[i];
            for (; k < rp[i + 1]; k++) {
                const int c = set_code(s, (int64_t)ci[k] - i);
                if (c < 0) break;
                if (fill) {
                    const int64_t q = pos + k - rp[start];
                    out->code[q] = (uint8_t)c;
                    if (q % 8 == 0) out->grow[q / 8] = (uint8_t)(i - start);
                    if (c == s->count - 1) out->dict[ne + c] = (int32_t)((int64_t)ci[k] - i);
                }
            }
            if (k < rp[i + 1]) { /* row i starts the next block; its offsets are dropped */
                s->count = before;
                break;
            }
            if (fill) out->roff[i] = (uint16_t)(rp[i + 1] - rp[start]);
        }
        if (fill) {
            out->blk[4 * nb] = start;
            out->blk[4 * nb + 1] = i;
            out->blk[4 * nb + 2] = pos;
            out->blk[4 * nb + 3] = pos + rp[i] - rp[start];
        }
        pos += (rp[i] - rp[start] + 7) / 8 * 8;
        ne += s->count;
        nb++;
        if (ne > limit) return 0;
    }
    out->n_blocks = nb;
    out->n_entries = ne;
    out->n_codes = pos;
    if (fill) out->dstart[nb] = (int32_t)ne;
    return 1;
}

void spx__csr_dict_free(spx__csr_dict *d)
{
    spx__free(d->blk);
    spx__free(d->dstart);
    spx__free(d->dict);
    spx__free(d->code);
    spx__free(d->roff);
    spx__free(d->grow);
    *d = (spx__csr_dict){0};
}

spx_status spx__csr_dict_build(const spx_matrix *A, int64_t long_len, int64_t cap,
                               int64_t max_entries, spx__csr_dict *out, int *fits)
{
    offset_set *s = NULL;
    const int64_t *rp = NULL;
    spx_status st = SPX_OK;
    *out = (spx__csr_dict){0};
    *fits = 0;
    if (long_len > SPX__CUDA_CSR_DICT || cap > UINT16_MAX || A->col_bits != 32 ||
        A->rows >= INT32_MAX || A->nnz >= INT32_MAX / 2)
        return spx__error(SPX_ERR_UNSUPPORTED,
                          "csr (cuda) index=dict: needs rows of at most %d entries (long=%lld), "
                          "fewer than 2^31 rows and 2^30 nonzeros",
                          SPX__CUDA_CSR_DICT, (long long)long_len);
    SPX_TRY(spx__matrix_rowptr(A, &rp));
    SPX_TRY(spx__calloc((void **)&s, 1, sizeof *s, "csr dict offset set"));
    if (!walk(A, rp, long_len, cap, max_entries, s, out)) goto cleanup;
    const int64_t nb = out->n_blocks, ne = out->n_entries;
    SPX_TRY(spx__alloc((void **)&out->blk, (size_t)nb * 4, sizeof *out->blk, "csr dict blocks"));
    SPX_TRY(spx__alloc((void **)&out->dstart, (size_t)nb + 1, sizeof *out->dstart,
                       "csr dict block starts"));
    SPX_TRY(spx__alloc((void **)&out->dict, (size_t)ne, sizeof *out->dict, "csr dict entries"));
    SPX_TRY(spx__calloc((void **)&out->code, (size_t)out->n_codes, sizeof *out->code,
                        "csr dict codes"));
    SPX_TRY(spx__calloc((void **)&out->grow, (size_t)out->n_codes / 8, sizeof *out->grow,
                        "csr dict group rows"));
    SPX_TRY(
        spx__calloc((void **)&out->roff, (size_t)A->rows, sizeof *out->roff, "csr dict row ends"));
    walk(A, rp, long_len, cap, INT64_MAX, s, out);
    *fits = 1;
cleanup:
    if (st != SPX_OK || !*fits) spx__csr_dict_free(out);
    spx__free(s);
    return st;
}
