/* peer-cusparse-spgemm: cuSPARSE's generic SpGEMM, C = A*B, fp64 and fp32
 * (values, products and C in the precision), on the GPU.
 *
 *   prepare: A and B on the device (CSR, 32-bit indices), a handle and their
 *            descriptors.
 *   spgemm:  a whole cusparseSpGEMM as one product needs it, C replacing the
 *            previous one: work estimation (buffer size asked, then the
 *            buffer), compute (the same), C's arrays at its size, copy; then a
 *            device sync. CUSPARSE_SPGEMM_ALG1 (the default algorithm); when it
 *            runs out of memory (INSUFFICIENT_RESOURCES or a failed
 *            allocation), CUSPARSE_SPGEMM_ALG3 from then on (estimateMemory
 *            with chunk fraction 0.2 sizes its buffer), which the record's
 *            detail names. When ALG3 runs out too, the peer declines
 *            (SPX_ERR_UNSUPPORTED with cuSPARSE's status): a row that says so.
 *   result:  C copied to the host, as a new SpX matrix (fp32 values widened).
 *
 * A, B and C stay on the device, so the times have no transfers (SpX's CUDA
 * formats return a host C, spx_spgemm_run: their times include B's upload
 * and C's download). Buffers are allocated and freed in each product, as a
 * user computing one product does.
 *
 * peer-cusparse-spgemm-host: the same product with spx_spgemm_run's
 * boundaries, B from the host and C to the host, as a user of cuSPARSE whose
 * matrices live on the host calls it: each product uploads B (32-bit offsets,
 * values in the precision, cudaMemcpy), computes, and copies C's three
 * arrays into new host arrays (malloc, cudaMemcpy), freed before the next
 * product as the bench frees SpX's C. A is uploaded once, in prepare, as
 * SpX's plan holds A on the device. */
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cusparse_peer.h"

