/* The MPI executor (spx_mpi.h) on 1..4 ranks: every partition kind on
 * random, stencil, power-law, rectangular, long-row (a rank inside one row,
 * owning none) and empty matrices, the matrix held by every rank and read
 * from a Matrix Market file in parallel (and from its .gz copy): y gathered on rank 0 against the
 * long-double reference within (32 + rmax) eps (|alpha| |A| |x| + |beta| |y|),
 * beta 0 over NaN and beta over y, fp64 and fp32, the same bits on a second
 * call, and the file read giving the same bits as the held matrix. Bad
 * input gives the same status on every rank and ends: more ranks than rows,
 * a mismatched vector on one rank, op T, a missing file, MPI_COMM_NULL.
 * With a GPU, every case also runs with the ranks' parts on it, with host
 * vectors and with vectors resident on the GPUs (the same bits), and a
 * resident call given host memory, or made on some ranks while the others
 * make the host-vector call, is refused on every rank (the agreement that
 * compares the ranks' calls is also checked alone, on the CPU).
 * Rank 0 prints the totals; every rank exits 1 if any rank failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "core/error.h"
#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/mpi/dist.h"
#include "spx_mpi.h"

#ifdef SPX_TEST_HAVE_ZLIB
#define HAVE_GZ 1 /* each file is also read from a .gz copy */
#else
#define HAVE_GZ 0
#endif

static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};
static int rank, size;

static int64_t longest_row(const spx_matrix *A)
{
    int64_t m, most = 0;
    const int64_t *rp;
    const void *ci, *v;
    int bits;
    spx_type t;
    spx_matrix_dims(A, &m, NULL, NULL);
    spx_matrix_csr(A, &rp, &ci, &bits, &v, &t);
    for (int64_t i = 0; i < m; i++) most = rp[i + 1] - rp[i] > most ? rp[i + 1] - rp[i] : most;
    return most;
}

/* Global x and y0, the same on every rank. */
static void vectors(int64_t n, int64_t m, double *x, double *y0)
{
    uint64_t seed = 11;
    for (int64_t j = 0; j < n; j++) x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < m; i++) y0[i] = spx_test_rand(&seed);
}

static void to_type(spx_type t, const double *src, void *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == SPX_F64)
            ((double *)dst)[i] = src[i];
        else
            ((float *)dst)[i] = (float)src[i];
    }
}

/* The call of the host vectors (want: its y, from y_in) again on vectors
 * resident on the rank's GPU: the same bits. */
static void check_resident(spx_dist_plan *P, size_t es, const void *xl, int64_t nx,
                           const void *y_in, const void *want, int64_t ny, double beta)
{
    void *dx = NULL, *dy = NULL, *back = malloc(es * (size_t)(ny + 1));
    if (!CHECK(spx_dist_plan_device(P) >= 0)) return;
    spx__cuda_set_device(spx_dist_plan_device(P));
    CHECK_STATUS(spx__cuda_upload(&dx, xl, es * (size_t)nx, "x"), SPX_OK);
    CHECK_STATUS(spx__cuda_upload(&dy, y_in, es * (size_t)ny, "y"), SPX_OK);
    CHECK_STATUS(spx_dist_spmv_device(P, 1.25, dx, nx, beta, dy, ny), SPX_OK);
    if (CHECK_STATUS(spx__cuda_copy(back, dy, es * (size_t)ny, 0), SPX_OK) &&
        !CHECK(memcmp(back, want, es * (size_t)ny) == 0))
        fprintf(stderr, "  rank %d of %d, beta %g: resident y differs from the host vectors' y\n",
                rank, size, beta);
    spx__cuda_free(dx);
    spx__cuda_free(dy);
    free(back);
}

/* The exchange the plan says it uses is one the environment allows. */
static void check_exchange(const spx_dist_plan *P, spx_device d)
{
    spx_dist_info in;
    const char *ipc = getenv("SPX_DIST_IPC"), *pull = getenv("SPX_DIST_PULL");
    if (!CHECK_STATUS(spx_dist_plan_info(P, &in), SPX_OK)) return;
    if (d != SPX_DEV_CUDA || (ipc && strcmp(ipc, "0") == 0))
        CHECK(strcmp(in.exchange, "mpi") == 0);
    else if (pull && strcmp(pull, "0") == 0)
        CHECK(strcmp(in.exchange, "ipc threads") != 0);
    else
        CHECK(strcmp(in.exchange, "mpi") == 0 || strcmp(in.exchange, "ipc threads") == 0 ||
              strcmp(in.exchange, "ipc copies") == 0);
}

