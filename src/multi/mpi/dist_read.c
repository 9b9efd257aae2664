/* spx_dist_read_mtx (spx_mpi.h): a Matrix Market coordinate file read by
 * every rank at once, no rank holding more than its part (a .gz file:
 * rank 0 inflates it and hands out the slices, dist_read_gz.c).
 *   1. each rank parses the header, then the r-th slice of the entry bytes
 *      (cut at line starts), with the serial reader's entry parser: its
 *      errors name the file's line (line numbers by an exclusive scan);
 *   2. entries (mirrored for symmetric kinds) go to a temporary owner of
 *      their line (row; column for pcsc) in equal blocks of lines, which
 *      sorts them by (line, other index, file order) and sums duplicates in
 *      file order, as spx_matrix_read does;
 *   3. the exact count of every line is all-gathered (O(lines) a rank): the
 *      line offsets give each rank's part as for a matrix held whole (pcoo
 *      is cut as pcsr, whose boundaries are the same);
 *   4. each entry goes to the rank whose nonzero range holds its position,
 *      arriving in order, and becomes that rank's part.
 * Every step ends with an agreement (dist_agree.c). */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftello: files past 2 GiB */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx.h"
#include "io/mtx_number.h"
#include "multi/mpi/dist.h"

typedef struct entry {
    int64_t line, other; /* row and column (column and row for pcsc) */
    int64_t seq;         /* the entry's place in the file: duplicates sum in file order */
    double v;
} entry;

typedef struct reader {
    MPI_Comm comm;
    int rank, size, pcsc;
    const char *path;
    spx__mtx_header h;
    int64_t fsize, lines;   /* file bytes; lines of the cut (rows, or columns) */
    char *buf;              /* this rank's slice, '\n' sentinel and padding after it */
    size_t len;
    entry *e;               /* entries held now */
    int64_t n;
    MPI_Datatype type;      /* one entry */
} reader;

/* Bytes [from, from + n) of the file into buf. */
static spx_status read_bytes(FILE *f, const char *path, int64_t from, size_t n, char *buf)
{
    if (fseeko(f, (off_t)from, SEEK_SET) != 0 || fread(buf, 1, n, f) != n)
        return spx__error(SPX_ERR_IO, "%s: cannot read %zu bytes at %lld", path, n, (long long)from);
    return SPX_OK;
}

/* The first line start after byte pos - 1: one past the first '\n' at or
 * after pos - 1, or the end of the file. */
static spx_status line_start_from(FILE *f, const char *path, int64_t pos, int64_t fsize, int64_t *out)
{
    char block[4096];
    for (int64_t at = pos - 1; at < fsize; at += (int64_t)sizeof block) {
        size_t n = (size_t)(fsize - at < (int64_t)sizeof block ? fsize - at : (int64_t)sizeof block);
        spx_status st = read_bytes(f, path, at, n, block);
        if (st != SPX_OK) return st;
        const char *nl = memchr(block, '\n', n);
        if (nl) {
            *out = at + (nl - block) + 1;
            return SPX_OK;
        }
    }
    *out = fsize;
    return SPX_OK;
}

/* The header (banner and size line) from the file's first bytes. */
static spx_status read_header(reader *R, FILE *f)
{
    spx_status st = SPX_OK;
    char *head = NULL;
    for (int64_t want = 1 << 16;; want *= 16) {
        size_t n = (size_t)(want < R->fsize ? want : R->fsize);
        SPX_TRY(spx__alloc((void **)&head, n + 1 + SPX__MTX_PAD, 1, "Matrix Market header"));
        memset(head + n, 0, 1 + SPX__MTX_PAD);
        head[n] = '\n';
        SPX_TRY(read_bytes(f, R->path, 0, n, head));
        st = spx__mtx_header_parse(R->path, head, n, &R->h);
        if (st == SPX_OK || (int64_t)n == R->fsize) break;
        spx__free(head);
        head = NULL;
    }
cleanup:
    spx__free(head);
    if (st == SPX_OK && R->h.array)
        st = spx__error(SPX_ERR_UNSUPPORTED, "%s: array files are not read in parallel (read with "
                        "spx_matrix_read and use spx_dist_matrix_from_global)", R->path);
    return st;
}

