/* Conformance: every registered format, on every device of the part this
 * process runs and every precision the format declares, against a reference.
 *   SpMV: the long-double reference (tests/common.h) on edge cases (0x0,
 *   m x 0, 0 x n, nnz = 0, empty rows, one dense row, a row of 100,000
 *   nonzeros, unsorted and duplicate input, rectangular, and some of them
 *   again behind 32-bit row offsets), three products each (op N and T, beta
 *   0 and not), and one product on each shared matrix. A symmetric case
 *   (empty rows, rows without a diagonal entry) is there for the formats that
 *   take only symmetric matrices (sym).
 *   SpMM: each column of Y = alpha*op(A)*X + beta*Y0 against SpMV's reference
 *   on the same cases: k = 1, 5 (rows padded: ldx 7, ldy 6), 37 (op T), 8 (op
 *   T, ldy 12: whole 16-byte loads of X on CUDA) and 70,
 *   Y's columns past k left untouched; the shared matrices with k = 5 and 37.
 *   SpGEMM: C = A*B against the naive dense product on small edge cases (0x0,
 *   inner dimension 0, empty rows, one dense row, rectangular, unsorted and
 *   duplicate input through the matrix layer, 32-bit row offsets).
 * 32-bit row offsets: the case's arrays wrapped by spx_matrix_wrap with
 * 32-bit offsets, anew for each plan (and each SpGEMM operand), so that a
 * format that reads 64-bit offsets without asking for them finds none.
 * Parts (SPX_TEST_PART, tests/common.h): the default runs the CPU formats on
 * the edge cases; "cuda" the CUDA formats on them (skipped without a GPU);
 * "shared" every available device's SpMV formats on the shared matrices
 * (skipped without them).
 *
 * A format may decline a case with SPX_ERR_UNSUPPORTED and a reason; declines
 * are counted per format, device and precision and printed ("csr cpu f64:
 * 13 cases, 0 declined"), and a format that declines every case fails: a
 * format that never runs is a defect.
 *
 * Tolerance, per precision p (unit roundoff u_p):
 *   SpMV: |y - ref|_inf <= c_p * (|alpha| |op(A)| |x| + |beta| |y0|)_inf,
 *   SpGEMM: |c_ij - ref_ij| <= c_p * sum_k |a_ik b_kj|,
 *   c_p = (16 + sqrt(rmax)) * u_p, rmax the longest row of op(A) (of A for
 *   SpGEMM): rounding of a sum of rmax products grows like sqrt(rmax) u for
 *   the unstructured values used here; u_f64 = 2^-53, u_f32 = 2^-24; for f16
 *   (values rounded to half, products summed in fp32) c = 2^-10 + that of f32.
 * A NaN placed in y must not leak when beta = 0; every entry must be written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct test_case {
    char name[96];
    spx_matrix *A;
    int wrap32; /* plans are made on a fresh 32-bit-offset wrap of A's arrays */
} test_case;

#define MAX_CASES 32
typedef struct case_list {
    test_case at[MAX_CASES];
    int n;
    int full; /* all three products on each case (edge cases), or one (shared matrices) */
} case_list;
static case_list edge_cases = {.full = 1}, shared_cases;

static void add_case(case_list *l, const char *name, spx_matrix *A)
{
    if (!A || l->n == MAX_CASES) {
        spx_matrix_destroy(A);
        return;
    }
    snprintf(l->at[l->n].name, sizeof l->at[l->n].name, "%s", name);
    l->at[l->n].wrap32 = 0;
    l->at[l->n++].A = A;
}

/* Case `name` of l again, behind 32-bit row offsets (a copy of its matrix). */
static void add_wrapped_case(case_list *l, const char *name)
{
    char wrapped[96];
    for (int c = 0; c < l->n; c++) {
        spx_matrix *B = NULL;
        if (strcmp(l->at[c].name, name) != 0) continue;
        CHECK_STATUS(spx_matrix_copy(l->at[c].A, SPX_F64, &B), SPX_OK);
        snprintf(wrapped, sizeof wrapped, "%s, 32-bit offsets", name);
        add_case(l, wrapped, B);
        if (B) l->at[l->n - 1].wrap32 = 1;
        return;
    }
    CHECK(!"a case to wrap with 32-bit offsets");
}

