/* SpX binary matrix file (.spx), version 1: the CSR arrays as they are in
 * memory, for reloads at disk speed.
 *
 *   offset  size  field
 *        0     8  magic "\x89SPX\r\n\x1a\n" (catches text-mode transfers, like PNG's)
 *        8     4  version (1)
 *       12     4  byte-order mark 0x01020304 in the writer's order
 *       16     8  rows       (int64)
 *       24     8  cols       (int64)
 *       32     8  nnz        (int64)
 *       40     4  col_bits   (32 or 64; 32 exactly when cols <= INT32_MAX)
 *       44     4  value type (spx_type: 0 fp64, 1 fp32)
 *       48    16  zero (reserved: other bytes are refused)
 *       64        rowptr: rows+1 int64; colidx: nnz int32 or int64; values: nnz
 *                 double or float
 *      end     8  checksum of everything before it
 *
 * Checksum: FNV-1a 64 taken over 8-byte words instead of bytes (8 times
 * faster; any change of one word still changes the result, since each step
 * xor-then-multiply-by-an-odd-prime is a bijection), each part (header and
 * each array) in turn, the 0-7 bytes after a part's last whole word one at a
 * time. A file read back is checked against the checksum, then validated. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "io/mtx.h"

#define SPX__BIN_MAGIC "\x89SPX\r\n\x1a\n"
#define SPX__BIN_VERSION 1u
#define SPX__BIN_BOM 0x01020304u
#define SPX__BIN_HEADER 64
#define SPX__FNV_OFFSET 0xcbf29ce484222325ull
#define SPX__FNV_PRIME 0x100000001b3ull

static uint64_t fnv_words(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t words = n / 8;
    for (size_t w = 0; w < words; w++) {
        uint64_t x;
        memcpy(&x, p + 8 * w, 8);
        h = (h ^ x) * SPX__FNV_PRIME;
    }
    for (size_t b = 8 * words; b < n; b++)
        h = (h ^ p[b]) * SPX__FNV_PRIME;
    return h;
}

typedef struct bin_header {
    uint32_t version, bom, col_bits, vtype;
    int64_t rows, cols, nnz;
} bin_header;

static void header_pack(const bin_header *b, unsigned char *out)
{
    memset(out, 0, SPX__BIN_HEADER);
    memcpy(out, SPX__BIN_MAGIC, 8);
    memcpy(out + 8, &b->version, 4);
    memcpy(out + 12, &b->bom, 4);
    memcpy(out + 16, &b->rows, 8);
    memcpy(out + 24, &b->cols, 8);
    memcpy(out + 32, &b->nnz, 8);
    memcpy(out + 40, &b->col_bits, 4);
    memcpy(out + 44, &b->vtype, 4);
}

static void header_unpack(const unsigned char *in, bin_header *b)
{
    memcpy(&b->version, in + 8, 4);
    memcpy(&b->bom, in + 12, 4);
    memcpy(&b->rows, in + 16, 8);
    memcpy(&b->cols, in + 24, 8);
    memcpy(&b->nnz, in + 32, 8);
    memcpy(&b->col_bits, in + 40, 4);
    memcpy(&b->vtype, in + 44, 4);
}

/* The three arrays of A, its 64-bit offsets rowptr first: pointers and byte
 * sizes. */
static void parts(const spx_matrix *A, const int64_t *rowptr, void *ptr[3], size_t bytes[3])
{
    size_t vsize = A->vtype == SPX_F32 ? sizeof(float) : sizeof(double);
    ptr[0] = (void *)rowptr;
    ptr[1] = A->col_bits == 32 ? (void *)A->col32 : (void *)A->col64;
    ptr[2] = A->values;
    bytes[0] = ((size_t)A->rows + 1) * sizeof(int64_t);
    bytes[1] = (size_t)A->nnz * (size_t)(A->col_bits / 8);
    bytes[2] = (size_t)A->nnz * vsize;
}

static spx_status write_part(FILE *f, const char *path, const void *p, size_t n)
{
    if (n == 0 || fwrite(p, 1, n, f) == n) return SPX_OK;
    return spx__error(SPX_ERR_IO, "%s: write failed: %s", path, strerror(errno));
}

