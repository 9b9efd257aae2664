/* The CUDA hbp format on a GPU (SKIP, exit 77, without one):
 *  - against the long-double reference (tests/common.h) on hand-made edge
 *    cases (0 rows, 0 columns, no entries, empty rows, one dense row, rows
 *    longer than a block, rectangular, very wide), R-MAT, circuit-like and
 *    power-law matrices, op N and T, every precision (fp16 also with
 *    xtype=half), and each parameter's paths: column blocks with the owner
 *    and the paper combine, short tiles (coop tiles, multi-tile groups), tiny
 *    blocks, staged x segments, the sort and host preps, all-fixed and
 *    all-competitive schedules, pdl off. beta = 0 runs with NaN in y.
 *    Tolerance |y - ref|_inf <= c (|alpha||A||x| + |beta||y0|)_inf with c =
 *    64 eps for fp64 and fp32 (a lane's chain of products, a coop tile's
 *    shuffle tree, the combine's sums of a 100,000-entry row's pieces), 1e-3
 *    for fp16 (values rounded to half, 2^-11, summed in fp32);
 *  - the GPU build against the host build: every array the same, bit for
 *    bit, for the hash and the sort orders;
 *  - bitwise repeatability: 20 back-to-back calls give the same y; a chain
 *    of calls each reading the y before gives the same bits with pdl on and
 *    off, and the host-built plan the same bits as the GPU-built one;
 *  - parameter errors, declines, describe, and AUTO's pick.
 * SPX_TEST_QUICK=1 (compute-sanitizer): small generated matrices, and no
 * AUTO check (its matrix has a million rows). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/alloc.h"
#include "core/matrix.h"
#include "cuda/hbp/hbp_kernels.h"

static int quick; /* SPX_TEST_QUICK=1 */

/* A spec list: the full one, or under SPX_TEST_QUICK its small stand-in. */
#define SPECS(full, small) (quick ? (small) : (full))
#define COUNT(full, small) (quick ? sizeof(small) / sizeof(small)[0] : sizeof(full) / sizeof(full)[0])

static double tol(spx_type t)
{
    return t == SPX_F16 ? 1e-3 : 64.0 * (t == SPX_F64 ? 0x1p-53 : 0x1p-24);
}
static const char *tname(spx_type t)
{
    return t == SPX_F64 ? "f64" : t == SPX_F32 ? "f32" : "f16";
}

static spx_plan *plan(const spx_matrix *A, spx_type t, const char *params, spx_op op,
                      spx_status *st)
{
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = "hbp";
    o.precision = t;
    o.params = params;
    o.op = op;
    *st = spx_plan_create(A, SPX_OP_SPMV, &o, &P);
    return P;
}

/* v as the plan reads it: float, or half through float. */
static void as_plan_reads(double *v, int64_t n, spx_type t, int half)
{
    for (int64_t i = 0; t != SPX_F64 && i < n; i++) {
        float f = (float)v[i];
        uint16_t h;
        if (half) {
            spx_float_to_half(&f, &h, 1);
            spx_half_to_float(&h, &f, 1);
        }
        v[i] = f;
    }
}

/* y = alpha op(A) x + beta y0 through P with host vectors; y in double. */
static spx_status call(spx_plan *P, spx_type t, double alpha, const double *x, int64_t n,
                       double beta, const double *y0, int64_t m, double *y)
{
    const size_t ys = t == SPX_F64 ? 8 : 4, xs = spx_plan_x_type(P) == SPX_F16 ? 2 : ys;
    unsigned char *xb = malloc((size_t)n * xs + 8), *yb = malloc((size_t)m * ys + 8);
    for (int64_t j = 0; j < n; j++) {
        float f = (float)x[j];
        if (xs == 8)
            memcpy(xb + 8 * j, &x[j], 8);
        else if (xs == 4)
            memcpy(xb + 4 * j, &f, 4);
        else
            spx_float_to_half(&f, (uint16_t *)(void *)(xb + 2 * j), 1);
    }
    for (int64_t i = 0; i < m; i++) {
        const double d = beta == 0.0 ? NAN : y0[i];
        const float f = (float)d;
        memcpy(yb + ys * i, ys == 8 ? (const void *)&d : (const void *)&f, ys);
    }
    const spx_status st = spx_spmv_host(P, alpha, xb, beta, yb);
    for (int64_t i = 0; i < m; i++) {
        float f;
        if (ys == 8)
            memcpy(&y[i], yb + 8 * i, 8);
        else
            memcpy(&f, yb + 4 * i, 4), y[i] = f;
    }
    free(xb);
    free(yb);
    return st;
}

