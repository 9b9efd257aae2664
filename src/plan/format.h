/* The format registry: one struct of functions per format.
 * A plan is a matrix prepared by one format on one device for one operation.
 * A format fills the entries of the operations it computes (SpMV: analyze
 * and spmv; SpGEMM: spgemm_analyze and spgemm) and may offer `suits`, its
 * answer to AUTO. Adding a format is one file that defines a spx_format_ops
 * and one line in registry.c; the plan layer, AUTO, the CLI, the bench and the
 * conformance tests find it in the table. */
#ifndef SPX_PLAN_FORMAT_H
#define SPX_PLAN_FORMAT_H

#include <stddef.h>

#include "spx.h"

#define SPX__TYPE_BIT(t) (1u << (unsigned)(t))

/* What AUTO knows of a request when it asks a format how well it suits it:
 * the operation, the options and the row statistics of A (op(A) for SpMV). */
typedef struct spx__auto_facts {
    spx_operation operation;
    const spx_plan_opts *o;
    int64_t rows, cols, nnz;
    int64_t rmax;   /* longest row (0 for a device matrix: not scanned) */
    double rave;    /* mean row */
    int simd;       /* 1 when AVX2 or AVX-512 kernels may run on this CPU */
} spx__auto_facts;

typedef struct spx_format_ops {
    const char *name;     /* "ref", "csr", "axt-uh", "dasp", ... */
    unsigned devices;     /* SPX_DEV_CPU and/or SPX_DEV_CUDA */
    unsigned precisions;  /* SPX__TYPE_BIT(SPX_F64) | ... */
    /* Prepare A (op N; the plan layer transposes for op T). A is borrowed and
     * outlives the state only if the format sets borrows_matrix. o->precision
     * is one of the format's precisions. */
    spx_status (*analyze)(const spx_matrix *A, const spx_plan_opts *o, void **state);
    /* y = alpha*A*x + beta*y with x (of x_type), y of the plan's precision on the plan's
     * device; beta == 0 never reads y. Must not change the state unless the
     * format documents it (then concurrent calls on one plan are not safe). */
    spx_status (*spmv)(void *state, double alpha, const void *x, double beta, void *y);
    size_t (*bytes)(const void *state); /* memory the prepared form holds */
    void (*destroy)(void *state);
    /* Optional: write a one-line description of the prepared form into buf. */
    void (*describe)(const void *state, char *buf, size_t len);
    int borrows_matrix;   /* nonzero: state points into A's arrays */
    /* Optional, NULL-terminated: parameter sets `spx bench` also runs, as rows
     * of their own beside the defaults (e.g. {"x=refresh", NULL}), so that
     * modes a user may choose are measured in the same run. */
    const char *const *bench_variants;
    /* Optional: the element type of the x spmv reads when it is not the
     * plan's vector type (SPX_F16: IEEE half, for xtype=half); NULL or
     * returning the plan's precision: double for F64, float for F32 and F16. */
    spx_type (*x_type)(const void *state);
    /* SpGEMM, C = A*B: prepare A (the left operand; B varies per call), then
     * multiply by B into a new host CSR matrix C with sorted columns and fp64
     * values. spgemm must not change the state (one plan, several threads). */
    spx_status (*spgemm_analyze)(const spx_matrix *A, const spx_plan_opts *o, void **state);
    spx_status (*spgemm)(void *state, const spx_matrix *B, spx_matrix **C);
    /* Optional, spx_spgemm_numeric: C's values again for a B of the pattern
     * that made C (the plan layer has checked the shapes and that B and C
     * live in one place); a format without it, or one that calls
     * spx__spgemm_refill for the cases it does not take, runs the whole
     * product instead. Must leave C as it was when it fails. */
    spx_status (*spgemm_numeric)(void *state, const spx_matrix *B, spx_matrix *C);
    /* SpMM, Y = alpha*A*X + beta*Y with X (A's columns x k) and Y (A's rows x
     * k) dense, row-major with leading dimensions ldx, ldy >= k, k >= 1, of
     * the plan's vector type on its device; beta == 0 never reads Y. The plan
     * layer has checked the call and transposes for op T. Prepared by
     * spmm_analyze, or by analyze when that is NULL (then the state is the
     * SpMV one), in every precision of the format; bytes, describe and
     * destroy take both states. Must not change the state. */
    spx_status (*spmm_analyze)(const spx_matrix *A, const spx_plan_opts *o, void **state);
    spx_status (*spmm)(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                       double beta, void *Y, int64_t ldy);
    /* SDDMM, Z[e] = alpha * X(i, :) . Y(j, :) + beta*Z[e] for each entry e =
     * (i, j) of A in A's CSR order (spx.h), X, Y and Z of the plan's vector type
     * on its device; beta == 0 never reads Z, k == 0 gives beta*Z. The plan
     * layer has checked the call (op N only). Prepared by sddmm_analyze, or
     * by analyze when that is NULL; bytes, describe and destroy take every
     * state the format makes. Must not change the state. */
    spx_status (*sddmm_analyze)(const spx_matrix *A, const spx_plan_opts *o, void **state);
    spx_status (*sddmm)(void *state, int64_t k, double alpha, const void *X, int64_t ldx,
                        const void *Y, int64_t ldy, double beta, void *Z);
    /* Optional, spx_plan_update_values: new values for the matrix a state
     * (SpMV or SpMM) was prepared from, same pattern. values[e] is entry e's
     * in that matrix's CSR order, of the plan's vector type (double for F64,
     * float for F32 and F16), in device memory when on_device (CUDA plans)
     * else host memory. Afterwards products give the bits of a state
     * prepared from the matrix with these values (spx.h states the one
     * exception: a state that stores values keeps storing them). An iso
     * state (core/iso.h) takes new values of one number in place, and stores
     * varied ones from then on or returns SPX_ERR_UNSUPPORTED naming
     * values=stored. Leaves the state as it was on SPX_ERR_UNSUPPORTED and
     * SPX_ERR_INVALID_ARG. CUDA states work on the plan's stream and return
     * when values has been read (the caller may then change or free it).
     * Without this hook the plan layer says SPX_ERR_UNSUPPORTED. */
    spx_status (*update_values)(void *state, const void *values, int on_device);
    /* Optional, AUTO: how well this format suits A for the request, as the
     * speed it expects relative to the device's baseline format (CPU and CUDA
     * csr, CPU gustavson: 1), counting its preparation against the expected
     * calls; 0 or less: never chosen. The one with the highest answer wins,
     * ties go to the first in the table. A format without suits is never
     * chosen by AUTO. Must be cheap next to analyze. */
    double (*suits)(const spx_matrix *A, const spx__auto_facts *f);
    /* Nonzero: analyze takes a device matrix (spx_matrix_wrap_device: its
     * arrays in A->dev, none on the host; core/matrix.h) for SpMV; for
     * SpGEMM, spgemm_analyze takes one as A and spgemm as B (then C is a
     * device matrix too). The plan layer declines other formats for such a
     * matrix, and AUTO chooses among these alone (with facts holding no row
     * statistics: rmax 0). */
    int device_matrix;
    /* Optional, for tests (the Python binding's zero-copy check): the device
     * arrays the prepared form reads as A's row offsets, columns and values
     * (NULL for one it does not read as such). */
    void (*device_arrays)(const void *state, const void **rowptr, const void **colidx,
                          const void **values);
} spx_format_ops;