/* This rank's slice of the entry section, whole lines. */
static spx_status read_slice(reader *R, FILE *f)
{
    spx_status st;
    int64_t body = (int64_t)R->h.body, span = R->fsize - body, s = body, e = R->fsize;
    if (R->rank > 0) SPX_TRY(line_start_from(f, R->path, body + spx__part_cut(span, R->size, R->rank), R->fsize, &s));
    if (R->rank + 1 < R->size)
        SPX_TRY(line_start_from(f, R->path, body + spx__part_cut(span, R->size, R->rank + 1), R->fsize, &e));
    R->len = (size_t)(e > s ? e - s : 0);
    SPX_TRY(spx__alloc((void **)&R->buf, R->len + 1 + SPX__MTX_PAD, 1, "file slice"));
    memset(R->buf + R->len, 0, 1 + SPX__MTX_PAD);
    R->buf[R->len] = '\n';
    if (R->len) SPX_TRY(read_bytes(f, R->path, s, R->len, R->buf));
cleanup:
    return st;
}

/* Lines and entry lines of the slice (the entry parser's rule: a line whose
 * first non-blank character is neither '\n' nor '%'). */
static void count_lines(const reader *R, int64_t *lines, int64_t *entries)
{
    *lines = *entries = 0;
    for (const char *p = R->buf, *end = R->buf + R->len; p < end; ++*lines) {
        const char *q = spx__mtx_skip_blank(p);
        *entries += *q != '\n' && *q != '%';
        p = (const char *)memchr(p, '\n', (size_t)(end - p) + 1) + 1;
    }
}

/* The line (from first_line) of the slice's k-th entry line, or -1. */
static int64_t entry_line(const reader *R, int64_t k, int64_t first_line)
{
    int64_t line = first_line;
    for (const char *p = R->buf, *end = R->buf + R->len; p < end; line++) {
        const char *q = spx__mtx_skip_blank(p);
        if (*q != '\n' && *q != '%' && k-- == 0) return line;
        p = (const char *)memchr(p, '\n', (size_t)(end - p) + 1) + 1;
    }
    return -1;
}

/* The file's entries against its size line, with the serial reader's
 * statuses and lines (io/mtx_entries.c): too many names the line of the
 * first entry past the promise; too few the file's last line, and is
 * SPX_ERR_MTX_TRUNCATED when the file lacks a final newline (only the slice
 * holding the file's end can). before and total: lines and entries before
 * this rank's slice and in the file; first_line: the slice's first. */
static spx_status check_count(const reader *R, const int64_t *before, const int64_t *total,
                              int64_t first_line)
{
    int64_t promised = R->h.entries, mine[2], all[2];
    if (total[1] == promised) return SPX_OK;
    mine[0] = total[1] > promised ? entry_line(R, promised - before[1], first_line) : -1;
    mine[1] = R->len > 0 && R->buf[R->len - 1] != '\n';
    int rc = MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, R->comm);
    if (rc != MPI_SUCCESS) return spx__dist_mpi(rc, "MPI_Allreduce (entry count)");
    if (total[1] > promised)
        return spx__error(SPX_ERR_MTX_TOO_MANY,
                          "%s: line %lld: more entries than the %lld the size line promised",
                          R->path, (long long)all[0], (long long)promised);
    return spx__error(all[1] ? SPX_ERR_MTX_TRUNCATED : SPX_ERR_MTX_TOO_FEW,
                      "%s: line %lld: file ends after %lld of %lld entries%s", R->path,
                      (long long)(R->h.body_line + total[0] - 1), (long long)total[1],
                      (long long)promised,
                      all[1] ? " without a final newline (truncated file)" : "");
}

/* Entries of the slice, mirrored per the symmetry, with their file order. */
static spx_status to_entries(reader *R, const spx__mtx_triplets *t, int64_t first)
{
    spx_status st;
    int sign = R->h.symmetry == SPX__MTX_GENERAL ? 0 : R->h.symmetry == SPX__MTX_SKEW ? -1 : 1;
    int64_t n = 0;
    for (int64_t k = 0; k < t->n; k++) n += 1 + (sign && t->ri[k] != t->ci[k]);
    SPX_TRY(spx__alloc((void **)&R->e, (size_t)n, sizeof *R->e, "entries"));
    R->n = 0;
    for (int64_t k = 0; k < t->n; k++) {
        int64_t i = t->ri[k], j = t->ci[k];
        double v = t->v ? t->v[k] : 1.0;
        R->e[R->n++] = (entry){R->pcsc ? j : i, R->pcsc ? i : j, first + k, v};
        if (sign && i != j) R->e[R->n++] = (entry){R->pcsc ? i : j, R->pcsc ? j : i, first + k, sign * v};
    }
cleanup:
    return st;
}

