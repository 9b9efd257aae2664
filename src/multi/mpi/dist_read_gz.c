/* spx_dist_read_mtx of a gzip file (dist.h): the stream cannot be entered
 * in the middle, so rank 0 inflates it, once to learn its size and check
 * it (a cut or corrupt stream fails here, before any parsing, as in the
 * serial reader: io/file_load.c), then again to cut the entry section into
 * one slice of whole lines per rank, in rank order, each sent as it is
 * complete. Rank 0 holds its own slice and the one it is filling, never the
 * whole file (but for a header it cannot parse, read whole as the plain
 * reader does). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "io/mtx.h"
#include "io/mtx_number.h"
#include "multi/mpi/dist.h"

#ifndef SPX_HAVE_ZLIB
spx_status spx__dist_gz_slices(MPI_Comm comm, const char *path, spx_partition kind,
                               spx__mtx_header *h, char **buf, size_t *len)
{
    (void)kind, (void)h, (void)buf, (void)len;
    return spx__dist_agree(
        comm, spx__error(SPX_ERR_NOT_COMPILED, "%s: SpX was built without zlib", path));
}
#else
#include <zlib.h>

enum { TAG_LEN = 7311, TAG_BYTES = 7312 };
#define CHUNK ((size_t)1 << 20)   /* bytes inflated at a time */
#define MSG_MAX ((size_t)1 << 30) /* bytes a message, under MPI's int count */

/* Pass 1 (rank 0): the inflated size, checked as the serial reader does. */
static spx_status gz_size(const char *path, int64_t *size)
{
    spx_status st = SPX_OK;
    char *chunk = NULL;
    int64_t lines = 1, n = 0;
    int err = Z_OK;
    gzFile gz = gzopen(path, "rb");
    if (!gz) return spx__error(SPX_ERR_IO, "%s: cannot open", path);
    gzbuffer(gz, 1u << 18);
    SPX_TRY(spx__alloc((void **)&chunk, CHUNK, 1, "inflated chunk"));
    for (int got; (got = gzread(gz, chunk, (unsigned)CHUNK)) > 0; n += got)
        for (int i = 0; i < got; i++)
            lines += chunk[i] == '\n';
    const char *msg = gzerror(gz, &err);
    if (err == Z_BUF_ERROR)
        st = spx__error(SPX_ERR_MTX_TRUNCATED,
                        "%s: line %lld: compressed stream ends early (truncated file)", path,
                        (long long)lines);
    else if (err != Z_OK && err != Z_STREAM_END)
        st = spx__error(SPX_ERR_IO, "%s: line %lld: zlib: %s", path, (long long)lines, msg);
    *size = n;
cleanup:
    spx__free(chunk);
    gzclose(gz);
    return st;
}

/* The first n inflated bytes into buf (sentinel and padding after them). */
static spx_status gz_prefix(gzFile gz, const char *path, size_t n, char *buf)
{
    size_t got = 0;
    if (gzrewind(gz) != 0) return spx__error(SPX_ERR_IO, "%s: cannot rewind the stream", path);
    while (got < n) {
        size_t want = n - got < CHUNK ? n - got : CHUNK;
        int r = gzread(gz, buf + got, (unsigned)want);
        if (r <= 0) return spx__error(SPX_ERR_IO, "%s: the stream changed while read", path);
        got += (size_t)r;
    }
    memset(buf + n, 0, 1 + SPX__MTX_PAD);
    buf[n] = '\n';
    return SPX_OK;
}

/* Rank 0: the header from a growing prefix, as read_header does for a
 * plain file. */
static spx_status read_gz_header(gzFile gz, const char *path, int64_t size, spx__mtx_header *h)
{
    spx_status st = SPX_OK;
    char *head = NULL;
    for (int64_t want = 1 << 16;; want *= 16) {
        size_t n = (size_t)(want < size ? want : size);
        SPX_TRY(spx__alloc((void **)&head, n + 1 + SPX__MTX_PAD, 1, "Matrix Market header"));
        SPX_TRY(gz_prefix(gz, path, n, head));
        st = spx__mtx_header_parse(path, head, n, h);
        if (st == SPX_OK || (int64_t)n == size) break;
        spx__free(head);
        head = NULL;
    }
    if (st == SPX_OK && h->array)
        st = spx__error(SPX_ERR_UNSUPPORTED,
                        "%s: array files are not read in parallel (read with "
                        "spx_matrix_read and use spx_dist_matrix_from_global)",
                        path);
cleanup:
    spx__free(head);
    return st;
}

