/* spx_gmres: restarted GMRES(m) (Saad and Schultz) with right
 * preconditioning, M the Jacobi diagonal or the identity:
 *   a cycle: r = b - A x, beta = ||r||, v_0 = r / beta, g = beta e_0;
 *     for j = 0 .. m-1 (an iteration: one product)
 *       w = A M^-1 v_j;
 *       h = V'w, w -= V h; h' = V'w, w -= V h'    (classical Gram-Schmidt twice,
 *       h_{0..j, j} = h + h';                      V = v_0..v_j)
 *       h_{j+1,j} = ||w||, v_{j+1} = w / h_{j+1,j};
 *       the Givens rotations of columns 0..j-1 applied to column j, then the
 *       one that zeroes h_{j+1,j}, applied to g too: |g_{j+1}| is the residual
 *       norm ||b - A x_j|| of the iterate the cycle would give now;
 *     the cycle ends when that meets rtol, the callback stops it, max_iters
 *     pass, or h_{j+1,j} = 0 (the iterate is exact);
 *   then y = R^-1 g (R the rotated j+1 x j+1 triangle), x += M^-1 (V y), and
 *   the next cycle starts from the new residual.
 * The residual never grows (GMRES minimises it over a space that contains
 * the last iterate), restarts included.
 * Gram-Schmidt, on GPUs (a CUDA plan, or a multi-device plan on GPUs):
 * classical, twice, in three passes over w and V (vec_gs.h): h = V'w;
 * w -= V h with h' = V'w taken on the way; w -= V h' with ||w|| taken on
 * the way. The coefficients stay on the device, so an iteration waits for
 * it once, for the column and ||w|| (a multi-device plan: once a pass, for
 * the parts' sums), where modified Gram-Schmidt's j + 2 dots each waited. A second pass keeps
 * the basis as orthogonal as modified Gram-Schmidt's ("twice is enough",
 * Giraud et al. 2005): the device solves take the CPU's iteration counts
 * (tests/test_gpu_solve.c). On the H200 GMRES(30) took 0.45-0.82x the time
 * of modified Gram-Schmidt's (bench/results/gmres-gs-2026-11-28.md).
 * On CPUs (CPU plans, multi-device plans on CPUs): modified Gram-Schmidt. On a CPU
 * its axpby reads v_i from the cache right after its dot, so it reads the
 * basis from memory once an iteration where the three passes read it three
 * times: they took 1.5-1.7x its time on lap3d7:64 (2 cores). V y at a
 * cycle's end is one pass everywhere. The basis, m + 1
 * vectors (m = restart, at most max_iters and n), is allocated for each
 * solve. A NaN, or a zero on the triangle's diagonal, is a breakdown. */
#include <math.h>

#include "core/alloc.h"
#include "core/error.h"
#include "solve/solve.h"
#include "solve/vec_gs.h"

enum { R, W, Z, NVEC };

/* The restart a solve gets when spx_solve_opts.restart is 0. */
#define GMRES_RESTART 30

/* One cycle's Hessenberg matrix, rotations and basis. */
typedef struct gmres_cycle {
    int64_t m;  /* columns at most */
    void **V;   /* m + 1 basis vectors of the solve's space */
    double *H;  /* (m + 1) x m, column j at H + j * (m + 1) */
    double *cs; /* rotation j: cos, sin */
    double *sn;
    double *g;      /* m + 1: the rotated beta e_0 */
    double *y;      /* m: the triangle's solution */
    spx__gs_buf gs; /* h at 0, h' at m + 1 and ||w||^2 at 2m + 2, where the vectors are */
    double *sums;   /* their host copy */
} gmres_cycle;

static double *h_at(const gmres_cycle *c, int64_t i, int64_t j)
{
    return c->H + i + j * (c->m + 1);
}

static spx_status breakdown(const char *what, int64_t it)
{
    return spx__error(SPX_ERR_BREAKDOWN, "gmres: %s at iteration %lld", what, (long long)it);
}

static void cycle_free(spx__solve *S, gmres_cycle *c)
{
    for (int64_t i = 0; c->V && i <= c->m; i++)
        if (c->V[i]) spx__v_free(&S->s, c->V[i]);
    spx__free(c->V);
    spx__free(c->H);
    spx__free(c->cs);
    spx__free(c->sn);
    spx__free(c->g);
    spx__free(c->y);
    spx__free(c->sums);
    if (c->gs.count) spx__gs_buf_free(&S->s, &c->gs);
}

