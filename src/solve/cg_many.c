/* spx_cg_many: CG for k right-hand sides, each column its own CG (cg.c's
 * math; its scalars in many_cols.h), the k products one spx_spmm:
 *   R = B - A X, Z = M^-1 R, P = Z, rr_j, rz_j; columns already small stop
 *   repeat: Q = A P; pq_j = p_j'q_j;
 *           live columns with pq_j > 0: x_j += alpha_j p_j, r_j -= alpha_j q_j
 *           (alpha_j = rz_j / pq_j); Z = M^-1 R; rr_j, rz_j; the turn stops
 *           the columns that converged or broke down;
 *           live columns: p_j = z_j + beta_j p_j.
 * A stopped column is neither moved nor read by the vector steps; the
 * product still carries it (a dead column costs its share of the SpMM).
 * Its x_j stays as its stopping iteration left it, so on a CUDA plan the
 * iteration queued behind the host's last look (ahead, as spx_cg) changes
 * nothing. The solve is over when no column is live. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/keep.h"
#include "cuda/gateway.h"
#include "plan/format.h"
#include "solve/many.h"
#include "solve/many_cols.h"
#include "solve/solve.h"

enum { R, Z, PD, Q, NBLOCKS }; /* PD: the directions P */

/* What a solve keeps on its plan for the next one with the same k. */
typedef struct many_kept {
    spx__bspace s;
    void *v[NBLOCKS];
} many_kept;

typedef struct cg_many {
    const spx_plan *P;
    spx__bspace s;
    spx_solve_opts o;
    void *dinv; /* Jacobi: 1 / diag(A), n entries */
    void *v[NBLOCKS];
    int64_t iters;
    int stop;  /* the callback asked to stop */
    int over;  /* no column is live */
    double t0; /* ms */
    spx__keep *slot;
    many_kept *kept;
} cg_many;