/* One plan against the reference, beta = 0 (NaN in y) and beta = 2. */
static void check_op(const spx_matrix *A, const char *what, spx_type t, const char *params,
                     spx_op op)
{
    spx_status st;
    spx_plan *P = plan(A, t, params, op, &st);
    if (!CHECK_STATUS(st, SPX_OK)) {
        printf("  hbp %s %s params=%s: %s\n", tname(t), what, params ? params : "-",
               spx_last_error());
        return;
    }
    const int64_t m = op == SPX_OP_N ? A->rows : A->cols, n = op == SPX_OP_N ? A->cols : A->rows;
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(((size_t)m + 1) * sizeof *y0);
    double *y = malloc(((size_t)m + 1) * sizeof *y), *ref = malloc(((size_t)m + 1) * sizeof *ref);
    double *scale = malloc(((size_t)m + 1) * sizeof *scale);
    uint64_t seed = 7 + (uint64_t)A->nnz;
    for (int64_t j = 0; j < n; j++)
        x[j] = spx_test_rand(&seed);
    for (int64_t i = 0; i < m; i++)
        y0[i] = spx_test_rand(&seed);
    as_plan_reads(x, n, t, spx_plan_x_type(P) == SPX_F16);
    as_plan_reads(y0, m, t, 0);
    for (int k = 0; k < 2; k++) {
        const double alpha = k ? -0.75 : 1.0, beta = k ? 2.0 : 0.0;
        spx_test_reference(A, op, alpha, x, beta, y0, ref, scale);
        if (!CHECK_STATUS(call(P, t, alpha, x, n, beta, y0, m, y), SPX_OK)) continue;
        const double err = spx_test_rel_err(y, ref, scale, m);
        if (!CHECK(err <= tol(t)))
            printf("  hbp %s %s%s params=%s beta=%g: error %.3g > %.3g (%s)\n", tname(t), what,
                   op == SPX_OP_T ? " (op T)" : "", params ? params : "-", beta, err, tol(t),
                   spx_plan_describe(P));
    }
    spx_plan_destroy(P);
    free(x), free(y0), free(y), free(ref), free(scale);
}

/* The parameter sets every matrix runs, each through a different path. */
static const char *const param_sets[] = {
    NULL,                                /* defaults: one column block on these sizes */
    "cols=4096",                         /* column blocks, owner combine */
    "cols=4096,combine=paper",           /* dense segments, paper combine */
    "tile=8",                            /* short tiles: coop tiles, multi-tile groups */
    "tile=0",                            /* whole groups, the paper's kernel */
    "rows=32,cols=100,tile=8",           /* tiny blocks */
    "rows=64,cols=1024,xseg=on,tile=16", /* staged x segments */
    "prep=sort",
    "prep=host,cols=4096",
    "fixed=0,cols=2000", /* every tile through the ticket */
    "fixed=100,tile=8",  /* every tile in the fixed share */
    "pdl=off,cols=4096",
};

static void check_matrix(const spx_matrix *A, const char *what, int every_set)
{
    const size_t sets = every_set ? sizeof param_sets / sizeof param_sets[0] : 2;
    for (size_t s = 0; s < sets; s++)
        for (int t = SPX_F64; t <= SPX_F16; t++)
            check_op(A, what, (spx_type)t, param_sets[s], SPX_OP_N);
    check_op(A, what, SPX_F16, "xtype=half", SPX_OP_N);
    check_op(A, what, SPX_F16, "xtype=half,cols=4096,tile=8", SPX_OP_N);
    check_op(A, what, SPX_F64, NULL, SPX_OP_T);
    check_op(A, what, SPX_F64, "cols=4096,tile=8", SPX_OP_T);
}

