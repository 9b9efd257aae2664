/* spx convert IN OUT: read a matrix and write it in the format OUT's
 * extension names (.mtx, .mtx.gz, .spx), or as Matrix Market text to
 * standard output for OUT "-". */
#include "cli.h"

static const char usage[] =
    "Usage: spx convert IN OUT|-\n\n"
    "Read the matrix IN (.mtx, .mtx.gz, .spx, or gen:SPEC) and write it to OUT in\n"
    "the format of its extension: .mtx (Matrix Market coordinate real general,\n"
    "values %.17g), .mtx.gz (the same, compressed), .spx (SpX binary); OUT -\n"
    "writes Matrix Market text to standard output (the summary line then goes\n"
    "to stderr).\n";

int spx_cmd_convert(int argc, char **argv)
{
    const cli_opt opts[] = {{NULL, NULL, NULL}};
    const cli_command cmd = {"convert", usage, opts, 2, 2};
    const char *pos[2];
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;

    spx_matrix *A = NULL;
    cli_load_info info;
    int64_t rows, cols, nnz;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK) return cli_library_error("convert", pos[0], st);
    rc = cli_write_matrix("convert", A, pos[1]);
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_destroy(A);
    if (rc != CLI_OK) return rc;
    fprintf(cli_is_stdout(pos[1]) ? stderr : stdout, "%s: %lld x %lld, nnz %lld\n", pos[1],
            (long long)rows, (long long)cols, (long long)nnz);
    return CLI_OK;
}
