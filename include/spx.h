/* SpX: fast sparse matrix products on CPUs and GPUs.
 *
 * The only installed header. Every function returns spx_status (0 success,
 * negative error); spx_last_error() gives the detail of the last failure on
 * the calling thread. The library never prints, exits or aborts.
 *
 * Inspect-then-execute:
 *   spx_matrix *A; spx_plan *P;
 *   spx_matrix_read("m.mtx", &A);
 *   spx_plan_opts o = spx_plan_opts_default();
 *   spx_plan_create(A, SPX_OP_SPMV, &o, &P);    (preprocessing, timed)
 *   spx_spmv(P, alpha, x, beta, y);             (y = alpha*op(A)*x + beta*y)
 * A plan is made for one operation: SPX_OP_SPMV (spx_spmv), SPX_OP_SPMM
 * (spx_spmm: Y = alpha*op(A)*X + beta*Y, X and Y dense with k columns),
 * SPX_OP_SDDMM (spx_sddmm: the dense product X*Y^T sampled at A's entries) or
 * SPX_OP_SPGEMM (spx_spgemm_run: C = A*B for any B). Formats are plugins of a registry
 * (spx_format_count, spx_format_get); "auto" asks each one how well it suits
 * the matrix.
 */
#ifndef SPX_H
#define SPX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPX_VERSION_MAJOR 0
#define SPX_VERSION_MINOR 1
#define SPX_VERSION_PATCH 0

typedef enum spx_status {
    SPX_OK = 0,
    SPX_ERR_INVALID_ARG = -1,   /* NULL pointer, negative size, bad option */
    SPX_ERR_OOM = -2,           /* an allocation failed; the message has the bytes */
    SPX_ERR_IO = -3,            /* a file could not be opened, read or written */
    SPX_ERR_UNSUPPORTED = -4,   /* valid request SpX does not handle (complex values, ...) */
    SPX_ERR_OVERFLOW = -5,      /* a count or size does not fit its type */
    SPX_ERR_NOT_COMPILED = -6,  /* the feature was not built in (CUDA, zlib) */
    SPX_ERR_DEVICE = -7,        /* a CUDA error; the message has CUDA's text */
    SPX_ERR_BAD_HANDLE = -8,    /* NULL, freed or garbage matrix or plan */
    SPX_ERR_DIM_MISMATCH = -9,  /* operand shapes do not agree */
    SPX_ERR_INDEX_RANGE = -10,  /* a row or column index outside the matrix */
    SPX_ERR_UNSORTED = -11,     /* column indices of a row not increasing */
    SPX_ERR_DUPLICATE = -12,    /* the same (row, column) stored twice */
    SPX_ERR_BAD_ROWPTR = -13,   /* row offsets not starting at 0 or decreasing */
    SPX_ERR_NO_FORMAT = -14,    /* no registered format of that name, device, precision */
    SPX_ERR_BAD_PARAM = -15,    /* a format parameter unknown or out of range */
    SPX_ERR_NO_DEVICE = -16,    /* CUDA built in, but no usable GPU (none, or no driver) */
    SPX_ERR_NOT_CONVERGED = -17, /* a solver reached its iteration limit */
    SPX_ERR_BREAKDOWN = -18,    /* a solver divided by zero (or by p'Ap <= 0 in CG) */
    /* Matrix Market and SpX binary files; the message names the line. */
    SPX_ERR_MTX_BANNER = -20,    /* missing or malformed %%MatrixMarket banner */
    SPX_ERR_MTX_SIZE = -21,      /* missing or malformed size line */
    SPX_ERR_MTX_ENTRY = -22,     /* malformed entry line (missing or extra fields) */
    SPX_ERR_MTX_NUMBER = -23,    /* a field is not a valid number */
    SPX_ERR_MTX_TOO_FEW = -24,   /* fewer entries than the size line promised */
    SPX_ERR_MTX_TOO_MANY = -25,  /* more entries than the size line promised */
    SPX_ERR_MTX_TRUNCATED = -26, /* file ends inside a line or a compressed stream */
    SPX_ERR_BIN_FORMAT = -27,    /* SpX binary: bad magic, version or checksum */
    SPX_ERR_MTX_SYMMETRY = -28   /* symmetric file with entries above the diagonal, ... */
} spx_status;

/* Message for the last failed call on this thread ("" if none). */
const char *spx_last_error(void);
/* Short constant name of a status ("SPX_ERR_OOM"). */
const char *spx_status_name(spx_status s);

typedef enum spx_type {
    SPX_F64 = 0, /* double */
    SPX_F32 = 1, /* float */
    SPX_F16 = 2  /* values in IEEE half, products accumulated in fp32; x and y are float
                    (x in half with the CUDA param xtype=half: spx_plan_x_type) */
} spx_type;

typedef enum spx_device { SPX_DEV_CPU = 1u, SPX_DEV_CUDA = 2u } spx_device;

/* Transposition of A in a product: y = alpha*op(A)*x + beta*y. */
typedef enum spx_op { SPX_OP_N = 0, SPX_OP_T = 1 } spx_op;

/* The operation a plan is made for. */
typedef enum spx_operation {
    SPX_OP_SPMV = 0,   /* y = alpha*op(A)*x + beta*y, spx_spmv */
    SPX_OP_SPGEMM = 1, /* C = A*B, spx_spgemm_run */
    SPX_OP_SPMM = 2,   /* Y = alpha*op(A)*X + beta*Y, dense X and Y: spx_spmm */
    SPX_OP_SDDMM = 3   /* Z = alpha*(X*Y^T at A's entries) + beta*Z: spx_sddmm */
} spx_operation;

/* ------------------------------------------------------------------ matrix */

/* Opaque sparse matrix: CSR with 64-bit row offsets, 32-bit column indices
 * (64-bit when the column count needs it), fp64 or fp32 values. */
typedef struct spx_matrix_s spx_matrix;

/* Copy CSR arrays into a new matrix (values may be NULL: all ones). */
spx_status spx_matrix_create_csr(int64_t rows, int64_t cols,
                                 const int64_t *rowptr, /* in: rows+1 offsets */
                                 const int32_t *colidx, /* in: rowptr[rows] columns */
                                 const double *values,  /* in: or NULL */
                                 spx_matrix **A);       /* out: owned by caller */

/* Wrap caller-owned CSR arrays without copying; they must outlive *A and its
 * plans. Values the caller changes after planning are seen, in the next
 * product, only by plans that read them in place: CPU ref, csr and coo plans
 * of op N without reorder=, of the values' precision (fp64), and for csr
 * only with stored values (values=stored, or a matrix that is not
 * iso-valued). An iso plan (the default of csr, sell, and CUDA dasp and hbp, for a matrix whose
 * values are all one number, spx_matrix_iso) has folded the value into
 * alpha and does not see the change; nor do plans of another precision or op
 * T, or with reorder= (they hold a converted, transposed or permuted copy),
 * nor formats that build their own layout (sell, axc, axt-*, CUDA plans). */
spx_status spx_matrix_wrap_csr(int64_t rows, int64_t cols,
                               const int64_t *rowptr, /* borrowed */
                               const int32_t *colidx, /* borrowed */
                               const double *values,  /* borrowed */
                               spx_matrix **A);       /* out */

