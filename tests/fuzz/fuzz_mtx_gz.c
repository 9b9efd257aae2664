/* libFuzzer harness: the Matrix Market reader on .mtx.gz files. The input is
 * the compressed file, read with several threads and with one.
 *
 * Custom mutator: on odd seeds libFuzzer mutates the compressed bytes as they
 * are (broken headers, blocks, CRCs and lengths, cut streams); on even seeds
 * the text inside a stream that inflates is mutated and deflated again, so
 * that the parser behind zlib is explored as well. */
#include <string.h>
#include <zlib.h>

#include "fuzz.h"

#define PLAIN_MAX (1u << 16)

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spx_fuzz_read_mtx(spx_fuzz_file("input.mtx.gz", data, size));
    return 0;
}

/* A whole gzip stream of at most PLAIN_MAX bytes into plain; its length or 0. */
static size_t inflate_gz(const uint8_t *data, size_t size, uint8_t *plain)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return 0;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    z.next_out = plain;
    z.avail_out = PLAIN_MAX;
    int rc = inflate(&z, Z_FINISH);
    size_t n = PLAIN_MAX - z.avail_out;
    inflateEnd(&z);
    return rc == Z_STREAM_END ? n : 0;
}

/* plain as one gzip stream into out (room max); its length or 0. */
static size_t deflate_gz(const uint8_t *plain, size_t n, uint8_t *out, size_t max, int level)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (Bytef *)plain;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)max;
    int rc = deflate(&z, Z_FINISH);
    size_t len = max - z.avail_out;
    deflateEnd(&z);
    return rc == Z_STREAM_END ? len : 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    static uint8_t plain[PLAIN_MAX], packed[PLAIN_MAX];
    size_t n = seed % 2 ? 0 : inflate_gz(data, size, plain), len = 0;
    if (n > 0) {
        n = LLVMFuzzerMutate(plain, n, PLAIN_MAX);
        int level = 1 + (int)(seed / 2 % 9);
        len = deflate_gz(plain, n, packed, max < PLAIN_MAX ? max : PLAIN_MAX, level);
    }
    if (len == 0) return LLVMFuzzerMutate(data, size, max);
    memcpy(data, packed, len);
    return len;
}
