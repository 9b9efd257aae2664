/* Size checks made by every generator before any work in proportion to its
 * nonzeros: a spec may ask for a valid matrix far larger than the machine
 * (lap3d7:100000, random:m=1e5,density=1), which must fail at once with the
 * bytes it would need, not after minutes of drawing entries.
 *
 * Bytes of a generated CSR matrix: 8 (rows+1) offsets, nnz column indices of
 * 4 bytes (8 when cols > INT32_MAX) and nnz fp64 values; the generator adds
 * its own buffers as `extra`. Computed in double: exact enough to compare
 * with memory, and free of overflow. */
#include <stdatomic.h>

#include "core/alloc.h"
#include "core/error.h"
#include "gen/gen.h"

/* Test limit on nonzeros (0: none); only tests and the fuzz harness set it. */
static _Atomic int64_t max_nnz;

void spx__gen_set_max_nnz(int64_t max)
{
    atomic_store(&max_nnz, max > 0 ? max : 0);
}

spx_status spx__gen_check_size(const char *gen, int64_t rows, int64_t cols, int64_t nnz,
                               double extra)
{
    double per_nnz = (cols > INT32_MAX ? 8.0 : 4.0) + 8.0;
    double bytes = 8.0 * ((double)rows + 1.0) + per_nnz * (double)nnz + extra;
    double mem = (double)spx__physical_memory();
    int64_t cap = atomic_load(&max_nnz);
    /* The limit stands for a machine whose memory holds a CSR matrix of cap
     * rows and cap nonzeros with 64-bit columns, and no more nonzeros. */
    if (cap > 0 && (nnz > cap || bytes > 24.0 * (double)cap + 8.0))
        return spx__error(SPX_ERR_OOM,
                          "generator '%s': %lld rows and %lld nonzeros (%.3g bytes) exceed the "
                          "test limit of %lld nonzeros",
                          gen, (long long)rows, (long long)nnz, bytes, (long long)cap);
    if (mem > 0.0 && bytes > mem)
        return spx__error(SPX_ERR_OOM,
                          "generator '%s': %lld rows and %lld nonzeros need %.3g GB, more than "
                          "this machine's %.3g GB of memory",
                          gen, (long long)rows, (long long)nnz, 1e-9 * bytes, 1e-9 * mem);
    return SPX_OK;
}
