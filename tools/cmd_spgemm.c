/* spx spgemm A [B] --out C: C = A*B with spx_spgemm (B defaults to A). */
#include "cli.h"

static const char usage[] =
    "Usage: spx spgemm A [B] --out C [--device cpu|cuda]\n\n"
    "C = A*B (B defaults to A), written to C by its extension (.mtx, .mtx.gz,\n"
    ".spx). Prints the nonzero count of C as \"nnz(C) = N\". A and B are files or\n"
    "gen:SPEC. The CPU method is Gustavson's (OpenMP, symbolic then numeric).\n";

static spx_status timed_spgemm(const spx_matrix *A, const spx_matrix *B, const spx_plan_opts *o,
                               spx_matrix **C)
{
    cli_progress pr;
    cli_progress_begin(&pr, "computing C = A*B");
    spx_status st = spx_spgemm(A, B, o, C);
    cli_progress_end(&pr);
    return st;
}

static int multiply(const char *const pos[2], const char *out, spx_device device)
{
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    cli_load_info info;
    int64_t nnz;
    int rc = CLI_OK;
    spx_plan_opts o = spx_plan_opts_default();
    o.device = device;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK) {
        rc = cli_library_error("spgemm", pos[0], st);
    } else if (pos[1] && (st = cli_load_matrix(pos[1], &B, &info)) != SPX_OK) {
        rc = cli_library_error("spgemm", pos[1], st);
    } else if ((st = timed_spgemm(A, B ? B : A, &o, &C)) != SPX_OK) {
        rc = cli_library_error("spgemm", "C = A*B", st);
    } else if ((st = cli_write_matrix(C, out)) != SPX_OK) {
        rc = cli_library_error("spgemm", out, st);
    } else {
        spx_matrix_dims(C, NULL, NULL, &nnz);
        printf("nnz(C) = %lld\n", (long long)nnz);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(C);
    return rc;
}

int spx_cmd_spgemm(int argc, char **argv)
{
    const char *out = NULL, *device = "cpu";
    const cli_opt opts[] = {{"--out", &out, NULL}, {"--device", &device, NULL}, {NULL, NULL, NULL}};
    const cli_command cmd = {"spgemm", usage, opts, 1, 2};
    const char *pos[2];
    spx_device d;
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;
    if (!out) return cli_usage_error("spgemm", "--out C is required");
    if ((rc = cli_parse_device("spgemm", device, &d)) != CLI_PARSED) return rc;
    return multiply(pos, out, d);
}