static void free_cases(case_list *l)
{
    for (int c = 0; c < l->n; c++)
        spx_matrix_destroy(l->at[c].A);
}

static void build_cases(void)
{
    int64_t ri[] = {2, 0, 1, 2, 0, 2, 0}, ci[] = {1, 2, 0, 1, 0, 3, 2};
    double v[] = {1.5, -2.0, 3.0, 0.25, 4.0, -1.0, 0.5}; /* unsorted; (2,1) and (0,2) twice */
    static const int64_t every[] = {0, 1, 2, 3, 4, 5, 8, 31, 64, 255, 256, 257, 1000, 4, 3, 1};
    case_list *l = &edge_cases;
    add_case(l, "0x0", spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL));
    add_case(l, "5x0", spx_test_coo_matrix(5, 0, 0, NULL, NULL, NULL));
    add_case(l, "0x5", spx_test_coo_matrix(0, 5, 0, NULL, NULL, NULL));
    add_case(l, "nnz=0 6x4", spx_test_coo_matrix(6, 4, 0, NULL, NULL, NULL));
    add_case(l, "unsorted+duplicates 3x4", spx_test_coo_matrix(3, 4, 7, ri, ci, v));
    add_case(l, "1x1", spx_test_coo_matrix(1, 1, 1, ri + 1, ri + 1, v));
    add_case(l, "empty rows + varied 500x500", spx_test_varied_matrix(500, 500, 41.0, 1));
    add_case(l, "one dense row 40x3000", spx_test_dense_row_matrix(40, 3000, 17, 4, 2));
    add_case(l, "row of 100000 6x100000", spx_test_dense_row_matrix(6, 100000, 2, 3, 3));
    add_case(l, "every row class 160x1200", spx_test_pattern_matrix(160, 1200, every, 16, 4));
    add_case(l, "rectangular 300x1700", spx_test_varied_matrix(300, 1700, 41.0, 5));
    add_case(l, "rectangular 1700x90", spx_test_varied_matrix(1700, 90, 41.0, 6));
    add_case(l, "random 20000x20000", spx_test_varied_matrix(20000, 20000, 41.0, 7));
    add_case(l, "symmetric 2000x2000", spx_test_symmetric_matrix(2000, 6, 2000, 8));
    add_wrapped_case(l, "0x0");
    add_wrapped_case(l, "nnz=0 6x4");
    add_wrapped_case(l, "empty rows + varied 500x500");
    add_wrapped_case(l, "one dense row 40x3000");
    add_wrapped_case(l, "row of 100000 6x100000");
    add_wrapped_case(l, "rectangular 1700x90");
    add_wrapped_case(l, "symmetric 2000x2000");
}

/* The shared matrices as cases; 0 (the skip recorded) when they are absent. */
static int load_shared(void)
{
    static const char *files[] = {
        "1138_bus", "NotreDame_www", "TSOPF_RS_b39_c30", "bcsstk13",     "bcsstk21",
        "bcsstk28", "bfly",          "blckhole",         "c-62",         "cage11",
        "can_1072", "cavity19",      "cryg2500",         "delaunay_n16", "dwt_2680",
        "gemat12",  "lund_a",        "olm1000",          "pores_1",      "rajat01",
        "sherman3", "sinc18",        "watt_2",           "west0067",     "xenon1",
        "zenios"};
    const char *dir = spx_test_matrices_dir();
    if (!dir) return 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
        add_case(&shared_cases, files[f], spx_test_read_matrix(dir, files[f]));
    return 1;
}

static const char *device_name(spx_device d)
{
    return d == SPX_DEV_CPU ? "cpu" : "cuda";
}

static const char *precision_name(spx_type p)
{
    return p == SPX_F64 ? "f64" : p == SPX_F32 ? "f32" : "f16";
}

/* c_p of the header for a sum of at most rmax products. */
static double tolerance(spx_type p, int64_t rmax)
{
    double c = (16.0 + sqrt((double)rmax)) * (p == SPX_F64 ? 0x1p-53 : 0x1p-24);
    return p == SPX_F16 ? c + 0x1p-10 : c;
}

/* Plans of one format, device and precision: how many cases, how many declined. */
typedef struct target {
    const char *format;
    spx_device dev;
    spx_type prec;
    int cases, declined;
} target;

