/* The multi-device executor with CPU parts (spx_multi_*): every partition
 * kind with 1..5 parts (and more parts than rows or nonzeros) on random,
 * stencil, long-row, rectangular and empty matrices, op N and op T, fp64 and
 * fp32, beta 0 with NaN in y, several part formats: against the long-double
 * reference within (32 + rmax) eps (|alpha| |op(A)| |x| + |beta| |y|), and
 * the same bits on every call; resident vectors sharing one host buffer
 * (test_multi_check.h); pcsc parts' spans (narrow, missing both ends of y,
 * whole). Also the parts' descriptions and times, split parts,
 * bad input, and every allocation of plan creation and of resident vectors
 * failing in turn. */
#include "core/alloc.h"
#include "test_multi_check.h"

static spx_matrix *long_row_matrix(void)
{
    int64_t ri[80], ci[80], k = 0;
    for (int64_t j = 0; j < 60; j++, k++) ri[k] = 3, ci[k] = j;
    for (int64_t i = 4; i < 24; i++, k++) ri[k] = i, ci[k] = i;
    spx_matrix *A = NULL;
    CHECK_STATUS(spx_matrix_from_coo(30, 60, k, ri, ci, NULL, &A), SPX_OK);
    return A;
}

static void test_matrices(void)
{
    static const char *const specs[] = {"random:m=300,n=300,nnz=3000,seed=2", "lap2d5:20",
                                        "random:m=90,n=250,nnz=700,seed=3",
                                        "powerlaw:n=400,avg=8,alpha=2.1,seed=4"};
    spx_plan_opts o = spx_plan_opts_default();
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        spx_matrix *A = generate(specs[s]);
        if (!A) continue;
        check_all_kinds(A, o, 5, NULL);
        spx_matrix_destroy(A);
    }
    spx_matrix *A = long_row_matrix();
    check_all_kinds(A, o, 5, NULL);
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 40; /* more parts than rows: parts inside the long row, parts with no rows */
    for (size_t k = 0; k < NKINDS; k++) {
        m.partition = kinds[k];
        check_plan(A, o, m);
    }
    spx_matrix_destroy(A);
    /* Square, for resident vectors: row 3 full, the diagonal elsewhere; more
     * parts than rows, op N and op T. */
    int64_t ri[120], ci[120], k = 0;
    for (int64_t j = 0; j < 60; j++, k++) ri[k] = 3, ci[k] = j;
    for (int64_t i = 0; i < 60; i++)
        if (i != 3) ri[k] = i, ci[k] = (i * 7) % 60, k++;
    CHECK_STATUS(spx_matrix_from_coo(60, 60, k, ri, ci, NULL, &A), SPX_OK);
    m.parts = 70;
    for (int op = 0; op < 2; op++) {
        o.op = op ? SPX_OP_T : SPX_OP_N;
        for (size_t kk = 0; kk < NKINDS; kk++) {
            m.partition = kinds[kk];
            check_plan(A, o, m);
        }
        check_all_kinds(A, o, 4, NULL);
    }
    o.op = SPX_OP_N;
    o.precision = SPX_F32; /* resident vectors of floats */
    check_all_kinds(A, o, 3, NULL);
    spx_matrix_destroy(A);
}

/* op T, fp32 and other part formats on a rectangular matrix. */
static void test_variants(void)
{
    spx_matrix *A = generate("random:m=120,n=77,nnz=900,seed=5");
    if (!A) return;
    spx_plan_opts o = spx_plan_opts_default();
    o.op = SPX_OP_T;
    check_all_kinds(A, o, 4, NULL);
    o.op = SPX_OP_N;
    o.precision = SPX_F32;
    check_all_kinds(A, o, 3, NULL);
    o.precision = SPX_F64;
    static const char *const formats[] = {"csr", "coo", "sell", "ref"};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        o.format = formats[f];
        check_all_kinds(A, o, 3, NULL);
    }
    spx_matrix_destroy(A);
}

static void test_empty(void)
{
    int64_t dims[][2] = {{0, 0}, {6, 0}, {0, 5}, {6, 5}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        int64_t *rp = calloc((size_t)dims[d][0] + 1, sizeof *rp);
        int32_t col = 0;
        double v = 0;
        spx_matrix *A = NULL;
        CHECK_STATUS(spx_matrix_create_csr(dims[d][0], dims[d][1], rp, &col, &v, &A), SPX_OK);
        spx_plan_opts o = spx_plan_opts_default();
        check_all_kinds(A, o, 3, NULL);
        o.op = SPX_OP_T;
        check_all_kinds(A, o, 3, NULL);
        spx_matrix_destroy(A);
        free(rp);
    }
}

/* pcsc parts write only the rows their columns touch (test_multi_check.h):
 * banded and end-padded matrices, fp64 and fp32, 40 parts (on 24
 * nonzeros: some without any); a random matrix of 100 nonzeros a row, where every part's
 * span is the whole of y. */
