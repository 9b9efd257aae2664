/* spx solve: A x = b by CG or BiCGSTAB (spx_cg_host, spx_bicgstab_host)
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

#include "cli.h"

#define RHS_MAX 65536
#define RHS_SEED 1u

static const char *usage(void)
{
    static char text[6144];
    char formats[512], formats_spmm[512], devices[64];
    cli_format_names(SPX_OP_SPMV, formats, sizeof formats);
    cli_format_names(SPX_OP_SPMM, formats_spmm, sizeof formats_spmm);
    cli_device_names(SPX_OP_SPMV, devices, sizeof devices);
    snprintf(text, sizeof text,
             "Usage: spx solve A [--b B.txt] [--x0 X0.txt] [--out X.txt|-]\n"
             "                [--method cg|bicgstab] [--rtol r] [--max-iters k] [--jacobi]\n"
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
             "  --method M     cg (default; A symmetric positive definite) or bicgstab\n"
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

typedef struct solve_args {
    const char *matrix, *b, *x0, *out, *history;
    int bicgstab, compare;
    int64_t rhs; /* 0: one right-hand side, spx_cg_host or spx_bicgstab_host */
    spx_plan_opts o;
    spx_solve_opts so;
} solve_args;

/* --rhs and --compare against the method; the plan's operation in *op. */
static int parse_rhs(solve_args *a, const char *rhs, spx_operation *op)
{
    long k = 0;
    int rc;
    *op = SPX_OP_SPMV;
    if (a->compare && !rhs) return cli_usage_error("solve", "--compare needs --rhs");
    if (!rhs) return CLI_PARSED;
    if ((rc = cli_parse_int("solve", "--rhs", rhs, 1, RHS_MAX, &k)) != CLI_PARSED) return rc;
    if (a->bicgstab)
        return cli_usage_error("solve", "--rhs solves by cg only (spx_cg_many), not bicgstab");
    a->rhs = k;
    *op = SPX_OP_SPMM;
    return CLI_PARSED;
}

static int parse_args(int argc, char **argv, solve_args *a)
{
    const char *device = "cpu", *prec = "f64", *method = "cg", *rtol = "1e-8";
    const char *max_iters = "1000", *format = "auto", *params = NULL, *rhs = NULL;
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
    if (strcmp(method, "cg") != 0 && strcmp(method, "bicgstab") != 0)
        return cli_usage_error("solve", "--method is cg or bicgstab, not '%s'", method);
    a->bicgstab = method[0] == 'b';
    if ((rc = parse_rhs(a, rhs, &op)) != CLI_PARSED) return rc;
    a->so = spx_solve_opts_default();
    a->so.jacobi = jacobi;
    if ((rc = cli_parse_double("solve", "--rtol", rtol, &a->so.rtol)) != CLI_PARSED) return rc;
    if (!(a->so.rtol >= 0.0)) return cli_usage_error("solve", "--rtol must be >= 0");
    if ((rc = cli_parse_int("solve", "--max-iters", max_iters, 0, 1L << 30, &iters)) != CLI_PARSED)
        return rc;
    a->so.max_iters = iters;
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
static void convert(double *v, int64_t n, spx_type t, int to_double)
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

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Where the summary lines go: stderr when x goes to standard output. */
static FILE *summary_stream(const solve_args *a)
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
            a->bicgstab ? "bicgstab" : "cg", a->so.jacobi ? " (jacobi)" : "", label, (long long)n,
            (long long)nnz, cli_device_name(a->o.device), spx_plan_format(P),
            cli_precision_name(a->o.precision), (long long)info->iters, info->rel_residual,
            info->ms, spx_plan_prep_ms(P), load_s);
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
        convert(b, n, t, 0);
        convert(x, n, t, 0);
        a->so.history = hist;
        cli_progress_begin(&pr, "solving by %s", a->bicgstab ? "bicgstab" : "cg");
        spx_status st = a->bicgstab ? spx_bicgstab_host(P, A, b, x, &a->so, &info)
                                    : spx_cg_host(P, A, b, x, &a->so, &info);
        cli_progress_end(&pr);
        snprintf(why, sizeof why, "%s", spx_last_error());
        convert(x, n, t, 1);
        if (st != SPX_OK && st != SPX_ERR_NOT_CONVERGED)
            rc = cli_library_error("solve", a->bicgstab ? "bicgstab" : "cg", st);
        else
            report(summary_stream(a), a, P, n, nnz, &info, load_s);
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

