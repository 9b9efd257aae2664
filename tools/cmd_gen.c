/* spx gen SPEC --out FILE: build a matrix with spx_generate and write it
 * (FILE "-": Matrix Market text on standard output). */
#include <string.h>

#include "cli.h"

static const char usage[] =
    "Usage: spx gen SPEC --out FILE|-\n\n"
    "Generate the matrix SPEC (with or without a gen: prefix), e.g. lap3d7:64,\n"
    "lap3d27:48, rmat:scale=16,ef=16,sym=1,seed=1, random:m=1e4,n=1e4,nnz=1e5;\n"
    "see spx_generate in spx.h and src/gen/README.md for every key. Writes FILE\n"
    "by its extension (.mtx, .mtx.gz, .spx) and prints rows, cols and nnz;\n"
    "--out - writes Matrix Market text to standard output (rows, cols and nnz\n"
    "then go to stderr).\n";

int spx_cmd_gen(int argc, char **argv)
{
    const char *out = NULL;
    const cli_opt opts[] = {{"--out", &out, NULL}, {NULL, NULL, NULL}};
    const cli_command cmd = {"gen", usage, opts, 1, 1};
    const char *pos[1];
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;
    if (!out) return cli_usage_error("gen", "--out FILE (or - for standard output) is required");

    char source[1024];
    snprintf(source, sizeof source, "%s%s", strncmp(pos[0], "gen:", 4) == 0 ? "" : "gen:", pos[0]);
    spx_matrix *A = NULL;
    cli_load_info info;
    int64_t rows, cols, nnz;
    spx_status st = cli_load_matrix(source, &A, &info);
    if (st != SPX_OK) return cli_library_error("gen", source + 4, st);
    rc = cli_write_matrix("gen", A, out);
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_destroy(A);
    if (rc != CLI_OK) return rc;
    fprintf(cli_is_stdout(out) ? stderr : stdout, "rows = %lld\ncols = %lld\nnnz = %lld\n",
            (long long)rows, (long long)cols, (long long)nnz);
    return CLI_OK;
}
