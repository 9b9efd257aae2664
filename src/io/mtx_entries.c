/* Matrix Market entry section into 0-based triplets, in parallel.
 *
 * Coordinate lines are "row col [value]" (1-based, value absent for
 * pattern); array lines hold one value each, column by column (symmetric and
 * hermitian: the lower triangle with the diagonal; skew-symmetric: strictly
 * below it). Array zeros are dropped (ri = -1): a matrix read from an array
 * file stores its nonzeros only. Comment and blank lines may appear anywhere.
 *
 * The section is cut into one chunk per thread at line starts. Pass 1 counts
 * lines and entry lines per chunk, so each chunk knows the number of its
 * first line and the index of its first entry; pass 2 parses each chunk into
 * its slice of the triplet arrays. Each chunk keeps its first error; the one
 * on the lowest line is reported, so the result is the one a sequential
 * reader would give. A malformed last line with no '\n' after it is a
 * truncated file, and so is a file without a final '\n' that has too few
 * entries. */
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx.h"
#include "io/mtx_number.h"

/* Below this many bytes one thread parses (thread start-up would dominate).
 * The fuzz build lowers it so that small inputs take the parallel path. */
#ifndef SPX__MTX_PARALLEL_BYTES
#define SPX__MTX_PARALLEL_BYTES ((size_t)1 << 20)
#endif

typedef struct chunk {
    const char *s, *e;      /* whole lines [s, e) */
    int64_t line0, entry0;  /* number of the first line, index of the first entry */
    int64_t lines, entries; /* counted by pass 1 */
    int64_t extra_line;     /* line of the entry past the promised count, or 0 */
    spx_status st;          /* first error of the chunk */
    int64_t err_line;
    char msg[240];
} chunk;

typedef struct ctx {
    const spx__mtx_header *h;
    spx__mtx_triplets *t;
    int64_t limit;      /* entries to parse: min(promised, present) */
    const char *eof_nl; /* the sentinel when the file lacks a final '\n', else NULL */
} ctx;

static void fail(chunk *c, spx_status st, int64_t line, const char *fmt, ...) SPX__PRINTF(4, 5);
static void fail(chunk *c, spx_status st, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->st = st;
    c->err_line = line;
}

/* Pass 1: lines and entry lines of the chunk (glibc's memchr finds the line
 * ends faster than a byte loop counts them). */
static void count_chunk(chunk *c)
{
    int64_t lines = 0, entries = 0;
    for (const char *p = c->s; p < c->e; lines++) {
        if (spx__mtx_digit(*p) <= 9) {
            entries++;
        } else {
            const char *q = spx__mtx_skip_blank(p);
            entries += *q != '\n' && *q != '%';
        }
        p = (const char *)memchr(p, '\n', (size_t)(c->e - p) + 1) + 1;
    }
    c->lines = lines;
    c->entries = entries;
}

static const char *const ordinal[4] = {"", "first", "second", "third"};

/* Length of the field at p, at most 40 (for messages). */
static int field_len(const char *p)
{
    int n = 0;
    while (n < 40 && !spx__mtx_field_end(p[n]))
        n++;
    return n;
}

/* Index field f (1 row, 2 column) at *pp into 0-based *out. */
static int index_field(const char **pp, int f, int64_t max, int64_t *out, chunk *c, int64_t line)
{
    int64_t v = 0;
    int r = spx__mtx_int(pp, &v);
    const char *what = f == 1 ? "row" : "column";
    if (r == SPX__NUM_BAD) {
        fail(c, SPX_ERR_MTX_NUMBER, line, "%s index '%.*s' is not an integer", what, field_len(*pp),
             *pp);
        return 0;
    }
    if (r == SPX__NUM_RANGE) {
        fail(c, SPX_ERR_INDEX_RANGE, line, "%s index beyond int64, outside 1..%lld", what,
             (long long)max);
        return 0;
    }
    if (v < 1 || v > max) {
        fail(c, SPX_ERR_INDEX_RANGE, line, "%s index %lld outside 1..%lld", what, (long long)v,
             (long long)max);
        return 0;
    }
    *out = v - 1;
    return 1;
}

/* Value field at *pp (real or integer). */
static int value_field(const char **pp, int field, double *out, chunk *c, int64_t line)
{
    const char *start = *pp;
    int64_t iv = 0;
    int r;
    if (field == SPX__MTX_INTEGER) {
        r = spx__mtx_int(pp, &iv);
        *out = (double)iv;
    } else {
        r = spx__mtx_real(pp, out);
    }
    if (r == SPX__NUM_OK) return 1;
    if (field == SPX__MTX_INTEGER)
        fail(c, r == SPX__NUM_RANGE ? SPX_ERR_OVERFLOW : SPX_ERR_MTX_NUMBER, line,
             "value '%.*s' %s", field_len(start), start,
             r == SPX__NUM_RANGE ? "does not fit int64" : "is not an integer");
    else
        fail(c, SPX_ERR_MTX_NUMBER, line, "value '%.*s' %s", field_len(start), start,
             r == SPX__NUM_RANGE ? "overflows double" : "is not a number");
    return 0;
}