/* A slice of n bytes (n < 0: rank 0 failed) to rank r, in pieces. */
static spx_status send_slice(MPI_Comm comm, int r, const char *buf, int64_t n)
{
    spx_status st = spx__dist_mpi(MPI_Send(&n, 1, MPI_INT64_T, r, TAG_LEN, comm), "MPI_Send");
    for (int64_t at = 0; st == SPX_OK && at < n; at += (int64_t)MSG_MAX) {
        int k = (int)(n - at < (int64_t)MSG_MAX ? n - at : (int64_t)MSG_MAX);
        st = spx__dist_mpi(MPI_Send(buf + at, k, MPI_BYTE, r, TAG_BYTES, comm), "MPI_Send");
    }
    return st;
}

static spx_status recv_slice(MPI_Comm comm, char **buf, size_t *len)
{
    int64_t n = 0;
    spx_status st = spx__dist_mpi(MPI_Recv(&n, 1, MPI_INT64_T, 0, TAG_LEN, comm, MPI_STATUS_IGNORE),
                                  "MPI_Recv");
    if (st == SPX_OK && n < 0)
        st = spx__error(SPX_ERR_IO, "rank 0 could not send this rank's slice");
    if (st == SPX_OK) st = spx__alloc((void **)buf, (size_t)n + 1 + SPX__MTX_PAD, 1, "file slice");
    for (int64_t at = 0; st == SPX_OK && at < n; at += (int64_t)MSG_MAX) {
        int k = (int)(n - at < (int64_t)MSG_MAX ? n - at : (int64_t)MSG_MAX);
        st = spx__dist_mpi(MPI_Recv(*buf + at, k, MPI_BYTE, 0, TAG_BYTES, comm, MPI_STATUS_IGNORE),
                           "MPI_Recv");
    }
    if (st == SPX_OK) {
        memset(*buf + n, 0, 1 + SPX__MTX_PAD);
        (*buf)[n] = '\n';
        *len = (size_t)n;
    }
    return st;
}

/* A growing byte buffer. */
typedef struct bytes {
    char *b;
    size_t n, cap;
} bytes;

static spx_status put(bytes *s, const char *p, size_t n)
{
    if (s->n + n > s->cap) {
        size_t cap = s->cap ? s->cap : CHUNK;
        while (cap < s->n + n)
            cap *= 2;
        char *b = NULL;
        spx_status st = spx__alloc((void **)&b, cap + 1 + SPX__MTX_PAD, 1, "file slice");
        if (st != SPX_OK) return st;
        if (s->n) memcpy(b, s->b, s->n);
        spx__free(s->b);
        s->b = b;
        s->cap = cap;
    }
    memcpy(s->b + s->n, p, n);
    s->n += n;
    return SPX_OK;
}

/* Slice r done: kept in *mine (r == 0) or sent to rank r; *cur emptied. */
static spx_status finish(MPI_Comm comm, int r, bytes *cur, bytes *mine)
{
    spx_status st = SPX_OK;
    if (r == 0) {
        *mine = *cur;
    } else {
        st = send_slice(comm, r, cur->b ? cur->b : "", (int64_t)cur->n);
        spx__free(cur->b);
    }
    *cur = (bytes){NULL, 0, 0};
    return st;
}

/* Rank 0, pass 2: slice r holds the lines from the first line start at or
 * after cut(r) to the first at or after cut(r + 1) (cut: spx__part_cut of
 * the entry section's bytes, as read_slice cuts a plain file); each slice
 * goes to its rank once complete, slice 0 kept in *mine. */
