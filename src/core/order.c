/* Symmetric orderings of a square matrix (contract in order.h).
 *
 * RCM: G is the pattern of A + A^T without the diagonal, in CSR with sorted
 * neighbours (A's rows are sorted, and so are those of A^T built by a counting
 * sort; a merge gives their union). Components are taken in the order of
 * their lowest unnumbered vertex. In each, the start is pseudo-peripheral
 * (George and Liu): from the component's vertex of least degree, breadth-first
 * levels are built again from a vertex of least degree in the last level as
 * long as the number of levels grows. Cuthill-McKee then numbers breadth
 * first, the unnumbered neighbours of each vertex by increasing degree (ties
 * by index), and the whole sequence is reversed at the end.
 *
 * Degree: vertices by decreasing degree = entries in row i plus entries in
 * column i of A (the diagonal counts twice), ties by increasing index (a
 * stable counting sort). On a symmetric pattern this is the row length order.
 *
 * Permute: row k of B = P A P^T is row perm[k] of A; its renamed columns are
 * sorted as 64-bit keys (new column << 32 | position in the row), which carry
 * each value along.
 */
#include "core/order.h"

#include <limits.h>
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"

/* At most this many level structures after the first per component. */
#define ORDER_PERIPHERAL_ROUNDS 8
/* Keys up to this many are insertion-sorted. */
#define ORDER_SMALL_SORT 24
/* Column counts from this many entries on (spx__column_counts): each
 * thread counts its own range of columns over every entry, so its counters
 * stay in its cache where one thread's random increments over all of them
 * missed it (R-MAT 20's degree order: 147 ms on one core of the H100
 * machine, run CT). */
#define ORDER_PARALLEL_NNZ 1000000

typedef struct order_graph {
    int64_t n;
    int64_t *ptr; /* n+1 offsets */
    int32_t *adj; /* ptr[n] neighbours, sorted per vertex, no self loops */
} order_graph;

/* Work arrays of the breadth-first searches, n entries each. */
typedef struct order_bfs {
    int64_t *queue;
    uint8_t *mark; /* stamp of the last search that reached the vertex: 1 byte, so */
    uint8_t stamp; /* that n marks stay in a core's L2 longer; cleared on wrap */
    uint8_t *numbered;
    uint64_t *keys; /* (degree << 32 | vertex) of one vertex's new neighbours */
} order_bfs;

spx_status spx__order_parse(const char *value, spx__order_mode *mode)
{
    static const spx__order_mode modes[] = {SPX__ORDER_NONE, SPX__ORDER_RCM, SPX__ORDER_DEGREE};
    for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++) {
        if (strcmp(value, spx__order_name(modes[k])) == 0) {
            *mode = modes[k];
            return SPX_OK;
        }
    }
    return spx__error(SPX_ERR_BAD_PARAM, "reorder=%s is not rcm, degree or none", value);
}

const char *spx__order_name(spx__order_mode mode)
{
    return mode == SPX__ORDER_RCM ? "rcm" : mode == SPX__ORDER_DEGREE ? "degree" : "none";
}

static spx_status check_orderable(const spx_matrix *A)
{
    if (A->rows != A->cols)
        return spx__error(SPX_ERR_BAD_PARAM, "reorder needs a square matrix, not %lld x %lld",
                          (long long)A->rows, (long long)A->cols);
    if (A->rows > INT32_MAX)
        return spx__error(SPX_ERR_UNSUPPORTED, "reorder handles fewer than 2^31 rows, not %lld",
                          (long long)A->rows);
    return SPX_OK;
}

static int omp_threads(int threads)
{
    return threads > 0 ? threads : omp_get_max_threads();
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
    return a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
}

/* k[0..n) ascending (keys are distinct): quicksort (Hoare partition around a
 * median of three, recursion on the smaller part only) down to insertion
 * sort. No callbacks and no allocation, unlike qsort. */