static spx_status cycle_alloc(spx__solve *S, gmres_cycle *c)
{
    spx_status st;
    const size_t m = (size_t)c->m;
    SPX_TRY(spx__calloc((void **)&c->V, m + 1, sizeof *c->V, "gmres basis"));
    SPX_TRY(spx__calloc((void **)&c->H, (m + 1) * m, sizeof *c->H, "gmres Hessenberg matrix"));
    SPX_TRY(spx__calloc((void **)&c->cs, m, sizeof *c->cs, "gmres rotations"));
    SPX_TRY(spx__calloc((void **)&c->sn, m, sizeof *c->sn, "gmres rotations"));
    SPX_TRY(spx__calloc((void **)&c->g, m + 1, sizeof *c->g, "gmres rotations"));
    SPX_TRY(spx__calloc((void **)&c->y, m, sizeof *c->y, "gmres rotations"));
    SPX_TRY(spx__calloc((void **)&c->sums, 2 * m + 3, sizeof *c->sums, "gmres sums"));
    SPX_TRY(spx__gs_buf_alloc(&S->s, 2 * m + 3, &c->gs));
    for (size_t i = 0; i <= m; i++)
        SPX_TRY(spx__v_alloc(&S->s, &c->V[i], "gmres basis vector (restart+1 of them)"));
cleanup:
    return st;
}

/* Column j: the rotations before it, then a new one zeroing h_{j+1,j},
 * applied to g. */
static void rotate(gmres_cycle *c, int64_t j)
{
    for (int64_t i = 0; i < j; i++) {
        const double a = *h_at(c, i, j), b = *h_at(c, i + 1, j);
        *h_at(c, i, j) = c->cs[i] * a + c->sn[i] * b;
        *h_at(c, i + 1, j) = -c->sn[i] * a + c->cs[i] * b;
    }
    const double a = *h_at(c, j, j), b = *h_at(c, j + 1, j), r = hypot(a, b);
    c->cs[j] = r > 0.0 ? a / r : 1.0;
    c->sn[j] = r > 0.0 ? b / r : 0.0;
    *h_at(c, j, j) = r;
    *h_at(c, j + 1, j) = 0.0;
    c->g[j + 1] = -c->sn[j] * c->g[j];
    c->g[j] = c->cs[j] * c->g[j];
}

/* x += M^-1 (V y), y the solution of the cycle's first k columns' triangle. */
static spx_status update_x(spx__solve *S, gmres_cycle *c, int64_t k, void *x, void **v, int64_t it)
{
    spx_status st = SPX_OK;
    for (int64_t i = k - 1; i >= 0; i--) {
        double s = c->g[i];
        for (int64_t l = i + 1; l < k; l++)
            s -= *h_at(c, i, l) * c->y[l];
        if (*h_at(c, i, i) == 0.0) return breakdown("a zero on the rotated diagonal", it);
        c->y[i] = s / *h_at(c, i, i);
    }
    if (k == 0) return SPX_OK;
    /* w = V y: w = 0 less the vectors times -y, one Gram-Schmidt pass */
    for (int64_t i = 0; i < k; i++)
        c->sums[i] = -c->y[i];
    if ((st = spx__v_gs_put(&S->s, &c->gs, 0, c->sums, k)) != SPX_OK ||
        (st = spx__v_zero(&S->s, v[W])) != SPX_OK ||
        (st = spx__v_gs(&S->s, &c->gs, k, (const void *const *)c->V, v[W], 0, -1, -1)) != SPX_OK)
        return st;
    if (S->dinv && (st = spx__solve_precond(S, v[W], v[Z])) != SPX_OK) return st;
    return spx__v_axpby(&S->s, 1.0, S->dinv ? v[Z] : v[W], 1.0, x);
}

/* Column j of H from w against v_0..v_j, and ||w|| into *hn, by
 * modified Gram-Schmidt: a dot (a wait on a device) and an axpby a vector,
 * the axpby reading v_i right after the dot did (from the cache on a CPU). */
static spx_status modified_gs(spx__solve *S, gmres_cycle *c, int64_t j, void *w, double *hn)
{
    spx_status st;
    for (int64_t i = 0; i <= j; i++) {
        SPX_TRY(spx__v_dot(&S->s, w, c->V[i], h_at(c, i, j)));
        SPX_TRY(spx__v_axpby(&S->s, -*h_at(c, i, j), c->V[i], 1.0, w));
    }
    SPX_TRY(spx__v_dot(&S->s, w, w, hn));
cleanup:
    return st;
}

/* The same by classical Gram-Schmidt twice: three passes over w and V
 * queued on the device, one wait. */