/* Blanks, then a field must start (1) or the line must end (0). */
static int need_field(const char **pp, int f, int want, chunk *c, int64_t line)
{
    *pp = spx__mtx_skip_blank(*pp);
    if (**pp != '\n') return 1;
    fail(c, SPX_ERR_MTX_ENTRY, line, "%s field missing (an entry has %d fields)", ordinal[f], want);
    return 0;
}

static const char *end_of_entry(const char *p, int want, chunk *c, int64_t line)
{
    p = spx__mtx_skip_blank(p);
    if (*p == '\n') return p;
    fail(c, SPX_ERR_MTX_ENTRY, line, "more than %d field%s", want, want > 1 ? "s" : "");
    return NULL;
}

/* "row col [value]" at p into entry k; returns the line's '\n' or NULL. */
static const char *coord_entry(const char *p, const ctx *x, int64_t k, chunk *c, int64_t line)
{
    const spx__mtx_header *h = x->h;
    int want = h->field == SPX__MTX_PATTERN ? 2 : 3;
    int64_t i, j;
    double v = 1.0;
    if (!index_field(&p, 1, h->rows, &i, c, line)) return NULL;
    if (!need_field(&p, 2, want, c, line) || !index_field(&p, 2, h->cols, &j, c, line)) return NULL;
    if (want == 3) {
        if (!need_field(&p, 3, want, c, line) || !value_field(&p, h->field, &v, c, line))
            return NULL;
        x->t->v[k] = v;
    }
    if (!(p = end_of_entry(p, want, c, line))) return NULL;
    if (h->symmetry == SPX__MTX_SKEW && i == j && v != 0.0) {
        fail(c, SPX_ERR_MTX_SYMMETRY, line,
             "skew-symmetric matrix with nonzero diagonal entry (%lld, %lld)", (long long)i + 1,
             (long long)j + 1);
        return NULL;
    }
    x->t->ri[k] = i;
    x->t->ci[k] = j;
    return p;
}

/* Position (i, j) of array value k; column j starts at row first(j). */
static int64_t array_first_row(const spx__mtx_header *h, int64_t j)
{
    return h->symmetry == SPX__MTX_GENERAL ? 0 : h->symmetry == SPX__MTX_SKEW ? j + 1 : j;
}

static void array_position(const spx__mtx_header *h, int64_t k, int64_t *i, int64_t *j)
{
    int64_t col = 0;
    if (h->symmetry == SPX__MTX_GENERAL) {
        *j = h->rows ? k / h->rows : 0;
        *i = h->rows ? k % h->rows : 0;
        return;
    }
    while (col < h->cols && k >= h->rows - array_first_row(h, col)) {
        k -= h->rows - array_first_row(h, col);
        col++;
    }
    *j = col;
    *i = array_first_row(h, col) + k;
}

/* One value at p for entry k at (*i, *j), then advance the position. */
static const char *array_entry(const char *p, const ctx *x, int64_t k, int64_t *i, int64_t *j,
                               chunk *c, int64_t line)
{
    double v;
    if (!value_field(&p, x->h->field, &v, c, line)) return NULL;
    if (!(p = end_of_entry(p, 1, c, line))) return NULL;
    x->t->ri[k] = v != 0.0 ? *i : -1;
    x->t->ci[k] = *j;
    x->t->v[k] = v;
    if (++*i == x->h->rows) {
        ++*j;
        *i = array_first_row(x->h, *j);
    }
    return p;
}

/* A malformed unterminated last line is a cut file. */
static void check_truncated(chunk *c, const char *line_start, const ctx *x)
{
    char detail[sizeof c->msg];
    if (c->st != SPX_ERR_MTX_ENTRY && c->st != SPX_ERR_MTX_NUMBER) return;
    if (!x->eof_nl || memchr(line_start, '\n', (size_t)(x->eof_nl - line_start) + 1) != x->eof_nl)
        return;
    memcpy(detail, c->msg, sizeof detail);
    fail(c, SPX_ERR_MTX_TRUNCATED, c->err_line, "file ends inside an entry (%.200s)", detail);
}

static void parse_chunk(chunk *c, const ctx *x)
{
    int64_t line = c->line0, k = c->entry0, i = 0, j = 0;
    if (x->h->array) array_position(x->h, k, &i, &j);
    for (const char *p = c->s; p < c->e; line++) {
        const char *q = spx__mtx_skip_blank(p);
        if (*q == '%') q = (const char *)memchr(q, '\n', (size_t)(c->e - q) + 1);
        if (*q != '\n') {
            /* k starts at entry0, which can lie past the limit when the size
             * line promised fewer entries than earlier chunks hold: >=, not ==. */
            if (k >= x->limit) {
                c->extra_line = line;
                return;
            }
            q = x->h->array ? array_entry(q, x, k, &i, &j, c, line) : coord_entry(q, x, k, c, line);
            if (!q) {
                check_truncated(c, p, x);
                return;
            }
            k++;
        }
        p = q + 1;
    }
}