static void kept_free(void *p)
{
    many_kept *k = p;
    for (int i = 0; i < NBLOCKS; i++)
        spx__b_release(&k->s, k->v[i]);
    spx__b_free(&k->s);
    spx__free(k);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static spx_status check_call(const spx_plan *P, int64_t k, const void *B, int64_t ldb,
                             const void *X, int64_t ldx, const spx_solve_opts *o)
{
    int64_t rows, cols;
    spx_status st = spx_plan_dims(P, &rows, &cols);
    if (st != SPX_OK) return st;
    if (spx_plan_operation(P) != SPX_OP_SPMM)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_cg_many needs an SPX_OP_SPMM plan (SpMV plans: spx_cg)");
    if (k < 0) return spx__error(SPX_ERR_INVALID_ARG, "spx_cg_many: k = %lld < 0", (long long)k);
    if (!(o->rtol >= 0.0) || o->max_iters < 0)
        return spx__error(SPX_ERR_INVALID_ARG, "solver rtol must be >= 0 and max_iters >= 0");
    if (rows == 0 || k == 0) return SPX_OK;
    if (ldb < k || ldx < k)
        return spx__error(SPX_ERR_INVALID_ARG,
                          "spx_cg_many: ldb = %lld and ldx = %lld must be at least k = %lld",
                          (long long)ldb, (long long)ldx, (long long)k);
    if (!B || !X) return spx__error(SPX_ERR_INVALID_ARG, "B or X is NULL");
    if (B == X)
        return spx__error(SPX_ERR_INVALID_ARG, "B and X are the same block: X needs its own");
    if (spx_plan_device(P) != SPX_DEV_CUDA) return SPX_OK;
    static const char *const host = "of a CUDA plan's solve (host blocks: spx_cg_many_host)";
    char what[96];
    snprintf(what, sizeof what, "B %s", host);
    if ((st = spx__cuda_device_array(B, what)) != SPX_OK) return st;
    snprintf(what, sizeof what, "X %s", host);
    return spx__cuda_device_array(X, what);
}

/* The Jacobi diagonal on the plan's device, of its vector type. */
static spx_status jacobi(cg_many *S, const spx_matrix *A)
{
    double *d = NULL;
    spx_status st = SPX_OK;
    if (!A) return spx__error(SPX_ERR_INVALID_ARG, "the Jacobi preconditioner needs A");
    SPX_TRY(spx__jacobi_diagonal(A, S->s.n, NULL, &d));
    if (S->s.cuda) {
        SPX_TRY(spx__cuda_upload_values(&S->dinv, d, SPX_F64, S->s.n, S->s.t, "Jacobi diagonal"));
    } else {
        SPX_TRY(
            spx__alloc(&S->dinv, (size_t)S->s.n + 1, spx__b_entry_bytes(&S->s), "Jacobi diagonal"));
        for (int64_t i = 0; i < S->s.n; i++)
            if (S->s.t == SPX_F64)
                ((double *)S->dinv)[i] = d[i];
            else
                ((float *)S->dinv)[i] = (float)d[i];
    }
cleanup:
    spx__free(d);
    return st;
}

/* The space and blocks: the plan's kept ones where they are for this k. */
static spx_status workspace(cg_many *S, int64_t k)
{
    spx_status st = SPX_OK;
    many_kept *kept = spx__keep_take(S->slot);
    if (kept && kept->s.k == k) {
        S->kept = kept;
        S->s = kept->s;
        memcpy(S->v, kept->v, sizeof S->v);
    } else {
        if (kept) kept_free(kept);
        SPX_TRY(spx__b_init(&S->s, S->P, k));
    }
    for (int i = 0; i < NBLOCKS; i++)
        if (!S->v[i] && (i != Z || S->o.jacobi))
            SPX_TRY(spx__b_alloc(&S->s, &S->v[i], "cg_many block"));
cleanup:
    return st;
}

/* S set up for a solve with k columns (an empty one: *empty, nothing made). */
static spx_status begin(cg_many *S, const spx_plan *P, const spx_matrix *A, int64_t k,
                        const void *B, int64_t ldb, const void *X, int64_t ldx,
                        const spx_solve_opts *o, int *empty)
{
    int64_t rows, cols;
    spx_status st;
    memset(S, 0, sizeof *S);
    S->t0 = now_ms();
    S->P = P;
    S->o = o ? *o : spx_solve_opts_default();
    if ((st = check_call(P, k, B, ldb, X, ldx, &S->o)) != SPX_OK) return st;
    spx_plan_dims(P, &rows, &cols);
    if ((*empty = rows == 0 || k == 0)) return SPX_OK;
    S->slot = spx__plan_keep(P);
    if ((st = workspace(S, k)) != SPX_OK) return st;
    if (S->o.jacobi && (st = jacobi(S, A)) != SPX_OK) return st;
    return SPX_OK;
}

/* The worst relative residual over the columns (a NaN one wins), and
 * whether any column is live. */
static double worst(const cg_many *S, const double *c, int *live)
{
    double w = 0.0;
    *live = 0;
    for (int64_t j = 0; j < S->s.k; j++) {
        double rel = spx__cm_rel(c, S->s.k, j);
        if (!isnan(w) && (isnan(rel) || rel > w)) w = rel;
        if (c[SPX__CM_LIVE * S->s.k + j] != 0.0) *live = 1;
    }
    return w;
}

/* Iteration it's outcome from its published scalars: 1 when the solve is over. */
static int take(cg_many *S, int64_t it, spx_status *st)
{
    const double *c;
    int live;
    if ((*st = spx__b_read(&S->s, it, &c)) != SPX_OK) return 1;
    double rel = worst(S, c, &live);
    S->iters = it;
    if (S->o.history) S->o.history[it] = rel;
    if (S->o.callback && S->o.callback(S->o.ctx, it, rel)) S->stop = 1;
    S->over = !live;
    return S->stop || S->over;
}

/* R = B - A X, R's column norms first (they are B's). */
static spx_status residual(cg_many *S, const void *B, int64_t ldb, const void *X, int64_t ldx,
                           int field)
{
    const int64_t k = S->s.k;
    const void *r = S->v[R];
    spx_status st = spx__b_copy(&S->s, B, ldb, S->v[R], k);
    if (st == SPX_OK && field == SPX__CM_RR) {
        st = spx__b_dots(&S->s, 1, &r, &r, (const int[1]){SPX__CM_RR});
        if (st == SPX_OK) st = spx__b_cols(&S->s, SPX__CM_SET_BNORM, 0, S->o.rtol, 0);
    }
    if (st == SPX_OK) st = spx_spmm(S->P, k, -1.0, X, ldx, 1.0, S->v[R], k);
    if (st == SPX_OK && field != SPX__CM_RR)
        st = spx__b_dots(&S->s, 1, &r, &r, (const int[1]){field});
    return st;
}

static spx_status start(cg_many *S, const void *B, int64_t ldb, const void *X, int64_t ldx)
{
    const int64_t k = S->s.k;
    const void *a[2] = {S->v[R], S->v[R]}, *b[2] = {S->v[R], S->v[Z]};
    const void *z = S->dinv ? S->v[Z] : S->v[R];
    spx_status st;
    SPX_TRY(residual(S, B, ldb, X, ldx, SPX__CM_RR));
    if (S->dinv) SPX_TRY(spx__b_diag(&S->s, S->dinv, S->v[R], S->v[Z]));
    SPX_TRY(spx__b_dots(&S->s, S->dinv ? 2 : 1, a, b, (const int[2]){SPX__CM_RR, SPX__CM_RZ}));
    SPX_TRY(spx__b_cols(&S->s, SPX__CM_BEGIN, 0, S->o.rtol, S->dinv != NULL));
    SPX_TRY(spx__b_copy(&S->s, z, k, S->v[PD], k));
    SPX_TRY(spx__b_publish(&S->s, 0));
cleanup:
    return st;
}

static spx_status queue_iteration(cg_many *S, void *X, int64_t ldx, int64_t it)
{
    const int64_t k = S->s.k;
    const void *p = S->v[PD], *q = S->v[Q];
    spx_status st;
    SPX_TRY(spx_spmm(S->P, k, 1.0, S->v[PD], k, 0.0, S->v[Q], k));
    SPX_TRY(spx__b_dots(&S->s, 1, &p, &q, (const int[1]){SPX__CM_PQ}));
    SPX_TRY(
        spx__b_cg_step(&S->s, it, S->o.rtol, X, ldx, S->v[PD], S->v[R], S->v[Q], S->dinv, S->v[Z]));
    SPX_TRY(spx__b_direction(&S->s, S->dinv ? S->v[Z] : S->v[R], S->v[PD]));
    SPX_TRY(spx__b_publish(&S->s, it));
cleanup:
    return st;
}

/* Iterations queued one ahead of the host's look on a CUDA plan without a
 * callback (cg.c's reason), else each looked at as soon as queued. */
static spx_status iterate(cg_many *S, const void *B, int64_t ldb, void *X, int64_t ldx)
{
    const int64_t ahead = S->s.cuda && !S->o.callback ? 1 : 0;
    int64_t taken = 0;
    spx_status st = start(S, B, ldb, X, ldx);
    if (st != SPX_OK || take(S, 0, &st)) return st;
    for (int64_t it = 1; it <= S->o.max_iters; it++) {
        if ((st = queue_iteration(S, X, ldx, it)) != SPX_OK) return st;
        while (taken < it - ahead)
            if (take(S, ++taken, &st)) return st;
    }
    while (taken < S->o.max_iters)
        if (take(S, ++taken, &st)) return st;
    return SPX_OK;
}

/* The solve's status from its columns' codes (c: after the final residual). */
static spx_status verdict(const cg_many *S, const double *c)
{
    const int64_t k = S->s.k;
    int64_t open = 0, first = -1;
    for (int64_t j = 0; j < k; j++) {
        double code = c[SPX__CM_CODE * k + j];
        if (code == SPX__CM_NOT_SPD || code == SPX__S_NAN)
            return spx__error(SPX_ERR_BREAKDOWN, "cg_many: column %lld: %s at iteration %lld",
                              (long long)j,
                              code == SPX__S_NAN ? "NaN" : "p'Ap <= 0 (A not positive definite?)",
                              (long long)c[SPX__CM_ITERS * k + j]);
        if (code != SPX__S_CONVERGED && !S->stop && open++ == 0) first = j;
    }
    if (open == 0) return SPX_OK;
    return spx__error(SPX_ERR_NOT_CONVERGED,
                      "cg_many: %lld of %lld columns above rtol %.3g after %lld iterations "
                      "(column %lld: relative residual %.3g)",
                      (long long)open, (long long)k, S->o.rtol, (long long)S->iters,
                      (long long)first, spx__cm_rel(c, k, first));
}

/* The final residuals recomputed from X into info, then the verdict. */
static spx_status finish(cg_many *S, const void *B, int64_t ldb, const void *X, int64_t ldx,
                         spx_status st, spx_solve_info *info)
{
    const int64_t k = S->s.k;
    const double *c = NULL;
    spx_status fin = residual(S, B, ldb, X, ldx, SPX__CM_RR_NEW);
    if (fin == SPX_OK) fin = spx__b_publish(&S->s, 0);
    if (fin == SPX_OK) fin = spx__b_read(&S->s, 0, &c);
    for (int64_t j = 0; info && j < k; j++) {
        info[j].iters = c ? (int64_t)c[SPX__CM_ITERS * k + j] : S->iters;
        info[j].rel_residual = NAN;
        if (c) {
            double rn = sqrt(c[SPX__CM_RR_NEW * k + j]), b = c[SPX__CM_BNORM * k + j];
            info[j].rel_residual = b > 0.0 ? rn / b : rn;
        }
        info[j].ms = now_ms() - S->t0;
        info[j].replayed = 0;
    }
    if (st != SPX_OK) return st;
    if (fin != SPX_OK) return fin;
    return verdict(S, c);
}

/* The blocks and space into the plan's slot, or freed. */
static void put_away(cg_many *S)
{
    many_kept *k = S->kept;
    if (S->s.cuda)
        spx__cuda_free(S->dinv);
    else
        spx__free(S->dinv);
    if (S->s.k > 0 && S->slot && S->o.keep_workspace &&
        (k || spx__calloc((void **)&k, 1, sizeof *k, "solver workspace") == SPX_OK)) {
        k->s = S->s;
        memcpy(k->v, S->v, sizeof k->v);
        spx__keep_give(S->slot, k, kept_free);
        return;
    }
    for (int i = 0; i < NBLOCKS; i++)
        spx__b_release(&S->s, S->v[i]);
    spx__b_free(&S->s);
    spx__free(k);
}

static void empty_info(spx_solve_info *info, int64_t k, double t0)
{
    for (int64_t j = 0; info && j < k; j++) {
        memset(&info[j], 0, sizeof info[j]);
        info[j].ms = now_ms() - t0;
    }
}

spx_status spx_cg_many(const spx_plan *P, const spx_matrix *A, int64_t k, const void *B,
                       int64_t ldb, void *X, int64_t ldx, const spx_solve_opts *o,
                       spx_solve_info *info)
{
    cg_many S;
    int empty = 0;
    spx_status st = begin(&S, P, A, k, B, ldb, X, ldx, o, &empty);
    if (st == SPX_OK && empty) empty_info(info, k, S.t0);
    if (st == SPX_OK && !empty) {
        st = iterate(&S, B, ldb, X, ldx);
        st = finish(&S, B, ldb, X, ldx, st, info);
    }
    put_away(&S);
    return st;
}

spx_status spx_cg_many_host(const spx_plan *P, const spx_matrix *A, int64_t k, const void *B,
                            int64_t ldb, void *X, int64_t ldx, const spx_solve_opts *o,
                            spx_solve_info *info)
{
    int64_t rows, cols;
    void *db = NULL, *dx = NULL;
    spx_status st = spx_plan_dims(P, &rows, &cols), back;
    if (st != SPX_OK) return st;
    /* CPU plans solve in place; what the solve refuses it refuses before
     * reading B or X */
    if (spx_plan_device(P) != SPX_DEV_CUDA || rows == 0 || k <= 0 || rows != cols || ldb < k ||
        ldx < k || !B || !X || spx_plan_x_type(P) == SPX_F16 ||
        spx_plan_operation(P) != SPX_OP_SPMM)
        return spx_cg_many(P, A, k, B, ldb, X, ldx, o, info);
    size_t es = spx_plan_x_type(P) == SPX_F64 ? sizeof(double) : sizeof(float);
    size_t bb = ((size_t)(rows - 1) * (size_t)ldb + (size_t)k) * es;
    size_t xb = ((size_t)(rows - 1) * (size_t)ldx + (size_t)k) * es;
    SPX_TRY(spx__cuda_upload(&db, B, bb, "B on the device"));
    SPX_TRY(spx__cuda_upload(&dx, X, xb, "X on the device"));
    st = spx_cg_many(P, A, k, db, ldb, dx, ldx, o, info);
    back = spx__cuda_copy(X, dx, xb, 0);
    if (st == SPX_OK) st = back;
cleanup:
    spx__cuda_free(db);
    spx__cuda_free(dx);
    return st;
}
