/* Matrices named on the command line: a file read by its extension (.mtx,
 * .mtx.gz, .spx) or "gen:SPEC" built by spx_generate; the load is timed. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"

static const char gen_prefix[] = "gen:";

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

spx_status cli_load_matrix(const char *source, spx_matrix **A, cli_load_info *info)
{
    size_t plen = sizeof gen_prefix - 1;
    int generated = strncmp(source, gen_prefix, plen) == 0;
    struct stat sb;
    cli_progress pr;
    cli_progress_begin(&pr, "%s %s", generated ? "generating" : "reading", source);
    double t0 = now_seconds();
    spx_status st = generated ? spx_generate(source + plen, A) : spx_matrix_read(source, A);
    info->seconds = now_seconds() - t0;
    cli_progress_end(&pr);
    info->file_bytes = -1;
    if (!generated && st == SPX_OK && stat(source, &sb) == 0)
        info->file_bytes = (int64_t)sb.st_size;
    return st;
}

void cli_matrix_label(const char *source, char *buf, size_t len)
{
    static const char *const exts[] = {".mtx.gz", ".mtx", ".spx"};
    size_t plen = sizeof gen_prefix - 1;
    if (strncmp(source, gen_prefix, plen) == 0) {
        snprintf(buf, len, "%s", source + plen);
        return;
    }
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    size_t n = strlen(base);
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++) {
        size_t el = strlen(exts[k]);
        if (n > el && strcmp(base + n - el, exts[k]) == 0) {
            n -= el;
            break;
        }
    }
    snprintf(buf, len, "%.*s", (int)n, base);
}

int cli_run_on_plan(const char *cmd, const char *source, spx_operation op, const spx_plan_opts *o,
                    cli_plan_body run, void *ctx)
{
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    cli_load_info info;
    int rc;
    spx_status st = cli_load_matrix(source, &A, &info);
    if (st != SPX_OK) return cli_library_error(cmd, source, st);
    if ((st = spx_plan_create(A, op, o, &P)) != SPX_OK)
        rc = cli_library_error(cmd, source, st);
    else
        rc = run(ctx, A, P, info.seconds);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return rc;
}