static spx_status classical_gs(spx__solve *S, gmres_cycle *c, int64_t j, void *w, double *hn)
{
    spx_status st;
    const void *const *V = (const void *const *)c->V;
    const int64_t h = 0, h2 = c->m + 1, nrm = 2 * (c->m + 1); /* in c->gs */
    SPX_TRY(spx__v_gs(&S->s, &c->gs, j + 1, V, w, -1, h, -1));
    SPX_TRY(spx__v_gs(&S->s, &c->gs, j + 1, V, w, h, h2, -1));
    SPX_TRY(spx__v_gs(&S->s, &c->gs, j + 1, V, w, h2, -1, nrm));
    SPX_TRY(spx__v_gs_take(&S->s, &c->gs, c->sums));
    for (int64_t i = 0; i <= j; i++)
        *h_at(c, i, j) = c->sums[h + i] + c->sums[h2 + i];
    *hn = c->sums[nrm];
cleanup:
    return st;
}

/* One iteration, column j: w = A M^-1 v_j orthogonalised against v_0..v_j,
 * h_{j+1,j} = ||w|| into *hn. */
static spx_status arnoldi(spx__solve *S, gmres_cycle *c, int64_t j, void **v, double *hn)
{
    spx_status st;
    const void *z = c->V[j];
    if (S->dinv) {
        SPX_TRY(spx__solve_precond(S, c->V[j], v[Z]));
        z = v[Z];
    }
    SPX_TRY(spx__solve_spmv(S, 1.0, z, 0.0, v[W]));
    SPX_TRY(spx__v_gs_on_gpu(&S->s) ? classical_gs(S, c, j, v[W], hn)
                                    : modified_gs(S, c, j, v[W], hn));
    *hn = sqrt(*hn);
    *h_at(c, j + 1, j) = *hn;
cleanup:
    return st;
}

/* One cycle from x, iterations counted on from *it; *over when the solve
 * is over (converged, stopped by the callback). */
static spx_status cycle(spx__solve *S, gmres_cycle *c, const void *b, void *x, void **v,
                        int64_t *it, int *over)
{
    spx_status st;
    double beta = 0.0, hn = 0.0;
    int64_t k = 0;
    SPX_TRY(spx__solve_residual(S, b, x, v[R]));
    SPX_TRY(spx__v_dot(&S->s, v[R], v[R], &beta));
    beta = sqrt(beta);
    if (!isfinite(beta)) return breakdown("a NaN or Inf in the residual", *it);
    if ((*it == 0 && spx__solve_record(S, 0, beta)) || beta == 0.0) {
        S->converged |= beta == 0.0; /* x is exact, whatever rtol */
        *over = 1;
        return SPX_OK;
    }
    SPX_TRY(spx__v_axpby(&S->s, 1.0 / beta, v[R], 0.0, c->V[0]));
    c->g[0] = beta;
    for (int64_t j = 0; j < c->m && *it < S->o.max_iters; j++) {
        SPX_TRY(arnoldi(S, c, j, v, &hn));
        if (!isfinite(hn)) return breakdown("a NaN or Inf in the basis", *it + 1);
        rotate(c, j);
        k = j + 1;
        *over = spx__solve_record(S, ++*it, fabs(c->g[j + 1]));
        if (*over || hn == 0.0) break;
        SPX_TRY(spx__v_axpby(&S->s, 1.0 / hn, v[W], 0.0, c->V[j + 1]));
    }
    SPX_TRY(update_x(S, c, k, x, v, *it));
cleanup:
    return st;
}

static spx_status gmres_loop(spx__solve *S, const void *b, void *x, void **v)
{
    gmres_cycle c = {0};
    spx_status st;
    int64_t it = 0;
    int over = 0;
    const int64_t want = S->o.restart > 0 ? S->o.restart : GMRES_RESTART;
    c.m = want < S->o.max_iters ? want : S->o.max_iters > 0 ? S->o.max_iters : 1;
    const int64_t n = spx__v_global_n(&S->s);
    if (c.m > n && n > 0) c.m = n; /* n steps span the whole space */
    SPX_TRY(cycle_alloc(S, &c));
    do
        SPX_TRY(cycle(S, &c, b, x, v, &it, &over));
    while (!over && it < S->o.max_iters);
cleanup:
    cycle_free(S, &c);
    return st;
}

spx_status spx_gmres(const spx_plan *P, const spx_matrix *A, const void *b, void *x,
                     const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run(P, NULL, A, b, x, o, info, "gmres", NVEC, gmres_loop);
}

spx_status spx_multi_gmres(spx_multi_plan *P, const spx_matrix *A, const spx_multi_vector *b,
                           spx_multi_vector *x, const spx_solve_opts *o, spx_solve_info *info)
{
    return spx__solve_run(NULL, P, A, b, x, o, info, "gmres", NVEC, gmres_loop);
}

spx_status spx__gmres_op(const spx__solve_op *op, const void *b, void *x, const spx_solve_opts *o,
                         spx_solve_info *info)
{
    return spx__solve_run_op(op, b, x, o, info, "gmres", NVEC, gmres_loop);
}