static spx_status gz_cut(gzFile gz, MPI_Comm comm, int size, const char *path, int64_t fsize,
                         const spx__mtx_header *h, bytes *mine)
{
    spx_status st = SPX_OK;
    bytes cur = {NULL, 0, 0};
    char *chunk = NULL, last = '\n'; /* the byte before the entry section ends the size line */
    int r = 0;
    int64_t span = fsize - (int64_t)h->body, at = 0; /* at: entry-section bytes passed */
    SPX_TRY(spx__alloc((void **)&chunk, CHUNK, 1, "inflated chunk"));
    if (gzrewind(gz) != 0 || gzseek(gz, (z_off_t)h->body, SEEK_SET) < 0)
        SPX_TRY(spx__error(SPX_ERR_IO, "%s: cannot reach the entries in the stream", path));
    for (int got; (got = gzread(gz, chunk, (unsigned)CHUNK)) > 0;) {
        const char *p = chunk, *end = chunk + got;
        while (p < end) {
            int64_t cut = r + 1 < size ? spx__part_cut(span, size, r + 1) : INT64_MAX;
            if (at >= cut && last == '\n') { /* a line starts here: slice r ends */
                SPX_TRY(finish(comm, r++, &cur, mine));
                continue;
            }
            /* the first '\n' at or after body byte cut - 1 ends slice r after it */
            int64_t from = cut == INT64_MAX ? end - p : cut > at ? cut - at - 1 : 0;
            const char *nl =
                from < end - p ? memchr(p + from, '\n', (size_t)(end - p - from)) : NULL;
            const char *stop = nl ? nl + 1 : end;
            SPX_TRY(put(&cur, p, (size_t)(stop - p)));
            at += stop - p;
            last = stop[-1];
            p = stop;
            if (nl) SPX_TRY(finish(comm, r++, &cur, mine));
        }
    }
    for (; r < size; r++) /* the last slice, and empty ones past the file's end */
        SPX_TRY(finish(comm, r, &cur, mine));
cleanup:
    for (r += r == 0; st != SPX_OK && r < size;
         r++) /* nobody waits for a slice that will not come */
        send_slice(comm, r, NULL, -1);
    spx__free(cur.b);
    spx__free(chunk);
    return st;
}

spx_status spx__dist_gz_slices(MPI_Comm comm, const char *path, spx_partition kind,
                               spx__mtx_header *h, char **buf, size_t *len)
{
    int rank = 0, size = 1;
    int64_t fsize = 0;
    gzFile gz = NULL;
    bytes mine = {NULL, 0, 0};
    spx_status st = SPX_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        st = gz_size(path, &fsize);
        if (st == SPX_OK && !(gz = gzopen(path, "rb")))
            st = spx__error(SPX_ERR_IO, "%s: cannot open", path);
        if (st == SPX_OK) gzbuffer(gz, 1u << 18);
        if (st == SPX_OK) st = read_gz_header(gz, path, fsize, h);
    }
    SPX_TRY(spx__dist_agree(comm, st));
    SPX_TRY(spx__dist_mpi(MPI_Bcast(h, (int)sizeof *h, MPI_BYTE, 0, comm), "MPI_Bcast"));
    SPX_TRY(spx__dist_agree(comm, spx__dist_check_shape(size, kind, h->rows, h->cols)));
    if (rank == 0) {
        st = gz_cut(gz, comm, size, path, fsize, h, &mine);
        if (st == SPX_OK && !mine.b) /* an empty slice, allocated */
            st = spx__alloc((void **)&mine.b, 1 + SPX__MTX_PAD, 1, "file slice");
        if (st == SPX_OK) {
            memset(mine.b + mine.n, 0, 1 + SPX__MTX_PAD);
            mine.b[mine.n] = '\n';
            *buf = mine.b;
            *len = mine.n;
            mine.b = NULL;
        }
    } else {
        st = recv_slice(comm, buf, len);
    }
    st = spx__dist_agree(comm, st);
cleanup:
    spx__free(mine.b);
    if (gz) gzclose(gz);
    return st;
}
#endif
