/* The Matrix Market reader on files large enough for its parallel path
 * (over 1 MiB of entries), run with 1, 2 and 4 threads. Every run must give
 * the status and the line that one thread gives, which for the corpus is the
 * one in mtx_corpus/EXPECTED, and must never write out of bounds (this test
 * runs under ASan in `make check`).
 *
 * 1. The reproducer of the heap overflow: a size line promising one entry
 *    followed by 180,000 entries (real, integer, pattern; and an array file
 *    with too many values), plain and gzip.
 * 2. Large variants of every corpus file whose error lies in the entry
 *    section (header errors are found before the section is split):
 *      comments: 200,000 comment lines after the size line (the error moves
 *                down by as many lines and sits in the last chunk);
 *      extras:   200,000 valid entries appended (later chunks start past the
 *                promised count), where the status does not depend on how
 *                the file ends;
 *      grown:    the promised count and the dimensions grown and 200,000
 *                entries inserted after the size line, where it does
 *                (too few entries, a cut last line).
 * 3. Declared sizes far beyond the file: 2^40 entries or rows fail before
 *    anything of that size is allocated. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#ifdef SPX_TEST_HAVE_ZLIB
#include <zlib.h>
#endif

#define FILLER_LINES 200000

static const int thread_counts[] = {1, 2, 4};

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        t->cap = (t->n + n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s) abort();
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
}

static void puts_text(text *t, const char *s) { put(t, s, strlen(s)); }

static void put_repeated(text *t, const char *line, long times)
{
    for (long i = 0; i < times; i++)
        puts_text(t, line);
}

static int write_file(const char *path, const text *t, int gz)
{
#ifdef SPX_TEST_HAVE_ZLIB
    if (gz) {
        gzFile g = gzopen(path, "wb1");
        if (!g) return 0;
        int ok = gzwrite(g, t->s, (unsigned)t->n) == (int)t->n;
        return gzclose(g) == Z_OK && ok;
    }
#else
    if (gz) return 0;
#endif
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(t->s, 1, t->n, f) == t->n;
    return fclose(f) == 0 && ok;
}

/* Whole (decompressed) contents of a file; 0 when it cannot be read. */
static int read_file(const char *path, int gz, text *t)
{
    char buf[65536];
    memset(t, 0, sizeof *t);
#ifdef SPX_TEST_HAVE_ZLIB
    if (gz) {
        gzFile g = gzopen(path, "rb");
        int got;
        if (!g) return 0;
        while ((got = gzread(g, buf, sizeof buf)) > 0)
            put(t, buf, (size_t)got);
        gzclose(g);
        return t->n > 0;
    }
#else
    if (gz) return 0;
#endif
    FILE *f = fopen(path, "rb");
    size_t got;
    if (!f) return 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        put(t, buf, got);
    fclose(f);
    put(t, "", 0);
    return 1;
}

/* Read path with n threads; the status and the message. */
static spx_status read_with(const char *path, int threads, char *msg, size_t len)
{
    spx_matrix *A = NULL;
    omp_set_num_threads(threads);
    spx_status st = spx_matrix_read(path, &A);
    snprintf(msg, len, "%s", spx_last_error());
    if (st == SPX_OK) spx_matrix_destroy(A);
    return st;
}

/* Every thread count gives status want and names the line; one thread's
 * message is the message of every thread count. */
static void expect_everywhere(const char *path, spx_status want, long line)
{
    char first[512], msg[512], needle[64];
    snprintf(needle, sizeof needle, "line %ld:", line);
    for (size_t i = 0; i < sizeof thread_counts / sizeof *thread_counts; i++) {
        int threads = thread_counts[i];
        spx_status st = read_with(path, threads, i == 0 ? first : msg, sizeof msg);
        const char *m = i == 0 ? first : msg;
        if (!CHECK(st == want) || !CHECK(strstr(m, needle) != NULL) ||
            !CHECK(i == 0 || strcmp(first, msg) == 0))
            fprintf(stderr, "  %s, %d threads: got %s \"%s\", expected %s at line %ld (1 thread: \"%s\")\n",
                    path, threads, spx_status_name(st), m, spx_status_name(want), line, first);
    }
    omp_set_num_threads(omp_get_num_procs());
}

static char tmpdir[200];

static const char *tmp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

/* ---------------------------------------------------------- 1. reproducer */

static void reproducer(const char *banner_field, const char *size, const char *entry, long line,
                       int gz)
{
    text t = {0};
    char name[64];
    snprintf(name, sizeof name, "repro_%s%s.mtx%s", banner_field, strchr(size, ' ') == strrchr(size, ' ') ? "_array" : "", gz ? ".gz" : "");
    puts_text(&t, "%%MatrixMarket matrix ");
    puts_text(&t, banner_field);
    puts_text(&t, " general\n");
    puts_text(&t, size);
    put_repeated(&t, entry, 180000);
    if (CHECK(write_file(tmp_path(name), &t, gz)))
        expect_everywhere(tmp_path(name), SPX_ERR_MTX_TOO_MANY, line);
    remove(tmp_path(name));
    free(t.s);
}

