/* The SpGEMM bench's reference product and check (bench_spgemm_ref.c). */
#ifndef SPX_BENCH_SPGEMM_H
#define SPX_BENCH_SPGEMM_H

#include "bench_internal.h"

/* C = A*B by rows, summed in long double, with C's symbolic pattern (every
 * (i, j) some product a_ik b_kj reaches, cancellations kept as entries) and
 * per entry the sum of |a_ik| |b_kj|, the scale of its error. */
typedef struct bench_spgemm_ref {
    int64_t rows, cols, nnz;
    int64_t products; /* sum over the nonzeros a_ik of nnz(B(k,:)) */
    int64_t *rowptr;  /* rows + 1 */
    int64_t *col;     /* nnz, sorted in each row */
    double *val;      /* nnz: the sum rounded to double */
    double *scale;    /* nnz: sum of |a_ik| |b_kj| */
} bench_spgemm_ref;

spx_status bench_spgemm_reference(const spx_matrix *A, const spx_matrix *B, bench_spgemm_ref *r);
void bench_spgemm_ref_free(bench_spgemm_ref *r);

/* Compare C with the reference: C must be valid CSR of the same shape whose
 * entries all lie in the reference's pattern. *err = max over the pattern of
 * |c_ij - ref_ij| / scale_ij (an entry absent from C counts as 0 and adds one
 * to *dropped); INFINITY for an entry outside the pattern or a NaN. */
spx_status bench_spgemm_check(const spx_matrix *C, const bench_spgemm_ref *r, double *err,
                              int64_t *dropped, int64_t *nnz_c);

/* --resident (bench_spgemm_resident.c): a host matrix's CSR on the GPU,
 * wrapped as a device matrix M over the bench's arrays. */
typedef struct bench_resident {
    spx_matrix *M;
    void *rowptr, *colidx, *values; /* device (cudaMalloc) */
} bench_resident;

spx_status bench_resident_upload(const spx_matrix *H, bench_resident *r);
void bench_resident_free(bench_resident *r); /* M, then the arrays */
/* A device C (spx_matrix_device_csr) into a new host matrix *H. */
spx_status bench_resident_to_host(const spx_matrix *C, spx_matrix **H);

#endif
