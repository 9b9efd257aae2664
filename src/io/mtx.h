/* Matrix Market reading in four steps, one file each:
 *   file_load.c    the whole file (plain or gzip) in memory, '\n' sentinel after it
 *   mtx_header.c   banner and size line
 *   mtx_entries.c  entry lines split between threads into 0-based triplets
 *   mtx_build.c    triplets to CSR: symmetric mirroring, counting sort by row,
 *                  duplicates summed
 * Errors name the file and the 1-based line. */
#ifndef SPX_IO_MTX_H
#define SPX_IO_MTX_H

#include <stddef.h>
#include <stdint.h>

#include "spx.h"

/* Whole file in *data (spx__alloc'd, owned by the caller) followed by a '\n'
 * sentinel at (*data)[*len] and SPX__MTX_PAD zero bytes. gz: inflate with
 * zlib (SPX_ERR_NOT_COMPILED without it; a cut stream is
 * SPX_ERR_MTX_TRUNCATED naming the line). */
spx_status spx__io_load(const char *path, int gz, char **data, size_t *len);

/* 1 when path ends with suffix, ignoring case. */
int spx__io_has_suffix(const char *path, const char *suffix);

enum { SPX__MTX_REAL, SPX__MTX_INTEGER, SPX__MTX_PATTERN };
enum { SPX__MTX_GENERAL, SPX__MTX_SYMMETRIC, SPX__MTX_SKEW, SPX__MTX_HERMITIAN };

typedef struct spx__mtx_header {
    int array;    /* 1: dense column-major values; 0: coordinate entries */
    int field;    /* SPX__MTX_REAL, _INTEGER, _PATTERN */
    int symmetry; /* SPX__MTX_GENERAL, _SYMMETRIC, _SKEW, _HERMITIAN */
    int64_t rows, cols;
    int64_t entries;   /* entry lines the size line promises (array: values) */
    size_t body;       /* offset of the line after the size line */
    int64_t body_line; /* its line number */
} spx__mtx_header;

/* Parse banner and size line of buf[0..len) (sentinel at buf[len]). */
spx_status spx__mtx_header_parse(const char *path, const char *buf, size_t len, spx__mtx_header *h);

/* Entries as read: 0-based; ri < 0 marks a dropped value (array zeros). */
typedef struct spx__mtx_triplets {
    int64_t n;
    int64_t *ri, *ci;
    double *v; /* NULL for pattern files (all ones) */
} spx__mtx_triplets;

/* Parse the entry section; t's arrays are allocated here (free with
 * spx__mtx_triplets_free, also after a failure). */
spx_status spx__mtx_entries_parse(const char *path, const char *buf, size_t len,
                                  const spx__mtx_header *h, spx__mtx_triplets *t);
void spx__mtx_triplets_free(spx__mtx_triplets *t);

/* CSR from the triplets, mirrored per h->symmetry, duplicates summed. */
spx_status spx__mtx_build(const spx__mtx_header *h, const spx__mtx_triplets *t, spx_matrix **A);

#endif