/* One product on D with precision t on device d: rank 0 checks the
 * gathered y; y_out (global, rank 0) keeps the beta != 0 result. */
static void check_products(const spx_matrix *A, spx_dist_matrix *D, spx_type t, spx_device d,
                           double *y_out)
{
    spx_dist_layout l;
    spx_dist_plan *P = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.precision = t;
    o.device = d;
    CHECK_STATUS(spx_dist_matrix_layout(D, &l), SPX_OK);
    if (!CHECK_STATUS(spx_dist_plan_create(D, &o, &P), SPX_OK)) return;
    check_exchange(P, d);
    size_t es = t == SPX_F64 ? sizeof(double) : sizeof(float);
    int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
    double *x = malloc(sizeof *x * (size_t)(l.cols + 1)), *y0 = malloc(sizeof *y0 * (size_t)(l.rows + 1));
    double *ref = malloc(sizeof *ref * (size_t)(l.rows + 1)), *sc = malloc(sizeof *sc * (size_t)(l.rows + 1));
    double *yd = malloc(sizeof *yd * (size_t)(l.rows + 1));
    void *xl = malloc(es * (size_t)(nx + 1)), *yl = malloc(es * (size_t)(ny + 1));
    void *y2 = malloc(es * (size_t)(ny + 1)), *yg = malloc(es * (size_t)(l.rows + 1));
    void *yin = malloc(es * (size_t)(ny + 1));
    vectors(l.cols, l.rows, x, y0);
    if (t != SPX_F64) {
        for (int64_t j = 0; j < l.cols; j++) x[j] = (float)x[j];
        for (int64_t i = 0; i < l.rows; i++) y0[i] = (float)y0[i];
    }
    to_type(t, x + l.col_begin, xl, nx);
    const double betas[] = {0.0, -0.75};
    double tol = (32.0 + (double)longest_row(A)) * (t == SPX_F64 ? 0x1p-53 : 0x1p-24);
    for (int b = 0; b < 2; b++) {
        for (int64_t i = 0; i < ny; i++) {
            double v = b == 0 ? NAN : y0[l.row_begin + i];
            to_type(t, &v, (char *)yl + (size_t)i * es, 1);
        }
        memcpy(y2, yl, es * (size_t)ny);
        memcpy(yin, yl, es * (size_t)ny);
        CHECK_STATUS(spx_dist_spmv(P, 1.25, xl, nx, betas[b], yl, ny), SPX_OK);
        CHECK_STATUS(spx_dist_spmv(P, 1.25, xl, nx, betas[b], y2, ny), SPX_OK);
        CHECK(memcmp(yl, y2, es * (size_t)ny) == 0);
        if (d == SPX_DEV_CUDA) check_resident(P, es, xl, nx, yin, yl, ny, betas[b]);
        CHECK_STATUS(spx_dist_gather(D, SPX_DIST_ROWS, t, yl, yg, 0), SPX_OK);
        if (rank != 0) continue;
        for (int64_t i = 0; i < l.rows; i++)
            yd[i] = t == SPX_F64 ? ((double *)yg)[i] : ((float *)yg)[i];
        spx_test_reference(A, SPX_OP_N, 1.25, x, betas[b], y0, ref, sc);
        double err = spx_test_rel_err(yd, ref, sc, l.rows);
        if (!CHECK(err <= tol))
            fprintf(stderr, "  %d ranks, %s, beta %g: error %g > %g\n", size,
                    d == SPX_DEV_CUDA ? "cuda" : "cpu", betas[b], err, tol);
        if (b == 1 && y_out) memcpy(y_out, yd, sizeof *yd * (size_t)l.rows);
    }
    spx_dist_plan_destroy(P);
    free(x), free(y0), free(ref), free(sc), free(yd), free(xl), free(yl), free(y2), free(yg),
        free(yin);
}

