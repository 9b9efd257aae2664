/* spx spmv: y = alpha*op(A)*x + beta*y0 with x, y0 and y in text files, one
 * value per line (y may go to standard output); computed by spx_spmv_host in
 * the plan's precision (x and y are double for f64, float for f32 and f16,
 * x in half when spx_plan_x_type says so) and written with %.17g. */
#include <string.h>

#include <stdlib.h>

#include "cli.h"

/* The help, with the formats, devices and precisions the registry has for SpMV. */
static const char *usage(void)
{
    static char text[4096];
    char formats[512], devices[64], cpu[64], cuda[64];
    cli_format_names(SPX_OP_SPMV, formats, sizeof formats);
    cli_device_names(SPX_OP_SPMV, devices, sizeof devices);
    cli_precision_names(SPX_OP_SPMV, SPX_DEV_CPU, cpu, sizeof cpu);
    cli_precision_names(SPX_OP_SPMV, SPX_DEV_CUDA, cuda, sizeof cuda);
    snprintf(text, sizeof text,
             "Usage: spx spmv A --out Y.txt|- [--x X.txt] [--y Y0.txt] [--format F]\n"
             "                [--device %s] [--precision P] [--op n|t]\n"
             "                [--alpha a] [--beta b] [--param k=v,...]\n\n"
             "y = alpha*op(A)*x + beta*y0, written to Y.txt (- : standard output) one\n"
             "value per line (%%.17g). A is a .mtx, .mtx.gz or .spx file, or gen:SPEC.\n\n"
             "  --x X.txt      x, one value per line; its count must be the column count\n"
             "                 of op(A) (default: all ones)\n"
             "  --y Y0.txt     y0 for beta != 0 (default: zeros)\n"
             "  --format F     default auto; the formats (spx formats):\n"
             "                 %s\n"
             "  --device D     %s (default cpu); vectors stay on the host\n"
             "  --precision P  f64 (default); with kernels on cpu: %s%s%s\n"
             "                 (f16: half values, fp32 sums, float x and y; x in half with\n"
             "                 --param xtype=half on cuda)\n"
             "  --op n|t       A (default) or its transpose\n"
             "  --alpha a      default 1\n"
             "  --beta b       default 0 (y0 is then not read)\n"
             "  --param k=v,.. format parameters\n",
             devices, formats, devices, cpu, cuda[0] ? ", on cuda: " : "", cuda);
    return text;
}

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
    const cli_command cmd = {"spmv", usage(), opts, 1, 1};
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if (!a->out)
        return cli_usage_error("spmv", "--out Y.txt (or - for standard output) is required");
    if (strcmp(op, "n") != 0 && strcmp(op, "t") != 0)
        return cli_usage_error("spmv", "--op is n or t, not '%s'", op);
    a->o = spx_plan_opts_default();
    a->o.format = format;
    a->o.params = params;
    a->o.op = op[0] == 't' ? SPX_OP_T : SPX_OP_N;
    if ((rc = cli_parse_device("spmv", device, &a->o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_precision("spmv", prec, &a->o.precision)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_double("spmv", "--alpha", alpha, &a->alpha)) != CLI_PARSED) return rc;
    if ((rc = cli_parse_double("spmv", "--beta", beta, &a->beta)) != CLI_PARSED) return rc;
    if ((rc = cli_check_format("spmv", SPX_OP_SPMV, format)) != CLI_PARSED) return rc;
    return cli_check_plan("spmv", SPX_OP_SPMV, &a->o);
}

/* *out = v converted to the element type t (a new buffer: float for
 * SPX_F32, IEEE half through float for SPX_F16), or v itself for SPX_F64
 * (*out aliases v, nothing allocated). 0 when out of memory. */
static int to_plan_type(double *v, int64_t n, spx_type t, void **out, void **owned)
{
    float *f = NULL;
    uint16_t *h = NULL;
    *owned = NULL;
    *out = v;
    if (t == SPX_F64) return 1;
    if (!(f = malloc((size_t)n * sizeof *f + 1))) return 0;
    for (int64_t i = 0; i < n; i++)
        f[i] = (float)v[i];
    *out = *owned = f;
    if (t != SPX_F16) return 1;
    if ((h = malloc((size_t)n * sizeof *h + 1))) spx_float_to_half(f, h, n);
    free(f);
    *out = *owned = h;
    return h != NULL;
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

static int out_of_memory(void)
{
    fprintf(stderr, "spx spmv: out of memory for the vectors\n");
    return CLI_RUNTIME;
}

/* y = alpha*op(A)*x + beta*y0 with the plan P, written out. */
static int multiply(const spmv_args *a, const spx_plan *P, int64_t in_len, int64_t out_len,
                    double *x, double *y)
{
    void *xt, *yt, *xt_owned = NULL, *yt_owned = NULL;
    int rc = CLI_OK;
    spx_type yt_type = a->o.precision == SPX_F64 ? SPX_F64 : SPX_F32;
    if (!to_plan_type(x, in_len, spx_plan_x_type(P), &xt, &xt_owned) ||
        !to_plan_type(y, out_len, yt_type, &yt, &yt_owned)) {
        rc = out_of_memory();
    } else {
        spx_status st = spx_spmv_host(P, a->alpha, xt, a->beta, yt);
        if (st != SPX_OK) rc = cli_library_error("spmv", "y = alpha*op(A)*x + beta*y", st);
    }
    for (int64_t i = 0; rc == CLI_OK && yt_owned && i < out_len; i++)
        y[i] = (double)((float *)yt_owned)[i];
    if (rc == CLI_OK) rc = cli_write_values("spmv", a->out, out_len, y);
    free(xt_owned);
    free(yt_owned);
    return rc;
}

static int run_spmv(const spmv_args *a, const spx_matrix *A)
{
    int64_t rows, cols;
    spx_plan *P = NULL;
    int rc = CLI_OK;
    spx_matrix_dims(A, &rows, &cols, NULL);
    int64_t in_len = a->o.op == SPX_OP_N ? cols : rows;
    int64_t out_len = a->o.op == SPX_OP_N ? rows : cols;
    double *x = malloc((size_t)in_len * sizeof *x + 1),
           *y = malloc((size_t)out_len * sizeof *y + 1);
    spx_status st;
    if (!x || !y) rc = out_of_memory();
    if (rc == CLI_OK) rc = fill_vectors(a, in_len, out_len, x, y);
    if (rc == CLI_OK && (st = spx_plan_create(A, SPX_OP_SPMV, &a->o, &P)) != SPX_OK)
        rc = cli_library_error("spmv", a->matrix, st);
    if (rc == CLI_OK) rc = multiply(a, P, in_len, out_len, x, y);
    spx_plan_destroy(P);
    free(x);
    free(y);
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