/* spx_plan_create for the target: SPX_OK, SPX_ERR_UNSUPPORTED when the format
 * declined (it must say why), or a failed check. */
static spx_status make_plan(const target *t, const spx_matrix *A, spx_operation operation,
                            spx_op op, const char *what, spx_plan **P)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.format = t->format;
    o.device = t->dev;
    o.precision = t->prec;
    o.op = op;
    spx_status st = spx_plan_create(A, operation, &o, P);
    if (st == SPX_ERR_UNSUPPORTED)
        CHECK(strlen(spx_last_error()) > 0);
    else if (!CHECK_STATUS(st, SPX_OK))
        fprintf(stderr, "  plan %s on %s\n", t->format, what);
    return st;
}

/* x and y0 of one product, as doubles rounded to what the precision holds. */
static void fill_vectors(double *x, int64_t in, double *y0, int64_t out, spx_type prec, double beta,
                         uint64_t seed)
{
    for (int64_t j = 0; j < in; j++) {
        x[j] = spx_test_rand(&seed);
        if (prec != SPX_F64) x[j] = (float)x[j];
    }
    for (int64_t i = 0; i < out; i++) {
        y0[i] = beta == 0.0 ? NAN : spx_test_rand(&seed);
        if (prec != SPX_F64 && beta != 0.0) y0[i] = (float)y0[i];
    }
}

/* v (double) into w, double or float as the precision says. */
static void to_precision(const double *v, int64_t n, spx_type prec, void *w)
{
    for (int64_t i = 0; i < n; i++) {
        if (prec == SPX_F64)
            ((double *)w)[i] = v[i];
        else
            ((float *)w)[i] = (float)v[i];
    }
}

/* v[i] = w[i] as doubles, n entries of the precision (the inverse of to_precision). */
static void from_precision(const void *w, int64_t n, spx_type prec, double *v)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = prec == SPX_F64 ? ((const double *)w)[i] : (double)((const float *)w)[i];
}

/* One SpMV product of the target on a case; 1 when the format declined. */
static int spmv_one(const target *t, const test_case *tc, spx_op op, double alpha, double beta)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(tc->A, &rows, &cols, &nnz);
    int64_t out = op == SPX_OP_N ? rows : cols, in = op == SPX_OP_N ? cols : rows;
    double *x = malloc(sizeof(double) * (size_t)(in + 1));
    double *y0 = malloc(sizeof(double) * (size_t)(out + 1));
    double *ref = malloc(sizeof(double) * (size_t)(out + 1));
    double *scale = malloc(sizeof(double) * (size_t)(out + 1));
    double *y = malloc(sizeof(double) * (size_t)(out + 1));
    void *xv = malloc(sizeof(double) * (size_t)(in + 1)),
         *yv = malloc(sizeof(double) * (size_t)(out + 1));
    fill_vectors(x, in, y0, out, t->prec, beta, (uint64_t)nnz * 31 + (uint64_t)t->prec);
    spx_test_reference(tc->A, op, alpha, x, beta, y0, ref, scale);
    to_precision(x, in, t->prec, xv);
    to_precision(y0, out, t->prec, yv);
    spx_plan *P = NULL;
    int32_t *rp32 = NULL;
    spx_matrix *W = tc->wrap32 ? spx_test_wrap32(tc->A, &rp32) : NULL;
    spx_status st = tc->wrap32 && !W ? SPX_ERR_INVALID_ARG
                                     : make_plan(t, W ? W : tc->A, SPX_OP_SPMV, op, tc->name, &P);
    if (st == SPX_OK && CHECK_STATUS(spx_spmv_host(P, alpha, xv, beta, yv), SPX_OK)) {
        for (int64_t i = 0; i < out; i++)
            y[i] = t->prec == SPX_F64 ? ((double *)yv)[i] : ((float *)yv)[i];
        spx_test_close(y, ref, scale, out, tolerance(t->prec, spx_test_longest_row(tc->A, op)),
                       "%s %s %s op%s alpha=%g beta=%g on %s", t->format, device_name(t->dev),
                       precision_name(t->prec), op == SPX_OP_N ? "N" : "T", alpha, beta, tc->name);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(W);
    free(rp32), free(x), free(y0), free(ref), free(scale), free(y), free(xv), free(yv);
    return st == SPX_ERR_UNSUPPORTED;
}