/* Wrap caller-owned CSR arrays of either index width and value type without
 * copying row offsets, columns or values (they must outlive *A and not
 * change while plans of A exist). 32-bit row offsets are borrowed, not
 * copied: csr plans (and ref) read them in place; other formats build their
 * own layouts, and those that need 64-bit offsets widen them once into a
 * copy of rows+1 entries kept with *A (made by the first such plan,
 * spx_matrix_csr or file write; freed by spx_matrix_destroy).
 * spx_matrix_row_offsets shows which. 64-bit column indices of a matrix of
 * fewer than 2^31 columns are narrowed into a copy (SpX keeps 32-bit columns
 * wherever they fit, and its formats rely on it). Validated like every
 * constructor (sorted rows, no duplicates, indices in range): O(nnz). This
 * is how scipy's CSR arrays (int32 or int64 indptr and indices, float64 or
 * float32 data) are used in place; scipy's default, int32 indptr and indices,
 * is wrapped with no copy at all. Plans of CUDA formats need 32-bit columns. */
spx_status spx_matrix_wrap(int64_t rows, int64_t cols,
                           const void *rowptr, int rowptr_bits, /* borrowed; 32 or 64 */
                           const void *colidx, int col_bits,    /* borrowed; 32 or 64 */
                           const void *values, spx_type vtype,  /* borrowed; SPX_F64 or SPX_F32 */
                           spx_matrix **A);                     /* out */

/* Wrap caller-owned CSR arrays in CUDA device memory (cudaMalloc'd, managed,
 * or cupyx.scipy.sparse's) without copying: a device matrix. The arrays are
 * borrowed: they must outlive *A and its plans, and must not change while a
 * plan of A exists (a plan's row blocks were built from the offsets as they
 * were; values of the plan's precision are read in place by each product).
 * spx_matrix_destroy frees the header alone. The arrays are on the current
 * device, written before the call returns (e.g. after a stream sync).
 *   row offsets: rows+1 entries, 32 or 64 bits;
 *   columns: 32 bits only (cupyx's indices are int32): 64 is
 *     SPX_ERR_UNSUPPORTED; sorted within a row is expected, as in every
 *     matrix (the CUDA csr kernels sum any order);
 *   values: fp64 or fp32.
 * Checked: each array is device memory of the current device
 * (SPX_ERR_INVALID_ARG), and the row offsets, copied to the host, start at
 * 0 and never decrease (SPX_ERR_BAD_ROWPTR); nnz is the last offset.
 * Not checked (that would read every nonzero): column range, order and
 * duplicates; a column out of range makes the GPU read outside x.
 * A device matrix has no host arrays. spx_matrix_dims and spx_plan_create
 * take it; plans are CUDA SpMV, SpMM and SDDMM of op N, by the formats that
 * take a device matrix (csr; "auto" picks among those), which read its columns and
 * values in place (csr: spx_plan_describe says "matrix=device (borrowed: ...)"),
 * and CUDA SpGEMM (either operand, format gpu-rows or auto, f64; a device B
 * gives a device C: spx_spgemm_run).
 * Every call that reads a matrix's arrays on the host returns
 * SPX_ERR_UNSUPPORTED for it ("a device matrix (spx_matrix_wrap_device) has
 * no host arrays: ..."): CPU plans, op T, reorder=, SpGEMM formats other
 * than gpu-rows, other CUDA formats, spx_matrix_csr, _row_offsets,
 * _validate, _copy, _transpose, _to_coo, _to_csc, _stats, _write*, spx_spgemm_stats,
 * spx_multi_plan_create, the Jacobi preconditioner of the solvers;
 * spx_matrix_iso returns 0 and records the same error.
 * SPX_ERR_NOT_COMPILED in a build without CUDA, SPX_ERR_NO_DEVICE without a
 * usable GPU. */
spx_status spx_matrix_wrap_device(int64_t rows, int64_t cols,
                                  const void *rowptr, int rowptr_bits, /* borrowed: 32, 64 */
                                  const void *colidx, int col_bits,    /* borrowed: 32 */
                                  const void *values, spx_type vtype,  /* borrowed: F64, F32 */
                                  spx_matrix **A);                     /* out */

/* The device arrays of a device matrix: one wrapped by
 * spx_matrix_wrap_device (the caller's, as given) or a GPU SpGEMM's C
 * (SpX's: 64-bit row offsets, 32-bit columns, fp64 values; valid until
 * spx_matrix_destroy, which frees them). Any output may be NULL. Sizes:
 * spx_matrix_dims. SPX_ERR_UNSUPPORTED for a host matrix. */
spx_status spx_matrix_device_csr(const spx_matrix *A,
                                 const void **rowptr, int *rowptr_bits, /* out: rows+1; 32, 64 */
                                 const void **colidx,                   /* out: nnz, int32 */
                                 const void **values,                   /* out: nnz of *vtype */
                                 spx_type *vtype);                      /* out */

/* Build from coordinate triplets (0-based, any order); duplicates are summed. */
spx_status spx_matrix_from_coo(int64_t rows, int64_t cols, int64_t nnz,
                               const int64_t *ri,  /* in: row of each entry */
                               const int64_t *ci,  /* in: column of each entry */
                               const double *v,    /* in: value, or NULL for ones */
                               spx_matrix **A);    /* out */

/* Frees A and the arrays it owns (a GPU SpGEMM's device C: its device
 * arrays, cudaFree; a borrowed device or host matrix: the header alone). */
void spx_matrix_destroy(spx_matrix *A); /* NULL is a no-op */

spx_status spx_matrix_dims(const spx_matrix *A, int64_t *rows, int64_t *cols,
                           int64_t *nnz); /* out pointers may be NULL */

/* Borrowed view of the CSR arrays. colidx is int32_t* when *col_bits == 32,
 * int64_t* when 64; values are double* for SPX_F64, float* for SPX_F32.
 * rowptr is 64-bit: for a matrix wrapping 32-bit offsets (spx_matrix_wrap)
 * it is their widened copy, made on the first request and kept with A
 * (SPX_ERR_OOM when it cannot be). Out pointers may be NULL. */
spx_status spx_matrix_csr(const spx_matrix *A, const int64_t **rowptr,
                          const void **colidx, int *col_bits,
                          const void **values, spx_type *value_type);

/* Borrowed view of the row offsets as A holds them, never a copy: the
 * caller's int32_t offsets (*bits == 32) for a matrix spx_matrix_wrap made
 * from 32-bit ones, else int64_t (*bits == 64). */
spx_status spx_matrix_row_offsets(const spx_matrix *A,
                                  const void **rowptr, /* out: rows+1 offsets */
                                  int *bits);          /* out: 32 or 64 */

/* Check structure: offsets (SPX_ERR_BAD_ROWPTR), indices in range
 * (SPX_ERR_INDEX_RANGE), sorted rows (SPX_ERR_UNSORTED), no duplicates
 * (SPX_ERR_DUPLICATE). Creating functions call it; wrap does too. */
spx_status spx_matrix_validate(const spx_matrix *A);

