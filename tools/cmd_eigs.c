/* spx eigs: the k largest or smallest eigenvalues of a symmetric matrix by
 * Lanczos (spx_eigsh_host), on a plan of any format and device. Prints one
 * line: the plan, the steps, how many pairs met the tolerance, the largest
 * residual estimate and the times; then the eigenvalues, one per line
 * (%.17g); writes the eigenvectors when asked (a row of k values per line).
 * Not converging within --max-steps is exit 3 (the values are still
 * printed). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct eigs_args {
    const char *matrix, *vectors;
    spx_plan_opts o;
    spx_eig_opts eo;
} eigs_args;

static const char *usage(void)
{
    static char text[3072];
    char formats[512], devices[64];
    cli_format_names(SPX_OP_SPMV, formats, sizeof formats);
    cli_device_names(SPX_OP_SPMV, devices, sizeof devices);
    snprintf(text, sizeof text,
             "Usage: spx eigs A [--k K] [--which largest|smallest] [--tol t]\n"
             "                [--basis b] [--max-steps m] [--skip-copies]\n"
             "                [--vectors V.txt|-]\n"
             "                [--format F] [--device %s] [--precision f64|f32]\n"
             "                [--param k=v,...]\n\n"
             "The K eigenvalues at one end of the spectrum of symmetric A (a .mtx,\n"
             ".mtx.gz or .spx file, or gen:SPEC) by thick-restart Lanczos with full\n"
             "reorthogonalisation (spx_eigsh). Prints a summary line, then the\n"
             "eigenvalues, one per line, largest first (smallest first with --which\n"
             "smallest). Once K pairs converge, Lanczos runs again from fresh start\n"
             "vectors orthogonal to them until none finds an eigenvalue beyond the\n"
             "K-th, so a multiple eigenvalue appears as often as it is repeated.\n\n"
             "  --k K          eigenvalues wanted (default 1)\n"
             "  --which W      largest (default) or smallest, algebraically\n"
             "  --tol t        a pair is done when ||A v - theta v|| <= t |theta|\n"
             "                 (default 1e-8)\n"
             "  --basis b      Lanczos vectors before a restart (default 0: max(2K + 1,\n"
             "                 K + 32)); about 1.5 b vectors live on the device\n"
             "  --max-steps m  Lanczos steps (products) at most (default 10000);\n"
             "                 reaching it is exit 3\n"
             "  --skip-copies  no fresh start vectors: faster, but a multiple eigenvalue\n"
             "                 may appear once\n"
             "  --vectors V    the eigenvectors: n rows of K values (%%.17g; - : standard\n"
             "                 output, the summary and the eigenvalues then go to\n"
             "                 standard error)\n"
             "  --format F     default auto; the formats (spx formats):\n"
             "                 %s\n"
             "  --device D     %s (default cpu)\n"
             "  --precision P  f64 (default) or f32\n"
             "  --param k=v,.. format parameters\n",
             devices, formats, devices);
    return text;
}

static int parse_args(int argc, char **argv, eigs_args *a)
{
    const char *device = "cpu", *prec = "f64", *k = "1", *which = "largest", *tol = "1e-8";
    const char *steps = "10000", *basis = "0", *format = "auto", *params = NULL;
    long v;
    const cli_opt opts[] = {{"--k", &k, NULL},
                            {"--which", &which, NULL},
                            {"--tol", &tol, NULL},
                            {"--max-steps", &steps, NULL},
                            {"--basis", &basis, NULL},
                            {"--skip-copies", NULL, &a->eo.skip_copies},
                            {"--vectors", &a->vectors, NULL},
                            {"--format", &format, NULL},
                            {"--device", &device, NULL},
                            {"--precision", &prec, NULL},
                            {"--param", &params, NULL},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"eigs", usage(), opts, 1, 1};
    a->eo = spx_eig_opts_default();
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if ((rc = cli_parse_int("eigs", "--k", k, 1, 1L << 20, &v)) != CLI_PARSED) return rc;
    a->eo.k = v;
    if ((rc = cli_parse_int("eigs", "--max-steps", steps, 1, 1L << 24, &v)) != CLI_PARSED)
        return rc;
    a->eo.max_steps = v;
    if ((rc = cli_parse_int("eigs", "--basis", basis, 0, 1L << 20, &v)) != CLI_PARSED) return rc;
    a->eo.basis = v;
    if ((rc = cli_parse_double("eigs", "--tol", tol, &a->eo.tol)) != CLI_PARSED) return rc;
    if (!(a->eo.tol >= 0.0)) return cli_usage_error("eigs", "--tol must be >= 0");
    if (strcmp(which, "largest") != 0 && strcmp(which, "smallest") != 0)
        return cli_usage_error("eigs", "--which is largest or smallest, not '%s'", which);
    a->eo.which = which[0] == 's' ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
    a->o = spx_plan_opts_default();
    a->o.format = format;
    a->o.params = params;
    if ((rc = cli_parse_device("eigs", device, &a->o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_precision("eigs", prec, &a->o.precision)) != CLI_PARSED) return rc;
    if (a->o.precision == SPX_F16) return cli_usage_error("eigs", "--precision is f64 or f32");
    if ((rc = cli_check_format("eigs", SPX_OP_SPMV, format)) != CLI_PARSED) return rc;
    return cli_check_plan("eigs", SPX_OP_SPMV, &a->o);
}

/* v (n x k in the plan's type t, eigenvector after eigenvector) as n rows of k doubles. */
static void to_rows(const void *v, spx_type t, int64_t n, int64_t k, double *rows)
{
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++)
            rows[i * k + j] = t == SPX_F64 ? ((const double *)v)[j * n + i]
                                           : (double)((const float *)v)[j * n + i];
}