/* Every case through the target's SpMV plans; a case counts as declined when
 * any of its products was. */
static void spmv_cases(target *t, const case_list *l)
{
    for (int c = 0; c < l->n; c++) {
        const test_case *tc = &l->at[c];
        int declined = spmv_one(t, tc, SPX_OP_N, 1.0, 0.0);
        if (l->full) {
            declined |= spmv_one(t, tc, SPX_OP_N, -1.5, 0.5);
            declined |= spmv_one(t, tc, SPX_OP_T, 0.75, -2.0);
        }
        t->cases++;
        t->declined += declined;
    }
}

/* -------------------------------------------------------------------- SpMM */

/* One SpMM shape: k columns, leading dimensions ldx, ldy >= k. */
typedef struct spmm_shape {
    int64_t k, ldx, ldy;
    spx_op op;
    double alpha, beta;
} spmm_shape;

/* Column j of a row-major n x ld array of the precision, as doubles. */
static void column_of(const void *a, spx_type prec, int64_t n, int64_t ld, int64_t j, double *col)
{
    for (int64_t i = 0; i < n; i++)
        col[i] = prec == SPX_F64 ? ((const double *)a)[i * ld + j] : ((const float *)a)[i * ld + j];
}

/* Y (out x ldy, row-major, of the precision) against the SpMV reference of
 * each column, and its entries past column k still at the sentinel 7. */
static void check_spmm_result(const target *t, const test_case *tc, const spmm_shape *sh,
                              const void *Xv, const void *Y0v, const void *Yv, int64_t in,
                              int64_t out)
{
    double *x = malloc(sizeof(double) * (size_t)(in + 1)),
           *y0 = malloc(sizeof(double) * (size_t)(out + 1));
    double *ref = malloc(sizeof(double) * (size_t)(out + 1)),
           *scale = malloc(sizeof(double) * (size_t)(out + 1));
    double *y = malloc(sizeof(double) * (size_t)(out + 1));
    const double tol = tolerance(t->prec, spx_test_longest_row(tc->A, sh->op));
    int pad_ok = 1;
    for (int64_t j = 0; j < sh->k; j++) {
        column_of(Xv, t->prec, in, sh->ldx, j, x);
        column_of(Y0v, t->prec, out, sh->ldy, j, y0);
        column_of(Yv, t->prec, out, sh->ldy, j, y);
        spx_test_reference(tc->A, sh->op, sh->alpha, x, sh->beta, y0, ref, scale);
        if (!spx_test_close(y, ref, scale, out, tol,
                            "%s %s %s spmm k=%lld column %lld op%s alpha=%g beta=%g on %s",
                            t->format, device_name(t->dev), precision_name(t->prec),
                            (long long)sh->k, (long long)j, sh->op == SPX_OP_N ? "N" : "T",
                            sh->alpha, sh->beta, tc->name))
            break;
    }
    for (int64_t j = sh->k; j < sh->ldy; j++) {
        column_of(Yv, t->prec, out, sh->ldy, j, y);
        for (int64_t i = 0; i < out; i++)
            pad_ok &= y[i] == 7.0;
    }
    if (!CHECK(pad_ok))
        fprintf(stderr, "  %s %s %s spmm on %s wrote past column k\n", t->format,
                device_name(t->dev), precision_name(t->prec), tc->name);
    free(x), free(y0), free(ref), free(scale), free(y);
}

/* One SpMM product of the target on a case; 1 when the format declined. X
 * random, Y0 random (NaN with beta = 0: it must not leak), the columns past
 * k of Y at 7 (they must stay). */
