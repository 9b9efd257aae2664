/* A whole file in memory, followed by a '\n' sentinel so that line parsers
 * need no end checks, and SPX__MTX_PAD zero bytes for eight-byte reads.
 * Plain files are read in one fread of their size; gzip files are inflated
 * by zlib into a buffer that doubles as it fills. */
#include "io/mtx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx_number.h"

#ifdef SPX_HAVE_ZLIB
#include <zlib.h>
#endif

int spx__io_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char a = path[n - m + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/* Put the sentinel after n bytes and give *buf to the caller. */
static void hand_over(char **buf, size_t n, char **data, size_t *len)
{
    (*buf)[n] = '\n';
    memset(*buf + n + 1, 0, SPX__MTX_PAD);
    *data = *buf;
    *len = n;
    *buf = NULL;
}

static spx_status load_plain(const char *path, char **data, size_t *len)
{
    spx_status st = SPX_OK;
    char *buf = NULL;
    long size = -1;
    FILE *f = fopen(path, "rb");
    if (!f) return spx__error(SPX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        st = spx__error(SPX_ERR_IO, "%s: cannot find the file size: %s", path, strerror(errno));
        goto cleanup;
    }
    SPX_TRY(spx__alloc((void **)&buf, (size_t)size + 1 + SPX__MTX_PAD, 1, "file contents"));
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        st = spx__error(SPX_ERR_IO, "%s: read failed after %ld bytes", path, size);
        goto cleanup;
    }
    hand_over(&buf, (size_t)size, data, len);
cleanup:
    spx__free(buf);
    fclose(f);
    return st;
}

#ifdef SPX_HAVE_ZLIB
/* Line number where a cut stream ends: newlines seen plus one. */
static int64_t lines_in(const char *buf, size_t n)
{
    int64_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    return lines;
}

/* Grow *buf (capacity *cap, n bytes used) to twice its capacity. */
static spx_status grow(char **buf, size_t *cap, size_t n)
{
    char *bigger;
    spx_status st =
        spx__alloc((void **)&bigger, *cap * 2 + 1 + SPX__MTX_PAD, 1, "inflated file contents");
    if (st != SPX_OK) return st;
    memcpy(bigger, *buf, n);
    spx__free(*buf);
    *buf = bigger;
    *cap *= 2;
    return SPX_OK;
}

static spx_status load_gz(const char *path, char **data, size_t *len)
{
    spx_status st = SPX_OK;
    size_t cap = (size_t)1 << 22, n = 0;
    char *buf = NULL;
    int err = Z_OK;
    gzFile gz = gzopen(path, "rb");
    if (!gz) return spx__error(SPX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    gzbuffer(gz, 1u << 18);
    SPX_TRY(spx__alloc((void **)&buf, cap + 1 + SPX__MTX_PAD, 1, "inflated file contents"));
    for (;;) {
        if (n == cap) SPX_TRY(grow(&buf, &cap, n));
        size_t want = cap - n < ((size_t)1 << 30) ? cap - n : (size_t)1 << 30;
        int got = gzread(gz, buf + n, (unsigned)want);
        if (got <= 0) break;
        n += (size_t)got;
    }
    const char *msg = gzerror(gz, &err);
    if (err == Z_BUF_ERROR) {
        st = spx__error(SPX_ERR_MTX_TRUNCATED,
                        "%s: line %lld: compressed stream ends early (truncated file)", path,
                        (long long)lines_in(buf, n));
        goto cleanup;
    }
    if (err != Z_OK && err != Z_STREAM_END) {
        st = spx__error(SPX_ERR_IO, "%s: line %lld: zlib: %s", path, (long long)lines_in(buf, n),
                        msg);
        goto cleanup;
    }
    hand_over(&buf, n, data, len);
cleanup:
    spx__free(buf);
    gzclose(gz);
    return st;
}
#endif

spx_status spx__io_load(const char *path, int gz, char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (!gz) return load_plain(path, data, len);
#ifdef SPX_HAVE_ZLIB
    return load_gz(path, data, len);
#else
    return spx__error(SPX_ERR_NOT_COMPILED, "%s: SpX was built without zlib", path);
#endif
}