static void sort_keys(uint64_t *k, int64_t n)
{
    while (n > ORDER_SMALL_SORT) {
        const uint64_t pivot = median3(k[0], k[n / 2], k[n - 1]);
        int64_t i = -1, j = n;
        for (;;) {
            do
                i++;
            while (k[i] < pivot);
            do
                j--;
            while (k[j] > pivot);
            if (i >= j) break;
            uint64_t t = k[i];
            k[i] = k[j];
            k[j] = t;
        }
        if (j + 1 < n - j - 1) { /* [0, j] is the smaller part */
            sort_keys(k, j + 1);
            k += j + 1;
            n -= j + 1;
        } else {
            sort_keys(k + j + 1, n - j - 1);
            n = j + 1;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        uint64_t v = k[i];
        int64_t j = i;
        for (; j > 0 && k[j - 1] > v; j--)
            k[j] = k[j - 1];
        k[j] = v;
    }
}

/* The pattern of A^T: tptr (n+1) and tidx (nnz), rows sorted. */
static spx_status pattern_transpose(const spx_matrix *A, int64_t **tptr, int32_t **tidx)
{
    const int64_t n = A->rows;
    spx_status st;
    SPX_TRY(spx__calloc((void **)tptr, (size_t)n + 1, sizeof **tptr, "reorder: A^T offsets"));
    SPX_TRY(spx__alloc((void **)tidx, (size_t)A->nnz, sizeof **tidx, "reorder: A^T pattern"));
    int64_t *p = *tptr;
    for (int64_t k = 0; k < A->nnz; k++)
        p[A->col32[k] + 1]++;
    for (int64_t c = 0; c < n; c++)
        p[c + 1] += p[c];
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++)
            (*tidx)[p[A->col32[k]]++] = (int32_t)i;
    for (int64_t c = n; c > 0; c--)
        p[c] = p[c - 1];
    p[0] = 0;
cleanup:
    return st;
}

/* The union of sorted lists a and b without skip, into out (NULL: count only). */
static int64_t merge_row(const int32_t *a, int64_t na, const int32_t *b, int64_t nb, int32_t skip,
                         int32_t *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int32_t v = j >= nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
        if (i < na && a[i] == v) i++;
        if (j < nb && b[j] == v) j++;
        if (v == skip) continue;
        if (out) out[n] = v;
        n++;
    }
    return n;
}

/* G = pattern of A + A^T without the diagonal. */
static spx_status graph_build(const spx_matrix *A, int threads, order_graph *g)
{
    const int64_t n = A->rows;
    int64_t *tptr = NULL;
    int32_t *tidx = NULL;
    spx_status st;
    g->n = n;
    SPX_TRY(pattern_transpose(A, &tptr, &tidx));
    SPX_TRY(spx__calloc((void **)&g->ptr, (size_t)n + 1, sizeof *g->ptr, "reorder: graph offsets"));
#pragma omp parallel for schedule(dynamic, 4096) num_threads(omp_threads(threads))
    for (int64_t i = 0; i < n; i++)
        g->ptr[i + 1] =
            merge_row(A->col32 + spx__row_off(A, i), spx__row_off(A, i + 1) - spx__row_off(A, i),
                      tidx + tptr[i], tptr[i + 1] - tptr[i], (int32_t)i, NULL);
    for (int64_t i = 0; i < n; i++)
        g->ptr[i + 1] += g->ptr[i];
    SPX_TRY(spx__alloc((void **)&g->adj, (size_t)g->ptr[n], sizeof *g->adj, "reorder: graph"));
#pragma omp parallel for schedule(dynamic, 4096) num_threads(omp_threads(threads))
    for (int64_t i = 0; i < n; i++)
        merge_row(A->col32 + spx__row_off(A, i), spx__row_off(A, i + 1) - spx__row_off(A, i),
                  tidx + tptr[i], tptr[i + 1] - tptr[i], (int32_t)i, g->adj + g->ptr[i]);
cleanup:
    spx__free(tptr);
    spx__free(tidx);
    return st;
}

static int64_t degree(const order_graph *g, int64_t v)
{
    return g->ptr[v + 1] - g->ptr[v];
}

/* Breadth-first levels from root: returns the number of levels; the search
 * reaches root's component, left in queue[0..*size), its last level from
 * queue[*last]. */
static int64_t bfs_levels(const order_graph *g, int64_t root, order_bfs *w, int64_t *last,
                          int64_t *size)
{
    if (w->stamp == UINT8_MAX) {
        memset(w->mark, 0, (size_t)g->n);
        w->stamp = 0;
    }
    const uint8_t stamp = ++w->stamp;
    int64_t head = 0, tail = 0, levels = 0;
    w->queue[tail++] = root;
    w->mark[root] = stamp;
    while (head < tail) {
        int64_t end = tail;
        *last = head;
        for (; head < end; head++) {
            int64_t u = w->queue[head];
            for (int64_t k = g->ptr[u]; k < g->ptr[u + 1]; k++) {
                int64_t v = g->adj[k];
                if (w->mark[v] == stamp) continue;
                w->mark[v] = stamp;
                w->queue[tail++] = v;
            }
        }
        levels++;
    }
    *size = tail;
    return levels;
}

