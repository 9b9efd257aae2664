/* The GPU side of issue 20's question (iso_dict.c asks it on the CPU): does
 * a one-byte code into a per-plan table of values pay in CUDA CSR SpMV when a
 * matrix holds few distinct values (bcsstk21 14, olm1000 6, lund_a 231)?
 *
 * For each matrix (a file or gen:SPEC), fp64, one CSR kernel (8 lanes a row,
 * shuffles add them, int64 row offsets) stamped three ways:
 *   stored   sum += val[k] * x[col[k]]            12 bytes a nonzero
 *   dict     sum += table[code[k]] * x[col[k]]    5 bytes (table in shared memory)
 *   pattern  sum += x[col[k]]                     4 bytes: the iso floor
 * Rounds alternate the variants (ISO_DICT_ROUNDS, default 21; a round is
 * ISO_DICT_CALLS launches, default 50, timed by events); each variant's median
 * over the rounds. dict must give stored's bits (the table holds the same
 * doubles), which is checked; pattern is a timing floor only.
 * Usage: iso_dict_gpu M... */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx.h"

#define LANES 8   /* lanes a row */
#define BLOCK 256 /* threads a block */
#define MAX_CODES 256

enum { STORED, DICT, PATTERN, VARIANTS };

template <int V>
__global__ void __launch_bounds__(BLOCK)
    spmv(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ col,
         const double *__restrict__ val, const uint8_t *__restrict__ code,
         const double *__restrict__ table, int ncodes, const double *__restrict__ x,
         double *__restrict__ y)
{
    __shared__ double t[MAX_CODES];
    if (V == DICT)
        for (int i = threadIdx.x; i < ncodes; i += BLOCK)
            t[i] = table[i];
    if (V == DICT) __syncthreads();
    const int64_t row = ((int64_t)blockIdx.x * BLOCK + threadIdx.x) / LANES;
    const int lane = threadIdx.x % LANES;
    double sum = 0.0;
    if (row < rows)
        for (int64_t k = rp[row] + lane; k < rp[row + 1]; k += LANES) {
            const double xv = __ldg(x + col[k]);
            if (V == STORED) sum += val[k] * xv;
            if (V == DICT) sum += t[code[k]] * xv;
            if (V == PATTERN) sum += xv;
        }
    for (int d = LANES / 2; d > 0; d /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, d, LANES);
    if (row < rows && lane == 0) y[row] = sum;
}

#define CUDA_OK(e)                                                                                 \
    do {                                                                                           \
        cudaError_t err_ = (e);                                                                    \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s\n", #e, cudaGetErrorString(err_));                             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct device_csr {
    int64_t rows, nnz;
    int64_t *rp;
    int32_t *col;
    double *val, *table, *x, *y;
    uint8_t *code;
    int ncodes;
};

/* The codes of A's values (the table: its distinct values in order of first
 * appearance); 0 when A has more than MAX_CODES of them. */
static int encode(const double *val, int64_t nnz, uint8_t *code, double *table)
{
    int n = 0;
    for (int64_t k = 0; k < nnz; k++) {
        int c = 0;
        while (c < n && memcmp(&table[c], &val[k], sizeof *val) != 0)
            c++;
        if (c == n) {
            if (n == MAX_CODES) return 0;
            table[n++] = val[k];
        }
        code[k] = (uint8_t)c;
    }
    return n;
}

static void launch(int v, const device_csr &d)
{
    const unsigned grid = (unsigned)((d.rows * LANES + BLOCK - 1) / BLOCK);
    if (v == STORED)
        spmv<STORED>
            <<<grid, BLOCK>>>(d.rows, d.rp, d.col, d.val, d.code, d.table, d.ncodes, d.x, d.y);
    else if (v == DICT)
        spmv<DICT>
            <<<grid, BLOCK>>>(d.rows, d.rp, d.col, d.val, d.code, d.table, d.ncodes, d.x, d.y);
    else
        spmv<PATTERN>
            <<<grid, BLOCK>>>(d.rows, d.rp, d.col, d.val, d.code, d.table, d.ncodes, d.x, d.y);
}

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int env_int(const char *name, int fallback)
{
    const char *s = getenv(name);
    return s && atoi(s) > 0 ? atoi(s) : fallback;
}

/* SPEC: gen:SPEC or a generator spec (spx_generate), else a .mtx path. */
static spx_status load(const char *spec, spx_matrix **A)
{
    if (strncmp(spec, "gen:", 4) == 0) return spx_generate(spec + 4, A);
    return strstr(spec, ".mtx") ? spx_matrix_read(spec, A) : spx_generate(spec, A);
}

