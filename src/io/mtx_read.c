/* spx_matrix_read_mtx: load the file, parse the header, parse the entries,
 * build the CSR (the steps are described in mtx.h). The result always holds
 * fp64 values; pattern entries are 1. spx_matrix_read picks the reader by
 * extension. */
#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx.h"

spx_status spx_matrix_read_mtx(const char *path, spx_matrix **A)
{
    spx_status st;
    char *buf = NULL;
    size_t len = 0;
    spx__mtx_header h;
    spx__mtx_triplets t = {0, NULL, NULL, NULL};
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read_mtx: A is NULL");
    *A = NULL;
    if (!path) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read_mtx: path is NULL");
    SPX_TRY(spx__io_load(path, spx__io_has_suffix(path, ".gz"), &buf, &len));
    SPX_TRY(spx__mtx_header_parse(path, buf, len, &h));
    SPX_TRY(spx__mtx_entries_parse(path, buf, len, &h, &t));
    spx__free(buf);
    buf = NULL;
    SPX_TRY(spx__mtx_build(&h, &t, A));
    spx__clear_error();
cleanup:
    spx__free(buf);
    spx__mtx_triplets_free(&t);
    return st;
}

spx_status spx_matrix_read(const char *path, spx_matrix **A)
{
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read: A is NULL");
    *A = NULL;
    if (!path) return spx__error(SPX_ERR_INVALID_ARG, "spx_matrix_read: path is NULL");
    if (spx__io_has_suffix(path, ".spx")) return spx_matrix_read_bin(path, A);
    if (spx__io_has_suffix(path, ".mtx") || spx__io_has_suffix(path, ".mtx.gz"))
        return spx_matrix_read_mtx(path, A);
    return spx__error(SPX_ERR_UNSUPPORTED, "%s: unknown extension (read .mtx, .mtx.gz, .spx)",
                      path);
}