/* 1 when A is iso-valued: it stores at least one value and every stored
 * value is the same finite number, bit for bit (+0 and -0 differ); else 0
 * (also for an invalid handle). *value (may be NULL): that number, 0 when
 * not iso. A pattern Matrix Market file reads as all ones: iso, value 1.
 * O(nnz) on the first call, then kept in A when A owns its arrays; a wrapped
 * matrix (spx_matrix_wrap_csr, spx_matrix_wrap) is scanned on every call.
 * Plans of csr and sell (CPU and CUDA) and of dasp and hbp (CUDA) multiply
 * an iso matrix from its structure alone, v folded into alpha (params
 * values=auto|stored|iso). */
int spx_matrix_iso(const spx_matrix *A, double *value /* out, may be NULL */);

/* Deep copy with values converted to type t (SPX_F64 or SPX_F32). */
spx_status spx_matrix_copy(const spx_matrix *A, spx_type t, spx_matrix **B);

/* B = A^T as a new CSR matrix (equivalently, A in CSC). */
spx_status spx_matrix_transpose(const spx_matrix *A, spx_matrix **AT);

/* Export to caller-allocated arrays of nnz entries each (v may be NULL). */
spx_status spx_matrix_to_coo(const spx_matrix *A, int64_t *ri, int64_t *ci, double *v);
/* Export as CSC: colptr has cols+1 entries, rowidx and v nnz (v may be NULL). */
spx_status spx_matrix_to_csc(const spx_matrix *A, int64_t *colptr, int64_t *rowidx,
                             double *v);

/* -------------------------------------------------------------------- files */

/* Read by extension: .mtx, .mtx.gz (zlib), .spx (SpX binary). */
spx_status spx_matrix_read(const char *path, spx_matrix **A);
spx_status spx_matrix_read_mtx(const char *path, spx_matrix **A); /* .mtx or .mtx.gz */
/* Write Matrix Market coordinate real general, values with %.17g; .gz compresses. */
spx_status spx_matrix_write_mtx(const spx_matrix *A, const char *path);
/* SpX binary: versioned header, raw arrays, checksum; fast reloads. */
spx_status spx_matrix_write_bin(const spx_matrix *A, const char *path);
spx_status spx_matrix_read_bin(const char *path, spx_matrix **A);
/* Write by extension (.mtx, .mtx.gz, .spx). */
spx_status spx_matrix_write(const spx_matrix *A, const char *path);

/* --------------------------------------------------------------- generators */

/* Build a matrix from a spec string, deterministic for its seed, e.g.
 *   "lap2d5:1000"  "lap2d9:1000"  "lap3d7:128"  "lap3d27:96"
 *   "rmat:scale=20,ef=16,a=0.57,b=0.19,c=0.19,sym=1,seed=1"
 *   "random:m=1e5,n=1e5,nnz=1e6,seed=1"  "banded:n=1e6,bw=5"
 *   "powerlaw:n=1e6,avg=16,alpha=2.1,seed=1"
 *   "circuit:n=1e6,avg=4,long=8,longlen=1e5,seed=1"
 *   "scale:file=m.mtx,mode=kron|blockdiag,copies=16"
 * See src/gen/README.md for every key. */
spx_status spx_generate(const char *spec, spx_matrix **A);

/* --------------------------------------------------------------- statistics */

typedef struct spx_stats {
    int64_t rows, cols, nnz;
    int64_t rmin, rmax;          /* shortest and longest row */
    double rave, rsd, rsdp;      /* mean, standard deviation, rsd as % of rave */
    int64_t empty_rows;
    int64_t rows_len1, rows_len2, rows_len3, rows_len4; /* DASP's short rows */
    int64_t rows_5_255;          /* DASP's medium rows (5..255) */
    int64_t rows_256;            /* rows of exactly 256 */
    int64_t rows_gt256;          /* DASP's long rows */
    int64_t tiles8;              /* non-empty 8x8 tiles */
    double tile_density;         /* nnz / tiles8 */
    int symmetric;               /* pattern and values symmetric */
    int iso;                     /* spx_matrix_iso: every stored value the same */
    double iso_value;            /* that value (0 when not iso) */
} spx_stats;

spx_status spx_matrix_stats(const spx_matrix *A, spx_stats *s);

/* ------------------------------------------------------------------- plans */

typedef struct spx_plan_s spx_plan;

typedef struct spx_plan_opts {
    const char *format;     /* registered format name, or "auto" (default) */
    spx_device device;      /* SPX_DEV_CPU (default) or SPX_DEV_CUDA */
    spx_type precision;     /* SPX_F64 (default), SPX_F32, SPX_F16 (SpGEMM: the
                               precision of the products; C is fp64) */
    spx_op op;              /* SpMV: SPX_OP_N (default) or SPX_OP_T */
    int64_t expected_calls; /* hint for preprocessing effort; 0 = unknown */
    int threads;            /* CPU threads; 0 = OpenMP default */
    const char *params;     /* format parameters "th=8,bs=256"; NULL = defaults */
    int tune;               /* nonzero: format may tune its parameters (timed as prep) */
    void *stream;           /* CUDA plans: cudaStream_t; NULL = default stream */
} spx_plan_opts;

spx_plan_opts spx_plan_opts_default(void);

/* Prepare A for operation `operation` with the format, device and precision
 * of o (NULL: defaults). A format that cannot take this matrix declines with
 * SPX_ERR_UNSUPPORTED and says why; "auto" never declines. SPX_ERR_NO_FORMAT
 * when no registered format computes the operation on that device and
 * precision; SPX_ERR_NO_DEVICE for a CUDA plan on a machine without a GPU.
 * CPU plans may keep pointers into A's arrays (zero copy): A must outlive P.
 * A device matrix (spx_matrix_wrap_device) is planned on CUDA alone, for
 * SpMV, SpMM or SDDMM of op N or SpGEMM, by the formats that take one (else
 * SPX_ERR_UNSUPPORTED). */
spx_status spx_plan_create(const spx_matrix *A,     /* in: borrowed, see above */
                           spx_operation operation, /* in: SPX_OP_SPMV, SPX_OP_SPMM,
                                                       SPX_OP_SDDMM, SPX_OP_SPGEMM */
                           const spx_plan_opts *o,  /* in: or NULL for defaults */
                           spx_plan **P);           /* out: owned by the caller */
void spx_plan_destroy(spx_plan *P); /* NULL is a no-op */

/* y = alpha*op(A)*x + beta*y. Vectors live where the plan's device is (host
 * memory for CPU plans, device memory for CUDA plans) and are of the plan's
 * precision (double for F64, float for F32 and F16; x as spx_plan_x_type
 * says, which differs only for fp16 CUDA plans made with xtype=half: x in
 * IEEE half, 2 bytes an entry, y float). beta == 0: y is not read.
 * Several threads may call one CPU plan at once (ref, csr, coo, sell, axc and
 * axt-* with the default x=live: the plan is read-only during the call), and
 * for a fixed thread count the result is the same bits every call. Not so
 * for axt-* with x=refresh (it rewrites its copy of x) or for CUDA plans
 * (their scratch is per plan: one call at a time per plan). */