static void test_reproducers(void)
{
    for (int gz = 0; gz <= 1; gz++) {
#ifndef SPX_TEST_HAVE_ZLIB
        if (gz) {
            printf("SKIP gzip reproducers: built without zlib\n");
            break;
        }
#endif
        reproducer("coordinate real", "10 10 1\n", "1 1 1\n", 4, gz);
        reproducer("coordinate integer", "10 10 1\n", "1 1 7\n", 4, gz);
        reproducer("coordinate pattern", "10 10 1\n", "1 1\n", 4, gz);
        reproducer("array real", "10 10\n", "1\n", 103, gz);
        reproducer("array integer", "3 2\n", "-2\n", 9, gz);
    }
}

/* ------------------------------------------------------- 2. corpus variants */

/* What a corpus file is made of: its lines split at the size line. */
typedef struct parsed {
    text whole;
    size_t size_at, body_at; /* offsets of the size line and of the line after it */
    long size_line;          /* 1-based */
    int array, pattern, skew, square;
    const char *eol;         /* "\n" or "\r\n", as the size line ends */
} parsed;

static int blank_or_comment(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return *p == '\n' || *p == '%' || *p == '\0';
}

static int parse_corpus_file(const char *path, int gz, parsed *f)
{
    memset(f, 0, sizeof *f);
    if (!read_file(path, gz, &f->whole)) return 0;
    const char *s = f->whole.s, *p = strchr(s, '\n');
    char banner[256];
    size_t bl = p ? (size_t)(p - s) : strlen(s);
    if (!p || bl >= sizeof banner) return 0;
    for (size_t i = 0; i < bl; i++)
        banner[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
    banner[bl] = '\0';
    f->array = strstr(banner, " array ") != NULL;
    f->pattern = strstr(banner, " pattern ") != NULL;
    f->skew = strstr(banner, "skew") != NULL;
    f->square = strstr(banner, "general") == NULL;
    f->size_line = 2;
    for (p++; *p && blank_or_comment(p); f->size_line++) {
        const char *nl = strchr(p, '\n');
        if (!nl) return 0;
        p = nl + 1;
    }
    const char *nl = strchr(p, '\n');
    if (!*p || !nl) return 0;
    f->size_at = (size_t)(p - s);
    f->body_at = (size_t)(nl + 1 - s);
    f->eol = nl > p && nl[-1] == '\r' ? "\r\n" : "\n";
    return 1;
}

/* The file with `insert` after the size line and `append` at the end; the
 * size line replaced by new_size when it is not NULL. */
static void assemble(const parsed *f, const char *new_size, const text *insert, const text *append,
                     text *out)
{
    memset(out, 0, sizeof *out);
    put(out, f->whole.s, f->size_at);
    if (new_size)
        puts_text(out, new_size);
    else
        put(out, f->whole.s + f->size_at, f->body_at - f->size_at);
    if (insert) put(out, insert->s, insert->n);
    put(out, f->whole.s + f->body_at, f->whole.n - f->body_at);
    if (append) put(out, append->s, append->n);
}

/* A valid entry line for a matrix of that many rows (off the diagonal where
 * it can be, so skew-symmetric files accept it). */
static void filler_entry(const parsed *f, long long rows, char *line, size_t len)
{
    if (f->array)
        snprintf(line, len, "1%s", f->eol);
    else if (f->pattern)
        snprintf(line, len, "%lld 1%s", rows, f->eol);
    else
        snprintf(line, len, "%lld 1 1%s", rows, f->eol);
}

static void run_variant(const char *name, const char *suffix, const text *t, int gz,
                        spx_status want, long line)
{
    char vname[300];
    snprintf(vname, sizeof vname, "%s_%s%s", name, suffix, gz ? ".mtx.gz" : ".mtx");
    const char *path = tmp_path(vname);
    if (CHECK(write_file(path, t, gz))) expect_everywhere(path, want, line);
    remove(path);
}

/* Promised count and dimensions grown so that `fill` more entries fit:
 * coordinate "rows cols entries" gets rows, cols and entries + fill (square
 * kinds grow both); array general "rows cols" gets fill/rows more columns. */
static int grown_size_line(const parsed *f, long fill, char *out, size_t len, long long *rows_out)
{
    long long r, c, e = 0;
    const char *s = f->whole.s + f->size_at;
    if (f->array) {
        if (f->square || sscanf(s, "%lld %lld", &r, &c) != 2 || r < 1 || fill % r) return 0;
        snprintf(out, len, "%lld %lld%s", r, c + fill / r, f->eol);
        *rows_out = r;
        return 1;
    }
    if (sscanf(s, "%lld %lld %lld", &r, &c, &e) != 3) return 0;
    r += fill;
    c += fill;
    snprintf(out, len, "%lld %lld %lld%s", r, c, e + fill, f->eol);
    *rows_out = r;
    return 1;
}

static void corpus_variants(const char *name, spx_status want, long line)
{
    char path[1024], size[128], entry[64];
    int gz = strstr(name, ".gz") != NULL, variants = 0;
    int ends_file = want == SPX_ERR_MTX_TOO_FEW || want == SPX_ERR_MTX_TRUNCATED;
    long long rows = 0;
    parsed f;
    text fill = {0}, out;
    char base[256];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(name, "."), name);
    snprintf(path, sizeof path, "%s/mtx_corpus/%s", spx_test_data_dir(), name);
    if (!parse_corpus_file(path, gz, &f) || line <= f.size_line) {
        free(f.whole.s);
        return; /* header error (or a stream zlib cannot read): never split */
    }
    if (want == SPX_ERR_MTX_TRUNCATED && gz) {
        free(f.whole.s);
        return; /* a cut gzip stream is found while inflating, before any parsing */
    }
    put_repeated(&fill, "% padding comment\n", FILLER_LINES);
    assemble(&f, NULL, &fill, NULL, &out);
    run_variant(base, "comments", &out, gz, want, line + FILLER_LINES);
    variants++;
    free(out.s);
    fill.n = 0;
    if (!ends_file) {
        sscanf(f.whole.s + f.size_at, "%lld", &rows);
        filler_entry(&f, rows > 1 ? rows : 1, entry, sizeof entry);
        put_repeated(&fill, entry, FILLER_LINES);
        assemble(&f, NULL, NULL, &fill, &out);
        run_variant(base, "extras", &out, gz, want, line);
        variants++;
        free(out.s);
    } else if (grown_size_line(&f, FILLER_LINES, size, sizeof size, &rows)) {
        filler_entry(&f, rows, entry, sizeof entry);
        put_repeated(&fill, entry, FILLER_LINES);
        assemble(&f, size, &fill, NULL, &out);
        run_variant(base, "grown", &out, gz, want, line + FILLER_LINES);
        variants++;
        free(out.s);
    }
    CHECK(variants >= 2 || (ends_file && f.array && f.square));
    free(fill.s);
    free(f.whole.s);
}

