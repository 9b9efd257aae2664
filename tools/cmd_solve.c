/* spx solve: A x = b by CG, BiCGSTAB or GMRES (spx_cg_host, spx_bicgstab_host,
 * spx_gmres_host)
 * from x0 (a text file, default 0), b from a text file (default: all ones), on a plan of any
 * format and device. Prints one line: the method, the plan, the iterations,
 * the relative residual ||b - A x|| / ||b|| recomputed from x, and the
 * times; writes x (%.17g, one value per line) and the residual history when
 * asked. Not converging within --max-iters is exit 3 (x is still written);
 * a breakdown is a library error (exit 1).
 *
 * With --rhs K: A X = B for K columns at once by spx_cg_many_host on an SpMM
 * plan, B, X0 and X n x K row-major (a row of K values per line); B defaults
 * to pseudo-random values in [-1, 1). The line gives the most iterations of
 * a column and the worst relative residual. --compare then solves each
 * column alone by spx_cg_host on an SpMV plan of the SpMM plan's format and
 * prints a second line: both times (wall clocks around the solve calls,
 * each kind after one untimed warm-up solve), their ratio, and how far the
 * iterations and the solutions differ. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_solve.h"

static const char *usage(void)
{
    static char text[6144];
    char formats[512], formats_spmm[512], devices[64];
    cli_format_names(SPX_OP_SPMV, formats, sizeof formats);
    cli_format_names(SPX_OP_SPMM, formats_spmm, sizeof formats_spmm);
    cli_device_names(SPX_OP_SPMV, devices, sizeof devices);
    snprintf(text, sizeof text,
             "Usage: spx solve A [--b B.txt] [--x0 X0.txt] [--out X.txt|-]\n"
             "                [--method cg|bicgstab|gmres] [--restart m] [--rtol r]\n"
             "                [--max-iters k] [--jacobi]\n"
             "                [--format F]"
             " [--device %s] [--precision f64|f32] [--param k=v,...]\n"
             "                [--history H.txt|-] [--rhs K [--compare]]\n\n"
             "Solves A x = b from x0 and prints the iterations, the relative\n"
             "residual ||b - A x|| / ||b|| recomputed from x, and the times. A is a .mtx,\n"
             ".mtx.gz or .spx file, or gen:SPEC (square).\n\n"
             "  --b B.txt      b, one value per line (default: all ones)\n"
             "  --x0 X0.txt    the first guess, one value per line (default: zeros)\n"
             "  --out X.txt    x, one value per line (%%.17g; - : standard output, the\n"
             "                 summary then goes to standard error)\n"
             "  --method M     cg (default; A symmetric positive definite), bicgstab or\n"
             "                 gmres (restarted GMRES(m))\n"
             "  --restart m    gmres: basis vectors before a restart (default 0: 30)\n"
             "  --rtol r       stop when the relative residual is at most r (default 1e-8)\n"
             "  --max-iters k  iteration limit (default 1000); reaching it is exit 3\n"
             "  --jacobi       Jacobi preconditioner, M = diag(A)\n"
             "  --format F     default auto; the formats (spx formats):\n"
             "                 %s\n"
             "                 (with --rhs, computing SpMM: %s)\n"
             "  --device D     %s (default cpu); on cuda the vectors and the\n"
             "                 iteration stay on the GPU\n"
             "  --precision P  f64 (default) or f32 (vectors and sums of the plan's type)\n"
             "  --param k=v,.. format parameters\n"
             "  --history H    the relative residual before the first iteration and\n"
             "                 after each, one per line (with --rhs: the worst column's)\n"
             "  --rhs K        A X = B for K right-hand sides at once, by cg only\n"
             "                 (spx_cg_many_host on an SpMM plan): B, X0 and X are n x K,\n"
             "                 a row of K values per line. B defaults to pseudo-random\n"
             "                 values in [-1, 1), the same every run (xorshift64*, seed %u,\n"
             "                 row by row). The line gives the most iterations of a column\n"
             "                 and the worst relative residual\n"
             "  --compare      with --rhs: then solve each column alone (spx_cg_host on an\n"
             "                 SpMV plan of the SpMM plan's format, device and precision)\n"
             "                 and print a second line: the K solves' time, its ratio to\n"
             "                 the many-solve's, the largest difference in iterations and\n"
             "                 max |x_many - x_single| / max |x_single|. Times are wall\n"
             "                 clocks around the solve calls (plans not counted); each kind\n"
             "                 first runs one untimed warm-up solve (the plan's kept\n"
             "                 workspace, the GPU context)\n",
             devices, formats, formats_spmm, devices, RHS_SEED);
    return text;
}

/* --rhs and --compare against the method; the plan's operation in *op. */
static int parse_rhs(solve_args *a, const char *rhs, spx_operation *op)
{
    long k = 0;
    int rc;
    *op = SPX_OP_SPMV;
    if (a->compare && !rhs) return cli_usage_error("solve", "--compare needs --rhs");
    if (!rhs) return CLI_PARSED;
    if ((rc = cli_parse_int("solve", "--rhs", rhs, 1, RHS_MAX, &k)) != CLI_PARSED) return rc;
    if (strcmp(a->method, "cg") != 0)
        return cli_usage_error("solve", "--rhs solves by cg only (spx_cg_many), not %s", a->method);
    a->rhs = k;
    *op = SPX_OP_SPMM;
    return CLI_PARSED;
}

