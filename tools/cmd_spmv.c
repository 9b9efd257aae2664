/* spx spmv: y = alpha*op(A)*x + beta*y0 with x, y0 and y in text files, one
 * value per line; computed by spx_spmv_host in the plan's precision (x and y
 * are double for f64, float for f32 and f16) and written with %.17g. */
#include <string.h>

#include "cli.h"
#include "core/alloc.h"
#include "core/error.h"

static const char usage[] =
    "Usage: spx spmv A --out Y.txt [--x X.txt] [--y Y0.txt] [--format F]\n"
    "                [--device cpu|cuda] [--precision f64|f32|f16] [--op n|t]\n"
    "                [--alpha a] [--beta b] [--param k=v,...]\n\n"
    "y = alpha*op(A)*x + beta*y0, written to Y.txt one value per line (%.17g).\n"
    "A is a .mtx, .mtx.gz or .spx file, or gen:SPEC.\n\n"
    "  --x X.txt      x, one value per line; its count must be the column count\n"
    "                 of op(A) (default: all ones)\n"
    "  --y Y0.txt     y0 for beta != 0 (default: zeros)\n"
    "  --format F     a registered format (spx formats), default auto\n"
    "  --device D     cpu (default) or cuda; vectors stay on the host\n"
    "  --precision P  f64 (default), f32, or f16 (half values, fp32 sums, float x, y;\n"
    "                 x in half with --param xtype=half on cuda)\n"
    "  --op n|t       A (default) or its transpose\n"
    "  --alpha a      default 1\n"
    "  --beta b       default 0 (y0 is then not read)\n"
    "  --param k=v,.. format parameters\n";

typedef struct spmv_args {
    const char *matrix, *x, *y0, *out;
    spx_plan_opts o;
    double alpha, beta;
} spmv_args;

static int parse_args(int argc, char **argv, spmv_args *a)
{
    const char *device = "cpu", *prec = "f64", *op = "n", *alpha = "1", *beta = "0";
    const char *format = "auto", *params = NULL;
    const cli_opt opts[] = {
        {"--x", &a->x, NULL},        {"--y", &a->y0, NULL},       {"--out", &a->out, NULL},
        {"--format", &format, NULL}, {"--device", &device, NULL}, {"--precision", &prec, NULL},
        {"--op", &op, NULL},         {"--alpha", &alpha, NULL},   {"--beta", &beta, NULL},
        {"--param", &params, NULL},  {NULL, NULL, NULL}};
    const cli_command cmd = {"spmv", usage, opts, 1, 1};
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if (!a->out) return cli_usage_error("spmv", "--out Y.txt is required");
    if (strcmp(op, "n") != 0 && strcmp(op, "t") != 0)
        return cli_usage_error("spmv", "--op is n or t, not '%s'", op);
    a->o = spx_plan_opts_default();
    a->o.format = format;
    a->o.params = params;
    a->o.op = op[0] == 't' ? SPX_OP_T : SPX_OP_N;
    if ((rc = cli_parse_device("spmv", device, &a->o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_precision("spmv", prec, &a->o.precision)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_double("spmv", "--alpha", alpha, &a->alpha)) != CLI_PARSED) return rc;
    return cli_parse_double("spmv", "--beta", beta, &a->beta);
}

/* *out = v converted to the element type t (a new buffer: float for
 * SPX_F32, IEEE half through float for SPX_F16), or v itself for SPX_F64
 * (*out aliases v, nothing allocated). */
static spx_status to_plan_type(double *v, int64_t n, spx_type t, void **out, void **owned)
{
    float *f = NULL;
    uint16_t *h = NULL;
    *owned = NULL;
    *out = v;
    if (t == SPX_F64) return SPX_OK;
    spx_status st = spx__alloc((void **)&f, (size_t)n, sizeof *f, "vector in float");
    if (st != SPX_OK) return st;
    for (int64_t i = 0; i < n; i++)
        f[i] = (float)v[i];
    *out = *owned = f;
    if (t != SPX_F16) return SPX_OK;
    st = spx__alloc((void **)&h, (size_t)n, sizeof *h, "vector in half");
    if (st == SPX_OK) {
        spx_float_to_half(f, h, n);
        *out = *owned = h;
    }
    spx__free(f);
    if (st != SPX_OK) *out = *owned = NULL;
    return st;
}

/* x and y0 filled from the files or defaults; lengths in_len and out_len. */
static int fill_vectors(const spmv_args *a, int64_t in_len, int64_t out_len, double *x, double *y)
{
    int rc = CLI_OK;
    if (a->x)
        rc = cli_read_vector("spmv", a->x, in_len, "the column count of op(A)", x);
    else
        for (int64_t i = 0; i < in_len; i++)
            x[i] = 1.0;
    if (rc == CLI_OK && a->y0 && a->beta != 0.0)
        rc = cli_read_vector("spmv", a->y0, out_len, "the row count of op(A)", y);
    else
        for (int64_t i = 0; i < out_len; i++)
            y[i] = 0.0;
    return rc;
}

static int run_spmv(const spmv_args *a, const spx_matrix *A)
{
    int64_t rows, cols;
    double *x = NULL, *y = NULL;
    void *xt, *yt, *xt_owned = NULL, *yt_owned = NULL;
    spx_plan *P = NULL;
    spx_status st = SPX_OK;
    int rc = CLI_OK;
    spx_matrix_dims(A, &rows, &cols, NULL);
    int64_t in_len = a->o.op == SPX_OP_N ? cols : rows;
    int64_t out_len = a->o.op == SPX_OP_N ? rows : cols;
    SPX_TRY(spx__alloc((void **)&x, (size_t)in_len, sizeof *x, "x"));
    SPX_TRY(spx__alloc((void **)&y, (size_t)out_len, sizeof *y, "y"));
    if ((rc = fill_vectors(a, in_len, out_len, x, y)) != CLI_OK) goto cleanup;
    SPX_TRY(spx_plan_create(A, SPX_OP_SPMV, &a->o, &P));
    SPX_TRY(to_plan_type(x, in_len, spx_plan_x_type(P), &xt, &xt_owned));
    SPX_TRY(to_plan_type(y, out_len, a->o.precision == SPX_F64 ? SPX_F64 : SPX_F32, &yt,
                         &yt_owned));
    SPX_TRY(spx_spmv_host(P, a->alpha, xt, a->beta, yt));
    for (int64_t i = 0; yt_owned && i < out_len; i++)
        y[i] = (double)((float *)yt_owned)[i];
    rc = cli_write_vector("spmv", a->out, out_len, y);
cleanup:
    if (rc == CLI_OK && st != SPX_OK) rc = cli_library_error("spmv", a->matrix, st);
    spx_plan_destroy(P);
    spx__free(xt_owned);
    spx__free(yt_owned);
    spx__free(x);
    spx__free(y);
    return rc;
}

int spx_cmd_spmv(int argc, char **argv)
{
    spmv_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_PARSED) return rc;
    spx_matrix *A = NULL;
    cli_load_info info;
    spx_status st = cli_load_matrix(a.matrix, &A, &info);
    if (st != SPX_OK) return cli_library_error("spmv", a.matrix, st);
    rc = run_spmv(&a, A);
    spx_matrix_destroy(A);
    return rc;
}