static spx_status status_named(const char *s)
{
    for (int st = 0; st >= -40; st--)
        if (strcmp(spx_status_name((spx_status)st), s) == 0) return (spx_status)st;
    return SPX_OK;
}

static void test_corpus_large(void)
{
    char path[1024], line[512], name[256], status[64];
    long want_line;
    int files = 0;
    snprintf(path, sizeof path, "%s/mtx_corpus/EXPECTED", spx_test_data_dir());
    FILE *f = fopen(path, "r");
    if (!CHECK(f != NULL)) return;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%255s %63s %ld", name, status, &want_line) != 3)
            continue;
#ifndef SPX_TEST_HAVE_ZLIB
        if (strstr(name, ".gz")) {
            printf("SKIP %s: built without zlib\n", name);
            continue;
        }
#endif
        corpus_variants(name, status_named(status), want_line);
        files++;
    }
    fclose(f);
    CHECK(files >= 50);
}

/* ------------------------------------------------------ 3. declared sizes */

static void expect_small_file(const char *name, const char *body, spx_status want, long line)
{
    text t = {0};
    puts_text(&t, body);
    if (CHECK(write_file(tmp_path(name), &t, 0))) expect_everywhere(tmp_path(name), want, line);
    remove(tmp_path(name));
    free(t.s);
}

static void test_declared_sizes(void)
{
    /* 2^40 entries promised, three present: the triplets are sized by what
     * the file holds, so this is TOO_FEW, not an allocation of 2^40. */
    expect_small_file("huge_nnz.mtx",
                      "%%MatrixMarket matrix coordinate real general\n"
                      "1048576 1048576 1099511627776\n1 1 1\n2 2 2\n3 3 3\n",
                      SPX_ERR_MTX_TOO_FEW, 5);
    expect_small_file("huge_array.mtx",
                      "%%MatrixMarket matrix array real general\n1048576 1048576\n1\n2\n3\n",
                      SPX_ERR_MTX_TOO_FEW, 5);
    /* 2^40 rows need 8 TiB of row offsets: refused on the size line. */
    expect_small_file("huge_rows.mtx",
                      "%%MatrixMarket matrix coordinate real general\n"
                      "1099511627776 1099511627776 3\n1 1 1\n2 2 2\n3 3 3\n",
                      SPX_ERR_OOM, 2);
    expect_small_file("huge_rows_pattern.mtx",
                      "%%MatrixMarket matrix coordinate pattern symmetric\n"
                      "1099511627776 1099511627776 1\n1 1\n",
                      SPX_ERR_OOM, 2);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/spx_mtx_parallel_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot make a temporary folder\n");
        return 1;
    }
    test_reproducers();
    test_corpus_large();
    test_declared_sizes();
    rmdir(tmpdir);
    return spx_test_finish();
}
