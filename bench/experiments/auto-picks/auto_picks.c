/* AUTO's pick for each matrix, device, precision and expected-call count,
 * one line each, from the library's internal AUTO entry (no GPU needed: the
 * rules read the matrix on the host). Built twice to compare two versions of
 * AUTO: -DAUTO_BY_NAME for the tree before the registry answered through
 * suits hooks (spx__auto_format(A, o) returned a name, and the plan layer fell
 * back to csr when the pick lacked the precision), without it for the
 * registry's suits hooks. Usage: auto_picks M... (files or gen:SPEC). */
#include <stdio.h>
#include <string.h>

#include "core/matrix.h"
#include "plan/format.h"
#include "spx.h"

static const char *pick(const spx_matrix *A, spx_device d, spx_type t, int64_t calls)
{
    spx_plan_opts o = spx_plan_opts_default();
    o.device = d;
    o.precision = t;
    o.expected_calls = calls;
#ifdef AUTO_BY_NAME
    const char *name = spx__auto_format(A, &o);
    if (!spx__format_find(name, d, t)) name = "csr";
    return spx__format_find(name, d, t) ? name : "-";
#else
    const spx_format_ops *f = spx__auto_format(A, SPX_OP_SPMV, &o);
    return f ? f->name : "-";
#endif
}

int main(int argc, char **argv)
{
    static const spx_device devs[] = {SPX_DEV_CPU, SPX_DEV_CUDA};
    static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
    static const int64_t calls[] = {0, 20, 5000};
    for (int a = 1; a < argc; a++) {
        spx_matrix *A = NULL;
        spx_status st = strncmp(argv[a], "gen:", 4) == 0 ? spx_generate(argv[a] + 4, &A)
                                                          : spx_matrix_read(argv[a], &A);
        if (st != SPX_OK) {
            fprintf(stderr, "%s: %s\n", argv[a], spx_last_error());
            continue;
        }
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        printf("%-40s", base);
        for (int d = 0; d < 2; d++)
            for (int t = 0; t < 3; t++)
                for (int c = 0; c < 3; c++)
                    printf(" %s", pick(A, devs[d], types[t], calls[c]));
        printf("\n");
        fflush(stdout);
        spx_matrix_destroy(A);
    }
    return 0;
}
