/* Matrix Market header: line 1 is the banner
 *   %%MatrixMarket matrix (coordinate|array) (real|integer|pattern|complex)
 *                  (general|symmetric|skew-symmetric|hermitian)
 * (words in any case, separated by blanks), then comment lines (first
 * non-blank character '%') and blank lines, then the size line
 * "rows cols entries" (coordinate) or "rows cols" (array).
 * complex is refused (SPX_ERR_UNSUPPORTED); pattern goes with coordinate and
 * general or symmetric only. Symmetric kinds must be square (SPX_ERR_MTX_SYMMETRY
 * on the size line). A coordinate file may not promise more entries than
 * rows*cols; array files hold rows*cols values (general), n(n+1)/2 (symmetric,
 * hermitian: lower triangle with the diagonal) or n(n-1)/2 (skew-symmetric). */
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx.h"
#include "io/mtx_number.h"

typedef struct word {
    const char *s;
    size_t n;
} word;

static int word_is(word w, const char *lower)
{
    size_t n = strlen(lower);
    if (w.n != n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((w.s[i] >= 'A' && w.s[i] <= 'Z' ? w.s[i] | 0x20 : w.s[i]) != lower[i]) return 0;
    return 1;
}

/* Index of w in the NULL-terminated list, or -1. */
static int word_pick(word w, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (word_is(w, list[i])) return i;
    return -1;
}

/* Split the line at p into up to max words; returns the count (max+1 if more). */
static int split_line(const char *p, word *w, int max)
{
    int n = 0;
    for (;;) {
        p = spx__mtx_skip_blank(p);
        if (*p == '\n') return n;
        if (n == max) return max + 1;
        w[n].s = p;
        while (!spx__mtx_field_end(*p))
            p++;
        w[n].n = (size_t)(p - w[n].s);
        n++;
    }
}

static spx_status banner_error(const char *path, const char *what, word w)
{
    return spx__error(SPX_ERR_MTX_BANNER, "%s: line 1: %s '%.*s'", path, what,
                      (int)(w.n > 40 ? 40 : w.n), w.s);
}

static spx_status parse_banner(const char *path, const char *p, spx__mtx_header *h)
{
    static const char *const formats[] = {"coordinate", "array", NULL};
    static const char *const fields[] = {"real", "integer", "pattern", "complex", NULL};
    static const char *const kinds[] = {"general", "symmetric", "skew-symmetric", "hermitian",
                                        NULL};
    word w[5];
    int n = split_line(p, w, 5);
    if (n == 0 || !word_is(w[0], "%%matrixmarket"))
        return spx__error(SPX_ERR_MTX_BANNER,
                          "%s: line 1: the file does not start with %%%%MatrixMarket", path);
    if (n != 5)
        return spx__error(SPX_ERR_MTX_BANNER,
                          "%s: line 1: banner has %s%d words, expected %%%%MatrixMarket matrix "
                          "format field symmetry",
                          path, n > 5 ? "more than " : "", n > 5 ? 5 : n);
    if (!word_is(w[1], "matrix")) return banner_error(path, "object is not 'matrix':", w[1]);
    h->array = word_pick(w[2], formats);
    h->field = word_pick(w[3], fields);
    h->symmetry = word_pick(w[4], kinds);
    if (h->array < 0) return banner_error(path, "unknown format", w[2]);
    if (h->field < 0) return banner_error(path, "unknown field", w[3]);
    if (h->symmetry < 0) return banner_error(path, "unknown symmetry", w[4]);
    if (h->field == 3)
        return spx__error(SPX_ERR_UNSUPPORTED, "%s: line 1: complex values are not supported",
                          path);
    if (h->field == SPX__MTX_PATTERN &&
        (h->array || h->symmetry == SPX__MTX_SKEW || h->symmetry == SPX__MTX_HERMITIAN))
        return spx__error(SPX_ERR_MTX_BANNER,
                          "%s: line 1: pattern goes only with coordinate general or symmetric",
                          path);
    return SPX_OK;
}

/* Values an array file holds. */
static spx_status array_values(const char *path, int64_t line, spx__mtx_header *h)
{
    int64_t n = h->rows, a, b;
    if (h->symmetry == SPX__MTX_GENERAL) {
        if (h->cols != 0 && h->rows > INT64_MAX / h->cols)
            return spx__error(SPX_ERR_OVERFLOW, "%s: line %lld: %lld x %lld values overflow int64",
                              path, (long long)line, (long long)h->rows, (long long)h->cols);
        h->entries = h->rows * h->cols;
        return SPX_OK;
    }
    /* n(n+1)/2 as a product of two integers, the even factor halved. */
    a = n % 2 == 0 ? n / 2 : n;
    b = n % 2 == 0 ? n + 1 : n / 2 + 1;
    if (a > 0 && b > INT64_MAX / a)
        return spx__error(SPX_ERR_OVERFLOW,
                          "%s: line %lld: triangle of order %lld overflows "
                          "int64",
                          path, (long long)line, (long long)n);
    h->entries = a * b;
    if (h->symmetry == SPX__MTX_SKEW) h->entries -= n;
    return SPX_OK;
}

/* The fuzz build stands this many bytes for the machine's memory, below the
 * fuzzer's own limit: a valid file of 10^9 empty rows needs 8 GB of offsets,
 * which is no bug but would end the fuzzing run. */
#ifndef SPX__MTX_MEMORY_LIMIT
#define SPX__MTX_MEMORY_LIMIT SIZE_MAX
#endif

/* The matrix needs rows+1 offsets of 8 bytes whatever its entries: refuse a
 * row count whose offsets exceed the machine's memory before any allocation
 * (a 2^40-row file of three entries would otherwise ask for 8 TiB). */
static spx_status check_row_offsets(const char *path, int64_t line, const spx__mtx_header *h)
{
    size_t mem = spx__physical_memory();
    if (mem == 0 || mem > (size_t)SPX__MTX_MEMORY_LIMIT) mem = (size_t)SPX__MTX_MEMORY_LIMIT;
    if (mem == SIZE_MAX || (uint64_t)h->rows < mem / sizeof(int64_t)) return SPX_OK;
    return spx__error(SPX_ERR_OOM,
                      "%s: line %lld: %lld rows need %.3g GB of row offsets, more than this "
                      "machine's %.3g GB of memory",
                      path, (long long)line, (long long)h->rows, 8e-9 * ((double)h->rows + 1),
                      1e-9 * (double)mem);
}

/* Check sizes read from the size line. */
static spx_status check_sizes(const char *path, int64_t line, spx__mtx_header *h)
{
    spx_status st;
    if (h->rows < 0 || h->cols < 0 || h->entries < 0)
        return spx__error(SPX_ERR_MTX_SIZE, "%s: line %lld: negative size", path, (long long)line);
    if (h->symmetry != SPX__MTX_GENERAL && h->rows != h->cols)
        return spx__error(SPX_ERR_MTX_SYMMETRY,
                          "%s: line %lld: a symmetric kind needs a square matrix, not %lld x %lld",
                          path, (long long)line, (long long)h->rows, (long long)h->cols);
    if (h->array) {
        if ((st = array_values(path, line, h)) != SPX_OK) return st;
        return check_row_offsets(path, line, h);
    }
    int fits = h->rows == 0 || h->cols <= INT64_MAX / h->rows;
    if ((h->rows == 0 || h->cols == 0) ? h->entries > 0 : fits && h->entries > h->rows * h->cols)
        return spx__error(SPX_ERR_MTX_SIZE, "%s: line %lld: %lld entries exceed %lld x %lld", path,
                          (long long)line, (long long)h->entries, (long long)h->rows,
                          (long long)h->cols);
    return check_row_offsets(path, line, h);
}

static spx_status parse_size(const char *path, const char *p, int64_t line, spx__mtx_header *h)
{
    int64_t v[3] = {0, 0, 0};
    int want = h->array ? 2 : 3, got = 0;
    for (p = spx__mtx_skip_blank(p); *p != '\n' && got < 3; p = spx__mtx_skip_blank(p)) {
        int r = spx__mtx_int(&p, &v[got]);
        if (r == SPX__NUM_RANGE)
            return spx__error(SPX_ERR_OVERFLOW, "%s: line %lld: size %d does not fit int64", path,
                              (long long)line, got + 1);
        if (r != SPX__NUM_OK)
            return spx__error(SPX_ERR_MTX_SIZE,
                              "%s: line %lld: size line field %d is not an "
                              "integer",
                              path, (long long)line, got + 1);
        got++;
    }
    if (got != want || *p != '\n')
        return spx__error(SPX_ERR_MTX_SIZE, "%s: line %lld: size line needs %d integers (%s)", path,
                          (long long)line, want, h->array ? "rows cols" : "rows cols entries");
    h->rows = v[0];
    h->cols = v[1];
    h->entries = v[2];
    return check_sizes(path, line, h);
}

spx_status spx__mtx_header_parse(const char *path, const char *buf, size_t len, spx__mtx_header *h)
{
    const char *p = buf, *end = buf + len;
    int64_t line = 1;
    spx_status st;
    memset(h, 0, sizeof *h);
    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) p += 3; /* UTF-8 byte order mark */
    if ((st = parse_banner(path, p, h)) != SPX_OK) return st;
    for (;;) {
        p = (const char *)memchr(p, '\n', (size_t)(end - p) + 1) + 1;
        line++;
        if (p >= end)
            return spx__error(SPX_ERR_MTX_SIZE, "%s: line %lld: file ends before the size line",
                              path, (long long)line - 1);
        const char *q = spx__mtx_skip_blank(p);
        if (*q != '%' && *q != '\n') break;
    }
    if ((st = parse_size(path, p, line, h)) != SPX_OK) return st;
    p = (const char *)memchr(p, '\n', (size_t)(end - p) + 1) + 1;
    h->body = p > end ? len : (size_t)(p - buf);
    h->body_line = line + 1;
    return SPX_OK;
}