spx_status spx_matrix_write_bin(const spx_matrix *A, const char *path)
{
    spx_status st;
    unsigned char head[SPX__BIN_HEADER];
    const int64_t *rowptr;
    void *ptr[3];
    size_t bytes[3];
    uint64_t h;
    FILE *f;
    if ((st = spx__check_matrix(A, "spx_matrix_write_bin")) != SPX_OK) return st;
    if (!path) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_write_bin: path is NULL");
    if ((st = spx__matrix_rowptr(A, &rowptr)) != SPX_OK) return st;
    bin_header b = {
        SPX__BIN_VERSION, SPX__BIN_BOM, (uint32_t)A->col_bits, (uint32_t)A->vtype, A->rows,
        A->cols,          A->nnz};
    header_pack(&b, head);
    parts(A, rowptr, ptr, bytes);
    if (!(f = fopen(path, "wb")))
        return spx__error(SPX_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    h = fnv_words(SPX__FNV_OFFSET, head, sizeof head);
    SPX_TRY(write_part(f, path, head, sizeof head));
    for (int i = 0; i < 3; i++) {
        h = fnv_words(h, ptr[i], bytes[i]);
        SPX_TRY(write_part(f, path, ptr[i], bytes[i]));
    }
    SPX_TRY(write_part(f, path, &h, sizeof h));
cleanup:
    if (fclose(f) != 0 && st == SPX_OK)
        st = spx__error(SPX_ERR_IO, "%s: closing failed: %s", path, strerror(errno));
    if (st != SPX_OK)
        remove(path);
    else
        spx__clear_error();
    return st;
}

static spx_status bin_error(const char *path, const char *what)
{
    return spx__error(SPX_ERR_BIN_FORMAT, "%s: %s", path, what);
}

/* Header fields and the file size against the sizes they imply. */
static spx_status check_header(const char *path, const unsigned char *raw, const bin_header *b,
                               long file_size)
{
    uint64_t need;
    if (memcmp(raw, SPX__BIN_MAGIC, 8) != 0)
        return bin_error(path, "bad magic (not an SpX binary file)");
    if (b->version != SPX__BIN_VERSION)
        return spx__error(SPX_ERR_BIN_FORMAT, "%s: unsupported version %u (this SpX reads %u)",
                          path, b->version, SPX__BIN_VERSION);
    if (b->bom != SPX__BIN_BOM) return bin_error(path, "written with the other byte order");
    if (b->rows < 0 || b->cols < 0 || b->nnz < 0 || b->rows == INT64_MAX)
        return bin_error(path, "negative or impossible sizes in the header");
    if (b->col_bits != (b->cols <= INT32_MAX ? 32u : 64u) || b->vtype > 1u)
        return bin_error(path, "column width or value type in the header is invalid");
    /* Below these bounds the byte count fits in 64 bits; above, no file is that big. */
    if ((uint64_t)b->rows >= (1ull << 59) || (uint64_t)b->nnz >= (1ull << 59))
        return bin_error(path, "sizes in the header are beyond any file size");
    need = SPX__BIN_HEADER + ((uint64_t)b->rows + 1) * 8 +
           (uint64_t)b->nnz * (b->col_bits / 8 + (b->vtype ? 4 : 8)) + 8;
    if ((uint64_t)file_size < need)
        return spx__error(SPX_ERR_BIN_FORMAT, "%s: truncated (%ld bytes, the header needs %llu)",
                          path, file_size, (unsigned long long)need);
    if ((uint64_t)file_size > need)
        return spx__error(SPX_ERR_BIN_FORMAT, "%s: %llu bytes of trailing garbage", path,
                          (unsigned long long)((uint64_t)file_size - need));
    return SPX_OK;
}

/* Bytes 48..63 are reserved for later versions: version 1 has zeros there,
 * so that each matrix has one encoding and no later field is misread. Checked
 * after the checksum, which tells damage in transit apart first. */
static spx_status check_reserved(const char *path, const unsigned char *raw)
{
    for (int i = 48; i < SPX__BIN_HEADER; i++)
        if (raw[i] != 0) return bin_error(path, "reserved header bytes 48..63 are not zero");
    return SPX_OK;
}

static long file_size(FILE *f)
{
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (fseek(f, 0, SEEK_SET) != 0) n = -1;
    return n;
}

static spx_status read_body(FILE *f, const char *path, spx_matrix *A, uint64_t h)
{
    void *ptr[3];
    size_t bytes[3];
    uint64_t stored;
    parts(A, A->rowptr, ptr, bytes);
    for (int i = 0; i < 3; i++) {
        if (fread(ptr[i], 1, bytes[i], f) != bytes[i]) return bin_error(path, "truncated");
        h = fnv_words(h, ptr[i], bytes[i]);
    }
    if (fread(&stored, 1, sizeof stored, f) != sizeof stored) return bin_error(path, "truncated");
    if (stored != h)
        return spx__error(SPX_ERR_BIN_FORMAT,
                          "%s: checksum mismatch (stored %016llx, computed %016llx)", path,
                          (unsigned long long)stored, (unsigned long long)h);
    return SPX_OK;
}

spx_status spx_matrix_read_bin(const char *path, spx_matrix **A)
{
    spx_status st = SPX_OK;
    unsigned char raw[SPX__BIN_HEADER];
    bin_header b;
    spx_matrix *M = NULL;
    long size;
    FILE *f;
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read_bin: A is NULL");
    *A = NULL;
    if (!path) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read_bin: path is NULL");
    if (!(f = fopen(path, "rb")))
        return spx__error(SPX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if ((size = file_size(f)) < 0) {
        st = spx__error(SPX_ERR_IO, "%s: cannot find the file size", path);
        goto cleanup;
    }
    if (fread(raw, 1, sizeof raw, f) != sizeof raw) {
        st = size >= 8 && memcmp(raw, SPX__BIN_MAGIC, 8) != 0
                 ? bin_error(path, "bad magic (not an SpX binary file)")
                 : spx__error(SPX_ERR_BIN_FORMAT,
                              "%s: truncated (%ld bytes, shorter than the "
                              "header)",
                              path, size);
        goto cleanup;
    }
    header_unpack(raw, &b);
    SPX_TRY(check_header(path, raw, &b, size));
    SPX_TRY(spx__matrix_alloc(b.rows, b.cols, b.nnz, (spx_type)b.vtype, &M));
    SPX_TRY(read_body(f, path, M, fnv_words(SPX__FNV_OFFSET, raw, sizeof raw)));
    SPX_TRY(check_reserved(path, raw));
    SPX_TRY(spx_matrix_validate(M));
    *A = M;
    M = NULL;
    spx__clear_error();
cleanup:
    spx_matrix_destroy(M);
    fclose(f);
    return st;
}