/* Rows of the given lengths, distinct random columns of [0, n), from triplets. */
static spx_matrix *with_lengths(const int64_t *len, int64_t m, int64_t n, uint64_t seed)
{
    int64_t nnz = 0, k = 0;
    for (int64_t i = 0; i < m; i++)
        nnz += len[i];
    int64_t *ri = malloc(((size_t)nnz + 1) * sizeof *ri),
            *ci = malloc(((size_t)nnz + 1) * sizeof *ci);
    double *v = malloc(((size_t)nnz + 1) * sizeof *v);
    for (int64_t i = 0; i < m; i++) {
        const int64_t stride = n / (len[i] ? len[i] : 1); /* one column per stride: distinct */
        for (int64_t j = 0; j < len[i]; j++, k++) {
            ri[k] = i;
            ci[k] =
                j * stride + (int64_t)((spx_test_rand(&seed) + 1.0) * 0.5 * (double)(stride - 1));
            v[k] = spx_test_rand(&seed);
        }
    }
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(m, n, nnz, ri, ci, v, &A), SPX_OK);
    free(ri), free(ci), free(v);
    return A;
}

static void test_edges(void)
{
    static const int64_t shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {6, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        spx_matrix *A = NULL;
        CHECK_STATUS(spx_matrix_from_coo(shapes[s][0], shapes[s][1], 0, NULL, NULL, NULL, &A),
                     SPX_OK);
        if (A) check_matrix(A, "no entries", 1);
        spx_matrix_destroy(A);
    }
    static const int64_t lens[] = {0,  1,      2,   3,   5,   8,    31,    32,   33,
                                   64, 100,    255, 256, 257, 1000, 2048,  4097, 10000,
                                   0,  100000, 3,   0,   1,   17,   40000, 7};
    spx_matrix *A = with_lengths(lens, (int64_t)(sizeof lens / sizeof lens[0]), 100001, 3);
    if (A) check_matrix(A, "rows of 0..100000 (longer than a block)", 1);
    spx_matrix_destroy(A);
    int64_t dense[40], rect[300], tall[7000], wide[5] = {3, 250000, 0, 12, 1};
    for (int i = 0; i < 40; i++)
        dense[i] = i == 17 ? 3000 : i % 5;
    A = with_lengths(dense, 40, 3000, 5);
    if (A) check_matrix(A, "one dense row", 1);
    spx_matrix_destroy(A);
    for (int i = 0; i < 300; i++)
        rect[i] = i % 11 == 0 ? 0 : 1 + (i * 37) % 400;
    A = with_lengths(rect, 300, 7000, 7);
    if (A) check_matrix(A, "rectangular 300x7000", 1);
    spx_matrix_destroy(A);
    for (int i = 0; i < 7000; i++)
        tall[i] = i % 9;
    A = with_lengths(tall, 7000, 300, 9);
    if (A) check_matrix(A, "rectangular 7000x300", 1);
    spx_matrix_destroy(A);
    A = with_lengths(wide, 5, 300000, 11);
    if (A) check_matrix(A, "very wide 5x300000", 1);
    spx_matrix_destroy(A);
}

static void test_generated(void)
{
    static const char *specs[] = {"rmat:scale=14,ef=16,sym=1", "rmat:scale=12,ef=8,perm=0",
                                  "circuit:n=60000,avg=4,long=6,longlen=30000",
                                  "powerlaw:n=30000,avg=16,alpha=1.9", "lap3d7:24"};
    static const char *small[] = {"rmat:scale=9,ef=8,sym=1", "rmat:scale=8,ef=8,perm=0",
                                  "circuit:n=3000,avg=4,long=3,longlen=1500", "lap3d7:6"};
    const char **list = SPECS(specs, small);
    for (size_t i = 0; i < COUNT(specs, small); i++) {
        spx_matrix *A = NULL;
        if (CHECK_STATUS(spx_generate(list[i], &A), SPX_OK)) check_matrix(A, list[i], i < 3);
        spx_matrix_destroy(A);
    }
}

/* bytes of the device array d equal to the host array h. */
static int same(const void *d, const void *h, size_t bytes)
{
    if (bytes == 0) return 1;
    void *back = malloc(bytes);
    const int ok = spx__cuda_copy(back, d, bytes, 0) == SPX_OK && memcmp(back, h, bytes) == 0;
    free(back);
    return ok;
}