spx_status spx_spmv(const spx_plan *P, double alpha, const void *x, double beta, void *y);

/* The same with host vectors whatever the plan's device (copies for CUDA plans). */
spx_status spx_spmv_host(const spx_plan *P, double alpha, const void *x, double beta,
                         void *y);

/* New values for the matrix P was made from, its pattern unchanged (the next
 * Newton step of a solver, a layer's weights after a training step): P
 * refills its own copy of the values and keeps its layout, without the
 * preprocessing of a new plan. values[e] is the value of A's entry e in A's
 * CSR order (spx_matrix_csr), A's nnz of them, of P's vector type (double for
 * F64, float for F32 and F16), where P's vectors live (device memory for a
 * CUDA plan; spx_plan_update_values_host takes host memory on any plan).
 * Afterwards P's products are the bits a plan made from A with these values
 * and the same options gives, with one exception: a plan that stores values
 * keeps storing them when the new values are all one number (the bits of
 * that plan with params values=stored). A plan that stores no values (its
 * format's iso path: A's values were all one number) takes new values of one
 * number in place and otherwise stores them from then on; a format that
 * cannot says SPX_ERR_UNSUPPORTED, naming params values=stored, and P keeps
 * its values. A itself is not changed: a CPU plan that read A's values in
 * place reads its own copy from then on. SpMV and SpMM plans, op N and T,
 * reorder= included; SDDMM plans read no values (nothing to do); SpGEMM
 * plans: SPX_ERR_UNSUPPORTED (make a new plan). One call at a time per plan,
 * never during one of its products; it returns when values has been read (the
 * caller may then change or free it). After SPX_ERR_DEVICE or SPX_ERR_OOM,
 * P's values are undefined until an update succeeds. */
spx_status spx_plan_update_values(spx_plan *P, const void *values);
spx_status spx_plan_update_values_host(spx_plan *P, const void *values);

spx_operation spx_plan_operation(const spx_plan *P); /* what P was made for */
double spx_plan_prep_ms(const spx_plan *P);      /* preprocessing wall time */
size_t spx_plan_bytes(const spx_plan *P);        /* memory the prepared form holds */
const char *spx_plan_format(const spx_plan *P);  /* chosen format (resolves "auto") */
/* The plan's symmetric row and column permutation (params reorder=rcm|degree):
 * perm[k] = the index in the caller's order of entry k in the plan's order, so
 * x_perm[k] = x[perm[k]], y_perm[k] = y[perm[k]] and y[perm[k]] = y_perm[k].
 * The identity without an ordering. perm: out, caller's, one entry per row of
 * op(A). With params vectors=permuted, spx_spmv takes x_perm and y_perm and
 * computes y_perm = alpha*(P op(A) P^T)*x_perm + beta*y_perm, which is
 * y = alpha*op(A)*x + beta*y in the plan's order, without permuting per call. */
spx_status spx_plan_permutation(const spx_plan *P, int64_t *perm);
spx_device spx_plan_device(const spx_plan *P);
/* Rows and columns of op(A): the lengths of y and x (outputs may be NULL). */
spx_status spx_plan_dims(const spx_plan *P, int64_t *rows, int64_t *cols);
/* The element type of the x that spx_spmv and spx_spmv_host read (and of
 * SDDMM's X and Y): SPX_F64 (double), SPX_F32 (float) or SPX_F16 (IEEE
 * half, as uint16_t bits; fp16 CUDA plans with params xtype=half, whose
 * formats are csr and dasp, and csr for SDDMM).
 * SPX_F64 for an invalid plan. */
spx_type spx_plan_x_type(const spx_plan *P);

/* IEEE half <-> float on the host, n entries: float to half rounds to
 * nearest, ties to even (beyond 65520 in magnitude: infinity; NaN stays NaN),
 * as CUDA's __float2half_rn; half to float is exact. For the x of plans
 * whose spx_plan_x_type is SPX_F16. */
void spx_float_to_half(const float *src, uint16_t *dst, int64_t n);
void spx_half_to_float(const uint16_t *src, float *dst, int64_t n);
/* Format-specific description of the prepared form ("th=8 bs=256 beta=0.93"). */
const char *spx_plan_describe(const spx_plan *P);

/* ---------------------------------------------------------- format registry */

/* Registered formats, by index 0..spx_format_count()-1. */
typedef struct spx_format_info {
    const char *name;     /* "csr", "sell", "dasp", "gustavson", ... (static) */
    unsigned devices;     /* SPX_DEV_CPU and/or SPX_DEV_CUDA bits */
    unsigned precisions;  /* bit (1u << spx_type) per type */
    unsigned operations;  /* bit (1u << spx_operation) per operation */
    /* NULL-terminated parameter sets worth measuring beside the defaults
     * (modes a user may choose, e.g. "x=refresh"), or NULL. */
    const char *const *variants;
} spx_format_info;
int spx_format_count(void);
spx_status spx_format_get(int i, spx_format_info *info /* out */);
/* Nonzero when this build can run the device now (CUDA: compiled and a GPU seen). */
int spx_device_available(spx_device d);

/* ------------------------------------------------------------------- SpMM */

/* Y = alpha*op(A)*X + beta*Y with a plan P made by spx_plan_create(A,
 * SPX_OP_SPMM, ...): X and Y are dense with k columns, row-major (row i of X
 * at X + i*ldx, of Y at Y + i*ldy; ldx, ldy >= k): X has the columns of
 * op(A) as rows, Y its rows. Where they live and their element type are as
 * spx_spmv's (the plan's device; double for F64, float for F32 and F16, whose
 * plans hold A's values in half and sum in float). beta == 0: Y is not read.
 * Entries of Y past column k are not touched; k == 0 does nothing. X and Y
 * must not overlap. The same bits every call (CPU plans: for a fixed thread
 * count), and column j of Y the bits of the column j of every other k. Op T
 * and values=iso as in SpMV; reorder= is for SpMV plans. CPU plans may be
 * called by several threads at once; a CUDA plan one call at a time, on the
 * plan's stream (the call returns before the product ends, as spx_spmv). */
spx_status spx_spmm(const spx_plan *P, /* in: an SPX_OP_SPMM plan */
                    int64_t k,         /* in: columns of X and Y */
                    double alpha, const void *X, int64_t ldx, double beta, void *Y, int64_t ldy);
/* The same with X and Y in host memory whatever the plan's device (copies
 * for CUDA plans, the call waits for the product). */
spx_status spx_spmm_host(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                         double beta, void *Y, int64_t ldy);

/* ------------------------------------------------------------------ SDDMM */

