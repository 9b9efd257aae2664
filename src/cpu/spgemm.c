/* gustavson: CPU SpGEMM, C = A * B by Gustavson's row-by-row method,
 *
 *   C(i,:) = sum over k in A(i,:) of A(i,k) * B(k,:)
 *
 * A is m x n, B is n x p, both CSR with sorted rows; C is m x p CSR with sorted
 * columns and fp64 values whatever the input types (fp32 values are widened and
 * the products summed in fp64). C's pattern is the symbolic product: an entry
 * whose products cancel is kept as an explicit 0.
 *
 * 1. work: f_i = sum over k in A(i,:) of nnz(B(k,:)), the intermediate products
 *    of row i. Prefix sums of f_i + 1 cut the rows into chunks of equal work,
 *    which the OpenMP threads take dynamically.
 * 2. symbolic: each thread counts the distinct columns of its rows; a prefix sum
 *    gives C's row offsets.
 * 3. numeric: each thread accumulates its rows again, sorts each row's columns
 *    and writes columns and values at the row's offset.
 * Counts are 64-bit; a sum that would pass INT64_MAX is SPX_ERR_OVERFLOW.
 *
 * Accumulator, per thread: dense (for each of the p columns a stamp, the last
 * row that touched it, and a value) while p times the threads is at most
 * SPX__SPGEMM_DENSE_MAX, else an open-addressing hash table per row with a
 * power-of-two size >= 2 min(f_i, p).
 * The plan parameter "acc=dense" or "acc=hash" forces one.
 * A row's n columns come out sorted from an introsort, or in the dense numeric
 * phase from a bitmap of the row's columns (one bit a column, set when a
 * column is first met): a scan of its words between the smallest and largest
 * column, when that span is short next to n log2 n.
 *
 * Rows of runs (dense accumulator, rows whose products overlap heavily):
 * where every row of B that row i of A takes is one run of columns (its
 * last column - its first + 1 entries: a band, a dense block), C(i,:) is the
 * union of those runs. The symbolic phase merges the runs (sorted by their
 * first column) and adds their lengths instead of visiting every product;
 * the numeric phase zeroes the union in the dense sums, adds each row of B
 * into them as a contiguous x*B(k,:) (no stamp, no branch: the compiler
 * vectorises it) and writes the union's columns in order (no sort). The
 * sums are the same, in the same order (A's row order), as the gather's.
 * The plan parameter "runs=off" takes the gather for them too (to measure).
 *
 * spx_spgemm_numeric (gustavson_numeric): C's values again for a B of the
 * pattern that made C, from a memo of each entry's products (spgemm_memo.c;
 * param memo=off, or where the memo cannot be had, as follows), or by the
 * numeric phase alone: each row gathered as in
 * step 3 (the same sums in the same order, so the same bits as a new
 * product), read out at C's columns, no symbolic phase, no sort, no
 * allocation of C; C's values are written only once every row had exactly
 * C's columns.
 */
#include <omp.h>
#include <string.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/matrix.h"
#include "cpu/spgemm_memo.h"
#include "plan/format.h"

/* Columns times threads up to which the dense accumulator is used (16 bytes each). */
#define SPX__SPGEMM_DENSE_MAX ((int64_t)1 << 25)
/* Intermediate products per thread below which another thread does not pay. */
#define SPX__SPGEMM_WORK_PER_THREAD 65536
/* Chunks of equal work per thread (dynamic schedule evens out the rest). */
#define SPX__SPGEMM_CHUNKS_PER_THREAD 8
/* Products per column of a row's span from which the symbolic phase keeps
 * its branch (overlapping()). */
#define SPX__SPGEMM_OVERLAP 4

/* CSR arrays of an operand, read through one width test the compiler hoists. */
typedef struct csr_view {
    const int64_t *rp;
    const int32_t *c32; /* non-NULL for 32-bit columns, else c64 */
    const int64_t *c64;
    const double *v64;  /* non-NULL for fp64 values, else v32 */
    const float *v32;
} csr_view;

/* The view of M; its 64-bit offsets may have to be widened (out of memory). */
static spx_status view_of(const spx_matrix *M, csr_view *v)
{
    *v = (csr_view){NULL, M->col32, M->col64, NULL, NULL};
    if (M->vtype == SPX_F64)
        v->v64 = M->values;
    else
        v->v32 = M->values;
    return spx__matrix_rowptr(M, &v->rp);
}

static inline int64_t view_col(const csr_view *v, int64_t k)
{
    return v->c32 ? (int64_t)v->c32[k] : v->c64[k];
}

static inline double view_val(const csr_view *v, int64_t k)
{
    return v->v64 ? v->v64[k] : (double)v->v32[k];
}