/* The GPU build makes the host build's arrays (values in fp64 on both). */
static void check_build(const spx_matrix *A, const char *what, spx__hbp_opts o)
{
    spx__hbp h, d;
    spx__cuda_csr csr;
    spx__hbp_times tm;
    memset(&csr, 0, sizeof csr);
    memset(&d, 0, sizeof d);
    if (!CHECK_STATUS(spx__hbp_build(A, &o, &h), SPX_OK)) return;
    if (CHECK_STATUS(spx__cuda_csr_upload(A, SPX_F64, &csr), SPX_OK) &&
        CHECK_STATUS(spx__cuda_hbp_build(&csr, &o, &d, &tm), SPX_OK)) {
        const size_t lanes = (size_t)(SPX__HBP_W * h.n_groups);
        const int counts = h.n_blocks == d.n_blocks && h.n_groups == d.n_groups &&
                           h.n_tiles == d.n_tiles && h.n_multi == d.n_multi &&
                           h.n_staged == d.n_staged && h.combine == d.combine &&
                           memcmp(&h.hash, &d.hash, sizeof h.hash) == 0;
        const int arrays = counts && same(d.blk_r, h.blk_r, 4 * (size_t)h.n_blocks) &&
                           same(d.blk_c, h.blk_c, 4 * (size_t)h.n_blocks) &&
                           same(d.blk_group, h.blk_group, 8 * ((size_t)h.n_blocks + 1)) &&
                           same(d.group_entry, h.group_entry, 8 * ((size_t)h.n_groups + 1)) &&
                           same(d.group_tile, h.group_tile, 8 * ((size_t)h.n_groups + 1)) &&
                           same(d.lane_row, h.lane_row, 2 * lanes) &&
                           same(d.lane_len, h.lane_len, 4 * lanes) &&
                           !h.lane_first == !d.lane_first &&
                           (!h.lane_first || same(d.lane_first, h.lane_first, 4 * lanes)) &&
                           same(d.tiles, h.tiles, sizeof *h.tiles * (size_t)h.n_tiles) &&
                           same(d.multi, h.multi, 4 * (size_t)h.n_multi) &&
                           (!h.rb_ptr || (same(d.rb_ptr, h.rb_ptr, 8 * ((size_t)h.R + 1)) &&
                                          same(d.rb_list, h.rb_list, 4 * (size_t)h.n_blocks))) &&
                           same(d.col, h.col, (size_t)h.nnz * (h.col16 ? 2 : 4)) &&
                           same(d.values, h.values, 8 * (size_t)h.nnz);
        const int spread = fabs(h.sd_before - d.sd_before) <= 1e-9 * (1.0 + h.sd_before) &&
                           fabs(h.sd_after - d.sd_after) <= 1e-9 * (1.0 + h.sd_after);
        if (!CHECK(arrays && spread))
            printf(
                "  %s N=%lld M=%lld T=%lld %s: GPU build differs (counts %d, sd %g/%g vs %g/%g)\n",
                what, (long long)o.N, (long long)o.M, (long long)o.T,
                o.order == SPX__HBP_SORT ? "sort" : "hash", counts, d.sd_before, d.sd_after,
                h.sd_before, h.sd_after);
    }
    spx__hbp_free_host(&h);
    spx__hbp_free_device(&d);
    spx__cuda_csr_free(&csr);
}

static void test_builds(void)
{
    static const char *specs[] = {"rmat:scale=13,ef=16,sym=1",
                                  "circuit:n=40000,avg=4,long=4,longlen=20000",
                                  "powerlaw:n=20000,avg=12"};
    static const char *small[] = {"rmat:scale=10,ef=8,sym=1"};
    const char **list = SPECS(specs, small);
    const int64_t shapes[][3] = {{1024, 0, 128}, {32, 100, 8}, {256, 4096, 0}, {64, 1000, 16}};
    for (size_t i = 0; i < COUNT(specs, small); i++) {
        spx_matrix *A = NULL;
        if (!CHECK_STATUS(spx_generate(list[i], &A), SPX_OK)) continue;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int order = SPX__HBP_HASH; order <= SPX__HBP_SORT; order++)
                for (int combine = SPX__HBP_OWNER; combine <= SPX__HBP_PAPER; combine++) {
                    const int64_t M = shapes[s][1] ? shapes[s][1] : A->cols, T = shapes[s][2];
                    if (combine == SPX__HBP_PAPER && T > 0) continue;
                    const spx__hbp_opts o = {shapes[s][0], M, T, combine, order, M / 2, SPX_F64};
                    check_build(A, list[i], o);
                }
        spx_matrix_destroy(A);
    }
}

