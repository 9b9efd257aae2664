/* Option parsing shared by the subcommands: `--name VALUE`, `--name=VALUE`,
 * flags, positionals, `--` ending the options, and `--help` everywhere. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "spx %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see spx %s --help)\n", cmd);
    return CLI_USAGE;
}

int cli_library_error(const char *cmd, const char *what, spx_status st)
{
    const char *msg = spx_last_error();
    if (!what || strncmp(msg, what, strlen(what)) == 0) /* none, or the library named it */
        fprintf(stderr, "spx %s: %s: %s\n", cmd, spx_status_name(st), msg);
    else
        fprintf(stderr, "spx %s: %s: %s: %s\n", cmd, what, spx_status_name(st), msg);
    return CLI_RUNTIME;
}

static const cli_opt *find_opt(const cli_opt *opts, const char *name, size_t len)
{
    for (; opts && opts->name; opts++)
        if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0) return opts;
    return NULL;
}

/* One `--name[=value]` at argv[*i]; advances *i past a separate value. */
static int parse_option(const cli_command *cmd, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const cli_opt *o = find_opt(cmd->opts, arg, len);
    if (!o) return cli_usage_error(cmd->name, "unknown option '%.*s'", (int)len, arg);
    if (!o->value) {
        if (eq) return cli_usage_error(cmd->name, "option '%s' takes no value", o->name);
        *o->flag = 1;
        return CLI_PARSED;
    }
    if (eq) {
        *o->value = eq + 1;
    } else if (*i + 1 < argc) {
        *o->value = argv[++*i];
    } else {
        return cli_usage_error(cmd->name, "option '%s' needs a value", o->name);
    }
    return CLI_PARSED;
}

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, const char **pos)
{
    int npos = 0, options_done = 0;
    for (int k = 0; k < cmd->max_pos; k++)
        pos[k] = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && is_help(arg)) {
            fputs(cmd->usage, stdout);
            return CLI_OK;
        }
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = 1;
        } else if (!options_done && strncmp(arg, "--", 2) == 0) {
            int rc = parse_option(cmd, argc, argv, &i);
            if (rc != CLI_PARSED) return rc;
        } else if (npos < cmd->max_pos) {
            pos[npos++] = arg;
        } else {
            return cli_usage_error(cmd->name, "unexpected argument '%s'", arg);
        }
    }
    if (npos < cmd->min_pos)
        return cli_usage_error(cmd->name, "expected %d argument%s, got %d", cmd->min_pos,
                               cmd->min_pos == 1 ? "" : "s", npos);
    return CLI_PARSED;
}

const char *cli_precision_name(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

const char *cli_device_name(spx_device d)
{
    return d == SPX_DEV_CUDA ? "cuda" : "cpu";
}

int cli_parse_device(const char *cmd, const char *s, spx_device *d)
{
    if (strcmp(s, "cpu") == 0) {
        *d = SPX_DEV_CPU;
    } else if (strcmp(s, "cuda") == 0) {
        *d = SPX_DEV_CUDA;
    } else {
        return cli_usage_error(cmd, "unknown device '%s' (cpu or cuda)", s);
    }
    return CLI_PARSED;
}

int cli_parse_precision(const char *cmd, const char *s, spx_type *t)
{
    static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        if (strcmp(s, cli_precision_name(types[k])) == 0) {
            *t = types[k];
            return CLI_PARSED;
        }
    }
    return cli_usage_error(cmd, "unknown precision '%s' (f64, f32 or f16)", s);
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(*v))
        return cli_usage_error(cmd, "%s needs a finite number, not '%s'", opt, s);
    return CLI_PARSED;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || *v < lo || *v > hi)
        return cli_usage_error(cmd, "%s needs an integer in [%ld, %ld], not '%s'", opt, lo, hi, s);
    return CLI_PARSED;
}
