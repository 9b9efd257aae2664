/* Dense vectors as text files: one value per line (blank lines skipped),
 * written with %.17g so that doubles read back exactly. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One line's value; 0 when the line is blank, -1 when it is not a number. */
static int parse_line(const char *line, double *v)
{
    char *end;
    while (isspace((unsigned char)*line))
        line++;
    if (!*line) return 0;
    *v = strtod(line, &end);
    if (end == line) return -1;
    while (isspace((unsigned char)*end))
        end++;
    return *end ? -1 : 1;
}

int cli_read_vector(const char *cmd, const char *path, int64_t n, const char *what, double *v)
{
    FILE *f = fopen(path, "r");
    char line[256];
    int64_t count = 0, lineno = 0;
    int rc = CLI_OK;
    if (!f) {
        fprintf(stderr, "spx %s: cannot open %s: %s\n", cmd, path, strerror(errno));
        return CLI_RUNTIME;
    }
    while (rc == CLI_OK && fgets(line, sizeof line, f)) {
        double val = 0.0;
        int got;
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "spx %s: %s:%lld: line too long\n", cmd, path, (long long)lineno);
            rc = CLI_RUNTIME;
        } else if ((got = parse_line(line, &val)) < 0) {
            fprintf(stderr, "spx %s: %s:%lld: not a number\n", cmd, path, (long long)lineno);
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