/* Sampled dense-dense product with a plan P made by spx_plan_create(A,
 * SPX_OP_SDDMM, ...): for every stored entry e = (i, j) of A, in A's CSR
 * order (row by row, a row's entries in the order A stores them),
 *   Z[e] = alpha * sum_{c < k} X[i*ldx + c] * Y[j*ldy + c] + beta * Z[e].
 * X (A's rows x k) and Y (A's columns x k) are dense and row-major (ldx,
 * ldy >= k); Z holds nnz(A) values, one an entry. A's values are not read:
 * only its pattern (this is cuSPARSE's cusparseSDDMM and PyTorch's
 * sampled_addmm; the gradient of SpMM's A in training, attention scores on a
 * graph's edges). Where X, Y and Z live and their element type are as
 * spx_spmm's (the plan's device; double for F64, float for F32 and F16, which
 * compute alike here), but for CUDA fp16 plans made with params xtype=half:
 * X and Y in IEEE half (spx_plan_x_type says SPX_F16; 2 bytes an entry,
 * uint16_t bits on the host), each product and sum in float, Z float.
 * beta == 0: Z is not read. k == 0 gives Z = beta*Z.
 * Z must not overlap X or Y. Each Z[e] is the same bits every call, whatever
 * the thread count; its sum's order depends on k and the device alone. Op T
 * is refused (plan A^T instead: its entries come in another order). CPU plans
 * may be called by several threads at once; a CUDA plan one call at a time,
 * on the plan's stream (the call returns before the product ends). */
spx_status spx_sddmm(const spx_plan *P, /* in: an SPX_OP_SDDMM plan */
                     int64_t k,         /* in: columns of X and Y */
                     double alpha, const void *X, int64_t ldx, const void *Y, int64_t ldy,
                     double beta, void *Z);
/* The same with X, Y and Z in host memory whatever the plan's device (copies
 * for CUDA plans, the call waits for the product). */
spx_status spx_sddmm_host(const spx_plan *P, int64_t k, double alpha, const void *X, int64_t ldx,
                          const void *Y, int64_t ldy, double beta, void *Z);

/* ----------------------------------------------------------------- SpGEMM */

/* C = A*B with a plan P made by spx_plan_create(A, SPX_OP_SPGEMM, ...): the
 * plan holds A prepared (its format, device, precision), B is any matrix with
 * as many rows as A has columns, C a new host matrix: CSR with sorted
 * columns and fp64 values. The CPU format gustavson (row by row, params
 * acc=dense|hash) keeps entries whose products cancel as explicit zeros.
 * The CUDA format tsparse drops entries whose value comes out exactly 0.
 *
 * On the GPU with device operands (spx_matrix_wrap_device): C lives where B
 * lives. A device B gives a device C (no copy of B, none of C to the host):
 * CSR on the current device, 64-bit row offsets, 32-bit sorted columns,
 * fp64 values, owned by SpX (spx_matrix_destroy frees its arrays; read them
 * with spx_matrix_device_csr). A host B gives a host C, whatever A is. A
 * may be a host or a device matrix; a device A is read in place (32-bit row
 * offsets widened, fp32 values converted, into arrays of the plan; the
 * caller's arrays must outlive the plan). Device operands take the CUDA
 * formats gpu-rows (precision f64; auto picks it for a device A in f64) and
 * tsparse (f64 and f16; its checks of the values run on the device); the
 * CPU formats return SPX_ERR_UNSUPPORTED naming them, gpu-rows f32 plans
 * SPX_ERR_UNSUPPORTED, auto f32 SPX_ERR_NO_FORMAT.
 * A device C is made whole once its size is known: when it does not fit
 * the device (or passes gpu-rows' panel_nnz=N), SPX_ERR_OOM says so (a
 * host B gets C in row panels instead). The call returns once C is
 * complete (the plan's stream waited for). The product's temporaries and a
 * device C's arrays come from a stream-ordered pool SpX keeps on each device
 * (it holds up to 64 MB unused between products, so that small products do
 * not map memory again after every host wait; spx_matrix_destroy of a device
 * C waits for its device, as cudaFree would, and gives the arrays back to
 * that pool); gpu-rows' pool=release takes CUDA's default pool and
 * cudaMalloc instead. */
spx_status spx_spgemm_run(const spx_plan *P,       /* in: an SPX_OP_SPGEMM plan */
                          const spx_matrix *B,     /* in */
                          spx_matrix **C);         /* out: owned by the caller */

/* C = A*B again into C's own arrays, for repeated products with one pattern
 * (the numeric phase alone): C came from spx_spgemm_run(P, B0, &C) and B has
 * B0's pattern (rows, columns, entries), its values may differ; A's values
 * are the plan's (a CUDA plan of a host A copied them when it was made;
 * gustavson, and a CUDA plan of a device A of fp64 values and 64-bit
 * offsets, read A in place, as it is now). B and C are
 * both host or both device matrices; C's values are overwritten.
 * gpu-rows with a device B and C (f64) computes C's values from a memo of
 * C's products: the first call on a C for a plan and a B pattern lists, for
 * each entry of C, the entries of A and B whose products it sums (8 bytes
 * a product, 4 an entry of C, held by C and freed with it; checking on the
 * way that A*B has C's pattern), and every call then sums those lists in a
 * fixed order (C's values the same bits from call to call), after hashing
 * B's pattern on the device (one pass over its offsets and columns) to
 * check it is still the memo's. Where the memo would pass 2^32 products or
 * 60% of the free device memory (or with the parameter memo=off), the
 * first call checks C's row counts with a symbolic phase, and every call
 * runs gpu-rows' numeric phase into C's arrays (no allocation of C, no
 * copy; C keeps the plan and B's pattern hash, so later calls skip the
 * check). gustavson (CPU) keeps a memo the same way (built on the first
 * call, held by C) where C's entries sum at most 8 products each, and
 * otherwise runs its numeric phase alone (each row gathered as in the
 * product, read out at C's columns, no symbolic phase, no sort); either way
 * C's values are the same bits as a new product's. tsparse, and gpu-rows with host
 * operands, run the whole product into a new C', check that C' has C's
 * pattern, copy its values into C and free C'. A B whose product has another pattern than C's (memo=off: rows
 * of other lengths; a tsparse product whose exact zeros fell elsewhere)
 * gives SPX_ERR_INVALID_ARG and leaves C as it was (gpu-rows memo=off: a B with C's
 * row lengths but other columns writes its columns into C, which is then
 * A*B). */
spx_status spx_spgemm_numeric(const spx_plan *P,   /* in: an SPX_OP_SPGEMM plan */
                              const spx_matrix *B, /* in: B0's pattern */
                              spx_matrix *C);      /* in/out: values written */

/* One call: plan A for SpGEMM with o (NULL: defaults, format auto), C = A*B,
 * destroy the plan. */
spx_status spx_spgemm(const spx_matrix *A, const spx_matrix *B, const spx_plan_opts *o,
                      spx_matrix **C);

/* The facts of C = A*B that tSparse's Table 1 lists, from A and B alone (the
 * CPU computes them; the CUDA format tsparse builds the same task list). A
 * tile is an 8x8 block (rows 8I..8I+7, columns 8J..8J+7) holding an entry;
 * a tile product pairs tile (I, K) of A with tile (K, J) of B, and is culled
 * when no column of the first holding an entry meets a row of the second
 * holding one (its product is empty). */