static void test_pcsc_spans(void)
{
    spx_plan_opts o = spx_plan_opts_default();
    check_pcsc_cases(o, 600, 4, 40, NULL);
    o.precision = SPX_F32;
    check_pcsc_cases(o, 600, 3, 40, NULL);
    spx_matrix *A = generate("random:m=300,n=300,nnz=30000,seed=2"); /* each part: every row */
    if (!A) return;
    o.precision = SPX_F64;
    for (int parts = 1; parts <= 3; parts++) {
        int narrow = check_pcsc_spans(A, o, parts, NULL);
        if (!CHECK(narrow == 0))
            fprintf(stderr, "  random, %d parts: %d narrow spans\n", parts, narrow);
    }
    spx_matrix_destroy(A);
}

/* Parts cover the nonzeros; times are set; formats named. */
static void test_info(void)
{
    spx_matrix *A = generate("random:m=500,n=500,nnz=5000,seed=6");
    if (!A) return;
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 3;
    m.partition = SPX_PART_PCSR;
    spx_multi_plan *P = NULL;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_OK);
    CHECK(spx_multi_plan_parts(P) == 3);
    int64_t nnz = 0, lines = 0;
    for (int i = 0; i < 3; i++) {
        spx_multi_part_info in;
        CHECK_STATUS(spx_multi_plan_part(P, i, &in), SPX_OK);
        CHECK(in.device == SPX_MULTI_CPU && in.format && in.bytes > 0);
        nnz += in.nnz;
        lines += in.count - in.shared_first;
    }
    CHECK(nnz == 5000 && lines == 500);
    double *x = calloc(500, sizeof *x), *y = calloc(500, sizeof *y);
    CHECK_STATUS(spx_multi_spmv(P, 1.0, x, 0.0, y), SPX_OK);
    spx_multi_timing t;
    CHECK_STATUS(spx_multi_times(P, &t), SPX_OK);
    CHECK(t.partition_ms >= 0 && t.prepare_ms > 0 && t.spmv_ms > 0 && t.call_ms >= t.spmv_ms);
    spx_multi_part_info in;
    CHECK_STATUS(spx_multi_plan_part(P, 3, &in), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_multi_spmv(P, 1.0, NULL, 0.0, y), SPX_ERR_INVALID_ARG);
    spx_multi_plan_destroy(P);
    CHECK_STATUS(spx_multi_times(NULL, &t), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_multi_set_graph(NULL, 1), SPX_ERR_BAD_HANDLE);
    CHECK(spx_multi_plan_parts(NULL) == 0);
    free(x);
    free(y);
    spx_matrix_destroy(A);
}

/* Parts of one device (the CPU here) are split exactly where their first
 * line is shared (row kinds), into a plan of the rest and a ghost plan of
 * one line in the same format; the ghost plan's bytes count in the part's. */
static void test_splits(void)
{
    spx_matrix *A = generate("lap2d5:20"); /* rows of 3-5 nonzeros: cuts fall inside rows */
    if (!A) return;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "csr";
    for (size_t k = 0; k < NKINDS; k++) {
        spx_multi_opts m = spx_multi_opts_default();
        m.partition = kinds[k];
        m.parts = 5;
        spx_multi_plan *P = NULL;
        if (!CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_OK)) continue;
        int splits = 0;
        for (int i = 0; i < m.parts; i++) {
            const spx__multi_part *p = &P->part[i];
            spx_multi_part_info in;
            spx_multi_plan_part(P, i, &in);
            CHECK(p->split == (kinds[k] != SPX_PART_PCSC && in.shared_first));
            CHECK(!p->split || (p->ghost && strcmp(spx_plan_format(p->ghost), "csr") == 0 &&
                                in.bytes > spx_plan_bytes(p->plan)));
            splits += p->split;
        }
        CHECK(kinds[k] == SPX_PART_PCSC || kinds[k] == SPX_PART_ROWS || splits > 0);
        spx_multi_plan_destroy(P);
    }
    spx_matrix_destroy(A);
}

