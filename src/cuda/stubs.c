/* Gateway for builds without CUDA: every entry fails with SPX_ERR_NOT_COMPILED
 * (outputs are cleared first, so callers' cleanup paths free nothing). */
#include <string.h>

#include "cuda/gateway.h"
#include "cuda/csr/csr_kernels.h"
#include "core/error.h"

static spx_status not_compiled(void)
{
    return spx__error(SPX_ERR_NOT_COMPILED, "SpX was built without CUDA (SPX_CUDA=OFF)");
}

int spx__cuda_device_count(void)
{
    return 0;
}

spx_status spx__cuda_alloc(void **dptr, size_t bytes, const char *what)
{
    (void)bytes;
    (void)what;
    if (dptr) *dptr = NULL;
    return not_compiled();
}

void spx__cuda_free(void *dptr)
{
    (void)dptr;
}

size_t spx__cuda_stage_min = (size_t)32 << 20;

spx_status spx__cuda_copy_staged(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)to_device;
    return not_compiled();
}

spx_status spx__cuda_sync(void *stream)
{
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_device_info(char *name, size_t name_len, int *sm_count, size_t *l2_bytes)
{
    if (name && name_len) name[0] = '\0';
    if (sm_count) *sm_count = 0;
    if (l2_bytes) *l2_bytes = 0;
    return not_compiled();
}

int spx__cuda_can_overlap_launches(void)
{
    return 0;
}

spx_status spx__cuda_copy_d2d(void *dst, const void *src, size_t bytes, void *stream)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_copy_async(void *dst, const void *src, size_t bytes, int to_device,
                                void *stream)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)to_device;
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_memset(void *dptr, int value, size_t bytes, void *stream)
{
    (void)dptr;
    (void)value;
    (void)bytes;
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_upload(void **dptr, const void *host, size_t bytes, const char *what)
{
    (void)host;
    return spx__cuda_alloc(dptr, bytes, what);
}

spx_status spx__cuda_upload_values(void **dptr, const void *host, spx_type from, int64_t n,
                                   spx_type t, const char *what)
{
    (void)host;
    (void)from;
    (void)n;
    (void)t;
    return spx__cuda_alloc(dptr, 0, what);
}

spx_status spx__cuda_event_create(void **event)
{
    if (event) *event = NULL;
    return not_compiled();
}

spx_status spx__cuda_event_record(void *event, void *stream)
{
    (void)event;
    (void)stream;
    return not_compiled();
}

spx_status spx__cuda_event_elapsed(void *start, void *stop, float *ms)
{
    (void)start;
    (void)stop;
    if (ms) *ms = 0.0f;
    return not_compiled();
}

void spx__cuda_event_destroy(void *event)
{
    (void)event;
}

spx_status spx__cuda_csr_upload(const spx_matrix *A, spx_type t, spx__cuda_csr *d)
{
    (void)A;
    (void)t;
    if (d) memset(d, 0, sizeof *d);
    return not_compiled();
}

void spx__cuda_csr_free(spx__cuda_csr *d)
{
    if (d) memset(d, 0, sizeof *d);
}

size_t spx__cuda_csr_bytes(const spx__cuda_csr *d)
{
    (void)d;
    return 0;
}

spx_status spx__cuda_csr_spmv(const spx__cuda_csr_plan *p, double alpha, const void *x, double beta,
                              void *y)
{
    (void)p;
    (void)alpha;
    (void)x;
    (void)beta;
    (void)y;
    return not_compiled();
}

spx_status spx__cuda_csr_dict_grid(const spx__cuda_csr_plan *p, int64_t *grid)
{
    (void)p;
    (void)grid;
    return not_compiled();
}
