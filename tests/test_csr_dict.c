/* The CUDA csr format's diagonal dictionaries (index=dict), built on the host
 * (src/cuda/csr/csr_dict.c), decoded back and compared with A's CSR: every
 * row of at most long_len entries lies in exactly one row block, blocks are
 * runs of such rows within the bounds (rows, nonzeros, 256 entries), each
 * row's 16-bit end is right, and every column is row + dict[code]. Runs
 * without a GPU. */

#include "common.h"
#include "core/matrix.h"
#include "cuda/csr/csr_kernels.h"

/* 1 when d decodes back to A's columns and respects the block bounds. */
static int decodes(const spx_matrix *A, const spx__csr_dict *d, int64_t long_len, int64_t cap)
{
    const int64_t *rp = A->rowptr;
    int64_t next = 0, pos = 0; /* first row not yet covered, first free code */
    for (int64_t b = 0; b < d->n_blocks; b++) {
        const int64_t *k = d->blk + 4 * b;
        const int64_t r0 = k[0], r1 = k[1], e0 = d->dstart[b], ne = d->dstart[b + 1] - e0;
        if (r0 < next || r1 <= r0 || r1 - r0 > SPX__CUDA_CSR_BLOCK) return 0;
        if (k[2] % 8 || k[2] < pos || k[3] - k[2] != rp[r1] - rp[r0] || k[3] - k[2] > cap) return 0;
        pos = k[3];
        if (ne < 0 || ne > SPX__CUDA_CSR_DICT) return 0;
        for (int64_t i = next; i < r0; i++) /* rows skipped: long ones only */
            if (rp[i + 1] - rp[i] <= long_len) return 0;
        for (int64_t i = r0; i < r1; i++) {
            if (rp[i + 1] - rp[i] > long_len || d->roff[i] != rp[i + 1] - rp[r0]) return 0;
            for (int64_t j = rp[i]; j < rp[i + 1]; j++) /* a group's first code names its row */
                if ((j - rp[r0]) % 8 == 0 && d->grow[(k[2] + j - rp[r0]) / 8] != i - r0) return 0;
            for (int64_t j = rp[i]; j < rp[i + 1]; j++) {
                const uint8_t c = d->code[k[2] + j - rp[r0]];
                if (c >= ne || i + d->dict[e0 + c] != A->col32[j]) return 0;
            }
        }
        next = r1;
    }
    for (int64_t i = next; i < A->rows; i++)
        if (rp[i + 1] - rp[i] <= long_len) return 0;
    return d->dstart[d->n_blocks] == d->n_entries && pos <= d->n_codes && d->n_codes % 8 == 0;
}

static void check_spec(const char *spec, int64_t long_len, int64_t cap, int64_t max_per_block)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate(spec, &A), SPX_OK)) return;
    spx__csr_dict d;
    int fits = 0;
    if (CHECK_STATUS(spx__csr_dict_build(A, long_len, cap, INT64_MAX, &d, &fits), SPX_OK) &&
        CHECK(fits)) {
        if (!CHECK(decodes(A, &d, long_len, cap)))
            printf("  %s long=%lld cap=%lld: does not decode\n", spec, (long long)long_len,
                   (long long)cap);
        if (max_per_block > 0 && !CHECK(d.n_entries <= max_per_block * d.n_blocks))
            printf("  %s: %lld entries over %lld blocks, more than %lld a block\n", spec,
                   (long long)d.n_entries, (long long)d.n_blocks, (long long)max_per_block);
    }
    spx__csr_dict_free(&d);
    spx_matrix_destroy(A);
}

int main(void)
{
    /* Stencils: 7 and 27 diagonals, so that many entries a block at most. */
    check_spec("lap3d7:20", 256, 2048, 7);
    check_spec("lap3d7:20", 256, 1024, 7);
    check_spec("lap3d27:12", 256, 2048, 27);
    check_spec("lap3d27:12", 64, 1024, 27);
    check_spec("lap2d5:50", 256, 2048, 5);

    /* Random rows, long ones included: blocks close at 256 entries. */
    spx_matrix *A = spx_test_uniform_rows_matrix(3000, 200000, 400, 5);
    spx__csr_dict d;
    int fits = 0;
    if (A && CHECK_STATUS(spx__csr_dict_build(A, 256, 2048, INT64_MAX, &d, &fits), SPX_OK) &&
        CHECK(fits))
        CHECK(decodes(A, &d, 256, 2048));
    spx__csr_dict_free(&d);
    /* ... and they have too many diagonals for a limit of one entry per 8 nonzeros. */
    if (A && CHECK_STATUS(spx__csr_dict_build(A, 256, 2048, A->nnz / 8, &d, &fits), SPX_OK)) {
        CHECK(!fits);
        CHECK(d.code == NULL && d.n_blocks == 0);
    }
    /* Rows longer than a dictionary can name are refused. */
    if (A)
        CHECK_STATUS(spx__csr_dict_build(A, 300, 2048, INT64_MAX, &d, &fits), SPX_ERR_UNSUPPORTED);
    spx_matrix_destroy(A);

    /* No rows, and rows without entries. */
    static const int64_t rp0[] = {0, 0, 0, 0};
    static const int32_t ci0[] = {0};
    for (int s = 0; s < 2; s++) {
        A = NULL;
        if (CHECK_STATUS(spx_matrix_create_csr(s ? 3 : 0, 3, rp0, ci0, NULL, &A), SPX_OK) &&
            CHECK_STATUS(spx__csr_dict_build(A, 256, 2048, INT64_MAX, &d, &fits), SPX_OK) &&
            CHECK(fits))
            CHECK(decodes(A, &d, 256, 2048) && d.n_entries == 0);
        spx__csr_dict_free(&d);
        spx_matrix_destroy(A);
    }
    return spx_test_finish();
}
