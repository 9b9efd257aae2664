/* spx spmv and spx bench under mpirun, distributed over the ranks
 * (spx_mpi.h; built when SpX has MPI, SPX_CLI_MPI):
 *   mpirun -np N spx spmv A --out Y.txt [--x X.txt] [--alpha a] [--kind K]
 *                         [--format F] [--device cpu|cuda] [--precision f64|f32]
 *   mpirun -np N spx bench A [--kind K] [--format F] [--device cpu|cuda]
 *                            [--precision f64|f32] [--calls C] [--batches B]
 *   mpirun -np N spx solve A [--method cg|bicgstab|gmres] [--jacobi] [--rtol r]
 *                            [--max-iters m] [--b B.txt] [--out X.txt] [--kind K]
 *                            [--format F] [--device cpu|cuda] [--precision f64|f32]
 *   mpirun -np N spx eigs A [--k K] [--which largest|smallest] [--tol t]
 *                           [--max-steps m] [--skip-copies] [--kind K] [--format F]
 *                           [--device cpu|cuda]
 *                           [--precision f64|f32]
 * A .mtx or .mtx.gz file is read in parallel (no rank holds it whole);
 * gen:SPEC and other files are built or read by every rank, each keeping
 * its part. spmv:
 * x from X.txt (rank 0 reads it, the ranks get their entries) or ones, y
 * gathered on rank 0 and written there. bench: each kind (or --kind) timed,
 * the slowest rank per batch, with the bytes the exchange moves against an
 * allgather of x and the phases of the last call (the most over the ranks:
 * own columns' blocks queued or run, halo wait, halo blocks and y back,
 * partial sums); with --device cuda each kind twice, host vectors and
 * vectors resident on the ranks' GPUs (spx_dist_spmv_device). solve:
 * spx_dist_cg, spx_dist_bicgstab or spx_dist_gmres from x = 0 (with --device
 * cuda their _device forms, on copies of b and x in each rank's GPU), b from B.txt
 * (rank 0 reads it) or ones, one line on rank 0 (as spx solve's, the time
 * the slowest rank's), x gathered and written there; not converging within
 * --max-iters is exit 3, as for spx solve. eigs: spx_dist_eigsh (with
 * --device cuda spx_dist_eigsh_device, no vectors kept), spx eigs's line
 * and values on rank 0 (the time the slowest rank's), exit 3 when not
 * converged. A failure on any rank is reported
 * once, by rank 0 for a failure everywhere, and every rank exits with the same code. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_mpi.h"

#ifndef SPX_CLI_MPI
int cli_mpi_wanted(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
int cli_mpi_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return CLI_RUNTIME;
}
#else
#include "bench_cuda.h"
#include "spx_mpi.h"

typedef struct mpi_args {
    const char *cmd, *matrix, *out, *x, *format, *method, *b;
    spx_solve_opts so;
    spx_eig_opts eo;
    spx_partition kind;
    int all_kinds;
    spx_device device;
    spx_type precision;
    double alpha;
    long calls, batches;
} mpi_args;

int cli_mpi_wanted(int argc, char **argv)
{
    if (argc < 1 || (strcmp(argv[0], "spmv") != 0 && strcmp(argv[0], "bench") != 0 &&
                     strcmp(argv[0], "solve") != 0 && strcmp(argv[0], "eigs") != 0))
        return 0;
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

/* spx solve's own options (a->cmd "solve"). */
static int parse_solve_option(mpi_args *a, const char *opt, const char *v)
{
    long n;
    int rc = CLI_PARSED;
    if (strcmp(opt, "--method") == 0) {
        if (strcmp(v, "cg") != 0 && strcmp(v, "bicgstab") != 0 && strcmp(v, "gmres") != 0)
            return cli_usage_error(a->cmd, "--method is cg, bicgstab or gmres, not '%s'", v);
        a->method = v;
    } else if (strcmp(opt, "--b") == 0) {
        a->b = v;
    } else if (strcmp(opt, "--rtol") == 0) {
        rc = cli_parse_double(a->cmd, opt, v, &a->so.rtol);
        if (rc == CLI_PARSED && !(a->so.rtol >= 0.0))
            return cli_usage_error(a->cmd, "--rtol must be >= 0");
    } else if (strcmp(opt, "--max-iters") == 0) {
        if ((rc = cli_parse_int(a->cmd, opt, v, 0, 1L << 30, &n)) == CLI_PARSED)
            a->so.max_iters = n;
    } else {
        return -2; /* not one of them */
    }
    return rc;
}