/* Step 1: header, slice, entries, and the file's entry count checked. */
static spx_status parse_slice(reader *R)
{
    spx_status st = SPX_OK;
    spx__mtx_triplets t = {0, NULL, NULL, NULL};
    int64_t mine[2] = {0, 0}, before[2] = {0, 0}, total[2];
    spx_partition kind = R->pcsc ? SPX_PART_PCSC : SPX_PART_PCSR;
    if (spx__io_has_suffix(R->path, ".gz")) {
        SPX_TRY(spx__dist_gz_slices(R->comm, R->path, kind, &R->h, &R->buf, &R->len));
    } else {
        FILE *f = fopen(R->path, "rb");
        if (!f) st = spx__error(SPX_ERR_IO, "%s: cannot open", R->path);
        if (st == SPX_OK && (fseeko(f, 0, SEEK_END) != 0 || (R->fsize = (int64_t)ftello(f)) < 0))
            st = spx__error(SPX_ERR_IO, "%s: cannot find its size", R->path);
        if (st == SPX_OK) st = read_header(R, f);
        if (st == SPX_OK) st = spx__dist_check_shape(R->size, kind, R->h.rows, R->h.cols);
        if (st == SPX_OK) st = read_slice(R, f);
        if (f) fclose(f);
        SPX_TRY(spx__dist_agree(R->comm, st));
    }
    count_lines(R, &mine[0], &mine[1]);
    SPX__MPI_TRY(MPI_Exscan(mine, before, 2, MPI_INT64_T, MPI_SUM, R->comm));
    if (R->rank == 0) before[0] = before[1] = 0;
    spx__mtx_header h = R->h;
    h.body = 0;
    h.body_line = R->h.body_line + before[0];
    h.entries = mine[1];
    st = spx__mtx_entries_parse(R->path, R->buf, R->len, &h, &t);
    if (st == SPX_OK) st = to_entries(R, &t, before[1]);
    SPX_TRY(spx__dist_agree(R->comm, st));
    SPX__MPI_TRY(MPI_Allreduce(mine, total, 2, MPI_INT64_T, MPI_SUM, R->comm));
    st = check_count(R, before, total, h.body_line);
cleanup:
    spx__mtx_triplets_free(&t);
    spx__free(R->buf);
    R->buf = NULL;
    return st;
}

/* Send every entry to rank dest[k] (any order) and keep what arrives,
 * grouped by source rank in rank order, each group in its sender's order. */
static spx_status shuffle(reader *R, const int *dest)
{
    spx_status st;
    int *cnt = NULL;
    entry *out = NULL, *in = NULL;
    int64_t total_in = 0;
    st = spx__calloc((void **)&cnt, 4 * (size_t)R->size, sizeof *cnt, "shuffle counts");
    if (st == SPX_OK) st = spx__alloc((void **)&out, (size_t)R->n, sizeof *out, "entries sent");
    SPX_TRY(spx__dist_agree(R->comm, st));
    int *cnt_in = cnt + R->size, *dsp = cnt_in + R->size, *dsp_in = dsp + R->size;
    for (int64_t k = 0; k < R->n; k++) cnt[dest[k]]++;
    for (int q = 0, at = 0; q < R->size; q++) dsp[q] = at, at += cnt[q];
    for (int64_t k = 0; k < R->n; k++) out[dsp[dest[k]]++] = R->e[k];
    for (int q = 0, at = 0; q < R->size; q++) dsp[q] = at, at += cnt[q];
    SPX__MPI_TRY(MPI_Alltoall(cnt, 1, MPI_INT, cnt_in, 1, MPI_INT, R->comm));
    for (int q = 0; q < R->size; q++) total_in += cnt_in[q];
    st = total_in > INT_MAX ? spx__error(SPX_ERR_OVERFLOW, "%lld entries for one rank exceed an MPI "
                                         "count", (long long)total_in)
                            : spx__alloc((void **)&in, (size_t)total_in, sizeof *in, "entries received");
    SPX_TRY(spx__dist_agree(R->comm, st));
    for (int q = 0, at = 0; q < R->size; q++) dsp_in[q] = at, at += cnt_in[q];
    SPX__MPI_TRY(MPI_Alltoallv(out, cnt, dsp, R->type, in, cnt_in, dsp_in, R->type, R->comm));
    spx__free(R->e);
    R->e = in;
    R->n = total_in;
    in = NULL;
cleanup:
    spx__free(cnt);
    spx__free(out);
    spx__free(in);
    return st;
}

