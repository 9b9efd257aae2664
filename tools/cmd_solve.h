/* What spx solve (cmd_solve.c) and its --rhs K path (cmd_solve_many.c)
 * share: the parsed arguments and a few helpers. */
#ifndef SPX_TOOLS_CMD_SOLVE_H
#define SPX_TOOLS_CMD_SOLVE_H

#include <stdio.h>

#include "cli.h"

#define RHS_MAX 65536
#define RHS_SEED 1u

typedef struct solve_args {
    const char *matrix, *b, *x0, *out, *history;
    const char *method; /* "cg", "bicgstab" or "gmres" */
    int compare;
    int64_t rhs; /* 0: one right-hand side, spx_cg_host, spx_bicgstab_host or spx_gmres_host */
    spx_plan_opts o;
    spx_solve_opts so;
} solve_args;

/* v (n doubles) as the plan's vector type t in place: floats packed at the
 * front for SPX_F32, or back to doubles (to_double). */
void solve_convert(double *v, int64_t n, spx_type t, int to_double);
double solve_now_ms(void);
/* Where the summary lines go: stderr when x goes to standard output. */
FILE *solve_summary_stream(const solve_args *a);
/* --rhs K: the many-solve with P (an SpMM plan of A), --compare's solves,
 * the lines, X and the history written as asked; the command's exit code. */
int solve_run_many(solve_args *a, const spx_matrix *A, const spx_plan *P, double load_s);

#endif