static int parse_args(int argc, char **argv, solve_args *a)
{
    const char *device = "cpu", *prec = "f64", *method = "cg", *rtol = "1e-8";
    const char *max_iters = "1000", *format = "auto", *params = NULL, *rhs = NULL;
    const char *restart = "0";
    int jacobi = 0;
    long iters;
    spx_operation op;
    const cli_opt opts[] = {{"--b", &a->b, NULL},
                            {"--x0", &a->x0, NULL},
                            {"--out", &a->out, NULL},
                            {"--history", &a->history, NULL},
                            {"--method", &method, NULL},
                            {"--rtol", &rtol, NULL},
                            {"--max-iters", &max_iters, NULL},
                            {"--restart", &restart, NULL},
                            {"--jacobi", NULL, &jacobi},
                            {"--format", &format, NULL},
                            {"--device", &device, NULL},
                            {"--precision", &prec, NULL},
                            {"--param", &params, NULL},
                            {"--rhs", &rhs, NULL},
                            {"--compare", NULL, &a->compare},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"solve", usage(), opts, 1, 1};
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if (strcmp(method, "cg") != 0 && strcmp(method, "bicgstab") != 0 &&
        strcmp(method, "gmres") != 0)
        return cli_usage_error("solve", "--method is cg, bicgstab or gmres, not '%s'", method);
    a->method = method;
    if ((rc = parse_rhs(a, rhs, &op)) != CLI_PARSED) return rc;
    a->so = spx_solve_opts_default();
    a->so.jacobi = jacobi;
    if ((rc = cli_parse_double("solve", "--rtol", rtol, &a->so.rtol)) != CLI_PARSED) return rc;
    if (!(a->so.rtol >= 0.0)) return cli_usage_error("solve", "--rtol must be >= 0");
    if ((rc = cli_parse_int("solve", "--max-iters", max_iters, 0, 1L << 30, &iters)) != CLI_PARSED)
        return rc;
    a->so.max_iters = iters;
    if ((rc = cli_parse_int("solve", "--restart", restart, 0, 1L << 20, &iters)) != CLI_PARSED)
        return rc;
    a->so.restart = iters;
    a->o = spx_plan_opts_default();
    a->o.format = format;
    a->o.params = params;
    if ((rc = cli_parse_device("solve", device, &a->o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_precision("solve", prec, &a->o.precision)) != CLI_PARSED) return rc;
    if (a->o.precision == SPX_F16)
        return cli_usage_error("solve", "--precision is f64 or f32: a solve keeps its vectors "
                                        "in one type");
    if ((rc = cli_check_format("solve", op, format)) != CLI_PARSED) return rc;
    return cli_check_plan("solve", op, &a->o);
}

/* v (n doubles) as the plan's vector type t in place: floats packed at the
 * front for SPX_F32, or back to doubles (to_double). */
void solve_convert(double *v, int64_t n, spx_type t, int to_double)
{
    float *f = (float *)v;
    if (t == SPX_F64) return;
    if (to_double)
        for (int64_t i = n - 1; i >= 0; i--)
            v[i] = (double)f[i];
    else
        for (int64_t i = 0; i < n; i++)
            f[i] = (float)v[i];
}

double solve_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Where the summary lines go: stderr when x goes to standard output. */
FILE *solve_summary_stream(const solve_args *a)
{
    return a->out && cli_is_stdout(a->out) ? stderr : stdout;
}

/* The summary line, on out. */
static void report(FILE *out, const solve_args *a, const spx_plan *P, int64_t n, int64_t nnz,
                   const spx_solve_info *info, double load_s)
{
    char label[256];
    cli_matrix_label(a->matrix, label, sizeof label);
    fprintf(out,
            "%s%s on %s (%lld rows, %lld nonzeros), %s %s %s: %lld iterations, relative "
            "residual %.3g, %.3f ms (plan %.3f ms, read %.3f s)\n",
            a->method, a->so.jacobi ? " (jacobi)" : "", label, (long long)n, (long long)nnz,
            cli_device_name(a->o.device), spx_plan_format(P), cli_precision_name(a->o.precision),
            (long long)info->iters, info->rel_residual, info->ms, spx_plan_prep_ms(P), load_s);
}

/* Solve with P; x and the history (max_iters + 1 entries) written as asked. */
static int run_solve(solve_args *a, const spx_matrix *A, const spx_plan *P, double load_s)
{
    int64_t n, nnz;
    spx_matrix_dims(A, &n, NULL, &nnz);
    spx_type t = spx_plan_x_type(P);
    double *b = malloc((size_t)n * sizeof *b + 1), *x = calloc((size_t)n + 1, sizeof *x);
    double *hist = a->history ? calloc((size_t)a->so.max_iters + 1, sizeof *hist) : NULL;
    spx_solve_info info = {0, 0.0, 0.0, 0};
    char why[512];
    int rc = CLI_OK;
    if (!b || !x || (a->history && !hist)) {
        fprintf(stderr, "spx solve: out of memory for the vectors\n");
        rc = CLI_RUNTIME;
    }
    if (rc == CLI_OK && a->b) rc = cli_read_vector("solve", a->b, n, "the row count of A", b);
    for (int64_t i = 0; rc == CLI_OK && !a->b && i < n; i++)
        b[i] = 1.0;
    if (rc == CLI_OK && a->x0) rc = cli_read_vector("solve", a->x0, n, "the row count of A", x);
    if (rc == CLI_OK) {
        cli_progress pr;
        solve_convert(b, n, t, 0);
        solve_convert(x, n, t, 0);
        a->so.history = hist;
        cli_progress_begin(&pr, "solving by %s", a->method);
        spx_status st = a->method[0] == 'b'   ? spx_bicgstab_host(P, A, b, x, &a->so, &info)
                        : a->method[0] == 'g' ? spx_gmres_host(P, A, b, x, &a->so, &info)
                                              : spx_cg_host(P, A, b, x, &a->so, &info);
        cli_progress_end(&pr);
        snprintf(why, sizeof why, "%s", spx_last_error());
        solve_convert(x, n, t, 1);
        if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED)
            rc = cli_library_error("solve", a->method, st);
        else
            report(solve_summary_stream(a), a, P, n, nnz, &info, load_s);
        if (rc == CLI_OK && a->out) rc = cli_write_values("solve", a->out, n, x);
        if (rc == CLI_OK && a->history)
            rc = cli_write_values("solve", a->history, info.iters + 1, hist);
        if (rc == CLI_OK && st == SPX_ERR_NOT_CONVERGED) {
            fprintf(stderr, "spx solve: not converged: %s\n", why);
            rc = CLI_CHECK;
        }
    }
    free(b);
    free(x);
    free(hist);
    return rc;
}

static int body(void *ctx, const spx_matrix *A, const spx_plan *P, double load_s)
{
    solve_args *a = ctx;
    return a->rhs ? solve_run_many(a, A, P, load_s) : run_solve(a, A, P, load_s);
}

int spx_cmd_solve(int argc, char **argv)
{
    solve_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_PARSED) return rc;
    return cli_run_on_plan("solve", a.matrix, a.rhs ? SPX_OP_SPMM : SPX_OP_SPMV, &a.o, body, &a);
}