static int by_line_other_seq(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->other != y->other) return x->other < y->other ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Step 2: entries to the owners of equal line blocks, sorted, duplicates summed. */
static spx_status gather_lines(reader *R)
{
    int *dest = NULL;
    spx_status st = spx__alloc((void **)&dest, (size_t)R->n, sizeof *dest, "entry owners");
    for (int64_t k = 0; st == SPX_OK && k < R->n; k++) {
        int q = (int)((double)R->e[k].line * R->size / (double)(R->lines ? R->lines : 1));
        while (q > 0 && R->e[k].line < spx__part_cut(R->lines, R->size, q)) q--;
        while (q + 1 < R->size && R->e[k].line >= spx__part_cut(R->lines, R->size, q + 1)) q++;
        dest[k] = q;
    }
    SPX_TRY(spx__dist_agree(R->comm, st));
    SPX_TRY(shuffle(R, dest));
    qsort(R->e, (size_t)R->n, sizeof *R->e, by_line_other_seq);
    int64_t kept = 0;
    for (int64_t k = 0; k < R->n; k++) {
        if (kept > 0 && R->e[kept - 1].line == R->e[k].line && R->e[kept - 1].other == R->e[k].other)
            R->e[kept - 1].v += R->e[k].v;
        else
            R->e[kept++] = R->e[k];
    }
    R->n = kept;
cleanup:
    spx__free(dest);
    return st;
}

/* Step 3: every line's count, all-gathered into the offsets of the lines. */
static spx_status line_offsets(reader *R, spx_matrix *shape)
{
    spx_status st;
    int *cnt = NULL;
    int64_t lo = spx__part_cut(R->lines, R->size, R->rank);
    int64_t *mine = NULL;
    st = spx__calloc((void **)&mine, (size_t)(spx__part_cut(R->lines, R->size, R->rank + 1) - lo), sizeof *mine, "line counts");
    if (st == SPX_OK) st = spx__alloc((void **)&cnt, 2 * (size_t)R->size, sizeof *cnt, "line blocks");
    if (st == SPX_OK) st = spx__calloc((void **)&shape->rowptr, (size_t)R->lines + 1, sizeof(int64_t), "line offsets");
    if (st == SPX_OK && R->lines > INT_MAX) st = spx__error(SPX_ERR_OVERFLOW, "too many lines for MPI counts");
    SPX_TRY(spx__dist_agree(R->comm, st));
    for (int64_t k = 0; k < R->n; k++) mine[R->e[k].line - lo]++;
    for (int q = 0; q < R->size; q++) {
        cnt[q] = (int)(spx__part_cut(R->lines, R->size, q + 1) - spx__part_cut(R->lines, R->size, q));
        cnt[R->size + q] = (int)spx__part_cut(R->lines, R->size, q);
    }
    SPX__MPI_TRY(MPI_Allgatherv(mine, cnt[R->rank], MPI_INT64_T, shape->rowptr + 1, cnt,
                                cnt + R->size, MPI_INT64_T, R->comm));
    for (int64_t i = 0; i < R->lines; i++) shape->rowptr[i + 1] += shape->rowptr[i];
    shape->rows = R->lines;
    shape->nnz = shape->rowptr[R->lines];
cleanup:
    spx__free(mine);
    spx__free(cnt);
    return st;
}