static int spmm_one(const target *t, const test_case *tc, const spmm_shape *sh)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(tc->A, &rows, &cols, &nnz);
    const int64_t out = sh->op == SPX_OP_N ? rows : cols, in = sh->op == SPX_OP_N ? cols : rows;
    const size_t nx = (size_t)(in * sh->ldx + 1), ny = (size_t)(out * sh->ldy + 1);
    double *xd = malloc(sizeof(double) * nx), *yd = malloc(sizeof(double) * ny);
    void *Xv = malloc(sizeof(double) * nx), *Y0v = malloc(sizeof(double) * ny);
    void *Yv = malloc(sizeof(double) * ny);
    uint64_t seed = (uint64_t)nnz * 17 + (uint64_t)sh->k;
    for (size_t e = 0; e < nx; e++)
        xd[e] = spx_test_rand(&seed);
    for (size_t e = 0; e < ny; e++)
        yd[e] = (int64_t)(e % (size_t)sh->ldy) >= sh->k ? 7.0
                : sh->beta == 0.0                       ? NAN
                                                        : spx_test_rand(&seed);
    to_precision(xd, (int64_t)nx, t->prec, Xv);
    to_precision(yd, (int64_t)ny, t->prec, Y0v);
    memcpy(Yv, Y0v, sizeof(double) * ny);
    spx_plan *P = NULL;
    int32_t *rp32 = NULL;
    spx_matrix *W = tc->wrap32 ? spx_test_wrap32(tc->A, &rp32) : NULL;
    spx_status st = tc->wrap32 && !W
                        ? SPX_ERR_INVALID_ARG
                        : make_plan(t, W ? W : tc->A, SPX_OP_SPMM, sh->op, tc->name, &P);
    if (st == SPX_OK &&
        CHECK_STATUS(spx_spmm_host(P, sh->k, sh->alpha, Xv, sh->ldx, sh->beta, Yv, sh->ldy),
                     SPX_OK))
        check_spmm_result(t, tc, sh, Xv, Y0v, Yv, in, out);
    spx_plan_destroy(P);
    spx_matrix_destroy(W);
    free(rp32), free(xd), free(yd), free(Xv), free(Y0v), free(Yv);
    return st == SPX_ERR_UNSUPPORTED;
}

/* Every case through one(t, case, shape) for the dense-block shapes: on the
 * edge cases (full) all five, on the shared matrices the second and fourth. */
static void shape_cases(target *t, const case_list *l, const spmm_shape shapes[5],
                        int (*one)(const target *, const test_case *, const spmm_shape *))
{
    for (int c = 0; c < l->n; c++) {
        const test_case *tc = &l->at[c];
        int declined = 0;
        for (size_t s = 0; s < (l->full ? 5 : 2); s++)
            declined |= one(t, tc, &shapes[l->full ? s : 2 * s + 1]);
        t->cases++;
        t->declined += declined;
    }
}

/* Every case through the target's SpMM plans: one column, a few columns with
 * padded rows (op N, beta != 0), more than a tile of columns (op T), and on
 * the edge cases 8 columns (op T) and 70 (past a tile of fp32 sums). */
static void spmm_cases(target *t, const case_list *l)
{
    static const spmm_shape shapes[] = {{1, 1, 1, SPX_OP_N, 1.0, 0.0},
                                        {5, 7, 6, SPX_OP_N, -1.5, 0.5},
                                        {37, 37, 40, SPX_OP_T, 0.75, -2.0},
                                        {8, 8, 12, SPX_OP_T, 2.0, 1.0},
                                        {70, 70, 70, SPX_OP_N, 1.0, 0.0}};
    shape_cases(t, l, shapes, spmm_one);
}

/* ------------------------------------------------------------------- SDDMM */

/* ref[e] = alpha * X(i, :) . Y(j, :) + beta * z0[e] for A's entries e = (i, j)
 * in long double, scale[e] the same sum of magnitudes (the tolerance's
 * unit); X, Y, z0 as doubles. */
static void sddmm_reference(const spx_matrix *A, const spmm_shape *sh, const double *X,
                            const double *Y, const double *z0, double *ref, double *scale)
{
    int64_t rows, cols, nnz;
    const int64_t *rp;
    const void *ci;
    int cb;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    if (!CHECK_STATUS(spx_matrix_csr(A, &rp, &ci, &cb, NULL, NULL), SPX_OK)) return;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            const int64_t j = cb == 32 ? ((const int32_t *)ci)[e] : ((const int64_t *)ci)[e];
            long double dot = 0.0L, mag = 0.0L;
            for (int64_t c = 0; c < sh->k; c++) {
                const long double p = (long double)X[i * sh->ldx + c] * Y[j * sh->ldy + c];
                dot += p;
                mag += fabsl(p);
            }
            ref[e] = (double)(sh->alpha * dot + (sh->beta != 0.0 ? sh->beta * z0[e] : 0.0L));
            scale[e] =
                (double)(fabs(sh->alpha) * mag + (sh->beta != 0.0 ? fabs(sh->beta * z0[e]) : 0.0));
        }
}

