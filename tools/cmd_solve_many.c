/* spx solve --rhs K: A X = B for K columns at once by spx_cg_many_host on
 * an SpMM plan, B, X0 and X n x K row-major (a row of K values per line; B
 * by default pseudo-random in [-1, 1)), and with --compare each column
 * alone by spx_cg_host on an SpMV plan of the SpMM plan's format, timed in
 * the same process (cmd_solve.c says what the lines hold). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_solve.h"

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
    solve_convert(m->b, (int64_t)nk, t, 0);
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
    solve_convert(m->x, nk, m->t, 0);
}

/* The many-solve from X0 into m's X (back in doubles) and info; *ms: the
 * wall clock of the call. */
static spx_status solve_many(const spx_solve_opts *so, const spx_matrix *A, const spx_plan *P,
                             many_blocks *m, double *ms)
{
    start_x(m);
    double t0 = solve_now_ms();
    spx_status st = spx_cg_many_host(P, A, m->k, m->b, m->k, m->x, m->k, so, m->info);
    *ms = solve_now_ms() - t0;
    solve_convert(m->x, m->n * m->k, m->t, 1);
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
    solve_convert(m->bj, m->n, m->t, 0);
    solve_convert(m->xj, m->n, m->t, 0);
    double t0 = solve_now_ms();
    spx_status st = spx_cg_host(Pv, A, m->bj, m->xj, so, info);
    *ms = solve_now_ms() - t0;
    solve_convert(m->xj, m->n, m->t, 1);
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
int solve_run_many(solve_args *a, const spx_matrix *A, const spx_plan *P, double load_s)
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
        report_many(solve_summary_stream(a), a, P, n, nnz, &m, load_s);
        for (int64_t j = 0; j < m.k; j++)
            if (m.info[j].iters > iters) iters = m.info[j].iters;
    }
    if (rc == CLI_OK && a->compare) {
        cli_progress pr;
        cli_progress_begin(&pr, "solving the %lld columns one by one", (long long)m.k);
        rc = compare_columns(a, A, Pv, &m, &c);
        cli_progress_end(&pr);
        if (rc == CLI_OK) report_compare(solve_summary_stream(a), a, Pv, m.k, &c);
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