/* One thread's accumulator. Dense: stamp[j] is the last row that touched
 * column j (-1 none), val[j] its sum, bit j of seen set while the numeric phase
 * holds column j of the current row. Hash: stamp[s] is the column in slot s
 * (-1 empty), val[s] its sum, mask + 1 the current row's table size. cols lists
 * the current row's columns. */
typedef struct spgemm_ws {
    int64_t *stamp;
    uint64_t *seen;
    double *val;
    int64_t *cols;
    int64_t *runs; /* dense: 2 per entry of A's longest row, rows of runs' (first, last) */
    int64_t mask;
} spgemm_ws;

typedef struct spgemm_job {
    csr_view a, b;
    int64_t m, p;
    int hash;            /* 1: hash accumulator, 0: dense */
    int runs;            /* rows of runs take their own path (dense only; runs=on|off) */
    int threads;
    int64_t max_work;    /* largest f_i */
    int64_t max_arow;    /* entries of A's longest row */
    int64_t *rowc;       /* m+1: work prefix, then C's row offsets */
    int64_t nchunks;
    int64_t *chunk;      /* nchunks+1 row bounds */
    spgemm_ws *ws;       /* one per thread */
    spx_matrix *C;
} spgemm_job;

/* ------------------------------------------------------------ sorting */

static void insertion_sort(int64_t *a, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int64_t x = a[i], j = i;
        for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

static void sift_down(int64_t *a, int64_t root, int64_t n)
{
    int64_t x = a[root];
    for (int64_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && a[c + 1] > a[c]) c++;
        if (a[c] <= x) break;
        a[root] = a[c];
    }
    a[root] = x;
}

static void heap_sort(int64_t *a, int64_t n)
{
    for (int64_t r = n / 2; r-- > 0;) sift_down(a, r, n);
    for (int64_t e = n - 1; e > 0; e--) {
        int64_t t = a[0];
        a[0] = a[e];
        a[e] = t;
        sift_down(a, 0, e);
    }
}

static void swap_i64(int64_t *x, int64_t *y)
{
    int64_t t = *x;
    *x = *y;
    *y = t;
}

/* Hoare partition around the median of first, middle and last (left at the
 * middle): returns q in 1..n-1 with a[0..q) <= pivot <= a[q..n). */
static int64_t partition(int64_t *a, int64_t n)
{
    int64_t mid = (n - 1) / 2, i = -1, j = n;
    if (a[mid] < a[0]) swap_i64(&a[mid], &a[0]);
    if (a[n - 1] < a[0]) swap_i64(&a[n - 1], &a[0]);
    if (a[n - 1] < a[mid]) swap_i64(&a[n - 1], &a[mid]);
    int64_t pivot = a[mid];
    for (;;) {
        do i++; while (a[i] < pivot);
        do j--; while (a[j] > pivot);
        if (i >= j) return j + 1;
        swap_i64(&a[i], &a[j]);
    }
}

/* Introsort: quicksort, heapsort past a depth limit, insertion sort when short. */
static void sort_i64(int64_t *a, int64_t n, int depth)
{
    while (n > 24) {
        if (depth-- == 0) {
            heap_sort(a, n);
            return;
        }
        int64_t q = partition(a, n);
        if (q < n - q) {
            sort_i64(a, q, depth);
            a += q;
            n -= q;
        } else {
            sort_i64(a + q, n - q, depth);
            n = q;
        }
    }
    insertion_sort(a, n);
}

static int log2_floor(int64_t n)
{
    int l = 0;
    for (; n > 1; n >>= 1) l++;
    return l;
}

static void sort_columns(int64_t *a, int64_t n) { sort_i64(a, n, 2 * log2_floor(n)); }

/* ------------------------------------------------------- accumulators */

/* Slot of column j in a hash table of mask+1 slots (linear probing). */
static inline int64_t hash_slot(const int64_t *keys, int64_t mask, int64_t j)
{
    uint64_t h = (uint64_t)j * 0x9e3779b97f4a7c15ull;
    int64_t s = (int64_t)(h ^ (h >> 32)) & mask;
    while (keys[s] != -1 && keys[s] != j) s = (s + 1) & mask;
    return s;
}

/* Table size minus one: the smallest power of two >= 2 min(work, p), at least 2
 * (capped at 2^62, which no allocation reaches anyway). */
static int64_t hash_mask(int64_t work, int64_t p)
{
    int64_t want = work < p ? work : p, size = 2;
    while (size / 2 < want && size < ((int64_t)1 << 62)) size *= 2;
    return size - 1;
}