/* The vertex of least degree (then least index) in queue[from..to). */
static int64_t least_degree(const order_graph *g, const int64_t *queue, int64_t from, int64_t to)
{
    int64_t best = queue[from];
    for (int64_t k = from + 1; k < to; k++) {
        int64_t v = queue[k], dv = degree(g, v), db = degree(g, best);
        if (dv < db || (dv == db && v < best)) best = v;
    }
    return best;
}

/* A pseudo-peripheral vertex of the component of v. */
static int64_t peripheral(const order_graph *g, int64_t v, order_bfs *w)
{
    int64_t last, size;
    bfs_levels(g, v, w, &last, &size);
    int64_t root = least_degree(g, w->queue, 0, size);
    int64_t levels = bfs_levels(g, root, w, &last, &size);
    for (int r = 0; r < ORDER_PERIPHERAL_ROUNDS; r++) {
        int64_t cand = least_degree(g, w->queue, last, size);
        int64_t cand_levels = bfs_levels(g, cand, w, &last, &size);
        if (cand_levels <= levels) break;
        root = cand;
        levels = cand_levels;
    }
    return root;
}

/* Cuthill-McKee numbering of root's component into order[pos..]; returns the
 * next free position. */
static int64_t cuthill_mckee(const order_graph *g, int64_t root, order_bfs *w, int64_t *order,
                             int64_t pos)
{
    int64_t head = pos;
    order[pos++] = root;
    w->numbered[root] = 1;
    while (head < pos) {
        int64_t u = order[head++], nk = 0;
        for (int64_t k = g->ptr[u]; k < g->ptr[u + 1]; k++) {
            int64_t v = g->adj[k];
            if (w->numbered[v]) continue;
            w->numbered[v] = 1;
            w->keys[nk++] = (uint64_t)degree(g, v) << 32 | (uint64_t)v;
        }
        sort_keys(w->keys, nk);
        for (int64_t j = 0; j < nk; j++)
            order[pos++] = (int64_t)(w->keys[j] & 0xffffffffu);
    }
    return pos;
}

static spx_status order_rcm(const spx_matrix *A, int threads, int64_t *perm)
{
    const int64_t n = A->rows;
    order_graph g = {0, NULL, NULL};
    order_bfs w = {NULL, NULL, 0, NULL, NULL};
    spx_status st;
    SPX_TRY(graph_build(A, threads, &g));
    SPX_TRY(spx__alloc((void **)&w.queue, (size_t)n, sizeof *w.queue, "reorder: queue"));
    SPX_TRY(spx__calloc((void **)&w.mark, (size_t)n, 1, "reorder: marks"));
    SPX_TRY(spx__calloc((void **)&w.numbered, (size_t)n, 1, "reorder: numbered flags"));
    SPX_TRY(spx__alloc((void **)&w.keys, (size_t)n, sizeof *w.keys, "reorder: sort keys"));
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        if (w.numbered[i]) continue;
        int64_t root = degree(&g, i) == 0 ? i : peripheral(&g, i, &w);
        pos = cuthill_mckee(&g, root, &w, perm, pos);
    }
    for (int64_t k = 0; k < n / 2; k++) {
        int64_t t = perm[k];
        perm[k] = perm[n - 1 - k];
        perm[n - 1 - k] = t;
    }
cleanup:
    spx__free(g.ptr);
    spx__free(g.adj);
    spx__free(w.queue);
    spx__free(w.mark);
    spx__free(w.numbered);
    spx__free(w.keys);
    return st;
}

void spx__column_counts(const spx_matrix *A, int threads, int64_t *count)
{
    const int64_t n = A->cols, nnz = A->nnz;
    const int32_t *col = A->col32;
#pragma omp parallel num_threads(omp_threads(threads)) if (nnz >= ORDER_PARALLEL_NNZ)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        for (int64_t c = lo; c < hi; c++)
            count[c] = 0;
        for (int64_t k = 0; k < nnz; k++)
            if (col[k] >= lo && col[k] < hi) count[col[k]]++;
    }
}