/* calls products y_k = a A u + 0.5 y_(k-1) on device vectors (each call
 * reads the y of the one before), and also `calls` times y = A u into one
 * vector: *same_each says whether every one gave the first one's bits. */
static spx_status chain(const spx_matrix *A, const char *params, int calls, const double *u0,
                        double *out, int *same_each)
{
    spx_status st;
    spx_plan *P = plan(A, SPX_F64, params, SPX_OP_N, &st);
    const size_t bytes = (size_t)A->rows * sizeof(double);
    void *u = NULL, *y = NULL;
    double *first = malloc(bytes + 8), *now = malloc(bytes + 8);
    *same_each = 1;
    if (st == SPX_OK) st = spx__cuda_upload(&u, u0, (size_t)A->cols * sizeof(double), "u");
    if (st == SPX_OK) st = spx__cuda_upload(&y, u0, bytes, "y");
    for (int k = 0; st == SPX_OK && k < calls; k++)
        st = spx_spmv(P, 1.0 / 64.0, u, 0.5, y);
    if (st == SPX_OK) st = spx__cuda_sync(NULL);
    if (st == SPX_OK) st = spx__cuda_copy(out, y, bytes, 0);
    for (int k = 0; st == SPX_OK && k < calls; k++) {
        st = spx_spmv(P, 1.0, u, 0.0, y);
        if (st == SPX_OK) st = spx__cuda_copy(k ? now : first, y, bytes, 0);
        if (st == SPX_OK && k) *same_each = *same_each && memcmp(first, now, bytes) == 0;
    }
    spx__cuda_free(u);
    spx__cuda_free(y);
    spx_plan_destroy(P);
    free(first);
    free(now);
    return st;
}

static void test_repeat(void)
{
    static const char *specs[] = {"rmat:scale=13,ef=16,sym=1",
                                  "circuit:n=40000,avg=4,long=4,longlen=20000"};
    static const char *small[] = {"rmat:scale=10,ef=8,sym=1"};
    const char **list = SPECS(specs, small);
    static const char *sets[] = {"", "tile=8", "cols=2000,fixed=0", "cols=2000,combine=paper",
                                 "tile=8,prep=host"};
    for (size_t i = 0; i < COUNT(specs, small); i++) {
        spx_matrix *A = NULL;
        if (!CHECK_STATUS(spx_generate(list[i], &A), SPX_OK)) continue;
        double *u0 = malloc(((size_t)A->cols + 1) * sizeof *u0);
        double *on = malloc(((size_t)A->rows + 1) * sizeof *on),
               *off = malloc(((size_t)A->rows + 1) * sizeof *off);
        double *host = malloc(((size_t)A->rows + 1) * sizeof *host);
        uint64_t seed = 3;
        for (int64_t j = 0; j < A->cols; j++)
            u0[j] = spx_test_rand(&seed);
        for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
            char p_on[96], p_off[96], p_host[96];
            const char *sep = *sets[s] ? "," : "";
            int same_on = 0, same_off = 0, same_host = 0;
            snprintf(p_on, sizeof p_on, "%s%spdl=on", sets[s], sep);
            snprintf(p_off, sizeof p_off, "%s%spdl=off", sets[s], sep);
            snprintf(p_host, sizeof p_host, "%s%sprep=host", sets[s], sep);
            const int ok = CHECK_STATUS(chain(A, p_on, 20, u0, on, &same_on), SPX_OK) &&
                           CHECK_STATUS(chain(A, p_off, 20, u0, off, &same_off), SPX_OK) &&
                           (strstr(sets[s], "prep=") ||
                            CHECK_STATUS(chain(A, p_host, 20, u0, host, &same_host), SPX_OK));
            const int host_ok =
                strstr(sets[s], "prep=") || memcmp(on, host, (size_t)A->rows * 8) == 0;
            if (ok &&
                !CHECK(same_on && same_off && memcmp(on, off, (size_t)A->rows * 8) == 0 && host_ok))
                printf("  %s %s: 20 calls same %d/%d, pdl on = off %d, gpu = host prep %d\n",
                       list[i], sets[s], same_on, same_off,
                       memcmp(on, off, (size_t)A->rows * 8) == 0, host_ok);
        }
        free(u0), free(on), free(off), free(host);
        spx_matrix_destroy(A);
    }
}