/* f_i: intermediate products of row i (the caller bounds the sum). */
static int64_t row_work(const spgemm_job *J, int64_t i)
{
    csr_view a = J->a;
    int64_t f = 0;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t k = view_col(&a, ka);
        f += J->b.rp[k + 1] - J->b.rp[k];
    }
    return f;
}

/* Distinct columns of row i of A*B into w->cols (unsorted); numeric also sums
 * their values in w->val and marks them in w->seen. Returns the count. */
static int64_t dense_gather(const spgemm_job *J, spgemm_ws *w, int64_t i, int numeric)
{
    csr_view a = J->a, b = J->b;
    int64_t *stamp = w->stamp, *cols = w->cols, n = 0;
    uint64_t *seen = w->seen;
    double *val = w->val;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t k = view_col(&a, ka), end = b.rp[k + 1];
        double x = numeric ? view_val(&a, ka) : 0.0;
        for (int64_t kb = b.rp[k]; kb < end; kb++) {
            int64_t j = view_col(&b, kb);
            double prod = numeric ? x * view_val(&b, kb) : 0.0;
            if (stamp[j] != i) {
                stamp[j] = i;
                cols[n++] = j;
                if (numeric) {
                    val[j] = prod;
                    seen[j >> 6] |= (uint64_t)1 << (j & 63);
                }
            } else if (numeric) {
                val[j] += prod;
            }
        }
    }
    return n;
}

/* The same with a hash table of hash_mask(f_i, p) + 1 slots, cleared first. */
static int64_t hash_gather(const spgemm_job *J, spgemm_ws *w, int64_t i, int numeric)
{
    csr_view a = J->a, b = J->b;
    int64_t mask = hash_mask(row_work(J, i), J->p), *keys = w->stamp, *cols = w->cols, n = 0;
    double *val = w->val;
    w->mask = mask;
    for (int64_t s = 0; s <= mask; s++) keys[s] = -1;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t k = view_col(&a, ka), end = b.rp[k + 1];
        double x = numeric ? view_val(&a, ka) : 0.0;
        for (int64_t kb = b.rp[k]; kb < end; kb++) {
            int64_t j = view_col(&b, kb), s = hash_slot(keys, mask, j);
            double prod = numeric ? x * view_val(&b, kb) : 0.0;
            if (keys[s] != j) {
                keys[s] = j;
                cols[n++] = j;
                if (numeric) val[s] = prod;
            } else if (numeric) {
                val[s] += prod;
            }
        }
    }
    return n;
}

static int64_t gather(const spgemm_job *J, spgemm_ws *w, int64_t i, int numeric)
{
    return J->hash ? hash_gather(J, w, i, numeric) : dense_gather(J, w, i, numeric);
}

/* Sum for column j of the row just gathered. */
static inline double gathered_value(const spgemm_job *J, const spgemm_ws *w, int64_t j)
{
    return J->hash ? w->val[hash_slot(w->stamp, w->mask, j)] : w->val[j];
}

static inline void set_col(spx_matrix *C, int64_t k, int64_t j)
{
    if (C->col_bits == 32) C->col32[k] = (int32_t)j;
    else C->col64[k] = j;
}

/* Row i of A has one entry: C(i,:) = A(i,k) B(k,:), already sorted. */
static void scaled_row(const spgemm_job *J, int64_t i)
{
    csr_view a = J->a, b = J->b;
    int64_t k = view_col(&a, a.rp[i]), out = J->C->rowptr[i];
    double x = view_val(&a, a.rp[i]), *cv = J->C->values;
    for (int64_t kb = b.rp[k]; kb < b.rp[k + 1]; kb++, out++) {
        set_col(J->C, out, view_col(&b, kb));
        cv[out] = x * view_val(&b, kb);
    }
}

/* Sort the n columns gathered for the row; leave the dense bitmap clear. */
static void order_row(const spgemm_job *J, spgemm_ws *w, int64_t n)
{
    int64_t lo = INT64_MAX, hi = -1, *cols = w->cols;
    if (n == 0) return;
    if (J->hash) {
        sort_columns(cols, n);
        return;
    }
    for (int64_t t = 0; t < n; t++) {
        if (cols[t] < lo) lo = cols[t];
        if (cols[t] > hi) hi = cols[t];
    }
    if ((hi >> 6) - (lo >> 6) >= n * (log2_floor(n) + 1)) {
        sort_columns(cols, n);
        for (int64_t t = 0; t < n; t++) w->seen[cols[t] >> 6] = 0;
        return;
    }
    for (int64_t word = lo >> 6, t = 0; word <= hi >> 6; word++) {
        for (uint64_t x = w->seen[word]; x; x &= x - 1)
            cols[t++] = word * 64 + __builtin_ctzll(x);
        w->seen[word] = 0;
    }
}

