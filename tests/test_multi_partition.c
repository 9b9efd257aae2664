/* MSREP partitions (src/multi/partition.h): pCSR, pCSC, pCOO and the
 * equal-rows baseline, for 1..N parts on edge cases (empty matrices, a part
 * with no rows, a row longer than a whole part, leading and trailing empty
 * rows, more parts than nonzeros) and random matrices. For every split: the
 * parts' nonzero ranges tile the matrix in order (equal to within one for
 * the nonzero kinds), their line ranges tile the lines with a shared line
 * exactly where a cut splits one, every view is a valid CSR borrowing the
 * source's arrays (no copy), and concatenating the views rebuilds the source
 * (CSR of A, of A^T for pCSC) bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/matrix.h"
#include "multi/partition.h"

static const spx_partition kinds[] = {SPX_PART_PCSR, SPX_PART_PCSC, SPX_PART_PCOO, SPX_PART_ROWS};

/* Row index of every nonzero of M (its row-sorted COO). */
static int64_t *coo_lines_of(const spx_matrix *M)
{
    int64_t *r = malloc(sizeof *r * (size_t)(M->nnz + 1));
    for (int64_t i = 0; i < M->rows; i++)
        for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) r[k] = i;
    return r;
}

/* Ranges tile nonzeros and lines; shared lines only at split cuts. */
static void check_tiling(const spx_matrix *M, spx_partition kind, const spx__part *p, int np)
{
    int64_t most = 0, least = M->nnz;
    CHECK(p[0].nz_begin == 0 && p[np - 1].nz_end == M->nnz);
    CHECK(p[0].line_begin == 0 && p[np - 1].line_end == M->rows);
    CHECK(!p[0].shared_first && !p[np - 1].shared_last);
    for (int i = 0; i < np; i++) {
        int64_t len = p[i].nz_end - p[i].nz_begin;
        most = len > most ? len : most;
        least = len < least ? len : least;
        CHECK(p[i].line_begin <= p[i].line_end && p[i].nz_begin <= p[i].nz_end);
        if (i == 0) continue;
        CHECK(p[i].nz_begin == p[i - 1].nz_end);
        CHECK(p[i].shared_first == p[i - 1].shared_last);
        CHECK(p[i].line_begin == p[i - 1].line_end - p[i].shared_first);
        if (kind == SPX_PART_ROWS) CHECK(!p[i].shared_first);
    }
    if (kind != SPX_PART_ROWS) CHECK(most - least <= 1);
}

/* Each view: valid, its arrays the source's own from nz_begin. */
static void check_views(const spx_matrix *M, const spx__part *p, int np)
{
    size_t es = M->vtype == SPX_F64 ? sizeof(double) : sizeof(float);
    for (int i = 0; i < np; i++) {
        const spx_matrix *v = p[i].view;
        CHECK_STATUS(spx_matrix_validate(v), SPX_OK);
        CHECK(v->rows == p[i].line_end - p[i].line_begin && v->cols == M->cols);
        CHECK(v->col32 == M->col32 + p[i].nz_begin);
        CHECK((const char *)v->values == (const char *)M->values + (size_t)p[i].nz_begin * es);
        if (p[i].shared_first) CHECK(v->rows >= 1);
    }
}

/* Concatenate the views into a CSR and compare it with M, bit for bit. */
static void check_rebuild(const spx_matrix *M, const spx__part *p, int np)
{
    int64_t *rowptr = calloc((size_t)M->rows + 1, sizeof *rowptr);
    int32_t *col = malloc(sizeof *col * (size_t)(M->nnz + 1));
    double *val = malloc(sizeof *val * (size_t)(M->nnz + 1));
    int64_t k = 0;
    for (int i = 0; i < np; i++) {
        const spx_matrix *v = p[i].view;
        for (int64_t j = 0; j < v->rows; j++) {
            rowptr[p[i].line_begin + j + 1] += v->rowptr[j + 1] - v->rowptr[j];
            for (int64_t q = v->rowptr[j]; q < v->rowptr[j + 1]; q++, k++) {
                col[k] = v->col32[q];
                val[k] = ((const double *)v->values)[q];
            }
        }
    }
    for (int64_t i = 0; i < M->rows; i++) rowptr[i + 1] += rowptr[i];
    CHECK(k == M->nnz);
    CHECK(memcmp(rowptr, M->rowptr, sizeof *rowptr * (size_t)(M->rows + 1)) == 0);
    CHECK(memcmp(col, M->col32, sizeof *col * (size_t)M->nnz) == 0);
    CHECK(memcmp(val, M->values, sizeof *val * (size_t)M->nnz) == 0);
    free(rowptr);
    free(col);
    free(val);
}

/* One kind and part count on A: build every part, check, free. */
static void check_split(const spx_matrix *A, spx_partition kind, int np)
{
    spx_matrix *AT = NULL;
    const spx_matrix *M = A;
    int64_t *coo = NULL;
    if (kind == SPX_PART_PCSC) {
        CHECK_STATUS(spx_matrix_transpose(A, &AT), SPX_OK);
        M = AT;
    }
    if (kind == SPX_PART_PCOO) coo = coo_lines_of(A);
    spx__part *p = calloc((size_t)np, sizeof *p);
    for (int i = 0; i < np; i++) {
        spx__part_bounds(M, coo, kind, np, i, &p[i]);
        CHECK_STATUS(spx__part_build(M, coo, &p[i]), SPX_OK);
    }
    check_tiling(M, kind, p, np);
    check_views(M, p, np);
    check_rebuild(M, p, np);
    for (int i = 0; i < np; i++) spx__part_free(&p[i]);
    free(p);
    free(coo);
    spx_matrix_destroy(AT);
}