static void test_params(void)
{
    static const int64_t lens[] = {1, 5, 0, 9, 2, 3};
    spx_matrix *A = with_lengths(lens, 6, 100, 13);
    static const char *bad[] = {"rows=48",
                                "rows=16",
                                "rows=8192",
                                "cols=0",
                                "cols=x",
                                "tile=4",
                                "tile=-1",
                                "combine=sum",
                                "prep=cpu",
                                "fixed=101",
                                "xseg=maybe",
                                "combine=paper,tile=64",
                                "xseg=on,cols=100000",
                                "colour=red",
                                "pdl=yes",
                                "xtype=double"};
    spx_status st;
    for (size_t i = 0; A && i < sizeof bad / sizeof bad[0]; i++) {
        spx_plan *P = plan(A, SPX_F64, bad[i], SPX_OP_N, &st);
        if (!CHECK_STATUS(st, SPX_ERR_BAD_PARAM) || !CHECK(P == NULL))
            printf("  params %s\n", bad[i]);
        spx_plan_destroy(P);
    }
    spx_plan *P = plan(A, SPX_F64, "xtype=half", SPX_OP_N, &st);
    CHECK_STATUS(st, SPX_ERR_BAD_PARAM);
    spx_plan_destroy(P);
    P = plan(A, SPX_F16, "xtype=half", SPX_OP_N, &st);
    if (CHECK_STATUS(st, SPX_OK)) CHECK(spx_plan_x_type(P) == SPX_F16);
    spx_plan_destroy(P);
    P = plan(A, SPX_F64, "cols=50,tile=8", SPX_OP_N, &st);
    if (CHECK_STATUS(st, SPX_OK)) {
        const char *d = spx_plan_describe(P);
        CHECK(strstr(d, "hash a=") && strstr(d, "sd=") && strstr(d, "combine=owner") &&
              strstr(d, "competitive=") && strstr(d, "prep_ms"));
        printf("describe: %s\n", d);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    static const double big[] = {1.0, 1e5};
    static const int64_t rp[] = {0, 1, 2};
    static const int32_t ci[] = {0, 1};
    A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(2, 2, rp, ci, big, &A), SPX_OK);
    P = plan(A, SPX_F16, NULL, SPX_OP_N, &st);
    CHECK_STATUS(st, SPX_ERR_UNSUPPORTED);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    int64_t *rp0 = calloc(70001, sizeof *rp0);
    A = NULL;
    CHECK_STATUS(spx_matrix_create_csr(70000, 70000, rp0, ci, NULL, &A), SPX_OK);
    P = plan(A, SPX_F64, "rows=32,cols=1", SPX_OP_N, &st);
    CHECK_STATUS(st, SPX_ERR_UNSUPPORTED);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    free(rp0);
}

/* AUTO never takes hbp (it offers no suits hook: slower than csr on every
 * matrix measured, hbp_format.c); hbp still runs the circuit-like matrix. */
static void test_auto(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("circuit:n=1000000,avg=4,long=8,longlen=100000", &A), SPX_OK))
        return;
    spx_plan_opts o = spx_plan_opts_default();
    spx_plan *P = NULL;
    o.device = SPX_DEV_CUDA;
    o.format = "auto";
    if (CHECK_STATUS(spx_plan_create(A, SPX_OP_SPMV, &o, &P), SPX_OK))
        CHECK(strcmp(spx_plan_format(P), "hbp") != 0);
    spx_plan_destroy(P);
    check_op(A, "circuit n=1M", SPX_F64, NULL, SPX_OP_N);
    check_op(A, "circuit n=1M", SPX_F16, NULL, SPX_OP_N);
    spx_matrix_destroy(A);
}

int main(void)
{
    if (!spx_device_available(SPX_DEV_CUDA)) {
        printf("SKIP: no CUDA device (none seen, or built without CUDA): hbp not run\n");
        return 77;
    }
    const char *q = getenv("SPX_TEST_QUICK");
    quick = q && strcmp(q, "1") == 0;
    test_edges();
    test_generated();
    test_builds();
    test_repeat();
    test_params();
    if (!quick) test_auto();
    return spx_test_finish();
}