/* Row i's products overlap heavily: at least SPX__SPGEMM_OVERLAP of them per
 * column of the span its B rows cover (a band: each column met over and over,
 * so "seen already" is what a branch predicts right; dense_gather's branch
 * then beats dense_count's store per product). O(entries of A's row). */
static int overlapping(const spgemm_job *J, int64_t i)
{
    csr_view a = J->a, b = J->b;
    int64_t f = 0, lo = INT64_MAX, hi = -1;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t k = view_col(&a, ka), beg = b.rp[k], end = b.rp[k + 1];
        if (beg == end) continue;
        f += end - beg;
        if (view_col(&b, beg) < lo) lo = view_col(&b, beg);
        if (view_col(&b, end - 1) > hi) hi = view_col(&b, end - 1);
    }
    return hi >= lo && f >= SPX__SPGEMM_OVERLAP * (hi - lo + 1);
}

/* Distinct columns of row i with the dense stamps, branch-free: a column
 * counts when its stamp was not yet i (the symbolic phase needs no list).
 * Against dense_gather's branch for every row, on the 2-core development
 * machine (product ms, 2 threads, alternating runs): lap3d27:40 72-76 ->
 * 68-75, cage11 33-34 -> 29-30, R-MAT 13 202-209 -> 159-165; a band of 51
 * (2601 products over 101 columns a row) was 243-255 -> 261-265 until
 * overlapping() gave such rows the branch back (then 250-256 against
 * 246-253, within the runs' spread); sinc18 263-270 either way. */
static int64_t dense_count(const spgemm_job *J, spgemm_ws *w, int64_t i)
{
    csr_view a = J->a, b = J->b;
    int64_t *stamp = w->stamp, n = 0;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t k = view_col(&a, ka), end = b.rp[k + 1];
        for (int64_t kb = b.rp[k]; kb < end; kb++) {
            int64_t j = view_col(&b, kb);
            n += stamp[j] != i;
            stamp[j] = i;
        }
    }
    return n;
}

/* ------------------------------------------------------- rows of runs */

/* (first, last) pairs r[0..2n) ordered by first (insertion: A's row order
 * mostly gives them so). */
static void sort_pairs(int64_t *r, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        int64_t f = r[2 * i], l = r[2 * i + 1], j = i;
        for (; j > 0 && r[2 * (j - 1)] > f; j--) {
            r[2 * j] = r[2 * (j - 1)];
            r[2 * j + 1] = r[2 * (j - 1) + 1];
        }
        r[2 * j] = f;
        r[2 * j + 1] = l;
    }
}

/* Whether every non-empty row of B that row i takes is one run of columns;
 * if so the union of those runs into w->runs as disjoint (first, last) pairs
 * in column order, *n of them, and its column count returned; else -1. */
static int64_t run_union(const spgemm_job *J, spgemm_ws *w, int64_t i, int64_t *n)
{
    csr_view a = J->a, b = J->b;
    int64_t *r = w->runs, k = 0, count = 0;
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t row = view_col(&a, ka), beg = b.rp[row], end = b.rp[row + 1];
        if (beg == end) continue;
        int64_t first = view_col(&b, beg), last = view_col(&b, end - 1);
        if (last - first + 1 != end - beg) return -1;
        r[2 * k] = first;
        r[2 * k + 1] = last;
        k++;
    }
    sort_pairs(r, k);
    *n = 0;
    for (int64_t t = 0; t < k; t++) {
        if (*n > 0 && r[2 * t] <= r[2 * *n - 1] + 1) {
            if (r[2 * t + 1] > r[2 * *n - 1]) r[2 * *n - 1] = r[2 * t + 1];
            continue;
        }
        r[2 * *n] = r[2 * t];
        r[2 * *n + 1] = r[2 * t + 1];
        (*n)++;
    }
    for (int64_t t = 0; t < *n; t++)
        count += r[2 * t + 1] - r[2 * t] + 1;
    return count;
}

/* Whether row i takes the rows-of-runs path (its count then in *count, its
 * runs in w->runs, *n of them). */
static int runs_row(const spgemm_job *J, spgemm_ws *w, int64_t i, int64_t *n, int64_t *count)
{
    if (J->hash || !J->runs || !overlapping(J, i)) return 0;
    *count = run_union(J, w, i, n);
    return *count >= 0;
}

/* The dense sums of a row of runs: the union (n runs) zeroed, each
 * A(i,k) B(k,:) added over its run. */