/* One SDDMM product of the target on a case; 1 when the format declined. X
 * (rows x ldx) and Y (cols x ldy) random, Z0 random (NaN with beta = 0: it
 * must not leak). The shape's ldy is Y's leading dimension. */
static int sddmm_one(const target *t, const test_case *tc, const spmm_shape *sh)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(tc->A, &rows, &cols, &nnz);
    const size_t nx = (size_t)(rows * sh->ldx + 1), ny = (size_t)(cols * sh->ldy + 1);
    const size_t nz = (size_t)nnz + 1;
    double *xd = malloc(sizeof(double) * nx), *yd = malloc(sizeof(double) * ny);
    double *zd = malloc(sizeof(double) * nz), *z = malloc(sizeof(double) * nz);
    double *ref = malloc(sizeof(double) * nz), *scale = malloc(sizeof(double) * nz);
    void *Xv = malloc(sizeof(double) * nx), *Yv = malloc(sizeof(double) * ny);
    void *Zv = malloc(sizeof(double) * nz);
    uint64_t seed = (uint64_t)nnz * 29 + (uint64_t)sh->k;
    for (size_t e = 0; e < nx; e++)
        xd[e] = spx_test_rand(&seed);
    for (size_t e = 0; e < ny; e++)
        yd[e] = spx_test_rand(&seed);
    for (size_t e = 0; e < nz; e++)
        zd[e] = sh->beta == 0.0 ? NAN : spx_test_rand(&seed);
    to_precision(xd, (int64_t)nx, t->prec, Xv); /* rounded to the plan's type, then */
    to_precision(yd, (int64_t)ny, t->prec, Yv); /* read back: the reference's inputs */
    to_precision(zd, (int64_t)nz, t->prec, Zv);
    from_precision(Xv, (int64_t)nx, t->prec, xd);
    from_precision(Yv, (int64_t)ny, t->prec, yd);
    from_precision(Zv, (int64_t)nz, t->prec, zd);
    spx_plan *P = NULL;
    int32_t *rp32 = NULL;
    spx_matrix *W = tc->wrap32 ? spx_test_wrap32(tc->A, &rp32) : NULL;
    spx_status st = tc->wrap32 && !W
                        ? SPX_ERR_INVALID_ARG
                        : make_plan(t, W ? W : tc->A, SPX_OP_SDDMM, SPX_OP_N, tc->name, &P);
    if (st == SPX_OK &&
        CHECK_STATUS(spx_sddmm_host(P, sh->k, sh->alpha, Xv, sh->ldx, Yv, sh->ldy, sh->beta, Zv),
                     SPX_OK)) {
        sddmm_reference(tc->A, sh, xd, yd, zd, ref, scale);
        from_precision(Zv, nnz, t->prec, z);
        spx_test_close(z, ref, scale, nnz, tolerance(t->prec, sh->k),
                       "%s %s %s sddmm k=%lld ldx=%lld ldy=%lld alpha=%g beta=%g on %s", t->format,
                       device_name(t->dev), precision_name(t->prec), (long long)sh->k,
                       (long long)sh->ldx, (long long)sh->ldy, sh->alpha, sh->beta, tc->name);
    }
    spx_plan_destroy(P);
    spx_matrix_destroy(W);
    free(rp32), free(xd), free(yd), free(zd), free(z), free(ref), free(scale);
    free(Xv), free(Yv), free(Zv);
    return st == SPX_ERR_UNSUPPORTED;
}

/* Every case through the target's SDDMM plans: one column, a few with
 * padded rows (beta != 0), more than a warp's loads (37, 70), 8 with beta. */
static void sddmm_cases(target *t, const case_list *l)
{
    static const spmm_shape shapes[] = {{1, 1, 1, SPX_OP_N, 1.0, 0.0},
                                        {5, 7, 6, SPX_OP_N, -1.5, 0.5},
                                        {37, 37, 40, SPX_OP_N, 0.75, -2.0},
                                        {8, 8, 12, SPX_OP_N, 2.0, 1.0},
                                        {70, 70, 70, SPX_OP_N, 1.0, 0.0}};
    shape_cases(t, l, shapes, sddmm_one);
}