static void measure(const char *spec)
{
    spx_matrix *A = NULL;
    const int64_t *rp;
    const void *colv, *valv;
    int bits = 0;
    spx_type vt;
    int64_t rows, cols, nnz;
    if (load(spec, &A) != SPX_OK || spx_matrix_dims(A, &rows, &cols, &nnz) != SPX_OK ||
        spx_matrix_csr(A, &rp, &colv, &bits, &valv, &vt) != SPX_OK || bits != 32 || vt != SPX_F64) {
        fprintf(stderr, "%s: not read as a 32-bit fp64 CSR\n", spec);
        spx_matrix_destroy(A);
        return;
    }
    uint8_t *code = (uint8_t *)malloc((size_t)nnz + 1);
    double table[MAX_CODES];
    const int ncodes = encode((const double *)valv, nnz, code, table);
    if (!ncodes) {
        printf("%-40.40s more than %d distinct values\n", spec, MAX_CODES);
        free(code);
        spx_matrix_destroy(A);
        return;
    }
    device_csr d = {rows, nnz};
    d.ncodes = ncodes;
    double *x = (double *)malloc((size_t)cols * sizeof *x);
    for (int64_t j = 0; j < cols; j++)
        x[j] = 1.0 + (double)(j % 97) / 97.0;
    CUDA_OK(cudaMalloc(&d.rp, (size_t)(rows + 1) * sizeof *d.rp));
    CUDA_OK(cudaMalloc(&d.col, (size_t)nnz * sizeof *d.col + 1));
    CUDA_OK(cudaMalloc(&d.val, (size_t)nnz * sizeof *d.val + 1));
    CUDA_OK(cudaMalloc(&d.code, (size_t)nnz + 1));
    CUDA_OK(cudaMalloc(&d.table, sizeof table));
    CUDA_OK(cudaMalloc(&d.x, (size_t)cols * sizeof *d.x));
    CUDA_OK(cudaMalloc(&d.y, (size_t)rows * sizeof *d.y));
    CUDA_OK(cudaMemcpy(d.rp, rp, (size_t)(rows + 1) * sizeof *rp, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.col, colv, (size_t)nnz * sizeof(int32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.val, valv, (size_t)nnz * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.code, code, (size_t)nnz, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.table, table, sizeof table, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.x, x, (size_t)cols * sizeof *x, cudaMemcpyHostToDevice));
    /* dict's y against stored's, bit for bit */
    double *ys = (double *)malloc((size_t)rows * sizeof *ys),
           *yd = (double *)malloc((size_t)rows * sizeof *yd);
    launch(STORED, d);
    CUDA_OK(cudaMemcpy(ys, d.y, (size_t)rows * sizeof *ys, cudaMemcpyDeviceToHost));
    launch(DICT, d);
    CUDA_OK(cudaMemcpy(yd, d.y, (size_t)rows * sizeof *yd, cudaMemcpyDeviceToHost));
    const int same = memcmp(ys, yd, (size_t)rows * sizeof *ys) == 0;
    const int rounds = env_int("ISO_DICT_ROUNDS", 21), calls = env_int("ISO_DICT_CALLS", 50);
    float *ms = (float *)malloc(sizeof(float) * VARIANTS * (size_t)rounds);
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < VARIANTS; v++) {
            CUDA_OK(cudaEventRecord(e0));
            for (int c = 0; c < calls; c++)
                launch(v, d);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms[v * rounds + r], e0, e1));
        }
    double med[VARIANTS];
    for (int v = 0; v < VARIANTS; v++) {
        qsort(ms + v * rounds, (size_t)rounds, sizeof *ms, cmp_f);
        med[v] = ms[v * rounds + rounds / 2] / calls;
    }
    printf("%-40.40s nnz %9lld codes %3d  stored %.4f dict %.4f pattern %.4f ms  dict gain %.2f "
           "pattern gain %.2f  dict bits %s\n",
           spec, (long long)nnz, ncodes, med[STORED], med[DICT], med[PATTERN],
           med[STORED] / med[DICT], med[STORED] / med[PATTERN], same ? "= stored" : "DIFFER");
    cudaFree(d.rp), cudaFree(d.col), cudaFree(d.val), cudaFree(d.code), cudaFree(d.table);
    cudaFree(d.x), cudaFree(d.y);
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    free(ms), free(ys), free(yd), free(x), free(code);
    spx_matrix_destroy(A);
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; a++)
        measure(argv[a]);
    return 0;
}