typedef struct spx_spgemm_info {
    int64_t nnz_c;          /* entries of the symbolic product (cancellation ignored) */
    int64_t products;       /* intermediate products: sum over a_ik of nnz(B(k,:)) */
    int64_t tiles_c;        /* non-empty tiles of C */
    int64_t tile_pairs;     /* tile products before culling */
    int64_t tile_products;  /* tile products after culling: tsparse's tasks */
    int64_t tiles_a, tiles_b; /* non-empty tiles of A and of B */
    /* bitmap density: entries per non-empty tile of A (1..64); the median of an
     * even count is the mean of the middle two; std is the population's */
    double density_median, density_mean, density_std;
} spx_spgemm_info;
spx_status spx_spgemm_stats(const spx_matrix *A,    /* in */
                            const spx_matrix *B,    /* in: as many rows as A has columns */
                            spx_spgemm_info *info); /* out */

/* ----------------------------------------------------------------- solvers */

/* Krylov solvers for A x = b on any square SpMV plan of A, CPU or CUDA: every
 * product is spx_spmv(P, ...), vectors live where the plan's device is (host
 * or device pointers) and are of the plan's vector type (double for F64,
 * float for F32 and F16; not x in half), and stay there. On CUDA the
 * scalars stay on the device too and an iteration is queued before the host
 * reads the one before's residual (history and callback see every
 * iteration; with a callback the solve waits for each). Dots sum in double
 * in a fixed order, so a solve is the same bits run to run for a fixed
 * thread count. */
typedef struct spx_solve_opts {
    double rtol;          /* stop when ||b - A x|| <= rtol ||b|| (2-norms; default 1e-8) */
    int64_t max_iters;    /* iteration limit (default 1000) */
    int jacobi;           /* nonzero: Jacobi preconditioner, M = diag(A) (needs A below) */
    double *history;      /* optional, caller's host array of max_iters + 1: the relative
                             residual after each iteration, [0] before the first */
    /* optional: called after each iteration; returning nonzero stops the solve
     * (SPX_OK, with the iterate so far) */
    int (*callback)(void *ctx, int64_t iter, double rel_residual);
    void *ctx;
    /* nonzero (the default): the plan keeps the solve's work vectors (4 of the plan's
     * vector length for CG, 8 for BiCGSTAB, on its device) and buffers for its next
     * solve, until spx_plan_destroy / spx_multi_plan_destroy or a solve with 0 here.
     * Allocating them, pinned host buffers most of all, takes 1-4 ms on a GPU. */
    int keep_workspace;
    /* GMRES: basis vectors before a restart, m of GMRES(m) (0: the default, 30). Its
     * basis, m + 1 vectors, is allocated for each solve and not kept. */
    int64_t restart;
} spx_solve_opts;

typedef struct spx_solve_info {
    int64_t iters;        /* iterations done */
    double rel_residual;  /* ||b - A x|| / ||b|| of the returned x, recomputed at the end */
    double ms;            /* wall time of the solve */
    int64_t replayed;     /* iterations run as replays of one recorded CUDA graph (multi plans
                             with every part on a GPU; SPX_SOLVE_GRAPH=0 turns it off) */
} spx_solve_info;

spx_solve_opts spx_solve_opts_default(void);

/* Conjugate gradients (A symmetric positive definite). x: in, the first guess;
 * out, the solution. A: the matrix P was made from, read for the Jacobi
 * diagonal only (may be NULL without jacobi). SPX_ERR_NOT_CONVERGED when
 * max_iters pass first (x and info hold the last iterate), SPX_ERR_BREAKDOWN
 * when p'Ap <= 0 (A not positive definite) or a NaN appears. */
spx_status spx_cg(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                  const spx_solve_opts *o, spx_solve_info *info /* out, may be NULL */);
/* BiCGSTAB (any nonsingular A), right-preconditioned; the same contract;
 * SPX_ERR_BREAKDOWN when rho or omega vanish. */
spx_status spx_bicgstab(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                        const spx_solve_opts *o, spx_solve_info *info);
/* The same with host vectors whatever the plan's device: for a CUDA plan b
 * and x are copied to the device, the solve runs there and x comes back,
 * after a failed solve too (the last iterate). spx_cg and spx_bicgstab on a
 * CUDA plan refuse host vectors (SPX_ERR_INVALID_ARG naming them). */
spx_status spx_cg_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                       const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_bicgstab_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                             const spx_solve_opts *o, spx_solve_info *info);
/* Restarted GMRES(m) (any nonsingular A; m = o->restart), right-preconditioned:
 * the residual norm never grows, restarts included. An iteration is one
 * product and the basis's Gram-Schmidt: on GPUs (a CUDA plan, a multi plan
 * on GPUs) classical, twice, in three passes with one wait for the device
 * (a multi plan: one a pass); on CPUs modified, j + 2 dots (j: the
 * iteration's place in its cycle). The basis is m + 1 vectors. The same
 * contract and statuses as spx_cg (SPX_ERR_BREAKDOWN: a
 * NaN, or a zero on the rotated triangle's diagonal: A singular). */