static void check_all_splits(const spx_matrix *A, int max_parts)
{
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int np = 1; np <= max_parts; np++) check_split(A, kinds[k], np);
}

static spx_matrix *from_triplets(int64_t m, int64_t n, int64_t nnz, const int64_t *ri,
                                 const int64_t *ci)
{
    double *v = malloc(sizeof *v * (size_t)(nnz + 1));
    for (int64_t k = 0; k < nnz; k++) v[k] = 1.0 + (double)k / 8.0;
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(m, n, nnz, ri, ci, v, &A), SPX_OK);
    free(v);
    return A;
}

/* 0x0, 5x7 without nonzeros, one nonzero: more parts than nonzeros. */
static void test_empty_and_tiny(void)
{
    int64_t ri[] = {3}, ci[] = {2};
    spx_matrix *A = from_triplets(0, 0, 0, ri, ci);
    check_all_splits(A, 4);
    spx_matrix_destroy(A);
    A = from_triplets(5, 7, 0, ri, ci);
    check_all_splits(A, 9);
    spx_matrix_destroy(A);
    A = from_triplets(5, 7, 1, ri, ci);
    check_all_splits(A, 9);
    spx_matrix_destroy(A);
}

/* Row 2 holds 50 of 60 nonzeros: with 4 parts of 15, parts 1 and 2 are
 * inside it (one line, shared on both sides); leading and trailing rows are
 * empty. */
static void test_long_row(void)
{
    int64_t ri[60], ci[60], k = 0;
    for (int64_t j = 0; j < 50; j++, k++) ri[k] = 2, ci[k] = j;
    for (int64_t i = 3; i < 13; i++, k++) ri[k] = i, ci[k] = i;
    spx_matrix *A = from_triplets(16, 50, k, ri, ci);
    spx__part p[4];
    for (int i = 0; i < 4; i++) spx__part_bounds(A, NULL, SPX_PART_PCSR, 4, i, &p[i]);
    CHECK(p[1].line_begin == 2 && p[1].line_end == 3 && p[1].shared_first && p[1].shared_last);
    CHECK(p[2].line_begin == 2 && p[2].line_end == 3 && p[2].shared_first && p[2].shared_last);
    CHECK(p[0].line_begin == 0 && p[3].line_end == 16);
    check_all_splits(A, 13);
    spx_matrix_destroy(A);
}

/* 3 rows, up to 8 parts: row blocks with no rows, nonzero parts inside one row. */
static void test_more_parts_than_rows(void)
{
    int64_t ri[] = {0, 0, 1, 2, 2, 2}, ci[] = {0, 3, 1, 0, 1, 2};
    spx_matrix *A = from_triplets(3, 4, 6, ri, ci);
    spx__part p;
    spx__part_bounds(A, NULL, SPX_PART_ROWS, 8, 0, &p);
    CHECK(p.line_begin == 0 && p.line_end == 0 && p.nz_begin == 0 && p.nz_end == 0);
    check_all_splits(A, 8);
    spx_matrix_destroy(A);
}

/* Random matrices of several shapes, including many empty rows and columns. */
static void test_random(void)
{
    static const char *const specs[] = {
        "random:m=200,n=150,nnz=900,seed=3", "random:m=40,n=500,nnz=300,seed=4",
        "random:m=700,n=30,nnz=120,seed=5", "lap2d5:12"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        spx_matrix *A = NULL;
        CHECK_STATUS(spx_generate(specs[s], &A), SPX_OK);
        if (A) check_all_splits(A, 12);
        spx_matrix_destroy(A);
    }
}

/* pCOO's boundaries come from the row indices alone: equal to pCSR's. */
static void test_coo_matches_csr(void)
{
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_generate("random:m=300,n=300,nnz=2000,seed=9", &A), SPX_OK);
    int64_t *coo = coo_lines_of(A);
    for (int np = 1; np <= 9; np++)
        for (int i = 0; i < np; i++) {
            spx__part a, b;
            spx__part_bounds(A, NULL, SPX_PART_PCSR, np, i, &a);
            spx__part_bounds(A, coo, SPX_PART_PCOO, np, i, &b);
            CHECK(memcmp(&a, &b, sizeof a) == 0);
        }
    free(coo);
    spx_matrix_destroy(A);
}

static void test_names(void)
{
    spx_partition k;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        CHECK_STATUS(spx_partition_parse(spx_partition_name(kinds[i]), &k), SPX_OK);
        CHECK(k == kinds[i]);
    }
    CHECK_STATUS(spx_partition_parse("pcsx", &k), SPX_ERR_INVALID_ARG);
    CHECK(strcmp(spx_partition_name((spx_partition)9), "?") == 0);
}

int main(void)
{
    test_empty_and_tiny();
    test_long_row();
    test_more_parts_than_rows();
    test_random();
    test_coo_matches_csr();
    test_names();
    return spx_test_finish();
}