/* Every kind: the held matrix, then the same matrix read from a file. */
static void check_matrix(const spx_matrix *A, const char *name)
{
    int64_t m, n;
    spx_matrix_dims(A, &m, &n, NULL);
    char path[256];
    char gzpath[264];
    snprintf(path, sizeof path, "mpi_%s_%d.mtx", name, size);
    snprintf(gzpath, sizeof gzpath, "%s.gz", path);
    if (rank == 0) CHECK_STATUS(spx_matrix_write_mtx(A, path), SPX_OK);
    if (rank == 0 && HAVE_GZ) CHECK_STATUS(spx_matrix_write_mtx(A, gzpath), SPX_OK);
    MPI_Barrier(MPI_COMM_WORLD);
    double *held = malloc(sizeof *held * (size_t)(m + 1)), *read = malloc(sizeof *read * (size_t)(m + 1));
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        spx_dist_matrix *D = NULL, *R = NULL;
        if (!CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, kinds[k], &D), SPX_OK))
            continue;
        check_products(A, D, SPX_F64, SPX_DEV_CPU, held);
        check_products(A, D, SPX_F32, SPX_DEV_CPU, NULL);
        if (spx_device_available(SPX_DEV_CUDA)) { /* GPU ranks (several may share a GPU) */
            check_products(A, D, SPX_F64, SPX_DEV_CUDA, NULL);
            check_products(A, D, SPX_F32, SPX_DEV_CUDA, NULL);
        }
        for (int gz = 0; gz < 1 + HAVE_GZ; gz++) { /* the file, and its .gz copy */
            R = NULL;
            if (CHECK_STATUS(spx_dist_read_mtx(MPI_COMM_WORLD, gz ? gzpath : path, kinds[k], &R),
                             SPX_OK)) {
                spx_dist_layout a, b;
                spx_dist_matrix_layout(D, &a);
                spx_dist_matrix_layout(R, &b);
                CHECK(memcmp(&a, &b, sizeof a) == 0);
                check_products(A, R, SPX_F64, SPX_DEV_CPU, read);
                if (rank == 0) CHECK(memcmp(held, read, sizeof *held * (size_t)m) == 0);
            }
            spx_dist_matrix_destroy(R);
        }
        spx_dist_matrix_destroy(D);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    if (rank == 0 && HAVE_GZ) unlink(gzpath);
    free(held);
    free(read);
}

static spx_matrix *generate(const char *spec)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate(spec, &A), SPX_OK);
    return A;
}

/* Row 3 holds 60 of 80 nonzeros: with 3 or 4 ranks by nonzeros one rank
 * lies inside it and owns no row. */
static spx_matrix *long_row(void)
{
    int64_t ri[80], ci[80], k = 0;
    for (int64_t j = 0; j < 60; j++, k++) ri[k] = 3, ci[k] = j;
    for (int64_t i = 4; i < 24; i++, k++) ri[k] = i, ci[k] = i + 30;
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(60, 60, k, ri, ci, NULL, &A), SPX_OK);
    return A;
}

static void test_matrices(void)
{
    static const char *const specs[][2] = {{"random:m=700,n=700,nnz=9000,seed=2", "random"},
                                           {"lap2d5:30", "lap2d5"},
                                           {"powerlaw:n=900,avg=6,alpha=2.1,seed=4", "powerlaw"},
                                           {"random:m=300,n=120,nnz=2500,seed=3", "tall"},
                                           {"random:m=80,n=400,nnz=2500,seed=5", "wide"}};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        spx_matrix *A = generate(specs[s][0]);
        if (A) check_matrix(A, specs[s][1]);
        spx_matrix_destroy(A);
    }
    spx_matrix *A = long_row();
    check_matrix(A, "longrow");
    spx_dist_matrix *D = NULL;
    if (size >= 3 && CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK)) {
        spx_dist_layout l;
        spx_dist_matrix_layout(D, &l);
        int empty = l.row_begin == l.row_end, any = 0;
        MPI_Allreduce(&empty, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK(any);
    }
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
    int64_t rp[9] = {0};
    int32_t col = 0;
    double v = 0;
    CHECK_STATUS(spx_matrix_create_csr(8, 8, rp, &col, &v, &A), SPX_OK);
    check_matrix(A, "empty");
    spx_matrix_destroy(A);
}