/* The share of total entries, counted per column in count[0..cols), held
 * by the cols / 100 columns with the most: a histogram of the counts, read
 * from the most entries down; -1 when the histogram cannot be allocated. */
static double top_share(const int64_t *count, int64_t cols, int64_t total)
{
    int64_t *columns_of = NULL, most = 0;
    for (int64_t c = 0; c < cols; c++)
        most = count[c] > most ? count[c] : most;
    if (spx__calloc((void **)&columns_of, (size_t)most + 1, sizeof *columns_of,
                    "hot share: histogram") != SPX_OK)
        return -1.0;
    for (int64_t c = 0; c < cols; c++)
        columns_of[count[c]]++;
    int64_t want = cols / 100, taken = 0, entries = 0;
    for (int64_t d = most; d >= 0 && taken < want; d--) { /* columns by decreasing count */
        const int64_t t = columns_of[d] < want - taken ? columns_of[d] : want - taken;
        taken += t;
        entries += t * d;
    }
    spx__free(columns_of);
    return total ? (double)entries / (double)total : 0.0;
}

/* Entry k of A counted when k is a multiple of stride (1: every entry, on
 * threads; else one pass on this thread). */
static double hot_share_every(const spx_matrix *A, int threads, int64_t stride)
{
    int64_t *count = NULL, seen = 0;
    if (A->col_bits != 32 || A->dev.on) return -1.0;
    if (spx__calloc((void **)&count, (size_t)A->cols, sizeof *count, "hot share: column counts") !=
        SPX_OK)
        return -1.0;
    if (stride == 1) {
        spx__column_counts(A, threads, count);
        seen = A->nnz;
    } else {
        for (int64_t k = 0; k < A->nnz; k += stride, seen++)
            count[A->col32[k]]++;
    }
    const double share = top_share(count, A->cols, seen);
    spx__free(count);
    return share;
}

double spx__hot_share(const spx_matrix *A, int threads)
{
    return hot_share_every(A, threads, 1);
}

double spx__hot_share_sampled(const spx_matrix *A, int64_t samples)
{
    const int64_t stride = samples > 0 && A->nnz > samples ? (A->nnz + samples - 1) / samples : 1;
    return hot_share_every(A, 1, stride > 1 ? stride : 1);
}

static spx_status order_degree(const spx_matrix *A, int threads, int64_t *perm)
{
    const int64_t n = A->rows;
    int64_t *deg = NULL, *start = NULL, most = 0;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&deg, (size_t)n, sizeof *deg, "reorder: degrees"));
    spx__column_counts(A, threads, deg);
    for (int64_t i = 0; i < n; i++)
        deg[i] += spx__row_off(A, i + 1) - spx__row_off(A, i);
    for (int64_t i = 0; i < n; i++)
        most = deg[i] > most ? deg[i] : most;
    /* Bucket most - deg: decreasing degree; filled in index order (stable). */
    SPX_TRY(spx__calloc((void **)&start, (size_t)most + 2, sizeof *start, "reorder: buckets"));
    for (int64_t i = 0; i < n; i++)
        start[most - deg[i] + 1]++;
    for (int64_t b = 0; b <= most; b++)
        start[b + 1] += start[b];
    for (int64_t i = 0; i < n; i++)
        perm[start[most - deg[i]]++] = i;
cleanup:
    spx__free(deg);
    spx__free(start);
    return st;
}

spx_status spx__order_compute(const spx_matrix *A, spx__order_mode mode, int threads, int64_t *perm)
{
    spx_status st = check_orderable(A);
    if (st != SPX_OK) return st;
    if (mode == SPX__ORDER_RCM) return order_rcm(A, threads, perm);
    if (mode == SPX__ORDER_DEGREE) return order_degree(A, threads, perm);
    for (int64_t i = 0; i < A->rows; i++)
        perm[i] = i;
    return SPX_OK;
}