static void runs_sums(const spgemm_job *J, spgemm_ws *w, int64_t i, int64_t n)
{
    csr_view a = J->a, b = J->b;
    double *restrict acc = w->val;
    const int64_t *r = w->runs;
    for (int64_t t = 0; t < n; t++)
        memset(acc + r[2 * t], 0, (size_t)(r[2 * t + 1] - r[2 * t] + 1) * sizeof *acc);
    for (int64_t ka = a.rp[i]; ka < a.rp[i + 1]; ka++) {
        int64_t row = view_col(&a, ka), beg = b.rp[row], len = b.rp[row + 1] - beg;
        if (len == 0) continue;
        double x = view_val(&a, ka), *restrict s = acc + view_col(&b, beg);
        if (b.v64) {
            const double *restrict v = b.v64 + beg;
            for (int64_t t = 0; t < len; t++)
                s[t] += x * v[t];
        } else {
            for (int64_t t = 0; t < len; t++)
                s[t] += x * (double)b.v32[beg + t];
        }
    }
}

/* C(i,:) of a row of runs: its sums, the union written in column order. */
static void runs_numeric(const spgemm_job *J, spgemm_ws *w, int64_t i, int64_t n)
{
    double *cv = J->C->values;
    const int64_t *r = w->runs;
    int64_t out = J->C->rowptr[i];
    runs_sums(J, w, i, n);
    for (int64_t t = 0; t < n; t++)
        for (int64_t j = r[2 * t]; j <= r[2 * t + 1]; j++, out++) {
            set_col(J->C, out, j);
            cv[out] = w->val[j];
        }
}

static int64_t symbolic_row(const spgemm_job *J, spgemm_ws *w, int64_t i)
{
    csr_view a = J->a;
    int64_t n, count;
    if (a.rp[i + 1] - a.rp[i] == 1) return row_work(J, i);
    if (runs_row(J, w, i, &n, &count)) return count;
    if (J->hash || overlapping(J, i)) return gather(J, w, i, 0);
    return dense_count(J, w, i);
}

static void numeric_row(const spgemm_job *J, spgemm_ws *w, int64_t i)
{
    csr_view a = J->a;
    int64_t runs, count;
    if (a.rp[i + 1] - a.rp[i] == 1) {
        scaled_row(J, i);
        return;
    }
    if (runs_row(J, w, i, &runs, &count)) {
        runs_numeric(J, w, i, runs);
        return;
    }
    int64_t n = gather(J, w, i, 1), out = J->C->rowptr[i];
    double *cv = J->C->values;
    order_row(J, w, n);
    for (int64_t t = 0; t < n; t++) {
        set_col(J->C, out + t, w->cols[t]);
        cv[out + t] = gathered_value(J, w, w->cols[t]);
    }
}

/* ------------------------------------------------------------- phases */

/* rowc[i+1] = f_i + 1 in parallel, then the checked prefix sum and max f_i. */
static spx_status work_prefix(spgemm_job *J)
{
    int overflow = 0;
    int64_t *rowc = J->rowc, m = J->m;
#pragma omp parallel for schedule(static) reduction(| : overflow)
    for (int64_t i = 0; i < m; i++) {
        int64_t f = 0;
        for (int64_t ka = J->a.rp[i]; ka < J->a.rp[i + 1] && !overflow; ka++) {
            int64_t k = view_col(&J->a, ka), len = J->b.rp[k + 1] - J->b.rp[k];
            overflow = len > INT64_MAX - 1 - f;
            f += overflow ? 0 : len;
        }
        rowc[i + 1] = f + 1;
    }
    if (overflow)
        return spx__error(SPX_ERR_OVERFLOW, "intermediate products of one row overflow 64 bits");
    rowc[0] = 0;
    J->max_work = 0;
    J->max_arow = 0;
    for (int64_t i = 0; i < m; i++) {
        if (rowc[i + 1] - 1 > J->max_work) J->max_work = rowc[i + 1] - 1;
        if (J->a.rp[i + 1] - J->a.rp[i] > J->max_arow) J->max_arow = J->a.rp[i + 1] - J->a.rp[i];
        spx_status st = spx__add_i64(rowc[i], rowc[i + 1], &rowc[i + 1],
                                     "intermediate product count of A*B");
        if (st != SPX_OK) return st;
    }
    return SPX_OK;
}

/* First row whose work prefix reaches target. */
static int64_t lower_bound(const int64_t *prefix, int64_t n, int64_t target)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (prefix[mid] < target) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Chunks of equal work: chunk c starts at the first row reaching W c / nchunks. */
static void split_chunks(spgemm_job *J)
{
    int64_t W = J->rowc[J->m], nc = J->nchunks;
    J->chunk[nc] = J->m;
    if (nc == 0) return;
    int64_t q = W / nc, r = W % nc;
    for (int64_t c = 0; c < nc; c++) J->chunk[c] = lower_bound(J->rowc, J->m, q * c + r * c / nc);
}

