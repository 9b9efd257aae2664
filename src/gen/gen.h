/* Matrix generators behind spx_generate (see src/gen/README.md for every key).
 *
 * A spec is "name:key=value,key=value,..."; a bare value ("lap3d7:128") is the
 * key n. Each generator reads its keys through spx__gen_int / _real / _choice
 * (which mark them used and check ranges), calls spx__gen_args_done (which
 * rejects keys it did not read), then builds the matrix.
 *
 * Randomness: splitmix64. Every row (or block of edges) seeds its own stream
 * from (seed, stream, index), so a matrix never depends on the thread count. */
#ifndef SPX_GEN_GEN_H
#define SPX_GEN_GEN_H

#include <stdint.h>

#include "spx.h"

/* ------------------------------------------------------------- spec keys */

#define SPX__GEN_MAX_KEYS 16

typedef struct spx__gen_args {
    const char *gen; /* generator name, for messages */
    int count;
    struct {
        const char *key, *value;
        int used;
    } kv[SPX__GEN_MAX_KEYS];
} spx__gen_args;

/* Passed as def: the key must be given. */
#define SPX__GEN_REQUIRED INT64_MIN

/* Integer key in [lo, hi] (1e6, 100k, 2M, 1G accepted); def when absent. */
spx_status spx__gen_int(spx__gen_args *a, const char *key, int64_t def, int64_t lo,
                        int64_t hi, int64_t *out);
/* Real key in [lo, hi]; def when absent (NaN: required). */
spx_status spx__gen_real(spx__gen_args *a, const char *key, double def, double lo,
                         double hi, double *out);
/* Key whose value is one of choices (NULL-terminated); *out its index, def when absent. */
spx_status spx__gen_choice(spx__gen_args *a, const char *key, const char *const *choices,
                           int def, int *out);
/* String key (borrowed from the spec); NULL when absent and not required. */
spx_status spx__gen_string(spx__gen_args *a, const char *key, int required,
                           const char **out);
/* SPX_ERR_INVALID_ARG naming the first key no getter read. */
spx_status spx__gen_args_done(const spx__gen_args *a);

/* ------------------------------------------------------------ size checks */

/* Made before any work in proportion to the nonzeros (size.c): SPX_ERR_OOM
 * naming gen and the bytes when a CSR matrix of rows x cols with nnz nonzeros
 * (exact, or a bound the caller states), plus `extra` bytes of the
 * generator's own buffers, needs more than the physical memory or passes the
 * test limit. Counts that overflow int64 are the caller's SPX_ERR_OVERFLOW. */
spx_status spx__gen_check_size(const char *gen, int64_t rows, int64_t cols, int64_t nnz,
                               double extra);

/* Test hook: a matrix of more than max nonzeros, or needing more bytes than a
 * CSR of max rows and max nonzeros, is refused by the check above
 * (SPX_ERR_OOM) before any work; 0, the default, is no limit. The fuzz
 * harness sets a small one so that every run stays fast. */
void spx__gen_set_max_nnz(int64_t max);

/* ------------------------------------------------------------- randomness */

typedef struct spx__rng {
    uint64_t s;
} spx__rng;

static inline uint64_t spx__mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Independent stream number `index` of kind `stream` for a seed. */
static inline spx__rng spx__rng_at(uint64_t seed, uint64_t stream, uint64_t index)
{
    spx__rng r;
    r.s = spx__mix64(spx__mix64(seed * 0x9e3779b97f4a7c15ull + stream) ^
                     (index * 0xd1b54a32d192ed03ull + 0x8cb92ba72f3d8dd7ull));
    return r;
}

static inline uint64_t spx__rng_next(spx__rng *r)
{
    return spx__mix64(r->s += 0x9e3779b97f4a7c15ull);
}

/* Uniform in [0, 1). */
static inline double spx__rng_unit(spx__rng *r)
{
    return (double)(spx__rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), n >= 1 (n < 2^53; bias below 2^-53 * n). */
static inline int64_t spx__rng_below(spx__rng *r, int64_t n)
{
    int64_t k = (int64_t)(spx__rng_unit(r) * (double)n);
    return k < n ? k : n - 1;
}

/* Value of entry (i, j) for "values=random": uniform in [-1, 1), a function of
 * the position only, so it is the same whatever order entries are made in. */
static inline double spx__gen_value(uint64_t seed, int64_t i, int64_t j)
{
    uint64_t h = spx__mix64(spx__mix64(seed ^ 0x5bd1e9955bd1e995ull) + (uint64_t)i);
    h = spx__mix64(h ^ ((uint64_t)j * 0x9e3779b97f4a7c15ull));
    return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}

/* ------------------------------------------------------- row-wise builder */

/* A matrix described row by row: len(i) entries in row i, written by fill in
 * increasing column order. fill must not fail; col has room for len(i) + work
 * entries (the ones past len(i) are the fill's own scratch). */
typedef struct spx__gen_rows {
    int64_t rows, cols;
    int64_t (*len)(const void *ctx, int64_t i);
    void (*fill)(const void *ctx, int64_t i, int64_t *col, double *val);
    const void *ctx;
    int64_t work;
    const char *gen; /* generator name, for messages */
} spx__gen_rows;

/* Build the CSR matrix in parallel: lengths, offsets, then rows. The exact
 * nonzero count, known after the lengths, goes through spx__gen_check_size
 * before anything of that size is allocated. */
spx_status spx__gen_build_rows(const spx__gen_rows *g, spx_matrix **A);

/* Write L distinct columns of [0, n) in increasing order into col (L <= n),
 * which has room for L + work entries; work = spx__gen_sample_work(n) lets
 * rows of more than n/64 entries use a bitmap instead of sorting. */
void spx__gen_sample_sorted(spx__rng *r, int64_t n, int64_t L, int64_t *col, int64_t work);
int64_t spx__gen_sample_work(int64_t n);

/* Sort v[0..n) and drop repeats; returns how many distinct values are left. */
int64_t spx__gen_sort_unique(int64_t *v, int64_t n);

/* ------------------------------------------------------------- generators */

spx_status spx__gen_lap(spx__gen_args *a, int dims, int points, spx_matrix **A);
spx_status spx__gen_banded(spx__gen_args *a, spx_matrix **A);
spx_status spx__gen_random(spx__gen_args *a, spx_matrix **A);
spx_status spx__gen_powerlaw(spx__gen_args *a, spx_matrix **A);
spx_status spx__gen_circuit(spx__gen_args *a, spx_matrix **A);
spx_status spx__gen_rmat(spx__gen_args *a, spx_matrix **A);
spx_status spx__gen_scale(spx__gen_args *a, spx_matrix **A);

/* Scale-up of a matrix already in memory: P (x) A, with P the copies x copies
 * pattern of mode (0 identity = block diagonal, 1 tridiagonal, 2 random with
 * the given density and seed, diagonal always present); P's values are 1. */
enum { SPX__SCALE_BLOCKDIAG = 0, SPX__SCALE_KRON_TRIDIAG = 1, SPX__SCALE_KRON_RANDOM = 2 };
spx_status spx__gen_kron(const spx_matrix *A, int64_t copies, int pattern, double density,
                         uint64_t seed, spx_matrix **B);

#endif