/* P's format's device_arrays (all NULL for a format without it, or a bad
 * plan). A test hook: the Python binding, linked with the static library,
 * declares it itself. */
void spx__plan_device_arrays(const spx_plan *P, const void **rowptr, const void **colidx,
                             const void **values);

/* The CUDA stream of a plan (NULL: the default stream, or not a plan). */
void *spx__plan_stream(const spx_plan *P);
/* The plan's slot for a solver's workspace (core/keep.h), freed with the
 * plan; writable through a const plan, as it is no part of the product. */
struct spx__keep *spx__plan_keep(const spx_plan *P);

/* Operation bits of a format: SPX__OP_BIT(SPX_OP_SPMV) when it has spmv, ... */
#define SPX__OP_BIT(op) (1u << (unsigned)(op))
unsigned spx__format_operations(const spx_format_ops *f);

/* The registry, in order; NULL-terminated. */
extern const spx_format_ops *const spx__formats[];

/* Find the format of that name computing operation op on device d in
 * precision t. */
const spx_format_ops *spx__format_find(const char *name, spx_operation op, spx_device d,
                                       spx_type t);
/* The first format computing op on d in t (and, device_matrix nonzero,
 * taking a device matrix), or NULL. */
const spx_format_ops *spx__format_find_any(spx_operation op, spx_device d, spx_type t,
                                           int device_matrix);

/* AUTO: the format for A with o (device, precision, expected calls) that
 * answers best in its suits hook among those computing op; NULL when none
 * does (no format of that operation on that device and precision). */
const spx_format_ops *spx__auto_format(const spx_matrix *A, spx_operation op,
                                       const spx_plan_opts *o);

/* spx_spgemm_numeric by the whole product (plan/spgemm_numeric.c): C' =
 * A*B with f's spgemm, then C's values from C' when C' has C's pattern
 * (SPX_ERR_INVALID_ARG and C untouched otherwise); C' freed. */
spx_status spx__spgemm_refill(const spx_format_ops *f, void *state, const spx_matrix *B,
                              spx_matrix *C);

/* Parse "key=value,key=value" params: calls fn for each pair; stops and returns
 * fn's error. Keys and values are NUL-terminated copies valid during the call. */
spx_status spx__params_each(const char *params,
                            spx_status (*fn)(void *ctx, const char *key, const char *value),
                            void *ctx);
/* Parse an integer parameter value in [lo, hi]; SPX_ERR_BAD_PARAM naming key. */
spx_status spx__param_int(const char *key, const char *value, long lo, long hi, long *out);
/* SPX_ERR_BAD_PARAM naming `format` and the first key when params holds any
 * pair: for formats that take no parameters. */
spx_status spx__params_none(const char *params, const char *format);
/* Parse "on" or "off" into *on (1 or 0); SPX_ERR_BAD_PARAM naming key. */
spx_status spx__param_on_off(const char *key, const char *value, int *on);
/* Parse xtype=float|half (CUDA fp16 plans: x read as float, the default, or
 * as IEEE half) into *half (0 or 1); SPX_ERR_BAD_PARAM naming key. */
spx_status spx__param_xtype(const char *key, const char *value, int *half);
/* SPX_ERR_BAD_PARAM naming who when half is set and precision is not SPX_F16. */
spx_status spx__check_xtype(int half, spx_type precision, const char *who);

#endif