/* Symbolic (numeric == 0: counts into rowc[i+1]) or numeric phase over the
 * chunks. Dense stamps are reset per phase: a thread may get other rows. */
static void run_phase(spgemm_job *J, int numeric)
{
#pragma omp parallel num_threads(J->threads)
    {
        spgemm_ws *w = &J->ws[omp_get_thread_num()];
        if (!J->hash)
            for (int64_t j = 0; j < J->p; j++) w->stamp[j] = -1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < J->nchunks; c++) {
            for (int64_t i = J->chunk[c]; i < J->chunk[c + 1]; i++) {
                if (numeric) numeric_row(J, w, i);
                else J->rowc[i + 1] = symbolic_row(J, w, i);
            }
        }
    }
}

/* Row counts in rowc[1..m] become offsets; nnz(C) checked. */
static spx_status count_prefix(spgemm_job *J)
{
    J->rowc[0] = 0;
    for (int64_t i = 0; i < J->m; i++) {
        spx_status st = spx__add_i64(J->rowc[i], J->rowc[i + 1], &J->rowc[i + 1],
                                     "nonzero count of A*B");
        if (st != SPX_OK) return st;
    }
    return SPX_OK;
}

/* ---------------------------------------------------------- workspaces */

static void free_workspaces(spgemm_job *J)
{
    if (!J->ws) return;
    for (int t = 0; t < J->threads; t++) {
        spx__free(J->ws[t].stamp);
        spx__free(J->ws[t].seen);
        spx__free(J->ws[t].val);
        spx__free(J->ws[t].cols);
        spx__free(J->ws[t].runs);
    }
    spx__free(J->ws);
    J->ws = NULL;
}

/* Dense: stamp and val of p entries, seen of p bits (zeroed); hash: stamp and
 * val of the largest row's table; a column list as long as C's longest row. */
static spx_status alloc_workspace(const spgemm_job *J, spgemm_ws *w)
{
    int64_t slots = J->hash ? hash_mask(J->max_work, J->p) + 1 : J->p;
    int64_t list = J->max_work < J->p ? J->max_work : J->p;
    spx_status st;
    SPX_TRY(spx__alloc((void **)&w->stamp, (size_t)slots, sizeof *w->stamp,
                       J->hash ? "SpGEMM hash keys" : "SpGEMM column stamps"));
    if (!J->hash)
        SPX_TRY(spx__calloc((void **)&w->seen, (size_t)(J->p / 64 + 1), sizeof *w->seen,
                            "SpGEMM column bitmap"));
    SPX_TRY(spx__alloc((void **)&w->val, (size_t)slots, sizeof *w->val,
                       "SpGEMM accumulator values"));
    SPX_TRY(spx__alloc((void **)&w->cols, (size_t)list, sizeof *w->cols, "SpGEMM row columns"));
    if (J->runs)
        SPX_TRY(spx__alloc((void **)&w->runs, 2 * (size_t)(J->max_arow > 0 ? J->max_arow : 1),
                           sizeof *w->runs, "SpGEMM row runs"));
cleanup:
    return st;
}

/* One workspace per thread; on failure free_workspaces releases what exists. */
static spx_status alloc_workspaces(spgemm_job *J)
{
    spx_status st = spx__calloc((void **)&J->ws, (size_t)J->threads, sizeof *J->ws,
                                "SpGEMM workspaces");
    for (int t = 0; t < J->threads && st == SPX_OK; t++) st = alloc_workspace(J, &J->ws[t]);
    return st;
}

/* ------------------------------------------------------------- options */

/* The plan: A (borrowed), the forced accumulator (-1 none, 0 dense, 1 hash),
 * rows of runs on or off, and the thread option. */
typedef struct gustavson_state {
    const spx_matrix *A;
    int forced;
    int runs;
    int threads;
    int memo;        /* memo=on|off: spx_spgemm_numeric from a memo (spgemm_memo.c) */
    uint64_t serial; /* this plan among the process's gustavson plans */
} gustavson_state;

static spx_status gustavson_param(void *ctx, const char *key, const char *value)
{
    gustavson_state *g = ctx;
    if (strcmp(key, "runs") == 0) return spx__param_on_off(key, value, &g->runs);
    if (strcmp(key, "memo") == 0) return spx__param_on_off(key, value, &g->memo);
    if (strcmp(key, "acc") != 0)
        return spx__error(SPX_ERR_BAD_PARAM,
                          "gustavson has no parameter '%s' (it knows acc, runs and memo)", key);
    if (strcmp(value, "dense") == 0)
        g->forced = 0;
    else if (strcmp(value, "hash") == 0)
        g->forced = 1;
    else
        return spx__error(SPX_ERR_BAD_PARAM, "gustavson parameter acc=%s is not dense or hash",
                          value);
    return SPX_OK;
}