spx_status spx_gmres(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                     const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_gmres_host(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                          const spx_solve_opts *o, spx_solve_info *info);

/* Several right-hand sides at once: A X = B for the k columns of B, each
 * column its own CG (its own scalars and its own stop, the math of spx_cg),
 * all columns' products one spx_spmm per iteration. P: an SPX_OP_SPMM plan
 * of square A (A symmetric positive definite); B and X: n x k, row-major
 * with leading dimensions ldb, ldx >= k, where P's vectors live (device
 * memory for a CUDA plan; the _host variant takes host memory), of its
 * vector type. X: in, the first guesses; out, the solutions. A column stops
 * when its residual meets rtol (||b_j - A x_j|| <= rtol ||b_j||), or breaks
 * down (p'Ap <= 0, NaN): its x_j is then frozen and the others go on. The
 * solve ends when every column has stopped or after max_iters iterations.
 * info: NULL or an array of k, one per column (iters: when the column
 * stopped; rel_residual recomputed from X; ms: the whole solve). history and
 * callback see the largest relative residual over the columns. Returns
 * SPX_ERR_BREAKDOWN when a column broke down (naming the first), else
 * SPX_ERR_NOT_CONVERGED when a column did not converge; X holds every
 * column's last iterate either way. The same bits every call for a fixed
 * k (CPU plans: and thread count). keep_workspace keeps 3 (4 with jacobi)
 * n x k blocks on the plan, for the next solve with the same k. */
spx_status spx_cg_many(const spx_plan *P,          /* in: an SPX_OP_SPMM plan of A */
                       const spx_matrix *A,        /* in: for jacobi only, else may be NULL */
                       int64_t k,                  /* in: right-hand sides */
                       const void *B, int64_t ldb, /* in: n x k */
                       void *X, int64_t ldx,       /* in/out: n x k */
                       const spx_solve_opts *o,
                       spx_solve_info *info); /* out: k entries, may be NULL */
spx_status spx_cg_many_host(const spx_plan *P, const spx_matrix *A, int64_t k, const void *B,
                            int64_t ldb, void *X, int64_t ldx, const spx_solve_opts *o,
                            spx_solve_info *info);

/* ----------------------------------------- eigenvalues of a symmetric matrix */

/* Which end of the spectrum spx_eigsh returns. */
typedef enum spx_eig_which {
    SPX_EIG_LARGEST = 0, /* the k largest (algebraic), largest first */
    SPX_EIG_SMALLEST = 1 /* the k smallest (algebraic), smallest first */
} spx_eig_which;

typedef struct spx_eig_opts {
    int64_t k;           /* eigenvalues wanted (default 1) */
    spx_eig_which which; /* default SPX_EIG_LARGEST */
    double tol;          /* a pair (theta, v) is done when ||A v - theta v|| <= tol |theta|
                            (default 1e-8) */
    int64_t basis;       /* Lanczos vectors before a restart (0: the default, max(2k + 1,
                            k + 32); at most n): basis + 1 + (its kept part) vectors live
                            on the plan's device */
    int64_t max_steps;   /* Lanczos steps (products) at most (default 10000) */
    int skip_copies;     /* 1: no fresh start vectors after the first k pairs converge
                            (faster, but a multiple eigenvalue may appear once; below) */
} spx_eig_opts;

typedef struct spx_eig_info {
    int64_t steps;       /* Lanczos steps (products) taken */
    int64_t restarts;    /* thick restarts */
    int64_t fresh_starts; /* cycles from a fresh start vector, looking for copies */
    int64_t converged;   /* of the k pairs returned, those that met tol */
    double max_residual; /* the largest ||A v - theta v|| / |theta| of the k, as Lanczos
                            estimates it */
    double ms;           /* wall time */
} spx_eig_info;

spx_eig_opts spx_eig_opts_default(void);

/* The k eigenvalues at one end of the spectrum of symmetric A (P an SpMV
 * plan of A, square, any device), by thick-restart Lanczos (Wu and Simon)
 * from a fixed start vector with full reorthogonalisation (classical
 * Gram-Schmidt twice, as GMRES does on a GPU). values: k host doubles.
 * vectors: NULL, or k unit eigenvectors, each n entries of P's vector type
 * one after the other, where P's vectors live (device memory for a CUDA
 * plan). A single start vector spans one direction of each eigenspace, so
 * once the k pairs converge they are locked and Lanczos runs again from a
 * fresh start vector orthogonal to them, until a run finds no eigenvalue
 * beyond the k-th: a multiple eigenvalue then appears as often as it is
 * repeated (its eigenvectors orthonormal). That costs one more run for the
 * extreme pair of what is left, skip_copies skips it, and a basis below
 * 2k + 1 cannot hold it. Returns SPX_ERR_NOT_CONVERGED when max_steps pass
 * first (values, vectors and info hold the best so far; converged = k when
 * only the search for copies was cut short; NaN values and zero vectors
 * past the pairs found), SPX_ERR_BREAKDOWN when the start vector's Krylov
 * space has fewer than k dimensions (A has fewer distinct eigenvalues) and
 * the basis leaves no room for fresh start vectors (below 2k + 1 and n;
 * with room they find the rest, as they find copies). The same
 * bits every call for a fixed plan (CPU: and thread count). */
spx_status spx_eigsh(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                     spx_eig_info *info /* out, may be NULL */);
/* The same with vectors in host memory whatever the plan's device (copied
 * back from a CUDA device). */
spx_status spx_eigsh_host(const spx_plan *P, const spx_eig_opts *o, double *values, void *vectors,
                          spx_eig_info *info);

/* ------------------------------------------- several devices and processes */

/* MSREP (Chen et al.): one matrix split into parts, each an ordinary
 * single-device plan of any registered format (AUTO per part). */
typedef enum spx_partition {
    SPX_PART_PCSR = 0, /* CSR nonzero ranges, equal nonzeros; neighbours may share a row */
    SPX_PART_PCSC = 1, /* CSC nonzero ranges (column blocks), equal nonzeros; each part
                          gives a full-length partial y, summed in part order */
    SPX_PART_PCOO = 2, /* row-sorted COO nonzero ranges, equal nonzeros */
    SPX_PART_ROWS = 3  /* row blocks of equal rows: the paper's baseline */
} spx_partition;

/* "pcsr", "pcsc", "pcoo", "rows" ("?" for others), and back
 * (SPX_ERR_INVALID_ARG naming the string). */
const char *spx_partition_name(spx_partition k);
spx_status spx_partition_parse(const char *name, spx_partition *k /* out */);

/* Several devices of one host: a plan of plans. op(A) is cut into parts by
 * the partition kind, each part made into an ordinary plan (o's format,
 * "auto" choosing per part, precision, params, expected calls) by a host
 * thread of its own, on the CPU or on a CUDA device; several parts on one
 * GPU get a stream each. Vectors are on the host (the paper's setting):
 * parts on a GPU get the x entries they read, and their partial results come
 * back and are merged (a row shared by neighbouring parts, and pcsc's partial
 * vectors, summed in part order). For a fixed part count the result is the
 * same bits every call. CPU parts run one thread each inside the parts'
 * team (OpenMP's nested levels as configured). */
#define SPX_MULTI_CPU (-1)       /* a part on the host's cores */
#define SPX_MULTI_MAX_PARTS 256

typedef struct spx_multi_opts {
    spx_partition partition; /* how to cut op(A) (default SPX_PART_PCSR) */
    int parts;               /* 1..SPX_MULTI_MAX_PARTS (default 1) */
    const int *devices;      /* in, borrowed: `parts` entries, SPX_MULTI_CPU or a CUDA
                                device id (repeat one for several parts on a GPU);
                                NULL: o->device, CUDA parts round robin over the GPUs */
    int no_graph;            /* nonzero: resident calls with GPU parts queue each part
                                every call (on several GPUs from a thread per GPU, the
                                merge after a host wait); by default (0) the first call
                                of a given x, y, alpha and beta is recorded as one CUDA
                                graph, over every GPU of the plan, and later ones replay
                                it (one launch), falling back to queueing where the
                                parts' plans cannot be recorded. A replayed call's times
                                are its whole: spx_multi_times gives them as spmv_ms */
    int overlap;             /* row parts on several GPUs: 1: each multiplies the entries of
                                columns its GPU owns while the x entries of other GPUs
                                arrive, the others after (two plans a part, y rounded after
                                each: not the bits of one plan; resident and host-vector
                                calls agree bit for bit either way), and a resident call's
                                spmv_ms runs from its start, its halo inside; -1: never;
                                0 (default): the parts whose halo is at least 1/13 of their
                                nonzeros (on 4 H200s R-MAT scale 22's call 14-18% faster
                                overlapped, halo 1/10; even at 1/15; 2-8% slower at 1/20
                                to 1/220; bench/results/overlap-rule-2026-11-27.md) */
} spx_multi_opts;

spx_multi_opts spx_multi_opts_default(void);

typedef struct spx_multi_plan_s spx_multi_plan;

/* Cut A and plan each part (see above); o->stream is not used (each GPU part
 * has its own). A must outlive P (CPU parts read its arrays in place). */
spx_status spx_multi_plan_create(const spx_matrix *A,        /* in: borrowed */
                                 const spx_plan_opts *o,     /* in: or NULL for defaults */
                                 const spx_multi_opts *m,    /* in: or NULL for defaults */
                                 spx_multi_plan **P);        /* out: owned by the caller */
void spx_multi_plan_destroy(spx_multi_plan *P); /* NULL is a no-op */

/* y = alpha*op(A)*x + beta*y, host vectors of the plan's precision (double for
 * F64, float for F32 and F16); beta == 0: y is not read. One call at a time
 * per plan (it keeps scratch and the call's times). */
spx_status spx_multi_spmv(spx_multi_plan *P, double alpha, const void *x, double beta,
                          void *y);

/* Where the time went, in milliseconds (a phase of the parts: the slowest
 * part's). */
typedef struct spx_multi_timing {
    /* plan creation */
    double convert_ms;    /* op(A) into the kind's source: A^T for op T, CSC for
                             pcsc, the row index of each nonzero for pcoo */
    double partition_ms;  /* the parts' boundaries and local offsets */
    double prepare_ms;    /* the parts' plans: their formats' preparation and the
                             upload to their devices (the matrix's distribution) */
    /* the last spx_multi_spmv */
    double distribute_ms; /* x, and y where beta reads it, to the parts' devices */
    double spmv_ms;       /* the parts' products */
    double merge_ms;      /* partial results into y: copies back, shared rows, sums */
    double call_ms;       /* the whole call, wall time */
} spx_multi_timing;
spx_status spx_multi_times(const spx_multi_plan *P, spx_multi_timing *t /* out */);
/* Resident calls replayed as a CUDA graph (replay nonzero, the default) or
 * queued part by part (0: spx_multi_opts.no_graph), from the next call on;
 * queued calls give their halo, SpMV and merge times apart. */
spx_status spx_multi_set_graph(spx_multi_plan *P, int replay);

/* One part of a plan, i in 0..spx_multi_plan_parts(P)-1. */
typedef struct spx_multi_part_info {
    int device;               /* SPX_MULTI_CPU or a CUDA device */
    const char *format;       /* its plan's format (AUTO resolved; static) */
    int64_t first, count;     /* lines it covers: rows of op(A), columns for pcsc */
    int64_t nnz;
    int shared_first;         /* its first line continues the previous part's */
    int shared_last;          /* its last line continues into the next part */
    size_t bytes;             /* its plan's memory */
    int numa_node;            /* the NUMA node its host memory was placed on (a GPU part:
                                 its GPU's; CPU parts: spread in blocks), -1 on a host
                                 of one node or where the system does not say */
    int overlapped;           /* it multiplies its own columns' entries while its halo
                                 arrives (spx_multi_opts.overlap): two plans, format is
                                 theirs */
} spx_multi_part_info;
int spx_multi_plan_parts(const spx_multi_plan *P); /* 0 for an invalid plan */
spx_status spx_multi_plan_part(const spx_multi_plan *P, int i, spx_multi_part_info *info);

/* Resident vectors: x and y stay on the parts' devices between calls, as an
 * iterative solver on several GPUs keeps them, so that a call moves only what
 * crosses parts. op(A) must be square (x and y share a layout) and the parts
 * all on GPUs or all on the CPU (else SPX_ERR_UNSUPPORTED). A vector is
 * distributed by lines: part i owns the lines it covers but a first one it
 * shares (spx_multi_part_info: first + shared_first .. first + count), for
 * pcsc its columns; the parts of one device share one full-length buffer
 * there (n entries of the plan's vector type a device), their own lines
 * holding the vector. A call
 *   copies to each device the entries of x its parts read that other devices
 *   own (row kinds: the span of their columns; pcsc: their columns), read by
 *   the device's threads from its peers' memory where peer access is on, else
 *   by peer copies (nothing when all parts are on one device), a part whose
 *   halo is large meanwhile multiplying its own columns (overlap above);
 *   runs every part's plan (on one GPU the calling thread queues them all,
 *   a stream each; a part whose first line another part of its device also
 *   writes has a second plan for that line's piece, added after the other's);
 *   and adds across parts what they share (a shared row's pieces; pcsc's
 *   partial vectors over each part's lines), in part order, so a fixed part
 *   count gives the same bits every call.
 * spx_multi_times tells the halo (distribute_ms), SpMV and merge times. */
typedef struct spx_multi_vector_s spx_multi_vector;
spx_status spx_multi_vector_create(spx_multi_plan *P, /* in: it keeps a little scratch */
                                   spx_multi_vector **v /* out: owned by the caller */);
void spx_multi_vector_destroy(spx_multi_vector *v); /* NULL is a no-op; before or after
                                                       its plan (other calls need the plan) */
/* Host vector of n entries (the plan's vector type) into the parts, and back. */
spx_status spx_multi_vector_set(spx_multi_vector *v, const void *host);
spx_status spx_multi_vector_get(const spx_multi_vector *v, void *host /* out */);
/* y = alpha*op(A)*x + beta*y on resident vectors of P (x != y); beta == 0:
 * y is not read. x's buffers take its halo (its own lines do not change). */
spx_status spx_multi_spmv_resident(spx_multi_plan *P, double alpha, spx_multi_vector *x,
                                   double beta, spx_multi_vector *y);

/* spx_cg and spx_bicgstab on a square multi-device plan and its resident
 * vectors: b, and x (in: the first guess; out: the solution), vectors of P;
 * the work vectors are made alike. Every vector operation runs on each
 * part's own lines on its device; dot products add the parts' sums in part
 * order, so a fixed part count gives the same iterates every run. With
 * every part on a GPU (and the GPUs reaching each other's memory) the
 * scalars stay on the GPUs, each summing the parts' dots in part order, and
 * the first iteration is recorded as one CUDA graph that every later one
 * replays (spx_solve_info.replayed; SPX_SOLVE_GRAPH=0: queued operation by
 * operation, the same bits); else a host thread per GPU issues its parts'
 * operations and an iteration waits at its dots. CG on lap3d7:200 over 2
 * H200s: 1.59x one, with the workspace kept (spx_solve_opts); below about
 * 2M rows two GPUs lose to one (bench/results/solve-graph-2026-11-27.md).
 * A: the matrix P was made from, read for the Jacobi diagonal only (may be
 * NULL without it).
 * The same statuses as spx_cg / spx_bicgstab; a vector of another plan is
 * SPX_ERR_INVALID_ARG. */
spx_status spx_multi_cg(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b, /* in */
                        spx_multi_vector *x, /* in: first guess; out: solution */
                        const spx_solve_opts *o, spx_solve_info *info /* out, may be NULL */);
spx_status spx_multi_bicgstab(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b,
                              spx_multi_vector *x, const spx_solve_opts *o, spx_solve_info *info);
spx_status spx_multi_gmres(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b,
                           spx_multi_vector *x, const spx_solve_opts *o, spx_solve_info *info);

/* spx_eigsh on a square multi-device plan (its parts on GPUs or on the CPU):
 * every basis vector is a resident vector of P, each product
 * spx_multi_spmv_resident's, each Gram-Schmidt pass on every part's lines
 * (one wait a pass on GPUs, the parts' sums added in part order). vectors:
 * NULL, or k vectors of P (spx_multi_vector_create) that receive the
 * eigenvectors. The same bits every call for a fixed part count. */
spx_status spx_multi_eigsh(spx_multi_plan *P, const spx_eig_opts *o, double *values,
                           spx_multi_vector *const *vectors, spx_eig_info *info);

#ifdef __cplusplus
}
#endif
#endif