/* ------------------------------------------------------------------ SpGEMM */

typedef struct product_case {
    const char *name;
    spx_matrix *A, *B;
    int wrap32; /* A and B wrapped anew with 32-bit row offsets for each plan */
} product_case;

#define N_PRODUCTS 11
static product_case products[N_PRODUCTS];

static void build_products(void)
{
    int64_t ri[] = {2, 0, 1, 2, 0, 2, 0}, ci[] = {1, 2, 0, 1, 0, 3, 2};
    double v[] = {1.5, -2.0, 3.0, 0.25, 4.0, -1.0, 0.5};    /* unsorted; (2,1) and (0,2) twice */
    int64_t bi[] = {3, 1, 0, 3, 2}, bj[] = {0, 2, 1, 0, 2}; /* unsorted; (3,0) twice */
    static const int64_t empty_rows[] = {0, 2, 0, 3, 1, 0};
    const product_case list[N_PRODUCTS] = {
        {"0x0 * 0x0", spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL),
         spx_test_coo_matrix(0, 0, 0, NULL, NULL, NULL), 0},
        {"3x0 * 0x4", spx_test_coo_matrix(3, 0, 0, NULL, NULL, NULL),
         spx_test_coo_matrix(0, 4, 0, NULL, NULL, NULL), 0},
        {"nnz=0 6x4 * 4x5", spx_test_coo_matrix(6, 4, 0, NULL, NULL, NULL),
         spx_test_random_matrix(4, 5, 8, 1), 0},
        {"empty rows 6x5 * 5x4", spx_test_pattern_matrix(6, 5, empty_rows, 6, 2),
         spx_test_random_matrix(5, 4, 10, 3), 0},
        {"one dense row 40x30 * 30x20", spx_test_dense_row_matrix(40, 30, 17, 4, 4),
         spx_test_uniform_rows_matrix(30, 20, 6, 5), 0},
        {"rectangular 13x7 * 7x29", spx_test_random_matrix(13, 7, 30, 6),
         spx_test_random_matrix(7, 29, 60, 7), 0},
        {"rectangular 1x40 * 40x1", spx_test_random_matrix(1, 40, 20, 8),
         spx_test_random_matrix(40, 1, 20, 9), 0},
        {"rectangular 40x1 * 1x40", spx_test_random_matrix(40, 1, 20, 10),
         spx_test_random_matrix(1, 40, 20, 11), 0},
        {"unsorted+duplicates 3x4 * 4x3", spx_test_coo_matrix(3, 4, 7, ri, ci, v),
         spx_test_coo_matrix(4, 3, 5, bi, bj, v), 0},
        {"empty rows 6x5 * 5x4, 32-bit offsets", spx_test_pattern_matrix(6, 5, empty_rows, 6, 12),
         spx_test_random_matrix(5, 4, 10, 13), 1},
        {"one dense row 40x30 * 30x20, 32-bit offsets",
         spx_test_dense_row_matrix(40, 30, 17, 4, 14), spx_test_uniform_rows_matrix(30, 20, 6, 15),
         1},
    };
    memcpy(products, list, sizeof list);
}

/* Every product case through the target's SpGEMM plans. */
static void spgemm_cases(target *t)
{
    for (int c = 0; c < N_PRODUCTS; c++) {
        const product_case *pc = &products[c];
        spx_plan *P = NULL;
        spx_matrix *C = NULL, *WA = NULL, *WB = NULL;
        int32_t *rpa = NULL, *rpb = NULL;
        if (!pc->A || !pc->B) continue;
        if (pc->wrap32) {
            WA = spx_test_wrap32(pc->A, &rpa);
            WB = spx_test_wrap32(pc->B, &rpb);
        }
        spx_status st = pc->wrap32 && (!WA || !WB)
                            ? SPX_ERR_INVALID_ARG
                            : make_plan(t, WA ? WA : pc->A, SPX_OP_SPGEMM, SPX_OP_N, pc->name, &P);
        t->cases++;
        t->declined += st == SPX_ERR_UNSUPPORTED;
        if (st == SPX_OK && CHECK_STATUS(spx_spgemm_run(P, WB ? WB : pc->B, &C), SPX_OK)) {
            double tol = tolerance(t->prec, spx_test_longest_row(pc->A, SPX_OP_N));
            if (!CHECK(spx_test_spgemm_matches(pc->A, pc->B, C, tol)))
                fprintf(stderr, "  %s %s %s on %s: C differs from the dense product\n", t->format,
                        device_name(t->dev), precision_name(t->prec), pc->name);
        }
        spx_matrix_destroy(C);
        spx_plan_destroy(P);
        spx_matrix_destroy(WA);
        spx_matrix_destroy(WB);
        free(rpa), free(rpb);
    }
}