/* Cut [s, e) into n chunks at line starts; pass 1 on each. */
static void split_and_count(chunk *c, int n, const char *s, const char *e, int64_t line0)
{
    size_t len = (size_t)(e - s);
    for (int t = 0; t < n; t++) {
        memset(&c[t], 0, sizeof c[t]);
        c[t].s = t == 0 ? s : c[t - 1].e;
        c[t].e = e;
        if (t + 1 < n) {
            const char *cut = s + len / (size_t)n * (size_t)(t + 1);
            if (cut < c[t].s) cut = c[t].s;
            c[t].e = cut < e ? (const char *)memchr(cut, '\n', (size_t)(e - cut) + 1) + 1 : e;
            if (c[t].e > e) c[t].e = e;
        }
    }
#pragma omp parallel for num_threads(n) schedule(static, 1)
    for (int t = 0; t < n; t++)
        count_chunk(&c[t]);
    for (int t = 0; t < n; t++) {
        c[t].line0 = t == 0 ? line0 : c[t - 1].line0 + c[t - 1].lines;
        c[t].entry0 = t == 0 ? 0 : c[t - 1].entry0 + c[t - 1].entries;
    }
}

static spx_status alloc_triplets(const spx__mtx_header *h, int64_t n, spx__mtx_triplets *t)
{
    spx_status st;
    t->n = n;
    if ((st = spx__alloc((void **)&t->ri, (size_t)n, sizeof(int64_t), "entry rows")) != SPX_OK)
        return st;
    if ((st = spx__alloc((void **)&t->ci, (size_t)n, sizeof(int64_t), "entry columns")) != SPX_OK)
        return st;
    if (h->field == SPX__MTX_PATTERN) return SPX_OK;
    return spx__alloc((void **)&t->v, (size_t)n, sizeof(double), "entry values");
}

/* The first problem in line order (a bad entry, or the first entry past the
 * promised count), else a count mismatch. A chunk stops at its first
 * problem, so the earliest chunk that has one holds the earliest line. */
static spx_status report(const char *path, const chunk *c, int n, const ctx *x, int64_t present,
                         int64_t last_line)
{
    const spx__mtx_header *h = x->h;
    for (int t = 0; t < n; t++) {
        if (c[t].st != SPX_OK)
            return spx__error(c[t].st, "%s: line %lld: %s", path, (long long)c[t].err_line,
                              c[t].msg);
        if (c[t].extra_line)
            return spx__error(SPX_ERR_MTX_TOO_MANY,
                              "%s: line %lld: more entries than the %lld the size line promised",
                              path, (long long)c[t].extra_line, (long long)h->entries);
    }
    if (present < h->entries)
        return spx__error(x->eof_nl ? SPX_ERR_MTX_TRUNCATED : SPX_ERR_MTX_TOO_FEW,
                          "%s: line %lld: file ends after %lld of %lld entries%s", path,
                          (long long)last_line, (long long)present, (long long)h->entries,
                          x->eof_nl ? " without a final newline (truncated file)" : "");
    return SPX_OK;
}

spx_status spx__mtx_entries_parse(const char *path, const char *buf, size_t len,
                                  const spx__mtx_header *h, spx__mtx_triplets *t)
{
    spx_status st = SPX_OK;
    chunk *c = NULL;
    int n = len - h->body < SPX__MTX_PARALLEL_BYTES ? 1 : omp_get_max_threads();
    int64_t present = 0, lines = 0;
    ctx x = {h, t, 0, len > 0 && buf[len - 1] != '\n' ? buf + len : NULL};
    memset(t, 0, sizeof *t);
    if (n > 256) n = 256;
    SPX_TRY(spx__alloc((void **)&c, (size_t)n, sizeof *c, "parser chunks"));
    split_and_count(c, n, buf + h->body, buf + len, h->body_line);
    for (int i = 0; i < n; i++) {
        present += c[i].entries;
        lines += c[i].lines;
    }
    x.limit = present < h->entries ? present : h->entries;
    SPX_TRY(alloc_triplets(h, x.limit, t));
#pragma omp parallel for num_threads(n) schedule(static, 1)
    for (int i = 0; i < n; i++)
        parse_chunk(&c[i], &x);
    st = report(path, c, n, &x, present, h->body_line + lines - 1);
cleanup:
    spx__free(c);
    return st;
}

void spx__mtx_triplets_free(spx__mtx_triplets *t)
{
    spx__free(t->ri);
    spx__free(t->ci);
    spx__free(t->v);
    t->ri = t->ci = NULL;
    t->v = NULL;
}