/* Threads: the option (or OpenMP's default), no more than the work pays for. */
static int pick_threads(const spgemm_job *J, int threads)
{
    int64_t t = threads > 0 ? threads : omp_get_max_threads();
    int64_t useful = 1 + J->rowc[J->m] / SPX__SPGEMM_WORK_PER_THREAD;
    if (t > useful) t = useful;
    return t > 0 ? (int)t : 1;
}

static spx_status gustavson_analyze(const spx_matrix *A, const spx_plan_opts *o, void **state)
{
    static uint64_t plans_made;
    gustavson_state *g = NULL, want = {A, -1, 1, o->threads, 1, 0};
    spx_status st = spx__params_each(o->params, gustavson_param, &want);
    if (st != SPX_OK) return st;
    if ((st = spx__alloc((void **)&g, 1, sizeof *g, "gustavson plan")) != SPX_OK) return st;
    want.serial = __atomic_add_fetch(&plans_made, 1, __ATOMIC_RELAXED);
    *g = want;
    *state = g;
    return SPX_OK;
}

/* The job of A*B for plan g: views, the work prefix, threads, the
 * accumulator, chunks of equal work and the threads' workspaces (freed by
 * job_free whatever happens). */
static spx_status job_setup(const gustavson_state *g, const spx_matrix *B, spgemm_job *J)
{
    spx_status st = SPX_OK;
    SPX_TRY(view_of(g->A, &J->a));
    SPX_TRY(view_of(B, &J->b));
    J->m = g->A->rows;
    J->p = B->cols;
    SPX_TRY(spx__alloc((void **)&J->rowc, (size_t)J->m + 1, sizeof *J->rowc, "SpGEMM row counts"));
    SPX_TRY(work_prefix(J));
    J->threads = pick_threads(J, g->threads);
    J->hash =
        g->forced >= 0 ? g->forced : (double)J->p * J->threads > (double)SPX__SPGEMM_DENSE_MAX;
    J->runs = g->runs && !J->hash;
    J->nchunks = J->m < (int64_t)J->threads * SPX__SPGEMM_CHUNKS_PER_THREAD
                     ? J->m
                     : (int64_t)J->threads * SPX__SPGEMM_CHUNKS_PER_THREAD;
    SPX_TRY(
        spx__alloc((void **)&J->chunk, (size_t)J->nchunks + 1, sizeof *J->chunk, "SpGEMM chunks"));
    split_chunks(J);
    SPX_TRY(alloc_workspaces(J));
cleanup:
    return st;
}

static void job_free(spgemm_job *J)
{
    free_workspaces(J);
    spx__free(J->chunk);
    spx__free(J->rowc);
}

static spx_status gustavson_multiply(void *state, const spx_matrix *B, spx_matrix **C)
{
    const gustavson_state *g = state;
    spgemm_job J = {0};
    spx_status st = SPX_OK;
    SPX_TRY(job_setup(g, B, &J));
    run_phase(&J, 0);
    SPX_TRY(count_prefix(&J));
    SPX_TRY(spx__matrix_alloc(J.m, J.p, J.rowc[J.m], SPX_F64, &J.C));
    memcpy(J.C->rowptr, J.rowc, ((size_t)J.m + 1) * sizeof *J.rowc);
    run_phase(&J, 1);
    *C = J.C;
    J.C = NULL;
    spx__clear_error();
cleanup:
    job_free(&J);
    spx_matrix_destroy(J.C);
    return st;
}

/* spx_spgemm_numeric, a row of runs (n runs, count columns): its sums as
 * runs_numeric's, read out when C's row is the runs' union in order. */
static int refill_runs_row(const spgemm_job *J, spgemm_ws *w, int64_t i, int64_t n, int64_t count,
                           const int64_t *crp, const spx_matrix *C, double *vals)
{
    const int64_t *r = w->runs;
    int64_t k = crp[i];
    if (count != crp[i + 1] - k) return 0;
    for (int64_t t = 0; t < n; t++)
        for (int64_t j = r[2 * t]; j <= r[2 * t + 1]; j++, k++)
            if (spx__col(C, k) != j) return 0;
    runs_sums(J, w, i, n);
    k = crp[i];
    for (int64_t t = 0; t < n; t++)
        for (int64_t j = r[2 * t]; j <= r[2 * t + 1]; j++, k++)
            vals[k] = w->val[j];
    return 1;
}