/* The same status on every rank, and the call returns. */
static void same_everywhere(spx_status got, spx_status want)
{
    int g = (int)got, lo, hi;
    MPI_Allreduce(&g, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&g, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_STATUS(got, want);
    CHECK(lo == hi);
}

static void test_bad_input(void)
{
    spx_dist_matrix *D = NULL;
    spx_dist_plan *P = NULL;
    spx_matrix *A = generate("lap2d5:6");
    if (size > 1) { /* more ranks than rows */
        spx_matrix *T = NULL;
        int64_t ri[1] = {0}, ci[1] = {0};
        CHECK_STATUS(spx_matrix_from_coo(size - 1, 5, 1, ri, ci, NULL, &T), SPX_OK);
        same_everywhere(spx_dist_matrix_from_global(MPI_COMM_WORLD, T, SPX_PART_PCSR, &D),
                        SPX_ERR_INVALID_ARG);
        CHECK(D == NULL);
        spx_matrix_destroy(T);
    }
    same_everywhere(spx_dist_matrix_from_global(MPI_COMM_NULL, A, SPX_PART_PCSR, &D),
                    SPX_ERR_INVALID_ARG);
    same_everywhere(spx_dist_read_mtx(MPI_COMM_WORLD, "no/such/file.mtx", SPX_PART_PCSR, &D),
                    SPX_ERR_IO);
    CHECK_STATUS(spx_dist_matrix_from_global(MPI_COMM_WORLD, A, SPX_PART_PCSR, &D), SPX_OK);
    spx_plan_opts o = spx_plan_opts_default();
    o.op = SPX_OP_T;
    same_everywhere(spx_dist_plan_create(D, &o, &P), SPX_ERR_UNSUPPORTED);
    if (CHECK_STATUS(spx_dist_plan_create(D, NULL, &P), SPX_OK)) {
        spx_dist_layout l;
        spx_dist_matrix_layout(D, &l);
        int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
        double *x = calloc((size_t)nx + 2, sizeof *x), *y = calloc((size_t)ny + 2, sizeof *y);
        int64_t wrong = rank == size - 1 ? nx + 1 : nx; /* one rank's x is too long */
        same_everywhere(spx_dist_spmv(P, 1.0, x, wrong, 0.0, y, ny), SPX_ERR_DIM_MISMATCH);
        same_everywhere(spx_dist_spmv(P, 1.0, x, nx, 0.0, y, ny), SPX_OK);
        CHECK(spx_dist_plan_device(P) == -1);
        same_everywhere(spx_dist_spmv_device(P, 1.0, x, nx, 0.0, y, ny), SPX_ERR_UNSUPPORTED);
        free(x);
        free(y);
    }
    spx_dist_plan_destroy(P);
    P = NULL;
    o = spx_plan_opts_default();
    o.device = SPX_DEV_CUDA;
    if (spx_device_available(SPX_DEV_CUDA) &&
        CHECK_STATUS(spx_dist_plan_create(D, &o, &P), SPX_OK)) {
        spx_dist_layout l; /* host memory where a resident call wants the GPU's */
        spx_dist_matrix_layout(D, &l);
        int64_t nx = l.col_end - l.col_begin, ny = l.row_end - l.row_begin;
        double *x = calloc((size_t)nx + 2, sizeof *x), *y = calloc((size_t)ny + 2, sizeof *y);
        void *dx = NULL, *dy = NULL;
        same_everywhere(spx_dist_spmv_device(P, 1.0, x, nx, 0.0, y, ny), SPX_ERR_INVALID_ARG);
        if (size > 1) { /* rank 0 calls the host-vector product, the others the resident one */
            spx__cuda_set_device(spx_dist_plan_device(P));
            CHECK_STATUS(spx__cuda_upload(&dx, x, sizeof *x * (size_t)nx, "x"), SPX_OK);
            CHECK_STATUS(spx__cuda_upload(&dy, y, sizeof *y * (size_t)ny, "y"), SPX_OK);
            same_everywhere(rank == 0 ? spx_dist_spmv(P, 1.0, x, nx, 0.0, y, ny)
                                      : spx_dist_spmv_device(P, 1.0, dx, nx, 0.0, dy, ny),
                            SPX_ERR_INVALID_ARG);
            same_everywhere(spx_dist_spmv_device(P, 1.0, dx, nx, 0.0, dy, ny), SPX_OK);
        }
        spx__cuda_free(dx);
        spx__cuda_free(dy);
        free(x);
        free(y);
    }
    spx_dist_plan_destroy(P);
    spx_dist_matrix_destroy(D);
    spx_matrix_destroy(A);
}

/* The agreement that also compares a value across ranks (dist_agree.c):
 * the same value passes, different values fail everywhere, a failure on one
 * rank wins over a difference. */
static void test_agree_same(void)
{
    same_everywhere(spx__dist_agree_same(MPI_COMM_WORLD, SPX_OK, 7, "a test value"), SPX_OK);
    if (size == 1) return;
    same_everywhere(spx__dist_agree_same(MPI_COMM_WORLD, SPX_OK, rank == 0, "a test value"),
                    SPX_ERR_INVALID_ARG);
    spx_status mine = rank == size - 1 ? spx__error(SPX_ERR_OOM, "a test failure") : SPX_OK;
    same_everywhere(spx__dist_agree_same(MPI_COMM_WORLD, mine, rank == 0, "a test value"),
                    SPX_ERR_OOM);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_matrices();
    test_bad_input();
    test_agree_same();
    long counts[2] = {spx_test_passed, spx_test_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%d ranks: %ld passed, %ld failed\n", size, sums[0], sums[1]);
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