/* Step 4: entries to the ranks holding their positions; this rank's part. */
static spx_status scatter_parts(reader *R, const spx_matrix *shape, spx_dist_matrix *D)
{
    int *dest = NULL;
    spx__part *all = NULL;
    spx_partition cut = D->kind == SPX_PART_PCOO ? SPX_PART_PCSR : D->kind;
    spx_status st = spx__alloc((void **)&all, (size_t)R->size, sizeof *all, "parts");
    if (st == SPX_OK) st = spx__alloc((void **)&dest, (size_t)R->n, sizeof *dest, "entry owners");
    for (int q = 0; st == SPX_OK && q < R->size; q++) spx__part_bounds(shape, NULL, cut, R->size, q, &all[q]);
    for (int64_t k = 0, q = 0, prev = -1, at = 0; st == SPX_OK && k < R->n; k++) {
        at = R->e[k].line == prev ? at + 1 : shape->rowptr[R->e[k].line];
        prev = R->e[k].line;
        while (q > 0 && at < all[q].nz_begin) q--;
        while (at >= all[q].nz_end) q++;
        dest[k] = (int)q;
    }
    if (st == SPX_OK) D->part = all[R->rank];
    SPX_TRY(spx__dist_agree(R->comm, st));
    SPX_TRY(shuffle(R, dest));
cleanup:
    spx__free(dest);
    spx__free(all);
    return st;
}

/* The part's lines as a CSR of their own (global other indices). */
static spx_status build_part(reader *R, spx_dist_matrix *D)
{
    spx__part *p = &D->part;
    spx_matrix *v = NULL;
    int64_t n = p->line_end - p->line_begin;
    spx_status st = spx__matrix_alloc(n, R->pcsc ? R->h.rows : R->h.cols, R->n, SPX_F64, &v);
    if (st != SPX_OK) return st;
    memset(v->rowptr, 0, sizeof *v->rowptr * (size_t)(n + 1));
    for (int64_t k = 0; k < R->n; k++) {
        v->rowptr[R->e[k].line - p->line_begin + 1]++;
        if (v->col_bits == 32)
            v->col32[k] = (int32_t)R->e[k].other;
        else
            v->col64[k] = R->e[k].other;
        ((double *)v->values)[k] = R->e[k].v;
    }
    for (int64_t i = 0; i < n; i++) v->rowptr[i + 1] += v->rowptr[i];
    p->view = v;
    p->ptr = NULL;
    return SPX_OK;
}

spx_status spx_dist_read_mtx(MPI_Comm comm, const char *path, spx_partition kind, spx_dist_matrix **out)
{
    reader R;
    spx_matrix shape;
    spx_dist_matrix *D = NULL;
    memset(&R, 0, sizeof R);
    memset(&shape, 0, sizeof shape);
    R.type = MPI_DATATYPE_NULL;
    if (comm == MPI_COMM_NULL) return spx__error(SPX_ERR_INVALID_ARG, "communicator is MPI_COMM_NULL");
    spx_status st = !out || !path ? spx__error(SPX_ERR_INVALID_ARG, "spx_dist_read_mtx: NULL argument")
                                  : (unsigned)kind > (unsigned)SPX_PART_ROWS
                                        ? spx__error(SPX_ERR_INVALID_ARG, "unknown partition kind %d", (int)kind)
                                        : SPX_OK;
    if (out) *out = NULL;
    SPX_TRY(spx__dist_agree(comm, st));
    SPX_TRY(spx__dist_matrix_new(comm, kind, 0, 0, 0, &D));
    R.comm = D->comm;
    R.rank = D->rank;
    R.size = D->size;
    R.pcsc = kind == SPX_PART_PCSC;
    R.path = path;
    SPX__MPI_TRY(MPI_Type_contiguous((int)sizeof(entry), MPI_BYTE, &R.type));
    SPX__MPI_TRY(MPI_Type_commit(&R.type));
    SPX_TRY(parse_slice(&R));
    R.lines = R.pcsc ? R.h.cols : R.h.rows;
    SPX_TRY(gather_lines(&R));
    SPX_TRY(line_offsets(&R, &shape));
    SPX_TRY(scatter_parts(&R, &shape, D));
    st = build_part(&R, D);
    D->rows = R.h.rows;
    D->cols = R.h.cols;
    D->nnz = shape.nnz;
    if (st == SPX_OK) st = spx__dist_ranges(D);
    SPX_TRY(spx__dist_agree(D->comm, st));
    *out = D;
    D = NULL;
    spx__clear_error();
cleanup:
    if (R.type != MPI_DATATYPE_NULL) MPI_Type_free(&R.type);
    spx__free(R.e);
    spx__free(shape.rowptr);
    spx_dist_matrix_destroy(D);
    return st;
}