namespace
{

const float ALG3_CHUNK_FRACTION = 0.2f;

struct spgemm_peer {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A, B, C;
    void *arp, *aci, *aval, *brp, *bci, *bval; /* A and B on the device */
    void *crp, *cci, *cval;                    /* the last C */
    int64_t m, n, c_nnz;
    spx_type prec;
    cudaDataType vt;
    cusparseSpGEMMAlg_t alg;
    size_t bytes;
    bool host_io;  /* peer-cusparse-spgemm-host: B up, C down in each product */
    bench_csr b;   /* B's host view (host_io) */
    cusparseSpGEMMDescr_t reuse; /* peer-cusparse-spgemm-reuse: C's pattern made once */
    void *rb4, *rb5;             /* the buffers its compute reads */
};

void free_b(spgemm_peer *p)
{
    if (p->B) cusparseDestroySpMat(p->B);
    void *arrays[] = {p->brp, p->bci, p->bval};
    for (void *a : arrays)
        cusparse_peer_free(a);
    p->B = NULL;
    p->brp = p->bci = p->bval = NULL;
}

void free_c(spgemm_peer *p)
{
    if (p->C) cusparseDestroySpMat(p->C);
    cusparse_peer_free(p->cci);
    cusparse_peer_free(p->cval);
    p->C = NULL;
    p->cci = p->cval = NULL;
    p->c_nnz = 0;
}

void peer_destroy(void *state)
{
    spgemm_peer *p = (spgemm_peer *)state;
    if (!p) return;
    free_c(p);
    free_b(p);
    if (p->reuse) cusparseSpGEMM_destroyDescr(p->reuse);
    cusparse_peer_free(p->rb4);
    cusparse_peer_free(p->rb5);
    if (p->A) cusparseDestroySpMat(p->A);
    if (p->h) cusparseDestroy(p->h);
    void *arrays[] = {p->arp, p->aci, p->aval, p->crp};
    for (void *a : arrays)
        cusparse_peer_free(a);
    free(p);
}

spx_status describe_csr(const bench_csr &M, void *rp, void *ci, void *val, cudaDataType vt,
                        cusparseSpMatDescr_t *d)
{
    spx_status st = SPX_OK;
    SP_TRY(cusparseCreateCsr(d, M.rows, M.cols, M.nnz, rp, ci, val, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt));
cleanup:
    return st;
}

spx_status upload_b(spgemm_peer *p)
{
    spx_status st = SPX_OK;
    BENCH_TRY(cusparse_peer_upload(p->b, p->prec, &p->brp, &p->bci, &p->bval));
    BENCH_TRY(describe_csr(p->b, p->brp, p->bci, p->bval, p->vt, &p->B));
cleanup:
    return st;
}

spx_status prepare(const spx_matrix *A, const spx_matrix *B, const spx_bench_peer_opts *o,
                   bool host_io, void **state)
{
    spgemm_peer *p = NULL;
    bench_csr a, b;
    spx_status st;
    *state = NULL;
    BENCH_TRY(bench_csr_view(A, &a));
    BENCH_TRY(bench_csr_view(B, &b));
    BENCH_TRY(bench_calloc((void **)&p, 1, sizeof *p, "cuSPARSE SpGEMM peer"));
    p->m = a.rows;
    p->n = b.cols;
    p->prec = o->precision;
    p->vt = o->precision == SPX_F64 ? CUDA_R_64F : CUDA_R_32F;
    p->alg = CUSPARSE_SPGEMM_ALG1;
    p->host_io = host_io;
    p->b = b;
    SP_TRY(cusparseCreate(&p->h));
    BENCH_TRY(cusparse_peer_upload(a, o->precision, &p->arp, &p->aci, &p->aval));
    BENCH_TRY(cusparse_peer_alloc(&p->crp, ((size_t)p->m + 1) * sizeof(int32_t), "C offsets"));
    BENCH_TRY(describe_csr(a, p->arp, p->aci, p->aval, p->vt, &p->A));
    if (!host_io) BENCH_TRY(upload_b(p));
    p->bytes = ((size_t)(a.rows + b.rows) + 2) * 4 +
               (size_t)(a.nnz + b.nnz) * (4 + cusparse_peer_value_bytes(o->precision));
    *state = p;
    return SPX_OK;
cleanup:
    peer_destroy(p);
    return st;
}

/* Buffer 2's size: ALG3 through estimateMemory (its own buffer 3 for the
 * estimate), else compute's size query. */
spx_status compute_size(spgemm_peer *p, cusparseSpGEMMDescr_t d, const void *one,
                        const void *zero, size_t *size2)
{
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    void *b3 = NULL;
    size_t size3 = 0;
    spx_status st = SPX_OK;
    if (p->alg != CUSPARSE_SPGEMM_ALG3) {
        SP_TRY(cusparseSpGEMM_compute(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg, d,
                                      size2, NULL));
        return SPX_OK;
    }
    SP_TRY(cusparseSpGEMM_estimateMemory(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg,
                                         d, ALG3_CHUNK_FRACTION, &size3, NULL, NULL));
    BENCH_TRY(cusparse_peer_alloc(&b3, size3, "SpGEMM estimate buffer"));
    SP_TRY(cusparseSpGEMM_estimateMemory(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg,
                                         d, ALG3_CHUNK_FRACTION, &size3, b3, size2));
cleanup:
    cusparse_peer_free(b3);
    return st;
}

/* alpha = 1 or beta = 0 in the peer's value type (static storage). */
const void *scalar(const spgemm_peer *p, int one)
{
    static const double d[2] = {0.0, 1.0};
    static const float f[2] = {0.0f, 1.0f};
    return p->vt == CUDA_R_64F ? (const void *)&d[one] : (const void *)&f[one];
}

/* One product with p->alg into a new C. */
spx_status product(spgemm_peer *p)
{
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const void *one = scalar(p, 1), *zero = scalar(p, 0);
    cusparseSpGEMMDescr_t d = NULL;
    void *b1 = NULL, *b2 = NULL;
    size_t size1 = 0, size2 = 0;
    int64_t rows = 0, cols = 0;
    spx_status st = SPX_OK;
    SP_TRY(cusparseCreateCsr(&p->C, p->m, p->n, 0, p->crp, NULL, NULL, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, p->vt));
    SP_TRY(cusparseSpGEMM_createDescr(&d));
    SP_TRY(cusparseSpGEMM_workEstimation(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg, d,
                                         &size1, NULL));
    BENCH_TRY(cusparse_peer_alloc(&b1, size1, "SpGEMM work buffer"));
    SP_TRY(cusparseSpGEMM_workEstimation(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg, d,
                                         &size1, b1));
    BENCH_TRY(compute_size(p, d, one, zero, &size2));
    BENCH_TRY(cusparse_peer_alloc(&b2, size2, "SpGEMM compute buffer"));
    SP_TRY(cusparseSpGEMM_compute(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg, d,
                                  &size2, b2));
    SP_TRY(cusparseSpMatGetSize(p->C, &rows, &cols, &p->c_nnz));
    BENCH_TRY(cusparse_peer_alloc(&p->cci, (size_t)p->c_nnz * 4, "C columns"));
    BENCH_TRY(cusparse_peer_alloc(&p->cval, (size_t)p->c_nnz * cusparse_peer_value_bytes(p->prec),
                                  "C values"));
    SP_TRY(cusparseCsrSetPointers(p->C, p->crp, p->cci, p->cval));
    SP_TRY(cusparseSpGEMM_copy(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt, p->alg, d));
    CU_TRY(cudaDeviceSynchronize());
cleanup:
    if (d) cusparseSpGEMM_destroyDescr(d);
    cusparse_peer_free(b1);
    cusparse_peer_free(b2);
    return st;
}

spx_status peer_prepare(const spx_matrix *A, const spx_matrix *B, const spx_bench_peer_opts *o,
                        void **state)
{
    return prepare(A, B, o, false, state);
}

spx_status peer_prepare_host(const spx_matrix *A, const spx_matrix *B,
                             const spx_bench_peer_opts *o, void **state)
{
    return prepare(A, B, o, true, state);
}

/* C's three arrays into new host arrays, then freed (host_io). */
spx_status download_c(const spgemm_peer *p)
{
    const size_t nnz = (size_t)p->c_nnz, vb = cusparse_peer_value_bytes(p->prec);
    void *rp = malloc(((size_t)p->m + 1) * 4), *ci = malloc(nnz * 4 + 1), *val = malloc(nnz * vb + 1);
    spx_status st = SPX_OK;
    if (!rp || !ci || !val) {
        st = bench_fail(SPX_ERR_OOM, "cuSPARSE SpGEMM peer: out of host memory for C");
        goto cleanup;
    }
    CU_TRY(cudaMemcpy(rp, p->crp, ((size_t)p->m + 1) * 4, cudaMemcpyDeviceToHost));
    CU_TRY(cudaMemcpy(ci, p->cci, nnz * 4, cudaMemcpyDeviceToHost));
    CU_TRY(cudaMemcpy(val, p->cval, nnz * vb, cudaMemcpyDeviceToHost));
cleanup:
    free(rp), free(ci), free(val);
    return st;
}

spx_status peer_spgemm(void *state)
{
    spgemm_peer *p = (spgemm_peer *)state;
    spx_status st;
    if (p->host_io) {
        free_b(p);
        if ((st = upload_b(p)) != SPX_OK) return st;
    }
    free_c(p);
    st = product(p);
    if (st == SPX_ERR_OOM && p->alg == CUSPARSE_SPGEMM_ALG1) {
        cudaGetLastError(); /* a failed cudaMalloc leaves no sticky error; clear it anyway */
        free_c(p);
        p->alg = CUSPARSE_SPGEMM_ALG3;
        st = product(p);
    }
    if (st == SPX_ERR_OOM) {
        free_c(p);
        return bench_fail(SPX_ERR_UNSUPPORTED, "cuSPARSE SpGEMM declines: ALG1 and ALG3 out of "
                                               "memory (%s)",
                          spx_bench_last_error());
    }
    return st == SPX_OK && p->host_io ? download_c(p) : st;
}

spx_status peer_result(void *state, spx_matrix **C)
{
    spgemm_peer *p = (spgemm_peer *)state;
    size_t nnz = (size_t)p->c_nnz, vb = cusparse_peer_value_bytes(p->prec);
    spx_status st = SPX_OK;
    *C = NULL;
    try {
        std::vector<int32_t> rp((size_t)p->m + 1), ci(nnz);
        std::vector<unsigned char> raw(nnz * vb);
        std::vector<int64_t> ri(nnz), cj(nnz);
        std::vector<double> v(nnz);
        CU_TRY(cudaMemcpy(rp.data(), p->crp, rp.size() * 4, cudaMemcpyDeviceToHost));
        CU_TRY(cudaMemcpy(ci.data(), p->cci, nnz * 4, cudaMemcpyDeviceToHost));
        CU_TRY(cudaMemcpy(raw.data(), p->cval, nnz * vb, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < p->m; i++)
            for (int32_t k = rp[(size_t)i]; k < rp[(size_t)i + 1]; k++) {
                ri[(size_t)k] = i;
                cj[(size_t)k] = ci[(size_t)k];
                v[(size_t)k] = p->prec == SPX_F64 ? ((const double *)raw.data())[k]
                                                  : (double)((const float *)raw.data())[k];
            }
        st = bench_lib(spx_matrix_from_coo(p->m, p->n, (int64_t)nnz, ri.data(), cj.data(),
                                           v.data(), C));
    } catch (const std::bad_alloc &) {
        st = bench_fail(SPX_ERR_OOM, "cuSPARSE SpGEMM peer: out of host memory copying C");
    }
cleanup:
    return st;
}

/* peer-cusparse-spgemm-reuse: cuSPARSE's SpGEMM for repeated products with
 * one pattern, the peer of spx_spgemm_numeric. prepare: A and B on the
 * device, then C's pattern as cusparseSpGEMMreuse makes it, once (work
 * estimation, nnz, C's arrays, copy; buffers 1-3 freed, 4 and 5 kept);
 * spgemm: cusparseSpGEMMreuse_compute alone (C's values), then a device
 * sync. Its whole product (prepare, one compute, destroy) is the peer of
 * SpX's plan, spx_spgemm_run and spx_spgemm_numeric. */
spx_status reuse_pattern(spgemm_peer *p)
{
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = CUSPARSE_SPGEMM_DEFAULT;
    void *b1 = NULL, *b2 = NULL, *b3 = NULL;
    size_t s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    int64_t rows = 0, cols = 0;
    spx_status st = SPX_OK;
    SP_TRY(cusparseCreateCsr(&p->C, p->m, p->n, 0, p->crp, NULL, NULL, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, p->vt));
    SP_TRY(cusparseSpGEMM_createDescr(&p->reuse));
    SP_TRY(cusparseSpGEMMreuse_workEstimation(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s1,
                                              NULL));
    BENCH_TRY(cusparse_peer_alloc(&b1, s1, "SpGEMM reuse buffer 1"));
    SP_TRY(cusparseSpGEMMreuse_workEstimation(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s1,
                                              b1));
    SP_TRY(cusparseSpGEMMreuse_nnz(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s2, NULL, &s3,
                                   NULL, &s4, NULL));
    BENCH_TRY(cusparse_peer_alloc(&b2, s2, "SpGEMM reuse buffer 2"));
    BENCH_TRY(cusparse_peer_alloc(&b3, s3, "SpGEMM reuse buffer 3"));
    BENCH_TRY(cusparse_peer_alloc(&p->rb4, s4, "SpGEMM reuse buffer 4"));
    SP_TRY(cusparseSpGEMMreuse_nnz(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s2, b2, &s3, b3,
                                   &s4, p->rb4));
    SP_TRY(cusparseSpMatGetSize(p->C, &rows, &cols, &p->c_nnz));
    BENCH_TRY(cusparse_peer_alloc(&p->cci, (size_t)p->c_nnz * 4, "C columns"));
    BENCH_TRY(cusparse_peer_alloc(&p->cval, (size_t)p->c_nnz * cusparse_peer_value_bytes(p->prec),
                                  "C values"));
    SP_TRY(cusparseCsrSetPointers(p->C, p->crp, p->cci, p->cval));
    SP_TRY(cusparseSpGEMMreuse_copy(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s5, NULL));
    BENCH_TRY(cusparse_peer_alloc(&p->rb5, s5, "SpGEMM reuse buffer 5"));
    SP_TRY(cusparseSpGEMMreuse_copy(p->h, N, N, p->A, p->B, p->C, alg, p->reuse, &s5, p->rb5));
    CU_TRY(cudaDeviceSynchronize());
cleanup:
    cusparse_peer_free(b1);
    cusparse_peer_free(b2);
    cusparse_peer_free(b3);
    return st;
}

spx_status peer_prepare_reuse(const spx_matrix *A, const spx_matrix *B,
                              const spx_bench_peer_opts *o, void **state)
{
    spx_status st = prepare(A, B, o, false, state);
    if (st != SPX_OK) return st;
    spgemm_peer *p = (spgemm_peer *)*state;
    if ((st = reuse_pattern(p)) == SPX_ERR_OOM)
        st = bench_fail(SPX_ERR_UNSUPPORTED, "cuSPARSE SpGEMM reuse declines: out of memory (%s)",
                        spx_bench_last_error());
    if (st != SPX_OK) {
        peer_destroy(p);
        *state = NULL;
    }
    return st;
}

spx_status peer_spgemm_reuse(void *state)
{
    spgemm_peer *p = (spgemm_peer *)state;
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const void *one = scalar(p, 1), *zero = scalar(p, 0);
    spx_status st = SPX_OK;
    SP_TRY(cusparseSpGEMMreuse_compute(p->h, N, N, one, p->A, p->B, zero, p->C, p->vt,
                                       CUSPARSE_SPGEMM_DEFAULT, p->reuse));
    CU_TRY(cudaDeviceSynchronize());
cleanup:
    return st;
}

size_t peer_bytes(const void *state)
{
    return ((const spgemm_peer *)state)->bytes;
}

void peer_describe(const void *state, char *buf, size_t len)
{
    const spgemm_peer *p = (const spgemm_peer *)state;
    if (p->reuse) {
        snprintf(buf, len, "reuse: C's pattern made once, compute alone");
        return;
    }
    snprintf(buf, len, "%s", p->alg == CUSPARSE_SPGEMM_ALG3 ? "alg=ALG3 (ALG1 out of memory)"
                                                            : "alg=ALG1");
}

} // namespace

extern "C" const spx_bench_peer spx_peer_cusparse_spgemm = {
    "peer-cusparse-spgemm", SPX_OP_SPGEMM, SPX_DEV_CUDA,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    peer_prepare, NULL, peer_spgemm, peer_result, peer_bytes, peer_destroy, peer_describe,
};

extern "C" const spx_bench_peer spx_peer_cusparse_spgemm_host = {
    "peer-cusparse-spgemm-host", SPX_OP_SPGEMM, SPX_DEV_CUDA,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    peer_prepare_host, NULL, peer_spgemm, peer_result, peer_bytes, peer_destroy, peer_describe,
};

extern "C" const spx_bench_peer spx_peer_cusparse_spgemm_reuse = {
    "peer-cusparse-spgemm-reuse", SPX_OP_SPGEMM, SPX_DEV_CUDA,
    BENCH_TYPE_BIT(SPX_F64) | BENCH_TYPE_BIT(SPX_F32),
    peer_prepare_reuse, NULL, peer_spgemm_reuse, peer_result, peer_bytes, peer_destroy,
    peer_describe,
};
