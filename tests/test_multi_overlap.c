/* The overlap's cut of a row part (src/multi/multi_overlap.c,
 * spx__multi_overlap_cut), which only runs on several GPUs: checked here on
 * pcsr parts of a 7-point stencil (the rest is the slab's two faces: two
 * pieces), of a random matrix (the rest everywhere: one piece), with every
 * column owned (no rest), none owned (all rest), and owned ranges in two
 * pieces (parts round robin over devices). For each: the own copy has
 * every line and only owned columns, the rest pieces only the others, both
 * lie inside the cut, and merging them line by line gives the part's
 * entries back, in order, bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "multi/multi.h"
#include "multi/partition.h"

static int owned(const spx__multi_owned *o, int64_t j)
{
    for (int k = 0; k < o->n; k++)
        if (o->lo[k] <= j && j < o->hi[k]) return 1;
    return 0;
}

/* Entries of line r of M (from its offsets). */
static int64_t line_begin(const spx_matrix *M, int64_t r)
{
    return spx__row_off(M, r) - spx__row_off(M, 0);
}

/* Line r of the part v against own's line r and rest's (rest: lines [r0, ..)
 * of v, NULL where none): each entry of v is in one of them, in v's order. */
static int line_rebuilt(const spx_matrix *v, const spx_matrix *own, const spx_matrix *rest,
                        int64_t r0, int64_t r, const spx__multi_owned *o)
{
    int64_t a = line_begin(own, r), ae = line_begin(own, r + 1);
    int64_t b = rest ? line_begin(rest, r - r0) : 0, be = rest ? line_begin(rest, r - r0 + 1) : 0;
    const double *vv = v->values, *ov = own->values, *rv = rest ? rest->values : NULL;
    for (int64_t k = line_begin(v, r); k < line_begin(v, r + 1); k++) {
        int64_t j = spx__col(v, k);
        if (owned(o, j)) {
            if (a >= ae || spx__col(own, a) != j || memcmp(&ov[a], &vv[k], sizeof *vv) != 0)
                return 0;
            a++;
        } else {
            if (!rest || b >= be || spx__col(rest, b) != j ||
                memcmp(&rv[b], &vv[k], sizeof *vv) != 0)
                return 0;
            b++;
        }
    }
    return a == ae && b == be;
}

/* The cut of v with o: expected cut positions (-1: not checked; -2: one
 * piece, [0, rows)). */
static void check_cut(const spx_matrix *v, const spx__multi_owned *o, int64_t want0, int64_t want1)
{
    spx_matrix *own = NULL, *rest[2] = {NULL, NULL};
    int64_t cut[2] = {-1, -1};
    if (!CHECK_STATUS(spx__multi_overlap_cut(v, o, &own, rest, cut), SPX_OK)) goto done;
    CHECK(own && own->rows == v->rows && own->cols == v->cols);
    CHECK(0 <= cut[0] && cut[0] <= cut[1] && cut[1] <= v->rows);
    if (want0 == -2) want0 = want1 = v->rows;
    if (want0 >= 0) CHECK(cut[0] == want0 && cut[1] == want1);
    CHECK((rest[0] != NULL) == (cut[0] > 0));
    CHECK((rest[1] != NULL) == (cut[1] < v->rows));
    if (rest[0]) CHECK(rest[0]->rows == cut[0]);
    if (rest[1]) CHECK(rest[1]->rows == v->rows - cut[1]);
    int64_t total = own->nnz;
    CHECK(own->nnz == line_begin(own, own->rows));
    for (int k = 0; k < 2; k++)
        if (rest[k]) {
            CHECK(rest[k]->nnz == line_begin(rest[k], rest[k]->rows));
            total += rest[k]->nnz;
        }
    CHECK(total == v->nnz);
    int bad = 0;
    for (int64_t r = 0; r < v->rows; r++) {
        const spx_matrix *piece = r < cut[0] ? rest[0] : r >= cut[1] ? rest[1] : NULL;
        int64_t r0 = r < cut[0] ? 0 : cut[1];
        bad += !line_rebuilt(v, own, piece, r0, r, o);
    }
    CHECK(bad == 0);
    for (int64_t r = cut[0]; r < cut[1]; r++) /* the lines between the pieces: owned only */
        for (int64_t e = line_begin(v, r); e < line_begin(v, r + 1); e++)
            bad += !owned(o, spx__col(v, e));
    CHECK(bad == 0);
done:
    spx_matrix_destroy(own);
    spx_matrix_destroy(rest[0]);
    spx_matrix_destroy(rest[1]);
}

/* Part i of np pcsr parts of A, its own lines as the owned columns (one
 * part a device), checked with expected cuts (check_cut's). */
static void check_part(const spx_matrix *A, int np, int i, int64_t want0, int64_t want1)
{
    spx__part p;
    memset(&p, 0, sizeof p);
    spx__part_bounds(A, NULL, SPX_PART_PCSR, np, i, &p);
    if (!CHECK_STATUS(spx__part_build(A, NULL, &p), SPX_OK)) return;
    spx__multi_owned o = {.n = 1};
    o.lo[0] = p.line_begin + p.shared_first;
    o.hi[0] = p.line_end;
    check_cut(p.view, &o, want0, want1);
    spx__part_free(&p);
}

static void test_stencil(void)
{
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("lap3d7:12", &A), SPX_OK)) return;
    /* 3 parts of 12 planes of 144 lines: the middle one reads one plane on
     * each side, so its first and last planes are the rest's two pieces. */
    spx__part p;
    memset(&p, 0, sizeof p);
    spx__part_bounds(A, NULL, SPX_PART_PCSR, 3, 1, &p);
    int64_t n = p.line_end - p.line_begin;
    check_part(A, 3, 1, -1, -1);
    if (!p.shared_first && n > 2 * 144) check_part(A, 3, 1, 144, n - 144);
    check_part(A, 3, 0, -1, -1); /* first part: its last plane only */
    check_part(A, 3, 2, -1, -1);
    check_part(A, 7, 3, -1, -1);
    spx_matrix_destroy(A);
}

static void test_random(void)
{
    spx_matrix *A = spx_test_random_matrix(3000, 3000, 60000, 11);
    if (!A) return;
    check_part(A, 4, 1, -2, -2); /* 20 entries a line: every line reads another's columns */
    spx__part p;
    memset(&p, 0, sizeof p);
    spx__part_bounds(A, NULL, SPX_PART_PCSR, 4, 2, &p);
    if (CHECK_STATUS(spx__part_build(A, NULL, &p), SPX_OK)) {
        int64_t n = p.view->rows;
        spx__multi_owned all = {.n = 1}, none = {.n = 0}, two = {.n = 2};
        all.lo[0] = 0, all.hi[0] = A->cols;
        check_cut(p.view, &all, 0, n);  /* no rest */
        check_cut(p.view, &none, n, n); /* all rest, one piece */
        two.lo[0] = 0, two.hi[0] = 700, two.lo[1] = 1500, two.hi[1] = 2200; /* round robin */
        check_cut(p.view, &two, -1, -1);
        spx__part_free(&p);
    }
    spx_matrix_destroy(A);
}

int main(void)
{
    test_stencil();
    test_random();
    return spx_test_finish();
}
