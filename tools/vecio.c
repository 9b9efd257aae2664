/* Dense vectors as text files: one value per line (blank lines skipped),
 * written with %.17g so that doubles read back exactly. A line is refused
 * when it is longer than LINE_MAX_CHARS, holds a NUL byte or anything but
 * one number, or a number beyond double ("1e999"; inf and nan as written
 * by %.17g are values). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LINE_MAX_CHARS 255

/* One line of n bytes: 0 when blank, 1 with its value, else the reason. */
static int parse_line(const char *line, size_t n, double *v, const char **why)
{
    char *end;
    *why = "not a number";
    if (strlen(line) != n) return -1; /* a NUL byte inside */
    while (isspace((unsigned char)*line))
        line++;
    if (!*line) return 0;
    errno = 0;
    *v = strtod(line, &end);
    if (end == line) return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end) return -1;
    *why = "number beyond the range of double";
    return errno == ERANGE && isinf(*v) ? -1 : 1;
}

int cli_read_vector(const char *cmd, const char *path, int64_t n, const char *what, double *v)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int64_t count = 0, lineno = 0;
    int rc = CLI_OK;
    if (!f) {
        fprintf(stderr, "spx %s: cannot open %s: %s\n", cmd, path, strerror(errno));
        return CLI_RUNTIME;
    }
    while (rc == CLI_OK && (len = getline(&line, &cap, f)) >= 0) {
        double val = 0.0;
        const char *why;
        int got;
        lineno++;
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        if (len > LINE_MAX_CHARS) {
            fprintf(stderr, "spx %s: %s:%lld: line too long\n", cmd, path, (long long)lineno);
            rc = CLI_RUNTIME;
        } else if ((got = parse_line(line, (size_t)len, &val, &why)) < 0) {
            fprintf(stderr, "spx %s: %s:%lld: %s\n", cmd, path, (long long)lineno, why);
            rc = CLI_RUNTIME;
        } else if (got) {
            if (count < n) v[count] = val;
            count++;
        }
    }
    if (rc == CLI_OK && ferror(f)) {
        fprintf(stderr, "spx %s: cannot read %s: %s\n", cmd, path, strerror(errno));
        rc = CLI_RUNTIME;
    }
    free(line);
    fclose(f);
    if (rc == CLI_OK && count != n) {
        fprintf(stderr, "spx %s: %s has %lld values but %s is %lld\n", cmd, path, (long long)count,
                what, (long long)n);
        rc = CLI_RUNTIME;
    }
    return rc;
}

int cli_write_vector(const char *cmd, const char *path, int64_t n, const double *v)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spx %s: cannot create %s: %s\n", cmd, path, strerror(errno));
        return CLI_RUNTIME;
    }
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%.17g\n", v[i]);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "spx %s: cannot write %s\n", cmd, path);
        return CLI_RUNTIME;
    }
    return CLI_OK;
}
