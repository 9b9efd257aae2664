/* spx spgemm A [B] --out C: C = A*B with spx_spgemm (B defaults to A), the
 * format and device asked of the registry. */
#include "cli.h"

/* The help, with the formats and devices the registry has for SpGEMM. */
static const char *usage(void)
{
    static char text[2048];
    char formats[512], devices[64];
    cli_format_names(SPX_OP_SPGEMM, formats, sizeof formats);
    cli_device_names(SPX_OP_SPGEMM, devices, sizeof devices);
    snprintf(text, sizeof text,
             "Usage: spx spgemm A [B] --out C|- [--format F] [--device %s]\n\n"
             "C = A*B (B defaults to A), written to C by its extension (.mtx, .mtx.gz,\n"
             ".spx), or to standard output as Matrix Market text for -. Prints the\n"
             "nonzero count of C as \"nnz(C) = N\" (on stderr when C goes to standard\n"
             "output). A and B are files or gen:SPEC.\n\n"
             "  --format F   %s (default auto; spx formats)\n"
             "  --device D   %s (default cpu)\n",
             devices, formats, devices);
    return text;
}

static spx_status timed_spgemm(const spx_matrix *A, const spx_matrix *B, const spx_plan_opts *o,
                               spx_matrix **C)
{
    cli_progress pr;
    cli_progress_begin(&pr, "computing C = A*B");
    spx_status st = spx_spgemm(A, B, o, C);
    cli_progress_end(&pr);
    return st;
}

static int multiply(const char *const pos[2], const char *out, const spx_plan_opts *o)
{
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    cli_load_info info;
    int64_t nnz;
    int rc = CLI_OK;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK) {
        rc = cli_library_error("spgemm", pos[0], st);
    } else if (pos[1] && (st = cli_load_matrix(pos[1], &B, &info)) != SPX_OK) {
        rc = cli_library_error("spgemm", pos[1], st);
    } else if ((st = timed_spgemm(A, B ? B : A, o, &C)) != SPX_OK) {
        rc = cli_library_error("spgemm", "C = A*B", st);
    } else if ((rc = cli_write_matrix("spgemm", C, out)) == CLI_OK) {
        spx_matrix_dims(C, NULL, NULL, &nnz);
        fprintf(cli_is_stdout(out) ? stderr : stdout, "nnz(C) = %lld\n", (long long)nnz);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(C);
    return rc;
}

int spx_cmd_spgemm(int argc, char **argv)
{
    const char *out = NULL, *device = "cpu", *format = "auto";
    const cli_opt opts[] = {{"--out", &out, NULL},
                            {"--format", &format, NULL},
                            {"--device", &device, NULL},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"spgemm", usage(), opts, 1, 2};
    const char *pos[2];
    spx_plan_opts o = spx_plan_opts_default();
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;
    if (!out) return cli_usage_error("spgemm", "--out C (or - for standard output) is required");
    o.format = format;
    if ((rc = cli_parse_device("spgemm", device, &o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_check_format("spgemm", SPX_OP_SPGEMM, format)) != CLI_PARSED) return rc;
    if ((rc = cli_check_plan("spgemm", SPX_OP_SPGEMM, &o)) != CLI_PARSED) return rc;
    return multiply(pos, out, &o);
}