/* ------------------------------------------------------------------ driver */

/* Every format of the operation on the device, every precision it declares:
 * the cases run (l for SpMV, the products for SpGEMM), then the summary line;
 * a format that declined every case fails. */
static void run_formats(spx_operation operation, spx_device dev, const case_list *l)
{
    static const spx_type precs[] = {SPX_F64, SPX_F32, SPX_F16};
    for (int f = 0; f < spx_format_count(); f++) {
        const char *name;
        unsigned devices, precisions;
        if (!spx_test_format(f, operation, &name, &devices, &precisions) || !(devices & dev))
            continue;
        for (int p = 0; p < 3; p++) {
            if (!(precisions & (1u << precs[p]))) continue;
            target t = {name, dev, precs[p], 0, 0};
            long failed_before = spx_test_failed;
            if (operation == SPX_OP_SPMV)
                spmv_cases(&t, l);
            else if (operation == SPX_OP_SPMM)
                spmm_cases(&t, l);
            else if (operation == SPX_OP_SDDMM)
                sddmm_cases(&t, l);
            else
                spgemm_cases(&t);
            int ran = t.declined < t.cases;
            if (!CHECK(ran || t.cases == 0))
                fprintf(stderr, "  %s %s %s declined every case: it never runs\n", name,
                        device_name(dev), precision_name(precs[p]));
            printf("%-10s %-4s %-3s %-6s: %d cases, %d declined %s\n", name, device_name(dev),
                   precision_name(precs[p]),
                   operation == SPX_OP_SPMV    ? "spmv"
                   : operation == SPX_OP_SPMM  ? "spmm"
                   : operation == SPX_OP_SDDMM ? "sddmm"
                                               : "spgemm",
                   t.cases, t.declined, spx_test_failed == failed_before ? "ok" : "FAILED");
        }
    }
}

int main(void)
{
    int cpu = spx_test_part(NULL);
    int cuda =
        spx_test_part("cuda") && spx_test_require_cuda("the CUDA formats' conformance not run");
    if (cpu || cuda) {
        build_cases();
        build_products();
    }
    for (int d = 0; d < 2; d++) {
        spx_device dev = d ? SPX_DEV_CUDA : SPX_DEV_CPU;
        if (!(d ? cuda : cpu)) continue;
        run_formats(SPX_OP_SPMV, dev, &edge_cases);
        run_formats(SPX_OP_SPMM, dev, &edge_cases);
        run_formats(SPX_OP_SDDMM, dev, &edge_cases);
        run_formats(SPX_OP_SPGEMM, dev, NULL);
    }
    if (spx_test_part("shared") && load_shared()) {
        run_formats(SPX_OP_SPMV, SPX_DEV_CPU, &shared_cases);
        run_formats(SPX_OP_SPMM, SPX_DEV_CPU, &shared_cases);
        run_formats(SPX_OP_SDDMM, SPX_DEV_CPU, &shared_cases);
        if (spx_test_require_cuda("the CUDA formats not run on the shared matrices")) {
            run_formats(SPX_OP_SPMV, SPX_DEV_CUDA, &shared_cases);
            run_formats(SPX_OP_SPMM, SPX_DEV_CUDA, &shared_cases);
            run_formats(SPX_OP_SDDMM, SPX_DEV_CUDA, &shared_cases);
        }
    }
    free_cases(&edge_cases);
    free_cases(&shared_cases);
    for (int c = 0; c < N_PRODUCTS; c++) {
        spx_matrix_destroy(products[c].A);
        spx_matrix_destroy(products[c].B);
    }
    return spx_test_finish();
}