/* spx_spgemm_numeric, row i: its sums gathered again (A's row order, as
 * numeric_row's), read out at C's columns into vals; 0 when the row's
 * distinct columns are not exactly C's. The dense bitmap left clear. */
static int refill_row(const spgemm_job *J, spgemm_ws *w, int64_t i, const int64_t *crp,
                      const spx_matrix *C, double *vals)
{
    int64_t runs, count;
    if (runs_row(J, w, i, &runs, &count))
        return refill_runs_row(J, w, i, runs, count, crp, C, vals);
    const int64_t n = gather(J, w, i, 1), c0 = crp[i], c1 = crp[i + 1];
    int ok = n == c1 - c0;
    for (int64_t k = c0; k < c1 && ok; k++) {
        const int64_t j = spx__col(C, k);
        if (J->hash) {
            const int64_t slot = hash_slot(w->stamp, w->mask, j);
            ok = w->stamp[slot] == j;
            vals[k] = w->val[slot];
        } else {
            ok = j >= 0 && j < J->p && w->stamp[j] == i;
            vals[k] = w->val[j];
        }
    }
    if (!J->hash)
        for (int64_t t = 0; t < n; t++)
            w->seen[w->cols[t] >> 6] = 0;
    return ok;
}

/* Every row's sums into vals (C's order); 0 when some row's pattern is not C's. */
static int refill_rows(spgemm_job *J, const int64_t *crp, const spx_matrix *C, double *vals)
{
    int ok = 1;
#pragma omp parallel num_threads(J->threads) reduction(& : ok)
    {
        spgemm_ws *w = &J->ws[omp_get_thread_num()];
        if (!J->hash)
            for (int64_t j = 0; j < J->p; j++)
                w->stamp[j] = -1;
#pragma omp for schedule(dynamic, 1)
        for (int64_t c = 0; c < J->nchunks; c++)
            for (int64_t i = J->chunk[c]; i < J->chunk[c + 1]; i++)
                ok &= refill_row(J, w, i, crp, C, vals);
    }
    return ok;
}

/* spx_spgemm_numeric: the numeric phase alone, no symbolic phase, no sort:
 * each row's sums gathered and read out at C's columns into a scratch array,
 * which becomes C's values only when every row had exactly C's columns (so
 * a B of another pattern leaves C as it was). */
static spx_status gustavson_numeric(void *state, const spx_matrix *B, spx_matrix *C)
{
    const gustavson_state *g = state;
    spgemm_job J = {0};
    const int64_t *crp = NULL;
    double *vals = NULL;
    spx_status st = SPX_OK;
    SPX_TRY(spx__check_matrix(C, "spx_spgemm_numeric (C)"));
    SPX_TRY(spx__matrix_rowptr(C, &crp));
    if (g->memo) {
        int handled = 0;
        SPX_TRY(spx__cpu_spgemm_memo(g->A, B, C, g->serial, g->threads, &handled));
        if (handled) return SPX_OK;
    }
    SPX_TRY(job_setup(g, B, &J));
    SPX_TRY(spx__alloc((void **)&vals, (size_t)C->nnz + 1, sizeof *vals, "SpGEMM values"));
    if (!refill_rows(&J, crp, C, vals)) {
        st = spx__error(SPX_ERR_INVALID_ARG,
                        "spx_spgemm_numeric: A*B has another pattern than C's: B's pattern is "
                        "not the one that made C");
        goto cleanup;
    }
    for (int64_t k = 0; k < C->nnz; k++)
        if (C->vtype == SPX_F64)
            ((double *)C->values)[k] = vals[k];
        else
            ((float *)C->values)[k] = (float)vals[k];
cleanup:
    job_free(&J);
    spx__free(vals);
    return st;
}

static size_t gustavson_bytes(const void *state)
{
    (void)state;
    return sizeof(gustavson_state);
}

static void gustavson_destroy(void *state) { spx__free(state); }

/* AUTO: the CPU SpGEMM baseline. */
static double gustavson_suits(const spx_matrix *A, const spx__auto_facts *f)
{
    (void)A;
    (void)f;
    return 1.0;
}

const spx_format_ops spx__format_gustavson = {
    .name = "gustavson",
    .devices = SPX_DEV_CPU,
    .precisions = SPX__TYPE_BIT(SPX_F64),
    .spgemm_analyze = gustavson_analyze,
    .spgemm = gustavson_multiply,
    .spgemm_numeric = gustavson_numeric,
    .bytes = gustavson_bytes,
    .destroy = gustavson_destroy,
    .borrows_matrix = 1,
    .suits = gustavson_suits,
};