/* spx eigs's own options (a->cmd "eigs"). */
static int parse_eigs_option(mpi_args *a, const char *opt, const char *v)
{
    long n;
    int rc = CLI_PARSED;
    if (strcmp(opt, "--k") == 0) {
        if ((rc = cli_parse_int(a->cmd, opt, v, 1, 1L << 20, &n)) == CLI_PARSED) a->eo.k = n;
    } else if (strcmp(opt, "--max-steps") == 0) {
        if ((rc = cli_parse_int(a->cmd, opt, v, 1, 1L << 24, &n)) == CLI_PARSED)
            a->eo.max_steps = n;
    } else if (strcmp(opt, "--tol") == 0) {
        rc = cli_parse_double(a->cmd, opt, v, &a->eo.tol);
        if (rc == CLI_PARSED && !(a->eo.tol >= 0.0))
            return cli_usage_error(a->cmd, "--tol must be >= 0");
    } else if (strcmp(opt, "--which") == 0) {
        if (strcmp(v, "largest") != 0 && strcmp(v, "smallest") != 0)
            return cli_usage_error(a->cmd, "--which is largest or smallest, not '%s'", v);
        a->eo.which = v[0] == 's' ? SPX_EIG_SMALLEST : SPX_EIG_LARGEST;
    } else {
        return -2; /* not one of them */
    }
    return rc;
}

static int parse_option(mpi_args *a, const char *opt, const char *v)
{
    int rc = a->cmd[1] == 'o'   ? parse_solve_option(a, opt, v)
             : a->cmd[0] == 'e' ? parse_eigs_option(a, opt, v)
                                : -2;
    if (rc != -2) return rc;
    if (strcmp(opt, "--out") == 0 && a->cmd[0] == 's')
        a->out = v;
    else if (strcmp(opt, "--x") == 0 && a->cmd[1] == 'p')
        a->x = v;
    else if (strcmp(opt, "--alpha") == 0)
        return cli_parse_double(a->cmd, opt, v, &a->alpha);
    else if (strcmp(opt, "--format") == 0)
        a->format = v;
    else if (strcmp(opt, "--device") == 0)
        return cli_parse_device(a->cmd, v, &a->device);
    else if (strcmp(opt, "--precision") == 0)
        return cli_parse_precision(a->cmd, v, &a->precision);
    else if (strcmp(opt, "--calls") == 0)
        return cli_parse_int(a->cmd, opt, v, 1, 1000000, &a->calls);
    else if (strcmp(opt, "--batches") == 0)
        return cli_parse_int(a->cmd, opt, v, 1, 64, &a->batches);
    else if (strcmp(opt, "--kind") == 0) {
        a->all_kinds = 0;
        if (spx_partition_parse(v, &a->kind) != SPX_OK)
            return cli_usage_error(a->cmd, "--kind %s: pcsr, pcsc, pcoo or rows", v);
    } else
        return cli_usage_error(a->cmd, "%s is not an option of spx %s under mpirun", opt, a->cmd);
    return CLI_PARSED;
}

