/* libFuzzer harness: the SpX binary reader (.spx, layout in src/io/bin.c).
 *
 * Each input is read twice: as it is (a mutated file almost never keeps its
 * checksum, so this run explores the header checks) and with its last 8
 * bytes replaced by the checksum of the rest, which takes it on to the
 * validation of the arrays. A file that reads back must be written again to
 * the same bytes: the format has one encoding of each matrix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define HEADER 64
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* bin.c's checksum of one part: FNV-1a over 8-byte words, then the bytes left. */
static uint64_t fnv_part(uint64_t h, const uint8_t *p, size_t n)
{
    size_t k = 0;
    for (uint64_t w; k + 8 <= n; k += 8) {
        memcpy(&w, p + k, 8);
        h = (h ^ w) * FNV_PRIME;
    }
    for (; k < n; k++)
        h = (h ^ p[k]) * FNV_PRIME;
    return h;
}

/* The checksum of body[0..n), cut into the parts its header implies when they
 * fill it exactly (else one part: the reader refuses the size anyway). */
static uint64_t checksum(const uint8_t *body, size_t n)
{
    int64_t rows, nnz;
    uint32_t col_bits, vtype;
    size_t part[4] = {n, 0, 0, 0};
    if (n >= HEADER) {
        memcpy(&rows, body + 16, 8);
        memcpy(&nnz, body + 32, 8);
        memcpy(&col_bits, body + 40, 4);
        memcpy(&vtype, body + 44, 4);
        if (rows >= 0 && nnz >= 0 && rows < (1 << 24) && nnz < (1 << 24) &&
            (col_bits == 32 || col_bits == 64) && vtype <= 1) {
            size_t rp = ((size_t)rows + 1) * 8, ci = (size_t)nnz * (col_bits / 8),
                   v = (size_t)nnz * (vtype ? 4 : 8);
            if (HEADER + rp + ci + v == n) {
                part[0] = HEADER;
                part[1] = rp;
                part[2] = ci;
                part[3] = v;
            }
        }
    }
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0, at = 0; i < 4; at += part[i++])
        h = fnv_part(h, body + at, part[i]);
    return h;
}

/* Read path; when it reads, write it again and compare with the bytes. */
static void read_and_rewrite(const char *path, const uint8_t *data, size_t size)
{
    spx_matrix *A = (spx_matrix *)&A;
    spx_status st = spx_matrix_read_bin(path, &A);
    if (st != SPX_OK) {
        spx_fuzz_failed(st, A);
        return;
    }
    spx_fuzz_require(spx_matrix_validate(A) == SPX_OK, "a matrix read is not valid");
    const char *again = spx_fuzz_file("again.spx", (const uint8_t *)"", 0);
    spx_fuzz_require(spx_matrix_write_bin(A, again) == SPX_OK, "a matrix read does not write");
    spx_matrix_destroy(A);
    FILE *f = fopen(again, "rb");
    uint8_t *back = malloc(size + 1);
    spx_fuzz_require(f && back, "cannot read the file written back");
    size_t got = fread(back, 1, size + 1, f);
    fclose(f);
    spx_fuzz_require(got == size && memcmp(back, data, size) == 0,
                     "a file read and written again changes");
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_and_rewrite(spx_fuzz_file("input.spx", data, size), data, size);
    if (size < HEADER + 8) return 0;
    uint8_t *fixed = malloc(size);
    spx_fuzz_require(fixed != NULL, "out of memory in the harness");
    memcpy(fixed, data, size);
    uint64_t h = checksum(fixed, size - 8);
    memcpy(fixed + size - 8, &h, 8);
    read_and_rewrite(spx_fuzz_file("input.spx", fixed, size), fixed, size);
    free(fixed);
    return 0;
}
