/* Dense vectors and row-major blocks as text files: one row per line, its
 * values separated by blanks (blank lines skipped), written with %.17g so
 * that doubles read back exactly; a vector is a block of one column. A line
 * is refused when it is longer than LINE_MAX_CHARS a value, holds a NUL
 * byte, anything but numbers, another count of them than the block's
 * columns, or a number beyond double ("1e999"; inf and nan as written by
 * %.17g are values). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LINE_MAX_CHARS 255

/* One line of n bytes into v (k values at most): the count of its values
 * (0 when blank), or -1 with the reason. */
static int64_t parse_line(const char *line, size_t n, int64_t k, double *v, const char **why)
{
    int64_t got = 0;
    *why = "not a number";
    if (strlen(line) != n) return -1; /* a NUL byte inside */
    for (;;) {
        char *end;
        while (isspace((unsigned char)*line))
            line++;
        if (!*line) return got;
        if (got == k) {
            *why = k == 1 ? "more than one value" : "more values than the block has columns";
            return -1;
        }
        errno = 0;
        v[got] = strtod(line, &end);
        if (end == line || (*end && !isspace((unsigned char)*end))) return -1;
        if (errno == ERANGE && isinf(v[got])) {
            *why = "number beyond the range of double";
            return -1;
        }
        got++;
        line = end;
    }
}

/* The file's lines into v (n rows of k at most, row-major); *count: the
 * rows it has. */
static int read_lines(const char *cmd, const char *path, FILE *f, int64_t n, int64_t k, double *v,
                      double *row, int64_t *count)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t lineno = 0, got;
    const char *why;
    int rc = CLI_OK;
    while (rc == CLI_OK && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        if (len > LINE_MAX_CHARS * k) {
            fprintf(stderr, "spx %s: %s:%lld: line too long\n", cmd, path, (long long)lineno);
            rc = CLI_RUNTIME;
        } else if ((got = parse_line(line, (size_t)len, k, row, &why)) < 0) {
            fprintf(stderr, "spx %s: %s:%lld: %s\n", cmd, path, (long long)lineno, why);
            rc = CLI_RUNTIME;
        } else if (got > 0 && got < k) {
            fprintf(stderr, "spx %s: %s:%lld: %lld values, not %lld\n", cmd, path,
                    (long long)lineno, (long long)got, (long long)k);
            rc = CLI_RUNTIME;
        } else if (got) {
            if (*count < n) memcpy(v + *count * k, row, (size_t)k * sizeof *row);
            ++*count;
        }
    }
    if (rc == CLI_OK && ferror(f)) {
        fprintf(stderr, "spx %s: cannot read %s: %s\n", cmd, path, strerror(errno));
        rc = CLI_RUNTIME;
    }
    free(line);
    return rc;
}

int cli_read_rows(const char *cmd, const char *path, int64_t n, int64_t k, const char *what,
                  double *v)
{
    FILE *f = fopen(path, "r");
    double *row = malloc((size_t)k * sizeof *row);
    int64_t count = 0;
    int rc = CLI_OK;
    if (!f) {
        fprintf(stderr, "spx %s: cannot open %s: %s\n", cmd, path, strerror(errno));
        rc = CLI_RUNTIME;
    } else if (!row) {
        fprintf(stderr, "spx %s: out of memory reading %s\n", cmd, path);
        rc = CLI_RUNTIME;
    } else {
        rc = read_lines(cmd, path, f, n, k, v, row, &count);
    }
    if (f) fclose(f);
    free(row);
    if (rc == CLI_OK && count != n) {
        if (k == 1)
            fprintf(stderr, "spx %s: %s has %lld values but %s is %lld\n", cmd, path,
                    (long long)count, what, (long long)n);
        else
            fprintf(stderr, "spx %s: %s has %lld lines of %lld values but %s is %lld\n", cmd, path,
                    (long long)count, (long long)k, what, (long long)n);
        rc = CLI_RUNTIME;
    }
    return rc;
}

int cli_read_vector(const char *cmd, const char *path, int64_t n, const char *what, double *v)
{
    return cli_read_rows(cmd, path, n, 1, what, v);
}

static void print_rows(FILE *f, int64_t n, int64_t k, const double *v)
{
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
            fprintf(f, j + 1 < k ? "%.17g " : "%.17g\n", v[i * k + j]);
}

/* n rows of k to the file path; prints what failed. */
static int write_file(const char *cmd, const char *path, int64_t n, int64_t k, const double *v)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spx %s: cannot create %s: %s\n", cmd, path, strerror(errno));
        return CLI_RUNTIME;
    }
    print_rows(f, n, k, v);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "spx %s: cannot write %s\n", cmd, path);
        return CLI_RUNTIME;
    }
    return CLI_OK;
}

/* Here, not in output.c, so that the vector fuzz harness (vecio.c alone) links. */
int cli_is_stdout(const char *path)
{
    return strcmp(path, "-") == 0;
}

int cli_write_vector(const char *cmd, const char *path, int64_t n, const double *v)
{
    return write_file(cmd, path, n, 1, v);
}

int cli_write_rows(const char *cmd, const char *path, int64_t n, int64_t k, const double *v)
{
    if (!cli_is_stdout(path)) return write_file(cmd, path, n, k, v);
    print_rows(stdout, n, k, v);
    if (fflush(stdout) == 0 && !ferror(stdout)) return CLI_OK;
    fprintf(stderr, "spx %s: cannot write to standard output: %s\n", cmd, strerror(errno));
    return CLI_RUNTIME;
}