/* Resident vectors: handles, another plan's vector, a rectangular op(A). */
static void test_bad_resident(const spx_matrix *A)
{
    spx_multi_plan *P = NULL, *Q = NULL, *R = NULL;
    spx_multi_vector *v = NULL, *w = NULL, *u = NULL;
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 2;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_OK);
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &Q), SPX_OK);
    CHECK_STATUS(spx_multi_vector_create(NULL, &v), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_multi_vector_create(P, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_multi_vector_create(P, &v), SPX_OK);
    CHECK_STATUS(spx_multi_vector_create(P, &w), SPX_OK);
    CHECK_STATUS(spx_multi_vector_create(Q, &u), SPX_OK);
    CHECK_STATUS(spx_multi_spmv_resident(P, 1.0, v, 0.0, u), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_multi_spmv_resident(P, 1.0, NULL, 0.0, w), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_multi_spmv_resident(NULL, 1.0, v, 0.0, w), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_multi_vector_set(v, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_multi_vector_get(NULL, NULL), SPX_ERR_BAD_HANDLE);
    spx_multi_vector_destroy(v);
    spx_matrix *B = generate("random:m=40,n=30,nnz=200,seed=9");
    if (B) {
        CHECK_STATUS(spx_multi_plan_create(B, NULL, &m, &R), SPX_OK);
        CHECK_STATUS(spx_multi_vector_create(R, &v), SPX_ERR_UNSUPPORTED);
        CHECK(strstr(spx_last_error(), "square") != NULL);
    }
    spx_multi_vector_destroy(w);
    spx_multi_vector_destroy(NULL);
    spx_multi_plan_destroy(P);
    spx_multi_plan_destroy(Q);
    spx_multi_vector_destroy(u); /* after its plan: allowed (ASan watches) */
    spx_multi_plan_destroy(R);
    spx_matrix_destroy(B);
}

static void test_bad_input(void)
{
    spx_matrix *A = generate("lap2d5:8");
    if (!A) return;
    spx_multi_plan *P = NULL;
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 0;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_ERR_INVALID_ARG);
    m.parts = SPX_MULTI_MAX_PARTS + 1;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_ERR_INVALID_ARG);
    m.parts = 2;
    m.partition = (spx_partition)9;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_ERR_INVALID_ARG);
    m.partition = SPX_PART_PCSR;
    int bad[] = {SPX_MULTI_CPU, -5}, far[] = {SPX_MULTI_CPU, 1000};
    m.devices = bad;
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_ERR_INVALID_ARG);
    m.devices = far;
    spx_status st = spx_multi_plan_create(A, NULL, &m, &P);
    CHECK(st == SPX_ERR_NOT_COMPILED || st == SPX_ERR_NO_DEVICE || st == SPX_ERR_INVALID_ARG);
    CHECK(P == NULL);
    m.devices = NULL;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = "no-such-format";
    CHECK_STATUS(spx_multi_plan_create(A, &o, &m, &P), SPX_ERR_NO_FORMAT);
    CHECK(strstr(spx_last_error(), "part") != NULL);
    CHECK_STATUS(spx_multi_plan_create(NULL, NULL, &m, &P), SPX_ERR_BAD_HANDLE);
    CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, NULL), SPX_ERR_INVALID_ARG);
    CHECK_STATUS(spx_multi_spmv(NULL, 1.0, NULL, 0.0, NULL), SPX_ERR_BAD_HANDLE);
    test_bad_resident(A);
    spx_matrix_destroy(A);
}

/* A plan, a host call, then two resident vectors and a resident call. */
static spx_status plan_and_calls(const spx_matrix *A, const spx_multi_opts *m, spx_multi_plan **P,
                                 const double *x, double *y)
{
    spx_multi_vector *vx = NULL, *vy = NULL;
    spx_status st = spx_multi_plan_create(A, NULL, m, P);
    if (st == SPX_OK) st = spx_multi_spmv(*P, 1.0, x, 0.0, y);
    if (st == SPX_OK) st = spx_multi_vector_create(*P, &vx);
    if (st == SPX_OK) st = spx_multi_vector_create(*P, &vy);
    if (st == SPX_OK) st = spx_multi_spmv_resident(*P, 1.0, vx, -0.5, vy);
    spx_multi_vector_destroy(vx);
    spx_multi_vector_destroy(vy);
    return st;
}

/* Every allocation of plan creation (split parts' two plans included), of
 * the first call and of the resident vectors and call failing in turn:
 * SPX_ERR_OOM, nothing leaked (the sanitizer build checks). */
static void test_alloc_failures(void)
{
    spx_matrix *A = generate("random:m=60,n=60,nnz=400,seed=8");
    if (!A) return;
    double x[60] = {0}, y[60] = {0};
    for (size_t k = 0; k < NKINDS; k++) {
        spx_multi_opts m = spx_multi_opts_default();
        m.partition = kinds[k];
        m.parts = 3;
        int done = 0;
        for (long n = 1; n < 10000 && !done; n++) {
            spx_multi_plan *P = NULL;
            spx__alloc_fail_at(n);
            spx_status st = plan_and_calls(A, &m, &P, x, y);
            spx__alloc_fail_at(0);
            done = st == SPX_OK;
            if (!done && !CHECK(st == SPX_ERR_OOM)) break;
            spx_multi_plan_destroy(P);
        }
        CHECK(done);
    }
    spx_matrix_destroy(A);
}

int main(void)
{
    test_matrices();
    test_variants();
    test_empty();
    test_pcsc_spans();
    test_info();
    test_splits();
    test_bad_input();
    test_alloc_failures();
    return spx_test_finish();
}
