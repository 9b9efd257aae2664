/* spx_dist_read_mtx on the broken Matrix Market files of tests/mtx_corpus
 * (the serial reader's, with the status each must give in EXPECTED), read
 * by 1..4 ranks at once, each rank parsing a slice of a few bytes of these
 * small files, so an error can fall in any rank's slice or across two.
 * Every rank must return with the same status, the one EXPECTED names
 * (array files: SPX_ERR_UNSUPPORTED, the distributed reader takes
 * coordinate files only; more ranks than rows: SPX_ERR_INVALID_ARG), its
 * message naming the expected line, and hold no matrix; under the
 * sanitizers, no rank may read or write out of bounds or leak. pcsr and
 * pcsc cut the file differently (rows, columns). The .gz files, which
 * rank 0 inflates and hands out in slices, too (not without zlib). Rank 0
 * prints the totals; every rank exits 1 if any rank failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "spx_mpi.h"

static int rank, size;

static spx_status status_named(const char *s)
{
    for (int st = 0; st >= -40; st--)
        if (strcmp(spx_status_name((spx_status)st), s) == 0) return (spx_status)st;
    return SPX_OK;
}

/* The first line of path says "array". */
static int array_file(const char *path)
{
    char banner[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (!fgets(banner, sizeof banner, f)) banner[0] = '\0';
    fclose(f);
    return strstr(banner, " array ") != NULL;
}

/* The size line of a coordinate file: its line number, rows and columns;
 * 0 when there is none to read. */
static long size_line(const char *path, long long *rows, long long *cols)
{
    char text[512];
    long line = 0, found = 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (!found && fgets(text, sizeof text, f)) {
        line++;
        if (text[0] != '%' && sscanf(text, "%lld %lld", rows, cols) == 2) found = line;
    }
    fclose(f);
    return found;
}

/* One file, one kind: the same status everywhere, the expected one. A file
 * whose error lies past a size line of fewer rows (pcsc: columns) than
 * ranks gives SPX_ERR_INVALID_ARG instead: the ranks are counted against the
 * size line before any entry is parsed. */
static void read_one(const char *name, const char *path, spx_partition kind, spx_status want,
                     long want_line)
{
    spx_dist_matrix *D = NULL;
    spx_status got = spx_dist_read_mtx(MPI_COMM_WORLD, path, kind, &D);
    int g = (int)got, lo = 0, hi = 0;
    MPI_Allreduce(&g, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&g, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int array = array_file(path);
    long long rows = 0, cols = 0;
    long at = size_line(path, &rows, &cols);
    int few = at > 0 && want_line > at && (kind == SPX_PART_PCSC ? cols : rows) < size;
    int ok_status =
        got == want || (array && got == SPX_ERR_UNSUPPORTED) || (few && got == SPX_ERR_INVALID_ARG);
    char line[32];
    snprintf(line, sizeof line, "line %ld", want_line);
    int ok_line = got != want || strstr(spx_last_error(), line) != NULL;
    if (!CHECK(lo == hi) || !CHECK(ok_status) || !CHECK(ok_line) || !CHECK(D == NULL))
        fprintf(stderr, "  rank %d of %d, %s, %s: %s (%s), want %s at line %ld\n", rank, size, name,
                spx_partition_name(kind), spx_status_name(got), spx_last_error(),
                spx_status_name(want), want_line);
    spx_dist_matrix_destroy(D);
}

int main(int argc, char **argv)
{
    char path[1024], text[512], name[256], status[64];
    long want_line, files = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(path, sizeof path, "%s/mtx_corpus/EXPECTED", spx_test_data_dir());
    FILE *f = fopen(path, "r");
    if (CHECK(f != NULL)) {
        while (fgets(text, sizeof text, f)) {
            if (text[0] == '#' || sscanf(text, "%255s %63s %ld", name, status, &want_line) != 3)
                continue;
#ifndef SPX_TEST_HAVE_ZLIB
            if (strstr(name, ".gz")) continue; /* built without zlib */
#endif
            snprintf(path, sizeof path, "%s/mtx_corpus/%s", spx_test_data_dir(), name);
            read_one(name, path, SPX_PART_PCSR, status_named(status), want_line);
            read_one(name, path, SPX_PART_PCSC, status_named(status), want_line);
            files++;
        }
        fclose(f);
    }
    CHECK(files >= 40);
    long counts[2] = {spx_test_passed, spx_test_failed}, sums[2];
    MPI_Allreduce(counts, sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %ld files: %ld passed, %ld failed\n", size, files, sums[0], sums[1]);
    MPI_Finalize();
    return sums[1] == 0 ? 0 : 1;
}