static int parse(int argc, char **argv, mpi_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = argv[0];
    a->format = "auto";
    a->kind = SPX_PART_PCSR;
    a->all_kinds = a->cmd[0] == 'b';
    a->device = SPX_DEV_CPU;
    a->precision = SPX_F64;
    a->alpha = 1.0;
    a->calls = 20;
    a->batches = 9;
    a->method = "cg";
    a->so = spx_solve_opts_default();
    a->eo = spx_eig_opts_default();
    for (int i = 1; i < argc; i++) {
        int rc = CLI_PARSED;
        if (argv[i][0] != '-' && !a->matrix)
            a->matrix = argv[i];
        else if (strcmp(argv[i], "--jacobi") == 0 && a->cmd[1] == 'o')
            a->so.jacobi = 1;
        else if (strcmp(argv[i], "--skip-copies") == 0 && a->cmd[0] == 'e')
            a->eo.skip_copies = 1;
        else if (i + 1 < argc)
            rc = parse_option(a, argv[i], argv[i + 1]), i++;
        else
            rc = cli_usage_error(a->cmd, "%s needs a value", argv[i]);
        if (rc != CLI_PARSED) return rc;
    }
    if (!a->matrix) return cli_usage_error(a->cmd, "no matrix given");
    if (a->cmd[1] == 'p' && !a->out) return cli_usage_error(a->cmd, "--out Y.txt is required");
    if (a->precision == SPX_F16) return cli_usage_error(a->cmd, "under mpirun: f64 or f32");
    return CLI_PARSED;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The matrix on every rank: a .mtx or .mtx.gz read in parallel, else built
 * or read whole. */
static spx_status load(const mpi_args *a, spx_partition kind, spx_matrix **A, spx_dist_matrix **D)
{
    if (ends_with(a->matrix, ".mtx") || ends_with(a->matrix, ".mtx.gz"))
        return spx_dist_read_mtx(MPI_COMM_WORLD, a->matrix, kind, D);
    if (!*A) {
        cli_load_info li;
        spx_status st = cli_load_matrix(a->matrix, A, &li);
        int ok = st == SPX_OK, all = 0;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all) return st != SPX_OK ? st : SPX_ERR_IO;
    }
    return spx_dist_matrix_from_global(MPI_COMM_WORLD, *A, kind, D);
}

/* n doubles to the plan's vector type, and back. */
static void from_double(spx_type t, const double *src, void *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == SPX_F64)
            ((double *)dst)[i] = src[i];
        else
            ((float *)dst)[i] = (float)src[i];
    }
}

static void to_double(spx_type t, const void *src, double *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = t == SPX_F64 ? ((const double *)src)[i] : (double)((const float *)src)[i];
}

