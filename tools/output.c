/* Outputs named on the command line: a file, or "-" for standard output.
 * A matrix goes to a file by its extension (spx_matrix_write); to standard
 * output as the Matrix Market text spx_matrix_write_mtx writes:
 *   %%MatrixMarket matrix coordinate real general
 *   rows cols nnz
 *   row col value          (1-based, row-major order, values %.17g)
 * read through the public CSR view (spx_matrix_csr). A vector is one value
 * per line with %.17g. */
#include <errno.h>
#include <string.h>

#include "cli.h"

/* Flushes standard output; 1 when everything written so far got out. */
static int stdout_ok(const char *cmd)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) return 1;
    fprintf(stderr, "spx %s: cannot write to standard output: %s\n", cmd, strerror(errno));
    return 0;
}

static void print_mtx(const spx_matrix *A, FILE *f)
{
    const int64_t *rowptr;
    const void *col, *val;
    int col_bits;
    spx_type vt;
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    spx_matrix_csr(A, &rowptr, &col, &col_bits, &val, &vt);
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", (long long)rows,
            (long long)cols, (long long)nnz);
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            int64_t j = col_bits == 32 ? ((const int32_t *)col)[k] : ((const int64_t *)col)[k];
            double v = vt == SPX_F64 ? ((const double *)val)[k] : ((const float *)val)[k];
            fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)j + 1, v);
        }
    }
}

int cli_write_matrix(const char *cmd, const spx_matrix *A, const char *path)
{
    cli_progress pr;
    if (cli_is_stdout(path)) {
        print_mtx(A, stdout);
        return stdout_ok(cmd) ? CLI_OK : CLI_RUNTIME;
    }
    cli_progress_begin(&pr, "writing %s", path);
    spx_status st = spx_matrix_write(A, path);
    cli_progress_end(&pr);
    return st == SPX_OK ? CLI_OK : cli_library_error(cmd, path, st);
}

int cli_write_values(const char *cmd, const char *path, int64_t n, const double *v)
{
    if (!cli_is_stdout(path)) return cli_write_vector(cmd, path, n, v);
    for (int64_t i = 0; i < n; i++)
        printf("%.17g\n", v[i]);
    return stdout_ok(cmd) ? CLI_OK : CLI_RUNTIME;
}
