/* The SpGEMM bench's resident operands (--resident): a host matrix's CSR
 * copied to the GPU once, before any timing (64-bit row offsets, 32-bit
 * columns, its values as they are; bench_cuda_upload: cudaMalloc and
 * cudaMemcpy), and wrapped as a device matrix (spx_matrix_wrap_device), as
 * the device-only cuSPARSE peer holds A and B; and a device C copied back
 * to a new host matrix (spx_matrix_device_csr, then the copies) for the
 * check of the first product, outside the timing. */
#include <stdlib.h>

#include "bench_cuda.h"
#include "bench_spgemm.h"

void bench_resident_free(bench_resident *r)
{
    spx_matrix_destroy(r->M);
    bench_cuda_free(r->rowptr);
    bench_cuda_free(r->colidx);
    bench_cuda_free(r->values);
    r->M = NULL;
    r->rowptr = r->colidx = r->values = NULL;
}

spx_status bench_resident_upload(const spx_matrix *H, bench_resident *r)
{
    bench_csr v;
    spx_status st;
    r->M = NULL;
    r->rowptr = r->colidx = r->values = NULL;
    BENCH_TRY(bench_csr_view(H, &v));
    if (v.col_bits != 32) {
        st = bench_fail(SPX_ERR_UNSUPPORTED, "resident SpGEMM: 64-bit column indices");
        goto cleanup;
    }
    const size_t vb = v.vtype == SPX_F32 ? sizeof(float) : sizeof(double);
    BENCH_TRY(bench_cuda_upload(&r->rowptr, v.rowptr, ((size_t)v.rows + 1) * sizeof(int64_t),
                                "resident row offsets"));
    BENCH_TRY(bench_cuda_upload(&r->colidx, v.colidx, (size_t)v.nnz * sizeof(int32_t),
                                "resident columns"));
    BENCH_TRY(bench_cuda_upload(&r->values, v.values, (size_t)v.nnz * vb, "resident values"));
    BENCH_TRY(bench_lib(spx_matrix_wrap_device(v.rows, v.cols, r->rowptr, 64, r->colidx, 32,
                                               r->values, v.vtype, &r->M)));
    return SPX_OK;
cleanup:
    bench_resident_free(r);
    return st;
}

/* n row offsets of bits (32 or 64) at device src as int64 in host dst. */
static spx_status offsets_to_host(int64_t *dst, const void *src, int bits, int64_t n)
{
    spx_status st = bench_cuda_copy(dst, src, (size_t)n * (size_t)(bits / 8), 0);
    for (int64_t i = n - 1; st == SPX_OK && bits == 32 && i >= 0; i--)
        dst[i] = ((const int32_t *)dst)[i]; /* from the top: slot i is read before written */
    return st;
}

spx_status bench_resident_to_host(const spx_matrix *C, spx_matrix **H)
{
    const void *rp = NULL, *ci = NULL, *val = NULL;
    int bits = 64;
    spx_type vt = SPX_F64;
    int64_t m = 0, n = 0, nnz = 0;
    int64_t *hrp = NULL;
    int32_t *hci = NULL;
    double *hval = NULL;
    spx_status st;
    *H = NULL;
    BENCH_TRY(bench_lib(spx_matrix_dims(C, &m, &n, &nnz)));
    BENCH_TRY(bench_lib(spx_matrix_device_csr(C, &rp, &bits, &ci, &val, &vt)));
    if (vt != SPX_F64) {
        st = bench_fail(SPX_ERR_UNSUPPORTED, "resident SpGEMM: C's values are not fp64");
        goto cleanup;
    }
    BENCH_TRY(bench_alloc((void **)&hrp, (size_t)m + 1, sizeof *hrp, "C's row offsets"));
    BENCH_TRY(bench_alloc((void **)&hci, (size_t)nnz + 1, sizeof *hci, "C's columns"));
    BENCH_TRY(bench_alloc((void **)&hval, (size_t)nnz + 1, sizeof *hval, "C's values"));
    BENCH_TRY(offsets_to_host(hrp, rp, bits, m + 1));
    BENCH_TRY(bench_cuda_copy(hci, ci, (size_t)nnz * sizeof *hci, 0));
    BENCH_TRY(bench_cuda_copy(hval, val, (size_t)nnz * sizeof *hval, 0));
    BENCH_TRY(bench_lib(spx_matrix_create_csr(m, n, hrp, hci, hval, H)));
cleanup:
    free(hrp);
    free(hci);
    free(hval);
    return st;
}