static spx_status spmv_once(const mpi_args *a, spx_dist_matrix *D, spx_dist_plan *P, int rank)
{
    spx_dist_layout l;
    spx_dist_matrix_layout(D, &l);
    size_t es = a->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
    int64_t n = rank == 0 ? l.cols : 0, m = rank == 0 ? l.rows : 0; /* whole vectors: rank 0 */
    double *xg = calloc((size_t)(n > m ? n : m) + 1, sizeof *xg);
    void *xt = malloc(es * (size_t)(n + 1)), *xl = malloc(es * (size_t)(nx + 1));
    void *yl = calloc((size_t)ny + 1, es), *yt = malloc(es * (size_t)(m + 1));
    int ok = xg && xt && xl && yl && yt, all = 0;
    if (ok && rank == 0) {
        for (int64_t j = 0; j < n; j++)
            xg[j] = 1.0;
        if (a->x) ok = cli_read_vector(a->cmd, a->x, n, "x", xg) == CLI_OK;
        from_double(a->precision, xg, xt, n);
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) return SPX_ERR_IO;
    spx_status st = spx_dist_scatter(D, SPX_DIST_COLS, a->precision, xt, xl, 0);
    if (st == SPX_OK) st = spx_dist_spmv(P, a->alpha, xl, nx, 0.0, yl, ny);
    if (st == SPX_OK) st = spx_dist_gather(D, SPX_DIST_ROWS, a->precision, yl, yt, 0);
    if (st == SPX_OK && rank == 0) {
        to_double(a->precision, yt, xg, m);
        ok = cli_write_vector(a->cmd, a->out, m, xg) == CLI_OK;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(xg), free(xt), free(xl), free(yl), free(yt);
    return st != SPX_OK ? st : ok ? SPX_OK : SPX_ERR_IO;
}

/* The solve of b into x (host entries): with --device cuda on copies in the
 * rank's GPU memory (spx_dist_cg_device...), else on the host vectors. */
static spx_status solve_where(const mpi_args *a, spx_dist_plan *P, size_t es, int64_t own,
                              const void *b, void *x, spx_solve_info *info)
{
    const int gpu = a->device == SPX_DEV_CUDA;
    void *db = NULL, *dx = NULL;
    spx_status st = SPX_OK;
    if (gpu) { /* each rank uploads its own: a failure is agreed by the solve's checks */
        st = bench_cuda_set_device(spx_dist_plan_device(P));
        if (st == SPX_OK) st = bench_cuda_upload(&db, b, es * (size_t)(own + 1), "b");
        if (st == SPX_OK) st = bench_cuda_upload(&dx, x, es * (size_t)(own + 1), "x");
    }
    const void *bb = gpu ? db : b;
    void *xx = gpu ? dx : x;
    if (a->method[0] == 'b')
        st =
            (gpu ? spx_dist_bicgstab_device : spx_dist_bicgstab)(P, bb, own, xx, own, &a->so, info);
    else if (a->method[0] == 'g')
        st = (gpu ? spx_dist_gmres_device : spx_dist_gmres)(P, bb, own, xx, own, &a->so, info);
    else
        st = (gpu ? spx_dist_cg_device : spx_dist_cg)(P, bb, own, xx, own, &a->so, info);
    if (gpu && (st == SPX_OK || st == SPX_ERR_NOT_CONVERGED) && own > 0) {
        spx_status back = bench_cuda_copy(x, dx, es * (size_t)own, 0);
        if (back != SPX_OK) st = back;
    }
    bench_cuda_free(db);
    bench_cuda_free(dx);
    return st;
}

/* mpirun spx eigs: the values on rank 0; *unconverged where max_steps passed first. */
static spx_status eigs_once(const mpi_args *a, spx_dist_matrix *D, spx_dist_plan *P, int rank,
                            int size, int *unconverged)
{
    spx_dist_layout l;
    spx_dist_matrix_layout(D, &l);
    double *values = calloc((size_t)a->eo.k + 1, sizeof *values);
    spx_eig_info info = {0};
    spx_status st = (a->device == SPX_DEV_CUDA ? spx_dist_eigsh_device
                                               : spx_dist_eigsh)(P, &a->eo, values, NULL, &info);
    *unconverged = st == SPX_ERR_NOT_CONVERGED;
    if (*unconverged) st = SPX_OK;
    double slowest = info.ms;
    MPI_Allreduce(&info.ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (st == SPX_OK && rank == 0) {
        char label[256];
        cli_matrix_label(a->matrix, label, sizeof label);
        printf("eigs (%lld %s) on %s (%lld rows, %lld nonzeros) over %d ranks, %s, %s %s: %lld "
               "steps, %lld restarts, %lld fresh starts, %lld of %lld converged, max residual "
               "%.3g, %.3f ms (the slowest rank)\n",
               (long long)a->eo.k, a->eo.which == SPX_EIG_SMALLEST ? "smallest" : "largest", label,
               (long long)l.rows, (long long)l.nnz, size, spx_partition_name(a->kind),
               cli_device_name(a->device), cli_precision_name(a->precision), (long long)info.steps,
               (long long)info.restarts, (long long)info.fresh_starts, (long long)info.converged,
               (long long)a->eo.k, info.max_residual, slowest);
        for (int64_t j = 0; j < a->eo.k; j++)
            printf("%.17g\n", values[j]);
        if (*unconverged) fprintf(stderr, "spx eigs: not converged\n");
    }
    free(values);
    return st;
}

/* mpirun spx solve: b scattered, the solve, x gathered and written, the
 * line printed on rank 0; *unconverged where max_iters passed first. */
static spx_status solve_once(const mpi_args *a, spx_dist_matrix *D, spx_dist_plan *P, int rank,
                             int size, int *unconverged)
{
    spx_dist_layout l;
    spx_dist_matrix_layout(D, &l);
    const size_t es = a->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    const int64_t own = l.row_end - l.row_begin, n = rank == 0 ? l.rows : 0;
    double *g = calloc((size_t)n + 1, sizeof *g);
    void *gt = malloc(es * (size_t)(n + 1)), *b = malloc(es * (size_t)(own + 1));
    void *x = calloc((size_t)own + 1, es);
    int ok = g && gt && b && x, all = 0;
    if (ok && rank == 0) {
        for (int64_t i = 0; i < n; i++)
            g[i] = 1.0;
        if (a->b) ok = cli_read_vector(a->cmd, a->b, n, "the row count of A", g) == CLI_OK;
        from_double(a->precision, g, gt, n);
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        free(g), free(gt), free(b), free(x);
        return SPX_ERR_IO;
    }
    spx_solve_info info = {0};
    spx_status st = spx_dist_scatter(D, SPX_DIST_ROWS, a->precision, gt, b, 0);
    if (st == SPX_OK) st = solve_where(a, P, es, own, b, x, &info);
    *unconverged = st == SPX_ERR_NOT_CONVERGED;
    if (*unconverged) st = SPX_OK;
    double slowest = info.ms;
    MPI_Allreduce(&info.ms, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (st == SPX_OK) st = spx_dist_gather(D, SPX_DIST_COLS, a->precision, x, gt, 0);
    if (st == SPX_OK && rank == 0) {
        char label[256];
        cli_matrix_label(a->matrix, label, sizeof label);
        printf("%s%s on %s (%lld rows, %lld nonzeros) over %d ranks, %s, %s %s: %lld "
               "iterations, relative residual %.3g, %.3f ms (the slowest rank)\n",
               a->method, a->so.jacobi ? " (jacobi)" : "", label, (long long)l.rows,
               (long long)l.nnz, size, spx_partition_name(a->kind), cli_device_name(a->device),
               cli_precision_name(a->precision), (long long)info.iters, info.rel_residual, slowest);
        to_double(a->precision, gt, g, n);
        if (a->out) ok = cli_write_values(a->cmd, a->out, n, g) == CLI_OK;
        if (*unconverged)
            fprintf(stderr,
                    "spx solve: not converged: relative residual %.3g after %lld "
                    "iterations\n",
                    info.rel_residual, (long long)info.iters);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(g), free(gt), free(b), free(x);
    return st != SPX_OK ? st : ok ? SPX_OK : SPX_ERR_IO;
}

static int by_value(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

/* A rank's bench vectors, zeros: host memory, or (resident) its GPU's. */
static spx_status bench_vectors(const spx_dist_plan *P, int resident, size_t es, int64_t nx,
                                int64_t ny, void **x, void **y)
{
    spx_status st = SPX_OK;
    if (!resident) {
        *x = calloc((size_t)nx + 1, es);
        *y = calloc((size_t)ny + 1, es);
        return *x && *y ? SPX_OK : SPX_ERR_OOM;
    }
    void *zeros = calloc((size_t)(nx > ny ? nx : ny) + 1, es);
    if (!zeros) return SPX_ERR_OOM;
    st = bench_cuda_set_device(spx_dist_plan_device(P));
    if (st == SPX_OK) st = bench_cuda_upload(x, zeros, es * (size_t)nx, "x on the rank's GPU");
    if (st == SPX_OK) st = bench_cuda_upload(y, zeros, es * (size_t)ny, "y on the rank's GPU");
    free(zeros);
    return st;
}

static void bench_vectors_free(int resident, void *x, void *y)
{
    if (resident) {
        bench_cuda_free(x);
        bench_cuda_free(y);
    } else {
        free(x);
        free(y);
    }
}

typedef spx_status (*dist_call)(spx_dist_plan *, double, const void *, int64_t, double, void *,
                                int64_t);

/* Each batch: the mean of a->calls calls, the slowest rank's; t[b] on every rank. */
static spx_status time_batches(const mpi_args *a, spx_dist_plan *P, dist_call call, void *x,
                               int64_t nx, void *y, int64_t ny, double *t)
{
    spx_status st = SPX_OK;
    for (long i = 0; i < a->calls && st == SPX_OK; i++)
        st = call(P, 1.0, x, nx, 0.0, y, ny);
    for (long b = 0; b < a->batches && st == SPX_OK; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double s = MPI_Wtime(), ms;
        for (long i = 0; i < a->calls && st == SPX_OK; i++)
            st = call(P, 1.0, x, nx, 0.0, y, ny);
        ms = (MPI_Wtime() - s) * 1e3 / (double)a->calls;
        MPI_Allreduce(&ms, &t[b], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return st;
}

/* One row of the table: host vectors, or (resident) vectors on the ranks' GPUs. */
static spx_status bench_once(const mpi_args *a, spx_dist_matrix *D, spx_dist_plan *P, int rank,
                             int resident)
{
    spx_dist_layout l;
    spx_dist_info in;
    double t[64], sums[2], mine[6], most[4];
    void *x = NULL, *y = NULL;
    spx_dist_matrix_layout(D, &l);
    size_t es = a->precision == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
    spx_status st = bench_vectors(P, resident, es, nx, ny, &x, &y);
    int ok = st == SPX_OK, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all)
        st = time_batches(a, P, resident ? spx_dist_spmv_device : spx_dist_spmv, x, nx, y, ny, t);
    bench_vectors_free(resident, x, y);
    if (!all) return st != SPX_OK ? st : SPX_ERR_OOM;
    if (st != SPX_OK) return st;
    spx_dist_plan_info(P, &in);
    mine[0] = (double)in.recv_bytes;
    mine[1] = (double)in.allgather_bytes;
    mine[2] = in.local_ms;
    mine[3] = in.halo_wait_ms;
    mine[4] = in.remote_ms;
    mine[5] = in.partial_ms;
    MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine + 2, most, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(t, (size_t)a->batches, sizeof *t, by_value);
        double med = t[a->batches / 2];
        printf("%-5s %-7s %5d %10.3f [%.3f-%.3f] %9.2f %14.0f %14.0f %7.3f%%  "
               "%.3f/%.3f/%.3f/%.3f  %s|%s|%s|%s  %s\n",
               spx_partition_name(a->kind), resident ? "device" : "host", l.size, med, t[0],
               t[a->batches - 1], 2e-6 * (double)l.nnz / med, sums[0], sums[1],
               sums[1] > 0 ? 100.0 * sums[0] / sums[1] : 0.0, most[0], most[1], most[2], most[3],
               in.formats[0], in.formats[1], in.formats[2], in.formats[3], in.exchange);
    }
    return SPX_OK;
}

int cli_mpi_run(int argc, char **argv)
{
    mpi_args a;
    int rank = 0, size = 1;
    spx_matrix *A = NULL;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rc = parse(argc, argv, &a);
    spx_status st = SPX_OK;
    int unconverged = 0;
    static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO,
                                          SPX_PART_ROWS};
    if (rc == CLI_PARSED && a.cmd[0] == 'b' && rank == 0)
        printf("%s on %d ranks, %s %s\nkind  vectors ranks  ms a call [min-max]   GFLOP/s  "
               "recv bytes/SpMV allgather bytes  share  local/halo wait/halo/partials ms  "
               "blocks (own|halo|others' own|others' halo)  exchange (rank 0)\n",
               a.matrix, size, a.device == SPX_DEV_CUDA ? "cuda" : "cpu",
               a.precision == SPX_F64 ? "f64" : "f32");
    for (size_t k = 0; rc == CLI_PARSED && st == SPX_OK && k < 4; k++) {
        if (!a.all_kinds && kinds[k] != a.kind) continue;
        spx_dist_matrix *D = NULL;
        spx_dist_plan *P = NULL;
        spx_plan_opts o = spx_plan_opts_default();
        o.format = a.format;
        o.device = a.device;
        o.precision = a.precision;
        a.kind = kinds[k];
        st = load(&a, kinds[k], &A, &D);
        if (st == SPX_OK) st = spx_dist_plan_create(D, &o, &P);
        if (st == SPX_OK && a.cmd[1] == 'o')
            st = solve_once(&a, D, P, rank, size, &unconverged);
        else if (st == SPX_OK && a.cmd[0] == 'e')
            st = eigs_once(&a, D, P, rank, size, &unconverged);
        else if (st == SPX_OK)
            st = a.cmd[0] == 's' ? spmv_once(&a, D, P, rank) : bench_once(&a, D, P, rank, 0);
        if (st == SPX_OK && a.cmd[0] == 'b' && a.device == SPX_DEV_CUDA)
            st = bench_once(&a, D, P, rank, 1);
        spx_dist_plan_destroy(P);
        spx_dist_matrix_destroy(D);
    }
    if (rc == CLI_PARSED)
        rc = st == SPX_OK ? CLI_OK
             : rank == 0  ? cli_library_error(a.cmd, a.matrix, st)
                          : CLI_RUNTIME;
    if (rc == CLI_OK && unconverged) rc = CLI_CHECK;
    spx_matrix_destroy(A);
    MPI_Finalize();
    return rc;
}
#endif