spx_status spx__order_check(const int64_t *perm, int64_t n)
{
    uint8_t *seen = NULL;
    spx_status st;
    SPX_TRY(spx__calloc((void **)&seen, (size_t)n, 1, "reorder: permutation check"));
    for (int64_t k = 0; k < n; k++) {
        if (perm[k] < 0 || perm[k] >= n || seen[perm[k]]) {
            st = spx__error(SPX_ERR_INVALID_ARG, "perm[%lld] = %lld is %s", (long long)k,
                            (long long)perm[k],
                            perm[k] < 0 || perm[k] >= n ? "out of range" : "repeated");
            goto cleanup;
        }
        seen[perm[k]] = 1;
    }
cleanup:
    spx__free(seen);
    return st;
}

/* Row k of B from row perm[k] of A: renamed columns sorted, values along;
 * key holds the row's sort keys (the calling thread's buffer); map, when
 * not NULL, gets each entry's place in B. */
static void permute_row(const spx_matrix *A, const int64_t *perm, const int64_t *inv, spx_matrix *B,
                        uint64_t *key, int32_t *map, int64_t k)
{
    const int64_t src = spx__row_off(A, perm[k]), len = spx__row_off(A, perm[k] + 1) - src;
    const int64_t dst = B->rowptr[k];
    for (int64_t j = 0; j < len; j++)
        key[j] = (uint64_t)inv[A->col32[src + j]] << 32 | (uint64_t)j;
    sort_keys(key, len);
    for (int64_t j = 0; j < len; j++) {
        const int64_t from = src + (int64_t)(key[j] & 0xffffffffu);
        B->col32[dst + j] = (int32_t)(key[j] >> 32);
        if (map) map[from] = (int32_t)(dst + j);
        if (A->vtype == SPX_F64)
            ((double *)B->values)[dst + j] = ((const double *)A->values)[from];
        else
            ((float *)B->values)[dst + j] = ((const float *)A->values)[from];
    }
}

/* The sort keys are one row's worth a thread, not nnz. Rows go to the
 * threads in chunks of PERMUTE_CHUNK: a degree order puts the longest rows
 * first, and chunks of 1024 rows gave R-MAT 20's first 1024 rows (its
 * hubs, a large share of its nonzeros) to one thread: 396 ms on the H100
 * machine's 16 cores (run CT, gpu-iso-2026-11-26c.md). */
#define PERMUTE_CHUNK 16
spx_status spx__order_permute(const spx_matrix *A, const int64_t *perm, int threads,
                              spx_matrix **out)
{
    return spx__order_permute_mapped(A, perm, threads, out, NULL);
}

spx_status spx__order_permute_mapped(const spx_matrix *A, const int64_t *perm, int threads,
                                     spx_matrix **out, int32_t *map)
{
    const int64_t n = A->rows;
    const int nthreads = omp_threads(threads);
    int64_t *inv = NULL, longest = 0;
    uint64_t *keys = NULL;
    spx_matrix *B = NULL;
    spx_status st;
    *out = NULL;
    SPX_TRY(check_orderable(A));
    SPX_TRY(spx__alloc((void **)&inv, (size_t)n, sizeof *inv, "reorder: inverse permutation"));
    SPX_TRY(spx__matrix_alloc(n, n, A->nnz, A->vtype, &B));
    for (int64_t k = 0; k < n; k++) {
        const int64_t len = spx__row_off(A, perm[k] + 1) - spx__row_off(A, perm[k]);
        inv[perm[k]] = k;
        B->rowptr[k + 1] = B->rowptr[k] + len;
        longest = len > longest ? len : longest;
    }
    SPX_TRY(spx__alloc((void **)&keys, (size_t)nthreads * (size_t)(longest > 0 ? longest : 1),
                       sizeof *keys, "reorder: row sort keys"));
#pragma omp parallel for schedule(dynamic, PERMUTE_CHUNK) num_threads(nthreads)
    for (int64_t k = 0; k < n; k++)
        permute_row(A, perm, inv, B, keys + (size_t)omp_get_thread_num() * (size_t)longest, map, k);
    *out = B;
    B = NULL;
cleanup:
    spx__free(inv);
    spx__free(keys);
    spx_matrix_destroy(B);
    return st;
}

int64_t spx__order_bandwidth(const spx_matrix *A)
{
    int64_t bw = 0;
    for (int64_t i = 0; i < A->rows; i++) {
        for (int64_t k = spx__row_off(A, i); k < spx__row_off(A, i + 1); k++) {
            int64_t d = spx__col(A, k) - i;
            d = d < 0 ? -d : d;
            bw = d > bw ? d : bw;
        }
    }
    return bw;
}
