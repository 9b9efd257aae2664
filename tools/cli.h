/* The spx program: one function per subcommand (tools/cmd_*.c), the shared
 * option parser and the helpers they use (tools/options.c, tools/load.c,
 * tools/output.c, tools/registry.c). It uses SpX's public API only (spx.h),
 * and `spx bench` the bench library (bench/bench.h).
 *
 * Exit codes of every subcommand: CLI_OK 0, CLI_RUNTIME 1 (a library call or
 * a file failed, or the library has no kernel for the request on this
 * machine; the message is on stderr), CLI_USAGE 2 (bad command line: unknown
 * option, format, device or precision name, bad value), CLI_CHECK 3 (a
 * computed result failed its check). */
#ifndef SPX_TOOLS_CLI_H
#define SPX_TOOLS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spx.h"

#if defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

enum { CLI_OK = 0, CLI_RUNTIME = 1, CLI_USAGE = 2, CLI_CHECK = 3 };

/* ---- subcommands: argv[0] is the subcommand's name */
int spx_cmd_info(int argc, char **argv);
int spx_cmd_convert(int argc, char **argv);
int spx_cmd_gen(int argc, char **argv);
int spx_cmd_spmv(int argc, char **argv);
int spx_cmd_spgemm(int argc, char **argv);
int spx_cmd_solve(int argc, char **argv);
int spx_cmd_eigs(int argc, char **argv);
int spx_cmd_bench(int argc, char **argv);
int spx_cmd_formats(int argc, char **argv);

/* ---- option parsing
 * A command describes its options in a table ended by a {NULL} entry. An
 * option with a value (`--out FILE` or `--out=FILE`) stores the argument in
 * *value; a flag (value == NULL) sets *flag to 1. Other arguments are
 * positional, in order. `--help`/`-h` is always understood. */
typedef struct cli_opt {
    const char *name;   /* "--out" */
    const char **value; /* out: the argument, or NULL for a flag */
    int *flag;          /* out: set to 1 when a flag is given */
} cli_opt;

typedef struct cli_command {
    const char *name;
    const char *usage; /* full help text: first line "Usage: spx NAME ..." */
    const cli_opt *opts;
    int min_pos, max_pos;
} cli_command;

enum { CLI_PARSED = -1 }; /* cli_parse: go on; any other value is the exit code */

/* Parse argv[1..argc-1] for cmd; positionals go to pos (cmd->max_pos slots,
 * unused ones NULL). Prints the help (exit 0) or a usage error (exit 2). */
int cli_parse(const cli_command *cmd, int argc, char **argv, const char **pos);

/* Usage error: prints "spx NAME: message" and a pointer to --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* A failed library call: prints "spx NAME: what: STATUS: spx_last_error()"
 * (what may be NULL); returns 1. */
int cli_library_error(const char *cmd, const char *what, spx_status st);

/* Value parsers for option arguments; each returns CLI_PARSED or the usage error code. */
int cli_parse_device(const char *cmd, const char *s, spx_device *d);
int cli_parse_precision(const char *cmd, const char *s, spx_type *t);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double *v);
int cli_parse_int(const char *cmd, const char *opt, const char *s, long lo, long hi, long *v);

/* "f64", "f32", "f16"; "cpu", "cuda". */
const char *cli_precision_name(spx_type t);
const char *cli_device_name(spx_device d);

/* ---- the registry's answers (tools/registry.c) */
/* Usage error (2) unless name is "auto" or a registered format computing op. */
int cli_check_format(const char *cmd, spx_operation op, const char *name);
/* Whether the library can make this kind of plan here at all, asked before a
 * large matrix is read: a plan for a 1x1 matrix with op and o's format,
 * device and precision. SPX_ERR_NO_FORMAT (no kernel for that operation,
 * device and precision), SPX_ERR_NO_DEVICE (no GPU) and SPX_ERR_NOT_COMPILED
 * (no CUDA in this build) are printed and give 1; otherwise CLI_PARSED
 * (other failures are the real plan's to report). */
int cli_check_plan(const char *cmd, spx_operation op, const spx_plan_opts *o);
/* For help texts: "auto" and the formats computing op ("auto|csr|sell"), the
 * devices they run on ("cpu|cuda"), and the precisions on device d. */
void cli_format_names(spx_operation op, char *buf, size_t len);
void cli_device_names(spx_operation op, char *buf, size_t len);
void cli_precision_names(spx_operation op, spx_device d, char *buf, size_t len);
/* Precision bits (1u << spx_type) that format `name` ("auto": any format)
 * computes op in on device d. */
unsigned cli_format_precisions(spx_operation op, const char *name, spx_device d);

/* ---- matrices: a file by extension, or "gen:SPEC" for spx_generate */
typedef struct cli_load_info {
    double seconds;     /* wall time of the read or generation */
    int64_t file_bytes; /* size of the file; -1 for a generated matrix */
} cli_load_info;

spx_status cli_load_matrix(const char *source, spx_matrix **A, cli_load_info *info);
/* A command's body on a plan: the matrix loaded from source, a plan of
 * operation op made with o, run(ctx, A, P, seconds of the load), both freed;
 * a failed load or plan is cmd's library error. Returns the exit code. */
typedef int (*cli_plan_body)(void *ctx, const spx_matrix *A, const spx_plan *P, double load_s);
int cli_run_on_plan(const char *cmd, const char *source, spx_operation op, const spx_plan_opts *o,
                    cli_plan_body run, void *ctx);

/* Short name of a source for tables: a file's base name, or the spec. */
void cli_matrix_label(const char *source, char *buf, size_t len);

/* ---- outputs: a file, or "-" for standard output (tools/output.c) */
int cli_is_stdout(const char *path);
/* A by path's extension (spx_matrix_write, with a progress line), or to
 * standard output as Matrix Market text for "-". Prints what failed;
 * returns CLI_OK or CLI_RUNTIME. */
int cli_write_matrix(const char *cmd, const spx_matrix *A, const char *path);
/* n values with %.17g, one per line, to the file or standard output. */
int cli_write_values(const char *cmd, const char *path, int64_t n, const double *v);

/* ---- progress: "spx: STEP ..." on stderr once a step passes one second */
#include <pthread.h>
typedef struct cli_progress {
    char what[256];
    double t0;
    int done, shown, watching;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} cli_progress;

void cli_progress_begin(cli_progress *p, const char *fmt, ...) CLI_PRINTF(2, 3);
void cli_progress_end(cli_progress *p);

/* ---- dense vectors as text, one value per line, and row-major blocks, one
 * row of values separated by blanks per line (tools/vecio.c) */
/* Read exactly n values into v; a different count is an error naming both
 * counts ("what" says what n is, e.g. "the column count of A"). */
int cli_read_vector(const char *cmd, const char *path, int64_t n, const char *what, double *v);
/* The same for n rows of k values each, into v row-major (n x k). */
int cli_read_rows(const char *cmd, const char *path, int64_t n, int64_t k, const char *what,
                  double *v);
/* Write n values with %.17g, one per line. */
int cli_write_vector(const char *cmd, const char *path, int64_t n, const double *v);
/* Write n rows of k values (v row-major) with %.17g, a row per line, to the
 * file or, for "-", standard output. */
int cli_write_rows(const char *cmd, const char *path, int64_t n, int64_t k, const double *v);

#endif