/* ---- --rhs K: the blocks of a many-solve, n x k row-major */
typedef struct many_blocks {
    int64_t n, k;
    spx_type t;           /* the plan's vector type */
    double *b0, *x0;      /* B and X0 as read (x0 NULL: zeros), doubles */
    double *b, *x;        /* B and X in type t for the solve; x back in doubles after it */
    double *bj, *xj;      /* one column, n entries (--compare) */
    spx_solve_info *info; /* k entries */
} many_blocks;

/* Values in [-1, 1) from xorshift64* (Vigna), seed RHS_SEED. */
static void fill_random(double *v, int64_t len)
{
    uint64_t s = RHS_SEED;
    for (int64_t i = 0; i < len; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        v[i] = (double)((s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1p-52 - 1.0;
    }
}

static void free_blocks(many_blocks *m)
{
    free(m->b0);
    free(m->x0);
    free(m->b);
    free(m->x);
    free(m->bj);
    free(m->xj);
    free(m->info);
}

/* The blocks made, and B and X0 read or set. */
static int load_blocks(const solve_args *a, int64_t n, spx_type t, many_blocks *m)
{
    const int64_t k = a->rhs;
    int rc = CLI_OK, col = a->compare; /* --compare: column buffers too */
    memset(m, 0, sizeof *m);
    m->n = n;
    m->k = k;
    m->t = t;
    if ((uint64_t)n > (SIZE_MAX / sizeof(double) - 1) / (uint64_t)k) {
        fprintf(stderr, "spx solve: %lld x %lld blocks are too large\n", (long long)n,
                (long long)k);
        return CLI_RUNTIME;
    }
    const size_t nk = (size_t)n * (size_t)k, bytes = (nk + 1) * sizeof(double);
    m->b0 = malloc(bytes);
    m->x0 = a->x0 ? malloc(bytes) : NULL;
    m->b = malloc(bytes);
    m->x = malloc(bytes);
    m->bj = col ? malloc(((size_t)n + 1) * sizeof *m->bj) : NULL;
    m->xj = col ? malloc(((size_t)n + 1) * sizeof *m->xj) : NULL;
    m->info = calloc((size_t)k, sizeof *m->info);
    if (!m->b0 || (a->x0 && !m->x0) || !m->b || !m->x || (col && (!m->bj || !m->xj)) || !m->info) {
        fprintf(stderr, "spx solve: out of memory for the blocks\n");
        return CLI_RUNTIME;
    }
    if (a->b)
        rc = cli_read_rows("solve", a->b, n, k, "the row count of A", m->b0);
    else
        fill_random(m->b0, (int64_t)nk);
    if (rc == CLI_OK && a->x0)
        rc = cli_read_rows("solve", a->x0, n, k, "the row count of A", m->x0);
    memcpy(m->b, m->b0, nk * sizeof(double));
    convert(m->b, (int64_t)nk, t, 0);
    return rc;
}

/* X = X0 in the plan's type, for a solve to start from. */
static void start_x(many_blocks *m)
{
    const int64_t nk = m->n * m->k;
    if (m->x0)
        memcpy(m->x, m->x0, (size_t)nk * sizeof(double));
    else
        memset(m->x, 0, (size_t)nk * sizeof(double));
    convert(m->x, nk, m->t, 0);
}

/* The many-solve from X0 into m's X (back in doubles) and info; *ms: the
 * wall clock of the call. */
static spx_status solve_many(const spx_solve_opts *so, const spx_matrix *A, const spx_plan *P,
                             many_blocks *m, double *ms)
{
    start_x(m);
    double t0 = now_ms();
    spx_status st = spx_cg_many_host(P, A, m->k, m->b, m->k, m->x, m->k, so, m->info);
    *ms = now_ms() - t0;
    convert(m->x, m->n * m->k, m->t, 1);
    return st;
}

/* Column j alone from its X0 by spx_cg_host on the SpMV plan Pv, into m's
 * xj (doubles); *ms: the wall clock of the call. */
static spx_status solve_column(const spx_solve_opts *so, const spx_matrix *A, const spx_plan *Pv,
                               many_blocks *m, int64_t j, spx_solve_info *info, double *ms)
{
    for (int64_t i = 0; i < m->n; i++) {
        m->bj[i] = m->b0[i * m->k + j];
        m->xj[i] = m->x0 ? m->x0[i * m->k + j] : 0.0;
    }
    convert(m->bj, m->n, m->t, 0);
    convert(m->xj, m->n, m->t, 0);
    double t0 = now_ms();
    spx_status st = spx_cg_host(Pv, A, m->bj, m->xj, so, info);
    *ms = now_ms() - t0;
    convert(m->xj, m->n, m->t, 1);
    return st;
}

/* A solve's status as the command takes it: not converging is a result. */
static int solved(spx_status st)
{
    return st == SPX_OK || st == SPX_ERR_NOT_CONVERGED;
}

/* One untimed solve of each kind, so that the timed ones find the plans'
 * kept workspaces made and the GPU context up. */
static int warm_up(const solve_args *a, const spx_matrix *A, const spx_plan *P, const spx_plan *Pv,
                   many_blocks *m)
{
    spx_solve_info info;
    spx_solve_opts so = a->so;
    double ms;
    spx_status st;
    so.history = NULL;
    if (!solved(st = solve_many(&so, A, P, m, &ms)))
        return cli_library_error("solve", "cg_many", st);
    if (!solved(st = solve_column(&so, A, Pv, m, 0, &info, &ms)))
        return cli_library_error("solve", "cg", st);
    return CLI_OK;
}

/* What --compare measures: the k separate solves against the many-solve. */
typedef struct many_compare {
    double many_ms, single_ms; /* wall clocks around the solve calls */
    int64_t iters_diff;        /* max over columns of |iters_many - iters_single| */
    double dx, xmax;           /* max |x_many - x_single|, max |x_single| */
} many_compare;

/* Each column alone after the many-solve (whose X and info m holds). */
static int compare_columns(const solve_args *a, const spx_matrix *A, const spx_plan *Pv,
                           many_blocks *m, many_compare *c)
{
    spx_solve_opts so = a->so;
    so.history = NULL;
    for (int64_t j = 0; j < m->k; j++) {
        spx_solve_info info;
        double ms;
        spx_status st = solve_column(&so, A, Pv, m, j, &info, &ms);
        if (!solved(st)) return cli_library_error("solve", "cg", st);
        c->single_ms += ms;
        int64_t d = llabs((long long)(m->info[j].iters - info.iters));
        if (d > c->iters_diff) c->iters_diff = d;
        for (int64_t i = 0; i < m->n; i++) {
            c->dx = fmax(c->dx, fabs(m->x[i * m->k + j] - m->xj[i]));
            c->xmax = fmax(c->xmax, fabs(m->xj[i]));
        }
    }
    return CLI_OK;
}

/* The many-solve's line: the most iterations of a column, the worst
 * relative residual (a NaN one wins), the solve's time. */
static void report_many(FILE *out, const solve_args *a, const spx_plan *P, int64_t n, int64_t nnz,
                        const many_blocks *m, double load_s)
{
    char label[256];
    int64_t iters = 0;
    double worst = 0.0;
    for (int64_t j = 0; j < m->k; j++) {
        double rel = m->info[j].rel_residual;
        if (m->info[j].iters > iters) iters = m->info[j].iters;
        if (!isnan(worst) && (isnan(rel) || rel > worst)) worst = rel;
    }
    cli_matrix_label(a->matrix, label, sizeof label);
    fprintf(out,
            "cg-many%s on %s (%lld rows, %lld nonzeros), %s %s %s, k = %lld: %lld iterations "
            "(most of a column), relative residual %.3g (worst column), %.3f ms (plan %.3f ms, "
            "read %.3f s)\n",
            a->so.jacobi ? " (jacobi)" : "", label, (long long)n, (long long)nnz,
            cli_device_name(a->o.device), spx_plan_format(P), cli_precision_name(a->o.precision),
            (long long)m->k, (long long)iters, worst, m->info[0].ms, spx_plan_prep_ms(P), load_s);
}

static void report_compare(FILE *out, const solve_args *a, const spx_plan *Pv, int64_t k,
                           const many_compare *c)
{
    fprintf(out,
            "cg column by column, %s %s %s SpMV plan (plan %.3f ms): %.3f ms for %lld solves, "
            "cg-many %.3f ms (wall clocks around the solve calls, after a warm-up of each): "
            "ratio %.2f, iterations differ by at most %lld, max |x_many - x_single| / "
            "max |x_single| %.3g\n",
            cli_device_name(a->o.device), spx_plan_format(Pv), cli_precision_name(a->o.precision),
            spx_plan_prep_ms(Pv), c->single_ms, (long long)k, c->many_ms, c->single_ms / c->many_ms,
            (long long)c->iters_diff, c->xmax > 0.0 ? c->dx / c->xmax : c->dx);
}

/* With --compare: the SpMV plan of P's format (so "auto" compares the
 * format it chose), then the warm-up solves. */
static int prepare_compare(const solve_args *a, const spx_matrix *A, const spx_plan *P,
                           many_blocks *m, spx_plan **Pv)
{
    spx_plan_opts o = a->o;
    o.format = spx_plan_format(P);
    spx_status st = spx_plan_create(A, SPX_OP_SPMV, &o, Pv);
    if (st != SPX_OK) return cli_library_error("solve", a->matrix, st);
    return warm_up(a, A, P, *Pv, m);
}

/* --rhs K: the many-solve with P (an SpMM plan), --compare's solves, X and
 * the history written as asked. */
static int run_many(solve_args *a, const spx_matrix *A, const spx_plan *P, double load_s)
{
    int64_t n, nnz, iters = 0;
    spx_matrix_dims(A, &n, NULL, &nnz);
    many_blocks m;
    many_compare c = {0.0, 0.0, 0, 0.0, 0.0};
    spx_plan *Pv = NULL;
    spx_status st = SPX_OK;
    double *hist = a->history ? calloc((size_t)a->so.max_iters + 1, sizeof *hist) : NULL;
    char why[512];
    int rc = load_blocks(a, n, spx_plan_x_type(P), &m);
    if (rc == CLI_OK && a->history && !hist) {
        fprintf(stderr, "spx solve: out of memory for the history\n");
        rc = CLI_RUNTIME;
    }
    if (rc == CLI_OK && a->compare) rc = prepare_compare(a, A, P, &m, &Pv);
    if (rc == CLI_OK) {
        cli_progress pr;
        spx_solve_opts so = a->so;
        so.history = hist;
        cli_progress_begin(&pr, "solving %lld right-hand sides by cg", (long long)m.k);
        st = solve_many(&so, A, P, &m, &c.many_ms);
        cli_progress_end(&pr);
        snprintf(why, sizeof why, "%s", spx_last_error());
        if (!solved(st)) rc = cli_library_error("solve", "cg_many", st);
    }
    if (rc == CLI_OK) {
        report_many(summary_stream(a), a, P, n, nnz, &m, load_s);
        for (int64_t j = 0; j < m.k; j++)
            if (m.info[j].iters > iters) iters = m.info[j].iters;
    }
    if (rc == CLI_OK && a->compare) {
        cli_progress pr;
        cli_progress_begin(&pr, "solving the %lld columns one by one", (long long)m.k);
        rc = compare_columns(a, A, Pv, &m, &c);
        cli_progress_end(&pr);
        if (rc == CLI_OK) report_compare(summary_stream(a), a, Pv, m.k, &c);
    }
    if (rc == CLI_OK && a->out) rc = cli_write_rows("solve", a->out, n, m.k, m.x);
    if (rc == CLI_OK && a->history) rc = cli_write_values("solve", a->history, iters + 1, hist);
    if (rc == CLI_OK && st == SPX_ERR_NOT_CONVERGED) {
        fprintf(stderr, "spx solve: not converged: %s\n", why);
        rc = CLI_CHECK;
    }
    spx_plan_destroy(Pv);
    free_blocks(&m);
    free(hist);
    return rc;
}

int spx_cmd_solve(int argc, char **argv)
{
    solve_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_PARSED) return rc;
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    cli_load_info info;
    spx_status st = cli_load_matrix(a.matrix, &A, &info);
    if (st != SPX_OK) return cli_library_error("solve", a.matrix, st);
    if ((st = spx_plan_create(A, a.rhs ? SPX_OP_SPMM : SPX_OP_SPMV, &a.o, &P)) != SPX_OK)
        rc = cli_library_error("solve", a.matrix, st);
    else if (a.rhs)
        rc = run_many(&a, A, P, info.seconds);
    else
        rc = run_solve(&a, A, P, info.seconds);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    return rc;
}