static int run(const eigs_args *a, const spx_matrix *A, const spx_plan *P, double load_s)
{
    int64_t n, nnz;
    spx_matrix_dims(A, &n, NULL, &nnz);
    const int64_t k = a->eo.k;
    const spx_type t = spx_plan_x_type(P);
    const size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    double *values = calloc((size_t)k, sizeof *values);
    void *vec = a->vectors && k <= n ? malloc((size_t)(n * k) * es) : NULL;
    double *rows = vec ? malloc((size_t)(n * k) * sizeof *rows) : NULL;
    spx_eig_info info = {0, 0, 0, 0, 0.0, 0.0};
    char label[256], why[512];
    int rc = CLI_OK;
    FILE *out = a->vectors && cli_is_stdout(a->vectors) ? stderr : stdout;
    if (!values || (a->vectors && k <= n && (!vec || !rows))) {
        fprintf(stderr, "spx eigs: out of memory for the eigenvectors\n");
        rc = CLI_RUNTIME;
    }
    if (rc == CLI_OK) {
        cli_progress pr;
        cli_progress_begin(&pr, "Lanczos, %lld steps at most", (long long)a->eo.max_steps);
        spx_status st = spx_eigsh_host(P, &a->eo, values, vec, &info);
        cli_progress_end(&pr);
        snprintf(why, sizeof why, "%s", spx_last_error());
        if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED) {
            rc = cli_library_error("eigs", a->matrix, st);
        } else {
            cli_matrix_label(a->matrix, label, sizeof label);
            fprintf(out,
                    "eigs (%lld %s) on %s (%lld rows, %lld nonzeros), %s %s %s: %lld steps, "
                    "%lld restarts, %lld fresh starts, %lld of %lld converged, max residual %.3g, "
                    "%.3f ms (plan "
                    "%.3f ms, read %.3f s)\n",
                    (long long)k, a->eo.which == SPX_EIG_SMALLEST ? "smallest" : "largest", label,
                    (long long)n, (long long)nnz, cli_device_name(a->o.device), spx_plan_format(P),
                    cli_precision_name(a->o.precision), (long long)info.steps,
                    (long long)info.restarts, (long long)info.fresh_starts,
                    (long long)info.converged, (long long)k, info.max_residual, info.ms,
                    spx_plan_prep_ms(P), load_s);
            for (int64_t j = 0; j < k; j++)
                fprintf(out, "%.17g\n", values[j]);
            if (vec) {
                to_rows(vec, t, n, k, rows);
                rc = cli_write_rows("eigs", a->vectors, n, k, rows);
            }
            if (rc == CLI_OK && st == SPX_ERR_NOT_CONVERGED) {
                fprintf(stderr, "spx eigs: not converged: %s\n", why);
                rc = CLI_CHECK;
            }
        }
    }
    free(values);
    free(vec);
    free(rows);
    return rc;
}

static int body(void *ctx, const spx_matrix *A, const spx_plan *P, double load_s)
{
    return run(ctx, A, P, load_s);
}

int spx_cmd_eigs(int argc, char **argv)
{
    eigs_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_PARSED) return rc;
    return cli_run_on_plan("eigs", a.matrix, SPX_OP_SPMV, &a.o, body, &a);
}
